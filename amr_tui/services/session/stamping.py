"""The Stale? queue's writes: confirm a fact (a ``verified:`` stamp) and supersede it (the new
wording, and a tombstone of the old with ``superseded-by``), each one commit through the write gate.

Both are based on the version of the file the queue showed (``OpenFile``) and name the entry's
line, so the gate merges them onto whatever was committed since and refuses when someone changed
that entry meanwhile. The commit says which code the fact was checked against
(``Verified-against: payments ce1b27c``). Forgetting uses the history service's ``forget``, as
the main screen's ``x`` does.
"""

from __future__ import annotations

import datetime as _dt

from amr_tui.core.format.edit import replace_line, summarise, today_iso
from amr_tui.core.paths import TOMBSTONE_PATH
from amr_tui.core.textsafety import make_visible
from amr_tui.core.tombstones import add_tombstone, tombstone_line
from amr_tui.core.verify.stamps import front_matter_stamped, stamped_line, superseding_line
from amr_tui.git.gate import Change
from amr_tui.services import writegate
from amr_tui.services.session.session import OpenFile, Session
from amr_tui.services.workspace import read_bytes
from amr_tui.services.writegate import EditRefused, Saved, check_writable

VERIFIED_TRAILER = "Verified-against"


def _trailers(against: str | None) -> tuple[str, ...]:
    return (writegate.TRAILER, *([f"{VERIFIED_TRAILER}: {against}"] if against else []))


def stamp_verified(
    session: Session, of: OpenFile, line: int, *, today: _dt.date | None = None, against: str | None = None
) -> Saved:
    """Stamp ``verified: today`` on the entry at ``line`` of ``of`` (a line of prose: in the
    file's front matter). One commit; ``against`` names the code checked (``payments ce1b27c``)."""
    if of.doc is None or not 1 <= line <= len(of.doc.lines):
        raise EditRefused("nothing to stamp there")
    check_writable(session, of.repo, of.path)
    day = today_iso(today)
    raw = of.doc.lines[line - 1].text
    entry = of.doc.entry_at(line)
    named: tuple[str, ...]
    if entry is not None and entry.line == line:
        new = replace_line(of.doc, line, stamped_line(raw, entry, day))
        what, named = summarise(entry.text), (raw,)
    else:
        stamped = front_matter_stamped(of.doc, day)
        if stamped is None:
            raise EditRefused(
                f"{of.path}:{line} is a line of prose in a file with no front matter: there is no place for a "
                "verified: stamp. Edit it into an entry, or supersede it."
            )
        new, what, named = stamped, summarise(raw.strip()), ()
    if new == of.data:
        return Saved(of.repo, of.path, of.head, f"Already verified on {day}", line, False)
    changes = [Change(of.path, of.data, new, of.head, named)]
    message = f"Verify entry in {of.path}: {make_visible(what)}"
    return writegate.write(session, of.repo, changes, message, line=line, trailers=_trailers(against))


def supersede(
    session: Session,
    of: OpenFile,
    line: int,
    new_text: str,
    *,
    today: _dt.date | None = None,
    against: str | None = None,
    by: str | None = None,
) -> Saved:
    """Replace the fact at ``line`` by ``new_text`` and record a tombstone of the old wording with
    ``superseded-by`` in ``.amr/forgotten.md``: one commit."""
    if of.doc is None or not 1 <= line <= len(of.doc.lines):
        raise EditRefused("nothing to supersede there")
    if not new_text.strip():
        raise EditRefused("the new wording is empty: to drop the fact, forget it")
    check_writable(session, of.repo, of.path)
    check_writable(session, of.repo, TOMBSTONE_PATH)
    day = today_iso(today)
    raw = of.doc.lines[line - 1].text
    entry = of.doc.entry_at(line)
    if entry is not None and entry.line != line:
        entry = None
    old_text = entry.text if entry is not None else raw.strip()
    new_line = superseding_line(raw, entry, new_text, day)
    if " ".join(new_text.split()) == " ".join(old_text.split()):
        raise EditRefused("the new wording is the same as the old: to keep it, confirm it (c)")
    if by is None:
        git = session.git(of.repo)
        ident = git.identity() if git is not None else None
        by = ident.name if ident else None
    stone = tombstone_line(
        old_text,
        date=day,
        reason="superseded",
        by=by,
        sources=entry.meta("source") if entry is not None else (),
        file=of.path,
        superseded_by=" ".join(new_text.split()),
    )
    git = session.git(of.repo)
    if git is not None and of.head:
        tomb_base = git.read_blob_or_none(of.head, TOMBSTONE_PATH)
    else:
        tomb_base = read_bytes(session.mount(of.repo).root, TOMBSTONE_PATH)
    changes = [
        Change(of.path, of.data, replace_line(of.doc, line, new_line), of.head, (raw,) if entry is not None else ()),
        Change(TOMBSTONE_PATH, tomb_base, add_tombstone(tomb_base, stone), of.head),
    ]
    message = (
        f"Supersede entry in {of.path}: {make_visible(summarise(old_text))}\n\n"
        f"Now: {make_visible(summarise(new_text, 200))}"
    )
    return writegate.write(session, of.repo, changes, message, line=line, path=of.path, trailers=_trailers(against))


__all__ = ["VERIFIED_TRAILER", "stamp_verified", "supersede"]
