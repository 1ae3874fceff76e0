/* tests/test_convergence.c -- compact finite-difference operators and the
 * order-of-accuracy study (convergence/), and `tridlab converge`.
 *
 * Orders are checked within 0.2 of the theoretical (or, with closures, the
 * measured global) order over n ranges chosen in the asymptotic range and
 * above the round-off floor (docs/convergence.md shows where it starts).
 * Solver accuracy is a forward-error ratio against LAPACK in units of eps
 * and the condition number, as in verify/. The command tests need the
 * TRIDLAB_CLI environment variable (make check sets it) and skip without.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tridlab/backend.h"
#include "tridlab/convergence.h"
#include "cli_helpers.h"
#include "helpers.h"
#include "tridlab/tridlab.h"

#define MAX_ROWS 32
#define ORDER_TOL 0.2

/* ---------------------------------------------------------------- */
/* Local order of every row of the scheme table                      */

/* d^m/dx^m of x^p at x. */
static double dmono(int p, int m, double x)
{
  if (m > p)
    return 0.0;
  double c = 1.0;
  for (int k = 0; k < m; k++)
    c *= p - k;
  return c * pow(x, p - m);
}

/* Residual of one row on u = x^p with h = 1 and the row's point at x = 0,
 * and the size of its terms (for a round-off scale). */
static double row_residual(const tl_compact_row *row, int m, int p, double *scale)
{
  double r = 0.0, s = 0.0;
  for (int k = -1; k <= 1; k++) {
    double t = row->lhs[k + 1] * dmono(p, m, k);
    r += t;
    s += fabs(t);
  }
  for (int j = 0; j < row->width; j++) {
    double t = row->rhs[j] * pow(row->first + j, p);
    r -= t;
    s += fabs(t);
  }
  *scale = s;
  return r;
}

/* A row of order q for the m-th derivative is exact on x^p, p <= q + m - 1,
 * and not on x^(q + m): its truncation error is c h^q u^(q+m), c != 0. */
static void check_row_order(const char *what, const tl_compact_row *row, int m)
{
  double scale;
  for (int p = 0; p <= row->order + m - 1; p++) {
    double r = row_residual(row, m, p, &scale);
    cr_expect(fabs(r) <= 16 * TL_EPS * scale, "%s: not exact on x^%d (residual %g)", what, p, r);
  }
  double r = row_residual(row, m, row->order + m, &scale);
  cr_expect(fabs(r) > 1e-6 * scale, "%s: exact on x^%d, so its order is above %d", what,
            row->order + m, row->order);
}

Test(compact, every_row_has_its_stated_order)
{
  cr_assert_eq(tl_compact_count(), 3);
  for (size_t k = 0; k < tl_compact_count(); k++) {
    const tl_compact_scheme *s = tl_compact_get(k);
    char what[64];
    snprintf(what, sizeof what, "%s interior", s->name);
    check_row_order(what, &s->interior, s->derivative);
    cr_expect_eq(s->interior.order, s->order, "%s", s->name);
    for (size_t j = 0; j < s->nclosures; j++)
      for (int r = 0; r < s->closures[j].nrows; r++) {
        snprintf(what, sizeof what, "%s %s row %d", s->name, s->closures[j].name, r);
        check_row_order(what, &s->closures[j].rows[r], s->derivative);
      }
    cr_expect_eq(s->closures[0].rows[0].order, 3, "%s: the one-sided closure is 3rd order",
                 s->name);
  }
  cr_expect_null(tl_compact_get(tl_compact_count()));
  cr_expect_null(tl_compact_find("pade6"));
}

Test(compact, interior_rows_are_lele_coefficients)
{
  const tl_compact_scheme *p4 = tl_compact_find("pade4"), *l6 = tl_compact_find("lele6"),
                          *d2 = tl_compact_find("d2-6th");
  cr_assert(p4 && l6 && d2);
  cr_expect_eq(p4->alpha, 0.25);
  cr_expect_eq(p4->a, 1.5);
  cr_expect_eq(l6->alpha, 1.0 / 3.0);
  cr_expect_eq(l6->a, 14.0 / 9.0);
  cr_expect_eq(l6->b, 1.0 / 9.0);
  cr_expect_eq(d2->alpha, 2.0 / 11.0);
  cr_expect_eq(d2->a, 12.0 / 11.0);
  cr_expect_eq(d2->b, 3.0 / 11.0);
  /* the interior weights are those of a (u[i+1]-u[i-1])/(2h) + b (u[i+2]-u[i-2])/(4h)
   * and a (u[i+1]-2u[i]+u[i-1])/h^2 + b (u[i+2]-2u[i]+u[i-2])/(4h^2) */
  const tl_compact_scheme *all[3] = {p4, l6, d2};
  for (int k = 0; k < 3; k++) {
    const tl_compact_scheme *s = all[k];
    double a = s->a, b = s->b;
    double d1[5] = {-b / 4, -a / 2, 0, a / 2, b / 4}, d2w[5] = {b / 4, a, -2 * a - b / 2, a, b / 4};
    const double *w = s->derivative == 1 ? d1 : d2w;
    int off = s->interior.width == 3 ? 1 : 0; /* pade4 stores u[i-1] .. u[i+1] */
    for (int j = 0; j < s->interior.width; j++)
      cr_expect(fabs(s->interior.rhs[j] - w[j + off]) <= 4 * TL_EPS * fabs(w[j + off]),
                "%s: weight %d is %.17g, expected %.17g", s->name, j, s->interior.rhs[j],
                w[j + off]);
    cr_expect_eq(s->interior.lhs[0], s->alpha, "%s", s->name);
    cr_expect_eq(s->interior.lhs[2], s->alpha, "%s", s->name);
  }
}

/* ---------------------------------------------------------------- */
/* The systems                                                       */

typedef struct sysbuf {
  size_t n;
  double *u, *a, *b, *c, *d, *f;
} sysbuf;

static sysbuf sys_alloc(size_t n)
{
  sysbuf s = {.n = n};
  double **arrs[6] = {&s.u, &s.a, &s.b, &s.c, &s.d, &s.f};
  for (int k = 0; k < 6; k++) {
    *arrs[k] = calloc(n, sizeof(double));
    cr_assert_not_null(*arrs[k]);
  }
  return s;
}

