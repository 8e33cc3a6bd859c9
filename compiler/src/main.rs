//! The `skillc` command line (SPEC 7).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// `print!` that ends the process quietly when stdout is closed (`skillc catalog … | head`),
/// as `grep` or `rg` do, instead of panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => { emit(format_args!($($arg)*)) };
}

/// `println!` with the same handling of a closed stdout.
macro_rules! outln {
    ($($arg:tt)*) => { emit(format_args!("{}\n", format_args!($($arg)*))) };
}

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

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
}

/// How `test` prints its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TestFormat {
    Text,
    Json,
    /// JUnit XML, which CI systems show per test.
    Junit,
}

/// How `check` and `build` print diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DiagFormat {
    Text,
    Json,
    /// GitHub Actions annotations (`::error file=…,line=…,col=…::…`).
    Github,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

/// Diagnostics in a machine format (`None` for text, which each command words itself).
fn render_machine(
    diagnostics: &[skillc::Diagnostic],
    root: &str,
    format: DiagFormat,
) -> Option<String> {
    match format {
        DiagFormat::Text => None,
        DiagFormat::Json => Some(format!("{}\n", skillc::render_json(diagnostics))),
        DiagFormat::Github => Some(skillc::diagnostic::render_github(diagnostics, root)),
        DiagFormat::Sarif => Some(format!(
            "{}\n",
            skillc::diagnostic::render_sarif(diagnostics, root)
        )),
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    #[command(flatten)]
    Workspace(WorkspaceCommand),
    #[command(flatten)]
    Artifact(ArtifactCommand),
}

/// Commands on a workspace, a skill or a package.
#[derive(Debug, Subcommand)]
enum WorkspaceCommand {
    /// Validate a workspace and print every diagnostic.
    Check {
        /// The workspace folder.
        #[arg(default_value = ".")]
        workspace: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = DiagFormat::Text)]
        format: DiagFormat,
        /// Apply exactly the agentskills.io rules (portability issues become errors).
        #[arg(long)]
        strict_spec: bool,
        /// Print every warning in full (by default, past 50 warnings the first 20 are shown
        /// and the rest counted by code).
        #[arg(long)]
        all_warnings: bool,
        /// Print every error in full (by default, past 50 errors each distinct message is
        /// shown once, with its count and its first places).
        #[arg(long)]
        all_errors: bool,
        /// Check every file afresh: neither read nor write `.skillc/check-cache.json` (the
        /// last result, reused while every input file has the same content).
        #[arg(long)]
        no_cache: bool,
    },
    /// Compile a workspace into the SQLite artifact.
    Build {
        /// The workspace folder.
        #[arg(default_value = ".")]
        workspace: PathBuf,
        /// The artifact to write (replaced atomically).
        #[arg(short, long)]
        output: PathBuf,
        /// Worker threads (default: one per core; at most 64, or one per core if more).
        #[arg(long)]
        jobs: Option<usize>,
        /// A release label stored in the artifact (`git`: the workspace's commit, short hash,
        /// with `-dirty` when it has changes). No label by default.
        #[arg(long, value_name = "LABEL|git")]
        release_label: Option<String>,
        /// How to print diagnostics (github and sarif go to stdout, the summary to stderr).
        #[arg(long, value_enum, default_value_t = DiagFormat::Text)]
        format: DiagFormat,
        /// Print every warning in full (by default, past 50 they are summarised).
        #[arg(long)]
        all_warnings: bool,
        /// Print every error in full (by default, past 50 the same message is shown once).
        #[arg(long)]
        all_errors: bool,
    },
    /// Run the workspace's test cases (tests/*.yaml) against a fresh build.
    Test {
        /// The workspace folder.
        #[arg(default_value = ".")]
        workspace: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = TestFormat::Text)]
        format: TestFormat,
    },
    /// Rebuild the artifact whenever the workspace changes.
    Watch {
        /// The workspace folder.
        #[arg(default_value = ".")]
        workspace: PathBuf,
        /// The artifact to write (replaced atomically).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Edit one frontmatter field of a SKILL.md, changing only that field's lines.
    #[command(
        override_usage = "skillc set SKILL_MD FIELD YAML_VALUE\n       skillc set SKILL_MD --unset FIELD"
    )]
    Set {
        /// The SKILL.md to edit.
        skill_md: PathBuf,
        /// The field (with `--unset`: the field to remove).
        field: Option<String>,
        /// The new value, as YAML text (`2`, `'["Hi", "Hello"]'`).
        value: Option<String>,
        /// Remove this field.
        #[arg(long, value_name = "FIELD", conflicts_with_all = ["field", "value"])]
        unset: Option<String>,
    },
    /// Set a client's toggle for a skill in clients/ID/client.yaml (only its line changes).
    #[command(override_usage = "skillc toggle [WORKSPACE] --client ID SKILL on|off|default")]
    Toggle {
        /// The client.
        #[arg(long)]
        client: String,
        /// WORKSPACE (default `.`) when three values are given, else SKILL.
        #[arg(value_name = "WORKSPACE|SKILL")]
        first: String,
        /// SKILL, or the state when the workspace is left out.
        #[arg(value_name = "SKILL|STATE")]
        second: String,
        /// `on`, `off`, or `default` (remove the toggle).
        #[arg(value_name = "STATE")]
        third: Option<String>,
    },
    /// Pack a skill folder into a ZIP package (deterministic).
    Pack {
        /// The skill folder.
        skill_dir: PathBuf,
        /// The package to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Put the files at the root (seed 004's shape) instead of in a `<name>/` folder.
        #[arg(long)]
        flat: bool,
    },
    /// Unpack a ZIP package into a workspace (validated before anything is written).
    Unpack {
        /// The package.
        package: PathBuf,
        /// The workspace folder to add the skill to.
        workspace: PathBuf,
        /// Replace a skill of the same name.
        #[arg(long)]
        force: bool,
    },
}

