/* optimized/mpi/batch_mpi.c -- an MPI algorithm called like any other,
 * through tl_solve (tridlab/mpi.h, tl_mpi_solve_batch).
 *
 * Every rank holds the same whole batch (the verification runner makes
 * it from the same seed on every rank). tl_solve has already checked it,
 * with the same verdict on every rank. Then:
 *
 *   whole batch (every rank)      rank r's slice           whole x (every rank)
 *   +---------------------+       +-------+                +---------------------+
 *   | s0: rows 0 .. n-1   |  -->  | rows  |  tl_mpi_solve  | gathered on rank 0, |
 *   | s1: rows 0 .. n-1   |  copy | begin |  ----------->  | then broadcast      |
 *   +---------------------+       | ..+m  |                +---------------------+
 *                                 +-------+
 *
 * The copies and the gather are this entry point's own I/O, not the
 * algorithm's: the ledger records only what the rank program sends.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static MPI_Comm room_comm = MPI_COMM_WORLD;

void tl_mpi_set_comm(MPI_Comm comm)
{
  room_comm = comm;
}

MPI_Comm tl_mpi_comm(void)
{
  return room_comm;
}

/* 1 between MPI_Init and MPI_Finalize. */
static int mpi_running(void)
{
  int started = 0, finished = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finished);
  return started && !finished;
}

/* This rank's rows [begin, begin + m) of every system of the whole batch,
 * copied into one allocation (the slice layout of tridlab/mpi.h). */
static int take_slice(const tl_batch *sys, size_t begin, size_t m, tl_mpi_batch *local)
{
  size_t es = tl_dtype_size(sys->dtype), cnt = m * sys->nsys;
  *local = (tl_mpi_batch){.dtype = sys->dtype, .n = sys->n, .nsys = sys->nsys,
                          .periodic = sys->periodic, .begin = begin, .m = m};
  char *mem = tl_alloc(4 * (cnt ? cnt : 1), es);
  if (!mem)
    return TL_ERR_NOMEM;
  const char *whole[4] = {sys->a, sys->b, sys->c, sys->d};
  for (int k = 0; k < 4; k++)
    for (size_t s = 0; s < sys->nsys; s++)
      memcpy(mem + ((size_t)k * cnt + s * m) * es, whole[k] + (s * sys->n + begin) * es, m * es);
  local->a = mem;
  local->b = mem + cnt * es;
  local->c = mem + 2 * cnt * es;
  local->d = mem + 3 * cnt * es;
  return TL_OK;
}

/* The whole x on every rank: gathered on rank 0, then broadcast. */
static void share_x(MPI_Comm comm, const tl_mpi_batch *local, const void *x_local, void *x)
{
  tl_mpi_gather_x(comm, 0, local, x_local, x, NULL);
  MPI_Bcast(x, (int)(local->n * local->nsys * tl_dtype_size(local->dtype)), MPI_BYTE, 0, comm);
}

/* Every rank's ledger entries, added to `into` on every rank. */
static void share_ledger(MPI_Comm comm, const tl_ledger *mine, tl_ledger *into)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  tl_ledger all;
  tl_ledger_init(&all);
  tl_mpi_ledger_gather(comm, mine, 0, &all);
  unsigned long long count = all.count, failed = all.failed;
  MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  MPI_Bcast(&failed, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  tl_ledger_entry *entries = rank == 0 ? all.entries : malloc(count ? count * sizeof *entries : 1);
  int ok = entries != NULL, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (all_ok) {
    MPI_Bcast(entries, (int)(count * sizeof *entries), MPI_BYTE, 0, comm);
    tl_ledger part = {.entries = entries, .count = (size_t)count, .failed = (int)failed};
    tl_ledger_merge(into, &part);
  } else {
    into->failed = 1;
  }
  if (rank != 0)
    free(entries);
  tl_ledger_free(&all);
}

/* A batch whose whole x travels in one MPI message of int bytes. */
static int fits_one_message(const tl_batch *sys)
{
  size_t es = tl_dtype_size(sys->dtype);
  return sys->nsys <= (size_t)INT_MAX / es / sys->n;
}

int tl_mpi_solve_batch(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info)
{
  if (!mpi_running())
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "%s runs across MPI ranks: MPI is not "
                   "running (call it between MPI_Init and MPI_Finalize)", self->name);
  if (!fits_one_message(sys))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "n",
                   "%s: a batch of %zu x %zu entries is too large to gather in one message; "
                   "call tl_mpi_solve with each rank's slice", self->name, sys->nsys, sys->n);
  tl_options defaults;
  if (!opt) {
    tl_options_init(&defaults);
    opt = &defaults;
  }
  MPI_Comm comm = tl_mpi_comm();
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  /* The ranks are the partitions; every rank sees the same opt. */
  int found = TL_OK;
  if (opt->parts != 1 && opt->parts != P)
    found = TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                    "%s runs on the %d ranks of its communicator: parts = %d asks for another "
                    "count", self->name, P, opt->parts);
  size_t *slices = malloc((size_t)P * sizeof *slices);
  if (found == TL_OK && !slices)
    found = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for %d slices", self->name, P);
  tl_mpi_batch local = {0};
  if (found == TL_OK) {
    if (opt->parts == P && opt->part_sizes)
      memcpy(slices, opt->part_sizes, (size_t)P * sizeof *slices);
    else
      tl_mpi_default_slices(self, sys->n, P, slices);
    found = tl_mpi_check_slices(self, sys->n, P, slices, info);
  }
  if (found == TL_OK) {
    size_t begin, end;
    tl_partition_bounds(sys->n, P, slices, rank, &begin, &end);
    if (take_slice(sys, begin, end - begin, &local) != TL_OK)
      found = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for the slice", self->name);
  }
  size_t es = tl_dtype_size(sys->dtype);
  void *x_local = found == TL_OK ? tl_alloc(local.m * sys->nsys + 1, es) : NULL;
  if (found == TL_OK && !x_local)
    found = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for x", self->name);
  tl_options o = *opt;
  tl_ledger mine;
  tl_ledger_init(&mine);
  o.ledger = opt->ledger ? &mine : NULL;
  int status = tl_mpi_solve_agreed(self, comm, &local, x_local, &o, info, NULL, found);
  if (found == TL_OK && status >= 0 && tl_status_has_solution(status))
    share_x(comm, &local, x_local, x);
  if (found == TL_OK && status >= 0 && opt->ledger)
    share_ledger(comm, &mine, opt->ledger);
  tl_ledger_free(&mine);
  free(x_local);
  free((void *)local.a);
  free(slices);
  return status;
}
