//! The artifact's schema, defined once: the compiler writes these tables and rows and every
//! runtime reads them (the Python runtime checks the same [`VERSION`]). The tables are a
//! public contract, documented with a worked query per runtime question in `docs/artifact.md`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Condition;

/// Schema version, in `PRAGMA user_version` and the manifest's `schema_version`.
pub const VERSION: i64 = 13;

/// `PRAGMA application_id` of every artifact (`sklc` in ASCII): marks a SQLite file as a
/// skillc artifact, so that an artifact written inside a workspace is never read as input.
pub const APPLICATION_ID: i32 = 0x736b_6c63;

/// Whether `header` (a file's first 72 bytes or more) is the header of a skillc artifact.
pub fn is_artifact_header(header: &[u8]) -> bool {
    header.len() >= 72
        && header.starts_with(b"SQLite format 3\0")
        && header[68..72] == APPLICATION_ID.to_be_bytes()
}

/// A content digest (hex, as the compiler makes it) as the artifact stores it in `blob.hash`,
/// `entry.body` and `asset.blob`: its bytes, half the room of its hex digits (0.7 MB of the
/// reference workload's artifact, one body hash an entry).
pub fn digest_bytes(hex: &str) -> Vec<u8> {
    let bytes: Option<Vec<u8>> = (hex.as_bytes().chunks(2))
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect();
    match bytes {
        Some(bytes) if hex.len().is_multiple_of(2) => bytes,
        _ => hex.as_bytes().to_vec(),
    }
}

/// Warnings a `diagnostic_run` row holds: a build's thousands of look-alike warnings deflate
/// to a tenth together, and a rebuild that changes one deflates only its run again.
pub const DIAGNOSTICS_PER_RUN: usize = 256;

