//! Signed artifacts (SPEC 13.3): `skillc keygen`, `build --sign`, `verify`, the Rust runtime
//! opened with a public key (on open and on every hot reload), `skillc mcp --public-key`, and
//! interoperation with the `minisign` command both ways. (The Python and TypeScript runtimes'
//! own tests cover them.)

mod common;

use common::{arg as s, said as text, skillc};

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
