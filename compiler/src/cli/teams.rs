//! The commands for working on a workspace together: `merge` (also git's merge driver) and
//! `rename`.

use std::path::{Path, PathBuf};

use skillc::edit::merge;

use super::args::{MergeArgs, RenameArgs};
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
