/* tridlab/mpi_bench.h -- timing the MPI algorithms (bench/mpi/,
 * `tridlab-mpi bench`, docs/performance.md "MPI").
 *
 * Each rank makes its own slice of one seeded, diagonally dominant batch
 * (no scatter: the entries are a function of the seed, the system and the
 * global row), every algorithm solves it `reps` times after one discarded
 * warm-up, and every timed solve is paired with a run of the same-traffic
 * streaming kernel on every rank's slice at once (the limit of this
 * machine for the bytes the solve must move, measured in the same run).
 * Times are those of the slowest rank (a solve is over when every rank is
 * done); medians over the runs, with the smallest and largest.
 *
 * BYTE MODEL. A solve must read a, b, c, d and write x: 5 words per
 * unknown, whatever the algorithm (the model of Thomas, docs/design.md
 * §7). What an algorithm moves beyond that (spikes, reduced systems,
 * messages) is its cost, not part of the model: limit_ratio says how
 * close it comes to the minimum any solver needs.
 */
#ifndef TRIDLAB_MPI_BENCH_H
#define TRIDLAB_MPI_BENCH_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "tridlab/ledger.h"
#include "tridlab/mpi.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_MPI_BENCH_WORDS 5 /* words per unknown every solve moves */

typedef struct tl_mpi_bench_config {
  size_t n;        /* rows per system                                    */
  size_t unknowns; /* in the whole batch; nsys = unknowns / n            */
  int reps;        /* timed runs, after one warm-up                      */
  uint64_t seed;
  size_t check_systems; /* systems whose answer is checked (gathered)   */
  const size_t *slices; /* every rank's rows, adding up to n (NULL: the
                           algorithm's own, tl_mpi_default_slices)      */
} tl_mpi_bench_config;

/* Defaults: n = 4096, 2^24 unknowns, 5 runs, seed 1, 16 systems checked,
 * the algorithm's own slices. */
void tl_mpi_bench_config_init(tl_mpi_bench_config *cfg);

typedef struct tl_mpi_bench_result {
  char name[32];     /* the algorithm, or "omp_packed" for the kernel  */
  int ranks;         /* P (for omp_packed: its threads)                 */
  size_t n, nsys;
  int status;        /* of the last timed solve (the same on all ranks) */
  char msg[256];     /* its message when not ok (tl_info.msg)          */
  double t_med, t_min, t_max;  /* seconds per solve, slowest rank       */
  double t_comm;     /* median of the slowest rank's time inside the
                        exchange layer (waiting included)               */
  double t_compute;  /* t_med - t_comm                                  */
  double t_limit;    /* median time of the same-traffic stream          */
  double limit_ratio;/* median over the runs of t_limit / t_solve       */
  double words;      /* the byte model: words per unknown (5; compact 2) */
  double gbs;        /* words per unknown / t_med, GB/s (10^9 bytes)    */
  double limit_gbs;  /* the same bytes / t_limit                        */
  tl_ledger_totals ledger; /* the busiest rank's totals for one solve   */
  double residual;   /* LAPACK's residual ratio of the checked systems  */
} tl_mpi_bench_result;

/* This rank's slice of the seeded bench batch (double, plain): b in
 * [2, 2.5), a and c in [-0.5, 0.5) (strictly dominant), d in [-1, 1),
 * zero corners. slices: every rank's rows (NULL: even). Free with
 * tl_mpi_batch_free. Collective (agrees on memory). */
int tl_mpi_bench_batch(MPI_Comm comm, size_t n, size_t nsys, const size_t *slices, uint64_t seed,
                       tl_mpi_batch *local, tl_info *info);

/* Time one MPI algorithm (its default parameters; its own slices, or
 * cfg->slices, checked by tl_mpi_check_slices: TL_ERR_ARG when they do
 * not add up to n or one is below the algorithm's smallest partition) on the bench batch.
 * Collective; the result is significant on every rank. A solve that fails is reported in
 * res->status, not retried. */
int tl_mpi_bench_algorithm(MPI_Comm comm, const tl_algorithm *algo,
                           const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res,
                           tl_info *info);

/* The same batch solved on rank 0 alone by the OpenMP SZ-packed Thomas
 * kernel with `threads` threads (the cores the P ranks use), paired with
 * the stream of the same arrays on the same threads; the other ranks
 * wait without spinning. Packing is outside the timed region; d is
 * restored before each run. Collective. */
int tl_mpi_bench_packed(MPI_Comm comm, int threads, const tl_mpi_bench_config *cfg,
                        tl_mpi_bench_result *res, tl_info *info);

/* The serial baseline of the same batch: LAPACK's dgtsv (partial
 * pivoting) system after system on rank 0, one thread, its inputs
 * restored untimed before each run, paired with the same 5-word stream.
 * What the pivoting algorithms (spike_mpi and its variants) are compared
 * with besides pdd: the price of stability. Name "gtsv_loop".
 * Collective. */
int tl_mpi_bench_gtsv_loop(MPI_Comm comm, const tl_mpi_bench_config *cfg,
                           tl_mpi_bench_result *res, tl_info *info);

/* The compact scheme of paper 000 across ranks against the fused kernel
 * on one rank (issue target: within 1.3x): the periodic sixth-order
 * compact first derivative (matrix [1/3, 1, 1/3], 5-point stencil) of
 * the bench batch's shape, every rank its even slice, solved by
 * tl_mpi_distd2_compact_sz (round_groups as there: 0, one exchange for
 * the batch; else rounds of that many groups), paired with a stream of
 * the same 2 words per unknown (read u, write du). Name
 * "distd2_compact" or "distd2_compact_rR". Collective. */
#define TL_MPI_BENCH_COMPACT_WORDS 2
int tl_mpi_bench_compact(MPI_Comm comm, size_t round_groups, const tl_mpi_bench_config *cfg,
                         tl_mpi_bench_result *res, tl_info *info);
/* The same on the GPU kernels, each rank's slices kept where they run
 * (tl_mpi_distd2_compact_gpu: one exchange for the batch, groups of
 * TL_GPU_SZ): on the device a device build installed, else emulated (a
 * check of the path, not a figure). Name "distd2_compact_gpu". */
int tl_mpi_bench_compact_gpu(MPI_Comm comm, const tl_mpi_bench_config *cfg,
                             tl_mpi_bench_result *res, tl_info *info);
/* The same derivative on rank 0 alone by the fused packed kernel
 * (tl_cpu_compact_sz_d) with `threads` threads: "omp_compact". */
int tl_mpi_bench_compact_packed(MPI_Comm comm, int threads, const tl_mpi_bench_config *cfg,
                                tl_mpi_bench_result *res, tl_info *info);

/* Ping-pong between ranks 0 and 1 (needs 2 ranks; the others wait):
 * half the median round trip of `reps` trips for each message size. Then
 * the two numbers of an alpha-beta cost model t(m) = alpha + m / beta:
 * alpha (seconds) the time of the smallest message, beta (bytes per
 * second) the best of the messages of 1 MiB or more once alpha is paid
 * (NaN without one). Collective; results significant on every rank. */
int tl_mpi_pingpong(MPI_Comm comm, const size_t *bytes, size_t nsizes, int reps, double *half_rtt,
                    double *alpha, double *beta, tl_info *info);

/* A barrier in which waiting ranks sleep instead of spinning, so that a
 * rank computing alone keeps every core. Not part of any algorithm. */
void tl_mpi_quiet_barrier(MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
