"""After a dialog the focus is where the user was, and the keys typed next go there (issue 38, 6).

Every screen the app pushes gives back, when it is dismissed, the focus it found on the screen
under it (``widgets/focus_return.py``), even when something under it moved the focus meanwhile;
the keys typed right after the answer wait until the flow that asked has acted on it. The entry
editor's questions (a credential, a line that breaks the format) are asked with the focus in the
editor: Esc on them leaves the user typing in it, and a second Esc cancels the edit."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest
from textual.screen import ModalScreen

from amr_tui.git.errors import ConflictError
from amr_tui.screens.dialogs import ConfirmScreen
from amr_tui.widgets.file_tree import MemoryTree
from tests.driver import burst

TOKEN = "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _modal_classes() -> dict[str, type[ModalScreen[Any]]]:
    import amr_tui.screens as package

    found: dict[str, type[ModalScreen[Any]]] = {}
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, ModalScreen) and cls.__module__.startswith("amr_tui."):
                found[cls.__name__] = cls
    return found


def _makers() -> dict[str, Callable[[], ModalScreen[Any]]]:
    """Each modal screen of amr, made as its callers make it, closed by Esc."""
    from amr_tui.screens.conflict import ConflictScreen
    from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen, TextPromptScreen
    from amr_tui.screens.file_editor import FileEditScreen
    from amr_tui.screens.finder import FinderScreen
    from amr_tui.screens.help import HelpScreen
    from amr_tui.screens.secret_check import SecretScreen
    from amr_tui.screens.tags import TagsScreen

    def entry_edit() -> ModalScreen[Any]:
        from amr_tui.screens.dreams.edit import EntryEditScreen

        return EntryEditScreen("memory-alice", "frontend/stack.md", "- A fact [source: https://e.co/1]", title="Edit")

    side = b"# Memory\n\n- one\n"
    return {
        "ConfirmScreen": lambda: ConfirmScreen("Delete entry?", "It stays in git history.", "Delete"),
        "PromptScreen": lambda: PromptScreen("New file", placeholder="path"),
        "TextPromptScreen": lambda: TextPromptScreen("Remember…", what="the fact you are capturing"),
        "ChoiceScreen": lambda: ChoiceScreen("Move entry to…", [("a", "a.md"), ("b", "b.md")]),
        "SecretScreen": lambda: SecretScreen(["GitHub token"]),
        "ConflictScreen": lambda: ConflictScreen(
            ConflictError("MEMORY.md", ours=side, base=side, theirs=side, merged=side, head=None), repo="memory-alice"
        ),
        "FinderScreen": lambda: FinderScreen(lambda query, limit: []),
        "FileEditScreen": lambda: FileEditScreen("MEMORY.md", "# Memory\n"),
        "HelpScreen": lambda: HelpScreen([("Anywhere", [("?", "Help")])]),
        "EntryEditScreen": entry_edit,
        "TagsScreen": lambda: TagsScreen(lambda: [], set()),
    }


def test_every_modal_screen_is_in_the_focus_test() -> None:
    assert sorted(_modal_classes()) == sorted(_makers())


async def _ask(driver, make: Callable[[], ModalScreen[Any]], after: Callable[[], None] | None = None):
    """Push ``make()`` from a flow of the main screen (as every question is asked), wait until it
    has the focus; ``after`` runs in the flow once it is answered. The answers, as they come."""
    app, main = driver.app, driver.app.screen
    answers: list[object] = []

    async def flow() -> None:
        answers.append(await app.push_screen_wait(make()))
        if after is not None:
            after()

    main.run_worker(flow(), group="flow:test-question")
    await driver.until(lambda: app.screen is not main and app.screen.focused is not None, what="the dialog up")
    return answers


@pytest.mark.parametrize("name", sorted(_makers()))
async def test_the_focus_comes_back_where_it_was_and_the_next_key_goes_there(driver, name: str) -> None:
    """The tree had the focus; while the dialog was up, something under it moved the focus to the
    entry view (a worker, a refresh). After Esc the tree has it again, and j typed right after Esc
    (one burst) moves the tree's cursor, not the view's."""
    app, main = driver.app, driver.app.screen
    tree = main.query_one(MemoryTree)
    await driver.press("1")
    assert tree.has_focus
    row, line = tree.cursor_line, main.view.cursor_line
    answers = await _ask(driver, _makers()[name])
    main.set_focus(main.view)  # under the dialog, something took the focus
    burst(driver, "escape", "j")
    await driver.until(lambda: answers, what="the dialog answered")
    await driver.settled()
    assert app.screen is main and main.focused is tree, f"the focus is on {main.focused!r}"
    assert tree.cursor_line == row + 1 and main.view.cursor_line == line


async def test_keys_typed_after_an_answer_wait_until_the_flow_acted_on_it(driver) -> None:
    """A flow that moves the focus once it has the answer (the entry editor given back, a list
    read again): until it has run on from the answer, keys wait (the dialog is gone by then, and a
    key read meanwhile went to the focus the flow was about to move); the key typed in the same
    burst as the answer goes where the flow put the focus."""
    from amr_tui.widgets.type_ahead import type_ahead

    main = driver.app.screen
    tree = main.query_one(MemoryTree)
    await driver.press("1")
    line, row = main.view.cursor_line, tree.cursor_line
    waiting: list[bool] = []

    def after() -> None:
        waiting.append(type_ahead(driver.app).holding())
        main.set_focus(main.view)

    answers = await _ask(driver, lambda: ConfirmScreen("Go on?", "", "Yes"), after=after)
    burst(driver, "escape", "j")
    await driver.until(lambda: answers, what="the dialog answered")
    await driver.settled()
    assert waiting == [True], "keys were not held while the flow took the answer"
    assert main.focused is main.view and main.view.cursor_line == line + 1 and tree.cursor_line == row
    assert not type_ahead(driver.app).holding()


async def _typed_entry(driver) -> Any:
    """A new entry holding a token typed in the editor (not yet entered); the editor's input."""
    await driver.to_first_entry()
    await driver.press("o")
    inp = driver.app.screen.query_one("#editor-input")
    await driver.until(lambda: inp.has_focus, what="the editor")
    # One burst, as a paste gives it: pilot.press waits for the app to go idle after each of the
    # 46 keys (two waits of 20 ms at least), seconds in all for text no test here looks into.
    burst(driver, *TOKEN)
    await driver.until(lambda: inp.value == TOKEN, what="the token in the editor")
    return inp


