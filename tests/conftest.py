"""Shared fixtures: real git repositories in temp dirs with a fixed identity and clock.

CI machines have no git identity, so every test repo gets its author and committer
from the environment set here, never from the machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.driver import APP_SIZE, AppDriver, app_for, close_sessions, running

FIXED_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.test",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.test",
    "GIT_AUTHOR_DATE": "2026-10-01T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-10-01T12:00:00+00:00",
}


@pytest.fixture(autouse=True)
def _isolated_git_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test runs with a throwaway HOME and a fixed git identity and date; the sessions of
    the apps it ran are closed after it (``tests.driver.close_sessions``)."""
    _set_test_env(monkeypatch, tmp_path_factory.mktemp("home"))
    yield
    close_sessions()


def _set_test_env(mp: pytest.MonkeyPatch, home: Path) -> None:
    """A throwaway HOME (config, amr search's index cache) and the fixed git identity and date."""
    mp.setenv("HOME", str(home))
    mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    mp.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # amr search's index cache
    mp.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))  # the write journal, share records, usage records
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in FIXED_ENV.items():
        mp.setenv(key, value)


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> str:
    """Plain git for test set-up (the code under test uses its own hardened runner)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=full_env, check=True, capture_output=True, text=True, input=input
    )
    return result.stdout


@pytest.fixture
def make_repo(tmp_path: Path):
    """Create a git repo with the given files committed. Returns its path.

    The commit has its own author, committer and date (FIXED_ENV), whatever the environment."""

    def _make(name: str = "memory", files: dict[str, str | bytes] | None = None) -> Path:
        root = tmp_path / name
        root.mkdir(parents=True)
        git(root, "init", "-q", "-b", "main")
        files = files or {"MEMORY.md": "# Memory\n\n## Index\n"}
        for rel, content in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                content = content.encode()
            target.write_bytes(content)
        git(root, "add", "--pathspec-from-file=-", "--pathspec-file-nul", input="\0".join(files))  # one add for all
        git(root, "commit", "-q", "-m", "Create memory repo", env=FIXED_ENV)
        return root

    return _make


@pytest.fixture(scope="session")
def _demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo set built once per test process, with the tests' fixed identity and date."""
    from amr_tui.services.demo import build_demo

    root = tmp_path_factory.mktemp("demo-template") / "vm"
    with pytest.MonkeyPatch.context() as mp:
        _set_test_env(mp, tmp_path_factory.mktemp("demo-home"))
        build_demo(root)
    return root


@pytest.fixture
def demo(tmp_path: Path, _demo_template: Path) -> list[Path]:
    """The deterministic demo set (memory-alice, memory-bob) built with real git, copied from the
    one built for this test process: a build runs some forty git commands (1.3 s), and 83 tests
    take a demo. The copy is the same repos (objects, refs, work tree); git refreshes its index's
    stat data on the first status."""
    from amr_tui.services.demo import REPOS

    dest = tmp_path / "vm"
    shutil.copytree(_demo_template, dest, symlinks=True)
    return [dest / name for name in REPOS]


@pytest.fixture
def app(demo: list[Path]):
    """The app on the demo set, polling once a minute (so no refresh comes in unasked)."""
    return app_for(demo, poll_interval=60)


@pytest.fixture
async def driver(app) -> AsyncIterator[AppDriver]:
    """The ``app`` fixture running at APP_SIZE, its first file open and indexed."""
    async with running(app, APP_SIZE) as drive:
        yield drive
