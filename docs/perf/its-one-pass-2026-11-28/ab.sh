#!/bin/bash
# The alternating runs of docs/performance.md, "ITS: the verdict's
# numbers and the residual's norms in one pass": BASE and NEW are two
# built checkouts (make). Per pass, before then after: tridlab-mpi bench
# of its on 1 and 2 ranks, 4096 systems of 4096 rows.
#   BASE=... NEW=... bash ab.sh > run.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
date -u; uptime
for pass in 1 2 3; do
  for v in before after; do
    B=$BASE; [ $v = after ] && B=$NEW
    for P in 1 2; do
      echo "== pass $pass $v P=$P"
      mpirun --bind-to none -n $P "$B/build/tridlab-mpi" bench --no-pingpong --no-gtsv --no-packed \
        --algo its 2>&1 | grep "_mpi\|^algorithm"
    done
  done
done
date -u; uptime
