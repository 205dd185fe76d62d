"""The sealed relevance set (issue 44, point 6): facts and typed queries no change is tuned on.

Written on 2026-12-08, before the ranking changes of that day and before any result of it was
looked at; it was run once when committed (the figure is in that commit's message) and is run
only to report (``bench/relevance.py --set sealed``), never to choose a weight or a table entry.
``relevance_heldout`` played this part until its misses were read; this set replaces it as the
unseen one.

Its facts read the way agents write memory in the field (Claude Code topic notes, memory-bank
prose, AMR bullets: sentences, not keyword lists). The queries cover the three ways typed queries
were seen to miss, plus ordinary ones:

* ``short``: three words, one of them two letters long (``ci``, ``db``, ``qa``, ``pr``, ``ui``,
  ``io``), where only the short word and one other word are in the fact: the third is not;
* ``sentence``: the fact is a sentence holding every query word, and a decoy is a short line
  that merely lists those words (the sentence must rank above it);
* ``abbrev``: an abbreviation of a testing or tooling word typed for the long form the fact
  holds (``e2e``, ``perf``, ``deps``, ``env``, ``repo``, ``config``, ``tf``, ``gh``, ``k8s``,
  ``msgs``, ``auth``, ``db``, ``docs``, ``infra``, ``prod``, ``stg``, ``lint``, ``ts``, ``js``),
  and two the other way round (the long form typed, the fact abbreviated).

Same shapes as ``relevance_facts`` (``Fact``, ``Query``, ``DECOYS``, ``NOISE``, ``CLASSES``,
``QUERIES``), so ``bench/relevance.py`` runs it.
"""

from __future__ import annotations

from relevance_facts import Fact, Query

QA = "project-atlas/notes/testing.md"
BUILD = "project-atlas/notes/build.md"
PLATFORM = "team-infra/topics/platform.md"
PREFS = "personal/memory/user-preferences.md"
SHOP = "project-atlas/memory-bank/techContext.md"
OPS = "team-infra/topics/operations.md"


def _m(n: int, month: int, day: int) -> str:
    return f"source: https://example.com/sessions/{n}; added: 2026-{month:02d}-{day:02d}"


