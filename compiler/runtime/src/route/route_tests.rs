//! The tests of `route`, apart from its code.

use super::*;

#[test]
fn the_first_few_of_a_ranking_are_those_a_full_sort_gives_however_many_score() {
    // `best` keeps the first n of many candidates (the candidates after the first may be
    // hundreds a little under the bar) without ordering them all: the same as `ordered`,
    // ties by name.
    let mut seed = 7u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (seed >> 33) % 8
    };
    let names: Vec<String> = (0..400)
        .map(|i| format!("skill-{}", (i * 7919) % 1000))
        .collect();
    for size in [0, 1, 3, 19, 20, 21, 80, 400] {
        let ranking = Ranking {
            words: Vec::new(),
            read_as: Vec::new(),
            scored: (0..size)
                .map(|skill| Scored {
                    skill,
                    score: next() as f64 / 8.0,
                    held: 0,
                })
                .collect(),
        };
        let name_of = |i: usize| names[i].as_str();
        let keep = |s: &Scored| s.score >= 0.25;
        for n in [0, 1, 2, 5, 50] {
            let all = ranking.ordered(keep, name_of);
            let first: Vec<usize> = all.iter().take(n).map(|s| s.skill).collect();
            let best: Vec<usize> = (ranking.best(keep, name_of, n).iter())
                .map(|s| s.skill)
                .collect();
            assert_eq!(best, first, "{size} scored, first {n}");
        }
    }
}

const RULES: fn() -> &'static RoutingRules = RoutingRules::built_in;

