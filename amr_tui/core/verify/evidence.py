"""What an entry cites that can be checked against code: :func:`extract`.

A fact about code goes stale when the code it names changes. This module finds the names an
entry's text gives that are **unambiguously** code (a "gone" verdict must be one a reader agrees
with, so a plain English word is never evidence, even in backticks):

======== =============================================================================================
kind      found as
======== =============================================================================================
path      a repo-relative file or folder: ``lib/redis.ts``, ``src/payments/ledger.py:40`` (the line
          kept as a hint), ``src/payments/``; a file name with an extension code repos use
          (``package.json``); a build file (``Makefile``, ``Dockerfile``). In plain text a slash
          path needs an extension, a trailing ``/`` or a first folder code repos use (``src/``,
          ``lib/``...), so ``and/or``, ``CI/CD`` and ``Europe/London`` are text; in backticks any
          slash path counts. Never a URL, a domain, an absolute or ``~`` path, a ``[[link]]``, a
          version (``v2.3.1``), a framework name (``Node.js``) or ``MEMORY.md``.
symbol    in backticks: a snake_case, camelCase or PascalCase-of-two-words identifier, a qualified
          name (``LedgerService.post_entry``) or a call (``createSession(userId)``); in plain text a
          snake_case identifier or a call with empty parentheses (``reconcile_day()``).
config    an UPPER_SNAKE name with an underscore (``DATABASE_URL``), backticked or not.
script    ``npm run X`` (also ``npm test``, ``npm start``), ``yarn X``, ``pnpm X``, ``bun run X``, in
          backticks (``X run Y`` also in plain text): a package.json script, not the tool's own
          command (``yarn install``) nor a file (``bun run scripts/x.ts`` is a path); or a
          backticked name beside the word "script".
target    ``make X`` or ``just X`` in backticks; a backticked name beside the word "target".
module    ``python -m X``.
commit    7 to 40 hex digits holding a digit and a letter, in backticks or after "commit".
branch    a backticked name beside the word "branch".
======== =============================================================================================

``poetry run X`` and ``uv run X`` are not evidence: X may be any installed program. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amr_tui.core.format.links import code_spans

KINDS = ("path", "symbol", "config", "script", "target", "module", "commit", "branch")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One checkable thing an entry cites. ``value`` is what is checked (``lib/redis.ts``,
    ``migrate``), ``written`` how the entry wrote it (``lib/redis.ts:40``, ``bun run migrate``);
    ``start``/``end`` its place in the text; ``line`` a line hint (``:40``); ``tool`` the runner of a
    script or target (``npm``, ``bun``, ``make``, ``just``)."""

    kind: str
    value: str
    written: str
    start: int
    end: int
    line: int | None = None
    tool: str | None = None

    @property
    def label(self) -> str:
        """How the evidence is named to a person: ``path lib/redis.ts``, ``script migrate (bun)``."""
        tool = f" ({self.tool})" if self.tool and self.kind in ("script", "target") else ""
        return f"{self.kind} {self.value}{tool}"


