/* tests/test_sweep.c -- the truncation studies (tridlab/sweep.h) and the
 * `sweep` and `report` commands.
 *
 * The studies must show what the algorithms' pages state: ITS within its
 * eq-24 bound and falling with J as paper 003 (ITS) Tables 2 and 3 do,
 * eq 18 exact for Toeplitz rows, PDD / RPDD / DistD2 / Jacobi within the
 * bounds they report (plus rounding: a few eps times the condition
 * number), and no ok status with an error above round-off. The commands
 * are found through TRIDLAB_CLI (make check sets it); without it those
 * tests are skipped. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tridlab/sweep.h"
#include "cli_helpers.h"
#include "tridlab/tridlab.h"

/* ---------------------------------------------------------------- */
/* ITS (paper 003 §5.1)                                              */

/* ITS's bound is for the dropping; the solves themselves round. */
#define ITS_SLACK (8 * TL_EPS)

static void its_rows(tl_sweep_its_problem prob, size_t n, int parts, size_t jmax,
                     tl_sweep_its_row *rows)
{
  size_t Js[64];
  for (size_t k = 0; k < jmax; k++)
    Js[k] = k + 1;
  tl_info info;
  cr_assert_eq(tl_sweep_its(prob, n, parts, Js, jmax, rows, NULL, &info), TL_OK, "%s", info.msg);
}

Test(sweep_its, table2_within_bound_and_falling_with_J)
{
  tl_sweep_its_row rows[30];
  its_rows(TL_SWEEP_ITS_COMPACT, 252, 3, 30, rows);
  double kappa = 2.0 + sqrt(3.0); /* [1, 4, 1]: eq 18 */
  for (size_t r = 0; r < 30; r++) {
    const tl_sweep_its_row *w = &rows[r];
    cr_assert(tl_status_has_solution(w->status), "J = %zu: %s", w->J, w->note);
    cr_expect_leq(w->err, w->bound + ITS_SLACK, "J = %zu: error %g above the bound %g", w->J,
                  w->err, w->bound);
    /* Table 2's eps_c column is kappa^-J; the exact inverse agrees. */
    cr_expect_leq(fabs(w->eps_c_rate / pow(kappa, -(double)w->J) - 1.0), 1e-12);
    if (w->eps_c > 1e3 * TL_EPS)
      cr_expect_leq(fabs(w->eps_c / w->eps_c_rate - 1.0), 1e-6, "J = %zu", w->J);
    /* Strictly falling until the round-off floor. */
    if (r > 0 && rows[r - 1].err > 1e3 * TL_EPS)
      cr_expect_lt(w->err, rows[r - 1].err, "J = %zu", w->J);
    /* E_a: Pade 4th order on sin(20 pi x), 25.2 points per wave. */
    cr_expect(w->err_a > 2.0e-5 && w->err_a < 2.3e-5, "E_a = %g", w->err_a);
  }
  /* Table 2's J: 7, 15, 27 (J = 27 at round-off). */
  cr_expect_gt(rows[6].err, rows[14].err);
  cr_expect_gt(rows[14].err, rows[26].err);
  cr_expect_lt(rows[26].err, 4 * TL_EPS);
  /* Below the derivative's own error from J = 8 on. */
  cr_expect_lt(rows[7].err, rows[7].err_a);
}

