//! The commands for working on a workspace together: `merge` (also git's merge driver).

use std::path::Path;

use skillc::edit::merge;

use super::args::MergeArgs;
use super::{Done, Failure};

/// `skillc merge BASE OURS THEIRS`: the merged text over OURS (or to `-o`), exit 1 with
/// conflicts marked, each named on stderr.
pub fn merge(args: &MergeArgs) -> Done {
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
