#!/usr/bin/env python3
"""Rules the sample workspace does not exercise, in every runtime: `blocks` applied last (over
an always-on skill), locale fallback (`fr-ca` -> `fr` -> the base file) and a secret name
written by a skill that does not declare it. A small workspace is built with skillc; the Rust
runtime (`skillc prompt`/`catalog`), the Python runtime (in process) and the TypeScript and
Java runtimes' command lines must give the same answers, and the answers must follow the prompt rules and
the priority of variables. Then Claude Code plugins (the `plugin-marketplace` fixture): skills
named `<plugin>:<skill>`, a plain name selecting only when one plugin has it, and each skill's
plugin metadata in the catalog JSON. Then skills from another repository (`external:`,
fetched from a git repository made here): where each comes from, in the catalog JSON. Then
routes of the sample's artifact with its routing rules edited (manifest `routing_rules`, as
another skillc would write them), a consumer's among them: every runtime, Rust's too, routes
by the artifact's rules.
Usage: rules_parity.py SKILLC
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler" / "runtime" / "python"))
from skillc_runtime import Artifact  # noqa: E402

CLI = ROOT / "compiler" / "runtime" / "typescript" / "dist" / "cli.js"
JAVA = ROOT / "compiler" / "runtime" / "java"
JAVA_CP = f"{JAVA / 'target' / 'skillc-runtime-0.1.0.jar'}:/usr/share/java/sqlite-jdbc.jar"


def compare_commands(args, text, label, failures):
    """The TypeScript and Java command lines must print `text`, what skillc printed for `args`."""
    for runtime, command in (("typescript", ["node", str(CLI)]), ("java", ["java", "-cp", JAVA_CP, "dev.skillc.runtime.Cli"])):
        out = subprocess.run([*command, *args], capture_output=True, text=True).stdout
        if out != text:
            failures.append(f"{runtime} {label}: {out[:300]!r} != {text[:300]!r}")

FILES = {
    "workspace.yaml": "locales: [en, fr, fr-ca]\ndefault_locale: en\n",
    "variables.json": '{"_global": {"API_TOKEN": "value-that-must-not-leak"}}\n',
    "greeting/SKILL.md": "---\nname: greeting\ndescription: Greets the visitor.\nalways_on: true\n---\nSay hello.\n",
    "greeting/SKILL.fr.md": "---\ndescription: Salue le visiteur.\n---\nDites bonjour.\n",
    "handoff/SKILL.md": "---\nname: handoff\ndescription: Hands over to a human.\nblocks: [greeting]\n---\n"
    "Hand over with {{API_TOKEN}}.\n",
    "vault/SKILL.md": "---\nname: vault\ndescription: Calls the vault.\nvars:\n  API_TOKEN: {secret: true}\n---\n"
    "Use {{API_TOKEN}}.\n",
}

REQUESTS = [
    (locale, select)
    for locale in ("en", "fr", "fr-ca")
    for select in ([], ["handoff"], ["vault", "greeting"], ["handoff", "vault"])
]


def skillc_json(skillc, args):
    out = subprocess.run([skillc, *args, "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    skillc = sys.argv[1]
    subprocess.run(["bash", str(JAVA / "build.sh")], check=True, stdout=subprocess.DEVNULL)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        for rel, text in FILES.items():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_text(text)
        artifact = str(Path(tmp) / "rules.db")
        subprocess.run([skillc, "build", str(ws), "-o", artifact], capture_output=True, check=True)
        if b"value-that-must-not-leak" in Path(artifact).read_bytes():
            failures.append("the secret's value is in the artifact")
        py = Artifact(artifact)
        compared = 0
        for locale, select in REQUESTS:
            args = ["prompt", artifact, "--locale", locale, "--select", ",".join(select)]
            rust = skillc_json(skillc, args)
            mine = py.prompt(select, locale=locale)
            text = subprocess.run([skillc, *args, "--format", "json"], capture_output=True, text=True).stdout
            compared += 1
            for k in ("skills", "removed", "sources", "text"):
                if rust[k] != mine[k]:
                    failures.append(f"python {locale} {select} {k}: {mine[k]!r} != {rust[k]!r}")
            compare_commands([*args, "--format", "json"], text, f"{locale} {select}", failures)
            # What the rules say, whichever runtime answered.
            names = {s["name"] for s in rust["skills"]}
            if "handoff" in select and ("greeting" in names or {"name": "greeting", "reason": "blocked:handoff"} not in rust["removed"]):
                failures.append(f"{locale} {select}: blocks did not apply last: {rust}")
            if "handoff" not in select and "greeting" not in names:
                failures.append(f"{locale} {select}: the always-on skill is missing: {rust}")
            french = "Dites bonjour." in rust["text"]
            if ("greeting" in names) and french != locale.startswith("fr"):
                failures.append(f"{locale} {select}: locale fallback gave the wrong greeting: {rust['text']!r}")
            if ("handoff" in names or "vault" in names) and "{{API_TOKEN}}" not in rust["text"]:
                failures.append(f"{locale} {select}: the secret placeholder was not kept: {rust['text']!r}")
        for locale in ("en", "fr-ca"):
            args = ["catalog", artifact, "--locale", locale]
            rust = skillc_json(skillc, args)
            mine = py.catalog(locale=locale, fmt="json")
            compared += 1
            if rust["text"] != mine["text"]:
                failures.append(f"python catalog {locale}: {mine['text']!r} != {rust['text']!r}")
            if ("Salue le visiteur." in rust["text"]) != (locale == "fr-ca"):
                failures.append(f"catalog {locale}: locale fallback: {rust['text']!r}")
        compared += plugins(skillc, Path(tmp), failures)
        compared += outside(skillc, Path(tmp), failures)
        compared += edited_rules(skillc, Path(tmp), failures)
    for f in failures:
        print("FAIL", f)
    print(f"{compared} requests compared, {len(failures)} failures")
    return 1 if failures or compared < len(REQUESTS) + 2 + len(PLUGIN_SELECTIONS) + 1 + 2 + len(RULES_MESSAGES) + 1 else 0


# Messages routed by edited rules: a word made a stopword, small talk, a long request, misspelt
# words (read as known ones from 3 letters to 6 by the edited rules: "demmo", "acount", not
# "chargbee").
RULES_MESSAGES = ["greetings and hello", "How much does the pro plan cost?", "thanks, have a nice day",
                  "compare you with Chargebee and book a demo, and tell me about pricing in the UK",
                  "a demmo with chargbee? my acount"]


# A message a consumer's catalog routes by the edited rules, and the consumer.
CONSUMER_MESSAGE = ("put together a quarterly report from these numbers", "answer.generator.strong")


def edited_rules(skillc, tmp, failures):
    """The sample's artifact with other routing rules: the Rust runtime (`skillc route`), the
    Python runtime and the TypeScript and Java command lines must route alike, by those rules
    (a route of the unedited artifact must differ, or the edit tested nothing)."""
    import sqlite3

    artifact = str(tmp / "edited-rules.db")
    subprocess.run([skillc, "build", str(ROOT / "skills"), "-o", artifact], capture_output=True, check=True)
    unedited = {m: skillc_json(skillc, ["route", artifact, m]) for m in RULES_MESSAGES}
    db = sqlite3.connect(artifact)
    rules = json.loads(db.execute("SELECT value FROM manifest WHERE key = 'routing_rules'").fetchone()[0])
    rules["stopwords"].append("greetings")
    rules["suffixes"].remove("ing")
    rules.update(k1=2.0, b=0.3, evidence_factor=0.2, max_words=3, lexical_share=0.35, small_talk_share=1.0,
                 talk_words_share=2.0, talk_words_from=-0.4, talk_words_lowers=0.9, talk_words_ends=False, tail_below=0.3, tail_words=2, hybrid_floor_base=0.2,
                 hybrid_floor_slope=0.01)
    rules["defaults"]["top_k"] = 2
    rules["spelling"] = {"min_letters": 3, "max_letters": 6}
    db.execute("UPDATE manifest SET value = ? WHERE key = 'routing_rules'", (json.dumps(rules),))
    db.commit()
    db.close()
    py = Artifact(artifact)
    changed = 0
    for m in RULES_MESSAGES:
        args = ["route", artifact, m, "--format", "json"]
        text = subprocess.run([skillc, *args], capture_output=True, text=True).stdout
        rust = json.loads(text)
        changed += rust != unedited[m]
        if py.route(m) != rust:
            failures.append(f"python route {m!r} by edited rules: {py.route(m)} != {rust}")
        compare_commands(args, text, f"route {m!r} by edited rules", failures)
    # A consumer's route: the first two by words are among the skills its catalog shows
    # (`pdf-press` is hidden from it and would take a place: `triage` would not follow).
    m, consumer = CONSUMER_MESSAGE
    args = ["route", artifact, m, "--consumer", consumer, "--format", "json"]
    text = subprocess.run([skillc, *args], capture_output=True, text=True).stdout
    rust = json.loads(text)
    if [c["name"] for c in rust["candidates"]] != ["bug-handler", "triage"]:
        failures.append(f"route {m!r} for {consumer} by edited rules: {rust['candidates']}")
    if py.route(m, consumer=consumer) != rust:
        failures.append(f"python route {m!r} for {consumer}: {py.route(m, consumer=consumer)} != {rust}")
    compare_commands(args, text, f"route {m!r} for {consumer} by edited rules", failures)
    if changed < len(RULES_MESSAGES) - 1:
        failures.append(f"edited routing rules changed {changed} of {len(RULES_MESSAGES)} routes")
    return len(RULES_MESSAGES) + 1


def outside(skillc, tmp, failures):
    """An outside repository's skills in every runtime: the catalog JSON names its repository
    and commit; a prompt selects it. Returns how many requests were compared."""
    repo, ws = tmp / "upstream", tmp / "outside-ws"
    (repo / "skills" / "pdf").mkdir(parents=True)
    (repo / "skills" / "pdf" / "SKILL.md").write_text("---\nname: pdf\ndescription: Fills PDF forms.\n---\nFill it.\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"], ["tag", "v1"]):
        subprocess.run(git + args, cwd=repo, check=True, capture_output=True)
    (ws / "own").mkdir(parents=True)
    (ws / "own" / "SKILL.md").write_text("---\nname: own\ndescription: Our own.\n---\nBody.\n")
    (ws / "workspace.yaml").write_text(
        f"external:\n  - {{ git: 'file://{repo}', rev: v1, path: skills, into: vendor/acme }}\n")
    subprocess.run([skillc, "fetch", str(ws)], check=True, capture_output=True)
    artifact = str(tmp / "outside.db")
    subprocess.run([skillc, "build", str(ws), "-o", artifact], check=True, capture_output=True)
    py = Artifact(artifact)
    compared = 0
    for args in (["catalog", artifact, "--format", "json"], ["prompt", artifact, "--select", "pdf", "--format", "json"]):
        text = subprocess.run([skillc, *args], capture_output=True, text=True).stdout
        rust = json.loads(text)
        mine = py.catalog(fmt="json") if args[0] == "catalog" else py.prompt(["pdf"])
        compared += 1
        for k in ("skills", "text"):
            if rust[k] != mine[k]:
                failures.append(f"python outside {args[0]} {k}: {mine[k]!r} != {rust[k]!r}")
        compare_commands(args, text, f"outside {args[0]}", failures)
        if args[0] == "catalog":
            pdf = next((s for s in rust["skills"] if s["name"] == "pdf"), {})
            commit = subprocess.run(["git", "rev-parse", "v1"], cwd=repo, capture_output=True, text=True).stdout.strip()
            if pdf.get("external", {}).get("commit") != commit or "external" in rust["skills"][0]:
                failures.append(f"outside catalog: {rust['skills']!r}")
    return compared


# Selections over the plugin-marketplace fixture and the names each must include.
PLUGIN_SELECTIONS = [
    (["run"], {"ci-kit:run"}),
    (["access"], set()),  # two plugins have `access`: neither is chosen
    (["discord:access", "status"], {"discord:access", "review-kit:status"}),
    (["review", "telegram:configure"], {"telegram:configure"}),
]


def plugins(skillc, tmp, failures):
    """The same requests over a marketplace in every runtime; returns how many were compared."""
    ws = ROOT / "tests" / "fixtures" / "plugin-marketplace" / "workspace"
    artifact = str(tmp / "plugins.db")
    subprocess.run([skillc, "build", str(ws), "-o", artifact], capture_output=True, check=True)
    py = Artifact(artifact)
    compared = 0
    for select, expected in PLUGIN_SELECTIONS:
        args = ["prompt", artifact, "--select", ",".join(select), "--format", "json"]
        text = subprocess.run([skillc, *args], capture_output=True, text=True).stdout
        rust = json.loads(text)
        mine = py.prompt(select)
        compared += 1
        for k in ("skills", "removed", "text"):
            if rust[k] != mine[k]:
                failures.append(f"python plugins {select} {k}: {mine[k]!r} != {rust[k]!r}")
        compare_commands(args, text, f"plugins {select}", failures)
        got = {s["name"] for s in rust["skills"]}
        if got != expected:
            failures.append(f"plugins {select}: selected {sorted(got)}, expected {sorted(expected)}")
    args = ["catalog", artifact, "--format", "json"]
    text = subprocess.run([skillc, *args], capture_output=True, text=True).stdout
    rust = json.loads(text)
    mine = py.catalog(fmt="json")
    compared += 1
    if rust["skills"] != mine["skills"]:
        failures.append(f"python plugins catalog: {mine['skills']!r} != {rust['skills']!r}")
    compare_commands(args, text, "plugins catalog", failures)
    review = next((s for s in rust["skills"] if s["name"] == "review-kit:review"), {})
    want = {"name": "review-kit", "version": "1.4.0", "description": "Code review helpers",
            "author": "Dev Experience"}
    if review.get("plugin") != want:
        failures.append(f"plugins catalog: review-kit:review's plugin is {review.get('plugin')!r}")
    return compared


if __name__ == "__main__":
    sys.exit(main())
