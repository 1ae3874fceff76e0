#!/bin/sh
# N-shaped's reduction (RD, RU, JU and the write-out of the block rows) with parts left out
# (docs/performance.md, "N-shaped: the verdict's measure taken in RD and SS"): a copy of
# optimized/cpu/nshaped_cpu.c built with PARTS = the sum of 1 (RD), 2 (RU, JU) and 4 (the
# write-out), timed on 8 slices of 2048 rows (in cache) and 4096 (from memory), one thread,
# aligned arrays. Run from the repository root after make; writes into a temporary directory.
set -e
t=$(mktemp -d)
sed -e 's|#include "cpu_internal.h"|#include "optimized/cpu/cpu_internal.h"|' \
    -e 's|#include "lanes.h"|#include "optimized/cpu/lanes.h"|' \
    -e 's|^  rd_down(m, L, a, b, c, d, pk, &chk, scan ? &w : NULL);|  if (PARTS \& 1) rd_down(m, L, a, b, c, d, pk, \&chk, scan ? \&w : NULL);|' \
    -e 's|^  ru_up_ju(m, L, a, b, c, d, pk, ju, &chk);|  if (PARTS \& 2) ru_up_ju(m, L, a, b, c, d, pk, ju, \&chk);|' \
    -e 's|^  for (size_t i0 = 0; i0 <= L; i0 += TL_LANES) { /\* packed|  for (size_t i0 = 0; (PARTS \& 4) \&\& i0 <= L; i0 += TL_LANES) { /* packed|' \
    -e 's|^void tl_cpu_nshaped_|void part_nshaped_|' \
    -e 's|  tl_cpu_nshaped_reduce_scan_d(|  part_nshaped_reduce_scan_d(|' \
    -e 's|  tl_cpu_nshaped_substitute_scan_d(|  part_nshaped_substitute_scan_d(|' \
    optimized/cpu/nshaped_cpu.c > "$t/k.c"
cat > "$t/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tridlab/cpu.h"
void part_nshaped_reduce_d(size_t m, size_t L, size_t nsys, const double *a, const double *b,
                           const double *c, const double *d, double *rows, double *ju,
                           unsigned char *bad);
static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv)
{
  size_t m = 2048, nsys = (size_t)atoi(argv[1]), n = m * nsys;
  int reps = atoi(argv[2]);
  double *v = aligned_alloc(64, 8 * n * sizeof *v), *a = v, *b = v + n, *c = v + 2 * n;
  double *d = v + 3 * n, *rows = v + 4 * n, best = 1e9;
  double *ju = malloc(3 * nsys * sizeof *ju);
  unsigned char *bad = calloc(nsys, 1);
  srand(1);
  for (size_t i = 0; i < n; i++)
    a[i] = rand() / (double)RAND_MAX, c[i] = rand() / (double)RAND_MAX, b[i] = 4 + a[i],
    d[i] = rand() / (double)RAND_MAX;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    part_nshaped_reduce_d(m, m - 1, nsys, a, b, c, d, rows, ju, bad);
    double t1 = now() - t0;
    best = t1 < best ? t1 : best;
  }
  printf("%s nsys %zu: %.2f ns per unknown (best of %d)\n", argv[3], nsys, 1e9 * best / n, reps);
  return 0;
}
C
for parts in 7 1 2 4 3; do
  cc -O3 -g -std=c11 -D_POSIX_C_SOURCE=200809L -ffp-contract=off -fno-math-errno -fopenmp \
     -Iinclude -I. -DPARTS=$parts -c "$t/k.c" -o "$t/k.o" 2>/dev/null
  cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude "$t/main.c" "$t/k.o" build/libtridlab.a \
     -fopenmp -llapacke -llapack -lblas -lm -o "$t/parts"
  OMP_NUM_THREADS=1 "$t/parts" 8 300 "parts $parts"
  OMP_NUM_THREADS=1 "$t/parts" 4096 5 "parts $parts"
done
rm -rf "$t"
