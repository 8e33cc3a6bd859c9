#!/usr/bin/env python3
"""The studio's figures (the README's Performance table), measured in the real window (WebDriver, Xvfb).

Usage: studio_bench.py APP_BINARY WORKSPACE [--runs N]

WORKSPACE is copied first, into a new git repository as a content team's checkout is (the
benchmark edits a skill and saves it; every build labels its artifact from git). For the reference
workload: `target/release/skillc-bench --keep /tmp/refws --runs 1`, then
`studio_bench.py target/release/skill-studio /tmp/refws`. Build the studio in release mode:
a debug build is several times slower and says nothing about what users get.

Prints the median (and every run) of:
- open: from launching the app to a usable skill list;
- keystroke: from one keystroke in the body editor to fresh diagnostics on screen;
- description keystroke: the same in a skill's description (its overlap and routing warnings,
  W118 and W119, are redone for that skill);
- save: from clicking Save to the preview showing the saved text (rebuild included);
- toggles: from clicking the Toggles tab to the matrix drawn;
- toggle click: from choosing a cell's state to the matrix drawn again with it (the rebuild
  and the cases that follow are not counted; each click waits for them before the next).
Times of the last four are taken inside the page (performance.now), so WebDriver's own
latency is not counted; `open` is taken from outside, as a user sees it.
"""

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import studio_e2e as e2e  # noqa: E402  (the same Driver as the end-to-end tests)

TARGETS = {"open": 3000, "keystroke": 150, "description keystroke": 150, "save": 250, "toggles": 1000, "toggle click": 250}


def page_wait(d, script, timeout=120):
    """Runs `script` (which sets window.__bench to a number of ms when done) and waits for it."""
    d.js("window.__bench = null;" + script)
    end = time.time() + timeout
    while time.time() < end:
        v = d.js("return window.__bench")
        if v is not None:
            return float(v)
        time.sleep(0.02)
    raise AssertionError("the page never finished: " + script[:80])


# In-page helper: resolves when `test()` holds, checking on every DOM change.
WHEN = """
const when = (test) => new Promise((resolve) => {
  if (test()) return resolve();
  const o = new MutationObserver(() => { if (test()) { o.disconnect(); resolve(); } });
  o.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
});
"""


def measure_open(app, ws, runs):
    times = []
    for _ in range(runs):
        start = time.time()
        d = e2e.Driver(app, ws)
        try:
            e2e.wait_until(lambda: d.js("return document.querySelectorAll('#skill-list li').length") > 0,
                           "the skill list", timeout=120)
            times.append((time.time() - start) * 1000)
            d.wait_text("#build-status", "Built", timeout=600)
        finally:
            d.quit()
    return times


def keystrokes(d, runs, editor, at):
    """Times `runs` keystrokes in the CodeMirror view `editor`, inserting at the offset the
    JavaScript expression `at` gives (over `text`, the document): from the keystroke to the
    diagnostics list drawn from a new check (a sentinel in it goes when it is redrawn)."""
    times = []
    for i in range(runs):
        times.append(page_wait(d, WHEN + f"""
const ul = document.getElementById('diagnostics');
const mark = document.createElement('li'); mark.id = 'bench-sentinel'; ul.append(mark);
const v = document.querySelector('{editor}').cm;
const text = v.state.doc.toString();
const t0 = performance.now();
v.dispatch({{changes: {{from: {at}, insert: ' x'}}}});
when(() => !document.getElementById('bench-sentinel')).then(() => {{ window.__bench = performance.now() - t0; }});
"""))
        time.sleep(0.3)
    return times


def measure_keystrokes(d, file, runs):
    d.click('#tabs button[data-tab="edit"]')
    d.click(f'#skill-list li[data-file="{file}"]')
    d.wait_text("#editor-title", file.split("/")[-2])
    time.sleep(1)
    return keystrokes(d, runs, "#body", "text.length")


def measure_description_keystrokes(d, runs):
    """Keystrokes at the end of the description line of the skill the editor holds, in its
    source view (the form's fields wait 120 ms for the typing to pause; the source does not)."""
    d.click("#mode-source")
    time.sleep(1)
    times = keystrokes(d, runs, "#source", "text.indexOf('\\n', text.indexOf('description:'))")
    d.click("#mode-form")
    return times


