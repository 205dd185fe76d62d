"""The start-up baseline: a hello-world Textual app (Header, Tree, Footer), nothing else."""

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Tree


class Hello(App[None]):
    BINDINGS = [("question_mark", "help", "Help"), ("ctrl+p", "command_palette", "Palette"), ("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        tree: Tree[None] = Tree("memory")
        tree.root.expand()
        for name in ("MEMORY.md", "infra.md", "people.md", "decisions.md"):
            tree.root.add_leaf(name)
        yield tree
        yield Footer()


if __name__ == "__main__":
    Hello().run()
