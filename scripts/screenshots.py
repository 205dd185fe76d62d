"""Regenerate screenshots/*.svg from the demo set: `.venv/bin/python scripts/screenshots.py`
(or only some: `... scripts/screenshots.py graph finder`).

Deterministic: the demo repos are built with fixed dates and authors, and "today" is fixed,
so the pictures change only when the app's look does.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amr_tui.app import make_app  # noqa: E402
from amr_tui.services.config import Config  # noqa: E402
from amr_tui.services.demo import build_demo  # noqa: E402

OUT = ROOT / "screenshots"
SIZE = (130, 36)
TODAY = _dt.date(2026, 11, 29)


async def shoot(vm: Path) -> None:
    from amr_tui.screens.main.screen import Place

    async def ready(pilot) -> None:
        """Loaded and quiet: the file open, the lint marks in, no worker running."""
        app = pilot.app
        for _ in range(300):
            screen = app.screen
            if (
                getattr(screen, "current", None) is not None
                and not getattr(screen, "indexing", True)
                and not any(w.is_running for w in app.workers)
            ):
                break
            await pilot.pause(0.05)
        await pilot.pause(0.4)
        app.clear_notifications()

    scenes = {
        "main": [],
        "topic": [("open", Place("memory-alice", "projects/payments.md", 0))],
        "finder": [("keys", ["slash", *"launch"])],
        "editing": [("keys", ["o"]), ("value", "Deploys freeze on Fridays [source: s/301; added: 2026-02-30]")],
        "help": [("keys", ["question_mark"])],
        "review": [("keys", ["V"]), ("keys", ["enter"])],
        "activity": [("keys", ["A"])],
        "graph": [("keys", ["L"]), ("keys", ["d"]), ("keys", ["l"])],
    }
    only = set(sys.argv[1:])
    for name, steps in scenes.items():
        if only and name not in only:
            continue
        app = make_app([vm], config=Config(), poll_interval=3600, today=TODAY)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            for kind, arg in steps:
                if kind == "open":
                    app.screen.open_place(arg)
                elif kind == "keys":
                    await pilot.press(*arg)
                elif kind == "value":
                    app.screen.query_one("#editor-input").value = arg
                await pilot.pause(0.5)
            app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
            print(f"wrote screenshots/{name}.svg")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        vm = Path(tmp) / "vm"
        build_demo(vm)
        asyncio.run(shoot(vm))


if __name__ == "__main__":
    main()
