#!/bin/sh
# Append the cost model's section to a report (make report): the model
# against a measurement on this machine (one run, --quick sizes: a check,
# not a figure) and the projections of papers 000, 001 and 003 on
# published machines with the papers' own figures (docs/model.md).
#
#   scripts/report-model.sh TRIDLAB_MPI_BINARY REPORT_DIR
#
# mpirun's variables for root and oversubscription come from the caller
# (the Makefile's MPI_ENV). Every run is under `timeout`: nothing hangs.
# The projections stop at 2048 ranks to keep the report quick (the
# ledger models of 8192 and 16384 ranks take minutes); docs/model.md has
# the full range.
set -eu
bin=$1
out=$2
md=$out/index.md

{
  echo
  echo "## Cost model (MPI)"
  echo
  echo "The alpha-beta-gamma model of every MPI algorithm (docs/model.md). Against a"
  echo "measurement in one run on this machine, $(nproc) cores, load average"
  echo "$(cut -d' ' -f1 /proc/loadavg) at the start (the --quick sizes: a check of the command):"
  echo
  echo '```'
  timeout -k 5 600 mpirun --bind-to none -n 2 "$bin" model --quick
  echo '```'
  echo
  echo "Projections (published machine figures, not measured here), up to 2048 ranks:"
  echo
  echo '```'
  timeout -k 5 600 "$bin" model --project --max-ranks 2048 --out "$out/model"
  echo '```'
  echo
  for p in 000 001 003; do
    echo "![paper $p projection](model-$p.png)"
    echo
  done
} >> "$md"
echo "report-model: appended to $md"
