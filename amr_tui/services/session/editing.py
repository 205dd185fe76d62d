"""Every write the editor makes: each one a single commit that names what changed.

The text of an edit is computed by the pure core (core.edit, core.links); this module turns
it into one commit through the write gate (services.writegate), so an agent's concurrent
commit is merged, never dropped, and nobody else's uncommitted edit is swept in.
"""

from __future__ import annotations

from dataclasses import replace

from amr_tui.core.format.edit import (
    delete_lines,
    entry_lines,
    entry_span,
    entry_text,
    find_entry,
    insert_lines,
    new_entry_lines,
    removal_span,
    replace_line,
    summarise,
)
from amr_tui.core.format.links import index_link, link_text_for, normalise, rewrite_links, unsafe_reason
from amr_tui.core.format.parser import is_markdown, parse
from amr_tui.core.lint.repo import INDEX_HEADING
from amr_tui.core.merge.resolution import ConflictChoice, resolved_bytes
from amr_tui.core.paths import with_md_suffix
from amr_tui.git.errors import AmrGitError, ConflictError, EntryGoneError
from amr_tui.git.gate import Change
from amr_tui.services import writegate
from amr_tui.services.history.forgotten import MOVED_TRAILER
from amr_tui.services.session.session import OpenFile, Session
from amr_tui.services.workspace import read_bytes
from amr_tui.services.writegate import EditRefused, Saved, check_writable


def write(
    session: Session,
    of: OpenFile,
    new_bytes: bytes | None,
    message: str,
    *,
    line: int = 0,
    trailers: tuple[str, ...] = (),
    named: tuple[str, ...] = (),
) -> Saved:
    """Save one file as one commit through the write gate. ``of`` is the version the change was
    made from (its bytes are the merge base), whatever the file holds by now. ``trailers``: more
    trailers for the commit message, after amr's own. ``named``: the lines of the entries the
    change is about (see ``gate.Change.named``): the save is refused when one was removed or
    changed by a commit since ``of`` was read."""
    check_writable(session, of.repo, of.path)
    if of.read_only and of.read_only != "missing":
        raise EditRefused(f"{of.path} is read-only here: {of.read_only}.")
    changes = [Change(of.path, of.data, new_bytes, of.head, named)]
    return writegate.write(session, of.repo, changes, message, line=line, trailers=(writegate.TRAILER, *trailers))


def resolve_conflict(session: Session, repo: str, err: ConflictError, choice: ConflictChoice) -> Saved:
    """Save what the user chose in the conflict view of ``err``, through the write gate.

    The resolution is a change of the committed version the conflict showed (``err.theirs`` at
    ``err.head``) to that version with the conflicting entries resolved (and the user's other
    changes merged in): the gate merges it onto whatever was committed since, and leaves lines
    nobody committed in the work tree and out of the commit. Raises ConflictError again when a
    commit made meanwhile touches the same entries."""
    want = resolved_bytes(err.path, err.base, err.ours, err.theirs, choice)
    shown = OpenFile(repo, err.path, err.theirs, None, err.head)
    how = {"ours": "kept mine", "theirs": "kept theirs"}.get(choice.side, "edited result")
    saved = write(session, shown, want, f"Resolve edit conflict in {err.path}: {how}")
    if not saved.committed and saved.head:  # theirs as committed, and nothing else of mine: no commit
        return replace(saved, message=f"{how[:1].upper()}{how[1:]}: {err.path} stays as committed (no commit)")
    return saved


def replace_entry_line(session: Session, of: OpenFile, line: int, new_text: str) -> Saved:
    assert of.doc is not None
    old = of.doc.lines[line - 1].text
    if old == new_text:
        return Saved(of.repo, of.path, of.head, "No change", line)
    entry = of.doc.entry_at(line)
    what = summarise(entry_text(new_text, of.path, paragraph=not entry.marker) if entry else new_text)
    return write(
        session,
        of,
        replace_line(of.doc, line, new_text),
        f"Edit entry in {of.path}: {what}",
        line=line,
        named=(old,) if entry else (),
    )


def insert_entry(session: Session, of: OpenFile, after: int, new_text: str) -> Saved:
    assert of.doc is not None
    what = summarise(entry_text(new_text, of.path, paragraph=of.doc.paragraphs))
    lines = new_entry_lines(of.doc, after, [new_text])
    at = after + 1 + lines.index(new_text)
    return write(session, of, insert_lines(of.doc, after, lines), f"Add entry to {of.path}: {what}", line=at)


def delete_entry(session: Session, of: OpenFile, line: int) -> Saved:
    assert of.doc is not None
    entry = of.doc.entry_at(line)
    if entry is None:
        raise EditRefused("the cursor is not on an entry")
    first, last = entry_span(of.doc, entry)
    data = delete_lines(of.doc, *removal_span(of.doc, entry))
    extra = f" (and {last - first} nested line{'s' if last - first != 1 else ''})" if last > first else ""
    return write(
        session,
        of,
        data,
        f"Remove entry from {of.path}: {summarise(entry.text)}{extra}",
        line=max(1, first - 1),
        named=(of.doc.lines[line - 1].text,),
    )