FACTS: tuple[Fact, ...] = (
    # --- the long form of a testing or tooling word is in the fact (queried abbreviated)
    Fact(
        "s_e2e_browsers",
        "End-to-end tests run in Playwright against Chromium and WebKit; Firefox was dropped in October",
        _m(61001, 10, 20),
        QA,
    ),
    Fact(
        "s_perf_nightly",
        "A performance regression of more than 5 percent in the checkout benchmark fails the nightly run",
        _m(61002, 11, 2),
        QA,
    ),
    Fact(
        "s_deps_renovate",
        "Dependency updates are opened by Renovate every Monday and grouped by ecosystem",
        _m(61003, 9, 14),
        BUILD,
    ),
    Fact(
        "s_env_local",
        "Environment variables for local development live in .env.local, which is never committed",
        _m(61004, 8, 3),
        BUILD,
    ),
    Fact(
        "s_repo_nx",
        "The repository is managed with Nx, and each app has its own project.json with its targets",
        _m(61005, 7, 21),
        BUILD,
    ),
    Fact(
        "s_config_override",
        "Service configuration is read from settings.yaml first and then overridden by environment variables",
        _m(61006, 10, 1),
        PLATFORM,
    ),
    Fact(
        "s_tf_state",
        "Terraform state is kept in a versioned bucket with a DynamoDB lock table so two applies cannot race",
        _m(61007, 9, 9),
        PLATFORM,
    ),
    Fact(
        "s_gh_token",
        "GitHub tokens used by automation belong to the bot account, never to a person's account",
        _m(61008, 10, 11),
        PLATFORM,
    ),
    Fact(
        "s_k8s_limits",
        "Every Kubernetes deployment must set memory limits; pods without them are rejected by the admission policy",
        _m(61009, 11, 4),
        PLATFORM,
    ),
    Fact(
        "s_msgs_dlq",
        "Failed messages are moved to the dead-letter queue after five delivery attempts",
        _m(61010, 8, 27),
        SHOP,
    ),
    Fact(
        "s_auth_okta",
        "Authentication for internal tools goes through Okta single sign-on; local passwords are disabled",
        _m(61011, 9, 30),
        PLATFORM,
    ),
    Fact(
        "s_db_pool",
        "The database connection pool is capped at 20 per pod because the primary allows only 400 connections",
        _m(61012, 10, 16),
        SHOP,
    ),
    Fact(
        "s_docs_adr",
        "Architecture decisions are recorded as ADRs in the documentation folder, one file per decision",
        _m(61013, 7, 2),
        None,
    ),
    Fact(
        "s_infra_alerts",
        "Infrastructure alerts page the platform rotation; application alerts page the team that owns the service",
        _m(61014, 9, 5),
        OPS,
    ),
    Fact(
        "s_prod_freeze",
        "Production deploys are frozen from December 20 to January 3 except for security fixes",
        _m(61015, 11, 25),
        OPS,
    ),
    Fact(
        "s_stg_reset",
        "The staging environment is reset from an anonymised snapshot every Sunday night",
        _m(61016, 10, 7),
        OPS,
    ),
    Fact(
        "s_lint_exports",
        "The linter forbids default exports and enforces sorted imports in every package",
        _m(61017, 9, 22),
        BUILD,
    ),
    Fact(
        "s_ts_strict",
        "TypeScript strict mode is on in every package, and each use of `any` needs a comment saying why",
        _m(61018, 8, 12),
        BUILD,
    ),
    Fact(
        "s_js_bundle",
        "The JavaScript bundle for the landing page must stay under 170 kilobytes gzipped",
        _m(61019, 10, 29),
        BUILD,
    ),
    # --- the fact holds the abbreviation (queried in the long form)
    Fact(
        "s_k8s_upgrade",
        "Our k8s clusters are upgraded one minor version at a time, staging a week before the others",
        _m(61020, 11, 9),
        PLATFORM,
    ),
    Fact(
        "s_e2e_shards",
        "The e2e suite is split into 8 shards in CI and takes about twelve minutes end to end",
        _m(61021, 11, 15),
        QA,
    ),
    # --- a two-letter word is in the fact (queried with one word the fact does not hold)
    Fact(
        "s_ci_retry",
        "CI retries a failed job once; a second failure marks the pull request red",
        _m(61022, 10, 3),
        QA,
    ),
    Fact(
        "s_qa_accounts",
        "QA has its own environment with seeded test accounts that are reset every morning",
        _m(61023, 9, 18),
        QA,
    ),
    Fact(
        "s_pr_lines",
        "A PR should stay under 400 changed lines; bigger ones are split before review",
        _m(61024, 11, 20),
        PREFS,
    ),
    Fact(
        "s_ui_tokens",
        "The UI takes every colour and spacing value from the design tokens in the brand package",
        _m(61025, 8, 8),
        SHOP,
    ),
    Fact(
        "s_io_timeout",
        "Network IO in the worker has a 30 second timeout and three retries with backoff",
        _m(61026, 9, 26),
        SHOP,
    ),
    Fact(
        "s_db_events_index",
        "Any new DB query on the events table needs an index review first; the table has two billion rows",
        _m(61027, 10, 21),
        SHOP,
    ),
    Fact(
        "s_ml_gpu",
        "ML training jobs run on the shared GPU pool and have to be booked a day ahead",
        _m(61028, 7, 30),
        None,
    ),
    Fact(
        "s_ux_copy",
        "UX copy changes must be approved by the content designer before they are merged",
        _m(61029, 11, 6),
        None,
    ),
    # --- sentences, with decoys that list the query's words
    Fact(
        "s_cdn_purge",
        "Product pages are cached at the CDN for ten minutes and purged whenever a price changes",
        _m(61030, 10, 10),
        SHOP,
    ),
    Fact(
        "s_passwords_rotated",
        "Database passwords are rotated every ninety days by the secrets operator, not by hand",
        _m(61031, 9, 13),
        PLATFORM,
    ),
    Fact(
        "s_release_notes",
        "Release notes are drafted from merged pull request titles, so a title should say what changed for users",
        _m(61032, 11, 12),
        None,
    ),
    Fact(
        "s_restore_test",
        "Backups are only trusted after a restore test, which runs on the first day of every month",
        _m(61033, 8, 19),
        OPS,
    ),
    Fact(
        "s_api_rate",
        "The public API allows 100 requests per minute for each key and answers 429 with Retry-After beyond that",
        _m(61034, 10, 24),
        None,
    ),
    Fact(
        "s_timestamps_utc",
        "Timestamps are stored in UTC and converted to the user's time zone only when they are displayed",
        _m(61035, 9, 1),
        SHOP,
    ),
    Fact(
        "s_email_postmark",
        "Transactional email is sent through Postmark while marketing email goes through a separate account",
        _m(61036, 8, 23),
        None,
    ),
    Fact(
        "s_incident_review",
        "Every incident gets a blameless review within five working days, written by the incident commander",
        _m(61037, 10, 30),
        OPS,
    ),
    Fact(
        "s_codeowners",
        "Changes under billing/ need an approval from someone listed for that folder in the CODEOWNERS file",
        _m(61038, 11, 18),
        None,
    ),
    Fact(
        "s_mobile_hotfix",
        "The mobile app ships every second Thursday, and a hotfix goes to the stores with an expedited review",
        _m(61039, 9, 11),
        None,
    ),
    # --- user preferences, Claude Code style
    Fact(
        "s_pref_failing_test",
        "When fixing a bug, the user wants a failing test written and shown before the fix itself",
        _m(61040, 11, 22),
        PREFS,
    ),
    Fact(
        "s_pref_no_mocks",
        "User dislikes mocks in integration tests; use the docker-compose services instead",
        _m(61041, 11, 23),
        PREFS,
    ),
)

