-- wrk script: each connection's thread opens its own MCP session (initialize, then
-- notifications/initialized) and then calls one tool over and over on it, as a user's load test
-- of an MCP endpoint would. Run one connection per thread (-t N -c N) so that every connection
-- has its own session.
--
--   wrk -t1 -c1 -d10s --latency -s scripts/bench/mcp_call.lua http://127.0.0.1:PORT/mcp -- echo__echo
--
-- The arguments after `--`: the tool's name (default `echo`; its arguments are {"text": "ping"})
-- and the protocol revision to ask for (default 2025-11-25).
-- At the end it prints one JSON line: calls made, seconds, failures, p50 and p99 in µs (wrk's
-- latency percentiles, which include the two requests that open each session).

local tool = "echo"
local session = nil
local stage = "initialize"
failures = 0 -- a global: done() reads it from every thread
local threads = {}

local revision = "2025-11-25"
local initialize
local initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}'
local call

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  if args[1] then
    tool = args[1]
  end
  if args[2] then
    revision = args[2]
  end
  initialize = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{'
    .. '"protocolVersion":"' .. revision .. '","capabilities":{},'
    .. '"clientInfo":{"name":"wrk","version":"4.1"}}}'
  call = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' .. tool
    .. '","arguments":{"text":"ping"}}}'
end

local function post(body)
  local headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
  }
  if session then
    headers["Mcp-Session-Id"] = session
    headers["MCP-Protocol-Version"] = revision
  end
  return wrk.format("POST", nil, headers, body)
end

function request()
  if stage == "initialize" then
    return post(initialize)
  elseif stage == "initialized" then
    return post(initialized)
  end
  return post(call)
end

function response(status, headers, body)
  if stage == "initialize" then
    session = headers["Mcp-Session-Id"] or headers["mcp-session-id"]
    if status ~= 200 or not session then
      failures = failures + 1
      return
    end
    stage = "initialized"
  elseif stage == "initialized" then
    stage = "calling"
  elseif status ~= 200 or not string.find(body, '"result"', 1, true)
      or string.find(body, '"isError":true', 1, true) then
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("failures") or 0)
  end
  -- Each connection's first two requests open its session; they are not calls.
  local calls = summary.requests - 2 * #threads
  io.write(string.format(
    '{"calls":%d,"seconds":%.6f,"failures":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d}\n',
    calls, summary.duration / 1e6, failed,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
