// LoreKeeper e2e over Streamable HTTP: the TypeScript SDK clients drive `lorekeeper serve --http`. The v1 SDK
// (@modelcontextprotocol/sdk, legacy `initialize` era, no session issued by the server) and the v2 client
// (@modelcontextprotocol/client) pinned to 2026-07-28 and in auto negotiation both run the same contract as
// the stdio suites; then the bearer token, the health endpoint and the graceful shutdown on SIGTERM.
// Run: ./run.sh http_sdk  (needs LOREKEEPER_BIN and LOREKEEPER_DB_PATH)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defineContractSuite, importDep, requireEnvironment } from './lib/harness.mjs';
import { startHttpServer } from './lib/http_server.mjs';

const { bin, db } = requireEnvironment();
const v1 = await importDep('@modelcontextprotocol/sdk/client/index.js');
const v1http = await importDep('@modelcontextprotocol/sdk/client/streamableHttp.js');
const v2 = await importDep('@modelcontextprotocol/client');

const MODERN_VERSION = '2026-07-28';

// One server for the contract suites; each suite's client connects to it.
const server = await startHttpServer(bin, db);
after(async () => {
  const { code, signal } = await server.stop();
  assert.equal(signal, null, `server died of ${signal}:\n${server.stderr()}`);
  assert.equal(code, 0, `server exit code ${code} after SIGTERM:\n${server.stderr()}`);
});

defineContractSuite('sdk v1 over Streamable HTTP (legacy, stateless)', {
  connect: async () => {
    const client = new v1.Client({ name: 'lorekeeper-e2e-http-v1', version: '0.0.0' });
    const transport = new v1http.StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    assert.equal(transport.sessionId, undefined, 'a stateless server issues no Mcp-Session-Id');
    return client;
  },
  ping: true,
  extra: (getClient) => {
    it('initialize negotiated 2025-11-25 and the capabilities', () => {
      const client = getClient();
      assert.equal(client.getServerVersion()?.name, 'lorekeeper');
      assert.ok(client.getServerCapabilities()?.tools);
    });
  },
});

for (const [label, mode] of [
  [`pinned ${MODERN_VERSION}`, { pin: MODERN_VERSION }],
  ['auto negotiation', 'auto'],
]) {
  defineContractSuite(`sdk v2 over Streamable HTTP, ${label}`, {
    connect: async () => {
      const client = new v2.Client(
        { name: 'lorekeeper-e2e-http-v2', version: '0.0.0' },
        { versionNegotiation: { mode, probe: { timeoutMs: 10_000 } } }
      );
      await client.connect(new v2.StreamableHTTPClientTransport(new URL(server.url)));
      return client;
    },
    extra: (getClient) => {
      it('negotiated the modern protocol era', () => {
        const client = getClient();
        assert.equal(client.getProtocolEra(), 'modern');
        assert.equal(client.getNegotiatedProtocolVersion(), MODERN_VERSION);
      });
    },
  });
}

describe('serve --http security and lifecycle', { timeout: 120_000 }, () => {
  let guarded;
  before(async () => {
    guarded = await startHttpServer(bin, db, { env: { LOREKEEPER_HTTP_TOKEN: 'e2e-token-42' } });
  });
  after(async () => {
    if (guarded) await guarded.stop();
  });

  it('a client without the bearer token is refused with 401', async () => {
    const client = new v1.Client({ name: 'no-token', version: '0.0.0' });
    await assert.rejects(client.connect(new v1http.StreamableHTTPClientTransport(new URL(guarded.url))), (err) => {
      assert.match(String(err?.message ?? err), /401|Unauthorized/i);
      return true;
    });
  });

  it('a client with the bearer token is served (v1 and v2)', async () => {
    const headers = { Authorization: 'Bearer e2e-token-42' };
    const c1 = new v1.Client({ name: 'token-v1', version: '0.0.0' });
    await c1.connect(new v1http.StreamableHTTPClientTransport(new URL(guarded.url), { requestInit: { headers } }));
    const r1 = await c1.callTool({ name: 'get_entity', arguments: { key: 'srd_fireball' } });
    assert.equal(r1.structuredContent.result.key, 'srd_fireball');
    await c1.close();
    const c2 = new v2.Client(
      { name: 'token-v2', version: '0.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_VERSION } } }
    );
    await c2.connect(new v2.StreamableHTTPClientTransport(new URL(guarded.url), { requestInit: { headers } }));
    const r2 = await c2.callTool({ name: 'get_entity', arguments: { key: 'srd_fireball' } });
    assert.equal(r2.structuredContent.result.key, 'srd_fireball');
    await c2.close();
  });

  it('GET /health answers 200 without a token', async () => {
    const res = await fetch(new URL('/health', guarded.url));
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.status, 'ok');
  });

  it('SIGTERM stops the server gracefully (exit 0) while requests are in flight', async () => {
    const s = await startHttpServer(bin, db);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_all', arguments: { query: 'dragon fire' } },
    });
    const inflight = Array.from({ length: 8 }, () =>
      fetch(s.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body,
      }).then(
        async (r) => ({ status: r.status, json: await r.json() }),
        (err) => ({ error: err })
      )
    );
    await new Promise((r) => setTimeout(r, 20));
    const { code, signal } = await s.stop('SIGTERM');
    assert.equal(signal, null, s.stderr());
    assert.equal(code, 0, s.stderr());
    // Every request that reached the server got its complete answer; none was cut off with a broken reply.
    for (const r of await Promise.all(inflight)) {
      if (r.error) continue; // not accepted before the listener closed
      assert.equal(r.status, 200);
      assert.equal(r.json.id, 1);
      assert.ok(r.json.result, JSON.stringify(r.json).slice(0, 300));
    }
    await assert.rejects(fetch(new URL('/health', s.url)));
  });
});
