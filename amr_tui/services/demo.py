"""Build two demo memory repos with a realistic, byte-for-byte reproducible history.

``build_demo(dest)`` creates ``dest/memory-alice`` and ``dest/memory-bob`` shaped like the Agent
Memory Repo spec's example. Every commit has a fixed author, committer and date (passed to git
through the runner's environment), so the commit ids are the same on every machine and run.

memory-alice: about fifteen commits by different agents (entries with ``source`` and ``added``,
one entry edited, one deleted, cross-links), then a pending dreaming run on
``dreams/2026-10-07-nightly`` (landing-page + styling merged into ``frontend/stack.md`` keeping both
sources, the transient dev-port note dropped, the index rewritten), after which ``main`` moved on
by two more agent commits. memory-bob: a short history with one deliberately broken link
(``[[runbooks/rollback]]``) for the lint demo.

Existing folders: ``dest`` must be missing, empty, or a previous demo (marked by ``.amr-demo``).
A previous demo is reused as it is when both repos are still there, unless ``rebuild=True``; then
(or when one is missing) only ``memory-alice``, ``memory-bob`` and the marker are deleted and built
again. Nothing else in ``dest`` is touched.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from amr_tui.git import AmrGitError, GitRepo, is_memory_repo
from amr_tui.git.mergedriver import install_driver_config
from amr_tui.services import writegate

MARKER = ".amr-demo"
MARKER_TEXT = b"amr demo v1\n"
DREAM_BRANCH = "dreams/2026-10-07-nightly"
REPOS = ("memory-alice", "memory-bob")


class DemoError(Exception):
    """The demo could not be built; ``str()`` says why."""


class DemoRefusedError(DemoError, ValueError):
    """``dest`` holds something that is not an amr demo; nothing was changed."""


AGENTS = {
    "alice": ("Alice Chen", "alice@example.com"),
    "bob": ("Bob Okafor", "bob@example.com"),
    "claude": ("Claude Code", "claude-code@agents.example.com"),
    "cursor": ("Cursor agent", "cursor@agents.example.com"),
    "dream": ("Devin dreaming", "devin-dreaming@agents.example.com"),
}


def _devin(session: int) -> tuple[str, str]:
    return (f"Devin session {session}", f"devin+{session}@sessions.example.com")


def _src(ref: str | int, day: str) -> str:
    url = f"https://example.com/sessions/{ref}" if isinstance(ref, int) else f"https://example.com/{ref}"
    return f"[source: {url}; added: {day}]"


class _Builder:
    """Applies file edits and commits them with a fixed identity and date."""

    def __init__(self, repo: GitRepo):
        self.repo = repo
        self.files: dict[str, str] = {}
        self.head: str | None = None

    def commit(
        self,
        who: tuple[str, str],
        when: str,
        message: str,
        changes: Mapping[str, str | None],
        branch: str | None = None,
        parent: str | None = None,
    ) -> str:
        name, email = who
        env = {
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email,
            "GIT_COMMITTER_DATE": when,
        }
        expected = self.head if branch is None else parent
        data = {p: (None if c is None else c.encode()) for p, c in changes.items()}
        new = writegate.seed(self.repo, data, message, expected, branch, env=env)
        if branch is None:
            self.head = new
            for p, c in changes.items():
                if c is None:
                    self.files.pop(p, None)
                else:
                    self.files[p] = c
        return new

    def add_line(self, path: str, line: str, *, before: str | None = None) -> str:
        """Return ``path``'s text with ``line`` added at the end (or before the line ``before``)."""
        lines = self.files.get(path, "").splitlines()
        if before is not None and before in lines:
            at = lines.index(before)
            if at > 0 and lines[at - 1] == "":
                at -= 1
            lines.insert(at, line)
        else:
            lines.append(line)
        return "\n".join(lines) + "\n"

    def replace_line(self, path: str, old_start: str, new: str | None) -> str:
        out = []
        for line in self.files[path].splitlines():
            if line.startswith(old_start):
                if new is not None:
                    out.append(new)
            else:
                out.append(line)
        return "\n".join(out) + "\n"

    def link(self, target: str) -> str:
        return self.add_line("MEMORY.md", f"- [[{target}]]")


