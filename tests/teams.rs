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
    // A flow mapping on one line merges key by key too, and keeps its comment.
    let base = "routing: { top_k: 3, min_score: 0.6 }   # tuned\ntoggles: {a: true}\n";
    let ours = base
        .replace("top_k: 3", "top_k: 4")
        .replace("{a: true}", "{a: true, b: false}");
    let theirs = base
        .replace("min_score: 0.6", "min_score: 0.5")
        .replace("{a: true}", "{}");
    let m = merge(Kind::Settings, base, &ours, &theirs);
    assert!(m.conflicts.is_empty(), "{}", m.text);
    assert_eq!(
        m.text,
        "routing: { top_k: 4, min_score: 0.5 }   # tuned\ntoggles: {b: false}\n"
    );
    let clash = base.replace("top_k: 3", "top_k: 5");
    assert_eq!(
        merge(Kind::Settings, base, &ours, &clash).conflicts.len(),
        1
    );
    let base = "# Tier 3\nlocales: [en, fr]\nflags:\n  competitors:\n    names: [Chargebee, Maxio]\n    battlecard_mode: true\nvars:\n  _global: { COMPANY_NAME: Hyperline }\n";
    let clash = base.replace("battlecard_mode: true", "battlecard_mode: maybe");
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
        "r: { a: 1, b: 2 }\n",
        "r: {a: 1}\n",
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

/// Every file under `dir` (but the `.skillc/` cache), by relative path.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.starts_with(".skillc") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A copy of the sample workspace.
fn sample() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    crate::common::copy_dir(&from, dir.path());
    dir
}

/// `check`'s summary line (`checked 50 skills: 0 errors, 25 warnings`), asserting it succeeded.
fn checked(ws: &Path) -> String {
    let out = skillc(&["check", arg(ws), "--no-cache"]);
    assert!(out.status.success(), "{}", said(&out));
    let text = said(&out);
    text.lines()
        .rfind(|l| l.starts_with("checked "))
        .unwrap()
        .to_string()
}

#[test]
fn renaming_context_gathering_in_the_sample_changes_every_reference_and_check_stays_clean() {
    let dir = sample();
    let ws = dir.path();
    let before = snapshot(ws);
    let summary = checked(ws);
    let out = skillc(&[
        "rename",
        arg(ws),
        "context_gathering",
        "clarifying_question",
        "--dry-run",
    ]);
    assert!(out.status.success(), "{}", said(&out));
    let listed = said(&out);
    for line in [
        "public/response_ending/CATEGORY.md:10: Pick context_gathering when the question is too vague to answer well. → Pick clarifying_question when",
        "public/response_ending/context_gathering/SKILL.md:2: name: context_gathering → name: clarifying_question",
        "tests/seed-000.yaml:55: select: [demo_offer, content_gating, clean_ending, context_gathering] → select: [demo_offer, content_gating, clean_ending, clarifying_question]",
        "tests/seed-000.yaml:61: context_gathering: \"excluded:demo_offer\" → clarifying_question: \"excluded:demo_offer\"",
        "tests/seed-000.yaml:69: removed: {clean_ending: \"excluded:content_gating\", context_gathering: excluded} → removed: {clean_ending: \"excluded:content_gating\", clarifying_question: excluded}",
        "public/response_ending/context_gathering/ → ",
        "7 lines in 3 files, 1 folders moved (dry run: nothing written)",
    ] {
        assert!(listed.contains(line), "{line}\nnot in:\n{listed}");
    }
    assert_eq!(snapshot(ws), before, "a dry run writes nothing");

    let out = skillc(&[
        "rename",
        arg(ws),
        "context_gathering",
        "clarifying_question",
    ]);
    assert!(out.status.success(), "{}", said(&out));
    let after = snapshot(ws);
    // Every file as it was but for the name, moved with its folder; nothing names it any more.
    let moved = |rel: &str| rel.replace("/context_gathering/", "/clarifying_question/");
    assert_eq!(after.len(), before.len());
    for (rel, bytes) in &before {
        let text = String::from_utf8_lossy(bytes);
        let expected = text.replace("context_gathering", "clarifying_question");
        let got = after
            .get(&moved(rel))
            .unwrap_or_else(|| panic!("{rel} is gone"));
        assert_eq!(String::from_utf8_lossy(got), expected, "{rel}");
    }
    assert_eq!(checked(ws), summary, "the same check, errors and warnings");
    let out = skillc(&["test", arg(ws)]);
    assert!(out.status.success(), "{}", said(&out));
}

