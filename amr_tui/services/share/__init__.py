"""Sharing memory with a pairing session: choosing what to share, previewing what an agent would
load, building the shared repos (:mod:`.build`), and the records that route an agent's writes
in the share back to the owner's repo (:mod:`.route`).

Inside, :mod:`.build` imports :mod:`.route`, never the other way round. It may import the
workspace (and ``amr_tui.git``, ``amr_tui.core``).

Names load on first use (``amr_tui.core.lazy``, as core's faces do): importing one module of
the package loads only it and what it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.share.build import (
        Dangling,
        RepoPreview,
        Selection,
        SharedRepo,
        folder_name,
        left_out_json,
        left_out_text,
        parse_choice,
        preview,
        select,
        share,
        shareable_files,
    )
    from amr_tui.services.share.route import (
        ManifestRepo,
        Route,
        SessionEntry,
        SharedRecord,
        grant_write,
        load_manifest,
        owner_grant,
        record_share,
        route_back,
        session_entries,
        write_back,
    )

__all__ = [
    "Dangling",
    "ManifestRepo",
    "RepoPreview",
    "Route",
    "Selection",
    "SessionEntry",
    "SharedRecord",
    "SharedRepo",
    "folder_name",
    "grant_write",
    "left_out_json",
    "left_out_text",
    "load_manifest",
    "owner_grant",
    "parse_choice",
    "preview",
    "record_share",
    "route_back",
    "select",
    "session_entries",
    "share",
    "shareable_files",
    "write_back",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "build": (
            "Dangling",
            "RepoPreview",
            "Selection",
            "SharedRepo",
            "folder_name",
            "left_out_json",
            "left_out_text",
            "parse_choice",
            "preview",
            "select",
            "share",
            "shareable_files",
        ),
        "route": (
            "ManifestRepo",
            "Route",
            "SessionEntry",
            "SharedRecord",
            "grant_write",
            "load_manifest",
            "owner_grant",
            "record_share",
            "route_back",
            "session_entries",
            "write_back",
        ),
    },
)
