//! Dense routing (SPEC 13.1, optional; seed 001's embeddings). When the workspace declares
//! `routing.embedding_model`, the build stores a vector for each card's summary (name,
//! description, `when_to_use`) and for each of its trigger examples, made by the embedder the
//! person building gave (`card.vectors`, table `vector`; read by `stored.rs`), and with the
//! built-in meaning its summary with its body mixed in. A route given the message's vector
//! from the same model scores each skill by its closest text and fuses that with its lexical
//! score (`docs/routing.md`); the Python and TypeScript runtimes do the same sums in the same
//! order.

use std::sync::Arc;

use super::lanes::{self, Lanes, MEANING_DIMS};

/// The vectors of one bundle's catalog: per skill it can show, its summary's then each
/// trigger example's (in the card's order), with their lengths.
#[derive(Debug, Default)]
pub struct DenseIndex {
    /// Each skill it can show and how many texts it has; their vectors follow one another.
    docs: Vec<(usize, usize)>,
    norms: Vec<f64>,
    rows: Rows,
    /// The texts side by side too, when it ranks many queries at once ([`DenseIndex::for_many`]).
    lanes: Option<Lanes>,
}

/// The vectors themselves.
#[derive(Debug)]
enum Rows {
    Floats(Vec<Arc<[f32]>>),
    /// All whole numbers from -127 to 127 (the built-in meaning's).
    Whole(Whole),
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::Floats(Vec::new())
    }
}

/// Whole-number vectors laid out for integer dot products: exact, eight at a time
/// (`pmaddwd`, which 16-bit numbers allow on any x86-64). Each vector's first [`HEAD`]
/// numbers are apart from the rest, with the rest's length: the head's dot product and the
/// rest's length bound the cosine (Cauchy–Schwarz), so a skill that cannot reach a route's cut
/// is passed over after a quarter of the work. The meaning table's coordinates come in order of
/// how much they carry, so the bound is tight.
#[derive(Debug, Default)]
struct Whole {
    dims: usize,
    head: Vec<i8>,
    tail: Vec<i8>,
    tail_norms: Vec<f64>,
}

/// The numbers of a vector's head.
pub(super) const HEAD: usize = 64;

/// `v` as integers, when every number of it is a whole number from -127 to 127.
fn whole(v: &[f32]) -> Option<Vec<i16>> {
    (v.iter())
        .map(|&x| (x.fract() == 0.0 && x.abs() <= 127.0).then_some(x as i16))
        .collect()
}

/// The dot product of whole numbers, summed in i32: a query's (i16) with itself or with a
/// text's numbers (a signed byte each, what [`whole`] admits).
fn dot<A: Copy + Into<i32>, B: Copy + Into<i32>>(a: &[A], b: &[B]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x.into() * y.into()).sum()
}

/// [`dot`] of a query's numbers and a text's, compiled for AVX2 and AVX-512 too.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw", "x86_64+avx2"))]
fn wide_dot(a: &[i16], b: &[i8]) -> i32 {
    products(a, b)
}

