//! The files of one commit, from the zip `git archive` gives, into a new folder: regular files
//! only, never a link, never a path leaving the folder, no name `check` would not read, and
//! no more than `check` accepts (so what fetch stores, check reads).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use super::Error;
use crate::discover::fsio::{self, large::MAX_ASSET_BYTES, FileContent, MAX_FILE_BYTES};

/// The most a fetch stores: what `check` accepts, so a repository that fits in a few hundred
/// kilobytes of zip cannot fill the disk with what check would then refuse (E003).
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Bytes of one file: [`MAX_FILE_BYTES`], the most `check` reads of any file.
    pub file: u64,
    /// Bytes of all files together: [`MAX_ASSET_BYTES`], the most an artifact holds.
    pub(crate) total: u64,
    /// Bytes their lines in `skillc.lock` may take: [`MAX_FILE_BYTES`], the most `check`
    /// reads of the lock.
    pub(crate) lock: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            file: MAX_FILE_BYTES,
            total: MAX_ASSET_BYTES,
            lock: MAX_FILE_BYTES,
        }
    }
}

/// About what one file's line in `skillc.lock` takes besides its name: the digest and the
/// YAML around it.
pub(super) const LOCK_LINE_BYTES: u64 = 84;

/// Writes the files of `zip` into `dir` (a new folder); `into` names the entry in messages.
/// Stops at the first file past `limits`, before writing the rest.
pub(super) fn unzip(zip: Vec<u8>, into: &str, dir: &Path, limits: Limits) -> Result<(), Error> {
    let fail = |why: String| Error(format!("`{into}`: {why}"));
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip))
        .map_err(|e| fail(format!("git archive gave no readable zip: {e}")))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| Error(format!("cannot create {}: {e}", dir.display())))?;
    let (mut total, mut lock) = (0u64, 0u64);
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| fail(e.to_string()))?;
        // A name that is not UTF-8 is decoded as code page 437 by the zip reader: stored, it
        // would be another name than the repository's.
        let utf8 = std::str::from_utf8(entry.name_raw()).is_ok();
        let shown = match utf8 {
            true => entry.name().escape_debug().to_string(),
            false => entry.name_raw().escape_ascii().to_string(),
        };
        let is_link = entry.unix_mode().is_some_and(|m| m & 0o170000 == 0o120000);
        if entry.is_dir() || is_link {
            continue;
        }
        let rel = entry
            .enclosed_name()
            .filter(|p| utf8 && p.to_str().is_some_and(|s| !s.chars().any(char::is_control)))
            .ok_or_else(|| {
                fail(format!(
                    "the file `{shown}` has a name skillc cannot store (control characters, not UTF-8, or leaving the folder); nothing was stored"
                ))
            })?;
        lock += rel.as_os_str().len() as u64 + LOCK_LINE_BYTES;
        if lock > limits.lock {
            return Err(fail(format!(
                "it has too many files: their list would make {} over {} bytes, the most check reads; nothing was stored",
                super::LOCK_FILE,
                limits.lock
            )));
        }
        let path = dir.join(rel);
        let left = limits.file.min(limits.total - total);
        let written = write(&mut entry, &path, left)
            .map_err(|e| Error(format!("cannot write {}: {e}", path.display())))?;
        if written > limits.file {
            return Err(fail(format!(
                "the file `{shown}` is over {} bytes, the most check reads of one file (E003); nothing was stored",
                limits.file
            )));
        }
        total += written;
        if written > left {
            return Err(fail(format!(
                "its files come to over {} bytes, the most an artifact holds (E003); nothing was stored",
                limits.total
            )));
        }
    }
    Ok(())
}

/// Refuses a tree whose files (as `git ls-tree -r -l -z` lists them: `MODE TYPE ID SIZE\tPATH`)
/// come to more than `limits` allow in all, before any is expanded. Blob sizes are what git
/// stores; files that attributes leave out of the archive are counted too.
pub(super) fn precheck(listing: &[u8], into: &str, limits: Limits) -> Result<(), Error> {
    let (mut total, mut lock) = (0u64, 0u64);
    for item in listing.split(|b| *b == 0).filter(|i| !i.is_empty()) {
        let Some(tab) = item.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let head = String::from_utf8_lossy(&item[..tab]);
        let fields: Vec<&str> = head.split_whitespace().collect();
        let (Some(&"blob"), Some(size)) = (fields.get(1), fields.get(3)) else {
            continue;
        };
        if fields[0] == "120000" {
            continue;
        }
        total += size.parse::<u64>().unwrap_or(0);
        lock += (item.len() - tab - 1) as u64 + LOCK_LINE_BYTES;
        if total > limits.total {
            return Err(Error(format!(
                "`{into}`: its files come to over {} bytes, the most an artifact holds (E003); nothing was stored",
                limits.total
            )));
        }
        if lock > limits.lock {
            return Err(Error(format!(
                "`{into}`: it has too many files: their list would make {} over {} bytes, the most check reads; nothing was stored",
                super::LOCK_FILE,
                limits.lock
            )));
        }
    }
    Ok(())
}

