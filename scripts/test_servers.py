"""Tests of scripts/servers.py: python3 -m unittest scripts/test_servers.py (a few seconds).

Each test runs the supervisor in a child process with a state folder of its own, with the real
fault and HTTPS servers or a fake one, and afterwards looks for any process whose command line
names that folder: every server, worker and command has it, so none may be left.
"""

import json, os, shutil, signal, subprocess, sys, tempfile, time, unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent

# A server with a worker of its own (as gunicorn has), answering 501 to everything.
FAKE_SERVER = """
import http.server, pathlib, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", sys.argv[1]])
server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
pathlib.Path(sys.argv[1], "fake.port").write_text(str(server.server_address[1]))
server.serve_forever()
"""
FAKE = 'servers.Server("fake", [sys.executable, "-c", %r, str(state)], "FAKE_URL")' % FAKE_SERVER
NEVER_READY = 'servers.Server("fake", [sys.executable, "-c", "import time; time.sleep(600)", str(state)], "FAKE_URL")'


class SupervisorTests(unittest.TestCase):
    def setUp(self):
        self.state = Path(tempfile.mkdtemp(prefix="servers-test-"))
        self.addCleanup(shutil.rmtree, self.state, ignore_errors=True)

    def supervise(self, servers, *command, timeout="10", wait=True):
        """Runs servers.run(servers, command) in a child process; returns it (after it exits if wait)."""
        driver = ("import sys; sys.path.insert(0, %r); import servers; from pathlib import Path; "
                  "state = Path(%r); sys.exit(servers.run([%s], %r, state))"
                  % (str(SCRIPTS), str(self.state), servers, [sys.executable, "-c", *command, str(self.state)]))
        process = subprocess.Popen([sys.executable, "-c", driver], stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "TEST_SERVERS_START_TIMEOUT": timeout})
        if wait:
            process.stderr_text = process.communicate(timeout=60)[1]
        return process

    def leftovers(self):
        """Live processes whose command line names this test's state folder."""
        found = []
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                alive = entry.joinpath("stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
                if alive and str(self.state) in entry.joinpath("cmdline").read_bytes().decode(errors="replace"):
                    found.append(entry.name)
            except OSError:
                continue
        return found

    def test_servers_start_and_their_urls_reach_the_command(self):
        out = self.state / "env.json"
        dump = "import json, os, sys; open(%r, 'w').write(json.dumps(dict(os.environ)))" % str(out)
        process = self.supervise("servers.fault_server(state), servers.https_server(state)", dump)
        self.assertEqual(process.returncode, 0, process.stderr_text)
        env = json.loads(out.read_text())
        self.assertRegex(env["NETWORK_MODULE_FAULT_SERVER_URL"], r"^http://127\.0\.0\.1:\d+$")
        self.assertRegex(env["NETWORK_MODULE_TLS_URL"], r"^https://127\.0\.0\.1:\d+$")
        self.assertIn("BEGIN CERTIFICATE", Path(env["NETWORK_MODULE_TLS_CERT"]).read_text())
        self.assertIn("GET /health", Path(env["NETWORK_MODULE_FAULT_SERVER_LOG"]).read_text())
        self.assertEqual(self.leftovers(), [])

    def test_command_status_is_passed_through_and_servers_stop_after_a_failure(self):
        process = self.supervise(FAKE, "import sys; sys.exit(7)")
        self.assertEqual(process.returncode, 7, process.stderr_text)
        self.assertEqual(self.leftovers(), [])

    def test_sigterm_stops_the_command_and_every_server_process(self):
        started = self.state / "started"
        process = self.supervise(FAKE, "import pathlib, time; pathlib.Path(%r).touch(); time.sleep(600)"
                                 % str(started), wait=False)
        deadline = time.monotonic() + 20
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(started.exists(), "the command never started")
        self.assertGreater(len(self.leftovers()), 2)  # server, its worker, command, supervisor

        process.send_signal(signal.SIGTERM)

        process.communicate(timeout=15)
        self.assertEqual(process.returncode, 128 + signal.SIGTERM)
        self.assertEqual(self.leftovers(), [])

    def test_sigterm_while_servers_start_stops_them_and_never_runs_the_command(self):
        ran = self.state / "ran"
        process = self.supervise(NEVER_READY, "import pathlib; pathlib.Path(%r).touch()" % str(ran), wait=False)
        deadline = time.monotonic() + 20
        while not (self.state / "fake.log").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)

        process.send_signal(signal.SIGTERM)

        process.communicate(timeout=15)
        self.assertEqual(process.returncode, 128 + signal.SIGTERM)
        self.assertFalse(ran.exists())
        self.assertEqual(self.leftovers(), [])

    def test_a_server_that_never_answers_fails_clearly_within_the_timeout(self):
        began = time.monotonic()
        process = self.supervise(NEVER_READY, "print('never runs')", timeout="1")
        self.assertEqual(process.returncode, 1)
        self.assertLess(time.monotonic() - began, 15)
        self.assertIn("fake did not answer within 1 s", process.stderr_text)
        self.assertEqual(self.leftovers(), [])

    def test_a_server_that_exits_at_start_fails_with_its_log(self):
        crash = 'servers.Server("fake", [sys.executable, "-c", "print(\'no port\'); raise SystemExit(3)"], "FAKE_URL")'
        process = self.supervise(crash, "print('never runs')")
        self.assertEqual(process.returncode, 1)
        self.assertIn("fake exited during start-up", process.stderr_text)
        self.assertIn("no port", process.stderr_text)


if __name__ == "__main__":
    unittest.main()