/// [`dot`] of a query's numbers and a text's inside the functions compiled for AVX2 and
/// AVX-512 (`wide_dot`, `whole_block`, `whole_similarities`, `whole_nearest_summary`): always
/// inlined, so it is compiled with their instructions; a call to a function of its own would
/// run the oldest processors' code.
#[inline(always)]
fn products(a: &[i16], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

fn int_norm(v: &[i16]) -> f64 {
    f64::from(dot(v, v)).sqrt()
}

impl Whole {
    fn new(dims: usize) -> Whole {
        Whole {
            dims,
            ..Whole::default()
        }
    }

    /// Pushes a vector stored a signed byte a number, read as they are (no vector of i16 made
    /// for it: a catalog's 6,000 are a tenth of a route's process); returns its norm.
    fn push_bytes(&mut self, data: &[u8]) -> f64 {
        let signed = |b: &u8| *b as i8;
        let (head, tail) = data.split_at(HEAD);
        self.head.extend(head.iter().map(signed));
        self.tail.extend(tail.iter().map(signed));
        let tail = &self.tail[self.tail.len() - tail.len()..];
        let head = &self.head[self.head.len() - HEAD..];
        let (head, tail) = (dot(head, head), dot(tail, tail));
        self.tail_norms.push(f64::from(tail).sqrt());
        f64::from(head + tail).sqrt()
    }

    fn push(&mut self, v: &[i16]) {
        // Whole numbers from -127 to 127: a byte each, half the memory a route reads.
        self.head.extend(v[..HEAD].iter().map(|&x| x as i8));
        self.tail.extend(v[HEAD..].iter().map(|&x| x as i8));
        self.tail_norms.push(int_norm(&v[HEAD..]));
    }

    fn tail_dims(&self) -> usize {
        self.dims - HEAD
    }

    /// The dot product of a whole-number query with text `i`: the same integer the route's
    /// search sums.
    fn dot_text(&self, q: &[i16], i: usize) -> i32 {
        let t = self.tail_dims();
        let (head, tail) = q.split_at(HEAD);
        wide_dot(head, &self.head[i * HEAD..(i + 1) * HEAD])
            + wide_dot(tail, &self.tail[i * t..(i + 1) * t])
    }

    /// Text `i`'s numbers in order, a signed byte each.
    fn bytes(&self, i: usize) -> impl Iterator<Item = i8> + '_ {
        let t = self.tail_dims();
        (self.head[i * HEAD..(i + 1) * HEAD].iter())
            .chain(&self.tail[i * t..(i + 1) * t])
            .copied()
    }
}

impl DenseIndex {
    /// An index of f32 vectors: per skill (its index), its summary's then each trigger
    /// example's (laid out as whole numbers when they all are).
    pub fn new(docs: Vec<(usize, Vec<Arc<[f32]>>)>) -> DenseIndex {
        let norms = (docs.iter().flat_map(|(_, v)| v))
            .map(|v| norm(v))
            .collect();
        let dims = docs.iter().flat_map(|(_, v)| v).map(|v| v.len()).next();
        let all = (docs.iter().flat_map(|(_, v)| v))
            .map(|v| whole(v).filter(|w| w.len() > HEAD && Some(w.len()) == dims))
            .collect::<Option<Vec<Vec<i16>>>>();
        let rows = match (all, dims) {
            (Some(all), Some(dims)) => {
                let mut w = Whole::new(dims);
                all.iter().for_each(|v| w.push(v));
                Rows::Whole(w)
            }
            _ => Rows::Floats(docs.iter().flat_map(|(_, v)| v.iter().cloned()).collect()),
        };
        let docs = docs.iter().map(|(s, v)| (*s, v.len())).collect();
        DenseIndex {
            docs,
            norms,
            rows,
            lanes: None,
        }
    }

    /// The index with its texts laid out side by side too, for [`DenseIndex::similarities_many`]
    /// (`lanes.rs`, a byte a number again): a check ranking every trigger example of
    /// thousands of catalogs against the global one's texts multiplies them almost twice as
    /// fast so. Only vectors of the built-in meaning's length are laid out.
    pub fn for_many(mut self) -> DenseIndex {
        if let Rows::Whole(w) = &self.rows {
            if w.dims == MEANING_DIMS {
                self.lanes = Some(Lanes::new(&self.docs, &self.norms, |i| w.bytes(i)));
            }
        }
        self
    }

    /// Whether vectors of `dims` numbers can be laid out as whole-number rows (the built-in
    /// meaning's): longer than the head that bounds their cosines.
    pub(super) fn whole_rows(dims: usize) -> bool {
        dims > HEAD
    }

