"""``ledger audit hand`` without ``--all``: the record checked against the rules, shown once
where the two agree and side by side only where they differ, with a one-line verdict per
section (the chain and command log, the decisions, the deck commitment, the discrepancies, the
seats' results); and the ``--json`` answer, the HTTP replay's (``GET
/tables/{code}/hands/{n}/replay``) with each step's differences and the seats' results."""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

MOVEMENT = " -> "
"""What a chip movement's line holds (``player:alice -> spot:1:ante 10.00``): the compact view
shows the decisions and leaves the movements to the seats' results (``--all`` shows them)."""


def differences(recorded: list[str], recomputed: list[str] | None
                ) -> list[tuple[list[str], list[str]]]:
    """The stretches where the record and the recomputation differ, as (recorded lines,
    recomputed lines); none when they agree (or nothing was recomputed)."""
    if recomputed is None:
        return []
    matcher = difflib.SequenceMatcher(a=recorded, b=recomputed, autojunk=False)
    return [(recorded[i1:i2], recomputed[j1:j2])
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def as_json(replay: Any, results: Any, rule_texts: dict[str, str]) -> str:
    """The replay as JSON: the HTTP answer's fields, each step's ``differences`` (``[{"recorded":
    [...], "recomputed": [...]}]``, empty where they agree) and the seats' ``results``."""
    data = asdict(replay)
    data.pop("walked_whole", None)
    data.pop("events", None)  # the records themselves; the steps describe them
    for step, original in zip(data["steps"], replay.steps, strict=True):
        step["differences"] = [{"recorded": a, "recomputed": b} for a, b in differences(
            original.recorded, original.recomputed)]
    data["ok"] = replay.ok
    data["results"] = None if results is None else results.model_dump(mode="json")
    data["rule_texts"] = rule_texts
    return json.dumps(data, default=str)


def compact_lines(replay: Any, width: int, *, results: Any = None,
                  rule_texts: bool = False) -> list[str]:
    """The replay as text, differences only (see the module)."""
    from ledger.cli.replay import stamp
    from ledger.domain.rulebook import cited
    from ledger.table.describe import results_lines
    from projections.audit.chain import breaks_text

    width = max(width, 100)
    half = (width - 7) // 2
    zone = replay.timezone or "UTC"
    out = [f"table {replay.table} hand {replay.hand_no} ({replay.game}, amounts in "
           f"{replay.currency}, times UTC (Z) and {zone}): the record checked against what the "
           "rules in force produce for the same commands; shown once where they agree, side "
           "by side where they differ (--all: every line side by side)", ""]
    warning = breaks_text(replay.table, replay.chain_breaks) if replay.chain_breaks else None
    if warning:
        out[:0] = [warning, ""]
    cites: set[str] = set()
    differ: list[int] = []
    unchecked = 0
    for step in replay.steps:
        cites.update(step.rules)
        verdict = {True: "= agrees", False: "** DIFFERS **", None: "- not recomputed"}[
            step.agrees]
        differ += [step.version] if step.agrees is False else []
        unchecked += step.agrees is None
        at = stamp(datetime.fromisoformat(step.at.replace("Z", "+00:00")), zone)
        head = f"v{step.version}  {at}  {step.event}" + (
            f" ({step.command})" if step.command else "") + (
            f"  by {step.actor}" if step.actor else "") + (
            f"  rules {', '.join(step.rules)}" if step.rules else "")
        out.append(head.ljust(width - len(verdict) - 1) + " " + verdict)
        if getattr(step, "approval", None):  # who signed it: always shown (COM-4, COR-4 ...)
            out.append(f"     {step.approval}")
        found = differences(step.recorded, step.recomputed)
        if not found:
            out.extend(f"     {line}" for line in step.recorded if MOVEMENT not in line)
            continue
        out.append("     " + "recorded".ljust(half) + "| recomputed")
        for left, right in found:
            for i in range(max(len(left), len(right))):
                a = left[i] if i < len(left) else ""
                b = right[i] if i < len(right) else ""
                out.append(f"     {a[:half - 1].ljust(half)}| {b}")
    out.append("")
    out.append("hash chain and command log: " + (
        "BROKEN (see the first line)" if replay.chain_breaks else
        "intact (every event of the hand as the ledger wrote it)"))
    count = len(replay.steps)
    out.append(f"decisions: {count} event{'' if count == 1 else 's'} recomputed by the rules "
               "in force, " + (
        f"{len(differ)} DIFFER (v{', v'.join(map(str, differ))})" if differ
        else "all agree") + (
        f"; {unchecked} not recomputed (an rng deal of an unfinished hand)" if unchecked
        else ""))
    out.append("deck commitment (COM-8): " + {
        True: "verified: the revealed deck and salt hash to the commitment recorded at the "
              "start",
        False: "DOES NOT MATCH the revealed deck",
        None: "nothing to verify (cards recorded by the table's device, or the hand has not "
              "ended)"}[replay.commitment_ok])
    out.append(f"discrepancies: {len(replay.discrepancies) or 'none'}")
    for d in replay.discrepancies:
        out.append(f"  DISCREPANCY {d.kind} [{d.rule or '-'}]: expected "
                   f"{_short(d.expected)}, recorded {_short(d.recorded)}")
    if results is not None:
        out.extend(results_lines(results, replay.currency))
    else:
        out.append("results: none yet (the hand has not ended)")
    out.append("every decision agrees with the rules" if replay.ok else
               warning or "the record differs from the rules (see above)")
    if rule_texts:
        out.append("")
        out.extend(f"{rule.id}: {rule.text.replace('**', '')}" for rule in cited(cites))
    return out


def _short(value: Any, width: int = 160) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= width else text[: width - 3] + "..."
