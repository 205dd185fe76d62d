"""Possible contradictions: two entries that say the same thing but for one value (pure).

"Hero images are served as JPEG" and "Hero images are served as AVIF", "pool size 20" and
"pool size 50": most words are equal, and what differs is a *value* on both sides. The rule
(tests/data/contradictions.json holds the planted pairs and non-pairs it is measured on,
``bench/contradictions.py`` prints precision and recall):

* the texts are split into words (a version ``1.2.3``, a date ``2026-10-06`` or a path stays
  one word) and aligned word by word (rapidfuzz's Levenshtein opcodes over the words);
* at least ``MIN_SHARED`` words are equal and not stop words, and the equal words are at least
  ``MIN_EQUAL_SHARE`` of the longer text;
* what differs is one or two replaced spans of at most ``MAX_SPAN`` words a side, and each
  replaced span holds a value on *both* sides: a number, date or version (a word with a digit),
  a format, tool or technology word (``VALUE_WORDS``: jpeg, avif, postgres, npm...), a month or
  weekday, or a capitalised name (a capital letter not at the start of the text);
* inserted or deleted words are only stop words ("is", "the"...): "uses Redis" and "no longer
  uses Redis" is a change of meaning this rule does not call a value;
* the same words in another order, or the same words (AMR014/AMR015 duplicates) are never a
  contradiction.

So "uses Redis for caching" vs "uses Redis for sessions" is *not* flagged: the differing words
are ordinary nouns, and a thing can be used for both (a fact that adds, not one that
contradicts). "uses Redis for caching" vs "uses Memcached for caching" is.

``find_contradictions`` blocks candidates cheaply, as the near-duplicate check does: each text
goes into the blocks of its ``BLOCK_WORDS`` rarest words (two texts that share most words
share one of them), blocks over ``MAX_BLOCK`` members are skipped, and inside a block a
rapidfuzz ratio cut-off comes before the word alignment.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from amr_tui.core import fuzzy

MIN_SHARED = 2
MIN_EQUAL_SHARE = 0.6
MAX_SPAN = 2
BLOCK_WORDS = 3
MAX_BLOCK = 200
RATIO_CUTOFF = 70.0
# Texts of one shape that differ only in their values, three or more of them ("The X service
# listens on port N" for each service; "Incident DATE: ... fixed in HASH"): a list of facts of
# one kind, not two places that disagree. Such a group is left out.
PATTERN_MEMBERS = 3
_VALUE_MASK = re.compile(r"\d[\w.:/+-]*|\b[0-9a-f]{7,40}\b")

_WORD = re.compile(r"[^\W_](?:[\w]|[.\-/:+#](?=[^\W_]))*")

STOP_WORDS = frozenset(
    "a an the is are was were be been being to of in on at for by with from as and or it its this that "
    "these those we our us they them their you your i my me he she his her has have had do does did "
    "will would shall should can could may might must also still now then there here so if than".split()
)

VALUE_WORDS = frozenset(
    (
        # image, document and data formats
        "jpeg jpg png gif webp avif svg heic tiff bmp ico pdf html markdown md json yaml yml toml xml csv tsv "
        "parquet avro protobuf msgpack ini txt docx xlsx mp4 webm mov mp3 wav ogg flac zip tar gzip gz zstd brotli "
        "utf8 utf16 ascii latin1 base64 hex "
        # languages and runtimes
        "python java kotlin scala golang rust ruby php perl swift cpp csharp typescript javascript js ts "
        "node nodejs deno bun elixir erlang haskell clojure lua julia dart zig bash zsh powershell "
        # package managers and build tools
        "npm yarn pnpm pip pipenv poetry uv conda cargo maven gradle sbt cmake bazel webpack vite rollup "
        "esbuild parcel turbopack babel tsc swc "
        # data stores and queues
        "postgres postgresql mysql mariadb sqlite redis memcached mongodb mongo cassandra dynamodb elasticsearch "
        "opensearch clickhouse snowflake bigquery redshift kafka rabbitmq sqs sns nats pulsar etcd consul "
        # frameworks and libraries
        "react vue svelte angular nextjs nuxt remix astro django flask fastapi rails laravel "
        "tailwind bootstrap jest vitest pytest mocha playwright cypress selenium junit "
        # infrastructure and services
        "aws gcp azure heroku vercel netlify cloudflare docker podman kubernetes k8s helm terraform ansible "
        "nginx apache caddy traefik github gitlab bitbucket jenkins circleci travis sentry datadog grafana "
        "prometheus linux macos windows ubuntu debian alpine centos fedora arm64 amd64 x86 "
        "http https http2 http3 grpc graphql websocket tcp udp ssh ftp sftp smtp oauth saml jwt "
        "gzip lz4 tls ssl ipv4 ipv6 "
        # time words that are values
        "monday tuesday wednesday thursday friday saturday sunday january february march april june "
        "july august september october november december daily weekly monthly hourly yearly nightly "
        "am pm utc gmt cet pst est "
        # small number words and switches
        "zero one two three four five six seven eight nine ten eleven twelve twenty hundred thousand million "
        "true false enabled disabled "
    ).split()
)


@dataclass(frozen=True, slots=True)
class Contradiction:
    """Two texts that differ only in values: ``a_values`` in the first, ``b_values`` in the second."""

    a_values: tuple[str, ...]
    b_values: tuple[str, ...]

    def describe(self) -> str:
        """``JPEG vs AVIF`` (the values as the texts spell them)."""
        return f"{' '.join(self.a_values)} vs {' '.join(self.b_values)}"


def words(text: str) -> list[str]:
    """The words of ``text`` as written (a version, date or path is one word)."""
    return _WORD.findall(text)


def _is_value(word: str, first: bool) -> bool:
    low = word.casefold()
    if any(ch.isdigit() for ch in word):
        return True
    if low in VALUE_WORDS:
        return True
    if low in STOP_WORDS:
        return False
    # A capitalised name: a capital letter anywhere but the start of the text ("Marco", "iOS").
    return not first and any(ch.isupper() for ch in word)


def _span_has_value(span: Sequence[str], start: int) -> bool:
    return any(_is_value(w, start + k == 0) for k, w in enumerate(span))


def contradiction(a: str, b: str) -> Contradiction | None:
    """Whether ``a`` and ``b`` look like the same fact with a different value, and which values."""
    return _compare(words(a), words(b))


def _compare(wa: list[str], wb: list[str]) -> Contradiction | None:
    la, lb = [w.casefold() for w in wa], [w.casefold() for w in wb]
    if la == lb or sorted(la) == sorted(lb):
        return None  # the same words: a duplicate, not a contradiction
    longest = max(len(la), len(lb))
    if min(len(la), len(lb)) < 3:
        return None
    Levenshtein = fuzzy.Levenshtein

    equal = 0
    shared = 0
    a_vals: list[str] = []
    b_vals: list[str] = []
    replaced = 0
    for code in Levenshtein.opcodes(la, lb):
        op, a0, a1, b0, b1 = code.tag, code.src_start, code.src_end, code.dest_start, code.dest_end
        if op == "equal":
            equal += a1 - a0
            shared += sum(1 for w in la[a0:a1] if w not in STOP_WORDS)
            continue
        if op in ("insert", "delete"):
            extra = la[a0:a1] if op == "delete" else lb[b0:b1]
            if any(w not in STOP_WORDS for w in extra):
                return None
            continue
        # replace
        replaced += 1
        if replaced > 2 or a1 - a0 > MAX_SPAN or b1 - b0 > MAX_SPAN:
            return None
        if not _span_has_value(wa[a0:a1], a0) or not _span_has_value(wb[b0:b1], b0):
            return None
        if sorted(la[a0:a1]) == sorted(lb[b0:b1]):
            continue
        # the values as they read, without a stop word the span took along ("now 50": 50)
        a_vals.extend([w for w in wa[a0:a1] if w.casefold() not in STOP_WORDS] or wa[a0:a1])
        b_vals.extend([w for w in wb[b0:b1] if w.casefold() not in STOP_WORDS] or wb[b0:b1])
    if not replaced or not a_vals or shared < MIN_SHARED or equal < MIN_EQUAL_SHARE * longest:
        return None
    return Contradiction(tuple(a_vals), tuple(b_vals))


@dataclass(frozen=True, slots=True)
class Pair:
    """Items ``a`` < ``b`` (indexes into the texts given) that may contradict each other."""

    a: int
    b: int
    found: Contradiction


def find_contradictions(texts: Sequence[str], *, only: Iterable[int] | None = None) -> list[Pair]:
    """Every pair of ``texts`` that may contradict each other, ``a < b``, in order.

    ``only``: the indexes that must be one side of each pair (the new entries of a dreaming
    run, against everything); None checks every text against every other.
    """
    fuzz, process = fuzzy.fuzz, fuzzy.process

    low_words = [_WORD.findall(t.casefold()) for t in texts]
    low = [" ".join(ws) for ws in low_words]
    wanted = None if only is None else set(only)
    # one shape, numbers and hashes aside, held by three texts or more: a pattern (see PATTERN_MEMBERS)
    shapes = [_VALUE_MASK.sub("#", t) for t in low]
    shape_count = Counter(shape for shape, _t in {(shape, t) for shape, t in zip(shapes, low, strict=True)})
    patterned = {i for i, shape in enumerate(shapes) if shape_count[shape] >= PATTERN_MEMBERS}  # distinct texts
    del shape_count
    sets = [set() if i in patterned else set(ws) - STOP_WORDS for i, ws in enumerate(low_words)]
    freq: Counter[str] = Counter()
    for s in sets:
        freq.update(s)
    rank = freq.__getitem__
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        if len(low_words[i]) < 3 or i in patterned:
            continue
        # a word no other text has cannot bring two texts together (often the value itself)
        taken = 0
        for w in sorted(s, key=rank):
            if freq[w] > 1:
                blocks[w].append(i)
                taken += 1
                if taken == BLOCK_WORDS:
                    break
    del freq
    seen: set[tuple[int, int]] = set()
    out: list[Pair] = []
    for members in blocks.values():
        if len(members) < 2 or len(members) > MAX_BLOCK:
            continue
        member_texts = [low[m] for m in members]
        for x_pos, x in enumerate(members[:-1]):
            later = member_texts[x_pos + 1 :]
            # the cut-off in rapidfuzz's C loop first: most members are far from each other
            for _text, _score, k in process.extract(
                low[x], later, scorer=fuzz.ratio, score_cutoff=RATIO_CUTOFF, limit=None
            ):
                y = members[x_pos + 1 + k]
                key = (x, y) if x < y else (y, x)
                if key in seen or (wanted is not None and x not in wanted and y not in wanted):
                    continue
                seen.add(key)
                # cheap bounds before aligning: shared words (no stop word), and all words in common
                if len(sets[x] & sets[y]) < MIN_SHARED:
                    continue
                wx, wy = low_words[x], low_words[y]
                common = sum((Counter(wx) & Counter(wy)).values())
                if common < MIN_EQUAL_SHARE * max(len(wx), len(wy)):
                    continue
                # at most two replaced spans of MAX_SPAN words a side differ: a bound on the words
                # the two texts do not share, before aligning them
                if len(wx) + len(wy) - 2 * common > 4 * MAX_SPAN:
                    continue
                found = _compare(words(texts[key[0]]), words(texts[key[1]]))
                if found is not None:
                    out.append(Pair(key[0], key[1], found))
    # the same pattern by the values that differ (a name, a format word): three texts or more of
    # one template are a list of facts of one kind, not a contradiction
    holders: dict[str, set[int]] = defaultdict(set)
    shape_of: dict[tuple[int, int], str] = {}
    for pair in out:
        shape = _template(low[pair.a], pair.found.a_values)
        shape_of[(pair.a, pair.b)] = shape
        holders[shape].update((pair.a, pair.b))
    distinct = {shape: len({low[i] for i in held}) for shape, held in holders.items()}
    out = [pair for pair in out if distinct[shape_of[(pair.a, pair.b)]] < PATTERN_MEMBERS]
    out.sort(key=lambda p: (p.a, p.b))
    return out


def _template(text: str, values: Sequence[str]) -> str:
    """``text`` with these values (and any number or hash) masked: the shape two texts share."""
    for v in values:
        text = re.sub(rf"(?<![^\W_]){re.escape(v.casefold())}(?![^\W_])", "\u00a7", text)
    return _VALUE_MASK.sub("#", text)


__all__ = ["Contradiction", "Pair", "STOP_WORDS", "VALUE_WORDS", "contradiction", "find_contradictions", "words"]
