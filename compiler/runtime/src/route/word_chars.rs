//! The word characters of the other runtimes, written from Rust's own. A word of routing is a
//! run of `char::is_alphanumeric` characters, marks ([`mark`](super::mark)) and the unspaced
//! scripts' characters ([`tokens`](super::tokens)); the marks are written apart too, for the
//! meaning's pieces, which leave out those the table has no piece for. Python's standard
//! library has no `Alphabetic` property (`str.isalnum` leaves out the vowel signs of Indic
//! scripts, so `दुनिया` fell apart into `द`, `न`, `य`), and Java and JavaScript know the Unicode
//! version of their platform (Java 17's is 13.0: the combining Latin letters are not alphabetic
//! there). So the Python, TypeScript and Java runtimes read the ranges as data, and this test
//! keeps them equal to Rust's: when Rust's Unicode version moves, it fails until the files are
//! written again with `SKILLC_WRITE_WORD_CHARS=1 cargo test -p skillc-runtime --lib word_chars`.

use std::fmt::Write;

/// The inclusive ranges of code points that `holds` is true of: [`super::word_char`], the
/// characters that `tokens` keeps inside a word, or [`super::mark`].
fn ranges(holds: fn(char) -> bool) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        if !holds(c) {
            continue;
        }
        let c = u32::from(c);
        match out.last_mut() {
            Some((_, end)) if *end + 1 == c => *end = c,
            _ => out.push((c, c)),
        }
    }
    out
}

/// The ranges as lines of hexadecimal `start-end` (or one point) items.
fn lines(holds: fn(char) -> bool) -> Vec<String> {
    let mut lines = vec![String::new()];
    for (start, end) in ranges(holds) {
        let item = if start == end {
            format!("{start:x}")
        } else {
            format!("{start:x}-{end:x}")
        };
        let line = lines.last_mut().expect("one line at least");
        if line.len() + item.len() + 1 > 90 {
            lines.push(item);
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&item);
        }
    }
    lines
}

/// What every file says of itself.
fn about(comment: &str) -> String {
    let (major, minor, patch) = char::UNICODE_VERSION;
    format!(
        "{comment}Word characters of routing (docs/routing.md): the code points Rust's `char::is_alphanumeric`\n\
         {comment}holds in Unicode {major}.{minor}.{patch}, the marks (General_Category Mn and Mc, less the variation\n\
         {comment}selectors) and those of the unspaced scripts (`UNSPACED`), as hexadecimal `start-end` ranges\n\
         {comment}or single points; MARKS: the marks alone.\n\
         {comment}Written by compiler/runtime/src/route/word_chars.rs; do not edit.\n"
    )
}

/// Each runtime's file (from the runtime crate's folder) and its text.
fn files() -> Vec<(&'static str, String)> {
    let (words, marks) = (lines(super::word_char), lines(super::mark));
    let (major, minor, patch) = char::UNICODE_VERSION;
    let version = format!("{major}.{minor}.{patch}");
    let python = format!(
        "{}\nUNICODE_VERSION = \"{version}\"\nRANGES = \"\"\"\n{}\n\"\"\"\nMARKS = \"\"\"\n{}\n\"\"\"\n",
        about("# "),
        words.join("\n"),
        marks.join("\n")
    );
    let mut typescript = about("// ");
    let _ = write!(
        typescript,
        "\nexport const UNICODE_VERSION = \"{version}\";\nexport const RANGES: string = `\n{}\n`;\n\
         export const MARKS: string = `\n{}\n`;\n",
        words.join("\n"),
        marks.join("\n")
    );
    let mut java = about("// ");
    let _ = write!(
        java,
        "package dev.skillc.runtime;\n\n/** Word characters of routing: see the comment above. */\nfinal class WordChars {{\n    \
         static final String UNICODE_VERSION = \"{version}\";\n"
    );
    for (name, lines) in [("RANGES", &words), ("MARKS", &marks)] {
        let _ = writeln!(java, "    static final String {name} = \"\"");
        for line in lines {
            let _ = writeln!(java, "        + \"{line} \"");
        }
        java.push_str("        ;\n");
    }
    java.push_str("\n    private WordChars() {}\n}\n");
    vec![
        ("python/skillc_runtime/_word_chars.py", python),
        ("typescript/src/wordChars.ts", typescript),
        ("java/src/main/java/dev/skillc/runtime/WordChars.java", java),
    ]
}

#[test]
fn the_runtimes_word_characters_are_rusts() {
    let write = std::env::var_os("SKILLC_WRITE_WORD_CHARS").is_some();
    for (file, want) in files() {
        let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
        if write {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{path} is not Rust's `char::is_alphanumeric`: write it again with \
             SKILLC_WRITE_WORD_CHARS=1 cargo test -p skillc-runtime --lib word_chars"
        );
    }
}
