/* tests/test_tridsolver.c -- the Tridsolver partition solver (forward
 * sweep to one reduced row per partition; allgather, gather_scatter, pcr
 * and jacobi on the reduced system).
 *
 * Against LAPACK for P in {1,2,3,4,7,16}, equal and unequal partitions,
 * every strategy, real and complex; phases one by one == one call (bit for
 * bit); allgather == gather_scatter bit for bit, pcr equal up to
 * round-off; jacobi reports dropped / tol / bound and respects the bound,
 * reports too few sweeps and non-convergence; limits are clear errors; the
 * whole gallery never gives a silent wrong answer.
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/algorithms.h"
#include "tridlab/part_tridsolver.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

extern const tl_algorithm tl_algo_tridsolver_ref;
#define ALGO (&tl_algo_tridsolver_ref)
#define SEED 0x7a1d5013u
static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])
static const char *const strategies[] = {"allgather", "gather_scatter", "pcr", "jacobi"};

static void set_strategy(tl_options *opt, int s)
{
  tl_info info;
  cr_assert_eq(tl_options_set_param(opt, ALGO, "reduced", strategies[s], &info), TL_OK);
}

static void check_type(int id, size_t n, const tl_options *opt)
{
  th_check_type(ALGO, id, n, 2, SEED + n, opt);
}

Test(tridsolver, registry_entry)
{
  const tl_algorithm *a = ALGO;
  cr_expect_str_eq(a->name, "tridsolver");
  cr_expect_str_eq(a->family, "partition");
  cr_expect_eq(a->partitioned, 1);
  cr_expect_eq(a->min_rows_per_part, 2);
  cr_expect_eq(a->classes, TL_CLASS_STRICT_DD);
  cr_expect_eq(a->layouts, TL_NONPERIODIC);
  cr_expect_eq(a->nparams, 5); /* reduced, iters, tol, maxit, minibatch */
  tl_options opt;
  tl_options_init(&opt);
  cr_expect_eq(tl_param_value(a, &opt, "reduced"), TL_TRIDSOLVER_ALLGATHER);
  for (int s = 0; s < 4; s++) {
    set_strategy(&opt, s);
    cr_expect_eq((int)tl_param_value(a, &opt, "reduced"), s);
  }
}

Test(tridsolver, against_lapack_every_strategy)
{
  static const int ids[] = {20, 21, 24, 34, 60, 62};
  for (int s = 0; s < 4; s++)
    for (size_t k = 0; k < NPARTS; k++) {
      int P = parts_list[k];
      tl_options opt;
      tl_options_init(&opt);
      opt.parts = P;
      set_strategy(&opt, s);
      size_t sizes[] = {2 * (size_t)P, 2 * (size_t)P + 1, 3 * (size_t)P, 4 * (size_t)P + 3, 100,
                        1001, 5000};
      for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++)
          check_type(ids[t], sizes[z], &opt);
    }
}

Test(tridsolver, against_lapack_unequal)
{
  static const size_t layouts[][5] = {
      {2, 100, 3, 2, 57}, {57, 2, 2, 2, 0}, {3, 3, 4, 200, 2}, {2, 2, 2, 2, 2}, {9, 2, 31, 4, 2}};
  static const int ids[] = {20, 23, 62};
  for (int s = 0; s < 4; s++)
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
      set_strategy(&opt, s);
      for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++)
        check_type(ids[t], n, &opt);
    }
}

/* Phases one by one (the exchange buffers written out) == one call, for
 * each exact strategy; allgather == gather_scatter bit for bit; pcr within
 * round-off. NaN corners are never read. */
