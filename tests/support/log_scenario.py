"""A full hand of every game over HTTP plus a forced 500, in a process of its own whose logs
are configured from the environment (``LEDGER_LOG_LEVEL``, ``LEDGER_LOG_FORMAT``) before anything
logs: the logs go to stderr, and stdout gets one JSON object with what must never be in them,
the face-down cards of each hand while it was in progress (as a table device's view masked
them) and the token secrets.

    LEDGER_DATABASE_URL=sqlite:///x.db LEDGER_LOG_LEVEL=DEBUG LEDGER_LOG_FORMAT=json \\
        python -m tests.support.log_scenario
"""

from __future__ import annotations

import json
import sys
from typing import Any, ClassVar

from ledger.logs import configure
from ledger.settings import get_settings


class Watching:
    """Mixed into the HTTP executor: every observation collects the cards the device's view
    masks (face down, in a hand in progress)."""

    hidden: ClassVar[set[str]] = set()


def masked_cards(masked: Any, full: Any, found: set[str]) -> None:
    if isinstance(full, dict) and isinstance(masked, dict):
        for key, value in full.items():
            masked_cards(masked.get(key), value, found)
    elif isinstance(full, list) and isinstance(masked, list):
        for m, f in zip(masked, full, strict=False):
            masked_cards(m, f, found)
    elif masked is None and isinstance(full, str):
        found.add(full)


def main() -> None:
    settings = get_settings()
    configure(settings.log_level, settings.log_format)
    from fastapi.testclient import TestClient

    from ledger.api import create_app
    from ledger.games.registry import GAMES
    from tests.support.http import HttpExecutor, make_tokens, play_table, view_of

    class Executor(HttpExecutor):
        def observe(self) -> Any:
            full = self.state()
            if full["hand"] is not None:
                seen = self.client.get(f"/tables/{self.code}",
                                       headers={"Authorization": f"Bearer {self.device}"})
                masked_cards(seen.json()["hand"], full["hand"], Watching.hidden)
            return view_of(full)

    app = create_app(settings)
    codes = [f"LOG-{n}" for n in range(len(GAMES))]
    tokens = make_tokens(app, codes)
    with TestClient(app, raise_server_exceptions=False) as client:
        for code, game in zip(codes, sorted(GAMES), strict=True):
            play_table(client, tokens, game, code, hands=1, seed=3, executor_type=Executor)
        secrets = [tokens.admin, tokens.auditor, tokens.accounting, tokens.device]

        def boom(*args: Any, **kwargs: Any) -> None:
            cards, token = sorted(Watching.hidden), secrets  # locals a traceback would print
            raise RuntimeError(f"forced failure holding {cards} and {token}")

        app.state.ledger.execute = boom
        failed = client.post(f"/tables/{codes[0]}/hands",
                             json={"command_id": "forced-500"},
                             headers={"Authorization": f"Bearer {tokens.device}"})
    print(json.dumps({"hidden": sorted(Watching.hidden), "secrets": secrets,
                      "forced_status": failed.status_code}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
