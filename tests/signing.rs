//! Signed artifacts (SPEC 13.3): `skillc keygen`, `build --sign`, `verify`, the Rust runtime
//! opened with a public key (on open and on every hot reload), `skillc mcp --public-key`, and
//! interoperation with the `minisign` command both ways; what a verifying runtime serves after
//! an in-place write, signature and key files that are pipes or devices, and file names that
//! would break the trusted comment. (The Python, TypeScript and Java runtimes' own tests cover
//! them.)

use crate::common::{arg as s, said as text, skillc};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use skillc_runtime::signature::{signature_path, PublicKey};
use skillc_runtime::{Artifact, LiveArtifact};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills")
}

/// A key pair in `dir` named `name.key` / `name.pub`.
fn keygen(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let secret = dir.join(format!("{name}.key"));
    let o = skillc(&["keygen", "-o", s(&secret)]);
    assert!(o.status.success(), "{}", text(&o));
    (secret, dir.join(format!("{name}.pub")))
}

fn build_signed(out: &Path, key: &Path, label: &str) {
    let o = skillc(&[
        "build",
        s(&sample()),
        "-o",
        s(out),
        "--release-label",
        label,
        "--sign",
        s(key),
    ]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn keygen_writes_a_private_secret_key_and_never_prints_or_overwrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("release.key");
    let o = skillc(&["keygen", "-o", s(&secret)]);
    assert!(o.status.success(), "{}", text(&o));
    let secret_text = std::fs::read_to_string(&secret).unwrap();
    let secret_line = secret_text.lines().nth(1).unwrap();
    assert!(!text(&o).contains(secret_line), "the secret key is printed");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let public = std::fs::read_to_string(dir.path().join("release.pub")).unwrap();
    assert!(text(&o).contains(public.lines().nth(1).unwrap()));
    // Never overwritten.
    let again = skillc(&["keygen", "-o", s(&secret)]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again).contains("already exists"));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), secret_text);
}