def _alice(repo: GitRepo) -> None:
    b = _Builder(repo)
    d101, d102, d104, d107, d110, d114, d118, d121 = (_devin(n) for n in (101, 102, 104, 107, 110, 114, 118, 121))
    claude, cursor = AGENTS["claude"], AGENTS["cursor"]
    b.commit(
        AGENTS["alice"], "2026-09-01T08:30:00+00:00", "Create memory repo", {"MEMORY.md": "# Memory\n\n## Index\n"}
    )
    b.commit(
        d101,
        "2026-09-01T09:14:00+00:00",
        "Remember team structure",
        {
            "MEMORY.md": "# Memory: Alice\n\n"
            f"- Alice leads the payments team and wants summaries as short bullet lists {_src(101, '2026-09-01')}\n"
            "\n## Index\n- [[team_structure]]\n",
            "team_structure.md": "# Team structure\n\n"
            f"- Alice leads the payments team and reviews every billing PR {_src(101, '2026-09-01')}\n"
            f"- Priya owns pricing for the billing launch {_src(101, '2026-09-01')}\n"
            f"- Marco runs the website rewrite with one contractor {_src(101, '2026-09-01')}\n"
            f"- Support escalations go to Dana before engineering {_src(101, '2026-09-01')}\n",
        },
    )
    b.commit(
        d102,
        "2026-09-02T14:05:00+00:00",
        "Remember payments project",
        {
            "projects/payments.md": "# Payments\n\n"
            f"- The billing launch moves invoicing from Stripe Billing to our own ledger service {_src(102, '2026-09-02')}\n"
            f"- Ledger writes go through `ledger.post_entry()`; never update balances directly {_src(102, '2026-09-02')}\n"
            f"- Priya decides pricing questions; see [[team_structure]] {_src(102, '2026-09-02')}\n",
            "MEMORY.md": b.link("projects/payments"),
        },
    )
    website_src = "claude-code/7f3a2c"
    b.commit(
        claude,
        "2026-09-03T10:20:00+00:00",
        "Remember website project and launch date",
        {
            "projects/website.md": "# Website\n\n"
            f"- The marketing site is being rebuilt as a Next.js app in the `web/` folder {_src(website_src, '2026-09-03')}\n"
            f"- Staging lives at https://staging-old.example.com until the cutover {_src(website_src, '2026-09-03')}\n"
            f"- Launch copy needs sign-off from Marco; see [[team_structure]] {_src(website_src, '2026-09-03')}\n"
            f"- Hero images are served from `public/hero/` as JPEG {_src(website_src, '2026-09-03')}\n",
            "MEMORY.md": b.add_line(
                "MEMORY.md",
                f"- Payments and website share a 2026-10-15 launch deadline {_src(website_src, '2026-09-03')}",
                before="## Index",
            ).rstrip("\n")
            + "\n- [[projects/website]]\n",
        },
    )
    b.commit(
        d104,
        "2026-09-05T16:45:00+00:00",
        "Save the paying-customers query",
        {
            "billing/count_paying_customers.sql": "-- Paying customers: at least one paid invoice in the last 30 days,\n"
            "-- excluding internal and test accounts.\n"
            "-- source: https://example.com/sessions/104 (added 2026-09-05)\n"
            "SELECT COUNT(DISTINCT c.id) AS paying_customers\n"
            "FROM customers AS c\n"
            "JOIN invoices AS i ON i.customer_id = c.id\n"
            "WHERE i.status = 'paid'\n"
            "  AND i.paid_at >= CURRENT_DATE - INTERVAL '30 days'\n"
            "  AND c.is_internal = FALSE\n"
            "  AND c.email NOT LIKE '%@example.test';\n",
            "projects/payments.md": b.add_line(
                "projects/payments.md",
                f"- Count paying customers with [[billing/count_paying_customers.sql]] {_src(104, '2026-09-05')}",
            ),
            "MEMORY.md": b.link("billing/count_paying_customers.sql"),
        },
    )
    bun_src = "claude-code/91be07"
    b.commit(
        claude,
        "2026-09-08T11:02:00+00:00",
        "Remember bun conventions",
        {
            "tooling/bun.md": "# Bun\n\n"
            f"- Use `bun install` and `bun run` in the web repo, never npm {_src(bun_src, '2026-09-08')}\n"
            f"- `bun test` needs `--preload ./test/setup.ts` for the DOM shims {_src(bun_src, '2026-09-08')}\n",
            "MEMORY.md": b.link("tooling/bun"),
        },
    )
    b.commit(
        d107,
        "2026-09-10T13:30:00+00:00",
        "Remember landing page stack",
        {
            "landing-page.md": "# Landing page\n\n"
            f"- The landing page is built with Next.js and Tailwind CSS {_src(107, '2026-09-10')}\n"
            f"- Hero images are served from `public/hero/` as AVIF {_src(107, '2026-09-10')}\n",
            "projects/website.md": b.add_line(
                "projects/website.md", f"- Landing page notes are in [[landing-page]] {_src(107, '2026-09-10')}"
            ),
            "MEMORY.md": b.link("landing-page"),
        },
    )
    style_src = "cursor/5d81e0"
    b.commit(
        cursor,
        "2026-09-12T15:10:00+00:00",
        "Remember styling rules",
        {
            "styling.md": "# Styling\n\n"
            f"- The website uses Tailwind CSS with the shared `brand` preset {_src(style_src, '2026-09-12')}\n"
            f"- Use shadcn/ui components instead of writing new buttons and dialogs {_src(style_src, '2026-09-12')}\n",
            "MEMORY.md": b.link("styling"),
        },
    )
    b.commit(
        d110,
        "2026-09-15T09:40:00+00:00",
        "Update website team size",
        {
            "team_structure.md": b.replace_line(
                "team_structure.md",
                "- Marco runs the website rewrite",
                f"- Marco runs the website rewrite with two contractors since mid-September {_src(110, '2026-09-15')}",
            ),
        },
    )
    redis_src = "claude-code/c04d19"
    b.commit(
        claude,
        "2026-09-18T17:25:00+00:00",
        "Remember redis client rules",
        {
            "backend/redis.md": "# Redis\n\n"
            f"- Use the shared client in `lib/redis.ts`; do not open a connection per request {_src(redis_src, '2026-09-18')}\n"
            f"- Session keys expire after 24 hours (`SESSION_TTL=86400`) {_src(redis_src, '2026-09-18')}\n",
            "MEMORY.md": b.link("backend/redis"),
        },
    )
    b.commit(
        d114,
        "2026-09-22T12:00:00+00:00",
        "Forget the old staging URL",
        {
            "projects/website.md": b.replace_line("projects/website.md", "- Staging lives at", None),
        },
    )
    b.commit(
        d118,
        "2026-10-06T15:55:00+00:00",
        "Remember dev port",
        {
            "dev-port.md": f"# Dev port\n\n- Dev server was on port 3001 this afternoon {_src(118, '2026-10-06')}\n",
            "MEMORY.md": b.link("dev-port"),
        },
    )
    mig_src = "claude-code/e5a7b2"
    base = b.commit(
        claude,
        "2026-10-06T18:20:00+00:00",
        "Remember migration order",
        {
            "backend/migrations.md": "# Migrations\n\n"
            f"- Ship a schema migration in its own PR before the API change that uses it {_src(mig_src, '2026-10-06')}\n"
            f"- Run migrations with `bun run db:migrate`; see [[tooling/bun]] {_src(mig_src, '2026-10-06')}\n",
            "MEMORY.md": b.link("backend/migrations"),
        },
    )

    # The nightly dreaming run starts from `base` on its own branch.
    writegate.create_branch(repo, DREAM_BRANCH, base)
    dream = AGENTS["dream"]
    stack = (
        "# Frontend stack\n\n"
        "- The website and its landing page are built with Next.js and Tailwind CSS, using the shared "
        "`brand` preset [source: https://example.com/sessions/107; "
        "source: https://example.com/cursor/5d81e0; added: 2026-10-07]\n"
        f"- Hero images are served from `public/hero/` as AVIF {_src(107, '2026-09-10')}\n"
        f"- Use shadcn/ui components instead of writing new buttons and dialogs {_src(style_src, '2026-09-12')}\n"
    )
    memory = b.files["MEMORY.md"]
    index_old = memory[memory.index("## Index") :]
    merged_index = index_old.replace("- [[landing-page]]\n", "- [[frontend/stack]]\n").replace("- [[styling]]\n", "")
    d1 = b.commit(
        dream,
        "2026-10-07T03:00:00+00:00",
        "dream: merge landing-page and styling into frontend/stack",
        {
            "frontend/stack.md": stack,
            "landing-page.md": None,
            "styling.md": None,
            "projects/website.md": b.files["projects/website.md"].replace("[[landing-page]]", "[[frontend/stack]]"),
            "MEMORY.md": memory.replace(index_old, merged_index),
        },
        branch=DREAM_BRANCH,
        parent=base,
    )
    after_merge = memory.replace(index_old, merged_index)
    no_port = after_merge.replace("- [[dev-port]]\n", "")
    d2 = b.commit(
        dream,
        "2026-10-07T03:00:20+00:00",
        "dream: drop dev-port",
        {"dev-port.md": None, "MEMORY.md": no_port},
        branch=DREAM_BRANCH,
        parent=d1,
    )
    top = no_port[: no_port.index("## Index")]
    b.commit(
        dream,
        "2026-10-07T03:00:40+00:00",
        "dream: rewrite index",
        {
            "MEMORY.md": top + "## Index\n"
            "- [[team_structure]]\n- [[projects/payments]]\n- [[projects/website]]\n"
            "- [[billing/count_paying_customers.sql]]\n- [[frontend/stack]]\n"
            "- [[backend/migrations]]\n- [[backend/redis]]\n- [[tooling/bun]]\n",
        },
        branch=DREAM_BRANCH,
        parent=d2,
    )

    # Meanwhile, main moves on.
    b.commit(
        d121,
        "2026-10-07T09:12:00+00:00",
        "Remember API rate limits",
        {
            "backend/rate-limits.md": "# Rate limits\n\n"
            f"- The public API allows 100 requests per minute per key; see [[backend/redis]] {_src(121, '2026-10-07')}\n"
            f"- Rate-limit middleware lives in `middleware/rate-limit.ts` {_src(121, '2026-10-07')}\n",
            "MEMORY.md": b.link("backend/rate-limits"),
        },
    )
    b.commit(
        claude,
        "2026-10-07T10:40:00+00:00",
        "Update website launch sign-off",
        {
            "projects/website.md": b.replace_line(
                "projects/website.md",
                "- Launch copy needs sign-off",
                f"- Marco signed off the launch copy on 2026-10-06; see [[team_structure]] {_src('claude-code/3a9f41', '2026-10-07')}",
            ),
        },
    )


