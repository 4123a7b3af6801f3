#!/usr/bin/env bash
# Self-check of the integration-test servers (scripts/servers.sh).
#
#   bash scripts/test_servers_selftest.sh
#
# 1. `servers.sh run -- python3 CHECKS`: hits httpbin /get?a=1 (plus a small
#    concurrency check) and every fault-server route with a timeout, printing
#    one line per check.
# 2. Library mode: sources servers.sh under `set -euo pipefail`, start, a
#    request, stop (twice: stop is idempotent).
# 3. `run` passes the command's exit status through.
# 4. Checks that no server process is left behind.
# Exits non-zero if anything is off. Needs only bash and python3.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
SERVERS="$SCRIPT_DIR/servers.sh"
# A state dir of its own, so the self-test never touches servers that a
# developer has running from the default .build/test-servers.
export TEST_SERVERS_STATE_DIR="${TEST_SERVERS_STATE_DIR:-$ROOT/.build/test-servers-selftest}"
failures=0

read -r -d '' CHECKS <<'PY' || true
import concurrent.futures, json, os, socket, sys, time, urllib.request
from urllib.parse import urlsplit

HB = os.environ["NETWORK_MODULE_HTTPBIN_URL"]
FS = os.environ["NETWORK_MODULE_FAULT_SERVER_URL"]
FS_PORT = urlsplit(FS).port
NOPROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
results = []

