#!/usr/bin/env python3
"""Generated requests: every runtime against `skillc` on messages no one wrote.

The other parity runs ask the requests someone wrote, and the runtimes were equal only there
(the Python runtime split `दुनिया` at its vowel signs). This run makes its requests at random:
300 messages over many scripts (Latin with accents, Cyrillic, Greek, Arabic, Devanagari, CJK,
Hangul, Thai, emoji, combining marks, zero-width joiners, fullwidth and mathematical letters,
numbers of several scripts), mixed with the words the artifacts' skills hold, in random case,
decomposed, misspelt (one edit: read back as the nearest known word, docs/routing.md) or joined
by unusual separators, routed in random bundles, contexts, consumers and
`--top`. Half go to the sample artifact; half to a workspace of skills written in those
scripts, built here, so that every script's words can be matched. Random selections of prompts
and every catalog format are compared too. The Rust `skillc` answers first; the Python runtime
(in this process), the TypeScript runtime (one `node` for the routes, its command for the rest)
and the Java runtime (one JVM, tests/parity/java_runtime_parity.py's driver) must answer the same.

The seed changes every run and is printed; `SKILLC_PARITY_SEED=N` asks the same requests again.
Usage: generated_parity.py SKILLC ARTIFACT
"""

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler" / "runtime" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from skillc_runtime import Artifact  # noqa: E402
from requests_of_parity import BUNDLES, CONSUMERS, CONTEXTS, driver_answers, flags, verdict, without_numpy  # noqa: E402
from java_runtime_parity import JAVA, JDBC  # noqa: E402

TS_DIST = ROOT / "compiler" / "runtime" / "typescript" / "dist"
MESSAGES = 300

# Words people write, per script, some with the letters that case or compose differently.
WORDS = {
    "latin": ["café", "naïve", "Straße", "ÉCOLE", "señor", "Ångström", "İstanbul", "œuvre", "ﬁnance", "Ǆemal",
              "façade", "DIYARBAKIR", "résumé", "Zürich", "ĳssel"],
    "cyrillic": ["привет", "Цена", "ДЕМО", "счёт", "Ёлка", "україна", "ћирилица"],
    "greek": ["ΟΔΟΣ", "τιμή", "ΣΟΦΟΣ", "Σίσυφος", "ὈΔΥΣΣΕΎΣ", "ᾼ", "λόγος"],
    "arabic": ["مرحبا", "السعر", "٣٤٥", "كتاب", "فارسی۱۲"],
    "devanagari": ["दुनिया", "नमस्ते", "कीमत", "०१२", "हिन्दी", "क़ीमत"],
    "cjk": ["価格", "価格はいくらですか", "中文", "한국어", "カタカナ", "ｶﾀｶﾅ", "𠀀𠀁"],
    "thai": ["สวัสดี", "ราคา", "ภาษาไทย", "๑๒๓"],
    "symbols": ["½", "²³", "Ⅻ", "ⓐⓑ", "Ⓐ", "𝐀𝐁𝐂", "ＡＢＣ", "①②", "x\u0363y"],
}
# Letters drawn one by one, per script: (first, last) code points, base letters then marks.
LETTERS = {
    "latin": [(0xC0, 0xFF), (0x100, 0x17F)], "cyrillic": [(0x410, 0x44F)], "greek": [(0x391, 0x3C9)],
    "arabic": [(0x621, 0x64A), (0x64B, 0x652)], "devanagari": [(0x905, 0x939), (0x93E, 0x94D)],
    "cjk": [(0x4E00, 0x9FFF), (0x3041, 0x3096), (0xAC00, 0xD7A3)], "thai": [(0xE01, 0xE30), (0xE31, 0xE3A)],
    "symbols": [(0x24B6, 0x24E9), (0x1D400, 0x1D433), (0xFF21, 0xFF5A), (0x2160, 0x216B), (0x966, 0x96F)],
}
EMOJI = ["😀", "👩\u200d💻", "🇫🇷", "1\ufe0f\u20e3", "👍🏽", "❤️", "🏳️\u200d🌈"]
MARKS = ["\u0301", "\u0308", "\u0363", "\u20dd", "\u0345", "\u093c", "\u0e48"]
SEPARATORS = [" ", " ", " ", "  ", ", ", ". ", "..", "'", "\u2019", ":", "-", "_", "/", "\u200d", "\u200c",
              "\u200b", "\u00ad", "\u00a0", "\u2060", "\t", "\n", "·", "", "?", "!", " – ", "\r\n", "\u2028",
              "\u0085", "\x07", "\x1b", "\x7f", "\ufeff", "\u3000", "\"", "\\\\", "<b>", "&amp;"]


