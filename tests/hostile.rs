//! The bad-input corpus: hostile and awkward workspaces run through the real
//! `skillc` binary. Every run must end within a generous bound (a hang fails the test rather
//! than CI) and with an exit code, never a signal; each case also asserts what the user sees.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::write;

/// Generous: each of these finishes in milliseconds to a second on this machine.
const BOUND: Duration = Duration::from_secs(10);

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs skillc with `args`, killing it past `bound`; panics on a hang or a signal.
fn skillc_within(bound: Duration, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("skillc starts");
    // Drain both pipes while waiting: a child blocked on a full pipe is not a hang of its own.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out_reader = drain(Box::new(child.stdout.take().unwrap()));
    let err_reader = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("skillc {args:?} did not finish within {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out_reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    let Some(code) = status.code() else {
        panic!("skillc {args:?} was killed by a signal: {status:?}\n{stdout}{stderr}");
    };
    Run {
        code,
        stdout,
        stderr,
    }
}

fn skillc(args: &[&str]) -> Run {
    skillc_within(BOUND, args)
}

fn skill(root: &Path, dir: &str, name: &str) {
    write(
        root,
        &format!("{dir}/SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\nBody.\n"),
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `check` and `build` of `ws` both exit with `code` and print `needle`.
fn check_and_build(ws: &Path, code: i32, needle: &str) {
    let out = ws.parent().unwrap().join("out.db");
    for args in [vec!["check", s(ws)], vec!["build", s(ws), "-o", s(&out)]] {
        let run = skillc(&args);
        assert_eq!(run.code, code, "{args:?}: {}", run.all());
        assert!(run.all().contains(needle), "{args:?}: {}", run.all());
    }
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success());
}

#[test]
fn named_pipes_are_reported_never_read() {
    for place in [
        "alpha/references/p",
        "beta/SKILL.md",
        "workspace.yaml",
        "custom/gamma/SKILL.md",
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        skill(&ws, "alpha", "alpha");
        if place.starts_with("custom/") {
            write(&ws, "workspace.yaml", "roots: { custom: ../custom }\n");
            skill(tmp.path(), "custom/delta", "delta");
            mkfifo(&tmp.path().join(place));
        } else {
            mkfifo(&ws.join(place));
        }
        check_and_build(&ws, 1, "is a named pipe, not a regular file");
    }
}

#[test]
fn watch_does_not_hang_on_a_named_pipe() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    mkfifo(&ws.join("alpha/references/p"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(["watch", s(&ws), "-o", s(&tmp.path().join("out.db"))])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut first = Vec::new();
        let mut byte = [0u8; 1];
        while std::io::Read::read(&mut stdout, &mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
            first.push(byte[0]);
        }
        String::from_utf8_lossy(&first).into_owned()
    });
    let started = Instant::now();
    while !reader.is_finished() && started.elapsed() < BOUND {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        reader.is_finished(),
        "watch printed nothing within {BOUND:?}"
    );
    let line = reader.join().unwrap();
    assert!(line.starts_with("not built: 1 errors"), "{line}");
}

#[test]
fn deep_nesting_fails_fast() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let deep = format!(
        "---\nname: a\ndescription: d\nmetadata: {}{}\n---\n",
        "[".repeat(60_000),
        "]".repeat(60_000)
    );
    write(&ws, "a/SKILL.md", &deep);
    check_and_build(
        &ws,
        1,
        "error[E009]: invalid YAML: nesting deeper than 128 levels",
    );
}

#[test]
fn templates_that_recurse_or_loop_get_a_diagnostic_not_an_abort() {
    for (file, text, needle) in [
        (
            "prompt_skill.tera",
            "{% macro r(n) %}{{ self::r(n=n+1) }}{% endmacro r %}{{ self::r(n=0) }}",
            "macros are not allowed",
        ),
        (
            "catalog_list_skill.tera",
            "{% for i in range(end=100000000) %}x{% endfor %}",
            "`range` may produce at most 10000 items",
        ),
        (
            "prompt_skill.tera",
            "{% for a in body %}{% for b in body %}x{% endfor %}{% endfor %}",
            "loops inside loops",
        ),
        (
            "catalog_list_skill.tera",
            "- {{ summary }}",
            "error[E025]: template `catalog_list_skill` failed to render",
        ),
        // Growth that compounds: each 256-fold `replace` multiplies the last one's output.
        (
            "catalog_list_skill.tera",
            "{{ description | replace(from=\"a\", to=\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\") | replace(from=\"a\", to=\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\") | replace(from=\"a\", to=\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\") }}",
            "more than 256 times longer",
        ),
        (
            "catalog_list_skill.tera",
            "{% for i in range(end=1, step_by=0) %}x{% endfor %}",
            "takes a step of at least 1",
        ),
        (
            "catalog_list_skill.tera",
            "{{ description | int(base=1) }}",
            "takes a base from 2 to 36",
        ),
        (
            "catalog_list_skill.tera",
            "{{ (-9223372036854775807 - 1) % -1 }}",
            "`%` takes a positive number",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        skill(&ws, "alpha", "alpha");
        write(&ws, &format!("templates/{file}"), text);
        check_and_build(&ws, 1, needle);
    }
}

#[test]
fn only_tera_files_are_templates() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    write(&ws, "templates/README.md", "# Our templates\n");
    write(&ws, "templates/catalog_list_skill.tera", "* {{ name }}\n");
    check_and_build(&ws, 0, "1 skills");
    // A collection's `templates/` of skill skeletons is an ordinary folder.
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "templates/template-skill", "template-skill");
    write(&ws, "tests/README.md", "Notes on testing the skills.\n");
    check_and_build(&ws, 0, "1 skills");
}

