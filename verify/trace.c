/* verify/trace.c -- algorithms watched stage by stage (tridlab/trace.h).
 *
 * Each tracer is a second driver of an algorithm's public phase
 * functions, beside the one-call solve: it calls them in the same order,
 * so its x is the solve's x bit for bit (tests/test_trace.c holds it to
 * that), and after each stage it draws the system as it stands as a dense
 * n x n matrix -- the pictures the reference files draw in their opening
 * comments, with the numbers of this system in them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_distd2.h"
#include "tridlab/part_its.h"
#include "tridlab/part_pdd.h"
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
} tracer;

static int tracer_init(tracer *tr, const tl_batch *sys, int parts, const size_t *part_sizes,
                       tl_trace_fn fn, void *ctx, tl_ledger *ledger)
{
  memset(tr, 0, sizeof *tr);
  tr->n = sys->n;
  tr->a = sys->a;
  tr->b = sys->b;
  tr->c = sys->c;
  tr->d = sys->d;
  tr->fn = fn;
  tr->ctx = ctx;
  tr->parts = parts;
  tr->ledger = ledger;
  tr->dense = tl_alloc(tr->n * tr->n, sizeof(double));
  tr->rhs = tl_alloc(tr->n, sizeof(double));
  tr->begin = tl_alloc((size_t)parts + 1, sizeof(size_t));
  if (!tr->dense || !tr->rhs || !tr->begin)
    return TL_ERR_NOMEM;
  for (int p = 0; p < parts; p++)
    tl_partition_bounds(tr->n, parts, part_sizes, p, &tr->begin[p], &tr->begin[p + 1]);
  return TL_OK;
}

static void tracer_free(tracer *tr)
{
  free(tr->dense);
  free(tr->rhs);
  free(tr->begin);
}

/* A fresh stage with the tracer's geometry; the caller fills the rest. */
static tl_trace_stage stage_new(tracer *tr, const char *title)
{
  tl_trace_stage st;
  memset(&st, 0, sizeof st);
  st.n = tr->n;
  st.parts = tr->parts;
  st.begin = tr->begin;
  st.ledger_phase[0] = st.ledger_phase[1] = "";
  snprintf(st.title, sizeof st.title, "%s", title);
  return st;
}

static void emit(tracer *tr, tl_trace_stage *st, int with_matrix)
{
  st->index = tr->index++;
  if (with_matrix) {
    st->dense = tr->dense;
    st->rhs = tr->rhs;
  }
  if (tr->fn)
    tr->fn(st, tr->ctx);
}

static void add_vec(tl_trace_stage *st, const char *name, int part, size_t row0, size_t len,
                    const double *v)
{
  if (st->nvec < TL_TRACE_VECS)
    st->vec[st->nvec++] = (tl_trace_vec){name, part, row0, len, v};
}

#define AT(tr, i, j) ((tr)->dense[(i) * (tr)->n + (j)])

/* The picture of a tridiagonal system whose row i couples x[i - s],
 * x[i], x[i + s] (s = 1: the input). */
static void draw_banded(tracer *tr, size_t s, const double *a, const double *b, const double *c,
                        const double *d)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (size_t i = 0; i < tr->n; i++) {
    if (i >= s)
      AT(tr, i, i - s) = a[i];
    AT(tr, i, i) = b[i];
    if (i + s < tr->n)
      AT(tr, i, i + s) = c[i];
    tr->rhs[i] = d[i];
  }
}

static void stage_input(tracer *tr, const char *note)
{
  tl_trace_stage st = stage_new(tr, "the system A x = d");
  snprintf(st.note, sizeof st.note, "%s", note);
  draw_banded(tr, 1, tr->a, tr->b, tr->c, tr->d);
  emit(tr, &st, 1);
}

/* ------------------------------------------------------------------ */
/* Thomas: the forward sweep row by row, then back substitution         */

