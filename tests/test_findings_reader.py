"""Issue 39, what real folders showed after the corpus: findings a reader agrees with.

* A terminal's output pasted with its colour codes is one AMR017 for the whole paste, not one per
  line (70 findings for one paste in a real folder); any other control (a clipboard write, a
  screen clear, a bidi override) stays one finding per line.
* In a file that is not the agent's memory (a Hermes home's installed skills), the credential check
  reports a token by its own shape only: a tutorial's ``password: hunter2`` or a write-up's lab
  login is its example. The same words in the memory are reported.
* A template's plain field (``Date: 2025-03-01``) written in two files is no duplicate fact; a
  fact written as ``Key: value`` (``Placement matches: 10 per season``) still is.
"""

from __future__ import annotations

from pathlib import Path

from amr_tui.cli.main import main
from amr_tui.core.format.parser import parse

GHP = "ghp_" + "Q7vLm2XkP9sRt4NwZb8YcJd3Fh6Gq1Ea5Ui0"


def _codes(capsys, root: Path) -> list[str]:
    capsys.readouterr()
    main(["lint", "--severity", "info", str(root)])
    return [ln for ln in capsys.readouterr().out.splitlines() if ": AMR" in ln]


def _fact_lines(text: str) -> list[int]:
    """The lines of ``text``'s entries that state a fact the duplicate checks compare."""
    from amr_tui.core.lint.facts import fact_rows

    return [row[1] for row in fact_rows(parse(text.encode()))]


def _with(capsys, root: Path, *codes: str) -> list[str]:
    """The lines of ``amr lint`` on ``root`` that give one of ``codes``."""
    return [ln for ln in _codes(capsys, root) if any(f": {code} " in ln for code in codes)]


def test_a_pasted_terminal_output_is_one_finding() -> None:
    paste = "".join(f"- \x1b[32mPASS\x1b[0m test_{i}\n" + ("  plain line\n" if i % 4 == 0 else "") for i in range(30))
    doc = parse(("# Log\n\n" + paste + "\n- a \u202e b\n- c \u202e d\n").encode())
    found = [(d.code, d.line) for d in doc.diagnostics if d.code == "AMR017"]
    assert found[0] == ("AMR017", 3)
    assert len(found) == 3  # the paste, then each bidi override on its own line
    first = next(d for d in doc.diagnostics if d.code == "AMR017")
    last_paste_line = 3 + 30 + 8 - 1  # 30 bullets and 8 plain lines from line 3: the last bullet
    assert f"down to {last_paste_line}" in first.message


def test_hostile_escapes_are_one_finding_each() -> None:
    text = "- clip \x1b]52;c;aGVsbG8=\x07 write\n- \x1b[2J cleared\n- \x1b[6n report\n"
    assert [d.line for d in parse(text.encode()).diagnostics if d.code == "AMR017"] == [1, 2, 3]


def test_two_pastes_far_apart_are_two_findings() -> None:
    text = "- \x1b[1ma\n" + "- plain\n" * 10 + "- \x1b[1mb\n"
    assert [d.line for d in parse(text.encode()).diagnostics if d.code == "AMR017"] == [1, 12]


def _hermes_home(make_repo, skill: str, memory: str) -> Path:
    return make_repo(
        "hermes",
        {
            "SOUL.md": "You are a careful research assistant.\n",
            "memories/MEMORY.md": memory,
            "memories/USER.md": "The user works on the billing service.\n§\nThe user prefers short answers.\n",
            "skills/pentest/SKILL.md": skill,
        },
    )


def test_a_skill_documents_example_login_is_quiet_and_a_token_there_is_not(make_repo, capsys) -> None:
    skill = (
        "# Web lab walkthrough\n\n"
        "1. Log in to the lab box with **Password:** Winter2024!lab as the admin user.\n"
        "2. The database is at postgres://lab:Sup3rS3cretLab@10.0.0.5/lab\n"
        f"3. The GitHub token the installer left: {GHP}\n"
    )
    root = _hermes_home(make_repo, skill, "The deploy runs from the release branch.\n")
    lines = _codes(capsys, root)
    skill_lines = [ln for ln in lines if "skills/pentest/SKILL.md" in ln]
    assert len(skill_lines) == 1 and ":5:" in skill_lines[0] and "GitHub token" in skill_lines[0], lines


