/* verify/trace_pdd.c -- PDD and RPDD watched stage by stage
 * (verify/trace_internal.h): the local solves with their spikes, the
 * messages, the reduced system with the entries each drops, the interface
 * solves, the correction and the verdict (the one-call solve's, as are
 * the messages the stages print: verify/trace_internal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_rpdd.h"
#include "trace_internal.h"

/* ------------------------------------------------------------------ */
/* PDD: local solves with spikes, the dropped far entries, 2x2 interfaces */

/* After phase 1: identity blocks, spikes v (left) and w (right) in the
 * columns of the neighbours' boundary unknowns, rhs y. */
static void draw_spikes(tracer *tr, const tl_pdd_part_d *pt, const double *y)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (int p = 0; p < tr->parts; p++)
    for (size_t k = 0; k < pt[p].m; k++) {
      size_t i = pt[p].begin + k;
      AT(tr, i, i) = 1;
      if (p > 0)
        AT(tr, i, pt[p].begin - 1) = pt[p].v[k];
      if (p + 1 < tr->parts)
        AT(tr, i, pt[p].end) = pt[p].w[k];
      tr->rhs[i] = y[i];
    }
}

/* The spike entries a partition drops, with their size: PDD and RPDD
 * with complete spikes drop the far entries w_0 and v_{m-1} from the 2x2
 * systems of a partition with both neighbours (the bracketed entries of
 * pdd_ref.c's picture); a spike RPDD truncated to k < m entries drops its
 * next entry, whose estimate eta(k) is pt->drop_v / drop_w (rpdd_ref.c). */
static void pdd_drops(tracer *tr, const tl_pdd_part_d *pt, tl_trace_stage *st, double tol)
{
  int P = tr->parts;
  st->tol = tol;
  for (int p = 0; p < P && st->ndrop + 2 <= TL_TRACE_DROPS; p++) {
    size_t m = pt[p].m, kv = pt[p].kv, kw = pt[p].kw;
    if (p + 1 < P && (kw < m || p > 0)) { /* w: column end */
      st->drop_row[st->ndrop] = (long)(kw < m ? pt[p].end - 1 - kw : pt[p].begin);
      st->drop_col[st->ndrop] = (long)pt[p].end;
      st->drop_val[st->ndrop++] = kw < m ? pt[p].drop_w : pt[p].w[0];
    }
    if (p > 0 && (kv < m || p + 1 < P)) { /* v: column begin-1 */
      st->drop_row[st->ndrop] = (long)(kv < m ? pt[p].begin + kv : pt[p].end - 1);
      st->drop_col[st->ndrop] = (long)pt[p].begin - 1;
      st->drop_val[st->ndrop++] = kv < m ? pt[p].drop_v : pt[p].v[m - 1];
    }
  }
}

/* Phase 1's stage: the blocks solved, the spikes (as far as computed)
 * in the neighbours' columns, the entries dropped. */
static void spikes_stage(tracer *tr, const tl_pdd_part_d *pt, const double *x, double tol,
                         const char *title, const char *note)
{
  int P = tr->parts;
  tl_trace_stage st = tl_tr_stage_new(tr, title);
  snprintf(st.note, sizeof st.note, "%s", note);
  draw_spikes(tr, pt, x);
  pdd_drops(tr, pt, &st, tol);
  for (int p = 0; p < P && st.nvec + 2 <= TL_TRACE_VECS; p++) {
    if (p > 0)
      tl_tr_add_vec(&st, "v", p, pt[p].begin, pt[p].m, pt[p].v);
    if (p + 1 < P)
      tl_tr_add_vec(&st, "w", p, pt[p].begin, pt[p].m, pt[p].w);
  }
  tl_tr_emit(tr, &st, 1);
}

/* The reduced system on the interface rows: the last row of each
 * partition and the first of the next. */
static void pdd_reduced(tracer *tr, const tl_pdd_part_d *pt, tl_trace_stage *st, size_t *rows,
                        double *rd, double *rr)
{
  size_t nr = 0;
  for (int p = 0; p + 1 < tr->parts; p++) {
    rows[nr++] = pt[p].end - 1;
    rows[nr++] = pt[p + 1].begin;
  }
  for (size_t i = 0; i < nr; i++) {
    for (size_t j = 0; j < nr; j++)
      rd[i * nr + j] = AT(tr, rows[i], rows[j]);
    rr[i] = tr->rhs[rows[i]];
  }
  st->nr = nr;
  st->rows = rows;
  st->rdense = rd;
  st->rrhs = rr;
}

/* The simulated partitions, their messages, and the reduced system's
 * picture. */
