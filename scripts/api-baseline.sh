#!/usr/bin/env bash
# The public API of NetworkModuleCore and NetworkModuleTesting against the committed baseline.
#
#   scripts/api-baseline.sh            # fails if the built API differs from api/*.json, saying how
#   scripts/api-baseline.sh --update   # records the built API as the new baseline
#
# The baseline is the toolchain's own description of each module's public API
# (`swift-api-digester -dump-sdk`), in api/<Module>.json, with `package` declarations left out:
# SemVer covers the public API only. The check builds the two modules, dumps them again and
# compares every public declaration (its kind, name, signature, conformances and attributes):
#
# - nothing changed: it passes;
# - anything changed: it lists the declarations added, removed and changed, and then what
#   `swift-api-digester -diagnose-sdk` finds against the baseline: any finding there is a change
#   that breaks source compatibility (a removal, a rename, a changed type or requirement); none
#   means the change only adds. Either way it fails until the baseline is updated.
#
# Updating the baseline is a deliberate step, in the same commit as the CHANGELOG line that
# tells users of the change (CONTRIBUTING.md, "The public API"). The baseline is made on Linux,
# where CI runs: elsewhere the check compares declarations (with Foundation's types named alike
# on every system) but leaves out the diagnosis.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

modules=(NetworkModuleCore NetworkModuleTesting)
mode="${1:-}"
if [[ -n "$mode" && "$mode" != --update ]]; then
    echo "usage: scripts/api-baseline.sh [--update]" >&2
    exit 2
fi

# With the flags of scripts/test.sh's build, so that neither build undoes the other's work.
swift build --target NetworkModuleTesting -Xswiftc -warnings-as-errors >&2
modules_dir="$(swift build --show-bin-path)/Modules"
[[ -d "$modules_dir" ]] || modules_dir="$(swift build --show-bin-path)"
work=.build/api
mkdir -p "$work" api

status=0
for module in "${modules[@]}"; do
    swift-api-digester -dump-sdk -module "$module" -I "$modules_dir" -o "$work/$module.raw.json" \
        -avoid-location -avoid-tool-args -abort-on-module-fail
    # Left out: `package` declarations (`isInternal` in the dump), which SemVer does not cover.
    python3 scripts/api_baseline.py public "$work/$module.raw.json" "$work/$module.json"
    if [[ "$mode" == --update ]]; then
        cp "$work/$module.json" "api/$module.json"
        echo "api/$module.json: recorded"
        continue
    fi
    if [[ ! -f "api/$module.json" ]]; then
        echo "api/$module.json is missing: record the API with scripts/api-baseline.sh --update" >&2
        status=1
        continue
    fi
    if python3 scripts/api_baseline.py compare "api/$module.json" "$work/$module.json"; then
        echo "$module: public API as recorded in api/$module.json"
        continue
    fi
    status=1
    if [[ "$(uname -s)" == Linux ]]; then
        findings="$(swift-api-digester -diagnose-sdk -baseline-path "api/$module.json" -module "$module" \
            -I "$modules_dir" 2>&1 | grep -v -e '^/\*' -e '^$' || true)"
        if [[ -n "$findings" ]]; then
            printf '%s: the change breaks source compatibility (swift-api-digester):\n%s\n' "$module" \
                "$(sed 's/^/    /' <<<"$findings")"
        else
            echo "$module: the change only adds (swift-api-digester finds nothing that breaks source compatibility)"
        fi
    fi
done

if [[ "$status" != 0 ]]; then
    cat >&2 <<'EOF'

The public API differs from the recorded baseline (api/*.json). If the change is meant, record
it in the same commit as its CHANGELOG line: scripts/api-baseline.sh --update. Since 1.0.0 a
change that breaks source compatibility needs a major version (CONTRIBUTING.md, "The public API").
EOF
fi
exit "$status"
