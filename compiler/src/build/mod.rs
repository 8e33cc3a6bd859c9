//! `skillc build`: check → resolve every bundle → render → write the artifact (SPEC 4, 6).

pub mod artifact;
pub mod watch;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::diagnostic::{codes, Diagnostic, Pos, Severity};
use crate::model::{Scope, Workspace};
use crate::parse::load;
use crate::render::tokens;
use crate::render::{self, Entry, Renderer};
use crate::resolve::pool;
use crate::resolve::{self, BundleSpec, EntryKey, Slot};
use crate::CheckOptions;
use artifact::{BundleRow, CategoryRow, Data, EntryRow};

/// A progress callback: (phase, done, total).
pub type Progress = dyn Fn(&str, usize, usize) + Sync;

/// A catalog fragment: (budget level, format, text, tokens).
pub type Fragment = (String, &'static str, String, u32);

/// How to build.
#[derive(Default)]
pub struct BuildOptions<'a> {
    /// Worker threads (`None`: one per core).
    pub jobs: Option<usize>,
    /// Called with (phase, done, total) as the build goes.
    pub progress: Option<&'a Progress>,
}

/// Figures of a written artifact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Skills in the workspace.
    pub skills: usize,
    /// Bundles built.
    pub bundles: usize,
    /// Distinct resolved entries stored.
    pub entries: usize,
    /// Distinct blobs stored.
    pub blobs: usize,
    /// Bytes of the artifact.
    pub bytes: u64,
    /// Bytes of the workspace's distinct input files.
    pub source_bytes: u64,
}

/// The outcome of a build.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// Diagnostics of the check and the build, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// Set when the artifact was written.
    pub stats: Option<BuildStats>,
}

impl BuildReport {
    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}

/// Failures of the environment during a build.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading the workspace failed.
    #[error(transparent)]
    Workspace(#[from] crate::discover::fsio::Error),
    /// Writing the artifact failed.
    #[error(transparent)]
    Artifact(#[from] artifact::Error),
    /// The worker threads could not start.
    #[error("cannot start {0} worker threads")]
    Threads(usize),
    /// The output path is one of the workspace's input files.
    #[error("`{0}` is a file of the workspace (an input); write the artifact elsewhere, e.g. outside the workspace folder")]
    OutputIsInput(std::path::PathBuf),
}

/// Refuses an output path that names an existing file inside the workspace unless it is a
/// previous artifact (a new file there is fine: artifacts are never read as input).
pub fn guard_output(root: &Path, out: &Path) -> Result<(), Error> {
    let Ok(root) = root.canonicalize() else {
        return Ok(()); // reading the workspace reports it
    };
    let Ok(existing) = out.canonicalize() else {
        return Ok(());
    };
    if !existing.starts_with(&root) {
        return Ok(());
    }
    if crate::discover::fsio::is_artifact_file(&existing) {
        Ok(())
    } else {
        Err(Error::OutputIsInput(out.to_path_buf()))
    }
}

/// Builds the workspace at `root` into the artifact `out`. Nothing is written when the
/// workspace has errors.
pub fn build(root: &Path, out: &Path, options: &BuildOptions<'_>) -> Result<BuildReport, Error> {
    guard_output(root, out)?;
    let run = || -> Result<BuildReport, Error> {
        progress(options, "reading", 0, 1);
        let loaded = load::load_dir(root)?;
        let (input_hash, source_bytes) = input_hash(&loaded);
        let report = crate::check::finish(loaded, &CheckOptions::default());
        if !report.is_ok() {
            return Ok(BuildReport {
                diagnostics: report.diagnostics,
                stats: None,
            });
        }
        let mut diagnostics = report.diagnostics;
        let data = match compile(&report.workspace, &input_hash, &diagnostics, options) {
            Ok((data, warnings)) => {
                diagnostics.extend(warnings);
                data
            }
            Err(errors) => {
                diagnostics.extend(errors);
                crate::diagnostic::sort(&mut diagnostics);
                return Ok(BuildReport {
                    diagnostics,
                    stats: None,
                });
            }
        };
        progress(options, "writing", 0, 1);
        let bytes = artifact::write(out, &data)?;
        progress(options, "writing", 1, 1);
        crate::diagnostic::sort(&mut diagnostics);
        Ok(BuildReport {
            diagnostics,
            stats: Some(BuildStats {
                skills: report.workspace.skills.len(),
                bundles: data.bundles.len(),
                entries: data.entries.len(),
                blobs: data.blobs.len(),
                bytes,
                source_bytes,
            }),
        })
    };
    match options.jobs {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|_| Error::Threads(n))?
            .install(run),
        None => run(),
    }
}

