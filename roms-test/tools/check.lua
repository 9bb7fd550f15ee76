-- FCEUX Lua driver for roms-test programs (run through tools/fceux-check.sh).
-- Waits on the title, presses Start, then plays deterministic pseudo-random input,
-- pressing Start now and then so a finished game is restarted. Saves screenshots at
-- fixed frames and a line of RAM fingerprints every 100 frames to ram.txt.
-- Optional environment: CHECK_SHOTS="frame:name,..." adds screenshots;
-- CHECK_POKES="addr=value@frame,..." writes RAM (hex or decimal) to reach states
-- random play rarely reaches, such as a cleared level; CHECK_WATCH="addr=value:name"
-- saves one screenshot a few frames after that byte first holds that value.
local out = os.getenv("CHECK_OUT") or "."
local total = tonumber(os.getenv("CHECK_FRAMES") or "6000")
local shots = { [90] = "title", [300] = "early", [1200] = "mid", [3000] = "later" }
shots[total - 1] = "end"
for f, name in string.gmatch(os.getenv("CHECK_SHOTS") or "", "(%d+):([%w_]+)") do
  shots[tonumber(f)] = name
end
local pokes = {}
for a, v, f in string.gmatch(os.getenv("CHECK_POKES") or "", "([%wx]+)=([%wx]+)@(%d+)") do
  pokes[#pokes + 1] = { addr = tonumber(a), value = tonumber(v), frame = tonumber(f) }
end

local seed = 12345
local function rnd(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return math.floor(seed / 65536) % n
end

local log = io.open(out .. "/ram.txt", "w")
local function fingerprint(a, len)
  local s = memory.readbyterange(a, len)
  local h = 0
  for i = 1, #s do h = (h * 31 + string.byte(s, i)) % 1000000007 end
  return h
end

local watch = {}
for a, v, name in string.gmatch(os.getenv("CHECK_WATCH") or "", "([%wx]+)=([%wx]+):([%w_]+)") do
  watch[#watch + 1] = { addr = tonumber(a), value = tonumber(v), name = name, at = nil }
end

local held, hold_left = {}, 0
for f = 0, total do
  local input = {}
  if f >= 120 then
    if hold_left <= 0 then
      held = {}
      local d = rnd(6)
      if d == 0 then held.up = true elseif d == 1 then held.down = true
      elseif d == 2 then held.left = true elseif d == 3 then held.right = true end
      if rnd(3) == 0 then held.A = true end
      if rnd(4) == 0 then held.B = true end
      hold_left = 6 + rnd(40)
    end
    hold_left = hold_left - 1
    for k, v in pairs(held) do input[k] = v end
    if f % 400 < 3 and f > 200 then input.start = true end
  end
  if f >= 100 and f < 104 then input.start = true end
  joypad.set(1, input)
  for _, p in ipairs(pokes) do
    if p.frame == f then memory.writebyte(p.addr, p.value) end
  end
  for _, w in ipairs(watch) do
    if not w.at and memory.readbyte(w.addr) == w.value then w.at = f + 10 end
    if w.at == f then gui.savescreenshotas(out .. "/" .. w.name .. ".png") end
  end
  if shots[f] then gui.savescreenshotas(out .. "/" .. shots[f] .. ".png") end
  if f % 100 == 0 then
    -- lag = frames so far in which the game did not read the controller, i.e.
    -- frames whose logic overran the frame time
    log:write(string.format("%6d zp=%10d bss=%10d oam=%10d ram=%10d lag=%d\n", f,
      fingerprint(0x0000, 0x100), fingerprint(0x0300, 0x300),
      fingerprint(0x0200, 0x100), fingerprint(0x0600, 0x200), emu.lagcount()))
    log:flush()
  end
  emu.frameadvance()
end
log:close()
emu.exit()
