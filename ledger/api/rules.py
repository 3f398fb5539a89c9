"""The rule book over HTTP: ``GET /rules`` and ``GET /rules/{id}`` (any token)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, Field

from ledger.api.auth import Principal, principal
from ledger.api.errors import responses
from ledger.domain.rulebook import rule, rules

router = APIRouter(tags=["rules"])


class RuleOut(BaseModel):
    id: str = Field(description="The rule's id, e.g. COM-6.")
    section: str = Field(description="The part of the rule book it is in (Common, a game).")
    text: str = Field(description="The rule as the book writes it, decisions included "
                      "(markdown).")


@router.get("/rules", response_model=list[RuleOut], summary="The rule book",
            description="Token: any. Every rule of the rule book (`docs/rules.md`), in order.",
            responses=responses())
def all_rules(_: Principal = Depends(principal)) -> list[RuleOut]:  # noqa: B008
    return [RuleOut(id=r.id, section=r.section, text=r.text) for r in rules().values()]


@router.get("/rules/{rule_id}", response_model=RuleOut, summary="One rule",
            description="Token: any. One rule of the rule book by its id (any case); "
            "`unknown_rule` (404) when the book has none.", responses=responses(404))
def one_rule(
    rule_id: str = Path(pattern=r"^[A-Za-z0-9]{2,8}-\d{1,3}$", description="e.g. COM-6"),
    _: Principal = Depends(principal),  # noqa: B008
) -> RuleOut:
    found = rule(rule_id)
    return RuleOut(id=found.id, section=found.section, text=found.text)
