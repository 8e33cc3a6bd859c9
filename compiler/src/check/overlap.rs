//! Overlap warnings (W118): two skills of one catalog whose descriptions and trigger examples
//! are so alike that a selector may not tell them apart. Similarity is the cosine of TF-IDF
//! word vectors (words of three letters or more, common English words left out), compared with
//! `catalog.overlap_threshold` of `workspace.yaml`. `distinct_from: [other]` in either skill's
//! frontmatter dismisses a pair.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;

use super::{Memory, Recall};
use crate::diagnostic::{codes, Diagnostic};
use crate::model::{Scope, Skill, Workspace};

use super::catalogs::{catalogs, listed, Catalog};

/// Words too common to tell skills apart.
const STOPWORDS: &[&str] = &[
    "about", "after", "all", "also", "and", "any", "are", "ask", "asks", "been", "but", "can",
    "does", "for", "from", "get", "has", "have", "how", "into", "its", "not", "one", "our", "out",
    "should", "skill", "such", "than", "that", "the", "their", "them", "then", "there", "they",
    "this", "use", "used", "user", "uses", "using", "was", "what", "when", "where", "which", "who",
    "why", "will", "with", "would", "you", "your",
];

/// Fewest distinct words two texts share to count as overlapping.
const MIN_SHARED_WORDS: usize = 3;

/// A skill's catalog text as a unit-length sparse vector: (term, weight), by term.
type Vector = Vec<(u32, f32)>;

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
}

/// What a catalog shows of a skill that selectors read: description and trigger examples.
fn catalog_words(s: &Skill) -> Vec<String> {
    let fm = &s.frontmatter;
    let mut all: Vec<String> = words(fm.description.as_deref().unwrap_or("")).collect();
    for t in &fm.trigger_examples {
        all.extend(words(t));
    }
    all
}

/// How often each word appears in one skill's catalog text, by word id.
type TermCounts = BTreeMap<u32, f32>;

pub(crate) use crate::model::census::Words;

impl Words {
    /// Counts the listed ones of `skills` (indices into `ws.skills`, in workspace order) into
    /// the vocabulary, and returns their term counts.
    pub(crate) fn add(&mut self, ws: &Workspace, skills: &[usize]) -> Vec<(usize, TermCounts)> {
        let mut counts = Vec::new();
        for &i in skills.iter().filter(|&&i| listed(ws, &ws.skills[i])) {
            let mut tf = TermCounts::new();
            for w in catalog_words(&ws.skills[i]) {
                let next = self.ids.len() as u32;
                let id = *self.ids.entry(w).or_insert(next);
                *tf.entry(id).or_default() += 1.0;
            }
            self.df.resize(self.ids.len(), 0);
            for id in tf.keys() {
                self.df[*id as usize] += 1;
            }
            self.listed += 1;
            counts.push((i, tf));
        }
        counts
    }

    /// The term counts of `listed`, whose words this vocabulary has counted already.
    fn counts_of(&self, ws: &Workspace, listed: &[usize]) -> Vec<(usize, TermCounts)> {
        let count = |i: usize| {
            let mut tf = TermCounts::new();
            for id in catalog_words(&ws.skills[i])
                .iter()
                .filter_map(|w| self.ids.get(w))
            {
                *tf.entry(*id).or_default() += 1.0;
            }
            (i, tf)
        };
        listed.iter().map(|&i| count(i)).collect()
    }

    /// The words by id.
    fn vocabulary(&self) -> Vec<String> {
        let mut words = vec![String::new(); self.ids.len()];
        for (w, id) in &self.ids {
            words[*id as usize] = w.clone();
        }
        words
    }
}