#[test]
fn renaming_a_skill_named_by_a_word_moves_overrides_and_variants_but_not_flags_or_prose() {
    let dir = sample();
    let ws = dir.path();
    let summary = checked(ws);
    let out = skillc(&["rename", arg(ws), "competitors", "rivals"]);
    assert!(out.status.success(), "{}", said(&out));
    let read = |rel: &str| std::fs::read_to_string(ws.join(rel)).unwrap();
    assert!(read("public/response_handling/rivals/SKILL.md").contains("name: rivals\n"));
    assert!(
        read("clients/northwind.io/response_handling/rivals/SKILL.md").contains("name: rivals\n")
    );
    assert!(read("public/response_handling/competitors-aware/SKILL.md")
        .contains("variant_of: rivals\n"));
    assert!(
        read("clients/hyperline.co/response_handling/client_competitor_posture/SKILL.md")
            .contains("augments: [rivals]\n")
    );
    // A flag of the same name, a variable and the word in prose are not the skill.
    assert!(read("clients/hyperline.co/client.yaml").contains("flags:\n  competitors:\n"));
    assert!(read("public/response_handling/competitors-aware/SKILL.md")
        .contains("{{db_competitors_names}}"));
    assert!(
        read("public/response_handling/CATEGORY.md").contains("(pricing, competitors, support)")
    );
    assert_eq!(checked(ws), summary);
    let out = skillc(&["test", arg(ws)]);
    assert!(out.status.success(), "{}", said(&out));
}

#[test]
fn rename_refuses_an_unknown_name_a_taken_name_or_a_bad_name_and_writes_nothing() {
    let dir = sample();
    let ws = dir.path();
    let before = snapshot(ws);
    for (old, new, why) in [
        ("context_gatherin", "x", "no skill `context_gatherin` in"),
        ("context_gatherin", "x", "did you mean `context_gathering`?"),
        (
            "context_gathering",
            "pricing",
            "a skill `pricing` is already in",
        ),
        ("context_gathering", "a b", "`a b` is not a skill name"),
    ] {
        let out = skillc(&["rename", arg(ws), old, new]);
        assert_eq!(out.status.code(), Some(1), "{}", said(&out));
        assert!(said(&out).contains(why), "{why}: {}", said(&out));
    }
    assert_eq!(snapshot(ws), before);
}

#[test]
fn renaming_reaches_next_skills_qualified_names_consumers_translations_and_crlf_files() {
    let dir = sample();
    let ws = dir.path();
    let edit = |rel: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(ws.join(rel)).unwrap();
        assert!(text.contains(from), "{rel}: {from}");
        std::fs::write(ws.join(rel), text.replacen(from, to, 1)).unwrap();
    };
    edit(
        "public/response_ending/demo_offer/SKILL.md",
        "priority: 1\n",
        "priority: 1\nnext_skill: public.clean_ending\nconditional_next_skills: { booked: \"skills.public.clean_ending\" }\n",
    );
    edit(
        "workspace.yaml",
        "[\"public.url-gen\"]",
        "[\"public.url-gen\", public.clean_ending]",
    );
    let fr = "---\r\nname: clean_ending\r\ndescription: Terminer sans appel à l'action.\r\n---\r\n# Instructions\r\n\r\nLa dernière phrase utile (voir `clean_ending`), puis rien.\r\n";
    std::fs::write(
        ws.join("public/response_ending/clean_ending/SKILL.fr.md"),
        fr,
    )
    .unwrap();
    let summary = checked(ws);
    let out = skillc(&["rename", arg(ws), "clean_ending", "plain_ending"]);
    assert!(out.status.success(), "{}", said(&out));
    let read = |rel: &str| std::fs::read_to_string(ws.join(rel)).unwrap();
    let demo = read("public/response_ending/demo_offer/SKILL.md");
    assert!(demo.contains("next_skill: public.plain_ending\nconditional_next_skills: { booked: \"skills.public.plain_ending\" }\n"), "{demo}");
    assert!(read("public/response_ending/context_gathering/SKILL.md")
        .contains("dependencies: [plain_ending]\n"));
    assert!(read("workspace.yaml").contains("[\"public.url-gen\", public.plain_ending]"));
    assert_eq!(
        read("public/response_ending/plain_ending/SKILL.fr.md"),
        fr.replace("clean_ending", "plain_ending"),
        "CRLF kept, only the name changed"
    );
    assert_eq!(checked(ws), summary);
    let out = skillc(&["test", arg(ws)]);
    assert!(out.status.success(), "{}", said(&out));
}

