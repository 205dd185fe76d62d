"""The user's config: a TOML file in the user's config folder.

repos = ["~/agent-memory", "~/team/memory-team"]
read_only = ["memory-team"]
review = ["memory-team"]   # or: review = true (every repo). Agent writes through `amr mcp` wait for review
theme = "textual-dark"     # saved when a theme is picked in the app
tree_width = 32            # saved when the tree is made wider or narrower (< and >)

[formats]                  # a repo's memory format, when reading it from the folder guesses wrong
"memory-team" = "amr"      # amr, claude-code, letta, basic-memory, obsidian, memory-bank, hermes, folder

[keys]
"main.find" = "slash,ctrl+f"

[repo."memory-joe"]        # per repo (its name or folder): the code checkout(s) its facts are about
code = ["~/src/payments"]  # `amr verify` and the Stale? queue check entries against it

[verify]
every = "90d"              # an entry not verified for this long is listed in the Stale? queue too

[dream]
agent = "claude -p ..."    # the dreaming agent `amr dream` and the schedule run (else the built-in pass)
every = "1d"               # how often `amr dream --install-schedule` runs it
unread = "90d"             # the built-in pass proposes entries agents have not read for this long

[budgets.claude-code]      # change an agent's load budget (docs/loads.md), or add an agent:
lines = 150                # [budgets.my-agent] files = ["MEMORY.md"], bytes = 16384, tokens = 5000
[loads]                    # which agent reads a repo (default: the one of its format)
"memory-team" = "devin"

[inbox]
max_age_days = 7           # `amr inbox` exits 1 when anything waits longer (default 14)

review = ["memory-team"] may also be a table: [review] repos = ["memory-team"] (or true),
auto = ["add"]: agents' new entries land at once, rewording and removal wait for review.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_config_dir


@dataclass(slots=True)
class Config:
    repos: list[Path] = field(default_factory=list)
    repos_written: list[str] = field(default_factory=list)  # repos as the file writes them (~ kept)
    read_only: set[str] = field(default_factory=set)
    review: set[str] = field(default_factory=set)  # repos whose agent writes land on a pending branch
    review_all: bool = False  # review = true: every repo
    theme: str | None = None
    tree_width: int | None = None  # columns of the file tree
    keys: dict[str, str] = field(default_factory=dict)
    merge_driver: bool = True  # merge_driver = false: amr init and sync leave .gitattributes and git config alone
    formats: dict[str, str] = field(default_factory=dict)  # repo name or folder -> memory format ([formats])
    code: dict[str, list[Path]] = field(default_factory=dict)  # repo name or folder -> code checkouts ([repo.X] code)
    verify_every: int = 90  # days: an entry not verified for this long is due ([verify] every)
    dream_agent: str | None = None  # [dream] agent
    dream_every: str = "1d"  # [dream] every
    dream_unread: int = 90  # days: [dream] unread
    budgets: dict[str, dict[str, object]] = field(default_factory=dict)  # [budgets.NAME]: core.budget.custom
    loads: dict[str, str] = field(default_factory=dict)  # [loads]: repo name -> the agent that reads it
    inbox_max_age_days: int = 14  # [inbox] max_age_days: `amr inbox` exits 1 past it
    review_auto: set[str] = field(default_factory=set)  # [review] auto: agent writes that skip review ("add")
    path: Path | None = None
    error: str | None = None


#: The narrowest and widest the file tree can be made (columns).
TREE_WIDTH = (20, 120)


def config_path() -> Path:
    return Path(user_config_dir("amr", appauthor=False)) / "config.toml"


def load_config(path: Path | None = None) -> Config:
    path = path or config_path()
    cfg = Config(path=path)
    if not path.is_file():
        return cfg
    import tomllib  # here: with no config file (a first run, the bench) start-up does not load it

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        cfg.error = f"{path}: {exc}"
        return cfg
    repos = data.get("repos", [])
    if isinstance(repos, list):
        cfg.repos_written = [r for r in repos if isinstance(r, str)]
        cfg.repos = [Path(r).expanduser() for r in cfg.repos_written]
    ro = data.get("read_only", [])
    if isinstance(ro, list):
        cfg.read_only = {str(r) for r in ro}
    review = data.get("review", [])
    if isinstance(review, dict):  # [review] repos = [...] (or true), auto = ["add"]
        cfg.review_auto = {str(a) for a in review.get("auto", []) if isinstance(a, str)}
        review = review.get("repos", [])
    if review is True:
        cfg.review_all = True
    elif isinstance(review, list):
        cfg.review = {str(r) for r in review}
    budgets = data.get("budgets", {})
    if isinstance(budgets, dict):
        cfg.budgets = {str(k): dict(v) for k, v in budgets.items() if isinstance(v, dict)}
    loads = data.get("loads", {})
    if isinstance(loads, dict):
        cfg.loads = {str(k): str(v) for k, v in loads.items() if isinstance(v, str)}
    inbox = data.get("inbox", {})
    if isinstance(inbox, dict):
        age = inbox.get("max_age_days")
        if isinstance(age, int) and not isinstance(age, bool) and age >= 0:
            cfg.inbox_max_age_days = age
    if isinstance(data.get("theme"), str):
        cfg.theme = data["theme"]
    width = data.get("tree_width")
    if isinstance(width, int) and not isinstance(width, bool) and TREE_WIDTH[0] <= width <= TREE_WIDTH[1]:
        cfg.tree_width = width
    if data.get("merge_driver") is False:
        cfg.merge_driver = False
    formats = data.get("formats", {})
    if isinstance(formats, dict):
        from amr_tui.services.workspace import STYLES  # workspace: only for a config with [formats]

        cfg.formats = {str(k): str(v) for k, v in formats.items() if isinstance(v, str) and v in STYLES}
    keys = data.get("keys", {})
    if isinstance(keys, dict):
        cfg.keys = {str(k): str(v) for k, v in keys.items() if isinstance(v, str)}
    _verify_settings(cfg, data)
    return cfg


def _verify_settings(cfg: Config, data: dict[str, object]) -> None:
    """``[repo."NAME"] code``, ``[verify]`` and ``[dream]`` (docs/verify.md)."""
    repos = data.get("repo", {})
    if isinstance(repos, dict):
        for name, table in repos.items():
            code = table.get("code") if isinstance(table, dict) else None
            if isinstance(code, str):
                code = [code]
            if isinstance(code, list):
                cfg.code[str(name)] = [Path(str(c)).expanduser() for c in code if isinstance(c, str)]
    verify = data.get("verify", {})
    if isinstance(verify, dict):
        days = parse_days(verify.get("every"))
        if days is not None:
            cfg.verify_every = days
    dream = data.get("dream", {})
    if isinstance(dream, dict):
        if isinstance(dream.get("agent"), str) and dream["agent"].strip():
            cfg.dream_agent = dream["agent"]
        if isinstance(dream.get("every"), str) and parse_every(dream["every"]) is not None:
            cfg.dream_every = dream["every"]
        days = parse_days(dream.get("unread"))
        if days is not None:
            cfg.dream_unread = days


_DURATION = re.compile(r"\s*(\d{1,5})\s*([hdwmy]?)\s*")


def parse_days(value: object) -> int | None:
    """``"90d"``, ``"12w"``, ``"6m"``, ``"1y"`` or a number of days -> days; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if not isinstance(value, str):
        return None
    m = _DURATION.fullmatch(value)
    if m is None or m.group(2) == "h":
        return None
    return int(m.group(1)) * {"": 1, "d": 1, "w": 7, "m": 30, "y": 365}[m.group(2)]


