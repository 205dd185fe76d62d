"""The memory-file format: the lossless parser and serializer, ``[[links]]``, ``[key: value]``
metadata, the line-local checks (AMR0xx codes) and byte-exact edits of a file. Pure.

Modules, bottom up: ``fastscan`` (the parser's fast path), ``links``, ``metadata``, ``parser``,
``rules``, ``edit``, ``jsonout`` (``amr parse --json``). What makes a path Markdown is
``core.paths``.
"""
