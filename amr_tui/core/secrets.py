"""Text that looks like a credential. The skill forbids secrets in memory.

Patterns are specific on purpose (known token prefixes, key headers, ``password=...``):
a memory linter that cries wolf on every hex hash gets switched off.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

_NEWLINE = re.compile("\n")


@dataclass(frozen=True, slots=True)
class SecretMatch:
    kind: str
    start: int
    end: int


_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("Stripe key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    ("OpenAI-style API key", re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    (
        "password or secret assignment",
        re.compile(
            r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)"
            r"\s{0,8}(?:is\s{0,8})?[:=]\s{0,8}[\"']?(?=[^\s\"']{0,256}[0-9])[^\s\"'\]\[;]{8,}"
        ),
    ),
]
# "password in URL" is found from each "://" (see _passwords_in_urls): as one regex its scheme
# part restarted at every letter of a long word, and a 200 KB line took seconds.
_URL_KIND = "password in URL"
_ASSIGNMENT_KIND = "password or secret assignment"
_FIRST_SEPARATOR = re.compile(r"[:=]")
_LETTER = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SCHEME_CHAR = _LETTER | frozenset("0123456789+.-")
_USERINFO = re.compile(r"[^/\s:@]+:[^/\s:@]+@")


# A cheap necessary condition for the patterns above: every match of a pattern contains one
# of these, searched in the text as written (patterns 1-10) or lower-cased (the last, case-
# insensitive pattern). Each is a plain literal or a regex that starts with a literal, so a
# search skips along at memchr speed. Lint runs them once per file and calls find_secrets
# only on the lines they hit (most files: none). Keep them in step when adding a pattern
# (tests/test_secrets_prefilter.py checks every pattern against them).
_CASED = (
    re.compile(r"-----BEGIN "),
    re.compile(r"A(?:KIA|SIA|GPA|IDA|ROA|Iza)"),
    re.compile(r"glpat-"),
    re.compile(r"xox[abposr]-"),
    re.compile(r"sk-"),
    re.compile(r"eyJ"),
    re.compile(r"@"),
)
_CASED_UNDERSCORE = (re.compile(r"g(?:h[pousr]|ithub_pat)_"), re.compile(r"k_(?:live|test)_"))
_FOLDED = (
    re.compile(r"passw"),
    re.compile(r"pwd"),
    re.compile(r"secret"),
    re.compile(r"api[_-]?key"),
    re.compile(r"access[_-]?token"),
    re.compile(r"auth[_-]?token"),
)
# Characters that match an ASCII letter case-insensitively but do not lower-case to one.
_FOLD_TRAPS = ("\u0130", "\u0131", "\u017f", "\u212a")


def secret_line_candidates(text: str) -> list[int] | None:
    """0-based numbers of the ``\\n``-separated lines of ``text`` that may hold a credential.

    None means "every line" (text where lower-casing is not a faithful case fold).
    """
    low = text.lower()
    if len(low) != len(text) or (not text.isascii() and any(t in text for t in _FOLD_TRAPS)):
        return None
    hits: set[int] = set()
    cased = _CASED + _CASED_UNDERSCORE if "_" in text else _CASED
    for hay, patterns in ((text, cased), (low, _FOLDED)):
        for pattern in patterns:
            for m in pattern.finditer(hay):
                hits.add(m.start())
    if not hits:
        return []
    breaks = [m.start() for m in _NEWLINE.finditer(text)]
    return sorted({bisect_right(breaks, pos - 1) for pos in hits})


def _passwords_in_urls(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each ``scheme://user:password@``, in order, in time linear in ``text``:
    the runs before and after one ``://`` hold no ``:`` or ``/``, so no two are scanned twice."""
    pos = text.find("://")
    floor = 0  # where the last match ended: matches do not overlap
    while pos != -1:
        start = pos
        while start > floor and text[start - 1] in _SCHEME_CHAR:
            start -= 1
        while start < pos and text[start] not in _LETTER:
            start += 1  # a scheme starts with a letter
        m = _USERINFO.match(text, pos + 3) if start < pos else None
        if m is not None:
            yield start, m.end()
            floor = m.end()
            pos = text.find("://", m.end())
        else:
            pos = text.find("://", pos + 1)