/// Writes at most `limit` bytes of `entry` and one more (to tell a longer file); the bytes
/// written.
fn write(entry: &mut dyn Read, path: &Path, limit: u64) -> std::io::Result<u64> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut f = std::fs::File::create(path)?;
    std::io::copy(&mut entry.take(limit + 1), &mut f)
}

/// The `sha256:` digest of every file of `dir` a workspace load reads (hidden files apart);
/// a file the load would not read for a problem (rather than by its name) fails the fetch,
/// named: it would otherwise be stored but silently left out of the lock and the load.
pub(super) fn digests(dir: &Path) -> Result<BTreeMap<String, String>, Error> {
    let canonical = dir
        .canonicalize()
        .map_err(|e| Error(format!("{}: {e}", dir.display())))?;
    let (files, problems) =
        fsio::read_tree(dir, "", &canonical).map_err(|e| Error(e.to_string()))?;
    let error = crate::diagnostic::Severity::Error;
    if let Some(d) = problems.iter().find(|d| d.severity == error) {
        return Err(Error(format!("`{}`: {}", d.file, d.message)));
    }
    let mut out = BTreeMap::new();
    for f in files {
        let digest = match &f.content {
            FileContent::Bytes(b) => crate::digest::hash(b),
            FileContent::Large(l) => crate::digest::hex(&l.sha256),
            _ => return Err(Error(format!("{}/{} cannot be read", dir.display(), f.rel))),
        };
        out.insert(f.rel, format!("sha256:{digest}"));
    }
    Ok(out)
}

/// The first file where `got` and `want` differ, and how (`None`: the same files).
pub(super) fn first_difference(
    got: &BTreeMap<String, String>,
    want: &BTreeMap<String, String>,
) -> Option<(String, &'static str)> {
    let changed = got.iter().find_map(|(name, digest)| match want.get(name) {
        None => Some((name.clone(), "is not in it")),
        Some(w) if w != digest => Some((name.clone(), "has other content")),
        Some(_) => None,
    });
    changed.or_else(|| {
        (want.keys())
            .find(|n| !got.contains_key(*n))
            .map(|n| (n.clone(), "is missing"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(files: &[(&str, usize)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for (name, size) in files {
            w.start_file(*name, options).unwrap();
            w.write_all(&vec![b'x'; *size]).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn limits() -> Limits {
        Limits {
            file: 100,
            total: 250,
            lock: 1000,
        }
    }

    #[test]
    fn a_file_or_a_total_past_the_limits_stops_the_extraction() {
        let tmp = tempfile::tempdir().unwrap();
        let ok = zip_of(&[("a/one.md", 100), ("two.md", 100)]);
        unzip(ok, "x", &tmp.path().join("ok"), limits()).unwrap();
        let big = zip_of(&[("big.bin", 101), ("after.md", 1)]);
        let e = unzip(big, "x", &tmp.path().join("big"), limits()).unwrap_err();
        assert!(e.0.contains("`big.bin` is over 100 bytes"), "{e}");
        assert!(!tmp.path().join("big/after.md").exists());
        let many = zip_of(&[("1", 100), ("2", 100), ("3", 100), ("4", 1)]);
        let e = unzip(many, "x", &tmp.path().join("many"), limits()).unwrap_err();
        assert!(e.0.contains("over 250 bytes, the most an artifact"), "{e}");
        assert!(!tmp.path().join("many/4").exists());
        let names: Vec<(String, usize)> = (0..20).map(|i| (format!("f{i}"), 0)).collect();
        let names: Vec<(&str, usize)> = names.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        let e = unzip(zip_of(&names), "x", &tmp.path().join("n"), limits()).unwrap_err();
        assert!(e.0.contains("too many files"), "{e}");
    }

    #[test]
    fn a_tree_listing_past_the_limits_is_refused_before_any_file_is_expanded() {
        let line =
            |size: u64, name: &str| format!("100644 blob {} {size:>7}\t{name}\0", "a".repeat(40));
        let ok = line(100, "a.md") + &line(150, "b.md") + "120000 blob x 9999\tlink\0";
        precheck(ok.as_bytes(), "x", limits()).unwrap();
        let big = line(200, "a.md") + &line(51, "b.md");
        let e = precheck(big.as_bytes(), "x", limits()).unwrap_err();
        assert!(e.0.contains("over 250 bytes"), "{e}");
        let many: String = (0..20).map(|i| line(0, &format!("f{i}"))).collect();
        let e = precheck(many.as_bytes(), "x", limits()).unwrap_err();
        assert!(e.0.contains("too many files"), "{e}");
    }

    #[test]
    fn a_name_with_control_characters_is_refused_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let zip = zip_of(&[("ok.md", 1), ("a\u{1b}[31m.md", 1)]);
        let e = unzip(zip, "x", &tmp.path().join("d"), limits()).unwrap_err();
        assert!(e.0.contains("`a\\u{1b}[31m.md` has a name"), "{e}");
    }
}
