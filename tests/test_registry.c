/* tests/test_registry.c -- every registry algorithm against LAPACK on the
 * gallery, small n, bad input, breakdown, complex and periodic systems. */
#include <complex.h>
#include <criterion/criterion.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
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

/* Dorr with theta = 1e-4 (type 43) is singular to working precision from
 * n = 16 on (DGTCON's estimate saturates near 1e19; the true condition
 * number is about 1e543): the judge follows LAPACK's rule there -- an ok
 * answer is judged by its residual alone, a report is no broken promise --
 * while at n = 8 (cond 7e10) both ratios are judged and thomas, whose
 * class the type is in, must pass. */
Test(registry, singular_to_working_precision_is_judged_by_the_residual)
{
  const tl_algorithm *thomas = tl_find("thomas");
  const size_t sizes[] = {8, 64, 512};
  for (size_t k = 0; k < 3; k++) {
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(43, sizes[k], 1, 2026, &p, &info), TL_OK, "%s", info.msg);
    double rcond;
    cr_assert_eq(tl_rcond(&p.sys, &rcond, &info), TL_OK);
    int singular = rcond < TL_EPS;
    cr_expect_eq(singular, sizes[k] > 8, "n = %zu: rcond %g", sizes[k], rcond);
    tl_verify_result r;
    tl_verify_pair(thomas, &p, NULL, &r);
    cr_expect_eq(r.verdict, TL_VERDICT_PASSED, "n = %zu: %s (%s)", sizes[k],
                 tl_verdict_name(r.verdict), r.note);
    cr_expect_eq(isnan(r.ferr), singular, "n = %zu: ferr %g", sizes[k], r.ferr);
    cr_expect_eq(r.expected, !singular, "n = %zu", sizes[k]);
    /* The same problem reported: an expected type is UNEXPECTED, one
     * singular to working precision is only reported. */
    tl_info said;
    tl_info_clear(&said);
    tl_verify_judge(thomas, &p, NULL, TL_OUTSIDE_DOMAIN, &said, NULL, &rcond, &r);
    cr_expect_eq(r.verdict, singular ? TL_VERDICT_REPORTED : TL_VERDICT_UNEXPECTED, "n = %zu",
                 sizes[k]);
    cr_expect_eq(strstr(r.note, "singular to working precision") != NULL, singular);
    tl_problem_free(&p);
  }
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

/* A backend that states only where it differs from its reference: its
 * name, backend and solve; it takes n <= 4 and says unsupported beyond. */
static int small_only_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                            const tl_options *opt, tl_info *info)
{
  if (sys->n > 4)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "n", "%s takes n <= 4", self->name);
  return self->reference->solve(self->reference, sys, x, opt, info);
}

Test(registry, a_backend_inherits_from_its_reference_and_falls_back_to_it)
{
  const tl_algorithm *thomas = tl_find("thomas");
  static tl_algorithm backend = {.name = "thomas_small_only", .backend = "test",
                                 .solve = small_only_solve};
  backend.reference = thomas;
  tl_info info;
  cr_assert_eq(tl_register(&backend, &info), TL_OK, "%s", info.msg);
  const tl_algorithm *b = tl_find("thomas_small_only");
  cr_assert_not_null(b);
  cr_expect_eq(b->classes, thomas->classes);
  cr_expect_eq(b->dtypes, thomas->dtypes);
  cr_expect_eq(b->layouts, thomas->layouts);
  cr_expect_eq(b->exact, thomas->exact);
  cr_expect_str_eq(b->source, thomas->source);
  cr_expect_str_eq(b->family, thomas->family);
  cr_expect_str_eq(b->backend, "test");
  cr_expect_str_eq(tl_algorithm_room(b), "registered");
  cr_expect_str_eq(tl_algorithm_room(thomas), "reference");
  /* n = 4: its own answer; n = 8: unsupported, so the reference answers. */
  for (size_t n = 4; n <= 8; n += 4) {
    tl_problem p;
    cr_assert_eq(tl_gallery_make(2, n, 1, 5, &p, &info), TL_OK);
    double x[8], xr[8];
    int st = tl_solve(&backend, &p.sys, x, NULL, &info); /* the descriptor, unresolved */
    cr_expect_eq(st, TL_OK, "n = %zu: %s", n, info.msg);
    cr_expect_eq(strstr(info.msg, "answered by the reference thomas") != NULL, n > 4,
                 "n = %zu: %s", n, info.msg);
    if (n > 4)
      cr_expect(strstr(info.msg, "takes n <= 4") != NULL, "%s", info.msg);
    cr_assert_eq(tl_solve(thomas, &p.sys, xr, NULL, &info), TL_OK);
    cr_expect(memcmp(x, xr, n * sizeof x[0]) == 0, "n = %zu: not the reference's bits", n);
    tl_problem_free(&p);
  }
}

