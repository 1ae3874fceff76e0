#!/usr/bin/env python3
"""examples/ports/thomas_port.py -- the Thomas port in Python (numpy), the
form `tridlab validate --exec` runs (docs/ports.md):

    tridlab validate --exec 'python3 examples/ports/thomas_port.py {system} {out}'

Reads the system directory (a.npy b.npy c.npy d.npy, shape (n) or
(nsys, n); a `periodic` marker), writes x with the shape of d. Exit code:
0 solved, 3 solved outside its domain (neither row nor column diagonally
dominant), 2 zero pivot, 4 not handled (periodic). --conjugate-bug
conjugates the multiplier: right on real input, wrong on complex input,
and the validation catches it as SILENT on exactly those types.
"""
import os
import sys

import numpy as np


def dominant(a, b, c):
    """Weak dominance by rows or by columns (the corners are zero)."""
    n = len(b)
    row = np.abs(a) * (np.arange(n) > 0) + np.abs(c) * (np.arange(n) < n - 1)
    col = np.zeros(n)
    col[1:] += np.abs(c[:-1])
    col[:-1] += np.abs(a[1:])
    return bool(np.all(np.abs(b) >= row) or np.all(np.abs(b) >= col))


def thomas(a, b, c, d, conjugate_bug):
    """One system; returns (x, status) with status 0, 1 or 2."""
    n = len(b)
    bp = b.astype(np.result_type(b, d, complex if np.iscomplexobj(d) else float))
    x = d.astype(bp.dtype)
    for i in range(1, n):
        if bp[i - 1] == 0:
            return x, 2
        w = a[i] / bp[i - 1]
        if conjugate_bug:
            w = np.conj(w)  # the bug: as if the multiplier were real
        bp[i] = b[i] - w * c[i - 1]
        x[i] = d[i] - w * x[i - 1]
    if bp[n - 1] == 0:
        return x, 2
    x[n - 1] /= bp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = (x[i] - c[i] * x[i + 1]) / bp[i]
    return x, 0 if dominant(a, b, c) else 1


def main():
    system, out = sys.argv[1], sys.argv[2]
    conjugate_bug = "--conjugate-bug" in sys.argv[3:]
    if os.path.exists(os.path.join(system, "periodic")):
        return 4
    a, b, c, d = (np.load(os.path.join(system, k + ".npy")) for k in "abcd")
    cplx = any(np.iscomplexobj(v) for v in (a, b, c, d))
    dt = np.complex128 if cplx else np.float64
    a, b, c, d = (np.atleast_2d(v).astype(dt) for v in (a, b, c, d))
    x = np.empty_like(d)
    status = 0
    for s in range(d.shape[0]):
        x[s], st = thomas(a[s], b[s], c[s], d[s], conjugate_bug)
        if st == 2:
            print("zero pivot")
            return 2
        status = max(status, st)
    np.save(out, x.reshape(np.load(os.path.join(system, "d.npy")).shape))
    if status:
        print("not diagonally dominant")
    return 3 if status else 0


if __name__ == "__main__":
    sys.exit(main())
