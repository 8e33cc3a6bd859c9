"""The Python runtime's routes on artifacts of the sample workspace: the words and constants the
build wrote, the cut, pieces the table lacks, fragments and plain names. Parity with the Rust
runtime is tests/parity/; Run:

    PYTHONPATH=compiler/runtime/python SKILLC=target/debug/skillc \
        python3 -m unittest discover -s compiler/runtime/python/tests
"""

import json
import math
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import sqlite3

from skillc_runtime import Artifact, fragment_signals, join_fragment

from common import ROOT, SKILLC, sample_artifact


class RouteWords(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="skillc-py-words-"))
        cls.db = sample_artifact(cls.dir)
        cls.artifact = Artifact(str(cls.db))

    @classmethod
    def tearDownClass(cls):
        cls.artifact.db.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def edited(self, name, sql, *args):
        """A copy of the sample artifact with its manifest edited by `sql`."""
        path = self.dir / name
        shutil.copy(self.db, path)
        with sqlite3.connect(path) as db:
            db.execute(sql, args)
        db.close()
        return Artifact(str(path))

    def test_the_words_and_constants_are_the_artifacts(self):
        # The build decides routing's stopwords, suffixes and constants (manifest
        # `routing_rules`); this runtime holds no copy, so an artifact saying otherwise is obeyed.
        route = self.artifact.route("greetings and hello")
        self.assertEqual(route["candidates"][0]["matched"], ["greet"])
        rules = json.loads(self.artifact.manifest["routing_rules"])
        rules["stopwords"].append("greetings")
        rules["defaults"]["top_k"] = 1
        edited = self.edited("rules.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", json.dumps(rules))
        self.assertEqual(edited.route_tokens("greetings there"), [])
        self.assertTrue(all(not c["matched"] for c in edited.route("greetings and hello")["candidates"]))
        self.assertEqual(edited.routing_settings()["top_k"], 1)
        edited.db.close()

    def test_an_artifact_without_routing_rules_is_refused_by_route_only(self):
        old = self.edited("old.db", "DELETE FROM manifest WHERE key = 'routing_rules'")
        self.assertTrue(old.catalog()["skills"])
        with self.assertRaisesRegex(ValueError, "no `routing_rules`.*build it again"):
            old.route("hello")
        old.db.close()

    def test_a_misspelt_word_is_read_as_the_catalogs_word_the_artifact_says_so(self):
        # docs/routing.md, "Misspelt words": "acount" is one edit from `account`, which the
        # sample's support skill holds; an artifact whose rules have no `spelling` (built
        # before it) reads it as written, and the rules' bounds are checked.
        message = "I cant log in to my acount"
        rust = subprocess.run([SKILLC, "route", str(self.db), message, "--format", "json"],
                              check=True, capture_output=True, text=True).stdout
        route = self.artifact.route(message)
        self.assertEqual(route, json.loads(rust))
        self.assertEqual(route["candidates"][0]["matched"], ["log", "account"])
        rules = json.loads(self.artifact.manifest["routing_rules"])
        del rules["spelling"]
        old = self.edited("no-spelling.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", json.dumps(rules))
        self.assertEqual(old.route(message)["candidates"][0]["matched"], ["log"])
        old.db.close()
        rules["spelling"] = {"min_letters": 5, "max_letters": 65}
        wide = self.edited("wide-spelling.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", json.dumps(rules))
        with self.assertRaisesRegex(ValueError, "5 to 65 letters"):
            wide.route(message)
        wide.db.close()

    def test_the_lexical_index_reads_stored_terms_as_the_rust_runtime_holds_them(self):
        # `word:count` pairs, a word counted once alone (docs/artifact.md, `card_route.terms`).
        from skillc_runtime._lexical import LexicalIndex
        ix = LexicalIndex(["card cart:5 zoo", "", "card:3 cart"], 1.2, 0.75)
        self.assertEqual(ix.held, [{"card": 1, "cart": 5, "zoo": 1}, {}, {"card": 3, "cart": 1}])
        self.assertEqual(ix.lengths, [7, 0, 4])
        self.assertEqual((len(ix), "cart" in ix, "car" in ix, ix.known({"car", "zoo"})), (3, True, False, {"zoo"}))
        # A misspelt word's neighbours are weighed by their counts summed, then by how many
        # skills hold them: `cart` (6, 2) before `card` (4, 2).
        self.assertEqual((ix.weight("cart"), ix.weight("card"), ix.weight("zoo")), ((6, 2), (4, 2), (1, 1)))
        avg = 11 / 3
        norms = [1.2 * (1 - 0.75 + 0.75 * n / avg) for n in (7, 0, 4)]
        self.assertEqual(ix.norms, norms)
        docs, parts, dense = ix.postings("cart")
        idf = math.log(1.0 + (3 - 2 + 0.5) / (2 + 0.5))
        self.assertEqual((docs, parts), ([0, 2], [idf * 5 / (5 + norms[0]), idf * 1 / (1 + norms[2])]))
        self.assertEqual(dense, [parts[0], 0.0, parts[1]])
        self.assertIs(ix.postings("cart")[1], parts)

    def test_misspelt_words_find_the_same_neighbours_once_the_index_files_its_words(self):
        # Past a twentieth of the index's words looked up, misspelt words are found through its
        # words filed by their deletions: the same neighbours as trying every edit.
        from skillc_runtime._lexical import LexicalIndex
        from skillc_runtime._words import one_edit
        words = ["card", "cart", "care", "scare", "price", "prices", "pricing", "invoice", "ab", "ba",
                 "abc", "acb", "zoo", "café", "x2", "data", "date", "dates"]
        # 400 words more (not of letters a–z: never neighbours): 20 lookups before filing.
        words += ["w%d" % n for n in range(400)]
        ix = LexicalIndex([" ".join(words[i::3]) for i in range(3)], 1.2, 0.75)
        asked = ["carr", "crad", "cad", "scar", "pirce", "prics", "invoce", "invioce", "a", "b",
                 "bac", "cafe", "daat", "datse", "zooo", "qqqq", "priing", "xardd"]
        tried = [ix.neighbours(w) for w in asked]
        self.assertIsNone(ix._by_deletion, "filed before a twentieth of the words were looked up")
        self.assertEqual(tried, [ix.known(one_edit(w)) for w in asked])
        filed = [ix.neighbours(w) for w in asked]
        self.assertIsNotNone(ix._by_deletion)
        self.assertEqual(filed, tried)
        self.assertEqual(filed[:4], [{"card", "care", "cart"}, {"card"}, {"card"}, {"scare"}])
        self.assertEqual(ix.neighbours("bac"), {"ba", "abc"})

    def route_tokens(self, text):
        return self.artifact.route_tokens(text)

    def test_words_of_every_script_are_the_rust_runtimes(self):
        # The same cases as the Rust runtime's words_of_every_script_are_the_reference_of_the_other_runtimes:
        # `str.isalnum` once split दुनिया at its vowel signs and dropped circled letters.
        self.assertEqual(self.route_tokens("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"])
        self.assertEqual(self.route_tokens("ΑΣ..Β ΟΔΟΣ"), ["ασ", "β", "οδος"])
        self.assertEqual(self.route_tokens("x\u0363y ⓐⓑ ½ ١٢٣ 👩\u200d💻 ❤\ufe0f"), ["x\u0363y", "ⓐⓑ", "½", "١٢٣"])
        self.assertEqual(self.route_tokens("café e\u0301te İstanbul"), ["café", "e\u0301te", "i\u0307stanbul"])

    def test_a_message_is_glossed_as_the_rust_runtime_glosses_it(self):
        # The Rust runtime's a_message_is_read_with_its_words_in_other_languages_glossed.
        from skillc_runtime import _glossary
        lines = sorted(["factura\tinvoice", "facturas\tinvoices", "天气\tweather", "天气预报\tweather forecast",
                        "明天\ttomorrow", "会議\tmeeting", "lebenslauf\tresume", "und\t"], key=lambda l: l.encode())
        words = "".join(f"{l}\n" for l in lines).encode()

        def none(_):
            return False
        self.assertEqual(_glossary.gloss(words, "Necesito las FACTURAS, ya!", none), "necesito las  invoices , ya!")
        self.assertEqual(_glossary.gloss(words, "帮我查一下明天天气预报吧", none), "帮我查一下 tomorrow  weather forecast 吧")
        self.assertEqual(_glossary.gloss(words, "PDFの会議録", none), "pdfの meeting 録")
        # An empty gloss (English stopwords only, as the build writes it): read and left out.
        self.assertEqual(_glossary.gloss(words, "Factura und Lebenslauf", none), " invoice      resume ")
        self.assertEqual(_glossary.gloss(words, "und", none), "  ")
        self.assertEqual(_glossary.gloss(words, "lebenslauf factura", lambda w: w == "factura"), " resume  factura")
        self.assertIsNone(_glossary.gloss(words, "nothing to read here", none))
        self.assertIsNone(_glossary.gloss(words, "", none))
        long = _glossary.gloss(words, "Factura " * 300, none)
        self.assertEqual((long.count("invoice"), long.count("factura")), (256, 44))
        long = _glossary.gloss(words, "明天" + "吧" * 300 + "明天", none)
        self.assertEqual((long.count("tomorrow"), long.count("明天")), (1, 1))
        # The Rust runtime's every_word_is_found_where_it_lies_and_a_line_without_a_tab_holds_none.
        many = [f"w{n:04}\t{'g' * (n % 40 + 1)}" for n in range(500)]
        data = "".join(f"{l}\n" for l in many).encode()
        for n, line in enumerate(many):
            self.assertEqual(_glossary.look_up(data, f"w{n:04}"), line.split("\t", 1)[1])
        for absent in ("w", "w0500", "", "zz", "w0250\tg"):
            self.assertIsNone(_glossary.look_up(data, absent), absent)
        self.assertEqual([_glossary.look_up(b"a\tx\nb\nc\ty", w) for w in "abc"], ["x", None, "y"])
        self.assertIsNone(_glossary.look_up(b"", "a"))
        # The first halvings kept between lookups find the same glosses.
        probes = {}
        for _ in range(2):
            for n, line in enumerate(many):
                self.assertEqual(_glossary.look_up(data, f"w{n:04}", probes), line.split("\t", 1)[1])
        self.assertTrue(0 < len(probes) < 1024)

    def test_english_suffixes_come_off_words_of_ascii_letters(self):
        # The Rust runtime's words_are_lowercased_split_stopped_and_stemmed.
        self.assertEqual(self.route_tokens("Deploying deployed deployments running called carefully mp3ing café"), ["deploy", "deploy", "deploy", "run", "call", "carefully", "mp3ing", "café"])
        self.assertEqual(self.route_tokens("How much are the Prices of pricing-uk?"), ["much", "pric", "pric", "uk"])
        self.assertEqual(self.route_tokens("going tuned studied ipv6ing größer added planning"), ["going", "tun", "study", "ipv6ing", "größer", "add", "plan"])
        # A plural of `y` meets its word; an artifact's list without `ie` (built before it) keeps them apart.
        plurals = "queries queried query activities activity cookies cookie"
        self.assertEqual(self.route_tokens(plurals), ["query", "query", "query", "activ", "activ", "cooky", "cooky"])
        rules = json.loads(self.artifact.manifest["routing_rules"])
        rules["suffixes"] = [s for s in rules["suffixes"] if s not in ("itie", "ie")]
        before = self.edited("before-ie.db", "UPDATE manifest SET value = ? WHERE key = 'routing_rules'", json.dumps(rules))
        self.assertEqual(before.route_tokens(plurals), ["queri", "query", "query", "activiti", "activ", "cooki", "cooki"])
        before.db.close()

    def test_runs_of_unspaced_scripts_become_pairs_of_characters(self):
        # The Rust runtime's runs_of_unspaced_scripts_become_pairs_of_characters.
        self.assertEqual(self.route_tokens("価格表"), ["価格", "格表"])
        self.assertEqual(self.route_tokens("PDFの変換 と Prices"), ["pdf", "の変", "変換", "と", "pric"])
        self.assertEqual(self.route_tokens("ราคาแพ็กเกจ"), ["รา", "าค", "คา", "าแ", "แพ", "พ\u0e47", "\u0e47ก", "กเ", "เก", "กจ"])
        self.assertEqual(self.route_tokens("テスト駆動"), ["テス", "スト", "ト駆", "駆動"])
        self.assertEqual(self.route_tokens("𠀋𠀌 x"), ["𠀋𠀌"])


