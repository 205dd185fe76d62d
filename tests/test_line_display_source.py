"""The source chip's short form: the fast reading of plain URLs says what urlsplit says."""

from __future__ import annotations

from urllib.parse import urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.widgets.line_display import short_source
from tests.examples import examples


def _reference(value: str) -> str:
    try:
        parts = urlsplit(value)
    except ValueError:
        return value[:40]
    if parts.scheme in ("http", "https") and parts.netloc:
        tail = parts.path.rstrip("/").rsplit("/", 2)
        path = "/".join(p for p in tail[-2:] if p)
        return f"{parts.netloc}/{path}" if path else parts.netloc
    return value[:40]


def test_examples():
    assert short_source("https://example.com/sessions/101") == "example.com/sessions/101"
    assert short_source("https://claude.ai/code/sessions/7f3a2c/") == "claude.ai/sessions/7f3a2c"
    assert short_source("devin:session/42") == "devin:session/42"
    for value in (
        "HTTP://Ex.com/a/b/c/",
        "https://x.test?q=1",
        "https://[::1]/a",
        "https://[::1/a",
        "http://1[",
        "http://user:pw@h:8080/p/q",
        "https:///nohost",
        "https://x.test/a b",
        " https://x.test/a",
        "https://ex\u00e9.com/\u00e9t\u00e9/x",
        "https://x.test/\u200ey",
        "http://",
        "https://x.test//a//b//",
    ):
        assert short_source(value) == _reference(value), value


@settings(max_examples=examples(600))
@given(
    st.sampled_from(["http://", "https://", "HTTPS://", "hTTp://", "ftp://", "", " http://"]),
    st.text(alphabet=st.sampled_from(list("ab/?#[]:@ .%\t\n\x7f\u00e9\u200e1")), max_size=24),
)
def test_same_as_urlsplit(prefix: str, rest: str):
    value = prefix + rest
    assert short_source(value) == _reference(value)
