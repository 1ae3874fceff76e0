/* tests/test_spike.c -- SPIKE with partially pivoted local solves.
 *
 * Where LAPACK's gtsv solves (non-dominant, indefinite matrices), spike's
 * answer passes LAPACK's residual test too at P in {1, 2, 3, 4, 7, 16},
 * real and complex, and says outside-domain: its guarantee is strict row
 * dominance; a block that is singular for one partition is reported
 * naming that partition, and other partitions of the same matrix solve it; the local factorization
 * is LAPACK's (DGTTRF/DGTTRS: the same pivots); the ledger is the model's;
 * the phases called one by one give the one-call result bit for bit.
 */
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/part_spike.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])

static const tl_algorithm *spike(void)
{
  const tl_algorithm *a = tl_find("spike");
  cr_assert_not_null(a);
  return a;
}

/* Solve gallery type `id` (n rows, nsys systems) with P partitions;
 * returns the status, the ratios in *resid, *ferr. */
static int solve_type(int id, size_t n, size_t nsys, int P, double *resid, double *ferr,
                      tl_info *info)
{
  tl_problem p;
  cr_assert_eq(tl_gallery_make(id, n, nsys, 11 + (uint64_t)n, &p, info), TL_OK, "%s",
               info->msg);
  void *x = calloc(n * nsys, tl_dtype_size(p.sys.dtype));
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  int st = tl_solve(spike(), &p.sys, x, &opt, info);
  *resid = *ferr = NAN;
  if (tl_status_has_solution(st))
    cr_assert_eq(th_ratios(&p.sys, x, resid, ferr), 0);
  free(x);
  tl_problem_free(&p);
  return st;
}

/* Matrices no algorithm without pivoting takes: the indefinite Toeplitz
 * tridiag(1, 1.5, 1) (type 25), at every P: the answer passes LAPACK's
 * ratios, and the status says there is no guarantee. A row- and
 * column-dominant random one (type 2): ok. */
Test(spike, solves_what_gtsv_solves)
{
  static const int ids[] = {25, 2};
  static const size_t sizes[] = {17, 64, 255, 1000};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
      for (size_t k = 0; k < NPARTS; k++) {
        double resid, ferr;
        tl_info info;
        int st = solve_type(ids[i], sizes[j], 3, parts_list[k], &resid, &ferr, &info);
        int want = ids[i] == 25 ? TL_OUTSIDE_DOMAIN : TL_OK;
        cr_expect_eq(st, want, "type %d n=%zu P=%d: %s", ids[i], sizes[j], parts_list[k],
                     info.msg);
        if (tl_status_has_solution(st))
          cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "type %d n=%zu P=%d: %g %g", ids[i],
                    sizes[j], parts_list[k], resid, ferr);
      }
}

/* Random matrices (every entry uniform in [-1, 1); scaled near underflow
 * and overflow): no guarantee, so outside-domain (or a singular block's
 * breakdown); most answers still pass LAPACK's ratios. */
Test(spike, random_matrices_solve_or_say_why)
{
  static const int ids[] = {7, 11, 12};
  static const size_t sizes[] = {17, 64, 255, 1000};
  int ran = 0, good = 0;
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
      for (size_t k = 0; k < NPARTS; k++) {
        double resid, ferr;
        tl_info info;
        int st = solve_type(ids[i], sizes[j], 3, parts_list[k], &resid, &ferr, &info);
        ran++;
        cr_expect(st == TL_OUTSIDE_DOMAIN || st == TL_ERR_BREAKDOWN, "type %d n=%zu P=%d: %s",
                  ids[i], sizes[j], parts_list[k], info.msg);
        good += st == TL_OUTSIDE_DOMAIN && resid < TL_THRESH && ferr < TL_THRESH;
      }
  cr_expect(good >= ran * 4 / 5, "%d of %d answers pass LAPACK's ratios", good, ran);
}

Test(spike, complex_indefinite)
{
  const tl_gallery_type *t = NULL;
  for (size_t k = 0; k < tl_gallery_count() && !t; k++)
    if (!strcmp(tl_gallery_get(k)->name, "complex-random"))
      t = tl_gallery_get(k);
  cr_assert_not_null(t);
  for (size_t k = 0; k < NPARTS; k++) {
    double resid, ferr;
    tl_info info;
    int st = solve_type(t->id, 200, 2, parts_list[k], &resid, &ferr, &info);
    cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "P=%d: %s", parts_list[k], info.msg);
    cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "P=%d: %g %g", parts_list[k], resid, ferr);
  }
}

/* [1 1; 1 1] as the first block of two: singular there, while the whole
 * matrix (and other splits of it) is not. */
Test(spike, a_singular_block_names_its_partition)
{
  enum { N = 6 };
  double a[N] = {0, 1, 2, 1, 1, 1}, b[N] = {1, 1, 5, 4, 4, 4}, c[N] = {1, 1, 1, 1, 1, 0};
  double d[N] = {1, 2, 3, 4, 5, 6}, x[N];
  tl_batch sys = {TL_F64, N, 1, 0, a, b, c, d};
  tl_options opt;
  tl_options_init(&opt);
  tl_info info;
  size_t sizes[2] = {2, 4};
  opt.parts = 2;
  opt.part_sizes = sizes;
  int st = tl_solve(spike(), &sys, x, &opt, &info);
  cr_expect_eq(st, TL_ERR_BREAKDOWN, "%s", tl_status_name(st));
  cr_expect(strstr(info.msg, "partition 0 (rows 0..1) is singular") != NULL, "%s", info.msg);
  cr_expect_eq(info.row, 1);
  size_t other[2] = {3, 3};
  opt.part_sizes = other;
  st = tl_solve(spike(), &sys, x, &opt, &info);
  cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "not dominant: %s", info.msg);
  double resid, ferr;
  cr_assert_eq(th_ratios(&sys, x, &resid, &ferr), 0);
  cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "%g %g", resid, ferr);
}

