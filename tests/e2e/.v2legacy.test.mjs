import { defineContractSuite, importDep, requireEnvironment, serverEnv } from './lib/harness.mjs';
const { bin, db } = requireEnvironment();
const { Client } = await importDep('@modelcontextprotocol/client');
const { StdioClientTransport } = await importDep('@modelcontextprotocol/client/stdio');
defineContractSuite('v2 legacy (plumbing check)', { connect: async () => {
  const c = new Client({ name: 'x', version: '0' });
  await c.connect(new StdioClientTransport({ command: bin, args: ['serve'], env: serverEnv(db) }));
  return c; } });
