"""`amr lint` (and `--fix`) on repos that are not tidy memory repos, run as a real process:
Markdown without MEMORY.md, untracked files, symlinks out of the repo, a repo git refuses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.test_cli import amr


def _codes(res: subprocess.CompletedProcess[str]) -> set[tuple[str, str]]:
    return {(d["path"], d["code"]) for d in json.loads(res.stdout)["diagnostics"]}


# -- item: a git repo with notes but no MEMORY.md is linted, with AMR001 -----------------------


def test_git_repo_with_markdown_but_no_memory_md_reports_amr001_and_lints_the_rest(make_repo):
    repo = make_repo("notes", {"notes.md": "* star bullet [added: 2026-02-30]\n", "sub/more.md": "- fine\n"})
    res = amr("lint", str(repo), "--json")
    assert res.returncode == 1, res.stderr
    found = _codes(res)
    assert ("MEMORY.md", "AMR001") in found
    assert ("notes.md", "AMR008") in found  # the rest is linted
    here = amr("lint", "--json", cwd=repo / "sub")  # no argument: the git work tree around the folder
    assert here.returncode == 1 and ("MEMORY.md", "AMR001") in _codes(here), here.stderr
    one = amr("lint", str(repo / "notes.md"), "--json")  # one file of such a repo
    assert one.returncode == 1 and _codes(one) == {("notes.md", "AMR008")}, one.stderr


def test_a_folder_named_explicitly_with_markdown_is_linted(tmp_path: Path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text(
        "- the deploy runs at noon [source: https://example.com/s/1]\n"
        "- the deploy runs at noon [source: https://example.com/s/1]\n"
    )
    res = amr("lint", str(folder), "--json")  # AMR entries without their MEMORY.md
    assert res.returncode == 1 and {("MEMORY.md", "AMR001"), ("a.md", "AMR014")} <= _codes(res), res.stderr
    plain = tmp_path / "plain"  # plain Markdown notes: no format of their own, so no MEMORY.md to miss
    plain.mkdir()
    # (a two-word line such as "- a fact" is a label, not a fact: issue 39, duplicates)
    (plain / "a.md").write_text("- the deploy runs at noon\n- the deploy runs at noon\n")
    res = amr("lint", str(plain), "--json")
    assert res.returncode == 1 and _codes(res) == {("a.md", "AMR014")}, res.stderr


def test_nothing_to_lint_is_still_a_usage_error(tmp_path: Path, make_repo):
    assert amr("lint", str(tmp_path / "nope")).returncode == 2
    code = make_repo("code", {"main.py": "print(1)\n"})
    res = amr("lint", str(code))
    assert res.returncode == 2 and "no MEMORY.md" in res.stderr and "Markdown" in res.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    assert amr("lint", str(empty)).returncode == 2
    plain = tmp_path / "plain"  # not git, not named: the current folder is not linted
    plain.mkdir()
    (plain / "a.md").write_text("- a\n")
    assert amr("lint", cwd=plain).returncode == 2


def _run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os
    import sys

    full = {**os.environ, "NO_COLOR": "1", "AMR_NO_CACHE": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "amr_tui", *args], cwd=cwd, env=full, capture_output=True, text=True, timeout=120
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(root).parts
    }


INDEX = "# Memory\n\n## Index\n"


# -- item: --fix never links a file git does not track ---------------------------------------


def test_fix_links_tracked_orphans_only(make_repo):
    repo = make_repo("mem", {"MEMORY.md": INDEX, "tracked.md": "- t\n"})
    (repo / "untracked.md").write_text("- u\n")
    before = json.loads(_run("lint", str(repo), "--json").stdout)["diagnostics"]
    fixable = {d["path"]: d["fixable"] for d in before if d["code"] == "AMR013"}
    assert fixable == {"tracked.md": True, "untracked.md": False}
    res = _run("lint", str(repo), "--fix", "--json")
    memory = (repo / "MEMORY.md").read_text()
    assert "- [[tracked]]" in memory and "untracked" not in memory, memory
    left = [d for d in json.loads(res.stdout)["diagnostics"] if d["code"] == "AMR013"]
    assert [d["path"] for d in left] == ["untracked.md"] and "git does not track" in left[0]["message"]


# -- item: a .md symlink out of the repo is reported, never linked, followed or written ----------


def test_fix_with_a_symlink_out_of_the_repo_ends_and_reports_it(make_repo, tmp_path: Path):
    outside = tmp_path / "somefile.md"
    outside.write_text("- outside the repo\n")
    repo = make_repo("mem", {"MEMORY.md": INDEX + "- [[notes]]\n", "notes.md": "* star\n"})
    (repo / "evil.md").symlink_to(outside)
    res = _run("lint", "--fix", cwd=repo)
    assert (repo / "MEMORY.md").read_text() == INDEX + "- [[notes]]\n"  # not linked, once or 50 times
    assert (repo / "notes.md").read_text() == "- star\n"  # the other fix still applied
    assert outside.read_text() == "- outside the repo\n" and (repo / "evil.md").is_symlink()
    assert "Fixed 1 finding." in res.stderr, res.stderr
    assert res.stdout.splitlines() == [
        "evil.md: AMR012 a symlink that leads outside the memory root, into .git, or round in a loop; "
        "amr never reads it or writes through it"
    ], res.stdout
    (repo / "MEMORY.md").write_text(INDEX + "- [[notes]]\n- [[evil]]\n")  # linked by hand: still never followed
    again = _run("lint", "--fix", cwd=repo)
    assert "Fixed" not in again.stderr and outside.read_text() == "- outside the repo\n"
    assert "MEMORY.md:5:3: AMR012" in again.stdout


# -- item: --fix in a repo git refuses (another user's) writes nothing and says why --------------


def test_fix_refuses_a_repo_git_refuses(make_repo):
    repo = make_repo("mem", {"MEMORY.md": INDEX, "t.md": "* star\n"})
    before = _tree(repo)
    res = _run("lint", str(repo), "--fix", env={"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})
    assert res.returncode == 2, res.stdout + res.stderr
    assert "another user" in res.stderr and "nothing" in res.stderr.lower()
    assert _tree(repo) == before
    plain = _run("lint", str(repo), env={"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})  # reading still works
    assert plain.returncode == 1 and "AMR024" in _run("lint", str(repo), "--severity", "info").stdout
    assert "git will not say whether it tracks it" in plain.stdout and "does not track" not in plain.stdout


def test_a_file_too_large_to_read_is_a_finding_not_all_clean(make_repo):
    """Issue 28 point 5: `amr lint` said "All clean." while it skipped a 24 MB file."""
    from amr_tui.services.workspace import MAX_PARSE_BYTES

    repo = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[huge]]\n"})
    line = b"- one fact of the journal\n"
    (repo / "huge.md").write_bytes(b"# Huge\n\n" + line * (MAX_PARSE_BYTES // len(line) + 1))
    res = _run("lint", cwd=repo)
    assert "All clean" not in res.stderr and res.returncode == 1, res.stderr
    assert res.stdout.startswith("huge.md: AMR034 "), res.stdout
    assert "over the 8 MB amr reads" in res.stdout


def test_lint_in_a_folder_of_repos_lints_each_repo_as_the_app_mounts_them(make_repo, tmp_path: Path):
    """`amr lint` run in a folder holding memory repos exited 2 ("not inside a memory repo"),
    although `amr FOLDER` mounts each of them; it lints each repo found the same way."""
    from amr_tui.services.workspace import discover

    make_repo("vm/memory-a", {"MEMORY.md": "# Memory\n\n- [[nowhere]]\n\n## Index\n"})
    make_repo("vm/memory-b", {"MEMORY.md": "# Memory\n\n## Index\n", "x.md": "* star bullet\n"})
    folder = tmp_path / "vm"
    assert [m.name for m in discover([folder])] == ["memory-a", "memory-b"]  # what the app mounts
    here = amr("lint", "--json", cwd=folder)
    assert here.returncode == 1, here.stderr
    repos = {d["repo"] for d in json.loads(here.stdout)["diagnostics"]}
    assert repos == {"memory-a", "memory-b"}
    named = amr("lint", str(folder), "--json")
    assert named.returncode == 1 and json.loads(named.stdout) == json.loads(here.stdout)
