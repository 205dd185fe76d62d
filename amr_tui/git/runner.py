"""The one hardened way amr runs git.

Every git process amr starts goes through :func:`run_git` / :class:`GitRunner`:

* list arguments, never a shell; stdin is closed unless input is given;
* a cleaned environment (no inherited ``GIT_DIR``/``GIT_INDEX_FILE``/``GIT_EXEC_PATH``/... that could
  point git somewhere else) plus ``GIT_CONFIG_NOSYSTEM=1``, ``GIT_TERMINAL_PROMPT=0``,
  ``GIT_PAGER=cat``, ``LC_ALL=C``, ``GIT_LITERAL_PATHSPECS=1`` and, for read-only calls,
  ``GIT_OPTIONAL_LOCKS=0``;
* ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` overrides, which beat repository
  config and its includes, switching off everything in config that runs a program: fsmonitor,
  hooks, pagers, external diff, signatures, editors, auto gc, and, per repository, every configured
  clean/smudge/process filter, textconv/diff command and merge driver (see :func:`repo_overrides`);
* lock errors (``index.lock``, ref locks) retried with backoff for a few seconds, then
  :class:`LockedError`. Lock files are never deleted;
* errors classified into :mod:`amr_tui.git.errors` classes.

Values that come from data (refs, paths) must go after :func:`end_of_options` or ``--`` so that a
ref named ``--output=x.txt`` can never be read as an option.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from amr_tui.git.errors import (
    GitError,
    GitNotFoundError,
    GitTimeoutError,
    LockedError,
    NotARepoError,
    UnsafeRepoError,
)

DEFAULT_TIMEOUT = 60.0
DEFAULT_LOCK_TIMEOUT = 3.0

#: Config that beats repo config on every call. A value of "" empties the setting.
BASE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("core.attributesFile", "/dev/null"),  # only the repo's own .gitattributes apply
    ("core.untrackedCache", "false"),
    ("log.showSignature", "false"),
    ("diff.external", ""),
    ("protocol.ext.allow", "never"),
    ("credential.helper", ""),
    ("submodule.recurse", "false"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("user.useConfigOnly", "true"),  # never guess an identity from the host name
)

#: Name of amr's own merge driver. It is blanked like any other unless the caller passes its
#: command in ``merge_drivers`` (then amr's command wins over whatever the repo config says).
AMR_MERGE_DRIVER = "amr"

# Environment variables that could redirect git to another repo, index, program or config.
_STRIPPED_ENV = frozenset(
    {
        "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
        "GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER",
        "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR", "GIT_QUARANTINE_PATH", "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE",
        "GIT_REPLACE_REF_BASE", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS",
        "GIT_ICASE_PATHSPECS", "GIT_REFLOG_ACTION",
    }
)
_STRIPPED_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")


@functools.lru_cache(maxsize=1)
def git_binary() -> str:
    """Absolute path of the git executable, resolved once.

    ``AMR_GIT`` may name it explicitly. Relative ``PATH`` entries are ignored so a ``git`` file
    inside the current folder (a hostile repo) can never be picked up.
    """
    explicit = os.environ.get("AMR_GIT")
    if explicit:
        if os.path.isabs(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise GitNotFoundError(f"AMR_GIT={explicit!r} is not an absolute path to an executable")
    search = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p))
    found = shutil.which("git", path=search)
    if not found:
        raise GitNotFoundError("git was not found on PATH; amr needs git 2.30 or newer")
    return os.path.abspath(found)


def end_of_options(*values: str) -> list[str]:
    """``["--end-of-options", *values]``: put data-derived refs after every option."""
    return ["--end-of-options", *values]


def paths_after_dashdash(*paths: str) -> list[str]:
    """``["--", *paths]``: pathspecs that came from data (pathspecs are literal, see module doc)."""
    return ["--", *paths]


@dataclass(frozen=True)
class GitResult:
    args: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: str

    @property
    def text(self) -> str:
        """stdout decoded as UTF-8; undecodable bytes survive as surrogate escapes."""
        return self.stdout.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------------------------------------
# Per-repository overrides for filters, textconv, diff commands and merge drivers


@dataclass(frozen=True)
class _RepoInfo:
    git_dir: Path
    common_dir: Path
    toplevel: Path


_ATTR_DRIVER = re.compile(r"(?:^|\s)(filter|diff|merge)=(\S+)")


def _attribute_driver_names(files: Sequence[Path]) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {"filter": set(), "diff": set(), "merge": set()}
    for f in files:
        try:
            text = f.read_bytes()[:1_000_000].decode("utf-8", "replace")
        except OSError:
            continue
        for kind, name in _ATTR_DRIVER.findall(text):
            names[kind].add(name)
    return names


def repo_overrides(
    config_dump: bytes,
    attribute_names: Mapping[str, set[str]] | None = None,
    merge_drivers: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """Overrides that disarm every configured filter, diff driver and merge driver.

    ``config_dump`` is the output of ``git config -z --get-regexp '^(filter|diff|merge)\\.'``.
    Only drivers that are *configured* can run a program (an attribute naming an unconfigured
    driver does nothing), so the config is what makes this complete; names found in
    ``.gitattributes`` are blanked too as a second line of defence. ``merge_drivers`` maps a driver
    name (normally ``"amr"``) to the command amr wants git to use instead.
    """
    filters: set[str] = set()
    diffs: set[str] = set()
    merges: set[str] = set()
    for record in config_dump.split(b"\0"):
        key = record.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        first, last = key.find("."), key.rfind(".")
        if first <= 0 or last <= first:
            continue
        section, name = key[:first].lower(), key[first + 1 : last]
        {"filter": filters, "diff": diffs, "merge": merges}.get(section, set()).add(name)
    if attribute_names:
        filters |= attribute_names.get("filter", set())
        diffs |= attribute_names.get("diff", set())
        merges |= attribute_names.get("merge", set())
    merge_drivers = dict(merge_drivers or {})
    out: list[tuple[str, str]] = []
    for name in sorted(filters):
        out += [(f"filter.{name}.clean", ""), (f"filter.{name}.smudge", ""),
                (f"filter.{name}.process", ""), (f"filter.{name}.required", "false")]
    for name in sorted(diffs):
        out += [(f"diff.{name}.textconv", ""), (f"diff.{name}.command", "")]
    for name in sorted(merges | set(merge_drivers)):
        out.append((f"merge.{name}.driver", merge_drivers.get(name, "")))
    return out


class _OverrideCache:
    """Caches per-repo overrides keyed by the identity of every config file that could define them.

    When the config uses ``include``/``includeIf`` the set of files is open-ended, so nothing is
    cached and the config is read again on every call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[Path, tuple[tuple, list[tuple[str, str]]]] = {}

    @staticmethod
    def _stamp(paths: Sequence[Path]) -> tuple:
        out = []
        for p in paths:
            try:
                st = os.stat(p)
                out.append((str(p), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
            except OSError:
                out.append((str(p), None))
        return tuple(out)

    def get(self, info: _RepoInfo, env: Mapping[str, str], load) -> list[tuple[str, str]]:
        home = env.get("HOME", "")
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files = [
            info.common_dir / "config", info.git_dir / "config.worktree",
            info.common_dir / "config.worktree", Path(home) / ".gitconfig",
            Path(xdg) / "git" / "config", info.toplevel / ".gitattributes",
            info.common_dir / "info" / "attributes",
        ]
        if env.get("GIT_CONFIG_GLOBAL"):
            files.append(Path(env["GIT_CONFIG_GLOBAL"]))
        stamp = self._stamp(files)
        with self._lock:
            hit = self._entries.get(info.git_dir)
            if hit and hit[0] == stamp:
                return hit[1]
        overrides, cacheable = load()
        if cacheable:
            with self._lock:
                self._entries[info.git_dir] = (stamp, overrides)
        return overrides


_CACHE = _OverrideCache()


# ---------------------------------------------------------------------------------------------
# Environment and error classification


def build_env(
    extra_env: Mapping[str, str] | None,
    config: Sequence[tuple[str, str]],
    *,
    write: bool,
) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _STRIPPED_ENV and not k.startswith(_STRIPPED_PREFIXES)
    }
    if extra_env:
        env.update(extra_env)
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        LC_ALL="C",
        LANGUAGE="C",
        GIT_LITERAL_PATHSPECS="1",
        GIT_CONFIG_COUNT=str(len(config)),
    )
    if write:
        env.pop("GIT_OPTIONAL_LOCKS", None)
    else:
        env["GIT_OPTIONAL_LOCKS"] = "0"
    for i, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def _is_lock_error(stderr: str) -> bool:
    return ".lock': File exists" in stderr


