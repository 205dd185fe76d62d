"""Judging memory against a real code repo whose files, symbols, scripts and targets were renamed
and deleted over commits (``tests/verifyscenario.py``): each verdict, with the commit and day;
several code repos; the cache per HEAD; a hostile code repo; finding the code repo."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest

from amr_tui.services.config import Config, load_config
from amr_tui.services.verify.coderepo import CodeSource, code_sources, decode_project, encode
from amr_tui.services.verify.facts import CodeRepoError, facts_for
from amr_tui.services.verify.run import verify_mount
from amr_tui.services.workspace import Mount
from tests.verifyscenario import build_code_repo, build_memory, claude_folder, commit_of, git


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("scenario")
    code = build_code_repo(root / "payments")
    return code, build_memory(root / "memory-payments", code)


def verdicts(memory: Path, *codes: Path) -> dict[tuple[str, int], dict[str, tuple[str, str]]]:
    report = verify_mount(
        Mount(memory.name, memory), [CodeSource(c, "--code") for c in codes], today=dt.date(2026, 11, 1)
    )
    assert not report.errors, report.errors
    return {
        (e.path, e.line): {c.evidence.label: (c.verdict.status, c.verdict.detail) for c in e.checks}
        for e in report.entries
    }


def test_each_kind_of_evidence_holds_moved_or_gone_with_the_commit_and_day(scenario) -> None:
    code, memory = scenario
    v = verdicts(memory, code)
    redis = v[("MEMORY.md", 4)]
    assert redis["path lib/redis.ts"] == ("moved", "renamed to lib/cache/redis.ts in 8f1296c on 2026-07-10")
    assert redis["symbol getRedisClient"][0] == "holds"
    assert v[("MEMORY.md", 5)]["script migrate (bun)"] == (
        "moved",
        "the script was renamed db:migrate in 0fcc382 on 2026-08-20",
    )
    rate = v[("MEMORY.md", 6)]
    assert rate["path middleware/rateLimit.ts"][0] == "gone"
    assert "deleted in 125ef9c on 2026-08-03" in rate["path middleware/rateLimit.ts"][1]
    assert rate["symbol rateLimitMiddleware"][0] == "gone"
    assert v[("backend.md", 4)]["symbol reconcile_day"][0] == "moved"
    assert "renamed to reconcile_ledger_day in ae00adf on 2026-09-02" in v[("backend.md", 4)]["symbol reconcile_day"][1]
    assert v[("backend.md", 4)]["path src/payments/ledger.py"][0] == "holds"
    docker = v[("backend.md", 5)]
    assert (
        docker["target docker-build (make)"][0] == "gone"
        and "1269d2c on 2026-09-15" in docker["target docker-build (make)"][1]
    )
    assert v[("backend.md", 6)]["config FEATURE_NEW_CHECKOUT"][0] == "gone"
    retry = v[("backend.md", 7)]
    commit = next(k for k in retry if k.startswith("commit "))
    assert retry[commit] == ("gone", "reverted in ce1b27c on 2026-10-12")
    assert retry["symbol retry_refund"][0] == "gone"
    assert all(s == "holds" for s, _ in v[("backend.md", 8)].values())  # pay_sid, SESSION_COOKIE_NAME, session.ts
    assert all(s == "holds" for s, _ in v[("backend.md", 9)].values())  # make deploy, gh-pages branch
    assert v[("backend.md", 10)]["script lint (npm)"][0] == "gone"
    assert ("backend.md", 11) not in v  # "Priya reviews every schema change": nothing to check


def test_a_fact_about_another_repo_is_never_flagged(scenario, tmp_path: Path) -> None:
    code, _memory = scenario
    memory = tmp_path / "m"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(
        "# M\n\n- The users API is src/api/users.ts, `getUserById`, `npm run e2e`, the `release/9` branch\n"
    )
    report = verify_mount(Mount("m", memory), [CodeSource(code, "--code")])
    (entry,) = report.entries
    assert {c.verdict.status for c in entry.checks} == {"unknown"}
    assert entry.status is None and report.stale == []


def test_a_path_that_is_a_memory_file_is_not_code_evidence(scenario, tmp_path: Path) -> None:
    code, _ = scenario
    memory = tmp_path / "m"
    (memory / "docs").mkdir(parents=True)
    (memory / "MEMORY.md").write_text("# M\n\n- Deploy notes are in docs/deploy.md; the API in `lib/redis.ts`\n")
    (memory / "docs/deploy.md").write_text("# Deploy\n")
    report = verify_mount(Mount("m", memory), [CodeSource(code, "--code")])
    assert [c.evidence.value for c in report.entries[0].checks] == ["lib/redis.ts"]


def test_with_two_code_repos_evidence_holds_if_it_holds_in_either(scenario, tmp_path: Path) -> None:
    code, memory = scenario
    other = tmp_path / "gateway"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "middleware").mkdir()
    (other / "middleware/rateLimit.ts").write_text("export function rateLimitMiddleware() {}\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "The gateway limits requests", date="2026-08-04")
    v = verdicts(memory, code, other)
    assert v[("MEMORY.md", 6)]["path middleware/rateLimit.ts"][0] == "holds"
    assert v[("MEMORY.md", 6)]["symbol rateLimitMiddleware"][0] == "holds"
    assert v[("MEMORY.md", 4)]["path lib/redis.ts"][0] == "moved"  # still judged in payments


def test_facts_are_cached_per_head_and_read_again_after_a_commit(scenario, tmp_path: Path) -> None:
    code, _ = scenario
    copy = tmp_path / "payments"
    subprocess.run(["git", "clone", "-q", str(code), str(copy)], check=True)
    first = facts_for(copy, words=["getRedisClient", "brand_new_fn"])
    assert first.words == {"getRedisClient": True, "brand_new_fn": False}
    cached = list((Path(os.environ["XDG_CACHE_HOME"]) / "amr" / "verify").glob("*.pickle"))
    assert len(cached) == 1
    again = facts_for(copy, words=["getRedisClient"])  # the same HEAD: from the cache
    assert again.head == first.head and again.words["brand_new_fn"] is False
    (copy / "src/new.ts").write_text("export function brand_new_fn() {}\n")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "add brand_new_fn", date="2026-10-20")
    later = facts_for(copy, words=["brand_new_fn"])
    assert later.head != first.head and later.words["brand_new_fn"] is True and "src/new.ts" in later.files


def test_a_hostile_code_repo_runs_nothing(tmp_path: Path) -> None:
    """The code repo's config names programs for fsmonitor, hooks, filters, textconv and external
    diff; verifying reads it and none of them runs."""
    code = tmp_path / "evil"
    code.mkdir()
    git(code, "init", "-q", "-b", "main")
    marker = tmp_path / "ran"
    prog = tmp_path / "prog.sh"
    prog.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    prog.chmod(0o755)
    (code / ".gitattributes").write_text("*.ts filter=evil diff=evil\n")
    (code / "a.ts").write_text("export const oldName = 1;\n")
    git(code, "add", "-A")
    git(code, "commit", "-q", "-m", "one", date="2026-06-01")
    (code / "a.ts").write_text("export const newName = 1;\n")
    git(code, "rm", "-q", "--cached", "a.ts")
    git(code, "add", "-A")
    git(code, "commit", "-q", "-m", "two", date="2026-06-02")
    for key, value in (
        ("core.fsmonitor", str(prog)),
        ("core.hooksPath", str(tmp_path)),
        ("filter.evil.clean", str(prog)),
        ("filter.evil.smudge", str(prog)),
        ("diff.evil.textconv", str(prog)),
        ("diff.external", str(prog)),
        ("core.pager", str(prog)),
    ):
        git(code, "config", key, value)
    memory = tmp_path / "m"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# M\n\n- `oldName` lives in a.ts, fixed in commit 0123abc\n")
    report = verify_mount(Mount("m", memory), [CodeSource(code, "--code")])
    assert not report.errors
    assert not marker.exists()


def test_a_folder_that_is_not_a_repo_is_an_error_not_a_verdict(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(CodeRepoError):
        facts_for(plain)
    memory = tmp_path / "m"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# M\n\n- `lib/redis.ts`\n")
    report = verify_mount(Mount("m", memory), [CodeSource(plain, "--code")])
    assert report.errors and report.entries == []


# ---------------------------------------------------------------------- finding the code repo


def test_claude_code_project_names_are_read_back_from_the_file_system(tmp_path: Path) -> None:
    for i, name in enumerate(("my_app", "my-app", "my.app.v2", ".hidden")):
        target = tmp_path / f"src{i}" / name / "sub dir"
        target.mkdir(parents=True)
        encoded = encode(str(target))
        assert decode_project(encoded) == target, name
    assert decode_project("-no-such-path-anywhere-xyz") is None
    # Two folders that Claude Code writes the same way: the git work tree is the project.
    (tmp_path / "twins" / "my_app").mkdir(parents=True)
    (tmp_path / "twins" / "my-app" / ".git").mkdir(parents=True)
    assert decode_project(encode(str(tmp_path / "twins" / "my-app"))) == tmp_path / "twins" / "my-app"


def test_a_project_in_a_folder_too_large_to_list_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/tmp or a home folder may hold more entries than decoding lists (MAX_ENTRIES): the project
    inside is still found, by the names its encoded form can stand for. It was not, under the
    full test run, once pytest's own temp folder grew past 2,000 entries. The listing is cut at
    no entry here, so every folder of the path must come from those names."""
    from amr_tui.services.verify import coderepo

    monkeypatch.setattr(coderepo, "MAX_ENTRIES", 0)
    target = tmp_path / "crowd" / "zz_my app" / "sub dir"
    target.mkdir(parents=True)
    (tmp_path / "crowd" / "zz").mkdir()  # a shorter name that encodes as a prefix of it
    assert decode_project(encode(str(target))) == target


