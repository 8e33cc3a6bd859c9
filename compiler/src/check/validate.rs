//! Checks across skills and files: duplicates, references, variants, cycles, client
//! configuration and required variables.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{codes, Diagnostic};
use crate::model::{Scope, Skill, SkillRef, Workspace};
use crate::parse::names;
use crate::parse::refs::Index;

/// Every cross-file check over a loaded workspace. In a session, the last pass's diagnostics
/// when what it read is the same, and this pass kept in its memory for the next.
pub(crate) fn validate(
    ws: &Workspace,
    recall: super::Recall<'_>,
    options: &super::CheckOptions,
) -> Vec<Diagnostic> {
    let mut out = match recall.memory() {
        Some(memory) => across_remembered(ws, memory),
        None => across(ws),
    };
    if !options.only_errors {
        out.extend(super::overlap::warnings(ws, recall));
        out.extend(super::routing::warnings(ws, recall));
    }
    out.extend(super::targets::warnings(ws));
    out.extend(super::template_descriptions::warnings(ws));
    out.extend(super::clients::warnings(ws));
    secrets_elsewhere(ws, &mut out);
    assets_total(ws, &mut out);
    out
}

/// E003: assets past what an artifact holds ([`crate::discover::fsio::large::MAX_ASSET_BYTES`]).
fn assets_total(ws: &Workspace, out: &mut Vec<Diagnostic>) {
    use crate::discover::fsio::large::MAX_ASSET_BYTES;
    let total = ws.asset_bytes();
    if total > MAX_ASSET_BYTES {
        out.push(
            Diagnostic::new(
                codes::TOO_LARGE,
                "",
                crate::diagnostic::Pos::start(),
                format!(
                    "the skills' assets come to {total} bytes, over the {MAX_ASSET_BYTES} bytes an artifact holds"
                ),
            )
            .with_help("keep large data out of skill folders (a runtime can fetch it), or split the workspace"),
        );
    }
}

/// W120: a name some skill declares secret, used or declared plainly by another skill. It reads
/// bodies, so it is not part of the remembered pass (a body edit can add a use).
fn secrets_elsewhere(ws: &Workspace, out: &mut Vec<Diagnostic>) {
    let secrets = ws.secret_names();
    if secrets.is_empty() {
        return;
    }
    for s in &ws.skills {
        let declared_secret = |name: &str| s.frontmatter.vars.get(name).is_some_and(|d| d.secret);
        let mut seen = BTreeSet::new();
        let declared = s.frontmatter.vars.keys().map(|n| (n.as_str(), None));
        let written = crate::parse::vars::placeholders(&s.body)
            .into_iter()
            .map(|n| (n, Some(())));
        for (name, in_body) in declared.chain(written) {
            if !secrets.contains(name) || declared_secret(name) || !seen.insert(name) {
                continue;
            }
            let pos = match in_body {
                Some(()) => placeholder_pos(s, name),
                None => s.name_pos,
            };
            let how = if in_body.is_some() {
                format!("writes `{{{{{name}}}}}`")
            } else {
                format!("declares `{name}` without `secret: true`")
            };
            out.push(
                Diagnostic::new(
                    codes::SECRET_ELSEWHERE,
                    &s.file,
                    pos,
                    format!("skill `{}` {how}, a variable another skill declares secret: it stays a placeholder here too, for the runtime to fill", s.name),
                )
                .with_help("declare it in this skill's `vars` with `secret: true` (or give this skill's variable another name)"),
            );
        }
    }
}