def test_the_same_words_in_the_memory_are_reported(make_repo, capsys) -> None:
    memory = "The staging admin **Password:** Winter2024!lab (rotate it).\n§\nThe deploy runs from main.\n"
    root = _hermes_home(make_repo, "# A skill\n\nNothing secret here.\n", memory)
    lines = _codes(capsys, root)
    assert any("memories/MEMORY.md:1:" in ln and "AMR016" in ln for ln in lines), lines


def test_a_template_field_is_no_duplicate_and_a_fact_in_field_form_is(make_repo, capsys) -> None:
    root = make_repo(
        "notes",
        {
            "a.md": "# A\n\n- Date: 2025-03-01\n- Status: done\n- Placement matches: 10 per season\n",
            "b.md": "# B\n\n- Date: 2025-03-01\n- Status: done\n- Placement matches: 10 per season\n",
        },
    )
    dupes = _with(capsys, root, "AMR014", "AMR015")
    assert dupes and all(":5:" in ln for ln in dupes), dupes


# What the fourth batch of real folders showed (docs/findings.md): each below was hundreds of
# false findings in one real folder.


def test_a_relative_wiki_link_is_read_from_its_files_folder(make_repo, capsys) -> None:
    root = make_repo(
        "vault",
        {
            ".obsidian/app.json": "{}",
            "areas/board/board.md": "# Board\n\n- hub of the board notes\n",
            "areas/board/design/decisions.md": "# Decisions\n\n- back to [[../board|the hub]]\n- see [[../../x/missing]]\n",
        },
    )
    lines = _codes(capsys, root)
    assert not [ln for ln in lines if "AMR012" in ln], lines  # [[../board]] stays inside the vault
    assert not [ln for ln in lines if "decisions.md:3:" in ln], lines  # it resolves to areas/board/board.md


def test_a_markdown_link_out_of_the_memory_folder_is_quiet(make_repo, capsys) -> None:
    root = make_repo(
        "memory",
        {"MEMORY.md": "# Memory\n\n- Start with [the project guide](../../CLAUDE.md)\n- [[../../etc/passwd]]\n"},
    )
    lines = _codes(capsys, root)
    assert not [ln for ln in lines if "MEMORY.md:3:" in ln], lines
    assert [ln for ln in lines if "MEMORY.md:4:" in ln and "AMR012" in ln], lines  # a wiki path out is still said


def test_github_anchors_and_section_numbers_name_their_heading(make_repo, capsys) -> None:
    root = make_repo(
        "notes",
        {
            "README.md": "# Patterns\n\n## Polarity (required, every pattern)\n\n## 5.4 DDD (Evans 2003)\n",
            "a.md": "# A\n\n- See [polarity](README.md#polarity-required-every-pattern)\n- See [[README#5.4]]\n"
            "- See [[README#Nothing like it]]\n",
        },
    )
    lines = _with(capsys, root, "AMR032")
    assert len(lines) == 1 and "a.md:5:" in lines[0], lines


def test_code_and_paths_after_a_key_word_are_no_credential() -> None:
    from amr_tui.core.secrets import find_secrets

    quiet = [
        "    var rawPassword = cmd.rawPassword();",
        "token = uuid4().hex",
        "const token = storage.getString('token');",
        "[archive-pass]: archive/napkin-2026-05-11.md",
        "2. **Secret 12:55:40Z** wrote the reply",
        "password = config.db_password",
    ]
    assert [t for t in quiet if find_secrets(t)] == []
    assert find_secrets("- API key: `e65fbe14-f6ad-19b6-a04c-780d6c0d37a5`")
    assert find_secrets("password: Hunter2(x)!")


def test_checklist_items_and_file_lists_are_no_duplicate_facts(make_repo, capsys) -> None:
    body = "- [ ] privacy policy URL and store listing\n- `backend/tests/integration/test_runtime.py`\n"
    body += "- The staging deploy needs the VPN to be up first\n"
    root = make_repo("notes", {"a.md": "# A\n\n" + body, "b.md": "# B\n\n" + body})
    dupes = _with(capsys, root, "AMR014", "AMR015")
    assert dupes and all(":5:" in ln for ln in dupes), dupes


def test_an_empty_bullet_in_a_vault_is_its_template(make_repo, capsys) -> None:
    root = make_repo("vault", {".obsidian/app.json": "{}", "Daily/2026-01-18.md": "# Notes\n\n-\n- met Ana\n"})
    assert not _with(capsys, root, "AMR019")
    amr = make_repo("amr", {"MEMORY.md": "# Memory\n\n-\n\n## Index\n"})
    assert _with(capsys, amr, "AMR019")


