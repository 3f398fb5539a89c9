"""What the chains beside the events cost: a token's lookup checked against the tokens' chain,
a token made (its row and its chain row in one transaction), a signed checkpoint of every chain
head, and the audit's new checks (tokens, snapshots, checkpoints) against the whole audit.

    .venv/bin/python -O ops/bench/chains.py [--tables 4] [--hands 20] [--lookups 2000]

The per-command path is not measured here: it is unchanged (no row is added to a command's
transaction; a checkpoint is periodic).
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any

from _common import fresh_store, optimised, postgres_available
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.access.tokens import TokenStore
from ledger.app.application import LedgerApp
from ledger.sim.runner import simulate
from projections.audit.checkpoint import make_checkpoint
from projections.audit.reader import consistent_read


def per_call(calls: int, func: Any) -> float:
    func()
    start = time.perf_counter()
    for _ in range(calls):
        func()
    return (time.perf_counter() - start) / calls


def measure(kind: str, tables: int, hands: int, lookups: int) -> None:
    with fresh_store(kind) as settings:
        app = LedgerApp(settings)
        try:
            for n in range(tables):
                simulate(app, "caribbean-stud", f"CSP-{n + 1}", hands, seed=n + 1)
            tokens = TokenStore.of(app, 0)
            token, _ = tokens.create("auditor", label="bench")
            checked = per_call(lookups, lambda: tokens.authenticate(token))
            check = tokens.chain.check
            tokens.chain.check = lambda record, head=None: None  # type: ignore[method-assign]
            plain = per_call(lookups, lambda: tokens.authenticate(token))
            tokens.chain.check = check  # type: ignore[method-assign]
            made = per_call(50, lambda: tokens.create("auditor", label="bench"))
            key = Ed25519PrivateKey.generate()
            signed = per_call(20, lambda: make_checkpoint(app, key))
            verify = importlib.import_module("projections.audit.verify")
            with consistent_read(app) as reader:
                tids = reader.table_ids()
            parts = {
                "tokens": per_call(3, lambda: verify.token_discrepancies(app)),
                "snapshots": per_call(3, lambda: verify.snapshot_discrepancies(app, tids)),
                "checkpoints": per_call(3, lambda: verify.checkpoint_discrepancies(
                    app, key.public_key())),
            }
            whole = per_call(1, lambda: verify.verify(app, public_key=key.public_key()))
        finally:
            app.close()
    print(f"{kind}: {tables} tables x {hands} hands")
    print(f"  token lookup (uncached): {checked * 1e3:.2f} ms with the chain check, "
          f"{plain * 1e3:.2f} ms without (x{checked / plain:.2f})")
    print(f"  token made (row + chain row, one transaction): {made * 1e3:.2f} ms")
    print(f"  checkpoint signed and stored: {signed * 1e3:.2f} ms")
    new = sum(parts.values())
    print("  audit: " + ", ".join(f"{k} {v * 1e3:.0f} ms" for k, v in parts.items())
          + f"; whole audit {whole * 1e3:.0f} ms (the new checks: {new / whole:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--lookups", type=int, default=2000)
    args = parser.parse_args()
    print(optimised())
    for kind in ("sqlite", *(("postgres",) if postgres_available() else ())):
        measure(kind, args.tables, args.hands, args.lookups)


if __name__ == "__main__":
    main()
