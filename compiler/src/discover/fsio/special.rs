//! Files that may not be regular (a named pipe, a device, a folder under a file's name):
//! opened without waiting for a writer, named in messages, refused before they are read.

use std::io;
use std::path::Path;

/// Opens a file without blocking: opening a named pipe for reading waits for a writer, so the
/// open itself must not block (`O_NONBLOCK` has no effect on regular files).
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK on Linux and the BSDs' shared value for the flag.
        #[cfg(target_os = "linux")]
        options.custom_flags(0o4000);
        #[cfg(not(target_os = "linux"))]
        options.custom_flags(0x0004);
    }
    options.open(path)
}

/// The bytes of the regular file at `path`, refusing without waiting a pipe, a device or a
/// folder (checked on the open handle, so a swap after a check cannot slip in) and, with
/// `cap`, a file of more bytes than that (read no further than one past it).
pub(crate) fn read_regular(path: &Path, cap: Option<u64>) -> io::Result<Vec<u8>> {
    use std::io::Read as _;
    let file = open_nonblocking(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {}; only a regular file is read", special_kind(&kind)),
        ));
    }
    let mut bytes = Vec::new();
    match cap {
        Some(cap) => file.take(cap + 1).read_to_end(&mut bytes)?,
        None => (&file).read_to_end(&mut bytes)?,
    };
    if let Some(cap) = cap.filter(|&cap| bytes.len() as u64 > cap) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is larger than {} MiB", cap >> 20),
        ));
    }
    Ok(bytes)
}

/// What a file is, for messages ("a named pipe", "a folder", "a file", …).
pub(crate) fn special_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        return "a folder";
    }
    if kind.is_file() {
        return "a file";
    }
    "not a regular file"
}
