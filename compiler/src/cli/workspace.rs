//! The commands over a workspace that read it whole: `check`, `build`, `watch` and `test`.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::args::{
    BuildArgs, CheckArgs, EvalArgs, ExportCasesArgs, FetchArgs, OutputFormat, TestArgs, TestFormat,
    WatchArgs,
};
use super::report::{
    progress_line, render_machine, render_summarised, skill_count, warning_details, Shown,
};
use super::{Done, Failure};

/// `skillc test`: checks the workspace (case files included), builds it into a temporary
/// artifact and runs every case against it.
pub(crate) fn run_tests(args: &TestArgs) -> Done {
    use skillc::workspace_check::CaseRun;
    let workspace = &args.workspace;
    let display = workspace.to_string_lossy();
    let outcomes = match skillc::workspace_check::run_cases(workspace) {
        Ok(CaseRun::Ran(outcomes)) => outcomes,
        Ok(CaseRun::CheckFailed(errors)) => {
            eprint!("{}", skillc::render_text(&errors, &display));
            return Err(Failure::Errors(format!(
                "the workspace or its cases have {} errors; no case was run",
                errors.len()
            )));
        }
        Ok(CaseRun::BuildFailed(diagnostics)) => {
            eprint!("{}", skillc::render_text(&diagnostics, &display));
            return Err(Failure::Errors(
                "the build failed; no case was run".to_string(),
            ));
        }
        Err(e) => return Err(Failure::usage(e)),
    };
    let text = match args.format {
        TestFormat::Text => skillc::cases::render_text(&outcomes),
        TestFormat::Json => skillc::cases::render_json(&outcomes) + "\n",
        TestFormat::Junit => skillc::cases::render_junit(&outcomes),
    };
    out!("{text}");
    if outcomes.iter().all(|o| o.passed()) {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}

/// `skillc export-cases`: the routing cases about one skill in another tool's format, to
/// `output` or stdout; the cases the format cannot carry are named on stderr.
pub(crate) fn export_cases(args: &ExportCasesArgs) -> Done {
    use skillc::cases::export::{self, CaseFormat};
    let (workspace, skill) = (args.workspace.as_path(), args.skill.as_deref());
    let report = skillc::workspace_check::check(workspace, &skillc::CheckOptions::default())
        .map_err(Failure::usage)?;
    if !report.is_ok() {
        let errors: Vec<_> = (report.diagnostics.into_iter())
            .filter(|d| d.severity == skillc::Severity::Error)
            .collect();
        eprint!(
            "{}",
            skillc::render_text(&errors, &workspace.to_string_lossy())
        );
        return Err(Failure::Errors(format!(
            "the workspace or its cases have {} errors; nothing was written",
            errors.len()
        )));
    }
    let (cases, _) = skillc::cases::load(workspace, &report.workspace);
    let about = export::skills_of(&cases);
    let skill = match (skill, about.as_slice()) {
        (Some(s), _) if report.workspace.skills.iter().any(|k| k.name == s) => s.to_string(),
        (Some(s), _) => return Err(Failure::Usage(format!("no skill `{s}` in the workspace"))),
        (None, [one]) => one.clone(),
        (None, []) => return Err(Failure::Usage("the workspace has no routing cases".into())),
        (None, many) => {
            return Err(Failure::Usage(format!(
                "the routing cases are about {} skills ({}): name one with --skill (a file of \
                 this format holds one skill's cases)",
                many.len(),
                many.join(", ")
            )))
        }
    };
    let format = match args.format {
        super::args::CasesFormat::SkillCreator => CaseFormat::SkillCreator,
        super::args::CasesFormat::Agentskills => CaseFormat::AgentSkills,
    };
    let out = export::export(&cases, &skill, format);
    match args.output.as_deref() {
        Some(file) => std::fs::write(file, &out.text)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", file.display())))?,
        None => out!("{}", out.text),
    }
    for (name, why) in &out.left_out {
        eprintln!("left out: {name}: {why}");
    }
    eprintln!(
        "{} cases about `{skill}` written, {} left out; beside the skill it goes in {}",
        out.written,
        out.left_out.len(),
        format.file_in_skill()
    );
    Ok(())
}

/// `skillc eval`: routing figures per bundle; exit 1 under `--min-recall`.
pub(crate) fn run_eval(args: &EvalArgs) -> Done {
    use skillc::cases::eval;
    use skillc::workspace_check::CaseRun;
    let (workspace, min_recall) = (&args.workspace, args.min_recall);
    if let Some(r) = min_recall.filter(|r| !(0.0..=1.0).contains(r)) {
        return Err(Failure::Usage(format!(
            "--min-recall takes a share from 0 to 1, not {r}"
        )));
    }
    let selector = selector_of(args)?;
    let display = workspace.to_string_lossy();
    let embedder = args.embedder.as_deref();
    let hybrid = std::cell::Cell::new(false);
    let run = skillc::workspace_check::with_fresh_build(workspace, embedder, |a, cases| {
        let (locale, tier) = (args.locale.as_deref(), args.tier.as_deref());
        let names = eval::bundles_to_evaluate(a, &args.client, locale, tier);
        let bundles: Vec<skillc_runtime::BundleRef<'_>> =
            names.iter().map(eval::bundle_ref).collect();
        // Progress on a terminal only: a piped eval (CI) stays quiet.
        let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let show: eval::Progress<'_> = &progress_line;
        // With vectors in the artifact, messages route by words and vectors.
        let embed = |messages: &[String]| skillc::message_vectors(a, messages, embedder, workspace);
        let embed: Option<&eval::Embed<'_>> = a.embedding_model().map(|_| &embed as _);
        hybrid.set(embed.is_some());
        let (selector, progress) = (selector.as_ref(), tty.then_some(show));
        // By the index alone, with the artifact's own meaning or none, a route needs nothing
        // from outside: the bundles are measured side by side on every core.
        let own_meaning =
            a.embedding_model().is_none() || a.meaning_vector("").ok().flatten().is_some();
        let evals = match selector.is_none() && own_meaning {
            true => eval::evaluate_side_by_side(a, &bundles, cases),
            false => eval::evaluate(a, &bundles, cases, selector, embed, progress),
        };
        if tty {
            eprint!("\r\x1b[2K");
        }
        evals.map_err(|e| e.to_string())
    });
    let evals = match run {
        Ok(CaseRun::Ran(evals)) => evals,
        Ok(CaseRun::CheckFailed(errors)) | Ok(CaseRun::BuildFailed(errors)) => {
            eprint!("{}", skillc::render_text(&errors, &display));
            return Err(Failure::Errors(
                "the workspace does not build; nothing was evaluated".to_string(),
            ));
        }
        Err(e) => return Err(Failure::Errors(e)),
    };
    out!(
        "{}",
        match args.format {
            OutputFormat::Text => eval::render_eval_text(&evals),
            OutputFormat::Json =>
                eval::render_eval_json(&evals, if hybrid.get() { "hybrid" } else { "lexical" }),
        }
    );
    recall_gate(&evals, min_recall)
}

/// `--min-recall`: exit 1 naming every bundle whose recall@k is under it.
fn recall_gate(evals: &[skillc::cases::eval::BundleEval], min_recall: Option<f64>) -> Done {
    let Some(min) = min_recall else {
        return Ok(());
    };
    let under: Vec<String> = (evals.iter())
        .filter(|e| e.figures.recall_at_k < min)
        .map(|e| {
            let who = e.client.as_deref().unwrap_or("global");
            format!("{who} ({:.3})", e.figures.recall_at_k)
        })
        .collect();
    if under.is_empty() {
        Ok(())
    } else {
        Err(Failure::Errors(format!(
            "recall@k under --min-recall {min}: {}",
            under.join(", ")
        )))
    }
}

/// The selector `--selector`, `--samples` and `--selector-timeout` describe, if any.
fn selector_of(args: &EvalArgs) -> Result<Option<skillc::cases::selector::Selector>, Failure> {
    let Some(command) = args.selector.as_deref().map(str::trim) else {
        return match args.samples {
            Some(_) => Err(Failure::Usage(
                "--samples repeats the calls of --selector CMD; give a selector too".to_string(),
            )),
            None => Ok(None),
        };
    };
    if command.is_empty() {
        return Err(Failure::Usage("--selector needs a command".to_string()));
    }
    let samples = args.samples.unwrap_or(1);
    if samples == 0 {
        return Err(Failure::Usage("--samples takes 1 or more".to_string()));
    }
    let timeout = args.selector_timeout;
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(Failure::Usage(
            "--selector-timeout takes a number of seconds above 0".to_string(),
        ));
    }
    Ok(Some(skillc::cases::selector::Selector {
        command: command.to_string(),
        samples,
        timeout: std::time::Duration::from_secs_f64(timeout.min(86_400.0)),
    }))
}

