"""A skillc runtime in Python, with only the standard library (sqlite3, json, zlib, re).

It reads an artifact built by `skillc build` and answers the same questions as the Rust
runtime: the catalog of a bundle and the prompt for a selection. It is an example of
how little a runtime needs once the compiler has resolved everything: no YAML, no rules beyond
the run-time ones. CI checks that it gives the same catalog text and the same final skill list
as the Rust runtime (tests/parity/python_runtime_parity.py).

    rt = Artifact("out.db")
    cat = rt.catalog(client="example.com", context={"page_url": "/en-gb/x"}, fmt="markdown")
    prompt = rt.prompt(client="example.com", select=["SK1", "pricing"], context={"turn": "2"})

A new artifact renamed over the path is served from the next call on: each call compares the
path's file (device, inode, size, modification time: one stat) with the one opened, whose
connection keeps it readable until it is replaced.

Opened with a public key (`Artifact("out.db", public_key="skillc.pub")`, minisign's format),
the runtime serves only an artifact whose signature `out.db.minisig` it verified, on open and
on every swap; a swap that fails keeps the previous artifact in service and says why in
`refused`. What it serves is the bytes it verified: the file is read once, checked, and
answered from an in-memory copy of exactly those bytes (Python 3.11's `deserialize`; before
3.11, a private temporary copy), so a write into the file in place is never served. Checking
needs Ed25519, which the standard library lacks: the `cryptography`
package (PyCA's, maintained, with wheels for every platform) is imported then, and only then.
"""

import json
import os
import re
import stat
import sqlite3
import threading
import zlib
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple, Union

SCHEMA_VERSION = 13


# The most clients an error names (a workspace of 500 clients named them all, 10 KB).
CLIENTS_NAMED = 20


def name_clients(asked: str, clients) -> str:
    """The clients an error about `asked` names: all of them, or past `CLIENTS_NAMED` the
    nearest to `asked` by edit distance (then by name), in name order, and how many there
    are (the Rust runtime's `name_clients`)."""
    ordered = sorted(clients)
    if len(ordered) <= CLIENTS_NAMED:
        return f"clients: {', '.join(ordered)}"
    nearest = sorted(sorted((_edit_distance(asked, c), c) for c in ordered)[:CLIENTS_NAMED], key=lambda dc: dc[1])
    return f"clients (the {CLIENTS_NAMED} nearest of {len(ordered)}): {', '.join(c for _, c in nearest)}"


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein's distance between `a` and `b`, by characters (code points)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a):
        diagonal, row[0] = row[0], i + 1
        for j, cb in enumerate(b):
            substituted = diagonal + (ca != cb)
            diagonal = row[j + 1]
            row[j + 1] = min(substituted, row[j] + 1, diagonal + 1)
    return row[-1]


class RequestError(Exception):
    """The request names a bundle, consumer or skill that was not built."""


from . import _meaning  # noqa: E402,F401
from ._meaning import _cosine, _norm  # noqa: E402,F401
from ._words import RoutingRules, route_tokens  # noqa: E402,F401
from ._route import Routing, evidence_scale, hybrid_floor, raised_floor, talk_words  # noqa: E402,F401
from .signature import (  # noqa: E402,F401
    SignatureError, read_public_key, read_regular, signature_path, verify_bytes, verify_file,
)


def _path_of(url):
    if "://" in url:
        rest = url.split("://", 1)[1]
        m = re.search(r"[/?#]", rest)
        if not m or rest[m.start()] != "/":
            return "/"
        url = rest[m.start():]
    return re.split(r"[?#]", url, maxsplit=1)[0]


def _starts_at_boundary(text, prefix):
    p = prefix.rstrip("/")
    if not p:
        return True
    if not text.startswith(p):
        return False
    rest = text[len(p):]
    return rest == "" or rest[0] in "/?#"


def _prefix_matches(url, prefix):
    if prefix.startswith("/"):
        return _starts_at_boundary(_path_of(url), prefix)
    return _starts_at_boundary(url, prefix)


