"""The key footer, rebuilt only when the keys it shows change.

Textual's ``Footer`` recomposes (a new ``FooterKey`` widget per key, each styled as it mounts)
every time the screen's bindings are said to have changed: every focus move, every
``refresh_bindings()``. Most of those leave the keys the footer shows as they were (moving
between the tree and the entry view of the main screen, a worker's check of what is enabled),
and a start of the app rebuilt the same footer five times over. This footer remembers what
it last drew (each shown key, its description, group, whether it is enabled, its tooltip) and
skips a rebuild that would draw it again.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

from textual.widgets import Footer as TextualFooter

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen


class Footer(TextualFooter):
    """Textual's footer, recomposed only when what it shows is different."""

    _drawn: Hashable | None = None
    _rebuilding = False

    def _shows(self) -> Hashable:
        """What ``compose`` draws from: the screen's shown keys and the palette key."""
        keys = tuple(
            (binding.key, binding.action, binding.description, binding.group, enabled, tooltip)
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )
        return keys, self.show_command_palette, self.compact

    def compose(self) -> ComposeResult:
        self._rebuilding = False
        self._drawn = self._shows() if self._bindings_ready else None
        yield from super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        """As Textual's, without a rebuild when one is on its way (it reads the keys as they are
        when it runs) or when the keys are the ones drawn."""
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if self._rebuilding or self._shows() == self._drawn:
            return
        self._rebuilding = True
        self.call_after_refresh(self.recompose)


__all__ = ["Footer"]
