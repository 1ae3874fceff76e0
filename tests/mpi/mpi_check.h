/* tests/mpi/mpi_check.h -- the harness of the MPI test programs.
 *
 * Criterion's worker processes break MPI_Init, so MPI tests are plain C
 * programs: one MPI_Init, a loop over cases, each case's verdict agreed
 * by an allreduce, and rank 0 printing the closing line
 * "N passed, N failed". A failed check prints one line naming the rank
 * and the case; the program exits 1 on any failure, so a failing rank
 * fails the run (and `timeout` guards against a hang).
 */
#ifndef TL_MPI_CHECK_H
#define TL_MPI_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

#include "tridlab/mpi.h"

typedef struct mpi_check {
  MPI_Comm comm;
  int rank, size;
  long passed, failed;
  int bad;        /* this rank saw a failed check in the current case */
  char name[160]; /* the current case                                 */
} mpi_check;

static inline void mc_init(mpi_check *mc, MPI_Comm comm)
{
  tl_mpi_share_cores(comm); /* not a thread per core in every rank */
  mc->comm = comm;
  MPI_Comm_rank(comm, &mc->rank);
  MPI_Comm_size(comm, &mc->size);
  mc->passed = mc->failed = 0;
  mc->bad = 0;
  mc->name[0] = '\0';
}

static inline void mc_case(mpi_check *mc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(mc->name, sizeof mc->name, fmt, ap);
  va_end(ap);
  mc->bad = 0;
}

/* A check; on failure one line on stderr from this rank. */
#define MC_EXPECT(mc, cond, ...)                                                                \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      (mc)->bad = 1;                                                                            \
      fprintf(stderr, "FAIL [rank %d/%d] %s: ", (mc)->rank, (mc)->size, (mc)->name);            \
      fprintf(stderr, __VA_ARGS__);                                                             \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                                        \
    }                                                                                           \
  } while (0)

/* End of a case: failed on every rank if it failed on one. */
static inline void mc_end(mpi_check *mc)
{
  int bad = mc->bad, any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, mc->comm);
  if (any)
    mc->failed++;
  else
    mc->passed++;
}

/* The closing line; the exit status of the program. */
static inline int mc_finish(mpi_check *mc, const char *program)
{
  if (mc->rank == 0) {
    printf("%s on %d ranks: %ld passed, %ld failed\n", program, mc->size, mc->passed, mc->failed);
    fflush(stdout);
  }
  return mc->failed ? 1 : 0;
}

#endif
