"""The user's config: a TOML file in the user's config folder.

repos = ["~/agent-memory", "~/team/memory-team"]
read_only = ["memory-team"]
review = ["memory-team"]   # or: review = true (every repo). Agent writes through `amr mcp` wait for review
theme = "textual-dark"

[keys]
"main.find" = "slash,ctrl+f"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_config_dir


@dataclass(slots=True)
class Config:
    repos: list[Path] = field(default_factory=list)
    read_only: set[str] = field(default_factory=set)
    review: set[str] = field(default_factory=set)  # repos whose agent writes land on a pending branch
    review_all: bool = False  # review = true: every repo
    theme: str | None = None
    keys: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    error: str | None = None


def config_path() -> Path:
    return Path(user_config_dir("amr", appauthor=False)) / "config.toml"


def load_config(path: Path | None = None) -> Config:
    path = path or config_path()
    cfg = Config(path=path)
    if not path.is_file():
        return cfg
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        cfg.error = f"{path}: {exc}"
        return cfg
    repos = data.get("repos", [])
    if isinstance(repos, list):
        cfg.repos = [Path(str(r)).expanduser() for r in repos if isinstance(r, str)]
    ro = data.get("read_only", [])
    if isinstance(ro, list):
        cfg.read_only = {str(r) for r in ro}
    review = data.get("review", [])
    if review is True:
        cfg.review_all = True
    elif isinstance(review, list):
        cfg.review = {str(r) for r in review}
    if isinstance(data.get("theme"), str):
        cfg.theme = data["theme"]
    keys = data.get("keys", {})
    if isinstance(keys, dict):
        cfg.keys = {str(k): str(v) for k, v in keys.items() if isinstance(v, str)}
    return cfg
