"""The planted facts, decoys and typed queries of the relevance benchmark (bench/relevance.py).

A fact is one memory entry the way an engineering agent writes it, with its metadata (``source``,
``added``) on most; ``file`` puts it into a file named for its topic (a filler file renamed), else
it lands among the filler. ``deleted`` facts are not in the files any more (deleted or reworded):
only a search of the history can find them.

A query is what a person types (short, lower case, partial), in a named class, with the ids of the
facts that are right answers. Decoys are filler lines that repeat a query's common words; they are
never right answers (they test that rare words weigh more than common ones).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    text: str
    meta: str = ""  # "source: ...; added: ..." or "" for a bare entry
    file: str | None = None  # "repo/path" of a topic file, None for a filler file
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class Query:
    cls: str
    text: str
    answers: tuple[str, ...]


REL = "team-infra/runbooks/release.md"
DEP = "team-infra/runbooks/deploy.md"
DB = "team-infra/services/database.md"
AUTH = "project-atlas/decisions/auth.md"
ONCALL = "shared-notes/people/oncall.md"
TOOLS = "personal/preferences/tooling.md"
K8S = "team-infra/infra/kubernetes.md"
FE = "project-atlas/projects/frontend.md"
MOBILE = "project-atlas/projects/mobile.md"


def _s(n: int) -> str:
    return f"https://example.com/sessions/{n}"


FACTS: tuple[Fact, ...] = (
    # release
    Fact(
        "rel_freeze",
        "Release freeze starts two days before each release; Priya Patel decides the release date",
        "source: wiki/release-process; added: 2026-10-03",
        REL,
    ),
    Fact(
        "rel_notes",
        "Release notes are drafted in docs/releases/NEXT.md and published by Tomas Rossi",
        f"source: {_s(88121)}; added: 2026-09-14",
        REL,
    ),
    Fact(
        "rel_version",
        "The 4.2.0 release ships on 2026-11-18; the 4.1.x branch gets security fixes until March",
        "source: wiki/release-process; added: 2026-10-20",
        REL,
    ),
    Fact(
        "rel_tag",
        "Tag releases with `git tag -s vX.Y.Z`; unsigned tags are rejected by the release pipeline",
        f"source: {_s(90211)}; added: 2026-08-02",
        REL,
    ),
    Fact(
        "rel_hotfix",
        "Hotfixes skip the freeze but need two approvals from the release captains",
        "source: slack #release; added: 2026-10-11",
        REL,
    ),
    Fact(
        "rel_freeze_mobile",
        "Mobile release freeze starts the Friday before App Store submission",
        f"source: {_s(90500)}; added: 2026-06-12",
        MOBILE,
    ),
    Fact(
        "mobile_release",
        "The iOS app goes through TestFlight for three days before App Store review",
        "source: wiki/mobile; added: 2026-09-22",
        MOBILE,
    ),
    # deploy
    Fact(
        "dep_order",
        "Deploy order: run database migrations first, then the api, then the workers",
        "source: wiki/deploy; added: 2026-07-22",
        DEP,
    ),
    Fact(
        "dep_friday",
        "No production deploys on Friday afternoons; ask Sanjay Kim for an exception",
        f"source: {_s(71002)}; added: 2026-06-30",
        DEP,
    ),
    Fact(
        "dep_rollback",
        "Rollback with `./scripts/rollback.sh <release-id>`; it restores the previous Helm revision",
        "source: wiki/deploy; added: 2026-09-05",
        DEP,
    ),
    Fact(
        "dep_canary",
        "Canary gets 5% of traffic for 30 minutes before a full rollout",
        f"source: {_s(80433)}; added: 2026-10-08",
        DEP,
    ),
    Fact("dep_approvals", "Production deploys need two approvals in the deploy channel", "", DEP),
    # database
    Fact(
        "db_pw",
        "The production Postgres password rotates every 90 days; the rotation job is `rotate-db-creds` in Vault",
        "source: wiki/security; added: 2026-10-15",
        DB,
    ),
    Fact("db_pw_staging", "The staging Postgres password is in 1Password under Staging DB", "", DB),
    Fact(
        "db_replica",
        "Read replica pg-replica-2 lags up to 40 seconds during the nightly batch",
        f"source: {_s(66120)}; added: 2026-05-19",
        DB,
    ),
    Fact(
        "db_pool",
        "PgBouncer pool size is 120 per node; raising it past 200 starved the primary",
        "source: incident 2026-08-12; added: 2026-08-13",
        DB,
    ),
    Fact(
        "db_backup",
        "Postgres backups run at 02:30 UTC and are kept 35 days in s3://acme-db-backups",
        "source: wiki/backups; added: 2026-04-02",
        DB,
    ),
    Fact(
        "db_version",
        "Postgres is on 16.4 in production and 15.8 in staging until the upgrade in Q1",
        f"source: {_s(91880)}; added: 2026-11-02",
        DB,
    ),
    # auth
    Fact(
        "auth_jwt",
        "Decision: access tokens are JWTs that expire after 15 minutes; refresh tokens last 30 days",
        "source: ADR-0012; added: 2026-03-10",
        AUTH,
    ),
    Fact(
        "auth_sso",
        "SSO goes through Okta; Lena Fischer owns the SAML configuration",
        "source: wiki/auth; added: 2026-09-27",
        AUTH,
    ),
    Fact(
        "auth_2fa",
        "Admin accounts require WebAuthn keys; TOTP is only for contractors",
        "source: ADR-0015; added: 2026-10-21",
        AUTH,
    ),
    Fact(
        "auth_lib",
        "We chose Authlib over python-jose because python-jose is unmaintained",
        "source: ADR-0012; added: 2026-03-10",
        AUTH,
    ),
    # on-call
    Fact(
        "oc_rotation",
        "On-call rotation changes on Mondays at 10:00 Europe/Berlin; handover in #ops-handover",
        "source: wiki/oncall; added: 2026-02-16",
        ONCALL,
    ),
    Fact(
        "oc_pager",
        "Escalate to Marek Novak if the primary on-call does not ack a page within 15 minutes",
        "source: wiki/oncall; added: 2026-10-05",
        ONCALL,
    ),
    Fact(
        "oc_kenji",
        "Kenji Tanaka is the incident commander for payments outages",
        f"source: {_s(84002)}; added: 2026-09-09",
        ONCALL,
    ),
    # personal preferences
    Fact("tl_editor", "User prefers Neovim with the LazyVim config and no mouse", "", TOOLS),
    Fact("tl_shell", "Use fish shell locally but write scripts for bash 5", "", TOOLS),
    Fact(
        "tl_commit",
        "User wants commit messages in the imperative mood, under 72 characters",
        f"source: {_s(50110)}; added: 2026-01-20",
        TOOLS,
    ),
    Fact(
        "tl_python",
        "Use uv for Python dependencies; never pip install into the system Python",
        f"source: {_s(77015)}; added: 2026-07-08",
        TOOLS,
    ),
    # kubernetes
    Fact(
        "k8s_version",
        "Kubernetes clusters run 1.29; the upgrade to 1.30 is blocked on the Istio 1.22 release",
        "source: wiki/platform; added: 2026-10-12",
        K8S,
    ),
    Fact(
        "k8s_ns",
        "Each team gets its own namespace; quota is 64 CPU and 256 GiB memory per namespace",
        "source: wiki/platform; added: 2026-06-01",
        K8S,
    ),
    Fact(
        "k8s_ingress",
        "Ingress controller is ingress-nginx; cert-manager renews TLS certificates 30 days before expiry",
        f"source: {_s(73330)}; added: 2026-08-21",
        K8S,
    ),
    # frontend
    Fact(
        "fe_node",
        "The web app builds with Node 20 and pnpm 9; Node 22 breaks the Storybook build",
        f"source: {_s(85511)}; added: 2026-10-02",
        FE,
    ),
    Fact(
        "fe_ts",
        "TypeScript strict mode is on for new packages; the legacy admin UI still uses plain JavaScript",
        "source: wiki/frontend; added: 2026-05-25",
        FE,
    ),
    Fact(
        "fe_port",
        "The dev server runs on port 5173 and proxies /api to localhost:8000",
        f"source: {_s(85512)}; added: 2026-10-02",
        FE,
    ),
    # among the filler
    Fact(
        "env_vars",
        "Environment variables for the billing service live in config/billing.env, never in the repo",
        "source: wiki/config; added: 2026-07-30",
    ),
    Fact(
        "redis_port",
        "The session cache Redis listens on port 6380, not the default 6379",
        f"source: {_s(60001)}; added: 2026-04-18",
    ),
    Fact(
        "grafana_url",
        "The latency dashboard is grafana.acme.dev/d/api-latency; the p99 alert fires above 800 ms",
        f"source: {_s(88001)}; added: 2026-09-30",
    ),
    Fact(
        "kafka_retention",
        "Kafka topic orders.events keeps 7 days of data; compaction is off",
        "source: wiki/kafka; added: 2026-06-15",
    ),
    Fact(
        "ci_runners",
        "CI runs on GitHub Actions with self-hosted runners; the macOS jobs cost the most",
        f"source: {_s(74400)}; added: 2026-08-08",
    ),
    Fact(
        "ci_timeout",
        "The integration test job times out after 45 minutes; split it before adding tests",
        f"source: {_s(74401)}; added: 2026-10-19",
    ),
    Fact(
        "s3_bucket",
        "Customer uploads go to the s3 bucket acme-prod-uploads in eu-west-1 with a 90 day lifecycle rule",
        "source: wiki/storage; added: 2026-03-28",
    ),
    Fact(
        "budget",
        "The cloud budget is 42,000 USD per month; Farah Haddad reviews it with finance on the first Tuesday",
        f"source: {_s(79001)}; added: 2026-09-01",
    ),
    Fact(
        "vpn",
        "VPN access requests go to it-help@acme.dev; approval takes about two working days",
        "source: wiki/it; added: 2026-02-03",
    ),
    Fact(
        "ssh_bastion",
        "SSH to production only through bastion.acme.internal with the ops-admin key",
        "source: wiki/security; added: 2026-05-11",
    ),
    Fact(
        "meeting",
        "Architecture review is every second Thursday at 15:00 UTC; Grace Muller chairs it",
        f"source: {_s(81000)}; added: 2026-09-17",
    ),
    Fact(
        "api_rate",
        "Public API rate limit is 600 requests per minute per token; enterprise customers get 3000",
        "source: wiki/api; added: 2026-10-25",
    ),
    Fact(
        "api_version",
        "API v1 is deprecated and switches off on 2027-01-31; v2 is the default since June",
        "source: wiki/api; added: 2026-06-02",
    ),
    Fact(
        "search_es",
        "Elasticsearch cluster search-prod holds 1.2 billion documents on 9 data nodes",
        f"source: {_s(67777)}; added: 2026-05-02",
    ),
    Fact(
        "mono_repo",
        "The monorepo lives at github.com/acme/platform; services are under services/ and libraries under libs/",
        f"source: {_s(40001)}; added: 2026-01-12",
    ),
    Fact(
        "deps_renovate",
        "Renovate opens dependency update PRs on Mondays; Dependabot is disabled",
        f"source: {_s(76543)}; added: 2026-07-14",
    ),
    Fact("deps_lock", "Commit the lockfile with every dependency bump; CI fails on a stale poetry.lock"),
    Fact(
        "sentry",
        "Sentry project atlas-web drops events above 10,000 per hour; raise the quota before launches",
        f"source: {_s(82020)}; added: 2026-10-06",
    ),
    Fact(
        "flags",
        "Feature flags are in LaunchDarkly; remove a flag within two sprints after it reaches 100%",
        "source: wiki/frontend; added: 2026-08-30",
    ),
    Fact(
        "standup",
        "Daily standup moved to 09:45 Europe/Lisbon; Yara Costa runs it",
        "source: slack #team-atlas; added: 2026-10-27",
    ),
    Fact(
        "reviewer_tz",
        "Hiroshi Yilmaz works from Asia/Tokyo and reviews pull requests in his morning",
        f"source: {_s(52020)}; added: 2026-04-09",
    ),
    Fact(
        "log_retention",
        "Application logs are kept 14 days in Loki and 1 year in cold storage for audits",
        "source: wiki/logging; added: 2026-04-22",
    ),
    Fact(
        "cost_tag",
        "Every AWS resource needs the tags team, service and env or the nightly janitor deletes it",
        "source: wiki/platform; added: 2026-09-03",
    ),
    Fact(
        "incident_dns",
        "The 2026-08-12 outage was a DNS TTL of 24 hours on api.acme.dev; it is 300 seconds now",
        "source: incident 2026-08-12; added: 2026-08-14",
    ),
    Fact(
        "ports_grpc",
        "Internal gRPC services listen on port 50051; health checks use port 8081",
        f"source: {_s(70707)}; added: 2026-06-20",
    ),
    Fact(
        "license",
        "Do not add AGPL dependencies; legal must approve any copyleft license",
        "source: wiki/legal; added: 2026-02-28",
    ),
    Fact(
        "docker_base",
        "Docker images build from python:3.12-slim; Alpine broke the numpy wheels",
        f"source: {_s(63636)}; added: 2026-05-30",
    ),
    Fact(
        "terraform_state",
        "Terraform state lives in the s3 bucket acme-tf-state with a DynamoDB lock table",
        "source: wiki/platform; added: 2026-03-15",
    ),
    Fact(
        "secrets_vault",
        "Application secrets come from Vault at secret/apps/<service>; never put them in env files in the repo",
        "source: wiki/security; added: 2026-10-09",
    ),
    # deleted or reworded since (only history search finds them)
    Fact(
        "old_freeze",
        "Release freeze is one week before each release",
        "source: wiki/release-process; added: 2026-01-08",
        REL,
        deleted=True,
    ),
    Fact(
        "old_redis_host",
        "The legacy cache runs on redis-old.acme.internal port 6390",
        f"source: {_s(30303)}; added: 2026-02-11",
        deleted=True,
    ),
    Fact(
        "old_deploy_day",
        "Deploys happen only on Tuesdays and Thursdays",
        "source: wiki/deploy; added: 2026-01-15",
        DEP,
        deleted=True,
    ),
    Fact(
        "old_owner",
        "Bjorn Larsen owns the billing service and its invoices cron",
        f"source: {_s(31313)}; added: 2026-03-01",
        deleted=True,
    ),
    Fact(
        "old_node",
        "The web app builds with Node 18 and yarn 1",
        f"source: {_s(32323)}; added: 2026-01-30",
        FE,
        deleted=True,
    ),
    Fact("old_vpn", "VPN uses OpenVPN profiles from the ops share", "", deleted=True),
)

_D = f"source: {_s(99000)}; added: 2026-05-05"
# Filler that repeats the common words of some queries (never a right answer).
DECOYS: tuple[tuple[str, str], ...] = (
    ("Release date notes: check the release date before the release, then the release notes", _D),
    # (added after the one mobile freeze fact, so "release freeze added:<2026-07-01" means that fact only)
    (
        "Release freeze checklist starts with the release notes and the release branch",
        f"source: {_s(99001)}; added: 2026-11-20",
    ),
    ("Deploy notes: deploy the api, deploy the workers, then deploy again after the deploy", _D),
    ("Password rotation notes for the production password and the staging password", _D),
    ("Port notes: the dev port, the api port and the proxy port of the server", _D),
    ("Kubernetes upgrade notes: upgrade the upgrade plan before the next upgrade", _D),
    ("On-call notes: page the on-call, then page again, then page the team", _D),
    ("Node build notes: build the web app, build the node image, build again", _D),
    ("Budget notes: the cloud budget, the team budget and the budget review", _D),
    ("Token notes: access token, refresh token, token expire, token refresh", _D),
    ("Standup notes: the daily standup and the weekly standup moved again", _D),
    ("Backup notes: postgres backups, redis backups and the backups of backups", _D),
    ("Rate limit notes: the api rate, the limit per minute and the api limit", _D),
    ("Who decides what: the team decides the date of the review", _D),
)

# Short filler an agent's noise leaves behind, repeating a few words of a ``noise`` query (a
# heading copied as an entry, a line said three times): never a right answer. The real fact
# holds the same words in a sentence; a ranking that rewards a short text, or counts each
# repetition again, puts these first.
NOISE: tuple[tuple[str, str], ...] = (
    ("Deploy order, deploy order", ""),
    ("Postgres password? Postgres password", ""),
    ("Release captains approvals approvals", ""),
    ("Canary traffic minutes, canary traffic", ""),
    ("Pool size per node, pool size per node", ""),
    ("Rate limit per token, rate limit", ""),
    ("Redis port redis port redis port", ""),
    ("Kafka topic days kafka topic days", ""),
    ("VPN access approval: VPN access", ""),
    ("Nightly janitor tags janitor tags", ""),
    ("Incident commander, incident commander", ""),
    ("Architecture review Thursday review", ""),
    ("Read replica lags read replica", ""),
    ("Feature flags sprints flags", ""),
    ("TLS certificates TLS certificates renew", ""),
)

CLASSES: tuple[str, ...] = (
    "exact",
    "partial",
    "typo",
    "order",
    "question",
    "abbrev",
    "metadata",
    "missing",
    "typo3",
    "noise",
    "deleted",
)

_QUERIES: dict[str, tuple[tuple[str, str], ...]] = {
    "exact": (
        ("release freeze", "rel_freeze rel_freeze_mobile"),
        ("rotate-db-creds", "db_pw"),
        ("pgbouncer pool size", "db_pool"),
        ("acme-db-backups", "db_backup"),
        ("okta saml", "auth_sso"),
        ("webauthn", "auth_2fa"),
        ("authlib python-jose", "auth_lib"),
        ("lazyvim", "tl_editor"),
        ("istio 1.22", "k8s_version"),
        ("cert-manager", "k8s_ingress"),
        ("storybook", "fe_node"),
        ("port 5173", "fe_port"),
        ("config/billing.env", "env_vars"),
        ("port 6380", "redis_port"),
        ("orders.events", "kafka_retention"),
        ("acme-prod-uploads", "s3_bucket"),
        ("bastion.acme.internal", "ssh_bastion"),
        ("launchdarkly", "flags"),
        ("loki", "log_retention"),
        ("python:3.12-slim", "docker_base"),
        ("acme-tf-state", "terraform_state"),
        ("testflight", "mobile_release"),
        ("port 50051", "ports_grpc"),
        ("pg-replica-2", "db_replica"),
        # words a fact holds as written, but common ones: filler and decoys hold them too
        ("release notes drafted", "rel_notes"),
        ("deploy order migrations", "dep_order"),
        ("production deploys friday", "dep_friday"),
        ("two approvals deploy channel", "dep_approvals"),
        ("staging postgres password", "db_pw_staging"),
        ("canary traffic", "dep_canary"),
        ("release pipeline unsigned tags", "rel_tag"),
        ("hotfixes skip the freeze", "rel_hotfix"),
        ("release captains", "rel_hotfix"),
        ("security fixes until march", "rel_version"),
        ("previous helm revision", "dep_rollback"),
    ),
    "partial": (
        ("release date decided by", "rel_freeze"),
        ("migrations first then api", "dep_order"),
        ("friday deploy exception", "dep_friday"),
        ("rollback helm script", "dep_rollback"),
        ("canary traffic percent", "dep_canary"),
        ("replica lag nightly", "db_replica"),
        ("postgres backup retention", "db_backup"),
        ("jwt expiry minutes", "auth_jwt"),
        ("on-call handover day", "oc_rotation"),
        ("escalate page not acked", "oc_pager"),
        ("payments incident commander", "oc_kenji"),
        ("commit message style", "tl_commit"),
        ("kubernetes namespace cpu limit", "k8s_ns"),
        ("node version web build", "fe_node"),
        ("redis session port", "redis_port"),
        ("kafka retention days orders", "kafka_retention"),
        ("integration tests timeout ci", "ci_timeout"),
        ("monthly cloud budget", "budget"),
        ("vpn access how long", "vpn"),
        ("architecture review schedule", "meeting"),
        ("api rate limit enterprise", "api_rate"),
        ("v1 api shutdown date", "api_version"),
        ("dns ttl outage", "incident_dns"),
        ("aws tags janitor", "cost_tag"),
    ),
    "typo": (
        ("relase freze", "rel_freeze rel_freeze_mobile"),
        ("postgers backups", "db_backup"),
        ("pgbouncr pool", "db_pool"),
        ("kuberntes upgrade istio", "k8s_version"),
        ("rollbak script", "dep_rollback"),
        ("canery rollout", "dep_canary"),
        ("elasticsaerch documents", "search_es"),
        ("renovte dependency", "deps_renovate"),
        ("sentyr quota", "sentry"),
        ("lauchdarkly flags", "flags"),
        ("terrafrom state", "terraform_state"),
        ("webauth keys admin", "auth_2fa"),
        ("testflihgt", "mobile_release"),
        ("okta saml configuraton", "auth_sso"),
        ("grafna latency dashbaord", "grafana_url"),
        ("escalte marek", "oc_pager"),
        ("standpu moved", "standup"),
        ("bastoin ssh", "ssh_bastion"),
        ("lockfle poetry", "deps_lock"),
        ("docker alpnie numpy", "docker_base"),
    ),
    "order": (
        ("date release decides", "rel_freeze"),
        ("password staging postgres", "db_pw_staging"),
        ("channel deploy approvals", "dep_approvals"),
        ("friday production deploys", "dep_friday"),
        ("notes release drafted", "rel_notes"),
        ("date release decides priya", "rel_freeze"),
        ("workers then api migrations", "dep_order"),
        ("days 90 password rotates", "db_pw"),
        ("helm revision previous restores", "dep_rollback"),
        ("backups s3 postgres", "db_backup"),
        ("tokens refresh days 30", "auth_jwt"),
        ("configuration saml okta", "auth_sso"),
        ("mood imperative commit", "tl_commit"),
        ("1.30 upgrade kubernetes blocked", "k8s_version"),
        ("quota namespace cpu", "k8s_ns"),
        ("storybook build node 22", "fe_node"),
        ("server dev port", "fe_port"),
        ("6379 default redis", "redis_port"),
        ("compaction kafka off", "kafka_retention"),
        ("runners self-hosted macos", "ci_runners"),
        ("rule lifecycle uploads", "s3_bucket"),
        ("thursday architecture review second", "meeting"),
        ("dependencies agpl", "license"),
        ("table lock dynamodb terraform", "terraform_state"),
        ("morning reviews hiroshi", "reviewer_tz"),
    ),
    "question": (
        ("who decides the release date", "rel_freeze"),
        ("when does the release freeze start", "rel_freeze rel_freeze_mobile"),
        ("what order do we deploy in", "dep_order"),
        ("can we deploy on friday", "dep_friday"),
        ("how often does the postgres password rotate", "db_pw"),
        ("how long are postgres backups kept", "db_backup"),
        ("when do access tokens expire", "auth_jwt"),
        ("who owns saml", "auth_sso"),
        ("who is incident commander for payments", "oc_kenji"),
        ("when does on-call change", "oc_rotation"),
        ("which node version for the web app", "fe_node"),
        ("what port does the dev server use", "fe_port"),
        ("where do customer uploads go", "s3_bucket"),
        ("how do i get vpn access", "vpn"),
        ("what is the api rate limit", "api_rate"),
        ("when is api v1 switched off", "api_version"),
        ("how many documents in elasticsearch", "search_es"),
        ("where is terraform state stored", "terraform_state"),
        ("who runs the daily standup", "standup"),
        ("how long are logs kept", "log_retention"),
        ("what caused the dns outage", "incident_dns"),
        ("which shell for scripts", "tl_shell"),
    ),
    "abbrev": (
        ("prod db pw rotation", "db_pw"),
        ("db backups", "db_backup"),
        ("staging db pw", "db_pw_staging"),
        ("k8s upgrade", "k8s_version"),
        ("k8s namespace quota", "k8s_ns"),
        ("env vars billing", "env_vars"),
        ("auth token expiry", "auth_jwt"),
        ("sso config owner", "auth_sso"),
        ("ts strict mode", "fe_ts"),
        ("legacy admin js", "fe_ts"),
        ("platform repo libs", "mono_repo"),
        ("prod deploy approvals", "dep_approvals"),
        ("deps update prs", "deps_renovate"),
        ("deps lockfile ci", "deps_lock"),
        ("prod ssh key", "ssh_bastion"),
        ("py deps uv", "tl_python"),
        ("gh actions runners", "ci_runners"),
        ("tls certs renew", "k8s_ingress"),
        ("pg pool size", "db_pool"),
        ("pg version prod", "db_version"),
        ("ci timeout integ tests", "ci_timeout"),
        ("aws cost tags env", "cost_tag"),
    ),
    "metadata": (
        ("release freeze source:wiki", "rel_freeze"),
        ("release freeze added:<2026-07-01", "rel_freeze_mobile"),
        ("postgres password no:source", "db_pw_staging"),
        ("postgres password has:source", "db_pw"),
        ("deploy approvals no:added", "dep_approvals"),
        ("tokens source:adr", "auth_jwt"),
        ("admin source:adr-0015", "auth_2fa"),
        ("api rate source:wiki added:>=2026-10-01", "api_rate"),
        ("kubernetes source:wiki added:>=2026-10-01", "k8s_version"),
        ("namespace source:wiki", "k8s_ns"),
        ("outage source:incident", "incident_dns"),
        ("pool source:incident", "db_pool"),
        ("neovim mouse no:source", "tl_editor"),
        ("scripts bash no:added", "tl_shell"),
        ("lockfile no:source", "deps_lock"),
        ("standup source:slack", "standup"),
        ("hotfix source:slack", "rel_hotfix"),
        ("password rotation added:>=2026-10-01", "db_pw"),
        ("escalate added:>=2026-10", "oc_pager"),
        ("backups source:wiki/backups", "db_backup"),
        ("tls certificates has:source", "k8s_ingress"),
        ("license source:legal", "license"),
        ("canary rollout added:2026-10-08", "dep_canary"),
        ("secrets vault source:wiki added:>=2026-10-01", "secrets_vault"),
    ),
    # some typed words are in no right answer: it holds most of them (the rarer ones), and an
    # empty answer is a miss (an agent then writes the fact again)
    "missing": (
        ("deploy migrations first always", "dep_order"),
        ("friday deploys forbidden", "dep_friday"),
        ("postgres password rotation schedule", "db_pw"),
        ("pgbouncer pool limit", "db_pool"),
        ("okta saml owner", "auth_sso"),
        ("webauthn keys required admins", "auth_2fa"),
        ("lazyvim mouse settings", "tl_editor"),
        ("istio release blocking upgrade", "k8s_version"),
        ("storybook node 22 failure", "fe_node"),
        ("redis port default change", "redis_port"),
        ("kafka orders retention policy", "kafka_retention"),
        ("testflight beta review", "mobile_release"),
        ("launchdarkly flag cleanup", "flags"),
        ("loki logs retention audits", "log_retention"),
        ("terraform state locking", "terraform_state"),
        ("sentry quota exceeded", "sentry"),
        ("renovate dependabot schedule", "deps_renovate"),
        ("vault secrets path convention", "secrets_vault"),
        ("bastion ssh jump host", "ssh_bastion"),
        ("grafana p99 latency alert threshold", "grafana_url"),
    ),
    # a three-letter word typed with two letters swapped (the words around it spelled right)
    "typo3": (
        ("asw resource tags", "cost_tag"),
        ("dsn ttl outage", "incident_dns"),
        ("jtw expire minutes", "auth_jwt"),
        ("shs production bastion", "ssh_bastion"),
        ("vnp access requests", "vpn"),
        ("cup quota namespace", "k8s_ns"),
        ("tsl certificates renew", "k8s_ingress"),
        ("ois app testflight", "mobile_release"),
        ("ppi install system", "tl_python"),
        ("cak page primary", "oc_pager"),
        ("sud budget month", "budget"),
        ("api rate limti token", "api_rate"),
    ),
    # the words of a short noise line (NOISE) that repeats them: the fact is the answer
    "noise": (
        ("deploy order", "dep_order"),
        ("postgres password", "db_pw db_pw_staging"),
        ("release captains approvals", "rel_hotfix"),
        ("canary traffic minutes", "dep_canary"),
        ("pool size per node", "db_pool"),
        ("rate limit per token", "api_rate"),
        ("redis port", "redis_port"),
        ("kafka topic days", "kafka_retention"),
        ("vpn access approval", "vpn"),
        ("nightly janitor tags", "cost_tag"),
        ("incident commander", "oc_kenji"),
        ("architecture review thursday", "meeting"),
        ("read replica lags", "db_replica"),
        ("feature flags sprints", "flags"),
        ("tls certificates renew", "k8s_ingress"),
    ),
    "deleted": (
        ("redis-old", "old_redis_host"),
        ("legacy cache port 6390", "old_redis_host"),
        ("deploys tuesdays thursdays", "old_deploy_day"),
        ("who owned billing before", "old_owner"),
        ("bjorn larsen billing", "old_owner"),
        ("node 18 web app", "old_node"),
        ("openvpn profiles", "old_vpn"),
        ("release freeze one week", "old_freeze"),
        ("old deploy days", "old_deploy_day"),
        ("vpn ops share", "old_vpn"),
    ),
}

QUERIES: tuple[Query, ...] = tuple(
    Query(cls, text, tuple(answers.split())) for cls, items in _QUERIES.items() for text, answers in items
)


def check() -> list[str]:
    """Problems in the data (unknown answer ids, duplicates, a class not in CLASSES); [] when sound."""
    ids = [f.id for f in FACTS]
    problems = [f"duplicate fact id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    deleted = {f.id for f in FACTS if f.deleted}
    seen: set[str] = set()
    for q in QUERIES:
        if q.cls not in CLASSES:
            problems.append(f"query {q.text!r}: unknown class {q.cls}")
        if q.text in seen:
            problems.append(f"duplicate query {q.text!r}")
        seen.add(q.text)
        for a in q.answers:
            if a not in ids:
                problems.append(f"query {q.text!r}: unknown fact {a}")
        if (q.cls == "deleted") != all(a in deleted for a in q.answers):
            problems.append(f"query {q.text!r}: deleted facts belong to the deleted class only")
    return problems
