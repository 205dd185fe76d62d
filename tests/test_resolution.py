"""core.resolution: what "Keep mine", "Keep theirs" and an edited result of the conflict view
write. Only the entries in conflict are decided; every other change on both sides stays."""

from __future__ import annotations

import pytest

from amr_tui.core.merge.resolution import EDITED, OURS, THEIRS, ConflictChoice, resolved_bytes

BASE = b"# Memory\n\n- fact 1 s0\n- fact 2 s0\n- fact 3 s0\n\n## Index\n"


def _with(data: bytes, old: str, new: str | None) -> bytes:
    line = old.encode() + b"\n"
    assert line in data
    return data.replace(line, b"" if new is None else new.encode() + b"\n")


def test_keep_mine_takes_my_side_of_the_conflict_and_keeps_the_rest_of_both() -> None:
    ours = _with(_with(BASE, "- fact 1 s0", "- fact 1 mine"), "- fact 2 s0", "- fact 2 mine too")
    theirs = _with(_with(BASE, "- fact 1 s0", "- fact 1 theirs"), "- fact 3 s0", "- fact 3 theirs")
    theirs = theirs.replace(b"\n\n## Index", b"\n- fact 4 theirs\n\n## Index")
    got = resolved_bytes("MEMORY.md", BASE, ours, theirs, ConflictChoice(OURS))
    assert got == b"# Memory\n\n- fact 1 mine\n- fact 2 mine too\n- fact 3 theirs\n- fact 4 theirs\n\n## Index\n"


def test_keep_theirs_takes_their_side_of_the_conflict_and_keeps_my_other_changes() -> None:
    ours = _with(_with(BASE, "- fact 1 s0", "- fact 1 mine"), "- fact 2 s0", "- fact 2 mine too")
    theirs = _with(BASE, "- fact 1 s0", "- fact 1 theirs")
    got = resolved_bytes("MEMORY.md", BASE, ours, theirs, ConflictChoice(THEIRS))
    assert got == b"# Memory\n\n- fact 1 theirs\n- fact 2 mine too\n- fact 3 s0\n\n## Index\n"


def test_a_line_nobody_committed_is_left_out() -> None:
    # The user read the file with an agent's uncommitted line in it; the committed version lacks it.
    seen = BASE.replace(b"\n\n## Index", b"\n- fact 60 draft\n\n## Index")
    ours = _with(seen, "- fact 1 s0", "- fact 1 mine")
    theirs = _with(BASE, "- fact 1 s0", "- fact 1 theirs")
    got = resolved_bytes("MEMORY.md", seen, ours, theirs, ConflictChoice(OURS))
    assert got is not None and b"fact 60" not in got and b"- fact 1 mine\n" in got


def test_a_deleted_side_is_taken_whole() -> None:
    theirs = _with(BASE, "- fact 1 s0", "- fact 1 theirs")
    assert resolved_bytes("MEMORY.md", BASE, None, theirs, ConflictChoice(OURS)) is None
    assert resolved_bytes("MEMORY.md", BASE, None, theirs, ConflictChoice(THEIRS)) == theirs
    ours = _with(BASE, "- fact 1 s0", "- fact 1 mine")
    assert resolved_bytes("MEMORY.md", BASE, ours, None, ConflictChoice(OURS)) == ours
    assert resolved_bytes("MEMORY.md", BASE, ours, None, ConflictChoice(THEIRS)) is None


def test_an_edited_result_is_written_as_given_and_a_plain_text_file_merges_by_lines() -> None:
    assert resolved_bytes("MEMORY.md", BASE, BASE, BASE, ConflictChoice(EDITED, b"x\n")) == b"x\n"
    base, ours, theirs = b"a\nb\nc\nd\ne\n", b"a\nB\nc\nd\ne\n", b"a\nb2\nc\nd\nE\n"
    assert resolved_bytes("notes.txt", base, ours, theirs, ConflictChoice(OURS)) == b"a\nB\nc\nd\nE\n"
    assert resolved_bytes("notes.txt", base, ours, theirs, ConflictChoice(THEIRS)) == b"a\nb2\nc\nd\nE\n"


def test_crlf_and_a_missing_final_newline_are_kept() -> None:
    base = BASE.replace(b"\n", b"\r\n").rstrip(b"\r\n")
    ours = base.replace(b"fact 1 s0", b"fact 1 mine")
    theirs = base.replace(b"fact 1 s0", b"fact 1 theirs").replace(b"fact 3 s0", b"fact 3 theirs")
    got = resolved_bytes("MEMORY.md", base, ours, theirs, ConflictChoice(OURS))
    assert got == base.replace(b"fact 1 s0", b"fact 1 mine").replace(b"fact 3 s0", b"fact 3 theirs")


def test_an_unknown_choice_is_refused() -> None:
    with pytest.raises(ValueError):
        ConflictChoice("both")
