#!/usr/bin/env bash
# Local HTTP servers for the integration tests (loopback only).
#
#   httpbin       under gunicorn (gthread workers), from a cached Python venv
#                 at .build/test-servers-venv pinned by
#                 scripts/requirements-test-servers.txt
#   fault server  scripts/fault_server.py (standard library only): hangs,
#                 truncated bodies, bad status lines, endless bodies, ...
#   TLS server    nginx (Debian's nginx-light, installed with apt-get when
#                 missing and run as root) serving HTTPS with a self-signed
#                 certificate for 127.0.0.1 made by openssl at each start:
#                 GET /get answers {"tls":true}
#
# All bind 127.0.0.1 on free ports. Their URLs are exported as
# NETWORK_MODULE_HTTPBIN_URL, NETWORK_MODULE_FAULT_SERVER_URL and
# NETWORK_MODULE_TLS_URL (with NETWORK_MODULE_TLS_CERT, the certificate's PEM
# file, and NETWORK_MODULE_FAULT_SERVER_LOG, the fault server's log of request
# lines) and also written to .build/test-servers/env; logs go to
# .build/test-servers/*.log. Without nginx or openssl (and no root to install
# them) the TLS server is skipped with a warning and NETWORK_MODULE_TLS_URL is
# not set.
#
# As a command:
#   bash scripts/servers.sh start            # start; prints the export lines
#   bash scripts/servers.sh stop             # stop (idempotent)
#   bash scripts/servers.sh status           # are they running?
#   bash scripts/servers.sh run -- CMD ARGS  # start, run CMD with the URLs set,
#                                            # always stop, exit with CMD's status
#   bash scripts/servers.sh start && source .build/test-servers/env
#                                            # start and export into this shell
#
# As a library (works under `set -euo pipefail`; changes no shell options):
#   source scripts/servers.sh
#   trap stop EXIT      # servers stop even when the tests fail
#   start               # exports the two variables into this shell
#
# Optional settings (environment):
#   TEST_SERVERS_PYTHON         python used to create the venv (python3)
#   TEST_SERVERS_STATE_DIR      pid/port/log/env dir (.build/test-servers)
#   TEST_SERVERS_START_TIMEOUT  seconds to wait for both servers (60)
#   TEST_SERVERS_HTTPBIN_WORKERS / TEST_SERVERS_HTTPBIN_THREADS  (4 / 16)

_TS_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
_TS_ROOT="$(cd "$_TS_SCRIPT_DIR/.." && pwd)"
_TS_VENV="$_TS_ROOT/.build/test-servers-venv"
_TS_REQUIREMENTS="$_TS_SCRIPT_DIR/requirements-test-servers.txt"
_TS_NAMES=(httpbin fault tls)

_ts_state_dir() { printf '%s\n' "${TEST_SERVERS_STATE_DIR:-$_TS_ROOT/.build/test-servers}"; }
_ts_log() { printf '[servers.sh] %s\n' "$*" >&2; }
_ts_err() { printf '[servers.sh] error: %s\n' "$*" >&2; return 1; }

# --- process helpers (zombie-aware: an exited server reparented to init stays
# a zombie until init reaps it, and `kill -0` still succeeds on zombies) ------

# _ts_proc_info PID -> "STATE PGID" of a live process; fails if gone/zombie.
_ts_proc_info() {
    local rest state pgid
    { read -r rest <"/proc/$1/stat"; } 2>/dev/null || return 1
    rest="${rest##*) }"
    read -r state _ pgid _ <<<"$rest"
    [[ "$state" != Z && "$state" != X ]] || return 1
    printf '%s %s\n' "$state" "$pgid"
}

_ts_pid_alive() { [[ -n "${1:-}" ]] && _ts_proc_info "$1" >/dev/null; }

# Live (non-zombie) members of process group $1.
_ts_group_members() {
    local f rest state pgid pid
    for f in /proc/[0-9]*/stat; do
        { read -r rest <"$f"; } 2>/dev/null || continue
        rest="${rest##*) }"
        read -r state _ pgid _ <<<"$rest"
        [[ "$pgid" == "$1" && "$state" != Z && "$state" != X ]] || continue
        pid="${f#/proc/}"
        printf '%s\n' "${pid%/stat}"
    done
}

