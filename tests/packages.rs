//! ZIP packages, portable export and artifact diff (`skillc pack`, `unpack`, `export`, `diff`).

use crate::common;

use crate::common::copy_dir;

use std::io::Write;
use std::path::{Path, PathBuf};

use skillc::interop::package::{pack, unpack, Error, Limits};
use skillc::{build, BuildOptions};
use skillc_runtime::{Artifact, BundleRef};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills")
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default();
        for (name, data) in entries {
            z.start_file(*name, o).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
    }
    buf.into_inner()
}

const SKILL: &[u8] = b"---\nname: good\ndescription: A good skill.\n---\nBody.\n";

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.file_type().unwrap().is_dir() {
                out.extend(files_under(&e.path()));
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

#[test]
fn packing_is_deterministic_and_leaves_out_caches() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("web");
    std::fs::create_dir_all(skill.join("scripts/__pycache__")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        b"---\nname: web\ndescription: d\n---\nB\n",
    )
    .unwrap();
    std::fs::write(skill.join("scripts/run.py"), b"print(1)\n").unwrap();
    std::fs::write(skill.join("scripts/__pycache__/run.cpython-311.pyc"), b"\0").unwrap();
    std::fs::write(skill.join(".DS_Store"), b"\0").unwrap();
    let (a, b) = (dir.path().join("a.zip"), dir.path().join("b.zip"));
    assert_eq!(pack(&skill, &a, false).unwrap(), 2);
    pack(&skill, &b, false).unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let mut z = zip::ZipArchive::new(std::fs::File::open(&a).unwrap()).unwrap();
    let names: Vec<String> = (0..z.len())
        .map(|i| z.by_index(i).unwrap().name().to_string())
        .collect();
    assert_eq!(names, ["web/SKILL.md", "web/scripts/run.py"]);
}

