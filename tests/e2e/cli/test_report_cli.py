"""``ledger report`` as a user runs it (a subprocess per call): the paytable mathematics of a
default Caribbean Stud table and of a High Card Flush configuration, printed to four decimals of
a percent, beside the published figures; the demo's day reconciled by its tray counts (INV-4)
and a wrong closing count shown as a variance; hostile arguments refused with a code."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.app.application import LedgerApp
from ledger.settings import Settings
from ledger.sim.tray import count, register_signers, tray_now

PUBLISHED = {  # house edge %, element of risk % (The Wizard of Odds' strategy table)
    "optimal": (5.224, 2.555), "akj83": (5.316, 2.596), "pair": (5.470, 2.738),
    "ak": (5.682, 2.672), "always": (16.607, 5.536),
}
EXACT = {  # the exact figures to four decimals of a percent (tests/unit/reports)
    "optimal": ("5.2243%", "2.5553%", "52.2255%"), "akj83": ("5.3163%", "2.5960%", "52.3940%"),
    "pair": ("5.4696%", "2.7380%", "49.8823%"), "ak": ("5.6820%", "2.6721%", "56.3187%"),
    "always": ("16.6072%", "5.5357%", "100.0000%"),
}


def ledger(*args: str, db: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_DATABASE_URL": f"sqlite:///{db}",
           "LEDGER_DECK_KEY_FILE": str(db.parent / "deck.key"), "LEDGER_LOG_LEVEL": "WARNING"}
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=600, check=False)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


def test_report_paytable_of_a_default_caribbean_table(db: Path) -> None:
    """CSP-2..7: the optimal and the four simple strategies, each with its house edge, element
    of risk and probability of playing to four decimals, matching the published table; the
    progressive's break-even meter; then the figures are read back from the store by digest."""
    opened = ledger("simulate", "--game", "caribbean-stud", "--hands", "1", "--table", "CSP-1",
                    db=db)
    assert opened.returncode == 0, opened.stderr
    out = ledger("report", "paytable", "--table", "CSP-1", db=db)
    assert out.returncode == 0, out.stderr
    assert "config v1" in out.stdout and "house edge 5.2243%" in out.stdout
    for name, (edge, risk, play) in EXACT.items():
        line = re.search(rf"^\s+{name}\s+(\S+)\s+(\S+)\s+(\S+)\s", out.stdout, re.MULTILINE)
        assert line is not None, (name, out.stdout)
        assert line.groups() == (edge, risk, play), name
        published_edge, published_risk = PUBLISHED[name]
        assert round(float(edge.rstrip("%")), 3) == published_edge
        assert round(float(risk.rstrip("%")), 3) == published_risk
    assert "break-even meter 218,047.37" in out.stdout
    assert "simulation" in out.stdout

    again = ledger("report", "paytable", "--table", "CSP-1", "--json", db=db)
    report = json.loads(again.stdout)
    digest = report["mathematics"]["digest"]
    with sqlite3.connect(db) as conn:
        (stored,) = conn.execute("SELECT computed_at FROM report_math WHERE digest = ?",
                                 (digest,)).fetchone()
    assert report["mathematics"]["computed_at"] == stored  # read back, not computed again
    assert report["configs"][0]["digest"] == digest


def test_report_paytable_of_a_high_card_flush_configuration(db: Path, tmp_path: Path) -> None:
    """HCF-8/10/11: the DP's qualification and the bonus returns against the DP and as pure
    paytables, for a configuration not in use (``--game`` with ``--config``)."""
    config = tmp_path / "hcf.json"
    config.write_text("{}", encoding="utf-8")
    out = ledger("report", "paytable", "--game", "high-card-flush", "--config", str(config),
                 db=db)
    assert out.returncode == 0, out.stderr
    assert "DP qualifies (HCF-8): 75.3637%" in out.stdout
    assert "flush_bonus (HCF-11): return against the DP -7.2423%, as a pure paytable " \
        "1.2121%" in out.stdout
    assert "straight_flush_bonus (HCF-10): return against the DP -9.9601%" in out.stdout
    assert "player's expected result against the DP: -2.7114%" in out.stdout


