"""Replay the thirteen reproductions of issue 11 against the current amr and write docs/trust-replays.md.

Every reproduction runs on throw-away repos made with real git under one temp folder, with its own
``HOME`` (no global git or amr config, caches in there), ``GIT_CONFIG_NOSYSTEM=1`` and an explicit
author/committer per actor: "Replay User" for the person at the keyboard, "Agent" for the shell or
agent processes writing beside the app. The UI reproductions (1, 2, 3, 4, 6) drive the real
``.venv/bin/amr`` by keys in tmux (a private tmux server socket, a 130x38 pane) and wait by polling
``tmux capture-pane`` for the text they expect; the CLI ones (5, 7, 8, 12, 13) run the commands; the
load ones run plain-git agent processes (9) or bench/starvation.py (10, 11).

For each reproduction the document records the steps, the screen or command excerpts that matter,
what git shows afterwards, and a verdict line "behaves as the issue asks: yes/no" with the reason.

    .venv/bin/python bench/replay_trust.py [--only 1,2,...] [--out docs/trust-replays.md] [--keep]
                                           [--load-seconds 20] [--starvation-seconds 20]

Exit status: 0 when every reproduction replayed behaves as the issue asks, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AMR = str(ROOT / ".venv" / "bin" / "amr")
PY = str(ROOT / ".venv" / "bin" / "python")
USER = {
    "GIT_AUTHOR_NAME": "Replay User",
    "GIT_AUTHOR_EMAIL": "user@example.test",
    "GIT_COMMITTER_NAME": "Replay User",
    "GIT_COMMITTER_EMAIL": "user@example.test",
}
AGENT = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.test",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.test",
}
SIZE = (130, 38)

MEMORY = (
    "# Memory\n\n- Use npm for the website [added: 2026-09-01]\n- Deploy with fly\n\n## Index\n- [[projects/website]]\n"
)
WEBSITE = "# Website\n\n- Built with Next.js\n- Hosted on fly\n"


# --------------------------------------------------------------------------------------------
# environment, git, commands


class Env:
    """One temp folder per run: HOME, repos, logs."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self._n = 0

    def base_env(self, who: dict[str, str] | None) -> dict[str, str]:
        env = {
            "HOME": str(self.home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "GIT_CONFIG_NOSYSTEM": "1",
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "TZ": "UTC",
        }
        if who:
            env.update(who)
        return env

    def folder(self, name: str) -> Path:
        self._n += 1
        p = self.base / f"{self._n:02d}-{name}"
        p.mkdir(parents=True)
        return p


ENV: Env  # set in main()


def run(
    args: list[str],
    cwd: Path | str | None = None,
    who: dict[str, str] | None = AGENT,
    check: bool = False,
    timeout: float = 300,
    stdin: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    env = ENV.base_env(who)
    if extra_env:
        env.update(extra_env)
    res = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, input=stdin, errors="replace"
    )
    if check and res.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {res.returncode}: {res.stderr.strip()[-800:]}")
    return res


def git(repo: Path, *args: str, who: dict[str, str] | None = AGENT, check: bool = True) -> str:
    return run(["git", *args], cwd=repo, who=who, check=check).stdout


def amr(
    *args: str,
    cwd: Path | None = None,
    who: dict[str, str] | None = USER,
    timeout: float = 300,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    return run([AMR, *args], cwd=cwd, who=who, timeout=timeout, extra_env=extra_env)


def shown(res: subprocess.CompletedProcess, cmd: str, limit: int = 40, wall: float | None = None) -> str:
    """A command and its output, as a transcript."""
    out = [f"$ {cmd}"]
    body = (res.stdout or "") + (res.stderr or "")
    lines = body.rstrip("\n").splitlines()
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    out += lines
    out.append(f"[exit {res.returncode}" + (f", {wall:.2f} s" if wall is not None else "") + "]")
    return "\n".join(out)


def make_repo(
    path: Path,
    files: dict[str, str | bytes],
    who: dict[str, str] = AGENT,
    message: str = "agent: initial memory",
    local_identity: dict[str, str] | None = None,
) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if local_identity:
        git(path, "config", "user.name", local_identity["GIT_AUTHOR_NAME"])
        git(path, "config", "user.email", local_identity["GIT_AUTHOR_EMAIL"])
    for rel, body in files.items():
        f = path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            f.write_bytes(body)
        else:
            f.write_text(body)
    git(path, "add", "--", *files)
    git(path, "commit", "-q", "-m", message, who=who)
    return path


def log_stat(repo: Path, n: int = 3) -> str:
    return (
        f"$ git log --stat -{n}\n"
        + git(repo, "log", "--stat", f"-{n}", "--format=commit %h  %an: %s%n%b", who=None).rstrip()
    )


# --------------------------------------------------------------------------------------------
# tmux


class Timeout(Exception):
    def __init__(self, what: str, screen: str) -> None:
        super().__init__(f"timed out waiting for {what}")
        self.what, self.screen = what, screen


class Tmux:
    """amr in a detached tmux session on a private server socket."""

    def __init__(self, name: str, cwd: Path, args: list[str], who: dict[str, str] | None = USER) -> None:
        self.sock = f"amr-replay-{os.getpid()}"
        self.name = name
        env = ENV.base_env(who)
        env["TERM"] = "xterm-256color"
        env["COLORTERM"] = "truecolor"
        assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        self.command = f"cd {shlex.quote(str(cwd))} && exec env -i {assigns} {AMR} {' '.join(map(shlex.quote, args))}"
        self.shown_command = f"tmux new -d -s {name} -x {SIZE[0]} -y {SIZE[1]} 'cd {cwd.name} && amr {' '.join(args)}'"
        self._tmux("new-session", "-d", "-s", name, "-x", str(SIZE[0]), "-y", str(SIZE[1]), self.command)
        self._tmux("set-option", "-t", name, "remain-on-exit", "on", check=False)

    def _tmux(self, *args: str, check: bool = True) -> str:
        res = subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", *args], capture_output=True, text=True)
        if check and res.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args[:2])}: {res.stderr.strip()}")
        return res.stdout

    def keys(self, *keys: str) -> None:
        """tmux key names (Enter, Escape, Home, C-q ...) or single characters, one at a time."""
        for k in keys:
            self._tmux("send-keys", "-t", self.name, k)
            time.sleep(0.08)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.name, "-l", "--", text)
        time.sleep(0.15)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name, check=False)

    def dead(self) -> bool:
        out = self._tmux("display-message", "-p", "-t", self.name, "#{pane_dead}", check=False).strip()
        return out in ("1", "")

    def wait(self, what: str | Callable[[str], bool], timeout: float = 15.0, label: str | None = None) -> str:
        pred = (lambda s: what in s) if isinstance(what, str) else what
        end = time.monotonic() + timeout
        s = ""
        while time.monotonic() < end:
            s = self.screen()
            if pred(s):
                return s
            time.sleep(0.1)
        raise Timeout(label or (what if isinstance(what, str) else "the screen"), s)

    def close(self) -> None:
        self._tmux("kill-session", "-t", self.name, check=False)

    def kill_server(self) -> None:
        self._tmux("kill-server", check=False)


def excerpt(screen: str, *needles: str, around: int = 0, strip_tree: bool = True) -> str:
    """The lines of a captured screen holding any needle (and ``around`` lines each side)."""
    lines = screen.rstrip("\n").splitlines()
    keep: set[int] = set()
    for i, ln in enumerate(lines):
        if any(n in ln for n in needles):
            keep.update(range(max(0, i - around), min(len(lines), i + around + 1)))
    out, last = [], None
    for i in sorted(keep):
        if last is not None and i != last + 1:
            out.append("    ...")
        out.append(lines[i].rstrip())
        last = i
    return "\n".join(out)


def region(screen: str, first: str, last: str | None = None, extra: int = 0) -> str:
    """The lines from the first holding ``first`` to the next holding ``last`` (or ``extra`` more)."""
    lines = screen.rstrip("\n").splitlines()
    start = next((i for i, ln in enumerate(lines) if first in ln), None)
    if start is None:
        return "(not on screen: " + first + ")"
    end = start + extra
    if last is not None:
        end = next((i for i in range(start, len(lines)) if last in lines[i]), start + extra)
    return "\n".join(ln.rstrip() for ln in lines[start : end + 1])


def side_title(screen: str) -> str:
    """The side panel's first line: the entry under the cursor."""
    lines = screen.splitlines()
    return lines[1].rsplit("\u258f", 1)[-1].strip() if len(lines) > 1 else ""


def ready(t: Tmux, timeout: float = 30) -> str:
    return t.wait("items indexed", timeout, "the app to load (status line 'N items indexed')")


def cursor_to(t: Tmux, text: str, max_moves: int = 20) -> str:
    """Move the entry cursor with ``j`` (then from the top, ``g``) until the side panel names the entry holding
    ``text``; each key waits for the side panel to follow."""

    def step(key: str) -> str:
        before = side_title(t.screen())
        t.keys(key)
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            s = t.screen()
            if side_title(s) != before:
                return s
            time.sleep(0.05)
        return t.screen()

    s = t.screen()
    for key in ["j"] * max_moves + ["g"] + ["j"] * max_moves:
        if text in side_title(s):
            time.sleep(0.2)
            return t.screen()
        s = step(key)
    raise Timeout(f"the cursor on '{text}'", t.screen())


def open_file(t: Tmux, name: str, first_entry: str) -> str:
    """``/``, type the file name, Enter on the first result (the file), wait for its first entry."""
    t.keys("/")
    time.sleep(0.5)
    t.type(name)
    t.wait(lambda s: "\u25a1 " + name in s, label=f"the finder listing {name}")
    t.keys("Enter")
    return t.wait(lambda s: f"/ {name}" in s and first_entry in side_title(s), label=f"{name} open")


def clean(screen: str) -> str:
    """A captured screen without its empty rows (rows holding only pane borders)."""
    return "\n".join(ln.rstrip() for ln in screen.splitlines() if ln.strip(" \u2595\u258f\u258c"))


# --------------------------------------------------------------------------------------------
# the report