#[test]
fn an_output_path_that_is_an_input_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    let source = ws.join("alpha/SKILL.md");
    let before = std::fs::read(&source).unwrap();
    let key = tmp.path().join("release.key");
    assert_eq!(skillc(&["keygen", "-o", s(&key)]).code, 0);
    for signed in [false, true] {
        let mut args = vec!["build", s(&ws), "-o", s(&source)];
        if signed {
            // A signed build writes beside its place first: the place is checked all the same.
            args.extend(["--sign", s(&key)]);
        }
        let run = skillc(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.all());
        assert!(
            run.stderr.contains("is a file of the workspace"),
            "{}",
            run.stderr
        );
        assert_eq!(std::fs::read(&source).unwrap(), before, "{args:?}");
        assert_eq!(listing(&ws.join("alpha")), ["SKILL.md"], "{args:?}");
    }
    // An artifact inside the workspace is an output, never an input: the next build is
    // byte-identical, and check does not see it.
    let inside = ws.join("alpha/out.db");
    assert_eq!(skillc(&["build", s(&ws), "-o", s(&inside)]).code, 0);
    let first = std::fs::read(&inside).unwrap();
    assert_eq!(skillc(&["build", s(&ws), "-o", s(&inside)]).code, 0);
    assert_eq!(std::fs::read(&inside).unwrap(), first);
    let run = skillc(&["check", s(&ws)]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(!run.all().contains("out.db"), "{}", run.all());
}

#[test]
fn scalars_are_kept_as_written_in_catalogs_and_exports() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    write(
        &ws,
        "1e3/SKILL.md",
        "---\nname: 1e3\ndescription: 0x1F\ncompatibility: 1.20\nmetadata: {version: 1.10, created: 2026-01-16, beta: no}\n---\nBody.\n",
    );
    let db = tmp.path().join("a.db");
    assert_eq!(skillc(&["build", s(&ws), "-o", s(&db)]).code, 0);
    let run = skillc(&["catalog", s(&db), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["skills"][0]["name"], "1e3");
    assert_eq!(v["skills"][0]["description"], "0x1F");
    let xml = skillc(&["catalog", s(&db), "--format", "xml"]).stdout;
    assert!(
        xml.contains("<name>\n1e3\n</name>\n<description>\n0x1F\n"),
        "{xml}"
    );
    let out = tmp.path().join("export");
    assert_eq!(skillc(&["export", s(&db), "-o", s(&out)]).code, 0);
    let exported = std::fs::read_to_string(out.join("1e3/SKILL.md")).unwrap();
    // Quoted: a YAML 1.1 reader (PyYAML, many hosts) would take `2026-01-16` for a date and
    // `no` for false.
    for line in [
        "name: \"1e3\"",
        "description: \"0x1F\"",
        "compatibility: \"1.20\"",
        "version: \"1.10\"",
        "created: \"2026-01-16\"",
        "beta: \"no\"",
    ] {
        assert!(exported.contains(line), "{line} in\n{exported}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn names_that_are_not_utf8_get_one_diagnostic_each() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    for bytes in [&b"beta\xff"[..], &b"beta\xfe"[..]] {
        let dir = ws.join(std::ffi::OsStr::from_bytes(bytes));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            "---\nname: beta\ndescription: d\n---\n",
        )
        .unwrap();
        let asset = ws.join("alpha").join(std::ffi::OsStr::from_bytes(bytes));
        std::fs::write(asset, "data").unwrap();
    }
    let out = tmp.path().join("out.db");
    for args in [vec!["check", s(&ws)], vec!["build", s(&ws), "-o", s(&out)]] {
        let run = skillc(&args);
        assert_eq!(run.code, 1, "{}", run.all());
        for escaped in ["beta\\xff", "beta\\xfe"] {
            let said = format!("the name `{escaped}` is not valid UTF-8");
            // One for the skill folder, one for the asset of the same name.
            assert_eq!(run.all().matches(&said).count(), 2, "{}", run.all());
        }
        assert!(!run.all().contains("UNIQUE"), "{}", run.all());
    }
}

#[test]
fn unpack_force_replaces_a_skill_where_it_lives() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    skill(&src, "alpha", "alpha");
    write(&src, "alpha/scripts/run.sh", "#!/bin/sh\necho hi\n");
    set_mode(&src.join("alpha/scripts/run.sh"), 0o755);
    let zip = src.join("alpha/alpha.zip");
    // Packing twice into the skill's own folder: the first zip is not in the second.
    assert_eq!(
        skillc(&["pack", s(&src.join("alpha")), "-o", s(&zip)]).code,
        0
    );
    let first = std::fs::read(&zip).unwrap();
    assert_eq!(
        skillc(&["pack", s(&src.join("alpha")), "-o", s(&zip)]).code,
        0
    );
    assert_eq!(std::fs::read(&zip).unwrap(), first);

    let ws = tmp.path().join("ws");
    skill(&ws, "deep/er/alpha", "alpha");
    let run = skillc(&["unpack", s(&zip), s(&ws)]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stderr.contains("deep/er/alpha/SKILL.md"),
        "{}",
        run.stderr
    );
    let run = skillc(&["unpack", "--force", s(&zip), s(&ws)]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(!ws.join("alpha").exists(), "a second copy was written");
    let script = ws.join("deep/er/alpha/scripts/run.sh");
    assert_eq!(mode(&script) & 0o111, 0o111, "the executable bit was lost");
    assert_eq!(skillc(&["check", s(&ws)]).code, 0);
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode()
}

