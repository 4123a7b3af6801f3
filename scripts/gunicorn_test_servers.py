# Gunicorn config for the httpbin test server started by scripts/servers.py.
#
# Binds 127.0.0.1 on a free port chosen by the OS (port 0) and, once the
# master is listening, writes that port to $TEST_SERVERS_HTTPBIN_PORT_FILE so
# servers.py can read it without guessing or racing for a port.
import os

bind = ["127.0.0.1:0"]
worker_class = "gthread"
# Load httpbin once in the master before forking, so every worker can serve
# as soon as it exists (the readiness probe only reaches one of them).
preload_app = True
workers = int(os.environ.get("TEST_SERVERS_HTTPBIN_WORKERS", "4"))
# A gthread worker accepts connections beyond its thread count and queues
# them, so a burst can land on one worker: give each enough threads.
threads = int(os.environ.get("TEST_SERVERS_HTTPBIN_THREADS", "16"))
# httpbin's /delay/N caps N at 10 s; leave room for slow streaming routes.
timeout = 60
graceful_timeout = 5
keepalive = 5
backlog = 256
accesslog = "-"
errorlog = "-"
loglevel = "info"


def when_ready(server):
    path = os.environ.get("TEST_SERVERS_HTTPBIN_PORT_FILE")
    if not path:
        return
    port = server.LISTENERS[0].sock.getsockname()[1]
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)