#[test]
fn pack_then_unpack_then_build_gives_the_same_skill_content() {
    let report = skillc::check(&sample(), &skillc::CheckOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    // The workspace-level files, then every global skill through a package.
    for rel in ["workspace.yaml", "variables.json"] {
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::copy(sample().join(rel), ws.join(rel)).unwrap();
    }
    for c in report.workspace.categories.values() {
        let to = ws.join(&c.file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(sample().join(&c.file), to).unwrap();
    }
    for s in report
        .workspace
        .skills
        .iter()
        .filter(|s| s.scope == skillc::model::Scope::Global)
    {
        let zip = dir.path().join(format!("{}.zip", s.folder_name));
        pack(&sample().join(&s.dir), &zip, false).unwrap();
        let parent = Path::new(&s.dir).parent().unwrap();
        let into = ws.join(parent);
        // Packages named by their skill land in folders named so; keep the sample's folders.
        let u = unpack(&zip, &into, false, &Limits::default()).unwrap();
        if u.dir.file_name().unwrap() != s.folder_name.as_str() {
            std::fs::rename(&u.dir, into.join(&s.folder_name)).unwrap();
        }
        assert_eq!(
            std::fs::read(sample().join(&s.file)).unwrap(),
            std::fs::read(ws.join(&s.file)).unwrap()
        );
    }
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    // The original without its clients, so both hold the same skills.
    let orig = dir.path().join("orig");
    copy_dir(&sample(), &orig);
    std::fs::remove_dir_all(orig.join("clients")).unwrap();
    assert!(build(&orig, &a, &BuildOptions::default())
        .unwrap()
        .stats
        .is_some());
    let r = build(&ws, &b, &BuildOptions::default()).unwrap();
    assert!(r.stats.is_some(), "{:?}", r.diagnostics);
    let (a, b) = (Artifact::open(&a).unwrap(), Artifact::open(&b).unwrap());
    let (ba, bb) = (
        a.bundle(&BundleRef::default()).unwrap(),
        b.bundle(&BundleRef::default()).unwrap(),
    );
    assert_eq!(ba.skills.len(), bb.skills.len());
    for (x, y) in ba.skills.iter().zip(&bb.skills) {
        assert_eq!(
            (&x.qualified_name, &x.description, a.body(x).unwrap()),
            (&y.qualified_name, &y.description, b.body(y).unwrap())
        );
        // Unpacked code is untrusted until the workspace trusts it.
        assert!(y.untrusted && !x.untrusted, "{}", y.name);
    }
}

#[test]
fn a_trusted_package_is_not_marked_untrusted() {
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("good.zip");
    std::fs::write(&zip, zip_of(&[("good/SKILL.md", SKILL)])).unwrap();
    let ws = dir.path().join("ws");
    unpack(&zip, &ws, false, &Limits::default()).unwrap();
    std::fs::write(ws.join("workspace.yaml"), "trusted: [good]\n").unwrap();
    let out = dir.path().join("o.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let a = Artifact::open(&out).unwrap();
    assert!(!a.bundle(&BundleRef::default()).unwrap().skills[0].untrusted);
}

#[test]
fn seed_004_flat_packages_unpack_into_a_folder_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("mermaid.zip");
    let flat = zip_of(&[
        ("SKILL.md", b"---\ndescription: Render diagrams.\nprovider: { module: provider, class: P }\n---\nUse it.\n"),
        ("provider.py", b"class P: pass\n"),
    ]);
    std::fs::write(&zip, flat).unwrap();
    let ws = dir.path().join("ws");
    let u = unpack(&zip, &ws, false, &Limits::default()).unwrap();
    assert_eq!(u.name, "mermaid");
    assert!(ws.join("mermaid/provider.py").exists());
    assert!(ws.join("mermaid/package.yaml").exists());
}

/// `data` with every `from` replaced by `to` (same length): rewrites names in headers.
fn replace_all(mut data: Vec<u8>, from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut i = 0;
    while i + from.len() <= data.len() {
        if &data[i..i + from.len()] == from {
            data[i..i + from.len()].copy_from_slice(to);
        }
        i += 1;
    }
    data
}

/// Offsets of a 4-byte signature in `data`.
fn signatures(data: &[u8], sig: u32) -> Vec<usize> {
    let sig = sig.to_le_bytes();
    (0..data.len().saturating_sub(3))
        .filter(|&i| data[i..i + 4] == sig)
        .collect()
}

/// An archive whose headers say its big entry holds 100 bytes (it inflates to 20 MiB).
fn lying_size() -> Vec<u8> {
    let zeros = vec![0u8; 20 << 20];
    let mut data = zip_of(&[("good/SKILL.md", SKILL), ("good/zeros.bin", &zeros)]);
    let claim = 100u32.to_le_bytes();
    // Local headers: uncompressed size at +22; central directory entries: at +24.
    for at in signatures(&data, 0x0403_4b50) {
        if data[at + 30..].starts_with(b"good/zeros.bin") {
            data[at + 22..at + 26].copy_from_slice(&claim);
        }
    }
    for at in signatures(&data, 0x0201_4b50) {
        if data[at + 46..].starts_with(b"good/zeros.bin") {
            data[at + 24..at + 28].copy_from_slice(&claim);
        }
    }
    data
}

/// An archive whose second entry is flagged encrypted (general purpose bit 0).
fn encrypted() -> Vec<u8> {
    let mut data = zip_of(&[("good/SKILL.md", SKILL), ("good/secret.txt", b"hidden")]);
    for (sig, flags, name) in [(0x0403_4b50u32, 6, 30), (0x0201_4b50, 8, 46)] {
        for at in signatures(&data, sig) {
            if data[at + name..].starts_with(b"good/secret.txt") {
                data[at + flags] |= 1;
            }
        }
    }
    data
}

#[test]
fn the_total_size_cap_counts_actual_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // Incompressible-ish content, so neither the ratio nor the per-file cap trips first.
    let chunk: Vec<u8> = (0..700_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let zip = dir.path().join("total.zip");
    std::fs::write(
        &zip,
        zip_of(&[
            ("good/SKILL.md", SKILL),
            ("good/a.bin", &chunk),
            ("good/b.bin", &chunk),
        ]),
    )
    .unwrap();
    let ws = dir.path().join("ws");
    let limits = Limits {
        max_total: 1 << 20,
        ..Limits::default()
    };
    assert_eq!(Limits::default().max_total, 64 << 20);
    let err = unpack(&zip, &ws, false, &limits).unwrap_err();
    assert!(err.to_string().contains("in all"), "{err}");
    assert!(files_under(&ws).is_empty());
}

#[test]
fn every_malicious_archive_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("evil.txt");
    let zeros = vec![0u8; 20 << 20];
    let many: Vec<(String, Vec<u8>)> = (0..10_001)
        .map(|i| (format!("good/f{i}.txt"), vec![b'x']))
        .collect();
    let many_refs: Vec<(&str, &[u8])> = std::iter::once(("good/SKILL.md", SKILL))
        .chain(many.iter().map(|(n, d)| (n.as_str(), d.as_slice())))
        .collect();
    let mut symlink = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut symlink);
        let o = zip::write::SimpleFileOptions::default();
        z.start_file("good/SKILL.md", o).unwrap();
        z.write_all(SKILL).unwrap();
        z.add_symlink("good/link", "/etc/passwd", o).unwrap();
        z.finish().unwrap();
    }
    let corpus: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "traversal",
            zip_of(&[("good/SKILL.md", SKILL), ("good/../../evil.txt", b"x")]),
            "climbs out",
        ),
        (
            "absolute",
            zip_of(&[("good/SKILL.md", SKILL), ("/tmp/evil.txt", b"x")]),
            "absolute path",
        ),
        (
            "backslash",
            zip_of(&[("good/SKILL.md", SKILL), ("good\\..\\..\\evil.txt", b"x")]),
            "backslashes",
        ),
        ("symlink", symlink.into_inner(), "symbolic link"),
        (
            "bomb",
            zip_of(&[("good/SKILL.md", SKILL), ("good/zeros.bin", &zeros)]),
            "bytes",
        ),
        ("many", zip_of(&many_refs), "entries"),
        (
            "no-skill",
            zip_of(&[("good/README.md", b"hi")]),
            "no SKILL.md",
        ),
        (
            "not-zip",
            b"PK\x03\x04 this is not really a zip".to_vec(),
            "not a readable ZIP",
        ),
        (
            "bad-skill",
            zip_of(&[("bad/SKILL.md", b"---\nname: bad\n---\nno description\n")]),
            "E011",
        ),
        (
            "ratio",
            zip_of(&[
                ("good/SKILL.md", SKILL),
                ("good/zeros.bin", &zeros[..10 << 20]),
            ]),
            "a decompression bomb?",
        ),
        ("lying-size", lying_size(), "expand past the limits"),
        (
            "file-and-folder",
            zip_of(&[
                ("good/SKILL.md", SKILL),
                ("good/x", b"1"),
                ("good/x/y", b"2"),
            ]),
            "`x` is both a file and a folder",
        ),
        ("encrypted", encrypted(), "is encrypted"),
        (
            "duplicate",
            {
                let z = zip_of(&[
                    ("good/SKILL.md", SKILL),
                    ("good/a.txt", b"1"),
                    ("good/b.txt", b"2"),
                ]);
                replace_all(z, b"good/b.txt", b"good/a.txt")
            },
            "appears twice",
        ),
    ];
    for (name, bytes, why) in corpus {
        let zip = dir.path().join(format!("{name}.zip"));
        std::fs::write(&zip, bytes).unwrap();
        let ws = dir.path().join(format!("ws-{name}"));
        std::fs::create_dir_all(&ws).unwrap();
        let err = unpack(&zip, &ws, false, &Limits::default()).expect_err(name);
        match &err {
            Error::Refused { why: w, .. } => assert!(w.contains(why), "{name}: {w}"),
            Error::Invalid(d) | Error::Unsafe(d) => {
                assert!(d.iter().any(|d| d.code == why), "{name}: {d:?}")
            }
            Error::Io { .. } | Error::OutputNotAFile(..) => panic!("{name}: {err}"),
        }
        assert!(
            files_under(&ws).is_empty(),
            "{name} wrote into the workspace"
        );
        assert!(!outside.exists(), "{name} wrote outside");
    }
    // A name that already exists is refused unless forced.
    let zip = dir.path().join("good.zip");
    std::fs::write(&zip, zip_of(&[("good/SKILL.md", SKILL)])).unwrap();
    let ws = dir.path().join("ws-exists");
    unpack(&zip, &ws, false, &Limits::default()).unwrap();
    let err = unpack(&zip, &ws, false, &Limits::default()).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    unpack(&zip, &ws, true, &Limits::default()).unwrap();
}