def parse_every(value: str) -> int | None:
    """How often, in hours: ``"12h"``, ``"1d"``, ``"1w"``; None when it cannot be read (or is 0)."""
    m = _DURATION.fullmatch(value)
    if m is None or int(m.group(1)) == 0:
        return None
    return int(m.group(1)) * {"": 24, "h": 1, "d": 24, "w": 168, "m": 720, "y": 8760}[m.group(2)]


def code_for(cfg: Config, name: str, root: Path) -> list[Path]:
    """The code checkouts the config names for a repo (by its name, or its folder)."""
    found = cfg.code.get(name)
    if found is None:
        try:
            resolved = root.resolve()
        except OSError:
            resolved = root
        for key, paths in cfg.code.items():
            try:
                if Path(key).expanduser().resolve() == resolved:
                    return list(paths)
            except OSError:
                continue
    return list(found or [])


_TABLE = re.compile(r"^\s*\[")


Setting = str | int | list[str]


def _toml_value(value: Setting) -> str:
    # A JSON string is a TOML basic string (the same escapes); ints are written as they are, a
    # list of strings as an inline array.
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(int(value))


def _assignment_end(lines: list[str], at: int, reads: Callable[[str], object]) -> int | None:
    """The line after the assignment starting at line ``at`` (an array may span several lines):
    the first end at which those lines read as TOML on their own (``reads``: tomllib.loads)."""
    for end in range(at + 1, len(lines) + 1):
        try:
            reads("".join(lines[at:end]))
        except ValueError:  # tomllib.TOMLDecodeError
            continue
        return end
    return None


def save_settings(path: Path | None, **values: Setting) -> str | None:
    """Set top-level keys of the config file (``theme``, ``tree_width``, ``repos``), keeping
    everything else in it as written: comments, other keys, tables. A key already set is replaced
    where it is (all its lines, for an array written over several); a new one goes before the
    first table. The result is read back with tomllib before it replaces the file (atomically);
    a file that cannot be read as TOML is left alone. Returns the error, or None when saved."""
    import tomllib  # here: as in load_config, start-up does not load it

    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        before = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return f"{path}: not saved, the file cannot be read as TOML ({exc})"
    lines = text.splitlines(keepends=True)
    first_table = next((i for i, line in enumerate(lines) if _TABLE.match(line)), len(lines))
    for key, value in values.items():
        assignment = f"{key} = {_toml_value(value)}\n"
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        at = next((i for i in range(first_table) if pattern.match(lines[i])), None)
        end = _assignment_end(lines, at, tomllib.loads) if at is not None else None
        if at is not None and end is not None:
            lines[at:end] = [assignment]
            first_table -= end - at - 1
        elif at is not None:
            return f"{path}: not saved (cannot tell where {key} ends)"
        else:
            if first_table and not lines[first_table - 1].endswith("\n"):
                lines[first_table - 1] += "\n"
            lines.insert(first_table, assignment)
            first_table += 1
    new = "".join(lines)
    try:
        after = tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:  # not what was meant: leave the file as it is
        return f"{path}: not saved ({exc})"
    expected = {**before, **values}
    if after != expected:
        return f"{path}: not saved (the file would not read back as written)"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(new)
            if path.exists():
                os.chmod(tmp, path.stat().st_mode & 0o777)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        return f"{path}: not saved ({exc})"
    return None


def add_repo(folder: Path, path: Path | None = None) -> tuple[bool, str | None]:
    """Add ``folder`` to the config's ``repos`` (``save_settings``: the rest of the file kept as
    written). ``(added, error)``: not added when it is listed already (as written or resolved)."""
    path = path or config_path()
    cfg = load_config(path)
    if cfg.error:
        return False, f"not changed: {cfg.error}"
    target = folder.expanduser().resolve()
    if any(p.resolve() == target for p in cfg.repos):
        return False, None
    error = save_settings(path, repos=[*cfg.repos_written, str(target)])
    return error is None, error