/// The tables, in the order the compiler fills them.
pub const DDL: &str = "
CREATE TABLE manifest (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE blob (
  hash BLOB PRIMARY KEY,            -- sha256 of the content, its 32 bytes
  size INTEGER NOT NULL,            -- bytes of the content
  encoding TEXT NOT NULL,           -- 'identity', or 'zlib' (RFC 1950) when that saves a fifth
  data BLOB NOT NULL
);
CREATE TABLE category (
  id TEXT PRIMARY KEY,              -- '' holds uncategorized skills
  position INTEGER NOT NULL,        -- catalog and prompt order
  display_name TEXT NOT NULL,
  hidden INTEGER NOT NULL,
  catalog_header TEXT NOT NULL,     -- markdown catalog: heading, selector text, table head
  catalog_header_tokens INTEGER NOT NULL,
  prompt_heading TEXT NOT NULL,     -- answer prompt: heading and answer instructions
  prompt_heading_tokens INTEGER NOT NULL,
  uncertainty TEXT NOT NULL,        -- answer prompt: when several of its skills are in
  uncertainty_tokens INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE source (
  sid INTEGER PRIMARY KEY,          -- workspace-wide pool id
  url TEXT NOT NULL UNIQUE,
  title TEXT,
  text TEXT,
  extra TEXT NOT NULL,              -- JSON object of the other fields
  fragment TEXT NOT NULL,           -- line of a prompt's sources section
  tokens INTEGER NOT NULL
);
CREATE TABLE client (
  id TEXT PRIMARY KEY,
  trusted INTEGER NOT NULL,
  flags TEXT NOT NULL,              -- JSON
  locales TEXT NOT NULL,            -- JSON list
  tiers TEXT NOT NULL,              -- JSON list
  toggles TEXT NOT NULL             -- JSON object: skill name -> enabled
) WITHOUT ROWID;
CREATE TABLE consumer (
  name TEXT PRIMARY KEY,
  enabled TEXT NOT NULL,            -- JSON list of patterns
  disabled TEXT NOT NULL            -- JSON list of patterns
) WITHOUT ROWID;
CREATE TABLE consumer_hidden (      -- skills a consumer's catalog leaves out
  consumer TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  PRIMARY KEY (consumer, qualified_name)
) WITHOUT ROWID;
CREATE TABLE card (                 -- what catalogs show of a skill; shared by entries
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  category TEXT NOT NULL,           -- '' when none
  description TEXT NOT NULL,
  triggers TEXT NOT NULL,           -- JSON list (catalogs show the first max_triggers)
  when_to_use TEXT NOT NULL,        -- JSON list
  location TEXT NOT NULL,           -- SKILL.md path inside the workspace
  vectors TEXT NOT NULL             -- '' unless routing.embedding_model: the ids (vector) of its
                                    -- summary's, then each trigger example's, space-separated (dense.rs)
);
CREATE TABLE card_route (           -- a card's routing index (route.rs), written after the cards:
  card INTEGER PRIMARY KEY,         -- it holds the words of the skill's body, which an edit of the
  terms TEXT NOT NULL,              -- body changes while the card stays; `word:count` pairs sorted
                                    -- by word, a word counted once alone
  meaning BLOB                      -- the built-in meaning's vector of its summary with its body's
);                                  -- words mixed in (signed bytes), a text of its own (dense.rs)
CREATE TABLE vector (               -- embedding of a text, each distinct text once (dense.rs); ids
  id INTEGER PRIMARY KEY,           -- from 1 in the order the cards first name a text
  data BLOB NOT NULL                -- embedding_dims little-endian f32, or signed bytes (the built-in meaning's)
);
CREATE TABLE meaning (              -- the built-in meaning table of manifest embedding_model, when
  name TEXT PRIMARY KEY,            -- the workspace declares no model of its own (route/meaning.rs)
  data BLOB NOT NULL
);
CREATE TABLE card_fragment_cut (    -- catalog text of a card per format and budget level,
  card INTEGER NOT NULL REFERENCES card(id), -- read through the view card_fragment
  level TEXT NOT NULL,              -- '' full; 'no-triggers'; 'chars:N'
  format TEXT NOT NULL,             -- xml, markdown, list
  head TEXT NOT NULL,               -- the text is head, the card's description, tail: the
  tail TEXT,                        -- description is cut out where the text holds it as written
  tokens INTEGER NOT NULL,          -- (each format held it again beside the card's own); a NULL
  PRIMARY KEY (card, level, format) -- tail: head is the whole text
) WITHOUT ROWID;
CREATE VIEW card_fragment (card, level, format, text, tokens) AS
  SELECT f.card, f.level, f.format,
         CASE WHEN f.tail IS NULL THEN f.head
              ELSE f.head || (SELECT c.description FROM card c WHERE c.id = f.card) || f.tail END,
         f.tokens
  FROM card_fragment_cut f;
CREATE TABLE entry (                -- a resolved skill; identical content stored once
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,               -- selectable name
  qualified_name TEXT NOT NULL,
  resolved_name TEXT NOT NULL,      -- skill whose content is used (variant, override)
  card INTEGER NOT NULL REFERENCES card(id),
  category TEXT NOT NULL,           -- '' when none
  sort_key TEXT NOT NULL,           -- catalog order: category position, then name
  catalog_visible INTEGER NOT NULL,
  always_on INTEGER NOT NULL,
  hidden INTEGER NOT NULL,
  unavailable TEXT,                 -- reason, when unavailable
  untrusted INTEGER NOT NULL,
  body BLOB NOT NULL REFERENCES blob(hash),
  body_tokens INTEGER NOT NULL,
  prompt_prefix TEXT NOT NULL,      -- the skill's part of the answer prompt is
  prompt_body INTEGER NOT NULL,     -- prefix, then the body when prompt_body = 1,
  prompt_suffix TEXT NOT NULL,      -- then suffix
  prompt_tokens INTEGER NOT NULL,   -- tokens of all three
  record TEXT NOT NULL              -- JSON: the run-time fields (composition, conditions,
                                    -- tools, mcp, requirements, sources cited, meta)
);
CREATE TABLE slot_list (            -- the names of bundles, each distinct list once (the
  id INTEGER PRIMARY KEY,           -- bundles of a client mostly differ alike from their bases)
  slots TEXT NOT NULL               -- JSON [[name, entry], [name, null, reason], ...] by name
                                    -- id, [name, entry, 1] when the bundle also finds the
                                    -- entry by its plain name: read it through bundle_entry
);
CREATE TABLE bundle (
  id INTEGER PRIMARY KEY,
  client TEXT NOT NULL,             -- '' for the global bundle
  locale TEXT NOT NULL,
  tier TEXT NOT NULL,
  base INTEGER REFERENCES bundle(id), -- rows of the base apply unless this bundle has its own
  catalog_level TEXT NOT NULL,      -- budget level of its card fragments
  slots INTEGER NOT NULL REFERENCES slot_list(id),
  UNIQUE (client, locale, tier)
);
CREATE TABLE name (                 -- every selectable qualified name
  id INTEGER PRIMARY KEY,
  qualified_name TEXT NOT NULL UNIQUE
);
CREATE TABLE reason (               -- why skills are left out of bundles, each text once,
  id INTEGER PRIMARY KEY,           -- as `code: words` (see LeftOut)
  text TEXT NOT NULL UNIQUE
);
-- The names of each bundle, one row each: `entry` NULL means left out, `reason` says why;
-- `plain` 1 when a plugin's skill (`<plugin>:<skill>`) is also found by its plain name in
-- this bundle (the build decides it). Stored packed in slot_list (one row per list is a tenth
-- of the writing and the size).
CREATE VIEW bundle_entry (bundle, name, entry, reason, plain) AS
  SELECT b.id, json_extract(s.value, '$[0]'), json_extract(s.value, '$[1]'),
         CASE WHEN json_extract(s.value, '$[1]') IS NULL THEN json_extract(s.value, '$[2]') END,
         CASE WHEN json_extract(s.value, '$[1]') IS NOT NULL
              THEN coalesce(json_extract(s.value, '$[2]'), 0) ELSE 0 END
  FROM bundle b JOIN slot_list l ON l.id = b.slots, json_each(l.slots) s;
CREATE TABLE asset (
  skill_file TEXT NOT NULL,         -- SKILL.md of the skill carrying it
  path TEXT NOT NULL,               -- path inside the skill folder
  blob BLOB NOT NULL REFERENCES blob(hash),
  PRIMARY KEY (skill_file, path)
) WITHOUT ROWID;
CREATE TABLE diagnostic_run (      -- the build's warnings in order, DIAGNOSTICS_PER_RUN a row
  first INTEGER PRIMARY KEY,        -- position of its first warning, from 1
  count INTEGER NOT NULL,           -- how many it holds (the last run may hold fewer)
  data BLOB NOT NULL                -- zlib (RFC 1950) of a JSON array of
                                    -- [severity, code, file, line, column, message] arrays
);
";

/// The columns of every table as [`DDL`] declares them, in order: the one list the writer's
/// statements derive from.
fn tables() -> &'static BTreeMap<&'static str, Vec<&'static str>> {
    static TABLES: std::sync::OnceLock<BTreeMap<&'static str, Vec<&'static str>>> =
        std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let mut out = BTreeMap::new();
        for part in DDL.split("CREATE TABLE ").skip(1) {
            let name = part.split_whitespace().next().unwrap_or_default();
            let columns = part
                .lines()
                .skip(1)
                .map(str::trim_start)
                .take_while(|l| !l.starts_with(')'))
                .filter(|l| !(l.is_empty() || l.starts_with("--")))
                .filter(|l| !(l.starts_with("PRIMARY KEY") || l.starts_with("UNIQUE")))
                .filter_map(|l| l.split_whitespace().next())
                .collect();
            out.insert(name, columns);
        }
        out
    })
}

/// The columns of `table`, in the order [`DDL`] declares them (empty for no such table).
pub fn columns(table: &str) -> &'static [&'static str] {
    tables().get(table).map_or(&[], Vec::as_slice)
}