#[test]
fn set_edits_workspace_and_client_settings_by_dotted_path_changing_only_their_lines() {
    let dir = sample();
    let ws = dir.path();
    let (wy, cy) = (
        ws.join("workspace.yaml"),
        ws.join("clients/hyperline.co/client.yaml"),
    );
    let (w0, c0) = (
        std::fs::read_to_string(&wy).unwrap(),
        std::fs::read_to_string(&cy).unwrap(),
    );
    let set = |args: &[&str]| {
        let out = skillc(&[&["set"], args].concat());
        assert!(out.status.success(), "{args:?}: {}", said(&out));
    };
    set(&[arg(&wy), "locales", "[en, en-gb, fr, de]"]);
    set(&[arg(&wy), "routing.top_k", "4"]);
    set(&[arg(&cy), "routing.min_score", "0.5"]);
    set(&[arg(&cy), "--unset", "flags.competitors.battlecard_mode"]);
    assert_eq!(
        std::fs::read_to_string(&wy).unwrap(),
        w0.replace("locales: [en, en-gb, fr]", "locales: [en, en-gb, fr, de]")
            + "routing:\n  top_k: 4\n"
    );
    assert_eq!(
        std::fs::read_to_string(&cy).unwrap(),
        c0.replace(
            "{ top_k: 3, min_score: 0.6 }",
            "{ top_k: 3, min_score: 0.5 }"
        )
        .replace("    battlecard_mode: true\n", "")
    );
    checked(ws);
    // A SKILL.md is edited by field, as before (a dotted name is one field there).
    let skill = ws.join("public/response_ending/demo_offer/SKILL.md");
    set(&[arg(&skill), "priority", "2"]);
    assert!(std::fs::read_to_string(&skill)
        .unwrap()
        .contains("\npriority: 2\n"));
}