class RouteCut(unittest.TestCase):
    """The cut: a route keeps exactly the candidates at or above it (the same messages through
    builds of the sample cut at 0.0 and at a bar): `min_score` by words alone
    (`embedding_model: none`), `hybrid_min_score` by words and the built-in meaning."""

    MESSAGES = [
        "turn this into a PDF press release",
        "hello there, how are you today",
        "what does the pricing look like for a small team in the UK",
        "can you compare us with the competitors",
        "summarize this document and cite the sources please",
        "I want to write a press release about our new product launch",
    ]
    CUTS = {"words": ("embedding_model: none, min_score", 0.65), "hybrid": ("hybrid_min_score", 0.45)}

    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="skillc-py-cut-"))
        cls.built = {}
        for kind, (key, bar) in cls.CUTS.items():
            for name, value in (("all", 0.0), ("cut", bar)):
                ws = cls.dir / f"{kind}-{name}"
                shutil.copytree(ROOT / "skills", ws)
                routing = f"{{ {key}: {value}, top_k: 50 }}"
                (ws / "workspace.yaml").write_text((ws / "workspace.yaml").read_text() + f"\nrouting: {routing}\n")
                out = cls.dir / f"{kind}-{name}.db"
                subprocess.run([SKILLC, "build", str(ws), "-o", str(out)], check=True, capture_output=True)
                cls.built[kind, name] = Artifact(str(out))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_a_route_keeps_only_candidates_at_or_above_its_cut(self):
        for kind, (_, bar) in self.CUTS.items():
            dropped = kept = 0
            for m in self.MESSAGES:
                wide = self.built[kind, "all"].route(m)
                narrow = self.built[kind, "cut"].route(m)
                self.assertEqual(narrow["method"], "lexical" if kind == "words" else "hybrid")
                wide = [(c["name"], c["score"]) for c in wide["candidates"]]
                narrow = [(c["name"], c["score"]) for c in narrow["candidates"]]
                self.assertEqual(narrow, [c for c in wide if c[1] >= bar], (kind, m))
                dropped += len(wide) - len(narrow)
                kept += len(narrow)
            self.assertTrue(dropped > 0 and kept > 0, (kind, dropped, kept))