# What the fifth batch showed (measured once with the rules above, then these fixes: docs/findings.md).


def test_a_generated_list_of_named_things_is_no_duplicate(make_repo, capsys) -> None:
    page = "# Community\n\n- `main()` — 1 connections\n- **Python** — 32 nodes\n- `md1.py` — Python L1\n"
    root = make_repo("vault", {".obsidian/app.json": "{}", "c0.md": page, "c1.md": page.replace("Community", "C1")})
    assert not _with(capsys, root, "AMR014", "AMR015")


def test_a_field_that_points_at_another_is_no_duplicate(make_repo, capsys) -> None:
    body = "# Accounts\n\n- **Password:** same as Proton (kept in the secrets folder)\n"
    root = make_repo("notes", {"a.md": body, "b.md": body.replace("Accounts", "Mail")})
    assert not _with(capsys, root, "AMR014")


def test_a_relative_link_one_level_off_still_finds_its_note(make_repo, capsys) -> None:
    root = make_repo(
        "workspace",
        {
            "AGENTS.md": "# Agents\n\n- read SOUL first\n",
            "SOUL.md": "# Soul\n\n- be direct\n",
            "identity/SOUL.md": "# Soul\n\n- the long form\n",
            "memory/second-brain/entities/claire.md": "# Claire\n\n- [[../../identity/SOUL]]\n- [[adnane]]\n"
            "- [[../../identity/NOPE]]\n",
            "memory/second-brain/entities/adnane.md": "# Adnane\n\n- the user\n",
        },
    )
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 1 and "NOPE" in broken[0], broken


def test_a_vaults_short_list_items_are_its_vocabulary_and_its_facts_are_not(make_repo, capsys) -> None:
    note = "# {t}\n\n- HTTP keep-alive\n- AWS Lambda / Fargate\n- The gateway retries a failed upstream call twice\n"
    root = make_repo("vault", {".obsidian/app.json": "{}", "a.md": note.format(t="A"), "b.md": note.format(t="B")})
    dupes = _with(capsys, root, "AMR014", "AMR015")
    assert dupes and all(":5:" in ln for ln in dupes), dupes


def test_textbook_and_sample_logins_are_no_credential() -> None:
    from amr_tui.core.secrets import find_secrets

    assert not find_secrets("Authorization: Basic dXNlcjpwYXNzd29yZA==")  # user:password
    assert not find_secrets('{ "email": "alice@x.com", "password": "Tr0ub4dor!" }')
    assert not find_secrets("| 토큰 형식 | base64url (256bit) |")
    assert find_secrets("Authorization: Basic YWRtaW46U3VwM3JTM2NyZXQ5OQ==")  # admin:Sup3rS3cret99


def test_the_app_follows_a_link_a_folder_off_where_lint_says_it_is_fine(make_repo) -> None:
    from amr_tui.core.format.links import find_links
    from amr_tui.services.session.session import Session
    from amr_tui.services.workspace import discover

    root = make_repo(
        "workspace",
        {
            "AGENTS.md": "# Agents\n\n- read SOUL first\n",
            "SOUL.md": "# Soul\n\n- be direct\n",
            "identity/SOUL.md": "# Soul\n\n- the long form\n",
            "memory/notes/claire.md": "# Claire\n\n- [[../../identity/SOUL]]\n",
        },
    )
    session = Session(discover([root]))
    session.load()
    repo = next(iter(session.repos))
    (link,) = find_links("- [[../../identity/SOUL]]", 3, "memory/notes")
    state, path, _s = session.resolve_link(repo, link, "memory/notes/claire.md")
    assert path == "identity/SOUL.md", (state, path)


def test_an_empty_link_is_a_templates_field_outside_amr(make_repo, capsys) -> None:
    root = make_repo("vault", {".obsidian/app.json": "{}", "Templates/Session.md": "# Session\n\n**Project:** [[]]\n"})
    assert not _with(capsys, root, "AMR029")
    amr = make_repo("amr", {"MEMORY.md": "# Memory\n\n- see [[]]\n\n## Index\n"})
    assert _with(capsys, amr, "AMR029")


# What the sixth batch of real folders showed (docs/findings.md, "Batch 6 and 7"): each below was a
# false finding there, written here in its shape (no text of the folder).


