#!/usr/bin/env python3
"""`skillc mcp` speaks the MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640).

Driven over stdio with plain JSON-RPC lines, as a host that implements the extension would:
- the server declares the extension (and the `resources` capability it depends on);
- `skills/list` gives one entry per skill of the served catalog, each `skill://<name>/SKILL.md`
  with the frontmatter of that SKILL.md verbatim and every file with its `sha256:` digest and
  size, plus the cache fields;
- `resources/read` of every listed file gives exactly the listed bytes;
- `skills/get` gives the same entry by uri, and -32602 for a uri it does not serve;
- an artifact renamed over the served one is served from the next call, digests included;
- bad tool input is a tool result with `isError: true` in the CLI's words (SEP-1303), a
  malformed request a protocol error, and every request with an id is answered.

Usage: skills_extension.py SKILLC WORKSPACE
"""

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

CLIENT = "hyperline.co"
EXTENSION = "io.modelcontextprotocol/skills"
FAILURES = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f"\n     {detail}"))
    if not ok:
        FAILURES.append(what)


class Server:
    def __init__(self, skillc, artifact):
        self.p = subprocess.Popen([skillc, "mcp", str(artifact), "--client", CLIENT], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.next_id = 0

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.p.stdin.write(json.dumps(message) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"the server closed its output answering {method}")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                return answer

    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def read_bytes(server, uri):
    contents = server.request("resources/read", {"uri": uri})["result"]["contents"][0]
    if "blob" in contents:
        return base64.b64decode(contents["blob"])
    return contents["text"].encode()


def frontmatter_of(skill_md):
    text = skill_md.decode()
    head = text.split("---\n", 2)[1]
    return yaml.safe_load(head)


def main():
    skillc, workspace = sys.argv[1], Path(sys.argv[2])
    tmp = Path(tempfile.mkdtemp())
    try:
        live, other = tmp / "live.db", tmp / "other.db"
        subprocess.run([skillc, "build", str(workspace), "-o", str(live)], check=True, capture_output=True)
        server = Server(skillc, live)
        init = server.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                             "clientInfo": {"name": "skills-extension-test", "version": "1"}})
        capabilities = init["result"]["capabilities"]
        check("the server declares the Skills extension",
              capabilities.get("extensions", {}).get(EXTENSION) == {}, capabilities)
        check("and the resources capability it depends on", "resources" in capabilities, capabilities)
        server.notify("notifications/initialized")

        listed = server.request("skills/list", {})["result"]
        skills = listed["skills"]
        # ttlMs and cacheScope are SEP-2549's, defined from protocol 2026-07-28: a client of
        # 2025-11-25 gets neither (tests/mcp_skills.rs checks that a 2026-07-28 client gets both).
        check("the listing carries no cache fields for a 2025-11-25 client",
              "ttlMs" not in listed and "cacheScope" not in listed,
              {k: v for k, v in listed.items() if k != "skills"})
        catalog = json.loads(subprocess.run([skillc, "catalog", str(live), "--client", CLIENT, "--format", "json"],
                                            capture_output=True, text=True, check=True).stdout)
        # Entries are named portably (as `skillc export` names folders); the catalog's own name
        # is kept in metadata when it differs. Every skill the catalog shows has one.
        original = {s["frontmatter"].get("metadata", {}).get("original-name", s["frontmatter"]["name"]) for s in skills}
        missing = sorted(s["name"] for s in catalog["skills"] if s["name"] not in original)
        check("an entry for every skill of the served catalog", not missing and len(skills) >= len(catalog["skills"]),
              missing)
        wrong_uri = [s["uri"] for s in skills if s["uri"] != f"skill://{s['frontmatter']['name']}/SKILL.md"]
        check("each entry's uri is skill://<name>/SKILL.md", not wrong_uri, wrong_uri)
        files = mismatched = 0
        without = [s["uri"] for s in skills if s["uri"] not in [r["uri"] for r in s["resources"]]]
        check("each entry lists its SKILL.md among its files", not without, without)
        for s in skills:
            for r in s["resources"]:
                data = read_bytes(server, r["uri"])
                files += 1
                if r["digest"] != "sha256:" + hashlib.sha256(data).hexdigest() or r["size"] != len(data):
                    mismatched += 1
                    print(f"     {r['uri']}: listed {r['digest']} {r['size']}, read {len(data)} bytes")
            skill_md = read_bytes(server, s["uri"])
            if frontmatter_of(skill_md) != s["frontmatter"]:
                mismatched += 1
                print(f"     {s['uri']}: frontmatter {s['frontmatter']} against the file's")
        check(f"every listed file ({files}) reads as exactly its digest and size, and each "
              "frontmatter is its SKILL.md's", files > len(skills) and mismatched == 0, mismatched)

        pricing = next(s for s in skills if s["frontmatter"]["name"] == "pricing")
        got = server.request("skills/get", {"uri": pricing["uri"]})["result"]
        check("skills/get gives the listed entry", got["skill"] == pricing and "ttlMs" not in got, got)
        unknown = server.request("skills/get", {"uri": "skill://nope/SKILL.md"})
        check("skills/get of a skill not served is -32602", unknown.get("error", {}).get("code") == -32602, unknown)

        # Bad tool input is a tool result the model can read; a malformed request a protocol error.
        bad = server.request("tools/call", {"name": "load_skills", "arguments": {"names": [1]}})
        result = bad.get("result", {})
        check("bad tool input is isError: true in the CLI's words",
              result.get("isError") is True and "`names` must be a list" in result["content"][0]["text"], bad)
        bad = server.request("tools/call", {"name": "skills_catalog", "arguments": {"context": {"turn": "soon"}}})
        result = bad.get("result", {})
        check("a context value of the wrong type is isError: true", result.get("isError") is True, bad)
        unknown = server.request("tools/call", {"name": "no_such_tool", "arguments": {}})
        check("an unknown tool is a protocol error", "error" in unknown, unknown)
        odd = server.request("skills/get", {})
        check("a request without its params is answered with an error", "error" in odd, odd)

        # A build renamed over the served artifact is served from the next call, digests too.
        edited = tmp / "ws"
        shutil.copytree(workspace, edited, ignore=shutil.ignore_patterns(".skillc"))
        md = next(edited.glob("public/**/pricing/SKILL.md"))
        md.write_text(md.read_text() + "\nA line added after the first build.\n")
        subprocess.run([skillc, "build", str(edited), "-o", str(other)], check=True, capture_output=True)
        other.replace(live)
        again = server.request("skills/get", {"uri": pricing["uri"]})["result"]["skill"]
        before = {r["uri"]: r["digest"] for r in pricing["resources"]}
        after = {r["uri"]: r["digest"] for r in again["resources"]}
        served = read_bytes(server, pricing["uri"])
        check("a swapped artifact is served with its new digests",
              after[pricing["uri"]] != before[pricing["uri"]]
              and after[pricing["uri"]] == "sha256:" + hashlib.sha256(served).hexdigest()
              and b"A line added after the first build." in served, (before, after))
        server.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