class UnknownPieces(unittest.TestCase):
    """A message none of whose pieces the built-in meaning knows (its vector is 0) but whose
    words a skill holds: it is routed by its words, against the bar raised by its lean as for
    any message (0 without a known piece), as `skillc route` routes it. Here the skill's words
    reach the catalog's bar but not the raised one."""

    def test_a_message_of_no_known_piece_is_routed_as_skillc_routes_it(self):
        folder = Path(tempfile.mkdtemp(prefix="skillc-py-pieces-"))
        try:
            ws = folder / "ws"
            shutil.copytree(ROOT / "skills", ws)
            shutil.rmtree(ws / ".skillc", ignore_errors=True)
            skill = ws / "public" / "response_handling" / "bold-orders"
            skill.mkdir()
            (skill / "SKILL.md").write_text(
                "---\nname: bold-orders\ndescription: Handles \U0001d400\U0001d401\U0001d402 orders "
                "and refunds for visitors of the shop.\ncategory: response_handling\n---\n"
                "# Instructions\n\nAnswer about the orders.\n")
            out = folder / "ws.db"
            subprocess.run([SKILLC, "build", str(ws), "-o", str(out)], check=True, capture_output=True)
            artifact = Artifact(str(out))
            for message in ("\U0001d400\U0001d401\U0001d402", "\U0001d400\U0001d401\U0001d402 \U0001d400\U0001d401\U0001d402 \u2764"):
                self.assertEqual(artifact._meaning().pieces(message), [])
                rust = subprocess.run([SKILLC, "route", str(out), message, "--format", "json", "--top", "50"],
                                      check=True, capture_output=True, text=True).stdout
                self.assertEqual(artifact.route(message, top=50), json.loads(rust), message)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


