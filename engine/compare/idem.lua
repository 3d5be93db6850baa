-- wrk script of idemchaos bench --compare: a fresh key per request or,
-- with probability DUP_RATIO (default 0.1), the key and body of one of
-- the thread's last 16 requests, like idemchaos bench --dup-ratio.
local dup_ratio = tonumber(os.getenv("DUP_RATIO") or "0.1")
local accounts = tonumber(os.getenv("ACCOUNTS") or "16")
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  math.randomseed(tid * 7919 + os.time())
  n, recent, ring = 0, {}, 0
  run = string.format("%08x", math.random(0, 0x7fffffff))
end

local function fresh()
  n = n + 1
  local key = string.format("%s-%04x-4000-8000-%012x", run, tid, n)
  local body = string.format('{"account":"acct-%d","amount":%d,"currency":"EUR"}',
    math.random(1, accounts), math.random(100, 9999))
  ring = ring % 16 + 1
  recent[ring] = { key, body }
  return key, body
end

function request()
  local key, body
  if #recent > 0 and math.random() < dup_ratio then
    local r = recent[math.random(1, #recent)]
    key, body = r[1], r[2]
  else
    key, body = fresh()
  end
  return wrk.format("POST", "/v1/charges",
    { ["Content-Type"] = "application/json", ["Idempotency-Key"] = key }, body)
end
