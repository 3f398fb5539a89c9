"""Poker hand-history formats for Seven Card Stud Hi/Lo, the one implemented game they fit.

Which formats fit which game (the decision, with reasons):

- **PHH** (the TOML format of the ``pokerkit`` project) has a stud hi/lo variant, ``F7S/8``: the
  stud engineer's pure converter ``ledger.games.stud8.phh.hand_to_phh`` writes it; this module
  only feeds it the hand's records (read from the store at the versions the hands view gives),
  the stacks before the hand (from the bankrolls view) and the configuration in force (from the
  tables view). One ``.phh`` file per hand.
- **Open Hand History** (JSON, spec 1.4.6) has ``game_type`` ``StudHiLo`` with fixed limits
  (``FL``), antes, pots with rake and per-player wins: stud hi/lo fits it, with two documented
  stretches, since the spec names only flop-game streets and has no bring-in: rounds are named
  ``Third Street`` ... ``Seventh Street`` and ``Showdown``, and the bring-in is written as
  ``Post Extra Blind`` (a forced bet); stud has no button, so ``dealer_seat`` is 0. An action
  that puts a player all in carries ``is_allin``; an uncalled bet (STUD8-11) is a last pot its
  bettor takes back, so every hand balances (what was put in = the pots = the wins + the
  rake). Each winner's ``contributed_rake`` is its share of its pot's rake, in proportion to
  what it won there, so that they add up to the pot's ``rake``; ``site_name`` is the venue
  (``LEDGER_VENUE``). One ``.ohh`` file per day, hands separated by a blank line as the spec
  says.
- Each hand says whether standard tools replay it and, if not, which rules prevent it (PHH:
  ``_replayable`` / ``_not_replayable``; OHH: ``ledger_replayable`` / ``ledger_not_replayable``;
  see ``ledger.games.stud8.phh.replay_blockers``); the export counts both.
- A corrected hand (COR-1) is written as it was recorded and played (the actions, cards and
  finishing stacks of the record), with each correction beside it (PHH: ``_corrections``, OHH:
  ``ledger_corrections``): when and by which event, the cards corrected, each account's
  difference, who approved it and why; a seat correction (COR-3) covering the hand too. The
  formats have no place for a second settlement, so neither replays the corrected one.
- Caribbean Stud and High Card Flush are banked (by the house, by a designated player) and
  Chinese Poker is scored in points between pairs of players; neither format has a place for a
  banker, a paytable, coverage or points, so those games are exported as JSON Lines only.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ledger.domain.money import to_decimal
from ledger.games.stud8.model import StudConfig
from ledger.games.stud8.phh import hand_to_phh, replay_blockers
from ledger.store.fleet import store_of
from ledger.table.events import table_id
from projections.exports.accounting import Written
from projections.exports.files import replaced_directory
from projections.read.queries import ReadModel

STUD = "stud-hilo"
OHH_VERSION = "1.4.6"
STREETS = {"third_street": "Third Street", "fourth_street": "Fourth Street",
           "fifth_street": "Fifth Street", "sixth_street": "Sixth Street",
           "seventh_street": "Seventh Street"}
OHH_ACTIONS = {"bring_in": "Post Extra Blind", "complete": "Raise", "bet": "Bet",
               "raise": "Raise", "call": "Call", "check": "Check", "fold": "Fold"}


def hand_records(app: Any, hand: dict[str, Any]) -> list[Any]:
    """The hand's own events, read from the store between its first and last version (in a
    fleet, the store that holds the table)."""
    app = store_of(app, hand["table_code"])
    stored = app.recorder.select_events(table_id(hand["table_code"]),
                                        gt=hand["first_version"] - 1,
                                        lte=hand["last_version"])
    events = [app.mapper.to_domain_event(s) for s in stored]
    return [e for e in events if getattr(e, "hand_no", None) == hand["hand_no"]]


def correction_notes(hand: dict[str, Any], currency: str | None) -> list[str]:
    """One line per correction of the hand (COR-1, COR-3), amounts in ``currency``'s units."""
    notes = []
    for c in hand.get("corrections", ()):
        d = c["detail"]
        if c["kind"] == "hand":
            what = ", ".join(f"{_target(f['target'])}: recorded {f['recorded']}, was "
                             f"{f['actual']}" for f in d["fixes"])
            moved = ", ".join(f"{x['account']} {'+' if x['amount'] > 0 else '-'}"
                              f"{to_decimal(abs(x['amount']), currency)}" for x in d["differences"])
            what = f"{what}; {moved or 'no chips moved'}"
        else:
            what = (f"seat {d['seat']} was {d['player']}, recorded as {d['recorded_player']} "
                    f"(hands {d['from_hand']} to {d['to_hand']})")
        notes.append(f"{c['rule']} at version {c['version']} ({c['at']}): {what}; approved by "
                     f"{', '.join(c['approvers'])}: {c['reason']}")
    return notes