    /// An index of the built-in meaning's vectors, one signed byte a number, `dims` each
    /// ([`DenseIndex::whole_rows`]).
    pub(super) fn of_bytes(docs: Vec<(usize, Vec<&[u8]>)>, dims: usize) -> DenseIndex {
        let texts: usize = docs.iter().map(|(_, d)| d.len()).sum();
        let mut w = Whole::new(dims);
        w.head.reserve_exact(texts * HEAD);
        w.tail.reserve_exact(texts * (dims - HEAD));
        w.tail_norms.reserve_exact(texts);
        let mut norms = Vec::with_capacity(texts);
        // Each is `dims` bytes: its callers check.
        for data in docs.iter().flat_map(|(_, d)| d) {
            norms.push(w.push_bytes(data));
        }
        let docs = docs.iter().map(|(s, d)| (*s, d.len())).collect();
        DenseIndex {
            docs,
            norms,
            rows: Rows::Whole(w),
            lanes: None,
        }
    }

    /// Each skill's similarity to `query`: the cosine of its closest text, 0 at worst.
    /// `leave_out` (a skill, and the position of one of its trigger examples) skips that
    /// example's vector: `eval`'s leave-one-out.
    pub fn similarities(
        &self,
        query: &[f32],
        leave_out: Option<(usize, usize)>,
    ) -> Vec<(usize, f64)> {
        self.similarities_reaching(query, leave_out, &|_| f64::NEG_INFINITY)
    }

    /// [`DenseIndex::similarities`], except that a skill whose closest text cannot reach the
    /// cosine `needed(skill)` may be given 0 instead: what a route cut at a bar needs.
    pub fn similarities_reaching(
        &self,
        query: &[f32],
        leave_out: Option<(usize, usize)>,
        needed: &dyn Fn(usize) -> f64,
    ) -> Vec<(usize, f64)> {
        self.similarities_sought(query, leave_out, needed, &mut Sought::default())
    }

    /// [`DenseIndex::similarities_reaching`], keeping in `sought` each skill's bound and the
    /// similarities found, for [`DenseIndex::similarities_of`] to seek a few skills at lower
    /// needs without reading a skill's texts twice.
    pub fn similarities_sought(
        &self,
        query: &[f32],
        leave_out: Option<(usize, usize)>,
        needed: &dyn Fn(usize) -> f64,
        sought: &mut Sought,
    ) -> Vec<(usize, f64)> {
        let q_norm = norm(query);
        sought.heads.clear();
        sought.query.clear();
        if let (Rows::Whole(w), Some(q)) = (&self.rows, whole(query)) {
            if q.len() == w.dims {
                let texts = Texts {
                    docs: &self.docs,
                    norms: &self.norms,
                    rows: w,
                };
                return whole_similarities(&texts, &q, q_norm, leave_out, needed, sought);
            }
        }
        let mut at = 0;
        (self.docs.iter())
            .map(|&(skill, texts)| {
                let first = at;
                at += texts;
                let skipped = left_out(leave_out, skill);
                let best = (0..texts)
                    .filter(|&k| Some(k) != skipped)
                    .map(|k| self.cosine(query, q_norm, first + k))
                    .fold(0.0f64, f64::max);
                (skill, best)
            })
            .collect()
    }

