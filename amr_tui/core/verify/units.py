"""Which lines of a memory file state facts to check (pure).

In AMR shape a fact is an entry (a bullet, or a Hermes ``§`` paragraph). Formats that write
prose (Claude Code's topic files, memory banks, Hermes) also state facts in running text, so
there each line of a paragraph counts too. Front matter, headings, code blocks and HTML are not
facts; neither are Index lines that hold nothing but links.
"""

from __future__ import annotations

from dataclasses import dataclass

from amr_tui.core.format.parser import Document
from amr_tui.core.model import LineKind


@dataclass(frozen=True, slots=True)
class Unit:
    line: int  # 1-based
    text: str  # the entry's text (no marker, no metadata), or the prose line stripped
    entry: bool  # an entry (metadata can be written on it), else a line of prose


def units(doc: Document, *, prose: bool = False) -> list[Unit]:
    """The facts of ``doc`` in line order (see the module docstring)."""
    out = [Unit(e.line, e.text, True) for e in doc.entries if e.text.strip()]
    if prose:
        taken = {u.line for u in out}
        for line in doc.lines:
            if line.number in taken or line.kind not in (LineKind.TEXT, LineKind.CONTINUATION, LineKind.QUOTE):
                continue
            text = line.text.strip()
            if text and text != "\u00a7":
                out.append(Unit(line.number, text, False))
        out.sort(key=lambda u: u.line)
    return out


__all__ = ["Unit", "units"]
