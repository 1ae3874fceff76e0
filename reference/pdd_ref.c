/* reference/pdd_ref.c -- Sun's parallel diagonally dominant algorithm (PDD)
 * for plain (non-periodic) systems, simulated with P partitions.
 *
 * Source: paper 000 (DistD2-TDS) §2.2.2, Algorithm 4 and Figure 5; the
 * spike formulation as paper 003 (ITS) §2.2 and §2.4 describe it (column
 * spikes, "the transposed version" of ITS); X.-H. Sun (1995).
 * Symbols: paper 000 writes A_inv for the inverse of the local block
 * A[1:n, 1:n] and overwrites a_i, c_i with A_inv[i, n] c_n and
 * A_inv[i, 1] c_1 (its 1-based local rows); those columns are our spikes
 * w and v below (paper 000's a_i <-> our w_i, its c_i <-> our v_i). Paper 003
 * writes [l, d, r] for our [a, b, c] and m for the partition size.
 *
 * Partition p owns rows [begin, end), m rows; A_p is its diagonal block
 * (without the coupling entries alpha = a[begin] and gamma = c[end-1]).
 * The rows of partition p read exactly
 *
 *   A_p x_p = d_p - alpha x[begin-1] e_0 - gamma x[end] e_{m-1},
 *
 * so with the local solution y and the two spikes v (left) and w (right)
 *
 *   A_p y = d_p,   A_p v = alpha e_0,   A_p w = gamma e_{m-1}        (1)
 *
 * the exact solution is x_p = y - v x[begin-1] - w x[end]             (2)
 *
 * Phase 1 (local, no communication): solve (1). Multiplying each block row
 * by A_p^{-1} leaves identity blocks and two spike columns (P = 3, m = 3):
 *
 *       A x = d                        A_p^{-1} applied (phase 1)
 *   | b c . . . . . . . |           | 1 . . w . . . . . |  p = 0: spike w in
 *   | a b c . . . . . . |           | . 1 . w . . . . . |         column 3
 *   | . a b c . . . . . |           | . . 1 w . . . . . |
 *   | . . a b c . . . . |           | . . v 1 . . w . . |  p = 1: v in column 2,
 *   | . . . a b c . . . |    ->     | . . v . 1 . w . . |         w in column 6
 *   | . . . . a b c . . |           | . . v . . 1 w . . |
 *   | . . . . . a b c . |           | . . . . . v 1 . . |  p = 2: v in column 5
 *   | . . . . . . a b c |           | . . . . . v . 1 . |
 *   | . . . . . . . a b |           | . . . . . v . . 1 |
 *
 * The first and last rows of every partition form a reduced system in the
 * interface unknowns (rows 2, 3, 5, 6 here); it is penta-diagonal:
 *
 *   x2 + w2 x3               = y2
 *   v3 x2 + x3 + [w3] x6     = y3      [w3] = w_0 of p = 1: the far entry
 *   [v5] x2 + x5 + w5 x6     = y5      [v5] = v_{m-1} of p = 1: the far entry
 *   v6 x5 + x6               = y6
 *
 * PDD DROPS the far spike entries (w_0 and v_{m-1} of every partition that
 * has both neighbours, in brackets): in a diagonally dominant matrix the
 * spikes decay away from the coupling row, and the reduced system falls
 * apart into independent 2x2 systems, one per interface (phase 3):
 *
 *   | 1        w_{m-1}^p | | x[end-1] |   | y_{m-1}^p |
 *   | v_0^{p+1}  1       | | x[end]   | = | y_0^{p+1} |                  (3)
 *
 * Phase 2: p+1 sends (y_0, v_0) of its first row to p (one word more, its
 * coupling a[begin], only for the error bound). Phase 3: p solves (3) and
 * keeps x[end]. Phase 4: p sends x[end-1] to p+1 (and c[end-1]). Phase 5:
 * every partition corrects by (2): x = y - v x[begin-1] - w x[end]. Phase 6
 * (diagnostic reduction): the largest dropped entry and the error bound.
 * Sun's original order: two one-way messages in sequence per interface.
 *
 * What is dropped, and the bound (docs/algorithms/pdd.md derives them):
 *  - info->dropped = max over partitions with both neighbours of |w_0^p|
 *    and |v_{m-1}^p|. Spike entries are ratios (x change per unit of the
 *    neighbour's value), so this is already relative.
 *  - Exactly (without rounding), the computed x solves A x = d + r, where r
 *    is non-zero only in the rows next to a dropped entry:
 *    r[end] = a[end] v_{m-1}^p x[begin-1], r[begin-1] = c[begin-1] w_0^p x[end].
 *    For a strictly row-dominant A, ||A^{-1}||_inf <= 1/mu with
 *    mu = min_i (|b_i| - |a_i| - |c_i|) (Varah 1975), hence
 *      ||x - x_exact||_inf / ||x||_inf <= (max|r_v| + max|r_w|) / (mu ||x||_inf)
 *    = info->bound. And ||r||_1 <= dropped ||A||_1 ||x||_1 (to first order),
 *    so the residual ratio of LAPACK's test grows by at most dropped / eps:
 *    the default tol = 2 eps keeps a TL_OK solution below THRESH = 30.
 *  - TL_OUTSIDE_DOMAIN when dropped > tol, or when A is not strictly
 *    diagonally dominant by rows (the decay, and the 2x2 solves without
 *    pivoting, are only guaranteed there).
 * P = 1 is Thomas's algorithm (no spikes); P = 2 drops nothing (the
 * reduced system is one 2x2 system) and is exact for any m.
 *
 * Cost per partition of m rows: Thomas for y (8m flops); each spike is a
 * separate elimination of the same block (about 7m flops each: the pivots
 * are recomputed rather than shared, to keep the spike routine one piece
 * that RPDD reuses); correction 4m: about 26m flops. Words: reads a, b, c, d
 * and writes x (5m), 3m scratch. Messages: 2 per interface, 3 words
 * (y_0, v_0, a[begin]) up and 2 words (x[end-1], c[end-1]) down, in 2
 * dependent steps; plus one reduction of 4 numbers for the report.
 * The smallest partition is one row (its first and last rows coincide;
 * the algebra of (1)-(3) still holds).
 */
