/* tests/test_cli.c -- the tridlab command end to end: `solve` on .npy
 * systems made here, its exit statuses, `list` and `verify`. The command
 * is found through the TRIDLAB_CLI environment variable (make check sets
 * it); without it these tests are skipped. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "helpers.h"
#include "tridlab/tridlab.h"

static char dir[256];

static void setup(void)
{
  cli_tmpdir(dir, sizeof dir, "cli");
}

static void teardown(void)
{
  cli_rmdir(dir);
}

/* Run the command with `args` (output discarded); its exit status. */
static int run(const char *args)
{
  return cli_run(args, ">/dev/null 2>&1");
}

static void write_array(const char *name, tl_dtype dt, int ndim, size_t n0, size_t n1,
                        const void *data)
{
  char path[512];
  size_t shape[2] = {n0, n1};
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  tl_info info;
  cr_assert_eq(tl_npy_write(path, dt, ndim, shape, data, &info), TL_OK, "%s", info.msg);
}

static void write_problem(const tl_problem *p)
{
  int nd = p->sys.nsys > 1 ? 2 : 1;
  size_t n0 = nd == 2 ? p->sys.nsys : p->sys.n, n1 = nd == 2 ? p->sys.n : 0;
  write_array("a", p->sys.dtype, nd, n0, n1, p->a);
  write_array("b", p->sys.dtype, nd, n0, n1, p->b);
  write_array("c", p->sys.dtype, nd, n0, n1, p->c);
  write_array("d", p->sys.dtype, nd, n0, n1, p->d);
}

static int solve(const char *algo, const char *extra)
{
  char args[1024];
  snprintf(args, sizeof args, "solve --algo %s --system %s --out %s/x.npy %s", algo, dir, dir,
           extra ? extra : "");
  return run(args);
}

static void expect_x_matches_lapack(const tl_problem *p)
{
  char path[512];
  snprintf(path, sizeof path, "%s/x.npy", dir);
  tl_npy x;
  tl_info info;
  cr_assert_eq(tl_npy_read(path, &x, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(x.count, p->sys.n * p->sys.nsys);
  double resid, ferr;
  cr_assert_eq(th_ratios(&p->sys, x.data, &resid, &ferr), 0);
  cr_expect_lt(ferr, TL_THRESH);
  tl_npy_free(&x);
}

TestSuite(cli, .init = setup, .fini = teardown, .timeout = 120);

Test(cli, solve_agrees_with_lapack_and_exits_0)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, 200, 1, 1, &p, &info), TL_OK);
  write_problem(&p);
  const char *algos[] = {"thomas", "cr", "pcr", "jacobi", "gtsv"};
  for (int k = 0; k < 5; k++) {
    cr_expect_eq(solve(algos[k], NULL), 0, "%s", algos[k]);
    expect_x_matches_lapack(&p);
  }
  tl_problem_free(&p);
}

Test(cli, batched_complex_and_periodic_systems)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(60, 50, 3, 2, &p, &info), TL_OK); /* complex TDSE, batch */
  write_problem(&p);
  cr_expect_eq(solve("thomas", NULL), 0);
  expect_x_matches_lapack(&p);
  tl_problem_free(&p);

  cr_assert_eq(tl_gallery_make(53, 40, 2, 2, &p, &info), TL_OK); /* periodic, batch */
  write_problem(&p);
  cr_expect_eq(solve("thomas_periodic", "--periodic"), 0);
  expect_x_matches_lapack(&p);
  cr_expect_eq(solve("thomas_periodic", NULL), 1, "corners without --periodic are an error");
  char marker[512];
  snprintf(marker, sizeof marker, "%s/periodic", dir);
  FILE *f = fopen(marker, "w");
  cr_assert_not_null(f);
  fclose(f);
  cr_expect_eq(solve("thomas_periodic", NULL), 0, "the periodic marker file");
  tl_problem_free(&p);
}

