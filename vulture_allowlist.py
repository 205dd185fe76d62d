"""Names in amr_tui/ that vulture reports unused but something uses: vulture reads this file as code
(`_.name` uses `name`), it is never imported. Name patterns (Textual's on_*, action_*, watch_*,
compose, check_action, @on handlers) and the confidence are in pyproject.toml, [tool.vulture].

Add a name here only with the reason it is used; a function that only tests call is not used.
"""

from typing import Any

_: Any = None

# Textual reads these class attributes and reactives by name.
_.TITLE  # App: the header's title
_.SUB_TITLE  # App: the header's sub-title
_.CSS_PATH  # App: the stylesheet
_.AUTO_FOCUS  # Screen: the widget focused on mount
_.sub_title  # Screen: the header's sub-title, set when the screen's subject changes
_.border_subtitle  # Widget: the text on its bottom border
_.show_root  # Tree: whether the root node is drawn
_.guide_depth  # Tree: the indent of each level
_.can_focus  # Widget: whether it takes focus
_.bindings_changed  # Footer: the screen's bindings signal calls it (widgets/footer.py overrides it)
_.has_errors  # EntryEditor reactive: watch_has_errors runs when it is set
# widgets/textual_private.py: overrides of Textual's private methods (their one home, by design).
_._position_to_cell
_._cell_offset_to_index

# amr mcp: tools registered by the @server.tool(...) decorator, called by MCP clients.
_.memory_load
_.memory_search
_.memory_read
_.memory_history
_.memory_remember
_.memory_edit
_.memory_forget
_.memory_move

# Signatures a protocol fixes: the names must be there even when unread.
_.tb  # __exit__(kind, exc, tb) in git/worktree.py
_.selector  # screens/dreams/write.py: the Protocol of Screen.query_one it calls
_.expect_type  # same

# GitPython reads this attribute of its Git object (git/catfile.py sets our own cat-file process).
_.cat_file_all

# Fields of records: part of what the record says (repr, tests, JSON of `amr mcp`), read or not.
_.old_count  # git/history.py Hunk: the @@ header
_.new_start
_.new_count
_.orig_path  # git/models.py FileChange: a rename's old name
_.committer_name  # git/models.py CommitInfo
_.committer_email
_.up_to_date  # git/remote.py PushResult
_.kept_messages  # git/rewrite.py RewriteResult
_.entries_past_cut  # services/agent/model.py: the MCP tools' structured results (output schema)
_.format
_.searched_files
_.pending_branch
_.UNIDATA_VERSION  # core/foldtable.py: the Unicode version the generated table was made from
_.KEY_RE  # core/format/metadata.py: the key grammar, named by comments and core/format/entrymeta.py

# Only a test reads it: FrameWatchingApp's own flag, the one way to see its first-frame hook fire
# under the headless test driver (tests/test_textual_private.py); after_first_frame is the API.
_.frame_written

# A protocol's signature (screens/main/saving.py SaveHost.run_worker): Textual's own parameter name.
_.exit_on_error

# screens/flows/: AmrApp._run imports a flow's module when the flow starts and calls the flow by name.
_.review_dreams
_.forget_entry

# core/fuzzy.py: the module's PEP 562 __getattr__, which Python calls to import rapidfuzz on first use.
_.__getattr__