class StaleEntryError(EditRefused):
    """The entry to move changed (or went) since it was read: nothing was written."""


def move_entry(session: Session, of: OpenFile, line: int, dest_repo: str, dest_path: str) -> tuple[Saved, ...]:
    """Move the entry on ``line`` of ``of`` (the version the user saw) to the end of another file.

    Within one repo it is one commit holding both files: the removal is based on ``of`` and
    merged onto what is committed now, so when an agent reworded or removed the entry meanwhile
    the gate's merge conflicts and nothing is written (:class:`StaleEntryError`: look again).
    Across repos the copy lands first (a crash never loses the entry), after checking the entry
    is still as seen in the source; when the removal then cannot be made, the copy is taken back
    out, so a refused move never leaves a duplicate."""
    assert of.doc is not None
    entry = of.doc.entry_at(line)
    if entry is None:
        raise EditRefused("the cursor is not on an entry")
    if (dest_repo, dest_path) == (of.repo, of.path):
        raise EditRefused("the entry is already in that file")
    if not is_markdown(dest_path):
        raise EditRefused("entries can only move into Markdown files")
    check_writable(session, of.repo, of.path)
    check_writable(session, dest_repo, dest_path)
    raw = of.doc.lines[entry.line - 1].text
    dest = session.open(dest_repo, dest_path)
    what = summarise(entry.text)
    if dest.doc is None:
        if dest.read_only != "missing":
            raise EditRefused(dest.message or f"cannot write {dest_path}")
        dest = OpenFile(dest_repo, dest_path, None, parse(b"", dest_path), dest.head)
    assert dest.doc is not None
    after = len(dest.doc.lines)
    lines = entry_lines(of.doc, entry, dest.doc)
    added_data = insert_lines(dest.doc, after, new_entry_lines(dest.doc, after, lines))
    first = entry.line
    removed_data = delete_lines(of.doc, *removal_span(of.doc, entry))
    stale = StaleEntryError(
        f"The entry changed since it was shown (someone edited or removed it): nothing was moved. "
        f"It now reads as in {of.path}; move it again if it should still go."
    )
    if dest_repo == of.repo:
        changes = [
            Change(of.path, of.data, removed_data, of.head, (raw,)),
            Change(dest_path, dest.data, added_data, dest.head),
        ]
        try:
            saved = writegate.write(
                session,
                of.repo,
                changes,
                f"Move entry from {of.path} to {dest_path}: {what}",
                line=max(1, first - 1),
                path=of.path,
            )
        except (ConflictError, EntryGoneError) as exc:
            if exc.path == of.path:
                raise stale from None
            raise
        return (saved,)
    _check_still_there(session, of, raw, entry.line, stale)
    added = write(
        session,
        dest,
        added_data,
        f"Move entry to {dest_path} from {of.repo}/{of.path}: {what}",
        line=after + 1,
    )
    try:
        removed = write(
            session,
            of,
            removed_data,
            f"Move entry from {of.path} to {dest_repo}/{dest_path}: {what}",
            line=max(1, first - 1),
            trailers=(f"{MOVED_TRAILER}: {dest_repo}/{dest_path}",),  # a move, not forgetting (services.history)
            named=(raw,),
        )
    except (ConflictError, EditRefused, AmrGitError):
        # The source changed between the check and the removal: take the copy back out.
        back = session.open(dest_repo, dest_path)
        if back.doc is not None and back.data is not None:
            copied = find_entry(back.doc, lines[0], after + 1)
            if copied is not None:
                write(
                    session,
                    back,
                    delete_lines(back.doc, *removal_span(back.doc, copied)),
                    f"Take back the copy of a move: {what}",
                )
        raise stale from None
    return added, removed


def _check_still_there(session: Session, of: OpenFile, raw: str, near: int, stale: StaleEntryError) -> None:
    """Refuse when the entry seen in ``of`` is not in the committed version nor on disk now."""
    git = session.git(of.repo)
    head = git.head() if git is not None else None
    committed = git.read_blob_or_none(head, of.path) if git is not None and head else None
    disk = read_bytes(session.mount(of.repo).root, of.path)
    for data in (committed, disk):
        if data is not None and find_entry(parse(data, of.path), raw, near) is None:
            raise stale


def _refuse_unsafe_name(path: str) -> None:
    """A typed name with .., a leading / or ~, .git or a control character is refused as typed
    (normalising first would quietly turn "/etc/passwd" into "etc/passwd")."""
    why = unsafe_reason(path.strip())
    if why:
        raise EditRefused(f"{path.strip()}: {why}. Nothing was written.")


def create_file(session: Session, repo: str, path: str, title: str | None = None) -> Saved:
    _refuse_unsafe_name(path)
    path = normalise(path)
    if not path:
        raise EditRefused("give the new file a name")
    path = with_md_suffix(path)  # a name without an extension is a Markdown file
    check_writable(session, repo, path)
    if path in session.files(repo):
        raise EditRefused(f"{path} already exists")
    heading = title or path.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("_", " ").replace("-", " ").capitalize()
    data = f"# {heading}\n\n".encode() if is_markdown(path) else b""
    git = session.git(repo)
    head = git.head() if git else None
    of = OpenFile(repo, path, None, parse(b"", path), head)
    return write(session, of, data, f"Create {path}", line=1)


