/* verify/trace_internal.h -- what the tracers of `tridlab trace` share
 * (private: not installed, not included by users).
 *
 * verify/trace.c holds the picture being drawn (a tracer), the dispatch,
 * and Thomas, CR and PCR; the others have a file per family:
 * trace_pdd.c (pdd, rpdd), trace_distd2_its.c, trace_reduced.c
 * (tridsolver, hybrid_pcr, ptdma), trace_nshaped.c, trace_whole.c
 * (thomas_periodic, jacobi).
 * Every tracer is a second driver of its algorithm's public phase
 * functions: it calls them in the one-call solve's order, records the
 * same ledger entries, and emits a stage after each step.
 */
#ifndef TRIDLAB_TRACE_INTERNAL_H
#define TRIDLAB_TRACE_INTERNAL_H

#include <stddef.h>

#include "tridlab/registry.h"
#include "tridlab/trace.h"

/* What every tracer shares: the system, the picture being drawn, the
 * hook, and the partition offsets. */
typedef struct tracer {
  size_t n;
  const double *a, *b, *c, *d;
  double *dense, *rhs; /* n*n and n */
  tl_trace_fn fn;
  void *ctx;
  int index;
  int parts;
  size_t *begin; /* parts + 1 */
  tl_ledger *ledger;
  int periodic; /* a cyclic system (thomas_periodic): corners in the input */
} tracer;

/* Entry (i, j) of the picture. */
#define AT(tr, i, j) ((tr)->dense[(i) * (tr)->n + (j)])

int tl_tr_init(tracer *tr, const tl_batch *sys, int parts, const size_t *part_sizes, tl_trace_fn fn,
               void *ctx, tl_ledger *ledger);
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
/* The verdict's stage: dropped against tol, the bound, the status (which
 * it returns). */
int tl_tr_verdict(tracer *tr, const char *title, const char *phase, int status,
                  const tl_info *info);
/* `status` (the one-call solve's), or TL_ERR_BREAKDOWN when it has a
 * solution xs that is not the phases' x bit for bit (a tracer bug). */
int tl_tr_same_x(const tracer *tr, const double *x, const double *xs, int status, tl_info *info);
/* The verdict stage of a tracer whose verdict is the one-call solve's
 * (`status`, info; the caller records its ledger, phases phase0, phase1):
 * the solve's x (xs) must be the phases' x bit for bit, else
 * TL_ERR_BREAKDOWN (a tracer bug, never a silent difference). Returns
 * the status. */
int tl_tr_solve_verdict(tracer *tr, const double *x, const double *xs, int status,
                        const char *phase0, const char *phase1, tl_info *info);
/* "trace: no memory" as a status. */
int tl_tr_nomem(tl_info *info);

/* One algorithm's tracer: calls the hook after every stage, records
 * the messages in tr->ledger, writes x; returns the solve's status. */
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
int tl_tr_nshaped(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                  tl_info *info);
int tl_tr_thomas_periodic(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                          tl_info *info);
int tl_tr_jacobi(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                 tl_info *info);

#endif
