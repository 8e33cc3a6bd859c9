//! Property tests: the parser and validator never panic, whatever the bytes or the YAML.

use proptest::prelude::*;
use skillc::fsio::RawFile;
use skillc::{check_files, CheckOptions};

fn check_never_panics(files: &[RawFile]) {
    for strict_spec in [false, true] {
        let report = check_files(files, &CheckOptions { strict_spec });
        for d in &report.diagnostics {
            assert!(d.line >= 1 && d.column >= 1);
        }
    }
}

/// YAML-ish text built from the pieces that break parsers: fences, indentation, flow
/// collections, anchors, aliases, quotes, tabs and the format's own keys.
fn yamlish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_string()),
        Just("name: ".to_string()),
        Just("description: ".to_string()),
        Just("conditions:\n  - ".to_string()),
        Just("page_url_matches: ".to_string()),
        Just("starts_with_any: [".to_string()),
        Just("when:\n  - { flag: a.b, ".to_string()),
        Just("vars:\n  X:\n    required: ".to_string()),
        Just("mcp: {command: ".to_string()),
        Just("dependencies: [".to_string()),
        Just("[[S:".to_string()),
        Just("&a ".to_string()),
        Just("*a ".to_string()),
        Just("<<: ".to_string()),
        Just("]\n".to_string()),
        Just("}\n".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("\t".to_string()),
        Just("\n  ".to_string()),
        Just("- ".to_string()),
        Just("#".to_string()),
        Just("\u{feff}".to_string()),
        Just("\r\n".to_string()),
        "[a-z0-9_().|\\\\-]{0,8}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_never_panics(&[RawFile::new("a/SKILL.md", bytes.clone())]);
        check_never_panics(&[RawFile::new("workspace.yaml", bytes.clone())]);
        check_never_panics(&[RawFile::new("clients/c/client.yaml", bytes.clone())]);
        check_never_panics(&[RawFile::new("variables.json", bytes)]);
    }

    #[test]
    fn arbitrary_yaml_frontmatter_never_panics(yaml in yamlish(), body in yamlish()) {
        let text = format!("---\n{yaml}\n---\n{body}");
        check_never_panics(&[
            RawFile::new("a/SKILL.md", text.clone()),
            RawFile::new("a/SKILL.fr.md", text.clone()),
            RawFile::new("a/sources.yaml", yaml.clone()),
            RawFile::new("cat/CATEGORY.md", text),
            RawFile::new("workspace.yaml", yaml),
        ]);
    }

    #[test]
    fn a_fence_inside_a_value_never_ends_the_frontmatter(
        before in "[a-z]{1,10}",
        after in "[a-z]{1,10}",
    ) {
        let description = format!("{before}---{after}");
        let text = format!("---\nname: a\ndescription: {description}\n---\nBody\n");
        let report = check_files(&[RawFile::new("a/SKILL.md", text)], &CheckOptions { strict_spec: true });
        prop_assert!(report.diagnostics.is_empty());
        prop_assert_eq!(report.workspace.skills[0].frontmatter.description.as_deref(), Some(description.as_str()));
    }
}
