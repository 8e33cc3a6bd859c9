//! The built-in meaning model (docs/routing.md, "Meaning"): its table, part of the compiler's
//! own bytes, the small talk a route holds messages against, and the texts of a skill it gives
//! vectors to. The build writes the table and the vectors into the artifact
//! (`pipeline::embed`); `check` routes trigger examples with them as the runtimes will (W119).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use skillc_runtime::route::{talk_pairs, Meaning, TalkWeights, TALK_WORDS_ENDS};
#[cfg(test)]
use skillc_runtime::route::{tokens, GLOSSARY_MAX_CHARS};

/// The built-in meaning model's name.
pub(crate) const BUILT_IN_MODEL: &str = "static-minilm-v1";
/// Its table, as `tests/quality/scale/study/ship.py` wrote it.
pub(crate) const BUILT_IN_TABLE: &[u8] = include_bytes!("../meaning/static-minilm-v1.bin");
/// The length of its vectors.
pub(crate) const BUILT_IN_DIMS: usize = 256;
/// Messages that need no skill (greetings, thanks, chit-chat, sums), one a line: a route
/// holds a message against their vectors (`docs/routing.md`, "Small talk"). Written for the
/// project without reading the labelled sets they are measured on (`compiler/meaning/README.md`).
const SMALL_TALK: &str = include_str!("../meaning/small-talk.txt");
/// More messages that need no skill, and messages that ask for something a skill would do
/// (`compiler/meaning/README.md`): with [`SMALL_TALK`], what the build learns each piece's
/// lean towards small talk from ([`talk_words`]).
const MORE_SMALL_TALK: &str = include_str!("../meaning/small-talk-words.txt");
const REQUESTS: &str = include_str!("../meaning/requests.txt");
/// Words of sixteen languages with their English meaning, a file a language, in the order of
/// their codes (`compiler/meaning/glossary/`, written for the project: its README says how):
/// what [`glossary`] makes the artifact's glossary of.
#[cfg(test)]
const GLOSSARIES: &[(&str, &str)] = &[
    ("ar", include_str!("../meaning/glossary/ar.tsv")),
    ("de", include_str!("../meaning/glossary/de.tsv")),
    ("es", include_str!("../meaning/glossary/es.tsv")),
    ("fr", include_str!("../meaning/glossary/fr.tsv")),
    ("hi", include_str!("../meaning/glossary/hi.tsv")),
    ("it", include_str!("../meaning/glossary/it.tsv")),
    ("ja", include_str!("../meaning/glossary/ja.tsv")),
    ("ko", include_str!("../meaning/glossary/ko.tsv")),
    ("nl", include_str!("../meaning/glossary/nl.tsv")),
    ("pl", include_str!("../meaning/glossary/pl.tsv")),
    ("pt", include_str!("../meaning/glossary/pt.tsv")),
    ("ru", include_str!("../meaning/glossary/ru.tsv")),
    ("sv", include_str!("../meaning/glossary/sv.tsv")),
    ("th", include_str!("../meaning/glossary/th.tsv")),
    ("tr", include_str!("../meaning/glossary/tr.tsv")),
    ("zh", include_str!("../meaning/glossary/zh.tsv")),
];

/// Words of the glossaries that English skills use as words of their own (`todo`, `vue`,
/// `schemas`): in three or more Markdown files of two or more of five English skill collections
/// (`compiler/meaning/glossary/skill_words.py` writes the list). The glossary leaves them out.
#[cfg(test)]
const ENGLISH_IN_SKILLS: &str = include_str!("../meaning/glossary/english-in-skills.txt");

/// `routing.embedding_model: none`: route by words only.
pub(crate) const NO_MODEL: &str = "none";

/// The built-in meaning table, parsed from the compiler's own bytes once: a constant of the
/// program (like a compiled rule), the same whoever asks, so it holds no session's memory.
pub(crate) fn built_in() -> Arc<Meaning> {
    static TABLE: OnceLock<Arc<Meaning>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            Arc::new(Meaning::parse(BUILT_IN_TABLE.to_vec()).expect("the built-in table parses"))
        })
        .clone()
}