# Does pid $1 run our server $2 (httpbin|fault)? Guards against pid reuse.
_ts_is_our_server() {
    local cmdline
    cmdline="$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" || return 1
    case "$2" in
        httpbin) [[ "$cmdline" == *gunicorn* ]] ;;
        fault) [[ "$cmdline" == *fault_server.py* ]] ;;
        tls) [[ "$cmdline" == *nginx* ]] ;;
        *) return 1 ;;
    esac
}

# Signal for a prompt shutdown of a server's leader process. gunicorn: QUIT is
# its quick shutdown (TERM would wait up to a second per idle gthread worker).
_ts_quit_signal() { if [[ "$1" == httpbin ]]; then echo QUIT; else echo TERM; fi; }

# Wait up to $2 tenths of a second for process group $1 to be empty.
_ts_wait_group_gone() {
    local i
    for ((i = 0; i < $2; i++)); do
        [[ -z "$(_ts_group_members "$1")" ]] && return 0
        sleep 0.1
    done
    [[ -z "$(_ts_group_members "$1")" ]]
}

# Stop both servers by their stored pids. Each server leads its own session and
# process group (setsid), which holds it and its children (gunicorn workers);
# no other process can get that group id while members remain. Idempotent.
test_servers_stop() {
    local dir name pid i
    local -a pgids=() names=()
    dir="$(_ts_state_dir)"
    for name in "${_TS_NAMES[@]}"; do
        [[ -f "$dir/$name.pid" ]] || continue
        pid="$(tr -dc '0-9' 2>/dev/null <"$dir/$name.pid" || true)"
        [[ -n "$pid" ]] || continue
        if _ts_pid_alive "$pid" && ! _ts_is_our_server "$pid" "$name"; then
            _ts_log "pid $pid in $dir/$name.pid is no longer our $name server; leaving it alone"
            continue
        fi
        [[ -n "$(_ts_group_members "$pid")" ]] || continue
        if _ts_pid_alive "$pid"; then
            kill -s "$(_ts_quit_signal "$name")" "$pid" 2>/dev/null || true
        else # leader gone, children left over
            kill -TERM -- "-$pid" 2>/dev/null || true
        fi
        pgids+=("$pid")
        names+=("$name")
    done
    for i in "${!pgids[@]}"; do
        pid="${pgids[$i]}"
        if ! _ts_wait_group_gone "$pid" 100; then
            _ts_log "${names[$i]} (pid $pid) still running after 10 s; sending SIGTERM to its group"
            kill -TERM -- "-$pid" 2>/dev/null || true
            if ! _ts_wait_group_gone "$pid" 30; then
                _ts_log "${names[$i]} (pid $pid) still running; sending SIGKILL to its group"
                kill -KILL -- "-$pid" 2>/dev/null || true
                _ts_wait_group_gone "$pid" 30 || _ts_log "could not stop process group $pid"
            fi
        fi
        _ts_log "stopped ${names[$i]} (pid $pid)"
    done
    for name in "${_TS_NAMES[@]}"; do
        rm -f "$dir/$name.pid" "$dir/$name.port"
    done
    rm -f "$dir/env"
    rm -f "$dir/tls.skipped"
    unset NETWORK_MODULE_HTTPBIN_URL NETWORK_MODULE_FAULT_SERVER_URL NETWORK_MODULE_FAULT_SERVER_LOG \
        NETWORK_MODULE_TLS_URL NETWORK_MODULE_TLS_CERT
    return 0
}

# --- venv -------------------------------------------------------------------

_ts_sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum | cut -d' ' -f1
    else
        "${TEST_SERVERS_PYTHON:-python3}" -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())'
    fi
}

# Hash of everything the venv depends on: the requirements and the interpreter.
_ts_venv_key() {
    local py="${TEST_SERVERS_PYTHON:-python3}" pyid
    pyid="$("$py" -c 'import sys; print(sys.version, sys.executable, sys.base_prefix)')" || return 1
    { cat "$_TS_REQUIREMENTS"; printf '%s\n' "$pyid"; } | _ts_sha256
}

_ts_venv_ok() {
    local key="$1" stamp="$_TS_VENV/.test-servers-stamp"
    [[ -f "$stamp" && "$(cat "$stamp")" == "$key" && -x "$_TS_VENV/bin/python" && -x "$_TS_VENV/bin/gunicorn" ]] &&
        "$_TS_VENV/bin/python" -c '' 2>/dev/null
}

