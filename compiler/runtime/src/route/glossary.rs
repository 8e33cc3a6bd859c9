//! Requests in other languages (docs/routing.md, "Other languages"): the built-in meaning is
//! English, and so are most catalogs, so "fusionne ces fichiers pdf" or "帮我查一下明天会不会下雨"
//! share almost nothing with the skill that would do it. The build writes a glossary beside the
//! built-in table (`compiler/meaning/glossary/`: words of sixteen languages with their English
//! meaning); a route reads each word of the message that the glossary holds, and that the
//! catalog's index does not, as its English gloss, for its words and its meaning alike. Every
//! runtime glosses a message the same way.

use std::sync::Arc;

use super::words::script_runs;
use super::{word_char, RouteIndex, RoutingRules};
use crate::{Artifact, Error};

/// The longest word of a script written without spaces that a glossary holds, in characters:
/// a route tries no longer one.
pub const GLOSSARY_MAX_CHARS: usize = 8;

/// The name of the `meaning` row that holds model `model`'s glossary.
pub fn glossary_row(model: &str) -> String {
    format!("{model}:glossary")
}

/// A glossary as the artifact holds it: lines of a word, a tab and its English gloss, sorted
/// by the word's bytes, each word once.
#[derive(Debug, Clone, Default)]
pub struct Glossary {
    text: String,
    /// Each line's start, tab and end in `text`, in order.
    lines: Vec<(u32, u32, u32)>,
}

impl Glossary {
    /// A glossary from its row; `None` when a line has no tab or the words are out of order.
    pub fn parse(text: String) -> Option<Glossary> {
        let mut lines = Vec::new();
        let mut start = 0usize;
        for line in text.split_inclusive('\n') {
            let end = start + line.trim_end_matches('\n').len();
            let tab = start + line.find('\t')?;
            lines.push((start as u32, tab as u32, end as u32));
            start += line.len();
        }
        let g = Glossary { text, lines };
        let ordered = (g.lines.windows(2)).all(|w| g.word(w[0]) < g.word(w[1]));
        ordered.then_some(g)
    }

    fn word(&self, (start, tab, _): (u32, u32, u32)) -> &str {
        &self.text[start as usize..tab as usize]
    }

    /// The gloss of `word`, if the glossary holds it.
    pub fn get(&self, word: &str) -> Option<&str> {
        let at = (self.lines)
            .binary_search_by(|&l| self.word(l).cmp(word))
            .ok()?;
        let (_, tab, end) = self.lines[at];
        Some(&self.text[tab as usize + 1..end as usize])
    }

    /// How many words it holds.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// `message` lowercased, each word the glossary holds and `held` does not (a word the
    /// catalog's own index holds is the catalog's, whatever its language) replaced by its gloss
    /// with a space either side; `None` when no word is. A word is a run of word characters of a
    /// spaced script, whole; in a run of a script written without spaces, the longest word the
    /// glossary holds at each character, from the first (at most [`GLOSSARY_MAX_CHARS`]), a
    /// character no word starts at kept as it is.
    pub fn gloss(&self, message: &str, held: impl Fn(&str) -> bool) -> Option<String> {
        let lower = message.to_lowercase();
        let mut out = String::with_capacity(lower.len() + 16);
        let mut glossed = false;
        let mut put = |out: &mut String, word: &str| match self.get(word) {
            Some(gloss) if !held(word) => {
                glossed = true;
                out.push(' ');
                out.push_str(gloss);
                out.push(' ');
            }
            _ => out.push_str(word),
        };
        let mut rest = lower.as_str();
        while !rest.is_empty() {
            let start = rest.find(word_char).unwrap_or(rest.len());
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let end = rest.find(|c: char| !word_char(c)).unwrap_or(rest.len());
            for (spaced, run) in script_runs(&rest[..end]) {
                if spaced {
                    put(&mut out, run);
                    continue;
                }
                let chars: Vec<(usize, char)> = run.char_indices().collect();
                let mut i = 0;
                while i < chars.len() {
                    let from = chars[i].0;
                    let end_of = |n: usize| chars.get(i + n).map_or(run.len(), |c| c.0);
                    let longest = (1..=GLOSSARY_MAX_CHARS.min(chars.len() - i))
                        .rev()
                        .find(|&n| self.get(&run[from..end_of(n)]).is_some());
                    match longest {
                        Some(n) => {
                            put(&mut out, &run[from..end_of(n)]);
                            i += n;
                        }
                        None => {
                            out.push(chars[i].1);
                            i += 1;
                        }
                    }
                }
            }
            rest = &rest[end..];
        }
        glossed.then_some(out)
    }
}

