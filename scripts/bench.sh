#!/usr/bin/env bash
# The performance harness against a real server on loopback.
#
#   scripts/bench.sh                 # every mode at full size (several minutes)
#   scripts/bench.sh --quick         # every mode at a tiny size: a smoke test, not a measurement
#   scripts/bench.sh --mode loopback --pairs 7 --json
#   scripts/bench.sh --mode download --pairs 3   # 1 GB to a file: module.download vs downloadTask
#
# Builds network-module-benchmarks in release, then runs it with --base-url pointing at nginx,
# started on a free 127.0.0.1 port by scripts/servers.py (which installs nginx from Debian if it
# is missing, and stops it on exit, pass or fail) with benchmarks/nginx.conf.template (keep-alive
# on; a ~400-byte JSON file from benchmarks/nginx, and a 1 MB file, a ~24 MB JSON array and, for
# download mode, a 1 GB file made at start). Arguments go to the harness.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"
state="$root/.build/bench-nginx"

# nginx's workers drop root privileges, and a clone under a private home directory is not
# readable to them: the files are served from a world-readable copy in a temporary folder.
# The 1 MB file is made there rather than committed: deterministic bytes, byte i = i % 251.
mkdir -p "$state"
docroot="$(mktemp -d)"
trap 'rm -rf "$docroot"' EXIT
cp -R "$root/benchmarks/nginx/." "$docroot/"
python3 -c "import sys; sys.stdout.buffer.write(bytes(i % 251 for i in range(1048576)))" >"$docroot/large.bin"
# The head-of-line mode's large JSON: about 24 MB, the small file's user repeated with new ids.
python3 - "$root/benchmarks/nginx/users/42.json" >"$docroot/users/large.json" <<'PYTHON'
import json, sys
user = json.load(open(sys.argv[1]))
count = 24 * 1024 * 1024 // (len(json.dumps(user)) + 2)
json.dump([dict(user, id=i) for i in range(count)], sys.stdout)
PYTHON
# Download mode's 1 GB file (the 1 MB pattern repeated), only when that mode is named (it is not
# among the default modes) and the disk has room for it and each run's copy: 3 GB free at least.
if [[ " $* " == *" --mode download "* ]]; then
    free_kb="$(df -Pk "$docroot" | awk 'NR == 2 { print $4 }')"
    if (( free_kb >= 3 * 1024 * 1024 )); then
        for _ in $(seq 1 1024); do cat "$docroot/large.bin"; done >"$docroot/huge.bin"
    else
        echo "[bench.sh] only $((free_kb / 1024)) MB free under $docroot: no 1 GB file, download mode will fail" >&2
    fi
fi
chmod -R a+rX "$docroot"

# scripts/servers.py fills in @PORT@.
sed -e "s|@ROOT@|$docroot|g" -e "s|@STATE@|$state|g" "$root/benchmarks/nginx.conf.template" >"$state/nginx.conf"

swift build -c release --product network-module-benchmarks >&2
harness="$(swift build -c release --show-bin-path)/network-module-benchmarks"
python3 scripts/servers.py run --nginx "$state/nginx.conf" -- \
    bash -c '"$0" --base-url "$NETWORK_MODULE_NGINX_URL" "$@"' "$harness" "$@"
