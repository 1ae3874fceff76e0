/* verify/trace_internal.h -- what the tracers of `tridlab trace` share
 * (private: not installed, not included by users).
 *
 * verify/trace.c holds the picture being drawn (a tracer), the dispatch,
 * and Thomas, CR and PCR; the others have a file per family:
 * trace_pdd.c (pdd, rpdd), trace_distd2_its.c, trace_reduced.c
 * (tridsolver, hybrid_pcr, ptdma), trace_nshaped.c, trace_whole.c
 * (thomas_periodic, jacobi).
 * The answer is the one-call solve's: tl_trace_run solves first (x,
 * status, info, ledger) and hands the result to the tracer, which only
 * draws. A tracer is a second driver of its algorithm's public phase
 * functions, in the solve's order, emitting a stage after each step;
 * its verdict stage prints the solve's verdict, and the stages read
 * their messages from the solve's ledger. Where the solve has an x, the
 * phases' x must be it bit for bit (else a tracer bug, said loudly).
 */
#ifndef TRIDLAB_TRACE_INTERNAL_H
#define TRIDLAB_TRACE_INTERNAL_H

#include <stddef.h>

#include "tridlab/registry.h"
#include "tridlab/trace.h"

/* The one-call solve's answer, which the trace gives (a tracer reads
 * it, never changes it). */
typedef struct tl_tr_solved {
  int status;
  const tl_info *info;
  const double *x; /* its x (meaningful when the status has a solution) */
} tl_tr_solved;

/* What every tracer shares: the system, the picture being drawn, the
 * hook, the partition offsets, and the solve's answer. */
typedef struct tracer {
  size_t n;
  const double *a, *b, *c, *d;
  double *dense, *rhs; /* n*n and n */
  tl_trace_fn fn;
  void *ctx;
  int index;
  int parts;
  size_t *begin; /* parts + 1 */
  int periodic;  /* a cyclic system (thomas_periodic): corners in the input */
  tl_tr_solved solved;
} tracer;

/* Entry (i, j) of the picture. */
#define AT(tr, i, j) ((tr)->dense[(i) * (tr)->n + (j)])

int tl_tr_init(tracer *tr, const tl_batch *sys, int parts, const size_t *part_sizes, tl_trace_fn fn,
               void *ctx, tl_tr_solved solved);
void tl_tr_free(tracer *tr);

/* A fresh stage with the tracer's geometry; the caller fills the rest. */
tl_trace_stage tl_tr_stage_new(tracer *tr, const char *title);
/* Number the stage and hand it to the hook (with the picture when
 * with_matrix). */
void tl_tr_emit(tracer *tr, tl_trace_stage *st, int with_matrix);
void tl_tr_add_vec(tl_trace_stage *st, const char *name, int part, size_t row0, size_t len,
                   const double *v);
/* The picture of a tridiagonal system whose row i couples x[i - s],
 * x[i], x[i + s] (s = 1: the input). */
void tl_tr_draw_banded(tracer *tr, size_t s, const double *a, const double *b, const double *c,
                       const double *d);
/* Stage 0: the input system, with a note on what the algorithm does. */
void tl_tr_stage_input(tracer *tr, const char *note);
/* The solved system: the identity, x on the right, x as a vector. */
void tl_tr_draw_solved(tracer *tr, tl_trace_stage *st, const double *x);
/* A stage with only a title, a note (printf-style) and the ledger
 * phases it sent ("" for none). */
void tl_tr_note_stage(tracer *tr, const char *title, const char *phase0, const char *phase1,
                      const char *fmt, ...);
/* A stage showing x (n entries) with a note (printf-style). */
void tl_tr_x_stage(tracer *tr, const char *title, const double *x, const char *fmt, ...);
/* A stage showing two vectors of one entry per partition. */
void tl_tr_pair_stage(tracer *tr, const char *title, const char *phase, const char *note,
                      const char *name0, const double *v0, const char *name1, const double *v1);
/* The verdict's stage: the one-call solve's status, and what it
 * dropped against tol with its bound (an approximate step), or its
 * message; the messages of ledger phases phase0, phase1 ("" for none).
 * no_bound (NULL when the algorithm states a bound here) says why it
 * states none, in place of a bound of 0. */
void tl_tr_verdict(tracer *tr, const char *title, const char *phase0, const char *phase1,
                   const char *no_bound);
/* "trace: no memory" as a status. */
int tl_tr_nomem(tl_info *info);

/* One algorithm's tracer: calls the hook after every stage and writes
 * the phases' x; TL_OK when every phase ran, else the failing phase's
 * status (info: scratch, the answer's info is tr->solved's). */
typedef int (*tl_tr_fn)(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                        tl_info *info);

int tl_tr_thomas(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                 tl_info *info);
int tl_tr_cr(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x, tl_info *info);
int tl_tr_pcr(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
              tl_info *info);
int tl_tr_pdd(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
              tl_info *info);
int tl_tr_rpdd(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
               tl_info *info);
int tl_tr_distd2(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                 tl_info *info);
int tl_tr_its(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
              tl_info *info);
int tl_tr_tridsolver(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                     tl_info *info);
int tl_tr_hybrid_pcr(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                     tl_info *info);
int tl_tr_ptdma(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                tl_info *info);
int tl_tr_spike(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                tl_info *info);
int tl_tr_spike_dp(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                   tl_info *info);
int tl_tr_spike_givens(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                       tl_info *info);
int tl_tr_nshaped(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                  tl_info *info);
int tl_tr_thomas_periodic(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                          tl_info *info);
int tl_tr_jacobi(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                 tl_info *info);

#endif
