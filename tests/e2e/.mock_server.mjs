// THROWAWAY (not committed): a fake lorekeeper for harness plumbing checks.
import { Server, ProtocolError, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

if (!process.env.LOREKEEPER_DB_PATH) { console.error('no LOREKEEPER_DB_PATH'); process.exit(3); }
const doc14 = { key: 'srd-2014', name: 'System Reference Document 5.1' };
const doc24 = { key: 'srd-2024', name: 'System Reference Document 5.2' };
const mk = (key, name, kind, document, extra = {}) => ({ key, name, kind, document, source_api: 'open5e-v2', url: `https://x/${key}`, ...extra });
const spells = [mk('srd_fireball', 'Fireball', 'spell', doc14, { level: 3 }), mk('srd-2024_fireball', 'Fireball', 'spell', doc24, { level: 3 }), mk('srd_delayed-blast-fireball', 'Delayed Blast Fireball', 'spell', doc14, { level: 7 })];
const outputSchema = { type: 'object', properties: { result: {}, message: { type: 'string' } }, required: ['result'] };
const names = ['list_documents','search_spell','search_creature','search_character_option','search_equipment','search_rule','search_all','get_entity','find_similar'];
const tools = names.map((name) => ({ name, description: name, inputSchema: { type: 'object', properties: {} }, outputSchema, annotations: { readOnlyHint: true } }));
const ok = (result, message) => ({ content: [{ type: 'text', text: '# ' + JSON.stringify(result) }], structuredContent: message ? { result, message } : { result } });
const err = (t) => ({ isError: true, content: [{ type: 'text', text: t }] });
const server = new Server({ name: 'lorekeeper-mock', version: '0.0.1' }, { capabilities: { tools: {}, resources: {} }, supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, '2026-07-28'] });
server.setRequestHandler('tools/list', async () => ({ tools }));
server.setRequestHandler('tools/call', async (req) => {
  const { name, arguments: a = {} } = req.params;
  if (!names.includes(name)) throw new ProtocolError(-32602, `Unknown tool: ${name}`);
  if ('bogus_param' in a) return err('unknown parameter bogus_param');
  switch (name) {
    case 'list_documents': return ok([{ ...doc14, kind: 'document', document: doc14, source_api: 'x', url: 'u', entity_count: 5 }]);
    case 'search_spell':
      if (a.level > 9) return err('level must be between 0 and 9');
      if (a.school === 'pyromancy') return err('school must be one of abjuration, evocation');
      if (a.documents && a.documents.length === 0) return ok([], 'no documents selected');
      if (a.documents) return ok(spells.filter((s) => a.documents.includes(s.document.key)).slice(0, 1));
      if (a.search === 'zzqxj-no-such-spell') return ok([], 'nothing matched');
      if (a.level === 3) return ok(spells.slice(0, 2));
      return ok(spells);
    case 'search_creature': return ok([mk('srd_adult-red-dragon', 'Adult Red Dragon', 'creature', doc14, { challenge_rating: 17, type: 'dragon' })]);
    case 'search_character_option':
      if (a.type !== 'class') return err('type must be one of class, race, background, feat');
      return ok([mk('srd_wizard', 'Wizard', 'class', doc14)]);
    case 'search_equipment': return ok([mk('srd_longsword', 'Longsword', 'weapon', doc14)]);
    case 'search_rule': return ok([mk('grappled', 'Grappled', 'condition', doc14)]);
    case 'search_all': return ok({ spell: spells });
    case 'get_entity': return ok(spells[0]);
    case 'find_similar': return ok(spells.slice(1));
  }
});
server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [{ uriTemplate: 'lorekeeper://spell/{key}', name: 'spell' }] }));
server.setRequestHandler('resources/list', async () => ({ resources: [] }));
server.setRequestHandler('resources/read', async (req) => {
  if (req.params.uri !== 'lorekeeper://spell/srd_fireball') throw new ProtocolError(-32002, 'Resource not found');
  return { contents: [{ uri: req.params.uri, mimeType: 'text/markdown', text: '# Fireball' }] };
});
await server.connect(new StdioServerTransport());
