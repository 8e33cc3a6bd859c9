//! Building and looking at the result: the build, what a client sees (catalog, prompt and
//! budget), the test cases, review and publish, and what changed since the previous build.

use std::path::PathBuf;

use serde::Serialize;
use skillc_runtime::{Artifact, BundleRef, Context, Format};

use super::disk::{Reader, Seen};
use super::{errors_of, io_err, write_atomic, Session};
use crate::error::{Diag, StudioError};

/// Whether `tests/` holds a case file (`*.yaml`, `*.yml`) or anything else named so.
fn has_case_files(root: &std::path::Path) -> bool {
    std::fs::read_dir(root.join("tests")).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".yaml") || name.ends_with(".yml")
        })
    })
}

/// What a build did.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct BuildSummary {
    /// Whether the artifact was written.
    pub written: bool,
    /// Number of errors (none written when there is one).
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
    /// The errors that stopped the build (warnings are counted only, as in [`Overview`]).
    pub diagnostics: Vec<Diag>,
    /// Content-safety findings at high or critical that are not errors: Review holds
    /// publishing on them as on errors.
    pub findings: Vec<Diag>,
    /// Bundles built.
    pub bundles: usize,
    /// Bytes of the artifact.
    pub bytes: u64,
    /// Its release label: the workspace's commit (`-dirty` with changes), when it is in git.
    pub release: Option<String>,
}

/// The catalog as a preview answers it: whole, or without its text and skills when it is the
/// `known` one (by digest); with its digest either way.
pub(super) fn catalog_answer(
    catalog: &skillc_runtime::Catalog,
    known: &str,
) -> (skillc_runtime::Catalog, String, bool) {
    let skills = serde_json::to_string(&catalog.skills).unwrap_or_default();
    let digest = skillc::digest::hash(format!("{}\0{skills}", catalog.text).as_bytes());
    if digest == known {
        let kept = skillc_runtime::Catalog {
            text: String::new(),
            skills: Vec::new(),
            ..catalog.clone()
        };
        return (kept, digest, true);
    }
    (catalog.clone(), digest, false)
}

/// A preview request.
#[derive(Debug, Clone, Default, serde::Deserialize, PartialEq, Eq, ts_rs::TS)]
#[serde(default)]
pub struct PreviewRequest {
    /// Client (empty: global).
    pub client: String,
    /// Locale (empty: default).
    pub locale: String,
    /// Tier (empty: default).
    pub tier: String,
    /// Consumer (empty: none).
    pub consumer: String,
    /// Page URL (empty: none).
    pub page_url: String,
    /// Turn (empty: none).
    pub turn: String,
    /// Selected skills: names or SK ids.
    pub selected: Vec<String>,
    /// Catalog format.
    pub format: String,
    /// Other context values (`company`, `<skill>_availability`, …) as `(key, value)`.
    pub context: Vec<(String, String)>,
    /// The `catalog_digest` of the catalog the page shows (empty: none). When the catalog is
    /// still that one, its text and skills are left out of the answer: a 1,000-skill catalog
    /// is most of an 800 KB answer, and a body edit does not change it.
    pub known_catalog: String,
    /// A visitor's message to route in the catalog (empty: none).
    pub message: String,
    /// The visitor's earlier messages in this conversation, oldest first, each with the
    /// seconds before `message` it was sent: a fragment is routed joined to them.
    pub history: Vec<(String, u64)>,
}

/// The workspace's test cases (`tests/*.yaml`) run against the last build.
#[derive(Debug, Clone, Default, Serialize, PartialEq, ts_rs::TS)]
pub struct TestRun {
    /// Each case with what did not hold (empty: it passed).
    pub outcomes: Vec<skillc::cases::Outcome>,
    /// Problems of the case files (unknown keys, clients, skills); their cases do not run.
    pub problems: Vec<Diag>,
}

