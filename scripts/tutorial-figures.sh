#!/bin/sh
# scripts/tutorial-figures.sh -- the pictures the tutorials show, made by
# the commands the pages show (gnuplot draws them), into
# tutorials/figures/. `make tutorial-figures` runs it, and so does `make
# check-tutorials`: it fails when a figure cannot be made. The committed
# PNGs are this script's output. 10's are timings, different bytes on
# every run (a shape, not numbers): only `make tutorial-figures` (this
# script with --timed) replaces the committed one; `make check` makes it
# and checks it, leaving the tree as it was. Run from the repository root
# after `make`.
set -eu
timed=0
[ "${1:-}" = "--timed" ] && timed=1
out=tutorials/figures
work=$(mktemp -d "${TMPDIR:-/tmp}/tridlab-figures-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cli=build/tridlab

# fig SOURCE NAME: copy a figure a command made, failing if it did not.
fig() {
  if [ ! -s "$1" ]; then
    echo "tutorial-figures: $2: no figure made (is gnuplot installed?)" >&2
    exit 1
  fi
  cp "$1" "$out/$2"
  echo "tutorial-figures: $out/$2"
}

# 03: PDD's spikes on a dominant matrix, the dropped entries circled.
$cli trace --algo pdd --n 24 --parts 3 --type 23 --png "$work/pdd" > /dev/null
fig "$work/pdd-01.png" 03-pdd-spikes.png
# 03: the error against the rows per partition: sigma^-m, a straight line.
$cli sweep dominance --quick --out "$work/sw" --lambda 2.5,4 > /dev/null
fig "$work/sw/dominance_m.png" 03-pdd-decay.png
# 03b: the same spikes on the indefinite tridiag(1, 1.5, 1): no decay.
$cli trace --algo pdd --n 24 --parts 3 --type 25 --png "$work/pdd25" > /dev/null
fig "$work/pdd25-01.png" 03b-spikes-no-decay.png
# 04: DistD2's order study on 8 partitions.
$cli converge --algo distd2 --parts 8 --nmin 16 --nmax 512 --plot "$work/conv.png" > /dev/null
fig "$work/conv.png" 04-distd2-order.png
# 05: ITS's error against the truncation J, beside paper 003's Table 3.
$cli sweep its-nonconst --out "$work/its" > /dev/null
fig "$work/its/its_nonconst.png" 05-its-error.png
# 06: N-shaped's stages on 16 rows in 4 partitions: RD/RU, then JU/JD.
$cli trace --algo nshaped --n 16 --parts 4 --type 23 --png "$work/ns" > /dev/null
fig "$work/ns-01.png" 06-nshaped-rd-ru.png
fig "$work/ns-02.png" 06-nshaped-ju-jd.png
# 07: the heat solution at T and its error against the analytic one.
build/examples/adi_heat thomas --plot "$work/heat" > /dev/null
fig "$work/heat.png" 07-adi-heat.png
# 09: the ledger as a picture: PDD's neighbour waves, hybrid PCR's fans
# into and out of rank 0, each beside the verdict's allreduces.
$cli trace --algo pdd --n 300 --parts 3 --type 23 --ledger-png "$work/pdd-ledger" > /dev/null
fig "$work/pdd-ledger.png" 09-ledger-pdd.png
$cli trace --algo hybrid_pcr --n 256 --parts 4 --type 23 --ledger-png "$work/hpcr-ledger" > /dev/null
fig "$work/hpcr-ledger.png" 09-ledger-hybrid-pcr.png
# 10: time per unknown against n, a line per layout: a quick run (about a
# second; its times are a shape, the page says so).
$cli bench --sizes 32,64,128,256,512,1024,2048 --unknowns 524288 --reps 5 \
  --threads 1 --kernels thomas_sz,thomas_3d,thomas_3d_naive --dirs x --precision double \
  --quiet --csv "$work/layouts.csv" --plot "$work/layouts" 2> /dev/null
if [ "$timed" = 1 ]; then
  fig "$work/layouts.png" 10-layouts.png
elif [ -s "$work/layouts.png" ]; then
  echo "tutorial-figures: 10-layouts.png made (timings: the committed one kept; make tutorial-figures replaces it)"
else
  echo "tutorial-figures: 10-layouts.png: no figure made (is gnuplot installed?)" >&2
  exit 1
fi
# 11: PCR's kernel as regions: which thread handles which row in each
# region, recorded on the host's emulator.
build/examples/gpu_regions --plot "$work/regions" > /dev/null
fig "$work/regions.png" 11-pcr-regions.png
