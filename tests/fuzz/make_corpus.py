#!/usr/bin/env python3
"""Write the named regression inputs of tests/fuzz/corpus/:

    python3 tests/fuzz/make_corpus.py                       # the constructed ones
    python3 tests/fuzz/make_corpus.py --found ALGO FILE NAME  # one libFuzzer found

Every bug that fuzzing or an issue found gets an input here, encoded in
the format of the target's header comment (tests/fuzz/fuzz_solve.c,
tests/fuzz/fuzz_npy.c), so that `make check` replays it and a fixed bug
stays fixed. Inputs that libFuzzer found are kept as found: convert them
with `found(...)`, which only puts the algorithm's name in place of its
registry index (the rest of the input means the same batch).
"""
import math
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# fuzz_solve.c: special[] (entry bytes 128..191) and the parameter tables.
DBL_MAX = sys.float_info.max
DBL_MIN = sys.float_info.min
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 4.0, -4.0, 1.5, 1.0 / 3, 0.25,
           1e16, -1e16, 1e-16, -1e-16, 2.0**60, -2.0**60, 1e8, -1e8, 1e-8, DBL_MAX, -DBL_MAX,
           DBL_MAX / 2, -DBL_MAX / 2, DBL_MAX / 4, DBL_MIN, -DBL_MIN, 2.0**-1074, -2.0**-1074,
           DBL_MIN / 3, 1e300, -1e300, 1e-300, -1e-300, 1e308, -1e308, 1e-308, 6e307, -6e307,
           1e154, 1e-154, math.nan, math.inf, -math.inf, 2.0**-53, 1 + 2.0**-52, 1 - 2.0**-53,
           -1e-320, 2.05, 1e-310, 1e150, -1e150, 1e200, 1e-200, 1.5 * 2.0**-1022, 7.0, -3.0, 1e30,
           1e-30, 100.0, -100.0]
INT_TABLE = ["def", "min", "max", "min-1", "max+1", 0, 1, 2, 3, 5, 10, 30, 1000, 1e9, 2.5, -7,
             1e300, "nan"]

# flags (byte 1)
COMPLEX, PERIODIC, UNEQUAL, DOMINANT, PARAM_TEXT, PARAM_DIRECT, KEEP_CORNERS, SCALE = (
    1, 2, 4, 8, 16, 32, 64, 128)

# Parameters of each algorithm, in registry order (tridlab list).
NPARAMS = {"thomas": 0, "thomas_periodic": 0, "cr": 0, "pcr": 0, "jacobi": 2, "gtsv": 0,
           "hybrid_pcr": 0, "tridsolver": 4, "distd2": 1, "ptdma": 1, "pdd": 1, "rpdd": 2,
           "its": 3, "nshaped": 1, "thomas_cpu": 0, "thomas_periodic_cpu": 0}


def value(v):
    """One entry: (v - 64) / 16, a special value, or a raw double."""
    if math.isfinite(v) and -64 <= v * 16 < 64 and v * 16 == int(v * 16):
        if v != 0 or math.copysign(1, v) > 0:
            return bytes([int(v * 16) + 64])
    for k, s in enumerate(SPECIAL):
        if (s == v and math.copysign(1, s) == math.copysign(1, v)) or (
                math.isnan(s) and math.isnan(v)):
            return bytes([128 + k])
    return b"\xff" + struct.pack("<d", v)


def int_param(v):
    return bytes([INT_TABLE.index(v) + 1])