/// The TF-IDF vector of every skill (by index in `ws.skills`; empty unless listed) from the
/// term counts of the listed ones.
fn vectors(ws: &Workspace, counts: Vec<(usize, TermCounts)>, words: &Words) -> Vec<Vector> {
    let n = words.listed as f32;
    let df = &words.df;
    let mut vectors = vec![Vector::new(); ws.skills.len()];
    for (i, tf) in counts {
        let mut v: Vector = tf
            .into_iter()
            .map(|(id, count)| {
                let idf = ((n + 1.0) / (df[id as usize] as f32 + 1.0)).ln() + 1.0;
                (id, count.sqrt() * idf)
            })
            .collect();
        let norm = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|(_, w)| *w /= norm);
        }
        vectors[i] = v;
    }
    vectors
}

/// Whether either skill says the other is meant to look alike.
pub(super) fn dismissed(a: &Skill, b: &Skill) -> bool {
    if a.frontmatter.distinct_from.is_empty() && b.frontmatter.distinct_from.is_empty() {
        return false;
    }
    let names = |s: &Skill| [s.name.clone(), s.qualified_name()];
    let says = |x: &Skill, y: &Skill| {
        x.frontmatter
            .distinct_from
            .iter()
            .any(|r| names(y).contains(&r.text))
    };
    says(a, b) || says(b, a)
}

/// A skill's closest look-alike over the threshold.
#[derive(Debug, Clone, Copy)]
struct LookAlike<'a> {
    /// The cosine of the two skills' vectors.
    similarity: f32,
    /// The look-alike, the earlier skill of the pair (an index into `ws.skills`).
    first: usize,
    /// The client of the catalog they are in together (`None`: the global catalog).
    client: Option<&'a str>,
    /// How many skills are over the threshold with the skill, the look-alike included.
    over_threshold: usize,
}

/// A skill's closest look-alike, if any is over the threshold.
type Best<'a> = Option<LookAlike<'a>>;

/// The better of two bests (higher similarity, then the earlier skill), counting both.
fn merge<'a>(x: Best<'a>, y: Best<'a>) -> Best<'a> {
    match (x, y) {
        (None, b) | (b, None) => b,
        (Some(p), Some(q)) => {
            let rank = |l: &LookAlike<'_>| (l.similarity, std::cmp::Reverse(l.first));
            let best = if rank(&q) > rank(&p) { q } else { p };
            Some(LookAlike {
                over_threshold: p.over_threshold + q.over_threshold,
                ..best
            })
        }
    }
}

/// What W118 compares: the listed skills' vectors, and the bar a pair must pass.
struct Comparison<'v> {
    /// The skills the catalogs list (indices into `ws.skills`, in workspace order).
    listed: &'v [usize],
    /// Each skill's vector, by index into `ws.skills`.
    vectors: &'v [Vector],
    /// The vocabulary's size: the length of a vector spread densely.
    terms: usize,
    /// The similarity at or over which two skills look alike.
    threshold: f32,
    /// The description template (W132) each skill follows, by index into `ws.skills`: two
    /// skills of one template look alike by it, and W132 says so once for them all.
    template: &'v [Option<usize>],
}

/// Everything the pass reads of a workspace: an edit that leaves it equal (a body, an asset,
/// a template) leaves the warnings as they were. The skills are held rather than copied: a
/// session hands an unchanged skill's parse out again, so most compare by address, and only
/// the others field by field.
#[derive(Debug)]
pub(super) struct Inputs {
    threshold: u32,
    /// `routing:` of workspace.yaml and of each client (W119 reads the `min_score`s).
    routing: Vec<Option<serde_json::Value>>,
    skills: Vec<Arc<Skill>>,
    /// Each client's toggles (skill name, enabled).
    toggles: Vec<(String, Vec<(String, bool)>)>,
    /// Categories hidden from the model.
    hidden_categories: Vec<String>,
}

impl PartialEq for Inputs {
    fn eq(&self, other: &Self) -> bool {
        self.threshold == other.threshold
            && self.routing == other.routing
            && self.toggles == other.toggles
            && self.hidden_categories == other.hidden_categories
            && self.skills.len() == other.skills.len()
            && self
                .skills
                .iter()
                .zip(&other.skills)
                .all(|(a, b)| Arc::ptr_eq(a, b) || SkillInputs::of(a) == SkillInputs::of(b))
    }
}