@dataclass
class Replay:
    number: int
    title: str
    issue: str
    steps: list[str] = field(default_factory=list)
    blocks: list[tuple[str, str]] = field(default_factory=list)
    checks: list[tuple[bool, str]] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def step(self, text: str) -> None:
        self.steps.append(text)

    def show(self, label: str, text: str) -> None:
        self.blocks.append((label, text.rstrip("\n")))

    def check(self, ok: bool, what: str) -> bool:
        self.checks.append((bool(ok), what))
        return bool(ok)

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.checks) and all(ok for ok, _ in self.checks)

    def verdict(self) -> str:
        if self.error:
            return f"behaves as the issue asks: no (the replay stopped: {self.error})"
        failed = [w for ok, w in self.checks if not ok]
        if failed:
            return "behaves as the issue asks: no (" + "; ".join(failed) + ")"
        return f"behaves as the issue asks: yes (all {len(self.checks)} checks above hold)"

    def markdown(self) -> str:
        out = [f"## {self.number}. {self.title}", "", f"Issue: {self.issue}", "", "Steps:", ""]
        out += [f"{i}. {s}" for i, s in enumerate(self.steps, 1)]
        out.append("")
        for label, text in self.blocks:
            out += [f"{label}:", "", "```text", text, "```", ""]
        out.append("Checks:")
        out.append("")
        out += [f"- [{'x' if ok else ' '}] {w}" for ok, w in self.checks]
        if self.error:
            out.append(f"- [ ] the replay ran to the end: {self.error}")
        if self.notes:
            out += ["", "Notes (not counted in the verdict):", ""] + [f"- {n}" for n in self.notes]
        out += ["", f"**Verdict: {self.verdict()}**", "", f"(replayed in {self.seconds:.1f} s)", ""]
        return "\n".join(out)


REPLAYS: dict[int, Callable[[Replay], None]] = {}
TITLES: dict[int, tuple[str, str]] = {}


def replay(number: int, title: str, issue: str):
    def deco(fn):
        REPLAYS[number] = fn
        TITLES[number] = (title, issue)
        return fn

    return deco


# --------------------------------------------------------------------------------------------
# 1. silent revert


@replay(
    1,
    "Silent revert: an edit started before a live refresh",
    "open MEMORY.md, `e`, type at the start of the entry, do not save; an agent commits `npm` -> "
    "`npm and yarn` in the same entry; wait ~3 s for the live refresh; enter. It used to commit the "
    'user\'s text and drop "and yarn" with no notice.',
)
def r1(r: Replay) -> None:
    repo = make_repo(ENV.folder("silent-revert") / "memory", {"MEMORY.md": MEMORY, "projects/website.md": WEBSITE})
    t = Tmux("r1", repo, [str(repo)])
    try:
        r.step(
            f'`{t.shown_command}` on a repo whose MEMORY.md holds `- Use npm for the website [added: 2026-09-01]`; wait for "items indexed"'
        )
        ready(t)
        r.step('`j` (or `g` then `j`) until the side panel names "Use npm for the website", then `e`')
        cursor_to(t, "Use npm for the website")
        t.keys("e")
        t.wait("Editing line 3", label="the entry editor")
        r.step("`Home`, type `Always ` (not saved)")
        t.keys("Home")
        t.type("Always ")
        s = t.wait("Always Use npm", label="the typed text in the editor")
        r.show("screen: the editor holds the user's unsaved text", region(s, "Editing line", "valid entry"))
        r.step(
            "from a shell (as Agent): `sed -i 's/Use npm/Use npm and yarn/' MEMORY.md && git commit -qam 'agent: yarn too'`"
        )
        (repo / "MEMORY.md").write_text(MEMORY.replace("Use npm", "Use npm and yarn"))
        git(repo, "commit", "-qam", "agent: yarn too")
        agent_head = git(repo, "rev-parse", "HEAD").strip()
        t0 = time.monotonic()
        s = t.wait(lambda s: "npm and yarn" in s, label="the live refresh to show the agent's change")
        refreshed = time.monotonic() - t0
        while time.monotonic() - t0 < 3.0:
            time.sleep(0.1)
        s = t.screen()
        r.step(f'wait: the live refresh shows "npm and yarn" after {refreshed:.1f} s; wait until 3 s have passed')
        r.show(
            "screen after the refresh (the editor still holds the user's text)",
            excerpt(s, "npm and yarn", "changed", "Always Use npm", "Editing line"),
        )
        r.step("`Enter` (save)")
        t.keys("Enter")
        s = t.wait(
            lambda s: "conflicts with a change" in s or "Saved" in s or "saved" in s,
            timeout=15,
            label="the save's outcome",
        )
        conflict = "conflicts with a change committed meanwhile" in s
        if not conflict:
            r.show("screen after enter", clean(s))
        r.check(
            conflict,
            'enter shows the conflict view ("Your edit of MEMORY.md conflicts with a change committed meanwhile") '
            "with both sides"
            if conflict
            else "enter did not show a conflict view",
        )
        head_text = git(repo, "show", "HEAD:MEMORY.md")
        r.check(
            git(repo, "rev-parse", "HEAD").strip() == agent_head,
            "nothing was committed behind the user's back: HEAD is still the agent's commit",
        )
        r.check("Use npm and yarn" in head_text, 'HEAD:MEMORY.md still says "npm and yarn"')
        if conflict:
            r.show(
                "screen: the conflict view",
                excerpt(s, "Your edit of", "Yours", "Use npm", "<<<<<<<", "|||||||", "=======", ">>>>>>>", "Keep mine"),
            )
            r.step(
                "in the conflict view: `Tab` `Tab` to the result, `F7` (select all), type the file with the entry "
                "as `- Always Use npm and yarn for the website [added: 2026-09-01]`, `ctrl+s` (Save edited result)"
            )
            t.keys("Tab", "Tab", "F7")
            for i, line in enumerate(MEMORY.replace("Use npm", "Always Use npm and yarn").splitlines()):
                if line:
                    t.type(line)
                t.keys("Enter")
            t.wait(lambda s: "<<<<<<<" not in s, label="the typed result")
            t.keys("C-s")
            s = t.wait(lambda s: "Committed" in s or "Not saved" in s, label="the resolved save")
            r.show("screen after ctrl+s", excerpt(clean(s), "Always Use npm", "Committed", "Resolve", "Not saved"))
        r.show(
            "git afterwards",
            log_stat(repo, 3) + "\n\n$ git show HEAD:MEMORY.md\n" + git(repo, "show", "HEAD:MEMORY.md"),
        )
        final = git(repo, "show", "HEAD:MEMORY.md")
        r.check(
            "Always Use npm and yarn" in final,
            'after resolving, HEAD holds both the user\'s "Always" and the '
            "agent's \"and yarn\", in a commit on top of the agent's",
        )
        r.check(
            git(repo, "rev-parse", "HEAD~1").strip() == agent_head, "the agent's commit is the resolved commit's parent"
        )
        r.check(git(repo, "status", "--porcelain") == "", "the work tree is clean")

        # 1b: the same race where the agent changed another entry: the save merges both.
        r.step(
            "variant (same timing, the agent changes the *other* entry): a second repo, `e` on the npm entry, "
            "`Home`, type `Always `; the agent commits `Deploy with fly` -> `Deploy with fly.io`; after the refresh "
            "and 3 s, `Enter`"
        )
        t.close()
        repo2 = make_repo(
            ENV.folder("silent-revert-b") / "memory", {"MEMORY.md": MEMORY, "projects/website.md": WEBSITE}
        )
        t = Tmux("r1b", repo2, [str(repo2)])
        ready(t)
        cursor_to(t, "Use npm for the website")
        t.keys("e")
        t.wait("Editing line 3")
        t.keys("Home")
        t.type("Always ")
        t.wait("Always Use npm")
        (repo2 / "MEMORY.md").write_text(MEMORY.replace("Deploy with fly", "Deploy with fly.io"))
        git(repo2, "commit", "-qam", "agent: fly.io")
        t0 = time.monotonic()
        t.wait("fly.io", label="the live refresh")
        while time.monotonic() - t0 < 3.0:
            time.sleep(0.1)
        t.keys("Enter")
        end = time.monotonic() + 15
        while time.monotonic() < end and "Always Use npm" not in git(repo2, "show", "HEAD:MEMORY.md"):
            time.sleep(0.2)
        s = t.screen()
        r.show("variant: screen after enter", excerpt(s, "Always Use npm", "fly.io", "Saved", "saved"))
        r.show(
            "variant: git afterwards",
            log_stat(repo2, 2) + "\n\n$ git show HEAD:MEMORY.md\n" + git(repo2, "show", "HEAD:MEMORY.md"),
        )
        h2 = git(repo2, "show", "HEAD:MEMORY.md")
        r.check(
            "Always Use npm" in h2 and "Deploy with fly.io" in h2,
            'variant: the save is merged onto the agent\'s commit (both "Always Use npm" and "fly.io" in HEAD)',
        )
    finally:
        t.close()
        t.kill_server()


# --------------------------------------------------------------------------------------------
# 2. swept-in change


