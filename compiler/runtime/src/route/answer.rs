//! A route: the candidates of a bundle's catalog for a message, as every runtime answers it.

use std::collections::{BTreeSet, HashMap};

use hashbrown::HashSet;
use std::sync::Arc;

use serde::Serialize;

use super::dense::Sought;
use super::fuse::{fuse, fused, similarity_needed};
use super::history::{self, Turn};
use super::spelling::nearest_known;
use super::{
    holds_every_word, raised_floor, words_a_route_reads, Part, Ranking, RouteIndex, RoutingRules,
    RoutingSettings, Scored,
};
use crate::load::{id_runs, Reading};
use crate::{corrupt, Artifact, Bundle, BundleRef, Context, Error};

/// A candidate skill of a route, as `skillc route --format json` prints it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Candidate {
    /// Catalog id (`SK3`).
    pub id: String,
    /// Selectable name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Score in [0, 1].
    pub score: f64,
    /// The message's words it holds.
    pub matched: Vec<String>,
}

/// How far under a hybrid route's bar (the catalog's, raised or not) its candidates after the
/// first may score, when the first reaches it and they are among the first [`TAIL_WORDS`] by
/// words: the bar decides whether a message needs a skill at all; once it does, the next
/// skills both its words and its meaning point to stay for the agent's selector
/// (docs/routing.md, "The candidates after the first"). 0.05 kept 13 of the 18 requests it
/// gained on the eleven labelled sets, 0.2 none more.
pub const TAIL_BELOW: f64 = 0.1;

/// How many skills, the first by their words (lexical score, ties by name), a hybrid route's
/// candidates under its bar may be among. Of the 19 labelled requests of twelve sets whose
/// skill the candidates under the bar bring into the first five, every skill holds a word of
/// its request and 17 are among the first 20 by words (the others 37th and 271st). Skills
/// only the meaning points to stay cut at the bar, and a route reads the vectors of these 20
/// alone, whatever the catalog (every skill's, its bar down to the tail, cost the reference
/// workload's route 117 → 200 µs).
pub const TAIL_WORDS: usize = 20;

/// A route: the candidates at or above `min_score`, best first, at most `top_k`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Route {
    /// The message routed.
    pub message: String,
    /// The text routed instead of the message when it was a fragment joined to the recent
    /// messages it continues ([`history::join_fragment`]); absent (not `null`) otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub routed_text: Option<String>,
    /// Client (`None` for the global bundle).
    pub client: Option<String>,
    /// Locale of the bundle.
    pub locale: String,
    /// Tier of the bundle.
    pub tier: String,
    /// Consumer, if any.
    pub consumer: Option<String>,
    /// `lexical`, or `hybrid` with a query vector.
    pub method: &'static str,
    /// Whether the first candidate scores at least `confident`.
    pub confident: bool,
    /// The candidates.
    pub candidates: Vec<Candidate>,
    /// The score the candidates had to reach: the settings' cut, or the catalog's bar raised
    /// for a message nearer small talk than any skill ([`raised_floor`]). Not part of the
    /// answer's JSON (every runtime's): the studio's preview says it.
    #[serde(skip)]
    pub bar: f64,
    /// The score the candidates after the first had to reach: [`TAIL_BELOW`] under `bar` for
    /// a hybrid route cut at the catalog's bar, `bar` otherwise. Not part of the JSON either.
    #[serde(skip)]
    pub tail: f64,
}

impl Route {
    /// The candidates as `skillc route` prints them: a line each, score to four decimals, id,
    /// name, the words that matched.
    pub fn text(&self) -> String {
        self.candidates
            .iter()
            .map(|c| {
                format!(
                    "{:.4} {} {} ({})\n",
                    c.score,
                    c.id,
                    c.name,
                    c.matched.join(", ")
                )
            })
            .collect()
    }
}

impl Artifact {
    /// The routing settings a route of bundle `r` is cut by: [`Artifact::routing_settings`]
    /// with the hybrid cut of its catalog's size when the settings give none.
    pub fn routing_settings_of(&self, r: &BundleRef<'_>) -> Result<RoutingSettings, Error> {
        let bundle = self.bundle(r)?;
        let mut settings = self.routing_settings(r.client);
        let n = self.route_index(&bundle)?.docs.len();
        settings.hybrid_min_score = Some(settings.floor("hybrid", n, &*self.routing_rules()?));
        Ok(settings)
    }

