#!/usr/bin/env python3
"""Prints how the page cache holds FILE: `pages N large M`, where M of its N pages belong to large
folios (compound pages). Touches every page through a shared read-only mapping first, so pages not
yet cached are read in, as an executed binary's are (by mmap faults). Needs root (/proc/kpageflags,
and page frame numbers in /proc/self/pagemap).

    tests/e2e/folios.py FILE
"""
import mmap
import os
import struct
import sys

PAGE = mmap.PAGESIZE
PRESENT = 1 << 63
PFN_MASK = (1 << 55) - 1
COMPOUND = (1 << 15) | (1 << 16)  # KPF_COMPOUND_HEAD, KPF_COMPOUND_TAIL


def main(path):
    size = os.path.getsize(path)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) as m:
        pages = (size + PAGE - 1) // PAGE
        for i in range(pages):
            m[i * PAGE]
        # The mapping's address: its line in /proc/self/maps names the file (the newest one).
        real = os.path.realpath(path)
        start = None
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) >= 6 and fields[5] == real and int(fields[2], 16) == 0:
                    start = int(fields[0].split("-")[0], 16)
        if start is None:
            sys.exit(f"folios.py: no mapping of {real} in /proc/self/maps")
        large = present = 0
        with open("/proc/self/pagemap", "rb") as pagemap, open("/proc/kpageflags", "rb") as flags:
            pagemap.seek(start // PAGE * 8)
            entries = pagemap.read(pages * 8)
            for i in range(pages):
                entry = struct.unpack_from("<Q", entries, i * 8)[0]
                pfn = entry & PFN_MASK
                if not entry & PRESENT or pfn == 0:
                    continue
                present += 1
                flags.seek(pfn * 8)
                if struct.unpack("<Q", flags.read(8))[0] & COMPOUND:
                    large += 1
    if present < pages:
        sys.exit(f"folios.py: only {present} of {pages} pages of {path} are mapped (not root?)")
    print(f"pages {pages} large {large}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
