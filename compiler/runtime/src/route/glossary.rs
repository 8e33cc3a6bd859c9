//! Requests in other languages (docs/routing.md, "Words of other languages"): the built-in
//! meaning is English, and so are most catalogs, so "fusionne ces fichiers pdf" or
//! "帮我查一下明天会不会下雨" share almost nothing with the skill that would do it. The build
//! writes a glossary beside the built-in table (`compiler/meaning/glossary/`: words of sixteen
//! languages with their English meaning); a route reads each word of the message that the
//! glossary holds, and that the catalog's index does not, as its English gloss, for its words
//! and its meaning alike. Every runtime glosses a message the same way.

use std::sync::Arc;

use super::words::{each_word, script_runs};
use super::{holds_every_word, Part, RouteIndex, RoutingRules};
use rusqlite::{OptionalExtension, MAIN_DB};

use crate::{corrupt, Artifact, Error};

/// The longest word of a script written without spaces that a glossary holds, in characters:
/// a route tries no longer one.
pub const GLOSSARY_MAX_CHARS: usize = 8;

/// The most words a message is read through the glossary for (a spaced script's word, or a
/// character an unspaced script's word is looked for at): the rest is left as written. A route
/// reads no more of a message (64 words, 256 pieces), and a message of 100,000 characters
/// costs no more lookups than one of 256.
pub const GLOSSARY_MAX_READ: usize = 256;

/// The name of the `meaning` row that holds model `model`'s glossary.
pub fn glossary_row(model: &str) -> String {
    format!("{model}:glossary")
}

/// The gloss of `word` in a glossary as the artifact holds it: lines of a word, a tab and its
/// English gloss, sorted by the word's bytes, each word once (as the build writes them; a line
/// without a tab holds no word). Found by halving where the bytes lie: no map of 62,000 words
/// is made for a route (3 ms more to a process that routes once).
pub fn look_up<'a>(glossary: &'a [u8], word: &str) -> Option<&'a str> {
    let line_at = |low: usize, middle: usize, high: usize| {
        let start = (glossary[low..middle].iter().rposition(|&b| b == b'\n'))
            .map_or(low, |at| low + at + 1);
        let end = (glossary[middle..high].iter().position(|&b| b == b'\n'))
            .map_or(high, |at| middle + at);
        Ok::<_, ()>((start, end, &glossary[start..end]))
    };
    let line = halving(glossary.len(), word, line_at).ok()??;
    std::str::from_utf8(line).ok()
}

/// [`look_up`] in a glossary read through `read` (its bytes from an offset, as many as the
/// buffer holds) a window around each place it halves at: a process that routes once reads a
/// few kilobytes of its 1.5 MB row, not all of it.
pub(crate) fn look_up_read<E>(
    len: usize,
    word: &str,
    read: impl Fn(usize, &mut [u8]) -> Result<(), E>,
) -> Result<Option<String>, E> {
    let line_at = |low: usize, middle: usize, high: usize| {
        // A line is some twenty bytes: a window of 128 each side nearly always holds it.
        let mut reach = 128;
        loop {
            let (from, to) = (
                middle.saturating_sub(reach).max(low),
                (middle + reach).min(high),
            );
            let mut window = vec![0; to - from];
            read(from, &mut window)?;
            let (before, after) = window.split_at(middle - from);
            let start = match before.iter().rposition(|&b| b == b'\n') {
                Some(at) => Some(from + at + 1),
                None => (from == low).then_some(low),
            };
            let end = match after.iter().position(|&b| b == b'\n') {
                Some(at) => Some(middle + at),
                None => (to == high).then_some(high),
            };
            if let (Some(start), Some(end)) = (start, end) {
                window.truncate(end - from);
                window.drain(..start - from);
                return Ok((start, end, window));
            }
            reach *= 4;
        }
    };
    let found = halving(len, word, line_at)?;
    Ok(found.and_then(|line| String::from_utf8(line).ok()))
}

/// The halving both look-ups share, over `len` bytes of lines: `line_at(low, middle, high)`
/// gives the line `middle` lies in (its start at or after `low`, its end, at its newline or
/// `high`, and its bytes); the gloss of the line whose word is `word`.
fn halving<L: AsRef<[u8]> + Gloss, E>(
    len: usize,
    word: &str,
    mut line_at: impl FnMut(usize, usize, usize) -> Result<(usize, usize, L), E>,
) -> Result<Option<L>, E> {
    let word = word.as_bytes();
    // Both ends at the start of a line.
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        let (start, end, line) = line_at(low, middle, high)?;
        let bytes = line.as_ref();
        let tab = bytes
            .iter()
            .position(|&b| b == b'\t')
            .unwrap_or(bytes.len());
        match bytes[..tab].cmp(word) {
            std::cmp::Ordering::Equal => {
                return Ok((tab < bytes.len()).then(|| line.after(tab + 1)));
            }
            std::cmp::Ordering::Less => low = end + 1,
            std::cmp::Ordering::Greater => high = start,
        }
    }
    Ok(None)
}

