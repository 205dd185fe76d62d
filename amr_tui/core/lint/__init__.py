"""Repo-wide lint: what needs the whole repo (links, reachability from MEMORY.md, duplicates,
the entry point's budget), over a ``RepoSnapshot``; the line-local checks are ``core.format``'s.

``facts`` holds what lint needs of one file without the file (a cache keeps it); ``repo`` the
checks and their fixes. A finding is ``core.model.Finding``. Pure.
"""
