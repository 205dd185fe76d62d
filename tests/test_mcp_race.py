"""`amr mcp` under concurrency: two MCP clients (two `amr mcp` servers on one repo, each over
the SDK's stdio client) and a plain-git agent (`git commit -- FILE` in a loop, its own author)
write the same files at once for a few seconds.

Afterwards: every fact a client was told was "written" is in HEAD (as that client last edited
it, or gone when it forgot it), every agent commit is on the branch with its fact, `git fsck` is
clean, every other reply has a status from the allowed set and a message, and each amr commit
holds exactly the change its reply describes (its own lines, in the files the reply names).
Real git, real servers, no mocks.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)

WORDS = (
    "amber basil cedar delta ember fjord garnet harbor indigo juniper kestrel lumen marble nectar onyx "
    "pepper quartz raven sienna tundra umber violet willow xenon yarrow zephyr falcon orchid copper "
    "meadow thistle canyon glacier lantern pebble saffron timber walnut badger cobalt dingo egret ferret "
    "gopher heron ibis jackal koala lemur mole newt otter puffin quail rook stoat tapir urchin vole wombat yak zebu"
).split()
FILES = ("shared.md", "notes.md")
AGENT_ENV = {
    "GIT_AUTHOR_NAME": "Plain Agent",
    "GIT_AUTHOR_EMAIL": "plain@agent.test",
    "GIT_COMMITTER_NAME": "Plain Agent",
    "GIT_COMMITTER_EMAIL": "plain@agent.test",
}
ALLOWED_OTHER = {"stale", "conflict", "duplicate", "refused"}
RUN_SECONDS = 5.0
KEY = re.compile(r"\bk(\d+)x(\d+)\b")  # client c, fact n: "k<c>x<n>"


def git(root: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    res = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False
    )
    if check and res.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {res.stderr}")
    return res.stdout


@contextlib.asynccontextmanager
async def mcp_client(repo: Path, name: str) -> AsyncIterator[ClientSession]:
    """One `amr mcp REPO` server over stdio, the client named ``name`` (the commits' author)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "amr_tui", "mcp", str(repo)], env=dict(os.environ), cwd=str(repo)
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, client_info=Implementation(name=name, version="1")) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    res = await session.call_tool(tool, args)
    assert not res.is_error, f"{tool}{args}: {res.content[0].text if res.content else res}"  # type: ignore[union-attr]
    out = res.structured_content
    assert isinstance(out, dict), res
    return out


def fact_text(c: int, n: int, rng: random.Random, version: int) -> str:
    """Few shared words: two facts are never near duplicates (nor near a forgotten one)."""
    words = " ".join(rng.sample(WORDS, 5))
    return f"Host k{c}x{n} runs {words}, revision r{version}"


