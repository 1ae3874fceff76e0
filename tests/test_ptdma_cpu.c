/* tests/test_ptdma_cpu.c -- the batched P-TDMA phases
 * (optimized/cpu/ptdma_cpu.c) against the reference phases they run
 * (reference/ptdma_ref.c): the same bits in every system, the same
 * systems flagged, at every size around the tile and group edges, for a
 * first, middle and last partition, plain and periodic. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/cpu.h"
#include "tridlab/part_ptdma.h"
#include "helpers.h"
#include "tridlab/verify.h"

/* Partition q of 3 (rows [q m, (q+1) m) of n = 3 m) of nsys dominant
 * systems; broken_sys < nsys gets a zero pivot in row `row` (B = 0 and
 * A = 0 there, so no elimination can rescue it). */
static void compare(size_t m, size_t nsys, int q, int periodic, size_t broken_sys, size_t row,
                    uint64_t seed)
{
  size_t cnt = m * nsys, n = 3 * m, begin = (size_t)q * m;
  double *v = th_dominant_slices(m, nsys, seed);
  double *A = v, *B = v + cnt, *C = v + 2 * cnt, *D = v + 3 * cnt;
  if (broken_sys < nsys)
    B[broken_sys * m + row] = 0.0, A[broken_sys * m + row] = 0.0;
  double *out = calloc(4 * cnt, sizeof *out), *ref = calloc(4 * cnt, sizeof *ref);
  unsigned char *bad = calloc(nsys, 1), *rbad = calloc(nsys, 1);
  tl_cpu_ptdma_init_d(n, periodic, begin, m, nsys, A, B, C, out, out + cnt, out + 2 * cnt, bad);
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * m;
    tl_info info;
    rbad[s] = tl_ptdma_init_d(n, periodic, begin, begin + m, A + o, B + o, C + o, ref + o,
                              ref + cnt + o, ref + 2 * cnt + o, &info) < 0;
  }
  /* The runtime step from the reference's b, on the good systems. */
  tl_cpu_ptdma_runtime_d(begin, m, nsys, A, C, ref + cnt, D, out + 3 * cnt);
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * m;
    if (!rbad[s])
      tl_ptdma_runtime_d(begin, begin + m, A + o, C + o, ref + cnt + o, D + o, ref + 3 * cnt + o);
  }
  for (size_t s = 0; s < nsys; s++) {
    cr_expect_eq(bad[s], rbad[s], "m=%zu nsys=%zu part %d periodic %d: system %zu flagged %d, "
                 "reference %d", m, nsys, q, periodic, s, bad[s], rbad[s]);
    if (rbad[s])
      continue;
    for (int k = 0; k < 4; k++) /* a, b, c, d': the reference's bits */
      cr_expect(!memcmp(out + k * cnt + s * m, ref + k * cnt + s * m, m * sizeof *out),
                "m=%zu nsys=%zu part %d periodic %d: system %zu differs in array %d", m, nsys, q,
                periodic, s, k);
  }
  free(v);
  free(out);
  free(ref);
  free(bad);
  free(rbad);
}

Test(ptdma_cpu, phases_are_the_reference_bits)
{
  th_slices_every_size(compare);
}

Test(ptdma_cpu, a_broken_system_is_flagged_alone)
{
  th_slices_one_broken(compare, 17);
}
