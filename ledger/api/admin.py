"""Token management (admin) and the open health checks: ``/health`` (liveness: the process
answers) and ``/ready`` (readiness: the store answers too)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Request

from ledger import __version__
from ledger.access.tokens import TokenStore
from ledger.api.auth import Principal, require
from ledger.api.commands import actor_of
from ledger.api.errors import responses
from ledger.api.models import (
    HealthOut,
    NewTokenOut,
    PrincipalIn,
    PrincipalOut,
    TokenIn,
    TokenOut,
)
from ledger.app.application import LedgerApp
from ledger.domain.commands import PLAYER_PATTERN
from ledger.store.availability import check_ready

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
            "while it does not (a load balancer's readiness probe). Follows the store by "
            "itself: no restart is needed when it is back.", responses=responses())
def ready(request: Request) -> dict[str, Any]:
    for app in request.app.state.stores:
        check_ready(app)
    return {"status": "ready", "version": __version__}


@router.post("/tokens", response_model=NewTokenOut, status_code=201, tags=["tokens"],
             summary="Create a token", description="Token: admin. The bearer token is in the "
             "answer this once; only its SHA-256 is stored.", responses=responses(403))
def create_token(
    request: Request, body: TokenIn, who: Principal = Depends(require("admin"))  # noqa: B008
) -> dict[str, Any]:
    store: TokenStore = request.app.state.tokens
    token, info = store.create(body.role, tables=body.tables, seat=body.seat, label=body.label)
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
    return store.revoke(token_id).as_dict()


@router.post("/principals", response_model=PrincipalOut, status_code=201, tags=["principals"],
             summary="Register a principal", description="Token: admin. A floor person, "
             "supervisor or admin whose id may approve (configuration changes, voids; "
             "supervisor, admin) or sign for the tray (all three). Who registered them is "
             "recorded (token:<id>).", responses=responses(403, 409))
def add_principal(
    request: Request, body: PrincipalIn, who: Principal = Depends(require("admin"))  # noqa: B008
) -> dict[str, Any]:
    ledger: LedgerApp = request.app.state.ledger
    return ledger.principals.add(body.principal_id, body.name, body.role,
                                 by=actor_of(who).id).as_dict()


@router.get("/principals", response_model=list[PrincipalOut], tags=["principals"],
            summary="List principals", description="Token: admin or auditor. Revoked ones "
            "included.", responses=responses(403))
def list_principals(
    request: Request, who: Principal = Depends(require("admin", "auditor"))  # noqa: B008
) -> list[dict[str, Any]]:
    ledger: LedgerApp = request.app.state.ledger
    return [p.as_dict() for p in ledger.principals.all()]


@router.delete("/principals/{principal_id}", response_model=PrincipalOut, tags=["principals"],
               summary="Revoke a principal", description="Token: admin. Their id approves and "
               "signs nothing from now on; revoking twice changes nothing.",
               responses=responses(403, 404))
def revoke_principal(
    request: Request,
    principal_id: str = PRINCIPAL_ID,
    who: Principal = Depends(require("admin")),  # noqa: B008
) -> dict[str, Any]:
    ledger: LedgerApp = request.app.state.ledger
    return ledger.principals.revoke(principal_id, by=actor_of(who).id).as_dict()
