"""The Lua scripts, in one place. Each touches the keys of one game only."""

# KEYS[1] events stream, KEYS[2] idempotency key ("" slot-mate when unused), KEYS[3] the
# set of the game's idempotency keys (so sealing finds them without a scan), KEYS[4] the
# table's hash: a sealed game (its tombstone recorded) takes no event, whatever its stream
# holds (none once purged: an append at version 0 would otherwise begin a second log that
# reads would prefer to the archive), and its conflict names the sealed version.
# ARGV[1] expected version, ARGV[2] idempotency record ("" for none), ARGV[3] TTL s,
# then for each event three values: event JSON, its chain hash, its command JSON ("" for none).
# The entry holding a command also gets `t`, when it was recorded: the Redis server's clock
# as "<seconds>.<microseconds>" (outside the hash chain: it orders finished games for the
# ratings, service/rated_games.py, and proves nothing).
# Returns {"ok", new_version} | {"conflict", current_version} | {"replay", record}.
APPEND = """
if ARGV[2] ~= '' then
  local seen = redis.call('GET', KEYS[2])
  if seen then return {'replay', seen} end
end
local sealed = redis.call('HGET', KEYS[4], 'archive:version')
if sealed then return {'conflict', tonumber(sealed)} end
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then
  return {'conflict', version}
end
local now = redis.call('TIME')
local at = now[1] .. '.' .. string.format('%06d', tonumber(now[2]))
for i = 4, #ARGV, 3 do
  version = version + 1
  if ARGV[i + 2] ~= '' then
    redis.call('XADD', KEYS[1], '0-' .. version, 'e', ARGV[i], 'h', ARGV[i + 1], 'c', ARGV[i + 2],
      't', at)
  else
    redis.call('XADD', KEYS[1], '0-' .. version, 'e', ARGV[i], 'h', ARGV[i + 1])
  end
end
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[3]))
  redis.call('SADD', KEYS[3], KEYS[2])
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]))
end
return {'ok', version}
"""

# KEYS[1] meta hash. ARGV[1] wanted seat ("" = first open), ARGV[2] seat JSON,
# ARGV[3] token hash, ARGV[4] client seed ("" for none), ARGV[5] the joining player's id
# ("" for a person without an account), ARGV[6] how many seats one player may hold.
# Seats live in the hash as fields seat:<n>: JSON when taken, "open", or "reserved" for
# the player named by player:<n> (which also names the player a taken seat is bound to).
# A player takes the seat reserved for them first (the wanted one, when it is theirs);
# one awaited at a seat may take no other (it would leave theirs empty for good).
# Returns {seat, empty seats left}, or {-1, 0} when no seat is open, {-2, 0} when the
# wanted seat is not open to this joiner, {-4, 0} when the player holds enough seats,
# {-5, 0} when the player wants another seat than the one kept for them.
JOIN = """
local players = tonumber(redis.call('HGET', KEYS[1], 'players'))
local wanted = ARGV[1]
local player = ARGV[5]
local chosen = -1
if player ~= '' then
  local held = 0
  local kept = false
  for seat = 0, players - 1 do
    if redis.call('HGET', KEYS[1], 'player:' .. seat) == player then
      if redis.call('HGET', KEYS[1], 'seat:' .. seat) ~= 'reserved' then
        held = held + 1
      else
        kept = true
        if chosen < 0 and (wanted == '' or tonumber(wanted) == seat) then chosen = seat end
      end
    end
  end
  if held >= tonumber(ARGV[6]) then return {-4, 0} end
  if kept and chosen < 0 then return {-5, 0} end  -- take the seat kept for you, not another
end
if chosen < 0 and wanted ~= '' then
  if redis.call('HGET', KEYS[1], 'seat:' .. wanted) == 'open' then
    chosen = tonumber(wanted)
  else
    return {-2, 0}
  end
elseif chosen < 0 then
  for seat = 0, players - 1 do
    if redis.call('HGET', KEYS[1], 'seat:' .. seat) == 'open' then
      chosen = seat
      break
    end
  end
end
if chosen < 0 then return {-1, 0} end
redis.call('HSET', KEYS[1], 'seat:' .. chosen, ARGV[2], 'token:' .. chosen, ARGV[3])
redis.call('HDEL', KEYS[1], 'invited:' .. chosen)
if player ~= '' then
  redis.call('HSET', KEYS[1], 'player:' .. chosen, player)
else
  redis.call('HDEL', KEYS[1], 'player:' .. chosen)
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'client_seed:' .. chosen, ARGV[4]) end
local left = 0
for seat = 0, players - 1 do
  local value = redis.call('HGET', KEYS[1], 'seat:' .. seat)
  if value == 'open' or value == 'reserved' then left = left + 1 end
end
return {chosen, left}
"""