/// Ranking a catalog as an index less some skills plus another index gives exactly what
/// an index of that catalog gives, with and without an example left out.
#[test]
fn parts_rank_as_one_index_of_their_kept_documents() {
    const WORDS: &[&str] = &[
        "invoice", "refund", "parcel", "delivery", "price", "plan", "login", "password", "export",
        "chart", "demo", "sales", "report", "bug", "team", "seat",
    ];
    let mut seed = 7u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for _ in 0..200 {
        let mut text = |n: usize| {
            (0..n)
                .map(|_| WORDS[next(WORDS.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let docs: Vec<(String, String)> = (0..12).map(|_| (text(4), text(3))).collect();
        let terms: Vec<String> = docs
            .iter()
            .map(|(d, e)| card_terms("", d, std::slice::from_ref(e), &[], ""))
            .collect();
        let (message, removed_every, own) = (text(5), 2 + next(3), 9);
        // Skills 0..own in the base (some removed), own.. added; the catalog is the rest.
        let base = RouteIndex::new((0..own).map(|i| (i, terms[i].as_str())));
        let removed: Vec<bool> = (0..own).map(|d| d % removed_every == 0).collect();
        let added = RouteIndex::new((own..12).map(|i| (i, terms[i].as_str())));
        let kept = (0..12).filter(|&i| i >= own || !removed[i]);
        let whole = RouteIndex::new(kept.map(|i| (i, terms[i].as_str())));
        let parts = [Part::less(&base, &removed), Part::whole(&added)];
        for leave_out in [
            None,
            Some((10, docs[10].1.as_str())),
            Some((1, docs[1].1.as_str())),
        ] {
            let sorted = |mut r: Ranking| {
                r.scored.sort_by_key(|s| s.skill);
                r
            };
            assert_eq!(
                sorted(rank_parts(&parts, &message, leave_out, RULES())),
                sorted(whole.rank_leaving_out(&message, leave_out, RULES())),
                "{message:?} leaving out {leave_out:?}"
            );
        }
    }
}

/// A word is the catalog's own (not glossed) when a kept document holds each of its
/// routing words, less what a left-out example held: a word only the example held is not.
#[test]
fn a_word_is_held_by_the_documents_that_keep_it_less_a_left_out_example() {
    let terms = [
        card_terms(
            "",
            "Facturas y pagos.",
            &["quiero un reembolso".into()],
            &[],
            "",
        ),
        card_terms(
            "",
            "Parcels and delivery.",
            &["track my parcel".into()],
            &[],
            "",
        ),
    ];
    let index = RouteIndex::new(terms.iter().enumerate().map(|(i, t)| (i, t.as_str())));
    let parts = [Part::whole(&index)];
    let held = holds_every_word(&parts, None, RULES());
    assert!(held("facturas") && held("Reembolso") && held("parcel"));
    assert!(held("pagos parcel"), "every word of it is held");
    assert!(!held("facturas pagar") && !held("weather") && !held("y"));
    // Leaving out skill 0's example: its words are gone, its description's stay.
    let held = holds_every_word(&parts, Some((0, "quiero un reembolso")), RULES());
    assert!(!held("reembolso") && !held("quiero"));
    assert!(held("facturas") && held("parcel"));
    // Another skill's example of the same words would keep them.
    let removed = [true, false];
    let parts = [Part::less(&index, &removed)];
    let held = holds_every_word(&parts, None, RULES());
    assert!(!held("facturas") && held("parcel"));
}

/// Leaving an example out ranks as the index of the catalog whose card never held it:
/// the same scores for every skill (the average length too is the smaller catalog's).
#[test]
fn an_example_left_out_ranks_as_a_card_without_it() {
    let cards: &[(&str, &str, &[&str])] = &[
        (
            "pricing",
            "Plans and prices.",
            &["how much is the pro plan", "price list"],
        ),
        (
            "support",
            "Help with login problems.",
            &["I cannot log in", "reset my password"],
        ),
        (
            "demo",
            "Book a demo.",
            &["talk to sales about the pro plan"],
        ),
    ];
    let scores = |r: Ranking| {
        let mut s: Vec<(usize, f64)> = r.scored.iter().map(|s| (s.skill, s.score)).collect();
        s.sort_by_key(|&(skill, _)| skill);
        s
    };
    for (i, (name, description, examples)) in cards.iter().enumerate() {
        for (j, example) in examples.iter().enumerate() {
            let mut without: Vec<(&str, &str, Vec<&str>)> =
                cards.iter().map(|(n, d, e)| (*n, *d, e.to_vec())).collect();
            without[i].2.remove(j);
            let without: Vec<(&str, &str, &[&str])> = without
                .iter()
                .map(|(n, d, e)| (*n, *d, e.as_slice()))
                .collect();
            let (whole, less) = (index(cards), index(&without));
            for message in [*example, "pro plan price", "log in to book a demo"] {
                assert_eq!(
                    scores(whole.rank_leaving_out(message, Some((i, example)), RULES())),
                    scores(less.rank(message, RULES())),
                    "{name} without {example:?}: {message:?} ({description})"
                );
            }
        }
    }
}

fn index(cards: &[(&str, &str, &[&str])]) -> RouteIndex {
    let stored: Vec<String> = cards
        .iter()
        .map(|(name, description, examples)| {
            let examples: Vec<String> = examples.iter().map(|e| e.to_string()).collect();
            card_terms(name, description, &examples, &[], "")
        })
        .collect();
    RouteIndex::new(stored.iter().enumerate().map(|(i, s)| (i, s.as_str())))
}

/// A skill's score is the evidence it matches, not its share of the message: the same
/// words inside a long message that also reaches other skills score it the same, and the
/// scale rises with the catalog.
#[test]
fn a_long_message_scores_a_skill_as_its_own_words_alone_do() {
    let ix = index(&[
        ("pricing", "Plans, prices and what each plan costs.", &[]),
        ("support", "Help customers who cannot log in.", &[]),
        ("competitors", "Compare us with competitors.", &[]),
        ("demo", "Book a demo with sales.", &[]),
    ]);
    let score = |m: &str| {
        let r = ix.rank(m, RULES());
        (r.scored.iter().find(|s| s.skill == 0)).map_or(0.0, |s| s.score)
    };
    let alone = score("plan prices");
    let long = score(
        "hi, we are a small team, we compared competitors, booked a demo with sales and \
         still cannot log in, but today: the plan prices",
    );
    assert!(alone > 0.5, "{alone}");
    assert_eq!(alone, long);
    assert!(evidence_scale(10.0) < evidence_scale(555.0));
    assert!(
        (evidence_scale(555.0) - 4.38).abs() < 0.01,
        "{}",
        evidence_scale(555.0)
    );
    assert!((evidence_scale(32.0) - 1.19).abs() < 0.01);
}

#[test]
fn the_skill_that_holds_the_message_words_ranks_first_and_scores_stay_in_range() {
    let ix = index(&[
        (
            "pricing",
            "Answer questions about plans and prices.",
            &["How much does it cost?"],
        ),
        (
            "support",
            "Help customers who cannot log in.",
            &["I can't log in"],
        ),
        (
            "competitors",
            "Compare us with competitors.",
            &["Why not use Globex?"],
        ),
    ]);
    let ranked = ix.rank("what does the pro plan cost per month", RULES());
    assert_eq!(ranked.scored.len(), 1);
    assert_eq!(ranked.scored[0].skill, 0);
    assert_eq!(ranked.matched(&ranked.scored[0]), ["plan", "cost"]);
    assert!(ranked.scored[0].score > 0.0 && ranked.scored[0].score < 1.0);
    assert!(
        ix.rank("bananas and kiwis", RULES()).scored.is_empty(),
        "no known word, no candidate"
    );
    let both = ix.rank("log in to compare competitors", RULES());
    assert_eq!(both.scored.len(), 2);
    // Each holds its own words; the first is the best, ties broken by name.
    let names = ["pricing", "support", "competitors"];
    let ordered = both.ordered(|_| true, |k| names[k]);
    assert_eq!(ordered.len(), 2);
    assert_eq!(both.first(|_| true, |k| names[k]), Some(ordered[0]));
    assert!(ordered[0].score >= ordered[1].score);
    for s in &both.scored {
        let words = both.matched(s);
        let expected = if s.skill == 1 {
            vec!["log"]
        } else {
            vec!["compar", "competitor"]
        };
        assert_eq!(words, expected, "{s:?}");
    }
    let second = both.first(|s| s.skill != ordered[0].skill, |k| names[k]);
    assert_eq!(second, Some(ordered[1]));
    assert_eq!(both.first(|_| false, |k| names[k]), None);
    let tied = Ranking {
        words: vec!["x".into()],
        read_as: Vec::new(),
        scored: vec![
            Scored {
                skill: 1,
                score: 0.5,
                held: 1,
            },
            Scored {
                skill: 0,
                score: 0.5,
                held: 1,
            },
        ],
    };
    assert_eq!(
        tied.first(|_| true, |k| names[k]).unwrap().skill,
        0,
        "pricing < support"
    );
    // Left out, an example no longer finds its skill through its own words.
    assert_eq!(ix.rank("Why not use Globex?", RULES()).scored.len(), 1);
    assert!(ix
        .rank_leaving_out(
            "Why not use Globex?",
            Some((2, "Why not use Globex?")),
            RULES()
        )
        .scored
        .is_empty());
    // Another skill's example only shifts the average length.
    let kept = ix.rank_leaving_out(
        "How much does it cost?",
        Some((1, "I can't log in")),
        RULES(),
    );
    assert_eq!(kept.scored.len(), 1);
    assert_eq!((kept.scored[0].skill, kept.scored[0].held), (0, 3));
}
