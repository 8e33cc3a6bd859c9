//! Fixture workspaces: `tests/fixtures/<case>/workspace` is checked and its diagnostics must
//! equal `tests/fixtures/<case>/expected.txt`. A `STRICT` file selects `--strict-spec`; a
//! `GENERATE` file lists `path bytes` of large files made at test time (too big to commit),
//! and a `SYMLINKS` file lists `path target` links made at test time (a committed link to `/`
//! or a loop would trip every tool that walks the repository). A `BUILD` file runs a full
//! build instead of a check (a check reports every error a build would; see `template-fails`).
//! Run with `SKILLC_BLESS=1` to rewrite the expected files after a deliberate change.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use skillc::{codes, CheckOptions, Diagnostic};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// One line per diagnostic, plus its help line: the stable, reviewable form.
fn render(diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&format!(
            "{}[{}] {}:{}:{}: {}\n",
            d.severity.as_str(),
            d.code,
            d.file,
            d.line,
            d.column,
            d.message
        ));
        if let Some(help) = &d.help {
            out.push_str(&format!("  help: {help}\n"));
        }
    }
    out
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn run_case(case: &Path) -> Vec<Diagnostic> {
    let options = CheckOptions {
        strict_spec: case.join("STRICT").exists(),
        ..Default::default()
    };
    let workspace = case.join("workspace");
    if case.join("BUILD").exists() {
        let out = tempfile::tempdir().unwrap();
        let options = skillc::BuildOptions::default();
        return skillc::build(&workspace, &out.path().join("a.db"), &options)
            .unwrap()
            .diagnostics;
    }
    let generate = case.join("GENERATE");
    let symlinks = case.join("SYMLINKS");
    if !generate.exists() && !symlinks.exists() {
        return skillc::check(&workspace, &options).unwrap().diagnostics;
    }
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&workspace, tmp.path());
    for line in fs::read_to_string(symlinks).unwrap_or_default().lines() {
        let (path, target) = line.split_once(' ').unwrap();
        std::os::unix::fs::symlink(target, tmp.path().join(path)).unwrap();
    }
    for line in fs::read_to_string(generate).unwrap_or_default().lines() {
        let (path, size) = line.split_once(' ').unwrap();
        let path = tmp.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = b"---\nname: b\ndescription: big\n---\n".to_vec();
        text.resize(size.parse().unwrap(), b'x');
        fs::write(path, text).unwrap();
    }
    skillc::check(tmp.path(), &options).unwrap().diagnostics
}