static int trace_thomas(tracer *tr, double *x, tl_info *info)
{
  size_t n = tr->n;
  double *cp = tl_alloc(n, sizeof *cp);
  if (!cp)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory");
  stage_input(tr, "Thomas eliminates the sub-diagonal from the top down, then substitutes "
                  "back from the bottom up");
  int all_positive;
  /* Row i of the sweep depends on rows 0..i only, so the sweep over all
   * rows shows the state after row k by keeping rows > k as they were. */
  long bad = tl_thomas_ref_forward_d(n, tr->a, tr->b, tr->c, tr->d, cp, x, &all_positive);
  size_t done = bad >= 0 ? (size_t)bad : n;
  for (size_t k = 0; k < done; k++) {
    char title[96];
    snprintf(title, sizeof title, "forward sweep: row %zu", k);
    tl_trace_stage st = stage_new(tr, title);
    double pivot = k == 0 ? tr->b[0] : tr->b[k] - tr->a[k] * cp[k - 1];
    if (k == 0)
      snprintf(st.note, sizeof st.note, "pivot b[0] = %.4g; row 0 divided by it", pivot);
    else
      snprintf(st.note, sizeof st.note,
               "pivot b[%zu] - a[%zu] cp[%zu] = %.4g; row %zu minus a[%zu] times row %zu, "
               "divided by the pivot",
               k, k, k - 1, pivot, k, k, k - 1);
    AT(tr, k, k) = 1;
    if (k > 0)
      AT(tr, k, k - 1) = 0;
    if (k + 1 < n)
      AT(tr, k, k + 1) = cp[k];
    tr->rhs[k] = x[k];
    add_vec(&st, "cp", -1, 0, k + 1, cp);
    add_vec(&st, "dp", -1, 0, k + 1, x);
    emit(tr, &st, 1);
  }
  if (bad >= 0) {
    free(cp);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "thomas: zero pivot at row %ld", bad);
  }
  bad = tl_thomas_ref_backward_d(n, cp, x);
  free(cp);
  tl_trace_stage st = stage_new(tr, "back substitution");
  snprintf(st.note, sizeof st.note, "x[i] = dp[i] - cp[i] x[i+1], from the last row up");
  memset(tr->dense, 0, n * n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    AT(tr, i, i) = 1;
    tr->rhs[i] = x[i];
  }
  add_vec(&st, "x", -1, 0, n, x);
  emit(tr, &st, 1);
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "thomas: overflow at row %ld", bad);
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* PCR: every row, every level                                          */

static int trace_pcr(tracer *tr, double *x, tl_info *info)
{
  size_t n = tr->n;
  double *w = tl_alloc(n, 8 * sizeof(double));
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory");
  stage_input(tr, "PCR: at each level every row eliminates its two neighbours at distance s, "
                  "and then couples to rows at distance 2s");
  const double *ca = tr->a, *cb = tr->b, *cc = tr->c, *cd = tr->d;
  int k = 0, level = 0, status = TL_OK;
  for (size_t s = 1; s < n; s *= 2, k ^= 1, level++) {
    double *na = w + 4 * k * n, *nb = na + n, *nc = nb + n, *nd = nc + n;
    long bad = tl_pcr_ref_step_d(n, s, ca, cb, cc, cd, na, nb, nc, nd);
    if (bad >= 0) {
      status = TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "pcr: zero pivot at row %ld", bad);
      break;
    }
    ca = na, cb = nb, cc = nc, cd = nd;
    char title[96];
    snprintf(title, sizeof title, "level %d: stride %zu", level, s);
    tl_trace_stage st = stage_new(tr, title);
    snprintf(st.note, sizeof st.note,
             "row i minus a[i]/b[i-%zu] row i-%zu minus c[i]/b[i+%zu] row i+%zu: row i now "
             "couples x[i-%zu], x[i], x[i+%zu]",
             s, s, s, s, 2 * s, 2 * s);
    draw_banded(tr, 2 * s, ca, cb, cc, cd);
    emit(tr, &st, 1);
  }
  if (status == TL_OK) {
    tl_trace_stage st = stage_new(tr, "divide");
    snprintf(st.note, sizeof st.note, "every row is alone: x[i] = d[i] / b[i]");
    for (size_t i = 0; i < n; i++)
      x[i] = cd[i] / cb[i];
    draw_banded(tr, n, ca, cb, cc, x);
    for (size_t i = 0; i < n; i++)
      AT(tr, i, i) = 1;
    add_vec(&st, "x", -1, 0, n, x);
    emit(tr, &st, 1);
  }
  free(w);
  return status;
}

