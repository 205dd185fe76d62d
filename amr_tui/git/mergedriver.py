"""amr's merge driver in git's config, and the drivers git may run during amr's own merges.

* :func:`amr_driver_command` is the command ``merge.amr.driver`` names: an absolute path to the
  Python running amr, ``-m amr_tui merge-driver %O %A %B %L %P``.
* :func:`install_driver_config` writes ``merge.amr.name`` / ``merge.amr.driver`` into the repo's
  own config (never global), idempotently.
* :func:`configured_merge_drivers` lists the drivers this clone's config defines (any file
  scope, never amr's command-line overrides): the lint check AMR027 compares it with the
  names ``.gitattributes`` uses.
* :func:`merge_drivers_for_merging` is what amr passes to its runner for merges: amr's driver
  runs; every other driver a repo configures or names is replaced by git's own text merge
  (``git merge-file``), so no program from repo config runs and those files still merge line by
  line. (A blank driver, the runner's default, would make the merge fail with "cannot run".)
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from amr_tui.git.overrides import AMR_MERGE_DRIVER, attribute_driver_names
from amr_tui.git.runner import GitRunner, end_of_options, git_binary

DRIVER_LABEL = "amr entry-aware merge for memory files"
BUILTIN_DRIVERS = frozenset({"text", "binary", "union"})


def amr_driver_command(python: str | None = None) -> str:
    """The shell command git runs for ``merge=amr`` (placeholders left for git to fill)."""
    exe = python or sys.executable
    return f"{shlex.quote(exe)} -m amr_tui merge-driver %O %A %B %L %P"


def text_merge_command() -> str:
    """git's own line merge as a driver: edits ``%A`` in place, exits non-zero on conflicts."""
    return f"{shlex.quote(git_binary())} merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B"


def _config_records(runner: GitRunner, pattern: str) -> list[tuple[str, str, str]]:
    """``(scope, key, value)`` for config keys matching ``pattern``, amr's own overrides left out."""
    res = runner.run(["config", "-z", "--show-scope", "--get-regexp", pattern], ok=(0, 1))
    parts = res.stdout.split(b"\0")
    out: list[tuple[str, str, str]] = []
    for scope, rec in zip(parts[0::2], parts[1::2], strict=False):
        key, _, value = rec.decode("utf-8", "surrogateescape").partition("\n")
        sc = scope.decode("utf-8", "replace")
        if sc != "command" and key:
            out.append((sc, key, value))
    return out


def configured_merge_drivers(runner: GitRunner) -> dict[str, str]:
    """Driver name -> command for every ``merge.<name>.driver`` set in a config file."""
    out: dict[str, str] = {}
    for _scope, key, value in _config_records(runner, r"^merge\..*\.driver$"):
        name = key[len("merge.") : -len(".driver")]
        if value.strip():
            out[name] = value
    return out


def merge_drivers_for_merging(runner: GitRunner, amr_command: str | None = None) -> dict[str, str]:
    """``merge_drivers`` for a runner that merges: amr's driver, git's text merge for the rest."""
    names = set(attribute_driver_names(_attribute_files(runner)).get("merge", set()))
    res = runner.run(["config", "-z", "--name-only", "--get-regexp", r"^merge\."], ok=(0, 1))
    for rec in res.stdout.split(b"\0"):
        key = rec.decode("utf-8", "surrogateescape")
        first, last = key.find("."), key.rfind(".")
        if 0 < first < last:
            names.add(key[first + 1 : last])
    text = text_merge_command()
    drivers = {name: text for name in sorted(names - BUILTIN_DRIVERS)}
    drivers[AMR_MERGE_DRIVER] = amr_command or amr_driver_command()
    return drivers


def _attribute_files(runner: GitRunner) -> list[Path]:
    out = runner.run(["rev-parse", "--show-toplevel", "--git-common-dir"], ok=(0,)).text.splitlines()
    top = Path(out[0])
    common = Path(out[1]) if Path(out[1]).is_absolute() else top / out[1]
    return [top / ".gitattributes", common / "info" / "attributes"]


def install_driver_config(runner: GitRunner, command: str | None = None) -> bool:
    """Set ``merge.amr.name`` and ``merge.amr.driver`` in the repo's own config.

    Returns True when something changed. Never touches global config.
    """
    wanted = {"name": DRIVER_LABEL, "driver": command or amr_driver_command()}
    local = {key.lower(): value for scope, key, value in _config_records(runner, r"^merge\.amr\.") if scope == "local"}
    changed = False
    for field, value in wanted.items():
        key = f"merge.{AMR_MERGE_DRIVER}.{field}"
        if local.get(key) == value:
            continue
        runner.run(["config", "--local", "--replace-all", *end_of_options(key, value)], write=True)
        changed = True
    return changed
