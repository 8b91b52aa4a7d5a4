#!/usr/bin/env bash
# LoreKeeper e2e: the MCP Inspector CLI (@modelcontextprotocol/inspector)
# drives `lorekeeper serve` over stdio, in the legacy and the modern protocol
# era, with jq assertions on its `--format json` output.
#
# Run through run.sh (it checks the environment):
#   LOREKEEPER_BIN=... LOREKEEPER_DB_PATH=... tests/e2e/run.sh inspector
#
# Inspector exit codes used here: 0 ok, 5 the tool returned isError:true.
# Output ends with a plain "N passed, N failed" line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
INSPECTOR="$here/node_modules/.bin/mcp-inspector"

: "${LOREKEEPER_BIN:?LOREKEEPER_BIN is not set}"
: "${LOREKEEPER_DB_PATH:?LOREKEEPER_DB_PATH is not set}"
if [[ ! -x "$INSPECTOR" ]]; then
  echo "e2e: $INSPECTOR is missing: run the project setup script (scripts/setup.sh), or: npm ci --prefix tests/e2e" >&2
  exit 1
fi
command -v jq >/dev/null 2>&1 || { echo "e2e: jq is required (apt-get install jq)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/lorekeeper-e2e-inspector.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# Keep the Inspector's own catalog/config/secret files out of $HOME.
export MCP_CATALOG_PATH="$work/catalog.json"
export MCP_CLIENT_CONFIG_PATH="$work/client.json"
# Inspector 2.12 declares node >=22.19; its stdio CLI works on 20 but warns.
export NODE_NO_WARNINGS=1

PASSED=0
FAILED=0
ERA=""
OUT=""
RC=0
LAST=""

# inspect ARGS... : run one Inspector CLI invocation against the server in $ERA.
# Sets OUT (stdout, one JSON object), RC (exit code); stderr goes to $work/stderr.
inspect() {
  LAST="mcp-inspector --cli --format json --protocol-era $ERA $* -- $LOREKEEPER_BIN serve"
  set +e
  OUT="$(timeout 120 "$INSPECTOR" --cli --format json --protocol-era "$ERA" \
    -e "LOREKEEPER_DB_PATH=$LOREKEEPER_DB_PATH" -e "LOREKEEPER_EMBED=${LOREKEEPER_EMBED:-off}" "$@" -- "$LOREKEEPER_BIN" serve 2>"$work/stderr")"
  RC=$?
  set -e
}

# call TOOL JSON_ARGS : tools/call through the Inspector.
call() {
  inspect --method tools/call --tool-name "$1" --tool-args-json "$2"
}

# ok NAME CONDITION... : record a check; print diagnostics on failure.
ok() {
  local name="$1"; shift
  if "$@"; then
    PASSED=$((PASSED + 1))
    echo "ok - [$ERA] $name"
  else
    FAILED=$((FAILED + 1))
    echo "not ok - [$ERA] $name"
    echo "  # command: $LAST"
    echo "  # exit code: $RC"
    echo "  # stdout: $(printf '%s' "$OUT" | head -c 2000)"
    echo "  # stderr: $(head -c 2000 "$work/stderr" 2>/dev/null | tr '\n' ' ')"
  fi
}

# jqt FILTER [jq options...] : true when FILTER yields true on $OUT.
jqt() {
  local filter="$1"; shift
  printf '%s' "$OUT" | jq -e "$@" "$filter" >/dev/null 2>&1
}
rc_is() { [[ "$RC" -eq "$1" ]]; }
ok_json() { rc_is 0 && jqt "$@"; }

# A successful tool result: not isError, Markdown text block, structuredContent.result.
SUCCESS='(.result.isError != true)
  and (.result.content[0].type == "text") and ((.result.content[0].text | length) > 0)
  and (.result.structuredContent | has("result"))'
# Every element of an array of result objects carries the common fields.
OBJ='(type == "object") and (.key|type=="string") and (.name|type=="string") and (.kind|type=="string")
  and (.document.key|type=="string") and (.document.name|type=="string")
  and (.source_api|type=="string") and (.url|type=="string")'
LIST="$SUCCESS and (.result.structuredContent.result | type == \"array\" and all(.[]; $OBJ))"

# Documented parameters per tool (a tool may accept more), and the required ones.
TOOL_PARAMETERS='{
  "list_documents": {"params": ["source"], "required": []},
  "search_spell": {"params": ["search","level","level_min","level_max","school","class_key","concentration","ritual","casting_time","damage_type","documents","game_system","limit"], "required": []},
  "search_creature": {"params": ["search","cr","cr_min","cr_max","type","size","armor_class_min","hit_points_min","documents","game_system","limit"], "required": []},
  "search_character_option": {"params": ["type","search","documents","limit"], "required": []},
  "search_equipment": {"params": ["type","search","rarity","damage_dice","is_simple","requires_attunement","is_light","is_versatile","is_thrown","is_finesse","is_two_handed","cost_min","cost_max","weight_max","documents","limit"], "required": []},
  "search_rule": {"params": ["rule_type","search","section","documents","limit"], "required": []},
  "search_all": {"params": ["query","content_types","documents","limit"], "required": ["query"]},
  "get_entity": {"params": ["key","kind"], "required": ["key"]},
  "find_similar": {"params": ["key","name","kind","documents","limit"], "required": []},
  "roll_dice": {"params": ["notation","mode","target","times","seed"], "required": ["notation"]},
  "evaluate_encounter": {"params": ["creatures","party_levels","party_size","party_level","rules","documents","game_system"], "required": ["creatures"]},
  "build_encounter": {"params": ["party_levels","party_size","party_level","rules","difficulty","theme","environment","type","size","cr_min","cr_max","documents","game_system","max_creatures","alternatives","seed"], "required": []}
}'

