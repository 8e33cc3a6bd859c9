//! ZIP skill packages (`skillc pack`, `unpack`): seed 004's flat shape (SKILL.md at the root,
//! provider modules beside it) and the `.skill` shape of public repositories (one top-level
//! `<name>/` folder). Packing is deterministic; unpacking validates everything before writing
//! anything and refuses traversal, absolute paths, links, bombs and name clashes.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use crate::diagnostic::{Diagnostic, Severity};
use crate::discover::fsio::{self, RawFile};
use crate::parse::names;
use crate::{check_files, CheckOptions};

/// Caps that an archive must stay under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Entries in the archive.
    pub max_entries: usize,
    /// Bytes of all files, uncompressed.
    pub max_total: u64,
    /// Bytes of one file, uncompressed.
    pub max_file: u64,
    /// Uncompressed over compressed size of an entry (above 1 MiB).
    pub max_ratio: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_entries: 10_000,
            max_total: 64 << 20,
            max_file: fsio::MAX_FILE_BYTES,
            max_ratio: 100,
        }
    }
}

/// Why packing or unpacking failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file system failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The archive is refused (unsafe or malformed); nothing was written.
    #[error("refused `{archive}`: {why}")]
    Refused {
        /// The archive.
        archive: PathBuf,
        /// What was refused, in words.
        why: String,
    },
    /// The skill has content-safety findings at `REFUSED_AT` or above; they are listed.
    #[error("the skill has content-safety findings at high or critical")]
    Unsafe(Vec<Diagnostic>),
    /// The skill has errors; they are listed.
    #[error("the skill has errors")]
    Invalid(Vec<Diagnostic>),
    /// The package's path holds a device, a pipe, a socket or a folder.
    #[error("`{0}` is {1}: the package is written to a file (a new one, or one it replaces)")]
    OutputNotAFile(PathBuf, &'static str),
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Files a package leaves out (the walker already skips hidden files, `node_modules`,
/// `__pycache__` and `*.pyc`).
fn packable(rel: &str) -> bool {
    !rel.split('/')
        .any(|c| c == ".DS_Store" || c == "__pycache__" || c == "node_modules")
}

/// Checks a skill given as files named `<folder>/…`, returning its name. A package stands
/// alone: what it names outside itself (other skills, the workspace's tiers) is checked when
/// the workspace that receives it is built, not here.
fn validate(files: &[RawFile]) -> Result<(String, Vec<Diagnostic>), Error> {
    let report = check_files(files, &CheckOptions::default());
    let unsafe_findings: Vec<Diagnostic> = (report.diagnostics.iter())
        .filter(|d| d.safety.is_some_and(|l| l >= REFUSED_AT))
        .cloned()
        .collect();
    let outside = [crate::codes::UNKNOWN_SKILL, crate::codes::UNKNOWN_NAME];
    let errors: Vec<Diagnostic> = report
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error && !outside.contains(&d.code))
        .collect();
    if !errors.is_empty() {
        return Err(Error::Invalid(errors));
    }
    match report.workspace.skills.as_slice() {
        [one] => Ok((one.name.clone(), unsafe_findings)),
        [] => Err(Error::Invalid(vec![Diagnostic::new(
            crate::codes::MISSING_FRONTMATTER,
            "SKILL.md",
            crate::Pos::start(),
            "the package has no SKILL.md",
        )])),
        many => Err(Error::Invalid(vec![Diagnostic::new(
            crate::codes::DUPLICATE_SKILL,
            &many[1].file,
            crate::Pos::start(),
            "a package holds exactly one skill",
        )])),
    }
}

/// Packs the skill folder `dir` into `out`: `<name>/…` entries, or the files at the root when
/// `flat` (seed 004's shape). The same folder gives the same bytes.
pub fn pack(dir: &Path, out: &Path, flat: bool) -> Result<usize, Error> {
    if let Some(kind) = fsio::output::not_a_file(out) {
        return Err(Error::OutputNotAFile(out.to_path_buf(), kind));
    }
    let out = &fsio::output::output_file(out);
    let canonical = dir.canonicalize().map_err(io(dir))?;
    let folder = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "skill".to_string());
    let (files, walk) =
        fsio::read_tree(dir, &format!("{folder}/"), &canonical).map_err(|e| Error::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
    if let Some(d) = walk.into_iter().next() {
        return Err(Error::Invalid(vec![d]));
    }
    // A package written into the folder it packs is not part of the next package.
    let own_output = out
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .zip(out.file_name())
        .and_then(|(p, n)| p.strip_prefix(&canonical).ok().map(|r| r.join(n)))
        .map(|r| format!("{folder}/{}", r.to_string_lossy()));
    let files: Vec<RawFile> = files
        .into_iter()
        .filter(|f| packable(&f.rel) && Some(&f.rel) != own_output.as_ref())
        .collect();
    let (name, _) = validate(&files)?;
    let prefix = if flat {
        String::new()
    } else {
        format!("{name}/")
    };
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    // A skill's error found while writing (a file that became unreadable) is kept aside: the
    // write fails, so the previous package stays, and the error is told as the skill's.
    let mut invalid = None;
    let written = fsio::output::replace_with(out, |file| {
        let zerr = |e: zip::result::ZipError| std::io::Error::other(e.to_string());
        let mut zip = zip::ZipWriter::new(file);
        for f in &files {
            let bytes = match fsio::contents_of(f) {
                Ok(bytes) => bytes,
                Err(d) => {
                    invalid = Some(d);
                    return Err(std::io::Error::other("the skill has errors"));
                }
            };
            let inner = &f.rel[folder.len() + 1..];
            // Scripts keep their executable bit; nothing else of the file's mode is carried.
            let mode = if is_executable(&canonical.join(inner)) {
                0o755
            } else {
                0o644
            };
            zip.start_file(format!("{prefix}{inner}"), options.unix_permissions(mode))
                .map_err(zerr)?;
            zip.write_all(&bytes)?;
        }
        zip.finish().map_err(zerr).map(drop)
    });
    match (written, invalid) {
        (_, Some(d)) => Err(Error::Invalid(vec![d])),
        (Err(e), None) => Err(io(out)(e)),
        (Ok(()), None) => Ok(files.len()),
    }
}

fn set_executable(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// The entries of `archive` marked executable (their names as stored).
fn executables(archive: &Path) -> std::collections::BTreeSet<String> {
    let Ok(Ok(mut zip)) = std::fs::File::open(archive).map(zip::ZipArchive::new) else {
        return Default::default();
    };
    let mut out = std::collections::BTreeSet::new();
    for i in 0..zip.len() {
        if let Ok(e) = zip.by_index(i) {
            if e.unix_mode().is_some_and(|m| m & 0o111 != 0) {
                out.insert(e.name().to_string());
            }
        }
    }
    out
}

/// What `unpack` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// The skill's name.
    pub name: String,
    /// The folder written.
    pub dir: PathBuf,
    /// Files written.
    pub files: usize,
}

/// A path inside an archive (or an artifact) that is safe to write below a folder: relative,
/// no `..`, no drive, no backslash tricks.
pub(crate) fn safe_path(name: &str) -> Result<String, String> {
    if name.contains('\\') {
        return Err(format!("`{name}` uses backslashes"));
    }
    if name.starts_with('/') || name.chars().nth(1) == Some(':') {
        return Err(format!("`{name}` is an absolute path"));
    }
    let mut parts = Vec::new();
    for c in Path::new(name).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(format!("`{name}` climbs out of its folder (`..`)"))
            }
            _ => return Err(format!("`{name}` is an absolute path")),
        }
    }
    if parts.is_empty() {
        return Err(format!("`{name}` names no file"));
    }
    Ok(parts.join("/"))
}

