#!/usr/bin/env python3
"""Prints the bare sampler's probe options for USDT probes of an ELF file.

    sdt_locate.py BINARY PROVIDER:NAME [PROVIDER:NAME ...]

prints, on one line, `-e OFFSET[:SEMA] ... -r REGMASK [-s STACK_BYTES]`:
the file offset of every location of those probes (and of its semaphore),
the perf_regs mask of every register their arguments name (directly or as a
memory base), and how many bytes of user stack cover the %rsp-relative
memory arguments. Uses readelf (binutils), like a user checking by hand would.

File offset = address - p_vaddr + p_offset of the PT_LOAD segment holding the
address, after the prelink correction (note base vs .stapsdt.base address).
"""
import re
import subprocess
import sys

# x86-64 perf_regs numbering (arch/x86/include/uapi/asm/perf_regs.h).
PERF_REGS = {"ax": 0, "bx": 1, "cx": 2, "dx": 3, "si": 4, "di": 5, "bp": 6, "sp": 7,
             "ip": 8, "r8": 16, "r9": 17, "r10": 18, "r11": 19, "r12": 20, "r13": 21,
             "r14": 22, "r15": 23}


def reg_index(name):
    """%rax, %eax, %ax, %al, %r8, %r8d ... -> perf_regs index (None if unknown)."""
    n = name.lstrip("%")
    m = re.fullmatch(r"r(\d+)[dwb]?", n)
    if m:
        return PERF_REGS.get("r" + m.group(1))
    n = re.sub(r"^[re]", "", n) if len(n) == 3 else n
    if n in PERF_REGS:
        return PERF_REGS[n]
    legacy = {"al": "ax", "ah": "ax", "bl": "bx", "bh": "bx", "cl": "cx", "ch": "cx",
              "dl": "dx", "dh": "dx", "sil": "si", "dil": "di", "bpl": "bp", "spl": "sp"}
    if n in legacy:
        return PERF_REGS[legacy[n]]
    return None


def readelf(*args):
    return subprocess.run(["readelf", *args], check=True, capture_output=True, text=True).stdout


def load_segments(binary):
    segs = []
    for line in readelf("-lW", binary).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16), int(f[5], 16)))
    return segs


def file_offset(segs, addr):
    for off, vaddr, filesz, memsz in segs:
        if vaddr <= addr < vaddr + max(filesz, memsz):
            return addr - vaddr + off
    raise SystemExit(f"sdt_locate: error: address {addr:#x} is in no PT_LOAD segment")


def stapsdt_base_address(binary):
    for line in readelf("-SW", binary).splitlines():
        m = re.search(r"\.stapsdt\.base\s+\S+\s+([0-9a-f]+)", line)
        if m:
            return int(m.group(1), 16)
    return None


def main():
    if len(sys.argv) < 3:
        raise SystemExit("usage: sdt_locate.py BINARY PROVIDER:NAME [PROVIDER:NAME ...]")
    binary, wanted = sys.argv[1], [tuple(p.split(":", 1)) for p in sys.argv[2:]]
    segs = load_segments(binary)
    sect_base = stapsdt_base_address(binary)
    notes, cur = [], {}
    for line in readelf("-n", binary).splitlines():
        line = line.strip()
        if line.startswith("Provider:"):
            cur = {"provider": line.split(":", 1)[1].strip()}
            notes.append(cur)
        elif line.startswith("Name:"):
            cur["name"] = line.split(":", 1)[1].strip()
        elif line.startswith("Location:"):
            for k, v in re.findall(r"(\w+): (0x[0-9a-f]+)", line):
                cur[k.lower()] = int(v, 16)
        elif line.startswith("Arguments:"):
            cur["args"] = line.split(":", 1)[1].split()
    opts, mask, stack = [], 0, 0
    for prov, name in wanted:
        found = [n for n in notes if n.get("provider") == prov and n.get("name") == name]
        if not found:
            raise SystemExit(f"sdt_locate: error: no probe {prov}:{name} in '{binary}'")
        for n in found:
            adjust = (sect_base - n["base"]) if sect_base is not None else 0
            opt = f"-e {file_offset(segs, n['location'] + adjust):#x}"
            if n.get("semaphore", 0):
                opt += f":{file_offset(segs, n['semaphore'] + adjust):#x}"
            opts.append(opt)
            for arg in n.get("args", []):
                operand = arg.split("@", 1)[1] if "@" in arg else arg
                size = abs(int(re.match(r"-?(\d+)", arg).group(1))) if "@" in arg else 8
                for reg in re.findall(r"%\w+", operand):
                    idx = reg_index(reg)
                    if idx is not None:
                        mask |= 1 << idx
                m = re.fullmatch(r"(-?\d*)\(%rsp\)", operand)
                if m:
                    end = int(m.group(1) or 0) + size
                    if end > 0:
                        stack = max(stack, (end + 7) // 8 * 8)
    out = " ".join(opts) + f" -r {mask:#x}"
    if stack:
        out += f" -s {stack}"
    print(out)


if __name__ == "__main__":
    main()