EXPECTED_TOOLS='["find_similar","get_entity","list_documents","search_all","search_character_option","search_creature","search_equipment","search_rule","search_spell","roll_dice","evaluate_encounter","build_encounter"]'

run_era() {
  ERA="$1"

  inspect --method tools/list
  ok "tools/list lists all 12 tools" ok_json \
    '[.result.tools[].name] as $have | all($want[]; . as $w | $have | index($w) != null)' --argjson want "$EXPECTED_TOOLS"
  ok "every tool has inputSchema, outputSchema and readOnlyHint" ok_json \
    'all(.result.tools[]; (.inputSchema.type == "object") and (.outputSchema.type == "object") and (.annotations.readOnlyHint == true))'

  ok "every tool takes its documented parameters and requires the documented ones" ok_json \
    '[.result.tools[] | {key: .name, value: .inputSchema}] | from_entries as $schemas
     | all($spec | to_entries[];
         .key as $tool | .value as $want | $schemas[$tool] as $s
         | ($s != null)
           and all($want.params[]; . as $p | $s.properties | has($p))
           and ((($s.required // []) | sort) == ($want.required | sort)))' --argjson spec "$TOOL_PARAMETERS"

  inspect --method tools/list --strict
  ok "tool schemas pass the Inspector's portability lint (--strict, exit 0)" rc_is 0

  call list_documents '{}'
  ok "list_documents includes srd-2014 with entity_count > 0" ok_json \
    "$SUCCESS and (.result.structuredContent.result | any(.[]; .key == \"srd-2014\" and .entity_count > 0))"

  call search_spell '{"search":"Fireball"}'
  # Exact-name matches (every version: srd-2014, srd-2024, a5e-ag) come first.
  ok "search_spell Fireball: every Fireball version first, documents differ" ok_json \
    "$LIST and (.result.structuredContent.result as \$r
      | [\$r[] | select(.name == \"Fireball\")] as \$exact
      | (\$r[0:(\$exact | length)] | all(.name == \"Fireball\"))
      and ([\$exact[].key] | index(\"srd_fireball\") != null and index(\"srd-2024_fireball\") != null)
      and ([\$exact[].document.key] | unique | length) == (\$exact | length))"

  call search_spell '{"search":"Fireball","documents":["srd-2024"]}'
  ok "search_spell Fireball documents=[srd-2024] returns only srd-2024_fireball" ok_json \
    "$LIST and ([.result.structuredContent.result[].key] == [\"srd-2024_fireball\"])"

  call search_spell '{"documents":[]}'
  ok "search_spell documents=[] is empty with a message" ok_json \
    "$SUCCESS and (.result.structuredContent.result == []) and (.result.structuredContent.message | type == \"string\" and length > 0)"

  call search_spell '{"level":3,"class_key":"wizard"}'
  ok "search_spell level=3 class_key=wizard: all level 3" ok_json \
    "$LIST and (.result.structuredContent.result | length > 0 and all(.[]; .level == 3) and any(.[]; .key == \"srd_fireball\"))"

  call search_creature '{"cr_min":1,"cr_max":20,"type":"dragon"}'
  ok "search_creature cr 1..20 dragon: adult red dragon, CRs in range" ok_json \
    "$LIST and (.result.structuredContent.result | any(.[]; .key == \"srd_adult-red-dragon\")
      and all(.[]; (.challenge_rating | type == \"number\") and .challenge_rating >= 1 and .challenge_rating <= 20))"

  call search_character_option '{"type":"class","search":"wizard"}'
  ok "search_character_option class wizard finds srd_wizard" ok_json \
    "$LIST and (.result.structuredContent.result | any(.[]; .key == \"srd_wizard\"))"

  call search_equipment '{"type":"weapon","search":"longsword"}'
  ok "search_equipment weapon longsword finds srd_longsword" ok_json \
    "$LIST and (.result.structuredContent.result | any(.[]; .key == \"srd_longsword\"))"

  call search_rule '{"rule_type":"condition","search":"grappled"}'
  ok "search_rule condition grappled finds grappled" ok_json \
    "$LIST and (.result.structuredContent.result | any(.[]; .key == \"srd_grappled\"))"

  call search_all '{"query":"fireball"}'
  ok "search_all fireball: kind -> results, includes srd_fireball" ok_json \
    "$SUCCESS and (.result.structuredContent.result | type == \"object\"
      and all(to_entries[]; .key as \$k | .value | type == \"array\" and all(.[]; ($OBJ) and .kind == \$k))
      and ([.[][].key] | index(\"srd_fireball\") != null))"

  call get_entity '{"key":"srd_fireball"}'
  ok "get_entity srd_fireball" ok_json \
    "$SUCCESS and (.result.structuredContent.result | ($OBJ) and .key == \"srd_fireball\" and .name == \"Fireball\" and .document.key == \"srd-2014\")"

  call find_similar '{"key":"srd_fireball"}'
  ok "find_similar srd_fireball excludes srd_fireball" ok_json \
    "$LIST and (.result.structuredContent.result | length > 0 and all(.[]; .key != \"srd_fireball\"))"

  call find_similar '{"name":"Fireball"}'
  ok "find_similar name=Fireball excludes srd_fireball" ok_json \
    "$LIST and (.result.structuredContent.result | length > 0 and all(.[]; .key != \"srd_fireball\"))"

  call get_entity '{"key":"srd_no-such-entry"}'
  ok "get_entity unknown key -> exit 5, isError naming the key" eval \
    'rc_is 5 && jqt ".result.isError == true and (.result.content[0].text | contains(\"srd_no-such-entry\"))"'

  inspect --method resources/templates/list
  ok "resources/templates/list is non-empty" ok_json \
    '.result.resourceTemplates | type == "array" and length > 0 and all(.[]; .uriTemplate | type == "string")'

  inspect --method resources/read --uri 'lorekeeper://spell/srd_fireball'
  ok "resources/read lorekeeper://spell/srd_fireball contains Fireball" ok_json \
    '.result.contents[0].text | type == "string" and contains("Fireball")'

  # The Inspector pages resources/list to its end (and gives up after 64 pages): documents and kinds, not entries.
  inspect --method resources/list
  ok "resources/list holds the documents and kinds, not every entry" ok_json \
    '.result.resources | length > 20 and length < 100 and any(.[]; .uri == "lorekeeper://documents/srd-2014") and any(.[]; .uri == "lorekeeper://kinds/creature")'

  inspect --method resources/read --uri 'lorekeeper://kinds/creature'
  ok "resources/read lorekeeper://kinds/creature names search_creature" ok_json \
    '.result.contents[0].text | contains("search_creature")'

  inspect --method resources/read --uri 'lorekeeper://spell/no-such-spell-xyz'
  ok "resources/read of an unknown URI fails" eval '[[ "$RC" -ne 0 ]]'

  call search_spell '{"level":12}'
  ok "search_spell level=12 -> exit 5, isError naming the range" eval \
    'rc_is 5 && jqt ".result.isError == true and (.result.content[0].text | test(\"\\\\b0\\\\b\") and test(\"\\\\b9\\\\b\"))"'

  call search_spell '{"school":"pyromancy"}'
  ok "search_spell school=pyromancy -> exit 5, isError naming the schools" eval \
    'rc_is 5 && jqt ".result.isError == true and (.result.content[0].text | contains(\"evocation\"))"'

  call search_character_option '{"type":"spaceship"}'
  ok "search_character_option type=spaceship -> exit 5, isError naming the types" eval \
    'rc_is 5 && jqt ".result.isError == true and (.result.content[0].text | contains(\"class\") and contains(\"background\"))"'

  call search_spell '{"bogus_param":1}'
  ok "search_spell unknown parameter -> exit 5, isError naming it and the valid ones" eval \
    'rc_is 5 && jqt ".result.isError == true and (.result.content[0].text | contains(\"bogus_param\") and contains(\"class_key\"))"'

  call search_character_option '{"search":"Wizard"}'
  ok "search_character_option Wizard without type finds srd_wizard first among classes" ok_json \
    "$LIST and (.result.structuredContent.result | any(.[]; .key == \"srd_wizard\"))"

  call search_creature '{"cr":"1/4","type":"humanoid","limit":100,"detail":"summary"}'
  ok "search_creature cr \"1/4\" (a fraction): every result CR 0.25" ok_json \
    "$LIST and (.result.structuredContent.result | length > 0 and all(.[]; .challenge_rating == 0.25))"

  call roll_dice '{"notation":"8d6","target":30,"seed":42}'
  ok "roll_dice 8d6 target 30: exact odds 0.3802 and 8 faces" ok_json \
    "$SUCCESS and (.result.structuredContent.result.odds.at_least.probability * 10000 | round) == 3802
      and (.result.structuredContent.result.rolls[0].terms[0].faces | length) == 8"

  call roll_dice '{"notation":"10000d10000"}'
  ok "roll_dice 10000d10000 -> exit 5, isError naming the limit" eval \
    'rc_is 5 && jqt ".result.isError == true and (.result.content[0].text | contains(\"too many dice\"))"'

  call evaluate_encounter '{"party_levels":[3,3,3,3],"creatures":[{"name":"Goblin","count":4}],"rules":"2014"}'
  ok "evaluate_encounter 4 goblins vs 4 level-3: 200 XP x2 = 400, easy" ok_json \
    "$SUCCESS and (.result.structuredContent.result | .base_xp == 200 and .adjusted_xp == 400 and .difficulty == \"easy\")"

  call build_encounter '{"party_size":4,"party_level":7,"difficulty":"hard","rules":"2014","theme":"undead in a crypt","type":"undead","seed":7}'
  ok "build_encounter hard undead for 4 level-7: groups of undead within 4,400-6,799 adjusted XP" ok_json \
    "$SUCCESS and (.result.structuredContent.result.groups | length > 0
      and all(.[]; .difficulty == \"hard\" and .adjusted_xp >= 4400 and .adjusted_xp <= 6799
        and all(.creatures[]; .key == \"srd_vampire-spawn\" or .key == \"srd_wraith\")))"
}

# E2E_INSPECTOR_ERAS narrows the run while debugging; both eras by default.
for era in ${E2E_INSPECTOR_ERAS:-legacy modern}; do
  run_era "$era"
done

echo "$PASSED passed, $FAILED failed"
[[ "$FAILED" -eq 0 ]]
