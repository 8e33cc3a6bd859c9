//! Bad input never panics and always gets a diagnostic, including inputs too
//! awkward to commit as fixtures.

use skillc::RawFile;
use skillc::{check_files, codes, CheckOptions};

fn codes_for(files: &[RawFile]) -> Vec<&'static str> {
    check_files(files, &CheckOptions::default())
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect()
}

fn one_skill(text: impl Into<Vec<u8>>) -> Vec<&'static str> {
    codes_for(&[RawFile::new("a/SKILL.md", text)])
}

#[test]
fn empty_file_has_no_frontmatter() {
    assert_eq!(one_skill(""), vec![codes::MISSING_FRONTMATTER]);
}

#[test]
fn a_lone_fence_is_unclosed() {
    assert_eq!(one_skill("---"), vec![codes::UNCLOSED_FRONTMATTER]);
}

#[test]
fn empty_frontmatter_is_missing_its_description() {
    assert_eq!(one_skill("---\n---\n"), vec![codes::MISSING_FIELD]);
}

#[test]
fn a_scalar_frontmatter_is_not_a_mapping() {
    assert_eq!(
        one_skill("---\njust text\n---\n"),
        vec![codes::NOT_A_MAPPING]
    );
}

#[test]
fn deeply_nested_yaml_is_refused_not_overflowed() {
    // 60,000 levels in 120 KB once took 17 s (the scanner is quadratic in the depth); the
    // bound below is generous, the fix answers in milliseconds.
    let started = std::time::Instant::now();
    for (open, close) in [("[", "]"), ("{a: ", "}")] {
        let deep = format!(
            "---\nname: a\ndescription: d\nmetadata: {}{}\n---\n",
            open.repeat(60_000),
            close.repeat(60_000)
        );
        assert_eq!(one_skill(deep), vec![codes::YAML_TOO_COMPLEX]);
    }
    let dashes = format!(
        "---\nname: a\ndescription: d\nx:\n  {}y\n---\n",
        "- ".repeat(60_000)
    );
    assert_eq!(one_skill(dashes), vec![codes::YAML_TOO_COMPLEX]);
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

#[test]
fn binary_junk_is_invalid_utf8() {
    assert_eq!(
        one_skill(vec![0xFF, 0xFE, 0x00, 0x01]),
        vec![codes::INVALID_UTF8]
    );
}

#[test]
fn a_description_with_a_fence_inside_is_kept_whole() {
    let report = check_files(
        &[RawFile::new(
            "a/SKILL.md",
            "---\nname: a\ndescription: a---b\n---\nBody\n",
        )],
        &CheckOptions {
            strict_spec: true,
            ..Default::default()
        },
    );
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    assert_eq!(
        report.workspace.skills[0]
            .frontmatter
            .description
            .as_deref(),
        Some("a---b")
    );
}

#[test]
fn crlf_files_parse_like_lf_files() {
    let report = check_files(
        &[RawFile::new(
            "a/SKILL.md",
            "---\r\nname: a\r\ndescription: d\r\n---\r\nBody\r\n",
        )],
        &CheckOptions::default(),
    );
    assert_eq!(report.workspace.skills[0].body, "Body\n");
    assert_eq!(report.diagnostics[0].code, codes::CRLF);
}

#[test]
fn one_bad_file_does_not_hide_the_others() {
    let files = [
        RawFile::new("a/SKILL.md", "no frontmatter"),
        RawFile::new("b/SKILL.md", vec![0xC3, 0x28]),
        RawFile::new(
            "c/SKILL.md",
            "---\nname: c\ndescription: ok\ndependencies: [zz]\n---\n",
        ),
        RawFile::new("d/SKILL.md", "---\nname: d\ndescription: fine\n---\n"),
    ];
    let report = check_files(&files, &CheckOptions::default());
    let got: Vec<(&str, &str)> = report
        .diagnostics
        .iter()
        .map(|d| (d.file.as_str(), d.code))
        .collect();
    assert_eq!(
        got,
        vec![
            ("a/SKILL.md", codes::MISSING_FRONTMATTER),
            ("b/SKILL.md", codes::INVALID_UTF8),
            ("c/SKILL.md", codes::UNKNOWN_SKILL),
        ]
    );
    assert_eq!(report.workspace.skills.len(), 2);
}

#[test]
fn diagnostics_do_not_depend_on_file_order() {
    let mut files = vec![
        RawFile::new(
            "z/SKILL.md",
            "---\nname: z\ndescription: d\nimports: [y]\n---\n",
        ),
        RawFile::new(
            "y/SKILL.md",
            "---\nname: y\ndescription: d\nimports: [z]\n---\n",
        ),
        RawFile::new("x/SKILL.md", "---\nname: y\ndescription: dup\n---\n"),
    ];
    let a = check_files(&files, &CheckOptions::default()).diagnostics;
    files.reverse();
    let b = check_files(&files, &CheckOptions::default()).diagnostics;
    assert_eq!(a, b);
    assert!(!a.is_empty());
}