Test(tridsolver, phases_equal_one_call)
{
  static const size_t ms[] = {2, 3, 4, 5, 9, 300};
  for (size_t z = 0; z < sizeof ms / sizeof ms[0]; z++) {
    size_t m = ms[z];
    int P = 5;
    size_t n = m * (size_t)P;
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(20, n, 1, SEED, &p, &info), TL_OK);
    double *a = malloc(n * sizeof *a), *b = p.b, *c = malloc(n * sizeof *c), *d = p.d;
    memcpy(a, p.a, n * sizeof *a);
    memcpy(c, p.c, n * sizeof *c);
    a[0] = NAN;
    c[n - 1] = NAN;
    double *as = calloc(n, 8), *cs = calloc(n, 8), *ds = calloc(n, 8);
    double last[15], rows[20], work[40], F[6];
    double *xs[4];
    for (int s = 0; s < 3; s++) {
      double *x1 = calloc(n, 8), *x2 = calloc(n, 8);
      cr_assert_eq(tl_tridsolver_ref_d(n, P, NULL, s, 0, 1e-15, 100, a, b, c, d, x1, &info),
                   TL_OK, "%s", info.msg);
      for (int q = 0; q < P; q++) {
        size_t lo, hi;
        tl_partition_bounds(n, P, NULL, q, &lo, &hi);
        cr_assert_eq(tl_tridsolver_forward_d(lo, hi - lo, q > 0, q + 1 < P, a + lo, b + lo,
                                             c + lo, d + lo, as + lo, cs + lo, ds + lo, &info),
                     TL_OK);
        tl_tridsolver_last_row_d(hi - lo, as + lo, cs + lo, ds + lo, last + 3 * q);
      }
      for (int q = 0; q < P; q++) {
        size_t lo, hi;
        tl_partition_bounds(n, P, NULL, q, &lo, &hi);
        tl_tridsolver_reduced_row_d(hi - lo, as + lo, cs + lo, ds + lo,
                                    q > 0 ? last + 3 * (q - 1) : NULL, rows + 4 * q);
      }
      if (s == 0)
        cr_assert_eq(tl_tridsolver_allgather_d(P, rows, work, F, &info), TL_OK);
      else if (s == 1)
        cr_assert_eq(tl_tridsolver_gather_scatter_d(P, rows, work, F, &info), TL_OK);
      else
        cr_assert_eq(tl_tridsolver_pcr_d(P, rows, work, F, &info), TL_OK);
      F[P] = 0;
      for (int q = 0; q < P; q++) {
        size_t lo, hi;
        tl_partition_bounds(n, P, NULL, q, &lo, &hi);
        cr_assert_eq(tl_tridsolver_backward_d(lo, hi - lo, as + lo, cs + lo, ds + lo, F[q],
                                              F[q + 1], x2 + lo, &info),
                     TL_OK);
      }
      cr_expect(memcmp(x1, x2, n * 8) == 0, "m=%zu strategy %d: phases differ", m, s);
      free(x2);
      xs[s] = x1;
    }
    cr_expect(memcmp(xs[0], xs[1], n * 8) == 0, "allgather and gather_scatter differ");
    double xmax = 0, dmax = 0;
    for (size_t i = 0; i < n; i++) {
      xmax = fmax(xmax, fabs(xs[0][i]));
      dmax = fmax(dmax, fabs(xs[0][i] - xs[2][i]));
    }
    cr_expect(dmax <= 64 * TL_EPS * xmax, "pcr differs from allgather by %g", dmax / xmax);
    for (int s = 0; s < 3; s++)
      free(xs[s]);
    free(a), free(c), free(as), free(cs), free(ds);
    tl_problem_free(&p);
  }
}

/* Jacobi: tolerance mode converges and reports; the bound holds; a fixed
 * small count is reported with dropped > tol; enough sweeps are fine. */