/// The statement that inserts a row of `table` (`INSERT INTO t (a, b) VALUES (:a, :b)`; with
/// `or_ignore`, a row whose key is there already is left as it is). Writers bind each value
/// by its column's name, so what they write does not depend on the order of the columns.
pub fn insert(table: &str, or_ignore: bool) -> &'static str {
    static STATEMENTS: std::sync::OnceLock<BTreeMap<(&'static str, bool), String>> =
        std::sync::OnceLock::new();
    let all = STATEMENTS.get_or_init(|| {
        let mut out = BTreeMap::new();
        for (name, columns) in tables() {
            let names = columns.join(", ");
            let values = columns
                .iter()
                .map(|c| format!(":{c}"))
                .collect::<Vec<_>>()
                .join(", ");
            for ignore in [false, true] {
                let verb = if ignore { "INSERT OR IGNORE" } else { "INSERT" };
                let sql = format!("{verb} INTO {name} ({names}) VALUES ({values})");
                out.insert((*name, ignore), sql);
            }
        }
        out
    });
    let Some((name, _)) = tables().get_key_value(table) else {
        return "";
    };
    all.get(&(*name, or_ignore)).map_or("", String::as_str)
}

/// The run-time fields of a resolved skill (`entry.record`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Record {
    /// Namespace.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// SKILL.md of the content used.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resolved_file: String,
    /// Category priority (lower is stronger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// Removes weaker skills of its category.
    #[serde(skip_serializing_if = "is_false")]
    pub exclusive: bool,
    /// Run-time conditions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Added with this skill.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<String>,
    /// Linked both ways.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub augments: Vec<String>,
    /// Removed when this skill is in.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<String>,
    /// Imported with this skill (direct).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    /// Environment variables the host must have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires_env: Vec<String>,
    /// Programs the host must have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires_binary: Vec<String>,
    /// Variables the runtime fills.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runtime_vars: Vec<String>,
    /// MCP server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp: Option<Mcp>,
    /// Tools.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<serde_json::Value>,
    /// Pipeline: automatic next skill (qualified name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_skill: Option<String>,
    /// Pipeline: key → skill (qualified name).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub conditional_next: BTreeMap<String, String>,
    /// Pool ids the body cites.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cited: Vec<u32>,
    /// Display metadata.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub meta: BTreeMap<String, serde_json::Value>,
    /// `default_enabled` of the skill, when it says (a client toggle overrides it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_enabled: Option<bool>,
    /// The `when` of the variant whose content is used, in words (empty for no variant).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variant_when: Vec<String>,
    /// The locale of the `SKILL.<locale>.md` used, if one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale_used: Option<String>,
    /// The body is the tier's `compact.md`.
    #[serde(skip_serializing_if = "is_false")]
    pub compact: bool,
}

