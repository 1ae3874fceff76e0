/* tridlab/mpi_model.h -- the alpha-beta-gamma cost model of the MPI
 * algorithms (bench/mpi/model_mpi.c, `tridlab-mpi model`,
 * docs/model.md).
 *
 * Time per solve = compute + communication, on the critical path:
 *
 *   compute  = max(gamma * m * nsys,           the algorithm's own rate
 *                  5 words * 8 * m * nsys / B)  the byte model (design.md §7)
 *   comm     = sum over the phases of the ledger model (tridlab/ledger.h):
 *                alpha * messages + 8 * words / beta          point to point
 *              + the collective by the textbook cost of an algorithm
 *                OpenMPI's tuned collectives choose among:
 *                allreduce  min(log P (alpha + 8k/beta),        recursive doubling
 *                               2 log P alpha + 2 (P-1)/P 8k/beta) Rabenseifner
 *                allgather, gather, scatter  log P alpha + 8 words/beta
 *                bcast      log P (alpha + 8k/beta)
 *                alltoall   (P-1) alpha + 8 words/beta
 *
 * with m the largest slice, log P = ceil(log2 P), and messages, words and
 * k the largest over the ranks of each phase. The counts come from the
 * algorithm's ledger model (its registry entry), never from a list here:
 * an algorithm joins the model by its entry in tl_mpi_registry().
 */
#ifndef TRIDLAB_MPI_MODEL_H
#define TRIDLAB_MPI_MODEL_H
#include <mpi.h>
#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/mpi.h"
#include "tridlab/mpi_bench.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one phase (and round) costs on the critical path: the largest
 * count any rank has, per kind of ledger entry. */
typedef struct tl_model_phase {
  char phase[TL_LEDGER_PHASE];
  int round;
  tl_ledger_kind kind; /* SEND: point to point (RECV entries fold in)   */
  long calls;          /* messages sent (SEND) or collective calls        */
  long words;          /* 8-byte words sent or received, the larger       */
} tl_model_phase;

#define TL_MODEL_PHASES 256

typedef struct tl_model_counts {
  int P;
  size_t count; /* phases used                                          */
  tl_model_phase phase[TL_MODEL_PHASES];
} tl_model_counts;

/* Reduce a ledger of P ranks (a model's, or a real solve's gathered on
 * one rank) to the counts of the critical path. Sorts the ledger.
 * TL_ERR_NOMEM or TL_ERR_UNSUPPORTED (more than TL_MODEL_PHASES phases,
 * a failed ledger). */
int tl_model_counts_of(tl_ledger *ledger, int P, tl_model_counts *out, tl_info *info);

/* The counts of the algorithm's ledger model (its registry entry) for a
 * batch of this shape over P ranks with these slices (NULL: the
 * algorithm's default). shape holds the matrix when the model reads it
 * (ITS). solved: the solve's report, where the counts depend on it (may
 * be NULL). TL_ERR_UNSUPPORTED for an algorithm with no ledger model. */
int tl_model_counts_algorithm(const tl_algorithm *algo, const tl_batch *shape, int P,
                              const size_t *slices, const tl_info *solved, tl_model_counts *out,
                              tl_info *info);

/* Multiply every phase's words by `factor` (a model evaluated on a
 * sample of the batch's systems: words grow with nsys, messages not). */
void tl_model_counts_scale(tl_model_counts *c, double factor);

/* Forget every round of one phase (the projections drop "verdict"). */
void tl_model_counts_drop(tl_model_counts *c, const char *phase);

/* The machine. Published machines give node figures shared by
 * ranks_per_node ranks; a measured one gives what one rank gets. */
typedef struct tl_model_machine {
  const char *name;
  const char *source; /* where the figures come from                    */
  double alpha;       /* s per message                                  */
  double beta;        /* bytes/s a node injects into the network        */
  double mem_bw;      /* bytes/s of memory per node                     */
  int ranks_per_node; /* ranks sharing beta and mem_bw                  */
} tl_model_machine;

/* The published machines (figures not measured here), and one by name. */
const tl_model_machine *tl_model_machines(size_t *count);
const tl_model_machine *tl_model_machine_find(const char *name);

/* Seconds of communication per solve for these counts. */
double tl_model_comm_time(const tl_model_counts *c, const tl_model_machine *mach);
/* Seconds per solve: comm + max(gamma m nsys, the byte model's time of m
 * rows of nsys systems at mem_bw / ranks_per_node). gamma: seconds per
 * unknown of the algorithm on one rank (0: the byte model alone). */