Test(sweep_its, table3_within_bound_and_falling_with_J)
{
  tl_sweep_its_row rows[30];
  its_rows(TL_SWEEP_ITS_NONCONST, 1000, 4, 30, rows);
  for (size_t r = 0; r < 30; r++) {
    const tl_sweep_its_row *w = &rows[r];
    cr_assert(tl_status_has_solution(w->status), "J = %zu: %s", w->J, w->note);
    cr_expect_leq(w->err, w->bound + ITS_SLACK, "J = %zu: error %g above the bound %g", w->J,
                  w->err, w->bound);
    cr_expect(isnan(w->err_a));
    /* The worst row's rate never under-estimates what is neglected. */
    if (w->eps_c > 1e3 * TL_EPS)
      cr_expect_geq(w->eps_c_rate, w->eps_c, "J = %zu", w->J);
  }
  /* Table 3's J: 7, 15, 18, 20, 27. */
  static const size_t J3[] = {7, 15, 18, 20, 27};
  for (size_t k = 1; k < 5; k++) {
    const tl_sweep_its_row *prev = &rows[J3[k - 1] - 1], *w = &rows[J3[k] - 1];
    if (prev->err > 1e3 * TL_EPS)
      cr_expect_lt(w->err, prev->err, "J = %zu", w->J);
    else
      cr_expect_leq(w->err, 4 * TL_EPS, "J = %zu", w->J);
  }
  /* With eps_c far below round-off ITS vouches for its answer. */
  cr_expect_eq(rows[29].status, TL_OK, "%s", rows[29].note);
}

Test(sweep_its, error_set_by_J_not_by_n)
{
  size_t Js[] = {7, 15};
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0};
  for (size_t n = 96; n <= 3072; n *= 2) {
    tl_sweep_its_row rows[2];
    tl_info info;
    cr_assert_eq(tl_sweep_its(TL_SWEEP_ITS_COMPACT, n, 3, Js, 2, rows, NULL, &info), TL_OK);
    for (int j = 0; j < 2; j++) {
      cr_expect_leq(rows[j].err, rows[j].bound + ITS_SLACK, "n = %zu, J = %zu", n, Js[j]);
      lo[j] = fmin(lo[j], rows[j].err);
      hi[j] = fmax(hi[j], rows[j].err);
    }
  }
  for (int j = 0; j < 2; j++)
    cr_expect_lt(hi[j] / lo[j], 3.0, "J = %zu: %g .. %g", Js[j], lo[j], hi[j]);
}

Test(sweep_its, bad_arguments)
{
  tl_sweep_its_row rows[1];
  size_t J = 3;
  tl_info info;
  cr_expect_eq(tl_sweep_its((tl_sweep_its_problem)9, 100, 2, &J, 1, rows, NULL, &info), TL_ERR_ARG);
  cr_expect_eq(tl_sweep_its(TL_SWEEP_ITS_COMPACT, 100, 0, &J, 1, rows, NULL, &info), TL_ERR_ARG);
  cr_expect_eq(tl_sweep_its(TL_SWEEP_ITS_COMPACT, 2, 1, &J, 1, rows, NULL, &info), TL_ERR_ARG);
  /* J larger than a partition: a row with the solver's error, no abort. */
  J = 40;
  cr_assert_eq(tl_sweep_its(TL_SWEEP_ITS_COMPACT, 60, 3, &J, 1, rows, NULL, &info), TL_OK);
  cr_expect_eq(rows[0].status, TL_ERR_ARG);
  cr_expect(isnan(rows[0].err));
  cr_expect_neq(rows[0].note[0], '\0');
}

Test(sweep_its, bondeli_eq18_exact_for_toeplitz)
{
  double lambdas[] = {2.05, 2.5, 3, 4, 8};
  double eps[] = {1e-4, 1e-8, 1e-15};
  tl_sweep_bondeli_row rows[15];
  tl_info info;
  cr_assert_eq(tl_sweep_bondeli(lambdas, 5, eps, 3, rows, NULL, &info), TL_OK, "%s", info.msg);
  for (size_t r = 0; r < 15; r++) {
    cr_expect_eq((double)rows[r].J_measured, ceil(rows[r].J_eq18), "lambda %g eps_c %g: %zu vs %g",
                 rows[r].lambda, rows[r].eps_c, rows[r].J_measured, rows[r].J_eq18);
    cr_expect_geq(rows[r].J_its, rows[r].J_measured);
  }
  /* Paper 003 §3: J = 7 and 27 for eps_c = 1e-4 and 1e-15 when lambda = 4. */
  cr_expect_eq(rows[3 * 3 + 0].J_measured, 7);
  cr_expect_eq(rows[3 * 3 + 2].J_measured, 27);
  cr_expect_eq(tl_sweep_bondeli((double[]){2.0}, 1, eps, 1, rows, NULL, &info), TL_ERR_ARG);
  cr_expect_eq(tl_sweep_bondeli(lambdas, 1, (double[]){1.0}, 1, rows, NULL, &info), TL_ERR_ARG);
}

