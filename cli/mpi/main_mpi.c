/* cli/mpi/main_mpi.c -- `tridlab-mpi`: the partition algorithms across
 * real MPI ranks, run under mpirun (docs/mpi.md).
 *
 *   mpirun -n P build/tridlab-mpi list | solve | verify | bench | model
 *
 * Every rank parses the same arguments; rank 0 reads and writes files and
 * speaks for all (one message, not P); every rank exits with the same
 * status.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "mpi_cli.h"
#include "tridlab/mpi.h"
#include "tridlab/tridlab.h"

/* The helpers every command of this driver uses (cli/mpi/mpi_cli.h). */
int mpi_rank(void)
{
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int mpi_size(void)
{
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

int mpi_agree(int value)
{
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

/* An MPI algorithm whose rank program runs on the GPU kernels. */
static int on_gpu(const tl_algorithm *a)
{
  return a->backend && strstr(a->backend, "gpu") != NULL;
}

const char *mpi_gpu_name(const char *cmd, const char *name)
{
  const tl_algorithm *base = name ? tl_mpi_find(name) : NULL;
  size_t count, used = 0;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  if (base && on_gpu(base))
    return base->name;
  for (size_t k = 0; base && k < count; k++)
    if (on_gpu(reg[k]) && reg[k]->reference == base->reference)
      return reg[k]->name;
  char list[256] = "";
  for (size_t k = 0; k < count && used < sizeof list; k++)
    if (on_gpu(reg[k]))
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                               reg[k]->name);
  cli_error("%s: --gpu: '%s' has no version on the GPU kernels (those with one: %s)", cmd,
            name ? name : "", list);
  return NULL;
}

static void usage(FILE *out)
{
  fprintf(out,
          "usage: mpirun -n P tridlab-mpi COMMAND [options]\n"
          "\n"
          "tridlab %s -- the partition algorithms across P MPI ranks; rank r owns a\n"
          "contiguous slice of the rows of every system of the batch.\n"
          "\n"
          "commands:\n"
          "  list     the registry with the MPI algorithms, and what crosses the ranks\n"
          "  solve    solve a system directory (.npy) across the ranks\n"
          "  verify   every MPI algorithm on the gallery against LAPACK, with its ledger\n"
          "  bench    time per solve, compute and communication, against the packed kernel\n"
          "  model    the alpha-beta-gamma cost model: against a measurement, or projected\n"
          "\n"
          "Run 'tridlab-mpi COMMAND --help' for the options of a command.\n",
          TRIDLAB_VERSION);
}

/* The registry, as `tridlab list` shows it, with the MPI room joined
 * (backend "mpi"); then what each MPI algorithm sends across the ranks. */
static int cmd_list_mpi(int argc, char **argv)
{
  if (mpi_rank() != 0)
    return 0;
  int rc = cmd_list(argc, argv);
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--csv"))
      return rc;
  if (rc)
    return rc;
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  printf("\n%-19s %-8s %s\n", "MPI algorithm", "ledger", "what crosses the ranks");
  for (size_t k = 0; k < count; k++)
    printf("%-19s %-8s %s\n", reg[k]->name, reg[k]->ledger_model ? "model" : "-",
           reg[k]->mpi->crosses);
  return 0;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  tl_mpi_share_cores(MPI_COMM_WORLD);
  tl_mpi_registry(NULL); /* the MPI room joins the registry */
  cli_program = "tridlab-mpi";
  cli_silent = mpi_rank() != 0;
  int rc;
  const char *cmd = argc > 1 ? argv[1] : NULL;
  if (!cmd) {
    if (!cli_silent)
      usage(stderr);
    rc = EXIT_BAD_INPUT;
  } else if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (!cli_silent)
      usage(stdout);
    rc = 0;
  } else if (!strcmp(cmd, "list")) {
    rc = cmd_list_mpi(argc - 1, argv + 1);
  } else if (!strcmp(cmd, "solve")) {
    rc = cmd_mpi_solve(argc - 1, argv + 1);
  } else if (!strcmp(cmd, "verify")) {
    rc = cmd_mpi_verify(argc - 1, argv + 1);
  } else if (!strcmp(cmd, "bench")) {
    rc = cmd_mpi_bench(argc - 1, argv + 1);
  } else if (!strcmp(cmd, "model")) {
    rc = cmd_mpi_model(argc - 1, argv + 1);
  } else {
    cli_error("unknown command '%s' (try 'tridlab-mpi --help')", cmd);
    rc = EXIT_BAD_INPUT;
  }
  /* One exit status for all: the largest any rank chose. */
  int all;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  tl_mpi_scratch_release(); /* the solvers' scratch, kept between solves */
  MPI_Finalize();
  return all;
}
