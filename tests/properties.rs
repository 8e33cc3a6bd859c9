//! Property tests: the parser and validator never panic, whatever the bytes or the YAML.

use proptest::prelude::*;
use skillc::RawFile;
use skillc::{check_files, CheckOptions};

fn check_never_panics(files: &[RawFile]) {
    for strict_spec in [false, true] {
        let report = check_files(
            files,
            &CheckOptions {
                strict_spec,
                ..Default::default()
            },
        );
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
    #![proptest_config(crate::common::proptest_config(512))]

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
        let report = check_files(&[RawFile::new("a/SKILL.md", text)], &CheckOptions { strict_spec: true, ..Default::default() });
        prop_assert!(report.diagnostics.is_empty());
        prop_assert_eq!(report.workspace.skills[0].frontmatter.description.as_deref(), Some(description.as_str()));
    }
}

proptest! {
    #![proptest_config(crate::common::proptest_config(64))]

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

// ---- Build invariants -----------------------------------------------------------------------

mod build_props {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;
    use skillc::internals::pipeline::compile_to;
    use skillc::internals::resolve::{self, Slot};
    use skillc::RawFile;
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
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a.db");
        pool.install(|| compile_to(&report.workspace, "h", report.diagnostics, &out))
            .unwrap();
        std::fs::read(out).unwrap()
    }

    proptest! {
        #![proptest_config(crate::common::proptest_config(24))]

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
        #![proptest_config(crate::common::proptest_config(64))]

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
            let pool = skillc::internals::resolve::pool::build(ws);
            let urls: BTreeMap<u32, &str> = pool.sources.iter().map(|s| (s.sid, s.url.as_str())).collect();
            // One URL, one id.
            let distinct: BTreeSet<&str> = urls.values().copied().collect();
            prop_assert_eq!(distinct.len(), urls.len());
            for (i, skill) in ws.skills.iter().enumerate() {
                let (text, cited) = skillc::internals::resolve::pool::rewrite(&skill.body, &pool.local[i]);
                let (tokens, bad) = skillc::internals::parse::scan(&text);
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
                    prop_assert_eq!(urls[&pooled], skillc::internals::resolve::pool::normalize_url(&s.url));
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

// ---- Lossless edits (`set`, `toggle`) -------------------------------------------------------

mod edit_props {
    use proptest::prelude::*;
    use skillc::edit::{set_field, set_toggle, FieldEdit, Toggle};

    /// One frontmatter field as written by people: comments, odd spacing, blocks, flows.
    fn field() -> impl Strategy<Value = (String, String)> {
        let key = prop::sample::select(vec![
            "priority",
            "category",
            "tags",
            "trigger_examples",
            "emoji",
            "version",
            "always_on",
            "metadata",
            "license",
        ]);
        let value = prop::sample::select(vec![
            " 1".to_string(),
            "   'quoted # not a comment'".to_string(),
            " plain text   # a note".to_string(),
            " [a, b]".to_string(),
            "\n  - one   # first\n  # between\n  - two".to_string(),
            "\n  author: me\n  version: '1.0'".to_string(),
            " true".to_string(),
            " >-\n  folded\n  text".to_string(),
        ]);
        (key, value).prop_map(|(k, v)| (k.to_string(), v))
    }

    fn skill_text() -> impl Strategy<Value = (String, Vec<String>, bool)> {
        (
            prop::collection::vec(
                (
                    field(),
                    prop::sample::select(vec!["", "# a comment\n", "\n", "  \n"]),
                ),
                0..6,
            ),
            any::<bool>(),
        )
            .prop_map(|(fields, crlf)| {
                let mut text = String::from("---\nname: s\ndescription: d   # keep\n");
                let mut keys = Vec::new();
                for ((k, v), sep) in fields {
                    if keys.contains(&k) {
                        continue;
                    }
                    text.push_str(sep);
                    text.push_str(&format!("{k}:{v}\n"));
                    keys.push(k);
                }
                text.push_str("---\nBody {{ x }}\n");
                if crlf {
                    text = text.replace('\n', "\r\n");
                }
                (text, keys, crlf)
            })
    }

    /// What `b` removed from `a`, when it removed one run of lines and changed nothing else.
    fn removed<'t>(a: &'t str, b: &str) -> Option<Vec<&'t str>> {
        let la: Vec<&str> = a.split_inclusive('\n').collect();
        let lb: Vec<&str> = b.split_inclusive('\n').collect();
        let pre = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
        let suf = la[pre..]
            .iter()
            .rev()
            .zip(lb[pre..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        (pre + suf == lb.len()).then(|| la[pre..la.len() - suf].to_vec())
    }

    /// The lines are one field's: its key line, then lines indented under it.
    fn one_field(lines: &[&str], key: &str) -> bool {
        let first = lines.first().map(|l| l.trim_start());
        let key_line = first.is_some_and(|l| l.starts_with(&format!("{key}:")));
        let indent = lines.first().map_or(0, |l| l.len() - l.trim_start().len());
        let under = lines[1..].iter().all(|l| {
            let i = l.len() - l.trim_start().len();
            i > indent || l.trim().is_empty() || (indent == 0 && l.starts_with("- "))
        });
        key_line && under
    }

    fn frontmatter(text: &str) -> serde_yaml::Mapping {
        let text = text.replace("\r\n", "\n");
        let yaml = text
            .trim_start_matches("---\n")
            .split("\n---\n")
            .next()
            .unwrap()
            .to_string();
        serde_yaml::from_str(&yaml).unwrap()
    }

    proptest! {
        #![proptest_config(crate::common::proptest_config(512))]

        #[test]
        fn a_field_edit_changes_only_that_field_and_reads_back(
            (text, keys, crlf) in skill_text(),
            key in prop::sample::select(vec!["priority", "tags", "emoji", "metadata", "license", "category"]),
            value in prop::sample::select(vec!["2", "[\"Hi\", \"Hello\"]", "'a # b'", "- x\n- y", "{a: 1}"]),
            unset in any::<bool>(),
        ) {
            let unset = unset && keys.iter().any(|k| k == key);
            let edit = if unset { FieldEdit::Unset } else { FieldEdit::Set(value) };
            let out = set_field(&text, key, &edit).unwrap();
            let had = keys.iter().any(|k| k == key);
            // The field's own lines are all that differ: removing it from the edited text gives
            // the original without it.
            let without = |t: &str| if frontmatter(t).contains_key(key) { set_field(t, key, &FieldEdit::Unset).unwrap() } else { t.to_string() };
            prop_assert_eq!(without(&out), without(&text));
            for (t, present) in [(&text, had), (&out, !unset)] {
                if present {
                    let gone = removed(t, &without(t));
                    prop_assert!(gone.as_ref().is_some_and(|g| one_field(g, key)), "{:?} from {:?}", gone, t);
                }
            }
            if crlf {
                prop_assert!(!out.replace("\r\n", "").contains('\n'), "a bare LF in a CRLF file");
            }
            let (before, after) = (frontmatter(&text), frontmatter(&out));
            for (k, v) in &before {
                if k.as_str() != Some(key) {
                    prop_assert_eq!(after.get(k), Some(v));
                }
            }
            let expected: Option<serde_yaml::Value> = (!unset).then(|| serde_yaml::from_str(value).unwrap());
            prop_assert_eq!(after.get(key).cloned(), expected);
            let body_kept = out.ends_with("Body {{ x }}\n") || out.ends_with("Body {{ x }}\r\n");
            prop_assert!(body_kept, "{}", out);
        }

        #[test]
        fn a_toggle_edit_changes_only_that_toggle_and_reads_back(
            existing in prop::collection::btree_map(
                prop::sample::select(vec!["a", "b", "c", "d"]),
                prop::sample::select(vec!["true", "false  # why", "{ enabled: true }"]),
                0..4,
            ),
            comments in any::<bool>(),
            skill in prop::sample::select(vec!["a", "b", "e"]),
            state in prop::sample::select(vec![Toggle::On, Toggle::Off, Toggle::Default]),
        ) {
            let mut text = String::from("# client\nlocales: [en]\n");
            if !existing.is_empty() {
                text.push_str("toggles:\n");
                for (k, v) in &existing {
                    if comments {
                        text.push_str("  # note\n");
                    }
                    text.push_str(&format!("  {k}: {v}\n"));
                }
            }
            text.push_str("\nflags: { x: 1 }   # end\n");
            let out = set_toggle(&text, skill, state).unwrap();
            let without = |t: &str| set_toggle(t, skill, Toggle::Default).unwrap();
            let base = if existing.is_empty() { out.clone() } else { without(&out) };
            let original = if existing.is_empty() { out.clone() } else { without(&text) };
            prop_assert_eq!(base, original);
            if !existing.is_empty() && state != Toggle::Default {
                // Only that toggle's lines go, and the `toggles:` line with them when it was the
                // last (a file toggled and untoggled is as it was).
                let gone = removed(&out, &without(&out));
                let last = serde_yaml::from_str::<serde_yaml::Mapping>(&out).unwrap()
                    .get("toggles").and_then(|t| t.as_mapping()).is_some_and(|t| t.len() == 1);
                let fits = |g: &Vec<&str>| one_field(g, skill)
                    || (last && g.len() > 1 && g[0] == "toggles:\n" && one_field(&g[1..], skill));
                prop_assert!(gone.as_ref().is_some_and(fits), "{:?}", gone);
            }
            let map: serde_yaml::Mapping = serde_yaml::from_str(&out).unwrap();
            let toggles = map.get("toggles").and_then(|t| t.as_mapping()).cloned().unwrap_or_default();
            let got = toggles.get(skill).cloned();
            let want = match state {
                Toggle::On => Some(serde_yaml::Value::Bool(true)),
                Toggle::Off => Some(serde_yaml::Value::Bool(false)),
                Toggle::Default => None,
            };
            prop_assert_eq!(got, want);
            let before: serde_yaml::Mapping = serde_yaml::from_str(&text).unwrap();
            let before_toggles = before.get("toggles").and_then(|t| t.as_mapping()).cloned().unwrap_or_default();
            for (k, v) in &before_toggles {
                if k.as_str() != Some(skill) {
                    prop_assert_eq!(toggles.get(k), Some(v));
                }
            }
            prop_assert_eq!(map.get("flags"), before.get("flags"));
            let kept = out.contains("# client\n") && out.contains("flags: { x: 1 }   # end\n");
            prop_assert!(kept, "{}", out);
        }
    }
}

/// A literal of a template expression (tera's syntax: no exponents), extremes included.
fn template_literal() -> impl Strategy<Value = String> {
    prop_oneof![
        template_number(),
        prop::sample::select(vec![
            "\"\"",
            "\"a\"",
            "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
            "\"%\"",
            "\"\\\\\"",
        ])
        .prop_map(str::to_string),
        "[a-z&<%]{0,4}".prop_map(|s| format!("\"{s}\"")),
    ]
}

/// A filter with literal arguments, of the names the guard knows and a few it does not.
fn template_filter() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "replace",
        "join",
        "split",
        "int",
        "float",
        "round",
        "truncate",
        "escape",
        "upper",
        "lower",
        "addslashes",
        "json_encode",
        "urlencode",
        "linebreaksbr",
        "slice",
        "nth",
        "default",
        "pluralize",
        "length",
        "first",
        "reverse",
        "sort",
        "as_str",
        "abs",
        "title",
        "md_cell",
        "xml_escape",
        "wordcount",
        "date",
        "filesizeformat",
    ]);
    let arg_names = prop::sample::select(vec![
        "from",
        "to",
        "sep",
        "pat",
        "base",
        "precision",
        "length",
        "start",
        "end",
        "n",
        "value",
        "method",
        "default",
        "pretty",
    ]);
    (
        names,
        prop::collection::vec((arg_names, template_literal()), 0..3),
    )
        .prop_map(|(name, args)| {
            let mut seen = std::collections::BTreeSet::new();
            let args: Vec<String> = args
                .into_iter()
                .filter(|(k, _)| seen.insert(*k))
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if args.is_empty() {
                name.to_string()
            } else {
                format!("{name}({})", args.join(", "))
            }
        })
}

