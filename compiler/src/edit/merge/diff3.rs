//! The three-way comparison every merge is built on: the units of each side (lines, list items,
//! paragraphs, keys) matched against the base with Myers' diff, then cut into the runs that all
//! three share and the runs between them, where one side, the other or both changed (diff3's
//! algorithm, as `git merge-file` and GNU diff3 run it).

use std::hash::Hash;
use std::ops::Range;
use std::time::{Duration, Instant};

/// A run of units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Chunk<'a, T> {
    /// Units that all three have here, unchanged.
    Same(&'a [T]),
    /// Units that differ on at least one side.
    Changed {
        /// The base's units here.
        base: &'a [T],
        /// Ours.
        ours: &'a [T],
        /// Theirs.
        theirs: &'a [T],
    },
}

/// What a changed run becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Resolved<'a, T> {
    /// One side changed (or both the same way): these units.
    Take(&'a [T]),
    /// Both sides changed, differently.
    Conflict,
}

/// The ordinary three-way rule: the side that changed wins; a change both made is taken once.
pub(super) fn resolve<'a, T: PartialEq>(
    base: &'a [T],
    ours: &'a [T],
    theirs: &'a [T],
) -> Resolved<'a, T> {
    if ours == base || ours == theirs {
        Resolved::Take(theirs)
    } else if theirs == base {
        Resolved::Take(ours)
    } else {
        Resolved::Conflict
    }
}

/// For each unit of `base`, the index of the unit of `side` it matches, if any.
fn matches<T: Hash + Ord>(base: &[T], side: &[T]) -> Vec<Option<usize>> {
    // A bound on the time spent matching: past it the diff is coarser, never wrong.
    let deadline = Instant::now() + Duration::from_secs(2);
    let ops = similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        base,
        side,
        Some(deadline),
    );
    let mut out = vec![None; base.len()];
    for op in ops {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                out[old_index + k] = Some(new_index + k);
            }
        }
    }
    out
}

/// The runs of `base` that `side` changes: each as the base's range and what replaces it.
fn hunks<T: Hash + Ord>(base: &[T], side: &[T]) -> Vec<(Range<usize>, Range<usize>)> {
    let deadline = Instant::now() + Duration::from_secs(2);
    similar::capture_diff_slices_deadline(similar::Algorithm::Myers, base, side, Some(deadline))
        .iter()
        .map(similar::DiffOp::as_tag_tuple)
        .filter(|(tag, _, _)| *tag != similar::DiffTag::Equal)
        .map(|(_, old, new)| (old, new))
        .collect()
}

/// Whether two changes of the base touch the same units (an insertion touches a range only
/// strictly inside it; two insertions at one place touch).
fn touch(a: &Range<usize>, b: &Range<usize>) -> bool {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => a.start == b.start,
        (true, false) => b.start < a.start && a.start < b.end,
        (false, true) => a.start < b.start && b.start < a.end,
        (false, false) => a.start < b.end && b.start < a.end,
    }
}

/// Both sides' changes of a run both changed, applied together when they touch different units
/// of the base (an item added beside one removed, two paragraphs of the run edited); `None`
/// when they touch the same ones. For lists and paragraphs, not lines: git's line merge stops on
/// adjacent changes, and so does ours.
pub(super) fn combine<T: Hash + Ord + Clone>(
    base: &[T],
    ours: &[T],
    theirs: &[T],
) -> Option<Vec<T>> {
    let (ho, ht) = (hunks(base, ours), hunks(base, theirs));
    if ho.iter().any(|(a, _)| ht.iter().any(|(b, _)| touch(a, b))) {
        return None;
    }
    let mut all: Vec<(&Range<usize>, &[T])> = ho
        .iter()
        .map(|(old, new)| (old, &ours[new.clone()]))
        .chain(ht.iter().map(|(old, new)| (old, &theirs[new.clone()])))
        .collect();
    // At one place, an insertion goes before the range that starts there.
    all.sort_by_key(|(old, _)| (old.start, !old.is_empty()));
    let mut out = Vec::with_capacity(ours.len() + theirs.len());
    let mut at = 0;
    for (old, new) in all {
        out.extend_from_slice(&base[at..old.start]);
        out.extend_from_slice(new);
        at = old.end;
    }
    out.extend_from_slice(&base[at..]);
    Some(out)
}

/// Cuts the three sides into runs that all share ([`Chunk::Same`]) and runs between them.
pub(super) fn diff3<'a, T: Hash + Ord>(
    base: &'a [T],
    ours: &'a [T],
    theirs: &'a [T],
) -> Vec<Chunk<'a, T>> {
    let (in_ours, in_theirs) = (matches(base, ours), matches(base, theirs));
    let mut out = Vec::new();
    let (mut b, mut o, mut t) = (0, 0, 0);
    while b < base.len() || o < ours.len() || t < theirs.len() {
        // The units from here on that both sides keep in place.
        let mut same = 0;
        while b + same < base.len()
            && in_ours[b + same] == Some(o + same)
            && in_theirs[b + same] == Some(t + same)
        {
            same += 1;
        }
        if same > 0 {
            out.push(Chunk::Same(&ours[o..o + same]));
            (b, o, t) = (b + same, o + same, t + same);
            continue;
        }
        // The next base unit both sides still have ends the changed run.
        let next = (b..base.len()).find_map(|i| Some((i, in_ours[i]?, in_theirs[i]?)));
        let (nb, no, nt) = next.unwrap_or((base.len(), ours.len(), theirs.len()));
        out.push(Chunk::Changed {
            base: &base[b..nb],
            ours: &ours[o..no],
            theirs: &theirs[t..nt],
        });
        (b, o, t) = (nb, no, nt);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(base: &str, ours: &str, theirs: &str) -> Option<String> {
        let (b, o, t): (Vec<char>, Vec<char>, Vec<char>) = (
            base.chars().collect(),
            ours.chars().collect(),
            theirs.chars().collect(),
        );
        let mut out = String::new();
        for chunk in diff3(&b, &o, &t) {
            match chunk {
                Chunk::Same(u) => out.extend(u),
                Chunk::Changed { base, ours, theirs } => match resolve(base, ours, theirs) {
                    Resolved::Take(u) => out.extend(u),
                    Resolved::Conflict => return None,
                },
            }
        }
        Some(out)
    }

    #[test]
    fn changes_to_different_places_both_land() {
        assert_eq!(merged("abcde", "aXcde", "abcdY").as_deref(), Some("aXcdY"));
        assert_eq!(merged("abc", "abc", "").as_deref(), Some(""));
        assert_eq!(merged("abc", "Zabc", "abcW").as_deref(), Some("ZabcW"));
        assert_eq!(merged("abc", "aQc", "aQc").as_deref(), Some("aQc"));
    }

    #[test]
    fn changes_beside_each_other_combine_when_they_touch_different_units() {
        let (b, o, t) = (['a', 'b', 'c'], ['a', 'X', 'b', 'c'], ['a', 'c']);
        assert_eq!(combine(&b, &o, &t), Some(vec!['a', 'X', 'c']));
        assert_eq!(combine(&b, &['a', 'Y', 'c'], &t), None);
        assert_eq!(
            combine(&b, &['Q', 'a', 'b', 'c'], &['R', 'a', 'b', 'c']),
            None
        );
    }

    #[test]
    fn changes_to_the_same_place_conflict() {
        assert_eq!(merged("abc", "aXc", "aYc"), None);
        assert_eq!(merged("", "x", "y"), None);
    }
}
