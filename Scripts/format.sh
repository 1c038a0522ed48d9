#!/bin/sh
# Formats the package's Swift sources in place with the toolchain's
# swift-format and the repository's .swift-format (CONTRIBUTING.md,
# "Formatting"), or, with --lint, checks them as CI does and exits non-zero
# on the first difference.
#
#   Scripts/format.sh           # format Sources, Tests, Benchmarks and Fuzz in place
#   Scripts/format.sh --lint    # check only (what .ci/run runs)
set -eu
cd "$(dirname "$0")/.."
paths="Sources Tests Benchmarks/Sources Fuzz/Sources"
case "${1:-}" in
  --lint) exec swift format lint --strict --recursive --parallel --configuration .swift-format $paths ;;
  "") exec swift format format --in-place --recursive --parallel --configuration .swift-format $paths ;;
  *) echo "usage: Scripts/format.sh [--lint]" >&2; exit 2 ;;
esac
