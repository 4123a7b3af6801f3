#!/usr/bin/env python3
"""Local servers for the integration tests and the benchmarks, on 127.0.0.1 only.

    python3 scripts/servers.py run -- COMMAND...               # httpbin, fault server, HTTPS
    python3 scripts/servers.py run --nginx CONF -- COMMAND...  # nginx alone (scripts/bench.sh)

Starts the servers, each in its own process group, waits until each answers, runs COMMAND
with their URLs in its environment, then stops every process of every group (on exit, on
error, and on SIGINT, SIGTERM or SIGHUP) and exits with COMMAND's status.

  httpbin       NETWORK_MODULE_HTTPBIN_URL; gunicorn from a venv in .build/test-servers-venv,
                made from scripts/requirements-test-servers.txt and remade when that file or
                python3 changes (as root on Debian, `apt-get install python3-venv` if needed)
  fault server  NETWORK_MODULE_FAULT_SERVER_URL, scripts/fault_server.py; its log of requests
                is NETWORK_MODULE_FAULT_SERVER_LOG
  HTTPS         NETWORK_MODULE_TLS_URL, this file's `https` mode: {"tls":true} on every GET,
                with a self-signed certificate for 127.0.0.1 made by `openssl` at each start
                (NETWORK_MODULE_TLS_CERT, PEM); skipped with a warning when there is no
                openssl and no root to install it
  nginx         NETWORK_MODULE_NGINX_URL; CONF with @PORT@ replaced by a free port

Logs, port files and the certificate go to .build/test-servers (TEST_SERVERS_STATE_DIR).
Standard library only.
"""

import fcntl, hashlib, http.client, http.server, json, os, shutil, signal, socket, ssl, subprocess, sys, time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
VENV = ROOT / ".build" / "test-servers-venv"
REQUIREMENTS = SCRIPTS / "requirements-test-servers.txt"
START_TIMEOUT = float(os.environ.get("TEST_SERVERS_START_TIMEOUT", "60"))


def log(message):
    print("[servers.py] " + message, file=sys.stderr, flush=True)


class Server:
    """One server: a command, the port it listens on, and the URL it answers at once ready.

    The command writes its port to `<state>/<name>.port` once it listens, unless `port` is given.
    """

    def __init__(self, name, argv, url_var, probe="/", scheme="http", env=None, stop_signal=signal.SIGTERM,
                 port=None):
        self.name, self.argv, self.url_var, self.probe, self.scheme = name, argv, url_var, probe, scheme
        self.env, self.stop_signal, self.port = env or {}, stop_signal, port
        self.exports, self.process, self.url = {}, None, None

    def start(self, state):
        self.log, self.port_file = state / (self.name + ".log"), state / (self.name + ".port")
        if self.port_file.exists():
            self.port_file.unlink()
        with open(self.log, "w") as log_file:  # a new session: its own process group, pgid == pid
            self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                                            env={**os.environ, **self.env}, start_new_session=True)
        if self.port:
            self.port_file.write_text(str(self.port))

    def answers(self):
        """Whether it answers an HTTP(S) request: any status will do."""
        try:
            port = int(self.port_file.read_text())
        except (OSError, ValueError):
            return False
        if self.scheme == "https":
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # self-signed
            connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=context)
        else:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            connection.request("GET", self.probe)
            connection.getresponse()
        except (OSError, http.client.HTTPException):
            return False
        finally:
            connection.close()
        self.url = "%s://127.0.0.1:%d" % (self.scheme, port)
        return True

    def failure(self, message):
        tail = self.log.read_text(errors="replace").splitlines()[-25:] if self.log.exists() else []
        return "%s\n---- last lines of %s ----\n%s" % (message, self.log, "\n".join(tail))


SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def group_alive(pgid):
    """Whether process group `pgid` has a member that is not a zombie (ps would show them)."""
    if not os.path.isdir("/proc/self"):  # macOS: no /proc, ask the kernel
        try:
            os.killpg(pgid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            return True
    return False


def stop(servers):
    """Asks every server's group to stop, then kills what is left after 10 s. Never raises."""
    started = [s for s in servers if s.process]
    for server in started:
        try:
            os.killpg(server.process.pid, server.stop_signal)
        except ProcessLookupError:
            pass
    for server in started:
        pgid, deadline = server.process.pid, time.monotonic() + 10
        while group_alive(pgid) and time.monotonic() < deadline:
            server.process.poll()  # reaps the leader: it is our child
            time.sleep(0.05)
        if group_alive(pgid):
            log("%s still running after 10 s: SIGKILL to its process group" % server.name)
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        server.process.wait()
        server.process = None


def start(servers, state, received):
    """Starts every server and waits until each answers; raises if one exits or is late, or on a signal."""
    for server in servers:
        server.start(state)
    deadline = time.monotonic() + START_TIMEOUT
    waiting = list(servers)
    while waiting and not received:
        for server in list(waiting):
            if server.process.poll() is not None:
                raise RuntimeError(server.failure("%s exited during start-up" % server.name))
            if server.answers():
                waiting.remove(server)
        if waiting and time.monotonic() > deadline:
            names = ", ".join(s.name for s in waiting)
            raise RuntimeError(waiting[0].failure("%s did not answer within %g s" % (names, START_TIMEOUT)))
        time.sleep(0.1)


def run(servers, command, state):
    """Starts `servers`, runs `command` with their URLs, stops them; returns command's status."""
    state.mkdir(parents=True, exist_ok=True)
    child, received = None, []

    def on_signal(number, _frame):  # recorded, never raised: a process just started is never lost
        received.append(number)
        if child is not None:
            child.send_signal(signal.SIGTERM)

    for number in SIGNALS:
        signal.signal(number, on_signal)
    try:
        start(servers, state, received)
        if received:  # before the command started: do not start it
            return 128 + received[0]
        env = dict(os.environ)
        for server in servers:
            env.update({server.url_var: server.url, **server.exports})
        log(", ".join("%s at %s" % (s.name, s.url) for s in servers) + " (logs: %s)" % state)
        if any(name in env for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY")):
            for name in ("no_proxy", "NO_PROXY"):  # keep loopback traffic away from a proxy
                env[name] = ",".join(filter(None, [env.get(name), "127.0.0.1,localhost"]))
        child = subprocess.Popen(command, env=env)
        if received:  # arrived while it was starting
            child.send_signal(signal.SIGTERM)
        status = child.wait()
        return 128 + received[0] if received else (128 - status if status < 0 else status)
    except (RuntimeError, OSError) as error:
        log("error: %s" % error)
        return 1
    finally:
        for number in SIGNALS:
            signal.signal(number, signal.SIG_IGN)  # nothing interrupts the stop
        if child is not None and child.poll() is None:
            child.wait()
        stop(servers)


def apt_install(package):
    """Installs a Debian package when we are root and have apt-get; says whether it did."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return False
    log("installing %s with apt-get" % package)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return subprocess.run(["apt-get", "install", "-y", "-q", package], env=env, stdout=subprocess.DEVNULL).returncode == 0


def ensure_venv(state):
    """The venv with httpbin and gunicorn, made again when the requirements or python3 change."""
    python_id = "%s %s %s" % (sys.version, sys.executable, sys.base_prefix)
    key = hashlib.sha256(REQUIREMENTS.read_bytes() + python_id.encode()).hexdigest()
    stamp = VENV / ".test-servers-stamp"
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(str(VENV) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two first runs at once: one installs, the other waits
        if stamp.exists() and stamp.read_text() == key and (VENV / "bin" / "gunicorn").exists():
            return
        log("creating %s (pip install -r %s); log: %s" % (VENV, REQUIREMENTS.name, state / "pip-install.log"))
        with open(state / "pip-install.log", "w") as pip_log:
            def venv():
                shutil.rmtree(VENV, ignore_errors=True)
                return subprocess.run([sys.executable, "-m", "venv", str(VENV)], stdout=pip_log, stderr=pip_log).returncode == 0
            version = "python%d.%d-venv" % sys.version_info[:2]  # Debian ships venv apart
            if not (venv() or (apt_install("python3-venv") and venv()) or (apt_install(version) and venv())):
                raise RuntimeError("cannot make a venv with %s -m venv (on Debian: apt-get install python3-venv)"
                                   % sys.executable)
            pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
            if subprocess.run(pip + ["-r", str(REQUIREMENTS)], stdout=pip_log, stderr=pip_log).returncode != 0:
                raise RuntimeError("pip install failed; see %s" % (state / "pip-install.log"))
        stamp.write_text(key)


def https_server(state):
    """The HTTPS server with a fresh self-signed certificate, or None without openssl."""
    if not shutil.which("openssl") and not apt_install("openssl"):
        log("warning: no openssl (and no root to install it): no TLS server")
        return None
    cert, key = state / "tls-cert.pem", state / "tls-key.pem"
    # Valid 2 days, for 127.0.0.1 and localhost: only "untrusted issuer" is wrong with it.
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server = Server("tls", [sys.executable, __file__, "https", str(cert), str(key), str(state / "tls.port")],
                    "NETWORK_MODULE_TLS_URL", probe="/get", scheme="https")
    server.exports["NETWORK_MODULE_TLS_CERT"] = str(cert)
    return server


def fault_server(state):
    """scripts/fault_server.py; what it received is in its log."""
    server = Server("fault", [sys.executable, "-u", str(SCRIPTS / "fault_server.py"), "--port", "0",
                              "--port-file", str(state / "fault.port")], "NETWORK_MODULE_FAULT_SERVER_URL",
                    probe="/health")
    server.exports["NETWORK_MODULE_FAULT_SERVER_LOG"] = str(state / "fault.log")
    return server


def test_servers(state):
    """httpbin, the fault server and, with openssl, the HTTPS server."""
    ensure_venv(state)
    httpbin = Server("httpbin", [str(VENV / "bin" / "gunicorn"), "--config", str(SCRIPTS / "gunicorn_test_servers.py"),
                                 "--chdir", str(state), "httpbin:app"], "NETWORK_MODULE_HTTPBIN_URL", probe="/get",
                     env={"TEST_SERVERS_HTTPBIN_PORT_FILE": str(state / "httpbin.port"), "GUNICORN_CMD_ARGS": ""},
                     stop_signal=signal.SIGQUIT)  # gunicorn's quick stop: TERM waits for idle workers
    return [s for s in (httpbin, fault_server(state), https_server(state)) if s]


def nginx_server(conf, state):
    """nginx with CONF, its @PORT@ replaced by a free port (installed from Debian as root if missing)."""
    def find():  # Debian puts it in /usr/sbin, which a user's PATH may lack
        return shutil.which("nginx", path=os.environ.get("PATH", "") + os.pathsep + "/usr/sbin")
    nginx = find() or (apt_install("nginx-light") and find())
    if not nginx:
        raise RuntimeError("nginx is missing and this is not root; install nginx first")
    port = free_port()  # free a moment ago: nginx cannot report the port it was given
    (state / "nginx.conf").write_text(Path(conf).read_text().replace("@PORT@", str(port)))
    return [Server("nginx", [nginx, "-c", str(state / "nginx.conf"), "-e", str(state / "nginx-error.log")],
                   "NETWORK_MODULE_NGINX_URL", port=port)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_https(cert, key, port_file):
    """The TLS route of the tests: {"tls":true} on every GET, over HTTP/1.1 with keep-alive."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = json.dumps({"tls": True}, separators=(",", ":")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    class TLSServer(http.server.ThreadingHTTPServer):
        def handle_error(self, request, address):  # a client that refuses the certificate
            log("https: %s from %s" % (sys.exc_info()[1], address[0]))

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = TLSServer(("127.0.0.1", 0), Handler)
    # The handshake happens in each connection's thread, not in accept(): one slow client
    # cannot hold up the others.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    Path(port_file).write_text(str(server.server_address[1]))
    server.serve_forever()


def main(argv):
    if argv[:1] == ["https"] and len(argv) == 4:
        return serve_https(*argv[1:])
    split = argv.index("--") if "--" in argv else len(argv)
    options, command = argv[1:split], argv[split + 1:]
    if argv[:1] != ["run"] or not command or not (options == [] or options[:1] == ["--nginx"] and len(options) == 2):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    state = Path(os.environ.get("TEST_SERVERS_STATE_DIR", ROOT / ".build" / "test-servers")).resolve()
    state.mkdir(parents=True, exist_ok=True)
    try:
        servers = nginx_server(options[1], state) if options else test_servers(state)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
        log("error: %s" % error)
        return 1
    return run(servers, command, state)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
