"""Control characters and bidi overrides in memory text: what lint reports and what every display shows.

``find_controls`` is what lint reports; ``make_visible`` is what every display path uses:
each C0/C1 control (but tab), DEL, bidi override and undecodable byte becomes a visible
placeholder so nothing reaches the terminal as an escape sequence.
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
SEPARATORS = "\u2028\u2029"
_CONTROL_RE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f" + BIDI + SEPARATORS + "\ud800-\udfff]")

_NAMES = {"\x1b": "ESC", "\x00": "NUL", "\x7f": "DEL", "\r": "CR", "\n": "LF"}


def find_controls(text: str) -> list[tuple[int, str]]:
    """(offset, character) of every character that must not reach a terminal."""
    if text.isprintable():
        return []
    return [(m.start(), m.group(0)) for m in _CONTROL_RE.finditer(text)]


def describe(ch: str) -> str:
    code = ord(ch)
    if ch in _NAMES:
        return _NAMES[ch]
    if 0xDC80 <= code <= 0xDCFF:
        return f"byte 0x{code - 0xDC00:02X}"
    return f"U+{code:04X}"


def _placeholder(m: re.Match[str]) -> str:
    ch = m.group(0)
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode control pictures: ␛ for ESC
    if code == 0x7F:
        return "\u2421"
    if 0xDC80 <= code <= 0xDCFF:
        return "\ufffd"
    return f"<U+{code:04X}>"


def make_visible(text: str) -> str:
    """Replace every control, bidi override and undecodable byte with a visible stand-in."""
    if text.isprintable():
        return text
    return _CONTROL_RE.sub(_placeholder, text)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 file"``, ``"2 files"``, ``"1,024 entries"`` (``many``: the plural when not word + s)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
