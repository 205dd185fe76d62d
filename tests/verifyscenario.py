"""A real code repo whose files, symbols and scripts were renamed and deleted over commits, and
memory beside it: the scenario of ``amr verify`` (tests, the precision corpus, the captures).

``build_code_repo(dest)`` writes ``payments``: a small TypeScript + Python project with nine
commits at fixed dates (so verdicts name the same commits and days on every machine):

=====  ==========  ==============================================================================
 #      date        what it does
=====  ==========  ==============================================================================
 1      2026-06-01  the project: package.json scripts, lib/redis.ts, src/payments/ledger.py, ...
 2      2026-07-10  ``git mv lib/redis.ts lib/cache/redis.ts``
 3      2026-08-03  deletes middleware/rateLimit.ts (rate limiting moved to the gateway)
 4      2026-08-20  package.json: script ``migrate`` renamed ``db:migrate``, ``lint`` removed
 5      2026-09-02  ``reconcile_day`` renamed ``reconcile_ledger_day``
 6      2026-09-15  deletes scripts/seed.py, drops the Makefile's ``docker-build`` target
 7      2026-10-01  drops FEATURE_NEW_CHECKOUT from config/settings.py
 8      2026-10-05  a branch ``feature/refund-retries`` (adds ``retry_refund``) merged, then deleted
 9      2026-10-12  reverts commit 8's change to refunds.py (``retry_refund`` is gone again)
=====  ==========  ==============================================================================

plus a ``gh-pages`` branch. ``build_memory(dest, code)`` writes an AMR memory repo citing those
things, and ``claude_folder(home, code)`` a Claude Code memory folder for the project, under
``<home>/.claude/projects/-<path with dashes>/memory``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

IDENT = {
    "GIT_AUTHOR_NAME": "Dana Dev",
    "GIT_AUTHOR_EMAIL": "dana@example.test",
    "GIT_COMMITTER_NAME": "Dana Dev",
    "GIT_COMMITTER_EMAIL": "dana@example.test",
    "GIT_CONFIG_NOSYSTEM": "1",
}

PACKAGE_JSON_1 = """{
  "name": "payments",
  "private": true,
  "scripts": {
    "dev": "bun run src/server.ts",
    "build": "tsc -p .",
    "test": "vitest run",
    "migrate": "bun run scripts/migrate.ts",
    "db:seed": "python scripts/seed.py",
    "lint": "eslint ."
  }
}
"""

PACKAGE_JSON_4 = """{
  "name": "payments",
  "private": true,
  "scripts": {
    "dev": "bun run src/server.ts",
    "build": "tsc -p .",
    "test": "vitest run",
    "db:migrate": "bun run scripts/migrate.ts",
    "db:seed": "python scripts/seed.py"
  }
}
"""

MAKEFILE_1 = """.PHONY: deploy test docker-build

deploy:
\t./scripts/deploy.sh production

test:
\tpytest -q

docker-build:
\tdocker build -t payments .
"""

MAKEFILE_6 = """.PHONY: deploy test

deploy:
\t./scripts/deploy.sh production

test:
\tpytest -q
"""

LEDGER_1 = '''"""The ledger: every payment is two entries."""

LEDGER_TABLE = "ledger_entries"


class LedgerService:
    def post_entry(self, account: str, cents: int) -> None:
        """Post one entry; amounts are integer cents."""

    def reconcile_day(self, day: str) -> int:
        """Reconcile one day against the bank feed; returns the mismatches."""
        return 0
'''

LEDGER_5 = LEDGER_1.replace("reconcile_day", "reconcile_ledger_day")

REFUNDS_1 = '''"""Refunds."""


def issue_refund(payment_id: str, cents: int) -> str:
    """Refunds go through the ledger as a reversing entry."""
    return payment_id
'''

REFUNDS_8 = (
    REFUNDS_1
    + '''

def retry_refund(payment_id: str) -> str:
    """Retry a refund the bank refused."""
    return payment_id
'''
)

SETTINGS_1 = """import os

DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://localhost/payments")
REDIS_URL = os.environ.get("REDIS_URL", "redis://localhost:6379")
FEATURE_NEW_CHECKOUT = os.environ.get("FEATURE_NEW_CHECKOUT") == "1"
PAYMENT_TIMEOUT_MS = 8000
"""

SETTINGS_7 = "\n".join(ln for ln in SETTINGS_1.splitlines() if "FEATURE_NEW_CHECKOUT" not in ln) + "\n"

FILES_1: dict[str, str] = {
    "package.json": PACKAGE_JSON_1,
    "Makefile": MAKEFILE_1,
    "pyproject.toml": '[project]\nname = "payments"\nversion = "0.1.0"\n\n[project.scripts]\n'
    'payments-cli = "payments.cli:main"\n',
    "README.md": "# payments\n\nThe payments service.\n",
    "docker-compose.yml": "services:\n  db:\n    image: postgres:16\n  redis:\n    image: redis:7\n",
    "lib/redis.ts": "export const REDIS_TTL_SECONDS = 300;\n\nexport function getRedisClient(url: string) {\n"
    "  return { url };\n}\n",
    "lib/auth/session.ts": 'export const SESSION_COOKIE_NAME = "pay_sid";\n\nexport function createSession'
    "(userId: string) {\n  return { userId };\n}\n",
    "middleware/rateLimit.ts": "export function rateLimitMiddleware(limit: number) {\n  return limit;\n}\n",
    "src/server.ts": 'import { getRedisClient } from "../lib/redis";\n\nexport function startServer() {\n'
    '  return getRedisClient("redis://localhost");\n}\n',
    "src/payments/__init__.py": "",
    "src/payments/ledger.py": LEDGER_1,
    "src/payments/refunds.py": REFUNDS_1,
    "src/payments/cli.py": "def main() -> None:\n    print('payments')\n",
    "scripts/deploy.sh": '#!/bin/sh\necho deploying "$1"\n',
    "scripts/seed.py": "print('seeding')\n",
    "scripts/migrate.ts": "export async function migrate() {}\n",
    "config/settings.py": SETTINGS_1,
    "migrations/001_init.sql": "CREATE TABLE ledger_entries (id bigint primary key, cents bigint not null);\n",
    "tests/test_ledger.py": "from payments.ledger import LedgerService\n\n\ndef test_post():\n"
    "    LedgerService().post_entry('a', 1)\n",
}


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    env = dict(os.environ)
    env.update(IDENT)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{date}T10:00:00+00:00"
    out = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return out.stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _commit(root: Path, message: str, date: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, date=date)


def build_code_repo(dest: Path) -> Path:
    """The ``payments`` code repo at ``dest`` (see the module docstring). Returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "init", "-q", "-b", "main")
    _write(dest, FILES_1)
    _commit(dest, "Payments service: ledger, refunds, redis cache, auth sessions", "2026-06-01")
    git(dest, "branch", "gh-pages")
    (dest / "lib/cache").mkdir(parents=True, exist_ok=True)
    git(dest, "mv", "lib/redis.ts", "lib/cache/redis.ts")
    _write(dest, {"src/server.ts": FILES_1["src/server.ts"].replace("../lib/redis", "../lib/cache/redis")})
    _commit(dest, "Move the redis client under lib/cache", "2026-07-10")
    git(dest, "rm", "-q", "middleware/rateLimit.ts")
    _commit(dest, "Drop the rate-limit middleware: the gateway limits requests now", "2026-08-03")
    _write(dest, {"package.json": PACKAGE_JSON_4})
    _commit(dest, "Scripts: migrate is db:migrate; drop lint (CI runs it)", "2026-08-20")
    _write(dest, {"src/payments/ledger.py": LEDGER_5})
    _commit(dest, "Rename reconcile_day to reconcile_ledger_day", "2026-09-02")
    git(dest, "rm", "-q", "scripts/seed.py")
    _write(dest, {"Makefile": MAKEFILE_6})
    _commit(dest, "Seed data comes from fixtures now; no docker-build target", "2026-09-15")
    _write(dest, {"config/settings.py": SETTINGS_7})
    _commit(dest, "The new checkout is the only checkout: drop its flag", "2026-10-01")
    git(dest, "switch", "-q", "-c", "feature/refund-retries")
    _write(dest, {"src/payments/refunds.py": REFUNDS_8})
    _commit(dest, "Retry refunds the bank refused", "2026-10-04")
    git(dest, "switch", "-q", "main")
    git(
        dest,
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge branch 'feature/refund-retries'",
        "feature/refund-retries",
        date="2026-10-05",
    )
    git(dest, "branch", "-q", "-D", "feature/refund-retries")
    retry = git(dest, "rev-parse", "HEAD^2").strip()
    _write(dest, {"src/payments/refunds.py": REFUNDS_1})
    git(dest, "add", "-A")
    git(
        dest,
        "commit",
        "-q",
        "-m",
        f'Revert "Retry refunds the bank refused"\n\nThis reverts commit {retry}.',
        date="2026-10-12",
    )
    return dest