def _target(target: Any) -> str:
    return f"seat {target}" if isinstance(target, int) else str(target)


def starting_stacks(read: ReadModel, hand: dict[str, Any]) -> dict[int, int]:
    """Each seat's stack just before the hand started (minor units)."""
    balances = read.balances_at(hand["table_code"], hand["first_version"] - 1)
    return {s["seat"]: balances.get(f"player:{s['player']}", 0) for s in hand["seats"]}


def write_phh(app: Any, read: ReadModel, hands: list[dict[str, Any]], directory: Path,
              stem: str) -> list[Written]:
    """One ``.phh`` file per settled hand in ``directory/<stem>-phh/``, which is replaced as a
    whole: it holds this export's files and no others."""
    folder = directory / f"{stem}-phh"
    currency = {t["table_code"]: t["currency"] for t in read.tables()}
    zones = {t["table_code"]: t["timezone"] for t in read.tables()}
    written = []
    with replaced_directory(folder) as staging:
        for hand in hands:
            if hand["status"] != "settled":
                continue
            code = hand["table_code"]
            records = hand_records(app, hand)
            stacks = starting_stacks(read, hand)
            config = StudConfig.model_validate(read.config(code, hand["config_version"]))
            text = hand_to_phh(records, stacks, config, table=code, currency=currency.get(code),
                               started_at=local_start(hand, zones.get(code, "UTC")),
                               venue=venue_of(app))
            if hand.get("corrections"):
                text += f"_corrections = {json.dumps(correction_notes(hand, currency.get(code)))}\n"
            name = f"{_safe(code)}-{hand['hand_no']:06d}.phh"
            (staging / name).write_text(text, encoding="utf-8")
            blocked = replay_blockers(records, config, stacks)
            written.append(Written(folder / name, 1, replayable=int(not blocked),
                                   blocked=tuple((rule, 1) for rule, _ in blocked)))
    return written


def write_ohh(app: Any, read: ReadModel, hands: list[dict[str, Any]], directory: Path,
              stem: str) -> list[Written]:
    """The settled hands as one ``<stem>.ohh`` file."""
    path = directory / f"{stem}.ohh"
    currency = {t["table_code"]: t["currency"] for t in read.tables()}
    count = replayable = 0
    blocked: dict[str, int] = {}
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for hand in hands:
            if hand["status"] != "settled":
                continue
            config = read.config(hand["table_code"], hand["config_version"])
            stacks = starting_stacks(read, hand)
            document = ohh_hand(hand, stacks, config, currency.get(hand["table_code"], ""),
                                venue=venue_of(app))
            blockers = replay_blockers(hand_records(app, hand), StudConfig.model_validate(config),
                                       stacks)
            document["ohh"]["ledger_replayable"] = not blockers
            document["ohh"]["ledger_not_replayable"] = [f"{r}: {why}" for r, why in blockers]
            if hand.get("corrections"):
                document["ohh"]["ledger_corrections"] = correction_notes(
                    hand, currency.get(hand["table_code"]))
            replayable += not blockers
            for rule, _ in blockers:
                blocked[rule] = blocked.get(rule, 0) + 1
            code = currency.get(hand["table_code"]) or None
            fh.write(("\n" if count else "") + dumps(document, code) + "\n")
            count += 1
    return [Written(path, count, replayable=replayable, blocked=tuple(sorted(blocked.items())))]


