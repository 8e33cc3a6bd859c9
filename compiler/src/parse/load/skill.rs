//! Loading one skill folder: its SKILL.md, the files beside it, its localized versions, and
//! what would keep it from being portable.

use std::collections::BTreeMap;

use super::settings::{category_of, folder_name};
use super::{markdown_file, text_of, yaml_file, Texts};
use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::discover::fsio::RawFile;
use crate::discover::layout::SkillDir;
use crate::discover::{fsio, layout};
use crate::model::{Asset, AssetData, Frontmatter, Localized, Skill, Workspace, WorkspaceConfig};
use crate::parse::fields::Fields;
use crate::parse::yaml::YamlDoc;
use crate::parse::{config, frontmatter, names, sources, yaml};
pub(super) fn load_skill(
    dir: &SkillDir<'_>,
    root_name: &str,
    ws: &Workspace,
    category_dirs: &BTreeMap<String, String>,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) -> Option<Skill> {
    let file = dir.main.rel.as_str();
    if let Some(other) = dir.shadowed {
        out.push(two_skill_files(other));
    }
    let (doc, body, body_first_line) = markdown_file(dir.main, out, texts)?;
    let mut f = Fields {
        file,
        doc: &doc,
        diagnostics: out,
    };
    let fm = frontmatter::parse(&mut f, !ws.config.authored);
    frontmatter::field_diagnostics(&mut f);

    let own_folder = match dir.dir.as_str() {
        "" => root_name,
        d => folder_name(d),
    };
    let folder = names::normalize(own_folder);
    let name = skill_name(&mut f, &doc, &fm, &folder);
    portability(&mut f, &doc, &fm, &name, &folder);
    // A plugin's skill is named as Claude Code names it.
    let plugin = super::plugins::plugin_of(&dir.dir, &ws.plugins).map(|p| p.name.clone());
    let name = plugin
        .as_ref()
        .map_or(name.clone(), |p| format!("{p}:{name}"));
    let (name_pos, description_pos) = name_and_description_pos(&doc, &fm);

    let namespace = fm.namespace.clone().unwrap_or_else(|| namespace_of(dir));
    // A collection written for other tools often files its skills under `metadata.category`
    // (TerminalSkills/skills, all 1,016): read there when nothing of skillc's says one.
    let category = fm
        .category
        .clone()
        .or_else(|| category_of(dir, ws, category_dirs))
        .or_else(|| {
            let filed = fm.metadata.get("category").map(|c| c.trim().to_string());
            filed.filter(|c| !ws.config.authored && !c.is_empty())
        });

    let mut skill = Skill {
        scope: dir.scope.clone(),
        file: file.to_string(),
        dir: dir.dir.clone(),
        folder_name: own_folder.to_string(),
        name,
        name_pos,
        description_pos,
        examples_pos: examples_pos(&doc, &fm.trigger_examples),
        namespace,
        category,
        frontmatter: fm,
        prose: Default::default(),
        body,
        body_first_line,
        compact: None,
        localized: BTreeMap::new(),
        tool_notes: Vec::new(),
        sources: Vec::new(),
        vars_json: BTreeMap::new(),
        assets: Vec::new(),
        package: outside_package(ws, &dir.dir),
        plugin,
    };

    for (inner, raw) in &dir.files {
        add_file(&mut skill, inner, raw, &ws.config, out, texts);
    }
    single_skill_checks(&skill, &doc, &ws.config, out);
    out.extend(crate::parse::safety::scan_skill(&skill, texts));
    Some(skill)
}

/// Where a diagnostic about the skill's name and its description points: their values in the
/// frontmatter, or its first line when it has none.
fn name_and_description_pos(doc: &YamlDoc, fm: &crate::model::Frontmatter) -> (Pos, Pos) {
    let name = match &fm.name {
        Some(n) => doc.value_pos("name", n.trim()),
        None => Pos::line(1),
    };
    let description = match &fm.description {
        Some(_) => doc.key_pos("description"),
        None => Pos::line(1),
    };
    (name, description)
}

/// An outside repository's skill carries its entry's package id: untrusted unless the entry
/// says `trust: true`.
fn outside_package(ws: &Workspace, dir: &str) -> Option<String> {
    (ws.config.external.iter())
        .find(|e| dir.starts_with(&format!("{}/", e.into)))
        .map(|e| e.package_id())
}

fn two_skill_files(other: &crate::discover::fsio::RawFile) -> Diagnostic {
    Diagnostic::new(
        codes::TWO_SKILL_FILES,
        &other.rel,
        Pos::start(),
        "both SKILL.md and skill.md exist; skill.md is ignored",
    )
    .with_help("keep one of the two files")
}

/// Where each trigger example is written (a repeated one: its own occurrence).
fn examples_pos(doc: &crate::parse::yaml::YamlDoc, examples: &[String]) -> Vec<Pos> {
    let occurrence = |n: usize| examples[..n].iter().filter(|x| **x == examples[n]).count();
    (0..examples.len())
        .map(|n| doc.value_pos_nth("trigger_examples", &examples[n], occurrence(n)))
        .collect()
}