def condition_holds(cond: Dict[str, Any], ctx: Dict[str, Any]) -> bool:
    """One stored condition against a context dict; a missing value fails (fail-closed)."""
    (kind, value), = cond.items()
    url = ctx.get("page_url")
    if kind in ("starts_with_any", "does_not_start_with_any"):
        if url is None:
            return False
        hit = any(_prefix_matches(url, p) for p in value)
        return hit if kind == "starts_with_any" else not hit
    if kind in ("page_url_matches", "page_url_not_matches"):
        if url is None:
            return False
        hit = re.search(value, url) is not None
        return hit if kind == "page_url_matches" else not hit
    if kind == "availability":
        return ctx.get(value["skill"] + "_availability") == value["value"]
    if kind == "turn_at_least":
        turn = ctx.get("turn")
        return turn is not None and int(turn) >= value
    if kind == "context_has":
        return bool(ctx.get(value))
    return kind == "conversation_language"


def _inflate(encoding, data):
    return zlib.decompress(data) if encoding == "zlib" else bytes(data)


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _in_memory(data):
    """A read-only connection to a database made of `data`. Python 3.11 and later deserialize
    it into memory; earlier ones open a private copy (mode 0600, made by this process) whose
    name is removed once it is open, where the system allows it."""
    if hasattr(sqlite3.Connection, "deserialize"):
        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.deserialize(data)
        db.execute("PRAGMA query_only = 1")
        return db
    import tempfile
    fd, name = tempfile.mkstemp(prefix="skillc-verified-", suffix=".db")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        db = sqlite3.connect(f"file:{name}?mode=ro", uri=True, check_same_thread=False)
        db.execute("PRAGMA user_version").fetchone()  # the file is open from here on
    finally:
        try:
            os.unlink(name)
        except OSError:  # Windows: an open file keeps its name until it is closed
            import atexit
            atexit.register(lambda: os.path.exists(name) and os.unlink(name))
    return db


# How many bundles an artifact keeps loaded unless told otherwise (`max_bundles`): a process
# serving many clients would otherwise hold every bundle it ever loaded (about 13 MB each with
# its routing index in this runtime, on the reference workload's 1,000-skill catalogs: 150
# clients held 2.0 GB, 0.9 GB with the bound).
DEFAULT_MAX_BUNDLES = 64


