"""The training corpus of the regression-trained static table (REPORT.md section 5): sentences that
are NOT the labelled requests. Three parts:

1. sentences and list lines of SKILL.md files (descriptions and bodies, code blocks left out) of
   other public skill collections, read from git snapshots at pinned commits (SOURCES; the
   labelled catalog's own collection, sickn33/antigravity-awesome-skills, is not among them);
2. the labelled catalog's descriptions, whole and split into clauses (what the brief allows: the
   skills' own text, never a request);
3. generic English written here by templates: small talk, everyday life, thanks, arithmetic,
   weather, and everyday sentences that mention work, so the table learns where words of life sit
   in MiniLM's space.

Deterministic (seeded sampling, sorted inputs). Writes STUDY_CACHE/corpus.jsonl (source, sentence)
and prints counts. Snapshots: MIRROR (default /work/.mirror), `<owner>+<name>/repo`.

    python3 tests/quality/scale/study/corpus.py
"""

import json
import os
import random
import re
import subprocess
from pathlib import Path

import common

MIRROR = Path(os.environ.get("MIRROR", "/work/.mirror"))
# (repository, commit, at most this many sentences from it)
SOURCES = [
    ("anthropics/skills", "9d2f1ae187231d8199c64b5b762e1bdf2244733d", 3000),
    ("obra/superpowers", "44c9b2d6e889982ac18c27d05a19fefe335194e1", 2000),
    ("wshobson/agents", "367cb6a4a182cf7e9b0a17c9429f7411ddd9cf35", 7000),
    ("alirezarezvani/claude-skills", "7d493fed97e4d57553630e1a2432c1c02bf5b2b3", 7000),
    ("davila7/claude-code-templates", "c2b584d4b8493e98a885b1b9aabb0736bccfe7cf", 7000),
    ("jeremylongshore/claude-code-plugins-plus-skills", "22fc789350af7c18c233242da6f7b578dbf59fce", 7000),
    ("ComposioHQ/awesome-claude-skills", "f2b5e29bc315f04c8e09591ba275f4c4f7d4b8fe", 3000),
]
MIN_WORDS, MAX_WORDS = 3, 60


def git(repo, *args):
    d = MIRROR / (repo.replace("/", "+")) / "repo"
    return subprocess.run(["git", "-C", str(d), *args], check=True, capture_output=True).stdout


def clean(line):
    line = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", line)       # links, images → their text
    line = re.sub(r"https?://\S+", " ", line)
    line = re.sub(r"[`*_>#|]+", " ", line)
    line = re.sub(r"^\s*(?:[-+•]|\d+[.)])\s+", "", line)         # list markers
    line = re.sub(r"[✅❌⚠️🔴🟢🟡→]+", " ", line)
    return re.sub(r"\s+", " ", line).strip(" :-")


def sentences(text):
    """Sentences and list lines of a markdown text, code blocks and tables left out."""
    out, fence = [], False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or line.lstrip().startswith("|") or not line.strip():
            continue
        line = clean(line)
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'(])", line):
            s = s.strip()
            n = len(s.split())
            letters = sum(c.isalpha() for c in s)
            if MIN_WORDS <= n <= MAX_WORDS and letters >= 0.6 * len(s.replace(" ", "")):
                out.append(s)
    return out


def skill_texts(md):
    """(description, body) of a SKILL.md; the description is the front matter's."""
    if md.startswith("---"):
        parts = md.split("---", 2)
        if len(parts) == 3:
            fm, body = parts[1], parts[2]
            m = re.search(r"^description:\s*(.*?)(?=^\S|\Z)", fm, re.S | re.M)
            desc = ""
            if m:
                desc = re.sub(r"\s+", " ", m.group(1)).strip().strip("|>").strip().strip("'\"")
            return desc, body
    return "", md


