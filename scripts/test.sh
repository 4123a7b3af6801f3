#!/usr/bin/env bash
# The whole test suite, set up from nothing: the README's test command and what CI runs.
#
#   scripts/test.sh
#
# 1. Checks formatting (scripts/format.sh --lint), builds everything with warnings as errors (zero warnings is a project rule), checks
#    the public API against its recorded baseline (scripts/api-baseline.sh), builds the DocC
#    documentation, failing on any DocC warning or undocumented public symbol, and resolves the
#    release as docs/getting-started.md installs it (scripts/check-install.sh). Then compiles every
#    target for iOS and macOS with ../shared/apple-check (0 errors, 0 warnings, no runtime
#    symbol iOS 13 lacks), where that folder exists; CI requires it.
# 2. Runs the test-server supervisor's own tests, then starts httpbin, the fault server and an
#    HTTPS server on loopback (scripts/servers.py installs httpbin into a cached venv under
#    .build on first use) and runs the rest of this script under it (this script again, with
#    --with-servers), which stops them when the rest ends, pass or fail.
# 3. Runs every test target with CI=true, so the integration tests must run, never skip: the
#    unit, sample and testing-kit targets first, then the integration tests in a run of their
#    own, so that the stress tests' load cannot distort their timing.
# 4. Fuzzes request building and response handling with libFuzzer for a bounded time
#    (FUZZ_SECONDS per target, 30 by default), then runs the demo tour offline and against
#    httpbin.
# 5. Runs the unit and sample tests again under the thread and the address sanitizers (the
#    property and stress tests at a smaller size there: sanitizers slow everything down).
#
# Set SKIP_SANITIZERS=1 to leave out step 5 locally (it rebuilds everything twice, in
# .build-tsan and .build-asan).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Each step's time, printed when the next step starts and listed at the end. Kept in the
# environment, so that the run under the servers (this script again) goes on with the list and
# ends the step that started them.
export NETWORK_MODULE_STEP_TIMES="${NETWORK_MODULE_STEP_TIMES:-}"
export NETWORK_MODULE_STEP_NAME="${NETWORK_MODULE_STEP_NAME:-}"
export NETWORK_MODULE_STEP_STARTED="${NETWORK_MODULE_STEP_STARTED:-0}"
end_step() {
    [[ -n "$NETWORK_MODULE_STEP_NAME" ]] || return 0
    local seconds=$(($(date +%s) - NETWORK_MODULE_STEP_STARTED))
    printf '    (%s: %d s)\n' "$NETWORK_MODULE_STEP_NAME" "$seconds"
    NETWORK_MODULE_STEP_TIMES+="$(printf '%6d s  %s' "$seconds" "$NETWORK_MODULE_STEP_NAME")"$'\n'
    NETWORK_MODULE_STEP_NAME=""
}
step() {
    end_step
    NETWORK_MODULE_STEP_NAME="$*" NETWORK_MODULE_STEP_STARTED=$(date +%s)
    printf '\n==> %s\n' "$*"
}

# Steps 1 and 2, without servers; step 2 ends by running this script again under the servers.
if [[ "${1:-}" != --with-servers ]]; then

step "Format (swift format lint, .swift-format)"
bash scripts/format.sh --lint

step "Build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors

step "Public API against its baseline (scripts/api-baseline.sh, api/*.json)"
bash scripts/api-baseline.sh

step "Documentation (DocC, warnings are errors)"
bash scripts/docs.sh

step "Installing the release as getting-started says (scripts/check-install.sh)"
bash scripts/check-install.sh

step "Apple platforms: compile every target for iOS and macOS (../shared/apple-check)"
# Compiles, without linking, every target against real iOS 13/16 and macOS 10.15 SDK
# interfaces, and fails on any error, any warning, or a Swift runtime symbol iOS 13 lacks. The
# check lives beside the repository in the project's shared folder; a clone without it (a
# user's own) says so and goes on, but CI must run it.
apple_check="$(cd .. && pwd)/shared/apple-check/check.sh"
if [[ -x "$apple_check" ]]; then
    apple_log="$(mktemp)"
    # The libraries in dependency order: the test-support one is compiled as a library too.
    LIB_TARGETS="NetworkModuleCore NetworkModuleTesting NetworkModuleTestSupport" PLATFORMS="ios macos" \
        bash "$apple_check" . 2>&1 | tee "$apple_log" || true
    summary="$(tail -n 1 "$apple_log")"
    rm -f "$apple_log"
    if [[ "$summary" != "apple typecheck: 0 errors, 0 warnings" ]]; then
        echo "Apple check failed: $summary" >&2
        exit 1
    fi