#[test]
fn export_writes_portable_folders_with_only_the_spec_fields_on_top() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.db");
    build(&sample(), &out, &BuildOptions::default()).unwrap();
    let to = dir.path().join("export");
    let bundle = BundleRef {
        client: Some("hyperline.co"),
        locale: Some("en"),
        tier: Some("standard"),
    };
    let dirs = skillc::interop::export::export(&out, &bundle, &to).unwrap();
    assert!(dirs.len() > 30);
    let spec = [
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
    ];
    for d in &dirs {
        let text = std::fs::read_to_string(d.join("SKILL.md")).unwrap();
        let yaml = text.split("---\n").nth(1).unwrap();
        let v: serde_yaml::Mapping = serde_yaml::from_str(yaml).unwrap();
        for k in v.keys() {
            assert!(
                spec.contains(&k.as_str().unwrap()),
                "{}: {k:?}",
                d.display()
            );
        }
        assert!(
            skillc::internals::parse::portability_problems(v["name"].as_str().unwrap()).is_empty()
        );
        assert_eq!(
            v["name"].as_str().unwrap(),
            d.file_name().unwrap().to_str().unwrap()
        );
    }
    // Variables resolved, sources listed, assets copied, extensions under metadata.
    let pricing = std::fs::read_to_string(to.join("pricing/SKILL.md")).unwrap();
    assert!(pricing.contains("Hyperline") && !pricing.contains("{{COMPANY_NAME}}"));
    let pdf = std::fs::read_to_string(to.join("pdf-press/SKILL.md")).unwrap();
    assert!(pdf.contains("## Sources") && pdf.contains("w3.org/TR/css-page-3"));
    assert!(to.join("web-scraping/scripts/scraper.py").exists());
    let demo = std::fs::read_to_string(to.join("demo-offer/SKILL.md")).unwrap();
    assert!(
        demo.contains("original-name: demo_offer") && demo.contains("priority: \"1\""),
        "{demo}"
    );
    // A second export into the same folder is refused.
    assert!(skillc::interop::export::export(&out, &bundle, &to).is_err());
}

