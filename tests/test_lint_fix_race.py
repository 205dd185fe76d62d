"""`amr lint --fix` while agents append and commit: the fixes are committed through the write gate,
merged onto what is committed by then and brought into the file as it is at that moment, so no
line an agent wrote is lost and no committed fact disappears from a later commit (it used to
rewrite whole files from a snapshot)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from amr_tui.services.lint.fix import fix_repo
from amr_tui.services.workspace import discover
from tests.conftest import git

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)

AGENT = r"""
import subprocess, sys, time
root, name, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.monotonic() + seconds
n = 0
while time.monotonic() < end:
    n += 1
    line = f"- fact {name}-{n} [source: https://example.com/{name}/{n}]"
    with open(root + "/MEMORY.md", "a") as f:
        f.write(line + "\n")
    print(line, flush=True)
    for _ in range(50):  # another writer may hold index.lock, as with any git
        res = subprocess.run(["git", "commit", "-qam", f"{name} {n}"], cwd=root, capture_output=True)
        if res.returncode == 0 or b"nothing to commit" in res.stdout + res.stderr:
            break
        time.sleep(0.01)
    time.sleep(0.03)
"""


def test_lint_fix_racing_three_agents_loses_nothing(make_repo) -> None:
    # Star bullets (AMR024) give --fix something to rewrite on every round.
    body = "# Memory\n\n" + "".join(f"* starred fact {i}\n" for i in range(30)) + "\n## Index\n"
    root = make_repo(files={"MEMORY.md": body})
    (mount,) = discover([root])
    agents = [
        subprocess.Popen([sys.executable, "-c", AGENT, str(root), f"a{i}", "4"], stdout=subprocess.PIPE, text=True)
        for i in range(3)
    ]
    fixes = 0
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline:
        fixes += fix_repo(mount).applied
        with open(root / "MEMORY.md", "a") as f:  # more to fix for the next round
            f.write("* another starred fact\n")
    written = [ln for a in agents for ln in a.communicate(timeout=60)[0].splitlines()]
    assert fixes > 0 and written
    on_disk = (root / "MEMORY.md").read_text()
    missing = [ln for ln in written if ln not in on_disk]
    assert not missing, f"{len(missing)} agent lines lost from the file, e.g. {missing[:3]}"
    subprocess.run(["git", "add", "MEMORY.md"], cwd=root, check=True)
    git(root, "commit", "-q", "--allow-empty", "-m", "final")
    head = git(root, "show", "HEAD:MEMORY.md")
    assert all(ln in head for ln in written)
