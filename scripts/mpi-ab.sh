#!/bin/bash
# Before/after runs of the MPI rank programs, alternating, for the
# comparisons of docs/performance.md ("MPI"). BASE and NEW are two built
# checkouts (make); per pass, before then after, tridlab-mpi bench of the
# algorithms ALGO on each rank count of RANKS, 4096 systems of 4096 rows.
#
#   BASE=../before NEW=. ALGO=distd2 bash scripts/mpi-ab.sh > run.txt
#
# ALGO: a comma-separated list (default: every MPI algorithm); RANKS
# (default "1 2"); PASSES (default 3). Each line of output is the bench's
# row, after a "== pass N before|after P=..." header.
set -u
: "${BASE:?BASE: a built checkout (before)}" "${NEW:?NEW: a built checkout (after)}"
ALGO=${ALGO:-}
RANKS=${RANKS:-1 2}
PASSES=${PASSES:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
date -u
uptime
for pass in $(seq 1 "$PASSES"); do
  for v in before after; do
    B=$BASE
    [ "$v" = after ] && B=$NEW
    for P in $RANKS; do
      echo "== pass $pass $v P=$P"
      mpirun --bind-to none -n "$P" "$B/build/tridlab-mpi" bench --no-pingpong --no-gtsv --no-packed \
        ${ALGO:+--algo "$ALGO"} 2>&1 | grep "_mpi \|^algorithm"
    done
  done
done
date -u
uptime
