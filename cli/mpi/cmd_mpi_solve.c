/* cli/mpi/cmd_mpi_solve.c -- `tridlab-mpi solve`: a system directory
 * solved across the ranks. Rank 0 reads the .npy files and sends every
 * rank its slice (tl_mpi_scatter_batch); the answer comes back to rank 0,
 * which writes it and reports like `tridlab solve`, plus the ledger. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mpi_cli.h"
#include "tridlab/mpi.h"
#include "tridlab/tridlab.h"

#define MAX_PARAMS 16
#define MAX_SLICES 4096

static void solve_usage(FILE *out)
{
  fprintf(out,
          "usage: mpirun -n P tridlab-mpi solve --algo NAME --system DIR --out X.npy [options]\n"
          "\n"
          "Solves the system (or batch) in DIR (a.npy b.npy c.npy d.npy, as 'tridlab solve'\n"
          "reads them) across the P ranks: rank 0 reads the files and sends each rank its\n"
          "slice of rows of every system; the answer is gathered on rank 0 and written with\n"
          "the shape of d. Prints the status, LAPACK's residual ratio and the ledger: what\n"
          "each rank sent and received.\n"
          "\n"
          "options:\n"
          "  --algo NAME           an MPI algorithm (see 'tridlab-mpi list')\n"
          "  --system DIR          directory with a.npy b.npy c.npy d.npy\n"
          "  --out FILE            where to write x (.npy)\n"
          "  --periodic            the system is cyclic (also: a file DIR/periodic exists)\n"
          "  --slices n1,..,nP     rows of each rank: P positive sizes adding up to n, each at\n"
          "                        least the algorithm's smallest slice (default: the\n"
          "                        algorithm's layout, as even as possible)\n"
          "  --param key=value     algorithm parameter (repeatable)\n"
          "  --gpu                 the algorithm's version whose ranks run their local phase\n"
          "                        on the GPU kernels (pdd_mpi: pdd_gpu_mpi; distd2_mpi:\n"
          "                        distd2_gpu_mpi)\n"
          "  --ledger              print every ledger entry, not only the totals\n"
          "  --quiet               print nothing on success\n"
          "\n"
          "exit status (the same on every rank): 0 solved; 1 bad input (one message, from\n"
          "rank 0); 2 breakdown or no convergence; 3 solved outside the algorithm's domain\n"
          "or residual ratio >= 30.\n");
}

typedef struct mpi_solve_args {
  const char *algo, *dir, *out;
  int periodic, quiet, full_ledger, gpu;
  size_t slices[MAX_SLICES], nslices;
  const char *params[MAX_PARAMS];
  int nparams;
} mpi_solve_args;

static int parse(int argc, char **argv, mpi_solve_args *a)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      if (mpi_rank() == 0)
        solve_usage(stdout);
      return EXIT_SOLVED + 1;
    } else if (!strcmp(arg, "--periodic")) {
      a->periodic = 1;
    } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
      a->quiet = 1;
    } else if (!strcmp(arg, "--gpu")) {
      a->gpu = 1;
    } else if (!strcmp(arg, "--ledger")) {
      a->full_ledger = 1;
    } else if (cli_is(arg, "--algo")) {
      if (!(a->algo = cli_value(argc, argv, &i, "--algo")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--system")) {
      if (!(a->dir = cli_value(argc, argv, &i, "--system")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--out")) {
      if (!(a->out = cli_value(argc, argv, &i, "--out")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--slices")) {
      if (!(v = cli_value(argc, argv, &i, "--slices")) ||
          cli_parse_sizes(v, "--slices", a->slices, MAX_SLICES, &a->nslices))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--param")) {
      if (!(v = cli_value(argc, argv, &i, "--param")))
        return EXIT_BAD_INPUT + 1;
      if (a->nparams == MAX_PARAMS) {
        cli_error("solve: at most %d --param options", MAX_PARAMS);
        return EXIT_BAD_INPUT + 1;
      }
      a->params[a->nparams++] = v;
    } else {
      cli_error("solve: unknown option '%s' (see 'tridlab-mpi solve --help')", arg);
      return EXIT_BAD_INPUT + 1;
    }
  }
  if (!a->algo || !a->dir || !a->out) {
    cli_error("solve: --algo, --system and --out are required (see 'tridlab-mpi solve --help')");
    return EXIT_BAD_INPUT + 1;
  }
  if (a->gpu && !(a->algo = mpi_gpu_name("solve", a->algo)))
    return EXIT_BAD_INPUT + 1;
  if (a->nslices && a->nslices != (size_t)mpi_size()) {
    cli_error("solve: --slices gives %zu sizes for %d ranks", a->nslices, mpi_size());
    return EXIT_BAD_INPUT + 1;
  }
  return 0;
}

static int exit_for(int status)
{
  if (status == TL_OK)
    return EXIT_SOLVED;
  if (status == TL_OUTSIDE_DOMAIN)
    return EXIT_OUTSIDE_DOMAIN;
  return (status == TL_ERR_BREAKDOWN || status == TL_ERR_NOT_CONVERGED) ? EXIT_BREAKDOWN
                                                                        : EXIT_BAD_INPUT;
}

/* Rank 0: the report of a solved batch; the exit status. */
static int report(const mpi_solve_args *a, const tl_algorithm *algo, const tl_system_dir *sd,
                  int status, const tl_info *info, const void *x, const tl_ledger *ledger,
                  double seconds)
{
  const tl_batch *sys = &sd->sys;
  double ratio = tl_residual_ratio(sys, x);
  tl_info winfo;
  if (tl_npy_write(a->out, sys->dtype, sd->ndim, sd->shape, x, &winfo) != TL_OK) {
    cli_error("%s", winfo.msg);
    return EXIT_BAD_INPUT;
  }
  int rc = exit_for(status);
  if (status == TL_OUTSIDE_DOMAIN)
    fprintf(stderr, "tridlab-mpi: warning: outside domain: %s\n", info->msg);
  if (!(ratio < TL_THRESH)) {
    fprintf(stderr,
            "tridlab-mpi: warning: residual ratio %.3g >= %g: x fails LAPACK's residual test\n",
            ratio, TL_THRESH);
    rc = EXIT_OUTSIDE_DOMAIN;
  }
  if (a->quiet)
    return rc;
  printf("algorithm: %s   ranks = %d   n = %zu   systems = %zu   %s%s\n", algo->name, mpi_size(),
         sys->n, sys->nsys, tl_dtype_name(sys->dtype), sys->periodic ? "   periodic" : "");
  printf("status: %s\n", tl_status_name(status));
  printf("residual ratio: %.3g   (THRESH %g)\n", ratio, TL_THRESH);
  if (!algo->exact || info->tol > 0 || info->dropped > 0)
    cli_print_dropped(algo, info);
  printf("time: %.3g s (solve, all ranks, slowest)\n", seconds);
  printf("ledger (words of 8 bytes):\n");
  if (a->full_ledger) {
    tl_ledger_print(stdout, ledger, "  ");
  } else {
    for (int r = 0; r < tl_ledger_ranks(ledger); r++)
      tl_ledger_print_rank(stdout, ledger, r, "  ");
  }
  printf("wrote %s\n", a->out);
  return rc;
}

