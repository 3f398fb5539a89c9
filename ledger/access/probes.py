"""Refusals that depend on hidden cards, recorded where the floor and the auditor see them.

Some refusals cannot help telling something about a hand the caller cannot see: a High Card
Flush raise above the seat's cap (HCF-5: the cap is 3x, 2x or 1x Ante by the seat's flush) is
refused, and that the raise was refused is public by design; a Chinese Poker automatic win
(CHP-7) the hand as set does not hold is refused. The rules mark such a refusal private to the
seat (:meth:`ledger.domain.errors.LedgerError.private_to`); the caller who cannot see that seat's
cards gets the public text, and every such refusal is recorded here: table, hand, seat, what was
asked (action and amount), the code and rule, the token, the time. Probing a hand through
refusals so leaves a trace per attempt (``GET /tables/{code}/probes``, ``ledger audit
probes``).

The records live in an append-only table of the ledger's own database (``ledger_refused_probes``:
this module inserts and selects, never updates or deletes). :func:`record_refusal` is the one
entry point, so that the ledger's access log can take these records over when it exists.

Why no limit on attempts per seat and hand: the HCF-5 cap has three values, and two refused
raises (3x, then 2x) already tell which; a limit of one would refuse a player who asked 3x with
a 5-card flush the 2x raise the rules give. Recording every attempt makes probing visible
instead.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from eventsourcing.sqlite import SQLiteApplicationRecorder

PROBES_TABLE = "ledger_refused_probes"
_COLUMNS = "at, table_code, hand_no, seat, command, action, amount, code, rule, token_id"


@dataclass(frozen=True)
class RefusedProbe:
    """A refusal that depended on a seat's hidden cards, made to a caller who could not see
    them: HCF-5 raises above the seat's cap, CHP-7 declarations (also the API's answer)."""

    at: str
    table_code: str
    hand_no: int | None
    seat: int
    command: str
    action: str | None
    amount: int | None
    code: str
    rule: str | None
    token_id: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ProbeLog:
    """The refused probes of one ledger database (SQLite or PostgreSQL)."""

    def __init__(self, recorder: Any) -> None:
        self._recorder = recorder
        self._sqlite = isinstance(recorder, SQLiteApplicationRecorder)
        if self._sqlite:
            self._table, self._p = PROBES_TABLE, "?"
        else:
            self._table, self._p = f'"{recorder.datastore.schema}"."{PROBES_TABLE}"', "%s"
        self._ready = False

    def _setup(self, cursor: Any) -> None:
        if self._ready:
            return
        serial = "INTEGER PRIMARY KEY AUTOINCREMENT" if self._sqlite else "BIGSERIAL PRIMARY KEY"
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {self._table} (id {serial}, at TEXT NOT NULL, "
            "table_code TEXT NOT NULL, hand_no BIGINT, seat INTEGER NOT NULL, "
            "command TEXT NOT NULL, action TEXT, amount BIGINT, code TEXT NOT NULL, rule TEXT, "
            "token_id TEXT)")
        self._ready = True

    def record(self, probe: RefusedProbe) -> None:
        values = tuple(asdict(probe).values())
        marks = ", ".join([self._p] * len(values))
        with self._recorder.datastore.transaction(commit=True) as cursor:
            self._setup(cursor)
            cursor.execute(f"INSERT INTO {self._table} ({_COLUMNS}) VALUES ({marks})", values)

    def find(self, table_code: str | None = None, hand_no: int | None = None,
             limit: int = 1_000) -> list[RefusedProbe]:
        where: list[str] = []
        params: list[Any] = []
        if table_code is not None:
            where.append(f"table_code = {self._p}")
            params.append(table_code.upper())
        if hand_no is not None:
            where.append(f"hand_no = {self._p}")
            params.append(hand_no)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        with self._recorder.datastore.transaction(commit=True) as cursor:
            self._setup(cursor)
            cursor.execute(f"SELECT {_COLUMNS} FROM {self._table}{clause} ORDER BY id "
                           f"LIMIT {int(limit)}", tuple(params))
            rows = cursor.fetchall()
        return [RefusedProbe(*(tuple(r) if self._sqlite else tuple(r.values()))) for r in rows]


def record_refusal(log: ProbeLog, *, table_code: str, hand_no: int | None, seat: int,
                   command: str, action: str | None, amount: int | None, code: str,
                   rule: str | None, token_id: str | None) -> RefusedProbe:
    """Record one refusal that depended on ``seat``'s hidden cards, made to a caller who could
    not see them."""
    probe = RefusedProbe(at=datetime.now(UTC).isoformat(timespec="microseconds"),
                         table_code=table_code.upper(), hand_no=hand_no, seat=seat,
                         command=command, action=action, amount=amount, code=code, rule=rule,
                         token_id=token_id)
    log.record(probe)
    return probe