#include <math.h>
#include <stdlib.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_pdd.h"
#include "tridlab/verify.h"

/* ---------------------------------------------------------------- */
/* Partition state                                                    */

int tl_pdd_part_init_d(tl_pdd_part_d *pt, size_t n, int parts, const size_t *part_sizes, int p,
                       tl_info *info)
{
  *pt = (tl_pdd_part_d){0};
  pt->p = p;
  pt->parts = parts;
  pt->n = n;
  tl_partition_bounds(n, parts, part_sizes, p, &pt->begin, &pt->end);
  pt->m = pt->end - pt->begin;
  pt->margin_row = -1;
  pt->v = tl_alloc(pt->m, sizeof(double));
  pt->w = tl_alloc(pt->m, sizeof(double));
  if (!pt->v || !pt->w) {
    tl_pdd_part_free_d(pt);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for the spikes of partition %d",
                   p);
  }
  return TL_OK;
}

void tl_pdd_part_free_d(tl_pdd_part_d *pt)
{
  free(pt->v);
  free(pt->w);
  pt->v = pt->w = NULL;
}

/* ---------------------------------------------------------------- */
/* Spikes                                                              */

/* eta = num / room, the estimate of the first neglected spike entry; a
 * row that is not dominant (room <= 0) gives no estimate. */
static double tail_estimate(double num, double room)
{
  if (num == 0.0)
    return 0.0;
  return room > 0.0 ? num / room : INFINITY;
}