typedef struct pdd_trace {
  tl_pdd_part_d *pt;
  tl_pdd_edge_d *up;    /* PDD: first rows to p-1; RPDD: also the edges to p-1 */
  tl_pdd_iface_d *down; /* PDD: x[end-1] to p+1 */
  size_t *rows;         /* 2P */
  double *rd, *rr;      /* (2P)^2 and 2P */
  tl_pdd_edge_d *last;  /* RPDD: the edges to p+1 */
  double *xlr;          /* RPDD: x[begin-1] and x[end] of every partition (2P) */
} pdd_trace;

/* Phase 2's stage: the reduced system on the interface rows, what it
 * drops, the messages of `phase`. */
static void reduced_stage(tracer *tr, const pdd_trace *pd, double tol, const char *title,
                          const char *phase, const char *note)
{
  tl_trace_stage st = tl_tr_stage_new(tr, title);
  snprintf(st.note, sizeof st.note, "%s", note);
  pdd_reduced(tr, pd->pt, &st, pd->rows, pd->rd, pd->rr);
  pdd_drops(tr, pd->pt, &st, tol);
  st.ledger_phase[0] = phase;
  tl_tr_emit(tr, &st, 0);
}

/* The verdict's stage: the one-call solve's, whose error bound needs a
 * strictly row-dominant A (spike_bound.c); on any other A it states
 * none, and the stage says so rather than print a bound of 0. The
 * smallest margin is the verdict's first reduction over the partitions. */
static void pdd_verdict_stage(tracer *tr, const tl_pdd_part_d *pt, const char *title)
{
  tl_pdd_verdict_d v;
  tl_pdd_verdict_init_d(&v);
  for (int p = 0; p < tr->parts; p++)
    tl_pdd_ref_verdict_part0_d(&pt[p], &v);
  char why[96];
  snprintf(why, sizeof why, "A is not strictly row-dominant: row %ld", v.mu_row);
  tl_tr_verdict(tr, title, "verdict", "", -v.neg_mu > 0.0 ? NULL : why);
}

static int pdd_phases(tracer *tr, const tl_algorithm *algo, const tl_options *opt,
                      const pdd_trace *pd, double *x, tl_info *info)
{
  double tol = tl_param_value(algo, opt, "tol");
  int P = tr->parts;
  tl_pdd_part_d *pt = pd->pt;
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  tl_tr_stage_input(tr, "PDD: each partition solves its own block; the spikes say how its rows "
                        "depend on the neighbours' boundary unknowns");
#define ROWS(v) ((v) + pt[p].begin)
  for (int p = 0; p < P; p++)
    TL_CALL(tl_pdd_ref_local_d(&pt[p], ROWS(a), ROWS(b), ROWS(c), ROWS(d), ROWS(x), info));
  spikes_stage(tr, pt, x, tol, "phase 1: local solves A_p [y v w] = [d_p, a e_0, c e_m-1]",
               "no messages; block p multiplied by its inverse leaves 1 on the diagonal and the "
               "spikes v (left column), w (right column)");
  for (int p = 1; p < P; p++)
    tl_pdd_ref_send_first_d(&pt[p], ROWS(a), ROWS(x), &pd->up[p]);
  reduced_stage(tr, pd, tol, "phase 2: first rows go up; the reduced system", "first-row",
                "the interface rows form a reduced system; PDD drops the far spike entries (*), "
                "which splits it into one 2x2 system per interface");
  for (int p = 0; p + 1 < P; p++)
    TL_CALL(tl_pdd_ref_interface_d(&pt[p], ROWS(c), ROWS(x), &pd->up[p + 1], &pd->down[p], info));
  for (int p = 1; p < P; p++)
    tl_pdd_ref_receive_d(&pt[p], &pd->down[p - 1]);
  tl_trace_stage st = tl_tr_stage_new(tr, "phases 3-4: 2x2 interface solves, x[end-1] goes down");
  snprintf(st.note, sizeof st.note,
           "partition p solves interface p|p+1, keeps x[end], sends x[end-1]");
  st.ledger_phase[0] = "interface";
  tl_tr_emit(tr, &st, 0);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_pdd_ref_correct_d(&pt[p], ROWS(x), info));
#undef ROWS
  st = tl_tr_stage_new(tr, "phase 5: correction x = y - v x[begin-1] - w x[end]");
  snprintf(st.note, sizeof st.note, "no messages; every partition corrects its own rows");
  tl_tr_draw_solved(tr, &st, x);
  tl_tr_emit(tr, &st, 1);
  pdd_verdict_stage(tr, pt, "phase 6: the verdict");
  return TL_OK;
}

typedef int (*pdd_phases_fn)(tracer *tr, const tl_algorithm *algo, const tl_options *opt,
                             const pdd_trace *pd, double *x, tl_info *info);