/// An integer or float literal, extremes included.
fn template_number() -> impl Strategy<Value = String> {
    let huge = format!("1{}.0", "0".repeat(308));
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        prop::sample::select(vec![
            "-9223372036854775808".to_string(),
            "9223372036854775807".to_string(),
            "0".to_string(),
            "-1".to_string(),
            "1".to_string(),
            "2".to_string(),
            "36".to_string(),
            "1.5".to_string(),
            "0.0".to_string(),
            "-0.5".to_string(),
            huge,
        ]),
    ]
}

/// A name of the catalog line's context, a `set` variable or a loop variable.
fn template_ident() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["name", "description", "triggers", "v0", "v1", "x"])
        .prop_map(str::to_string)
}

/// Arithmetic over numbers and names (tera's `basic_expr`).
fn template_math() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![template_number(), template_ident()];
    leaf.prop_recursive(3, 12, 2, |inner| {
        (
            inner.clone(),
            prop::sample::select(vec!["+", "-", "*", "/", "%"]),
            inner,
        )
            .prop_map(|(a, op, b)| format!("({a} {op} {b})"))
    })
}

/// An expression: arithmetic, a concatenation, a string or a name, through a chain of filters.
fn template_expr() -> impl Strategy<Value = String> {
    let atom = prop_oneof![template_literal(), template_ident()];
    let base = prop_oneof![
        template_math(),
        prop::collection::vec(atom, 2..4).prop_map(|a| a.join(" ~ ")),
        template_literal(),
        template_ident(),
    ];
    (base, prop::collection::vec(template_filter(), 0..4))
        .prop_map(|(b, fs)| std::iter::once(b).chain(fs).collect::<Vec<_>>().join(" | "))
}