long tl_pdd_ref_spike_first_d(size_t m, const double *a, const double *b, const double *c,
                              size_t kmax, double stop_tol, double *v, size_t *k, double *drop,
                              double *cp)
{
  if (kmax > m)
    kmax = m;
  if (kmax == 0)
    kmax = 1;
  size_t kk = kmax;
  double eta = 0.0;
  /* Top-down elimination of T_kmax with right-hand side a[0] e_0: v holds
   * the forward values g_i; g_{k-1} is already v_{k-1} of the k x k block. */
  for (size_t i = 0; i < kmax; i++) {
    double piv = (i == 0) ? b[0] : b[i] - a[i] * cp[i - 1];
    if (piv == 0.0 || !isfinite(piv))
      return (long)i;
    cp[i] = (i + 1 < m) ? c[i] / piv : 0.0;
    v[i] = (i == 0) ? a[0] / piv : -a[i] * v[i - 1] / piv;
    if (!isfinite(v[i]))
      return (long)i;
    if (i + 1 < m) {
      /* |v_{i+1}| <= |a_{i+1}| |v_i| / (|b_{i+1}| - |c_{i+1}|) for a dominant
       * block (its last row has no c inside the block). */
      double room = fabs(b[i + 1]) - (i + 2 < m ? fabs(c[i + 1]) : 0.0);
      eta = tail_estimate(fabs(a[i + 1]) * fabs(v[i]), room);
      if (stop_tol >= 0.0 && eta <= stop_tol) {
        kk = i + 1;
        break;
      }
    }
  }
  /* Back substitution inside the k x k block; zero beyond it. */
  for (size_t i = kk - 1; i-- > 0;)
    v[i] -= cp[i] * v[i + 1];
  for (size_t i = kk; i < m; i++)
    v[i] = 0.0;
  *k = kk;
  *drop = (kk == m) ? fabs(v[m - 1]) : eta;
  return -1;
}

long tl_pdd_ref_spike_last_d(size_t m, const double *a, const double *b, const double *c,
                             size_t kmax, double stop_tol, double *w, size_t *k, double *drop,
                             double *ap)
{
  if (kmax > m)
    kmax = m;
  if (kmax == 0)
    kmax = 1;
  size_t kk = kmax;
  double eta = 0.0;
  /* Bottom-up elimination of the trailing block, right-hand side c[m-1]
   * e_last: w holds h_i, and w_i = h_i - ap_i w_{i-1}. */
  for (size_t t = 0; t < kmax; t++) {
    size_t i = m - 1 - t;
    double piv = (t == 0) ? b[i] : b[i] - c[i] * ap[i + 1];
    if (piv == 0.0 || !isfinite(piv))
      return (long)i;
    ap[i] = (i > 0) ? a[i] / piv : 0.0;
    w[i] = (t == 0) ? c[m - 1] / piv : -c[i] * w[i + 1] / piv;
    if (!isfinite(w[i]))
      return (long)i;
    if (i > 0) {
      double room = fabs(b[i - 1]) - (i > 1 ? fabs(a[i - 1]) : 0.0);
      eta = tail_estimate(fabs(c[i - 1]) * fabs(w[i]), room);
      if (stop_tol >= 0.0 && eta <= stop_tol) {
        kk = t + 1;
        break;
      }
    }
  }
  size_t top = m - kk;
  for (size_t i = top + 1; i < m; i++)
    w[i] -= ap[i] * w[i - 1];
  for (size_t i = 0; i < top; i++)
    w[i] = 0.0;
  *k = kk;
  *drop = (kk == m) ? fabs(w[0]) : eta;
  return -1;
}

/* ---------------------------------------------------------------- */
/* Phase 1: local solution and spikes                                  */

/* The smallest dominance margin |b| - (|a| + |c|) of the partition's rows
 * (the couplings count; the matrix corners do not). */
static void local_margin(tl_pdd_part_d *pt, const double *a, const double *b, const double *c)
{
  pt->margin = INFINITY;
  for (size_t k = 0; k < pt->m; k++) {
    double left = (k > 0 || pt->p > 0) ? fabs(a[k]) : 0.0;
    double right = (k + 1 < pt->m || pt->p + 1 < pt->parts) ? fabs(c[k]) : 0.0;
    double mg = fabs(b[k]) - (left + right);
    if (!(mg >= pt->margin)) {
      pt->margin = isnan(mg) ? -INFINITY : mg;
      pt->margin_row = (long)(pt->begin + k);
    }
  }
}

static int spike_breakdown(tl_info *info, const tl_pdd_part_d *pt, long row)
{
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)pt->begin + row, "",
                 "pdd: zero or non-finite pivot at row %ld in a spike of partition %d "
                 "(elimination without pivoting breaks down)",
                 (long)pt->begin + row, pt->p);
}