/// Where `{{name}}` first appears in a skill's body, as a position in its file.
fn placeholder_pos(s: &Skill, name: &str) -> crate::diagnostic::Pos {
    let needle = format!("{{{{{name}}}}}");
    let Some(at) = s.body.find(&needle) else {
        return s.name_pos;
    };
    let before = &s.body[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    crate::diagnostic::Pos {
        line: s.body_first_line + before.matches('\n').count(),
        column: before[line_start..].chars().count() + 1,
        len: needle.chars().count(),
    }
}

/// What [`across`] reads of a workspace: the skills but their bodies and the files beside
/// them (held, so that most compare by address), the clients and `variables.json`.
#[derive(Debug)]
pub(super) struct Inputs {
    skills: Vec<std::sync::Arc<Skill>>,
    clients: BTreeMap<String, crate::model::Client>,
    variables: BTreeMap<String, BTreeMap<String, String>>,
}

impl Inputs {
    fn read_alike(&self, ws: &Workspace) -> bool {
        self.skills.len() == ws.skills.len()
            && self.variables == ws.variables
            && self.clients == ws.clients
            && self
                .skills
                .iter()
                .zip(&ws.skills)
                .all(|(a, b)| std::sync::Arc::ptr_eq(a, b) || same_outside_content(a, b))
    }
}

/// Whether two skills are the same in all that [`across`] reads (a body edit is not).
fn same_outside_content(a: &Skill, b: &Skill) -> bool {
    a.scope == b.scope
        && a.file == b.file
        && a.dir == b.dir
        && a.name == b.name
        && a.name_pos == b.name_pos
        && a.namespace == b.namespace
        && a.frontmatter == b.frontmatter
        && a.vars_json == b.vars_json
}

/// [`across`], or the session's last pass when it read the same (watch and the studio check
/// the same workspace over and over, and most edits are to bodies).
fn across_remembered(ws: &Workspace, memory: &super::Memory) -> Vec<Diagnostic> {
    if let Ok(last) = memory.across.lock() {
        if let Some((_, diagnostics)) = last.as_ref().filter(|(seen, _)| seen.read_alike(ws)) {
            return diagnostics.clone();
        }
    }
    let out = across(ws);
    let inputs = Inputs {
        skills: ws.skills.clone(),
        clients: ws.clients.clone(),
        variables: ws.variables.clone(),
    };
    if let Ok(mut last) = memory.across.lock() {
        *last = Some((inputs, out.clone()));
    }
    out
}

/// The checks across skills and files but the look-alike pass.
fn across(ws: &Workspace) -> Vec<Diagnostic> {
    let index = Index::new(ws);
    let mut out = Vec::new();
    duplicates(ws, &mut out);
    references(ws, &index, &mut out);
    variants(ws, &index, &mut out);
    cycles(
        ws,
        &index,
        "import",
        codes::IMPORT_CYCLE,
        |s| s.frontmatter.imports.iter().collect(),
        &mut out,
    );
    cycles(
        ws,
        &index,
        "pipeline",
        codes::PIPELINE_CYCLE,
        |s| {
            s.frontmatter
                .next_skill
                .iter()
                .chain(s.frontmatter.conditional_next_skills.values())
                .collect()
        },
        &mut out,
    );
    clients(ws, &index, &mut out);
    required_variables(ws, &mut out);
    out
}

fn duplicates(ws: &Workspace, out: &mut Vec<Diagnostic>) {
    let mut seen: rustc_hash::FxHashMap<(&Scope, String), &Skill> = Default::default();
    for s in &ws.skills {
        match seen.get(&(&s.scope, s.qualified_name())) {
            Some(first) => out.push(
                Diagnostic::new(
                    codes::DUPLICATE_SKILL,
                    &s.file,
                    s.name_pos,
                    format!("skill `{}` is already defined by {}", s.qualified_name(), first.file),
                )
                .with_help("names are unique per namespace within the global skills and within each client"),
            ),
            None => {
                seen.insert((&s.scope, s.qualified_name()), s);
            }
        }
    }
}

/// Every skill reference of a skill, with the field it is written in.
fn all_refs(s: &Skill) -> Vec<(&'static str, &SkillRef)> {
    let fm = &s.frontmatter;
    let mut v: Vec<(&'static str, &SkillRef)> = Vec::new();
    v.extend(fm.dependencies.iter().map(|r| ("dependencies", r)));
    v.extend(fm.augments.iter().map(|r| ("augments", r)));
    v.extend(fm.blocks.iter().map(|r| ("blocks", r)));
    v.extend(fm.distinct_from.iter().map(|r| ("distinct_from", r)));
    v.extend(fm.imports.iter().map(|r| ("imports", r)));
    v.extend(fm.requires.skills.iter().map(|r| ("requires.skills", r)));
    v.extend(fm.variant_of.iter().map(|r| ("variant_of", r)));
    v.extend(fm.next_skill.iter().map(|r| ("next_skill", r)));
    v.extend(
        fm.conditional_next_skills
            .values()
            .map(|r| ("conditional_next_skills", r)),
    );
    v
}

fn references(ws: &Workspace, index: &Index<'_>, out: &mut Vec<Diagnostic>) {
    // Needed only for a reference that names nothing, which most workspaces do not have.
    let names = std::cell::OnceCell::new();
    for s in &ws.skills {
        for (field, r) in all_refs(s) {
            if index.resolve(&r.text, &s.scope).is_some() || index.exists_anywhere(&r.text) {
                continue;
            }
            let mut d = Diagnostic::new(
                codes::UNKNOWN_SKILL,
                &s.file,
                r.pos,
                format!("unknown skill `{}` in `{field}`", r.text),
            );
            let (ns, bare) = crate::parse::refs::split(&r.text);
            if let Some(other) = ns.and_then(|_| index.resolve(&bare, &s.scope)) {
                d = d.with_help(format!(
                    "`{bare}` exists as `{}`",
                    ws.skills[other].qualified_name()
                ));
            } else if let Some(m) =
                names::did_you_mean(&bare, names.get_or_init(|| index.names()).iter().copied())
            {
                d = d.with_help(format!("did you mean `{m}`?"));
            }
            out.push(d);
        }
    }
}

fn variants(ws: &Workspace, index: &Index<'_>, out: &mut Vec<Diagnostic>) {
    for s in &ws.skills {
        let Some(base_ref) = &s.frontmatter.variant_of else {
            continue;
        };
        let Some(base) = index.resolve(&base_ref.text, &s.scope) else {
            continue;
        };
        let base = &ws.skills[base];
        if std::ptr::eq(base, s) {
            out.push(Diagnostic::new(
                codes::BAD_VARIANT,
                &s.file,
                base_ref.pos,
                "a skill cannot be a variant of itself",
            ));
        } else if base.frontmatter.variant_of.is_some() {
            out.push(
                Diagnostic::new(
                    codes::BAD_VARIANT,
                    &s.file,
                    base_ref.pos,
                    format!(
                        "`{}` is itself a variant; variants name their base skill",
                        base.name
                    ),
                )
                .with_help(format!(
                    "write `variant_of: {}`",
                    base.frontmatter
                        .variant_of
                        .as_ref()
                        .map_or("", |r| r.text.as_str())
                )),
            );
        }
    }
}

/// Reports each cycle of the graph given by `edges` once, at the reference that closes it.
fn cycles<'w>(
    ws: &'w Workspace,
    index: &Index<'_>,
    what: &str,
    code: &'static str,
    edges: impl Fn(&'w Skill) -> Vec<&'w SkillRef>,
    out: &mut Vec<Diagnostic>,
) {
    let n = ws.skills.len();
    let targets: Vec<Vec<(usize, &SkillRef)>> = ws
        .skills
        .iter()
        .map(|s| {
            edges(s)
                .into_iter()
                .filter_map(|r| index.resolve(&r.text, &s.scope).map(|t| (t, r)))
                .collect()
        })
        .collect();
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; n];
    let mut reported: BTreeSet<BTreeSet<usize>> = BTreeSet::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(t, r)) = targets[node].get(*next) {
                *next += 1;
                match state[t] {
                    0 => {
                        state[t] = 1;
                        stack.push((t, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|(x, _)| *x == t).unwrap_or(0);
                        let members: BTreeSet<usize> =
                            stack[from..].iter().map(|(x, _)| *x).collect();
                        if reported.insert(members.clone()) {
                            let path: Vec<&str> = stack[from..]
                                .iter()
                                .map(|(x, _)| ws.skills[*x].name.as_str())
                                .chain(std::iter::once(ws.skills[t].name.as_str()))
                                .collect();
                            let s = &ws.skills[node];
                            out.push(
                                Diagnostic::new(
                                    code,
                                    &s.file,
                                    r.pos,
                                    format!("{what} cycle: {}", path.join(" → ")),
                                )
                                .with_help(if what == "import" {
                                    "handled: each skill is included once; remove one link to make the intent clear"
                                } else {
                                    "handled: transitions stop at `pipeline_max_depth`"
                                }),
                            );
                        }
                    }
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
}

fn clients(ws: &Workspace, index: &Index<'_>, out: &mut Vec<Diagnostic>) {
    for c in ws.clients.values() {
        let scope = Scope::Client(c.id.clone());
        for (name, toggle) in &c.toggles {
            if index.resolve(name, &scope).is_none() {
                let mut d = Diagnostic::new(
                    codes::UNKNOWN_TOGGLE,
                    &c.file,
                    toggle.pos,
                    format!("toggle for unknown skill `{name}`"),
                );
                if let Some(m) = names::did_you_mean(name, index.names()) {
                    d = d.with_help(format!("did you mean `{m}`?"));
                }
                out.push(d);
            }
        }
        for section in c.vars.keys() {
            if section != "_global" && index.resolve(section, &scope).is_none() {
                let mut d = Diagnostic::new(
                    codes::UNKNOWN_TOGGLE,
                    &c.file,
                    crate::diagnostic::Pos::start(),
                    format!("`vars` for unknown skill `{section}`"),
                );
                if let Some(m) = names::did_you_mean(section, index.names()) {
                    d = d.with_help(format!("did you mean `{m}`?"));
                }
                out.push(d);
            }
        }
    }
    for section in ws.variables.keys() {
        if section != "_global" && !index.exists_anywhere(section) {
            out.push(Diagnostic::new(
                codes::UNKNOWN_TOGGLE,
                "variables.json",
                crate::diagnostic::Pos::start(),
                format!("variables for unknown skill `{section}`"),
            ));
        }
    }
}

fn required_variables(ws: &Workspace, out: &mut Vec<Diagnostic>) {
    for s in &ws.skills {
        for (var, decl) in &s.frontmatter.vars {
            if !decl.required || decl.secret || decl.default.is_some() {
                continue;
            }
            let in_section = |section: &BTreeMap<String, BTreeMap<String, String>>| {
                section.get(&s.name).is_some_and(|v| v.contains_key(var))
                    || section.get("_global").is_some_and(|v| v.contains_key(var))
            };
            let resolved = s.vars_json.contains_key(var)
                || in_section(&ws.variables)
                || some_client_sets(ws, &s.name, var)
                || std::env::var_os(var).is_some();
            if !resolved {
                out.push(
                    Diagnostic::new(
                        codes::UNRESOLVED_VARIABLE,
                        &s.file,
                        s.name_pos,
                        format!("required variable `{var}` has no value: skill `{}` will be unavailable", s.name),
                    )
                    .with_help(format!(
                        "set it in {}/vars.json, variables.json, a client's `vars`, or mark it `secret: true` for the runtime to fill",
                        s.dir
                    )),
                );
            }
        }
    }
}

/// Whether some client's `vars` sets `var` for the skill `name` or for all skills (in a batch
/// of clients, any client of the workspace).
fn some_client_sets(ws: &Workspace, name: &str, var: &str) -> bool {
    let sets = |section: &str| match ws.census.as_deref() {
        Some(census) => census
            .client_vars
            .contains(&(section.to_string(), var.to_string())),
        None => ws
            .clients
            .values()
            .any(|c| c.vars.get(section).is_some_and(|v| v.contains_key(var))),
    };
    sets(name) || sets("_global")
}
