//! The tests of `route::dense`, apart from its code.

use super::super::{encode_whole, fuse, fused, similarity_needed, Ranking, Scored, LEXICAL_SHARE};
use super::*;

/// Seeded whole-number vectors whose numbers past the head are `damp` times smaller, as
/// the meaning table's coordinates carry less the later they come.
fn rows_like_the_tables(mut seed: u64, damp: f32) -> impl FnMut(usize) -> Vec<f32> {
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % 255) as f32 - 127.0
    };
    move |n| {
        (0..n)
            .map(|k| match k < HEAD {
                true => next(),
                false => (next() / damp).round(),
            })
            .collect()
    }
}

/// Many queries at once give each one's numbers exactly as one at a time: every skill's
/// similarity (`similarities`, with its example left out) and summary (`nearest_summary`),
/// on whole-number rows (in blocks, more queries than one block holds; and side by side,
/// `for_many`) and on floats; of the built-in meaning's length (multiplied whole) and of
/// another.
#[test]
fn many_queries_at_once_are_each_exactly_one_query_alone() {
    for dims in [80, MEANING_DIMS] {
        many_queries_of(dims);
    }
}

fn many_queries_of(dims: usize) {
    let mut vector = rows_like_the_tables(5, 6.0);
    let mut docs: Vec<(usize, Vec<Arc<[f32]>>)> = (0..20)
        .map(|d| {
            (
                100 + d,
                (0..1 + d % 4).map(|_| vector(dims).into()).collect(),
            )
        })
        .collect();
    docs.push((120, vec![vec![0.0; dims].into(), vector(dims).into()]));
    docs.push((121, Vec::new()));
    let floats = in_thirds(&docs);
    let side_by_side = DenseIndex::new(docs.clone()).for_many();
    assert_eq!(side_by_side.lanes.is_some(), dims == MEANING_DIMS);
    for ix in [side_by_side, DenseIndex::new(docs), DenseIndex::new(floats)] {
        let vectors: Vec<Vec<f32>> = (0..QUERIES_AT_ONCE + 7).map(|_| vector(dims)).collect();
        let mut queries: Vec<Asked<'_>> = (vectors.iter())
            .enumerate()
            .map(|(k, v)| (&v[..], Some((100 + k % 20, k % 3))))
            .collect();
        let zeros = vec![0.0; dims];
        queries.push((&zeros, None));
        let many = ix.similarities_many(&queries);
        assert_eq!(many.len(), queries.len());
        // The layout side by side answers them itself (not by falling back to the blocks).
        if let Some(lanes) = &ix.lanes {
            assert_eq!(ix.side_by_side(lanes, &queries).as_ref(), Some(&many));
            assert_eq!(
                ix.side_by_side(lanes, &[(&in_thirds_of(&vectors[0]), None)]),
                None
            );
        }
        for (&(q, leave_out), closeness) in queries.iter().zip(&many) {
            let alone = ix.similarities(q, leave_out);
            let similarities: Vec<(usize, f64)> =
                closeness.iter().map(|c| (c.skill, c.similarity)).collect();
            assert_eq!(similarities, alone);
            let nearest = closeness.iter().map(|c| c.summary).fold(0.0, f64::max);
            assert_eq!(nearest, ix.nearest_summary(q, f64::INFINITY));
        }
        // A left-out example is not its skill's closest text any more.
        let own = docs_text(&ix, 103, 2);
        let found = ix.similarities_many(&[(&own, None), (&own, Some((103, 1)))]);
        let of = |row: &Vec<Closeness>| row.iter().find(|c| c.skill == 103).unwrap().similarity;
        assert!((of(&found[0]) - 1.0).abs() < 1e-9);
        assert!(of(&found[1]) < 0.999, "{}", of(&found[1]));
    }
}

/// A vector with every number a third of its own: not whole numbers.
fn in_thirds_of(v: &[f32]) -> Vec<f32> {
    v.iter().map(|x| x / 3.0).collect()
}

/// The same texts with every number a third of its own: not whole numbers, so an index of
/// them is laid out as floats.
fn in_thirds(docs: &[(usize, Vec<Arc<[f32]>>)]) -> Vec<(usize, Vec<Arc<[f32]>>)> {
    (docs.iter())
        .map(|(s, v)| {
            let thirds = |x: &Arc<[f32]>| in_thirds_of(x).into();
            (*s, v.iter().map(thirds).collect())
        })
        .collect()
}

