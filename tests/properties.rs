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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any nesting, of any depth and mix of flow lists, flow maps and compact block lists,
    /// gives a diagnostic past the limit and never overflows the stack.
    #[test]
    fn arbitrary_nesting_depth_gives_a_diagnostic_not_an_overflow(
        opens in prop::collection::vec(prop_oneof![Just("["), Just("{a: "), Just("- ")], 1..4_000),
        closed in any::<bool>(),
    ) {
        let flow: Vec<&str> = opens.iter().copied().filter(|o| *o != "- ").collect();
        let dashes = opens.iter().filter(|o| **o == "- ").count();
        let mut value = flow.concat();
        if closed {
            value.push('1');
            for o in flow.iter().rev() {
                value.push(if *o == "[" { ']' } else { '}' });
            }
        }
        let text = format!(
            "---\nname: a\ndescription: d\nmetadata:\n  {}{value}\n---\n",
            "- ".repeat(dashes)
        );
        let report = check_files(&[RawFile::new("a/SKILL.md", text)], &CheckOptions::default());
        let deep = flow.len() > 128 || dashes > 128;
        if deep {
            prop_assert!(report.diagnostics.iter().any(|d| d.code == skillc::codes::YAML_TOO_COMPLEX));
        }
        prop_assert!(!report.diagnostics.is_empty() || !deep);
    }
}

// ---- Build invariants (SPEC 10) -------------------------------------------------------------

mod build_props {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;
    use skillc::build::{compile, BuildOptions};
    use skillc::fsio::RawFile;
    use skillc::resolve::{self, Slot};
    use skillc::{check_files, CheckOptions};

    const URLS: &[&str] = &[
        "https://a.example/x",
        "https://A.example/x/",
        "https://b.example/",
        "https://c.example/page?q=1",
    ];

    /// A small random workspace: global skills with sources and imports, clients with toggles
    /// and overriding skills.
    fn workspace() -> impl Strategy<Value = Vec<RawFile>> {
        let skill = (
            prop::collection::vec(0..URLS.len(), 0..3),
            prop::collection::vec(0usize..6, 0..3),
            any::<bool>(),
        );
        let client = (
            prop::collection::vec((0usize..6, any::<bool>()), 0..4),
            prop::collection::vec(0usize..6, 0..3),
        );
        (
            prop::collection::vec(skill, 1..6),
            prop::collection::vec(client, 0..3),
        )
            .prop_map(|(skills, clients)| {
                let n = skills.len();
                let mut files = vec![RawFile::new(
                    "workspace.yaml",
                    "locales: [en, fr]\ntiers: [{ name: standard }, { name: fast, body: compact }]\n",
                )];
                for (i, (sources, imports, default_off)) in skills.iter().enumerate() {
                    let imports: Vec<String> = imports.iter().map(|j| format!("s{}", j % n)).collect();
                    let mut body = format!("Body of s{i}.");
                    let mut yaml = String::from("sources:\n");
                    for (k, u) in sources.iter().enumerate() {
                        yaml.push_str(&format!("  - sid: {}\n    url: {}\n", k + 1, URLS[*u]));
                        body.push_str(&format!(" Cite [[S:{}]].", k + 1));
                    }
                    if sources.len() > 1 {
                        body.push_str(&format!(" Range [[S:1-{}]].", sources.len()));
                    }
                    files.push(RawFile::new(
                        format!("g/s{i}/SKILL.md"),
                        format!(
                            "---\nname: s{i}\ndescription: Skill {i}.\nimports: [{}]\ndefault_enabled: {}\n---\n{body}\n",
                            imports.join(", "),
                            !default_off
                        ),
                    ));
                    if !sources.is_empty() {
                        files.push(RawFile::new(format!("g/s{i}/sources.yaml"), yaml));
                    }
                    files.push(RawFile::new(format!("g/s{i}/compact.md"), format!("Short s{i}.")));
                }
                for (c, (toggles, overrides)) in clients.iter().enumerate() {
                    let mut yaml = String::from("toggles:\n");
                    let mut seen = BTreeSet::new();
                    for (j, on) in toggles {
                        if seen.insert(j % n) {
                            yaml.push_str(&format!("  s{}: {on}\n", j % n));
                        }
                    }
                    if seen.is_empty() {
                        yaml = String::new();
                    }
                    files.push(RawFile::new(format!("clients/c{c}/client.yaml"), yaml));
                    for j in overrides.iter().map(|j| j % n).collect::<BTreeSet<_>>() {
                        files.push(RawFile::new(
                            format!("clients/c{c}/x/s{j}/SKILL.md"),
                            format!("---\nname: s{j}\ndescription: Client {c} s{j}.\n---\nClient body.\n"),
                        ));
                    }
                }
                files
            })
    }

