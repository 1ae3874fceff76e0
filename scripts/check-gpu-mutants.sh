#!/bin/sh
# scripts/check-gpu-mutants.sh -- the planted bugs of tests/gpu/mutants.txt:
# for each, a copy of the GPU room whose kernels (gpu_kernels.h) one sed
# command has broken, built into tests/gpu/mutant_driver.c, which must
# report the kind of bug the line names in every thread and block order.
# Then the library's own kernels, which must run clean. (docs/gpu.md,
# "The checker".)
#
# Usage (from the Makefile): check-gpu-mutants.sh BUILD LIB_A, with CC,
# CPPFLAGS and LIBS in the environment.
set -u
build=$1
lib=$2
out=$build/mutants
mkdir -p "$out"
cflags="-std=c11 -D_POSIX_C_SOURCE=200809L -O1 -pthread"
fail=0
passed=0

# The driver against the library's kernels: every family clean.
$CC $CPPFLAGS $cflags -o "$out/clean" tests/gpu/mutant_driver.c "$lib" $LIBS || exit 1
families="thomas periodic pcr hybrid hybrid-chip distd2 distd2-slice distd2-compact pdd pdd-slice spike"
for family in $families; do
  if "$out/clean" "$family" clean > "$out/clean-$family.txt"; then
    passed=$((passed + 1))
  else
    echo "check-gpu-mutants: the $family kernels are not clean:"
    cat "$out/clean-$family.txt"
    fail=$((fail + 1))
  fi
done

# One mutant: build it, run it, say what it found.
mutant() {
  name=$1 family=$2 kind=$3 cmd=$4
  dir=$out/$name
  mkdir -p "$dir"
  cp optimized/gpu/*.c optimized/gpu/*.h "$dir/"
  sed -e "$cmd" optimized/gpu/gpu_kernels.h > "$dir/gpu_kernels.h"
  if cmp -s optimized/gpu/gpu_kernels.h "$dir/gpu_kernels.h"; then
    echo "check-gpu-mutants: $name: its sed command changes nothing (the kernels changed: update tests/gpu/mutants.txt)"
    return 1
  fi
  $CC $CPPFLAGS $cflags -c "$dir/gpu_entry.c" -o "$dir/gpu_entry.o" 2> "$dir/build.txt" &&
    $CC $CPPFLAGS $cflags -o "$dir/driver" tests/gpu/mutant_driver.c "$dir/gpu_entry.o" "$lib" \
      $LIBS 2>> "$dir/build.txt" || {
    echo "check-gpu-mutants: $name does not build:"
    cat "$dir/build.txt"
    return 1
  }
  if "$dir/driver" "$family" "$kind" > "$dir/run.txt"; then
    echo "  caught   $name ($family): $kind"
  else
    echo "check-gpu-mutants: $name ($family) was NOT caught as $kind:"
    cat "$dir/run.txt"
    return 1
  fi
}

# The mutants, TL_JOBS at a time (default: the processors), each one's
# output and verdict kept apart, then printed and counted in the list's
# order.
echo "check-gpu-mutants: planted bugs (tests/gpu/mutants.txt)"
tab=$(printf '\t')
grep -v '^#' tests/gpu/mutants.txt | grep -v '^[ $tab]*$' > "$out/list.txt"
jobs=${TL_JOBS:-$(nproc 2> /dev/null || echo 1)}
running=0
while read -r name family kind cmd; do
  (
    mutant "$name" "$family" "$kind" "$cmd" > "$out/$name.log" 2>&1
    echo $? > "$out/$name.rc"
  ) &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait
    running=0
  fi
done < "$out/list.txt"
wait
while read -r name family kind cmd; do
  cat "$out/$name.log"
  if [ "$(cat "$out/$name.rc" 2> /dev/null)" = 0 ]; then
    passed=$((passed + 1))
  else
    fail=$((fail + 1))
  fi
done < "$out/list.txt"
echo "check-gpu-mutants: $passed passed, $fail failed ($(echo $families | wc -w) clean families, $(wc -l < "$out/list.txt") mutants)"
[ "$fail" = 0 ]