def _workspace(make_repo, extra: dict[str, str]) -> Path:
    files = {
        "AGENTS.md": "# Agents\n\n- Read SOUL.md and MEMORY.md first.\n",
        "SOUL.md": "# Soul\n\n- Under-promise and over-deliver on every task\n",
        "MEMORY.md": "# Memory\n\n- The staging server runs on port 8443 behind nginx\n",
        "memory/2026-03-05.md": "# 2026-03-05\n\n- Deployed the staging fix.\n",
    }
    return make_repo("workspace", {**files, **extra})


def test_an_openclaw_agents_write_ups_repeat_their_notes_and_its_memory(make_repo, capsys) -> None:
    fact = "- The forum's agents wait for instructions instead of acting on their own\n"
    root = _workspace(
        make_repo,
        {
            "memory/research/forum-exploration.md": "# Exploration\n\n"
            + fact
            + "- Under-promise and over-deliver on every task\n",
            "memory/research/forum-summary.md": "# Summary\n\n"
            + fact
            + "- The staging server runs on port 8443 behind nginx\n",
        },
    )
    assert not _with(capsys, root, "AMR014", "AMR015")


def test_a_fact_twice_in_one_write_up_or_in_the_memory_is_still_a_duplicate(make_repo, capsys) -> None:
    fact = "- The forum's agents wait for instructions instead of acting on their own\n"
    root = _workspace(
        make_repo,
        {
            "memory/research/forum-exploration.md": "# Exploration\n\n" + fact + "- the rest\n" + fact,
            "USER.md": "# User\n\n- The staging server runs on port 8443 behind nginx\n",
        },
    )
    dupes = sorted(ln.split(": AMR")[0] for ln in _codes(capsys, root) if "AMR014" in ln)
    assert [d.rsplit("/", 1)[-1] for d in dupes] == ["USER.md:3:1", "forum-exploration.md:5:1"], dupes


def test_an_openclaw_memory_md_is_loaded_whole_up_to_its_character_limit(make_repo, capsys) -> None:
    long = "# Memory\n\n" + "".join(
        f"- 项目 {i} 的长期记忆条目\n" for i in range(300)
    )  # 300 lines, about 6,000 characters
    root = _workspace(make_repo, {"MEMORY.md": long})
    assert not _with(capsys, root, "AMR003")
    longer = "# Memory\n\n" + "".join(
        f"- 项目 {i} 的长期记忆条目，部署在预发布环境的第二台服务器上\n" for i in range(500)
    )
    root = make_repo("workspace2", {**{"SOUL.md": "# Soul\n"}, "MEMORY.md": longer, "memory/2026-03-05.md": "- x\n"})
    assert [ln for ln in _codes(capsys, root) if "AMR003" in ln and "12,000 characters" in ln]


def test_a_claude_code_memory_is_named_without_its_type(make_repo, capsys) -> None:
    root = make_repo(
        "claude",
        {
            "MEMORY.md": "- [Design workflow](project_design_workflow.md) — how mockups become screens\n"
            "- [Closes](feedback_closes.md) — keep the Closes line\n",
            "project_design_workflow.md": "---\nname: project-design-workflow\ntype: project\n---\n\nMockups first.\n",
            "feedback_closes.md": "---\nname: feedback-closes\ntype: feedback\n---\n\n"
            "Related: [[design-workflow]] and [[review-workflow]].\n",
        },
    )
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 1 and "[[review-workflow]]" in broken[0], broken


def test_a_forms_blanks_and_a_notes_captions_are_no_duplicate_facts(make_repo, capsys) -> None:
    brief = (
        "# Brief {n}\n\nFill before drafting:\n"
        "- Headnote (one or two sentences naming the speaker and the occasion): __________\n"
        "- Today's fact list is built and the sources are closed: yes / no\n\n"
        "Related:\n- [[Writing-Manual]] - the master craft rules every register inherits.\n"
        "- The brief opens on the strongest documented claim of the day\n"
    )
    files = {".obsidian/app.json": "{}", "Writing-Manual.md": "# Manual\n"}
    files |= {f"Brief-{n}.md": brief.format(n=n) for n in (1, 2, 3)}
    root = make_repo("vault", files)
    dupes = _with(capsys, root, "AMR014", "AMR015")
    assert len(dupes) == 1 and ":9:" in dupes[0] and "written 3 times" in dupes[0], dupes


