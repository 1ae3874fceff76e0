/* tests/test_distd2_lines_cpu.c -- DistD2's batched Algorithms 5 and 6
 * (optimized/cpu/distd2_lines_cpu.c) against the reference's slice plans
 * and decoupling (reference/distd2_ref.c): the same bits in every array
 * of every system of a whole group of eight, the same fix_scale, spike
 * and d', the same systems flagged (and both in one pass: the two calls'
 * bits and flags), and the substitution in SIMD lanes
 * (tl_cpu_two_spike_rows_d) the reference's bits, at every size around the tile and group edges,
 * for a first, middle and last slice, plain and periodic; and which systems have every row strictly
 * dominant, as tl_cpu_row_classes_slice_d says (with, in some cases, an inner row whose margin is
 * exactly 0). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tridlab/cpu.h"
#include "tridlab/part_distd2.h"

/* Algorithms 5 and 6 in one pass (tl_cpu_distd2_plan_decouple_lines_d)
 * against the two calls: rows, fix, spike, strict and bad (both calls'
 * flags, nsys apiece) are what tl_cpu_distd2_preprocess_lines_d gave, dt
 * what tl_cpu_distd2_decouple_lines_d gave from the reference's plans
 * (the same bits where neither flags). sa, sc and d' bit for bit; the
 * plan's other rows are left as they were (NaN here). */
static void fused_is_the_pair(size_t m, size_t nsys, int q, int periodic, const double *v,
                              const double *rows, const double *fix, const double *dt,
                              const unsigned char *bad)
{
  size_t cnt = m * nsys, whole = nsys / 8 * 8;
  const double *a = v, *b = v + cnt, *c = v + 2 * cnt, *d = v + 3 * cnt;
  double *rows1 = malloc(5 * cnt * sizeof *rows1), *dt1 = calloc(cnt, sizeof *dt1);
  double *fix1 = calloc(2 * nsys, sizeof *fix1), *spike1 = fix1 + nsys;
  unsigned char *bad1 = calloc(2 * nsys, 1), *strict1 = bad1 + nsys;
  for (size_t i = 0; i < 5 * cnt; i++)
    rows1[i] = NAN;
  tl_cpu_distd2_plan_decouple_lines_d(3 * m, periodic, (size_t)q * m, m, nsys, a, b, c, d, rows1,
                                      dt1, fix1, spike1, bad1, strict1);
  const unsigned char *strict = bad + 2 * nsys, *bad2 = bad + nsys;
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * m;
    if (s >= whole) {
      cr_expect(bad1[s] && !strict1[s], "m=%zu: fused, system %zu past the groups", m, s);
      continue;
    }
    cr_expect_eq(strict1[s], strict[s], "m=%zu: fused, system %zu strict", m, s);
    cr_expect_eq(bad1[s], bad[s] || bad2[s],
                 "m=%zu nsys=%zu slice %d periodic %d: fused, system %zu flagged %d, the two "
                 "calls %d and %d",
                 m, nsys, q, periodic, s, bad1[s], bad[s], bad2[s]);
    if (bad1[s])
      continue;
    cr_expect(!memcmp(rows1 + 5 * o, rows + 5 * o, 2 * m * sizeof *rows1) &&
                  !memcmp(dt1 + o, dt + o, m * sizeof *dt1),
              "m=%zu nsys=%zu slice %d periodic %d: fused, system %zu's sa, sc or d' differs", m,
              nsys, q, periodic, s);
    cr_expect(fix1[s] == fix[s] && spike1[s] == fix[nsys + s],
              "m=%zu: fused, system %zu's fix or spike differs", m, s);
    int untouched = 1;
    for (size_t i = 2 * m; i < 5 * m; i++)
      untouched &= isnan(rows1[5 * o + i]);
    cr_expect(untouched, "m=%zu: fused, system %zu's multipliers written", m, s);
  }
  free(rows1);
  free(dt1);
  free(fix1);
  free(bad1);
}

