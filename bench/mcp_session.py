"""A scripted agent session through `amr mcp`, written to docs/mcp-session.md (issue 13's closing note).

An agent (the MCP SDK's own client over stdio, named "scripted-agent") runs, on a real repo made with
real git under a temp folder with its own HOME:

1. memory_load, memory_search;
2. memory_remember (filed under the Index topic its words match);
3. memory_edit with a stale hash: a plain-git agent rewords the entry after the read, so the edit
   writes nothing and the reply carries the entry as it is now; then the edit with the new hash;
4. memory_forget with a reason (a tombstone in .amr/forgotten.md);
5. memory_remember of the forgotten fact again: warned ("needs_force"), nothing written;
6. a server started with --review: memory_remember lands on the pending branch dreams/inbox-<date>;
7. a person accepts that run in amr's review screen, by keys in tmux (V, Enter, ctrl+a, y);

and the document ends with the resulting `git log`.

    .venv/bin/python bench/mcp_session.py [--out docs/mcp-session.md] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tmux_env as rt  # noqa: E402  (the tmux driver and the throw-away environment)
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MEMORY = """# Memory

- The team ships the web app from the monorepo at github.com/acme/web [added: 2026-10-02]
- Ask in #platform before changing CI [added: 2026-10-02]

## Index

- [[deploy]]: how we deploy and who approves
- [[frontend/stack]]: the frontend stack
"""
DEPLOY = """# Deploy

