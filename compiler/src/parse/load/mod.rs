//! Loading a workspace: files → typed model, collecting every diagnostic on the way.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path};
use std::sync::Arc;

use rayon::prelude::*;

use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::discover::fsio::{self, RawFile};
use crate::discover::layout::{self, SkillDir};
use crate::model::{
    Asset, AssetData, Frontmatter, Localized, Scope, Skill, Workspace, WorkspaceConfig,
};
use crate::parse::config;
use crate::parse::fields::Fields;
use crate::parse::frontmatter;
use crate::parse::names;
use crate::parse::sources;
use crate::parse::text;
use crate::parse::yaml::{self, YamlDoc};

mod patch;
use patch::{folder_parses, patch_last, LastLoad};

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
}

/// Reads and loads the workspace folder `root`, including custom roots it declares.
pub fn load_dir(root: &Path) -> Result<Loaded, fsio::Error> {
    load_dir_cached(root, None)
}

/// What earlier loads of the same workspace read and parsed (`watch`, Skill Studio).
#[derive(Debug, Default)]
pub struct LoadCache {
    read: fsio::ReadCache,
    parsed: ParseCache,
    /// The workspace's files as the last load found them on disk (drafts not applied).
    tree: Option<fsio::Tree>,
    /// The next load may take `tree` instead of walking the folder, reading again only these
    /// files (workspace-relative paths).
    trust_tree: Option<Vec<String>>,
}

impl LoadCache {
    /// The caller watches the workspace and knows nothing in it changed since the last load:
    /// the next load takes that load's files instead of walking the folder again (10,000
    /// `stat` calls on the reference workload, a third of a keystroke's check in the studio).
    pub fn assume_unchanged(&mut self) {
        self.assume_changed_only([]);
    }

    /// The caller watches the workspace and knows that since the last load only the contents
    /// of `files` (workspace-relative, `/`-separated) changed: the next load takes that load's
    /// files and reads only these again. When one of them is not a file the last load read (a
    /// new file, a folder), or is gone, or some file is read through a symbolic link (whose
    /// target can change under another name), the next load walks the folder after all.
    pub fn assume_changed_only(&mut self, files: impl IntoIterator<Item = String>) {
        // Added to what a load that failed before taking them was told.
        self.trust_tree.get_or_insert_with(Vec::new).extend(files);
    }

    /// The last load's files with `changed` read again, if that is the workspace as it is.
    fn trusted_tree(&mut self, root: &Path) -> Option<fsio::Tree> {
        let changed = self.trust_tree.take()?;
        // Taken, not copied: the load puts the tree it used back.
        let mut tree = self.tree.take()?;
        if tree.linked && !changed.is_empty() {
            return None;
        }
        // Every other file is as the last load read and parsed it.
        tree.unchanged = fsio::Unchanged::AllBut(Default::default());
        for rel in &changed {
            let Ok(i) = tree.files.binary_search_by(|f| f.rel.as_str().cmp(rel)) else {
                // Neither read last time nor there now (an editor's short-lived file).
                let gone = std::fs::symlink_metadata(root.join(rel))
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
                if gone {
                    continue;
                }
                return None;
            };
            let (content, same) = self.read.read(
                &root.join(rel),
                !crate::discover::fsio::large::may_have_role(rel),
            );
            if matches!(
                content,
                fsio::FileContent::Unreadable(_) | fsio::FileContent::Artifact
            ) {
                return None;
            }
            if !same {
                tree.unchanged.remove(rel);
            }
            tree.files[i].content = content;
        }
        Some(tree)
    }
}

/// [`load_dir`] through `cache`: files and folders unchanged since an earlier read are not
/// read again, and a skill folder whose files are all unchanged is not parsed again.
pub fn load_dir_cached(root: &Path, cache: Option<&mut LoadCache>) -> Result<Loaded, fsio::Error> {
    load_dir_with(root, cache, &[])
}

/// [`load_dir_cached`] with some files' contents replaced by `drafts` (unsaved edits, by
/// relative path; a path not on disk is added). A folder holding a draft is parsed afresh, and
/// its parse is not kept: the next load must not take a draft for what is on disk.
pub fn load_dir_with(
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
    load_tree(root, &boundary, tree, cache, drafts)
}

