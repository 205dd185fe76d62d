"""The main screen's features that open a screen of their own: sync, share, history, forgetting,
the Stale? queue, the dream review, the activity review, links and tags, in the modules here.

Each is an async flow run as one worker (``AmrApp`` binds the keys and starts it): it checks what
the feature needs, runs git off the UI thread (``asyncio.to_thread``), asks its questions in turn
with ``push_screen_wait``, and when the feature changed the repo tells the main screen to read it
again. Nothing here touches a widget but through the screens' own methods.

A flow's module imports its screen and services at its top, and ``AmrApp`` imports the module
when the flow starts (``importlib``), so that the editor's first frame loads none of them
(tests/test_startup_path.py). What the flows share is in common.py.
"""
