//! The command line's shape: every command, argument and format, as clap reads them.

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

/// How `prompt`, `route`, `explain`, `diff` and `eval` print their answer: text for a
/// person, JSON for a program.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum OutputFormat {
    Text,
    Json,
}

/// How `test` prints its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TestFormat {
    Text,
    Json,
    /// JUnit XML, which CI systems show per test.
    Junit,
}

/// The eval-set formats `export-cases` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CasesFormat {
    /// skill-creator's trigger eval set: `[{"query", "should_trigger"}]`.
    SkillCreator,
    /// Agent Skills `evals/evals.json`: `{"skill_name", "evals": [{"id", "prompt", …}]}`.
    Agentskills,
}

/// `skillc export-cases`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ExportCasesArgs {
    /// The workspace folder.
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// The format: `skill-creator` (a trigger eval set, `[{"query", "should_trigger"}]`) or
    /// `agentskills` (`evals/evals.json`).
    #[arg(long, value_enum)]
    pub format: CasesFormat,
    /// The skill whose cases to write (needed when the cases are about several).
    #[arg(long)]
    pub skill: Option<String>,
    /// The file to write (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// `skillc eval`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {
    /// The workspace folder.
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// A client whose bundle to evaluate (repeatable; '' for the global bundle; none: the global bundle and every client's).
    #[arg(long)]
    pub client: Vec<String>,
    /// The locale of the bundles (the workspace's default otherwise).
    #[arg(long)]
    pub locale: Option<String>,
    /// The tier of the bundles (the workspace's first otherwise).
    #[arg(long)]
    pub tier: Option<String>,
    /// Fail (exit 1) when a bundle's recall@k is under this share (0 to 1).
    #[arg(long)]
    pub min_recall: Option<f64>,
    /// Also put every message to this command (`sh -c`): one JSON request on stdin, an answer
    /// `{"select": [names or SK ids]}` on stdout (docs/routing.md).
    #[arg(long, value_name = "CMD")]
    pub selector: Option<String>,
    /// How many times each message is put to the selector (an LLM does not answer the same
    /// twice): the figures carry their spread.
    #[arg(long, value_name = "N")]
    pub samples: Option<usize>,
    /// Seconds one selector call may take before it is stopped and counted as failed.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub selector_timeout: f64,
    /// The command that embeds texts (as `build --embedder`; default: $SKILLC_EMBEDDER): with
    /// a workspace that declares `routing.embedding_model`, messages route by words and vectors
    /// (`hybrid`).
    #[arg(long, value_name = "CMD")]
    pub embedder: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// `skillc merge`'s arguments (git's merge driver passes `%O %A %B`, and `%P` to `--path`).
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The version both sides started from.
    pub base: PathBuf,
    /// Our version: the merged result replaces it unless `-o` is given (git's `%A`).
    pub ours: PathBuf,
    /// Their version.
    pub theirs: PathBuf,
    /// Write the result here instead of over OURS (`-` for stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The file's path in the workspace, which says how to merge it (git's `%P`; default: the
    /// name of OURS).
    #[arg(long, value_name = "NAME")]
    pub path: Option<PathBuf>,
    /// The length of conflict markers (git's `%L`).
    #[arg(long, value_name = "N", default_value_t = skillc::edit::merge::MARKER_SIZE, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub marker_size: usize,
}

/// `skillc rename`'s arguments: the workspace is optional and comes first.
#[derive(Debug, clap::Args)]
pub(crate) struct RenameArgs {
    /// WORKSPACE (default `.`) when three values are given, else OLD.
    #[arg(value_name = "WORKSPACE|OLD")]
    pub first: String,
    /// OLD, or NEW when the workspace is left out.
    #[arg(value_name = "OLD|NEW")]
    pub second: String,
    /// NEW.
    #[arg(value_name = "NEW")]
    pub third: Option<String>,
    /// List every change (file:line, old → new) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `skillc reach`'s arguments: the workspace is optional and comes first.
#[derive(Debug, clap::Args)]
pub(crate) struct ReachArgs {
    /// WORKSPACE (default `.`) when two values are given, else SKILL.
    #[arg(value_name = "WORKSPACE|SKILL")]
    pub first: String,
    /// SKILL: a skill's name (with `--client`, that client's own skill of the name) or its
    /// SKILL.md (a translation's file counts as its skill's).
    #[arg(value_name = "SKILL")]
    pub second: Option<String>,
    /// The client whose own skill of that name is meant (default: the global skill).
    #[arg(long, value_name = "ID")]
    pub client: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: OutputFormat,
}

/// How `check` and `build` print diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiagFormat {
    Text,
    Json,
    /// GitHub Actions annotations (`::error file=…,line=…,col=…::…`).
    Github,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    #[command(flatten)]
    Workspace(WorkspaceCommand),
    #[command(flatten)]
    Artifact(ArtifactCommand),
}

