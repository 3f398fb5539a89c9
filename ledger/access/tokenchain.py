"""The tokens' chain: every change of ``ledger_tokens`` as one row of an append-only stream.

``ledger_tokens`` is what a request's token is looked up in (by id, one indexed read); beside it,
``ledger_token_chain`` records each change of it as a row: a sequence number, when, the kind
(``epoch``, ``create``, ``revoke``), the token, the token's whole stored row after the change as
canonical JSON (``body``: role, tables, seat, label, principal, revocation, the digest of its
secret), the previous row's digest and its own (over all of these), and a MAC of that digest
under a key derived from the deck key (never in the database, like the snapshots' key,
:func:`ledger.store.trust.snapshot_key`).

- An edited, deleted or inserted row breaks the chain where it happened (``row_edited``,
  ``row_missing``, ``row_unlinked``), and a row appended by someone without the key (a whole
  chain recomputed, a forged ``create`` of an admin token) fails its MAC (``row_forged``).
- A token row that says anything else than its last chain row (``UPDATE ledger_tokens`` making a
  device token an admin one, widening its tables, un-revoking it, binding it to another
  principal) is ``token_edited``; a token without a chain row is ``token_unchained``; a chained
  token gone from the table is ``token_deleted``.

The service refuses such a token (``token_chain_broken``, :meth:`TokenChain.check`);
``ledger audit verify`` reports every problem (``tokens_broken``, :func:`chain_problems`).
Stores from before the chain get an **epoch** row (the tokens as they stand, chained as they
are) the first time a ledger with the chain opens their tokens; an epoch is never written again
once a checkpoint has recorded the chain (a chain wiped by an insider is not re-made from the
edited table). The chain's head (:meth:`TokenChain.head`) is in every checkpoint.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ledger.domain.errors import LedgerError
from ledger.store.sidetables import CHECKPOINTS_TABLE, TOKEN_CHAIN_TABLE, SideTable

GENESIS = "0" * 64
COLUMNS = "seq, at, kind, token_id, body, prev_hash, row_hash, mac"
TOKEN_FIELDS = ("token_id", "secret_sha256", "role", "tables", "seat", "label", "created_at",
                "revoked_at", "principal_id")
"""The columns of ``ledger_tokens``, in the order the chain's bodies name them."""
OPEN_KEY = hashlib.sha256(b"table-ledger open tokens").digest()
"""The MAC key of a store whose deck keeper has no key (tests and benchmarks with open decks):
it still catches a careless edit, not a forger."""


def tokens_key(keeper: Any) -> bytes:
    """The key the chain's MACs are made with: derived from the deck key."""
    derive = getattr(keeper, "derived_key", None)
    if derive is not None:
        key: bytes = derive(b"tokens")
        return key
    return OPEN_KEY


def row_hash(prev: str, seq: int, at: str, kind: str, token_id: str, body: str) -> str:
    text = json.dumps([prev, seq, at, kind, token_id, body], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def mac(key: bytes, digest: str) -> str:
    return hmac.new(key, b"token-chain|" + digest.encode(), hashlib.sha256).hexdigest()


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def token_record(values: tuple[Any, ...]) -> dict[str, Any]:
    """A stored token row (the columns of :data:`TOKEN_FIELDS`) as the chain holds it."""
    found = dict(zip(TOKEN_FIELDS, values, strict=True))
    found["seat"] = None if found["seat"] is None else int(found["seat"])
    return found


@dataclass
class ChainState:
    """The chain folded: each token's last chained row, and what does not hold."""

    version: int = 0
    head: str = GENESIS
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)


def fold_rows(state: ChainState, rows: list[tuple[Any, ...]], key: bytes) -> ChainState:
    """``state`` with ``rows`` (in sequence order) folded in; a problem per row that does not
    hold (``seq``, ``kind``, ``expected``, ``found``)."""
    for values in rows:
        seq, at, kind, token_id, body, prev, digest, made = values
        seq = int(seq)
        if seq != state.version + 1:
            state.problems.append({"seq": state.version + 1, "kind": "row_missing",
                                   "expected": state.version + 1, "found": seq})
        if prev != state.head:
            state.problems.append({"seq": seq, "kind": "row_unlinked", "expected": state.head,
                                   "found": prev})
        again = row_hash(prev, seq, at, kind, token_id, body)
        if again != digest:
            state.problems.append({"seq": seq, "kind": "row_edited", "expected": again,
                                   "found": digest})
        elif not hmac.compare_digest(str(made), mac(key, digest)):
            state.problems.append({"seq": seq, "kind": "row_forged",
                                   "expected": "a MAC made with the service's key",
                                   "found": str(made)[:16]})
        state.version, state.head = seq, str(digest)
        try:
            data = json.loads(body)
            if kind == "epoch":
                for record in data["tokens"]:
                    state.tokens[str(record["token_id"])] = dict(record)
            else:
                state.tokens[str(token_id)] = dict(data)
        except (ValueError, KeyError, TypeError):
            state.problems.append({"seq": seq, "kind": "unreadable",
                                   "expected": "a token row as JSON", "found": str(body)[:80]})
    return state


