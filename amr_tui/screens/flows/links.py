"""The link graph and tags flows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import PromptScreen
from amr_tui.screens.flows.common import shown_repo
from amr_tui.screens.graph import GraphScreen
from amr_tui.screens.tags import TagsScreen
from amr_tui.services.session.tags import rename_tag_in_repo, tag_counts

if TYPE_CHECKING:
    from textual.app import App

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.session.session import Session


async def link_graph(app: App[int], main: MainScreen, session: Session) -> None:
    """The link graph of the shown file's repo, centred on it (``screens/graph.py``); the file
    picked there opens on the main screen."""
    repo = shown_repo(main, session)
    if repo is None:
        return
    current = main.current
    centre = current.path if current is not None and current.repo == repo else None
    picked = await app.push_screen_wait(GraphScreen(repo, centre, lambda: session.link_graph(repo)))
    if picked is not None:
        main.go_to(picked.repo, picked.path, 0)


async def tags(app: App[int], main: MainScreen, session: Session) -> None:
    """The tags view (``screens/tags.py``): a tag's entries open in the finder (``tag:NAME``); a
    tag renamed is rewritten in every file of its repo in one commit, as a save."""
    writable = {r for r in session.names if not session.mount(r).read_only}
    picked = await app.push_screen_wait(TagsScreen(lambda: tag_counts(session), writable))
    if picked is None:
        return
    if picked.action == "open":
        main.action_find(f"tag:{picked.tag} repo:{picked.repo}")
        return
    new = await app.push_screen_wait(
        PromptScreen(
            make_visible(f"Rename #{picked.tag} in {picked.repo}"),
            value=picked.tag,
            help_text="Every #tag, [tags: ...] and front matter tags: in the repo's files, nested tags too, in one commit.",
        )
    )
    if not new or new.strip().lstrip("#") == picked.tag:
        return
    repo, old = picked.repo, picked.tag
    await main.save(lambda: rename_tag_in_repo(session, repo, old, new)[0])