int tl_pdd_ref_local_spikes_d(tl_pdd_part_d *pt, const double *a, const double *b,
                              const double *c, const double *d, double *x, size_t jmax,
                              double stop_tol, tl_info *info)
{
  size_t o = pt->begin, m = pt->m;
  const double *la = a, *lb = b, *lc = c;
  /* y = A_p^{-1} d_p: Thomas never reads the couplings la[0], lc[m-1]. */
  tl_info ti;
  tl_info_clear(&ti);
  int st = tl_thomas_ref_d(m, la, lb, lc, d, x, &ti);
  if (st == TL_ERR_BREAKDOWN)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)o + ti.row, "",
                   "pdd: zero or non-finite pivot at row %ld in the local solve of partition %d "
                   "(elimination without pivoting breaks down)",
                   (long)o + ti.row, pt->p);
  if (st < 0)
    return TL_FAIL(info, st, -1, -1, "", "pdd: local solve of partition %d failed: %s", pt->p,
                   ti.msg);

  double *scratch = tl_alloc(m, sizeof(double));
  if (!scratch)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for %zu scratch entries", m);
  int last = pt->p + 1 == pt->parts;
  pt->kv = pt->kw = 0;
  pt->drop_v = pt->drop_w = pt->tail_coef_v = pt->tail_coef_w = 0.0;
  if (pt->p > 0) { /* left spike from alpha = a[begin] */
    double drop;
    long bad = tl_pdd_ref_spike_first_d(m, la, lb, lc, jmax, stop_tol, pt->v, &pt->kv, &drop,
                                        scratch);
    if (bad >= 0) {
      free(scratch);
      return spike_breakdown(info, pt, bad);
    }
    if (pt->kv < m) {
      pt->drop_v = drop;
      pt->tail_coef_v = fabs(la[pt->kv]);
    } else {
      /* v_{m-1} is dropped from the right interface's 2x2 system only. */
      pt->drop_v = last ? 0.0 : drop;
    }
  }
  if (!last) { /* right spike from gamma = c[end-1] */
    double drop;
    long bad = tl_pdd_ref_spike_last_d(m, la, lb, lc, jmax, stop_tol, pt->w, &pt->kw, &drop,
                                       scratch);
    if (bad >= 0) {
      free(scratch);
      return spike_breakdown(info, pt, bad);
    }
    if (pt->kw < m) {
      pt->drop_w = drop;
      pt->tail_coef_w = fabs(lc[m - 1 - pt->kw]);
    } else {
      pt->drop_w = pt->p > 0 ? drop : 0.0;
    }
  }
  free(scratch);
  local_margin(pt, a, b, c);
  return TL_OK;
}

int tl_pdd_ref_local_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                       const double *d, double *x, tl_info *info)
{
  /* PDD computes the whole spikes: k = m, never stopped early. */
  return tl_pdd_ref_local_spikes_d(pt, a, b, c, d, x, pt->m, -1.0, info);
}

/* ---------------------------------------------------------------- */
/* Messages and the 2x2 interface systems                             */

void tl_pdd_ref_send_first_d(const tl_pdd_part_d *pt, const double *a, const double *x,
                             tl_pdd_edge_d *to_prev)
{
  to_prev->y = x[0];
  to_prev->s = pt->v[0];
  to_prev->coupling = a[0];
}

void tl_pdd_ref_send_last_d(const tl_pdd_part_d *pt, const double *c, const double *x,
                            tl_pdd_edge_d *to_next)
{
  to_next->y = x[pt->m - 1];
  to_next->s = pt->w[pt->m - 1];
  to_next->coupling = c[pt->m - 1];
}

int tl_pdd_ref_solve2_d(const tl_pdd_edge_d *left_last, const tl_pdd_edge_d *right_first,
                        double *x_last, double *x_first)
{
  /* Elimination on [1 w; v 1] with the unit diagonal as pivot (|w|, |v| < 1
   * in a dominant matrix), then back substitution. Not Cramer's rule: it
   * leaves a residual of order eps |x| even when 1 - v w is tiny. */
  double det = 1.0 - right_first->s * left_last->s;
  if (det == 0.0 || !isfinite(det))
    return -1;
  *x_first = (right_first->y - right_first->s * left_last->y) / det;
  *x_last = left_last->y - left_last->s * *x_first;
  return (isfinite(*x_last) && isfinite(*x_first)) ? 0 : -1;
}