_TEMPLATE = re.compile(r"^(?:\$\{?[A-Za-z_]\w*\}?|%[A-Za-z_]\w*%|<[^<>]*>|\{\{[^{}]*\}\}|\[[^\[\]]*\])$")
_PLACEHOLDER = re.compile(
    r"^(?:x{3,}|\*{3,}|\.{3,}|changeme|change-me|password|secret|token|redacted|example|dummy|placeholder|"
    r"your[-_ ].*|<.*)$",
    re.IGNORECASE,
)


def _value(span: str, kind: str) -> str:
    """The credential part of a match: a URL's password, an assignment's value (all that follows
    the first ``:`` or ``=`` after the key: ``password: abc:def`` holds ``abc:def``), else all
    of it."""
    if kind == _URL_KIND:
        return span.rstrip("@").rsplit(":", 1)[-1]
    if kind == _ASSIGNMENT_KIND:
        span = _FIRST_SEPARATOR.split(span, maxsplit=1)[-1]
    return span.strip(" \t'\"`")


def not_a_secret(value: str) -> bool:
    """A value of a credential's shape that holds none: a shell or template variable (``$TOKEN``,
    ``${KEY}``, ``<your-api-key>``, ``{{ key }}``), a placeholder (``xxxx``, ``changeme``), or a
    key an agent already cut short (``sk-df6bcc...``)."""
    v = value.strip()
    if not v:
        return True
    if _TEMPLATE.match(v) or _PLACEHOLDER.match(v):
        return True
    if v.endswith(("...", "\u2026")) or "***" in v:
        return True  # truncated or masked: the key is not in the text
    return v.startswith("$") or "${" in v  # built from variables (a $ inside a password is no template)


def find_secrets(text: str) -> list[SecretMatch]:
    """Every credential-shaped span of ``text``, in order; a span inside an earlier pattern's
    match is not reported again. Linear in the length of ``text`` (no pattern rescans a run)."""
    found: list[SecretMatch] = []
    starts: list[int] = []  # the union of the spans found so far: disjoint, sorted
    ends: list[int] = []

    def add(kind: str, start: int, end: int) -> None:
        if not_a_secret(_value(text[start:end], kind)) or text.startswith(("...", "\u2026"), end):
            return  # a template, a placeholder, or a key cut short where the match ends
        i = bisect_right(starts, start)
        if i and ends[i - 1] > start:
            return  # inside a span found before
        found.append(SecretMatch(kind, start, end))
        j = i
        while j < len(starts) and starts[j] < end:
            end = max(end, ends[j])
            j += 1
        starts[i:j] = [start]
        ends[i:j] = [end]

    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            add(kind, m.start(), m.end())
        if kind == "JSON Web Token":  # the URL check stood here in the order of kinds
            for start, end in _passwords_in_urls(text):
                add(_URL_KIND, start, end)
    found.sort(key=lambda s: s.start)
    return found


def redact_secrets(text: str) -> str:
    """``text`` with each credential-shaped span replaced by a placeholder naming its kind
    (``<redacted: AWS access key>``): what amr writes instead of a credential, and all it ever
    puts of one in a commit message."""
    found = find_secrets(text)
    if not found:
        return text
    out, at = [], 0
    for m in found:
        out.append(text[at : m.start])
        out.append(f"<redacted: {m.kind}>")
        at = m.end
    out.append(text[at:])
    return "".join(out)


def redact_new_lines(before: str, after: str) -> str:
    """``after`` with the credentials redacted on the lines ``before`` did not have."""
    old = set(before.splitlines())
    return "".join(ln if ln.rstrip("\r\n") in old else redact_secrets(ln) for ln in after.splitlines(keepends=True))
