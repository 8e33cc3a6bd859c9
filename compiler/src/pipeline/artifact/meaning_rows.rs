//! The built-in meaning as the artifact carries it, once: the table and what the build makes
//! beside it for a route (`docs/artifact.md`, table `meaning`).

use std::sync::Arc;

/// The built-in meaning's rows: the table, the vectors of the small-talk messages a route
/// measures a message against, its pieces' and pairs of pieces' weights towards small talk
/// (`docs/routing.md`, "Small talk") and the glossary.
#[derive(Debug, Clone)]
pub(crate) struct MeaningRows {
    /// The model's name (the `meaning` row of the table).
    pub name: &'static str,
    /// The table's bytes.
    pub table: &'static [u8],
    /// The small-talk vectors, a signed byte a number, one after another (the row named
    /// [`skillc_runtime::route::small_talk_row`] of the model).
    pub small_talk: Arc<Vec<u8>>,
    /// Each piece's weight towards small talk, a little-endian i16 a row of the table (the
    /// row named [`skillc_runtime::route::talk_words_row`] of the model).
    pub talk_words: Arc<Vec<u8>>,
    /// Each pair of neighbouring pieces' weight towards small talk (the row named
    /// [`skillc_runtime::route::talk_pairs_row`] of the model).
    pub talk_pairs: Arc<Vec<u8>>,
    /// The glossary of words of other languages (the row named
    /// [`skillc_runtime::route::glossary_row`] of the model).
    pub glossary: Arc<String>,
}

impl MeaningRows {
    /// Its bytes, every row's (the same in every artifact).
    pub(crate) fn bytes(&self) -> u64 {
        let talk = self.talk_words.len() + self.talk_pairs.len();
        (self.table.len() + self.small_talk.len() + talk + self.glossary.len()) as u64
    }

    /// Whether `other` is the same meaning: the same name and every row the same.
    pub(crate) fn is(&self, other: &MeaningRows) -> bool {
        fn same<T: PartialEq + ?Sized>(a: &Arc<T>, b: &Arc<T>) -> bool {
            Arc::ptr_eq(a, b) || a == b
        }
        self.name == other.name
            && std::ptr::eq(self.table, other.table)
            && same(&self.small_talk, &other.small_talk)
            && same(&self.talk_words, &other.talk_words)
            && same(&self.talk_pairs, &other.talk_pairs)
            && same(&self.glossary, &other.glossary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(glossary: &str) -> MeaningRows {
        MeaningRows {
            name: "m",
            table: b"table of 11",
            small_talk: Arc::new(vec![1; 5]),
            talk_words: Arc::new(vec![2; 7]),
            talk_pairs: Arc::new(vec![3; 13]),
            glossary: Arc::new(glossary.to_string()),
        }
    }

    /// The bytes are every row's, summed (the build's summary line says them).
    #[test]
    fn the_bytes_are_every_rows() {
        assert_eq!(rows("gloss").bytes(), 11 + 5 + 7 + 13 + 5);
    }

    /// Rows of equal contents are the same meaning, shared or not; one row apart is not.
    #[test]
    fn the_same_meaning_is_the_same_name_and_rows() {
        let a = rows("gloss");
        assert!(a.is(&a.clone()) && a.is(&rows("gloss")));
        assert!(!a.is(&rows("other")));
        let talk = MeaningRows {
            talk_pairs: Arc::new(vec![4; 13]),
            ..rows("gloss")
        };
        assert!(!a.is(&talk));
        assert!(!a.is(&MeaningRows {
            name: "n",
            ..rows("gloss")
        }));
    }
}
