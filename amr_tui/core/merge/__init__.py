"""amr's three-way merge of memory files, entry by entry, and the resolution of its conflicts. Pure.

Modules, bottom up: ``linediff`` (line hunks), ``parts`` (the conflict model, rendering, one
entry line merged), ``three_way`` (``merge3``), ``resolution`` (a conflict's choice applied).
"""