/* A room added at run time (as the MPI room joins): its algorithms are
 * listed and found, tl_algorithm_room names the room, adding it again
 * does nothing, and a room whose algorithm's name is taken is refused
 * with the reason. */
Test(registry, a_room_joins_at_run_time)
{
  static tl_algorithm first = {.name = "thomas_room_a", .backend = "test",
                               .solve = small_only_solve};
  static tl_algorithm clash = {.name = "thomas", .backend = "test", .solve = small_only_solve};
  first.reference = tl_find("thomas");
  clash.reference = first.reference;
  static const tl_algorithm *const list[] = {&first};
  static const tl_algorithm *const bad_list[] = {&clash};
  static const tl_room room = {.name = "test-room", .algorithms = list, .count = 1};
  static const tl_room bad = {.name = "bad-room", .algorithms = bad_list, .count = 1};
  size_t before, after;
  tl_registry(&before);
  tl_info info;
  cr_assert_eq(tl_register_room(&room, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(tl_register_room(&room, &info), TL_OK, "adding it again: %s", info.msg);
  tl_registry(&after);
  cr_expect_eq(after, before + 1, "%zu algorithms, %zu before", after, before);
  const tl_algorithm *a = tl_find("thomas_room_a");
  cr_assert_not_null(a);
  cr_expect_str_eq(tl_algorithm_room(a), "test-room");
  cr_expect_eq(a->classes, first.reference->classes, "inherited from its reference");
  cr_expect_eq(tl_register_room(&bad, &info), TL_ERR_ARG);
  cr_expect(strstr(info.msg, "already registered") != NULL, "%s", info.msg);
  size_t last;
  tl_registry(&last);
  cr_expect_eq(last, after, "a refused room adds nothing");
  cr_expect_eq(tl_register_room(NULL, &info), TL_ERR_ARG);
}

/* Partition sizes whose sum wraps around to n (SIZE_MAX + 5 = 4 rows):
 * each size is checked on its own, so every partitioned backend refuses
 * them before it indexes a row (they once overflowed ptdma, distd2,
 * tridsolver and hybrid_pcr). The message names the partition. */
Test(registry, partition_sizes_that_wrap_around_are_bad_arguments)
{
  const size_t bad[][3] = {{SIZE_MAX, 5, 0},
                           {1, SIZE_MAX, 4},
                           {SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1, 4},
                           {2, 2, SIZE_MAX},
                           {(size_t)1 << 63, (size_t)1 << 63, 4},
                           {5, 0, 0},
                           {4, 0, 0}};
  const char *const names[] = {"partition 0", "partition 1", "partition 0", "partition 2",
                               "partition 0", "partition 0", "partition 1"};
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  for (size_t k = 0; k < count; k++) {
    const tl_algorithm *al = reg[k];
    if (!al->partitioned)
      continue;
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
      small_sys s;
      make_small(&s);
      s.sys.periodic = !(al->layouts & TL_NONPERIODIC);
      size_t sizes[3];
      memcpy(sizes, bad[t], sizeof sizes);
      tl_options opt;
      tl_options_init(&opt);
      opt.parts = bad[t][2] == 0 ? 2 : 3;
      opt.part_sizes = sizes;
      tl_info info;
      int st = tl_solve(al, &s.sys, s.x, &opt, &info);
      cr_expect_eq(st, TL_ERR_ARG, "%s, case %zu: %s", al->name, t, info.msg);
      cr_expect_str_eq(info.arg, "parts", "%s, case %zu", al->name, t);
      if (al->min_rows_per_part <= 1)
        cr_expect(strstr(info.msg, names[t]) != NULL, "%s, case %zu: %s", al->name, t, info.msg);
      cr_expect(memcmp(sizes, bad[t], sizeof sizes) == 0, "%s: sizes changed", al->name);
    }
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

/* Issue 9: a periodic 1x1 system is s x = d with s = a + b + c. The
 * solvers added the three terms in different orders, and on a = 1.5,
 * b = -1e16, c = 1e16, d = 3 (x = 2) four of them returned 1.5 with
 * status ok. s is now tl_periodic1_entry (nearly exact, one set of bits
 * for everyone): every algorithm that takes periodic systems returns the
 * same status and an answer that passes, here and on random 1x1 and 2x2
 * systems whose terms cancel. */
static double cancelling_term(tl_rng *r)
{
  static const double big[] = {1e16, -1e16, 0x1p60, -0x1p60, 3e300, -3e300};
  double u = tl_rng_uniform(r, -1, 1);
  switch (tl_rng_next(r) % 4) {
  case 0: return big[tl_rng_next(r) % 6];
  case 1: return u * 1e16;
  default: return 4 * u;
  }
}

static void solve_small_periodic(size_t n, const double *a, const double *b, const double *c,
                                 const double *d, int check_agreement)
{
  tl_batch sys = {.dtype = TL_F64, .n = n, .nsys = 1, .periodic = 1, .a = a, .b = b, .c = c,
                  .d = d};
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  int first = 1, status0 = 0;
  for (size_t k = 0; k < count; k++) {
    if (!(reg[k]->layouts & TL_PERIODIC))
      continue;
    double x[2];
    tl_info info;
    int st = tl_solve(reg[k], &sys, x, NULL, &info);
    if (st == TL_ERR_ARG && strcmp(info.arg, "parts") == 0)
      continue; /* needs more rows per partition */
    if (st == TL_OK)
      cr_expect_lt(tl_residual_ratio(&sys, x), TL_THRESH, "%s n=%zu a0=%g b0=%g c0=%g: %g",
                   reg[k]->name, n, a[0], b[0], c[0], tl_residual_ratio(&sys, x));
    if (!check_agreement)
      continue;
    if (first)
      status0 = st;
    first = 0;
    cr_expect_eq(st, status0, "%s: status %d, others %d (a=%g b=%g c=%g)", reg[k]->name, st,
                 status0, a[0], b[0], c[0]);
  }
}

Test(registry, periodic_1x1_systems_agree)
{
  double a[1] = {1.5}, b[1] = {-1e16}, c[1] = {1e16}, d[1] = {3};
  tl_batch sys = {.dtype = TL_F64, .n = 1, .nsys = 1, .periodic = 1, .a = a, .b = b, .c = c,
                  .d = d};
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  for (size_t k = 0; k < count; k++) {
    if (!(reg[k]->layouts & TL_PERIODIC))
      continue;
    double x[1] = {0};
    tl_info info;
    int st = tl_solve(reg[k], &sys, x, NULL, &info);
    if (st == TL_ERR_ARG && strcmp(info.arg, "parts") == 0)
      continue;
    cr_expect_eq(st, TL_OK, "%s: %s", reg[k]->name, info.msg);
    cr_expect_eq(x[0], 2.0, "%s: x = %.17g", reg[k]->name, x[0]);
  }
  cr_expect_eq(tl_periodic1_entry_d(1.5, -1e16, 1e16), 1.5);
  cr_expect_eq(tl_periodic1_entry_d(1e16, 1.5, -1e16), 1.5, "any order, the same bits");
  cr_expect_eq(tl_periodic1_entry_d(DBL_MAX, DBL_MAX, -DBL_MAX), DBL_MAX, "no overflow");
  cr_expect(isinf(tl_periodic1_entry_d(DBL_MAX, DBL_MAX, 0)), "the sum itself overflows");
  tl_info info;
  double big[1] = {DBL_MAX}, x[1];
  tl_batch over = {.dtype = TL_F64, .n = 1, .nsys = 1, .periodic = 1, .a = big, .b = big,
                   .c = c, .d = d};
  cr_expect_eq(tl_solve(tl_find("thomas_periodic"), &over, x, NULL, &info), TL_ERR_ARG);
  tl_rng r;
  tl_rng_seed(&r, 9);
  for (int t = 0; t < 300; t++) {
    double ra[2], rb[2], rc[2], rd[2];
    for (int i = 0; i < 2; i++) {
      ra[i] = cancelling_term(&r);
      rb[i] = cancelling_term(&r);
      rc[i] = cancelling_term(&r);
      rd[i] = 4 * tl_rng_uniform(&r, -1, 1);
    }
    solve_small_periodic(1, ra, rb, rc, rd, 1);
    solve_small_periodic(2, ra, rb, rc, rd, 0);
  }
}

/* Parameter values written into tl_options directly get the checks of
 * tl_options_set_param (fuzzing passes them out of range). */
Test(registry, parameters_set_directly_are_checked)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(23, 40, 1, 1, &p, &info), TL_OK);
  double x[40];
  static const struct {
    const char *algo;
    int k;
    double v;
  } bad[] = {{"jacobi", 0, 0.0}, {"jacobi", 0, NAN},   {"jacobi", 1, 2.5},
             {"its", 0, 1e300},  {"its", 1, -1.0},     {"tridsolver", 0, 4.0},
             {"tridsolver", 0, 0.5}, {"tridsolver", 1, -1}, {"nshaped", 0, 17}};
  for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
    const tl_algorithm *algo = tl_find(bad[t].algo);
    tl_options opt;
    tl_options_init(&opt);
    opt.parts = algo->partitioned ? 2 : 1;
    opt.value[bad[t].k] = bad[t].v;
    opt.is_set[bad[t].k] = 1;
    cr_expect_eq(tl_solve(algo, &p.sys, x, &opt, &info), TL_ERR_ARG, "%s %s = %g",
                 bad[t].algo, algo->params[bad[t].k].name, bad[t].v);
    cr_expect_str_eq(info.arg, "param");
  }
  tl_problem_free(&p);
}