/// `export --target`: the client's folder inside a project, and what its listing keeps: a
/// description past Claude Code's 1,536 characters is cut, and a listing past its 8,000 is
/// said to be over, before the client drops anything silently.
#[test]
fn a_target_export_writes_the_clients_folder_and_says_what_its_listing_keeps() {
    use skillc::interop::targets::{export, Target};
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let long = "Answers about the billing of plans, invoices and refunds. ".repeat(30);
    for n in 0..12 {
        let folder = ws.join(format!("skill-{n}"));
        std::fs::create_dir_all(&folder).unwrap();
        let description = if n == 0 {
            long.trim().to_string()
        } else {
            format!("Skill {n}. {}", &long[..700])
        };
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: skill-{n}\ndescription: {description}\n---\nBody.\n"),
        )
        .unwrap();
    }
    let out = dir.path().join("a.db");
    build(&ws, &out, &BuildOptions::default()).unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("README.md"), "a project\n").unwrap();
    let (dirs, report) = export(&out, &BundleRef::default(), &project, Target::ClaudeCode).unwrap();
    assert_eq!(dirs.len(), 12);
    assert!(project.join(".claude/skills/skill-3/SKILL.md").exists());
    assert_eq!(report.cut.len(), 1, "{report:?}");
    assert_eq!(report.cut[0].0, "skill-0");
    let text = report.text();
    assert!(
        text.contains("cut: `skill-0`'s description") && text.contains("claude-code keeps 1536"),
        "{text}"
    );
    assert!(text.contains("over budget by"), "{text}");
    // A client without a documented budget says so; a non-empty client folder is refused.
    let (_, gemini) = export(&out, &BundleRef::default(), &project, Target::Gemini).unwrap();
    assert!(gemini.text().contains("documents no listing budget"));
    assert!(export(&out, &BundleRef::default(), &project, Target::ClaudeCode).is_err());
}