def test_a_keys_name_in_quotes_after_the_key_word_is_no_credential() -> None:
    from amr_tui.core.secrets import find_secrets

    assert not find_secrets("- Mail API key (`acme-base44`, sending access, scoped to one domain) ->")
    text = "- Mail API key (`Qz7vR2kLp9XwT4mN8bYc`) for sending"
    assert [text[m.start : m.end] for m in find_secrets(text)] == ["Qz7vR2kLp9XwT4mN8bYc"]


# What the seventh batch showed (docs/findings.md, "Batch 7"), in its shapes.


def test_openclaw_reply_directives_are_no_links(make_repo, capsys) -> None:
    log = "# Session\n\nassistant: [[reply_to_current]] Done, and verified.\n- [[reply_to: 1234]] ok\n- see [[missing-note]]\n"
    root = _workspace(make_repo, {"memory/2026-03-05-sync.md": log})
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 1 and "[[missing-note]]" in broken[0], broken


def test_amr_metadata_rules_are_not_another_formats(make_repo, capsys) -> None:
    text = (
        "# Notes\n\n- Candidate: a contact list [Source: press release] - more text after it\n- ends [in a bracket]\n"
    )
    root = _workspace(make_repo, {"memory/2026-03-05.md": text})
    assert not _with(capsys, root, "AMR031", "AMR020")
    amr = make_repo("amr", {"MEMORY.md": "# Memory\n\n## Index\n\n- a fact [source: x] then more text\n"})
    assert _with(capsys, amr, "AMR031")


def test_a_missing_note_is_said_once_per_file_that_links_it(make_repo, capsys) -> None:
    note = "# Research\n\n- a [[GLOSSARY#Artifact|artifact]] moves\n- the [[GLOSSARY#Fingerprint|fingerprint]] stays\n- [[GLOSSARY]]\n"
    root = make_repo("notes", {"README.md": "# Notes\n", "research/a.md": note, "research/b.md": note})
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 2 and all("3 links of this file name it" in ln for ln in broken), broken


def _separators(capsys, root: Path) -> list[tuple[str, str]]:
    import json

    capsys.readouterr()
    main(["lint", "--severity", "info", "--json", str(root)])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    return [(d["severity"], d["message"]) for d in found if d["code"] == "AMR017"]


def test_line_separators_are_one_notice_per_file_outside_amr_and_errors_in_amr(make_repo, capsys) -> None:
    pasted = "# Pasted\n\nfirst\u2028second\n\nthird\u2028fourth\n"
    root = make_repo("vault", {".obsidian/app.json": "{}", "a.md": pasted})
    found = _separators(capsys, root)
    assert len(found) == 1 and found[0][0] == "info" and "1 more line" in found[0][1], found
    amr = make_repo("amr", {"MEMORY.md": "# Memory\n\n## Index\n\n- one\u2028two\n- three\u2028four\n"})
    found = _separators(capsys, amr)
    assert len(found) == 1 and found[0][0] == "error", found


def test_a_link_from_the_vault_root_is_obsidians(make_repo, capsys) -> None:
    root = make_repo(
        "vault",
        {
            ".obsidian/app.json": "{}",
            "Usecases.md": "# Uses\n",
            "Learnings.md": "- see [[/Usecases]] and [[/Not-yet]]\n",
        },
    )
    assert not _with(capsys, root, "AMR012")
    amr = make_repo("amr", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[/etc/passwd]]\n"})
    assert _with(capsys, amr, "AMR012")


def test_pointers_questions_url_fields_and_bare_paths_are_no_duplicate_facts(make_repo, capsys) -> None:
    note = (
        "# {t}\n\n- 1 edge to [[Pricing]]\n- A/B test \u2192 [[Testing]]\n- Master dashboard: dash-eight.vercel.app\n"
        "- Why did you leave your last job?\n- src/main/resources/application.yml\n"
        "- The pricing page renders the yearly plan first for every visitor\n"
    )
    files = {".obsidian/app.json": "{}", "Pricing.md": "# P\n", "Testing.md": "# T\n"}
    root = make_repo("vault", files | {"A.md": note.format(t="A"), "B.md": note.format(t="B")})
    dupes = _with(capsys, root, "AMR014", "AMR015")
    assert len(dupes) == 1 and ":8:" in dupes[0], dupes