/* ------------------------------------------------------------------ */
/* CR: half the rows per level, then back substitution                  */

/* The working system: row i couples x[i - stride[i]], x[i], x[i + stride[i]]. */
static void draw_strided(tracer *tr, const size_t *stride, const double *a, const double *b,
                         const double *c, const double *d)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (size_t i = 0; i < tr->n; i++) {
    size_t s = stride[i];
    if (i >= s && a[i] != 0)
      AT(tr, i, i - s) = a[i];
    AT(tr, i, i) = b[i];
    if (i + s < tr->n && c[i] != 0)
      AT(tr, i, i + s) = c[i];
    tr->rhs[i] = d[i];
  }
}

static int cr_levels(tracer *tr, double *w, size_t *stride, double *x, tl_info *info)
{
  size_t n = tr->n, h = 1;
  double *wa = w, *wb = w + n, *wc = w + 2 * n, *wd = w + 3 * n;
  for (size_t i = 0; i < n; i++) {
    wa[i] = i > 0 ? tr->a[i] : 0;
    wb[i] = tr->b[i];
    wc[i] = i + 1 < n ? tr->c[i] : 0;
    wd[i] = tr->d[i];
    stride[i] = 1;
  }
  stage_input(tr, "CR: each level keeps every other row of the one before and eliminates the "
                  "rest from it; then the eliminated rows are recovered level by level");
  for (int level = 0; h <= n / 2; h *= 2, level++) {
    long bad = tl_cr_ref_reduce_d(n, h, wa, wb, wc, wd);
    if (bad >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "cr: zero pivot at row %ld", bad);
    for (size_t i = 2 * h - 1; i < n; i += 2 * h)
      stride[i] = 2 * h;
    char title[96];
    snprintf(title, sizeof title, "reduction level %d: rows %zu, %zu, ...", level, 2 * h - 1,
             4 * h - 1);
    tl_trace_stage st = stage_new(tr, title);
    snprintf(st.note, sizeof st.note,
             "row i eliminates x[i-%zu] and x[i+%zu] with its neighbours and now couples "
             "x[i-%zu], x[i], x[i+%zu]; the other rows wait",
             h, h, 2 * h, 2 * h);
    draw_strided(tr, stride, wa, wb, wc, wd);
    emit(tr, &st, 1);
  }
  size_t last = h - 1;
  x[last] = wd[last] / wb[last];
  int tiny = 0;
  for (size_t g = h / 2; g > 0; g /= 2) {
    long bad = tl_cr_ref_back_d(n, g, wa, wb, wc, wd, x, &tiny);
    if (bad >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "cr: overflow at row %ld", bad);
  }
  tl_trace_stage st = stage_new(tr, "back substitution, level by level");
  snprintf(st.note, sizeof st.note,
           "row %zu alone gives x[%zu]; each level below takes its neighbours from the level "
           "above",
           last, last);
  add_vec(&st, "x", -1, 0, n, x);
  emit(tr, &st, 0);
  return TL_OK;
}

/* The levels drawn; the verdict (the class check) from the one-call
 * solve, whose x is the levels' x. */
static int trace_cr(tracer *tr, double *x, tl_info *info)
{
  double *w = tl_alloc(tr->n, 4 * sizeof(double));
  size_t *stride = tl_alloc(tr->n, sizeof *stride);
  int status = (w && stride) ? cr_levels(tr, w, stride, x, info)
                             : TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory");
  free(w);
  free(stride);
  if (status < 0)
    return status;
  return tl_cr_ref_d(tr->n, tr->a, tr->b, tr->c, tr->d, x, info);
}

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

/* The far spike entries PDD drops: w_0 and v_{m-1} of every partition
 * with both neighbours (the bracketed entries of pdd_ref.c's picture). */
