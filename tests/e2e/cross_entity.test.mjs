// LoreKeeper e2e: questions across entities (what casts it, what inflicts it, what changed between editions) asked
// by the official TypeScript SDK v1 client of `lorekeeper serve` on a store synced from the bundled Open5e snapshot.
// The SDK validates each answer's structuredContent against the tool's outputSchema.
//
// Run: ./run.sh cross_entity   (LOREKEEPER_BIN, and LOREKEEPER_DB_PATH pointing at a store built with
//      $LOREKEEPER_BIN --db <file> sync --source bundled --force --quiet)

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { errorResult, firstText, importDep, okList, okResult, requireEnvironment, serverEnv } from './lib/harness.mjs';

const { bin, db } = requireEnvironment('bundled');
const { Client } = await importDep('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await importDep('@modelcontextprotocol/sdk/client/stdio.js');

const transport = new StdioClientTransport({ command: bin, args: ['serve'], env: serverEnv(db), stderr: 'inherit' });
const client = new Client({ name: 'lorekeeper-e2e-cross-entity', version: '0.0.0' });
await client.connect(transport);
await client.listTools();
after(() => client.close());

const call = (name, args) => client.callTool({ name, arguments: args });
const names = (list) => new Set(list.map((r) => r.name));

test('monsters that cast fireball in the 2014 SRD include the Mage and the Lich', async () => {
  const list = okList(await call('search_creature', { casts_spell: 'fireball', documents: ['srd-2014'], limit: 50 }), 'casts');
  for (const n of ['Mage', 'Lich']) assert.ok(names(list).has(n), `${n} missing: ${[...names(list)]}`);
});

test('creatures that petrify include the Basilisk, the Medusa and the Cockatrice', async () => {
  const list = okList(await call('search_creature', { inflicts_condition: 'petrified', limit: 50 }), 'petrify');
  for (const n of ['Basilisk', 'Medusa', 'Cockatrice']) assert.ok(names(list).has(n), `${n} missing`);
});

test('compare_editions of Fireball: the material and the higher-level wording differ, the damage does not', async () => {
  const r = okResult(await call('compare_editions', { name: 'Fireball', documents: ['srd-2014', 'srd-2024'] }), 'compare');
  assert.deepEqual(r.versions.map((v) => v.key), ['srd_fireball', 'srd-2024_fireball']);
  const differing = new Set(r.differences.map((d) => d.field));
  assert.ok(differing.has('material') && differing.has('higher_level'), [...differing].join(', '));
  assert.ok(!differing.has('damage_roll'), [...differing].join(', '));
  assert.equal(r.same.damage_roll, '8d6');
});

test('compare_editions matches renamed 2024 entries', async () => {
  for (const [name, kind, renamed] of [
    ['Feeblemind', 'spell', 'Befuddlement'],
    ['Androsphinx', 'creature', 'Sphinx of Valor'],
    ['Half-Orc', 'species', 'Orc'],
  ]) {
    const r = okResult(await call('compare_editions', { name, kind }), name);
    const v = r.versions.find((x) => x.document === 'srd-2024');
    assert.ok(v, `${name}: no srd-2024 version in ${JSON.stringify(r.versions)}`);
    assert.equal(v.name, renamed);
    assert.equal(v.match, 'renamed');
  }
  errorResult(await call('compare_editions', { name: 'Firebal' }), 'unknown name', [/Fireball/]);
});

test('count_entities counts what the search tool filters select', async () => {
  const res = await call('count_entities', { kind: 'creature', by: ['cr'], filters: { type: 'fiend', documents: ['srd-2014'] } });
  const r = okResult(res, 'count');
  const sum = r.by.cr.reduce((a, x) => a + x.count, 0);
  assert.equal(sum, res.structuredContent.total);
  const list = okList(await call('search_creature', { type: 'fiend', documents: ['srd-2014'], limit: 100, detail: 'summary' }), 'fiends');
  assert.equal(list.length, sum);
});

// A default search shows its first result with every rule the entry holds: what get_entity gives whole is there
// word for word (a stat block's actions with their DCs and damage, a class feature's options, a deck's cards), and
// a result that had to be shortened names each place it cut.
const RULE_LISTS = ['actions', 'bonus_actions', 'reactions', 'legendary_actions', 'traits', 'features'];
async function assertFirstResultWhole(args, key, label) {
  const res = await call(args.tool, args.arguments);
  const list = okList(res, label);
  const first = list[0];
  // The first result depends on the ranking (meaning-based search ready or not); its wholeness does not.
  if (key) assert.equal(first.key, key, `${label}: first result ${first.key}`);
  key = first.key;
  assert.notEqual(first.summarized, true, `${label}: the first result is one line`);
  const whole = okResult(await call('get_entity', { key }), `${label} get_entity`);
  assert.equal(first.truncated, undefined, `${label}: shortened: ${first.truncated}`);
  for (const field of RULE_LISTS) {
    for (const entry of whole[field] ?? []) {
      const shown = (first[field] ?? []).find((x) => x.name === entry.name);
      assert.ok(shown, `${label}: ${field} "${entry.name}" is missing`);
      assert.equal(shown.desc, entry.desc, `${label}: ${field} "${entry.name}" differs`);
    }
  }
  if (typeof whole.desc === 'string') assert.equal(first.desc, whole.desc, `${label}: desc differs`);
  const text = firstText(res);
  assert.ok(!text.includes('[…]'), `${label}: the Markdown cuts a text`);
  return { first, text };
}

test('a default search keeps the first stat block whole: its breath weapon with its DC and damage', async () => {
  const { first, text } = await assertFirstResultWhole(
    { tool: 'search_creature', arguments: { search: 'dragon', cr_min: 15 } }, null, 'dragon');
  const breath = first.actions.find((a) => / Breath/.test(a.name));
  assert.ok(breath, first.actions.map((a) => a.name).join(', '));
  assert.match(breath.desc, /DC \d+ (Dexterity|Constitution) saving throw/);
  assert.match(breath.desc, /\(\d+d\d+\) \w+ damage/);
  assert.ok(text.includes(breath.name));
});

test('a default search keeps a class whole: the 2024 Rogue\'s Cunning Strike options', async () => {
  const { first } = await assertFirstResultWhole(
    { tool: 'search_character_option', arguments: { search: 'Rogue', type: 'class', game_system: '5e-2024' } },
    'srd-2024_rogue', 'rogue');
  const strike = first.features.find((f) => f.name === 'Cunning Strike');
  assert.ok(strike, first.features.map((f) => f.name).join(', '));
  assert.match(strike.desc, /For example, /);
  assert.match(strike.desc, /Withdraw/);
});

test('a default search keeps an item whole: every card of the Deck of Many Things', async () => {
  const { first } = await assertFirstResultWhole(
    { tool: 'search_equipment', arguments: { search: 'Deck of Many Things' } }, 'srd_deck-of-many-things', 'deck');
  for (const card of ['Flames', 'Fool', 'Void', 'Vizier']) assert.ok(first.desc.includes(card), card);
});

// What the data lacks is said where an answer touches it, and readable as a resource.
test('a 2024 question about grappling says SRD 5.2\'s rules glossary is not in the data, and where the 2014 rule is', async () => {
  const res = await call('search_rule', { search: 'grapple', game_system: '5e-2024' });
  okList(res, 'grapple');
  const message = res.structuredContent.message ?? '';
  assert.match(message, /^Not in this data: Grapple as srd-2024 defines it\. SRD 5\.2's Rules Glossary/);
  assert.match(message, /System Reference Document 5\.1 has it under the 5e-2014 rules/);
  assert.ok(firstText(res).includes(message));
  const resources = await client.listResources();
  assert.ok(resources.resources.some((r) => r.uri === 'lorekeeper://coverage'));
  const read = await client.readResource({ uri: 'lorekeeper://coverage' });
  const text = read.contents[0].text;
  for (const s of ['Rules Glossary', 'SRD 5.1 holds one feat, Grappler', 'Missing: Unarmed Strike, Grapple, Shove']) {
    assert.ok(text.includes(s), s);
  }
});

test('the 2024 Mage, Archmage and Lich cast Counterspell (a reaction that casts "Counterspell or Shield")', async () => {
  const list = okList(await call('search_creature', { casts_spell: 'counterspell', documents: ['srd-2024'], limit: 50 }), 'counter');
  for (const n of ['Mage', 'Archmage', 'Lich']) assert.ok(names(list).has(n), `${n} missing: ${[...names(list)]}`);
});

test('creatures that charm through the spells they cast are found; one that resists paralysis is not a paralyzer', async () => {
  const charm = okList(await call('search_creature', { inflicts_condition: 'charmed', documents: ['srd-2014'], limit: 100, detail: 'summary' }), 'charm');
  for (const n of ['Lamia', 'Oni', 'Rakshasa', 'Spirit Naga']) assert.ok(names(charm).has(n), `${n} missing`);
  const paralyze = okList(await call('search_creature', { inflicts_condition: 'paralyzed', documents: ['srd-2014'], limit: 100, detail: 'summary' }), 'paralyze');
  assert.ok(!names(paralyze).has('Duergar'));
  assert.ok(names(paralyze).has('Ghoul'));
});

test('a name no entry has is said to be missing before any near match: Mind Flayer, Beholder', async () => {
  for (const name of ['Mind Flayer', 'Beholder']) {
    const text = firstText(await call('search_creature', { search: name }));
    assert.ok(text.startsWith(`No creature is named "${name}"`), text.slice(0, 200));
    assert.match(text, /product identity/);
    assert.ok(!/^Found /.test(text), text.slice(0, 200));
  }
});

test('a swamp search lists the creatures whose records name the swamp before those that live anywhere', async () => {
  const res = await call('search_creature', { environment: 'swamp', documents: ['srd-2014'], limit: 100, detail: 'summary' });
  const list = okList(res, 'swamp');
  const order = list.map((r) => r.name);
  for (const [there, anywhere] of [['Black Dragon Wyrmling', 'Quasit'], ['Crocodile', 'Lizardfolk']]) {
    assert.ok(order.includes(there) && order.includes(anywhere), order.join(', '));
    assert.ok(order.indexOf(there) < order.indexOf(anywhere), `${there} after ${anywhere}`);
  }
  assert.match(res.structuredContent.message ?? '', /list \(nearly\) every environment/);
  const rules = await call('search_creature', { environment: 'swamp', game_system: '5e-2024' });
  assert.match(firstText(rules), /No creature record of the documents and rules searched lists environments/);
});

test('SRD 5.1\'s Paladin lists SRD 5.1\'s oath only, and counts the others', async () => {
  const list = okList(await call('search_character_option', { search: 'Paladin', type: 'class', documents: ['srd-2014'] }), 'paladin');
  const paladin = list.find((r) => r.key === 'srd_paladin');
  assert.ok(paladin, list.map((r) => r.key).join(', '));
  assert.deepEqual(paladin.subclasses.map((c) => c.document), paladin.subclasses.map(() => 'srd-2014'));
  assert.ok(paladin.subclasses_elsewhere > 0);
});

test('compare_editions says in sentences what changed: Counterspell keeps the slot in 2024', async () => {
  const r = okResult(await call('compare_editions', { name: 'Counterspell', documents: ['srd-2014', 'srd-2024'] }), 'counterspell');
  const desc = r.text_changes.find((t) => t.field === 'desc');
  assert.ok(desc, JSON.stringify(r.text_changes));
  assert.ok(desc.sentences.some((c) => (c.after ?? '').includes("the slot isn't expended")), JSON.stringify(desc.sentences));
  const exhaustion = await call('compare_editions', { name: 'Exhaustion', kind: 'condition' });
  assert.ok(!firstText(exhaustion).includes('(0 fields)'));
});

test('class_spells: a level-5 SRD 5.1 cleric has 4, 3 and 2 slots, 15 first-level spells, and the Life Domain\'s own', async () => {
  const r = okResult(await call('class_spells', { class: 'cleric', level: 5, game_system: '5e-2014', subclass: 'life', ability_modifier: 3 }), 'class_spells');
  assert.deepEqual(r.slots, { 1: 4, 2: 3, 3: 2 });
  assert.equal(r.spells['1'].length, 15);
  assert.equal(r.prepared.count, 8);
  assert.ok(!r.spells['1'].some((s) => s.name === 'Burning Hands'), 'a subclass\'s grant folded into the class list');
  const granted = r.subclass_spells.flatMap((g) => g.spells.map((s) => s.key));
  assert.deepEqual(granted, ['srd_bless', 'srd_cure-wounds', 'srd_lesser-restoration', 'srd_spiritual-weapon', 'srd_beacon-of-hope', 'srd_revivify']);
  errorResult(await call('class_spells', { class: 'cleric', level: 21 }), 'level 21', [/level/]);
  errorResult(await call('class_spells', { class: 'cleric', level: 3, subclass: 'War' }), 'unknown subclass', [/Life Domain/]);
});

test('attack_odds: the SRD 5.1 Ogre deals 8.25 a round against AC 15; at least one of three +5 attacks hits AC 16 87.5% of the time', async () => {
  const ogre = okResult(await call('attack_odds', { creature: 'srd_ogre', target_ac: 15 }), 'ogre');
  assert.equal(ogre.round.expected_damage, 8.25);
  assert.equal(ogre.attacks[0].critical_hit, 0.05);
  const three = okResult(await call('attack_odds', { attack_bonus: 5, target_ac: 16, attacks: 3 }), 'three');
  assert.equal(three.round.at_least_one, 0.875);
  const knight = okResult(await call('attack_odds', { creature: 'srd-2024_knight', target_ac: 18 }), 'knight');
  assert.deepEqual(knight.round_options.map((o) => o.attacks[0].action), ['Greatsword', 'Heavy Crossbow']);
  errorResult(await call('attack_odds', { attack_bonus: 5 }), 'no AC', [/target_ac/]);
  errorResult(await call('attack_odds', { creature: 'ogre', target_ac: 15, damage: '1d6' }), 'damage with a creature', [/stat block/]);
});

test('check_attunement: a fighter cannot attune to the Staff of Power; three items take the three slots', async () => {
  const r = okResult(await call('check_attunement', { items: ['Staff of Power', 'Cloak of Protection', 'Bag of Holding', 'Ring of Protection'], class: 'fighter' }), 'attunement');
  assert.equal(r.attuned, 2, 'the refused staff takes no slot');
  assert.equal(r.slots, 3);
  assert.equal(r.items[0].allowed, false);
  assert.deepEqual(r.items[0].classes, ['sorcerer', 'warlock', 'wizard']);
  assert.equal(r.items[2].requires_attunement, false);
  errorResult(await call('check_attunement', { items: ['Staff of Power'], class: 'figther-king-of-nowhere' }), 'unknown class', [/class/]);
});
