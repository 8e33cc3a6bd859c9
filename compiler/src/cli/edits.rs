//! The commands that write into a workspace: `set`, `toggle`, `pack` and `unpack`. Each writes
//! everything or nothing.

use std::path::{Path, PathBuf};

use skillc::interop::package;

use super::args::{PackArgs, SetArgs, ToggleArgs, UnpackArgs};
use super::{Done, Failure};

/// `skillc pack`: the skill folder as a ZIP package.
pub(crate) fn pack(args: &PackArgs) -> Done {
    let (skill_dir, output) = (&args.skill_dir, &args.output);
    let n =
        package::pack(skill_dir, output, args.flat).map_err(|e| package_failure(e, skill_dir))?;
    outln!("packed {} files into {}", n, output.display());
    Ok(())
}

/// `skillc unpack`: the package's skill into the workspace, checked before anything is written.
pub(crate) fn unpack(args: &UnpackArgs) -> Done {
    let admit = package::Admit {
        force: args.force,
        findings: args.accept_findings,
    };
    let (archive, limits) = (&args.package, package::Limits::default());
    let u = package::unpack_admitting(archive, &args.workspace, admit, &limits)
        .map_err(|e| package_failure(e, archive))?;
    outln!(
        "unpacked `{}` into {} ({} files; untrusted unless workspace.yaml trusts it)",
        u.name,
        u.dir.display(),
        u.files
    );
    Ok(())
}

/// `skillc set`: one field or dotted path set or removed.
pub(crate) fn set(args: &SetArgs) -> Done {
    let file = &args.file;
    let (unset, field, value) = (
        args.unset.as_deref(),
        args.field.as_deref(),
        args.value.as_deref(),
    );
    let (field, edit) = match (unset, field, value) {
        (Some(f), None, None) => (f, skillc::edit::FieldEdit::Unset),
        (None, Some(f), Some(v)) => (f, skillc::edit::FieldEdit::Set(v)),
        _ => {
            return Err(Failure::usage(
                "give FIELD (or PATH) and YAML_VALUE, or --unset FIELD (or PATH)",
            ))
        }
    };
    // workspace.yaml and client.yaml by a dotted path; anything else as a SKILL.md, as before.
    let done = if skillc::edit::is_settings_file(file) {
        skillc::edit::set_path_in_file(file, field, &edit)
    } else {
        skillc::edit::set_field_in_file(file, field, &edit)
    };
    edited(done.map(|()| file.to_path_buf()))
}

/// `toggle [WORKSPACE] --client ID [--client ID …] SKILL STATE`: the workspace is optional
/// and comes first.
pub(crate) fn toggle(args: &ToggleArgs) -> Done {
    let (first, second) = (args.first.as_str(), args.second.as_str());
    let (workspace, skill, state) = match args.third.as_deref() {
        Some(state) => (PathBuf::from(first), second, state),
        None => (PathBuf::from("."), first, second),
    };
    let toggle = match state {
        "on" => skillc::edit::Toggle::On,
        "off" => skillc::edit::Toggle::Off,
        "default" => skillc::edit::Toggle::Default,
        other => {
            return Err(Failure::usage(format!(
                "the state is `on`, `off` or `default`, not `{other}`"
            )))
        }
    };
    if let [client] = args.client.as_slice() {
        return edited(skillc::edit::toggle_in_workspace(
            &workspace, client, skill, toggle,
        ));
    }
    // A chosen set of clients: the studio's bulk edit, one check for them all.
    let changes: Vec<(&str, &str, skillc::edit::Toggle)> = (args.client.iter())
        .map(|c| (c.as_str(), skill, toggle))
        .collect();
    let mut session = skillc::Session::default();
    match skillc::edit::toggles_in_workspace_with(&workspace, &changes, &mut session) {
        Ok(written) if written.is_empty() => {
            outln!("nothing to change: every client already has it so");
            Ok(())
        }
        Ok(written) => written.into_iter().try_for_each(|path| edited(Ok(path))),
        Err(e) => edited(Err(e)),
    }
}

/// What `set` and `toggle` say of their edit.
fn edited(done: Result<PathBuf, skillc::edit::Error>) -> Done {
    match done {
        Ok(path) => {
            outln!("edited {}", path.display());
            Ok(())
        }
        Err(skillc::edit::Error::Refused(diags)) => {
            eprint!("{}", skillc::render_text(&diags, ""));
            Err(Failure::Errors(
                "the edit would leave these problems; nothing was written".to_string(),
            ))
        }
        Err(e @ skillc::edit::Error::Invalid(_)) => {
            Err(Failure::Errors(format!("{e}; nothing was written")))
        }
        Err(e @ skillc::edit::Error::Io { .. }) => {
            Err(Failure::Usage(format!("{e}; nothing was written")))
        }
    }
}

/// A package that could not be made or taken in: its skill's diagnostics, then why.
fn package_failure(e: package::Error, path: &Path) -> Failure {
    match e {
        package::Error::Invalid(mut diags) => {
            skillc::diagnostic::sort(&mut diags);
            eprint!("{}", skillc::render_text(&diags, ""));
            Failure::Errors(format!(
                "`{}`: the skill has errors; nothing was written",
                path.display()
            ))
        }
        package::Error::Unsafe(mut diags) => {
            skillc::diagnostic::sort(&mut diags);
            eprint!("{}", skillc::render_text(&diags, ""));
            Failure::Errors(format!(
                "`{}`: refused for the content-safety findings above (an agent given this skill \
                 could be turned against its user); read them, then --accept-findings to take it \
                 untrusted; nothing was written",
                path.display()
            ))
        }
        e @ package::Error::Refused { .. } => Failure::Errors(format!("{e}; nothing was written")),
        e @ (package::Error::Io { .. } | package::Error::OutputNotAFile(..)) => Failure::usage(e),
    }
}