    /// The similarities of the skills `asked` marks (by skill index) that may reach what
    /// `needed` says they need, after [`DenseIndex::similarities_sought`] of the same query
    /// and `leave_out` with `sought`: each read skill and its similarity, as
    /// [`DenseIndex::similarities`] gives it. A skill already read is not read again, and the
    /// others' texts are not visited: a route asks this of a handful of skills.
    pub fn similarities_of(
        &self,
        query: &[f32],
        leave_out: Option<(usize, usize)>,
        asked: &[bool],
        needed: &dyn Fn(usize) -> f64,
        sought: &mut Sought,
    ) -> Vec<(usize, f64)> {
        let q_norm = norm(query);
        let whole_query = match &self.rows {
            Rows::Whole(w) => whole(query).filter(|q| q.len() == w.dims).map(|q| (w, q)),
            Rows::Floats(_) => None,
        };
        let bounded = sought.bounds.len() == self.docs.len();
        let mut out = Vec::new();
        let mut first = 0;
        for (d, &(skill, count)) in self.docs.iter().enumerate() {
            let at = first;
            first += count;
            if !asked.get(skill).copied().unwrap_or(false) {
                continue;
            }
            let skipped = left_out(leave_out, skill);
            let texts = (0..count).filter(|&k| Some(k) != skipped).map(|k| at + k);
            let similarity = match (&whole_query, bounded) {
                (Some(_), true) if sought.found[d].is_some() => sought.found[d].unwrap_or(0.0),
                (Some(_), true) if sought.bounds[d] < needed(skill) - 1e-9 => continue,
                (Some((w, q)), _) if q_norm != 0.0 => {
                    let cosines = (texts.filter(|&i| self.norms[i] != 0.0))
                        .map(|i| f64::from(w.dot_text(q, i)) / (q_norm * self.norms[i]));
                    let best = cosines.fold(0.0f64, f64::max);
                    if bounded {
                        sought.found[d] = Some(best);
                    }
                    best
                }
                _ => (texts.map(|i| self.cosine(query, q_norm, i))).fold(0.0f64, f64::max),
            };
            out.push((skill, similarity));
        }
        out
    }