#[test]
fn prompt_names_unknown_selections_on_stderr() {
    let db = sample_artifact();
    let run = skillc(&["prompt", s(&db), "--select", "nonexistent"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stderr
            .contains("`nonexistent` left out: no skill of that name in this bundle"),
        "{}",
        run.stderr
    );
}

fn sample_artifact() -> PathBuf {
    static DB: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let db = dir.join("sample.db");
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
        assert_eq!(skillc(&["build", s(&sample), "-o", s(&db)]).code, 0);
        db
    })
    .clone()
}

#[test]
fn messages_say_what_is_wrong() {
    let db = sample_artifact();
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["catalog", "missing.db"],
            2,
            "`missing.db`: it does not exist",
        ),
        (
            vec![
                "catalog",
                s(&db),
                "--context",
                "turn=99999999999999999999999",
            ],
            2,
            "turn `99999999999999999999999` is too large",
        ),
        (vec!["catalog", s(&db), "--context", "=v"], 2, "has no key"),
    ];
    for (args, code, needle) in cases {
        let run = skillc(&args);
        assert_eq!(run.code, code, "{args:?}: {}", run.all());
        assert!(run.all().contains(needle), "{args:?}: {}", run.all());
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    let empty_consumers = tmp.path().join("a.db");
    assert_eq!(
        skillc(&["build", s(&ws), "-o", s(&empty_consumers)]).code,
        0
    );
    let run = skillc(&["catalog", s(&empty_consumers), "--consumer", "x"]);
    assert!(
        run.stderr.contains("this artifact declares no consumers"),
        "{}",
        run.stderr
    );
    for (yaml, needle) in [
        (
            "pipeline_max_depth: 100000000000\n",
            "more than the largest allowed",
        ),
        ("tiers: []\n", "`tiers` cannot be empty"),
        ("locales: [en, en]\n", "locale `en` is listed twice"),
        (
            "roots: { custom: ../nowhere }\n",
            "custom root `../nowhere` does not exist",
        ),
        (
            "roots: { custom: inner }\n",
            "custom root `inner` does not exist",
        ),
    ] {
        write(&ws, "workspace.yaml", yaml);
        let run = skillc(&["check", s(&ws)]);
        assert!(run.all().contains(needle), "{yaml}: {}", run.all());
    }
    std::fs::remove_file(ws.join("workspace.yaml")).unwrap();
    write(
        &ws,
        "clients/acme/client.yaml",
        "vars: { alpah: { A: b } }\n",
    );
    let run = skillc(&["check", s(&ws)]);
    assert!(
        run.all().contains("`vars` for unknown skill `alpah`"),
        "{}",
        run.all()
    );
    std::fs::remove_file(ws.join("clients/acme/client.yaml")).unwrap();
    std::fs::create_dir_all(ws.join("clients/acme/client.yaml")).unwrap();
    let run = skillc(&["check", s(&ws)]);
    assert!(
        run.all().contains("`client.yaml` is a folder, not a file"),
        "{}",
        run.all()
    );
    write(&ws, "beta/SKILL.md", "---\nname: [unclosed\n---\n");
    let run = skillc(&["check", s(&ws)]);
    assert!(
        run.stdout
            .contains("checked 1 skills (1 more could not be read)"),
        "{}",
        run.stdout
    );
    // A build with no source bytes prints no ratio of them.
    let none = tmp.path().join("none");
    std::fs::create_dir_all(&none).unwrap();
    let run = skillc(&["build", s(&none), "-o", s(&tmp.path().join("n.db"))]);
    assert!(
        run.all().contains("the workspace holds no skill"),
        "{}",
        run.all()
    );
    assert!(!run.all().contains("x the 0 bytes"), "{}", run.all());
}

