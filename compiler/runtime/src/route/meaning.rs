//! The built-in meaning model (docs/routing.md, "Meaning"): a static table of word-piece
//! vectors, trained once by the project onto all-MiniLM-L6-v2's sentence vectors
//! (`tests/quality/scale/study/ship.py`), that the compiler writes into every artifact whose
//! workspace declares no embedding model of its own. A text's vector is the weighted sum of its
//! pieces' rows, scaled so that its largest coordinate is 127 and rounded to whole numbers:
//! every cosine is then exact integer arithmetic, the same in every runtime whatever the order
//! of its sums. The Python, TypeScript and Java runtimes read the same bytes the same way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hashbrown::{DefaultHashBuilder, HashTable};
use rusqlite::MAIN_DB;
use std::hash::BuildHasher;

use crate::{corrupt, Artifact, Error};

/// What a meaning table's bytes start with.
const MAGIC: &[u8] = b"SKILLC-MEANING-1";
/// At most this many pieces of a text count (a long message: its first ones).
pub(super) const MAX_PIECES: usize = 256;
/// A word longer than this many characters has no pieces (WordPiece's own limit).
pub(super) const MAX_WORD_CHARS: usize = 100;

/// A meaning table: the vector length, the pieces (row numbers by piece), the folds of
/// accented letters, each row's scale, and its rows of int8 values.
#[derive(Debug)]
pub struct Meaning {
    dims: usize,
    pieces: Vocabulary,
    folds: HashMap<char, String>,
    scales: Vec<f32>,
    rows: Rows,
}

/// A table's pieces, one per line of its text, each found by its text through a hash table
/// of row numbers (no string of its own each: they are most of reading a table's head).
struct Vocabulary {
    text: Box<str>,
    /// Where each piece's line starts and ends in `text`, by row number.
    spans: Vec<(u32, u32)>,
    rows: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vocabulary({} pieces)", self.spans.len())
    }
}

impl Vocabulary {
    /// The pieces of `text`, one a line.
    fn new(text: &str) -> Vocabulary {
        let mut spans = Vec::new();
        let mut start = 0;
        for line in text.split('\n') {
            spans.push((start as u32, (start + line.len()) as u32));
            start += line.len() + 1;
        }
        let text: Box<str> = text.into();
        let hasher = DefaultHashBuilder::default();
        let span = |r: &u32| {
            let (a, b) = spans[*r as usize];
            &text[a as usize..b as usize]
        };
        let mut rows = HashTable::with_capacity(spans.len());
        for row in 0..spans.len() as u32 {
            let piece = span(&row);
            let hash = hasher.hash_one(piece);
            match rows.find_mut(hash, |r| span(r) == piece) {
                // As every runtime reads a table: the last of equal lines.
                Some(found) => *found = row,
                None => {
                    rows.insert_unique(hash, row, |r| hasher.hash_one(span(r)));
                }
            }
        }
        Vocabulary {
            text,
            spans,
            rows,
            hasher,
        }
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn piece(&self, row: u32) -> &str {
        let (a, b) = self.spans[row as usize];
        &self.text[a as usize..b as usize]
    }

    fn find(&self, piece: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(piece);
        self.rows.find(hash, |&r| self.piece(r) == piece).copied()
    }
}

/// Where a table's rows are.
#[derive(Debug)]
enum Rows {
    /// The table's bytes, rows from byte `at` (read in place: no second copy of 8 MB).
    Held { bytes: Vec<u8>, at: usize },
    /// In an artifact's `meaning` row (`rowid`), rows from byte `at`: each row is read when a
    /// text first needs it and kept (a process that routes once reads a few kilobytes of
    /// 8 MB; a server ends up holding the rows its visitors' words use).
    Stored {
        rowid: i64,
        at: usize,
        read: Mutex<HashMap<u32, Box<[u8]>>>,
    },
}

/// Reads `n` bytes at `*at`, moving past them.
fn take<'b>(bytes: &'b [u8], at: &mut usize, n: usize) -> Result<&'b [u8], String> {
    let end = at.checked_add(n).filter(|&e| e <= bytes.len());
    let end = end.ok_or("the meaning table is cut short")?;
    let out = &bytes[*at..end];
    *at = end;
    Ok(out)
}