/// The workspace's own embedding model, else the built-in one; `None` with
/// `embedding_model: none` (words only).
pub(crate) fn embedding_model(routing: Option<&serde_json::Value>) -> Option<&str> {
    let declared = routing
        .and_then(|r| r.get("embedding_model"))
        .and_then(|m| m.as_str());
    match declared {
        Some(NO_MODEL) => None,
        Some(model) => Some(model),
        None => Some(BUILT_IN_MODEL),
    }
}

/// The vectors of [`SMALL_TALK`]'s messages by `table`, in order (a message with no known
/// piece, all zeros, left out).
pub(crate) fn small_talk(table: &Meaning) -> Vec<Vec<f32>> {
    (SMALL_TALK.lines())
        .map(|line| table.vector(line.trim()))
        .filter(|v| v.iter().any(|&x| x != 0.0))
        .collect()
}

/// [`talk_words`] of the built-in table, learnt once: like the table, a constant of the
/// program (the lists are part of it), the same whoever asks. A check that routes by meaning
/// asks on every pass; learning takes about 6 ms.
pub(crate) fn built_in_talk_words() -> Arc<TalkWeights> {
    static WEIGHTS: OnceLock<Arc<TalkWeights>> = OnceLock::new();
    WEIGHTS
        .get_or_init(|| Arc::new(talk_words(&built_in())))
        .clone()
}

