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
* flags forced after the sub-command (:data:`FORCED_FLAGS`): transport commands use git's own
  upload-pack/receive-pack whatever ``remote.<name>.uploadpack`` says, diff-producing commands
  never run textconv or an external diff; ``core.sshCommand``/``core.askPass`` from any config
  file are reset to the user's global value, and ``GIT_PROXY_COMMAND=""`` switches ``core.gitProxy``
  off. A repo whose ``core.worktree`` points elsewhere is refused by :class:`GitRepo`;
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
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, Unpack

from amr_tui.git.errors import (
    GitError,
    GitNotFoundError,
    GitTimeoutError,
    LockedError,
    NotARepoError,
    UnsafeRepoError,
)
from amr_tui.git.overrides import (  # noqa: F401  (BASE_CONFIG, AMR_MERGE_DRIVER re-exported)
    AMR_MERGE_DRIVER,
    BASE_CONFIG,
    CACHE,
    FORCED_FLAGS,
    TRUSTED_SCOPE_KEYS,
    RepoInfo,
    attribute_driver_names,
    repo_overrides,
)

DEFAULT_TIMEOUT = 60.0
DEFAULT_LOCK_TIMEOUT = 3.0

# Environment variables that could redirect git to another repo, index, program or config.
_STRIPPED_ENV = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
        "GIT_EXTERNAL_DIFF",
        "GIT_DIFF_OPTS",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_PAGER",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR",
        "GIT_QUARANTINE_PATH",
        "GIT_SHALLOW_FILE",
        "GIT_GRAFT_FILE",
        "GIT_REPLACE_REF_BASE",
        "GIT_GLOB_PATHSPECS",
        "GIT_NOGLOB_PATHSPECS",
        "GIT_ICASE_PATHSPECS",
        "GIT_REFLOG_ACTION",
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
# Environment and error classification


def build_env(
    extra_env: Mapping[str, str] | None,
    config: Sequence[tuple[str, str]],
    *,
    write: bool,
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV and not k.startswith(_STRIPPED_PREFIXES)}
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
    env.setdefault("GIT_PROXY_COMMAND", "")  # set: core.gitProxy from config is never consulted
    # Never prompt: an empty GIT_ASKPASS stops git's askpass chain (core.askPass, SSH_ASKPASS),
    # and ssh neither asks through a program nor on the terminal.
    env.update(GIT_ASKPASS="", SSH_ASKPASS="", SSH_ASKPASS_REQUIRE="never")
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    if write:
        env.pop("GIT_OPTIONAL_LOCKS", None)
    else:
        env["GIT_OPTIONAL_LOCKS"] = "0"
    for i, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


class RunOptions(TypedDict, total=False):
    """The keyword arguments of :meth:`GitRunner.run` (for :meth:`GitRunner.text` and :func:`run_git`)."""

    input: bytes | None
    write: bool
    env: Mapping[str, str] | None
    check: bool
    ok: Sequence[int]
    timeout: float | None
    retry_locked: bool


def _is_lock_error(stderr: str) -> bool:
    return ".lock': File exists" in stderr


