"""Request and response bodies of the HTTP API.

Command bodies are derived from the command models of ``ledger.domain.commands`` (one source of
truth): the same fields, minus ``table``, which the path names (``POST /tables`` keeps it in the
body).
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, WithJsonSchema, create_model

from ledger.access.tokens import Role
from ledger.api.schemas import Event, GameConfig, HandState
from ledger.domain.actors import PrincipalRole
from ledger.domain.commands import PLAYER_PATTERN, ChangeConfig, Command, OpenTable
from ledger.domain.results import HandResults
from ledger.games.base import Step


@cache
def _config_schema() -> dict[str, Any]:
    """The JSON schema of a configuration in a request: one schema per game, chosen by
    ``game`` (which may be left out when the table's game says it)."""
    adapter: TypeAdapter[Any] = TypeAdapter(GameConfig)
    schema: dict[str, Any] = adapter.json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    schema["description"] = ("The game's settings (one schema per game, chosen by `game`); "
                             "settings left out keep their default, or for a change the value "
                             "in force.")
    return {**schema, "x-config-defs": defs}


@cache
def body_model(cls: type[Command]) -> type[BaseModel]:
    """The request body of ``cls``: its fields, without ``table`` except for OpenTable."""
    fields: dict[str, Any] = {
        name: (info.annotation, info)
        for name, info in cls.model_fields.items()
        if name != "table" or cls is OpenTable
    }
    if cls in (OpenTable, ChangeConfig):
        # Documented as the game's configuration (the rules validate it and answer
        # invalid_config with every problem): a new table's settings, or the settings a change
        # sets; what is left out keeps its default (or, for a change, its value in force).
        info = cls.model_fields["config"]
        fields["config"] = (Annotated[dict[str, Any], WithJsonSchema(_config_schema())], info)
    model: type[BaseModel] = create_model(
        f"{cls.__name__}Body",
        __config__=ConfigDict(extra="forbid"),
        __doc__=cls.__doc__ or cls.__name__,
        **fields,
    )
    return model


class CommandOut(BaseModel):
    """What a command appended (201), or what it appended the first time (200, replayed), and
    what the table waits for now.

    ``events``: the events appended, each with its ``type`` and the table ``version`` after it
    (face-down cards the reader may not see are ``null``; ``prev_hash`` only for auditors).
    ``step``: what the hand waits for now, as this reader may see it, with the deal plan when
    the table may deal; a device needs no read between commands. ``results``: each seat's
    result when one of the events ended a hand (``ledger.domain.results``; null otherwise).
    """

    command_id: str
    command: str
    table: str
    table_version: int
    replayed: bool
    events: list[Event]
    hand_no: int = Field(description="The table's last hand started (0 before the first).")
    step: Step = Field(description="What the table waits for now (after this command).")
    results: HandResults | None = Field(
        default=None, description="Per-seat results of the hand this command ended.")


class TableOut(BaseModel):
    """A table now: configuration, seats, stacks, the hand in progress and what it waits for.

    For every token but an auditor's, the hand's face-down cards are ``null`` unless revealed
    (a seat-bound device token sees its own seat's).
    """

    code: str
    game: str
    currency: str
    timezone: str
    version: int = Field(description="Events in the table's stream.")
    config_version: int
    config: GameConfig = Field(description="The table's configuration (one schema per game).")
    seats: dict[str, str] = Field(description="Seat number -> player.")
    balances: dict[str, int] = Field(description="Account -> chips (minor units).")
    button: int | None
    hand_no: int = Field(description="The last hand started (0 before the first).")
    hand: HandState | None = Field(description="The game's hand state, None between hands.")
    step: Step
    memo: dict[str, Any] | None = None


class TokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    tables: list[str] | None = Field(default=None, description="Device tokens: table codes.")
    seat: int | None = Field(default=None, description="Device tokens: bind to one seat.")
    label: str = Field(default="", max_length=200)
    principal: str | None = Field(default=None, pattern=PLAYER_PATTERN,
                                  description="Approver tokens: the principal of the register "
                                  "the token is bound to.")


class TokenOut(BaseModel):
    token_id: str
    role: str
    tables: list[str] | None
    seat: int | None
    label: str
    created_at: str
    revoked_at: str | None
    principal: str | None = None


class NewTokenOut(TokenOut):
    token: str = Field(description="The bearer token; shown this once, stored only hashed.")


class PrincipalIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    principal_id: str = Field(pattern=PLAYER_PATTERN, description="The id commands name.")
    name: str = Field(min_length=1, max_length=200)
    role: PrincipalRole
    public_key: str = Field(pattern=r"^ed25519:[0-9a-f]{64}$", description="The principal's "
                            "own public key (`ledger principals keygen` makes the pair; the "
                            "private key stays with them).")


class PrincipalChangeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: PrincipalRole | None = None
    public_key: str | None = Field(default=None, pattern=r"^ed25519:[0-9a-f]{64}$")


class PrincipalOut(BaseModel):
    principal_id: str
    name: str
    role: str
    public_key: str | None = Field(description="None: registered before signatures, no key.")
    key_id: str | None
    created_at: str
    created_by: str = Field(description="The admin principal(s) who signed the registration.")
    revoked_at: str | None
    revoked_by: str | None


class ApprovalIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    signature: str = Field(pattern=r"^[0-9a-f]{128}$", description="The approver's Ed25519 "
                           "signature (hex) over the proposal's `message`.")


class ProposalOut(BaseModel):
    proposal_id: str
    created_at: str
    kind: str = Field(description="The command's name, or register_add/_role/_revoke/_key.")
    table: str = Field(description="The table code, or `register`.")
    proposer: dict[str, Any]
    proposer_principal: str | None
    status: str = Field(description="pending, done, failed or expired.")
    expires_at: str
    needs: list[str] = Field(description="Who must still sign.")
    approvals: list[dict[str, Any]]
    result: dict[str, Any] | None
    payload: str = Field(description="Exactly the text an approver signs (canonical JSON).")
    message: str = Field(description="What the approver's key signs: "
                         "`table-ledger/approval/1 <sha256 of payload, hex>`.")
    updated_at: str


class StoreStateOut(BaseModel):
    shard: str | None = Field(description="The shard (LEDGER_SHARDS), or null for one store.")
    state: str = Field(description="ready, read-only (answers, but this process may not "
                       "write to it) or down.")
    message: str | None = Field(description="Why it is not ready, else null.")


class HealthOut(BaseModel):
    status: str
    version: str
    writable: bool | None = Field(None, description="/ready: whether every store answering "
                                  "may be written by this process (false under a role that "
                                  "may only read).")
    stores: list[StoreStateOut] | None = Field(None, description="/ready: each store's (each "
                                               "shard's) state.")
    tables_out_of_place: list[dict[str, Any]] | None = Field(
        None, description="/ready, over shards: each table held by a store other than the one "
        "LEDGER_SHARDS names ({table, held_by, mapped_to}); refused until the map is restored.")
