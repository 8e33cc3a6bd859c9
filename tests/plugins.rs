//! Claude Code plugins (SPEC 13.2): a marketplace's plugins and a plugin inside a skillc
//! workspace are namespaces; their skills are `<plugin>:<skill>`, a plain name selects one when
//! only one plugin has it, and the plugin's metadata reaches the catalog JSON and `explain`.
//! (Every runtime's answers over the marketplace fixture: `tests/parity/rules_parity.py`.)

use crate::common::skillc;

use std::path::{Path, PathBuf};
use std::process::Output;

use skillc::{build, rebuild, BuildOptions, Session};
use skillc_runtime::{Artifact, BundleRef, Format};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn marketplace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/plugin-marketplace/workspace")
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_marketplace_builds_with_each_plugin_as_a_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.db");
    let out_s = out.to_str().unwrap();
    let built = skillc(&["build", marketplace().to_str().unwrap(), "-o", out_s]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );

    let catalog: serde_json::Value =
        serde_json::from_str(&stdout(&skillc(&["catalog", out_s, "--format", "json"]))).unwrap();
    let names: Vec<&str> = (catalog["skills"].as_array().unwrap().iter())
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ci-kit:review",
            "ci-kit:run",
            "discord:access",
            "discord:configure",
            "review-kit:review",
            "review-kit:status",
            "telegram:access",
            "telegram:configure"
        ]
    );
    // Metadata from plugin.json, and from the marketplace entry where there is none.
    let discord = &catalog["skills"][2]["plugin"];
    assert_eq!(discord["version"], "0.3.1");
    assert_eq!(discord["name"], "discord");
    assert_eq!(catalog["skills"][0]["plugin"]["author"], "Build team");

    // A plain name selects the one plugin skill that has it; a shared one selects none.
    let prompt = stdout(&skillc(&[
        "prompt",
        out_s,
        "--select",
        "run,access",
        "--format",
        "json",
    ]));
    let prompt: serde_json::Value = serde_json::from_str(&prompt).unwrap();
    assert_eq!(prompt["skills"][0]["name"], "ci-kit:run");
    assert_eq!(prompt["removed"][0]["name"], "access");
    assert_eq!(prompt["removed"][0]["reason"], "unknown");

    let explained = skillc(&["explain", out_s, "access"]);
    assert_eq!(explained.status.code(), Some(1));
    let err = String::from_utf8_lossy(&explained.stderr);
    assert!(
        err.contains("discord:access, telegram:access; name one of them"),
        "{err}"
    );
    let explained = stdout(&skillc(&["explain", out_s, "status"]));
    assert!(
        explained.contains("From the Claude Code plugin `review-kit` 1.4.0 by Dev Experience"),
        "{explained}"
    );
}

/// A workspace authored for skillc holding one plugin (`vendor/.claude-plugin/plugin.json`).
fn workspace_with_a_plugin(root: &Path) {
    write(root, "workspace.yaml", "locales: [en]\n");
    write(
        root,
        "vendor/.claude-plugin/plugin.json",
        r#"{"name": "vendor", "version": "2.0.0", "description": "Vendor skills"}"#,
    );
    write(
        root,
        "vendor/skills/lookup/SKILL.md",
        "---\nname: lookup\ndescription: Looks an order up.\ndependencies: [format]\n---\nLook it up.\n",
    );
    write(
        root,
        "vendor/skills/format/SKILL.md",
        "---\nname: format\ndescription: Formats an order.\n---\nFormat it.\n",
    );
    write(
        root,
        "public/orders/SKILL.md",
        "---\nname: orders\ndescription: Answers about orders.\ndependencies: [vendor:lookup]\n---\nAnswer.\n",
    );
    write(
        root,
        "clients/acme/client.yaml",
        "toggles:\n  vendor:format: false\n",
    );
}