_ts_create_venv() {
    local py="${TEST_SERVERS_PYTHON:-python3}" dir="$1"
    rm -rf "$_TS_VENV"
    if "$py" -m venv "$_TS_VENV" >>"$dir/pip-install.log" 2>&1; then
        return 0
    fi
    # Debian ships venv/ensurepip separately: python3-venv (for the default
    # python3), python3.X-venv for a specific version.
    rm -rf "$_TS_VENV"
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        local ver pkg
        ver="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" || return 1
        _ts_log "'$py -m venv' failed; installing python3-venv with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$dir/pip-install.log" 2>&1 || true
        for pkg in python3-venv "python$ver-venv"; do
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >>"$dir/pip-install.log" 2>&1 || continue
            "$py" -m venv "$_TS_VENV" >>"$dir/pip-install.log" 2>&1 && return 0
            rm -rf "$_TS_VENV"
        done
    fi
    tail -n 30 "$dir/pip-install.log" >&2
    rm -rf "$_TS_VENV"
    _ts_err "could not create a venv with '$py -m venv' (on Debian: apt-get install python3-venv)"
}

_ts_ensure_venv_locked() {
    local dir="$1" key start
    key="$(_ts_venv_key)" || { _ts_err "cannot run ${TEST_SERVERS_PYTHON:-python3}"; return 1; }
    if _ts_venv_ok "$key"; then
        return 0
    fi
    start=$SECONDS
    _ts_log "creating $_TS_VENV (pip install -r ${_TS_REQUIREMENTS#"$_TS_ROOT"/}); log: $dir/pip-install.log"
    : >"$dir/pip-install.log"
    _ts_create_venv "$dir" || return 1
    if ! "$_TS_VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
        -r "$_TS_REQUIREMENTS" >>"$dir/pip-install.log" 2>&1; then
        tail -n 30 "$dir/pip-install.log" >&2
        _ts_err "pip install failed (full log: $dir/pip-install.log)"
        return 1
    fi
    printf '%s\n' "$key" >"$_TS_VENV/.test-servers-stamp"
    _ts_log "venv ready in $((SECONDS - start)) s"
}

_ts_ensure_venv() {
    local dir="$1" rc=0
    mkdir -p "$(dirname "$_TS_VENV")"
    if command -v flock >/dev/null 2>&1; then
        # Serialise concurrent first runs (two suites starting at once).
        (
            flock -w 600 9 || { _ts_err "timed out waiting for the venv lock"; exit 1; }
            _ts_ensure_venv_locked "$dir"
        ) 9>"$_TS_VENV.lock" || rc=$?
    else
        _ts_ensure_venv_locked "$dir" || rc=$?
    fi
    return "$rc"
}

# --- start ------------------------------------------------------------------

# One HTTP/1.0 GET over bash's /dev/tcp; succeeds on a 2xx status line.
_ts_http_ok() {
    local port="$1" path="$2" line="" rc=0
    { exec {_ts_fd}<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$path" "$port" 1>&"$_ts_fd" 2>/dev/null &&
        IFS= read -r -t 2 line <&"$_ts_fd" || rc=1
    exec {_ts_fd}>&-
    [[ $rc == 0 && "$line" =~ ^HTTP/1\.[01]\ 2[0-9][0-9] ]]
}

_ts_fail_start() {
    local dir="$1" msg="$2" name
    _ts_err "$msg" || true
    for name in "${_TS_NAMES[@]}"; do
        if [[ -f "$dir/$name.log" ]]; then
            printf -- '---- last lines of %s ----\n' "$dir/$name.log" >&2
            tail -n 25 "$dir/$name.log" >&2
        fi
    done
    test_servers_stop
    return 1
}

# Launch "$@" in the background in its own session and process group
# (setsid), with job control off so that setsid doesn't need to fork and $!
# is the server process itself (it also leads the group: pgid == pid).
# Descriptors above 2 are closed first, so a server never keeps a caller's
# pipe (CI harness, command substitution) or lock file open.
_ts_spawn() {
    local log="$1" had_m=0
    shift
    [[ $- == *m* ]] && had_m=1 && set +m
    (
        for _ts_f in /proc/"$BASHPID"/fd/*; do
            _ts_f="${_ts_f##*/}"
            if [[ "$_ts_f" =~ ^[0-9]+$ ]] && ((_ts_f > 2)); then
                { eval "exec $_ts_f>&-"; } 2>/dev/null || true
            fi
        done
        exec setsid "$@"
    ) </dev/null >>"$log" 2>&1 &
    _ts_spawned_pid=$!
    disown "$_ts_spawned_pid" 2>/dev/null || true # no "Done" notices in interactive shells
    ((had_m)) && set -m
    return 0
}

