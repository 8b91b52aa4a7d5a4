// Shared pieces of the LoreKeeper end-to-end suites: environment checks,
// dependency loading with a clear message when node_modules is missing, and
// the client-independent contract that every MCP client must observe.
//
// A suite hands defineContractSuite() a `connect` function that returns an
// object with the method names shared by the v1 and v2 TypeScript SDK
// clients: listTools, callTool, listResourceTemplates, readResource, ping,
// close. Everything is asserted on plain JSON, so both SDK generations share
// one set of expectations.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

const SETUP_HINT =
  'run scripts/test-setup.sh, or `npm ci` in tests/e2e';

// ---------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------

/**
 * Fail loudly (never skip) when the test prerequisites are absent. `source` is what the store must have been
 * synced from: the fixture mirror (default) or "bundled" (the full snapshot inside the binary).
 */
export function requireEnvironment(source = 'tests/fixtures/mirror-mini') {
  if (!existsSync(join(E2E_DIR, 'node_modules'))) {
    throw new Error(
      `tests/e2e/node_modules is missing: the e2e MCP clients are not installed; ${SETUP_HINT}`
    );
  }
  const bin = process.env.LOREKEEPER_BIN;
  if (!bin) {
    throw new Error('LOREKEEPER_BIN is not set (path to the built lorekeeper binary)');
  }
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error(`LOREKEEPER_BIN=${bin} is not an executable file; build lorekeeper first`);
  }
  const db = process.env.LOREKEEPER_DB_PATH;
  if (!db) {
    throw new Error(`LOREKEEPER_DB_PATH is not set (path to a store synced from ${source})`);
  }
  if (!existsSync(db)) {
    throw new Error(`LOREKEEPER_DB_PATH=${db} does not exist; create it with: ${bin} --db ${db} sync --source ${source}`);
  }
  return { bin, db };
}

/** import() a client package, turning "not installed" into an actionable failure. */
export async function importDep(specifier) {
  try {
    return await import(specifier);
  } catch (err) {
    if (err && (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'MODULE_NOT_FOUND')) {
      throw new Error(`cannot load ${specifier}: e2e dependencies are not installed; ${SETUP_HINT}`, {
        cause: err,
      });
    }
    throw err;
  }
}

/** Environment for the spawned server: the whole parent env (PATH etc.) plus the store path. */
export function serverEnv(db) {
  return { ...process.env, LOREKEEPER_DB_PATH: db };
}

// ---------------------------------------------------------------------------
// Contract data
// ---------------------------------------------------------------------------

export const EXPECTED_TOOLS = [
  'list_documents',
  'search_spell',
  'search_creature',
  'search_character_option',
  'search_equipment',
  'search_rule',
  'search_all',
  'get_entity',
  'find_similar',
  'roll_dice',
  'evaluate_encounter',
  'build_encounter',
];

// Documented parameters of each tool (a tool may accept more) and the required ones.
export const TOOL_PARAMETERS = {
  list_documents: { params: ['source'], required: [] },
  search_spell: {
    params: ['search', 'level', 'level_min', 'level_max', 'school', 'class_key', 'concentration', 'ritual',
      'casting_time', 'damage_type', 'documents', 'game_system', 'limit'],
    required: [],
  },
  search_creature: {
    params: ['search', 'cr', 'cr_min', 'cr_max', 'type', 'size', 'armor_class_min', 'hit_points_min', 'documents',
      'game_system', 'limit'],
    required: [],
  },
  search_character_option: { params: ['type', 'search', 'documents', 'limit'], required: [] },
  search_equipment: {
    params: ['type', 'search', 'rarity', 'damage_dice', 'is_simple', 'requires_attunement', 'is_light',
      'is_versatile', 'is_thrown', 'is_finesse', 'is_two_handed', 'cost_min', 'cost_max', 'weight_max',
      'documents', 'limit'],
    required: [],
  },
  search_rule: { params: ['rule_type', 'search', 'section', 'documents', 'limit'], required: [] },
  search_all: { params: ['query', 'content_types', 'documents', 'limit'], required: ['query'] },
  get_entity: { params: ['key', 'kind'], required: ['key'] },
  find_similar: { params: ['key', 'name', 'kind', 'documents', 'limit'], required: [] },
  roll_dice: { params: ['notation', 'mode', 'target', 'times', 'seed'], required: ['notation'] },
  evaluate_encounter: {
    params: ['creatures', 'party_levels', 'party_size', 'party_level', 'rules', 'documents', 'game_system'],
    required: ['creatures'],
  },
  build_encounter: {
    params: ['party_levels', 'party_size', 'party_level', 'rules', 'difficulty', 'theme', 'environment', 'type', 'cr_min', 'cr_max',
      'documents', 'game_system', 'max_creatures', 'alternatives', 'seed'],
    required: [],
  },
};

