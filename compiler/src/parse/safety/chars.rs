//! S101: characters a person does not see and a model reads: direction changes (Trojan
//! Source), zero-width characters, Unicode tag characters (ASCII smuggling), runs of variation
//! selectors (data hidden in an emoji) and control characters.

use super::Finding;
use crate::diagnostic::{codes, Pos, SafetyLevel};

/// What an invisible character does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Bidi overrides, embeddings and isolates: text shown in another order than it is read.
    Direction,
    /// Tag characters: an invisible copy of ASCII text.
    Tag,
    /// Variation selectors of the supplement, in a run: bytes hidden behind one glyph.
    Selectors,
    /// Zero-width and blank fillers.
    ZeroWidth,
    /// A terminal escape sequence (ESC `[` or `]`): a terminal showing the file obeys it.
    Escape,
    /// Other control characters than tab and line ends.
    Control,
}

impl Kind {
    fn level(self) -> SafetyLevel {
        match self {
            Kind::Tag => SafetyLevel::Critical,
            Kind::Direction | Kind::Selectors => SafetyLevel::High,
            Kind::ZeroWidth | Kind::Escape => SafetyLevel::Medium,
            Kind::Control => SafetyLevel::Low,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Kind::Direction => {
                "direction-changing characters (text shown in another order than a model reads it)"
            }
            Kind::Tag => "invisible Unicode tag characters",
            Kind::Selectors => {
                "a run of invisible variation selectors (bytes hidden behind one character)"
            }
            Kind::ZeroWidth => "zero-width characters",
            Kind::Escape => "terminal escape sequences",
            Kind::Control => "control characters",
        }
    }
}

fn kind(c: char, prev: Option<char>, next: Option<char>) -> Option<Kind> {
    let latin = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    match c {
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Some(Kind::Direction),
        '\u{E0000}'..='\u{E007F}' => Some(Kind::Tag),
        '\u{E0100}'..='\u{E01EF}' => Some(Kind::Selectors),
        '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}' | '\u{2061}'..='\u{2064}' => {
            Some(Kind::ZeroWidth)
        }
        '\u{3164}' | '\u{115F}' | '\u{1160}' | '\u{FFA0}' => Some(Kind::ZeroWidth),
        // Joiners belong in emoji and in scripts that need them; inside a Latin word they hide.
        '\u{200C}' | '\u{200D}' if latin(prev) && latin(next) => Some(Kind::ZeroWidth),
        '\t' | '\n' | '\r' => None,
        '\u{1b}' if matches!(next, Some('[' | ']')) => Some(Kind::Escape),
        c if c.is_control() => Some(Kind::Control),
        _ => None,
    }
}

/// Adds a finding per kind of invisible character on `line` (line `number`), at the first one.
pub(super) fn scan(line: &str, number: usize, found: &mut Vec<Finding>) {
    if line.is_ascii() && !line.bytes().any(|b| b < 0x20 && b != b'\t' || b == 0x7f) {
        return;
    }
    let chars: Vec<char> = line.chars().collect();
    // Per kind: first column, count, and the ASCII a tag run spells.
    let mut seen: Vec<(Kind, usize, usize, String)> = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let Some(k) = kind(c, prev, chars.get(i + 1).copied()) else {
            continue;
        };
        if k == Kind::Tag && is_flag_tag(&chars, i) {
            continue;
        }
        // A BOM that starts the line is a file's (or a pasted text's) marker, not hidden text.
        if c == '\u{FEFF}' && i == 0 {
            continue;
        }
        let entry = match seen.iter_mut().find(|e| e.0 == k) {
            Some(e) => e,
            None => {
                seen.push((k, i + 1, 0, String::new()));
                seen.last_mut().expect("pushed")
            }
        };
        entry.2 += 1;
        if k == Kind::Tag {
            if let Some(a) =
                char::from_u32(c as u32 - 0xE0000).filter(|a| a.is_ascii_graphic() || *a == ' ')
            {
                entry.3.push(a);
            }
        }
    }
    for (k, column, count, spelled) in seen {
        // One or two selectors follow emoji legitimately; a run carries data.
        if k == Kind::Selectors && count < 4 {
            continue;
        }
        let mut message = format!("{count} {}", k.what());
        if !spelled.is_empty() {
            let shown: String = spelled.chars().take(80).collect();
            message.push_str(&format!(" spelling \"{shown}\""));
        }
        found.push(Finding {
            code: codes::HIDDEN_CHARACTERS,
            level: k.level(),
            pos: Pos {
                line: number,
                column,
                len: 1,
            },
            message,
            help: "remove the invisible characters; a reviewer cannot see what they say or reorder",
        });
    }
}

/// Whether the tag character at `i` belongs to an emoji flag sequence (a black flag, up to
/// six tag letters, a cancel tag): the flags of England, Scotland and Wales are written so.
fn is_flag_tag(chars: &[char], i: usize) -> bool {
    let mut start = i;
    while start > 0 && ('\u{E0000}'..='\u{E007F}').contains(&chars[start - 1]) {
        start -= 1;
    }
    let mut end = i;
    while end + 1 < chars.len() && ('\u{E0000}'..='\u{E007F}').contains(&chars[end + 1]) {
        end += 1;
    }
    start > 0 && chars[start - 1] == '\u{1F3F4}' && chars[end] == '\u{E007F}' && end - start <= 7
}