/// The most bytes an archive may have: its files in all, and room for ZIP's own records of
/// as many entries as it may hold (a stored entry's two headers with a long name are under
/// 1 KiB).
fn archive_cap(limits: &Limits) -> u64 {
    (limits.max_total).saturating_add((limits.max_entries as u64).saturating_mul(1024))
}

/// The entry count in the archive's end-of-central-directory record (`None` for ZIP64 or when
/// the record cannot be found).
fn declared_entries(data: &[u8]) -> Option<usize> {
    let from = data.len().saturating_sub(22 + u16::MAX as usize);
    let at = (from..data.len().saturating_sub(21))
        .rev()
        .find(|&i| data[i..i + 4] == 0x0605_4b50u32.to_le_bytes())?;
    let total = u16::from_le_bytes([data[at + 10], data[at + 11]]);
    (total != u16::MAX).then_some(usize::from(total))
}

/// Reads and checks every entry of an archive (`raw`, the bytes of `archive`), without writing
/// anything.
fn read_archive(
    archive: &Path,
    raw: &[u8],
    limits: &Limits,
) -> Result<BTreeMap<String, Vec<u8>>, Error> {
    let refuse = |why: String| Error::Refused {
        archive: archive.to_path_buf(),
        why,
    };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(raw))
        .map_err(|e| refuse(format!("not a readable ZIP archive: {e}")))?;
    // The reader keys entries by name, so a repeated name would silently shadow another:
    // compare with the count the archive's end record declares.
    if let Some(declared) = declared_entries(raw) {
        if declared != zip.len() {
            return Err(refuse(format!(
                "{declared} entries but {} distinct names: an entry appears twice",
                zip.len()
            )));
        }
    }
    if zip.len() > limits.max_entries {
        return Err(refuse(format!(
            "{} entries, more than the {} allowed",
            zip.len(),
            limits.max_entries
        )));
    }
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    for i in 0..zip.len() {
        // Encryption is read from the raw entry: opening an encrypted one fails before its
        // flags can be looked at.
        let raw = zip
            .by_index_raw(i)
            .map_err(|e| refuse(format!("entry {i} is unreadable: {e}")))?;
        if raw.encrypted() {
            return Err(refuse(format!("`{}` is encrypted", raw.name())));
        }
        drop(raw);
        let mut entry = zip
            .by_index(i)
            .map_err(|e| refuse(format!("entry {i} is unreadable: {e}")))?;
        let name = entry.name().to_string();
        let path = safe_path(&name).map_err(&refuse)?;
        if entry.is_symlink() || entry.unix_mode().is_some_and(|m| m & 0o170000 == 0o120000) {
            return Err(refuse(format!("`{name}` is a symbolic link")));
        }
        if entry.encrypted() {
            return Err(refuse(format!("`{name}` is encrypted")));
        }
        if entry.is_dir() {
            continue;
        }
        declared_size(&name, entry.size(), entry.compressed_size(), limits).map_err(&refuse)?;
        // Headers can lie: cap what is actually read, too.
        let mut bytes = Vec::new();
        let cap = (limits.max_file + 1).min(limits.max_total - total + 1);
        (&mut entry)
            .take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| refuse(format!("`{name}` does not decompress: {e}")))?;
        total += bytes.len() as u64;
        if bytes.len() as u64 > limits.max_file || total > limits.max_total {
            return Err(refuse(format!(
                "the files expand past the limits ({} bytes per file, {} in all)",
                limits.max_file, limits.max_total
            )));
        }
        if files.insert(path.clone(), bytes).is_some() {
            return Err(refuse(format!("`{path}` appears twice")));
        }
    }
    Ok(files)
}