    /// For each query (a vector, and what it leaves out as [`DenseIndex::similarities`]
    /// does), each skill's similarity and its summary's cosine (its first text's; 0 at worst),
    /// in the order of the index's skills: the same numbers as [`DenseIndex::similarities`]
    /// and [`DenseIndex::nearest_summary`] give one query at a time. Each text's numbers are
    /// read once for a block of queries, not once a query: a check ranking every trigger
    /// example of a catalog against thousands of texts is bound by reading them.
    pub fn similarities_many(&self, queries: &[Asked<'_>]) -> Vec<Vec<Closeness>> {
        if let Some(found) = self
            .lanes
            .as_ref()
            .and_then(|l| self.side_by_side(l, queries))
        {
            return found;
        }
        queries
            .chunks(QUERIES_AT_ONCE)
            .flat_map(|block| self.similarities_block(block))
            .collect()
    }

    /// [`DenseIndex::similarities_many`] of at most [`QUERIES_AT_ONCE`] queries.
    fn similarities_block(&self, block: &[Asked<'_>]) -> Vec<Vec<Closeness>> {
        let whole_queries = match &self.rows {
            Rows::Whole(w) => (block.iter())
                .map(|(q, _)| whole(q).filter(|v| v.len() == w.dims))
                .collect::<Option<Vec<Vec<i16>>>>()
                .map(|qs| (w, qs)),
            Rows::Floats(_) => None,
        };
        let Some((w, qs)) = whole_queries else {
            // One query at a time: vectors of a model of the workspace's own.
            return (block.iter())
                .map(|&(q, leave_out)| self.one_by_one(q, leave_out))
                .collect();
        };
        let q_norms: Vec<f64> = qs.iter().map(|q| int_norm(q)).collect();
        let leave_outs: Vec<Option<(usize, usize)>> = block.iter().map(|(_, l)| *l).collect();
        let texts = Texts {
            docs: &self.docs,
            norms: &self.norms,
            rows: w,
        };
        let mut out = vec![vec![Closeness::default(); self.docs.len()]; block.len()];
        whole_block(&texts, &qs, &q_norms, &leave_outs, &mut out);
        out
    }

    /// [`DenseIndex::similarities_many`] over the texts laid out side by side, when every
    /// query is of whole numbers of their length.
    fn side_by_side(&self, lanes: &Lanes, queries: &[Asked<'_>]) -> Option<Vec<Vec<Closeness>>> {
        let (qs, q_norms): (Vec<lanes::Query>, Vec<f64>) = (queries.iter())
            .map(|(q, _)| {
                let q = whole(q)?;
                let numbers: &[i16; MEANING_DIMS] = q.as_slice().try_into().ok()?;
                Some((numbers.map(f32::from), int_norm(&q)))
            })
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .unzip();
        let leave_outs: Vec<Option<(usize, usize)>> = queries.iter().map(|(_, l)| *l).collect();
        let found = lanes.closeness(&qs, &q_norms, &leave_outs);
        let row = |found: Vec<[f64; 2]>| {
            (found.into_iter().zip(&self.docs))
                .map(|([similarity, summary], &(skill, _))| Closeness {
                    skill,
                    similarity,
                    summary,
                })
                .collect()
        };
        Some(found.into_iter().map(row).collect())
    }

    /// One query's [`Closeness`] to each skill, by [`DenseIndex::cosine`].
    fn one_by_one(&self, q: &[f32], leave_out: Option<(usize, usize)>) -> Vec<Closeness> {
        let q_norm = norm(q);
        let mut first = 0;
        (self.docs.iter())
            .map(|&(skill, texts)| {
                let mut c = Closeness {
                    skill,
                    ..Closeness::default()
                };
                for t in 0..texts {
                    if leave_out.is_some_and(|(s, n)| s == skill && t == n + 1) {
                        continue;
                    }
                    let cosine = self.cosine(q, q_norm, first + t);
                    c.similarity = c.similarity.max(cosine);
                    if t == 0 {
                        c.summary = c.summary.max(cosine);
                    }
                }
                first += texts;
                c
            })
            .collect()
    }

    /// How many skills it holds vectors of (every skill a catalog of its bundle can show).
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether it holds no skill.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The cosine of the summary (a skill's first text: name, description, `when_to_use`)
    /// closest to `query` (0 at worst), or some cosine of at least `enough` once one is found:
    /// what a route's small-talk bar measures (docs/routing.md, "Small talk"). Summaries alone: a
    /// fifth of the texts, and what a skill says of itself.
    pub fn nearest_summary(&self, query: &[f32], enough: f64) -> f64 {
        self.nearest_summary_from(query, 0.0, enough)
    }

    /// The larger of `floor` (0 or more) and [`DenseIndex::nearest_summary`]: only summaries
    /// that may beat `floor` are read whole. What a check's small-talk bar needs once it knows
    /// the catalog's nearest summary: the bar rises only by how much nearer small talk is.
    pub fn nearest_summary_above(&self, query: &[f32], floor: f64) -> f64 {
        self.nearest_summary_from(query, floor, f64::INFINITY)
    }

    /// [`DenseIndex::nearest_summary`] of the query [`DenseIndex::similarities_sought`] last
    /// sought with `sought`: its summaries' head products are read there, not made again.
    /// The same cosine, as the same whole numbers are summed.
    pub fn nearest_summary_sought(&self, query: &[f32], enough: f64, sought: &Sought) -> f64 {
        self.nearest_summary_in(query, 0.0, enough, Some(sought))
    }

    /// The nearest summary's cosine, or `from` when none is nearer; or some cosine of at least
    /// `enough` once one is found.
    fn nearest_summary_from(&self, query: &[f32], from: f64, enough: f64) -> f64 {
        self.nearest_summary_in(query, from, enough, None)
    }

    /// [`DenseIndex::nearest_summary_from`], with each text's head product when `sought` has
    /// them for this index and query.
    fn nearest_summary_in(
        &self,
        query: &[f32],
        from: f64,
        enough: f64,
        sought: Option<&Sought>,
    ) -> f64 {
        let q_norm = norm(query);
        let mut summaries = Vec::with_capacity(self.docs.len());
        let mut first = 0;
        for &(_, texts) in &self.docs {
            if texts > 0 {
                summaries.push(first);
            }
            first += texts;
        }
        let (Rows::Whole(w), Some(q)) = (&self.rows, whole(query)) else {
            let cosines = summaries.iter().map(|&i| self.cosine(query, q_norm, i));
            return cosines.fold(from, f64::max);
        };
        if q.len() != w.dims || q_norm == 0.0 {
            return from;
        }
        let texts = Texts {
            docs: &self.docs,
            norms: &self.norms,
            rows: w,
        };
        let heads = (sought.filter(|s| s.query == q && s.heads.len() == self.norms.len()))
            .map(|s| s.heads.as_slice());
        let reach = Reach { from, enough };
        whole_nearest_summary(&texts, &q, q_norm, &summaries, heads, reach)
    }

    /// The cosine of a query and text `i` (0 when either is all zeros), summed in f64 in
    /// order.
    fn cosine(&self, q: &[f32], q_norm: f64, i: usize) -> f64 {
        let v_norm = self.norms[i];
        let products = |v: &mut dyn Iterator<Item = f64>| -> f64 {
            q.iter().zip(v).map(|(&a, b)| f64::from(a) * b).sum()
        };
        let dot = match &self.rows {
            Rows::Floats(f) if f[i].len() == q.len() => {
                products(&mut f[i].iter().map(|&x| f64::from(x)))
            }
            Rows::Whole(w) if w.dims == q.len() => products(&mut w.bytes(i).map(f64::from)),
            _ => return 0.0,
        };
        if q_norm == 0.0 || v_norm == 0.0 {
            return 0.0;
        }
        dot / (q_norm * v_norm)
    }
}

/// The texts of a whole-number index, as [`whole_block`] reads them.
struct Texts<'a> {
    docs: &'a [(usize, usize)],
    norms: &'a [f64],
    rows: &'a Whole,
}

/// Where [`whole_nearest_summary`] starts (`from`) and when it may stop (`enough`).
#[derive(Clone, Copy)]
struct Reach {
    from: f64,
    enough: f64,
}

/// [`DenseIndex::nearest_summary_from`] of a whole-number query, over the texts `summaries`
/// (each skill's first), with their head products when given. Compiled for AVX2 and AVX-512
/// too, as [`whole_similarities`] is.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw", "x86_64+avx2"))]
fn whole_nearest_summary<'t>(
    texts: &Texts<'t>,
    q: &[i16],
    q_norm: f64,
    summaries: &[usize],
    heads: Option<&[i32]>,
    reach: Reach,
) -> f64 {
    let w = texts.rows;
    let (q_head, q_tail) = q.split_at(HEAD);
    let q_tail_norm = int_norm(q_tail);
    let tail_dims = q_tail.len();
    let mut best = reach.from;
    for &i in summaries {
        if texts.norms[i] == 0.0 {
            continue;
        }
        let head = match heads {
            Some(heads) => heads[i],
            None => products(q_head, &w.head[i * HEAD..(i + 1) * HEAD]),
        };
        let lengths = q_norm * texts.norms[i];
        // Cauchy–Schwarz bounds the rest: a text that cannot beat `best` is passed over.
        let bound = f64::from(head) + q_tail_norm * w.tail_norms[i];
        if cannot_beat(bound, lengths, best) {
            continue;
        }
        let tail = products(q_tail, &w.tail[i * tail_dims..(i + 1) * tail_dims]);
        best = best.max(f64::from(head + tail) / lengths);
        if best >= reach.enough {
            break;
        }
    }
    best
}

/// [`DenseIndex::similarities_many`] of a block of whole-number queries (with their lengths
/// and what each leaves out) into `out`, a row of [`Closeness`] per query. Compiled for AVX2
/// and AVX-512 too, the widest the processor has chosen when it runs: integer sums, the same
/// on any of them.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw", "x86_64+avx2"))]
fn whole_block<'t>(
    texts: &Texts<'t>,
    qs: &[Vec<i16>],
    q_norms: &[f64],
    leave_outs: &[Option<(usize, usize)>],
    out: &mut [Vec<Closeness>],
) {
    let w = texts.rows;
    let tail_dims = w.tail_dims();
    // With AVX-512, vectors of the built-in meaning's length (known when compiled: the
    // products unrolled whole) have each text's numbers widened once for all the block's
    // queries: a third faster there. With AVX2 alone that is slower: the bytes are kept.
    let widen = multiversion::target::target_cfg_f!(target_feature = "avx512bw");
    let fixed: Option<Vec<&[i16; MEANING_DIMS]>> = (qs.iter())
        .map(|q| q.as_slice().try_into().ok())
        .collect::<Option<_>>()
        .filter(|_| widen);
    let mut widened = [0i16; MEANING_DIMS];
    let mut first = 0;
    for (d, &(skill, count)) in texts.docs.iter().enumerate() {
        for t in (0..count).filter(|&t| texts.norms[first + t] != 0.0) {
            let i = first + t;
            let head = &w.head[i * HEAD..(i + 1) * HEAD];
            let tail = &w.tail[i * tail_dims..(i + 1) * tail_dims];
            // Head and tail apart: each loop is vectorised (a chain of the two is not).
            if fixed.is_some() {
                let (to_head, to_tail) = widened.split_at_mut(HEAD);
                for (x, &y) in to_head.iter_mut().zip(head) {
                    *x = i16::from(y);
                }
                for (x, &y) in to_tail.iter_mut().zip(tail) {
                    *x = i16::from(y);
                }
            }
            for (k, q) in qs.iter().enumerate() {
                let left_out = leave_outs[k].is_some_and(|(s, n)| s == skill && t == n + 1);
                if q_norms[k] == 0.0 || left_out {
                    continue;
                }
                let dot = match &fixed {
                    Some(fixed) => (fixed[k].iter().zip(&widened))
                        .map(|(&x, &y)| i32::from(x) * i32::from(y))
                        .sum(),
                    None => products(&q[..HEAD], head) + products(&q[HEAD..], tail),
                };
                let cosine = f64::from(dot) / (q_norms[k] * texts.norms[i]);
                let c = &mut out[k][d];
                c.similarity = c.similarity.max(cosine);
                if t == 0 {
                    c.summary = c.summary.max(cosine);
                }
            }
        }
        first += count;
    }
    for row in out.iter_mut() {
        for (c, &(skill, _)) in row.iter_mut().zip(texts.docs) {
            c.skill = skill;
        }
    }
}

/// [`DenseIndex::similarities_reaching`] of one whole-number query: the same cosines, since a
/// dot product of whole numbers is exact however it is summed. Compiled for AVX2 and AVX-512
/// too, as [`whole_block`] is: a runtime's route reads every text of its catalog once, and
/// `eval` routes thousands of messages a bundle.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw", "x86_64+avx2"))]
fn whole_similarities<'t>(
    texts: &Texts<'t>,
    q: &[i16],
    q_norm: f64,
    leave_out: Option<(usize, usize)>,
    needed: &dyn Fn(usize) -> f64,
    sought: &mut Sought,
) -> Vec<(usize, f64)> {
    let w = texts.rows;
    let (q_head, q_tail) = q.split_at(HEAD);
    let q_tail_norm = int_norm(q_tail);
    let tail_dims = q_tail.len();
    // Plain loops: an iterator's closures become functions of their own, compiled for the
    // oldest processors whatever this one was compiled for.
    let mut out = Vec::with_capacity(texts.docs.len());
    if q_norm == 0.0 {
        out.extend(texts.docs.iter().map(|&(skill, _)| (skill, 0.0)));
        return out;
    }
    // Every text's head product first, in one plain pass: the bounds, a skill's whole
    // cosines and the nearest summary (`whole_nearest_summary`) all read them.
    // Arrays of the head's length: the products unrolled whole, nothing kept in memory.
    sought.heads.clear();
    sought.heads.resize(texts.norms.len(), 0);
    if let Ok(q_head) = <&[i16; HEAD]>::try_from(q_head) {
        for (out, head) in sought.heads.iter_mut().zip(w.head.chunks_exact(HEAD)) {
            if let Ok(head) = <&[i8; HEAD]>::try_from(head) {
                let mut sum = 0;
                for j in 0..HEAD {
                    sum += i32::from(q_head[j]) * i32::from(head[j]);
                }
                *out = sum;
            }
        }
    }
    sought.query.extend_from_slice(q);
    let heads = &sought.heads;
    sought.bounds.clear();
    sought.found = vec![None; texts.docs.len()];
    let mut first = 0;
    for (d, &(skill, count)) in texts.docs.iter().enumerate() {
        let skipped = left_out(leave_out, skill);
        let kept = |k: usize| Some(k) != skipped && texts.norms[first + k] != 0.0;
        // The largest cosine any of its texts could have; a margin keeps rounding from
        // passing over a skill that would reach the bar exactly.
        let mut bound = f64::NEG_INFINITY;
        for k in 0..count {
            if !kept(k) {
                continue;
            }
            let i = first + k;
            let rest = q_tail_norm * w.tail_norms[i];
            bound = bound.max((f64::from(heads[i]) + rest) / (q_norm * texts.norms[i]));
        }
        sought.bounds.push(bound);
        let mut best = 0.0f64;
        if bound + 1e-9 >= needed(skill) {
            for k in 0..count {
                if !kept(k) {
                    continue;
                }
                let i = first + k;
                let tail = products(q_tail, &w.tail[i * tail_dims..(i + 1) * tail_dims]);
                best = best.max(f64::from(heads[i] + tail) / (q_norm * texts.norms[i]));
            }
            sought.found[d] = Some(best);
        }
        out.push((skill, best));
        first += count;
    }
    out
}