/// Loads the files of `listed` (a walk of `root`) that `keep` selects: the workspace as
/// [`load_dir`] would load it if it held only those files (one batch of its clients).
pub fn load_listed(
    root: &Path,
    listed: &fsio::Listed,
    keep: impl Fn(&str) -> bool + Sync,
) -> Result<Loaded, fsio::Error> {
    let boundary = fsio::canonical_root(root)?;
    let tree = fsio::read_listed(listed, None, keep);
    load_tree(root, &boundary, tree, None, &[])
}

/// Loads the files read into `tree`, with `drafts` in place of theirs.
fn load_tree(
    root: &Path,
    boundary: &Path,
    mut tree: fsio::Tree,
    mut cache: Option<&mut LoadCache>,
    drafts: &[RawFile],
) -> Result<Loaded, fsio::Error> {
    // Taken: the next load that takes this tree sets its own.
    let mut unchanged = std::mem::take(&mut tree.unchanged);
    if let Some(c) = cache.as_deref_mut().filter(|_| drafts.is_empty()) {
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
        patchable: drafts.is_empty(),
    });
    let mut loaded = load_with(&files, &extra, &root_name, parsed);
    drop(files);
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
pub fn root_prefix(path: &str) -> String {
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

/// Loads a workspace from files already in memory (`extra`: files of declared roots).
pub fn load_files(files: &[RawFile], extra: &[RawFile]) -> Loaded {
    load_named(files, extra, "workspace")
}

/// Like [`load_files`], naming the workspace folder (the folder name of a skill whose
/// SKILL.md is at the workspace root).
pub fn load_named(files: &[RawFile], extra: &[RawFile], root_name: &str) -> Loaded {
    load_with(files, extra, root_name, None)
}

/// [`load_named`], reusing what `cache` parsed of skill folders whose files are all in
/// `unchanged` (read unchanged by the read cache).
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
    let loaded = Loaded {
        workspace: ws,
        diagnostics: out,
        texts,
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

/// `workspace.yaml`, `variables.json` and the templates.
fn settings(main: &layout::Layout<'_>, out: &mut Vec<Diagnostic>, texts: &mut Texts) -> Workspace {
    let config = match main.workspace_yaml.and_then(|f| yaml_file(f, out, texts)) {
        Some(doc) => config::workspace(&mut Fields {
            file: "workspace.yaml",
            doc: &doc,
            diagnostics: out,
        }),
        None => WorkspaceConfig::default(),
    };
    let mut ws = Workspace {
        config,
        ..Workspace::default()
    };

    if let Some(f) = main.variables_json {
        if let Some(text) = text_of(f, out, texts) {
            ws.variables = config::variables_json(&f.rel, &text, out);
        }
    }
    for f in &main.templates {
        if let Some(text) = text_of(f, out, texts) {
            ws.templates
                .insert(f.rel["templates/".len()..].to_string(), text);
        }
    }
    ws
}

/// Every client folder, with its `client.yaml` when it has one. A session's `cache` gives the
/// previous parse of each unchanged `client.yaml` (500 of them in the reference workload,
/// a quarter of a rebuild's load).
fn clients(
    main: &layout::Layout<'_>,
    config: &WorkspaceConfig,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
    cache: Option<(&mut ParseCache, &fsio::Unchanged)>,
) -> BTreeMap<String, crate::model::Client> {
    let mut clients = BTreeMap::new();
    let mut parsed = HashMap::new();
    let previous = cache
        .as_ref()
        .filter(|(c, _)| c.client_config.as_ref() == Some(config));
    for (id, file) in &main.clients {
        let Some(f) = file else {
            clients.insert(id.clone(), bare_client(id));
            continue;
        };
        let kept = previous
            .filter(|(_, unchanged)| unchanged.contains(&f.rel))
            .and_then(|(c, _)| c.clients.get(&f.rel).cloned());
        let p = kept.unwrap_or_else(|| Arc::new(parse_client(f, id, config)));
        out.extend(p.diagnostics.iter().cloned());
        if let Some(text) = &p.text {
            texts.insert(f.rel.as_str().into(), text.clone());
        }
        clients.insert(id.clone(), p.client.clone());
        parsed.insert(f.rel.clone(), p);
    }
    if let Some((c, _)) = cache {
        c.client_config = Some(config.clone());
        c.clients = parsed;
    }
    clients
}

/// A client without a (readable) `client.yaml`: every setting left to the workspace's.
fn bare_client(id: &str) -> crate::model::Client {
    crate::model::Client {
        id: id.to_string(),
        file: format!("clients/{id}/client.yaml"),
        flags: serde_json::Value::Object(Default::default()),
        ..Default::default()
    }
}

/// A `client.yaml` parsed: the client, the file's diagnostics and its text.
#[derive(Debug)]
struct ClientParse {
    client: crate::model::Client,
    diagnostics: Vec<Diagnostic>,
    text: Option<Arc<str>>,
}

fn parse_client(file: &RawFile, id: &str, config: &WorkspaceConfig) -> ClientParse {
    let (mut diagnostics, mut texts) = (Vec::new(), Texts::new());
    let rel = format!("clients/{id}/client.yaml");
    let client = match yaml_file(file, &mut diagnostics, &mut texts) {
        Some(doc) => config::client(
            &mut Fields {
                file: &rel,
                doc: &doc,
                diagnostics: &mut diagnostics,
            },
            id,
            config,
        ),
        None => bare_client(id),
    };
    ClientParse {
        client,
        diagnostics,
        text: texts.remove(file.rel.as_str()),
    }
}

/// `CATEGORY.md` files (into `ws.categories`); returns the category of each folder holding one.
fn categories(
    main: &layout::Layout<'_>,
    custom_layouts: &[layout::Layout<'_>],
    ws: &mut Workspace,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) -> BTreeMap<String, String> {
    let mut category_dirs: BTreeMap<String, String> = BTreeMap::new();
    let all_categories = main
        .categories
        .iter()
        .chain(custom_layouts.iter().flat_map(|l| l.categories.iter()));
    for (_, dir, file) in all_categories {
        let id = dir.rsplit('/').next().unwrap_or(dir).to_string();
        let Some((doc, _, _)) = markdown_file(file, out, texts) else {
            category_dirs.insert(dir.clone(), id);
            continue;
        };
        let cat = config::category(
            &mut Fields {
                file: &file.rel,
                doc: &doc,
                diagnostics: out,
            },
            &id,
        );
        if let Some(existing) = ws.categories.get(&id) {
            out.push(
                Diagnostic::new(
                    codes::DUPLICATE_SKILL,
                    &file.rel,
                    Pos::start(),
                    format!("category `{id}` is already defined by {}", existing.file),
                )
                .with_help("category folders are named once across the workspace"),
            );
        } else {
            ws.categories.insert(id.clone(), cat);
        }
        category_dirs.insert(dir.clone(), id);
    }

    category_dirs
}

fn folder_name(dir: &str) -> &str {
    dir.rsplit('/').next().unwrap_or(dir)
}

/// The category of a skill folder: the nearest ancestor holding CATEGORY.md inside its scope;
/// for client skills, else the nearest ancestor named like a defined category.
fn category_of(
    dir: &SkillDir<'_>,
    ws: &Workspace,
    category_dirs: &BTreeMap<String, String>,
) -> Option<String> {
    let base = dir.scope_base.trim_end_matches('/');
    let mut by_name = None;
    let mut current = dir.dir.as_str();
    while let Some((up, _)) = current.rsplit_once('/') {
        if up.len() < base.len() {
            break;
        }
        if let Some(id) = category_dirs.get(up) {
            return Some(id.clone());
        }
        if by_name.is_none() && up.len() > base.len() && ws.categories.contains_key(folder_name(up))
        {
            by_name = Some(folder_name(up).to_string());
        }
        current = up;
    }
    match dir.scope {
        Scope::Client(_) => by_name,
        Scope::Global => None,
    }
}

fn load_skill(
    dir: &SkillDir<'_>,
    root_name: &str,
    ws: &Workspace,
    category_dirs: &BTreeMap<String, String>,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) -> Option<Skill> {
    let file = dir.main.rel.as_str();
    if let Some(other) = dir.shadowed {
        out.push(
            Diagnostic::new(
                codes::TWO_SKILL_FILES,
                &other.rel,
                Pos::start(),
                "both SKILL.md and skill.md exist; skill.md is ignored",
            )
            .with_help("keep one of the two files"),
        );
    }
    let (doc, body, body_first_line) = markdown_file(dir.main, out, texts)?;
    let mut f = Fields {
        file,
        doc: &doc,
        diagnostics: out,
    };
    let fm = frontmatter::parse(&mut f);
    frontmatter::field_diagnostics(&mut f);

    let own_folder = match dir.dir.as_str() {
        "" => root_name,
        d => folder_name(d),
    };
    let folder = names::normalize(own_folder);
    let name = skill_name(&mut f, &doc, &fm, &folder);
    portability(&mut f, &doc, &fm, &name, &folder);
    let name_pos = match &fm.name {
        Some(n) => doc.value_pos("name", n.trim()),
        None => Pos::line(1),
    };
    let description_pos = match &fm.description {
        Some(_) => doc.key_pos("description"),
        None => Pos::line(1),
    };

    let namespace = fm.namespace.clone().unwrap_or_else(|| namespace_of(dir));
    let category = fm
        .category
        .clone()
        .or_else(|| category_of(dir, ws, category_dirs));

    let mut skill = Skill {
        scope: dir.scope.clone(),
        file: file.to_string(),
        dir: dir.dir.clone(),
        folder_name: own_folder.to_string(),
        name,
        name_pos,
        description_pos,
        namespace,
        category,
        frontmatter: fm,
        body,
        body_first_line,
        compact: None,
        localized: BTreeMap::new(),
        tool_notes: Vec::new(),
        sources: Vec::new(),
        vars_json: BTreeMap::new(),
        assets: Vec::new(),
        package: None,
    };

    for (inner, raw) in &dir.files {
        add_file(&mut skill, inner, raw, &ws.config, out, texts);
    }
    single_skill_checks(&skill, &doc, &ws.config, out);
    Some(skill)
}

/// The namespace a skill's path gives (`internal/…`), else its root's default.
fn namespace_of(dir: &SkillDir<'_>) -> String {
    let inner = &dir.dir[dir.scope_base.len().min(dir.dir.len())..];
    let first = inner.split('/').next().unwrap_or("");
    if frontmatter::NAMESPACES.contains(&first) && inner.contains('/') {
        first.to_string()
    } else {
        dir.default_namespace.to_string()
    }
}

/// The skill's name: its `name`, or the folder's when it is missing or empty (with a
/// diagnostic saying so).
fn skill_name(f: &mut Fields<'_>, doc: &YamlDoc, fm: &Frontmatter, folder: &str) -> String {
    match &fm.name {
        Some(n) if n.is_empty() => {
            let d = f.diag(codes::INVALID_VALUE, doc.key_pos("name"), "`name` is empty");
            f.report(d.with_help(format!("remove it to use the folder name `{folder}`")));
            folder.to_string()
        }
        Some(n) if n.chars().any(char::is_control) => {
            // Printed raw, ESC or BEL would drive the terminal or CI log that shows the name.
            let d = f.diag(
                codes::INVALID_VALUE,
                doc.key_pos("name"),
                format!("`name` holds control characters: `{}`", n.escape_debug()),
            );
            f.report(d.with_help("names are printed in terminals, logs and catalogs: use letters, digits and hyphens"));
            folder.to_string()
        }
        Some(n) => n.clone(),
        None => {
            let d = f
                .diag(
                    codes::NAME_MISSING,
                    Pos::line(1),
                    format!("`name` is missing (the folder name `{folder}` is used)"),
                )
                .with_help(format!("add `name: {folder}`"));
            f.report(d);
            folder.to_string()
        }
    }
}

/// A file of a skill folder besides SKILL.md: compact body, tool notes, sources, package
/// marker, variables, a localized SKILL.<locale>.md, or an asset.
fn add_file(
    skill: &mut Skill,
    inner: &str,
    raw: &RawFile,
    config: &WorkspaceConfig,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) {
    match inner {
        "compact.md" => skill.compact = text_of(raw, out, texts),
        "tools.yaml" => {
            if let Some(doc) = yaml_file(raw, out, texts) {
                let mut f = Fields {
                    file: &raw.rel,
                    doc: &doc,
                    diagnostics: out,
                };
                f.unknown_keys(&["tools"], codes::UNKNOWN_CONFIG_FIELD, "tools.yaml");
                skill.tool_notes = frontmatter::tool_list(&mut f, "tools");
            }
        }
        "sources.yaml" => {
            if let Some(doc) = yaml_file(raw, out, texts) {
                skill.sources = sources::parse_sources(&mut Fields {
                    file: &raw.rel,
                    doc: &doc,
                    diagnostics: out,
                });
            }
        }
        "package.yaml" => {
            if let Some(doc) = yaml_file(raw, out, texts) {
                let mut f = Fields {
                    file: &raw.rel,
                    doc: &doc,
                    diagnostics: out,
                };
                f.unknown_keys(
                    &["name", "origin", "sha256"],
                    codes::UNKNOWN_CONFIG_FIELD,
                    "package.yaml",
                );
                skill.package = Some(f.string("name").unwrap_or_else(|| skill.name.clone()));
            }
        }
        "vars.json" => {
            if let Some(text) = text_of(raw, out, texts) {
                skill.vars_json = config::vars_json(&raw.rel, &text, out);
            }
        }
        other => match localized_locale(other) {
            Some(locale) => {
                if let Some(l) = load_localized(raw, locale, config, out, texts) {
                    skill.localized.insert(l.locale.clone(), l);
                }
            }
            None => {
                let (size, data) = match &raw.content {
                    fsio::FileContent::Large(large) => (large.size, AssetData::File(large.clone())),
                    _ => match fsio::bytes_of(raw) {
                        Ok(b) => (b.len() as u64, AssetData::Bytes(b.to_vec())),
                        Err(d) => {
                            out.push(d);
                            return;
                        }
                    },
                };
                skill.assets.push(Asset {
                    path: other.to_string(),
                    size,
                    data,
                });
            }
        },
    }
}

/// Checks that need only one skill: tiers, trigger count, examples, length, citations.
fn single_skill_checks(
    skill: &Skill,
    doc: &YamlDoc,
    config: &WorkspaceConfig,
    out: &mut Vec<Diagnostic>,
) {
    let file = skill.file.as_str();
    let fm = &skill.frontmatter;
    for t in fm.tiers.iter().flatten() {
        if !config.tiers.iter().any(|w| &w.name == t) {
            let names: Vec<&str> = config.tiers.iter().map(|t| t.name.as_str()).collect();
            out.push(
                Diagnostic::new(
                    codes::UNKNOWN_NAME,
                    file,
                    doc.value_pos("tiers", t),
                    format!("tier `{t}` is not declared in workspace.yaml"),
                )
                .with_help(format!("declared tiers: {}", names.join(", "))),
            );
        }
    }
    if fm.trigger_examples.len() > config.max_triggers {
        out.push(
            Diagnostic::new(
                codes::TOO_MANY_TRIGGERS,
                file,
                doc.key_pos("trigger_examples"),
                format!(
                    "{} trigger examples, but catalogs show only the first {}",
                    fm.trigger_examples.len(),
                    config.max_triggers
                ),
            )
            .with_help("put the most important triggers first, or raise `catalog.max_triggers`"),
        );
    }
    crate::parse::body::check(file, &skill.body, skill.body_first_line, out);
    let defined: Vec<u32> = skill.sources.iter().map(|s| s.sid).collect();
    sources::check_tokens(file, &skill.body, skill.body_first_line, &defined, out);
    if let Some(compact) = &skill.compact {
        sources::check_tokens(
            &layout::join(&skill.dir, "compact.md"),
            compact,
            1,
            &defined,
            out,
        );
    }
    for l in skill.localized.values() {
        let first = l.body_first_line();
        sources::check_tokens(&l.file, &l.body, first, &defined, out);
    }
}

/// `SKILL.fr-ca.md` → `fr-ca`.
fn localized_locale(inner: &str) -> Option<&str> {
    let rest = inner
        .strip_prefix("SKILL.")
        .or_else(|| inner.strip_prefix("skill."))?;
    let locale = rest.strip_suffix(".md")?;
    let ok = !locale.is_empty()
        && locale
            .split('-')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()))
        && locale
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic());
    ok.then_some(locale)
}