/// The numbers of text `t` of `skill` in `ix`.
fn docs_text(ix: &DenseIndex, skill: usize, t: usize) -> Vec<f32> {
    let mut first = 0;
    for &(s, texts) in &ix.docs {
        if s == skill {
            return match &ix.rows {
                Rows::Whole(w) => w.bytes(first + t).map(f32::from).collect(),
                Rows::Floats(f) => f[first + t].to_vec(),
            };
        }
        first += texts;
    }
    unreachable!("no skill {skill}")
}

/// The skills asked of a query already sought at a bar have the similarities the whole
/// search gives them (their example left out), whether the first search read them or not;
/// the others are not answered, nor are those whose bound cannot reach what they need.
#[test]
fn the_similarities_of_a_few_skills_are_those_of_the_whole_search() {
    let mut vector = rows_like_the_tables(3, 6.0);
    let docs: Vec<(usize, Vec<Arc<[f32]>>)> = (0..40)
        .map(|d| (d, (0..1 + d % 4).map(|_| vector(96).into()).collect()))
        .collect();
    let floats = in_thirds(&docs);
    for ix in [DenseIndex::new(docs), DenseIndex::new(floats)] {
        for leave_out in [None, Some((6, 1))] {
            let q = vector(96);
            let exact: Vec<(usize, f64)> = ix.similarities(&q, leave_out);
            let bar = exact.iter().map(|s| s.1).fold(0.0, f64::max) * 0.95;
            let mut sought = Sought::default();
            ix.similarities_sought(&q, leave_out, &|_| bar, &mut sought);
            let asked: Vec<bool> = (0..40).map(|d| d % 3 == 0).collect();
            let got =
                ix.similarities_of(&q, leave_out, &asked, &|_| f64::NEG_INFINITY, &mut sought);
            let want: Vec<(usize, f64)> = exact.iter().copied().filter(|s| asked[s.0]).collect();
            assert_eq!(got, want);
            // Asked again, at a need none can reach: the skills read already are answered,
            // exactly; on whole rows, a bound under the need answers nothing.
            let none = ix.similarities_of(&q, leave_out, &asked, &|_| 2.0, &mut sought);
            assert_eq!(none, want);
            let fresh = &mut Sought::default();
            ix.similarities_sought(&q, leave_out, &|_| 2.0, fresh);
            let cut = ix.similarities_of(&q, leave_out, &asked, &|_| 2.0, fresh);
            match ix.rows {
                Rows::Whole(_) => assert!(cut.is_empty(), "{cut:?}"),
                Rows::Floats(_) => assert_eq!(cut, want),
            }
        }
    }
}

/// A search's head products serve only the index and query it was of: after a search of the
/// same query in another index, of another query, or of a query of zeros (no products), the
/// nearest summary is found whole.
#[test]
fn the_nearest_summary_reads_a_search_s_products_only_of_its_own_index_and_query() {
    let mut vector = rows_like_the_tables(17, 8.0);
    let docs = |n: usize, vector: &mut dyn FnMut(usize) -> Vec<f32>| -> DenseIndex {
        DenseIndex::new(
            (0..n)
                .map(|d| (d, (0..1 + d % 3).map(|_| vector(96).into()).collect()))
                .collect(),
        )
    };
    let (ix, other) = (docs(12, &mut vector), docs(30, &mut vector));
    for _ in 0..20 {
        let q = vector(96);
        let exact = ix.nearest_summary(&q, f64::INFINITY);
        let mut sought = Sought::default();
        other.similarities_sought(&q, None, &|_| 2.0, &mut sought);
        assert_eq!(ix.nearest_summary_sought(&q, f64::INFINITY, &sought), exact);
        ix.similarities_sought(&vector(96), None, &|_| 2.0, &mut sought);
        assert_eq!(ix.nearest_summary_sought(&q, f64::INFINITY, &sought), exact);
        ix.similarities_sought(&[0.0; 96], None, &|_| 2.0, &mut sought);
        assert_eq!(ix.nearest_summary_sought(&q, f64::INFINITY, &sought), exact);
    }
}

