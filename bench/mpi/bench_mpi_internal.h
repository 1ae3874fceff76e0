/* bench/mpi/bench_mpi_internal.h -- what the MPI benchmark (bench_mpi.c)
 * and the cost model (model_mpi.c) share (private: not installed, not
 * included by users).
 */
#ifndef TRIDLAB_BENCH_MPI_INTERNAL_H
#define TRIDLAB_BENCH_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "optimized/mpi/mpi_internal.h"

/* Rows [begin, begin + m) of systems 0..nsys-1 of the seeded bench batch
 * (tl_mpi_bench_batch's entries) into arr = {a, b, c, d}, system s at
 * [s m, (s+1) m): the model (model_mpi.c) rebuilds the matrix from it. */
void tl_mpi_bench_fill(uint64_t seed, size_t n, size_t nsys, size_t begin, size_t m,
                       double *const arr[4]);

/* 1 when ok is 1 on every rank of comm (collective): a rank short of
 * memory must not return alone while the others wait in a collective. */
int tl_mpi_bench_all(MPI_Comm comm, int ok);

/* A status made every rank's (collective): the most negative over comm.
 * A rank that was ok gets it with a message that `what` failed on
 * another rank; a failed rank keeps its own status and message. */
int tl_mpi_bench_agree(MPI_Comm comm, int st, const char *what, tl_info *info);

#endif
