"""Facts about a code repo that ``amr verify`` judges memory against, read with git.

A code repo is someone else's repo, exactly like a memory repo: every call goes through the
hardened runner (its config cannot make git run a program: no hooks, filters, textconv, external
diff), data-derived arguments come after ``--end-of-options``, and nothing from the repo is ever
run. Each function is one git call or a few, so a caller can gather what it needs once per HEAD:

* :func:`files_at`: every file at a commit (``ls-tree``);
* :func:`path_changes`: the newest deletion or rename of every path history knows
  (``log -M --diff-filter=DR --name-status``);
* :func:`manifest_facts`: the scripts and targets declared now, and when each one that is not any
  more was dropped or renamed (the manifests' blobs over history, read with ``cat-file --batch``);
* :func:`grep_words`: which identifiers occur at a commit (one ``git grep -w -F -f -``);
* :func:`word_removals`: for identifiers absent now, the commit that removed them and, when the
  same commit wrote the line back with another name in its place, that name (one ``log -p``);
* :func:`branch_facts`: the branches now, and branches merged and deleted (merge subjects);
* :func:`commit_facts`, :func:`reverts`: cited commits, and the commits that reverted others.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

from amr_tui.core.verify import manifests
from amr_tui.core.verify.verdict import Change, CommitFact
from amr_tui.git.handle import RepoHandle

_MARK = "amrv" + secrets.token_hex(6)
_SEP = b"\x00\x01" + _MARK.encode() + b"\x00"
_HEADER = f"--format=%x00%x01{_MARK}%x00%H%x00%cI%x00%s%x00"
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{40}|[0-9a-f]{64})")
_MERGE_SUBJECTS = (
    re.compile(r"^Merge remote-tracking branch '[^'/]+/([^']+)'"),
    re.compile(r"^Merge branch '([^']+)'"),
    re.compile(r"^Merge pull request #\d+ from [^/\s]+/(\S+)"),
    re.compile(r"^Merge branch \"([^\"]+)\""),
)
_NO_DIFF_PROGRAMS = ("--no-ext-diff", "--no-textconv", "--no-color")
MAX_PATCH_COMMITS = 5000  # word_removals reads at most this many commits back


def _dec(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _records(out: bytes) -> list[tuple[str, str, str, bytes]]:
    """``(oid, date, subject, rest)`` of each commit of a log printed with ``_HEADER``."""
    found = []
    for rec in out.split(_SEP)[1:]:
        parts = rec.split(b"\x00", 3)
        if len(parts) < 3:
            continue
        oid, date, subject = _dec(parts[0]), _dec(parts[1])[:10], _dec(parts[2])
        found.append((oid, date, subject, parts[3] if len(parts) > 3 else b""))
    return found


def files_at(repo: RepoHandle, rev: str) -> set[str]:
    """Every file (blob or symlink) in ``rev``'s tree."""
    out = repo.runner.run(["ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", rev]).stdout
    return {_dec(p) for p in out.split(b"\0") if p}


def path_changes(repo: RepoHandle, rev: str) -> dict[str, Change]:
    """``old path -> the newest commit that deleted or renamed it`` (``to`` the new path)."""
    out = repo.runner.run(
        [
            "log",
            _HEADER,
            "--name-status",
            "-z",
            "--diff-filter=DR",
            "-M",
            *_NO_DIFF_PROGRAMS,
            "--end-of-options",
            rev,
            "--",
        ]
    ).stdout
    found: dict[str, Change] = {}
    for oid, date, subject, rest in _records(out):
        fields = [p.strip(b"\n") for p in rest.split(b"\x00")]
        fields = [f for f in fields if f]
        i = 0
        while i < len(fields):
            status = _dec(fields[i])
            if status[:1] == "R" and i + 2 < len(fields):
                old, new = _dec(fields[i + 1]), _dec(fields[i + 2])
                found.setdefault(old, Change(oid, date, subject, new))
                i += 3
            elif status[:1] == "D" and i + 1 < len(fields):
                found.setdefault(_dec(fields[i + 1]), Change(oid, date, subject))
                i += 2
            else:
                i += 1
    return found


def read_objects(repo: RepoHandle, specs: list[str]) -> list[bytes | None]:
    """The bytes of each blob named (an object id or ``rev:path``), in order, in one
    ``cat-file --batch``; None for a name that is no blob, or a blob over 1 MiB."""
    if not specs:
        return []
    out = repo.runner.run(
        ["cat-file", "--batch"], input="".join(s + "\n" for s in specs).encode("utf-8", "surrogateescape")
    ).stdout
    found: list[bytes | None] = []
    pos = 0
    while pos < len(out) and len(found) < len(specs):
        nl = out.find(b"\n", pos)
        if nl == -1:
            break
        header = out[pos:nl].split(b" ")
        pos = nl + 1
        if len(header) != 3 or not header[2].isdigit():
            found.append(None)  # "<name> missing", "ambiguous"
            continue
        size = int(header[2])
        found.append(out[pos : pos + size] if header[1] == b"blob" and size <= 1 << 20 else None)
        pos += size + 1
    return found + [None] * (len(specs) - len(found))


