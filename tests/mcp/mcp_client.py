#!/usr/bin/env python3
"""`skillc mcp` driven by a real MCP client: the official Python SDK (`mcp` on PyPI).

The server runs as a child process on stdio, as Claude Desktop or Cursor would start it. The
client lists the tools, calls both, compares them with `skillc catalog` / `skillc prompt` for the
same request, reads a skill file, checks that bad requests are MCP errors in the CLI's words,
then renames another artifact over the served one mid-session and sees it on the next call.

Usage: mcp_client.py SKILLC WORKSPACE
"""

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

CLIENT = "hyperline.co"
CONTEXT = {"page_url": "/en-gb/pricing", "turn": 2}
NAMES = ["pricing", "demo_offer", "context_gathering", "nope"]
FAILURES = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f"\n     {detail}"))
    if not ok:
        FAILURES.append(what)


def cli(skillc, *args):
    out = subprocess.run([skillc, *args], capture_output=True, text=True, check=True)
    return out.stdout


def cli_flags():
    flags = ["--client", CLIENT]
    for k, v in CONTEXT.items():
        flags += ["--context", f"{k}={v}"]
    return flags


async def expect_error(what, call, words):
    try:
        await call
    except MCPError as e:
        check(what, words in str(e), f"error was: {e}")
        return
    check(what, False, "no error")


async def expect_tool_error(what, call, words):
    """Bad tool input is a result the model reads (isError, SEP-1303), in the CLI's words."""
    result = await call
    text = " ".join(c.text for c in result.content if hasattr(c, "text"))
    check(what, result.is_error is True and words in text, f"is_error {result.is_error}: {text}")


async def session_checks(skillc, live, other, workspace):
    params = StdioServerParameters(command=skillc, args=["mcp", str(live), "--client", CLIENT])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            check("tools listed", tools == ["load_skills", "route_skills", "skills_catalog"], tools)

            got = await session.call_tool("skills_catalog", {"context": CONTEXT})
            check("catalog text equals `skillc catalog`",
                  got.content[0].text == cli(skillc, "catalog", str(live), *cli_flags()),
                  got.content[0].text[:200])
            want = json.loads(cli(skillc, "catalog", str(live), *cli_flags(), "--format", "json"))
            check("catalog JSON equals `skillc catalog --format json`",
                  got.structured_content == want, got.structured_content)

            got = await session.call_tool("load_skills", {"names": NAMES, "context": CONTEXT})
            select = ["--select", ",".join(NAMES)]
            check("prompt text equals `skillc prompt`",
                  got.content[0].text == cli(skillc, "prompt", str(live), *cli_flags(), *select),
                  got.content[0].text[:200])
            want = json.loads(cli(skillc, "prompt", str(live), *cli_flags(), *select, "--format", "json"))
            check("prompt JSON equals `skillc prompt --format json`", got.structured_content == want,
                  got.structured_content)
            check("left-out names are noted", len(got.content) == 2 and "`nope` left out" in got.content[1].text,
                  [c.text for c in got.content])

            message = "How much does the pro plan cost?"
            got = await session.call_tool("route_skills", {"message": message, "context": CONTEXT})
            want = json.loads(cli(skillc, "route", str(live), message, *cli_flags(), "--format", "json"))
            check("route JSON equals `skillc route --format json`", got.structured_content == want,
                  got.structured_content)
            check("route text lists the candidates as `skillc route` does",
                  got.content[0].text == cli(skillc, "route", str(live), message, *cli_flags()),
                  got.content[0].text)
            # Seed 001's stage 0: a follow-up 10 s after its question routes joined to it, as
            # `skillc route --history FILE --time T` routes it.
            follow, asked = "and also for the pro plan", {"text": "how much does the basic plan cost?", "time": 1000.0}
            got = await session.call_tool("route_skills", {"message": follow, "history": [asked],
                                                           "time": 1010.0, "context": CONTEXT})
            history = live.parent / "history.jsonl"
            history.write_text(json.dumps(asked) + "\n")
            want = json.loads(cli(skillc, "route", str(live), follow, *cli_flags(), "--history", str(history),
                                  "--time", "1010", "--format", "json"))
            check("a follow-up with history routes as `skillc route --history` does, joined",
                  got.structured_content == want and "routed_text" in want, (got.structured_content, want))
            await expect_tool_error("a history entry without a time is refused",
                               session.call_tool("route_skills", {"message": follow, "history": [{"text": "x"}]}),
                               "`history` must be an array")
            await expect_tool_error("a query vector of another length than the artifact's model's is refused in the CLI's words",
                               session.call_tool("route_skills", {"message": message, "query_vector": [0.5, 0.5]}),
                               "`static-minilm-v1` gives 256")
            await expect_tool_error("a query vector that is not numbers is refused",
                               session.call_tool("route_skills", {"message": message, "query_vector": ["a"]}),
                               "`query_vector` must be an array of numbers")

            resources = (await session.list_resources()).resources
            uris = [str(r.uri) for r in resources]
            uri = "skill://web-scraping/references/selectors.md"
            check("skill files are listed as resources", uri in uris, uris)
            read = await session.read_resource(uri)
            on_disk = (workspace / "public/tools/web-scraping/references/selectors.md").read_text()
            check("a resource reads the skill's file", read.contents[0].text == on_disk, read.contents[0])

            await expect_tool_error("a bad context value is a tool error in the CLI's words",
                               session.call_tool("skills_catalog", {"context": {"turn": "abc"}}),
                               "turn must be a whole number, not `abc`")
            await expect_error("an unknown resource is an MCP error",
                               session.read_resource("skill://web-scraping/nope.md"),
                               "skill `web-scraping` has no asset `nope.md`")
            await expect_error("an unknown skill's resource is an MCP error",
                               session.read_resource("skill://nope/a.md"), "unknown skill `nope`")

            # A new build renamed over the served file is answered from on the next call.
            tmp = live.with_name(".live.tmp")
            shutil.copy(other, tmp)
            tmp.rename(live)
            got = await session.call_tool("skills_catalog", {"context": CONTEXT})
            want = json.loads(cli(skillc, "catalog", str(other), *cli_flags(), "--format", "json"))
            check("a swapped artifact is picked up without restart",
                  got.structured_content == want and want["release"] == "second",
                  got.structured_content.get("release"))


def main():
    skillc, workspace = sys.argv[1], Path(sys.argv[2]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        live, other = tmp / "live.db", tmp / "other.db"
        subprocess.run([skillc, "build", str(workspace), "-o", str(live), "--release-label", "first"],
                       check=True, capture_output=True)
        changed = tmp / "ws"
        shutil.copytree(workspace, changed)
        pricing = changed / "public/response_handling/pricing/SKILL.md"
        text = pricing.read_text()
        pricing.write_text(text.replace("description: ", "description: Updated. ", 1))
        subprocess.run([skillc, "build", str(changed), "-o", str(other), "--release-label", "second"],
                       check=True, capture_output=True)
        asyncio.run(session_checks(skillc, live, other, workspace))
        # A bundle that was not built fails at start, with the CLI's words and exit 1.
        out = subprocess.run([skillc, "mcp", str(live), "--client", "nope"], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL)
        check("an unknown client fails at start", out.returncode == 1 and "unknown client `nope`" in out.stderr,
              (out.returncode, out.stderr))
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