/* ---------------------------------------------------------------- */
/* PDD, RPDD, DistD2 against dominance; Jacobi against sweeps         */

/* ||A||_inf ||A^-1||_inf <= (lambda + 2) / (lambda - 2) for tridiag(1, lambda, 1). */
static double toeplitz_cond(double lambda)
{
  return (lambda + 2.0) / (lambda - 2.0);
}

Test(sweep_dominance, errors_within_bounds_and_prediction)
{
  double lambdas[] = {2.05, 2.5, 4, 8};
  size_t ms[] = {2, 4, 8, 16, 32, 64, 128};
  tl_sweep_dominance_config cfg = {
      .lambdas = lambdas, .nlambda = 4, .ms = ms, .nm = 7, .parts = 4, .rpdd_J = 8, .seed = 7};
  size_t cap = tl_sweep_dominance_count(&cfg), count;
  cr_assert_eq(cap, 4 * 7 * 4);
  tl_sweep_dominance_row *rows = calloc(cap, sizeof *rows);
  tl_info info;
  cr_assert_eq(tl_sweep_dominance(&cfg, rows, cap, &count, NULL, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(count, cap);
  for (size_t r = 0; r < count; r++) {
    const tl_sweep_dominance_row *w = &rows[r];
    const char *what = w->algo;
    if (w->series == TL_SWEEP_RPDD_FIXED && w->m < 8) {
      cr_expect_eq(w->status, TL_ERR_ARG, "J = 8 > m = %zu", w->m);
      continue;
    }
    cr_assert(tl_status_has_solution(w->status), "%s lambda %g m %zu: %s", what, w->lambda, w->m,
              w->note);
    double round = 64 * TL_EPS * toeplitz_cond(w->lambda);
    /* The bound each page states (exact arithmetic) plus rounding. */
    cr_expect_leq(w->err, w->bound + round, "%s lambda %g m %zu: error %g, bound %g", what,
                  w->lambda, w->m, w->err, w->bound);
    /* No silent failure: ok means an error at round-off level. */
    if (w->status == TL_OK)
      cr_expect_leq(w->err, round, "%s lambda %g m %zu: ok with error %g", what, w->lambda, w->m,
                    w->err);
    /* The prediction sigma^-m (sigma^-J for J fixed) to within a decade. */
    if (w->err > 1e3 * TL_EPS && w->predicted > 1e3 * TL_EPS)
      cr_expect(w->err / w->predicted > 0.05 && w->err / w->predicted < 10,
                "%s lambda %g m %zu: error %g, predicted %g", what, w->lambda, w->m, w->err,
                w->predicted);
  }
  free(rows);
}

Test(sweep_dominance, bad_configuration)
{
  double lambdas[] = {2.0};
  size_t ms[] = {8};
  tl_sweep_dominance_config cfg = {
      .lambdas = lambdas, .nlambda = 1, .ms = ms, .nm = 1, .parts = 4, .seed = 1};
  tl_sweep_dominance_row rows[8];
  size_t count;
  tl_info info;
  cr_expect_eq(tl_sweep_dominance(&cfg, rows, 8, &count, NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "lambda");
  lambdas[0] = 3;
  cfg.parts = 2;
  cr_expect_eq(tl_sweep_dominance(&cfg, rows, 8, &count, NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  cfg.parts = 4;
  cr_expect_eq(tl_sweep_dominance(&cfg, rows, 2, &count, NULL, &info), TL_ERR_ARG);
  ms[0] = 1;
  cr_expect_eq(tl_sweep_dominance(&cfg, rows, 8, &count, NULL, &info), TL_ERR_ARG);
}

Test(sweep_dominance, jacobi_within_bound_and_converging)
{
  double lambdas[] = {2.05, 2.5, 4};
  size_t ms[] = {4, 16};
  tl_sweep_jacobi_config cfg = {
      .lambdas = lambdas, .nlambda = 3, .ms = ms, .nm = 2, .parts = 16, .kmax = 30, .seed = 3};
  size_t cap = tl_sweep_jacobi_count(&cfg), count;
  tl_sweep_jacobi_row *rows = calloc(cap, sizeof *rows);
  tl_info info;
  cr_assert_eq(tl_sweep_jacobi(&cfg, rows, cap, &count, NULL, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(count, 3 * 2 * 30);
  for (size_t r = 0; r < count; r++) {
    const tl_sweep_jacobi_row *w = &rows[r];
    cr_assert(tl_status_has_solution(w->status), "%s", w->note);
    double round = 64 * TL_EPS * toeplitz_cond(w->lambda);
    cr_expect_leq(w->err, w->bound + round, "lambda %g m %zu K %ld: error %g, bound %g", w->lambda,
                  w->m, w->iters, w->err, w->bound);
    cr_expect(w->q >= 0 && w->q < 1, "q = %g", w->q);
    if (w->status == TL_OK)
      cr_expect_leq(w->err, round);
    /* The error falls with K until the round-off floor. */
    if (w->iters > 1 && rows[r - 1].err > 1e3 * TL_EPS)
      cr_expect_lt(w->err, rows[r - 1].err, "lambda %g m %zu K %ld", w->lambda, w->m, w->iters);
  }
  /* lambda = 2.05, m = 4 contracts slowly (q about 0.7): still above 1e-8
   * after 30 sweeps; lambda = 4, m = 16 is at round-off after one. */
  cr_expect_gt(rows[29].err, 1e-8);
  cr_expect_gt(rows[0].q, 0.5);
  cr_expect_leq(rows[5 * 30].err, 64 * TL_EPS * toeplitz_cond(4));
  free(rows);
}

Test(sweep_dominance, fixed_rows_per_partition_flattens_convergence)
{
  tl_options opt;
  tl_options_init(&opt);
  tl_info info;
  cr_assert_eq(tl_options_set_param_kv(&opt, tl_find("pdd"), "tol=1", &info), TL_OK);
  tl_converge_config cfg = {.scheme = tl_compact_find("pade4"),
                            .periodic = 0,
                            .function = tl_converge_function_find("polyexp"),
                            .wavenumber = 1,
                            .algo = tl_find("pdd"),
                            .opt = &opt,
                            .nmin = 64,
                            .nmax = 2048};
  tl_converge_row big[6], small[6];
  size_t nb, ns;
  cr_assert_eq(tl_sweep_converge_fixed_m(&cfg, 64, big, 6, &nb, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(tl_sweep_converge_fixed_m(&cfg, 8, small, 6, &ns, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(nb, 6);
  cr_assert_eq(ns, 6);
  /* m = 64: PDD drops about 0.27^64, the closure's order 3 stays. */
  for (size_t r = 2; r < nb; r++)
    cr_expect(fabs(big[r].order_max - 3.0) < 0.2, "n = %zu: order %g", big[r].n, big[r].order_max);
  /* m = 8: about 3e-5 dropped at every n; the order is gone at the end. */
  cr_expect_lt(small[5].order_max, 1.0, "order %g", small[5].order_max);
  cr_expect_gt(small[5].solver_diff, 1e-7);
  cr_expect_eq(tl_sweep_converge_fixed_m(&cfg, 0, small, 6, &ns, &info), TL_ERR_ARG);
  cr_expect_eq(tl_sweep_converge_fixed_m(&cfg, 8, small, 2, &ns, &info), TL_ERR_ARG);
}

/* ---------------------------------------------------------------- */
/* The commands                                                      */

static char dir[256];

static void setup(void)
{
  cli_tmpdir(dir, sizeof dir, "sweep");
}

static void teardown(void)
{
  cli_rmdir(dir);
}

/* Run the command with `args`, output discarded; its exit status. */
static int run(const char *args)
{
  return cli_run(args, ">/dev/null 2>&1");
}

static int exists(const char *name)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, R_OK) == 0;
}

static int gnuplot_here(void)
{
  return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* The whole file dir/name (caller frees). */
static char *slurp(const char *name)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s missing", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)len + 1);
  cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
  buf[len] = '\0';
  fclose(f);
  return buf;
}

TestSuite(sweep_cli, .init = setup, .fini = teardown, .timeout = 240);

Test(sweep_cli, one_study_writes_csv_and_plot)
{
  char args[512];
  snprintf(args, sizeof args, "sweep its-compact --J 7,15,27 --out %s/s", dir);
  cr_assert_eq(run(args), 0);
  cr_expect(exists("s/its_compact.csv"));
  cr_expect(exists("s/its_compact.gp"));
  cr_expect(exists("s/its_compact.dat"));
  if (gnuplot_here())
    cr_expect(exists("s/its_compact.png"));
  char *csv = slurp("s/its_compact.csv");
  cr_expect(!strncmp(csv, "study,n,parts,J,eps_c_rate,eps_c,err,bound", 42));
  size_t lines = 0;
  for (char *p = csv; *p; p++)
    lines += *p == '\n';
  cr_expect_eq(lines, 4, "header + 3 rows, got %zu lines", lines);
  free(csv);
}

Test(sweep_cli, bad_usage_exits_1)
{
  char args[512];
  cr_expect_eq(run("sweep"), 1);
  cr_expect_eq(run("sweep no-such-study"), 1);
  cr_expect_eq(run("sweep its-compact --lambda 3"), 1); /* not an option of this study */
  cr_expect_eq(run("sweep dominance --lambda 1.5 --out /dev/null/x"), 1);
  snprintf(args, sizeof args, "sweep dominance --lambda 2,3 --out %s", dir);
  cr_expect_eq(run(args), 1); /* lambda must be > 2 */
  cr_expect_eq(run("sweep all --J 3"), 1);
  cr_expect_eq(run("sweep --help"), 0);
  cr_expect_eq(run("report --help"), 0);
  cr_expect_eq(run("report --bogus"), 1);
}

Test(sweep_cli, quick_report_writes_its_files)
{
  char args[512];
  snprintf(args, sizeof args, "report --quick --out %s/r", dir);
  cr_assert_eq(run(args), 0);
  static const char *const csvs[] = {
      "verification.csv",  "conv_lele6_distd2.csv", "conv_periodic.csv", "conv_closures.csv",
      "conv_its_tol.csv",  "conv_pdd_m.csv",        "its_compact.csv",   "its_nonconst.csv",
      "its_n.csv",         "bondeli.csv",           "dominance.csv",     "jacobi_reduced.csv",
      "conv_bounded6.csv", "conv_closure_study.csv"};
  char *index = slurp("r/index.md");
  cr_expect(strstr(index, "Zero silent failures") != NULL);
  for (size_t k = 0; k < sizeof csvs / sizeof csvs[0]; k++) {
    char name[128], link[160];
    snprintf(name, sizeof name, "r/%s", csvs[k]);
    cr_expect(exists(name), "%s missing", name);
    snprintf(link, sizeof link, "(%s)", csvs[k]);
    cr_expect(strstr(index, link) != NULL, "index.md does not link %s", csvs[k]);
  }
  cr_expect(exists("r/verification.md"));
  /* Every plot the index embeds exists; with gnuplot, none is missing. */
  size_t embedded = 0;
  for (const char *p = index; (p = strstr(p, "](")) != NULL; p += 2) {
    const char *end = strchr(p + 2, ')');
    cr_assert_not_null(end);
    if (end - p > 6 && !strncmp(end - 4, ".png", 4)) {
      char name[160];
      snprintf(name, sizeof name, "r/%.*s", (int)(end - p - 2), p + 2);
      cr_expect(exists(name), "%s embedded but missing", name);
      embedded++;
    }
  }
  if (gnuplot_here()) {
    cr_expect_eq(embedded, 7 + 8, "embedded %zu plots", embedded);
    cr_expect(strstr(index, "not made") == NULL);
  }
  free(index);
}
