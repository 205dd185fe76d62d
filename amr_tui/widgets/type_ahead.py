"""Keys typed ahead: read in the order typed, and none lost, however fast they come.

Textual hands each key to the focused widget, and a key's binding runs once the key has bubbled
back up to the app, several message hops later; a key read meanwhile goes to whatever has the
focus at that moment. Typed in one burst, ``e Home A l p h a Enter`` put ``Home`` and the letters
into the entry view (the editor ``e`` opens had not taken the focus yet), and Enter saved the
entry unchanged.

:class:`TypeAhead` puts the keys in one line. The app hands it every key and paste it reads
(``AmrApp.on_event``); a key goes on when the one before it is done with, and while no *hold* is
up, else it waits its turn here:

- **done with**: the key reached the app again (its binding ran), or the widgets on its way up
  took it. A marker follows the key up the same chain of message queues (``call_later`` at each
  node, from the widget the key went to, up to the app): when the marker reaches the app, every
  node the key could reach has handled it.
- **a hold**: something a key just started is not there yet: the entry editor opening (until its
  input has the focus), a screen pushed or popped (until it has focused its widget), a file
  opening or a save being made (the main screen), enter in the finder before the results of the
  query typed, a dream-review write before its question is up. Whoever starts it calls
  :func:`hold` with the condition that ends it (and why, shown in its repr); a hold also ends at
  its timeout, so a key never waits for long on something that never came.

Keys typed at a person's speed are each done with long before the next one comes: nothing waits.

An alt+letter that nothing binds is Esc then the letter (:func:`esc_and_key`): the terminal sends
both alike, and amr binds no alt+letter, while Esc closes and cancels everywhere.
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.message_pump import MessagePump

Typed = events.Key | events.Paste

#: How often the holds are looked at again while keys wait on them.
POLL = 0.01
#: At most this many markers follow a key up, while messages it caused wait on its way.
MAX_ROUNDS = 6
#: The longest a key waits on the one before it to be done with.
BUSY_TIMEOUT = 1.0


@dataclass
class _Hold:
    why: str
    until: Callable[[], bool]
    deadline: float


class TypeAhead:
    """The keys of one app, handed on one at a time in the order typed (see the module)."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._waiting: deque[Typed] = deque()
        self._holds: list[_Hold] = []
        self._busy: Typed | None = None  # handed on, its marker on the way up
        self._busy_until = 0.0  # a marker lost on its way (a queue closed under it) waits no longer
        self._again: Typed | None = None  # a waiting key posted to the app again, not yet read
        self._ticking = False
        self._screen: object = None  # the screen at the last look

    # -- what the app asks ---------------------------------------------------------------------

    def waits(self, event: Typed) -> bool:
        """The app read ``event``: True when it waits here (the app does nothing with it now);
        False when the app is to handle it now, and call :meth:`handled` right after."""
        if event is self._again:
            self._again = None
            self._handing(event)
            return False
        if self._busy is not None and time.monotonic() > self._busy_until:
            self._busy = None
        if self._busy is not None or self._again is not None or self._waiting or self.holding():
            self._waiting.append(event)
            self._tick_soon()
            return True
        self._handing(event)
        return False

    def _handing(self, event: Typed) -> None:
        self._busy = event
        self._busy_until = time.monotonic() + BUSY_TIMEOUT

    def handled(self, event: Typed, sent_to: MessagePump) -> None:
        """The app handled ``event``, which it sent on to ``sent_to`` (the focused widget, or the
        screen): the next key goes once the key's way up is clear, and what the key's handlers
        posted on that way (a Cancelled, a Submitted) is handled too."""
        if event is not self._busy:
            return
        rounds = MAX_ROUNDS

        def clear() -> None:
            nonlocal rounds
            rounds -= 1
            if rounds > 0 and _pending_on(self._app, sent_to):
                _after_bubbling(_start_of(self._app, sent_to), self._app, clear)
            else:
                self._done(event)

        _after_bubbling(sent_to, self._app, clear)

    def holding(self) -> bool:
        """A hold is up (the ones that ended are dropped)."""
        self._watch_screen()
        if not self._holds:
            return False
        now = time.monotonic()
        self._holds = [h for h in self._holds if now < h.deadline and not _ended(h)]
        return bool(self._holds)

    # -- holds ---------------------------------------------------------------------------------

    def hold(self, why: str, until: Callable[[], bool], timeout: float) -> None:
        """Keys wait until ``until()`` is true, or ``timeout`` seconds at most."""
        if until():
            return
        self._holds.append(_Hold(why, until, time.monotonic() + timeout))

    def _watch_screen(self) -> None:
        """A screen pushed or popped since the last look: keys wait until it has the focus on
        its widget (a dialog's input, the finder's query), or has nothing to focus."""
        try:
            screen = self._app.screen
        except Exception:  # no screen yet, or the app is closing
            return
        if screen is self._screen:
            return
        self._screen = screen

        def ready() -> bool:
            return (
                screen is not self._app.screen
                or screen.focused is not None
                or (screen.is_mounted and not screen.focus_chain)
            )

        self.hold("a screen opening", ready, 1.0)

    # -- handing on ----------------------------------------------------------------------------

    def _done(self, event: Typed) -> None:
        if self._busy is event:
            self._busy = None
        self._next()

    def _next(self) -> None:
        if not self._waiting or self._again is not None:
            return
        if self._busy is not None and time.monotonic() > self._busy_until:
            self._busy = None
        if self._busy is not None or self.holding():
            self._tick_soon()
            return
        self._again = _copy(self._waiting.popleft())
        self._app.post_message(self._again)

    def _tick_soon(self) -> None:
        if not self._ticking and self._app.is_running:
            self._ticking = True
            self._app.set_timer(POLL, self._tick)

    def _tick(self) -> None:
        self._ticking = False
        self._next()


