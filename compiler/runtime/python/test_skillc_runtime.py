"""The Python runtime's own promises on artifacts of the sample workspace, built by the real
`skillc` (SKILLC names the binary). Parity with the Rust runtime is tests/parity/.

    SKILLC=target/debug/skillc python3 compiler/runtime/python/test_skillc_runtime.py
"""

import json
import math
import os
import shutil
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

import sqlite3

from skillc_runtime import Artifact, RequestError, SignatureError, fragment_signals, join_fragment

# SKILLC_REPO: the repository, when this file runs from elsewhere against an installed package.
ROOT = Path(os.environ.get("SKILLC_REPO") or Path(__file__).resolve().parents[3])
SKILLC = os.environ.get("SKILLC", str(ROOT / "target" / "debug" / "skillc"))


def sample_artifact(directory: Path, name: str = "sample.db") -> Path:
    """The sample workspace built by skillc into `directory`."""
    out = directory / name
    subprocess.run([SKILLC, "build", str(ROOT / "skills"), "-o", str(out)], check=True, capture_output=True)
    return out


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
        self.assertEqual(self.route_tokens("नमस्ते दुनिया"), ["नमस", "ते", "दुनिया"])
        self.assertEqual(self.route_tokens("ΑΣ..Β ΟΔΟΣ"), ["ασ", "β", "οδος"])
        self.assertEqual(self.route_tokens("x\u0363y ⓐⓑ ½ ١٢٣ 👩\u200d💻"), ["x\u0363y", "ⓐⓑ", "½", "١٢٣"])
        self.assertEqual(self.route_tokens("café e\u0301te İstanbul"), ["café", "te", "stanbul"])

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
        self.assertEqual(self.route_tokens("being tuned studied ipv6ing größer added planning"), ["being", "tun", "study", "ipv6ing", "größer", "add", "plan"])

    def test_runs_of_unspaced_scripts_become_pairs_of_characters(self):
        # The Rust runtime's runs_of_unspaced_scripts_become_pairs_of_characters.
        self.assertEqual(self.route_tokens("価格表"), ["価格", "格表"])
        self.assertEqual(self.route_tokens("PDFの変換 と Prices"), ["pdf", "の変", "変換", "と", "pric"])
        self.assertEqual(self.route_tokens("ราคาแพ็กเกจ"), ["รา", "าค", "คา", "าแ", "แพ", "พ\u0e47", "\u0e47ก", "กเ", "เก", "กจ"])
        self.assertEqual(self.route_tokens("テスト駆動"), ["テス", "スト", "ト駆", "駆動"])
        self.assertEqual(self.route_tokens("𠀋𠀌 x"), ["𠀋𠀌"])


