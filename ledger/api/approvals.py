"""Proposals and approvals over HTTP.

A command that needs approval (a configuration change, COM-4; a void naming its approver,
COM-5; a tray count, fill or credit, INV-1..3; a correction, COR-4) sent to its route is not
carried out: it is held as a proposal (202, the proposal in the answer) once the rules accept
it as the table stands and the approvers it names may approve. A change of the register
(``POST``, ``PATCH``, ``DELETE /principals``) is held the same way for an admin principal.

Each approver then approves with an ``approver`` token bound to them **and** their own
signature: ``GET /proposals/{id}`` gives the exact ``payload`` and the ``message`` to sign;
``POST /proposals/{id}/approvals`` with ``{"signature": <hex>}``. The token alone approves
nothing (a database insider can make a token, never a signature); the signature is checked
against the principal's key in the register, and again when the change is carried out.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from ledger.access.proposals import STATUSES, Proposal
from ledger.api.auth import Principal, require
from ledger.api.errors import ApiError, responses
from ledger.api.models import ApprovalIn, ProposalOut
from ledger.app.approvals import Approvals

router = APIRouter(tags=["approvals"])
PROPOSAL_ID = Path(pattern=r"^p-[0-9a-f]{12}$", description="The proposal's id.")
READERS = ("admin", "auditor", "approver")


def approvals_of(request: Request) -> Approvals:
    found: Approvals | None = getattr(request.app.state, "approvals", None)
    if found is None:
        found = request.app.state.approvals = Approvals(request.app.state.ledger)
    return found


def held(proposal: Proposal) -> JSONResponse:
    """A proposal as the answer of the route that made it (202: nothing carried out yet)."""
    return JSONResponse(proposal.as_dict(), status_code=202)


@router.get("/proposals", response_model=list[ProposalOut], summary="List proposals",
            description="Token: admin, auditor or approver (an approver sees the pending "
            "proposals that still need its principal, unless `mine=false`).",
            responses=responses(403))
def list_proposals(
    request: Request,
    status: str | None = Query(None, pattern="^(" + "|".join(STATUSES) + ")$"),
    table: str | None = Query(None, pattern=r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,39}|register)$"),
    mine: bool = Query(True, description="Approver tokens: only what waits for them."),
    who: Principal = Depends(require(*READERS)),  # noqa: B008
) -> list[dict[str, Any]]:
    found = approvals_of(request).proposals.all(status=status, table=table)
    if who.role == "approver" and mine:
        found = [p for p in found if p.status == "pending" and _waits_for(p, who)]
    return [p.as_dict() for p in found]


def _waits_for(proposal: Proposal, who: Principal) -> bool:
    needs = proposal.needs()
    if proposal.register:
        return bool(needs) and who.principal != proposal.proposer_principal
    return who.principal in needs


@router.get("/proposals/{proposal_id}", response_model=ProposalOut, summary="A proposal",
            description="Token: admin, auditor or approver. `payload` is exactly what an "
            "approver signs; `message` is what their key signs over it.",
            responses=responses(403, 404))
def get_proposal(
    request: Request, proposal_id: str = PROPOSAL_ID,
    who: Principal = Depends(require(*READERS)),  # noqa: B008
) -> dict[str, Any]:
    return approvals_of(request).proposals.get(proposal_id).as_dict()


@router.post("/proposals/{proposal_id}/approvals", response_model=ProposalOut,
             summary="Approve a proposal", description="Token: approver (bound to the "
             "principal who approves). The body is that principal's Ed25519 signature over "
             "the proposal's `message`; when it is the last one needed, the change is carried "
             "out (`status` done, the result in `result`).", responses=responses(403, 404, 409))
def approve(
    request: Request, body: ApprovalIn, proposal_id: str = PROPOSAL_ID,
    who: Principal = Depends(require("approver")),  # noqa: B008
) -> dict[str, Any]:
    if who.principal is None:
        raise ApiError("forbidden", "this approver token is bound to no principal")
    via = "console" if request.headers.get("x-ledger-via") == "console" else "http"
    return approvals_of(request).approve(proposal_id, principal_id=who.principal,
                                         signature=body.signature, via=via).as_dict()