fn take_u32(bytes: &[u8], at: &mut usize) -> Result<usize, String> {
    let b = take(bytes, at, 4)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

fn take_text<'b>(bytes: &'b [u8], at: &mut usize) -> Result<&'b str, String> {
    let n = take_u32(bytes, at)?;
    std::str::from_utf8(take(bytes, at, n)?)
        .map_err(|_| "the meaning table's text is not UTF-8".into())
}

impl Meaning {
    /// A table from its bytes: `SKILLC-MEANING-1`, the vector length and the number of rows
    /// (u32 little-endian each), the pieces (u32 length, then one per line, row order), the
    /// folds (u32 length, then lines of a letter, a tab and what it folds to), a f32 scale per
    /// row, then each row's int8 values.
    pub fn parse(bytes: Vec<u8>) -> Result<Meaning, String> {
        let (mut meaning, at) = Self::read_head(&bytes, bytes.len())?;
        meaning.rows = Rows::Held { bytes, at };
        Ok(meaning)
    }

    /// The table's parts before its rows, from `bytes` (the table's first bytes, or all of
    /// them), and where its rows start; `total` is the whole table's length.
    fn read_head(bytes: &[u8], total: usize) -> Result<(Meaning, usize), String> {
        let mut at = 0;
        if take(bytes, &mut at, MAGIC.len())? != MAGIC {
            return Err("not a meaning table".to_string());
        }
        let dims = take_u32(bytes, &mut at)?;
        let count = take_u32(bytes, &mut at)?;
        let pieces = Vocabulary::new(take_text(bytes, &mut at)?);
        let mut folds = HashMap::new();
        for line in take_text(bytes, &mut at)?.lines() {
            let mut chars = line.chars();
            if let (Some(c), Some('\t')) = (chars.next(), chars.next()) {
                folds.insert(c, chars.as_str().to_string());
            }
        }
        let scales = (take(bytes, &mut at, count * 4)?.chunks_exact(4))
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let rows_at = at;
        let end = count.checked_mul(dims).and_then(|n| n.checked_add(at));
        if pieces.len() != count || end != Some(total) || dims == 0 {
            return Err("the meaning table's parts disagree in size".to_string());
        }
        let rows = Rows::Held {
            bytes: Vec::new(),
            at,
        };
        Ok((
            Meaning {
                dims,
                pieces,
                folds,
                scales,
                rows,
            },
            rows_at,
        ))
    }

    /// The length of its vectors.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The number of its pieces (rows).
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Whether it has no pieces (never, for a table that parsed).
    pub fn is_empty(&self) -> bool {
        self.pieces.len() == 0
    }

    /// `text` lowercased, each misspelt word read, for the meaning vector, as the route's words
    /// read it (docs/routing.md, "Misspelt words"): a word of letters a–z that `spelling`
    /// applies to, that is no whole piece of the table, and whose one routing word (`tokens`)
    /// `spelling` applies to too (at most `max_tried` such words), unless `held` (the catalog
    /// holds it as written): when `near` gives the catalog's word the route reads that routing
    /// word as, the word is replaced by the whole piece one edit from it that is read as that
    /// same word, the one with the lowest row number (the tokenizer's vocabulary lists commoner
    /// words first). "contianer" is otherwise the pieces
    /// `con`, `##tian`, `##er`, far from "container". `None` when no word is replaced.
    pub fn spelt(
        &self,
        text: &str,
        spelling: &super::Spelling,
        max_tried: usize,
        tokens: impl Fn(&str) -> Vec<String>,
        held: impl Fn(&str) -> bool,
        near: impl Fn(&str) -> Option<String>,
    ) -> Option<String> {
        let (mut tried, mut replaced) = (0, false);
        let out = super::words::each_word(&text.to_lowercase(), |word, out| {
            let tries = (&mut tried, max_tried);
            let known = self.known_reading(word, spelling, tries, &tokens, &held, &near);
            replaced |= known.is_some();
            out.push_str(known.as_deref().unwrap_or(word));
        });
        replaced.then_some(out)
    }

