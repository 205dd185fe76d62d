"""`amr share` hands the pairing session an `amr mcp` command line that serves only the shared
selection, read-only unless the owner granted write (issue 13, point 3).

The command line is taken from `amr share`'s own output, split as a shell would, and run with the
official MCP SDK's stdio client: one server for every check.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from tests.synchelpers import amr

SALARY = "- Alice's salary is 123456 [source: s/hr]\n"
FILES_ALICE = {
    "MEMORY.md": "# Memory: Alice\n\n- Alice leads product [source: s/1]\n\n## Index\n- [[projects/payments]]\n- [[private/hr]]\n",
    "projects/payments.md": "# Payments\n\n- Payments launch on 2026-10-15 [source: s/2]\n",
    "private/hr.md": "# HR\n\n" + SALARY,
}
FILES_BOB = {
    "MEMORY.md": "# Memory: Bob\n\n- Bob reviews schema PRs [source: s/3]\n\n## Index\n- [[team]]\n",
    "team.md": "# Team\n\n- Carol is on call this week [source: s/4]\n",
}
FILES_CAROL = {"MEMORY.md": "# Memory: Carol\n\n- Carol keeps the deploy keys in the vault [source: s/5]\n"}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _printed_mcp_line(stdout: str) -> str:
    lines = [ln.strip() for ln in stdout.splitlines() if ln.strip().startswith("amr mcp ")]
    assert len(lines) == 1, stdout
    return lines[0]


def _data(res: Any) -> dict[str, Any]:
    assert not res.is_error, res.content[0].text
    assert isinstance(res.structured_content, dict)
    return res.structured_content


@pytest.mark.slow
async def test_share_prints_an_mcp_command_that_serves_only_the_shared_selection(tmp_path: Path, make_repo) -> None:
    alice = make_repo("vm/memory-alice", FILES_ALICE)
    bob = make_repo("vm/memory-bob", FILES_BOB)
    make_repo("vm/memory-carol", FILES_CAROL)  # mounted for the share, not shared
    into = tmp_path / "pair session"  # a space: the printed command must quote it
    res = amr(
        tmp_path,
        "share",
        str(tmp_path / "vm"),
        "--into",
        str(into),
        "--repo",
        "memory-alice:MEMORY.md,projects/",
        "--repo",
        "memory-bob",
        "--write",
        "memory-bob",
    )
    assert res.returncode == 0, res.stderr
    line = _printed_mcp_line(res.stdout)
    shared_alice, shared_bob = (into / "memory-alice").absolute(), (into / "memory-bob").absolute()
    expected = ["amr", "mcp", str(shared_alice), str(shared_bob), "--read-only", "memory-alice"]
    assert shlex.split(line) == expected
    config = next(ln for ln in res.stdout.splitlines() if "client config: " in ln).split("client config: ", 1)[1]
    assert json.loads(config) == {"mcpServers": {"amr-share": {"command": "amr", "args": expected[1:]}}}
    assert "docs/agents.md" in res.stdout

    # --json carries the same command, as argv and as one shell-quoted string
    other = tmp_path / "json session"
    res = amr(tmp_path, "share", str(tmp_path / "vm"), "--into", str(other), "--repo", "memory-bob", "--json")
    assert res.returncode == 0, res.stderr
    mcp = json.loads(res.stdout)["mcp"]
    assert mcp["argv"] == ["amr", "mcp", str((other / "memory-bob").absolute()), "--read-only", "memory-bob"]
    assert shlex.split(mcp["command"]) == mcp["argv"] and mcp["not_served"] == []

    # run the printed line, `amr` replaced by this interpreter's amr
    argv = shlex.split(line)
    assert argv[0] == "amr"
    command = [sys.executable, "-m", "amr_tui", *argv[1:]]
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ), cwd=str(tmp_path))
    bob_head = _git(bob, "rev-parse", "HEAD")
    alice_head = _git(shared_alice, "rev-parse", "HEAD")
    with open(tmp_path / "server.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=types.Implementation(name="pair-agent", version="1.0")) as client,
        ):
            await client.initialize()

            loaded = _data(await client.call_tool("memory_load", {}))
            repos = {r["repo"]: r for r in loaded["repos"]}
            assert set(repos) == {"memory-alice", "memory-bob"}  # not memory-carol, not the session's others
            assert repos["memory-alice"]["writable"] is False and repos["memory-bob"]["writable"] is True
            assert [t["path"] for t in repos["memory-alice"]["index"]] == ["projects/payments.md", None]

            # the partial share holds only the shared files
            read_ok = _data(
                await client.call_tool("memory_read", {"repo": "memory-alice", "path": "projects/payments.md"})
            )
            assert [e["text"] for e in read_ok["entries"]] == ["Payments launch on 2026-10-15"]
            unshared = await client.call_tool("memory_read", {"repo": "memory-alice", "path": "private/hr.md"})
            assert unshared.is_error and "does not exist" in unshared.content[0].text
            found = _data(await client.call_tool("memory_search", {"query": "salary"}))
            assert found["results"] == []
            carol = await client.call_tool("memory_read", {"repo": "memory-carol", "path": "MEMORY.md"})
            assert carol.is_error and "memory-carol" in carol.content[0].text

            # writes: refused in the read-only share, committed in the writable one
            refused = _data(
                await client.call_tool("memory_remember", {"text": "Alice likes tea", "repo": "memory-alice"})
            )
            assert refused["status"] == "refused" and "read-only" in refused["message"]
            written = _data(
                await client.call_tool(
                    "memory_remember",
                    {"text": "Bob pairs on Tuesdays", "repo": "memory-bob", "path": "team.md", "source": "s/6"},
                )
            )
            assert written["status"] == "written", written["message"]

    assert _git(shared_alice, "rev-parse", "HEAD") == alice_head
    assert "Alice likes tea" not in (shared_alice / "MEMORY.md").read_text()
    assert not (shared_alice / "private").exists()
    assert "Bob pairs on Tuesdays" in _git(shared_bob, "show", "HEAD:team.md")
    assert _git(shared_bob, "log", "-1", "--format=%an|%cn").strip() == "pair-agent 1.0|Test Committer"
    assert _git(bob, "rev-parse", "HEAD") == bob_head  # the owner's repo is untouched: the write is in the share
    assert (alice / "private" / "hr.md").read_text().endswith(SALARY)


def test_a_partial_share_without_memory_md_is_named_not_served(tmp_path: Path, make_repo) -> None:
    make_repo("memory-alice", FILES_ALICE)
    res = amr(
        tmp_path,
        "share",
        str(tmp_path / "memory-alice"),
        "--into",
        str(tmp_path / "s"),
        "--repo",
        "memory-alice:projects",
    )
    assert res.returncode == 0, res.stderr
    assert "not served over MCP: memory-alice (its share holds no MEMORY.md)" in res.stdout
    assert "amr mcp" not in res.stdout
    res = amr(
        tmp_path,
        "share",
        str(tmp_path / "memory-alice"),
        "--into",
        str(tmp_path / "j"),
        "--repo",
        "memory-alice:projects",
        "--json",
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["mcp"] is None
