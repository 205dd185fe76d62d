"""What search and lint share to work over many files: the user cache folder
(:mod:`.diskcache`) and the pool of processes that parses a big repo (:mod:`.parallel`).

``services.search``, ``services.lint``, ``services.verify`` and the session import it; it imports
only the workspace.
"""