def classify_error(returncode: int, stderr: str, args: Sequence[str], cwd: Path) -> GitError:
    if "detected dubious ownership" in stderr:
        return UnsafeRepoError(
            returncode,
            stderr,
            args,
            message=(
                f"Git refuses to work in {cwd}: the repository belongs to another user "
                f'("dubious ownership"). amr will not override that. If you trust this '
                f"repository, mark it safe yourself with git's safe.directory setting, or work "
                f"on a copy you own."
            ),
        )
    if "not a git repository" in stderr or "must be run in a work tree" in stderr:
        return NotARepoError(returncode, stderr, args, message=f"{cwd} is not inside a git repository")
    if _is_lock_error(stderr):
        lock = re.search(r"Unable to create '([^']*\.lock)'", stderr)
        where = lock.group(1) if lock else "a lock file"
        return LockedError(
            returncode,
            stderr,
            args,
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
        info: RepoInfo | None = None,
    ):
        self.cwd = Path(cwd)
        self.env = dict(env or {})
        self.config = tuple(config)
        self.merge_drivers = dict(merge_drivers or {})
        self.timeout = timeout
        self.lock_timeout = lock_timeout
        self._info: RepoInfo | None = info  # given: a runner in the same work tree already asked git

    def repo_info(self) -> RepoInfo | None:
        """The work tree ``cwd`` is in (its git dir, common dir, top), asked of git once per runner;
        None when ``cwd`` is in no work tree."""
        base = list(BASE_CONFIG) + list(self.config)
        return self._repo_info(build_env(self.env, base, write=False))

    # -- repo discovery -------------------------------------------------------------------
    def _repo_info(self, env: dict[str, str]) -> RepoInfo | None:
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
        self._info = RepoInfo(Path(lines[0]), common, Path(lines[2]))
        return self._info

    def _load_overrides(self, info: RepoInfo, env: dict[str, str]) -> tuple[list[tuple[str, str]], bool]:
        args = [
            "config",
            "-z",
            "--get-regexp",
            r"^(filter|diff|merge|include|includeif)\.|^core\.(sshcommand|askpass|alternaterefscommand)$",
        ]
        res = self._exec(args, None, env, self.timeout)
        if res.returncode not in (0, 1):
            raise classify_error(res.returncode, res.stderr, args, self.cwd)
        trusted: dict[str, str] = {}
        keys = {rec.split(b"\n", 1)[0].decode("utf-8", "replace").lower() for rec in res.stdout.split(b"\0")}
        if keys & set(TRUSTED_SCOPE_KEYS):  # the user's own (global) value is the one to keep
            glob = self._exec(
                ["config", "-z", "--global", "--includes", "--get-regexp", r"^core\.(sshcommand|askpass)$"],
                None,
                env,
                self.timeout,
            )
            for rec in glob.stdout.split(b"\0") if glob.returncode == 0 else []:
                key, _, value = rec.decode("utf-8", "surrogateescape").partition("\n")
                if key:
                    trusted[key.lower()] = value
        uses_include = any(
            rec.split(b"\n", 1)[0].lower().startswith((b"include.", b"includeif.")) for rec in res.stdout.split(b"\0")
        )
        names = attribute_driver_names([info.toplevel / ".gitattributes", info.common_dir / "info" / "attributes"])
        return repo_overrides(res.stdout, names, self.merge_drivers, trusted), not uses_include

    def _config_for_call(self, extra_env: Mapping[str, str] | None) -> list[tuple[str, str]]:
        base = list(BASE_CONFIG) + list(self.config)
        probe_env = build_env({**self.env, **(extra_env or {})}, base, write=False)
        info = self._repo_info(probe_env)
        if info is None:
            return base
        per_repo = CACHE.get(
            info, probe_env, lambda: self._load_overrides(info, probe_env), tuple(sorted(self.merge_drivers.items()))
        )
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
        if args and args[0] in FORCED_FLAGS:  # see FORCED_FLAGS: no upload-pack, textconv... of the repo's
            args = [args[0], *FORCED_FLAGS[args[0]], *args[1:]]
        config = self._config_for_call(env)
        full_env = build_env({**self.env, **(env or {})}, config, write=write)
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.01
        while True:
            res = self._exec(args, input, full_env, timeout or self.timeout)
            if res.returncode in ok or not check:
                return res
            if retry_locked and _is_lock_error(res.stderr) and time.monotonic() < deadline:
                time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
                delay = min(delay * 2, 0.1)
                continue
            raise classify_error(res.returncode, res.stderr, args, self.cwd)

    def text(self, args: Sequence[str], **kwargs: Unpack[RunOptions]) -> str:
        """Like :meth:`run` but returns stdout as text (UTF-8, surrogate escapes)."""
        return self.run(args, **kwargs).text


def run_git(cwd: str | os.PathLike[str], args: Sequence[str], **kwargs: Unpack[RunOptions]) -> GitResult:
    """One-off hardened git call in ``cwd``."""
    return GitRunner(cwd).run(args, **kwargs)
