//! Loading a workspace: files → typed model, collecting every diagnostic on the way.

use std::collections::BTreeMap;
use std::path::{Component, Path};
use std::sync::Arc;

use rayon::prelude::*;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::discover::fsio::{self, RawFile};
use crate::discover::layout::{self, SkillDir};
use crate::model::{Workspace, WorkspaceConfig};
use crate::parse::fields::Fields;
use crate::parse::yaml::{self, YamlDoc};
use crate::parse::{config, text};

mod cache;
mod collection;
mod external;
mod patch;
mod plugins;
mod settings;
mod skill;

pub(crate) use cache::{BatchLoads, LoadCache};
use cache::{LastLoad, ParseCache, ParseContext, Parsed};
use patch::{folder_parses, patch_last};
use settings::{categories, clients, settings};
use skill::load_skill;

/// A loaded workspace: the model, its diagnostics (unsorted, profile not applied) and the
/// decoded text of every file, for snippets.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    /// The model.
    pub workspace: Workspace,
    /// Problems found while loading.
    pub diagnostics: Vec<Diagnostic>,
    /// Decoded text files by workspace-relative path.
    pub texts: Texts,
    /// What the walk skipped (see [`fsio::Tree::skipped`]).
    pub skipped: Vec<String>,
}

/// Reads and loads the workspace folder `root`, including custom roots it declares. Through
/// a session's `cache`, files and folders unchanged since an earlier read are not read again,
/// and a skill folder whose files are all unchanged is not parsed again. `drafts` replace some
/// files' contents (unsaved edits, by relative path; a path not on disk is added): a folder
/// holding a draft is parsed afresh, and its parse is not kept (the next load must not take a
/// draft for what is on disk).
pub fn load_dir(
    root: &Path,
    mut cache: Option<&mut LoadCache>,
    drafts: &[RawFile],
) -> Result<Loaded, fsio::Error> {
    let boundary = fsio::canonical_root(root)?;
    let trusted = cache.as_deref_mut().and_then(|c| c.trusted_tree(root));
    let tree = match trusted {
        Some(tree) => tree,
        None => {
            let read = cache.as_deref().map(|c| &c.read);
            fsio::read_tree_cached(root, "", &boundary, read)?
        }
    };
    let patchable = drafts.is_empty();
    load_tree(root, &boundary, tree, cache, drafts, patchable)
}

/// Loads the files of `listed` (a walk of `root`) that `keep` selects: the workspace as
/// [`load_dir`] would load it if it held only those files (one batch of its clients). The
/// skill folders of the files `shared` selects (every batch's) are parsed through `loads`,
/// again only when their bytes changed since the last batch's load.
pub(crate) fn load_listed(
    root: &Path,
    listed: &fsio::Listed,
    keep: impl Fn(&str) -> bool + Sync,
    shared: &(dyn Fn(&str) -> bool + Sync),
    loads: &mut BatchLoads,
) -> Result<Loaded, fsio::Error> {
    let boundary = fsio::canonical_root(root)?;
    let mut tree = fsio::read_listed(listed, None, keep);
    tree.unchanged = loads.unchanged(&tree.files, shared);
    let mut cache = LoadCache {
        parsed: std::mem::take(&mut loads.parsed),
        ..LoadCache::default()
    };
    let loaded = load_tree(root, &boundary, tree, Some(&mut cache), &[], false);
    // Only what the next batch may take again is held, not this batch's own parses.
    loads.parsed = cache.parsed;
    loads.parsed.skills.retain(|dir, _| shared(dir));
    loads.parsed.clients.clear();
    loaded
}

