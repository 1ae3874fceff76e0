/* tests/test_registry.c -- every registry algorithm against LAPACK on the
 * gallery, small n, bad input, breakdown, complex and periodic systems. */
#include <complex.h>
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/tridlab.h"

static const char *const expected_names[] = {"thomas", "thomas_periodic", "cr",
                                             "pcr",    "jacobi",          "gtsv"};

Test(registry, has_every_algorithm_of_the_foundation)
{
  size_t count = 0;
  const tl_algorithm *const *reg = tl_registry(&count);
  for (size_t k = 0; k < sizeof expected_names / sizeof expected_names[0]; k++)
    cr_expect_not_null(tl_find(expected_names[k]), "%s missing", expected_names[k]);
  for (size_t k = 0; k < count; k++) {
    cr_expect(reg[k]->solve && reg[k]->summary && reg[k]->source && reg[k]->family,
              "%s incomplete", reg[k]->name);
    cr_expect(reg[k]->dtypes & TL_DTYPE_BIT(TL_F64), "%s: no double", reg[k]->name);
    cr_expect(reg[k]->classes != 0, "%s: no classes", reg[k]->name);
  }
  cr_expect_null(tl_find("no-such-algorithm"));
}

static void report_failure(const tl_verify_result *r, void *ctx)
{
  (void)ctx;
  if (r->verdict == TL_VERDICT_SILENT || r->verdict == TL_VERDICT_UNEXPECTED)
    cr_log_error("%s: %s on type %d (%s) n=%zu status=%s resid=%g ferr=%g: %s",
                 tl_verdict_name(r->verdict), r->algo->name, r->type->id, r->type->name, r->n,
                 tl_status_name(r->status), r->resid, r->ferr, r->note);
}

/* The promise: on every gallery matrix each algorithm passes LAPACK's
 * tests or says why not; where the gallery expects a pass, it passes. */