/// What the pass reads of one skill.
#[derive(Debug, PartialEq)]
struct SkillInputs<'s> {
    scope: &'s Scope,
    file: &'s str,
    name: &'s str,
    namespace: &'s str,
    category: Option<&'s str>,
    hidden: bool,
    variant: bool,
    default_enabled: Option<bool>,
    description: Option<&'s str>,
    description_pos: crate::diagnostic::Pos,
    trigger_examples: &'s [String],
    examples_pos: &'s [crate::diagnostic::Pos],
    when_to_use: &'s [String],
    distinct_from: Vec<&'s str>,
}

impl<'s> SkillInputs<'s> {
    fn of(s: &'s Skill) -> Self {
        let fm = &s.frontmatter;
        SkillInputs {
            scope: &s.scope,
            file: &s.file,
            name: &s.name,
            namespace: &s.namespace,
            category: s.category.as_deref(),
            hidden: fm.hidden_from_llm,
            variant: fm.variant_of.is_some(),
            default_enabled: fm.default_enabled,
            description: fm.description.as_deref(),
            description_pos: s.description_pos,
            trigger_examples: &fm.trigger_examples,
            examples_pos: &s.examples_pos,
            when_to_use: &fm.when_to_use,
            distinct_from: fm.distinct_from.iter().map(|r| r.text.as_str()).collect(),
        }
    }
}

impl Inputs {
    /// The skills whose inputs differ from `other`'s, when nothing else does (the same
    /// settings, toggles and skills in the same places).
    fn changed_skills(&self, other: &Inputs) -> Option<HashSet<usize>> {
        let same_rest = self.threshold == other.threshold
            && self.routing == other.routing
            && self.toggles == other.toggles
            && self.hidden_categories == other.hidden_categories
            && self.skills.len() == other.skills.len();
        let changed = (self.skills.iter().zip(&other.skills).enumerate())
            .filter(|(_, (a, b))| !(Arc::ptr_eq(a, b) || SkillInputs::of(a) == SkillInputs::of(b)))
            .map(|(i, _)| i);
        same_rest.then(|| changed.collect())
    }

    fn of(ws: &Workspace) -> Self {
        let toggles = ws
            .clients
            .values()
            .map(|c| {
                let t = c.toggles.iter().map(|(n, t)| (n.clone(), t.enabled));
                (c.id.clone(), t.collect())
            })
            .collect();
        let hidden_categories = ws
            .categories
            .values()
            .filter(|c| c.hidden_from_llm)
            .map(|c| c.id.clone())
            .collect();
        let clients = ws.clients.values().map(|c| c.routing.clone());
        Inputs {
            threshold: ws.config.overlap_threshold,
            routing: std::iter::once(ws.config.routing.clone())
                .chain(clients)
                .collect(),
            skills: ws.skills.clone(),
            toggles,
            hidden_categories,
        }
    }
}

/// A pass's last inputs and warnings in a session.
pub(super) type Last = std::sync::Mutex<Option<(Inputs, Vec<Diagnostic>)>>;

/// W118 for every pair of skills sharing a catalog whose texts are at least as alike as
/// `catalog.overlap_threshold`.
pub(crate) fn warnings(ws: &Workspace, recall: Recall<'_>) -> Vec<Diagnostic> {
    if ws.config.overlap_threshold > 100 {
        return Vec::new();
    }
    remembered(|m| &m.overlap, ws, recall, compute)
}

/// What a pass computes: every listed skill's warnings, or those of `only` (a draft's edited
/// skills), with the session's memory, whose next pass may take the catalogs again.
pub(super) type Compute =
    fn(&Workspace, Option<&HashSet<usize>>, Option<&Memory>) -> Vec<Diagnostic>;

