"""The credential detector on its case sets and on what docs/format.md 5.16 says (issue 38).

``tests/data/credentials_tuning.json`` is what the detector was tuned on: every case must be
judged right. ``tests/data/credentials_sealed.json`` was written before the detector changed and
never used to tune it, ``credentials_fresh.json`` after the sealed score was taken; their scores
are kept from falling. ``bench/credentials_eval.py`` prints the tables.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.core.secrets import find_secrets, redact_secrets
from tests.examples import examples

DATA = Path(__file__).parent / "data"


def cases(name: str) -> list[dict]:
    return json.loads((DATA / f"credentials_{name}.json").read_text(encoding="utf-8"))["cases"]


def judged_right(case: dict) -> bool:
    found = bool(find_secrets(case["text"]))
    if not case["secrets"]:
        return not found
    redacted = redact_secrets(case["text"])
    return found and not any(s in redacted for s in case["secrets"])


@pytest.mark.parametrize("case", cases("tuning"), ids=lambda c: c["text"][:50])
def test_every_tuning_case_is_judged_right(case: dict) -> None:
    assert judged_right(case), redact_secrets(case["text"])


# (name, true positives at least, false alarms at most), measured with bench/credentials_eval.py.
# The sealed set was scored once, after tuning: 43 of 43 found, no alarm (309303b: 14 and 1).
# The fresh set was written after that and scored before any change for it: 16 of 20 found, 1
# alarm; the fixes that followed (credentials as a "user / password" pair after a login or
# credentials word, 비번, names like k8s/prod) bring it to 19 and 0. A change that finds fewer of
# their credentials or alarms on more of their look-alikes fails.
# Issue 39's set of documentation samples and more services' token shapes (every third case sealed
# before the detector changed for them): the sealed third went from 6 of 11 found and 4 alarms of 13
# to 11 and 0; the tuning part from 11 of 23 and 8 alarms of 27 to 23 and 2 (two tutorials' tokens
# typed as the alphabet, ghp_1234567890abcdef..., are still reported: the project's own tests use
# that shape for a real token).
KEPT = [("sealed", 43, 0), ("fresh", 19, 0), ("docs_tuning", 23, 2), ("docs_sealed", 11, 0)]


@pytest.mark.parametrize(("name", "least", "most"), KEPT)
def test_the_held_out_sets_keep_their_score(name: str, least: int, most: int) -> None:
    data = cases(name)
    pos = [c for c in data if c["secrets"]]
    neg = [c for c in data if not c["secrets"]]
    tp = sum(judged_right(c) for c in pos)
    fp = sum(not judged_right(c) for c in neg)
    assert name != "sealed" or (len(pos) >= 30 and len(neg) >= 30)
    assert name != "docs_sealed" or (len(pos) >= 10 and len(neg) >= 10)
    assert tp >= least and fp <= most, (tp, fp)


# docs/format.md 5.16, as it says it.
FOUND = [
    "password: Xy7#kP2qLm",
    'password = "Xy7#kP2qLm"',
    "**Password:** hunter2-prod",
    "PASSWORD=Xy7#kP2qLm",
    '"apiKey": "AGM32E8fRXkixUYBHK9qJmq1N9Dqe8HnJYX4"',
    "| password | Xy7#kP2qLm |",
    "<password>Xy7#kP2qLm</password>",
    "the staging password is Xy7#kP2qLm",
    "La contraseña del servidor es Xy7#kP2qLm",
    "密码是Xy7#kP2qLm",
    "パスワードはXy7#kP2qLm",
    "DB_PASSWORD=Xy7#kP2qLm",
    "AWS_SECRET_ACCESS_KEY=jUmD3cIoco6zzD0QynR11Wmdx1fX+WB99o68i3aH",
    "GITHUB_TOKEN=lb5L2M1AZuEYwdZNnsPQPJEkWnA5oxJqO1K1",
    "X-API-Key: lb5L2M1AZuEYwdZNnsPQPJEkWnA5oxJqO1K1",
    "secret_key_base: 740feI79fphxRkKKunSQraHDZcOoQlHvBEQQ",
    "secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8vL2tK9a",
    "pw sunflower77",
    "grafana login: admin / Gr4fana!2026",
    "password: 482913",
    "redis://:Xy7kP2qLm@cache:6379",
    "aws key pair AKIAQZ4CX9E75DCG3HW2 / W+hQ7Tp9B2vHzxAnZzp8KMalQC7bhcW5R+u+h0A1",
    "the key sk-abcdefghijklmnopqrstuvwxyz0123...",  # most of a key cut short is still the key
    "prod key AKIA\u200bQZ4CX9E75DCG3HW2",  # a zero-width space inside
    "prod key \uff21\uff2b\uff29\uff21QZ4CX9E75DCG3HW2",  # fullwidth
    "pass\u2060word: Xy7#kP2qLm",  # a word joiner in the key word
]
QUIET = [
    "token: $TOKEN",
    "password: ${DB_PASSWORD}",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "api_key: {{ key }}",
    "api_key: <your-api-key>",
    "password: %DB_PASSWORD%",
    "token: xxx",
    "password: ***",
    "password: changeme",
    "API_KEY=your-key-here",
    "api_key: REDACTED",
    "AKIAXXXXXXXXXXXXXXXX in the docs",
    "the key sk-df6bcc... was rotated",
    "password: /run/secrets/db",
    "token: https://vault.example.com/v1/secret/data/ci",
    "SECRET_ARN=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod-db",
    "OPENAI_API_KEY=op://Engineering/OpenAI/credential",
    "password: process.env.DB_PASSWORD",
    "token: 2026-03-01",
    "api_key: 2.4.1",
    "secret: sha256:31af71b183cc18c9b48957d75e9d1f5ee152a2a84b266975872d2a7bf91608d7",
    "secret: aws-prod-db-credentials-v2",
    "the token bucket algorithm",
    "password policy requires 12 characters",
    "Das Passwort steht im Tresor",
    "password_min_length: 12",
    "TOKEN_TTL=3600",
    "max_tokens: 4096",
    "login: j.smith2",
    "api_key_id: 550e8400-e29b-41d4-a716-446655440000",
    "password_hash: $2b$12$abcdefghijklmnopqrstuu",
    "commit 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b",
    "request 550e8400-e29b-41d4-a716-446655440000",
    "dGhlIHF1aWNrIGJyb3duIGZveA== is base64",
]


@pytest.mark.parametrize("text", FOUND)
def test_what_the_doc_says_is_found(text: str) -> None:
    assert find_secrets(text), text


@pytest.mark.parametrize("text", QUIET)
def test_what_the_doc_says_stays_quiet(text: str) -> None:
    assert not find_secrets(text), find_secrets(text)


def test_the_value_is_reported_and_replaced_not_the_key_word() -> None:
    text = "DB_PASSWORD=Xy7#kP2qLm and **token**: lb5L2M1AZuEYwdZNnsPQPJEkWnA5oxJqO1K1"
    found = find_secrets(text)
    assert [text[m.start : m.end] for m in found] == ["Xy7#kP2qLm", "lb5L2M1AZuEYwdZNnsPQPJEkWnA5oxJqO1K1"]
    assert redact_secrets(text) == (
        "DB_PASSWORD=<redacted: password or secret assignment> and **token**: <redacted: password or secret assignment>"
    )


def test_a_span_covers_the_hidden_characters_inside_a_credential() -> None:
    text = "key AKIA\u200bQZ4CX9E75\u2060DCG3HW2 end"
    (m,) = find_secrets(text)
    assert text[m.start : m.end] == "AKIA\u200bQZ4CX9E75\u2060DCG3HW2"
    assert redact_secrets(text) == "key <redacted: AWS access key> end"


def test_a_private_key_block_is_replaced_whole() -> None:
    from amr_tui.core.secrets import redact_new_lines

    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7b2c3d4e5f6g7h8\nQk9vdHN0cmFwMTIzNDU2Nzg5\n-----END RSA PRIVATE KEY-----\n"
    after = "# Keys\n\n" + block
    assert redact_new_lines("# Keys\n\n", after) == "# Keys\n\n<redacted: private key>\n"


_HIDDEN = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff", "\ufe0f", "\U000e0041", "\u202e"]
_AROUND = st.text(alphabet="ab \u00e9\u2026\uff0c\u3002\u5bc6\U0001f469\u0301:=", max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.sampled_from(["", *_HIDDEN])), min_size=20, max_size=20),
    _AROUND,
    _AROUND,
)
def test_a_key_disguised_by_fullwidth_and_hidden_characters_is_found_exactly(marks, before, after) -> None:
    """Each character of an AWS key id written fullwidth or not, with hidden characters between:
    the span found is exactly the disguised key, so the placeholder leaves none of it."""
    key = "AKIAQZ4CX9E75DCG3HW2"
    disguised = ""
    for i, (wide, hidden) in enumerate(marks):
        ch = key[i]
        disguised += (chr(ord(ch) + 0xFEE0) if wide else ch) + (hidden if i < len(key) - 1 else "")
    text = f"{before} {disguised} {after}"
    start = len(before) + 1
    spans = [(m.kind, m.start, m.end) for m in find_secrets(text)]
    assert ("AWS access key", start, start + len(disguised)) in spans, (text, spans)
    assert redact_secrets(text) == f"{before} <redacted: AWS access key> {after}" or len(spans) > 1