def read_blobs(repo: RepoHandle, oids: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each blob by its id (one ``cat-file --batch``); blobs over 1 MiB are skipped."""
    wanted = sorted({o for o in oids if o and set(o) != {"0"}})
    return {o: d for o, d in zip(wanted, read_objects(repo, wanted), strict=True) if d is not None}


def manifest_facts(
    repo: RepoHandle, rev: str, files: set[str], changes: dict[str, Change]
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, Change]]]:
    """The scripts and targets declared at ``rev`` (family -> name -> command, every manifest of a
    family together), and the newest drop or rename of each name declared before and not now."""
    paths = sorted(p for p in files | set(changes) if manifests.family(p) is not None)
    if not paths:
        return {}, {}
    out = repo.runner.run(
        [
            "log",
            _HEADER,
            "--raw",
            "--no-abbrev",
            "--no-renames",
            "-z",
            *_NO_DIFF_PROGRAMS,
            "--end-of-options",
            rev,
            "--",
            *paths,
        ]
    ).stdout
    records = _records(out)
    steps: list[tuple[str, str, str, str, str, str]] = []  # oid, date, subject, path, old blob, new blob
    for oid, date, subject, rest in records:
        fields = [f for f in rest.split(b"\x00") if f.strip(b"\n")]
        i = 0
        while i + 1 < len(fields):
            meta = _dec(fields[i].strip(b"\n"))
            if meta.startswith(":"):
                parts = meta[1:].split(" ")
                if len(parts) >= 5:
                    steps.append((oid, date, subject, _dec(fields[i + 1]), parts[2], parts[3]))
                i += 2
            else:
                i += 1
    blobs = read_blobs(repo, [s[4] for s in steps] + [s[5] for s in steps])
    now: dict[str, dict[str, str]] = {}
    current = sorted(p for p in files if manifests.family(p) is not None)
    for path, data in zip(current, read_objects(repo, [f"{rev}:{p}" for p in current]), strict=True):
        if data is not None:
            for name, cmd in manifests.read(path, data).items():
                now.setdefault(manifests.family(path) or "", {}).setdefault(name, cmd)
    dropped: dict[str, dict[str, Change]] = {}
    for oid, date, subject, path, old_blob, new_blob in steps:  # newest first: the first change wins
        fam = manifests.family(path) or ""
        old = manifests.read(path, blobs[old_blob]) if old_blob in blobs else {}
        new = manifests.read(path, blobs[new_blob]) if new_blob in blobs else {}
        removed, renamed = manifests.changes(old, new)
        for name in removed:
            if name in now.get(fam, {}):
                continue
            dropped.setdefault(fam, {}).setdefault(name, Change(oid, date, subject, renamed.get(name)))
    return now, dropped


def grep_words(repo: RepoHandle, rev: str, words: Iterable[str]) -> set[str]:
    """Which of ``words`` occur as whole words in ``rev``'s text files (one ``git grep``)."""
    wanted = sorted({w for w in words if w and "\n" not in w and "\0" not in w})
    if not wanted:
        return set()
    if not _OID.fullmatch(rev):  # git grep takes no --end-of-options: only an object id goes there
        raise ValueError(f"not an object id: {rev!r}")
    found: set[str] = set()
    for start in range(0, len(wanted), 5000):
        chunk = wanted[start : start + 5000]
        res = repo.runner.run(
            ["grep", "-I", "-o", "-h", "-w", "-F", "--no-color", "-f", "-", rev, "--"],
            input="".join(w + "\n" for w in chunk).encode("utf-8", "surrogateescape"),
            ok=(0, 1),
        )
        found.update(_dec(m) for m in res.stdout.split(b"\n") if m)
    return found & set(wanted)


def _rename_in(removed: list[bytes], added: list[bytes], word: bytes) -> str | None:
    """The name that took ``word``'s place: an added line equal to a removed line holding
    ``word`` but for that one identifier."""
    pattern = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(word) + rb"(?![A-Za-z0-9_])")
    for line in removed:
        if not pattern.search(line):
            continue
        before = set(_IDENT.findall(line))
        for cand in added:
            new = set(_IDENT.findall(cand)) - before
            if len(new) != 1:
                continue
            other = next(iter(new))
            if pattern.sub(other.replace(b"\\", b"\\\\"), line).strip() == cand.strip():
                return _dec(other)
    return None


