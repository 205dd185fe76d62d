"""Lint over repos on disk: ``amr lint`` and ``amr lint --fix``, and the findings and facts kept
in the user cache folder.

Inside, imports go one way: :mod:`.cache` (over ``services.batch.diskcache``) <- :mod:`.fresh`
(a repo the cache could not answer for: the parser and the rules, on every core by
``services.batch.parallel``) and :mod:`.tracked` (the files git tracks) <- :mod:`.run` (``amr
lint``: which repos, their findings; it imports ``fresh`` and ``tracked`` only when needed) <-
:mod:`.fix` (``lint --fix``, through the write gate). It may import the workspace, the
budgets, sync (merge-driver facts), the write gate and ``services.batch``; the session imports
only :mod:`.cache` (it starts from the lint facts ``amr lint`` keeps and writes them back).
"""