fn load_localized(
    raw: &RawFile,
    locale: &str,
    config: &WorkspaceConfig,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) -> Option<Localized> {
    let text = text_of(raw, out, texts)?;
    let mut l = Localized {
        locale: locale.to_string(),
        file: raw.rel.clone(),
        description: None,
        trigger_examples: None,
        when_to_use: None,
        body: text.clone(),
        body_line: 1,
    };
    if !config
        .locales
        .iter()
        .any(|d| d == locale || d.starts_with(&format!("{locale}-")))
    {
        out.push(
            Diagnostic::new(
                codes::LOCALIZED_FILE,
                &raw.rel,
                Pos::start(),
                format!(
                    "locale `{locale}` is not declared in workspace.yaml; this file is never used"
                ),
            )
            .with_help(format!("declared locales: {}", config.locales.join(", "))),
        );
    }
    if text.starts_with("---") {
        let split = match yaml::split_frontmatter(&raw.rel, &text) {
            Ok(s) => s,
            Err(d) => {
                out.push(d);
                return None;
            }
        };
        let doc = match yaml::parse_mapping(&raw.rel, split.yaml, split.yaml_first_line) {
            Ok(doc) => doc,
            Err(d) => {
                out.push(d);
                return None;
            }
        };
        let mut f = Fields {
            file: &raw.rel,
            doc: &doc,
            diagnostics: out,
        };
        l.description = f.string("description");
        l.trigger_examples = doc
            .get("trigger_examples")
            .map(|_| f.string_list("trigger_examples"));
        l.when_to_use = doc.get("when_to_use").map(|_| f.string_list("when_to_use"));
        for key in doc.keys() {
            if !matches!(
                key.as_str(),
                "description" | "trigger_examples" | "when_to_use" | "name"
            ) {
                let d = f
                    .diag(
                        codes::LOCALIZED_FILE,
                        doc.key_pos(&key),
                        format!("`{key}` cannot be localized and is ignored here"),
                    )
                    .with_help("a localized file may set description, trigger_examples, when_to_use and the body");
                f.report(d);
            }
        }
        l.body = split.body.to_string();
        l.body_line = split.body_first_line;
    }
    Some(l)
}

