#!/usr/bin/env bash
# Run the whole test suite RUNS times in a row while every core also runs a busy loop
# (issue 18: "ten consecutive runs of the suite under CPU load without a single failure").
# Usage: bash bench/suite_under_load.sh [RUNS] [extra pytest arguments...]
# Prints one line per run (exit status, wall time, pytest's summary) and a total; a failed
# run's whole output is kept in suite-under-load-<run>.log in the system's temp folder.
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
shift || true
busy=()
for _ in $(seq "$(nproc)"); do
    yes >/dev/null &
    busy+=("$!")
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT
echo "$(date -u +%FT%TZ) $(nproc) busy loops; $(uptime)"
failed=0
for run in $(seq "$runs"); do
    started=$(date +%s)
    log="$(mktemp)"
    .venv/bin/python -m pytest -q "$@" >"$log" 2>&1
    status=$?
    summary="$(grep -E '^[0-9]+ (passed|failed)|(passed|failed|error).* in [0-9.]+s' "$log" | tail -1)"
    echo "run $run: exit $status, $(( $(date +%s) - started )) s, $summary; $(uptime | sed 's/.*load/load/')"
    if [ "$status" -eq 0 ]; then
        rm -f "$log"
    else
        failed=$((failed + 1))
        grep -E '^(FAILED|ERROR) ' "$log"
        mv "$log" "${TMPDIR:-/tmp}/suite-under-load-$run.log"
    fi
done
echo "$(date -u +%FT%TZ) $runs runs, $failed failed"
[ "$failed" -eq 0 ]
