#!/usr/bin/env python3
"""Checks that two kernel caches hold the same generated code for the same layers.

usage: kernel-identity.py BEFORE_CACHE AFTER_CACHE PLAN...

BEFORE_CACHE and AFTER_CACHE are CORTADO_CACHE directories filled by compiling the same
networks for the same targets with two builds of cortado (for example before and after a
refactoring). Each PLAN is the output of `cortado info NET --plan --target T` from the newer
build; it names the layers. A kernel is matched across the caches by its generator, Halide
target and shape (the fields both signatures carry). Their objects are compared section by
section: the contents of every section with data (code, constants, the embedded PTX of GPU
kernels), and every relocation with the name of its symbol, once each `cortado_k_<hash>` name
is replaced by one placeholder. The names are content hashes of the signatures, which change
whenever the signature text does, and they reorder the symbol and string tables, so those
tables are compared only through the relocations that use them. The counters that Halide and
LLVM append to the names of a kernel's parallel closures (`_par_for_conv2d_14_s0_c__2`) count
what the process compiled before, so they are dropped from section and symbol names too, and
so is Halide's counter in the Func names of the error messages in read-only data (`concat$4`).
Prints one line per layer and exits 1 if any matched layer differs or has no match.
"""
import pathlib
import re
import struct
import sys

NAME = re.compile(rb"cortado_k_[0-9a-f]{16}")
PLACEHOLDER = b"cortado_k_" + b"0" * 16
FUNC_COUNTER = re.compile(rb"\$\d+")


def normalised_name(name):
    head, placeholder, suffix = NAME.sub(PLACEHOLDER, name).partition(PLACEHOLDER)
    return head + placeholder + re.sub(rb"_+", b"_", re.sub(rb"_+\d+", b"", suffix))


def parse_signature(text):
    """-> (generator, target, {field: value}) for either signature format."""
    parts = text.strip().split("|")
    if parts[0].startswith("cortado_"):  # generator|target|key=value|...
        fields = dict(p.split("=", 1) for p in parts[2:])
        for knob_or_transport in [k for k in fields if k.startswith("gpu_") or k in ("inputs.size", "coeff")]:
            del fields[knob_or_transport]
        return parts[0], parts[1], fields
    # op|shape fields;...|target|family|choice fields;...
    op, shape, target, _family, choice = parts[0], parts[1], parts[2], parts[3], parts[4]
    fields = dict(item.split("=", 1) for item in shape.split(";") if item)
    choice_fields = dict(item.split("=", 1) for item in choice.split(";") if item)
    if op in ("conv2d", "inner_product"):
        fields["relu"] = choice_fields["relu"]
        fields["relu_slope"] = choice_fields["relu_slope"]
    # One shape may be compiled for several activation layouts (channel-blocked or not).
    for layout in ("layout_in", "layout_out"):
        if layout in choice_fields:
            fields[layout] = choice_fields[layout]
    return "cortado_" + op, target, fields


def load(cache):
    kernels = {}
    for sig in pathlib.Path(cache).glob("cortado_k_*/signature.txt"):
        name = sig.parent.name.split("-")[0]
        kernels[name] = (parse_signature(sig.read_text()), sig.parent / (name + ".o"))
    return kernels


def normalised(path):
    """-> {section name: normalised bytes or relocations} of a 64-bit little-endian ELF object."""
    data = path.read_bytes()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def string(table, offset):
        start = sections[table][4] + offset
        return data[start:data.index(b"\0", start)]

    names = [normalised_name(string(shstrndx, s[0])) for s in sections]
    result = {}
    for index, (_, kind, _, _, offset, size, link, _, _, entsize) in enumerate(sections):
        if kind == 1:  # PROGBITS: code and data
            contents = NAME.sub(PLACEHOLDER, data[offset:offset + size])
            if names[index] == b".rodata" or names[index].startswith(b".rodata.str"):  # the error messages
                contents = FUNC_COUNTER.sub(b"$", contents)
            result[names[index]] = contents
        elif kind == 4:  # RELA: (offset, type, symbol, addend)
            symtab = sections[link]
            entries = []
            for r in range(size // entsize):
                r_offset, info, addend = struct.unpack_from("<QQq", data, offset + r * entsize)
                sym = symtab[4] + (info >> 32) * symtab[9]
                st_name, _, _, st_shndx = struct.unpack_from("<IBBH", data, sym)
                symbol = string(symtab[6], st_name) if st_name else names[st_shndx]
                entries.append((r_offset, info & 0xFFFFFFFF, normalised_name(symbol), addend))
            result[names[index]] = sorted(entries)
    return result


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    before, after = load(sys.argv[1]), load(sys.argv[2])
    failures = compared = 0
    for plan in sys.argv[3:]:
        lines = pathlib.Path(plan).read_text().splitlines()
        target_line = lines[0]
        for line in lines[1:]:  # after the target line: the per-forward summary, the header, the steps
            columns = line.split()
            # The summary lines ("per forward:", "machine model:", a GPU's "CUDA:"), the header, an
            # alias, or a concatenation done in place.
            if (len(columns) < 3 or columns[1] == "alias" or columns[0] == "step" or columns[0].endswith(":")
                    or line.startswith(("per forward:", "machine model:")) or line.endswith("no kernel)")):
                continue
            layer, kernel = columns[0], "cortado_k_" + columns[2]
            if kernel not in after:
                print(f"{plan}: {layer}: {kernel} is not in {sys.argv[2]}")
                failures += 1
                continue
            (generator, target, fields), new_object = after[kernel]
            matches = [obj for (g, t, f), obj in before.values()
                       if g == generator and t == target and f.items() <= fields.items() and set(f) == set(fields)]
            # Several kernels of one descriptor (a reused cache holds it under two schedule
            # versions): the new one is identical when one of them is.
            if len(matches) > 1:
                matches = [m for m in matches if normalised(m) == normalised(new_object)][:1] or matches
            if len(matches) != 1:
                print(f"{plan}: {layer}: {len(matches)} kernels match in {sys.argv[1]}")
                failures += 1
                continue
            same = normalised(matches[0]) == normalised(new_object)
            compared += 1
            failures += not same
            print(f"{'identical' if same else 'DIFFERENT'}  {pathlib.Path(plan).stem:10} {target:45} {layer:28} "
                  f"{new_object.stat().st_size:8} bytes")
    print(f"{compared} kernels compared, {failures} different or unmatched")
    sys.exit(1 if failures else 0)


main()