    fn artifact_bytes(files: &[RawFile], threads: usize) -> Vec<u8> {
        let report = check_files(files, &CheckOptions::default());
        assert!(report.is_ok(), "{:?}", report.diagnostics);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (data, _) = pool
            .install(|| {
                compile(
                    &report.workspace,
                    "h",
                    &report.diagnostics,
                    &BuildOptions::default(),
                )
            })
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a.db");
        skillc::artifact::write(&out, &data).unwrap();
        std::fs::read(out).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn output_does_not_depend_on_file_order_or_thread_count(
            files in workspace(),
            seed in any::<u64>(),
        ) {
            let a = artifact_bytes(&files, 1);
            let mut shuffled = files.clone();
            // A deterministic shuffle driven by the seed.
            let mut s = seed | 1;
            for i in (1..shuffled.len()).rev() {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                shuffled.swap(i, (s % (i as u64 + 1)) as usize);
            }
            let b = artifact_bytes(&shuffled, 3);
            prop_assert!(a == b, "artifacts differ");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn toggled_off_skills_never_appear_and_client_overrides_always_win(files in workspace()) {
            let report = check_files(&files, &CheckOptions::default());
            let ws = &report.workspace;
            let p = resolve::prepare(ws);
            for spec in resolve::bundles(ws) {
                let slots = p.resolve(&spec);
                let client = spec.client.as_ref().map(|c| &ws.clients[c]);
                for (q, slot) in &slots {
                    let name = q.trim_start_matches("public.");
                    if client.and_then(|c| c.toggles.get(name)).is_some_and(|t| !t.enabled) {
                        prop_assert!(matches!(slot, Slot::Removed(_)), "{q} is toggled off but present");
                    }
                    if let Slot::Entry(k) = slot {
                        let overridden = spec.client.as_ref().is_some_and(|c| {
                            ws.skills.iter().any(|s| s.name == name && s.scope == skillc::model::Scope::Client(c.clone()))
                        });
                        if overridden {
                            prop_assert_eq!(&ws.skills[k.source].scope, &skillc::model::Scope::Client(spec.client.clone().unwrap()));
                        }
                    }
                }
            }
        }

        #[test]
        fn every_rewritten_token_resolves_to_exactly_one_pooled_url(files in workspace()) {
            let report = check_files(&files, &CheckOptions::default());
            let ws = &report.workspace;
            let pool = skillc::pool::build(ws);
            let urls: BTreeMap<u32, &str> = pool.sources.iter().map(|s| (s.sid, s.url.as_str())).collect();
            // One URL, one id.
            let distinct: BTreeSet<&str> = urls.values().copied().collect();
            prop_assert_eq!(distinct.len(), urls.len());
            for (i, skill) in ws.skills.iter().enumerate() {
                let (text, cited) = skillc::pool::rewrite(&skill.body, &pool.local[i]);
                let (tokens, bad) = skillc::sources::scan(&text);
                prop_assert!(bad.is_empty());
                for t in tokens {
                    for sid in t.sids {
                        prop_assert!(urls.contains_key(&sid));
                        prop_assert!(cited.contains(&sid));
                    }
                }
                // Local ids that name the same URL map to the same pool id.
                for s in &skill.sources {
                    let pooled = pool.local[i][&s.sid];
                    prop_assert_eq!(urls[&pooled], skillc::pool::normalize_url(&s.url));
                }
            }
        }

        #[test]
        fn import_closure_is_order_independent_and_idempotent(
            edges in prop::collection::vec((0usize..7, 0usize..7), 0..20),
            start in 0usize..7,
        ) {
            let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (a, b) in &edges {
                graph.entry(format!("n{a}")).or_default().push(format!("n{b}"));
            }
            let start = format!("n{start}");
            let closure: BTreeSet<&str> = resolve::import_closure(&start, |n| graph.get(n).map(Vec::as_slice)).into_iter().collect();
            // Order-independent: reversing every adjacency list gives the same set.
            let reversed: BTreeMap<String, Vec<String>> = graph.iter().map(|(k, v)| (k.clone(), v.iter().rev().cloned().collect())).collect();
            let again: BTreeSet<&str> = resolve::import_closure(&start, |n| reversed.get(n).map(Vec::as_slice)).into_iter().collect();
            prop_assert_eq!(&closure, &again);
            // Idempotent: the closure of any member adds nothing new.
            for m in &closure {
                for x in resolve::import_closure(m, |n| graph.get(n).map(Vec::as_slice)) {
                    prop_assert!(x == start || closure.contains(x));
                }
            }
            prop_assert!(!closure.contains(start.as_str()));
        }
    }
}
