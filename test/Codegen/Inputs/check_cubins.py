#!/usr/bin/env python3
"""Checks the CUBINs of an .fsx artifact with a reader of its own (the
header sketched in docs/executable-format.md, ELF64 from the System V ABI):
there is one CUBIN per PTX text, each an ELF executable for the CUDA
machine (190) whose architecture (e_flags) is the one asked for, and whose
symbol table defines, as global functions, exactly the kernels the header maps to
that PTX text. Prints one line per CUBIN.

usage: check_cubins.py MODEL.fsx sm_XX
"""
import re
import struct
import sys

path, arch = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
end = data.index(b"\npayload ")
end = data.index(b"\n", end + 1) + 1
header = data[:end].decode("latin-1")
payload = data[end:]

kernels = re.findall(r'^kernel \d+ .* ptx (\d+) "(\w+)"$', header, re.M)
ptx = re.findall(r"^ptx (\d+) offset (\d+) length (\d+)$", header, re.M)
cubins = re.findall(r"^cubin (\d+) offset (\d+) length (\d+)$", header, re.M)
assert ptx, "no PTX texts"
assert len(cubins) == len(ptx), (len(cubins), len(ptx))
want = int(arch[3:])


def functions(elf):
    """The names of the global functions defined in `elf` (ELF64, LE)."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
                for i in range(shnum)]
    names = set()
    for s in sections:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[s[6]]
        for at in range(s[4], s[4] + s[5], 24):
            name, info, _, shndx = struct.unpack_from("<IBBH", elf, at)
            # STT_FUNC, STB_GLOBAL (not the compiler's local helpers),
            # defined.
            if info & 0xF == 2 and info >> 4 == 1 and shndx != 0:
                start = strtab[4] + name
                names.add(elf[start:elf.index(b"\0", start)].decode())
    return names


for index, offset, length in cubins:
    elf = payload[int(offset):int(offset) + int(length)]
    assert elf[:4] == b"\x7fELF" and elf[4] == 2 and elf[5] == 1, "not ELF64 LE"
    e_type, e_machine = struct.unpack_from("<HH", elf, 16)
    assert e_machine == 190, e_machine  # EM_CUDA
    assert e_type == 2, e_type  # ET_EXEC: loadable as it is
    flags, = struct.unpack_from("<I", elf, 48)
    # The architecture: bits 8-15 of e_flags from ABI version 8 on (CUDA
    # 12.8+), bits 0-7 before.
    sm = (flags >> 8) & 0xFF if elf[8] >= 8 else flags & 0xFF
    assert sm == want, f"cubin {index} is for sm_{sm}, expected {arch}"
    expected = {name for p, name in kernels if p == index}
    got = functions(elf)
    assert got == expected, f"cubin {index}: {sorted(got)} != {sorted(expected)}"
    print(f"cubin {index}: {arch}, {len(got)} kernels")