@replay(
    2,
    "Swept-in change: `t` next to an agent's uncommitted line",
    "append a line to projects/website.md from a shell without committing; open that file in amr and press `t` "
    "on the other entry. amr's commit used to contain the agent's uncommitted line.",
)
def r2(r: Replay) -> None:
    repo = make_repo(ENV.folder("swept-in") / "memory", {"MEMORY.md": MEMORY, "projects/website.md": WEBSITE})
    r.step("from a shell (as Agent): `echo '- Uncommitted agent line' >> projects/website.md` (not committed)")
    with (repo / "projects/website.md").open("a") as f:
        f.write("- Uncommitted agent line\n")
    t = Tmux("r2", repo, [str(repo)])
    try:
        r.step(f'`{t.shown_command}`; wait for "items indexed"')
        ready(t)
        r.step("`/`, type `projects/website.md`, `Enter` (the file result)")
        s = open_file(t, "projects/website.md", "Built with Next.js")
        r.show(
            "screen: website.md open, the agent's line visible",
            excerpt(s, "Website", "Next.js", "Hosted on fly", "Uncommitted"),
        )
        r.step('cursor on "Built with Next.js" (not the agent\'s line), `t` (stamp added: today)')
        cursor_to(t, "Built with Next.js")
        head0 = git(repo, "rev-parse", "HEAD").strip()
        t.keys("t")
        s = t.wait(lambda s: "uncommitted changes" in s and "Committed" in s, label="the commit and the notice")
        r.show(
            "screen after t",
            excerpt(
                clean(s),
                "Next.js",
                "Committed",
                "Edit entry",
                "uncommitted",
                "not made in amr",
                "are still in the file",
                "commit of their own",
            ),
        )
        stamped = git(repo, "show", "HEAD:projects/website.md")
        r.show(
            "git after t",
            log_stat(repo, 1)
            + "\n\n$ git show HEAD -- projects/website.md | tail -4\n"
            + "\n".join(git(repo, "show", "HEAD", "--format=", "--", "projects/website.md").splitlines()[-4:])
            + "\n\n$ git status --short\n"
            + git(repo, "status", "--short"),
        )
        r.check(
            git(repo, "rev-parse", "HEAD~1").strip() == head0 and "added:" in stamped,
            '`t` made one commit, stamping "Built with Next.js"',
        )
        r.check("Uncommitted agent line" not in stamped, "the commit does not contain the agent's uncommitted line")
        r.check(
            "Uncommitted agent line" in (repo / "projects/website.md").read_text(),
            "the agent's line is still in the work tree, uncommitted",
        )
        r.check(
            "uncommitted changes" in s and "Press U" in s.replace("\n", " ") or "U to commit" in s.replace("\n", " "),
            'the user is told ("... left out of this commit and are still in the file. Press U ...")',
        )
        r.step("`U` (commit others' uncommitted changes), then `y`")
        t.keys("U")
        s = t.wait("Commit others' uncommitted changes?", label="the U question")
        r.show("screen: the U question", region(s, "Commit others' uncommitted changes?", "Commit them (y)"))
        t.keys("y")
        end = time.monotonic() + 10
        while time.monotonic() < end and "Uncommitted agent line" not in git(repo, "show", "HEAD:projects/website.md"):
            time.sleep(0.2)
        body = git(repo, "log", "-1", "--format=%B")
        r.show("git after U", log_stat(repo, 1) + "\n\n$ git status --short\n" + git(repo, "status", "--short"))
        r.check(
            "Uncommitted agent line" in git(repo, "show", "HEAD:projects/website.md") and "not made in amr" in body,
            '`U` committed the agent\'s line as a commit of its own, labelled "not made in amr"',
        )
        r.check(git(repo, "status", "--porcelain") == "", "the work tree is clean afterwards")
    finally:
        t.close()
        t.kill_server()


# --------------------------------------------------------------------------------------------
# 3. lost draft


@replay(
    3,
    "Lost draft: `ctrl+q` with text in the entry editor",
    "`e`, type, `ctrl+q`: the app used to quit at once and the text was gone (`q` asked).",
)
def r3(r: Replay) -> None:
    repo = make_repo(ENV.folder("lost-draft") / "memory", {"MEMORY.md": MEMORY, "projects/website.md": WEBSITE})
    t = Tmux("r3", repo, [str(repo)])
    try:
        r.step(f'`{t.shown_command}`; wait for "items indexed"')
        ready(t)
        r.step('cursor on "Deploy with fly", `e`, `End`, type ` (draft text nobody saved)`')
        cursor_to(t, "Deploy with fly")
        t.keys("e")
        t.wait("Editing line 4", label="the entry editor")
        t.keys("End")
        t.type(" (draft text nobody saved)")
        t.wait("draft text nobody saved", label="the typed text")
        r.step("`ctrl+q`")
        t.keys("C-q")
        time.sleep(1.0)
        s = t.screen()
        asked = "Quit and discard" in s
        r.show(
            "screen after ctrl+q",
            excerpt(s, "Quit and discard", "the entry you are editing", "Keep editing") if asked else clean(s),
        )
        r.check(
            not t.dead() and asked,
            'ctrl+q asks first ("Quit and discard 1 unsaved edit?", Discard / Keep editing)'
            if asked
            else "ctrl+q did not ask",
        )
        if not asked:
            return
        r.step("`n` (Keep editing)")
        t.keys("n")
        s = t.wait(lambda s: "Quit and discard" not in s, label="the question to close")
        r.show("screen after n", excerpt(s, "Editing line", "draft text nobody saved"))
        r.check(
            "draft text nobody saved" in s and "Editing line 4" in s,
            "Keep editing returns to the editor with the text as it was",
        )
        r.step('`Escape` (close the editor): it asks "Discard this edit?"; `n` (Keep editing)')
        t.keys("Escape")
        s = t.wait("Discard this edit?", label="the esc question")
        r.show("screen after esc", excerpt(s, "Discard this edit?", "not saved", "Keep editing"))
        t.keys("n")
        s = t.wait(
            lambda s: "Discard this edit?" not in s and "draft text nobody saved" in s, label="back in the editor"
        )
        r.check("draft text nobody saved" in s, 'esc asks too ("Discard this edit?"), and Keep editing keeps the text')
        r.step("`ctrl+q` again, then `y` (Discard)")
        t.keys("C-q")
        t.wait("Quit and discard", label="the question again")
        t.keys("y")
        end = time.monotonic() + 10
        while time.monotonic() < end and not t.dead():
            time.sleep(0.1)
        r.check(t.dead(), "Discard quits the app")
        r.show("git afterwards", log_stat(repo, 1) + "\n\n$ git status --short\n" + git(repo, "status", "--short"))
        r.check(
            len(git(repo, "log", "--format=%h").split()) == 1 and git(repo, "status", "--porcelain") == "",
            "nothing was written or committed (the user chose to discard)",
        )
        r.step(
            "the whole-file editor: a new session, `E`, type `WHOLEFILE` at the top, `ctrl+q`; `n`; `Escape`; `n`; "
            "`ctrl+q`; `y`"
        )
        t.close()
        t = Tmux("r3b", repo, [str(repo)])
        ready(t)
        t.keys("E")
        t.wait("ctrl+s saves and commits", label="the whole-file editor")
        t.type("WHOLEFILE")
        t.wait("WHOLEFILE# Memory", label="the typed text")
        t.keys("C-q")
        s = sq = t.wait("Quit and discard", label="the quit question")
        r.show(
            "whole-file editor: screen after ctrl+q",
            excerpt(s, "Editing MEMORY.md", "WHOLEFILE", "Quit and discard", "whole-file edit", "Keep editing"),
        )
        t.keys("n")
        t.wait(lambda s: "Quit and discard" not in s, label="the question to close")
        t.keys("Escape")
        s = t.wait("Discard changes?", label="the esc question")
        r.show("whole-file editor: screen after esc", excerpt(s, "Discard changes?", "not saved", "Keep editing"))
        t.keys("n")
        s = t.wait(lambda s: "Discard changes?" not in s and "WHOLEFILE" in s, label="back in the whole-file editor")
        r.check(
            "your whole-file edit" in sq and "WHOLEFILE" in s,
            'the whole-file editor asks on ctrl+q ("Quit and discard 1 unsaved edit? ... your whole-file edit") and '
            'on esc ("Discard changes?"), and Keep editing keeps the text',
        )
        t.keys("C-q")
        t.wait("Quit and discard", label="the quit question")
        t.keys("y")
        end = time.monotonic() + 10
        while time.monotonic() < end and not t.dead():
            time.sleep(0.1)
        r.check(
            t.dead() and git(repo, "status", "--porcelain") == "" and len(git(repo, "log", "--format=%h").split()) == 1,
            "after Discard the app quits and nothing was written or committed",
        )
    finally:
        t.close()
        t.kill_server()


# --------------------------------------------------------------------------------------------
# 4. metadata that silently becomes text


@replay(
    4,
    "Metadata that silently becomes text: typing after the closing `]`",
    'in `e`, type anything after the closing `]` (`... added: 2026-09-01] DRAFT`): the editor said "valid entry", it '
    'was committed, `amr parse` gave `"metadata": {}` and `amr lint` said all clean.',
)
def r4(r: Replay) -> None:
    repo = make_repo(ENV.folder("metadata-text") / "memory", {"MEMORY.md": MEMORY, "projects/website.md": WEBSITE})
    t = Tmux("r4", repo, [str(repo)])
    try:
        r.step(f'`{t.shown_command}`; wait for "items indexed"')
        ready(t)
        r.step('cursor on "Use npm for the website", `e`, `End`, type ` DRAFT` after the closing `]`')
        cursor_to(t, "Use npm for the website")
        t.keys("e")
        t.wait("Editing line 3", label="the entry editor")
        t.keys("End")
        t.type(" DRAFT")
        s = t.wait(lambda s: "] DRAFT" in s and ("AMR" in s or "valid entry" in s), label="the editor's verdict")
        time.sleep(0.5)
        s = t.screen()
        r.show("screen: the editor as you type", region(s, "Editing line", None, extra=5))
        r.check(
            "AMR031" in s and "valid entry" not in region(s, "Editing line", None, extra=4),
            'the editor shows a diagnostic (AMR031) as you type, not "valid entry"',
        )
        r.step("`Enter` (save: a warning does not block the save)")
        head0 = git(repo, "rev-parse", "HEAD").strip()
        t.keys("Enter")
        end = time.monotonic() + 10
        while time.monotonic() < end and git(repo, "rev-parse", "HEAD").strip() == head0:
            time.sleep(0.2)
        time.sleep(0.5)
        s = t.screen()
        r.show("screen after enter", excerpt(clean(s), "DRAFT", "Committed", "Not saved", "AMR031"))
    finally:
        t.close()
        t.kill_server()
    r.show(
        "git afterwards",
        log_stat(repo, 1)
        + "\n\n$ git show HEAD:MEMORY.md | sed -n 3p\n"
        + git(repo, "show", "HEAD:MEMORY.md").splitlines()[2],
    )
    r.step("`amr parse MEMORY.md --json`, `amr lint`, `amr lint --fix`, then `amr parse` again")
    p1 = amr("parse", "MEMORY.md", "--json", cwd=repo)
    first = next((e for e in json.loads(p1.stdout or "[]") if "DRAFT" in e.get("text", "")), {})
    r.show(
        "amr parse (the entry)",
        "$ amr parse MEMORY.md --json  # the entry on line 3\n"
        + json.dumps({k: first.get(k) for k in ("line", "text", "metadata", "diagnostics")}, indent=1),
    )
    l1 = amr("lint", cwd=repo)
    r.show("amr lint", shown(l1, "amr lint"))
    r.check(l1.returncode == 1 and "AMR031" in l1.stdout, "`amr lint` reports AMR031 (exit 1), not all clean")
    r.check(
        any("AMR031" in json.dumps(d) for d in first.get("diagnostics", [])),
        "`amr parse` carries the AMR031 diagnostic on the entry",
    )
    f1 = amr("lint", "--fix", cwd=repo)
    r.show("amr lint --fix", shown(f1, "amr lint --fix"))
    p2 = amr("parse", "MEMORY.md", "--json", cwd=repo)
    second = next((e for e in json.loads(p2.stdout or "[]") if "DRAFT" in e.get("text", "")), {})
    r.show(
        "amr parse after --fix",
        "$ amr parse MEMORY.md --json  # the entry\n"
        + json.dumps({k: second.get(k) for k in ("line", "text", "metadata", "diagnostics")}, indent=1)
        + "\n\n"
        + log_stat(repo, 1),
    )
    r.check(
        second.get("metadata", {}).get("added") == "2026-09-01" and not second.get("diagnostics"),
        "`lint --fix` moves the group to the end: parse then reads `added: 2026-09-01` as metadata, no diagnostic",
    )
    r.show("the fix in the work tree", "$ git diff\n" + git(repo, "diff"))
    r.note(
        "`amr lint --fix` writes the fix to the work tree and does not commit it (like other linters' --fix); "
        "the diff above is left for the user to commit"
    )