/// How each piece of `table`, and each pair of neighbouring pieces, leans towards small talk
/// rather than a request, in thousandths: the log-odds of a naive Bayes model of which list a
/// message comes from, by the pieces and pairs it holds (each counted once a message, add-one
/// smoothing): small talk ([`SMALL_TALK`] and [`MORE_SMALL_TALK`]) against requests
/// ([`REQUESTS`]). A piece neither list holds weighs 0; a pair neither holds is left out.
/// Pairs read the order the pieces alone cannot ("can you" against "you can", "help me"
/// against "me with"), and a message's pairs with the edge
/// ([`EDGE`](skillc_runtime::route::EDGE)) how it opens and ends ("how …", "… please" against
/// "thanks …", "… right"), as runtimes read them ([`TALK_WORDS_ENDS`]). `docs/routing.md`,
/// "Small talk".
pub(crate) fn talk_words(table: &Meaning) -> TalkWeights {
    // The built-in table is shorter than the edge's row (a test says so).
    let ends = TALK_WORDS_ENDS;
    let counted = |lists: &[&str]| {
        let mut counts = vec![0u32; table.len()];
        let mut pairs: BTreeMap<u32, u32> = BTreeMap::new();
        let mut messages = 0u32;
        for line in lists.iter().flat_map(|l| l.lines()).map(str::trim) {
            if line.is_empty() {
                continue;
            }
            messages += 1;
            let pieces = table.pieces(line);
            for k in talk_pairs(&pieces, ends) {
                *pairs.entry(k).or_default() += 1;
            }
            let mut distinct = pieces;
            distinct.sort_unstable();
            distinct.dedup();
            for p in distinct {
                counts[p as usize] += 1;
            }
        }
        (counts, pairs, f64::from(messages))
    };
    let (talk, talk_pairs, talks) = counted(&[SMALL_TALK, MORE_SMALL_TALK]);
    let (asks, ask_pairs, requests) = counted(&[REQUESTS]);
    let lean = |t: u32, a: u32| {
        let lean = ((f64::from(t) + 1.0) / (talks + 2.0)).ln()
            - ((f64::from(a) + 1.0) / (requests + 2.0)).ln();
        (lean * 1000.0).round().clamp(-32768.0, 32767.0) as i16
    };
    let pieces = (talk.iter().zip(&asks))
        .map(|(&t, &a)| if t == 0 && a == 0 { 0 } else { lean(t, a) })
        .collect();
    let mut keys: Vec<u32> = talk_pairs.keys().chain(ask_pairs.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let count = |of: &BTreeMap<u32, u32>, k: u32| of.get(&k).copied().unwrap_or(0);
    let pairs = (keys.into_iter())
        .map(|k| (k, lean(count(&talk_pairs, k), count(&ask_pairs, k))))
        .collect();
    TalkWeights {
        pieces,
        pairs: Some(pairs),
    }
}

/// The text of a card's summary vector: its name (split on `-` and `_`), its description and
/// its `when_to_use` lines.
pub(crate) fn summary(name: &str, description: &str, when_to_use: &[String]) -> String {
    let mut text = format!("{}: {description}", name.replace(['-', '_'], " "));
    for line in when_to_use {
        text.push('\n');
        text.push_str(line);
    }
    text
}

/// How much of a skill's body its summary's vector takes in: the body's words' vector at this
/// share of the summary's length (docs/routing.md, "A skill's body in its meaning"). 0.25, 0.4
/// and 0.6 were measured on the sets at scale; 0.4 is the middle of a flat stretch.
pub(crate) const BODY_SHARE: f64 = 0.4;

/// A card's summary vector (`summary`, whole numbers as the table makes them) with its body's
/// distinct words (`body_words`, as `route::prose_text_words` gives them) mixed in: each
/// vector over its length, the body's times [`BODY_SHARE`], summed, then in whole numbers as
/// the table's vectors are (the largest magnitude 127, rounded half up). None when the table
/// holds no piece of the body.
pub(crate) fn with_body(table: &Meaning, summary: &[f32], body_words: &str) -> Option<Vec<f32>> {
    let body = table.vector_of_words(body_words);
    let length = |v: &[f32]| {
        v.iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt()
    };
    let body_length = length(&body);
    if body_length == 0.0 || summary.len() != body.len() {
        return None;
    }
    let summary_length = length(summary);
    let own = |x: f32| match summary_length {
        0.0 => 0.0,
        n => f64::from(x) / n,
    };
    let mixed: Vec<f64> = (summary.iter().zip(&body))
        .map(|(&s, &b)| own(s) + BODY_SHARE * f64::from(b) / body_length)
        .collect();
    let largest = mixed.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    Some(
        (mixed.iter())
            .map(|x| (x / largest * 127.0 + 0.5).floor() as f32)
            .collect(),
    )
}

/// The glossary the build writes beside `table` (docs/routing.md, "Words of other languages"): lines
/// of a word, a tab and its English gloss, sorted by the word's bytes. Decided here, once, so
/// that a route only looks words up:
/// - words and glosses lowercased, a gloss's spaces collapsed; the first language's gloss of a
///   word several hold (in the order of [`GLOSSARIES`]);
/// - a gloss of words a route leaves out only (English stopwords: `nicht` → `not`, `什么` →
///   `what`; or `-`, the lists' mark of a particle with no English word) is written empty:
///   the word is read and left out of the message, as its gloss would be of an English one;
/// - left out: a word that is not one run of word characters of one kind of script (a route
///   could never meet it), a word of a script written without spaces longer than
///   [`GLOSSARY_MAX_CHARS`] or of one character (a lone ideograph or kana means too many
///   things, and a Japanese gloss would be read in Chinese: `会`, "meeting" in `会不会`), a
///   word its own gloss, and a word of a spaced script that the table holds whole, its accents
///   folded (`gift`, `chat`, `main`: a word of the model's English vocabulary, whatever it
///   means in German or French), and a word English skills use as a word of their own
///   ([`ENGLISH_IN_SKILLS`]: `todo`, `vue`, `schemas`, `lua`, not Spanish "all", French "view",
///   Portuguese "diagrams" and "moon"). The lists themselves were checked against English word
///   frequencies (`compiler/meaning/glossary/curate.py`).
#[cfg(test)]
fn glossary(table: &Meaning) -> String {
    let english: std::collections::BTreeSet<&str> = (ENGLISH_IN_SKILLS.lines())
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split('\t').next())
        .collect();
    let mut words: BTreeMap<String, String> = BTreeMap::new();
    for (_, file) in GLOSSARIES {
        for line in file.lines().filter(|l| !l.starts_with('#')) {
            let Some((word, gloss)) = line.split_once('\t') else {
                continue;
            };
            let word = word.trim().to_lowercase();
            let gloss = gloss
                .to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if glossable(table, &word, &gloss) && !english.contains(word.as_str()) {
                let read = if tokens(&gloss).is_empty() {
                    ""
                } else {
                    &gloss
                };
                words.entry(word).or_insert_with(|| read.to_string());
            }
        }
    }
    words.iter().map(|(w, g)| format!("{w}\t{g}\n")).collect()
}

