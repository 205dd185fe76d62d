"""The labelled corpus for evidence extraction and verdicts (``amr verify``).

Written before the extractor, by the rules below, and split by a digest of each record's id:
about 40% is **sealed** (``split(rid) == "sealed"``): it was committed before the extractor
existed and is only measured, never used to tune it. ``tests/test_verify_corpus.py`` measures
precision and recall on each part separately; ``bench/verify_precision.py`` prints them.

Each record: ``(id, format, text, evidence)``; ``evidence`` is a list of ``(kind, value,
verdict)`` against the ``payments`` repo of ``tests/verifyscenario.py`` at its HEAD. ``{retry}``
stands for the id of the commit that added ``retry_refund`` (reverted since), ``{init}`` for the
first commit's.

Labelling rules (what a careful reader calls checkable evidence):

* **path**: a repo-relative file or folder written with a ``/`` or with a file extension code
  repos use, or a build file with no extension (``Makefile``, ``Dockerfile``); value without a
  ``:LINE`` suffix. Not a URL, an absolute or ``~`` path, a memory link, a domain, a version, a
  framework name (``Node.js``), or the memory's own ``MEMORY.md``.
* **symbol**: a backticked identifier in snake_case, camelCase, PascalCase of two words or more,
  qualified (``A.b``) or called (``name()``); in plain text, a snake_case identifier or a call.
  Not a plain word, backticked or not.
* **config**: an UPPER_SNAKE name with an underscore.
* **script**: ``npm run X``, ``npm test``, ``yarn X``, ``pnpm X``, ``bun run X`` (X a package.json
  script, not a file, not the tool's own command), or a backticked name beside the word
  "script". ``poetry run X`` / ``uv run X`` are not: X may be any installed program.
* **target**: ``make X``, ``just X``.
* **module**: ``python -m X``.
* **commit**: 7-40 hex digits with a digit and a letter, backticked or after "commit".
* **branch**: a backticked name beside the word "branch".

Verdicts: ``holds`` (there now), ``moved`` (renamed: git knows where), ``gone`` (it was there and
is not: deleted, or reverted, or merged and deleted), ``unknown`` (never in the code repo's
history: the fact may be about another repo; never flagged).
"""

from __future__ import annotations

import hashlib

Record = tuple[str, str, str, list[tuple[str, str, str]]]

H, M, G, U = "holds", "moved", "gone", "unknown"

