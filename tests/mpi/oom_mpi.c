/* tests/mpi/oom_mpi.c -- memory that runs out on one rank must not hang
 * the others (docs/mpi.md, "When memory runs out").
 *
 * Rank 0 arms tl_alloc_fail_at(k): its k-th scratch allocation inside the
 * solve fails, while the other ranks go on into the algorithm's messages.
 * On one rank the solve returns TL_ERR_NOMEM with a report; on several,
 * the failing rank says why and ends the job (MPI_Abort), so `make
 * check-mpi` runs this program expecting that message and a non-zero exit
 * within its timeout -- a hang would be killed by the timeout and fail.
 *
 *   mpirun -n P oom_mpi [ALGO [k=v,...] [K]]
 *
 * Default: tridsolver, reduced=gather_scatter, K = 2. make check-mpi also
 * runs K = 6: the root's buffer of the gathered reduced systems. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tridlab/backend.h"
#include "tridlab/mpi.h"
#include "tridlab/tridlab.h"

/* One strictly dominant system of 16 rows per rank, on rank 0. */
static double *make_system(size_t n, tl_batch *sys)
{
  double *m = calloc(4 * n, sizeof *m);
  for (size_t i = 0; i < n; i++) {
    m[i] = i ? -1 : 0;
    m[n + i] = 4;
    m[2 * n + i] = i + 1 < n ? -1 : 0;
    m[3 * n + i] = (double)(i % 7);
  }
  *sys = (tl_batch){
      .dtype = TL_F64, .n = n, .nsys = 1, .a = m, .b = m + n, .c = m + 2 * n, .d = m + 3 * n};
  return m;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const char *name = argc > 1 ? argv[1] : "tridsolver";
  const char *param = argc > 2 ? argv[2] : "reduced=gather_scatter";
  long k = argc > 3 ? atol(argv[3]) : 2;
  const tl_algorithm *algo = tl_mpi_find(name);
  if (!algo) {
    if (rank == 0)
      fprintf(stderr, "oom_mpi: no MPI algorithm '%s'\n", name);
    MPI_Finalize();
    return 2;
  }
  size_t n = 16 * (size_t)P;
  tl_batch sys = {0};
  double *mem = rank == 0 ? make_system(n, &sys) : NULL;
  tl_mpi_batch local;
  tl_info info;
  if (tl_mpi_scatter_batch(MPI_COMM_WORLD, 0, &sys, NULL, &local, &info) != TL_OK) {
    fprintf(stderr, "oom_mpi: rank %d: %s\n", rank, info.msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  tl_options opt;
  tl_options_init(&opt);
  if (*param && tl_options_set_param_kv(&opt, algo, param, &info) != TL_OK) {
    if (rank == 0)
      fprintf(stderr, "oom_mpi: %s\n", info.msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double *x = calloc(local.m ? local.m : 1, sizeof *x);
  if (rank == 0)
    tl_alloc_fail_at(k);
  int st = tl_mpi_solve(algo, MPI_COMM_WORLD, &local, x, &opt, &info);
  tl_alloc_fail_at(0);
  int ok = P == 1 && st == TL_ERR_NOMEM;
  if (rank == 0) {
    if (!ok)
      fprintf(stderr,
              "oom_mpi: %s on %d ranks with allocation %ld failing on rank 0 returned %d (%s): "
              "expected %s\n",
              name, P, k, st, info.msg,
              P == 1 ? "TL_ERR_NOMEM" : "the job to end with the failing rank's message");
    printf("%d passed, %d failed\n", ok, !ok);
  }
  free(x);
  free(mem);
  tl_mpi_batch_free(&local);
  MPI_Finalize();
  return ok ? 0 : 1;
}
