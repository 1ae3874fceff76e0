/* tests/test_modified_thomas_cpu.c -- the batched modified Thomas sweeps
 * of Tridsolver and the hybrid (optimized/cpu/modified_thomas_cpu.c)
 * against the reference phases they run (reference/tridsolver_ref.c,
 * reference/hybrid_pcr_ref.c), at every size around the tile and group
 * edges: the same systems flagged; the forward sweep's a', c', d' within
 * a few roundings of the reference's (one reciprocal per row where the
 * reference divides three times); Tridsolver's backward sweep, the same
 * operations, the same bits; and both as an MPI rank runs them without
 * keeping a', c', d' (the ends, then the finish with the verdict's pass). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/cpu.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/part_tridsolver.h"
#include "helpers.h"
#include "tridlab/verify.h"

/* A forward sweep: batched (every system, bad[s] flagged) and the
 * reference's (one system). */
typedef void batched_fn(size_t begin, size_t m, size_t nsys, int has_left, int has_right,
                        const double *a, const double *b, const double *c, const double *d,
                        double *as, double *cs, double *ds, unsigned char *bad);
typedef int reference_fn(size_t begin, size_t m, int has_left, int has_right, const double *a,
                         const double *b, const double *c, const double *d, double *as,
                         double *cs, double *ds, tl_info *info);

typedef struct sweep {
  batched_fn *batched;
  reference_fn *reference;
  int backward; /* 1: Tridsolver's backward sweep too */
} sweep;

static const sweep tridsolver = {tl_cpu_tridsolver_forward_d, tl_tridsolver_forward_d, 1};
static const sweep hybrid = {tl_cpu_hybrid_pcr_forward_d, tl_hybrid_pcr_forward_d, 0};

/* The sweeps, batched and reference, on one batch. broken_sys < nsys:
 * that system's b in row `row` is made zero (row 1: its pivot) or NaN (a
 * non-finite pivot in any row), so its forward sweep breaks down there. */
static void compare(const sweep *sw, size_t m, size_t nsys, int has_left, int has_right,
                    size_t broken_sys, size_t row, uint64_t seed)
{
  size_t cnt = m * nsys;
  double *v = th_dominant_slices(m, nsys, seed);
  double *a = v, *b = v + cnt, *c = v + 2 * cnt, *d = v + 3 * cnt;
  if (broken_sys < nsys)
    b[broken_sys * m + row] = row == 1 ? 0.0 : NAN;
  double *out = calloc(6 * cnt, sizeof *out), *ref = calloc(6 * cnt, sizeof *ref);
  unsigned char *bad = calloc(nsys, 1), *rbad = calloc(nsys, 1);
  sw->batched(100, m, nsys, has_left, has_right, a, b, c, d, out, out + cnt, out + 2 * cnt, bad);
  for (size_t s = 0; s < nsys; s++) {
    tl_info info;
    rbad[s] = sw->reference(100, m, has_left, has_right, a + s * m, b + s * m, c + s * m,
                            d + s * m, ref + s * m, ref + cnt + s * m, ref + 2 * cnt + s * m,
                            &info) < 0;
  }
  /* The backward sweep from the reference's forward results, with some
   * first unknowns. */
  double *F = malloc(2 * nsys * sizeof *F);
  for (size_t s = 0; s < 2 * nsys; s++)
    F[s] = 0.25 * (double)(s % 7) - 0.5;
  if (sw->backward)
    tl_cpu_tridsolver_backward_d(100, m, nsys, ref, ref + cnt, ref + 2 * cnt, F, out + 3 * cnt,
                                 bad);
  for (size_t s = 0; sw->backward && s < nsys; s++) {
    tl_info info;
    if (!rbad[s])
      rbad[s] = tl_tridsolver_backward_d(100, m, ref + s * m, ref + cnt + s * m,
                                         ref + 2 * cnt + s * m, F[2 * s], F[2 * s + 1],
                                         ref + 3 * cnt + s * m, &info) < 0;
  }
  for (size_t s = 0; s < nsys; s++) {
    cr_expect_eq(bad[s], rbad[s], "m=%zu nsys=%zu left=%d right=%d: system %zu flagged %d, "
                 "reference %d", m, nsys, has_left, has_right, s, bad[s], rbad[s]);
    if (rbad[s])
      continue;
    for (int k = 0; k < 3; k++) /* as, cs, ds: within a few roundings */
      cr_expect(th_close_to(out + k * cnt + s * m, ref + k * cnt + s * m, m),
                "m=%zu nsys=%zu left=%d right=%d: system %zu differs in array %d", m, nsys,
                has_left, has_right, s, k);
    cr_expect(!sw->backward || !memcmp(out + 3 * cnt + s * m, ref + 3 * cnt + s * m, m * sizeof *out),
              "m=%zu nsys=%zu left=%d right=%d: system %zu: x is not the reference's bits", m,
              nsys, has_left, has_right, s);
  }
  free(v);
  free(out);
  free(ref);
  free(bad);
  free(rbad);
  free(F);
}

