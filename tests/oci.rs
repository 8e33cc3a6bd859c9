//! `skillc push` and `skillc pull` against a real registry server started here (Debian's
//! `docker-registry`, the CNCF distribution registry, on localhost over plain HTTP): by tag
//! and by digest, byte-identical, the signature travelling with the artifact, a pull that
//! needs nothing new downloading nothing, and a wrong digest, a missing tag or a damaged blob
//! failing with nothing written.

mod common;

use common::{arg as s, said as text, skillc};

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