- Deploys go through ArgoCD from the main branch [source: https://wiki.acme.test/deploy; added: 2026-10-03]
- Staging deploys on every merge to main [added: 2026-10-05]
"""
STACK = """# Frontend stack

- We use React 19 with Vite [added: 2026-10-04]
- Tailwind for styling [added: 2026-10-04]
"""


class Transcript:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def step(self, title: str, text: str = "") -> None:
        self.parts.append(f"\n## {title}\n")
        if text:
            self.parts.append(text + "\n")

    def call(self, name: str, args: dict[str, Any], is_error: bool, reply: Any) -> None:
        shown = json.dumps(reply, indent=2, ensure_ascii=False) if not isinstance(reply, str) else reply
        lines = shown.splitlines()
        if len(lines) > 60:
            shown = "\n".join(lines[:60]) + f"\n... ({len(lines) - 60} more lines)"
        self.parts.append(
            f"\n`{name}({json.dumps(args, ensure_ascii=False)})`{' (error result)' if is_error else ''}\n\n```json\n{shown}\n```\n"
        )

    def block(self, text: str, lang: str = "") -> None:
        self.parts.append(f"\n```{lang}\n{text.rstrip()}\n```\n")


async def session(repo: Path, t: Transcript, extra: list[str], steps: Any) -> None:
    env = rt.ENV.base_env(rt.USER)
    params = StdioServerParameters(
        command=rt.PY, args=["-m", "amr_tui", "mcp", str(repo), *extra], cwd=str(ROOT), env=env
    )
    async with stdio_client(params) as (read, write):
        info = Implementation(name="scripted-agent", version="1.0")
        async with ClientSession(read, write, client_info=info) as s:
            await s.initialize()

            async def call(name: str, args: dict[str, Any], show: bool = True) -> Any:
                res = await s.call_tool(name, args)
                reply = res.structured_content if res.structured_content is not None else res.content[0].text
                if show:
                    t.call(name, args, bool(res.is_error), reply)
                return reply

            await steps(call)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "mcp-session.md")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="amr-mcp-session-"))
    rt.ENV = rt.Env(base)
    t = Transcript()
    try:
        repo = rt.make_repo(
            rt.ENV.folder("memory") / "memory",
            {"MEMORY.md": MEMORY, "deploy.md": DEPLOY, "frontend/stack.md": STACK},
            who=rt.USER,
            message="Start the team memory",
            local_identity=rt.USER,
        )
        state: dict[str, Any] = {}

        async def plain(call: Any) -> None:
            t.step("1. Load and search")
            await call("memory_load", {})
            await call("memory_search", {"query": "argocd", "limit": 3})
            t.step("2. Remember a fact", "No path given: amr files it under the Index topic its words match.")
            r = await call("memory_remember", {"text": "Production deploys need two approvals from #platform"})
            state["entry"] = r["entry"]
            t.step(
                "3. Edit with a stale hash",
                "After the agent read the entry, a plain-git agent rewords it and commits. The edit with the "
                "hash the agent read writes nothing; the reply carries the entry as it is now.",
            )
            e = state["entry"]
            deploy = repo / "deploy.md"
            text = deploy.read_text().replace(
                "Production deploys need two approvals from #platform",
                "Production deploys need two approvals from #platform, one from SRE",
            )
            deploy.write_text(text)
            rt.git(repo, "commit", "-q", "-am", "agent: name SRE in the approval rule", who=rt.AGENT)
            t.block(rt.git(repo, "log", "-1", "--format=%h %an: %s", who=rt.AGENT), "")
            r = await call(
                "memory_edit",
                {
                    "repo": "memory",
                    "path": "deploy.md",
                    "line": e["line"],
                    "hash": e["hash"],
                    "text": "Prod deploys need 2 approvals",
                },
            )
            cur = r["current"]
            await call(
                "memory_edit",
                {
                    "repo": "memory",
                    "path": "deploy.md",
                    "line": cur["line"],
                    "hash": cur["hash"],
                    "text": "Production deploys need two approvals: one from #platform, one from SRE",
                },
            )
            t.step("4. Forget an entry, with a reason")
            read = await call("memory_read", {"repo": "memory", "path": "deploy.md"}, show=False)
            staging = next(x for x in read["entries"] if x["text"].startswith("Staging"))
            await call(
                "memory_forget",
                {
                    "repo": "memory",
                    "path": "deploy.md",
                    "line": staging["line"],
                    "hash": staging["hash"],
                    "reason": "staging now deploys nightly, not on every merge",
                },
            )
            t.step("5. Remember the forgotten fact again", "Warned: nothing is written without force=true.")
            await call("memory_remember", {"text": "Staging deploys on every merge to main"})

        asyncio.run(session(repo, t, ["--session", "session-2026-12-01-a"], plain))

        async def review(call: Any) -> None:
            t.step(
                "6. A write in review mode",
                "The same repo served with `--review memory`: the write lands on a pending branch.",
            )
            await call(
                "memory_remember",
                {
                    "text": "The design system lives in packages/ui [source: https://github.com/acme/web/tree/main/packages/ui]"
                },
            )

        asyncio.run(session(repo, t, ["--review", "memory", "--session", "session-2026-12-01-b"], review))
        t.block(rt.git(repo, "branch", "--list", "--format=%(refname:short) %(objectname:short)", who=rt.USER))
        t.step("7. A person accepts the run in the review screen (tmux, keys V, Enter, ctrl+a, y)")
        tm = rt.Tmux("review", repo, ["."], who=rt.USER)
        try:
            rt.ready(tm)
            tm.keys("V")
            s = tm.wait("inbox-", label="the pending run")
            t.block(rt.clean(s)[:1600])
            tm.keys("Enter")
            s = tm.wait("entry changes", label="the run's review")
            time.sleep(0.5)
            t.block(rt.clean(tm.screen())[:2400])
            tm.keys("C-a")
            s = tm.wait("Accept all", label="the accept question")
            tm.keys("y")
            s = tm.wait("No pending dreaming runs", label="the run accepted")
            t.block(rt.clean(s)[:800])
        finally:
            tm.close()
            tm.kill_server()
        t.step("The git log afterwards")
        t.block(
            rt.git(
                repo,
                "log",
                "--format=%h %an <%ae> (committer %cn)%n    %s%n%(trailers:key=Session,key=Agent,key=Written-with,separator=%x2C )",
                who=rt.USER,
            )
        )
        t.block(rt.git(repo, "show", "--stat", "--format=%h %s", "HEAD~1", who=rt.USER))
        head = (
            f"# A scripted agent session through `amr mcp`\n\nGenerated by `bench/mcp_session.py` on "
            f"{_dt.date.today().isoformat()}: the MCP SDK's own stdio client against `amr mcp` on a real repo "
            "(its own HOME, real git), then amr's review screen driven by keys in tmux.\n"
        )
        args.out.write_text(head + "".join(t.parts))
        print(f"wrote {args.out}")
        return 0
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