static void sys_free(sysbuf *s)
{
  double *arrs[6] = {s->u, s->a, s->b, s->c, s->d, s->f};
  for (int k = 0; k < 6; k++)
    free(arrs[k]);
}

/* 1 / rcond of the compact matrix (it does not depend on u) on the grid
 * closed by `closure` (NULL: periodic). */
static double closed_cond(const tl_compact_scheme *s, const tl_compact_closure *closure, size_t n)
{
  sysbuf w = sys_alloc(n);
  tl_info info;
  cr_assert_eq(tl_compact_system_closed(s, closure, n, 1.0, w.u, w.a, w.b, w.c, w.d, &info), TL_OK,
               "%s", info.msg);
  tl_batch sys = {TL_F64, n, 1, closure == NULL, w.a, w.b, w.c, w.d};
  double rcond;
  cr_assert_eq(tl_rcond(&sys, &rcond, &info), TL_OK, "%s", info.msg);
  sys_free(&w);
  return 1.0 / rcond;
}

/* The same with periodic = 1, or 0 for the default closure. */
static double compact_cond(const tl_compact_scheme *s, int periodic, size_t n)
{
  return closed_cond(s, periodic ? NULL : tl_compact_closure_find(s, NULL), n);
}

Test(compact, corners_and_dominance)
{
  size_t n = 40;
  sysbuf w = sys_alloc(n);
  tl_info info;
  for (size_t k = 0; k < tl_compact_count(); k++) {
    const tl_compact_scheme *s = tl_compact_get(k);
    cr_assert_eq(tl_compact_system(s, 1, n, 0.1, w.u, w.a, w.b, w.c, w.d, &info), TL_OK);
    cr_expect_eq(w.a[0], s->alpha, "%s: periodic corner a[0]", s->name);
    cr_expect_eq(w.c[n - 1], s->alpha, "%s: periodic corner c[n-1]", s->name);
    cr_expect(tl_classes_d(n, w.a, w.b, w.c, 1, NULL) & TL_CLASS_STRICT_DD, "%s", s->name);

    cr_assert_eq(tl_compact_system(s, 0, n, 0.1, w.u, w.a, w.b, w.c, w.d, &info), TL_OK);
    cr_expect_eq(w.a[0], 0.0, "%s: no corner with closures", s->name);
    cr_expect_eq(w.c[n - 1], 0.0, "%s", s->name);
    /* the right end mirrors the left */
    cr_expect_eq(w.a[n - 1], w.c[0], "%s", s->name);
    cr_expect_eq(w.c[n - 2], w.a[1], "%s", s->name);
    long worst = -1;
    unsigned cl = tl_classes_d(n, w.a, w.b, w.c, 0, &worst);
    cr_expect(!(cl & TL_CLASS_ROW_DD), "%s: closure rows are not diagonally dominant", s->name);
    cr_expect(worst == 0 || worst == (long)n - 1, "%s: worst row %ld", s->name, worst);
  }
  sys_free(&w);
}

