//! Stage 0's cases, and the files that give its words and thresholds to the other runtimes:
//! when a list or a case changes, this fails until they are written again with
//! `SKILLC_WRITE_FRAGMENTS=1 cargo test -p skillc-runtime --lib history`.

use std::fmt::Write;

use super::*;

/// `how much does the basic plan cost?`, asked at 1000 s.
const ASKED: Turn<'static> = Turn {
    text: "how much does the basic plan cost?",
    time: 1000.0,
};

/// Each case: the message, its time, the earlier messages (text, time).
type Case = (&'static str, f64, &'static [(&'static str, f64)]);

/// The cases every runtime answers as this module does (compiler/runtime/fragment-cases.json).
const CASES: &[Case] = &[
    // The issue's case: a follow-up 10 s later joins; 5 minutes later, or a full sentence, not.
    (
        "and also for the pro plan",
        1010.0,
        &[(ASKED.text, ASKED.time)],
    ),
    (
        "and also for the pro plan",
        1300.0,
        &[(ASKED.text, ASKED.time)],
    ),
    (
        "What does the pro plan cost per month?",
        1010.0,
        &[(ASKED.text, ASKED.time)],
    ),
    ("and also for the pro plan", 1010.0, &[]),
    // One signal is not enough: a capitalised full sentence within the window.
    (
        "Can I get a refund on my invoice?",
        1005.0,
        &[("Hello.", 1000.0)],
    ),
    // Very short and within the window.
    ("The pro plan?", 1005.0, &[("I need a quote.", 1000.0)]),
    // Previous incomplete: no final mark, an ellipsis, a connector, a closing bracket.
    (
        "Then export it as a PDF",
        1030.0,
        &[("I need the annual report", 1000.0)],
    ),
    (
        "The quarterly report please",
        1030.0,
        &[("I need the...", 1000.0)],
    ),
    (
        "The quarterly report please",
        1030.0,
        &[("Compare you with.", 1000.0)],
    ),
    (
        "The quarterly report please",
        1030.0,
        &[("(see the invoice above.)", 1000.0)],
    ),
    (
        "The quarterly report please",
        1030.0,
        &[("Pricing…", 1000.0)],
    ),
    // A continuation of two words; French; a lowercase accented and a caseless first letter.
    (
        "What about the enterprise plan",
        1020.0,
        &[("How much is pro?", 1000.0)],
    ),
    (
        "et pour le plan pro ?",
        1020.0,
        &[("Quels sont vos tarifs ?", 1000.0)],
    ),
    (
        "Et ça coûte combien ?",
        1020.0,
        &[("Je veux le plan pro.", 1000.0)],
    ),
    (
        "énorme facture à payer aujourd'hui",
        1020.0,
        &[("Bonjour !", 1000.0)],
    ),
    ("ßtraße wird gesucht heute", 1020.0, &[("Hallo!", 1000.0)]),
    ("価格はいくらですか", 1020.0, &[("こんにちは。", 1000.0)]),
    ("42 seats for the team", 1020.0, &[("Quote me.", 1000.0)]),
    // A chain: each part a fragment of the one before, all within the window.
    (
        "and the invoices",
        1030.0,
        &[
            ("Hello there.", 900.0),
            ("I want to export", 1000.0),
            ("my reports", 1015.0),
        ],
    ),
    // At most MAX_CONTEXT earlier messages.
    (
        "and more",
        1050.0,
        &[
            ("one", 1000.0),
            ("two", 1010.0),
            ("three", 1020.0),
            ("four", 1030.0),
            ("five", 1040.0),
        ],
    ),
    // A gap inside the chain stops it.
    (
        "and this",
        1100.0,
        &[
            ("export", 900.0),
            ("my reports", 1000.0),
            ("as pdf", 1090.0),
        ],
    ),
    // No word: never joined. Spaces trimmed, empty parts left out.
    ("?!", 1005.0, &[("pricing", 1000.0)]),
    (
        "  also  ",
        1005.0,
        &[(" \t", 990.0), ("  pricing\n", 1000.0)],
    ),
    // A message older than the previous one (clocks apart) is within the window.
    ("and that", 990.0, &[("the pro plan", 1000.0)]),
];

fn turns(history: &[(&'static str, f64)]) -> Vec<Turn<'static>> {
    history
        .iter()
        .map(|&(text, time)| Turn { text, time })
        .collect()
}

#[test]
fn a_follow_up_joins_the_question_it_follows_within_60_seconds_only() {
    let joined = join_fragment("and also for the pro plan", 1010.0, &[ASKED]);
    assert_eq!(
        joined.as_deref(),
        Some("how much does the basic plan cost? and also for the pro plan")
    );
    assert_eq!(
        signals("and also for the pro plan", 1010.0, Some(&ASKED)),
        [
            "back_reference",
            "continuation",
            "lowercase_start",
            "within_window"
        ]
    );
    assert_eq!(
        join_fragment("and also for the pro plan", 1300.0, &[ASKED]),
        None
    );
    assert!(join_fragment("and also for the pro plan", 1060.0, &[ASKED]).is_some());
    assert_eq!(
        join_fragment("and also for the pro plan", 1060.5, &[ASKED]),
        None
    );
    let sentence = "What does the pro plan cost per month?";
    assert_eq!(signals(sentence, 1010.0, Some(&ASKED)), ["within_window"]);
    assert_eq!(join_fragment(sentence, 1010.0, &[ASKED]), None);
    assert_eq!(
        join_fragment("and also for the pro plan", 1010.0, &[]),
        None
    );
    // A chain of eight fragments: the last MAX_CONTEXT of them are joined, however long it is.
    let words = [
        "one", "two", "three", "four", "five", "six", "seven", "eight",
    ];
    let chain: Vec<Turn<'_>> = (words.iter().enumerate())
        .map(|(i, &text)| Turn {
            text,
            time: 1000.0 + 10.0 * i as f64,
        })
        .collect();
    assert_eq!(
        join_fragment("and more", 1080.0, &chain).as_deref(),
        Some("five six seven eight and more")
    );
}

#[test]
fn each_signal_holds_on_its_own_words() {
    let at = |text| Turn { text, time: 0.0 };
    assert_eq!(signals("The pro plan?", 500.0, None), ["very_short"]);
    assert_eq!(
        signals("Do those come in blue?", 500.0, None),
        ["back_reference"]
    );
    assert_eq!(
        signals("Plus the VAT, please", 500.0, None),
        ["continuation"]
    );
    assert_eq!(
        signals("How about the yearly one", 500.0, None),
        ["continuation"]
    );
    assert_eq!(
        signals("ébauche de la facture annuelle", 500.0, None),
        ["lowercase_start"]
    );
    assert_eq!(
        signals("42 seats for the team", 500.0, None),
        Vec::<&str>::new()
    );
    for unfinished in ["I need the", "Pricing for", "Wait...", "Hmm…", "no mark"] {
        assert_eq!(
            signals("Show me the invoices please", 500.0, Some(&at(unfinished))),
            ["previous_incomplete"],
            "{unfinished:?}"
        );
    }
    for finished in ["Done.", "Really?!", "Yes!) ", "(see above.)\n", "終わり。"] {
        let s = signals("Show me the invoices please", 500.0, Some(&at(finished)));
        assert!(s.is_empty(), "{finished:?}: {s:?}");
    }
    let close = Turn {
        text: "Done.",
        time: 440.0,
    };
    assert_eq!(
        signals("Show me the invoices please", 500.0, Some(&close)),
        ["within_window"]
    );
}

/// A literal that Python, TypeScript and Java all read as `s`: ASCII as is, `"` and `\`
/// escaped, control characters by their letter, the rest as `\uXXXX` (Java reads `\u` escapes
/// before anything else, so a quote or a newline never goes that way).
fn literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

fn list(words: &[&str]) -> String {
    let items: Vec<String> = words.iter().map(|w| literal(w)).collect();
    items.join(", ")
}

fn chars(cs: &[char]) -> String {
    literal(&cs.iter().collect::<String>())
}

const ABOUT: &str = "Words and thresholds of routing's stage 0 (docs/routing.md, \"Fragments\"), \
                     from compiler/runtime/src/route/history.rs; written by its tests, do not edit.";

fn python() -> String {
    format!(
        "# {ABOUT}\n\nSHORT_WORDS = {SHORT_WORDS}\nWINDOW_SECONDS = {WINDOW_SECONDS:?}\n\
         MIN_SIGNALS = {MIN_SIGNALS}\nMAX_CONTEXT = {MAX_CONTEXT}\nSIGNALS = ({},)\n\
         BACK_REFERENCES = frozenset(({},))\nCONTINUATIONS = frozenset(({},))\n\
         CONTINUATION_PAIRS = frozenset(({},))\nCONNECTORS = frozenset(({},))\n\
         FINAL_MARKS = {}\nCLOSERS = {}\nSPACES = {}\n",
        list(SIGNALS),
        list(BACK_REFERENCES),
        list(CONTINUATIONS),
        list(CONTINUATION_PAIRS),
        list(CONNECTORS),
        chars(FINAL_MARKS),
        chars(CLOSERS),
        chars(SPACES),
    )
}

fn typescript() -> String {
    format!(
        "// {ABOUT}\n\nexport const SHORT_WORDS = {SHORT_WORDS};\n\
         export const WINDOW_SECONDS = {WINDOW_SECONDS};\nexport const MIN_SIGNALS = {MIN_SIGNALS};\n\
         export const MAX_CONTEXT = {MAX_CONTEXT};\nexport const SIGNALS = [{}] as const;\n\
         export const BACK_REFERENCES: ReadonlySet<string> = new Set([{}]);\n\
         export const CONTINUATIONS: ReadonlySet<string> = new Set([{}]);\n\
         export const CONTINUATION_PAIRS: ReadonlySet<string> = new Set([{}]);\n\
         export const CONNECTORS: ReadonlySet<string> = new Set([{}]);\n\
         export const FINAL_MARKS = {};\nexport const CLOSERS = {};\nexport const SPACES = {};\n",
        list(SIGNALS),
        list(BACK_REFERENCES),
        list(CONTINUATIONS),
        list(CONTINUATION_PAIRS),
        list(CONNECTORS),
        chars(FINAL_MARKS),
        chars(CLOSERS),
        chars(SPACES),
    )
}

fn java() -> String {
    format!(
        "// {ABOUT}\npackage dev.skillc.runtime;\n\nimport java.util.List;\nimport java.util.Set;\n\n\
         /** Words and thresholds of stage 0: see the comment above. */\nfinal class FragmentWords {{\n    \
         static final int SHORT_WORDS = {SHORT_WORDS};\n    \
         static final double WINDOW_SECONDS = {WINDOW_SECONDS:?};\n    \
         static final int MIN_SIGNALS = {MIN_SIGNALS};\n    static final int MAX_CONTEXT = {MAX_CONTEXT};\n    \
         static final List<String> SIGNALS = List.of({});\n    \
         static final Set<String> BACK_REFERENCES = Set.of({});\n    \
         static final Set<String> CONTINUATIONS = Set.of({});\n    \
         static final Set<String> CONTINUATION_PAIRS = Set.of({});\n    \
         static final Set<String> CONNECTORS = Set.of({});\n    \
         static final String FINAL_MARKS = {};\n    static final String CLOSERS = {};\n    \
         static final String SPACES = {};\n\n    private FragmentWords() {{}}\n}}\n",
        list(SIGNALS),
        list(BACK_REFERENCES),
        list(CONTINUATIONS),
        list(CONTINUATION_PAIRS),
        list(CONNECTORS),
        chars(FINAL_MARKS),
        chars(CLOSERS),
        chars(SPACES),
    )
}

/// The cases with this module's answers, as JSON every runtime's tests read.
fn cases() -> String {
    let cases: Vec<serde_json::Value> = CASES
        .iter()
        .map(|&(message, time, history)| {
            let history = turns(history);
            serde_json::json!({
                "message": message,
                "time": time,
                "history": history.iter().map(|t| serde_json::json!({"text": t.text, "time": t.time})).collect::<Vec<_>>(),
                "signals": signals(message, time, history.last()),
                "routed_text": join_fragment(message, time, &history),
            })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({ "cases": cases })).unwrap() + "\n"
}

#[test]
fn the_runtimes_fragment_words_and_cases_are_rusts() {
    let write = std::env::var_os("SKILLC_WRITE_FRAGMENTS").is_some();
    let files = [
        ("fragment-cases.json", cases()),
        ("python/skillc_runtime/_fragment_words.py", python()),
        ("typescript/src/fragmentWords.ts", typescript()),
        (
            "java/src/main/java/dev/skillc/runtime/FragmentWords.java",
            java(),
        ),
    ];
    for (file, want) in files {
        let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
        if write {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{path} is not history.rs's: write it again with \
             SKILLC_WRITE_FRAGMENTS=1 cargo test -p skillc-runtime --lib history"
        );
    }
}