Test(cli, exit_status_3_outside_domain_and_2_breakdown)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(30, 64, 1, 1, &p, &info), TL_OK); /* Pade closure: not dominant */
  write_problem(&p);
  cr_expect_eq(solve("thomas", NULL), 3);
  cr_expect_eq(solve("gtsv", NULL), 0);
  tl_problem_free(&p);

  cr_assert_eq(tl_gallery_make(37, 64, 1, 1, &p, &info), TL_OK); /* b[0] = 0 */
  write_problem(&p);
  char path[512];
  snprintf(path, sizeof path, "%s/x.npy", dir);
  unlink(path);
  cr_expect_eq(solve("thomas", NULL), 2);
  cr_expect_neq(access(path, F_OK), 0, "no solution may be written on a breakdown");
  cr_expect_eq(solve("gtsv", NULL), 0);
  tl_problem_free(&p);

  cr_assert_eq(tl_gallery_make(35, 3000, 1, 1, &p, &info), TL_OK);
  write_problem(&p);
  cr_expect_eq(solve("jacobi", "--param maxit=10"), 2, "non-convergence");
  tl_problem_free(&p);
}

/* Issue 9: a singular matrix that breaks PCR down on the reduced system
 * after its levels swapped crashed the command (exit 134). Exit 2, and
 * the message names the row. */
Test(cli, tridsolver_pcr_breakdown_exits_2)
{
  double a[6] = {0, .5, .5, 0, 0, 0}, b[6] = {1, 1, 1, 1, 1, 1}, c[6] = {1, 1, 0, 0, 0, 0};
  write_array("a", TL_F64, 1, 6, 0, a);
  write_array("b", TL_F64, 1, 6, 0, b);
  write_array("c", TL_F64, 1, 6, 0, c);
  write_array("d", TL_F64, 1, 6, 0, b);
  char args[1024], redirect[600], path[512];
  snprintf(args, sizeof args, "solve --algo tridsolver --parts 3 --param reduced=pcr --system %s "
           "--out %s/x.npy", dir, dir);
  snprintf(path, sizeof path, "%s/err.txt", dir);
  snprintf(redirect, sizeof redirect, ">/dev/null 2>%s", path);
  cr_expect_eq(cli_run(args, redirect), 2);
  char msg[512] = "";
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  cr_expect_not_null(fgets(msg, sizeof msg, f));
  fclose(f);
  cr_expect(strstr(msg, "breakdown") && strstr(msg, "row 4"), "%s", msg);
}

/* Issue 9: the command judged accurate answers near 1e308 (the residual
 * overflowed) and answers that underflow to 0 as failing LAPACK's
 * residual test (exit 3). */
Test(cli, answers_at_the_ends_of_the_range_pass)
{
  double a[3] = {0, 1, 1}, b[3] = {3, 3, 3}, c[3] = {1, 1, 0};
  double d[3] = {1.2e308, -6e307, 1.2e308}; /* x = (6e307, -6e307, 6e307) */
  write_array("a", TL_F64, 1, 3, 0, a);
  write_array("b", TL_F64, 1, 3, 0, b);
  write_array("c", TL_F64, 1, 3, 0, c);
  write_array("d", TL_F64, 1, 3, 0, d);
  cr_expect_eq(solve("thomas", NULL), 0, "x near 1e308");
  double z[1] = {0}, big[1] = {1e300}, tiny[1] = {1e-300};
  write_array("a", TL_F64, 1, 1, 0, z);
  write_array("b", TL_F64, 1, 1, 0, big);
  write_array("c", TL_F64, 1, 1, 0, z);
  write_array("d", TL_F64, 1, 1, 0, tiny);
  cr_expect_eq(solve("thomas", NULL), 0, "x = 1e-600 rounds to 0");
}

