"""The route of a message (docs/routing.md): the same words, scores and bar as the Rust
runtime's, by words and, with the artifact's built-in meaning or a caller's vector, by meaning
too. `Routing` is the part of `Artifact` that answers `route`; it reads the artifact through
the rest of it (its connection, manifest, bundles and catalog members)."""

import heapq
import json
import math
import sqlite3
import struct
import sys
from array import array
from bisect import bisect_left
from itertools import compress, count, islice, repeat
from operator import add, ge, mul, truediv
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional

from . import _glossary, _history, _meaning
from ._lexical import LexicalIndex
from ._meaning import _cosine, _norm
from ._words import RoutingRules, joined_words, route_tokens, spelling_applies


class Routing:
    """`Artifact.route` and what it reads: the routing index, the vectors, the meaning table
    and the small talk of a bundle's catalog (each kept in the bundle, as the Rust runtime
    keeps them)."""

    # What `Artifact` opens and keeps, which the route reads (declared for type checkers).
    path: str
    db: sqlite3.Connection
    manifest: Dict[str, str]
    _lock: Any
    _rules: Optional[RoutingRules]

    if TYPE_CHECKING:
        def _follow(self) -> None: ...

        def bundle(self, client: Optional[str] = None, locale: Optional[str] = None,
                   tier: Optional[str] = None) -> Dict[str, Any]: ...

    def route(self, message: str, client: Optional[str] = None, locale: Optional[str] = None,
              tier: Optional[str] = None, consumer: Optional[str] = None,
              context: Optional[Dict[str, Any]] = None, top: Optional[int] = None,
              query_vector: Optional[List[float]] = None, history: Optional[List[Dict[str, Any]]] = None,
              time: Optional[float] = None) -> Dict[str, Any]:
        """The skills the bundle's catalog shows, ranked for `message`, as `skillc route
        --format json` gives them. With `query_vector` (the message's embedding from the
        artifact's `embedding_model`), ranked by words and vectors (`hybrid`). With `history`
        (the visitor's recent messages, oldest first, each `{"text": str, "time": seconds}`), a
        fragment is routed joined to the messages it continues, and the answer's `routed_text`
        says so (docs/routing.md, "Fragments"); `time` is the message's (now by default)."""
        routed = _history.routed_text(message, history, time)
        text = message if routed is None else routed
        # Each word's routing words, read once for the glossary, the spelling and the index.
        tokens: Dict[str, List[str]] = {}
        with self._lock:
            self._follow()
            # Its words in other languages read in English, for its words and meaning alike.
            read = self._glossed(text, self.bundle(client, locale, tier), tokens)
            if query_vector is not None:
                query = self._query_vector(query_vector)
            else:
                # Without a vector of the caller's, the artifact's built-in meaning makes one.
                meaning = self._meaning()
                spelt = self._spelt(read or text, self.bundle(client, locale, tier), tokens) if meaning else None
                query = meaning.vector(spelt or read or text) if meaning else None
            r = self._route(read or text, client, locale, tier, consumer, context or {}, top, query, tokens)
            r["message"] = text
        return r if routed is None else _history.with_routed_text(r, message, routed)

    def _glossary(self):
        """The glossary beside the built-in meaning table (its bytes, looked up where they lie:
        `_glossary.look_up`), read once; None without one (or without the table)."""
        if not hasattr(self, "_glossary_bytes"):
            model, data = self.manifest.get("embedding_model"), None
            if model is not None and self._meaning() is not None:
                row = self.db.execute("SELECT data FROM meaning WHERE name = ?", (f"{model}:glossary",)).fetchone()
                data = bytes(row[0] or b"") if row is not None else None
            self._glossary_bytes = data
            # The lines of every lookup's first halvings, kept as they are met.
            self._glossary_probes: Dict[Any, Any] = {}
        return self._glossary_bytes

    def _glossed(self, text, b, tokens=None):
        """`text` with its words in other languages glossed (`_glossary.gloss`) in the catalog
        of bundle `b`: a word its index holds is the catalog's own. None when none is.
        `tokens`: `route_tokens`' words already read."""
        glossary = self._glossary()
        if not glossary:
            return None
        index, _ = self._route_index(b)
        rules = self.routing_rules()

        def held(word):
            found = route_tokens(word, rules, tokens)
            return bool(found) and all(w in index for w in found)
        return _glossary.gloss(glossary, text, held, self._glossary_probes)

    def _spelt(self, text, b, tokens=None):
        """The text a message's meaning vector is made of when it is not `text`: its misspelt
        words read as its words are, as the nearest known words of the catalog of bundle `b`
        (`_meaning.spelt`); None for an artifact whose rules do not ask it. `tokens`:
        `route_tokens`' words already read."""
        rules, meaning = self.routing_rules(), self._meaning()
        if not rules.meaning_spelling or rules.spelling is None or meaning is None:
            return None
        index, _ = self._route_index(b)
        tokens = {} if tokens is None else tokens

        def held(word):
            found = route_tokens(word, rules, tokens)
            return bool(found) and all(w in index for w in found)
        return _meaning.spelt(text, meaning.ids, rules.spelling, rules.max_words,
                              lambda word: route_tokens(word, rules, tokens), held, index.nearest_known)

    def _query_vector(self, vector):
        model, dims = self.manifest.get("embedding_model"), int(self.manifest.get("embedding_dims", "0"))
        if model is None:
            raise ValueError("this artifact carries no embedding vectors (its workspace sets no "
                             "`routing.embedding_model`), so it routes by words only; give no query vector")
        if len(vector) != dims:
            raise ValueError(f"the query vector has {len(vector)} numbers; this artifact's model `{model}` gives {dims}")
        # Stored vectors are 32-bit floats: the query is rounded to them too, as in every runtime.
        return struct.unpack(f"<{dims}f", struct.pack(f"<{dims}f", *vector))

    def _meaning(self):
        """The meaning table of the artifact's embedding model, when the artifact carries it
        (the built-in model), read once."""
        if not hasattr(self, "_meaning_table"):
            model, row = self.manifest.get("embedding_model"), None
            if model is not None:
                row = self.db.execute("SELECT data FROM meaning WHERE name = ?", (model,)).fetchone()
            self._meaning_table = _meaning.parse(row[0]) if row else None
        return self._meaning_table

    def _small_talk(self):
        """The small-talk vectors beside the built-in meaning table, each with its length
        (what each catalog packs aside: `_packed`), read once; None without them."""
        if not hasattr(self, "_small_talk_vectors"):
            model, dims, vectors = self.manifest.get("embedding_model"), int(self.manifest.get("embedding_dims", "0")), None
            if model is not None and dims > 0 and self._meaning() is not None:
                row = self.db.execute("SELECT data FROM meaning WHERE name = ?", (f"{model}:small-talk",)).fetchone()
                if row is not None and (not row[0] or len(row[0]) % dims != 0):
                    raise ValueError(f"{self.path} is not a readable skillc artifact: its small-talk vectors are "
                                     f"{len(row[0] or b'')} bytes, not vectors of {dims} numbers")
                if row is not None:
                    data = bytes(row[0])
                    vectors = list(_meaning.whole_vectors([data[k:k + dims] for k in range(0, len(data), dims)]))
            self._small_talk_vectors = vectors
        return self._small_talk_vectors

    def _talk_words(self):
        """The weights towards small talk (thousandths) of the meaning table's pieces (by row)
        and of pairs of neighbouring pieces (by `pair_key`; None in an artifact built before
        them), read once; None without them."""
        if not hasattr(self, "_talk_word_weights"):
            model, weights = self.manifest.get("embedding_model"), None
            if model is not None:
                row = self.db.execute("SELECT data FROM meaning WHERE name = ?",
                                      (f"{model}:small-talk-words",)).fetchone()
                if row is not None:
                    pairs = self.db.execute("SELECT data FROM meaning WHERE name = ?",
                                            (f"{model}:small-talk-pairs",)).fetchone()
                    try:
                        weights = talk_weights(bytes(row[0] or b""),
                                               None if pairs is None else bytes(pairs[0] or b""))
                    except ValueError as e:
                        raise ValueError(f"{self.path} is not a readable skillc artifact: {e}") from None
            self._talk_word_weights = weights
        return self._talk_word_weights

    def _dense_index(self, b):
        """Per document of the route index: its vectors (summary, then each trigger example)
        with their norms."""
        if "dense" not in b:
            _, docs = self._route_index(b)
            cards = {i: s["card"] for i, s in enumerate(b["skills"])}
            listed = dict(self.db.execute(
                "SELECT id, vectors FROM card WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(sorted({cards[i] for i in docs})),)))
            ids = {card: [int(v) for v in (text or "").split(" ") if v] for card, text in listed.items()}
            wanted = sorted({v for vs in ids.values() for v in vs})
            stored = {}
            dims = int(self.manifest.get("embedding_dims", "0"))
            found = self.db.execute(
                "SELECT id, data FROM vector WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(wanted),)).fetchall()
            # A byte a number (the built-in meaning's whole numbers), else 32-bit floats.
            whole = _meaning.whole_vectors([data for _, data in found if len(data) == dims])
            for vid, data in found:
                stored[vid] = (next(whole) if len(data) == dims else
                               _with_norm(struct.unpack(f"<{len(data) // 4}f", data)))
            b["dense"] = [[stored[v] for v in ids.get(cards[i], []) if v in stored] for i in docs]
            if dims:
                # With the built-in meaning, a card's summary with its body mixed in is a text
                # of its own, after its trigger examples (`card_route.meaning`; the build
                # writes none with a model of the workspace's own).
                found = self.db.execute(
                    "SELECT card, meaning FROM card_route WHERE meaning IS NOT NULL "
                    "AND card IN (SELECT value FROM json_each(?))", (json.dumps(sorted(ids)),)).fetchall()
                for card, data in found:
                    if len(data) != dims:
                        raise ValueError(f"{self.path} is not a readable skillc artifact: card {card}'s "
                                         f"meaning holds {len(data)} bytes, not {dims}")
                mixed = dict(zip((card for card, _ in found), _meaning.whole_vectors([data for _, data in found])))
                for vectors, i in zip(b["dense"], docs):
                    if cards[i] in mixed:
                        vectors.append(mixed[cards[i]])
        return b["dense"]

    def _packed(self, b):
        """With the built-in meaning (whole-number vectors), the catalog's vectors packed for
        the dot products of all of them at once (`_meaning.Packed`): exact, as the loop of
        `_cosine` is, in a fraction of its time, with the small talk's aside. None otherwise."""
        if self._meaning() is None:
            return None
        if "packed" not in b:
            b["packed"] = _meaning.Packed(self._dense_index(b), self._meaning().dims, self._small_talk() or ())
        return b["packed"]

    def _needs(self, docs, target, score, scale):
        """The similarity each document needs for its hybrid score to reach `target`: a
        document of words' mass `score[doc]` (None: no word) needs (target − share·words) /
        (1 − share), words = t / (t + scale), less a margin for the scores' rounding to 6
        decimals (as in Rust's runtime); in C, for every document."""
        share = self.routing_rules().lexical_share
        needed = target / (1.0 - share) - 1e-5
        ratio = share / (1.0 - share)
        if score is None:
            return list(repeat(needed, docs))
        if scale <= 0.0:
            # No evidence scale (an artifact's rules can say so): no map divides by 0.
            return [needed - ratio * lexical_score(t, scale) for t in score]
        return list(map(add, repeat(needed - ratio), map(truediv, repeat(ratio * scale), map(add, score, repeat(scale)))))

    def _route_index(self, b):
        """The lexical index of the skills the bundle's catalogs show, with each document's
        skill: `(index, docs)`, `docs[doc]` its skill's position in the bundle."""
        if "route" not in b:
            shown = [(i, s["card"]) for i, s in enumerate(b["skills"]) if s["visible"]]
            terms = dict(self.db.execute(
                "SELECT card, terms FROM card_route WHERE card IN (SELECT value FROM json_each(?))",
                (json.dumps(sorted({c for _, c in shown})),)))
            rules = self.routing_rules()
            index = LexicalIndex([terms.get(card) or "" for _, card in shown], rules.k1, rules.b)
            b["route"] = (index, [i for i, _ in shown])
        return b["route"]

    def _positions(self, b, consumer, ctx):
        """Catalog position (from 1) of each skill the catalog shows; and, per document of the
        route index, whether the catalog shows it (a byte, 1 or 0; None when it shows them
        all). Only the consumer and the outcome of the skills' conditions change them: kept by
        those, as the Rust runtime keeps catalogs."""
        if "conditioned" not in b:
            b["conditioned"] = [s for s in b["skills"]
                                if s["visible"] and (s["record"] or {}).get("conditions")]
        key = (consumer, tuple(self._holds(s, ctx) for s in b["conditioned"]))
        kept = b.setdefault("positions", {})
        if key not in kept:
            position = {i: n + 1 for n, i in enumerate(self._members(b, consumer, ctx))}
            shown = bytes(i in position for i in self._route_index(b)[1])
            kept[key] = (position, None if all(shown) else shown)
        return kept[key]

    def routing_rules(self) -> RoutingRules:
        """Routing's words and constants, as the build wrote them (manifest `routing_rules`)."""
        if self._rules is None:
            raise ValueError(f"{self.path} cannot be routed: its manifest has no `routing_rules` (it was built by "
                             "a skillc older than this runtime); build it again")
        if self._rules.unreadable is not None:
            raise ValueError(f"`{self.path}` is not a readable skillc artifact: its `routing_rules` {self._rules.unreadable}")
        return self._rules

    def route_tokens(self, text: str) -> List[str]:
        """A text's words as this artifact's routing index holds them (`route_tokens`)."""
        return route_tokens(text, self.routing_rules())

    def routing_settings(self, client: Optional[str] = None) -> Dict[str, Any]:
        """`routing:` of workspace.yaml with a client's own keys over it, defaults otherwise."""
        own = json.loads(self.manifest.get("routing_clients", "{}")).get(client or "", {})
        return {"hybrid_min_score": None, **self.routing_rules().defaults,
                **json.loads(self.manifest.get("routing", "{}")), **own}

    def _hybrid(self, b, message, query, score, scale, floor, settings, rules, shown, name):
        """Hybrid scores (docs/routing.md): half each document's lexical score, half its
        closest text's cosine, kept to 6 decimals, for the documents that may reach the bar (by
        document); the bar, raised when the message reads like small talk; the bar of the
        candidates after the first, `tail_below` under it when the catalog's bar cuts (the bar
        itself when the settings write it); and the documents that may score down to it, the
        first `tail_words` the catalog shows (`shown`) by their words, ties by `name`, read
        down to it once a document reaches the bar."""
        q_norm = _norm(query)
        share = rules.lexical_share
        below = rules.tail_below if settings["hybrid_min_score"] is None else 0.0
        packed = self._packed(b) if q_norm != 0.0 else None
        # Computed once, whatever the documents need (the catalog's bar, then lower).
        dots = None if packed is None else packed.dot_products(query, q_norm)
        if packed is not None:
            closest = packed.closest_reaching(query, q_norm, self._needs(packed.docs, floor, score, scale), dots)
        elif q_norm == 0.0:
            # A vector of 0 (no piece of the message is known) is near nothing.
            closest = {}
        else:
            dense = self._dense_index(b)
            closest = {doc: max([0.0, *(_cosine(query, q_norm, v, v_norm) for v, v_norm in vectors)])
                       for doc, vectors in enumerate(dense)}
        if settings["hybrid_min_score"] is None and self._small_talk() is not None:
            # Nearer small talk than any skill, or worded as small talk: the bar rises
            # (docs/routing.md, "Small talk").
            weights, meaning = self._talk_words(), self._meaning()
            lean = (talk_words(weights, meaning.pieces(message), rules.talk_words_ends)
                    if weights is not None and meaning else None)
            # Packed beside the catalog's vectors (`_packed`): the same dot products. Only how
            # much nearer it is than the nearest skill counts: that nearest, at most it.
            small_talk = packed.aside_closest(query, q_norm, dots) if packed is not None else 0.0
            nearest = packed.nearest(query, q_norm, dots, small_talk) if packed is not None else 0.0
            floor_bar = raised_floor(floor, small_talk, nearest, rules, lean)
        else:
            floor_bar = floor
        tail = math.floor(max(floor_bar - below, 0.0) * 1e6 + 0.5) / 1e6
        fused = self._fused(closest, score, scale, share, floor)
        by_words = first_by_words(score, scale, shown, name, rules.tail_words) if tail < floor_bar else []
        # Those first by words down to the tail (the same dot products; without them, every
        # document's cosine is already known). Whether one reaches the bar, the route decides:
        # a few cosines cost less here than finding out first.
        if by_words and dots is not None:
            for doc, similarity in packed.closest_of(by_words, q_norm, dots).items():
                words = lexical_score(score[doc], scale)
                fused[doc] = fuse(words, similarity, share)
        return fused, floor_bar, tail, set(by_words)

    @staticmethod
    def _fused(closest, score, scale, share, target):
        """Each document's hybrid score of `closest` (its closest cosine), and of the
        documents near nothing whose words alone reach `target`."""
        fused: Dict[int, float] = {}
        for doc, similarity in closest.items():
            words = 0.0 if score is None else lexical_score(score[doc], scale)
            fused[doc] = fuse(words, similarity, share)
        for doc in [] if score is None else reaching_by_words(score, scale, share, target):
            if doc not in closest:
                fused[doc] = math.floor(share * lexical_score(score[doc], scale) * 1e6 + 0.5) / 1e6
        return {doc: s for doc, s in fused.items() if s > 0.0}

    def _route(self, message, client, locale, tier, consumer, ctx, top, query=None, tokens=None):
        b = self.bundle(client, locale, tier)
        settings, rules = self.routing_settings(client), self.routing_rules()
        position, shown = self._positions(b, consumer, ctx)
        index, docs = self._route_index(b)
        words: List[str] = []
        tried = 0
        for t in route_tokens(message, rules, tokens):
            if len(words) == rules.max_words:
                break
            if t not in index:
                # Read as its nearest known word (docs/routing.md, "Misspelt words").
                if rules.spelling is None or tried == rules.max_words or not spelling_applies(t, rules.spelling):
                    continue
                tried += 1
                near = index.nearest_known(t)
                if near is None:
                    continue
                t = near
            if t not in words:
                words.append(t)
        # Then neighbouring words written together, where the index holds them as one word.
        for t in joined_words(message, rules, tokens):
            if len(words) == rules.max_words:
                break
            if t in index and t not in words:
                words.append(t)
        # Each document's mass of matched words (None: the message has no word of the index);
        # its lexical score is `lexical_score` of it. The candidates hold a word of the
        # message (lexical), or their hybrid score may reach the bar.
        score: Optional[List[float]] = None
        scale = evidence_scale(float(len(docs)), rules)
        if words:
            # Every term adds a positive amount: a document scores above 0 when it holds a word.
            score = [0.0] * len(docs)
            for k, w in enumerate(words):
                held_by, parts, dense = index.postings(w)
                if dense is not None:
                    # The first word's shares are the scores (0 + x is x).
                    score = list(dense) if k == 0 else list(map(add, score, dense))
                else:
                    for doc, part in zip(held_by, parts):
                        score[doc] += part
        floor = settings["min_score"] if query is None else settings["hybrid_min_score"]
        if floor is None:
            floor = hybrid_floor(len(docs), rules)
        tail, by_words = floor, set()
        if query is not None:
            def name(doc):
                return b["skills"][docs[doc]]["name"]

            lexical, floor, tail, by_words = self._hybrid(b, message, query, score, scale, floor, settings, rules, shown, name)
        else:
            # `lexical_score` of each, written out: a call a document costs a fifth more here.
            lexical = {} if score is None else {doc: math.floor(total / (total + scale) * 1e6 + 0.5) / 1e6
                                               for doc, total in enumerate(score) if total != 0.0}
        scored = []
        for doc, s in lexical.items():
            i = docs[doc]
            if (s >= floor or (s >= tail and doc in by_words)) and i in position:
                scored.append((-s, b["skills"][i]["name"], i, doc))
        # Best first, ties by name; only the first few are ordered. Only a first candidate at
        # the bar makes a route: the others may be under it.
        scored = heapq.nsmallest(settings["top_k"] if top is None else top, scored)
        if scored and -scored[0][0] < floor:
            scored = []
        candidates = [{
            "id": f"SK{position[i]}", "name": name,
            "qualified_name": b["skills"][i]["qualified_name"], "score": -s,
            "matched": [w for w in words if w in index.held[doc]],
        } for s, name, i, doc in scored]
        return {"message": message, "client": client or None,
                "locale": locale or self.manifest["default_locale"],
                "tier": tier or self.manifest["default_tier"], "consumer": consumer,
                "method": "lexical" if query is None else "hybrid",
                "confident": bool(candidates) and candidates[0]["score"] >= settings["confident"],
                "candidates": candidates}


def _with_norm(v):
    return v, _norm(v)


def lexical_score(mass: float, scale: float) -> float:
    """A document's lexical score: its mass of matched words over that plus the catalog's
    `evidence_scale`, kept to 6 decimals (docs/routing.md)."""
    return math.floor(mass / (mass + scale) * 1e6 + 0.5) / 1e6 if mass != 0.0 else 0.0


def first_by_words(score: Optional[List[float]], scale: float, shown: Optional[bytes],
                   name: Callable[[int], str], n: int) -> List[int]:
    """The first `n` documents the catalog shows (`shown`: 1 a document it shows, 0 one it
    hides; None: all) by lexical score, ties by `name`, of those holding a word of the message
    (`score`: each document's mass of matched words). The score grows with the mass: only the
    documents whose mass may round to the score of the n-th largest are scored, found in C."""
    if score is None or n <= 0:
        return []
    # The masses of the documents shown: a hidden one's is 0, as if it held no word.
    masses = score if shown is None else list(map(mul, score, shown))
    # The n-th largest mass (sorted in C: heapq's loop is Python's).
    held = sorted(filter(None, masses))
    least = held[-n] if len(held) >= n else 0.0
    # A mass under the n-th's may still round to its score: those 2 millionths under too.
    x = lexical_score(least, scale) - 2e-6
    at_least = x * scale / (1.0 - x) if 0.0 < x < 1.0 and scale > 0.0 else 0.0
    ranked = compress(count(), map(ge, masses, repeat(at_least)) if at_least > 0.0 else masses)
    best = heapq.nsmallest(n, ((-lexical_score(masses[doc], scale), name(doc), doc)
                               for doc in ranked if masses[doc] != 0.0))
    return [doc for _, _, doc in best]


def reaching_by_words(score: List[float], scale: float, share: float, floor: float) -> List[int]:
    """The documents whose words alone reach the bar: share · lexical score ≥ floor − 1e-6.
    A mass t scores t / (t + scale), so only a mass that scores `least` or more can (found in
    C, by comparing masses), and only those are scored."""
    if share <= 0.0:
        return [doc for doc, t in enumerate(score) if share * lexical_score(t, scale) >= floor - 1e-6]
    # Below the lexical score it needs by a margin of its rounding to 6 decimals.
    least = (floor - 1e-6) / share - 1e-6
    mass = scale * least / (1.0 - least) if least < 1.0 else math.inf
    return [doc for doc in compress(count(), map(ge, score, repeat(mass)))
            if share * lexical_score(score[doc], scale) >= floor - 1e-6]


def evidence_scale(n: float, rules: RoutingRules) -> float:
    """The matched idf mass at which a skill scores 0.5 in a catalog of `n` skills
    (docs/routing.md): `evidence_factor` · m², m the weight of a word one skill holds."""
    m = max(math.log(1.0 + (n - 0.5) / 1.5), 0.0)
    return rules.evidence_factor * m * m


def pair_key(first: int, second: int) -> Optional[int]:
    """A pair of neighbouring pieces (rows of the meaning table) as one number: first × 65,536
    + second; None when a row is 65,536 or more."""
    return (first << 16) | second if first < 65536 and second < 65536 else None


def talk_weights(pieces: bytes, pairs: Optional[bytes]):
    """The small-talk weights from the artifact's rows: a 16-bit number a piece; for `n` pairs,
    their `n` keys (rising, little-endian u32s) then their `n` weights (i16s). The pieces'
    weights, and the pairs' keys and weights (None without the row)."""
    if len(pieces) % 2 != 0:
        raise ValueError(f"its small-talk word weights are {len(pieces)} bytes, not 16-bit numbers")
    weights = array("h", pieces)
    by_pair = None
    if pairs is not None:
        if len(pairs) % 6 != 0:
            raise ValueError(f"its small-talk pair weights are {len(pairs)} bytes, not pairs of 6")
        keys, pair_weights = array("I", pairs[:len(pairs) // 6 * 4]), array("h", pairs[len(pairs) // 6 * 4:])
        if sys.byteorder != "little":
            keys.byteswap()
            pair_weights.byteswap()
        if any(map(ge, keys, islice(keys, 1, None))):
            raise ValueError("its small-talk pair weights are not in rising order")
        by_pair = (keys, pair_weights)
    if sys.byteorder != "little":
        weights.byteswap()
    return weights, by_pair


# The row past any table's end that stands for a message's edges (Rust's `EDGE`).
EDGE = (1 << 16) - 1


def talk_pairs(pieces, ends: bool):
    """A message's distinct pairs of neighbouring pieces by `pair_key`; with `ends`, its pairs
    with the edge too: (EDGE, first piece) and (last piece, EDGE)."""
    pairs = {pair_key(a, b) for a, b in zip(pieces, pieces[1:])}
    if ends and pieces:
        pairs.update((pair_key(EDGE, pieces[0]), pair_key(pieces[-1], EDGE)))
    pairs.discard(None)
    return pairs


def talk_words(weights, pieces, ends: bool = False) -> float:
    """How much a message's pieces (rows of the meaning table, in order) lean to small talk:
    the mean weight (thousandths) of its distinct pieces and, when the artifact weighs pairs,
    its distinct pairs of neighbouring pieces (with `ends`, the artifact's `talk_words_ends`,
    its edges' too); 0 without any (docs/routing.md, "Small talk")."""
    by_piece, by_pair = weights
    distinct = set(pieces)
    pairs = set() if by_pair is None else talk_pairs(pieces, ends)
    if not distinct and not pairs:
        return 0.0
    total = sum(by_piece[p] if p < len(by_piece) else 0 for p in distinct)
    if pairs:
        keys, pair_weights = by_pair
        for key in pairs:
            at = bisect_left(keys, key)
            total += pair_weights[at] if at < len(keys) and keys[at] == key else 0
    return total / ((len(distinct) + len(pairs)) * 1000.0)


def raised_floor(floor: float, small_talk: float, nearest: float, rules: RoutingRules,
                 words: Optional[float] = None) -> float:
    """A hybrid route's bar: `floor`, raised by `small_talk_share` of how much closer the message
    is to small talk (its closest cosine) than to the catalog's nearest skill, and by
    `talk_words_share` of how far its pieces lean to small talk beyond `talk_words_from`
    (`words`; None for an artifact without the weights), lowered by `talk_words_lowers` of how
    far they lean to requests below it, never under `floor`; kept to 6 decimals."""
    by_words = 0.0
    if words is not None:
        beyond = words - rules.talk_words_from
        by_words = beyond * (rules.talk_words_share if beyond > 0.0 else rules.talk_words_lowers)
    margin = rules.small_talk_share * max(small_talk - nearest, 0.0)
    return math.floor((floor + max(margin + by_words, 0.0)) * 1e6 + 0.5) / 1e6


def fuse(words: float, similarity: float, share: float) -> float:
    """A hybrid score: `share` of the words' score, the rest of the similarity, to 6 decimals
    (Rust's `dense::fuse`)."""
    return math.floor((share * words + (1.0 - share) * similarity) * 1e6 + 0.5) / 1e6


def hybrid_floor(n: int, rules: RoutingRules) -> float:
    """The hybrid cut of a catalog of `n` skills when the settings give none (docs/routing.md):
    base + slope · ln n, kept to 6 decimals."""
    return math.floor((rules.hybrid_floor_base + rules.hybrid_floor_slope * math.log(max(n, 1))) * 1e6 + 0.5) / 1e6