def commit_of(code: Path, subject_start: str) -> str:
    """The full id of the commit whose subject starts with ``subject_start``."""
    out = git(code, "log", "--all", "--format=%H %s")
    for line in out.splitlines():
        oid, _, subject = line.partition(" ")
        if subject.startswith(subject_start):
            return oid
    raise LookupError(subject_start)


MEMORY_MD = """# Memory: payments

- Use bun, not npm, for everything in this repo [source: https://example.com/sessions/1; added: 2026-06-02]
- The redis client lives in `lib/redis.ts`; import `getRedisClient` from there [source: https://example.com/sessions/2; added: 2026-06-03]
- Run `bun run migrate` before the integration tests [source: https://example.com/sessions/3; added: 2026-06-05]
- Rate limiting is `rateLimitMiddleware` in middleware/rateLimit.ts [source: https://example.com/sessions/4; added: 2026-06-06]

## Index

- [[backend]]
"""

BACKEND_MD = """# Backend

- Amounts are integer cents: `LedgerService.post_entry` takes cents, never floats [source: https://example.com/sessions/5; added: 2026-06-07]
- Nightly reconciliation calls `reconcile_day` in src/payments/ledger.py:10 [source: https://example.com/sessions/6; added: 2026-06-08]
- `make docker-build` builds the image; seed data with scripts/seed.py [source: https://example.com/sessions/7; added: 2026-06-09]
- The new checkout is behind FEATURE_NEW_CHECKOUT in config/settings.py [source: https://example.com/sessions/8; added: 2026-06-10]
- Failed refunds are retried by `retry_refund` (commit {retry}) [source: https://example.com/sessions/9; added: 2026-10-06]
- Sessions use the `pay_sid` cookie, see `SESSION_COOKIE_NAME` in lib/auth/session.ts [source: https://example.com/sessions/10; added: 2026-06-11]
- Deploys run `make deploy`; the docs site is the `gh-pages` branch [source: https://example.com/sessions/11; added: 2026-06-12]
- Lint with `npm run lint` before pushing [source: https://example.com/sessions/12; added: 2026-06-13]
- Priya reviews every schema change; be terse with her [source: https://example.com/sessions/13; added: 2026-06-14]
"""


def build_memory(dest: Path, code: Path) -> Path:
    """An AMR memory repo ``dest`` whose entries cite the code repo ``code`` (committed at
    2026-10-13). Returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "init", "-q", "-b", "main")
    retry = commit_of(code, "Retry refunds")[:10]
    _write(dest, {"MEMORY.md": MEMORY_MD, "backend.md": BACKEND_MD.replace("{retry}", retry)})
    _commit(dest, "Memory of the payments service", "2026-10-13")
    return dest


CLAUDE_MEMORY = """- [Redis client](reference_redis.md) — the redis client and its TTL
- [Testing](feedback_testing.md) — how to run the tests
"""

CLAUDE_REDIS = """---
name: Redis client
description: the redis client and its TTL
type: reference
---

The redis client is `getRedisClient` in lib/redis.ts; cache entries live `REDIS_TTL_SECONDS`.
"""

CLAUDE_TESTING = """---
name: Testing
description: how to run the tests
type: feedback
---

Run `bun run migrate` then `bun run test`; the ledger tests are in tests/test_ledger.py.
**Why:** the integration tests need the schema.
"""


def claude_folder(home: Path, code: Path) -> Path:
    """A Claude Code memory folder for the project ``code`` under ``home`` (not a git repo, as
    Claude Code writes it). Returns the memory folder."""
    project = "-" + str(code.resolve()).strip("/").replace("/", "-").replace(".", "-").replace("_", "-")
    folder = home / ".claude" / "projects" / project / "memory"
    _write(
        folder,
        {"MEMORY.md": CLAUDE_MEMORY, "reference_redis.md": CLAUDE_REDIS, "feedback_testing.md": CLAUDE_TESTING},
    )
    return folder