/// The warnings of a pass over catalog texts: in a session, the last pass's (the part of its
/// memory that `last` picks) when its inputs are equal, and this pass left there for the
/// next; a one-shot check keeps nothing (at 50,000 clients the warnings alone are hundreds of
/// megabytes). A draft's check whose edits changed the inputs of a few skills only redoes
/// those skills' warnings over the last full pass's others, and leaves the memory as it was:
/// on the reference workload a keystroke in a description costs W118 and W119 about 40 ms
/// together, not the 450 ms of a pass over every catalog.
pub(super) fn remembered(
    last: fn(&Memory) -> &Last,
    ws: &Workspace,
    recall: Recall<'_>,
    compute: Compute,
) -> Vec<Diagnostic> {
    let Some(memory) = recall.memory() else {
        let clients_only = matches!(recall, Recall::LaterBatch).then(|| client_skills(ws));
        return compute(ws, clients_only.as_ref(), None);
    };
    let inputs = Inputs::of(ws);
    if let Ok(last) = last(memory).lock() {
        if let Some((seen, warnings)) = last.as_ref() {
            if *seen == inputs {
                return warnings.clone();
            }
            let few = seen
                .changed_skills(&inputs)
                .filter(|c| c.len() <= MAX_DRAFT_EDITS);
            if let (Recall::Draft(_), Some(changed)) = (recall, few) {
                let files: HashSet<&str> = (changed.iter())
                    .flat_map(|&i| [ws.skills[i].file.as_str(), seen.skills[i].file.as_str()])
                    .collect();
                let mut out: Vec<Diagnostic> = (warnings.iter())
                    .filter(|d| !files.contains(d.file.as_str()))
                    .cloned()
                    .collect();
                out.extend(compute(ws, Some(&changed), Some(memory)));
                return out;
            }
        }
    }
    let warnings = compute(ws, None, Some(memory));
    if let Ok(mut last) = last(memory).lock() {
        *last = Some((inputs, warnings.clone()));
    }
    warnings
}

/// The skills of client folders: a client's catalog is the one catalog whose warnings they
/// get (W118 warns the later skill of a pair, and global skills come first).
fn client_skills(ws: &Workspace) -> HashSet<usize> {
    (0..ws.skills.len())
        .filter(|&i| matches!(ws.skills[i].scope, crate::model::Scope::Client(_)))
        .collect()
}

/// Skills a draft's check redoes alone; more edited skills (a search and replace) redo the
/// whole pass.
const MAX_DRAFT_EDITS: usize = 4;

/// W118 of every listed skill, or of the skills of `only` (a draft's edited skills).
fn compute(
    ws: &Workspace,
    only: Option<&HashSet<usize>>,
    memory: Option<&Memory>,
) -> Vec<Diagnostic> {
    let threshold = ws.config.overlap_threshold as f32 / 100.0;
    let listed: Vec<usize> = (0..ws.skills.len())
        .filter(|&i| listed(ws, &ws.skills[i]))
        .collect();
    // A batch of a larger workspace weighs words over all of it, as a whole load does.
    let mut own = Words::default();
    let (words, counts) = match ws.census.as_deref() {
        Some(census) => (&census.words, census.words.counts_of(ws, &listed)),
        None => {
            let counts = own.add(ws, &listed);
            (&own, counts)
        }
    };
    let vectors = vectors(ws, counts, words);
    let vocabulary = words.vocabulary();
    let template = super::template_descriptions::template_of_each(ws);
    let comparison = Comparison {
        listed: &listed,
        vectors: &vectors,
        terms: vocabulary.len(),
        threshold,
        template: &template,
    };
    let best = closest(ws, &comparison, memory, only);
    best.into_iter()
        .enumerate()
        .filter(|(second, _)| only.is_none_or(|o| o.contains(second)))
        .filter_map(|(second, b)| b.map(|b| (second, b)))
        .map(|(second, b)| warning(ws, second, b, &vectors, &vocabulary))
        .collect()
}

