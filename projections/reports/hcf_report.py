"""The High Card Flush figures of the paytable report (HCF-4..11), with a simulation check."""

from __future__ import annotations

import random
from typing import Any

from ledger.evaluation import hcf as ev
from ledger.games.hcf import HcfConfig
from projections.reports.figures import SIMULATED_HANDS, decimal
from projections.reports.mathematics import hcf as math

METHOD = (
    "exact: every pair of seven-card hands counted through per-suit generating functions; the "
    "play/fold strategy is the best given the player's flush (length and ranks); the "
    "simulation beside it is a check"
)


def hcf_figures(config_data: dict[str, Any], digest: str) -> dict[str, Any]:
    config = HcfConfig.model_validate(config_data)
    exact = math.exact(config.flush_bonus_paytable, config.straight_flush_bonus_paytable)
    strategy = _strategy_summary(exact["strategy"])
    simulated = simulate(config, exact["strategy"], SIMULATED_HANDS["high-card-flush"],
                         seed=int(digest[:8], 16))
    return {
        "kind": "designated-player",
        "method": METHOD,
        "dp_qualifies": decimal(exact["dp_qualifies"]),
        "player_expected_per_ante": decimal(exact["player_expected"]),
        "dp_expected_per_player_hand_antes": decimal(exact["dp_expected_per_player_hand"]),
        "raise_probability": decimal(exact["raise_probability"]),
        "mean_raise_antes": decimal(exact["mean_raise_antes"]),
        "flush_bonus": {"paytable": config.flush_bonus_paytable,
                        "return_against_dp": decimal(exact["flush_bonus"]["against_dp"]),
                        "return_pure": decimal(exact["flush_bonus"]["pure"])},
        "straight_flush_bonus": {
            "paytable": config.straight_flush_bonus_paytable,
            "return_against_dp": decimal(exact["straight_flush_bonus"]["against_dp"]),
            "return_pure": decimal(exact["straight_flush_bonus"]["pure"])},
        "flush_length_probability": {str(k): decimal(v, 10) for k, v
                                     in exact["flush_length_probability"].items() if v},
        "run_length_probability": {str(k): decimal(v, 10) for k, v
                                   in exact["run_length_probability"].items() if v},
        "strategy": strategy,
        "simulation": simulated,
    }


def _strategy_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_length: dict[int, dict[str, int]] = {}
    lowest_raised_three = None
    for row in rows:
        counts = by_length.setdefault(row["length"], {})
        counts[row["action"]] = counts.get(row["action"], 0) + 1
        if row["length"] == 3 and row["action"] != "fold" and (
                lowest_raised_three is None or row["mask"] < lowest_raised_three):
            lowest_raised_three = row["mask"]
    ranks = "23456789TJQKA"
    three = None if lowest_raised_three is None else "-".join(
        ranks[r] for r in range(12, -1, -1) if lowest_raised_three >> r & 1)
    return {"by_length": {str(k): v for k, v in sorted(by_length.items())},
            "lowest_three_card_flush_raised": three}


def simulate(config: HcfConfig, strategy: list[dict[str, Any]], hands: int,
             seed: int) -> dict[str, Any]:
    """Deal ``hands`` pairs of hands and settle them from the cards (HCF-8..11); mean and
    standard error of each figure."""
    actions = {(row["length"], row["mask"]): row["action"] for row in strategy}
    rng = random.Random(seed)
    deck = list(range(52))
    sums = {"dp_qualifies": [0.0, 0.0], "player": [0.0, 0.0], "flush": [0.0, 0.0],
            "straight_flush": [0.0, 0.0]}

    def add(name: str, value: float) -> None:
        sums[name][0] += value
        sums[name][1] += value * value

    for _ in range(hands):
        cards = rng.sample(deck, 14)
        mine, dp = cards[:7], cards[7:]
        pf, df = ev.flush(mine), ev.flush(dp)
        ps, ds = ev.straight_flush(mine), ev.straight_flush(dp)
        qualifies = ev.dp_qualifies(df)
        add("dp_qualifies", float(qualifies))
        mask = sum(1 << r for r in pf.ranks)
        action = actions.get((pf.length, mask), "fold")
        if action == "fold":
            add("player", -1.0)
        else:
            units = 1 + int(action.split()[1].rstrip("x"))
            add("player", 1.0 if not qualifies else units if pf > df else -units if pf < df
                else 0.0)
        fodds = ev.flush_bonus_odds(pf.length, config.flush_bonus_paytable)
        add("flush", -1.0 if fodds is None or pf < df else float(fodds) if pf > df else 0.0)
        sodds = ev.straight_flush_bonus_odds(ps.length, config.straight_flush_bonus_paytable)
        add("straight_flush",
            -1.0 if sodds is None or ps < ds else float(sodds) if ps > ds else 0.0)
    out: dict[str, Any] = {"hands": hands}
    for name, (total, squares) in sums.items():
        mean = total / hands
        variance = max(squares / hands - mean * mean, 0.0) * hands / max(hands - 1, 1)
        out[name] = {"mean": f"{mean:.6f}", "stderr": f"{(variance / hands) ** 0.5:.6f}"}
    return out