/// What `skillc generate` writes (for release archives and packages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Generated {
    /// The man page (roff), `skillc.1`.
    Man,
    /// Bash completions.
    Bash,
    /// Zsh completions.
    Zsh,
    /// Fish completions.
    Fish,
}

/// Commands on a workspace, a skill or a package.
#[derive(Debug, Subcommand)]
pub(crate) enum WorkspaceCommand {
    /// Validate a workspace and print every diagnostic.
    Check(CheckArgs),
    /// Compile a workspace into the SQLite artifact.
    Build(BuildArgs),
    /// Bring in the skills of workspace.yaml's `external:` entries: pin each to a commit in
    /// skillc.lock and store its files under .skillc/external/ (with the `git` command).
    Fetch(FetchArgs),
    /// Make a minisign key pair to sign artifacts: the secret key (mode 0600, never
    /// overwritten; encrypted when $SKILLC_KEY_PASSWORD is set) and the public key beside it.
    Keygen(KeygenArgs),
    /// Write the man page or a shell's completions to stdout (release packaging).
    #[command(hide = true)]
    Generate(GenerateArgs),
    /// Run the workspace's test cases (tests/*.yaml) against a fresh build.
    Test(TestArgs),
    /// Measure routing: per bundle, recall@1, recall@k and MRR over every trigger example
    /// (each left out of its own skill) and the routing cases, with the confusions.
    Eval(EvalArgs),
    /// Write the workspace's routing cases about one skill in another tool's eval-set format
    /// (what a format cannot carry is named on stderr).
    ExportCases(ExportCasesArgs),
    /// Rebuild the artifact whenever the workspace changes.
    Watch(WatchArgs),
    /// Edit one frontmatter field of a SKILL.md, or one value of workspace.yaml or a client.yaml
    /// by its dotted path (`routing.min_score`), changing only that value's lines.
    #[command(
        override_usage = "skillc set SKILL_MD FIELD YAML_VALUE\n       skillc set SKILL_MD --unset FIELD\n       skillc set workspace.yaml|client.yaml PATH YAML_VALUE\n       skillc set workspace.yaml|client.yaml --unset PATH"
    )]
    Set(SetArgs),
    /// Set a client's toggle for a skill in clients/ID/client.yaml (only its line changes).
    #[command(override_usage = "skillc toggle [WORKSPACE] --client ID SKILL on|off|default")]
    Toggle(ToggleArgs),
    /// Three-way merge of a workspace file (a SKILL.md by field, list item and paragraph,
    /// YAML settings by key and list item, other text by line), usable as a git merge driver:
    /// exit 0 merged, 1 with conflicts marked in the output, 2 on bad input.
    #[command(override_usage = "skillc merge BASE OURS THEIRS [-o FILE] [--path NAME]")]
    Merge(MergeArgs),
    /// Rename a skill and every reference to it (reference fields, variants, client overrides
    /// and toggles, test cases, markdown naming it), changing only those spans; its folder
    /// moves when it bears the name.
    #[command(override_usage = "skillc rename [WORKSPACE] OLD NEW [--dry-run]")]
    Rename(RenameArgs),
    /// Say whom an edit of a skill's text reaches: the clients that get it, in which bundles,
    /// those that get a variant or their own version instead or have it turned off, and its
    /// run-time conditions (what the studio's relations panel shows).
    #[command(
        override_usage = "skillc reach [WORKSPACE] SKILL [--client ID] [--format text|json]"
    )]
    Reach(ReachArgs),
    /// Pack a skill folder into a ZIP package (deterministic).
    Pack(PackArgs),
    /// Unpack a ZIP package into a workspace (validated before anything is written).
    Unpack(UnpackArgs),
}

