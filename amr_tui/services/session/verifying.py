"""The session's view of "is it still true?": the last verify report of each repo, and what agents
read, for the Stale? queue, the side panel and the finder's ``is:stale``, ``is:unread`` and
``read:`` filters.

``Verifying`` is composed into the session (``session.verifying``). :meth:`Verifying.run` judges a
repo against its code (``services.verify``: git on the code repo, cached per HEAD) and is called
from a worker thread, never under the session's lock; the finder only reads the last report
(:meth:`Verifying.known`). Reads come from the usage database (``services.usage``), read again
at most every ``USAGE_TTL_S`` seconds.
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
from pathlib import Path
from typing import Protocol

from amr_tui.core.model import Entry
from amr_tui.core.verify.evidence import extract
from amr_tui.services.config import Config
from amr_tui.services.usage import Reads, Usage
from amr_tui.services.verify.coderepo import CodeSource, code_sources
from amr_tui.services.verify.run import EntryCheck, VerifyReport, verify_mount
from amr_tui.services.workspace import Mount

USAGE_TTL_S = 10.0


class Mounts(Protocol):
    def mount(self, repo: str) -> Mount: ...


class Verifying:
    def __init__(self, session: Mounts) -> None:
        self._session = session
        self._lock = threading.Lock()
        self.config: Config | None = None  # set by the session's owner: [repo.X] code, [verify] every
        self.explicit: list[Path] = []  # --code paths given for every repo
        self._reports: dict[str, VerifyReport] = {}
        self._made: dict[str, float] = {}  # repo -> time.monotonic() of its report
        self._at: dict[str, dict[tuple[str, int], EntryCheck]] = {}
        self._usage: dict[str, tuple[float, Usage]] = {}

    def sources(self, repo: str) -> list[CodeSource]:
        return code_sources(self._session.mount(repo), self.config, self.explicit or None)

    def run(self, repo: str, *, today: _dt.date | None = None, paths: list[str] | None = None) -> VerifyReport:
        """Judge ``repo`` (or only ``paths`` of it, keeping the rest of the last report) against
        its code and keep the report. Runs git: call it from a worker thread."""
        every = self.config.verify_every if self.config is not None else 90
        report = verify_mount(self._session.mount(repo), self.sources(repo), today=today, every=every, paths=paths)
        with self._lock:
            old = self._reports.get(repo)
            if paths is not None and old is not None and not report.errors:
                kept = [e for e in old.entries if e.path not in set(paths)]
                report.entries = sorted([*kept, *report.entries], key=lambda e: (e.path, e.line))
            self._reports[repo] = report
            self._made[repo] = time.monotonic()
            self._at[repo] = {(e.path, e.line): e for e in report.entries}
        return report

    def known(self, repo: str, max_age: float | None = None) -> VerifyReport | None:
        """The last report of ``repo`` (made within ``max_age`` seconds), without running anything."""
        with self._lock:
            if max_age is not None and time.monotonic() - self._made.get(repo, -1e18) > max_age:
                return None
            return self._reports.get(repo)

    def at(self, repo: str, path: str, line: int) -> EntryCheck | None:
        with self._lock:
            return self._at.get(repo, {}).get((path, line))

    def stale(self, repo: str, path: str, line: int) -> bool:
        found = self.at(repo, path, line)
        return found is not None and found.stale

    def usage(self, repo: str) -> Usage:
        now = time.monotonic()
        with self._lock:
            got = self._usage.get(repo)
            if got is not None and now - got[0] < USAGE_TTL_S:
                return got[1]
        usage = Usage(self._session.mount(repo).root)
        with self._lock:
            self._usage[repo] = (now, usage)
        return usage

    def reads(self, repo: str, text: str) -> Reads:
        return self.usage(repo).of(text)

    def usage_cached(self, repo: str) -> Usage | None:
        """The reads last loaded for ``repo`` (no disk: for the UI thread), or None."""
        with self._lock:
            got = self._usage.get(repo)
        return got[1] if got is not None else None

    def panel(
        self, repo: str, path: str, line: int, text: str, entry: Entry | None, today: _dt.date
    ) -> list[tuple[str, str]]:
        """The side panel's lines about a fact, as (text, style): each piece of evidence and its
        verdict (when the repo was judged), when it was last verified, and how often agents read
        it. Reads nothing from disk (the usage must be loaded: ``usage``)."""
        out: list[tuple[str, str]] = []
        found = extract(text) if text.strip() else []
        checked = self.at(repo, path, line)
        verdicts = {(c.evidence.kind, c.evidence.value): c.verdict for c in checked.checks} if checked else {}
        for ev in found:
            v = verdicts.get((ev.kind, ev.value))
            if v is None:
                why = (
                    "not checked yet: v checks it" if checked is not None or self.known(repo) is None else "not judged"
                )
                out.append((f"evidence: {ev.label} ({why})", "muted"))
            else:
                out.append((f"{v.status}: {ev.label} — {v.detail}", v.status))
        verified = entry.first("verified") if entry is not None else None
        verified = verified or (checked.verified if checked else None)
        if found or verified:
            out.append((f"last verified {verified}" if verified else "never verified", "muted"))
        usage = self.usage_cached(repo)
        if usage is not None and text.strip() and (usage.known or out):  # unknown: said beside the evidence
            out.append((usage.of(text).sentence(today), "muted"))
        return out


__all__ = ["USAGE_TTL_S", "Verifying"]
