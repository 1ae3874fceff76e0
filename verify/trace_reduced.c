/* verify/trace_reduced.c -- Tridsolver, hybrid Thomas-PCR and P-TDMA
 * watched stage by stage (verify/trace_internal.h). All three eliminate
 * inside every partition first (a modified Thomas pass that leaves each
 * row coupled to the partition's boundary unknowns), solve a small reduced
 * system on the boundary rows, and substitute back; they differ in how
 * many rows each partition gives the reduced system (one: tridsolver;
 * two: hybrid_pcr, ptdma) and in how it is solved. The verdict and the
 * messages are the one-call solve's, whose x must be the phases' x.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/part_ptdma.h"
#include "tridlab/part_tridsolver.h"
#include "trace_internal.h"

/* The scratch of all three: the modified rows (as, cs, ds: n each), the
 * messages and the reduced system (buf), and the reduced system's
 * picture (rows, rd, rr). */
typedef struct split_trace {
  double *as, *cs, *ds;
  double *buf;
  size_t *rows;
  double *rd, *rr;
  tl_ptdma_plan plan; /* ptdma, flavour split: Algorithm 2's plan */
} split_trace;

static int split_alloc(split_trace *sp, size_t n, size_t nbuf, size_t nr, tl_info *info)
{
  sp->as = tl_alloc(3 * n, sizeof(double));
  sp->buf = tl_alloc(nbuf, sizeof(double));
  sp->rows = tl_alloc(nr, sizeof(size_t));
  sp->rd = tl_alloc(nr * nr + nr, sizeof(double));
  if (!sp->as || !sp->buf || !sp->rows || !sp->rd)
    return tl_tr_nomem(info);
  sp->cs = sp->as + n;
  sp->ds = sp->cs + n;
  sp->rr = sp->rd + nr * nr;
  return TL_OK;
}

static void split_free(split_trace *sp)
{
  free(sp->as);
  free(sp->buf);
  free(sp->rows);
  free(sp->rd);
  tl_ptdma_plan_destroy(&sp->plan);
}

/* After the forward pass of partition [b, e): every row has 1 on the
 * diagonal, as[i] in column left(i) and cs[i] in column right(i); row 0's
 * left is the previous partition's last unknown (none for p = 0), the last
 * row's right the next partition's first (none for p = P-1). Tridsolver:
 * rows i >= 1 couple x_0 and x_{i+1}, row 0 couples x_{m-1}. Hybrid: rows
 * 1..m-2 couple x_0 and x_{m-1}, row m-1 couples x_0 and x_m. */
static void draw_forward(tracer *tr, const split_trace *sp, const double *diag, int hybrid)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (int p = 0; p < tr->parts; p++) {
    size_t b = tr->begin[p], e = tr->begin[p + 1];
    for (size_t i = b; i < e; i++) {
      size_t left = i == b ? b - 1 : b; /* b - 1 wraps when b = 0 */
      size_t right = i == b ? e - 1 : hybrid && i + 1 < e ? e - 1 : i + 1;
      if (left < tr->n && left != i)
        AT(tr, i, left) = sp->as[i];
      if (right < tr->n && right != i)
        AT(tr, i, right) = sp->cs[i];
      AT(tr, i, i) = diag ? diag[i] : 1;
      tr->rhs[i] = sp->ds[i];
    }
  }
}

/* The reduced system, tridiagonal on the global rows `rows` (nr of
 * them), from its coefficients: row k is lo[k] y[k-1] + di[k] y[k] +
 * up[k] y[k+1] = r[k], each array read with stride `step`. */
static void reduced_picture(tl_trace_stage *st, split_trace *sp, size_t nr, const double *lo,
                            const double *di, const double *up, const double *r, size_t step)
{
  memset(sp->rd, 0, nr * nr * sizeof(double));
  for (size_t k = 0; k < nr; k++) {
    if (k > 0)
      sp->rd[k * nr + k - 1] = lo[k * step];
    sp->rd[k * nr + k] = di[k * step];
    if (k + 1 < nr)
      sp->rd[k * nr + k + 1] = up[k * step];
    sp->rr[k] = r[k * step];
  }
  st->nr = nr;
  st->rows = sp->rows;
  st->rdense = sp->rd;
  st->rrhs = sp->rr;
}

