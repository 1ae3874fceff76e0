/* tests/test_distd2_lines_cpu.c -- DistD2's batched Algorithm 5
 * (optimized/cpu/distd2_lines_cpu.c) against the reference's slice plans
 * (reference/distd2_ref.c): the same bits in every array of every system
 * of a whole group of eight, the same fix_scale and spike, the same
 * systems flagged, at every size around the tile and group edges, for a
 * first, middle and last slice, plain and periodic. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tridlab/cpu.h"
#include "tridlab/part_distd2.h"

static void compare(size_t m, size_t nsys, int q, int periodic, size_t broken_sys, size_t row,
                    uint64_t seed)
{
  size_t cnt = m * nsys, n = 3 * m, row0 = (size_t)q * m;
  double *v = th_dominant_slices(m, nsys, seed);
  double *a = v, *b = v + cnt, *c = v + 2 * cnt;
  if (broken_sys < nsys)
    b[broken_sys * m + row] = 0.0, a[broken_sys * m + row] = 0.0;
  double *rows = calloc(5 * cnt, sizeof *rows), *ref = calloc(5 * cnt, sizeof *ref);
  double *fix = calloc(nsys, sizeof *fix), *spike = calloc(nsys, sizeof *spike);
  unsigned char *bad = calloc(nsys, 1);
  tl_cpu_distd2_preprocess_lines_d(n, periodic, row0, m, nsys, a, b, c, rows, fix, spike, bad);
  size_t whole = nsys / 8 * 8;
  for (size_t s = 0; s < nsys; s++) {
    tl_distd2_plan plan;
    tl_info info;
    size_t o = s * m;
    int rc = tl_distd2_plan_slice_in_d(&plan, n, periodic, row0, m, a + o, b + o, c + o,
                                       ref + 5 * o, &info);
    if (s >= whole) { /* past the last group: always left to the reference */
      cr_expect(bad[s], "m=%zu nsys=%zu: system %zu past the groups is not flagged", m, nsys, s);
    } else {
      cr_expect_eq(bad[s], rc < 0, "m=%zu nsys=%zu slice %d periodic %d: system %zu flagged %d, "
                   "reference %d", m, nsys, q, periodic, s, bad[s], rc);
      if (rc == TL_OK) {
        cr_expect(!memcmp(rows + 5 * o, ref + 5 * o, 5 * m * sizeof *rows),
                  "m=%zu nsys=%zu slice %d periodic %d: system %zu's plan rows differ", m, nsys,
                  q, periodic, s);
        cr_expect(fix[s] == plan.fix_scale[0] && spike[s] == plan.spike,
                  "m=%zu: system %zu fix %g (ref %g), spike %g (ref %g)", m, s, fix[s],
                  plan.fix_scale[0], spike[s], plan.spike);
      }
    }
    if (rc == TL_OK)
      tl_distd2_plan_destroy(&plan);
  }
  free(v);
  free(rows);
  free(ref);
  free(fix);
  free(spike);
  free(bad);
}

Test(distd2_lines_cpu, plans_are_the_reference_bits)
{
  th_slices_every_size(compare);
}

Test(distd2_lines_cpu, a_broken_system_is_flagged_alone)
{
  th_slices_one_broken(compare, 16);
}