class Fragments(unittest.TestCase):
    """Routing's stage 0 (docs/routing.md, "Fragments"): the Rust runtime's cases and answers
    (compiler/runtime/fragment-cases.json, written by its tests), and a route with history."""

    def test_every_case_is_answered_as_the_rust_runtime_answers_it(self):
        cases = json.loads((ROOT / "compiler" / "runtime" / "fragment-cases.json").read_text())["cases"]
        self.assertGreater(len(cases), 20)
        for c in cases:
            previous = c["history"][-1] if c["history"] else None
            self.assertEqual(fragment_signals(c["message"], c["time"], previous), c["signals"], c)
            self.assertEqual(join_fragment(c["message"], c["time"], c["history"]), c["routed_text"], c)

    def test_the_documents_a_catalog_shows_are_those_it_lists(self):
        # What the candidates after the first are chosen among (`first_by_words`): a byte a
        # document of the route index, kept with the catalog's positions.
        a = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"))
        hidden = 0
        for client in ("example.com", "ibanfirst.com", "northwind.io"):
            b = a.bundle(client)
            _, docs = a._route_index(b)
            for ctx in ({}, {"content_gating_availability": "allowed"}, {"page_url": "/fr/tarifs"}):
                position, shown = a._positions(b, None, ctx)
                want = [docs[d] in position for d in range(len(docs))]
                self.assertEqual(shown is None, all(want), (client, ctx))
                if shown is not None:
                    self.assertEqual([bool(x) for x in shown], want, (client, ctx))
                hidden += want.count(False)
        self.assertGreaterEqual(hidden, 4)

    def test_a_follow_up_within_a_minute_routes_joined_to_the_question_it_follows(self):
        a = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"))
        asked = [{"text": "how much does the basic plan cost?", "time": 1000}]
        follow_up = "and also for the pro plan"
        joined = a.route(follow_up, history=asked, time=1010)
        self.assertEqual(joined["message"], follow_up)
        self.assertEqual(joined["routed_text"], "how much does the basic plan cost? and also for the pro plan")
        self.assertEqual(joined["candidates"][0]["name"], "pricing", joined)
        for message, time in ((follow_up, 1300), ("What does the pro plan cost per month?", 1010)):
            r = a.route(message, history=asked, time=time)
            self.assertNotIn("routed_text", r)
            self.assertEqual(r, a.route(message))
        with self.assertRaisesRegex(ValueError, "history item 1"):
            a.route(follow_up, history=[{"text": "hello"}], time=1010)


