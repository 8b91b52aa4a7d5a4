// LoreKeeper e2e: the v2 TypeScript SDK client (@modelcontextprotocol/client)
// drives `lorekeeper serve` over stdio in the modern (2026-07-28) era, once
// pinned and once auto-negotiated; both must land on the modern era.
// Run: ./run.sh sdk_v2  (needs LOREKEEPER_BIN and LOREKEEPER_DB_PATH)
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { defineContractSuite, importDep, requireEnvironment, serverEnv } from './lib/harness.mjs';

const { bin, db } = requireEnvironment();
const { Client } = await importDep('@modelcontextprotocol/client');
const { StdioClientTransport } = await importDep('@modelcontextprotocol/client/stdio');

const MODERN_VERSION = '2026-07-28';

function connectWith(mode) {
  return async () => {
    const transport = new StdioClientTransport({
      command: bin,
      args: ['serve'],
      env: serverEnv(db),
      stderr: 'inherit',
    });
    const client = new Client(
      { name: 'lorekeeper-e2e-sdk-v2', version: '0.0.0' },
      // A short probe timeout keeps a silent server from stalling 'auto' for a
      // full minute before it falls back (and the era assertion then fails).
      { versionNegotiation: { mode, probe: { timeoutMs: 10_000 } } }
    );
    await client.connect(transport);
    return client;
  };
}

function eraChecks(getClient) {
  it('negotiated the modern protocol era', () => {
    const client = getClient();
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN_VERSION);
    const info = client.getServerVersion();
    assert.ok(info && typeof info.name === 'string' && info.name.length > 0, `serverInfo: ${JSON.stringify(info)}`);
    const caps = client.getServerCapabilities();
    assert.ok(caps?.tools, `no tools capability: ${JSON.stringify(caps)}`);
    assert.ok(caps?.resources, `no resources capability: ${JSON.stringify(caps)}`);
  });
}

defineContractSuite(`sdk v2 pinned ${MODERN_VERSION}`, {
  connect: connectWith({ pin: MODERN_VERSION }),
  extra: eraChecks,
});

defineContractSuite('sdk v2 auto negotiation', {
  connect: connectWith('auto'),
  extra: eraChecks,
});
