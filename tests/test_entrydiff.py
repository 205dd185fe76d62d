"""core.entrydiff: entry-level changes between two versions of a repo (pure, no git)."""

from __future__ import annotations

from amr_tui.core.diff.align import align, entry_line_counts, file_summaries
from amr_tui.core.diff.entries import ChangeKind, diff_entries, entry_of_line
from amr_tui.core.diff.text import diff_json, summary_lines
from amr_tui.core.tombstones import FactMatcher
from tests.historyhelpers import DEVIN, snapshot

S = "https://example.com/s"


def b(text: str) -> bytes:
    return text.encode()


def devin():
    return diff_entries(
        {p: b(t) for p, t in snapshot(DEVIN / "before").items()},
        {p: b(t) for p, t in snapshot(DEVIN / "after").items()},
    )


def kinds(diff) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in diff.changes:
        if not c.links_only:
            out[c.kind.value] = out.get(c.kind.value, 0) + 1
    return out


def test_devin_launch_example_is_classified_like_the_seed_describes_it() -> None:
    diff = devin()
    assert kinds(diff) == {"merged": 2, "moved": 8, "dropped": 1, "new": 1}
    merged = {c.new.path: c for c in diff.changes if c.kind is ChangeKind.MERGED}
    stack = merged["frontend/stack.md"]
    assert [o.path for o in stack.old] == ["landing-page.md", "styling.md"]
    assert stack.sources_kept and set(stack.new.sources) == {f"https://app.devin.ai/sessions/s{n}" for n in (3, 4)}
    bun = merged["tooling/bun.md"]  # a duplicated rule merged, both sources kept
    assert [o.path for o in bun.old] == ["bun.md", "styling.md"] and bun.sources_kept
    (dropped,) = [c for c in diff.changes if c.kind is ChangeKind.DROPPED and not c.links_only]
    assert dropped.old[0].text == "Dev server was on port 3001 this afternoon"
    (new,) = [c for c in diff.changes if c.kind is ChangeKind.NEW and not c.links_only]
    assert new.new.path == "workflow/conventions.md"
    assert [r.where for r in new.inferred_from] == ["backend/migrations.md:3", "backend/api.md:3"]
    moves = {(c.old[0].path, c.new.path) for c in diff.changes if c.kind is ChangeKind.MOVED}
    assert ("components.md", "frontend/components.md") in moves and ("api.md", "backend/api.md") in moves
    link = next(
        c for c in diff.changes if c.kind is ChangeKind.MOVED and c.new.path == "backend/migrations.md" and c.reworded
    )
    assert "[[tooling/bun]]" in link.new.text  # the link to the moved file was rewritten


def test_devin_summary_text() -> None:
    lines = summary_lines(devin(), ids=False)
    assert lines[0] == "Entries: 2 merged, 8 moved, 1 dropped, 1 new, 13 index link changes"
    text = "\n".join(lines)
    assert (
        'merged      landing-page.md:3 + styling.md:3 -> frontend/stack.md:3  "The website and its landing page' in text
    )
    assert "(sources kept)" in text
    assert 'dropped     dev-port.md:3  "Dev server was on port 3001 this afternoon"' in text
    assert "(inferred from backend/migrations.md:3, backend/api.md:3)" in text
    assert "dev-port.md (deleted)" in text and "workflow/conventions.md (added)" in text
    assert "  index       +6: [[tooling/bun]]" in text
    assert "styling.md (deleted)\n  2 entries went to frontend/stack.md, tooling/bun.md" in text


def test_deterministic_ids_and_order() -> None:
    a, c = devin(), devin()
    assert [x.id for x in a.changes] == [x.id for x in c.changes]
    assert len({x.id for x in a.changes}) == len(a.changes)
    assert diff_json(a) == diff_json(c)


def test_reworded_metadata_unchanged_and_lost_sources() -> None:
    old = {
        "notes.md": b(
            "# Notes\n\n"
            f"- Marco runs the website rewrite with one contractor [source: {S}/1]\n"
            f"- Priya owns pricing [source: {S}/2; added: 2026-09-01]\n"
            f"- Stays the same [source: {S}/3]\n"
            f"- Alpha fact about billing invoices [source: {S}/4]\n"
            f"- Beta fact about billing invoices and ledgers [source: {S}/5]\n"
        )
    }
    new = {
        "notes.md": b(
            "# Notes\n\n"
            f"- Marco runs the website rewrite with two contractors since mid-September [source: {S}/6]\n"
            f"- Priya owns pricing [source: {S}/2; added: 2026-09-02]\n"
            f"- Stays the same [source: {S}/3]\n"
            f"- Alpha fact about billing invoices [source: {S}/4]\n"
        )
    }
    diff = diff_entries(old, new)
    by_kind = {c.kind: c for c in diff.changes}
    assert by_kind[ChangeKind.REWORDED].old[0].line == 3 and by_kind[ChangeKind.REWORDED].lost_sources == (f"{S}/1",)
    assert by_kind[ChangeKind.METADATA].new.text == "Priya owns pricing"
    assert by_kind[ChangeKind.DROPPED].old[0].text.startswith("Beta")
    assert len(diff.unchanged) == 2 and all(c.kind is ChangeKind.UNCHANGED for c in diff.unchanged)


