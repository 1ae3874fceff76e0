#!/bin/sh
# scripts/gpu-measure.sh -- on a machine with a GPU: build the device
# kernels, check them against the host emulation, verify the GPU backends
# on the gallery on the device, and run the GPU benchmark (docs/gpu.md,
# "Measuring on a device"). Results go to the folder given (default
# gpu-results/): device.txt, ptxas.txt, registers.md, device_test.txt,
# backends.txt, verify.txt, gpu-bench.csv. Exits non-zero if a build, the device test or a verify
# fails. Without a device the test programs say so and nothing is measured.
set -u
out=${1:-gpu-results}
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 2)
{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  cc --version 2>&1 | head -1
} > "$out/device.txt"
cat "$out/device.txt"
make -j"$jobs" gpu HIPCC= > "$out/build.txt" 2>&1 || { tail -40 "$out/build.txt"; exit 1; }
cp build/gpu/cuda/ptxas.txt "$out/" 2>/dev/null
rc=0
build/gpu/cuda/device_test > "$out/device_test.txt" 2>&1; t=$?
tail -3 "$out/device_test.txt"
[ $t = 0 ] || rc=1
: > "$out/verify.txt"
build/gpu/cuda/tridlab list 2>&1 | grep _gpu > "$out/backends.txt"  # backend "cuda" on a device
cat "$out/backends.txt"
cp build/gpu/cuda/ptxas.txt "$out/" 2>/dev/null && sh scripts/gpu-registers.sh "$out/ptxas.txt" > "$out/registers.md" 2>&1
for a in thomas_gpu pcr_gpu thomas_periodic_gpu hybrid_pcr_gpu distd2_gpu pdd_gpu spike_gpu; do
  build/gpu/cuda/tridlab verify --algo "$a" --quick >> "$out/verify.txt" 2>&1 || rc=1
done
grep -iE "silent|passed|backend|cuda" "$out/verify.txt" | head -20
build/gpu/cuda/tridlab-gpu-bench > "$out/gpu-bench.csv" 2>&1 || rc=1
cat "$out/gpu-bench.csv"
exit $rc
