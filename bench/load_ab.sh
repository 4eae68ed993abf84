#!/usr/bin/env bash
# Load test, side by side: another checkout's app and this one's, alternately, on one machine.
#
# Usage: bash bench/load_ab.sh OLD_CHECKOUT [ROUNDS] [bench/load_test.py arguments...]
#
# Each side runs its own bench/load_test.py (its tools' inputs may differ) with this
# checkout's virtualenv (PYTHONPATH picks the old code). Prints the search and ask rows,
# CPU and ingestion lines of every run, prefixed old/new, with `uptime` before each.
set -euo pipefail
old=$(cd "$1" && pwd)
rounds=${2:-2}
shift $(( $# >= 2 ? 2 : 1 ))
new=$(cd "$(dirname "$0")/.." && pwd)
python="$new/.venv/bin/python"
args=(--users 20 --duration 60 --ask-share 0.2 "$@")
for _ in $(seq "$rounds"); do
  for side in old new; do
    uptime
    dir=$([ "$side" = old ] && echo "$old" || echo "$new")
    (cd "$dir" && PYTHONPATH="$dir" "$python" bench/load_test.py "${args[@]}" 2>&1 \
      | grep -E '^\| (search|ask) |^CPU|^Ingestion' | sed "s/^/$side /")
  done
done
uptime