    /// [`Meaning::spelt`]'s reading of one word, when it has one.
    fn known_reading(
        &self,
        word: &str,
        spelling: &super::Spelling,
        (tried, max_tried): (&mut usize, usize),
        tokens: impl Fn(&str) -> Vec<String>,
        held: impl Fn(&str) -> bool,
        near: impl Fn(&str) -> Option<String>,
    ) -> Option<String> {
        if *tried == max_tried
            || !super::spelling::applies(word, spelling)
            || self.pieces.find(word).is_some()
        {
            return None;
        }
        let [token] = <[String; 1]>::try_from(tokens(word)).ok()?;
        if !super::spelling::applies(&token, spelling) {
            return None;
        }
        *tried += 1;
        if held(word) {
            return None;
        }
        let near = near(&token)?;
        // A word's routing word is a stem of it: a start of it, with at most its last letter
        // changed or added (`y`). So an edit read as `near` starts with all of `near` but its
        // last letter, and only those edits are made.
        let start = &near[..near.floor_char_boundary(near.len().saturating_sub(1))];
        let mut best: Option<(u32, String)> = None;
        super::spelling::one_edit_starting(word, start, |edit| {
            if let Some(row) = self.pieces.find(edit) {
                if best.as_ref().is_none_or(|(r, _)| row < *r) && tokens(edit) == [near.as_str()] {
                    best = Some((row, edit.to_string()));
                }
            }
        });
        best.map(|(_, known)| known)
    }

    /// A text's pieces (row numbers), in order: its routing words (lowercased runs of word
    /// characters); in a run of an unspaced script each character alone; any other run with
    /// its accents folded, then split greedily into the longest pieces the table holds, the
    /// first plain and the others after `##` (WordPiece). A run that cannot be split entirely
    /// has no pieces. At most 256.
    pub fn pieces(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for word in text.to_lowercase().split(|c: char| !super::word_char(c)) {
            for (spaced, run) in super::script_runs(word) {
                if spaced {
                    self.word_pieces(&self.fold(run), &mut out);
                } else {
                    let mut buf = [0u8; 4];
                    out.extend(run.chars().filter_map(|c| self.id(c.encode_utf8(&mut buf))));
                }
                if out.len() >= MAX_PIECES {
                    out.truncate(MAX_PIECES);
                    return out;
                }
            }
        }
        out
    }

    /// A word with its accents folded as the table's pieces are (`é` → `e`), and its marks
    /// that no piece is ([`super::mark`]) left out: the model's tokenizer drops every
    /// nonspacing mark, so `सुबह` is read as `सबह`, which it has pieces for (its vocabulary
    /// holds a few spacing vowel signs, such as `ा`, and they stay).
    pub fn fold(&self, word: &str) -> String {
        let mut out = String::with_capacity(word.len());
        let mut buf = [0u8; 4];
        for c in word.chars() {
            match self.folds.get(&c) {
                Some(folded) => out.push_str(folded),
                None if super::mark(c) && self.id(c.encode_utf8(&mut buf)).is_none() => {}
                None => out.push(c),
            }
        }
        out
    }

    /// Whether the table holds a (lowercased) word of a spaced script whole, as one piece,
    /// its accents folded: a word of the model's own vocabulary. Its marks count: `है` less its
    /// vowel sign is `ह`, a piece, but no word of that vocabulary.
    pub fn holds_whole(&self, word: &str) -> bool {
        let accents_folded: String = (word.chars())
            .map(|c| {
                self.folds
                    .get(&c)
                    .map_or_else(|| c.to_string(), Clone::clone)
            })
            .collect();
        self.id(&accents_folded).is_some()
    }

    fn id(&self, piece: &str) -> Option<u32> {
        self.pieces.find(piece)
    }

