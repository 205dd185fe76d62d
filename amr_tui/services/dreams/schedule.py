"""Scheduled dreaming: ``amr dream --install-schedule`` adds a crontab line or a systemd user timer
that runs ``amr dream REPO`` (with ``[dream] agent``, when the config names one) every
``[dream] every`` (``1d``: daily; ``12h``; ``1w``).

:func:`plan` says exactly what would be added (the crontab line, or the two unit files and the
``systemctl --user`` commands); the command shows it and asks before :func:`install` adds it. A
systemd user timer is used where ``systemctl`` exists, else cron where ``crontab`` exists. The only
programs run are ``crontab`` and ``systemctl`` (never anything from a repo), found on ``PATH``.
Installing twice changes nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.services.config import parse_every

CRON_MARK = "# amr dream"


class ScheduleError(Exception):
    """Nothing can be scheduled (no crontab or systemctl, an unreadable interval)."""


@dataclass(frozen=True, slots=True)
class Plan:
    kind: str  # "systemd" or "cron"
    command: list[str]
    cron_line: str = ""  # kind cron: the line added to the user's crontab
    files: dict[Path, str] = field(default_factory=dict)  # kind systemd: unit file -> text
    then: list[list[str]] = field(default_factory=list)  # kind systemd: systemctl --user commands

    def describe(self) -> str:
        """What will be added, exactly."""
        if self.kind == "cron":
            return f"Add this line to your crontab (crontab -l):\n\n{self.cron_line}\n"
        parts = [f"Write {path}:\n\n{text}" for path, text in self.files.items()]
        parts.append("Then run:\n\n" + "\n".join(shlex.join(c) for c in self.then) + "\n")
        return "\n".join(parts)


def command_for(repo: Path, agent: str | None) -> list[str]:
    """The command the schedule runs: this Python's amr, dreaming over ``repo``."""
    cmd = [sys.executable, "-m", "amr_tui", "dream", str(repo.resolve())]
    return [*cmd, "--agent", agent] if agent else cmd


def _slug(repo: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", repo.resolve().name).strip("-") or "memory"
    return f"{name}-{hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:6]}"


# (weekly, daily, every {days} days, every {hours} hours), at 03:17 (a machine at rest) or :17
_CRON = ("17 3 * * 1", "17 3 * * *", "17 3 */{days} * *", "17 */{hours} * * *")
_SYSTEMD = ("Mon *-*-* 03:17:00", "*-*-* 03:17:00", "*-*-1/{days} 03:17:00", "*-*-* 00/{hours}:17:00")


def _every(hours: int, forms: tuple[str, str, str, str]) -> str:
    """The schedule for every ``hours`` hours in ``forms``' syntax (a period over a day that is
    not whole days runs daily)."""
    weekly, daily, every_days, every_hours = forms
    if hours % 168 == 0:
        return weekly
    if hours % 24 == 0:
        return daily if hours == 24 else every_days.format(days=hours // 24)
    return every_hours.format(hours=hours) if hours < 24 else daily


def cron_time(hours: int) -> str:
    """The crontab schedule for every ``hours`` hours (a daily run at 03:17, as a machine at rest)."""
    return _every(hours, _CRON)


def systemd_calendar(hours: int) -> str:
    return _every(hours, _SYSTEMD)


def systemd_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user"


def plan(repo: Path, *, agent: str | None, every: str, kind: str | None = None) -> Plan:
    """What ``install`` would add for ``repo`` (``kind``: ``systemd`` or ``cron``; default: systemd
    where systemctl exists, else cron). Raises ScheduleError."""
    hours = parse_every(every)
    if hours is None:
        raise ScheduleError(f"[dream] every takes 12h, 1d or 1w, not {every!r}")
    if kind is None:
        kind = "systemd" if shutil.which("systemctl") else "cron" if shutil.which("crontab") else None
        if kind is None:
            raise ScheduleError("neither systemctl nor crontab is on PATH: nothing can run amr dream on a schedule")
    command = command_for(repo, agent)
    if kind == "cron":
        return Plan("cron", command, f"{cron_time(hours)} {shlex.join(command)} {CRON_MARK} {repo.resolve()}")
    if kind != "systemd":
        raise ScheduleError(f"a schedule is systemd or cron, not {kind!r}")
    name = f"amr-dream-{_slug(repo)}"
    folder = systemd_dir()
    service = (
        "[Unit]\n"
        f"Description=amr dream: a dreaming run over {repo.resolve()}\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart={shlex.join(command)}\n"
    )
    timer = (
        "[Unit]\n"
        f"Description=amr dream every {every} over {repo.resolve()}\n\n"
        "[Timer]\n"
        f"OnCalendar={systemd_calendar(hours)}\n"
        "Persistent=true\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )
    return Plan(
        "systemd",
        command,
        files={folder / f"{name}.service": service, folder / f"{name}.timer": timer},
        then=[["systemctl", "--user", "daemon-reload"], ["systemctl", "--user", "enable", "--now", f"{name}.timer"]],
    )


def _run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    exe = shutil.which(argv[0])
    if exe is None:
        raise ScheduleError(f"{argv[0]} is not on PATH")
    return subprocess.run(
        [exe, *argv[1:]], input=stdin, capture_output=True, text=True, timeout=30, check=False, shell=False
    )


def install(p: Plan, *, enable: bool = True) -> str:
    """Add what ``p`` describes; returns what was done (and what the user still has to run, if a
    ``systemctl --user`` call failed, or ``enable`` is False). Raises ScheduleError."""
    if p.kind == "cron":
        current = _run(["crontab", "-l"])
        existing = current.stdout if current.returncode == 0 else ""
        if p.cron_line in existing.splitlines():
            return "The crontab already has this line: nothing changed."
        text = existing + ("" if not existing or existing.endswith("\n") else "\n") + p.cron_line + "\n"
        done = _run(["crontab", "-"], stdin=text)
        if done.returncode != 0:
            raise ScheduleError(f"crontab refused the new table: {done.stderr.strip()}")
        return "Added the line to your crontab."
    same = all(path.is_file() and path.read_text(encoding="utf-8") == text for path, text in p.files.items())
    for path, text in p.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    wrote = "The timer's units were already there." if same else "Wrote " + ", ".join(str(f) for f in p.files) + "."
    if not enable:
        return f"{wrote} To enable the timer, run:\n" + "\n".join(shlex.join(c) for c in p.then)
    for argv in p.then:
        try:
            res = _run(argv)
        except (ScheduleError, OSError, subprocess.TimeoutExpired) as exc:
            return f"{wrote} Could not run systemctl ({exc}); run yourself:\n" + "\n".join(
                shlex.join(c) for c in p.then
            )
        if res.returncode != 0:
            why = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit {res.returncode}"
            return f"{wrote} {shlex.join(argv)} failed ({why}); run yourself:\n" + "\n".join(
                shlex.join(c) for c in p.then
            )
    return f"{wrote} The timer is enabled (systemctl --user list-timers shows it)."


__all__ = ["CRON_MARK", "Plan", "ScheduleError", "command_for", "cron_time", "install", "plan", "systemd_calendar"]
