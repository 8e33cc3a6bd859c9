//! The commands, one module per family; each returns `Ok` or the one [`Failure`] that `main`
//! prints and turns into the exit status (0 success, 1 errors in the input or a request
//! that cannot be answered, 2 the command could not run).

pub(crate) mod args;
pub(crate) mod artifact;
pub(crate) mod edits;
pub(crate) mod history;
pub(crate) mod report;
pub(crate) mod teams;
pub(crate) mod workspace;

use std::process::ExitCode;

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The input has errors, or the request cannot be answered (exit 1): `error: <why>`.
    Errors(String),
    /// The output already said what failed (a check's diagnostics, failing cases): exit 1.
    Reported,
    /// The command could not run: bad arguments, an unreadable file (exit 2).
    Usage(String),
}

impl Failure {
    /// A failure to run, from anything that says why.
    pub(crate) fn usage(why: impl std::fmt::Display) -> Failure {
        Failure::Usage(why.to_string())
    }

    /// Prints what failed (once) and gives the exit status.
    pub(crate) fn report(self) -> ExitCode {
        match self {
            Failure::Errors(why) => {
                eprintln!("error: {why}");
                ExitCode::from(1)
            }
            Failure::Reported => ExitCode::from(1),
            Failure::Usage(why) => {
                eprintln!("error: {why}");
                ExitCode::from(2)
            }
        }
    }
}

/// A runtime's refusal: a request it cannot answer is exit 1, a file it cannot read exit 2.
impl From<skillc_runtime::Error> for Failure {
    fn from(e: skillc_runtime::Error) -> Failure {
        if e.is_request_error() {
            Failure::Errors(e.to_string())
        } else {
            Failure::Usage(e.to_string())
        }
    }
}

/// What a command ends with.
pub(crate) type Done = Result<(), Failure>;

/// The most bytes `--query-vector` and `--history` read. A vector of 4,096 numbers is under
/// 100 KB and a route reads a few recent messages: past this the input is refused, not read
/// on (`/dev/zero`, an endless pipe).
const MAX_FLAG_FILE_BYTES: u64 = 16 << 20;

/// The text of a file a flag names, `-` for stdin: `--query-vector` and `--history`. A pipe is
/// read (`--history <(jq …)`), never past [`MAX_FLAG_FILE_BYTES`].
pub(crate) fn read_file_or_stdin(file: &std::path::Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read as _};
    let mut bytes = Vec::new();
    let limit = MAX_FLAG_FILE_BYTES + 1;
    if file == std::path::Path::new("-") {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(file)?
            .take(limit)
            .read_to_end(&mut bytes)?;
    }
    if bytes.len() as u64 > MAX_FLAG_FILE_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!(
                "it holds more than {} MiB, far more than a query vector or recent messages",
                MAX_FLAG_FILE_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "it is not UTF-8 text"))
}
