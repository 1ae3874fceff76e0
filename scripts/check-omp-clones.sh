#!/bin/sh
# No vector arithmetic in the body of an OpenMP region of the library
# (make check-omp-clones; run from the repository root, after the build).
#
# WHY. GCC outlines the body of an OpenMP region into a function of its
# own (NAME._omp_fn.N), and target_clones (TL_CPU_CLONES, which builds a
# kernel for the baseline, AVX2 and AVX-512 and picks one when the library
# is loaded) does not reach it: what is written inside the region is built
# for the baseline x86-64, two doubles an SSE2 instruction, whatever the
# machine. The kernels therefore call a cloned function from their
# regions. DistD2's packed decoupling and the same-traffic limits once did
# their work inside the region: the compact scheme across ranks took 2.2-2.5
# times the fused kernel on an AVX-512 machine (docs/performance.md, "MPI").
#
# This lists every outlined region of the library ($1, default
# build/libtridlab.a) holding more than 8 packed SSE arithmetic
# instructions (addpd, mulps, ... on xmm registers: the regions above held
# 18 to 153; a region that only hands out work may have one or two) and
# exits 1 if there is one. Elsewhere than x86-64, or
# without objdump, it says so and passes.
lib=${1:-build/libtridlab.a}
if ! command -v objdump >/dev/null 2>&1; then
  echo "check-omp-clones: no objdump, skipped"
  exit 0
fi
case $(uname -m) in
x86_64) ;;
*)
  echo "check-omp-clones: not x86-64, skipped"
  exit 0
  ;;
esac
[ -f "$lib" ] || {
  echo "check-omp-clones: $lib not found (build first)"
  exit 1
}
found=$(objdump -d --no-show-raw-insn "$lib" | awk '
  />:$/ { f = $2 }
  /\t(v?(add|sub|mul|div)p[sd])[ \t].*%xmm/ && f ~ /_omp_fn/ { n[f]++ }
  END { for (f in n) if (n[f] > 8) printf "  %s %d packed SSE instructions\n", f, n[f] }')
if [ -n "$found" ]; then
  echo "check-omp-clones: OpenMP regions built for the baseline (call a TL_CPU_CLONES function from the region):"
  echo "$found"
  exit 1
fi
echo "check-omp-clones: no vector arithmetic inside an OpenMP region"
