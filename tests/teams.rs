//! Working on a workspace together (SPEC 14.4): `skillc merge` as git's merge driver and as a
//! library (both sides' edits survive, a conflict keeps both), `skillc rename`, `skillc set` on
//! workspace.yaml and client.yaml.

use std::path::Path;
use std::process::{Command, Output};

use proptest::prelude::*;
use skillc::edit::merge::{merge, Kind};

use crate::common::{arg, said, skillc};

const SKILL: &str = "---\nname: context_gathering\ndescription: Ask one short clarifying question.\ncategory: response_ending   # the ending rules\npriority: 3\ndependencies: [clean_ending]\ntrigger_examples:\n  - \"Tell me more\"\n  - \"Does it work for us?\"\n---\n# Instructions\n\nAnswer what you can, then ask exactly one question.\n\nKeep it under 15 words.\n";

/// Runs git in `dir` with no user or system configuration but a fixed author.
fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(["-c", "user.name=Ada", "-c", "user.email=ada@example.com"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("run git")
}

fn git_ok(dir: &Path, args: &[&str]) {
    let out = git(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", said(&out));
}

/// A repository whose SKILL.md merges through `skillc merge` (as docs/teams.md says to set up),
/// with a branch `theirs` and `main` each given one edit of the skill.
fn branches(ours: impl Fn(&str) -> String, theirs: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git_ok(repo, &["init", "-q"]);
    let driver = format!(
        "'{}' merge --path %P --marker-size %L %O %A %B",
        env!("CARGO_BIN_EXE_skillc")
    );
    git_ok(
        repo,
        &["config", "merge.skillc.name", "skillc workspace merge"],
    );
    git_ok(repo, &["config", "merge.skillc.driver", &driver]);
    std::fs::write(
        repo.join(".gitattributes"),
        "SKILL*.md merge=skillc\n*.yaml merge=skillc\n",
    )
    .unwrap();
    let skill = repo.join("skills/context_gathering/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(&skill, SKILL).unwrap();
    git_ok(repo, &["add", "-A"]);
    git_ok(repo, &["commit", "-qm", "base"]);
    git_ok(repo, &["checkout", "-qb", "theirs"]);
    std::fs::write(&skill, theirs(SKILL)).unwrap();
    git_ok(repo, &["commit", "-qam", "theirs"]);
    git_ok(repo, &["checkout", "-q", "main"]);
    std::fs::write(&skill, ours(SKILL)).unwrap();
    git_ok(repo, &["commit", "-qam", "ours"]);
    dir
}

#[test]
fn git_merges_edits_of_different_fields_of_one_skill_through_the_driver() {
    // Adjacent lines: git's own line merge would stop on these as a conflict.
    let dir = branches(
        |s| s.replace("priority: 3", "priority: 2"),
        |s| s.replace("response_ending   #", "response_endings   #"),
    );
    let out = git(dir.path(), &["merge", "-q", "--no-edit", "theirs"]);
    assert!(out.status.success(), "{}", said(&out));
    let merged =
        std::fs::read_to_string(dir.path().join("skills/context_gathering/SKILL.md")).unwrap();
    assert_eq!(
        merged,
        SKILL
            .replace("priority: 3", "priority: 2")
            .replace("response_ending   #", "response_endings   #")
    );
}

#[test]
fn git_stops_on_the_same_field_changed_two_ways_with_both_sides_in_the_file() {
    let dir = branches(
        |s| s.replace("priority: 3", "priority: 2"),
        |s| {
            s.replace("priority: 3", "priority: 1")
                .replace("15 words", "12 words")
        },
    );
    let out = git(dir.path(), &["merge", "-q", "--no-edit", "theirs"]);
    assert!(!out.status.success(), "{}", said(&out));
    let merged =
        std::fs::read_to_string(dir.path().join("skills/context_gathering/SKILL.md")).unwrap();
    assert!(
        merged.contains("<<<<<<< ours\npriority: 2\n=======\npriority: 1\n>>>>>>> theirs\n"),
        "{merged}"
    );
    // The other side's edit elsewhere is in too.
    assert!(merged.contains("Keep it under 12 words."), "{merged}");
    let status = git(dir.path(), &["status", "--porcelain"]);
    assert!(
        said(&status).contains("UU skills/context_gathering/SKILL.md"),
        "{}",
        said(&status)
    );
}

/// One edit of each kind a person makes to a SKILL.md, each in its own place.
const EDITS: &[(&str, &str)] = &[
    ("description: Ask one short", "description: Ask one brief"),
    ("priority: 3", "priority: 2"),
    ("[clean_ending]", "[clean_ending, demo_offer]"),
    (
        "  - \"Tell me more\"\n",
        "  - \"Tell me more\"\n  - \"Go on\"\n",
    ),
    ("  - \"Does it work for us?\"\n", ""),
    ("# Instructions", "# How to ask"),
    ("Keep it under 15 words.", "Keep it under 12 words."),
    ("---\n# Instructions", "emoji: \"❓\"\n---\n# Instructions"),
];

#[test]
fn both_sides_edits_survive_in_every_combination_of_fields_lists_and_paragraphs() {
    for (i, ours) in EDITS.iter().enumerate() {
        for (j, theirs) in EDITS.iter().enumerate() {
            if i == j {
                continue;
            }
            let o = SKILL.replace(ours.0, ours.1);
            let t = SKILL.replace(theirs.0, theirs.1);
            let m = merge(Kind::Skill, SKILL, &o, &t);
            assert!(m.conflicts.is_empty(), "{ours:?} + {theirs:?}:\n{}", m.text);
            // One edit applied over the other (whichever still finds its text).
            let both = if o.contains(theirs.0) {
                o.replace(theirs.0, theirs.1)
            } else {
                t.replace(ours.0, ours.1)
            };
            assert_eq!(m.text, both, "{ours:?} + {theirs:?}");
        }
    }
}

#[test]
fn client_settings_merge_by_key_at_any_depth_and_conflicts_name_the_key() {
    let base = "# Tier 3\nlocales: [en, fr]\nflags:\n  competitors:\n    names: [Chargebee, Maxio]\n    battlecard_mode: true\nvars:\n  _global: { COMPANY_NAME: Hyperline }\n";
    let ours = base.replace("battlecard_mode: true", "battlecard_mode: false");
    let theirs = base
        .replace("[Chargebee, Maxio]", "[Chargebee, Maxio, Paddle]")
        .replace("[en, fr]", "[en, fr, de]");
    let m = merge(Kind::Settings, base, &ours, &theirs);
    assert!(m.conflicts.is_empty(), "{}", m.text);
    assert_eq!(
        m.text,
        ours.replace("[Chargebee, Maxio]", "[Chargebee, Maxio, Paddle]")
            .replace("[en, fr]", "[en, fr, de]")
    );
    let clash = base.replace("battlecard_mode: true", "battlecard_mode: maybe");
    let m = merge(Kind::Settings, base, &ours, &clash);
    assert_eq!(m.conflicts.len(), 1, "{}", m.text);
    assert_eq!(m.conflicts[0].place, "`flags.competitors.battlecard_mode`");
    assert!(m.text.contains("<<<<<<< ours\n    battlecard_mode: false\n=======\n    battlecard_mode: maybe\n>>>>>>> theirs\n"), "{}", m.text);
    // Removed on one side, changed on the other: both kept.
    let gone = base.replace("    battlecard_mode: true\n", "");
    let m = merge(Kind::Settings, base, &gone, &clash);
    assert_eq!(m.conflicts.len(), 1, "{}", m.text);
    assert!(m.text.contains("battlecard_mode: maybe"), "{}", m.text);
}

#[test]
fn the_command_writes_over_ours_or_to_output_and_exits_0_1_or_2() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    std::fs::write(p("base"), SKILL).unwrap();
    std::fs::write(p("ours"), SKILL.replace("priority: 3", "priority: 2")).unwrap();
    std::fs::write(p("theirs"), SKILL.replace("priority: 3", "priority: 1")).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["merge", "--path", "skills/x/SKILL.md"];
        args.extend_from_slice(extra);
        skillc(&args)
    };
    let out = run(&[
        arg(&p("base")),
        arg(&p("ours")),
        arg(&p("theirs")),
        "-o",
        arg(&p("m")),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(
        said(&out).contains("skills/x/SKILL.md:5: conflict in field `priority`"),
        "{}",
        said(&out)
    );
    assert!(std::fs::read_to_string(p("m"))
        .unwrap()
        .contains(">>>>>>> theirs"));
    // Without -o the result replaces OURS (git's %A).
    std::fs::write(p("theirs"), SKILL.replace("# Instructions", "# How")).unwrap();
    let out = run(&[arg(&p("base")), arg(&p("ours")), arg(&p("theirs"))]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let merged = std::fs::read_to_string(p("ours")).unwrap();
    assert_eq!(
        merged,
        SKILL
            .replace("priority: 3", "priority: 2")
            .replace("# Instructions", "# How")
    );
    // Bad input: a missing side, a binary file. OURS is left as it was.
    std::fs::write(p("bin"), b"\0\x01\x02").unwrap();
    for bad in [p("missing"), p("bin")] {
        let out = run(&[arg(&p("base")), arg(&p("ours")), arg(&bad)]);
        assert_eq!(out.status.code(), Some(2), "{}", said(&out));
        assert!(
            said(&out).contains(&*bad.to_string_lossy()),
            "{}",
            said(&out)
        );
        assert_eq!(std::fs::read_to_string(p("ours")).unwrap(), merged);
    }
}

/// Texts made of lines a workspace file holds (fences, keys, nested keys, list items, flow
/// lists, comments, paragraphs), in any order: well-formed or not, the merge must keep the rule.
fn texts() -> impl Strategy<Value = String> {
    let line = prop::sample::select(vec![
        "---\n",
        "name: a\n",
        "name: b\n",
        "description: x\n",
        "tags: [a, b]\n",
        "tags: [b]\n",
        "list:\n",
        "  - one\n",
        "  - two\n",
        "- top\n",
        "flags:\n",
        "  k: 1\n",
        "  k: 2\n",
        "    deep: x\n",
        "# note\n",
        "\n",
        "Some words.\n",
        "More words.\n",
        "a: {b: 1}\n",
        "\r\n",
        "trailing",
    ]);
    prop::collection::vec(line, 0..24).prop_map(|ls| ls.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn a_merge_with_one_side_unchanged_gives_the_other(base in texts(), side in texts()) {
        for kind in [Kind::Skill, Kind::Settings, Kind::Text] {
            let m = merge(kind, &base, &side, &base);
            prop_assert!(m.conflicts.is_empty());
            prop_assert_eq!(&m.text, &side, "{:?}, theirs unchanged", kind);
            let m = merge(kind, &base, &base, &side);
            prop_assert!(m.conflicts.is_empty());
            prop_assert_eq!(&m.text, &side, "{:?}, ours unchanged", kind);
        }
    }
}
