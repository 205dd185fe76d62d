"""Shared empty lists for per-entry fields that are empty almost always.

A 100,000-entry repo would otherwise hold 200,000 empty lists (an entry's links and its
diagnostics), each one more object for Python's garbage collector to walk. ``EMPTY`` is
one list that compares equal to ``[]`` and refuses to be changed, so sharing it can never
leak an edit from one entry into another.
"""

from __future__ import annotations

from typing import Any, NoReturn


class _FrozenEmpty(list[Any]):
    __slots__ = ()

    def _refuse(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError("this empty list is shared between entries: assign a new list instead")

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self) -> tuple[type[list[Any]], tuple[()]]:
        return (list, ())


EMPTY: list[Any] = _FrozenEmpty()
