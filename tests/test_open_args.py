"""``amr [PATH...] [--read-only NAME]``: a PATH that does not exist and a --read-only NAME that
is no mounted repo are errors (exit 2, a message on stderr, no app); ``amr REPO/file.md:LINE``
opens that file at that line. Real repos and processes; the opening through Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.app import make_app
from amr_tui.services.config import Config
from tests.driver import running
from tests.historyhelpers import new_repo
from tests.hostilehelpers import run_amr

TEAM = "# Team\n\n- Joe leads the team\n\n## People\n\n- Priya owns pricing\n- Sam owns billing\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes/team]]\n", "notes/team.md": TEAM}
    )


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--read-only", "nosuchrepo", "memory"], "--read-only nosuchrepo"),
        (["memory/nope.md"], "no such file or folder"),
        (["nowhere"], "no such file or folder"),
        (["memory/notes/team.md:x7"], "no such file or folder"),
    ],
)
def test_bad_arguments_exit_2_without_opening_the_app(repo: Path, argv: list[str], says: str) -> None:
    run = run_amr(argv, cwd=repo.parent, timeout=30)
    assert run.returncode == 2, run
    assert says in run.stderr, run.stderr
    assert run.stdout == ""  # no app drew anything


async def test_file_and_line_argument_opens_there(repo: Path) -> None:
    from amr_tui.cli.app_cmd import parse_targets

    paths, open_at = parse_targets([str(repo / "notes" / "team.md") + ":7"])
    assert open_at == (repo / "notes" / "team.md", 7)
    app = make_app(paths, config=Config(), poll_interval=60, open_at=open_at)
    async with running(app) as drive:
        await drive.settled()
        assert (drive.current.repo, drive.current.path) == ("memory", "notes/team.md")
        assert drive.view.cursor_line == 7


async def test_file_argument_without_line_opens_that_file(repo: Path) -> None:
    from amr_tui.cli.app_cmd import parse_targets

    paths, open_at = parse_targets([str(repo / "notes" / "team.md")])
    assert open_at == (repo / "notes" / "team.md", 0)
    app = make_app(paths, config=Config(), poll_interval=60, open_at=open_at)
    async with running(app) as drive:
        await drive.settled()
        assert drive.current.path == "notes/team.md"