/// What a client sees.
#[derive(Debug, Clone, Serialize, PartialEq, ts_rs::TS)]
pub struct Preview {
    /// The catalog (without its text and skills when `catalog_kept`).
    pub catalog: skillc_runtime::Catalog,
    /// A digest of the catalog's text and skills, for the next request's `known_catalog`.
    pub catalog_digest: String,
    /// The catalog is the one the request named as known: its text and skills are left out.
    pub catalog_kept: bool,
    /// The prompt for the selection.
    pub prompt: skillc_runtime::Prompt,
    /// Tokens of each skill's part of the prompt, by selectable name.
    pub skill_tokens: std::collections::BTreeMap<String, u32>,
    /// The catalog against its tier's budget.
    pub budget: BudgetMeter,
    /// The route of the request's message, when it has one.
    pub route: Option<skillc_runtime::route::Route>,
    /// The routing settings it was cut by.
    pub routing: skillc_runtime::route::RoutingSettings,
    /// The score the route's first candidate had to reach: `routing`'s cut, or above it for a
    /// message nearer small talk than any skill (none without a route).
    pub bar: Option<f64>,
    /// The score the candidates after the first had to reach: a little under `bar` when the
    /// catalog's bar cuts a route by words and meaning, `bar` otherwise (none without a route).
    pub tail: Option<f64>,
}

/// A bundle's markdown catalog (the one budgets are counted on) against its tier's budget.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct BudgetMeter {
    /// Tokens of the catalog as previewed (consumer and context applied).
    pub tokens: u32,
    /// Its characters.
    pub chars: usize,
    /// The tier's `catalog_token_budget`, if it has one.
    pub budget: Option<u64>,
    /// The budget level the build cut the catalog to (`''`: nothing was cut).
    pub level: String,
    /// What the build cut to meet the budget, in words.
    pub cut: Option<String>,
    /// What each client tool the workspace declares (`targets:`) lists of this catalog.
    pub targets: Vec<skillc::interop::targets::Report>,
}

/// What each declared client tool lists of a catalog: its skills' names and descriptions as
/// this bundle renders them, against the tool's budget.
fn target_meters(
    a: &Artifact,
    catalog: &skillc_runtime::Catalog,
) -> Vec<skillc::interop::targets::Report> {
    use skillc::interop::targets::{declared, Report};
    let skills = || (catalog.skills.iter()).map(|s| (s.name.as_str(), s.description.as_str()));
    (declared(a).into_iter())
        .map(|(target, budget)| Report::of(target, Some(budget), skills()))
        .collect()
}

/// The route of the request's message (none without one), joined to its earlier messages
/// when it is a fragment of the conversation, as a runtime given them routes it.
fn route_message(
    a: &Artifact,
    bundle: &BundleRef<'_>,
    consumer: Option<&str>,
    ctx: &Context,
    r: &PreviewRequest,
) -> Result<Option<skillc_runtime::route::Route>, skillc_runtime::Error> {
    let message = r.message.trim();
    if message.is_empty() {
        return Ok(None);
    }
    let history = skillc::cases::turns(&r.history);
    let query = skillc_runtime::route::Query {
        message,
        history: &history,
        time: Some(0.0),
        ..Default::default()
    };
    a.route_query(bundle, consumer, ctx, &query).map(Some)
}

/// The file a case saved from the preview goes to.
pub const ROUTING_CASES: &str = "tests/routing.yaml";

/// A routing case as YAML, in the key order people write them: name, request, expect.
fn route_case_yaml(
    r: &PreviewRequest,
    name: &str,
    routes_to: &[String],
) -> Result<String, StudioError> {
    use serde_yaml::{Mapping, Value};
    let text = |s: &str| Value::String(s.to_string());
    let mut request = Mapping::new();
    for (key, v) in [
        ("client", &r.client),
        ("locale", &r.locale),
        ("tier", &r.tier),
        ("consumer", &r.consumer),
    ] {
        if !v.is_empty() {
            request.insert(text(key), text(v));
        }
    }
    let mut context = Mapping::new();
    if !r.page_url.is_empty() {
        context.insert(text("page_url"), text(&r.page_url));
    }
    if !r.turn.is_empty() {
        context.insert(text("turn"), text(&r.turn));
    }
    for (k, v) in &r.context {
        context.insert(text(k), text(v));
    }
    if !context.is_empty() {
        request.insert(text("context"), Value::Mapping(context));
    }
    request.insert(text("message"), text(r.message.trim()));
    if !r.history.is_empty() {
        let turns = (r.history.iter())
            .map(|(said, ago)| {
                let mut turn = Mapping::new();
                turn.insert(text("text"), text(said));
                turn.insert(text("ago"), Value::Number((*ago).into()));
                Value::Mapping(turn)
            })
            .collect();
        request.insert(text("history"), Value::Sequence(turns));
    }
    let mut expect = Mapping::new();
    let names = routes_to.iter().map(|n| text(n)).collect();
    expect.insert(text("routes_to"), Value::Sequence(names));
    let mut case = Mapping::new();
    case.insert(text("name"), text(name));
    case.insert(text("request"), Value::Mapping(request));
    case.insert(text("expect"), Value::Mapping(expect));
    serde_yaml::to_string(&vec![Value::Mapping(case)]).map_err(io_err)
}