/// What an entry's header says it expands to, against the size and ratio caps.
fn declared_size(name: &str, size: u64, compressed: u64, limits: &Limits) -> Result<(), String> {
    if size > limits.max_file {
        return Err(format!(
            "`{name}` is {size} bytes, over the {} byte limit",
            limits.max_file
        ));
    }
    let ratio = size / compressed.max(1);
    if size > 1 << 20 && ratio > limits.max_ratio {
        return Err(format!(
            "`{name}` expands {ratio}x (a decompression bomb?); the limit is {}x",
            limits.max_ratio
        ));
    }
    Ok(())
}

/// A skill's folder name and its files (path inside the folder, bytes).
type SkillFiles = (String, Vec<(String, Vec<u8>)>);

/// Splits archive files into the skill's files: the `<name>/` shape when every entry is in
/// one folder holding SKILL.md, else the flat shape with SKILL.md at the root.
fn skill_files(archive: &Path, files: BTreeMap<String, Vec<u8>>) -> Result<SkillFiles, Error> {
    let tops: std::collections::BTreeSet<&str> = files
        .keys()
        .map(|p| p.split('/').next().unwrap_or(""))
        .collect();
    if tops.len() == 1 {
        let top = tops.into_iter().next().unwrap_or_default().to_string();
        if files.contains_key(&format!("{top}/SKILL.md"))
            || files.contains_key(&format!("{top}/skill.md"))
        {
            let inner = files
                .into_iter()
                .map(|(p, b)| (p[top.len() + 1..].to_string(), b))
                .collect();
            return Ok((top, inner));
        }
    }
    if files.contains_key("SKILL.md") || files.contains_key("skill.md") {
        let stem = archive
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "skill".to_string());
        return Ok((stem, files.into_iter().collect()));
    }
    Err(Error::Refused {
        archive: archive.to_path_buf(),
        why: "no SKILL.md at the root or in a single top-level folder".to_string(),
    })
}

/// Content-safety findings at this level or above refuse a package (`unpack`) or an outside
/// repository (`fetch`) unless accepted: what the build would withhold never lands.
pub(crate) const REFUSED_AT: crate::SafetyLevel = crate::SafetyLevel::High;