async def test_esc_twice_on_the_credential_question_cancels_the_edit(driver) -> None:
    """Enter, Esc on the credential question ("Esc: keep editing"), Esc: the second Esc did not
    cancel the edit (the entry view, which the editor had handed the focus to at Enter, took it),
    and the keys typed next went astray."""
    inp = await _typed_entry(driver)
    burst(driver, "enter", "escape", "escape")
    question = await driver.asked("Discard this edit?")
    assert question.body == "Your changes to this entry are not saved."
    await driver.press("n")  # keep editing: back in the editor, nothing lost
    await driver.until(lambda: inp.has_focus, what="the editor again")
    assert inp.value == TOKEN


async def test_the_credential_question_is_asked_with_the_focus_in_the_editor(driver) -> None:
    """Enter handed the focus to the entry view before the question was asked: the view is what
    the dialog found, and what the screen had again after Esc, until the flow gave the editor back."""
    inp = await _typed_entry(driver)
    main = driver.app.screen
    burst(driver, "enter")
    await driver.asked_secret()
    assert main.focused is inp and not main.editor.saving and not inp.disabled
    burst(driver, "escape")
    await driver.until(lambda: driver.app.screen is main, what="the question closed")
    assert main.focused is inp


async def test_keys_typed_after_esc_on_the_credential_question_go_into_the_entry(driver) -> None:
    """Keys typed right after Esc ("Undo me: ") lost some of their letters to the entry view."""
    inp = await _typed_entry(driver)
    burst(driver, "enter", "escape", "home", *"Undo me: ")
    await driver.until(lambda: inp.value == "Undo me: " + TOKEN, what="the letters typed in the entry")
    await driver.settled()
    assert inp.has_focus and driver.app.screen.editor.target is not None


async def test_enter_on_the_credential_question_saves_and_the_next_keys_are_commands(driver) -> None:
    """The placeholder chosen (Enter on the question), the entry is saved; j typed right after is a
    command of the entry view, not a letter of the entry."""
    inp = await _typed_entry(driver)
    main = driver.app.screen
    burst(driver, "enter")
    await driver.asked_secret()
    burst(driver, "enter", "j")
    await driver.until(lambda: not main.editor.display, timeout=30, what="the entry saved")
    await driver.settled()
    lines = (driver.current.data or b"").decode().splitlines()
    saved = next(i for i, text in enumerate(lines, 1) if "<redacted: GitHub token>" in text)
    assert lines[saved - 1] == "- token <redacted: GitHub token>", lines[saved - 1]
    assert main.focused is main.view and main.view.cursor_line == saved + 1 and not inp.has_focus


async def test_the_conflict_view_opens_with_the_focus_in_the_result_pane(driver) -> None:
    """The conflict dialog opens with the focus in the pane one types in (the result), and keys
    typed at once go there."""
    app = driver.app
    await _ask(driver, _makers()["ConflictScreen"])
    assert app.screen.focused is not None and app.screen.focused.id == "conflict-merged"
    burst(driver, *"typed")
    await driver.until(lambda: "typed" in app.screen.query_one("#conflict-merged").text, what="typed in the result")


async def test_esc_and_a_letter_read_together_are_esc_then_the_letter(driver) -> None:
    """A terminal sends Esc then U typed at once (a fast typist, tmux ``send-keys Escape Escape``
    then ``Undo me: ``) as one read, ESC U, which Textual reads as alt+shift+u: the second Esc
    vanished into it and its U was typed into the entry. No key of amr is an alt+letter: Esc then
    the letter, as typed."""
    from textual import events

    inp = await _typed_entry(driver)
    driver.app.post_message(events.Key("alt+shift+u", "U"))
    question = await driver.asked("Discard this edit?")
    assert question.body == "Your changes to this entry are not saved."
    await driver.press("n")
    await driver.until(lambda: inp.has_focus, what="the editor again")
    assert inp.value == TOKEN  # the U went to the question, not into the entry


def test_an_alt_letter_is_split_only_when_nothing_binds_it() -> None:
    from textual import events

    from amr_tui.widgets.type_ahead import esc_and_key

    assert [(k.key, k.character) for k in esc_and_key(events.Key("alt+shift+u", "U")) or []] == [
        ("escape", "\x1b"),
        ("U", "U"),
    ]
    assert [(k.key, k.character) for k in esc_and_key(events.Key("alt+slash", "/")) or []] == [
        ("escape", "\x1b"),
        ("slash", "/"),
    ]
    assert esc_and_key(events.Key("alt+left", None)) is None
    assert esc_and_key(events.Key("u", "u")) is None
