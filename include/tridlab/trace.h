/* tridlab/trace.h -- an algorithm watched stage by stage (`tridlab trace`,
 * docs/trace.md).
 *
 * The answer of a trace is the one-call solve's: x, status, message, the
 * verdict's numbers and the ledger all come from tl_solve. A tracer then
 * runs the same small real system through the algorithm's public phase
 * functions (the same ones the one-call solve and the MPI version call)
 * and, after every stage, hands a picture of it to a hook: the system as
 * it stands (dense, n x n: what elimination has made of A), the
 * right-hand side, the vectors of every partition, the reduced system,
 * the entries an approximate algorithm dropped against its tolerance, and
 * the ledger phases whose messages this stage sent. The hook prints or
 * draws; the library prints nothing.
 */
#ifndef TRIDLAB_TRACE_H
#define TRIDLAB_TRACE_H

#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/registry.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_TRACE_VECS 6
#define TL_TRACE_DROPS 64

/* A named vector of one partition (or of the whole system: part -1),
 * its entries on global rows [row0, row0 + len). */
typedef struct tl_trace_vec {
  const char *name;
  int part;
  size_t row0, len;
  const double *v;
} tl_trace_vec;

typedef struct tl_trace_stage {
  int index;      /* 0, 1, 2, ...                                  */
  char title[96]; /* "forward sweep: rows 0..3 eliminated"         */
  char note[256]; /* one line: what the stage did, and why          */
  size_t n;
  const double *dense; /* n*n, row-major: the system as it stands (NULL:
                          unchanged since the last stage)               */
  const double *rhs;   /* n entries (NULL with dense)                    */
  int parts;           /* partitions (1 for a serial algorithm)          */
  const size_t *begin; /* parts + 1 row offsets                          */
  tl_trace_vec vec[TL_TRACE_VECS];
  int nvec;
  /* The reduced system, dense nr x nr, on the global rows `rows`. */
  size_t nr;
  const double *rdense, *rrhs;
  const size_t *rows;
  /* Entries dropped (approximate algorithms): matrix position and size,
   * against tol. */
  int ndrop;
  long drop_row[TL_TRACE_DROPS], drop_col[TL_TRACE_DROPS];
  double drop_val[TL_TRACE_DROPS];
  double tol;
  /* Ledger phases (tridlab/ledger.h) whose messages this stage sent, ""
   * when it sent none; the hook reads them from the solve's ledger. */
  const char *ledger_phase[2];
} tl_trace_stage;

typedef void (*tl_trace_fn)(const tl_trace_stage *stage, void *ctx);

/* 1 when `tl_trace_run` can trace this algorithm. */
int tl_trace_supported(const char *algo);
/* The names it can trace, space-separated. */
const char *tl_trace_algorithms(void);

/* Trace one real, plain system (sys->nsys = 1; periodic for
 * thomas_periodic) through `algo` with opt's partitions and parameters
 * (a non-partitioned algorithm ignores opt->parts). Solves it first with
 * tl_solve, recording its messages in ledger (may be NULL), x and info:
 * the trace's answer, and its status. Then calls fn after every stage;
 * the stages read their messages from that ledger. A solve refused
 * before it ran (TL_ERR_ARG, TL_ERR_UNSUPPORTED, TL_ERR_NOMEM) has no
 * stages. TL_ERR_UNSUPPORTED for an algorithm it cannot trace, a
 * complex, batched or (but thomas_periodic) periodic system;
 * TL_ERR_BREAKDOWN, "a tracer bug", when the solve has an x the phases
 * did not reach bit for bit. */
int tl_trace_run(const tl_algorithm *algo, const tl_batch *sys, const tl_options *opt,
                 tl_trace_fn fn, void *ctx, tl_ledger *ledger, double *x, tl_info *info);

/* Draw one stage (its dense matrix; nothing when stage->dense is NULL)
 * with gnuplot as PREFIX-NN.png (NN the stage index), beside
 * PREFIX-NN.dat and .gp (convergence/trace_plot.c). TL_ERR_UNSUPPORTED
 * when gnuplot is not installed (the .dat and .gp are still written). */
int tl_trace_plot(const tl_trace_stage *stage, const char *prefix, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
