//! The commands for working on a workspace together: `merge` (also git's merge driver),
//! `rename` and `reach`.

use std::path::{Path, PathBuf};

use skillc::edit::merge;

use skillc::relations::{self, reach::ClientShare, Link, Reach};

use super::args::{MergeArgs, OutputFormat, ReachArgs, RenameArgs};
use super::{Done, Failure};

/// `skillc merge BASE OURS THEIRS`: the merged text over OURS (or to `-o`), exit 1 with
/// conflicts marked, each named on stderr.
pub(crate) fn merge(args: &MergeArgs) -> Done {
    let kind = merge::Kind::of(args.path.as_deref().unwrap_or(&args.ours));
    let sides = [&*args.base, &*args.ours, &*args.theirs];
    let merged = merge::merge_files(kind, sides, args.marker_size).map_err(|e| match e {
        skillc::edit::Error::Io { .. } | skillc::edit::Error::Invalid(_) => {
            Failure::usage(format!("{e}; nothing was written"))
        }
        skillc::edit::Error::Refused(_) => Failure::usage(e),
    })?;
    let output = args.output.as_deref().unwrap_or(&args.ours);
    if output == Path::new("-") {
        out!("{}", merged.text);
    } else {
        skillc::edit::write_atomic(output, merged.text.as_bytes())
            .map_err(|e| Failure::usage(format!("{e}; nothing was written")))?;
    }
    if merged.conflicts.is_empty() {
        return Ok(());
    }
    let name = args.path.as_deref().unwrap_or(output).display();
    for c in &merged.conflicts {
        eprintln!("{name}:{}: conflict in {}", c.line, c.place);
    }
    Err(Failure::Errors(format!(
        "{} conflict{} left marked in {name}",
        merged.conflicts.len(),
        if merged.conflicts.len() == 1 { "" } else { "s" }
    )))
}

/// `skillc rename [WORKSPACE] OLD NEW [--dry-run]`: every change listed (`file:line: old → new`),
/// then written unless `--dry-run`.
pub(crate) fn rename(args: &RenameArgs) -> Done {
    let (root, old, new) = match &args.third {
        Some(new) => (PathBuf::from(&args.first), &*args.second, &**new),
        None => (PathBuf::from("."), &*args.first, &*args.second),
    };
    let dry_run = args.dry_run;
    let rename = skillc::edit::rename::rename(&root, old, new, dry_run).map_err(|e| match e {
        skillc::edit::Error::Io { .. } => Failure::usage(format!("{e}; nothing was written")),
        e => Failure::Errors(format!("{e}; nothing was written")),
    })?;
    // Paths as the command line named the workspace, so they can be opened from here.
    let shown = |rel: &str| match root.as_os_str() == "." {
        true => rel.to_string(),
        false => root.join(rel).display().to_string(),
    };
    for c in &rename.changes {
        let (old, new) = (c.old.trim(), c.new.trim());
        outln!("{}:{}: {old} → {new}", shown(&c.file), c.line);
    }
    for m in &rename.moves {
        outln!("{}/ → {}/", shown(&m.from), shown(&m.to));
    }
    let files = rename
        .changes
        .iter()
        .map(|c| &c.file)
        .collect::<std::collections::BTreeSet<_>>();
    outln!(
        "{} `{old}` to `{new}`: {} lines in {} files, {} folders moved{}",
        if dry_run { "would rename" } else { "renamed" },
        rename.changes.len(),
        files.len(),
        rename.moves.len(),
        if dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    );
    Ok(())
}

