//! A whole-number index's texts laid out side by side for ranking many queries at once
//! ([`super::DenseIndex::for_many`]): W119 ranks every trigger example of every client's
//! catalog against the thousands of texts of the global one, and at 5,000 clients those
//! products were a fifth of a build.
//!
//! Sixteen texts make a block, coordinate by coordinate: a coordinate of a query times that
//! coordinate of sixteen texts is one or two vector instructions (in f32), and a few queries
//! are multiplied with a block while it sits in the nearest cache. The sums are exact: a
//! text's and a query's numbers are whole numbers from -127 to 127, so every partial sum of a
//! product of [`MEANING_DIMS`] of them is a whole number under 2^24, which an f32 holds
//! exactly, in any order, fused or not. The cosines are then the same f64 divisions as
//! `dense.rs`'s, and so are the answers.

/// The numbers of a vector of the built-in meaning: the length laid out here, and the one
/// `dense.rs` multiplies as a whole (another length takes the general path).
pub(super) const MEANING_DIMS: usize = 256;

/// Texts a block holds side by side.
const LANES: usize = 16;

/// Queries multiplied with a block at once: their sums fill most of the vector registers.
const QUERIES_AT_ONCE: usize = 6;

/// Sixteen texts' numbers, coordinate by coordinate, a signed byte each: a quarter of the
/// memory of f32 (a catalog's few examples read all the global index's blocks).
type Block = [[i8; LANES]; MEANING_DIMS];

/// A query's numbers as f32.
pub(super) type Query = [f32; MEANING_DIMS];

/// The texts of an index of the built-in meaning's length, in blocks.
#[derive(Debug)]
pub(super) struct Lanes {
    blocks: Vec<Block>,
    /// Each block's texts by skill, in order.
    runs: Vec<Vec<Run>>,
    /// Each skill (its index in the workspace or bundle), the place of its first text, and
    /// how many it has.
    skills: Vec<(usize, usize, usize)>,
    /// Each text's length, infinite for a text of length 0 and a block's missing texts: their
    /// cosines are then 0, which no similarity (0 at worst) is below, as if never read.
    norms: Vec<f64>,
}

/// The texts of one skill inside a block.
#[derive(Debug)]
struct Run {
    /// The skill's place in the index.
    skill: usize,
    /// The texts' places in the block.
    from: usize,
    to: usize,
    /// Whether the first is the skill's summary (its first text).
    summary: bool,
}

impl Lanes {
    /// The layout of the texts of `docs` (each skill and how many texts it has), of lengths
    /// `norms`, text `i`'s numbers in order being `numbers(i)`.
    pub(super) fn new<I: Iterator<Item = i8>>(
        docs: &[(usize, usize)],
        norms: &[f64],
        numbers: impl Fn(usize) -> I,
    ) -> Lanes {
        let count = norms.len();
        let mut blocks = vec![[[0; LANES]; MEANING_DIMS]; count.div_ceil(LANES)];
        for i in 0..count {
            for (row, x) in blocks[i / LANES].iter_mut().zip(numbers(i)) {
                row[i % LANES] = x;
            }
        }
        let mut runs: Vec<Vec<Run>> = blocks.iter().map(|_| Vec::new()).collect();
        let mut skills = Vec::with_capacity(docs.len());
        let mut first = 0;
        for (skill, &(id, texts)) in docs.iter().enumerate() {
            skills.push((id, first, texts));
            let mut i = first;
            while i < first + texts {
                let to = (first + texts).min((i / LANES + 1) * LANES);
                runs[i / LANES].push(Run {
                    skill,
                    from: i % LANES,
                    to: (to - 1) % LANES + 1,
                    summary: i == first,
                });
                i = to;
            }
            first += texts;
        }
        let mut norms: Vec<f64> = (norms.iter())
            .map(|&n| if n == 0.0 { f64::INFINITY } else { n })
            .collect();
        norms.resize(blocks.len() * LANES, f64::INFINITY);
        Lanes {
            blocks,
            runs,
            skills,
            norms,
        }
    }

    /// Each query's closeness to each skill (a row per query, in the skills' order): the
    /// cosine of its closest text and of its first, 0 at worst. A query of length 0 (its
    /// `q_norms`) is close to none; `leave_outs` as [`super::DenseIndex::similarities`]'s.
    pub(super) fn closeness(
        &self,
        qs: &[Query],
        q_norms: &[f64],
        leave_outs: &[Option<(usize, usize)>],
    ) -> Vec<Vec<[f64; 2]>> {
        // The place of the text each leaves out: its skill's first, then the example's.
        let left: Vec<Option<usize>> = (leave_outs.iter())
            .map(|leave_out| {
                let (skill, n) = (*leave_out)?;
                let &(_, first, count) = self.skills.iter().find(|s| s.0 == skill)?;
                (n + 1 < count).then_some(first + n + 1)
            })
            .collect();
        let mut out = vec![vec![[0.0; 2]; self.skills.len()]; qs.len()];
        closeness(self, qs, q_norms, &left, &mut out);
        out
    }
}

