"""The Table aggregate: one event stream per table, with a hash chain over its events.

Each event is a record of ``ledger.domain.records`` plus an envelope (table id, version, timestamp,
the hash of the previous event, the command that caused it, and the actor who sent it: a
:class:`ledger.domain.actors.Actor`, ``null`` in events recorded before actors existed). Events
are frozen pydantic models; the stored form of an event is exactly the JSON its
``stored_state`` returns, and the chain digest of an event is the SHA-256 of its table id,
version, topic and that JSON (the actor included). Each event carries the digest of the one
before it, so editing, deleting, reordering or inserting a stored event breaks the chain where
it happened; a table whose chain is broken refuses to load.

The aggregate's state is a :class:`~ledger.table.state.TableState`; events never re-run the
rules when they are replayed, they only ``apply`` the decisions they record.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from functools import cache
from typing import Any, ClassVar, cast
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.utils import register_topic
from pydantic import BaseModel, ConfigDict

from ledger.domain import records as r
from ledger.domain.actors import Actor
from ledger.domain.approval import Approval
from ledger.domain.errors import LedgerError
from ledger.table.state import GENESIS_HASH, TableState

_ENVELOPE_IDS: set[str] = {"originator_id", "originator_version"}
_UNAPPROVED: set[str] = {"originator_id", "originator_version", "approval"}
ENVELOPE: frozenset[str] = frozenset({"originator_id", "originator_version", "timestamp",
                                      "prev_hash", "command_id", "actor", "approval"})
"""The fields every event carries beside its record's."""
TABLE_NAMESPACE = uuid5(NAMESPACE_URL, "urn:table-ledger:table")


@cache
def table_id(code: str) -> UUID:
    """The stream id of a table, derived from its human code (case-insensitive)."""
    return uuid5(TABLE_NAMESPACE, code.strip().upper())


STORED_MODULE = "ledger.table"
"""The module part of the topic the store holds for every table event, the table and its
snapshot. Topics are names kept in the store (and digested into each event's chain link), not
where the classes are defined now: moving a class to another module changes nothing stored."""


@cache
def topic_of(cls: type) -> str:
    """The topic the store holds for ``cls``: ``ledger.table:<name>`` for the classes of the
    table's stream (:data:`STORED_MODULE`), ``module:qualname`` for any other class."""
    stored: str | None = getattr(cls, "stored_topic", None)
    return stored or f"{cls.__module__}:{cls.__qualname__}"


def chain_digest(originator_id: UUID | str, version: int, topic: str, state: bytes) -> str:
    """SHA-256 over what identifies and what is stored of one event (hex)."""
    head = f"{originator_id}|{version}|{topic}|".encode()
    return hashlib.sha256(head + state).hexdigest()


class ChainBroken(LedgerError):
    """A stored event does not carry the digest of the event before it."""


