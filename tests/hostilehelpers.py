"""Hostile inputs for the hostile-input tests: the injection corpus, evil repos, odd repo states, and
one-line registries of CLI commands and app screens to run them through.

Adding coverage for something new is one line:

* a CLI command: an entry in :data:`CLI_CASES` (commands without one still run with ``--help``
  and with the repo path, see :func:`cli_invocations`);
* a screen: a :class:`Visit` in ``tests/test_hostile_screens.py``;
* an app operation against the evil repo: an entry in ``tests/test_hostile_evil.py``'s OPERATIONS.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.core.textsafety import make_visible
from tests.driver import screen_strips

# ---------------------------------------------------------------------------------------------
# The injection corpus

#: name -> text. Every one of them must show literally (controls as stand-ins) and run nothing.
PAYLOADS: dict[str, str] = {
    "osc52": "clip \x1b]52;c;aGVsbG8=\x07 write",
    "osc8": "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "csi": "\x1b[2J\x1b[31mred\x1b[6n cleared",
    "c1": "C1 \x9b2J \x9d52;c;eA==\x9c \x85 nel",
    "bidi": "bidi \u202egnp.exe\u202c \u2066iso\u2069 \u200f",
    "close_tag": "x [/bold] y [/]",
    "bare_close": "- [/",
    "click": "[@click=app.quit]click to quit[/]",
    "link": "[link=https://evil.example]a link[/link]",
    "style": "[bold red on white]styled?[/]",
    "variables": "$accent ${x} $text-muted",
    "nul": "nul \x00 byte",
    "controls": "bel\x07 bs\x08 del\x7f cr\r vt\x0b ff\x0c lsep\u2028 end",
}

#: A 1 MB single line: in an entry and in a commit message.
BIG_LINE = "big " + "A" * (1 << 20)

#: What the screen must show for each payload: a fragment of its visible form.
LITERALS: dict[str, str] = {
    "osc52": "\u241b]52;c;aGVsbG8=",
    "osc8": "\u241b]8;;https://evil.example/",
    "csi": "\u241b[2J\u241b[31mred",
    "c1": "<U+009B>2J",
    "bidi": "<U+202E>gnp.exe",
    "close_tag": "x [/bold] y [/]",
    "bare_close": "- [/",
    "click": "[@click=app.quit]click to quit[/]",
    "link": "[link=https://evil.example]a link[/link]",
    "style": "[bold red on white]styled?[/]",
    "variables": "$accent ${x}",
    "nul": "nul \u2400 byte",
    "controls": "bel\u2407 bs\u2408 del\u2421",
}

#: Nothing of this may reach the terminal: C0 controls but tab and newline, DEL, C1, bidi
#: overrides, line/paragraph separators.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def forbidden_in(text: str) -> list[str]:
    """The forbidden characters found in ``text``, each with a little context (for messages)."""
    return [repr(text[max(0, m.start() - 15) : m.end() + 15]) for m in FORBIDDEN.finditer(text)][:5]


def file_name_for(name: str, payload: str) -> str:
    """A file name carrying the payload, as far as the file system allows (no NUL, no /)."""
    text = payload.replace("\x00", "").replace("/", "\u2215")
    return f"{name}-{text}"[:120] + ".md"


def visible(text: str) -> str:
    return make_visible(text)


def entry_lines() -> str:
    """A memory file whose entries, metadata values, link targets and headings carry every payload."""
    out = ["# Memory [/b] \x1b[1mtitle", ""]
    for i, (name, payload) in enumerate(PAYLOADS.items()):
        if name != "nul":  # a NUL makes the file binary (read-only): it gets a file of its own
            out.append(f"- {name}: {payload} [source: https://example.com/s/{i}; note: {payload}]")
    out.append("- links [[\x1b[2J]] [[[@click=app.quit]]] [[../../etc/passwd]] [[.git/config]] [[/etc/passwd]]")
    out.append("- source payload [source: \x9b2Jjavascript:alert(1)]")
    out.append("- web source [source: https://evil.example/\u202ex\x9b2J]")
    out += ["", "## Index", "- [[weird]]", "- [[nul]]", "- [[big]]", "- [[journal]]"]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Plain git for set-up (the code under test uses its own hardened runner)


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, input: bytes | None = None) -> str:
    res = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **(env or {})}, input=input, check=True, capture_output=True
    )
    return res.stdout.decode("utf-8", "surrogateescape")


def init_repo(root: Path, files: dict[str, str | bytes], message: str = "Create memory repo") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content)
    git(root, "add", "--", ".")
    git(root, "commit", "-q", "-m", message)
    return root


def raw_commit(root: Path, message: str, author: str, parent: str | None = None, journal: str = "") -> str:
    """A commit written as a raw object: any bytes in message and author (git commit would refuse
    NUL). With ``journal``, the commit also sets journal.md to that text (so file history lists it)."""
    parent = parent or git(root, "rev-parse", "HEAD").strip()
    tree = git(root, "rev-parse", f"{parent}^{{tree}}").strip()
    if journal:
        blob = git(root, "hash-object", "-w", "--stdin", input=journal.encode("utf-8", "surrogateescape")).strip()
        index = {"GIT_INDEX_FILE": str(root / ".git" / "hostile-index")}
        git(root, "read-tree", tree, env=index)
        git(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},journal.md", env=index)
        tree = git(root, "write-tree", env=index).strip()
        (root / ".git" / "hostile-index").unlink()
    body = (
        f"tree {tree}\nparent {parent}\nauthor {author} <a@example.test> 1790000000 +0000\n"
        f"committer {author} <c@example.test> 1790000000 +0000\n\n{message}\n"
    )
    oid = git(
        root,
        "hash-object",
        "-t",
        "commit",
        "-w",
        "--literally",
        "--stdin",
        input=body.encode("utf-8", "surrogateescape"),
    ).strip()
    git(root, "update-ref", "refs/heads/main", oid)
    return oid


def make_hostile_repo(root: Path) -> Path:
    """Payloads in entries, file names, commit messages, author names and branch names."""
    files: dict[str, str | bytes] = {
        "MEMORY.md": entry_lines(),
        "weird.md": "- \x1b[6n cursor report request [source: https://example.com/w]\n",
        "nul.md": f"- {PAYLOADS['nul']} [source: https://example.com/n]\n",
        "big.md": f"- {BIG_LINE} [source: https://example.com/b]\n",
        "notes/[@click=app.quit]x[b].md": "- file name with markup [@click=app.bell]\n",
        ".gitattributes": "*.md merge=amr\n",  # amr's merge driver, as amr init installs it
    }
    for name, payload in PAYLOADS.items():
        files[f"names/{file_name_for(name, payload)}"] = f"- file named after {name}\n"
    init_repo(root, files)
    git(root, "config", "merge.amr.name", "amr")  # ... and in this clone: the app neither tells nor installs
    git(root, "config", "merge.amr.driver", "amr merge-driver %O %A %B %L %P")
    journal = ""
    for name, payload in PAYLOADS.items():
        journal += f"- {name} {payload}\n".replace("\x00", "")
        raw_commit(
            root,
            f"{payload} subject\n\nbody {payload}",
            f"Agent {payload}".replace("<", "").replace(">", ""),
            journal=journal,
        )
    raw_commit(root, "big " + BIG_LINE, "Agent big", journal=journal + "- big\n")
    git(root, "reset", "-q", "--hard")  # the work tree gets journal.md
    head = git(root, "rev-parse", "HEAD").strip()
    for branch in ("evil\u202egnp", "c1\u009b2J", "x]y/close", "@click=app.quit]", "--output=branch-out.txt"):
        git(root, "update-ref", f"refs/heads/{branch}", head)
    # A dreaming run whose branch name, commit message and new entries carry payloads.
    dream_text = entry_lines().replace("## Index", "- dreamt " + PAYLOADS["osc52"] + " [@click=app.quit]\n\n## Index")
    blob = git(root, "hash-object", "-w", "--stdin", input=dream_text.encode("utf-8", "surrogateescape")).strip()
    tree = git(
        root,
        "mktree",
        input=git(root, "ls-tree", "HEAD")
        .replace(git(root, "rev-parse", "HEAD:MEMORY.md").strip(), blob)
        .encode("utf-8", "surrogateescape"),
    ).strip()
    body = (
        f"tree {tree}\nparent {head}\nauthor Dreamer \x1b[5m <d@example.test> 1790000000 +0000\n"
        f"committer Dreamer <d@example.test> 1790000000 +0000\n\ndream {PAYLOADS['click']} {PAYLOADS['csi']}\n"
    )
    dream = git(
        root,
        "hash-object",
        "-t",
        "commit",
        "-w",
        "--literally",
        "--stdin",
        input=body.encode("utf-8", "surrogateescape"),
    ).strip()
    git(root, "update-ref", "refs/heads/dreams/evil-\u202e-run", dream)
    git(root, "symbolic-ref", "HEAD", "refs/heads/evil\u202egnp")  # the badge shows this branch
    origin = root.parent / (root.name + "-origin.git")  # so sync has a remote (whose name is hostile too)
    git(root.parent, "init", "-q", "--bare", str(origin))
    git(root, "remote", "add", "origin\u202e", str(origin))
    git(root, "push", "-q", "-u", "origin\u202e", "evil\u202egnp")
    return root


# ---------------------------------------------------------------------------------------------
# The evil repo: config that makes plain git run programs


EVIL_HOOKS = (
    "pre-commit",
    "commit-msg",
    "post-commit",
    "prepare-commit-msg",
    "reference-transaction",
    "post-index-change",
    "post-checkout",
    "pre-auto-gc",
    "post-merge",
    "pre-merge-commit",
    "pre-push",
    "post-rewrite",
    "pre-rebase",
    "fsmonitor-watchman",
)

EVIL_LINES = "".join(
    f"- fact {i} [source: https://example.com/f/{i}; added: 2026-09-{i % 28 + 1:02d}]\n" for i in range(40)
)


@dataclass
class EvilRepo:
    root: Path
    canaries: Path
    origin: Path
    evil: Path
    extra: dict[str, Path] = field(default_factory=dict)

    def fired(self) -> list[str]:
        return sorted(p.name for p in self.canaries.iterdir())


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def make_evil_repo(base: Path, name: str = "evil") -> EvilRepo:
    """A memory repo whose own config, hooks and attributes wire a canary-writing program into
    everything git can be told to run; plus an ``origin`` remote (a local bare repo)."""
    canaries = base / f"{name}-canaries"
    tools = base / f"{name}-tools"
    canaries.mkdir(parents=True)
    tools.mkdir()
    evil = _script(
        tools / "evil",
        (
            "#!/bin/sh\n"
            f'kind="$1"; shift\ntouch "{canaries}/$kind"\n'
            'case "$kind" in\n'
            "  clean|smudge|inc-clean) cat ;;\n"
            '  textconv) cat "$1" ;;\n'
            "  merge) exit 0 ;;\n"
            '  uploadpack) exec git-upload-pack "$@" ;;\n'
            '  receivepack) exec git-receive-pack "$@" ;;\n'
            "  *) exit 1 ;;\n"
            "esac\n"
        ),
    )
    gpg = _script(tools / "gpg", f'#!/bin/sh\nexec "{evil}" gpg "$@"\n')
    hooks = tools / "hooks"
    hooks.mkdir()
    for hook in EVIL_HOOKS:
        _script(hooks / hook, f'#!/bin/sh\ntouch "{canaries}/hook-{hook}"\nexit 0\n')
    root = base / name
    init_repo(
        root,
        {
            "MEMORY.md": "# Memory\n\n- Joe leads the team [source: https://example.com/1]\n\n## Index\n- [[notes]]\n- [[other]]\n",
            "notes.md": EVIL_LINES + "- Fact 1. [source: https://example.com/f/1b]\n- old plan [expires: 2020-01-01]\n",
            "other.md": "# Other\n\n- other fact [source: https://example.com/o]\n",
            "a.txt": "plain text\n",
            "q.sql": "SELECT 1;\n",
            "--output=tracked.txt": "a file whose name is an option\n",
            ".gitattributes": "*.md filter=evil diff=evil merge=evil\n*.txt filter=inc diff=evil merge=evil\n"
            "*.sql filter=evilp\n",
        },
    )
    origin = base / f"{name}-origin.git"
    git(base, "init", "-q", "--bare", str(origin))
    git(root, "remote", "add", "origin", str(origin))
    git(root, "push", "-q", "origin", "main")
    git(root, "remote", "add", "sshremote", "ssh://evil.invalid/x.git")
    for hook in EVIL_HOOKS:  # the repo's own hooks folder too
        _script(root / ".git" / "hooks" / hook, f'#!/bin/sh\ntouch "{canaries}/githook-{hook}"\nexit 0\n')
    include = tools / "include.cfg"
    include.write_text(f'[filter "inc"]\n\tclean = {evil} inc-clean\n\tsmudge = {evil} inc-smudge\n')
    for key, value in [
        ("core.fsmonitor", f"{evil} fsmonitor"),
        ("core.hooksPath", str(hooks)),
        ("core.pager", f"{evil} pager"),
        ("core.editor", f"{evil} editor"),
        ("sequence.editor", f"{evil} seqeditor"),
        ("diff.external", f"{evil} diffext"),
        ("diff.evil.textconv", f"{evil} textconv"),
        ("diff.evil.command", f"{evil} diffcmd"),
        ("filter.evil.clean", f"{evil} clean"),
        ("filter.evil.smudge", f"{evil} smudge"),
        ("filter.evil.required", "true"),
        ("filter.evilp.process", f"{evil} process"),
        ("gpg.program", str(gpg)),
        ("gpg.ssh.program", str(gpg)),
        ("log.showSignature", "true"),
        ("commit.gpgSign", "true"),
        ("tag.gpgSign", "true"),
        ("merge.evil.driver", f"{evil} merge %O %A %B"),
        ("merge.evil.name", "evil merge driver"),
        ("core.sshCommand", f"{evil} ssh"),
        ("core.askPass", f"{evil} askpass"),
        ("core.gitProxy", f"{evil} gitproxy"),
        ("core.alternateRefsCommand", f"{evil} altrefs"),
        ("remote.origin.uploadpack", f"{evil} uploadpack"),
        ("remote.origin.receivepack", f"{evil} receivepack"),
        ("credential.helper", f"!{evil} credential"),
        ("pager.log", f"{evil} pagerlog"),
        ("color.ui", "always"),
        ("color.diff", "always"),
        ("include.path", str(include)),
    ]:
        git(root, "config", key, value)
    return EvilRepo(root, canaries, origin, evil)


# ---------------------------------------------------------------------------------------------
# Odd repo states


def detach(root: Path) -> None:
    git(root, "checkout", "-q", "--detach", "HEAD")


def start_merge(root: Path, path: str = "MEMORY.md") -> None:
    """Leave a merge with a conflict in progress on ``path``."""
    base = (root / path).read_text()
    git(root, "checkout", "-q", "-b", "side")
    (root / path).write_text(base + "- side line\n")
    git(root, "commit", "-q", "-am", "side")
    git(root, "checkout", "-q", "main")
    (root / path).write_text(base + "- main line\n")
    git(root, "commit", "-q", "-am", "main")
    subprocess.run(["git", "merge", "side"], cwd=root, capture_output=True)
    assert (root / ".git" / "MERGE_HEAD").exists()


def start_rebase(root: Path, path: str = "MEMORY.md") -> None:
    """Leave a rebase stopped on a conflict."""
    base = (root / path).read_text()
    git(root, "checkout", "-q", "-b", "topic")
    (root / path).write_text(base + "- topic line\n")
    git(root, "commit", "-q", "-am", "topic")
    git(root, "checkout", "-q", "main")
    (root / path).write_text(base + "- main line\n")
    git(root, "commit", "-q", "-am", "main")
    git(root, "checkout", "-q", "topic")
    subprocess.run(["git", "rebase", "main"], cwd=root, capture_output=True, env={**os.environ, "GIT_EDITOR": "true"})
    assert (root / ".git" / "rebase-merge").is_dir() or (root / ".git" / "rebase-apply").is_dir()


# ---------------------------------------------------------------------------------------------
# The command line


def subcommands() -> list[str]:
    """Every sub-command ``amr --help`` lists (new ones show up here by themselves)."""
    from amr_tui.cli.main import build_parser

    parser = build_parser()
    for action in parser._actions:
        if getattr(action, "choices", None) and isinstance(action.choices, dict):
            return sorted(action.choices)
    return []


#: command -> invocations for one repo. ``{repo}``, ``{memory}``, ``{tmp}`` are filled in.
CLI_CASES: dict[str, list[list[str]]] = {
    "parse": [["parse", "{memory}"], ["parse", "{memory}", "--json"]],
    "lint": [["lint", "{repo}"], ["lint", "{repo}", "--json", "--severity", "info"], ["lint", "{repo}", "--fix"]],
    "search": [
        ["search", "click", "{repo}"],
        ["search", "fact", "{repo}", "--json"],
        ["search", "--output=x.txt", "{repo}"],
    ],
    "init": [["init", "{repo}"]],
    "demo": [["demo", "--path", "{tmp}/demo", "--no-open"]],
    "history": [
        ["history", "{memory}"],
        ["history", "{memory}:3", "--blame"],
        ["history", "--json", "--follow", "{memory}"],
        ["history", "{repo}/journal.md"],
        ["history", "{repo}/--output=x.txt"],
    ],
    "forgotten": [["forgotten", "{repo}"], ["forgotten", "{repo}", "--json"]],
    "forget": [["forget", "{memory}:3", "--reason", "\x1b]52;c;eA==\x07 [@click=app.quit]"]],
    "dream": [
        ["dream", "{repo}", "--today", "2026-10-01"],
        ["dream", "{repo}", "--run-id=--output=x.txt"],
        ["dream", "{repo}", "--json", "--run-id", "evil-\u202e"],
    ],
    "dreams": [
        ["dreams", "list", "{repo}"],
        ["dreams", "list", "--all", "--json", "{repo}"],
        ["dreams", "show", "-C", "{repo}", "dreams/evil-\u202e-run"],
        ["dreams", "show", "-C", "{repo}", "--output=x.txt"],
        ["dream", "{repo}", "--run-id", "r1", "--today", "2026-10-01"],
        ["dreams", "show", "-C", "{repo}", "r1"],
        ["dreams", "accept", "-C", "{repo}", "r1"],
        ["dreams", "undo", "-C", "{repo}", "r1"],
        ["dreams", "reject", "-C", "{repo}", "r1"],
        ["dreams", "accept", "-C", "{repo}", "dreams/evil-\u202e-run"],
    ],
    "sync": [
        ["sync", "{repo}", "--status"],
        ["sync", "{repo}", "--no-push"],
        ["sync", "{repo}"],
        ["sync", "{repo}", "--json"],
        ["sync", "{repo}", "--conflicts"],
        ["sync", "{repo}", "--remote=--output=x.txt"],
    ],
    "share": [["share", "{repo}", "--preview"], ["share", "{repo}", "--into", "{tmp}/session"]],
    "merge-driver": [
        ["merge-driver", "{tmp}/O", "{tmp}/A", "{tmp}/B", "7", "notes/\x1b[2J.md"],
        ["merge-driver", "install", "{repo}"],
    ],
    # servers: their refusals before they listen (a name that is not mounted: the message names
    # the repos), and amr mcp on a closed stdin (it answers nothing and exits)
    "serve": [["serve", "--help"], ["serve", "{repo}", "--read-only", "nosuch\x1b[2J"]],
    "mcp": [["mcp", "--help"], ["mcp", "{repo}", "--read-only", "nosuch\x1b[2J"], ["mcp", "{repo}"]],
}


def cli_invocations(command: str, repo: Path, tmp: Path) -> list[list[str]]:
    """The invocations of ``command`` to try against ``repo``: its CLI_CASES, else two generic ones."""
    cases = CLI_CASES.get(command) or [[command, "--help"], [command, "{repo}"]]
    values = {"repo": str(repo), "memory": str(repo / "MEMORY.md"), "tmp": str(tmp)}
    for name, payload in (("O", ""), ("A", PAYLOADS["osc52"]), ("B", PAYLOADS["click"])):
        (tmp / name).write_text(f"- base line\n- {name} {payload}\n")
    return [[part.format(**values) for part in case] for case in cases]


@dataclass
class CliRun:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str


def run_amr(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> CliRun:
    """``amr ARGV`` in a real process (no terminal: output is piped, as agents and CI see it)."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("FORCE_COLOR", None)
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", *argv],
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
    )
    return CliRun(
        argv,
        res.returncode,
        res.stdout.decode("utf-8", "surrogateescape"),
        res.stderr.decode("utf-8", "surrogateescape"),
    )


def check_cli_run(run: CliRun) -> list[str]:
    """Problems with one run: a traceback, a raw control character, a crash exit code."""
    problems = []
    if "Traceback (most recent call last)" in run.stderr or "Traceback (most recent call last)" in run.stdout:
        problems.append(f"{run.argv}: traceback\n{run.stderr[-2000:]}")
    for stream, text in (("stdout", run.stdout), ("stderr", run.stderr)):
        bad = forbidden_in(text)
        if bad:
            problems.append(f"{run.argv}: raw control characters on {stream}: {bad}")
    if run.returncode < 0 or run.returncode > 2:
        problems.append(f"{run.argv}: exit code {run.returncode}\n{run.stderr[-2000:]}")
    return problems


# ---------------------------------------------------------------------------------------------
# The app


def rendered(app) -> str:
    """Every segment the compositor would send to the terminal, as one string."""
    return "".join(screen_lines(app))


def screen_lines(app) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in screen_strips(app)]


Check = Callable[[str], None]