def random_word(rng, script):
    """A word of `script`: one people write, or letters drawn at random."""
    if rng.random() < 0.5:
        return rng.choice(WORDS[script])
    ranges = LETTERS[script]
    return "".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(1, 7)))


def disguise(rng, word):
    """`word` as a message may hold it: another case, decomposed, with a mark or joiner inside, or
    misspelt."""
    roll = rng.random()
    if roll < 0.2:
        return word.upper()
    if roll < 0.3:
        return word.title()
    if roll < 0.4:
        return unicodedata.normalize("NFD", word)
    if roll < 0.45:
        return unicodedata.normalize("NFKC", word)
    if roll < 0.55 and word:
        at = rng.randint(0, len(word))
        return word[:at] + rng.choice(MARKS + ["\u200d", "\u00ad"]) + word[at:]
    if roll < 0.68 and len(word) >= 4:
        # Written apart: a route joins the two halves again (docs/routing.md, "What is indexed").
        at = rng.randint(2, len(word) - 2)
        return word[:at] + " " + word[at:]
    if roll < 0.8 and word:
        return misspelt(rng, word)
    return word


def misspelt(rng, word):
    """`word` one random edit away (a letter deleted, inserted, changed or two swapped), as a
    route reads back as the nearest known word (docs/routing.md, "Misspelt words")."""
    at = rng.randrange(len(word))
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
    edits = [word[:at] + word[at + 1:], word[:at] + letter + word[at:], word[:at] + letter + word[at + 1:],
             word[:at] + word[at + 1:at + 2] + word[at] + word[at + 2:]]
    return rng.choice(edits)


def message(rng, known, glossary=()):
    """A random message: known words of the artifact, words of its glossary (read in English,
    docs/routing.md, "Words of other languages"; a run of them joined without spaces) and words
    of random scripts, disguised, joined by random separators; now and then long enough to pass
    the 64-word cap."""
    size = rng.choice([1, 2, 3, 5, 8, 12]) if rng.random() < 0.9 else rng.randint(60, 150)
    parts = []
    for _ in range(size):
        roll = rng.random()
        if roll < 0.15 and glossary:
            words = [rng.choice(glossary) for _ in range(rng.choice([1, 1, 2, 3]))]
            parts.append(disguise(rng, "".join(words) if rng.random() < 0.5 else " ".join(words)))
        elif roll < 0.45 and known:
            parts.append(disguise(rng, rng.choice(known)))
        elif roll < 0.9:
            parts.append(disguise(rng, random_word(rng, rng.choice(list(WORDS)))))
        else:
            parts.append(rng.choice(EMOJI))
        parts.append(rng.choice(SEPARATORS))
    text = "".join(parts).strip() or "?"
    # A leading `-` would be read as a flag by the command lines.
    return "x " + text if text.startswith("-") else text


def polyglot_workspace(rng, folder):
    """A workspace of eight skills whose descriptions and examples are words of every script;
    returns the folder."""
    ws = Path(folder) / "polyglot"
    scripts = list(WORDS)
    for n in range(8):
        words = [random_word(rng, rng.choice(scripts)) for _ in range(rng.randint(4, 12))]
        examples = [" ".join(random_word(rng, rng.choice(scripts)) for _ in range(rng.randint(1, 4)))
                    for _ in range(rng.randint(0, 3))]
        skill = ws / f"poly-{n}"
        skill.mkdir(parents=True)
        front = [f"name: poly-{n}", f"description: {json.dumps(' '.join(words), ensure_ascii=False)}"]
        if examples:
            front.append("trigger_examples:")
            front += [f"  - {json.dumps(e, ensure_ascii=False)}" for e in examples]
        (skill / "SKILL.md").write_text("---\n" + "\n".join(front) + "\n---\nBody.\n", encoding="utf-8")
    return ws


def known_words(artifact):
    """The words the artifact's cards hold (`card_route.terms`), as Rust indexed them."""
    with sqlite3.connect(f"file:{artifact}?mode=ro", uri=True) as db:
        terms = [row[0] for row in db.execute("SELECT terms FROM card_route")]
    return sorted({pair.rsplit(":", 1)[0] for stored in terms for pair in stored.split(" ") if pair})