def compare(state: ChainState, stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Where the tokens' table says something else than the chain (``token`` named)."""
    problems: list[dict[str, Any]] = []
    seen = set()
    for record in stored:
        token_id = str(record["token_id"])
        seen.add(token_id)
        chained = state.tokens.get(token_id)
        if chained is None:
            problems.append({"token": token_id, "kind": "token_unchained",
                             "expected": "a token the chain records", "found": record["role"]})
            continue
        differ = sorted(k for k in TOKEN_FIELDS if chained.get(k) != record.get(k))
        if differ:
            problems.append({"token": token_id, "kind": "token_edited",
                             "expected": {k: chained.get(k) for k in differ if k !=
                                          "secret_sha256"} or {"secret_sha256": "the chained"},
                             "found": {k: record.get(k) for k in differ if k !=
                                       "secret_sha256"} or {"secret_sha256": "another"}})
    problems.extend({"token": token_id, "kind": "token_deleted", "expected": chained["role"],
                     "found": None}
                    for token_id, chained in state.tokens.items() if token_id not in seen)
    return problems


class TokenChainBroken(LedgerError):
    """A token's stored row does not match its chain, or the chain does not hold."""


class TokenChain:
    """The chain of a store's tokens (a fleet's: its home store's)."""

    def __init__(self, recorder: Any, key: bytes, tokens_table: str) -> None:
        self.db = SideTable(recorder, TOKEN_CHAIN_TABLE)
        self.key = key
        self.tokens_table = tokens_table
        self._state: ChainState | None = None
        self._guard = threading.Lock()

    # --- reading ---------------------------------------------------------------------------

    def rows(self, after: int = 0) -> list[tuple[Any, ...]]:
        return self.db.query(f"SELECT {COLUMNS} FROM {self.db.name} WHERE seq > {self.db.p} "
                             "ORDER BY seq", (after,))

    def state(self) -> ChainState:
        """The chain now (only the rows added since the last call are read)."""
        with self._guard:
            known = self._state
        if known is None:
            state = fold_rows(ChainState(), self.rows(), self.key)
        else:
            rows = self.rows(max(known.version - 1, 0))
            if known.version and (not rows or int(rows[0][0]) != known.version
                                  or rows[0][6] != known.head):
                state = fold_rows(ChainState(), self.rows(), self.key)  # rewritten under us
            else:
                state = ChainState(known.version, known.head, dict(known.tokens),
                                   list(known.problems))
                fold_rows(state, rows[1:] if known.version else rows, self.key)
        with self._guard:
            self._state = state
        return state

    def head(self) -> dict[str, Any]:
        """``{"version": seq, "head": row_hash}`` of the last row (0 and the genesis digest
        when empty), for the checkpoints."""
        found = self.db.query(f"SELECT seq, row_hash FROM {self.db.name} ORDER BY seq DESC "
                              "LIMIT 1")
        if not found:
            return {"version": 0, "head": GENESIS}
        return {"version": int(found[0][0]), "head": str(found[0][1])}

    def check(self, record: dict[str, Any], head: tuple[int, str] | None = None) -> None:
        """Refuse a token whose stored row is not its last chained row, or any token while
        the chain does not hold (``token_chain_broken``). ``head``: the chain's last row
        (sequence number, digest) as the caller just read it; when it is the head already
        verified, the chain is not read again."""
        with self._guard:
            known = self._state
        fresh = known is not None and head is not None and head == (known.version, known.head)
        state = known if fresh and known is not None else self.state()
        if state.problems:
            first = state.problems[0]
            raise TokenChainBroken(
                "token_chain_broken", f"the tokens' chain does not hold at row {first['seq']} "
                f"({first['kind']}): no token is accepted until it is repaired (see `ledger "
                "audit verify`)", **first)
        chained = state.tokens.get(record["token_id"])
        found = compare(ChainState(tokens={} if chained is None else
                                   {record["token_id"]: chained}), [record])
        if found:
            raise TokenChainBroken(
                "token_chain_broken", f"token {record['token_id']} does not match its chain "
                f"({found[0]['kind']}): it is refused (see `ledger audit verify`)",
                token_id=record["token_id"], problem=found[0]["kind"])

    # --- writing ---------------------------------------------------------------------------

    def append(self, cursor: Any, kind: str, record: dict[str, Any]) -> None:
        """Append the change of ``record`` in the caller's transaction (``cursor``); a clash
        with another writer fails the transaction (the caller retries)."""
        cursor.execute(f"SELECT seq, row_hash FROM {self.db.name} ORDER BY seq DESC LIMIT 1",
                       ())
        last = cursor.fetchone()
        if last is None:
            self._epoch(cursor)
            cursor.execute(f"SELECT seq, row_hash FROM {self.db.name} ORDER BY seq DESC "
                           "LIMIT 1", ())
            last = cursor.fetchone()
            if last is None:
                raise TokenChainBroken(
                    "token_chain_broken", "the tokens' chain is empty though a checkpoint "
                    "recorded it: no token is made until it is restored (see `ledger audit "
                    "verify`)")
        values = tuple(last.values()) if isinstance(last, dict) else tuple(last)
        self._insert(cursor, int(values[0]) + 1, kind, str(record["token_id"]),
                     canonical(record), str(values[1]))

    def ensure_epoch(self) -> None:
        """The epoch row, when the chain is empty and no checkpoint has recorded it."""
        if self.db.query(f"SELECT 1 FROM {self.db.name} LIMIT 1"):
            return
        try:
            with self.db.recorder.datastore.transaction(commit=True) as cursor:
                self._epoch(cursor)
        except Exception as exc:
            # another process wrote it first; or this user may only read (the first process
            # that may write writes it, and until then the tokens are refused as unchained)
            # (eventsourcing wraps the driver's error: its cause names what happened)
            names = {type(exc).__name__, type(exc.__cause__).__name__}
            if not names & {"IntegrityError", "UniqueViolation", "InsufficientPrivilege",
                            "ReadOnlySqlTransaction", "OperationalError", "ProgrammingError"}:
                raise

    def _epoch(self, cursor: Any) -> None:
        if self._checkpointed(cursor):
            return  # wiped after a checkpoint recorded it: the audit names it, never re-made
        cursor.execute(f"SELECT {', '.join(TOKEN_FIELDS)} FROM {self.tokens_table} "
                       "ORDER BY created_at, token_id", ())
        records = [token_record(tuple(r.values()) if isinstance(r, dict) else tuple(r))
                   for r in cursor.fetchall()]
        self._insert(cursor, 1, "epoch", "", canonical({"tokens": records}), GENESIS)

    def _checkpointed(self, cursor: Any) -> bool:
        table = CHECKPOINTS_TABLE if self.db.sqlite else \
            self.db.name.rsplit(".", 1)[0] + f'."{CHECKPOINTS_TABLE}"'
        cursor.execute(f"SELECT body FROM {table} ORDER BY seq DESC LIMIT 1", ())
        last = cursor.fetchone()
        if last is None:
            return False
        body = (tuple(last.values()) if isinstance(last, dict) else tuple(last))[0]
        try:
            return int(json.loads(body)["heads"]["tokens"]["version"]) > 0
        except (ValueError, KeyError, TypeError):
            return True

    def _insert(self, cursor: Any, seq: int, kind: str, token_id: str, body: str,
                prev: str) -> None:
        at = datetime.now(UTC).isoformat(timespec="microseconds")
        digest = row_hash(prev, seq, at, kind, token_id, body)
        cursor.execute(f"INSERT INTO {self.db.name} ({COLUMNS}) VALUES ({self.db.marks(8)})",
                       (seq, at, kind, token_id, body, prev, digest, mac(self.key, digest)))


def chain_problems(chain: TokenChain) -> list[dict[str, Any]]:
    """Every problem of the chain and of the tokens' table against it (the audit's)."""
    state = fold_rows(ChainState(), chain.rows(), chain.key)
    stored = [token_record(r) for r in chain.db.query(
        f"SELECT {', '.join(TOKEN_FIELDS)} FROM {chain.tokens_table}")]
    return [*state.problems, *compare(state, stored)]