    /// The routing index of a bundle's catalog: every skill a catalog can show (kept in the
    /// bundle).
    fn route_index(&self, bundle: &Bundle) -> Result<Arc<RouteIndex>, Error> {
        if let Some(ix) = bundle.route_index.get() {
            return Ok(ix.clone());
        }
        let terms = self.catalog_terms(bundle)?;
        let ix = Arc::new(RouteIndex::new(terms.docs()));
        Ok(bundle.route_index.get_or_init(|| ix).clone())
    }

    /// The stored terms of every skill a catalog of the bundle can show.
    fn catalog_terms(&self, bundle: &Bundle) -> Result<CatalogTerms, Error> {
        let shown: Vec<(usize, i64)> = bundle
            .skills
            .iter()
            .enumerate()
            .filter(|(_, s)| s.catalog_visible)
            .map(|(i, s)| (i, s.card))
            .collect();
        let cards: BTreeSet<i64> = shown.iter().map(|(_, c)| *c).collect();
        let mut terms: HashMap<i64, String> = HashMap::new();
        let conn = self.conn.lock().expect("lock");
        let mut st = conn
            .prepare_cached(concat!(
                "SELECT t.card, t.terms FROM ",
                in_runs!(),
                " card_route t ON t.card BETWEEN r.first AND r.last"
            ))
            .map_err(corrupt(&self.path))?;
        let ids = id_runs(cards.iter().copied());
        let rows = st
            .query_map([ids], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .map_err(corrupt(&self.path))?;
        for row in rows {
            let (id, text) = row.map_err(corrupt(&self.path))?;
            terms.insert(id, text);
        }
        Ok(CatalogTerms { shown, terms })
    }

    /// `message` as a route reads it in the bundle's catalog ([`Artifact::glossed`]; `None`:
    /// as written), its ranking by words, and the number of skills the catalog's index holds.
    /// `once`: for a process that routes once, a catalog whose index is not made yet is
    /// indexed for the words this route reads alone ([`Artifact::ranked_by_words`]), and not
    /// kept: a catalog of long bodies has hundreds of thousands of words, and indexing them all
    /// was half of such a process. Should the route look up another word, it is made again on
    /// the whole index, so the answer is always the whole index's.
    fn ranked(
        &self,
        bundle: &Bundle,
        message: &str,
        leave_out: Option<(usize, &str)>,
        rules: &RoutingRules,
        once: bool,
    ) -> Result<Ranked, Error> {
        let words = (once && bundle.route_index.get().is_none())
            .then(|| words_a_route_reads(message, rules))
            .flatten();
        if let Some(words) = words {
            if let Some(ranked) = self.ranked_by_words(bundle, words, message, leave_out, rules)? {
                return Ok(ranked);
            }
        }
        let index = self.route_index(bundle)?;
        // Its words in other languages read in English, for its words and its meaning alike.
        let glossed = self.glossed(message, &index, leave_out, rules, once)?;
        let read = glossed.as_deref().unwrap_or(message);
        let lexical = index.rank_leaving_out(read, leave_out, rules);
        let spelt = self.spelt(read, &index, &lexical, leave_out, rules)?;
        Ok((glossed, lexical, index.docs.len(), spelt))
    }

    /// The text a message's meaning vector is made of, when it is not `read` (the message as
    /// its words are read): its misspelt words read as its words are, as the nearest known
    /// words of the catalog of `index` ([`super::Meaning::spelt`]); those the ranking of
    /// `read` by words (`lexical`) already looked up are not looked up again. `None` for an
    /// artifact whose rules do not ask it (built before it) or without the built-in meaning.
    fn spelt(
        &self,
        read: &str,
        index: &RouteIndex,
        lexical: &Ranking,
        leave_out: Option<(usize, &str)>,
        rules: &RoutingRules,
    ) -> Result<Option<String>, Error> {
        let Some(spelling) = rules.spelling.as_ref().filter(|_| rules.meaning_spelling) else {
            return Ok(None);
        };
        let Some(meaning) = self.meaning()? else {
            return Ok(None);
        };
        let parts = [Part::whole(index)];
        // A word the catalog holds is read as written; another as its nearest known word.
        let held = holds_every_word(&parts, leave_out, rules);
        let near = |token: &str| match lexical.read_as.iter().find(|(t, _)| t == token) {
            Some((_, known)) => known.clone(),
            None => nearest_known(&parts, token).map(|(known, _)| known),
        };
        let tokens = |word: &str| rules.tokens(word);
        Ok(meaning.spelt(read, spelling, rules.max_words, tokens, held, near))
    }

    /// [`Artifact::ranked`] by an index of the catalog's `words` alone (and, when the message
    /// read in English asks for more, by one of those too): `None` when the route looked up
    /// another word, whose answer only the whole index gives.
    fn ranked_by_words(
        &self,
        bundle: &Bundle,
        words: HashSet<String>,
        message: &str,
        leave_out: Option<(usize, &str)>,
        rules: &RoutingRules,
    ) -> Result<Option<Ranked>, Error> {
        let terms = self.catalog_terms(bundle)?;
        let first = RouteIndex::of_words(terms.docs(), words);
        let glossed = self.glossed(message, &first, leave_out, rules, true)?;
        let read = glossed.as_deref().unwrap_or(message);
        // Read in English, a message may ask for other words (read as written, the same).
        let more = match glossed {
            Some(_) => words_a_route_reads(read, rules),
            None => Some(Default::default()),
        };
        let again;
        let index = match (first.only_words(), more) {
            (Some(words), Some(more)) if !more.iter().all(|w| words.contains(w)) => {
                let mut words = words.clone();
                words.extend(more);
                again = RouteIndex::of_words(terms.docs(), words);
                &again
            }
            _ => &first,
        };
        let lexical = index.rank_leaving_out(read, leave_out, rules);
        let spelt = self.spelt(read, index, &lexical, leave_out, rules)?;
        let asked_another = first.asked_another() || index.asked_another();
        Ok((!asked_another).then_some((glossed, lexical, index.docs.len(), spelt)))
    }

    /// Routes `message` in the catalog of a bundle for a consumer and context: the skills it
    /// shows, ranked, at or above `min_score`, at most `top` (the settings' `top_k` by default).
    pub fn route(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        message: &str,
        top: Option<usize>,
    ) -> Result<Route, Error> {
        let query = Query {
            message,
            top,
            ..Query::default()
        };
        self.route_query(r, consumer, ctx, &query)
    }

    /// Routes a query: by words, or by words and vectors when it carries the message's vector
    /// (`hybrid`; the artifact must hold vectors of the same model and length).
    pub fn route_query(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        q: &Query<'_>,
    ) -> Result<Route, Error> {
        let bundle = self.bundle(r)?;
        self.route_in(&bundle, r, consumer, ctx, q, false)
    }

    /// [`Artifact::route_query`] for a process that routes one message and ends (`skillc
    /// route`): a bundle not loaded yet is read only as far as a route needs it (names, order,
    /// conditions and cards, not the prompts) and is not kept, as [`Artifact::catalog_text`]
    /// does for a catalog, and the glossary of other languages' words is looked up in its
    /// row where it lies rather than read whole. The same route; a query leaving a trigger
    /// example out (`eval`) needs the examples and loads the bundle whole.
    pub fn route_once(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        q: &Query<'_>,
    ) -> Result<Route, Error> {
        let info = self.find_bundle(r)?;
        if q.leave_out.is_some() || self.loaded.contains(info.id) {
            return self.route_query(r, consumer, ctx, q);
        }
        let bundle = self.load(&info, Reading::CatalogText)?;
        self.route_in(&bundle, r, consumer, ctx, q, true)
    }

    /// A route in `bundle`, the bundle `r` names; `once`: the only one the process asks for
    /// (what it reads, it reads for this route alone).
    fn route_in(
        &self,
        bundle: &Bundle,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        q: &Query<'_>,
        once: bool,
    ) -> Result<Route, Error> {
        let routed_text = q.routed_text();
        let (message, top) = (routed_text.as_deref().unwrap_or(q.message), q.top);
        let settings = self.routing_settings(r.client);
        // The artifact's rules, which its index was built by (docs/artifact.md).
        let rules = self.routing_rules()?;
        let members = self.catalog_members(bundle, consumer, ctx)?;
        // Catalog position (1-based) of each shown skill; 0: not in this catalog.
        let mut position = vec![0usize; bundle.skills.len()];
        for (n, &i) in members.iter().enumerate() {
            position[i] = n + 1;
        }
        let (glossed, lexical, n, spelt) =
            self.ranked(bundle, message, q.leave_out, &rules, once)?;
        let message = glossed.as_deref().unwrap_or(message);
        // Without a vector of the caller's, the artifact's built-in meaning makes one.
        let own = match q.vector {
            None => self.meaning_vector(spelt.as_deref().unwrap_or(message))?,
            Some(_) => None,
        };
        let (ranking, method, floor, tail) = match q.vector.or(own.as_deref()) {
            None => {
                let floor = settings.floor("lexical", n, &rules);
                (lexical, "lexical", floor, Tail::none(floor))
            }
            Some(v) => {
                let asked = (message, v);
                let shown = |skill: usize| position[skill] > 0;
                let (ranking, bar, tail) = self.hybrid(
                    bundle,
                    lexical,
                    asked,
                    q.leave_out,
                    &shown,
                    (&settings, &rules),
                )?;
                (ranking, "hybrid", bar, tail)
            }
        };
        let top = top.unwrap_or(settings.top_k);
        let candidates = candidates(bundle, &ranking, &position, (floor, &tail), top);
        Ok(Route {
            message: q.message.to_string(),
            routed_text,
            client: (!bundle.client.is_empty()).then(|| bundle.client.clone()),
            locale: bundle.locale.clone(),
            tier: bundle.tier.clone(),
            consumer: consumer.map(str::to_string),
            method,
            confident: candidates
                .first()
                .is_some_and(|c| c.score >= settings.confident),
            candidates,
            bar: floor,
            tail: tail.at,
        })
    }

    /// Refuses a query vector this artifact cannot measure: it carries no vectors, or of
    /// another length.
    fn check_query_vector(&self, vector: &[f32]) -> Result<(), Error> {
        let Some((model, dims)) = self.embedding_model() else {
            return Err(Error::Request(
                "this artifact carries no embedding vectors (its workspace sets no \
                 `routing.embedding_model`), so it routes by words only; give no query vector"
                    .to_string(),
            ));
        };
        if vector.len() != dims {
            return Err(Error::Request(format!(
                "the query vector has {} numbers; this artifact's model `{model}` gives {dims}",
                vector.len()
            )));
        }
        Ok(())
    }

    /// The lexical ranking fused with each shown skill's similarity to `vector`, the bar its
    /// first candidate must reach: the settings' `hybrid_min_score` as written, else the
    /// catalog's bar, raised for a message nearer small talk than any skill ([`raised_floor`]);
    /// and the bar of the candidates after it ([`Tail`]): the same as written, else the rules'
    /// `tail_below` under the bar for the first `tail_words` skills by words, once a skill the
    /// catalog shows (`shown`) reaches the bar.
    fn hybrid(
        &self,
        bundle: &Bundle,
        lexical: Ranking,
        (message, vector): (&str, &[f32]),
        leave_out: Option<(usize, &str)>,
        shown: &dyn Fn(usize) -> bool,
        (settings, rules): (&RoutingSettings, &RoutingRules),
    ) -> Result<(Ranking, f64, Tail), Error> {
        self.check_query_vector(vector)?;
        let mut words = vec![0.0; bundle.skills.len()];
        for s in &lexical.scored {
            words[s.skill] = s.score;
        }
        let example = leave_out.and_then(|(skill, text)| {
            let n = bundle.skills[skill]
                .triggers
                .iter()
                .position(|t| t == text)?;
            Some((skill, n))
        });
        let dense = self.dense_index(bundle)?;
        let floor = settings.floor("hybrid", dense.len(), rules);
        let talk = settings
            .hybrid_min_score
            .is_none()
            .then(|| self.small_talk());
        // Below the bar by the rules' `tail_below` when the catalog's bar cuts (none when the
        // settings write it).
        let below = match settings.hybrid_min_score {
            None => rules.tail_below,
            Some(_) => 0.0,
        };
        let share = rules.lexical_share;
        // A skill's similarity matters only if it can lift its score to the catalog's bar (a
        // raised bar needs no more: it is higher).
        let mut sought = Sought::default();
        let needed = |skill: usize| similarity_needed(floor, words[skill], share);
        let similarities = dense.similarities_sought(vector, example, &needed, &mut sought);
        let bar = match talk.transpose()?.flatten() {
            Some(talk) => {
                let small_talk = talk.nearest_summary(vector, f64::INFINITY);
                // Only a skill nearer than the small talk matters: the bar is not raised then.
                let nearest = dense.nearest_summary_sought(vector, small_talk, &sought);
                raised_floor(floor, small_talk, nearest, self.talk_lean(message)?, rules)
            }
            None => floor,
        };
        let tail = super::round((bar - below).max(0.0));
        // The first skills by words, the only ones that may be candidates under the bar.
        let by_words = match tail < bar {
            true => first_by_words(bundle, &lexical, shown, rules.tail_words),
            false => Vec::new(),
        };
        let mut ranking = fused(lexical, similarities, bundle.skills.len(), share);
        // When a skill reaches the bar, their similarities down to the tail (those already
        // read are not read again).
        let fires = (ranking.scored.iter()).any(|s| s.score >= bar && shown(s.skill));
        if tail < bar && fires {
            let needed = |skill: usize| similarity_needed(tail, words[skill], share);
            let read = dense.similarities_of(vector, example, &by_words, &needed, &mut sought);
            // A few skills: each looked up among them.
            for s in ranking.scored.iter_mut().filter(|s| by_words[s.skill]) {
                if let Some(&(_, found)) = read.iter().find(|(skill, _)| *skill == s.skill) {
                    s.score = fuse(words[s.skill], found, share);
                }
            }
        }
        Ok((ranking, bar, Tail { at: tail, by_words }))
    }
}

/// The first `n` skills of `bundle` by their words (`lexical`, ties by name) of those holding
/// one that the catalog shows (`shown`), marked by their index.
fn first_by_words(
    bundle: &Bundle,
    lexical: &Ranking,
    shown: &dyn Fn(usize) -> bool,
    n: usize,
) -> Vec<bool> {
    let mut marked = vec![false; bundle.skills.len()];
    let name_of = |i: usize| bundle.skills[i].name.as_str();
    let held = |s: &Scored| s.score > 0.0 && shown(s.skill);
    for s in lexical.best(held, name_of, n) {
        marked[s.skill] = true;
    }
    marked
}

/// A route's candidates in `ranking`: none unless the best the catalog shows (`position`
/// non-zero) reaches `floor`; else the first `top` of those at or above it, and of those
/// `tail` marks down to its bar. Best first, ties by name.
fn candidates(
    bundle: &Bundle,
    ranking: &Ranking,
    position: &[usize],
    (floor, tail): (f64, &Tail),
    top: usize,
) -> Vec<Candidate> {
    let kept = |s: &Scored| {
        s.score >= floor || (s.score >= tail.at && tail.by_words.get(s.skill) == Some(&true))
    };
    let mut ranked = ranking.best(
        |s| kept(s) && position[s.skill] > 0,
        |i| &bundle.skills[i].name,
        top,
    );
    // Only a first candidate at the bar makes a route: the others may be under it.
    if ranked.first().is_some_and(|s| s.score < floor) {
        ranked.clear();
    }
    (ranked.into_iter())
        .map(|s| {
            let skill = &bundle.skills[s.skill];
            Candidate {
                id: format!("SK{}", position[s.skill]),
                name: skill.name.clone(),
                qualified_name: skill.qualified_name.clone(),
                score: s.score,
                matched: ranking.matched(s),
            }
        })
        .collect()
}

/// The bar of a route's candidates after the first: `at`, for the skills `by_words` marks (by
/// index in the bundle); the others' is the route's bar.
struct Tail {
    at: f64,
    by_words: Vec<bool>,
}

impl Tail {
    /// No candidate under the bar: a lexical route's, or a hybrid one's whose settings write
    /// its cut.
    fn none(bar: f64) -> Tail {
        Tail {
            at: bar,
            by_words: Vec::new(),
        }
    }
}

/// A message as a route reads it (`None`: as written), its ranking by words, the number of
/// skills of the index that ranked it, and the text its meaning is made of when that is not
/// the message as read ([`Artifact::ranked`]).
type Ranked = (Option<String>, Ranking, usize, Option<String>);

/// The stored terms of the skills a bundle's catalogs can show: each shown skill and its card,
/// and each card's terms (`card_route.terms`).
struct CatalogTerms {
    shown: Vec<(usize, i64)>,
    terms: HashMap<i64, String>,
}

impl CatalogTerms {
    /// Each shown skill with its terms, as [`RouteIndex::new`] takes them.
    fn docs(&self) -> impl Iterator<Item = (usize, &str)> {
        (self.shown.iter()).map(|(i, card)| (*i, self.terms.get(card).map_or("", String::as_str)))
    }
}

/// What a route asks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<'q> {
    /// The visitor's message.
    pub message: &'q str,
    /// At most this many candidates (the settings' `top_k` by default).
    pub top: Option<usize>,
    /// The message's vector from the artifact's embedding model: a hybrid route.
    pub vector: Option<&'q [f32]>,
    /// A skill (index into the bundle's skills) and one of its trigger examples, taken out of
    /// the index while the message is ranked: `eval`'s leave-one-out.
    pub leave_out: Option<(usize, &'q str)>,
    /// The visitor's recent messages, oldest first: a fragment of the conversation is routed
    /// joined to them (seed 001's stage 0, [`history::join_fragment`]).
    pub history: &'q [Turn<'q>],
    /// When the message was sent (seconds, the clock of `history`'s times; now when `None`).
    pub time: Option<f64>,
}