def _bob(repo: GitRepo) -> None:
    b = _Builder(repo)
    claude = AGENTS["claude"]
    b.commit(AGENTS["bob"], "2026-09-20T08:00:00+00:00", "Create memory repo", {"MEMORY.md": "# Memory\n\n## Index\n"})
    oncall_src = "claude-code/b1c2d3"
    b.commit(
        claude,
        "2026-09-21T10:00:00+00:00",
        "Remember on-call rotation",
        {
            "MEMORY.md": "# Memory: Bob\n\n"
            f"- Bob is on call the first week of every month {_src(oncall_src, '2026-09-21')}\n"
            "\n## Index\n- [[oncall]]\n",
            "oncall.md": "# On-call\n\n"
            f"- Pages go to the #payments-oncall channel first, then PagerDuty {_src(oncall_src, '2026-09-21')}\n"
            f"- Hand over open incidents in the Monday standup {_src(oncall_src, '2026-09-21')}\n",
        },
    )
    b.commit(
        _devin(201),
        "2026-09-23T14:30:00+00:00",
        "Remember deploy process",
        {
            "deploys.md": "# Deploys\n\n"
            f"- Deploys go out from `main` through the `ship` GitHub Action {_src(201, '2026-09-23')}\n"
            f"- Roll back with the steps in [[runbooks/rollback]] {_src(201, '2026-09-23')}\n"
            f"- Do not deploy on Fridays after 14:00 {_src(201, '2026-09-23')}\n",
            "MEMORY.md": b.link("deploys"),
        },
    )
    b.commit(
        _devin(202),
        "2026-09-25T11:15:00+00:00",
        "Remember Datadog MCP usage",
        {
            "using_datadog_mcp.md": "# Using the Datadog MCP\n\n"
            f"- Query logs with service:payments-api and a 15 minute window first {_src(202, '2026-09-25')}\n"
            f"- The MCP token is read-only; dashboards cannot be edited from it {_src(202, '2026-09-25')}\n"
            f"- Error budgets for deploys are tracked there; see [[deploys]] {_src(202, '2026-09-25')}\n",
            "MEMORY.md": b.link("using_datadog_mcp"),
        },
    )
    b.commit(
        claude,
        "2026-09-28T16:40:00+00:00",
        "Remember summary preference",
        {
            "MEMORY.md": b.add_line(
                "MEMORY.md",
                f"- Prefers summaries as short bullet lists {_src('claude-code/f00d42', '2026-09-28')}",
                before="## Index",
            ),
        },
    )