/// `skillc build`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct BuildArgs {
    /// The workspace folder.
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// The artifact to write (replaced atomically).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Worker threads (default: one per core; at most 64, or one per core if more).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// A release label stored in the artifact (`git`: the workspace's commit, short hash,
    /// with `-dirty` when it has changes). No label by default.
    #[arg(long, value_name = "LABEL|git")]
    pub release_label: Option<String>,
    /// The command that embeds texts when workspace.yaml declares
    /// `routing.embedding_model` (`sh -c`; JSON lines `{"text"}` in, `{"model", "vector"}`
    /// out; default: $SKILLC_EMBEDDER). Vectors are cached in .skillc/embeddings.db.
    #[arg(long, value_name = "CMD")]
    pub embedder: Option<String>,
    /// How to print diagnostics (github and sarif go to stdout, the summary to stderr).
    #[arg(long, value_enum, default_value_t = DiagFormat::Text)]
    pub format: DiagFormat,
    /// Print every warning in full (by default, past 50 they are summarised).
    #[arg(long)]
    pub all_warnings: bool,
    /// Print every error in full (by default, past 50 the same message is shown once).
    #[arg(long)]
    pub all_errors: bool,
    /// Sign the artifact with this minisign secret key (`skillc keygen`): writes
    /// ARTIFACT.minisig before the artifact is put in place. An encrypted key is opened with
    /// $SKILLC_KEY_PASSWORD.
    #[arg(long, value_name = "SECRET_KEY_FILE")]
    pub sign: Option<PathBuf>,
    /// Fail when skillc.lock is missing or does not pin exactly workspace.yaml's
    /// `external:` entries.
    #[arg(long)]
    pub locked: bool,
}

/// `skillc fetch`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct FetchArgs {
    /// The workspace folder.
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// Move the pins to what each entry's `rev` names now (all, or the entry whose `into`
    /// is NAME); without it, pinned entries keep their commit.
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
    pub update: Option<String>,
    /// Take untrusted entries even with content-safety findings at high or critical (a
    /// build still withholds them until the entry says `trust: true`).
    #[arg(long)]
    pub accept_findings: bool,
}

/// `skillc keygen`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct KeygenArgs {
    /// The secret key file to create (the public key goes beside it, as `<name>.pub`).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// `skillc generate`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct GenerateArgs {
    /// What to write.
    #[arg(value_enum)]
    pub what: Generated,
}

/// `skillc test`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    /// The workspace folder.
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TestFormat::Text)]
    pub format: TestFormat,
}

/// `skillc watch`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct WatchArgs {
    /// The workspace folder.
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// The artifact to write (replaced atomically).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// `skillc set`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct SetArgs {
    /// The SKILL.md, workspace.yaml or client.yaml to edit.
    #[arg(id = "skill_md", value_name = "SKILL_MD")]
    pub file: PathBuf,
    /// The field, or in workspace.yaml and client.yaml the dotted path of keys (with
    /// `--unset`: the one to remove).
    pub field: Option<String>,
    /// The new value, as YAML text (`2`, `'["Hi", "Hello"]'`).
    pub value: Option<String>,
    /// Remove this field (or dotted path).
    #[arg(long, value_name = "FIELD", conflicts_with_all = ["field", "value"])]
    pub unset: Option<String>,
}

/// `skillc toggle`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ToggleArgs {
    /// The client; repeat it for a chosen set of clients (one check with every change in
    /// place: every file written, or none).
    #[arg(long, required = true)]
    pub client: Vec<String>,
    /// WORKSPACE (default `.`) when three values are given, else SKILL.
    #[arg(value_name = "WORKSPACE|SKILL")]
    pub first: String,
    /// SKILL, or the state when the workspace is left out.
    #[arg(value_name = "SKILL|STATE")]
    pub second: String,
    /// `on`, `off`, or `default` (remove the toggle).
    #[arg(value_name = "STATE")]
    pub third: Option<String>,
}

/// `skillc pack`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct PackArgs {
    /// The skill folder.
    pub skill_dir: PathBuf,
    /// The package to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Put the files at the root (seed 004's shape) instead of in a `<name>/` folder.
    #[arg(long)]
    pub flat: bool,
}

/// `skillc unpack`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct UnpackArgs {
    /// The package.
    pub package: PathBuf,
    /// The workspace folder to add the skill to.
    pub workspace: PathBuf,
    /// Replace a skill of the same name.
    #[arg(long)]
    pub force: bool,
    /// Take the skill even with content-safety findings at high or critical (it stays
    /// untrusted: a build withholds it until workspace.yaml trusts it).
    #[arg(long)]
    pub accept_findings: bool,
}

