//! The `skillc` command line: its shape is a contract scripts and CI depend on (README, "The
//! command line").

// A binary exports nothing: its items say `pub(crate)`, as the library's own do.
#![warn(unreachable_pub)]

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::args::{ArtifactCommand, Command, WorkspaceCommand};
use cli::{artifact, edits, teams, workspace, Done};

/// `print!` that ends the process quietly when stdout is closed (`skillc catalog … | head`),
/// as `grep` or `rg` do, instead of panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => { $crate::emit(format_args!($($arg)*)) };
}

/// `println!` with the same handling of a closed stdout.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::emit(format_args!("{}\n", format_args!($($arg)*))) };
}

mod cli;

/// Writes to stdout; a closed stdout ends the process quietly.
fn emit(text: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(2);
    }
}

/// skillc: compile a skills workspace into one SQLite artifact.
#[derive(Debug, Parser)]
#[command(
    name = "skillc",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("SKILLC_COMMIT"), ")"),
    about
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// mimalloc: a build allocates and frees millions of small values (Cargo.toml says why).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let done = match cli.command {
        Command::Workspace(command) => run_on_workspace(command),
        Command::Artifact(command) => run_on_artifact(command),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

/// A workspace command, handed its arguments whole.
fn run_on_workspace(command: WorkspaceCommand) -> Done {
    match command {
        WorkspaceCommand::Check(args) => workspace::check(&args),
        WorkspaceCommand::Build(args) => workspace::build(&args),
        WorkspaceCommand::Fetch(args) => workspace::fetch(&args),
        WorkspaceCommand::Keygen(args) => artifact::keygen(&args),
        WorkspaceCommand::Generate(args) => generate(args.what),
        WorkspaceCommand::Test(args) => workspace::run_tests(&args),
        WorkspaceCommand::Eval(args) => workspace::run_eval(&args),
        WorkspaceCommand::ExportCases(args) => workspace::export_cases(&args),
        WorkspaceCommand::Watch(args) => workspace::watch(&args),
        WorkspaceCommand::Set(args) => edits::set(&args),
        WorkspaceCommand::Toggle(args) => edits::toggle(&args),
        WorkspaceCommand::Merge(args) => teams::merge(&args),
        WorkspaceCommand::Rename(args) => teams::rename(&args),
        WorkspaceCommand::Reach(args) => teams::reach(&args),
        WorkspaceCommand::Pack(args) => edits::pack(&args),
        WorkspaceCommand::Unpack(args) => edits::unpack(&args),
    }
}

/// The man page or a shell's completions, from the same definitions the parser uses.
fn generate(what: cli::args::Generated) -> Done {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let mut command = Cli::command();
    let mut out = Vec::new();
    let shell = match what {
        cli::args::Generated::Man => {
            clap_mangen::Man::new(command.clone())
                .render(&mut out)
                .map_err(cli::Failure::usage)?;
            None
        }
        cli::args::Generated::Bash => Some(Shell::Bash),
        cli::args::Generated::Zsh => Some(Shell::Zsh),
        cli::args::Generated::Fish => Some(Shell::Fish),
    };
    if let Some(shell) = shell {
        clap_complete::generate(shell, &mut command, "skillc", &mut out);
    }
    out!("{}", String::from_utf8_lossy(&out));
    Ok(())
}

/// An artifact command, handed its arguments whole.
fn run_on_artifact(command: ArtifactCommand) -> Done {
    match command {
        ArtifactCommand::Catalog(args) => artifact::catalog(&args),
        ArtifactCommand::Prompt(args) => artifact::prompt(&args),
        ArtifactCommand::Route(args) => artifact::route(&args),
        ArtifactCommand::Explain(args) => artifact::explain(&args),
        ArtifactCommand::Mcp(args) => artifact::mcp(args),
        ArtifactCommand::Push(args) => artifact::push(&args),
        ArtifactCommand::Pull(args) => artifact::pull(&args),
        ArtifactCommand::Verify(args) => artifact::verify(&args),
        ArtifactCommand::Diff(args) => artifact::diff(&args),
        ArtifactCommand::Export(args) => artifact::export(&args),
    }
}
