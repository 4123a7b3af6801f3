#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format and the repository's .swift-format,
# or, with --lint, fails on anything that is not formatted (what scripts/test.sh runs).
#
#   scripts/format.sh          # rewrite in place
#   scripts/format.sh --lint   # check only
#
# The documentation samples (Tests/NetworkModuleSamplesTests) are left as written: each region
# there must equal, line for line, a code block in the docs, laid out for reading.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.swift' | grep -v '^Tests/NetworkModuleSamplesTests/')

if [[ "${1:-}" == "--lint" ]]; then
    swift format lint --strict --parallel "${files[@]}"
else
    swift format --in-place --parallel "${files[@]}"
fi