/// A line's bytes after its tab: its gloss.
trait Gloss {
    fn after(self, at: usize) -> Self;
}

impl Gloss for &[u8] {
    fn after(self, at: usize) -> Self {
        &self[at..]
    }
}

impl Gloss for Vec<u8> {
    fn after(mut self, at: usize) -> Self {
        self.drain(..at);
        self
    }
}

/// `message` lowercased, each word `glossary` glosses and `held` does not hold (a word the
/// catalog's own index holds is the catalog's, whatever its language) replaced by its gloss
/// with a space either side; `None` when no word is. A word is a run of word characters of a
/// spaced script, whole; in a run of a script written without spaces, the longest word the
/// glossary holds at each character, from the first (at most [`GLOSSARY_MAX_CHARS`]), a
/// character no word starts at kept as it is; after [`GLOSSARY_MAX_READ`] words or characters
/// looked up, the rest as written (lowercased).
pub fn gloss<G: AsRef<str>>(
    message: &str,
    mut glossary: impl FnMut(&str) -> Option<G>,
    held: impl Fn(&str) -> bool,
) -> Option<String> {
    let mut glossed = false;
    let mut read = 0;
    let mut put = |out: &mut String, word: &str, gloss: Option<G>| match gloss {
        Some(gloss) if !held(word) => {
            glossed = true;
            out.push(' ');
            out.push_str(gloss.as_ref());
            out.push(' ');
        }
        _ => out.push_str(word),
    };
    let out = each_word(&message.to_lowercase(), |word, out| {
        for (spaced, run) in script_runs(word) {
            if spaced {
                if read == GLOSSARY_MAX_READ {
                    out.push_str(run);
                } else {
                    read += 1;
                    put(out, run, glossary(run));
                }
                continue;
            }
            let chars: Vec<(usize, char)> = run.char_indices().collect();
            let mut i = 0;
            while i < chars.len() {
                let from = chars[i].0;
                if read == GLOSSARY_MAX_READ {
                    out.push_str(&run[from..]);
                    break;
                }
                read += 1;
                let end_of = |n: usize| chars.get(i + n).map_or(run.len(), |c| c.0);
                let mut longest = None;
                for n in (1..=GLOSSARY_MAX_CHARS.min(chars.len() - i)).rev() {
                    if let Some(found) = glossary(&run[from..end_of(n)]) {
                        longest = Some((n, found));
                        break;
                    }
                }
                match longest {
                    Some((n, found)) => {
                        put(out, &run[from..end_of(n)], Some(found));
                        i += n;
                    }
                    None => {
                        out.push(chars[i].1);
                        i += 1;
                    }
                }
            }
        }
    });
    glossed.then_some(out)
}

impl Artifact {
    /// The glossary beside the artifact's built-in meaning table, read once (1.1 MB, about
    /// 2 ms); `None` for an artifact without (no table, a model of the workspace's own, or one
    /// built before glossaries).
    fn glossary(&self) -> Result<Option<Arc<Vec<u8>>>, Error> {
        if let Some(g) = self.glossary.get() {
            return Ok(g.clone());
        }
        let found = match (self.embedding_model(), self.meaning()?) {
            (Some((model, _)), Some(_)) => self.meaning_row(&glossary_row(model))?.map(Arc::new),
            _ => None,
        };
        Ok(self.glossary.get_or_init(|| found).clone())
    }

    /// `message` as a route reads it in a catalog of `index`: its words in other languages
    /// glossed in English ([`gloss`]), those of the catalog's own index left as written (less
    /// `leave_out`'s example: `eval` reads its examples as a catalog without each would);
    /// `None` when none is (or there is no glossary). `once`: for a process that routes once,
    /// a glossary not read yet is looked up in its row where it lies ([`look_up_read`]), not
    /// read whole and kept.
    pub(crate) fn glossed(
        &self,
        message: &str,
        index: &RouteIndex,
        leave_out: Option<(usize, &str)>,
        rules: &RoutingRules,
        once: bool,
    ) -> Result<Option<String>, Error> {
        let parts = [Part::whole(index)];
        let held = holds_every_word(&parts, leave_out, rules);
        if once && self.glossary.get().is_none() {
            return self.glossed_in_place(message, held);
        }
        let Some(data) = self.glossary()? else {
            return Ok(None);
        };
        Ok(gloss(message, |word| look_up(&data, word), held))
    }