Test(cli, bad_input_exits_1)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, 10, 1, 1, &p, &info), TL_OK);
  write_problem(&p);
  cr_expect_eq(solve("no-such-algo", NULL), 1);
  cr_expect_eq(solve("thomas", "--parts 2"), 1, "thomas takes no partitions");
  cr_expect_eq(solve("jacobi", "--param nope=1"), 1);
  cr_expect_eq(solve("jacobi", "--param maxit=-3"), 1);
  cr_expect_eq(run("solve --algo thomas"), 1);
  cr_expect_eq(run("solve --algo thomas --system /nonexistent-dir --out /tmp/x.npy"), 1);
  cr_expect_eq(run("no-such-command"), 1);

  /* shape mismatch between a and d */
  write_array("a", TL_F64, 1, 9, 0, p.a);
  cr_expect_eq(solve("thomas", NULL), 1);
  write_problem(&p);
  /* truncated file */
  char path[512];
  snprintf(path, sizeof path, "%s/b.npy", dir);
  cr_assert_eq(truncate(path, 100), 0);
  cr_expect_eq(solve("thomas", NULL), 1);
  /* non-zero corner in a plain system */
  double *a = p.a;
  a[0] = 1.0;
  write_problem(&p);
  cr_expect_eq(solve("thomas", NULL), 1);
  tl_problem_free(&p);
}

Test(cli, list_and_verify)
{
  cr_expect_eq(run("list"), 0);
  cr_expect_eq(run("list --csv"), 0);
  cr_expect_eq(run("solve --help"), 0);
  cr_expect_eq(run("verify --quick --algo thomas"), 0);
  cr_expect_eq(run("verify --quick --algo thomas_cpu"), 0);
  cr_expect_eq(run("verify --quick --algo thomas_periodic_cpu"), 0);
  cr_expect_eq(run("verify --algo nope"), 1);
}

/* The partition algorithms through the command, as the docs show them. */
Test(cli, partitioned_algorithms_with_parameters)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(23, 4000, 1, 3, &p, &info), TL_OK); /* tridiag(1, 4, 1) */
  write_problem(&p);
  cr_expect_eq(solve("its", "--parts 4 --param J=30"), 0);
  /* A looser tolerance is honoured by the solver (status ok, dropped 4e-9),
   * but the command's own residual check still says x fails LAPACK's test. */
  cr_expect_eq(solve("its", "--parts 4 --param J=15 --param tol=1e-8"), 3);
  cr_expect_eq(solve("its", "--parts 4"), 0, "J from eps_c");
  cr_expect_eq(solve("nshaped", "--parts 8 --param levels=2"), 0);
  expect_x_matches_lapack(&p);
  cr_expect_eq(solve("pdd", "--parts 7"), 0);
  cr_expect_eq(solve("rpdd", "--part-sizes 1000,1500,1500"), 0, "unequal partitions");
  expect_x_matches_lapack(&p);
  cr_expect_eq(solve("tridsolver", "--parts 16 --param reduced=pcr"), 0);
  cr_expect_eq(solve("hybrid_pcr", "--parts 3"), 0);
  cr_expect_eq(solve("ptdma", "--parts 5"), 0);
  cr_expect_eq(solve("distd2", "--parts 4"), 0);
  expect_x_matches_lapack(&p);
  cr_expect_eq(solve("its", "--parts 4 --param J=2000"), 1, "J > m is a clear error");
  cr_expect_eq(solve("pdd", "--parts 5000"), 1, "more partitions than rows");
  cr_expect_eq(solve("rpdd", "--part-sizes 1000,1000"), 1, "sizes do not add up to n");
  tl_problem_free(&p);
  /* Too few rows per partition for the dominance: reported, exit 3. */
  cr_assert_eq(tl_gallery_make(21, 64, 1, 3, &p, &info), TL_OK); /* tridiag(1, 2.05, 1) */
  write_problem(&p);
  cr_expect_eq(solve("pdd", "--parts 16"), 3);
  tl_problem_free(&p);
}
