"""Reading a memory repo's history: logs, patches, blame, renames, grep.

Everything runs through the hardened :class:`~amr_tui.git.runner.GitRunner`. Revisions that come
from callers are resolved to object ids first (``RepoHandle.resolve`` puts them after
``--end-of-options``), so no data-derived value can be read as an option; paths always follow
``--``. Diffs are always ``--no-ext-diff --no-textconv --no-color`` with fixed ``a/`` ``b/``
prefixes, ``--no-renames`` (a moved file is a deletion plus an addition, which is what
entry-level moves need) and ``-U0``; ``log.follow`` is switched off unless asked for.

Log records are split on a per-process random marker, so no commit message can fake a record
boundary.

Big blobs: :func:`log_patches` and :func:`commit_patch` take ``max_blob`` (bytes). They first list
the walk's changes with ``--raw`` (object ids, no content) and ask ``cat-file --batch-check`` for
the sizes; a file whose old or new blob is over the limit is never diffed (whatever the repo's
``.gitattributes`` say): it comes back as a :class:`FileDiff` with no hunks and ``too_large`` set,
and :func:`skipped_blobs` lists them for a notice.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from amr_tui.git.catfile import blob_sizes
from amr_tui.git.handle import OID, RepoHandle
from amr_tui.git.models import CommitInfo
from amr_tui.git.worktree import normalize_rel

_MARK = "amr" + secrets.token_hex(8)
_SEP = b"\x00\x01" + _MARK.encode() + b"\x00"
#: header fields: oid, parents, author name/email/date, committer name/email/date, subject
_FORMAT = f"--format=%x00%x01{_MARK}%x00%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%s%x00"
_BODY_FORMAT = f"--format=%x00%x01{_MARK}%x00%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%s%x00%B"
_NFIELDS = 9
_DIFF_FLAGS = (
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--no-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "-U0",
    "--no-relative",
    "--root",
    "--no-show-signature",
)
_RAW_FLAGS = tuple(f for f in _DIFF_FLAGS if f != "-U0")  # -U implies -p
_PRE = ("-c", "log.follow=false", "-c", "diff.noprefix=false", "-c", "core.quotePath=true")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NULL_OID = re.compile(r"^0+$")
Keep = Callable[[str], bool] | None  # which files of a patch to keep (None: all)


def _dec(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True)
class LogEntry:
    info: CommitInfo
    parents: tuple[str, ...]
    body: str = ""

    @property
    def oid(self) -> str:
        return self.info.oid


@dataclass(frozen=True, slots=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: tuple[str, ...]
    added: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FileDiff:
    old_path: str | None  # None when the file was added
    new_path: str | None  # None when the file was deleted
    hunks: tuple[Hunk, ...]
    binary: bool = False
    too_large: int | None = None  # bytes of its larger blob when over the walk's limit: not diffed, no hunks

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    @property
    def removed(self) -> list[str]:
        return [line for h in self.hunks for line in h.removed]

    @property
    def added(self) -> list[str]:
        return [line for h in self.hunks for line in h.added]


@dataclass(frozen=True, slots=True)
class CommitDiff:
    entry: LogEntry
    files: tuple[FileDiff, ...]

    @property
    def oid(self) -> str:
        return self.entry.oid


@dataclass(frozen=True, slots=True)
class SkippedBlob:
    """A file a history walk did not read: one of its blobs in ``commit``'s change is ``size`` bytes."""

    path: str
    commit: str
    size: int


def skipped_blobs(diffs: Iterable[CommitDiff]) -> list[SkippedBlob]:
    """The files of these :class:`CommitDiff`\\ s that were over the walk's size limit."""
    return [SkippedBlob(f.path, cd.oid, f.too_large) for cd in diffs for f in cd.files if f.too_large is not None]


@dataclass(frozen=True, slots=True)
class TreeChange:
    """One file's change in a ``--raw`` listing: status letter (A, D, M, T; R and C only with
    ``--follow``), paths (None on the side where the file does not exist), blob ids (None there
    too) and modes (``"000000"`` there)."""

    status: str
    old_path: str | None
    new_path: str | None
    old_oid: str | None
    new_oid: str | None
    old_mode: str = "000000"
    new_mode: str = "000000"

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p))

    @property
    def gitlink(self) -> bool:
        """A submodule on either side."""
        return "160000" in (self.old_mode, self.new_mode)


