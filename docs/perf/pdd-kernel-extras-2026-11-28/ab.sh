#!/bin/bash
# The alternating runs of docs/performance.md, "The kernel's extras for
# PDD and RPDD": BASE and NEW are two built checkouts (make), OUT a folder.
#   BASE=... NEW=... bash ab.sh OUT
# Per pass, base then new: tridlab-mpi bench of pdd and rpdd on 1 and 2
# ranks (4096 systems x 4096 rows), then tridlab bench of thomas_cpu.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$1; mkdir -p "$out"
for pass in 1 2 3; do
  for v in base new; do
    B=$BASE/build; [ $v = new ] && B=$NEW/build
    for P in 1 2; do
      mpirun --bind-to none -n $P $B/tridlab-mpi bench --no-pingpong --no-gtsv --algo pdd,rpdd > "$out/mpi-$v-P$P-pass$pass.txt" 2>&1
    done
    $B/tridlab bench --kernels thomas_cpu --sizes 256,1024,4096 --unknowns 16777216 --threads 1,2 --precision double --quiet --csv "$out/thomas_cpu-$v-pass$pass.csv" > /dev/null 2>&1
  done
done