class TableEvent(BaseModel):
    """The envelope every table event carries."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    class_version: ClassVar[int] = 1
    stored_topic: ClassVar[str]
    """The topic the store holds for this class (:func:`topic_of`)."""

    __slots__ = ("_stored",)

    originator_id: UUID
    originator_version: int
    timestamp: datetime
    prev_hash: str
    command_id: str | None = None
    actor: Actor | None = None
    approval: Approval | None = None
    """The signatures of the approvers of the command (``ledger.domain.approval``): on the
    first event of a command that needs approval; absent from the stored JSON otherwise (and
    from events recorded before signatures)."""

    def stored_state(self) -> bytes:
        """The exact bytes stored for this event (computed once, or as read from the store)."""
        try:
            return cast(bytes, self._stored)  # type: ignore[attr-defined]
        except AttributeError:
            hidden = _ENVELOPE_IDS if self.approval is not None else _UNAPPROVED
            stored = self.model_dump_json(exclude=hidden).encode()
            object.__setattr__(self, "_stored", stored)
            return stored

    def keep_stored(self, stored: bytes) -> None:
        """Remember the bytes this event was read from (so its digest is of exactly those)."""
        object.__setattr__(self, "_stored", stored)

    def digest(self) -> str:
        return chain_digest(
            self.originator_id, self.originator_version, topic_of(type(self)), self.stored_state()
        )

    def mutate(self, aggregate: Table | None) -> Table:
        """Fold this event into the table (the library's projector calls this)."""
        if aggregate is None:
            if not isinstance(self, TableOpened):
                raise LedgerError(
                    "corrupt_stream",
                    f"table stream {self.originator_id} does not begin with TableOpened",
                )
            aggregate = Table(self)
        else:
            if self.originator_version != aggregate.version + 1:
                raise ChainBroken(
                    "table_chain_broken",
                    f"table {aggregate.state.code}: event {self.originator_version} follows "
                    f"version {aggregate.version} (an event is missing or out of place); the "
                    "table refuses commands until the store is repaired",
                    version=self.originator_version,
                )
            aggregate.state.apply(self)  # type: ignore[arg-type]
        if self.prev_hash != aggregate.chain_head:
            raise ChainBroken(
                "table_chain_broken",
                f"table {aggregate.state.code}: event {self.originator_version} does not carry "
                "the hash of the event before it; the stored stream has been altered and the "
                "table refuses commands until the store is repaired",
                version=self.originator_version,
            )
        aggregate.version = self.originator_version
        aggregate.modified_on = self.timestamp
        aggregate.chain_head = self.digest()
        return aggregate


# --- one event class per record type ------------------------------------------------------


class TableOpened(TableEvent, r.TableOpened):
    pass


class ConfigChanged(TableEvent, r.ConfigChanged):
    pass


class PlayerSeated(TableEvent, r.PlayerSeated):
    pass


class PlayerUnseated(TableEvent, r.PlayerUnseated):
    pass


class DealerSignedIn(TableEvent, r.DealerSignedIn):
    pass


class DealerSignedOut(TableEvent, r.DealerSignedOut):
    pass


class ChipsBoughtIn(TableEvent, r.ChipsBoughtIn):
    pass


class ChipsCashedOut(TableEvent, r.ChipsCashedOut):
    pass


class InventoryCounted(TableEvent, r.InventoryCounted):
    pass


class TableFilled(TableEvent, r.TableFilled):
    pass


class TableCredited(TableEvent, r.TableCredited):
    pass


class HandStarted(TableEvent, r.HandStarted):
    pass


class RoleOffered(TableEvent, r.RoleOffered):
    pass


class WagerPlaced(TableEvent, r.WagerPlaced):
    pass


class CardsDealt(TableEvent, r.CardsDealt):
    pass


class PlayerActed(TableEvent, r.PlayerActed):
    pass


class CardsRevealed(TableEvent, r.CardsRevealed):
    pass


class HandSettled(TableEvent, r.HandSettled):
    pass


class HandVoided(TableEvent, r.HandVoided):
    pass


class HandCancelled(TableEvent, r.HandCancelled):
    pass


class HandCorrected(TableEvent, r.HandCorrected):
    pass


class MovementCorrected(TableEvent, r.MovementCorrected):
    pass


class SeatCorrected(TableEvent, r.SeatCorrected):
    pass


class OwedSettled(TableEvent, r.OwedSettled):
    pass


EVENT_FOR: dict[type[r.Record], type[TableEvent]] = {
    event.__bases__[1]: event for event in TableEvent.__subclasses__()
}
"""Record type -> its event class."""

EVENT_TYPES: dict[str, type[TableEvent]] = {cls.__name__: cls for cls in EVENT_FOR.values()}


def _assemble(cls: type[TableEvent], fields: dict[str, Any]) -> TableEvent:
    """An event from already validated values (what ``model_construct`` does, minus defaults).

    Every field is present: the record was validated when the rules built it, and the
    envelope is set here.
    """
    event = cls.__new__(cls)
    object.__setattr__(event, "__dict__", fields)
    object.__setattr__(event, "__pydantic_fields_set__", set(fields))
    object.__setattr__(event, "__pydantic_extra__", None)
    object.__setattr__(event, "__pydantic_private__", None)
    return event


class Table:
    """One casino table: its current state, version and the head of its hash chain."""

    stored_topic: ClassVar[str]

    def __init__(self, opened: TableOpened) -> None:
        self.id: UUID = opened.originator_id
        self.version = 0
        self.created_on = opened.timestamp
        self.modified_on = opened.timestamp
        self.chain_head = GENESIS_HASH
        self.state = TableState(opened)
        self._pending: list[TableEvent] = []

    @classmethod
    def open(cls, record: r.TableOpened, command_id: str | None, now: datetime,
             actor: Actor | None = None) -> Table:
        event = TableOpened.model_construct(
            originator_id=table_id(record.code),
            originator_version=1,
            timestamp=now,
            prev_hash=GENESIS_HASH,
            command_id=command_id,
            actor=actor,
            **dict(record),
        )
        table = event.mutate(None)
        table._pending.append(event)
        return table

    def record(self, record: r.Record, command_id: str | None, now: datetime,
               actor: Actor | None = None, approval: Approval | None = None) -> TableEvent:
        """Append the event for ``record`` (already decided) and apply it."""
        fields = dict(record.__dict__)
        fields["originator_id"] = self.id
        fields["originator_version"] = self.version + 1
        fields["timestamp"] = now
        fields["prev_hash"] = self.chain_head
        fields["command_id"] = command_id
        fields["actor"] = actor
        fields["approval"] = approval
        event = _assemble(EVENT_FOR[type(record)], fields)
        event.mutate(self)
        self._pending.append(event)
        return event

    # the library's aggregate protocol -----------------------------------------------------

    @property
    def pending_events(self) -> list[TableEvent]:
        return self._pending

    def collect_events(self) -> list[TableEvent]:
        collected, self._pending = self._pending, []
        return collected


class TableSnapshot(BaseModel):
    """The state of a table at one version, so a cold load replays only what came after."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    class_version: ClassVar[int] = 1
    stored_topic: ClassVar[str]

    originator_id: UUID
    originator_version: int
    timestamp: datetime
    topic: str
    state: dict[str, Any]

    def stored_state(self) -> bytes:
        return self.model_dump_json(exclude=_ENVELOPE_IDS).encode()

    def keep_stored(self, stored: bytes) -> None:
        pass

    @classmethod
    def take(cls, table: Table) -> TableSnapshot:
        return cls(
            originator_id=table.id,
            originator_version=table.version,
            timestamp=datetime.now(UTC),
            topic=topic_of(Table),
            state={
                "table": table.state.to_snapshot(),
                "chain_head": table.chain_head,
                "created_on": table.created_on.isoformat(),
                "modified_on": table.modified_on.isoformat(),
            },
        )

    def mutate(self, _: Table | None) -> Table:
        table = Table.__new__(Table)
        table.id = self.originator_id
        table.version = self.originator_version
        table.created_on = datetime.fromisoformat(self.state["created_on"])
        table.modified_on = datetime.fromisoformat(self.state["modified_on"])
        table.chain_head = self.state["chain_head"]
        table.state = TableState.from_snapshot(self.state["table"])
        table._pending = []
        return table


def _name_stored_topics() -> None:
    """Give the stream's classes their stored topics and let the library resolve them."""
    classes: tuple[Any, ...] = (*EVENT_FOR.values(), Table, TableSnapshot)
    for cls in classes:
        cls.stored_topic = f"{STORED_MODULE}:{cls.__qualname__}"
        register_topic(cls.stored_topic, cls)


_name_stored_topics()