// ---------------------------------------------------------------------------
// Assertion helpers
// ---------------------------------------------------------------------------

const show = (v) => {
  const s = JSON.stringify(v);
  return s && s.length > 1500 ? `${s.slice(0, 1500)}…` : s;
};

/** Text of the first content block (asserting it is a text block). */
export function firstText(res) {
  assert.ok(Array.isArray(res.content) && res.content.length > 0, `no content blocks: ${show(res)}`);
  assert.equal(res.content[0].type, 'text', `content[0] is not text: ${show(res.content[0])}`);
  assert.equal(typeof res.content[0].text, 'string');
  return res.content[0].text;
}

/** A successful tool result: not isError, has a text block and structuredContent.result. */
export function okResult(res, label) {
  assert.notEqual(res.isError, true, `${label}: unexpected isError result: ${show(res)}`);
  const text = firstText(res);
  assert.ok(text.length > 0, `${label}: empty Markdown text`);
  assert.ok(
    res.structuredContent && typeof res.structuredContent === 'object',
    `${label}: no structuredContent: ${show(res)}`
  );
  assert.ok('result' in res.structuredContent, `${label}: structuredContent has no "result": ${show(res.structuredContent)}`);
  return res.structuredContent.result;
}

/** A successful tool result whose structuredContent.result is an array of result objects. */
export function okList(res, label) {
  const result = okResult(res, label);
  assert.ok(Array.isArray(result), `${label}: structuredContent.result is not an array: ${show(result)}`);
  for (const r of result) assertResultObject(r, label);
  return result;
}

/** The common fields of every result object. */
export function assertResultObject(r, label = '') {
  assert.ok(r && typeof r === 'object' && !Array.isArray(r), `${label}: result item is not an object: ${show(r)}`);
  for (const f of ['key', 'name', 'kind', 'source_api', 'url']) {
    assert.equal(typeof r[f], 'string', `${label}: result ${r.key ?? '?'} lacks string "${f}": ${show(r)}`);
    assert.ok(r[f].length > 0, `${label}: result ${r.key} has empty "${f}"`);
  }
  assert.ok(r.document && typeof r.document === 'object', `${label}: result ${r.key} lacks "document": ${show(r)}`);
  assert.equal(typeof r.document.key, 'string', `${label}: result ${r.key} document lacks "key": ${show(r.document)}`);
  assert.equal(typeof r.document.name, 'string', `${label}: result ${r.key} document lacks "name": ${show(r.document)}`);
}

/** An isError tool result whose text matches every given pattern. */
export function errorResult(res, label, patterns = []) {
  assert.equal(res.isError, true, `${label}: expected isError:true, got: ${show(res)}`);
  const text = firstText(res);
  for (const p of patterns) {
    assert.match(text, p, `${label}: error text does not match ${p}: ${JSON.stringify(text)}`);
  }
  return text;
}

export const keysOf = (list) => list.map((r) => r.key);

/** A creature type may be rendered as "dragon", "Dragon" or {key:"dragon", name:"Dragon"}. */
function typeKey(t) {
  if (t == null) return undefined;
  if (typeof t === 'object') return String(t.key ?? t.name ?? '').toLowerCase();
  return String(t).toLowerCase();
}