def test_duplicate_dropped_while_a_copy_stays_is_merged_into_it() -> None:
    old = {
        "a.md": b(f"- Deploys go out from main through the ship action [source: {S}/1]\n"),
        "b.md": b(f"- Deploys go out from main through the ship action [source: {S}/2]\n- other\n"),
    }
    new = {"a.md": old["a.md"], "b.md": b("- other\n")}
    (change,) = diff_entries(old, new).changes
    assert change.kind is ChangeKind.MERGED and change.new.path == "a.md"
    assert change.lost_sources == (f"{S}/2",) and not change.sources_kept


def test_resurrected_new_entry_is_flagged() -> None:
    matcher = FactMatcher()
    matcher.add("Dev server was on port 3001 this afternoon", "forgotten on purpose")
    new = {"dev.md": b("- dev server was on port 3001, this afternoon [source: https://x/1]\n- fresh\n")}
    diff = diff_entries({}, new, forgotten=matcher)
    kinds_ = {c.new.text: c.kind for c in diff.changes}
    assert kinds_["dev server was on port 3001, this afternoon"] is ChangeKind.RESURRECTED
    assert kinds_["fresh"] is ChangeKind.NEW
    assert "WARNING: forgotten on purpose" in "\n".join(summary_lines(diff))


def test_alignment_pairs_entries_on_one_row() -> None:
    old = {
        "n.md": b("# N\n\n- keep [source: https://x/1]\n- Marco runs the website rewrite with one contractor\n- gone\n")
    }
    new = {
        "n.md": b(
            "# N\n\n- keep [source: https://x/1]\n- added here\n"
            "- Marco runs the website rewrite with two contractors since mid-September\n"
        )
    }
    diff = diff_entries(old, new)
    rows = align(diff, "n.md")
    reworded = [r for r in rows if r.kind == "reworded"]
    assert len(reworded) == 1 and reworded[0].old_line == 4 and reworded[0].new_line == 5
    assert [r.kind for r in rows if r.old_line is None] == ["new"]
    assert [r.kind for r in rows if r.new_line is None] == ["dropped"]
    assert rows[0].kind == "context" and rows[2].kind == "unchanged"
    # every line of both versions appears exactly once
    assert sorted(r.old_line for r in rows if r.old_line) == [1, 2, 3, 4, 5]
    assert sorted(r.new_line for r in rows if r.new_line) == [1, 2, 3, 4, 5]


def test_file_summaries_and_counts() -> None:
    diff = devin()
    summaries = {f.path: f for f in file_summaries(diff)}
    assert summaries["dev-port.md"].status == "deleted" and summaries["MEMORY.md"].status == "modified"
    assert summaries["frontend/stack.md"].status == "added"
    assert summaries["frontend/stack.md"].counts == {"merged": 1, "moved": 1}
    assert entry_line_counts(diff) == (10, 13)


def test_identical_files_are_context_only() -> None:
    same = {"a.md": b("- one\n"), "b.md": b("- two\n")}
    diff = diff_entries(same, dict(same))
    assert diff.changes == [] and diff.changed_paths == []


def test_entry_of_line() -> None:
    e = entry_of_line("  * Use bun [source: https://x/1; added: 2026-01-01]")
    assert e is not None and e.text == "Use bun" and e.sources == ("https://x/1",)
    assert entry_of_line("- [[tooling/bun]]").links_only
    for not_entry in ("---", "plain text", "-x", "- ", "1. ordered"):
        assert entry_of_line(not_entry) is None, not_entry


def test_a_duplicate_merged_into_an_untouched_file_is_listed_under_its_old_file() -> None:
    old = {
        "a.md": b(f"- Deploys go out from main through the ship action [source: {S}/1]\n"),
        "b.md": b(f"- Deploys go out from main through the ship action [source: {S}/2]\n- other\n"),
    }
    diff = diff_entries(old, {"a.md": old["a.md"], "b.md": b("- other\n")})
    text = "\n".join(summary_lines(diff, ids=False))
    assert "b.md (modified)\n  merged      b.md:1 -> a.md:1" in text and "LOST 1 source(s)" in text
    assert entry_line_counts(diff) == (0, 1)
