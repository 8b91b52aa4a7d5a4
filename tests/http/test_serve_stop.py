"""`lorekeeper serve --http` stopped by SIGTERM answers every request it accepted: requests in flight when the signal
comes (each waits for the store a first start builds from the bundled snapshot, a few seconds) all get their
answers, the server exits 0, and nothing later is accepted. No proxy in front: an empty reply is a lost answer.

Run: python3 test_serve_stop.py LOREKEEPER_BIN (standard library only).
"""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

BIN = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LOREKEEPER_BIN", "build/lorekeeper")


def post(port, body, timeout=60):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("POST", "/mcp", json.dumps(body), {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    })
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def raw_post(port, body):
    """The bytes of one POST /mcp, to write on a socket (several in one write are pipelined)."""
    data = json.dumps(body).encode()
    return (("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
             "Content-Length: %d\r\n\r\n") % (port, len(data))).encode() + data


def read_answers(sock, timeout=60):
    """The answers read from `sock` until it ends: a list of (status, {header: value}, body)."""
    sock.settimeout(timeout)
    buf = b""
    answers = []
    while True:
        try:
            chunk = sock.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
        while b"\r\n\r\n" in buf:
            head, rest = buf.split(b"\r\n\r\n", 1)
            lines = head.decode("latin1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers.setdefault(name.strip().lower(), []).append(value.strip())
            length = int(headers.get("content-length", ["0"])[0])
            if len(rest) < length:
                break
            answers.append((int(lines[0].split()[1]), headers, rest[:length]))
            buf = rest[length:]
    return answers


class ServerCase(unittest.TestCase):
    """A `serve --http` on a new store (built from the bundled snapshot by the first request), `threads` workers."""
    threads = 8

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        env = dict(os.environ, LOREKEEPER_DB_PATH=os.path.join(self.tmp.name, "store.db"), LOREKEEPER_EMBED="off",
                   LOREKEEPER_AUTO_SYNC="off", LOREKEEPER_ENV_FILE=os.path.join(self.tmp.name, "none.env"))
        self.proc = subprocess.Popen([BIN, "serve", "--http", "--port", "0", "--http-threads", str(self.threads)],
                                     env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, cwd=self.tmp.name)
        deadline = time.monotonic() + 15
        self.port = None
        while time.monotonic() < deadline and self.port is None:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.search(r"listening on http://[^:]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
        self.assertIsNotNone(self.port, "serve --http did not report its port")
        self.log = []
        threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True).start()

    def tearDown(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.tmp.cleanup()



class ServeStop(ServerCase):
    def test_every_request_in_flight_at_sigterm_is_answered(self):
        n = 8
        answers = [None] * n
        done_at = [None] * n

        def call(i):
            try:
                answers[i] = post(self.port, {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                              "params": {"name": "search_spell", "arguments": {"search": "fireball"}}})
            except Exception as e:  # an empty reply or a reset: the answer was lost
                answers[i] = (None, repr(e).encode())
            done_at[i] = time.monotonic()

        clients = [threading.Thread(target=call, args=(i,)) for i in range(n)]
        for c in clients:
            c.start()
        time.sleep(1.0)  # the requests are read and wait for the store being built (a few seconds)
        signalled = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        for c in clients:
            c.join(60)
        rc = self.proc.wait(timeout=60)
        for i, (status, body) in enumerate(answers):
            self.assertEqual(status, 200, "request %d: %r" % (i + 1, body[:300]))
            reply = json.loads(body)
            self.assertEqual(reply["id"], i + 1)
            self.assertIn("Fireball", reply["result"]["content"][0]["text"])
        # They were in flight at the signal: answered after it.
        self.assertTrue(all(t > signalled for t in done_at),
                        "the requests were answered before the signal; the test did not stop a server in flight")
        self.assertEqual(rc, 0, "".join(self.log)[-2000:])
        with self.assertRaises(OSError):
            post(self.port, {"jsonrpc": "2.0", "id": 99, "method": "ping"}, timeout=2)

    def test_a_busy_keep_alive_client_is_told_to_close_and_does_not_hold_the_stop(self):
        """One connection kept busy with request after request: after the signal it gets an answer that says
        "Connection: close" and is then closed, so the server ends within seconds instead of serving it for as long
        as it keeps asking. Every request sent on it is answered."""
        status, _ = post(self.port, {"jsonrpc": "2.0", "id": 0, "method": "ping"})  # the store is built
        self.assertEqual(status, 200)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        answered, closing, lost = [], [], []
        stop_client = time.monotonic() + 30
        signalled = []

        def busy():
            i = 0
            while time.monotonic() < stop_client:
                i += 1
                try:
                    conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}), {
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream",
                        "MCP-Protocol-Version": "2025-11-25",
                    })
                    resp = conn.getresponse()
                    resp.read()
                except (ConnectionError, http.client.HTTPException, OSError) as e:
                    if signalled and not closing:
                        lost.append(repr(e))  # the connection ended without saying so first
                    return
                answered.append(resp.status)
                if resp.getheader("Connection", "").lower() == "close":
                    closing.append((i, bool(signalled)))
                    return
                time.sleep(0.02)  # about fifty requests a second, far from the 1,000 a connection may carry

        client = threading.Thread(target=busy)
        client.start()
        time.sleep(1.0)
        signalled.append(time.monotonic())
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=20)
        ended = time.monotonic() - signalled[0]
        client.join(30)
        self.assertEqual(rc, 0, "".join(self.log)[-2000:])
        self.assertLess(ended, 10, "the stop waited for the busy client")
        self.assertEqual(lost, [])
        self.assertTrue(closing and closing[0][1], "no answer after the signal said Connection: close")
        self.assertGreater(len(answered), 1)
        self.assertTrue(all(s == 200 for s in answered), answered)

    def test_pipelined_requests_sent_before_sigterm_are_answered_however_late(self):
        """Three requests in one write before the signal, behind a first that waits for the store being built
        (longer than the stop's 2 s grace): all three are answered, the last saying Connection: close."""
        s = socket.create_connection(("127.0.0.1", self.port))
        s.sendall(raw_post(self.port, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                       "params": {"name": "search_spell", "arguments": {"search": "fireball"}}})
                  + raw_post(self.port, {"jsonrpc": "2.0", "id": 2, "method": "ping"})
                  + raw_post(self.port, {"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        time.sleep(1.0)
        self.proc.send_signal(signal.SIGTERM)
        answers = read_answers(s)
        s.close()
        self.assertEqual(self.proc.wait(timeout=60), 0, "".join(self.log)[-2000:])
        self.assertEqual([json.loads(body)["id"] for _, _, body in answers], [1, 2, 3], answers)
        self.assertTrue(all(status == 200 for status, _, _ in answers))
        self.assertEqual(answers[-1][1].get("connection"), ["close"])
        self.assertNotIn("keep-alive", answers[-1][1])

    def test_leftover_bytes_after_an_answer_do_not_hold_the_stop(self):
        """A GET whose body the library leaves unread, and a POST followed by an empty line, sent after the signal:
        answered, and the connections end within the stop's grace, not the 15 s deadline."""
        post(self.port, {"jsonrpc": "2.0", "id": 0, "method": "ping"})  # the store is built
        # Connected before the signal (the listener is closed by it), sending after it, within its grace.
        sockets = [socket.create_connection(("127.0.0.1", self.port)) for _ in range(2)]
        time.sleep(0.3)
        self.proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        time.sleep(0.3)
        for s, data in zip(sockets, (b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello",
                                     raw_post(self.port, {"jsonrpc": "2.0", "id": 5, "method": "ping"}) + b"\r\n")):
            s.sendall(data)
        for s in sockets:
            answers = read_answers(s, timeout=30)
            s.close()
            self.assertEqual([status for status, _, _ in answers], [200])
        self.assertEqual(self.proc.wait(timeout=30), 0, "".join(self.log)[-2000:])
        self.assertLess(time.monotonic() - signalled, 8)

    def test_idle_connections_neither_stall_others_nor_outlive_a_stop_and_one_client_is_bounded(self):
        """Against the real binary with its defaults (64 connections per client address)."""
        # 320 connections that send nothing, 64 from each of five addresses (the bound per client). Each held
        # a worker for its keep-alive wait before, so every new client waited about 50 s.
        idle = []
        for a in range(2, 7):
            for _ in range(64):
                s = socket.socket()
                s.bind(("127.0.0.%d" % a, 0))
                s.connect(("127.0.0.1", self.port))
                idle.append(s)
        time.sleep(0.5)
        for i in range(10):
            status, body = post(self.port, {"jsonrpc": "2.0", "id": i, "method": "ping"}, timeout=5)
            self.assertEqual(status, 200, body[:300])
        # The 65th connection of one address is answered 503 at once and closed.
        extra = socket.socket()
        extra.bind(("127.0.0.2", 0))
        extra.connect(("127.0.0.1", self.port))
        extra.settimeout(5)
        got = b""
        while True:
            chunk = extra.recv(4096)
            if not chunk:
                break
            got += chunk
        extra.close()
        self.assertTrue(got.startswith(b"HTTP/1.1 503"), got[:200])
        self.assertIn(b"Retry-After", got)
        # A stop closes the idle connections and ends.
        self.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.proc.wait(timeout=30), 0, "".join(self.log)[-2000:])
        for s in idle:
            s.settimeout(5)
            self.assertEqual(s.recv(16), b"")
            s.close()


class ServeStopOneWorker(ServerCase):
    """With one worker: a connection waiting for it when the signal comes is answered."""
    threads = 1

    def test_a_request_waiting_for_a_worker_at_sigterm_is_answered(self):
        a = socket.create_connection(("127.0.0.1", self.port))
        a.sendall(raw_post(self.port, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                       "params": {"name": "search_spell", "arguments": {"search": "fireball"}}}))
        time.sleep(0.5)  # the one worker waits for the store being built
        b = socket.create_connection(("127.0.0.1", self.port))
        b.sendall(raw_post(self.port, {"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        time.sleep(0.5)
        self.proc.send_signal(signal.SIGTERM)
        got = {}
        readers = [threading.Thread(target=lambda n=n, s=s: got.__setitem__(n, read_answers(s)))
                   for n, s in (("a", a), ("b", b))]
        for r in readers:
            r.start()
        for r in readers:
            r.join(90)
        self.assertEqual(self.proc.wait(timeout=60), 0, "".join(self.log)[-2000:])
        self.assertEqual([json.loads(body)["id"] for _, _, body in got["a"]], [1])
        self.assertEqual([json.loads(body)["id"] for _, _, body in got["b"]], [2])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