/// Loads the files read into `tree`, with `drafts` in place of theirs. When `patchable`, a
/// session's `cache` keeps how the load was put together, for the next load to patch.
fn load_tree(
    root: &Path,
    boundary: &Path,
    mut tree: fsio::Tree,
    mut cache: Option<&mut LoadCache>,
    drafts: &[RawFile],
    patchable: bool,
) -> Result<Loaded, fsio::Error> {
    // Taken: the next load that takes this tree sets its own.
    let mut unchanged = std::mem::take(&mut tree.unchanged);
    if let Some(c) = cache.as_deref_mut().filter(|_| patchable) {
        if let Some(loaded) = patch_last(&mut c.parsed, &tree, &unchanged) {
            c.tree = Some(tree);
            return Ok(loaded);
        }
    }
    let mut walk_diags = tree.diagnostics.clone();
    // The files as on disk, with the drafts in place of theirs (copied only if there are some).
    let mut files = std::borrow::Cow::Borrowed(tree.files.as_slice());
    for draft in drafts {
        unchanged.remove(&draft.rel);
        let files = files.to_mut();
        match files.iter_mut().find(|f| f.rel == draft.rel) {
            Some(f) => *f = draft.clone(),
            None => files.push(draft.clone()),
        }
    }
    let config = peek_config(&files);
    let extra = read_outside_roots(root, &config, &mut walk_diags)?;
    // Outside repositories' skills, from the copies `skillc fetch` stored, under their folders.
    let (outside, problems, pins) = external::read_locked(root, &config, &files);
    walk_diags.extend(problems);
    // The stored copies match the lock's digests, so they changed only if it did: then their
    // skills are parsed again (a watcher names the lock, never the hidden copies).
    if !unchanged.contains(crate::model::external::LOCK_FILE) {
        for f in &outside {
            unchanged.remove(&f.rel);
        }
    }
    if !outside.is_empty() {
        let files = files.to_mut();
        files.extend(outside);
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
    }
    // A hidden folder declared as a root was read above: it is no longer skipped.
    let declared: Vec<String> = config.roots.values().map(|p| root_prefix(p)).collect();
    let skipped: Vec<String> = tree
        .hidden_skills
        .iter()
        .filter(|h| !declared.contains(h))
        .cloned()
        .collect();
    walk_diags.extend(fsio::hidden_warning(&skipped));
    let root_name = boundary
        .file_name()
        .map_or("workspace".into(), |n| n.to_string_lossy().into_owned());
    let parsed = cache.as_deref_mut().map(|c| Cached {
        parses: &mut c.parsed,
        unchanged: &unchanged,
        // A load with drafts is not the files on disk: nothing to patch later.
        patchable,
    });
    let mut loaded = load_with(&files, &extra, &root_name, parsed);
    loaded.skipped = tree.skipped.clone();
    drop(files);
    for source in &mut loaded.workspace.config.external {
        source.commit = (pins.iter())
            .find(|(into, _)| *into == source.into)
            .map(|(_, commit)| commit.clone());
    }
    if let Some(c) = cache {
        c.parsed.forget_files(drafts);
        c.tree = Some(tree);
        if let Some(last) = &mut c.parsed.last {
            last.set_tail(&walk_diags);
        }
    }
    loaded.diagnostics.extend(walk_diags);
    Ok(loaded)
}

/// The files of the declared custom roots outside the workspace (or in a hidden folder of
/// it, which the walk skips); a root inside it was read with the rest.
fn read_outside_roots(
    root: &Path,
    config: &crate::model::WorkspaceConfig,
    walk_diags: &mut Vec<Diagnostic>,
) -> Result<Vec<RawFile>, fsio::Error> {
    let mut extra = Vec::new();
    for path in config.roots.values() {
        let prefix = root_prefix(path);
        let dir = root.join(path);
        if !read_apart(&prefix) {
            // Inside the workspace: already read; `load_files` sets these files apart.
            if !dir.is_dir() {
                walk_diags.push(missing_root(path));
            }
            continue;
        }
        match dir.canonicalize() {
            Ok(canonical) => {
                let (more, diags) = fsio::read_tree(&dir, &prefix, &canonical)?;
                extra.extend(more);
                walk_diags.extend(diags);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                walk_diags.push(missing_root(path))
            }
            Err(e) => walk_diags.push(Diagnostic::new(
                codes::UNREADABLE,
                "workspace.yaml",
                Pos::start(),
                format!("custom root `{path}` cannot be read: {e}"),
            )),
        }
    }
    Ok(extra)
}

/// Whether a declared root (by its prefix) is read apart from the workspace's walk: it is
/// outside the workspace, or in a hidden folder the walk skips.
pub(crate) fn read_apart(prefix: &str) -> bool {
    prefix.starts_with("../") || prefix.split('/').any(|c| c.starts_with('.') && c != "..")
}

