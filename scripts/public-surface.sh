#!/usr/bin/env bash
# Counts the public surface of the two library modules, NetworkModuleCore and NetworkModuleTesting:
#
#   scripts/public-surface.sh           # a table: per module, public types and declarations
#   scripts/public-surface.sh --list    # the same, then every counted symbol, one a line
#
# It builds the two modules and extracts their public symbol graphs with scripts/docs.sh
# --symbol-graphs (so the documentation check and this count see the same symbols), then counts, per module, over its graph and its extension graphs (`Module@Other`, members the
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

modules=(NetworkModuleCore NetworkModuleTesting)
output=.build/docs/symbol-graphs

bash scripts/docs.sh --symbol-graphs >&2

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