#[test]
fn the_nearest_summary_is_the_largest_cosine_of_each_skills_first_text_exactly() {
    let mut vector = rows_like_the_tables(11, 8.0);
    // Skills of one, two and three texts, one with none; a summary of zeros is passed over.
    let mut docs: Vec<(usize, Vec<Arc<[f32]>>)> = (0..30)
        .map(|d| (d, (0..1 + d % 3).map(|_| vector(96).into()).collect()))
        .collect();
    docs.push((30, vec![vec![0.0; 96].into(), vector(96).into()]));
    // Last, so that a summary taken where a skill has no text would be past the rows.
    docs.push((31, Vec::new()));
    let ix = DenseIndex::new(docs.clone());
    assert!(matches!(ix.rows, Rows::Whole(_)));
    assert_eq!((ix.len(), ix.is_empty()), (32, false));
    assert!(DenseIndex::new(Vec::new()).is_empty());
    let floats = DenseIndex {
        rows: Rows::Floats(docs.iter().flat_map(|(_, v)| v.clone()).collect()),
        ..DenseIndex::new(docs.clone())
    };
    for _ in 0..40 {
        let q = vector(96);
        let q_norm = norm(&q);
        let cos = |v: &[f32]| -> f64 {
            let dot: f64 = q
                .iter()
                .zip(v)
                .map(|(&a, &b)| f64::from(a) * f64::from(b))
                .sum();
            match norm(v) {
                0.0 => 0.0,
                n => dot / (q_norm * n),
            }
        };
        let exact = (docs.iter().filter_map(|(_, v)| v.first()))
            .map(|v| cos(v))
            .fold(0.0, f64::max);
        assert_eq!(ix.nearest_summary(&q, f64::INFINITY), exact);
        assert_eq!(floats.nearest_summary(&q, f64::INFINITY), exact);
        // After a search of the same query (its head products kept), with one of its
        // examples left out or not, whatever that search needed: the same cosine, and the
        // same one of at least `enough` (the first in order); floats keep no products.
        for (leave_out, need) in [(None, 2.0), (Some((4, 0)), f64::NEG_INFINITY)] {
            for index in [&ix, &floats] {
                let mut sought = Sought::default();
                index.similarities_sought(&q, leave_out, &|_| need, &mut sought);
                let sought = &sought;
                assert_eq!(
                    index.nearest_summary_sought(&q, f64::INFINITY, sought),
                    exact
                );
                assert_eq!(
                    index.nearest_summary_sought(&q, exact / 2.0, sought),
                    index.nearest_summary(&q, exact / 2.0)
                );
            }
        }
        // Asked only whether some summary is as near as `enough`: one that is, at least.
        let enough = exact / 2.0;
        let some = ix.nearest_summary(&q, enough);
        assert!(
            some >= enough && some <= exact,
            "{some} against {enough} and {exact}"
        );
        // Above a floor (a catalog's nearest, for the small talk's): the larger of the two,
        // below, at and above the nearest summary, whole numbers or not.
        for floor in [0.0, exact / 3.0, exact, (exact + 1.0) / 2.0] {
            assert_eq!(ix.nearest_summary_above(&q, floor), exact.max(floor));
            assert_eq!(floats.nearest_summary_above(&q, floor), exact.max(floor));
        }
    }
    // A summary turned away from the query in its first numbers and towards it in the rest
    // is still the nearest: its bound must count the rest, whatever the head's sign.
    let turned: Vec<f32> = (0..96)
        .map(|k| if k < HEAD { -1.0 } else { 100.0 })
        .collect();
    let query: Vec<f32> = (0..96)
        .map(|k| if k < HEAD { 1.0 } else { 100.0 })
        .collect();
    let other: Vec<f32> = (0..96).map(|k| if k < HEAD { 5.0 } else { 1.0 }).collect();
    let two = DenseIndex::new(vec![
        (0, vec![other.into()]),
        (1, vec![turned.clone().into()]),
    ]);
    let expected = {
        let dot: f64 = query
            .iter()
            .zip(&turned)
            .map(|(&a, &b)| f64::from(a) * f64::from(b))
            .sum();
        dot / (norm(&query) * norm(&turned))
    };
    assert_eq!(two.nearest_summary(&query, f64::INFINITY), expected);
    assert_eq!(ix.nearest_summary(&[0.0; 96], f64::INFINITY), 0.0);
    assert_eq!(ix.nearest_summary_above(&[0.0; 96], 0.25), 0.25);
    assert_eq!(ix.nearest_summary(&[1.0; 5], f64::INFINITY), 0.0);
}

