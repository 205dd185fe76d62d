"""``amr mcp`` against credentials an agent writes in real shapes, and against a file holding a
byte that is not UTF-8 (issue 38 point 11).

``memory_remember`` committed ``AWS_SECRET_ACCESS_KEY=…``, ``token: <40 characters>``,
"password is …", and AWS key ids with a zero-width space or word joiner inside or in fullwidth
letters, with most of each key in the commit subject. One invalid byte in a file made
``memory_read``, ``memory_history`` and a matching ``memory_search`` fail with a bare "Error
executing tool". Each is replayed here through the SDK's own client.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp_client import amr_mcp, commit_count, git, memory_repo

# Made-up values in the shapes of the issue.
AWS_SECRET = "jUmD3cIoco6zzD0QynR11Wmdx1fX+WB99o68i3aH"
TOKEN = "lb5L2M1AZuEYwdZNnsPQPJEkWnA5oxJqO1K1abcd"
KEY_ID = "QZ4CX9E75DCG3HW2"  # after AKIA
FACTS = [
    (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET} for prod", AWS_SECRET),
    (f"deploy token: {TOKEN}", TOKEN),
    ("the staging password is Tr0ub4dor&3xyz", "Tr0ub4dor&3xyz"),
    (f"prod key AKIA\u200b{KEY_ID}", KEY_ID),
    (f"prod key AKIA\u2060{KEY_ID}", KEY_ID),
    (f"prod key \uff21\uff2b\uff29\uff21{KEY_ID}", KEY_ID),
    (f"ai4trade token: b_{TOKEN}", TOKEN),
    (f"密码: Xy7#kP2qLm and apiKey={TOKEN}", "Xy7#kP2qLm"),
]


def fragments(secret: str, size: int = 8) -> set[str]:
    """Every run of ``size`` characters of ``secret``: none may reach a commit message."""
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


@pytest.mark.slow
async def test_remember_and_edit_refuse_credentials_and_invisible_characters(tmp_path: Path) -> None:
    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- deploys on Tuesday\n"})
    async with amr_mcp(repo, home=tmp_path / "home") as client:
        before = commit_count(repo)
        for text, secret in FACTS:
            res = await client.ok("memory_remember", {"text": text, "path": "MEMORY.md"})
            assert res["status"] == "refused" and "credential" in res["message"], (text, res)
            assert secret not in (repo / "MEMORY.md").read_text()

        # No credential, but a word with a character that draws nothing inside: refused, named.
        res = await client.ok("memory_remember", {"text": "the pay\u200bments team owns refunds", "path": "MEMORY.md"})
        assert res["status"] == "refused" and "U+200B zero-width space" in res["message"], res
        # What writing needs stays allowed: an emoji's joiner, a Persian non-joiner.
        res = await client.ok("memory_remember", {"text": "the team \U0001f469\u200d\U0001f4bb ships on Fridays"})
        assert res["status"] == "written", res

        read = await client.ok("memory_read", {"repo": "memory", "path": "MEMORY.md"})
        entry = next(e for e in read["entries"] if e["text"] == "deploys on Tuesday")
        for text, secret in FACTS[:3]:
            edit = {"repo": "memory", "path": "MEMORY.md", "line": entry["line"], "hash": entry["hash"], "text": text}
            res = await client.ok("memory_edit", edit)
            assert res["status"] == "refused", res
        edit["text"] = "deploys on Tues\u2060day"
        res = await client.ok("memory_edit", edit)
        assert res["status"] == "refused" and "U+2060 word joiner" in res["message"], res

        assert commit_count(repo) == before + 1  # the emoji fact only
        log = git(repo, "log", "--format=%B")
        for _text, secret in FACTS:
            assert not any(f in log for f in fragments(secret)), log


@pytest.mark.slow
async def test_every_tool_serves_a_file_with_a_byte_that_is_not_utf8(tmp_path: Path) -> None:
    repo = memory_repo(
        tmp_path / "memory",
        {
            "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n- [[other]]\n",
            "notes.md": b"# Notes\n\n- caf\xe9 opens at nine\n- deploys on Tuesday\n- lunch at noon\n",
            "other.md": "# Other\n",
        },
    )
    async with amr_mcp(repo, home=tmp_path / "home") as client:
        load = await client.ok("memory_load")
        assert [e["text"] for e in load["repos"][0]["entries"]] == ["[[notes]]", "[[other]]"]
        for query in ("caf", "opens"):
            found = await client.ok("memory_search", {"query": query})
            assert [r["text"] for r in found["results"]] == ["caf\ufffd opens at nine"], found
        read = await client.ok("memory_read", {"repo": "memory", "path": "notes.md"})
        assert read["lines"][2] == "- caf\ufffd opens at nine"
        hashes = {e["line"]: e["hash"] for e in read["entries"]}
        history = await client.ok("memory_history", {"repo": "memory", "path": "notes.md", "line": 3})
        assert history["text"] == "- caf\ufffd opens at nine" and history["events"], history

        res = await client.ok("memory_remember", {"text": "the cafe closes at six", "path": "notes.md"})
        assert res["status"] == "written", res
        res = await client.ok(
            "memory_edit",
            {"repo": "memory", "path": "notes.md", "line": 4, "hash": hashes[4], "text": "deploys on Wednesday"},
        )
        assert res["status"] == "written", res
        move = {"repo": "memory", "path": "notes.md", "line": 5, "hash": hashes[5]}
        res = await client.ok("memory_move", {**move, "to_repo": "memory", "to_path": "other.md"})
        assert res["status"] == "written", res
        # The hash is of the bytes as they are: the line with the odd byte is still named by it.
        forget = {"repo": "memory", "path": "notes.md", "line": 3, "hash": hashes[3], "reason": "closed"}
        res = await client.ok("memory_forget", forget)
        assert res["status"] == "written" and res["entry"]["text"] == "caf\ufffd opens at nine", res

    data = (repo / "notes.md").read_bytes()
    assert data.startswith(b"# Notes\n\n- deploys on Wednesday\n- the cafe closes at six [added: "), data
    assert b"lunch" in (repo / "other.md").read_bytes() and b"caf\xe9" not in data
    assert "Traceback" not in (tmp_path / "home" / "server-stderr.log").read_text()