class Artifact(Routing):
    def __init__(self, path: str, public_key: Union[str, Tuple[bytes, bytes], None] = None,
                 max_bundles: int = DEFAULT_MAX_BUNDLES) -> None:
        self.path = path
        # With a key: the signature file's stamp too, so that a new signature is tried again.
        self._key = read_public_key(public_key) if isinstance(public_key, str) else public_key
        # Taken before opening: a swap in between is seen, and reopened, by the next call. The
        # open connection keeps its file's inode, so no later file can carry the same stamp.
        self._stamp = self._stamps()
        self.refused = None  # why the file now at the path is not served, if it could not be opened
        self._refused_stamp = None
        # One connection, shared by threads: every public call holds the lock, so a call reads
        # one file from start to end, even when another thread's call follows a swap.
        self._lock = threading.RLock()
        if self._key is None:
            # SQLite would wait forever opening a named pipe: only a regular file is opened.
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError:
                regular = True  # nothing there: SQLite says so
            if not regular:
                raise ValueError(f"cannot open artifact {path}: it is not a regular file (a named pipe, a device or a folder)")
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        else:
            self.db = _in_memory(self._verified())
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_schema WHERE type='table'")}
        if "manifest" not in tables:
            raise ValueError(f"{path} is not a skillc artifact")
        if version != SCHEMA_VERSION:
            raise ValueError(f"{path} has schema version {version}, expected {SCHEMA_VERSION}")
        self.manifest = dict(self.db.execute("SELECT key, value FROM manifest"))
        for key in ("schema_version", "default_locale", "default_tier", "locales", "tiers"):
            if key not in self.manifest:
                raise ValueError(f"{path} is not a readable skillc artifact: its manifest has no {key!r} (the file is damaged)")
        # Routing's words and constants (docs/artifact.md); None in an artifact built before
        # the build wrote them, which then cannot be routed (`routing_rules`).
        self._rules = RoutingRules(self.manifest["routing_rules"]) if "routing_rules" in self.manifest else None
        # The label of `skillc build --release-label`, or None.
        self.release = self.manifest.get("release")
        self.categories = {
            r[0]: {"position": r[1], "catalog_header": r[2], "prompt_heading": r[3], "uncertainty": r[4]}
            for r in self.db.execute(
                "SELECT id, position, catalog_header, prompt_heading, uncertainty FROM category")
        }
        self.consumers: Dict[str, set] = {r[0]: set() for r in self.db.execute("SELECT name FROM consumer")}
        for c, q in self.db.execute("SELECT consumer, qualified_name FROM consumer_hidden"):
            self.consumers[c].add(q)
        self.sources = {
            r[0]: {"sid": r[0], "url": r[1], "title": r[2], "fragment": r[3]}
            for r in self.db.execute("SELECT sid, url, title, fragment FROM source")
        }
        # Loaded bundles, the least recently used first; each holds its texts, routing index
        # and catalogs' positions.
        self._bundles: "OrderedDict[int, Dict[str, Any]]" = OrderedDict()
        self._max_bundles = max_bundles

    @property
    def max_bundles(self) -> int:
        """How many bundles this artifact keeps loaded at most (0: none); setting it lets go of
        the least recently used beyond it now. A bundle let go loads again on its next request."""
        return self._max_bundles

    @max_bundles.setter
    def max_bundles(self, value: int) -> None:
        with self._lock:
            self._max_bundles = value
            self._trim()

    def _trim(self) -> None:
        while len(self._bundles) > max(self._max_bundles, 0):
            self._bundles.popitem(last=False)

    def unload(self, client: Optional[str] = None, locale: Optional[str] = None,
               tier: Optional[str] = None) -> None:
        """Lets go of what this artifact keeps of a bundle; a later request loads it again."""
        with self._lock:
            self._follow()
            self._bundles.pop(self._bundle_row(client, locale, tier)[0], None)

    def _stamps(self):
        if self._key is None:
            return _stamp(self.path)
        return (_stamp(self.path), _stamp(signature_path(self.path)))

    def _verified(self):
        """The bytes of the file at the path, read once, whose signature verified: what is
        served is exactly them, so a later write into the file (same inode) is never served."""
        try:
            data = read_regular(self.path)
        except OSError as e:
            raise SignatureError(f"cannot read {self.path}: {e}") from None
        verify_bytes(data, self.path, self._key)
        return data

    def _follow(self):
        """Serves from a new file renamed over the path; a file that cannot be opened leaves
        this one in service (and says why in `refused`)."""
        now = self._stamps()
        path_now = now[0] if self._key is not None else now
        if path_now is None or now == self._stamp or now == self._refused_stamp:
            return
        try:
            fresh = Artifact(self.path, self._key)
        except (ValueError, sqlite3.Error) as e:
            self.refused, self._refused_stamp = str(e), now
            return
        self.db.close()
        lock = self._lock
        # What was read of the old file's manifest goes with it.
        for kept in ("_plugins", "_external", "_meaning_table", "_small_talk_vectors", "_talk_word_weights",
                     "_glossary_bytes", "_glossary_probes"):
            self.__dict__.pop(kept, None)
        max_bundles = self._max_bundles
        self.__dict__.update(fresh.__dict__)
        self._lock, self._max_bundles = lock, max_bundles

    # -- bundles ---------------------------------------------------------------------------

    def bundle(self, client: Optional[str] = None, locale: Optional[str] = None,
               tier: Optional[str] = None) -> Dict[str, Any]:
        # Under the lock: another thread may let the bundle go between a look and a read.
        with self._lock:
            row = self._bundle_row(client, locale, tier)
            kept = self._bundles
            if row[0] in kept:
                kept.move_to_end(row[0])
                return kept[row[0]]
            b = kept[row[0]] = self._load(*row)
            self._trim()
            return b

    def _bundle_row(self, client, locale, tier):
        """The `bundle` row (id, base, catalog_level) of a request; a RequestError when none
        was built."""
        client = client or ""
        locale = locale or self.manifest["default_locale"]
        tier = tier or self.manifest["default_tier"]
        row = self.db.execute(
            "SELECT id, base, catalog_level FROM bundle WHERE client=? AND locale=? AND tier=?",
            (client, locale, tier)).fetchone()
        if row is None:
            raise RequestError(self._not_built(client, locale, tier))
        return row

    def _not_built(self, client: str, locale: str, tier: str) -> str:
        """Why no bundle was built for `client`, `locale` and `tier`, naming what exists (in
        the Rust runtime's words)."""
        built = self.db.execute("SELECT client, locale, tier FROM bundle").fetchall()
        of_client = [(c, lo, t) for c, lo, t in built if c == client]
        who = "the global bundle" if client == "" else f"client `{client}`"
        if not of_client:
            return f"unknown client `{client}`; {name_clients(client, {c for c, _, _ in built if c})}"
        if not any(lo == locale for _, lo, _ in of_client):
            return f"no bundle for locale `{locale}` of {who}; its locales: {', '.join(sorted({lo for _, lo, _ in of_client}))}"
        return f"no bundle for tier `{tier}` of {who}; its tiers: {', '.join(sorted({t for _, _, t in of_client}))}"

    def _slots(self, bundle_id, base):
        """A bundle's entries as a JSON list, the names the build turned off for it, and the
        entries it also finds by their plain name: its own slots over its base's
        (`slot_list.slots` holds `[name, entry]`, `[name, entry, 1]` for a plain name and
        `[name, null, reason]` lists; a reason is stored as `code: words`)."""
        slots = {}
        for b in (base, bundle_id):
            if b is not None:
                (packed,) = self.db.execute(
                    "SELECT l.slots FROM bundle b JOIN slot_list l ON l.id = b.slots WHERE b.id = ?",
                    (b,)).fetchone()
                for slot in json.loads(packed):
                    slots[slot[0]] = slot[1:]
        entries = json.dumps(sorted(s[0] for s in slots.values() if s[0] is not None))
        plain = {s[0] for s in slots.values() if s[0] is not None and s[1:] == [1]}
        disabled = set()
        for name, slot in slots.items():
            if slot[0] is None and len(slot) > 1:
                (text,) = self.db.execute("SELECT text FROM reason WHERE id = ?", (slot[1],)).fetchone()
                if text.startswith("disabled: "):
                    (q,) = self.db.execute("SELECT qualified_name FROM name WHERE id = ?", (name,)).fetchone()
                    disabled.update((q, q.rsplit(".", 1)[-1]))
        return entries, disabled, plain

    def _load(self, bundle_id, base, level):
        entries, disabled, plain = self._slots(bundle_id, base)
        args = {"entries": entries, "level": level}
        skills = []
        for (name, qname, resolved, category, sort_key, visible, always_on, unavailable,
             prefix, has_body, suffix, record, description, triggers, body, card, entry) in self.db.execute(
                "SELECT e.name, e.qualified_name, e.resolved_name, e.category, e.sort_key, "
                "e.catalog_visible, e.always_on, e.unavailable, e.prompt_prefix, e.prompt_body, "
                "e.prompt_suffix, e.record, c.description, c.triggers, e.body, e.card, e.id "
                "FROM entry e JOIN card c ON c.id = e.card "
                "WHERE e.id IN (SELECT value FROM json_each(:entries))", args):
            skills.append({
                "sort_key": sort_key, "name": name, "qualified_name": qname, "resolved": resolved,
                "category": category, "visible": bool(visible), "always_on": bool(always_on),
                "unavailable": unavailable, "prefix": prefix, "has_body": bool(has_body),
                "suffix": suffix, "raw_record": record, "description": description,
                "triggers": json.loads(triggers), "fragments": {}, "body_hash": body, "card": card,
                "plain": entry in plain,
            })
        skills.sort(key=lambda s: s["sort_key"])
        for s in skills:
            # Records are parsed only where a request needs them: conditions are rare.
            raw = s.pop("raw_record")
            s["record"] = json.loads(raw) if '"conditions"' in raw or '"always_on"' in raw else None
            s["raw_record"] = raw
        by_name = {s["qualified_name"]: i for i, s in enumerate(skills)}
        for i, s in enumerate(skills):
            by_name.setdefault(s["name"], i)
        # A plugin's skill (`plugin:skill`) found by its plain name in this bundle, as the
        # build decided.
        by_name.update((s["name"].split(":", 1)[1], i) for i, s in enumerate(skills) if s["plain"])
        return {"skills": skills, "by_name": by_name, "disabled": disabled, "args": args,
                "formats": set()}

    def _fragments(self, b, fmt):
        """Loads one format's catalog texts for a bundle, on first use."""
        if fmt in b["formats"]:
            return
        by_card = {}
        for s in b["skills"]:
            by_card.setdefault(s["card"], []).append(s)
        level = b["args"]["level"]
        for card, lvl, text in self.db.execute(
                "SELECT f.card, f.level, f.text FROM card_fragment f "
                "WHERE f.card IN (SELECT e.card FROM entry e "
                "                 WHERE e.id IN (SELECT value FROM json_each(:entries))) "
                "AND f.format = :format AND f.level IN ('', :level)", dict(b["args"], format=fmt)):
            for s in by_card.get(card, []):
                if lvl == level or fmt not in s["fragments"]:
                    s["fragments"][fmt] = text
        b["formats"].add(fmt)

    def _body(self, skill):
        """The body, read and inflated on first use."""
        if "body" not in skill:
            encoding, data = self.db.execute(
                "SELECT encoding, data FROM blob WHERE hash = ?", (skill["body_hash"],)).fetchone()
            skill["body"] = _inflate(encoding, data).decode("utf-8")
        return skill["body"]

    def _hidden(self, consumer):
        if consumer is None:
            return set()
        if consumer not in self.consumers:
            raise RequestError(f"unknown consumer {consumer!r}")
        return self.consumers[consumer]

    @staticmethod
    def _rec(skill):
        if skill["record"] is None:
            skill["record"] = json.loads(skill["raw_record"])
        return skill["record"]

    def _holds(self, skill, ctx):
        if skill["record"] is None:  # no conditions in its record
            return True
        return all(condition_holds(c, ctx) for c in skill["record"].get("conditions", []))

    def _members(self, b, consumer, ctx):
        hidden = self._hidden(consumer)
        return [i for i, s in enumerate(b["skills"])
                if s["visible"] and s["qualified_name"] not in hidden and self._holds(s, ctx)]

    # -- catalog ---------------------------------------------------------------------------

    def plugin_of(self, name: str) -> Optional[Dict[str, Any]]:
        """The Claude Code plugin a skill named `<plugin>:<skill>` comes from (manifest
        `plugins`): a dict of name, version, description and author, or None."""
        if ":" not in name or "plugins" not in self.manifest:
            return None
        plugin = name.split(":", 1)[0]
        if "_plugins" not in self.__dict__:
            self._plugins = json.loads(self.manifest["plugins"])
        about = self._plugins.get(plugin)
        if about is None:
            return None
        return {"name": plugin, "version": about.get("version"),
                "description": about.get("description"), "author": about.get("author")}

    def external_of(self, location: str) -> Optional[Dict[str, Any]]:
        """The outside repository (manifest `external`) the skill whose SKILL.md is at
        `location` comes from: a dict of into, git, rev, commit and trusted, or None."""
        if "_external" not in self.__dict__:
            self._external = json.loads(self.manifest.get("external", "{}"))
        for into, about in self._external.items():
            if location.startswith(into + "/"):
                return {"into": into, "git": about.get("git", ""), "rev": about.get("rev", ""),
                        "commit": about.get("commit", ""), "trusted": bool(about.get("trusted"))}
        return None

    def catalog(self, client: Optional[str] = None, locale: Optional[str] = None, tier: Optional[str] = None,
                consumer: Optional[str] = None, context: Optional[Dict[str, Any]] = None,
                fmt: str = "markdown") -> Dict[str, Any]:
        with self._lock:
            self._follow()
            return self._catalog(client, locale, tier, consumer, context or {}, fmt)

    def _catalog(self, client, locale, tier, consumer, ctx, fmt):
        b = self.bundle(client, locale, tier)
        members = self._members(b, consumer, ctx)
        max_triggers = int(self.manifest.get("max_triggers", "5"))
        stored = {"json": "markdown"}.get(fmt, fmt)
        self._fragments(b, stored)
        skills = [{
            "id": f"SK{n + 1}", "name": b["skills"][i]["name"],
            "qualified_name": b["skills"][i]["qualified_name"],
            "category": b["skills"][i]["category"],
            "description": b["skills"][i]["description"],
            "triggers": b["skills"][i]["triggers"][:max_triggers],
        } for n, i in enumerate(members)]
        for s, i in zip(skills, members):
            plugin = self.plugin_of(s["name"])
            if plugin is not None:
                s["plugin"] = plugin
            if "external" in self.manifest:
                location = json.loads(b["skills"][i]["raw_record"]).get("resolved_file", "")
                external = self.external_of(location)
                if external is not None:
                    s["external"] = external
        frag = lambda i: b["skills"][i]["fragments"].get(stored, "")
        if fmt == "xml":
            text = "<available_skills>\n" + "".join(frag(i) for i in members) + "</available_skills>"
        elif fmt == "list":
            text = "".join(frag(i) for i in members)
        elif fmt == "markdown":
            text, current = "", None
            for n, i in enumerate(members):
                cat = b["skills"][i]["category"]
                if cat != current:
                    if current is not None:
                        text += "\n"
                    if cat in self.categories:
                        text += self.categories[cat]["catalog_header"]
                    current = cat
                text += f"| SK{n + 1} " + frag(i)
        else:
            text = json.dumps([{k: s[k] for k in ("id", "name", "description", "triggers")} for s in skills],
                              separators=(",", ":"), ensure_ascii=False)
        return {"release": self.release, "client": client or None, "locale": locale or self.manifest["default_locale"],
                "tier": tier or self.manifest["default_tier"], "consumer": consumer,
                "skills": skills, "text": text}

    # -- prompt ------------------------------------------------------------------------

    def prompt(self, select: List[str], client: Optional[str] = None, locale: Optional[str] = None,
               tier: Optional[str] = None, consumer: Optional[str] = None,
               context: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        with self._lock:
            self._follow()
            return self._prompt(select, client, locale, tier, consumer, context or {})

    def _prompt(self, select, client, locale, tier, consumer, ctx):
        b = self.bundle(client, locale, tier)
        skills, hidden = b["skills"], self._hidden(consumer)
        catalog = self._members(b, consumer, ctx)
        order, reason, removed = [], {}, []

        def add(i, why):
            if i not in reason:
                order.append(i)
                reason[i] = why

        def remove(i, why):
            if i in reason:
                del reason[i]
                order.remove(i)
                removed.append({"name": skills[i]["name"], "reason": why})

        def usable(i):
            if skills[i]["unavailable"]:
                return "unavailable"
            return None if self._holds(skills[i], ctx) else "condition"

        def find(name):
            name = name.strip()
            if name.startswith("skills."):
                name = name[len("skills."):]
            return b["by_name"].get(name)

        # 1. unknown, hidden, conditions
        picked = []
        for name in select:
            m = re.fullmatch(r"SK(\d+)", name)
            i = (catalog[int(m.group(1)) - 1] if m and 0 < int(m.group(1)) <= len(catalog) else None) if m else find(name)
            if i is None:
                # A skill the build turned off for this client is `disabled`, not unknown.
                bare = name.strip().removeprefix("skills.")
                removed.append({"name": name, "reason": "disabled" if bare in b["disabled"] else "unknown"})
                continue
            s = skills[i]
            if not s["visible"] or s["qualified_name"] in hidden:
                removed.append({"name": s["name"], "reason": "hidden"})
            elif usable(i):
                removed.append({"name": s["name"], "reason": usable(i)})
            elif i not in picked:
                picked.append(i)
        # 2. cap
        cap = int(self.manifest["max_active_skills"]) if self.manifest.get("max_active_skills") else None
        for n, i in enumerate(picked):
            if cap is None or n < cap:
                add(i, "selected")
            else:
                removed.append({"name": skills[i]["name"], "reason": "max_active"})
        # 3. dependencies, augments (both ways), imports
        index = {s["qualified_name"]: i for i, s in enumerate(skills)}
        tried = set()
        while True:
            additions = []
            for i in order:
                s, rec = skills[i], self._rec(skills[i])
                for key, label in (("dependencies", "dependency"), ("augments", "augments"), ("imports", "import")):
                    for q in rec.get(key, []):
                        if q in index:
                            additions.append((index[q], f"{label}:{s['name']}"))
                for j, other in enumerate(skills):
                    if s["qualified_name"] in self._rec(other).get("augments", []):
                        additions.append((j, f"augments:{s['name']}"))
            changed = False
            for j, why in additions:
                if j in reason or (j, why) in tried:
                    continue
                tried.add((j, why))
                err = usable(j)
                if err is None:
                    add(j, why)
                    changed = True
                elif not any(r["name"] == skills[j]["name"] for r in removed):
                    removed.append({"name": skills[j]["name"], "reason": err})
            if not changed:
                break
        # 4. priority / exclusive, strongest first
        excl = sorted((i for i in order if self._rec(skills[i]).get("exclusive")
                       and self._rec(skills[i]).get("priority") is not None),
                      key=lambda i: (self._rec(skills[i])["priority"], i))
        for x in excl:
            if x not in reason:
                continue
            cat, p = skills[x]["category"], self._rec(skills[x])["priority"]
            for i in [i for i in order if i != x and skills[i]["category"] == cat
                      and self._rec(skills[i]).get("priority") is not None
                      and self._rec(skills[i])["priority"] > p]:
                remove(i, f"excluded:{skills[x]['name']}")
        # 5. always-on
        for i, s in enumerate(skills):
            if s["always_on"] and not s["unavailable"] and self._holds(s, ctx):
                add(i, "always_on")
        # 6. blocks, last
        blocked = [(index[q], skills[i]["name"]) for i in order
                   for q in self._rec(skills[i]).get("blocks", []) if q in index]
        for j, by in blocked:
            remove(j, f"blocked:{by}")
        # 7. assemble
        pos = lambda i: self.categories.get(skills[i]["category"], {}).get("position", 2 ** 63 - 1)
        included = sorted(order, key=lambda i: (pos(i), i))
        text, cited, k = "", set(), 0
        while k < len(included):
            cat = skills[included[k]]["category"]
            group = []
            for i in included[k:]:
                if skills[i]["category"] != cat:
                    break
                group.append(i)
            if cat in self.categories:
                text += self.categories[cat]["prompt_heading"]
                if len(group) > 1:
                    text += self.categories[cat]["uncertainty"]
            for i in group:
                s = skills[i]
                text += s["prefix"] + (self._body(s) if s["has_body"] else "") + s["suffix"]
                cited.update(self._rec(s).get("cited", []))
            k += len(group)
        sources = []
        if cited:
            text += "## Sources\n\n"
            for sid in sorted(cited):
                if sid in self.sources:
                    text += self.sources[sid]["fragment"]
                    sources.append({k: self.sources[sid][k] for k in ("sid", "url", "title")})
        # Each skill's final state, once: in if it was brought back; else its first removal.
        names_in, final_removed = {skills[i]["name"] for i in included}, []
        for r in removed:
            if r["name"] not in names_in and all(f["name"] != r["name"] for f in final_removed):
                final_removed.append(r)
        return {
            "skills": [{"name": skills[i]["name"], "resolved": skills[i]["resolved"], "reason": reason[i]}
                       for i in included],
            "removed": final_removed,
            "sources": sources,
            "text": text.rstrip() + "\n",
        }


from . import _history  # noqa: E402
from ._history import fragment_signals, join_fragment  # noqa: E402,F401
