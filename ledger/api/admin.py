"""Token management (admin) and the open health checks: ``/health`` (liveness: the process
answers) and ``/ready`` (readiness: the store answers too)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse

from ledger import __version__
from ledger.access.tokens import TokenStore
from ledger.api.approvals import approvals_of, held
from ledger.api.auth import Principal, require
from ledger.api.commands import actor_of
from ledger.api.errors import ApiError, responses
from ledger.api.models import (
    HealthOut,
    NewTokenOut,
    PrincipalChangeIn,
    PrincipalIn,
    PrincipalOut,
    ProposalOut,
    TokenIn,
    TokenOut,
)
from ledger.app.application import LedgerApp
from ledger.domain.commands import PLAYER_PATTERN
from ledger.store.availability import check_ready
from ledger.store.errors import StoreError
from ledger.store.readiness import out_of_place, readiness
from projections.read.fleet import placement

router = APIRouter()
TOKEN_ID = Path(pattern=r"^[0-9a-f]{12}$", description="The token's public id.")
PRINCIPAL_ID = Path(pattern=PLAYER_PATTERN, description="The principal's id.")


@router.get("/health", response_model=HealthOut, tags=["service"], summary="Liveness",
            description="Open without a token. The process answers; the store is not asked "
            "(a load balancer's liveness probe: restarting the process would not help a store "
            "outage).", responses=responses())
def health() -> dict[str, Any]:
    return {"status": "ok", "version": __version__}


@router.get("/ready", response_model=HealthOut, tags=["service"], summary="Readiness",
            description="Open without a token. 200 when the event store (and the read store, "
            "when one is set) answers within LEDGER_CONNECT_TIMEOUT; 503 store_unavailable "
            "while it does not (a load balancer's readiness probe). `stores` gives each "
            "store's state (each shard's, over LEDGER_SHARDS): ready, read-only or down; "
            "`writable` is false when one that answers may only be read by this process. "
            "Over shards, `status` is `degraded` (still 200: the other shards are served) "
            "while some shard but the home store is down, or while a table is held by a "
            "store other than the one LEDGER_SHARDS names (`tables_out_of_place`: refused, "
            "table_moved, until the map is restored); 503 when the home store is down. Follows "
            "the stores by themselves: no restart is needed when one is back.",
            responses=responses())
def ready(request: Request) -> dict[str, Any]:
    state = request.app.state
    rows = readiness(state.ledger)
    if state.replica is not None:
        check_ready(state.replica)
    down = [r for r in rows if r["state"] == "down"]
    if down and (rows[0]["state"] == "down"):
        first = down[0]
        where = f"shard {first['shard']}: " if first["shard"] else ""
        raise StoreError("store_unavailable", where + str(first["message"]),
                         stores=rows, shards=[r["shard"] for r in down if r["shard"]])
    moved = out_of_place(state.ledger, placement)
    return {"status": "degraded" if down or moved else "ready", "version": __version__,
            "writable": all(r["state"] != "read-only" for r in rows), "stores": rows,
            "tables_out_of_place": moved}


@router.post("/tokens", response_model=NewTokenOut, status_code=201, tags=["tokens"],
             summary="Create a token", description="Token: admin. The bearer token is in the "
             "answer this once; only its SHA-256 is stored. An `approver` token names the "
             "`principal` of the register it is bound to (404 `unknown_principal`).",
             responses=responses(403, 404, 409))
def create_token(
    request: Request, body: TokenIn, who: Principal = Depends(require("admin"))  # noqa: B008
) -> dict[str, Any]:
    store: TokenStore = request.app.state.tokens
    if body.principal is not None:  # an approver token: bound to a principal of the register
        ledger: LedgerApp = request.app.state.ledger
        ledger.principals.get(body.principal)
    token, info = store.create(body.role, tables=body.tables, seat=body.seat, label=body.label,
                               principal=body.principal)
    return {**info.as_dict(), "token": token}


@router.get("/tokens", response_model=list[TokenOut], tags=["tokens"], summary="List tokens",
            description="Token: admin. Revoked tokens included; secrets never.",
            responses=responses(403))
def list_tokens(
    request: Request, who: Principal = Depends(require("admin"))  # noqa: B008
) -> list[dict[str, Any]]:
    store: TokenStore = request.app.state.tokens
    return [t.as_dict() for t in store.all()]


@router.delete("/tokens/{token_id}", response_model=TokenOut, tags=["tokens"],
               summary="Revoke a token", description="Token: admin. Takes effect at once in this "
               "process; revoking twice changes nothing.", responses=responses(403, 404))
def revoke_token(
    request: Request,
    token_id: str = TOKEN_ID,
    who: Principal = Depends(require("admin")),  # noqa: B008
) -> dict[str, Any]:
    store: TokenStore = request.app.state.tokens
    revoked = store.revoke(token_id).as_dict()
    request.app.state.sessions.end_for_token(token_id)  # its console sessions end with it
    return revoked


@router.post("/principals", response_model=ProposalOut, status_code=202, tags=["principals"],
             summary="Propose a principal", description="Token: admin. Registers nobody by "
             "itself: the registration (id, name, role and the person's own public key) is "
             "held as a proposal until an admin principal signs it (POST /proposals/{id}/"
             "approvals with their approver token, or `ledger approve`).",
             responses=responses(403, 404, 409))
def add_principal(
    request: Request, body: PrincipalIn, who: Principal = Depends(require("admin"))  # noqa: B008
) -> JSONResponse:
    change = {"id": body.principal_id, "name": body.name, "role": body.role,
              "public_key": body.public_key}
    return held(approvals_of(request).propose_register("add", change, actor=actor_of(who),
                                                       proposer_principal=who.principal))


@router.get("/principals", response_model=list[PrincipalOut], tags=["principals"],
            summary="List principals", description="Token: admin, auditor or approver. "
            "Revoked ones included; each with their public key (none: registered before "
            "signatures).", responses=responses(403, 409))
def list_principals(
    request: Request,
    who: Principal = Depends(require("admin", "auditor", "approver")),  # noqa: B008
) -> list[dict[str, Any]]:
    ledger: LedgerApp = request.app.state.ledger
    return [p.as_dict() for p in ledger.principals.all()]


@router.patch("/principals/{principal_id}", response_model=ProposalOut, status_code=202,
              tags=["principals"], summary="Propose a role or key change",
              description="Token: admin. `role` or `public_key` (a rotation, or a key for a "
              "principal registered before signatures), held until an admin principal signs.",
              responses=responses(403, 404, 409))
def change_principal(
    request: Request, body: PrincipalChangeIn, principal_id: str = PRINCIPAL_ID,
    who: Principal = Depends(require("admin")),  # noqa: B008
) -> JSONResponse:
    if (body.role is None) == (body.public_key is None):
        raise ApiError("invalid_request", "give either role or public_key")
    kind, change = (("role", {"id": principal_id, "role": body.role}) if body.role is not None
                    else ("key", {"id": principal_id, "public_key": body.public_key}))
    return held(approvals_of(request).propose_register(kind, change, actor=actor_of(who),
                                                       proposer_principal=who.principal))


@router.delete("/principals/{principal_id}", response_model=ProposalOut, status_code=202,
               tags=["principals"], summary="Propose a revocation", description="Token: admin. "
               "Held until an admin principal signs it; then their id approves and signs "
               "nothing.", responses=responses(403, 404, 409))
def revoke_principal(
    request: Request,
    principal_id: str = PRINCIPAL_ID,
    who: Principal = Depends(require("admin")),  # noqa: B008
) -> JSONResponse:
    return held(approvals_of(request).propose_register("revoke", {"id": principal_id},
                                                       actor=actor_of(who),
                                                       proposer_principal=who.principal))