/// What `unpack` may do beyond adding a new, clean skill.
#[derive(Debug, Clone, Copy, Default)]
pub struct Admit {
    /// Replace a skill of the same name.
    pub force: bool,
    /// Take a skill with content-safety findings at `REFUSED_AT` or above (it stays
    /// untrusted, so a build withholds it until the workspace trusts it).
    pub findings: bool,
}

/// Unpacks `archive` into `workspace/<name>/`, marked as an imported package (untrusted unless
/// `workspace.yaml` lists it under `trusted`). Everything is checked first; on any problem,
/// or a content-safety finding at `REFUSED_AT` or above, nothing is written. An existing
/// skill of the same name is replaced only with `force`.
pub fn unpack(
    archive: &Path,
    workspace: &Path,
    force: bool,
    limits: &Limits,
) -> Result<Unpacked, Error> {
    let admit = Admit {
        force,
        findings: false,
    };
    unpack_admitting(archive, workspace, admit, limits)
}

/// [`unpack`], admitting what `admit` says.
pub fn unpack_admitting(
    archive: &Path,
    workspace: &Path,
    admit: Admit,
    limits: &Limits,
) -> Result<Unpacked, Error> {
    let force = admit.force;
    // Read once, as a regular file of bounded size: a pipe or `/dev/zero` named as the
    // archive is refused rather than read forever.
    let raw = fsio::read_regular(archive, Some(archive_cap(limits))).map_err(io(archive))?;
    let files = read_archive(archive, &raw, limits)?;
    let (folder, files) = skill_files(archive, files)?;
    // Every file is checked, the ones a walk would skip too (`__pycache__`, `node_modules`):
    // they are written, and a scanner that skips compiled Python is a known evasion.
    let check: Vec<RawFile> = files
        .iter()
        .map(|(p, b)| RawFile::new(format!("{folder}/{p}"), b.clone()))
        .collect();
    let (name, findings) = validate(&check)?;
    if !findings.is_empty() && !admit.findings {
        return Err(Error::Unsafe(findings));
    }
    let portable = if names::portability_problems(&name).is_empty() {
        name.clone()
    } else {
        folder.clone()
    };
    let refuse = |why: String| Error::Refused {
        archive: archive.to_path_buf(),
        why,
    };
    // A path that is a file in one entry and a folder in another cannot be written.
    if let Some(path) = files.iter().map(|(p, _)| p).find(|p| {
        files
            .iter()
            .any(|(other, _)| other.starts_with(&format!("{p}/")))
    }) {
        return Err(refuse(format!(
            "`{path}` is both a file and a folder in the package"
        )));
    }
    let target = destination(workspace, &name, &portable, force).map_err(refuse)?;
    std::fs::create_dir_all(workspace).map_err(io(workspace))?;
    let staging = workspace.join(format!(".unpack-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let package = Staged {
        archive,
        raw: &raw,
        folder: &folder,
        name: &name,
        files: &files,
    };
    let written = package.write(&staging, &target);
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    Ok(Unpacked {
        name,
        dir: target,
        files: written?,
    })
}

/// Where an unpacked skill goes: its portable folder name in the workspace, or, with `force`,
/// the folder of the global skill of the same name wherever it is (so that the workspace never
/// holds two copies of it). Without `force`, an existing folder or skill of that name refuses;
/// with it, the folder replaced must be that skill's own folder and hold nothing else
/// ([`replaceable`]).
fn destination(
    workspace: &Path,
    name: &str,
    portable: &str,
    force: bool,
) -> Result<PathBuf, String> {
    let target = workspace.join(portable);
    if target.exists() && !target.is_dir() {
        return Err(format!("`{}` exists and is not a folder", target.display()));
    }
    let existing = crate::check(workspace, &CheckOptions::default()).ok();
    let skills: Vec<&crate::model::Skill> = existing
        .iter()
        .flat_map(|r| r.workspace.skills.iter().map(|s| &**s))
        .collect();
    if force {
        let global = skills
            .iter()
            .find(|s| s.name == name && s.scope == crate::model::Scope::Global);
        let rel = global.map_or(portable, |s| s.dir.as_str());
        let dir = workspace.join(rel);
        if std::fs::symlink_metadata(&dir).is_ok() {
            replaceable(workspace, rel, name, &skills).map_err(|why| {
                format!(
                    "--force replaces one skill's own folder only: `{}` {why}",
                    dir.display()
                )
            })?;
        }
        return Ok(dir);
    }
    if target.exists() {
        return Err(format!(
            "`{}` already exists (use --force to replace it)",
            target.display()
        ));
    }
    match skills.into_iter().find(|s| s.name == name) {
        Some(s) => Err(format!(
            "the workspace already has a skill `{name}` ({}); use --force",
            s.file
        )),
        None => Ok(target),
    }
}

/// Files whose role reaches past one skill: a folder holding one is never replaced.
const NOT_A_SKILLS_OWN: &[&str] = &[
    "workspace.yaml",
    "client.yaml",
    "variables.json",
    "CATEGORY.md",
    ".git",
    "SKILL.md",
    "skill.md",
];

/// Why the folder `rel` (inside `workspace`) may not be replaced by a package of the skill
/// `name`, if it may not: it must be the folder of the skill `name` and nothing else (not the
/// workspace, a namespace, a client's folder, `tests/` or `templates/`; no other skill, client,
/// category or repository inside it; not a link).
fn replaceable(
    workspace: &Path,
    rel: &str,
    name: &str,
    skills: &[&crate::model::Skill],
) -> Result<(), String> {
    let parts: Vec<&str> = rel
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    match parts.as_slice() {
        [] => return Err("is the workspace itself".into()),
        ["clients"] | ["clients", _] => return Err("is a client's folder".into()),
        ["tests"] => return Err("holds the workspace's test cases".into()),
        ["templates"] => return Err("holds the workspace's templates".into()),
        ["public" | "internal" | "custom"] => return Err("is a namespace folder".into()),
        _ => {}
    }
    let dir = workspace.join(rel);
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| format!("cannot be read: {e}"))?;
    if meta.file_type().is_symlink() {
        return Err("is a symbolic link".into());
    }
    if !skills.iter().any(|s| s.name == name && s.dir == rel) {
        return Err(format!("is not the folder of the skill `{name}`"));
    }
    // Walk what is on disk, not what the check found: a nested skill the check skipped
    // (inside another skill's folder) is still someone's work.
    let mut stack = vec![(dir, true)];
    while let Some((folder, top)) = stack.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| format!("cannot be read: {e}"))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot be read: {e}"))?;
            let file = entry.file_name().to_string_lossy().into_owned();
            let own_skill_md = top && (file == "SKILL.md" || file == "skill.md");
            if NOT_A_SKILLS_OWN.contains(&file.as_str()) && !own_skill_md {
                let inside = entry.path();
                let shown = inside.strip_prefix(workspace).unwrap_or(&inside);
                return Err(format!(
                    "holds `{}`, which is not part of the skill",
                    shown.display()
                ));
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push((entry.path(), false));
            }
        }
    }
    Ok(())
}

