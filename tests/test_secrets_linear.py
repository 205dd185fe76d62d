"""The credential checks take time linear in the text (issue 28 point 3).

A 100 KB fact took 7.7 s in ``memory_remember`` and a 10 MB one never returned: the "password
in URL" pattern restarted its scheme part at every letter of a long word, and the prefilter
counted line breaks from the start of the text for every hit. The URL check is compared with
the one regex it replaced (its results are the specification on short texts, where time does not
matter); every check must finish on multi-megabyte lines of every shape it looks for (issue 38
added key words in many languages, AWS secrets near a context and normalised text).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from amr_tui.core.secrets import _passwords_in_urls, find_secrets, secret_line_candidates
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.workspace import discover
from tests.examples import examples

# The "password in URL" pattern as one regex (quadratic on long runs, exact on short texts).
_REFERENCE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s:@]+@")
_PIECES = [
    "a", "Z", "0", ":", "/", "@", " ", ".", "-", "_", "+", "=", '"', "'", ";", "[", "]", "\n", "é",
    "://", "AKIA", "sk-", "eyJ", "password", "ghp_", "xoxb-", "-----BEGIN ", "PRIVATE KEY-----", "RSA ",
    "secret", "is", "12345678", "glpat-", "AIza", "sk_live_", "http", "user:pw@", "token", "aws", "Ab1/",
    "\u200b", "\uff21", "密码", "は", "...", "\u2026", "*", "`", "key", "api", "$", "<", ">", "(", ")",
]  # fmt: skip


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
@example("password:secret0:")
@example("password:12345678...")
def test_the_url_check_reports_what_the_one_regex_reports(text: str) -> None:
    assert list(_passwords_in_urls(text)) == [m.span() for m in _REFERENCE_URL.finditer(text)]


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
@example("token::xoxb-12345678AKIA")  # an assignment found after the token it covers: reported once
def test_spans_are_ordered_disjoint_and_on_candidate_lines(text: str) -> None:
    found = find_secrets(text)
    for a, b in zip(found, found[1:], strict=False):
        assert a.end <= b.start
    assert all(0 <= m.start < m.end <= len(text) for m in found)
    lines = secret_line_candidates(text)
    if lines is not None:
        counted = {text.count("\n", 0, m.start) for m in found}
        assert counted <= set(lines)


def test_real_credentials_are_still_found() -> None:
    kinds = {m.kind for m in find_secrets("db at postgres://admin:s3cr3tpass@db:5432 and AKIAABCDEFGHIJKLMNOP")}
    assert kinds == {"password in URL", "AWS access key"}


@pytest.mark.slow
def test_multi_megabyte_lines_are_checked_in_one_pass() -> None:
    """Run in a child with a bound of 600 s: the old checks took hours on these (4 s at 40 KB,
    growing with the square of the length); the new ones take about 18 s of CPU in all, a second
    or two each (on 2 MB, or 400 KB where a key word starts every few characters: a quadratic
    check would take hours on either). The bound is wall time on a shared machine."""
    code = textwrap.dedent(
        """
        from amr_tui.core.secrets import find_secrets, secret_line_candidates
        n = 2_000_000
        k = 400_000  # shapes where every few characters start a key word: a higher constant, still linear
        for text in ["a" * n, "a@" * (n // 2), "http://" + "a" * n, "ab" * (n // 2) + "://",
                     "password=" * (n // 9), "eyJ" * (n // 3), "sk-" * (n // 3), " @" * (n // 2),
                     "a_" * (n // 2) + "password=x1", "aws " + "Ab1/" * (n // 4), "\\uff21" * n,
                     "-----BEGIN RSA PRIVATE KEY-----\\n" + ("A" * 64 + "\\n") * (n // 65),
                     "password: " * (k // 10), "token " * (k // 6), "pwd" * (k // 3), "key" * (k // 3),
                     ("AWS " + "Ab1+" * 10 + " ") * (k // 45), "a\\u200b" * (k // 2), "密码" * (k // 2),
                     "password " + "a)" * (k // 2), "api key " * (k // 8)]:
            find_secrets(text)
            secret_line_candidates(text + "\\n" + text)
        print("done")
        """
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and res.stdout.strip() == "done", res.stderr


def test_memory_remember_refuses_a_fact_too_long_for_one_line(make_repo) -> None:
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n", "notes.md": "# Notes\n"})
    memory = AgentMemory(discover([root]))
    try:
        reply = memory.remember("x@" * 300_000, Writer("probe"), path="notes.md")
        assert reply.status == "refused" and "600,000 characters" in reply.message
        assert (root / "notes.md").read_text() == "# Notes\n"
        ok = memory.remember("The deploy window is Tuesday", Writer("probe"), path="notes.md")
        assert ok.status == "written"
    finally:
        memory.close()


def test_an_assignment_value_is_all_after_the_first_separator() -> None:
    """``password:secret0:`` holds ``secret0:``: split after the last ``:`` it looked empty, so
    a real value that ends in a colon was taken for no secret."""
    assert [m.kind for m in find_secrets("password:secret0:")] == ["password or secret assignment"]
    assert [m.kind for m in find_secrets("api_key = abc:def:12345678")] == ["password or secret assignment"]
    assert find_secrets("password: $TOKEN") == []  # a template is still none
