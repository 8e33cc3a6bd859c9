//! `skillc export`: a resolved bundle written as plain agentskills.io folders, each SKILL.md
//! as [`crate::skill_md`] writes it, assets copied.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skillc_runtime::{Artifact, BundleRef};

use crate::model::targets::Target;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The artifact could not answer.
    #[error(transparent)]
    Runtime(#[from] skillc_runtime::Error),
    /// Writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The output folder is not empty.
    #[error("`{0}` exists and is not empty; export writes into a new or empty folder")]
    NotEmpty(PathBuf),
    /// The artifact names an asset path that would be written outside its skill's folder (an
    /// artifact made by hand, or pulled from elsewhere); nothing was written.
    #[error(
        "the artifact's skill `{0}` has an asset path that is refused: {1}; nothing was written"
    )]
    UnsafeAsset(String, String),
    /// The output path holds something other than a folder.
    #[error("`{0}` is {1}, not a folder; export writes into a new or empty folder")]
    NotAFolder(PathBuf, &'static str),
}

/// What in the exported folders would fail `skills-ref validate` (a description over 1,024
/// characters, say): the agentskills.io rules (`--strict-spec`) applied to `out`, one line per
/// problem, naming the folder.
pub fn portability_problems(out: &Path) -> Vec<String> {
    portability_problems_for(out, None)
}

/// [`portability_problems`] of an export for `target`: a key of the client's own, written
/// for it on purpose, is no problem there (claude.ai and the Skills API take the six only).
pub fn portability_problems_for(out: &Path, target: Option<Target>) -> Vec<String> {
    let own_keys = target.is_some_and(|t| t != Target::ClaudeApi);
    let options = crate::CheckOptions {
        strict_spec: true,
        ..Default::default()
    };
    let Ok(report) = crate::check(out, &options) else {
        return Vec::new();
    };
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::Severity::Error)
        .filter(|d| !(own_keys && d.code == crate::diagnostic::codes::NOT_IN_SPEC))
        .map(|d| {
            let folder = d.file.split('/').next().unwrap_or(&d.file);
            format!(
                "exported folder `{folder}` would fail skills-ref validate: {} ({}:{})",
                d.message, d.file, d.line
            )
        })
        .collect()
}

/// What of an untrusted skill (from a package or an outside repository the workspace does not
/// trust, or an untrusted client overlay) an export left out: the code a client would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The skill's exported folder name.
    pub skill: String,
    /// Each thing left out: an asset's path, or a field and what it holds.
    pub items: Vec<String>,
}

/// What an export wrote, and what it left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exported {
    /// The skill folders written.
    pub dirs: Vec<PathBuf>,
    /// Per untrusted skill, its code that was not written (none with `include_untrusted`).
    pub left_out: Vec<LeftOut>,
    /// Per skill, for an export to one client, the fields that client does not carry (each
    /// with why), and the fields kept only under `metadata`, which no client acts on.
    pub not_carried: Vec<LeftOut>,
}

/// Writes every available skill of a bundle into `out/<portable name>/`, untrusted skills
/// without their code. Returns the folders.
pub fn export(artifact: &Path, bundle: &BundleRef<'_>, out: &Path) -> Result<Vec<PathBuf>, Error> {
    export_with(artifact, bundle, out, false).map(|e| e.dirs)
}

/// Writes every available skill of a bundle into `out/<portable name>/`. An untrusted skill's
/// code (its scripts and executables, its MCP server, the tools it would pre-approve) is left
/// out, and said, unless `include_untrusted`: a client runs what a skill folder holds, and
/// reads no field that would tell it the folder came from nobody the workspace trusts.
pub fn export_with(
    artifact: &Path,
    bundle: &BundleRef<'_>,
    out: &Path,
    include_untrusted: bool,
) -> Result<Exported, Error> {
    export_for(artifact, bundle, out, include_untrusted, None)
}