Test(compact, bad_arguments_are_named)
{
  const tl_compact_scheme *s = tl_compact_find("lele6");
  sysbuf w = sys_alloc(8);
  tl_info info;
  cr_expect_eq(tl_compact_system(NULL, 1, 8, 0.1, w.u, w.a, w.b, w.c, w.d, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "scheme");
  cr_expect_eq(tl_compact_system(s, 0, 4, 0.1, w.u, w.a, w.b, w.c, w.d, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "n");
  cr_expect_eq(tl_compact_system(s, 1, 8, 0.0, w.u, w.a, w.b, w.c, w.d, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "h");
  cr_expect_eq(tl_compact_system(s, 1, 8, NAN, w.u, w.a, w.b, w.c, w.d, &info), TL_ERR_ARG);
  cr_expect_eq(tl_compact_system(s, 1, 8, 0.1, w.u, w.a, NULL, w.c, w.d, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "b");
  cr_expect_eq(tl_compact_apply(s, 1, 8, 0.1, w.u, NULL, NULL, w.f, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "algo");
  cr_expect_eq(tl_compact_apply(s, 1, 8, 0.1, w.u, tl_find("thomas_periodic"), NULL, w.u, &info),
               TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "du");
  /* a non-periodic algorithm on the periodic system: the registry says so */
  cr_expect_eq(tl_compact_apply(s, 1, 8, 0.1, w.u, tl_find("thomas"), NULL, w.f, &info),
               TL_ERR_UNSUPPORTED);
  sys_free(&w);
}

/* The smallest n of each grid gives a well-conditioned system (cond_1
 * below 1e4; d2-6th with closures has about 1.5e3 at every n), and one
 * row less is refused (pade4 with closures is singular at n = 3). */
Test(compact, minimum_n_is_solvable)
{
  sysbuf w = sys_alloc(8);
  for (size_t i = 0; i < 8; i++)
    w.u[i] = sin(0.7 * (double)i);
  for (size_t k = 0; k < tl_compact_count(); k++) {
    const tl_compact_scheme *s = tl_compact_get(k);
    for (int periodic = 0; periodic <= 1; periodic++) {
      size_t n = periodic ? s->min_n_periodic : s->closures[0].min_n;
      tl_info info;
      cr_assert_eq(tl_compact_system(s, periodic, n, 0.5, w.u, w.a, w.b, w.c, w.d, &info), TL_OK,
                   "%s n = %zu: %s", s->name, n, info.msg);
      tl_batch sys = {TL_F64, n, 1, periodic, w.a, w.b, w.c, w.d};
      double rcond;
      cr_assert_eq(tl_rcond(&sys, &rcond, &info), TL_OK, "%s", info.msg);
      cr_expect_gt(rcond, 1e-4, "%s %s n = %zu: rcond %g", s->name,
                   periodic ? "periodic" : "closure", n, rcond);
      cr_expect_eq(tl_compact_system(s, periodic, n - 1, 0.5, w.u, w.a, w.b, w.c, w.d, &info),
                   TL_ERR_ARG);
    }
  }
  sys_free(&w);
}

/* With closures every row is exact on cubics (and d2-6th on quartics), so
 * the whole operator is: this checks the mirrored right end too. */
Test(compact, closures_exact_on_low_degree_polynomials)
{
  size_t n = 37;
  double L = 1.0, h = L / (double)(n - 1);
  sysbuf w = sys_alloc(n);
  const tl_algorithm *gtsv = tl_find("gtsv");
  for (size_t k = 0; k < tl_compact_count(); k++) {
    const tl_compact_scheme *s = tl_compact_get(k);
    int m = s->derivative, deg = s->closures[0].rows[0].order + m - 1;
    for (int p = 0; p <= deg; p++) {
      double scale = 0.0;
      for (size_t i = 0; i < n; i++) {
        w.u[i] = pow((double)i * h - 0.3, p);
        scale = fmax(scale, fabs(w.u[i]));
      }
      tl_info info;
      cr_assert_eq(tl_compact_apply(s, 0, n, h, w.u, gtsv, NULL, w.f, &info), TL_OK, "%s",
                   info.msg);
      /* round-off: the stencil sums ~ scale / h^m, amplified by cond(A) */
      double tol = TL_THRESH * TL_EPS * compact_cond(s, 0, n) * 8 * scale / pow(h, m);
      for (size_t i = 0; i < n; i++) {
        double exact = dmono(p, m, (double)i * h - 0.3);
        cr_expect(fabs(w.f[i] - exact) <= tol, "%s, x^%d, row %zu: %g vs %g", s->name, p, i, w.f[i],
                  exact);
      }
    }
  }
  sys_free(&w);
}

/* ---------------------------------------------------------------- */
/* Observed orders                                                   */

/* The study of scheme on the grid `boundary` ("periodic" or a closure). */
static size_t study_on(const char *scheme, const char *boundary, const char *function, double k,
                       const char *algo, const tl_options *opt, size_t nmin, size_t nmax,
                       tl_converge_row *rows)
{
  int periodic = !strcmp(boundary, "periodic");
  const tl_compact_scheme *s = tl_compact_find(scheme);
  cr_assert(s, "%s", scheme);
  tl_converge_config cfg = {
      .scheme = s,
      .periodic = periodic,
      .closure = periodic ? NULL : tl_compact_closure_find(s, boundary),
      .function = tl_converge_function_find(function),
      .wavenumber = k,
      .algo = tl_find(algo),
      .opt = opt,
      .nmin = nmin,
      .nmax = nmax,
  };
  cr_assert(cfg.function && cfg.algo && (periodic || cfg.closure), "%s %s %s %s", scheme, boundary,
            function, algo);
  size_t count = 0;
  tl_info info;
  int st = tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info);
  cr_assert_eq(st, TL_OK, "%s", info.msg);
  cr_assert_eq(count, tl_converge_count(nmin, nmax));
  return count;
}

/* periodic = 1: the periodic grid; 0: the default closure. */
static size_t study(const char *scheme, int periodic, const char *function, double k,
                    const char *algo, const tl_options *opt, size_t nmin, size_t nmax,
                    tl_converge_row *rows)
{
  return study_on(scheme, periodic ? "periodic" : "closure", function, k, algo, opt, nmin, nmax,
                  rows);
}

/* Every order of the study (rows 1..) within ORDER_TOL of the expected. */
static void expect_orders(const char *what, const tl_converge_row *rows, size_t count,
                          double order_max, double order_l2)
{
  for (size_t r = 1; r < count; r++) {
    cr_expect(fabs(rows[r].order_max - order_max) <= ORDER_TOL,
              "%s: n = %zu: order (max) %.3f, expected %.1f", what, rows[r].n, rows[r].order_max,
              order_max);
    cr_expect(fabs(rows[r].order_l2 - order_l2) <= ORDER_TOL,
              "%s: n = %zu: order (L2) %.3f, expected %.1f", what, rows[r].n, rows[r].order_l2,
              order_l2);
  }
}

/* The solver's forward error against LAPACK, DGET04-style: < THRESH. */
static void expect_solver_accurate(const char *what, const char *scheme, int periodic,
                                   const tl_converge_row *rows, size_t count)
{
  const tl_compact_scheme *s = tl_compact_find(scheme);
  for (size_t r = 0; r < count; r++) {
    cr_assert(tl_status_has_solution(rows[r].status), "%s: n = %zu: %s", what, rows[r].n,
              rows[r].note);
    double ratio = rows[r].solver_diff / compact_cond(s, periodic, rows[r].n) / TL_EPS;
    cr_expect(ratio < TL_THRESH, "%s: n = %zu: forward-error ratio %g against LAPACK", what,
              rows[r].n, ratio);
  }
}

typedef struct order_case {
  const char *scheme, *function;
  double k;
  size_t nmin, nmax;
  double order;
} order_case;

/* Periodic: the interior order, up to where round-off starts. */
static const order_case periodic_cases[] = {
    {"pade4", "sin", 1.0, 16, 512, 4.0}, {"pade4", "expsin", 1.0, 32, 512, 4.0},
    {"lele6", "sin", 1.0, 16, 128, 6.0}, {"lele6", "expsin", 1.0, 64, 256, 6.0},
    {"d2-6th", "sin", 1.0, 16, 64, 6.0}, {"d2-6th", "expsin", 3.0, 64, 512, 6.0},
};

Test(converge, periodic_orders_with_thomas_periodic)
{
  tl_converge_row rows[MAX_ROWS];
  for (size_t c = 0; c < sizeof periodic_cases / sizeof periodic_cases[0]; c++) {
    const order_case *oc = &periodic_cases[c];
    size_t count = study(oc->scheme, 1, oc->function, oc->k, "thomas_periodic", NULL, oc->nmin,
                         oc->nmax, rows);
    char what[96];
    snprintf(what, sizeof what, "%s periodic %s k=%g", oc->scheme, oc->function, oc->k);
    for (size_t r = 0; r < count; r++)
      cr_expect_eq(rows[r].status, TL_OK, "%s: n = %zu: %s", what, rows[r].n, rows[r].note);
    expect_orders(what, rows, count, oc->order, oc->order);
    expect_solver_accurate(what, oc->scheme, 1, rows, count);
  }
}

/* Closures: the 3rd-order boundary rows set the global order, 3 in the max
 * norm and 3.5 in the discrete L2 norm (the O(h^3) error lives on O(1)
 * points, weighted by sqrt(h)). polyexp, because sin(k x) on [0, 2 pi]
 * has u'''' = 0 at both ends and hides the first-derivative closure's
 * leading error term. */
static const order_case closure_cases[] = {
    {"pade4", "polyexp", 1.0, 256, 4096, 3.0},
    {"lele6", "polyexp", 1.0, 256, 4096, 3.0},
    {"d2-6th", "polyexp", 1.0, 256, 2048, 3.0},
};

Test(converge, closure_orders_with_gtsv)
{
  tl_converge_row rows[MAX_ROWS];
  for (size_t c = 0; c < sizeof closure_cases / sizeof closure_cases[0]; c++) {
    const order_case *oc = &closure_cases[c];
    const tl_compact_scheme *s = tl_compact_find(oc->scheme);
    size_t count =
        study(oc->scheme, 0, oc->function, oc->k, "gtsv", NULL, oc->nmin, oc->nmax, rows);
    char what[96];
    snprintf(what, sizeof what, "%s closure %s (gtsv)", oc->scheme, oc->function);
    for (size_t r = 0; r < count; r++)
      cr_expect_eq(rows[r].status, TL_OK, "%s: n = %zu: %s", what, rows[r].n, rows[r].note);
    cr_expect_eq(s->closures[0].order_max, oc->order);
    expect_orders(what, rows, count, s->closures[0].order_max, s->closures[0].order_l2);
    expect_solver_accurate(what, oc->scheme, 0, rows, count);
  }
}

/* Thomas has no pivoting and the closure rows are not dominant: it says
 * outside-domain at every n, and its answer is still accurate. */
Test(converge, closure_with_thomas_is_reported_and_accurate)
{
  tl_converge_row rows[MAX_ROWS], ref[MAX_ROWS];
  for (size_t c = 0; c < sizeof closure_cases / sizeof closure_cases[0]; c++) {
    const order_case *oc = &closure_cases[c];
    const tl_compact_scheme *s = tl_compact_find(oc->scheme);
    size_t count =
        study(oc->scheme, 0, oc->function, oc->k, "thomas", NULL, oc->nmin, oc->nmax, rows);
    study(oc->scheme, 0, oc->function, oc->k, "gtsv", NULL, oc->nmin, oc->nmax, ref);
    char what[96];
    snprintf(what, sizeof what, "%s closure %s (thomas)", oc->scheme, oc->function);
    for (size_t r = 0; r < count; r++) {
      cr_expect_eq(rows[r].status, TL_OUTSIDE_DOMAIN, "%s: n = %zu", what, rows[r].n);
      cr_expect(strstr(rows[r].note, "row 0") != NULL, "%s: note '%s'", what, rows[r].note);
      /* the discretisation error, not the solver's, dominates */
      cr_expect(fabs(rows[r].err_max - ref[r].err_max) <= 1e-6 * ref[r].err_max, "%s: n = %zu",
                what, rows[r].n);
    }
    expect_orders(what, rows, count, s->closures[0].order_max, s->closures[0].order_l2);
    expect_solver_accurate(what, oc->scheme, 0, rows, count);
  }
}

/* Every registry algorithm that takes real systems of the layout, P = 1
 * and, when partitioned, P = 2 and 4: either it reports (outside-domain or
 * a failure), or it returns ok with the scheme's order and an answer that
 * passes the forward-error test against LAPACK. No silent loss of order. */
static void registry_sweep_on(const char *boundary, const order_case *oc, const int *parts_list,
                              size_t nparts, int partitioned_only)
{
  size_t nalg;
  const tl_algorithm *const *reg = tl_registry(&nalg);
  const tl_compact_scheme *s = tl_compact_find(oc->scheme);
  int periodic = !strcmp(boundary, "periodic");
  const tl_compact_closure *cl = periodic ? NULL : tl_compact_closure_find(s, boundary);
  for (size_t k = 0; k < nalg; k++) {
    const tl_algorithm *al = reg[k];
    if (!(al->dtypes & TL_DTYPE_BIT(TL_F64)) ||
        !(al->layouts & (periodic ? TL_PERIODIC : TL_NONPERIODIC)) ||
        (partitioned_only && !al->partitioned))
      continue;
    for (size_t q = 0; q < nparts; q++) {
      if (parts_list[q] > 1 && !al->partitioned)
        break;
      tl_options opt;
      tl_options_init(&opt);
      opt.parts = parts_list[q];
      tl_converge_row rows[MAX_ROWS];
      size_t count = study_on(oc->scheme, boundary, oc->function, oc->k, al->name, &opt, oc->nmin,
                              oc->nmax, rows);
      for (size_t r = 0; r < count; r++) {
        if (rows[r].status != TL_OK)
          continue;
        double ratio = rows[r].solver_diff / closed_cond(s, cl, rows[r].n) / TL_EPS;
        cr_expect(ratio < TL_THRESH, "%s P=%d %s %s: n = %zu: status ok, forward ratio %g",
                  al->name, opt.parts, oc->scheme, boundary, rows[r].n, ratio);
        double expect_max = periodic ? s->order : cl->order_max;
        if (r > 0 && rows[r - 1].status == TL_OK)
          cr_expect(fabs(rows[r].order_max - expect_max) <= ORDER_TOL,
                    "%s P=%d %s: n = %zu: status ok, order %.3f", al->name, opt.parts, oc->scheme,
                    rows[r].n, rows[r].order_max);
      }
    }
  }
}

static void registry_sweep(int periodic, const order_case *oc)
{
  static const int parts_list[] = {1, 2, 4};
  registry_sweep_on(periodic ? "periodic" : "closure", oc, parts_list, 3, 0);
}

Test(converge, registry_periodic_no_silent_loss)
{
  for (size_t c = 0; c < sizeof periodic_cases / sizeof periodic_cases[0]; c++)
    if (!strcmp(periodic_cases[c].function, "sin"))
      registry_sweep(1, &periodic_cases[c]);
}

Test(converge, registry_closure_no_silent_loss)
{
  for (size_t c = 0; c < sizeof closure_cases / sizeof closure_cases[0]; c++) {
    order_case oc = closure_cases[c];
    oc.nmax = 1024; /* the asymptotic range starts at 256 */
    registry_sweep(0, &oc);
  }
}

/* A failed solve is a row with its status and no errors; the study goes on
 * and the order is taken only between rows that both have a solution. */
Test(converge, failed_rows_are_marked_and_the_study_goes_on)
{
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 16; /* hybrid_pcr needs 2 rows per partition: n = 16 fails */
  tl_converge_row rows[MAX_ROWS];
  size_t count = study("pade4", 0, "polyexp", 1.0, "hybrid_pcr", &opt, 16, 128, rows);
  cr_assert_eq(count, 4);
  cr_expect_eq(rows[0].status, TL_ERR_ARG);
  cr_expect(isnan(rows[0].err_max) && isnan(rows[0].err_l2) && isnan(rows[0].solver_diff));
  cr_expect(strlen(rows[0].note) > 0);
  for (size_t r = 1; r < count; r++)
    cr_expect(tl_status_has_solution(rows[r].status), "n = %zu: %s", rows[r].n, rows[r].note);
  cr_expect(isnan(rows[1].order_max), "no order next to a failed row");
  cr_expect(isfinite(rows[2].order_max) && isfinite(rows[3].order_l2));
}

static void on_row(const tl_converge_row *row, size_t index, size_t count, void *ctx)
{
  size_t *seen = ctx;
  cr_expect_eq(index, *seen);
  cr_expect_eq(count, 4);
  cr_expect_gt(row->n, 0);
  (*seen)++;
}

Test(converge, rows_grid_and_callback)
{
  cr_expect_eq(tl_converge_count(16, 2048), 8);
  cr_expect_eq(tl_converge_count(16, 2047), 7);
  cr_expect_eq(tl_converge_count(5, 5), 1);
  cr_expect_eq(tl_converge_count(0, 5), 0);
  cr_expect_eq(tl_converge_count(6, 5), 0);
  size_t seen = 0;
  tl_converge_config cfg = {.scheme = tl_compact_find("lele6"),
                            .periodic = 1,
                            .function = tl_converge_function_find("sin"),
                            .wavenumber = 2 * acos(-1.0),
                            .length = 1.0,
                            .algo = tl_find("thomas_periodic"),
                            .nmin = 16,
                            .nmax = 128,
                            .on_row = on_row,
                            .ctx = &seen};
  tl_converge_row rows[4];
  size_t count;
  tl_info info;
  cr_assert_eq(tl_converge_run(&cfg, rows, 4, &count, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(seen, 4);
  cr_expect_eq(rows[0].h, 1.0 / 16);
  cr_expect_eq(rows[3].n, 128);
  /* sin(2 pi x) on [0, 1) is sin(x) on [0, 2 pi) scaled: same orders */
  expect_orders("lele6 L=1", rows, count, 6.0, 6.0);
  /* closure grids include both ends */
  cfg.periodic = 0;
  cfg.algo = tl_find("gtsv");
  cfg.on_row = NULL;
  cr_assert_eq(tl_converge_run(&cfg, rows, 4, &count, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(rows[0].h, 1.0 / 15);
}

Test(converge, bad_configurations_are_named)
{
  tl_converge_row rows[MAX_ROWS];
  size_t count;
  tl_info info;
  tl_converge_config good = {.scheme = tl_compact_find("pade4"),
                             .periodic = 1,
                             .function = tl_converge_function_find("sin"),
                             .wavenumber = 1.0,
                             .algo = tl_find("thomas_periodic"),
                             .nmin = 16,
                             .nmax = 64};
  tl_converge_config cfg = good;
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_OK);
  cfg.function = tl_converge_function_find("polyexp");
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "function");
  cfg = good;
  cfg.wavenumber = 1.5; /* not periodic on [0, 2 pi) */
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "wavenumber");
  cfg.wavenumber = -1.0;
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cfg = good;
  cfg.length = -2.0;
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "length");
  cfg = good;
  cfg.nmin = 2;
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "nmin");
  cfg = good;
  cfg.nmax = 8;
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "nmax");
  cfg = good;
  cr_expect_eq(tl_converge_run(&cfg, rows, 2, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "rows");
  cfg.algo = tl_find("thomas");
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_UNSUPPORTED);
  cr_expect(strstr(info.msg, "thomas_periodic") != NULL, "%s", info.msg);
  cfg = good;
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 2;
  cfg.opt = &opt;
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  cfg = good;
  cfg.algo = NULL;
  cr_expect_eq(tl_converge_run(&cfg, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "algo");
  cr_expect_eq(tl_converge_run(NULL, rows, MAX_ROWS, &count, &info), TL_ERR_ARG);
  cr_expect_eq(count, 0);
}

Test(converge, functions_have_their_derivatives)
{
  /* central differences of the analytic derivatives: relative agreement
   * at the size of h^2 with h = 1e-4 */
  double h = 1e-4;
  for (size_t k = 0; k < tl_converge_function_count(); k++) {
    const tl_converge_function *f = tl_converge_function_get(k);
    for (double x = 0.1; x < 6.0; x += 0.7)
      for (int m = 1; m <= 2; m++) {
        double fd = (f->eval(x + h, 1.7, m - 1) - f->eval(x - h, 1.7, m - 1)) / (2 * h);
        double ex = f->eval(x, 1.7, m);
        cr_expect(fabs(fd - ex) <= 1e-6 * fmax(1.0, fabs(ex)), "%s, order %d at x = %g", f->name, m,
                  x);
      }
  }
  cr_expect_null(tl_converge_function_find("tan"));
}

/* ---------------------------------------------------------------- */
/* Closure families                                                  */

Test(closures, the_table_is_consistent)
{
  for (size_t k = 0; k < tl_compact_count(); k++) {
    const tl_compact_scheme *s = tl_compact_get(k);
    cr_assert_geq(s->nclosures, 1);
    cr_assert_leq(s->nclosures, TL_COMPACT_MAX_CLOSURES);
    cr_expect_str_eq(s->closures[0].name, "closure", "%s: the default comes first", s->name);
    cr_expect_eq(tl_compact_closure_find(s, NULL), &s->closures[0]);
    cr_expect_eq(tl_compact_closure_resolve(s, NULL), &s->closures[0]);
    cr_expect_null(tl_compact_closure_find(s, "periodic"));
    for (size_t j = s->nclosures; j < TL_COMPACT_MAX_CLOSURES; j++)
      cr_expect_null(s->closures[j].name, "%s: nclosures = %zu, entry %zu named", s->name,
                     s->nclosures, j);
    for (size_t j = 0; j < s->nclosures; j++) {
      const tl_compact_closure *cl = &s->closures[j];
      cr_expect_eq(tl_compact_closure_find(s, cl->name), cl, "%s %s", s->name, cl->name);
      cr_expect_eq(tl_compact_closure_resolve(s, cl), cl);
      /* the interior stencil must reach no point outside the grid */
      cr_expect_eq(cl->nrows, -s->interior.first, "%s %s", s->name, cl->name);
      /* singular_block says whether [[b0, c0], [a1, b1]] is singular */
      if (cl->nrows == 2) {
        const double *r0 = cl->rows[0].lhs, *r1 = cl->rows[1].lhs;
        double det = r0[1] * r1[1] - r0[2] * r1[0];
        cr_expect_eq(fabs(det) <= 4 * TL_EPS, cl->singular_block, "%s %s: det %g", s->name,
                     cl->name, det);
      } else {
        cr_expect_eq(cl->singular_block, 0);
      }
      /* the smallest n is solvable, one row less is refused */
      cr_expect_lt(closed_cond(s, cl, cl->min_n), 1e4, "%s %s", s->name, cl->name);
      sysbuf w = sys_alloc(cl->min_n);
      tl_info info;
      cr_expect_eq(
          tl_compact_system_closed(s, cl, cl->min_n - 1, 0.5, w.u, w.a, w.b, w.c, w.d, &info),
          TL_ERR_ARG);
      cr_expect_str_eq(info.arg, "n");
      sys_free(&w);
    }
  }
  /* a closure of another scheme is refused */
  const tl_compact_scheme *p4 = tl_compact_find("pade4"), *l6 = tl_compact_find("lele6");
  sysbuf w = sys_alloc(16);
  tl_info info;
  cr_expect_eq(
      tl_compact_system_closed(p4, &l6->closures[0], 16, 0.5, w.u, w.a, w.b, w.c, w.d, &info),
      TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "closure");
  cr_expect_null(tl_compact_closure_find(p4, "lele4-singular"), "pade4 has no singular block");
  sys_free(&w);
}

/* Lele (1992): f'0 + 3 f'1 = (A u0 + B u1 + C u2 + D u3) / h with A = -17/6,
 * B = 3/2, C = 3/2, D = -1/6; 4th order (every_row_has_its_stated_order). */
Test(closures, lele_alpha3_row)
{
  const tl_compact_scheme *s = tl_compact_find("lele6");
  const double want[4] = {-17.0 / 6.0, 1.5, 1.5, -1.0 / 6.0};
  const char *const names[2] = {"lele4", "lele4-singular"};
  for (int k = 0; k < 2; k++) {
    const tl_compact_row *r0 = &tl_compact_closure_find(s, names[k])->rows[0];
    cr_expect_eq(r0->lhs[1], 1.0);
    cr_expect_eq(r0->lhs[2], 3.0);
    cr_expect_eq(r0->first, 0);
    cr_expect_eq(r0->width, 4);
    for (int j = 0; j < 4; j++)
      cr_expect_eq(r0->rhs[j], want[j], "%s weight %d", names[k], j);
    cr_expect_eq(r0->order, 4);
  }
  /* below it, Pade's [1/4, 1, 1/4] or the interior's [1/3, 1, 1/3] */
  cr_expect_eq(tl_compact_closure_find(s, "lele4")->rows[1].lhs[0], 0.25);
  cr_expect_eq(tl_compact_closure_find(s, "lele4-singular")->rows[1].lhs[0], 1.0 / 3.0);
}

typedef struct closure_case {
  const char *scheme, *closure, *function;
  double k;
  size_t nmin; /* n = nmin, 2 nmin, 4 nmin, 8 nmin: three observed orders */
} closure_case;

/* Every (scheme, closure): n where the global order is asymptotic and
 * above the round-off floor. polyexp, k = 1 (the report's) where that
 * window holds three orders. The explicit closures approach their order
 * from below like p - c/n (a second error term of the one-sided rows),
 * and meet the floor early (their weights sum to 28 / h for the first
 * derivative and 192 / h^2 for the second: docs/convergence.md): lele6
 * with explicit6 starts at n = 88; d2-6th with explicit6 uses cos(2x),
 * whose leading error term (u^(8)(0) = 2^8) is kept and whose next one
 * (u^(9)(0) = 0) vanishes, because with polyexp the floor (n ~ 512)
 * comes before three orders are within 0.2 of 6; d2-6th with explicit5
 * (floor near n = 1024) runs n = 96 .. 768. pade4 with explicit5:
 * the 5th-order rows dominate until the 4th-order interior takes over
 * near n = 512. */
static const closure_case family_cases[] = {
    {"pade4", "closure", "polyexp", 1.0, 128},
    {"pade4", "lele4", "polyexp", 1.0, 128},
    {"pade4", "explicit5", "polyexp", 1.0, 256},
    {"pade4", "explicit6", "polyexp", 1.0, 128},
    {"lele6", "closure", "polyexp", 1.0, 128},
    {"lele6", "lele4", "polyexp", 1.0, 128},
    {"lele6", "lele4-singular", "polyexp", 1.0, 128},
    {"lele6", "explicit5", "polyexp", 1.0, 128},
    {"lele6", "explicit6", "polyexp", 1.0, 88},
    {"d2-6th", "closure", "polyexp", 1.0, 128},
    {"d2-6th", "lele4", "polyexp", 1.0, 128},
    {"d2-6th", "lele4-singular", "polyexp", 1.0, 64},
    {"d2-6th", "explicit5", "polyexp", 1.0, 96},
    {"d2-6th", "explicit6", "cos", 2.0, 72},
};
#define NCLOSURE_CASES (sizeof family_cases / sizeof family_cases[0])

Test(closures, orders_at_three_resolutions)
{
  size_t pairs = 0;
  for (size_t k = 0; k < tl_compact_count(); k++)
    pairs += tl_compact_get(k)->nclosures;
  cr_expect_eq(NCLOSURE_CASES, pairs, "one case per (scheme, closure)");
  tl_converge_row rows[MAX_ROWS];
  for (size_t c = 0; c < NCLOSURE_CASES; c++) {
    const closure_case *cc = &family_cases[c];
    const tl_compact_scheme *s = tl_compact_find(cc->scheme);
    const tl_compact_closure *cl = tl_compact_closure_find(s, cc->closure);
    cr_assert_not_null(cl, "%s %s", cc->scheme, cc->closure);
    size_t count = study_on(cc->scheme, cc->closure, cc->function, cc->k, "gtsv", NULL, cc->nmin,
                            8 * cc->nmin, rows);
    cr_assert_eq(count, 4);
    char what[96];
    snprintf(what, sizeof what, "%s %s %s k=%g (gtsv)", cc->scheme, cc->closure, cc->function,
             cc->k);
    for (size_t r = 0; r < count; r++)
      cr_expect_eq(rows[r].status, TL_OK, "%s: n = %zu: %s", what, rows[r].n, rows[r].note);
    expect_orders(what, rows, count, cl->order_max, cl->order_l2);
  }
}

/* The trap: [1, 3] above [1/3, 1, 1/3] (gallery type 40). Every solver
 * but LAPACK's pivoted gtsv reports it (thomas at the zero pivot of row
 * 1; spike, which pivots too, because its guarantee needs strict row
 * dominance); gtsv solves it to its residual and forward-error tests. */
Test(closures, alpha3_block_breaks_non_pivoting_solvers)
{
  static const size_t sizes[] = {6, 7, 16, 100, 1000};
  size_t nalg;
  const tl_algorithm *const *reg = tl_registry(&nalg);
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    size_t n = sizes[z];
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(40, n, 1, 7, &p, &info), TL_OK, "%s", info.msg);
    const double *a = p.a, *b = p.b, *c = p.c;
    cr_expect_eq(b[0], 1.0);
    cr_expect_eq(c[0], 3.0);
    cr_expect_eq(a[1], 1.0 / 3.0);
    cr_expect(fabs(b[0] * b[1] - c[0] * a[1]) <= 2 * TL_EPS, "leading block not singular");
    double *x = calloc(n, sizeof *x);
    cr_assert_not_null(x);
    for (size_t k = 0; k < nalg; k++) {
      const tl_algorithm *al = reg[k];
      if (!(al->dtypes & TL_DTYPE_BIT(TL_F64)) || !(al->layouts & TL_NONPERIODIC))
        continue;
      int st = tl_solve(al, &p.sys, x, NULL, &info);
      if (!strcmp(al->name, "gtsv")) {
        cr_expect_eq(st, TL_OK, "%s n=%zu: %s", al->name, n, info.msg);
        double resid, ferr;
        cr_assert_eq(th_ratios(&p.sys, x, &resid, &ferr), 0);
        cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "%s n=%zu: %g %g", al->name, n, resid,
                  ferr);
        continue;
      }
      cr_expect_neq(st, TL_OK, "%s n=%zu says ok on a matrix outside its classes", al->name, n);
      if (!strcmp(al->name, "thomas") || !strcmp(al->name, "cr") || !strcmp(al->name, "pcr"))
        cr_expect(st == TL_ERR_BREAKDOWN || st == TL_OUTSIDE_DOMAIN, "%s n=%zu: %s", al->name, n,
                  tl_status_name(st));
      if (!strcmp(al->name, "thomas")) {
        cr_expect_eq(st, TL_ERR_BREAKDOWN, "thomas n=%zu: %s", n, info.msg);
        cr_expect_eq(info.row, 1, "thomas n=%zu: breakdown at row %ld", n, info.row);
      }
    }
    free(x);
    tl_problem_free(&p);
  }
  cr_expect_eq(tl_gallery_find(40)->classes, TL_CLASS_NONSINGULAR);
  cr_expect(tl_gallery_expects_pass(tl_gallery_find(40), tl_find("gtsv")));
  cr_expect(!tl_gallery_expects_pass(tl_gallery_find(40), tl_find("thomas")));
}

