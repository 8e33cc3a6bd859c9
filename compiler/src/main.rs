//! The `skillc` command line: its shape is a contract scripts and CI depend on (README, "The
//! command line").

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::args::{ArtifactCommand, Command, WorkspaceCommand};
use cli::report::Shown;
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

fn run_on_workspace(command: WorkspaceCommand) -> Done {
    match command {
        WorkspaceCommand::Check(args) => {
            workspace::locked(&args.workspace, args.locked).and_then(|()| workspace::check(&args))
        }
        WorkspaceCommand::Build {
            workspace,
            output,
            jobs,
            release_label,
            embedder,
            format,
            all_warnings,
            all_errors,
            sign,
            locked,
        } => workspace::locked(&workspace, locked).and_then(|()| {
            workspace::build(
                &workspace,
                &output,
                jobs,
                (release_label.as_deref(), embedder.as_deref()),
                (format, sign.as_deref()),
                Shown {
                    all_warnings,
                    all_errors,
                },
            )
        }),
        WorkspaceCommand::Fetch {
            workspace,
            update,
            accept_findings,
        } => workspace::fetch(&workspace, update, accept_findings),
        WorkspaceCommand::Keygen { output } => artifact::keygen(&output),
        WorkspaceCommand::Generate { what } => generate(what),
        WorkspaceCommand::Test { workspace, format } => workspace::run_tests(&workspace, format),
        WorkspaceCommand::Eval(args) => workspace::run_eval(&args),
        WorkspaceCommand::ExportCases(args) => workspace::export_cases(&args),
        WorkspaceCommand::Watch { workspace, output } => workspace::watch(&workspace, &output),
        WorkspaceCommand::Set {
            skill_md,
            field,
            value,
            unset,
        } => edits::set(
            &skill_md,
            field.as_deref(),
            value.as_deref(),
            unset.as_deref(),
        ),
        WorkspaceCommand::Toggle {
            client,
            first,
            second,
            third,
        } => edits::toggle(&client, &first, &second, third.as_deref()),
        WorkspaceCommand::Merge(args) => teams::merge(&args),
        WorkspaceCommand::Rename(args) => teams::rename(&args),
        WorkspaceCommand::Pack {
            skill_dir,
            output,
            flat,
        } => edits::pack(&skill_dir, &output, flat),
        WorkspaceCommand::Unpack {
            package,
            workspace,
            force,
            accept_findings,
        } => {
            let admit = skillc::interop::package::Admit {
                force,
                findings: accept_findings,
            };
            edits::unpack(&package, &workspace, admit)
        }
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

fn run_on_artifact(command: ArtifactCommand) -> Done {
    match command {
        ArtifactCommand::Catalog {
            artifact,
            bundle,
            consumer,
            context,
            format,
        } => artifact::catalog(&artifact, &bundle, consumer.as_deref(), &context, format),
        ArtifactCommand::Prompt {
            artifact,
            bundle,
            consumer,
            select,
            context,
            format,
        } => artifact::prompt(
            &artifact,
            &bundle,
            consumer.as_deref(),
            &select,
            &context,
            format,
        ),
        ArtifactCommand::Route {
            artifact,
            message,
            bundle,
            consumer,
            context,
            top,
            query_vector,
            history,
            format,
        } => artifact::route(
            &artifact,
            &message,
            &bundle,
            consumer.as_deref(),
            &context,
            (top, query_vector.as_deref(), &history),
            format,
        ),
        ArtifactCommand::Explain {
            artifact,
            name,
            bundle,
            consumer,
            format,
        } => artifact::explain(&artifact, &name, &bundle, consumer.as_deref(), format),
        ArtifactCommand::Mcp {
            artifact,
            bundle,
            consumer,
            public_key,
        } => artifact::mcp(&artifact, bundle, consumer, public_key.as_deref()),
        ArtifactCommand::Push {
            artifact,
            target,
            registry,
        } => artifact::push(&artifact, &target, &registry),
        ArtifactCommand::Pull {
            source,
            output,
            registry,
        } => artifact::pull(&source, &output, &registry),
        ArtifactCommand::Verify {
            artifact,
            public_key,
        } => artifact::verify(&artifact, &public_key),
        ArtifactCommand::Diff { old, new, format } => artifact::diff(&old, &new, format),
        ArtifactCommand::Export {
            artifact,
            bundle,
            output,
            target,
            include_untrusted,
        } => artifact::export(&artifact, &bundle, &output, target, include_untrusted),
    }
}