fn missing_root(path: &str) -> Diagnostic {
    Diagnostic::new(
        codes::UNREADABLE,
        "workspace.yaml",
        Pos::start(),
        format!("custom root `{path}` does not exist"),
    )
    .with_help("create the folder, or remove it from `roots`")
}

/// The path prefix under which a declared root's files are named (`../custom-skills/`).
pub(crate) fn root_prefix(path: &str) -> String {
    let clean: Vec<String> = Path::new(path)
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_string()),
            _ => None,
        })
        .collect();
    format!("{}/", clean.join("/"))
}

/// The `workspace.yaml` of the workspace at `root` (the defaults without one), with its
/// diagnostics: what `skillc fetch` reads before anything else.
pub fn workspace_config(root: &Path) -> Result<(WorkspaceConfig, Vec<Diagnostic>), std::io::Error> {
    let path = root.join("workspace.yaml");
    if !path.exists() {
        return Ok((WorkspaceConfig::default(), Vec::new()));
    }
    let file = RawFile {
        rel: "workspace.yaml".to_string(),
        content: fsio::read_capped(&path),
    };
    let mut out = Vec::new();
    let config = yaml_file(&file, &mut out, &mut BTreeMap::new()).map(|doc| {
        config::workspace(&mut Fields {
            file: "workspace.yaml",
            doc: &doc,
            diagnostics: &mut out,
        })
    });
    Ok((config.unwrap_or_default(), out))
}

/// The workspace configuration as far as it can be read, before anything else is loaded.
pub(crate) fn peek_config(files: &[RawFile]) -> WorkspaceConfig {
    let mut ignored = Vec::new();
    files
        .iter()
        .find(|f| f.rel == "workspace.yaml")
        .and_then(|f| yaml_file(f, &mut ignored, &mut BTreeMap::new()))
        .map(|doc| {
            let mut sink = Vec::new();
            config::workspace(&mut Fields {
                file: "workspace.yaml",
                doc: &doc,
                diagnostics: &mut sink,
            })
        })
        .unwrap_or_default()
}

/// Decodes a text file, recording its text and any diagnostics.
fn text_of(file: &RawFile, out: &mut Vec<Diagnostic>, texts: &mut Texts) -> Option<String> {
    let bytes = match fsio::bytes_of(file) {
        Ok(b) => b,
        Err(d) => {
            out.push(d);
            return None;
        }
    };
    match text::decode(&file.rel, bytes) {
        Ok((text, warnings)) => {
            out.extend(warnings);
            texts.insert(file.rel.as_str().into(), Arc::from(text.as_str()));
            Some(text)
        }
        Err(d) => {
            out.push(d);
            None
        }
    }
}

fn yaml_file(file: &RawFile, out: &mut Vec<Diagnostic>, texts: &mut Texts) -> Option<YamlDoc> {
    let text = text_of(file, out, texts)?;
    match yaml::parse_mapping(&file.rel, &text, 1) {
        Ok(doc) => Some(doc),
        Err(d) => {
            out.push(d);
            None
        }
    }
}

/// A markdown file with frontmatter: its parsed frontmatter, body and body's first line.
fn markdown_file(
    file: &RawFile,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) -> Option<(YamlDoc, String, usize)> {
    let text = text_of(file, out, texts)?;
    let split = match yaml::split_frontmatter(&file.rel, &text) {
        Ok(s) => s,
        Err(d) => {
            out.push(d);
            return None;
        }
    };
    match yaml::parse_mapping(&file.rel, split.yaml, split.yaml_first_line) {
        Ok(doc) => Some((doc, split.body.to_string(), split.body_first_line)),
        Err(d) => {
            out.push(d);
            None
        }
    }
}

/// Loads a workspace from files already in memory (`extra`: files of declared roots), named
/// `root_name` (the folder name of a skill whose SKILL.md is at the workspace root).
pub(crate) fn load_files(files: &[RawFile], extra: &[RawFile], root_name: &str) -> Loaded {
    load_with(files, extra, root_name, None)
}

