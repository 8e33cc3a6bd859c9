//! Loading the workspace's settings: `workspace.yaml`, each client's `client.yaml`, and the
//! categories (`CATEGORY.md`) skills are filed under.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::cache::{ClientParse, ParseCache};
use super::{markdown_file, text_of, yaml_file, Texts};
use crate::diagnostic::{codes, Diagnostic, Pos};
use crate::discover::fsio::RawFile;
use crate::discover::layout::SkillDir;
use crate::discover::{fsio, layout};
use crate::model::{Scope, Workspace, WorkspaceConfig};
use crate::parse::config;
use crate::parse::fields::Fields;
/// `workspace.yaml`, `variables.json` and the templates.
pub(super) fn settings(
    main: &layout::Layout<'_>,
    out: &mut Vec<Diagnostic>,
    texts: &mut Texts,
) -> Workspace {
    let config = match main.workspace_yaml.and_then(|f| yaml_file(f, out, texts)) {
        Some(doc) => config::workspace(&mut Fields {
            file: "workspace.yaml",
            doc: &doc,
            diagnostics: out,
        }),
        None => WorkspaceConfig::default(),
    };
    let config = WorkspaceConfig {
        authored: main.workspace_yaml.is_some(),
        ..config
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
pub(super) fn clients(
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
pub(super) fn bare_client(id: &str) -> crate::model::Client {
    crate::model::Client {
        id: id.to_string(),
        file: format!("clients/{id}/client.yaml"),
        flags: serde_json::Value::Object(Default::default()),
        ..Default::default()
    }
}

pub(super) fn parse_client(file: &RawFile, id: &str, config: &WorkspaceConfig) -> ClientParse {
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
pub(super) fn categories(
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

pub(super) fn folder_name(dir: &str) -> &str {
    dir.rsplit('/').next().unwrap_or(dir)
}

/// The category of a skill folder: the nearest ancestor holding CATEGORY.md inside its scope;
/// for client skills, else the nearest ancestor named like a defined category.
pub(super) fn category_of(
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
