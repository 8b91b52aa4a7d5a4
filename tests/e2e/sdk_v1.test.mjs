// LoreKeeper e2e: the v1 TypeScript SDK (@modelcontextprotocol/sdk, legacy
// `initialize` era) drives `lorekeeper serve` over stdio.
// Run: ./run.sh sdk_v1  (needs LOREKEEPER_BIN and LOREKEEPER_DB_PATH)
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { defineContractSuite, importDep, requireEnvironment, serverEnv } from './lib/harness.mjs';

const { bin, db } = requireEnvironment();
const { Client } = await importDep('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await importDep('@modelcontextprotocol/sdk/client/stdio.js');

async function connect() {
  const transport = new StdioClientTransport({
    command: bin,
    args: ['serve'],
    env: serverEnv(db),
    stderr: 'inherit',
  });
  const client = new Client({ name: 'lorekeeper-e2e-sdk-v1', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

defineContractSuite('sdk v1 (legacy initialize)', {
  connect,
  ping: true,
  extra: (getClient) => {
    it('initialize negotiated a server identity and the tools/resources capabilities', () => {
      const client = getClient();
      const info = client.getServerVersion();
      assert.ok(info && typeof info.name === 'string' && info.name.length > 0, `serverInfo: ${JSON.stringify(info)}`);
      assert.equal(typeof info.version, 'string');
      const caps = client.getServerCapabilities();
      assert.ok(caps?.tools, `no tools capability: ${JSON.stringify(caps)}`);
      assert.ok(caps?.resources, `no resources capability: ${JSON.stringify(caps)}`);
    });
  },
});
