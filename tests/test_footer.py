"""The key footer is rebuilt when the keys it shows change, and only then (widgets/footer.py)."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from amr_tui.widgets.file_tree import MemoryTree
from tests.driver import AppDriver


def _keys(drive: AppDriver) -> list[FooterKey]:
    return list(drive.screen.query(FooterKey))


def _shown(drive: AppDriver) -> list[tuple[str, str]]:
    return [(key.key, key.description) for key in _keys(drive)]


async def test_the_footer_is_rebuilt_when_its_keys_change_and_only_then(driver: AppDriver) -> None:
    await driver.settled()
    drawn = _keys(driver)
    assert ("tab", "Next link") in _shown(driver)  # the entry view has the focus

    # bindings said to have changed with the same keys (a check of what is enabled): no rebuild
    driver.screen.refresh_bindings()
    await driver.settled()
    await driver.pilot.pause(0.1)
    assert _keys(driver) == drawn and all(key.is_attached for key in drawn)

    # the tree takes the focus: its keys are shown
    driver.screen.query_one(MemoryTree).focus()
    await driver.until(lambda: ("tab", "Next link") not in _shown(driver), "the tree's keys in the footer")
    assert all(not key.is_attached for key in drawn)

    # and back: the entry view's keys again
    driver.view.focus()
    await driver.until(lambda: ("tab", "Next link") in _shown(driver), "the entry view's keys in the footer")
