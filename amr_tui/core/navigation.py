"""Back and forward through the places a user has been: a typed history with a cursor.

Pure (no Textual): the main screen keeps one ``History[Place]`` and asks it where back and
forward lead. The place being shown is not in the history; it is handed in when the user
leaves it (``record``, ``back``, ``forward``), because where the cursor is in it changes
until then.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

PlaceT = TypeVar("PlaceT")


class History(Generic[PlaceT]):
    """The places left behind, oldest first, with a cursor between the past and the future.

    ``places[:cursor]`` are where back leads (the nearest last); ``places[cursor:]`` are where
    forward leads (the nearest first). Recording a new place drops the future, as a browser does.
    """

    def __init__(self) -> None:
        self._places: list[PlaceT] = []
        self._cursor = 0

    def record(self, left: PlaceT) -> None:
        """The user went somewhere new from ``left``: back leads to ``left``; the future is dropped."""
        del self._places[self._cursor :]
        self._places.append(left)
        self._cursor += 1

    @property
    def can_go_back(self) -> bool:
        return self._cursor > 0

    @property
    def can_go_forward(self) -> bool:
        return self._cursor < len(self._places)

    def back(self, here: PlaceT) -> PlaceT | None:
        """Where back leads from ``here`` (which forward then leads to), or None at the start."""
        if not self.can_go_back:
            return None
        self._cursor -= 1
        there = self._places[self._cursor]
        self._places[self._cursor] = here
        return there

    def forward(self, here: PlaceT) -> PlaceT | None:
        """Where forward leads from ``here`` (which back then leads to), or None at the end."""
        if not self.can_go_forward:
            return None
        there = self._places[self._cursor]
        self._places[self._cursor] = here
        self._cursor += 1
        return there

    @property
    def past(self) -> list[PlaceT]:
        """Where back leads, oldest first (the next back is the last)."""
        return self._places[: self._cursor]

    def __len__(self) -> int:
        return len(self._places)

    def __iter__(self) -> Iterator[PlaceT]:
        return iter(self._places)
