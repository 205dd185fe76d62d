"""One search context (issue 43, point 1): the app's finder, ``amr search`` and MCP's
``memory_search`` answer the same query with the same facts, metadata filters included.

A real git repo (``make_repo``) holding entries with metadata, tags (inline, ``[tags: ...]`` and
front matter), a front-matter ``scope``, headings, a broken link and an orphan file is asked the
same queries three ways: the session's search the finder calls (``Session.search_session``, what
``screens/finder.py`` is handed as its searcher), ``amr search ... --json`` (``cli.main.main``)
and the ``memory_search`` tool of the MCP server (``cli.mcp_server.build_server``, called in
process). Each must list the same (path, line) facts.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from amr_tui.cli.main import main
from amr_tui.cli.mcp_server import build_server
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.search.run import build_cache
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover

MEMORY = """# Memory

## Index

- [[deploy]]: how we deploy
- [[infra/network]]: the network
- [[notes]]: notes
"""

DEPLOY = """---
title: Deploy
tags: [ops]
---
# Deploy

## Rollouts

- Deploys run from the release pipeline on weekdays #infra [source: wiki; added: 2026-10-03]
- Rollback uses the previous release tag [source: runbook; added: 2026-09-12; owner: alice]
- Canary deploys watch the error budget for an hour [tags: infra, canary; added: 2026-11-01]
- Freeze deploys on Friday afternoons [owner: bob]
- The deploy dashboard lives in grafana, see [[missing-page]]
"""

NETWORK = """---
scope: project:payments
tags: [infra/network]
---
# Network

- The VPN gateway drops idle tunnels after ten minutes [source: wiki; added: 2026-08-20]
- Deploy hosts reach the registry through the proxy [owner: alice]
"""

NOTES = """# Notes

- The release tag names the deploy week [added: 2026-10-20]
- Grafana alerts page the on-call for the deploy pipeline
"""

ORPHAN = """# Scratch

- A deploy note nobody links to [source: chat]
"""

QUERIES = [
    "deploy",
    "release tag",
    "deplyo",  # a typo
    "tags:infra",  # no such operator: plain words
    "tag:infra",
    "tag:ops deploy",
    "tag:infra/network",
    "source:wiki",
    "source:runbook rollback",
    "added:>=2026-10-01",
    "added:2026-10 deploy",
    "added:<2026-10",
    "owner:alice",
    "owner:bob deploy",
    "has:owner",
    "no:added deploy",
    "scope:project:payments",  # the file's front matter gives its entries the scope
    "is:broken",
    "is:orphan",
    '"release tag"',
    "deploy -canary",
    "path:infra deploy",
    "title:deploy",  # a front-matter field that no entry has as a key: plain words (front matter is not searched)
    "tag:ops",  # the file's front matter gives its entries the tag
    "by:test deploy",  # who wrote the line (a blame)
    "by:nobody",
]


@pytest.fixture
def repo(make_repo: Any) -> Path:
    root: Path = make_repo(
        "memory",
        {
            "MEMORY.md": MEMORY,
            "deploy.md": DEPLOY,
            "infra/network.md": NETWORK,
            "notes.md": NOTES,
            "scratch.md": ORPHAN,
        },
    )
    return root


def _finder(root: Path, queries: list[str]) -> dict[str, list[tuple[str, int]]]:
    session = Session(discover([root]))
    try:
        session.load()
        searcher = session.search_session()  # what the app hands the finder screen
        return {q: [(h.item.path, h.item.line) for h in searcher(q, 200) if h.item.kind == "entry"] for q in queries}
    finally:
        session.close()


def _cli(
    root: Path, queries: list[str], capsys: pytest.CaptureFixture[str], *cache: str
) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for q in queries:
        assert main(["search", q, str(root), "--json", "--limit", "200", *cache]) == 0
        rows = json.loads(capsys.readouterr().out)
        out[q] = [(r["path"], r["line"]) for r in rows if r["line"] > 0]
    return out


def _mcp(root: Path, queries: list[str]) -> dict[str, list[tuple[str, int]]]:
    memory = AgentMemory(discover([root]))
    server = build_server(memory, Writer("test-agent", "s1"))

    async def ask(q: str) -> list[tuple[str, int]]:
        res: Any = await server.call_tool("memory_search", {"query": q, "limit": 100})
        data = res.structured_content if hasattr(res, "structured_content") else res
        data = data or json.loads(res.content[0].text)
        return [(r["path"], r["line"]) for r in data["results"]]

    try:
        return {q: asyncio.run(ask(q)) for q in queries}
    finally:
        memory.close()


def test_finder_cli_and_mcp_answer_the_same_facts(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    finder = _finder(repo, QUERIES)
    cold = _cli(repo, QUERIES, capsys, "--no-cache")  # no cache: only the lines that can match are indexed
    build_cache(discover([repo]))
    cached = _cli(repo, QUERIES, capsys)  # the whole index, from its cache
    mcp = _mcp(repo, QUERIES)
    for q in QUERIES:
        assert finder[q] == cold[q], f"finder and amr search --no-cache differ on {q!r}"
        assert finder[q] == cached[q], f"finder and amr search differ on {q!r}"
        assert finder[q] == mcp[q], f"finder and memory_search differ on {q!r}"
    # the filters found what the repo holds (not three empty answers)
    assert set(finder["tag:infra"]) >= {("deploy.md", 9), ("deploy.md", 11), ("infra/network.md", 7)}
    assert finder["source:runbook rollback"] == [("deploy.md", 10)]
    assert ("deploy.md", 13) in finder["is:broken"]
    assert {p for p, _ln in finder["is:orphan"]} == {"scratch.md"}
    assert set(finder["owner:alice"]) == {("deploy.md", 10), ("infra/network.md", 8)}
    assert set(finder["scope:project:payments"]) == {("infra/network.md", 7), ("infra/network.md", 8)}
    assert finder["added:<2026-10"]
    assert set(finder["tag:ops"]) >= {("deploy.md", 9), ("deploy.md", 13)}
    assert finder["by:test deploy"] and not finder["by:nobody"]