# --------------------------------------------------------------------------------------------
# 6. identity loop


@replay(
    6,
    "Identity loop: moving an entry (`m`) into a repo with no git identity",
    "moving an entry into another repo that has no git identity asked for one, set it on the *source* repo, and "
    "asked again.",
)
def r6(r: Replay) -> None:
    base = ENV.folder("identity")
    src_id = {"GIT_AUTHOR_NAME": "Source Owner", "GIT_AUTHOR_EMAIL": "source@example.test"}
    src = make_repo(
        base / "src",
        {"MEMORY.md": "# Memory\n\n- Move me to dst [added: 2026-09-01]\n- Stays here\n\n## Index\n"},
        local_identity=src_id,
    )
    dst = make_repo(base / "dst", {"MEMORY.md": "# Memory\n\n- Already in dst\n\n## Index\n"})
    r.step(
        "two repos: `src` with its own identity in .git/config (user.name Source Owner), `dst` with none; amr runs "
        "with no GIT_AUTHOR_*/GIT_COMMITTER_* in its environment and an empty HOME, so git has no identity in dst"
    )
    t = Tmux("r6", base, [str(src), str(dst)], who=None)
    try:
        r.step(f'`{t.shown_command}`; wait for "items indexed"')
        ready(t)
        r.step('cursor on "Move me to dst" in src/MEMORY.md, `m`, `Enter` on the only choice "dst / MEMORY.md"')
        cursor_to(t, "Move me to dst")
        t.keys("m")
        s = t.wait("Move entry to", label="the move choice")
        r.show("screen: the move choice", excerpt(s, "Move entry to", "dst / MEMORY.md"))
        t.keys("Enter")
        s = t.wait("Git needs a name and email", label="the identity question")
        r.show("screen: the identity question", excerpt(s, "Git needs a name", "Your Name", "Saved in this repo"))
        r.check("commit in dst" in s, "the question names the repo being written (dst)")
        r.step("type `Replay User <user@example.test>`, `Enter`")
        t.type("Replay User <user@example.test>")
        t.keys("Enter")
        end = time.monotonic() + 12
        asked_again = False
        while time.monotonic() < end:
            s = t.screen()
            if "Git needs a name and email" in s and "Replay User" not in s:
                asked_again = True
                break
            if "Move me to dst" in git(dst, "show", "HEAD:MEMORY.md", who=None):
                break
            time.sleep(0.2)
        time.sleep(1.0)
        s = t.screen()
        r.show(
            "screen afterwards",
            excerpt(
                clean(s),
                "Identity set",
                "Git needs a name",
                "Moved",
                "Committed",
                "Not saved",
                "Move me to dst",
                "Stays here",
            ),
        )
        r.check(not asked_again and "Git needs a name and email" not in s, "it did not ask again")
    finally:
        t.close()
        t.kill_server()
    dst_name = git(dst, "config", "--local", "user.name", who=None, check=False).strip()
    src_name = git(src, "config", "--local", "user.name", who=None, check=False).strip()
    r.show(
        "git afterwards",
        f"$ git -C dst config --local user.name\n{dst_name}\n$ git -C src config --local user.name\n{src_name}\n\n"
        "(dst) " + log_stat(dst, 2) + "\n\n(src) " + log_stat(src, 2),
    )
    r.check(dst_name == "Replay User", "the identity was set on dst, the repo being written")
    r.check(src_name == "Source Owner", "src's own identity is untouched")
    r.check(
        "Move me to dst" in git(dst, "show", "HEAD:MEMORY.md", who=None)
        and "Move me to dst" not in git(src, "show", "HEAD:MEMORY.md", who=None),
        "the entry moved: committed into dst and out of src",
    )


# --------------------------------------------------------------------------------------------
# 5. share leak


