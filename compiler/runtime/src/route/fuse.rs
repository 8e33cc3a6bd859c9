//! Words and meaning as one score: a skill's lexical score and its similarity by meaning,
//! fused (`docs/routing.md`), and the similarity a skill needs to reach a bar.

/// The lexical score's share of a hybrid score; the dense similarity has the rest.
pub const LEXICAL_SHARE: f64 = 0.5;

/// The similarity a skill of lexical score `words` needs for its hybrid score (lexical share
/// `share`) to reach `floor` (a margin for the score's rounding to 6 decimals).
pub fn similarity_needed(floor: f64, words: f64, share: f64) -> f64 {
    (floor - share * words) / (1.0 - share) - 1e-5
}

/// Words and meaning as one ranking: each skill of `similarities` scored by [`fuse`] of its
/// lexical score in `lexical` (0 without, its share `share`) and its similarity, those scoring
/// 0 left out. Skill indexes are below `skills`.
pub fn fused(
    lexical: super::Ranking,
    similarities: impl IntoIterator<Item = (usize, f64)>,
    skills: usize,
    share: f64,
) -> super::Ranking {
    // Each skill's lexical score, by its index (a vector: a route looks up every skill).
    let mut by_words: Vec<Option<&super::Scored>> = vec![None; skills];
    for s in &lexical.scored {
        by_words[s.skill] = Some(s);
    }
    let scored = (similarities.into_iter())
        .map(|(skill, similarity)| {
            let words = by_words[skill];
            super::Scored {
                skill,
                score: fuse(words.map_or(0.0, |s| s.score), similarity, share),
                held: words.map_or(0, |s| s.held),
            }
        })
        .filter(|s| s.score > 0.0)
        .collect();
    super::Ranking {
        words: lexical.words,
        scored,
        read_as: lexical.read_as,
    }
}

/// A hybrid score: the lexical score's share (`share`) plus the similarity's, kept to 6
/// decimals.
pub fn fuse(lexical: f64, similarity: f64, share: f64) -> f64 {
    super::round(share * lexical + (1.0 - share) * similarity)
}