def from_collections(rng):
    out = []
    for repo, commit, cap in SOURCES:
        files = [f for f in git(repo, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
                 if f.endswith("SKILL.md")]
        seen, sents = set(), []
        for f in sorted(files):
            md = git(repo, "show", f"{commit}:{f}").decode("utf-8", "replace")
            desc, body = skill_texts(md)
            for s in ([desc] if 3 <= len(desc.split()) <= 120 else []) + sentences(body):
                k = s.lower()
                if k not in seen:
                    seen.add(k)
                    sents.append(s)
        rng.shuffle(sents)
        out += [(repo, s) for s in sents[:cap]]
        print(f"{repo}: {len(files)} SKILL.md, {len(sents)} distinct sentences, {min(cap, len(sents))} kept")
    return out


def from_catalog():
    out = []
    for name, desc, wtu in common.catalog():
        text = common.summary(name, desc, wtu)
        out.append(text)
        for c in re.split(r"(?<=[.;:!?])\s+|\s+-\s+|\n", desc):
            c = c.strip()
            if len(c.split()) >= 2 and c != desc:
                out.append(c)
    return [("catalog", s) for s in dict.fromkeys(out)]


# Generic English, by templates. Word lists of everyday life (none taken from the labelled set).
PEOPLE = ["my mom", "my dad", "my sister", "my brother", "my wife", "my husband", "my kids", "my friend",
          "my neighbour", "my boss", "my roommate", "my grandma", "our dog", "the cat", "my colleague"]
PLACES = ["the beach", "the mountains", "Paris", "the lake", "my parents' house", "the gym", "the park",
          "the supermarket", "the dentist", "the cinema", "a wedding", "the airport", "a concert", "the office",
          "Tokyo", "the countryside", "a friend's birthday party", "the zoo", "the museum", "the library"]
TIMES = ["yesterday", "last weekend", "this morning", "tonight", "tomorrow", "on Friday", "next month",
         "over the holidays", "after lunch", "last summer", "every Sunday", "this evening"]
FOODS = ["pizza", "pasta", "sushi", "pancakes", "a curry", "soup", "tacos", "a salad", "lasagna", "a cake",
         "banana bread", "coffee", "tea", "ice cream", "a burger", "dumplings", "chocolate cookies"]
FEELINGS = ["tired", "happy", "bored", "stressed", "excited", "sad", "hungry", "sleepy", "nervous", "relaxed",
            "grumpy", "proud", "cold", "sick", "lonely", "great"]
THINGS = ["movie", "book", "song", "show", "game", "podcast", "album", "series", "novel", "band"]
ACTIVITIES = ["hiking", "swimming", "cooking", "reading", "running", "gardening", "painting", "fishing",
              "skiing", "dancing", "knitting", "cycling", "playing guitar", "baking", "camping", "yoga"]
WEATHER = ["rain", "snow", "be sunny", "be windy", "storm", "be hot", "be freezing", "be cloudy"]
WORKISH = ["laptop", "emails", "meeting", "inbox", "desk", "phone", "calendar", "keyboard", "printer", "wifi",
           "commute", "coffee machine", "office chair", "monitor", "password"]
TEMPLATES = [
    "I went to {place} {time} with {person}.", "{person} and I are going to {place} {time}.",
    "I feel {feeling} today.", "I'm so {feeling} {time}, lol.", "why am I always {feeling} on mondays?",
    "what should I cook for dinner, maybe {food}?", "I made {food} {time} and it was delicious.",
    "do you like {food}?", "can you recommend a good {thing} to watch or read?",
    "have you heard the new {thing} everyone is talking about?", "I just finished a great {thing}.",
    "do you think it will {weather} {time}?", "is it going to {weather} at {place} {time}?",
    "I love {activity}, it relaxes me.", "I started {activity} {time} and I'm hooked.",
    "{person} wants to try {activity} {time}.", "thanks a lot, that was really helpful!",
    "thank you so much, you saved my day", "hi there, how are you doing {time}?", "good morning!",
    "hello, nice to meet you", "bye, talk to you later", "haha that's funny", "ok cool, thanks",
    "sorry, never mind", "what time is it in {place}?", "how far is {place} from here?",
    "my {work} stopped working {time}, so annoying.", "I spilled coffee on my {work} {time}.",
    "back from {place}, {work} is a mess haha", "{person} called me {time} about {place}.",
    "what's the capital of France?", "who won the game {time}?", "tell me a joke about {thing}s",
    "I can't sleep, any tips?", "happy birthday to {person}!", "we adopted a puppy {time}!",
    "what's your favourite {thing}?", "I need a gift idea for {person}.", "I'm bored, entertain me.",
    "should I wear a jacket {time}?", "my flight to {place} got delayed {time}.",
    "I'm thinking about learning {activity}.", "{person} is visiting {time}, what should we do?",
    "it's so {feeling} here, I just want to go to {place}.", "wish me luck for {time}!",
    "what's a good name for a cat?", "how do you say hello in Spanish?", "I lost my keys again.",
    "the neighbours are having a party {time}.", "I'm running late for {place}.",
    "remind me why I agreed to go to {place} {time}", "do you ever get {feeling}?",
]
ARITH = ["what is {a} plus {b}?", "what's {a} times {b}", "how much is {a} minus {b}?", "{a} divided by {b}?",
         "is {a} bigger than {b}?", "what's {a} percent of {b}?"]


def from_templates(rng, n=4000):
    slots = dict(place=PLACES, time=TIMES, food=FOODS, feeling=FEELINGS, thing=THINGS, activity=ACTIVITIES,
                 weather=WEATHER, work=WORKISH, person=PEOPLE)
    out = set()
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        t = rng.choice(TEMPLATES) if rng.random() > 0.08 else rng.choice(ARITH)
        s = t.format(**{k: rng.choice(v) for k, v in slots.items()}, a=rng.randint(2, 999), b=rng.randint(2, 99))
        if rng.random() < 0.3:
            s = s.lower()
        if rng.random() < 0.25:  # two everyday sentences together, as people write
            s += " " + rng.choice(TEMPLATES).format(**{k: rng.choice(v) for k, v in slots.items()})
        out.add(s[0].upper() + s[1:] if rng.random() < 0.5 else s)
    return [("templates", s) for s in sorted(out)]


def build():
    rng = random.Random(48)
    rows = from_collections(rng) + from_catalog() + from_templates(rng)
    requests = {m.strip().lower() for _, m in common.labelled()[0]}
    rows = [(src, s) for src, s in rows if s.strip().lower() not in requests]
    common.CACHE.mkdir(parents=True, exist_ok=True)
    (common.CACHE / "corpus.jsonl").write_text("".join(json.dumps([src, s]) + "\n" for src, s in rows))
    return rows


def load():
    f = common.CACHE / "corpus.jsonl"
    rows = [json.loads(l) for l in f.read_text().splitlines()] if f.exists() else build()
    return [(a, b) for a, b in rows]


if __name__ == "__main__":
    rows = build()
    by = {}
    for src, _ in rows:
        by[src] = by.get(src, 0) + 1
    print("\n| source | sentences |\n|---|---|")
    for k, v in by.items():
        print(f"| {k} | {v} |")
    print(f"| all | {len(rows)} |")
    words = [len(s.split()) for _, s in rows]
    print(f"\nwords per sentence: median {sorted(words)[len(words) // 2]}, mean {sum(words) / len(words):.1f}")