/// `skillc reach [WORKSPACE] SKILL`: whom an edit of the skill's text reaches, as the studio's
/// relations panel says it ([`skillc::relations::reach`]): in words, or as JSON.
pub(crate) fn reach(args: &ReachArgs) -> Done {
    let (root, skill) = match &args.second {
        Some(skill) => (PathBuf::from(&args.first), &**skill),
        None => (PathBuf::from("."), &*args.first),
    };
    let report = skillc::workspace_check::check(&root, &skillc::CheckOptions::default())
        .map_err(Failure::usage)?;
    let ws = &report.workspace;
    let file = skill_file(ws, &root, skill, args.client.as_deref())?;
    let found = relations::of(ws, &file)
        .ok_or_else(|| Failure::usage(format!("`{file}` is not a skill of the workspace")))?;
    match args.format {
        OutputFormat::Json => {
            let out = serde_json::json!({"skill": found.link, "reach": found.reach});
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        OutputFormat::Text => out!("{}", reach_words(&found.link, &found.reach)),
    }
    Ok(())
}

/// The SKILL.md `skill` names: a file (a translation's counts as its skill's), or a name,
/// global unless `client` says whose own skill.
fn skill_file(
    ws: &skillc::Workspace,
    root: &Path,
    skill: &str,
    client: Option<&str>,
) -> Result<String, Failure> {
    // A file as given from here (absolute, or under the workspace's folder), else as a path
    // inside the workspace.
    let as_file = Path::new(skill);
    let inside = match (as_file.canonicalize(), root.canonicalize()) {
        (Ok(file), Ok(root)) => file.strip_prefix(root).ok().map(Path::to_path_buf),
        _ => None,
    };
    let rel = (inside.as_deref())
        .unwrap_or(as_file)
        .to_string_lossy()
        .replace('\\', "/");
    let default_text = |f: &str| match f.rsplit_once('/') {
        Some((dir, name)) if name.starts_with("SKILL.") && name.ends_with(".md") => {
            format!("{dir}/SKILL.md")
        }
        _ => f.to_string(),
    };
    if skill.ends_with(".md") {
        let file = default_text(&rel);
        return match ws.skills.iter().any(|s| s.file == file) {
            true => Ok(file),
            false => Err(Failure::usage(format!(
                "`{skill}` is not a skill's SKILL.md in {}",
                root.display()
            ))),
        };
    }
    let whose = |s: &skillc::model::Skill| match (&s.scope, client) {
        (skillc::model::Scope::Global, None) => true,
        (skillc::model::Scope::Client(c), Some(want)) => c == want,
        _ => false,
    };
    match ws.skills.iter().find(|s| s.name == skill && whose(s)) {
        Some(s) => Ok(s.file.clone()),
        None => {
            let others: Vec<String> = (ws.skills.iter())
                .filter(|s| s.name == skill)
                .map(|s| match &s.scope {
                    skillc::model::Scope::Client(c) => format!("{c}'s own (--client {c})"),
                    skillc::model::Scope::Global => "the global one (no --client)".to_string(),
                })
                .collect();
            let hint = match others.is_empty() {
                true => String::new(),
                false => format!("; there is {}", others.join(", and ")),
            };
            let whose = client.map_or("global skill".to_string(), |c| {
                format!("skill of client `{c}`")
            });
            Err(Failure::usage(format!("no {whose} named `{skill}`{hint}")))
        }
    }
}

/// The reach in words, a line each: who gets this text, then each client that gets another.
fn reach_words(skill: &Link, r: &Reach) -> String {
    let mut out = String::new();
    let file = skill.file.as_deref().unwrap_or(&skill.name);
    let count = |n: usize| match n {
        1 => "1 client gets".to_string(),
        n => format!("{n} clients get"),
    };
    let head = match skill.client.is_empty() {
        false if r.getting + r.partly.len() > 0 => {
            format!("only {}'s visitors get this text", skill.client)
        }
        false => format!(
            "only {}'s visitors would get this text (it is turned off for them)",
            skill.client
        ),
        true => {
            let some = match r.partly.len() {
                0 => String::new(),
                n => format!(", {n} more in some of their bundles"),
            };
            let global = if r.global {
                ", and visitors of no client"
            } else {
                ""
            };
            format!(
                "{} this text{some}, of {}{global}",
                count(r.getting),
                r.clients
            )
        }
    };
    out.push_str(&format!("{} ({file}): {head}.\n", skill.name));
    for l in &r.own_version {
        let own = l.file.as_deref().unwrap_or(&l.name);
        out.push_str(&format!(
            "  {} uses its own version instead: {own}\n",
            l.client
        ));
    }
    for c in &r.instead {
        out.push_str(&format!("  {}\n", instead_words(c)));
    }
    for c in &r.partly {
        let mine: Vec<&str> = (c.shares.iter().filter(|s| s.this))
            .map(|s| s.place.as_str())
            .collect();
        let elsewhere = places(c.shares.iter().filter(|s| !s.this));
        out.push_str(&format!(
            "  {} gets this text {}; elsewhere {elsewhere}\n",
            c.client,
            mine.join(", ")
        ));
    }
    for v in &r.replaced_when {
        let whose = match v.link.client.is_empty() {
            true => "visitors get".to_string(),
            false => format!("{}'s visitors get", v.link.client),
        };
        let when = match v.when.is_empty() {
            true => String::new(),
            false => format!(" when {}", v.when.join(" and ")),
        };
        out.push_str(&format!(
            "  {whose} {}{when}, and never see this one\n",
            v.link.name
        ));
    }
    if !r.turned_off.is_empty() {
        out.push_str(&format!("  turned off for {}\n", r.turned_off.join(", ")));
    }
    if !r.conditions.is_empty() {
        out.push_str(&format!(
            "  at run time, only where {}\n",
            r.conditions.join(" and ")
        ));
    }
    out
}

/// A client that never gets this text: the one it gets instead, or each with where.
fn instead_words(c: &ClientShare) -> String {
    match c.shares.as_slice() {
        [one] => format!("{} always gets {} instead", c.client, one.text.name),
        shares => format!(
            "{} never gets this text: {}",
            c.client,
            places(shares.iter())
        ),
    }
}

fn places<'a>(shares: impl Iterator<Item = &'a relations::reach::Share>) -> String {
    let each: Vec<String> = shares
        .map(|s| format!("{} {}", s.text.name, s.place))
        .collect();
    each.join(", ")
}
