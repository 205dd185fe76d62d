"""Reading the scripts and targets a code repo declares (``core.verify.manifests``): only read,
never run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.core.verify import manifests as m
from tests.examples import examples


def test_package_json_scripts() -> None:
    data = b'{"name": "x", "scripts": {"dev": "bun run src/server.ts", "db:migrate": "bun run m.ts", "n": 3}}'
    assert m.package_scripts(data) == {"dev": "bun run src/server.ts", "db:migrate": "bun run m.ts", "n": ""}
    assert m.package_scripts(b"{not json") == {}
    assert m.package_scripts(b'["a"]') == {}


def test_pyproject_scripts_from_every_table() -> None:
    data = b"""
[project.scripts]
payments-cli = "payments.cli:main"
[tool.poetry.scripts]
seed = "payments.seed:run"
[tool.poe.tasks]
lint = "ruff check ."
"""
    assert m.pyproject_scripts(data) == {
        "payments-cli": "payments.cli:main",
        "seed": "payments.seed:run",
        "lint": "ruff check .",
    }
    assert m.pyproject_scripts(b"[broken") == {}


def test_make_targets_not_variables_special_or_pattern_rules() -> None:
    data = b""".PHONY: deploy test
CC := gcc
VERSION = 1: 2
deploy test:
\t./scripts/deploy.sh production
%.o: %.c
\t$(CC) -c $<
docker-build: deps
\tdocker build .
"""
    assert m.make_targets(data) == {
        "deploy": "./scripts/deploy.sh production",
        "test": "./scripts/deploy.sh production",
        "docker-build": "docker build .",
    }


def test_just_recipes() -> None:
    data = b"set shell := [\"bash\"]\nalias t := test\n\ntest *args:\n    pytest {{args}}\n@deploy env='prod':\n  ./deploy.sh {{env}}\n"
    assert m.just_recipes(data) == {"test": "pytest {{args}}", "deploy": "./deploy.sh {{env}}"}


def test_a_renamed_script_is_the_one_that_runs_the_same_thing() -> None:
    old = {"migrate": "bun run m.ts", "lint": "eslint .", "dev": "bun dev"}
    new = {"db:migrate": "bun run m.ts", "dev": "bun dev"}
    removed, renamed = m.changes(old, new)
    assert removed == ["migrate", "lint"] and renamed == {"migrate": "db:migrate"}
    # Two new names with the same command: which one it became is not known.
    assert m.changes({"a": "x"}, {"b": "x", "c": "x"})[1] == {}


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["package.json", "pyproject.toml", "Makefile", "justfile", "x.txt"]))
def test_any_bytes_are_read_without_error(data: bytes, path: str) -> None:
    out = m.read(path, data)
    assert isinstance(out, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in out.items())