def all_text_under(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` (the session folder, .git included) plus every git object of every
    repo in it (``git cat-file --batch-all-objects --batch``): name -> bytes."""
    out: dict[str, bytes] = {}
    for p in folder.rglob("*"):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(folder))] = p.read_bytes()
    for gitdir in folder.rglob(".git"):
        res = subprocess.run(
            ["git", "cat-file", "--batch-all-objects", "--batch"],
            cwd=gitdir.parent,
            capture_output=True,
            env=ENV.base_env(None),
        )
        out[f"{gitdir.parent.relative_to(folder)}: every object"] = res.stdout
        for cmd in (["for-each-ref"], ["reflog", "--all"], ["config", "--list", "--local"], ["notes", "list"]):
            res = subprocess.run(["git", *cmd], cwd=gitdir.parent, capture_output=True, env=ENV.base_env(None))
            out[f"{gitdir.parent.relative_to(folder)}: git {' '.join(cmd)}"] = res.stdout
    return out


@replay(
    5,
    "Leak through commit messages: a partial share",
    "`amr share --repo NAME:projects/,MEMORY.md` kept only the chosen files' blobs, but the shared repo's commit "
    'messages still quoted unshared facts ("remember: <private fact>; payments fact"; amr\'s move commits quote the '
    "moved entry's text).",
)
def r5(r: Replay) -> None:
    base = ENV.folder("share")
    repo = base / "team"
    canary = {
        "file": "LEAK-FILE-7f3a",
        "message": "LEAK-MSG-91c2",
        "trailer": "LEAK-TRAILER-55d0",
        "move": "LEAK-MOVE-2b8e",
        "tag": "LEAK-TAG-a1f4",
        "note": "LEAK-NOTE-c3d9",
        "branch": "LEAK-BRANCH-e07b",
        "filename": "LEAK-NAME-4d1c",
        "remote": "LEAK-REMOTE-66af",
    }
    make_repo(
        repo,
        {
            "MEMORY.md": "# Memory\n\n## Index\n- [[projects/website]]\n- [[private/payments]]\n",
            "projects/website.md": "# Website\n\n- Built with Next.js [source: https://example.com/1]\n",
            "private/payments.md": f"# Payments\n\n- {canary['file']} the card processor key lives in vault 7 [source: s/2]\n",
        },
    )
    w = repo / "projects/website.md"
    w.write_text(w.read_text() + "- Hosted on fly [source: https://example.com/3]\n")
    pay = repo / "private/payments.md"
    pay.write_text(pay.read_text() + f"- {canary['file']}-2 payments go through Stripe [source: s/4]\n")
    git(repo, "add", "-A")
    git(
        repo,
        "commit",
        "-q",
        "-m",
        f"remember: {canary['message']} the processor key is in vault 7; payments fact",
        "-m",
        f"Amr-Session: {canary['trailer']}",
    )
    w.write_text(w.read_text() + "- Dark mode ships in October [source: https://example.com/5]\n")
    git(repo, "commit", "-qam", "SHARED-ONLY-MSG website: dark mode")
    # amr's own move commits (their message format): an entry moved from the shared file into a private one
    (repo / f"private/{canary['filename']}.md").write_text(
        "# Plans\n\n- Dark mode ships in October [source: https://example.com/5]\n"
    )
    git(repo, "add", "-A")
    git(
        repo,
        "commit",
        "-qm",
        f"Move entry to private/{canary['filename']}.md from team/projects/website.md: "
        f"Dark mode ships in October {canary['move']}",
    )
    w.write_text(w.read_text().replace("- Dark mode ships in October [source: https://example.com/5]\n", ""))
    git(
        repo,
        "commit",
        "-qam",
        f"Move entry from projects/website.md to team/private/{canary['filename']}.md: "
        f"Dark mode ships in October {canary['move']}",
    )
    git(repo, "tag", "-a", "v1", "-m", f"release {canary['tag']}")
    git(repo, "notes", "add", "-m", f"note {canary['note']}", "HEAD")
    git(repo, "branch", canary["branch"])
    git(repo, "remote", "add", "origin", f"https://example.com/{canary['remote']}.git")
    r.step(
        "a repo `team` whose unshared files (private/...) and history hold planted strings: in an unshared "
        "file, in the message and a trailer of a commit that touched a shared and an unshared file "
        '("remember: LEAK-MSG-... the processor key is in vault 7; payments fact"), in amr-style move commit '
        "messages naming a private file, in a tag, a note, a branch name and a remote URL"
    )
    r.show("the source repo", log_stat(repo, 6))
    into = base / "session"
    cmd = ["share", str(repo), "--repo", "team:projects/,MEMORY.md", "--into", str(into)]
    r.step("`amr share team --repo team:projects/,MEMORY.md --into session`")
    res = amr(*cmd, cwd=base)
    r.show("amr share", shown(res, "amr share team --repo team:projects/,MEMORY.md --into session"))
    shared = into / "team"
    r.show("the shared repo's history", log_stat(shared, 6) if (shared / ".git").exists() else "(no shared repo)")
    blobs = all_text_under(into)
    hits = {c: [name for name, data in blobs.items() if c.encode() in data] for c in canary.values()}
    leaked = {c: where for c, where in hits.items() if where}
    sizes = sum(len(v) for v in blobs.values())
    r.show(
        "grep of every object and file of the session folder",
        f"searched {len(blobs)} files/object dumps ({sizes} bytes) for {len(canary)} planted strings and "
        f'"vault 7"\n'
        + "\n".join(f"{c}: {'FOUND in ' + ', '.join(w[:4]) if w else 'absent'}" for c, w in hits.items())
        + f"\nvault 7: {'FOUND' if any(b'vault 7' in d for d in blobs.values()) else 'absent'}",
    )
    r.check(res.returncode == 0, "the share succeeded")
    r.check(
        not leaked and not any(b"vault 7" in d for d in blobs.values()),
        'no planted string (file, message, trailer, move message, tag, note, branch, remote) nor "vault 7" '
        "is in any object, ref, reflog, config or file of the session folder"
        if not leaked
        else f"LEAKED: {leaked}",
    )
    msgs = git(shared, "log", "--format=%an | %s", who=None)
    r.check("Agent" in msgs, "authors are kept; messages are written by amr from the shared changes")
    # --keep-messages keeps the message of a commit that touched only shared files, and only that
    into2 = base / "session-keep"
    r.step("`amr share team --repo team:projects/,MEMORY.md --keep-messages --into session-keep`")
    res2 = amr(
        "share", str(repo), "--repo", "team:projects/,MEMORY.md", "--keep-messages", "--into", str(into2), cwd=base
    )
    r.show(
        "amr share --keep-messages",
        shown(res2, "amr share team --repo team:projects/,MEMORY.md --keep-messages --into session-keep")
        + "\n\n$ git log --format='%an | %s'  (in session-keep/team)\n"
        + git(into2 / "team", "log", "--format=%an | %s", who=None),
    )
    blobs2 = all_text_under(into2)
    leaked2 = {c for c in canary.values() if any(c.encode() in d for d in blobs2.values())}
    kept = "SHARED-ONLY-MSG" in git(into2 / "team", "log", "--format=%s", who=None)
    # amr's second move commit touched only projects/website.md (shared): --keep-messages keeps its message as asked,
    # and that message names the private file it moved the entry to (and quotes the entry).
    by_choice = {canary["move"], canary["filename"]}
    r.check(
        kept and leaked2 <= by_choice,
        '--keep-messages keeps the messages of commits that touched only shared files ("SHARED-ONLY-MSG", and '
        "amr's move commit whose shared half names private/LEAK-NAME-4d1c.md: kept because the user asked for "
        "original messages) and nothing else: no message or trailer of a commit that touched an unshared file, no "
        "tag, note, branch or remote"
        if kept and leaked2 <= by_choice
        else f"--keep-messages: shared-only message kept={kept}, leaked beyond the kept messages: {sorted(leaked2 - by_choice)}",
    )


# --------------------------------------------------------------------------------------------
# 7. lint without MEMORY.md, init adopts


@replay(
    7,
    "`amr lint` in a git repo with notes but no MEMORY.md; `amr init` adopts it",
    '`amr lint` on a git repo with Markdown but no MEMORY.md exited 2 "not inside a memory repo"; a linter should '
    "report AMR001 there, and `amr init` should adopt such a repo (MEMORY.md with an Index of the existing notes, "
    "touching nothing else, one commit).",
)
def r7(r: Replay) -> None:
    repo = make_repo(
        ENV.folder("no-memory") / "notes",
        {
            "README.md": "# Notes repo\n",
            "notes/deploy.md": "# Deploy\n\n- Deploy with fly, see [[runbook]] [source: https://example.com/1]\n",
            "notes/team.md": "# Team\n\n* Joe leads the team\n",
        },
    )
    (repo / "scratch.md").write_text("# Scratch (untracked)\n\n- not for the index\n")
    r.step(
        "a git repo with README.md, notes/deploy.md (a broken [[runbook]] link), notes/team.md committed, scratch.md "
        "untracked, no MEMORY.md"
    )
    r.step("`amr lint` (in the repo)")
    l1 = amr("lint", cwd=repo)
    r.show("amr lint", shown(l1, "amr lint"))
    r.check(l1.returncode == 1 and "AMR001" in l1.stdout, "lint reports AMR001 (exit 1, findings), not exit 2")
    r.check("AMR010" in l1.stdout, "and lints the rest (the broken [[runbook]] link in notes/deploy.md, AMR010)")
    r.step("`amr init .`")
    before = git(repo, "rev-parse", "HEAD").strip()
    i1 = amr("init", ".", cwd=repo)
    r.show(
        "amr init",
        shown(i1, "amr init .")
        + "\n\n"
        + log_stat(repo, 1)
        + "\n\n$ cat MEMORY.md\n"
        + ((repo / "MEMORY.md").read_text() if (repo / "MEMORY.md").exists() else "(none)")
        + "\n$ git status --short\n"
        + git(repo, "status", "--short"),
    )
    commits = git(repo, "rev-list", f"{before}..HEAD").split()
    changed = git(repo, "show", "--name-status", "--format=", "HEAD").split("\n") if commits else []
    index = (repo / "MEMORY.md").read_text() if (repo / "MEMORY.md").exists() else ""
    r.check(
        i1.returncode == 0 and len(commits) == 1 and [c for c in changed if c] == ["A\tMEMORY.md"],
        "init adopts the repo in one commit that adds MEMORY.md and nothing else",
    )
    r.check(
        "[[notes/deploy]]" in index and "[[notes/team]]" in index and "scratch" not in index,
        "its Index links the tracked notes and not the untracked scratch.md",
    )
    r.check("scratch.md" in git(repo, "status", "--short"), "the untracked file is left alone")
    l2 = amr("lint", cwd=repo)
    r.show("amr lint after init", shown(l2, "amr lint"))
    r.check("AMR001" not in l2.stdout, "after init, lint no longer reports AMR001")


# --------------------------------------------------------------------------------------------
# 8. lint --fix and untracked files


@replay(8, "`amr lint --fix` and an untracked file", "`amr lint --fix` linked an untracked file into the Index.")
def r8(r: Replay) -> None:
    repo = make_repo(
        ENV.folder("fix-untracked") / "memory",
        {
            "MEMORY.md": "# Memory\n\n- Deploy with fly\n\n## Index\n- [[notes]]\n",
            "notes.md": "# Notes\n\n- Joe leads the team\n",
            "orphan.md": "# Orphan\n\n- A committed file nothing links to\n",
        },
    )
    (repo / "scratch.md").write_text("# Scratch\n\n- an agent's untracked working file\n")
    r.step("a memory repo: MEMORY.md links notes.md; orphan.md is committed but not linked; scratch.md is untracked")
    l1 = amr("lint", cwd=repo)
    r.show("amr lint", shown(l1, "amr lint"))
    r.step("`amr lint --fix`")
    f1 = amr("lint", "--fix", cwd=repo)
    r.show(
        "amr lint --fix",
        shown(f1, "amr lint --fix")
        + "\n\n$ git diff\n"
        + git(repo, "diff")
        + "$ git status --short\n"
        + git(repo, "status", "--short"),
    )
    mem = (repo / "MEMORY.md").read_text()
    r.check("[[scratch]]" not in mem and "scratch" not in mem, "the untracked scratch.md is not linked into the Index")
    r.check("[[orphan]]" in mem, "the committed orphan.md is linked (the fix still works for tracked files)")
    r.check(
        "scratch.md" in l1.stdout + f1.stdout,
        "lint still reports scratch.md, and says why it has no fix"
        if "scratch.md" in f1.stdout
        else "lint reports scratch.md",
    )


# --------------------------------------------------------------------------------------------
# 12. symlinks


@replay(
    12,
    "Symlinks that leave the repo: share, parse, search, lint, history, forget",
    "`amr share` copied a symlink that points outside the repo into the session folder as is (`passwd.md -> "
    "/etc/passwd`); `amr parse` followed one, while search, lint, history and forget refused it.",
)
def r12(r: Replay) -> None:
    base = ENV.folder("symlinks")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\n- OUTSIDE-SECRET-9e1f must never be read [source: s/1]\n")
    repo = make_repo(
        base / "memory",
        {
            "MEMORY.md": "# Memory\n\n- Deploy with fly\n\n## Index\n- [[notes]]\n",
            "notes.md": "# Notes\n\n- Joe leads the team\n",
        },
    )
    os.symlink("/etc/passwd", repo / "passwd.md")
    os.symlink(outside / "secret.md", repo / "secret.md")
    os.symlink(outside, repo / "out-dir")
    (repo / "links").mkdir()
    (repo / "links" / "ok.md").write_text("# Links\n\n- a plain file next to the symlinks\n")
    os.symlink("/etc/passwd", repo / "links" / "passwd.md")
    os.symlink(outside / "secret.md", repo / "links" / "secret.md")
    git(repo, "add", "passwd.md", "secret.md", "out-dir", "links")
    git(repo, "commit", "-qm", "agent: add some links")
    r.step(
        "a memory repo with committed symlinks `passwd.md -> /etc/passwd`, `secret.md -> ../outside/secret.md`, "
        "`out-dir -> ../outside`, and a folder `links/` holding `ok.md` (a plain file) and two more such symlinks "
        "(outside/secret.md holds OUTSIDE-SECRET-9e1f)"
    )
    r.show(
        "the repo",
        "$ find . -type l (symlinks)\n"
        + "\n".join(
            f"{p.relative_to(repo)} -> {os.readlink(p)}"
            for p in sorted(repo.rglob("*"))
            if p.is_symlink() and ".git" not in p.parts
        ),
    )
    passwd = Path("/etc/passwd").read_text(errors="replace").splitlines()[0][:20]

    def leaks(folder: Path) -> list[str]:
        bad = []
        for p in folder.rglob("*"):
            if p.is_symlink():
                target = os.path.realpath(p)
                if not target.startswith(str(folder.resolve()) + os.sep):
                    bad.append(f"{p.relative_to(folder)} -> {os.readlink(p)}")
            elif p.is_file():
                data = p.read_bytes()
                if b"OUTSIDE-SECRET-9e1f" in data or passwd.encode() in data:
                    bad.append(f"{p.relative_to(folder)} holds outside content")
        for gitdir in folder.rglob(".git"):
            objs = subprocess.run(
                ["git", "cat-file", "--batch-all-objects", "--batch"],
                cwd=gitdir.parent,
                capture_output=True,
                env=ENV.base_env(None),
            ).stdout
            if b"OUTSIDE-SECRET-9e1f" in objs or passwd.encode() in objs:
                bad.append(f"{gitdir.parent.relative_to(folder)}: a git object holds outside content")
        return bad

    results = []
    for label, args in (("whole", ["--repo", "memory"]), ("partial", ["--repo", "memory:MEMORY.md,notes.md,links/"])):
        into = base / f"session-{label}"
        res = amr("share", str(repo), *args, "--into", str(into), cwd=base)
        bad = leaks(into) if into.exists() else []
        listing = (
            "\n".join(
                f"{p.relative_to(into / 'memory')}"
                + (
                    f" -> {os.readlink(p)}"
                    if p.is_symlink()
                    else f" (file, {p.stat().st_size} bytes: {p.read_text(errors='replace')[:40]!r})"
                )
                for p in sorted((into / "memory").rglob("*"))
                if ".git" not in p.relative_to(into).parts and not p.is_dir()
            )
            if (into / "memory").exists()
            else "(none)"
        )
        r.step(f"`amr share memory {' '.join(args)} --into session-{label}`")
        r.show(
            f"amr share ({label})",
            shown(res, f"amr share memory {' '.join(args)} --into session-{label}")
            + f"\n\n$ ls session-{label}/memory\n{listing}",
        )
        results.append((label, res.returncode, bad))
        if label == "whole" and "left out: passwd.md" in res.stdout and (into / "memory" / "passwd.md").is_file():
            r.note(
                "the whole share keeps each symlink as a plain file holding its target's path (as `amr share --help` "
                'says), while its preview lists them as "warning: left out: ... (symlink: a plain file holding its '
                'target)": the target path itself (e.g. `/etc/passwd`, a host folder) does reach the session folder'
            )
        r.check(res.returncode == 0, f"the {label} share succeeded")
        r.check(
            not bad,
            f"{label} share: no symlink in the session folder leads outside it and no outside content "
            f"(/etc/passwd, OUTSIDE-SECRET) is in any file or object"
            if not bad
            else f"{label} share LEAKS: {bad}",
        )
    outs = []
    for cmd, want_refusal in (
        (["parse", "passwd.md", "--json"], True),
        (["parse", "secret.md", "--json"], True),
        (["parse", "out-dir/secret.md", "--json"], True),
        (["search", "OUTSIDE-SECRET", "--no-cache"], False),
        (["search", "root", "--no-cache"], False),
        (["lint", "--no-cache"], False),
        (["history", "secret.md"], True),
        (["forget", "secret.md:3"], True),
        (["lint", "--fix"], False),
    ):
        res = amr(*cmd, cwd=repo)
        text = res.stdout + res.stderr
        read = "OUTSIDE-SECRET-9e1f" in text or passwd in text
        outs.append(shown(res, "amr " + " ".join(cmd), limit=12))
        if want_refusal:
            r.check(
                res.returncode == 2 and not read, f"`amr {' '.join(cmd)}` refuses (exit 2) without reading the target"
            )
        else:
            r.check(
                not read,
                f"`amr {' '.join(cmd)}` does not read through the symlinks (nothing of the targets in its output)",
            )
    r.step("`amr parse`, `search`, `lint`, `history`, `forget`, `lint --fix` on the symlinks (in the repo)")
    r.show("the other commands", "\n\n".join(outs))
    r.check(
        (outside / "secret.md").read_text().startswith("# Secret\n\n- OUTSIDE-SECRET-9e1f"),
        "the outside file is unchanged",
    )
    r.check(
        "passwd" not in git(repo, "diff", "--name-only")
        and git(repo, "status", "--porcelain").strip() in ("", "M MEMORY.md", " M MEMORY.md"),
        "no write through a symlink (git status shows no symlink changed)",
    )