int tl_pdd_ref_interface_d(tl_pdd_part_d *pt, const double *c, const double *x,
                           const tl_pdd_edge_d *from_next, tl_pdd_iface_d *to_next,
                           tl_info *info)
{
  tl_pdd_edge_d mine;
  tl_pdd_ref_send_last_d(pt, c, x, &mine);
  double xl, xr;
  if (tl_pdd_ref_solve2_d(&mine, from_next, &xl, &xr) != 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)pt->end - 1, "",
                   "pdd: the 2x2 interface system between partitions %d and %d (rows %zu, %zu) "
                   "is singular or overflows",
                   pt->p, pt->p + 1, pt->end - 1, pt->end);
  pt->x_right = xr;
  if (pt->kv == pt->m) /* v_{m-1} x[begin-1] is missing from row `end` */
    pt->tail_coef_v = fabs(from_next->coupling);
  to_next->x_last = xl;
  to_next->coupling = mine.coupling;
  return TL_OK;
}

void tl_pdd_ref_receive_d(tl_pdd_part_d *pt, const tl_pdd_iface_d *from_prev)
{
  pt->x_left = from_prev->x_last;
  if (pt->kw == pt->m) /* w_0 x[end] is missing from row begin-1 */
    pt->tail_coef_w = fabs(from_prev->coupling);
}

/* ---------------------------------------------------------------- */
/* Correction and report                                               */

int tl_pdd_ref_correct_d(tl_pdd_part_d *pt, double *x, tl_info *info)
{
  size_t o = pt->begin, m = pt->m;
  pt->xmax = 0.0;
  for (size_t k = 0; k < m; k++) {
    double s = x[k];
    if (k < pt->kv)
      s -= pt->v[k] * pt->x_left;
    if (k + pt->kw >= m)
      s -= pt->w[k] * pt->x_right;
    if (!isfinite(s))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(o + k), "",
                     "pdd: overflow in the correction at row %zu", o + k);
    x[k] = s;
    if (fabs(s) > pt->xmax)
      pt->xmax = fabs(s);
  }
  return TL_OK;
}

/* The reduction over the partitions, in two rounds (two allreduces under
 * MPI, optimized/mpi/pdd_mpi.c): each partition contributes its numbers
 * (tl_pdd_ref_verdict_part0_d, then _part1_d with the global margin and
 * |x|), combined by "the largest, on a tie the smallest row" -- an order
 * that does not depend on who combines first -- and the verdict is read
 * off the combined numbers (tl_pdd_ref_verdict_d). */
void tl_pdd_verdict_init_d(tl_pdd_verdict_d *v)
{
  *v = (tl_pdd_verdict_d){.dropped = 0.0, .drop_row = -1, .neg_mu = -INFINITY, .mu_row = -1,
                          .xmax = 0.0, .rv = 0.0, .rw = 0.0};
}

void tl_pdd_ref_verdict_part0_d(const tl_pdd_part_d *pt, tl_pdd_verdict_d *v)
{
  /* The row next to each dropped entry: where the residual lands. */
  long vrow = (long)(pt->begin + pt->kv - (pt->kv == pt->m ? 1 : 0));
  long wrow = (long)(pt->end - 1 - pt->kw + (pt->kw == pt->m ? 1 : 0));
  tl_pair_max(&v->dropped, &v->drop_row, pt->drop_v, vrow);
  tl_pair_max(&v->dropped, &v->drop_row, pt->drop_w, wrow);
  tl_pair_max(&v->neg_mu, &v->mu_row, -pt->margin, pt->margin_row);
  long none = -1;
  tl_pair_max(&v->xmax, &none, pt->xmax, -1);
}

/* ||r||_inf: each row receives at most one v-tail and one w-tail term.
 * Divide before multiplying so scaled matrices neither under- nor
 * overflow. Needs the global margin and |x| of round 0. */
