/* verify/trace_distd2_its.c -- DistD2 and ITS watched stage by stage
 * (verify/trace_internal.h): two partition algorithms with one exchange
 * between neighbours, each dropping what it neglects against tol. Their
 * verdicts and messages are the one-call solve's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_distd2.h"
#include "tridlab/part_its.h"
#include "trace_internal.h"

/* ------------------------------------------------------------------ */
/* ITS: decay rates and J, the coefficient windows, one exchange         */

/* One stage per interface: the kept coefficients s^k (above I_k) and
 * t^{k+1} (below), and what the truncation neglected against tol. */
static void its_interface_stage(tracer *tr, const tl_its_state *st, int k, double tol)
{
  size_t Ik = st->begin[k + 1] - 1;
  char title[96];
  snprintf(title, sizeof title, "interface %d at row %zu: coefficients of row %zu of A^-1", k, Ik,
           Ik);
  tl_trace_stage sg = tl_tr_stage_new(tr, title);
  snprintf(sg.note, sizeof sg.note,
           "A'^T z' = e_I on the %zu-row window around row %zu; x[%zu] = z' . d, truncated to "
           "the %zu terms above and %zu below",
           st->wlen[k], Ik, Ik, st->jl, st->jr);
  tl_tr_add_vec(&sg, "s (kept, above)", k, Ik + 1 - st->jl, st->jl, st->s + (size_t)k * st->jl);
  if (k + 1 < tr->parts)
    tl_tr_add_vec(&sg, "t (kept, below; sent with p + 1's rows)", k + 1, Ik + 1, st->jr,
                  st->t + (size_t)(k + 1) * st->jr);
  sg.tol = tol;
  sg.ndrop = 1;
  sg.drop_row[0] = (long)Ik;
  sg.drop_col[0] = -1; /* not a matrix entry: coefficients beyond J */
  sg.drop_val[0] = st->dropped[k];
  tl_tr_emit(tr, &sg, 0);
}

static int its_phases(tracer *tr, tl_its_state *st, const tl_algorithm *algo, const tl_options *opt,
                      double *x, tl_info *info)
{
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  int P = tr->parts;
  double tol = tl_param_value(algo, opt, "tol");
  tl_tr_stage_input(tr,
                    "ITS: x at each interface row is a dot product of a row of A^-1 with d; "
                    "its coefficients decay away from the row, so J terms on each side suffice");
  for (int p = 0; p < P; p++)
    tl_its_rate(st, p, a + st->begin[p], b + st->begin[p], c + st->begin[p]);
  TL_CALL(tl_its_truncation(st, (size_t)tl_param_value(algo, opt, "J"),
                            tl_param_value(algo, opt, "eps_c"), info));
  tl_trace_stage sg = tl_tr_stage_new(tr, "decay rates and the truncation J (eq 18)");
  snprintf(sg.note, sizeof sg.note,
           "largest decay rate %.3g per row: J = %zu terms kept each side, L = %zu rows of "
           "margin in the window",
           st->rho, st->J, st->L);
  tl_tr_add_vec(&sg, "rate per partition", -1, 0, (size_t)P, st->rate);
  sg.ledger_phase[0] = "rate";
  tl_tr_emit(tr, &sg, 0);
  tl_tr_note_stage(tr, "the windows and the spikes go out (once, before any right-hand side)",
                   "window", "spike",
                   "interface k gathers the rows of its window from their owners (3 words a row) "
                   "and sends its %zu coefficients below it to partition k+1",
                   st->jr);
  for (int k = 0; k < st->nif; k++) {
    tl_its_window(st, k, a, b, c);
    TL_CALL(tl_its_coefficients(st, k, info));
    its_interface_stage(tr, st, k, tol);
  }
  for (int p = 0; p < P; p++)
    tl_its_partial(st, p, d + st->begin[p]);
  tl_its_exchange(st);
  tl_tr_pair_stage(tr, "partial sums and the one exchange", "sums",
                   "a_b = s . (last J of d), a_t = t . (first J of d); partition p sends a_b to "
                   "p+1 and a_t to p-1: one word each way per interface",
                   "a_b per partition", st->ab, "a_t per partition", st->at);
  int status = TL_OK;
  for (int p = 0; p < P && status >= 0; p++)
    status = tl_its_local_solve(st, p, a + st->begin[p], b + st->begin[p], c + st->begin[p],
                                d + st->begin[p], x + st->begin[p], info);
  if (status >= 0) {
    sg = tl_tr_stage_new(tr, "local solves with the interface values known");
    snprintf(sg.note, sizeof sg.note,
             "x[I] = a_b + a_t of each interface; every partition solves its own rows");
    tl_tr_draw_solved(tr, &sg, x);
    tl_tr_emit(tr, &sg, 1);
  }
  /* The verdict as the solve ended it: the truncation's when a local
   * solve broke down or x overflowed (x is then what the local solves
   * left, as the solve's), else dropped against tol, the class check,
   * the residual self-check; and its messages. */
  tl_tr_verdict(tr, "the verdict", "verdict", "halo", NULL);
  return TL_OK;
}

int tl_tr_its(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x, tl_info *info)
{
  tl_its_state st;
  int status = tl_its_init(&st, tr->n, 0, tr->parts, opt->part_sizes, info);
  if (status >= 0) {
    status = its_phases(tr, &st, algo, opt, x, info);
    tl_its_free(&st);
  }
  return status;
}

/* ------------------------------------------------------------------ */
/* DistD2: decoupled rows, one neighbour exchange, 2x2 interfaces        */

