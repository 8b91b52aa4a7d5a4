"""LoreKeeper e2e: the Python MCP SDK (PyPI `mcp`) drives `lorekeeper serve --http` in the legacy era, the
modern era (pinned 2026-07-28) and auto negotiation (probe, then the modern era).

Run: tests/e2e/run.sh http_python (needs LOREKEEPER_BIN, LOREKEEPER_DB_PATH and tests/e2e/.venv).
"""

import asyncio
import os
import re
import signal
import subprocess
import sys
import time

from mcp import Client
from mcp.shared.exceptions import MCPError

failures = []
passes = []


def check(cond, label):
    print(("ok    " if cond else "FAIL  ") + label, flush=True)
    (passes if cond else failures).append(label)


def start_server():
    env = dict(os.environ, LOREKEEPER_AUTO_SYNC="off")
    proc = subprocess.Popen(
        [os.environ["LOREKEEPER_BIN"], "serve", "--http", "--port", "0"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 15
    seen = ""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
        m = re.search(r"listening on (http://\S+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise SystemExit(f"lorekeeper serve --http did not report its URL:\n{seen}")


async def exercise(url, mode, expected_version):
    async with Client(url, mode=mode) as client:
        version = client.session.protocol_version
        check(version == expected_version, f"[{mode}] negotiated {version!r}, expected {expected_version!r}")
        tools = await client.list_tools()
        names = [t.name for t in tools.tools]
        check("search_spell" in names and "get_entity" in names, f"[{mode}] tools/list has the tools: {names}")
        res = await client.call_tool("get_entity", {"key": "srd_fireball"})
        check(not res.is_error, f"[{mode}] get_entity srd_fireball is not an error")
        key = (res.structured_content or {}).get("result", {}).get("key")
        check(key == "srd_fireball", f"[{mode}] get_entity structuredContent.result.key == srd_fireball ({key!r})")
        res = await client.call_tool("search_spell", {"search": "Fireball", "documents": ["srd-2024"]})
        keys = [r["key"] for r in (res.structured_content or {}).get("result", [])]
        check(keys == ["srd-2024_fireball"], f"[{mode}] search_spell documents filter: {keys}")
        res = await client.call_tool("search_spell", {"level": 12})
        check(res.is_error, f"[{mode}] search_spell level=12 is an isError result")
        read = await client.read_resource("lorekeeper://spell/srd_fireball")
        text = read.contents[0].text if read.contents else ""
        check("Fireball" in text, f"[{mode}] resources/read returns the Fireball Markdown")
        try:
            await client.call_tool("no_such_tool", {})
            check(False, f"[{mode}] an unknown tool is a JSON-RPC error")
        except MCPError as e:
            check(e.error.code == -32602, f"[{mode}] an unknown tool is a JSON-RPC -32602 error (got {e.error.code})")


async def main():
    proc, url = start_server()
    try:
        await exercise(url, "legacy", "2025-11-25")
        await exercise(url, "2026-07-28", "2026-07-28")
        await exercise(url, "auto", "2026-07-28")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        check(rc == 0, f"serve --http exits 0 on SIGTERM (got {rc})")
    print(f"# pass {len(passes)}")
    print(f"# fail {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
