//! `skillc export`: a resolved bundle written as plain agentskills.io folders, each SKILL.md
//! as [`crate::skill_md`] writes it, assets copied.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skillc_runtime::{Artifact, BundleRef};

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
    let options = crate::CheckOptions { strict_spec: true };
    let Ok(report) = crate::check(out, &options) else {
        return Vec::new();
    };
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::Severity::Error)
        .map(|d| {
            let folder = d.file.split('/').next().unwrap_or(&d.file);
            format!(
                "exported folder `{folder}` would fail skills-ref validate: {} ({}:{})",
                d.message, d.file, d.line
            )
        })
        .collect()
}

/// Writes every available skill of a bundle into `out/<portable name>/`. Returns the folders.
pub fn export(artifact: &Path, bundle: &BundleRef<'_>, out: &Path) -> Result<Vec<PathBuf>, Error> {
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
    let mut written = Vec::new();
    for s in skills {
        let name = crate::skill_md::portable_name(&s.name, &mut used);
        let (_, text) = crate::skill_md::skill_md(&a, s, &name)?;
        let dir = out.join(&name);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let file = dir.join("SKILL.md");
        std::fs::write(&file, text).map_err(io(&file))?;
        for path in assets_of(s) {
            let bytes = a.asset(bundle, &s.qualified_name, &path)?;
            let dest = dir.join(&path);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::write(&dest, bytes).map_err(io(&dest))?;
        }
        written.push(dir);
    }
    Ok(written)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Io {
        path: path.clone(),
        source,
    }
}
