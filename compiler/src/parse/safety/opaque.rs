//! S501: files that cannot be read as text and could carry code, named by what their bytes
//! say they are (the name can lie): compiled Python, native executables and libraries, Java
//! classes, archives, office documents with macros. An archive's entries are read too: a
//! script in a ZIP is scanned like one beside the SKILL.md.

use std::io::Read as _;

use super::{Finding, Rules};
use crate::diagnostic::{codes, Pos, SafetyLevel};

/// What a file's first bytes say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Executable(&'static str),
    Bytecode(&'static str),
    Archive(&'static str),
    /// An OLE2 compound file (old Office documents; macros live there).
    Compound,
    Media(&'static str),
}

impl Kind {
    pub(super) fn harmless(self) -> bool {
        matches!(self, Kind::Media(_))
    }

    pub(super) fn level(self) -> SafetyLevel {
        match self {
            Kind::Executable(_) | Kind::Bytecode(_) => SafetyLevel::High,
            Kind::Archive(_) | Kind::Compound => SafetyLevel::Medium,
            Kind::Media(_) => SafetyLevel::Low,
        }
    }

    pub(super) fn what(self) -> String {
        match self {
            Kind::Executable(w) => format!("a native {w}"),
            Kind::Bytecode(w) => format!("{w} (compiled code no one can read)"),
            Kind::Archive(w) => format!("a {w} archive"),
            Kind::Compound => {
                "an OLE2 document (old Office format; it can hold macros)".to_string()
            }
            Kind::Media(w) => format!("a {w} file"),
        }
    }
}

/// What `bytes` are, by their signature.
pub(super) fn kind(bytes: &[u8]) -> Option<Kind> {
    let starts = |sig: &[u8]| bytes.starts_with(sig);
    let k = if starts(b"\x7fELF") {
        Kind::Executable("ELF executable or library")
    } else if starts(b"MZ") {
        Kind::Executable("Windows executable or DLL")
    } else if [
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xce\xfa\xed\xfe",
        b"\xcf\xfa\xed\xfe",
    ]
    .iter()
    .any(|s| starts(*s))
    {
        Kind::Executable("Mach-O executable or library")
    } else if starts(b"\xca\xfe\xba\xbe") {
        Kind::Bytecode("a Java class or universal binary")
    } else if bytes.len() >= 16 && bytes[2..4] == *b"\r\n" && bytes[0] > 0 && bytes[1] < 0x20 {
        Kind::Bytecode("compiled Python (.pyc)")
    } else if starts(b"\0asm") {
        Kind::Bytecode("WebAssembly")
    } else if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") {
        Kind::Archive("ZIP")
    } else if starts(b"\x1f\x8b") {
        Kind::Archive("gzip")
    } else if starts(b"7z\xbc\xaf\x27\x1c") {
        Kind::Archive("7z")
    } else if starts(b"Rar!") {
        Kind::Archive("RAR")
    } else if starts(b"\xfd7zXZ\0") {
        Kind::Archive("xz")
    } else if starts(b"BZh") {
        Kind::Archive("bzip2")
    } else if starts(b"\x28\xb5\x2f\xfd") {
        Kind::Archive("zstd")
    } else if bytes.len() > 262 && &bytes[257..262] == b"ustar" {
        Kind::Archive("tar")
    } else if starts(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1") {
        Kind::Compound
    } else {
        return media(bytes).map(Kind::Media);
    };
    Some(k)
}

fn media(bytes: &[u8]) -> Option<&'static str> {
    let starts = |sig: &[u8]| bytes.starts_with(sig);
    let signatures: &[(&[u8], &str)] = &[
        (b"\x89PNG", "PNG image"),
        (b"\xff\xd8\xff", "JPEG image"),
        (b"GIF8", "GIF image"),
        (b"BM", "bitmap image"),
        (b"\0\0\x01\0", "icon"),
        (b"II*\0", "TIFF image"),
        (b"MM\0*", "TIFF image"),
        (b"%PDF", "PDF document"),
        (b"\0\x01\0\0", "font"),
        (b"OTTO", "font"),
        (b"wOFF", "font"),
        (b"wOF2", "font"),
        (b"ID3", "audio"),
        (b"OggS", "audio"),
        (b"fLaC", "audio"),
        (b"SQLite format 3\0", "SQLite database"),
    ];
    if let Some((_, w)) = signatures.iter().find(|(s, _)| starts(s)) {
        return Some(w);
    }
    if starts(b"RIFF") && bytes.len() >= 12 {
        return Some("RIFF media (WebP, WAV, AVI)");
    }
    (bytes.len() >= 12 && &bytes[4..8] == b"ftyp").then_some("MP4/HEIF media")
}