/* The same trap inside a convergence study, for both schemes that have
 * it: thomas reports the breakdown at row 1 at every n (no errors, never a
 * silent answer), gtsv gives the closure's order. */
Test(closures, singular_block_in_the_study)
{
  static const char *const schemes[] = {"lele6", "d2-6th"};
  tl_converge_row rows[MAX_ROWS], ref[MAX_ROWS];
  for (int k = 0; k < 2; k++) {
    size_t count =
        study_on(schemes[k], "lele4-singular", "polyexp", 1.0, "thomas", NULL, 64, 512, rows);
    study_on(schemes[k], "lele4-singular", "polyexp", 1.0, "gtsv", NULL, 64, 512, ref);
    for (size_t r = 0; r < count; r++) {
      cr_expect_eq(rows[r].status, TL_ERR_BREAKDOWN, "%s n = %zu", schemes[k], rows[r].n);
      cr_expect_eq(rows[r].row, 1);
      cr_expect(strstr(rows[r].note, "row 1") != NULL, "%s", rows[r].note);
      cr_expect(isnan(rows[r].err_max));
      cr_expect_eq(ref[r].status, TL_OK, "gtsv: %s", ref[r].note);
    }
  }
}

/* Every partition algorithm on the bounded 6th-order problems (explicit6:
 * strictly diagonally dominant) at P = 1, 2, 4, 8: where it says ok its
 * answer passes the forward-error test against LAPACK and keeps the order
 * (registry_sweep_on); else it has reported. The exact ones are inside
 * their domain there and must say ok once every partition has rows. */
