"""amr sync against an authenticated server: git-http-backend behind lighttpd with HTTP Basic auth
on 127.0.0.1 (tests/httpgitserver.py), credentials from git's own credential store in the test's
HOME. Every amr run has stdin closed, no controlling terminal and a timeout, so a prompt would show
as a failure, never as a hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from amr_tui.git import GitRepo
from amr_tui.git.remote import AuthError, fetch, redact_url
from tests.httpgitserver import PASSWORD, USER, WRONG_PASSWORD, http_git_server, store_credentials  # noqa: F401
from tests.synchelpers import AMR, append, clone, commit_all, git

BASE = {
    "MEMORY.md": "# Memory\n\n## Index\n- [[findings]]\n",
    "findings.md": "# Findings\n\n- Database: queries are fast [source: s/1]\n",
    ".gitattributes": "*.md merge=amr\n",
}
SECRETS = (PASSWORD, WRONG_PASSWORD)
AMR_TIMEOUT = 60.0


def home() -> Path:
    return Path(os.environ["HOME"])  # the per-test HOME from conftest


def run_amr(cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``amr ARGS`` as a user would run it, but with stdin closed and no terminal to prompt on."""
    started = time.monotonic()
    res = subprocess.run(
        [*AMR, *args],
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=AMR_TIMEOUT,
        start_new_session=True,
    )
    return res, time.monotonic() - started


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"a password was shown: {text!r}"


def _repo(server, tmp_path: Path, name: str, *clones: str) -> list[Path]:
    store_credentials(home(), server, USER, PASSWORD)
    url = server.create(name, BASE, work=tmp_path)
    return [clone(url, tmp_path / c, name=c.upper(), driver=True) for c in clones]


def test_the_server_really_wants_credentials(http_git_server, tmp_path):  # noqa: F811
    http_git_server.create("closed", BASE, work=tmp_path)
    empty = tmp_path / "nobody"
    empty.mkdir()
    res = git(
        tmp_path,
        "ls-remote",
        http_git_server.url("closed"),
        check=False,
        env={"HOME": str(empty), "XDG_CONFIG_HOME": str(empty), "GIT_TERMINAL_PROMPT": "0"},
    )
    assert res.returncode != 0 and "terminal prompts disabled" in res.stderr, res.stderr
    store_credentials(home(), http_git_server, USER, PASSWORD)
    assert "refs/heads/main" in git(tmp_path, "ls-remote", http_git_server.url("closed")).stdout


@pytest.mark.slow
def test_two_clones_sync_through_the_authenticated_server(http_git_server, tmp_path):  # noqa: F811
    a, b = _repo(http_git_server, tmp_path, "shared", "a", "b")
    append(a, "findings.md", "- Cache: warm it before the demo [source: s/a]")
    commit_all(a, "A: cache")
    append(b, "findings.md", "- Queue: retries are capped at 5 [source: s/b]")
    commit_all(b, "B: queue")

    first, t1 = run_amr(a, "sync")
    assert first.returncode == 0 and "synced: pushed to origin/main" in first.stdout, first.stdout + first.stderr
    second, t2 = run_amr(b, "sync", "--json")  # B fetches A's append, merges both, pushes
    assert second.returncode == 0, second.stdout + second.stderr
    (res,) = json.loads(second.stdout)
    assert res["status"] == "synced" and res["pushed"] and res["merges"] == 1, res
    third, t3 = run_amr(a, "sync")  # and A brings B's merge in
    assert third.returncode == 0 and "synced: brought in origin/main" in third.stdout, third.stdout

    served = http_git_server.read("shared", "findings.md")
    for clone_dir in (a, b):
        assert (clone_dir / "findings.md").read_text() == served
    assert "- Cache: warm it" in served and "- Queue: retries" in served and "queries are fast" in served
    assert "<<<<<<<" not in served
    assert git(a, "rev-parse", "HEAD").stdout == git(b, "rev-parse", "HEAD").stdout
    assert_no_secret(first.stdout, first.stderr, second.stdout, second.stderr, third.stdout, third.stderr)
    assert max(t1, t2, t3) < 20, (t1, t2, t3)