def glossary_words(artifact):
    """The words of the artifact's glossary (none without one)."""
    with sqlite3.connect(f"file:{artifact}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT data FROM meaning WHERE name LIKE '%:glossary'").fetchall()
    return [line.split("\t", 1)[0] for row in rows for line in bytes(row[0]).decode().splitlines()]


def skill_names(skillc, artifact):
    out = subprocess.run([skillc, "catalog", artifact, "--format", "json"], capture_output=True, check=True)
    return [s["name"] for s in json.loads(out.stdout)["skills"]]


def route_requests(rng, artifact, sample, count):
    """`count` random routes of `artifact`: (message, bundle, context, consumer, top)."""
    known, glossary = known_words(artifact), glossary_words(artifact)
    out = []
    for _ in range(count):
        bundle = rng.choice(BUNDLES) if sample else {}
        context = dict(rng.choice(CONTEXTS)) if sample else {}
        if rng.random() < 0.3:
            context["turn"] = str(rng.randint(0, 9))
        consumer = rng.choice([None, None, *CONSUMERS]) if sample else None
        top = rng.choice([None, None, None, 1, 2, 5])
        out.append((artifact, message(rng, known, glossary), bundle, context, consumer, top))
    return out


def route_args(route):
    artifact, text, bundle, context, consumer, top = route
    return ["route", artifact, text, *flags(bundle, context), *(["--consumer", consumer] if consumer else []),
            *(["--top", str(top)] if top else []), "--format", "json"]


def other_requests(rng, skillc, artifact, sample):
    """Every catalog format and random prompt selections of `artifact`, as command lines."""
    names = skill_names(skillc, artifact)
    out = []
    for fmt in ("xml", "markdown", "list", "json"):
        bundle = rng.choice(BUNDLES) if sample else {}
        out.append(["catalog", artifact, *flags(bundle, rng.choice(CONTEXTS) if sample else {}), "--format", fmt])
    for _ in range(10):
        select = rng.sample(names, rng.randint(1, min(5, len(names)))) + rng.choice([[], ["SK2"], ["nope"]])
        bundle = rng.choice(BUNDLES) if sample else {}
        out.append(["prompt", artifact, *flags(bundle, rng.choice(CONTEXTS) if sample else {}),
                    "--select", ",".join(select), "--format", rng.choice(["json", "text"])])
    return out


def run(command):
    """(status, stdout, stderr if it failed) of a command."""
    out = subprocess.run(command, capture_output=True, check=False)
    return out.returncode, out.stdout, out.stderr if out.returncode else b""


def python_route(opened, route, numpy=True):
    """The Python runtime's answer; `numpy=False`: with its dot products in big integers."""
    artifact, text, bundle, context, consumer, top = route
    if (artifact, numpy) not in opened:
        opened[artifact, numpy] = Artifact(artifact)
    try:
        call = lambda: opened[artifact, numpy].route(text, context=context, consumer=consumer, top=top, **bundle)
        return call() if numpy else without_numpy(call)
    except Exception as e:  # noqa: BLE001 - an error is an answer to compare
        return "error"


TS_DRIVER = """
import { createInterface } from "node:readline";
const { Artifact, contextFromPairs } = await import(process.argv[1]);
const opened = new Map();
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const q = JSON.parse(line);
  if (!opened.has(q.artifact)) opened.set(q.artifact, await Artifact.open(q.artifact));
  let out;
  try {
    out = JSON.stringify(opened.get(q.artifact).route({ ...q.request, context: contextFromPairs(Object.entries(q.context)) }), null, 2) + "\\n";
  } catch (e) {
    out = `error: ${e.message}`;
  }
  process.stdout.write(JSON.stringify(out) + "\\n");
}
"""


def ts_routes(routes):
    """Each route's `--format json` text from one node process running the TypeScript API."""
    lines = []
    for artifact, text, bundle, context, consumer, top in routes:
        request = {k: v for k, v in {"message": text, **bundle, "consumer": consumer, "top": top}.items() if v is not None}
        lines.append(json.dumps({"artifact": artifact, "request": request, "context": context}, ensure_ascii=False))
    out = subprocess.run(["node", "--input-type=module", "-e", TS_DRIVER, str(TS_DIST / "index.js")],
                         input=("\n".join(lines) + "\n").encode(), capture_output=True, check=False)
    # Split at newlines only: an answer may hold U+2028 or U+0085, which splitlines() would cut at.
    answers = [json.loads(line) for line in out.stdout.decode().split("\n") if line]
    if out.returncode != 0 or len(answers) != len(routes):
        raise SystemExit(f"the TypeScript driver answered {len(answers)} of {len(routes)}:\n{out.stderr.decode()}")
    return [a.encode() for a in answers]


