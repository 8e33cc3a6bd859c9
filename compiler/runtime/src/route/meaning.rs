//! The built-in meaning model (docs/routing.md, "Meaning"): a static table of word-piece
//! vectors, trained once by the project onto all-MiniLM-L6-v2's sentence vectors
//! (`tests/quality/scale/study/ship.py`), that the compiler writes into every artifact whose
//! workspace declares no embedding model of its own. A text's vector is the weighted sum of its
//! pieces' rows, scaled so that its largest coordinate is 127 and rounded to whole numbers:
//! every cosine is then exact integer arithmetic, the same in every runtime whatever the order
//! of its sums. The Python, TypeScript and Java runtimes read the same bytes the same way.

use std::collections::HashMap;
use std::sync::Arc;

use crate::{corrupt, Artifact, Error};

/// What a meaning table's bytes start with.
const MAGIC: &[u8] = b"SKILLC-MEANING-1";
/// At most this many pieces of a text count (a long message: its first ones).
pub const MAX_PIECES: usize = 256;
/// A word longer than this many characters has no pieces (WordPiece's own limit).
pub const MAX_WORD_CHARS: usize = 100;

/// A meaning table: the vector length, the pieces (row numbers by piece), the folds of
/// accented letters, each row's scale, and the table's bytes, whose last part holds each row's
/// int8 values from `rows_at` (read in place: no second copy of 8 MB).
#[derive(Debug)]
pub struct Meaning {
    dims: usize,
    ids: HashMap<String, u32>,
    folds: HashMap<char, String>,
    scales: Vec<f32>,
    bytes: Vec<u8>,
    rows_at: usize,
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
        let mut meaning = Self::read(&bytes)?;
        meaning.bytes = bytes;
        Ok(meaning)
    }

    /// [`Meaning::parse`]'s reading, the bytes left to the caller to hand over.
    fn read(bytes: &[u8]) -> Result<Meaning, String> {
        let mut at = 0;
        if take(bytes, &mut at, MAGIC.len())? != MAGIC {
            return Err("not a meaning table".to_string());
        }
        let dims = take_u32(bytes, &mut at)?;
        let count = take_u32(bytes, &mut at)?;
        let ids: HashMap<String, u32> = (take_text(bytes, &mut at)?.split('\n'))
            .zip(0u32..)
            .map(|(p, i)| (p.to_string(), i))
            .collect();
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
        take(bytes, &mut at, count * dims)?;
        if ids.len() != count || at != bytes.len() || dims == 0 {
            return Err("the meaning table's parts disagree in size".to_string());
        }
        Ok(Meaning {
            dims,
            ids,
            folds,
            scales,
            bytes: Vec::new(),
            rows_at,
        })
    }

    /// The length of its vectors.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// A text's pieces (row numbers), in order: its routing words (lowercased runs of word
    /// characters); in a run of an unspaced script each character alone; any other run with
    /// its accents folded, then split greedily into the longest pieces the table holds, the
    /// first plain and the others after `##` (WordPiece). A run that cannot be split entirely
    /// has no pieces. At most [`MAX_PIECES`].
    pub fn pieces(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for word in text.to_lowercase().split(|c: char| !super::word_char(c)) {
            for (spaced, run) in super::script_runs(word) {
                if spaced {
                    let folded: String = (run.chars())
                        .map(|c| {
                            self.folds
                                .get(&c)
                                .map_or_else(|| c.to_string(), Clone::clone)
                        })
                        .collect();
                    self.word_pieces(&folded, &mut out);
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

    fn id(&self, piece: &str) -> Option<u32> {
        self.ids.get(piece).copied()
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
        let mut total = vec![0.0f64; self.dims];
        for p in self.pieces(text) {
            let p = p as usize;
            let scale = f64::from(self.scales[p]);
            let start = self.rows_at + p * self.dims;
            let row = &self.bytes[start..start + self.dims];
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
    /// built-in model; a model of the workspace's own comes with its query vectors instead).
    pub fn meaning(&self) -> Result<Option<Arc<Meaning>>, Error> {
        if let Some(m) = self.meaning.get() {
            return Ok(m.clone());
        }
        let found = match self.embedding_model() {
            None => None,
            Some((model, _)) => {
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
                let data: Option<Vec<u8>> = if held {
                    let mut st = conn
                        .prepare("SELECT data FROM meaning WHERE name = ?1")
                        .map_err(&e)?;
                    let mut rows = st.query([model]).map_err(&e)?;
                    rows.next()
                        .map_err(&e)?
                        .map(|r| r.get(0))
                        .transpose()
                        .map_err(&e)?
                } else {
                    None
                };
                match data {
                    None => None,
                    Some(d) => Some(Arc::new(Meaning::parse(d).map_err(|why| {
                        Error::NotAnArtifact {
                            path: self.path.clone(),
                            why: format!("its meaning table: {why}"),
                        }
                    })?)),
                }
            }
        };
        Ok(self.meaning.get_or_init(|| found).clone())
    }

    /// A text's vector from the built-in meaning table, when the artifact carries one.
    pub fn meaning_vector(&self, text: &str) -> Result<Option<Vec<f32>>, Error> {
        Ok(self.meaning()?.map(|m| m.vector(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of four-dimension rows over a few pieces.
    fn table() -> Meaning {
        let vocab = ["[UNK]", "price", "##s", "list", "café", "cafe", "価", "格"];
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
            bytes.extend([i as u8, 1, (127 - i) as u8, (-(i as i8)) as u8]);
        }
        Meaning::parse(bytes).expect("parses")
    }

    #[test]
    fn words_split_into_the_longest_pieces_and_unknown_words_have_none() {
        let m = table();
        assert_eq!(m.pieces("Prices LIST"), [1, 2, 3]);
        // A word with a part no piece holds is left out whole; accents fold.
        assert_eq!(m.pieces("pricez café"), [5]);
        // An unspaced run: each character alone.
        assert_eq!(m.pieces("価格表"), [6, 7]);
        assert!(m.pieces("").is_empty());
        assert_eq!(m.pieces(&"list ".repeat(300)).len(), MAX_PIECES);
        assert!(m.pieces(&"l".repeat(101)).is_empty());
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
}
