"""Writing export files: an output directory that must be writable, CSV that Excel opens
cleanly, JSON Lines, and amounts in currency units.

CSV: UTF-8 with a byte-order mark (Excel then reads accents and the euro sign right), comma
separated, one header row, ``\\r\\n`` line ends, amounts in currency units with the currency's
decimals (ISO 4217: ``1234.50`` EUR, ``1234`` JPY, ``1.234`` KWD; a point as decimal separator,
no thousands separator), empty cells for values that do not apply. JSON Lines: one object per
line, UTF-8, the same keys and values as the CSV (amounts as strings in the currency's decimals,
so that no reader turns them into floating point; empty cells as ``null``).
"""

from __future__ import annotations

import csv
import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from ledger.domain.errors import InvalidInput
from ledger.domain.money import to_decimal


def output_dir(path: str | Path) -> Path:
    """The directory ``path``, created if needed; ``output_not_writable`` when it cannot be."""
    directory = Path(path)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".ledger-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InvalidInput("output_not_writable",
                           f"cannot write to {directory}: {exc.strerror or exc}",
                           path=str(directory)) from None
    return directory


@contextmanager
def replaced_directory(target: Path) -> Iterator[Path]:
    """A new, empty directory beside ``target`` to write into; when the block ends without an
    error it takes ``target``'s place (an earlier ``target`` is removed), and when it fails it
    is removed and ``target`` is left as it was. So ``target`` holds exactly what one block
    wrote, never files of an earlier run mixed with those of this one.

    The swap is two renames in the same parent directory: a reader sees the old directory or
    the new one (or, for that instant between the two, none).
    """
    if target.is_file():
        raise InvalidInput("output_not_writable", f"cannot write the directory {target}: a "
                           "file of that name is in the way", path=str(target))
    tag = uuid.uuid4().hex[:12]
    staging = target.with_name(f".{target.name}.{tag}.new")
    old = target.with_name(f".{target.name}.{tag}.old")
    try:
        staging.mkdir()
    except OSError as exc:
        raise InvalidInput("output_not_writable", f"cannot write to {target.parent}: "
                           f"{exc.strerror or exc}", path=str(target)) from None
    try:
        yield staging
        # One swap at a time in this parent (two exports of one day may run at once): the lock
        # is taken on the parent directory itself, so it leaves no file behind.
        lock = os.open(target.parent, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if target.exists():
                target.rename(old)
            try:
                staging.rename(target)
            except BaseException:
                if old.exists():
                    old.rename(target)
                raise
        finally:
            os.close(lock)  # closing releases the lock
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InvalidInput("output_not_writable", f"cannot replace {target}: "
                           f"{exc.strerror or exc}", path=str(target)) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


def units(row: dict[str, Any], currency: str | None = None) -> dict[str, Any]:
    """A query row for export: ``*_minor`` amounts become ``*`` in currency units (text with the
    currency's decimals, ISO 4217: ``12.50`` EUR, ``1250`` JPY, ``1.250`` KWD), other values are
    kept."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key.endswith("_minor"):
            out[key.removesuffix("_minor")] = None if value is None else str(
                to_decimal(int(value), currency))
        elif isinstance(value, Decimal):
            out[key] = str(value)
        else:
            out[key] = value
    return out


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> int:
    count = 0
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\r\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if row.get(c) is None else _cell(row.get(c)) for c in columns])
            count += 1
    return count


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    count = 0
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
            count += 1
    return count
