/* tests/test_hybrid_pcr.c -- the hybrid Thomas-PCR partition solver.
 *
 * Against LAPACK (tl_lapack_solve) for P in {1,2,3,4,7,16}, equal and
 * unequal partitions, 2 rows per partition up to thousands, real and
 * complex; the phases called one by one give the one-call result bit for
 * bit; limits are clear errors; non-dominant input is reported; the whole
 * gallery never gives a silent wrong answer. Non-periodic systems are
 * passed with NaN corners when the kernels are called directly: they must
 * never be read.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/algorithms.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

#define SEED 0x5eed4b1du
static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])

static const tl_algorithm *algo(void)
{
  const tl_algorithm *a = NULL;
  extern const tl_algorithm tl_algo_hybrid_pcr_ref;
  a = &tl_algo_hybrid_pcr_ref;
  return a;
}

static void check_type(int id, size_t n, size_t nsys, const tl_options *opt)
{
  th_check_type(algo(), id, n, nsys, SEED + n, opt);
}

Test(hybrid_pcr, registry_entry)
{
  const tl_algorithm *a = algo();
  cr_expect_str_eq(a->name, "hybrid_pcr");
  cr_expect_str_eq(a->family, "partition");
  cr_expect_str_eq(a->backend, "reference");
  cr_expect_eq(a->exact, 1);
  cr_expect_eq(a->partitioned, 1);
  cr_expect_eq(a->min_rows_per_part, 2);
  cr_expect_eq(a->classes, TL_CLASS_STRICT_DD);
  cr_expect_eq(a->dtypes, TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128));
  cr_expect_eq(a->layouts, TL_NONPERIODIC);
}

/* Dominant real and complex systems, even partitions, 2 rows per part up. */
Test(hybrid_pcr, against_lapack_even)
{
  static const int ids[] = {20, 21, 24, 34, 60, 62};
  for (size_t k = 0; k < NPARTS; k++) {
    int P = parts_list[k];
    tl_options opt;
    tl_options_init(&opt);
    opt.parts = P;
    size_t sizes[] = {2 * (size_t)P, 2 * (size_t)P + 1, 3 * (size_t)P, 4 * (size_t)P + 3, 100,
                      1001, 5000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++)
        check_type(ids[t], sizes[s], 2, &opt);
  }
}

/* Unequal partitions: 2 rows next to large ones, in every position. */
Test(hybrid_pcr, against_lapack_unequal)
{
  static const size_t layouts[][5] = {
      {2, 100, 3, 2, 57}, {57, 2, 2, 2, 1}, {3, 3, 4, 200, 2}, {2, 2, 2, 2, 2}, {9, 2, 31, 4, 2}};
  static const int ids[] = {20, 23, 62};
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
    size_t sizes[5], n = 0;
    int P = 0;
    for (int q = 0; q < 5 && layouts[l][q] >= 2; q++) {
      sizes[q] = layouts[l][q];
      n += sizes[q];
      P++;
    }
    tl_options opt;
    tl_options_init(&opt);
    opt.parts = P;
    opt.part_sizes = sizes;
    for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++)
      check_type(ids[t], n, 3, &opt);
  }
}

/* The phases one by one, as a learner would call them, give the one-call
 * result bit for bit; NaN corners are never read. */
Test(hybrid_pcr, phases_equal_one_call)
{
  static const size_t sizes[] = {2, 3, 4, 5, 9, 300};
  tl_problem p;
  tl_info info;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t m = sizes[s];
    int P = 4;
    size_t n = m * (size_t)P;
    cr_assert_eq(tl_gallery_make(20, n, 1, SEED, &p, &info), TL_OK);
    double *a = malloc(n * sizeof *a), *b = p.b, *c = malloc(n * sizeof *c), *d = p.d;
    memcpy(a, p.a, n * sizeof *a);
    memcpy(c, p.c, n * sizeof *c);
    a[0] = NAN;
    c[n - 1] = NAN;
    double *x1 = calloc(n, sizeof *x1), *x2 = calloc(n, sizeof *x2);
    double *as = calloc(n, sizeof *as), *cs = calloc(n, sizeof *cs), *ds = calloc(n, sizeof *ds);
    double send[TL_HYBRID_PCR_SEND * 4], ra[8], rb[8], rc[8], rd[8], y[8];
    cr_assert_eq(tl_hybrid_pcr_ref_d(n, P, NULL, a, b, c, d, x1, &info), TL_OK, "%s", info.msg);
    for (int q = 0; q < P; q++) {
      size_t lo, hi;
      tl_partition_bounds(n, P, NULL, q, &lo, &hi);
      cr_assert_eq(tl_hybrid_pcr_forward_d(lo, hi - lo, q > 0, q + 1 < P, a + lo, b + lo, c + lo,
                                           d + lo, as + lo, cs + lo, ds + lo, &info),
                   TL_OK);
      tl_hybrid_pcr_pack_d(hi - lo, as + lo, cs + lo, ds + lo, send + TL_HYBRID_PCR_SEND * q);
    }
    tl_hybrid_pcr_gather_d(P, send, ra, rb, rc, rd);
    cr_assert_geq(tl_pcr_ref_d(2 * (size_t)P, ra, rb, rc, rd, y, &info), 0);
    for (int q = 0; q < P; q++) {
      size_t lo, hi;
      tl_partition_bounds(n, P, NULL, q, &lo, &hi);
      cr_assert_eq(tl_hybrid_pcr_backward_d(lo, hi - lo, as + lo, cs + lo, ds + lo, y[2 * q],
                                            y[2 * q + 1], x2 + lo, &info),
                   TL_OK);
    }
    cr_expect(memcmp(x1, x2, n * sizeof *x1) == 0, "m=%zu: phases differ from one call", m);
    for (size_t i = 0; i < n; i++)
      cr_expect(isfinite(x1[i]));
    free(a), free(c), free(x1), free(x2), free(as), free(cs), free(ds);
    tl_problem_free(&p);
  }
}

