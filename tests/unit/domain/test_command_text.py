"""Lengths of a command's free text are those of the string, and the refusal says so in
characters (not pydantic's "items" of a generic sequence), before the text itself is checked."""

from __future__ import annotations

import pydantic
import pytest

from ledger.domain.commands import CorrectMovement, VoidHand


def message(model: type[pydantic.BaseModel], **fields: object) -> str:
    with pytest.raises(pydantic.ValidationError) as refused:
        model(**fields)
    [error] = refused.value.errors()
    return str(error["msg"])


def test_a_short_or_long_reason_is_refused_in_characters() -> None:
    movement = {"table": "T1", "command_id": "c1", "version": 4, "amount": 0,
                "approvers": ["sup-1"]}
    assert message(CorrectMovement, **movement, reason="ok") == (
        "String should have at least 3 characters")
    assert message(CorrectMovement, **movement, reason="x" * 501) == (
        "String should have at most 500 characters")
    assert message(CorrectMovement, **movement, reason="a\x01b").startswith(
        "Value error, text must be printable")
    assert CorrectMovement(**movement, reason="amount never moved").reason == (
        "amount never moved")
    assert message(VoidHand, table="T1", command_id="c2", reason="") == (
        "String should have at least 1 character")
    assert message(VoidHand, table="T1", command_id="c2", reason="x" * 501) == (
        "String should have at most 500 characters")
