//! Export in each client's own fields (SPEC 14.2, issue 49): what the workspace says, written
//! where each client reads it, and per skill what a client does not carry.

use std::path::{Path, PathBuf};

use crate::common::{said as text, skillc, write};

/// A workspace with one skill that says a little of everything a client might carry.
fn workspace(root: &Path) {
    write(
        root,
        "ship/SKILL.md",
        "---\nname: ship\ndescription: Ships a release to production.\nhidden_from_llm: true\n\
         when_to_use: [\"Deploying a tagged release\"]\ndisplayName: Ship It\n\
         mcp:\n  command: npx -y ship-server\nrequires:\n  env: [SHIP_TOKEN]\n  binary: [git]\n\
         priority: 2\nallowed-tools: Bash\n---\nShip it.\n",
    );
    write(root, "workspace.yaml", "");
}

/// Builds `ws` and exports it for `target`: the skills folder and what the command said.
fn export(ws: &Path, dir: &Path, target: &str) -> (PathBuf, String) {
    let out = dir.join(format!("{target}.db"));
    let built = skillc(&["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(built.status.success(), "{}", text(&built));
    let project = dir.join(target);
    let o = skillc(&[
        "export",
        out.to_str().unwrap(),
        "--target",
        target,
        "-o",
        project.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{target}: {}", text(&o));
    let folder = match target {
        "claude-code" => ".claude/skills",
        "codex" | "agents" => ".agents/skills",
        "copilot" => ".github/skills",
        "cursor" => ".cursor/skills",
        "gemini" => ".gemini/skills",
        _ => "skills",
    };
    let skills = project.join(folder);
    (skills, text(&o))
}

/// The frontmatter of `folder/SKILL.md` as YAML.
fn front(folder: &Path) -> serde_yaml::Mapping {
    let md = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    let yaml = md.split("---\n").nth(1).unwrap();
    serde_yaml::from_str(yaml).unwrap()
}

fn get<'m>(m: &'m serde_yaml::Mapping, key: &str) -> Option<&'m serde_yaml::Value> {
    m.get(serde_yaml::Value::from(key))
}

#[test]
fn each_client_gets_the_fields_it_reads_and_the_report_names_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    workspace(&ws);

    let (skills, report) = export(&ws, dir.path(), "claude-code");
    let f = front(&skills.join("ship"));
    assert_eq!(get(&f, "disable-model-invocation"), Some(&true.into()));
    assert_eq!(
        get(&f, "when_to_use"),
        Some(&"Deploying a tagged release".into())
    );
    let compatibility = get(&f, "compatibility").unwrap().as_str().unwrap();
    assert!(
        compatibility.contains("SHIP_TOKEN") && compatibility.contains("git"),
        "{compatibility}"
    );
    assert!(
        report.contains("`ship`: `displayName`: kept under `metadata`"),
        "{report}"
    );
    assert!(report.contains("`mcp`: kept under `metadata`"), "{report}");
    assert!(
        report.contains("kept under `metadata` only, which claude-code does not act on: priority"),
        "{report}"
    );

    // Codex: the policy, the display name and the MCP server in agents/openai.yaml.
    let (skills, report) = export(&ws, dir.path(), "codex");
    let f = front(&skills.join("ship"));
    assert!(get(&f, "disable-model-invocation").is_none(), "{f:?}");
    assert!(get(&f, "when_to_use").is_none(), "{f:?}");
    let openai = std::fs::read_to_string(skills.join("ship/agents/openai.yaml")).unwrap();
    let openai: serde_yaml::Value = serde_yaml::from_str(&openai).unwrap();
    assert_eq!(openai["policy"]["allow_implicit_invocation"], false);
    assert_eq!(openai["interface"]["display_name"], "Ship It");
    let tool = &openai["dependencies"]["tools"][0];
    assert_eq!(tool["type"], "mcp");
    assert_eq!(tool["command"], "npx -y ship-server");
    assert!(
        report.contains("`when_to_use`: kept under `metadata`, codex"),
        "{report}"
    );
    assert!(!report.contains("`hidden_from_llm`"), "{report}");
    assert!(
        report.contains("`allowed-tools`: written (one of the six keys), codex does not act on it"),
        "{report}"
    );

    // Copilot: not hidden, since Copilot CLI would then drop the skill; said.
    let (skills, report) = export(&ws, dir.path(), "copilot");
    assert!(get(&front(&skills.join("ship")), "disable-model-invocation").is_none());
    assert!(
        report.contains("makes Copilot CLI hide the skill entirely"),
        "{report}"
    );

    // Cursor honours disable-model-invocation.
    let (skills, _) = export(&ws, dir.path(), "cursor");
    assert_eq!(
        get(&front(&skills.join("ship")), "disable-model-invocation"),
        Some(&true.into())
    );

    // claude.ai and the Skills API: the six keys only, the rest named.
    let (skills, report) = export(&ws, dir.path(), "claude-api");
    let f = front(&skills.join("ship"));
    let six = [
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
    ];
    for key in f.keys() {
        assert!(six.contains(&key.as_str().unwrap()), "{key:?} in {f:?}");
    }
    assert!(
        report.contains("`hidden_from_llm`: claude-api cannot keep a skill out"),
        "{report}"
    );
    assert!(
        report.contains("`when_to_use`: kept under `metadata`, claude-api"),
        "{report}"
    );
}

#[test]
fn a_plugin_skill_keeps_its_own_name_unless_two_plugins_share_it() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/plugin-marketplace/workspace");
    let (skills, _) = export(&ws, dir.path(), "claude-code");
    let mut names: Vec<String> = std::fs::read_dir(&skills)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "ci-kit-review",
            "discord-access",
            "discord-configure",
            "review-kit-review",
            "run",
            "status",
            "telegram-access",
            "telegram-configure"
        ]
    );
}