static void pdd_drops(tracer *tr, const tl_pdd_part_d *pt, tl_trace_stage *st, double tol)
{
  st->tol = tol;
  for (int p = 1; p + 1 < tr->parts && st->ndrop + 2 <= TL_TRACE_DROPS; p++) {
    size_t m = pt[p].m;
    st->drop_row[st->ndrop] = (long)pt[p].begin; /* w_0: row begin, column end */
    st->drop_col[st->ndrop] = (long)pt[p].end;
    st->drop_val[st->ndrop++] = pt[p].w[0];
    st->drop_row[st->ndrop] = (long)(pt[p].end - 1); /* v_{m-1}: column begin-1 */
    st->drop_col[st->ndrop] = (long)pt[p].begin - 1;
    st->drop_val[st->ndrop++] = pt[p].v[m - 1];
  }
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
  tl_pdd_edge_d *up;
  tl_pdd_iface_d *down;
  size_t *rows;    /* 2P */
  double *rd, *rr; /* (2P)^2 and 2P */
} pdd_trace;

static int pdd_phases(tracer *tr, const pdd_trace *pd, double tol, double *x, tl_info *info)
{
  int P = tr->parts;
  tl_pdd_part_d *pt = pd->pt;
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  stage_input(tr, "PDD: each partition solves its own block; the spikes say how its rows "
                  "depend on the neighbours' boundary unknowns");
#define ROWS(v) ((v) + pt[p].begin)
  for (int p = 0; p < P; p++)
    TL_CALL(tl_pdd_ref_local_d(&pt[p], ROWS(a), ROWS(b), ROWS(c), ROWS(d), ROWS(x), info));
  tl_trace_stage st = stage_new(tr, "phase 1: local solves A_p [y v w] = [d_p, a e_0, c e_m-1]");
  snprintf(st.note, sizeof st.note,
           "no messages; block p multiplied by its inverse leaves 1 on the diagonal and the "
           "spikes v (left column), w (right column)");
  draw_spikes(tr, pt, x);
  pdd_drops(tr, pt, &st, tol);
  for (int p = 0; p < P && st.nvec + 2 <= TL_TRACE_VECS; p++) {
    if (p > 0)
      add_vec(&st, "v", p, pt[p].begin, pt[p].m, pt[p].v);
    if (p + 1 < P)
      add_vec(&st, "w", p, pt[p].begin, pt[p].m, pt[p].w);
  }
  emit(tr, &st, 1);
  for (int p = 1; p < P; p++) {
    tl_pdd_ref_send_first_d(&pt[p], ROWS(a), ROWS(x), &pd->up[p]);
    tl_ledger_message(tr->ledger, "first-row", 0, p, p - 1, TL_PDD_EDGE_WORDS);
  }
  st = stage_new(tr, "phase 2: first rows go up; the reduced system");
  snprintf(st.note, sizeof st.note,
           "the interface rows form a reduced system; PDD drops the far spike entries (*), "
           "which splits it into one 2x2 system per interface");
  pdd_reduced(tr, pt, &st, pd->rows, pd->rd, pd->rr);
  pdd_drops(tr, pt, &st, tol);
  st.ledger_phase[0] = "first-row";
  emit(tr, &st, 0);
  for (int p = 0; p + 1 < P; p++) {
    TL_CALL(tl_pdd_ref_interface_d(&pt[p], ROWS(c), ROWS(x), &pd->up[p + 1], &pd->down[p], info));
    tl_ledger_message(tr->ledger, "interface", 0, p, p + 1, TL_PDD_IFACE_WORDS);
  }
  for (int p = 1; p < P; p++)
    tl_pdd_ref_receive_d(&pt[p], &pd->down[p - 1]);
  st = stage_new(tr, "phases 3-4: 2x2 interface solves, x[end-1] goes down");
  snprintf(st.note, sizeof st.note,
           "partition p solves interface p|p+1, keeps x[end], sends x[end-1]");
  st.ledger_phase[0] = "interface";
  emit(tr, &st, 0);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_pdd_ref_correct_d(&pt[p], ROWS(x), info));