    fn word_pieces(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<usize> = word.char_indices().map(|(i, _)| i).collect();
        if chars.len() > MAX_WORD_CHARS {
            return;
        }
        let bound = |k: usize| chars.get(k).copied().unwrap_or(word.len());
        let mut found = Vec::new();
        let mut piece = String::new();
        let mut start = 0;
        while start < chars.len() {
            let hit = (start + 1..=chars.len()).rev().find_map(|end| {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[bound(start)..bound(end)]);
                self.id(&piece).map(|id| (id, end))
            });
            let Some((id, end)) = hit else {
                return;
            };
            found.push(id);
            start = end;
        }
        out.extend(found);
    }

    /// A text's vector: Σ scale·row over its pieces in order (in f64), then each coordinate
    /// over the largest magnitude times 127, rounded half up: whole numbers from -127 to 127,
    /// all 0 when no piece is known.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        self.vector_of(&self.pieces(text))
    }

    /// The vector of `words` (space-separated, such as [`super::prose_text_words`] gives):
    /// [`Meaning::vector`] of their pieces, each word's in turn, without the limit of
    /// 256 pieces to a text (a skill's body holds thousands of distinct words).
    pub fn vector_of_words(&self, words: &str) -> Vec<f32> {
        let mut pieces = Vec::new();
        for word in words.split(' ').filter(|w| !w.is_empty()) {
            pieces.extend(self.pieces(word));
        }
        self.vector_of(&pieces)
    }

    /// The vector of a text's `pieces` ([`Meaning::vector`]).
    fn vector_of(&self, pieces: &[u32]) -> Vec<f32> {
        match &self.rows {
            Rows::Held { bytes, at } => self.sum(pieces, |p| {
                let start = at + p as usize * self.dims;
                bytes.get(start..start + self.dims)
            }),
            Rows::Stored { read, .. } => {
                let read = read.lock().expect("lock");
                self.sum(pieces, |p| read.get(&p).map(|r| &r[..]))
            }
        }
    }

    /// The sum of `pieces`' rows (see [`Meaning::vector`]), each found by `row`.
    fn sum<'r>(&self, pieces: &[u32], row: impl Fn(u32) -> Option<&'r [u8]>) -> Vec<f32> {
        let mut total = vec![0.0f64; self.dims];
        for &p in pieces {
            let scale = f64::from(self.scales[p as usize]);
            // Every row is there: held, or read by `Artifact::meaning_vector` before.
            let Some(row) = row(p) else { continue };
            for (t, &b) in total.iter_mut().zip(row) {
                *t += scale * f64::from(b as i8);
            }
        }
        let largest = total.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if largest == 0.0 {
            return vec![0.0; self.dims];
        }
        (total.iter())
            .map(|x| (x / largest * 127.0 + 0.5).floor() as f32)
            .collect()
    }
}

impl Artifact {
    /// The meaning table of the artifact's embedding model, when the artifact carries it (the
    /// built-in model; a model of the workspace's own comes with its query vectors instead):
    /// its parts before the rows, read on first use; rows as texts need them
    /// ([`Artifact::meaning_vector`]).
    pub(crate) fn meaning(&self) -> Result<Option<Arc<Meaning>>, Error> {
        if let Some(m) = self.meaning.get() {
            return Ok(m.clone());
        }
        let found = match self.embedding_model() {
            None => None,
            Some((model, _)) => self.read_meaning_head(model)?.map(Arc::new),
        };
        Ok(self.meaning.get_or_init(|| found).clone())
    }

