#!/bin/sh
# Fuzzes Folio's package loader with libFuzzer for a bounded time.
#
#   ./run.sh [SECONDS] [extra libFuzzer flags...]     (default 60 seconds)
#   ./run.sh --build-only                              (build and check it, as CI does)
#
# Builds the FolioFuzz target with the fuzzer and address sanitizers, seeds a
# corpus (work/corpus) from the sample documents as format 1 held them
# (Tests/FolioTests/Support/Format1Packages/*.folio/document.xml) and the
# hand-written documents in corpus/, then runs with the XML/Folio dictionary.
# A crash, hang (> 5 s per input) or RSS above 2 GB stops the run and leaves the
# input in work/artifacts/; keep it as a regression in
# Tests/FolioTests/Support/FuzzCrashers/ with a test in HostileInputTests.swift.
# To replay one input: SWIFT_BACKTRACE=enable=no .build/release/FolioFuzz work/artifacts/crash-…
# (FOLIO_FUZZ_VERBOSE=1 prints whether it loaded or the error it got).
set -eu
cd "$(dirname "$0")"
# ./run.sh --build-only: build and check the instrumentation, no fuzzing (CI).
build_only=no
if [ "${1:-}" = "--build-only" ]; then build_only=yes; shift; fi
seconds=${1:-60}
[ $# -gt 0 ] && shift

# Folio and its dependencies get ASan and libFuzzer's coverage counters
# (-sanitize-coverage needs a sanitizer). Only the FolioFuzz target is compiled
# and linked with -sanitize=fuzzer (Package.swift): given to every product
# (--sanitize=fuzzer), libFuzzer's main also went into the macro plug-in, which
# has its own, and the link failed. SwiftPM defines the executable's `main` as
# FolioFuzz_main, which runs libFuzzer's driver. -enable-testing: the target
# uses @testable import to check the graph's invariants and round trip.
build() {
    swift build -c release --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xswiftc -enable-testing
}
binary=.build/release/FolioFuzz
instrumented() {
    SWIFT_BACKTRACE=enable=no "$binary" -runs=0 >work/probe.log 2>&1
    grep -q 'inline 8-bit counters' work/probe.log
}
mkdir -p work
build
# A binary without coverage counters would fuzz blind.
if ! instrumented; then
    cat work/probe.log >&2
    echo "error: $binary has no coverage instrumentation" >&2
    exit 1
fi
if [ "$build_only" = yes ]; then
    echo "built $binary, instrumented"
    exit 0
fi

mkdir -p work/corpus work/artifacts
for sample in ../Tests/FolioTests/Support/Format1Packages/*.folio/document.xml; do
    name=$(basename "$(dirname "$sample")" .folio)
    cp "$sample" "work/corpus/sample-$name.xml"
done
cp corpus/*.xml work/corpus/

log="work/fuzz-$(date +%Y%m%d-%H%M%S).log"
echo "fuzzing for $seconds s; log in Fuzz/$log"
status=0
# No Swift backtracer: after a trap under ASan it can hang, holding the run open.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} "$binary" work/corpus \
    -dict=xml.dict \
    -max_total_time="$seconds" \
    -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 \
    -timeout=5 \
    -max_len=16384 \
    -print_final_stats=1 \
    -artifact_prefix=work/artifacts/ \
    "$@" 2>"$log" || status=$?

# The figures of the run: the last status line, libFuzzer's final stats, any findings.
grep -E '^#[0-9]+' "$log" | tail -1 || true
grep -E '^stat::' "$log" || true
if [ "$status" -ne 0 ]; then
    grep -E 'ERROR|SUMMARY|Fatal error|Test unit written' "$log" | head -20
    echo "libFuzzer stopped with status $status: see Fuzz/$log"
fi
ls work/artifacts
exit "$status"
