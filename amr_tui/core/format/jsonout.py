"""The JSON shape of ``amr parse --json``, shared by the CLI and the conformance suite.

One object per entry, in file order::

    {"line": 3,                       # 1-based line of the bullet
     "text": "Joe leads ...",         # without marker and metadata, trimmed
     "metadata": {"source": "https://...", "added": ["2026-01-01", "2026-02-01"]},
     "links": ["team_structure"],     # [[targets]] in the text: no brackets, alias or fragment
     "diagnostics": [{"code": "AMR006", "severity": "warning", "message": "...",
                      "line": 3, "column": 27}]}

``metadata`` keys are lower case; a key given more than once maps to a list of its values in
order. ``diagnostics`` are the document's diagnostics whose line is the entry's line (file-wide
findings such as AMR018, with line 0, belong to ``amr lint``). Strings hold undecodable bytes as
lone surrogates U+DC80..U+DCFF (Python's surrogateescape); ``json.dumps`` with its default
``ensure_ascii=True`` writes them as ``\\udcXX`` escapes. See docs/format.md.
"""

from __future__ import annotations

from typing import Any

from amr_tui.core.format.parser import Document

EntryJson = dict[str, Any]


def entries_json(doc: Document) -> list[EntryJson]:
    by_line: dict[int, list[dict[str, object]]] = {}
    for d in doc.diagnostics:
        by_line.setdefault(d.line, []).append(d.to_json())
    return [
        {
            "line": entry.line,
            "text": entry.text,
            "metadata": entry.meta_json(),
            "links": [link.target for link in entry.links],
            "diagnostics": list(by_line.get(entry.line, [])),
        }
        for entry in doc.entries
    ]


__all__ = ["EntryJson", "entries_json"]