#undef ROWS
  st = stage_new(tr, "phase 5: correction x = y - v x[begin-1] - w x[end]");
  snprintf(st.note, sizeof st.note, "no messages; every partition corrects its own rows");
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (size_t i = 0; i < tr->n; i++) {
    AT(tr, i, i) = 1;
    tr->rhs[i] = x[i];
  }
  add_vec(&st, "x", -1, 0, tr->n, x);
  emit(tr, &st, 1);
  int status = tl_pdd_ref_reduce_d(pt, P, tol, "pdd", tr->ledger, info);
  st = stage_new(tr, "phase 6: the verdict");
  snprintf(st.note, sizeof st.note, "dropped %.3g against tol %.3g, bound %.3g: %s", info->dropped,
           info->tol, info->bound, tl_status_name(status));
  st.ledger_phase[0] = "verdict";
  emit(tr, &st, 0);
  return status;
}

static int trace_pdd(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                     tl_info *info)
{
  size_t P = (size_t)tr->parts;
  int ready = 0, status = TL_OK;
  double tol = tl_param_value(algo, opt, "tol");
  pdd_trace pd = {tl_alloc(P, sizeof *pd.pt),          tl_alloc(P, sizeof *pd.up),
                  tl_alloc(P, sizeof *pd.down),        tl_alloc(2 * P, sizeof *pd.rows),
                  tl_alloc(4 * P * P, sizeof(double)), tl_alloc(2 * P, sizeof(double))};
  if (!pd.pt || !pd.up || !pd.down || !pd.rows || !pd.rd || !pd.rr) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory");
    goto cleanup;
  }
  for (; ready < tr->parts; ready++)
    TL_CHECK(tl_pdd_part_init_d(&pd.pt[ready], tr->n, tr->parts, opt->part_sizes, ready, info));
  status = pdd_phases(tr, &pd, tol, x, info);
cleanup:
  for (int p = 0; p < ready; p++)
    tl_pdd_part_free_d(&pd.pt[p]);
  free(pd.pt);
  free(pd.up);
  free(pd.down);
  free(pd.rows);
  free(pd.rd);
  free(pd.rr);
  return status;
}

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
  tl_trace_stage sg = stage_new(tr, title);
  snprintf(sg.note, sizeof sg.note,
           "A'^T z' = e_I on the %zu-row window around row %zu; x[%zu] = z' . d, truncated to "
           "the %zu terms above and %zu below",
           st->wlen[k], Ik, Ik, st->jl, st->jr);
  add_vec(&sg, "s (kept, above)", k, Ik + 1 - st->jl, st->jl, st->s + (size_t)k * st->jl);
  if (k + 1 < tr->parts)
    add_vec(&sg, "t (kept, below; sent with p + 1's rows)", k + 1, Ik + 1, st->jr,
            st->t + (size_t)(k + 1) * st->jr);
  sg.tol = tol;
  sg.ndrop = 1;
  sg.drop_row[0] = (long)Ik;
  sg.drop_col[0] = -1; /* not a matrix entry: coefficients beyond J */
  sg.drop_val[0] = st->dropped[k];
  emit(tr, &sg, 0);
}

