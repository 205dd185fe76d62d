"""Secrets: lint flags text that looks like a credential (AMR016) and every way
of writing memory in the app asks before saving one: the entry editor, capture, whole-file
editing and $EDITOR. Saying no saves nothing; saying yes saves exactly what was typed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from amr_tui.core.format.edit import check_line
from amr_tui.screens.main.screen import Place
from tests.driver import app_for, notes, screen_text, wait_for
from tests.hostilehelpers import git, init_repo

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SECRETS = {
    "GitHub token": f"deploy with {GH}",
    "AWS access key": "the key is AKIAIOSFODNN7EXAMPLE",
    "private key": "-----BEGIN OPENSSH PRIVATE KEY----- in ~/.ssh",
    "password or secret assignment": "staging password=hunter2x9z",
    "password in URL": "db at postgres://admin:s3cretpass@db.example.com/app",
    "Slack token": "bot xoxb-123456789012-abcdefghij",
    "OpenAI-style API key": "sk-proj-abcdefghijklmnopqrstuvwx",
}
MEMORY = "# Memory\n\n- Joe leads the team [source: https://example.com/1]\n\n## Index\n"


@pytest.mark.parametrize("kind,text", SECRETS.items())
def test_lint_flags_credentials_as_errors(kind: str, text: str) -> None:
    _, diags = check_line(f"- {text} [source: https://example.com/s]", "MEMORY.md")
    assert any(
        d.code == "AMR016" and d.severity.value == "error" and kind.split()[0].lower() in d.message.lower()
        for d in diags
    ), diags


def test_lint_does_not_cry_wolf() -> None:
    for text in (
        "commit 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b fixed it",
        "the password policy is 12 characters",
        "see https://example.com/path?token=",
        "AKIA is the prefix of AWS keys",
    ):
        _, diags = check_line(f"- {text}", "MEMORY.md")
        assert not any(d.code == "AMR016" for d in diags), (text, diags)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "memory", {"MEMORY.md": MEMORY})


def _committed(repo: Path) -> str:
    return git(repo, "show", "HEAD:MEMORY.md")


async def _answer(pilot, app, key: str) -> None:
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the question")
    await pilot.press(key)
    await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", what="back")


@pytest.mark.slow
async def test_every_way_of_writing_asks_before_saving_a_credential(repo: Path) -> None:
    app = app_for([repo], poll_interval=60)
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        screen = app.screen
        commits = lambda: sum(1 for n in notes(app) if n.title == "Committed")  # noqa: E731

        # 1. the entry editor: a new entry with a token. Esc keeps editing; y is no answer (a
        # credential is never saved by one key); Enter alone saves a placeholder (issue 24 point 4)
        await pilot.press("o")
        inp = screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        inp.value = f"Deploys use {GH} [source: https://example.com/d]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SecretScreen", what="the credential question")
        assert "GitHub token" in screen_text(app) and "type save" in screen_text(app).lower()
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert GH not in _committed(repo) and GH not in (repo / "MEMORY.md").read_text()
        assert screen.editor.display and inp.value.startswith("Deploys use")  # still there to fix
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SecretScreen", what="asked again")
        await pilot.press("y", "enter")  # one key is no answer: still asking, nothing saved
        await pilot.pause(0.3)
        assert type(app.screen).__name__ == "SecretScreen" and commits() == 0
        await pilot.press("enter")  # the default: a placeholder
        await wait_for(pilot, lambda: commits() == 1, what="saved with a placeholder")
        assert GH not in _committed(repo) and "Deploys use <redacted: GitHub token>" in _committed(repo)
        assert GH not in git_log(repo)

        # 2. capture: an AWS key; esc, and the text comes back to fix
        await pilot.press("c")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "TextPromptScreen", what="capture")
        app.screen.query_one("#prompt-input").value = "prod key AKIAIOSFODNN7EXAMPLE"
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SecretScreen", what="the question")
        await pilot.press("escape")  # Keep editing: the text comes back to fix
        await wait_for(pilot, lambda: type(app.screen).__name__ == "TextPromptScreen", what="capture again")
        assert app.screen.query_one("#prompt-input").value == "prod key AKIAIOSFODNN7EXAMPLE"
        await pilot.press("escape")
        await _answer(pilot, app, "y")  # Discard what you typed?
        await pilot.pause(0.3)
        assert "AKIAIOSFODNN7EXAMPLE" not in (repo / "MEMORY.md").read_text() and commits() == 1

        # 3. whole-file editing: a password, kept as written by typing the word; the commit
        # message still names no credential
        screen.open_place(Place("memory", "MEMORY.md", 0), record=False)
        await pilot.pause(0.3)
        await pilot.press("E")
        area = app.screen.query_one("#file-edit-area")
        await wait_for(pilot, lambda: area.has_focus, what="file editor")
        area.text = area.text + "- staging password=hunter2x9z\n"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SecretScreen", what="the question")
        await pilot.press(*"save", "enter")
        await wait_for(pilot, lambda: commits() == 2, what="saved as written")
        assert "password=hunter2x9z" in _committed(repo)
        assert "hunter2x9z" not in git_log(repo)
        assert app.is_running


def git_log(repo: Path) -> str:  # every commit message
    return subprocess.run(["git", "log", "--format=%B"], cwd=repo, capture_output=True, text=True).stdout


async def test_external_editor_adding_a_credential_asks(repo: Path, tmp_path: Path, monkeypatch) -> None:
    script = tmp_path / "fake-editor"
    script.write_text('#!/bin/sh\nprintf -- "- db at postgres://admin:s3cretpass@db.example.com/app\\n" >> "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    app = app_for([repo], poll_interval=60)
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SecretScreen", what="the question")
        await pilot.press("escape")
        # Not committed: what $EDITOR left is on disk, and amr asks what becomes of it.
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ChoiceScreen", what="what to do with the text")
        assert "s3cretpass" not in _committed(repo) and "s3cretpass" in (repo / "MEMORY.md").read_text()
        from textual.widgets import OptionList

        options = app.screen.query_one(OptionList)
        options.highlighted = [options.get_option_at_index(i).id for i in range(options.option_count)].index("restore")
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", what="back")
        assert "s3cretpass" not in _committed(repo) and (repo / "MEMORY.md").read_text() == MEMORY


AWS_ID, AWS_SECRET = "AKIAZ7QXJ4MNB2KLP3RT", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vL2tK9a"  # the made-up pair


@pytest.mark.slow
async def test_the_placeholder_replaces_every_credential_of_the_entry(repo: Path) -> None:
    """Issue 38 point 3, by keys: e, the text with an AWS key id and its secret, Enter, Enter. The
    key id became a placeholder, the secret was committed, and "wJalr…" was in the subject."""
    app = app_for([repo], poll_interval=60)
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        screen = app.screen
        await pilot.press("e")
        inp = screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        inp.value = f"Prod AWS key is {AWS_ID} and secret {AWS_SECRET}"
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SecretScreen", what="the credential question")
        assert "AWS secret access" in screen_text(app)  # both kinds are named
        await pilot.press("enter")  # the default: placeholders
        await wait_for(pilot, lambda: "Prod AWS key" in _committed(repo), what="saved")
    line = next(ln for ln in _committed(repo).splitlines() if "Prod AWS key" in ln)
    assert line == "- Prod AWS key is <redacted: AWS access key> and secret <redacted: AWS secret access key>"
    log = git_log(repo)
    assert not any(AWS_SECRET[i : i + 5] in log for i in range(len(AWS_SECRET) - 4)), log
    assert not any(AWS_ID[i : i + 8] in log for i in range(len(AWS_ID) - 7)), log
