"""Abbreviations and spellings people type in engineering notes, and what they stand for.

A query word in this table also matches its other forms: ``db`` finds "database", "database"
finds "db"; ``k8s`` finds "kubernetes"; British and American spellings meet. Each row is a group
of forms that mean the same; matching is per word (prefixes and typos still apply to each
form). A form of several words ("end to end" for ``e2e``, "pull request" for ``pr``) matches
those words in order with only non-letters between them ("end-to-end"); it is found from the
abbreviation typed, not the other way round. Kept small and documented (README, "Search"): a
form here must mean one thing in an engineering note. Pure data.
"""

from __future__ import annotations

import re

GROUPS: tuple[tuple[str, ...], ...] = (
    ("db", "database", "databases"),
    ("env", "environment", "envs", "environments"),
    ("auth", "authentication", "authorization", "authn", "authz"),
    ("config", "configuration", "cfg", "conf"),
    ("js", "javascript"),
    ("ts", "typescript"),
    ("py", "python"),
    ("k8s", "kubernetes", "kube"),
    ("repo", "repository", "repos", "repositories"),
    ("prod", "production"),
    ("dev", "development"),
    ("stg", "staging"),
    ("deps", "dependencies", "dependency", "dep"),
    ("pw", "pwd", "password", "passwords", "passwd"),
    ("creds", "credentials", "credential"),
    ("docs", "documentation", "doc"),
    ("perf", "performance"),
    ("infra", "infrastructure"),
    ("app", "application"),
    ("svc", "service"),
    ("msg", "message"),
    ("err", "error"),
    ("req", "request"),
    ("resp", "response"),
    ("dir", "directory"),
    ("tmp", "temporary", "temp"),
    ("max", "maximum"),
    ("min", "minimum"),
    ("num", "number"),
    ("pg", "postgres", "postgresql"),
    ("gh", "github"),
    ("tf", "terraform"),
    ("admin", "administrator"),
    ("mgmt", "management"),
    ("impl", "implementation"),
    ("fn", "func", "function"),
    ("spec", "specification"),
    ("w", "with"),
    # testing and tooling
    ("e2e", "end to end"),
    ("pr", "prs", "pull request", "pull requests"),
    ("mr", "merge request", "merge requests"),
    ("ci", "continuous integration"),
    ("qa", "quality assurance"),
    ("sso", "single sign on"),
    ("mfa", "multi factor"),
    ("2fa", "two factor"),
    ("tdd", "test driven"),
    ("a11y", "accessibility"),
    ("i18n", "internationalization", "internationalisation"),
    ("l10n", "localization", "localisation"),
    ("lint", "linter", "linting", "linters"),
    ("fmt", "formatter", "formatting"),
    ("cov", "coverage"),
    ("bench", "benchmark", "benchmarks"),
    ("regex", "regexp", "regular expression"),
    ("pkg", "pkgs", "package", "packages"),
    ("lib", "libs", "library", "libraries"),
    ("util", "utils", "utility", "utilities"),
    ("img", "imgs", "image", "images"),
    ("ver", "version", "versions"),
    ("ns", "namespace", "namespaces"),
    ("cert", "certs", "certificate", "certificates"),
    ("cmd", "cmds", "command", "commands"),
    ("arg", "args", "argument", "arguments"),
    ("param", "params", "parameter", "parameters"),
    ("async", "asynchronous"),
    ("sched", "scheduler"),
    ("mgr", "manager"),
    ("ctx", "context"),
    ("msgs", "messages"),
    ("vm", "vms", "virtual machine", "virtual machines"),
    ("gc", "garbage collection", "garbage collector"),
    ("uat", "user acceptance"),
    ("iac", "infrastructure as code"),
    ("gha", "github actions"),
    ("o11y", "observability"),
    ("sre", "site reliability"),
    ("rca", "root cause"),
    ("dlq", "dead letter queue", "dead letter"),
    ("ttl", "time to live"),
    ("wip", "work in progress"),
    ("rc", "release candidate", "release candidates"),
    ("eol", "end of life"),
    ("lb", "load balancer", "load balancers"),
    ("ssr", "server side render"),
    ("csr", "client side render"),
    ("cli", "command line"),
    ("vcs", "version control"),
    ("ux", "user experience"),
    ("ui", "user interface", "user interfaces"),
    ("gql", "graphql"),
    ("yml", "yaml"),
    ("conn", "conns", "connection", "connections"),
    ("txn", "txns", "transaction", "transactions"),
    ("idx", "index"),
    ("vars", "variables"),
    ("mem", "memory"),
    ("notif", "notifs", "notification", "notifications"),
    ("prefs", "pref", "preferences", "preference"),
    ("avg", "average"),
    ("stats", "statistics"),
    ("info", "information"),
    ("src", "source"),
    ("dest", "destination"),
    ("ops", "operations"),
    ("eng", "engineering"),
    ("lang", "language"),
    ("approx", "approximately"),
    ("mins", "minutes"),
    ("secs", "seconds"),
    ("hrs", "hours"),
    ("kb", "kilobytes", "kilobyte"),
    ("mb", "megabytes", "megabyte"),
    ("gb", "gigabytes", "gigabyte"),
    ("colour", "color"),
    ("behaviour", "behavior"),
    ("licence", "license"),
    ("cancelled", "canceled"),
    ("grey", "gray"),
    ("organisation", "organization"),
    ("analyse", "analyze"),
    ("optimise", "optimize"),
    ("normalise", "normalize"),
    ("serialise", "serialize"),
    ("initialise", "initialize"),
    ("catalogue", "catalog"),
)

ALIASES: dict[str, tuple[str, ...]] = {}
for _group in GROUPS:
    for _form in _group:
        ALIASES[_form] = tuple(f for f in _group if f != _form)


def forms_of(atom: str) -> tuple[str, ...]:
    """The other forms of ``atom`` (empty when it has none)."""
    return ALIASES.get(atom, ())


def phrase_form_pattern(form: str) -> re.Pattern[str]:
    """What a form of several words matches in folded text: its words in order, the first at a
    word start, with only non-letters between them ("end-to-end" and "end to end" for "end to
    end"; the last word may go on: "pull requests" for "pull request")."""
    words = [re.escape(w) for w in form.split()]
    return re.compile(r"(?<![^\W_])" + r"[\W_]+".join(words))


__all__ = ["ALIASES", "GROUPS", "forms_of", "phrase_form_pattern"]
