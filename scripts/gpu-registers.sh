#!/bin/sh
# scripts/gpu-registers.sh -- the table of registers per thread of the GPU
# kernels, from nvcc's report (make gpu writes it to
# build/gpu/cuda/ptxas.txt), as docs/gpu.md shows it:
#
#   make gpu && sh scripts/gpu-registers.sh [build/gpu/cuda/ptxas.txt]
#
# One row per kernel, in the order of gpu_kernels.h; columns sm_80 and
# sm_90, double and float ("–": a kernel built in double only); the shared memory each kernel asks for, from
# its launch (gpu_entry.c).
set -eu
ptxas=${1:-build/gpu/cuda/ptxas.txt}
[ -r "$ptxas" ] || { echo "gpu-registers: no $ptxas (run make gpu where nvcc is)" >&2; exit 1; }
# "<arch> <kernel>_<d|f> <registers>" per compiled kernel
awk "
  /Compiling entry function/ {
    match(\$0, /function '[^']*'/); f = substr(\$0, RSTART + 10, RLENGTH - 11)
    match(\$0, /for 'sm_[0-9]*'/); arch = substr(\$0, RSTART + 5, RLENGTH - 6)
  }
  /Used [0-9]+ registers/ && f != \"\" {
    match(\$0, /Used [0-9]+ registers/); r = substr(\$0, RSTART + 5, RLENGTH - 15)
    print arch, f, r; f = \"\"
  }" "$ptxas" > "${TMPDIR:-/tmp}/gpu-registers.$$"
regs() { # arch, kernel name, precision
  sed -n "s/^$1 _Z[0-9]*$2_$3[a-zA-Z].* \([0-9]*\)\$/\1/p" "${TMPDIR:-/tmp}/gpu-registers.$$" | head -n 1
}
echo "| kernel | sm_80 double | sm_80 float | sm_90 double | sm_90 float | shared memory per block |"
echo "|---|---|---|---|---|---|"
while IFS='|' read -r kernel shared; do
  f80=$(regs sm_80 "$kernel" f) f90=$(regs sm_90 "$kernel" f)
  echo "| \`$kernel\` | $(regs sm_80 "$kernel" d) | ${f80:-–} | $(regs sm_90 "$kernel" d) | ${f90:-–} | $shared |"
done <<'KERNELS'
thomas_sz_kernel|0
periodic_sz_kernel|0
pcr_kernel|16 T B + 8n values (≤ 48 KiB), else 16 T B
hybrid_kernel|32 P B
hybrid_chip_kernel|8 P B + the largest of 4 x a round's padded rows, 8 P, padded n values (≤ 48 KiB)
distd2_decouple_kernel|0
distd2_finish_kernel|0
distd2_compact_decouple_kernel|0
distd2_compact_substitute_kernel|0
distd2_slice_decouple_kernel|0
distd2_slice_substitute_kernel|0
pdd_local_kernel|0
pdd_slice_local_kernel|0
pdd_slice_ends_kernel|0
pdd_slice_correct_kernel|0
spike_local_kernel|0
KERNELS
rm -f "${TMPDIR:-/tmp}/gpu-registers.$$"