    /// The parts before the rows of the table `model` in the `meaning` table, if it is there.
    fn read_meaning_head(&self, model: &str) -> Result<Option<Meaning>, Error> {
        let conn = self.conn.lock().expect("lock");
        let e = corrupt(&self.path);
        let held: bool = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meaning'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(&e)?
            > 0;
        if !held {
            return Ok(None);
        }
        let mut st = conn
            .prepare("SELECT rowid FROM meaning WHERE name = ?1")
            .map_err(&e)?;
        let mut rows = st.query([model]).map_err(&e)?;
        let Some(rowid) = rows
            .next()
            .map_err(&e)?
            .map(|r| r.get(0))
            .transpose()
            .map_err(&e)?
        else {
            return Ok(None);
        };
        let bad = |why: String| Error::NotAnArtifact {
            path: self.path.clone(),
            why: format!("its meaning table: {why}"),
        };
        let blob = (conn.blob_open(MAIN_DB, "meaning", "data", rowid, true)).map_err(&e)?;
        let total = blob.len();
        // The head's length: the magic and two numbers, the pieces, the folds, the scales.
        let mut head = Vec::new();
        let grow = |head: &mut Vec<u8>, to: usize| -> Result<(), Error> {
            let from = head.len();
            if to > total {
                return Err(bad("the meaning table is cut short".to_string()));
            }
            head.resize(to, 0);
            blob.read_at_exact(&mut head[from..], from).map_err(&e)
        };
        let number = |head: &[u8], at: usize| {
            u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]) as usize
        };
        let numbers = MAGIC.len() + 12;
        grow(&mut head, numbers)?;
        let count = number(&head, MAGIC.len() + 4);
        let folds_at = numbers + number(&head, numbers - 4);
        grow(&mut head, folds_at + 4)?;
        let rows_at =
            (folds_at + 4 + number(&head, folds_at)).saturating_add(count.saturating_mul(4));
        grow(&mut head, rows_at)?;
        let (mut meaning, at) = Meaning::read_head(&head, total).map_err(bad)?;
        meaning.rows = Rows::Stored {
            rowid,
            at,
            read: Mutex::new(HashMap::new()),
        };
        Ok(Some(meaning))
    }

    /// A text's vector from the built-in meaning table, when the artifact carries one.
    pub fn meaning_vector(&self, text: &str) -> Result<Option<Vec<f32>>, Error> {
        let Some(meaning) = self.meaning()? else {
            return Ok(None);
        };
        let pieces = meaning.pieces(text);
        if let Rows::Stored { rowid, at, read } = &meaning.rows {
            let mut read = read.lock().expect("lock");
            let mut missing: Vec<u32> = (pieces.iter().copied())
                .filter(|p| !read.contains_key(p))
                .collect();
            missing.sort_unstable();
            missing.dedup();
            if !missing.is_empty() {
                let conn = self.conn.lock().expect("lock");
                let e = corrupt(&self.path);
                let blob =
                    (conn.blob_open(MAIN_DB, "meaning", "data", *rowid, true)).map_err(&e)?;
                for p in missing {
                    let mut row = vec![0u8; meaning.dims].into_boxed_slice();
                    blob.read_at_exact(&mut row, at + p as usize * meaning.dims)
                        .map_err(&e)?;
                    read.insert(p, row);
                }
            }
        }
        Ok(Some(meaning.vector_of(&pieces)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of four-dimension rows over a few pieces.
    fn table() -> Meaning {
        table_of(|i| [i as u8, 1, (127 - i) as u8, (-(i as i8)) as u8])
    }

    /// The pieces of [`table`] with the rows `row` gives each.
    fn table_of(row: impl Fn(usize) -> [u8; 4]) -> Meaning {
        let vocab = ["[UNK]", "price", "##s", "list", "café", "cafe", "価", "格"];
        table_with(&vocab, row)
    }

    /// A table of `vocab`'s pieces, with the rows `row` gives each.
    fn table_with(vocab: &[&str], row: impl Fn(usize) -> [u8; 4]) -> Meaning {
        let mut bytes = MAGIC.to_vec();
        bytes.extend(4u32.to_le_bytes());
        bytes.extend((vocab.len() as u32).to_le_bytes());
        let text = vocab.join("\n");
        bytes.extend((text.len() as u32).to_le_bytes());
        bytes.extend(text.as_bytes());
        let folds = "é\te";
        bytes.extend((folds.len() as u32).to_le_bytes());
        bytes.extend(folds.as_bytes());
        for i in 0..vocab.len() {
            bytes.extend((0.5f32 * (i as f32 + 1.0)).to_le_bytes());
        }
        for i in 0..vocab.len() {
            bytes.extend(row(i));
        }
        Meaning::parse(bytes).expect("parses")
    }

    /// The reference for the other runtimes' reading of misspelt words for the meaning: each of
    /// them routes misspelt messages as `skillc` does (their parity runs and tests).
    #[test]
    fn a_misspelt_word_is_read_for_the_meaning_as_the_route_reads_its_word() {
        let vocab = [
            "[UNK]",
            "whether",
            "weather",
            "container",
            "lists",
            "list",
            "plan",
            "containers",
            "aaaaaaaaaaaaaaaaaaaaaaabs",
        ];
        let m = table_with(&vocab, |i| [i as u8, 1, 1, 1]);
        let spelling = super::super::SPELLING;
        // Routing words: a final `s` taken off, as a stemmer would.
        let tokens = |w: &str| vec![w.strip_suffix('s').unwrap_or(w).to_string()];
        // The catalog's nearest known word of each routing word it does not hold.
        let near = |t: &str| match t {
            "contianer" => Some("container".to_string()),
            "wether" | "weathr" => Some("weather".to_string()),
            "lisst" | "lsit" => Some("list".to_string()),
            "contaner" => Some("contain".to_string()),
            // A catalog that would read "containers" as another word.
            "container" => Some("contain".to_string()),
            // The routing word of a word too long for the rules (25 letters), read as another.
            "aaaaaaaaaaaaaaaaaaaaaaaa" => Some("aaaaaaaaaaaaaaaaaaaaaaab".to_string()),
            _ => None,
        };
        let held = |w: &str| w == "kubectl";
        let spelt = |text: &str, max: usize| m.spelt(text, &spelling, max, tokens, held, near);
        // Lowercased, its misspelt word replaced, the rest as written.
        assert_eq!(
            spelt("Where is the CONTIANER list?", 64).as_deref(),
            Some("where is the container list?")
        );
        // Of the pieces one edit away, the one read as the route's word ("whether" is commoner).
        assert_eq!(spelt("wether", 64).as_deref(), Some("weather"));
        // Of several read as it, the lowest row: "lists" (row 4), not "list" (row 5), which
        // comes first among the edits of "lisst".
        assert_eq!(spelt("lisst", 64).as_deref(), Some("lists"));
        assert_eq!(spelt("weathr", 64).as_deref(), Some("weather"));
        // Left as written: a whole piece (even "containers", whose routing word the catalog
        // would read as another), a word the catalog holds, a word too short for the
        // rules (four letters), one with a digit or an accent, one the catalog reads as nothing,
        // and one whose reading no piece one edit away gives ("container" is read as itself).
        let kept = [
            "whether",
            "containers",
            "aaaaaaaaaaaaaaaaaaaaaaaas",
            "kubectl",
            "lsit",
            "contianer2",
            "contiäner",
            "plann",
            "contaner",
        ];
        for text in kept {
            assert_eq!(spelt(text, 64), None, "{text}");
        }
        // At most `max_tried` words are read so.
        assert_eq!(
            spelt("contianer wether lisst", 2).as_deref(),
            Some("container weather lisst")
        );
        assert_eq!(spelt("", 64), None);
    }

    #[test]
    fn words_split_into_the_longest_pieces_and_unknown_words_have_none() {
        let m = table();
        assert_eq!(m.dims(), 4);
        assert_eq!(m.pieces("Prices LIST"), [1, 2, 3]);
        // A word with a part no piece holds is left out whole; accents fold.
        assert_eq!(m.pieces("pricez café"), [5]);
        // An unspaced run: each character alone.
        assert_eq!(m.pieces("価格表"), [6, 7]);
        assert!(m.pieces("").is_empty());
        assert_eq!(m.pieces(&"list ".repeat(300)).len(), MAX_PIECES);
        assert!(m.pieces(&"l".repeat(101)).is_empty());
        // A word of pieces is split up to MAX_WORD_CHARS characters, and left out past them.
        let word = |n: usize| format!("price{}", "s".repeat(n - 5));
        assert_eq!(m.pieces(&word(MAX_WORD_CHARS))[..2], [1, 2]);
        assert!(m.pieces(&word(MAX_WORD_CHARS + 1)).is_empty());
        // Two equal lines: the last is the piece's row, as every runtime reads a table.
        let v = Vocabulary::new("a\nb\na");
        assert_eq!(
            (v.find("a"), v.find("b"), v.find("c"), v.len()),
            (Some(2), Some(1), None, 3)
        );
    }

    /// A mark the table has no piece for is left out of a word's pieces, as the model's
    /// tokenizer drops nonspacing marks; one it holds (a spacing vowel sign) stays. The
    /// virama keeps `अलार्म` one word.
    #[test]
    fn marks_the_table_lacks_are_left_out_of_a_words_pieces() {
        let m = table_with(
            &["[UNK]", "सबह", "अलारम", "ा", "##ा", "क", "##र"],
            |i| [i as u8, 1, 0, 0],
        );
        assert_eq!(m.fold("सुबह"), "सबह");
        assert_eq!(m.pieces("सुबह"), m.pieces("सबह"));
        assert_eq!(m.pieces("सुबह अलार्म"), [1, 2]);
        // Held whole (a word of the model's vocabulary, which the glossary leaves out) is
        // read with the marks: `सुबह` is no such word.
        assert!(m.holds_whole("सबह") && !m.holds_whole("सुबह"));
        // `ा` is a piece of the table: kept, so `का` is `क` then `##ा`; a variation selector
        // is no mark and no word character: `❤\u{fe0f}` has no pieces and splits nothing.
        assert_eq!(m.fold("का"), "का");
        assert_eq!(m.pieces("का\u{fe0f}कर"), [5, 4, 5, 6]);
    }

    /// A word held whole is one piece, found with its accents folded (what the build's
    /// glossary leaves out: a word of the model's own vocabulary).
    #[test]
    fn a_word_is_held_whole_when_it_is_one_piece_its_accents_folded() {
        let m = table();
        assert_eq!(
            (m.fold("Pricé"), m.fold("価格")),
            ("Price".into(), "価格".into())
        );
        assert!(m.holds_whole("price") && m.holds_whole("list"));
        assert!(m.holds_whole("pricé") && m.holds_whole("café"));
        // Two pieces, a continuation piece alone, an unknown word: not whole.
        assert!(!m.holds_whole("prices") && !m.holds_whole("s") && !m.holds_whole("menu"));
    }

    #[test]
    fn a_vector_is_the_scaled_sum_of_its_rows_in_whole_numbers() {
        let m = table();
        // price (scale 1.0, row [1,1,126,-1]) + ##s (scale 1.5, row [2,1,125,-2]).
        let sum = [1.0 + 3.0, 1.0 + 1.5, 126.0 + 187.5, -1.0 - 3.0];
        let want: Vec<f32> = (sum.iter())
            .map(|x: &f64| (x / 313.5 * 127.0 + 0.5).floor() as f32)
            .collect();
        assert_eq!(m.vector("prices"), want);
        assert_eq!(m.vector("nothing known"), [0.0; 4]);
        assert!(Meaning::parse(b"SKILLC-MEANING-1".to_vec()).is_err());
        assert!(Meaning::parse(b"other".to_vec()).is_err());
    }

    #[test]
    fn the_words_of_a_body_count_past_the_pieces_a_text_is_cut_to() {
        let m = table();
        // Each word's pieces in turn: the same sum as the text of those words.
        assert_eq!(m.vector_of_words("list prices"), m.vector("list prices"));
        assert_eq!(m.vector_of_words(""), [0.0; 4]);
        // `list` along the first number, every other piece along the second (scales 2 and
        // 1): 300 words of `list`, then `cafe` (scale 3). A text stops at MAX_PIECES, the
        // words do not: 600 against 3, `cafe` counts.
        let m = table_of(|i| if i == 3 { [1, 0, 0, 0] } else { [0, 1, 0, 0] });
        let words = format!("{} cafe", vec!["list"; 300].join(" "));
        assert_eq!(m.vector(&words), [127.0, 0.0, 0.0, 0.0]);
        assert_eq!(m.vector_of_words(&words), [127.0, 1.0, 0.0, 0.0]);
    }
}
