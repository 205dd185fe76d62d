"""Helpers for sync tests: a real git server (``git daemon``) on 127.0.0.1, clones, plain git.

The server is started by the test, bound to 127.0.0.1 on a free port, waited for until it accepts
connections (bounded), and stopped by the fixture. Clones use plain git for set-up, as agents do;
the code under test uses amr's own runner.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

AMR = [sys.executable, "-m", "amr_tui"]
START_TIMEOUT = 10.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sh(
    cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Plain git (or any program) for set-up and for playing an agent."""
    full = {**os.environ, **(env or {})}
    argv = list(args) if args[0] != "git" else ["git", *args[1:]]
    res = subprocess.run(argv, cwd=cwd, env=full, capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}")
    return res


def git(cwd: Path, *args: str, **kw) -> subprocess.CompletedProcess[str]:
    return sh(cwd, "git", *args, **kw)


def amr(cwd: Path, *args: str, check: bool = False, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    res = subprocess.run([*AMR, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise AssertionError(res.stdout + res.stderr)
    return res


class GitServer:
    """``git daemon`` serving every bare repo under ``base`` on 127.0.0.1 (push enabled)."""

    def __init__(self, base: Path):
        self.base = base
        self.base.mkdir(parents=True, exist_ok=True)
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}.git"

    def start(self) -> None:
        for _try in range(5):
            self.port = free_port()
            self.proc = subprocess.Popen(
                [
                    "git",
                    "daemon",
                    f"--base-path={self.base}",
                    "--export-all",
                    "--enable=receive-pack",
                    "--reuseaddr",
                    "--listen=127.0.0.1",
                    f"--port={self.port}",
                    str(self.base),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        return
                except OSError:
                    time.sleep(0.05)
            self.stop()
        raise RuntimeError("git daemon did not start")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)

    def create(self, name: str, files: dict[str, str | bytes], *, work: Path) -> str:
        """A bare repo ``name.git`` whose main branch holds ``files`` in one commit. Returns its URL."""
        bare = self.base / f"{name}.git"
        git(self.base, "init", "-q", "--bare", "-b", "main", str(bare))
        seed = work / f"{name}-seed"
        git(work, "init", "-q", "-b", "main", str(seed))
        write_files(seed, files)
        git(seed, "add", "-A")
        git(seed, "commit", "-q", "-m", "Create memory repo")
        git(seed, "push", "-q", str(bare), "main:main")
        return self.url(name)

    def tip(self, name: str, branch: str = "main") -> str:
        return git(self.base / f"{name}.git", "rev-parse", f"refs/heads/{branch}").stdout.strip()

    def reachable(self, name: str, oid: str, branch: str = "main") -> bool:
        res = git(self.base / f"{name}.git", "merge-base", "--is-ancestor", oid, f"refs/heads/{branch}", check=False)
        return res.returncode == 0

    def read(self, name: str, path: str, branch: str = "main") -> str:
        return git(self.base / f"{name}.git", "show", f"refs/heads/{branch}:{path}").stdout


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def clone(url: str, dest: Path, *, name: str, driver: bool = False) -> Path:
    """A clone with its own identity; with ``driver``, amr's merge driver configured (and the
    attribute added to the work tree if the repo does not carry it yet)."""
    git(dest.parent, "clone", "-q", url, str(dest))
    git(dest, "config", "user.name", name)
    git(dest, "config", "user.email", f"{name.lower()}@example.test")
    if driver:
        amr(dest, "merge-driver", "install", ".", "--no-commit", check=True)
    return dest


def append(root: Path, rel: str, line: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = path.read_bytes() if path.exists() else b""
    if data and not data.endswith(b"\n"):
        data += b"\n"
    path.write_bytes(data + line.encode() + b"\n")


def replace_line(root: Path, rel: str, old: str, new: str | None) -> None:
    path = root / rel
    lines = path.read_text().splitlines(keepends=True)
    out = []
    for ln in lines:
        if ln.rstrip("\n") == old:
            if new is not None:
                out.append(new + "\n")
        else:
            out.append(ln)
    path.write_text("".join(out))


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def git_server(tmp_path: Path):
    server = GitServer(tmp_path / "server")
    server.start()
    try:
        yield server
    finally:
        server.stop()
