#!/bin/sh
# scripts/gpu-measure.sh -- on a machine with a GPU: build the device
# kernels, run the GPU benchmark, check the kernels against the host
# emulation, verify the GPU backends on the gallery on the device
# (docs/gpu.md, "Measuring on a device"). Results go to the folder given
# (default gpu-results/), each file as soon as its step ends: device.txt,
# gpu-bench.csv, device_test.txt, backends.txt, verify.txt, ptxas.txt,
# registers.md, and verify-mpi.txt where the device build of tridlab-mpi
# and mpirun are there. Exits non-zero if a build, the device test or a verify
# fails. Without a device the test programs say so and nothing is
# measured.
#
#   sh scripts/gpu-measure.sh [folder]
#
# TL_GPU_PREBUILT=1: use the binaries already in build/gpu/cuda (made by
# `make gpu` on another machine with the same CUDA) when they load here,
# instead of building. TL_GPU_STEP_LIMIT: seconds each step may run
# (default 300).
set -u
out=${1:-gpu-results}
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 2)
limit=${TL_GPU_STEP_LIMIT:-300}
bin=build/gpu/cuda
{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  cc --version 2>&1 | head -1
} > "$out/device.txt"
cat "$out/device.txt"
loads() { [ -x "$1" ] && ! ldd "$1" 2>/dev/null | grep -q 'not found'; }
if [ "${TL_GPU_PREBUILT:-0}" = 1 ] && loads $bin/tridlab && loads $bin/device_test &&
  loads $bin/tridlab-gpu-bench; then
  echo "gpu-measure: the binaries in $bin, built before" | tee -a "$out/device.txt"
else
  make -j"$jobs" gpu HIPCC= > "$out/build.txt" 2>&1 || { tail -40 "$out/build.txt"; exit 1; }
fi
cp $bin/ptxas.txt "$out/" 2>/dev/null && sh scripts/gpu-registers.sh "$out/ptxas.txt" > "$out/registers.md" 2>&1
rc=0
timeout "$limit" $bin/tridlab-gpu-bench > "$out/gpu-bench.csv" 2>&1 || rc=1
cat "$out/gpu-bench.csv"
timeout "$limit" $bin/device_test > "$out/device_test.txt" 2>&1; t=$?
tail -3 "$out/device_test.txt"
[ $t = 0 ] || rc=1
: > "$out/verify.txt"
$bin/tridlab list 2>&1 | grep _gpu > "$out/backends.txt" # backend "cuda" on a device
cat "$out/backends.txt"
for a in thomas_gpu pcr_gpu thomas_periodic_gpu hybrid_pcr_gpu distd2_gpu pdd_gpu spike_gpu; do
  echo "== $a" >> "$out/verify.txt"
  timeout "$limit" $bin/tridlab verify --algo "$a" --quick >> "$out/verify.txt" 2>&1 || rc=1
  tail -1 "$out/verify.txt"
done
# The device build of tridlab-mpi, where mpicc built it: the GPU
# algorithms on 1 to 4 ranks sharing the device.
if [ -x $bin/tridlab-mpi ] && command -v mpirun > /dev/null; then
  : > "$out/verify-mpi.txt"
  for p in 1 2 3 4; do
    echo "== $p ranks" >> "$out/verify-mpi.txt"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
      timeout "$limit" mpirun --oversubscribe -n $p $bin/tridlab-mpi verify --gpu \
      >> "$out/verify-mpi.txt" 2>&1 || rc=1
    tail -1 "$out/verify-mpi.txt"
  done
fi
exit $rc