fn portability(
    f: &mut Fields<'_>,
    doc: &YamlDoc,
    fm: &crate::model::Frontmatter,
    name: &str,
    folder: &str,
) {
    let name_pos = match &fm.name {
        Some(n) => doc.value_pos("name", n.trim()),
        None => Pos::line(1),
    };
    let problems = names::portability_problems(name);
    if !problems.is_empty() {
        let d = f
            .diag(
                codes::NAME_NOT_PORTABLE,
                name_pos,
                format!(
                    "skill name `{name}` is not portable: {}",
                    problems.join("; ")
                ),
            )
            .with_help(format!(
                "agentskills.io names use lowercase letters, digits and single hyphens, e.g. `{}`",
                names::portable_suggestion(name)
            ));
        f.report(d);
    }
    if name != folder {
        let d = f
            .diag(
                codes::NAME_FOLDER_MISMATCH,
                name_pos,
                format!("skill name `{name}` differs from its folder name `{folder}`"),
            )
            .with_help("portable skills are named like their folder");
        f.report(d);
    }
    match &fm.description {
        None => {
            let d = f
                .diag(codes::MISSING_FIELD, Pos::line(1), "`description` is missing")
                .with_help("selectors choose skills by their description; say what it does and when to use it");
            f.report(d);
        }
        Some(desc) if desc.trim().is_empty() => {
            let d = f.diag(
                codes::MISSING_FIELD,
                doc.key_pos("description"),
                "`description` is empty",
            );
            f.report(d);
        }
        Some(desc) if desc.chars().count() > 1024 => {
            let d = f.diag(
                codes::DESCRIPTION_LENGTH,
                doc.key_pos("description"),
                format!(
                    "description has {} characters, over the 1024 character limit",
                    desc.chars().count()
                ),
            );
            f.report(d);
        }
        Some(_) => {}
    }
    if let Some(c) = &fm.compatibility {
        let n = c.chars().count();
        if n == 0 || n > 500 {
            let d = f.diag(
                codes::COMPATIBILITY_LENGTH,
                doc.key_pos("compatibility"),
                format!("compatibility has {n} characters; it must have 1 to 500"),
            );
            f.report(d);
        }
    }
}

