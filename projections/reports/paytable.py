"""The paytable report: a configuration's mathematics, cached by the configuration's digest.

The mathematics of a configuration is a pure function of the game's rules and the configuration,
so it is keyed by ``digest = SHA-256(game, canonical configuration JSON, MATH_VERSION)`` and
computed at most once per digest:

- never on the command path: opening a table or changing its configuration appends events and
  returns; nothing there waits for the mathematics;
- on demand (``ledger report paytable``, ``GET /tables/{code}/paytable``, the hold report), in
  the reader's process, which keeps it in memory and writes it to ``report_math`` in the
  ledger's database (digest, game, version, when, seconds, figures), so every later reader, in
  any process, reads it back. A reader that may not write (a read-only role) computes and
  shows it without storing it.

The report of a table lists every configuration version with its approver, reason and digest
beside the headline figures of that digest (computed on the first report after the change, then
read back), so the approved mathematics sits next to each approval. A
configuration changed back to an earlier one has the earlier digest and reuses its figures.
``MATH_VERSION`` changes when the computation does: older rows are then ignored, not trusted.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ledger.games.registry import get_game
from ledger.table.state import validate_config
from projections.db import Store
from projections.reports.caribbean_report import caribbean_figures
from projections.reports.hcf_report import hcf_figures
from projections.reports.rake_report import policy_text, rake_figures

MATH_VERSION = "1"
CACHE_DDL = (
    "CREATE TABLE IF NOT EXISTS {report_math} (digest TEXT PRIMARY KEY, game TEXT NOT NULL, "
    "math_version TEXT NOT NULL, computed_at TEXT NOT NULL, seconds TEXT NOT NULL, "
    "result_json TEXT NOT NULL)"
)
_MEMORY: dict[str, dict[str, Any]] = {}


UNRELATED = ("card_source", "shuffle_seed")
"""Settings that do not change a configuration's mathematics (where the cards come from): left
out of the digest, so two tables with the same paytable share their figures."""
PROGRESS: list[Callable[[str], None]] = []
"""Who is told, in words, when mathematics start and end being computed (the command line
prints it on stderr); empty: nobody."""


def config_digest(game: str, config: Mapping[str, Any]) -> str:
    """The key of a configuration's mathematics: the game, the paytable and every setting that
    changes the figures (not ``UNRELATED``), and the mathematics' version."""
    paytable = {k: v for k, v in config.items() if k not in UNRELATED}
    canonical = json.dumps({"game": game, "config": paytable, "math": MATH_VERSION},
                           sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def normalised(game: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration with every default filled in (``invalid_config`` if it is not one)."""
    model = validate_config(get_game(game), {"game": game, **config})
    data: dict[str, Any] = model.model_dump(mode="json")
    return data


def compute(game: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """The figures of one configuration (JSON-ready), without any cache."""
    started = time.perf_counter()
    full = normalised(game, config)
    digest = config_digest(game, full)
    if game == "caribbean-stud":
        figures = caribbean_figures(full, digest)
    elif game == "high-card-flush":
        figures = hcf_figures(full, digest)
    else:
        figures = {"kind": "rake", "note": "the players bank the game (nobody does): the house "
                   "takes only the fee or rake; see the rake section of the table's report",
                   "policy": policy_text(game, full)}
    return {"game": game, "digest": digest, "math_version": MATH_VERSION,
            "seconds": f"{time.perf_counter() - started:.1f}", **figures}


def mathematics(store: Store | None, game: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """The figures of a configuration: from memory, from ``report_math``, or computed now (and
    stored when the reader may write; kept in memory only when ``store`` is an export's
    read-only snapshot)."""
    full = normalised(game, config)
    digest = config_digest(game, full)
    found = _MEMORY.get(digest)
    if found is not None:
        return found
    if store is not None:
        found = _read(store, digest)
        if found is not None:
            _MEMORY[digest] = found
            return found
    if PROGRESS:
        estimate = _estimate(store, game)
        for tell in PROGRESS:
            tell(f"computing the {game} mathematics of configuration {digest[:12]} (once per "
                 f"paytable, then kept in the store){estimate}...")
    result = compute(game, full)
    for tell in PROGRESS:
        tell(f"computed the {game} mathematics of configuration {digest[:12]} in "
             f"{result['seconds']} s")
    result["computed_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    _MEMORY[digest] = result
    if store is not None and not store.read_only:
        _write(store, result)
    return result


TYPICAL_SECONDS = {"caribbean-stud": 20, "high-card-flush": 5}
"""About how long a game's mathematics take on an idle machine, when the store has no earlier
computation of that game to go by."""


def _estimate(store: Store | None, game: str) -> str:
    """``, about 20 s``: the last computation of the game's mathematics in this store, or the
    typical time."""
    seconds: float | None = None
    if store is not None:
        try:
            with store.transaction(commit=False) as tx:
                if store.exists(tx, "report_math"):
                    row = tx.fetchone("SELECT seconds FROM {report_math} WHERE game = ? ORDER "
                                      "BY computed_at DESC LIMIT 1", (game,))
                    if row is not None:
                        seconds = float(row["seconds"])
        except Exception:
            seconds = None
    if seconds is None:
        seconds = TYPICAL_SECONDS.get(game)
    return "" if seconds is None else f", about {max(1, round(seconds))} s"


def _read(store: Store, digest: str) -> dict[str, Any] | None:
    try:
        with store.transaction(commit=False) as tx:
            if not store.exists(tx, "report_math"):
                return None
            row = tx.fetchone("SELECT result_json FROM {report_math} WHERE digest = ? AND "
                              "math_version = ?", (digest, MATH_VERSION))
    except Exception:
        return None
    if row is None:
        return None
    value: dict[str, Any] = json.loads(row["result_json"])
    return value


def _write(store: Store, result: dict[str, Any]) -> None:
    try:
        with store.transaction() as tx:
            tx.execute(CACHE_DDL)
            tx.execute("INSERT INTO {report_math} (digest, game, math_version, computed_at, "
                       "seconds, result_json) VALUES (?,?,?,?,?,?) ON CONFLICT (digest) DO "
                       "NOTHING", (result["digest"], result["game"], MATH_VERSION,
                                   result["computed_at"], result["seconds"],
                                   json.dumps(result, separators=(",", ":"))))
    except Exception:
        return


def headline(figures: Mapping[str, Any]) -> dict[str, Any]:
    """The figures an approval is judged on, for the history beside each configuration."""
    if figures.get("kind") == "house-banked":
        optimal = figures["strategies"][0]
        return {"house_edge": optimal["house_edge"],
                "element_of_risk": optimal["element_of_risk"],
                "play_probability": optimal["play_probability"],
                "jackpot_break_even_meter_minor":
                    figures["jackpot"]["break_even_meter_minor"]}
    if figures.get("kind") == "designated-player":
        return {"dp_qualifies": figures["dp_qualifies"],
                "player_expected_per_ante": figures["player_expected_per_ante"],
                "flush_bonus_return_against_dp": figures["flush_bonus"]["return_against_dp"],
                "straight_flush_bonus_return_against_dp":
                    figures["straight_flush_bonus"]["return_against_dp"]}
    return {}


def table_report(model: Any, code: str) -> dict[str, Any]:
    """The paytable report of a table: every configuration version with its approval, digest
    and the headline figures of its mathematics (each computed once per digest, then cached),
    the current configuration's figures in full, and for player-banked and pooled games the
    rake from the recorded hands."""
    table = model.table(code)
    game = table["game"]
    configs = model.table_configs(table["table_code"])
    history = []
    for row in configs:
        figures = mathematics(model.store, game, row["config"])
        entry = {"config_version": row["config_version"], "at": row["at"],
                 "approver": row["approver"], "reason": row["reason"],
                 "digest": figures["digest"], **headline(figures)}
        if game in ("chinese-poker", "stud-hilo", "high-card-flush"):
            entry["rake_policy"] = policy_text(game, normalised(game, row["config"]),
                                               table["currency"])
        history.append(entry)
    current = configs[-1]["config"]
    figures = mathematics(model.store, game, current)
    report: dict[str, Any] = {"table": table["table_code"], "game": game,
                              "currency": table["currency"], "configs": history,
                              "mathematics": figures}
    if game != "caribbean-stud":
        report["rake"] = rake_figures(model, table["table_code"], game, current,
                                      table["currency"])
        if figures.get("kind") == "rake":  # the policy in the table's currency
            report["mathematics"] = {**figures,
                                     "policy": policy_text(game, normalised(game, current),
                                                           table["currency"])}
    return report