/// Whether a file's head is not text: a NUL byte, or invalid UTF-8 before the last few bytes
/// (a head can end inside a character).
pub(super) fn looks_binary(head: &[u8]) -> bool {
    if head.contains(&0) {
        return true;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        Err(e) => e.error_len().is_some() || e.valid_up_to() + 4 < head.len(),
    }
}

/// Entries of an archive read, and bytes unpacked, before the rest is named unread (a ZIP
/// bomb must not take the check down).
const MAX_ENTRIES: usize = 2_000;
const MAX_UNPACKED: u64 = 64 << 20;

/// The findings of a file that is not text.
pub(super) fn scan(rules: &Rules, rel: &str, bytes: &[u8]) -> Vec<Finding> {
    let at = Pos::start();
    let Some(k) = kind(bytes) else {
        // No signature, not text: a name that says code is medium, anything else low; a
        // reviewer cannot read it either way.
        let ext = rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        let code_like = [
            "pyc", "pyo", "so", "dll", "dylib", "exe", "class", "jar", "whl", "bin", "node",
        ];
        return match ext.filter(|e| code_like.contains(&e.as_str())) {
            Some(e) => vec![finding(
                SafetyLevel::Medium,
                at,
                format!("is named `.{e}` and is not text"),
            )],
            None => vec![finding(
                SafetyLevel::Low,
                at,
                "is not text and of no known kind: a reviewer cannot read it".into(),
            )],
        };
    };
    match k {
        Kind::Media(w) if w == "PDF document" && contains(bytes, b"/JavaScript") => {
            vec![finding(
                SafetyLevel::Medium,
                at,
                "is a PDF document with JavaScript".into(),
            )]
        }
        Kind::Media(_) => Vec::new(),
        Kind::Archive("ZIP") => zip_entries(rules, rel, bytes),
        Kind::Compound if contains(bytes, b"VBA") || contains(bytes, b"_VBA_PROJECT") => {
            vec![finding(
                SafetyLevel::High,
                at,
                format!("is {} with VBA macros", k.what()),
            )]
        }
        _ => vec![finding(k.level(), at, format!("is {}", k.what()))],
    }
}

fn finding(level: SafetyLevel, pos: Pos, what: String) -> Finding {
    Finding {
        code: codes::OPAQUE_FILE,
        level,
        pos,
        message: format!("this file {what}"),
        help: "ship source a reviewer can read; an agent may unpack or run what it cannot read",
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A ZIP (an Office document is one): named, its macros and executables named, its text
/// entries scanned with the text rules.
fn zip_entries(rules: &Rules, rel: &str, bytes: &[u8]) -> Vec<Finding> {
    let at = Pos::start();
    let mut archive = match zip::ZipArchive::new(std::io::Cursor::new(bytes)) {
        Ok(a) => a,
        Err(e) => {
            return vec![finding(
                SafetyLevel::Medium,
                at,
                format!("is a ZIP archive that cannot be read ({e})"),
            )]
        }
    };
    let office = archive.file_names().any(|n| n == "[Content_Types].xml");
    let what = if office {
        "an Office document"
    } else {
        "a ZIP archive"
    };
    let mut found = vec![finding(
        if office {
            SafetyLevel::Low
        } else {
            SafetyLevel::Medium
        },
        at,
        format!(
            "is {what} of {} files (its entries are scanned below)",
            archive.len()
        ),
    )];
    let mut budget = MAX_UNPACKED;
    for i in 0..archive.len().min(MAX_ENTRIES) {
        let Ok(entry) = archive.by_index(i) else {
            continue;
        };
        let name = entry.name().to_string();
        if name.to_ascii_lowercase().ends_with("vbaproject.bin") {
            found.push(finding(
                SafetyLevel::High,
                at,
                format!("is {what} with VBA macros (`{name}`)"),
            ));
            continue;
        }
        let mut data = Vec::new();
        let read = entry.take(budget).read_to_end(&mut data);
        budget = budget.saturating_sub(data.len() as u64);
        if read.is_err() || budget == 0 {
            found.push(finding(
                SafetyLevel::Medium,
                at,
                format!(
                    "is {what} whose entries past `{name}` were not read (over 64 MiB unpacked)"
                ),
            ));
            break;
        }
        let inner: Vec<Finding> = match super::text_of(&data) {
            Some(text) => super::scan_lines(rules, &name, text.lines()),
            None => match kind(&data) {
                Some(k) if !k.harmless() => {
                    vec![finding(k.level(), at, format!("is {}", k.what()))]
                }
                _ => Vec::new(),
            },
        };
        for mut f in inner {
            f.message = format!(
                "`{name}` inside `{rel}`, line {}: {}",
                f.pos.line, f.message
            );
            f.pos = at;
            found.push(f);
        }
    }
    found
}