class Client:
    """What one MCP client did and was told."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.name = f"racer-{number}"
        self.rng = random.Random(1000 + number)
        self.n = 0
        self.present: dict[str, str] = {}  # key -> the line HEAD must hold (its last written text)
        self.gone: set[str] = set()  # keys this client forgot
        self.replies: list[tuple[str, dict[str, Any], dict[str, Any]]] = []  # (tool, args, reply)
        self.expect: dict[str, tuple[str, Counter[str], Counter[str]]] = {}  # commit -> (path, added, removed)
        self.also: dict[str, set[str]] = {}  # commit -> other files its reply says it touched
        self.old: dict[str, dict[str, Any]] = {}  # path -> its last memory_read

    def own(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        mine = []
        for e in entries:
            m = KEY.search(e["raw"])
            if m and int(m.group(1)) == self.number and f"k{m.group(1)}x{m.group(2)}" in self.present:
                mine.append(e)
        return mine

    async def run(self, session: ClientSession, until: float) -> None:
        while time.monotonic() < until:
            roll = self.rng.random()
            path = self.rng.choice(FILES)
            if roll < 0.55 or len(self.present) < 2:
                await self.remember(session, path)
                continue
            if self.old.get(path) and self.rng.random() < 0.25:
                read = self.old[path]  # an earlier read: its lines and hashes may be stale by now
            else:
                read = self.old[path] = await call(session, "memory_read", repo="memory", path=path)
            mine = self.own(read["entries"])
            if not mine:
                await self.remember(session, path)
                continue
            entry = self.rng.choice(mine)
            if roll < 0.8:
                await self.edit(session, path, entry)
            else:
                await self.forget(session, path, entry)

    def _record(self, tool: str, args: dict[str, Any], reply: dict[str, Any]) -> bool:
        self.replies.append((tool, args, reply))
        return reply["status"] == "written"

    async def remember(self, session: ClientSession, path: str) -> None:
        self.n += 1
        key = f"k{self.number}x{self.n}"
        args = {"text": fact_text(self.number, self.n, self.rng, 1), "path": path, "source": "https://example.com/r"}
        reply = await call(session, "memory_remember", **args)
        if self._record("memory_remember", args, reply):
            raw = reply["entry"]["raw"]
            assert key in raw, reply
            self.present[key] = raw
            self.expect[reply["commit"]] = (path, Counter([raw]), Counter())
            if "linked it from MEMORY.md" in reply["message"]:
                self.also[reply["commit"]] = {"MEMORY.md"}

    async def edit(self, session: ClientSession, path: str, entry: dict[str, Any]) -> None:
        key = KEY.search(entry["raw"]).group(0)  # type: ignore[union-attr]
        version = int(entry["raw"].rsplit("revision r", 1)[1].split()[0]) + 1
        text = re.sub(r"revision r\d+", f"revision r{version}", entry["text"])
        args = {"repo": "memory", "path": path, "line": entry["line"], "hash": entry["hash"], "text": text}
        reply = await call(session, "memory_edit", **args)
        if self._record("memory_edit", args, reply):
            new = reply["entry"]["raw"]
            assert key in new and f"revision r{version}" in new, reply
            self.expect[reply["commit"]] = (path, Counter([new]), Counter([entry["raw"]]))
            self.present[key] = new

    async def forget(self, session: ClientSession, path: str, entry: dict[str, Any]) -> None:
        key = KEY.search(entry["raw"]).group(0)  # type: ignore[union-attr]
        args = {"repo": "memory", "path": path, "line": entry["line"], "hash": entry["hash"], "reason": "race test"}
        reply = await call(session, "memory_forget", **args)
        if self._record("memory_forget", args, reply):
            self.expect[reply["commit"]] = (path, Counter(), Counter([entry["raw"]]))
            self.also[reply["commit"]] = {".amr/forgotten.md"}
            del self.present[key]
            self.gone.add(key)


def plain_agent(root: Path, stop: threading.Event, commits: list[str], facts: list[tuple[str, str]]) -> None:
    """Appends `- fact aN ...` to a shared file and commits it with `git commit -- FILE`."""
    rng = random.Random(7)
    n = 0
    while not stop.is_set():
        n += 1
        rel = rng.choice(FILES)
        line = f"- fact a{n} written by the plain agent [source: https://example.com/a/{n}]"
        for _attempt in range(200):
            if line in git(root, "show", f"HEAD:{rel}", env=AGENT_ENV):
                break
            if line not in (root / rel).read_text():
                with open(root / rel, "a") as f:  # O_APPEND: never overwrites what others wrote
                    f.write(line + "\n")
            res = subprocess.run(
                ["git", "commit", "-q", "-m", f"agent: fact a{n}", "--", rel],
                cwd=root,
                capture_output=True,
                env={**os.environ, **AGENT_ENV},
            )
            if res.returncode == 0:
                oid = git(root, "rev-parse", "HEAD").strip()
                if line in git(root, "show", f"{oid}:{rel}"):
                    commits.append(oid)
                    facts.append((rel, line))
                    break
            time.sleep(0.01)
        time.sleep(0.05 + rng.random() * 0.1)


def blob_lines(root: Path, rev: str, path: str) -> list[str]:
    res = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True, text=True)
    return res.stdout.splitlines() if res.returncode == 0 else []


async def test_two_mcp_clients_and_a_plain_git_agent_write_the_same_files(make_repo) -> None:
    root = make_repo(
        "memory",
        {
            "MEMORY.md": "# Memory\n\n## Index\n\n- [[shared]]: services and queues\n- [[notes]]: notes\n",
            "shared.md": "# Shared\n\n- The seed fact about the build farm [source: https://example.com/s/1]\n",
            "notes.md": "# Notes\n\n- The seed fact about the wiki [source: https://example.com/s/2]\n",
        },
    )
    base = git(root, "rev-parse", "HEAD").strip()
    clients = [Client(1), Client(2)]
    stop = threading.Event()
    agent_commits: list[str] = []
    agent_facts: list[tuple[str, str]] = []
    agent = threading.Thread(target=plain_agent, args=(root, stop, agent_commits, agent_facts), daemon=True)
    async with mcp_client(root, clients[0].name) as s1, mcp_client(root, clients[1].name) as s2:
        agent.start()
        try:
            until = time.monotonic() + RUN_SECONDS
            async with anyio.create_task_group() as tg:
                tg.start_soon(clients[0].run, s1, until)
                tg.start_soon(clients[1].run, s2, until)
        finally:
            stop.set()
            await anyio.to_thread.run_sync(agent.join)

    head = git(root, "rev-parse", "HEAD").strip()
    tree = {p: blob_lines(root, head, p) for p in FILES}
    assert git(root, "merge-base", "--is-ancestor", base, head, check=False) == ""
    fsck = subprocess.run(["git", "fsck", "--strict", "--no-dangling"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr

    written = [r for c in clients for (_t, _a, r) in c.replies if r["status"] == "written"]
    assert len(written) >= 6, [r["status"] for c in clients for (_t, _a, r) in c.replies]
    assert len(agent_commits) >= 5, agent_commits

    # Every reply: written, or a status from the allowed set with a message saying why.
    for c in clients:
        for tool, args, reply in c.replies:
            assert reply["status"] == "written" or reply["status"] in ALLOWED_OTHER, (tool, args, reply["message"])
            assert reply["message"].strip(), (tool, args, reply)

    # Every fact a client was told was written is in HEAD as it last wrote it; what it forgot is gone.
    for c in clients:
        for key, raw in c.present.items():
            holders = [(p, ln) for p, lines in tree.items() for ln in lines if re.search(rf"\b{key}\b", ln)]
            assert [ln for _p, ln in holders] == [raw], (c.name, key, raw, holders)
        for key in c.gone:
            assert not any(re.search(rf"\b{key}\b", ln) for lines in tree.values() for ln in lines), (c.name, key)

    # Every plain-git commit is on the branch and its fact is in HEAD.
    for oid in agent_commits:
        assert git(root, "merge-base", "--is-ancestor", oid, head, check=False) == "", oid
    for rel, line in agent_facts:
        assert tree[rel].count(line) == 1, (rel, line)

    # amr's commits are exactly the written replies' commits, and each holds only its own change.
    amr_commits = {
        oid: author
        for oid, author in (
            ln.split(" ", 1) for ln in git(root, "log", "--format=%H %an", f"{base}..{head}").splitlines()
        )
        if author.startswith("racer-")
    }
    expected = {oid: f"{c.name} 1" for c in clients for oid in c.expect}  # the author: client name and version
    assert amr_commits == expected
    for c in clients:
        for oid, (path, added, removed) in c.expect.items():
            touched = set(git(root, "diff-tree", "--no-commit-id", "-r", "--name-only", f"{oid}^", oid).split())
            assert touched == {path} | c.also.get(oid, set()), (oid, touched)
            before, after = Counter(blob_lines(root, f"{oid}^", path)), Counter(blob_lines(root, oid, path))
            assert (after - before, before - after) == (added, removed), (oid, path)
            body = git(root, "log", "-1", "--format=%B", oid)
            assert "Written-with: amr mcp" in body and f"Agent: {c.name} 1" in body, body
            if ".amr/forgotten.md" in c.also.get(oid, set()):
                gained = Counter(blob_lines(root, oid, ".amr/forgotten.md")) - Counter(
                    blob_lines(root, f"{oid}^", ".amr/forgotten.md")
                )
                assert gained and not (
                    Counter(blob_lines(root, f"{oid}^", ".amr/forgotten.md"))
                    - Counter(blob_lines(root, oid, ".amr/forgotten.md"))
                ), oid
