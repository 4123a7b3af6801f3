#!/usr/bin/env bash
# Coverage-guided fuzzing of NetworkModuleCore with the toolchain's libFuzzer.
#
#   scripts/fuzz.sh                       # every target for 30 s each
#   scripts/fuzz.sh --seconds 300         # longer
#   scripts/fuzz.sh --target request-building --seconds 60
#   scripts/fuzz.sh --merge               # fuzz, then merge new coverage into Fuzz/Corpus
#                                         # (a minimal covering set; named seeds are kept)
#   scripts/fuzz.sh --seed 0              # a random seed (default 1: the same mutations every
#                                         # run, so a CI failure replays; explore with 0)
#
# Targets (Fuzz/<Name>Fuzz.swift, each with Fuzz/FuzzInput.swift):
#   request-building    bytes -> path, method, query items, headers, body, timeout (any Double),
#                       acceptable status codes (any Int values and ranges) -> DefaultRequestBuilder
#   response-handling   bytes -> status, headers, body, transport error or another domain's error,
#                       acceptable status codes -> interpretation (errors keep the session's
#                       message), decode / decodeIfPresent / text(), Retry-After, Cache-Control and
#                       Cache-Status, and the public key a pin hashes, read as from a certificate
#
# Each target is compiled with swiftc (no SwiftPM target: it needs -sanitize=fuzzer,address)
# from the NetworkModuleCore sources plus its file, as one module, into .build/fuzz/. It runs
# from the corpus in Fuzz/Corpus/<target>/ (read only: new inputs go to .build/fuzz/corpus/);
# any crash, sanitizer report, leak or property violation fails the script, and the input
# that caused it is saved as .build/fuzz/artifacts/<target>/crash-* (replay it with
# `.build/fuzz/<target> <file>`). With --merge, the corpus's merged inputs are replaced by a
# minimal set covering everything found so far; it must stay under 200 files and 1 MB.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"
out="$root/.build/fuzz"

