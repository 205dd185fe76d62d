"""Credential checks on adversarial long lines: time per case (``bench/secrets_bench.py [N]``, N characters).

Each case was quadratic before the linear rewrite (issue 28 point 3); now each grows with N."""

from __future__ import annotations

import sys
import time

from amr_tui.core.secrets import find_secrets, secret_line_candidates

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
cases = {
    "letters": "a" * N,
    "at": "a@" * (N // 2),
    "url-noat": "http://" + "a" * N,
    "urls": "http://a:b" * (N // 10),
    "userinfo": "x://" + "a:" * (N // 2),
    "scheme": "ab" * (N // 2) + "://",
    "pw": "password=" * (N // 9),
    "pw-run": "password=" + "a" * N,
    "jwt": "eyJ" * (N // 3),
    "jwt2": "eyJ" + "a" * N + ".eyJ" + "a" * N,
    "sk": "sk-" * (N // 3) + " ",
    "ghp": "ghp_" * (N // 4),
    "slack": "xoxb-" * (N // 5),
    "begin": "-----BEGIN " * (N // 11),
    "AKIA": "AKIA" * (N // 4),
    "colons": "a:" * (N // 2) + "@",
    "spaces-at": " @" * (N // 2),
}
for name, text in cases.items():
    t = time.perf_counter()
    find_secrets(text)
    a = time.perf_counter() - t
    t = time.perf_counter()
    secret_line_candidates(text + "\n" + text)
    b = time.perf_counter() - t
    print(f"{name:10s} find {a * 1000:8.1f} ms   candidates {b * 1000:8.1f} ms")