#[test]
fn bulk_inputs_stay_within_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    // 10,000 tiny skills.
    let many = tmp.path().join("many");
    for i in 0..10_000 {
        skill(
            &many,
            &format!("s{:02}/skill-{i}", i % 100),
            &format!("skill-{i}"),
        );
    }
    let run = skillc_within(Duration::from_secs(60), &["check", s(&many)]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("checked 10000 skills: 0 errors"),
        "{}",
        run.stdout
    );
    // Deep folders, a file at the size limit, an alias bomb.
    let odd = tmp.path().join("odd");
    let deep: Vec<String> = (0..200).map(|i| format!("d{i}")).collect();
    skill(&odd, &deep.join("/"), "deep");
    let mut big = b"---\nname: big\ndescription: d\n---\n".to_vec();
    big.resize(1 << 20, b'x');
    std::fs::create_dir_all(odd.join("big")).unwrap();
    std::fs::write(odd.join("big/SKILL.md"), big).unwrap();
    let mut bomb = String::from(
        "---\nname: bomb\ndescription: d\nmetadata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x]\n",
    );
    for i in 1..12 {
        let prev = i - 1;
        bomb.push_str(&format!("  a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
    }
    bomb.push_str("---\n");
    write(&odd, "bomb/SKILL.md", &bomb);
    let out = tmp.path().join("odd.db");
    for args in [
        vec!["check", s(&odd)],
        vec!["build", s(&odd), "-o", s(&out)],
    ] {
        let run = skillc_within(Duration::from_secs(60), &args);
        assert_eq!(run.code, 1, "{}", run.all());
        assert!(run.all().contains("error[E009]"), "{}", run.all());
    }
}

#[test]
fn a_build_reports_progress_up_to_its_total_and_never_past_it() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let tmp = tempfile::tempdir().unwrap();
    static SEEN: std::sync::Mutex<Vec<(String, usize, usize)>> = std::sync::Mutex::new(Vec::new());
    let record = |phase: &str, done: usize, total: usize| {
        SEEN.lock().unwrap().push((phase.to_string(), done, total));
    };
    let options = skillc::BuildOptions {
        progress: Some(&record),
        ..Default::default()
    };
    skillc::build(&sample, &tmp.path().join("a.db"), &options).unwrap();
    let seen = SEEN.lock().unwrap().clone();
    let bundles: Vec<&(String, usize, usize)> =
        seen.iter().filter(|s| s.0 == "resolving bundles").collect();
    assert!(!bundles.is_empty());
    for (phase, done, total) in &seen {
        assert!(done <= total, "{phase} {done}/{total}");
    }
    let last = bundles.last().unwrap();
    assert_eq!(last.1, last.2, "the count ends at its total");
}

