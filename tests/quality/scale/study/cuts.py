"""Question 1: lexical cuts that do not shrink with the message's length and still stop small
talk. The ranking is skillc's own (a message's raw mass and its share rank the skills the same
way), so a cut changes only which candidates stay. Prints the table of REPORT.md section 1.

    python3 tests/quality/scale/study/cuts.py
"""

import numpy as np

import common
from methods import load, report, top


def bm25(f, names, p):
    return top(f.bm25, names)


def uncut(f, names, p):
    return top(f.raw, names)


def shipped(f, names, p):
    """min_score on the share of the message's idf mass (the shipped cut at p = 0.2)."""
    return top(f.raw, names, f.score >= p)


def mass(f, names, p):
    """C: the matched idf mass itself (Σ idf·sat), in absolute terms."""
    return top(f.raw, names, f.raw >= p)


def zgate(f, names, p):
    """D: margin of the first over the catalog's typical score, (raw₁ − mean) / sd over every
    skill; the message fires or not, then the first five that match a word."""
    if not f.raw.any():
        return []
    z = (f.raw.max() - f.raw.mean()) / (f.raw.std() or 1.0)
    return top(f.raw, names) if z >= p else []


def rare(f, names, p):
    """E: a candidate must match at least one word whose idf is at least p (ln(N) ≈ 6.3)."""
    return top(f.raw, names, f.top_idf >= p)


def minnorm(f, names, p):
    """F: raw / min(message's idf mass, the skill's own mass), a share in [0, 1] that does not
    shrink when the message grows past the skill."""
    denom = np.minimum(f.whole, f.lex.doc_mass)
    s = np.where(denom > 0, f.raw / np.maximum(denom, 1e-12), 0.0)
    return top(f.raw, names, s >= p)


def mass_rare(f, names, p):
    """C and E together: mass ≥ p[0] and a matched word with idf ≥ p[1]."""
    return top(f.raw, names, (f.raw >= p[0]) & (f.top_idf >= p[1]))


def methods():
    g = lambda a, b, s: [round(float(x), 4) for x in np.arange(a, b, s)]  # noqa: E731
    return {
        "BM25 over name + description (rank_bm25), uncut": (bm25, [None]),
        "skillc lexical, uncut": (uncut, [None]),
        "skillc as shipped (share ≥ 0.2)": (shipped, [0.2]),
        "share ≥ t (the shipped cut, re-tuned)": (shipped, g(0.0, 0.6, 0.01)),
        "C: matched idf mass ≥ t": (mass, g(0.0, 15.0, 0.1)),
        "D: first's z over the catalog ≥ t": (zgate, g(0.0, 60.0, 0.5)),
        "E: a matched word of idf ≥ t": (rare, g(0.0, 6.5, 0.05)),
        "F: raw / min(message mass, skill mass) ≥ t": (minnorm, g(0.0, 1.0, 0.01)),
        "C+E: mass ≥ t₁ and a word of idf ≥ t₂": (
            mass_rare, [(a, b) for a in g(0.0, 10.0, 0.25) for b in g(2.0, 6.0, 0.25)]),
    }


def check_port(msgs, names, feats):
    """The study's shipped ranking must be the runtime's own route (same candidates)."""
    a = common.artifact()
    for i in range(0, len(msgs), 15):
        want = [c["name"] for c in a.route(msgs[i][1])["candidates"]]
        got = shipped(feats[i], names, 0.2)
        assert want == got, (msgs[i][1], want, got)


if __name__ == "__main__":
    msgs, blocks, names, feats = load(with_dense=False)
    check_port(msgs, names, feats)
    print("(checked: the study's shipped ranking equals Artifact.route on every 15th message)\n")
    report("1. Lexical cuts (skillc's ranking)", methods(), msgs, blocks, names, feats)