/* The block factorization is LAPACK's DGTTRF and the block solve its
 * DGTTRS: the same pivots, the same answer. */
Test(spike, the_block_factorization_is_dgttrf)
{
  static const size_t sizes[] = {1, 2, 3, 4, 9, 33};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    size_t m = sizes[z];
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(7, m, 1, 3 + m, &p, &info), TL_OK);
    double *w = calloc(12 * m + 4, sizeof *w);
    unsigned char *swap = calloc(m, 1);
    double *l = w, *u0 = l + m, *u1 = u0 + m, *u2 = u1 + m, *y = u2 + m;
    double *dl = y + m, *dd = dl + m, *du = dd + m, *du2 = du + m, *yl = du2 + m;
    cr_assert_eq(tl_spike_factor_d(0, m, 0, p.a, p.b, p.c, l, u0, u1, u2, swap, &info), TL_OK,
                 "%s", info.msg);
    memcpy(y, p.d, m * sizeof *y);
    tl_spike_solve_block_d(m, l, u0, u1, u2, swap, y);
    lapack_int ipiv[40];
    for (size_t i = 0; i < m; i++) {
      dd[i] = ((const double *)p.b)[i];
      if (i + 1 < m) {
        dl[i] = ((const double *)p.a)[i + 1];
        du[i] = ((const double *)p.c)[i];
      }
      yl[i] = ((const double *)p.d)[i];
    }
    cr_assert_eq(LAPACKE_dgttrf((lapack_int)m, dl, dd, du, du2, ipiv), 0);
    cr_assert_eq(LAPACKE_dgttrs(LAPACK_COL_MAJOR, 'N', (lapack_int)m, 1, dl, dd, du, du2, ipiv,
                                yl, (lapack_int)m),
                 0);
    for (size_t i = 0; i + 1 < m; i++)
      cr_expect_eq(swap[i], ipiv[i] == (lapack_int)(i + 2), "m=%zu row %zu: swap %d, ipiv %d",
                   m, i, swap[i], (int)ipiv[i]);
    for (size_t i = 0; i < m; i++)
      cr_expect(fabs(y[i] - yl[i]) <= 4 * TL_EPS * fabs(yl[i]), "m=%zu x[%zu] %.17g, LAPACK %.17g",
                m, i, y[i], yl[i]);
    free(w);
    free(swap);
    tl_problem_free(&p);
  }
}

/* The messages the simulated partitions record are the model's. */
Test(spike, ledger_is_the_model)
{
  static const int ids[] = {7, 25, 60};
  th_expect_ledger_is_model("spike", ids, sizeof ids / sizeof ids[0]);
}

/* The phases one by one (as an MPI rank or a lab exercise runs them)
 * give tl_solve's answer, bit for bit. */
Test(spike, phases_one_by_one_are_the_solve)
{
  enum { N = 50, P = 4 };
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(25, N, 1, 9, &p, &info), TL_OK);
  const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
  double l[N], u0[N], u1[N], u2[N], g[N], v[N], w[N], x[N], xs[N], tips[6 * P], y[2 * P];
  unsigned char swap[N];
  for (int q = 0; q < P; q++) {
    size_t lo, hi;
    tl_partition_bounds(N, P, NULL, q, &lo, &hi);
    size_t m = hi - lo;
    cr_assert_eq(tl_spike_factor_d(lo, m, q, a + lo, b + lo, c + lo, l + lo, u0 + lo, u1 + lo,
                                   u2 + lo, swap + lo, &info),
                 TL_OK);
    cr_assert_eq(tl_spike_local_d(lo, m, q > 0, q + 1 < P, a + lo, c + lo, d + lo, l + lo,
                                  u0 + lo, u1 + lo, u2 + lo, swap + lo, g + lo, v + lo, w + lo,
                                  &info),
                 TL_OK);
    tl_spike_tips_d(m, q > 0, q + 1 < P, g + lo, v + lo, w + lo, tips + 6 * q);
  }
  cr_assert_eq(tl_spike_reduced_d(P, tips, y, &info), TL_OK);
  for (int q = 0; q < P; q++) {
    size_t lo, hi;
    tl_partition_bounds(N, P, NULL, q, &lo, &hi);
    cr_assert_eq(tl_spike_retrieve_d(lo, hi - lo, q > 0, q + 1 < P, g + lo, v + lo, w + lo,
                                     q > 0 ? y[2 * q - 2] : 0, q + 1 < P ? y[2 * q + 1] : 0,
                                     x + lo, &info),
                 TL_OK);
  }
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  cr_assert_eq(tl_solve(spike(), &p.sys, xs, &opt, &info), TL_OUTSIDE_DOMAIN, "%s", info.msg);
  cr_expect(!memcmp(x, xs, sizeof x), "the phases differ from the solve");
  tl_problem_free(&p);
}
