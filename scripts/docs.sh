#!/usr/bin/env bash
# Builds the DocC documentation of NetworkModuleCore and NetworkModuleTesting as static sites:
#
#   scripts/docs.sh
#
# 1. Builds the two library modules (an ordinary debug build: it shares .build with
#    `swift build` and rebuilds nothing that is up to date; no extra compiler flags, so it
#    never invalidates the normal build).
# 2. Extracts their public symbol graphs with the toolchain's swift-symbolgraph-extract.
# 3. Runs the toolchain's `docc convert` on each catalog (Sources/*/*.docc) with
#    --warnings-as-errors: an unresolved ``symbol`` link, a documented parameter that does
#    not exist, a broken article reference, any DocC warning fails the build.
# 4. Checks that every public symbol has a doc comment of its own, and that every page of the
#    catalogs holds prose (no page that is only a Topics list).
#
# The sites are written to .build/docs/NetworkModuleCore.doccarchive and
# .build/docs/NetworkModuleTesting.doccarchive. To read one, serve it and open
# /documentation/networkmodulecore (or /documentation/networkmoduletesting):
#
#   python3 -m http.server --directory .build/docs/NetworkModuleCore.doccarchive 8000
#
# `scripts/docs.sh --symbol-graphs` stops after step 2, leaving the graphs in
# .build/docs/symbol-graphs/<module> (scripts/public-surface.sh counts them).
#
# Environment: DOCC=/path/to/docc to use another docc. Needs python3 for step 4.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

modules=(NetworkModuleCore NetworkModuleTesting)
output=.build/docs

# The toolchain's tools live next to `swift` (there is no xcrun on Linux).
swift_path="$(command -v swift)" || fail "swift is not on PATH"
toolchain_bin="$(dirname "$(readlink -f "$swift_path")")"
find_tool() {
    local name=$1
    if [[ -x "$toolchain_bin/$name" ]]; then
        echo "$toolchain_bin/$name"
    elif command -v "$name" >/dev/null 2>&1; then
        command -v "$name"
    elif command -v xcrun >/dev/null 2>&1; then
        xcrun --find "$name"
    else
        fail "cannot find $name next to $swift_path, on PATH or with xcrun"
    fi
}
graphs_only=false
[[ "${1:-}" == --symbol-graphs ]] && graphs_only=true
$graphs_only || docc="${DOCC:-$(find_tool docc)}"
symbolgraph_extract="$(find_tool swift-symbolgraph-extract)"

step "Build ${modules[*]}"
swift build --target NetworkModuleTesting  # builds NetworkModuleCore, which it depends on

bin_path="$(swift build --show-bin-path)"
modules_path="$bin_path/Modules"
[[ -d "$modules_path" ]] || modules_path="$bin_path"  # SwiftPM before 6 puts modules in the bin folder
target_triple="$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')"
sdk_arguments=()
if command -v xcrun >/dev/null 2>&1; then
    sdk_arguments=(-sdk "$(xcrun --show-sdk-path)")
fi

step "Extract symbol graphs"
for module in "${modules[@]}"; do
    graphs="$output/symbol-graphs/$module"
    rm -rf "$graphs"
    mkdir -p "$graphs"
    "$symbolgraph_extract" \
        -module-name "$module" -target "$target_triple" "${sdk_arguments[@]}" \
        -I "$modules_path" -output-dir "$graphs" \
        -minimum-access-level public -skip-inherited-docs -emit-extension-block-symbols
done
$graphs_only && exit 0

# Every public symbol declared in this package has a doc comment of its own, members of
# extensions to Foundation's types (URLSession, URLRequest, …) included. Exempt: symbols DocC
# synthesizes for protocol conformances (`!=`, default implementations of the standard library).
# Where a symbol is listed is DocC's business: a type's page groups its members by itself.
check_documented() {
    python3 - "$1" "$2" <<'PYTHON'
import glob, json, os, sys

module, graphs = sys.argv[1:3]
package_modules = {"NetworkModuleCore", "NetworkModuleTesting"}

checked, missing = 0, []
for path in glob.glob(os.path.join(graphs, "*.symbols.json")):
    name = os.path.basename(path)[: -len(".symbols.json")]
    extended = name.split("@")[1] if "@" in name else None
    for symbol in json.load(open(path))["symbols"]:
        usr = symbol["identifier"]["precise"]
        if "::SYNTHESIZED::" in usr or symbol["kind"]["identifier"] == "swift.extension":
            continue
        checked += 1
        lines = (symbol.get("docComment") or {}).get("lines", [])
        if not any(line.get("text", "").strip() for line in lines):
            missing.append("/".join(([extended] if extended else []) + symbol["pathComponents"]))
if missing:
    print(f"error: {len(missing)} public symbol(s) of {module} have no doc comment:", file=sys.stderr)
    for path in sorted(missing):
        print(f"  {path}", file=sys.stderr)
    sys.exit(1)
print(f"{module}: all {checked} public symbols have a doc comment")
PYTHON
}

# Every page of a catalog says something in prose: a line that is not a heading, a directive, a
# blank line or an item of a list of links. A page only of Topics would hold nothing a reader
# needs; DocC groups a type's members by itself.
check_prose() {
    python3 - "$1" <<'PYTHON'
import glob, os, re, sys

catalog = sys.argv[1]
bare = []
for path in sorted(glob.glob(os.path.join(catalog, "**", "*.md"), recursive=True)):
    prose = [
        line for line in open(path, encoding="utf-8")
        if line.strip() and not re.match(r"\s*(#|@|- ``|- <doc:|```)", line)
    ]
    if not prose:
        bare.append(path)
if bare:
    print(f"error: {len(bare)} page(s) of {catalog} hold no prose:", file=sys.stderr)
    for path in bare:
        print(f"  {path}", file=sys.stderr)
    sys.exit(1)
PYTHON
}

for module in "${modules[@]}"; do
    step "DocC: $module"
    archive="$output/$module.doccarchive"
    log="$output/$module.docc.log"
    rm -rf "$archive"
    # --warnings-as-errors makes docc exit non-zero on a warning; the log is checked too, so a
    # docc that only prints them still fails the build.
    if ! "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$output/symbol-graphs/$module" \
        --output-dir "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --warnings-as-errors 2>&1 | tee "$log"; then
        fail "docc reported problems for $module (see above, or $log)"
    fi
    if grep -qE '(^|[^a-z])(warning|error):' "$log"; then
        fail "docc reported problems for $module (see above, or $log)"
    fi
    check_documented "$module" "$output/symbol-graphs/$module"
    check_prose "Sources/$module/$module.docc"
done

step "Documentation built"
for module in "${modules[@]}"; do
    echo "$output/$module.doccarchive"
done
