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

/// The text of a file a flag names, `-` for stdin (read up to 64 MiB): `--query-vector` and
/// `--history`.
pub(crate) fn read_file_or_stdin(file: &std::path::Path) -> std::io::Result<String> {
    if file == std::path::Path::new("-") {
        let mut text = String::new();
        let mut stdin = std::io::Read::take(std::io::stdin(), 64 << 20);
        std::io::Read::read_to_string(&mut stdin, &mut text).map(|_| text)
    } else {
        std::fs::read_to_string(file)
    }
}