# --------------------------------------------------------------------------------------------
# 13. a 50 MB blob in history


@replay(
    13,
    "One 50 MB file in history",
    "one 50 MB Markdown file in history made `amr forgotten`, `dreams show`, `lint --history` and `forget` take "
    "50-80 s (0.5 s without it); `amr parse` of it printed 421 MB in 242 s.",
)
def r13(r: Replay) -> None:
    base = ENV.folder("big-blob")
    files = {
        "MEMORY.md": "# Memory\n\n- Deploy with fly [source: https://example.com/1]\n"
        "- Old fact to forget [source: https://example.com/2]\n\n## Index\n- [[notes]]\n",
        "notes.md": "# Notes\n\n- Joe leads the team [source: https://example.com/3]\n"
        "- Joe leads the team [source: https://example.com/3]\n",
    }
    small = make_repo(base / "small", dict(files))
    big = make_repo(base / "big", dict(files))
    line = "- fact {n:08d} an agent dumped a huge log into memory [source: https://example.com/log/{n}]\n"
    chunks, size, n = [], 0, 0
    while size < 50 * 1024 * 1024:
        s = line.format(n=n)
        chunks.append(s)
        size += len(s)
        n += 1
    body = "# Dump\n\n" + "".join(chunks)
    (big / "dump.md").write_text(body)
    git(big, "add", "dump.md")
    git(big, "commit", "-qm", "agent: dump the log")
    (big / "dump.md").unlink()
    git(big, "commit", "-qam", "agent: remove the dump")
    (base / "dump-copy.md").write_text(body)
    for repo in (small, big):  # a fact deleted (for forgotten) and a pending dreaming run (for dreams show)
        mem = repo / "MEMORY.md"
        mem.write_text(mem.read_text().replace("- Old fact to forget [source: https://example.com/2]\n", ""))
        git(repo, "commit", "-qam", "agent: drop the old fact")
    r.step(
        f"two repos with the same memory; `big` also has, in history, a commit adding dump.md "
        f"({size / 1024 / 1024:.0f} MB, {n} entries) and a commit removing it; `amr dream` makes a pending run in each"
    )
    r.show("the big repo", log_stat(big, 4).replace(str(base), "."))
    rows = []
    for repo in (small, big):
        d = amr("dream", str(repo), "--json", cwd=repo, timeout=200)
        try:
            run_id = json.loads(d.stdout).get("run_id") or json.loads(d.stdout).get("id")
        except (ValueError, AttributeError):
            run_id = None
        if not run_id:
            m = re.search(r"dreams/(\S+)", d.stdout + d.stderr)
            run_id = m.group(1) if m else None
        cmds = [
            ["forgotten", "--json"],
            ["dreams", "show", run_id or "?"],
            ["lint", "--history", "--no-cache"],
            ["forget", "notes.md:4", "--reason", "duplicate"],
            ["history", "MEMORY.md"],
        ]
        if repo is big:
            cmds.append(["parse", str(base / "dump-copy.md"), "--json"])
        for cmd in cmds:
            t0 = time.monotonic()
            res = amr(*cmd, cwd=repo, timeout=200)
            wall = time.monotonic() - t0
            rows.append((repo.name, cmd, res, wall))
    table = [f"{'repo':<6} {'command':<44} {'exit':>4} {'wall s':>7} {'stdout bytes':>12}  stderr (first line)"]
    for name, cmd, res, wall in rows:
        err = (res.stderr.strip().splitlines() or [""])[0][:70]
        table.append(
            f"{name:<6} {'amr ' + ' '.join(c.replace(str(base), '.') for c in cmd):<44} {res.returncode:>4} "
            f"{wall:>7.2f} {len(res.stdout):>12}  {err}"
        )
    r.step("time each command in both repos (and `amr parse` of a copy of the 50 MB file)")
    r.show("timings", "\n".join(table))
    big_rows = [(cmd, res, wall) for name, cmd, res, wall in rows if name == "big"]
    slow = [(" ".join(c), round(w, 2)) for c, res, w in big_rows if w > 5.0]
    r.check(
        not slow,
        "every command with the 50 MB blob in history finishes within 5 s (the issue saw 50-80 s)"
        if not slow
        else f"slow with the blob: {slow}",
    )
    failed = [
        " ".join(c)
        for c, res, w in big_rows
        if c[0] != "parse" and res.returncode != 0 and not (c[0] == "lint" and res.returncode == 1)
    ]
    r.check(
        not failed, "the history commands still work (exit 0) next to the blob" if not failed else f"failed: {failed}"
    )
    noticed = [
        " ".join(c) for c, res, w in big_rows if c[0] in ("forgotten", "lint", "dreams") and "dump.md" in res.stderr
    ]
    r.check(
        len(noticed) >= 2, f"history walks say they skipped dump.md (stderr notice in: {', '.join(noticed) or 'none'})"
    )
    parse = next(((res, w) for c, res, w in big_rows if c[0] == "parse"), None)
    if parse:
        r.check(
            parse[0].returncode == 2 and len(parse[0].stdout) < 10_000 and parse[1] < 5,
            f"`amr parse` of the 50 MB file is bounded: exit {parse[0].returncode}, {len(parse[0].stdout)} bytes out, "
            f"{parse[1]:.2f} s ({(parse[0].stderr.strip().splitlines() or [''])[0][:90]})",
        )


# --------------------------------------------------------------------------------------------
# 9. lint --fix under agent load

AGENT_SCRIPT = r"""
import os, random, subprocess, sys, time
root, name, seconds, interval, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rnd = random.Random(name)
end = time.monotonic() + seconds
n = 0
log = open(out, "w")
def commit(msg):
    for _ in range(200):  # another writer may hold index.lock, as with any git
        a = subprocess.run(["git", "add", "MEMORY.md"], cwd=root, capture_output=True, text=True)
        if a.returncode != 0:
            time.sleep(0.01); continue
        res = subprocess.run(["git", "commit", "-m", msg], cwd=root, capture_output=True, text=True)
        if res.returncode == 0:
            return res.stdout.split("]")[0].split()[-1]
        if "nothing to commit" in res.stdout + res.stderr or "no changes added" in res.stdout + res.stderr:
            return "nothing"
        time.sleep(0.01)
    return "gave-up"
pending = []
while time.monotonic() < end:
    n += 1
    fid = f"{name}-{n}"
    # a star bullet (AMR024): lint --fix has something to rewrite in this file on every round
    with open(root + "/MEMORY.md", "a") as f:
        f.write(f"* fact {fid} [source: https://example.com/{fid}]\n")
    log.write(f"wrote {fid}\n"); log.flush()
    pending.append(fid)
    if rnd.random() < 0.15:  # now and then leave the line uncommitted for a while, as agents do
        time.sleep(rnd.uniform(0.3, 1.0))
    c = commit(f"{name}: remember {fid}")
    log.write(f"commit {c} {' '.join(pending)}\n"); log.flush()
    pending = []
    time.sleep(interval)
log.write("done\n")
"""

FID = re.compile(r"fact (a\d-\d+) ")


