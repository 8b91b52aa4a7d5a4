import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const t = new StdioClientTransport({ command: process.argv[2], args: ['serve'], env: { ...process.env } });
const c = new Client({ name: 'probe', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
try { await c.connect(t); console.log('era', c.getProtocolEra()); } catch (e) { console.log('ERR', e.message); }
await c.close();