double tl_model_time(const tl_model_counts *c, const tl_model_machine *mach, size_t m, size_t nsys,
                     double gamma);

/* ---- model against measurement, in one run ------------------------ */

typedef struct tl_model_row {
  char name[32];
  int ranks;
  int status;   /* of the measured solve                          */
  double gamma; /* s per unknown. P = 1: one rank alone on 1/P of the
                   batch; P >= 2: a rank holding the busiest rank's
                   rows, its partners 64 rows each (fewer for short
                   slices; partitioned work, no waiting for an equal
                   partner)                                          */
  double t_comm_model, t_compute_model, t_model; /* predicted, seconds  */
  double t_bytes_model;                          /* the byte model alone (no gamma) + comm      */
  double t_measured;                             /* tl_mpi_bench_algorithm's median            */
  double t_comm_measured;
  double ratio; /* t_model / t_measured                       */
} tl_model_row;

/* Measure the machine and every algorithm in one run: a ping-pong on
 * comm (alpha, beta; with one rank none, and no message is modelled);
 * then per algorithm gamma, its time per unknown (tl_mpi_bench_algorithm:
 * the MPI rank program itself) -- for q = 1 on the first rank alone on
 * 1/P of the batch, the unknowns each of P ranks holds; for q >= 2 on q
 * ranks where one holds the rows the busiest rank holds at q and the
 * others 64 rows each, fewer for short slices (the first, the last and an
 * interior rank in turn,
 * the slowest rate kept: the partitioned phases one rank alone does not
 * run, without the waiting for an equal partner) -- and the bench of the
 * whole batch on the first q = 1..P ranks against the model with gamma,
 * the ping-pong's alpha and beta and the same-traffic stream timed beside
 * each solve. cfg->slices is not used: every bench runs the algorithm's
 * own slices (the calibrations their own uneven ones). rows: P entries per algorithm with a ledger
 * model, in registry order; *nrows set. Collective; significant on every rank. */
int tl_model_measure(MPI_Comm comm, const tl_mpi_bench_config *cfg, tl_model_row *rows, size_t cap,
                     size_t *nrows, double *alpha, double *beta, tl_info *info);

/* ---- projections to published machines and the papers' sizes ------ */

/* A published scaling figure: the efficiency of `algo` (the registry
 * name of a projected algorithm, tl_model_projected) at P ranks relative
 * to `base` ranks (strong: t(base) base / (t(P) P); weak: t(base) /
 * t(P)), and where the paper says it. */
typedef struct tl_model_point {
  const char *algo;
  int P, base;
  double efficiency;
  const char *where;
} tl_model_point;

/* A paper's problem: strong scaling, systems of n rows; or weak scaling,
 * n rows per rank (n P in all). nsys systems share the decomposition. */
typedef struct tl_model_paper {
  const char *id; /* "000", "001", "003"                           */
  const char *title;
  const char *problem; /* in words, with the assumptions                */
  const char *machine; /* the published machine it is projected to      */
  int weak;
  size_t n, nsys;
  int p_first, p_last; /* powers of two from p_first                    */
  const tl_model_point *points;
  size_t npoints;
} tl_model_paper;

const tl_model_paper *tl_model_papers(size_t *count);
/* 1 when the projections draw algo: it has a ledger model and its rank
 * program runs on the host (backend "mpi"). A rank program on a GPU
 * sends the messages of its host program, and on the published machines
 * compute is the byte model, so its curve would be the host program's. */
int tl_model_projected(const tl_algorithm *algo);
const tl_model_paper *tl_model_paper_find(const char *id);

/* Predicted seconds per solve of algo on the paper's problem at P ranks
 * of mach (the byte model for compute: gamma = 0), without tridlab's
 * verdict (the papers' solvers report no status or bound). The ledger model is
 * evaluated on one system of the problem (a seeded dominant matrix, for
 * the models that read it) and its words scaled to nsys. TL_ERR_ARG (in
 * info) when P ranks cannot hold the rows (fewer than the algorithm's
 * smallest slice each). */
int tl_model_project(const tl_algorithm *algo, const tl_model_paper *paper,
                     const tl_model_machine *mach, int P, double *seconds, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
