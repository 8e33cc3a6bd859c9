//! Routing's words (docs/routing.md, "What is indexed"): a text lowercased, split at every
//! character that is not a letter or a digit, stopwords and lone Latin letters out, stemmed,
//! runs of scripts written without spaces as pairs of characters. The index and a message are
//! made into words alike, by an artifact's rules ([`RoutingRules::tokens`]).

use super::RoutingRules;

/// Words too common to tell skills apart. English: the Snowball project's English stop list
/// (its words without an apostrophe, which the split has cut already) and `can`, `us`, `will`;
/// French: a short list of the sample's. A long request's story words (`through`, `after`,
/// `each`) had matched the bodies of skills they say nothing about (docs/routing.md).
// One language a block (rustfmt would write a word a line).
#[rustfmt::skip]
pub const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
    "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
    "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him",
    "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "me", "more",
    "most", "my", "myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other",
    "ought", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so",
    "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "very",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yours", "yourself", "yourselves",
    "au", "aux", "ce", "ces", "dans", "de", "des", "du", "en", "est", "et", "il", "je", "la", "le",
    "les", "mes", "mon", "ne", "nous", "ou", "par", "pas", "pour", "que", "qui", "sur", "un", "une",
    "vous", "votre", "vos",
];

/// A word's indexed form: a final `s` dropped from words of four letters or more (`prices`
/// and `price` meet), except after `s`, `u` or `i` (`class`, `status`, `analysis`); then, for
/// a word of Latin letters, one suffix of [`SUFFIXES`] (`deploying`, `deployment` and
/// `deployed` meet at `deploy`).
fn stem(word: &str, suffixes: &[String]) -> String {
    // Of four characters or more: counted only for a word that ends in `s`.
    let word = match word.strip_suffix('s') {
        Some(rest) if !rest.ends_with(['s', 'u', 'i']) && word.chars().nth(3).is_some() => rest,
        _ => word,
    };
    suffix_stem(word, suffixes)
}

/// English suffixes a word of five ASCII letters or more loses, the first that ends it and
/// leaves a stem of three letters or more with a vowel (`y` counts); `ied`, `ies` and `ie`
/// become `y`; a doubled final consonant other than `l`, `s` or `z` is then undoubled (`running`,
/// `run`). A plural of `y` has lost its `s` first and ends in `ie`: `queries`, `queried` and
/// `query` meet at `query`, `activities` and `activity` at `activ` (by `itie`), `cookies` and
/// `cookie` at `cooky`. A short list written for routing, the same in every runtime (docs/routing.md):
/// on the labelled sets at scale it lifted recall@5 by 0.015 and 0.004 and cut false fire.
pub const SUFFIXES: &[&str] = &[
    "izations", "ization", "ations", "ation", "ements", "ement", "ments", "ment", "ings", "ing",
    "ied", "ies", "ed", "ers", "er", "ness", "ities", "ity", "ives", "ive", "ions", "ion", "able",
    "ibly", "ably", "ful", "itie", "ie", "e",
];

fn suffix_stem(word: &str, suffixes: &[String]) -> String {
    if word.len() < 5 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    // Its last byte first: most suffixes end otherwise, and a byte is a cheaper comparison than
    // a suffix's (a build stems every word of every body).
    let last = word.as_bytes().last();
    let ends =
        |s: &&String| s.is_empty() || (s.as_bytes().last() == last && word.ends_with(s.as_str()));
    let Some(suffix) = suffixes.iter().find(ends) else {
        return word.to_string();
    };
    let rest = &word[..word.len() - suffix.len()];
    let vowel = |b: u8| b"aeiouy".contains(&b);
    if rest.len() < 3 || !rest.bytes().any(vowel) {
        return word.to_string();
    }
    let mut stem = rest.to_string();
    if suffix == "ied" || suffix == "ies" || suffix == "ie" {
        stem.push('y');
    }
    let b = stem.as_bytes();
    let (last, before) = (b[b.len() - 1], b[b.len() - 2]);
    if stem.len() > 3 && last == before && !vowel(last) && !b"lsz".contains(&last) {
        stem.pop();
    }
    stem
}

/// The words of a text as the index holds them: lowercased, split at every character that is
/// not a letter or a digit (so `pricing-uk` and `pricing_uk` are two words), stopwords and
/// lone Latin letters (the `t` of `can't`) out, stemmed. A run of a script written without
/// spaces (Chinese, Japanese kana, Thai, Lao, Khmer, Myanmar) becomes its overlapping pairs of
/// characters (`価格表` → `価格`, `格表`), a lone character itself: such a run is a whole
/// sentence, and pairs meet the same words in another sentence without a dictionary. By this
/// crate's rules (the build's); a route reads its artifact's ([`RoutingRules::tokens`]).
pub fn tokens(text: &str) -> Vec<String> {
    RoutingRules::built_in().tokens(text)
}