static void compare(size_t m, size_t nsys, int q, int periodic, size_t broken_sys, size_t row,
                    uint64_t seed)
{
  size_t cnt = m * nsys, n = 3 * m, row0 = (size_t)q * m, whole = nsys / 8 * 8;
  double *v = th_dominant_slices(m, nsys, seed);
  double *a = v, *b = v + cnt, *c = v + 2 * cnt, *d = v + 3 * cnt;
  if (broken_sys < nsys)
    b[broken_sys * m + row] = 0.0, a[broken_sys * m + row] = 0.0;
  if (seed % 3 == 1 && nsys > 4 && m > 2) /* an inner row whose margin is exactly 0 */
    b[4 * m + m / 2] = fabs(a[4 * m + m / 2]) + fabs(c[4 * m + m / 2]);
  double *rows = calloc(5 * cnt, sizeof *rows), *ref = calloc(5 * cnt, sizeof *ref);
  double *fix = calloc(3 * nsys, sizeof *fix), *spike = fix + nsys, *rfix = fix + 2 * nsys;
  double *dt = calloc(2 * cnt, sizeof *dt), *rdt = dt + cnt;
  unsigned char *bad = calloc(3 * nsys, 1), *bad2 = bad + nsys, *strict = bad + 2 * nsys;
  tl_distd2_plan *plans = calloc(nsys, sizeof *plans);
  int *rc = calloc(nsys, sizeof *rc);
  tl_cpu_distd2_preprocess_lines_d(n, periodic, row0, m, nsys, a, b, c, rows, fix, spike, bad,
                                   strict);
  /* Algorithm 5: the plans, bits, fix_scale, spike and flags. */
  for (size_t s = 0; s < nsys; s++) {
    tl_info info;
    size_t o = s * m;
    rc[s] = tl_distd2_plan_slice_in_d(&plans[s], n, periodic, row0, m, a + o, b + o, c + o,
                                      ref + 5 * o, &info);
    unsigned cls =
        tl_cpu_row_classes_slice_d(m, a + o, b + o, c + o, row0, n, periodic, NULL, NULL);
    if (s >= whole) { /* past the last group: always left to the reference */
      cr_expect(bad[s] && !strict[s],
                "m=%zu nsys=%zu: system %zu past the groups: flagged %d, "
                "strict %d",
                m, nsys, s, bad[s], strict[s]);
      continue;
    }
    cr_expect_eq(strict[s], (cls & TL_CLASS_STRICT_DD) != 0,
                 "m=%zu nsys=%zu slice %d periodic %d: system %zu strict %d, classes %u", m, nsys,
                 q, periodic, s, strict[s], cls);
    cr_expect_eq(bad[s], rc[s] < 0, "m=%zu nsys=%zu slice %d periodic %d: system %zu flagged "
                 "%d, reference %d", m, nsys, q, periodic, s, bad[s], rc[s]);
    if (rc[s] == TL_OK) {
      cr_expect(!memcmp(rows + 5 * o, ref + 5 * o, 5 * m * sizeof *rows),
                "m=%zu nsys=%zu slice %d periodic %d: system %zu's plan rows differ", m, nsys, q,
                periodic, s);
      cr_expect(fix[s] == plans[s].fix_scale[0] && spike[s] == plans[s].spike,
                "m=%zu: system %zu fix %g (ref %g), spike %g (ref %g)", m, s, fix[s],
                plans[s].fix_scale[0], spike[s], plans[s].spike);
    }
  }
  /* Algorithm 6 from the reference's plans: the reference's d' bits. */
  for (size_t s = 0; s < nsys; s++)
    rfix[s] = rc[s] == TL_OK ? plans[s].fix_scale[0] : 1.0;
  tl_cpu_distd2_decouple_lines_d(m, nsys, ref, rfix, d, dt, bad2);
  for (size_t s = 0; s < nsys; s++) {
    tl_info info;
    if (rc[s] != TL_OK)
      continue;
    int dc = tl_distd2_decouple_d(&plans[s], 0, d + s * m, rdt + s * m, &info);
    if (s < whole) {
      cr_expect_eq(bad2[s], dc < 0, "m=%zu: system %zu's decoupling flagged %d, reference %d", m,
                   s, bad2[s], dc);
      if (dc == TL_OK)
        cr_expect(!memcmp(dt + s * m, rdt + s * m, m * sizeof *dt),
                  "m=%zu nsys=%zu slice %d periodic %d: system %zu's d' differs", m, nsys, q,
                  periodic, s);
    }
    if (dc == TL_OK && m >= 2) { /* Algorithm 7 in place over d', both ways */
      double *x1 = malloc(2 * m * sizeof *x1), *x2 = x1 + m, xf = 0.5 + (double)s, xl = -0.25;
      size_t k0 = plans[s].begin[0];
      memcpy(x1, rdt + s * m, m * sizeof *x1);
      memcpy(x2, rdt + s * m, m * sizeof *x2);
      cr_expect_eq(tl_distd2_substitute_d(&plans[s], 0, xf, xl, x1, x1, &info), TL_OK);
      cr_expect(tl_cpu_two_spike_rows_d(m, plans[s].sa + k0, NULL, plans[s].sc + k0, x2 + k0, xf,
                                        xl, x2 + k0, NULL));
      cr_expect(!memcmp(x1, x2, m * sizeof *x1),
                "m=%zu slice %d periodic %d: system %zu's substitution differs", m, q, periodic,
                s);
      free(x1);
    }
    tl_distd2_plan_destroy(&plans[s]);
  }
  fused_is_the_pair(m, nsys, q, periodic, v, rows, fix, dt, bad);
  free(v);
  free(rows);
  free(ref);
  free(fix);
  free(dt);
  free(bad);
  free(plans);
  free(rc);
}

