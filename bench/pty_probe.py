"""Start a terminal app in a real pseudo-terminal and time it: process start to first frame.

``probe_screen`` reads what the screen shows (the pty's output fed to a VT screen,
``vt_screen.py``) and times when each of several checks on its lines first holds: the start-up
rows use it (the tree's repo row with MEMORY.md under it and MEMORY.md's first lines painted,
...). ``probe`` below looks for bytes in the raw output instead.

The app runs on the slave side of ``os.openpty()`` (a 120x36 window, TERM=xterm-256color);
we read the master side and record when the footer's key text first appears after the
switch to the alternate screen: the footer is the last row Textual paints, so its text
means the first full frame has been written. Optionally we keep reading until later text
shows up (amr's status line: "Indexing n/m files…", then "items indexed"), and read the
process's peak resident memory (``VmHWM`` in ``/proc/<pid>/status``) at that moment.
"""

from __future__ import annotations

import fcntl
import os
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import termios
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from vt_screen import Screen

ALT_SCREEN = b"\x1b[?1049h"


@dataclass
class Probe:
    first_frame_s: float | None = None  # process start -> footer text painted
    first_paint_s: float | None = None  # process start -> any full-screen frame (its last row drawn)
    seen: dict[str, float] = field(default_factory=dict)  # later markers -> seconds after start
    vm_hwm_mb: float | None = None  # peak RSS when the last marker appeared
    vm_rss_mb: float | None = None
    error: str = ""


def _status_mb(pid: int, key: str) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _cpu_s(pid: int) -> float | None:
    """The CPU time all threads of ``pid`` have run, in seconds (``/proc/<pid>/task/*/schedstat``,
    nanoseconds: far less at the mercy of the machine's load than the wall clock), or None."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as fh:
                total += int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total / 1e9


def _env(home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "TMUX", "AMR"))}
    env.update(
        HOME=home,
        XDG_CONFIG_HOME=os.path.join(home, ".config"),
        TERM="xterm-256color",
        COLORTERM="truecolor",
        LINES="36",
        COLUMNS="120",
        LC_ALL="C.UTF-8",
    )
    return env


def probe(
    argv: list[str],
    footer: bytes,
    *,
    later: tuple[bytes, ...] = (),
    timeout: float = 120.0,
    cols: int = 120,
    rows: int = 36,
    cwd: str | None = None,
) -> Probe:
    """Run ``argv`` in a pty; time the first frame (``footer`` text) and each text of ``later``.

    Each of ``later`` is looked for on its own (an app may never show one); the run ends when
    the last one appears, or at ``timeout``.
    """
    result = Probe()
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    home = tempfile.mkdtemp(prefix="amr-bench-home-")
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=_env(home), cwd=cwd, start_new_session=True, close_fds=True
    )
    os.close(slave)
    buf = bytearray()
    alt_at = -1
    todo = list(later)
    final = later[-1] if later else None
    deadline = start + timeout
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk
                now = time.perf_counter() - start
                if alt_at < 0:
                    alt_at = buf.find(ALT_SCREEN)
                if alt_at >= 0 and result.first_paint_s is None and buf.find(b"\x1b[%d;1H" % rows, alt_at) >= 0:
                    result.first_paint_s = now
                if alt_at >= 0 and result.first_frame_s is None and buf.find(footer, alt_at) >= 0:
                    result.first_frame_s = now
                if result.first_frame_s is not None:
                    for text in [t for t in todo if buf.find(t, alt_at) >= 0]:
                        result.seen[text.decode()] = now
                        todo.remove(text)
                    if final is None or final.decode() in result.seen:
                        break
            elif proc.poll() is not None:
                break
        if result.first_frame_s is None:
            result.error = f"no first frame within {timeout:.0f} s (exit {proc.poll()})"
        elif final is not None and final.decode() not in result.seen:
            result.error = f"did not see {final.decode()!r} within {timeout:.0f} s"
        result.vm_hwm_mb = _status_mb(proc.pid, "VmHWM")
        result.vm_rss_mb = _status_mb(proc.pid, "VmRSS")
    finally:
        _stop(proc, master)
        shutil.rmtree(home, ignore_errors=True)
    return result


@dataclass
class ScreenProbe:
    seen: dict[str, float] = field(default_factory=dict)  # check name -> seconds after process start
    screens: dict[str, str] = field(default_factory=dict)  # check name -> the screen's text at that moment
    cpu: dict[str, float] = field(default_factory=dict)  # check name -> CPU seconds the app had used by then
    vm_hwm_mb: float | None = None  # peak RSS when the last check held
    error: str = ""


Check = Callable[[list[str]], bool]


@contextmanager
def pythonpath(path: str | None) -> Iterator[None]:
    """``PYTHONPATH`` set to ``path`` (another source tree to time) while probing; None: as it is."""
    old = os.environ.get("PYTHONPATH")
    if path is not None:
        os.environ["PYTHONPATH"] = path
    try:
        yield
    finally:
        if path is not None:
            if old is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = old


def probe_screen(
    argv: list[str],
    checks: dict[str, Check],
    *,
    until: str | None = None,
    timeout: float = 120.0,
    cols: int = 120,
    rows: int = 36,
    cwd: str | None = None,
) -> ScreenProbe:
    """Run ``argv`` in a pty and time when each of ``checks`` first holds on the rendered screen.

    The pty's output is fed to a VT screen (``vt_screen.Screen``) as it arrives; after each read
    every check not yet seen is asked about the screen's lines. The run ends when all have held
    (or the check named ``until``: one that may never hold, a transient status, is not waited for),
    or at ``timeout``."""
    result = ScreenProbe()
    screen = Screen(cols, rows)
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    home = tempfile.mkdtemp(prefix="amr-bench-home-")
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=_env(home), cwd=cwd, start_new_session=True, close_fds=True
    )
    os.close(slave)
    todo = dict(checks)
    deadline = start + timeout
    try:
        while todo and (until is None or until in todo) and time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                now = time.perf_counter() - start
                screen.feed(chunk)
                lines = screen.lines()
                for name in [n for n, check in todo.items() if check(lines)]:
                    result.seen[name] = now
                    result.screens[name] = "\n".join(lines)
                    cpu = _cpu_s(proc.pid)
                    if cpu is not None:
                        result.cpu[name] = cpu
                    del todo[name]
            elif proc.poll() is not None:
                break
        if (until in todo) if until is not None else todo:
            result.error = f"not seen within {timeout:.0f} s: {', '.join(todo)} (exit {proc.poll()})"
        result.vm_hwm_mb = _status_mb(proc.pid, "VmHWM")
    finally:
        _stop(proc, master)
        shutil.rmtree(home, ignore_errors=True)
    return result


def _stop(proc: subprocess.Popen, master: int) -> None:
    try:
        if proc.poll() is None:
            os.write(master, b"\x03")  # ctrl+c quits a Textual app
            end = time.perf_counter() + 3
            while proc.poll() is None and time.perf_counter() < end:
                if select.select([master], [], [], 0.05)[0]:
                    try:
                        os.read(master, 1 << 16)
                    except OSError:
                        break
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
    finally:
        os.close(master)


if __name__ == "__main__":  # pragma: no cover - manual check
    import sys

    p = probe(sys.argv[2:], sys.argv[1].encode(), later=())
    print(p)
