#!/usr/bin/env bash
# The performance harness against a real server on loopback.
#
#   scripts/bench.sh                 # every mode at full size (several minutes)
#   scripts/bench.sh --quick         # every mode at a tiny size: a smoke test, not a measurement
#   scripts/bench.sh --mode loopback --pairs 7 --json
#   scripts/bench.sh --mode download --pairs 3   # 1 GB to a file: module.download vs downloadTask
#
# Installs nginx from Debian if it is missing, starts it on a free 127.0.0.1 port with
# benchmarks/nginx.conf.template (keep-alive on; a ~400-byte JSON file from benchmarks/nginx,
# and a 1 MB file, a ~24 MB JSON array and, for download mode, a 1 GB file made at start), runs
# network-module-benchmarks in release with --base-url pointing at it,
# and stops nginx on exit, pass or fail. Arguments go to the harness.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"
state="$root/.build/bench-nginx"

if ! command -v nginx >/dev/null 2>&1 && [[ ! -x /usr/sbin/nginx ]]; then
    echo "[bench.sh] installing nginx (Debian package nginx-light)" >&2
    if [[ "$(id -u)" != "0" ]]; then
        echo "[bench.sh] error: nginx is missing and this is not root; install nginx first" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

# nginx's workers drop root privileges, and a clone under a private home directory is not
# readable to them: the files are served from a world-readable copy in a temporary folder.
# The 1 MB file is made there rather than committed: deterministic bytes, byte i = i % 251.
mkdir -p "$state"
docroot="$(mktemp -d)"
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

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
sed -e "s|@PORT@|$port|g" -e "s|@ROOT@|$docroot|g" -e "s|@STATE@|$state|g" \
    "$root/benchmarks/nginx.conf.template" >"$state/nginx.conf"

"$nginx_bin" -c "$state/nginx.conf" -e "$state/error.log" &
nginx_pid=$!
stop_nginx() {
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    rm -rf "$docroot"
}
trap stop_nginx EXIT

base_url="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "$base_url/users/42.json" 2>/dev/null; then
        break
    fi
    sleep 0.1
done
python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=2)" "$base_url/users/42.json" \
    || { echo "[bench.sh] error: nginx did not start; see $state/error.log" >&2; exit 1; }
echo "[bench.sh] nginx at $base_url" >&2

swift build -c release --product network-module-benchmarks >&2
"$(swift build -c release --show-bin-path)/network-module-benchmarks" --base-url "$base_url" "$@"
