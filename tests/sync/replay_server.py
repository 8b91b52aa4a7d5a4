#!/usr/bin/env python3
"""A loopback HTTP server that replays a recorded Open5e mirror, with fault injection, for the sync tests.

Usage: replay_server.py MIRROR_DIR [--port N] [--exit-with-stdin]
Prints "PORT <n>" on stdout once listening on 127.0.0.1. With --exit-with-stdin it exits when its standard
input ends: a test that gives it a pipe and dies (before its cleanup runs) does not leave it behind. Requests map to recorded files exactly as
docs/formats/mirror-layout.md describes (query parameters sorted by name, percent-decoded).

Control endpoints (for the tests):
  POST /__faults   JSON list of faults, replacing the current ones. A fault is
                   {"match": "<substring of the recorded file name>", "kind": K, "times": N (default: always), ...}
                   with K one of: "status" (answer with "status", default 500), "delay" (sleep "seconds" first),
                   "truncate" (cut the body in half), "content_type" (send "content_type" instead of JSON),
                   "missing" (404), "json" (the page's JSON with the keys of "set" replaced), "body" (send
                   "body" as it is), "endless" (every page of the endpoint is its first page with a `next` link
                   to one page further, for ever; "empty": true sends no records on the pages after the first).
  GET  /__stats    {"requests": {recorded name: count}, "total": n}
"""
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = sys.argv[1]
LOCK = threading.Lock()
FAULTS = []
REQUESTS = {}


def recorded_name(path_and_query):
    parsed = urllib.parse.urlsplit(path_and_query)
    path = parsed.path.strip("/") + "/"
    params = [urllib.parse.unquote_plus(p) for p in parsed.query.split("&") if p]
    params.sort(key=lambda p: p.split("=", 1)[0])
    return path + ("&".join(params) if params else "_") + ".json"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def send(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        if self.path != "/__faults":
            return self.send(404, '{"detail":"Not found."}')
        length = int(self.headers.get("Content-Length", "0"))
        faults = json.loads(self.rfile.read(length) or b"[]")
        with LOCK:
            FAULTS[:] = faults
        self.send(200, "{}")

    def do_GET(self):
        if self.path == "/__stats":
            with LOCK:
                return self.send(200, json.dumps({"requests": REQUESTS, "total": sum(REQUESTS.values())}))
        name = recorded_name(self.path)
        with LOCK:
            REQUESTS[name] = REQUESTS.get(name, 0) + 1
            active = []
            for f in FAULTS:
                if f["match"] in name and f.get("times", -1) != 0:
                    if f.get("times", -1) > 0:
                        f["times"] -= 1
                    active.append(dict(f))
        body_mode, content_type = "full", "application/json"
        replace = {}
        for f in active:
            if f["kind"] == "endless":
                return self.endless(f)
            if f["kind"] == "body":
                return self.send(200, f["body"])
            if f["kind"] == "json":
                replace.update(f["set"])
        for f in active:
            kind = f["kind"]
            if kind == "delay":
                time.sleep(f.get("seconds", 1))
            elif kind == "status":
                return self.send(f.get("status", 500), '{"detail":"injected failure"}')
            elif kind == "missing":
                return self.send(404, '{"detail":"Invalid page."}')
            elif kind == "truncate":
                body_mode = "truncate"
            elif kind == "content_type":
                content_type = f.get("content_type", "text/html")
        path = os.path.join(ROOT, name)
        if not os.path.isfile(path):
            return self.send(404, '{"detail":"Not found."}')
        with open(path, "rb") as fh:
            data = fh.read()
        if replace:
            page = json.loads(data)
            page.update(replace)
            data = json.dumps(page).encode()
        if body_mode == "truncate":
            data = data[: len(data) // 2]
        try:
            self.send(200, data, content_type)
        except (BrokenPipeError, ConnectionResetError):
            pass


    def endless(self, fault):
        parsed = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        page_no = int(query.get("page", "1"))
        first = os.path.join(ROOT, parsed.path.strip("/"), "limit=%s.json" % query.get("limit", "100"))
        with open(first, "rb") as fh:
            page = json.loads(fh.read())
        if page_no > 1 and fault.get("empty"):
            page["results"] = []
        page["next"] = "http://%s%s?limit=%s&page=%d" % (self.headers.get("Host"), parsed.path,
                                                        query.get("limit", "100"), page_no + 1)
        self.send(200, json.dumps(page))


def main():
    port = 0
    if "--port" in sys.argv:
        port = int(sys.argv[sys.argv.index("--port") + 1])
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    if "--exit-with-stdin" in sys.argv:
        def exit_at_eof():
            sys.stdin.read()
            os._exit(0)
        threading.Thread(target=exit_at_eof, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
