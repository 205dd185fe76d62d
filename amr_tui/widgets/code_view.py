"""The read-only viewer of a repo's non-Markdown files (SQL, scripts, JSON...), with highlighting.

Imported and mounted the first time such a file is opened: TextArea and tree-sitter stay off
the start-up path. The text goes through ``make_visible`` line by line first (controls and
bidi characters shown, never acted on).
"""

from __future__ import annotations

from textual.widgets import TextArea

from amr_tui.core.textsafety import make_visible

LANGUAGES = {
    ".sql": "sql",
    ".py": "python",
    ".sh": "bash",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".js": "javascript",
    ".ts": "javascript",
    ".html": "html",
    ".css": "css",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".xml": "xml",
}


def make_visible_keep_lines(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return "\n".join(make_visible(line.rstrip("\r")) for line in text.split("\n"))


class CodeView(TextArea):
    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(read_only=True, show_line_numbers=True, soft_wrap=False, id=id, classes=classes)

    def show_bytes(self, data: bytes, path: str, line: int = 0) -> None:
        self.load_text(make_visible_keep_lines(data))
        suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
        self.language = LANGUAGES.get(suffix)
        if line:
            self.move_cursor((max(0, line - 1), 0))