def _parse_raw(rest: bytes) -> list[TreeChange]:
    """The ``--raw -z --no-abbrev`` records (after a log header, or all of ``diff-tree``'s output):
    ``:m m oid oid S\\0path\\0`` (two paths for renames and copies, which only ``--follow`` shows)."""
    tokens = rest.split(b"\x00")
    out: list[TreeChange] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i].lstrip(b"\n")
        i += 1
        if not tok.startswith(b":"):
            continue
        fields = tok[1:].decode("ascii", "replace").split(" ")
        if len(fields) < 5 or i >= len(tokens):
            continue
        old_mode, new_mode, old_oid, new_oid, status = fields[:5]
        first = _dec(tokens[i])
        i += 1
        old_path: str | None
        new_path: str | None
        if status[:1] in ("R", "C") and i < len(tokens):
            old_path, new_path = first, _dec(tokens[i])
            i += 1
        else:
            old_path = None if status[:1] == "A" else first
            new_path = None if status[:1] == "D" else first
        out.append(
            TreeChange(
                status[:1],
                old_path,
                new_path,
                None if _NULL_OID.match(old_oid) else old_oid,
                None if _NULL_OID.match(new_oid) else new_oid,
                old_mode,
                new_mode,
            )
        )
    return out


def _bounded_patches(
    repo: RepoHandle,
    cmd: list[str],
    walk_opts: list[str],
    tail: list[str],
    paths: list[str],
    keep: Keep,
    max_blob: int | None,
    *,
    follow: bool = False,
    removals: bool = False,
) -> list[tuple[LogEntry, tuple[FileDiff, ...]]]:
    """``git <cmd> <walk_opts> -p <tail>`` as (entry, files), no blob over ``max_blob`` ever diffed.
    ``removals``: only the patches that can remove a line are wanted; a commit that only adds
    files (a first commit: a whole memory at once) is listed with no files, never diffed.

    ``cmd`` is ``[*_PRE, "log" or "show", ...]``, ``walk_opts`` what picks the commits (limit,
    skip, follow), ``tail`` the revisions. With a limit,
    the walk is listed with ``--raw`` first (the same options: the same commits, in the same order)
    and the blob sizes asked; only when some blob is over the limit are the patches made commit by
    commit group (``--no-walk``), each group's paths being its files that are not."""
    spec = ["--", *paths]

    def patch_run(
        extra: list[str], revs: list[str], pathspec: list[str], stdin: bytes | None = None
    ) -> list[tuple[LogEntry, tuple[FileDiff, ...]]]:
        out = repo.runner.run([*cmd, _FORMAT, "-p", *_DIFF_FLAGS, *extra, *revs, *pathspec], input=stdin).stdout
        return [(e, _kept(parse_patch(patch), keep)) for e, patch in _parse_records(out)]

    if max_blob is None:
        return patch_run(walk_opts, tail, spec)
    listed = repo.runner.run(
        [*cmd, _FORMAT, "--raw", "--no-abbrev", "-z", *_RAW_FLAGS, *walk_opts, *tail, *spec]
    ).stdout
    walk = [(e, _parse_raw(rest)) for e, rest in _parse_records(listed)]
    added_only = {e.oid for e, changes in walk if removals and changes and all(c.old_oid is None for c in changes)}
    wanted = {o for _, changes in walk for c in changes if not c.gitlink for o in (c.old_oid, c.new_oid) if o}
    big = {o: n for o, n in blob_sizes(repo, wanted).items() if n > max_blob}
    if not big and not added_only:
        return patch_run(walk_opts, tail, spec)
    groups: dict[tuple[str, ...] | None, list[str]] = {}  # pathspec (None: the walk's own) -> commits
    skipped: dict[str, dict[str, FileDiff]] = {}
    for entry, changes in walk:
        over: dict[str, FileDiff] = {}  # every file with a big blob stays out of the patch; kept ones are named
        for c in changes:
            sizes = [big[o] for o in (c.old_oid, c.new_oid) if o in big]
            if sizes:
                over[c.path] = FileDiff(c.old_path, c.new_path, (), False, max(sizes))
        if entry.oid in added_only:
            skipped[entry.oid] = {p: f for p, f in over.items() if keep is None or keep(p)}
            continue  # named when too large, never diffed
        if over:
            skipped[entry.oid] = {p: f for p, f in over.items() if keep is None or keep(p)}
            key: tuple[str, ...] | None = tuple(sorted({p for c in changes if c.path not in over for p in c.paths}))
        else:
            key = tuple(sorted({p for c in changes for p in c.paths})) if follow else None
        if key != ():
            groups.setdefault(key, []).append(entry.oid)
    files: dict[str, tuple[FileDiff, ...]] = {}
    for key, oids in groups.items():
        pathspec = spec if key is None else ["--", *key]
        extra = ["--no-walk=unsorted", "--stdin"] + (["-M"] if follow else [])
        for e, found in patch_run(extra, [], pathspec, ("\n".join(oids) + "\n").encode("ascii")):
            files[e.oid] = found
    out: list[tuple[LogEntry, tuple[FileDiff, ...]]] = []
    for entry, changes in walk:
        got = {f.path: f for f in files.get(entry.oid, ())}
        got.update(skipped.get(entry.oid, {}))
        order = [c.path for c in changes if c.path in got]
        out.append((entry, tuple(got[p] for p in dict.fromkeys([*order, *got]))))
    return out


