"""amr in tmux on throw-away repos: the driver of the capture scripts (finder_captures.py,
mcp_session.py).

Every run gets one temp folder with its own ``HOME`` (no global git or amr config, caches in
there), ``GIT_CONFIG_NOSYSTEM=1`` and an explicit author/committer per actor: ``USER`` for the
person at the keyboard, ``AGENT`` for the processes writing beside the app. ``Tmux`` runs the real
``.venv/bin/amr`` in a detached session on a private tmux server socket (a 130x38 pane), sends
keys, and waits by polling ``tmux capture-pane`` for the text it expects.

(It was the first part of bench/replay_trust.py, which wrote docs/trust-replays.md: removed in
issue 43, see that document's first line.)
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from collections.abc import Callable
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


ENV: Env = None  # type: ignore[assignment]  # the script sets it first: tmux_env.ENV = tmux_env.Env(folder)


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


class Timeout(Exception):
    def __init__(self, what: str, screen: str) -> None:
        super().__init__(f"timed out waiting for {what}")
        self.what, self.screen = what, screen


class Tmux:
    """amr in a detached tmux session on a private server socket."""

    def __init__(self, name: str, cwd: Path, args: list[str], who: dict[str, str] | None = USER) -> None:
        self.sock = f"amr-bench-{os.getpid()}"
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


def ready(t: Tmux, timeout: float = 30) -> str:
    return t.wait("items indexed", timeout, "the app to load (status line 'N items indexed')")


def clean(screen: str) -> str:
    """A captured screen without its empty rows (rows holding only pane borders)."""
    return "\n".join(ln.rstrip() for ln in screen.splitlines() if ln.strip(" \u2595\u258f\u258c"))