/// Commands that read an artifact.
#[derive(Debug, Subcommand)]
pub(crate) enum ArtifactCommand {
    /// Print the catalog of a bundle.
    Catalog(CatalogArgs),
    /// Assemble the answer prompt for selected skills.
    Prompt(PromptArgs),
    /// Rank the skills a bundle's catalog shows for a message (by words and the built-in meaning, or words alone when the artifact carries no vectors).
    Route(RouteArgs),
    /// Say why a skill is, or is not, in a bundle: variant, toggle, locale, tier, catalog.
    Explain(ExplainArgs),
    /// Serve one bundle to MCP clients (Claude Desktop, Claude Code, Cursor, …) on stdio:
    /// tools skills_catalog and load_skills, resources skill://<name>/<path>.
    Mcp(McpArgs),
    /// Push an artifact (and ARTIFACT.minisig, if any) to an OCI registry as an artifact of
    /// its own type. Credentials: $SKILLC_REGISTRY_USERNAME/PASSWORD for the host
    /// $SKILLC_REGISTRY names, else docker's config.json entry for the host.
    Push(PushArgs),
    /// Pull an artifact (and its signature, if one travels with it) from an OCI registry,
    /// every digest checked before anything is written.
    Pull(PullArgs),
    /// Check an artifact's signature (ARTIFACT.minisig, minisign's format) with a public key.
    Verify(VerifyArgs),
    /// Compare two artifacts: skills and catalogs changed per client, locale and tier.
    Diff(DiffArgs),
    /// Write a bundle as portable agentskills.io folders.
    Export(ExportArgs),
}

/// `skillc catalog`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct CatalogArgs {
    /// The artifact.
    pub artifact: PathBuf,
    #[command(flatten)]
    pub bundle: BundleArgs,
    /// The consumer whose filters apply.
    #[arg(long)]
    pub consumer: Option<String>,
    /// Run-time context: page_url, turn, <skill>_availability, any key for context_has.
    #[arg(long, value_name = "KEY=VALUE")]
    pub context: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CatalogFormat::Markdown)]
    pub format: CatalogFormat,
}

/// `skillc prompt`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct PromptArgs {
    /// The artifact.
    pub artifact: PathBuf,
    #[command(flatten)]
    pub bundle: BundleArgs,
    /// The consumer whose filters apply (for SK ids and hidden skills).
    #[arg(long)]
    pub consumer: Option<String>,
    /// Selected skills: names, qualified names or SK ids.
    #[arg(long, value_delimiter = ',', required = true)]
    pub select: Vec<String>,
    /// Run-time context: page_url, turn, <skill>_availability, any key for context_has.
    #[arg(long, value_name = "KEY=VALUE")]
    pub context: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// `skillc route`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct RouteArgs {
    /// The artifact.
    pub artifact: PathBuf,
    /// The visitor's message.
    pub message: String,
    #[command(flatten)]
    pub bundle: BundleArgs,
    /// The consumer whose filters apply.
    #[arg(long)]
    pub consumer: Option<String>,
    /// Run-time context: page_url, turn, <skill>_availability, any key for context_has.
    #[arg(long, value_name = "KEY=VALUE")]
    pub context: Vec<String>,
    /// At most this many candidates (the workspace's `routing.top_k` by default).
    #[arg(long)]
    pub top: Option<usize>,
    /// A JSON file holding the message's embedding (for artifacts built with vectors).
    #[arg(long, value_name = "FILE")]
    pub query_vector: Option<PathBuf>,
    #[command(flatten)]
    pub history: HistoryArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// `skillc explain`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ExplainArgs {
    /// The artifact.
    pub artifact: PathBuf,
    /// The skill (name or qualified name).
    pub name: String,
    #[command(flatten)]
    pub bundle: BundleArgs,
    /// The consumer whose filters apply.
    #[arg(long)]
    pub consumer: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// `skillc mcp`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct McpArgs {
    /// The artifact (a new one renamed over it is served from the next call).
    pub artifact: PathBuf,
    #[command(flatten)]
    pub bundle: BundleArgs,
    /// The consumer whose filters apply.
    #[arg(long)]
    pub consumer: Option<String>,
    /// Serve only artifacts whose signature (ARTIFACT.minisig) this minisign public key
    /// verifies, on start and on every swap (a refused swap keeps the previous one).
    #[arg(long, value_name = "KEY")]
    pub public_key: Option<PathBuf>,
}

/// `skillc push`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct PushArgs {
    /// The artifact.
    pub artifact: PathBuf,
    /// Where: REGISTRY/REPOSITORY:TAG.
    pub target: String,
    #[command(flatten)]
    pub registry: RegistryArgs,
}

