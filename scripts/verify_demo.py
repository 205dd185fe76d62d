"""Build the scenario of issue 40's captures: a memory repo beside a real code repo whose files,
symbols and scripts were renamed and deleted over commits, and a Claude Code memory folder that
finds its project by itself.

    python scripts/verify_demo.py DEST

writes ``DEST/payments`` (the code), ``DEST/memory-payments`` (AMR memory citing it) and
``DEST/home/.claude/projects/-<DEST with dashes>-payments/memory`` (Claude Code's), then prints the
commands to try. See tests/verifyscenario.py for the history.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.verifyscenario import build_code_repo, build_memory, claude_folder  # noqa: E402


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    dest = Path(sys.argv[1]).resolve()
    if dest.exists() and any(dest.iterdir()):
        print(f"{dest} is not empty", file=sys.stderr)
        return 2
    code = build_code_repo(dest / "payments")
    memory = build_memory(dest / "memory-payments", code)
    folder = claude_folder(dest / "home", code)
    print(f"code:    {code}\nmemory:  {memory}\nclaude:  {folder}\n")
    print(f"amr verify {memory} --code {code}")
    print(f"HOME={dest / 'home'} amr verify {folder}")
    print(f"amr dream {memory} --code {code} && amr dreams show -C {memory} <run-id>")
    print(
        f'printf \'[repo."memory-payments"]\\ncode = ["{code}"]\\n\' >> ~/.config/amr/config.toml; amr {memory}  # then v'
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