fn progress(options: &BuildOptions<'_>, phase: &str, done: usize, total: usize) {
    if std::env::var_os("SKILLC_TIMING").is_some() && (done == total || done == 0) {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        let t = START.get_or_init(std::time::Instant::now);
        eprintln!(
            "[{:>8.3}s] {phase} {done}/{total}",
            t.elapsed().as_secs_f64()
        );
    }
    if let Some(p) = options.progress {
        p(phase, done, total);
    }
}

/// sha256 hex of `data`.
pub fn hash(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hash of every input file (path and content, in path order) and the bytes of the distinct
/// inputs.
fn input_hash(loaded: &load::Loaded) -> (String, u64) {
    let mut h = Sha256::new();
    let mut distinct: BTreeSet<String> = BTreeSet::new();
    let mut bytes = 0u64;
    let mut count = |data: &[u8]| {
        if distinct.insert(hash(data)) {
            bytes += data.len() as u64;
        }
    };
    for (path, text) in &loaded.texts {
        h.update(path.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
        count(text.as_bytes());
    }
    for s in &loaded.workspace.skills {
        for a in &s.assets {
            h.update(format!("{}/{}", s.dir, a.path).as_bytes());
            h.update([0]);
            h.update(&a.data);
            h.update([0]);
            count(&a.data);
        }
    }
    (format!("{:x}", h.finalize()), bytes)
}

/// Glob match with `*` for any run of characters.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `consumer`'s filters show a skill (002: enabled lists win, else disabled removes).
pub fn consumer_shows(c: &crate::model::Consumer, qualified: &str) -> bool {
    if !c.enabled.is_empty() {
        return c.enabled.iter().any(|p| wildcard(p, qualified));
    }
    !c.disabled.iter().any(|p| wildcard(p, qualified))
}

/// Category order: `order`, then id; uncategorized last.
fn category_rows(
    ws: &Workspace,
    renderer: &Renderer,
) -> Result<Vec<CategoryRow>, render::RenderError> {
    let mut cats: BTreeMap<String, crate::model::Category> = ws.categories.clone();
    for s in &ws.skills {
        if let Some(c) = &s.category {
            cats.entry(c.clone())
                .or_insert_with(|| crate::model::Category {
                    id: c.clone(),
                    order: i64::MAX,
                    ..Default::default()
                });
        }
    }
    let mut list: Vec<crate::model::Category> = cats.into_values().collect();
    list.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
    list.push(crate::model::Category {
        id: String::new(),
        display_name: Some("Other skills".to_string()),
        order: i64::MAX,
        ..Default::default()
    });
    list.iter()
        .enumerate()
        .map(|(i, c)| {
            let [h, p, u] = renderer.category_fragments(c)?;
            Ok(CategoryRow {
                id: c.id.clone(),
                position: i as i64,
                display_name: c.display_name.clone().unwrap_or_else(|| c.id.clone()),
                hidden: c.hidden_from_llm,
                fragments: [(tokens_of(&h), h), (tokens_of(&p), p), (tokens_of(&u), u)]
                    .map(|(t, s)| (s, t)),
            })
        })
        .collect()
}

fn tokens_of(s: &str) -> u32 {
    tokens::count(s)
}

/// Resolves, renders and lays out every table of the artifact.
pub fn compile(
    ws: &Workspace,
    input_hash: &str,
    check_warnings: &[Diagnostic],
    options: &BuildOptions<'_>,
) -> Result<(Data, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (renderer, template_diags) = Renderer::new(ws);
    if template_diags.iter().any(|d| d.severity == Severity::Error) {
        return Err(template_diags);
    }
    let fail = |e: render::RenderError| {
        vec![Diagnostic::new(
            codes::BUILD_FAILED,
            &e.file,
            Pos::start(),
            e.message,
        )]
    };
    let mut warnings = template_diags;
    let prepared = resolve::prepare(ws);
    let pool = pool::build(ws);
    let specs = resolve::bundles(ws);

    // Resolve every bundle: the global ones in full, each client's only where it can differ
    // from the global bundle of the same locale and tier (the rest is shared with it).
    let global_index: BTreeMap<(&str, &str), usize> = specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.client.is_none())
        .map(|(i, s)| ((s.locale.as_str(), s.tier.as_str()), i))
        .collect();
    let base_of: Vec<Option<usize>> = specs
        .iter()
        .map(|s| {
            s.client.as_ref().and_then(|_| {
                global_index
                    .get(&(s.locale.as_str(), s.tier.as_str()))
                    .copied()
            })
        })
        .collect();
    let affected: BTreeMap<&str, BTreeSet<String>> = ws
        .clients
        .keys()
        .collect::<Vec<_>>()
        .par_iter()
        .map(|c| (c.as_str(), prepared.affected(c)))
        .collect();
    let done = AtomicUsize::new(0);
    let total = specs.len();
    let count_one = || {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(256) || n == total {
            progress(options, "resolving bundles", n, total);
        }
    };
    let mut resolved: Vec<BTreeMap<String, Slot>> = specs
        .par_iter()
        .map(|spec| {
            // Client bundles are counted once, when their differences are resolved below.
            match spec.client {
                None => {
                    let r = prepared.resolve(spec);
                    count_one();
                    r
                }
                Some(_) => BTreeMap::new(),
            }
        })
        .collect();
    let deltas: Vec<(usize, BTreeMap<String, Slot>)> = specs
        .par_iter()
        .enumerate()
        .filter_map(|(b, spec)| {
            let client = spec.client.as_deref()?;
            let base = &resolved[base_of[b]?];
            let names = &affected[client];
            let mut own = prepared.resolve_some(spec, Some((names, base)));
            // Keep only what differs from the base.
            own.retain(|q, slot| base.get(q) != Some(slot));
            count_one();
            Some((b, own))
        })
        .collect();
    for (b, own) in deltas {
        resolved[b] = own;
    }
    // A client bundle's full view: its own differences over its base.
    let full_view = |b: usize| -> Vec<&Slot> {
        match base_of[b] {
            None => resolved[b].values().collect(),
            Some(g) => {
                let own = &resolved[b];
                resolved[g]
                    .iter()
                    .filter(|(q, _)| !own.contains_key(*q))
                    .map(|(_, s)| s)
                    .chain(own.values())
                    .collect()
            }
        }
    };

    // Distinct entries, in a deterministic order.
    let keys: Vec<EntryKey> = resolved
        .iter()
        .flat_map(|b| b.values())
        .filter_map(|s| match s {
            Slot::Entry(k) => Some(k.clone()),
            Slot::Removed(_) => None,
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let key_index: BTreeMap<&EntryKey, usize> =
        keys.iter().enumerate().map(|(i, k)| (k, i)).collect();

    let categories = category_rows(ws, &renderer).map_err(fail)?;
    let position: BTreeMap<&str, i64> = categories
        .iter()
        .map(|c| (c.id.as_str(), c.position))
        .collect();

    let done = AtomicUsize::new(0);
    let total = keys.len();
    let mut entries: Vec<(Entry, render::PromptParts)> = keys
        .par_iter()
        .map(|k| {
            let e = render::build_entry(&prepared, &pool, k);
            let prompt = renderer.prompt_fragment(&e)?;
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(256) || n == total {
                progress(options, "rendering entries", n, total);
            }
            Ok((e, prompt))
        })
        .collect::<Result<_, render::RenderError>>()
        .map_err(fail)?;
    // Count each distinct text once: bodies repeat across locales and tiers without their own.
    let texts: BTreeSet<&str> = entries
        .iter()
        .flat_map(|(e, p)| [e.body.as_str(), p.prefix.as_str(), p.suffix.as_str()])
        .collect();
    let counted: BTreeMap<&str, u32> = texts.into_par_iter().map(|t| (t, tokens_of(t))).collect();
    let counts: Vec<(u32, u32)> = entries
        .iter()
        .map(|(e, p)| {
            let body = counted[e.body.as_str()];
            let around = counted[p.prefix.as_str()] + counted[p.suffix.as_str()];
            (body, around + if p.has_body { body } else { 0 })
        })
        .collect();
    drop(counted);
    let mut prompt_tokens = Vec::with_capacity(entries.len());
    for ((e, _), (body, prompt)) in entries.iter_mut().zip(counts) {
        e.body_tokens = body;
        prompt_tokens.push(prompt);
    }

    // Cards: what catalogs show, shared by entries that differ only in their body.
    let card_index: BTreeMap<render::Card, usize> = entries
        .iter()
        .map(|(e, _)| e.card())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c, i))
        .collect();
    let cards: Vec<&render::Card> = card_index.keys().collect();
    let entry_card: Vec<usize> = entries.iter().map(|(e, _)| card_index[&e.card()]).collect();
    let render_cards =
        |wanted: &[(usize, String)]| -> Result<Vec<(usize, Vec<Fragment>)>, render::RenderError> {
            wanted
                .par_iter()
                .map(|(c, level)| {
                    let (drop, chars) = parse_level(level);
                    let frags = renderer.catalog_fragments(cards[*c], drop, chars)?;
                    Ok((
                        *c,
                        frags
                            .into_iter()
                            .map(|(f, t)| {
                                let n = tokens_of(&t);
                                (level.clone(), f, t, n)
                            })
                            .collect(),
                    ))
                })
                .collect()
        };
    let full_level: Vec<(usize, String)> = (0..cards.len()).map(|c| (c, String::new())).collect();
    let mut card_fragments: Vec<Vec<Fragment>> = vec![Vec::new(); cards.len()];
    for (c, frags) in render_cards(&full_level).map_err(fail)? {
        card_fragments[c] = frags;
    }
    let markdown_tokens = |frags: &[Fragment], level: &str| {
        frags
            .iter()
            .find(|f| f.0 == level && f.1 == "markdown")
            .map(|f| f.3 as u64)
    };

    // Tier budgets: cut catalogs that are over, deterministically, and say what was cut.
    let mut levels: Vec<String> = vec![String::new(); specs.len()];
    let mut extra_levels: BTreeSet<(usize, String)> = BTreeSet::new();
    for (b, spec) in specs.iter().enumerate() {
        let Some(budget) = ws
            .config
            .tiers
            .iter()
            .find(|t| t.name == spec.tier)
            .and_then(|t| t.catalog_token_budget)
        else {
            continue;
        };
        let visible: BTreeSet<usize> = full_view(b)
            .into_iter()
            .filter_map(|s| match s {
                Slot::Entry(k) => Some(key_index[k]),
                Slot::Removed(_) => None,
            })
            .filter(|&i| entries[i].0.catalog_visible)
            .map(|i| entry_card[i])
            .collect();
        let headers: u64 = visible
            .iter()
            .map(|&c| cards[c].category.clone().unwrap_or_default())
            .collect::<BTreeSet<_>>()
            .iter()
            .map(|c| {
                categories
                    .iter()
                    .find(|r| &r.id == c)
                    .map_or(0, |r| r.fragments[0].1 as u64)
            })
            .sum();
        let mut cost = |level: &str| -> Result<u64, render::RenderError> {
            let missing: Vec<(usize, String)> = visible
                .iter()
                .filter(|&&c| markdown_tokens(&card_fragments[c], level).is_none())
                .map(|&c| (c, level.to_string()))
                .collect();
            for (c, frags) in render_cards(&missing)? {
                card_fragments[c].extend(frags);
            }
            // Each row also gets the `| SKn ` cell the runtime adds.
            Ok(headers
                + visible
                    .iter()
                    .map(|&c| markdown_tokens(&card_fragments[c], level).unwrap_or(0) + 4)
                    .sum::<u64>())
        };
        let full = cost("").map_err(fail)?;
        if full <= budget {
            continue;
        }
        let ladder = [
            "no-triggers",
            "chars:200",
            "chars:120",
            "chars:80",
            "chars:50",
            "chars:30",
        ];
        let mut chosen = ladder[ladder.len() - 1];
        let mut after = 0;
        for l in ladder {
            after = cost(l).map_err(fail)?;
            chosen = l;
            if after <= budget {
                break;
            }
        }
        levels[b] = chosen.to_string();
        for &c in &visible {
            extra_levels.insert((c, chosen.to_string()));
        }
        let what = match parse_level(chosen) {
            (_, None) => format!("dropped the trigger examples of {} skills", visible.len()),
            (_, Some(n)) => format!(
                "dropped the trigger examples of {} skills and cut descriptions to {n} characters",
                visible.len()
            ),
        };
        let still = if after > budget {
            " (still over: the names alone do not fit)"
        } else {
            ""
        };
        warnings.push(Diagnostic::new(
            codes::OVER_BUDGET,
            "workspace.yaml",
            Pos::start(),
            format!(
                "catalog of {} is {full} tokens, over tier `{}`'s budget of {budget}: {what}, now {after} tokens{still}",
                bundle_label(spec),
                spec.tier
            ),
        ));
    }
    // Keep only the levels some bundle uses.
    let used: BTreeSet<&str> = levels.iter().map(String::as_str).chain([""]).collect();
    for (c, frags) in card_fragments.iter_mut().enumerate() {
        frags.retain(|f| {
            f.0.is_empty()
                || (used.contains(f.0.as_str()) && extra_levels.contains(&(c, f.0.clone())))
        });
    }

    // Blobs and entry rows.
    let mut blobs: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut rows: Vec<EntryRow> = Vec::with_capacity(entries.len());
    for (((e, prompt), card), tokens) in entries.into_iter().zip(entry_card).zip(prompt_tokens) {
        let body_hash = hash(e.body.as_bytes());
        blobs
            .entry(body_hash.clone())
            .or_insert_with(|| e.body.clone().into_bytes());
        let cat = e.category.clone().unwrap_or_default();
        let sort_key = format!(
            "{:06}:{}",
            position.get(cat.as_str()).copied().unwrap_or(0),
            e.name
        );
        rows.push(EntryRow {
            entry: e,
            card,
            sort_key,
            body_hash,
            prompt: (prompt, tokens),
        });
    }
    let card_rows: Vec<artifact::CardRow> = cards
        .iter()
        .zip(card_fragments)
        .map(|(c, fragments)| artifact::CardRow {
            card: (*c).clone(),
            fragments,
        })
        .collect();
    let mut assets = Vec::new();
    for s in &ws.skills {
        for a in &s.assets {
            let h = hash(&a.data);
            blobs.entry(h.clone()).or_insert_with(|| a.data.clone());
            assets.push((s.file.clone(), a.path.clone(), h));
        }
    }

    // Bundles: global ones in full, client ones as differences from their global base.
    let mut bundles = Vec::with_capacity(specs.len());
    for (b, spec) in specs.iter().enumerate() {
        let rows: Vec<(String, Option<usize>, Option<String>)> = resolved[b]
            .iter()
            .map(|(q, s)| match s {
                Slot::Entry(k) => (q.clone(), Some(key_index[k]), None),
                Slot::Removed(r) => (q.clone(), None, Some(r.clone())),
            })
            .collect();
        bundles.push(BundleRow {
            client: spec.client.clone().unwrap_or_default(),
            locale: spec.locale.clone(),
            tier: spec.tier.clone(),
            base: base_of[b],
            catalog_level: levels[b].clone(),
            rows,
        });
    }

    // Consumers: which qualified names each consumer's catalogs leave out.
    let all_names: BTreeSet<&str> = prepared.qualified.iter().map(String::as_str).collect();
    let consumers = ws
        .config
        .consumers
        .iter()
        .map(|(name, c)| {
            let hidden = all_names
                .iter()
                .filter(|q| !consumer_shows(c, q))
                .map(|q| q.to_string())
                .collect();
            (
                name.clone(),
                serde_json::to_string(&c.enabled).unwrap_or_default(),
                serde_json::to_string(&c.disabled).unwrap_or_default(),
                hidden,
            )
        })
        .collect();
    let clients = ws
        .clients
        .values()
        .map(|c| {
            let locales = c
                .locales
                .clone()
                .unwrap_or_else(|| ws.config.locales.clone());
            let tiers = c
                .tiers
                .clone()
                .unwrap_or_else(|| ws.config.tiers.iter().map(|t| t.name.clone()).collect());
            (
                c.id.clone(),
                ws.config.trusted.contains(&c.id),
                c.flags.to_string(),
                serde_json::to_string(&locales).unwrap_or_default(),
                serde_json::to_string(&tiers).unwrap_or_default(),
            )
        })
        .collect();
    let sources = pool
        .sources
        .iter()
        .map(|s| {
            let f = renderer.source_fragment(s)?;
            let t = tokens_of(&f);
            Ok((s.clone(), f, t))
        })
        .collect::<Result<_, render::RenderError>>()
        .map_err(fail)?;

    let skills_global = ws
        .skills
        .iter()
        .filter(|s| s.scope == Scope::Global)
        .count();
    let cfg = &ws.config;
    let mut manifest = vec![
        ("schema_version", artifact::SCHEMA_VERSION.to_string()),
        ("compiler", format!("skillc {}", env!("CARGO_PKG_VERSION"))),
        ("tokenizer", tokens::TOKENIZER.to_string()),
        ("input_hash", input_hash.to_string()),
        ("workspace", cfg.name.clone().unwrap_or_default()),
        (
            "locales",
            serde_json::to_string(&cfg.locales).unwrap_or_default(),
        ),
        ("default_locale", cfg.default_locale.clone()),
        (
            "tiers",
            serde_json::to_string(&cfg.tiers.iter().map(|t| &t.name).collect::<Vec<_>>())
                .unwrap_or_default(),
        ),
        ("default_tier", cfg.tiers[0].name.clone()),
        (
            "max_active_skills",
            cfg.max_active_skills
                .map_or(String::new(), |n| n.to_string()),
        ),
        ("pipeline_max_depth", cfg.pipeline_max_depth.to_string()),
        ("max_triggers", cfg.max_triggers.to_string()),
        ("skills", ws.skills.len().to_string()),
        ("global_skills", skills_global.to_string()),
        ("clients", ws.clients.len().to_string()),
        ("bundles", bundles.len().to_string()),
        ("entries", rows.len().to_string()),
        ("cards", card_rows.len().to_string()),
        ("blobs", blobs.len().to_string()),
        ("sources", pool.sources.len().to_string()),
    ];
    if let Ok(epoch) = std::env::var("SOURCE_DATE_EPOCH") {
        manifest.push(("source_date_epoch", epoch));
    }
    manifest.sort();
    let mut stored_diags: Vec<Diagnostic> = check_warnings.to_vec();
    stored_diags.extend(warnings.iter().cloned());
    crate::diagnostic::sort(&mut stored_diags);

    Ok((
        Data {
            manifest: manifest
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            blobs,
            categories,
            sources,
            clients,
            consumers,
            cards: card_rows,
            entries: rows,
            bundles,
            assets,
            diagnostics: stored_diags,
        },
        warnings,
    ))
}

fn parse_level(level: &str) -> (bool, Option<usize>) {
    match level.strip_prefix("chars:") {
        Some(n) => (true, n.parse().ok()),
        None => (level == "no-triggers", None),
    }
}

/// `client example.com, locale en, tier fast` (or `the global bundle, …`).
pub fn bundle_label(spec: &BundleSpec) -> String {
    match &spec.client {
        Some(c) => format!(
            "client `{c}`, locale `{}`, tier `{}`",
            spec.locale, spec.tier
        ),
        None => format!(
            "the global bundle, locale `{}`, tier `{}`",
            spec.locale, spec.tier
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_any_run() {
        assert!(wildcard("public.*-press", "public.pdf-press"));
        assert!(!wildcard("public.*-press", "public.url-gen"));
        assert!(wildcard("public.*", "public.x"));
        assert!(wildcard("public.url-gen", "public.url-gen"));
        assert!(!wildcard("a*b*c", "acb"));
    }
}