seconds=30
seed=1
merge=0
targets=(request-building response-handling)
while (($#)); do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --target) targets=("$2"); shift 2 ;;
        --merge) merge=1; shift ;;
        -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "[fuzz.sh] unknown argument: $1" >&2; exit 2 ;;
    esac
done

log() { printf '[fuzz.sh] %s\n' "$*" >&2; }

# libFuzzer ships with the Swift toolchain on Linux (clang's compiler-rt).
swiftc_bin="$(command -v swiftc)"
toolchain_lib="$(dirname "$(dirname "$(readlink -f "$swiftc_bin")")")/lib"
if ! compgen -G "$toolchain_lib/clang/*/lib/*/libclang_rt.fuzzer*.a" >/dev/null \
    && ! compgen -G "$toolchain_lib/swift/clang/lib/*/libclang_rt.fuzzer*" >/dev/null; then
    log "error: this toolchain has no libFuzzer (libclang_rt.fuzzer) under $toolchain_lib"
    exit 1
fi

# The target file's Swift name: request-building -> RequestBuilding.
swift_name() {
    local part name=""
    IFS=- read -ra parts <<<"$1"
    for part in "${parts[@]}"; do name+="${part^}"; done
    printf '%s\n' "$name"
}

build() {
    local target="$1" name binary stamp sources
    name="$(swift_name "$target")"
    binary="$out/$target"
    [[ -f "$root/Fuzz/${name}Fuzz.swift" ]] || { log "error: no target Fuzz/${name}Fuzz.swift"; exit 2; }
    # Compile a snapshot, so that an edit while swiftc runs does not fail the build.
    rm -rf "$out/src/$target"
    mkdir -p "$out/src/$target"
    cp -R "$root/Sources/NetworkModuleCore" "$out/src/$target/Core"
    cp "$root/Fuzz/FuzzInput.swift" "$root/Fuzz/${name}Fuzz.swift" "$out/src/$target/"
    mapfile -t sources < <(find "$out/src/$target" -name '*.swift' | LC_ALL=C sort)
    # Rebuild only when a source changed (a build takes a few minutes).
    stamp="$(cat "${sources[@]}" | sha256sum | cut -d' ' -f1)"
    if [[ -x "$binary" && -f "$binary.stamp" && "$(cat "$binary.stamp")" == "$stamp" ]]; then
        return 0
    fi
    log "building $target (swiftc -sanitize=fuzzer,address)"
    mkdir -p "$out"
    swiftc -O -g -parse-as-library -swift-version 6 -sanitize=fuzzer,address \
        -module-name "Fuzz${name}" -package-name NetworkModule -module-cache-path "$out/module-cache" \
        -emit-executable -o "$binary" "${sources[@]}" >"$out/$target.build.log" 2>&1 || {
        grep -E 'error' "$out/$target.build.log" | head -n 20 >&2
        log "error: building $target failed; log: ${out#"$root"/}/$target.build.log"
        exit 1
    }
    printf '%s\n' "$stamp" >"$binary.stamp"
}

# Replaces the corpus's merged files (named by their SHA-1, as libFuzzer names them) with the
# smallest set of inputs that covers every edge reached by the corpus and this run's new inputs
# (-set_cover_merge, hit counts ignored: covering those too would take hundreds of files). The named seed files are kept as they are. Refuses to write a corpus over
# its budget (200 files, 1 MB).
merge_into_corpus() {
    local target="$1" corpus="$2" work="$3" merged="$out/merged/$1" file files bytes
    rm -rf "$merged"
    mkdir -p "$merged"
    "$out/$target" -set_cover_merge=1 -use_counters=0 -max_len=4096 "$merged" "$corpus" "$work" >>"$out/$target.log" 2>&1
    # Drop inputs identical to a named seed.
    for file in "$corpus"/*; do
        [[ "$(basename "$file")" =~ ^[0-9a-f]{40}$ ]] && continue
        rm -f "$merged/$(sha1sum "$file" | cut -d' ' -f1)"
    done
    files=$(($(find "$merged" -type f | wc -l) + $(find "$corpus" -type f | grep -cvE '/[0-9a-f]{40}$' || true)))
    bytes=$(($(du -sb "$merged" | cut -f1) + $(find "$corpus" -type f | grep -vE '/[0-9a-f]{40}$' | xargs -r cat | wc -c)))
    if ((files >= 200 || bytes >= 1048576)); then
        log "not merged: $target's corpus would have $files files, $bytes bytes (budget: < 200 files, < 1 MB)"
        return 1
    fi
    find "$corpus" -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' -delete
    cp "$merged"/* "$corpus"/ 2>/dev/null || true
    log "$target corpus: $files files, $bytes bytes (${corpus#"$root"/})"
}

status=0
for target in "${targets[@]}"; do
    build "$target"
    corpus="$root/Fuzz/Corpus/$target"
    work="$out/corpus/$target"
    artifacts="$out/artifacts/$target"
    mkdir -p "$corpus" "$work" "$artifacts"
    log "fuzzing $target for $seconds s (corpus: ${corpus#"$root"/}, $(find "$corpus" -type f | wc -l) files)"
    rc=0
    # The first corpus directory receives new inputs: keep the repository's read only.
    "$out/$target" "$work" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 -seed="$seed" \
        -artifact_prefix="$artifacts/" >"$out/$target.log" 2>&1 || rc=$?
    grep -a -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::new_units_added|Done [0-9]+ runs)' "$out/$target.log" >&2 || true
    if ((rc != 0)); then
        status=1
        log "FAILED: $target (exit $rc); log: ${out#"$root"/}/$target.log"
        grep -a -E 'ERROR|property violated|Fatal error|Test unit written' "$out/$target.log" | head -n 20 >&2 || true
        continue
    fi
    if ((merge)); then
        merge_into_corpus "$target" "$corpus" "$work" || status=1
    fi
done
((status == 0)) && log "all targets ran clean"
exit "$status"