elif [[ "${CI:-}" == "true" ]]; then
    echo "Apple check: $apple_check is missing, and CI must run it" >&2
    exit 1
else
    echo "Apple check skipped: no ../shared/apple-check beside this clone (CI runs it)."
fi

step "Test-server supervisor (python3 -m unittest scripts/test_servers.py)"
python3 -m unittest scripts/test_servers.py

step "Start the test servers"
exec python3 scripts/servers.py run -- bash scripts/test.sh --with-servers
fi

# The rest runs under scripts/servers.py, with the servers' URLs in the environment.
echo "httpbin: $NETWORK_MODULE_HTTPBIN_URL"
echo "fault server: $NETWORK_MODULE_FAULT_SERVER_URL"
echo "TLS server: ${NETWORK_MODULE_TLS_URL:-none}"

step "Unit, sample and testing-kit tests"
CI=true swift test -Xswiftc -warnings-as-errors --skip NetworkModuleIntegrationTests

step "Integration tests, against the local servers"
# A run of their own: they time deadlines and cancellations on the wall clock, and on two
# cores the unit suites' stress tests (16 busy threads) would starve them for seconds. The
# transport-lifecycle suite runs after the others, on its own: it starts child processes
# that send thousands of requests each, which delayed a 1 s timeout of another suite to 6 s.
# The soak suite, 22,000 requests in a child process, runs last and alone for the same reason
# (beside it, a stream that must reach 8 MiB in 2 s received nothing). The deadline attacks
# (2,000 requests with tiny timeouts in a child process, and completions that block for
# seconds) run on their own as well: beside them, a 307 POST loop of another suite once got no
# further than its second hop within 30 s.
CI=true swift test -Xswiftc -warnings-as-errors --filter NetworkModuleIntegrationTests \
    --skip TransportLifecycleIntegrationTests --skip SoakIntegrationTests --skip DeadlineAttackIntegrationTests
CI=true swift test -Xswiftc -warnings-as-errors --filter TransportLifecycleIntegrationTests
CI=true swift test -Xswiftc -warnings-as-errors --filter DeadlineAttackIntegrationTests
CI=true swift test -Xswiftc -warnings-as-errors --filter SoakIntegrationTests

step "Fuzzing (libFuzzer, bounded time per target)"
bash scripts/fuzz.sh --seconds "${FUZZ_SECONDS:-30}"

step "Demo tour, offline and against httpbin"
swift run -Xswiftc -warnings-as-errors network-module-demo
swift run -Xswiftc -warnings-as-errors network-module-demo --base-url "$NETWORK_MODULE_HTTPBIN_URL"

if [[ "${SKIP_SANITIZERS:-0}" != "1" ]]; then
    export NETWORK_MODULE_PROPERTY_CASES=10000 NETWORK_MODULE_STRESS_REQUESTS=4000
    step "Unit and sample tests under the thread sanitizer"
    swift test --sanitize=thread --scratch-path .build-tsan --skip NetworkModuleIntegrationTests
    step "Unit and sample tests under the address sanitizer"
    # Memory errors only: LeakSanitizer counts Swift's weak-reference side tables and XCTest's
    # own objects as leaks (hundreds of false reports, none in the framework). Leaks are
    # checked where they can be told apart: the weak-reference lifetime tests, and
    # scripts/fuzz.sh, which runs LeakSanitizer on the library code alone.
    ASAN_OPTIONS=detect_leaks=0 \
        swift test --sanitize=address --scratch-path .build-asan --skip NetworkModuleIntegrationTests
fi

end_step
printf '\n==> All tests passed. Time per step:\n%s' "$NETWORK_MODULE_STEP_TIMES"