@replay(
    9,
    "`amr lint --fix` under load: 3 agents appending and committing every ~100 ms",
    "with 3 agents appending and committing while `amr lint --fix` ran in a loop, committed facts were gone from the "
    "final HEAD and uncommitted agent lines vanished; it also wrote into a repo git refuses as owned by another "
    "user, and repeated one fix 50 times per run when a `.md` symlink points outside the repo.",
)
def r9(r: Replay) -> None:
    base = ENV.folder("lint-fix-load")
    seconds = getattr(ENV, "load_seconds", 20.0)
    body = (
        "# Memory\n\n"
        + "".join(f"* starred fact s-{i} [source: https://example.com/s/{i}]\n" for i in range(20))
        + "\n## Index\n- [[notes]]\n"
    )
    repo = make_repo(base / "memory", {"MEMORY.md": body, "notes.md": "# Notes\n\n- Joe leads the team\n"})
    script = base / "agent.py"
    script.write_text(AGENT_SCRIPT)
    r.step(
        f"a memory repo whose MEMORY.md has 20 `*` bullets (AMR024, fixable); 3 agent processes (plain python + "
        f"git, as Agent) each append a `* fact aN-K` line to MEMORY.md, `git add`, `git commit` (retried while "
        f"index.lock is busy; 15% of lines left uncommitted 0.3-1 s first), then sleep 100 ms, for {seconds:.0f} s"
    )
    r.step("meanwhile `amr lint --fix` runs in a loop in the repo (the CLI, as Replay User)")
    agents = [
        subprocess.Popen(
            [PY, str(script), str(repo), f"a{i}", str(seconds), "0.1", str(base / f"a{i}.log")],
            env=ENV.base_env(AGENT),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for i in range(3)
    ]
    runs, exits, fixed, walls, errors = 0, {}, 0, [], []
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        res = amr("lint", "--fix", "--severity", "error", cwd=repo, timeout=120)
        walls.append(time.monotonic() - t0)
        runs += 1
        exits[res.returncode] = exits.get(res.returncode, 0) + 1
        m = re.search(r"Fixed (\d+)", res.stdout + res.stderr)
        fixed += int(m.group(1)) if m else 0
        if res.returncode == 2:
            errors.append((res.stderr.strip().splitlines() or [""])[-1][:160])
    for a in agents:
        a.wait(timeout=120)
    # what the agents wrote and committed
    written, committed_by, commits = [], {}, []
    for i in range(3):
        for ln in (base / f"a{i}.log").read_text().splitlines():
            if ln.startswith("wrote "):
                written.append(ln.split()[1])
            elif ln.startswith("commit "):
                parts = ln.split()
                commits.append(parts[1])
                for f in parts[2:]:
                    committed_by[f] = parts[1]
    # every fact that ever reached a commit on the branch
    ever = set(FID.findall(git(repo, "log", "-p", "--format=", "--", "MEMORY.md")))
    head_text = git(repo, "show", "HEAD:MEMORY.md")
    in_head = set(FID.findall(head_text))
    on_disk = set(FID.findall((repo / "MEMORY.md").read_text()))
    reachable = set(git(repo, "rev-list", "HEAD").split())
    real_commits = [c for c in commits if c not in ("nothing", "gave-up")]
    unreachable = [c for c in real_commits if not any(h.startswith(c) for h in reachable)]
    gone_from_head = sorted(ever - in_head)
    vanished = sorted(set(written) - on_disk)
    dup = [f for f in in_head if len(re.findall(rf"fact {re.escape(f)} ", head_text)) > 1]
    r.show(
        "the run",
        "\n".join(
            [
                f"amr lint --fix runs: {runs} (exit codes {exits}), fixes applied: {fixed}, wall p50 "
                f"{sorted(walls)[len(walls) // 2]:.2f} s, max {max(walls):.2f} s",
                f"agents: {len(written)} lines written, {len(real_commits)} commits ({commits.count('nothing')} found their "
                f"line already committed by another agent, {commits.count('gave-up')} gave up)",
                f"facts that reached a commit on main: {len(ever)}; in the final HEAD: {len(ever & in_head)}; "
                f"gone from the final HEAD: {len(gone_from_head)} {gone_from_head[:8]}",
                f"agent commits not reachable from main: {len(unreachable)} {unreachable[:5]}",
                f"agent lines gone from the work tree: {len(vanished)} {vanished[:8]}",
                f"facts twice in the final HEAD: {len(dup)}",
                f"star bullets left in HEAD: {head_text.count(chr(10) + '* ')} (lint --fix turned the others into '-')",
            ]
            + [f"lint --fix exit 2: {e}" for e in errors[:3]]
        ),
    )
    r.show("git afterwards", log_stat(repo, 3) + "\n$ git status --short\n" + git(repo, "status", "--short"))
    r.check(runs >= 5 and fixed > 0, f"lint --fix really raced the agents ({runs} runs, {fixed} fixes applied)")
    r.check(
        not gone_from_head,
        "no fact that reached HEAD is missing from the final HEAD"
        if not gone_from_head
        else f"{len(gone_from_head)} committed facts are gone from the final HEAD",
    )
    r.check(not unreachable, "every agent commit is reachable from main")
    r.check(not vanished, "no agent line vanished from the work tree")
    r.check(not dup, "no fact duplicated")

    # a repo git refuses ("dubious ownership"): lint --fix writes nothing
    other = make_repo(base / "not-mine", {"MEMORY.md": "# Memory\n\n* a starred fact\n\n## Index\n"})
    before = (other / "MEMORY.md").read_bytes()
    for p in [other, *other.rglob("*")]:
        os.lchown(p, 54321, 54321)
    r.step(
        "a second repo with a fixable `*` bullet, chowned to uid 54321 (git refuses it: dubious ownership); "
        "`amr lint --fix` there as root"
    )
    res = run([AMR, "lint", "--fix", str(other)], cwd=base, who=USER)
    r.show(
        "amr lint --fix in a repo owned by another user",
        shown(res, "amr lint --fix not-mine")
        + "\n$ git -C not-mine status\n"
        + "\n".join(run(["git", "-C", str(other), "status", "--short"], who=None).stderr.strip().splitlines()[:1]),
    )
    r.check(
        res.returncode == 2 and (other / "MEMORY.md").read_bytes() == before,
        "in a repo git refuses, lint --fix exits 2, says why and writes nothing",
    )
    if "All clean" in res.stdout:
        r.note(
            'in the repo git refuses, `amr lint --fix` prints "All clean." after saying it wrote nothing (exit 2): '
            'the repo was not linted at all, so "All clean." is misleading'
        )

    # a .md symlink pointing outside the repo: reported once, no fix repeated
    link = make_repo(
        base / "with-link",
        {"MEMORY.md": "# Memory\n\n- fact\n\n## Index\n- [[notes]]\n", "notes.md": "# Notes\n\n- Joe\n"},
    )
    (base / "elsewhere.md").write_text("# Elsewhere\n\n* outside fact\n")
    os.symlink(base / "elsewhere.md", link / "elsewhere.md")
    git(link, "add", "elsewhere.md")
    git(link, "commit", "-qm", "agent: link a file from elsewhere")
    r.step("a third repo with a committed `elsewhere.md -> ../elsewhere.md` (outside the repo); `amr lint --fix` twice")
    f1 = amr("lint", "--fix", cwd=link)
    f2 = amr("lint", "--fix", cwd=link)
    r.show(
        "amr lint --fix with a .md symlink out of the repo",
        shown(f1, "amr lint --fix")
        + "\n"
        + shown(f2, "amr lint --fix")
        + "\n$ git status --short\n"
        + git(link, "status", "--short"),
    )
    m1 = re.search(r"Fixed (\d+)", f1.stdout + f1.stderr)
    m2 = re.search(r"Fixed (\d+)", f2.stdout + f2.stderr)
    r.check(
        (not m1 or int(m1.group(1)) <= 1)
        and not m2
        and "AMR012" in f1.stdout
        and (base / "elsewhere.md").read_text() == "# Elsewhere\n\n* outside fact\n",
        "the symlink is reported (AMR012) and no fix repeats: the second run fixes nothing; the outside file is untouched",
    )


# --------------------------------------------------------------------------------------------
# 10 and 11: the starvation bench, and a deterministic interleaving at each gate step

_STARVATION: dict | None = None


def starvation() -> dict:
    global _STARVATION
    if _STARVATION is None:
        seconds = getattr(ENV, "starvation_seconds", 20.0)
        out = ENV.base / "starvation.json"
        t0 = time.monotonic()
        res = run(
            [
                PY,
                str(ROOT / "bench" / "starvation.py"),
                "--seconds",
                str(seconds),
                "--agents",
                "3",
                "--interval",
                "0.1",
                "--json",
                str(out),
            ],
            cwd=ROOT,
            who=None,
            timeout=600,
        )
        data = json.loads(out.read_text()) if out.exists() else {}
        _STARVATION = {"res": res, "data": data, "wall": time.monotonic() - t0, "seconds": seconds}
    return _STARVATION


GATE_REPLAY = r"""
import json, os, subprocess, sys
from pathlib import Path
from amr_tui.git import GitRepo
from amr_tui.git.gate import STEPS, Change, commit_files
root, how = Path(sys.argv[1]), sys.argv[2]
base = (root / "MEMORY.md").read_bytes()
want = base.replace(b"Deploy with fly", b"Deploy with fly.io")
out = []
for step in STEPS:
    subprocess.run(["git", "reset", "-q", "--hard", "start"], cwd=root, check=True)
    fired = []
    def probe(name, step=step):
        if name == step and not fired:
            fired.append(name)
            line = f"- agent wrote this at {name}"
            if how == "append":   # echo line >> MEMORY.md
                subprocess.run(["sh", "-c", f"printf '%s\\n' '{line}' >> MEMORY.md"], cwd=root, check=True)
            else:                 # write a temp file and rename it over (editors, many agents)
                subprocess.run(["sh", "-c", f"cp MEMORY.md .tmp-agent && printf '%s\\n' '{line}' >> .tmp-agent "
                                f"&& mv .tmp-agent MEMORY.md"], cwd=root, check=True)
    err = None
    try:
        commit_files(GitRepo(root), [Change("MEMORY.md", base, want)], "Edit entry", probe=probe)
    except Exception as exc:
        err = f"{type(exc).__name__}: {exc}"
    disk = (root / "MEMORY.md").read_bytes()
    head = subprocess.run(["git", "show", "HEAD:MEMORY.md"], cwd=root, capture_output=True).stdout
    agent = subprocess.run(["git", "commit", "-qam", "agent: my line"], cwd=root, capture_output=True, text=True)
    after = subprocess.run(["git", "show", "HEAD:MEMORY.md"], cwd=root, capture_output=True).stdout
    line = f"agent wrote this at {step}".encode()
    out.append({"step": step, "fired": bool(fired), "error": err, "line_on_disk": line in disk,
                "line_in_amr_commit": line in head, "amr_change_in_head": b"fly.io" in head,
                "agent_commit": (agent.stdout + agent.stderr).strip() or "ok", "line_after_agent_commit": line in after})
print(json.dumps(out))
"""


@replay(
    10,
    "A save never drops an agent's uncommitted append",
    "a write that landed between amr's read of the file and its atomic rename was lost (the agent's `git commit` "
    'then said "nothing to commit"); seen 3 times in 60 s of saves.',
)
def r10(r: Replay) -> None:
    base = ENV.folder("gate-steps")
    rows = []
    for how in ("append", "rename"):
        repo = make_repo(base / how, {"MEMORY.md": MEMORY})
        git(repo, "tag", "start")
        script = base / "gate_replay.py"
        script.write_text(GATE_REPLAY)
        res = run([PY, str(script), str(repo), how], cwd=ROOT, who=USER, timeout=300)
        try:
            data = json.loads(res.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise RuntimeError(f"gate replay failed: {res.stderr[-1500:]}")
        rows += [(how, d) for d in data]
    r.step(
        "deterministic interleaving: for every step of the write gate (amr_tui.git.gate.STEPS, through its probe "
        "hook) a save of `Deploy with fly` -> `Deploy with fly.io` runs, and exactly at that step an agent process "
        "writes the file from outside: `printf ... >> MEMORY.md` (append) or copy + rename over it (rename); then "
        "the agent runs `git commit -qam`"
    )
    table = [
        f"{'how':<7} {'gate step':<22} {'fired':<6} {'line kept':<10} {'in amr commit':<14} {'amr saved':<10} agent's git commit"
    ]
    for how, d in rows:
        table.append(
            f"{how:<7} {d['step']:<22} {str(d['fired']):<6} {str(d['line_on_disk']):<10} "
            f"{str(d['line_in_amr_commit']):<14} {str(d['amr_change_in_head']):<10} "
            f"{'ok, line committed' if d['line_after_agent_commit'] else d['agent_commit'][:40]}"
            + (f"  [gate: {d['error'][:60]}]" if d["error"] else "")
        )
    r.show("each gate step, with a write from outside", "\n".join(table))
    lost = [f"{h}@{d['step']}" for h, d in rows if d["fired"] and not d["line_on_disk"]]
    swept = [f"{h}@{d['step']}" for h, d in rows if d["line_in_amr_commit"]]
    unsaved = [f"{h}@{d['step']}" for h, d in rows if not d["amr_change_in_head"]]
    r.check(all(d["fired"] for _, d in rows), f"the write from outside fired at all {len(rows)} step/kind pairs")
    r.check(
        not lost,
        "no agent write is lost at any step (its line is in the file after the save, and the agent's commit commits it)"
        if not lost
        else f"agent line LOST at {lost}",
    )
    r.check(
        not swept, "no agent line is swept into amr's commit" if not swept else f"swept into amr's commit at {swept}"
    )
    r.check(not unsaved, "the user's save lands every time" if not unsaved else f"save did not land at {unsaved}")
    st = starvation()
    d = st["data"]
    r.step(
        f"load: `bench/starvation.py --seconds {st['seconds']:.0f} --agents 3 --interval 0.1` (agents in two clones "
        "append and commit to the same file every ~100 ms, some lines left uncommitted 0.5-2 s, while amr saves, "
        "forgets, restores and syncs)"
    )
    r.show("bench/starvation.py summary", st["res"].stdout.strip())
    vanished = d.get("losses", {}).get("agents: uncommitted line vanished from the work tree", [])
    r.check(
        d and not vanished and d.get("loss_count", 1) == 0,
        f"under load: {d.get('agents', {}).get('facts', '?')} agent facts, "
        f"{d.get('ops', {}).get('save', {}).get('landed', '?')} saves: no uncommitted agent line vanished, 0 losses"
        if d
        else "the starvation bench did not run",
    )


@replay(
    11,
    "Starvation: saves, forget, restore and sync under 3 agents committing every 100 ms",
    "under the same load no save landed for 135 s (14 refusals), a forgotten-fact restore failed 8 of 8, and one of "
    'two syncing clones was "busy" on 6 of 7 syncs while the other synced every time.',
)
def r11(r: Replay) -> None:
    st = starvation()
    d = st["data"]
    r.step(
        f"`bench/starvation.py --seconds {st['seconds']:.0f} --agents 3 --interval 0.1` (run once, shared with "
        f"reproduction 10; {st['wall']:.0f} s with set-up and final syncs)"
    )
    r.show("bench/starvation.py summary", st["res"].stdout.strip())
    if not d:
        r.check(False, "the starvation bench did not run: " + st["res"].stderr[-500:])
        return
    few = 5.0  # "within a few seconds": every call returns, and the longest wait for a landing is, under 5 s
    for kind in ("save", "forget", "restore"):
        o = d["ops"][kind]
        r.check(
            o["landed"] == o["count"]
            and o["count"] > 0
            and (o["max_ms"] or 0) < few * 1000
            and o["longest_wait_for_landing_s"] < few,
            f"{kind}: {o['landed']} of {o['count']} landed, p50/p95/max {o['p50_ms']}/{o['p95_ms']}/{o['max_ms']} ms, "
            f"longest wait for a landing {o['longest_wait_for_landing_s']} s",
        )
    for c, s in d["sync"].items():
        r.check(
            s["landed"] > 0,
            f"sync of clone {c} makes progress: {s['landed']} of {s['count']} landed"
            + (f", busy {s['busy']}" if s["busy"] else "")
            + ("" if s["landed"] > 0 else " -- this clone's sync is starved: it never landed while the agents ran"),
        )
        r.check(
            (s["max_ms"] or 0) < few * 1000 and s["longest_wait_for_landing_s"] < few,
            f"sync of clone {c} lands within a few seconds (under {few:.0f} s): p50/p95/max "
            f"{s['p50_ms']}/{s['p95_ms']}/{s['max_ms']} ms, longest wait for a landing "
            f"{s['longest_wait_for_landing_s']} s",
        )
    r.check(d.get("loss_count", 1) == 0 and d.get("converged"), "nothing lost and the clones converge at the end")


# --------------------------------------------------------------------------------------------
# main


def amr_commit() -> str:
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "amr_tui"], cwd=ROOT, capture_output=True, text=True
    ).stdout.rstrip("\n")
    return head + (
        " (with uncommitted changes under amr_tui/: " + ", ".join(ln[3:] for ln in dirty.splitlines()[:8]) + ")"
        if dirty
        else ""
    )


