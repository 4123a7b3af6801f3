#!/usr/bin/env python3
"""Fault-injecting HTTP/1.1 server for the integration tests.

It produces the broken or unusual responses that httpbin cannot: hanging
requests, truncated bodies, garbage status lines, endless or very slow
bodies, odd header casing, invalid JSON / UTF-8, and an echo of the request
headers exactly as they reached the wire. Standard library only.

Usage:
    python3 scripts/fault_server.py --port 0 --port-file FILE [--pid-file FILE]

Binds 127.0.0.1 only. Once listening, the bound port is written (atomically)
to --port-file. Every connection is served by its own daemon thread; SIGTERM
or SIGINT shuts the server down cleanly. Normally started and stopped by
scripts/servers.py.

Routes (by path; the query string is ignored unless a route lists parameters):
    /hang                   read the request, never answer
    /close-mid-body         200, Content-Length 1000, 100 bytes, close
    /malformed-status       "HTPP/1.1 abc" status line, close
    /short-body             Content-Length 500, 10 bytes, close
    /large?bytes=N          200, exactly N bytes (default 10 MiB), byte i = i % 251
    /endless                200, no Content-Length, bytes (i % 251) until the client
                            disconnects (safety cap: max_bytes, default 1 GiB);
                            ?chunked=1 uses chunked transfer encoding instead
    /odd-header-casing      200 {"ok":true}, "x-LoWeR-uPpEr", "CONTENT-TYPE", x-duplicate twice
    /slow?bytes=N&delay_ms=M        200, N bytes (default 20), M ms (default 50) apart
    /slow-headers?delay_ms=M        wait M ms (default 1000), then 200 {"ok":true}
    /trickle?chunks=N&interval_ms=M&chunk_bytes=B
                            200, Content-Length N*B; N chunks (default 10) of B bytes
                            (default 100), M ms (default 200) apart: a body that keeps
                            arriving for longer than a short idle timeout
    /stall?before_bytes=N&stall_ms=M&after_bytes=K
                            200, Content-Length N+K; N bytes (default 10), then nothing
                            for M ms (default 5000), then K bytes (default 10)
    /empty-200              200, Content-Length 0
    /not-json               200 application/json, body '{"a":'
    /non-utf8               200 text/plain; charset=utf-8, body ff fe fd
    /redirect-to?url=U&status=302   redirect to U (status default 302)
    /echo                   200 JSON: method, raw target, headers as [name, value] pairs in
                            order, body_length and body_crc32 (zlib.crc32) of the body
    /echo-headers           200 JSON of the request headers as received (original
                            casing; a repeated name maps to a list of values)
    /secret-response        200 JSON of OAuth-style tokens (access_token, refresh_token,
                            id_token, a nested password), with Set-Cookie and X-Auth-Token
                            response headers: what a token endpoint answers
    /raw?case=NAME          the byte-exact response RAW_RESPONSES[NAME] (hostile framing,
                            bad chunk sizes, bad gzip, huge headers...), then close
    /gzip-bomb?mib=N        200, Content-Encoding: gzip, N MiB (default 1024) of zeros
                            compressed (about 1 MiB per GiB), generated as it is sent
    /resumable?size=N&cut=M&etag=E&changed_etag=F
                            a resumable file of N bytes (default 1 MiB), byte i = i % 251,
                            with Content-Length and ETag "E" (default "v1"). Without Range:
                            200, and the connection closed after M bytes when cut < N (no
                            cut by default). "Range: bytes=a-": 206 with Content-Range for
                            bytes a to N-1 when If-Range is absent or equals the ETag, 200
                            with the whole body when it does not, 416 when a >= N. With
                            changed_etag, a request carrying Range sees ETag "F" instead: a
                            file that changed between the attempts
    /resumable-log?etag=E   200 JSON list of [Range, If-Range] (null when absent) of every
                            /resumable request for etag E so far, in order
    /flaky?key=K&cache_control=C&then=T&first=F
                            the first request for key K: 200 text/plain "v1" with
                            Cache-Control C (default "max-age=10") and ETag "v1" (with
                            first=cut: a body cut off, as /close-mid-body); every
                            later one: T, which is a status code (default 503, no body),
                            "close" (the connection closed without an answer) or "v2"
                            (200 "v2", with C and ETag "v2"). A server that fails after it
                            was cached, for stale-if-error and stale-while-revalidate
    /hop?key=K&status=S&to=U
                            a hop of a redirect chain, recorded under K (method, target,
                            Authorization or null, body length and text as Latin-1, first
                            4 KiB), then answered S (default 200): a 3xx with Location U
                            (default: this same target, a redirect to itself), any other
                            status with the JSON list of K's records so far
    /hop-log?key=K          200 JSON {"count": N, "hops": [...]}: how many /hop requests K
                            has had, and the first 100 of them, in order
    /health                 200 "ok"
    anything else           404 {"error":"unknown fault route"}

Every response carries "Connection: close" and the connection is closed after it.
"""

