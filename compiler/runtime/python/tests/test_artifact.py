"""The Python runtime's artifact: reloading a rebuilt file, signatures, the bound on kept
bundles. Parity with the Rust runtime is tests/parity/; Run:

    PYTHONPATH=compiler/runtime/python SKILLC=target/debug/skillc \
        python3 -m unittest discover -s compiler/runtime/python/tests
"""

import os
import shutil
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

from skillc_runtime import Artifact, RequestError, SignatureError

from common import ROOT, SKILLC


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


if __name__ == "__main__":
    unittest.main()