def test_a_claude_code_memory_folder_finds_its_project_by_itself(scenario, tmp_path: Path) -> None:
    code, _ = scenario
    folder = claude_folder(tmp_path / "home", code)
    sources = code_sources(Mount("memory", folder), Config())
    assert [(s.path, s.why) for s in sources] == [(code.resolve(), "Claude Code project folder")]
    report = verify_mount(Mount("memory", folder), sources)
    stale = {(e.path, e.line): e.status for e in report.stale}
    assert stale == {("reference_redis.md", 7): "moved", ("feedback_testing.md", 7): "moved"}


def test_the_config_names_the_code_by_repo_name_or_folder(scenario, tmp_path: Path) -> None:
    code, memory = scenario
    cfg_file = tmp_path / "config.toml"
    cfg_file.write_text(f'[repo."memory-payments"]\ncode = ["{code}"]\n\n[verify]\nevery = "30d"\n')
    cfg = load_config(cfg_file)
    assert cfg.verify_every == 30
    assert [s.path for s in code_sources(Mount("memory-payments", memory), cfg)] == [code]
    cfg_file.write_text(f'[repo."{memory}"]\ncode = "{code}"\n')
    assert [s.path for s in code_sources(Mount("renamed", memory), load_config(cfg_file))] == [code]
    # --code wins over the config
    assert [s.why for s in code_sources(Mount("memory-payments", memory), cfg, [tmp_path])] == ["--code"]


