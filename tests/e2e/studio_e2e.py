#!/usr/bin/env python3
"""End-to-end tests of Skill Studio: the real window, driven through WebDriver
(tauri-driver + WebKitWebDriver) under Xvfb, as a content team member would use it.

Usage: studio_e2e.py APP_BINARY SCREENSHOT_DIR
Each test takes a screenshot into SCREENSHOT_DIR. Every process started here (Xvfb,
tauri-driver, which starts the app) is stopped here, by its process id.
"""

import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PORT = 4444
DISPLAY = ":97"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class LostConnection(Exception):
    """The WebDriver connection was lost (not a failure of the app): the one case worth a rerun."""


def lost_connection(exc):
    return isinstance(exc, (LostConnection, ConnectionError, urllib.error.URLError,
                            http.client.RemoteDisconnected))


class Driver:
    def __init__(self, app, workspace):
        caps = {"capabilities": {"alwaysMatch": {"tauri:options": {"application": str(app), "args": [str(workspace)]}}}}
        self.session = self._req("POST", "/session", caps)["sessionId"]

    def _req(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, method=method,
                                     headers={"content-type": "application/json"})
        # tauri-driver reuses pooled connections that WebKitWebDriver may have closed; such a
        # request never reached the browser ("SendRequest"), so sending it again is safe.
        for attempt in range(4):
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    return json.loads(r.read() or b"{}").get("value")
            except urllib.error.HTTPError as e:
                body = e.read().decode()[:500]
                if e.code >= 500 and "SendRequest" in body:
                    if attempt < 3:
                        time.sleep(0.3)
                        continue
                    raise LostConnection(f"{method} {path}: {body}") from None
                raise RuntimeError(f"{method} {path}: {body}") from None
            except (ConnectionError, urllib.error.URLError, http.client.RemoteDisconnected):
                if attempt == 3:
                    raise
                time.sleep(0.3)

    def s(self, method, path, body=None):
        return self._req(method, f"/session/{self.session}{path}", body)

    def find(self, css, timeout=20):
        end = time.time() + timeout
        while True:
            try:
                return self.s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]
            except RuntimeError:
                if time.time() > end:
                    raise AssertionError(f"no element matches {css!r}")
                time.sleep(0.2)

    def click(self, css):
        self.s("POST", f"/element/{self.find(css)}/click", {})

    def text(self, css):
        return self.s("GET", f"/element/{self.find(css)}/text")

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def type(self, css, text):
        self.s("POST", f"/element/{self.find(css)}/value", {"text": text})

    def set_value(self, css, value):
        """Replaces a field's value the way typing does: the page sees an input event."""
        el = self.find(css)
        self.js("const e = arguments[0]; e.value = arguments[1]; e.dispatchEvent(new Event('input', {bubbles: true}));",
                {ELEMENT: el}, value)

    def wait_text(self, css, needle, timeout=30):
        end = time.time() + timeout
        last = ""
        while time.time() < end:
            try:
                last = self.text(css)
                if needle in last:
                    return last
            except (RuntimeError, AssertionError):
                pass
            time.sleep(0.3)
        raise AssertionError(f"{css!r} never showed {needle!r}; last: {last[:300]!r}")

    def screenshot(self, path):
        Path(path).write_bytes(base64.b64decode(self.s("GET", "/screenshot")))

    def quit(self):
        try:
            self.s("DELETE", "")
        except Exception:
            pass