Test(closures, partition_algorithms_on_bounded_sixth_order)
{
  static const int parts_list[] = {1, 2, 4, 8};
  for (size_t c = 0; c < NCLOSURE_CASES; c++) {
    if (strcmp(family_cases[c].closure, "explicit6") || !strcmp(family_cases[c].scheme, "pade4"))
      continue;
    const closure_case *cc = &family_cases[c];
    order_case oc = {cc->scheme, cc->function, cc->k, cc->nmin, 8 * cc->nmin, 6.0};
    registry_sweep_on(cc->closure, &oc, parts_list, 4, 1);
    size_t nalg;
    const tl_algorithm *const *reg = tl_registry(&nalg);
    for (size_t k = 0; k < nalg; k++) {
      const tl_algorithm *al = reg[k];
      if (!al->partitioned || !al->exact || !(al->dtypes & TL_DTYPE_BIT(TL_F64)))
        continue;
      tl_options opt;
      tl_options_init(&opt);
      opt.parts = 8;
      tl_converge_row rows[MAX_ROWS];
      size_t count = study_on(cc->scheme, cc->closure, cc->function, cc->k, al->name, &opt,
                              cc->nmin, 8 * cc->nmin, rows);
      for (size_t r = 0; r < count; r++)
        cr_expect_eq(rows[r].status, TL_OK, "%s P=8 %s n = %zu: %s", al->name, cc->scheme,
                     rows[r].n, rows[r].note);
    }
  }
}

