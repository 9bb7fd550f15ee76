"""Compares FCEUX's dumps (fceux-dump.lua) with `nesprof run --movie` at the
same frames: RAM by FNV-1a 64 of the 2 KiB (nesprof's ram_hash), the picture
by FNV-1a 64 of the 256x240 palette indices (nesprof's frame_hash)."""
import subprocess
import sys


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def ours(nesprof, rom, movie, frame):
    out = subprocess.run([nesprof, "run", rom, "--movie", movie, "--frames", str(frame)],
                         capture_output=True, text=True, check=True).stdout.split()
    fields = dict(f.split("=") for f in out)
    return int(fields["ram_hash"], 16), int(fields["frame_hash"], 16)


def main():
    nesprof, rom, movie, dump = sys.argv[1:5]
    frame = None
    same = total = 0
    for line in open(dump):
        key, _, value = line.strip().partition(" ")
        if key == "frame":
            frame = int(value.split()[0])
        elif key == "ram":
            ram = bytes.fromhex(value)
        elif key == "pix":
            pix = bytes.fromhex(value)
            our_ram, our_pix = ours(nesprof, rom, movie, frame)
            ram_ok, pix_ok = fnv1a64(ram) == our_ram, fnv1a64(pix) == our_pix
            total += 1
            same += ram_ok and pix_ok
            print(f"frame {frame:6d}  RAM {'same' if ram_ok else 'DIFFERS'}  "
                  f"picture {'same' if pix_ok else 'DIFFERS'}")
    print(f"{same} of {total} frames identical")


main()