/// Each skill's closest look-alike over the threshold, on the later of each pair in workspace
/// order: a workspace of near-identical texts gets a warning per skill, not one per pair.
/// Each skill's vector is spread over a dense array once, so a partner costs a look-up per
/// term; each thread keeps the best per skill, and merging keeps the best of the bests (the
/// same whatever the split). With `only`, just the pairs that hold one of its skills.
fn closest<'a>(
    ws: &'a Workspace,
    comparison: &Comparison<'_>,
    memory: Option<&Memory>,
    only: Option<&HashSet<usize>>,
) -> Vec<Best<'a>> {
    let vector = |i: usize| &comparison.vectors[i];
    let n = ws.skills.len();
    // A flag per skill: looked up for each of millions of pairs.
    let flags: Option<Vec<bool>> = only.map(|o| (0..n).map(|i| o.contains(&i)).collect());
    let wanted = |i: &usize| flags.as_ref().is_none_or(|f| f[*i]);
    let mut catalogs = catalogs(ws, comparison.listed, memory);
    catalogs.retain(|c| c.own.iter().chain(c.kept.iter()).any(wanted));
    let jobs: Vec<(&Catalog, usize)> = catalogs
        .iter()
        .flat_map(|c| (0..c.own.len()).map(move |n| (c, n)))
        .collect();
    jobs.into_par_iter()
        .fold(
            || (vec![0f32; comparison.terms], vec![None; n]),
            |(mut dense, mut best), (catalog, nth)| {
                let (a, client) = (catalog.own[nth], catalog.client);
                let pairs_wanted = wanted(&a);
                // Spread over `dense` at its first wanted pair (a draft's pass wants few).
                let mut spread = false;
                for b in catalog.partners(nth).filter(|b| pairs_wanted || wanted(b)) {
                    if !spread {
                        for (id, w) in vector(a) {
                            dense[*id as usize] = *w;
                        }
                        spread = true;
                    }
                    if let Some((second, found)) = look_alike(ws, comparison, &dense, a, b, client)
                    {
                        best[second] = merge(best[second], Some(found));
                    }
                }
                if spread {
                    for (id, _) in vector(a) {
                        dense[*id as usize] = 0.0;
                    }
                }
                (dense, best)
            },
        )
        .map(|(_, best)| best)
        .reduce(
            || vec![None; n],
            |x, y| x.into_iter().zip(y).map(|(p, q)| merge(p, q)).collect(),
        )
}

/// The pair of `a` (spread over `dense`) and `b` in `client`'s catalog, as the later skill's
/// look-alike, when it passes the bar: similar enough, sharing enough words, not dismissed.
fn look_alike<'a>(
    ws: &Workspace,
    comparison: &Comparison<'_>,
    dense: &[f32],
    a: usize,
    b: usize,
    client: Option<&'a str>,
) -> Option<(usize, LookAlike<'a>)> {
    let vector = &comparison.vectors[b];
    let similarity: f32 = (vector.iter()).map(|(id, w)| dense[*id as usize] * w).sum();
    let (first, second) = (a.min(b), a.max(b));
    // A word or two in common (a placeholder description) is not an overlap.
    let shared = || {
        (vector.iter())
            .filter(|(id, _)| dense[*id as usize] > 0.0)
            .count()
    };
    let one_template = comparison.template[first].is_some()
        && comparison.template[first] == comparison.template[second];
    let alike = similarity >= comparison.threshold
        && shared() >= MIN_SHARED_WORDS
        && !one_template
        && !dismissed(&ws.skills[first], &ws.skills[second]);
    let found = LookAlike {
        similarity,
        first,
        client,
        over_threshold: 1,
    };
    alike.then_some((second, found))
}

