"""Shared by the study's scripts: the labelled set, its blocks and halves, the catalog, skillc's
lexical index read from a built artifact through the Python runtime (the exact port of the Rust
route), per-message raw BM25 masses, MiniLM vectors (cached in /tmp, never committed), and the
figures. Paths: SKILLC (default /work/main/target/debug/skillc), MINILM_DIR (default
/tmp/mdl/model), STUDY_CACHE (default /tmp/skillc-study)."""

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
SCALE = HERE.parent
REPO = HERE.parents[3]
# The labelled set: SCALE_SET names it (default the first study's), SCALE_DIR holds it (default this
# repository's tests/quality/scale; a second set may be read from another checkout, e.g. main's).
SET_NAME = os.environ.get("SCALE_SET", "antigravity-awesome-skills")
WORKSPACE = Path(os.environ.get("SCALE_DIR", SCALE)) / SET_NAME
SET = Path(os.environ.get("SCALE_DIR", SCALE)) / f"{SET_NAME}.tsv"
SKILLC = os.environ.get("SKILLC", "/work/main/target/debug/skillc")
CACHE = Path(os.environ.get("STUDY_CACHE", "/tmp/skillc-study"))
sys.path.insert(0, str(REPO / "compiler/runtime/python"))
from skillc_runtime import Artifact, route_tokens  # noqa: E402

# Blocks of the set, in file order (its header says so): short-to-medium, 44 long, 10
# misspelled, 22 in other languages, then the 40 that need no skill.
BLOCK_SIZES = {
    "antigravity-awesome-skills": [("long", 44), ("misspelled", 10), ("other languages", 22), ("no skill", 40)],
    "openclaw-skills": [("long", 39), ("misspelled", 14), ("other languages", 37), ("no skill", 36)],
}[SET_NAME]


def labelled():
    out = []
    for line in SET.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            expected, message = line.split("\t", 1)
            out.append((set() if expected == "-" else set(expected.split("|")), message))
    n = len(out)
    tail = sum(s for _, s in BLOCK_SIZES)
    blocks = ["short"] * (n - tail)
    for name, size in BLOCK_SIZES:
        blocks += [name] * size
    assert all(not e for (e, _), b in zip(out, blocks) if b == "no skill")
    assert all(e for (e, _), b in zip(out, blocks) if b != "no skill")
    return out, blocks


def catalog():
    out = []
    for f in sorted((WORKSPACE / "skills").glob("*/SKILL.md")):
        fm = yaml.safe_load(f.read_text().split("---")[1])
        out.append((fm["name"], fm.get("description", ""), fm.get("when_to_use") or [], f.parent.name))
    # A name declared by several skills is each one's folder name, as skillc names them.
    count = {}
    for n, *_ in out:
        count[n] = count.get(n, 0) + 1
    return [(folder if count[n] > 1 else n, d, w) for n, d, w, folder in out]


def artifact():
    CACHE.mkdir(parents=True, exist_ok=True)
    db = CACHE / ("scale.db" if SET_NAME == "antigravity-awesome-skills" else f"{SET_NAME}.db")
    if not db.exists():
        subprocess.run([SKILLC, "build", str(WORKSPACE), "-o", str(db)], check=True, capture_output=True)
    return Artifact(str(db))


