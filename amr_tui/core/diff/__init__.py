"""Entry-level differences between two versions of a repo: what was merged, reworded, moved,
dropped, added or resurrected, how two versions line up side by side, and how to say it. Pure.

Modules, bottom up: ``similarity`` (when two texts are the same fact), ``entries``
(``diff_entries``), ``align`` (rows of a side-by-side view; its function is ``align.align``,
not named here because the module has the same name), ``text`` (summaries and JSON).
"""