def main(argv: list[str] | None = None) -> int:
    global ENV
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", help="comma-separated reproduction numbers")
    p.add_argument("--out", default=str(ROOT / "docs" / "trust-replays.md"))
    p.add_argument("--keep", action="store_true", help="keep the temp folder")
    p.add_argument("--load-seconds", type=float, default=20.0, help="reproduction 9: how long the agents run")
    p.add_argument(
        "--starvation-seconds", type=float, default=20.0, help="reproductions 10-11: bench/starvation.py --seconds"
    )
    args = p.parse_args(argv)
    numbers = sorted(int(x) for x in args.only.split(",")) if args.only else sorted(REPLAYS)
    base = Path(tempfile.mkdtemp(prefix="amr-replay-"))
    ENV = Env(base)
    ENV.load_seconds = args.load_seconds  # type: ignore[attr-defined]
    ENV.starvation_seconds = args.starvation_seconds  # type: ignore[attr-defined]
    started = time.monotonic()
    results: list[Replay] = []
    for n in numbers:
        title, issue = TITLES[n]
        r = Replay(n, title, issue)
        t0 = time.monotonic()
        print(f"[{n:2d}] {title} ...", file=sys.stderr, flush=True)
        try:
            REPLAYS[n](r)
        except Timeout as exc:
            r.error = str(exc)
            r.show("screen when the wait timed out", exc.screen)
        except Exception as exc:  # a replay that breaks is reported, the others still run
            r.error = f"{type(exc).__name__}: {exc}"
            r.show("traceback", traceback.format_exc())
        r.seconds = time.monotonic() - t0
        print(f"     {r.verdict()} [{r.seconds:.1f} s]", file=sys.stderr, flush=True)
        results.append(r)
    total = time.monotonic() - started
    doc = render(results, total, numbers).replace(str(base), "$TMP")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(doc)
    print(f"wrote {out} ({total:.0f} s)", file=sys.stderr)
    if args.keep:
        print(f"temp folder kept: {base}", file=sys.stderr)
    else:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if all(r.ok for r in results) else 1


def render(results: list[Replay], total: float, numbers: list[int]) -> str:
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    gitv = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    tmuxv = subprocess.run(["tmux", "-V"], capture_output=True, text=True).stdout.strip()
    out = [
        "# Issue 11: the thirteen reproductions, replayed",
        "",
        f"Generated by `bench/replay_trust.py` on {now} against amr commit {amr_commit()} "
        f"({gitv}, {tmuxv}, Python {sys.version.split()[0]}); total {total:.0f} s.",
        "",
        "Each reproduction runs on fresh repos made with real git in a temp folder, with HOME set there (no "
        "global git or amr config; `GIT_CONFIG_NOSYSTEM=1`) and explicit identities: *Replay User* at the "
        "keyboard, *Agent* for the shell and agent processes. UI reproductions drive `.venv/bin/amr` by keys in "
        f"a {SIZE[0]}x{SIZE[1]} tmux pane and wait by polling `tmux capture-pane`; screen excerpts are trimmed "
        "to the lines that matter. Regenerate with `.venv/bin/python bench/replay_trust.py`.",
        "",
        "| # | reproduction | behaves as the issue asks |",
        "| --- | --- | --- |",
    ]
    for r in results:
        why = "" if r.ok else ": " + (r.error or "; ".join(w for ok, w in r.checks if not ok)).replace("|", "/")
        out.append(f"| {r.number} | {r.title} | {'yes' if r.ok else '**no**' + why} |")
    missing = [n for n in range(1, 14) if n not in numbers]
    if missing:
        out += ["", f"Not replayed in this run: {', '.join(map(str, missing))}."]
    out.append("")
    for r in results:
        out.append(r.markdown())
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