#[test]
fn watch_refuses_an_input_as_its_output() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    let source = ws.join("alpha/SKILL.md");
    let run = skillc(&["watch", s(&ws), "-o", s(&source)]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("is a file of the workspace"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_skill_folder_is_a_workspace_and_an_alias_is_one_skill() {
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("my-skill");
    skill(&one, ".", "my-skill");
    write(&one, "scripts/run.py", "print('hi')\n");
    let db = tmp.path().join("one.db");
    assert_eq!(skillc(&["build", s(&one), "-o", s(&db)]).code, 0);
    let run = skillc(&["catalog", s(&db), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["skills"].as_array().unwrap().len(), 1, "{}", run.stdout);
    assert_eq!(v["skills"][0]["name"], "my-skill");

    let ws = tmp.path().join("ws");
    skill(&ws, "docx-official", "docx");
    std::os::unix::fs::symlink("docx-official", ws.join("docx")).unwrap();
    let run = skillc(&["check", s(&ws)]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("checked 1 skills: 0 errors"),
        "{}",
        run.stdout
    );
}

/// `skillc catalog … | head -1`: the reader closes the pipe; skillc stops quietly (exit 0,
/// nothing on stderr) instead of panicking on the broken pipe.
#[test]
fn a_closed_stdout_ends_the_output_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    write(
        &ws,
        "a/SKILL.md",
        "---\nname: a\ndescription: A skill.\n---\nBody.\n",
    );
    let db = tmp.path().join("a.db");
    assert_eq!(skillc(&["build", s(&ws), "-o", s(&db)]).code, 0);
    for args in [
        vec!["catalog", s(&db)],
        vec!["prompt", s(&db), "--select", "a"],
        vec!["check", s(&ws)],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_skillc"))
            .args(&args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn an_output_that_is_not_a_regular_file_is_refused_and_a_link_is_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    let pipe = tmp.path().join("pipe");
    mkfifo(&pipe);
    let folder = tmp.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let mut outputs = vec![(pipe, "is a named pipe"), (folder, "is a folder")];
    // A device node of our own (root can make one; /dev/null itself is never put at risk).
    let device = tmp.path().join("null");
    let made = Command::new("mknod")
        .args([s(&device), "c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        outputs.push((device, "is a device"));
    }
    let key = tmp.path().join("release.key");
    assert_eq!(skillc(&["keygen", "-o", s(&key)]).code, 0);
    let before = listing(tmp.path());
    // Every command that writes a file where `-o` says: a signed build writes beside its
    // place first, a package and a pull as well; none of them may put a file there.
    let alpha = ws.join("alpha");
    let commands = |out: &Path| -> Vec<Vec<String>> {
        let line = |a: &[&str]| a.iter().map(|s| s.to_string()).collect();
        vec![
            line(&["build", s(&ws), "-o", s(out)]),
            line(&["watch", s(&ws), "-o", s(out)]),
            line(&["build", s(&ws), "-o", s(out), "--sign", s(&key)]),
            line(&["pack", s(&alpha), "-o", s(out)]),
            // Refused before any connection: nothing listens on port 1.
            line(&[
                "pull",
                "localhost:1/skills:v1",
                "-o",
                s(out),
                "--plain-http",
            ]),
        ]
    };
    for (out, needle) in &outputs {
        for args in commands(out) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let run = skillc(&args);
            assert_eq!(run.code, 2, "{args:?}: {}", run.all());
            assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
            let meta = std::fs::symlink_metadata(out).unwrap();
            assert!(!meta.is_file(), "{args:?} replaced {out:?} with a file");
            assert_eq!(listing(tmp.path()), before, "{args:?} left a file behind");
        }
    }
    // A link to a regular file: the file it points to gets the output, the link stays; a
    // signature goes beside the link, where a runtime given that path looks for it.
    let target = tmp.path().join("real.db");
    let link = tmp.path().join("link.db");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let signed = ["build", s(&ws), "-o", s(&link), "--sign", s(&key)];
    let package: [&str; 4] = ["pack", s(&alpha), "-o", s(&link)];
    for args in [&["build", s(&ws), "-o", s(&link)][..], &signed, &package] {
        std::fs::write(&target, b"").unwrap();
        let run = skillc(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.all());
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{args:?} replaced the link"
        );
        assert!(std::fs::metadata(&target).unwrap().len() > 0, "{args:?}");
    }
    let public = tmp.path().join("release.pub");
    let run = skillc(&["verify", s(&link), "--public-key", s(&public)]);
    assert_eq!(
        run.code,
        1,
        "the package replaced the signed artifact: {}",
        run.all()
    );
    std::fs::write(&target, b"").unwrap();
    assert_eq!(skillc(&signed).code, 0);
    let run = skillc(&["verify", s(&link), "--public-key", s(&public)]);
    assert_eq!(run.code, 0, "{}", run.all());
    // `export` writes a folder: what stands in its place is named, and left as it was.
    let notes = tmp.path().join("notes.txt");
    std::fs::write(&notes, "mine").unwrap();
    let pipe = &outputs[0].0;
    for (out, needle) in [
        (pipe, "is a named pipe, not a folder"),
        (&notes, "is a file, not a folder"),
    ] {
        let run = skillc(&["export", s(&target), "-o", s(out)]);
        assert_eq!(run.code, 2, "{}", run.all());
        assert!(run.stderr.contains(needle), "{}", run.stderr);
    }
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine");
}

/// The names in a folder, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Whether `needle` occurs anywhere in the file's bytes (pages, blobs, free space).
fn file_holds(path: &Path, needle: &str) -> bool {
    let bytes = std::fs::read(path).unwrap();
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn a_secret_name_is_secret_in_every_skill_and_never_reaches_the_artifact() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    write(
        &ws,
        "vault/SKILL.md",
        "---\nname: vault\ndescription: Declares the token secret.\nvars:\n  CI_TOKEN_X7: {secret: true}\n---\nUse {{CI_TOKEN_X7}}.\n",
    );
    // Writes the name without declaring it; `variables.json` has a value for every skill.
    write(
        &ws,
        "echo/SKILL.md",
        "---\nname: echo\ndescription: Repeats things.\n---\nThe token is {{CI_TOKEN_X7}}.\n",
    );
    // Declares it plainly (as an unpacked package could), hoping for the environment's value.
    write(
        &ws,
        "plain/SKILL.md",
        "---\nname: plain\ndescription: Declares it plainly.\nvars:\n  CI_TOKEN_X7: {description: a token}\n---\nToken: {{CI_TOKEN_X7}}.\n",
    );
    write(
        &ws,
        "variables.json",
        r#"{"_global": {"CI_TOKEN_X7": "from-variables-json-9f3"}}"#,
    );
    let out = tmp.path().join("out.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"));
    let run = child
        .args(["build", s(&ws), "-o", s(&out)])
        .env("CI_TOKEN_X7", "from-the-environment-4b1")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert!(!file_holds(&out, "from-variables-json-9f3"));
    assert!(!file_holds(&out, "from-the-environment-4b1"));
    // Each skill still shows the placeholder, listed for the runtime to fill.
    for name in ["echo", "plain", "vault"] {
        let prompt = skillc(&["prompt", s(&out), "--select", name]);
        assert!(
            prompt.stdout.contains("{{CI_TOKEN_X7}}"),
            "{name}: {}",
            prompt.stdout
        );
    }
    let check = skillc(&["check", s(&ws)]);
    assert_eq!(check.code, 0, "{}", check.all());
    assert!(
        check
            .stdout
            .contains("warning[W120]: skill `echo` writes `{{CI_TOKEN_X7}}`"),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("echo/SKILL.md:5:14"),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stdout
            .contains("warning[W120]: skill `plain` declares `CI_TOKEN_X7` without `secret: true`"),
        "{}",
        check.stdout
    );
    assert!(!check.stdout.contains("skill `vault`"), "{}", check.stdout);
}

#[test]
fn a_body_of_one_long_word_builds_in_linear_time() {
    // BPE token counting is quadratic in one word: 300 KB without a space took two minutes.
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let body = "a".repeat(300_000);
    write(
        &ws,
        "alpha/SKILL.md",
        &format!("---\nname: alpha\ndescription: One long word.\n---\n{body}\n"),
    );
    check_and_build(&ws, 0, "1 skills");
}

#[test]
fn the_mcp_server_answers_every_bad_request_with_its_id() {
    use std::io::{BufRead, Write};
    let artifact = sample_artifact();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(["mcp", s(&artifact)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    let mut ask = |line: String| -> serde_json::Value {
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        let answer = rx
            .recv_timeout(BOUND)
            .unwrap_or_else(|_| panic!("no answer to {}", &line[..line.len().min(80)]));
        serde_json::from_str(&answer).unwrap()
    };
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    assert_eq!(ask(init.to_string())["id"], 1);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    for (line, id, code) in [
        (
            "this is not json".to_string(),
            serde_json::Value::Null,
            -32700,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list""#.to_string(),
            2.into(),
            -32700,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":5}"#.to_string(),
            3.into(),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"r4","method":"resources/read","params":{}}"#.to_string(),
            "r4".into(),
            -32602,
        ),
        (deep, 8.into(), -32600),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"no/such"}"#.to_string(),
            9.into(),
            -32601,
        ),
    ] {
        let answer = ask(line.clone());
        assert_eq!(
            answer["id"],
            id,
            "{}: {answer}",
            &line[..line.len().min(80)]
        );
        assert_eq!(answer["error"]["code"], code, "{answer}");
    }
    // The server still works after all of that.
    let ping = ask(r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#.to_string());
    assert_eq!(ping["id"], 10, "{ping}");
    drop(stdin);
    let _ = child.wait();
}

/// The most memory (kB) a process has held so far, while it runs.
fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn the_mcp_server_answers_piped_requests_in_order_in_bounded_memory_and_every_bad_id() {
    use std::io::{BufRead, Write};
    const CALLS: usize = 2500;
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(["mcp", s(&sample_artifact())])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Every request at once, as a client piping a file would send them (about 40 MB of
    // catalogs to answer), then ids that are no ids.
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let mut all = String::from(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        all.push_str("\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        for id in 1..=CALLS {
            all.push_str(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"skills_catalog","arguments":{{}}}}}}"#
            ));
            all.push('\n');
        }
        for id in ["1.5", "100000000000000000000000", "true", "{}", "null"] {
            all.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"
            ));
        }
        let _ = stdin.write_all(all.as_bytes());
    });
    // The client reads nothing for a while: the server must not pile up answers meanwhile.
    std::thread::sleep(Duration::from_millis(1500));
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|_| serde_json::json!({"id": "an unreadable line"}));
            let _ = tx.send((v["id"].clone(), v["error"]["code"].clone()));
        }
    });
    let mut answers = Vec::new();
    let mut peak = peak_kb(pid).unwrap_or(0);
    let start = Instant::now();
    while answers.len() < CALLS + 6 {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(a) => answers.push(a),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(_) => {}
        }
        peak = peak.max(peak_kb(pid).unwrap_or(0));
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    // One catalog answer is 17 KB: all of them held at once took 140 MB and more (225 MB
    // for 4,000); one at a time, the server stays near its 30 MB at rest.
    assert!(peak < 60_000, "the server held {peak} kB");
    assert_eq!(answers.len(), CALLS + 6, "every request answered");
    for (n, (id, code)) in answers.iter().enumerate().take(CALLS + 1) {
        assert_eq!(*id, serde_json::json!(n), "answer {n} out of order");
        assert!(code.is_null(), "answer {n}: error {code}");
    }
    for (id, code) in &answers[CALLS + 1..] {
        assert_eq!(
            (id, code),
            (&serde_json::Value::Null, &serde_json::json!(-32600))
        );
    }
}