/// The W118 warning of skill `second` and its closest look-alike.
fn warning(
    ws: &Workspace,
    second: usize,
    look_alike: LookAlike<'_>,
    vectors: &[Vector],
    vocabulary: &[String],
) -> Diagnostic {
    let LookAlike {
        similarity: sim,
        first,
        client,
        over_threshold: count,
    } = look_alike;
    let (x, y) = (&ws.skills[first], &ws.skills[second]);
    // The words that weigh most in both.
    let vector = |i: usize| &vectors[i];
    let mut shared: Vec<(f32, &str)> = Vec::new();
    let (vx, vy) = (vector(first), vector(second));
    for (id, w) in vx {
        if let Ok(k) = vy.binary_search_by_key(id, |(t, _)| *t) {
            shared.push((w * vy[k].1, vocabulary[*id as usize].as_str()));
        }
    }
    shared.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(q.1)));
    let shared: Vec<&str> = shared.iter().take(5).map(|(_, w)| *w).collect();
    let catalog = match client {
        None => "the global catalog".to_string(),
        Some(c) => format!("client {c}'s catalog"),
    };
    let more = match count - 1 {
        0 => String::new(),
        1 => " (one more skill is over the threshold too)".to_string(),
        n => format!(" ({n} more skills are over the threshold too)"),
    };
    Diagnostic::new(
        codes::OVERLAP,
        &y.file,
        y.description_pos,
        format!(
            "`{}` and `{}` ({}) look alike in {catalog}: similarity {sim:.2} over \
             description and trigger examples, sharing {}; a selector may not tell \
             them apart{more}",
            y.name,
            x.name,
            x.file,
            shared.join(", ")
        ),
    )
    .with_help(format!(
        "say in the description what sets `{}` apart, or add `distinct_from: [{}]` \
         to its frontmatter if they are meant to look alike",
        y.name, x.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Workspace {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/overlap/workspace");
        crate::check(&root, &Default::default()).unwrap().workspace
    }

    fn skill<'w>(ws: &'w mut Workspace, name: &str) -> &'w mut Skill {
        let skill = ws.skills.iter_mut().find(|s| s.name == name).unwrap();
        std::sync::Arc::make_mut(skill)
    }

    /// Every input the pass reads, changed one at a time: the kept result is never served
    /// for a workspace it was not computed from.
    #[test]
    fn the_last_result_is_reused_only_for_equal_inputs() {
        let mut ws = fixture();
        let memory = Memory::default();
        let check = |ws: &Workspace| {
            assert_eq!(
                warnings(ws, Recall::Session(&memory)),
                compute(ws, None, None)
            )
        };
        check(&ws);
        assert!(!compute(&ws, None, None).is_empty());
        skill(&mut ws, "returns").body.push_str("A body edit.");
        check(&ws);
        type Edit = Box<dyn Fn(&mut Workspace)>;
        let edits: Vec<Edit> = vec![
            Box::new(|ws| {
                skill(ws, "returns").frontmatter.description =
                    Some("Ship parcels abroad quickly.".into())
            }),
            Box::new(|ws| {
                skill(ws, "refunds")
                    .frontmatter
                    .trigger_examples
                    .push("refund order policy request timelines".into())
            }),
            Box::new(|ws| skill(ws, "billing").name = "billing-desk".into()),
            Box::new(|ws| skill(ws, "invoices").description_pos.line += 1),
            Box::new(|ws| ws.config.overlap_threshold = 95),
            Box::new(|ws| ws.config.overlap_threshold = 50),
            Box::new(|ws| skill(ws, "refunds").frontmatter.default_enabled = Some(false)),
            Box::new(|ws| {
                let t = crate::model::Toggle {
                    enabled: true,
                    pos: Default::default(),
                };
                ws.clients
                    .get_mut("acme")
                    .unwrap()
                    .toggles
                    .insert("refunds".into(), t);
            }),
            Box::new(|ws| {
                skill(ws, "refund-policy")
                    .frontmatter
                    .distinct_from
                    .push(crate::model::SkillRef {
                        text: "refunds".into(),
                        pos: Default::default(),
                    })
            }),
            Box::new(|ws| skill(ws, "invoices").frontmatter.hidden_from_llm = true),
        ];
        for (n, edit) in edits.iter().enumerate() {
            let before = warnings(&ws, Recall::Session(&memory));
            edit(&mut ws);
            assert_ne!(
                compute(&ws, None, None),
                before,
                "edit {n} changes the warnings"
            );
            check(&ws);
        }
    }
}