def _ended(hold: _Hold) -> bool:
    try:
        return bool(hold.until())
    except Exception:  # what it looked at is gone (a screen closed): nothing to wait for
        return True


def _copy(event: Typed) -> Typed:
    """A fresh event for one read before (a message is dispatched once)."""
    if isinstance(event, events.Key):
        return events.Key(event.key, event.character)
    return events.Paste(event.text)


def _way_up(node: MessagePump) -> list[MessagePump]:
    """``node`` and the nodes above it, up to the app."""
    way = [node]
    while isinstance(node, DOMNode) and isinstance(node.parent, MessagePump):
        node = node.parent
        way.append(node)
    return way


def _start_of(app: App[Any], sent_to: MessagePump) -> MessagePump:
    """Where the next marker starts: the widget the key went to while it is on screen, else the
    focused widget (or the screen)."""
    if isinstance(sent_to, DOMNode) and sent_to.is_attached:
        return sent_to
    try:
        return app.focused or app.screen
    except Exception:  # no screen: the app is closing
        return app


def _pending_on(app: App[Any], sent_to: MessagePump) -> bool:
    """A message waits on the way up from the key's widget or from the focused one."""
    nodes = set(_way_up(_start_of(app, sent_to))) | set(_way_up(sent_to))
    return any(node.message_queue_size for node in nodes if node is not app)


def _after_bubbling(start: MessagePump, app: App[Any], then: Callable[[], None]) -> None:
    """Run ``then`` once every message queue from ``start`` up to ``app`` has handled what it
    held: a marker queued behind the key at ``start``, and at each parent in turn once the node
    below has handled it (a key bubbles to a parent while its child handles it)."""

    def step(node: MessagePump) -> None:
        parent = node.parent if isinstance(node, DOMNode) else None
        if node is app:
            then()
        elif parent is None or not isinstance(parent, MessagePump):
            app.call_later(then)  # taken off the screen meanwhile: nothing above it to wait for
        elif not parent.call_later(step, parent):
            step(parent)  # closing: it handles nothing more

    if not start.call_later(step, start):
        step(start)


def esc_and_key(event: events.Key) -> list[events.Key] | None:
    """Esc and the key after it, when the terminal read them together as one alt+key: a
    terminal sends Alt+U as ESC U, and Esc then U typed at once (a fast typist, a burst) comes as
    the same bytes, which Textual reads as ``alt+shift+u``. Only an alt with one printable
    character is split (``alt+left`` is a key of its own); None for any other key."""
    char = event.character
    if not event.key.startswith("alt+") or char is None or len(char) != 1 or not char.isprintable():
        return None
    name = event.key.removeprefix("alt+").removeprefix("shift+")
    if name.casefold() == char.casefold():
        name = char  # a letter or digit is named by itself (U, u, 7)
    return [events.Key("escape", "\x1b"), events.Key(name, char)]


_APPS: weakref.WeakKeyDictionary[App[Any], TypeAhead] = weakref.WeakKeyDictionary()


def type_ahead(app: App[Any]) -> TypeAhead:
    """``app``'s type-ahead line (made at its first use)."""
    found = _APPS.get(app)
    if found is None:
        found = _APPS[app] = TypeAhead(app)
    return found


def hold(app: App[Any], why: str, until: Callable[[], bool], timeout: float = 2.0) -> None:
    """Keys typed from now on wait until ``until()`` is true (at most ``timeout`` seconds)."""
    type_ahead(app).hold(why, until, timeout)
