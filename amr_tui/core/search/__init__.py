"""Ranked fuzzy search over the entries and file names of several repos, in memory. Pure.

``index`` (``SearchIndex`` and ``SearchSession``) is the entry: a keystroke goes down the
stages once, each a module: ``query`` (parse) → ``filters`` → ``candidates`` → ``score`` →
``best`` (take the best, as hits). Under them: ``items`` (what is indexed and what a search
returns), ``bits`` (sets of slots as ints), ``text`` (folding, tokens), ``store`` (slots and
postings), ``abbrev`` (other forms of a word). ``index.py``'s docstring has the flow and the design.
"""
