"""`amr serve` answers only to the exact host:port it listens on (a real server on 127.0.0.1).

The Host check took the port from the Host header itself, so `Host: 127.0.0.1:1` (any port) passed:
a page that got the token could reach the server through a name that is not this server."""

from __future__ import annotations

import http.client
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def server(make_repo) -> Iterator[tuple[int, str]]:
    """`amr serve REPO`: (its port, its token path)."""
    repo = make_repo("memory")
    proc = subprocess.Popen(
        [sys.executable, "-m", "amr_tui", "serve", str(repo)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout or ()], daemon=True).start()
    try:
        first = lines.get(timeout=30)
        m = re.search(r"http://127\.0\.0\.1:(\d+)(/[A-Za-z0-9_-]{20,}/)", first)
        assert m, first
        yield int(m.group(1)), m.group(2)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _status(port: int, path: str, host: str, origin: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host)
        if origin is not None:
            conn.putheader("Origin", origin)
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.slow
def test_the_host_must_name_the_port_the_server_listens_on(server: tuple[int, str]) -> None:
    port, path = server
    assert _status(port, path, f"127.0.0.1:{port}") == 200
    assert _status(port, path, f"localhost:{port}") == 200
    other = 1 if port != 1 else 2
    for host in (f"127.0.0.1:{other}", f"localhost:{other}", "127.0.0.1", "localhost", f"127.0.0.1:{port}0"):
        assert _status(port, path, host) == 403, host
    assert _status(port, path, f"127.0.0.1:{port}", origin=f"http://127.0.0.1:{other}") == 403
    assert _status(port, path, f"127.0.0.1:{port}", origin=f"http://127.0.0.1:{port}") == 200


def test_the_check_takes_the_port_it_was_given(tmp_path: Path) -> None:
    """The middleware compares with the port set once the server is bound, not with the Host's."""
    from amr_tui.cli.serve_cmd import allowed_hosts

    assert allowed_hosts(8123) == {"127.0.0.1:8123", "localhost:8123"}
    assert allowed_hosts(80) == {"127.0.0.1:80", "localhost:80", "127.0.0.1", "localhost"}
