#!/bin/sh
# Append the Poisson/Helmholtz mini-app's section to a report (make report):
# the convergence study of both modes on a 1x2 process grid (table, CSV,
# gnuplot plot) and the largest error of one resolution on every grid that
# two ranks make, by the default algorithm and by the transpose route.
#
#   scripts/report-poisson.sh POISSON_BINARY REPORT_DIR
#
# mpirun's variables for root and oversubscription come from the caller
# (the Makefile's MPI_ENV). Every run is under `timeout`: nothing hangs.
set -eu
bin=$1
out=$2
md=$out/index.md
run() { timeout -k 5 300 mpirun --bind-to none -n "$@"; }

{
  echo
  echo "## Poisson/Helmholtz mini-app (MPI, FFTW)"
  echo
  echo "CaNS's method on a process grid (docs/poisson.md): FFTs along x and y, one tridiagonal"
  echo "system along z per wavenumber pair. Computed on this machine:"
  echo "$(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')."
  echo
  for mode in poisson helmholtz; do
    echo "Convergence, $mode, grid 1x2 (order 2 expected):"
    echo
    echo '```'
    run 2 "$bin" --grid 1x2 --mode "$mode" --study "$out/$mode-convergence"
    echo '```'
    echo
    echo "![$mode convergence]($mode-convergence.png)"
    echo
  done
  echo "The same problem (n = 32) on every grid of two ranks; the error must not change:"
  echo
  echo '```'
  run 1 "$bin" --grid 1x1 --n 32 --reps 1 | sed -n '1p;3p'
  for g in 1x2 2x1; do
    run 2 "$bin" --grid "$g" --n 32 --reps 1 | sed -n '1p;3p'
    run 2 "$bin" --grid "$g" --n 32 --reps 1 --route transpose | sed -n '1p;3p'
  done
  echo '```'
} >> "$md"
echo "report-poisson: appended to $md"