#[test]
fn a_plugin_inside_a_workspace_is_referenced_toggled_and_rebuilt_by_its_names() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    workspace_with_a_plugin(&ws);
    let checked = skillc(&["check", ws.to_str().unwrap()]);
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let out = dir.path().join("a.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let a = Artifact::open(&out).unwrap();
    let global = a
        .catalog(
            &BundleRef::default(),
            None,
            &Default::default(),
            Format::Markdown,
        )
        .unwrap();
    let names: Vec<&str> = global.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["orders", "vendor:format", "vendor:lookup"]);
    // `dependencies: [format]` inside the plugin means `vendor:format`.
    let p = a
        .prompt(
            &BundleRef::default(),
            None,
            &Default::default(),
            &["lookup"],
        )
        .unwrap();
    let got: Vec<(&str, &str)> = (p.skills.iter())
        .map(|s| (s.name.as_str(), s.reason.as_str()))
        .collect();
    assert!(
        got.contains(&("vendor:format", "dependency:vendor:lookup")),
        "{got:?}"
    );
    // The client's toggle names the plugin skill.
    let acme = BundleRef {
        client: Some("acme"),
        ..BundleRef::default()
    };
    let names: Vec<String> = (a
        .catalog(&acme, None, &Default::default(), Format::Markdown)
        .unwrap()
        .skills
        .iter())
    .map(|s| s.name.clone())
    .collect();
    assert!(!names.contains(&"vendor:format".to_string()), "{names:?}");

    // An edit inside the plugin's skill (the incremental path) keeps its name.
    let (options, mut session) = (BuildOptions::default(), Session::default());
    rebuild(&ws, &out, &options, &mut session).unwrap();
    write(
        &ws,
        "vendor/skills/lookup/SKILL.md",
        "---\nname: lookup\ndescription: Looks an order up by its number.\ndependencies: [format]\n---\nLook it up.\n",
    );
    rebuild(&ws, &out, &options, &mut session).unwrap();
    let a = Artifact::open(&out).unwrap();
    let global = a
        .catalog(
            &BundleRef::default(),
            None,
            &Default::default(),
            Format::Markdown,
        )
        .unwrap();
    let lookup = global.skills.iter().find(|s| s.name == "vendor:lookup");
    assert_eq!(
        lookup.map(|s| s.description.as_str()),
        Some("Looks an order up by its number.")
    );
}

#[test]
fn a_broken_plugin_manifest_is_a_warning_and_its_skills_keep_their_plain_names() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        "tools/.claude-plugin/plugin.json",
        "{ \"name\": \"tools\", }",
    );
    write(
        &ws,
        "tools/skills/lint/SKILL.md",
        "---\nname: lint\ndescription: Runs the linters.\n---\nRun.\n",
    );
    let checked = skillc(&["check", ws.to_str().unwrap(), "--format", "json"]);
    assert!(checked.status.success());
    let report: serde_json::Value = serde_json::from_str(&stdout(&checked)).unwrap();
    assert_eq!(report["diagnostics"][0]["code"], "W123");
    assert_eq!(
        report["diagnostics"][0]["file"],
        "tools/.claude-plugin/plugin.json"
    );
    let out = dir.path().join("a.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let a = Artifact::open(&out).unwrap();
    let catalog = a
        .catalog(
            &BundleRef::default(),
            None,
            &Default::default(),
            Format::Markdown,
        )
        .unwrap();
    assert_eq!(catalog.skills[0].name, "lint");
}

#[test]
fn a_marketplace_of_three_thousand_plugins_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    // A generated marketplace past both the streaming threshold (256 KiB) and the text limit
    // (1 MiB): real ones list thousands of plugins with long descriptions.
    let plugins: Vec<serde_json::Value> = (0..3000)
        .map(|i| {
            serde_json::json!({
                "name": format!("plugin-{i}"),
                "source": format!("./plugins/p{i}"),
                "description": format!("Plugin {i}: {}", "does useful things. ".repeat(20)),
                "version": "1.0.0",
                "author": {"name": "Someone"},
            })
        })
        .collect();
    let manifest = serde_json::json!({"name": "big", "owner": {"name": "x"}, "plugins": plugins});
    let text = serde_json::to_string_pretty(&manifest).unwrap();
    assert!(text.len() > 1 << 20, "{}", text.len());
    write(&ws, ".claude-plugin/marketplace.json", &text);
    write(
        &ws,
        "plugins/p2999/skills/lint/SKILL.md",
        "---\nname: lint\ndescription: Runs the linters.\n---\nRun.\n",
    );
    let checked = skillc(&["check", ws.to_str().unwrap(), "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&checked)).unwrap();
    assert!(checked.status.success(), "{report}");
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report}");
    let out = dir.path().join("a.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let a = Artifact::open(&out).unwrap();
    let catalog = a
        .catalog(
            &BundleRef::default(),
            None,
            &Default::default(),
            Format::Markdown,
        )
        .unwrap();
    assert_eq!(catalog.skills[0].name, "plugin-2999:lint");
}

#[test]
fn control_characters_of_a_plugin_never_reach_the_output_raw() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(
        &ws,
        ".claude-plugin/marketplace.json",
        r#"{"name": "m", "plugins": [{"name": "a\u001b[31mred\u0007", "description": "d\u001b[2J", "source": "./plugins/a"}]}"#,
    );
    write(
        &ws,
        "plugins/b/.claude-plugin/plugin.json",
        r#"{"name": "b\u001b]0;title\u0007"}"#,
    );
    // Raw ESC in a manifest is not JSON; the line shown under the warning holds it.
    write(
        &ws,
        "plugins/c/.claude-plugin/plugin.json",
        "{\"name\": \"c\u{1b}[2J\"}",
    );
    for p in ["a", "b", "c"] {
        write(
            &ws,
            &format!("plugins/{p}/skills/s{p}/SKILL.md"),
            &format!("---\nname: s{p}\ndescription: The s{p} skill.\n---\nRun.\n"),
        );
    }
    let checked = skillc(&["check", ws.to_str().unwrap()]);
    let all = format!(
        "{}{}",
        stdout(&checked),
        String::from_utf8_lossy(&checked.stderr)
    );
    assert_eq!(checked.status.code(), Some(1), "{all}");
    assert!(!all.contains('\u{1b}') && !all.contains('\u{7}'), "{all:?}");
    for escaped in [
        "`name` holds control characters: `a\\u{1b}[31mred\\u{7}`",
        "`description` holds control characters: `d\\u{1b}[2J`",
        "`name` holds control characters: `b\\u{1b}]0;title\\u{7}`",
    ] {
        assert!(all.contains(escaped), "{escaped}: {all}");
    }
    // The plugins are named after their folders, so no catalog name holds them either.
    let loaded = skillc::internals::parse::load_dir(&ws, None, &[]).unwrap();
    let names: Vec<&str> = loaded
        .workspace
        .plugins
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["b", "a"]);
    assert!(loaded
        .workspace
        .plugins
        .iter()
        .all(|p| p.description.is_none()));
}

