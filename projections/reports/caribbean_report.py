"""The Caribbean Stud figures of the paytable report, as JSON-ready text (CSP-2..7)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ledger.games.caribbean.config import CaribbeanConfig
from projections.reports.figures import SIMULATED_HANDS, decimal
from projections.reports.mathematics import caribbean as math

METHOD = (
    "exact: every player hand and dealer up card, the dealer's 163,185 hands counted by rank "
    "pattern and suit class (no simulation); the simulation beside it is a check"
)


def caribbean_figures(config_data: dict[str, Any], digest: str) -> dict[str, Any]:
    config = CaribbeanConfig.model_validate(config_data)
    exact = math.exact(config)
    simulated = math.simulate(config, SIMULATED_HANDS["caribbean-stud"],
                              seed=int(digest[:8], 16))
    strategies = []
    for name, description in math.STRATEGIES.items():
        fig = exact["strategies"][name]
        sim = simulated[name]
        strategies.append({
            "name": name, "description": description,
            "house_edge": decimal(fig["house_edge"]),
            "house_edge_exact": str(fig["house_edge"]),
            "element_of_risk": decimal(fig["element_of_risk"]),
            "play_probability": decimal(fig["play_probability"]),
            "mean_wagered_antes": decimal(fig["mean_wagered"]),
            "sd_per_hand_antes": f"{fig['sd_per_hand']:.6f}",
            "simulation": {"hands": sim["hands"], "house_edge": f"{-sim['mean']:.6f}",
                           "stderr": f"{sim['stderr']:.6f}"},
        })
    jackpot = exact["jackpot"]
    meters = [config.jackpot.seed * k // 2 for k in (1, 2, 4, 8, 16, 32)]
    break_even = jackpot["break_even_meter_minor"]
    returns = [{"meter_minor": m, "return": decimal(math.jackpot_return(jackpot, m), 6)}
               for m in meters]
    second = sum((line["probability"] * Fraction(line["fixed_award_minor"], jackpot["wager_minor"])
                  ** 2 for line in jackpot["lines"]), Fraction(0))
    return {
        "kind": "house-banked",
        "method": METHOD,
        "strategies": strategies,
        "paytable": config.play_paytable,
        "jackpot": {
            "enabled": jackpot["enabled"], "wager_minor": jackpot["wager_minor"],
            "contribution_bps": config.jackpot.contribution_bps,
            "lines": [{**line, "probability": decimal(line["probability"], 10)}
                      for line in jackpot["lines"]],
            "fixed_return": decimal(jackpot["fixed_return"]),
            "return_per_meter_unit": decimal(jackpot["return_per_meter_unit"], 14),
            "return_at_seed": decimal(math.jackpot_return(jackpot, config.jackpot.seed), 6),
            "break_even_meter_minor": None if break_even is None else round(break_even),
            "returns": returns,
            "house_share_expected_per_wager": decimal(
                Fraction(10_000 - config.jackpot.contribution_bps, 10_000)
                - jackpot["fixed_return"]),
            "fixed_awards_second_moment": decimal(second, 6),
        },
    }