def test_thai_one_word_items_are_vocabulary() -> None:
    from amr_tui.core.lint.repo import informative

    assert not informative("ช็อกโกแลต")  # "chocolate", one word of nine letters
    assert informative("ข้อมูลพนักงานปรับเงินเดือน เปลี่ยนเงินแรงจูงใจ")  # a line of six words


def test_a_payment_card_with_its_expiry_or_name_is_a_credential() -> None:
    from amr_tui.core.secrets import find_secrets

    card = "4417398259791900"  # passes the Luhn check; a Visa number
    assert [m.kind for m in find_secrets(f"{card} 10/27 914")] == ["payment card number"]
    assert [m.kind for m in find_secrets(f"บัตร {card[:4]} {card[4:8]} {card[8:12]} {card[12:]}")] == [
        "payment card number"
    ]
    assert not find_secrets(f"order id {card}")  # a number of that shape, not said to be a card
    assert not find_secrets("test card 4242 4242 4242 4242 12/34")  # the documentation's test card
    assert not find_secrets("card 4417398259791901 10/27")  # fails the Luhn check


def test_values_that_are_ids_templates_or_default_logins_are_no_credential() -> None:
    from amr_tui.core.secrets import find_secrets

    assert not find_secrets("like secret railway tickets: a3e5f1c2 leading east")
    assert not find_secrets('WWW-Authenticate: Bearer resource_metadata="{origin}/.well-known/oauth-resource"')
    assert not find_secrets("**Creds:** `bandit0 / bandit0`")
    assert find_secrets("**Creds:** `bandit0 / Xk29dLq0pW`")


def test_a_to_do_lists_carried_tasks_are_no_duplicates(make_repo, capsys) -> None:
    week = "- Finish the quarterly KPI review with the sales team\n- Fill in the company profile form\n"
    tasks = "# To do\n\n## Week 1\n\n" + week + "\n## Week 2\n\n" + week
    root = make_repo(
        "vault", {".obsidian/app.json": "{}", "Archive/To do - list.md": tasks, "Notes.md": "# N\n\n" + week * 2}
    )
    dupes = _with(capsys, root, "AMR014")
    assert dupes and all("Notes.md" in ln for ln in dupes), dupes


# What the eighth batch showed (docs/findings.md, "Batch 8"), in its shapes.


def test_a_logs_repeated_status_lines_are_no_duplicates(make_repo, capsys) -> None:
    session = (
        "## Session {n}\n\n- `git diff --check` passed.\n- Waiting for review; rebase before merging if main moved.\n"
    )
    log = "# Handoff\n\n" + "".join(session.format(n=n) for n in range(4))
    notes = "# Notes\n\n- The ledger consumes dividend events before the open\n" * 2
    root = make_repo("notes", {"README.md": "# N\n", "archive/AGENT_HANDOFF_2026-06.md": log, "status.md": notes})
    dupes = _with(capsys, root, "AMR014")
    assert len(dupes) == 1 and "status.md" in dupes[0], dupes


def test_a_commands_result_is_a_status_line_not_a_fact() -> None:
    text = "- `git diff --check` 通过。\n- `pytest -q tests/x.py`: 16 passed.\n- `make deploy` runs staging before production\n"
    assert _fact_lines(text) == [3]


def test_lines_a_note_got_from_its_template_are_no_duplicates(make_repo, capsys) -> None:
    template = "# Bug\n\n## Cause\n\n- Fill this in once investigation proves the cause.\n- Link the decisive evidence such as code paths, tests, or logs.\n"
    bug = template + "- The parser drops the last line when the file has no newline at its end\n"
    files = {".obsidian/app.json": "{}", "07_Templates/Bug_Template.md": template}
    files |= {f"03_Bugs/BUG-000{n}.md": bug for n in (1, 2)}
    files["Phases/Step.md"] = "# Step\n\n- To be populated after vault initialization.\n" * 3
    root = make_repo("vault", files)
    dupes = _with(capsys, root, "AMR014")
    assert len(dupes) == 1 and "BUG-0002.md:7:" in dupes[0], dupes


def test_a_templates_link_slot_is_no_broken_link(make_repo, capsys) -> None:
    step = "# Step\n\n- [[<step note directory>/Execution_Brief|Execution Brief]] - why the step exists\n- [[Missing_Brief]]\n"
    root = make_repo("notes", {"README.md": "# N\n", "templates/Step_Template.md": step})
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 1 and "Missing_Brief" in broken[0], broken