/// A workspace with the plugin `vendor` (`vendor:lookup`, `vendor:format`) and two clients:
/// `acme` has a skill of its own named `format`, `beta` a plugin of its own with a `lookup`.
pub(crate) fn workspace_with_plugin_names_a_client_takes(root: &Path) {
    workspace_with_a_plugin(root);
    write(root, "clients/acme/client.yaml", "locales: [en]\n");
    write(
        root,
        "clients/acme/tools/format/SKILL.md",
        "---\nname: format\ndescription: Formats an invoice for Acme.\n---\nFormat it.\n",
    );
    write(root, "clients/beta/client.yaml", "locales: [en]\n");
    write(
        root,
        "clients/beta/other/.claude-plugin/plugin.json",
        r#"{"name": "other", "version": "1.0.0"}"#,
    );
    write(
        root,
        "clients/beta/other/skills/lookup/SKILL.md",
        "---\nname: lookup\ndescription: Looks a parcel up.\n---\nLook the parcel up.\n",
    );
}

#[test]
fn the_build_stores_which_plain_names_each_bundle_finds_and_a_client_s_own_names_change_it() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    workspace_with_plugin_names_a_client_takes(&ws);
    let out = dir.path().join("a.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    // Each bundle's own rows with their plain mark, as the view gives them.
    let db = rusqlite::Connection::open(&out).unwrap();
    let marks = |client: &str| -> Vec<(String, i64)> {
        let mut st = db
            .prepare(
                "SELECT name.qualified_name, bundle_entry.plain FROM bundle
                 JOIN bundle_entry ON bundle_entry.bundle = bundle.id
                 JOIN name ON name.id = bundle_entry.name
                 WHERE bundle.client = ?1 AND bundle_entry.entry IS NOT NULL
                 ORDER BY name.qualified_name",
            )
            .unwrap();
        st.query_map([client], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let owned = |pairs: &[(&str, i64)]| -> Vec<(String, i64)> {
        pairs.iter().map(|(q, p)| (q.to_string(), *p)).collect()
    };
    assert_eq!(
        marks(""),
        owned(&[
            ("public.orders", 0),
            ("public.vendor:format", 1),
            ("public.vendor:lookup", 1)
        ])
    );
    // Acme's `format` takes the plain name: its bundle lists `vendor:format` again, unmarked.
    assert_eq!(
        marks("acme"),
        owned(&[("public.format", 0), ("public.vendor:format", 0)])
    );
    // Beta's plugin has a `lookup` too: neither is found by it there.
    assert_eq!(
        marks("beta"),
        owned(&[("public.other:lookup", 0), ("public.vendor:lookup", 0)])
    );

    let a = Artifact::open(&out).unwrap();
    let picked = |client: Option<&str>, name: &str| -> Vec<String> {
        let r = BundleRef {
            client,
            ..BundleRef::default()
        };
        let p = a.prompt(&r, None, &Default::default(), &[name]).unwrap();
        (p.skills.iter())
            .filter(|s| s.reason == "selected")
            .map(|s| s.name.clone())
            .collect()
    };
    assert_eq!(picked(None, "format"), ["vendor:format"]);
    assert_eq!(picked(Some("acme"), "format"), ["format"]);
    assert_eq!(picked(Some("acme"), "lookup"), ["vendor:lookup"]);
    assert!(picked(Some("beta"), "lookup").is_empty());
    assert_eq!(picked(Some("beta"), "format"), ["vendor:format"]);
}
