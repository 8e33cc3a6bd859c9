//! Signing artifacts in minisign's format (`skillc keygen`, `build --sign`, `verify`), with the
//! `minisign` crate by minisign's author: a signature `skillc build --sign` writes verifies with
//! `minisign -V`, and a key `minisign -G -W` makes signs with `skillc build --sign`.
//!
//! The secret key file is created with mode 0600 and never overwritten; its contents are never
//! printed or copied. With `SKILLC_KEY_PASSWORD` set, `keygen` encrypts it (scrypt, as minisign
//! does) and `--sign` decrypts it; without, it is stored unencrypted, as `minisign -G -W` does,
//! for CI jobs whose secret store holds the file.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The variable holding the secret key's password, if it has one.
pub(crate) const PASSWORD_VARIABLE: &str = "SKILLC_KEY_PASSWORD";

/// Why a key or a signature could not be made or read.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

/// The public key file beside a secret key file: `x.key` → `x.pub`, else `<file>.pub`.
pub(crate) fn public_key_path(secret: &Path) -> PathBuf {
    match secret.extension() {
        Some(e) if e == "key" => secret.with_extension("pub"),
        _ => {
            let mut name = secret.as_os_str().to_owned();
            name.push(".pub");
            PathBuf::from(name)
        }
    }
}

fn password() -> Option<String> {
    std::env::var(PASSWORD_VARIABLE)
        .ok()
        .filter(|p| !p.is_empty())
}

/// Creates a key pair: the secret key at `secret` (mode 0600, a new file) and the public key
/// beside it. Returns the public key file's path and its key line.
pub fn keygen(secret: &Path) -> Result<(PathBuf, String), Error> {
    let public = public_key_path(secret);
    for path in [secret, public.as_path()] {
        if path.symlink_metadata().is_ok() {
            return Err(Error(format!(
                "`{}` already exists; a key is never overwritten (remove it first, or choose another name)",
                path.display()
            )));
        }
    }
    let pair = match password() {
        Some(p) => minisign::KeyPair::generate_encrypted_keypair(Some(p)),
        None => minisign::KeyPair::generate_unencrypted_keypair(),
    }
    .map_err(|e| Error(format!("cannot make a key pair: {e}")))?;
    let secret_text = pair
        .sk
        .to_box(Some("skillc secret key"))
        .map_err(|e| Error(format!("cannot encode the secret key: {e}")))?
        .into_string();
    let public_box = pair
        .pk
        .to_box()
        .map_err(|e| Error(format!("cannot encode the public key: {e}")))?;
    let public_line = pair.pk.to_base64();
    write_new(secret, secret_text.as_bytes(), 0o600)?;
    if let Err(e) = write_new(&public, public_box.into_string().as_bytes(), 0o644) {
        let _ = std::fs::remove_file(secret);
        return Err(e);
    }
    Ok((public, public_line))
}

/// Writes a new file (never an existing one, never through a link) with `mode`.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), Error> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut f = options
        .open(path)
        .map_err(|e| Error(format!("cannot create `{}`: {e}", path.display())))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error(format!("cannot write `{}`: {e}", path.display())))
}

/// A secret key, read and ready to sign.
pub struct SecretKey(minisign::SecretKey);