/* After Algorithm 6, row k of partition p couples x[k] with two unknowns
 * (part_distd2.h): the neighbour's boundary one and its own far one. */
static void draw_decoupled(tracer *tr, const tl_distd2_plan *pl, const double *dt)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (int p = 0; p < tr->parts; p++) {
    size_t b = pl->begin[p], e = pl->begin[p + 1];
    for (size_t k = b; k < e; k++) {
      size_t left = k == b ? b - 1 : b, right = k + 1 == e ? e : e - 1; /* b - 1 wraps when b = 0 */
      if (left < tr->n && left != k)
        AT(tr, k, left) = pl->sa[k];
      if (right < tr->n && right != k)
        AT(tr, k, right) = pl->sc[k];
      AT(tr, k, k) = 1;
      tr->rhs[k] = dt[k];
    }
  }
}

/* The entries each interface drops: the left partition's last row into
 * its own first unknown, the right one's first row into its own last.
 * The interface P-1 | 0 is the corner: DistD2 drops there too (for a
 * plain system its own couplings are zero, not what it drops). */
static void distd2_drops(tracer *tr, const tl_distd2_plan *pl, const tl_distd2_edge *edge,
                         tl_trace_stage *st, double tol)
{
  int P = tr->parts;
  st->tol = tol;
  for (int p = 0; p < P && st->ndrop + 2 <= TL_TRACE_DROPS; p++) {
    int q = (p + 1) % P;
    st->drop_row[st->ndrop] = (long)pl->begin[p + 1] - 1;
    st->drop_col[st->ndrop] = (long)pl->begin[p];
    st->drop_val[st->ndrop++] = edge[p].last_lower;
    st->drop_row[st->ndrop] = (long)pl->begin[q];
    st->drop_col[st->ndrop] = (long)pl->begin[q + 1] - 1;
    st->drop_val[st->ndrop++] = edge[q].first_upper;
  }
}

typedef struct distd2_trace {
  tl_distd2_plan plan;
  double *dt, *xs, *xe;
  tl_distd2_edge *edge;
} distd2_trace;

static int distd2_phases(tracer *tr, distd2_trace *dd, double tol, double *x, tl_info *info)
{
  int P = tr->parts;
  tl_tr_stage_input(tr,
                    "DistD2: a modified Thomas pass leaves every row coupled to two unknowns only; "
                    "one exchange with each neighbour, then 2x2 systems across the interfaces");
  for (int p = 0; p < P; p++) {
    TL_CALL(tl_distd2_decouple_d(&dd->plan, p, tr->d, dd->dt, info));
    tl_distd2_pack_d(&dd->plan, p, dd->dt, &dd->edge[p]);
  }
  tl_trace_stage st = tl_tr_stage_new(tr, "decoupled: Algorithms 5 and 6 on every partition");
  snprintf(st.note, sizeof st.note,
           "no messages; row k couples x[k] with the neighbour's boundary unknown and its own "
           "far one (s^a, s^c); the far ones of the boundary rows are dropped (*)");
  draw_decoupled(tr, &dd->plan, dd->dt);
  if (P > 1)
    distd2_drops(tr, &dd->plan, dd->edge, &st, tol);
  tl_tr_emit(tr, &st, 1);
  for (int p = 0; p < P; p++) { /* p = P-1: the corner (zero when not periodic) */
    int q = (p + 1) % P;
    double dropped, kappa; /* what the verdict reads: the solve's verdict is printed */
    long row = (long)dd->plan.begin[p + 1] - 1;
    TL_CALL(tl_distd2_interface_d(&dd->edge[p], &dd->edge[q], P == 1, &dd->xe[p], &dd->xs[q],
                                  &dropped, &kappa, row, info));
  }
  tl_tr_pair_stage(tr, "one exchange, 2x2 interface systems", "edges",
                   "partition p sends its first row (3 words) to p-1 and its last row (3 words) "
                   "to p+1; each interface solves for x[end-1] and x[end]",
                   "x first of each partition", dd->xs, "x last of each partition", dd->xe);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_distd2_substitute_d(&dd->plan, p, dd->xs[p], dd->xe[p], dd->dt, x, info));
  st = tl_tr_stage_new(tr, "substitution (Algorithm 7)");
  snprintf(st.note, sizeof st.note,
           "no messages; x[k] = dt[k] - s^a[k] x[left] - s^c[k] x[right] on every row");
  tl_tr_draw_solved(tr, &st, x);
  tl_tr_emit(tr, &st, 1);
  tl_tr_verdict(tr, "the verdict", "verdict", "", NULL);
  return TL_OK;
}

int tl_tr_distd2(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                 tl_info *info)
{
  size_t P = (size_t)tr->parts;
  distd2_trace dd = {.dt = tl_alloc(tr->n, sizeof(double)),
                     .xs = tl_alloc(P, sizeof(double)),
                     .xe = tl_alloc(P, sizeof(double)),
                     .edge = tl_alloc(P, sizeof(tl_distd2_edge))};
  int status = tl_tr_nomem(info);
  if (dd.dt && dd.xs && dd.xe && dd.edge) {
    status = tl_distd2_plan_create_d(&dd.plan, tr->n, 0, tr->parts, opt->part_sizes, tr->a, tr->b,
                                     tr->c, info);
    if (status == TL_OK) {
      status = distd2_phases(tr, &dd, tl_param_value(algo, opt, "tol"), x, info);
      tl_distd2_plan_destroy(&dd.plan);
    }
  }
  free(dd.dt);
  free(dd.xs);
  free(dd.xe);
  free(dd.edge);
  return status;
}
