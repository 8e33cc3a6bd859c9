//! Signed artifacts: an artifact's signature is `ARTIFACT.minisig` beside it, in minisign's
//! format (Ed25519 over the BLAKE2b-512 of the file), checked with a public key in minisign's
//! format. A runtime opened with a key serves only artifacts whose signature it verified, on
//! open and on every hot reload. The cryptography is `minisign-verify`'s, by minisign's author.
//!
//! What a runtime opened with a key serves is the bytes it verified: the file is read once,
//! checked, and answered from an in-memory database made of exactly those bytes, so a later
//! write into the same file (same inode) changes nothing that is served.

use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::Error;

/// The most a signature or public key file may hold. A minisign signature or key is under
/// 1 KiB; anything larger (or endless, as `/dev/zero`) is not one.
pub const SMALL_FILE_CAP: u64 = 64 * 1024;

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
        let text = read_small_file(path)
            .map_err(|e| format!("cannot read the public key `{}`: {e}", path.display()))?;
        PublicKey::parse(&text).map_err(|why| format!("`{}`: {why}", path.display()))
    }
}

/// Opens `path` for reading without ever waiting: a named pipe would block an ordinary open
/// until a writer comes, so it is opened non-blocking, and the open handle is then refused
/// unless it is a regular file (checked on the handle: no swap can slip in between).
pub(crate) fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking only matters for the open itself: reads of a regular file ignore it.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "it is not a regular file (a named pipe, a device or a folder)",
        ));
    }
    Ok(file)
}

/// The text of a small regular file (a signature, a public key): never a pipe or a device,
/// never more than [`SMALL_FILE_CAP`] bytes.
pub fn read_small_file(path: &Path) -> std::io::Result<String> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(SMALL_FILE_CAP + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > SMALL_FILE_CAP {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "it is larger than {} KiB (a minisign signature or key is under 1 KiB)",
                SMALL_FILE_CAP / 1024
            ),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// The signature of the artifact at `path`, read and decoded.
fn read_signature(
    path: &Path,
    refuse: &impl Fn(String) -> Error,
) -> Result<minisign_verify::Signature, Error> {
    let sig_path = signature_path(path);
    let text = match read_small_file(&sig_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refuse(format!(
            "it has no signature (`{}` does not exist); sign it with `skillc build … --sign KEY`",
            sig_path.display()
        )))
        }
        Err(e) => return Err(refuse(format!("cannot read `{}`: {e}", sig_path.display()))),
    };
    minisign_verify::Signature::decode(&text).map_err(|e| {
        refuse(format!(
            "`{}` is not a minisign signature ({e}): damaged or truncated",
            sig_path.display()
        ))
    })
}

/// A reader that hashes what it yields, and never fails: a read error or a file that ends
/// early is recorded (and zeros are yielded), so that the caller drops what was read instead
/// of SQLite's buffer being lost on an error midway.
struct Hashing<'a, 'v> {
    file: std::fs::File,
    verifier: &'a mut minisign_verify::StreamVerifier<'v>,
    failed: Option<std::io::Error>,
}

impl Read for Hashing<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        while self.failed.is_none() {
            match self.file.read(buf) {
                Ok(0) => {
                    self.failed = Some(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "it became shorter while it was read",
                    ))
                }
                Ok(n) => {
                    self.verifier.update(&buf[..n]);
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => self.failed = Some(e),
            }
        }
        buf.fill(0);
        Ok(buf.len())
    }
}

/// Reads the artifact at `path` once, checks those bytes against the signature beside it, and
/// returns an in-memory, read-only database made of exactly them. The file is read straight
/// into SQLite's buffer while it is hashed: one copy, the size of the file.
pub(crate) fn load_verified(path: &Path, key: &PublicKey) -> Result<Connection, Error> {
    let refuse = |why: String| Error::Signature {
        path: path.to_path_buf(),
        why,
    };
    let file = open_regular(path).map_err(|e| refuse(format!("cannot read it: {e}")))?;
    let len = file
        .metadata()
        .map_err(|e| refuse(format!("cannot read it: {e}")))?
        .len();
    let signature = read_signature(path, &refuse)?;
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
    // SQLite allocates with an `int`: a larger file cannot be held in memory by it.
    let size = usize::try_from(len)
        .ok()
        .filter(|n| (1..=i32::MAX as usize).contains(n))
        .ok_or_else(|| Error::NotAnArtifact {
            path: path.to_path_buf(),
            why: format!("its size ({len} bytes) is not that of an artifact a runtime with a key can hold (1 byte to 2 GiB)"),
        })?;
    let open_error = |source| Error::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = Connection::open_in_memory().map_err(open_error)?;
    let mut reader = Hashing {
        file,
        verifier: &mut verifier,
        failed: None,
    };
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &mut reader, size, true)
        .map_err(open_error)?;
    if let Some(e) = reader.failed {
        return Err(refuse(format!("cannot read it: {e}")));
    }
    verifier.finalize().map_err(|_| {
        refuse(format!(
            "its signature `{}` does not match its contents: the file was changed after it was signed, or the signature is another file's",
            signature_path(path).display()
        ))
    })?;
    Ok(conn)
}
