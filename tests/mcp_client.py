"""A real MCP client for ``amr mcp`` tests: the SDK's own ClientSession over stdio.

No mocks: :func:`memory_repo` makes a real git repo, :func:`amr_mcp` starts
``python -m amr_tui mcp ARGS...`` as a subprocess (cwd the repo, HOME and XDG_* in a temp dir so no
user config is read, a fixed git author and committer) and yields an :class:`McpClient`.

Usage::

    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\\n\\n## Index\\n\\n- a fact\\n"})
    async with amr_mcp(repo, home=tmp_path / "home") as client:
        is_error, data = await client.call("memory_load")
        assert not is_error and data["repos"][0]["entries"]

``call`` returns ``(is_error, data)``: ``data`` is the structured result (a dict) when the server
gave one, else the text of the first content item (an error result's message). The server is
spawned once per ``async with`` (about 1.3 s), so group several checks in one block.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation, Tool

#: The committer of every commit (the user who runs amr) and the author of set-up commits.
USER_ENV = {
    "GIT_AUTHOR_NAME": "Repo User",
    "GIT_AUTHOR_EMAIL": "user@example.test",
    "GIT_COMMITTER_NAME": "Repo User",
    "GIT_COMMITTER_EMAIL": "user@example.test",
}

#: The client name the tests' MCP client gives (the author of agent commits is "<name> <version>").
CLIENT_NAME = "test-agent"
CLIENT_VERSION = "1.0"

DEFAULT_MEMORY = "# Memory\n\n## Index\n"


def git(cwd: Path, *args: str) -> str:
    """Plain git in ``cwd`` as the repo user (USER_ENV), the output as text."""
    env = {**os.environ, **USER_ENV, "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return out.stdout


def commit_files(root: Path, files: Mapping[str, str | bytes], message: str = "Set up") -> None:
    """Write ``files`` (path -> content) into ``root`` and commit them as the repo user."""
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
        git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", message)


def memory_repo(root: Path, files: Mapping[str, str | bytes] | None = None) -> Path:
    """A real git memory repo at ``root`` (branch main) with ``files`` committed (default: a
    MEMORY.md with an empty ## Index). Returns ``root``."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    commit_files(root, files or {"MEMORY.md": DEFAULT_MEMORY}, "Create memory repo")
    return root


def commit_count(root: Path, rev: str = "HEAD") -> int:
    """How many commits ``rev`` has."""
    return int(git(root, "rev-list", "--count", rev).strip())


def server_env(home: Path) -> dict[str, str]:
    """The server's environment: the repo user's identity, HOME and XDG_* under ``home``."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        **USER_ENV,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "AMR_SESSION_ID": "",
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
    }


class McpClient:
    """One connected client: ``call`` a tool, ``tools`` to list them, ``session`` for the rest."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, name: str, args: dict[str, Any] | None = None) -> tuple[bool, Any]:
        """Call tool ``name``: (is_error, the structured dict, else the first content text)."""
        res = await self.session.call_tool(name, args or {})
        if res.structured_content is not None and not res.is_error:
            return bool(res.is_error), res.structured_content
        text = "".join(getattr(c, "text", "") for c in res.content)
        return bool(res.is_error), text

    async def ok(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """``call`` that must succeed with a structured result; returns it."""
        is_error, data = await self.call(name, args)
        assert not is_error, f"{name}({args}) failed: {data}"
        assert isinstance(data, dict), f"{name}({args}) gave no structured result: {data!r}"
        return data

    async def tools(self) -> list[Tool]:
        return (await self.session.list_tools()).tools


@asynccontextmanager
async def amr_mcp(
    *args: str | Path,
    home: Path,
    cwd: Path | None = None,
    client_name: str | None = CLIENT_NAME,
    client_version: str | None = CLIENT_VERSION,
    env: Mapping[str, str] | None = None,
) -> AsyncIterator[McpClient]:
    """``python -m amr_tui mcp *args`` over stdio, initialised; yields the client.

    ``args`` are the command's arguments (repo paths, --read-only NAME, --review NAME, --session ID);
    ``cwd`` defaults to the first path argument. ``client_name=None`` keeps the SDK's default client
    info (name "mcp"). ``env`` adds to or overrides :func:`server_env`."""
    argv = [str(a) for a in args]
    if cwd is None:
        cwd = next((Path(a) for a in args if isinstance(a, Path)), home)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "amr_tui", "mcp", *argv],
        cwd=str(cwd),
        env={**server_env(home), **(env or {})},
    )
    info = Implementation(name=client_name, version=client_version or "") if client_name else None
    errlog = open(home / "server-stderr.log", "a")  # noqa: SIM115 - closed below
    try:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, client_info=info, read_timeout_seconds=60) as session:
                await session.initialize()
                yield McpClient(session)
    except BaseExceptionGroup as group:
        # The SDK's task groups wrap a failing assert of the test body: raise it as itself.
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
            leaf = leaf.exceptions[0]
        if leaf is group:
            raise
        raise leaf from None
    finally:
        errlog.close()


__all__ = [
    "CLIENT_NAME",
    "CLIENT_VERSION",
    "USER_ENV",
    "McpClient",
    "amr_mcp",
    "commit_count",
    "commit_files",
    "git",
    "memory_repo",
    "server_env",
]