def venue_of(app: Any) -> str:
    """The casino's name (``LEDGER_VENUE``)."""
    settings = getattr(app, "settings", None)
    return str(getattr(settings, "venue", None) or "table-ledger")


def local_start(hand: dict[str, Any], zone: str) -> datetime:
    """When the hand started, in the table's time zone."""
    at = datetime.fromisoformat(hand["started_at"].replace("Z", "+00:00"))
    return at.astimezone(ZoneInfo(zone))


def ohh_hand(hand: dict[str, Any], stacks: dict[int, int], config: dict[str, Any],
             currency: str, *, venue: str = "table-ledger") -> dict[str, Any]:
    """One stud hi/lo hand as an Open Hand History object (``{"ohh": {...}}``)."""
    ids = {s["seat"]: i for i, s in enumerate(hand["seats"])}
    players = [{"id": ids[s["seat"]], "seat": s["seat"], "name": s["player"],
                "display": s["player"], "starting_stack": _units(stacks.get(s["seat"], 0))}
               for s in hand["seats"]]
    rounds = _rounds(hand, ids, dict(stacks))
    return {"ohh": {
        "spec_version": OHH_VERSION, "site_name": venue,
        "network_name": "table-ledger", "internal_version": "1", "tournament": False,
        "game_number": f"{hand['table_code']}-{hand['hand_no']}",
        "start_date_utc": hand["started_at"].rstrip("Z").split(".")[0],
        "table_name": hand["table_code"], "game_type": "StudHiLo",
        "bet_limit": {"bet_type": "FL", "bet_cap": _units(0)}, "table_size": 8,
        "currency": currency, "dealer_seat": 0, "small_blind_amount": _units(0),
        "big_blind_amount": _units(0), "ante_amount": _units(int(config.get("ante", 0))),
        "flags": [], "players": players, "rounds": rounds, "pots": _pots(hand, ids),
    }}


def _rounds(hand: dict[str, Any], ids: dict[int, int], behind: dict[int, int]
            ) -> list[dict[str, Any]]:
    """The rounds; ``behind`` (each seat's stack before the hand) tells which action put a
    player all in (``is_allin``)."""

    def put_in(seat: int, amount: int, item: dict[str, Any]) -> dict[str, Any]:
        behind[seat] = behind.get(seat, 0) - amount
        if amount and behind[seat] <= 0:
            item["is_allin"] = True
        return item

    actions = sorted(hand["actions"], key=lambda a: a["version"])
    deals = sorted(hand["cards"], key=lambda c: c["version"])
    reveals = {r["target"]: r["cards"] for r in hand["reveals"]}
    rounds: list[dict[str, Any]] = []
    number = 0
    for i, deal in enumerate(deals):
        upto = deals[i + 1]["version"] if i + 1 < len(deals) else None
        items: list[dict[str, Any]] = []
        if i == 0:
            items += [put_in(a["seat"], a["amount_minor"],
                             {"player_id": ids[a["seat"]], "action": "Post Ante",
                              "amount": _units(a["amount_minor"])})
                      for a in actions if a["type"] == "wager" and a["version"] < deal["version"]]
        board: list[str] = []
        for d in deal["dealt"]:
            if d["target"] == "community":
                board += d["up"]
            elif isinstance(d["target"], int):
                items.append({"player_id": ids[d["target"]], "action": "Dealt Cards",
                              "cards": d["down"] + d["up"]})
        for a in actions:
            if a["type"] == "act" and a["action"] in OHH_ACTIONS and \
                    a["version"] > deal["version"] and (upto is None or a["version"] < upto):
                item: dict[str, Any] = {"player_id": ids[a["seat"]],
                                        "action": OHH_ACTIONS[a["action"]]}
                if a["amount_minor"]:
                    item["amount"] = _units(a["amount_minor"])
                items.append(put_in(a["seat"], a["amount_minor"], item))
        rounds.append({"id": i, "street": STREETS.get(deal["round"], deal["round"]),
                       "cards": board, "actions": _numbered(items, number)})
        number += len(items)
    showdown = []
    for a in actions:
        if a["type"] == "act" and a["action"] in ("show", "muck"):
            item = {"player_id": ids[a["seat"]],
                    "action": "Shows Cards" if a["action"] == "show" else "Mucks Cards"}
            if a["action"] == "show":
                item["cards"] = reveals.get(a["seat"], [])
            showdown.append(item)
    if showdown:
        rounds.append({"id": len(rounds), "street": "Showdown", "cards": [],
                       "actions": _numbered(showdown, number)})
    return rounds


