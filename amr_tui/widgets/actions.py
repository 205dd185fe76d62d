"""Every key of amr, declared once: the bindings, the ``?`` help and the command palette read this table.

An ``Action`` is one binding: its ``id`` (the name a ``[keys]`` table in the config rebinds it by:
Textual's keymap keys bindings by id, so an id never changes), its keys, the action it runs, the
text the footer and ``?`` show, and what the ctrl+p palette calls it. Each widget and screen takes
its ``BINDINGS`` from ``bindings(owner)``; the palette (screens/palette.py) and ``?``
(screens/help.py) look the bindings they meet up by id with ``by_id``; the app greys out the
actions that wait for the main screen's session (``needs_session``).

The table is in widgets/ (the lowest layer that has keys) so that widgets and screens both read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Action:
    """One key binding of amr (see the module's docstring)."""

    id: str
    """The binding's id, "owner.name": what the config's ``[keys]`` rebinds."""
    keys: str
    """Textual key names, comma-separated."""
    action: str
    """The action run, as Textual writes it ("app.sync", "new_entry('below')")."""
    description: str
    """What the footer and ``?`` say it does."""
    show: bool = True
    """In the footer (every action is listed by ``?`` and, unless ``in_palette`` is False, by ctrl+p)."""
    priority: bool = False
    """Taken when the app reads the key, before the focused widget sees it."""
    palette: str = ""
    """The palette's name for it ("" : the description)."""
    palette_help: str = ""
    """The palette's line under the name ("": the key alone)."""
    in_palette: bool = True
    """False: not offered by the palette (moving the cursor is for keys; the palette itself)."""
    needs_session: bool = False
    """An app action bound on the main screen that waits for its session: shown, greyed out, until then."""

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.description, show=self.show, priority=self.priority, id=self.id)