/* The partitions and the message buffers of PDD or RPDD, then `phases`. */
static int pdd_family(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                      tl_info *info, pdd_phases_fn phases)
{
  size_t P = (size_t)tr->parts;
  int ready = 0, status = TL_OK;
  pdd_trace pd = {tl_alloc(P, sizeof *pd.pt),          tl_alloc(P, sizeof *pd.up),
                  tl_alloc(P, sizeof *pd.down),        tl_alloc(2 * P, sizeof *pd.rows),
                  tl_alloc(4 * P * P, sizeof(double)), tl_alloc(2 * P, sizeof(double)),
                  tl_alloc(P, sizeof *pd.last),        tl_alloc(2 * P, sizeof(double))};
  if (!pd.pt || !pd.up || !pd.down || !pd.rows || !pd.rd || !pd.rr || !pd.last || !pd.xlr) {
    status = tl_tr_nomem(info);
    goto cleanup;
  }
  for (; ready < tr->parts; ready++)
    TL_CHECK(tl_pdd_part_init_d(&pd.pt[ready], tr->n, tr->parts, opt->part_sizes, ready, info));
  status = phases(tr, algo, opt, &pd, x, info);
cleanup:
  for (int p = 0; p < ready; p++)
    tl_pdd_part_free_d(&pd.pt[p]);
  free(pd.pt);
  free(pd.up);
  free(pd.down);
  free(pd.rows);
  free(pd.rd);
  free(pd.rr);
  free(pd.last);
  free(pd.xlr);
  return status;
}

int tl_tr_pdd(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x, tl_info *info)
{
  return pdd_family(tr, algo, opt, x, info, pdd_phases);
}

/* ------------------------------------------------------------------ */
/* RPDD: truncated spikes, one exchange, both interfaces on both sides  */

static int rpdd_phases(tracer *tr, const tl_algorithm *algo, const tl_options *opt,
                       const pdd_trace *pd, double *x, tl_info *info)
{
  int P = tr->parts;
  tl_pdd_part_d *pt = pd->pt;
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  size_t J = (size_t)tl_param_value(algo, opt, "J");
  double tol = tl_param_value(algo, opt, "tol");
  tl_tr_stage_input(tr, "RPDD: PDD with each spike cut to the entries that matter (J, or as many "
                        "as tol asks for); one exchange, then every partition solves both of its "
                        "interfaces");
#define ROWS(v) ((v) + pt[p].begin)
  for (int p = 0; p < P; p++)
    TL_CALL(tl_rpdd_ref_local_d(&pt[p], ROWS(a), ROWS(b), ROWS(c), ROWS(d), ROWS(x), J, tol, info));
  char note[256];
  if (J)
    snprintf(note, sizeof note,
             "no messages; each spike is computed on its first / last J = %zu rows only; its "
             "next entry, estimated, is what RPDD drops (*)",
             J);
  else
    snprintf(note, sizeof note,
             "no messages; each spike grows until the estimate of its next entry is <= tol "
             "(J = 0); that entry is what RPDD drops (*)");
  spikes_stage(tr, pt, x, tol, "phase 1: local solves and truncated spikes", note);
  for (int p = 0; p < P; p++)
    tl_rpdd_ref_send_d(&pt[p], ROWS(a), ROWS(c), ROWS(x), &pd->up[p], &pd->last[p]);
  reduced_stage(tr, pd, tol, "phase 2: one exchange; the reduced system", "edges",
                "partition p sends (y, spike, coupling) of its first row to p-1 and of its last "
                "row to p+1, at once; the interface rows form one 2x2 system per interface");
  for (int p = 0; p < P; p++) {
    TL_CALL(tl_rpdd_ref_interfaces_d(&pt[p], ROWS(a), ROWS(c), ROWS(x),
                                     p > 0 ? &pd->last[p - 1] : NULL,
                                     p + 1 < P ? &pd->up[p + 1] : NULL, info));
    pd->xlr[p] = pt[p].x_left;
    pd->xlr[P + p] = pt[p].x_right;
  }
  tl_tr_pair_stage(tr, "phase 3: both interfaces, on both sides", "",
                   "no messages; partition p solves interface p-1|p for x[begin-1] and p|p+1 for "
                   "x[end], the same 2x2 systems (and bits) as its neighbours",
                   "x[begin-1] of each partition", pd->xlr, "x[end] of each partition",
                   pd->xlr + P);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_pdd_ref_correct_d(&pt[p], ROWS(x), info));
#undef ROWS
  tl_trace_stage st = tl_tr_stage_new(tr, "phase 4: correction of the rows the spikes reach");
  snprintf(st.note, sizeof st.note,
           "no messages; x = y - v x[begin-1] - w x[end] where v, w were computed");
  tl_tr_draw_solved(tr, &st, x);
  tl_tr_emit(tr, &st, 1);
  pdd_verdict_stage(tr, pt, "phase 5: the verdict");
  return TL_OK;
}

int tl_tr_rpdd(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
               tl_info *info)
{
  return pdd_family(tr, algo, opt, x, info, rpdd_phases);
}
