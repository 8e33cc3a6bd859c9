"""The Python runtime's built-in meaning on artifacts of the sample workspace: vectors, the hybrid
score and bar, with and without numpy. Parity with the Rust runtime is tests/parity/; run:

    PYTHONPATH=compiler/runtime/python SKILLC=target/debug/skillc \
        python3 -m unittest discover -s compiler/runtime/python/tests
"""

import math
import shutil
import tempfile
import unittest
from pathlib import Path

import sqlite3

from skillc_runtime import Artifact

from common import ROOT


class Meaning(unittest.TestCase):
    """The built-in meaning model (docs/routing.md, "Meaning, built in"): the same small table
    and answers as the Rust runtime's tests of route/meaning.rs."""

    @staticmethod
    def table():
        import struct
        from skillc_runtime import _meaning
        vocab = ["[UNK]", "price", "##s", "list", "café", "cafe", "価", "格"]
        text, folds = "\n".join(vocab).encode(), "é\te".encode()
        data = b"SKILLC-MEANING-1" + struct.pack("<II", 4, len(vocab))
        data += struct.pack("<I", len(text)) + text + struct.pack("<I", len(folds)) + folds
        data += b"".join(struct.pack("<f", 0.5 * (i + 1)) for i in range(len(vocab)))
        data += b"".join(bytes([i, 1, 127 - i, (-i) & 0xFF]) for i in range(len(vocab)))
        return _meaning.parse(data)

    def test_a_misspelt_word_is_read_for_the_meaning_as_the_route_reads_its_word(self):
        # The cases of the Rust runtime's test of the same name (route/meaning.rs).
        from skillc_runtime import _meaning
        vocab = ["[UNK]", "whether", "weather", "container", "lists", "list", "plan", "containers", "a" * 23 + "bs"]
        ids = {p: i for i, p in enumerate(vocab)}
        near = {"contianer": "container", "wether": "weather", "weathr": "weather", "lisst": "list",
                "lsit": "list", "contaner": "contain", "container": "contain", "a" * 24: "a" * 23 + "b"}

        def spelt(text, most=64):
            return _meaning.spelt(text, ids, (5, 24), most, lambda w: [w[:-1] if w.endswith("s") else w],
                                  lambda w: w == "kubectl", near.get)
        self.assertEqual(spelt("Where is the CONTIANER list?"), "where is the container list?")
        self.assertEqual(spelt("wether"), "weather")
        self.assertEqual(spelt("lisst"), "lists")
        self.assertEqual(spelt("weathr"), "weather")
        for text in ["whether", "containers", "a" * 24 + "s", "kubectl", "lsit", "contianer2", "contiäner", "plann", "contaner", ""]:
            self.assertIsNone(spelt(text), text)
        self.assertEqual(spelt("contianer wether lisst", 2), "container weather lisst")
        # A piece read as a word it does not start with whole: `studies` as `study`.
        study = _meaning.spelt("stuides", {"studies": 0}, (5, 24), 64,
                               lambda w: ["study"] if w in ("studies", "stuides") else [w],
                               lambda w: False, {"study": "study"}.get)
        self.assertEqual(study, "studies")

    def test_the_edits_a_misspelt_word_is_read_through_start_as_its_reading(self):
        # `spelt` makes only the edits that start with the reading but its last letter: the
        # same words as every edit filtered so, and every word the route's words read as one
        # word starts so (the built-in table's whole pieces, by the sample's rules).
        import random
        from skillc_runtime._words import one_edit, one_edit_starting, route_tokens
        rng = random.Random(48)
        for _ in range(5000):
            word = "".join(rng.choice("abcde") for _ in range(rng.randint(0, 8)))
            prefix = "".join(rng.choice("abcde") for _ in range(rng.randint(0, 6)))
            self.assertEqual(one_edit_starting(word, prefix),
                             {w for w in one_edit(word) if w.startswith(prefix)}, (word, prefix))
        with tempfile.TemporaryDirectory() as tmp:
            from common import sample_artifact
            a = Artifact(str(sample_artifact(Path(tmp))))
            rules, ids = a.routing_rules(), a._meaning().ids
            read = 0
            for piece in ids:
                found = route_tokens(piece, rules) if piece.isalpha() and piece.isascii() else []
                if len(found) == 1 and found[0] != piece:
                    read += 1
                    self.assertTrue(piece.startswith(found[0][:-1]), (piece, found))
            self.assertGreater(read, 3000, "pieces the route's words read otherwise")

    def test_words_split_into_the_longest_pieces_and_unknown_words_have_none(self):
        m = self.table()
        self.assertEqual(m.pieces("Prices LIST"), [1, 2, 3])
        self.assertEqual(m.pieces("pricez café"), [5])
        self.assertEqual(m.pieces("価格表"), [6, 7])
        self.assertEqual(m.pieces(""), [])
        self.assertEqual(len(m.pieces("list " * 300)), 256)
        self.assertEqual(m.pieces("l" * 101), [])

    def test_a_vector_is_the_scaled_sum_of_its_rows_in_whole_numbers(self):
        import math
        m = self.table()
        total = [1.0 + 3.0, 1.0 + 1.5, 126.0 + 187.5, -1.0 - 3.0]
        self.assertEqual(m.vector("prices"), [float(math.floor(x / 313.5 * 127.0 + 0.5)) for x in total])
        self.assertEqual(m.vector("nothing known"), [0.0] * 4)

    def test_the_lean_counts_pairs_of_neighbouring_pieces_as_the_rust_runtime_does(self):
        import struct
        from skillc_runtime._route import pair_key, talk_weights, talk_words
        pieces = struct.pack("<4h", 1500, -500, 0, 250)
        keys = [pair_key(0, 1), pair_key(3, 0)]
        pairs = struct.pack("<2I", *keys) + struct.pack("<2h", 900, -2000)
        # The sums of the Rust runtime's test (tests/sample.rs): pairs in the message's order.
        both = talk_weights(pieces, pairs)
        self.assertEqual(talk_words(both, [0, 1, 0, 1]), (1000 + 900) / 4000)
        self.assertEqual(talk_words(both, [1, 0]), 1000 / 3000)
        self.assertEqual(talk_words(both, [3, 0]), (250 + 1500 - 2000) / 3000)
        self.assertEqual(talk_words(both, [7]), 0.0)
        self.assertEqual(talk_words(both, []), 0.0)
        # Without the pairs' row: the pieces alone.
        self.assertEqual(talk_words(talk_weights(pieces, None), [0, 1, 0, 1]), 0.5)
        self.assertEqual((pair_key(65535, 65535), pair_key(65536, 0), pair_key(0, 65536)), (2**32 - 1, None, None))
        # With the edges (the rules' `talk_words_ends`): how a message opens and ends counts too,
        # the Rust runtime's sums.
        from skillc_runtime._route import EDGE, talk_pairs
        edged = [pair_key(0, 1), pair_key(1, EDGE), pair_key(3, 0), pair_key(EDGE, 3)]
        edges = talk_weights(pieces, struct.pack("<4I", *edged) + struct.pack("<4h", 900, -300, -2000, 400))
        self.assertEqual(talk_words(edges, [3, 0, 1], True), (1250 - 1100 + 100) / 7000)
        self.assertEqual(talk_words(edges, [3, 0, 1], False), (1250 - 1100) / 5000)
        self.assertEqual(talk_words(edges, [1], True), (-500 - 300) / 3000)
        self.assertEqual(talk_words(edges, [7], True), 0.0)
        self.assertEqual(talk_words(edges, [], True), 0.0)
        self.assertEqual(talk_words(talk_weights(pieces, None), [0, 1, 0, 1], True), 0.5)
        self.assertEqual(sorted(talk_pairs([3, 0, 3, 0], True)),
                         [pair_key(0, 3), pair_key(0, EDGE), pair_key(3, 0), pair_key(EDGE, 3)])
        with self.assertRaisesRegex(ValueError, "not pairs of 6"):
            talk_weights(pieces, pairs[:-1])
        swapped = struct.pack("<2I", *reversed(keys)) + struct.pack("<2h", 900, -2000)
        with self.assertRaisesRegex(ValueError, "not in rising order"):
            talk_weights(pieces, swapped)
        with self.assertRaisesRegex(ValueError, "not 16-bit numbers"):
            talk_weights(pieces[:-1], pairs)

    def test_a_route_without_a_vector_is_hybrid_and_its_cosines_are_the_loop_s(self):
        a = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"))
        r = a.route("what does the pricing look like for a small team in the UK", top=50)
        self.assertEqual(r["method"], "hybrid")
        self.assertEqual([(c["name"], c["score"]) for c in r["candidates"]],
                         [("pricing", 0.57411), ("demo_offer", 0.538306), ("feature-planner", 0.479121),
                          ("context_gathering", 0.377246), ("web-scraping", 0.306053), ("code-review", 0.25753)])
        # `pdf-press` holds "table" and scores within a tenth under the catalog's bar (0.247041):
        # kept after a first that reaches it (`competitors`, within a tenth too, holds no word of
        # the message above and stays cut).
        r = a.route("plot monthly revenue from this table with pandas", top=50)
        self.assertEqual([(c["name"], c["score"]) for c in r["candidates"]],
                         [("data-analysis", 0.63605), ("pdf-press", 0.204715)])
        # The packed dot products give exactly what the plain loop gives.
        b = a.bundle()
        loop = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"))
        loop._packed = lambda *_: None
        from skillc_runtime import _meaning
        numpy, _meaning._numpy = _meaning._numpy, None
        try:
            # Packed in big integers (no numpy): the same again.
            plain = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"))
            # The first few too: a skill that cannot be among them is passed over.
            for message in ("hello there", "価格はいくらですか", "compare us with the competitors please",
                            "what does the pricing look like for a small team", "write a press release and a PDF",
                            "plot monthly revenue from this table with pandas",
                            "The product crashes when I upload a file"):
                for top in (1, 2, 3, 5, 50):
                    self.assertEqual(a.route(message, top=top), loop.route(message, top=top), (message, top))
                    self.assertEqual(plain.route(message, top=top), loop.route(message, top=top), (message, top))
            self.assertIsNone(plain.bundle()["packed"].matrix)
        finally:
            _meaning._numpy = numpy
        self.assertIn("packed", b)


    def test_a_cards_summary_with_its_body_mixed_in_is_a_text_of_its_own(self):
        import shutil
        import sqlite3
        import tempfile
        message = "what does the pricing look like for a small team in the UK"
        with tempfile.TemporaryDirectory() as tmp:
            plain, short = Path(tmp) / "plain.db", Path(tmp) / "short.db"
            for path, change in ((plain, "UPDATE card_route SET meaning = NULL"),
                                 (short, "UPDATE card_route SET meaning = x'0102' WHERE card = 1")):
                shutil.copy(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db", path)
                with sqlite3.connect(path) as db:
                    db.execute(change)
            # Without it, the scores of the summaries and examples alone (the route before).
            r = Artifact(str(plain)).route(message, top=50)
            self.assertEqual([(c["name"], c["score"]) for c in r["candidates"]][:2],
                             [("pricing", 0.56206), ("demo_offer", 0.538306)])
            with self.assertRaisesRegex(ValueError, "card 1's meaning holds 2 bytes, not 256"):
                Artifact(str(short)).route(message)

    def test_a_caller_s_own_vector_is_measured_one_cosine_at_a_time(self):
        from skillc_runtime import _meaning
        path = str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db")
        message = "what does the pricing look like for a small team in the UK"
        # The message's own vector at another scale: numbers that are not whole (nor bytes).
        vector = [x * 0.0137 for x in Artifact(path)._meaning().vector(message)]
        numpy = _meaning._numpy
        try:
            for kind in (numpy, None):
                _meaning._numpy = kind
                a, loop = Artifact(path), Artifact(path)
                loop._packed = lambda *_: None
                r = a.route(message, query_vector=vector, top=50)
                self.assertEqual(r, loop.route(message, query_vector=vector, top=50))
                self.assertEqual(r["candidates"][0]["name"], "pricing")
                # A cosine does not change with the scale: the same answers as the message's
                # own vector, small talk's bar included.
                for text in (message, "hello there, thanks so much for your help!", "good morning :)",
                             "sorry, wrong chat", "how are you today?"):
                    scaled = [x * 0.0137 for x in a._meaning().vector(text)]
                    self.assertEqual(a.route(text, query_vector=scaled, top=50)["candidates"],
                                     a.route(text, top=50)["candidates"], text)
                    whole = a._meaning().vector(text)
                    packed = a.bundle()["packed"]
                    got, want = (packed.closest_and_first(v, _meaning._norm(v)) for v in (scaled, whole))
                    self.assertAlmostEqual(got[1], want[1], places=9)
                    self.assertEqual([round(c, 9) for c in got[0]], [round(c, 9) for c in want[0]])
                    # The small talk packed aside: a caller's vector measures it one cosine at
                    # a time, the message's own in the packed dot products, to the same cosine.
                    q_norm = _meaning._norm(whole)
                    talk = packed.aside_closest(whole, q_norm, packed.dot_products(whole, q_norm))
                    self.assertAlmostEqual(packed.aside_closest(scaled, _meaning._norm(scaled)), talk, places=9)
                    self.assertEqual(talk, max(_meaning._cosine(whole, q_norm, v, n) for v, n in a._small_talk()))
                    self.assertGreater(talk, 0.0)
        finally:
            _meaning._numpy = numpy

    def test_the_documents_whose_words_alone_reach_the_bar_are_all_found(self):
        import random
        from skillc_runtime import _route
        rng = random.Random(4848)
        for _ in range(300):
            scale = rng.choice([0.0, rng.uniform(0.1, 200.0)])
            share = rng.choice([0.5, 0.0, rng.random()])
            score = [rng.choice([0.0, rng.uniform(0.0, 3.0 * scale + 1.0), 1e-9]) for _ in range(60)]
            # Bars exactly at documents' own scores by words, and just off them.
            floor = (share * _route.lexical_score(rng.choice(score), scale)
                     + rng.choice([0.0, 1e-6, -1e-6, 1e-9, -1e-9, rng.uniform(-0.2, 0.2)]))
            want = [doc for doc, t in enumerate(score) if share * _route.lexical_score(t, scale) >= floor - 1e-6]
            self.assertEqual(_route.reaching_by_words(score, scale, share, floor), want, (scale, share, floor))

    def test_the_first_documents_by_words_are_those_of_a_full_sort(self):
        import random
        from skillc_runtime import _route
        rng = random.Random(2012)
        for _ in range(400):
            scale = rng.choice([0.0, rng.uniform(0.1, 50.0)])
            docs = rng.choice([5, 30, 80])
            base = rng.uniform(0.0, 3.0 * scale + 1.0)
            # Masses a hair apart round to one score: ties, broken by name.
            score = [rng.choice([0.0, base, base * (1 + 1e-7), base * (1 - 1e-7), rng.uniform(0.0, 3.0 * scale + 1.0)])
                     for _ in range(docs)]
            names = [rng.choice(["a", "b", "c", "d"]) + str(doc) for doc in range(docs)]
            hidden = set(rng.sample(range(docs), rng.choice([0, 1, docs // 3])))
            n = rng.choice([0, 1, 3, 20])
            ranked = sorted((-_route.lexical_score(t, scale), names[doc], doc)
                            for doc, t in enumerate(score) if t != 0.0 and doc not in hidden)
            want = [doc for _, _, doc in ranked[:n]]
            shown = bytes(d not in hidden for d in range(docs)) if hidden or rng.random() < 0.5 else None
            got = _route.first_by_words(score, scale, shown, names.__getitem__, n)
            self.assertEqual(got, want, (scale, n, hidden))
        self.assertEqual(_route.first_by_words(None, 1.0, None, str, 20), [])

    def test_the_documents_left_out_as_unable_to_reach_cannot_and_the_others_are_exact(self):
        import math
        import random
        from skillc_runtime import _meaning
        rng = random.Random(48)
        numpy, _meaning._numpy = _meaning._numpy, None
        try:
            for round_ in range(10):
                dims = 256
                # Vectors near a few directions (as texts near in meaning are), some all 0, at
                # the edges of their range too.
                centres = [[rng.randint(-127, 127) for _ in range(dims)] for _ in range(4)]
                def vector():
                    if rng.random() < 0.03:
                        return [0.0] * dims
                    c, spread = rng.choice(centres), rng.choice([0, 20, 127])
                    return [float(max(-127, min(127, x + rng.randint(-spread, spread)))) for x in c]
                dense = [[(v, _meaning._norm(v)) for v in (vector() for _ in range(rng.randint(0, 5)))]
                         for _ in range(150)]
                # Vectors of no document packed after theirs (small talk's): they leave the
                # documents' answers as they are, and have their own closest cosine.
                aside = [(v, _meaning._norm(v)) for v in (vector() for _ in range(rng.choice([0, 1, 40])))]
                _meaning._numpy = rng.choice([None, numpy])
                packed = _meaning.Packed(dense, dims, aside)
                for _ in range(8):
                    query = vector() if rng.random() < 0.8 else [float(rng.choice([-127, 127])) for _ in range(dims)]
                    q_norm = _meaning._norm(query)
                    if q_norm == 0.0:
                        continue
                    best, first = packed.closest_and_first(query, q_norm)
                    # The plain loop's cosines, document by document (vectors are packed by rank).
                    self.assertEqual(best, [max([0.0, *(_meaning._cosine(query, q_norm, v, n) for v, n in vs)])
                                            for vs in dense])
                    self.assertEqual(first, max([0.0, *(_meaning._cosine(query, q_norm, *vs[0]) for vs in dense if vs)]))
                    # Bars exactly at documents' own cosines: the edge where one is kept or not.
                    needed = rng.choice([b for b in best if b > 0.0] or [0.5])
                    needs = [needed] * len(dense)
                    for d in rng.sample(range(len(dense)), 40):
                        needs[d] = (rng.choice([best[d], best[d] - 1e-9, best[d] + 1e-9, rng.random()])
                                    if best[d] > 0.01 else 0.01 + rng.random())
                    if rng.random() < 0.2:
                        # A bar of 0 or below: every vector counts.
                        needs[0] = -0.2
                    if rng.random() < 0.3:
                        # Every document needing the same (a message of no word of theirs),
                        # down to nothing.
                        # At the tenth under a cosine just above one: the bar tested is that tenth.
                        above = min((b for b in best if b >= 0.1), key=lambda b: b - math.floor(b * 10) / 10, default=0.5)
                        needs = [rng.choice([needed, needed - 1e-9, math.floor(above * 10) / 10, 0.05, -0.2])] * len(dense)
                    reached = packed.closest_reaching(query, q_norm, needs)
                    dots = packed.dot_products(query, q_norm)
                    # The nearest summary, up to a ceiling: at it, a hair either side of it,
                    # anywhere, and none.
                    for ceiling in (first, first - 1e-9, first + 1e-9, rng.random(), 0.0, 1.0, math.inf):
                        self.assertEqual(packed.nearest(query, q_norm, dots, ceiling), min(first, ceiling), ceiling)
                    self.assertEqual(packed.aside_closest(query, q_norm, dots),
                                     max([0.0, *(_meaning._cosine(query, q_norm, v, n) for v, n in aside)]))
                    for doc, b in enumerate(best):
                        bar = needs[doc]
                        if b >= bar and b > 0.0:
                            self.assertEqual(reached.get(doc), b, (round_, doc, bar))
                        elif doc in reached:
                            self.assertEqual(reached[doc], b, (round_, doc, bar))
        finally:
            _meaning._numpy = numpy


if __name__ == "__main__":
    unittest.main()