static int its_phases(tracer *tr, tl_its_state *st, const tl_algorithm *algo, const tl_options *opt,
                      double *x, tl_info *info)
{
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  int P = tr->parts;
  double tol = tl_param_value(algo, opt, "tol");
  stage_input(tr, "ITS: x at each interface row is a dot product of a row of A^-1 with d; "
                  "its coefficients decay away from the row, so J terms on each side suffice");
  for (int p = 0; p < P; p++)
    tl_its_rate(st, p, a + st->begin[p], b + st->begin[p], c + st->begin[p]);
  TL_CALL(tl_its_truncation(st, (size_t)tl_param_value(algo, opt, "J"),
                            tl_param_value(algo, opt, "eps_c"), info));
  tl_trace_stage sg = stage_new(tr, "decay rates and the truncation J (eq 18)");
  snprintf(sg.note, sizeof sg.note,
           "largest decay rate %.3g per row: J = %zu terms kept each side, L = %zu rows of "
           "margin in the window",
           st->rho, st->J, st->L);
  add_vec(&sg, "rate per partition", -1, 0, (size_t)P, st->rate);
  emit(tr, &sg, 0);
  for (int k = 0; k < st->nif; k++) {
    tl_its_window(st, k, a, b, c);
    TL_CALL(tl_its_coefficients(st, k, info));
    its_interface_stage(tr, st, k, tol);
  }
  for (int p = 0; p < P; p++)
    tl_its_partial(st, p, d + st->begin[p]);
  tl_its_exchange(st);
  sg = stage_new(tr, "partial sums and the one exchange");
  snprintf(sg.note, sizeof sg.note,
           "a_b = s . (last J of d), a_t = t . (first J of d); partition p sends a_b to p+1 "
           "and a_t to p-1: one word each way per interface");
  add_vec(&sg, "a_b per partition", -1, 0, (size_t)P, st->ab);
  add_vec(&sg, "a_t per partition", -1, 0, (size_t)P, st->at);
  emit(tr, &sg, 0);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_its_local_solve(st, p, a + st->begin[p], b + st->begin[p], c + st->begin[p],
                               d + st->begin[p], x + st->begin[p], info));
  sg = stage_new(tr, "local solves with the interface values known");
  snprintf(sg.note, sizeof sg.note,
           "x[I] = a_b + a_t of each interface; every partition solves its own rows");
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (size_t i = 0; i < tr->n; i++) {
    AT(tr, i, i) = 1;
    tr->rhs[i] = x[i];
  }
  add_vec(&sg, "x", -1, 0, tr->n, x);
  emit(tr, &sg, 1);
  return TL_OK;
}

/* The phases drawn, then the verdict (dropped against tol, the class
 * check) from the one-call solve, whose x is the phases' x. */
static int trace_its(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                     tl_info *info)
{
  tl_its_state st;
  TL_CALL(tl_its_init(&st, tr->n, 0, tr->parts, opt->part_sizes, info));
  int status = its_phases(tr, &st, algo, opt, x, info);
  tl_its_free(&st);
  if (status < 0)
    return status;
  status = tl_its_ref_d(tr->n, 0, tr->a, tr->b, tr->c, tr->d, x, tr->parts, opt->part_sizes,
                        (size_t)tl_param_value(algo, opt, "J"), tl_param_value(algo, opt, "eps_c"),
                        tl_param_value(algo, opt, "tol"), info);
  tl_trace_stage sg = stage_new(tr, "the verdict");
  snprintf(sg.note, sizeof sg.note, "dropped %.3g against tol %.3g, bound %.3g: %s", info->dropped,
           info->tol, info->bound, tl_status_name(status));
  emit(tr, &sg, 0);
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
  stage_input(tr, "DistD2: a modified Thomas pass leaves every row coupled to two unknowns only; "
                  "one exchange with each neighbour, then 2x2 systems across the interfaces");
  for (int p = 0; p < P; p++) {
    TL_CALL(tl_distd2_decouple_d(&dd->plan, p, tr->d, dd->dt, info));
    tl_distd2_pack_d(&dd->plan, p, dd->dt, &dd->edge[p]);
  }
  tl_trace_stage st = stage_new(tr, "decoupled: Algorithms 5 and 6 on every partition");
  snprintf(st.note, sizeof st.note,
           "no messages; row k couples x[k] with the neighbour's boundary unknown and its own "
           "far one (s^a, s^c); the far ones of the boundary rows are dropped (*)");
  draw_decoupled(tr, &dd->plan, dd->dt);
  if (P > 1)
    distd2_drops(tr, &dd->plan, dd->edge, &st, tol);
  emit(tr, &st, 1);
  double dropped = 0, kappa = 1;
  long drop_row = -1;
  for (int p = 0; p < P; p++) { /* p = P-1: the corner (zero when not periodic) */
    int q = (p + 1) % P;
    double dp, kp;
    long row = (long)dd->plan.begin[p + 1] - 1;
    TL_CALL(tl_distd2_interface_d(&dd->edge[p], &dd->edge[q], P == 1, &dd->xe[p], &dd->xs[q], &dp,
                                  &kp, row, info));
    if (drop_row < 0 || dp > dropped) {
      dropped = dp;
      drop_row = row;
    }
    kappa = fmax(kappa, kp);
  }
  st = stage_new(tr, "one exchange, 2x2 interface systems");
  snprintf(st.note, sizeof st.note,
           "partition p sends its first row (3 words) to p-1 and its last row (3 words) to p+1; "
           "each interface solves for x[end-1] and x[end]");
  add_vec(&st, "x first of each partition", -1, 0, (size_t)P, dd->xs);
  add_vec(&st, "x last of each partition", -1, 0, (size_t)P, dd->xe);
  emit(tr, &st, 0);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_distd2_substitute_d(&dd->plan, p, dd->xs[p], dd->xe[p], dd->dt, x, info));
  int status = tl_distd2_verdict(&dd->plan, dropped, drop_row, kappa, tol, info);
  st = stage_new(tr, "substitution (Algorithm 7) and the verdict");
  snprintf(st.note, sizeof st.note, "dropped %.3g against tol %.3g, bound %.3g: %s", info->dropped,
           info->tol, info->bound, tl_status_name(status));
  add_vec(&st, "x", -1, 0, tr->n, x);
  emit(tr, &st, 0);
  return status;
}