/* An approximate algorithm's ok answer passes LAPACK's tests with its
 * default tolerance; with a looser one chosen by the caller it may not,
 * and the status message says so (the fuzz oracle accepts a ratio >= 30
 * only then). */
Test(registry, ok_with_a_loose_caller_tolerance_says_so)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(23, 4000, 1, 3, &p, &info), TL_OK); /* tridiag(1, 4, 1) */
  double *x = malloc(4000 * sizeof *x);
  const tl_algorithm *its = tl_find("its");
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 4;
  cr_assert_eq(tl_options_set_param(&opt, its, "J", "15", &info), TL_OK);
  cr_assert_eq(tl_options_set_param(&opt, its, "tol", "1e-8", &info), TL_OK);
  cr_expect_eq(tl_solve(its, &p.sys, x, &opt, &info), TL_OK, "%s", info.msg);
  cr_expect_geq(tl_residual_ratio(&p.sys, x), TL_THRESH);
  cr_expect(strstr(info.msg, "chosen by the caller") != NULL, "%s", info.msg);
  /* The default tolerance: a report, not an ok. The default set
   * explicitly: no note. */
  tl_options_init(&opt);
  opt.parts = 4;
  cr_assert_eq(tl_options_set_param(&opt, its, "J", "15", &info), TL_OK);
  cr_expect_eq(tl_solve(its, &p.sys, x, &opt, &info), TL_OUTSIDE_DOMAIN);
  tl_options_init(&opt);
  opt.parts = 4;
  cr_assert_eq(tl_options_set_param(&opt, its, "tol", "1.1102230246251565e-16", &info), TL_OK);
  cr_expect_eq(tl_solve(its, &p.sys, x, &opt, &info), TL_OK, "%s", info.msg);
  cr_expect_str_eq(info.msg, "");
  free(x);
  tl_problem_free(&p);
}

