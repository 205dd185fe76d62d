"""The secrets prefilter never hides a line that find_secrets would report."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.secrets import find_secrets, secret_line_candidates
from tests.examples import examples

SAMPLES = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----",
    "AKIAABCDEFGHIJKLMNOP",
    "ASIA0123456789ABCDEF",
    "AGPAABCDEFGHIJKLMNOP",
    "AIDAABCDEFGHIJKLMNOP",
    "AROAABCDEFGHIJKLMNOP",
    "ghp_" + "a" * 36,
    "gho_" + "B" * 30,
    "ghu_" + "1" * 31,
    "ghs_" + "x" * 40,
    "ghr_" + "y" * 33,
    "github_pat_" + "A1_" * 15,
    "glpat-" + "abc_DEF-12" * 3,
    "xoxb-1234567890-abc",
    "xoxp-" + "9" * 12,
    "sk_live_" + "a" * 20,
    "rk_test_" + "Z" * 16,
    "sk-" + "q" * 24,
    "sk-proj-" + "w" * 22,
    "sk-ant-" + "e" * 21,
    "AIza" + "S" * 35,
    "eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2QT4",
    "https://user:hunter22@example.com/x",
    "postgres://admin:s3cr3tpass@db:5432",
    "password = hunter2hunter2",
    "PASSWORD: abc12345678",
    'Passwd="x9y8z7w6v5"',
    "pwd is 12345678x",
    "Secret: topsecret99",
    "API_KEY=abcd1234efgh",
    "api-key: 1234abcd5678",
    "ApiKey=zz11yy22xx",
    "Access_Token = tok123456789",
    "auth-token: 99887766aa",
    "CLIENT_SECRET=abc123def456",
    "clientsecret=abcdefgh1",
    "pa\u017f\u017fword = hunter2hunter2",
    "\u212aey \u0130",
    # issue 38: every positive case of the tuning set (key words in many languages, markup,
    # invisible and fullwidth characters, AWS secrets near a context, more prefixes)
    *(
        c["text"]
        for c in json.loads((Path(__file__).parent / "data/credentials_tuning.json").read_text())["cases"]
        if c["secrets"]
    ),
]
FILLER = [
    "",
    " ",
    "plain words",
    "- fact [source: https://example.com/s/1; added: 2026-01-01]",
    "caf\u00e9",
    "\u00c5ngstr\u00f6m",
    "tab\there",
    "\u0130stanbul",
    "x_y-z@w",
    "Asia/Tokyo",
    "disk-full",
    "eyes",
    "\u2026",
    "\uff0c",
    "\u200b",
    "e\u0301",
    "\U0001d400",
]


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(FILLER), st.sampled_from(SAMPLES + FILLER), st.sampled_from(FILLER)), max_size=8
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_every_reported_line_is_a_candidate(parts, eol):
    lines = [f"{a} {b} {c}" for a, b, c in parts]
    text = eol.join(lines)
    picked = secret_line_candidates(text)
    for number, line in enumerate(text.split("\n")):
        if find_secrets(line) and picked is not None:
            assert number in picked, (line, picked)


def test_each_sample_is_found_and_picked():
    for sample in SAMPLES:
        text = f"intro\n- note {sample} end\n"
        if find_secrets(f"- note {sample} end"):
            picked = secret_line_candidates(text)
            assert picked is None or 1 in picked, sample


def test_plain_text_picks_nothing():
    assert (
        secret_line_candidates("# Notes\n\n- The cache TTL is 5 minutes [source: https://e/1; added: 2026-01-01]\n")
        == []
    )