impl RoutingRules {
    /// A text's words as [`tokens`] gives them, by these rules' stopwords and suffixes.
    pub fn tokens(&self, text: &str) -> Vec<String> {
        let lone_letter = |w: &str| w.len() == 1 && w.bytes().all(|b| b.is_ascii_lowercase());
        let mut out = Vec::new();
        for word in text.to_lowercase().split(|c: char| !word_char(c)) {
            for (spaced, run) in script_runs(word) {
                if !spaced {
                    pairs(run, &mut out);
                } else if !lone_letter(run) && !self.is_stopword(run) {
                    out.push(stem(run, &self.suffixes));
                }
            }
        }
        out
    }

    /// The words two neighbouring words of a text make written together, where the two are of
    /// spaced scripts, of two characters or more each, and together make one word
    /// ([`RoutingRules::tokens`]): `google tasks` gives `googletask`, `hacker news`
    /// `hackernew`, `to do` `todo`. A route weighs those its index holds beside the words
    /// themselves: tools are often named glued (`googletasks`, `metaads`) and asked for apart.
    pub fn joined(&self, text: &str) -> Vec<String> {
        let lower = text.to_lowercase();
        let joinable = |w: &&str| w.chars().count() >= 2 && !w.chars().any(unspaced);
        let words: Vec<&str> = lower
            .split(|c: char| !word_char(c))
            .filter(|w| !w.is_empty())
            .collect();
        let mut out = Vec::new();
        for pair in words.windows(2) {
            if pair.iter().all(joinable) {
                if let [one] = self.tokens(&pair.concat()).as_slice() {
                    out.push(one.clone());
                }
            }
        }
        out
    }
}

/// Code points of the scripts written without spaces between words (inclusive ranges): Thai
/// and Lao, Myanmar, Khmer, kana, CJK ideographs (with their extensions and compatibility
/// forms) and halfwidth katakana. Every runtime holds this same list.
pub const UNSPACED: &[(u32, u32)] = &[
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1780, 0x17FF),
    (0x3040, 0x30FF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF66, 0xFF9F),
    (0x20000, 0x323AF),
];