Test(tridsolver, jacobi_reports_and_bound)
{
  tl_problem p;
  tl_info info;
  size_t n = 400;
  cr_assert_eq(tl_gallery_make(21, n, 1, SEED, &p, &info), TL_OK); /* tridiag(1, 2.05, 1) */
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 16;
  set_strategy(&opt, TL_TRIDSOLVER_JACOBI);
  double resid, ferr, relerr;
  int st = th_solve_measure(ALGO, &p, &opt, &resid, &ferr, &relerr, &info);
  cr_expect_eq(st, TL_OK, "%s", info.msg);
  cr_expect(info.iterations > 0);
  cr_expect(info.dropped <= info.tol && info.tol == 8 * TL_EPS);
  cr_expect(relerr <= info.bound + 64 * TL_EPS, "error %g > bound %g", relerr, info.bound);
  /* a few sweeps are not enough: TL_OUTSIDE_DOMAIN, dropped > tol, bound holds */
  for (int k = 1; k <= 4; k++) {
    char v[16];
    snprintf(v, sizeof v, "%d", k);
    cr_assert_eq(tl_options_set_param(&opt, ALGO, "iters", v, &info), TL_OK);
    st = th_solve_measure(ALGO, &p, &opt, &resid, &ferr, &relerr, &info);
    cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "iters=%d: %d %s", k, st, info.msg);
    cr_expect_eq(info.iterations, k);
    cr_expect(info.dropped > info.tol);
    cr_expect(info.bound >= info.dropped);
    cr_expect(relerr <= info.bound * (1 + 1e-12) + 64 * TL_EPS, "iters=%d error %g > bound %g",
              k, relerr, info.bound);
  }
  /* many fixed sweeps reach the tolerance */
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "iters", "200", &info), TL_OK);
  st = th_solve_measure(ALGO, &p, &opt, &resid, &ferr, &relerr, &info);
  cr_expect_eq(st, TL_OK, "%s", info.msg);
  cr_expect(info.iterations >= 1 && info.iterations <= 200, "%d sweeps", info.iterations);
  /* iterate to a loose tolerance: approximate answer, bound respected */
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "iters", "0", &info), TL_OK);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "tol", "1e-6", &info), TL_OK);
  st = th_solve_measure(ALGO, &p, &opt, &resid, &ferr, &relerr, &info);
  cr_expect(st == TL_OK || st == TL_OUTSIDE_DOMAIN);
  cr_expect(info.dropped <= 1e-6 && info.tol == 1e-6);
  cr_expect(relerr <= info.bound + 64 * TL_EPS);
  /* iteration limit: not converged, no solution */
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "tol", "2e-16", &info), TL_OK);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "maxit", "3", &info), TL_OK);
  st = th_solve_measure(ALGO, &p, &opt, &resid, &ferr, &relerr, &info);
  cr_expect_eq(st, TL_ERR_NOT_CONVERGED, "%d %s", st, info.msg);
  tl_problem_free(&p);
}

/* The reduced rows of a gallery matrix (phases 1-3). */
static void reduced_rows(const tl_problem *p, int P, double *rows)
{
  size_t n = p->sys.n;
  double *w = calloc(3 * n + 3 * (size_t)P, sizeof(double));
  double *as = w, *cs = w + n, *ds = w + 2 * n, *last = w + 3 * n;
  const double *a = p->a, *b = p->b, *c = p->c, *d = p->d;
  for (int q = 0; q < P; q++) {
    size_t lo, hi;
    tl_info info;
    tl_partition_bounds(n, P, NULL, q, &lo, &hi);
    cr_assert_eq(tl_tridsolver_forward_d(lo, hi - lo, q > 0, q + 1 < P, a + lo, b + lo, c + lo,
                                         d + lo, as + lo, cs + lo, ds + lo, &info),
                 TL_OK);
    tl_tridsolver_last_row_d(hi - lo, as + lo, cs + lo, ds + lo, last + 3 * q);
    tl_tridsolver_reduced_row_d(hi - lo, as + lo, cs + lo, ds + lo,
                                q > 0 ? last + 3 * (q - 1) : NULL, rows + 4 * q);
  }
  free(w);
}