_D = "source: https://example.com/sessions/99000; added: 2026-04-14"
# Short lines that list a query's words without saying anything (never right answers): the
# sentence that states the fact must rank above them. The last few hold only an abbreviation as
# typed, the way a heading copied into an entry does.
DECOYS: tuple[tuple[str, str], ...] = (
    ("CDN cache purge, price cache", _D),
    ("Secrets: passwords rotated", _D),
    ("Release notes, pull request titles", _D),
    ("Backups restore test", _D),
    ("API key requests per minute", _D),
    ("Timestamps stored UTC", _D),
    ("Email: transactional email, marketing email", _D),
    ("Incident review blameless", _D),
    ("Billing approval CODEOWNERS", _D),
    ("Mobile hotfix review", _D),
    ("Integration tests mocks", _D),
    ("E2E", _D),
    ("Perf notes", _D),
    ("Deps", _D),
    ("TF", _D),
)
NOISE: tuple[tuple[str, str], ...] = (
    ("Dead-letter queue dead-letter", ""),
    ("Staging staging reset", ""),
    ("Design tokens tokens", ""),
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
)

_QUERIES: dict[str, tuple[tuple[str, str], ...]] = {
    "exact": (
        ("playwright webkit", "s_e2e_browsers"),
        ("postmark", "s_email_postmark"),
        ("dynamodb lock table", "s_tf_state"),
        ("okta single sign-on", "s_auth_okta"),
    ),
    # three words, one of two letters: only it and one other word are in the fact
    "short": (
        ("ci retries flaky", "s_ci_retry"),
        ("qa accounts password", "s_qa_accounts"),
        ("pr lines limit", "s_pr_lines"),
        ("ui colour theme", "s_ui_tokens"),
        ("io timeout http", "s_io_timeout"),
        ("db index slow", "s_db_events_index"),
        ("ml gpu quota", "s_ml_gpu"),
        ("ux copy signoff", "s_ux_copy"),
    ),
    # an abbreviation typed for the long form in the fact (the last two: the other way round)
    "abbrev": (
        ("e2e webkit", "s_e2e_browsers"),
        ("perf regression checkout", "s_perf_nightly"),
        ("deps renovate", "s_deps_renovate"),
        ("env local committed", "s_env_local"),
        ("repo nx", "s_repo_nx"),
        ("config overridden env", "s_config_override"),
        ("tf state lock", "s_tf_state"),
        ("gh tokens bot", "s_gh_token"),
        ("k8s memory limits", "s_k8s_limits"),
        ("failed msgs", "s_msgs_dlq"),
        ("auth internal tools", "s_auth_okta"),
        ("db connection pool", "s_db_pool"),
        ("adr docs", "s_docs_adr"),
        ("infra alerts", "s_infra_alerts"),
        ("prod freeze", "s_prod_freeze"),
        ("stg reset sunday", "s_stg_reset"),
        ("lint default exports", "s_lint_exports"),
        ("ts strict mode", "s_ts_strict"),
        ("js bundle gzipped", "s_js_bundle"),
        ("kubernetes clusters upgraded", "s_k8s_upgrade"),
        ("end-to-end shards", "s_e2e_shards"),
    ),
    # the fact is a sentence; a decoy lists the same words
    "sentence": (
        ("cdn cache purge price", "s_cdn_purge"),
        ("passwords rotated secrets", "s_passwords_rotated"),
        ("release notes pull request titles", "s_release_notes"),
        ("backups restore test", "s_restore_test"),
        ("requests per minute key", "s_api_rate"),
        ("timestamps stored utc", "s_timestamps_utc"),
        ("transactional email", "s_email_postmark"),
        ("incident review blameless", "s_incident_review"),
        ("codeowners billing approval", "s_codeowners"),
        ("mobile hotfix review", "s_mobile_hotfix"),
        ("mocks integration tests", "s_pref_no_mocks"),
    ),
    "question": (
        ("does the user want a failing test first", "s_pref_failing_test"),
        ("when is the staging environment reset", "s_stg_reset"),
        ("how long are product pages cached", "s_cdn_purge"),
    ),
    "order": (
        ("lock table dynamodb terraform", "s_tf_state"),
        ("expedited review hotfix", "s_mobile_hotfix"),
    ),
    "typo": (
        ("renovate dependancy", "s_deps_renovate"),
        ("blamless incident", "s_incident_review"),
    ),
    # one query word is not in the fact at all
    "missing": (
        ("gpu pool booking slack", "s_ml_gpu"),
        ("dead-letter queue retries kafka", "s_msgs_dlq"),
    ),
}

QUERIES: tuple[Query, ...] = tuple(
    Query(cls, text, tuple(answers.split())) for cls, items in _QUERIES.items() for text, answers in items
)