/* Every size around the tile (8 rows) and group (8 systems) edges, with
 * and without neighbouring partitions. */
static void agree(const sweep *sw)
{
  static const size_t ms[] = {2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 64, 67};
  static const size_t ns[] = {1, 7, 8, 9, 16, 21, 24, 33};
  uint64_t seed = 1;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
      for (int lr = 0; lr < 4; lr++)
        compare(sw, ms[i], ns[j], lr & 1, lr >> 1, (size_t)-1, 0, seed++);
}

/* A zero or NaN diagonal entry in one system, at many rows. */
static void flagged_alone(const sweep *sw)
{
  static const size_t ms[] = {2, 3, 9, 16, 33};
  uint64_t seed = 100;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (size_t row = 0; row < ms[i]; row += 3)
      for (size_t sys = 0; sys < 17; sys += 5)
        compare(sw, ms[i], 17, 1, 1, sys, row, seed++);
}

Test(modified_thomas_cpu, tridsolver_agrees_with_the_reference) { agree(&tridsolver); }
Test(modified_thomas_cpu, tridsolver_flags_a_broken_system_alone) { flagged_alone(&tridsolver); }
Test(modified_thomas_cpu, hybrid_agrees_with_the_reference) { agree(&hybrid); }
Test(modified_thomas_cpu, hybrid_flags_a_broken_system_alone) { flagged_alone(&hybrid); }

/* The sweeps as an MPI rank runs them without a', c', d' (Tridsolver's
 * tl_cpu_tridsolver_ends_d, then _finish_d; with `hyb` 1, the hybrid's)
 * against the sweeps that keep them on one batch (Tridsolver's _forward_d
 * and _backward_d; the hybrid's _forward_d, tl_hybrid_pcr_pack and
 * tl_hybrid_pcr_backward): the same systems flagged; the rows kept and x
 * the same bits; the verdict's pass made from cache the bits of
 * tl_cpu_residual_slice_pass_d on the finished system; a group holding a
 * system to skip (broken, or `skip_sys`) left to the caller. */