void tl_pdd_ref_verdict_part1_d(const tl_pdd_part_d *pt, tl_pdd_verdict_d *v)
{
  double mu = -v->neg_mu, xmax = v->xmax;
  if (!(mu > 0.0 && xmax > 0.0))
    return;
  if (pt->kv > 0) {
    double t = pt->tail_coef_v / mu * fabs(pt->v[pt->kv - 1]) * (fabs(pt->x_left) / xmax);
    v->rv = t > v->rv ? t : v->rv;
  }
  if (pt->kw > 0) {
    double t = pt->tail_coef_w / mu * fabs(pt->w[pt->m - pt->kw]) * (fabs(pt->x_right) / xmax);
    v->rw = t > v->rw ? t : v->rw;
  }
}

int tl_pdd_ref_verdict_d(const tl_pdd_verdict_d *v, double tol, const char *name, tl_info *info)
{
  double mu = -v->neg_mu, dropped = v->dropped;
  double bound = (mu > 0.0 && v->xmax > 0.0) ? v->rv + v->rw : 0.0;
  long mrow = v->mu_row, drow = v->drop_row;
  if (info) {
    info->dropped = dropped;
    info->tol = tol;
    info->bound = bound;
  }
  if (!(mu > 0.0))
    return TL_WARN(info, mrow,
                   "%s: the matrix is not strictly diagonally dominant by rows (row %ld); the "
                   "spikes need not decay and dropping their far entries has no guarantee",
                   name, mrow);
  if (!(dropped <= tol))
    return TL_WARN(info, drow,
                   "%s: dropped spike entries up to %.3g (near row %ld) exceed tol = %.3g; "
                   "use fewer, larger partitions (error bound %.3g)",
                   name, dropped, drow, tol, bound);
  return TL_OK;
}

int tl_pdd_ref_reduce_d(const tl_pdd_part_d *parts, int P, double tol, const char *name,
                        tl_ledger *ledger, tl_info *info)
{
  tl_pdd_verdict_d v;
  tl_pdd_verdict_init_d(&v);
  for (int p = 0; p < P; p++)
    tl_pdd_ref_verdict_part0_d(&parts[p], &v);
  for (int p = 0; p < P; p++)
    tl_pdd_ref_verdict_part1_d(&parts[p], &v);
  /* Recorded as the two allreduces they are under MPI; the first also
   * carries every partition's status. */
  tl_ledger_collective_all(ledger, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1, TL_PDD_VERDICT_WORDS0,
                           TL_PDD_VERDICT_WORDS0);
  tl_ledger_collective_all(ledger, "verdict", 1, TL_LEDGER_ALLREDUCE, P, -1, TL_PDD_VERDICT_WORDS1,
                           TL_PDD_VERDICT_WORDS1);
  return tl_pdd_ref_verdict_d(&v, tol, name, info);
}

/* ---------------------------------------------------------------- */
/* The one-call solve                                                  */

int tl_pdd_ref_solve_d(size_t n, const double *a, const double *b, const double *c,
                       const double *d, double *x, int parts, const size_t *part_sizes,
                       double tol, tl_ledger *ledger, tl_info *info)
{
  int P = parts, status = TL_OK, ready = 0;
  tl_pdd_part_d *pt = tl_alloc((size_t)P, sizeof *pt);
  tl_pdd_edge_d *up = tl_alloc((size_t)P, sizeof *up);
  tl_pdd_iface_d *down = tl_alloc((size_t)P, sizeof *down);
  if (!pt || !up || !down) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for %d partitions", P);
    goto cleanup;
  }
  for (; ready < P; ready++)
    TL_CHECK(tl_pdd_part_init_d(&pt[ready], n, P, part_sizes, ready, info));
  /* Each partition works on its own rows: pointers to its first row. */
