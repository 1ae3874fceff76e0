#!/bin/sh
# No vector arithmetic built for the baseline inside an OpenMP region of
# the library (the first step of make check-unit; run from the repository
# root, after the build).
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
# instructions (addpd, mulps, ... without the VEX prefix, on xmm
# registers: the regions above held 18 to 153; a region that only hands
# out work may have one or two) and exits 1 if there is one. Arithmetic
# only: a region that only moves data (the copy stream was one) is not
# caught. A build for one machine (-march=native, the sanitized build's)
# has VEX instructions only and passes. Elsewhere than x86-64, without
# objdump, or for a library with no outlined region it can read (clang
# names them .omp_outlined.; link-time objects have no code), it says so
# and passes.
lib=${1:-build/libtridlab.a}
case $(uname -m) in
x86_64 | amd64) ;;
*)
  echo "check-omp-clones: not x86-64, skipped"
  exit 0
  ;;
esac
if ! command -v objdump >/dev/null 2>&1; then
  echo "check-omp-clones: no objdump, skipped"
  exit 0
fi
[ -f "$lib" ] || {
  echo "check-omp-clones: $lib not found (build first)"
  exit 1
}
dis=$(mktemp) || exit 1
trap 'rm -f "$dis"' EXIT
objdump -d --no-show-raw-insn "$lib" >"$dis" || {
  echo "check-omp-clones: objdump could not read $lib"
  exit 1
}
awk '
  /file format/ { o = $1 }
  />:$/ { f = $2; if (f ~ /_omp_fn|omp_outlined/) regions++ }
  /\t(add|sub|mul|div)p[sd][ \t].*%xmm/ && f ~ /_omp_fn|omp_outlined/ { n[o " " f]++ }
  END {
    if (!regions) {
      print "check-omp-clones: no OpenMP region found in the disassembly, nothing checked"
      exit 0
    }
    bad = 0
    for (k in n)
      if (n[k] > 8) {
        if (!bad)
          print "check-omp-clones: OpenMP regions built for the baseline (call a TL_CPU_CLONES function from the region):"
        printf "  %s %d packed SSE instructions\n", k, n[k]
        bad = 1
      }
    if (bad)
      exit 1
    printf "check-omp-clones: no vector arithmetic inside the %d OpenMP regions\n", regions
  }' "$dis"