/// Every file under `root`, by its path relative to it.
fn files(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A SKILL.md's frontmatter and body.
fn split(md: &str) -> (serde_yaml::Mapping, String) {
    let mut parts = md.splitn(3, "---\n");
    parts.next();
    let front = serde_yaml::from_str(parts.next().unwrap()).unwrap();
    (front, parts.next().unwrap_or_default().trim().to_string())
}

/// The exported SKILL.md says what the original says: every key with the same value (the
/// original's `metadata` entries among the export's), no key but `metadata` added, the same body.
fn same_skill(path: &str, before: &[u8], after: &[u8]) {
    let (a, a_body) = split(std::str::from_utf8(before).unwrap());
    let (b, b_body) = split(std::str::from_utf8(after).unwrap());
    for (key, value) in &a {
        let Some(mine) = b.get(key) else {
            panic!("{path}: `{key:?}` was dropped: {b:?}")
        };
        match key.as_str() {
            Some("metadata") => {
                for (k, v) in value.as_mapping().unwrap() {
                    assert_eq!(mine.get(k), Some(v), "{path}: metadata {k:?}");
                }
            }
            _ => assert_eq!(mine, value, "{path}: `{key:?}`"),
        }
    }
    for key in b.keys() {
        assert!(
            a.contains_key(key) || key.as_str() == Some("metadata"),
            "{path}: `{key:?}` was added"
        );
    }
    assert_eq!(a_body, b_body, "{path}: the body");
}

#[test]
fn public_collections_come_back_from_an_export_to_their_own_client() {
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/round-trip");
    for client in ["claude-code", "codex", "copilot"] {
        let source = here.join(client);
        let (skills, report) = export(&source, dir.path(), client);
        assert!(!report.contains("would fail"), "{client}: {report}");
        let (before, after) = (files(&source), files(&skills));
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>(),
            "{client}: the files"
        );
        for (path, bytes) in &before {
            let exported = &after[path];
            if path.ends_with("SKILL.md") {
                same_skill(path, bytes, exported);
            } else if path.ends_with("openai.yaml") {
                let a: serde_yaml::Value = serde_yaml::from_slice(bytes).unwrap();
                let b: serde_yaml::Value = serde_yaml::from_slice(exported).unwrap();
                assert_eq!(a, b, "{path}");
            } else {
                assert!(bytes == exported, "{path}");
            }
        }
    }
}

#[test]
fn other_tools_fields_keep_their_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    // Codex: only by hand (policy), and a display name; Claude Code: only by hand.
    write(
        &ws,
        "triage/SKILL.md",
        "---\nname: triage\ndescription: Ranks CVEs.\n---\nRank them.\n",
    );
    write(
        &ws,
        "triage/agents/openai.yaml",
        "interface:\n  display_name: \"CVE Triage\"\npolicy:\n  allow_implicit_invocation: false\n",
    );
    write(
        &ws,
        "deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploys.\ndisable-model-invocation: true\n---\nGo.\n",
    );
    write(
        &ws,
        "open/SKILL.md",
        "---\nname: open\ndescription: Opens.\n---\nOpen.\n",
    );
    let checked = skillc(&["check", ws.to_str().unwrap()]);
    assert!(!text(&checked).contains("W103"), "{}", text(&checked));
    let out = dir.path().join("a.db");
    let built = skillc(&["build", ws.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(built.status.success(), "{}", text(&built));
    // Neither is offered to the model.
    let catalog = skillc(&["catalog", out.to_str().unwrap(), "--format", "json"]);
    let catalog: serde_json::Value = serde_json::from_slice(&catalog.stdout).unwrap();
    let listed: Vec<&str> = (catalog["skills"].as_array().unwrap().iter())
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["open"]);
    // Claude Code is told so in its terms, and Codex's display name reaches its own file.
    let (skills, _) = export(&ws, dir.path(), "claude-code");
    for name in ["triage", "deploy"] {
        let f = front(&skills.join(name));
        assert_eq!(
            get(&f, "disable-model-invocation"),
            Some(&true.into()),
            "{name}"
        );
    }
    assert!(get(&front(&skills.join("open")), "disable-model-invocation").is_none());
    let (skills, _) = export(&ws, dir.path(), "codex");
    let openai = std::fs::read_to_string(skills.join("deploy/agents/openai.yaml")).unwrap();
    assert!(
        openai.contains("allow_implicit_invocation: false"),
        "{openai}"
    );
}

#[test]
fn claude_code_counts_when_to_use_with_the_description() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    // 1,000 characters of description and 600 of when_to_use: each under 1,536, not together.
    let description = "Answers billing questions. ".repeat(37);
    let when = "When the user asks about an invoice. ".repeat(16);
    write(
        &ws,
        "billing/SKILL.md",
        &format!(
            "---\nname: billing\ndescription: {}\nwhen_to_use: [\"{}\"]\n---\nAnswer.\n",
            description.trim(),
            when.trim()
        ),
    );
    write(&ws, "workspace.yaml", "targets: [claude-code]\n");
    let o = skillc(&["check", ws.to_str().unwrap(), "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let w124: Vec<&serde_json::Value> = (report["diagnostics"].as_array().unwrap().iter())
        .filter(|d| d["code"] == "W124")
        .collect();
    assert_eq!(w124.len(), 1, "{report}");
    assert!(
        w124[0]["message"]
            .as_str()
            .unwrap()
            .contains("description with its `when_to_use`"),
        "{report}"
    );
    let (_, said) = export(&ws, dir.path(), "claude-code");
    assert!(said.contains("cut: `billing`'s description"), "{said}");
}
