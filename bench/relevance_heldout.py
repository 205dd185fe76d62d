"""The held-out relevance set (issue 44, point 6): facts and typed queries the ranking was never tuned on.

``bench/relevance_facts.py`` is the set the ranking's weights were chosen on, and it said 0.99
while queries written by someone else, over facts hidden among 100,000 entries, found 40 of 45.
This set was written on 2026-12-07 before any result of it was looked at, and it is run only to
report (``bench/relevance.py --set heldout``): a change to the ranking is judged on it, never
tuned to it. Its facts read the way agents write memory in the field (Claude Code topic notes,
AMR bullets, memory-bank prose: sentences, not keyword lists), and its queries are what a person
types when they half remember one: two-letter words (``ci``, ``db``, ``qa``), abbreviations of
testing and tooling words (``e2e``, ``tf``, ``gh``, ``lint``), a question, words out of order, a
typo, a word the fact does not hold.

Decoys are short lines that merely list a query's words (the "noise" an agent leaves: a heading
copied as an entry, a keyword list); they are never right answers, and a fact written as a
sentence must rank above them.

Same shapes as ``relevance_facts`` (``Fact``, ``Query``, ``DECOYS``, ``NOISE``, ``CLASSES``,
``QUERIES``), so ``bench/relevance.py`` runs either.
"""

from __future__ import annotations

from relevance_facts import Fact, Query

TESTS = "team-infra/tooling/testing.md"
CI = "team-infra/tooling/ci.md"
PREFS = "personal/preferences/user.md"
PAY = "project-atlas/services/payments.md"
DATA = "team-infra/services/data.md"
WEB = "project-atlas/projects/web.md"


def _s(n: int) -> str:
    return f"https://example.com/sessions/{n}"


_M = "source: {}; added: 2026-{:02d}-{:02d}"


def _m(n: int, month: int, day: int) -> str:
    return _M.format(_s(n), month, day)


