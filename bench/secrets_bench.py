"""Credential checks: time on real-looking memory text and on adversarial long lines.

    python bench/secrets_bench.py [--baseline REV] [--n N] [--mb MB]

Three measures, each for this tree's ``amr_tui/core/secrets.py`` and, with ``--baseline``, for the
same module as it was at git revision REV (loaded from ``git show``: the module is pure), in the
same run, with the ratio:

* ``lint``: what ``amr lint`` does per file: the literal prefilter over the whole text, then
  ``find_secrets`` on the lines it picks; over the docs and format fixtures of this repo (English
  prose full of "token", "password", "secret"), then over a block of made-up memory lines in
  several languages and scripts; each repeated to about MB megabytes.
* ``lines``: ``find_secrets`` on every line of the same text (the editor's question, MCP writes).
* adversarial long lines of N characters (each was quadratic before issue 28's linear rewrite;
  each must grow with N).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MULTILINGUAL = """\
- 部署窗口是每周二下午，负责人是王伟 [added: 2026-03-01]
- 密码策略：至少十二位，每九十天轮换一次
- 本番環境のデプロイは火曜日の午後に行う（担当：佐藤）
- パスワードは1Passwordの「Prod DB」項目にある
- 배포는 화요일 오후에 하며 담당자는 김민수입니다
- 비밀번호 정책은 12자 이상입니다
- La contraseña del servidor está en el gestor de secretos
- Le mot de passe est stocké dans le coffre de l'équipe
- Das Passwort steht im Tresor, nicht im Wiki
- A senha do banco fica no cofre da equipe
- La password del wifi è nel vault del team
- Пароль от сервера хранится в Vault, токен обновляется каждую неделю
- café ☕ opens at nine; the team 👩‍💻 meets on Fridays ❤️
"""


def corpus(mb: float) -> tuple[str, str]:
    english = []
    for path in sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "tests" / "fixtures").rglob("*.md")):
        english.append(path.read_text(encoding="utf-8", errors="replace"))
    text = "\n".join(english)
    size = int(mb * 1_000_000)
    return (text * (size // len(text) + 1))[:size], (MULTILINGUAL * (size // len(MULTILINGUAL) + 1))[:size]


def module_at(rev: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "show", f"{rev}:amr_tui/core/secrets.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    mod = types.ModuleType(f"secrets_at_{rev}")
    mod.__dict__["__name__"] = mod.__name__
    sys.modules[mod.__name__] = mod  # dataclasses look their module up
    exec(compile(source, f"{rev}:amr_tui/core/secrets.py", "exec"), mod.__dict__)
    return mod


def best(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def lint_like(mod: types.ModuleType, text: str) -> int:
    lines = text.split("\n")
    picked = mod.secret_line_candidates(text)
    found = 0
    for i in range(len(lines)) if picked is None else picked:
        found += len(mod.find_secrets(lines[i]))
    return found


def every_line(mod: types.ModuleType, text: str) -> int:
    return sum(len(mod.find_secrets(line)) for line in text.split("\n"))


def adversarial(n: int) -> dict[str, str]:
    return {
        "letters": "a" * n,
        "at": "a@" * (n // 2),
        "url-noat": "http://" + "a" * n,
        "urls": "http://a:b" * (n // 10),
        "userinfo": "x://" + "a:" * (n // 2),
        "scheme": "ab" * (n // 2) + "://",
        "pw": "password=" * (n // 9),
        "pw-run": "password=" + "a" * n,
        "pw-spaced": "password: " * (n // 10),
        "token-words": "token " * (n // 6),
        "ident-run": "a_" * (n // 2) + "password=x1",
        "jwt": "eyJ" * (n // 3),
        "jwt2": "eyJ" + "a" * n + ".eyJ" + "a" * n,
        "sk": "sk-" * (n // 3) + " ",
        "ghp": "ghp_" * (n // 4),
        "slack": "xoxb-" * (n // 5),
        "begin": "-----BEGIN " * (n // 11),
        "AKIA": "AKIA" * (n // 4),
        "aws-b64": "aws " + "Ab1/" * (n // 4),
        "aws-40s": ("AWS " + "Ab1+" * 10 + " ") * (n // 45),
        "colons": "a:" * (n // 2) + "@",
        "spaces-at": " @" * (n // 2),
        "zwsp": "a\u200b" * (n // 2),
        "fullwidth": "\uff21" * n,
        "cjk-pw": "密码" * (n // 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", help="a git revision to compare with (its amr_tui/core/secrets.py)")
    ap.add_argument("--n", type=int, default=20000, help="length of the adversarial lines")
    ap.add_argument("--mb", type=float, default=1.0, help="megabytes of each corpus")
    args = ap.parse_args()

    from amr_tui.core import secrets as current

    mods: list[tuple[str, types.ModuleType]] = [("this tree", current)]
    if args.baseline:
        mods.insert(0, (args.baseline, module_at(args.baseline)))
    english, other = corpus(args.mb)
    rows: list[tuple[str, list[float]]] = []
    for name, text in (("english", english), ("multilingual", other)):
        rows.append((f"lint {name}", [best(lambda m=m, t=text: lint_like(m, t)) for _n, m in mods]))
        rows.append((f"lines {name}", [best(lambda m=m, t=text: every_line(m, t)) for _n, m in mods]))
    for name, text in adversarial(args.n).items():
        rows.append(
            (
                f"adv {name}",
                [
                    best(lambda m=m, t=text: (m.find_secrets(t), m.secret_line_candidates(t + "\n" + t)), 3)
                    for _n, m in mods
                ],
            )
        )
    head = "".join(f"{n:>14s}" for n, _m in mods) + ("   ratio" if len(mods) == 2 else "")
    print(f"{'case':22s}{head}   (ms; corpus {args.mb} MB each, adversarial n={args.n})")
    for name, times in rows:
        cells = "".join(f"{t * 1000:14.1f}" for t in times)
        ratio = f"{times[1] / times[0]:8.2f}" if len(times) == 2 and times[0] > 0 else ""
        print(f"{name:22s}{cells}{ratio}")


if __name__ == "__main__":
    main()