# --- TLS server (nginx with a self-signed certificate) -----------------------

# Installs nginx-light / openssl with apt-get when missing and we are root.
_ts_tls_tools() {
    local dir="$1" pkg
    for pkg in nginx openssl; do
        if [[ "$pkg" == nginx ]] && { command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]]; }; then continue; fi
        if [[ "$pkg" == openssl ]] && command -v openssl >/dev/null 2>&1; then continue; fi
        if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
            _ts_log "warning: $pkg is missing (and cannot be installed here): no TLS server"
            return 1
        fi
        [[ "$pkg" == nginx ]] && pkg=nginx-light
        _ts_log "installing $pkg with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$dir/tls.log" 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >>"$dir/tls.log" 2>&1 ||
            { _ts_log "warning: apt-get install $pkg failed: no TLS server"; return 1; }
    done
}

_ts_free_port() {
    "${TEST_SERVERS_PYTHON:-python3}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Can we open a TCP connection to 127.0.0.1:$1?
_ts_tcp_open() {
    { exec {_ts_fd}<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
    exec {_ts_fd}>&-
}

# Makes a fresh self-signed certificate and key, writes the nginx config and
# spawns nginx; prints its pid and port (the port was free a moment ago).
_ts_spawn_tls() {
    local dir="$1" tls="$1/tls" port nginx_bin
    rm -rf "$tls"
    mkdir -p "$tls"
    # Valid 2 days, for 127.0.0.1 and localhost: only "untrusted issuer" is wrong with it.
    openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 2 -subj "/CN=127.0.0.1" \
        -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
        -keyout "$tls/key.pem" -out "$tls/cert.pem" >>"$dir/tls.log" 2>&1 || return 1
    port="$(_ts_free_port)" || return 1
    cat >"$tls/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $tls/nginx.pid;
error_log $tls/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $tls/client_body;
    proxy_temp_path $tls/proxy;
    fastcgi_temp_path $tls/fastcgi;
    uwsgi_temp_path $tls/uwsgi;
    scgi_temp_path $tls/scgi;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $tls/cert.pem;
        ssl_certificate_key $tls/key.pem;
        default_type application/json;
        location / { return 200 '{"tls":true}'; }
    }
}
CONF
    nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
    _ts_spawn "$dir/tls.log" "$nginx_bin" -p "$tls" -e "$tls/error.log" -c "$tls/nginx.conf"
    printf '%s %s\n' "$_ts_spawned_pid" "$port"
}

