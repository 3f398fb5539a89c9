"""Checkpoints: every chain head of the store, signed every few minutes, chained to each other.

A daily seal (:mod:`projections.audit.seal`) fixes what the store held at the end of a gaming
day; between two seals an insider with write access to the database could rewrite a table
consistently (rename a player in every event, recompute the hash chain and the command log)
and the chains alone would still hold. A checkpoint closes that gap to minutes:

- it records the head of every chain: each table's last version and the chain digest of the
  event there, the register of principals' (:meth:`ledger.access.register.Register.head`), the
  tokens' chain's (:mod:`ledger.access.tokenchain`) and the access log's
  (:func:`ledger.access.accesslog.access_head`);
- it names the checkpoint before it (its sequence number and the SHA-256 of its stored JSON),
  so that checkpoints form a chain in which a missing or edited one shows;
- it is signed with the Ed25519 signing key of the seals (:mod:`projections.audit.keys`:
  ``LEDGER_SIGNING_KEY`` or its file), which the database does not hold;
- it is kept in ``ledger_checkpoints`` and, with ``LEDGER_CHECKPOINT_SINK`` set, appended as one
  JSON line to that file as well (a file on another host, a write-once bucket's mount): what a
  database insider cannot rewrite.

``ledger serve`` makes one every ``LEDGER_CHECKPOINT_MINUTES`` (default 5) and ``ledger
checkpoint`` makes one (for cron). ``ledger audit verify`` (:func:`check_checkpoints`) checks
every checkpoint's signature and link and holds the store against the latest: a table whose
event at the checkpointed version is gone or has another digest, a register, tokens' chain or
access log that no longer holds the checkpointed row, is ``checkpoint_mismatch``, without any
seal. It also holds every snapshot's keyed signature against the chain
(:func:`snapshot_problems`).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ledger.access.accesslog import access_head
from ledger.access.register import Register
from ledger.access.tokens import chain_of
from ledger.domain.errors import ConcurrencyError
from ledger.logs import get_logger
from ledger.store.fleet import StoreFleet, home_store_of, not_across_shards
from ledger.store.sidetables import CHECKPOINTS_TABLE, SideTable
from ledger.store.trust import DIGEST_KEY, snapshot_hmac
from ledger.table.events import chain_digest
from projections.audit import keys
from projections.audit.model import Discrepancy
from projections.audit.reader import consistent_read

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

log = get_logger("projections.audit.checkpoint")
FORMAT = "table-ledger checkpoint v1"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def signed_body(payload: dict[str, Any]) -> bytes:
    """The bytes a checkpoint's signature covers: its canonical JSON without the signature."""
    return _canonical({k: v for k, v in payload.items() if k != "signature"}).encode()


def digest(payload: dict[str, Any]) -> str:
    """The digest the next checkpoint records for this one (signature included)."""
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


def heads(app: Any) -> dict[str, Any]:
    """Every chain head of the store now."""
    tables = []
    with consistent_read(app) as reader:
        for tid, version in sorted(reader.table_sizes().items(), key=lambda kv: str(kv[0])):
            for stored in reader.events(tid, gt=version - 1, lte=version):
                tables.append({"table_id": str(tid), "version": version,
                               "digest": chain_digest(tid, version, stored.topic,
                                                      stored.state)})
    home = home_store_of(app)
    return {"tables": tables, "register": Register(home.recorder).head(),
            "tokens": chain_of(home).head(), "access_log": access_head(home)}


def _db(app: Any) -> SideTable:
    return SideTable(home_store_of(app).recorder, CHECKPOINTS_TABLE)


def stored_checkpoints(app: Any, *, last: bool = False) -> list[dict[str, Any]]:
    """The checkpoints in the store, in order (``last``: only the latest)."""
    db = _db(app)
    order = " DESC LIMIT 1" if last else ""
    found = []
    for seq, _, body in db.query(f"SELECT seq, at, body FROM {db.name} ORDER BY seq{order}"):
        try:
            payload = json.loads(body)
        except ValueError:
            payload = {"seq": int(seq), "unreadable": str(body)[:80]}
        if not isinstance(payload, dict):
            payload = {"seq": int(seq), "unreadable": str(body)[:80]}
        payload.setdefault("seq", int(seq))
        found.append(payload)
    return found


