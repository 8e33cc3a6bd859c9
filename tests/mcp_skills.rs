//! `skillc mcp` against the MCP Skills extension's public conformance scenarios (SEP-2640,
//! `modelcontextprotocol/conformance`, `src/scenarios/server/skills/`), their assertions written
//! here: the published `@modelcontextprotocol/conformance` (0.1.16 on npm) holds none of the
//! Skills scenarios yet and tests servers over HTTP only, and the scenarios' source is on
//! GitHub, which CI does not reach. Each check carries the scenario's check id. A verifying
//! client's checks (the Python SDK's `validate_skill` and `verify_skill_resource`, in
//! `src/mcp/shared/skills.py`, not yet on PyPI) are here too: the entry limits, and every file
//! read back as exactly its listed digest and size.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::common::{self, arg, said, skillc};

/// Longest wait for one answer: a hang is a failure, not a stuck test.
const BOUND: Duration = Duration::from_secs(30);

/// The extension's identifier.
const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// A `skillc mcp` process and the lines it answers with.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next: u64,
    /// Protocol 2026-07-28 carries the version in each request's `_meta` (no handshake).
    modern: bool,
}

impl Mcp {
    /// Serves `artifact`: a client of protocol 2026-07-28 (`modern`) or one that shook hands
    /// as 2025-11-25.
    fn serve(artifact: &Path, modern: bool) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skillc"))
            .args(["mcp", arg(artifact)])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            next: 0,
            modern,
        };
        if !modern {
            let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "conformance", "version": "1"}});
            assert!(mcp.ask("initialize", init).get("result").is_some());
            mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        mcp
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The answer to one request (its `result` or `error` object, whole).
    fn ask(&mut self, method: &str, mut params: Value) -> Value {
        if self.modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "conformance", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = (self.lines.recv_timeout(BOUND))
                .unwrap_or_else(|_| panic!("no answer to {method} within {BOUND:?}"));
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                return answer;
            }
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let answer = self.ask(method, params);
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{method}: {answer}"))
    }

    /// The bytes of a resource as `resources/read` gives them.
    fn read(&mut self, uri: &str) -> Vec<u8> {
        use base64::Engine as _;
        let contents = &self.result("resources/read", json!({"uri": uri}))["contents"][0];
        match contents["blob"].as_str() {
            Some(blob) => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .unwrap(),
            None => contents["text"].as_str().unwrap().as_bytes().to_vec(),
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A workspace of three skills, one with files beside its SKILL.md, built.
fn built(dir: &Path) -> std::path::PathBuf {
    let ws = dir.join("ws");
    let skill = |name: &str, what: &str| {
        format!("---\nname: {name}\ndescription: {what}\nlicense: MIT\nmetadata:\n  owner: billing\n---\n{what}\n")
    };
    common::write(
        &ws,
        "invoices/SKILL.md",
        &skill("invoices", "Create and send customer invoices."),
    );
    common::write(
        &ws,
        "invoices/references/vat.md",
        "# VAT\nRates by country.\n",
    );
    common::write(&ws, "invoices/assets/logo.png", "\u{89}PNG not really");
    common::write(
        &ws,
        "refunds/SKILL.md",
        &skill("refunds", "Refund a customer's payment."),
    );
    common::write(
        &ws,
        "pricing/SKILL.md",
        &skill("pricing", "Explain the plans and their prices."),
    );
    let artifact = dir.join("skills.db");
    let out = skillc(&["build", arg(&ws), "-o", arg(&artifact)]);
    assert!(out.status.success(), "{}", said(&out));
    artifact
}

/// `sha256:` and 64 lowercase hex digits.
fn is_digest(d: &str) -> bool {
    d.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The frontmatter of a SKILL.md, as JSON.
fn frontmatter(text: &str) -> Value {
    let head = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---"))
        .unwrap()
        .0;
    serde_yaml::from_str(head).unwrap()
}

/// `sep-2640-skills-enumeration`'s entry checks, over every entry of a listing.
fn entry_checks(skills: &[Value]) {
    let name_rule = |n: &str| {
        (1..=64).contains(&n.len())
            && n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !n.starts_with('-')
            && !n.ends_with('-')
    };
    let mut names = std::collections::BTreeSet::new();
    for s in skills {
        let uri = s["uri"].as_str().expect("sep-2640-entry-uri-required");
        let fm = s["frontmatter"]
            .as_object()
            .expect("sep-2640-entry-frontmatter-required");
        let name = fm["name"].as_str().unwrap();
        assert!(
            !fm["description"].as_str().unwrap().is_empty(),
            "sep-2640-entry-frontmatter-required: {s}"
        );
        assert_eq!(
            uri,
            format!("skill://{name}/SKILL.md"),
            "sep-2640-entry-uri-matches-frontmatter-name, sep-2640-skill-uri-scheme"
        );
        assert!(name_rule(name), "sep-2640-name-naming-rules: {name}");
        assert!(
            names.insert(name.to_string()),
            "sep-2640-names-should-be-unique: {name}"
        );
        let files = s["resources"]
            .as_array()
            .expect("sep-2640-entry-resources-required");
        let uris: Vec<&str> = files.iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert!(
            uris.contains(&uri),
            "sep-2640-resources-complete: no entry for its SKILL.md: {s}"
        );
        let distinct: std::collections::BTreeSet<&&str> = uris.iter().collect();
        assert_eq!(
            distinct.len(),
            uris.len(),
            "sep-2640-resources-complete: a file twice: {s}"
        );
        let root = format!("skill://{name}/");
        let mut total = 0;
        for r in files {
            let u = r["uri"].as_str().unwrap();
            assert!(
                u.starts_with(&root) && !u.contains("/../"),
                "sep-2640-resources-uri-within-skill: {u}"
            );
            assert!(
                is_digest(r["digest"].as_str().unwrap_or("")),
                "sep-2640-resources-digest-format: {r}"
            );
            total += r["size"]
                .as_u64()
                .expect("sep-2640-resources-size-required");
        }
        assert!(
            files.len() <= 512,
            "sep-2640-limit-resources-per-skill: {name}"
        );
        assert!(total <= 16 << 20, "sep-2640-limit-total-size: {name}");
        if let Some(meta) = fm.get("metadata").and_then(Value::as_object) {
            let reserved = meta
                .keys()
                .find(|k| k.starts_with("io.modelcontextprotocol/"));
            assert!(
                reserved.is_none(),
                "sep-2640-metadata-reserved-prefix: {reserved:?}"
            );
        }
    }
}

#[test]
fn skillc_mcp_passes_the_skills_conformance_scenarios_assertions() {
    let dir = tempfile::tempdir().unwrap();
    let artifact = built(dir.path());
    let mut mcp = Mcp::serve(&artifact, true);
    // sep-2640-capability-declaration-inline, -capability-empty-object: the settings object
    // itself under the identifier, no `config` envelope; `resources` declared beside it.
    let found = mcp.result("server/discover", json!({}));
    let capabilities = &found["capabilities"];
    assert_eq!(capabilities["extensions"][EXTENSION], json!({}), "{found}");
    assert!(capabilities.get("resources").is_some(), "{found}");

    // sep-2640-skills-list-implemented, -pagination (one page, no cursor), -entry-atomic,
    // -skills-list-cache-attributes (2026-07-28: both fields).
    let listed = mcp.result("skills/list", json!({}));
    assert!(listed.get("nextCursor").is_none(), "{listed}");
    assert!(
        listed["ttlMs"].is_u64() && listed["cacheScope"] == "public",
        "{listed}"
    );
    let skills = listed["skills"].as_array().unwrap().clone();
    assert_eq!(skills.len(), 3, "{listed}");
    entry_checks(&skills);

    // A verifying client (SEP-2640 "Integrity and verification"; the Python SDK's
    // verify_skill_resource): every listed file reads as exactly its digest and size; and the
    // read-back checks: sep-2640-skillmd-required, -skillmd-frontmatter,
    // -entry-frontmatter-identical.
    let mut files = 0;
    for s in &skills {
        for r in s["resources"].as_array().unwrap() {
            let bytes = mcp.read(r["uri"].as_str().unwrap());
            let digest = format!("sha256:{:x}", Sha256::digest(&bytes));
            assert_eq!(
                (r["digest"].as_str().unwrap(), r["size"].as_u64().unwrap()),
                (digest.as_str(), bytes.len() as u64),
                "{r}"
            );
            files += 1;
        }
        let text = String::from_utf8(mcp.read(s["uri"].as_str().unwrap())).unwrap();
        assert_eq!(
            frontmatter(&text),
            s["frontmatter"],
            "sep-2640-entry-frontmatter-identical"
        );
    }
    assert_eq!(files, 5, "three SKILL.md and two files beside one");

    // sep-2640-skills-get-implemented, -entry-shape, -no-cursor; -unknown-uri-invalid-params
    // with the scenario's own probe uri.
    let uri = skills[0]["uri"].as_str().unwrap();
    let got = mcp.result("skills/get", json!({"uri": uri}));
    assert_eq!(got["skill"], skills[0], "{got}");
    assert!(
        got.get("nextCursor").is_none() && got["ttlMs"].is_u64(),
        "{got}"
    );
    let probe = "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md";
    let unknown = mcp.ask("skills/get", json!({"uri": probe}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // sep-2640-skills-manifest: each SKILL.md is a listed resource, text/markdown, named and
    // described as its frontmatter; sep-2640-final-segment-equals-name; no bare `_meta` keys.
    let resources = mcp.result("resources/list", json!({}));
    for s in &skills {
        let r = (resources["resources"].as_array().unwrap().iter())
            .find(|r| r["uri"] == s["uri"])
            .unwrap_or_else(|| panic!("{} is not in resources/list", s["uri"]));
        assert_eq!(
            r["mimeType"], "text/markdown",
            "sep-2640-skillmd-mimetype: {r}"
        );
        assert_eq!(
            r["name"], s["frontmatter"]["name"],
            "sep-2640-skillmd-metadata-name: {r}"
        );
        assert_eq!(
            r["description"], s["frontmatter"]["description"],
            "sep-2640-skillmd-metadata-description: {r}"
        );
        assert!(r.get("_meta").is_none(), "sep-2640-meta-prefix: {r}");
    }
    // sep-2640-skills-directory: `directoryRead` is not declared, so its checks do not apply.
    assert!(capabilities["extensions"][EXTENSION]
        .get("directoryRead")
        .is_none());
}

#[test]
fn cache_fields_go_only_to_clients_of_the_protocol_that_defines_them() {
    let dir = tempfile::tempdir().unwrap();
    let artifact = built(dir.path());
    let uri = json!({"uri": "skill://refunds/SKILL.md"});
    // 2025-11-25 knows no ttlMs or cacheScope (SEP-2549 came with 2026-07-28): neither is sent.
    let mut old = Mcp::serve(&artifact, false);
    for (method, params) in [("skills/list", json!({})), ("skills/get", uri.clone())] {
        let result = old.result(method, params);
        assert!(
            result.get("ttlMs").is_none() && result.get("cacheScope").is_none(),
            "{method}: {result}"
        );
    }
    // 2026-07-28 requires both (sep-2640-skills-list-cache-attributes), on get as on list.
    let mut new = Mcp::serve(&artifact, true);
    for (method, params) in [("skills/list", json!({})), ("skills/get", uri)] {
        let result = new.result(method, params);
        assert_eq!(
            (result["ttlMs"].clone(), result["cacheScope"].clone()),
            (json!(60000), json!("public")),
            "{method}: {result}"
        );
    }
}

#[test]
fn a_skill_past_an_entry_s_limits_is_left_out_with_a_clear_answer() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let skill =
        |name: &str| format!("---\nname: {name}\ndescription: The {name} skill.\n---\nDo it.\n");
    // 512 files with its SKILL.md: an entry; 513: not.
    for (name, files) in [("full", 511), ("crowded", 512)] {
        common::write(&ws, &format!("{name}/SKILL.md"), &skill(name));
        for n in 0..files {
            common::write(
                &ws,
                &format!("{name}/refs/{n:03}.md"),
                &format!("note {n}\n"),
            );
        }
    }
    // Two files of 8.5 MiB: past 16 MiB together.
    common::write(&ws, "heavy/SKILL.md", &skill("heavy"));
    let half = "x".repeat((17 << 20) / 2);
    common::write(&ws, "heavy/data/a.txt", &half);
    common::write(&ws, "heavy/data/b.txt", &half);
    common::write(&ws, "light/SKILL.md", &skill("light"));
    let artifact = dir.path().join("skills.db");
    let out = skillc(&["build", arg(&ws), "-o", arg(&artifact)]);
    assert!(out.status.success(), "{}", said(&out));

    let mut mcp = Mcp::serve(&artifact, true);
    let listed = mcp.result("skills/list", json!({}));
    let skills = listed["skills"].as_array().unwrap();
    let names: Vec<&str> = skills
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap())
        .collect();
    // Left out, so that a client that checks every entry (the Python SDK) takes the listing.
    assert_eq!(names, ["full", "light"], "{names:?}");
    assert_eq!(skills[0]["resources"].as_array().unwrap().len(), 512);
    entry_checks(skills);
    for (name, why) in [
        ("crowded", "it has 513 files, over the 512 of an entry"),
        ("heavy", "its files come to over 16777216 bytes (16 MiB)"),
    ] {
        let uri = format!("skill://{name}/SKILL.md");
        let answer = mcp.ask("skills/get", json!({"uri": uri}));
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(why) && message.contains(&format!("skill://{name}/<path>")),
            "{message}"
        );
        // Its files stay resources.
        assert!(mcp.read(&uri).starts_with(b"---\nname: "));
    }
}