/// A parsed skill folder: the skill (if it parsed), its diagnostics and its texts.
type Parsed = (Option<Arc<Skill>>, Vec<Diagnostic>, Texts);

/// Decoded text files by workspace-relative path (shared with the parse cache of a session).
pub type Texts = BTreeMap<Arc<str>, Arc<str>>;

/// What a skill's parse reads besides its own folder.
#[derive(Debug, Clone, PartialEq)]
struct ParseContext {
    config: WorkspaceConfig,
    categories: BTreeMap<String, crate::model::Category>,
    category_dirs: BTreeMap<String, String>,
    root_name: String,
}

/// Skills parsed by the previous load, by folder, with the files each was parsed from.
#[derive(Debug, Default)]
struct ParseCache {
    context: Option<ParseContext>,
    skills: HashMap<String, (Vec<String>, Arc<Parsed>)>,
    /// The settings the clients were parsed with.
    client_config: Option<WorkspaceConfig>,
    /// Each `client.yaml`'s parse, by relative path.
    clients: HashMap<String, Arc<ClientParse>>,
    /// The last load from the files on disk, to patch when only files inside skill folders
    /// changed since (see [`patch_last`]).
    last: Option<LastLoad>,
}

/// The files of a skill folder.
fn files_of<'d>(dir: &'d SkillDir<'_>) -> impl Iterator<Item = &'d RawFile> {
    [Some(dir.main), dir.shadowed]
        .into_iter()
        .flatten()
        .chain(dir.files.iter().map(|(_, f)| *f))
}