#[test]
fn a_signed_build_verifies_and_every_kind_of_bad_signature_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(dir.path(), "a");
    let (_, other) = keygen(dir.path(), "b");
    let out = dir.path().join("out.db");
    build_signed(&out, &secret, "one");
    let verify = |key: &Path| skillc(&["verify", s(&out), "--public-key", s(key)]);
    assert!(
        verify(&public).status.success(),
        "{}",
        text(&verify(&public))
    );
    let refused = |o: Output, words: &str| {
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains(words), "{}", text(&o));
    };
    refused(verify(&other), "another key");
    // A signature of another file.
    let elsewhere = dir.path().join("elsewhere.db");
    build_signed(&elsewhere, &secret, "two");
    let sig = std::fs::read(signature_path(&out)).unwrap();
    std::fs::copy(signature_path(&elsewhere), signature_path(&out)).unwrap();
    refused(verify(&public), "does not match its contents");
    // Truncated.
    std::fs::write(signature_path(&out), &sig[..sig.len() / 2]).unwrap();
    refused(verify(&public), "damaged or truncated");
    // None at all.
    std::fs::remove_file(signature_path(&out)).unwrap();
    refused(verify(&public), "has no signature");
    // The artifact changed after signing.
    std::fs::write(signature_path(&out), &sig).unwrap();
    let mut bytes = std::fs::read(&out).unwrap();
    let n = bytes.len() - 100;
    bytes[n] ^= 1;
    std::fs::write(&out, &bytes).unwrap();
    refused(verify(&public), "does not match its contents");
    // Keys of the wrong kind: a secret key given as public, a public key given as secret.
    let o = skillc(&["verify", s(&out), "--public-key", s(&secret)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("not a minisign public key"),
        "{}",
        text(&o)
    );
    let o = skillc(&["build", s(&sample()), "-o", s(&out), "--sign", s(&public)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("not a minisign secret key"),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        bytes,
        "a bad key writes nothing"
    );
}

#[test]
fn a_runtime_with_a_key_serves_only_verified_artifacts_on_every_hot_reload() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(dir.path(), "a");
    let (one, two) = (dir.path().join("one.db"), dir.path().join("two.db"));
    build_signed(&one, &secret, "one");
    build_signed(&two, &secret, "two");
    let live = dir.path().join("live.db");
    let put = |src: &Path, with_signature: bool| {
        if with_signature {
            std::fs::copy(signature_path(src), signature_path(&live)).unwrap();
        }
        let tmp = dir.path().join(".live.tmp");
        std::fs::copy(src, &tmp).unwrap();
        std::fs::rename(&tmp, &live).unwrap();
    };
    put(&one, true);
    let key = PublicKey::from_file(&public).unwrap();
    let a = LiveArtifact::open_verified(&live, key.clone()).unwrap();
    assert_eq!(a.current().release(), Some("one"));
    // The verified bytes are held in memory: the meaning table's rows are read from them.
    let vector = a.current().meaning_vector("refund a payment").unwrap();
    assert!(vector.is_some_and(|v| v.contains(&127.0) || v.contains(&-127.0)));
    put(&two, true);
    assert_eq!(
        a.current().release(),
        Some("two"),
        "a signed swap is served"
    );
    // Tampered: the right signature, other bytes. The previous artifact stays in service.
    let mut bytes = std::fs::read(&one).unwrap();
    let n = bytes.len() - 100;
    bytes[n] ^= 1;
    let tmp = dir.path().join(".live.tmp");
    std::fs::write(&tmp, &bytes).unwrap();
    std::fs::copy(signature_path(&one), signature_path(&live)).unwrap();
    std::fs::rename(&tmp, &live).unwrap();
    assert_eq!(a.current().release(), Some("two"));
    assert!(a.refused().unwrap().contains("does not match"));
    // Unsigned.
    std::fs::remove_file(signature_path(&live)).unwrap();
    put(&one, false);
    assert_eq!(a.current().release(), Some("two"));
    assert!(a.refused().unwrap().contains("has no signature"));
    // Its signature arrives: served.
    std::fs::copy(signature_path(&one), signature_path(&live)).unwrap();
    assert_eq!(a.current().release(), Some("one"));
    assert_eq!(a.refused(), None);
    // Opening refuses what a reload refuses; without a key the file opens as before.
    std::fs::remove_file(signature_path(&live)).unwrap();
    assert!(Artifact::open_verified(&live, &key).is_err());
    assert!(Artifact::open(&live).is_ok());
    // `skillc mcp --public-key` refuses to start on an unsigned artifact.
    let o = skillc(&["mcp", s(&live), "--public-key", s(&public)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("has no signature"), "{}", text(&o));
}

#[test]
fn signatures_interoperate_with_the_minisign_command_both_ways() {
    let minisign = Command::new("minisign").arg("-v").output();
    assert!(
        minisign.is_ok(),
        "the `minisign` command is needed (Debian package `minisign`; scripts/setup.sh installs it)"
    );
    let dir = tempfile::tempdir().unwrap();
    // skillc signs, minisign verifies.
    let (secret, public) = keygen(dir.path(), "skillc");
    let out = dir.path().join("out.db");
    build_signed(&out, &secret, "one");
    let o = Command::new("minisign")
        .args(["-V", "-m", s(&out), "-p", s(&public)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // minisign makes the key and signs, skillc verifies; skillc signs with minisign's key.
    let (m_secret, m_public) = (dir.path().join("m.key"), dir.path().join("m.pub"));
    let o = Command::new("minisign")
        .args(["-G", "-W", "-s", s(&m_secret), "-p", s(&m_public)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let other = dir.path().join("other.db");
    std::fs::copy(&out, &other).unwrap();
    let o = Command::new("minisign")
        .args(["-S", "-s", s(&m_secret), "-m", s(&other)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let v = skillc(&["verify", s(&other), "--public-key", s(&m_public)]);
    assert!(v.status.success(), "{}", text(&v));
    build_signed(&out, &m_secret, "two");
    let o = Command::new("minisign")
        .args(["-V", "-m", s(&out), "-p", s(&m_public)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// How long a command or an answer may take before the test fails (a hang is a failure).
const BOUND: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs `skillc` with `args` and its output, killed and failed if it outlives [`BOUND`].
fn skillc_bounded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(args)
        .env_remove("SKILLC_KEY_PASSWORD")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > BOUND {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`skillc {}` still ran after {BOUND:?}", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Overwrites every `from` in the file at `path` with `to` (as long), in place: the same
/// inode, as `dd conv=notrunc` or an editor opening it `r+` would.
fn write_in_place(path: &Path, from: &str, to: &str) {
    use std::io::{Seek, SeekFrom, Write};
    use std::os::unix::fs::MetadataExt;
    assert_eq!(from.len(), to.len());
    let inode = std::fs::metadata(path).unwrap().ino();
    let bytes = std::fs::read(path).unwrap();
    let at: Vec<usize> = (0..bytes.len() - from.len())
        .filter(|&i| bytes[i..].starts_with(from.as_bytes()))
        .collect();
    assert!(!at.is_empty(), "`{from}` is not in {}", path.display());
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    for i in at {
        f.seek(SeekFrom::Start(i as u64)).unwrap();
        f.write_all(to.as_bytes()).unwrap();
    }
    f.sync_all().unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().ino(), inode);
}

/// The text of the `greeting` skill's prompt in the global bundle.
fn greeting(a: &Artifact) -> String {
    let ctx = skillc_runtime::Context::default();
    let bundle = skillc_runtime::BundleRef::default();
    a.prompt(&bundle, None, &ctx, &["greeting"])
        .unwrap()
        .text
        .clone()
}

#[test]
fn a_runtime_with_a_key_serves_the_bytes_it_checked_after_an_in_place_write() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(dir.path(), "a");
    let (live, two) = (dir.path().join("live.db"), dir.path().join("two.db"));
    build_signed(&live, &secret, "one");
    build_signed(&two, &secret, "two");
    let key = PublicKey::from_file(&public).unwrap();
    let opened = Artifact::open_verified(&live, &key).unwrap();
    let following = LiveArtifact::open_verified(&live, key.clone()).unwrap();
    // Nothing of the skill's body has been read yet: it is read on the first prompt.
    write_in_place(&live, "a friendly assistant", "a HACKED!! assistant");
    for text in [greeting(&opened), greeting(&following.current())] {
        assert!(text.contains("a friendly assistant"), "{text}");
        assert!(!text.contains("HACKED"), "tampered bytes served: {text}");
    }
    let why = following.refused().expect("the changed file is refused");
    assert!(why.contains("does not match"), "{why}");
    assert!(Artifact::open_verified(&live, &key).is_err());
    // Hot reload still works: a new signed file renamed over the path is served.
    let tmp = dir.path().join(".live.tmp");
    std::fs::copy(&two, &tmp).unwrap();
    std::fs::copy(signature_path(&two), signature_path(&live)).unwrap();
    std::fs::rename(&tmp, &live).unwrap();
    let now = following.current();
    assert_eq!(now.release(), Some("two"));
    assert!(greeting(&now).contains("a friendly assistant"));
    assert_eq!(following.refused(), None);
}

/// A running `skillc mcp`, asked one line at a time; killed when dropped.
struct Mcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    answers: std::sync::mpsc::Receiver<String>,
}

impl Mcp {
    fn start(args: &[&str]) -> Mcp {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
            .arg("mcp")
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            answers,
        };
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        assert_eq!(mcp.ask(init)["id"], 0);
        mcp
    }

    fn ask(&mut self, line: &str) -> serde_json::Value {
        use std::io::Write;
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
        self.stdin.flush().unwrap();
        let answer = (self.answers.recv_timeout(BOUND))
            .unwrap_or_else(|_| panic!("no answer within {BOUND:?} to {line}"));
        serde_json::from_str(&answer).unwrap()
    }

    fn greeting(&mut self) -> String {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"load_skills","arguments":{"names":["greeting"]}}}"#;
        self.ask(call)["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn mkfifo(path: &Path) {
    let o = Command::new("mkfifo").arg(path).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn mcp_with_a_key_serves_the_bytes_it_checked_after_an_in_place_write() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(dir.path(), "a");
    let live = dir.path().join("live.db");
    build_signed(&live, &secret, "one");
    let mut mcp = Mcp::start(&[s(&live), "--public-key", s(&public)]);
    write_in_place(&live, "a friendly assistant", "a HACKED!! assistant");
    let text = mcp.greeting();
    assert!(text.contains("a friendly assistant"), "{text}");
    assert!(!text.contains("HACKED"), "tampered bytes served: {text}");
}

#[test]
fn mcp_with_a_key_keeps_answering_when_its_signature_becomes_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(dir.path(), "a");
    let live = dir.path().join("live.db");
    build_signed(&live, &secret, "one");
    let mut mcp = Mcp::start(&[s(&live), "--public-key", s(&public)]);
    // A signature that is a named pipe is refused at once, and the server keeps answering
    // from the bytes it verified.
    std::fs::remove_file(signature_path(&live)).unwrap();
    mkfifo(&signature_path(&live));
    let ping = mcp.ask(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(ping["id"], 3, "{ping}");
    assert!(mcp.greeting().contains("a friendly assistant"));
}

#[test]
fn a_signature_or_key_that_is_a_pipe_a_device_or_too_large_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(dir.path(), "a");
    let out = dir.path().join("out.db");
    build_signed(&out, &secret, "one");
    let sig = signature_path(&out);
    let signature = std::fs::read(&sig).unwrap();
    let verify = |key: &Path| skillc_bounded(&["verify", s(&out), "--public-key", s(key)]);
    std::fs::remove_file(&sig).unwrap();
    mkfifo(&sig);
    let o = verify(&public);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("not a regular file"), "{}", text(&o));
    std::fs::remove_file(&sig).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &sig).unwrap();
    let o = verify(&public);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("not a regular file"), "{}", text(&o));
    // A regular file over the cap is not read whole.
    std::fs::remove_file(&sig).unwrap();
    let mut big = signature.clone();
    big.resize(128 * 1024, b'\n');
    std::fs::write(&sig, &big).unwrap();
    let o = verify(&public);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("larger than 64 KiB"), "{}", text(&o));
    std::fs::write(&sig, &signature).unwrap();
    assert!(verify(&public).status.success());
    // Public keys: a pipe and a device are usage errors, said at once.
    let (pipe, zero) = (dir.path().join("pipe.pub"), dir.path().join("zero.pub"));
    mkfifo(&pipe);
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for key in [&pipe, &zero] {
        let o = verify(key);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains("not a regular file"), "{}", text(&o));
        let o = skillc_bounded(&["mcp", s(&out), "--public-key", s(key)]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    }
    // A secret key that is a pipe stops `build --sign` at once, before anything is built.
    let o = skillc_bounded(&["build", s(&sample()), "-o", s(&out), "--sign", s(&pipe)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a regular file"), "{}", text(&o));
}

#[test]
fn a_signed_build_named_with_a_newline_or_a_line_separator_verifies_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (secret, public) = keygen(dir.path(), "a");
    let minisign = Command::new("minisign").arg("-v").output().is_ok();
    for name in [
        "new\nline.db",
        "line\u{2028}sep.db",
        "tab\tand\\back.db",
        "é.db",
    ] {
        let out = dir.path().join(name);
        build_signed(&out, &secret, "one");
        let signature = std::fs::read_to_string(signature_path(&out)).unwrap();
        // Four lines, split the strictest way any verifier does (Python's splitlines).
        let lines: Vec<&str> = signature
            .split([
                '\n', '\r', '\u{2028}', '\u{2029}', '\u{85}', '\u{b}', '\u{c}',
            ])
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(lines.len(), 4, "{name:?}: {signature:?}");
        assert!(lines[2].is_ascii(), "{name:?}: {signature:?}");
        let o = skillc_bounded(&["verify", s(&out), "--public-key", s(&public)]);
        assert!(o.status.success(), "{name:?}: {}", text(&o));
        if minisign {
            let o = Command::new("minisign")
                .args(["-V", "-m", s(&out), "-p", s(&public)])
                .output()
                .unwrap();
            assert!(o.status.success(), "{name:?}: {}", text(&o));
        }
    }
}