def java_answers(asked):
    """Each command line's (status, stdout, stderr) from the Java runtime's ParityDriver, one
    JVM; its jar and test classes (where the driver is) are built when missing."""
    jar, driver = JAVA / "target" / "skillc-runtime-0.1.0.jar", JAVA / "target" / "test-classes"
    if not (jar.exists() and (driver / "dev" / "skillc" / "runtime" / "ParityDriver.class").exists()):
        subprocess.run(["bash", str(JAVA / "build.sh")], check=True, stdout=subprocess.DEVNULL)
    return driver_answers(["java", "-cp", f"{driver}:{jar}:{JDBC}", "dev.skillc.runtime.ParityDriver"], asked)


class Tally:
    """Counts agreements per runtime and keeps the first differences to show."""

    def __init__(self):
        self.passed, self.failed, self.shown = 0, 0, {}

    def compare(self, runtime, request, rust, theirs):
        if rust == theirs:
            self.passed += 1
            return
        self.failed += 1
        shown = self.shown.setdefault(runtime, [])
        if len(shown) < 5:
            shown.append((request, rust, theirs))

    def report(self):
        for runtime, shown in self.shown.items():
            for request, rust, theirs in shown:
                what = [request[0], repr(request[2])] if request[0] == "route" else request[:1]
                print(f"FAIL {runtime}: {' '.join(what + request[3 if request[0] == 'route' else 2:])}")
                for key, (a, b) in differences(rust, theirs).items():
                    print(f"  {key}\n    rust: {str(a)[:600]}\n    {runtime}: {str(b)[:600]}")


def differences(rust, theirs):
    """What differs between two answers: the fields of JSON answers, else the whole."""

    def parsed(answer):
        if isinstance(answer, tuple) and answer[0] == 0:
            answer = answer[1]
        if isinstance(answer, bytes):
            try:
                return json.loads(answer)
            except ValueError:
                return answer.decode(errors="replace")
        return answer

    a, b = parsed(rust), parsed(theirs)
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}
    return {"answer": (a, b)}


def ascii_letters(text):
    """`text` lowercased with its letters' marks and compatibility forms taken off (`pagé`,
    `ｐａｇｅ`: `page`), what is not ASCII left out."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def read_in_english(routes):
    """How many of the routes' messages their catalog reads with words glossed in English
    (docs/routing.md, "Words of other languages"), as the Python runtime reads them."""
    opened, count = {}, 0
    for artifact, text, bundle, *_ in routes:
        a = opened.setdefault(artifact, Artifact(artifact))
        b = a.bundle(bundle.get("client"), bundle.get("locale"), bundle.get("tier"))
        count += a._glossed(text, b) is not None
    return count


def compare_routes(tally, skillc, routes):
    asked = [route_args(r) for r in routes]
    with ThreadPoolExecutor(max_workers=2) as pool:
        rust = list(pool.map(lambda a: run([skillc, *a]), asked))
    answered = [(r, json.loads(a[1])["candidates"]) for r, a in zip(routes, rust) if a[0] == 0]
    found = [c for _, c in answered]
    scripts = [c for c in found if any(not w.isascii() for cand in c for w in cand["matched"])]
    # A matched word of letters a-z that the message's letters do not hold (as a stem holds a
    # prefix of its word): one read as the nearest known word of a misspelt one.
    respelt = [c for r, c in answered
               if any(w.isascii() and w.isalpha() and w not in ascii_letters(r[1]) for cand in c for w in cand["matched"])]
    glossed = read_in_english(routes)
    # A matched word the message holds only written apart: two neighbouring words joined (too few
    # of them, 3 to 9 in 300, to require a number without a flaky check; requests_of_parity.py
    # asks for joined words in every runtime by name).
    apart = [c for r, c in answered
             if any(w.isascii() and w.isalpha() and w in ascii_letters(r[1]).replace(" ", "")
                    and w not in ascii_letters(r[1]) for cand in c for w in cand["matched"])]
    print(f"{len(found)} routes, {sum(map(bool, found))} with candidates, {len(scripts)} matching words beyond ASCII, "
          f"{len(respelt)} a misspelt word, {len(apart)} a word written apart, "
          f"{glossed} read with words of other languages in English")
    if (sum(map(bool, found)) < len(routes) // 3 or len(scripts) < len(routes) // 6 or len(respelt) < len(routes) // 30
            or glossed < len(routes) // 10):
        tally.compare("generator", ["route", "", "the messages"], "enough matched words", "too few matched")
    opened = {}
    for args, route, answer in zip(asked, routes, rust):
        # A refused route (none is expected) is compared as a refusal, whatever the words.
        for numpy in (True, False):
            tally.compare("python" if numpy else "python without numpy", args,
                          json.loads(answer[1]) if answer[0] == 0 else "error", python_route(opened, route, numpy))
    for args, answer, ts in zip(asked, rust, ts_routes(routes)):
        tally.compare("typescript", args, answer[1] if answer[0] == 0 else answer, ts)
    for args, answer, java in zip(asked, rust, java_answers(asked)):
        tally.compare("java", args, answer, java)


def compare_others(tally, skillc, asked):
    """Catalogs and prompts: the Python API's text and skills, the TypeScript and Java command
    lines' output byte for byte."""
    rust = [run([skillc, *a]) for a in asked]
    with ThreadPoolExecutor(max_workers=2) as pool:
        ts = list(pool.map(lambda a: run(["node", str(TS_DIST / "cli.js"), *a]), asked))
    for args, r, t, j in zip(asked, rust, ts, java_answers(asked)):
        tally.compare("typescript", args, r, t)
        tally.compare("java", args, r, j)
        tally.compare("python", args, *python_other(skillc, args, r))