impl SecretKey {
    /// Reads the secret key at `path` (decrypted with `SKILLC_KEY_PASSWORD` when it is
    /// encrypted). The messages never quote the file.
    pub fn read(path: &Path) -> Result<SecretKey, Error> {
        // A regular file of at most 64 KiB: a named pipe or a device never stalls a build.
        let text = skillc_runtime::signature::read_small_file(path).map_err(|e| {
            Error(format!(
                "cannot read the secret key `{}`: {e}",
                path.display()
            ))
        })?;
        let not_a_key = || {
            Error(format!(
                "`{}` is not a minisign secret key (`skillc keygen -o FILE` makes one; a public key ends in .pub)",
                path.display()
            ))
        };
        let boxed = minisign::SecretKeyBox::from_string(&text).map_err(|_| not_a_key())?;
        // Bytes 2-3 name the key derivation: none (`minisign -G -W`, `keygen` without a
        // password) or scrypt.
        let raw = text.lines().nth(1).and_then(|line| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(line.trim())
                .ok()
        });
        // A secret key is 158 bytes: algorithms, key derivation, key id, key, checksum.
        if raw.as_ref().map(Vec::len) != Some(158) {
            return Err(not_a_key());
        }
        let unencrypted = raw.as_deref().and_then(|r| r.get(2..4)) == Some(&[0, 0][..]);
        // `minisign -G -W` (0.11) leaves an unencrypted key's checksum empty, which the crate's
        // checked reading refuses; such a key is read as it is (a wrong key still makes
        // signatures that no public key of the pair verifies).
        let unchecked = raw
            .as_deref()
            .filter(|r| unencrypted && r.ends_with(&[0u8; 32]));
        let key = match (unencrypted, unchecked) {
            (true, Some(raw)) => minisign::SecretKey::from_bytes(raw).map_err(|_| not_a_key())?,
            (true, None) => boxed.into_unencrypted_secret_key().map_err(|e| {
                Error(format!(
                    "the secret key `{}` cannot be read: {e}",
                    path.display()
                ))
            })?,
            (false, _) => {
                let Some(p) = password() else {
                    return Err(Error(format!(
                        "the secret key `{}` is encrypted: set {PASSWORD_VARIABLE} to its password",
                        path.display()
                    )));
                };
                boxed.into_secret_key(Some(p)).map_err(|_| {
                    Error(format!(
                        "cannot decrypt the secret key `{}` with {PASSWORD_VARIABLE}: a wrong password, or not a minisign key",
                        path.display()
                    ))
                })?
            }
        };
        Ok(SecretKey(key))
    }

    /// The signature of the file at `path`, as the text of a `.minisig` file (`name` goes in
    /// the trusted comment, as minisign puts the file name there, escaped by `comment_name`).
    pub fn sign(&self, path: &Path, name: &str) -> Result<String, Error> {
        let file = std::fs::File::open(path)
            .map_err(|e| Error(format!("cannot read `{}` to sign it: {e}", path.display())))?;
        let timestamp = std::env::var("SOURCE_DATE_EPOCH").ok().unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(0, |d| d.as_secs()).to_string()
        });
        let trusted = format!("timestamp:{timestamp}\tfile:{}\thashed", comment_name(name));
        let signature = minisign::sign(
            None,
            &self.0,
            std::io::BufReader::new(file),
            Some(&trusted),
            Some("signature from skillc secret key"),
        )
        .map_err(|e| Error(format!("cannot sign `{}`: {e}", path.display())))?;
        Ok(signature.into_string())
    }
}

/// A file name as the trusted comment holds it: printable ASCII as it is, a backslash as `\\`,
/// anything else (a newline, a tab, U+2028, any non-ASCII letter) as `\u{…}`. The comment is
/// one line of a line-based file that every verifier splits its own way (minisign and Rust at
/// `\n`, Python's `splitlines` also at U+2028): a name that ends the line would make a
/// signature nothing verifies, or one verifiers disagree on.
pub(crate) fn comment_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            other => out.push_str(&format!("\\u{{{:x}}}", u32::from(other))),
        }
    }
    out
}

/// Writes `text` as the signature of `artifact` (`ARTIFACT.minisig`), atomically.
pub fn write_signature(artifact: &Path, text: &str) -> Result<PathBuf, Error> {
    let sig = skillc_runtime::signature::signature_path(artifact);
    let mut tmp = sig.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    write_new(&tmp, text.as_bytes(), 0o644)?;
    std::fs::rename(&tmp, &sig).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error(format!("cannot write `{}`: {e}", sig.display()))
    })?;
    Ok(sig)
}
