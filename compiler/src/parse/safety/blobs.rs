//! S302: long encoded blobs (base64, hex), on one line or wrapped over many. Each is decoded
//! and judged by what it holds: code that the text rules flag is critical, an executable is
//! high, an image or a font is what it seems and not reported.

use base64::Engine as _;

use super::{opaque, Finding, Rules};
use crate::diagnostic::{codes, Pos, SafetyLevel};

/// Characters of a blob before it is worth decoding (a SHA-512 in base64 is 88).
pub(super) const MIN_BLOB: usize = 160;

/// Adds a finding for each long blob written on `line`.
pub(super) fn scan_line(rules: &Rules, line: &str, number: usize, found: &mut Vec<Finding>) {
    if line.len() < MIN_BLOB {
        return;
    }
    for (start, end) in runs(line) {
        let text = &line[start..end];
        let Some(bytes) = decode(text) else {
            continue;
        };
        if let Some((level, what)) = judge(rules, &bytes) {
            let column = line[..start].chars().count() + 1;
            let pos = Pos {
                line: number,
                column,
                len: text.chars().count(),
            };
            found.push(blob_finding(level, pos, what, text.len()));
        }
    }
}

/// The byte ranges of `line` that are blobs: runs of base64 characters (either alphabet, with
/// their padding) or of `\xNN` escapes, [`MIN_BLOB`] characters or more. Found by hand: a
/// counted repetition this long makes a regex fall back to its slowest engine on long lines.
fn runs(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let base64 = |c: u8| c.is_ascii_alphanumeric() || b"+/_-".contains(&c);
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            while i + 3 < b.len()
                && b[i] == b'\\'
                && b[i + 1] == b'x'
                && b[i + 2].is_ascii_hexdigit()
                && b[i + 3].is_ascii_hexdigit()
            {
                i += 4;
            }
        } else {
            while i < b.len() && base64(b[i]) {
                i += 1;
            }
            let run = i;
            while i < b.len() && b[i] == b'=' && i - run < 2 {
                i += 1;
            }
        }
        if i - start >= MIN_BLOB {
            out.push((start, i));
        }
        i = i.max(start + 1);
    }
    out
}

/// A blob wrapped over consecutive lines (base64 is often cut at 64 or 76 characters).
#[derive(Debug, Default)]
pub(super) struct Wrapped {
    first_line: usize,
    text: String,
    lines: usize,
    /// Inside `-----BEGIN …-----` armor: a certificate or key (S401 names private keys).
    armored: bool,
}

impl Wrapped {
    pub(super) fn push(
        &mut self,
        rules: &Rules,
        line: &str,
        number: usize,
        found: &mut Vec<Finding>,
    ) {
        let t = line.trim();
        if t.starts_with("-----BEGIN ") {
            self.armored = true;
        } else if t.starts_with("-----END ") {
            self.armored = false;
            self.clear();
            return;
        }
        let piece = t.len() >= 40
            && t.len() < MIN_BLOB
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=_-".contains(&b));
        if piece && !self.armored {
            if self.lines == 0 {
                self.first_line = number;
            }
            self.text.push_str(t);
            self.lines += 1;
        } else {
            self.finish(rules, found);
        }
    }

    pub(super) fn finish(&mut self, rules: &Rules, found: &mut Vec<Finding>) {
        if self.lines >= 4 && self.text.len() >= MIN_BLOB {
            if let Some(bytes) = decode(&self.text) {
                if let Some((level, what)) = judge(rules, &bytes) {
                    let pos = Pos {
                        line: self.first_line,
                        column: 1,
                        len: 0,
                    };
                    found.push(blob_finding(level, pos, what, self.text.len()));
                }
            }
        }
        self.clear();
    }

    fn clear(&mut self) {
        self.text.clear();
        self.lines = 0;
    }
}

fn blob_finding(level: SafetyLevel, pos: Pos, what: String, chars: usize) -> Finding {
    Finding {
        code: codes::ENCODED_BLOB,
        level,
        pos,
        message: format!("an encoded blob of {chars} characters that {what}"),
        help: "ship what the blob holds as a readable file, or remove it",
    }
}

/// The bytes a blob encodes: hex, or base64 in either alphabet, padded or not.
fn decode(text: &str) -> Option<Vec<u8>> {
    let unescaped;
    let t = match text.starts_with("\\x") {
        true => {
            unescaped = text.replace("\\x", "");
            unescaped.as_str()
        }
        false => text.trim_end_matches('='),
    };
    if t.len() % 2 == 0 && t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return (0..t.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&t[i..i + 2], 16).ok())
            .collect();
    }
    let engines = [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    // A blob cut at a length that is not a whole number of groups still says what it holds.
    let whole = &t[..t.len() - t.len() % 4];
    engines
        .iter()
        .find_map(|e| e.decode(t).or_else(|_| e.decode(whole)).ok())
}

/// What a decoded blob holds, and how bad that is; `None` for what it seems (an image,
/// a font) and for bytes that say nothing (random data, a digest).
fn judge(rules: &Rules, bytes: &[u8]) -> Option<(SafetyLevel, String)> {
    if let Some(text) = std::str::from_utf8(bytes)
        .ok()
        .filter(|t| !t.contains('\0'))
    {
        // Nothing honest encodes a command or an instruction: hidden, it is an attack.
        return Some(match rules.first_in(text) {
            Some((codes::SECRET_IN_FILE, what)) => {
                (SafetyLevel::High, format!("decodes to {what}"))
            }
            Some((_, what)) => (
                SafetyLevel::Critical,
                format!("decodes to text that {what}"),
            ),
            None => (SafetyLevel::Low, "decodes to text".to_string()),
        });
    }
    match opaque::kind(bytes) {
        Some(kind) if kind.harmless() => None,
        Some(kind) => Some((
            kind.level().max(SafetyLevel::Medium),
            format!("decodes to {}", kind.what()),
        )),
        None => None,
    }
}
