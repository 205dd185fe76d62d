"""One declaration per action (issue 43, 6b): widgets/actions.py's table feeds every binding of amr,
the ``?`` help and the command palette; nothing else declares a key."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from textual.binding import Binding
from textual.dom import DOMNode

import amr_tui.screens
import amr_tui.widgets
from amr_tui.app import _AFTER_SESSION, AmrApp
from amr_tui.widgets.actions import ACTIONS, all_actions, bindings, by_id


def _classes_with_bindings() -> list[type[DOMNode]]:
    found: dict[str, type[DOMNode]] = {f"{AmrApp.__module__}.AmrApp": AmrApp}
    names = [
        info.name
        for package in (amr_tui.screens, amr_tui.widgets)  # the app's own classes are AmrApp, above
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    ]
    for name in names:
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, DOMNode) and cls.__module__ == module.__name__ and cls.__dict__.get("BINDINGS"):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return [found[k] for k in sorted(found)]


def test_every_binding_of_amr_is_an_action_of_the_table() -> None:
    """A binding's keys, action, text, footer and priority are the table's, found by its id."""
    strays, bound = [], set()
    for cls in _classes_with_bindings():
        for binding in cls.__dict__["BINDINGS"]:
            action = by_id(getattr(binding, "id", None))
            if action is None or binding != action.binding():
                strays.append(f"{cls.__qualname__}: {binding}")
                continue
            bound.add(action.id)
    assert strays == []
    assert bound == {a.id for a in all_actions()}, "actions of the table no class binds"


def test_ids_are_unique_and_name_their_owner() -> None:
    """An id is what the config's [keys] rebinds (Textual's keymap): one action each."""
    ids = [a.id for group in ACTIONS.values() for a in group]
    assert len(ids) == len(set(ids))
    assert all("." in i and a.description for i, a in zip(ids, all_actions()))


def test_bindings_are_built_from_the_table_in_its_order() -> None:
    built = bindings("main")
    assert [b.id for b in built if isinstance(b, Binding)] == [a.id for a in ACTIONS["main"]]
    assert bindings("tree", "list")[1:] == bindings("list")


def test_the_actions_that_wait_for_the_session_are_the_tables() -> None:
    """The app greys out the actions the table marks (app actions bound on the main screen)."""
    waiting = [a for a in all_actions() if a.needs_session]
    assert waiting and all(a.action.startswith("app.") for a in waiting)
    assert _AFTER_SESSION == {a.action.removeprefix("app.") for a in waiting}


def test_the_palette_names_come_from_the_table() -> None:
    named = {a.id: a.palette for a in all_actions() if a.palette}
    assert named["main.find"] == "Find entries and files" and named["main.stale"] == "Stale? queue"
    assert not by_id("app.palette").in_palette  # type: ignore[union-attr]
    assert all(not a.in_palette for a in ACTIONS["view"] if a.action.split("(")[0] in {"cursor", "edge", "page"})