def _is_intact_demo(dest: Path) -> bool:
    return all(is_memory_repo(dest / name) for name in REPOS)


def build_demo(dest: str | os.PathLike[str], *, rebuild: bool = False) -> list[Path]:
    """Create (or reuse) the demo repos under ``dest``; returns their paths (alice, bob).

    Raises :class:`DemoRefusedError` for a folder that is not empty and not a demo, and
    :class:`DemoError` when git fails.
    """
    try:
        return _build(Path(dest), rebuild)
    except DemoError:
        raise
    except AmrGitError as exc:
        raise DemoError(str(exc)) from exc


def _build(dest: Path, rebuild: bool) -> list[Path]:
    dest = Path(dest).expanduser().absolute()
    paths = [dest / name for name in REPOS]
    if dest.exists() and not dest.is_dir():
        raise DemoRefusedError(f"{dest} exists and is not a folder; amr changed nothing.")
    if dest.is_dir() and any(dest.iterdir()):
        if not (dest / MARKER).is_file():
            raise DemoRefusedError(
                f"{dest} is not empty and is not an amr demo folder; amr changed nothing. Pick a new or empty folder."
            )
        if not rebuild and _is_intact_demo(dest):
            return paths
        for p in paths:
            if p.is_symlink() or p.is_file():
                p.unlink()
            elif p.exists():
                shutil.rmtree(p)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / MARKER).write_bytes(MARKER_TEXT)
    for path, build in zip(paths, (_alice, _bob), strict=True):
        repo = GitRepo.init(path, initial_branch="main")
        build(repo)
        install_driver_config(repo.runner)  # as `amr init` does: a plain git pull merges entries
    return paths
