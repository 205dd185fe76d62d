"""Abbreviations and spellings people type in engineering notes, and what they stand for.

A query word in this table also matches its other forms: ``db`` finds "database", "database"
finds "db"; ``k8s`` finds "kubernetes"; British and American spellings meet. Each row is a group
of one-word forms that mean the same; matching is per word (prefixes and typos still apply to
each form). Kept small and documented (README, "Search"): a form here must mean one thing in an
engineering note. Pure data.
"""

from __future__ import annotations

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


__all__ = ["ALIASES", "GROUPS", "forms_of"]