/// Whether a route could meet `word` and should read it as `gloss` ([`glossary`]).
#[cfg(test)]
fn glossable(table: &Meaning, word: &str, gloss: &str) -> bool {
    let mut runs = skillc_runtime::route::script_runs(word);
    let (Some((spaced, run)), None) = (runs.next(), runs.next()) else {
        return false;
    };
    let whole = run.len() == word.len() && word.chars().all(skillc_runtime::route::word_char);
    whole
        && !gloss.is_empty()
        && word != gloss
        && if spaced {
            !table.holds_whole(word)
        } else {
            (2..=GLOSSARY_MAX_CHARS).contains(&word.chars().count())
        }
}

/// [`glossary`] of the built-in table, kept as made (`compiler/meaning/glossary-built.tsv`):
/// making it from the lists takes 0.15–0.25 s, which every build and every check would pay
/// (a check of ten skills took 0.35 s instead of 0.12). A test asserts that it is what the
/// lists make; `SKILLC_BLESS=1 cargo test -p skillc-compiler --lib meaning` writes it again.
const BUILT_GLOSSARY: &str = include_str!("../meaning/glossary-built.tsv");

/// [`BUILT_GLOSSARY`], shared: a constant of the program.
pub(crate) fn built_in_glossary() -> Arc<String> {
    static GLOSSARY: OnceLock<Arc<String>> = OnceLock::new();
    GLOSSARY
        .get_or_init(|| Arc::new(BUILT_GLOSSARY.to_string()))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillc_runtime::route::{pair_key, EDGE};

    /// The glossary kept in the compiler is what the lists make of the built-in table.
    #[test]
    fn the_kept_glossary_is_what_the_lists_make() {
        let made = glossary(&built_in());
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/meaning/glossary-built.tsv");
        if std::env::var_os("SKILLC_BLESS").is_some() {
            std::fs::write(path, &made).unwrap();
            return;
        }
        assert!(
            made == BUILT_GLOSSARY,
            "{path} is not what the lists make: `SKILLC_BLESS=1 cargo test -p skillc-compiler \
             --lib meaning` writes it again"
        );
    }

    /// The glossary as the build writes it: sorted, each word once, words a route can meet and
    /// no word of the model's own vocabulary; a word of the lists found, one the table holds
    /// whole left out.
    #[test]
    fn the_glossary_holds_words_a_route_meets_in_order_and_none_of_the_models_own() {
        let table = built_in();
        let text = glossary(&table);
        let lines: Vec<(&str, &str)> = text.lines().map(|l| l.split_once('\t').unwrap()).collect();
        assert!(lines.len() > 50_000, "{}", lines.len());
        assert!(lines.windows(2).all(|w| w[0].0 < w[1].0));
        // An empty gloss is a word whose gloss held stopwords only: read and left out.
        for (word, gloss) in &lines {
            let read = if gloss.is_empty() { "and" } else { gloss };
            assert!(glossable(&table, word, read), "{word}");
            assert!(gloss.is_empty() || !tokens(gloss).is_empty(), "{word}");
        }
        let found = |w: &str| lines.iter().find(|(word, _)| *word == w).map(|(_, g)| *g);
        assert_eq!(found("factura"), Some("invoice"));
        assert_eq!(found("天气预报"), Some("weather forecast"));
        assert_eq!((found("nicht"), found("什么")), (Some(""), Some("")));
        // One character of a script written without spaces: `会` is "meeting" in Japanese.
        assert_eq!((found("会"), found("会議")), (None, Some("meeting")));
        assert!(table.holds_whole("musik") && found("musik").is_none());
        // What a route could never meet, or would meet as the model's own word.
        assert!(!glossable(&table, "e-mail", "email") && !glossable(&table, "pdfの", "pdf"));
        assert!(!glossable(&table, "chat", "cat") && !glossable(&table, "pdf", "pdf"));
        assert!(!glossable(&table, "一二三四五六七八九", "nine"));
        // Words English skills use as their own stay as written.
        for word in ["todo", "vue", "schemas", "lua", "llama", "vars", "iban"] {
            assert!(ENGLISH_IN_SKILLS.contains(&format!("\n{word}\t")), "{word}");
            assert_eq!(found(word), None, "{word}");
        }
        assert_eq!(found("morgen"), Some("tomorrow"));
    }

    /// The lean's weights, checked against the lists counted here apart: a piece's or a pair's
    /// weight is add-one log-odds of the messages holding it (each message once, however often
    /// it repeats it), small talk against requests; what docs/routing.md says of order holds.
    #[test]
    fn the_leans_weights_are_the_log_odds_of_the_messages_holding_each_piece_and_pair() {
        let table = built_in();
        let weights = talk_words(&table);
        let messages = |lists: &[&str]| -> Vec<Vec<u32>> {
            (lists.iter().flat_map(|l| l.lines()).map(str::trim))
                .filter(|l| !l.is_empty())
                .map(|l| table.pieces(l))
                .collect()
        };
        let talk = messages(&[SMALL_TALK, MORE_SMALL_TALK]);
        let asks = messages(&[REQUESTS]);
        let holding = |of: &[Vec<u32>], wanted: &[u32]| {
            let n = wanted.len();
            of.iter()
                .filter(|m| m.windows(n).any(|w| w == wanted))
                .count() as f64
        };
        // Add-one log-odds, in thousandths, of `t` small-talk messages against `a` requests.
        let log_odds = |t: f64, a: f64| {
            let t = (t + 1.0) / (talk.len() as f64 + 2.0);
            let a = (a + 1.0) / (asks.len() as f64 + 2.0);
            ((t.ln() - a.ln()) * 1000.0).round() as i16
        };
        let expected = |wanted: &[u32]| log_odds(holding(&talk, wanted), holding(&asks, wanted));
        let id = |piece: &str| table.pieces(piece)[0];
        let pairs = weights.pairs.as_deref().unwrap();
        let pair = |a: &str, b: &str| {
            let key = pair_key(id(a), id(b)).unwrap();
            pairs
                .binary_search_by_key(&key, |p| p.0)
                .map(|i| pairs[i].1)
                .ok()
        };
        // "the" and "of the" are often said twice in one message: counted once.
        for piece in ["the", "can", "help", "thanks", "lol", "convert"] {
            assert_eq!(
                weights.pieces[id(piece) as usize],
                expected(&[id(piece)]),
                "{piece}"
            );
        }
        for (a, b) in [
            ("of", "the"),
            ("can", "you"),
            ("help", "me"),
            ("me", "with"),
            ("kinds", "of"),
        ] {
            assert_eq!(pair(a, b), Some(expected(&[id(a), id(b)])), "{a} {b}");
        }
        // A pair some message says twice, counted once there too.
        let twice = (talk.iter().chain(&asks))
            .find_map(|m| {
                let pairs: Vec<&[u32]> = m.windows(2).collect();
                (pairs.iter().enumerate())
                    .find(|(i, p)| pairs[i + 1..].contains(p))
                    .map(|(_, p)| p.to_vec())
            })
            .unwrap();
        let key = pair_key(twice[0], twice[1]).unwrap();
        let at = pairs.binary_search_by_key(&key, |p| p.0).unwrap();
        assert_eq!(pairs[at].1, expected(&twice));
        assert!(pair("can", "you").unwrap() < 0 && pair("help", "me").unwrap() < 0);
        assert!(pair("me", "with").unwrap() > 0 && pair("kinds", "of").unwrap() > 0);
        // A piece neither list holds weighs 0.
        let said: std::collections::BTreeSet<u32> =
            talk.iter().chain(&asks).flatten().copied().collect();
        let unheld = (0..table.len() as u32)
            .rev()
            .find(|p| !said.contains(p))
            .unwrap();
        assert_eq!(weights.pieces[unheld as usize], 0);
        assert!(weights.pieces[id("thanks") as usize] != 0);
        assert_eq!(weights.pieces.len(), table.len());
        assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0));
        // How a message opens and ends: its first piece after the edge, its last before it,
        // counted over the messages that open or end so.
        assert!(TALK_WORDS_ENDS && table.len() < EDGE as usize);
        // How many messages of `of` open (`opens`) or end with piece `p`.
        let at_edge = |of: &[Vec<u32>], p: u32, opens: bool| {
            (of.iter())
                .filter(|m| Some(&p) == if opens { m.first() } else { m.last() })
                .count() as f64
        };
        let edge = |key: u32| {
            pairs
                .binary_search_by_key(&key, |p| p.0)
                .map(|i| pairs[i].1)
        };
        let openings = ["how", "we", "can", "my"].map(|w| (w, true));
        let endings = ["please", "thanks", "today"].map(|w| (w, false));
        for (piece, opens) in openings.into_iter().chain(endings) {
            let p = id(piece);
            let key = if opens {
                pair_key(EDGE, p)
            } else {
                pair_key(p, EDGE)
            };
            let weight = log_odds(at_edge(&talk, p, opens), at_edge(&asks, p, opens));
            assert_eq!(edge(key.unwrap()), Ok(weight), "{piece}, opening: {opens}");
        }
        assert!(edge(pair_key(EDGE, id("how")).unwrap()).unwrap() < 0);
        assert!(edge(pair_key(id("thanks"), EDGE).unwrap()).unwrap() > 0);
        let held: usize = [&talk, &asks]
            .iter()
            .flat_map(|l| l.iter())
            .map(|m| m.len())
            .sum();
        assert!(
            pairs.len() > 20_000 && pairs.len() < held,
            "{}",
            pairs.len()
        );
    }

    fn cosine(a: &[f32], b: &[f32]) -> f64 {
        let dot: f64 = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| f64::from(x) * f64::from(y))
            .sum();
        let len = |v: &[f32]| v.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
        dot / (len(a) * len(b))
    }

    #[test]
    fn a_summary_takes_in_its_body_at_a_share_in_whole_numbers() {
        let table = built_in();
        let summary = table.vector("pricing: quote the plans and their prices");
        let words = "annual discount invoice monthly seats vat";
        let body = table.vector_of_words(words);
        let mixed = with_body(&table, &summary, words).expect("the body has pieces");
        assert!(mixed.iter().all(|&x| x.fract() == 0.0 && x.abs() <= 127.0));
        assert_eq!(mixed.iter().fold(0.0f32, |m, x| m.max(x.abs())), 127.0);
        // Nearer each of the two than they are to each other, and nearer the summary (the
        // body weighs 0.4 of it).
        let (to_summary, to_body) = (cosine(&mixed, &summary), cosine(&mixed, &body));
        assert!(to_summary > cosine(&summary, &body), "{to_summary}");
        assert!(to_body > cosine(&summary, &body), "{to_body}");
        assert!(to_summary > to_body, "{to_summary} {to_body}");
        // A summary of no piece: the body alone, as the table makes its vector.
        let none = vec![0.0; BUILT_IN_DIMS];
        assert_eq!(with_body(&table, &none, words), Some(body));
        // A body of no piece the table holds: nothing to mix.
        assert_eq!(with_body(&table, &summary, ""), None);
        assert_eq!(with_body(&table, &summary, "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"), None);
    }
}
