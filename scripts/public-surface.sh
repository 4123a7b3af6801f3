#!/usr/bin/env bash
# Counts the public surface of the two library modules, NetworkModuleCore and NetworkModuleTesting:
#
#   scripts/public-surface.sh           # a table: per module, public types and declarations
#   scripts/public-surface.sh --list    # the same, then every counted symbol, one a line
#
# It builds the two modules and extracts their public symbol graphs with the toolchain's
# swift-symbolgraph-extract, as scripts/docs.sh does (same flags, so both see the same symbols),
# then counts, per module, over its graph and its extension graphs (`Module@Other`, members the
# module adds to another module's types):
#
# - types: symbols of kind struct, class, enum, protocol, typealias or actor, nested ones
#   included (`CachedSession.Configuration` is a type); "top-level" counts those not nested in
#   another type;
# - declarations: every symbol a user can name: the types, and every public initializer,
#   method, property, subscript, operator, enum case, associated type and global.
#
# Not counted: extension blocks (`swift.extension` symbols, which declare nothing by themselves),
# and the members a symbol graph synthesizes for conformances (`::SYNTHESIZED::`, such as `!=`
# from Equatable), which the package does not declare. Their numbers are printed beside the
# table so that nothing is hidden. `package` and `internal` symbols are not in a public graph.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

modules=(NetworkModuleCore NetworkModuleTesting)
output=.build/public-surface

swift_path="$(command -v swift)" || fail "swift is not on PATH"
toolchain_bin="$(dirname "$(readlink -f "$swift_path")")"
if [[ -x "$toolchain_bin/swift-symbolgraph-extract" ]]; then
    symbolgraph_extract="$toolchain_bin/swift-symbolgraph-extract"
elif command -v swift-symbolgraph-extract >/dev/null 2>&1; then
    symbolgraph_extract="$(command -v swift-symbolgraph-extract)"
elif command -v xcrun >/dev/null 2>&1; then
    symbolgraph_extract="$(xcrun --find swift-symbolgraph-extract)"
else
    fail "cannot find swift-symbolgraph-extract next to $swift_path, on PATH or with xcrun"
fi

swift build --target NetworkModuleTesting >&2  # builds NetworkModuleCore, which it depends on

bin_path="$(swift build --show-bin-path)"
modules_path="$bin_path/Modules"
[[ -d "$modules_path" ]] || modules_path="$bin_path"  # SwiftPM before 6 puts modules in the bin folder
target_triple="$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')"
sdk_arguments=()
if command -v xcrun >/dev/null 2>&1; then
    sdk_arguments=(-sdk "$(xcrun --show-sdk-path)")
fi

for module in "${modules[@]}"; do
    rm -rf "${output:?}/$module"
    mkdir -p "$output/$module"
    "$symbolgraph_extract" \
        -module-name "$module" -target "$target_triple" "${sdk_arguments[@]}" \
        -I "$modules_path" -output-dir "$output/$module" \
        -minimum-access-level public -skip-inherited-docs -emit-extension-block-symbols
done

python3 - "$output" "${1:-}" "${modules[@]}" <<'PYTHON'
import glob, json, os, sys

output, mode, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
type_kinds = {"struct", "class", "enum", "protocol", "typealias", "actor"}

rows, listing = [], []
for module in modules:
    types = top_level = declarations = blocks = synthesized = 0
    for path in sorted(glob.glob(os.path.join(output, module, "*.symbols.json"))):
        for symbol in json.load(open(path))["symbols"]:
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            if kind == "extension":
                blocks += 1
                continue
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                synthesized += 1
                continue
            declarations += 1
            types += kind in type_kinds
            top_level += kind in type_kinds and len(symbol["pathComponents"]) == 1
            listing.append(f"{module}\t{kind}\t{'.'.join(symbol['pathComponents'])}")
    rows.append((module, types, top_level, declarations, blocks, synthesized))

print(f"{'module':<22}{'types':>7}{'top-level':>11}{'declarations':>14}   (not counted: extension blocks, synthesized)")
for module, types, top_level, declarations, blocks, synthesized in rows:
    print(f"{module:<22}{types:>7}{top_level:>11}{declarations:>14}   ({blocks}, {synthesized})")
print(f"{'total':<22}{sum(r[1] for r in rows):>7}{sum(r[2] for r in rows):>11}{sum(r[3] for r in rows):>14}")
if mode == "--list":
    print()
    print("\n".join(sorted(listing)))
PYTHON