def wait_port(port, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listens on port {port}")


def wait_built(d):
    d.wait_text("#build-status", "Built", timeout=60)


# ---- the tests ------------------------------------------------------------------------------

def test_open_the_sample_and_see_a_new_diagnostic_after_editing_a_description(d, ws, shots):
    d.wait_text("#skill-list", "greeting")
    d.click('#skill-list li[data-file="public/assistant/greeting/SKILL.md"]')
    d.wait_text("#diagnostics", "No problems")
    d.set_value('[data-field="description"]', "")
    d.wait_text("#diagnostics", "E011")
    assert "description` is empty" in d.text("#diagnostics")
    assert not d.js("return document.getElementById('dirty').hidden")
    d.screenshot(shots / "edit-diagnostic.png")
    # The file on disk is untouched until saved.
    assert "Handle greetings" in (ws / "public/assistant/greeting/SKILL.md").read_text()
    # Clicking the diagnostic jumps to its line in the source.
    d.click("#diagnostics li.error")
    assert not d.js("return document.getElementById('source').hidden")


def test_flip_a_toggle_and_see_the_preview_change_after_the_rebuild(d, ws, shots):
    wait_built(d)
    d.click('#tabs button[data-tab="preview"]')
    d.js("document.getElementById('pv-client').value = 'hyperline.co'")
    d.set_value("#pv-selected", "support")
    d.click("#pv-run")
    d.wait_text("#pv-reasons", "selected")
    d.click('#tabs button[data-tab="toggles"]')
    cell = 'td[data-client="hyperline.co"][data-skill="support"]'
    d.find(cell)
    d.click(cell)  # on (explicit toggle)
    time.sleep(0.5)
    d.click(cell)  # off (explicit toggle)
    d.wait_text("#toggles", "○")
    assert "support: false" in (ws / "clients/hyperline.co/client.yaml").read_text()
    d.screenshot(shots / "toggles.png")
    wait_built(d)
    d.click('#tabs button[data-tab="preview"]')
    d.js("document.getElementById('pv-client').value = 'hyperline.co'")
    d.click("#pv-run")
    d.wait_text("#pv-reasons", "unknown")


def test_preview_a_client_and_see_its_variant(d, ws, shots):
    d.click('#tabs button[data-tab="preview"]')
    for client, variant in (("hyperline.co", "competitors_battlecard"), ("augment.org", "competitors_aware")):
        d.js("document.getElementById('pv-client').value = arguments[0]", client)
        d.set_value("#pv-selected", "competitors")
        d.click("#pv-run")
        d.wait_text("#pv-reasons", variant)
    d.wait_text("#pv-catalog", "| SK1 ")
    d.screenshot(shots / "preview.png")


def test_provoke_and_resolve_an_on_disk_conflict(d, ws, shots):
    d.click('#tabs button[data-tab="edit"]')
    f = "public/response_handling/support/SKILL.md"
    # The first test left unsaved edits: the studio warns before dropping them.
    d.click(f'#skill-list li[data-file="{f}"]')
    d.wait_text("#build-status", "Unsaved edits")
    d.click(f'#skill-list li[data-file="{f}"]')
    d.wait_text("#editor-title", f)
    d.set_value("#body", "# Instructions\n\nMy edit in the studio.\n")
    # Someone else changes the file meanwhile.
    path = ws / f
    path.write_text(path.read_text().replace("Route existing customers", "Their edit routes customers"))
    end = time.time() + 20
    while d.js("return document.getElementById('conflict').hidden") and time.time() < end:
        time.sleep(0.3)
    assert not d.js("return document.getElementById('conflict').hidden"), "no conflict shown"
    d.screenshot(shots / "conflict.png")
    d.click("#keep-mine")
    end = time.time() + 10
    while "My edit in the studio" not in path.read_text() and time.time() < end:
        time.sleep(0.2)
    assert "My edit in the studio" in path.read_text()
    # A second conflict, resolved the other way: their version is loaded.
    d.set_value("#body", "# Instructions\n\nAnother edit.\n")
    path.write_text(path.read_text().replace("My edit in the studio", "Their second edit"))
    end = time.time() + 20
    while d.js("return document.getElementById('conflict').hidden") and time.time() < end:
        time.sleep(0.3)
    d.click("#load-theirs")
    d.wait_text("#editor", "")
    assert "Their second edit" in d.js("return document.getElementById('source').value")
    assert "Their second edit" in path.read_text()


def main():
    app, shots = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    shots.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp())
    ws = tmp / "skills"
    shutil.copytree(ROOT / "skills", ws, ignore=shutil.ignore_patterns(".skillc"))
    env = dict(os.environ, DISPLAY=DISPLAY)
    procs = []
    passed = failed = lost = 0
    try:
        procs.append(subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1400x900x24"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(1)
        driver_bin = shutil.which("tauri-driver") or str(Path.home() / ".cargo/bin/tauri-driver")
        log = open(shots / "tauri-driver.log", "w")
        procs.append(subprocess.Popen([driver_bin, "--port", str(PORT)], env=env, stdout=log, stderr=log))
        wait_port(PORT)
        try:
            d = Driver(app, ws)
        except Exception as e:
            if not lost_connection(e):
                raise
            print(f"LOST no WebDriver session: {e}")
            return 3
        try:
            for test in (test_open_the_sample_and_see_a_new_diagnostic_after_editing_a_description,
                         test_flip_a_toggle_and_see_the_preview_change_after_the_rebuild,
                         test_preview_a_client_and_see_its_variant,
                         test_provoke_and_resolve_an_on_disk_conflict):
                try:
                    test(d, ws, shots)
                    print(f"ok   {test.__name__}")
                    passed += 1
                except Exception as e:
                    print(f"FAIL {test.__name__}" + (" (lost WebDriver connection)" if lost_connection(e) else ""))
                    lost += lost_connection(e)
                    traceback.print_exc()
                    try:
                        d.screenshot(shots / f"failed-{test.__name__}.png")
                    except Exception:
                        pass
                    failed += 1
        finally:
            d.quit()
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    # 3: every failure was a lost connection (a rerun may help); 1: the app failed a test.
    if failed and failed == lost:
        return 3
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