#[test]
fn every_fixture_reports_exactly_its_expected_diagnostics() {
    let bless = std::env::var_os("SKILLC_BLESS").is_some();
    // Blessing rewrites every expectation unreviewed: never where results are judged.
    assert!(
        !(bless && std::env::var_os("CI").is_some()),
        "SKILLC_BLESS is refused under CI: bless locally and review the diff"
    );
    let mut cases: Vec<PathBuf> = fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("workspace").is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 30, "fixtures are missing");
    let mut failures = Vec::new();
    for case in &cases {
        let actual = render(&run_case(case));
        let expected_path = case.join("expected.txt");
        if bless {
            fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let Ok(expected) = fs::read_to_string(&expected_path) else {
            failures.push(format!(
                "--- {}: expected.txt is missing (an empty file means no diagnostics)\nactual:\n{actual}",
                case.display()
            ));
            continue;
        };
        if actual != expected {
            failures.push(format!(
                "--- {}\nexpected:\n{expected}\nactual:\n{actual}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_diagnostic_code_has_a_failing_fixture() {
    let mut seen = BTreeSet::new();
    for entry in fs::read_dir(fixtures_dir()).unwrap() {
        let expected = entry.unwrap().path().join("expected.txt");
        if let Ok(text) = fs::read_to_string(expected) {
            for line in text.lines().filter(|l| !l.starts_with(' ')) {
                if let Some(code) = line.split('[').nth(1).and_then(|r| r.split(']').next()) {
                    seen.insert(code.to_string());
                }
            }
        }
    }
    let missing: Vec<&&str> = codes::ALL.iter().filter(|c| !seen.contains(**c)).collect();
    assert!(missing.is_empty(), "codes without a fixture: {missing:?}");
}

/// The codes each fixture exists for: its output must hold every one of them (an
/// `expected.txt` blessed after a regression could otherwise hold anything), and none of
/// those written `!CODE`.
const FIXTURE_CODES: &[(&str, &[&str])] = &[
    ("alias-bomb", &["E009"]),
    ("authored-wrong-shapes", &["E010", "E012", "E021", "E022"]),
    ("collection-fields", &["W116"]),
    ("collection-same-name", &["W122"]),
    ("collection-same-folder-name", &["W122", "!E013"]),
    (
        "collection-other-tools",
        &["W116", "!E010", "!E012", "!E029"],
    ),
    ("plugin-marketplace", &["W118", "!E013", "!E012"]),
    ("plugin-plain-names", &["E012", "!E013"]),
    ("plugin-manifest-broken", &["W123"]),
    ("target-budget", &["W124"]),
    ("untranslated-copy", &["W131", "!W121"]),
    ("template-descriptions", &["W132"]),
    ("target-copilot-argument-hint", &["W126"]),
    ("target-claude-api-keys", &["W127"]),
    ("target-claude-code-names", &["W128", "W129"]),
    ("target-description-limit", &["W130"]),
    ("external-unfetched", &["E028", "W125"]),
    ("bad-eval-set", &["E029"]),
    ("allowed-tools-list", &["W108"]),
    ("bad-condition", &["E021"]),
    ("bad-json", &["E018"]),
    ("bad-regex", &["E014"]),
    ("bad-source", &["E023"]),
    ("bad-template", &["E024"]),
    ("bad-test-cases", &["E026", "E027", "E010"]),
    ("overlap", &["W118", "E012"]),
    ("example-routes-elsewhere", &["W119"]),
    ("example-routes-distinct", &["!W119"]),
    ("secret-elsewhere", &["W120"]),
    ("stale-translation", &["W121"]),
    ("bad-variant", &["E022"]),
    ("bom", &["W101"]),
    ("client-warnings", &["W109", "W110", "W111"]),
    ("content-warnings", &["W106", "W107", "W112"]),
    ("crlf", &["W102"]),
    ("cycles", &["W104", "W105"]),
    ("duplicate-key", &["E008"]),
    ("duplicate-skill", &["E013"]),
    ("foreign-fields", &["W116"]),
    ("hidden-skills", &["W115"]),
    ("invalid-utf8", &["E002"]),
    ("invalid-value", &["E010"]),
    ("many-problems", &["E004", "E012", "E014", "E015"]),
    ("missing-description", &["E011"]),
    ("missing-frontmatter", &["E004"]),
    ("no-skills", &["W117"]),
    ("not-a-mapping", &["E007"]),
    ("over-budget", &["W114"]),
    ("portability-warnings", &["P201", "P202", "P203", "P205"]),
    (
        "strict-spec",
        &["P201", "P202", "P203", "P204", "P205", "P206", "P207"],
    ),
    ("symlink-escape", &["E016"]),
    ("symlink-loop", &["E017"]),
    ("template-fails", &["E025"]),
    ("too-large", &["E003"]),
    ("two-skill-files", &["W113"]),
    ("unclosed-frontmatter", &["E005"]),
    ("undefined-source", &["E015"]),
    ("unknown-config-field", &["E019"]),
    ("unknown-field", &["W103"]),
    ("unknown-name", &["E020"]),
    ("unknown-reference", &["E012"]),
    ("unreadable-file", &["E001"]),
    ("yaml-syntax", &["E006"]),
    ("safety-hidden-text", &["S101", "S102"]),
    ("safety-against-user", &["S201", "S202", "S203", "S204"]),
    (
        "safety-code",
        &["S301", "S302", "S303", "S401", "S601", "S701"],
    ),
    ("safety-opaque", &["S501", "S301"]),
    ("safety-deny", &["S301", "S202"]),
    ("safety-bad-config", &["E019", "!S301"]),
];

#[test]
fn every_fixture_produces_the_codes_it_is_named_for() {
    let mut problems = Vec::new();
    for entry in fs::read_dir(fixtures_dir()).unwrap() {
        let case = entry.unwrap().path();
        if !case.join("workspace").is_dir() {
            continue;
        }
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let Some((_, codes)) = FIXTURE_CODES.iter().find(|(n, _)| *n == name) else {
            problems.push(format!(
                "{name}: add it to FIXTURE_CODES with the codes it is for"
            ));
            continue;
        };
        let got: BTreeSet<&str> = run_case(&case).iter().map(|d| d.code).collect();
        for code in *codes {
            // `!E013`: the fixture exists to show that E013 is not reported.
            match code.strip_prefix('!') {
                Some(never) if got.contains(never) => {
                    problems.push(format!("{name}: {never} is reported (got {got:?})"))
                }
                None if !got.contains(code) => {
                    problems.push(format!("{name}: {code} is not reported (got {got:?})"))
                }
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn checking_a_fixture_twice_gives_the_same_output() {
    let case = fixtures_dir().join("many-problems");
    assert_eq!(render(&run_case(&case)), render(&run_case(&case)));
}