def _kept(files: tuple[FileDiff, ...], keep: Keep) -> tuple[FileDiff, ...]:
    return files if keep is None else tuple(f for f in files if keep(f.path))


@dataclass(frozen=True, slots=True)
class BlameLine:
    commit: str
    author_name: str
    author_email: str
    author_date: datetime
    summary: str
    path: str  # the file's name in that commit
    orig_line: int  # the line's number in that commit
    previous: tuple[str, str] | None  # (parent commit, path there) for re-blame; None at the boundary
    boundary: bool

    @property
    def uncommitted(self) -> bool:
        """A line of the work tree that no commit holds yet (git blames it on the zero id)."""
        return bool(_NULL_OID.match(self.commit))


def unquote_path(raw: bytes) -> str:
    """A path as git prints it in diff headers: C-quoted when it holds special bytes."""
    if not (raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2):
        return _dec(raw)
    body, out, i = raw[1:-1], bytearray(), 0
    simple = {
        ord("a"): 7,
        ord("b"): 8,
        ord("t"): 9,
        ord("n"): 10,
        ord("v"): 11,
        ord("f"): 12,
        ord("r"): 13,
        ord('"'): 34,
        ord("\\"): 92,
    }
    while i < len(body):
        c = body[i]
        if c == 92 and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in simple:
                out.append(simple[nxt])
                i += 2
                continue
            if 48 <= nxt <= 55 and i + 3 < len(body) + 1:
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
        out.append(c)
        i += 1
    return _dec(bytes(out))


def _header_path(line: bytes, prefix: bytes) -> str | None:
    rest = line[4:].rstrip(b"\n").rstrip(b"\t")
    if rest == b"/dev/null":
        return None
    path = unquote_path(rest)
    return path[len(prefix) :] if path.startswith(prefix.decode()) else path


def parse_patch(raw: bytes) -> tuple[FileDiff, ...]:
    """The files of a ``-U0 --no-renames`` patch with ``a/`` and ``b/`` prefixes."""
    files: list[FileDiff] = []
    old_path = new_path = None
    hunks: list[Hunk] = []
    cur: tuple[int, int, int, int] | None = None
    removed: list[str] = []
    added: list[str] = []
    binary = False
    started = False

    def close_hunk() -> None:
        nonlocal cur, removed, added
        if cur is not None:
            hunks.append(Hunk(cur[0], cur[1], cur[2], cur[3], tuple(removed), tuple(added)))
        cur, removed, added = None, [], []

    def close_file() -> None:
        nonlocal hunks, old_path, new_path, binary, started
        close_hunk()
        if started:
            files.append(FileDiff(old_path, new_path, tuple(hunks), binary))
        hunks, old_path, new_path, binary, started = [], None, None, False, False

    for line in raw.split(b"\n"):
        if line.startswith(b"diff --git "):
            close_file()
            started = True
            head = line[11:]
            if head.startswith(b"a/") and b" b/" in head:  # best guess; --- / +++ lines win
                a, _, b = head.partition(b" b/")
                old_path, new_path = _dec(a[2:]), _dec(b)
            continue
        if not started:
            continue
        if cur is None:
            if line.startswith(b"--- "):
                old_path = _header_path(line, b"a/")
                continue
            if line.startswith(b"+++ "):
                new_path = _header_path(line, b"b/")
                continue
            if line.startswith(b"new file mode"):
                old_path = None
                continue
            if line.startswith(b"deleted file mode"):
                new_path = None
                continue
            if line.startswith(b"Binary files "):
                binary = True
                continue
        m = _HUNK.match(line)
        if m:
            close_hunk()
            cur = (int(m[1]), int(m[2]) if m[2] is not None else 1, int(m[3]), int(m[4]) if m[4] is not None else 1)
            continue
        if cur is None:
            continue
        if line.startswith(b"-"):
            removed.append(_dec(line[1:].removesuffix(b"\r")))
        elif line.startswith(b"+"):
            added.append(_dec(line[1:].removesuffix(b"\r")))
    close_file()
    return tuple(files)