static void ends_and_finish(int hyb, size_t m, size_t nsys, int has_left, int has_right,
                            size_t broken, size_t skip_sys, uint64_t seed)
{
  size_t cnt = m * nsys, begin = has_left ? 100 : 0, n = begin + m + (has_right ? 50 : 0);
  double *v = th_dominant_slices(m, nsys, seed);
  double *a = v, *b = v + cnt, *c = v + 2 * cnt, *d = v + 3 * cnt;
  if (broken < nsys)
    b[broken * m + m / 2] = NAN;
  double *keep = calloc(5 * cnt, sizeof *keep), *xk = keep + 3 * cnt, *x = keep + 4 * cnt;
  double *ends = calloc(12 * nsys, sizeof *ends), *F = ends + 6 * nsys, *halo = F + 2 * nsys;
  unsigned char *fl = calloc(5 * nsys, 1), *bk = fl + nsys, *bad = bk + nsys, *skip = bad + nsys;
  unsigned char *redo = skip + nsys;
  tl_residual_pass *passes = calloc(2 * nsys, sizeof *passes), *want = passes + nsys;
  for (size_t s = 0; s < 2 * nsys; s++)
    F[s] = 0.25 * (double)(s % 7) - 0.5;
  for (size_t s = 0; s < 4 * nsys; s++)
    halo[s] = 0.125 * (double)(s % 5);
  (hyb ? tl_cpu_hybrid_pcr_forward_d : tl_cpu_tridsolver_forward_d)(
      begin, m, nsys, has_left, has_right, a, b, c, d, keep, keep + cnt, keep + 2 * cnt, fl);
  memcpy(bk, fl, nsys);
  if (!hyb)
    tl_cpu_tridsolver_backward_d(begin, m, nsys, keep, keep + cnt, keep + 2 * cnt, F, xk, bk);
  size_t done = (hyb ? tl_cpu_hybrid_pcr_ends_d : tl_cpu_tridsolver_ends_d)(
      m, nsys, has_left, has_right, a, b, c, d, ends, bad);
  cr_expect_eq(done, nsys / 8 * 8, "m=%zu nsys=%zu: %zu systems done", m, nsys, done);
  for (size_t s = 0; s < done; s++) {
    cr_expect_eq(bad[s], fl[s], "m=%zu nsys=%zu: system %zu flagged %d, forward sweep %d", m,
                 nsys, s, bad[s], fl[s]);
    size_t o = s * m;
    const double *as = keep + o, *cs = keep + cnt + o, *ds = keep + 2 * cnt + o;
    double rows[6] = {as[0], as[m - 1], cs[0], cs[m - 1], ds[0], ds[m - 1]}; /* Tridsolver's */
    if (hyb) {
      tl_hybrid_pcr_pack_d(m, as, cs, ds, rows);
      tl_info info;
      bk[s] = fl[s] ||
              tl_hybrid_pcr_backward_d(begin, m, as, cs, ds, F[2 * s], F[2 * s + 1], xk + o,
                                       &info) < 0;
    }
    cr_expect(fl[s] || !memcmp(ends + 6 * s, rows, sizeof rows),
              "m=%zu nsys=%zu left=%d right=%d hybrid=%d: system %zu: the rows kept are not "
              "the sweeps' bits", m, nsys, has_left, has_right, hyb, s);
    skip[s] = bad[s] || s == skip_sys;
  }
  size_t fin = (hyb ? tl_cpu_hybrid_pcr_finish_d : tl_cpu_tridsolver_finish_d)(
      n, begin, m, nsys, has_left, has_right, a, b, c, d, F, skip, x, redo, halo, passes);
  cr_expect_eq(fin, done);
  for (size_t s = 0; s < fin; s++) {
    int group_skipped = 0;
    for (size_t q = s / 8 * 8; q < s / 8 * 8 + 8; q++)
      group_skipped |= skip[q];
    if (group_skipped) {
      cr_expect_eq(redo[s], !skip[s], "m=%zu nsys=%zu: system %zu of a skipped group", m, nsys, s);
      continue;
    }
    cr_expect_eq(redo[s], bk[s], "m=%zu nsys=%zu: system %zu redo %d, sweeps %d", m, nsys, s,
                 redo[s], bk[s]);
    if (redo[s])
      continue;
    cr_expect(!memcmp(x + s * m, xk + s * m, m * sizeof *x),
              "m=%zu nsys=%zu left=%d right=%d hybrid=%d: system %zu: x is not the sweeps' bits",
              m, nsys, has_left, has_right, hyb, s);
    tl_cpu_residual_slice_pass_d(n, 0, begin, m, a + s * m, b + s * m, c + s * m, d + s * m,
                                 xk + s * m, halo + 4 * s, &want[s]);
    cr_expect(!memcmp(&passes[s], &want[s], sizeof want[s]),
              "m=%zu nsys=%zu: system %zu: the fused pass is not the verdict's bits", m, nsys, s);
  }
  free(v);
  free(keep);
  free(ends);
  free(fl);
  free(passes);
}