/// An MCP server declaration.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct Mcp {
    /// The command line that starts the server.
    pub command: String,
    /// Environment (`${VAR}` placeholders).
    pub env: BTreeMap<String, String>,
    /// Seconds.
    pub startup_timeout: u64,
    /// Minutes.
    pub idle_timeout: u64,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A text the artifact stores with its token count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counted {
    /// The text.
    pub text: String,
    /// Its tokens.
    pub tokens: u32,
}

/// A row of `category`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryRow {
    /// Id (`''` holds uncategorized skills).
    pub id: String,
    /// Catalog and prompt order.
    pub position: i64,
    /// Heading of the category in catalogs and prompts.
    pub display_name: String,
    /// Hidden from catalogs.
    pub hidden: bool,
    /// Markdown catalog: heading, selector text, table head.
    pub catalog_header: Counted,
    /// Answer prompt: heading and answer instructions.
    pub prompt_heading: Counted,
    /// Answer prompt: guidance when several of its skills are in.
    pub uncertainty: Counted,
}

/// A row of `source`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRow {
    /// Workspace-wide pool id.
    pub sid: u32,
    /// Normalised URL.
    pub url: String,
    /// Title to show beside the link, if the source gives one.
    pub title: Option<String>,
    /// Quoted text.
    pub text: Option<String>,
    /// JSON object of the other fields.
    pub extra: String,
    /// Line of a prompt's sources section.
    pub fragment: Counted,
}