RECORDS: list[Record] = [
    # ------------------------------------------------------------------ AMR bullets
    (
        "a01",
        "amr",
        "The redis client lives in `lib/redis.ts`; import `getRedisClient` from there",
        [("path", "lib/redis.ts", M), ("symbol", "getRedisClient", H)],
    ),
    ("a02", "amr", "Run `bun run migrate` before the integration tests", [("script", "migrate", M)]),
    (
        "a03",
        "amr",
        "Rate limiting is `rateLimitMiddleware` in middleware/rateLimit.ts",
        [("symbol", "rateLimitMiddleware", G), ("path", "middleware/rateLimit.ts", G)],
    ),
    (
        "a04",
        "amr",
        "Amounts are integer cents: `LedgerService.post_entry` takes cents, never floats",
        [("symbol", "LedgerService.post_entry", H)],
    ),
    (
        "a05",
        "amr",
        "Nightly reconciliation calls `reconcile_day` in src/payments/ledger.py:10",
        [("symbol", "reconcile_day", M), ("path", "src/payments/ledger.py", H)],
    ),
    (
        "a06",
        "amr",
        "`make docker-build` builds the image; seed data with scripts/seed.py",
        [("target", "docker-build", G), ("path", "scripts/seed.py", G)],
    ),
    (
        "a07",
        "amr",
        "The new checkout is behind FEATURE_NEW_CHECKOUT in config/settings.py",
        [("config", "FEATURE_NEW_CHECKOUT", G), ("path", "config/settings.py", H)],
    ),
    (
        "a08",
        "amr",
        "Failed refunds are retried by `retry_refund` (commit {retry})",
        [("symbol", "retry_refund", G), ("commit", "{retry}", G)],
    ),
    (
        "a09",
        "amr",
        "Sessions use the `pay_sid` cookie, see `SESSION_COOKIE_NAME` in lib/auth/session.ts",
        [("symbol", "pay_sid", H), ("config", "SESSION_COOKIE_NAME", H), ("path", "lib/auth/session.ts", H)],
    ),
    (
        "a10",
        "amr",
        "Deploys run `make deploy`; the docs site is the `gh-pages` branch",
        [("target", "deploy", H), ("branch", "gh-pages", H)],
    ),
    ("a11", "amr", "Lint with `npm run lint` before pushing", [("script", "lint", G)]),
    ("a12", "amr", "Priya reviews every schema change; be terse with her", []),
    ("a13", "amr", "Use bun, not npm, for everything in this repo", []),
    ("a14", "amr", "Schema changes ship in their own PR, before the API change", []),
    ("a15", "amr", "The dev server runs on port 3001 when 3000 is taken", []),
    ("a16", "amr", "Staging is at https://staging.example.com/payments and resets nightly", []),
    (
        "a17",
        "amr",
        "Refunds go through `issue_refund` in src/payments/refunds.py, never a raw UPDATE",
        [("symbol", "issue_refund", H), ("path", "src/payments/refunds.py", H)],
    ),
    (
        "a18",
        "amr",
        "The ledger table is ledger_entries; see migrations/001_init.sql",
        [("symbol", "ledger_entries", H), ("path", "migrations/001_init.sql", H)],
    ),
    (
        "a19",
        "amr",
        "Timeouts: PAYMENT_TIMEOUT_MS is 8 seconds, REDIS_URL defaults to localhost",
        [("config", "PAYMENT_TIMEOUT_MS", H), ("config", "REDIS_URL", H)],
    ),
    (
        "a20",
        "amr",
        "Start the whole stack with docker-compose.yml, then `bun run dev`",
        [("path", "docker-compose.yml", H), ("script", "dev", H)],
    ),
    (
        "a21",
        "amr",
        "Tests: `npm test` runs vitest; Python tests are in tests/test_ledger.py",
        [("script", "test", H), ("path", "tests/test_ledger.py", H)],
    ),
    ("a22", "amr", "The CLI entry point is `payments-cli` (pyproject.toml)", [("path", "pyproject.toml", H)]),
    ("a23", "amr", "Our frontend is Next.js 14 on Node.js 20; we moved off Vue.js in 2025", []),
    ("a24", "amr", "Joe prefers squash merges and/or rebases; never merge commits on main", []),
    ("a25", "amr", "CI/CD runs on GitHub Actions; the TCP/IP stack is not ours to tune", []),
    ("a26", "amr", "Read the [[backend]] notes before touching payments", []),
    ("a27", "amr", "Release v2.3.1 shipped on 2026-10-02 at 10:30 UTC", []),
    ("a28", "amr", "Ask in #payments on Slack; issue #123 tracks the flaky test", []),
    ("a29", "amr", "The gateway config lives in ~/.config/gateway/limits.toml on the ops box", []),
    ("a30", "amr", "Logs go to /var/log/payments/app.log on prod hosts", []),
    (
        "a31",
        "amr",
        "`createSession` in lib/auth/session.ts sets the cookie; sessions last 14 days",
        [("symbol", "createSession", H), ("path", "lib/auth/session.ts", H)],
    ),
    (
        "a32",
        "amr",
        "The server starts in `startServer()` (src/server.ts)",
        [("symbol", "startServer", H), ("path", "src/server.ts", H)],
    ),
    (
        "a33",
        "amr",
        "Cache TTL is `REDIS_TTL_SECONDS` = 300 in lib/cache/redis.ts",
        [("config", "REDIS_TTL_SECONDS", H), ("path", "lib/cache/redis.ts", H)],
    ),
    ("a34", "amr", "Use `pnpm install` here, the lockfile is pnpm-lock.yaml", [("path", "pnpm-lock.yaml", U)]),
    ("a35", "amr", "Run `make test` before pushing; it runs pytest -q", [("target", "test", H)]),
    ("a36", "amr", "Postgres 16 in docker; the DATABASE_URL env var points at it", [("config", "DATABASE_URL", H)]),
    ("a37", "amr", "The `users` service is in another repo: src/api/users.ts there", [("path", "src/api/users.ts", U)]),
    ("a38", "amr", "Reconciliation lives in the `LedgerService` class", [("symbol", "LedgerService", H)]),
    ("a39", "amr", "Seed the database with `bun run db:seed`", [("script", "db:seed", H)]),
    ("a40", "amr", "Deploy script: ./scripts/deploy.sh production", [("path", "scripts/deploy.sh", H)]),
    ("a41", "amr", "Joe's laptop runs macOS 15; use Homebrew for tools", []),
    ("a42", "amr", "The payments API uses OAuth via Auth0, tokens cached in Redis", []),
    ("a43", "amr", "We pin Python 3.11 and TypeScript 5.4", []),
    ("a44", "amr", "Middleware lives in middleware/ (one file per concern)", [("path", "middleware/", G)]),
    ("a45", "amr", "Scripts live in scripts/ and are run from the repo root", [("path", "scripts/", H)]),
    ("a46", "amr", "Bug fixed in commit {init}: cents were rounded", [("commit", "{init}", H)]),
    (
        "a47",
        "amr",
        "The refund retries came from the `feature/refund-retries` branch",
        [("branch", "feature/refund-retries", G)],
    ),
    ("a48", "amr", "Do not use `yarn`; it breaks the bun lockfile", []),
    ("a49", "amr", "README.md is out of date about the ledger", [("path", "README.md", H)]),
    ("a50", "amr", "Flag names are kebab-case, like new-checkout and dark-mode", []),
    ("a51", "amr", "The `Makefile` has the deploy target", [("path", "Makefile", H)]),
    ("a52", "amr", "Use `python -m payments.cli` to run the CLI locally", [("module", "payments.cli", H)]),
    ("a53", "amr", "`python -m http.server 8000` serves the coverage report", [("module", "http.server", U)]),
    ("a54", "amr", "Run `poetry run pytest -q` for the Python side", []),
    ("a55", "amr", "`go test ./...` is not used here; this is not a Go repo", []),
    ("a56", "amr", "The error 'ECONNRESET' from redis means the TTL expired mid-request", []),
    ("a57", "amr", "Customer emails go out via Postmark; template ids are in the dashboard", []),
    ("a58", "amr", "The ledger was called `LedgerBook` before 2025 (renamed long ago)", [("symbol", "LedgerBook", U)]),
    ("a59", "amr", "Call `get_redis_client()` from Python code, not the TS one", [("symbol", "get_redis_client", U)]),
    ("a60", "amr", "Coverage must stay above 85% on src/payments/", [("path", "src/payments/", H)]),
    ("a61", "amr", "The `dev` script starts the server with hot reload", [("script", "dev", H)]),
    ("a62", "amr", "Run `yarn build` for a production bundle", [("script", "build", H)]),
    (
        "a63",
        "amr",
        "e2e tests use Playwright; see tests/e2e/checkout.spec.ts",
        [("path", "tests/e2e/checkout.spec.ts", U)],
    ),
    ("a64", "amr", "Never call `reconcile_ledger_day` twice for one day", [("symbol", "reconcile_ledger_day", H)]),
    ("a65", "amr", "The image is built by CI from the Dockerfile", [("path", "Dockerfile", U)]),
    ("a66", "amr", "Meeting notes: see https://example.com/notes/2026-10-01.md", []),
    ("a67", "amr", "We use feature flags from LaunchDarkly, not env vars anymore", []),
    ("a68", "amr", "Schema is in migrations/ (plain SQL, no ORM)", [("path", "migrations/", H)]),
    # ------------------------------------------------------------------ Claude Code topic files
    (
        "c01",
        "claude-code",
        "The redis client is `getRedisClient` in lib/redis.ts; cache entries live `REDIS_TTL_SECONDS`.",
        [("symbol", "getRedisClient", H), ("path", "lib/redis.ts", M), ("config", "REDIS_TTL_SECONDS", H)],
    ),
    (
        "c02",
        "claude-code",
        "Run `bun run migrate` then `bun run test`; the ledger tests are in tests/test_ledger.py.",
        [("script", "migrate", M), ("script", "test", H), ("path", "tests/test_ledger.py", H)],
    ),
    ("c03", "claude-code", "**Why:** the integration tests need the schema.", []),
    ("c04", "claude-code", "Priya is a staff engineer on the payments team and prefers terse answers.", []),
    (
        "c05",
        "claude-code",
        "**How to apply:** use the docker-compose Postgres in `tests/conftest.py`.",
        [("path", "tests/conftest.py", U)],
    ),
    ("c06", "claude-code", "Integration tests must hit a real database, not mocks.", []),
    (
        "c07",
        "claude-code",
        "Merge freeze begins 2026-03-05 for the mobile release cut; only fixes tagged `release-blocker` merge.",
        [],
    ),
    (
        "c08",
        "claude-code",
        'Pipeline bugs are tracked in the Linear project "INGEST"; the on-call rotation is in PagerDuty.',
        [],
    ),
    ("c09", "claude-code", "The user wants `npm run lint` to pass before any commit.", [("script", "lint", G)]),
    (
        "c10",
        "claude-code",
        "Rate limits are enforced by rateLimitMiddleware() in middleware/rateLimit.ts.",
        [("symbol", "rateLimitMiddleware", G), ("path", "middleware/rateLimit.ts", G)],
    ),
    (
        "c11",
        "claude-code",
        "**Why:** `reconcile_day` double-posted once when run twice.",
        [("symbol", "reconcile_day", M)],
    ),
    ("c12", "claude-code", "See also [the testing notes](feedback_testing.md).", []),
    ("c13", "claude-code", "She owns the ledger service and reviews every schema change.", []),
    (
        "c14",
        "claude-code",
        "Money is integer cents everywhere; `post_entry` rejects floats.",
        [("symbol", "post_entry", H)],
    ),
    ("c15", "claude-code", "Build with `bun run build` (tsc), never with webpack.", [("script", "build", H)]),
    (
        "c16",
        "claude-code",
        "The checkout flag FEATURE_NEW_CHECKOUT must stay on in staging.",
        [("config", "FEATURE_NEW_CHECKOUT", G)],
    ),
    (
        "c17",
        "claude-code",
        "Seed data: `bun run db:seed` (runs scripts/seed.py).",
        [("script", "db:seed", H), ("path", "scripts/seed.py", G)],
    ),
    (
        "c18",
        "claude-code",
        "**How to apply:** read src/payments/ledger.py before changing refunds.",
        [("path", "src/payments/ledger.py", H)],
    ),
    ("c19", "claude-code", "The user dislikes emoji in commit messages.", []),
    ("c20", "claude-code", "Docs are deployed from the `gh-pages` branch by CI.", [("branch", "gh-pages", H)]),
    (
        "c21",
        "claude-code",
        "Refund retries (`retry_refund`) were reverted; refunds fail fast now.",
        [("symbol", "retry_refund", G)],
    ),
    (
        "c22",
        "claude-code",
        "The settings module is config/settings.py; env vars override it.",
        [("path", "config/settings.py", H)],
    ),
    (
        "c23",
        "claude-code",
        "Use the `SESSION_COOKIE_NAME` constant, never the literal cookie name.",
        [("config", "SESSION_COOKIE_NAME", H)],
    ),
    ("c24", "claude-code", "The user is on the EU team (CET) and works 9 to 5.", []),
    ("c25", "claude-code", "Use `make deploy` only from main.", [("target", "deploy", H)]),
    ("c26", "claude-code", "The dashboard lives at grafana.example.com/d/payments.", []),
    ("c27", "claude-code", "`createSession(userId)` returns the session object.", [("symbol", "createSession", H)]),
    (
        "c28",
        "claude-code",
        "Tests for refunds should go in tests/test_refunds.py (not written yet).",
        [("path", "tests/test_refunds.py", U)],
    ),
    ("c29", "claude-code", "Images build with `make docker-build`.", [("target", "docker-build", G)]),
    ("c30", "claude-code", "The user asked to keep answers under ten lines.", []),
    # ------------------------------------------------------------------ memory banks (Cline / Cursor)
    ("b01", "memory-bank", "Handlers are thin; business rules live in `src/payments`", [("path", "src/payments", H)]),
    ("b02", "memory-bank", "Every write goes through `LedgerService`", [("symbol", "LedgerService", H)]),
    ("b03", "memory-bank", "TypeScript 5.4, Bun 1.1, Python 3.11 for the ledger", []),
    ("b04", "memory-bank", "Tests run with `bun run test` and pytest", [("script", "test", H)]),
    ("b05", "memory-bank", "Migrations run through `npm run migrate` in CI", [("script", "migrate", M)]),
    (
        "b06",
        "memory-bank",
        "Rate limiting: middleware/rateLimit.ts wraps every route",
        [("path", "middleware/rateLimit.ts", G)],
    ),
    ("b07", "memory-bank", "Redis access is centralised in lib/redis.ts", [("path", "lib/redis.ts", M)]),
    ("b08", "memory-bank", "Add a dark theme to the invoice editor", []),
    ("b09", "memory-bank", "Currency rounding is off by one cent for JPY", []),
    ("b10", "memory-bank", "Reconciliation (`reconcile_day`) runs at 02:00 UTC", [("symbol", "reconcile_day", M)]),
    (
        "b11",
        "memory-bank",
        "The seed script scripts/seed.py fills three test merchants",
        [("path", "scripts/seed.py", G)],
    ),
    ("b12", "memory-bank", "Single binary deployment; SQLite by default, Postgres optional", []),
    ("b13", "memory-bank", "Recurring invoices (monthly, quarterly)", []),
    (
        "b14",
        "memory-bank",
        "Session cookies are created in lib/auth/session.ts by `createSession`",
        [("path", "lib/auth/session.ts", H), ("symbol", "createSession", H)],
    ),
    (
        "b15",
        "memory-bank",
        "The feature flag FEATURE_NEW_CHECKOUT gates the new flow",
        [("config", "FEATURE_NEW_CHECKOUT", G)],
    ),
    ("b16", "memory-bank", "Refunds: `issue_refund()` then ledger reversal", [("symbol", "issue_refund", H)]),
    ("b17", "memory-bank", "Current focus: migrating the PDF renderer from wkhtmltopdf to WeasyPrint", []),
    ("b18", "memory-bank", "Stripe payment links on every invoice, generated when first sent", []),
    ("b19", "memory-bank", "Docker image: `make docker-build`, pushed by CI", [("target", "docker-build", G)]),
    ("b20", "memory-bank", "Lint: `pnpm lint` must pass", [("script", "lint", G)]),
    ("b21", "memory-bank", "Reminder emails are queued in the `jobs` table and sent every five minutes", []),
    ("b22", "memory-bank", "The server entry is src/server.ts", [("path", "src/server.ts", H)]),
    (
        "b23",
        "memory-bank",
        "Database URL comes from DATABASE_URL, default postgres://localhost/payments",
        [("config", "DATABASE_URL", H)],
    ),
    ("b24", "memory-bank", "Known issue: the PDF export crashes on long tables", []),
    ("b25", "memory-bank", "Tests use a real SQLite file, never mocks", []),
    # ------------------------------------------------------------------ Hermes paragraphs
    (
        "h01",
        "hermes",
        "The user deploys the docs with `make deploy` and pushes to the `gh-pages` branch; the build takes about 40 seconds.",
        [("target", "deploy", H), ("branch", "gh-pages", H)],
    ),
    ("h02", "hermes", "The staging site is at staging.example.org and is rebuilt on every push to main.", []),
    ("h03", "hermes", "Comments are moderated by hand; spam filter is Akismet with a custom word list.", []),
    ("h04", "hermes", "Alex writes in British English and dislikes exclamation marks.", []),
    ("h05", "hermes", "Alex works Tuesday to Saturday, in the Europe/London time zone.", []),
    (
        "h06",
        "hermes",
        "For payments, migrations run with `bun run migrate`; the SQL is in migrations/001_init.sql.",
        [("script", "migrate", M), ("path", "migrations/001_init.sql", H)],
    ),
    (
        "h07",
        "hermes",
        "The redis helper is lib/redis.ts (getRedisClient); keep the TTL at 300.",
        [("path", "lib/redis.ts", M)],
    ),
    (
        "h08",
        "hermes",
        "The user's rate limiter lives in middleware/rateLimit.ts and allows 100 requests a minute.",
        [("path", "middleware/rateLimit.ts", G)],
    ),
    (
        "h09",
        "hermes",
        "Alex's ledger code uses `LedgerService.post_entry` with integer cents.",
        [("symbol", "LedgerService.post_entry", H)],
    ),
    (
        "h10",
        "hermes",
        "The CI runs `npm test` and `npm run lint` on every pull request.",
        [("script", "test", H), ("script", "lint", G)],
    ),
    (
        "h11",
        "hermes",
        "The new checkout flag is FEATURE_NEW_CHECKOUT (on in staging, off in prod).",
        [("config", "FEATURE_NEW_CHECKOUT", G)],
    ),
    ("h12", "hermes", "Alex keeps personal notes in Obsidian and syncs them with iCloud.", []),
    (
        "h13",
        "hermes",
        "Refunds retry through `retry_refund`, added in commit {retry}.",
        [("symbol", "retry_refund", G), ("commit", "{retry}", G)],
    ),
    ("h14", "hermes", "Alex prefers pytest over unittest and runs `make test` locally.", [("target", "test", H)]),
    ("h15", "hermes", "The project README.md says Postgres 16; it is Postgres 16.", [("path", "README.md", H)]),
    ("h16", "hermes", "Alex's blog uses Hugo 0.125 with the PaperMod theme.", []),
    ("h17", "hermes", "The reconciliation job calls reconcile_day() every night.", [("symbol", "reconcile_day", M)]),
    ("h18", "hermes", "Seed data comes from scripts/seed.py (three merchants).", [("path", "scripts/seed.py", G)]),
    ("h19", "hermes", "Alex reads email twice a day; urgent things go to Signal.", []),
    ("h20", "hermes", "The payments CLI is `python -m payments.cli`.", [("module", "payments.cli", H)]),
    # ------------------------------------------------------------------ Devin findings (AMR with nested answers)
    (
        "d01",
        "devin",
        "Root cause of the double refunds: `issue_refund` was called from two webhooks",
        [("symbol", "issue_refund", H)],
    ),
    (
        "d02",
        "devin",
        "Cache answers: yes, `REDIS_TTL_SECONDS` = 300 removes the stampede",
        [("config", "REDIS_TTL_SECONDS", H)],
    ),
    (
        "d03",
        "devin",
        "Is the rate limiter still in this repo? It was middleware/rateLimit.ts",
        [("path", "middleware/rateLimit.ts", G)],
    ),
    ("d04", "devin", "Personalised results are 4% of traffic", []),
    (
        "d05",
        "devin",
        "The flaky test is `test_post` in tests/test_ledger.py",
        [("symbol", "test_post", H), ("path", "tests/test_ledger.py", H)],
    ),
    (
        "d06",
        "devin",
        "Migration order: `bun run migrate` then `bun run db:seed`",
        [("script", "migrate", M), ("script", "db:seed", H)],
    ),
    ("d07", "devin", "The ledger's table name constant is `LEDGER_TABLE`", [("config", "LEDGER_TABLE", H)]),
    ("d08", "devin", "Who owns the gateway? The platform team, per the org chart", []),
    ("d09", "devin", "The TS server imports the cache from lib/cache/redis.ts", [("path", "lib/cache/redis.ts", H)]),
    ("d10", "devin", "Commit `{init}` introduced the ledger", [("commit", "{init}", H)]),
    ("d11", "devin", "`reconcileDay` in the old TS port was removed in 2025", [("symbol", "reconcileDay", U)]),
    ("d12", "devin", "Answer: the docker-build target is gone, CI builds images", []),
    ("d13", "devin", "The Makefile has no lint target; use CI", [("path", "Makefile", H)]),
    ("d14", "devin", "Checked on 2026-10-03 with Alice in the #payments channel", []),
    (
        "d15",
        "devin",
        "Session auth: `createSession` and the `pay_sid` cookie",
        [("symbol", "createSession", H), ("symbol", "pay_sid", H)],
    ),
    # ------------------------------------------------------------------ plain folders / Obsidian notes
    (
        "o01",
        "folder",
        "The project keeps its settings in config/settings.py and reads env vars first",
        [("path", "config/settings.py", H)],
    ),
    ("o02", "folder", "Meeting with Dana about Q4 goals; see [[People/Dana]]", []),
    (
        "o03",
        "folder",
        "TODO: replace middleware/rateLimit.ts with the gateway's limiter",
        [("path", "middleware/rateLimit.ts", G)],
    ),
    ("o04", "folder", "Reading list: 'Designing Data-Intensive Applications', chapter 7", []),
    ("o05", "folder", "The redis module moved? It was lib/redis.ts in June", [("path", "lib/redis.ts", M)]),
    ("o06", "folder", "Remember `npm run dev` for local work", [("script", "dev", H)]),
    ("o07", "folder", "Grocery list: milk, eggs, coffee beans (Ethiopia Yirgacheffe)", []),
    ("o08", "folder", "The `startServer` function is the only entry point", [("symbol", "startServer", H)]),
    ("o09", "folder", "Architecture sketch in attachments/arch.png", [("path", "attachments/arch.png", U)]),
    ("o10", "folder", "The payments-cli entry lives in src/payments/cli.py", [("path", "src/payments/cli.py", H)]),
]


def split(rid: str) -> str:
    """``"sealed"`` for about 40% of the ids, ``"tune"`` for the rest (a digest: stable)."""
    return "sealed" if hashlib.sha256(rid.encode()).digest()[0] % 5 < 2 else "tune"


def records(part: str | None = None) -> list[Record]:
    return [r for r in RECORDS if part is None or split(r[0]) == part]