/* ---------------------------------------------------------------- */
/* The command                                                       */

static char dir[256];

static void setup(void)
{
  cli_tmpdir(dir, sizeof dir, "converge");
}

static void teardown(void)
{
  cli_rmdir(dir);
}

/* Run the command with `args`; its output in dir/out.txt, dir/err.txt. */
static int run(const char *args)
{
  char redirect[600];
  snprintf(redirect, sizeof redirect, ">%s/out.txt 2>%s/err.txt", dir, dir);
  return cli_run(args, redirect);
}

static long file_lines(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  long lines = 0;
  int ch;
  while ((ch = fgetc(f)) != EOF)
    lines += ch == '\n';
  fclose(f);
  return lines;
}

static int file_has(const char *path, const char *text)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char buf[65536];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = '\0';
  return strstr(buf, text) != NULL;
}

Test(converge_cli, csv_is_written, .init = setup, .fini = teardown)
{
  char args[1024], path[512];
  snprintf(args, sizeof args,
           "converge --scheme pade4 --boundary closure --function polyexp --algo thomas "
           "--nmin 16 --nmax 256 --csv %s/c.csv",
           dir);
  cr_assert_eq(run(args), 0);
  snprintf(path, sizeof path, "%s/c.csv", dir);
  cr_expect_eq(file_lines(path), 1 + 5, "header and one row per n");
  cr_expect(file_has(path, "scheme,boundary,function,wavenumber"));
  cr_expect(file_has(path, "outside-domain"));
  snprintf(path, sizeof path, "%s/out.txt", dir);
  cr_expect(file_has(path, "order(max)"));
  cr_expect(file_has(path, "outside-domain *"), "outside-domain rows are marked");
}