/* Found by fuzzing: ZGTSV divides by Smith's method, whose denominator
 * overflows when both parts of the divisor are near DBL_MAX: it returned
 * x = 0 with INFO = 0 where x = (-6 + 2i) / 3.6e308 is a double. gtsv
 * hands LAPACK the system scaled by powers of two. */
Test(registry, gtsv_divides_near_overflow)
{
  double complex a[1] = {0}, b[1] = {tl_cmplx(1.7e308, 1.7e308)}, c[1] = {0};
  double complex d[1] = {tl_cmplx(-4, -2)}, x[1];
  tl_batch sys = {.dtype = TL_C128, .n = 1, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  tl_info info;
  cr_assert_eq(tl_solve(tl_find("gtsv"), &sys, x, NULL, &info), TL_OK, "%s", info.msg);
  cr_expect(x[0] != 0, "x = 0");
  cr_expect_lt(tl_residual_ratio(&sys, x), TL_THRESH);
  double ra[2] = {0, 1e308}, rb[2] = {1.5e308, 1.7e308}, rc[2] = {1e308, 0}, rd[2] = {1, -1}, rx[2];
  tl_batch real = {.dtype = TL_F64, .n = 2, .nsys = 1, .a = ra, .b = rb, .c = rc, .d = rd};
  cr_assert_eq(tl_solve(tl_find("gtsv"), &real, rx, NULL, &info), TL_OK, "%s", info.msg);
  cr_expect_lt(tl_residual_ratio(&real, rx), TL_THRESH);
}

/* The two 3x3 systems of the underflow findings (CR, N-shaped, PTDMA:
 * rows scaled 1e-162 and 1e138, d subnormal) and their mirror images,
 * through every algorithm that takes plain systems and P = 1, 2, 3: an
 * ok answer always passes. */
Test(registry, substitutions_near_underflow_are_never_silent)
{
  static const double sys_abcd[2][4][3] = {
      {{0, -4e138, 1e138}, {1e-161, 6e138, 3e138}, {3e-162, 1e138, 0}, {3e-323, 0, 0}},
      {{0, 3.738e-162, 1e138},
       {6e138, 1e-161, 3e138},
       {-5.9399999999999995e+138, 0, 0},
       {0, 7 * 0x1p-1074, 0}}};
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  for (int s = 0; s < 4; s++) {
    const double(*m)[3] = sys_abcd[s / 2];
    double a[3], b[3], c[3], d[3];
    for (int i = 0; i < 3; i++) { /* s odd: rows and unknowns in reverse order */
      int j = (s % 2) ? 2 - i : i;
      a[i] = (s % 2) ? m[2][j] : m[0][j];
      c[i] = (s % 2) ? m[0][j] : m[2][j];
      b[i] = m[1][j];
      d[i] = m[3][j];
    }
    tl_batch sys = {.dtype = TL_F64, .n = 3, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
    for (size_t k = 0; k < count; k++)
      for (int P = 1; P <= (reg[k]->partitioned ? 3 : 1); P++) {
        if (!(reg[k]->layouts & TL_NONPERIODIC))
          continue;
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
        double x[3];
        tl_info info;
        if (tl_solve(reg[k], &sys, x, &opt, &info) == TL_OK)
          cr_expect_lt(tl_residual_ratio(&sys, x), TL_THRESH, "%s P=%d system %d", reg[k]->name,
                       P, s);
      }
  }
}

/* ---- memory that runs out ------------------------------------------ */

/* Every registry algorithm, with each of its first scratch allocations
 * failing in turn (tl_alloc_fail_at): the status is TL_ERR_NOMEM with a
 * report, or, when the allocation was not needed, the same answer as
 * with memory -- never a crash, a silent wrong answer or a leak (the
 * sanitized run checks the last). A strictly dominant batch of 3 systems
 * of 40 rows, plain or periodic as the algorithm takes it. */
Test(registry, no_memory_is_reported_never_silent, .timeout = 300)
{
  size_t count, n = 40, nsys = 3;
  const tl_algorithm *const *all = tl_registry(&count);
  double *m = calloc(6 * n * nsys, sizeof *m);
  double *a = m, *b = a + n * nsys, *c = b + n * nsys, *d = c + n * nsys, *x = d + n * nsys,
         *x0 = x + n * nsys;
  for (size_t k = 0; k < n * nsys; k++)
    a[k] = -1, b[k] = 4 + (double)(k % 5) / 8, c[k] = -1, d[k] = (double)(k % 11) - 5;
  for (size_t i = 0; i < count; i++) {
    const tl_algorithm *al = all[i];
    int periodic = !(al->layouts & TL_NONPERIODIC);
    for (size_t s = 0; s < nsys && !periodic; s++)
      a[s * n] = 0, c[s * n + n - 1] = 0;
    for (size_t s = 0; s < nsys && periodic; s++)
      a[s * n] = -1, c[s * n + n - 1] = -1;
    tl_batch sys = {.dtype = TL_F64, .n = n, .nsys = nsys, .periodic = periodic, .a = a, .b = b,
                    .c = c, .d = d};
    tl_info info;
    int st0 = tl_solve(al, &sys, x0, NULL, &info);
    for (long k = 1; k <= 32; k++) {
      tl_alloc_fail_at(k);
      int st = tl_solve(al, &sys, x, NULL, &info);
      tl_alloc_fail_at(0);
      if (st == TL_ERR_NOMEM) {
        cr_expect_neq(info.msg[0], '\0', "%s: allocation %ld: no report", al->name, k);
        continue;
      }
      cr_expect_eq(st, st0, "%s: allocation %ld failing gave %s (%s), %s with memory", al->name,
                   k, tl_status_name(st), info.msg, tl_status_name(st0));
      if (st == st0 && tl_status_has_solution(st))
        cr_expect(memcmp(x, x0, n * nsys * sizeof *x) == 0,
                  "%s: allocation %ld failing changed the answer", al->name, k);
    }
  }
  free(m);
}