def _parse_records(raw: bytes, *, body: bool = False) -> list[tuple[LogEntry, bytes]]:
    out: list[tuple[LogEntry, bytes]] = []
    for rec in raw.split(_SEP)[1:]:
        parts = rec.split(b"\x00", _NFIELDS)
        if len(parts) < _NFIELDS:
            continue
        f = [_dec(p) for p in parts[:_NFIELDS]]
        rest = parts[_NFIELDS] if len(parts) > _NFIELDS else b""
        oid = f[0].strip()
        if not OID.match(oid):
            continue
        try:
            info = CommitInfo(
                oid, f[2], f[3], datetime.fromisoformat(f[4]), f[5], f[6], datetime.fromisoformat(f[7]), f[8]
            )
        except ValueError:
            continue
        entry = LogEntry(info, tuple(f[1].split()), _dec(rest).rstrip("\n") if body else "")
        out.append((entry, b"" if body else rest))
    return out


def _start(repo: RepoHandle, rev: str) -> str | None:
    return rev if OID.match(rev) else repo.resolve(rev)


def _revs(repo: RepoHandle, rev: str, exclude: tuple[str, ...]) -> list[str] | None:
    """A log's revisions: ``--end-of-options``, ``rev``'s commit, then ``^`` each of ``exclude``'s
    that exists. None when ``rev`` is not a commit."""
    start = _start(repo, rev)
    if start is None:
        return None
    excl = [f"^{o}" for o in (_start(repo, e) for e in exclude) if o]
    return ["--end-of-options", start, *excl]


def _walk(limit: int | None, skip: int, follow: bool, paths: tuple[str, ...]) -> list[str]:
    """A log's walk options: ``limit``, ``skip``, and ``--follow`` when asked for one path."""
    walk: list[str] = []
    if limit is not None:
        walk.append(f"--max-count={int(limit)}")
    if skip:
        walk.append(f"--skip={int(skip)}")
    if follow and len(paths) == 1:
        walk.append("--follow")
    return walk


def log_entries(
    repo: RepoHandle,
    rev: str = "HEAD",
    *,
    paths: tuple[str, ...] = (),
    limit: int | None = None,
    skip: int = 0,
    exclude: tuple[str, ...] = (),
    follow: bool = False,
    body: bool = False,
    first_parent: bool = False,
    grep: str | None = None,
) -> list[LogEntry]:
    """Commits reachable from ``rev`` (and not from ``exclude``), newest first.

    ``grep``: only commits whose message holds this fixed string."""
    revs = _revs(repo, rev, exclude)
    if revs is None:
        return []
    args = [*_PRE, "log", _BODY_FORMAT if body else _FORMAT, "--no-show-signature", *_walk(limit, skip, follow, paths)]
    if first_parent:
        args.append("--first-parent")
    if grep is not None:
        args += ["-F", f"--grep={grep}"]
    out = repo.runner.run([*args, *revs, "--", *(normalize_rel(p) for p in paths)]).stdout
    return [e for e, _ in _parse_records(out, body=body)]