/// `lower` with each run of word characters ([`word_char`]) given to `word`, which writes what
/// stands for it; what lies between the runs is copied as it is.
pub(crate) fn each_word(lower: &str, mut word: impl FnMut(&str, &mut String)) -> String {
    let mut out = String::with_capacity(lower.len() + 16);
    let mut rest = lower;
    while let Some(start) = rest.find(word_char) {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(|c: char| !word_char(c)).unwrap_or(rest.len());
        word(&rest[..end], &mut out);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A character a word holds: a letter or a digit (`char::is_alphanumeric`), any character of
/// an unspaced script (Thai tone marks are neither, and would split a sentence), or a mark
/// ([`mark`]: the virama of `अलार्म` would split it in two).
pub fn word_char(c: char) -> bool {
    c.is_alphanumeric() || unspaced(c) || mark(c)
}

/// A mark that belongs to the letter before it (General_Category Mn or Mc): a virama, a
/// nukta, a vowel sign, a combining accent; as Unicode's word boundaries (UAX #29) keep them
/// inside a word. Not the variation selectors, which choose how an emoji or a Mongolian letter
/// is drawn (`❤️` is a heart and U+FE0F): an emoji is no word, with or without one.
pub fn mark(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory};
    !c.is_ascii()
        && !matches!(u32::from(c), 0x180B..=0x180D | 0x180F | 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
        && matches!(
            get_general_category(c),
            GeneralCategory::NonspacingMark | GeneralCategory::SpacingMark
        )
}

fn unspaced(c: char) -> bool {
    let c = u32::from(c);
    UNSPACED.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// A word's maximal runs of spaced and of unspaced characters, in order, each with whether it
/// is spaced.
pub fn script_runs(word: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = word;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let spaced = !unspaced(first);
        let end = rest
            .char_indices()
            .find(|&(_, c)| unspaced(c) == spaced)
            .map_or(rest.len(), |(i, _)| i);
        let (run, next) = rest.split_at(end);
        rest = next;
        Some((spaced, run))
    })
}

/// The overlapping pairs of characters of a run (a lone character: itself).
fn pairs(run: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() == 1 {
        out.push(run.to_string());
    }
    out.extend(chars.windows(2).map(|w| w.iter().collect::<String>()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each run of word characters is given once, never an empty one (a text that ends
    /// between words); what lies between the runs is kept as written.
    #[test]
    fn each_word_gives_every_run_once_and_keeps_what_lies_between() {
        let mut runs = Vec::new();
        let out = each_word("  hi, wörld 42!? ", |run, out| {
            runs.push(run.to_string());
            out.push_str(&run.to_uppercase());
        });
        assert_eq!(runs, ["hi", "wörld", "42"]);
        assert_eq!(out, "  HI, WÖRLD 42!? ");
        assert_eq!(each_word("", |_, _| unreachable!()), "");
        assert_eq!(each_word(" ?! ", |_, _| unreachable!()), " ?! ");
    }

    /// Scripts written without spaces: each run becomes its pairs of characters, a lone one
    /// itself, beside the spaced words of the same text (the other runtimes assert the same).
    #[test]
    fn runs_of_unspaced_scripts_become_pairs_of_characters() {
        assert_eq!(tokens("価格表"), ["価格", "格表"]);
        assert_eq!(
            tokens("PDFの変換 と Prices"),
            ["pdf", "の変", "変換", "と", "pric"]
        );
        assert_eq!(
            tokens("ราคาแพ็กเกจ"),
            [
                "รา",
                "าค",
                "คา",
                "าแ",
                "แพ",
                "พ\u{e47}",
                "\u{e47}ก",
                "กเ",
                "เก",
                "กจ"
            ]
        );
        assert_eq!(tokens("テスト駆動"), ["テス", "スト", "ト駆", "駆動"]);
        assert_eq!(tokens("𠀋𠀌 x"), ["𠀋𠀌"]);
    }

    #[test]
    fn words_are_lowercased_split_stopped_and_stemmed() {
        assert_eq!(
            tokens("How much are the Prices of pricing-uk?"),
            ["much", "pric", "pric", "uk"]
        );
        assert_eq!(
            tokens("class status analysis bus"),
            ["class", "status", "analysis", "bus"]
        );
        assert_eq!(tokens("Quels sont vos tarifs ?"), ["quel", "sont", "tarif"]);
        // Snowball's English stop list: a story's words are no evidence of a skill.
        assert_eq!(
            tokens("after that, walk me through each step again before the other"),
            ["walk", "step"]
        );
        assert!(tokens("").is_empty() && tokens("\u{0}\u{7}!!").is_empty());
        // English suffixes, for words of ASCII letters only (the other runtimes assert it too):
        // a stem keeps three letters and a vowel, `ied` becomes `y`.
        assert_eq!(
            tokens("going tuned studied ipv6ing größer added planning"),
            ["going", "tun", "study", "ipv6ing", "größer", "add", "plan"]
        );
        // A plural of `y` meets its word; an artifact's list without `ie` keeps them apart.
        let plurals = "queries queried query activities activity cookies cookie";
        assert_eq!(
            tokens(plurals),
            ["query", "query", "query", "activ", "activ", "cooky", "cooky"]
        );
        let mut before = RoutingRules::built_in().clone();
        before.suffixes.retain(|s| s != "itie" && s != "ie");
        assert_eq!(
            before.tokens(plurals),
            ["queri", "query", "query", "activiti", "activ", "cooki", "cooki"]
        );
        assert_eq!(
            tokens("Deploying deployed deployments running called carefully mp3ing café"),
            [
                "deploy",
                "deploy",
                "deploy",
                "run",
                "call",
                "carefully",
                "mp3ing",
                "café"
            ]
        );
    }

    /// The reference for the other runtimes' words: each of them asserts these same cases
    /// (the Python runtime once split `दुनिया` at its vowel signs, Java decided the final sigma
    /// by word boundaries).
    #[test]
    fn words_of_every_script_are_the_reference_of_the_other_runtimes() {
        assert_eq!(tokens("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"]);
        assert_eq!(tokens("ΑΣ..Β ΟΔΟΣ"), ["ασ", "β", "οδος"]);
        assert_eq!(
            tokens("x\u{363}y ⓐⓑ ½ ١٢٣ 👩\u{200d}💻 ❤\u{fe0f}"),
            ["x\u{363}y", "ⓐⓑ", "½", "١٢٣"]
        );
        assert_eq!(
            tokens("café e\u{301}te İstanbul"),
            ["café", "e\u{301}te", "i\u{307}stanbul"]
        );
    }

    #[test]
    fn neighbouring_words_join_where_they_make_one_word() {
        let rules = RoutingRules::built_in();
        assert_eq!(
            rules.joined("Add it to my Google Tasks, or the to-do list"),
            [
                "addit",
                "itto",
                "tomy",
                "mygoogl",
                "googletask",
                "tasksor",
                "orth",
                "theto",
                "todo",
                "dolist"
            ]
            .map(String::from)
        );
        // A lone letter, an unspaced script or a pair that makes a stopword joins nothing.
        assert_eq!(rules.joined("a b c"), Vec::<String>::new());
        assert_eq!(rules.joined("pdf 変換 ok"), Vec::<String>::new());
        assert_eq!(rules.joined("in to"), Vec::<String>::new());
    }
}