class Lexical:
    """skillc's lexical index as the runtime builds it, scored for many messages at once.
    raw[d] = Σ idf(w)·sat(w,d) over the message's known words; skillc's score = raw / Σ idf."""

    def __init__(self):
        a = artifact()
        b = a.bundle(None, None, None)
        index, docs = a._route_index(b)
        self.names = [b["skills"][i]["name"] for i in docs]
        self.ids = ids = {w: k for k, w in enumerate(sorted(index.df))}
        postings = [[] for _ in ids]
        for d, held in enumerate(index.held):
            for w, tf in held.items():
                postings[ids[w]].append((d, tf))
        norms = index.norms
        self.rules = a.routing_rules()
        n = len(docs)
        self.n = n
        self.idf = np.array([math.log(1.0 + (n - len(p) + 0.5) / (len(p) + 0.5)) for p in postings])
        self.sat = {}  # word id -> (doc indices, sat values)
        for w, plist in enumerate(postings):
            d = np.array([x for x, _ in plist])
            tf = np.array([t for _, t in plist], dtype=float)
            self.sat[w] = (d, tf / (tf + np.array(norms)[d]))
        # A document's own mass: what it would score if a message held all its words.
        self.doc_mass = np.zeros(n)
        self.doc_maxidf = np.zeros(n)
        for w, (d, s) in self.sat.items():
            self.doc_mass[d] += self.idf[w] * s

    def words(self, message):
        out = []
        for t in route_tokens(message, self.rules):
            if len(out) == self.rules.max_words:
                break
            if t in self.ids and self.ids[t] not in out:
                out.append(self.ids[t])
        return out

    def score(self, message):
        """(raw per doc, Σ idf of the message's known words, per doc the highest idf matched)."""
        raw = np.zeros(self.n)
        top_idf = np.zeros(self.n)
        ws = self.words(message)
        for w in ws:
            d, s = self.sat[w]
            raw[d] += self.idf[w] * s
            top_idf[d] = np.maximum(top_idf[d], self.idf[w])
        whole = float(sum(self.idf[w] for w in ws))
        return raw, whole, top_idf


def bm25_scores(cat, messages):
    from rank_bm25 import BM25Okapi
    words = lambda t: re.findall(r"\w+", t.lower())  # noqa: E731  (measure.py's words)
    bm = BM25Okapi([words(f"{n} {d}") for n, d, _ in cat])
    return np.array([bm.get_scores(words(m)) for m in messages])


def summary(name, description, when_to_use):
    """compiler/src/pipeline/embed.rs `summary`: the text of a card's summary vector."""
    text = f"{name.replace('-', ' ').replace('_', ' ')}: {description}"
    for line in when_to_use:
        text += "\n" + line
    return text


def vectors(key, texts):
    """MiniLM vectors of texts, cached by key and a digest of the texts."""
    import hashlib
    CACHE.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    f = CACHE / f"{key}-{h}.npy"
    if f.exists():
        return np.load(f)
    sys.path.insert(0, str(HERE))
    from minilm import MiniLM
    v = MiniLM().encode(texts)
    np.save(f, v)
    return v


def ranked(scores, keep, names, k=5):
    """Names of the best k docs among those kept, best first, ties by name."""
    idx = np.flatnonzero(keep)
    if not len(idx):
        return []
    order = sorted(idx, key=lambda i: (-scores[i], names[i]))[:k]
    return [names[i] for i in order]


def figures(rows):
    """rows: (expected set, ranked names). recall@1, recall@5, MRR@5, false fire, no candidate."""
    pos = [(e, r) for e, r in rows if e]
    neg = [r for e, r in rows if not e]
    r1 = r5 = mrr = empty = 0
    for e, r in pos:
        empty += not r
        for i, name in enumerate(r[:5]):
            if name in e:
                r5 += 1
                r1 += i == 0
                mrr += 1 / (i + 1)
                break
    n = max(len(pos), 1)
    return dict(r1=r1 / n, r5=r5 / n, mrr=mrr / n, ff=(sum(bool(r) for r in neg) / len(neg)) if neg else float("nan"),
                empty=empty / n, npos=len(pos), nneg=len(neg))


def row(title, f):
    ff = "—" if math.isnan(f["ff"]) else f"{f['ff']:.3f}"
    return f"| {title} | {f['r1']:.3f} | {f['r5']:.3f} | {f['mrr']:.3f} | {ff} | {f['empty']:.3f} |"


HEAD = "| method | recall@1 | recall@5 | MRR@5 | false fire | no candidate |\n|---|---|---|---|---|---|"
