"""The views' JSON columns: the fast writer's text is json's, character for character."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from projections.views.base import dumps, dumps_ints

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-2**70, max_value=2**70)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(VALUES)
def test_the_fast_json_of_the_hands_and_wagers_columns_is_jsons(value: Any) -> None:
    assert dumps_ints(value) == dumps(value)


def test_text_json_escapes_is_written_by_json() -> None:
    for text in ("\x7f", "é", "\n", '"', "\\", "\x00", "\u2028", "\ud800", "€"):
        assert dumps_ints({"k": text, text: [text]}) == dumps({"k": text, text: [text]})
    assert dumps_ints({"n": 2**64, "m": -2**63 - 1}) == dumps({"n": 2**64, "m": -2**63 - 1})
    assert dumps_ints({"a": [1, None, True], "b": {}}) == '{"a":[1,null,true],"b":{}}'