Test(converge_cli, plot_files_are_written, .init = setup, .fini = teardown)
{
  char args[1024], path[512];
  snprintf(args, sizeof args, "converge --scheme lele6 --nmin 16 --nmax 128 --plot %s/p.png", dir);
  cr_assert_eq(run(args), 0);
  snprintf(path, sizeof path, "%s/p.dat", dir);
  cr_expect_eq(file_lines(path), 2 + 4, "two comment lines and one row per n");
  snprintf(path, sizeof path, "%s/p.gp", dir);
  cr_expect(file_has(path, "x**(-6)"), "reference slope n^-6");
  cr_expect(file_has(path, "x**(-4)"), "reference slope n^-4");
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    snprintf(path, sizeof path, "%s/err.txt", dir);
    cr_expect(file_has(path, "gnuplot is not installed"));
    cr_skip_test("gnuplot is not installed: the PNG is not made");
  }
  struct stat st;
  snprintf(path, sizeof path, "%s/p.png", dir);
  cr_assert_eq(stat(path, &st), 0, "no %s", path);
  cr_expect_gt(st.st_size, 1000);
}

/* The trap through the command: reported as a breakdown at row 1, with
 * the closure's explanation; the study still exits 0. */
Test(converge_cli, singular_block_is_reported, .init = setup, .fini = teardown)
{
  char path[512], args[1024];
  cr_assert_eq(run("converge --scheme lele6 --boundary lele4-singular --algo thomas --nmin 16 "
                   "--nmax 64"),
               0);
  snprintf(path, sizeof path, "%s/out.txt", dir);
  cr_expect(file_has(path, "breakdown !"));
  cr_expect(file_has(path, "pivot at row 1"));
  cr_expect(file_has(path, "exactly singular"));
  snprintf(args, sizeof args,
           "converge --scheme d2-6th --boundary explicit6 --nmin 16 --nmax 64 --csv %s/e.csv", dir);
  cr_assert_eq(run(args), 0);
  snprintf(path, sizeof path, "%s/e.csv", dir);
  cr_expect(file_has(path, "d2-6th,explicit6,polyexp"));
  cr_expect_eq(run("converge --scheme pade4 --boundary lele4-singular"), 1, "lele6 and d2 only");
  cr_expect_eq(run("converge --scheme lele6 --boundary explicit7"), 1);
}

Test(converge_cli, bad_usage_exits_1, .init = setup, .fini = teardown)
{
  cr_expect_eq(run("converge --help"), 0);
  cr_expect_eq(run("converge --nmin 16 --nmax 32"), 0);
  cr_expect_eq(run("converge --frobnicate"), 1);
  cr_expect_eq(run("converge --scheme pade6"), 1);
  cr_expect_eq(run("converge --boundary dirichlet"), 1);
  cr_expect_eq(run("converge --function polyexp"), 1, "not periodic");
  cr_expect_eq(run("converge --wavenumber 1.5"), 1, "not periodic on [0, 2 pi)");
  cr_expect_eq(run("converge --algo thomas"), 1, "thomas takes no periodic system");
  cr_expect_eq(run("converge --algo thomas_periodic --parts 2"), 1);
  cr_expect_eq(run("converge --algo jacobi --param nosuch=1"), 1);
  cr_expect_eq(run("converge --nmin 64 --nmax 32"), 1);
  cr_expect_eq(run("converge --nmin"), 1);
  cr_expect_eq(run("converge --csv /nonexistent-dir/x.csv --nmin 16 --nmax 32"), 1);
}