/// One query's similarities as far as they were sought ([`DenseIndex::similarities_sought`]):
/// each skill's bound, and its similarity once a need reached the bound.
#[derive(Debug, Default)]
pub struct Sought {
    bounds: Vec<f64>,
    found: Vec<Option<f64>>,
    /// Each text's head product with `query` (whole-number rows only).
    heads: Vec<i32>,
    /// The whole-number query the products are of.
    query: Vec<i16>,
}

/// A query of [`DenseIndex::similarities_many`]: its vector, and the trigger example it leaves
/// out (a skill, and the example's position), as [`DenseIndex::similarities`] takes them.
pub type Asked<'q> = (&'q [f32], Option<(usize, usize)>);

/// Queries [`DenseIndex::similarities_many`] takes at once: their vectors and one text's stay
/// in the nearest cache while the text is read.
const QUERIES_AT_ONCE: usize = 32;

/// How close a query is to one skill: its similarity (the cosine of its closest text) and its
/// summary's cosine, 0 at worst.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Closeness {
    /// The skill (its index in the bundle or workspace the index was built with).
    pub skill: usize,
    /// The cosine of its closest text.
    pub similarity: f64,
    /// The cosine of its summary.
    pub summary: f64,
}

/// Whether a text whose dot product with the query is at most `reach`, over `lengths` (the
/// product of the two vectors' lengths), cannot beat the cosine `best` (a margin keeps rounding
/// from passing over one that would equal it). Only skips work: never passing over gives the
/// same answers, slower.
fn cannot_beat(reach: f64, lengths: f64, best: f64) -> bool {
    reach / lengths + 1e-9 < best
}

/// A vector's length, summed in f64 in order (as every runtime sums it).
/// Which of a skill's texts a leave-one-out leaves out (`leave_out`: a skill and its trigger
/// example's position): the example's, after the summary (text 0); none for another skill.
fn left_out(leave_out: Option<(usize, usize)>, skill: usize) -> Option<usize> {
    leave_out.and_then(|(s, n)| (s == skill).then_some(n + 1))
}

fn norm(v: &[f32]) -> f64 {
    v.iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
#[path = "dense_tests.rs"]
mod tests;