FACTS: tuple[Fact, ...] = (
    # testing and CI, written as sentences
    Fact(
        "h_e2e_cmd",
        "End-to-end tests run with `pnpm test:e2e` and need the local stack started by `make up` first",
        _m(51001, 10, 2),
        TESTS,
    ),
    Fact(
        "h_unit_fast",
        "Unit tests should finish in under a minute; anything slower gets the slow marker and runs nightly",
        _m(51002, 9, 12),
        TESTS,
    ),
    Fact(
        "h_flaky_quarantine",
        "Flaky tests are quarantined by adding them to .flaky-tests.txt, never by deleting the assertion",
        _m(51003, 10, 21),
        TESTS,
    ),
    Fact(
        "h_coverage",
        "The coverage gate in CI is 85 percent for the billing package and 70 for everything else",
        _m(51004, 8, 30),
        CI,
    ),
    Fact(
        "h_ci_cache",
        "CI caches the node_modules folder keyed on the lockfile hash, so changing pnpm-lock.yaml busts it",
        _m(51005, 11, 3),
        CI,
    ),
    Fact(
        "h_ci_runner",
        "Our GitHub Actions jobs run on self-hosted runners labelled big-amd64; the hosted ones time out on the build",
        _m(51006, 10, 14),
        CI,
    ),
    Fact(
        "h_lint_first",
        "Run the linter and the type checker before pushing, the pre-push hook only runs the formatter",
        _m(51007, 9, 1),
        CI,
    ),
    Fact(
        "h_tf_plan",
        "Terraform plans for production are applied only from the infra-deploy pipeline, never from a laptop",
        _m(51008, 7, 19),
        None,
    ),
    Fact(
        "h_py_version",
        "The backend is pinned to Python 3.11 because the PDF library has no wheels for 3.12 yet",
        _m(51009, 10, 8),
        None,
    ),
    Fact(
        "h_go_build",
        "The ingest service is written in Go and is built with `go build ./cmd/ingest` inside the builder image",
        _m(51010, 9, 25),
        DATA,
    ),
    # preferences (Claude Code style user notes)
    Fact(
        "h_pref_commits",
        "User wants commit messages in the imperative mood and no emoji in them",
        _m(51011, 11, 10),
        PREFS,
    ),
    Fact(
        "h_pref_tabs",
        "User prefers two-space indentation in YAML and four spaces in Python, never tabs",
        _m(51012, 11, 11),
        PREFS,
    ),
    Fact(
        "h_pref_review",
        "Before opening a pull request, ask the user whether it should be a draft",
        _m(51013, 11, 12),
        PREFS,
    ),
    Fact(
        "h_pref_tz",
        "The user is in the Lisbon time zone and does not want meetings scheduled before 10am",
        _m(51014, 10, 30),
        PREFS,
    ),
    # payments
    Fact(
        "h_pay_idempotency",
        "Every call to the payment provider must send an idempotency key derived from the order id",
        _m(51015, 9, 9),
        PAY,
    ),
    Fact(
        "h_pay_refund",
        "Refunds above 500 euros need a second approver in the admin console",
        _m(51016, 10, 17),
        PAY,
    ),
    Fact(
        "h_pay_webhook",
        "The provider's webhooks are verified with the signing secret stored in the vault at payments/webhook",
        _m(51017, 8, 4),
        PAY,
    ),
    Fact(
        "h_pay_currency",
        "Amounts are stored as integer cents in the ledger table; floats were removed after the rounding bug",
        _m(51018, 7, 28),
        PAY,
    ),
    # data
    Fact(
        "h_db_migrations",
        "Database migrations are written with alembic and must be reversible; the reviewer runs downgrade once",
        _m(51019, 9, 16),
        DATA,
    ),
    Fact(
        "h_db_replica",
        "Analytics queries go to the read replica, never to the primary, because they lock the orders table",
        _m(51020, 10, 5),
        DATA,
    ),
    Fact(
        "h_db_backup_restore",
        "Restoring a backup into staging takes about forty minutes and is done with the restore-staging script",
        _m(51021, 10, 26),
        DATA,
    ),
    Fact(
        "h_s3_bucket",
        "Uploaded invoices live in the S3 bucket acme-invoices-prod with a 7 year retention rule",
        _m(51022, 6, 15),
        DATA,
    ),
    Fact(
        "h_etl_schedule",
        "The nightly ETL job starts at 02:00 UTC and must finish before the 06:00 reports",
        _m(51023, 9, 2),
        DATA,
    ),
    # web
    Fact(
        "h_web_ssr",
        "The marketing site is rendered on the server with Next.js; the app itself is a client-side SPA",
        _m(51024, 8, 22),
        WEB,
    ),
    Fact(
        "h_web_a11y",
        "Accessibility checks run with axe in the component tests and block the merge on any serious issue",
        _m(51025, 10, 19),
        WEB,
    ),
    Fact(
        "h_web_i18n",
        "Translations come from the Crowdin project and are pulled into locales/ by a weekly bot PR",
        _m(51026, 9, 29),
        WEB,
    ),
    Fact(
        "h_web_ui_lib",
        "New UI components go into the shared design system package, not into the app folder",
        _m(51027, 11, 1),
        WEB,
    ),
    Fact(
        "h_web_perf",
        "The largest contentful paint budget is 2.5 seconds on a mid-range phone over 4G",
        _m(51028, 10, 9),
        WEB,
    ),
    # people and process
    Fact(
        "h_qa_signoff",
        "QA signs off every release candidate on the staging environment before it is promoted",
        _m(51029, 10, 13),
        None,
    ),
    Fact(
        "h_oncall_handoff",
        "The on-call handoff happens on Mondays at 11:00 in the ops channel with a written summary",
        _m(51030, 9, 7),
        None,
    ),
    Fact(
        "h_pm_owner",
        "Marta Kowalczyk is the product manager for checkout and decides what goes into each sprint",
        _m(51031, 10, 22),
        None,
    ),
    Fact(
        "h_security_contact",
        "Security questions go to Idris Bello, who also reviews every change to the auth middleware",
        _m(51032, 8, 18),
        None,
    ),
    Fact(
        "h_vpn",
        "To reach the staging database from home you need the WireGuard config from the IT portal",
        _m(51033, 7, 8),
        None,
    ),
    Fact(
        "h_docs_site",
        "Internal docs are published with MkDocs from the docs/ folder on every merge to main",
        _m(51034, 9, 3),
        None,
    ),
    Fact(
        "h_ml_model",
        "The fraud model is retrained every two weeks and a new version ships only if its AUC does not drop",
        _m(51035, 10, 24),
        None,
    ),
    Fact(
        "h_api_version",
        "The public API is versioned in the URL path (/v2/) and v1 is switched off on 2027-03-31",
        _m(51036, 11, 5),
        None,
    ),
    Fact(
        "h_feature_flags",
        "Feature flags are read from LaunchDarkly at startup and cached for five minutes",
        _m(51037, 9, 19),
        None,
    ),
    Fact(
        "h_error_budget",
        "When the error budget for the month is spent, only fixes and rollbacks may be deployed",
        _m(51038, 10, 28),
        None,
    ),
    Fact(
        "h_k8s_namespace",
        "Each team deploys into its own Kubernetes namespace and cannot create cluster-wide roles",
        _m(51039, 8, 26),
        None,
    ),
    Fact(
        "h_logging_pii",
        "Logs must never contain card numbers or email addresses; the logger masks fields named in pii.yaml",
        _m(51040, 9, 23),
        None,
    ),
)

