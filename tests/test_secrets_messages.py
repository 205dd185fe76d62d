"""No part of a credential reaches a commit message (issue 38 point 3).

Every message amr builds from entry text goes through ``core.format.edit.summarise`` (the
credentials redacted, then the text cut to its width) and then the write gate, which redacts the
whole message again, subject, body and trailers. The entry editor's save "Edit entry in
MEMORY.md: Prod AWS key is <redacted: AWS access key> and secret wJalr…" kept the start of an AWS
secret the detector did not know: cut to 60 characters, no later check could see it was one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amr_tui.core.format.edit import summarise
from amr_tui.git import GitRepo
from amr_tui.git.gate import Change, commit_files
from amr_tui.services.activity.service import ActivityService
from tests.conftest import git

DATA = Path(__file__).parent / "data" / "credentials_tuning.json"
POSITIVES = [c for c in json.loads(DATA.read_text(encoding="utf-8"))["cases"] if c["secrets"]]
AGENT = {
    "GIT_AUTHOR_NAME": "claude-code",
    "GIT_AUTHOR_EMAIL": "agent@amr.invalid",
    "GIT_COMMITTER_NAME": "claude-code",
    "GIT_COMMITTER_EMAIL": "agent@amr.invalid",
}


def leaks(secret: str, text: str, allowed: str = "", size: int = 5) -> list[str]:
    """Runs of ``size`` characters of ``secret`` found in ``text`` (but those ``allowed`` has)."""
    runs = {secret[i : i + size] for i in range(max(1, len(secret) - size + 1))}
    return sorted(r for r in runs if r in text and r not in allowed)


@pytest.mark.parametrize("case", POSITIVES, ids=lambda c: c["text"][:40])
def test_a_summary_holds_no_part_of_a_credential(case) -> None:
    text = case["text"]
    allowed = text  # the words around a credential may share a run with it
    for secret in case["secrets"]:
        allowed = allowed.replace(secret, " ")
    for width in (20, 40, 60, 72, 120):
        for prefix in ("", "Edit entry in projects/payments.md: "):
            out = summarise(prefix + text, width)
            for secret in case["secrets"]:
                assert not leaks(secret, out, allowed), (width, out)


def test_the_gate_redacts_subject_body_and_trailers(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": "# Memory\n\n## Index\n"})
    message = (
        "Remember the prod key AKIAZ7QXJ4MNB2KLP3RT\n\n"
        "The body says the password is Tr0ub4dor&3xyz\n"
        "and the secret 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 of that AWS key.\n\n"
        "Session: token=lb5L2M1AZuEYwdZNnsPQPJEkWnA5oxJqO1K1abcd"
    )
    commit_files(
        GitRepo(root), [Change("MEMORY.md", b"# Memory\n\n## Index\n", b"# Memory\n\n## Index\n- a\n")], message
    )
    body = git(root, "log", "-1", "--format=%B")
    for secret in ("AKIAZ7QXJ4MNB2KLP3RT", "Tr0ub4dor&3xyz", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vL2tK9a"):
        assert not leaks(secret, body), body
    assert not leaks("lb5L2M1AZuEYwdZNnsPQPJEkWnA5oxJqO1K1abcd", body), body
    assert body.startswith("Remember the prod key <redacted: AWS access key>\n")


def test_reverting_an_agents_entry_names_no_credential(make_repo) -> None:
    """The activity review's revert builds its subject from the entry's text."""
    root = make_repo(files={"MEMORY.md": "# Memory\n\n## Index\n", "ops.md": "# Ops\n"})
    line = "- Prod AWS key is AKIAZ7QXJ4MNB2KLP3RT and secret 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\n"
    (root / "ops.md").write_text("# Ops\n" + line)
    git(root, "commit", "-qam", "Remember ops", env=AGENT)
    service = ActivityService(root)
    try:
        change = next(c.change for c in service.activity().changes if c.change.new)
        assert service.revert_change(change.id).committed
    finally:
        service.close()
    subject = git(root, "log", "-1", "--format=%B")
    assert subject.startswith('Revert the new entry in ops.md: "Prod AWS key is <redacted: AWS access key>')
    for secret in ("AKIAZ7QXJ4MNB2KLP3RT", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vL2tK9a"):
        assert not leaks(secret, subject), subject
