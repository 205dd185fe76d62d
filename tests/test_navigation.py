"""Back and forward: core.navigation.History, a typed history with a cursor."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from amr_tui.core.navigation import History


def future(history: History[str] | History[int]) -> list:
    """Where forward leads, nearest first: the places after the past."""
    return list(history)[len(history.past) :]


def test_an_empty_history_leads_nowhere():
    history: History[str] = History()
    assert not history.can_go_back and not history.can_go_forward
    assert history.back("here") is None and history.forward("here") is None
    assert history.past == [] and future(history) == [] and len(history) == 0


def test_back_then_forward_returns_to_where_you_were():
    history: History[str] = History()
    history.record("a")  # a -> b
    history.record("b")  # b -> c
    assert history.back("c") == "b"
    assert history.back("b") == "a"
    assert history.back("a") is None
    assert future(history) == ["b", "c"]
    assert history.forward("a") == "b"
    assert history.forward("b") == "c"
    assert history.forward("c") is None
    assert history.past == ["a", "b"]


def test_going_somewhere_new_drops_the_future():
    history: History[str] = History()
    history.record("a")
    history.record("b")
    assert history.back("c") == "b"
    history.record("b")  # from b to d: c is no longer forward
    assert future(history) == [] and history.past == ["a", "b"]


def test_the_place_handed_in_is_the_one_given_back():
    """Where the cursor was when leaving is what back and forward come back to."""
    history: History[tuple[str, int]] = History()
    history.record(("a", 3))
    assert history.back(("b", 7)) == ("a", 3)
    assert history.forward(("a", 9)) == ("b", 7)
    assert history.back(("b", 1)) == ("a", 9)


class TwoStacks:
    """The model: a back stack and a forward stack, as the main screen used to keep them."""

    def __init__(self) -> None:
        self.back_stack: list[int] = []
        self.forward_stack: list[int] = []

    def record(self, left: int) -> None:
        self.back_stack.append(left)
        self.forward_stack.clear()

    def back(self, here: int) -> int | None:
        if not self.back_stack:
            return None
        self.forward_stack.append(here)
        return self.back_stack.pop()

    def forward(self, here: int) -> int | None:
        if not self.forward_stack:
            return None
        self.back_stack.append(here)
        return self.forward_stack.pop()


steps = st.lists(st.tuples(st.sampled_from(["record", "back", "forward"]), st.integers(0, 20)), max_size=60)


@given(steps)
def test_history_behaves_as_a_back_stack_and_a_forward_stack(ops: list[tuple[str, int]]) -> None:
    history: History[int] = History()
    model = TwoStacks()
    for op, place in ops:
        assert getattr(history, op)(place) == getattr(model, op)(place)
        assert history.past == model.back_stack
        assert future(history) == model.forward_stack[::-1]
        assert history.can_go_back == bool(model.back_stack)
        assert history.can_go_forward == bool(model.forward_stack)