def solve_input(algo, n, flags=0, nsys=1, parts=1, eA=0, ex=0, params=None, sizes=None,
                systems=()):
    """systems: for each system, its (a, b, c, d) lists (complex: parts
    interleaved); missing values are random, from the input's hash.
    sizes: the partition size bytes (with UNEQUAL; 0xf0.. hostile sizes)."""
    params = params if params is not None else bytes(NPARAMS[algo])
    assert len(params) == NPARAMS[algo], algo
    out = b"\xff" + algo.encode() + b"\0"
    out += bytes([flags, n - 1, nsys - 1, (parts - 1) % 256, (eA // 8) & 0xff, (ex // 8) & 0xff])
    out += params + bytes(sizes or [])
    for system in systems:
        for arr in system:
            out += b"".join(value(v) for v in arr)
    return out


def found(algo, path):
    """An input libFuzzer found with a registry index, with the name instead."""
    data = open(path, "rb").read()
    return b"\xff" + algo.encode() + b"\0" + data[1:]


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


def solve_corpus():
    # Issue 9 item 1: a breakdown in Tridsolver's PCR reduced solve freed
    # the middle of its buffer (double free).
    write("solve", "issue9-1-tridsolver-pcr-breakdown", solve_input(
        "tridsolver", 6, flags=PARAM_TEXT, parts=3, params=bytes([3, 0, 0, 0]),
        systems=[([0, .5, .5, 0, 0, 0], [1] * 6, [1, 1, 0, 0, 0, 0], [1] * 6)]))
    # Item 2: the periodic 1x1 system a = 1.5, b = -1e16, c = 1e16, d = 3
    # (x = 2) gave x = 1.5 with status ok; and 2x2 corners that cancel.
    for algo in ("thomas_periodic", "thomas_periodic_cpu", "jacobi", "nshaped", "its"):
        write("solve", "issue9-2-periodic-1x1-" + algo, solve_input(
            algo, 1, flags=PERIODIC, systems=[([1.5], [-1e16], [1e16], [3])]))
        write("solve", "issue9-2-periodic-2x2-" + algo, solve_input(
            algo, 2, flags=PERIODIC,
            systems=[([-1e16, 1e16], [1.144, 3.36], [1e16, -1e16], [-0.764, -3.92])]))
    # Item 3: |x| near 6e307, where b x alone overflows: ratio inf before.
    plain = ["thomas", "cr", "pcr", "jacobi", "gtsv", "hybrid_pcr", "tridsolver", "distd2",
             "ptdma", "pdd", "rpdd", "its", "nshaped", "thomas_cpu"]
    for algo in plain:
        write("solve", "issue9-3-overflow-" + algo, solve_input(
            algo, 3, systems=[([0, 1, 1], [3, 3, 3], [1, 1, 0], [1.2e308, -6e307, 1.2e308])]))
    # Item 4: x = 1e-600 rounds to 0, the closest double.
    for algo in ("thomas", "gtsv", "jacobi", "cr", "pcr"):
        write("solve", "issue9-4-underflow-" + algo, solve_input(
            algo, 1, systems=[([0], [1e300], [0], [1e-300])]))
    # Fuzzing: CR's back substitution near the underflow threshold, rows
    # scaled 1e-162 and 1e138 (found complex; this is the real 3x3 form).
    write("solve", "fuzz-cr-underflow-amplified", solve_input(
        "cr", 3, systems=[([0, -4e138, 1e138], [1e-161, 6e138, 3e138], [3e-162, 1e138, 0],
                           [3e-323, 0, 0])]))
    # Fuzzing: N-shaped's substitution (SS) near the underflow threshold.
    write("solve", "fuzz-nshaped-underflow-amplified", solve_input(
        "nshaped", 3, systems=[([0, 3.738e-162, 1e138], [6e138, 1e-161, 3e138],
                                [-5.9399999999999995e+138, 0, 0], [0, 7 * 2.0**-1074, 0])]))
    # Fuzzing: PTDMA's reconstruction (Algorithm 2) near the underflow threshold.
    write("solve", "fuzz-ptdma-underflow-amplified", solve_input(
        "ptdma", 3, systems=[([0, 3.738e-162, 1e138], [6e138, 1e-161, 3e138],
                              [-5.9399999999999995e+138, 0, 0], [0, 7 * 2.0**-1074, 0])]))
    # Item 5: a billion fixed Jacobi sweeps on the reduced system.
    write("solve", "issue9-5-tridsolver-jacobi-iters-1e9", solve_input(
        "tridsolver", 50, flags=PARAM_TEXT | DOMINANT, parts=25,
        params=bytes([4]) + int_param(1e9) + bytes([0, 0])))
    # Issue 22 item 1: partition sizes SIZE_MAX and 21 on n = 20 add up to
    # 20 when the sum wraps around (size bytes 0xf1: SIZE_MAX; 0xf2: n minus
    # the sizes before, here 21); ptdma, distd2, tridsolver, hybrid_pcr
    # indexed past their arrays. Also SIZE_MAX + 1 + n in the middle.
    for algo in ("ptdma", "distd2", "tridsolver", "hybrid_pcr", "pdd", "rpdd", "its",
                 "nshaped"):
        write("solve", "issue22-1-wrapping-sizes-" + algo, solve_input(
            algo, 20, flags=UNEQUAL | DOMINANT, parts=2, sizes=[0xf1, 0xf2]))
        write("solve", "issue22-1-wrapping-sizes-mid-" + algo, solve_input(
            algo, 20, flags=UNEQUAL | DOMINANT, parts=3, sizes=[10, 0xfe, 0xf2]))


def npy(descr, shape, payload, version=1, fortran=False):
    dims = "(%s)" % (", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", dims)
    width = 2 if version == 1 else 4
    pad = (64 - (6 + 2 + width + len(header) + 1) % 64) % 64
    header = (header + " " * pad + "\n").encode()
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header + payload


def npy_corpus():
    f8 = struct.pack("<3d", 1.0, -2.5, 1e300)
    c16 = struct.pack("<4d", 1.0, 2.0, -0.0, math.inf)
    write("npy", "valid-1d-f8", npy("<f8", [3], f8))
    write("npy", "valid-2d-c16-v2", npy("<c16", [1, 2], c16, version=2))
    write("npy", "valid-2d-f8-v3", npy("<f8", [3, 1], f8, version=3))
    write("npy", "truncated-data", npy("<f8", [4], f8))
    write("npy", "trailing-bytes", npy("<f8", [2], f8))
    write("npy", "fortran-order", npy("<f8", [3], f8, fortran=True))
    write("npy", "three-d", npy("<f8", [1, 1, 3], f8))
    write("npy", "zero-dim", npy("<f8", [0], b""))
    write("npy", "big-endian", npy(">f8", [3], f8))
    write("npy", "huge-shape", npy("<f8", [2**62, 2**62], f8))
    write("npy", "bad-version", npy("<f8", [3], f8)[:6] + b"\x04\x00" + npy("<f8", [3], f8)[8:])


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--found":
        write("solve", sys.argv[4], found(sys.argv[2], sys.argv[3]))
    else:
        solve_corpus()
        npy_corpus()