test_servers_start() {
    local dir timeout deadline name port pid httpbin_port="" fault_port="" httpbin_pid fault_pid
    dir="$(_ts_state_dir)"
    timeout="${TEST_SERVERS_START_TIMEOUT:-60}"
    mkdir -p "$dir" || return 1

    command -v setsid >/dev/null 2>&1 || { _ts_err "setsid (util-linux) is required"; return 1; }
    _ts_ensure_venv "$dir" || return 1

    # Servers left over from an earlier start that was never stopped.
    for name in "${_TS_NAMES[@]}"; do
        if [[ -f "$dir/$name.pid" ]]; then
            _ts_log "stopping servers left over from an earlier start"
            test_servers_stop
            break
        fi
    done
    rm -f "$dir"/{httpbin,fault,tls}.{pid,port} "$dir/env" "$dir/tls.skipped"
    : >"$dir/httpbin.log"
    : >"$dir/fault.log"
    : >"$dir/tls.log"

    _ts_spawn "$dir/httpbin.log" env -u GUNICORN_CMD_ARGS \
        TEST_SERVERS_HTTPBIN_PORT_FILE="$dir/httpbin.port" \
        "$_TS_VENV/bin/gunicorn" --config "$_TS_SCRIPT_DIR/gunicorn_test_servers.py" \
        --chdir "$dir" httpbin:app
    httpbin_pid=$_ts_spawned_pid
    printf '%s\n' "$httpbin_pid" >"$dir/httpbin.pid"
    _ts_spawn "$dir/fault.log" "$_TS_VENV/bin/python" -u "$_TS_SCRIPT_DIR/fault_server.py" \
        --port 0 --port-file "$dir/fault.port"
    fault_pid=$_ts_spawned_pid
    printf '%s\n' "$fault_pid" >"$dir/fault.pid"
    local tls_pid="" tls_port="" tls_ready=""
    if _ts_tls_tools "$dir" && read -r tls_pid tls_port < <(_ts_spawn_tls "$dir") && [[ -n "$tls_pid" ]]; then
        printf '%s\n' "$tls_pid" >"$dir/tls.pid"
        printf '%s\n' "$tls_port" >"$dir/tls.port"
    else
        tls_ready=skipped
        printf 'nginx or openssl unavailable\n' >"$dir/tls.skipped"
    fi

    deadline=$((SECONDS + timeout))
    while :; do
        _ts_pid_alive "$httpbin_pid" ||
            { _ts_fail_start "$dir" "httpbin (gunicorn) exited during startup"; return 1; }
        _ts_pid_alive "$fault_pid" ||
            { _ts_fail_start "$dir" "fault server exited during startup"; return 1; }
        if [[ -z "$httpbin_port" && -s "$dir/httpbin.port" ]]; then
            port="$(tr -dc '0-9' <"$dir/httpbin.port")"
            _ts_http_ok "$port" /get && httpbin_port="$port"
        fi
        if [[ -z "$fault_port" && -s "$dir/fault.port" ]]; then
            port="$(tr -dc '0-9' <"$dir/fault.port")"
            _ts_http_ok "$port" /health && fault_port="$port"
        fi
        if [[ -z "$tls_ready" ]]; then
            _ts_pid_alive "$tls_pid" ||
                { _ts_fail_start "$dir" "the TLS server (nginx) exited during startup"; return 1; }
            _ts_tcp_open "$tls_port" && tls_ready=yes
        fi
        [[ -n "$httpbin_port" && -n "$fault_port" && -n "$tls_ready" ]] && break
        if ((SECONDS >= deadline)); then
            _ts_fail_start "$dir" "servers did not answer within $timeout s (httpbin port: ${httpbin_port:-none}, fault port: ${fault_port:-none})"
            return 1
        fi
        sleep 0.2
    done

    # stop relies on each server leading its own process group.
    for pid in "$httpbin_pid" "$fault_pid" $tls_pid; do
        [[ "$(_ts_proc_info "$pid")" == *" $pid" ]] ||
            { _ts_fail_start "$dir" "pid $pid is not a process group leader"; return 1; }
    done

    export NETWORK_MODULE_HTTPBIN_URL="http://127.0.0.1:$httpbin_port"
    export NETWORK_MODULE_FAULT_SERVER_URL="http://127.0.0.1:$fault_port"
    export NETWORK_MODULE_FAULT_SERVER_LOG="$dir/fault.log"
    {
        printf 'export NETWORK_MODULE_HTTPBIN_URL=%s\n' "$NETWORK_MODULE_HTTPBIN_URL"
        printf 'export NETWORK_MODULE_FAULT_SERVER_URL=%s\n' "$NETWORK_MODULE_FAULT_SERVER_URL"
        printf 'export NETWORK_MODULE_FAULT_SERVER_LOG=%q\n' "$NETWORK_MODULE_FAULT_SERVER_LOG"
        if [[ "$tls_ready" == yes ]]; then
            export NETWORK_MODULE_TLS_URL="https://127.0.0.1:$tls_port"
            export NETWORK_MODULE_TLS_CERT="$dir/tls/cert.pem"
            printf 'export NETWORK_MODULE_TLS_URL=%s\n' "$NETWORK_MODULE_TLS_URL"
            printf 'export NETWORK_MODULE_TLS_CERT=%q\n' "$NETWORK_MODULE_TLS_CERT"
        fi
    } >"$dir/env.tmp" && mv -f "$dir/env.tmp" "$dir/env"
    # If a proxy is configured, keep loopback traffic away from it.
    if [[ -n "${http_proxy:-}${HTTP_PROXY:-}${all_proxy:-}${ALL_PROXY:-}" ]]; then
        export no_proxy="${no_proxy:+$no_proxy,}127.0.0.1,localhost"
        export NO_PROXY="${NO_PROXY:+$NO_PROXY,}127.0.0.1,localhost"
    fi
    _ts_log "httpbin at $NETWORK_MODULE_HTTPBIN_URL, fault server at $NETWORK_MODULE_FAULT_SERVER_URL, TLS server at ${NETWORK_MODULE_TLS_URL:-none} (logs: $dir)"
    return 0
}

