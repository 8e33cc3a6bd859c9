//! W119's routing by meaning: the built-in meaning's vectors of a catalog's skills, and a
//! trigger example ranked by words and meaning fused and cut as a runtime's route is
//! (`Artifact::route_query`): the same vectors, cosines, fusion, catalog bar and small-talk
//! raise, so that the check warns of what a runtime will do.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use skillc_runtime::route::{
    fused, raised_floor, talk_words, Asked, Closeness, DenseIndex, Ranking, RoutingRules,
};

use crate::model::{Skill, Workspace};

/// A skill's vectors by the built-in meaning: its summary's, then each trigger example's.
pub(super) type Vectors = Arc<[Arc<[f32]>]>;

/// Whether the workspace routes by the built-in meaning: it declares no model of its own, nor
/// `none`. A model of its own is an embedder the build calls, which a check does not: its
/// catalogs are checked by words.
pub(super) fn by_meaning(ws: &Workspace) -> bool {
    crate::meaning::embedding_model(ws.config.routing.as_ref())
        == Some(crate::meaning::BUILT_IN_MODEL)
}

/// The vectors the build gives skill `s` (`pipeline::embed`): its summary's, then each
/// trigger example's.
fn vectors_of(s: &Skill) -> Vectors {
    let table = crate::meaning::built_in();
    let fm = &s.frontmatter;
    let summary = crate::meaning::summary(
        &s.name,
        fm.description.as_deref().unwrap_or(""),
        &fm.when_to_use,
    );
    (std::iter::once(summary.as_str()).chain(fm.trigger_examples.iter().map(String::as_str)))
        .map(|text| Arc::from(table.vector(text)))
        .collect()
}

/// The vectors of skills by their place in the workspace, with the skill each was made of.
pub(super) type Made = HashMap<usize, (Arc<Skill>, Vectors)>;

/// The vectors of `skills`, taken from `last` for a skill unchanged since (the same value in
/// the same place), made for the others.
pub(super) fn vectors(ws: &Workspace, skills: &[usize], last: Option<&Made>) -> Made {
    (skills.par_iter())
        .map(|&i| {
            let skill = &ws.skills[i];
            let kept = last
                .and_then(|l| l.get(&i))
                .filter(|(s, _)| Arc::ptr_eq(s, skill));
            let v = match kept {
                Some((_, v)) => v.clone(),
                None => vectors_of(skill),
            };
            (i, (skill.clone(), v))
        })
        .collect()
}

/// An index of the vectors of `skills` (each of `made` or `own`).
pub(super) fn index(skills: impl Iterator<Item = usize>, made: &Made, own: &Made) -> DenseIndex {
    DenseIndex::new(
        skills
            .filter_map(|i| Some((i, own.get(&i).or_else(|| made.get(&i))?.1.to_vec())))
            .collect(),
    )
}

/// What a route holds a message against to raise its bar, as the build writes it beside the
/// built-in meaning.
pub(super) struct SmallTalk {
    /// The small talk's vectors, an index whose every message is a skill of one summary.
    vectors: DenseIndex,
    /// Each piece's and pair's weight towards small talk.
    words: Arc<skillc_runtime::route::TalkWeights>,
    /// The built-in meaning, to split a text into its pieces.
    table: Arc<skillc_runtime::route::Meaning>,
}

/// The built-in meaning's small talk.
pub(super) fn small_talk() -> SmallTalk {
    let table = crate::meaning::built_in();
    let talk = crate::meaning::small_talk(&table);
    SmallTalk {
        vectors: DenseIndex::new(
            (talk.into_iter().enumerate())
                .map(|(k, v)| (k, vec![Arc::from(v)]))
                .collect(),
        ),
        words: crate::meaning::built_in_talk_words(),
        table,
    }
}

/// A catalog's vectors: the global skills' index less those it hides (`hidden`, by the
/// skill's place in the workspace), an index of the skills it adds, and the vectors of every
/// skill it shows (`made` for the whole pass, `own` made for this catalog alone).
pub(super) struct CatalogMeaning<'a> {
    pub(super) base: &'a DenseIndex,
    pub(super) hidden: Vec<bool>,
    pub(super) added: DenseIndex,
    pub(super) made: &'a Made,
    pub(super) own: Made,
    /// The small talk, unless the settings write the bar (`hybrid_min_score`): then no
    /// message raises it.
    pub(super) small_talk: Option<&'a SmallTalk>,
}

impl CatalogMeaning<'_> {
    /// Examples (skill, which one) ranked by words (`lexical`, each leave-one-out) and
    /// meaning, as a runtime ranks them, each with the bar (from the catalog's `floor`) its
    /// first candidate must reach: the catalog's, raised for a message nearer small talk than
    /// any skill it shows or whose pieces lean to small talk (`route::raised_floor`; `texts`
    /// are the examples', `read` each one's words of other languages glossed, when any was:
    /// a route's vector and lean are of the text so read). Exact, like a runtime's route:
    /// every skill's similarity is found, for all the examples at once.
    pub(super) fn rank_many(
        &self,
        floor: f64,
        lexical: Vec<Ranking>,
        examples: &[(usize, usize)],
        texts: &[&str],
        read: &[Option<String>],
    ) -> Vec<(Ranking, f64)> {
        let table = crate::meaning::built_in();
        let vector = |(&(i, n), read): (&(usize, usize), &Option<String>)| match read {
            Some(text) => Some(Arc::from(table.vector(text))),
            None => {
                let (_, v) = self.own.get(&i).or_else(|| self.made.get(&i))?;
                v.get(n + 1).cloned()
            }
        };
        let vectors = examples.iter().zip(read).map(vector);
        let Some(vectors) = vectors.collect::<Option<Vec<_>>>() else {
            return lexical.into_iter().map(|r| (r, floor)).collect();
        };
        let queries: Vec<Asked<'_>> = (vectors.iter().zip(examples))
            .map(|(v, e)| (&v[..], Some(*e)))
            .collect();
        let from_base = self.base.similarities_many(&queries);
        let from_added = self.added.similarities_many(&queries);
        (lexical
            .into_iter()
            .zip(from_base)
            .zip(from_added)
            .zip(&vectors)
            .zip(texts.iter().zip(read)))
        .map(|((((lexical, base), added), q), (text, read))| {
            let text = read.as_deref().unwrap_or(text);
            let shown: Vec<Closeness> = (base.into_iter())
                .filter(|c| !self.hidden[c.skill])
                .chain(added)
                .collect();
            let bar = match self.small_talk {
                Some(talk) => {
                    let nearest = shown.iter().map(|c| c.summary).fold(0.0, f64::max);
                    // Small talk no nearer than the catalog raises nothing: only nearer
                    // summaries of it are read whole.
                    let small_talk = talk.vectors.nearest_summary_above(q, nearest);
                    let rules = RoutingRules::built_in();
                    let words =
                        talk_words(&talk.words, &talk.table.pieces(text), rules.talk_words_ends);
                    raised_floor(
                        floor,
                        small_talk,
                        nearest,
                        Some(words),
                        RoutingRules::built_in(),
                    )
                }
                None => floor,
            };
            let similarities = shown.iter().map(|c| (c.skill, c.similarity));
            (
                fused(
                    lexical,
                    similarities,
                    self.hidden.len(),
                    RoutingRules::built_in().lexical_share,
                ),
                bar,
            )
        })
        .collect()
    }
}
