"""The export directory swap: a day's directory always holds exactly one export."""

from __future__ import annotations

import threading
from pathlib import Path

from projections.exports.files import replaced_directory


def test_concurrent_exports_of_one_day_each_replace_the_directory_whole(tmp_path: Path) -> None:
    target = tmp_path / "hands-2026-03-14-phh"
    errors: list[str] = []

    def export(writer: int) -> None:
        for round_no in range(30):
            try:
                with replaced_directory(target) as staging:
                    (staging / f"w{writer}-{round_no}.phh").write_text("x")
            except Exception as exc:  # the test reports every failure, not the first
                errors.append(repr(exc))

    threads = [threading.Thread(target=export, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(list(target.iterdir())) == 1  # the last export's one file, nothing stale
    assert [p.name for p in tmp_path.iterdir()] == ["hands-2026-03-14-phh"]