Test(registry, gallery_has_no_silent_or_unexpected_failure, .timeout = 600)
{
  static const size_t sizes[] = {1, 2, 3, 4, 7, 16, 100, 1000};
  static const int parts[] = {1, 2, 3, 4, 7, 16};
  tl_verify_config cfg = {.sizes = sizes,
                          .nsizes = sizeof sizes / sizeof sizes[0],
                          .nsys = 2,
                          .seed = 7,
                          .parts_list = parts,
                          .nparts = sizeof parts / sizeof parts[0],
                          .on_result = report_failure};
  tl_verify_summary sum;
  tl_info info;
  cr_assert_eq(tl_verify_run(&cfg, &sum, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(sum.silent, 0, "%ld silent failures", sum.silent);
  cr_expect_eq(sum.unexpected, 0, "%ld unexpected failures", sum.unexpected);
  cr_expect_gt(sum.passed, 100);
  cr_expect_gt(sum.reported, 10, "the hostile types must be reported");
}

/* n = 1, 2, 3 on a strictly dominant system: every non-periodic algorithm
 * agrees with DGTSV to a few eps (the matrix is well conditioned). */
Test(registry, tiny_systems_match_gtsv)
{
  for (size_t n = 1; n <= 3; n++) {
    double a[3] = {0, 0.5, -1.0}, b[3] = {4.0, -3.0, 5.0}, c[3] = {1.0, 0.25, 0};
    double d[3] = {1.0, 2.0, 3.0}, xref[3], x[3];
    c[n - 1] = 0;
    tl_batch sys = {.dtype = TL_F64, .n = n, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
    tl_info info;
    cr_assert_eq(tl_lapack_solve(&sys, xref, &info), TL_OK);
    for (size_t k = 0; k < sizeof expected_names / sizeof expected_names[0]; k++) {
      const tl_algorithm *al = tl_find(expected_names[k]);
      if (!(al->layouts & TL_NONPERIODIC))
        continue;
      int st = tl_solve(al, &sys, x, NULL, &info);
      cr_assert_eq(st, TL_OK, "%s n=%zu: %s", al->name, n, info.msg);
      for (size_t i = 0; i < n; i++)
        cr_expect_leq(fabs(x[i] - xref[i]), 16 * TL_EPS * fabs(xref[i]), "%s n=%zu x[%zu]",
                      al->name, n, i);
    }
  }
}

/* ---- bad input ---------------------------------------------------- */

typedef struct small_sys {
  double a[4], b[4], c[4], d[4], x[4];
  tl_batch sys;
} small_sys;

static void make_small(small_sys *s)
{
  const double a[4] = {0, 1, 1, 1}, b[4] = {4, 4, 4, 4}, c[4] = {1, 1, 1, 0}, d[4] = {1, 2, 3, 4};
  memcpy(s->a, a, sizeof a);
  memcpy(s->b, b, sizeof b);
  memcpy(s->c, c, sizeof c);
  memcpy(s->d, d, sizeof d);
  s->sys = (tl_batch){.dtype = TL_F64, .n = 4, .nsys = 1, .a = s->a, .b = s->b, .c = s->c,
                      .d = s->d};
}

static void expect_bad_arg(const tl_algorithm *al, const tl_batch *sys, void *x,
                           const tl_options *opt, const char *arg)
{
  tl_info info;
  int st = tl_solve(al, sys, x, opt, &info);
  cr_expect_eq(st, TL_ERR_ARG, "%s: expected bad argument '%s', got %s", al->name, arg,
               tl_status_name(st));
  cr_expect_str_eq(info.arg, arg, "%s: %s", al->name, info.msg);
  cr_expect_neq(info.msg[0], '\0');
}

Test(registry, bad_arguments_name_the_argument)
{
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  for (size_t k = 0; k < count; k++) {
    const tl_algorithm *al = reg[k];
    small_sys s;
    make_small(&s);
    s.sys.periodic = !(al->layouts & TL_NONPERIODIC);
    tl_batch bad = s.sys;
    bad.n = 0;
    expect_bad_arg(al, &bad, s.x, NULL, "n");
    bad = s.sys;
    bad.nsys = 0;
    expect_bad_arg(al, &bad, s.x, NULL, "nsys");
    bad = s.sys;
    bad.b = NULL;
    expect_bad_arg(al, &bad, s.x, NULL, "b");
    expect_bad_arg(al, &s.sys, NULL, NULL, "x");
    expect_bad_arg(al, &s.sys, s.d, NULL, "x"); /* x may not alias d */
    s.c[2] = NAN;
    expect_bad_arg(al, &s.sys, s.x, NULL, "c");
    s.c[2] = 1;
    s.d[3] = INFINITY;
    expect_bad_arg(al, &s.sys, s.x, NULL, "d");
    s.d[3] = 4;
    tl_options opt;
    tl_options_init(&opt);
    opt.parts = 0;
    expect_bad_arg(al, &s.sys, s.x, &opt, "parts");
    if (!al->partitioned) {
      opt.parts = 2;
      expect_bad_arg(al, &s.sys, s.x, &opt, "parts");
    }
    tl_info info;
    tl_options_init(&opt);
    cr_expect_eq(tl_options_set_param(&opt, al, "no_such_key", "1", &info), TL_ERR_ARG);
    cr_expect_str_eq(info.arg, "param");
  }
}

Test(registry, nonzero_corner_in_a_plain_system_is_an_error)
{
  small_sys s;
  make_small(&s);
  s.a[0] = 0.5;
  expect_bad_arg(tl_find("thomas"), &s.sys, s.x, NULL, "a");
  make_small(&s);
  s.c[3] = -0.5;
  expect_bad_arg(tl_find("gtsv"), &s.sys, s.x, NULL, "c");
}

Test(registry, wrong_layout_is_unsupported)
{
  small_sys s;
  make_small(&s);
  tl_info info;
  s.sys.periodic = 1;
  cr_expect_eq(tl_solve(tl_find("thomas"), &s.sys, s.x, NULL, &info), TL_ERR_UNSUPPORTED);
  s.sys.periodic = 0;
  cr_expect_eq(tl_solve(tl_find("thomas_periodic"), &s.sys, s.x, NULL, &info),
               TL_ERR_UNSUPPORTED);
}

Test(registry, jacobi_parameters_are_checked)
{
  const tl_algorithm *al = tl_find("jacobi");
  tl_options opt;
  tl_options_init(&opt);
  tl_info info;
  cr_expect_eq(tl_options_set_param_kv(&opt, al, "maxit=2.5", &info), TL_ERR_ARG);
  cr_expect_eq(tl_options_set_param_kv(&opt, al, "maxit=0", &info), TL_ERR_ARG);
  cr_expect_eq(tl_options_set_param_kv(&opt, al, "tol=abc", &info), TL_ERR_ARG);
  cr_expect_eq(tl_options_set_param_kv(&opt, al, "tol", &info), TL_ERR_ARG);
  cr_expect_eq(tl_options_set_param_kv(&opt, al, "maxit=50", &info), TL_OK);
  cr_expect_eq(tl_param_value(al, &opt, "maxit"), 50.0);
}

/* ---- breakdown ---------------------------------------------------- */

Test(registry, zero_pivot_is_a_breakdown_with_its_row)
{
  small_sys s;
  make_small(&s);
  s.b[0] = 0; /* the first pivot */
  tl_info info;
  cr_expect_eq(tl_solve(tl_find("thomas"), &s.sys, s.x, NULL, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 0);
  /* Pivot of row 2 vanishes: b2 - a2 c1 / p1 with p1 = b1 - a1 c0 / b0. */
  make_small(&s);
  s.b[0] = 1;
  s.b[1] = 2; /* p1 = 2 - 1 = 1 */
  s.b[2] = 1; /* p2 = 1 - 1 = 0 */
  cr_expect_eq(tl_solve(tl_find("thomas"), &s.sys, s.x, NULL, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 2);
  /* gtsv pivots past it: the matrix is nonsingular. */
  cr_expect_eq(tl_solve(tl_find("gtsv"), &s.sys, s.x, NULL, &info), TL_OK, "%s", info.msg);
}

Test(registry, singular_matrix_is_a_gtsv_breakdown)
{
  small_sys s;
  make_small(&s);
  s.b[1] = 0;
  s.c[0] = 0;
  s.a[2] = 0; /* column 1 is zero */
  tl_info info;
  cr_expect_eq(tl_solve(tl_find("gtsv"), &s.sys, s.x, NULL, &info), TL_ERR_BREAKDOWN);
  cr_expect_geq(info.row, 0);
}

Test(registry, non_dominant_matrix_is_reported_outside_domain)
{
  small_sys s;
  make_small(&s);
  s.b[1] = 1.5; /* |b1| < |a1| + |c1|; the pivots stay non-zero */
  s.a[2] = 1.25; /* not symmetric, so Thomas cannot claim positive definiteness */
  const char *names[] = {"thomas", "cr", "pcr"};
  for (int k = 0; k < 3; k++) {
    tl_info info;
    int st = tl_solve(tl_find(names[k]), &s.sys, s.x, NULL, &info);
    cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "%s: %s", names[k], tl_status_name(st));
    cr_expect_neq(info.msg[0], '\0');
  }
}

/* ---- complex against ZGTSV, periodic against a dense solve ---------- */

Test(registry, complex_systems_match_zgtsv)
{
  tl_problem p;
  tl_info info;
  const size_t n = 300;
  cr_assert_eq(tl_gallery_make(60, n, 3, 11, &p, &info), TL_OK, "%s", info.msg); /* TDSE */
  double complex *x = calloc(3 * n, sizeof *x), *xref = calloc(3 * n, sizeof *xref);
  double rcond[3];
  cr_assert_eq(tl_lapack_solve(&p.sys, xref, &info), TL_OK);
  cr_assert_eq(tl_rcond(&p.sys, rcond, &info), TL_OK);
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  for (size_t k = 0; k < count; k++) {
    if (!(reg[k]->dtypes & TL_DTYPE_BIT(TL_C128)) || !(reg[k]->layouts & TL_NONPERIODIC))
      continue;
    cr_expect_eq(tl_solve(reg[k], &p.sys, x, NULL, &info), TL_OK, "%s: %s", reg[k]->name,
                 info.msg);
    cr_expect_lt(tl_forward_ratio(&p.sys, x, xref, rcond), TL_THRESH, "%s", reg[k]->name);
    cr_expect_lt(tl_residual_ratio(&p.sys, x), TL_THRESH, "%s", reg[k]->name);
  }
  free(x);
  free(xref);
  tl_problem_free(&p);
}

/* Dense n x n matrix of a cyclic system (entries on one column add). */
static void dense_cyclic(size_t n, const double *a, const double *b, const double *c, double *m)
{
  memset(m, 0, n * n * sizeof *m);
  for (size_t i = 0; i < n; i++) {
    m[i * n + (i + n - 1) % n] += a[i];
    m[i * n + i] += b[i];
    m[i * n + (i + 1) % n] += c[i];
  }
}

Test(registry, periodic_systems_match_a_dense_lapack_solve)
{
  static const size_t sizes[] = {1, 2, 3, 4, 5, 17, 64};
  static const int types[] = {50, 52, 53, 55};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      size_t n = sizes[k];
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(types[t], n, 1, 3, &p, &info), TL_OK, "%s", info.msg);
      double *m = malloc(n * n * sizeof *m), *xd = malloc(n * sizeof *xd);
      double *x = malloc(n * sizeof *x), *xb = malloc(n * sizeof *xb);
      lapack_int *ipiv = malloc(n * sizeof *ipiv);
      dense_cyclic(n, p.a, p.b, p.c, m);
      memcpy(xd, p.d, n * sizeof *xd);
      cr_assert_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)n, 1, m, (lapack_int)n, ipiv, xd, 1),
                   0);
      double rcond;
      cr_assert_eq(tl_rcond(&p.sys, &rcond, &info), TL_OK);
      cr_assert_eq(tl_lapack_solve(&p.sys, xb, &info), TL_OK, "%s", info.msg);
      cr_expect_lt(tl_forward_ratio(&p.sys, xb, xd, &rcond), TL_THRESH, "band vs dense n=%zu", n);
      const char *names[] = {"thomas_periodic", "jacobi"};
      for (int j = 0; j < 2; j++) {
        int st = tl_solve(tl_find(names[j]), &p.sys, x, NULL, &info);
        cr_expect_eq(st, TL_OK, "%s type %d n=%zu: %s", names[j], types[t], n, info.msg);
        cr_expect_lt(tl_forward_ratio(&p.sys, x, xd, &rcond), TL_THRESH, "%s type %d n=%zu",
                     names[j], types[t], n);
      }
      free(m);
      free(xd);
      free(x);
      free(xb);
      free(ipiv);
      tl_problem_free(&p);
    }
  }
}