/// The release label `--release-label` asks for (`git`: the workspace's commit).
fn release_of(workspace: &Path, label: Option<&str>) -> Result<Option<String>, String> {
    match label.map(str::trim) {
        None => Ok(None),
        Some("git") => skillc::release::git_label(workspace)
            .map(Some)
            .map_err(|e| format!("--release-label git: {e}")),
        Some("") => Err("--release-label needs a label (or `git`)".to_string()),
        Some(label) => Ok(Some(label.to_string())),
    }
}

/// `built out.db in 1.91s: 3500 skills, ... (1.96x the 8561097 bytes of distinct sources)`;
/// the built-in meaning table, the same 8 MB in every artifact, is counted apart.
fn built_summary(output: &Path, secs: f64, s: &skillc::BuildStats) -> String {
    let own = s.bytes.saturating_sub(s.meaning_bytes);
    let mut ratio = match s.source_bytes {
        0 => "no source bytes".to_string(),
        n => format!(
            "{:.2}x the {n} bytes of distinct sources",
            own as f64 / n as f64
        ),
    };
    if s.meaning_bytes > 0 {
        ratio.push_str(&format!(", and the built-in meaning's {}", s.meaning_bytes));
    }
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

/// `skillc build` (after `--locked`): the diagnostics, then the artifact put in place (signed
/// first with `--sign`) and a summary of it.
pub(crate) fn build(args: &BuildArgs) -> Done {
    use std::io::IsTerminal;
    locked(&args.workspace, args.locked)?;
    let (workspace, output) = (args.workspace.as_path(), args.output.as_path());
    let release = release_of(workspace, args.release_label.as_deref()).map_err(Failure::Usage)?;
    // A key that cannot sign fails the command before anything is built or written.
    let key = (args.sign.as_deref())
        .map(skillc::sign::SecretKey::read)
        .transpose()
        .map_err(Failure::usage)?;
    let tty = std::io::stderr().is_terminal();
    let show: &(dyn Fn(&str, usize, usize) + Sync) = &progress_line;
    let options = skillc::BuildOptions {
        jobs: args.jobs,
        progress: tty.then_some(show),
        release,
        release_from: None,
        clients_per_batch: None,
        embedder: args.embedder.as_deref(),
        check: skillc::CheckOptions::default(),
        warning_details: warning_details(args.format, args.all_warnings),
    };
    let started = std::time::Instant::now();
    let unsigned = unsigned_place(workspace, output, key.is_some())?;
    let written = unsigned.as_deref().unwrap_or(output);
    let result = skillc::build(workspace, written, &options);
    if tty {
        eprint!("\r\x1b[2K");
    }
    let report = result.map_err(Failure::usage)?;
    let machine = print_build_diagnostics(&report, args);
    let Some(stats) = &report.stats else {
        eprintln!(
            "build failed: {} errors; {} was not written",
            report.error_count(),
            output.display()
        );
        return Err(Failure::Reported);
    };
    if let (Some(key), Some(unsigned)) = (&key, &unsigned) {
        sign_into_place(key, unsigned, output)?;
    }
    let summary = built_summary(output, started.elapsed().as_secs_f64(), stats);
    // Machine formats own stdout (SARIF is one JSON document): the summary goes aside.
    if machine {
        eprintln!("{summary}");
    } else {
        outln!("{summary}");
    }
    Ok(())
}

/// Where a build to be signed writes first (`None`: unsigned, straight to its place).
/// Signed, the artifact is built beside its place, signed, and put in place after its
/// signature: a runtime that checks signatures never sees the new file with the old one.
/// The place is checked as an unsigned build checks it (never a device, a folder or one
/// of the workspace's files), and a link to a file is followed, before anything is built.
fn unsigned_place(
    workspace: &Path,
    output: &Path,
    signed: bool,
) -> Result<Option<PathBuf>, Failure> {
    if !signed {
        return Ok(None);
    }
    skillc::guard_output(workspace, output).map_err(Failure::usage)?;
    Ok(Some(unsigned_path(&skillc::output_file(output))))
}

/// Prints a build's diagnostics: a machine format (`--format`) on stdout, else the summarised
/// text on stderr. Says whether stdout holds a machine format.
fn print_build_diagnostics(report: &skillc::BuildReport, args: &BuildArgs) -> bool {
    let display = args.workspace.to_string_lossy();
    let machine = render_machine(&report.diagnostics, &display, args.format);
    let shown = Shown {
        all_warnings: args.all_warnings,
        all_errors: args.all_errors,
    };
    match &machine {
        Some(text) => out!("{text}"),
        None => eprint!(
            "{}",
            render_summarised(&report.diagnostics, &display, shown)
        ),
    }
    machine.is_some()
}

/// `--locked`: the lock must pin exactly the workspace's `external:` entries.
fn locked(workspace: &Path, locked: bool) -> Done {
    if !locked {
        return Ok(());
    }
    let (config, _) = skillc::workspace_config(workspace).map_err(Failure::usage)?;
    let lock = skillc::interop::fetch::read_lock(workspace)
        .map_err(|e| Failure::Errors(format!("--locked: {e}")))?;
    skillc::model::external::check_locked(&config.external, lock.as_ref()).map_err(Failure::Errors)
}

/// `skillc fetch`: pins and stores the `external:` entries; prints what each became.
pub(crate) fn fetch(args: &FetchArgs) -> Done {
    use skillc::interop::fetch::Update;
    let workspace = &args.workspace;
    let (config, diagnostics) = skillc::workspace_config(workspace).map_err(Failure::usage)?;
    let errors: Vec<&skillc::Diagnostic> = (diagnostics.iter())
        .filter(|d| d.severity == skillc::diagnostic::Severity::Error)
        .collect();
    if !errors.is_empty() {
        let display = workspace.to_string_lossy();
        let owned: Vec<skillc::Diagnostic> = errors.into_iter().cloned().collect();
        eprint!("{}", render_summarised(&owned, &display, Shown::default()));
        return Err(Failure::Reported);
    }
    if config.external.is_empty() {
        outln!("workspace.yaml has no `external:` entries: nothing to fetch");
        return Ok(());
    }
    let update = match args.update.as_deref() {
        None => Update::None,
        Some("") => Update::All,
        Some(name) => Update::Only(name.to_string()),
    };
    let external = &config.external;
    let done =
        skillc::interop::fetch::fetch_admitting(workspace, external, &update, args.accept_findings)
            .map_err(|e| Failure::Errors(e.to_string()))?;
    for f in &done {
        let short = skillc::model::external::short(&f.commit, 12);
        let how = match (&f.moved_from, f.fetched) {
            (Some(old), _) => format!("moved from {}", skillc::model::external::short(old, 12)),
            (None, true) => "fetched".to_string(),
            (None, false) => "already pinned and stored".to_string(),
        };
        outln!("{}: {short}, {} files ({how})", f.into, f.files);
    }
    outln!(
        "wrote {}",
        workspace.join(skillc::model::external::LOCK_FILE).display()
    );
    Ok(())
}

/// Where a build to be signed writes first: beside `output`.
fn unsigned_path(output: &Path) -> PathBuf {
    let name = output.file_name().map_or_else(
        || "artifact.db".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    output.with_file_name(format!(".{name}.{}.unsigned", std::process::id()))
}

/// Signs the built file `unsigned`, writes the signature as `output`'s (beside the path given,
/// where a runtime opening that path looks), then renames the file to what `output` names.
/// On failure the built file is removed and `output` is as it was.
fn sign_into_place(key: &skillc::sign::SecretKey, unsigned: &Path, output: &Path) -> Done {
    let name = output
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let signed = key
        .sign(unsigned, &name)
        .and_then(|text| skillc::sign::write_signature(output, &text))
        .map_err(Failure::usage)
        .and_then(|_| {
            std::fs::rename(unsigned, skillc::output_file(output)).map_err(|e| {
                Failure::Usage(format!("cannot put `{}` in place: {e}", output.display()))
            })
        });
    if signed.is_err() {
        let _ = std::fs::remove_file(unsigned);
    }
    signed
}

/// What `watch` prints of a build's diagnostics: the first build's as `build` prints them;
/// after that every error, and only the warnings that the last complete build did not have,
/// with a count of the rest (on a large workspace, thousands of the same warnings after every
/// save would bury what the save changed).
#[derive(Default)]
struct WatchDiagnostics {
    /// The warnings of the last build that wrote the artifact, each by a hash of its code,
    /// file and message (a line moved by an edit above it is the same warning). Hashes, not
    /// copies: the reference workload's 7,000 warnings were copied after every save.
    last: Option<std::collections::HashSet<u64>>,
}

impl WatchDiagnostics {
    fn text(&mut self, report: &skillc::BuildReport, display: &str) -> String {
        use std::hash::BuildHasher;
        let warning = |d: &&skillc::Diagnostic| d.severity != skillc::Severity::Error;
        // Fixed keys: the hashes of one build are compared with the next's.
        let hasher =
            std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
        let key = |d: &skillc::Diagnostic| hasher.hash_one((d.code, &d.file, &d.message));
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

pub(crate) fn watch(args: &WatchArgs) -> Done {
    let (workspace, output) = (&args.workspace, &args.output);
    let display = workspace.to_string_lossy().into_owned();
    let mut diagnostics = WatchDiagnostics::default();
    let result = skillc::watch::watch(workspace, output, |event| match event {
        skillc::watch::Event::Built { report, millis } => {
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
        skillc::watch::Event::Failed(e) => eprintln!("error: {e} (still watching)"),
    });
    result.map_err(Failure::usage)
}

/// `skillc check`.
pub(crate) fn check(args: &CheckArgs) -> Done {
    locked(&args.workspace, args.locked)?;
    let CheckArgs {
        workspace,
        format,
        strict_spec,
        no_cache,
        deny,
        ..
    } = args;
    let (format, strict_spec, no_cache) = (*format, *strict_spec, *no_cache);
    let shown = Shown {
        all_warnings: args.all_warnings,
        all_errors: args.all_errors,
    };
    if let Some(bad) = deny.iter().find(|e| !skillc::is_deny_entry(e)) {
        return Err(Failure::usage(format!(
            "--deny `{bad}`: expected S codes (S301), families (S3xx) or levels (low, medium, high, critical)"
        )));
    }
    let options = skillc::CheckOptions {
        strict_spec,
        ..Default::default()
    };
    let checked = if no_cache {
        skillc::check(workspace, &options).map(skillc::workspace_check::cache::Checked::from)
    } else {
        skillc::workspace_check::cache::check(workspace, &options)
    };
    let mut report = checked.map_err(Failure::usage)?;
    skillc::apply_deny(&mut report.diagnostics, deny);
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
            return Err(Failure::usage(format!("cannot write the output: {e}")));
        }
        _ => {}
    }
    if errors == 0 {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}