/// A checked package ready to be written.
struct Staged<'a> {
    archive: &'a Path,
    raw: &'a [u8],
    folder: &'a str,
    name: &'a str,
    files: &'a [(String, Vec<u8>)],
}

impl Staged<'_> {
    /// Writes the files (executable bits restored) and a `package.yaml` marker into `staging`,
    /// then moves it to `target`, replacing what was there. Returns the number of files.
    fn write(&self, staging: &Path, target: &Path) -> Result<usize, Error> {
        let executable = executables(self.archive);
        let mut n = 0;
        for (path, bytes) in self.files.iter().filter(|(p, _)| packable(p)) {
            let dest = staging.join(path);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::write(&dest, bytes).map_err(io(&dest))?;
            let stored = [path.clone(), format!("{}/{path}", self.folder)];
            if stored.iter().any(|p| executable.contains(p)) {
                set_executable(&dest).map_err(io(&dest))?;
            }
            n += 1;
        }
        let name = self.name;
        let marker = format!(
            "# Written by `skillc unpack`: this skill came from a package. Its code is untrusted\n\
             # (prompt-only) unless workspace.yaml lists `{name}` under `trusted`.\n\
             name: {name}\norigin: {}\nsha256: {}\n",
            self.archive
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            crate::digest::hash(self.raw)
        );
        std::fs::write(staging.join("package.yaml"), marker).map_err(io(staging))?;
        // The folder replaced is moved aside, not deleted, until the new one is in its place.
        let aside = staging.with_extension("old");
        let replacing = std::fs::symlink_metadata(target).is_ok();
        if replacing {
            std::fs::rename(target, &aside).map_err(io(target))?;
        }
        if let Err(e) = std::fs::rename(staging, target) {
            if replacing {
                let _ = std::fs::rename(&aside, target);
            }
            return Err(io(target)(e));
        }
        if replacing {
            std::fs::remove_dir_all(&aside).map_err(io(&aside))?;
        }
        Ok(n)
    }
}
