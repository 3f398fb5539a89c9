"""Table state: the table now, as each role may see it."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from ledger.api.accesslog import log_read
from ledger.api.auth import Principal, check_table, require
from ledger.api.commands import CODE_PATH
from ledger.api.errors import responses
from ledger.api.models import TableOut
from ledger.api.visibility import hidden_cards, mask, sees_all_cards
from ledger.app.fleet import Ledger, app_of

READERS = ("device", "auditor", "accounting", "admin")

router = APIRouter(tags=["tables"])


@router.get(
    "/tables/{code}",
    response_model=TableOut,
    summary="The table now",
    description="Configuration, seats, stacks, the hand in progress and the step it waits for. "
    "Token: any role; a device token only for its own tables. Only an auditor's token sees "
    "face-down cards (a seat-bound device token sees its own seat's); undealt cards are never "
    "shown. `public=true`: the table as the public sees it, every face-down card masked "
    "whoever asks (the console's overview; an auditor's read of it shows no hole card). A "
    "read that shows every face-down card of the hand in progress (an auditor's) is recorded in "
    "the access log.",
    responses=responses(403, 404),
)
def table_state(
    request: Request,
    code: str = CODE_PATH,
    public: bool = Query(False, description="Mask every face-down card, whoever asks."),
    who: Principal = Depends(require(*READERS)),  # noqa: B008
) -> JSONResponse:
    check_table(who, code)
    seats: frozenset[int] = frozenset() if public else who.seats
    held: Ledger = request.app.state.ledger
    ledger = app_of(held, code)  # in a fleet, the store that holds the table
    with held.reading(code) as table:
        state = table.state
        hand = None if state.hand is None else state.hand.model_dump(mode="json")
        full = sees_all_cards(who, table) and not public
        step = state.next_step()
        if not (full or set(step.seats) <= seats):
            step = step.public()  # no cap derived from cards the reader cannot see
        if not full and hand is not None:
            hidden = hidden_cards(ledger, table, seats)
            hand = mask(hand, state.game.hand_type, hidden.__contains__)
        if hand is not None and full and who.role != "device":
            # The access log: a reader shown every face-down card (the auditor). A device sees
            # only what its seat holds or what it reported itself (a recorded table's dealer
            # terminal): its polling is not an access to anyone else's cards.
            face_down = len(hidden_cards(ledger, table, frozenset()))
            if face_down:
                log_read(request, who, "table_state", table=state.code, hand=state.hand_no,
                         face_down_cards_shown=face_down)
        # Sent as is: the document types the shape (TableOut), and a masked card is null where
        # the hand's model has a card.
        return JSONResponse({
            "code": state.code,
            "game": state.game.name,
            "currency": state.currency,
            "timezone": state.timezone,
            "version": table.version,
            "config_version": state.config_version,
            "config": state.config.model_dump(mode="json"),
            "seats": {str(k): v for k, v in sorted(state.seats.items())},
            "balances": dict(state.balances),
            "button": state.button,
            "hand_no": state.hand_no,
            "hand": hand,
            "step": step.model_dump(mode="json"),
            "memo": None if state.memo is None else state.memo.model_dump(mode="json"),
        })