def log_patches(
    repo: RepoHandle,
    rev: str = "HEAD",
    *,
    paths: tuple[str, ...] = (),
    limit: int | None = None,
    skip: int = 0,
    exclude: tuple[str, ...] = (),
    follow: bool = False,
    keep: Keep = None,
    max_blob: int | None = None,
    removals: bool = False,
) -> list[CommitDiff]:
    """Like :func:`log_entries`, with each commit's ``-U0`` patch (merges show none).

    ``keep(path) -> bool`` filters the files kept from each patch (e.g. Markdown only).
    ``max_blob``: a kept file with a blob over this many bytes is not diffed (``FileDiff.too_large``).
    ``removals`` (with ``max_blob``): for a reader of removed lines only, a commit that only adds
    files has no files (a first commit of a million entries is not diffed).
    """
    revs = _revs(repo, rev, exclude)
    if revs is None:
        return []
    found = _bounded_patches(
        repo,
        [*_PRE, "log"],
        _walk(limit, skip, follow, paths),
        revs,
        [normalize_rel(p) for p in paths],
        keep,
        max_blob,
        follow=follow and len(paths) == 1,
        removals=removals,
    )
    return [CommitDiff(entry, files) for entry, files in found]


def commit_patch(repo: RepoHandle, commit: str, keep: Keep = None, max_blob: int | None = None) -> CommitDiff | None:
    """One commit's patch against its first parent (``--first-parent`` for merges); ``max_blob``
    as for :func:`log_patches`."""
    oid = _start(repo, commit)
    if oid is None:
        return None
    found = _bounded_patches(
        repo, [*_PRE, "show", "--diff-merges=first-parent"], [], ["--end-of-options", oid], [], keep, max_blob
    )
    if not found:
        return None
    return CommitDiff(found[0][0], found[0][1])


def diff_text(repo: RepoHandle, old: str, new: str, path: str | None = None, *, context: int = 3) -> str:
    """``git diff`` between two commits (optionally one path), as text."""
    a, b = _start(repo, old), _start(repo, new)
    if a is None or b is None:
        raise ValueError("unknown commit")
    args = [
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--no-renames",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        f"-U{int(context)}",
        "--no-relative",
        "--end-of-options",
        a,
        b,
        "--",
    ]
    if path is not None:
        args.append(normalize_rel(path))
    return repo.runner.run([*_PRE, *args]).text


def _diff_between(repo: RepoHandle, old: str, new: str, form: str) -> bytes:
    """``git diff <form> -z`` between two commits, no renames, nothing from the repo's config."""
    a, b = _start(repo, old), _start(repo, new)
    if a is None or b is None:
        raise ValueError("unknown commit")
    return repo.runner.run(
        [
            "diff",
            form,
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--no-relative",
            "--end-of-options",
            a,
            b,
            "--",
        ]
    ).stdout


