"""Text that looks like a credential. The skill forbids secrets in memory.

Patterns are specific on purpose (known token prefixes, key headers, ``password=...``):
a memory linter that cries wolf on every hex hash gets switched off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


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
    ("password in URL", re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s:@]+@")),
    (
        "password or secret assignment",
        re.compile(
            r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)"
            r"\s*(?:is\s*)?[:=]\s*[\"']?(?=[^\s\"']*[0-9])[^\s\"'\]\[;]{8,}"
        ),
    ),
]


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
    return sorted({text.count("\n", 0, pos) for pos in hits})


def find_secrets(text: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(s.start <= m.start() < s.end for s in found):
                continue
            found.append(SecretMatch(kind, m.start(), m.end()))
    found.sort(key=lambda s: s.start)
    return found
