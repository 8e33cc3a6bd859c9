//! A generator of synthetic workspaces for the benchmark: seeded and reproducible.
//!
//! The reference workload is `Shape::reference()`: 1,000 global skills in 8 categories,
//! 500 clients with 5 overriding skills each, 10 locales, 3 tiers (one with compact bodies).
//! A tenth of the global skills have localized files for 3 locales, a fifth a `compact.md`,
//! one in twenty cites sources; each client toggles 2 skills, sets competitor flags and a
//! `COMPANY_NAME` used by 2 of the global skills.

use std::fmt::Write as _;
use std::path::Path;

/// The size of a synthetic workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Global skills.
    pub skills: usize,
    /// Client folders, each with its overrides.
    pub clients: usize,
    /// Overriding skills per client.
    pub overrides: usize,
    /// Locales; each global skill gets a `SKILL.<locale>.md` for all but the first.
    pub locales: usize,
    /// Tiers (the second one uses compact bodies).
    pub tiers: usize,
    /// Seed of the generator.
    pub seed: u64,
}

impl Shape {
    /// The reference workload: 500 clients, 1,000 global skills, 3 locales, 2 tiers.
    pub(crate) fn reference() -> Shape {
        Shape {
            skills: 1000,
            clients: 500,
            overrides: 5,
            locales: 10,
            tiers: 3,
            seed: 42,
        }
    }
}

/// splitmix64: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn words(&mut self, n: usize) -> String {
        const WORDS: &[&str] = &[
            "answer",
            "visitor",
            "pricing",
            "plan",
            "team",
            "support",
            "account",
            "invoice",
            "refund",
            "integration",
            "security",
            "onboarding",
            "demo",
            "trial",
            "export",
            "report",
            "workflow",
            "customer",
            "partner",
            "discount",
            "contract",
            "billing",
            "question",
            "guide",
            "setup",
            "migration",
            "compliance",
            "data",
            "dashboard",
            "user",
            "admin",
            "permission",
            "schedule",
            "meeting",
            "email",
            "chat",
            "policy",
            "product",
            "feature",
            "roadmap",
            "release",
            "upgrade",
            "limit",
            "quota",
            "region",
        ];
        (0..n)
            .map(|_| WORDS[self.below(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

const CATEGORIES: usize = 8;

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

fn skill_text(rng: &mut Rng, name: &str, category: usize, extra: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "---\nname: {name}\ndescription: {}.", rng.words(24));
    let _ = writeln!(s, "category: cat-{category}");
    let _ = writeln!(s, "trigger_examples:");
    for _ in 0..3 + rng.below(3) {
        let _ = writeln!(s, "  - \"{}?\"", rng.words(5));
    }
    s.push_str(extra);
    s.push_str("---\n# Instructions\n\n");
    for _ in 0..12 {
        let _ = writeln!(s, "{}.", rng.words(20));
    }
    s
}

/// Writes a workspace of `shape` into `dir` (which should be empty). Returns its file count.
pub(crate) fn generate(dir: &Path, shape: Shape) -> std::io::Result<usize> {
    let mut rng = Rng(shape.seed);
    let mut files = 0;
    let locales: Vec<String> = (0..shape.locales)
        .map(|i| {
            if i == 0 {
                "en".to_string()
            } else {
                format!("l{i}")
            }
        })
        .collect();
    let mut ws = format!(
        "name: synthetic\nlocales: [{}]\ntiers:\n",
        locales.join(", ")
    );
    for t in 0..shape.tiers {
        let body = if t == 1 { ", body: compact" } else { "" };
        let _ = writeln!(ws, "  - {{ name: tier{t}{body} }}");
    }
    ws.push_str("consumers:\n  answer: { disabled: [\"public.skill-9*\"] }\n");
    write(&dir.join("workspace.yaml"), &ws)?;
    write(
        &dir.join("variables.json"),
        "{\"_global\": {\"COMPANY_NAME\": \"Synthetic Inc\"}}\n",
    )?;
    files += 2;
    for c in 0..CATEGORIES {
        let text = format!(
            "---\ndisplay_name: Category {c}\norder: {c}\nselector_description: {}\nanswer_instructions: {}\n---\n",
            rng.words(10),
            rng.words(12)
        );
        write(&dir.join(format!("public/cat-{c}/CATEGORY.md")), &text)?;
        files += 1;
    }
    for i in 0..shape.skills {
        let name = format!("skill-{i}");
        let category = i % CATEGORIES;
        let folder = dir.join(format!("public/cat-{category}/{name}"));
        let mut extra = String::new();
        if i % 50 == 7 {
            extra.push_str("conditions:\n  - starts_with_any:\n      - /en\n");
        }
        let mut text = skill_text(&mut rng, &name, category, &extra);
        if i < 2 {
            text.push_str("Speak for {{COMPANY_NAME}}.\n");
        }
        if i % 20 == 3 {
            text.push_str("See the guide [[S:1]].\n");
            write(
                &folder.join("sources.yaml"),
                &format!("sources:\n  - sid: 1\n    url: https://docs.example.com/{}\n    title: Guide {i}\n", i % 40),
            )?;
            files += 1;
        }
        write(&folder.join("SKILL.md"), &text)?;
        files += 1;
        if i % 5 == 0 {
            write(&folder.join("compact.md"), &format!("{}.\n", rng.words(30)))?;
            files += 1;
        }
        if i % 10 == 0 {
            for l in locales.iter().skip(1).take(3) {
                let text = format!(
                    "---\ndescription: {} ({l}).\n---\n{}.\n",
                    rng.words(20),
                    rng.words(120)
                );
                write(&folder.join(format!("SKILL.{l}.md")), &text)?;
                files += 1;
            }
        }
    }
    for c in 0..shape.clients {
        files += client(dir, shape, c, &mut rng)?;
    }
    Ok(files)
}

/// Client `c`: its client.yaml (two toggles, competitor flags, a company name) and its
/// overriding skills. Returns the number of files written.
fn client(dir: &Path, shape: Shape, c: usize, rng: &mut Rng) -> std::io::Result<usize> {
    let mut files = 0;
    let id = format!("client-{c}.example");
    let base = dir.join(format!("clients/{id}"));
    let t1 = rng.below(shape.skills);
    let t2 = (t1 + 1 + rng.below(shape.skills.max(2) - 1)) % shape.skills.max(1);
    let yaml = format!(
        "toggles:\n  skill-{t1}: false\n  skill-{t2}: {{ enabled: false }}\nflags:\n  competitors: {{ names: [Rival{c}], battlecard_mode: {} }}\nvars:\n  _global: {{ COMPANY_NAME: \"Client {c}\" }}\n",
        c.is_multiple_of(2)
    );
    write(&base.join("client.yaml"), &yaml)?;
    files += 1;
    let mut chosen = std::collections::BTreeSet::new();
    while chosen.len() < shape.overrides.min(shape.skills) {
        chosen.insert(rng.below(shape.skills));
    }
    for i in chosen {
        let category = i % CATEGORIES;
        let text = skill_text(rng, &format!("skill-{i}"), category, "");
        write(
            &base.join(format!("cat-{category}/skill-{i}/SKILL.md")),
            &text,
        )?;
        files += 1;
    }
    Ok(files)
}