def word_removals(
    repo: RepoHandle, rev: str, words: Iterable[str], *, max_commits: int = MAX_PATCH_COMMITS
) -> dict[str, Change | None]:
    """For identifiers not at ``rev``: the newest commit whose patch removed a line holding it,
    with the name that replaced it when the same commit wrote the line back renamed; None for a
    word no patch of the last ``max_commits`` commits removed (never in history)."""
    wanted = {w.encode("utf-8", "surrogateescape") for w in words if w}
    result: dict[str, Change | None] = {_dec(w): None for w in wanted}
    if not wanted:
        return result
    out = repo.runner.run(
        [
            "log",
            _HEADER,
            "-p",
            "-U0",
            "--no-renames",
            *_NO_DIFF_PROGRAMS,
            "--no-merges",
            f"-n{max_commits}",
            "--end-of-options",
            rev,
            "--",
        ]
    ).stdout
    left = set(wanted)
    for oid, date, subject, rest in _records(out):
        if not left:
            break
        removed: list[bytes] = []
        added: list[bytes] = []
        in_header = True
        for line in rest.split(b"\n"):
            if line.startswith(b"diff --git "):
                in_header = True
            elif line.startswith(b"@@"):
                in_header = False
            elif not in_header and line.startswith(b"-"):
                removed.append(line[1:])
            elif not in_header and line.startswith(b"+"):
                added.append(line[1:])
        if not removed:
            continue
        hits = set()
        for line in removed:
            hits.update(set(_IDENT.findall(line)) & left)
        for word in hits:
            result[_dec(word)] = Change(oid, date, subject, _rename_in(removed, added, word))
        left -= hits
    return result


def branch_facts(repo: RepoHandle, rev: str) -> tuple[set[str], dict[str, Change]]:
    """The branch names now (local, and remote without the remote's name), and the branches whose
    merge commit is in ``rev``'s history (``Merge branch 'x'``, ``Merge pull request #1 from o/x``)."""
    refs = repo.runner.text(["for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes"])
    names: set[str] = set()
    for ref in refs.splitlines():
        if ref.startswith("refs/heads/"):
            names.add(ref[len("refs/heads/") :])
        elif ref.startswith("refs/remotes/"):
            rest = ref[len("refs/remotes/") :].split("/", 1)
            if len(rest) == 2 and rest[1] != "HEAD":
                names.add(rest[1])
    out = repo.runner.run(["log", _HEADER, "--merges", "--end-of-options", rev, "--"]).stdout
    merged: dict[str, Change] = {}
    for oid, date, subject, _rest in _records(out):
        for rx in _MERGE_SUBJECTS:
            m = rx.match(subject)
            if m:
                merged.setdefault(m.group(1), Change(oid, date, subject))
                break
    return names, merged


def reverts(repo: RepoHandle, rev: str) -> dict[str, Change]:
    """``reverted commit -> the commit that reverted it`` (``This reverts commit <id>``)."""
    out = repo.runner.run(
        ["log", _HEADER + "%b", "--fixed-strings", "--grep=This reverts commit", "--end-of-options", rev, "--"]
    ).stdout
    found: dict[str, Change] = {}
    for oid, date, subject, body in _records(out):
        for m in _REVERTS.finditer(_dec(body)):
            found.setdefault(m.group(1), Change(oid, date, subject))
    return found


def commit_facts(repo: RepoHandle, rev: str, prefixes: Iterable[str]) -> dict[str, CommitFact | None]:
    """Each written commit id (a prefix) -> the commit, or None when the repo has none (or
    several) by that prefix."""
    wanted = sorted({p for p in prefixes if re.fullmatch(r"[0-9a-f]{7,64}", p)})
    result: dict[str, CommitFact | None] = {p: None for p in wanted}
    if not wanted:
        return result
    out = repo.runner.run(["cat-file", "--batch-check"], input="".join(f"{p}^{{commit}}\n" for p in wanted).encode())
    oids: dict[str, str] = {}
    for prefix, line in zip(wanted, out.text.splitlines(), strict=False):
        fields = line.split(" ")
        if len(fields) == 3 and fields[1] == "commit":
            oids[prefix] = fields[0]
    if not oids:
        return result
    show = repo.runner.run(
        ["log", _HEADER, "--no-walk=unsorted", "--end-of-options", *sorted(set(oids.values())), "--"]
    ).stdout
    info = {oid: (date, subject) for oid, date, subject, _rest in _records(show)}
    for prefix, oid in oids.items():
        on_head = (
            repo.runner.run(["merge-base", "--is-ancestor", "--end-of-options", oid, rev], check=False).returncode == 0
        )
        date, subject = info.get(oid, ("", ""))
        result[prefix] = CommitFact(oid, date, subject, on_head)
    return result


__all__ = [
    "MAX_PATCH_COMMITS",
    "branch_facts",
    "commit_facts",
    "files_at",
    "grep_words",
    "manifest_facts",
    "path_changes",
    "read_blobs",
    "read_objects",
    "reverts",
    "word_removals",
]