/// `skillc pull`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct PullArgs {
    /// What: REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@sha256:DIGEST.
    pub source: String,
    /// The file to write (replaced atomically; its signature goes beside it).
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub registry: RegistryArgs,
}

/// `skillc verify`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct VerifyArgs {
    /// The artifact.
    pub artifact: PathBuf,
    /// The public key (a `.pub` file from `skillc keygen` or `minisign -G`).
    #[arg(long, value_name = "KEY")]
    pub public_key: PathBuf,
}

/// `skillc diff`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// The older artifact.
    pub old: PathBuf,
    /// The newer artifact.
    pub new: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// `skillc export`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ExportArgs {
    /// The artifact.
    pub artifact: PathBuf,
    #[command(flatten)]
    pub bundle: BundleArgs,
    /// The folder to write (new or empty); with --target, the project whose client folder
    /// (`.claude/skills`, …) is written.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Write where this client reads skills, and say what its listing keeps of them.
    #[arg(long, value_enum)]
    pub target: Option<skillc::interop::targets::Target>,
    /// Write untrusted skills' code too (scripts and executables, MCP servers,
    /// `allowed-tools`): by default an export leaves it out and says what it left out.
    #[arg(long)]
    pub include_untrusted: bool,
}

/// `skillc check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The workspace folder.
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiagFormat::Text)]
    pub format: DiagFormat,
    /// Apply exactly the agentskills.io rules (portability issues become errors).
    #[arg(long)]
    pub strict_spec: bool,
    /// Print every warning in full (by default, past 50 warnings the first 20 are shown
    /// and the rest counted by code).
    #[arg(long)]
    pub all_warnings: bool,
    /// Print every error in full (by default, past 50 errors each distinct message is
    /// shown once, with its count and its first places).
    #[arg(long)]
    pub all_errors: bool,
    /// Check every file afresh: neither read nor write `.skillc/check-cache.json` (the
    /// last result, reused while every input file has the same content).
    #[arg(long)]
    pub no_cache: bool,
    /// Fail when skillc.lock is missing or does not pin exactly workspace.yaml's
    /// `external:` entries.
    #[arg(long)]
    pub locked: bool,
    /// Make these content-safety findings errors: codes (`S301`), families (`S3xx`) or
    /// levels (`high`: high and critical), comma-separated; added to `safety.deny`.
    #[arg(long, value_delimiter = ',', value_name = "S…|LEVEL")]
    pub deny: Vec<String>,
}

/// Which bundle of an artifact.
#[derive(Debug, clap::Args)]
pub(crate) struct BundleArgs {
    /// Client id (omitted: the global bundle).
    #[arg(long)]
    pub client: Option<String>,
    /// Locale (default: the workspace's default locale).
    #[arg(long)]
    pub locale: Option<String>,
    /// Tier (default: the workspace's first tier).
    #[arg(long)]
    pub tier: Option<String>,
}

impl BundleArgs {
    pub(crate) fn as_ref(&self) -> skillc_runtime::BundleRef<'_> {
        skillc_runtime::BundleRef {
            client: self.client.as_deref(),
            locale: self.locale.as_deref(),
            tier: self.tier.as_deref(),
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum CatalogFormat {
    Xml,
    Markdown,
    List,
    Json,
}

/// How `push` and `pull` reach a registry.
#[derive(Debug, clap::Args)]
pub(crate) struct RegistryArgs {
    /// Speak plain HTTP to the registry (one without TLS, on localhost); never the default.
    #[arg(long)]
    pub plain_http: bool,
    /// Send credentials over plain HTTP too (in clear text); without it they go over HTTPS only.
    #[arg(long, requires = "plain_http")]
    pub plain_http_credentials: bool,
    /// How long the registry may keep any request waiting (to connect, to answer, and for each
    /// next part of an answer) before the command fails.
    #[arg(long, value_name = "SECONDS", default_value_t = skillc::interop::oci::DEFAULT_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
}

/// The recent messages a route may join a fragment to (docs/routing.md, "Fragments").
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct HistoryArgs {
    /// The visitor's recent messages, oldest first (JSON lines or an array of {"text",
    /// "time"}): a fragment of the conversation is routed joined to them.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// When the message was sent: seconds or RFC 3339 (now by default).
    #[arg(long, value_name = "TIME", requires = "history")]
    pub time: Option<String>,
}