#[test]
fn set_adds_edits_and_removes_a_plan_by_its_name_changing_only_its_line() {
    let dir = sample();
    let ws = dir.path();
    let wy = ws.join("workspace.yaml");
    let w0 = std::fs::read_to_string(&wy).unwrap();
    let set = |args: &[&str]| {
        let out = skillc(&[&["set"], args].concat());
        assert!(out.status.success(), "{args:?}: {}", said(&out));
    };
    // `tiers.gold` is the item of `tiers:` named gold: added last, on one line.
    set(&[arg(&wy), "tiers.gold", "{ catalog_token_budget: 900 }"]);
    set(&[arg(&wy), "tiers.fast.catalog_token_budget", "2000"]);
    assert_eq!(
        std::fs::read_to_string(&wy).unwrap(),
        w0.replace(
            "  - { name: pro }\n",
            "  - { name: pro }\n  - { name: gold, catalog_token_budget: 900 }\n"
        )
        .replace("catalog_token_budget: 1500", "catalog_token_budget: 2000")
    );
    checked(ws);
    set(&[arg(&wy), "--unset", "tiers.gold"]);
    set(&[arg(&wy), "tiers.fast.catalog_token_budget", "1500"]);
    assert_eq!(std::fs::read_to_string(&wy).unwrap(), w0);
    // A plan a client names stays: removing it would leave that client an error.
    let out = skillc(&["set", arg(&wy), "--unset", "tiers.pro"]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(said(&out).contains("nothing was written"), "{}", said(&out));
    assert_eq!(std::fs::read_to_string(&wy).unwrap(), w0);
}

#[test]
fn set_refuses_settings_that_break_the_workspace_even_given_a_bare_file_name() {
    let dir = sample();
    let ws = dir.path();
    let before = snapshot(ws);
    let wy = ws.join("workspace.yaml");
    for (args, why) in [
        (
            vec![arg(&wy), "default_locale", "xx"],
            "default locale `xx` is not in `locales`",
        ),
        (
            vec![arg(&wy), "--unset", "routing.nope"],
            "has no `routing.nope`",
        ),
        (vec![arg(&wy), "a..b", "1"], "`a..b` is not a path of keys"),
        (
            vec![arg(&wy), "locales", "[unclosed"],
            "the value is not YAML",
        ),
    ] {
        let out = skillc(&[&["set"], &args[..]].concat());
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", said(&out));
        assert!(said(&out).contains(why), "{why}: {}", said(&out));
    }
    // Run in the file's own folder, the edit is checked against the same workspace.
    for (folder, file, key, value) in [
        (".", "workspace.yaml", "default_locale", "xx"),
        (
            "public/response_ending/demo_offer",
            "SKILL.md",
            "priority",
            "\"high\"",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_skillc"))
            .args(["set", file, key, value])
            .current_dir(ws.join(folder))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{file}: {}", said(&out));
        assert!(said(&out).contains("nothing was written"), "{}", said(&out));
    }
    assert_eq!(snapshot(ws), before);
}

#[test]
fn rename_refuses_a_skill_written_outside_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    crate::common::write(
        root,
        "ws/workspace.yaml",
        "name: ws\nroots: { custom: ../outside }\n",
    );
    crate::common::write(
        root,
        "ws/public/a/SKILL.md",
        "---\nname: a\ndescription: A skill.\ndependencies: [x]\n---\nBody.\n",
    );
    crate::common::write(
        root,
        "outside/x/SKILL.md",
        "---\nname: x\ndescription: X.\n---\nBody.\n",
    );
    let before = snapshot(root);
    let out = skillc(&["rename", arg(&root.join("ws")), "x", "y"]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(
        said(&out).contains("`x` is not written in"),
        "{}",
        said(&out)
    );
    assert_eq!(snapshot(root), before);
}

#[test]
fn a_settings_file_of_twenty_thousand_keys_merges_in_seconds() {
    let base: String = (0..20_000).map(|i| format!("key{i}: {i}\n")).collect();
    let ours = base.replace("key5: 5\n", "key5: 6\n");
    let theirs = base.replace("key19000: 19000\n", "key19000: 1\n");
    let started = std::time::Instant::now();
    let m = merge(Kind::Settings, &base, &ours, &theirs);
    // Key lookups by scanning made this 16 s (unoptimised build); by hash it is under one.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(m.conflicts.is_empty());
    assert_eq!(m.text, ours.replace("key19000: 19000\n", "key19000: 1\n"));
}

#[test]
fn a_sentence_changed_two_ways_keeps_both_and_the_kind_comes_from_the_name() {
    let ours = SKILL.replace("15 words", "12 words");
    let theirs = SKILL
        .replace("15 words", "20 words")
        .replace("priority: 3", "priority: 4");
    let m = merge(Kind::Skill, SKILL, &ours, &theirs);
    assert_eq!(m.conflicts.len(), 1, "{}", m.text);
    assert_eq!(m.conflicts[0].place, "the body");
    assert_eq!(m.conflicts[0].ours, "Keep it under 12 words.\n");
    assert_eq!(m.conflicts[0].theirs, "Keep it under 20 words.\n");
    assert!(m.text.contains("priority: 4\n"), "{}", m.text);
    assert!(m.text.ends_with(
        "<<<<<<< ours\nKeep it under 12 words.\n=======\nKeep it under 20 words.\n>>>>>>> theirs\n"
    ));
    for (path, kind) in [
        ("skills/a/SKILL.md", Kind::Skill),
        ("skills/a/SKILL.fr.md", Kind::Skill),
        ("skills/public/x/CATEGORY.md", Kind::Skill),
        ("skills/workspace.yaml", Kind::Settings),
        ("skills/clients/a.com/client.yaml", Kind::Settings),
        ("skills/README.md", Kind::Text),
        ("skills/variables.json", Kind::Text),
    ] {
        assert_eq!(Kind::of(Path::new(path)), kind, "{path}");
    }
}

#[test]
fn reach_says_who_gets_a_skills_text_variants_and_own_versions_counted_as_the_studio_does() {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let out = skillc(&["reach", arg(&ws), "competitors"]);
    assert!(out.status.success(), "{}", said(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    // Of five clients: northwind.io has its own, augment.org and hyperline.co get variants.
    assert!(
        text.starts_with("competitors (public/response_handling/competitors/SKILL.md): 2 clients get this text, of 5, and visitors of no client.\n"),
        "{text}"
    );
    for line in [
        "  northwind.io uses its own version instead: clients/northwind.io/response_handling/competitors/SKILL.md\n",
        "  augment.org always gets competitors_aware instead\n",
        "  hyperline.co never gets this text: competitors_battlecard in tier standard or pro, competitors_aware in tier fast\n",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    // The same numbers as JSON, from the one function the studio's panel reads.
    let out = skillc(&["reach", arg(&ws), "competitors", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["reach"]["getting"], 2);
    assert_eq!(json["reach"]["clients"], 5);
    assert_eq!(json["reach"]["instead"][0]["client"], "augment.org");
    // A client's own skill by --client, a translation's file as its skill's, toggles.
    let own = skillc(&["reach", arg(&ws), "pricing", "--client", "ibanfirst.com"]);
    assert!(
        said(&own).contains("only ibanfirst.com's visitors get this text."),
        "{}",
        said(&own)
    );
    let fr = ws.join("public/response_ending/demo_offer/SKILL.fr.md");
    let by_file = skillc(&["reach", arg(&ws), arg(&fr)]);
    assert!(
        said(&by_file)
            .contains("demo_offer (public/response_ending/demo_offer/SKILL.md): 4 clients get"),
        "{}",
        said(&by_file)
    );
    assert!(
        said(&by_file).contains("turned off for example.com"),
        "{}",
        said(&by_file)
    );
    // A name no skill has, or not for that client: exit 2, naming the ones there are.
    let none = skillc(&["reach", arg(&ws), "pricing", "--client", "example.com"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(
        said(&none).contains("ibanfirst.com's own (--client ibanfirst.com)"),
        "{}",
        said(&none)
    );
    assert_eq!(
        skillc(&["reach", arg(&ws), "no_such_skill"]).status.code(),
        Some(2)
    );
}