/* The forward pass's stage (no messages); diag NULL: a unit diagonal. */
static void forward_stage(tracer *tr, const split_trace *sp, const double *diag, int hybrid,
                          const char *title, const char *note)
{
  tl_trace_stage st = tl_tr_stage_new(tr, title);
  snprintf(st.note, sizeof st.note, "%s", note);
  draw_forward(tr, sp, diag, hybrid);
  tl_tr_emit(tr, &st, 1);
}

/* The substitution's stage: the solved system. */
static void backward_stage(tracer *tr, const char *title, const char *phase, const char *note,
                           const double *x)
{
  tl_trace_stage st = tl_tr_stage_new(tr, title);
  snprintf(st.note, sizeof st.note, "%s", note);
  tl_tr_draw_solved(tr, &st, x);
  st.ledger_phase[0] = phase;
  tl_tr_emit(tr, &st, 1);
}

typedef int (*split_phases_fn)(tracer *tr, split_trace *sp, const tl_algorithm *algo,
                               const tl_options *opt, double *x, tl_info *info);
/* Scratch words of the messages, reduced rows per partition, and the
 * verdict's messages: 0 the residual check of tridsolver and hybrid_pcr,
 * 1 P-TDMA's one allreduce. */
typedef struct split_sizes {
  size_t buf, rows_per_part;
  int ptdma;
} split_sizes;

/* The phases, then the one-call solve's verdict. */
static int split_run(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                     tl_info *info, split_sizes size, split_phases_fn phases)
{
  split_trace sp = {0};
  int status = split_alloc(&sp, tr->n, size.buf, size.rows_per_part * (size_t)tr->parts, info);
  if (status == TL_OK)
    status = phases(tr, &sp, algo, opt, x, info);
  if (status == TL_OK && size.ptdma)
    tl_tr_verdict(tr, "the verdict", "verdict", "", NULL);
  else if (status == TL_OK)
    tl_tr_verdict(tr, "the verdict", "halo", "verdict", NULL);
  split_free(&sp);
  return status;
}

/* ------------------------------------------------------------------ */
/* Tridsolver: one reduced row per partition, four strategies            */

static const char *const strategy_name[] = {"allgather", "gather_scatter", "pcr", "jacobi"};
static const char *const strategy_phase[] = {"reduced", "reduced", "pcr", "jacobi"};
/* The second phase each strategy sends (allgather: none; it sends once). */
static const char *const strategy_phase2[] = {"", "solution", "next-first", "jacobi-test"};
static const char *const strategy_how[] = {
    "every partition receives all P rows (an allgather) and solves the same system by Thomas",
    "partition 0 gathers the P rows, solves them by Thomas and scatters F[p], F[p+1] back",
    "PCR across the partitions: at stride 1, 2, 4, ... each row comes from p-s and p+s",
    "Jacobi sweeps: each sweep every partition receives F[p-1], F[p+1]; a test across all"};

/* Phase 4: the strategy on the P reduced rows, F[p] = x[begin_p]. */
static int tridsolver_reduced(tracer *tr, int strategy, const tl_algorithm *algo,
                              const tl_options *opt, double *rows, double *work, double *F,
                              tl_info *info)
{
  int P = tr->parts;
  switch (strategy) {
  case TL_TRIDSOLVER_ALLGATHER: return tl_tridsolver_allgather_d(P, rows, work, F, info);
  case TL_TRIDSOLVER_GATHER_SCATTER: return tl_tridsolver_gather_scatter_d(P, rows, work, F, info);
  case TL_TRIDSOLVER_PCR: return tl_tridsolver_pcr_d(P, rows, work, F, info);
  default:
    return tl_tridsolver_jacobi_d(P, rows, work, F, (long)tl_param_value(algo, opt, "iters"),
                                  tl_param_value(algo, opt, "tol"),
                                  (long)tl_param_value(algo, opt, "maxit"), info);
  }
}

static void tridsolver_reduced_stage(tracer *tr, int strategy, const double *F,
                                     const tl_info *jinfo)
{
  tl_trace_stage st = tl_tr_stage_new(tr, "phase 4: the reduced system solved");
  if (strategy == TL_TRIDSOLVER_JACOBI)
    snprintf(st.note, sizeof st.note,
             "%s (reduced=jacobi): %d sweeps, dropped %.3g (the reduced backward error) against "
             "tol %.3g",
             strategy_how[strategy], jinfo->iterations, jinfo->dropped, jinfo->tol);
  else
    snprintf(st.note, sizeof st.note, "%s (reduced=%s)", strategy_how[strategy],
             strategy_name[strategy]);
  tl_tr_add_vec(&st, "F = x[begin] of each partition", -1, 0, (size_t)tr->parts, F);
  st.ledger_phase[0] = strategy_phase[strategy];
  st.ledger_phase[1] = strategy_phase2[strategy];
  tl_tr_emit(tr, &st, 0);
}