/// What a session's load reads its earlier parses from.
struct Cached<'c> {
    parses: &'c mut ParseCache,
    /// The files read unchanged since the last load.
    unchanged: &'c fsio::Unchanged,
    /// The files are the ones on disk (no drafts): the next load may patch this one.
    patchable: bool,
}

fn load_with(
    files: &[RawFile],
    extra: &[RawFile],
    root_name: &str,
    cache: Option<Cached<'_>>,
) -> Loaded {
    let mut out = Vec::new();
    let mut texts = BTreeMap::new();
    let (main_files, extra) = split_roots(files, extra);
    let main = layout::classify(&main_files, "");
    let mut ws = settings(&main, &mut out, &mut texts);
    ws.plugins = plugins::plugins(&main.plugin_manifests, &mut out, &mut texts);
    let mut cache = cache;
    let client_cache = cache.as_mut().map(|c| (&mut *c.parses, c.unchanged));
    ws.clients = clients(&main, &ws.config, &mut out, &mut texts, client_cache);
    let customs = custom_roots(&ws, &extra);
    let custom_layouts: Vec<layout::Layout<'_>> = customs
        .iter()
        .map(|(prefix, fs)| layout::classify(fs, prefix))
        .collect();

    let category_dirs = categories(&main, &custom_layouts, &mut ws, &mut out, &mut texts);
    let (skill_dirs, bases) = skill_folders(&main, &customs, &custom_layouts);
    if skill_dirs.is_empty() {
        out.push(no_skills());
    }
    let parse = |dir: &SkillDir<'_>| -> Parsed {
        let mut diags = Vec::new();
        let mut own_texts = BTreeMap::new();
        let skill = load_skill(
            dir,
            root_name,
            &ws,
            &category_dirs,
            &mut diags,
            &mut own_texts,
        );
        (skill.map(Arc::new), diags, own_texts)
    };
    // Skills parse independently: in parallel, each with its own diagnostics and texts,
    // merged in folder order.
    let (parsed, cache) = match cache {
        None => {
            let parsed = skill_dirs.par_iter().map(|d| Arc::new(parse(d))).collect();
            (parsed, None)
        }
        Some(cached) => {
            let context = ParseContext {
                config: ws.config.clone(),
                categories: ws.categories.clone(),
                plugins: ws.plugins.clone(),
                category_dirs: category_dirs.clone(),
                root_name: root_name.to_string(),
            };
            parse_cached(cached, context, &skill_dirs, &parse)
        }
    };
    // A session keeps how this load was put together, to patch it after the next edits.
    let keep = cache.map(|cache| {
        (
            cache,
            folder_parses(&skill_dirs, &bases, &parsed),
            out.clone(),
        )
    });
    let texts = merge(parsed, &mut ws, &mut out, texts);
    collection::tell_apart_by_folder(&mut ws, &mut out);
    collection::set_aside_package_lists(&mut ws, &mut out);
    let loaded = Loaded {
        workspace: ws,
        diagnostics: out,
        texts,
        skipped: Vec::new(),
    };
    if let Some((cache, dirs, head)) = keep {
        cache.last = Some(LastLoad::new(&loaded, head, dirs, category_dirs, root_name));
    }
    loaded
}

/// The skill folders of the workspace's own layout and of its custom roots, each with the
/// prefix of the root it was classified under (`""` for the workspace's own).
fn skill_folders<'l, 'f>(
    main: &'l layout::Layout<'f>,
    customs: &'l [(String, Vec<RawFile>)],
    custom_layouts: &'l [layout::Layout<'f>],
) -> (Vec<&'l SkillDir<'f>>, Vec<&'l str>) {
    let mut dirs: Vec<&SkillDir<'_>> = main.skills.iter().collect();
    let mut bases = vec![""; dirs.len()];
    for ((prefix, _), l) in customs.iter().zip(custom_layouts) {
        dirs.extend(l.skills.iter());
        bases.extend(l.skills.iter().map(|_| prefix.as_str()));
    }
    (dirs, bases)
}