def make_checkpoint(app: Any, key: Ed25519PrivateKey, *, sink: Path | None = None,
                    now: datetime | None = None) -> dict[str, Any]:
    """Sign the store's chain heads now, after the latest checkpoint; store it (and append it
    to ``sink``). Two processes at once: one of them takes the next number, the other the one
    after."""
    if isinstance(app, StoreFleet):
        raise not_across_shards("a checkpoint")
    public = key.public_key()
    found = heads(app)
    db = _db(app)
    for _ in range(10):
        latest = stored_checkpoints(app, last=True)
        previous = latest[0] if latest else None
        seq = int(previous["seq"]) + 1 if previous else 1
        moment = (now or datetime.now(UTC)).isoformat(timespec="microseconds")
        payload: dict[str, Any] = {
            "format": FORMAT, "algorithm": "Ed25519", "key_id": keys.key_id(public),
            "seq": seq, "created_at": moment,
            "previous": None if previous is None else {"seq": previous["seq"],
                                                       "digest": digest(previous)},
            "heads": found,
        }
        payload["signature"] = keys.sign(key, signed_body(payload))
        try:
            db.execute(f"INSERT INTO {db.name} (seq, at, body) VALUES ({db.marks(3)})",
                       (seq, moment, _canonical(payload)))
        except Exception as exc:
            if "Integrity" not in type(exc).__name__ and "Unique" not in type(exc).__name__:
                raise
            continue
        if sink is not None:
            _append(sink, payload)
        return payload
    raise ConcurrencyError("concurrent_updates", "other checkpoints kept taking the next "
                           "number; try again")


def _append(sink: Path, payload: dict[str, Any]) -> None:
    """One JSON line at the end of ``sink``, flushed to disk."""
    sink.parent.mkdir(parents=True, exist_ok=True)
    with sink.open("a", encoding="utf-8") as out:
        out.write(_canonical(payload) + "\n")
        out.flush()
        os.fsync(out.fileno())


def sink_checkpoints(sink: Path) -> list[dict[str, Any]]:
    """The checkpoints a sink file holds (lines that are not JSON objects skipped)."""
    found = []
    with contextlib.suppress(FileNotFoundError), sink.open(encoding="utf-8") as lines:
        for line in lines:
            with contextlib.suppress(ValueError):
                payload = json.loads(line)
                if isinstance(payload, dict) and "seq" in payload:
                    found.append(payload)
    return found


def public_key_for(settings: Any, given: Ed25519PublicKey | None) -> Ed25519PublicKey | None:
    """The key checkpoints are checked with: the one given, else the public half of the
    signing key when this process has it, else None (signatures left unchecked)."""
    if given is not None:
        return given
    try:
        return keys.signing_key(settings).public_key()
    except Exception:  # no signing key here: the heads are still held, unsigned
        return None


def check_checkpoints(app: Any, key: Ed25519PublicKey | None, *,
                      sink: Path | None = None) -> list[Discrepancy]:
    """Each checkpoint's signature (with ``key``) and link, what the sink holds that the store
    lost, and the store held against the latest checkpoint."""
    found: list[Discrepancy] = []
    stored = stored_checkpoints(app)
    before: dict[str, Any] | None = None
    valid: list[dict[str, Any]] = []
    for payload in stored:
        seq = payload.get("seq")
        if key is not None and (payload.get("key_id") != keys.key_id(key) or not keys.valid(
                key, signed_body(payload), str(payload.get("signature", "")))):
            found.append(Discrepancy("checkpoints", None, "checkpoint_signature",
                                     {"checkpoint": seq, "key_id": keys.key_id(key)},
                                     payload.get("key_id")))
        else:
            valid.append(payload)
        link = None if before is None else {"seq": before.get("seq"), "digest": digest(before)}
        if payload.get("previous") != link:
            found.append(Discrepancy("checkpoints", None, "checkpoint_chain_broken",
                                     {"checkpoint": seq, "previous": link},
                                     payload.get("previous")))
        before = payload
    if sink is not None:
        mine = {int(p["seq"]): digest(p) for p in stored if isinstance(p.get("seq"), int)}
        for payload in sink_checkpoints(sink):
            if key is not None and not keys.valid(key, signed_body(payload),
                                                  str(payload.get("signature", ""))):
                continue  # not ours: nothing to hold the store against
            if mine.get(int(payload["seq"])) != digest(payload):
                found.append(Discrepancy("checkpoints", None, "checkpoint_missing",
                                         {"checkpoint": payload["seq"], "in": str(sink)},
                                         "missing" if int(payload["seq"]) not in mine
                                         else "another checkpoint"))
                valid.append(payload)
    if valid:
        latest = max(valid, key=lambda p: int(p.get("seq", 0)))
        found.extend(hold(app, latest))
    return found


