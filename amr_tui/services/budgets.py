"""Which agent reads each mounted repo, and its load budget: the config's ``[budgets]`` (budgets
of your own, or built-in ones changed) and ``[loads]`` (the agent of a repo), over the built-in
profiles of ``core.budget``. Light (no parser), so lint's snapshot and the app can ask which
budget a repo has without loading more.
"""

from __future__ import annotations

from amr_tui.core.budget import Budgets, Profile, custom, profile_named
from amr_tui.services.config import Config, config_path, load_config
from amr_tui.services.workspace import Mount, style_of

# The budgets in use: the config's, read again when the config file changes (by its path and
# stat), unless ``set_budgets`` fixed them (a test, or a caller with a config of its own).
_BUDGETS: dict[str, object] = {}


def budgets_of(cfg: Config) -> tuple[Budgets, list[str]]:
    """The profiles the config's ``[budgets]`` makes or changes, and its ``[loads]``; with the
    errors of tables that could not be read (each names the table and what it takes)."""
    made: dict[str, Profile] = {}
    errors: list[str] = []
    for name, table in cfg.budgets.items():
        key = name.strip().lower()
        found = custom(key, table, profile_named(key))
        if isinstance(found, str):
            errors.append(found)
        else:
            made[key] = found
    repos: dict[str, str] = {}
    for repo, agent in cfg.loads.items():
        if profile_named(agent, made) is None:
            errors.append(f"[loads] {repo!r} names no agent amr knows: {agent!r} (amr loads --help lists them)")
        else:
            repos[repo] = agent
    return Budgets(made, repos), errors


def set_budgets(budgets: Budgets | None) -> None:
    """Fix the budgets in use in this process (None: read them from the config file again)."""
    _BUDGETS.clear()
    if budgets is not None:
        _BUDGETS["fixed"] = budgets


def current_budgets() -> Budgets:
    """The budgets in use: fixed by ``set_budgets``, else the config file's (``[budgets]``,
    ``[loads]``), read again when the file changed."""
    fixed = _BUDGETS.get("fixed")
    if isinstance(fixed, Budgets):
        return fixed
    path = config_path()
    try:
        st = path.stat()
        key: tuple[object, ...] = (str(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = (str(path), None)
    found = _BUDGETS.get("budgets")
    if _BUDGETS.get("key") != key or not isinstance(found, Budgets):
        found = budgets_of(load_config(path))[0] if key[1] is not None else Budgets()
        _BUDGETS["key"], _BUDGETS["budgets"] = key, found
    return found


def profile_of(mount: Mount, budgets: Budgets | None = None) -> Profile:
    """The agent that reads ``mount``: ``[loads]`` names it, else the one of its memory format."""
    return (budgets or current_budgets()).for_repo(mount.name, style_of(mount))


__all__ = ["budgets_of", "current_budgets", "profile_of", "set_budgets"]