/// Whether `index` holds every routing word of `word` (by `rules`): the catalog's own word.
pub(crate) fn held_by(index: &RouteIndex, word: &str, rules: &RoutingRules) -> bool {
    let words = rules.tokens(word);
    !words.is_empty() && words.iter().all(|w| index.ids.contains_key(w.as_str()))
}

impl Artifact {
    /// The glossary beside the artifact's built-in meaning table, read once; `None` for an
    /// artifact without (no table, a model of the workspace's own, or one built before
    /// glossaries).
    pub(crate) fn glossary(&self) -> Result<Option<Arc<Glossary>>, Error> {
        if let Some(g) = self.glossary.get() {
            return Ok(g.clone());
        }
        let found = match (self.embedding_model(), self.meaning()?) {
            (Some((model, _)), Some(_)) => match self.meaning_row(&glossary_row(model))? {
                None => None,
                Some(d) => {
                    let parsed = String::from_utf8(d).ok().and_then(Glossary::parse);
                    let Some(g) = parsed else {
                        return Err(Error::NotAnArtifact {
                            path: self.path.clone(),
                            why: "its glossary is not lines of a word, a tab and its gloss \
                                  in order"
                                .to_string(),
                        });
                    };
                    Some(Arc::new(g))
                }
            },
            _ => None,
        };
        Ok(self.glossary.get_or_init(|| found).clone())
    }

    /// `message` as a route reads it in a catalog of `index`: its words in other languages
    /// glossed in English ([`Glossary::gloss`]); `None` when none is (or there is no glossary).
    pub(crate) fn glossed(
        &self,
        message: &str,
        index: &RouteIndex,
        rules: &RoutingRules,
    ) -> Result<Option<String>, Error> {
        Ok(match self.glossary()? {
            Some(g) => g.gloss(message, |w| held_by(index, w, rules)),
            None => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glossary(lines: &[&str]) -> Glossary {
        let mut sorted = lines.to_vec();
        sorted.sort_unstable();
        Glossary::parse(sorted.iter().map(|l| format!("{l}\n")).collect()).unwrap()
    }

    /// The reference for the other runtimes' glossing: each of them asserts these same cases.
    #[test]
    fn a_message_is_read_with_its_words_in_other_languages_glossed() {
        let g = glossary(&[
            "factura\tinvoice",
            "facturas\tinvoices",
            "天气\tweather",
            "天气预报\tweather forecast",
            "明天\ttomorrow",
            "会議\tmeeting",
            "lebenslauf\tresume",
        ]);
        let none = |_: &str| false;
        assert_eq!(
            g.gloss("Necesito las FACTURAS, ya!", none).as_deref(),
            Some("necesito las  invoices , ya!")
        );
        // The longest word at each character, others kept as they are.
        assert_eq!(
            g.gloss("帮我查一下明天天气预报吧", none).as_deref(),
            Some("帮我查一下 tomorrow  weather forecast 吧")
        );
        // Scripts change inside a word: each run on its own.
        assert_eq!(
            g.gloss("PDFの会議録", none).as_deref(),
            Some("pdfの meeting 録")
        );
        // A word the catalog holds stays the catalog's.
        assert_eq!(
            g.gloss("lebenslauf factura", |w| w == "factura").as_deref(),
            Some(" resume  factura")
        );
        assert_eq!(g.gloss("nothing to read here", none), None);
        assert_eq!(g.gloss("", none), None);
    }

    #[test]
    fn a_glossary_out_of_order_or_without_tabs_is_refused() {
        assert!(Glossary::parse("b\tx\na\ty\n".to_string()).is_none());
        assert!(Glossary::parse("a\tx\na\ty\n".to_string()).is_none());
        assert!(Glossary::parse("a x\n".to_string()).is_none());
        let g = Glossary::parse("a\tx\nb\ty".to_string()).unwrap();
        assert_eq!(
            (g.get("a"), g.get("b"), g.get("c")),
            (Some("x"), Some("y"), None)
        );
        assert!(Glossary::parse(String::new()).unwrap().is_empty());
    }
}