/// A row of `client`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRow {
    /// Client id.
    pub id: String,
    /// Its code is trusted.
    pub trusted: bool,
    /// Flags, JSON.
    pub flags: String,
    /// Locales, JSON list.
    pub locales: String,
    /// Tiers, JSON list.
    pub tiers: String,
    /// Toggles, JSON object: skill name → enabled.
    pub toggles: String,
}

/// A row of `consumer` and its `consumer_hidden` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerRow {
    /// Consumer name.
    pub name: String,
    /// Enabled patterns, JSON list.
    pub enabled: String,
    /// Disabled patterns, JSON list.
    pub disabled: String,
    /// Qualified names its catalogs leave out.
    pub hidden: Vec<String>,
}

/// A row of `card_fragment` (without its card).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardFragment {
    /// Budget level: `''` full, `no-triggers`, `chars:N`.
    pub level: String,
    /// `xml`, `markdown` or `list`.
    pub format: &'static str,
    /// The text and its tokens.
    pub text: Counted,
}

/// A row of `entry`: a resolved skill, identical content stored once.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRow {
    /// Selectable name.
    pub name: String,
    /// `<namespace>.<name>`.
    pub qualified_name: String,
    /// Skill whose content is used (variant, override).
    pub resolved_name: String,
    /// Index (0-based) of its card.
    pub card: usize,
    /// Category (`''` when none).
    pub category: String,
    /// Catalog order: category position, then name.
    pub sort_key: String,
    /// Shown in catalogs.
    pub catalog_visible: bool,
    /// Injected when its conditions hold.
    pub always_on: bool,
    /// Hidden from catalogs and selection.
    pub hidden: bool,
    /// Why unavailable, when it is.
    pub unavailable: Option<String>,
    /// Code from an untrusted overlay: prompt-only.
    pub untrusted: bool,
    /// Blob hash of the body.
    pub body: String,
    /// Tokens of the body.
    pub body_tokens: u32,
    /// Prompt text before the body.
    pub prompt_prefix: String,
    /// Whether the body goes between prefix and suffix.
    pub prompt_body: bool,
    /// Prompt text after the body.
    pub prompt_suffix: String,
    /// Tokens of prefix, body (when placed) and suffix.
    pub prompt_tokens: u32,
    /// The run-time fields: a [`Record`] as the JSON stored (serialised while rows are laid
    /// out, on every core).
    pub record: String,
}

/// A row of `bundle` and its `bundle_entry` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRow {
    /// Client id, `''` for a global bundle.
    pub client: String,
    /// Locale of the bundle.
    pub locale: String,
    /// Tier of the bundle.
    pub tier: String,
    /// Index (0-based) of the base bundle whose slots apply unless this one has its own.
    pub base: Option<usize>,
    /// Budget level of its card fragments.
    pub catalog_level: String,
    /// Index (0-based) of its slots' list in `slot_list` (bundles with the same differences
    /// share one).
    pub slots: usize,
}

/// One `[name, entry]`, `[name, entry, 1]` or `[name, null, reason]` of a bundle's
/// `slot_list.slots`, as 0-based indexes into the `name`, `entry` and `reason` tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleSlot {
    /// The qualified name.
    pub name: usize,
    /// The entry, or `None` when left out.
    pub entry: Option<usize>,
    /// Why it was left out.
    pub reason: Option<usize>,
    /// Whether the bundle also finds the entry by its plain name (a plugin's skill, the only
    /// one of the bundle so named): stored as the `1` after the entry.
    pub plain: bool,
}

/// Why a skill is left out of a bundle, stored in `reason.text` as `code: words`. The code is
/// what runtimes act on: `disabled` (a toggle or `default_enabled: false`), `tier` (not in the
/// bundle's tier), `condition` (a build-time condition); the words are for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// `disabled`, `tier` or `condition`.
    pub code: String,
    /// The reason in words (`toggled off for this client`).
    pub words: String,
}