# File extensions code repos use (a bare ``name.ext`` in text is a path only with one of these).
CODE_EXTENSIONS = frozenset(
    """py pyi pyx ts tsx mts cts js jsx mjs cjs go rs rb java kt kts scala swift c h cc cpp cxx hpp hh
    m mm cs fs vb php pl pm lua r jl dart ex exs erl hrl clj cljs elm hs ml mli nim zig sol vue svelte
    astro sql sh bash zsh fish ps1 bat cmd yml yaml toml json jsonc json5 ini cfg conf env lock mod sum
    xml gradle properties tf tfvars hcl proto graphql gql prisma html htm css scss sass less md mdx rst
    txt csv tsv ipynb dockerfile nix cmake mk in tpl j2 erb ejs hbs png jpg jpeg gif svg webp ico pdf
    wasm patch diff""".split()
)
# Files with no extension that are always paths.
BUILD_FILES = frozenset(
    """Makefile GNUmakefile makefile Dockerfile Containerfile Justfile justfile Procfile Gemfile
    Rakefile Vagrantfile Jenkinsfile Brewfile Pipfile Caddyfile Earthfile Tiltfile""".split()
)
# First folders that make a plain-text slash path without an extension a path (``lib/redis``).
CODE_DIRS = frozenset(
    """src lib app apps packages pkg cmd internal tests test spec specs scripts script bin docs config
    configs public static assets middleware components services service api web server client
    migrations db database models views controllers routes handlers utils util helpers tools infra
    deploy deployments charts k8s terraform ops build dist vendor fixtures examples modules core
    frontend backend ui styles templates jobs workers tasks hooks store stores pages layouts
    .github .circleci .gitlab .vscode .devcontainer""".split()
)
# ``Node.js`` is a framework, not a file.
FRAMEWORKS = frozenset(
    """node next nuxt vue express ember backbone d3 three chart moment react angular socket.io p5 alpine
    solid nest deno bun htmx knockout meteor sails total vite preact svelte remix gatsby hapi koa
    fastify electron phaser pixi babylon tone lodash underscore jquery""".split()
)
# What a memory folder calls its own files: never code evidence.
MEMORY_NAMES = frozenset({"memory.md"})
YARN_BUILTINS = frozenset(
    """add audit autoclean bin cache check config create dlx exec explain generate-lock-entry global help
    import info init install licenses link list login logout node npm outdated owner pack patch
    patch-commit plugin policies publish rebuild remove run set stage tag team unlink unplug up
    upgrade upgrade-interactive version versions why workspace workspaces""".split()
)
PNPM_BUILTINS = frozenset(
    """add audit bin config create deploy dedupe dlx env exec fetch import i install install-test it
    licenses link list ln ls outdated pack patch patch-commit patch-remove prune publish rb rebuild
    recursive remove rm root run server setup store un uninstall unlink up update why""".split()
)
BUN_BUILTINS = frozenset(
    """add build create exec i init install link outdated patch pm publish remove repl rm run test unlink
    update upgrade x why audit info""".split()
)
NPM_SCRIPT_COMMANDS = {
    "test": "test",
    "t": "test",
    "tst": "test",
    "start": "start",
    "stop": "stop",
    "restart": "restart",
}

_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>`\"')\]]*|\bwww\.[^\s<>`\"')\]]+|\bmailto:\S+")
_WIKI = re.compile(r"\[\[[^\[\]\n]*\]\]")
_MD_TARGET = re.compile(r"\]\([^()\s]*\)")
_HEX = re.compile(r"[0-9a-f]{7,40}")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_QUALIFIED = re.compile(rf"{_IDENT}(?:(?:\.|::|#){_IDENT})*")
_CALL = re.compile(rf"({_IDENT}(?:(?:\.|::){_IDENT})*)\((?:[^()]{{0,80}})\)")
_UPPER_SNAKE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_SNAKE = re.compile(r"_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+_*")
_CAMEL = re.compile(r"[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*")
_PASCAL2 = re.compile(r"[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*")
_LINE_HINT = re.compile(r"(?::(\d{1,6})(?:[-:]\d{1,6})?|#L(\d{1,6})(?:-L?\d{1,6})?)$")
# Plain text: a path-looking token (its neighbours decide whether it is one).
_PATH_TOKEN = re.compile(
    r"(?<![\w@/\\.:~$%#-])"
    r"(?=[\w@+.-]*[/.]|(?:" + "|".join(sorted(BUILD_FILES)) + r")\b)"  # a slash, a dot or a build file
    r"((?:\.{1,2}/)?[\w@+.-]*[A-Za-z0-9_@+-](?:/[\w@+.-]*)*)"
    r"(?::\d{1,6}(?:[-:]\d{1,6})?|#L\d{1,6}(?:-L?\d{1,6})?)?"
)
_PLAIN_CALL = re.compile(rf"(?<![\w.$@#/-])({_IDENT}(?:\.{_IDENT})*)\(\)")
_PLAIN_SNAKE = re.compile(r"(?<![\w.$@#/:-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w/-]|\.\w)")
_PLAIN_UPPER = re.compile(r"(?<![\w.$@#/:-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w/-]|\.\w)")
_PLAIN_COMMIT = re.compile(r"\b(?:[Cc]ommits?|SHA|sha|[Rr]evision|rev)\s+([0-9a-f]{7,40})\b")
_PLAIN_RUN = re.compile(r"(?<![\w-])(npm|yarn|pnpm|bun)\s+run\s+([A-Za-z0-9_][\w:.-]*)")
_RELATION = re.compile(r"^\s*[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s+\[\[")  # basic-memory: "relates_to [[Note]]"
_PLAIN_MODULE = re.compile(rf"(?<![\w-])python3?\s+-m\s+({_IDENT}(?:\.{_IDENT})*)")


