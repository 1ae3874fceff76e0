/* tests/test_ptdma_cpu.c -- the batched P-TDMA phases
 * (optimized/cpu/ptdma_cpu.c) against the reference phases they run
 * (reference/ptdma_ref.c): the same systems flagged, and in every system
 * the same bits (the phases one at a time, the reconstruction) or values
 * within a few roundings (the fused passes of ptdma_mpi, which invert each
 * pivot once), at every size around the tile and group edges, for a
 * first, middle and last partition, plain and periodic. The fused passes
 * flag more than the reference fails where a rounding decides (last test). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/cpu.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/part_ptdma.h"
#include "helpers.h"
#include "tridlab/verify.h"

/* nsys dominant systems of m rows (A, B, C, D one after the other);
 * broken_sys < nsys gets a zero pivot in row `row` (B = 0 and A = 0
 * there, so no elimination can rescue it). */
static double *slices(size_t m, size_t nsys, size_t broken_sys, size_t row, uint64_t seed)
{
  double *v = th_dominant_slices(m, nsys, seed);
  if (broken_sys < nsys)
    v[m * nsys + broken_sys * m + row] = 0.0, v[broken_sys * m + row] = 0.0;
  return v;
}

/* Partition q of 3 (rows [q m, (q+1) m) of n = 3 m) of slices(). */
static void compare(size_t m, size_t nsys, int q, int periodic, size_t broken_sys, size_t row,
                    uint64_t seed)
{
  size_t cnt = m * nsys, n = 3 * m, begin = (size_t)q * m;
  double *v = slices(m, nsys, broken_sys, row, seed);
  double *A = v, *B = v + cnt, *C = v + 2 * cnt, *D = v + 3 * cnt;
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
  tl_cpu_ptdma_runtime_d(begin, m, nsys, A, C, ref + cnt, D, out + 3 * cnt, NULL);
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

/* The reconstruction in SIMD lanes (tl_cpu_ptdma_reconstruct_d) against
 * tl_ptdma_reconstruct_d and tl_ptdma_reconstruct_tiny_d (and, without b,
 * the hybrid's substitution, the same loop): x bit for bit,
 * the status, row and message, and the tiny test, with b and without it
 * (the combined form), at 2 to 300 rows; with rows that meet the tiny
 * test and a value that overflows. */
Test(ptdma_cpu, reconstruction_is_the_reference_bits)
{
  static const size_t ms[] = {2, 3, 4, 9, 16, 17, 300};
  for (size_t z = 0; z < sizeof ms / sizeof ms[0]; z++)
    for (int combined = 0; combined < 2; combined++)
      for (int twist = 0; twist < 3; twist++) {
        size_t m = ms[z];
        double *v = th_dominant_slices(m, 1, 90 + m + (size_t)twist);
        double *a = v, *b = v + m, *c = v + 2 * m, *d = v + 3 * m;
        double xf = 0.75, xl = -1.25;
        if (twist == 1 && m > 2) /* a row that meets the tiny test */
          a[m / 2] = c[m / 2] = d[m / 2] = 0.0;
        if (twist == 2 && m > 2) /* an overflow */
          d[m - 2] = 1e308, a[m - 2] = -1e308, xf = 1e10;
        double *x1 = calloc(m, sizeof *x1), *x2 = calloc(m, sizeof *x2);
        tl_info i1, i2;
        tl_info_clear(&i1), tl_info_clear(&i2);
        const double *bb = combined ? NULL : b;
        int s1 = tl_ptdma_reconstruct_d(40, 40 + m, a, bb, c, d, xf, xl, x1, &i1);
        int t1 = tl_ptdma_reconstruct_tiny_d(m, a, c, d, xf, xl), t2 = -1;
        int s2 = tl_cpu_ptdma_reconstruct_d(40, m, a, bb, c, d, xf, xl, x2, &t2, &i2);
        cr_expect(s1 == s2 && i1.row == i2.row && !strcmp(i1.msg, i2.msg),
                  "m %zu, combined %d, twist %d: status %d/%d, '%s'/'%s'", m, combined, twist, s1,
                  s2, i1.msg, i2.msg);
        cr_expect(!memcmp(x1, x2, m * sizeof *x1), "m %zu, combined %d, twist %d: x differs", m,
                  combined, twist);
        cr_expect(t1 == t2, "m %zu, twist %d: tiny %d, %d", m, twist, t1, t2);
        if (combined) { /* the hybrid's substitution is the same loop */
          double *x3 = calloc(m, sizeof *x3);
          tl_info i3;
          tl_info_clear(&i3);
          int s3 = tl_hybrid_pcr_backward_d(40, m, a, c, d, xf, xl, x3, &i3);
          cr_expect(s3 == s1 && i3.row == i1.row && !memcmp(x1, x3, m * sizeof *x1),
                    "m %zu, twist %d: the hybrid's substitution differs (status %d, row %ld)", m,
                    twist, s3, i3.row);
          free(x3);
        }
        free(x1);
        free(x2);
        free(v);
      }
}

/* Both phases without their arrays (tl_cpu_ptdma_ends_d, then
 * tl_cpu_ptdma_finish_d) against the reference's phases on each system:
 * the same systems flagged (on these data: no pivot a rounding decides);
 * the rows sent (a, b, c of rows 0 and m-1 as
 * tl_ptdma_pack_d packs them, d' of both) and x within a few roundings
 * (th_close_to: one reciprocal per row where the reference divides); the tiny
 * test; redo where the reference's reconstruction fails, and for the
 * other systems of a group holding a failed one. Twists by system: d' and
 * both ends zero (every interior row meets the tiny test), an end that is
 * infinite (x not finite), and, in every third case, a D that is NaN. */
static void compare_fused(size_t m, size_t nsys, int q, int periodic, size_t broken_sys, size_t row,
                          uint64_t seed)
{
  size_t cnt = m * nsys, n = 3 * m, begin = (size_t)q * m;
  double *v = slices(m, nsys, broken_sys, row, seed);
  double *A = v, *B = v + cnt, *C = v + 2 * cnt, *D = v + 3 * cnt;
  double *xb = calloc(2 * nsys, sizeof *xb);
  for (size_t s = 0; s < nsys; s++) {
    xb[2 * s] = 0.5 + 0.01 * (double)s, xb[2 * s + 1] = -1.25;
    if (s % 5 == 1) { /* tiny */
      memset(D + s * m, 0, m * sizeof *D);
      xb[2 * s] = xb[2 * s + 1] = 0.0;
    }
    if (s % 7 == 3)
      xb[2 * s] = INFINITY;
  }
  size_t nan_sys = seed % 3 == 0 && nsys > 2 ? 2 : nsys;
  if (nan_sys < nsys)
    D[nan_sys * m + m / 2] = NAN;
  double *plan = calloc(6 * nsys, sizeof *plan), *rhs = calloc(2 * nsys, sizeof *rhs);
  double *inner = calloc(8 * nsys, sizeof *inner);
  double *x = calloc(cnt, sizeof *x), *rows = calloc(5 * m, sizeof *rows);
  unsigned char *f = calloc(7 * nsys, 1);
  unsigned char *bad = f, *dbad = f + nsys, *redo = f + 2 * nsys, *tiny = f + 3 * nsys,
                *rbad = f + 4 * nsys, *strict = f + 5 * nsys, *dsmall = f + 6 * nsys;
  if (seed % 4 == 1 && nsys > 9) /* a row not strictly dominant (B = 0 would break down) */
    B[9 * m + m - 1] = 0.5 * (fabs(A[9 * m + m - 1]) + fabs(C[9 * m + m - 1]));
  if (seed % 4 == 2 && nsys > 4 && m > 2) /* an inner row whose margin is exactly 0 */
    B[4 * m + m / 2] = fabs(A[4 * m + m / 2]) + fabs(C[4 * m + m / 2]);
  size_t lanes = tl_cpu_ptdma_ends_d(n, periodic, begin, m, nsys, A, B, C, D, plan, rhs, bad, dbad,
                                     strict, dsmall, inner);
  cr_expect_eq(lanes, m >= 2 ? nsys / 8 * 8 : 0, "m=%zu nsys=%zu: %zu systems in lanes", m, nsys,
               lanes);
  for (size_t s = 0; s < lanes; s++) { /* the reference, for the skip flags first */
    size_t o = s * m;
    tl_info info;
    rbad[s] = tl_ptdma_init_d(n, periodic, begin, begin + m, A + o, B + o, C + o, rows, rows + m,
                              rows + 2 * m, &info) < 0;
  }
  size_t done =
      tl_cpu_ptdma_finish_d(n, periodic, begin, m, nsys, A, B, C, D, xb, rbad, x, redo, tiny);
  cr_expect_eq(done, lanes);
  for (size_t s = 0; s < lanes; s++) {
    size_t o = s * m, g = s / 8 * 8;
    double *a = rows, *b = rows + m, *c = rows + 2 * m, *d = rows + 3 * m, *xr = rows + 4 * m;
    tl_info info;
    tl_info_clear(&info);
    memset(rows, 0, 5 * m * sizeof *rows);
    int init = tl_ptdma_init_d(n, periodic, begin, begin + m, A + o, B + o, C + o, a, b, c, &info);
    cr_expect_eq(bad[s], init < 0, "m=%zu nsys=%zu part %d periodic %d system %zu: flagged %d", m,
                 nsys, q, periodic, s, bad[s]);
    cr_expect_eq(dbad[s], s == nan_sys, "m=%zu system %zu: D flagged %d", m, s, dbad[s]);
    unsigned cls =
        tl_cpu_row_classes_slice_d(m, A + o, B + o, C + o, begin, n, periodic, NULL, NULL);
    cr_expect_eq(strict[s], (cls & TL_CLASS_STRICT_DD) != 0,
                 "m=%zu nsys=%zu part %d periodic %d system %zu: strict %d, classes %u", m, nsys, q,
                 periodic, s, strict[s], cls);
    if (init < 0)
      continue;
    tl_ptdma_runtime_d(begin, begin + m, A + o, C + o, b, D + o, d);
    double rp[6], rr[2];
    tl_ptdma_pack_d(begin, begin + m, 0, a, b, c, NULL, rp, rp + 2, rp + 4, NULL);
    tl_ptdma_pack_d(begin, begin + m, 0, NULL, NULL, NULL, d, NULL, NULL, NULL, rr);
    if (s != nan_sys)
      cr_expect(th_close_to(plan + 6 * s, rp, 6) && th_close_to(rhs + 2 * s, rr, 2),
                "m=%zu nsys=%zu part %d periodic %d system %zu: the rows sent differ", m, nsys, q,
                periodic, s);
    for (size_t j = 0; j < 2 && m >= 3 && s != nan_sys; j++) { /* rows 1 and m-2 for step 4 */
      size_t k = j ? m - 2 : 1;
      double ri[4] = {a[k], c[k], d[k], 1.0 / b[k]};
      cr_expect(th_close_to(inner + 8 * s + 4 * j, ri, 4),
                "m=%zu nsys=%zu part %d periodic %d system %zu: row %zu kept differs", m, nsys, q,
                periodic, s, k);
    }
    int any = 0;
    for (size_t l = g; l < g + 8; l++)
      any |= rbad[l];
    if (any) { /* the group left to the caller */
      cr_expect_eq(redo[s], 1, "m=%zu nsys=%zu system %zu: a group with a failed system", m, nsys,
                   s);
      continue;
    }
    double xf = xb[2 * s], xl = xb[2 * s + 1];
    int st = tl_ptdma_reconstruct_d(begin, begin + m, a, b, c, d, xf, xl, xr, &info);
    cr_expect_eq(redo[s], st != TL_OK, "m=%zu system %zu: redo %d, status %d", m, s, redo[s], st);
    if (st == TL_OK) {
      cr_expect(th_close_to(x + o, xr, m),
                "m=%zu nsys=%zu part %d periodic %d system "
                "%zu: x differs",
                m, nsys, q, periodic, s);
      cr_expect_eq(tiny[s], tl_ptdma_reconstruct_tiny_d(m, a, c, d, xf, xl), "m=%zu system %zu", m,
                   s);
    }
    /* dsmall: every system the tiny test may hold for, and only those
     * whose d' comes near the screen (a factor 2 for the roundings) */
    double dmin = INFINITY;
    for (size_t k = 1; k + 1 < m; k++)
      dmin = fmin(dmin, fabs(d[k]));
    if (s != nan_sys && dmin < 2 * DBL_MIN)
      cr_expect(dsmall[s], "m=%zu system %zu: |d'| %g, not screened", m, s, dmin);
    if (s != nan_sys && !(dmin < 2 * TL_PTDMA_D_SMALL))
      cr_expect(!dsmall[s], "m=%zu system %zu: |d'| %g, screened", m, s, dmin);
  }
  free(v), free(xb), free(plan), free(rhs), free(inner), free(x), free(rows), free(f);
}

Test(ptdma_cpu, ends_and_finish_are_the_references_values)
{
  TH_NEEDS_LANES();
  th_slices_every_size(compare_fused);
}

Test(ptdma_cpu, ends_and_finish_with_a_broken_system)
{
  TH_NEEDS_LANES();
  th_slices_one_broken(compare_fused, 17);
}

/* Pivots where a rounding more or less decides: the fused passes (one
 * reciprocal per row) send such a system to the reference, whose verdict
 * stands. System 3 of eight (m = 20, a middle partition) gets one twist;
 * the others must stay in the lanes. `ok`: whether the reference solves
 * it; `redo`: whether tl_cpu_ptdma_finish_d, skipping only what the
 * reference failed, must leave it to the reference too. */
static void pivot_case(const char *what, void (*twist)(double *A, double *B, double *C, size_t m),
                       int ok, int redo)
{
  enum { M = 20, NSYS = 8 };
  size_t m = M, nsys = NSYS, cnt = m * nsys, n = 3 * m, begin = m;
  double *v = th_dominant_slices(m, nsys, 77);
  double *A = v, *B = v + cnt, *C = v + 2 * cnt, *D = v + 3 * cnt;
  twist(A + 3 * m, B + 3 * m, C + 3 * m, m);
  double rows[3 * M], plan[6 * NSYS], rhs[2 * NSYS], xb[2 * NSYS], x[M * NSYS];
  unsigned char bad[NSYS] = {0}, dbad[NSYS] = {0}, skip[NSYS] = {0}, again[NSYS] = {0};
  unsigned char tiny[NSYS];
  tl_info info;
  int st = tl_ptdma_init_d(n, 0, begin, begin + m, A + 3 * m, B + 3 * m, C + 3 * m, rows, rows + m,
                           rows + 2 * m, &info);
  cr_expect_eq(st == TL_OK, ok, "%s: the reference gives %s", what, tl_status_name(st));
  tl_cpu_ptdma_ends_d(n, 0, begin, m, nsys, A, B, C, D, plan, rhs, bad, dbad, NULL, NULL, NULL);
  for (size_t s = 0; s < nsys; s++)
    cr_expect_eq(bad[s], s == 3, "%s: system %zu flagged %d", what, s, bad[s]);
  skip[3] = !ok;
  for (size_t s = 0; s < 2 * nsys; s++)
    xb[s] = 0.25 * (double)(s % 3) - 0.5;
  tl_cpu_ptdma_finish_d(n, 0, begin, m, nsys, A, B, C, D, xb, skip, x, again, tiny);
  for (size_t s = 0; s < nsys; s++)
    cr_expect_eq(again[s], ok ? s == 3 && redo : s != 3, /* failed: its group left over */
                 "%s: system %zu left to the reference %d", what, s, again[s]);
  free(v);
}

/* B = C = 1e-310 and A = 0 in inner row 9: the reference's ratios stay
 * finite (c'/b' = 1) and it solves the system; 1 / b' overflows. */
static void tiny_inner(double *A, double *B, double *C, size_t m)
{
  (void)m;
  A[9] = 0.0, B[9] = C[9] = 1e-310;
}

/* The same pivot in the last row, which nothing multiplies by 1 / b'. */
static void tiny_last(double *A, double *B, double *C, size_t m)
{
  (void)C;
  A[m - 1] = 0.0, B[m - 1] = 1e-310;
}

/* Row 9: A = 0, B = C = 49; row 10: A = B = 1, C = 0. The reference's
 * pivot of row 10 is 1 - 49 / 49 = 0, a breakdown; one reciprocal gives
 * 1 - 49 (1 / 49) = 1.1e-16, finite. */
static void cancels(double *A, double *B, double *C, size_t m)
{
  (void)m;
  A[9] = 0.0, B[9] = C[9] = 49.0;
  A[10] = B[10] = 1.0, C[10] = 0.0;
}

/* Row 0's absorption of row 1: A_2 = 0 leaves a'_1 = A_1, so the
 * reference's pivot B_0 - C_0 (a'_1 / b'_1) is 1 - 49 / 49 = 0. */
static void cancels_row0(double *A, double *B, double *C, size_t m)
{
  (void)m;
  B[0] = C[0] = 1.0;
  A[1] = B[1] = 49.0;
  A[2] = 0.0;
}

Test(ptdma_cpu, pivots_a_rounding_decides_go_to_the_reference)
{
  TH_NEEDS_LANES();
  pivot_case("an inner pivot of 1e-310", tiny_inner, 1, 1);
  pivot_case("a last pivot of 1e-310", tiny_last, 1, 1);
  pivot_case("a pivot that cancels to 0 (49 / 49)", cancels, 0, 0);
  pivot_case("row 0's pivot cancels to 0 (49 / 49)", cancels_row0, 0, 0);
}
