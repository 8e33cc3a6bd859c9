//! Large files without a role (assets, at most): hashed as they are read, not held in memory,
//! and read again in chunks when the artifact is written, so a build's memory does not grow
//! with the assets' bytes.

use std::io;
use std::path::Path;

use super::{open_nonblocking, FileContent, MAX_FILE_BYTES};
use crate::model::LargeFile;

/// A file that has no role of its own (an asset, at most) and is larger than this is not held
/// in memory: it is hashed as it is read, and copied into the artifact in chunks when written
/// ([`LargeFile`]), so a build's memory does not grow with the assets' bytes.
pub(crate) const STREAM_ABOVE: u64 = 256 << 10;

/// Most bytes of assets, all skills together, a workspace may carry into its artifact: 2 GiB
/// (runtimes open the artifact whole, and SQLite stores at most 1 GB per value anyway).
pub const MAX_ASSET_BYTES: u64 = 2 << 30;

/// Reading a large file again (the model holds where it is; reading is this module's).
impl LargeFile {
    /// The first `n` bytes of the file (fewer if it is shorter).
    pub fn head(&self, n: usize) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let mut bytes = Vec::with_capacity(n);
        open_nonblocking(&self.path)?
            .take(n as u64)
            .read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Reads the file again in chunks, giving each to `each`, and fails if it no longer holds
    /// what was hashed when it was first read (it changed during the build).
    pub fn stream(&self, each: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let mut f = open_nonblocking(&self.path)?;
        let (total, sha256) = chunks(&mut f, self.size, each)?;
        if total != self.size || sha256 != self.sha256 {
            return Err(io::Error::other(format!(
                "`{}` changed while the workspace was built; build again",
                self.path.display()
            )));
        }
        Ok(())
    }
}

/// Reads `f` in chunks of 64 KiB up to `limit` bytes (and one chunk more, to tell a longer
/// file), giving each to `each`; returns the bytes read and their SHA-256.
fn chunks(
    f: &mut impl std::io::Read,
    limit: u64,
    mut each: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<(u64, [u8; 32])> {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0u64;
    while total <= limit {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        hasher.update(&buf[..n]);
        each(&buf[..n])?;
    }
    Ok((total, hasher.finalize().into()))
}

/// Whether a file at `rel` (relative to the workspace) may have a role of its own: a skill's
/// files, a category's, a client's, the workspace's, a template or test cases. Those are read
/// whole; any other file over [`STREAM_ABOVE`] bytes is read in passing ([`LargeFile`]).
pub(crate) fn may_have_role(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let localized = |stem: &str| {
        name.strip_prefix(stem)
            .and_then(|rest| rest.strip_suffix(".md"))
            .is_some()
    };
    matches!(
        name,
        "compact.md"
            | "tools.yaml"
            | "sources.yaml"
            | "package.yaml"
            | "vars.json"
            | "CATEGORY.md"
            | "workspace.yaml"
            | "variables.json"
            | "client.yaml"
    ) || localized("SKILL")
        || localized("skill")
        || name.ends_with(".tera")
        || super::is_plugin_manifest(rel)
        || (rel.starts_with("tests/") && (name.ends_with(".yaml") || name.ends_with(".yml")))
}

/// Hashes an open large file in chunks (an artifact among them is left out, as in full reads,
/// and stops being read at its header).
pub(crate) fn hash(mut f: std::fs::File, path: &Path, size: u64) -> FileContent {
    let mut first = true;
    let mut artifact = false;
    let read = chunks(&mut f, MAX_FILE_BYTES, |chunk| {
        artifact |= first && skillc_runtime::is_artifact_header(chunk);
        first = false;
        match artifact {
            true => Err(io::Error::other("a skillc artifact")),
            false => Ok(()),
        }
    });
    match read {
        _ if artifact => FileContent::Artifact,
        Err(e) => FileContent::Unreadable(e.to_string()),
        Ok((total, _)) if total > MAX_FILE_BYTES => FileContent::TooLarge(total),
        Ok((total, _)) if total != size => {
            FileContent::Unreadable("it changed while it was read".to_string())
        }
        Ok((_, sha256)) => FileContent::Large(std::sync::Arc::new(LargeFile {
            path: path.to_path_buf(),
            size,
            sha256,
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_that_may_have_a_role_are_held_whole() {
        for role in [
            "a/SKILL.md",
            "a/skill.md",
            "a/SKILL.fr-ca.md",
            "a/compact.md",
            "a/tools.yaml",
            "a/sources.yaml",
            "a/vars.json",
            "a/package.yaml",
            "public/CATEGORY.md",
            "workspace.yaml",
            "variables.json",
            "clients/c/client.yaml",
            "templates/prompt_skill.tera",
            "tests/pricing.yaml",
            ".claude-plugin/marketplace.json",
            "plugins/p/.claude-plugin/plugin.json",
        ] {
            assert!(may_have_role(role), "{role}");
        }
        for asset in [
            "a/assets/clip.bin",
            "a/references/manual.md",
            "a/scripts/run.py",
            "a/data.json",
            "tests/fixtures/big.bin",
            "a/assets/marketplace.json",
        ] {
            assert!(!may_have_role(asset), "{asset}");
        }
    }
}