def extract(text: str) -> list[Evidence]:
    """The evidence ``text`` (an entry's text, or a line of prose) cites, in order, each
    ``(kind, value)`` once."""
    if not text:
        return []
    found: list[Evidence] = []
    spans = code_spans(text) if "`" in text else []
    hidden = _hidden(text)
    for a, b in spans:
        n = 0
        while text[a + n] == "`":
            n += 1
        inner = text[a + n : b - n]
        found += _from_code(inner.strip(), text, a, b)
    masked = _mask(text, [*spans, *hidden])
    found += _from_plain(masked, text)
    found.sort(key=lambda e: (e.start, e.end))
    out: list[Evidence] = []
    seen: set[tuple[str, str]] = set()
    for ev in found:
        key = (ev.kind, ev.value)
        if key not in seen:
            seen.add(key)
            out.append(ev)
    return out


def _hidden(text: str) -> list[tuple[int, int]]:
    """Spans that are never evidence: URLs, ``[[links]]``, Markdown link targets."""
    out: list[tuple[int, int]] = []
    for rx in (_URL, _WIKI, _MD_TARGET):
        if rx is _WIKI and "[[" not in text:
            continue
        if rx is _MD_TARGET and "](" not in text:
            continue
        out += [(m.start(), m.end()) for m in rx.finditer(text)]
    return out


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the spans blanked (same length, so offsets stay)."""
    if not spans:
        return text
    chars = list(text)
    for a, b in spans:
        for i in range(a, min(b, len(chars))):
            chars[i] = " "
    return "".join(chars)


# ------------------------------------------------------------------ inside backticks


def _word_near(text: str, a: int, b: int) -> str:
    """The plain words right next to a code span (only spaces between), lower case: "the `x`
    branch", "branch `x`", "the `dev` script"."""
    before = re.search(r"([A-Za-z-]+)[ \t]+$", text[max(0, a - 24) : a])
    after = re.match(r"[ \t]+([A-Za-z-]+)", text[b : b + 24])
    return " ".join(m.group(1).lower() for m in (before, after) if m is not None)


def _from_code(inner: str, text: str, a: int, b: int) -> list[Evidence]:
    if not inner or len(inner) > 300:
        return []
    words = inner.split()
    if words and words[0] == "$":
        words = words[1:]
    if not words:
        return []
    if len(words) > 1:
        return _command(words, inner, a, b)
    token = words[0]
    near = _word_near(text, a, b).split()
    if any(w in ("branch", "branches") for w in near) and _branch_name(token):
        return [Evidence("branch", token, inner, a, b)]
    if any(w in ("script", "scripts") for w in near) and re.fullmatch(r"[A-Za-z0-9_][\w:.-]*", token):
        return [Evidence("script", token, inner, a, b)]
    if any(w in ("target", "targets", "recipe") for w in near) and re.fullmatch(r"[A-Za-z0-9_][\w.-]*", token):
        return [Evidence("target", token, inner, a, b)]
    if _HEX.fullmatch(token) and _has_digit_and_letter(token):
        return [Evidence("commit", token, inner, a, b)]
    path = _path(token, code=True)
    if path is not None:
        value, line = path
        return [Evidence("path", value, inner, a, b, line)]
    ident = _identifier(token, code=True)
    if ident is not None:
        return [Evidence(ident[0], ident[1], inner, a, b)]
    return []


