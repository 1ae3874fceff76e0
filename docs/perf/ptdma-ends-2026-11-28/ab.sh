#!/bin/bash
# The alternating runs of docs/performance.md, "P-TDMA's phases without
# their arrays": BASE and NEW are two built checkouts (make), OUT a folder.
#   BASE=... NEW=... bash ab.sh OUT
# Per pass, base then new: tridlab-mpi bench of ptdma on 1 and 2 ranks,
# 4096 systems of 4096 rows, and on 1 rank 4096 systems of 4000 rows
# (no array a power of two bytes apart).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$1; mkdir -p "$out"
for pass in 1 2 3; do
  for v in base new; do
    B=$BASE/build; [ $v = new ] && B=$NEW/build
    for P in 1 2; do
      mpirun --bind-to none -n $P $B/tridlab-mpi bench --no-pingpong --no-gtsv --algo ptdma > "$out/mpi-$v-P$P-pass$pass.txt" 2>&1
    done
    mpirun --bind-to none -n 1 $B/tridlab-mpi bench --n 4000 --unknowns 16384000 --no-pingpong --no-gtsv --algo ptdma > "$out/mpi-$v-P1-n4000-pass$pass.txt" 2>&1
  done
done
