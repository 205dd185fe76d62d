"""Control characters and bidi overrides in memory text: what lint reports and what every display shows.

``find_controls`` is what lint reports; ``make_visible`` is what every display path uses:
each C0/C1 control (but tab), DEL, bidi override and undecodable byte becomes a visible
placeholder so nothing reaches the terminal as an escape sequence. ``find_invisible`` finds the
characters that draw nothing inside a word (AMR035): ``AKIA\u200b…`` shows as a key and is not one.
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
SEPARATORS = "\u2028\u2029"
_CONTROL_RE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f" + BIDI + SEPARATORS + "\ud800-\udfff]")

_NAMES = {"\x1b": "ESC", "\x00": "NUL", "\x7f": "DEL", "\r": "CR", "\n": "LF"}


# Characters that draw nothing: zero-width space, non-joiner and joiner, word joiner and the
# invisible operators, soft hyphen, combining grapheme joiner, Hangul and Khmer fillers,
# Mongolian selectors, BOM, variation selectors, tag characters (a regex class body).
INVISIBLE = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff"
)
_INVISIBLE_RUN = re.compile(f"[{INVISIBLE}]+")
_NAMES_INVISIBLE = {
    "\u00ad": "soft hyphen",
    "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner",
    "\u200d": "zero-width joiner",
    "\u2060": "word joiner",
    "\ufeff": "zero-width no-break space (BOM)",
}
# Scripts that write zero-width joiners and non-joiners as spelling (Persian, Hindi, Sinhala ...).
_JOINING = re.compile(
    "[\u0600-\u08ff\u0900-\u0dff\u0f00-\u0fff\u1000-\u109f\u1780-\u18af\ua800-\uabff\ufb50-\ufdff\ufe70-\ufefe]"
)
_TAG_FLAG = "\U0001f3f4"  # a black flag: tag characters after it spell a subdivision flag


def _is_tag(ch: str) -> bool:
    return "\U000e0000" <= ch <= "\U000e007f"


def name_invisible(ch: str) -> str:
    """``U+200B zero-width space``."""
    name = _NAMES_INVISIBLE.get(ch)
    if name is None:
        name = "tag character" if _is_tag(ch) else "variation selector" if _is_selector(ch) else "invisible character"
    return f"U+{ord(ch):04X} {name}"


def _is_selector(ch: str) -> bool:
    return "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef" or "\u180b" <= ch <= "\u180d"


def find_invisible(text: str) -> list[tuple[int, str]]:
    """(offset, character) of each character that draws nothing inside a word (a letter or digit
    on both sides), where it hides what the word says: ``pass\u200bword``, ``AKIA\u2060…``. Not
    reported: joiners in the scripts that spell with them, a variation selector after a
    character that has variants (emoji, CJK), an emoji's joiners (emoji are no letters). Tag
    characters are reported anywhere but in a flag's tag sequence: they spell hidden ASCII."""
    if text.isascii() or _INVISIBLE_RUN.search(text) is None:
        return []
    out: list[tuple[int, str]] = []
    for m in _INVISIBLE_RUN.finditer(text):
        a, b = m.span()
        before = text[a - 1] if a else ""
        after = text[b] if b < len(text) else ""
        in_word = before.isalnum() and after.isalnum()
        for i in range(a, b):
            ch = text[i]
            if _is_tag(ch):
                if before != _TAG_FLAG:
                    out.append((i, ch))
            elif not in_word:
                continue
            elif ch in "\u200c\u200d" and (_JOINING.match(before) or _JOINING.match(after)):
                continue
            elif _is_selector(ch) and not before.isascii():
                continue
            else:
                out.append((i, ch))
    return out


def find_controls(text: str) -> list[tuple[int, str]]:
    """(offset, character) of every character that must not reach a terminal."""
    if text.isprintable():
        return []
    return [(m.start(), m.group(0)) for m in _CONTROL_RE.finditer(text)]


_SURROGATE = re.compile("[\ud800-\udfff]")


def servable(text: str) -> str:
    """``text`` with each byte that was not UTF-8 (read with ``surrogateescape``) as U+FFFD, the
    replacement character the app shows for it: text any UTF-8 encoder takes (JSON, MCP)."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


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


def describe_size(size: int) -> str:
    """``52.4 MB``, ``8 MiB`` for a limit that is a whole number of MiB."""
    if size % (1024 * 1024) == 0:
        return f"{size // (1024 * 1024)} MiB"
    return f"{size / 1e6:.1f} MB"