static int trace_distd2(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                        tl_info *info)
{
  size_t P = (size_t)tr->parts;
  distd2_trace dd = {.dt = tl_alloc(tr->n, sizeof(double)),
                     .xs = tl_alloc(P, sizeof(double)),
                     .xe = tl_alloc(P, sizeof(double)),
                     .edge = tl_alloc(P, sizeof(tl_distd2_edge))};
  int status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory");
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

/* ------------------------------------------------------------------ */
/* Dispatch                                                             */

static const char *const traced[] = {"thomas", "cr", "pcr", "pdd", "distd2", "its"};

const char *tl_trace_algorithms(void)
{
  return "thomas cr pcr pdd distd2 its";
}

int tl_trace_supported(const char *algo)
{
  for (size_t k = 0; k < sizeof traced / sizeof traced[0]; k++)
    if (algo && strcmp(algo, traced[k]) == 0)
      return 1;
  return 0;
}

int tl_trace_run(const tl_algorithm *algo, const tl_batch *sys, const tl_options *opt,
                 tl_trace_fn fn, void *ctx, tl_ledger *ledger, double *x, tl_info *info)
{
  tl_options defaults;
  tl_options_init(&defaults);
  if (!opt)
    opt = &defaults;
  if (!tl_trace_supported(algo->name))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo",
                   "trace: cannot trace '%s' yet (it traces: %s)", algo->name,
                   tl_trace_algorithms());
  if (sys->dtype != TL_F64 || sys->periodic || sys->nsys != 1)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "system",
                   "trace: one real, non-periodic system only");
  TL_CALL(tl_check_entries(sys, 0, sys->n, info));
  int parts = algo->partitioned ? opt->parts : 1;
  size_t min_rows = algo->min_rows_per_part ? algo->min_rows_per_part : 1;
  if (algo->partitioned && (parts < 1 || (size_t)parts * min_rows > sys->n))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "trace: %s needs at least %zu rows per partition", algo->name, min_rows);
  tracer tr;
  int status = tracer_init(&tr, sys, parts, opt->part_sizes, fn, ctx, ledger);
  if (status == TL_OK) {
    if (!strcmp(algo->name, "thomas"))
      status = trace_thomas(&tr, x, info);
    else if (!strcmp(algo->name, "cr"))
      status = trace_cr(&tr, x, info);
    else if (!strcmp(algo->name, "pcr"))
      status = trace_pcr(&tr, x, info);
    else if (!strcmp(algo->name, "pdd"))
      status = trace_pdd(&tr, algo, opt, x, info);
    else if (!strcmp(algo->name, "distd2"))
      status = trace_distd2(&tr, algo, opt, x, info);
    else
      status = trace_its(&tr, algo, opt, x, info);
  } else {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory for n = %zu", sys->n);
  }
  tracer_free(&tr);
  return status;
}
