//! Signed artifacts: an artifact's signature is `ARTIFACT.minisig` beside it, in minisign's
//! format (Ed25519 over the BLAKE2b-512 of the file), checked with a public key in minisign's
//! format. A runtime opened with a key serves only artifacts whose signature it verified, on
//! open and on every hot reload. The cryptography is `minisign-verify`'s, by minisign's author.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::Error;

/// The signature file of an artifact: `ARTIFACT.minisig`.
pub fn signature_path(artifact: &Path) -> PathBuf {
    let mut name = artifact.as_os_str().to_owned();
    name.push(".minisig");
    PathBuf::from(name)
}

/// A minisign public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey(minisign_verify::PublicKey);

impl PublicKey {
    /// A key from the text of a `.pub` file (two lines: a comment, then the key) or from the
    /// key line alone (`RW…`, as `minisign -P` takes it).
    pub fn parse(text: &str) -> Result<PublicKey, String> {
        let text = text.trim();
        let key = if text.lines().count() > 1 {
            minisign_verify::PublicKey::decode(text)
        } else {
            minisign_verify::PublicKey::from_base64(text)
        };
        key.map(PublicKey).map_err(|e| {
            format!("it is not a minisign public key ({e}); `skillc keygen` writes one beside the secret key, as `<name>.pub`")
        })
    }

    /// The key in the file at `path`.
    pub fn from_file(path: &Path) -> Result<PublicKey, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the public key `{}`: {e}", path.display()))?;
        PublicKey::parse(&text).map_err(|why| format!("`{}`: {why}", path.display()))
    }
}

/// Checks the bytes of `file` (the artifact at `path`, already open) against the signature
/// beside it, read in chunks: the artifact is never held whole for this.
pub(crate) fn verify_open_file(
    path: &Path,
    file: &mut std::fs::File,
    key: &PublicKey,
) -> Result<(), Error> {
    let refuse = |why: String| Error::Signature {
        path: path.to_path_buf(),
        why,
    };
    let sig_path = signature_path(path);
    let text = match std::fs::read_to_string(&sig_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refuse(format!(
            "it has no signature (`{}` does not exist); sign it with `skillc build … --sign KEY`",
            sig_path.display()
        )))
        }
        Err(e) => return Err(refuse(format!("cannot read `{}`: {e}", sig_path.display()))),
    };
    let signature = minisign_verify::Signature::decode(&text).map_err(|e| {
        refuse(format!(
            "`{}` is not a minisign signature ({e}): damaged or truncated",
            sig_path.display()
        ))
    })?;
    let mut verifier = key.0.verify_stream(&signature).map_err(|e| {
        refuse(match e {
            minisign_verify::Error::UnexpectedKeyId => {
                "its signature was made with another key than the one given".to_string()
            }
            minisign_verify::Error::UnsupportedLegacyMode => {
                "its signature is minisign's legacy kind, over the whole file; sign with `minisign -S -H` or `skillc build --sign`".to_string()
            }
            other => format!("its signature cannot be checked: {other}"),
        })
    })?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| refuse(format!("cannot read it: {e}")))?;
        if n == 0 {
            break;
        }
        verifier.update(&buf[..n]);
    }
    verifier.finalize().map_err(|_| {
        refuse(format!(
            "its signature `{}` does not match its contents: the file was changed after it was signed, or the signature is another file's",
            sig_path.display()
        ))
    })
}
