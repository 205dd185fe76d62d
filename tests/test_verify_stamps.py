"""``verified:`` stamps and superseding (``services.session.stamping``): one commit each through
the write gate; a superseded fact's tombstone never calls its new wording resurrected."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from amr_tui.core.format.parser import parse
from amr_tui.core.tombstones import parse_tombstones
from amr_tui.core.verify.stamps import front_matter_stamped
from amr_tui.services.session.session import Session
from amr_tui.services.session.stamping import stamp_verified, supersede
from amr_tui.services.workspace import discover
from amr_tui.services.writegate import EditRefused
from tests.conftest import git

DAY = dt.date(2026, 11, 2)
MEMORY = """# Memory

- The redis client lives in `lib/redis.ts`; import `getRedisClient` from there [source: https://example.com/s/2; added: 2026-06-03]
- Deploys run `make deploy` [added: 2026-06-04; verified: 2026-07-01]

## Index

- [[topic]]
"""
TOPIC = "---\nname: Topic\ntype: reference\n---\n\nThe cache is `lib/cache/redis.ts`.\n"
PLAIN = "# Plain\n\nThe cache is `lib/cache/redis.ts`.\n"


@pytest.fixture
def session(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "topic.md": TOPIC, "plain.md": PLAIN})
    s = Session(discover([root]))
    s.load()
    yield s
    s.close()


def log(root: Path) -> list[str]:
    return git(root, "log", "--format=%s%n%b%x00").split("\x00")


def test_confirming_stamps_verified_in_one_commit_naming_the_code(session) -> None:
    root = session.mount("memory").root
    saved = stamp_verified(session, session.open("memory", "MEMORY.md"), 3, today=DAY, against="payments ce1b27c")
    assert saved.committed
    lines = (root / "MEMORY.md").read_text().splitlines()
    assert lines[2].endswith("[source: https://example.com/s/2; added: 2026-06-03; verified: 2026-11-02]")
    assert "Verified-against: payments ce1b27c" in log(root)[0]
    # An earlier stamp is replaced, not repeated.
    stamp_verified(session, session.open("memory", "MEMORY.md"), 4, today=DAY)
    assert (root / "MEMORY.md").read_text().splitlines()[
        3
    ] == "- Deploys run `make deploy` [added: 2026-06-04; verified: 2026-11-02]"
    assert git(root, "status", "--porcelain") == ""


def test_a_line_of_prose_is_stamped_in_its_front_matter_or_refused(session) -> None:
    root = session.mount("memory").root
    stamp_verified(session, session.open("memory", "topic.md"), 6, today=DAY)
    assert (
        (root / "topic.md").read_text()
        == "---\nname: Topic\ntype: reference\nverified: 2026-11-02\n---\n\nThe cache is `lib/cache/redis.ts`.\n"
    )
    stamp_verified(session, session.open("memory", "topic.md"), 6, today=dt.date(2026, 12, 1))
    assert "verified: 2026-12-01\n---" in (root / "topic.md").read_text()
    with pytest.raises(EditRefused, match="no front matter"):
        stamp_verified(session, session.open("memory", "plain.md"), 3, today=DAY)
    assert front_matter_stamped(parse(PLAIN.encode(), "plain.md"), "2026-11-02") is None


def test_superseding_writes_the_new_wording_and_a_tombstone_in_one_commit(session) -> None:
    root = session.mount("memory").root
    count = len(git(root, "rev-list", "HEAD").split())
    new = "The redis client lives in `lib/cache/redis.ts`; import `getRedisClient` from there"
    saved = supersede(session, session.open("memory", "MEMORY.md"), 3, new, today=DAY, against="payments ce1b27c")
    assert saved.committed and len(git(root, "rev-list", "HEAD").split()) == count + 1
    assert set(git(root, "show", "--format=", "--name-only", "HEAD").split()) == {"MEMORY.md", ".amr/forgotten.md"}
    line = (root / "MEMORY.md").read_text().splitlines()[2]
    assert line == f"- {new} [source: https://example.com/s/2; added: 2026-11-02; verified: 2026-11-02]"
    (stone,) = parse_tombstones((root / ".amr/forgotten.md").read_bytes())
    assert stone.text == "The redis client lives in `lib/redis.ts`; import `getRedisClient` from there"
    assert stone.superseded_by == new.replace(";", "%3B")
    assert stone.reason == "superseded" and stone.file == "MEMORY.md" and stone.sources == ("https://example.com/s/2",)
    assert "superseded on 2026-11-02" in stone.describe()


def test_the_new_wording_is_not_a_resurrection_of_the_superseded_one(session) -> None:
    """A tombstone matches near wordings too (AMR030); a superseded one only its own wording,
    else the fact's new wording, a few characters away, would be called resurrected."""
    from amr_tui.services.history.service import HistoryService

    root = session.mount("memory").root
    new = "The redis client lives in `lib/cache/redis.ts`; import `getRedisClient` from there"
    supersede(session, session.open("memory", "MEMORY.md"), 3, new, today=DAY)
    service = HistoryService(session.mount("memory"))
    try:
        assert [f.diagnostic.code for f in service.resurrections()] == []
    finally:
        service.close()
    # The old wording written back is still caught.
    text = (
        (root / "MEMORY.md")
        .read_text()
        .replace(
            "## Index", "- The redis client lives in `lib/redis.ts`; import `getRedisClient` from there\n\n## Index"
        )
    )
    (root / "MEMORY.md").write_text(text)
    # by someone else: the one who forgot a fact writing it again is no resurrection (issue 38, 5)
    agent = {"GIT_AUTHOR_NAME": "Claude Code", "GIT_AUTHOR_EMAIL": "agent@example.com"}
    git(root, "commit", "-qam", "an agent writes the old fact again", env=agent)
    service = HistoryService(session.mount("memory"))
    try:
        assert [f.diagnostic.code for f in service.resurrections()] == ["AMR030"]
    finally:
        service.close()


def test_supersede_refuses_an_empty_or_unchanged_wording(session) -> None:
    of = session.open("memory", "MEMORY.md")
    with pytest.raises(EditRefused, match="empty"):
        supersede(session, of, 3, "   ", today=DAY)
    with pytest.raises(EditRefused, match="same as the old"):
        supersede(session, of, 4, "Deploys run `make deploy`", today=DAY)