/// Commands that read an artifact.
#[derive(Debug, Subcommand)]
enum ArtifactCommand {
    /// Print the catalog of a bundle.
    Catalog {
        /// The artifact.
        artifact: PathBuf,
        #[command(flatten)]
        bundle: BundleArgs,
        /// The consumer whose filters apply.
        #[arg(long)]
        consumer: Option<String>,
        /// Run-time context: page_url, turn, <skill>_availability, any key for context_has.
        #[arg(long, value_name = "KEY=VALUE")]
        context: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CatalogFormat::Markdown)]
        format: CatalogFormat,
    },
    /// Assemble the answer prompt for selected skills.
    Prompt {
        /// The artifact.
        artifact: PathBuf,
        #[command(flatten)]
        bundle: BundleArgs,
        /// The consumer whose filters apply (for SK ids and hidden skills).
        #[arg(long)]
        consumer: Option<String>,
        /// Selected skills: names, qualified names or SK ids.
        #[arg(long, value_delimiter = ',', required = true)]
        select: Vec<String>,
        /// Run-time context: page_url, turn, <skill>_availability, any key for context_has.
        #[arg(long, value_name = "KEY=VALUE")]
        context: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
    },
    /// Say why a skill is, or is not, in a bundle: variant, toggle, locale, tier, catalog.
    Explain {
        /// The artifact.
        artifact: PathBuf,
        /// The skill (name or qualified name).
        name: String,
        #[command(flatten)]
        bundle: BundleArgs,
        /// The consumer whose filters apply.
        #[arg(long)]
        consumer: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
    },
    /// Serve one bundle to MCP clients (Claude Desktop, Claude Code, Cursor, …) on stdio:
    /// tools skills_catalog and load_skills, resources skill://<name>/<path>.
    Mcp {
        /// The artifact (a new one renamed over it is served from the next call).
        artifact: PathBuf,
        #[command(flatten)]
        bundle: BundleArgs,
        /// The consumer whose filters apply.
        #[arg(long)]
        consumer: Option<String>,
    },
    /// Compare two artifacts: skills and catalogs changed per client, locale and tier.
    Diff {
        /// The older artifact.
        old: PathBuf,
        /// The newer artifact.
        new: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
    },
    /// Write a bundle as portable agentskills.io folders.
    Export {
        /// The artifact.
        artifact: PathBuf,
        #[command(flatten)]
        bundle: BundleArgs,
        /// The folder to write (new or empty).
        #[arg(short, long)]
        output: PathBuf,
    },
}

