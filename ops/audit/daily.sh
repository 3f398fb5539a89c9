#!/usr/bin/env bash
# The daily routine after a gaming day has ended (docs/auditor/index.md): seal the day, audit it
# from the seal of the day before, and write its exports for accounting.
#
#   ops/audit/daily.sh [DAY]        DAY: YYYY-MM-DD, default the gaming day that ended last
#
# Settings, from the environment: LEDGER (the command, default .venv/bin/ledger), TABLES_TZ (the
# tables' time zone, default Europe/Amsterdam; the day is reckoned there, with gaming days
# starting at 06:00), SEALS (the seals' directory, default seals), OUT (the exports' directory,
# default out/DAY), and the ledger's own LEDGER_* settings (the store, the signing key, and
# LEDGER_SEAL_PUBLIC_KEY: the public key the auditor holds; unset, that of the signing key).
# Exit status: 0 when the day's audit holds, 1 when it found a discrepancy, 2 on an error.
set -uo pipefail
LEDGER=${LEDGER:-.venv/bin/ledger}
TABLES_TZ=${TABLES_TZ:-Europe/Amsterdam}
SEALS=${SEALS:-seals}
DAY=${1:-$(TZ=$TABLES_TZ date -d '30 hours ago' +%F)}
OUT=${OUT:-out/$DAY}
BEFORE=$(date -d "$DAY -1 day" +%F) || exit 2

mkdir -p "$SEALS" "$OUT" || exit 2
if [ -z "${LEDGER_SEAL_PUBLIC_KEY:-}" ]; then
    LEDGER_SEAL_PUBLIC_KEY=$("$LEDGER" keys show | awk '/^public key/ {print $3}') || exit 2
    export LEDGER_SEAL_PUBLIC_KEY
fi
# 1. Seal the day (signed with the signing key; linked to seal-BEFORE.json when it is there).
"$LEDGER" audit seal --day "$DAY" --out "$SEALS/seal-$DAY.json" || exit 2
# 2. Audit the day: from the seal of the day before when there is one (it reads only the events
#    since), else the whole store.
if [ -f "$SEALS/seal-$BEFORE.json" ]; then
    "$LEDGER" audit verify --day "$DAY" --seal "$SEALS/seal-$BEFORE.json" \
        --json > "$OUT/audit-$DAY.json"
else
    "$LEDGER" audit verify --day "$DAY" --json > "$OUT/audit-$DAY.json"
fi
audit=$?
[ "$audit" -le 1 ] || exit 2
# 3. The day's files for accounting: CSV and JSON Lines, the workbook, the hand histories.
"$LEDGER" export accounting --day "$DAY" --out "$OUT" || exit 2
"$LEDGER" export accounting --format xlsx --day "$DAY" --out "$OUT" || exit 2
"$LEDGER" export hands --day "$DAY" --format jsonl --out "$OUT" || exit 2
echo "gaming day $DAY: sealed in $SEALS/seal-$DAY.json, audit in $OUT/audit-$DAY.json" \
     "($([ "$audit" -eq 0 ] && echo holds || echo DISCREPANCIES)), exports in $OUT/"
exit "$audit"