def test_a_credential_twice_on_a_line_is_one_finding_and_a_windows_path_is_none() -> None:
    from amr_tui.core.format.parser import parse

    token = "1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"
    text = f"- bot token {token}, set as {token}\n- Credentials: `C:/Users/me/.claude/gmail/credentials.json`\n"
    assert [(d.code, d.line) for d in parse(text.encode()).diagnostics] == [("AMR016", 1)]


def test_a_claude_memorys_markdown_link_into_its_project_is_quiet(make_repo, capsys) -> None:
    text = "---\nname: scrub\ntype: feedback\n---\n\nSee [the appeal](docs/appeal.md) and [[missing-memory]].\n"
    root = make_repo(
        "claude", {"MEMORY.md": "- [Scrub](feedback_scrub.md) — scrub the repo\n", "feedback_scrub.md": text}
    )
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 1 and "missing-memory" in broken[0], broken


def test_words_paired_by_a_slash_are_no_password() -> None:
    from amr_tui.core.secrets import find_secrets

    assert not find_secrets("- PASS: input/output contract, render policy, failure behaviour")
    assert find_secrets("password: blue/Green7")


# What the ninth batch showed (docs/findings.md, "Batch 9"), in its shapes.


def test_a_verdict_a_password_manager_and_a_system_file_are_no_password_words() -> None:
    from amr_tui.core.secrets import find_secrets

    for text in (
        '- AC3: `up{job="openwrt"} == 1` in Prometheus. PASS (`up{instance="192.168.1.1:9100"} => 1`)',
        "6a. Bei PASS: Beta-Test-1 live",
        "- [component] 1Password Connect — `Helm-chart` in namespace `external-secrets`",
        "Verified from the image's `/etc/passwd`: UID 999/abc",
        "- Cross-app ExternalSecret pattern: `spec.refreshInterval: 12h`",
        "| Cancellation Token Pattern | `[handle]/page.tsx:34` |",
    ):
        assert not find_secrets(text), text
    assert find_secrets("PASS=Xk29dLq0pW")  # a variable named PASS
    assert find_secrets("1Password master password: Tr0ub4dor&3x9")
    assert find_secrets("Login/Password: admin / Hunter22!x")  # the pair after user/password


def test_a_notes_link_into_its_project_is_quiet_and_an_indexs_is_not(make_repo, capsys) -> None:
    note = "# Pattern\n\n- [Slice 087](worklog/specs/087-silent-fail.md)\n"
    index = "# Rules\n\n- [AP-19](anti-patterns/AP-19.md)\n"
    root = make_repo("notes", {"README.md": "# N\n", "pattern.md": note, "RULES_INDEX.md": index})
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 1 and "RULES_INDEX.md" in broken[0], broken


def test_a_tasks_status_line_is_no_duplicate_fact() -> None:
    text = "- 2 wallos scoped caps \u2014 TODO.\n- 1a victoria-logs-server \u2014 done.\n- The backup runs nightly at two\n"
    assert _fact_lines(text) == [3]


# What the tenth batch showed (docs/findings.md, "Batch 10"), in its shapes.


def test_direction_marks_in_right_to_left_text_are_how_it_is_written() -> None:
    from amr_tui.core.format.parser import parse

    text = "- \u200fאני הולך לרוץ היום בשש\n- plain \u200f mark in Latin text\n- a \u202e override\n"
    assert [(d.code, d.line) for d in parse(text.encode()).diagnostics] == [("AMR017", 2), ("AMR017", 3)]


def test_a_paths_caption_and_a_slot_field_are_no_duplicate_facts() -> None:
    text = (
        "- /Users/me/dev/memory-vault/01-org/head.md \u2014 the upper rules\n"
        "- `<task-id>`: the task id given with the order\n"
        "- The deploy script tags each release with its build number\n"
    )
    assert _fact_lines(text) == [3]


def test_a_link_written_from_the_projects_root_in_an_archived_note_is_quiet(make_repo, capsys) -> None:
    note = "# Archive\n\n- Files of record: [`internal/stream/decision.go`](internal/stream/decision.go)\n- [gone](gone.md)\n"
    root = make_repo("notes", {"README.md": "# N\n", "archive/2026-05.md": note})
    broken = _with(capsys, root, "AMR010")
    assert len(broken) == 1 and "gone.md" in broken[0], broken