#[test]
fn diff_names_what_changed_for_which_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_dir(&sample(), &ws);
    let (old, new) = (dir.path().join("old.db"), dir.path().join("new.db"));
    build(&ws, &old, &BuildOptions::default()).unwrap();
    let support = ws.join("public/response_handling/support/SKILL.md");
    let text = std::fs::read_to_string(&support).unwrap();
    std::fs::write(
        &support,
        text.replace("Route existing customers", "Send existing customers"),
    )
    .unwrap();
    let yaml = ws.join("clients/example.com/client.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("demo_offer: false", "demo_offer: true")).unwrap();
    build(&ws, &new, &BuildOptions::default()).unwrap();
    let d = skillc::interop::diff::diff(
        &Artifact::open(&old).unwrap(),
        &Artifact::open(&new).unwrap(),
    )
    .unwrap();
    let example = d
        .bundles
        .iter()
        .find(|b| b.client == "example.com" && b.locale == "en" && b.tier == "standard")
        .unwrap();
    assert_eq!(example.added, ["public.demo_offer"]);
    assert!(example
        .changed
        .iter()
        .any(|c| c.name == "public.support" && c.fields == ["description"]));
    assert!(example.catalogs.contains(&"markdown".to_string()));
    let global = d
        .bundles
        .iter()
        .find(|b| b.client.is_empty() && b.locale == "en" && b.tier == "standard")
        .unwrap();
    assert!(global.added.is_empty());
    assert_eq!(d.unchanged, 0);
    let same = skillc::interop::diff::diff(
        &Artifact::open(&old).unwrap(),
        &Artifact::open(&old).unwrap(),
    )
    .unwrap();
    assert!(same.bundles.is_empty() && same.unchanged > 0);
}

/// What changes every catalog line of a bundle without changing an entry: a budget level
/// (the text formats change, not json) and a consumer's filter (only that consumer's
/// catalogs change, in every bundle). Each edit is compared on its own.
#[test]
fn diff_sees_catalog_changes_that_no_entry_carries() {
    let dir = tempfile::tempdir().unwrap();
    let diff_after = |name: &str, from: &str, to: &str| {
        let ws = dir.path().join(name);
        copy_dir(&sample(), &ws);
        let old = dir.path().join(format!("{name}-old.db"));
        build(&ws, &old, &BuildOptions::default()).unwrap();
        let config = ws.join("workspace.yaml");
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.contains(from));
        std::fs::write(&config, text.replace(from, to)).unwrap();
        let new = dir.path().join(format!("{name}-new.db"));
        build(&ws, &new, &BuildOptions::default()).unwrap();
        skillc::interop::diff::diff(
            &Artifact::open(&old).unwrap(),
            &Artifact::open(&new).unwrap(),
        )
        .unwrap()
    };
    let catalogs = |d: &skillc::interop::diff::Diff, client: &str, tier: &str| {
        d.bundles
            .iter()
            .find(|b| b.client == client && b.locale == "en" && b.tier == tier)
            .map(|b| b.catalogs.clone())
            .unwrap_or_default()
    };
    let budget = diff_after(
        "budget",
        "catalog_token_budget: 1500",
        "catalog_token_budget: 300",
    );
    let fast = catalogs(&budget, "", "fast");
    for format in ["xml", "markdown", "list"] {
        assert!(fast.contains(&format.to_string()), "{fast:?}");
    }
    assert!(!fast.contains(&"json".to_string()), "{fast:?}");
    assert!(catalogs(&budget, "", "standard").is_empty());
    let consumer = diff_after(
        "consumer",
        "disabled: [\"public.*-press\"]",
        "disabled: [\"public.*-press\", \"public.url-gen\"]",
    );
    let standard = catalogs(&consumer, "augment.org", "standard");
    assert_eq!(
        standard,
        [
            "xml@answer.generator.strong",
            "markdown@answer.generator.strong",
            "list@answer.generator.strong",
            "json@answer.generator.strong"
        ],
        "only that consumer's catalogs"
    );
    assert!(consumer
        .bundles
        .iter()
        .all(|b| b.added.is_empty() && b.changed.is_empty()));
}