def test_wrong_password_is_an_auth_error_in_the_cli(http_git_server, tmp_path):  # noqa: F811
    (b,) = _repo(http_git_server, tmp_path, "locked", "b")
    append(b, "findings.md", "- written with a stale password [source: s/b]")
    mine = commit_all(b, "B")
    creds = store_credentials(home(), http_git_server, USER, WRONG_PASSWORD)
    url = http_git_server.url("locked")

    res, took = run_amr(b, "sync")
    assert res.returncode == 2, res.stdout + res.stderr
    line = f"{b}: auth: authentication failed for remote 'origin' ({url}): the server refused the credentials"
    assert res.stdout.startswith(line), res.stdout
    assert took < 20
    # git's credential store forgets a password the server refused; the next sync has none to give
    assert WRONG_PASSWORD not in creds.read_text()
    again, _ = run_amr(b, "sync", "--json")
    assert again.returncode == 2
    (data,) = json.loads(again.stdout)
    assert data["status"] == "auth" and data["message"].startswith(
        f"authentication failed for remote 'origin' ({url}): the server wants credentials"
    ), data
    state = (b / ".git" / "amr" / "sync.json").read_text()
    assert json.loads(state)["last_status"] == "auth"
    assert_no_secret(res.stdout, res.stderr, again.stdout, again.stderr, state)
    assert not http_git_server.reachable("locked", mine)  # nothing was pushed

    store_credentials(home(), http_git_server, USER, PASSWORD)  # fixed with git: the same sync works
    fixed, _ = run_amr(b, "sync")
    assert fixed.returncode == 0 and http_git_server.reachable("locked", mine), fixed.stdout
    assert_no_secret(fixed.stdout, fixed.stderr)


def test_git_never_prompts_when_no_credentials_are_there(http_git_server, tmp_path):  # noqa: F811
    (b,) = _repo(http_git_server, tmp_path, "noprompt", "b")
    (home() / ".git-credentials").write_text("")
    with pytest.raises(AuthError) as info:
        fetch(GitRepo(b), "origin", "main")
    assert "terminal prompts disabled" in info.value.stderr  # git wanted to ask and was not allowed to
    assert str(info.value).startswith("authentication failed for remote 'origin'")


def test_a_password_written_into_the_remote_url_is_never_shown(http_git_server, tmp_path):  # noqa: F811
    (b,) = _repo(http_git_server, tmp_path, "inurl", "b")
    (home() / ".gitconfig").unlink()  # no helper at all: only what the URL says
    (home() / ".git-credentials").unlink()
    plain = http_git_server.url("inurl")
    with_pw = plain.replace("http://", f"http://{USER}:{WRONG_PASSWORD}@")
    assert redact_url(with_pw) == plain
    git(b, "remote", "set-url", "origin", with_pw)
    append(b, "findings.md", "- pushed with the URL's password [source: s/b]")
    commit_all(b, "B")

    res, _ = run_amr(b, "sync")
    assert res.returncode == 2 and f"authentication failed for remote 'origin' ({plain})" in res.stdout, res.stdout
    verbose, _ = run_amr(b, "sync", "-v", "--json")
    assert verbose.returncode == 2
    state = (b / ".git" / "amr" / "sync.json").read_text()
    assert_no_secret(res.stdout, res.stderr, verbose.stdout, verbose.stderr, state)

    git(b, "remote", "set-url", "origin", plain.replace("http://", f"http://{USER}:{PASSWORD}@"))
    ok, _ = run_amr(b, "sync", "-v")
    assert ok.returncode == 0 and "pushed to origin/main" in ok.stdout, ok.stdout + ok.stderr
    assert_no_secret(ok.stdout, ok.stderr, (b / ".git" / "amr" / "sync.json").read_text())


@pytest.mark.parametrize("variable", ["GIT_ASKPASS", "SSH_ASKPASS"])
def test_an_askpass_program_from_the_environment_is_not_run(
    http_git_server,
    tmp_path,
    monkeypatch,  # noqa: F811
    variable,
):
    (b,) = _repo(http_git_server, tmp_path, f"askpass-{variable.lower()}", "b")
    (home() / ".git-credentials").write_text("")
    asked = tmp_path / "asked"
    program = tmp_path / "askpass"
    program.write_text(f"#!/bin/sh\necho \"$1\" >> '{asked}'\necho {WRONG_PASSWORD}\n")
    program.chmod(0o755)
    monkeypatch.setenv(variable, str(program))
    res, _ = run_amr(b, "sync")
    assert res.returncode == 2 and "authentication failed for remote 'origin'" in res.stdout, res.stdout
    assert not asked.exists(), asked.read_text()