#define ROWS(v) ((v) + pt[p].begin)
  for (int p = 0; p < P; p++) /* phase 1: local solves */
    TL_CHECK(tl_pdd_ref_local_d(&pt[p], ROWS(a), ROWS(b), ROWS(c), ROWS(d), ROWS(x), info));
  for (int p = 1; p < P; p++) { /* phase 2: first rows go up to p-1 */
    tl_pdd_ref_send_first_d(&pt[p], ROWS(a), ROWS(x), &up[p]);
    tl_ledger_message(ledger, "first-row", 0, p, p - 1, TL_PDD_EDGE_WORDS);
  }
  for (int p = 0; p + 1 < P; p++) { /* phase 3: p solves interface p|p+1 */
    TL_CHECK(tl_pdd_ref_interface_d(&pt[p], ROWS(c), ROWS(x), &up[p + 1], &down[p], info));
    tl_ledger_message(ledger, "interface", 0, p, p + 1, TL_PDD_IFACE_WORDS);
  }
  for (int p = 1; p < P; p++) /* phase 4: x[end-1] arrives from p-1 */
    tl_pdd_ref_receive_d(&pt[p], &down[p - 1]);
  for (int p = 0; p < P; p++) /* phase 5: correction */
    TL_CHECK(tl_pdd_ref_correct_d(&pt[p], ROWS(x), info));
#undef ROWS
  status = tl_pdd_ref_reduce_d(pt, P, tol, "pdd", ledger, info); /* phase 6 */
cleanup:
  for (int p = 0; p < ready; p++)
    tl_pdd_part_free_d(&pt[p]);
  free(pt);
  free(up);
  free(down);
  return status;
}

/* The messages of one solve of nsys systems (docs/algorithms/pdd.md):
 * every partition but the first sends its first row up (3 words per
 * system), every partition but the last sends the solved interface down
 * (2 words per system), and all take part in the two reductions of the
 * verdict. Shared with RPDD, whose exchange differs. */
void tl_pdd_ledger_verdict(tl_ledger *out, int P, size_t nsys)
{
  tl_ledger_collective_all(out, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1,
                           TL_PDD_VERDICT_WORDS0 * nsys, TL_PDD_VERDICT_WORDS0 * nsys);
  tl_ledger_collective_all(out, "verdict", 1, TL_LEDGER_ALLREDUCE, P, -1,
                           TL_PDD_VERDICT_WORDS1 * nsys, TL_PDD_VERDICT_WORDS1 * nsys);
}

static int pdd_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                                const tl_options *opt, const tl_info *solved, tl_ledger *out)
{
  (void)self;
  (void)solved;
  size_t nsys = shape->nsys;
  int P = opt->parts;
  tl_ledger_reset(out);
  for (int p = 1; p < P; p++)
    tl_ledger_message(out, "first-row", 0, p, p - 1, TL_PDD_EDGE_WORDS * nsys);
  for (int p = 0; p + 1 < P; p++)
    tl_ledger_message(out, "interface", 0, p, p + 1, TL_PDD_IFACE_WORDS * nsys);
  tl_pdd_ledger_verdict(out, P, nsys);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Registry                                                            */

static const tl_param pdd_params[] = {
    {"tol", TL_PARAM_REAL, 2.0 * TL_EPS, 0.0, 1.0, NULL,
     "largest dropped far spike entry accepted as TL_OK (default 2 eps)"},
};

static int pdd_system(const tl_algorithm *self, const tl_batch *one, void *x,
                      const tl_options *opt, tl_info *info)
{
  double tol = tl_param_value(self, opt, "tol");
  return tl_pdd_ref_solve_d(one->n, one->a, one->b, one->c, one->d, x, opt->parts,
                            opt->part_sizes, tol, opt->ledger, info);
}

static int pdd_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                     const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, pdd_system);
}

const tl_algorithm tl_algo_pdd_ref = {
    .name = "pdd",
    .family = "partition",
    .backend = "reference",
    .exact = 0,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .params = pdd_params,
    .nparams = 1,
    .summary = "Sun's PDD: local solves + spikes, far spike entries dropped, 2x2 interface "
               "systems",
    .source = "paper 000 (DistD2-TDS) §2.2.2 Algorithm 4; paper 003 (ITS) §2.2, §2.4; Sun 1995",
    .solve = pdd_solve,
    .dropped_means = "the largest far spike entry neglected, |w_0| or |v_m-1| of an inner partition (already relative: change of x per unit of the neighbour's x)",
    .bound_means = "||x - x_exact||_inf / ||x||_inf in exact arithmetic, for a strictly row-dominant A",
    .ledger_model = pdd_ledger_model,
};