def pattern(n):
    return (bytes(range(251)) * (n // 251 + 1))[:n]

def raw(path, method="GET", headers=(), body=b"", timeout=10, limit=None):
    """One request over a plain socket; returns (status_line, [(name, value)], body)."""
    s = socket.create_connection(("127.0.0.1", FS_PORT), timeout=timeout)
    try:
        req = "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % (method, path, FS_PORT)
        for k, v in headers:
            req += "%s: %s\r\n" % (k, v)
        if body and not any(k.lower() in ("content-length", "transfer-encoding") for k, _ in headers):
            req += "Content-Length: %d\r\n" % len(body)
        s.sendall(req.encode("latin-1") + b"\r\n" + body)
        data = bytearray()
        while limit is None or len(data) < limit:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    head, _, rest = bytes(data).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdrs = [tuple(x.split(": ", 1)) for x in lines[1:] if ": " in x]
    return lines[0], hdrs, rest

def hget(hdrs, name):
    return [v for k, v in hdrs if k.lower() == name.lower()]

def check(name, fn):
    t0 = time.monotonic()
    try:
        detail = fn() or ""
        ok = True
    except Exception as e:  # noqa: BLE001 - report every failure the same way
        ok, detail = False, "%s: %s" % (type(e).__name__, e)
    dt = time.monotonic() - t0
    results.append(ok)
    print("%-4s %-34s %6.2fs  %s" % ("ok" if ok else "FAIL", name, dt, detail), flush=True)

def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)

# --- httpbin ---------------------------------------------------------------
def hb_get():
    with NOPROXY.open(HB + "/get?a=1", timeout=10) as r:
        expect(r.status == 200, "status %s" % r.status)
        doc = json.load(r)
    expect(doc["args"] == {"a": "1"}, "args %r" % doc["args"])
    return "args=%s" % json.dumps(doc["args"])

def hb_concurrent():
    def one(_):
        with NOPROXY.open(HB + "/delay/1", timeout=15) as r:
            return r.status
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(16) as ex:
        statuses = list(ex.map(one, range(16)))
    dt = time.monotonic() - t0
    expect(statuses == [200] * 16, "statuses %r" % statuses)
    expect(dt < 5, "16 parallel /delay/1 took %.1fs" % dt)
    return "16 parallel /delay/1 in %.2fs" % dt

# --- fault server ----------------------------------------------------------
def f_health():
    st, h, b = raw("/health")
    expect(st.startswith("HTTP/1.1 200") and b == b"ok", "%s %r" % (st, b))
    return "ok"

def f_hang():
    try:
        st, h, b = raw("/hang", timeout=1.5)
    except socket.timeout:
        return "no answer within 1.5s"
    raise AssertionError("got an answer: %r" % st)

def f_close_mid_body():
    st, h, b = raw("/close-mid-body")
    expect(st.startswith("HTTP/1.1 200") and hget(h, "Content-Length") == ["1000"], st)
    expect(len(b) == 100, "%d body bytes" % len(b))
    return "Content-Length 1000, got 100 bytes then EOF"

def f_malformed_status():
    st, h, b = raw("/malformed-status")
    expect(st == "HTPP/1.1 abc", repr(st))
    return repr(st)

def f_short_body():
    st, h, b = raw("/short-body")
    expect(hget(h, "Content-Length") == ["500"] and len(b) == 10, "%r %d" % (h, len(b)))
    return "Content-Length 500, got 10 bytes then EOF"

def f_large_default():
    st, h, b = raw("/large", timeout=30)
    expect(hget(h, "Content-Length") == ["10485760"], repr(h))
    expect(len(b) == 10485760 and b == pattern(10485760), "len %d or content differs" % len(b))
    return "10485760 bytes, byte i == i % 251"

def f_large_n():
    st, h, b = raw("/large?bytes=1000")
    expect(hget(h, "Content-Length") == ["1000"] and b == pattern(1000), "len %d" % len(b))
    return "1000 bytes"

def f_endless():
    limit = 5 * 1024 * 1024
    st, h, b = raw("/endless", timeout=30, limit=limit)
    expect(st.startswith("HTTP/1.1 200") and not hget(h, "Content-Length"), repr(h))
    n = len(b) // 251 * 251
    expect(len(b) >= limit - 1024 and b[:n] == pattern(n), "content differs")
    return "read %d bytes, then hung up" % len(b)

def f_endless_chunked():
    st, h, b = raw("/endless?chunked=1", timeout=30, limit=1024 * 1024)
    expect(hget(h, "Transfer-Encoding") == ["chunked"], repr(h))
    expect(b.startswith(b"10000\r\n" + pattern(100)), repr(b[:20]))
    return "chunked, 64 KiB chunks"

def f_odd_header_casing():
    st, h, b = raw("/odd-header-casing")
    expect(("x-LoWeR-uPpEr", "mixed") in h, repr(h))
    expect(("CONTENT-TYPE", "application/json") in h, repr(h))
    expect([v for k, v in h if k == "x-duplicate"] == ["a", "b"], repr(h))
    expect(json.loads(b) == {"ok": True}, repr(b))
    return "x-LoWeR-uPpEr, CONTENT-TYPE, x-duplicate a+b"

def f_slow():
    t0 = time.monotonic()
    st, h, b = raw("/slow?bytes=5&delay_ms=100")
    dt = time.monotonic() - t0
    expect(b == pattern(5) and hget(h, "Content-Length") == ["5"], repr(b))
    expect(0.35 <= dt < 3, "took %.2fs" % dt)
    return "5 bytes over %.2fs" % dt

def f_slow_default():
    st, h, b = raw("/slow")
    expect(len(b) == 20, "len %d" % len(b))
    return "20 bytes"

def f_slow_headers():
    t0 = time.monotonic()
    st, h, b = raw("/slow-headers?delay_ms=300")
    dt = time.monotonic() - t0
    expect(json.loads(b) == {"ok": True} and dt >= 0.28, "%.2fs %r" % (dt, b))
    return "answered after %.2fs" % dt

def f_empty_200():
    st, h, b = raw("/empty-200")
    expect(st.startswith("HTTP/1.1 200") and hget(h, "Content-Length") == ["0"] and b == b"", st)
    return "Content-Length 0"

def f_not_json():
    st, h, b = raw("/not-json")
    expect(hget(h, "Content-Type") == ["application/json"] and b == b'{"a":', repr(b))
    try:
        json.loads(b)
    except ValueError:
        return "body %r does not parse" % b
    raise AssertionError("body parsed as JSON")

def f_non_utf8():
    st, h, b = raw("/non-utf8")
    expect(hget(h, "Content-Type") == ["text/plain; charset=utf-8"] and b == b"\xff\xfe\xfd", repr(b))
    return "body %r" % b

def f_redirect_to():
    target = HB + "/get"
    st, h, b = raw("/redirect-to?url=%s&status=307" % urllib.request.quote(target, safe=""))
    expect(st.startswith("HTTP/1.1 307") and hget(h, "Location") == [target], "%s %r" % (st, h))
    st2, h2, _ = raw("/redirect-to?url=/x")
    expect(st2.startswith("HTTP/1.1 302"), st2)
    return "307 -> %s; default 302" % target

def f_echo_headers():
    sent = [("Authorization", "Bearer secret"), ("X-MiXeD-Case", "1"), ("x-rep", "a"), ("x-rep", "b")]
    st, h, b = raw("/echo-headers", headers=sent)
    doc = json.loads(b)
    expect(doc.get("Authorization") == "Bearer secret", repr(doc))
    expect(doc.get("X-MiXeD-Case") == "1" and "x-mixed-case" not in doc, repr(doc))
    expect(doc.get("x-rep") == ["a", "b"], repr(doc))
    # A request body is consumed, plain or chunked.
    st, h, b = raw("/echo-headers", method="POST", body=b"x" * 100000)
    expect(st.startswith("HTTP/1.1 200") and json.loads(b)["Content-Length"] == "100000", st)
    chunked = b"5\r\nhello\r\n0\r\n\r\n"
    st, h, b = raw("/echo-headers", method="POST", headers=[("Transfer-Encoding", "chunked")], body=chunked)
    expect(st.startswith("HTTP/1.1 200"), st)
    return "casing kept, repeats as list, bodies consumed"

def f_unknown():
    st, h, b = raw("/no-such-route?x=1")
    expect(st.startswith("HTTP/1.1 404") and json.loads(b) == {"error": "unknown fault route"}, st)
    return "404 unknown fault route"

check("httpbin GET /get?a=1", hb_get)
check("httpbin 16 x /delay/1 in parallel", hb_concurrent)
for name, fn in [
    ("/health", f_health), ("/hang", f_hang), ("/close-mid-body", f_close_mid_body),
    ("/malformed-status", f_malformed_status), ("/short-body", f_short_body),
    ("/large", f_large_default), ("/large?bytes=1000", f_large_n),
    ("/endless", f_endless), ("/endless?chunked=1", f_endless_chunked),
    ("/odd-header-casing", f_odd_header_casing), ("/slow?bytes=5&delay_ms=100", f_slow),
    ("/slow", f_slow_default), ("/slow-headers?delay_ms=300", f_slow_headers),
    ("/empty-200", f_empty_200), ("/not-json", f_not_json), ("/non-utf8", f_non_utf8),
    ("/redirect-to", f_redirect_to), ("/echo-headers", f_echo_headers),
    ("/no-such-route (404)", f_unknown), ("/health after the faults", f_health),
]:
    check("fault " + name, fn)
failed = results.count(False)
print("routes: %d passed, %d failed" % (len(results) - failed, failed))
sys.exit(1 if failed else 0)
PY

# Live (non-zombie) server processes started with this self-test's state dir.
stray_servers() {
    local f pid rest state cmd
    for f in /proc/[0-9]*/cmdline; do
        pid="${f#/proc/}"
        pid="${pid%/cmdline}"
        cmd="$(tr '\0' ' ' <"$f" 2>/dev/null)" || continue
        [[ "$cmd" == *gunicorn*" --chdir $TEST_SERVERS_STATE_DIR "* ||
            "$cmd" == *fault_server.py*" $TEST_SERVERS_STATE_DIR/"* ]] || continue
        { read -r rest <"/proc/$pid/stat"; } 2>/dev/null || continue
        rest="${rest##*) }"
        state="${rest%% *}"
        [[ "$state" == Z ]] && continue
        printf '%s %s\n' "$pid" "$cmd"
    done
}

echo "== 1. servers.sh run -- python3 (route checks)"
if ! bash "$SERVERS" run -- python3 -c "$CHECKS"; then
    echo "FAIL: route checks"
    failures=$((failures + 1))
fi

echo "== 2. library mode: source servers.sh; trap stop EXIT; start; stop"
if ! (
    set -euo pipefail
    # shellcheck source=servers.sh
    source "$SERVERS"
    trap stop EXIT
    start
    [[ "$NETWORK_MODULE_HTTPBIN_URL" == http://127.0.0.1:* && "$NETWORK_MODULE_FAULT_SERVER_URL" == http://127.0.0.1:* ]]
    grep -q "^export NETWORK_MODULE_FAULT_SERVER_URL=$NETWORK_MODULE_FAULT_SERVER_URL\$" "$TEST_SERVERS_STATE_DIR/env"
    python3 -c 'import os, urllib.request as u
o = u.build_opener(u.ProxyHandler({}))
assert o.open(os.environ["NETWORK_MODULE_FAULT_SERVER_URL"] + "/health", timeout=5).read() == b"ok"
assert o.open(os.environ["NETWORK_MODULE_HTTPBIN_URL"] + "/status/204", timeout=5).status == 204'
    stop
    stop # idempotent
    [[ ! -e "$TEST_SERVERS_STATE_DIR/env" ]]
    echo "ok   library mode (start, request, stop, stop again)"
); then
    echo "FAIL: library mode"
    failures=$((failures + 1))
fi

echo "== 3. run passes the command's exit status through"
rc=0
bash "$SERVERS" run -- bash -c 'exit 7' 2>/dev/null || rc=$?
if [[ $rc == 7 ]]; then echo "ok   exit status 7 passed through"; else
    echo "FAIL: run returned $rc, expected 7"
    failures=$((failures + 1))
fi

echo "== 4. no stray server processes"
stray="$(stray_servers)"
if [[ -n "$stray" ]]; then
    echo "FAIL: stray processes:"
    printf '%s\n' "$stray"
    failures=$((failures + 1))
else
    echo "ok   none left"
fi

if ((failures)); then
    echo "selftest: $failures section(s) failed"
    exit 1
fi
echo "selftest: all passed"