int cmd_mpi_solve(int argc, char **argv)
{
  mpi_solve_args a;
  memset(&a, 0, sizeof a);
  int pa = parse(argc, argv, &a);
  if (pa)
    return pa - 1;
  const tl_algorithm *algo = tl_mpi_find(a.algo);
  if (!algo) {
    cli_error("solve: no MPI algorithm named '%s' (see 'tridlab-mpi list')", a.algo);
    return EXIT_BAD_INPUT;
  }
  tl_options opt;
  tl_options_init(&opt);
  for (int k = 0; k < a.nparams; k++) {
    tl_info pinfo;
    if (tl_options_set_param_kv(&opt, algo, a.params[k], &pinfo) != TL_OK) {
      cli_error("%s", pinfo.msg);
      return EXIT_BAD_INPUT;
    }
  }
  /* Rank 0 reads; everybody learns whether it could. */
  tl_system_dir sd;
  memset(&sd, 0, sizeof sd);
  tl_info info;
  tl_info_clear(&info);
  int st = TL_OK;
  if (mpi_rank() == 0 && (st = tl_system_dir_read(a.dir, a.periodic, &sd, &info)) != TL_OK)
    cli_error("%s", info.msg);
  if (mpi_agree(st) != TL_OK) {
    tl_system_dir_free(&sd);
    return EXIT_BAD_INPUT;
  }
  tl_mpi_batch local;
  int rc = EXIT_BAD_INPUT;
  void *x = NULL, *x_all = NULL;
  tl_ledger mine, all;
  tl_ledger_init(&mine);
  tl_ledger_init(&all);
  /* The slices: as asked, else the algorithm's own layout (even, or
   * ScaLAPACK's blocks); rank 0 knows n. */
  unsigned long long n_all = mpi_rank() == 0 ? sd.sys.n : 0;
  MPI_Bcast(&n_all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  int asked = a.nslices > 0;
  if (!asked && (size_t)mpi_size() <= MAX_SLICES) {
    tl_mpi_default_slices(algo, (size_t)n_all, mpi_size(), a.slices);
    a.nslices = (size_t)mpi_size();
  }
  /* Before any row moves: a slice past n would send rows past rank 0's
   * arrays. Every rank checks (the same arguments and n give the same
   * verdict); rank 0's is everybody's. */
  st = tl_mpi_check_slices(algo, (size_t)n_all, mpi_size(), a.nslices ? a.slices : NULL, &info);
  if (mpi_agree(st) != TL_OK) {
    cli_error("solve: %s%s", asked ? "--slices: " : "", info.msg);
    goto done;
  }
  if (tl_mpi_scatter_batch(MPI_COMM_WORLD, 0, &sd.sys, a.nslices ? a.slices : NULL, &local,
                           &info) != TL_OK) {
    cli_error("%s", info.msg);
    goto done;
  }
  size_t es = tl_dtype_size(local.dtype);
  x = calloc(local.m * local.nsys + 1, es);
  if (mpi_rank() == 0)
    x_all = calloc(local.n * local.nsys + 1, es);
  /* A rank without memory for its answer: every rank ends, with one message. */
  int mem = (!x || (mpi_rank() == 0 && !x_all)) ? TL_ERR_NOMEM : TL_OK, any_failed;
  MPI_Allreduce(&mem, &any_failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (any_failed != TL_OK) {
    cli_error("solve: no memory for the answer (%zu rows of %zu systems)", local.n, local.nsys);
    tl_mpi_batch_free(&local);
    goto done;
  }
  opt.ledger = &mine;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int status = tl_mpi_solve(algo, MPI_COMM_WORLD, &local, x, &opt, &info);
  double t = MPI_Wtime() - t0, slowest;
  MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (!tl_status_has_solution(status)) {
    cli_error("%s: %s: %s", algo->name, tl_status_name(status), info.msg);
    rc = exit_for(status);
  } else {
    tl_mpi_gather_x(MPI_COMM_WORLD, 0, &local, x, x_all, &info);
    tl_mpi_ledger_gather(MPI_COMM_WORLD, &mine, 0, &all);
    if (mpi_rank() == 0)
      rc = report(&a, algo, &sd, status, &info, x_all, &all, slowest);
    rc = mpi_agree(rc);
  }
  tl_mpi_batch_free(&local);
done:
  free(x);
  free(x_all);
  tl_ledger_free(&mine);
  tl_ledger_free(&all);
  tl_system_dir_free(&sd);
  return rc;
}
