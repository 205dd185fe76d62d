"""Deterministic synthetic corpus of memory entries for benchmarks.

Pure Python, seeded ``random.Random``: the same arguments always give the same corpus.
The entries read like an agent's engineering notes: people, services, hosts, ports,
commands, decisions, dates and wiki links, with a Zipf-like mix of common words and a
long tail of identifiers (service names, hosts, tickets, ports, short hashes), so the
vocabulary grows with the corpus the way a real one does. Most lines carry the metadata
suffix ``[source: https://example.com/sessions/N; added: 2026-MM-DD]``.

Public helpers:

* ``generate_files(n_entries, seed=0, entries_per_file=50, repos=...)`` -> list of
  ``CorpusFile`` (repo, path, entries as ``(line, text_without_metadata, full_line)``).
* ``render_file(corpus_file)`` -> the Markdown text of one file.
* ``entry_texts(files)`` -> every entry text (without metadata), in order.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

FIRST_NAMES = (
    "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil "
    "Trent Victor Walter Yusuf Zoe Amara Bjorn Chen Dmitri Esther Farah Gustavo Hiroshi Ines Jonas "
    "Kenji Leila Mateo Nadia Oskar Priya Quentin Rosa Sanjay Tomas Ulla Valeria Wen Ximena Yara "
    "Zeynep Aiko Bastian Camila Darius Elif Femi Goran Hana Imani Jarek Kofi Lena Marek Noor"
).split()
LAST_NAMES = (
    "Nguyen Smith Garcia Kowalski Okafor Tanaka Muller Rossi Dubois Silva Novak Haddad Larsen "
    "Ivanova Chen Patel Schmidt Moreau Kim Jensen Costa Yilmaz Fischer Bauer Romano Ortiz"
).split()
ADJECTIVES = (
    "blue red green amber silver quiet rapid brave lunar solar north south east west cold warm "
    "iron copper golden crimson hidden little grand bright swift steady"
).split()
NOUNS = (
    "falcon otter badger heron lynx maple cedar harbor river summit canyon comet nebula pixel "
    "anchor beacon bridge castle delta ember fjord glacier horizon island jasper kestrel meadow"
).split()
TECH = (
    "redis postgres postgresql nginx kafka kubernetes docker terraform ansible grafana prometheus "
    "elasticsearch rabbitmq celery django flask fastapi react typescript webpack vite pytest mypy "
    "ruff black poetry uv pip npm pnpm yarn golang rust cargo clippy helm istio envoy consul vault "
    "sqlite mysql mongodb clickhouse snowflake airflow dbt spark jupyter pandas numpy s3 ec2 lambda "
    "cloudfront route53 iam gcs bigquery pubsub cloudrun sentry datadog pagerduty opsgenie jira "
    "github gitlab jenkins circleci buildkite argocd flux linkerd traefik haproxy memcached etcd "
    "zookeeper minio ceph nfs systemd cron bash zsh tmux neovim vscode git rebase cherry-pick"
).split()
COMPONENTS = (
    "api gateway scheduler worker queue cache database migration frontend backend auth login "
    "session billing invoice payment search indexer crawler exporter ingest pipeline webhook "
    "notifier mailer uploader thumbnailer resolver router loadbalancer proxy config secrets "
    "logging metrics tracing alerting dashboard cli sdk client server daemon cronjob healthcheck"
).split()
VERBS = (
    "restart rebuild redeploy rotate flush drain migrate upgrade pin bump rollback reindex vacuum "
    "compact snapshot restore throttle retry batch cache shard replicate debug profile benchmark"
).split()
REASONS = (
    "latency dropped by half|the old client leaked connections|licensing costs|memory pressure on "
    "small nodes|the vendor deprecated it|cold starts were too slow|flaky tests in CI|simpler "
    "operations|better observability|a security advisory|the team already knew it|it handles "
    "backpressure|cheaper egress|fewer moving parts|the migration path was clear"
).split("|")
ENVS = "production staging dev qa sandbox canary preview".split()
REGIONS = "us-east-1 us-west-2 eu-west-1 eu-central-1 ap-south-1 ap-northeast-1".split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
TIMEZONES = "UTC Europe/Berlin America/New_York Asia/Tokyo America/Sao_Paulo Asia/Kolkata Europe/Lisbon".split()
AREAS = "infra people projects decisions runbooks services incidents preferences tooling onboarding".split()
FILLER = (
    "the a an to of for on in with and or but is are was were be been it this that these those "
    "when after before always never usually only also because so if then than not no yes all some "
    "every most more less very just still again already"
).split()


@dataclass(slots=True)
class CorpusFile:
    repo: str
    path: str
    entries: list[tuple[int, str, str]] = field(default_factory=list)  # (line, text, full line)


class _Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        r = self.r
        # A long tail of identifiers, fixed per seed so words repeat across entries.
        self.services = sorted({f"{r.choice(ADJECTIVES)}-{r.choice(NOUNS)}" for _ in range(900)})
        self.services += [f"{r.choice(NOUNS)}-{r.choice(COMPONENTS)}" for _ in range(600)]
        r.shuffle(self.services)
        # Pronounceable made-up words: project code names, customers, internal jargon.
        syll = "ka ro mi ten sul var do li bre qua zen tor pha ny lo gi fen mar ust ex or ple vin cha".split()
        self.words = sorted({"".join(r.choice(syll) for _ in range(r.randint(2, 4))) for _ in range(6000)})
        r.shuffle(self.words)
        self.hosts = [
            f"{r.choice(['db', 'cache', 'web', 'worker', 'kafka', 'es', 'build', 'bastion'])}-{r.randint(1, 60)}"
            f".{r.choice(REGIONS)}.internal"
            for _ in range(2500)
        ]
        self.people = [f"{r.choice(FIRST_NAMES)} {r.choice(LAST_NAMES)}" for _ in range(400)]
        self.functions = [
            f"{r.choice(VERBS)}_{r.choice(COMPONENTS)}{r.choice(['', '_v2', '_all', '_async', '_batch'])}"
            for _ in range(1500)
        ]
        self.camel = [
            f"{r.choice(COMPONENTS).capitalize()}{r.choice(NOUNS).capitalize()}{r.choice(['Client', 'Manager', 'Handler', 'Factory', 'Service'])}"
            for _ in range(1200)
        ]

    def zipf(self, seq: Sequence[str], s: float = 1.1) -> str:
        """Pick with a Zipf-like bias towards the start of ``seq``."""
        n = len(seq)
        idx = int(n * (self.r.random() ** (1.0 + s * 2.0)))
        return seq[min(idx, n - 1)]

    def date(self) -> str:
        r = self.r
        return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"

    def person(self) -> str:
        return self.zipf(self.people)

    def first(self) -> str:
        return self.zipf(FIRST_NAMES)

    def service(self) -> str:
        return self.zipf(self.services)

    def tech(self) -> str:
        return self.zipf(TECH, 0.6)

    def word(self) -> str:
        return self.zipf(self.words, 0.3)

    def comp(self) -> str:
        return self.r.choice(COMPONENTS)

    def port(self) -> str:
        r = self.r
        if r.random() < 0.5:
            return str(r.choice([80, 443, 5432, 6379, 8080, 8443, 9092, 9200, 3000, 5000, 27017, 11211]))
        return str(r.randint(1024, 65535))

    def ticket(self) -> str:
        return f"{self.r.choice(['ENG', 'OPS', 'SEC', 'DATA', 'INFRA'])}-{self.r.randint(10, 9999)}"

    def sha(self) -> str:
        return "".join(self.r.choice("0123456789abcdef") for _ in range(7))

    def link(self) -> str:
        return f"[[{self.r.choice(AREAS)}/{self.service()}.md]]"

    def entry(self) -> str:
        r = self.r
        t = r.randrange(32)
        p, s, tech, comp = self.person(), self.service(), self.tech(), self.comp()
        if t == 0:
            return f"{p} prefers {tech} over {self.tech()} for the {comp}"
        if t == 1:
            return f"The {s} service listens on port {self.port()} in {r.choice(ENVS)}"
        if t == 2:
            return f"Use `{self.zipf(self.functions)}` to {r.choice(VERBS)} the {comp} before a deploy"
        if t == 3:
            return f"{s} depends on {self.service()}; restart order matters ({self.ticket()})"
        if t == 4:
            return f"Deploys to {r.choice(ENVS)} happen on {r.choice(WEEKDAYS)} after {r.randint(9, 17)}:00 {r.choice(TIMEZONES)}"
        if t == 5:
            return f"{self.first()}'s timezone is {r.choice(TIMEZONES)}; prefers async updates"
        if t == 6:
            return f"Bug: {comp} leaks {r.choice(['connections', 'file handles', 'memory', 'goroutines', 'threads'])} when {tech} is under load ({self.ticket()})"
        if t == 7:
            return f"Decision ({self.date()}): switched {comp} from {tech} to {self.tech()} because {r.choice(REASONS)}"
        if t == 8:
            return f"API key for {s} lives in vault at secret/{r.choice(ENVS)}/{s}"
        if t == 9:
            return f"See {self.link()} for the {comp} runbook"
        if t == 10:
            return f"{self.zipf(self.hosts)} runs {tech} {r.randint(1, 16)}.{r.randint(0, 20)} with {r.choice([2, 4, 8, 16, 32, 64])} GB RAM"
        if t == 11:
            return f"{p} owns the {comp} of {s}; ask in #{s} before changing it"
        if t == 12:
            return (
                f"Incident {self.date()}: {s} {comp} outage, root cause was {r.choice(REASONS)}; fixed in {self.sha()}"
            )
        if t == 13:
            return f"`{self.zipf(self.camel)}` is the entry point for {comp} requests in {s}"
        if t == 14:
            return f"Run `{tech} {r.choice(VERBS)} --{r.choice(ENVS)}` from the {s} repo root, never from CI"
        if t == 15:
            return f"{p} is on call for {s} during week {r.randint(1, 52)}"
        if t == 16:
            return f"Max connections for {tech} on {self.zipf(self.hosts)} is {r.choice([100, 200, 500, 1000, 5000])}"
        if t == 17:
            return f"The {comp} cache TTL is {r.randint(1, 120)} {r.choice(['seconds', 'minutes', 'hours'])} for {s}"
        if t == 18:
            return f"{tech} {r.randint(1, 9)}.{r.randint(0, 30)} breaks the {comp}; pin to the previous release"
        if t == 19:
            return f"User prefers {r.choice(['tabs', 'spaces', 'short commits', 'squash merges', 'rebases', 'dark themes'])} and {r.choice(['terse answers', 'detailed plans', 'tests first', 'small PRs'])}"
        if t == 20:
            return f"{s} metrics are in the {tech} dashboard {r.choice(NOUNS)}-{r.randint(1, 99)}"
        if t == 21:
            return f"Staging database for {s} is {self.zipf(self.hosts)}:{self.port()}"
        if t == 22:
            return f"{self.first()} said {r.choice(FILLER)} {comp} {r.choice(FILLER)} {r.choice(VERBS)} {r.choice(FILLER)} {tech} {r.choice(FILLER)} {r.choice(['weekly', 'daily', 'on demand', 'after releases'])}"
        if t == 23:
            return f"Retry `{self.zipf(self.functions)}` with exponential backoff; {tech} rate limits at {r.randint(10, 1000)} req/s"
        if t == 24:
            return f"Migrated {s} to {tech} in {self.date()} ({self.ticket()}); see {self.link()}"
        if t == 25:
            return f"{p} and {self.person()} pair on {comp} every {r.choice(WEEKDAYS)}"
        if t == 26:
            return f"Never {r.choice(VERBS)} {s} in {r.choice(ENVS)} without telling {self.first()}"
        if t == 27:
            return f"Known issue: {tech} {comp} times out after {r.randint(5, 300)}s on {r.choice(REGIONS)}"
        if t == 28:
            return f"Project {self.word().capitalize()} uses {tech} for the {comp}; contact {p}"
        if t == 29:
            return f"Customer {self.word().capitalize()} {self.word().capitalize()} is on the {r.choice(['enterprise', 'team', 'free', 'legacy'])} plan, renews {self.date()}"
        if t == 30:
            return (
                f"The {self.word()} {r.choice(['flag', 'toggle', 'experiment'])} gates {comp} in {s} ({self.ticket()})"
            )
        return f"{self.word().capitalize()} means {r.choice(FILLER)} {self.word()} {comp} in {self.first()}'s notes"

    def metadata(self, n: int) -> str:
        r = self.r
        if r.random() < 0.12:
            return ""
        extra = f"; confidence: {r.choice(['high', 'medium', 'low'])}" if r.random() < 0.2 else ""
        return f" [source: https://example.com/sessions/{n}; added: {self.date()}{extra}]"


DEFAULT_REPOS = ("personal", "team-infra", "project-atlas", "shared-notes")


def generate_files(
    n_entries: int,
    seed: int = 0,
    entries_per_file: int = 50,
    repos: Sequence[str] = DEFAULT_REPOS,
) -> list[CorpusFile]:
    """A corpus of about ``n_entries`` entries spread over files of ~``entries_per_file``."""
    g = _Gen(seed)
    r = g.r
    files: list[CorpusFile] = []
    made = 0
    used_paths: set[tuple[str, str]] = set()
    while made < n_entries:
        repo = repos[len(files) % len(repos)]
        area = r.choice(AREAS)
        path = f"{area}/{g.service()}.md"
        k = 2
        while (repo, path) in used_paths:
            path = f"{area}/{g.service()}-{k}.md"
            k += 1
        used_paths.add((repo, path))
        cf = CorpusFile(repo, path)
        count = min(n_entries - made, max(1, int(r.gauss(entries_per_file, entries_per_file / 5))))
        line = 1  # "# Title"
        line += 2  # blank + first section heading
        for i in range(count):
            if i and i % 12 == 0:
                line += 2  # blank + a new "## Section"
            line += 1
            text = g.entry()
            cf.entries.append((line, text, f"- {text}{g.metadata(made + i)}"))
        made += count
        files.append(cf)
    return files


def render_file(cf: CorpusFile) -> str:
    """The Markdown text of one corpus file (line numbers match ``cf.entries``)."""
    lines = [f"# {cf.path.rsplit('/', 1)[-1][:-3]}", "", "## Notes"]
    for line, _text, full in cf.entries:
        while len(lines) < line - 1:
            lines.append("" if len(lines) % 2 else "## More")
        lines.append(full)
    return "\n".join(lines) + "\n"


def entry_texts(files: Sequence[CorpusFile]) -> list[str]:
    return [text for cf in files for _line, text, _full in cf.entries]


def iter_index_input(files: Sequence[CorpusFile]) -> Iterator[tuple[str, str, list[tuple[int, str]]]]:
    """``(repo, path, [(line, text)])`` per file, as a parser would hand them to the index."""
    for cf in files:
        yield cf.repo, cf.path, [(line, text) for line, text, _full in cf.entries]


if __name__ == "__main__":  # pragma: no cover - a quick look at the output
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    fs = generate_files(n, seed=1, entries_per_file=10)
    for f in fs[:3]:
        print(f"==> {f.repo}/{f.path}")
        print(render_file(f))