Test(distd2_lines_cpu, plans_are_the_reference_bits)
{
  TH_NEEDS_LANES();
  th_slices_every_size(compare);
}

Test(distd2_lines_cpu, a_broken_system_is_flagged_alone)
{
  TH_NEEDS_LANES();
  th_slices_one_broken(compare, 16);
}

/* The two phases' check sums kept apart in the one pass: where only the
 * sum of finite values overflows, a system is flagged exactly where one
 * of the two calls would flag it (case 0: neither; case 1: the
 * decoupling alone). */
Test(distd2_lines_cpu, fused_flags_are_the_two_calls)
{
  TH_NEEDS_LANES();
  enum { NS = 8 };
  for (int t = 0; t < 2; t++) {
    size_t m = t == 0 ? 2 : 3;
    double a[3 * NS] = {0}, b[3 * NS], c[3 * NS] = {0}, d[3 * NS] = {0};
    double r0[15 * NS], dt0[3 * NS], r1[15 * NS], dt1[3 * NS];
    double f0[NS], s0[NS], f1[NS], s1[NS];
    unsigned char b0[NS] = {0}, bd[NS] = {0}, b1[NS] = {0}, st0[NS], st1[NS];
    for (size_t s = 0; s < NS; s++) {
      double *B = b + s * m, *D = d + s * m;
      if (t == 0)
        B[0] = 0.9e308, B[1] = 1, D[0] = 1, D[1] = 1e308;
      else
        B[0] = 1, B[1] = 1, B[2] = -0.9e308, D[0] = 1e308, D[1] = 1e308, D[2] = 1;
    }
    tl_cpu_distd2_preprocess_lines_d(100, 0, 10, m, NS, a, b, c, r0, f0, s0, b0, st0);
    tl_cpu_distd2_decouple_lines_d(m, NS, r0, f0, d, dt0, bd);
    tl_cpu_distd2_plan_decouple_lines_d(100, 0, 10, m, NS, a, b, c, d, r1, dt1, f1, s1, b1, st1);
    for (size_t s = 0; s < NS; s++)
      cr_expect_eq(b1[s], b0[s] || bd[s], "case %d, system %zu: fused %d, the calls %d and %d", t,
                   s, b1[s], b0[s], bd[s]);
    cr_expect(t == 0 ? !bd[0] : bd[0], "case %d: the decoupling's flag %d", t, bd[0]);
    cr_expect(!memcmp(dt0, dt1, m * NS * sizeof *dt0), "case %d: d' differs", t);
  }
}