async function rejectsWithCode(promise, code, label) {
  let err;
  try {
    const value = await promise;
    assert.fail(`${label}: expected a JSON-RPC error ${code}, got a result: ${show(value)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    err = e;
  }
  if (code !== undefined) {
    assert.equal(err.code, code, `${label}: expected error code ${code}, got ${err.code}: ${err.message}`);
  }
  return err;
}

// ---------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------

/**
 * @param {string} name suite title
 * @param {object} opts
 * @param {() => Promise<object>} opts.connect returns a connected client
 * @param {boolean} [opts.ping] whether the era has ping
 * @param {(getClient: () => object) => void} [opts.extra] era-specific tests
 */
export function defineContractSuite(name, { connect, ping = false, extra }) {
  describe(name, { timeout: 180_000 }, () => {
    let client;
    const call = (toolName, args = {}) => client.callTool({ name: toolName, arguments: args });

    before(async () => {
      client = await connect();
      // Prime the client's tool cache: both SDKs validate structuredContent
      // against the listed outputSchema only for tools they have seen listed.
      await client.listTools();
    });
    after(async () => {
      if (client) await client.close();
    });

    if (extra) extra(() => client);

    it('tools/list lists all 12 tools with input/output schemas and readOnlyHint', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const expected of EXPECTED_TOOLS) {
        assert.ok(names.includes(expected), `tool ${expected} missing from tools/list: ${names.join(', ')}`);
      }
      for (const t of tools) {
        assert.equal(t.inputSchema?.type, 'object', `${t.name}: inputSchema.type is not "object"`);
        assert.equal(t.outputSchema?.type, 'object', `${t.name}: outputSchema.type is not "object"`);
        assert.equal(t.annotations?.readOnlyHint, true, `${t.name}: annotations.readOnlyHint !== true`);
        assert.equal(typeof t.description, 'string', `${t.name}: no description`);
      }
      for (const [toolName, { params, required }] of Object.entries(TOOL_PARAMETERS)) {
        const tool = tools.find((t) => t.name === toolName);
        const props = Object.keys(tool.inputSchema.properties ?? {});
        for (const p of params) {
          assert.ok(props.includes(p), `${toolName}: inputSchema lacks parameter "${p}" (has ${props.join(', ')})`);
        }
        assert.deepEqual(
          [...(tool.inputSchema.required ?? [])].sort(),
          [...required].sort(),
          `${toolName}: inputSchema.required`
        );
      }
    });

    it('search_spell "Fireball" returns every Fireball version first', async () => {
      // An exact-name match returns every version of the spell (the fixture
      // has three: srd-2014, srd-2024 and a5e-ag), ahead of any other result.
      const list = okList(await call('search_spell', { search: 'Fireball' }), 'search_spell Fireball');
      const exact = list.filter((r) => r.name === 'Fireball');
      const nExact = exact.length;
      assert.ok(
        list.slice(0, nExact).every((r) => r.name === 'Fireball'),
        `exact-name matches are not all ahead of other results: ${keysOf(list)}`
      );
      for (const k of ['srd_fireball', 'srd-2024_fireball']) {
        assert.ok(keysOf(exact).includes(k), `${k} missing from the exact-name matches: ${keysOf(list)}`);
      }
      const docs = new Set(exact.map((r) => r.document.key));
      assert.equal(docs.size, nExact, `each Fireball must come from a different document: ${[...docs]}`);
      const byKey = Object.fromEntries(list.map((r) => [r.key, r]));
      assert.equal(byKey['srd_fireball'].document.key, 'srd-2014');
      assert.equal(byKey['srd_fireball'].document.name, 'System Reference Document 5.1');
      assert.equal(byKey['srd-2024_fireball'].document.key, 'srd-2024');
      assert.equal(byKey['srd-2024_fireball'].document.name, 'System Reference Document 5.2');
      for (const r of exact) assert.equal(r.kind, 'spell');
    });

    it('search_spell documents filter keeps only that document', async () => {
      const list = okList(
        await call('search_spell', { search: 'Fireball', documents: ['srd-2024'] }),
        'search_spell Fireball documents=[srd-2024]'
      );
      assert.deepEqual(keysOf(list), ['srd-2024_fireball']);
    });

    it('search_spell with documents: [] is an empty result with a message, not an error', async () => {
      const res = await call('search_spell', { documents: [] });
      const list = okList(res, 'search_spell documents=[]');
      assert.deepEqual(list, []);
      assert.equal(typeof res.structuredContent.message, 'string', `no message: ${show(res.structuredContent)}`);
      assert.ok(res.structuredContent.message.length > 0);
    });

    it('search_spell no-match search is an empty result with a message', async () => {
      const res = await call('search_spell', { search: 'zzqxj-no-such-spell' });
      const list = okList(res, 'search_spell no match');
      assert.deepEqual(list, []);
      assert.equal(typeof res.structuredContent.message, 'string', `no message: ${show(res.structuredContent)}`);
    });

    it('search_spell level 3 + class wizard returns only level-3 spells', async () => {
      const list = okList(await call('search_spell', { level: 3, class_key: 'wizard' }), 'search_spell level=3 wizard');
      assert.ok(list.length > 0, 'no results');
      for (const r of list) assert.equal(r.level, 3, `${r.key} has level ${r.level}`);
      assert.ok(keysOf(list).includes('srd_fireball'), `srd_fireball missing: ${keysOf(list)}`);
    });

    it('search_creature cr 1..20 dragon returns the adult red dragon, CRs in range', async () => {
      const list = okList(
        await call('search_creature', { cr_min: 1, cr_max: 20, type: 'dragon' }),
        'search_creature cr 1..20 dragon'
      );
      assert.ok(keysOf(list).includes('srd_adult-red-dragon'), `srd_adult-red-dragon missing: ${keysOf(list)}`);
      for (const r of list) {
        assert.equal(typeof r.challenge_rating, 'number', `${r.key}: challenge_rating is not a number: ${show(r)}`);
        assert.ok(r.challenge_rating >= 1 && r.challenge_rating <= 20, `${r.key}: CR ${r.challenge_rating} outside 1..20`);
        if (r.type !== undefined) assert.equal(typeKey(r.type), 'dragon', `${r.key}: type ${show(r.type)}`);
        assert.equal(r.kind, 'creature');
      }
    });

    it('search_character_option class "wizard" finds srd_wizard', async () => {
      const list = okList(
        await call('search_character_option', { type: 'class', search: 'wizard' }),
        'search_character_option class wizard'
      );
      assert.ok(keysOf(list).includes('srd_wizard'), `srd_wizard missing: ${keysOf(list)}`);
    });

    it('search_equipment weapon "longsword" finds srd_longsword', async () => {
      const list = okList(
        await call('search_equipment', { type: 'weapon', search: 'longsword' }),
        'search_equipment weapon longsword'
      );
      assert.ok(keysOf(list).includes('srd_longsword'), `srd_longsword missing: ${keysOf(list)}`);
    });

    it('search_rule condition "grappled" finds the condition', async () => {
      const list = okList(
        await call('search_rule', { rule_type: 'condition', search: 'grappled' }),
        'search_rule condition grappled'
      );
      assert.ok(keysOf(list).includes('srd_grappled'), `grappled missing: ${keysOf(list)}`);
    });

    it('search_all "fireball" groups results by kind and includes srd_fireball', async () => {
      const result = okResult(await call('search_all', { query: 'fireball' }), 'search_all fireball');
      assert.ok(result && typeof result === 'object' && !Array.isArray(result), `result is not an object: ${show(result)}`);
      const all = [];
      for (const [kind, items] of Object.entries(result)) {
        assert.ok(Array.isArray(items), `search_all result.${kind} is not an array`);
        for (const r of items) {
          assertResultObject(r, `search_all ${kind}`);
          assert.equal(r.kind, kind, `search_all: ${r.key} of kind ${r.kind} listed under "${kind}"`);
        }
        all.push(...items);
      }
      assert.ok(keysOf(all).includes('srd_fireball'), `srd_fireball missing: ${keysOf(all)}`);
    });

    it('get_entity srd_fireball returns the Fireball object', async () => {
      const r = okResult(await call('get_entity', { key: 'srd_fireball' }), 'get_entity srd_fireball');
      assertResultObject(r, 'get_entity');
      assert.equal(r.key, 'srd_fireball');
      assert.equal(r.name, 'Fireball');
      assert.equal(r.kind, 'spell');
      assert.equal(r.document.key, 'srd-2014');
    });

    it('find_similar srd_fireball never contains itself', async () => {
      const list = okList(await call('find_similar', { key: 'srd_fireball' }), 'find_similar srd_fireball');
      assert.ok(list.length > 0, 'find_similar returned nothing');
      assert.ok(!keysOf(list).includes('srd_fireball'), `srd_fireball listed as similar to itself: ${keysOf(list)}`);
    });

    it('find_similar by name excludes the named entry', async () => {
      const list = okList(await call('find_similar', { name: 'Fireball' }), 'find_similar name=Fireball');
      assert.ok(list.length > 0, 'find_similar returned nothing');
      assert.ok(!keysOf(list).includes('srd_fireball'), `srd_fireball listed as similar to itself: ${keysOf(list)}`);
    });

    it('get_entity of an unknown key is an isError result naming the key', async () => {
      errorResult(await call('get_entity', { key: 'srd_no-such-entry' }), 'get_entity unknown key', [/srd_no-such-entry/]);
    });

    it('roll_dice gives exact odds; evaluate_encounter and build_encounter show their arithmetic', async () => {
      const dice = okResult(await call('roll_dice', { notation: '8d6', target: 30, seed: 42 }), 'roll_dice 8d6');
      assert.equal(Math.round(dice.odds.at_least.probability * 10000), 3802, show(dice.odds));
      assert.equal(dice.rolls[0].terms[0].faces.length, 8);
      const again = okResult(await call('roll_dice', { notation: '8d6', seed: 42 }), 'roll_dice 8d6 again');
      assert.deepEqual(again.rolls, dice.rolls, 'the same seed gives the same dice');
      const fight = okResult(
        await call('evaluate_encounter', { party_levels: [3, 3, 3, 3], creatures: [{ name: 'Goblin', count: 4 }], rules: '2014' }),
        'evaluate_encounter'
      );
      assert.equal(fight.base_xp, 200);
      assert.equal(fight.adjusted_xp, 400);
      assert.equal(fight.difficulty, 'easy');
      const built = okResult(
        await call('build_encounter', { party_size: 4, party_level: 3, difficulty: 'hard', rules: '2014', seed: 3 }),
        'build_encounter'
      );
      assert.ok(built.groups.length > 0, show(built));
      for (const g of built.groups) {
        assert.ok(g.adjusted_xp >= 900 && g.adjusted_xp <= 1599, show(g));
        for (const c of g.creatures) assert.equal(typeof c.key, 'string');
      }
    });

    it('list_documents includes srd-2014 with entities', async () => {
      const list = okResult(await call('list_documents', {}), 'list_documents');
      assert.ok(Array.isArray(list), `result is not an array: ${show(list)}`);
      const srd = list.find((d) => d.key === 'srd-2014');
      assert.ok(srd, `srd-2014 missing: ${list.map((d) => d.key)}`);
      assert.equal(typeof srd.entity_count, 'number', `srd-2014 entity_count: ${show(srd)}`);
      assert.ok(srd.entity_count > 0, `srd-2014 entity_count ${srd.entity_count}`);
    });

    it('resources/templates/list is non-empty', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(Array.isArray(resourceTemplates) && resourceTemplates.length > 0, 'no resource templates');
      for (const t of resourceTemplates) {
        assert.equal(typeof t.uriTemplate, 'string');
        assert.equal(typeof t.name, 'string');
      }
    });

    it('resources/read lorekeeper://spell/srd_fireball returns Fireball', async () => {
      const uri = 'lorekeeper://spell/srd_fireball';
      const { contents } = await client.readResource({ uri });
      assert.ok(Array.isArray(contents) && contents.length > 0, 'no contents');
      assert.equal(contents[0].uri, uri);
      assert.equal(typeof contents[0].text, 'string');
      assert.match(contents[0].text, /Fireball/);
    });

    it('resources/read of an unknown URI is an error', async () => {
      await rejectsWithCode(
        client.readResource({ uri: 'lorekeeper://spell/no-such-spell-xyz' }),
        undefined,
        'resources/read unknown entity'
      );
      await rejectsWithCode(
        client.readResource({ uri: 'lorekeeper://nosuchkind/srd_fireball' }),
        undefined,
        'resources/read unknown kind'
      );
    });

    it('bad arguments give isError results naming the valid values', async () => {
      errorResult(await call('search_spell', { level: 12 }), 'search_spell level=12', [/\b0\b/, /\b9\b/]);
      errorResult(await call('search_spell', { school: 'pyromancy' }), 'search_spell school=pyromancy', [/evocation/]);
      errorResult(await call('search_character_option', { type: 'spaceship' }), 'search_character_option type=spaceship', [
        /class/,
        /background/,
        /feat/,
      ]);
      // An unknown parameter: the text names the offender and the accepted parameters.
      errorResult(await call('search_spell', { bogus_param: 1 }), 'search_spell bogus_param', [/bogus_param/, /class_key/]);
      errorResult(await call('roll_dice', { notation: '10000d10000' }), 'roll_dice past its limits', [/too many dice/]);
      errorResult(await call('evaluate_encounter', { creatures: [{ name: 'Goblin' }] }), 'evaluate_encounter without a party',
        [/party_levels/]);
    });

    it('an unknown tool is a JSON-RPC -32602 error', async () => {
      await rejectsWithCode(call('no_such_tool', {}), -32602, 'tools/call no_such_tool');
    });

    if (ping) {
      it('ping', async () => {
        const res = await client.ping();
        assert.ok(res && typeof res === 'object');
      });
    }
  });
}