/// The files of a skill folder, by relative path, sorted.
fn dir_files(dir: &SkillDir<'_>) -> Vec<String> {
    let mut rels: Vec<String> = files_of(dir).map(|f| f.rel.clone()).collect();
    rels.sort();
    rels
}

impl ParseCache {
    /// The previous parse of `dir`, if the settings it read are the same (`same_context`) and
    /// it has the same files, each read unchanged.
    fn reuse(
        &self,
        same_context: bool,
        dir: &SkillDir<'_>,
        unchanged: &fsio::Unchanged,
    ) -> Option<Arc<Parsed>> {
        if !same_context {
            return None;
        }
        let (files, parsed) = self.skills.get(&dir.dir)?;
        // `files` is sorted and a folder's files are distinct: the same count, each of them
        // among `files`, is the same files.
        let mut count = 0;
        for f in files_of(dir) {
            count += 1;
            let known = files.binary_search_by(|k| k.as_str().cmp(&f.rel)).is_ok();
            if !known || !unchanged.contains(&f.rel) {
                return None;
            }
        }
        (count == files.len()).then(|| parsed.clone())
    }

    /// Drops the parses that read any of `files`.
    fn forget_files(&mut self, files: &[RawFile]) {
        self.skills
            .retain(|_, (read, _)| !files.iter().any(|f| read.contains(&f.rel)));
        for f in files {
            self.clients.remove(&f.rel);
        }
    }

    /// Keeps this load's parses for the next one: in place when the settings are the same
    /// (`same_context`), as only the parses not `reused` from it are new.
    fn keep(
        &mut self,
        context: ParseContext,
        same_context: bool,
        dirs: &[&SkillDir<'_>],
        parsed: &[(Arc<Parsed>, bool)],
    ) {
        if !same_context {
            self.context = Some(context);
            self.skills.clear();
        }
        for (d, (p, reused)) in dirs.iter().zip(parsed) {
            if !reused {
                self.skills.insert(d.dir.clone(), (dir_files(d), p.clone()));
            }
        }
        // Every folder of this load is in; any other is a folder gone since.
        if self.skills.len() != dirs.len() {
            let now: std::collections::HashSet<&str> =
                dirs.iter().map(|d| d.dir.as_str()).collect();
            self.skills.retain(|dir, _| now.contains(dir.as_str()));
        }
    }
}