test_servers_status() {
    local dir name pid rc=0
    dir="$(_ts_state_dir)"
    for name in "${_TS_NAMES[@]}"; do
        if [[ "$name" == tls && -f "$dir/tls.skipped" ]]; then
            printf 'tls: skipped (%s)\n' "$(cat "$dir/tls.skipped")"
            continue
        fi
        pid="$(tr -dc '0-9' 2>/dev/null <"$dir/$name.pid" || true)"
        if _ts_pid_alive "$pid" && _ts_is_our_server "$pid" "$name"; then
            printf '%s: running (pid %s, port %s)\n' "$name" "$pid" "$(tr -dc '0-9' 2>/dev/null <"$dir/$name.port" || true)"
        else
            printf '%s: not running\n' "$name"
            rc=1
        fi
    done
    return "$rc"
}

# Signal trap of test_servers_run: remember the status to exit with and pass
# the signal on to the command as SIGTERM (or exit if it hasn't started yet).
_ts_on_signal() {
    _ts_signalled="$1"
    if [[ -n "${_ts_child:-}" ]]; then
        kill -TERM "$_ts_child" 2>/dev/null || true
    else
        exit "$1"
    fi
}

# Start, run "$@" with the URLs exported, always stop, exit with "$@"'s
# status. The command runs as a background child that we wait for, so that a
# SIGTERM/SIGINT/SIGHUP sent to this shell alone (e.g. by `timeout`) is passed
# on to it at once (as SIGTERM) rather than after it finishes; the servers are
# stopped either way. Sets traps and exits: call it in its own (sub)shell.
_ts_run_and_exit() {
    set +m # keep CMD in this (foreground) process group
    _ts_child=""
    _ts_signalled=0
    trap 'test_servers_stop' EXIT
    trap '_ts_on_signal 129' HUP
    trap '_ts_on_signal 130' INT
    trap '_ts_on_signal 143' TERM
    test_servers_start || exit 1
    "$@" <&0 &
    _ts_child=$!
    local rc
    while :; do
        rc=0
        wait "$_ts_child" || rc=$?
        # wait also returns (>128) when a trapped signal arrives; go on
        # waiting until the child has really exited and been reaped.
        kill -0 "$_ts_child" 2>/dev/null || break
    done
    ((_ts_signalled)) && exit "$_ts_signalled"
    exit "$rc"
}

# Library form of `servers.sh run -- CMD ...`; runs in a subshell so that its
# traps don't replace the caller's, and returns CMD's status.
test_servers_run() {
    [[ "${1:-}" == -- ]] && shift
    (($#)) || { _ts_err "usage: servers.sh run -- CMD [ARGS...]" || true; return 2; }
    (_ts_run_and_exit "$@")
}

start() { test_servers_start; }
stop() { test_servers_stop; }

_ts_main() {
    set -euo pipefail
    local cmd="${1:-}"
    (($#)) && shift
    case "$cmd" in
        start)
            test_servers_start
            cat "$(_ts_state_dir)/env"
            ;;
        stop) test_servers_stop ;;
        status) test_servers_status ;;
        run)
            [[ "${1:-}" == -- ]] && shift
            (($#)) || { _ts_err "usage: servers.sh run -- CMD [ARGS...]" || true; return 2; }
            _ts_run_and_exit "$@"
            ;;
        *)
            printf 'usage: %s start|stop|status|run -- CMD [ARGS...]\n' "$0" >&2
            return 2
            ;;
    esac
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    _ts_main "$@"
fi
