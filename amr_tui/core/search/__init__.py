"""Ranked fuzzy search over the entries and file names of several repos, in memory. Pure.

Modules, bottom up: ``text`` (folding, tokens, queries, bitsets, highlights), ``items`` (what is
indexed and what a search returns), ``store`` (slots and postings), ``rank`` (atoms, typos,
scores), ``index`` (``SearchIndex`` and ``SearchSession``; its docstring has the design).
"""
