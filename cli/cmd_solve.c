/* cli/cmd_solve.c -- `tridlab solve`: one system or a batch from .npy files. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tridlab/backend.h"
#include "tridlab/tridlab.h"

#define MAX_PARAMS 16

static void solve_usage(FILE *out)
{
  fprintf(out, "usage: tridlab solve --algo NAME --system DIR --out X.npy [options]\n"
               "\n"
               "Solves A x = d where DIR holds a.npy b.npy c.npy d.npy (row i:\n"
               "a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i]), each of shape (n) or, for a batch\n"
               "of nsys systems, (nsys, n); float64 or complex128 (C order). a[0] and c[n-1] are\n"
               "the periodic corners and must be 0 unless the system is periodic. Writes x with\n"
               "the shape of d and prints LAPACK's residual ratio\n"
               "||d - A x||_1 / (||A||_1 ||x||_1 eps), eps = 2^-53 (a ratio >= 30 fails).\n"
               "\n"
               "options:\n"
               "  --algo NAME           registry algorithm (see 'tridlab list')\n"
               "  --system DIR          directory with a.npy b.npy c.npy d.npy\n"
               "  --out FILE            where to write x (.npy)\n"
               "  --periodic            the system is cyclic (also: a file DIR/periodic exists)\n"
               "  --parts P             number of partitions (partitioned algorithms)\n"
               "  --part-sizes n1,n2,.. unequal partition sizes (sum n; sets P)\n"
               "  --param key=value     algorithm parameter (repeatable)\n"
               "  --quiet               print nothing on success\n"
               "  --timing              print where the time went: reading the files, mapping\n"
               "                        x's memory, tl_solve (its input checks and the solve),\n"
               "                        the residual ratio, writing x; and, measured apart,\n"
               "                        what tl_solve's separate entry check costs here\n"
               "\n"
               "exit status:\n"
               "  0  solved, inside the algorithm's guaranteed domain\n"
               "  1  bad input or usage (message names the file or option); nothing written\n"
               "  2  breakdown or no convergence; no solution written\n"
               "  3  solved but outside the algorithm's guaranteed domain, or the residual\n"
               "     ratio is >= 30; x is written and a one-line warning says why\n");
}

typedef struct solve_args {
  const char *algo, *dir, *out;
  int periodic, quiet, timing;
  long parts;
  size_t part_sizes[TL_MAX_PARTS > 4096 ? 4096 : TL_MAX_PARTS];
  size_t nsizes;
  const char *params[MAX_PARAMS];
  int nparams;
} solve_args;

/* Returns 0 to go on, or an exit status (+1 so help's 0 is distinct). */
static int parse_args(int argc, char **argv, solve_args *sa)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      solve_usage(stdout);
      return EXIT_SOLVED + 1;
    } else if (!strcmp(arg, "--periodic")) {
      sa->periodic = 1;
    } else if (!strcmp(arg, "--timing")) {
      sa->timing = 1;
    } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
      sa->quiet = 1;
    } else if (cli_is(arg, "--algo")) {
      if (!(sa->algo = cli_value(argc, argv, &i, "--algo")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--system")) {
      if (!(sa->dir = cli_value(argc, argv, &i, "--system")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--out")) {
      if (!(sa->out = cli_value(argc, argv, &i, "--out")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--parts")) {
      if (!(v = cli_value(argc, argv, &i, "--parts")) ||
          cli_parse_int(v, "--parts", 1, TL_MAX_PARTS, &sa->parts))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--part-sizes")) {
      size_t cap = sizeof sa->part_sizes / sizeof sa->part_sizes[0];
      if (!(v = cli_value(argc, argv, &i, "--part-sizes")) ||
          cli_parse_sizes(v, "--part-sizes", sa->part_sizes, cap, &sa->nsizes))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--param")) {
      if (!(v = cli_value(argc, argv, &i, "--param")))
        return EXIT_BAD_INPUT + 1;
      if (sa->nparams == MAX_PARAMS) {
        cli_error("solve: at most %d --param options", MAX_PARAMS);
        return EXIT_BAD_INPUT + 1;
      }
      sa->params[sa->nparams++] = v;
    } else {
      cli_error("solve: unknown option '%s' (see 'tridlab solve --help')", arg);
      return EXIT_BAD_INPUT + 1;
    }
  }
  if (!sa->algo || !sa->dir || !sa->out) {
    cli_error("solve: --algo, --system and --out are required (see 'tridlab solve --help')");
    return EXIT_BAD_INPUT + 1;
  }
  if (sa->nsizes && sa->parts && (size_t)sa->parts != sa->nsizes) {
    cli_error("solve: --parts %ld disagrees with the %zu sizes of --part-sizes", sa->parts,
              sa->nsizes);
    return EXIT_BAD_INPUT + 1;
  }
  return 0;
}

static int set_options(const solve_args *sa, const tl_algorithm *algo, tl_options *opt)
{
  tl_options_init(opt);
  if (sa->nsizes) {
    opt->parts = (int)sa->nsizes;
    opt->part_sizes = sa->part_sizes;
  } else if (sa->parts) {
    opt->parts = (int)sa->parts;
  }
  for (int k = 0; k < sa->nparams; k++) {
    tl_info info;
    tl_info_clear(&info);
    if (tl_options_set_param_kv(opt, algo, sa->params[k], &info) != TL_OK) {
      cli_error("%s", info.msg);
      return -1;
    }
  }
  return 0;
}

/* Seconds spent in each phase of a solve (--timing). */
typedef struct solve_times {
  double read, alloc, solve, residual, write, checks;
} solve_times;

/* The time split, and the cost of tl_solve's entry check (finite
 * entries, zero corners) measured apart: an algorithm that declares
 * checks_entries makes it inside its own pass, the others pay it in
 * full before they solve. */
static void print_timing(const tl_algorithm *algo, const tl_batch *sys, solve_times *t)
{
  tl_info cinfo;
  double t0 = cli_now();
  (void)tl_check_entries(sys, 0, sys->n, &cinfo);
  t->checks = cli_now() - t0;
  printf("time (s): read %.4f   allocate x %.4f   tl_solve %.4f   residual ratio %.4f   "
         "write %.4f\n",
         t->read, t->alloc, t->solve, t->residual, t->write);
  printf("entry check alone: %.4f s, %s\n", t->checks,
         algo->checks_entries ? "made inside the solve's own pass by this algorithm"
                              : "part of tl_solve's time above");
}

static int exit_for_error(int status)
{
  return (status == TL_ERR_BREAKDOWN || status == TL_ERR_NOT_CONVERGED) ? EXIT_BREAKDOWN
                                                                        : EXIT_BAD_INPUT;
}

int cmd_solve(int argc, char **argv)
{
  solve_args sa;
  memset(&sa, 0, sizeof sa);
  int pa = parse_args(argc, argv, &sa);
  if (pa)
    return pa - 1;
  const tl_algorithm *algo = tl_find(sa.algo);
  if (!algo) {
    cli_error("solve: no algorithm named '%s' (see 'tridlab list')", sa.algo);
    return EXIT_BAD_INPUT;
  }
  tl_system_dir sd;
  memset(&sd, 0, sizeof sd);
  int rc = EXIT_BAD_INPUT;
  void *x = NULL;
  tl_options opt;
  tl_info rinfo;
  solve_times times = {0, 0, 0, 0, 0, 0};
  double t0 = cli_now();
  if (tl_system_dir_read(sa.dir, sa.periodic, &sd, &rinfo) != TL_OK) {
    cli_error("%s", rinfo.msg);
    goto done;
  }
  if (set_options(&sa, algo, &opt))
    goto done;
  const tl_batch sys = sd.sys;
  times.read = cli_now() - t0;

  t0 = cli_now();
  x = calloc(sys.n * sys.nsys, tl_dtype_size(sys.dtype));
  if (!x) {
    cli_error("out of memory");
    goto done;
  }
  /* Touch x now: its pages are then mapped before tl_solve is timed. */
  memset(x, 0, sys.n * sys.nsys * tl_dtype_size(sys.dtype));
  times.alloc = cli_now() - t0;
  tl_info info;
  t0 = cli_now();
  int status = tl_solve(algo, &sys, x, &opt, &info);
  times.solve = cli_now() - t0;
  if (!tl_status_has_solution(status)) {
    cli_error("%s: %s: %s", algo->name, tl_status_name(status), info.msg);
    rc = exit_for_error(status);
    goto done;
  }
  t0 = cli_now();
  double ratio = tl_residual_ratio(&sys, x);
  times.residual = cli_now() - t0;
  tl_info winfo;
  tl_info_clear(&winfo);
  t0 = cli_now();
  if (tl_npy_write(sa.out, sys.dtype, sd.ndim, sd.shape, x, &winfo) != TL_OK) {
    cli_error("%s", winfo.msg);
    goto done;
  }
  times.write = cli_now() - t0;
  rc = EXIT_SOLVED;
  if (status == TL_OUTSIDE_DOMAIN) {
    fprintf(stderr, "tridlab: warning: outside domain: %s\n", info.msg);
    rc = EXIT_OUTSIDE_DOMAIN;
  }
  if (!(ratio < TL_THRESH)) {
    fprintf(stderr, "tridlab: warning: residual ratio %.3g >= %g: x fails LAPACK's residual test\n",
            ratio, TL_THRESH);
    rc = EXIT_OUTSIDE_DOMAIN;
  }
  if (!sa.quiet) {
    printf("algorithm: %s   n = %zu   systems = %zu   %s%s\n", algo->name, sys.n, sys.nsys,
           tl_dtype_name(sys.dtype), sys.periodic ? "   periodic" : "");
    printf("status: %s\n", tl_status_name(status));
    if (status == TL_OK && info.msg[0]) /* e.g. a tolerance the caller loosened */
      printf("note: %s\n", info.msg);
    printf("residual ratio: %.3g   (THRESH %g)\n", ratio, TL_THRESH);
    if (!algo->exact || info.tol > 0 || info.dropped > 0)
      cli_print_dropped(algo, &info);
    printf("wrote %s\n", sa.out);
  }
  if (sa.timing)
    print_timing(algo, &sys, &times);
done:
  free(x);
  tl_system_dir_free(&sd);
  return rc;
}