def classify_error(returncode: int, stderr: str, args: Sequence[str], cwd: Path) -> GitError:
    if "detected dubious ownership" in stderr:
        return UnsafeRepoError(
            returncode, stderr, args,
            message=(
                f"Git refuses to work in {cwd}: the repository belongs to another user "
                f"(\"dubious ownership\"). amr will not override that. If you trust this "
                f"repository, mark it safe yourself with git's safe.directory setting, or work "
                f"on a copy you own."
            ),
        )
    if "not a git repository" in stderr:
        return NotARepoError(returncode, stderr, args, message=f"{cwd} is not inside a git repository")
    if _is_lock_error(stderr):
        lock = re.search(r"Unable to create '([^']*\.lock)'", stderr)
        where = lock.group(1) if lock else "a lock file"
        return LockedError(
            returncode, stderr, args,
            message=(
                f"Another git process holds {where}. amr waited and gave up; it never deletes "
                f"lock files. If no git process is running, remove that file yourself."
            ),
        )
    return GitError(returncode, stderr, args)


# ---------------------------------------------------------------------------------------------
# The runner


class GitRunner:
    """Runs git in one folder (normally a work tree's top level) with the hardening above.

    ``env``: extra environment for every call (e.g. fixed dates); ``config``: extra
    ``(key, value)`` overrides applied after the defaults (e.g. a credential helper for sync);
    ``merge_drivers``: see :func:`repo_overrides`.
    """

    def __init__(
        self,
        cwd: str | os.PathLike[str],
        *,
        env: Mapping[str, str] | None = None,
        config: Sequence[tuple[str, str]] = (),
        merge_drivers: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ):
        self.cwd = Path(cwd)
        self.env = dict(env or {})
        self.config = tuple(config)
        self.merge_drivers = dict(merge_drivers or {})
        self.timeout = timeout
        self.lock_timeout = lock_timeout
        self._info: _RepoInfo | None = None

    # -- repo discovery -------------------------------------------------------------------
    def _repo_info(self, env: dict[str, str]) -> _RepoInfo | None:
        if self._info is not None:
            return self._info
        args = ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"]
        res = self._exec(args, None, env, self.timeout)
        if res.returncode != 0:
            err = classify_error(res.returncode, res.stderr, args, self.cwd)
            if isinstance(err, NotARepoError) or "must be run in a work tree" in res.stderr:
                return None  # not (yet) a repo: nothing repo-local to disarm
            raise err
        lines = res.text.splitlines()
        if len(lines) < 3:
            return None
        common = Path(lines[1])
        if not common.is_absolute():
            common = (self.cwd / common).resolve()
        self._info = _RepoInfo(Path(lines[0]), common, Path(lines[2]))
        return self._info

    def _load_overrides(self, info: _RepoInfo, env: dict[str, str]) -> tuple[list[tuple[str, str]], bool]:
        args = ["config", "-z", "--get-regexp", r"^(filter|diff|merge|include|includeif)\."]
        res = self._exec(args, None, env, self.timeout)
        if res.returncode not in (0, 1):
            raise classify_error(res.returncode, res.stderr, args, self.cwd)
        uses_include = any(
            rec.split(b"\n", 1)[0].lower().startswith((b"include.", b"includeif."))
            for rec in res.stdout.split(b"\0")
        )
        names = _attribute_driver_names(
            [info.toplevel / ".gitattributes", info.common_dir / "info" / "attributes"]
        )
        return repo_overrides(res.stdout, names, self.merge_drivers), not uses_include

    def _config_for_call(self, extra_env: Mapping[str, str] | None) -> list[tuple[str, str]]:
        base = list(BASE_CONFIG) + list(self.config)
        probe_env = build_env({**self.env, **(extra_env or {})}, base, write=False)
        info = self._repo_info(probe_env)
        if info is None:
            return base
        per_repo = _CACHE.get(info, probe_env, lambda: self._load_overrides(info, probe_env))
        return base + per_repo

    # -- execution ------------------------------------------------------------------------
    def _exec(self, args: Sequence[str], input: bytes | None, env: dict[str, str], timeout: float) -> GitResult:
        argv = [git_binary(), *args]
        try:
            proc = subprocess.run(
                argv,
                cwd=self.cwd,
                env=env,
                input=input,
                stdin=subprocess.DEVNULL if input is None else None,
                capture_output=True,
                timeout=timeout,
                shell=False,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise GitTimeoutError(
                -1,
                (exc.stderr or b"").decode("utf-8", "replace"),
                args,
                message=f"git {' '.join(args[:2])} took longer than {timeout:g} s and was stopped",
            ) from None
        except FileNotFoundError as exc:
            if not self.cwd.is_dir():
                raise NotARepoError(-1, str(exc), args, message=f"{self.cwd} does not exist") from None
            raise GitNotFoundError(str(exc)) from None
        return GitResult(tuple(args), proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))

    def run(
        self,
        args: Sequence[str],
        *,
        input: bytes | None = None,
        write: bool = False,
        env: Mapping[str, str] | None = None,
        check: bool = True,
        ok: Sequence[int] = (0,),
        timeout: float | None = None,
        retry_locked: bool = True,
    ) -> GitResult:
        """Run ``git *args``. Returns the result; raises a :class:`GitError` subclass when the
        exit code is not in ``ok`` (unless ``check=False``)."""
        config = self._config_for_call(env)
        full_env = build_env({**self.env, **(env or {})}, config, write=write)
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.02
        while True:
            res = self._exec(args, input, full_env, timeout or self.timeout)
            if res.returncode in ok or not check:
                return res
            if retry_locked and _is_lock_error(res.stderr) and time.monotonic() < deadline:
                time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
                delay = min(delay * 2, 0.25)
                continue
            raise classify_error(res.returncode, res.stderr, args, self.cwd)

    def text(self, args: Sequence[str], **kwargs) -> str:
        """Like :meth:`run` but returns stdout as text (UTF-8, surrogate escapes)."""
        return self.run(args, **kwargs).text


def run_git(cwd: str | os.PathLike[str], args: Sequence[str], **kwargs) -> GitResult:
    """One-off hardened git call in ``cwd``."""
    return GitRunner(cwd).run(args, **kwargs)
