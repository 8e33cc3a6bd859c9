//! `skillc push` and `skillc pull` against a real registry server started here (Debian's
//! `docker-registry`, the CNCF distribution registry, on localhost over plain HTTP): by tag
//! and by digest, byte-identical, the signature travelling with the artifact, a pull that
//! needs nothing new downloading nothing, and a wrong digest, a missing tag or a damaged blob
//! failing with nothing written.

use crate::common::{arg as s, said as text, skillc};

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// A registry on a free localhost port, stopped when dropped.
struct Registry {
    child: Child,
    host: String,
    data: PathBuf,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn registry(dir: &Path) -> Registry {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data = dir.join("registry-data");
    let config = dir.join("registry.yml");
    std::fs::write(
        &config,
        format!(
            "version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\nlog:\n  level: error\n",
            data.display()
        ),
    )
    .unwrap();
    let child = Command::new("docker-registry")
        .args(["serve", s(&config)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the `docker-registry` command (Debian package docker-registry; scripts/setup.sh installs it)");
    // Owned at once: stopped and waited for on every path, a failed start included.
    let reg = Registry {
        child,
        host: format!("127.0.0.1:{port}"),
        data,
    };
    for _ in 0..100 {
        if let Ok(mut c) = std::net::TcpStream::connect(&reg.host) {
            let _ = c.write_all(b"GET /v2/ HTTP/1.0\r\n\r\n");
            let mut answer = String::new();
            let _ = c.read_to_string(&mut answer);
            if answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200") {
                return reg;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("the registry did not start on {}", reg.host);
}

fn signed_artifact(dir: &Path) -> PathBuf {
    let key = dir.join("k.key");
    assert!(skillc(&["keygen", "-o", s(&key)]).status.success());
    let out = dir.join("skills.db");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let o = skillc(&["build", s(&sample), "-o", s(&out), "--sign", s(&key)]);
    assert!(o.status.success(), "{}", text(&o));
    out
}

#[test]
fn push_and_pull_by_tag_and_by_digest_give_the_same_bytes_and_signature() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let artifact = signed_artifact(dir.path());
    let tag = format!("{}/skills/sample:v1", reg.host);
    let o = skillc(&["push", s(&artifact), &tag, "--plain-http"]);
    assert!(o.status.success(), "{}", text(&o));
    let pinned = String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    assert!(pinned.contains("@sha256:"), "{pinned}");
    assert!(text(&o).contains("with its signature"));

    let by_tag = dir.path().join("by-tag.db");
    let o = skillc(&["pull", &tag, "-o", s(&by_tag), "--plain-http"]);
    assert!(o.status.success(), "{}", text(&o));
    let by_digest = dir.path().join("by-digest.db");
    let o = skillc(&["pull", &pinned, "-o", s(&by_digest), "--plain-http"]);
    assert!(o.status.success(), "{}", text(&o));
    let original = std::fs::read(&artifact).unwrap();
    for pulled in [&by_tag, &by_digest] {
        assert_eq!(std::fs::read(pulled).unwrap(), original);
        let sig = |p: &Path| std::fs::read(skillc_runtime::signature::signature_path(p)).unwrap();
        assert_eq!(sig(pulled), sig(&artifact));
    }
    let pub_key = dir.path().join("k.pub");
    assert!(skillc(&["verify", s(&by_tag), "--public-key", s(&pub_key)])
        .status
        .success());
    // Polling an unchanged tag downloads nothing.
    let o = skillc(&["pull", &tag, "-o", s(&by_tag), "--plain-http"]);
    assert!(text(&o).contains("already holds"), "{}", text(&o));
    // An unsigned artifact pulled over a signed one takes the old signature away.
    let unsigned = dir.path().join("unsigned.db");
    std::fs::copy(&artifact, &unsigned).unwrap();
    let bare = format!("{}/skills/sample:unsigned", reg.host);
    assert!(skillc(&["push", s(&unsigned), &bare, "--plain-http"])
        .status
        .success());
    let o = skillc(&["pull", &bare, "-o", s(&by_tag), "--plain-http"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!skillc_runtime::signature::signature_path(&by_tag).exists());
    // HTTPS unless asked: a plain-HTTP registry is refused without the flag, and says so.
    let o = skillc(&["pull", &tag, "-o", s(&dir.path().join("x.db"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("--plain-http"), "{}", text(&o));
}

#[test]
fn a_wrong_digest_a_missing_tag_or_a_damaged_blob_fail_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let artifact = signed_artifact(dir.path());
    let tag = format!("{}/skills/sample:v1", reg.host);
    assert!(skillc(&["push", s(&artifact), &tag, "--plain-http"])
        .status
        .success());
    let out = dir.path().join("out.db");
    let zeros = format!("{}/skills/sample@sha256:{}", reg.host, "0".repeat(64));
    for source in [zeros.as_str(), &format!("{}/skills/sample:v9", reg.host)] {
        let o = skillc(&["pull", source, "-o", s(&out), "--plain-http"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains("manifest unknown"), "{}", text(&o));
        assert!(!out.exists());
    }
    // The artifact's blob damaged in the registry's storage: the digest check refuses it.
    let digest = format!(
        "{:x}",
        <sha2::Sha256 as sha2::Digest>::digest(std::fs::read(&artifact).unwrap())
    );
    let blob = reg
        .data
        .join("docker/registry/v2/blobs/sha256")
        .join(&digest[..2])
        .join(&digest)
        .join("data");
    let mut bytes = std::fs::read(&blob).unwrap();
    let n = bytes.len() - 100;
    bytes[n] ^= 1;
    std::fs::write(&blob, bytes).unwrap();
    let o = skillc(&["pull", &tag, "-o", s(&out), "--plain-http"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("digest"), "{}", text(&o));
    assert!(!out.exists());
}

/// What the fake registry does with one request.
enum Reply {
    /// A whole answer: status, extra header lines, body.
    Full(u16, String, Vec<u8>),
    /// Headers, then a body that never ends (no length: it would end with the connection).
    Endless,
    /// Headers declaring `usize` bytes, the first few of them, then nothing more.
    StallAfterHeaders(usize),
    /// Nothing at all, not even a status line.
    Stall,
    /// Headers declaring `usize` bytes, then those bytes one every 100 ms: never a wait long
    /// enough for `--timeout`, and days for a body of some size.
    Drip(usize),
    /// The head itself one byte every 100 ms (a long header line in it).
    DripHead,
    /// Headers, then the body `usize` bytes every 100 ms.
    Paced(Vec<u8>, usize),
}

type Route = dyn Fn(&str, &str) -> Reply + Send + Sync;

/// A hostile (or merely scripted) registry on a free localhost port, speaking just enough
/// HTTP/1.1: `route` gets each request's path and its header lines (lowercased) and says what
/// to answer. Every request's head is kept, for the tests to see what was sent. Its threads
/// end when the client goes away (a stalled answer waits for the client to hang up).
struct Fake {
    host: String,
    heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

fn fake_registry(route: impl Fn(&str, &str) -> Reply + Send + Sync + 'static) -> Fake {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let host = listener.local_addr().unwrap().to_string();
    let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let route: std::sync::Arc<Route> = std::sync::Arc::new(route);
    let kept = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (route, kept) = (route.clone(), kept.clone());
            std::thread::spawn(move || answer(stream, &*route, &kept));
        }
    });
    Fake { host, heads }
}

fn answer(mut stream: std::net::TcpStream, route: &Route, heads: &std::sync::Mutex<Vec<String>>) {
    use std::io::BufRead;
    // A bound on every wait of this thread: a client that never hangs up cannot keep it.
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(60)));
    let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    heads.lock().unwrap().push(head.clone());
    let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
    let wait_for_hangup = |mut reader: std::io::BufReader<std::net::TcpStream>| {
        let _ = reader.read_to_end(&mut Vec::new());
    };
    match route(&path, &head) {
        Reply::Full(status, extra, body) => {
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
        Reply::Endless => {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\nConnection: close\r\n\r\n");
            let chunk = vec![b' '; 64 << 10];
            while stream.write_all(&chunk).is_ok() {}
        }
        Reply::StallAfterHeaders(size) => {
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\nSQLite"
            );
            wait_for_hangup(reader);
        }
        Reply::Stall => wait_for_hangup(reader),
        Reply::Drip(size) => {
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n");
            let _ = stream.write_all(head.as_bytes());
            drip(&mut stream, &vec![b' '; size]);
        }
        Reply::Paced(body, per_tick) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            for part in body.chunks(per_tick) {
                if stream.write_all(part).is_err() {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
        Reply::DripHead => {
            let pad = "a".repeat(64 << 10);
            let head = format!("HTTP/1.1 200 OK\r\nX-Pad: {pad}\r\nContent-Length: 0\r\n\r\n");
            drip(&mut stream, head.as_bytes());
        }
    }
}

/// Writes `bytes` one every 100 ms, until the client hangs up.
fn drip(stream: &mut std::net::TcpStream, bytes: &[u8]) {
    for b in bytes {
        if stream.write_all(&[*b]).is_err() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `skillc` with `args` and `env`, killed and failed if it runs longer than `secs`, and kept
/// under 4 GB of address space (a pull that held an endless body would abort, not fill the
/// machine).
fn skillc_within(args: &[&str], env: &[(&str, &str)], secs: u64) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v 4194304; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_skillc"))
        .args(args)
        .env_remove("SKILLC_REGISTRY")
        .env_remove("SKILLC_REGISTRY_USERNAME")
        .env_remove("SKILLC_REGISTRY_PASSWORD")
        .env("DOCKER_CONFIG", "/nonexistent")
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed().as_secs() >= secs {
            let _ = child.kill();
            let _ = child.wait();
            panic!("skillc {args:?} still ran after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    }
}

/// Bytes a pull takes for an artifact (its header: SQLite's, with skillc's application id),
/// `len` of them.
fn fake_artifact(fill: u8, len: usize) -> Vec<u8> {
    let mut bytes = vec![fill; len];
    bytes[..16].copy_from_slice(b"SQLite format 3\0");
    bytes[68..72].copy_from_slice(&skillc_runtime::APPLICATION_ID.to_be_bytes());
    bytes
}

fn sha(bytes: &[u8]) -> String {
    format!("sha256:{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes))
}

/// The manifest `skillc push` writes for an artifact and (maybe) a signature.
fn manifest_of(artifact: &[u8], signature: Option<&[u8]>) -> Vec<u8> {
    let layer = |media: &str, b: &[u8]| serde_json::json!({"mediaType": media, "digest": sha(b), "size": b.len()});
    let mut layers = vec![layer("application/vnd.skillc.artifact.v1.sqlite", artifact)];
    if let Some(sig) = signature {
        layers.push(layer("application/vnd.skillc.signature.v1.minisig", sig));
    }
    serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "artifactType": "application/vnd.skillc.artifact.v1",
        "config": layer("application/vnd.skillc.config.v1+json", b"{}"),
        "layers": layers,
    })
    .to_string()
    .into_bytes()
}

/// A route serving `manifest` and the `blobs` it names (and the configuration `{}`), each by
/// its digest.
fn serving(manifest: Vec<u8>, mut blobs: Vec<Vec<u8>>) -> impl Fn(&str, &str) -> Reply {
    blobs.push(b"{}".to_vec());
    move |path, _| {
        if path == "/v2/" {
            return Reply::Full(200, String::new(), b"{}".to_vec());
        }
        if path.contains("/manifests/") {
            let media = "Content-Type: application/vnd.oci.image.manifest.v1+json\r\n";
            return Reply::Full(200, media.into(), manifest.clone());
        }
        match blobs.iter().find(|b| path.ends_with(&sha(b))) {
            Some(b) => Reply::Full(200, String::new(), b.clone()),
            None => Reply::Full(404, String::new(), Vec::new()),
        }
    }
}

/// A route serving a signed artifact, except at `step` (`manifest`, `artifact`, `signature`),
/// where it answers with `hostile()`.
fn hostile_at(
    step: &'static str,
    hostile: fn() -> Reply,
    artifact: &[u8],
    sig: &[u8],
) -> impl Fn(&str, &str) -> Reply {
    let good = serving(
        manifest_of(artifact, Some(sig)),
        vec![artifact.to_vec(), sig.to_vec()],
    );
    let (artifact, sig) = (sha(artifact), sha(sig));
    move |path, head| {
        let here = match step {
            "manifest" => path.contains("/manifests/"),
            "artifact" => path.ends_with(&artifact),
            _ => path.ends_with(&sig),
        };
        if here {
            hostile()
        } else {
            good(path, head)
        }
    }
}

#[test]
fn an_endless_or_stalled_registry_fails_the_pull_in_time_naming_the_registry_and_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    let artifact = fake_artifact(7, 5016);
    let sig = b"untrusted comment: a signature\nRWQ...\n".to_vec();
    // (step, what the registry does there, --timeout, what the error says)
    type Case = (&'static str, fn() -> Reply, &'static str, &'static str);
    let cases: [Case; 9] = [
        ("manifest", || Reply::Endless, "30", "exceeds 4194304 bytes"),
        (
            "artifact",
            || Reply::Endless,
            "30",
            "more than the 5016 bytes",
        ),
        (
            "signature",
            || Reply::Endless,
            "30",
            "more than the 38 bytes",
        ),
        ("manifest", || Reply::Stall, "2", "no answer for 2 s"),
        (
            "artifact",
            || Reply::StallAfterHeaders(5016),
            "2",
            "no answer for 2 s",
        ),
        ("signature", || Reply::Stall, "2", "no answer for 2 s"),
        // Bytes dripped so that no wait lasts `--timeout`: a head, a manifest, an artifact.
        ("manifest", || Reply::DripHead, "2", "no answer for 2 s"),
        (
            "manifest",
            || Reply::Drip(3000),
            "2",
            "under 1024 bytes a second for 2 s",
        ),
        (
            "artifact",
            || Reply::Drip(5016),
            "2",
            "under 1024 bytes a second for 2 s",
        ),
    ];
    for (step, reply, timeout, says) in cases {
        let fake = fake_registry(hostile_at(step, reply, &artifact, &sig));
        let source = format!("{}/skills/sample:v1", fake.host);
        let started = std::time::Instant::now();
        let args = ["pull", &source, "-o", s(&out), "--plain-http"];
        let o = match timeout {
            "30" => skillc_within(&args, &[], 60),
            t => skillc_within(&[&args[..], &["--timeout", t]].concat(), &[], 60),
        };
        let took = started.elapsed().as_secs();
        assert_eq!(o.status.code(), Some(1), "{step}: {}", text(&o));
        let named = format!("registry {}, {step}", fake.host);
        assert!(text(&o).contains(&named), "{step}: {}", text(&o));
        assert!(text(&o).contains(says), "{step}: {}", text(&o));
        assert!(took < 30, "{step}: {took} s");
        assert!(!out.exists() && !skillc_runtime::signature::signature_path(&out).exists());
    }
}

#[test]
fn a_body_slower_than_the_floor_fails_and_one_above_it_passes_however_long_it_takes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    let artifact = fake_artifact(3, 20_000);
    // --timeout 2: a body must bring 2 KiB in each 2 s. 750 bytes a second fails at the first
    // stretch; 4 KiB a second passes, over five seconds and two stretches.
    for (per_tick, passes) in [(75, false), (410, true)] {
        let good = serving(manifest_of(&artifact, None), vec![artifact.clone()]);
        let (body, digest) = (artifact.clone(), sha(&artifact));
        let fake = fake_registry(move |path, head| match path.ends_with(&digest) {
            true => Reply::Paced(body.clone(), per_tick),
            false => good(path, head),
        });
        let source = format!("{}/skills/sample:v1", fake.host);
        let args = [
            "pull",
            &source,
            "-o",
            s(&out),
            "--plain-http",
            "--timeout",
            "2",
        ];
        let o = skillc_within(&args, &[], 60);
        match passes {
            true => {
                assert_eq!(o.status.code(), Some(0), "{}", text(&o));
                assert_eq!(std::fs::read(&out).unwrap(), artifact);
            }
            false => {
                assert_eq!(o.status.code(), Some(1), "{}", text(&o));
                assert!(
                    text(&o).contains("under 1024 bytes a second"),
                    "{}",
                    text(&o)
                );
                assert!(!out.exists());
            }
        }
    }
}

/// A registry over plain HTTP that asks for basic credentials (`user:secret`) before
/// anything, and serves `artifact` to whoever gives them.
fn asking_for_credentials(artifact: &[u8]) -> Fake {
    let good = serving(manifest_of(artifact, None), vec![artifact.to_vec()]);
    fake_registry(move |path, head| {
        let expected = format!(
            "authorization: basic {}",
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "user:secret")
        );
        match head.contains(&expected.to_ascii_lowercase()) {
            true => good(path, head),
            false => Reply::Full(
                401,
                "WWW-Authenticate: Basic realm=\"fake\"\r\n".into(),
                br#"{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}"#
                    .to_vec(),
            ),
        }
    })
}

#[test]
fn registry_credentials_go_only_to_their_host_and_over_plain_http_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    let artifact = fake_artifact(1, 116);
    let fake = asking_for_credentials(&artifact);
    let source = format!("{}/skills/sample:v1", fake.host);
    let pull = ["pull", &source, "-o", s(&out), "--plain-http"];
    let creds = [
        ("SKILLC_REGISTRY_USERNAME", "user"),
        ("SKILLC_REGISTRY_PASSWORD", "secret"),
    ];
    let other_host = [&creds[..], &[("SKILLC_REGISTRY", "registry.example.com")]].concat();
    let this_host = [&creds[..], &[("SKILLC_REGISTRY", fake.host.as_str())]].concat();
    // No host named, another host named, this host over plain HTTP without the flag: the
    // registry asks, and gets nothing.
    for (env, says) in [
        (&creds[..], "none are set for it"),
        (&other_host[..], "none are set for it"),
        (&this_host[..], "--plain-http-credentials"),
    ] {
        let o = skillc_within(&pull, env, 60);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains(says), "{}", text(&o));
        assert!(!text(&o).contains("secret"), "{}", text(&o));
        assert!(!out.exists());
    }
    // A push over plain HTTP does not send them either, and says why it was refused.
    let built = signed_artifact(dir.path());
    let o = skillc_within(
        &["push", s(&built), &source, "--plain-http"],
        &this_host,
        60,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("--plain-http-credentials"),
        "{}",
        text(&o)
    );
    let sent = |heads: &[String]| heads.iter().any(|h| h.contains("authorization"));
    assert!(!sent(&fake.heads.lock().unwrap()), "credentials were sent");
    // Told so, they go.
    let o = skillc_within(
        &[&pull[..], &["--plain-http-credentials"]].concat(),
        &this_host,
        60,
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(sent(&fake.heads.lock().unwrap()));
    assert_eq!(std::fs::read(&out).unwrap(), artifact);
}

/// A registry that sends clients to a token realm on itself over plain HTTP (`/token`), which
/// wants basic credentials `user:secret` and gives the bearer token `t` for them.
fn asking_for_a_token(artifact: &[u8]) -> Fake {
    let good = serving(manifest_of(artifact, None), vec![artifact.to_vec()]);
    let host = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
    let realm = host.clone();
    let basic = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "user:secret");
    let fake = fake_registry(move |path, head| {
        let refused = |challenge: String| Reply::Full(401, challenge, Vec::new());
        if path.starts_with("/token") {
            return match head.contains(&format!("authorization: basic {basic}").to_lowercase()) {
                true => Reply::Full(200, String::new(), br#"{"token":"t"}"#.to_vec()),
                false => refused(String::new()),
            };
        }
        match head.contains("authorization: bearer t") {
            true => good(path, head),
            false => refused(format!(
                "WWW-Authenticate: Bearer realm=\"http://{}/token\",service=\"fake\"\r\n",
                realm.get().unwrap()
            )),
        }
    });
    host.set(fake.host.clone()).unwrap();
    fake
}

#[test]
fn credentials_go_to_a_plain_http_token_realm_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    let artifact = fake_artifact(2, 116);
    let fake = asking_for_a_token(&artifact);
    let source = format!("{}/skills/sample:v1", fake.host);
    let env = [
        ("SKILLC_REGISTRY", fake.host.as_str()),
        ("SKILLC_REGISTRY_USERNAME", "user"),
        ("SKILLC_REGISTRY_PASSWORD", "secret"),
    ];
    let pull = ["pull", &source, "-o", s(&out), "--plain-http"];
    let o = skillc_within(&pull, &env, 60);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("--plain-http-credentials"),
        "{}",
        text(&o)
    );
    let built = signed_artifact(dir.path());
    let o = skillc_within(&["push", s(&built), &source, "--plain-http"], &env, 60);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let basic = |heads: &[String]| heads.iter().any(|h| h.contains("authorization: basic"));
    assert!(!basic(&fake.heads.lock().unwrap()), "credentials were sent");
    let o = skillc_within(
        &[&pull[..], &["--plain-http-credentials"]].concat(),
        &env,
        60,
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(basic(&fake.heads.lock().unwrap()));
    assert_eq!(std::fs::read(&out).unwrap(), artifact);
}

#[test]
fn a_pull_that_cannot_write_the_artifact_leaves_the_previous_pair_verifying() {
    let dir = tempfile::tempdir().unwrap();
    let artifact = signed_artifact(dir.path());
    let bytes = std::fs::read(&artifact).unwrap();
    let sig_of = |p: &Path| std::fs::read(skillc_runtime::signature::signature_path(p));
    let first_sig = sig_of(&artifact).unwrap();
    // The same artifact signed by another key: its signature does not verify with the first.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let other_sig = sig_of(&signed_artifact(&other)).unwrap();
    assert_ne!(first_sig, other_sig);
    let key = dir.path().join("k.pub");
    let verifies = |p: &Path| {
        skillc(&["verify", s(p), "--public-key", s(&key)])
            .status
            .success()
    };
    let out = dir.path().join("pulled.db");
    let first = fake_registry(serving(
        manifest_of(&bytes, Some(&first_sig)),
        vec![bytes.clone(), first_sig.clone()],
    ));
    let o = skillc(&[
        "pull",
        &format!("{}/s/a:v1", first.host),
        "-o",
        s(&out),
        "--plain-http",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(verifies(&out));
    let second = fake_registry(serving(
        manifest_of(&bytes, Some(&other_sig)),
        vec![bytes.clone(), other_sig.clone()],
    ));
    let source = format!("{}/s/a:v2", second.host);
    // Writing the artifact fails (a full disk), or its rename does, after the signature's.
    for step in ["artifact", "rename"] {
        let env = [("SKILLC_TEST_FAIL_AT", step)];
        let o = skillc_within(&["pull", &source, "-o", s(&out), "--plain-http"], &env, 60);
        assert_eq!(o.status.code(), Some(1), "{step}: {}", text(&o));
        assert!(text(&o).contains("cannot write"), "{step}: {}", text(&o));
        assert_eq!(sig_of(&out).unwrap(), first_sig, "{step}");
        assert!(verifies(&out), "{step}");
    }
    // The artifact's file cannot be written at all (a link to a file where nothing can be
    // created): the signature beside the link is not touched either.
    let stuck = dir.path().join("stuck.db");
    std::os::unix::fs::symlink("/proc/version", &stuck).unwrap();
    let stuck_sig = skillc_runtime::signature::signature_path(&stuck);
    std::fs::write(&stuck_sig, "previous").unwrap();
    let o = skillc(&["pull", &source, "-o", s(&stuck), "--plain-http"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&stuck_sig).unwrap(), "previous");
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    left.sort();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    // A layer that is not a skillc artifact (its digest right) is not written either.
    let junk = b"not an artifact".to_vec();
    let third = fake_registry(serving(manifest_of(&junk, None), vec![junk.clone()]));
    let o = skillc(&[
        "pull",
        &format!("{}/s/a:v3", third.host),
        "-o",
        s(&out),
        "--plain-http",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("is not a skillc artifact"),
        "{}",
        text(&o)
    );
    assert!(verifies(&out));
    // A named pipe where the signature goes is not read (it would never end): replaced.
    let piped = dir.path().join("piped.db");
    let o = skillc(&["pull", &source, "-o", s(&piped), "--plain-http"]);
    assert!(o.status.success(), "{}", text(&o));
    let fifo = skillc_runtime::signature::signature_path(&piped);
    std::fs::remove_file(&fifo).unwrap();
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let o = skillc_within(&["pull", &source, "-o", s(&piped), "--plain-http"], &[], 60);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(sig_of(&piped).unwrap(), other_sig);
    // Then a pull that can write changes both.
    let o = skillc(&["pull", &source, "-o", s(&out), "--plain-http"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(sig_of(&out).unwrap(), other_sig);
}

#[test]
fn a_pull_output_that_cannot_become_a_file_is_a_usage_error_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_registry(|_, _| Reply::Full(500, String::new(), Vec::new()));
    let source = format!("{}/skills/sample:v1", fake.host);
    let dangling = dir.path().join("dangling.db");
    std::os::unix::fs::symlink(dir.path().join("nowhere/x.db"), &dangling).unwrap();
    let folder = format!("{}/newdir/", dir.path().display());
    let missing = dir.path().join("missing/x.db");
    for (out, says) in [
        (folder.as_str(), "ends in `/`"),
        (s(&missing), "does not exist"),
        (s(&dangling), "which does not exist"),
    ] {
        let o = skillc(&["pull", &source, "-o", out, "--plain-http"]);
        assert_eq!(o.status.code(), Some(2), "{out}: {}", text(&o));
        assert!(text(&o).contains(says), "{out}: {}", text(&o));
    }
    assert!(dangling
        .symlink_metadata()
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(!dir.path().join("newdir").exists() && !missing.exists());
    assert!(
        fake.heads.lock().unwrap().is_empty(),
        "the registry was asked"
    );
}