    /// [`Artifact::glossed`] with the glossary looked up in its row, a window at a time.
    fn glossed_in_place(
        &self,
        message: &str,
        held: impl Fn(&str) -> bool,
    ) -> Result<Option<String>, Error> {
        let (Some((model, _)), Some(_)) = (self.embedding_model(), self.meaning()?) else {
            return Ok(None);
        };
        let e = corrupt(&self.path);
        let conn = self.conn.lock().expect("lock");
        let rowid: Option<i64> = conn
            .query_row(
                "SELECT rowid FROM meaning WHERE name = ?1",
                [glossary_row(model)],
                |r| r.get(0),
            )
            .optional()
            .map_err(&e)?;
        let Some(rowid) = rowid else {
            return Ok(None);
        };
        let blob = conn
            .blob_open(MAIN_DB, "meaning", "data", rowid, true)
            .map_err(&e)?;
        let (len, mut failed) = (blob.len(), None);
        let glossed = gloss(
            message,
            |word| {
                let read = |at: usize, out: &mut [u8]| blob.read_at_exact(out, at);
                match look_up_read(len, word, read) {
                    Ok(found) => found,
                    Err(why) => {
                        failed.get_or_insert(why);
                        None
                    }
                }
            },
            held,
        );
        match failed {
            Some(why) => Err(e(why)),
            None => Ok(glossed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glossary(lines: &[&str]) -> Vec<u8> {
        let mut sorted = lines.to_vec();
        sorted.sort_unstable();
        sorted
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
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
            "und\t",
        ]);
        let words = |w: &str| look_up(&g, w);
        let read = |message: &str| gloss(message, words, |_| false);
        assert_eq!(
            read("Necesito las FACTURAS, ya!").as_deref(),
            Some("necesito las  invoices , ya!")
        );
        // The longest word at each character, others kept as they are.
        assert_eq!(
            read("帮我查一下明天天气预报吧").as_deref(),
            Some("帮我查一下 tomorrow  weather forecast 吧")
        );
        // Scripts change inside a word: each run on its own.
        assert_eq!(read("PDFの会議録").as_deref(), Some("pdfの meeting 録"));
        // An empty gloss (English stopwords only, as the build writes it): read and left out.
        assert_eq!(
            read("Factura und Lebenslauf").as_deref(),
            Some(" invoice      resume ")
        );
        assert_eq!(read("und").as_deref(), Some("  "));
        // A word the catalog holds stays the catalog's.
        let held = gloss("lebenslauf factura", words, |w| w == "factura");
        assert_eq!(held.as_deref(), Some(" resume  factura"));
        assert_eq!((read("nothing to read here"), read("")), (None, None));
        // The first 256 words or characters looked up, the rest as written.
        let long = read(&"Factura ".repeat(300)).unwrap();
        assert_eq!(
            (
                long.matches("invoice").count(),
                long.matches("factura").count()
            ),
            (256, 44)
        );
        let long = read(&format!("明天{}明天", "吧".repeat(300))).unwrap();
        assert_eq!(
            (
                long.matches("tomorrow").count(),
                long.matches("明天").count()
            ),
            (1, 1)
        );
    }

    #[test]
    fn every_word_is_found_where_it_lies_and_a_line_without_a_tab_holds_none() {
        let words: Vec<String> = (0..500)
            .map(|n| format!("w{n:04}\t{}", "g".repeat(n % 40 + 1)))
            .collect();
        let g = glossary(&words.iter().map(String::as_str).collect::<Vec<_>>());
        for (n, line) in words.iter().enumerate() {
            let gloss = line.split_once('\t').unwrap().1;
            assert_eq!(look_up(&g, &format!("w{n:04}")), Some(gloss));
        }
        for absent in ["w", "w0500", "", "zz", "w0250\tg"] {
            assert_eq!(look_up(&g, absent), None, "{absent}");
        }
        let g = b"a\tx\nb\nc\ty";
        let found = |w: &str| look_up(g, w);
        assert_eq!(
            (found("a"), found("b"), found("c")),
            (Some("x"), None, Some("y"))
        );
        assert_eq!(look_up(b"", "a"), None);
    }

    /// Read a window at a time, a glossary gives what it gives read whole, lines longer than
    /// a window included.
    #[test]
    fn a_glossary_looked_up_where_it_lies_finds_what_it_finds_whole() {
        let words: Vec<String> = (0..700)
            .map(|n| match n % 97 {
                0 => format!("w{n:04}\t{}", "long ".repeat(n % 300 + 40)),
                5 => format!("w{n:04}"),
                _ => format!("w{n:04}\t{}", "g".repeat(n % 40 + 1)),
            })
            .collect();
        let g = glossary(&words.iter().map(String::as_str).collect::<Vec<_>>());
        let reads = std::cell::Cell::new(0);
        let read = |at: usize, out: &mut [u8]| {
            reads.set(reads.get() + 1);
            let bytes = g.get(at..at + out.len()).ok_or("past the end")?;
            out.copy_from_slice(bytes);
            Ok::<_, &str>(())
        };
        let mut asked: Vec<String> = (0..710).map(|n| format!("w{n:04}")).collect();
        asked.extend(["", "w", "zz", "a", "w0250\tg"].map(String::from));
        for word in &asked {
            let whole = look_up(&g, word).map(String::from);
            assert_eq!(look_up_read(g.len(), word, read), Ok(whole), "{word}");
        }
        // Halving reads a window a step: a few dozen reads a word, not the glossary.
        assert!(reads.get() < asked.len() * 30, "{}", reads.get());
        let failing = |_: usize, _: &mut [u8]| Err("unreadable");
        assert_eq!(look_up_read(g.len(), "w0001", failing), Err("unreadable"));
        assert_eq!(look_up_read(0, "w0001", failing), Ok(None));
    }
}