# The JOIN script, refusing (-3) a table that was closed. KEYS and ARGV as JOIN's.
JOIN_OPEN = (
    "if redis.call('HGET', KEYS[1], 'status') == 'abandoned' then return {-3, 0} end\n" + JOIN
)
# KEYS[1] meta hash. A waiting table with a seat still empty (open, or reserved for a
# player who has not come) becomes abandoned: 1 (and 1 when it already was: its log may
# still lack the events); else 0.
CLOSE = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'waiting' then return status == 'abandoned' and 1 or 0 end
local players = tonumber(redis.call('HGET', KEYS[1], 'players'))
for seat = 0, players - 1 do
  local value = redis.call('HGET', KEYS[1], 'seat:' .. seat)
  if value == 'open' or value == 'reserved' then
    redis.call('HSET', KEYS[1], 'status', 'abandoned')
    return 1
  end
end
return 0
"""

# KEYS: one rating pool's version, skills, board, ledger, games (service.keys: one slot).
# ARGV[1] the version the write was computed at, ARGV[2] what it replaces: "add" (nothing),
# "skills" (every skill and the board: a re-fold) or "all" (the ledger too: a rebuild),
# ARGV[3] n, then n games (id, order score, JSON), then skills (identity, JSON, ordinal).
# Returns 1 when written, 0 when the pool moved on since (recompute and try again).
RATINGS_WRITE = """
if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 0 end
if ARGV[2] ~= 'add' then redis.call('DEL', KEYS[2], KEYS[3]) end
if ARGV[2] == 'all' then redis.call('DEL', KEYS[4], KEYS[5]) end
local i = 4
for _ = 1, tonumber(ARGV[3]) do
  redis.call('ZADD', KEYS[4], ARGV[i + 1], ARGV[i])
  redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 2])
  i = i + 3
end
while i <= #ARGV do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[3], ARGV[i + 2], ARGV[i])
  i = i + 3
end
redis.call('INCR', KEYS[1])
return 1
"""

# KEYS[1] meta hash, KEYS[2] events stream. ARGV: the tombstone's fields and values
# (service.table_records.Tombstone), archive:digest among them and archive:version the
# sealed length. The tombstone is recorded only while the stream still holds exactly the
# sealed log (on a repeat after a crash: once, the same digest kept): 1 recorded (or
# already), 0 the log differs from what was sealed.
SEAL = """
local wanted = {}
for i = 1, #ARGV, 2 do wanted[ARGV[i]] = ARGV[i + 1] end
local kept = redis.call('HGET', KEYS[1], 'archive:digest')
if kept then return kept == wanted['archive:digest'] and 1 or 0 end
if redis.call('XLEN', KEYS[2]) ~= tonumber(wanted['archive:version']) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# KEYS[1] meta hash, KEYS[2] idempotency key set, then the hot keys to drop (stream,
# snapshot, clock). Only a table whose tombstone is recorded loses them: 1, else 0.
PURGE = """
if not redis.call('HGET', KEYS[1], 'archive:digest') then return 0 end
for _, key in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('DEL', key) end
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
"""

# KEYS[1] the game's snapshot, KEYS[2] its table (meta hash). ARGV: the snapshot's fields
# and values. A sealed game keeps no snapshot (its log is whole in the archive): 0 then.
SAVE_SNAPSHOT = """
if redis.call('HEXISTS', KEYS[2], 'archive:digest') == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""