def hold(app: Any, checkpoint: dict[str, Any]) -> list[Discrepancy]:
    """Where the store no longer holds what ``checkpoint`` recorded (``checkpoint_mismatch``)."""
    found: list[Discrepancy] = []
    seq = checkpoint.get("seq")
    recorded = checkpoint.get("heads") or {}
    now = heads(app)
    with consistent_read(app) as reader:
        for head in recorded.get("tables", ()):
            tid, version = UUID(str(head["table_id"])), int(head["version"])
            rows = list(reader.events(tid, gt=version - 1, lte=version))
            value = chain_digest(tid, version, rows[0].topic, rows[0].state) if rows else None
            if value != head["digest"]:
                found.append(Discrepancy(
                    _code(reader, tid), None, "checkpoint_mismatch",
                    {"checkpoint": seq, "version": version, "digest": head["digest"]},
                    {"version": version, "digest": value or "missing"}))
    home = home_store_of(app)
    for name, rows_at in (("register", _register_at), ("tokens", _tokens_at),
                          ("access_log", _access_at)):
        head = recorded.get(name)
        if not head:
            continue
        count = int(head.get("version", head.get("rows", 0)))
        if count == 0:
            continue
        value = rows_at(home, count)
        if value != head["head"]:
            found.append(Discrepancy(name.replace("_", "-"), None, "checkpoint_mismatch",
                                     {"checkpoint": seq, "row": count, "digest": head["head"]},
                                     {"row": count, "digest": value or "missing",
                                      "rows_now": now[name].get("version",
                                                                now[name].get("rows"))}))
    return found


def _code(reader: Any, tid: UUID) -> str:
    for stored in reader.events(tid, lte=1):
        with contextlib.suppress(ValueError, KeyError, TypeError):
            return str(json.loads(stored.state)["code"])
    return str(tid)


def _row_hash(db: SideTable, seq: int) -> str | None:
    found = db.query(f"SELECT row_hash FROM {db.name} WHERE seq = {db.p}", (seq,))
    return str(found[0][0]) if found else None


def _register_at(home: Any, seq: int) -> str | None:
    return _row_hash(Register(home.recorder).db, seq)


def _tokens_at(home: Any, seq: int) -> str | None:
    return _row_hash(chain_of(home).db, seq)


def _access_at(home: Any, seq: int) -> str | None:
    from ledger.store.sidetables import ACCESS_TABLE

    return _row_hash(SideTable(home.recorder, ACCESS_TABLE), seq)


def snapshot_problems(app: Any, tids: Any) -> list[Discrepancy]:
    """Every signed snapshot of ``tids`` held against the chain: its HMAC (the key derived from
    the deck key) and its chain digest against the stored event at its version
    (``snapshot_mismatch``). Snapshots from before they were signed carry no HMAC: left alone."""
    if getattr(app, "snapshots", None) is None:
        return []
    found: list[Discrepancy] = []
    for tid in tids:
        for snapshot in app.snapshots.get(tid):
            state = snapshot.state
            recorded = state.get(DIGEST_KEY)
            if not isinstance(recorded, str):
                continue
            version = snapshot.originator_version
            why = None
            if not hmac.compare_digest(recorded, snapshot_hmac(app.snapshot_key, tid, version,
                                                               state)):
                why = "its state does not match its keyed signature"
            else:
                rows = app.recorder.select_events(tid, gt=version - 1, lte=version)
                from ledger.store.mapper import state_bytes

                stored = chain_digest(tid, version, rows[0].topic, state_bytes(rows[0].state)) \
                    if rows else None
                if state.get("chain_head") != stored:
                    why = "its signed chain digest is not that of the stored event at its version"
            if why is not None:
                code = str((state.get("table") or {}).get("code") or tid)
                found.append(Discrepancy(code, None, "snapshot_mismatch",
                                         {"version": version, "why": why},
                                         {"chain_head": state.get("chain_head")}))
    return found


class Checkpointer:
    """The service's checkpoints: one every ``minutes``, in a thread of their own, while the
    signing key is at hand (without it: none, and a warning once)."""

    def __init__(self, app: Any, settings: Any) -> None:
        self.app = app
        self.settings = settings
        self.minutes = float(settings.checkpoint_minutes)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.minutes <= 0 or isinstance(self.app, StoreFleet):
            return
        try:
            key = keys.signing_key(self.settings)
        except Exception as exc:
            log.warning("checkpoints_off", reason=str(exc),
                        action="set LEDGER_SIGNING_KEY_FILE to sign checkpoints")
            return
        self._thread = threading.Thread(target=self._run, args=(key,), daemon=True,
                                        name="ledger-checkpoints")
        self._thread.start()

    def _run(self, key: Ed25519PrivateKey) -> None:
        while not self._stop.wait(self.minutes * 60):
            try:
                made = make_checkpoint(self.app, key, sink=self.settings.checkpoint_sink)
                log.info("checkpoint_signed", checkpoint=made["seq"])
            except Exception as exc:  # the next interval tries again
                log.warning("checkpoint_failed", reason=str(exc))

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
