-- wrk script for tests/deploy/test_replicas.py: MCP tool calls over the fixture store (both protocol eras), and a
-- count of every answer that is not HTTP 200 with a result (a JSON-RPC error or an isError result counts as failed).
local legacy = {
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_spell","arguments":{"search":"Fireball"}}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_entity","arguments":{"key":"srd_fireball"}}}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_spell","arguments":{"search":"shield of force","limit":3}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_creature","arguments":{"cr_min":1}}}',
}
local modern = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_spell","arguments":'
  .. '{"level":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientCapabilities":{}}}}'
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  n = 0
  bad = 0
  first_bad = ""
  wrk.method = "POST"
end

local function headers(extra)
  local h = {["Content-Type"] = "application/json", ["Accept"] = "application/json, text/event-stream"}
  for k, v in pairs(extra) do h[k] = v end
  return h
end

local modern_headers = headers({["MCP-Protocol-Version"] = "2026-07-28", ["Mcp-Method"] = "tools/call",
  ["Mcp-Name"] = "search_spell"})
local legacy_headers = headers({["MCP-Protocol-Version"] = "2025-11-25"})

function request()
  n = n + 1
  if n % 5 == 0 then return wrk.format(nil, nil, modern_headers, modern) end
  return wrk.format(nil, nil, legacy_headers, legacy[(n % #legacy) + 1])
end

function response(status, headers, body)
  if status ~= 200 or not body:find('"result":', 1, true) or body:find('"isError":true', 1, true) then
    bad = bad + 1
    if first_bad == "" then first_bad = status .. " " .. body:sub(1, 200) end
  end
end

function done(summary, latency, requests)
  local total_bad, example = 0, ""
  for _, t in ipairs(threads) do
    total_bad = total_bad + t:get("bad")
    if example == "" then example = t:get("first_bad") end
  end
  io.write(string.format("RESULT requests=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f socket_errors=%d failed=%d\n",
    summary.requests, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, total_bad))
  if example ~= "" then io.write("FIRST_FAILED " .. example .. "\n") end
end
