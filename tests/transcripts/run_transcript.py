#!/usr/bin/env python3
"""Replays an MCP transcript through the real `lorekeeper serve` binary over stdio.

Usage: run_transcript.py LOREKEEPER_BIN STORE_DB TRANSCRIPT

A transcript holds lines starting with '>' (a line sent to the server, verbatim) and '<' (an expected reply,
JSON). Every '>' line is written to the server's stdin, stdin is closed, and the server's stdout lines must
match the '<' lines in number. Each expected reply is paired with the first unpaired reply of the same id (JSON-RPC
replies are matched by id: a ping is answered at once, before calls read earlier); replies with a null id are
paired in order. An expected reply matches when every key it names has the same value in the actual reply
(recursively; arrays must have the same length). '#' lines are comments.
The server must exit with status 0 after EOF, and nothing but JSON may appear on stdout.
"""
import json
import subprocess
import sys


def matches(expected, actual, path="$"):
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return "%s: expected an object, got %r" % (path, actual)
        for k, v in expected.items():
            if k not in actual:
                return "%s: missing key %r" % (path, k)
            err = matches(v, actual[k], "%s.%s" % (path, k))
            if err:
                return err
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return "%s: expected %d items, got %r" % (path, len(expected), actual)
        for i, (e, a) in enumerate(zip(expected, actual)):
            err = matches(e, a, "%s[%d]" % (path, i))
            if err:
                return err
        return None
    if expected != actual or type(expected) is not type(actual):
        return "%s: expected %r, got %r" % (path, expected, actual)
    return None


def main():
    binary, db, transcript = sys.argv[1:4]
    sent, expected = [], []
    with open(transcript, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith(">"):
                sent.append(line[1:].lstrip(" "))
            elif line.startswith("<"):
                expected.append((n, json.loads(line[1:])))
    proc = subprocess.run([binary, "--db", db, "serve"], input="".join(s + "\n" for s in sent).encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    replies = [l for l in proc.stdout.decode("utf-8").split("\n") if l != ""]
    failures = 0
    if proc.returncode != 0:
        print("server exited with %d; stderr:\n%s" % (proc.returncode, proc.stderr.decode()))
        failures += 1
    if len(replies) != len(expected):
        print("expected %d replies, got %d:" % (len(expected), len(replies)))
        for r in replies:
            print("  " + r[:300])
        failures += 1
    parsed = []
    for raw in replies:
        try:
            parsed.append((raw, json.loads(raw)))
        except ValueError:
            print("reply is not JSON: %r" % raw[:300])
            failures += 1
    unpaired = list(range(len(parsed)))
    def ident(reply):
        """What pairs a reply with its expectation: its id (and the id's type), or being a batch's array."""
        if isinstance(reply, dict):
            return ("id", type(reply.get("id")).__name__, reply.get("id"))
        return ("batch",)

    for n, exp in expected:
        same = [i for i in unpaired if ident(parsed[i][1]) == ident(exp)]
        if not same:
            print("line %d: no reply like %r" % (n, ident(exp)))
            failures += 1
            continue
        unpaired.remove(same[0])
        raw, actual = parsed[same[0]]
        err = matches(exp, actual)
        if err:
            print("line %d: %s\n  reply: %s" % (n, err, raw[:500]))
            failures += 1
    checks = len(expected) + 1
    print("%d passed, %d failed" % (checks - failures, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
