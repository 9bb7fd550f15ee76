-- FCEUX Lua: while FCEUX plays a movie (--playmov), dumps the 2 KiB RAM and the
-- picture's palette indices (0-63) at the movie frames listed in $FRAMES into
-- $OUT, one "frame", "ram" and "pix" line each (hex). Used by fceux-compare.sh.
local out = io.open(os.getenv("OUT"), "w")
local targets = {}
local last = 0
for f in string.gmatch(os.getenv("FRAMES"), "(%d+)") do targets[tonumber(f)] = true; last = math.max(last, tonumber(f)) end
local guard = 0
while true do
  local f = emu.framecount()
  if targets[f] then
    targets[f] = nil
    local ram = memory.readbyterange(0, 2048)
    local hex = {}
    for i = 1, #ram do hex[i] = string.format("%02x", string.byte(ram, i)) end
    local pix = {}
    for y = 0, 239 do
      for x = 0, 255 do
        local r, g, b, p = emu.getscreenpixel(x, y, true)
        pix[#pix + 1] = string.format("%02x", p % 64)
      end
    end
    out:write(string.format("frame %d lag %d\nram %s\npix %s\n", f, emu.lagcount(), table.concat(hex), table.concat(pix)))
    out:flush()
  end
  if f >= last then break end
  emu.frameadvance()
  guard = guard + 1
  if guard > last + 1000 then break end
end
out:close()
emu.exit()