/// The namespace a skill's path gives (`internal/…`), else its root's default.
pub(super) fn namespace_of(dir: &SkillDir<'_>) -> String {
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
pub(super) fn skill_name(
    f: &mut Fields<'_>,
    doc: &YamlDoc,
    fm: &Frontmatter,
    folder: &str,
) -> String {
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
pub(super) fn add_file(
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
                    fsio::FileContent::Bytes(b) => (b.len() as u64, AssetData::Bytes(b.clone())),
                    _ => {
                        if let Err(d) = fsio::bytes_of(raw) {
                            out.push(d);
                        }
                        return;
                    }
                };
                if let (OPENAI_YAML, AssetData::Bytes(b)) = (other, &data) {
                    codex_meaning(&mut skill.frontmatter, b);
                }
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
pub(super) fn single_skill_checks(
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
    translations(skill, &defined, out);
}

/// The checks of a skill's translations: their source tokens, a copy of the default text
/// (W131), a translation made from an older default (W121).
fn translations(skill: &Skill, defined: &[u32], out: &mut Vec<Diagnostic>) {
    let digest = skill.translation_digest();
    for l in skill.localized.values() {
        let first = l.body_first_line();
        sources::check_tokens(&l.file, &l.body, first, defined, out);
        if l.is_copy_of(skill) {
            let at = l.translated_from.as_ref().map_or(Pos::line(1), |(_, p)| *p);
            out.push(
                Diagnostic::new(
                    codes::UNTRANSLATED_COPY,
                    &l.file,
                    at,
                    format!(
                        "the `{}` text of `{}` is still the default text, word for word: visitors in `{}` read it untranslated",
                        l.locale, skill.name, l.locale
                    ),
                )
                .with_help("translate its description, trigger examples and body, or delete the file (the default text is used without it)"),
            );
            continue;
        }
        if let Some((from, pos)) = l.translated_from.as_ref().filter(|(d, _)| *d != digest) {
            out.push(
                Diagnostic::new(
                    codes::STALE_TRANSLATION,
                    &l.file,
                    *pos,
                    format!(
                        "the `{}` text of `{}` was translated from an older default: its description, trigger examples or body changed since",
                        l.locale, skill.name
                    ),
                )
                .with_help(format!(
                    "bring the translation up to date, then set `translated_from: {digest}` (the studio does this when you save the translation); it was `{from}`"
                )),
            );
        }
    }
}

/// `SKILL.fr-ca.md` → `fr-ca`.
pub(super) fn localized_locale(inner: &str) -> Option<&str> {
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

pub(super) fn load_localized(
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
        translated_from: None,
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
        read_localized_frontmatter(&mut l, &raw.rel, &text, out)?;
    }
    Some(l)
}

/// The fields of a localized file's frontmatter, and its body after it; `None` when the
/// frontmatter cannot be read (the diagnostic says why).
fn read_localized_frontmatter(
    l: &mut Localized,
    file: &str,
    text: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<()> {
    let split = yaml::split_frontmatter(file, text)
        .map_err(|d| out.push(d))
        .ok()?;
    let doc = yaml::parse_mapping(file, split.yaml, split.yaml_first_line)
        .map_err(|d| out.push(d))
        .ok()?;
    let mut f = Fields {
        file,
        doc: &doc,
        diagnostics: out,
    };
    l.description = f.string("description");
    l.trigger_examples = doc
        .get("trigger_examples")
        .map(|_| f.string_list("trigger_examples"));
    l.when_to_use = doc.get("when_to_use").map(|_| f.string_list("when_to_use"));
    l.translated_from = f.string("translated_from").map(|d| {
        (
            d.trim().to_string(),
            doc.value_pos("translated_from", d.trim()),
        )
    });
    for key in doc.keys() {
        if !matches!(
            key.as_str(),
            "description" | "trigger_examples" | "when_to_use" | "name" | "translated_from"
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
    Some(())
}

pub(super) fn portability(
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
    if let Some(c) = fm.text("compatibility") {
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

/// Where Codex reads a skill's interface, policy and dependencies.
const OPENAI_YAML: &str = "agents/openai.yaml";

/// What Codex's `agents/openai.yaml` says in skillc's terms: `policy.allow_implicit_invocation:
/// false` is `hidden_from_llm`, and `interface.display_name` is `displayName` unless the
/// SKILL.md gives one. The file stays an asset of the skill, so an export for Codex gives it
/// back as it was.
fn codex_meaning(fm: &mut Frontmatter, bytes: &[u8]) {
    let Ok(doc) = serde_yaml::from_slice::<serde_yaml::Value>(bytes) else {
        return; // another tool's file: not ours to refuse
    };
    if doc["policy"]["allow_implicit_invocation"] == serde_yaml::Value::Bool(false) {
        fm.hidden_from_llm = true;
    }
    if let Some(name) = doc["interface"]["display_name"].as_str() {
        let name = serde_json::Value::from(name);
        fm.plain.entry("display_name".into()).or_insert(name);
    }
}
