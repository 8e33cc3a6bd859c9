//! The `skillc` command line (SPEC 7).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// skillc: compile a skills workspace into one SQLite artifact.
#[derive(Debug, Parser)]
#[command(name = "skillc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a workspace and print every diagnostic.
    Check {
        /// The workspace folder.
        #[arg(default_value = ".")]
        workspace: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        /// Apply exactly the agentskills.io rules (portability issues become errors).
        #[arg(long)]
        strict_spec: bool,
    },
}

/// Exit codes of SPEC 7.
const EXIT_ERRORS: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Check {
            workspace,
            format,
            strict_spec,
        } => check(&workspace, format, strict_spec),
    }
}

fn check(workspace: &std::path::Path, format: CheckFormat, strict_spec: bool) -> ExitCode {
    let options = skillc::CheckOptions { strict_spec };
    let report = match skillc::check(workspace, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut stdout = std::io::stdout().lock();
    let written = match format {
        CheckFormat::Json => writeln!(stdout, "{}", skillc::render_json(&report.diagnostics)),
        CheckFormat::Text => {
            let display = workspace.to_string_lossy();
            write!(
                stdout,
                "{}",
                skillc::render_text(&report.diagnostics, &display)
            )
            .and_then(|_| {
                writeln!(
                    stdout,
                    "checked {} skills: {} errors, {} warnings",
                    report.workspace.skills.len(),
                    report.error_count(),
                    report.warning_count()
                )
            })
        }
    };
    if written.is_err() {
        return ExitCode::from(EXIT_USAGE);
    }
    if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_ERRORS)
    }
}
