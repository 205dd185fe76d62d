"""Create (or recognise) a memory repo, exactly as the Agent Memory Repo skill describes.

* path missing or an empty folder: ``mkdir -p``, ``git init``, write ``MEMORY.md`` =
  ``"# Memory\\n\\n## Index\\n"``, commit it as "Create memory repo" (through the compare-and-swap
  commit, so no hooks run);
* path already a memory repo (its own git top level with ``MEMORY.md``): reuse it, change nothing,
  and report whether its work tree is clean;
* path the top level of a git repo with Markdown notes but no ``MEMORY.md``: adopt it. One commit
  (the same compare-and-swap commit, on the checked-out branch) adds ``MEMORY.md`` with an
  ``## Index`` that links every note git tracks at HEAD (the files lint wants reachable: not
  dot-files, README, LICENSE...; not untracked files, not symlinks that leave the repo, not names
  no link can write). Nothing else is touched: staged and unstaged changes stay as they were;
* anything else (a file, or a non-empty folder that is not its own git repo with ``MEMORY.md``):
  refuse with :class:`InitRefusedError` and change nothing.

When git has no identity, :class:`InitNoIdentityError` (both a :class:`InitError` and a
:class:`~amr_tui.git.NoIdentityError`) is raised with advice, and whatever this call created is
removed again. Other git failures (e.g. a repo owned by another user) become :class:`InitError`.
Global git config is never touched.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from amr_tui.core.format.links import index_link
from amr_tui.core.lint.repo import is_memory_note
from amr_tui.core.paths import MEMORY_FILE
from amr_tui.core.textsafety import plural
from amr_tui.git import AmrGitError, GitRepo, NoIdentityError, NotARepoError, RepoStateError, is_memory_repo
from amr_tui.git.mergedriver import install_driver_config
from amr_tui.services import writegate
from amr_tui.services.sync.gitattrs import ATTRIBUTES, attributes_with_driver
from amr_tui.services.workspace import is_markdown, scan_files

MEMORY_TEMPLATE = b"# Memory\n\n## Index\n"
INITIAL_MESSAGE = "Create memory repo"
ADOPT_MESSAGE = "Create memory repo: MEMORY.md with an Index of the notes already here"


class InitError(Exception):
    """amr init could not create or reuse a memory repo; ``str()`` says why. Nothing was changed."""


class InitRefusedError(InitError, ValueError):
    """The path cannot become a memory repo without overwriting something. Nothing was changed."""


class InitNoIdentityError(InitError, NoIdentityError):
    """Git has no author identity, so the first commit cannot be made. Nothing was created."""

    def __init__(self, target: Path):
        RepoStateError.__init__(
            self,
            f"Git has no author name and email, so amr cannot make the first commit of a memory "
            f"repo at {target}. Nothing was created. Set an identity yourself, for example with "
            f'`git config --global user.name "Your Name"` and '
            f"`git config --global user.email you@example.com` (or the GIT_AUTHOR_NAME, "
            f"GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL environment variables), "
            f"then run this again. amr never changes your global git config itself.",
        )
        self.where = str(target)


@dataclass(frozen=True)
class InitResult:
    path: Path
    created: bool  # False: an existing memory repo was reused
    head: str | None
    clean: bool  # the skill's "clean before writing" condition
    message: str

    def __str__(self) -> str:
        return self.message


def init_memory_repo(
    path: str | os.PathLike[str],
    initial_branch: str = "main",
    identity: tuple[str, str] | None = None,
    *,
    merge_driver: bool = True,
) -> InitResult:
    """Create or reuse the memory repo at ``path`` (see the module docstring). ``identity``: a
    (name, email) to set in the new repo's own config before its first commit, for when git has
    no identity (never the global config). ``merge_driver``: install amr's entry-aware merge
    driver too (``*.md merge=amr`` in ``.gitattributes``, committed, and ``merge.amr.*`` in the
    repo's own config); the config's ``merge_driver = false`` turns it off."""
    try:
        result = _init(path, initial_branch, identity, merge_driver)
    except InitError:
        raise
    except AmrGitError as exc:
        raise InitError(str(exc)) from exc
    if not merge_driver or result.head is None:
        return result

    try:
        configured = install_driver_config(GitRepo(result.path).runner)
    except (AmrGitError, OSError) as exc:
        return replace(result, message=f"{result.message} amr's merge driver was not configured: {exc}")
    if result.created:
        how = "`*.md merge=amr` in .gitattributes (in that commit) and merge.amr.* in this clone's git config"
    elif configured:
        how = "merge.amr.* in this clone's git config (`amr merge-driver install` commits the attribute)"
    else:
        return result
    return replace(
        result,
        message=f"{result.message} amr's entry-aware merge driver: {how}; merge_driver = false in the config "
        "turns this off.",
    )


def _init(
    path: str | os.PathLike[str], initial_branch: str, identity: tuple[str, str] | None, merge_driver: bool
) -> InitResult:
    target = Path(path).expanduser().resolve()
    if target.exists() and not target.is_dir():
        raise InitRefusedError(f"{target} exists and is not a folder. amr changed nothing.")
    if target.is_dir():
        if is_memory_repo(target):
            repo = GitRepo(target)
            status = repo.status()
            note = (
                ""
                if status.is_clean
                else (" It has uncommitted changes: you can read it, but resolve them before writing.")
            )
            return InitResult(
                target, False, repo.head(), status.is_clean, f"{target} is already a memory repo; reusing it.{note}"
            )
        adopted = _adopt(target, merge_driver)
        if adopted is not None:
            return adopted
        if any(target.iterdir()):
            raise InitRefusedError(
                f"{target} is not empty and is not a memory repo (its own git repository with "
                f"MEMORY.md at the top). amr changed nothing. Choose a new or empty folder, or "
                f"add MEMORY.md to that repository yourself."
            )

    if identity is not None and any(not v.strip() or any(c in v for c in "\n\r\0<>") for v in identity):
        raise InitError("Write the identity as: Your Name <you@example.com>. amr changed nothing.")
    created_dirs = [p for p in [target, *target.parents] if not p.exists()]
    repo = GitRepo.init(target, initial_branch=initial_branch)
    try:
        if identity is not None:
            repo.set_local_identity(*identity)
        files = {MEMORY_FILE: MEMORY_TEMPLATE, **_attributes(repo, merge_driver)}
        head = writegate.seed(repo, files, INITIAL_MESSAGE, None)
    except NoIdentityError:
        # Undo exactly what this call created: the new .git and any folders it made.
        if repo.head() is None and not (target / MEMORY_FILE).exists():
            shutil.rmtree(target / ".git")
            for folder in created_dirs:  # innermost first
                try:
                    folder.rmdir()
                except OSError:
                    break
        raise InitNoIdentityError(target) from None
    return InitResult(target, True, head, True, f"Created memory repo at {target}.")


def _attributes(repo: GitRepo, merge_driver: bool) -> dict[str, bytes]:
    """``.gitattributes`` with ``*.md merge=amr`` for the first commit, when it lacks the line."""
    if not merge_driver:
        return {}
    head = repo.head()
    current = repo.read_blob_or_none(head, ATTRIBUTES) if head else None
    new = attributes_with_driver(current)
    return {ATTRIBUTES: new} if new is not None else {}


def _adopt(target: Path, merge_driver: bool) -> InitResult | None:
    """Adopt a git repo with notes (see the module docstring); None when ``target`` is not one."""
    if not (target / ".git").exists():
        return None
    if any(p.name.casefold() == MEMORY_FILE.casefold() for p in target.iterdir()):
        return None  # a memory.md (or a MEMORY.md that is no file): amr writes nothing over it
    try:
        repo = GitRepo(target)
    except NotARepoError:
        return None
    head = repo.head()
    if head is None or repo.root.resolve() != target:
        return None
    notes = adoptable_notes(repo)
    if not notes:
        return None
    index, folders = index_plan(notes, set(repo.ls_files()))
    attrs = _attributes(repo, merge_driver)
    files = {MEMORY_FILE: MEMORY_TEMPLATE + index.encode(), **folders, **attrs}
    new_head = writegate.seed(repo, files, ADOPT_MESSAGE, head)
    count = f"{len(notes)} note{'s' if len(notes) != 1 else ''}"
    clean = repo.status().is_clean
    note = "" if clean else " Uncommitted changes and untracked files were left as they were."
    return InitResult(
        target,
        True,
        new_head,
        clean,
        f"Adopted {target} as a memory repo: committed MEMORY.md with an ## Index linking the "
        f"{count} git tracks here ({', '.join(path for path, _ in notes[:5])}"
        f"{', ...' if len(notes) > 5 else ''}).{'' if attrs else ' Nothing else was changed.'}{note}",
    )


#: An adopted repo's Index lists its notes one by one up to this many; beyond, one link per folder.
INDEX_MAX_LINKS = 150
FOLDER_INDEX = "_index.md"


def index_plan(notes: list[tuple[str, str]], existing: set[str]) -> tuple[str, dict[str, bytes]]:
    """(the Index's lines, new folder index files) for adopting ``notes`` ((path, [[link]])).

    Up to ``INDEX_MAX_LINKS`` notes, the Index links each. Beyond, it would pass the load budget
    agents read (200 lines): the notes at the top are linked one by one and each folder once, to a
    new ``<folder>/_index.md`` that links the folder's notes, so every note stays reachable. A
    folder that already has an ``_index.md`` keeps its notes linked one by one from the Index."""
    if len(notes) <= INDEX_MAX_LINKS:
        return "".join(f"- {link}\n" for _path, link in notes), {}
    top = [(p, link) for p, link in notes if "/" not in p]
    by_folder: dict[str, list[tuple[str, str]]] = {}
    for p, link in notes:
        if "/" in p:
            by_folder.setdefault(p.split("/", 1)[0], []).append((p, link))
    lines = [f"- {link}" for _p, link in top]
    files: dict[str, bytes] = {}
    for folder, inside in sorted(by_folder.items()):
        path = f"{folder}/{FOLDER_INDEX}"
        folder_link = index_link(path)
        if path in existing or folder_link is None:
            lines += [f"- {lk}" for _p, lk in inside]
            continue
        lines.append(f"- {folder_link}")
        body = f"# {folder}\n\n" + "".join(f"- {lk}\n" for _p, lk in inside)
        files[path] = body.encode()
    return "".join(line + "\n" for line in lines), files


def adoptable_notes(repo: GitRepo) -> list[tuple[str, str]]:
    """``(path, [[link]])`` of the Markdown notes git tracks at HEAD and that are in the work tree,
    sorted: no dot-files or README-like files, no symlink leaving the repo, no name a link cannot write."""
    files, escaping, _ = scan_files(repo.root)
    on_disk = set(files) - escaping
    wanted = [p for p in repo.ls_files() if is_markdown(p) and is_memory_note(p) and p in on_disk]
    at_head = repo.tree_entries("HEAD", wanted) if wanted else {}
    out = []
    for path in sorted(at_head):
        link = index_link(path)
        if link is not None:
            out.append((path, link))
    return out


def preview_init(path: str | os.PathLike[str], *, merge_driver: bool = True) -> str:
    """What ``init_memory_repo(path)`` would write, exactly, without writing anything: for the
    question the app asks first. Raises InitRefusedError when it would refuse."""
    target = Path(path).expanduser().resolve()
    attrs = "`.gitattributes` with `*.md merge=amr` (amr's entry-aware merge driver)" if merge_driver else ""
    if target.exists() and not target.is_dir():
        raise InitRefusedError(f"{target} exists and is not a folder. amr changed nothing.")
    if target.is_dir() and is_memory_repo(target):
        return f"{target} is already a memory repo: nothing is written, it opens as it is."
    if target.is_dir() and (target / ".git").exists():
        try:
            repo = GitRepo(target)
        except (NotARepoError, AmrGitError):
            repo = None
        if repo is not None and repo.head() is not None and repo.root.resolve() == target:
            notes = adoptable_notes(repo)
            if notes and not any(p.name.casefold() == MEMORY_FILE.casefold() for p in target.iterdir()):
                lines, folders = index_plan(notes, set(repo.ls_files()))
                links = lines.splitlines()
                index = "\n".join(f"    {line}" for line in links[:12])
                more = f"\n    ... and {len(links) - 12} more" if len(links) > 12 else ""
                extra = "".join(
                    f"  {path} (new: links the {body.count(b'[[')} notes of its folder)\n"
                    for path, body in sorted(folders.items())
                )
                return (
                    f"In the git repo {target}, one commit ({ADOPT_MESSAGE!r}) adds:\n"
                    f"  MEMORY.md:\n    # Memory\n\n    ## Index\n{index}{more}\n"
                    + extra
                    + (f"  {attrs}\n" if attrs else "")
                    + "Nothing else is changed: no file is moved, renamed or rewritten."
                )
    if target.is_dir() and any(target.iterdir()):
        raise InitRefusedError(
            f"{target} is not empty and is not a memory repo (its own git repository with MEMORY.md at the "
            "top). amr changed nothing. Choose a new or empty folder, or a git repo of notes."
        )
    where = "the empty folder" if target.is_dir() else "a new folder"
    return (
        f"In {where} {target}: git init, then one commit ({INITIAL_MESSAGE!r}) of\n"
        "  MEMORY.md:\n    # Memory\n\n    ## Index\n" + (f"  {attrs}\n" if attrs else "")
    )


TRACK_MESSAGE = "Track this memory folder with git (amr track)"


def track_plan(path: str | os.PathLike[str]) -> tuple[Path, list[str]]:
    """(the folder, the files the first commit of ``amr track`` would hold): its Markdown files
    and their attachments, nothing under a dot-folder, no symlink. Raises InitRefusedError when
    the folder is already (in) a git repo or holds nothing to track."""
    target = Path(path).expanduser().resolve()
    if not target.is_dir():
        raise InitRefusedError(f"{target} is not a folder. amr changed nothing.")
    if (target / ".git").exists():
        raise InitRefusedError(f"{target} is a git repo already: nothing to do.")
    files, escaping, _ = scan_files(target)
    wanted = [f for f in files if f not in escaping and not any(p.startswith(".") for p in f.split("/"))]
    if not any(is_markdown(f) for f in wanted):
        raise InitRefusedError(f"{target} holds no Markdown file: nothing to track. amr changed nothing.")
    return target, wanted


def track_folder(path: str | os.PathLike[str], identity: tuple[str, str] | None = None) -> InitResult:
    """Put a memory folder under git in place: ``git init`` and one commit of exactly the files
    ``track_plan`` names (never ``add -A``). Nothing is moved or rewritten; MEMORY.md is not
    added (the folder keeps its own format)."""
    target, wanted = track_plan(path)
    repo = GitRepo.init(target)
    try:
        if identity is not None:
            repo.set_local_identity(*identity)
        files = {rel: (target / rel).read_bytes() for rel in wanted}
        head = writegate.seed(repo, files, TRACK_MESSAGE, None)
    except NoIdentityError:
        if repo.head() is None:
            shutil.rmtree(target / ".git")
        raise InitNoIdentityError(target) from None
    return InitResult(
        target, True, head, True, f"{target} is under git now: one commit of {plural(len(wanted), 'file')}."
    )