impl Query<'_> {
    /// The text to route instead of the message, when it is a fragment that joins its history.
    fn routed_text(&self) -> Option<String> {
        if self.history.is_empty() {
            return None;
        }
        let time = self.time.unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(0.0, |d| d.as_secs_f64())
        });
        history::join_fragment(self.message, time, self.history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Artifact {
        let path = format!("{}/tests/data/sample.db", env!("CARGO_MANIFEST_DIR"));
        Artifact::open(path).unwrap()
    }

    /// A warm runtime makes its catalog's whole index once and keeps it; a process that routes
    /// once ranks by the words its route reads, and ranks as the whole index does; a message
    /// read in English (German here) is ranked by its English words too; and an index short
    /// of a word the route looks up ranks nothing, so that the whole index answers.
    #[test]
    fn a_route_ranks_by_the_words_it_reads_or_by_the_whole_index() {
        let rules = sample().routing_rules().unwrap();
        let global = BundleRef::default();
        let messages = [
            "how much does the pro plan cost?",
            "pls turn this into a pdf press relase",
            "konvertiere diese Datei bitte in ein PDF",
            "価格はいくらですか",
        ];
        for message in messages {
            // A fresh artifact each time: a bundle whose index is not made yet.
            let a = sample();
            let bundle = a.bundle(&global).unwrap();
            let words = words_a_route_reads(message, &rules).unwrap();
            let by_words = a.ranked_by_words(&bundle, words, message, None, &rules);
            let by_words = by_words.unwrap().unwrap_or_else(|| panic!("{message}"));
            assert!(bundle.route_index.get().is_none());
            let once = a.ranked(&bundle, message, None, &rules, true).unwrap();
            assert!(bundle.route_index.get().is_none());
            let warm = a.ranked(&bundle, message, None, &rules, false).unwrap();
            assert!(
                bundle.route_index.get().is_some(),
                "a warm route keeps its index"
            );
            let sorted = |(glossed, mut r, n, spelt): Ranked| {
                r.scored.sort_by_key(|s| s.skill);
                (glossed, r, n, spelt)
            };
            assert_eq!(sorted(by_words.clone()), sorted(warm.clone()), "{message}");
            assert_eq!(sorted(once), sorted(warm.clone()), "{message}");
            if message.starts_with("konvertiere") {
                assert!(
                    warm.0.as_deref().is_some_and(|g| g.contains("convert")),
                    "{warm:?}"
                );
            }
        }
        // The message's words without the neighbours of its misspelt one: the route asks for
        // another word, and this index answers nothing.
        let a = sample();
        let bundle = a.bundle(&global).unwrap();
        let message = "pls turn this into a pdf press relase";
        let words = rules.tokens(message).into_iter().collect();
        let short = a.ranked_by_words(&bundle, words, message, None, &rules);
        assert_eq!(short.unwrap(), None);
        // Without the word the glossary reads in English (the index is asked whether it holds
        // it first): the message read in English is indexed again, but what it was read as
        // may not be the whole index's, and this index answers nothing either.
        let message = "konvertiere diese Datei bitte in ein PDF";
        let mut words = words_a_route_reads(message, &rules).unwrap();
        assert!(words.remove(&rules.tokens("konvertiere")[0]));
        let short = a.ranked_by_words(&bundle, words, message, None, &rules);
        assert_eq!(short.unwrap(), None);
    }
}