/// Parses the skill folders through the session's cache: a folder whose files are all
/// unchanged and whose settings (`context`) are the same is taken from it. Returns the parses
/// and the cache if the next load may patch this one.
fn parse_cached<'c>(
    cached: Cached<'c>,
    context: ParseContext,
    skill_dirs: &[&SkillDir<'_>],
    parse: &(dyn Fn(&SkillDir<'_>) -> Parsed + Sync),
) -> (Vec<Arc<Parsed>>, Option<&'c mut ParseCache>) {
    let (cache, unchanged) = (cached.parses, cached.unchanged);
    let same_context = cache.context.as_ref() == Some(&context);
    let fresh: Vec<(Arc<Parsed>, bool)> = skill_dirs
        .par_iter()
        .map(|d| match cache.reuse(same_context, d, unchanged) {
            Some(kept) => (kept, true),
            None => (Arc::new(parse(d)), false),
        })
        .collect();
    cache.keep(context, same_context, skill_dirs, &fresh);
    // This load's replaces it, unless it read drafts, which are not the files on disk: the
    // next load then starts afresh.
    cache.last = None;
    let parsed = fresh.into_iter().map(|(p, _)| p).collect();
    (parsed, Some(cache).filter(|_| cached.patchable))
}

/// Adds each skill's parse to the workspace, its diagnostics to `out` and its texts to
/// `texts`, in folder order; the skills are then sorted by scope and file. A parse the cache
/// holds is copied.
fn merge(
    parsed: Vec<Arc<Parsed>>,
    ws: &mut Workspace,
    out: &mut Vec<Diagnostic>,
    texts: Texts,
) -> Texts {
    // Gathered in a list and the map built from it at once (one insert at a time was a third
    // of loading a session's workspace again).
    let mut all_texts: Vec<(Arc<str>, Arc<str>)> = texts.into_iter().collect();
    for p in parsed {
        match Arc::try_unwrap(p) {
            Ok((skill, diags, own_texts)) => {
                ws.skills.extend(skill);
                out.extend(diags);
                all_texts.extend(own_texts);
            }
            Err(p) => {
                ws.skills.extend(p.0.clone());
                out.extend(p.1.iter().cloned());
                all_texts.extend(p.2.iter().map(|(rel, text)| (rel.clone(), text.clone())));
            }
        }
    }
    ws.skills
        .sort_by(|a, b| (&a.scope, &a.file).cmp(&(&b.scope, &b.file)));
    all_texts.into_iter().collect()
}

/// Each declared custom root's prefix and the files under it.
fn custom_roots(ws: &Workspace, extra: &[RawFile]) -> Vec<(String, Vec<RawFile>)> {
    ws.config
        .roots
        .values()
        .map(|p| {
            let prefix = root_prefix(p);
            let mine = extra
                .iter()
                .filter(|f| f.rel.starts_with(&prefix))
                .cloned()
                .collect();
            (prefix, mine)
        })
        .collect()
}

/// W117: a workspace with no skill says so.
fn no_skills() -> Diagnostic {
    Diagnostic::new(
        codes::NO_SKILLS,
        "",
        Pos::start(),
        "the workspace holds no skill: no folder has a SKILL.md",
    )
    .with_help("a skill is a folder holding a SKILL.md; check the path you gave")
}

/// Files under declared roots inside the workspace hold `custom` skills, not global ones: they
/// join `extra` (copied only when there are such roots).
fn split_roots<'f>(
    files: &'f [RawFile],
    extra: &[RawFile],
) -> (std::borrow::Cow<'f, [RawFile]>, Vec<RawFile>) {
    let inner_roots: Vec<String> = peek_config(files)
        .roots
        .values()
        .map(|p| root_prefix(p))
        .filter(|p| !p.starts_with("../") && p != "/")
        .collect();
    let in_root = |f: &RawFile| inner_roots.iter().any(|p| f.rel.starts_with(p.as_str()));
    // Files are copied only when a declared root lies inside the workspace.
    if files.iter().any(in_root) {
        let (rooted, rest): (Vec<RawFile>, Vec<RawFile>) =
            files.iter().cloned().partition(|f| in_root(f));
        (rest.into(), extra.iter().cloned().chain(rooted).collect())
    } else {
        (files.into(), extra.to_vec())
    }
}

/// Decoded text files by workspace-relative path (shared with the parse cache of a session).
pub(crate) type Texts = BTreeMap<Arc<str>, Arc<str>>;
