"""Token management (admin) and the open health check."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Request

from ledger import __version__
from ledger.api.auth import Principal, require
from ledger.api.errors import responses
from ledger.api.models import HealthOut, NewTokenOut, TokenIn, TokenOut
from ledger.tokens import TokenStore

router = APIRouter()
TOKEN_ID = Path(pattern=r"^[0-9a-f]{12}$", description="The token's public id.")


@router.get("/health", response_model=HealthOut, tags=["service"], summary="Liveness",
            description="The only route open without a token.", responses=responses())
def health() -> dict[str, Any]:
    return {"status": "ok", "version": __version__}


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