Test(registry, singular_cyclic_matrix_is_never_silent)
{
  tl_problem p;
  tl_info info;
  for (size_t n = 1; n <= 64; n++) {
    cr_assert_eq(tl_gallery_make(56, n, 1, 5, &p, &info), TL_OK, "%s", info.msg);
    double *x = calloc(n, sizeof *x);
    int st = tl_solve(tl_find("thomas_periodic"), &p.sys, x, NULL, &info);
    cr_expect_neq(st, TL_OK, "n=%zu: singular cyclic Laplacian solved without a warning", n);
    free(x);
    tl_problem_free(&p);
  }
}

/* Batches: each system is solved on its own; a warning names its system. */
Test(registry, batch_reports_the_system_that_failed)
{
  double a[6] = {0, 1, 1, 0, 1.25, 1}, b[6] = {4, 4, 4, 4, 1.5, 4}, c[6] = {1, 1, 0, 1, 1, 0};
  double d[6] = {1, 2, 3, 4, 5, 6}, x[6];
  tl_batch sys = {.dtype = TL_F64, .n = 3, .nsys = 2, .a = a, .b = b, .c = c, .d = d};
  tl_info info;
  cr_expect_eq(tl_solve(tl_find("thomas"), &sys, x, NULL, &info), TL_OUTSIDE_DOMAIN);
  cr_expect_eq(info.system, 1);
  cr_expect(strstr(info.msg, "system 1") != NULL, "%s", info.msg);
}
