"""The hands view: every hand, enough to show it without reading events.

One row per (table, hand): game, gaming day (of its start), times, status (``in_progress``,
``settled``, ``voided``, ``cancelled``), button and designated player, seats, the cards by
round, every wager and decision in order, the reveals, the settlement (outcomes with their
rule ids, transfers, jackpot lines, coverage with what each seat paid in and was paid, pots and
the uncalled bet returned, points, rake, and each seat's result: ``ledger.domain.results``), the
rules the hand cites (``rules``), the revealed deck, who started and ended the hand and who
sent each decision (the events' actors: ``token:<id> (role, label)`` or ``cli:<name>
(unauthenticated command line)``), the dealer on duty (DLR-2), and totals: chips wagered (moved from
stacks into wager spots and pots; in Chinese Poker the stakes put in play), rake (the rake account's
change over the hand), jackpot contributions and awards, the house's result (its account's change)
and the designated player's (HCF-14), and what caps withheld. Cards are written ``As``; amounts are
integer minor units.

``proj_hand_paid_rules`` holds, per ended hand, the rules under which its ending paid (one row
per rule, :func:`paid_rules`): what ``ledger hands --rule`` searches.

The face-down cards of a hand in progress are kept here (it is a back-office view) but the
query layer hides them until the hand has ended.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from ledger.domain import accounts
from ledger.domain import records as r
from ledger.domain.actors import Actor, actor_text
from ledger.domain.cards import card_list
from ledger.domain.results import HandTally
from ledger.games.hcf.settlement import coverage_flows
from projections.views.base import KEEP_AT_MOST, Item, View, dumps_ints, field_of

HANDS_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_hands} ("
    "table_code TEXT NOT NULL, hand_no BIGINT NOT NULL, game TEXT NOT NULL, "
    "gaming_day TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL, "
    "button INTEGER, dp_seat INTEGER, card_source TEXT NOT NULL, config_version INTEGER NOT NULL, "
    "deck_commitment TEXT, first_version BIGINT NOT NULL, last_version BIGINT NOT NULL, "
    "players INTEGER NOT NULL, seats_json TEXT NOT NULL, cards_json TEXT NOT NULL, "
    "actions_json TEXT NOT NULL, reveals_json TEXT NOT NULL, result_json TEXT NOT NULL, "
    "rules TEXT NOT NULL, wagered_minor BIGINT NOT NULL, rake_minor BIGINT NOT NULL, "
    "jackpot_contributions_minor BIGINT NOT NULL, jackpot_awards_minor BIGINT NOT NULL, "
    "house_result_minor BIGINT NOT NULL, dp_result_minor BIGINT, withheld_minor BIGINT NOT NULL, "
    "dealer TEXT, PRIMARY KEY (table_code, hand_no))"
)
JSON_COLUMNS = ("seats_json", "cards_json", "actions_json", "reveals_json", "result_json")
COLUMNS = (
    "table_code", "hand_no", "game", "gaming_day", "started_at", "ended_at", "status", "button",
    "dp_seat", "card_source", "config_version", "deck_commitment", "first_version",
    "last_version", "players", *JSON_COLUMNS, "rules", "wagered_minor", "rake_minor",
    "jackpot_contributions_minor", "jackpot_awards_minor", "house_result_minor",
    "dp_result_minor", "withheld_minor", "dealer",
)
PAID_DDL = (
    "CREATE TABLE IF NOT EXISTS {proj_hand_paid_rules} (table_code TEXT NOT NULL, "
    "hand_no BIGINT NOT NULL, rule TEXT NOT NULL, PRIMARY KEY (table_code, hand_no, rule))"
)
PAID_COLUMNS = ("table_code", "hand_no", "rule")
PAYING_RESULTS = frozenset({"dead", "returned"})
"""Results by which a rule gives a seat its wagers back (HCF-12 dead hand, STUD8-11 uncalled
bet): they count as paying under that rule (:func:`paid_rules`)."""
ENDINGS = {r.HandSettled: "settled", r.HandVoided: "voided", r.HandCancelled: "cancelled"}
TALLY = "tally"
"""Key of the running per-seat tally in the result of a hand in progress
(``ledger.domain.results``)."""
DP_WAGER = "designated_player"


class Hands(View):
    name = "hands"
    description = "every hand: seats, cards, actions, results, rule ids"
    version = 4
    tables = ("proj_hands", "proj_hand_paid_rules")
    added_columns = (("proj_hands", "dealer", "TEXT"),)
    ddl = (
        HANDS_DDL,
        PAID_DDL,
        "CREATE INDEX IF NOT EXISTS proj_hands_day ON {proj_hands} (gaming_day, table_code)",
    )

    def reset(self) -> None:
        self._rows: dict[tuple[str, int], dict[str, Any]] = {}
        self._new: set[tuple[str, int]] = set()
        self._tallies: dict[tuple[str, int], HandTally] = {}
        """The running tally of each hand in progress this batch (written out in flush)."""
        self._carried: dict[tuple[str, int], dict[str, Any]] = {}
        """The new rows of hands in progress that a flush while keeping left unwritten."""
        self._paid: list[tuple[str, int, str]] = []
        """``proj_hand_paid_rules`` rows of the hands ended this batch."""

    def handle(self, item: Item) -> None:
        isa = item.isa
        if r.HandRecord not in isa:
            return
        event: Any = item.event
        key = (item.code, event.hand_no)
        if r.HandStarted in isa:
            self._rows[key] = _started(item, event)
            self._new.add(key)
            self._tallies[key] = HandTally()
            self._tallies[key].add(event)
            return
        row = self._rows.get(key) or self._load(key)
        if row is None:  # a hand event without its start: the audit reports the stream
            return
        row["last_version"] = item.version
        tally = self._tallies.get(key)
        if tally is None:
            tally = HandTally.from_json(row["result_json"].get(TALLY) or {
                "hand_no": event.hand_no, "lines": {}, "seats": []})
            self._tallies[key] = tally
        _fold(row, item, event, tally)
        if _ending(event.__class__) is not None:  # the hand's results replaced its tally
            del self._tallies[key]
            self._paid.extend((item.code, event.hand_no, rule) for rule in sorted(
                paid_rules(event)))

    def _load(self, key: tuple[str, int]) -> dict[str, Any] | None:
        row = self.tx.fetchone(
            f"SELECT {', '.join(COLUMNS)} FROM {{proj_hands}} WHERE table_code = ? AND "
            "hand_no = ?", key,
        )
        if row is None:
            return None
        for column in JSON_COLUMNS:
            row[column] = json.loads(row[column])
        row["rules"] = set(filter(None, row["rules"].split(",")))
        self._rows[key] = row
        return row

    def flush(self) -> None:
        keep = self.keeping and len(self._rows) <= KEEP_AT_MOST
        inserts, updates = [], []
        for key, row in self._rows.items():
            if keep and row["status"] == "in_progress" and key in self._new:
                self._carried[key] = row  # written once, when the hand has ended
                continue
            tally = self._tallies.get(key)
            if tally is not None:
                row["result_json"][TALLY] = tally.to_json()
            values = [_stored(row, c) for c in COLUMNS]
            if key in self._new:
                inserts.append(values)
            else:
                updates.append(values[2:] + values[:2])
        self.tx.insert("proj_hands", COLUMNS, inserts)
        self.tx.insert("proj_hand_paid_rules", PAID_COLUMNS, self._paid)
        self._paid = []
        assignments = ", ".join(f"{c} = ?" for c in COLUMNS[2:])
        self.tx.executemany(
            f"UPDATE {{proj_hands}} SET {assignments} WHERE table_code = ? AND hand_no = ?",
            updates,
        )

    def kept(self) -> None:
        carried, tallies = self._carried, self._tallies
        self.reset()
        self._rows = carried
        self._new = set(carried)
        self._tallies = {key: tallies[key] for key in carried if key in tallies}


def _stored(row: dict[str, Any], column: str) -> Any:
    value = row[column]
    if column in JSON_COLUMNS:
        return dumps_ints(value)
    if column == "rules":
        return ",".join(sorted(value))
    return value


def _started(item: Item, event: r.HandStarted) -> dict[str, Any]:
    row: dict[str, Any] = {
        "table_code": item.code, "hand_no": event.hand_no, "game": item.table.game,
        "gaming_day": item.day, "started_at": item.at, "ended_at": None,
        "status": "in_progress", "button": event.button, "dp_seat": None,
        "card_source": event.card_source, "config_version": event.config_version,
        "deck_commitment": event.deck_commitment, "first_version": item.version,
        "last_version": item.version, "players": len(event.seats),
        "seats_json": [{"seat": e.seat, "player": e.player} for e in event.seats],
        "cards_json": [], "actions_json": [], "reveals_json": [], "result_json": {},
        "rules": set(), "wagered_minor": 0, "rake_minor": 0,
        "jackpot_contributions_minor": 0, "jackpot_awards_minor": 0,
        "house_result_minor": 0, "dp_result_minor": None, "withheld_minor": 0,
        "dealer": event.dealer,
    }
    _money(row, item)
    row["result_json"] = {TALLY: None, "started_by": _actor(item)}
    return row


def _fold(row: dict[str, Any], item: Item, event: Any, tally: HandTally) -> None:
    """Fold one hand event into its row (``tally``: the hand's running per-seat tally)."""
    _money(row, item)
    tally.add(event)
    rule = field_of(event, "rule")
    if rule:
        row["rules"].add(rule)
    isa = item.isa
    if r.WagerPlaced in isa:
        row["actions_json"].append({"version": item.version, "at": item.at,
                                    "actor": _actor(item), "type": "wager", "seat": event.seat,
                                    "action": event.kind, "amount_minor": event.amount,
                                    "rule": event.rule})
    elif r.RoleOffered in isa:
        row["actions_json"].append({"version": item.version, "at": item.at,
                                    "actor": _actor(item), "type": "offer", "seat": event.seat,
                                    "action": event.role, "amount_minor": 0, "rule": None})
    elif r.PlayerActed in isa:
        _acted(row, item, event)
    elif r.CardsDealt in isa:
        row["cards_json"].append({"round": event.round, "version": item.version, "dealt": [
            {"target": d.target, "down": card_list(d.down), "up": card_list(d.up)}
            for d in event.dealt
        ]})
    elif r.CardsRevealed in isa:
        row["reveals_json"].append({"version": item.version, "target": event.target,
                                    "cards": card_list(event.cards)})
    else:
        status = _ending(event.__class__)
        if status is None:
            return
        row["status"] = status
        row["ended_at"] = item.at
        started_by = row["result_json"].get("started_by")
        _ended(row, event, tally)
        row["result_json"].update(started_by=started_by, ended_by=_actor(item))


@cache
def _ending(cls: type) -> str | None:
    """The status a hand ends with at an event of class ``cls`` (None: it goes on)."""
    return next((s for c, s in ENDINGS.items() if issubclass(cls, c)), None)


def _actor(item: Item) -> str | None:
    """Who sent the command behind this event (None for events recorded before actors)."""
    actor = field_of(item.event, "actor")
    if actor is None:
        return None
    if type(actor) is not Actor:
        return actor_text(actor)
    key = (actor.id, actor.role, actor.label)
    text = _ACTORS.get(key)
    if text is None:
        if len(_ACTORS) >= 4096:
            _ACTORS.clear()
        text = _ACTORS[key] = actor_text(actor)
    return text


_ACTORS: dict[tuple[Any, ...], str] = {}
"""The text of each actor seen lately (``actor_text``: of the actor's three fields)."""


def _acted(row: dict[str, Any], item: Item, event: r.PlayerActed) -> None:
    action: dict[str, Any] = {"version": item.version, "at": item.at, "actor": _actor(item),
                              "type": "act", "seat": event.seat, "action": event.action,
                              "amount_minor": event.amount, "rule": event.rule}
    if event.segments is not None:
        action["segments"] = [card_list(s) for s in event.segments]
    if event.declaration is not None:
        action["declaration"] = event.declaration
    row["actions_json"].append(action)
    if event.action == "accept":
        row["dp_seat"] = event.seat


def _ended(row: dict[str, Any], event: r.HandRecord, tally: HandTally) -> None:
    result: dict[str, Any] = {"results": tally.results(event).model_dump(mode="json")}
    if isinstance(event, r.HandSettled):
        result["outcomes"] = [o.model_dump(mode="json") for o in event.outcomes]
        result["max_aggregate_payout_minor"] = event.max_aggregate_payout
        for section in ("jackpot", "pots", "points", "rake"):
            values = getattr(event, section)
            if values:
                result[section] = [v.model_dump(mode="json") for v in values]
        returned = [{"seat": o.seat, "amount": o.stake, "rule": o.rule}
                    for o in event.outcomes if o.wager == "uncalled"]
        if returned:  # STUD8-11: returned to its seat, in no pot
            result["uncalled"] = returned
        if event.coverage is not None:
            result["coverage"] = event.coverage.model_dump(mode="json")
            flows = coverage_flows(event)
            for line in result["coverage"]["lines"]:
                line["paid_in"], line["paid"] = flows[line["seat"]]
        row["rules"].update(o.rule for o in event.outcomes)
        row["rules"].update(j.rule for j in event.jackpot)
        row["rules"].update(k.rule for k in event.rake)
        if event.coverage is not None:
            row["rules"].add("HCF-12")
        row["jackpot_awards_minor"] += sum(j.amount for j in event.jackpot)
        row["withheld_minor"] += sum(o.withheld for o in event.outcomes)
        dp = [o.amount for o in event.outcomes if o.wager == DP_WAGER]
        if dp:
            row["dp_result_minor"] = sum(dp)
    else:
        result["reason"] = getattr(event, "reason", None)
        approved_by = getattr(event, "approved_by", None)
        if approved_by:
            result["approved_by"] = approved_by
        rule = getattr(event, "rule", None)
        if rule:
            row["rules"].add(rule)
    transfers: tuple[r.Transfer, ...] = getattr(event, "transfers", ())
    result["transfers"] = [t.model_dump(mode="json", exclude_none=True) for t in transfers]
    deck = getattr(event, "deck", None)
    if deck is not None:
        result["deck"] = card_list(deck)
        result["salt"] = getattr(event, "salt", None)
    row["result_json"] = result


def paid_rules(event: r.HandRecord) -> set[str]:
    """The rules under which a hand's ending paid: in a settlement, an outcome in its owner's
    favour (a wager won, a designated player's net win, winnings a cap withheld, the wagers
    given back to a dead hand or an uncalled bet), a jackpot award and a rake taken; a void or a
    cancellation under its own rule (COM-5). A wager lost is no payment: every Caribbean Stud
    hand with a jackpot wager cites CSP-6 for it, and only the hands that paid an award count
    CSP-6 here."""
    if not isinstance(event, r.HandSettled):
        rule = getattr(event, "rule", None)
        return {rule} if rule else set()
    paid = {o.rule for o in event.outcomes
            if o.amount > 0 or o.withheld > 0 or o.result in PAYING_RESULTS}
    paid.update(j.rule for j in event.jackpot)
    paid.update(k.rule for k in event.rake if k.amount > 0)
    return paid


def _money(row: dict[str, Any], item: Item) -> None:
    transfers = item.transfers
    if not transfers:
        return
    rules = row["rules"]
    for t in transfers:
        if t.rule:
            rules.add(t.rule)
        src = t.src
        if src.startswith("spot:"):
            if t.dst == accounts.JACKPOT:
                row["jackpot_contributions_minor"] += t.amount
        elif src.startswith("player:") and t.dst.startswith("spot:"):
            row["wagered_minor"] += t.amount
    flows = item.flows
    row["rake_minor"] += flows.get(accounts.RAKE, 0)
    row["house_result_minor"] += flows.get(accounts.HOUSE, 0)