#[test]
fn a_huge_jobs_count_is_capped_and_gives_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    for name in ["alpha", "beta", "gamma"] {
        skill(&ws, name, name);
    }
    let (one, many) = (tmp.path().join("one.db"), tmp.path().join("many.db"));
    assert_eq!(
        skillc(&["build", s(&ws), "-o", s(&one), "--jobs", "1"]).code,
        0
    );
    // 20,000 threads took over a minute to start and stop; BOUND is 10 s.
    let run = skillc(&["build", s(&ws), "-o", s(&many), "--jobs", "20000"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&many).unwrap());
}

#[test]
fn watch_follows_a_workspace_folder_replaced_at_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    let out = tmp.path().join("out.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .args(["watch", s(&ws), "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let shows = |name: &str| {
        let started = Instant::now();
        while started.elapsed() < BOUND {
            let run = skillc(&["catalog", s(&out), "--format", "list"]);
            if run.code == 0 && run.stdout.contains(&format!("**{name}**")) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    };
    let first = shows("alpha");
    // A checkout tool or a sync client replaces the folder: the old one moves away, a new
    // one takes its path.
    std::fs::rename(&ws, tmp.path().join("ws.old")).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    skill(&ws, "beta", "beta");
    let second = shows("beta");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "the first build never showed alpha");
    assert!(
        second,
        "watch never built the folder put in place of the first"
    );
}

