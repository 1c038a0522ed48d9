#!/bin/sh
# The full crash test (docs/RELIABILITY.md): a folio child saves a large
# document over and over and is killed with SIGKILL at random moments; after
# each kill the package must open and hold one whole version, never an older
# one. Two workloads run side by side: a ~550 KiB document.xml (the Animals
# sample enlarged), and an album whose every save adds a blob and replaces
# another.
#
#   Scripts/crash-test.sh                          # 250 kills per workload
#   Scripts/crash-test.sh 1000                     # more
#   FOLIO_CRASH_SEED=123 Scripts/crash-test.sh     # replay a run's random draws
#
# Prints each workload's figures (kills survived, versions saved and
# observed, kills that interrupted a write, time, seed) and exits non-zero on
# any failure.
set -eu
cd "$(dirname "$0")/.."
kills="${1:-250}"
log="$(mktemp "${TMPDIR:-/tmp}/folio-crash-test.XXXXXX")"
trap 'rm -f "$log"' EXIT
status=0
FOLIO_CRASH_KILLS="$kills" FOLIO_CRASH_OBJECTS="${FOLIO_CRASH_OBJECTS:-5000}" swift test --filter 'FolioCLITests.CrashTests' >"$log" 2>&1 || status=$?
grep -E '^crash test' "$log" || true
if [ "$status" -ne 0 ]; then
    grep -E '✘|error:|recorded an issue' "$log" | head -40
    echo "crash test FAILED (exit $status)" >&2
    exit "$status"
fi
echo "crash test passed: $kills kills per workload"