def measure_save(d, file, client, name, runs, spent):
    """Save to drawn preview, `runs` times; `spent` gets each backend command's time as the
    page saw it (call to answer, from the page's trace of its commands)."""
    times = []
    for i in range(runs):
        marker = f"benchmarker{i}x{int(time.time())}"
        d.click('#tabs button[data-tab="edit"]')
        d.click(f'#skill-list li[data-file="{file}"]')
        if d.js("return !document.getElementById('leave').hidden"):
            d.click("#leave-discard")  # drop the keystrokes' edits
        d.wait_text("#editor-title", file.split("/")[-2])
        d.js("const v = document.querySelector('#body').cm;"
             " v.dispatch({changes: {from: v.state.doc.length, insert: '\\n' + arguments[0] + '\\n'}});", marker)
        time.sleep(0.5)
        d.js("window.__studioTrace.length = 0")
        times.append(page_wait(d, WHEN + """
const marker = arguments[0];
const status = document.getElementById('build-status');
let building = false;
new MutationObserver(() => { if (status.textContent.startsWith('Building')) building = true; })
  .observe(status, {subtree: true, childList: true, characterData: true});
const t0 = performance.now();
document.getElementById('save').click();
when(() => building && status.textContent.startsWith('Built')).then(async () => {
  document.querySelector('#tabs button[data-tab="preview"]').click();
  document.getElementById('pv-client').value = arguments[1];
  const sel = document.getElementById('pv-selected');
  sel.value = arguments[2]; sel.dispatchEvent(new Event('input', {bubbles: true}));
  document.getElementById('pv-run').click();
  await when(() => document.getElementById('pv-prompt').textContent.includes(marker));
  window.__bench = performance.now() - t0;
});
""".replace("arguments[0]", repr(marker)).replace("arguments[1]", repr(client)).replace("arguments[2]", repr(name))))
        for cmd, start, end in d.js("return window.__studioTrace"):
            spent.setdefault(cmd, []).append(end - start)
        time.sleep(1)
    return times


def measure_toggles(d, runs):
    times = []
    for _ in range(runs):
        d.click('#tabs button[data-tab="edit"]')
        time.sleep(0.3)
        times.append(page_wait(d, WHEN + """
document.getElementById('tg-pagers').textContent = '';
const t0 = performance.now();
document.querySelector('#tabs button[data-tab="toggles"]').click();
when(() => document.getElementById('tg-pagers').textContent.includes('clients'))
  .then(() => requestAnimationFrame(() => { window.__bench = performance.now() - t0; }));
"""))
    return times


def measure_toggle_click(d, runs):
    """Sets the first cell of the matrix off, then back to its default, `runs` times in all."""
    d.click('#tabs button[data-tab="toggles"]')
    d.wait_text("#tg-pagers", "clients")
    times = []
    for i in range(runs):
        d.js("document.getElementById('tg-broken').hidden = true;")
        d.click("#toggles td[data-client]")
        times.append(page_wait(d, WHEN + f"""
const mark = document.createElement('span'); mark.id = 'bench-sentinel';
document.getElementById('toggles').append(mark);
const t0 = performance.now();
document.querySelector('#tg-menu button[data-value="{"off" if i % 2 == 0 else "default"}"]').click();
when(() => !document.getElementById('bench-sentinel'))
  .then(() => requestAnimationFrame(() => {{ window.__bench = performance.now() - t0; }}));
"""))
        # The rebuild and its cases are done when the broken tests are named.
        e2e.wait_until(lambda: not d.js("return document.getElementById('tg-broken').hidden"),
                       "the cases ran after the click", timeout=120)
    return times


def report(name, times):
    med = statistics.median(times)
    target = TARGETS[name]
    verdict = "meets" if med <= target else "MISSES"
    runs = ", ".join(f"{t:.0f}" for t in times)
    print(f"{name:10} median {med:7.0f} ms  (target {target} ms: {verdict})  runs: {runs}")


def main():
    app, source = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    tmp = Path(tempfile.mkdtemp())
    ws = tmp / "ws"
    shutil.copytree(source, ws, ignore=shutil.ignore_patterns(".skillc"))
    # A content team's workspace is a git checkout (the studio publishes by commit): each
    # build then labels its artifact with `git status`, as it does for them.
    git = ["git", "-C", str(ws), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the workspace"]):
        subprocess.run(git + args, check=True, stdout=subprocess.DEVNULL)
    skills = sorted(ws.glob("clients/*/**/SKILL.md"))
    global_skills = sorted(ws.glob("public/**/SKILL.md"))
    if not skills or not global_skills:
        sys.exit("the workspace needs global skills and client skills")
    client_skill = skills[len(skills) // 2]
    client = client_skill.relative_to(ws).parts[1]
    name = client_skill.parent.name
    try:
        with e2e.window_display():
            print(f"workspace: {source} ({len(global_skills)} global skills, {len(skills)} client skills)")
            report("open", measure_open(app, ws, min(runs, 3)))
            d = e2e.Driver(app, ws)
            try:
                d.wait_text("#build-status", "Built", timeout=600)
                report("keystroke", measure_keystrokes(d, str(global_skills[0].relative_to(ws)), runs * 2))
                report("description keystroke", measure_description_keystrokes(d, runs * 2))
                spent = {}
                report("save", measure_save(d, str(client_skill.relative_to(ws)), client, name, runs, spent))
                # Where a save's time goes: the commands on its way, as the page waited for them
                # (the rest is the page drawing).
                print("  its commands, medians: " + ", ".join(
                    f"{cmd} {statistics.median(t):.0f} ms" for cmd, t in spent.items()))
                report("toggles", measure_toggles(d, runs))
                report("toggle click", measure_toggle_click(d, runs))
            finally:
                d.quit()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
