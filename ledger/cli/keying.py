"""What ``ledger tables`` shares: a device's command sent through the application, as the HTTP
API sends it (``ledger.domain.commands.command_from``, then ``execute``), and its answer printed:
the events appended, what the table waits for next and, at the end of a hand, each seat's
result; with ``--json`` the HTTP API's answer (``command_id``, ``command``, ``table``,
``table_version``, ``replayed``, ``events``, ``hand_no``, ``step``, ``results``).

Amounts are typed in the table's currency units (``500``, ``12.50``) and shown in them. The
face-down cards of an ``rng`` table's hand in progress are never printed (``??``, ``null`` in
JSON): they come from the ledger's sealed deck (COM-8); a ``recorded`` table's are those the
person at the keyboard keyed in.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, cast

import typer

from ledger.cli.common import DATABASE_OPTION, ledger_app

COMMAND_ID = typer.Option(None, "--command-id", help="Idempotency key (default: a new one); the "
                          "same key again appends nothing and prints the first answer.")
AS_JSON = typer.Option(False, "--json", help="Print the answer as the HTTP API gives it: the "
                       "events appended, the hand number, the next step, the seats' results.")
DATABASE = DATABASE_OPTION


def send(name: str, table: str, fields: dict[str, Any], command_id: str | None,
         as_json: bool, database_url: str | None, *,
         amounts: tuple[str, ...] = ()) -> None:
    """Build command ``name`` for ``table`` from ``fields`` (those named in ``amounts`` typed
    in the table's currency units), execute it and print the answer."""
    from ledger.domain.commands import command_from
    from ledger.domain.records import HAND_ENDINGS, Record
    from ledger.domain.results import hand_results
    from ledger.store.history import hand_events

    data = {**fields, "command_id": command_id or f"cli-{uuid.uuid4().hex[:16]}",
            "table": table}
    with ledger_app(database_url) as ledger:
        if amounts:
            currency = ledger.load(table).state.currency
            for key in amounts:
                if data.get(key) is not None:
                    data[key] = typed_amount(key, str(data[key]), currency)
        result = ledger.execute(command_from(name, data))
        answer = result.as_dict()
        with ledger.peeking(result.table) as now:
            state = now.state
            answer["hand_no"] = state.hand_no
            answer["step"] = state.next_step().model_dump(mode="json")
            currency, game = state.currency, state.game.name
            hidden = state.hand is not None and state.config.card_source != "recorded"
        endings = {cls.__name__ for cls in HAND_ENDINGS}
        ending = next((e for e in answer["events"] if e.get("type") in endings), None)
        answer["results"] = None
        if ending is not None:
            records = cast(list[Record], hand_events(ledger, result.table,
                                                     int(ending["hand_no"])))
            found = hand_results(records)
            answer["results"] = None if found is None else found.model_dump(mode="json")
    if hidden:
        mask_face_down(answer["events"])
    if as_json:
        typer.echo(json.dumps(answer))
        return
    for line in answer_lines(answer, currency, game):
        typer.echo(line)


def typed_amount(option: str, text: str, currency: str) -> int:
    """An amount typed in ``currency``'s units, in its minor units (``invalid_amount``)."""
    from ledger.domain.errors import InvalidInput
    from ledger.domain.money import units_to_minor

    try:
        return units_to_minor(text, currency)
    except InvalidInput as exc:
        raise InvalidInput(exc.code, f"{option.replace('_', ' ')}: {exc.message}",
                           **exc.details) from None


def mask_face_down(events: list[dict[str, Any]]) -> None:
    """Face-down cards of the answer's deals as ``null`` (an ``rng`` hand in progress)."""
    for event in events:
        if event.get("type") == "CardsDealt":
            for dealt in event.get("dealt", ()):
                dealt["down"] = [None] * len(dealt.get("down", ()))


def answer_lines(answer: dict[str, Any], currency: str, game: str) -> list[str]:
    """The answer as text: ``v12 ...`` per event with its chip movements, what comes next and,
    when a hand ended, each seat's result."""
    from ledger.domain.results import HandResults
    from ledger.table.describe import results_lines

    out = []
    for event in answer["events"]:
        lines = event_lines(event, currency, game)
        out.append(f"v{event['version']} {lines[0]}")
        out.extend(f"  {line}" for line in lines[1:])
    if answer["replayed"]:
        out.append("(already recorded under this command id: nothing appended)")
    if answer.get("results"):
        out.extend(results_lines(HandResults.model_validate(answer["results"]), currency))
    out.append(step_line(answer["step"], answer["hand_no"], currency))
    return out


def event_lines(event: dict[str, Any], currency: str, game: str) -> list[str]:
    """One event of an answer as ``ledger replay`` describes it (masked deals as ``??``)."""
    from ledger.domain.records import Record
    from ledger.table.describe import describe, transfer_line
    from ledger.table.events import ENVELOPE, EVENT_TYPES

    if event.get("type") == "CardsDealt" and any(
            None in d.get("down", ()) for d in event.get("dealt", ())):
        parts = [f"{_target(d['target'])}: " + " ".join(
            ([f"down {' '.join(c or '??' for c in d['down'])}"] if d["down"] else [])
            + ([f"up {' '.join(d['up'])}"] if d.get("up") else []))
            for d in event["dealt"]]
        return [f"deal {event['round'].replace('_', ' ')}", *parts]
    record_type: type[Record] = EVENT_TYPES[event["type"]].__bases__[1]
    record = record_type.model_validate(
        {k: v for k, v in event.items() if k not in {"type", "version", *ENVELOPE}})
    lines = describe(record, currency, game)
    lines += [transfer_line(t, currency) for t in getattr(record, "transfers", ())]
    return lines


def _target(target: Any) -> str:
    return f"seat {target}" if isinstance(target, int) else str(target)


def step_line(step: dict[str, Any], hand_no: int, currency: str) -> str:
    """What the table waits for now, in one line."""
    from ledger.domain.money import format_amount

    def amount(minor: int) -> str:
        return format_amount(minor, currency)

    kind = step["kind"]
    if kind == "over":
        return f"next: start hand {hand_no + 1} (`ledger tables start`)"
    seats = ", ".join(str(s) for s in step.get("seats", ()))
    options = []
    for o in step.get("options", ()):
        if o["min_amount"] or o["max_amount"]:
            span = amount(o["min_amount"]) if o["min_amount"] == o["max_amount"] else \
                f"{amount(o['min_amount'])}..{amount(o['max_amount'])}"
            options.append(f"{o['action']} {span}")
        else:
            options.append(o["action"])
    text = f"next (hand {hand_no}): {kind}"
    if seats:
        text += f" by seat{'s' if len(step['seats']) > 1 else ''} {seats}"
    if options:
        text += f": {', '.join(options)} ({currency})"
    plan = step.get("deal")
    if plan:
        slots = ", ".join(f"{_target(s['target'])} {s['down']} down"
                          + (f" {s['up']} up" if s["up"] else "") for s in plan["slots"])
        text += f"; deal {plan['round'].replace('_', ' ')}: {slots}"
    if step.get("note"):
        text += f" ({step['note']})"
    return text


def parse_cards(option: str, text: str) -> tuple[str, list[str]]:
    """``1=As,Ad,Kc,7h,2s`` (or ``dealer=Qh Jd 9c 4s 8d``) as (target, cards)."""
    from ledger.domain.errors import InvalidInput

    target, sep, cards = text.partition("=")
    found = [c for c in cards.replace(",", " ").split() if c]
    if not sep or not target.strip() or not found:
        raise InvalidInput("invalid_cards", f"{option} {text!r}: write TARGET=CARDS, e.g. "
                           "1=As,Ad,Kc,7h,2s or dealer=Qh,Jd,9c,4s,8d (a seat number, dealer "
                           "or community)")
    return target.strip().lower(), found


def card_list(option: str, text: str | None) -> list[str] | None:
    """``As,Kd,Qh`` (or spaces) as a list of card texts."""
    from ledger.domain.errors import InvalidInput

    if text is None:
        return None
    found = [c for c in text.replace(",", " ").split() if c]
    if not found:
        raise InvalidInput("invalid_cards", f"{option}: give the cards, e.g. As,Kd,Qh")
    return found


def settings_from(pairs: list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` as configuration entries; a value that reads as JSON (a number,
    true, a list, an object) is taken as that, anything else as text. A dotted key sets a
    nested entry (``jackpot.seed=500000``)."""
    from ledger.domain import jsontext
    from ledger.domain.errors import InvalidInput
    from ledger.domain.jsontext import DuplicateKey

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidInput("invalid_setting_option", f"--set {pair!r}: write KEY=VALUE, "
                               "e.g. card_source=recorded or ante_min=500")
        try:
            value: Any = jsontext.loads(text, f"--set {key.strip()}")
        except DuplicateKey:
            raise
        except ValueError:
            value = text
        node = out
        parts = key.strip().split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise InvalidInput("invalid_setting_option", f"--set {pair!r}: {part} is not "
                                   "a group of settings here")
            node = child
        node[parts[-1]] = value
    return out