def add_to_index(session: Session, repo: str, path: str) -> Saved:
    """Link ``path`` from MEMORY.md's Index (``- [[path]]`` after the Index's last line; an Index
    section is added at the end when there is none), one commit through the write gate."""
    link = index_link(path)
    if link is None:
        raise EditRefused(f"no [[link]] can name {path} safely; link it by hand")
    of = session.open(repo, "MEMORY.md")
    if of.doc is None or of.data is None:
        raise EditRefused(of.message or "MEMORY.md cannot be read")
    doc = of.doc
    index = next((ln for ln, lvl, text in doc.headings if lvl == 2 and text == INDEX_HEADING), None)
    if index is None:
        after = len(doc.lines)
        texts = ([""] if doc.lines and doc.lines[-1].text.strip() else []) + [f"## {INDEX_HEADING}", f"- {link}"]
    else:
        end = next((ln - 1 for ln, lvl, _ in doc.headings if ln > index and lvl <= 2), len(doc.lines))
        after = next((ln for ln in range(end, index, -1) if doc.lines[ln - 1].text.strip()), index)
        texts = [f"- {link}"]
    return write(session, of, insert_lines(doc, after, texts), f"Link {path} from the Index", line=after + len(texts))


def rename_file(session: Session, repo: str, old: str, new: str) -> tuple[Saved, int]:
    """Rename or move a file and rewrite every [[link]] to it in the repo, in one commit."""
    _refuse_unsafe_name(new)
    new = normalise(new)
    if old.endswith(".md"):
        new = with_md_suffix(new)  # a Markdown file renamed without an extension stays one
    check_writable(session, repo, old)
    check_writable(session, repo, new)
    files = set(session.files(repo))
    if new in files:
        raise EditRefused(f"{new} already exists")
    if old not in files:
        raise EditRefused(f"{old} does not exist")
    mount = session.mount(repo)
    git = session.git(repo)
    if git is None:
        raise EditRefused("renaming needs a git repo (the commit carries every link rewrite)")
    head = git.head()
    data = read_bytes(mount.root, old)
    if data is None:
        raise EditRefused(f"{old} cannot be read")
    committed = git.read_blob_or_none(head, old) if head is not None else None
    if committed is not None and data != committed:
        # The new file would be committed as it is on disk: someone's uncommitted lines with it.
        raise EditRefused(
            f"{old} holds a change nobody committed (another program's?): amr does not rename it under them. "
            "Commit that change first (U), then rename the file."
        )
    changes: list[Change] = [Change(old, data, None, head)]
    new_data = data
    rewritten = 0
    for path in sorted(files):
        if not is_markdown(path):
            continue
        src = data if path == old else read_bytes(mount.root, path)
        if src is None:
            continue
        doc = parse(src, path)
        if not doc.utf8 or not any(True for _ in doc.links):
            continue
        parts = []
        count = 0
        for ln in doc.lines:
            text = rewrite_links(ln.text, old, new, files, path) if "[[" in ln.text or "](" in ln.text else ln.text
            if text != ln.text:
                count += 1
            parts.append(text + ln.eol)
        if count:
            rewritten += count
            body = (("\ufeff" if doc.bom else "") + "".join(parts)).encode("utf-8", "surrogateescape")
            if path == old:
                new_data = body
            else:
                changes.append(Change(path, src, body, head))
    changes.append(Change(new, None, new_data))
    message = f"Rename {old} to {new}" + (
        f" ({rewritten} link line{'s' if rewritten != 1 else ''} updated)" if rewritten else ""
    )
    saved = writegate.write(session, repo, changes, message, line=1, path=new)
    return saved, rewritten


def delete_file(session: Session, repo: str, path: str) -> Saved:
    check_writable(session, repo, path)
    of = session.open(repo, path)
    if of.data is None and of.read_only != "too large":
        raise EditRefused(of.message or f"{path} cannot be deleted")
    git = session.git(repo)
    if git is None:
        raise EditRefused("deleting needs a git repo, so the file can come back from history")
    base = of.data
    if base is None:  # too large to load: the committed version is what is deleted
        base = git.read_blob_or_none(of.head, path) if of.head else None
    return writegate.write(session, repo, [Change(path, base, None, of.head)], f"Delete {path}")


def link_to(path: str) -> str:
    return f"[[{link_text_for(path)}]]"


__all__ = [
    "AmrGitError",
    "ConflictChoice",
    "ConflictError",
    "EditRefused",
    "Saved",
    "StaleEntryError",
    "create_file",
    "delete_entry",
    "delete_file",
    "insert_entry",
    "link_to",
    "move_entry",
    "rename_file",
    "replace_entry_line",
    "resolve_conflict",
    "write",
]