_D = "source: https://example.com/sessions/98000; added: 2026-05-06"
# Short lines that list a query's words without saying anything (never right answers): the
# sentence that states the fact must rank above them.
DECOYS: tuple[tuple[str, str], ...] = (
    ("Tests: unit tests, e2e tests, integration tests", _D),
    ("CI cache notes", _D),
    ("Coverage: billing coverage, web coverage", _D),
    ("Payment provider webhook", _D),
    ("Refunds, approvals", _D),
    ("Backup restore staging", _D),
    ("Read replica primary", _D),
    ("Commit messages", _D),
    ("Python version upgrade", _D),
    ("On-call handoff Monday", _D),
    ("Error budget spent", _D),
    ("Feature flags cache", _D),
)
NOISE: tuple[tuple[str, str], ...] = (
    ("Flaky tests flaky tests", ""),
    ("Terraform production terraform", ""),
    ("Migrations migrations reversible", ""),
    ("Logs PII logs", ""),
)

CLASSES: tuple[str, ...] = (
    "exact",
    "short",
    "abbrev",
    "sentence",
    "question",
    "order",
    "typo",
    "missing",
    "metadata",
)

_QUERIES: dict[str, tuple[tuple[str, str], ...]] = {
    "exact": (
        ("idempotency key", "h_pay_idempotency"),
        ("acme-invoices-prod", "h_s3_bucket"),
        ("launchdarkly", "h_feature_flags"),
        ("wireguard config", "h_vpn"),
        ("crowdin", "h_web_i18n"),
        ("mkdocs", "h_docs_site"),
    ),
    # a two-letter word among the query's words (the word is in the fact)
    "short": (
        ("ci runners amd64", "h_ci_runner"),
        ("go build ingest", "h_go_build"),
        ("qa signs off release", "h_qa_signoff"),
        ("s3 invoices retention", "h_s3_bucket"),
        ("ui components design system", "h_web_ui_lib"),
        ("pm for checkout", "h_pm_owner"),
        ("ml model retrained", "h_ml_model"),
        ("ci coverage gate", "h_coverage"),
    ),
    # abbreviations of testing and tooling words
    "abbrev": (
        ("e2e tests", "h_e2e_cmd"),
        ("tf prod apply", "h_tf_plan"),
        ("gh actions runners", "h_ci_runner"),
        ("py 3.11 pinned", "h_py_version"),
        ("db migrations reversible", "h_db_migrations"),
        ("a11y checks", "h_web_a11y"),
        ("i18n translations", "h_web_i18n"),
        ("k8s namespace per team", "h_k8s_namespace"),
        ("perf budget lcp", "h_web_perf"),
        ("msgs imperative", "h_pref_commits"),
    ),
    # the fact is a sentence; decoys list the same words
    "sentence": (
        ("unit tests slow marker", "h_unit_fast"),
        ("ci cache lockfile", "h_ci_cache"),
        ("refunds second approver", "h_pay_refund"),
        ("restore backup staging", "h_db_backup_restore"),
        ("analytics read replica", "h_db_replica"),
        ("error budget spent deploy", "h_error_budget"),
        ("flaky tests quarantine", "h_flaky_quarantine"),
        ("logs card numbers", "h_logging_pii"),
    ),
    "question": (
        ("how do I run the end to end tests", "h_e2e_cmd"),
        ("who handles security questions", "h_security_contact"),
        ("when does the nightly etl start", "h_etl_schedule"),
        ("what is the coverage gate for billing", "h_coverage"),
        ("how are amounts stored in the ledger", "h_pay_currency"),
        ("where do new ui components go", "h_web_ui_lib"),
    ),
    "order": (
        ("webhook signing secret vault", "h_pay_webhook"),
        ("indentation yaml python", "h_pref_tabs"),
        ("draft pull request ask", "h_pref_review"),
        ("handoff on-call mondays", "h_oncall_handoff"),
    ),
    "typo": (
        ("idempotancy key", "h_pay_idempotency"),
        ("qurantine flaky", "h_flaky_quarantine"),
        ("accesibility axe", "h_web_a11y"),
        ("lisbon timezone meetings", "h_pref_tz"),
    ),
    # one query word is not in the fact at all
    "missing": (
        ("terraform apply laptop approval", "h_tf_plan"),
        ("fraud model auc weekly", "h_ml_model"),
        ("api v1 shutdown date", "h_api_version"),
        ("logger masks emails gdpr", "h_logging_pii"),
    ),
    "metadata": (
        ("refunds added:2026-10", "h_pay_refund"),
        ("s3 retention added:<2026-07", "h_s3_bucket"),
    ),
}

QUERIES: tuple[Query, ...] = tuple(
    Query(cls, text, tuple(answers.split())) for cls, items in _QUERIES.items() for text, answers in items
)
