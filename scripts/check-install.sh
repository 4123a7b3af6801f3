#!/usr/bin/env bash
# The release a user installs, as docs/getting-started.md tells them to:
#
#   scripts/check-install.sh
#
# - VERSION holds the current release, MAJOR.MINOR.PATCH, and getting-started (its step 1 and
#   its `from: "…"`) and README's Install section name it;
# - a package whose Package.swift holds getting-started's `dependencies:` and `targets:` lines,
#   word for word, resolves against this repository checked out beside it as the guide says
#   (`path: "../NetworkModule"`), and finds both products;
# - the same package resolves with the `path:` line replaced by the guide's URL form,
#   `.package(url: …, from: "<VERSION>")`, against a clone of this repository served by git
#   with the release's tag. The tag is made in that clone when this checkout lacks it (a clone
#   of a branch may have no tags), so the check needs no network and no published release.
#
# SwiftPM only resolves and loads the package graph here (`swift package show-dependencies`),
# which is where a wrong package name, product name or version requirement fails; nothing is
# compiled, so the check takes seconds. The CHANGELOG side of the release (a dated section for
# VERSION) is a unit test: Tests/NetworkModuleSamplesTests/ReleaseTests.swift.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
guide=docs/getting-started.md

fail() {
    echo "check-install: $*" >&2
    exit 1
}

version="$(tr -d '[:space:]' < VERSION)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "VERSION holds '$version', not MAJOR.MINOR.PATCH"

# The fenced block after the `<!-- install: package-swift -->` marker.
manifest_lines="$(awk '
    /<!-- install: package-swift -->/ { marked = 1; next }
    marked && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }
' "$guide")"
[[ -n "$manifest_lines" ]] || fail "$guide has no block after <!-- install: package-swift -->"
grep -q '\.package(path: "\.\./NetworkModule")' <<< "$manifest_lines" \
    || fail "$guide's install block has no .package(path: \"../NetworkModule\") line"
grep -q "from: \"$version\"" "$guide" \
    || fail "$guide does not give the URL form with from: \"$version\" (VERSION holds $version)"
grep -q "NetworkModule $version is the current release" "$guide" \
    || fail "$guide does not open step 1 with \"NetworkModule $version is the current release\""
grep -q "The current release is $version" README.md \
    || fail "README.md's Install section does not say \"The current release is $version\""

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A consumer package of the guide's lines, beside a checkout named as the guide says.
make_consumer() { # directory, dependency line
    mkdir -p "$1/Sources/MyApp" "$1/Tests/MyAppTests"
    echo 'import NetworkModuleCore' > "$1/Sources/MyApp/MyApp.swift"
    echo 'import NetworkModuleTesting' > "$1/Tests/MyAppTests/MyAppTests.swift"
    {
        echo '// swift-tools-version:6.0'
        echo 'import PackageDescription'
        echo 'let package = Package('
        echo '    name: "MyApp",'
        sed "s|\.package(path: \"\.\./NetworkModule\")|$2|" <<< "$manifest_lines"
        echo ')'
    } > "$1/Package.swift"
}

resolve() { # directory, what
    if ! output="$(cd "$1" && swift package show-dependencies 2>&1)"; then
        printf '%s\n--- the Package.swift made of %s:\n' "$output" "$guide" >&2
        cat "$1/Package.swift" >&2
        fail "the $2 form of $guide does not resolve"
    fi
    grep -q "networkmodule" <<< "$output" || fail "the $2 form resolved without NetworkModule: $output"
    echo "check-install: the $2 form resolves: $(grep -o 'networkmodule<[^>]*>' <<< "$output")"
}

ln -s "$root" "$work/NetworkModule"
make_consumer "$work/MyApp" '.package(path: "../NetworkModule")'
resolve "$work/MyApp" "path"

git clone --quiet --no-local "$root" "$work/server/NetworkModule.git"
if ! git -C "$work/server/NetworkModule.git" rev-parse --quiet --verify "refs/tags/$version" > /dev/null; then
    git -C "$work/server/NetworkModule.git" tag "$version"
fi
make_consumer "$work/url/MyApp" ".package(url: \"file://$work/server/NetworkModule.git\", from: \"$version\")"
resolve "$work/url/MyApp" "URL"
grep -q "@$version>" <<< "$output" || fail "the URL form resolved to another version than $version: $output"
