"""Config overrides that disarm every program a repository's config could make git run.

``BASE_CONFIG`` is applied to every call; :func:`repo_overrides` adds, per repository, an empty
value for every configured filter (clean/smudge/process), diff driver (textconv/command) and merge
driver. Overrides go through ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``, which
beat repository config and its includes.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

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
    # Colour codes in git's output would corrupt what amr parses (and are escapes on screen).
    ("color.ui", "false"),
    ("color.diff", "false"),
    ("color.status", "false"),
    ("color.branch", "false"),
    ("color.grep", "false"),
    ("color.showBranch", "false"),
    ("color.remote", "false"),
    ("color.push", "false"),
    ("color.transport", "false"),
    ("color.advice", "false"),
)

#: Programs a fetch or push may start. A repo's own config must not choose them: each is reset
#: to the user's global value (or git's default) when any config file sets it. ``core.gitProxy``
#: cannot be overridden this way (its first match wins); ``GIT_PROXY_COMMAND=""`` in the runner's
#: environment switches it off instead.
TRANSPORT_DEFAULTS: dict[str, str] = {
    "core.sshcommand": "ssh",
    "core.askpass": "",
    "core.alternaterefscommand": "true",  # prints no refs: an alternate's refs are not advertised
}
TRUSTED_SCOPE_KEYS = ("core.sshcommand", "core.askpass")

#: Flags put right after the sub-command on every call. ``remote.<name>.uploadpack`` and
#: ``.receivepack`` cannot be overridden by config (the first value wins), so transport commands
#: name git's own programs; diff-producing commands never run textconv or an external diff (a
#: blanked textconv would make them fail instead).
_NO_DIFF_PROGRAMS = ("--no-ext-diff", "--no-textconv")
FORCED_FLAGS: dict[str, tuple[str, ...]] = {
    "fetch": ("--upload-pack=git-upload-pack",),
    "pull": ("--upload-pack=git-upload-pack",),
    "ls-remote": ("--upload-pack=git-upload-pack",),
    "clone": ("--upload-pack=git-upload-pack",),
    "push": ("--receive-pack=git-receive-pack",),
    **{
        cmd: _NO_DIFF_PROGRAMS
        for cmd in ("diff", "log", "show", "diff-tree", "diff-index", "diff-files", "whatchanged")
    },
    "blame": ("--no-textconv",),
    "grep": ("--no-textconv",),
}

#: Name of amr's own merge driver. It is blanked like any other unless the caller passes its
#: command in ``merge_drivers`` (then amr's command wins over whatever the repo config says).
AMR_MERGE_DRIVER = "amr"

# ---------------------------------------------------------------------------------------------
# Per-repository overrides for filters, textconv, diff commands and merge drivers


@dataclass(frozen=True)
class RepoInfo:
    git_dir: Path
    common_dir: Path
    toplevel: Path


_ATTR_DRIVER = re.compile(r"(?:^|\s)(filter|diff|merge)=(\S+)")


def attribute_driver_names(files: Sequence[Path]) -> dict[str, set[str]]:
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
    trusted: Mapping[str, str] | None = None,
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
    transport: set[str] = set()
    for record in config_dump.split(b"\0"):
        key = record.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        if key.lower() in TRANSPORT_DEFAULTS:
            transport.add(key.lower())
            continue
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
        out += [
            (f"filter.{name}.clean", ""),
            (f"filter.{name}.smudge", ""),
            (f"filter.{name}.process", ""),
            (f"filter.{name}.required", "false"),
        ]
    for name in sorted(diffs):
        out += [(f"diff.{name}.textconv", ""), (f"diff.{name}.command", "")]
    for name in sorted(merges | set(merge_drivers)):
        out.append((f"merge.{name}.driver", merge_drivers.get(name, "")))
    for key in sorted(transport):
        out.append((key, (trusted or {}).get(key, TRANSPORT_DEFAULTS[key])))
    return out


_Stamp = tuple[tuple[object, ...], ...]  # (path, inode, size, mtime, ctime) per file, or (path, None)


class _OverrideCache:
    """Caches per-repo overrides keyed by the identity of every config file that could define them.

    When the config uses ``include``/``includeIf`` the set of files is open-ended, so nothing is
    cached and the config is read again on every call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[Path, tuple[object, ...]], tuple[_Stamp, list[tuple[str, str]]]] = {}

    @staticmethod
    def _stamp(paths: Sequence[Path]) -> _Stamp:
        out: list[tuple[object, ...]] = []
        for p in paths:
            try:
                st = os.stat(p)
                out.append((str(p), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
            except OSError:
                out.append((str(p), None))
        return tuple(out)

    def get(
        self,
        info: RepoInfo,
        env: Mapping[str, str],
        load: Callable[[], tuple[list[tuple[str, str]], bool]],
        variant: tuple[object, ...] = (),
    ) -> list[tuple[str, str]]:
        home = env.get("HOME", "")
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files = [
            info.common_dir / "config",
            info.git_dir / "config.worktree",
            info.common_dir / "config.worktree",
            Path(home) / ".gitconfig",
            Path(xdg) / "git" / "config",
            info.toplevel / ".gitattributes",
            info.common_dir / "info" / "attributes",
        ]
        if env.get("GIT_CONFIG_GLOBAL"):
            files.append(Path(env["GIT_CONFIG_GLOBAL"]))
        stamp = self._stamp(files)
        with self._lock:
            hit = self._entries.get((info.git_dir, variant))
            if hit and hit[0] == stamp:
                return hit[1]
        overrides, cacheable = load()
        if cacheable:
            with self._lock:
                self._entries[(info.git_dir, variant)] = (stamp, overrides)
        return overrides


CACHE = _OverrideCache()
