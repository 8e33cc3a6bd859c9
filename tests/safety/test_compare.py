#!/usr/bin/env python3
"""Tests of compare.py's verdicts, with a stand-in for skillc (no peer, no build needed).

The stand-in answers `check ROOT --format json --no-cache` with one `S` diagnostic per skill folder
as FAKE_MODE says, so each branch of `--check` is seen to pass or fail for the right reason.
Usage: python3 tests/safety/test_compare.py
"""

import os
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent

FAKE = r'''#!/usr/bin/env python3
import json, os, sys
from pathlib import Path
root = Path(sys.argv[2])
mode = os.environ["FAKE_MODE"]
diags = []
for skill_md in sorted(root.rglob("SKILL.md")):
    rel = skill_md.relative_to(root).as_posix()
    name = skill_md.parent.name
    hostile = root.name == "hostile"
    if hostile and not (mode == "miss" and name == "s203-ssh-key-bash"):
        diags.append({"severity": "warning", "code": "S201", "file": rel, "line": 1, "column": 1,
                      "message": "x", "safety": "high"})
    if mode == "flag-clean" and root.name == "clean" and name == "clean-ssh-key-setup":
        diags.append({"severity": "warning", "code": "S203", "file": rel, "line": 1, "column": 1,
                      "message": "x", "safety": "critical"})
    if mode == "flag-public" and not hostile and root.name != "clean":
        diags.append({"severity": "warning", "code": "S303", "file": rel, "line": 1, "column": 1,
                      "message": "x", "safety": "high"})
    if mode == "low-clean" and root.name == "clean":
        diags.append({"severity": "warning", "code": "S301", "file": rel, "line": 1, "column": 1,
                      "message": "x", "safety": "low"})
print(json.dumps({"errors": 0, "warnings": len(diags), "diagnostics": diags}))
'''


# A stand-in for the peer's `skill-scanner`: no findings, and each folder it scanned on a line
# of FAKE_PEER_LOG.
FAKE_PEER = r'''#!/usr/bin/env python3
import json, os, sys
if sys.argv[1] == "--version":
    print("skill-scanner 0.0.0")
    sys.exit(0)
with open(os.environ["FAKE_PEER_LOG"], "a") as log:
    log.write(sys.argv[2] + "\n")
with open(sys.argv[sys.argv.index("-o") + 1], "w") as out:
    json.dump({"results": []}, out)
'''


class CompareCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.fake = Path(cls.tmp.name) / "fake-skillc"
        cls.fake.write_text(FAKE)
        cls.fake.chmod(cls.fake.stat().st_mode | stat.S_IEXEC)
        cls.peer = Path(cls.tmp.name) / "fake-skill-scanner"
        cls.peer.write_text(FAKE_PEER)
        cls.peer.chmod(cls.peer.stat().st_mode | stat.S_IEXEC)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_compare(self, mode):
        env = dict(os.environ, FAKE_MODE=mode)
        return subprocess.run([sys.executable, str(HERE / "compare.py"), "--skillc", str(self.fake), "--no-peer",
                               "--repeat", "1", "--check", "--online"],
                              capture_output=True, text=True, env=env, timeout=600)

    def test_passes_when_every_hostile_case_is_found_and_nothing_clean_is_high(self):
        proc = self.run_compare("perfect")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("| hostile cases found (of 60) | 60 |", proc.stdout)

    def test_low_findings_on_tricky_clean_cases_are_allowed(self):
        self.assertEqual(self.run_compare("low-clean").returncode, 0)

    def test_fails_naming_the_hostile_case_it_missed(self):
        proc = self.run_compare("miss")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("skillc missed 1 hostile case(s): s203-ssh-key-bash", proc.stderr)

    def test_fails_when_a_tricky_clean_case_is_flagged_critical(self):
        proc = self.run_compare("flag-clean")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("tricky-clean case(s) at high/critical: clean-ssh-key-setup", proc.stderr)

    def test_fails_when_over_one_percent_of_public_skills_are_flagged(self):
        proc = self.run_compare("flag-public")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("public-collection skills at high/critical (> 1%)", proc.stderr)

    def test_the_peer_scans_the_labelled_corpus_only_when_asked(self):
        log = Path(self.tmp.name) / "peer.log"
        log.unlink(missing_ok=True)
        env = dict(os.environ, FAKE_MODE="perfect", FAKE_PEER_LOG=str(log))
        proc = subprocess.run([sys.executable, str(HERE / "compare.py"), "--skillc", str(self.fake), "--peer",
                               str(self.peer), "--peer-corpus-only", "--repeat", "1", "--check", "--online"],
                              capture_output=True, text=True, env=env, timeout=600)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(Path(line).name for line in log.read_text().split()), ["clean", "hostile"])
        self.assertIn("| skills (sample workspace): skills flagged high/critical (of 50) | 0 (0.0%) | not run |",
                      proc.stdout)
        self.assertIn("| hostile cases found (of 60) | 60 | 0 |", proc.stdout)
        self.assertIn("wall time, the folders both ran", proc.stdout)

    def test_a_missing_skillc_is_a_usage_error(self):
        proc = subprocess.run([sys.executable, str(HERE / "compare.py"), "--skillc", "/nonexistent/skillc",
                               "--no-peer"], capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no skillc binary at /nonexistent/skillc", proc.stderr)


if __name__ == "__main__":
    unittest.main()