class HotReload(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="skillc-py-"))
        cls.first, cls.second = cls.dir / "first.db", cls.dir / "second.db"
        subprocess.run([SKILLC, "build", str(ROOT / "skills"), "-o", str(cls.first), "--release-label", "first"],
                       check=True, capture_output=True)
        ws = cls.dir / "ws"
        shutil.copytree(ROOT / "skills", ws)
        greeting = ws / "public/assistant/greeting/SKILL.md"
        greeting.write_text(greeting.read_text().replace("Handle greetings", "Answer greetings"))
        subprocess.run([SKILLC, "build", str(ws), "-o", str(cls.second), "--release-label", "second"],
                       check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def swap(self, src, live):
        tmp = live.with_name(".live.tmp")
        shutil.copy(src, tmp)
        os.replace(tmp, live)

    def test_an_artifact_swapped_in_by_rename_is_served_from_the_next_call(self):
        live = self.dir / "live.db"
        shutil.copy(self.first, live)
        rt = Artifact(str(live))
        old = rt.catalog(fmt="list")["text"]
        new = Artifact(str(self.second)).catalog(fmt="list")["text"]
        self.assertNotEqual(old, new)
        self.swap(self.second, live)
        got = rt.catalog(fmt="list")
        self.assertEqual((got["text"], got["release"]), (new, "second"))
        # A file that is not an artifact leaves the previous one in service, and says why.
        (self.dir / ".live.tmp").write_text("garbage")
        os.replace(self.dir / ".live.tmp", live)
        self.assertEqual(rt.catalog(fmt="list")["text"], new)
        self.assertIsNotNone(rt.refused)
        # Swaps between calls: the old or the new artifact, never a mix, and always the newest.
        for i in range(30):
            self.swap(self.first if i % 2 else self.second, live)
            text = rt.catalog(fmt="list")["text"]
            self.assertEqual(text, old if i % 2 else new)
            prompt = rt.prompt(["greeting"])
            self.assertIn("greeting", [s["name"] for s in prompt["skills"]])
        self.assertIsNone(rt.refused)

    def test_threads_sharing_one_artifact_during_swaps_see_the_old_or_the_new_one(self):
        live = self.dir / "threads.db"
        shutil.copy(self.first, live)
        rt = Artifact(str(live))
        old = rt.catalog(fmt="list")["text"]
        new = Artifact(str(self.second)).catalog(fmt="list")["text"]
        stop, seen, errors = threading.Event(), [], []

        def reader():
            while not stop.is_set() or len(seen) < 40:
                try:
                    text = rt.catalog(fmt="list")["text"]
                    prompt = rt.prompt(["greeting", "pricing"])
                except Exception as e:  # noqa: BLE001 - a failure of any kind is the finding
                    errors.append(repr(e))
                    return
                seen.append(text)
                if text not in (old, new) or "greeting" not in [s["name"] for s in prompt["skills"]]:
                    errors.append("torn read")
                    return

        threads = [threading.Thread(target=reader) for _ in range(4)]
        for t in threads:
            t.start()
        for i in range(40):
            self.swap(self.second if i % 2 == 0 else self.first, live)
        stop.set()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertLessEqual(set(seen), {old, new})
        self.assertEqual(rt.catalog(fmt="list")["text"], old, "the last swap is served")

    def test_an_artifact_that_is_a_pipe_is_refused_at_once_and_a_live_one_keeps_serving(self):
        pipe = self.dir / "pipe.db"
        os.mkfifo(pipe)
        out = {}

        def run(call):
            t = threading.Thread(target=lambda: out.update(value=self._catch(call)), daemon=True)
            t.start()
            t.join(20)
            self.assertFalse(t.is_alive(), "still waiting after 20 s")
            return out.pop("value")
        self.assertIn("not a regular file", str(run(lambda: Artifact(str(pipe)))))
        live = self.dir / "live-pipe.db"
        shutil.copy(self.first, live)
        rt = Artifact(str(live))
        os.replace(pipe, live)
        self.assertEqual(run(lambda: rt.catalog(fmt="list")["release"]), "first")
        self.assertIn("not a regular file", rt.refused)

    @staticmethod
    def _catch(call):
        try:
            return call()
        except Exception as e:  # noqa: BLE001 - handed to the test
            return e

    def test_requests_for_what_was_not_built_say_so(self):
        rt = Artifact(str(self.first))
        with self.assertRaises(RequestError):
            rt.catalog(client="nope")

    def test_requests_for_bundles_that_were_not_built_name_what_exists(self):
        """In the Rust runtime's words (compiler/runtime/tests/sample.rs)."""
        rt = Artifact(str(self.first))
        with self.assertRaisesRegex(RequestError, "^unknown client `nobody.example`; clients: augment.org, example.com, hyperline.co, ibanfirst.com, northwind.io$"):
            rt.catalog(client="nobody.example")
        with self.assertRaisesRegex(RequestError, "^no bundle for locale `fr` of client `example.com`; its locales: en, en-gb$"):
            rt.catalog(client="example.com", locale="fr")
        with self.assertRaisesRegex(RequestError, "^no bundle for tier `gold` of the global bundle; its tiers: fast, pro, standard$"):
            rt.catalog(tier="gold")

    def test_past_twenty_clients_an_error_names_the_twenty_nearest(self):
        """The Rust runtime's test (compiler/runtime/src/load.rs) and its two lines."""
        from skillc_runtime import name_clients
        self.assertEqual(name_clients("c", {"b.example", "a.example"}), "clients: a.example, b.example")
        many = {f"client-{i}.example" for i in range(500)}
        self.assertEqual(
            name_clients("client-42.exmple", many),
            "clients (the 20 nearest of 500): client-12.example, client-142.example, client-2.example, "
            "client-22.example, client-242.example, client-32.example, client-342.example, client-4.example, "
            "client-40.example, client-402.example, client-41.example, client-412.example, client-42.example, "
            "client-420.example, client-421.example, client-422.example, client-423.example, client-424.example, "
            "client-425.example, client-426.example")


class Signatures(unittest.TestCase):
    """Opened with a public key, the runtime serves only artifacts whose signature verifies,
    on open and on every swap; a swap that fails keeps the previous one in service."""

    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="skillc-py-sig-"))
        for name in ("skillc.key", "other.key"):
            subprocess.run([SKILLC, "keygen", "-o", str(cls.dir / name)], check=True, capture_output=True)
        cls.one, cls.two = cls.dir / "one.db", cls.dir / "two.db"
        for out, label in ((cls.one, "one"), (cls.two, "two")):
            subprocess.run([SKILLC, "build", str(ROOT / "skills"), "-o", str(out), "--release-label", label,
                            "--sign", str(cls.dir / "skillc.key")], check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def put(self, src, live, sig=True):
        if sig:
            shutil.copy(f"{src}.minisig", f"{live}.minisig")
        tmp = live.with_name(".signed.tmp")
        shutil.copy(src, tmp)
        os.replace(tmp, live)

    def test_signed_swaps_are_served_and_tampered_or_unsigned_ones_refused(self):
        live = self.dir / "live.db"
        key = str(self.dir / "skillc.pub")
        self.put(self.one, live)
        rt = Artifact(str(live), public_key=key)
        self.assertEqual(rt.release, "one")
        self.put(self.two, live)
        rt.catalog()
        self.assertEqual(rt.release, "two", "a signed swap is served")
        # Tampered: the right signature, other bytes.
        data = bytearray(self.one.read_bytes())
        data[-100] ^= 1
        tmp = live.with_name(".signed.tmp")
        tmp.write_bytes(bytes(data))
        shutil.copy(f"{self.one}.minisig", f"{live}.minisig")
        os.replace(tmp, live)
        rt.catalog()
        self.assertEqual(rt.release, "two", "the previous artifact stays in service")
        self.assertIn("does not match", rt.refused)
        # Unsigned.
        os.remove(f"{live}.minisig")
        self.put(self.one, live, sig=False)
        rt.catalog()
        self.assertEqual(rt.release, "two")
        self.assertIn("has no signature", rt.refused)
        # Its signature arrives: served.
        shutil.copy(f"{self.one}.minisig", f"{live}.minisig")
        rt.catalog()
        self.assertEqual(rt.release, "one")

    def test_a_wrong_key_or_a_truncated_signature_is_refused_on_open(self):
        live = self.dir / "open.db"
        self.put(self.one, live)
        with self.assertRaisesRegex(SignatureError, "another key"):
            Artifact(str(live), public_key=str(self.dir / "other.pub"))
        Path(f"{live}.minisig").write_text(Path(f"{self.one}.minisig").read_text()[:60])
        with self.assertRaisesRegex(SignatureError, "damaged or truncated"):
            Artifact(str(live), public_key=str(self.dir / "skillc.pub"))
        self.assertEqual(Artifact(str(live)).release, "one", "without a key it opens as before")

    def test_an_in_place_write_is_never_served_and_a_signed_swap_still_is(self):
        live = self.dir / "inplace.db"
        self.put(self.one, live)
        rt = Artifact(str(live), public_key=str(self.dir / "skillc.pub"))
        # The skill's body is read on the first prompt, after the write (same inode).
        inode = os.stat(live).st_ino
        data = live.read_bytes()
        self.assertIn(b"a friendly assistant", data)
        with open(live, "r+b") as f:
            at = data.find(b"a friendly assistant")
            while at >= 0:
                f.seek(at)
                f.write(b"a HACKED!! assistant")
                at = data.find(b"a friendly assistant", at + 1)
        self.assertEqual(os.stat(live).st_ino, inode)
        text = rt.prompt(select=["greeting"])["text"]
        self.assertIn("a friendly assistant", text)
        self.assertNotIn("HACKED", text)
        self.assertIn("does not match", rt.refused)
        self.put(self.two, live)
        self.assertIn("a friendly assistant", rt.prompt(select=["greeting"])["text"])
        self.assertEqual((rt.release, rt.refused), ("two", None))

    def bounded(self, call):
        """What `call` returns or raises, failing if it takes more than 20 s (a pipe that is
        waited on)."""
        out = {}

        def run():
            try:
                out["value"] = call()
            except Exception as e:  # noqa: BLE001 - handed to the test
                out["error"] = e
        t = threading.Thread(target=run, daemon=True)
        t.start()
        t.join(20)
        self.assertFalse(t.is_alive(), "still waiting after 20 s")
        return out

    def test_a_signature_or_key_that_is_a_pipe_a_device_or_too_large_is_refused_at_once(self):
        live = self.dir / "pipe.db"
        self.put(self.one, live)
        key = str(self.dir / "skillc.pub")
        sig = Path(f"{live}.minisig")
        good = sig.read_bytes()
        sig.unlink()
        os.mkfifo(sig)
        got = self.bounded(lambda: Artifact(str(live), public_key=key))
        self.assertIsInstance(got.get("error"), SignatureError)
        self.assertIn("not a regular file", str(got["error"]))
        sig.unlink()
        sig.write_bytes(good + b"\n" * (128 * 1024))
        with self.assertRaisesRegex(SignatureError, "larger than 64 KiB"):
            Artifact(str(live), public_key=key)
        # A running artifact whose signature becomes a pipe keeps answering.
        sig.write_bytes(good)
        rt = Artifact(str(live), public_key=key)
        sig.unlink()
        os.mkfifo(sig)
        got = self.bounded(lambda: rt.catalog(fmt="list"))
        self.assertIn("value", got, got)
        self.assertIn("not a regular file", rt.refused)
        for name in ("pipe.pub", "zero.pub"):
            path = self.dir / name
            os.mkfifo(path) if name == "pipe.pub" else os.symlink("/dev/zero", path)
            got = self.bounded(lambda: Artifact(str(live), public_key=str(path)))
            self.assertIn("not a regular file", str(got.get("error")))

    def test_files_named_with_a_newline_or_a_line_separator_verify(self):
        for name in ("new\nline.db", "line\u2028sep.db", "para\u2029sep.db", "tab\tback\\slash.db"):
            out = self.dir / name
            subprocess.run([SKILLC, "build", str(ROOT / "skills"), "-o", str(out), "--release-label", "named",
                            "--sign", str(self.dir / "skillc.key")], check=True, capture_output=True)
            rt = Artifact(str(out), public_key=str(self.dir / "skillc.pub"))
            self.assertEqual(rt.release, "named", name)

    def test_a_trusted_comment_is_one_line_up_to_its_newline_as_minisign_reads_it(self):
        """minisign itself writes a file's name raw into the trusted comment: one holding
        U+2028 or U+2029 is still one line to minisign, and must be to this runtime."""
        try:
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
            from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
        except ImportError:
            self.skipTest("needs the cryptography package")
        import base64
        import hashlib
        secret = Ed25519PrivateKey.generate()
        public = secret.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        key_id = b"\x01\x02\x03\x04\x05\x06\x07\x08"
        pub = self.dir / "made.pub"
        pub.write_text("untrusted comment: test key\n" + base64.b64encode(b"Ed" + key_id + public).decode() + "\n")
        live = self.dir / "made.db"
        shutil.copy(self.one, live)
        sig = secret.sign(hashlib.blake2b(live.read_bytes(), digest_size=64).digest())
        trusted = "timestamp:1\tfile:a\u2028b\u2029c.db\thashed"
        glob = secret.sign(sig + trusted.encode())
        Path(f"{live}.minisig").write_text(
            "untrusted comment: made here\n" + base64.b64encode(b"ED" + key_id + sig).decode() + "\n"
            + "trusted comment: " + trusted + "\r\n" + base64.b64encode(glob).decode() + "\n", newline="")
        self.assertEqual(Artifact(str(live), public_key=str(pub)).release, "one")


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


class KeptBundles(unittest.TestCase):
    """An artifact keeps at most `max_bundles` bundles, the least recently asked for let go
    first; what it lets go of loads again and answers the same."""

    def test_the_least_recently_used_bundle_goes_first(self):
        a = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"), max_bundles=2)
        one, two, three = "augment.org", "example.com", "hyperline.co"
        first, second = a.bundle(one), a.bundle(two)
        self.assertIs(a.bundle(one), first)  # `two` is now the least recently used
        a.bundle(three)
        self.assertIs(a.bundle(one), first)
        self.assertIsNot(a.bundle(two), second)
        a.max_bundles = 1  # `two` was asked for last: only it stays
        self.assertIsNot(a.bundle(one), first)
        asked = "How much does it cost?"
        routed = a.route(asked, client=one)
        a.max_bundles = 0
        self.assertEqual(a.route(asked, client=one), routed)
        self.assertIsNot(a.bundle(one), a.bundle(one))
        a.max_bundles = 3
        kept = a.bundle(one)
        a.unload(one)
        self.assertIsNot(a.bundle(one), kept)
        with self.assertRaises(RequestError):
            a.unload("nobody.example")


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
                         [("pricing", 0.572694), ("demo_offer", 0.539319), ("feature-planner", 0.47943),
                          ("context_gathering", 0.373352), ("web-scraping", 0.308096), ("code-review", 0.257645)])
        # The packed dot products give exactly what the plain loop gives.
        b = a.bundle()
        loop = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"))
        loop._closest = lambda *_: None
        from skillc_runtime import _meaning
        numpy, _meaning._numpy = _meaning._numpy, None
        try:
            # Packed in big integers (no numpy): the same again.
            plain = Artifact(str(ROOT / "compiler" / "runtime" / "tests" / "data" / "sample.db"))
            # The first few too: a skill that cannot be among them is passed over.
            for message in ("hello there", "価格はいくらですか", "compare us with the competitors please",
                            "what does the pricing look like for a small team", "write a press release and a PDF"):
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
                             [("pricing", 0.560644), ("demo_offer", 0.539319)])
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
                loop._closest = lambda *_: None
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
                    for packed in (a._small_talk(), a.bundle()["packed"]):
                        got, want = (packed.closest_and_first(v, _meaning._norm(v)) for v in (scaled, whole))
                        self.assertAlmostEqual(got[1], want[1], places=9)
                        self.assertEqual([round(c, 9) for c in got[0]], [round(c, 9) for c in want[0]])
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
                packed = _meaning.Packed(dense, dims)
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
                    reached, reached_first = packed.closest_reaching(query, q_norm, needs)
                    self.assertEqual(reached_first, first)
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
