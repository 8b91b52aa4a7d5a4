-- wrk script for scripts/load-http.sh: POSTs MCP tools/call requests (legacy era, stateless, the headers a
-- 2025-11-25 client sends) cycling through a few typical lookups, and counts replies that are not HTTP 200 or
-- carry a JSON-RPC error or an isError result.
local bodies = {
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_spell","arguments":{"search":"Fireball"}}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_entity","arguments":{"key":"srd_fireball"}}}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_creature","arguments":{"type":"dragon","cr_min":10}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_spell","arguments":{"level":3,"class_key":"wizard","limit":10}}}',
}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  n = 0
  bad = 0
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
end

function request()
  n = n + 1
  return wrk.format(nil, nil, nil, bodies[(n % #bodies) + 1])
end

function response(status, headers, body)
  if status ~= 200 or body:find('"error":', 1, true) or body:find('"isError":true', 1, true) then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total_bad = 0
  for _, t in ipairs(threads) do
    total_bad = total_bad + t:get("bad")
  end
  io.write(string.format("RESULT requests=%d rps=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f socket_errors=%d non200_or_error=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, total_bad))
end
