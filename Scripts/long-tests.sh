#!/usr/bin/env bash
# Runs the suites that hold a test tagged `.long` with FOLIO_LONG_TESTS=1, so
# those tests do every case and size (a plain `swift test` does an eighth of
# the cases and skips the tests of size: TestEffort in Tests/FolioTestSupport).
# The suites are found from the tag, one file per
# suite named after it, so a new long test needs nothing here.
# Usage: Scripts/long-tests.sh [swift test options, e.g. --skip-build]
set -euo pipefail
cd "$(dirname "$0")/.."
suites=$(grep -rl --include='*.swift' '\.tags(\.long)' Tests | sed 's|.*/||; s|\.swift$||' | sort | paste -sd'|' -)
if [ -z "$suites" ]; then echo "no test is tagged .long"; exit 0; fi
FOLIO_LONG_TESTS=1 swift test "$@" --filter "\\.($suites)/"