/* After the forward phase the local rows have the structure the header
 * promises: check them against the original equations with the exact x. */
Test(hybrid_pcr, forward_structure)
{
  tl_problem p;
  tl_info info;
  size_t n = 10;
  cr_assert_eq(tl_gallery_make(23, n, 1, SEED, &p, &info), TL_OK);
  const double *x = p.xtrue;
  double as[10], cs[10], ds[10];
  /* one middle partition: rows 3..8, neighbours x[2] and x[9] */
  size_t lo = 3, m = 6;
  const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
  cr_assert_eq(tl_hybrid_pcr_forward_d(lo, m, 1, 1, a + lo, b + lo, c + lo, d + lo, as, cs, ds,
                                       &info),
               TL_OK);
  double tol = 64 * TL_EPS;
  cr_expect(fabs(as[0] * x[lo - 1] + x[lo] + cs[0] * x[lo + m - 1] - ds[0]) < tol);
  for (size_t i = 1; i + 1 < m; i++)
    cr_expect(fabs(as[i] * x[lo] + x[lo + i] + cs[i] * x[lo + m - 1] - ds[i]) < tol, "row %zu",
              i);
  cr_expect(fabs(as[m - 1] * x[lo] + x[lo + m - 1] + cs[m - 1] * x[lo + m] - ds[m - 1]) < tol);
  tl_problem_free(&p);
}

Test(hybrid_pcr, limits)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, 7, 1, SEED, &p, &info), TL_OK);
  double x[7];
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 4; /* 7 rows: some partition gets 1 row */
  cr_expect_eq(tl_solve(algo(), &p.sys, x, &opt, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  size_t sizes[] = {1, 6};
  opt.parts = 2;
  opt.part_sizes = sizes;
  cr_expect_eq(tl_solve(algo(), &p.sys, x, &opt, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  double as[1], cs[1], ds[1];
  const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
  cr_expect_eq(tl_hybrid_pcr_forward_d(0, 1, 0, 0, a, b, c, d, as, cs, ds, &info), TL_ERR_ARG);
  cr_expect_eq(tl_hybrid_pcr_ref_d(7, 4, NULL, a, b, c, d, x, &info), TL_ERR_ARG);
  cr_expect_eq(tl_hybrid_pcr_ref_d(0, 1, NULL, a, b, c, d, x, &info), TL_ERR_ARG);
  tl_problem_free(&p);
  /* periodic systems are not taken */
  cr_assert_eq(tl_gallery_make(50, 8, 1, SEED, &p, &info), TL_OK);
  double y[8];
  opt.parts = 2;
  opt.part_sizes = NULL;
  cr_expect_eq(tl_solve(algo(), &p.sys, y, &opt, &info), TL_ERR_UNSUPPORTED);
  tl_problem_free(&p);
}

Test(hybrid_pcr, outside_domain_and_breakdown)
{
  tl_problem p;
  tl_info info;
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 3;
  cr_assert_eq(tl_gallery_make(25, 30, 1, SEED, &p, &info), TL_OK); /* toeplitz-1.5 */
  double x[30];
  cr_expect_eq(tl_solve(algo(), &p.sys, x, &opt, &info), TL_OUTSIDE_DOMAIN);
  cr_expect(info.row >= 0);
  tl_problem_free(&p);
  /* a zero diagonal with a non-zero off-diagonal: breakdown at its row */
  double a[6] = {0, 1, 1, 1, 1, 1}, b[6] = {4, 4, 4, 0, 4, 4}, c[6] = {1, 1, 1, 1, 1, 0};
  double d[6] = {1, 2, 3, 4, 5, 6};
  cr_expect_eq(tl_hybrid_pcr_ref_d(6, 2, NULL, a, b, c, d, x, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 3);
  b[3] = 4;
  b[5] = 0;
  a[5] = 0; /* row 5 = 0: singular, a zero pivot */
  cr_expect_eq(tl_hybrid_pcr_ref_d(6, 2, NULL, a, b, c, d, x, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 5);
}

/* The global promise over the whole gallery. */
Test(hybrid_pcr, gallery_no_silent_wrong_answer, .timeout = 120)
{
  static const size_t ns[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    if (t->periodic)
      continue; /* not taken: TL_ERR_UNSUPPORTED, checked in limits */
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
      for (size_t q = 0; q < NPARTS; q++) {
        size_t n = ns[s];
        int P = parts_list[q];
        if (n < t->min_n || n < 2 * (size_t)P)
          continue;
        tl_problem p;
        tl_info info;
        cr_assert_eq(tl_gallery_make(t->id, n, 1, SEED, &p, &info), TL_OK);
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
        double resid, ferr;
        int st = th_solve_measure(algo(), &p, &opt, &resid, &ferr, NULL, &info);
        if (st == TL_OK) {
          cr_expect(resid < TL_THRESH, "%s n=%zu P=%d: silent residual ratio %g", t->name, n, P,
                    resid);
          cr_expect(t->singular || ferr < TL_THRESH, "%s n=%zu P=%d: silent forward ratio %g",
                    t->name, n, P, ferr);
        }
        if (tl_gallery_expects_pass(t, algo()))
          cr_expect_eq(st, TL_OK, "%s n=%zu P=%d: expected to pass, got %d (%s)", t->name, n, P,
                       st, info.msg);
        tl_problem_free(&p);
      }
  }
}