impl Session {
    /// Appends the preview's message and where it goes now to [`ROUTING_CASES`] as a case,
    /// the file's other lines untouched; returns the file.
    pub fn save_route_case(
        &self,
        r: &PreviewRequest,
        name: &str,
        routes_to: &[String],
    ) -> Result<String, StudioError> {
        if r.message.trim().is_empty() {
            return Err(StudioError::request("type the visitor's message first"));
        }
        let _written = super::disk::WritesOnDisk(&self.disk, Some(ROUTING_CASES));
        let path = self.inside(ROUTING_CASES)?;
        let mut text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                "# Which skill a visitor's message reaches, saved from Skill Studio's preview.\n"
                    .to_string()
            }
            Err(e) => return Err(io_err(e)),
        };
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&route_case_yaml(r, name, routes_to)?);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err)?;
        }
        write_atomic(&path, text.as_bytes())?;
        Ok(ROUTING_CASES.to_string())
    }

    /// Builds the artifact (keeping the previous one for [`Session::diff`]).
    pub fn build(&self, progress: Option<&skillc::Progress>) -> Result<BuildSummary, StudioError> {
        // One build at a time, from its first step (the diff's files below) to its last: the
        // studio's other commands run meanwhile.
        // A build that panicked has left nothing half-updated worth keeping: start over.
        let mut builds = self.builds.lock().unwrap_or_else(|poisoned| {
            self.builds.clear_poison();
            let mut fresh = poisoned.into_inner();
            // Still sharing the checks' memory, each of whose parts is replaced whole.
            *fresh = fresh.sharing_checks();
            fresh
        });
        let out = self.artifact();
        self.cache_dir()?;
        // The artifact as it is now becomes the diff's "before" once this build replaces it.
        // A hard link keeps it (the build swaps a new file in by rename) without copying it.
        let before = self.root.join(".skillc").join("before.db");
        let _ = std::fs::remove_file(&before);
        let kept = out.exists() && std::fs::hard_link(&out, &before).is_ok();
        // Labelled as `skillc build --release-label git` would (none outside git), so the
        // studio says which commit, and whether edits on top of it, its preview shows. The
        // label's `git status` runs beside the build's first phases.
        let label = std::sync::Mutex::new(None);
        let git_label = || {
            let found = skillc::release::git_label(&self.root).ok();
            *label.lock().unwrap_or_else(|e| e.into_inner()) = found.clone();
            found
        };
        let options = skillc::BuildOptions {
            jobs: None,
            progress,
            release: None,
            release_from: Some(&git_label),
            clients_per_batch: None,
            // A workspace with `routing.embedding_model` is embedded by $SKILLC_EMBEDDER.
            embedder: None,
            // The studio shows the warnings its builds find.
            check: skillc::CheckOptions::default(),
            warning_details: None,
        };
        // Between changes on disk, the build reads again only the files that changed.
        if let Seen::Files(files) = self.disk.look(Reader::Builds) {
            builds.assume_changed_only(files);
        }
        let report = skillc::rebuild(&self.root, &out, &options, &mut builds).map_err(io_err)?;
        // Only a build that wrote a new artifact moves the diff on.
        if kept && report.stats.is_some() && !report.unchanged {
            // The previous artifact's pages are freed when its last handle closes (9 ms for
            // the reference workload's 15 MB): closed on another thread, off the preview's way.
            let replaced = std::fs::File::open(self.previous()).ok();
            std::fs::rename(&before, self.previous()).map_err(io_err)?;
            std::thread::spawn(move || drop(replaced));
        } else {
            let _ = std::fs::remove_file(&before);
        }
        let errors = report.error_count();
        Ok(BuildSummary {
            written: report.stats.is_some(),
            errors,
            warnings: report.diagnostics.len() - errors,
            diagnostics: errors_of(&report.diagnostics),
            findings: (report.diagnostics.iter())
                .filter(|d| d.severity == skillc::Severity::Warning)
                .filter(|d| d.safety >= Some(skillc::SafetyLevel::High))
                .map(Diag::from)
                .collect(),
            bundles: report.stats.as_ref().map_or(0, |s| s.bundles),
            bytes: report.stats.as_ref().map_or(0, |s| s.bytes),
            release: label.into_inner().unwrap_or_else(|e| e.into_inner()),
        })
    }

    /// The catalog and the prompt a client sees, from the last build.
    pub fn preview(&self, r: &PreviewRequest) -> Result<Preview, StudioError> {
        let a = Artifact::open(self.artifact())
            .map_err(|e| StudioError::request(format!("build first: {e}")))?;
        let opt = |s: &str| (!s.is_empty()).then_some(s.to_string());
        let (client, locale, tier, consumer) = (
            opt(&r.client),
            opt(&r.locale),
            opt(&r.tier),
            opt(&r.consumer),
        );
        let bundle = BundleRef {
            client: client.as_deref(),
            locale: locale.as_deref(),
            tier: tier.as_deref(),
        };
        let mut pairs = Vec::new();
        if !r.page_url.is_empty() {
            pairs.push(("page_url", r.page_url.as_str()));
        }
        if !r.turn.is_empty() {
            pairs.push(("turn", r.turn.as_str()));
        }
        pairs.extend(r.context.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let ctx = Context::from_pairs(pairs).map_err(StudioError::request)?;
        let format = Format::parse(&r.format).unwrap_or(Format::Markdown);
        let req = |e: skillc_runtime::Error| StudioError::request(e.to_string());
        let catalog = a
            .catalog(&bundle, consumer.as_deref(), &ctx, format)
            .map_err(req)?;
        let picked: Vec<&str> = r
            .selected
            .iter()
            .map(String::as_str)
            .filter(|s| !s.trim().is_empty())
            .collect();
        let prompt = a
            .prompt(&bundle, consumer.as_deref(), &ctx, &picked)
            .map_err(req)?;
        let b = a.bundle(&bundle).map_err(req)?;
        let skill_tokens = prompt
            .skills
            .iter()
            .filter_map(|s| b.find(&s.name).map(|k| (s.name.clone(), k.prompt_tokens)))
            .collect();
        let markdown = a
            .catalog(&bundle, consumer.as_deref(), &ctx, Format::Markdown)
            .map_err(req)?;
        let budget = BudgetMeter {
            tokens: markdown.tokens,
            chars: markdown.text.chars().count(),
            budget: a.catalog_budget(&markdown.tier),
            level: b.catalog_level().to_string(),
            cut: b.catalog_cut(),
            targets: target_meters(&a, &markdown),
        };
        let route = route_message(&a, &bundle, consumer.as_deref(), &ctx, r).map_err(req)?;
        let (catalog, catalog_digest, catalog_kept) = catalog_answer(&catalog, &r.known_catalog);
        Ok(Preview {
            bar: route.as_ref().map(|r| r.bar),
            tail: route.as_ref().map(|r| r.tail),
            route,
            routing: a.routing_settings_of(&bundle).map_err(req)?,
            catalog,
            catalog_digest,
            catalog_kept,
            prompt,
            skill_tokens,
            budget,
        })
    }

    /// Runs the workspace's test cases against the last build.
    pub fn test_cases(&self) -> Result<TestRun, StudioError> {
        // Without case files there is nothing to check them against: every build refreshes
        // this list, and on a large workspace a check beside the preview slowed it down.
        if !has_case_files(&self.root) {
            return Ok(TestRun {
                outcomes: Vec::new(),
                problems: Vec::new(),
            });
        }
        let report = self.check()?;
        let (cases, problems) = skillc::cases::load(&self.root, &report.workspace);
        let problems: Vec<Diag> = problems.iter().map(Diag::from).collect();
        if cases.is_empty() {
            return Ok(TestRun {
                outcomes: Vec::new(),
                problems,
            });
        }
        let a = Artifact::open(self.artifact())
            .map_err(|e| StudioError::request(format!("build first: {e}")))?;
        Ok(TestRun {
            outcomes: cases.iter().map(|c| skillc::cases::run(&a, c)).collect(),
            problems,
        })
    }

    /// What changed since the previous build.
    pub fn diff(&self) -> Result<skillc::interop::diff::Diff, StudioError> {
        let open = |p: PathBuf| {
            Artifact::open(p)
                .map_err(|e| StudioError::request(format!("build twice to compare: {e}")))
        };
        let (old, new) = (open(self.previous())?, open(self.artifact())?);
        skillc::interop::diff::diff(&old, &new).map_err(|e| StudioError::request(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn a_route_is_previewed_and_saved_as_a_case_that_then_passes() {
        let (_d, s) = sample();
        s.build(None).unwrap();
        let r = PreviewRequest {
            client: "hyperline.co".into(),
            page_url: "/pricing".into(),
            message: "How much does the pro plan cost?".into(),
            format: "markdown".into(),
            ..PreviewRequest::default()
        };
        let p = s.preview(&r).unwrap();
        let route = p.route.unwrap();
        assert_eq!(route.candidates[0].name, "pricing");
        // hyperline.co sets its own min_score in its client.yaml.
        assert_eq!(p.routing.min_score, 0.6);
        let before = std::fs::read_to_string(s.root.join(ROUTING_CASES)).unwrap();
        let file = s
            .save_route_case(&r, "a price question", &["pricing".into()])
            .unwrap();
        let after = std::fs::read_to_string(s.root.join(&file)).unwrap();
        assert!(
            after.starts_with(&before),
            "the file's other lines stay as they were"
        );
        assert!(after.ends_with("    message: How much does the pro plan cost?\n  expect:\n    routes_to:\n    - pricing\n"), "{after}");
        s.build(None).unwrap();
        let run = s.test_cases().unwrap();
        assert!(run.problems.is_empty(), "{:?}", run.problems);
        let saved = run
            .outcomes
            .iter()
            .find(|o| o.case.name == "a price question")
            .unwrap();
        assert!(saved.passed(), "{:?}", saved.failures);
        let empty = PreviewRequest {
            message: " ".into(),
            ..r
        };
        assert_eq!(
            s.save_route_case(&empty, "x", &[]).unwrap_err().kind,
            "request"
        );
    }

    #[test]
    fn a_follow_up_is_routed_joined_to_the_conversation_and_saved_with_it() {
        let (_d, s) = sample();
        s.build(None).unwrap();
        let alone = PreviewRequest {
            message: "and also for the pro plan".into(),
            format: "markdown".into(),
            ..PreviewRequest::default()
        };
        let route = s.preview(&alone).unwrap().route.unwrap();
        assert_eq!(
            route.routed_text, None,
            "no conversation: the message alone"
        );
        let question = "how much does the basic plan cost?".to_string();
        let follow_up = PreviewRequest {
            history: vec![(question.clone(), 10)],
            ..alone.clone()
        };
        let route = s.preview(&follow_up).unwrap().route.unwrap();
        assert_eq!(
            route.routed_text.as_deref(),
            Some("how much does the basic plan cost? and also for the pro plan")
        );
        assert_eq!(route.candidates[0].name, "pricing");
        // Five minutes later it is a message of its own again.
        let later = PreviewRequest {
            history: vec![(question, 300)],
            ..alone
        };
        assert_eq!(s.preview(&later).unwrap().route.unwrap().routed_text, None);
        let file = s
            .save_route_case(&follow_up, "a follow-up", &["pricing".into()])
            .unwrap();
        let saved = std::fs::read_to_string(s.root.join(file)).unwrap();
        assert!(
            saved.contains(
                "    history:\n    - text: how much does the basic plan cost?\n      ago: 10\n"
            ),
            "{saved}"
        );
        s.build(None).unwrap();
        let run = s.test_cases().unwrap();
        let case = (run.outcomes.iter())
            .find(|o| o.case.name == "a follow-up")
            .unwrap();
        assert!(case.passed(), "{:?}", case.failures);
    }

    #[test]
    fn a_build_is_labelled_with_the_workspace_commit_when_there_is_one() {
        let (d, s) = sample();
        assert_eq!(s.build(None).unwrap().release, None, "not in git: no label");
        let ws = d.path().join("ws");
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-C"])
                .arg(&ws)
                .args(args)
                .output()
                .unwrap();
            assert!(ok.status.success(), "{ok:?}");
            String::from_utf8_lossy(&ok.stdout).trim().to_string()
        };
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        git(&["commit", "-qm", "skills"]);
        let head = git(&["rev-parse", "--short", "HEAD"]);
        let built = s.build(None).unwrap();
        assert_eq!(built.release.as_deref(), Some(head.as_str()));
        let a = skillc_runtime::Artifact::open(s.artifact()).unwrap();
        assert_eq!(a.release(), Some(head.as_str()));
    }

    #[test]
    fn the_sample_cases_pass_and_a_broken_one_fails_by_name() {
        let (_d, s) = sample();
        s.build(None).unwrap();
        let run = s.test_cases().unwrap();
        assert!(
            run.outcomes.len() >= 9 && run.problems.is_empty(),
            "{run:?}"
        );
        assert!(
            run.outcomes.iter().all(|o| o.passed()),
            "{:#?}",
            run.outcomes
        );
        std::fs::write(
            s.root().join("tests/broken.yaml"),
            "- name: Deliberately broken\n  request: {client: hyperline.co, select: [pricing]}\n  expect: {text_contains: [\"no such words\"]}\n",
        )
        .unwrap();
        s.disk().changed();
        let run = s.test_cases().unwrap();
        let failed: Vec<&skillc::cases::Outcome> =
            run.outcomes.iter().filter(|o| !o.passed()).collect();
        assert_eq!(failed.len(), 1, "{failed:#?}");
        assert_eq!(failed[0].case.name, "Deliberately broken");
        assert!(
            failed[0].failures[0].contains("no such words"),
            "{:?}",
            failed[0].failures
        );
    }

    #[test]
    fn a_secret_never_reaches_the_preview() {
        let (d, s) = sample();
        let ws = d.path().join("ws");
        let secret = "sk-live-studio-preview-7e1f";
        std::fs::create_dir_all(ws.join("public/api-key")).unwrap();
        std::fs::write(
            ws.join("public/api-key/SKILL.md"),
            "---\nname: api-key\ndescription: Calls the billing API.\nvars:\n  API_KEY: { required: true, secret: true }\n---\nAuthenticate with {{API_KEY}}.\n",
        )
        .unwrap();
        std::fs::write(
            ws.join("public/api-key/vars.json"),
            format!("{{\"API_KEY\": \"{secret}\"}}"),
        )
        .unwrap();
        s.build(None).unwrap();
        let p = s
            .preview(&PreviewRequest {
                selected: vec!["api-key".into()],
                format: "markdown".into(),
                ..PreviewRequest::default()
            })
            .unwrap();
        let shown = serde_json::to_string(&p).unwrap();
        assert!(shown.contains("Authenticate with {{API_KEY}}."), "{shown}");
        assert!(!shown.contains(secret), "the preview shows the secret");
    }

    #[test]
    fn build_preview_and_diff_show_what_a_client_sees() {
        let (_d, s) = sample();
        assert!(s.build(None).unwrap().written);
        let ignore = s.root().join(".skillc/.gitignore");
        assert_eq!(std::fs::read_to_string(ignore).unwrap(), "*\n");
        let req = PreviewRequest {
            client: "hyperline.co".into(),
            selected: vec!["competitors".into()],
            format: "markdown".into(),
            ..PreviewRequest::default()
        };
        let p = s.preview(&req).unwrap();
        assert!(p
            .prompt
            .skills
            .iter()
            .any(|k| k.name == "competitors" && k.resolved == "competitors_battlecard"));
        assert!(p.catalog.text.contains("| SK1 ") && !p.catalog_kept);
        // The page names the catalog it shows: while it is the same, it is not sent again.
        let known = PreviewRequest {
            known_catalog: p.catalog_digest.clone(),
            ..req.clone()
        };
        let again = s.preview(&known).unwrap();
        assert!(again.catalog_kept && again.catalog.text.is_empty());
        assert_eq!(
            (again.catalog_digest, again.catalog.tokens),
            (p.catalog_digest.clone(), p.catalog.tokens)
        );
        s.set_toggles(&[change("hyperline.co", "support", Some(false))])
            .unwrap();
        s.build(None).unwrap();
        let changed = s.preview(&known).unwrap();
        assert!(!changed.catalog_kept && !changed.catalog.text.is_empty());
        assert_ne!(changed.catalog_digest, p.catalog_digest);
        let d = s.diff().unwrap();
        assert!(d
            .bundles
            .iter()
            .any(|b| b.client == "hyperline.co" && b.removed == ["public.support"]));
        let p = s
            .preview(&PreviewRequest {
                selected: vec!["support".into()],
                ..req
            })
            .unwrap();
        assert_eq!(p.prompt.removed[0].reason, "disabled");
    }
}
