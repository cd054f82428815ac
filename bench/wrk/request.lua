-- The one wrk script of the bench (bench/lib/load.ts runs `wrk -s bench/wrk/request.lua`).
-- The request comes from the environment, so each row's method and body are set by the TypeScript route table:
--   WRK_METHOD     GET (default), POST, PATCH, PUT, ...
--   WRK_BODY       the request body, sent as is (with a Content-Type given by -H on the command line)
--   WRK_VARY       when set, each request's body replaces the text "{n}" in WRK_BODY with a running number,
--                  and WRK_KEYS (space-separated API keys) are taken in turn as its bearer key: for writes
--                  that must differ (a new extension name, a changed description) or spread over accounts.
-- done() prints one JSON line that load.ts reads: requests, duration, errors by kind, latency percentiles (µs).
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body and body ~= "" then wrk.body = body end

if os.getenv("WRK_VARY") then
  local keys = {}
  for k in string.gmatch(os.getenv("WRK_KEYS") or "", "%S+") do keys[#keys + 1] = k end
  local n = 0
  request = function()
    n = n + 1
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    if #keys > 0 then headers["Authorization"] = "Bearer " .. keys[(n % #keys) + 1] end
    local b = body and string.gsub(body, "{n}", tostring(n) .. "x" .. tostring(math.random(1, 1000000000))) or nil
    return wrk.format(nil, nil, headers, b)
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"latencyUs":{"p50":%d,"p99":%d,"mean":%.1f,"max":%d}}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max))
end