/// [`Lanes::closeness`] into `out`, `left` the place of the text each query leaves out.
/// Compiled for AVX2 and AVX-512 with fused multiply-adds too.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+fma", "x86_64+avx2+fma"))]
fn closeness(
    lanes: &Lanes,
    qs: &[Query],
    q_norms: &[f64],
    left: &[Option<usize>],
    out: &mut [Vec<[f64; 2]>],
) {
    const FMA: bool = multiversion::target::target_cfg_f!(target_feature = "fma");
    let none = [0.0; MEANING_DIMS];
    // Never NaN: `f64::max` without its test of NaN, and no branch.
    let max = |a: f64, b: f64| if b > a { b } else { a };
    for (b, (block, runs)) in lanes.blocks.iter().zip(&lanes.runs).enumerate() {
        let first = b * LANES;
        let Ok(norms) = <&[f64; LANES]>::try_from(&lanes.norms[first..first + LANES]) else {
            continue;
        };
        for from in (0..qs.len()).step_by(QUERIES_AT_ONCE) {
            let asked: [&Query; QUERIES_AT_ONCE] =
                std::array::from_fn(|a| qs.get(from + a).unwrap_or(&none));
            let sums = products::<FMA>(block, asked);
            for (a, sums) in sums.iter().enumerate().take(qs.len() - from) {
                let k = from + a;
                if q_norms[k] == 0.0 {
                    continue;
                }
                // The sixteen divisions at once.
                let mut cosines = [0.0f64; LANES];
                for ((c, &s), &n) in cosines.iter_mut().zip(sums).zip(norms) {
                    *c = f64::from(s) / (q_norms[k] * n);
                }
                if let Some(i) = left[k].filter(|i| i / LANES == b) {
                    cosines[i % LANES] = 0.0;
                }
                // Each skill's best of the block in registers, then once into its row (a
                // store a text, read back by the next, stalls).
                for run in runs {
                    let best = cosines[run.from..run.to]
                        .iter()
                        .fold(0.0, |m, &c| max(m, c));
                    let [similarity, summary] = &mut out[k][run.skill];
                    *similarity = max(*similarity, best);
                    if run.summary {
                        *summary = max(*summary, cosines[run.from]);
                    }
                }
            }
        }
    }
}

/// The dot products of `qs` with the sixteen texts of `block`, fused multiply-adds when
/// `FMA`. Always inlined, so compiled with the instructions of [`closeness`]'s versions.
#[inline(always)]
fn products<const FMA: bool>(
    block: &Block,
    qs: [&Query; QUERIES_AT_ONCE],
) -> [[f32; LANES]; QUERIES_AT_ONCE] {
    let mut sums = [[0.0f32; LANES]; QUERIES_AT_ONCE];
    for (j, texts) in block.iter().enumerate() {
        let texts = texts.map(f32::from);
        for (sum, q) in sums.iter_mut().zip(&qs) {
            let x = q[j];
            for (s, &y) in sum.iter_mut().zip(&texts) {
                *s = if FMA { x.mul_add(y, *s) } else { *s + x * y };
            }
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways of summing (fused multiply-adds, and a product then a sum, the way of a
    /// processor without them) give every dot product exactly, at the numbers' extremes too.
    #[test]
    fn the_sums_are_the_exact_dot_products_fused_or_not() {
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            ((seed >> 33) % 255) as i32 - 127
        };
        let mut block = [[0i8; LANES]; MEANING_DIMS];
        for row in block.iter_mut() {
            for (l, x) in row.iter_mut().enumerate() {
                // The last text all 127 and the first all -127: the largest sums there are.
                *x = match l {
                    0 => -127,
                    l if l == LANES - 1 => 127,
                    _ => next() as i8,
                };
            }
        }
        let qs: Vec<Query> = (0..QUERIES_AT_ONCE)
            .map(|a| std::array::from_fn(|_| if a == 0 { 127.0 } else { next() as f32 }))
            .collect();
        let asked: [&Query; QUERIES_AT_ONCE] = std::array::from_fn(|a| &qs[a]);
        let exact: Vec<Vec<f32>> = (qs.iter())
            .map(|q| {
                (0..LANES)
                    .map(|l| {
                        let dot: i32 = (0..MEANING_DIMS)
                            .map(|j| q[j] as i32 * i32::from(block[j][l]))
                            .sum();
                        dot as f32
                    })
                    .collect()
            })
            .collect();
        for sums in [
            products::<true>(&block, asked),
            products::<false>(&block, asked),
        ] {
            let sums: Vec<Vec<f32>> = sums.iter().map(|s| s.to_vec()).collect();
            assert_eq!(sums, exact);
        }
        assert_eq!(exact[0][LANES - 1], (MEANING_DIMS * 127 * 127) as f32);
    }
}