/// A template: expressions printed, set, looped, filtered and tested.
fn template_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        template_expr().prop_map(|e| format!("{{{{ {e} }}}}")),
        (0..2u8, template_expr()).prop_map(|(v, e)| format!("{{% set v{v} = {e} %}}")),
        (0..20i64, 0..20_000i64, -1..3i64, template_expr()).prop_map(
            |(s, e, step, body)| format!(
                "{{% for x in range(start={s}, end={e}, step_by={step}) %}}{{{{ {body} }}}}{{% endfor %}}"
            )
        ),
        template_expr()
            .prop_map(|e| format!("{{% for x in triggers %}}{{{{ {e} }}}}{{% endfor %}}")),
        (template_filter(), template_expr()).prop_map(|(f, e)| format!(
            "{{% filter {f} %}}{{{{ {e} }}}}{{% endfilter %}}"
        )),
        template_expr().prop_map(|e| format!("{{% if {e} | length > 3 %}}y{{% endif %}}")),
    ];
    // `v0` and `v1` are set first, so that most expressions that name them render.
    prop::collection::vec(piece, 1..5)
        .prop_map(|p| format!("{{% set v0 = name %}}{{% set v1 = 3 %}}{}", p.concat()))
}

proptest! {
    #![proptest_config(crate::common::proptest_config(400))]

    /// Any template expression of the grammar above is refused (E024), fails on the content
    /// (E025) or renders: it never panics (the engine's own panics are refused before
    /// rendering, not merely caught), hangs or grows past the output cap.
    #[test]
    fn template_expressions_never_panic_hang_or_run_away(text in template_text()) {
        let files = [
            RawFile::new(
                "a/SKILL.md",
                b"---\nname: a\ndescription: An aaa skill & <more> 100%.\ntrigger_examples: [\"Hi\", \"\"]\n---\nBody.\n".to_vec(),
            ),
            RawFile::new("templates/catalog_list_skill.tera", text.clone().into_bytes()),
        ];
        let started = std::time::Instant::now();
        let report = check_files(&files, &CheckOptions::default());
        // Generous: a template that passes the guard renders in milliseconds; a loop without
        // end or an exponential value would take minutes or all memory.
        prop_assert!(started.elapsed() < std::time::Duration::from_secs(20), "{text}");
        for d in &report.diagnostics {
            prop_assert!(!d.message.contains("engine failed"), "{text}: {}", d.message);
        }
    }
}