/// Every file under `dir` with its bytes, for before/after comparisons.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = files_under(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

fn package_named(dir: &Path, name: &str) -> PathBuf {
    let zip = dir.join(format!("{name}.zip"));
    let skill = format!("---\nname: {name}\ndescription: A package named {name}.\n---\nBody.\n");
    std::fs::write(
        &zip,
        zip_of(&[(&format!("{name}/SKILL.md"), skill.as_bytes())]),
    )
    .unwrap();
    zip
}

#[test]
fn force_replaces_only_a_skills_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    copy_dir(&sample(), &ws);
    // A skill sitting directly in a client's folder, and one holding another skill.
    common::write(
        &ws,
        "clients/example.com/SKILL.md",
        "---\nname: cli\ndescription: A skill in a client folder.\n---\nBody.\n",
    );
    common::write(
        &ws,
        "outer/SKILL.md",
        "---\nname: outer\ndescription: Holds another.\n---\nBody.\n",
    );
    common::write(
        &ws,
        "outer/inner/SKILL.md",
        "---\nname: inner\ndescription: Inside outer.\n---\nBody.\n",
    );
    let before = snapshot(&ws);
    for (name, why) in [
        ("public", "is a namespace folder"),
        ("tests", "holds the workspace's test cases"),
        ("cli", "is a client's folder"),
        ("outer", "holds `outer/inner/SKILL.md`"),
        ("internal", "is a namespace folder"),
    ] {
        let zip = package_named(dir.path(), name);
        let err = unpack(&zip, &ws, true, &Limits::default()).expect_err(name);
        assert!(err.to_string().contains(why), "{name}: {err}");
        assert!(snapshot(&ws) == before, "{name} changed the workspace");
    }
    // A workspace that is one skill, under git: never replaced.
    let one = dir.path().join("one");
    common::write(
        &one,
        "SKILL.md",
        "---\nname: one\ndescription: The only skill.\n---\nBody.\n",
    );
    common::write(&one, ".git/HEAD", "ref: refs/heads/main\n");
    let err = unpack(
        &package_named(dir.path(), "one"),
        &one,
        true,
        &Limits::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("is the workspace itself"), "{err}");
    assert!(one.join(".git/HEAD").exists() && one.join("SKILL.md").exists());
    // A skill's own folder is replaced: its old files go, the package's come, nothing is left
    // beside it.
    common::write(
        &ws,
        "public/assistant/lonely/SKILL.md",
        "---\nname: lonely\ndescription: Old.\n---\nOld.\n",
    );
    common::write(&ws, "public/assistant/lonely/old.txt", "old");
    let done = unpack(
        &package_named(dir.path(), "lonely"),
        &ws,
        true,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(done.dir, ws.join("public/assistant/lonely"));
    let body = std::fs::read_to_string(done.dir.join("SKILL.md")).unwrap();
    assert!(body.contains("A package named lonely"), "{body}");
    assert!(!done.dir.join("old.txt").exists());
    let stray: Vec<_> = std::fs::read_dir(&ws)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".unpack"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}