# Two plugins' skills made by hand in the sample (`acme:pricing`, `beta:analyzer` alone of their
# plain names), the slots then marked against the plugin plain-name rule: `pricing` not found by
# its plain name, `analyzer` found for `beta`. A runtime must follow the slots, not decide again.
PLAIN_AGAINST_THE_RULE = """
    UPDATE entry SET name = 'acme:' || name WHERE name = 'pricing';
    UPDATE entry SET name = 'beta:analyzer' WHERE name = 'api-caller';
    UPDATE slot_list SET slots = (SELECT json_group_array(json(CASE
        WHEN json_extract(s.value, '$[1]') IN (SELECT id FROM entry WHERE name = 'beta:analyzer')
        THEN json_insert(s.value, '$[#]', 1) ELSE s.value END)) FROM json_each(slot_list.slots) s);
"""


class PlainNames(unittest.TestCase):
    """A plugin's skill is found by its plain name where the build stored so (`[name, entry, 1]`
    in `slot_list.slots`), not where this runtime would decide it."""

    def test_the_stored_plain_names_are_followed(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "plain.db"
            shutil.copy(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db", path)
            db = sqlite3.connect(path)
            db.executescript(PLAIN_AGAINST_THE_RULE)
            db.close()
            a = Artifact(str(path))
            b = a.bundle()
            skill = lambda name: b["skills"][b["by_name"][name]]["name"] if name in b["by_name"] else None
            self.assertIsNone(skill("pricing"))
            self.assertEqual(skill("acme:pricing"), "acme:pricing")
            self.assertEqual(skill("analyzer"), "beta:analyzer")
            picked = a.prompt(["analyzer", "pricing"])
            self.assertIn({"name": "beta:analyzer", "resolved": "api-caller", "reason": "selected"}, picked["skills"])
            self.assertEqual(picked["removed"], [{"name": "pricing", "reason": "unknown"}])


if __name__ == "__main__":
    unittest.main()