EMPTY_TREE = {
    "sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}


def tree_changes(repo: RepoHandle, old: str | None, new: str) -> list[TreeChange]:
    """Every file that differs between two commits (``old`` None: the empty tree), the one call
    amr makes for that: ``git diff-tree -r --raw --no-renames`` (plumbing: no diff config of the
    repo applies), sorted by path. ValueError when a revision does not exist."""
    a = EMPTY_TREE[repo.object_format] if old is None else _start(repo, old)
    b = _start(repo, new)
    if a is None or b is None:
        raise ValueError("unknown commit")
    out = repo.runner.run(
        ["diff-tree", "-r", "-z", "--raw", "--no-abbrev", "--no-renames", "--no-commit-id", "--end-of-options", a, b]
    ).stdout
    return _parse_raw(out)


def commit_changes_of(repo: RepoHandle, commits: Sequence[tuple[str | None, str]]) -> dict[str, list[TreeChange]]:
    """What each commit of ``commits`` (``(parent or None, commit)``, object ids) changed, as
    :func:`tree_changes` gives it, from one ``git diff-tree --stdin`` for them all (a commit's
    diff each was one git process per commit: 20 of the app's 25 at start on the demo)."""
    wanted = [(old, new) for old, new in commits if OID.match(new) and (old is None or OID.match(old))]
    if not wanted:
        return {}
    lines = "".join(f"{new} {old}\n" if old else f"{new}\n" for old, new in wanted)
    out = repo.runner.run(
        ["diff-tree", "--stdin", "--always", "--root", "-r", "-z", "--raw", "--no-abbrev", "--no-renames"],
        input=lines.encode("ascii"),
    ).stdout
    found: dict[str, list[TreeChange]] = {}
    tokens = out.split(b"\x00")
    i, current = 0, ""
    while i < len(tokens):
        tok = tokens[i].strip(b"\n")
        if tok.startswith(b":"):
            status = tok[1:].split(b" ")[4:5]
            n = 3 if status and status[0][:1] in (b"R", b"C") else 2
            found.setdefault(current, []).extend(_parse_raw(b"\x00".join(tokens[i : i + n])))
            i += n
            continue
        if OID.match(tok.decode("ascii", "replace")):
            current = tok.decode("ascii")
            found.setdefault(current, [])
        i += 1
    for changes in found.values():
        changes.sort(key=lambda c: c.path)
    return found


def changed_paths(repo: RepoHandle, old: str, new: str) -> list[tuple[str, str]]:
    """``(status, path)`` of every file that differs between two commits (A, D, M or T), from
    :func:`tree_changes`."""
    return [(c.status, c.path) for c in tree_changes(repo, old, new)]


def line_counts(repo: RepoHandle, old: str, new: str) -> dict[str, tuple[int, int] | None]:
    """``path -> (lines added, lines removed)`` between two commits (``git diff --numstat``, no
    renames); None for a binary file. Paths are the ones :func:`changed_paths` lists."""
    out = _diff_between(repo, old, new, "--numstat")
    result: dict[str, tuple[int, int] | None] = {}
    for rec in out.split(b"\0"):
        added, _, rest = rec.partition(b"\t")
        removed, _, path = rest.partition(b"\t")
        if path:
            result[_dec(path)] = (int(added), int(removed)) if added.isdigit() and removed.isdigit() else None
    return result


def tree_files(repo: RepoHandle, commit: str) -> dict[str, tuple[str, str]]:
    """``path -> (mode, blob oid)`` of every file in a commit's tree (recursively)."""
    oid = _start(repo, commit)
    if oid is None:
        return {}
    out = repo.runner.run(["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", oid]).stdout
    files: dict[str, tuple[str, str]] = {}
    for rec in out.split(b"\0"):
        meta, _, name = rec.partition(b"\t")
        fields = meta.decode("ascii", "replace").split(" ")
        if len(fields) == 3 and fields[1] == "blob":
            files[_dec(name)] = (fields[0], fields[2])
    return files


def blame_line(repo: RepoHandle, rev: str, path: str, line: int) -> BlameLine | None:
    """Who last touched ``line`` of ``path`` at ``rev`` (``blame_lines`` of that one line)."""
    if line < 1:
        return None
    return blame_lines(repo, rev, path, (line,)).get(line)


def blame_lines(repo: RepoHandle, rev: str | None, path: str, lines: Iterable[int]) -> dict[int, BlameLine]:
    """Who last touched each of ``lines`` of ``path``: at ``rev``, or in the work tree when
    ``rev`` is None (a line nobody committed yet comes back with :attr:`BlameLine.uncommitted`).
    One ``git blame --line-porcelain`` with an ``-L n,n`` per line; lines git cannot blame (a file
    it does not track, a line past the end) are left out."""
    wanted = sorted({int(n) for n in lines if int(n) >= 1})
    if not wanted:
        return {}
    spec: list[str] = []
    if rev is not None:
        oid = _start(repo, rev)
        if oid is None:
            return {}
        spec = [oid]
    ranges = [arg for n in wanted for arg in ("-L", f"{n},{n}")]
    res = repo.runner.run(
        [
            "-c",
            "blame.ignoreRevsFile=",
            "blame",
            "--line-porcelain",
            "--no-progress",
            *ranges,
            *spec,
            "--",
            normalize_rel(path),
        ],
        check=False,
    )
    if res.returncode != 0:
        if len(wanted) == 1:
            return {}
        # one line git refused (past the end) fails them all: ask for each on its own
        return {n: b for one in wanted for n, b in blame_lines(repo, rev, path, (one,)).items()}
    out: dict[int, BlameLine] = {}
    head: list[bytes] = []
    fields: dict[str, str] = {}
    previous: tuple[str, str] | None = None
    boundary = False
    for raw in res.stdout.split(b"\n"):
        if not head:
            head = raw.split(b" ")
            fields, previous, boundary = {}, None, False
            continue
        if raw.startswith(b"\t"):  # the line itself ends each record
            if len(head) >= 3 and OID.match(_dec(head[0])):
                when = _epoch_date(fields.get("author-time", "0"), fields.get("author-tz", "+0000"))
                out[int(head[2])] = BlameLine(
                    _dec(head[0]),
                    fields.get("author", ""),
                    fields.get("author-mail", "").strip("<>"),
                    when,
                    fields.get("summary", ""),
                    fields.get("filename", path),
                    int(head[1]),
                    previous,
                    boundary,
                )
            head = []
            continue
        key, _, value = _dec(raw).partition(" ")
        if key == "previous":
            p_oid, _, p_path = value.partition(" ")
            previous = (p_oid, p_path)
        elif key == "boundary":
            boundary = True
        else:
            fields[key] = value
    return out


def _epoch_date(seconds: str, tz: str) -> datetime:
    try:
        sign = -1 if tz.startswith("-") else 1
        offset = timezone(sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])))
        return datetime.fromtimestamp(int(seconds), tz=offset)
    except (ValueError, OverflowError, OSError):
        return datetime.fromtimestamp(0, tz=UTC)


