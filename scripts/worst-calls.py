#!/usr/bin/env python3
"""The costliest legal tool calls: every parameter of every tool at its bounds, timed through a real stdio server.

For each tool (from tools/list) and each of its string and array parameters, the script sends calls whose value
is as large as the schema allows, in several shapes (one long word, many different words, dice arithmetic,
accented letters, maximal arrays of long items), with the tool's required parameters filled in, and prints the
slowest calls and their answer sizes. docs/LIMITS.md and docs/PERFORMANCE.md record its output.

usage: scripts/worst-calls.py LOREKEEPER STORE [--top N]
"""
import argparse
import json
import random
import subprocess
import time

WORDS = ("fire dragon breath undead cold poison giant ancient shadow frightened paralyzed charm heal summon "
         "teleport radiant necrotic fiend celestial construct elemental sword shield armor ring wand staff potion "
         "rogue wizard cleric druid paladin ranger warlock sorcerer bard monk fighter barbarian level spell slot "
         "attack saving throw strength dexterity constitution intelligence wisdom charisma damage hit points").split()


def shapes(n, rng):
    """Strings of at most n characters (code points) that stress different parts of the tools."""
    words = []
    while len(" ".join(words)) < n:
        words.append(rng.choice(WORDS))
    many = " ".join(words)[:n].rstrip()
    return {
        "one long word": "a" * n,
        "many words": many,
        "distinct words": " ".join(f"w{i}x" for i in range(n // 6))[:n],
        "dice": ("1d100+" * (n // 6))[: n - 3] + "1d6",
        "accents": "é" * n,
        "quotes and operators": ('"fire" OR NEAR(a b) * -x ' * (n // 25))[:n],
    }


def base_value(prop, name, required):
    """A small valid value for a parameter the call must carry."""
    t = prop.get("type")
    if "enum" in prop:
        return prop["enum"][0]
    if name in ("party_levels",):
        return [5, 5, 5, 5]
    if name == "creatures":
        return [{"name": "Goblin", "count": 4}]
    if name == "notation":
        return "1d20+5"
    if t == "string":
        return "fire"
    if t == "integer":
        return prop.get("minimum", 1)
    if t == "array":
        return []
    return None


class Server:
    def __init__(self, binary, store):
        self.p = subprocess.Popen([binary, "--db", store, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "worst-calls", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def request(self, method, params):
        self.next_id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        return json.loads(line), len(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("store")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    rng = random.Random(5)
    server = Server(args.binary, args.store)
    tools, _ = server.request("tools/list", {})
    results = []
    for tool in tools["result"]["tools"]:
        schema = tool["inputSchema"]
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        base = {n: base_value(props[n], n, True) for n in required}
        for name, prop in props.items():
            variants = {}
            if prop.get("type") == "string" and "maxLength" in prop:
                variants = shapes(prop["maxLength"], rng)
            elif prop.get("type") == "array" and "maxItems" in prop:
                items = prop.get("items", {})
                count = prop["maxItems"]
                if "enum" in items:
                    variants = {"every value": [items["enum"][i % len(items["enum"])] for i in range(count)]}
                elif items.get("type") == "string":
                    long_items = shapes(items.get("maxLength", 1000), rng)
                    variants = {f"{count} x {k}": [v] * count for k, v in long_items.items()}
                    variants[f"{count} distinct long"] = [long_items["distinct words"][i:] for i in range(count)]
                elif items.get("type") == "integer":
                    variants = {f"{count} x max": [items.get("maximum", 20)] * count}
                elif items.get("type") == "object":
                    sub = items.get("properties", {})
                    one = {}
                    for f, fp in sub.items():
                        if fp.get("type") == "string" and "maxLength" in fp and "enum" not in fp:
                            one[f] = shapes(fp["maxLength"], rng)["many words"]
                        elif fp.get("type") == "integer":
                            one[f] = fp.get("maximum", 1)
                    variants = {f"{count} x long object": [one] * count}
            for label, value in variants.items():
                call = dict(base)
                call[name] = value
                start = time.perf_counter()
                reply, size = server.request("tools/call", {"name": tool["name"], "arguments": call})
                elapsed = time.perf_counter() - start
                is_error = "error" in reply or reply.get("result", {}).get("isError", False)
                results.append((elapsed, size, tool["name"], name, label, is_error))
    server.close()
    results.sort(reverse=True)
    print(f"{len(results)} calls; slowest first (seconds, answer bytes, tool.parameter, value shape, error?)")
    for elapsed, size, tool, name, label, is_error in results[: args.top]:
        print(f"{elapsed:7.3f} s {size:>9,} B  {tool}.{name}  [{label}]{'  (error answer)' if is_error else ''}")
    print(f"largest answer: {max(r[1] for r in results):,} B; total {sum(r[0] for r in results):.1f} s")


if __name__ == "__main__":
    main()
