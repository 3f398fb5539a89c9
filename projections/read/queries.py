"""Queries over the views: the read API of the ledger (CLI, exports, HTTP).

Every method returns plain rows: ``dict``s of JSON-ready values (str, int, None, lists and dicts
of those). Conventions:

- amounts are integer minor units in keys ending ``_minor``; the currency is the table's;
- times are ISO-8601 UTC text (``2026-03-14T22:05:13.123456Z``); gaming days ``YYYY-MM-DD``;
- cards are text (``As``, ``Td``);
- list methods take ``limit`` / ``offset`` and return rows in a stable order;
- a table, hand or account that does not exist raises :class:`~ledger.domain.errors.NotFound`
  (``unknown_table``, ``unknown_hand``); an empty result is an empty list.

The views are as current as their last catch-up (:class:`projections.views.runner.Runner`); call
``Runner(app).catch_up()`` first when reading right after writing, and
``Runner(app).status()`` to show how far each view has got.

Methods (all keyword filters optional; ``table`` is a table code, case-insensitive; ``day`` a
gaming day ``YYYY-MM-DD``):

==========================================  ====================================================
``tables()`` / ``table(code)``              tables: game, currency, timezone, hands, versions
``table_configs(code)`` / ``config(c, v)``  configuration history / the configuration at v
``gaming_days(table)``                      days with activity, newest first
``hands(table, day, game, status, ...)``    hand summaries (no cards)
``hand(table, hand_no, show_hidden)``       one hand in full
``hands_full(day, table)``                  every ended hand of a day in full (exports)
``balances(table, prefix, nonzero)``        account balances per table
``player_totals()``                         each player's chips over all tables
``movements(table, account, ...)``          an account's movements, oldest first
``balances_at(table, version)``             every balance just after an event
``bankroll_day(day, table)``                opening / in / out / closing per account for a day
``coverage(table, day, ...)``               HCF coverage per hand with its lines
``rake_totals(day, table)``                 rake per table, game, method and day
``rake_lines(table, day, ...)``             every rake line
``jackpot_meters()``                        the meter of every jackpot table
``jackpot_moves(table, day, kind, ...)``    every jackpot movement with the meter after it
``accounting(day, table)``                  drop, cash-outs, house win, hold %, rake, jackpot, DP
``dp_results(day, table)``                  designated players' results per player and day
``corrections(table, day, hand, kind, ...)``  every correction (COR-1..5), oldest first
==========================================  ====================================================
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ledger.domain.errors import NotFound
from projections.db import Row, Store
from projections.read import correction_queries as cq
from projections.views.hands import COLUMNS as HAND_COLUMNS
from projections.views.hands import JSON_COLUMNS

HAND_SUMMARY = (
    "table_code", "hand_no", "game", "gaming_day", "started_at", "ended_at", "status", "button",
    "dp_seat", "players", "rules", "wagered_minor", "rake_minor", "jackpot_contributions_minor",
    "jackpot_awards_minor", "house_result_minor", "dp_result_minor", "withheld_minor",
)
MAX_LIMIT = 10_000


class ReadModel:
    """Read-only queries on the views of one ledger store.

    ``ensure_schema`` creates the view tables when they do not exist yet (empty views answer
    with empty lists); pass False when the caller has done it once (a long-running service).
    """

    def __init__(self, app: Any, *, ensure_schema: bool = True) -> None:
        self.store = Store(app.recorder)
        if ensure_schema and not getattr(app, "replica", False):  # a standby creates nothing
            from projections.views.runner import Runner

            Runner(app).setup()

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Row]:
        return self.store.fetchall(sql, params)

    @contextmanager
    def snapshot(self) -> Iterator[ReadModel]:
        """These queries, all reading one consistent snapshot of the store for the duration
        of the block (an export's files agree with each other while tables play)."""
        from projections.audit.reader import pinned

        with pinned(self.store) as store:
            view = copy.copy(self)
            view.store = store
            yield view

    # --- tables ----------------------------------------------------------------------------

    def tables(self) -> list[Row]:
        """Every table: code, game, currency, timezone, opened_at/by, config_version, hands,
        last_version, last_event_at."""
        return self._all("SELECT table_code, table_id, game, currency, timezone, opened_at, "
                         "opened_by, config_version, hands, last_version, last_event_at "
                         "FROM {proj_tables} ORDER BY table_code")

    def table(self, code: str) -> Row:
        """One table (``unknown_table`` when the views have never seen it)."""
        rows = self._all("SELECT table_code, table_id, game, currency, timezone, opened_at, "
                         "opened_by, config_version, hands, last_version, last_event_at FROM "
                         "{proj_tables} WHERE UPPER(table_code) = ?", (code.strip().upper(),))
        if rows:
            return rows[0]
        raise NotFound("unknown_table", f"no table {code!r} in the projections; open tables: "
                       f"{', '.join(r['table_code'] for r in self.tables()) or 'none'}",
                       table=code)

    def table_configs(self, code: str) -> list[Row]:
        """The configuration history of a table: version, at, approver, reason, config."""
        table = self.table(code)["table_code"]
        rows = self._all("SELECT config_version, version, at, approver, reason, config_json "
                         "FROM {proj_table_configs} WHERE table_code = ? ORDER BY "
                         "config_version", (table,))
        for row in rows:
            row["config"] = json.loads(row.pop("config_json"))
        return rows

    def config(self, code: str, config_version: int) -> dict[str, Any]:
        """The configuration a table had at ``config_version``."""
        for row in self.table_configs(code):
            if row["config_version"] == config_version:
                config: dict[str, Any] = row["config"]
                return config
        raise NotFound("unknown_config_version",
                       f"table {code} has no configuration version {config_version}")

    def gaming_days(self, table: str | None = None) -> list[str]:
        """The gaming days with any activity (newest first)."""
        where, params = _where(table_code=table)
        rows = self._all(f"SELECT DISTINCT gaming_day FROM {{proj_accounting}}{where} "
                         "ORDER BY gaming_day DESC", params)
        return [r["gaming_day"] for r in rows]

    # --- hands -----------------------------------------------------------------------------

    def hands(self, *, table: str | None = None, day: str | None = None,
              game: str | None = None, status: str | None = None, limit: int = 100,
              offset: int = 0) -> list[Row]:
        """Hand summaries (no cards), by table then hand number."""
        where, params = _where(table_code=self._code(table), gaming_day=day, game=game,
                               status=status)
        rows = self._all(f"SELECT {', '.join(HAND_SUMMARY)} FROM {{proj_hands}}{where} "
                         f"ORDER BY table_code, hand_no{_page(limit, offset)}", params)
        for row in rows:
            row["rules"] = _rules(row["rules"])
        return rows

    def count_hands(self, *, table: str | None = None, day: str | None = None,
                    status: str | None = None) -> int:
        """How many hands match (of a table, a gaming day, a status)."""
        where, params = _where(table_code=self._code(table), gaming_day=day, status=status)
        rows = self._all(f"SELECT COUNT(*) AS n FROM {{proj_hands}}{where}", params)
        return int(rows[0]["n"] or 0)

    def hand(self, table: str, hand_no: int, *, show_hidden: bool = False) -> Row:
        """One hand in full: seats, cards by round, actions, reveals, result, deck.

        Face-down cards of a hand still in progress are replaced by ``"??"`` unless
        ``show_hidden`` (an in-progress hand's hole cards are not for every reader).
        """
        code = self._code(table)
        rows = self._all(f"SELECT {', '.join(HAND_COLUMNS)} FROM {{proj_hands}} "
                         "WHERE table_code = ? AND hand_no = ?", (code, hand_no))
        if not rows:
            raise NotFound("unknown_hand", f"table {code} has no hand {hand_no} in the "
                           "projections", table=code, hand=hand_no)
        found = _full_hand(rows[0], show_hidden)
        found["corrections"] = cq.of_hand(self.store, str(code), hand_no)
        return found

    def hands_full(self, *, day: str, table: str | None = None) -> list[Row]:
        """Every hand of a gaming day in full (ended hands only), for exports."""
        where, params = _where(gaming_day=day, table_code=self._code(table))
        rows = self._all(f"SELECT {', '.join(HAND_COLUMNS)} FROM {{proj_hands}}{where} "
                         "AND status <> 'in_progress' ORDER BY table_code, hand_no", params)
        hands = [_full_hand(row, False) for row in rows]
        for hand in hands:
            hand["corrections"] = cq.of_hand(self.store, hand["table_code"], hand["hand_no"])
        return hands

    # --- bankrolls -------------------------------------------------------------------------

    def balances(self, *, table: str | None = None, prefix: str | None = None,
                 nonzero: bool = False) -> list[Row]:
        """Account balances per table; ``prefix`` filters accounts (``player:``, ``spot:``)."""
        where, params = _where(table_code=self._code(table))
        if prefix:
            where += (" AND" if where else " WHERE") + " account LIKE ?"
            params += (prefix.replace("%", "") + "%",)
        if nonzero:
            where += (" AND" if where else " WHERE") + " balance_minor <> 0"
        return self._all(f"SELECT table_code, account, balance_minor, last_version "
                         f"FROM {{proj_balances}}{where} ORDER BY table_code, account", params)

    def player_totals(self) -> list[Row]:
        """Each player's chips over every table: player, tables, balance_minor."""
        rows = self._all("SELECT account, COUNT(*) AS tables, SUM(balance_minor) AS "
                         "balance_minor FROM {proj_balances} WHERE account LIKE ? "
                         "GROUP BY account ORDER BY account", ("player:%",))
        return [{"player": r["account"].split(":", 1)[1], "tables": int(r["tables"]),
                 "balance_minor": int(r["balance_minor"])} for r in rows]

    def movements(self, table: str, account: str, *, limit: int = 100, offset: int = 0,
                  after_version: int = 0) -> list[Row]:
        """An account's movements at a table, oldest first: version, at, hand, event,
        counterparty, change_minor (+ in, - out), rule, memo."""
        code = self._code(table)
        rows = self._all(
            "SELECT version, seq, at, gaming_day, hand_no, event_type, src, dst, amount_minor, "
            "rule, memo FROM {proj_transfers} WHERE table_code = ? AND version > ? AND "
            f"(src = ? OR dst = ?) ORDER BY version, seq{_page(limit, offset)}",
            (code, after_version, account, account),
        )
        out = []
        for r in rows:
            incoming = r["dst"] == account
            out.append({"version": r["version"], "seq": r["seq"], "at": r["at"],
                        "gaming_day": r["gaming_day"], "hand_no": r["hand_no"],
                        "event_type": r["event_type"],
                        "counterparty": r["src"] if incoming else r["dst"],
                        "change_minor": r["amount_minor"] if incoming else -r["amount_minor"],
                        "rule": r["rule"], "memo": r["memo"]})
        return out

    def balances_at(self, table: str, version: int) -> dict[str, int]:
        """Every account's balance at a table just after event ``version``."""
        code = self._code(table)
        rows = self._all(
            "SELECT account, SUM(change) AS balance FROM (SELECT dst AS account, amount_minor "
            "AS change FROM {proj_transfers} WHERE table_code = ? AND version <= ? UNION ALL "
            "SELECT src, -amount_minor FROM {proj_transfers} WHERE table_code = ? AND "
            "version <= ?) flows GROUP BY account", (code, version, code, version),
        )
        return {r["account"]: int(r["balance"]) for r in rows if int(r["balance"])}

    def bankroll_day(self, day: str, table: str | None = None) -> list[Row]:
        """Per table and account for one gaming day: opening, in, out, closing balance."""
        code = self._code(table)
        filter_sql = " AND table_code = ?" if code else ""
        extra: tuple[Any, ...] = (code,) if code else ()
        rows = self._all(
            "SELECT table_code, account, "
            "SUM(CASE WHEN gaming_day < ? THEN change ELSE 0 END) AS opening, "
            "SUM(CASE WHEN gaming_day = ? AND change > 0 THEN change ELSE 0 END) AS moved_in, "
            "SUM(CASE WHEN gaming_day = ? AND change < 0 THEN -change ELSE 0 END) AS moved_out "
            "FROM (SELECT table_code, gaming_day, dst AS account, amount_minor AS change FROM "
            f"{{proj_transfers}} WHERE gaming_day <= ?{filter_sql} UNION ALL SELECT table_code, "
            f"gaming_day, src, -amount_minor FROM {{proj_transfers}} WHERE gaming_day <= ?"
            f"{filter_sql}) flows GROUP BY table_code, account ORDER BY table_code, account",
            (day, day, day, day, *extra, day, *extra),
        )
        out = []
        for r in rows:
            opening, moved_in, moved_out = int(r["opening"]), int(r["moved_in"]), int(
                r["moved_out"])
            if opening or moved_in or moved_out:
                out.append({"table_code": r["table_code"], "gaming_day": day,
                            "account": r["account"], "opening_minor": opening,
                            "in_minor": moved_in, "out_minor": moved_out,
                            "closing_minor": opening + moved_in - moved_out})
        return out

    # --- coverage, rake, jackpot -----------------------------------------------------------

    def coverage(self, *, table: str | None = None, day: str | None = None,
                 limit: int = 100, offset: int = 0) -> list[Row]:
        """Designated-player hands with their coverage lines (HCF-12)."""
        where, params = _where(table_code=self._code(table), gaming_day=day)
        hands = self._all("SELECT table_code, hand_no, version, at, gaming_day, dp_seat, "
                          "funds_at_start_minor, funds_left_minor, dead_seats FROM "
                          f"{{proj_coverage}}{where} ORDER BY table_code, hand_no"
                          f"{_page(limit, offset)}", params)
        for hand in hands:
            lines = self._all("SELECT seat, liability_minor, covered, funds_before_minor, "
                              "funds_after_minor, paid_in_minor, paid_minor FROM "
                              "{proj_coverage_lines} WHERE "
                              "table_code = ? AND hand_no = ? ORDER BY seq",
                              (hand["table_code"], hand["hand_no"]))
            for line in lines:
                line["covered"] = bool(line["covered"])
            hand["lines"] = lines
        return hands

    def rake_totals(self, *, day: str | None = None, table: str | None = None) -> list[Row]:
        """Rake per table, game, method and gaming day: hands, lines, amount_minor."""
        where, params = _where(gaming_day=day, table_code=self._code(table))
        return [_ints(r, "hands", "lines", "amount_minor") for r in self._all(
            "SELECT table_code, game, method, gaming_day, COUNT(DISTINCT hand_no) AS hands, "
            f"COUNT(*) AS lines, SUM(amount_minor) AS amount_minor FROM {{proj_rake}}{where} "
            "GROUP BY table_code, game, method, gaming_day "
            "ORDER BY gaming_day, table_code, method", params)]

    def rake_lines(self, *, table: str | None = None, day: str | None = None,
                   limit: int = 1_000, offset: int = 0) -> list[Row]:
        where, params = _where(table_code=self._code(table), gaming_day=day)
        return self._all("SELECT table_code, hand_no, seq, version, at, gaming_day, game, "
                         f"seat, method, rule, amount_minor FROM {{proj_rake}}{where} "
                         f"ORDER BY table_code, hand_no, seq{_page(limit, offset)}", params)

    def jackpot_meters(self) -> list[Row]:
        """The meter of every table with a jackpot: table_code, meter_minor, last_version."""
        return self._all("SELECT table_code, meter_minor, last_version FROM "
                         "{proj_jackpot_meters} ORDER BY table_code")

    def jackpot_moves(self, *, table: str | None = None, day: str | None = None,
                      kind: str | None = None, limit: int = 1_000,
                      offset: int = 0) -> list[Row]:
        """Jackpot movements in order: kind (seed, contribution, house_share, award, reseed,
        other), seat, line, source, amount_minor, meter_after_minor, rule."""
        where, params = _where(table_code=self._code(table), gaming_day=day, kind=kind)
        return self._all("SELECT table_code, version, seq, at, gaming_day, hand_no, kind, "
                         "seat, line, source, amount_minor, meter_after_minor, rule FROM "
                         f"{{proj_jackpot_moves}}{where} ORDER BY table_code, version, seq"
                         f"{_page(limit, offset)}", params)

    # --- accounting ------------------------------------------------------------------------

    def accounting(self, *, day: str | None = None, table: str | None = None) -> list[Row]:
        """Per table and gaming day: drop, cash-outs, house win and hold % (house-banked games
        only; None otherwise), rake, jackpot contributions, awards and seeds, DP results."""
        where, params = _where(gaming_day=day, table_code=self._code(table))
        rows = self._all("SELECT * FROM {proj_accounting}" + where
                         + " ORDER BY gaming_day, table_code", params)
        for row in rows:
            banked = row["banking"] == "house"
            if not banked:
                row["house_win_minor"] = None
            row["hold_pct"] = hold_pct(row["house_win_minor"], row["drop_minor"])
            if row["banking"] != "player":
                row["dp_results_minor"] = None
        cq.accounting_line(self.store, rows)
        return rows

    def corrections(self, *, table: str | None = None, day: str | None = None,
                    hand: int | None = None, kind: str | None = None, limit: int = 100,
                    offset: int = 0) -> list[Row]:
        """Every correction (COR-1..5): what it corrects, approvers, reason, what it moved,
        the house's, rake's, cage's and owed accounts' change, and its detail."""
        where, params = _where(table_code=self._code(table), gaming_day=day, hand_no=hand,
                               kind=kind)
        return cq.corrections(self.store, where, params, _page(limit, offset))

    def dp_results(self, *, day: str | None = None, table: str | None = None) -> list[Row]:
        """Designated players' results (HCF-14) per table, gaming day and player, each with
        its table's currency."""
        where, params = _where(gaming_day=day, table_code=self._code(table))
        where += (" AND" if where else " WHERE") + " status = 'settled'"
        rows = [_ints(r, "hands", "result_minor") for r in self._all(
            "SELECT table_code, gaming_day, player, COUNT(*) AS hands, SUM(result_minor) AS "
            f"result_minor FROM {{proj_dp_hands}}{where} GROUP BY table_code, gaming_day, "
            "player ORDER BY gaming_day, table_code, player", params)]
        if rows:
            currencies = {t["table_code"]: t["currency"] for t in self.tables()}
            for row in rows:
                row["currency"] = currencies.get(row["table_code"])
        return rows

    # --- helpers ---------------------------------------------------------------------------

    def _code(self, table: str | None) -> str | None:
        """The stored code of ``table`` (case-insensitive); ``unknown_table`` if none."""
        return None if table is None else str(self.table(table)["table_code"])


def hold_pct(win_minor: int | None, drop_minor: int) -> str | None:
    """House win over drop, in percent, rounded half up to two decimals (text); None without
    drop."""
    if win_minor is None or not drop_minor:
        return None
    value = (Decimal(win_minor) * 100 / Decimal(drop_minor)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP)
    return str(value)


def _where(**filters: Any) -> tuple[str, tuple[Any, ...]]:
    used = [(k, v) for k, v in filters.items() if v is not None]
    if not used:
        return "", ()
    return " WHERE " + " AND ".join(f"{k} = ?" for k, _ in used), tuple(v for _, v in used)


def _page(limit: int, offset: int) -> str:
    return f" LIMIT {max(0, min(int(limit), MAX_LIMIT))} OFFSET {max(0, int(offset))}"


def _rules(text: str) -> list[str]:
    return [r for r in text.split(",") if r]


def _ints(row: Row, *keys: str) -> Row:
    for key in keys:
        row[key] = int(row[key] or 0)
    return row


def _full_hand(row: Row, show_hidden: bool) -> Row:
    for column in JSON_COLUMNS:
        row[column.removesuffix("_json")] = json.loads(row.pop(column))
    row["rules"] = _rules(row["rules"])
    row["result"].pop("tally", None)  # the running per-seat tally of a hand in progress
    if row["status"] == "in_progress" and not show_hidden:
        for rnd in row["cards"]:
            for dealt in rnd["dealt"]:
                dealt["down"] = ["??"] * len(dealt["down"])
        for action in row["actions"]:
            if "segments" in action:
                action["segments"] = [["??"] * len(s) for s in action["segments"]]
    return row