@pytest.mark.parametrize(("args", "code"), [
    (("report", "paytable"), "invalid_request"),
    (("report", "paytable", "--table", "NOPE-1"), "unknown_table"),
    (("report", "paytable", "--table", "NOPE-1", "--config", "x.json"), "invalid_request"),
    (("report", "paytable", "--game", "baccarat"), "unknown_game"),
    (("report", "paytable", "--game", "caribbean-stud", "--config", "/nonexistent.json"),
     "invalid_config"),
    (("report", "hold"), "invalid_period"),
    (("report", "hold", "--day", "2026-02-30"), "invalid_day"),
    (("report", "hold", "--month", "2026-13"), "invalid_month"),
    (("report", "hold", "--from", "1900-01-01", "--to", "2026-01-01"), "invalid_period"),
    (("report", "hold", "--from", "2026-03-02", "--to", "2026-03-01"), "invalid_period"),
    (("report", "hold", "--day", "2026-03-01", "--month", "2026-03"), "invalid_period"),
    (("report", "hold", "--day", "2026-03-01", "--table", "NOPE-1"), "unknown_table"),
    (("report", "players", "--month", "99999-01"), "invalid_month"),
    (("report", "inventory", "--from", "2026-03-01"), "invalid_period"),
    (("report", "inventory", "--day", "2026-03-01", "--table", "NOPE-1"), "unknown_table"),
    (("hands", "--player", "p", "--from", "2026-03-02", "--to", "2026-03-01"),
     "invalid_period"),
    (("hands", "--player", "p", "--table", "NOPE-1"), "unknown_table"),
])
def test_hostile_report_arguments_are_coded_errors(db: Path, args: tuple[str, ...],
                                                  code: str) -> None:
    out = ledger(*args, db=db)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith(f"error [{code}]"), out.stderr
    assert "Traceback" not in out.stderr


def test_the_demo_day_reconciles_by_inventory_and_a_wrong_count_is_a_variance(
        tmp_path: Path) -> None:
    """INV-4 on the demo's own day: its Caribbean table opened with a count, filled half way and
    closed with a count reconciles with the ledger's house result (exit 0); a recount of the
    closing tray short by 1.00 is a variance of -1.00 (exit 1)."""
    db = tmp_path / "var" / "demo.sqlite3"
    demo = ledger("demo", "--hands", "4", "--out", str(tmp_path / "out"), db=db, cwd=tmp_path)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    tray = re.search(r"tray of CSP-1 on (\d{4}-\d{2}-\d{2}):", demo.stdout)
    assert tray is not None and "reconciled" in demo.stdout, demo.stdout
    day = tray.group(1)
    out = ledger("report", "inventory", "--day", day, "--json", db=db)
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)["rows"]
    assert row["status"] == "reconciled" and row["variance_minor"] == 0
    assert row["fills_minor"] == 1_000_000 and row["opening_minor"] == 5_000_000
    assert row["inventory_win_minor"] == row["ledger_win_minor"]

    app = LedgerApp(Settings(database_url=f"sqlite:///{db}",
                             deck_key_file=db.parent / "deck.key", log_level="WARNING"),
                    allow_seeded=True)  # the demo's tables deal from seeded shuffles
    try:
        register_signers(app, tmp_path / "var" / "demo-keys")  # the demo's signers' keys
        count(app, "CSP-1", "closing", tray_now(app, "CSP-1") - 100, "recount")
    finally:
        app.close()
    short = ledger("report", "inventory", "--day", day, db=db)
    assert short.returncode == 1, short.stderr
    assert "variance -1.00 (variance)" in short.stdout


def test_the_workbook_computes_paytable_mathematics_once_and_says_so(db: Path,
                                                                    tmp_path: Path) -> None:
    """The first ``export accounting --format xlsx`` computes the mathematics of the table's
    paytable, with a line on stderr, and stores them; the second computes none. A second
    table with the same paytable and another card source shares its figures (the digest
    leaves the card source out)."""
    from datetime import UTC, datetime

    from projections.reports.paytable import config_digest, normalised

    rng = normalised("high-card-flush", {"card_source": "rng"})
    recorded = normalised("high-card-flush", {"card_source": "recorded"})
    assert rng != recorded
    assert config_digest("high-card-flush", rng) == config_digest("high-card-flush", recorded)
    played = ledger("simulate", "--game", "high-card-flush", "--hands", "4", "--table", "HCF-1",
                    db=db)
    assert played.returncode == 0, played.stderr
    day = datetime.now(UTC).date().isoformat()
    args = ("export", "accounting", "--format", "xlsx", "--day", day, "--out",
            str(tmp_path / "out"))
    first = ledger(*args, db=db)
    assert first.returncode == 0, first.stderr
    assert "computing the high-card-flush mathematics" in first.stderr
    assert re.search(r"about \d+ s\.\.\.", first.stderr), first.stderr  # an estimate
    assert "computed the high-card-flush mathematics" in first.stderr
    second = ledger(*args, db=db)
    assert second.returncode == 0, second.stderr
    assert "mathematics" not in second.stderr

    month = ledger("report", "hold", "--month", day[:7], "--json", db=db)
    assert month.returncode == 0, month.stderr
    assert json.loads(month.stdout)["period"]["to"] == day  # never a day still to come
    future = ledger("report", "hold", "--month", f"{int(day[:4]) + 1}-01", db=db)
    assert future.returncode == 2 and future.stderr.startswith("error [invalid_period]")
