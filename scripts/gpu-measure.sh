#!/bin/sh
# scripts/gpu-measure.sh -- on a machine with a GPU: build the device
# kernels, run the GPU benchmark, check the kernels against the host
# emulation, verify the GPU backends on the gallery on the device
# (docs/gpu.md, "Measuring on a device"). Results go to the folder given
# (default gpu-results/), each file as soon as its step ends: device.txt,
# gpu-bench.csv, device_test.txt, backends.txt, verify.txt, ptxas.txt,
# registers.md, and verify-mpi.txt and bench-mpi.txt/.csv where the device build of tridlab-mpi
# and mpirun are there; where compute-sanitizer is, sanitizer.txt (its
# initcheck, memcheck and racecheck over every GPU backend on hostile
# gallery types); where Nsight Compute (ncu) is, counters.csv (the
# benchmark's kernels under the profiler, once per n) and counters.md
# (the same as a table: scripts/gpu-counters.py). Exits non-zero if a
# build, the device test, a verify or a sanitizer check fails. Without a
# device the test programs say so and nothing is measured.
#
#   sh scripts/gpu-measure.sh [folder]
#
# TL_GPU_PREBUILT=1: use the binaries already in build/gpu/cuda (made by
# `make gpu` on another machine with the same CUDA) when they load here,
# instead of building. TL_GPU_STEP_LIMIT: seconds each step may run
# (default 300). TL_GPU_STEPS: the steps to run, of bench, test, verify,
# mpi, sanitize, counters (default: all of them), e.g. TL_GPU_STEPS=counters
# to measure the counters again.
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
steps=$(echo "${TL_GPU_STEPS:-all}" | tr ',' ' ')
for s in $steps; do
  case $s in all | bench | test | verify | mpi | sanitize | counters) ;;
  *)
    echo "gpu-measure: TL_GPU_STEPS: no step '$s' (bench test verify mpi sanitize counters)" >&2
    exit 2
    ;;
  esac
done
want() { case " $steps " in *" all "* | *" $1 "*) return 0 ;; esac; return 1; }
if want bench; then
  timeout "$limit" $bin/tridlab-gpu-bench > "$out/gpu-bench.csv" 2>&1 || rc=1
  cat "$out/gpu-bench.csv"
fi
if want test; then
  timeout "$limit" $bin/device_test > "$out/device_test.txt" 2>&1; t=$?
  tail -3 "$out/device_test.txt"
  [ $t = 0 ] || rc=1
fi
if want verify; then
  : > "$out/verify.txt"
  $bin/tridlab list 2>&1 | grep _gpu > "$out/backends.txt" # backend "cuda" on a device
  cat "$out/backends.txt"
  for a in thomas_gpu pcr_gpu thomas_periodic_gpu hybrid_pcr_gpu distd2_gpu pdd_gpu spike_gpu; do
    echo "== $a" >> "$out/verify.txt"
    timeout "$limit" $bin/tridlab verify --algo "$a" --quick >> "$out/verify.txt" 2>&1 || rc=1
    tail -1 "$out/verify.txt"
  done
fi
# The device build of tridlab-mpi, where mpicc built it: the GPU
# algorithms on 1 to 4 ranks sharing the device.
if want mpi && [ -x $bin/tridlab-mpi ] && command -v mpirun > /dev/null; then
  : > "$out/verify-mpi.txt"
  for p in 1 2 3 4; do
    echo "== $p ranks" >> "$out/verify-mpi.txt"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
      timeout "$limit" mpirun --oversubscribe -n $p $bin/tridlab-mpi verify --gpu \
      >> "$out/verify-mpi.txt" 2>&1 || rc=1
    tail -1 "$out/verify-mpi.txt"
  done
  # The GPU rank programs and the compact scheme on the GPU kernels,
  # timed on 2 ranks sharing the device (2^22 unknowns, n = 1024).
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
    timeout "$limit" mpirun --oversubscribe --bind-to none -n 2 $bin/tridlab-mpi bench \
    --algo pdd_gpu_mpi,distd2_gpu_mpi --n 1024 --unknowns 4194304 --reps 5 --compact --gpu \
    --no-packed --no-gtsv --no-pingpong --csv "$out/bench-mpi.csv" > "$out/bench-mpi.txt" 2>&1 ||
    rc=1
  tail -4 "$out/bench-mpi.txt"
fi
# NVIDIA's own checkers on the device, beside the emulator's: a word
# read before any write (initcheck, device memory copied back included),
# an access out of bounds (memcheck), a shared-memory hazard (racecheck).
# Each backend on types it takes: 20 (dominant) and 39 (an exact zero
# pivot: the breakdown paths); periodic, 50 (dominant) and 56 (singular);
# sizes 17 and 1000, P = 1 and 4.
if want sanitize && command -v compute-sanitizer > /dev/null; then
  : > "$out/sanitizer.txt"
  for tool in initcheck memcheck racecheck; do
    for a in thomas_gpu pcr_gpu thomas_periodic_gpu hybrid_pcr_gpu distd2_gpu pdd_gpu spike_gpu; do
      case $a in
      thomas_periodic_gpu) types="50 56" ;;
      distd2_gpu) types="20 39 50 56" ;;
      *) types="20 39" ;;
      esac
      for t in $types; do
        timeout "$limit" compute-sanitizer --tool $tool --print-limit 5 --error-exitcode 9 \
          $bin/tridlab verify --algo $a --type $t --sizes 17,1000 --nsys 3 --parts 1,4 --quiet \
          > "$out/sanitizer.log" 2>&1
        s=$?
        echo "$tool $a type $t: rc $s; $(grep -E 'verify:|SUMMARY' "$out/sanitizer.log" | tr '\n' ' ')" \
          >> "$out/sanitizer.txt"
        grep -E 'Uninitialized|Invalid|Hazard|Error' "$out/sanitizer.log" | head -5 >> "$out/sanitizer.txt"
        [ $s = 0 ] || rc=1
      done
    done
  done
  rm -f "$out/sanitizer.log"
  grep -c 'rc 0;' "$out/sanitizer.txt" | sed 's/$/ sanitizer runs clean/'
fi
# Hardware counters: every kernel of the benchmark launched twice (a
# warm-up and one timed run) under Nsight Compute, with the clocks left
# alone; the metrics this ncu knows of the list below.
if want counters && command -v ncu > /dev/null; then
  known=$(ncu --query-metrics 2>/dev/null)
  metrics=
  for m in gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum \
    dram__throughput.avg.pct_of_peak_sustained_elapsed \
    sm__warps_active.avg.pct_of_peak_sustained_active smsp__inst_executed.sum \
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum; do
    echo "$known" | grep -q "^${m%%.*} " && metrics="$metrics,$m"
  done
  if [ -z "$metrics" ]; then
    echo "gpu-measure: ncu knows none of the metrics asked for; no counters"
  else
    : > "$out/counters.csv"
    for n in 256 1024 4096; do
      timeout "$limit" ncu --clock-control none --csv --print-units base --metrics "${metrics#,}" \
        $bin/tridlab-gpu-bench --n $n --reps 1 > "$out/counters.log" 2>&1 || rc=1
      grep '^==ERROR==' "$out/counters.log" && rc=1 # ncu's own failures, e.g. no access to the counters
      grep -v '^==' "$out/counters.log" >> "$out/counters.csv"
    done
    rm -f "$out/counters.log"
    python3 scripts/gpu-counters.py "$out/counters.csv" > "$out/counters.md" || rc=1
    cat "$out/counters.md"
  fi
fi
exit $rc