#: The actions of each widget and screen ("owner"), in the order their bindings are declared
#: (the footer shows them in that order).
ACTIONS: dict[str, tuple[Action, ...]] = {
    "app": (
        Action("app.help", "question_mark", "help", "Help"),
        Action("app.palette", "ctrl+p", "command_palette", "Palette", in_palette=False),
        Action("app.quit", "q", "quit_app", "Quit"),
    ),
    "activity": (
        Action("activity.close", "escape,q", "close", "Back"),
        Action("activity.mark", "m", "mark_reviewed", "Mark reviewed"),
        Action("activity.revert_change", "x", "revert_change", "Revert change"),
        Action("activity.revert_commit", "X", "revert_commit", "Revert commit"),
        Action("activity.writer", "w", "next_writer", "Writer"),
    ),
    "conflict": (
        Action("conflict.cancel", "escape", "cancel", "Cancel"),
        # Priority: each choice is made when the app reads its key, before a key typed after it
        # reaches the result pane (and the commit), as with enter in the entry editor.
        Action("conflict.ours", "ctrl+o", "ours", "Keep mine", priority=True),
        Action("conflict.theirs", "ctrl+t", "theirs", "Keep theirs", priority=True),
        Action("conflict.save", "ctrl+s", "merged", "Save edited", priority=True),
    ),
    "choice": (Action("choice.cancel", "escape", "cancel", "Cancel"),),
    "confirm": (
        Action("confirm.no", "escape,n", "answer(False)", "No"),
        Action("confirm.yes", "y", "answer(True)", "Yes"),
    ),
    "prompt": (
        # Priority: the answer is read when the app reads enter, before a key typed after it
        # reaches the input (Input's own enter bubbles up first, and the answer held that key).
        Action("prompt.ok", "enter", "submit", "OK", priority=True),
        Action("prompt.cancel", "escape", "cancel", "Cancel"),
    ),
    "text_prompt": (
        Action("prompt.complete", "tab", "complete('complete')", "Complete [[link", show=False),
        Action("prompt.complete_down", "down", "complete('down')", "Next target", show=False),
        Action("prompt.complete_up", "up", "complete('up')", "Previous target", show=False),
    ),
    "file_edit": (
        # Priority: the text is read when the app reads ctrl+s, before a key typed after it
        # reaches the text area (and the commit), as with enter in the entry editor.
        Action("file_edit.save", "ctrl+s", "save", "Save and commit", priority=True),
        Action("file_edit.close", "escape", "close", "Close"),
        # [[ completion (widgets.link_complete): these keys go to its list only while it answers
        # them (check_action); otherwise they are the text area's own.
        Action("file_edit.complete", "tab", "complete('complete')", "Complete [[link", show=False, priority=True),
        Action("file_edit.complete_take", "enter", "complete('accept')", "Take target", show=False, priority=True),
        Action("file_edit.complete_down", "down", "complete('down')", "Next target", show=False, priority=True),
        Action("file_edit.complete_up", "up", "complete('up')", "Previous target", show=False, priority=True),
        Action("file_edit.complete_close", "escape", "complete('close')", "Close list", show=False, priority=True),
    ),
    "finder": (
        Action("finder.close", "escape", "dismiss_none", "Close"),
        Action("finder.down", "down", "move(1)", "Next", show=False),
        Action("finder.up", "up", "move(-1)", "Previous", show=False),
        # A priority binding: enter is taken when the app reads it, so the finder closes before
        # a key typed right after it is read (as a plain binding, enter first bubbled up from the
        # input, and that key, e to edit the entry found, was typed into the query and lost).
        Action("finder.open", "enter", "choose", "Open", priority=True),
        Action("finder.past", "ctrl+r", "toggle_past", "Now / past"),
    ),
    "forgotten": (
        Action("forgotten.close", "escape,q", "close", "Back"),
        Action("forgotten.restore", "r,enter", "restore", "Restore"),
    ),
    "graph": (
        Action("graph.close", "escape,q", "close", "Close"),
        Action("graph.open", "enter,o", "open", "Open file"),
        Action("graph.recentre", "c", "recentre", "Re-centre here"),
        Action("graph.depth", "d", "depth", "Depth 1 / 2"),
        Action("graph.overview", "v", "overview", "Overview / neighbourhood"),
        Action("graph.left", "left,h", "move(-1, 0)", "Left", show=False),
        Action("graph.right", "right,l", "move(1, 0)", "Right", show=False),
        Action("graph.up", "up,k", "move(0, -1)", "Up", show=False),
        Action("graph.down", "down,j", "move(0, 1)", "Down", show=False),
    ),
    "help": (Action("help.close", "escape,q,question_mark", "dismiss", "Close"),),
    "history": (
        Action("history.close", "escape,q", "dismiss", "Back"),
        Action("history.switch", "tab", "focus_next", "Switch pane", show=False),
    ),
    "timeline": (
        Action("timeline.close", "escape,q", "dismiss", "Back"),
        Action("timeline.reblame", "p", "reblame", "Blame parent"),
    ),
    "main": (
        Action(
            "main.find",
            "slash",
            "find",
            "Find",
            palette="Find entries and files",
            palette_help="Fuzzy finder over every mounted repo",
        ),
        Action("main.edit", "e", "edit_entry", "Edit"),
        Action(
            "main.new_below",
            "o",
            "new_entry('below')",
            "New below",
            palette="New entry below",
            palette_help="Write a new entry under the cursor",
        ),
        Action("main.new_above", "O", "new_entry('above')", "New above", show=False),
        Action("main.delete", "d", "delete_entry", "Delete", show=False),
        Action("main.stamp", "t", "stamp_added", "Stamp added: today", show=False),
        Action("main.move", "m", "move_entry", "Move", show=False),
        Action(
            "main.edit_file",
            "E",
            "edit_file",
            "Edit file",
            show=False,
            palette="Edit whole file",
            palette_help="TextArea with Markdown highlighting",
        ),
        Action("main.external", "ctrl+e", "external_editor", "$EDITOR", show=False),
        Action(
            "main.new_file",
            "n",
            "new_file",
            "New file",
            show=False,
            palette="New file",
            palette_help="Create a memory file in the current repo",
        ),
        Action(
            "main.rename",
            "R",
            "rename_file",
            "Rename file",
            show=False,
            palette="Rename or move file",
            palette_help="Rewrites every link to it in the same commit",
        ),
        Action(
            "main.delete_file",
            "D",
            "delete_file",
            "Delete file",
            show=False,
            palette="Delete file",
            palette_help="Lists its backlinks first",
        ),
        Action(
            "main.capture",
            "c",
            "capture",
            "Capture",
            show=False,
            palette="Capture a fact",
            palette_help="Remember something; asks which repo",
        ),
        Action("main.back", "left_square_bracket,alt+left", "back", "Back", show=False),
        Action("main.forward", "right_square_bracket,alt+right", "forward", "Forward", show=False),
        Action(
            "main.memory",
            "M",
            "memory",
            "MEMORY.md",
            show=False,
            palette="Go to MEMORY.md",
            palette_help="The entry point of the current repo",
        ),
        Action(
            "main.raw",
            "r",
            "toggle_raw",
            "Raw lines",
            show=False,
            palette="Toggle raw lines",
            palette_help="Show lines exactly as written",
        ),
        Action("main.side", "s", "toggle_side", "Side panel", show=False),
        Action("main.tree", "b", "toggle_tree", "File tree", show=False),
        Action("main.tree_narrower", "less_than_sign", "tree_width(-2)", "Narrower tree", show=False),
        Action("main.tree_wider", "greater_than_sign", "tree_width(2)", "Wider tree", show=False),
        Action(
            "main.reload",
            "ctrl+r",
            "reload",
            "Reload",
            show=False,
            palette="Reload",
            palette_help="Read the open file again",
        ),
        Action("main.history", "h", "app.file_history", "History", needs_session=True),
        Action("main.timeline", "H", "app.entry_timeline", "Fact history", show=False, needs_session=True),
        Action("main.forgotten", "F", "app.forgotten", "Forgotten facts", show=False, needs_session=True),
        Action("main.forget", "x", "app.forget_entry", "Forget", show=False, needs_session=True),
        Action("main.undo", "z", "undo", "Undo amr's last write", show=False),
        Action("main.commit_foreign", "U", "commit_foreign", "Commit others' changes", show=False),
        Action("main.dreams", "V", "app.review_dreams", "Dreams", needs_session=True),
        Action("main.trim", "T", "app.trim", "Trim to budget", show=False),
        Action("main.activity", "A", "app.activity", "Activity review", show=False, needs_session=True),
        Action(
            "main.stale",
            "v",
            "app.stale",
            "Stale? (check against code)",
            show=False,
            palette="Stale? queue",
            palette_help="Facts whose evidence no longer holds in the code they cite",
            needs_session=True,
        ),
        Action("main.sync", "S", "app.sync", "Sync", show=False, needs_session=True),
        Action("main.share", "P", "app.share", "Share for pairing", show=False, needs_session=True),
        Action("main.graph", "L", "app.link_graph", "Link graph", show=False, needs_session=True),
        Action("main.tags", "number_sign", "app.tags", "Tags", show=False, needs_session=True),
        Action("main.focus_tree", "1", "focus('tree')", "Tree", show=False),
        Action("main.focus_view", "2", "focus('view')", "Entries", show=False),
        Action("main.focus_backlinks", "3", "focus('backlinks')", "Backlinks", show=False),
        Action("main.focus_outgoing", "4", "focus('outgoing')", "Links", show=False),
    ),
    "dreams": (
        Action("dreams.close", "escape,q", "close", "Back"),
        # priority: the list would take enter itself, and hide the key from the footer
        Action("dreams.open", "enter", "open_run", "Review", priority=True),
        # ctrl+n: letters filter the list
        Action("dreams.now", "ctrl+n", "dream_now", "Dream now"),
    ),
    "review": (
        Action("review.close", "escape,q", "close", "Back"),
        Action("review.accept", "a", "decide('accept')", "Accept change"),
        Action("review.reject", "r", "decide('reject')", "Reject change"),
        Action("review.accept_file", "A", "decide_file", "Accept file"),
        Action("review.edit", "e", "edit_change", "Edit, then accept", show=False),
        Action("review.viewed", "v", "toggle_viewed", "Viewed"),
        Action("review.apply", "ctrl+s", "apply", "Apply accepted"),
        Action("review.accept_all", "ctrl+a", "accept_all", "Accept run", show=False),
        Action("review.reject_run", "X", "reject_run", "Reject run"),
        Action("review.undo", "u", "undo", "Undo decision", show=False),
    ),
    "secret": (
        Action("secret.save", "enter", "submit", "Save", priority=True),
        Action("secret.cancel", "escape", "cancel", "Keep editing"),
    ),
    "share": (
        Action("share.close", "escape", "close", "Back"),
        # priority: shares the folder as typed so far
        Action("share.go", "ctrl+s", "share", "Share", priority=True),
        Action("share.write", "w", "toggle_write", "Grant write"),
    ),
    "stale": (
        Action("stale.close", "escape,q", "close", "Back"),
        Action("stale.confirm", "c", "confirm", "Confirm (verified: today)"),
        Action("stale.edit", "e", "edit", "Edit"),
        Action("stale.supersede", "s", "supersede", "Supersede"),
        Action("stale.forget", "x", "forget", "Forget"),
        Action("stale.open", "enter", "open", "Open"),
        Action("stale.recheck", "R", "recheck", "Check again"),
    ),
    "conflict_sync": (
        Action("conflict_sync.close", "escape", "close", "Leave for later"),
        Action("conflict_sync.ours", "o", "choose('ours')", "Mine"),
        Action("conflict_sync.theirs", "t", "choose('theirs')", "Theirs"),
        Action("conflict_sync.both", "b", "choose('both')", "Both"),
        Action("conflict_sync.base", "B", "choose('base')", "Base", show=False),
        Action("conflict_sync.edit", "e", "edit", "Edit"),
        Action("conflict_sync.resolve", "ctrl+s", "resolve", "Resolve and sync"),
    ),
    "tags": (
        Action("tags.close", "escape", "close", "Close"),
        Action("tags.rename", "r", "rename", "Rename tag in its repo"),
    ),
    "welcome": (
        Action("welcome.open_found", "ctrl+o", "open_found", "Open the memory found"),
        Action("welcome.demo", "ctrl+d", "choose('demo')", "Open the demo"),
        Action("welcome.init", "ctrl+n", "choose('init')", "Create a memory repo"),
        Action("welcome.quit", "escape", "choose(None)", "Quit"),
    ),
    "editor": (
        # A priority binding: enter is taken when the app reads it, before a key typed after it
        # reaches the input (as a plain binding, enter bubbles up to the app first, and a key
        # typed right after it was in the input, and in the saved line, by then).
        Action("editor.save", "enter", "submit", "Save", priority=True),
        Action("editor.cancel", "escape", "cancel", "Cancel edit"),
        Action("editor.date", "ctrl+t", "stamp_date", "Add today's date"),
        # [[ completion (widgets.link_complete): tab takes a target (it never leaves the field),
        # up and down move in the list; enter and esc answer the list first while it is open.
        Action("editor.complete", "tab", "complete('complete')", "Complete [[link", show=False),
        Action("editor.complete_down", "down", "complete('down')", "Next target", show=False),
        Action("editor.complete_up", "up", "complete('up')", "Previous target", show=False),
    ),
    "view": (
        Action("view.down", "down,j", "cursor(1)", "Down", show=False, in_palette=False),
        Action("view.up", "up,k", "cursor(-1)", "Up", show=False, in_palette=False),
        Action("view.pagedown", "pagedown", "page(1)", "Page down", show=False, in_palette=False),
        Action("view.pageup", "pageup", "page(-1)", "Page up", show=False, in_palette=False),
        Action("view.top", "home,g", "edge(0)", "Top", show=False, in_palette=False),
        Action("view.bottom", "end,G", "edge(1)", "Bottom", show=False, in_palette=False),
        Action("view.next_link", "tab", "next_link(1)", "Next link"),
        Action("view.prev_link", "shift+tab", "next_link(-1)", "Prev link", show=False),
        Action("view.follow", "enter", "activate", "Follow"),
    ),
    # and the list's keys (widgets.file_tree)
    "tree": (Action("tree.open", "enter", "select_cursor", "Open", show=False),),
    # j/k/g/G of every list (widgets.lists.ListKeys): option lists, tables, the file tree
    "list": (
        Action("list.down", "j", "list_down", "Down", show=False),
        Action("list.up", "k", "list_up", "Up", show=False),
        Action("list.first", "g", "list_first", "First", show=False),
        Action("list.last", "G", "list_last", "Last", show=False),
    ),
    "sbs": (
        Action("sbs.down", "down,j", "move(1)", "Down", show=False),
        Action("sbs.up", "up,k", "move(-1)", "Up", show=False),
        Action("sbs.next", "n", "next_change(1)", "Next change"),
        Action("sbs.prev", "p", "next_change(-1)", "Prev change", show=False),
        Action("sbs.pagedown", "pagedown", "move(20)", "Page down", show=False),
        Action("sbs.pageup", "pageup", "move(-20)", "Page up", show=False),
    ),
    "side": (Action("side.open", "enter", "open", "Open", show=False),),
}

_BY_ID = {a.id: a for group in ACTIONS.values() for a in group}


def bindings(*owners: str) -> list[BindingType]:
    """The ``BINDINGS`` of a widget or screen: the bindings of ``owners``' actions, in order."""
    return [a.binding() for owner in owners for a in ACTIONS[owner]]


def by_id(binding_id: str | None) -> Action | None:
    """The action of a binding, by its id (None for a binding not of amr's: Textual's own)."""
    return _BY_ID.get(binding_id) if binding_id else None


def all_actions() -> tuple[Action, ...]:
    """Every action of the table, once."""
    return tuple(_BY_ID.values())
