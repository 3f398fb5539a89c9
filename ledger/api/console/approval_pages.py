"""The approvals pages: what waits for the signed-in approver, and signing it in the browser.

``/console/approvals`` lists the proposals (``GET /proposals``); ``/console/approvals/{id}``
shows one exactly as its approvers sign it: the kind, the table, every field, what it applies
to, its expiry, and the canonical text itself with the message the key signs. An approver
(a token bound to a principal) picks their key file there; the page's script
(``static/approve.js``) opens it in the browser (its passphrase too: PBKDF2 and AES-GCM in
WebCrypto), hashes the text shown, signs it with Ed25519 in WebCrypto and sends only the
signature (``POST /proposals/{id}/approvals``, through the API like every page). The private
key never leaves the browser, so an approval from the console is as unforgeable by a database
insider as one from the command line.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import Response

from ledger.api.console.gateway import Api, Refused
from ledger.api.console.session import Reader, check_csrf
from ledger.api.console.web import page, render

router = APIRouter(prefix="/console", include_in_schema=False)
PROPOSAL = r"^p-[0-9a-f]{12}$"


@router.get("/approvals")
@page
async def approvals(request: Request, who: Reader, api: Api) -> Response:
    pending = await api.data("/proposals", {"status": "pending"})
    return render(request, "approvals.html", who, proposals=pending)


async def _proposal_page(request: Request, who: Reader, api: Api, proposal_id: str,
                         problem: str | None = None, status: int = 200) -> Response:
    proposal = await api.data(f"/proposals/{proposal_id}")
    signed = json.loads(proposal["payload"])
    principal = who.principal.principal
    registered: dict[str, Any] | None = None
    if principal is not None:
        for entry in await api.data("/principals"):
            if entry["principal_id"] == principal:
                registered = entry
    may_sign = (principal is not None and proposal["status"] == "pending"
                and principal != proposal["proposer_principal"]
                and (principal in proposal["needs"] or (
                    proposal["table"] == "register" and bool(proposal["needs"]))))
    return render(request, "approval.html", who, status=status, proposal=proposal,
                  signed=signed, fields=sorted(signed["fields"].items()),
                  registered=registered, may_sign=may_sign, problem=problem)


@router.get("/approvals/{proposal_id}")
@page
async def approval(request: Request, who: Reader, api: Api,
                   proposal_id: str = Path(pattern=PROPOSAL)) -> Response:
    return await _proposal_page(request, who, api, proposal_id)


@router.post("/approvals/{proposal_id}")
@page
async def approve(request: Request, who: Reader, api: Api,
                  proposal_id: str = Path(pattern=PROPOSAL),
                  signature: str = Form("", max_length=128),
                  csrf: str = Form("", max_length=100)) -> Response:
    check_csrf(request, who, csrf)
    answer = await api.post(f"/proposals/{proposal_id}/approvals", {"signature": signature},
                            headers={"x-ledger-via": "console"})
    if answer.ok:
        return await _proposal_page(request, who, api, proposal_id)
    error = Refused(answer)
    return await _proposal_page(request, who, api, proposal_id,
                                problem=f"[{error.code}] {error.message}",
                                status=answer.status)