#[test]
fn small_things_users_run_into() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    // `set` reads past a byte order mark, as check does, and keeps it.
    write(
        &ws,
        "a/SKILL.md",
        "\u{feff}---\nname: a\ndescription: An a skill.\n---\nBody.\n",
    );
    let run = skillc(&["set", s(&ws.join("a/SKILL.md")), "priority", "2"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let text = std::fs::read_to_string(ws.join("a/SKILL.md")).unwrap();
    assert_eq!(
        text,
        "\u{feff}---\nname: a\ndescription: An a skill.\npriority: 2\n---\nBody.\n"
    );
    // A path relative to the folder above the skill's, in a folder without workspace.yaml:
    // the skill is checked where it is (it failed on an empty path).
    let out = Command::new(env!("CARGO_BIN_EXE_skillc"))
        .current_dir(&ws)
        .args(["set", "a/SKILL.md", "priority", "3"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(std::fs::read_to_string(ws.join("a/SKILL.md"))
        .unwrap()
        .contains("priority: 3"));
    // `toggle` on flow-style toggles keeps the comment after them.
    write(
        &ws,
        "clients/c/client.yaml",
        "toggles: {a: false}  # reviewed\n",
    );
    let run = skillc(&["toggle", s(&ws), "--client", "c", "a", "on"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let text = std::fs::read_to_string(ws.join("clients/c/client.yaml")).unwrap();
    assert_eq!(text, "toggles: { a: true }  # reviewed\n");
    // An artifact whose manifest was emptied is damaged, not a request for a missing bundle.
    let out = tmp.path().join("out.db");
    assert_eq!(skillc(&["build", s(&ws), "-o", s(&out)]).code, 0);
    let conn = rusqlite::Connection::open(&out).unwrap();
    conn.execute("DELETE FROM manifest", []).unwrap();
    drop(conn);
    let run = skillc(&["catalog", s(&out)]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("is not a readable skillc artifact"),
        "{}",
        run.stderr
    );
    // Names holding ESC or BEL are refused, and printed escaped.
    write(
        &ws,
        "b/SKILL.md",
        "---\nname: \"b\\e[31mred\\a\"\ndescription: B.\n---\nBody.\n",
    );
    write(
        &ws,
        "c\u{1b}[2J/SKILL.md",
        "---\ndescription: C.\n---\nBody.\n",
    );
    let run = skillc(&["check", s(&ws)]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        !run.all().contains('\u{1b}') && !run.all().contains('\u{7}'),
        "{:?}",
        run.all()
    );
    assert!(
        run.stdout
            .contains("`name` holds control characters: `b\\u{1b}[31mred\\u{7}`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("the name `c\\u{1b}[2J` holds control characters"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_artifact_naming_an_asset_outside_its_folder_exports_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "alpha", "alpha");
    write(&ws, "alpha/scripts/run.py", "print('hi')\n");
    let db = tmp.path().join("a.db");
    assert_eq!(skillc(&["build", s(&ws), "-o", s(&db)]).code, 0);
    // An artifact from elsewhere (a registry, say) whose asset climbs out of its folder.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let changed = conn
        .execute(
            "UPDATE entry SET record = replace(record, 'scripts/run.py', '../../../escape.py')",
            [],
        )
        .unwrap();
    assert!(changed > 0);
    conn.execute(
        "UPDATE asset SET path = '../../../escape.py' WHERE path = 'scripts/run.py'",
        [],
    )
    .unwrap();
    drop(conn);
    let out = tmp.path().join("out/skills");
    let run = skillc(&["export", s(&db), "-o", s(&out)]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("climbs out"), "{}", run.stderr);
    assert!(!tmp.path().join("escape.py").exists(), "written outside");
    assert!(!out.exists(), "a partial export was left");
}

#[test]
fn an_edit_of_a_linked_skill_file_writes_through_the_link() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    skill(&ws, "shared", "alpha");
    std::fs::create_dir_all(ws.join("alpha")).unwrap();
    let link = ws.join("alpha/SKILL.md");
    std::os::unix::fs::symlink("../shared/SKILL.md", &link).unwrap();
    let run = skillc(&["set", s(&link), "description", "\"Words visitors use.\""]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        link.symlink_metadata().unwrap().file_type().is_symlink(),
        "the link was replaced by a copy"
    );
    let shared = std::fs::read_to_string(ws.join("shared/SKILL.md")).unwrap();
    assert!(
        shared.contains("description: \"Words visitors use.\""),
        "{shared}"
    );
}

/// Kills the processes whose ids a test's commands wrote to a file, when the test ends however
/// it ends: a test of a runner that leaves processes behind must not leave them itself.
struct KillListed(PathBuf);

impl KillListed {
    fn pids(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.0).unwrap_or_default();
        text.split_whitespace().map(str::to_string).collect()
    }
}

impl Drop for KillListed {
    fn drop(&mut self) {
        for pid in self.pids() {
            let _ = Command::new("kill")
                .args(["-KILL", &pid])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Whether process `pid` still runs (a zombie no one has reaped yet does not).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next().map(|r| r.trim_start().to_string()))
        .is_some_and(|state| !state.starts_with('Z'))
}

#[test]
fn a_selector_that_leaves_a_child_holding_its_output_is_not_waited_for() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    write(
        &ws,
        "billing/SKILL.md",
        "---\nname: billing\ndescription: Invoices and refunds.\ntrigger_examples: [Where is my invoice?]\n---\nBody.\n",
    );
    let pids = KillListed(tmp.path().join("pids"));
    // The selector answers at once but leaves a child behind that holds its stdout open.
    let cmd = format!(
        "sleep 1000 & echo $! >> {}; echo '{{\"select\": [\"billing\"]}}'",
        s(&pids.0)
    );
    // (Waiting for the child would hang past BOUND; waiting for the timeout fails the call.)
    let run = skillc(&[
        "eval",
        s(&ws),
        "--selector",
        &cmd,
        "--selector-timeout",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(r["bundles"][0]["selector"]["failures"], 0, "{}", run.stdout);
    assert_eq!(
        r["bundles"][0]["selector"]["recall_at_1"], 1.0,
        "{}",
        run.stdout
    );
    // A selector that hangs with such a child is stopped at its timeout, child and all.
    let cmd = format!("sleep 1000 & echo $! >> {}; sleep 1000", s(&pids.0));
    let run = skillc(&[
        "eval",
        s(&ws),
        "--selector",
        &cmd,
        "--selector-timeout",
        "1",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("timed out after 1 s"), "{}", run.stdout);
    // One that moves its child out of its process group cannot hold it past the timeout either.
    // It answers once the child has left the group (a busy machine may run the shell to its
    // end first, and the group's kill would then take the child with it).
    let left = tmp.path().join("left");
    let cmd = format!(
        "setsid sh -c 'touch {left}; exec sleep 1000' & echo $! >> {pids}; \
         while [ ! -e {left} ]; do sleep 0.01; done; echo '{{\"select\": []}}'",
        left = s(&left),
        pids = s(&pids.0)
    );
    let run = skillc(&[
        "eval",
        s(&ws),
        "--selector",
        &cmd,
        "--selector-timeout",
        "1",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("still holds its output"),
        "{}",
        run.stdout
    );
    // Every child left in the selector's process group was killed.
    let listed = pids.pids();
    assert_eq!(listed.len(), 3, "{listed:?}");
    let until = Instant::now() + Duration::from_secs(5);
    while listed[..2].iter().any(|p| running(p)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !listed[..2].iter().any(|p| running(p)),
        "a child outlived its selector"
    );
}

/// A `skillc watch` ended (killed and reaped) when the test ends however it ends.
struct Watching(std::process::Child);

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .output()
        .expect("run git");
    assert!(o.status.success(), "git {args:?}: {o:?}");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn watch_serves_the_outside_skills_fetch_update_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let pdf =
        |description: &str| format!("---\nname: pdf\ndescription: {description}\n---\nDo it.\n");
    write(&repo, "skills/pdf/SKILL.md", &pdf("Fills PDF forms."));
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "one"]);
    let ws = tmp.path().join("ws");
    skill(&ws, "own", "own");
    let yaml = format!(
        "external:\n  - git: file://{}\n    rev: main\n    path: skills\n    into: vendor/acme\n",
        repo.display()
    );
    write(&ws, "workspace.yaml", &yaml);
    let run = skillc(&["fetch", s(&ws)]);
    assert_eq!(run.code, 0, "{}", run.all());
    let out = tmp.path().join("out.db");
    let _watch = Watching(
        Command::new(env!("CARGO_BIN_EXE_skillc"))
            .args(["watch", s(&ws), "-o", s(&out)])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // What the served artifact says of `pdf`: its catalog line and where it came from.
    let shows = |description: &str, commit: &str| {
        let started = Instant::now();
        let mut seen = String::new();
        while started.elapsed() < 3 * BOUND {
            let list = skillc(&["catalog", s(&out), "--format", "list"]);
            let explain = skillc(&["explain", s(&out), "pdf"]);
            seen = format!("{}{}", list.all(), explain.all());
            if seen.contains(description) && seen.contains(&format!("(commit {})", &commit[..12])) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(seen)
    };
    let first = git(&repo, &["rev-parse", "HEAD"]);
    shows("**pdf**: Fills PDF forms.", &first).expect("the first build");
    write(
        &repo,
        "skills/pdf/SKILL.md",
        &pdf("Fills PDF forms, second edition."),
    );
    git(&repo, &["commit", "-qam", "two"]);
    let second = git(&repo, &["rev-parse", "HEAD"]);
    let run = skillc(&["fetch", s(&ws), "--update"]);
    assert_eq!(run.code, 0, "{}", run.all());
    if let Err(seen) = shows("**pdf**: Fills PDF forms, second edition.", &second) {
        panic!("watch kept serving the copy before `fetch --update`:\n{seen}");
    }
}

#[test]
fn a_file_named_on_the_command_line_is_never_read_forever() {
    let tmp = tempfile::tempdir().unwrap();
    let db = sample_artifact();
    let pipe = tmp.path().join("pipe");
    mkfifo(&pipe);
    // `/dev/zero` behind a name a user would pass: endless, and a device.
    let zeros = tmp.path().join("zeros.zip");
    std::os::unix::fs::symlink("/dev/zero", &zeros).unwrap();
    let text = tmp.path().join("notes.md");
    std::fs::write(&text, "one line\n").unwrap();
    let (db_s, text) = (s(&db).to_string(), s(&text).to_string());
    let (pipe, zeros) = (s(&pipe).to_string(), s(&zeros).to_string());
    let line = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    // What each says: a flag's file read up to its cap, an archive, an artifact, a merge input
    // or a file to edit refused as not a regular file before it is read.
    let cases = [
        (
            line(&["route", &db_s, "hi", "--history", &zeros]),
            1,
            "more than 16 MiB",
        ),
        (
            line(&["route", &db_s, "hi", "--query-vector", &zeros]),
            1,
            "more than 16 MiB",
        ),
        (line(&["unpack", &zeros, s(tmp.path())]), 2, "is a device"),
        (
            line(&["unpack", &pipe, s(tmp.path())]),
            2,
            "is a named pipe",
        ),
        // Refused before any connection: nothing listens on port 1.
        (line(&["push", &zeros, "127.0.0.1:1/x:y"]), 1, "is a device"),
        (line(&["merge", &text, &pipe, &text]), 2, "is a named pipe"),
        (line(&["set", &zeros, "description", "x"]), 2, "is a device"),
        (
            line(&["set", &pipe, "description", "x"]),
            2,
            "is a named pipe",
        ),
    ];
    for (args, code, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = skillc(&args);
        assert_eq!(run.code, code, "{args:?}: {}", run.all());
        assert!(run.all().contains(needle), "{args:?}: {}", run.all());
    }
    // A signature beside an artifact that cannot be read stops a push: it is not sent unsigned.
    let signed = tmp.path().join("a.db");
    std::fs::copy(&db, &signed).unwrap();
    std::os::unix::fs::symlink("/dev/zero", tmp.path().join("a.db.minisig")).unwrap();
    let run = skillc(&["push", s(&signed), "127.0.0.1:1/x:y"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.all().contains("cannot read the signature"),
        "{}",
        run.all()
    );
}
