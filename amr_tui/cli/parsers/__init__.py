"""The parsers of amr's commands: one module a command (or a few that share a run module), each
with ``add_parsers(sub)``. They import argparse and cli/parsers/common.py only, so building them
(`amr --help`, `amr CMD`) loads none of the layers a command runs (cli/main.py)."""
