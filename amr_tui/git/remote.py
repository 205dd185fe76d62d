"""Talking to remotes: fetch, push (never forced), ahead/behind, and why a call failed.

Everything runs through the hardened runner. Network calls add, for that call only:

* the user's own credential helpers (``credential.helper`` and ``credential.<url>.helper`` from
  the *global* config; a repo's own config cannot name a helper, since a helper is a program).
  amr stores no credentials and never prompts (``GIT_TERMINAL_PROMPT=0``);
* ``transfer.fsckObjects=true``, ``protocol.ext.allow=never``, no submodule recursion.

Failures are classified: :class:`OfflineError` (the remote cannot be reached: no network, DNS,
refused connection, timeout), :class:`AuthError`, :class:`PushRejectedError` (``non_fast_forward``
is True when someone pushed first: fetch, merge and push again), :class:`NoRemoteError`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from amr_tui.git.errors import AmrGitError, GitError, GitTimeoutError
from amr_tui.git.handle import RepoHandle
from amr_tui.git.runner import GitRunner, end_of_options

NETWORK_TIMEOUT = 120.0

_OFFLINE = re.compile(
    r"Could not resolve host|Could not resolve hostname|unable to connect to|Connection refused|"
    r"Network is unreachable|No route to host|Connection timed out|Operation timed out|"
    r"Failed to connect to|unable to look up|Temporary failure in name resolution|"
    r"Name or service not known|nodename nor servname|Connection reset by peer|"
    r"ssh: connect to host|Could not connect to|network is down",
    re.IGNORECASE,
)
# Why the remote would not let us in, most specific first: each has its own advice.
_AUTH_NONE = re.compile(r"could not read Username|could not read Password|terminal prompts disabled", re.IGNORECASE)
_AUTH_HOSTKEY = re.compile(r"Host key verification failed", re.IGNORECASE)
_AUTH = re.compile(
    r"Authentication failed|Permission denied \(|HTTP Basic: Access denied|"
    r"The requested URL returned error: 40[13]|Invalid username or password",
    re.IGNORECASE,
)
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*@)")


class NoRemoteError(AmrGitError):
    """The repository has no such remote (or no remote at all)."""


class OfflineError(GitError):
    """The remote could not be reached. Nothing changed; try again when online."""


class AuthError(GitError):
    """The remote refused our credentials (or wanted some and git may not prompt)."""


class PushRejectedError(GitError):
    """The remote refused the push. ``non_fast_forward``: someone pushed first."""

    def __init__(self, returncode: int, stderr: str, args: Sequence[str], *, non_fast_forward: bool, reason: str):
        kind = "someone else pushed first" if non_fast_forward else f"the remote refused it ({reason})"
        super().__init__(returncode, stderr, args, message=f"push rejected: {kind}")
        self.non_fast_forward = non_fast_forward
        self.reason = reason


def redact_url(url: str) -> str:
    """``url`` without its ``user:password@`` part, so a credential written into a remote URL is
    never shown (git's own messages leave it out too)."""
    return _USERINFO.sub(r"\1", url, count=1)


def classify_network_error(exc: GitError, url: str = "", remote: str = "") -> GitError:
    """Turn a failed fetch/push/clone into OfflineError or AuthError where that is what it was.

    The message names the remote and its URL (any credential in the URL left out) and says what to
    do; git's stderr stays on the exception."""
    text = exc.stderr or ""
    shown = redact_url(url)
    if remote:
        where = f" {remote!r}" + (f" ({shown})" if shown else "")
    else:
        where = f" {shown}" if shown else ""
    if isinstance(exc, GitTimeoutError) or _OFFLINE.search(text):
        return OfflineError(exc.returncode, text, exc.argv, message=f"offline: cannot reach the remote{where}")
    if _AUTH_NONE.search(text):
        detail = (
            "the server wants credentials and git's credential helpers gave none; amr never "
            "prompts: store them with git (for example `git config --global credential.helper "
            "store`, then one `git fetch` in a terminal)"
        )
    elif _AUTH_HOSTKEY.search(text):
        detail = (
            "ssh could not verify the server's host key; amr never prompts: check the key and "
            "add it to ~/.ssh/known_hosts yourself"
        )
    elif _AUTH.search(text):
        detail = (
            "the server refused the credentials git gave it (from your credential helper or the "
            "remote URL: a wrong or expired password or token?); amr never prompts: update them "
            "with git"
        )
    else:
        return exc
    return AuthError(
        exc.returncode,
        text,
        exc.argv,
        message=f"authentication failed for {'remote' if remote else 'the remote'}{where}: {detail}",
    )


def _global_credential_config(runner: GitRunner) -> list[tuple[str, str]]:
    res = runner.run(["config", "-z", "--global", "--includes", "--get-regexp", r"^credential\."], ok=(0, 1))
    out: list[tuple[str, str]] = []
    for rec in res.stdout.split(b"\0"):
        key, _, value = rec.decode("utf-8", "surrogateescape").partition("\n")
        if key:
            out.append((key, value))
    return out


def _helper_keys(runner: GitRunner) -> list[str]:
    res = runner.run(["config", "-z", "--name-only", "--get-regexp", r"^credential\..*helper$"], ok=(0, 1))
    keys = {rec.decode("utf-8", "surrogateescape") for rec in res.stdout.split(b"\0") if rec}
    return sorted(keys | {"credential.helper"})


def network_runner(repo: RepoHandle, timeout: float = NETWORK_TIMEOUT) -> GitRunner:
    """A runner for fetch/push: the repo's runner plus the user's global credential helpers."""
    base = repo.runner
    config: list[tuple[str, str]] = [(k, "") for k in _helper_keys(base)]  # reset every helper list
    config += _global_credential_config(base)
    config += [
        ("transfer.fsckObjects", "true"),
        ("fetch.recurseSubmodules", "false"),
        ("push.recurseSubmodules", "no"),
        ("protocol.ext.allow", "never"),
    ]
    return GitRunner(
        base.cwd,
        env=base.env,
        config=(*base.config, *config),
        merge_drivers=base.merge_drivers,
        timeout=timeout,
        lock_timeout=base.lock_timeout,
    )


# ---------------------------------------------------------------------------------------------


def remotes(repo: RepoHandle) -> list[str]:
    return [r for r in repo.runner.text(["remote"]).splitlines() if r]


def remote_url(repo: RepoHandle, remote: str) -> str | None:
    res = repo.runner.run(["config", "--get", *end_of_options(f"remote.{remote}.url")], ok=(0, 1))
    url = res.text.strip()
    return url or None


def _check_remote(repo: RepoHandle, remote: str) -> str:
    if not remote or remote.startswith("-") or any(c.isspace() or ord(c) < 32 for c in remote):
        raise NoRemoteError(f"invalid remote name: {remote!r}")
    url = remote_url(repo, remote)
    if url is None:
        names = remotes(repo)
        if not names:
            raise NoRemoteError(
                "This repo has no remote to sync with: add one (git remote add origin URL) and sync again."
            )
        raise NoRemoteError(
            f"This repo has no remote named {remote!r} (its remotes: {', '.join(names)}): name one with --remote."
        )
    return url


@dataclass(frozen=True)
class FetchResult:
    remote: str
    branch: str
    tip: str | None  # the remote branch after the fetch (None: it does not exist there yet)
    previous: str | None


def fetch(repo: RepoHandle, remote: str, branch: str, timeout: float = NETWORK_TIMEOUT) -> FetchResult:
    """Fetch ``branch`` from ``remote`` into ``refs/remotes/<remote>/<branch>``."""
    url = _check_remote(repo, remote)
    repo.check_branch_name(branch)
    tracking = f"refs/remotes/{remote}/{branch}"
    before = repo.resolve(tracking)
    runner = network_runner(repo, timeout)
    try:
        res = runner.run(
            [
                "fetch",
                "--no-tags",
                "--no-recurse-submodules",
                "--no-write-fetch-head",
                "--prune",
                *end_of_options(remote, f"+refs/heads/{branch}:{tracking}"),
            ],
            write=True,
            check=False,
        )
    except GitTimeoutError as exc:
        raise classify_network_error(exc, url, remote) from None
    if res.returncode != 0:
        if "couldn't find remote ref" in res.stderr:
            return FetchResult(remote, branch, None, before)  # the branch is not on the remote yet
        raise classify_network_error(GitError(res.returncode, res.stderr, res.args), url, remote)
    return FetchResult(remote, branch, repo.resolve(tracking), before)


@dataclass(frozen=True)
class PushResult:
    remote: str
    branch: str
    pushed: str  # the commit the remote branch now points to
    up_to_date: bool


def push(repo: RepoHandle, remote: str, branch: str, commit: str, timeout: float = NETWORK_TIMEOUT) -> PushResult:
    """Push ``commit`` to ``branch`` on ``remote``: a fast-forward or nothing. Never forced."""
    url = _check_remote(repo, remote)
    repo.check_branch_name(branch)
    runner = network_runner(repo, timeout)
    refspec = f"{commit}:refs/heads/{branch}"
    try:
        res = runner.run(
            ["push", "--porcelain", "--no-verify", "--no-signed", *end_of_options(remote, refspec)],
            write=True,
            check=False,
        )
    except GitTimeoutError as exc:
        raise classify_network_error(exc, url, remote) from None
    status = _porcelain_status(res.text, f"refs/heads/{branch}")
    if res.returncode == 0 and status and status[0] in " *=":
        tracking = f"refs/remotes/{remote}/{branch}"
        repo.runner.run(["update-ref", "-m", "amr: pushed", tracking, commit], write=True)
        return PushResult(remote, branch, commit, status[0] == "=")
    if status and status[0] == "!":
        reason = status[1]
        # "failed to lock" / "cannot lock ref": another push updated the branch at the same moment
        nff = any(
            w in reason
            for w in (
                "non-fast-forward",
                "fetch first",
                "stale info",
                "failed to lock",
                "cannot lock ref",
                "failed to update ref",
                "incorrect old value",
            )
        )
        raise PushRejectedError(res.returncode, res.stderr, res.args, non_fast_forward=nff, reason=reason)
    raise classify_network_error(GitError(res.returncode, res.stderr, res.args), url, remote)


def _porcelain_status(out: str, ref: str) -> tuple[str, str] | None:
    """``(flag, summary)`` for ``ref`` from ``git push --porcelain`` output."""
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1].endswith(":" + ref):
            return parts[0][:1] or " ", parts[2]
    return None


def ahead_behind(repo: RepoHandle, local: str, upstream: str) -> tuple[int, int]:
    """Commits on ``local`` and not ``upstream``, and the other way round."""
    a, b = repo.resolve(local), repo.resolve(upstream)
    if a is None:
        return (0, 0) if b is None else (0, int(repo.runner.text(["rev-list", "--count", *end_of_options(b)]).strip()))
    if b is None:
        return int(repo.runner.text(["rev-list", "--count", *end_of_options(a)]).strip()), 0
    out = repo.runner.text(["rev-list", "--left-right", "--count", *end_of_options(f"{a}...{b}")]).split()
    return int(out[0]), int(out[1])