def python_other(skillc, args, rust):
    """What to compare of a catalog or prompt: Rust's JSON answer and the Python runtime's."""
    if rust[0] != 0:
        return rust[0], "the Python runtime is not asked for what skillc refuses"
    fmt = args[args.index("--format") + 1]
    json_args = [*args[: args.index("--format")], "--format", "json"]
    mine_json = json.loads(run([skillc, *json_args])[1])
    artifact, request = args[1], parse_flags(args[2:])
    py = Artifact(artifact)
    if args[0] == "catalog":
        mine = py.catalog(fmt=fmt, **request)
        want = rust[1].decode().rstrip("\n") if fmt != "json" else mine_json["text"].rstrip("\n")
        return (want, [s["id"] for s in mine_json["skills"]]), (mine["text"].rstrip("\n"), [s["id"] for s in mine["skills"]])
    select = request.pop("select").split(",")
    mine = py.prompt(select, **request)
    keys = ("skills", "removed", "sources", "text")
    return [mine_json[k] for k in keys], [mine[k] for k in keys]


def parse_flags(rest):
    """`--client X --context k=v --select a,b ...` as the Python runtime's keyword arguments."""
    out, context = {}, {}
    for flag, value in zip(rest[::2], rest[1::2]):
        if flag == "--context":
            key, _, v = value.partition("=")
            context[key] = v
        elif flag != "--format":
            out[flag[2:]] = value
    out["context"] = context
    return out


def main():
    skillc, sample = sys.argv[1], sys.argv[2]
    seed = int(os.environ.get("SKILLC_PARITY_SEED") or random.SystemRandom().randrange(2**32))
    print(f"seed {seed} (SKILLC_PARITY_SEED={seed} asks the same requests again)")
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="skillc-generated-")
    try:
        polyglot = str(Path(folder) / "polyglot.db")
        built = run([skillc, "build", str(polyglot_workspace(rng, folder)), "-o", polyglot])
        if built[0] != 0:
            raise SystemExit(f"the generated workspace did not build (seed {seed}):\n{built[2].decode()}")
        routes = route_requests(rng, sample, True, MESSAGES // 2) + route_requests(rng, polyglot, False, MESSAGES // 2)
        tally = Tally()
        compare_routes(tally, skillc, routes)
        compare_others(tally, skillc, other_requests(rng, skillc, sample, True)
                       + other_requests(rng, skillc, polyglot, False))
        tally.report()
        status = verdict(tally.passed, tally.failed, least=3 * MESSAGES)
        if status:
            print(f"seed {seed}: SKILLC_PARITY_SEED={seed} asks the same requests again")
        return status
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