/* Issue 9: a fixed sweep count stops as soon as the sweeps repeat
 * themselves (iters = 1e9 ran every sweep after the reduced residual was
 * exactly zero: 9.7 s for n = 50), and ends on the bits that all the
 * sweeps give: compared with the sweeps done one by one. */
Test(tridsolver, jacobi_fixed_count_stops_when_settled)
{
  static const int types[] = {20, 21, 23, 7, 3};
  static const int Ps[] = {2, 5, 25};
  static const long counts[] = {1, 2, 3, 10, 101, 1000, 1001};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t q = 0; q < sizeof Ps / sizeof Ps[0]; q++) {
      int P = Ps[q];
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(types[t], 50, 1, SEED, &p, &info), TL_OK);
      double rows[100], work[50], F[26], G[26], old[26];
      reduced_rows(&p, P, rows);
      for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int st = tl_tridsolver_jacobi_d(P, rows, work, F, counts[k], 1.0, 1, &info);
        for (int r = 0; r < P; r++)
          G[r] = rows[4 * r + 3] / rows[4 * r + 1];
        for (long it = 0; it < counts[k]; it++) {
          memcpy(old, G, sizeof G);
          for (int r = 0; r < P; r++)
            G[r] = tl_tridsolver_jacobi_update_d(rows + 4 * r, r > 0 ? old[r - 1] : 0,
                                                 r + 1 < P ? old[r + 1] : 0);
        }
        if (st >= 0)
          cr_expect(memcmp(F, G, (size_t)P * sizeof(double)) == 0,
                    "type %d P=%d iters=%ld: not the bits of every sweep", types[t], P, counts[k]);
        cr_expect(info.iterations <= counts[k]);
      }
      tl_problem_free(&p);
    }
  /* A billion sweeps on a dominant matrix settle after a few dozen. */
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, 50, 1, SEED, &p, &info), TL_OK);
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 25;
  set_strategy(&opt, TL_TRIDSOLVER_JACOBI);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "iters", "1000000000", &info), TL_OK);
  double x[50];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cr_expect_eq(tl_solve(ALGO, &p.sys, x, &opt, &info), TL_OK, "%s", info.msg);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  cr_expect(secs < 0.5, "%.3f s", secs);
  cr_expect(info.iterations < 1000, "%d sweeps", info.iterations);
  cr_expect_lt(tl_residual_ratio(&p.sys, x), TL_THRESH);
  tl_problem_free(&p);
}

