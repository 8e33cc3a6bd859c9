//! Turning a file's bytes into text the parsers can trust: UTF-8 only, no BOM, `\n` only.

use crate::diagnostic::{codes, Diagnostic, Pos};

/// Largest text file (SKILL.md, YAML, JSON) the compiler reads: 1 MiB.
pub(crate) const MAX_TEXT_BYTES: usize = 1 << 20;

/// Largest Claude Code plugin manifest (`.claude-plugin/*.json`) the compiler reads: 16 MiB,
/// the limit of any file. A marketplace is a generated list, not prose: 3,000 plugins are
/// about 750 KiB, and real ones grow past the text limit.
pub(crate) const MAX_MANIFEST_BYTES: usize = crate::discover::fsio::MAX_FILE_BYTES as usize;

/// The most bytes the text file at `file` may hold.
fn limit_of(file: &str) -> usize {
    match crate::discover::fsio::is_plugin_manifest(file) {
        true => MAX_MANIFEST_BYTES,
        false => MAX_TEXT_BYTES,
    }
}

/// Decodes a text file. Returns the text (BOM stripped, CRLF normalised) and any warnings, or
/// the error that makes the file unusable.
pub(crate) fn decode(file: &str, bytes: &[u8]) -> Result<(String, Vec<Diagnostic>), Diagnostic> {
    let limit = limit_of(file);
    if bytes.len() > limit {
        return Err(Diagnostic::new(
            codes::TOO_LARGE,
            file,
            Pos::start(),
            format!(
                "file is {} bytes, over the {limit} byte limit for text files",
                bytes.len(),
            ),
        )
        .with_help("split the content into references/ files, which are carried as assets"));
    }
    let mut warnings = Vec::new();
    let mut bytes = bytes;
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        bytes = rest;
        warnings.push(
            Diagnostic::new(
                codes::BOM,
                file,
                Pos::start(),
                "file starts with a UTF-8 byte-order mark; it was ignored",
            )
            .with_help("save the file as UTF-8 without BOM"),
        );
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            let prefix = String::from_utf8_lossy(valid);
            let line = prefix.matches('\n').count() + 1;
            let column = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            return Err(Diagnostic::new(
                codes::INVALID_UTF8,
                file,
                Pos {
                    line,
                    column,
                    len: 1,
                },
                format!(
                    "file is not valid UTF-8 (invalid byte 0x{:02X} at offset {})",
                    bytes[e.valid_up_to()],
                    e.valid_up_to()
                ),
            )
            .with_help("re-encode the file as UTF-8"));
        }
    };
    if let Some(at) = text.find("\r\n") {
        let line = text[..at].matches('\n').count() + 1;
        warnings.push(
            Diagnostic::new(
                codes::CRLF,
                file,
                Pos::line(line),
                "file uses CRLF line endings; they were read as LF",
            )
            .with_help("configure your editor or git (`core.autocrlf`) to write LF"),
        );
        return Ok((text.replace("\r\n", "\n"), warnings));
    }
    Ok((text.to_string(), warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_bom_with_a_warning() {
        let (text, warnings) = decode("a.md", b"\xEF\xBB\xBFhello").unwrap();
        assert_eq!(text, "hello");
        assert_eq!(warnings[0].code, codes::BOM);
    }

    #[test]
    fn normalises_crlf_with_a_warning_on_the_first_such_line() {
        let (text, warnings) = decode("a.md", b"a\nb\r\nc\r\n").unwrap();
        assert_eq!(text, "a\nb\nc\n");
        assert_eq!((warnings[0].code, warnings[0].line), (codes::CRLF, 2));
    }

    #[test]
    fn rejects_invalid_utf8_at_its_position() {
        let err = decode("a.md", b"ok\nab\xFFcd").unwrap_err();
        assert_eq!(
            (err.code, err.line, err.column),
            (codes::INVALID_UTF8, 2, 3)
        );
    }

    #[test]
    fn rejects_oversized_files() {
        let big = vec![b'a'; MAX_TEXT_BYTES + 1];
        assert_eq!(decode("a.md", &big).unwrap_err().code, codes::TOO_LARGE);
        // A plugin manifest is a generated list: it may be as large as any file.
        assert!(decode("m/.claude-plugin/marketplace.json", &big).is_ok());
        assert!(decode("m/marketplace.json", &big).is_err());
    }
}
