"""A place in the memory: a line of a file of a mounted repo (what back and forward go to)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Place:
    repo: str
    path: str
    line: int
