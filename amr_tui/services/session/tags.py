"""The tags of the mounted repos: how many entries carry each one, and renaming one.

A tag's count is how many entries ``tag:NAME`` finds (the same rule: ``core.format.tags.item_tags``
over what the search index holds, with the entry's metadata and its file's front matter), so the
tags view and the finder never disagree. Renaming rewrites the tag in every Markdown file of one
repo (entry text, ``tags`` metadata, front matter) as one commit through the write gate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from amr_tui.core.format.edit import summarise
from amr_tui.core.format.parser import is_markdown, parse
from amr_tui.core.format.tags import TAG_KEYS, item_tags, normal_tag, rename_tag
from amr_tui.git.gate import Change
from amr_tui.services import writegate
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import read_bytes
from amr_tui.services.writegate import EditRefused, Saved, check_writable

__all__ = ["TagCount", "rename_tag_in_repo", "tag_counts"]


@dataclass(frozen=True, slots=True)
class TagCount:
    repo: str
    tag: str  # folded: "infra", "project/alpha"
    entries: int  # how many entries carry it (what tag:NAME finds, nested tags aside)
    files: int  # in how many files


def tag_counts(session: Session, repos: list[str] | None = None) -> list[TagCount]:
    """Every tag of the repos (all mounted ones by default), most used first within each repo.
    Reads what the session has indexed so far (a thread worker's job: a pass over every entry).
    Each entry's tags are ``item_tags``'s: its text, its ``tags`` metadata, its file's front matter."""
    with session.lock:
        items = list(session.index.items)
        facts = {name: dict(state.facts) for name, state in session.repos.items()}
    wanted = set(repos) if repos is not None else None
    counts: Counter[tuple[str, str]] = Counter()
    files: dict[tuple[str, str], set[str]] = {}
    per_file: dict[tuple[str, str], tuple[tuple[str, ...], dict[int, list[str]], frozenset[int]]] = {}
    for item in items:
        if item is None or item.kind != "entry" or (wanted is not None and item.repo not in wanted):
            continue
        where = (item.repo, item.path)
        known = per_file.get(where)
        if known is None:
            f = facts.get(item.repo, {}).get(item.path)
            meta = f.meta if f is not None else None
            tagged = meta.values_of(TAG_KEYS) if meta is not None and any(k in meta.keys for k in TAG_KEYS) else {}
            heads = frozenset(f.heads) if f is not None else frozenset()
            known = per_file[where] = (f.tags if f is not None else (), tagged, heads)
        of_file, tagged, heads = known
        values = tagged.get(item.line)
        if values is None and "#" not in item.text:
            if not of_file:
                continue
            tags: Iterable[str] = of_file
        else:
            tags = item_tags(item.text, {"tags": values} if values else None, of_file)
        if values is None and item.line in heads:
            continue  # a heading or a front-matter field: not an entry, as tag: finds none
        for tag in tags:
            key = (item.repo, tag)
            counts[key] += 1
            files.setdefault(key, set()).add(item.path)
    out = [TagCount(repo, tag, n, len(files[(repo, tag)])) for (repo, tag), n in counts.items()]
    order = {name: i for i, name in enumerate(session.names)}
    out.sort(key=lambda t: (order.get(t.repo, 0), -t.entries, t.tag))
    return out


def rename_tag_in_repo(session: Session, repo: str, old: str, new: str) -> tuple[Saved, int]:
    """Rename tag ``old`` to ``new`` (and the tags nested in it) in every Markdown file of
    ``repo``, as one commit through the write gate. Returns what was saved and how many tags changed."""
    old_name, new_name = normal_tag(old), normal_tag(new)
    if old_name is None:
        raise EditRefused(f"{old!r} is not a tag")
    if new_name is None:
        raise EditRefused(f"{new!r} cannot be a tag: a tag holds a letter, and only letters, digits, _ - and /")
    if old_name == new_name:
        raise EditRefused("the new name is the same tag")
    git = session.git(repo)
    if git is None:
        raise EditRefused("renaming a tag needs a git repo (one commit carries every file's change)")
    mount = session.mount(repo)
    prose = session.repos[repo].style != "amr"
    head = git.head()
    changes: list[Change] = []
    total = 0
    for path in sorted(session.files(repo)):
        if not is_markdown(path):
            continue
        data = read_bytes(mount.root, path)
        if data is None or b"#" not in data and not any(k.encode() in data.lower() for k in TAG_KEYS):
            continue
        doc = parse(data, path)
        if not doc.utf8:
            continue
        texts, count = rename_tag(doc, old_name, new_name, prose=prose)
        if not count:
            continue
        check_writable(session, repo, path)
        body = (
            ("\ufeff" if doc.bom else "") + "".join(t + ln.eol for t, ln in zip(texts, doc.lines, strict=True))
        ).encode("utf-8", "surrogateescape")
        changes.append(Change(path, data, body, head))
        total += count
    if not changes:
        raise EditRefused(f"no file of {repo} holds #{old_name}")
    n = len(changes)
    message = summarise(f"Rename tag #{old_name} to #{new_name} ({total} in {n} file{'s' if n != 1 else ''})", 72)
    saved = writegate.write(session, repo, changes, message, path=changes[0].path)
    return saved, total
