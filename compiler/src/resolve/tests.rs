//! Resolution's unit tests.

use super::*;

#[test]
fn locale_chain_falls_back_to_parents() {
    assert_eq!(locale_chain("fr-ca"), vec!["fr-ca", "fr"]);
    assert_eq!(locale_chain("en"), vec!["en"]);
}

#[test]
fn predicates_read_dotted_flags_and_the_tier() {
    let flags = serde_json::json!({"competitors": {"names": ["A"], "battlecard_mode": true}});
    let spec = BundleSpec {
        client: None,
        locale: "en".into(),
        tier: "pro".into(),
    };
    let when = vec![
        Predicate::FlagNonEmpty {
            flag: "competitors.names".into(),
            non_empty: true,
        },
        Predicate::FlagEquals {
            flag: "competitors.battlecard_mode".into(),
            equals: serde_json::json!(true),
        },
        Predicate::Tier(vec!["pro".into()]),
    ];
    assert!(predicates_hold(&when, &flags, &spec));
    let none = serde_json::json!({"competitors": {"names": []}});
    assert!(!predicates_hold(&when[..1], &none, &spec));
}

#[test]
fn import_closure_is_depth_first_deduplicated_and_cycle_safe() {
    let graph: BTreeMap<String, Vec<String>> = BTreeMap::from([
        ("a".into(), vec!["b".into(), "c".into()]),
        ("b".into(), vec!["d".into(), "a".into()]),
        ("c".into(), vec!["d".into()]),
    ]);
    let closure = import_closure("a", |n| graph.get(n).map(Vec::as_slice));
    assert_eq!(closure, vec!["b", "d", "c"]);
}

#[test]
fn interned_slots_share_names_and_keys_and_stay_sorted() {
    let key = |source: usize| {
        EntryKey {
            base: 0,
            source,
            locale_file: None,
            compact: false,
            vars: vec![("v".into(), "x".into())],
            unavailable: None,
            untrusted: false,
            digest: 0,
        }
        .sealed()
    };
    let map = |source: usize| {
        BTreeMap::from([
            ("public.b".to_string(), Slot::Entry(Arc::new(key(source)))),
            ("public.a".to_string(), Slot::Removed("off".into())),
        ])
    };
    let mut interner = Interner::default();
    let (x, y, z) = (
        interner.slots(map(1)),
        interner.slots(map(1)),
        interner.slots(map(2)),
    );
    let entry = |s: &Slots| match s.get("public.b") {
        Some(Slot::Entry(k)) => k.clone(),
        other => panic!("{other:?}"),
    };
    assert!(Arc::ptr_eq(&entry(&x), &entry(&y)), "same key, one copy");
    assert!(!Arc::ptr_eq(&entry(&x), &entry(&z)));
    assert_eq!(entry(&z).source, 2);
    let (nx, nz) = (&x.0[0].0, &z.0[0].0);
    assert!(Arc::ptr_eq(nx, nz), "same name, one copy");
    let names: Vec<&str> = x.iter().map(|(q, _)| q).collect();
    assert_eq!(names, ["public.a", "public.b"]);
    assert!(x.contains_key("public.a") && x.get("public.c").is_none());
    assert_eq!(x, Slots::from(map(1)));
}