import argparse
import http
import json
import os
import signal
import socket
import socketserver
import sys
import threading
import time
import zlib
from urllib.parse import parse_qs, urlsplit

MAX_HEADER_BYTES = 64 * 1024
CHUNK = 64 * 1024
DEFAULT_LARGE_BYTES = 10 * 1024 * 1024
DEFAULT_ENDLESS_CAP = 1024 * 1024 * 1024
# Writes that block longer than this (client stopped reading) end the connection.
SEND_TIMEOUT_S = 300.0

# PATTERN[k:k+n] for k < 251 and n <= CHUNK gives the bytes (i % 251) of an
# aligned stream starting at an offset o with o % 251 == k.
PATTERN = bytes(i % 251 for i in range(CHUNK + 251))

STOPPING = threading.Event()


def log(msg):
    sys.stderr.write("[fault_server %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


class BadRequest(Exception):
    pass


class Request:
    def __init__(self, method, target, version, headers):
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers  # list of (name, value), original casing and order
        parts = urlsplit(target)
        self.path = parts.path or "/"
        self.query = parse_qs(parts.query, keep_blank_values=True)

    def header(self, name):
        lname = name.lower()
        for k, v in self.headers:
            if k.lower() == lname:
                return v
        return None

    def q(self, name, default=None):
        values = self.query.get(name)
        return values[0] if values else default

    def q_int(self, name, default, minimum=0):
        raw = self.q(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise BadRequest("query parameter %s must be an integer" % name)
        if value < minimum:
            raise BadRequest("query parameter %s must be >= %d" % (name, minimum))
        return value


class Conn:
    """A client socket with a small read buffer."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _recv(self):
        data = self.sock.recv(CHUNK)
        if not data:
            raise EOFError
        return data

    def read_head(self):
        while b"\r\n\r\n" not in self.buf:
            if len(self.buf) > MAX_HEADER_BYTES:
                raise BadRequest("request head too large")
            self.buf += self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return head

    def read_line(self):
        while b"\r\n" not in self.buf:
            if len(self.buf) > MAX_HEADER_BYTES:
                raise BadRequest("line too long")
            self.buf += self._recv()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def discard(self, n, sink=None):
        """Consume n bytes, handing each piece to sink (if given) before dropping it."""
        while n > 0:
            if not self.buf:
                self.buf = self._recv()
            take = min(n, len(self.buf))
            if sink is not None:
                sink(self.buf[:take])
            self.buf = self.buf[take:]
            n -= take

    def send(self, data):
        self.sock.sendall(data)


def parse_request(conn):
    head = conn.read_head()
    lines = head.split(b"\r\n")
    try:
        method, target, version = lines[0].decode("latin-1").split(" ", 2)
    except ValueError:
        raise BadRequest("bad request line")
    headers = []
    for raw in lines[1:]:
        if not raw:
            continue
        if raw[:1] in (b" ", b"\t") and headers:  # obsolete line folding
            name, value = headers[-1]
            headers[-1] = (name, value + " " + raw.strip().decode("latin-1"))
            continue
        name, sep, value = raw.decode("latin-1").partition(":")
        if not sep:
            raise BadRequest("bad header line")
        headers.append((name, value.strip()))
    return Request(method, target, version, headers)


def read_body(conn, req, sink=None):
    """Consume the request body (handing it to sink, if given, piece by piece) so closing
    doesn't reset the connection."""
    if (req.header("Expect") or "").lower() == "100-continue":
        conn.send(b"HTTP/1.1 100 Continue\r\n\r\n")
    te = (req.header("Transfer-Encoding") or "").lower()
    if "chunked" in te:
        while True:
            size_line = conn.read_line().split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise BadRequest("bad chunk size")
            if size == 0:
                while conn.read_line():  # trailers up to the empty line
                    pass
                return
            conn.discard(size, sink)
            conn.discard(2)
    length = req.header("Content-Length")
    if length:
        try:
            conn.discard(int(length), sink)
        except ValueError:
            raise BadRequest("bad Content-Length")


def status_line(status):
    try:
        reason = http.HTTPStatus(status).phrase
    except ValueError:
        reason = "Status"
    return "HTTP/1.1 %d %s\r\n" % (status, reason)


def head_bytes(status, headers):
    out = status_line(status)
    for name, value in headers:
        out += "%s: %s\r\n" % (name, value)
    out += "\r\n"
    return out.encode("latin-1")


def respond(conn, req, status, body=b"", content_type=None, extra=()):
    headers = []
    if content_type:
        headers.append(("Content-Type", content_type))
    headers.append(("Content-Length", str(len(body))))
    headers.extend(extra)
    headers.append(("Connection", "close"))
    data = head_bytes(status, headers)
    if req is None or req.method != "HEAD":
        data += body
    conn.send(data)


def respond_json(conn, req, status, obj, extra=()):
    body = json.dumps(obj, separators=(",", ":")).encode("utf-8")
    respond(conn, req, status, body, "application/json", extra)


def stream_pattern(conn, total, chunked=False, final_chunk=True, start=0):
    """Send bytes (i % 251) for i in [start, start + total), in CHUNK-sized pieces."""
    sent = 0
    while sent < total:
        if STOPPING.is_set():
            return
        n = min(CHUNK, total - sent)
        k = (start + sent) % 251
        piece = PATTERN[k:k + n]
        if chunked:
            conn.send(b"%x\r\n" % n + piece + b"\r\n")
        else:
            conn.send(piece)
        sent += n
    if chunked and final_chunk:
        conn.send(b"0\r\n\r\n")


# --- routes -----------------------------------------------------------------

def route_hang(conn, req):
    # Never answer; drain whatever the client sends until it closes or we stop.
    conn.sock.settimeout(1.0)
    while not STOPPING.is_set():
        try:
            if not conn.sock.recv(CHUNK):
                return
        except socket.timeout:
            continue


def route_close_mid_body(conn, req):
    conn.send(head_bytes(200, [("Content-Type", "application/octet-stream"),
                               ("Content-Length", "1000"), ("Connection", "close")]))
    conn.send(PATTERN[:100])


def route_malformed_status(conn, req):
    conn.send(b"HTPP/1.1 abc\r\n\r\n")


def route_short_body(conn, req):
    conn.send(head_bytes(200, [("Content-Type", "application/octet-stream"),
                               ("Content-Length", "500"), ("Connection", "close")]))
    conn.send(b"0123456789")


def route_large(conn, req):
    n = req.q_int("bytes", DEFAULT_LARGE_BYTES)
    conn.send(head_bytes(200, [("Content-Type", "application/octet-stream"),
                               ("Content-Length", str(n)), ("Connection", "close")]))
    if req.method != "HEAD":
        stream_pattern(conn, n)


def route_endless(conn, req):
    cap = req.q_int("max_bytes", DEFAULT_ENDLESS_CAP)
    chunked = req.q("chunked", "0") not in ("0", "", "false")
    headers = [("Content-Type", "application/octet-stream")]
    if chunked:
        headers.append(("Transfer-Encoding", "chunked"))
    headers.append(("Connection", "close"))
    conn.send(head_bytes(200, headers))
    if req.method != "HEAD":
        # Only a client without a size limit ever reaches the safety cap; in
        # chunked mode the stream then ends without its final chunk.
        stream_pattern(conn, cap, chunked=chunked, final_chunk=False)


def route_odd_header_casing(conn, req):
    body = b'{"ok":true}'
    data = (b"HTTP/1.1 200 OK\r\n"
            b"x-LoWeR-uPpEr: mixed\r\n"
            b"CONTENT-TYPE: application/json\r\n"
            b"x-duplicate: a\r\n"
            b"x-duplicate: b\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"Connection: close\r\n"
            b"\r\n")
    conn.send(data + (body if req.method != "HEAD" else b""))


def route_slow(conn, req):
    n = req.q_int("bytes", 20)
    delay = req.q_int("delay_ms", 50) / 1000.0
    conn.send(head_bytes(200, [("Content-Type", "application/octet-stream"),
                               ("Content-Length", str(n)), ("Connection", "close")]))
    if req.method == "HEAD":
        return
    for i in range(n):
        if i and STOPPING.wait(delay):
            return
        conn.send(PATTERN[i % 251:i % 251 + 1])


def route_trickle(conn, req):
    chunks = req.q_int("chunks", 10)
    size = req.q_int("chunk_bytes", 100)
    interval = req.q_int("interval_ms", 200) / 1000.0
    conn.send(head_bytes(200, [("Content-Type", "application/octet-stream"),
                               ("Content-Length", str(chunks * size)), ("Connection", "close")]))
    if req.method == "HEAD":
        return
    for i in range(chunks):
        if i and STOPPING.wait(interval):
            return
        stream_pattern(conn, size)


def route_stall(conn, req):
    before = req.q_int("before_bytes", 10)
    after = req.q_int("after_bytes", 10)
    stall = req.q_int("stall_ms", 5000) / 1000.0
    if STOPPING.wait(req.q_int("head_delay_ms", 0) / 1000.0):
        return
    conn.send(head_bytes(200, [("Content-Type", "application/octet-stream"),
                               ("Content-Length", str(before + after)), ("Connection", "close")]))
    if req.method == "HEAD":
        return
    stream_pattern(conn, before)
    if STOPPING.wait(stall):
        return
    stream_pattern(conn, after)


def route_slow_headers(conn, req):
    if STOPPING.wait(req.q_int("delay_ms", 1000) / 1000.0):
        return
    respond_json(conn, req, 200, {"ok": True})


def route_empty_200(conn, req):
    respond(conn, req, 200, b"")


def route_not_json(conn, req):
    respond(conn, req, 200, b'{"a":', "application/json")


def route_non_utf8(conn, req):
    respond(conn, req, 200, b"\xff\xfe\xfd", "text/plain; charset=utf-8")


def route_redirect_to(conn, req):
    url = req.q("url")
    if not url or "\r" in url or "\n" in url:
        raise BadRequest("missing or invalid url parameter")
    status = req.q_int("status", 302)
    if not 300 <= status <= 399:
        raise BadRequest("status must be 3xx")
    respond(conn, req, status, b"", extra=[("Location", url)])


def route_echo_headers(conn, req):
    out = {}
    for name, value in req.headers:
        if name not in out:
            out[name] = value
        elif isinstance(out[name], list):
            out[name].append(value)
        else:
            out[name] = [out[name], value]
    respond_json(conn, req, 200, out)


class BodyDigest:
    """Length and CRC-32 of a request body, computed as it streams in."""

    def __init__(self):
        self.length = 0
        self.crc32 = 0

    def __call__(self, piece):
        self.length += len(piece)
        self.crc32 = zlib.crc32(piece, self.crc32)


def route_echo(conn, req, digest):
    # The request exactly as it reached the wire: method and target as sent (no decoding),
    # headers in order with their casing, and the body's length and CRC-32.
    respond_json(conn, req, 200, {
        "method": req.method,
        "target": req.target,
        "headers": [[name, value] for name, value in req.headers],
        "body_length": digest.length,
        "body_crc32": digest.crc32,
    })


# The Range and If-Range of every /resumable request, by the etag parameter.
RESUMABLE_LOG = {}
RESUMABLE_LOG_LOCK = threading.Lock()


def route_resumable(conn, req):
    size = req.q_int("size", 1024 * 1024)
    cut = req.q_int("cut", size)
    etag = req.q("etag", "v1")
    range_header = req.header("Range")
    if_range = req.header("If-Range")
    with RESUMABLE_LOG_LOCK:
        RESUMABLE_LOG.setdefault(etag, []).append([range_header, if_range])
    current = '"%s"' % (req.q("changed_etag", etag) if range_header else etag)
    headers = [("Content-Type", "application/octet-stream"), ("ETag", current),
               ("Accept-Ranges", "bytes")]
    start = None
    if range_header and (if_range is None or if_range == current):
        spec = range_header.strip()
        if not (spec.startswith("bytes=") and spec.endswith("-") and spec[6:-1].isdigit()):
            raise BadRequest("only Range: bytes=a- is supported")
        start = int(spec[6:-1])
        if start >= size:
            respond(conn, req, 416, b"", extra=headers + [("Content-Range", "bytes */%d" % size)])
            return
    if start is None:
        conn.send(head_bytes(200, headers + [("Content-Length", str(size)), ("Connection", "close")]))
        if req.method != "HEAD":
            # Without Range, the connection ends after `cut` bytes: a download cut halfway.
            stream_pattern(conn, size if range_header else min(cut, size))
        return
    conn.send(head_bytes(206, headers + [("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size)),
                                         ("Content-Length", str(size - start)), ("Connection", "close")]))
    if req.method != "HEAD":
        stream_pattern(conn, size - start, start=start)


def route_resumable_log(conn, req):
    with RESUMABLE_LOG_LOCK:
        entries = list(RESUMABLE_LOG.get(req.q("etag", "v1"), []))
    respond_json(conn, req, 200, entries)


# How many /flaky requests each key has had.
FLAKY_COUNTS = {}
FLAKY_COUNTS_LOCK = threading.Lock()


def route_flaky(conn, req):
    key = req.q("key", "")
    with FLAKY_COUNTS_LOCK:
        FLAKY_COUNTS[key] = FLAKY_COUNTS.get(key, 0) + 1
        count = FLAKY_COUNTS[key]
    cache_control = req.q("cache_control", "max-age=10")
    then = req.q("then", "503")
    if count == 1 and req.q("first") == "cut":
        # A connection lost mid-body: Content-Length 1000, 100 bytes, close.
        route_close_mid_body(conn, req)
    elif count == 1 or then == "v2":
        version = "v1" if count == 1 else "v2"
        respond(conn, req, 200, version.encode(), "text/plain; charset=utf-8",
                [("Cache-Control", cache_control), ("ETag", '"%s"' % version)])
    elif then == "close":
        return
    else:
        respond(conn, req, int(then) if then.isdigit() else 400, b"")


# The requests each /hop key has had: a count, and the first HOP_LOG_KEPT of them.
HOP_LOG = {}
HOP_LOG_LOCK = threading.Lock()
HOP_LOG_KEPT = 100
HOP_BODY_KEPT = 4096


class BodyPrefix:
    """The first HOP_BODY_KEPT bytes of a request body, and its length."""

    def __init__(self):
        self.length = 0
        self.prefix = b""

    def __call__(self, piece):
        self.length += len(piece)
        if len(self.prefix) < HOP_BODY_KEPT:
            self.prefix += piece[:HOP_BODY_KEPT - len(self.prefix)]


def route_hop(conn, req, body):
    # A hop of a redirect chain: what it received, for the test to read back from /hop-log.
    status = req.q_int("status", 200)
    key = req.q("key", "")
    entry = {
        "method": req.method,
        "target": req.target,
        "authorization": req.header("Authorization"),
        "body_length": body.length,
        "body": body.prefix.decode("latin-1"),
    }
    with HOP_LOG_LOCK:
        count, kept = HOP_LOG.get(key, (0, []))
        if len(kept) < HOP_LOG_KEPT:
            kept = kept + [entry]
        HOP_LOG[key] = (count + 1, kept)
    if 300 <= status <= 399:
        location = req.q("to", req.target)
        if "\r" in location or "\n" in location:
            raise BadRequest("invalid to parameter")
        respond(conn, req, status, b"", extra=[("Location", location)])
    else:
        respond_json(conn, req, status, kept)


def route_hop_log(conn, req):
    with HOP_LOG_LOCK:
        count, kept = HOP_LOG.get(req.q("key", ""), (0, []))
    respond_json(conn, req, 200, {"count": count, "hops": kept})


def route_health(conn, req):
    respond(conn, req, 200, b"ok", "text/plain; charset=utf-8")


def route_secret_response(conn, req):
    body = json.dumps({
        "access_token": "resp-access-4f1",
        "refresh_token": "resp-refresh-9c2",
        "id_token": "resp-id-77a",
        "token_type": "Bearer",
        "user": {"name": "Ada", "password": "resp-password-e5d"},
    }, separators=(",", ":")).encode("utf-8")
    respond(conn, req, 200, body, "application/json",
            extra=[("Set-Cookie", "session=resp-cookie-31b"), ("X-Auth-Token", "resp-header-0d8")])


def _gzip(data):
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    return compressor.compress(data) + compressor.flush()


# Byte-exact responses for /raw?case=NAME: each is sent as it is, then the connection closes.
RAW_RESPONSES = {
    # RFC 9112 6.3: two different Content-Length values are unrecoverable framing errors.
    "conflicting-length": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 26\r\n"
                          b"Connection: close\r\n\r\nabcdefghijklmnopqrstuvwxyz",
    "conflicting-length-list": b"HTTP/1.1 200 OK\r\nContent-Length: 5, 26\r\n"
                               b"Connection: close\r\n\r\nabcdefghijklmnopqrstuvwxyz",
    # An invalid value: 26 digits, more than any 64-bit length.
    "huge-length": b"HTTP/1.1 200 OK\r\nContent-Length: 12345678901234567890123456\r\n"
                   b"Connection: close\r\n\r\nabcdefghijklmnopqrstuvwxyz",
    "negative-length": b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\nConnection: close\r\n\r\nabcde",
    "non-numeric-length": b"HTTP/1.1 200 OK\r\nContent-Length: 5x\r\nConnection: close\r\n\r\nabcde",
    # A body shorter than its declared length, then a clean close.
    "short-length": b"HTTP/1.1 200 OK\r\nContent-Length: 26\r\nConnection: close\r\n\r\nabcde",
    "bad-chunk-size": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                      b"zz\r\nabcde\r\n0\r\n\r\n",
    "bad-gzip": b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 16\r\n"
                b"Connection: close\r\n\r\nthis is not gzip",
    "bad-deflate": b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: 16\r\n"
                   b"Connection: close\r\n\r\nnot deflate data",
    "huge-header": b"HTTP/1.1 200 OK\r\nX-Huge: " + b"a" * (200 * 1024) + b"\r\nContent-Length: 2\r\n"
                   b"Connection: close\r\n\r\nok",
    "latin1-header": b"HTTP/1.1 200 OK\r\nX-Name: Jos\xe9\r\nContent-Length: 2\r\n"
                     b"Connection: close\r\n\r\nok",
    "status-2000": b"HTTP/1.1 2000 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
    # A 206 to a request that asked for no range: ten bytes of a hundred.
    "partial-without-range": b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/100\r\n"
                             b"Content-Length: 10\r\nConnection: close\r\n\r\n0123456789",
    # A 206 to `Range: bytes=0-` whose range is longer than a 64-bit count (issue 38, item 5): its
    # length, end - start + 1, overflowed and stopped the client.
    "range-past-int64": b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9223372036854775807/*\r\n"
                        b"Content-Length: 3\r\nConnection: close\r\n\r\nabc",
    "status-abc": b"HTTP/1.1 abc OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
    # Content-Length 2^63 - 512: swift-corelibs-foundation traps on it (SECURITY.md); 2^63 - 513
    # does not, and fails the short body.
    "length-near-max": b"HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775296\r\nConnection: close\r\n\r\nabc",
    "length-below-trap": b"HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775295\r\nConnection: close\r\n\r\nabc",
    # A chunked body with a trailer field (RFC 9112 §7.1.2): Foundation traps on Linux.
    "chunked-trailers": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                        b"5\r\nhello\r\n0\r\nX-Trailer: v\r\n\r\n",
    # A status line and a header, then a close before the blank line that ends the head.
    "header-then-close": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n",
    "gzip-ok": b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " +
               str(len(_gzip(b"hello, gzip"))).encode() + b"\r\nConnection: close\r\n\r\n" + _gzip(b"hello, gzip"),
    # Informational heads before the final one (RFC 9110 §15.2): a 103 with a body-like header,
    # then the 200; and two of them. The body must be the 200's, once.
    "early-hints": b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                   b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
    "two-early-hints": b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                       b"HTTP/1.1 103 Early Hints\r\nLink: </b.js>\r\n\r\n"
                       b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
    # A 103 before a redirect that cannot be followed (no Location, or one that is no URL): Linux's
    # URLSession hands the delegate the 103 head but never the 302's, and ends the task with the 302.
    "early-hints-then-redirect-without-location": b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                                                  b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    "early-hints-then-redirect-bad-location": b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                                              b"HTTP/1.1 302 Found\r\nLocation: http://[::1\r\nContent-Length: 0\r\n"
                                              b"Connection: close\r\n\r\n",
}


def route_raw(conn, req):
    name = req.q("case", "")
    data = RAW_RESPONSES.get(name)
    if data is None:
        raise BadRequest("unknown raw case %r" % name)
    conn.send(data)


def route_gzip_bomb(conn, req):
    total = req.q_int("mib", 1024) * 1024 * 1024
    conn.send(head_bytes(200, [("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip"),
                               ("Transfer-Encoding", "chunked"), ("Connection", "close")]))
    if req.method == "HEAD":
        return
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(CHUNK * 16)
    sent = 0
    while sent < total and not STOPPING.is_set():
        piece = compressor.compress(zeros[:min(len(zeros), total - sent)])
        sent += min(len(zeros), total - sent)
        if piece:
            conn.send(b"%x\r\n" % len(piece) + piece + b"\r\n")
    tail = compressor.flush()
    conn.send(b"%x\r\n" % len(tail) + tail + b"\r\n0\r\n\r\n")


ROUTES = {
    "/hang": route_hang,
    "/close-mid-body": route_close_mid_body,
    "/malformed-status": route_malformed_status,
    "/short-body": route_short_body,
    "/large": route_large,
    "/endless": route_endless,
    "/odd-header-casing": route_odd_header_casing,
    "/slow": route_slow,
    "/slow-headers": route_slow_headers,
    "/trickle": route_trickle,
    "/stall": route_stall,
    "/empty-200": route_empty_200,
    "/not-json": route_not_json,
    "/non-utf8": route_non_utf8,
    "/redirect-to": route_redirect_to,
    "/echo-headers": route_echo_headers,
    "/secret-response": route_secret_response,
    "/raw": route_raw,
    "/gzip-bomb": route_gzip_bomb,
    "/resumable": route_resumable,
    "/resumable-log": route_resumable_log,
    "/flaky": route_flaky,
    "/hop": route_hop,
    "/hop-log": route_hop_log,
    "/health": route_health,
}


# --- server -----------------------------------------------------------------

class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.settimeout(SEND_TIMEOUT_S)
        conn = Conn(sock)
        req = None
        try:
            req = parse_request(conn)
            log("%s %s" % (req.method, req.target))
            handler = ROUTES.get(req.path)
            if handler is route_hang:
                handler(conn, req)
                return
            if req.path == "/echo":
                digest = BodyDigest()
                read_body(conn, req, digest)
                route_echo(conn, req, digest)
                return
            if handler is route_hop:
                body = BodyPrefix()
                read_body(conn, req, body)
                route_hop(conn, req, body)
                return
            read_body(conn, req)
            if handler is None:
                respond_json(conn, req, 404, {"error": "unknown fault route"})
            else:
                handler(conn, req)
        except BadRequest as e:
            log("bad request: %s" % e)
            try:
                respond_json(conn, req, 400, {"error": str(e)})
            except OSError:
                pass
        except (EOFError, OSError) as e:
            # Client went away (expected for /endless, /hang, timeouts in tests).
            if not isinstance(e, EOFError):
                log("connection ended: %s: %s" % (type(e).__name__, e))

class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    # TCPServer.shutdown_request half-closes (SHUT_WR) before closing, so
    # clients see a clean EOF after each response.
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128


def write_atomically(path, text):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0, help="port to bind on 127.0.0.1 (0 = any free port)")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--pid-file", help="write this process id here once listening")
    args = ap.parse_args()

    server = Server(("127.0.0.1", args.port), Handler)
    port = server.server_address[1]

    stop_requested = threading.Event()

    def on_signal(signum, _frame):
        stop_requested.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name="serve_forever", daemon=True)
    thread.start()
    if args.pid_file:
        write_atomically(args.pid_file, "%d\n" % os.getpid())
    if args.port_file:
        write_atomically(args.port_file, "%d\n" % port)
    log("listening on http://127.0.0.1:%d (pid %d)" % (port, os.getpid()))

    while not stop_requested.wait(1.0):
        pass
    log("shutting down")
    STOPPING.set()
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
