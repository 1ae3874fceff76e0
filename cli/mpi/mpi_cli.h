/* cli/mpi/mpi_cli.h -- the subcommands of tridlab-mpi. */
#ifndef TRIDLAB_MPI_CLI_H
#define TRIDLAB_MPI_CLI_H

#include <mpi.h>

#include "tridlab/mpi_bench.h"

int cmd_mpi_solve(int argc, char **argv);
int cmd_mpi_verify(int argc, char **argv);
int cmd_mpi_bench(int argc, char **argv);
int cmd_mpi_model(int argc, char **argv);

/* The bench batch's options (--n, --unknowns, --reps, --seed, --quick),
 * shared by bench and model: 1 taken, 0 not one of them, -1 bad value. */
int mpi_batch_option(int argc, char **argv, int *i, tl_mpi_bench_config *cfg);

/* This process's rank in MPI_COMM_WORLD, and the number of ranks. */
int mpi_rank(void);
int mpi_size(void);

/* Rank 0's value of a flag or status, on every rank. */
int mpi_agree(int value);

/* --gpu: the name of the MPI algorithm whose rank program runs its local
 * phase on the GPU kernels (its registry backend names a GPU) and that
 * has `name`'s reference -- pdd_mpi's is pdd_gpu_mpi, distd2_mpi's
 * distd2_gpu_mpi. NULL when there is none, after saying so (`cmd`: the
 * command, for the message), with the algorithms that have one. */
const char *mpi_gpu_name(const char *cmd, const char *name);

#endif
