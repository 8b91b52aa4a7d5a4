#!/usr/bin/env python3
"""New connections per second to `serve --http` while IDLE other connections are open and send nothing, and the
server's CPU meanwhile: what idle connections cost the accept path (docs/PERFORMANCE.md). The bounds on connections
are lifted for the run, so that the idle ones are all held. Then SIGTERM, and the time the stop takes.

usage: scripts/http-idle-load.py LOREKEEPER IDLE [SECONDS]
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    binary, idle_count = sys.argv[1], int(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    tmp = tempfile.mkdtemp(prefix="lk-idle-")
    env = dict(os.environ, LOREKEEPER_DB_PATH=os.path.join(tmp, "store.db"), LOREKEEPER_EMBED="off",
               LOREKEEPER_AUTO_SYNC="off", LOREKEEPER_ENV_FILE=os.path.join(tmp, "none.env"),
               LOREKEEPER_HTTP_MAX_CONNECTIONS="100000", LOREKEEPER_HTTP_MAX_CONNECTIONS_PER_CLIENT="100000")
    server = subprocess.Popen([binary, "serve", "--http", "--port", "0", "--http-threads", "8"], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    port = None
    while port is None:
        line = server.stderr.readline()
        if not line:
            sys.exit("serve --http did not start")
        m = re.search(r"listening on http://[^:]+:(\d+)", line)
        port = int(m.group(1)) if m else None
    threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()  # keep its log flowing
    idle = []
    for _ in range(idle_count):
        s = socket.socket()
        s.connect(("127.0.0.1", port))
        idle.append(s)
    time.sleep(1)
    start, cpu_start, done = time.monotonic(), cpu_seconds(server.pid), 0
    while time.monotonic() - start < seconds:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                  {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        c.getresponse().read()
        c.close()
        done += 1
    elapsed = time.monotonic() - start
    cpu = cpu_seconds(server.pid) - cpu_start
    print(f"{idle_count} idle connections: {done / elapsed:,.0f} new connections a second (each one ping), "
          f"server CPU {100 * cpu / elapsed:.0f}% of a core")
    stop = time.monotonic()
    server.terminate()
    rc = server.wait(timeout=60)
    print(f"SIGTERM with {idle_count} idle connections: exit {rc} after {time.monotonic() - stop:.1f} s")
    for s in idle:
        s.close()


if __name__ == "__main__":
    main()