/* Every size around the tile and group edges, both sides. */
static void ends_and_finish_sizes(int hyb, uint64_t seed)
{
  static const size_t ms[] = {2, 3, 7, 8, 9, 16, 17, 64, 67};
  static const size_t ns[] = {7, 8, 9, 16, 24, 33};
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
      for (int lr = 0; lr < 4; lr++)
        ends_and_finish(hyb, ms[i], ns[j], lr & 1, lr >> 1, (size_t)-1, (size_t)-1, seed++);
}

/* A group with a broken system, or one the caller skips. */
static void ends_and_finish_skipped(int hyb, uint64_t seed)
{
  for (size_t m = 3; m <= 17; m += 7)
    for (size_t sys = 0; sys < 33; sys += 4) {
      ends_and_finish(hyb, m, 33, 1, 1, sys, (size_t)-1, seed++); /* flagged, skipped */
      ends_and_finish(hyb, m, 33, 1, 0, (size_t)-1, sys, seed++); /* skipped by the caller */
    }
}

Test(modified_thomas_cpu, tridsolver_ends_and_finish_are_the_sweeps_bits)
{
  TH_NEEDS_LANES();
  ends_and_finish_sizes(0, 500);
}
Test(modified_thomas_cpu, tridsolver_finish_leaves_a_skipped_group_to_the_caller)
{
  TH_NEEDS_LANES();
  ends_and_finish_skipped(0, 900);
}
Test(modified_thomas_cpu, hybrid_ends_and_finish_are_the_sweeps_bits)
{
  TH_NEEDS_LANES();
  ends_and_finish_sizes(1, 700);
}
Test(modified_thomas_cpu, hybrid_finish_leaves_a_skipped_group_to_the_caller)
{
  TH_NEEDS_LANES();
  ends_and_finish_skipped(1, 1100);
}

/* A pivot that cancels: row 9 of system 3 a = 0, b = c = 49, row 10 a = b
 * = 1, c = 0. The references' pivot of row 10 is 1 - 49 / 49 = 0, a
 * breakdown they report; one reciprocal gives 1 - 49 (1 / 49) = 1.1e-16,
 * finite. The sweeps must send system 3 to the reference
 * (tl_lanes_check_pivot, lanes.h) and keep the others. */
Test(modified_thomas_cpu, a_pivot_that_cancels_goes_to_the_reference)
{
  TH_NEEDS_LANES();
  enum { M = 20, NSYS = 8 };
  size_t m = M, cnt = m * NSYS;
  for (int hyb = 0; hyb < 2; hyb++) {
    double *v = th_dominant_slices(m, NSYS, 78);
    double *a = v, *b = v + cnt, *c = v + 2 * cnt, *d = v + 3 * cnt, *s3 = v + 3 * m;
    s3[9] = 0.0, s3[cnt + 9] = s3[2 * cnt + 9] = 49.0;
    s3[10] = s3[cnt + 10] = 1.0, s3[2 * cnt + 10] = 0.0;
    double out[3 * M], ends[6 * NSYS];
    unsigned char bad[NSYS] = {0};
    tl_info info;
    int st = hyb ? tl_hybrid_pcr_forward_d(m, m, 1, 1, a + 3 * m, b + 3 * m, c + 3 * m, d + 3 * m,
                                           out, out + m, out + 2 * m, &info)
                 : tl_tridsolver_forward_d(m, m, 1, 1, a + 3 * m, b + 3 * m, c + 3 * m, d + 3 * m,
                                           out, out + m, out + 2 * m, &info);
    cr_expect_eq(st, TL_ERR_BREAKDOWN, "hybrid %d: the reference gives %s", hyb,
                 tl_status_name(st));
    if (hyb)
      tl_cpu_hybrid_pcr_ends_d(m, NSYS, 1, 1, a, b, c, d, ends, bad);
    else
      tl_cpu_tridsolver_ends_d(m, NSYS, 1, 1, a, b, c, d, ends, bad);
    for (size_t s = 0; s < NSYS; s++)
      cr_expect_eq(bad[s], s == 3, "hybrid %d: system %zu flagged %d", hyb, s, bad[s]);
    free(v);
  }
}
