"""After a dialog, the focus is where the user was, and the keys typed next go there.

Textual keeps each screen's focused widget while a screen is pushed over it, and gives it back
when that screen is dismissed; two things undid it in amr:

- **Something under the dialog moved the focus meanwhile**: a worker's result, a refresh, a
  widget hidden or disabled (the entry editor hands the focus to the entry view when its save
  starts). The screen under the dialog then resumed with the focus elsewhere.
- **The flow that asked acts on the answer a moment later.** A dialog asked from a flow
  (``push_screen_wait``, in a worker) is dismissed at once, but the flow runs on only at the
  event loop's next turns: the key typed right after the answer (the second Esc of "Esc: keep
  editing", then Esc to cancel the edit) went to whatever had the focus before the flow gave the
  editor back, and was lost there.

:class:`FocusReturn` (one per app, ``AmrApp``) follows the screen stack: when a screen is pushed
it notes the widget focused on the screen under it; when that screen is dismissed it focuses that
widget again (when it is still there and can take the focus), and, for a dialog a flow waits on,
keys typed from then on wait (``widgets/type_ahead.py``) until the flow has taken the answer and
run on to its next wait.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from amr_tui.widgets.type_ahead import hold

#: The longest keys wait for a flow to take a dialog's answer.
ANSWER_TIMEOUT = 2.0


class _Answer:
    """A dialog a flow waits on: ``taken`` once the flow has run on from the answer."""

    def __init__(self) -> None:
        self.taken = False


class FocusReturn:
    """The focus given back after each screen the app pushes (see the module)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.stack: list[Screen[Any]] = list(app.screen_stack)
        self.found: weakref.WeakKeyDictionary[Screen[Any], weakref.ref[Widget]] = weakref.WeakKeyDictionary()
        self.answers: weakref.WeakKeyDictionary[Screen[Any], _Answer] = weakref.WeakKeyDictionary()
        app.screen_change_signal.subscribe(app, self.changed, immediate=True)  # as it changes, before any key

    # -- what the app tells ----------------------------------------------------------------------

    def awaited(self, screen: Screen[Any]) -> _Answer:
        """``screen`` is about to be pushed by a flow that waits on its answer."""
        answer = self.answers[screen] = _Answer()
        return answer

    def changed(self, _screen: Screen[Any]) -> None:
        """The screen stack changed (Textual's ``screen_change_signal``, sent as it changes)."""
        now = list(self.app.screen_stack)
        before, self.stack = self.stack, now
        same = 0
        while same < min(len(before), len(now)) and before[same] is now[same]:
            same += 1
        for i in range(max(same, 1), len(now)):  # pushed: what each found under it
            under = now[i - 1].focused
            if under is not None:
                self.found[now[i]] = weakref.ref(under)
        if same == len(now) and same < len(before) and now:  # popped back to now[-1]
            self._back(now[-1], before[same])

    # -- giving the focus back -------------------------------------------------------------------

    def _back(self, screen: Screen[Any], dismissed: Screen[Any]) -> None:
        ref = self.found.pop(dismissed, None)
        widget = ref() if ref is not None else None
        if widget is not None and screen.focused is not widget and self._can_focus(screen, widget):
            screen.set_focus(widget)
        answer = self.answers.pop(dismissed, None)
        if answer is not None and not answer.taken:
            hold(self.app, "a dialog's answer being taken", lambda: answer.taken, ANSWER_TIMEOUT)

    @staticmethod
    def _can_focus(screen: Screen[Any], widget: Widget) -> bool:
        try:
            return widget.is_attached and widget.screen is screen and widget.focusable
        except Exception:  # taken off the screen meanwhile
            return False


def taken_soon(answer: _Answer) -> None:
    """The flow has the answer: it is taken once the flow's code up to its next wait has run
    (the event loop's next turn)."""
    try:
        asyncio.get_running_loop().call_soon(setattr, answer, "taken", True)
    except RuntimeError:  # no loop: the app is gone
        answer.taken = True
