"""The state of each link of a parsed file (pure): for the session and the first look alike.

A ``[[#Heading]]`` names a heading of the file itself; any other link is resolved by the caller's
``resolve_target`` (against the repo's files, as ``core.format.links.resolve`` does), and one that
resolves to a path in ``escaping`` (a symlink out of the repo) escapes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from amr_tui.core.format.links import LinkState, Resolution, heading_line, split_heading
from amr_tui.core.format.parser import Document


def link_states_of(
    doc: Document, resolve_target: Callable[[str], Resolution], escaping: Collection[str]
) -> dict[tuple[int, int], LinkState]:
    """Each link of ``doc`` by its (line, start)."""
    out: dict[tuple[int, int], LinkState] = {}
    for link in doc.links:
        if not link.target.strip() and (heading := split_heading(link.raw)):  # [[#Heading]]: this file
            known = heading_line(heading, doc.headings) is not None or heading.startswith("^")
            out[(link.line, link.start)] = LinkState.OK if known else LinkState.BROKEN
            continue
        res = resolve_target(link.target)
        out[(link.line, link.start)] = (
            LinkState.ESCAPES if res.state is LinkState.OK and res.path in escaping else res.state
        )
    return out


__all__ = ["link_states_of"]