/// Which bundle of an artifact.
#[derive(Debug, clap::Args)]
struct BundleArgs {
    /// Client id (omitted: the global bundle).
    #[arg(long)]
    client: Option<String>,
    /// Locale (default: the workspace's default locale).
    #[arg(long)]
    locale: Option<String>,
    /// Tier (default: the workspace's first tier).
    #[arg(long)]
    tier: Option<String>,
}

impl BundleArgs {
    fn as_ref(&self) -> skillc_runtime::BundleRef<'_> {
        skillc_runtime::BundleRef {
            client: self.client.as_deref(),
            locale: self.locale.as_deref(),
            tier: self.tier.as_deref(),
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CatalogFormat {
    Xml,
    Markdown,
    List,
    Json,
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
        Command::Workspace(command) => run_on_workspace(command),
        Command::Artifact(command) => run_on_artifact(command),
    }
}

fn run_on_workspace(command: WorkspaceCommand) -> ExitCode {
    match command {
        WorkspaceCommand::Check {
            workspace,
            format,
            strict_spec,
            all_warnings,
            all_errors,
            no_cache,
        } => check(
            &workspace,
            format,
            strict_spec,
            Shown {
                all_warnings,
                all_errors,
            },
            no_cache,
        ),
        WorkspaceCommand::Build {
            workspace,
            output,
            jobs,
            release_label,
            format,
            all_warnings,
            all_errors,
        } => build(
            &workspace,
            &output,
            jobs,
            release_label.as_deref(),
            format,
            Shown {
                all_warnings,
                all_errors,
            },
        ),
        WorkspaceCommand::Test { workspace, format } => run_tests(&workspace, format),
        WorkspaceCommand::Watch { workspace, output } => watch(&workspace, &output),
        WorkspaceCommand::Set {
            skill_md,
            field,
            value,
            unset,
        } => set(
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
        } => toggle(&client, &first, &second, third.as_deref()),
        WorkspaceCommand::Pack {
            skill_dir,
            output,
            flat,
        } => pack(&skill_dir, &output, flat),
        WorkspaceCommand::Unpack {
            package,
            workspace,
            force,
        } => unpack(&package, &workspace, force),
    }
}

fn run_on_artifact(command: ArtifactCommand) -> ExitCode {
    match command {
        ArtifactCommand::Catalog {
            artifact,
            bundle,
            consumer,
            context,
            format,
        } => catalog(&artifact, &bundle, consumer.as_deref(), &context, format),
        ArtifactCommand::Prompt {
            artifact,
            bundle,
            consumer,
            select,
            context,
            format,
        } => prompt(
            &artifact,
            &bundle,
            consumer.as_deref(),
            &select,
            &context,
            format,
        ),
        ArtifactCommand::Explain {
            artifact,
            name,
            bundle,
            consumer,
            format,
        } => explain(&artifact, &name, &bundle, consumer.as_deref(), format),
        ArtifactCommand::Mcp {
            artifact,
            bundle,
            consumer,
        } => mcp(&artifact, bundle, consumer),
        ArtifactCommand::Diff { old, new, format } => diff(&old, &new, format),
        ArtifactCommand::Export {
            artifact,
            bundle,
            output,
        } => export(&artifact, &bundle, &output),
    }
}

fn pack(skill_dir: &std::path::Path, output: &std::path::Path, flat: bool) -> ExitCode {
    match skillc::interop::package::pack(skill_dir, output, flat) {
        Ok(n) => {
            outln!("packed {} files into {}", n, output.display());
            ExitCode::SUCCESS
        }
        Err(e) => package_error(&e, skill_dir),
    }
}

fn unpack(package: &std::path::Path, workspace: &std::path::Path, force: bool) -> ExitCode {
    let limits = skillc::interop::package::Limits::default();
    match skillc::interop::package::unpack(package, workspace, force, &limits) {
        Ok(u) => {
            outln!(
                "unpacked `{}` into {} ({} files; untrusted unless workspace.yaml trusts it)",
                u.name,
                u.dir.display(),
                u.files
            );
            ExitCode::SUCCESS
        }
        Err(e) => package_error(&e, package),
    }
}

fn set(
    skill_md: &std::path::Path,
    field: Option<&str>,
    value: Option<&str>,
    unset: Option<&str>,
) -> ExitCode {
    let (field, edit) = match (unset, field, value) {
        (Some(f), None, None) => (f, skillc::edit::FieldEdit::Unset),
        (None, Some(f), Some(v)) => (f, skillc::edit::FieldEdit::Set(v)),
        _ => {
            eprintln!("error: give FIELD and YAML_VALUE, or --unset FIELD");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let done = skillc::edit::set_field_in_file(skill_md, field, &edit);
    edit_outcome(done.map(|()| skill_md.to_path_buf()))
}

/// `toggle [WORKSPACE] --client ID SKILL STATE`: the workspace is optional and comes first.
fn toggle(client: &str, first: &str, second: &str, third: Option<&str>) -> ExitCode {
    let (workspace, skill, state) = match third {
        Some(state) => (PathBuf::from(first), second, state),
        None => (PathBuf::from("."), first, second),
    };
    let toggle = match state {
        "on" => skillc::edit::Toggle::On,
        "off" => skillc::edit::Toggle::Off,
        "default" => skillc::edit::Toggle::Default,
        other => {
            eprintln!("error: the state is `on`, `off` or `default`, not `{other}`");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    edit_outcome(skillc::edit::toggle_in_workspace(
        &workspace, client, skill, toggle,
    ))
}

fn export(artifact: &std::path::Path, bundle: &BundleArgs, output: &std::path::Path) -> ExitCode {
    match skillc::interop::export::export(artifact, &bundle.as_ref(), output) {
        Ok(dirs) => {
            for problem in skillc::interop::export::portability_problems(output) {
                eprintln!("warning: {problem}");
            }
            outln!("exported {} skills into {}", dirs.len(), output.display());
            ExitCode::SUCCESS
        }
        Err(skillc::interop::export::Error::Runtime(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(if e.is_request_error() {
                EXIT_ERRORS
            } else {
                EXIT_USAGE
            })
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn catalog(
    artifact: &std::path::Path,
    bundle: &BundleArgs,
    consumer: Option<&str>,
    context: &[String],
    format: CatalogFormat,
) -> ExitCode {
    runtime_answer(artifact, context, |a, ctx| {
        let f = match format {
            CatalogFormat::Xml => skillc_runtime::Format::Xml,
            CatalogFormat::Markdown => skillc_runtime::Format::Markdown,
            CatalogFormat::List => skillc_runtime::Format::List,
            CatalogFormat::Json => skillc_runtime::Format::Json,
        };
        Ok(match format {
            CatalogFormat::Json => {
                let c = a.catalog(&bundle.as_ref(), consumer, ctx, f)?;
                serde_json::to_string_pretty(&a.catalog_json(&c)).unwrap_or_default() + "\n"
            }
            // One catalog and the process ends: only what the text shows is read.
            _ => {
                let mut t = a.catalog_text(&bundle.as_ref(), consumer, ctx, f)?;
                if !t.ends_with('\n') {
                    t.push('\n');
                }
                t
            }
        })
    })
}

fn prompt(
    artifact: &std::path::Path,
    bundle: &BundleArgs,
    consumer: Option<&str>,
    select: &[String],
    context: &[String],
    format: CheckFormat,
) -> ExitCode {
    runtime_answer(artifact, context, |a, ctx| {
        let picked: Vec<&str> = select
            .iter()
            .map(String::as_str)
            .filter(|s| !s.is_empty())
            .collect();
        let p = a.prompt(&bundle.as_ref(), consumer, ctx, &picked)?;
        Ok(match format {
            CheckFormat::Json => serde_json::to_string_pretty(&p).unwrap_or_default() + "\n",
            CheckFormat::Text => {
                // The text is the prompt alone; what was left out goes to stderr, so a
                // misspelt name is never silent.
                for r in &p.removed {
                    eprintln!("note: `{}` left out: {}", r.name, r.words());
                }
                p.text.clone()
            }
        })
    })
}

fn explain(
    artifact: &std::path::Path,
    name: &str,
    bundle: &BundleArgs,
    consumer: Option<&str>,
    format: CheckFormat,
) -> ExitCode {
    runtime_answer(artifact, &[], |a, _| {
        let e = a.explain(&bundle.as_ref(), consumer, name)?;
        Ok(match format {
            CheckFormat::Json => serde_json::to_string_pretty(&e).unwrap_or_default() + "\n",
            CheckFormat::Text => {
                let mut t = format!("{}\n", e.name);
                for line in &e.why {
                    t.push_str(&format!("  {line}\n"));
                }
                t
            }
        })
    })
}

/// `skillc test`: checks the workspace (case files included), builds it into a temporary
/// artifact and runs every case against it.
fn run_tests(workspace: &std::path::Path, format: TestFormat) -> ExitCode {
    use skillc::workspace_check::CaseRun;
    let display = workspace.to_string_lossy();
    let outcomes = match skillc::workspace_check::run_cases(workspace) {
        Ok(CaseRun::Ran(outcomes)) => outcomes,
        Ok(CaseRun::CheckFailed(errors)) => {
            eprint!("{}", skillc::render_text(&errors, &display));
            eprintln!(
                "error: the workspace or its cases have {} errors; no case was run",
                errors.len()
            );
            return ExitCode::from(EXIT_ERRORS);
        }
        Ok(CaseRun::BuildFailed(diagnostics)) => {
            eprint!("{}", skillc::render_text(&diagnostics, &display));
            eprintln!("error: the build failed; no case was run");
            return ExitCode::from(EXIT_ERRORS);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let text = match format {
        TestFormat::Text => skillc::cases::render_text(&outcomes),
        TestFormat::Json => skillc::cases::render_json(&outcomes) + "\n",
        TestFormat::Junit => skillc::cases::render_junit(&outcomes),
    };
    out!("{text}");
    if outcomes.iter().all(|o| o.passed()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_ERRORS)
    }
}

/// Exit status and messages of `set` and `toggle`.
fn edit_outcome(done: Result<std::path::PathBuf, skillc::edit::Error>) -> ExitCode {
    match done {
        Ok(path) => {
            outln!("edited {}", path.display());
            ExitCode::SUCCESS
        }
        Err(skillc::edit::Error::Refused(diags)) => {
            eprint!("{}", skillc::render_text(&diags, ""));
            eprintln!("error: the edit would leave these problems; nothing was written");
            ExitCode::from(EXIT_ERRORS)
        }
        Err(e @ skillc::edit::Error::Invalid(_)) => {
            eprintln!("error: {e}; nothing was written");
            ExitCode::from(EXIT_ERRORS)
        }
        Err(e @ skillc::edit::Error::Io { .. }) => {
            eprintln!("error: {e}; nothing was written");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn mcp(artifact: &std::path::Path, bundle: BundleArgs, consumer: Option<String>) -> ExitCode {
    let bundle = skillc::mcp::Bundle {
        client: bundle.client,
        locale: bundle.locale,
        tier: bundle.tier,
        consumer,
    };
    let server = match skillc::mcp::Server::open(artifact, bundle) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(if e.is_request_error() {
                EXIT_ERRORS
            } else {
                EXIT_USAGE
            });
        }
    };
    match skillc::mcp::serve_stdio(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn package_error(e: &skillc::interop::package::Error, path: &std::path::Path) -> ExitCode {
    match e {
        skillc::interop::package::Error::Invalid(diags) => {
            let mut diags = diags.clone();
            skillc::diagnostic::sort(&mut diags);
            eprint!("{}", skillc::render_text(&diags, ""));
            eprintln!(
                "error: `{}`: the skill has errors; nothing was written",
                path.display()
            );
            ExitCode::from(EXIT_ERRORS)
        }
        skillc::interop::package::Error::Refused { .. } => {
            eprintln!("error: {e}; nothing was written");
            ExitCode::from(EXIT_ERRORS)
        }
        skillc::interop::package::Error::Io { .. } => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn diff(old: &std::path::Path, new: &std::path::Path, format: CheckFormat) -> ExitCode {
    let open = |p: &std::path::Path| skillc_runtime::Artifact::open(p);
    let (a, b) = match (open(old), open(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match skillc::interop::diff::diff(&a, &b) {
        Ok(d) => {
            match format {
                CheckFormat::Text => out!("{}", skillc::interop::diff::render_text(&d)),
                CheckFormat::Json => {
                    outln!("{}", serde_json::to_string_pretty(&d).unwrap_or_default())
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Opens an artifact, reads the context and prints what `answer` returns.
fn runtime_answer(
    artifact: &std::path::Path,
    context: &[String],
    answer: impl FnOnce(
        &skillc_runtime::Artifact,
        &skillc_runtime::Context,
    ) -> Result<String, skillc_runtime::Error>,
) -> ExitCode {
    let mut pairs = Vec::new();
    for kv in context {
        match kv.split_once('=') {
            Some((k, v)) => pairs.push((k, v)),
            None => {
                eprintln!("error: --context takes KEY=VALUE, not `{kv}`");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    let ctx = match skillc_runtime::Context::from_pairs(pairs) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let a = match skillc_runtime::Artifact::open(artifact) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let answered = answer(&a, &ctx);
    // The process ends here: freeing the loaded bundle and closing a read-only connection
    // would only cost time (about a millisecond on the reference workload).
    std::mem::forget(a);
    match answered {
        Ok(text) => {
            out!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(if e.is_request_error() {
                EXIT_ERRORS
            } else {
                EXIT_USAGE
            })
        }
    }
}

/// A one-line progress display on stderr (used only when stderr is a terminal).
fn progress_line(phase: &str, done: usize, total: usize) {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K{phase}: {}/{total}", done.min(total));
    let _ = err.flush();
}

/// The release label `--release-label` asks for (`git`: the workspace's commit).
fn release_of(workspace: &std::path::Path, label: Option<&str>) -> Result<Option<String>, String> {
    match label.map(str::trim) {
        None => Ok(None),
        Some("git") => skillc::release::git_label(workspace)
            .map(Some)
            .map_err(|e| format!("--release-label git: {e}")),
        Some("") => Err("--release-label needs a label (or `git`)".to_string()),
        Some(label) => Ok(Some(label.to_string())),
    }
}

/// `built out.db in 1.91s: 3500 skills, ... (1.96x the 8561097 bytes of distinct sources)`.
fn built_summary(output: &std::path::Path, secs: f64, s: &skillc::pipeline::BuildStats) -> String {
    let ratio = match s.source_bytes {
        0 => "no source bytes".to_string(),
        n => format!(
            "{:.2}x the {n} bytes of distinct sources",
            s.bytes as f64 / n as f64
        ),
    };
    format!(
        "built {} in {secs:.2}s: {} skills, {} bundles, {} distinct entries, {} blobs, \
         {} bytes ({ratio})",
        output.display(),
        s.skills,
        s.bundles,
        s.entries,
        s.blobs,
        s.bytes,
    )
}

fn build(
    workspace: &std::path::Path,
    output: &std::path::Path,
    jobs: Option<usize>,
    release_label: Option<&str>,
    format: DiagFormat,
    shown: Shown,
) -> ExitCode {
    use std::io::IsTerminal;
    let release = match release_of(workspace, release_label) {
        Ok(release) => release,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let tty = std::io::stderr().is_terminal();
    let show: &(dyn Fn(&str, usize, usize) + Sync) = &progress_line;
    let options = skillc::pipeline::BuildOptions {
        jobs,
        progress: tty.then_some(show),
        release,
        release_from: None,
        clients_per_batch: None,
    };
    let started = std::time::Instant::now();
    let result = skillc::pipeline::build(workspace, output, &options);
    if tty {
        eprint!("\r\x1b[2K");
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let display = workspace.to_string_lossy();
    let machine = render_machine(&report.diagnostics, &display, format);
    match &machine {
        Some(text) => out!("{text}"),
        None => eprint!(
            "{}",
            render_summarised(&report.diagnostics, &display, shown)
        ),
    }
    match &report.stats {
        Some(s) => {
            let summary = built_summary(output, started.elapsed().as_secs_f64(), s);
            // Machine formats own stdout (SARIF is one JSON document): the summary goes aside.
            if machine.is_some() {
                eprintln!("{summary}");
            } else {
                outln!("{summary}");
            }
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "build failed: {} errors; {} was not written",
                report.error_count(),
                output.display()
            );
            ExitCode::from(EXIT_ERRORS)
        }
    }
}

/// What `watch` prints of a build's diagnostics: the first build's as `build` prints them;
/// after that every error, and only the warnings that the last complete build did not have,
/// with a count of the rest (on a large workspace, thousands of the same warnings after every
/// save would bury what the save changed).
#[derive(Default)]
struct WatchDiagnostics {
    /// The warnings of the last build that wrote the artifact, by code, file and message (a
    /// line moved by an edit above it is the same warning).
    last: Option<std::collections::HashSet<(&'static str, String, String)>>,
}

impl WatchDiagnostics {
    fn text(&mut self, report: &skillc::pipeline::BuildReport, display: &str) -> String {
        let warning = |d: &&skillc::Diagnostic| d.severity != skillc::Severity::Error;
        let key = |d: &skillc::Diagnostic| (d.code, d.file.clone(), d.message.clone());
        let text = match &self.last {
            None => render_summarised(&report.diagnostics, display, Shown::default()),
            Some(last) => {
                let is_new = |d: &&skillc::Diagnostic| !warning(d) || !last.contains(&key(d));
                let shown: Vec<skillc::Diagnostic> =
                    report.diagnostics.iter().filter(is_new).cloned().collect();
                let warnings = report.diagnostics.iter().filter(warning).count();
                let new = shown.iter().filter(warning).count();
                let mut text = render_summarised(&shown, display, Shown::default());
                if warnings > new {
                    text.push_str(&format!(
                        "{warnings} warnings ({new} new{}; the others as at the last build)\n",
                        if new > 0 { ", above" } else { "" }
                    ));
                }
                text
            }
        };
        if report.stats.is_some() {
            self.last = Some(report.diagnostics.iter().filter(warning).map(key).collect());
        }
        text
    }
}

fn watch(workspace: &std::path::Path, output: &std::path::Path) -> ExitCode {
    let display = workspace.to_string_lossy().into_owned();
    let mut diagnostics = WatchDiagnostics::default();
    let result = skillc::pipeline::watch::watch(workspace, output, |event| match event {
        skillc::pipeline::watch::Event::Built { report, millis } => {
            eprint!("{}", diagnostics.text(&report, &display));
            match &report.stats {
                Some(s) => outln!(
                    "rebuilt {} in {millis} ms ({} bundles, {} bytes)",
                    output.display(),
                    s.bundles,
                    s.bytes
                ),
                None if output.exists() => outln!(
                    "not rebuilt: {} errors (the previous artifact is kept)",
                    report.error_count()
                ),
                None => outln!(
                    "not built: {} errors (no artifact is written until they are fixed)",
                    report.error_count()
                ),
            }
        }
        skillc::pipeline::watch::Event::Failed(e) => eprintln!("error: {e} (still watching)"),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// "12 skills", or "10 skills (2 more could not be read)" when some SKILL.md failed to load.
fn skill_count(diagnostics: &[skillc::Diagnostic], skill_files: &[String]) -> String {
    let loaded = skill_files.len();
    let unread: std::collections::BTreeSet<&str> = diagnostics
        .iter()
        .filter(|d| d.severity == skillc::Severity::Error)
        .filter(|d| {
            d.file.ends_with("/SKILL.md") || d.file.ends_with("/skill.md") || d.file == "SKILL.md"
        })
        .filter(|d| !skill_files.contains(&d.file))
        .map(|d| d.file.as_str())
        .collect();
    match unread.len() {
        0 => format!("{loaded} skills"),
        n => format!("{loaded} skills ({n} more could not be read)"),
    }
}

/// Warnings shown in full before the rest are summarised.
const SHOWN_WARNINGS: usize = 20;
/// More warnings than this are summarised (unless `--all-warnings`).
const SUMMARY_ABOVE: usize = 50;

/// What the text form prints in full.
#[derive(Debug, Clone, Copy, Default)]
struct Shown {
    all_warnings: bool,
    all_errors: bool,
}

/// Places listed for an error message that repeats.
const SHOWN_PLACES: usize = 3;

/// The diagnostics as text. Past [`SUMMARY_ABOVE`] errors, each distinct error (code and
/// message) is shown once, with its count and its first places (a public collection gave
/// 832 identical errors, 5,135 lines); past [`SUMMARY_ABOVE`] warnings, the first
/// [`SHOWN_WARNINGS`] and a count per code of the others (a flood hides the errors).
fn render_summarised(diagnostics: &[skillc::Diagnostic], display: &str, shown: Shown) -> String {
    let is_error = |d: &skillc::Diagnostic| d.severity == skillc::Severity::Error;
    let errors = diagnostics.iter().filter(|d| is_error(d)).count();
    let warnings = diagnostics.len() - errors;
    let fold_errors = !shown.all_errors && errors > SUMMARY_ABOVE;
    let fold_warnings = !shown.all_warnings && warnings > SUMMARY_ABOVE;
    if !fold_errors && !fold_warnings {
        return skillc::render_text(diagnostics, display);
    }
    // Each distinct error: where it first appears in the list, and every place it appears.
    let mut places: std::collections::HashMap<(&str, &str), Vec<String>> = Default::default();
    if fold_errors {
        for d in diagnostics.iter().filter(|d| is_error(d)) {
            let at = format!("{}:{}:{}", d.file, d.line, d.column);
            places
                .entry((d.code, d.message.as_str()))
                .or_default()
                .push(at);
        }
    }
    let mut out = Vec::new();
    let mut hidden: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut seen_warnings = 0;
    let mut said = std::collections::HashSet::new();
    for d in diagnostics {
        if is_error(d) && fold_errors {
            if !said.insert((d.code, d.message.as_str())) {
                continue;
            }
            let all = &places[&(d.code, d.message.as_str())];
            let mut d = d.clone();
            if all.len() > 1 {
                let also: Vec<&str> = all[1..]
                    .iter()
                    .take(SHOWN_PLACES)
                    .map(String::as_str)
                    .collect();
                let more = all.len() - 1 - also.len();
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                d.message = format!(
                    "{} ({} times; also at {}{more})",
                    d.message,
                    all.len(),
                    also.join(", ")
                );
            }
            out.push(d);
        } else if is_error(d) || !fold_warnings || seen_warnings < SHOWN_WARNINGS {
            seen_warnings += usize::from(!is_error(d));
            out.push(d.clone());
        } else {
            *hidden.entry(d.code).or_default() += 1;
        }
    }
    let mut text = skillc::render_text(&out, display);
    if fold_errors {
        text.push_str(&format!(
            "{errors} errors, {} distinct; `--all-errors` or `--format json` lists every one\n\n",
            said.len()
        ));
    }
    if fold_warnings {
        let counts: Vec<String> = hidden.iter().map(|(c, n)| format!("{c} x{n}")).collect();
        text.push_str(&format!(
            "... and {} more warnings ({}); `--all-warnings` or `--format json` lists every one\n\n",
            warnings - seen_warnings,
            counts.join(", ")
        ));
    }
    text
}

fn check(
    workspace: &std::path::Path,
    format: DiagFormat,
    strict_spec: bool,
    shown: Shown,
    no_cache: bool,
) -> ExitCode {
    let options = skillc::CheckOptions { strict_spec };
    let checked = if no_cache {
        skillc::check(workspace, &options).map(skillc::workspace_check::cache::Checked::from)
    } else {
        skillc::workspace_check::cache::check(workspace, &options)
    };
    let report = match checked {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let root = workspace.to_string_lossy();
    let errors = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == skillc::Severity::Error)
        .count();
    let text = match render_machine(&report.diagnostics, &root, format) {
        Some(text) => text,
        None => format!(
            "{}checked {}: {} errors, {} warnings\n",
            render_summarised(&report.diagnostics, &workspace.to_string_lossy(), shown),
            skill_count(&report.diagnostics, &report.skill_files),
            errors,
            report.diagnostics.len() - errors
        ),
    };
    // A reader that stops early (`| head`) does not change what the check found.
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write the output: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
        _ => {}
    }
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_ERRORS)
    }
}