#[test]
fn a_skill_scores_by_its_closest_text_and_leaving_one_out_skips_that_example() {
    let stored = |v: &[f32]| -> Arc<[f32]> { v.into() };
    let ix = DenseIndex::new(vec![
        (0, vec![stored(&[1.0, 0.0]), stored(&[0.0, 1.0])]),
        (1, vec![stored(&[-1.0, 0.0])]),
    ]);
    assert!(
        matches!(ix.rows, Rows::Floats(_)),
        "two numbers: no head to bound with"
    );
    // A query of fractions takes the f64 path, with the same answers.
    assert_eq!(ix.similarities(&[0.0, 0.5], None), [(0, 1.0), (1, 0.0)]);
    // Whole numbers: the integer path gives exactly the f64 path's cosines.
    // Like the meaning table's, the first coordinates carry the most: the bound is tight.
    let mut vector = rows_like_the_tables(7, 16.0);
    let docs: Vec<(usize, Vec<Arc<[f32]>>)> = (0..20)
        .map(|d| (d, (0..3).map(|_| stored(&vector(96))).collect()))
        .collect();
    let query = vector(96);
    let fast = DenseIndex::new(docs.clone());
    assert!(matches!(fast.rows, Rows::Whole(_)));
    let slow = DenseIndex {
        rows: Rows::Floats(docs.iter().flat_map(|(_, v)| v.clone()).collect()),
        ..DenseIndex::new(docs.clone())
    };
    // The same vectors read as the built-in meaning stores them: a signed byte a number.
    let bytes: Vec<(usize, Vec<Vec<u8>>)> = (docs.iter())
        .map(|(d, v)| (*d, v.iter().map(|x| encode_whole(x)).collect()))
        .collect();
    let of_bytes = DenseIndex::of_bytes(
        (bytes.iter())
            .map(|(d, v)| (*d, v.iter().map(Vec::as_slice).collect()))
            .collect(),
        96,
    );
    // A query of fractions against whole rows: the f64 path, equal to the floats'.
    let fractions: Vec<f32> = query.iter().map(|x| x / 3.0).collect();
    assert_eq!(
        of_bytes.similarities(&fractions, None),
        slow.similarities(&fractions, None)
    );
    for leave_out in [None, Some((3, 1))] {
        let exact = slow.similarities(&query, leave_out);
        assert_eq!(fast.similarities(&query, leave_out), exact);
        assert_eq!(of_bytes.similarities(&query, leave_out), exact);
        // With a bar, a skill is passed over (0) only when it could not reach it.
        let bar = exact.iter().map(|s| s.1).fold(0.0, f64::max) * 0.9;
        let cut = fast.similarities_reaching(&query, leave_out, &|_| bar);
        // Some skill close enough to count without a bar is passed over with it.
        let passed_over = (cut.iter().zip(&exact)).filter(|(g, w)| g.1 == 0.0 && w.1 > 0.0);
        assert!(passed_over.count() > 0 && cut.iter().any(|s| s.1 > 0.0));
        for (got, want) in cut.iter().zip(&exact) {
            assert!(
                got == want || (got.1 == 0.0 && want.1 < bar),
                "{got:?} {want:?}"
            );
        }
    }
    // A query that is a stored text, with the bar at its exact cosine: the bound equals
    // the cosine there, and the margin keeps the skill.
    let stored_text = docs[4].1[2].to_vec();
    let exact = slow.similarities(&stored_text, None)[4].1;
    let at_bar = fast.similarities_reaching(&stored_text, None, &|_| exact);
    assert_eq!(at_bar[4], (4, exact));
    // Vectors of another length are not compared: similarity 0, in either layout.
    assert_eq!(
        fast.similarities(&vector(40), None),
        vec![0.0; 20].into_iter().enumerate().collect::<Vec<_>>()
    );
    assert_eq!(
        ix.similarities(&[1.0, 0.0, 0.0], None),
        [(0, 0.0), (1, 0.0)]
    );
    let sims = ix.similarities(&[0.0, 2.0], None);
    assert_eq!(sims, [(0, 1.0), (1, 0.0)]);
    // Its one example left out, skill 0 is only as close as its summary.
    assert_eq!(ix.similarities(&[0.0, 2.0], Some((0, 0)))[0], (0, 0.0));
    assert_eq!(fuse(0.5, 1.0, LEXICAL_SHARE), 0.75);
    // The similarity needed lifts the score to the cut, and no less.
    for (floor, words) in [(0.43, 0.2), (0.3, 0.0), (0.5, 0.9)] {
        let needed = similarity_needed(floor, words, LEXICAL_SHARE);
        assert!(
            fuse(words, needed, LEXICAL_SHARE) < floor || needed < 0.0,
            "{floor} {words}"
        );
        assert!(
            fuse(words, needed + 2e-5, LEXICAL_SHARE) >= floor,
            "{floor} {words}"
        );
    }
    // Fused: a skill with neither words nor meaning is left out; words alone keep one.
    let lexical = Ranking {
        words: vec!["price".to_string()],
        read_as: Vec::new(),
        scored: vec![Scored {
            skill: 1,
            score: 0.4,
            held: 1,
        }],
    };
    let both = fused(lexical, [(0, 0.0), (1, 0.0), (2, 0.6)], 3, LEXICAL_SHARE);
    let scores: Vec<(usize, f64, u64)> = both
        .scored
        .iter()
        .map(|s| (s.skill, s.score, s.held))
        .collect();
    assert_eq!(scores, [(1, 0.2, 1), (2, 0.3, 0)]);
}
