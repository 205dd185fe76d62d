"""core.tombstones: the tombstone extension (docs/format.md section 9) and fact matching."""

from __future__ import annotations

from amr_tui.core.diff.similarity import text_digest
from amr_tui.core.format.parser import parse
from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
from amr_tui.core.tombstones import (
    TOMBSTONE_HEADER,
    TOMBSTONE_PATH,
    FactMatcher,
    add_tombstone,
    parse_tombstones,
    tombstone_line,
)


def test_tombstone_line_keeps_sources_and_escapes_values() -> None:
    line = tombstone_line(
        "Dev server was on port 3001 this afternoon",
        date="2026-10-08",
        reason="transient; [not] needed\nany more",
        by="Alice Chen",
        sources=["https://example.com/sessions/118"],
        file="dev-port.md",
    )
    assert line == (
        "- Dev server was on port 3001 this afternoon [forgotten: 2026-10-08; "
        "reason: transient%3B %5Bnot%5D needed any more; by: Alice Chen; "
        "source: https://example.com/sessions/118; file: dev-port.md]"
    )
    doc = parse((line + "\n").encode(), TOMBSTONE_PATH)
    assert doc.diagnostics == []
    (t,) = parse_tombstones(doc)
    assert t.text == "Dev server was on port 3001 this afternoon" and t.forgotten == "2026-10-08"
    assert t.by == "Alice Chen" and t.sources == ("https://example.com/sessions/118",) and t.file == "dev-port.md"
    assert not t.redacted


def test_redacted_tombstone_keeps_only_a_digest_of_the_normalised_text() -> None:
    fact = "Dana's home address is 12 Elm Street"
    line = tombstone_line(
        fact,
        date="2026-10-08",
        reason="personal data",
        by="Alice Chen",
        sources=["https://example.com/s/9"],
        file="people.md",
        redact=True,
    )
    assert "Elm" not in line and "example.com" not in line and "people.md" not in line
    assert line.startswith(
        "- (redacted) [forgotten: 2026-10-08; reason: personal data; by: Alice Chen; digest: sha256:"
    )
    (t,) = parse_tombstones((line + "\n").encode())
    assert t.redacted and t.text is None and t.digest == text_digest(fact)
    # the same fact in other case and punctuation has the same digest and matches
    matcher = FactMatcher()
    matcher.add(t.text, "0", t.digest)  # as the forgotten list matches tombstones
    assert matcher.match("DANA'S home address is: 12 Elm Street!") is not None
    assert matcher.match("Dana's work address is 3 Oak Road") is None


def test_the_digest_in_the_format_doc_is_real() -> None:
    assert (
        text_digest("Dana's home address is 12 Elm Street")
        == "sha256:52604048170fe51b5b7a5e59607ebc6f057b4225795a430f1ba04fa061a85e3e"
    )


def test_add_tombstone_creates_the_file_and_appends_keeping_line_endings() -> None:
    first = add_tombstone(None, "- a fact [forgotten: 2026-10-08]")
    assert first.decode() == TOMBSTONE_HEADER + "- a fact [forgotten: 2026-10-08]\n"
    crlf = b"# Forgotten facts\r\n\r\n- one [forgotten: 2026-10-01]"
    assert add_tombstone(crlf, "- two [forgotten: 2026-10-02]") == crlf + b"\r\n- two [forgotten: 2026-10-02]\r\n"


def test_fact_matcher_thresholds() -> None:
    m = FactMatcher()
    m.add("Hero images are served from public/hero/ as AVIF", "hero")
    m.add("Use bun", "bun")
    assert m.match("hero images are served from public/hero as AVIF files") == "hero"  # 94
    assert m.match("Use bun") == "bun" and m.match("use BUN.") == "bun"  # normalised equality
    assert m.match("Use npm") is None  # short texts only match exactly
    assert m.match("Hero images are served from a CDN in WebP format") is None
    assert m.match("") is None


def test_tombstone_file_is_no_orphan_and_no_duplicate_in_lint() -> None:
    memory = b"# Memory\n\n- Dev server was on port 3001 this afternoon\n\n## Index\n"
    stone = add_tombstone(None, tombstone_line("Dev server was on port 3001 this afternoon", date="2026-10-08"))
    docs = {"MEMORY.md": parse(memory, "MEMORY.md"), TOMBSTONE_PATH: parse(stone, TOMBSTONE_PATH)}
    findings = lint_repo(RepoSnapshot("r", set(docs), docs))
    assert [(f.path, f.diagnostic.code) for f in findings] == []