def _has_digit_and_letter(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _branch_name(token: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9][\w./-]*", token)) and ".." not in token and not token.endswith((".", "/"))


def _script_name(token: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9_][\w:.@-]*", token)) and not _looks_like_file(token)


def _looks_like_file(token: str) -> bool:
    return "/" in token or _extension(token) is not None


def _command(words: list[str], inner: str, a: int, b: int) -> list[Evidence]:
    """Evidence of a command in backticks: a script, a target, a module, or the paths it names."""
    tool = words[0]
    rest = [w for w in words[1:]]
    if tool in ("npm", "yarn", "pnpm", "bun") and rest:
        first = rest[0]
        if first in ("run", "run-script") and len(rest) > 1:
            name = rest[1]
            if tool == "bun" and _looks_like_file(name):
                p = _path(name, code=True)
                return [Evidence("path", p[0], inner, a, b, p[1])] if p else []
            return [Evidence("script", name, inner, a, b, tool=tool)] if _script_name(name) else []
        if tool == "npm":
            script = NPM_SCRIPT_COMMANDS.get(first)
            return [Evidence("script", script, inner, a, b, tool=tool)] if script else []
        builtins = {"yarn": YARN_BUILTINS, "pnpm": PNPM_BUILTINS, "bun": BUN_BUILTINS}[tool]
        if first.startswith("-") or first in builtins:
            if tool == "pnpm" and first == "test":
                return [Evidence("script", "test", inner, a, b, tool=tool)]
            return []
        if tool == "bun" and _looks_like_file(first):
            p = _path(first, code=True)
            return [Evidence("path", p[0], inner, a, b, p[1])] if p else []
        return [Evidence("script", first, inner, a, b, tool=tool)] if _script_name(first) else []
    if tool in ("make", "just"):
        for w in rest:
            if w.startswith("-") or "=" in w:
                if w in ("-C", "-f", "--directory", "--file", "--justfile"):
                    return []  # another folder or file: not this repo's targets
                continue
            if re.fullmatch(r"[A-Za-z0-9_][\w.-]*", w):
                return [Evidence("target", w, inner, a, b, tool=tool)]
            return []
        return []
    if tool in ("python", "python3", "py") and len(rest) >= 2 and rest[0] == "-m":
        if re.fullmatch(rf"{_IDENT}(?:\.{_IDENT})*", rest[1]):
            return [Evidence("module", rest[1], inner, a, b, tool="python")]
        return []
    if tool in ("poetry", "uv", "pdm", "hatch", "pipx", "npx", "bunx", "pnpx"):
        args = rest[1:] if rest and rest[0] in ("run", "exec", "x") else rest
        return _paths_in(args, inner, a, b, skip_first=True)
    return _paths_in(words, inner, a, b, skip_first=False)


def _paths_in(words: list[str], inner: str, a: int, b: int, *, skip_first: bool) -> list[Evidence]:
    """The paths a command names (``./scripts/deploy.sh production``, ``python scripts/seed.py``)."""
    out: list[Evidence] = []
    for i, w in enumerate(words):
        if skip_first and i == 0 and "/" not in w:
            continue
        if w.startswith("-"):
            continue
        p = _path(w.strip("'\""), code=False, command=True)
        if p is not None:
            out.append(Evidence("path", p[0], inner, a, b, p[1]))
    return out


# ------------------------------------------------------------------ paths and identifiers


def _extension(token: str) -> str | None:
    name = token.rstrip("/").rsplit("/", 1)[-1]
    if "." not in name.strip("."):
        return None
    ext = name.rsplit(".", 1)[1].lower()
    return ext if ext in CODE_EXTENSIONS else None


def _path(token: str, *, code: bool, command: bool = False) -> tuple[str, int | None] | None:
    """``(path, line hint)`` when ``token`` is a repo path (see the module docstring)."""
    token = token.rstrip(".,;:!?)'\"")
    if not token or len(token) > 250:
        return None
    line: int | None = None
    hint = _LINE_HINT.search(token)
    if hint is not None and hint.start() > 0:
        line = int(hint.group(1) or hint.group(2))
        token = token[: hint.start()]
    if token.startswith("./"):
        token = token[2:]
    if not token or token.startswith(("/", "~", "../", "$", "-")) or "//" in token or "\\" in token:
        return None
    if "://" in token or "@" in token.split("/", 1)[0] and "/" in token:
        return None
    segments = token.rstrip("/").split("/")
    if any(s in ("", ".", "..") for s in segments):
        return None
    if not all(re.fullmatch(r"[\w@+.-]+", s) for s in segments):
        return None
    if not any(c.isalpha() for c in segments[-1]) or not any(c.isalpha() for c in segments[0]):
        return None
    if token.lower() in MEMORY_NAMES:
        return None
    if token in BUILD_FILES or segments[-1] in BUILD_FILES and len(segments) > 1:
        return token, line
    ext = _extension(token)
    if len(segments) == 1:
        if token.endswith("/"):
            return (token, line) if _dir_name(segments[0]) and (code or len(segments[0]) >= 3) else None
        if ext is None:
            return None
        stem = token.rsplit(".", 1)[0]
        if not any(c.isalpha() for c in stem) or re.fullmatch(r"v?\d+(?:\.\d+)*", stem):
            return None
        if ext == "js" and stem.lower() in FRAMEWORKS:
            return None
        if not code and not command and stem[:1].isupper() and ext in ("js", "ts") and "_" not in stem:
            return None  # "Express.js", "Three.ts"-like names in prose
        if "." in stem and _domain_like(stem):
            return None
        return token, line
    first = segments[0]
    if "." in first and not first.startswith(".") and _domain_like(first):
        return None  # grafana.example.com/d/payments
    if ext is not None or token.endswith("/") and all(_dir_name(s) for s in segments):
        return token, line
    if code or command:
        return (token, line) if all(re.fullmatch(r"[\w@+.-]+", s) for s in segments) else None
    if first in CODE_DIRS and all(re.fullmatch(r"[a-z0-9_.@+-]+", s) for s in segments[1:]):
        return token, line
    return None


def _dir_name(segment: str) -> bool:
    return bool(re.fullmatch(r"\.?[a-z0-9][a-z0-9_.-]*", segment)) and len(segment) >= 2


def _domain_like(name: str) -> bool:
    """``example.com``, ``grafana.example.com``: the last label an alphabetic top-level domain."""
    labels = name.lower().split(".")
    return len(labels) >= 2 and labels[-1].isalpha() and 2 <= len(labels[-1]) <= 6 and labels[-1] not in CODE_EXTENSIONS


def _identifier(token: str, *, code: bool) -> tuple[str, str] | None:
    """``(kind, name)`` when ``token`` is a code identifier (see the module docstring)."""
    call = _CALL.fullmatch(token)
    if call is not None:
        name = call.group(1)
        return ("config" if _UPPER_SNAKE.fullmatch(name) else "symbol", name)
    token = token.rstrip("()")
    if not _QUALIFIED.fullmatch(token):
        return None
    if _UPPER_SNAKE.fullmatch(token):
        return "config", token
    parts = re.split(r"\.|::|#", token)
    if len(parts) > 1:
        first = parts[0]
        pascal = first[:1].isupper() and any(c.islower() for c in first)  # a class: LedgerService.post
        if pascal or any(_strong(p) for p in parts):
            return "symbol", token
        return None
    if _strong(token):
        return "symbol", token
    return None


def _strong(name: str) -> bool:
    """An identifier no English word looks like: snake_case, camelCase, PascalCase of two words."""
    return bool(
        _SNAKE.fullmatch(name) or _CAMEL.fullmatch(name) or _PASCAL2.fullmatch(name) or _UPPER_SNAKE.fullmatch(name)
    )


# ------------------------------------------------------------------ plain text


def _from_plain(text: str, original: str) -> list[Evidence]:
    out: list[Evidence] = []
    taken: list[tuple[int, int]] = []
    for m in _PLAIN_RUN.finditer(text):
        tool, name = m.group(1), m.group(2).rstrip(".,;:")
        if tool == "bun" and _looks_like_file(name):
            continue
        out.append(Evidence("script", name, m.group(0).rstrip(".,;:"), m.start(), m.end(), tool=tool))
        taken.append((m.start(), m.end()))
    for m in _PLAIN_MODULE.finditer(text):
        out.append(Evidence("module", m.group(1), m.group(0), m.start(), m.end(), tool="python"))
        taken.append((m.start(), m.end()))
    for m in _PLAIN_COMMIT.finditer(text):
        if _has_digit_and_letter(m.group(1)):
            out.append(Evidence("commit", m.group(1), m.group(1), m.start(1), m.end(1)))
            taken.append((m.start(1), m.end(1)))
    if "/" in text or "." in text or any(name in text for name in BUILD_FILES):
        for m in _PATH_TOKEN.finditer(text):
            if _inside(m.start(), taken):
                continue
            raw = m.group(0)
            p = _path(raw, code=False)
            if p is None:
                continue
            written = raw.rstrip(".,;:!?)'\"")
            out.append(Evidence("path", p[0], written, m.start(), m.start() + len(written), p[1]))
            taken.append((m.start(), m.start() + len(written)))
    rel = _RELATION.match(original)
    relation = len(original) - len(original.lstrip()) if rel else -1
    for rx, kind in ((_PLAIN_CALL, "symbol"), (_PLAIN_SNAKE, "symbol"), (_PLAIN_UPPER, "config")):
        for m in rx.finditer(text):
            if _inside(m.start(1), taken):
                continue
            name = m.group(1)
            if rx is _PLAIN_CALL:
                kind_ = "config" if _UPPER_SNAKE.fullmatch(name) else "symbol"
                if "." not in name and not _strong(name) and len(name) < 3:
                    continue
            else:
                kind_ = kind
            if rx is _PLAIN_SNAKE and (len(name) < 4 or m.start(1) == relation):
                continue
            out.append(Evidence(kind_, name, m.group(0), m.start(1), m.end(1)))
            taken.append((m.start(1), m.end()))
    return out


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


__all__ = ["KINDS", "Evidence", "extract"]