/// [`export_with`], each SKILL.md in the terms of `target` when one is given (its own
/// frontmatter keys, Codex's `agents/openai.yaml`), and what it does not carry said per skill.
pub(crate) fn export_for(
    artifact: &Path,
    bundle: &BundleRef<'_>,
    out: &Path,
    include_untrusted: bool,
    target: Option<Target>,
) -> Result<Exported, Error> {
    let a = Artifact::open(artifact)?;
    let b = a.bundle(bundle)?;
    if let Ok(meta) = std::fs::metadata(out) {
        if !meta.is_dir() {
            let kind = crate::discover::fsio::special_kind(&meta.file_type());
            return Err(Error::NotAFolder(out.to_path_buf(), kind));
        }
        if std::fs::read_dir(out).map_or(true, |mut d| d.next().is_some()) {
            return Err(Error::NotEmpty(out.to_path_buf()));
        }
    }
    let skills: Vec<_> = b
        .skills
        .iter()
        .filter(|s| s.unavailable.is_none())
        .collect();
    // Asset paths come from the artifact, which may come from anywhere: each is checked
    // before the first file is written.
    let assets_of = |s: &skillc_runtime::Skill| -> Vec<String> {
        let assets = s.record.meta.get("assets").and_then(|v| v.as_object());
        assets.map_or_else(Vec::new, |a| a.keys().cloned().collect())
    };
    for s in &skills {
        for path in assets_of(s) {
            super::package::safe_path(&path)
                .map_err(|why| Error::UnsafeAsset(s.qualified_name.clone(), why))?;
        }
    }
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut done = Exported::default();
    let own_names = own_names(&skills);
    for (s, own) in skills.into_iter().zip(own_names) {
        let name = crate::skill_md::portable_name(own, &mut used);
        let keep_code = include_untrusted || !s.untrusted;
        let (mut front, mut left_out) = crate::skill_md::front_kept(s, &name, keep_code);
        let shaped = match target {
            Some(t) => Some(shaped(&a, bundle, s, t, &mut front, keep_code, &mut done)?),
            None => None,
        };
        let text = crate::skill_md::text_of(&a, s, &front)?;
        let dir = out.join(&name);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let file = dir.join("SKILL.md");
        std::fs::write(&file, text).map_err(io(&file))?;
        for path in assets_of(s) {
            let bytes = a.asset(bundle, &s.qualified_name, &path)?;
            if !keep_code && crate::skill_md::is_code(&path, &bytes) {
                left_out.push(path);
                continue;
            }
            let dest = dir.join(&path);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::write(&dest, bytes).map_err(io(&dest))?;
        }
        if let Some(yaml) = shaped.and_then(|s| s.openai_yaml) {
            let dest = dir.join(OPENAI_YAML);
            std::fs::create_dir_all(dir.join("agents")).map_err(io(&dir))?;
            std::fs::write(&dest, yaml).map_err(io(&dest))?;
        }
        if !left_out.is_empty() {
            done.left_out.push(LeftOut {
                skill: name,
                items: left_out,
            });
        }
        done.dirs.push(dir);
    }
    Ok(done)
}

/// Where Codex reads a skill's interface, policy and dependencies.
const OPENAI_YAML: &str = "agents/openai.yaml";

/// Each skill's name in the export: a plugin's skill (`<plugin>:<skill>`) keeps its own name
/// unless another skill of the bundle has that name too (two plugins sharing it).
fn own_names<'s>(skills: &[&'s skillc_runtime::Skill]) -> Vec<&'s str> {
    let own = |s: &'s skillc_runtime::Skill| s.name.rsplit(':').next().unwrap_or(&s.name);
    let mut count: std::collections::BTreeMap<&str, usize> = Default::default();
    for s in skills {
        *count.entry(own(s)).or_default() += 1;
    }
    (skills.iter())
        .map(|s| match count[own(s)] {
            1 => own(s),
            _ => s.name.as_str(),
        })
        .collect()
}

/// `front` in `target`'s terms; what it does not carry goes to `done`.
fn shaped(
    a: &Artifact,
    bundle: &BundleRef<'_>,
    s: &skillc_runtime::Skill,
    target: Target,
    front: &mut crate::skill_md::Front,
    keep_code: bool,
    done: &mut Exported,
) -> Result<super::dialect::Shaped, Error> {
    let has_own = (s.record.meta.get("assets").and_then(|v| v.as_object()))
        .is_some_and(|m| m.contains_key(OPENAI_YAML));
    let own = match has_own {
        true => Some(a.asset(bundle, &s.qualified_name, OPENAI_YAML)?),
        false => None,
    };
    let mut shaped = super::dialect::shape(target, s, front, own.as_deref(), keep_code);
    let only = super::dialect::metadata_only(s, front);
    let mut items = std::mem::take(&mut shaped.not_carried);
    if !only.is_empty() {
        items.push(format!(
            "kept under `metadata` only, which {} does not act on: {}",
            target.name(),
            only.join(", ")
        ));
    }
    if !items.is_empty() {
        done.not_carried.push(LeftOut {
            skill: front.name.clone(),
            items,
        });
    }
    Ok(shaped)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Io {
        path: path.clone(),
        source,
    }
}