def test_verified_stamps_and_due_entries(scenario, tmp_path: Path) -> None:
    code, _ = scenario
    memory = tmp_path / "m"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(
        "# M\n\n"
        "- Redis is `lib/cache/redis.ts` [added: 2026-01-01; verified: 2026-10-20]\n"
        "- Ledger is src/payments/ledger.py [added: 2026-01-01]\n"
        "- Refunds are src/payments/refunds.py [added: 2026-10-25]\n"
        "- Server is src/server.ts\n"
    )
    report = verify_mount(Mount("m", memory), [CodeSource(code, "--code")], today=dt.date(2026, 11, 1), every=30)
    due = {e.line: e.due for e in report.entries}
    assert due == {3: False, 4: True, 5: False, 6: True}
    assert report.at("MEMORY.md", 3) is not None and report.at("MEMORY.md", 3).verified == "2026-10-20"  # type: ignore[union-attr]
    assert commit_of(code, "Move the redis")  # the scenario is the one these verdicts name


def test_a_second_run_reads_only_the_files_that_changed_and_sees_the_change(scenario, tmp_path: Path) -> None:
    code, _ = scenario
    memory = tmp_path / "m"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# M\n\n- The cache is `lib/cache/redis.ts`\n\n## Index\n\n- [[more]]\n")
    (memory / "more.md").write_text("# More\n\n- Seeds come from `scripts/migrate.ts`\n")
    first = verify_mount(Mount("m", memory), [CodeSource(code, "--code")])
    assert first.stale == [] and len(first.entries) == 2
    cached = list((Path(os.environ["XDG_CACHE_HOME"]) / "amr" / "verify-memory").glob("*.pickle"))
    assert len(cached) == 1
    (memory / "more.md").write_text("# More\n\n- Seeds come from scripts/seed.py, long gone\n")
    second = verify_mount(Mount("m", memory), [CodeSource(code, "--code")])
    assert [(e.path, e.status) for e in second.stale] == [("more.md", "gone")]
    (memory / "more.md").unlink()
    third = verify_mount(Mount("m", memory), [CodeSource(code, "--code")])
    assert [e.path for e in third.entries] == ["MEMORY.md"]