static int tridsolver_phases(tracer *tr, split_trace *sp, const tl_algorithm *algo,
                             const tl_options *opt, double *x, tl_info *info)
{
  int P = tr->parts, strategy = (int)tl_param_value(algo, opt, "reduced");
  double *last = sp->buf, *rows = last + 3 * P, *work = rows + 4 * P, *F = work + 8 * P;
  tl_tr_stage_input(tr, "Tridsolver: a forward sweep leaves every row of a partition coupled to "
                        "its first unknown; one reduced row per partition; backward sweep");
  for (int p = 0; p < P; p++) {
    size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
    TL_CALL(tl_tridsolver_forward_d(lo, m, p > 0, p + 1 < P, tr->a + lo, tr->b + lo, tr->c + lo,
                                    tr->d + lo, sp->as + lo, sp->cs + lo, sp->ds + lo, info));
    tl_tridsolver_last_row_d(m, sp->as + lo, sp->cs + lo, sp->ds + lo, last + 3 * p);
  }
  forward_stage(tr, sp, NULL, 0, "phase 1: forward sweep (Algorithm 6) on every partition",
                "no messages; row 0 couples x[begin-1], x[begin], x[end-1]; every other row "
                "couples x[begin], itself and the next");
  tl_trace_stage st = tl_tr_stage_new(tr, "phases 2-3: last rows go right; the reduced rows");
  snprintf(st.note, sizeof st.note,
           "partition p sends its last row (a*, c*, d*) to p+1, which puts it and its own last "
           "row into its row 0: A F[p-1] + B F[p] + C F[p+1] = D, F[p] = x[begin_p]");
  for (int p = 0; p < P; p++) {
    size_t lo = tr->begin[p];
    tl_tridsolver_reduced_row_d(tr->begin[p + 1] - lo, sp->as + lo, sp->cs + lo, sp->ds + lo,
                                p > 0 ? last + 3 * (p - 1) : NULL, rows + 4 * p);
    sp->rows[p] = lo;
  }
  reduced_picture(&st, sp, (size_t)P, rows, rows + 1, rows + 2, rows + 3, 4);
  st.ledger_phase[0] = "last-row";
  tl_tr_emit(tr, &st, 0);
  tl_info jinfo;
  tl_info_clear(&jinfo);
  TL_CALL(tridsolver_reduced(tr, strategy, algo, opt, rows, work, F, &jinfo));
  tridsolver_reduced_stage(tr, strategy, F, &jinfo);
  F[P] = 0; /* no partition after the last */
  for (int p = 0; p < P; p++) {
    size_t lo = tr->begin[p];
    TL_CALL(tl_tridsolver_backward_d(lo, tr->begin[p + 1] - lo, sp->as + lo, sp->cs + lo,
                                     sp->ds + lo, F[p], F[p + 1], x + lo, info));
  }
  backward_stage(
      tr, "phase 5: backward sweep", "",
      "no messages (F[p+1] came with phase 4); x[end-1] from F[p], F[p+1], then upwards: x[i] = "
      "d*[i] - a*[i] F[p] - c*[i] x[i+1]",
      x);
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* Hybrid Thomas-PCR: two reduced rows per partition, PCR on them       */

static int hybrid_phases(tracer *tr, split_trace *sp, const tl_algorithm *algo,
                         const tl_options *opt, double *x, tl_info *info)
{
  (void)algo;
  (void)opt;
  int P = tr->parts;
  size_t R = 2 * (size_t)P;
  double *send = sp->buf, *ra = send + 6 * P, *rb = ra + R, *rc = rb + R, *rd = rc + R;
  double *y = rd + R;
  tl_tr_stage_input(tr, "hybrid Thomas-PCR: a modified Thomas pass leaves every row of a "
                        "partition coupled to its first and last unknowns; their 2P rows are "
                        "solved by PCR; then substitution");
  for (int p = 0; p < P; p++) {
    size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
    TL_CALL(tl_hybrid_pcr_forward_d(lo, m, p > 0, p + 1 < P, tr->a + lo, tr->b + lo, tr->c + lo,
                                    tr->d + lo, sp->as + lo, sp->cs + lo, sp->ds + lo, info));
    tl_hybrid_pcr_pack_d(m, sp->as + lo, sp->cs + lo, sp->ds + lo, send + TL_HYBRID_PCR_SEND * p);
    sp->rows[2 * p] = lo;
    sp->rows[2 * p + 1] = tr->begin[p + 1] - 1;
  }
  forward_stage(tr, sp, NULL, 1, "phase 1: modified Thomas (Algorithm 3) on every partition",
                "no messages; the inner rows couple x[begin] and x[end-1] only, the first and "
                "last rows the neighbours' boundary unknowns too");
  tl_hybrid_pcr_gather_d(P, send, ra, rb, rc, rd);
  tl_trace_stage st = tl_tr_stage_new(tr, "phases 2-3: the boundary rows gathered");
  snprintf(st.note, sizeof st.note,
           "every partition sends its first and last rows (6 words) to partition 0: the reduced "
           "system, tridiagonal with a unit diagonal, on x[begin], x[end-1] of every partition");
  reduced_picture(&st, sp, R, ra, rb, rc, rd, 1);
  st.ledger_phase[0] = "reduced";
  tl_tr_emit(tr, &st, 0);
  TL_CALL(tl_pcr_ref_d(R, ra, rb, rc, rd, y, info)); /* its domain: the solve's verdict, on A */
  st = tl_tr_stage_new(tr, "phase 4: PCR on the reduced system");
  snprintf(st.note, sizeof st.note, "y = x[begin], x[end-1] of every partition, in order");
  tl_tr_add_vec(&st, "y", -1, 0, R, y);
  tl_tr_emit(tr, &st, 0);
  for (int p = 0; p < P; p++) {
    size_t lo = tr->begin[p];
    TL_CALL(tl_hybrid_pcr_backward_d(lo, tr->begin[p + 1] - lo, sp->as + lo, sp->cs + lo,
                                     sp->ds + lo, y[2 * p], y[2 * p + 1], x + lo, info));
  }
  backward_stage(tr, "phase 5: y scattered back; substitution (Algorithm 4)", "solution",
                 "partition 0 sends every partition its two unknowns (2 words); x[i] = d*[i] - "
                 "a*[i] x[begin] - c*[i] x[end-1]",
                 x);
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* P-TDMA: Algorithm 2 (plan, runtime step) or Algorithm 1 (one pass)    */

/* Step 1 (and 2): every partition's rows reduced; its two boundary rows
 * packed into rows 2p, 2p+1 of the reduced system (ra..rd). */
static int ptdma_local(tracer *tr, split_trace *sp, int split, const size_t *part_sizes, double *ra,
                       double *rb, double *rc, double *rd, tl_info *info)
{
  int P = tr->parts;
  if (split)
    TL_CALL(tl_ptdma_plan_create_d(&sp->plan, tr->n, 0, P, part_sizes, tr->a, tr->b, tr->c, info));
  for (int p = 0; p < P; p++) {
    size_t b0 = tr->begin[p], b1 = tr->begin[p + 1];
    if (split) {
      const tl_ptdma_plan *pl = &sp->plan;
      tl_ptdma_runtime_d(b0, b1, pl->A + b0, pl->C + b0, pl->b + b0, tr->d + b0, sp->ds + b0);
      tl_ptdma_pack_d(b0, b1, p, NULL, NULL, NULL, sp->ds + b0, NULL, NULL, NULL, rd);
      memcpy(sp->as + b0, pl->a + b0, (b1 - b0) * sizeof(double)); /* for the picture */
      memcpy(sp->cs + b0, pl->c + b0, (b1 - b0) * sizeof(double));
    } else {
      TL_CALL(tl_ptdma_reduce_d(tr->n, 0, b0, b1, tr->a + b0, tr->b + b0, tr->c + b0, tr->d + b0,
                                sp->as + b0, sp->cs + b0, sp->ds + b0, info));
      tl_ptdma_pack_d(b0, b1, p, sp->as + b0, NULL, sp->cs + b0, sp->ds + b0, ra, rb, rc, rd);
    }
    sp->rows[2 * p] = b0;
    sp->rows[2 * p + 1] = b1 - 1;
  }
  if (split) { /* the coefficients were gathered once, with the plan */
    memcpy(ra, sp->plan.ra, 2 * (size_t)P * sizeof(double));
    memcpy(rb, sp->plan.rb, 2 * (size_t)P * sizeof(double));
    memcpy(rc, sp->plan.rc, 2 * (size_t)P * sizeof(double));
  }
  return TL_OK;
}

/* Algorithm 1 step 3 / Algorithm 2 step 4 on every partition, from its
 * two boundary values rx[2p], rx[2p+1]. */
static int ptdma_reconstruct(tracer *tr, const split_trace *sp, int split, const double *rx,
                             double *x, tl_info *info)
{
  for (int p = 0; p < tr->parts; p++) {
    size_t b0 = tr->begin[p], b1 = tr->begin[p + 1];
    TL_CALL(tl_ptdma_reconstruct_d(b0, b1, sp->as + b0, split ? sp->plan.b + b0 : NULL, sp->cs + b0,
                                   sp->ds + b0, rx[2 * p], rx[2 * p + 1], x + b0, info));
  }
  return TL_OK;
}

static int ptdma_phases(tracer *tr, split_trace *sp, const tl_algorithm *algo,
                        const tl_options *opt, double *x, tl_info *info)
{
  int P = tr->parts, split = (int)tl_param_value(algo, opt, "flavour") == TL_PTDMA_SPLIT;
  size_t R = 2 * (size_t)P;
  double *ra = sp->buf, *rb = ra + R, *rc = rb + R, *rd = rc + R, *rx = rd + R;
  tl_tr_stage_input(tr, "P-TDMA: every partition reduces its rows to its first and last "
                        "unknowns; the 2P boundary rows go to partition 0, which solves them by "
                        "Thomas; the interior is reconstructed");
  TL_CALL(ptdma_local(tr, sp, split, opt->part_sizes, ra, rb, rc, rd, info));
  forward_stage(tr, sp, split ? sp->plan.b : NULL, 1,
                split ? "steps 1-2 (Algorithm 2): the plan from A, then d' per right-hand side"
                      : "step 1 (Algorithm 1): coefficients and d reduced together",
                split ? "no messages; the inner rows couple x[begin] and x[end-1] only (b: the "
                        "pivots, not normalised); the plan depends on A only and is reused"
                      : "no messages; the inner rows couple x[begin] and x[end-1] only, on a "
                        "unit diagonal");
  tl_trace_stage st = tl_tr_stage_new(tr, "the boundary rows gathered: the reduced system");
  snprintf(st.note, sizeof st.note, "%s",
           split ? "partition 0 gathers a, b, c of the 2 rows of every partition once (the plan) "
                   "and their d' per right-hand side"
                 : "partition 0 gathers a, c, d' of the 2 rows of every partition (b = 1)");
  reduced_picture(&st, sp, R, ra, rb, rc, rd, 1);
  st.ledger_phase[0] = split ? "plan-rows" : "rows";
  st.ledger_phase[1] = split ? "rhs-rows" : "";
  tl_tr_emit(tr, &st, 0);
  TL_CALL(tl_ptdma_reduced_solve_d(R, 0, ra, rb, rc, rd, rx, info));
  TL_CALL(ptdma_reconstruct(tr, sp, split, rx, x, info));
  backward_stage(tr, "Thomas on the reduced system; x scattered back; the interior", "solution",
                 "partition 0 sends every partition its x[begin], x[end-1] (2 words); x[k] = "
                 "(d'[k] - a[k] x[begin] - c[k] x[end-1]) / b[k]",
                 x);
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* The entries (verify/trace.c's table)                                 */

int tl_tr_tridsolver(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                     tl_info *info)
{
  return split_run(tr, algo, opt, x, info, (split_sizes){16 * (size_t)tr->parts + 1, 1, 0},
                   tridsolver_phases);
}

int tl_tr_hybrid_pcr(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                     tl_info *info)
{
  return split_run(tr, algo, opt, x, info, (split_sizes){16 * (size_t)tr->parts, 2, 0},
                   hybrid_phases);
}

int tl_tr_ptdma(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                tl_info *info)
{
  return split_run(tr, algo, opt, x, info, (split_sizes){10 * (size_t)tr->parts, 2, 1},
                   ptdma_phases);
}