Test(tridsolver, limits)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, 7, 1, SEED, &p, &info), TL_OK);
  double x[7];
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 4;
  cr_expect_eq(tl_solve(ALGO, &p.sys, x, &opt, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  cr_expect_eq(tl_options_set_param(&opt, ALGO, "reduced", "cr", &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "param");
  cr_expect_eq(tl_options_set_param(&opt, ALGO, "iters", "-1", &info), TL_ERR_ARG);
  cr_expect_eq(tl_options_set_param(&opt, ALGO, "tol", "0", &info), TL_ERR_ARG);
  cr_expect_eq(tl_options_set_param(&opt, ALGO, "maxit", "0", &info), TL_ERR_ARG);
  const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
  double as[1], cs[1], ds[1];
  cr_expect_eq(tl_tridsolver_forward_d(0, 1, 0, 0, a, b, c, d, as, cs, ds, &info), TL_ERR_ARG);
  cr_expect_eq(tl_tridsolver_ref_d(7, 2, NULL, 9, 0, 1e-15, 10, a, b, c, d, x, &info),
               TL_ERR_ARG);
  cr_expect_eq(tl_tridsolver_ref_d(7, 2, NULL, TL_TRIDSOLVER_JACOBI, 0, 0.0, 10, a, b, c, d, x,
                                   &info),
               TL_ERR_ARG);
  tl_problem_free(&p);
  cr_assert_eq(tl_gallery_make(50, 8, 1, SEED, &p, &info), TL_OK);
  double y[8];
  opt.parts = 2;
  cr_expect_eq(tl_solve(ALGO, &p.sys, y, &opt, &info), TL_ERR_UNSUPPORTED);
  tl_problem_free(&p);
}

Test(tridsolver, outside_domain_and_breakdown)
{
  tl_problem p;
  tl_info info;
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 3;
  cr_assert_eq(tl_gallery_make(25, 30, 1, SEED, &p, &info), TL_OK);
  double x[30];
  for (int s = 0; s < 3; s++) {
    set_strategy(&opt, s);
    int st = tl_solve(ALGO, &p.sys, x, &opt, &info);
    cr_expect(st == TL_OUTSIDE_DOMAIN || st == TL_ERR_BREAKDOWN, "strategy %d: %d", s, st);
  }
  tl_problem_free(&p);
  double a[6] = {0, 1, 1, 1, 1, 1}, b[6] = {4, 4, 4, 4, 0, 4}, c[6] = {1, 1, 1, 1, 1, 0};
  double d[6] = {1, 2, 3, 4, 5, 6};
  cr_expect_eq(tl_tridsolver_ref_d(6, 2, NULL, 0, 0, 1e-15, 10, a, b, c, d, x, &info),
               TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 4);
}

/* Issue 9, found by fuzzing: a breakdown inside the PCR loop freed the
 * middle of the two-level buffer once the levels had swapped (a crash,
 * "double free or corruption"). It is a breakdown naming the matrix row
 * of the partition, for every strategy that meets the zero pivot. */
Test(tridsolver, pcr_breakdown_after_swap_is_reported)
{
  double a[6] = {0, .5, .5, 0, 0, 0}, b[6] = {1, 1, 1, 1, 1, 1}, c[6] = {1, 1, 0, 0, 0, 0};
  double d[6] = {1, 1, 1, 1, 1, 1}, x[6];
  tl_batch sys = {.dtype = TL_F64, .n = 6, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 3;
  set_strategy(&opt, 2);
  tl_info info;
  cr_expect_eq(tl_solve(ALGO, &sys, x, &opt, &info), TL_ERR_BREAKDOWN, "%s", info.msg);
  cr_expect_eq(info.row, 4, "the first row of partition 2");
  cr_expect(strstr(info.msg, "row 4") != NULL, "%s", info.msg);
}

Test(tridsolver, gallery_no_silent_wrong_answer, .timeout = 200)
{
  static const size_t ns[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  for (int s = 0; s < 4; s++)
    for (size_t k = 0; k < tl_gallery_count(); k++) {
      const tl_gallery_type *t = tl_gallery_get(k);
      if (t->periodic)
        continue;
      for (size_t z = 0; z < sizeof ns / sizeof ns[0]; z++)
        for (size_t q = 0; q < NPARTS; q++) {
          size_t n = ns[z];
          int P = parts_list[q];
          if (n < t->min_n || n < 2 * (size_t)P)
            continue;
          tl_problem p;
          tl_info info;
          cr_assert_eq(tl_gallery_make(t->id, n, 1, SEED, &p, &info), TL_OK);
          tl_options opt;
          tl_options_init(&opt);
          opt.parts = P;
          set_strategy(&opt, s);
          double resid, ferr, relerr;
          int st = th_solve_measure(ALGO, &p, &opt, &resid, &ferr, &relerr, &info);
          if (st == TL_OK) {
            cr_expect(resid < TL_THRESH, "%s %s n=%zu P=%d: silent residual ratio %g",
                      strategies[s], t->name, n, P, resid);
            cr_expect(t->singular || ferr < TL_THRESH,
                      "%s %s n=%zu P=%d: silent forward ratio %g", strategies[s], t->name, n, P,
                      ferr);
          }
          if (tl_gallery_expects_pass(t, ALGO))
            cr_expect_eq(st, TL_OK, "%s %s n=%zu P=%d: expected to pass, got %d (%s)",
                         strategies[s], t->name, n, P, st, info.msg);
          tl_problem_free(&p);
        }
    }
}