def _numbered(items: list[dict[str, Any]], start: int) -> list[dict[str, Any]]:
    return [{"action_number": start + k, **item} for k, item in enumerate(items)]


def _pots(hand: dict[str, Any], ids: dict[int, int]) -> list[dict[str, Any]]:
    """The pots and who won what; an uncalled bet (STUD8-11: in no pot, returned to its seat)
    is written as a last pot its bettor takes back unraked, since OHH has no action for a
    returned bet: what the players put in then equals what the pots hold."""
    result = hand["result"]
    pots = []
    for pot in result.get("pots", []):
        wins: dict[int, int] = {}
        for o in result.get("outcomes", []):
            if o["wager"] == f"pot{pot['index']}" and o["result"] in ("win", "split", "scoop"):
                wins[o["seat"]] = wins.get(o["seat"], 0) + o["stake"] + o["amount"]
        shares = rake_shares(int(pot.get("rake", 0)), wins)
        pots.append({"number": pot["index"], "amount": _units(pot["amount"]),
                     "rake": _units(pot.get("rake", 0)), "jackpot": _units(0),
                     "player_wins": [{"player_id": ids[seat], "win_amount": _units(won),
                                      "contributed_rake": _units(shares[seat])}
                                     for seat, won in sorted(wins.items())]})
    for returned in result.get("uncalled", []):
        pots.append({"number": len(pots), "amount": _units(returned["amount"]),
                     "rake": _units(0), "jackpot": _units(0),
                     "player_wins": [{"player_id": ids[returned["seat"]],
                                      "win_amount": _units(returned["amount"]),
                                      "contributed_rake": _units(0)}]})
    return pots


def rake_shares(rake: int, wins: dict[int, int]) -> dict[int, int]:
    """A pot's rake shared among its winners in proportion to what each won from it, in whole
    minor units that add up to the rake exactly (the remainders, largest first, to the seats
    in order): OHH's ``contributed_rake``. The rake is taken before the split (STUD8-11), so
    each winner gave up that share of it."""
    total = sum(wins.values())
    if not rake or not total:
        return {seat: 0 for seat in wins}
    shares = {seat: rake * won // total for seat, won in wins.items()}
    left = rake - sum(shares.values())
    order = sorted(wins, key=lambda seat: (-(rake * wins[seat] % total), seat))
    for seat in order[:left]:
        shares[seat] += 1
    return shares


# --- exact decimals in JSON --------------------------------------------------------------

_MARK = "@@minor@@"
_MARKED = re.compile('"' + _MARK + r'(-?\d+)"')


def _units(amount_minor: int) -> str:
    """An amount, written by :func:`dumps` as an exact JSON number in the currency's units."""
    return f"{_MARK}{int(amount_minor)}"


def dumps(document: dict[str, Any], currency: str | None = None) -> str:
    """JSON with the amounts as plain numbers in ``currency``'s decimals (ISO 4217: ``12.50``
    EUR, ``1250`` JPY, ``1.250`` KWD), never through a float."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return _MARKED.sub(lambda m: str(to_decimal(int(m.group(1)), currency)), text)


def _safe(code: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", code)