impl LeftOut {
    /// A reason with its code.
    pub fn new(code: &str, words: impl Into<String>) -> LeftOut {
        LeftOut {
            code: code.to_string(),
            words: words.into(),
        }
    }

    /// The reason as stored: `code: words`.
    pub fn stored(&self) -> String {
        format!("{}: {}", self.code, self.words)
    }

    /// A stored reason read back; a text without a code is all words.
    pub fn parse(text: &str) -> LeftOut {
        match text.split_once(": ") {
            Some((code, words))
                if !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase()) =>
            {
                LeftOut::new(code, words)
            }
            _ => LeftOut::new("", text),
        }
    }
}

/// A row of `asset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetRow {
    /// SKILL.md of the skill carrying it.
    pub skill_file: String,
    /// Path inside the skill folder.
    pub path: String,
    /// Blob hash of its content.
    pub blob: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_stored_as_its_bytes() {
        let hex = "00ff7a".repeat(10) + "0a10";
        let bytes = digest_bytes(&hex);
        assert_eq!(bytes.len(), 32);
        assert_eq!(bytes[..4], [0x00, 0xff, 0x7a, 0x00]);
        assert_eq!(bytes[30..], [0x0a, 0x10]);
        // Not a digest (never written): kept as it is rather than lost.
        assert_eq!(digest_bytes("abc"), b"abc");
        assert_eq!(digest_bytes("zz"), b"zz");
    }

    /// The column lists the writer binds are those SQLite reads from the DDL.
    #[test]
    fn column_lists_are_the_ddl_s() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(DDL).unwrap();
        let mut st = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap();
        let names: Vec<String> = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(names.len(), tables().len());
        for table in names {
            let declared: Vec<String> = conn
                .prepare(&format!(
                    "SELECT name FROM pragma_table_info('{table}') ORDER BY cid"
                ))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(columns(&table), declared, "{table}");
            conn.prepare(insert(&table, false)).unwrap();
            conn.prepare(insert(&table, true)).unwrap();
        }
    }

    #[test]
    fn an_artifact_header_is_sqlite_s_with_skillc_s_application_id() {
        let mut header = b"SQLite format 3\0".to_vec();
        header.resize(68, 0);
        header.extend_from_slice(&APPLICATION_ID.to_be_bytes());
        assert!(is_artifact_header(&header));
        header.push(0);
        assert!(is_artifact_header(&header), "longer is fine");
        assert!(!is_artifact_header(&header[..71]), "72 bytes at least");
        let mut other = header.clone();
        other[70] ^= 1;
        assert!(!is_artifact_header(&other), "another application");
        let mut text = header.clone();
        text[0] = b's';
        assert!(!is_artifact_header(&text), "not SQLite");
    }

    /// A record is stored without its empty and false fields: a flag is written only when set.
    #[test]
    fn a_record_leaves_out_false_flags() {
        let plain = serde_json::to_string(&Record::default()).unwrap();
        assert_eq!(plain, "{}");
        let flagged = Record {
            exclusive: true,
            compact: true,
            ..Record::default()
        };
        let json = serde_json::to_value(&flagged).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"exclusive": true, "compact": true})
        );
    }

    #[test]
    fn inserts_bind_each_column_by_name_and_reasons_keep_their_code() {
        assert_eq!(
            insert("manifest", false),
            "INSERT INTO manifest (key, value) VALUES (:key, :value)"
        );
        assert_eq!(
            insert("manifest", true),
            "INSERT OR IGNORE INTO manifest (key, value) VALUES (:key, :value)"
        );
        assert_eq!(insert("nothing", false), "");
        assert!(columns("nothing").is_empty());
        let why = LeftOut::new("disabled", "toggled off for this client");
        assert_eq!(why.stored(), "disabled: toggled off for this client");
        assert_eq!(LeftOut::parse(&why.stored()), why);
        // Without a code of lowercase letters, the whole text is words.
        for text in ["Tier: fast", ": words", "no code", "a1: b"] {
            assert_eq!(LeftOut::parse(text), LeftOut::new("", text), "{text}");
        }
    }
}
