"""Search over repos: the one search context and ``amr search``'s index, its cache and the search
without a cache.

:mod:`.context` is the one search context (``SearchFacts`` over a ``FactSource``): the session
gives the facts of its parsed files (``services.session.searchctx``), :mod:`.run` those of the
files on disk for ``amr search``. Inside, imports go one way: :mod:`.context` and
:mod:`.columns` <- :mod:`.cache` (which file in the user cache folder, over
``services.batch.diskcache``) <- :mod:`.load` (reading and writing it with the index) <- :mod:`.run` (building the index, ``amr search``) <- :mod:`.cold`
(no cache: only the lines that can match are indexed, over ``services.batch.parallel``). It may
import the workspace, history (``by:``) and ``services.batch``; the session imports
:mod:`.context`, :mod:`.cache` and :mod:`.load` (it starts from the index ``amr search`` keeps and writes it
back).
"""