def renames(repo: RepoHandle, rev: str = "HEAD") -> list[tuple[str, str, str]]:
    """``(commit, old path, new path)`` of every rename git detects in history, newest first."""
    start = _start(repo, rev)
    if start is None:
        return []
    out = repo.runner.run(
        [
            *_PRE,
            "log",
            f"--format=%x00%x01{_MARK}%x00%H%x00",
            "--name-status",
            "-z",
            "--diff-filter=R",
            "-M",
            "--no-ext-diff",
            "--no-textconv",
            "--end-of-options",
            start,
            "--",
        ]
    ).stdout
    found: list[tuple[str, str, str]] = []
    for rec in out.split(_SEP)[1:]:
        parts = [p.strip(b"\n") for p in rec.split(b"\x00")]
        oid = _dec(parts[0])
        fields = [p for p in parts[1:] if p]
        i = 0
        while i < len(fields):
            status = _dec(fields[i])
            if status[:1] in ("R", "C") and status[1:].isdigit() and i + 2 < len(fields):
                if status[0] == "R":
                    found.append((oid, _dec(fields[i + 1]), _dec(fields[i + 2])))
                i += 3
            else:
                i += 1
    return found


def grep_fixed(repo: RepoHandle, commit: str, *texts: str) -> list[str]:
    """Paths in ``commit``'s tree whose content holds any of ``texts`` (fixed strings), in one
    ``git grep``."""
    oid = _start(repo, commit)
    wanted = [t for t in texts if t and "\n" not in t and "\0" not in t]
    if oid is None or not wanted:
        return []
    patterns = [arg for t in wanted for arg in ("-e", t)]
    res = repo.runner.run(
        ["grep", "-F", "-I", "-l", "-z", "--no-color", "--no-textconv", *patterns, oid, "--"], ok=(0, 1)
    )
    prefix = oid + ":"
    return [_dec(p)[len(prefix) :] if _dec(p).startswith(prefix) else _dec(p) for p in res.stdout.split(b"\0") if p]


def merge_bases(repo: RepoHandle, a: str, b: str, *, every: bool = True) -> list[str]:
    """The merge bases of two commits, the one ``git merge-base`` call amr makes: with ``every``
    all of them (``--all``), else the one git picks (the first of those). ``[a]`` when ``a`` is
    an ancestor of ``b``, ``[b]`` the other way round; ``[]`` for unrelated histories or when
    either revision does not exist."""
    x, y = _start(repo, a), _start(repo, b)
    if x is None or y is None:
        return []
    res = repo.runner.run(["merge-base", *(["--all"] if every else []), "--end-of-options", x, y], ok=(0, 1))
    return [oid for oid in res.text.split() if OID.match(oid)]


def merge_base(repo: RepoHandle, a: str, b: str) -> str | None:
    """The merge base git picks for two commits (:func:`merge_bases`), or None."""
    found = merge_bases(repo, a, b, every=False)
    return found[0] if found else None


def count_between(repo: RepoHandle, old: str, new: str) -> int:
    """Commits reachable from ``new`` and not from ``old``."""
    a, b = _start(repo, old), _start(repo, new)
    if a is None or b is None:
        return 0
    return int(repo.runner.text(["rev-list", "--count", "--end-of-options", b, f"^{a}", "--"]).strip() or 0)
