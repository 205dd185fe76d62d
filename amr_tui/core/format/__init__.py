"""The memory-file format: the lossless parser and serializer, ``[[links]]``, ``[key: value]``
metadata, the line-local checks (AMR0xx codes) and byte-exact edits of a file. Pure.

Modules, bottom up: ``fastscan`` (the parser's fast path), ``links``, ``metadata``, ``parser``,
``rules``, ``edit``, ``jsonout`` (``amr parse --json``). What makes a path Markdown is
``core.paths``.

Names load on first use (``core.lazy``): importing one module of the package loads only it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.core.format.edit import (
        check_line,
        delete_lines,
        entry_span,
        insert_lines,
        new_entry_line,
        replace_line,
        set_metadata,
        summarise,
        today_iso,
    )
    from amr_tui.core.format.jsonout import entries_json
    from amr_tui.core.format.links import (
        LinkState,
        Resolution,
        find_links,
        index_link,
        link_text_for,
        normalise,
        resolve,
        rewrite_links,
        split_target,
        unsafe_reason,
    )
    from amr_tui.core.format.metadata import (
        MetaParse,
        escape_value,
        format_entry,
        format_metadata,
        parse_group,
        parse_metadata,
    )
    from amr_tui.core.format.parser import BOM, Document, parse, serialize
    from amr_tui.core.format.rules import CODES, check_document, diag, is_real_date, rebuild_line

__all__ = [
    "BOM",
    "CODES",
    "Document",
    "LinkState",
    "MetaParse",
    "Resolution",
    "check_document",
    "check_line",
    "delete_lines",
    "diag",
    "entries_json",
    "entry_span",
    "escape_value",
    "find_links",
    "format_entry",
    "format_metadata",
    "index_link",
    "insert_lines",
    "is_real_date",
    "link_text_for",
    "new_entry_line",
    "normalise",
    "parse",
    "parse_group",
    "parse_metadata",
    "rebuild_line",
    "replace_line",
    "resolve",
    "rewrite_links",
    "serialize",
    "set_metadata",
    "split_target",
    "summarise",
    "today_iso",
    "unsafe_reason",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "edit": (
            "check_line",
            "delete_lines",
            "entry_span",
            "insert_lines",
            "new_entry_line",
            "replace_line",
            "set_metadata",
            "summarise",
            "today_iso",
        ),
        "jsonout": ("entries_json",),
        "links": (
            "LinkState",
            "Resolution",
            "find_links",
            "index_link",
            "link_text_for",
            "normalise",
            "resolve",
            "rewrite_links",
            "split_target",
            "unsafe_reason",
        ),
        "metadata": ("MetaParse", "escape_value", "format_entry", "format_metadata", "parse_group", "parse_metadata"),
        "parser": ("BOM", "Document", "parse", "serialize"),
        "rules": ("CODES", "check_document", "diag", "is_real_date", "rebuild_line"),
    },
)
