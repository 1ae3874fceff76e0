/* reference/rpdd_ref.c -- the reduced parallel diagonally dominant
 * algorithm (RPDD) for plain (non-periodic) systems, simulated with P
 * partitions, in the one-exchange form of paper 003 (ITS) §5.3.
 *
 * Source: paper 003 (ITS) §1 (RPDD's cost (5n/p + 4J + 1) per right-hand
 * side), §2.2-§2.4 (spikes decay; truncation length J; RPDD's column
 * spikes), §3 eq. (18) (J for a Toeplitz matrix), §5.3 (the improved RPDD:
 * every partition solves both of its interface systems, so the two
 * blocking steps of Sun's RPDD become one overlapped exchange); X.-H. Sun
 * (1995). PDD itself: paper 000 (DistD2-TDS) §2.2.2, Algorithm 4; see
 * reference/pdd_ref.c for the derivation, the picture and the symbols.
 *
 * In a strictly dominant matrix the spikes A_p v = a[begin] e_0 and
 * A_p w = c[end-1] e_{m-1} decay geometrically away from the row they start
 * in: |v_k| <= |v_{k-1}| |a_k| / (|b_k| - |c_k|) (the bottom-up elimination
 * multipliers are below 1). RPDD computes only the first J entries of v and
 * the last J of w, from the leading / trailing J x J block of A_p, and
 * treats the rest as 0:
 *
 *   rows of partition p after phase 1 (m = 8, J = 3), columns x[begin-1],
 *   the m own unknowns, x[end]:
 *
 *     x[begin-1]  own block  x[end]
 *   |  v0   | 1 . . . . . . . |  .  |   <- first row: v_0 (w_0 is not kept)
 *   |  v1   | . 1 . . . . . . |  .  |
 *   |  v2   | . . 1 . . . . . |  .  |
 *   |  .    | . . . 1 . . . . |  .  |   <- rows J .. m-J-1: no spike at all,
 *   |  .    | . . . . 1 . . . |  .  |      x = y there, no correction
 *   |  .    | . . . . . 1 . . |  w5 |
 *   |  .    | . . . . . . 1 . |  w6 |
 *   |  .    | . . . . . . . 1 |  w7 |   <- last row: w_{m-1} (v_{m-1} = 0)
 *
 * Each interface is the 2x2 system of PDD (tl_pdd_ref_solve2_d); with
 * truncated spikes the far entries are 0 by construction. The phases:
 *  1. local: y = A_p^{-1} d_p (Thomas, 8m flops), v on rows [0, J), w on
 *     rows [m-J, m) (about 7J flops each).
 *  2. send (y_0, v_0, a[begin]) to p-1 and (y_{m-1}, w_{m-1}, c[end-1]) to
 *     p+1, both at once (3 words each; a[begin], c[end-1] only feed the
 *     error bound).
 *  3. solve the interface with p-1 (for x[begin-1]) and with p+1 (for
 *     x[end]): the same 2x2 system as the neighbour solves, redundantly.
 *  4. correct the first J and last J rows: x = y - v x[begin-1] - w x[end]
 *     (4J flops); the rows in between are already final.
 *  5. diagnostic reduction: the largest dropped entry and the error bound.
 * One synchronisation step instead of PDD's two; per right-hand side about
 * 8m + 4J + 6 flops with the spikes precomputed (paper 003 counts 5m for a
 * pre-factored Thomas).
 *
 * Truncation length: parameter J (J >= 1: exactly J entries of each spike;
 * TL_ERR_ARG when J exceeds a partition). J = 0 (the default) derives it
 * from the tolerance instead, per spike: the smallest k such that the
 * estimate of the first neglected entry
 *   eta(k) = |a_k| |v_{k-1}| / (|b_k| - |c_k|)   (mirrored for w)
 * is <= tol, found during one forward sweep (the last forward value of
 * the k x k block IS its v_{k-1}). For tridiag(1, lambda, 1) and tol = 2 eps
 * this lands within a few rows of paper 003's eq. (18) (measured: 157, 51,
 * 37, 27, 17 for lambda = 2.05, 2.5, 3, 4, 8; eq. (18): 161.5, 52.0, 37.5,
 * 27.4, 17.5), but needs no Toeplitz structure.
 *
 * What is dropped and the bound: exactly (without rounding) the computed x
 * solves A x = d + r with r non-zero only in row begin+J (the value
 * a[begin+J] v_{J-1} x[begin-1]) and row end-1-J (c[end-1-J] w_{m-J} x[end])
 * of every partition; when a spike is complete (J = m) its far entry is
 * dropped from the 2x2 system as in PDD. info->dropped is the largest eta
 * (or complete-spike far entry), info->bound = (max|r_v| + max|r_w|) /
 * (mu ||x||_inf) with mu = min_i (|b_i| - |a_i| - |c_i|) bounds
 * ||x - x_exact||_inf / ||x||_inf for a strictly row-dominant A (Varah
 * 1975). TL_OUTSIDE_DOMAIN when dropped > tol (default 2 eps, which keeps
 * LAPACK's residual ratio of a TL_OK solution below 30) or when A is not
 * strictly diagonally dominant by rows. P = 1 is Thomas; a partition may
 * have a single row.
 */
#include <math.h>
#include <stdlib.h>

#include "tridlab/backend.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_rpdd.h"
#include "tridlab/residual.h"

static int j_too_large(tl_info *info, size_t J, const tl_pdd_part_d *pt)
{
  return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param",
                 "rpdd: J = %zu exceeds the %zu rows of partition %d (J must be at most the "
                 "smallest partition; J = 0 chooses it from tol)",
                 J, pt->m, pt->p);
}

/* ---------------------------------------------------------------- */
/* Truncated spikes                                                    */

/* kmax clamped to 1..m: a spike keeps at least its first entry. */
static size_t clamp_rows(size_t kmax, size_t m)
{
  if (kmax > m)
    kmax = m;
  return kmax ? kmax : 1;
}

/* *eta = num / room, the estimate of the first neglected spike entry (a
 * row that is not dominant, room <= 0, gives no estimate: infinity);
 * whether the spike may stop here (stop_tol < 0: never). */
static int stop_here(double num, double room, double stop_tol, double *eta)
{
  *eta = (num == 0.0) ? 0.0 : room > 0.0 ? num / room : INFINITY;
  return stop_tol >= 0.0 && *eta <= stop_tol;
}

long tl_rpdd_ref_spike_first_d(size_t m, const double *a, const double *b, const double *c,
                               size_t kmax, double stop_tol, double *v, size_t *k, double *drop,
                               double *cp)
{
  kmax = clamp_rows(kmax, m);
  size_t kk = kmax;
  double eta = 0.0;
  /* PDD's forward sweep one row at a time: v holds the forward values
   * g_i, and g_{k-1} is already v_{k-1} of the k x k block. */
  for (size_t i = 0; i < kmax; i++) {
    long bad = tl_pdd_ref_spike_first_fwd_d(m, a, b, c, i, i + 1, v, cp);
    if (bad >= 0)
      return bad;
    /* |v_{i+1}| <= |a_{i+1}| |v_i| / (|b_{i+1}| - |c_{i+1}|) for a dominant
     * block (its last row has no c inside the block). */
    double room = i + 1 < m ? fabs(b[i + 1]) - (i + 2 < m ? fabs(c[i + 1]) : 0.0) : 0.0;
    if (i + 1 < m && stop_here(fabs(a[i + 1]) * fabs(v[i]), room, stop_tol, &eta)) {
      kk = i + 1;
      break;
    }
  }
  tl_pdd_ref_spike_first_back_d(kk, v, cp); /* inside the k x k block */
  for (size_t i = kk; i < m; i++)
    v[i] = 0.0;
  *k = kk;
  *drop = (kk == m) ? fabs(v[m - 1]) : eta;
  return -1;
}

long tl_rpdd_ref_spike_last_d(size_t m, const double *a, const double *b, const double *c,
                              size_t kmax, double stop_tol, double *w, size_t *k, double *drop,
                              double *ap)
{
  kmax = clamp_rows(kmax, m);
  size_t kk = kmax;
  double eta = 0.0;
  /* The mirror image: bottom-up, w holds h_i. */
  for (size_t t = 0; t < kmax; t++) {
    long bad = tl_pdd_ref_spike_last_fwd_d(m, a, b, c, t, t + 1, w, ap);
    if (bad >= 0)
      return bad;
    size_t i = m - 1 - t;
    double room = i > 0 ? fabs(b[i - 1]) - (i > 1 ? fabs(a[i - 1]) : 0.0) : 0.0;
    if (i > 0 && stop_here(fabs(c[i - 1]) * fabs(w[i]), room, stop_tol, &eta)) {
      kk = t + 1;
      break;
    }
  }
  tl_pdd_ref_spike_last_back_d(m, kk, w, ap);
  for (size_t i = 0; i < m - kk; i++)
    w[i] = 0.0;
  *k = kk;
  *drop = (kk == m) ? fabs(w[0]) : eta;
  return -1;
}

/* Bookkeeping for the bound (reference/spike_bound.c): a truncated spike
 * drops its first neglected entry, estimated by eta, from the row next to
 * it inside the partition; a whole one is PDD's case, already recorded. */
static void truncation_bound(tl_pdd_part_d *pt, const double *a, const double *c, double eta_v,
                             double eta_w)
{
  if (pt->p > 0 && pt->kv < pt->m) {
    pt->drop_v = eta_v;
    pt->tail_coef_v = fabs(a[pt->kv]);
  }
  if (pt->p + 1 < pt->parts && pt->kw < pt->m) {
    pt->drop_w = eta_w;
    pt->tail_coef_w = fabs(c[pt->m - 1 - pt->kw]);
  }
}

/* ---------------------------------------------------------------- */
/* Phases                                                              */

int tl_rpdd_ref_local_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                        const double *d, double *x, size_t J, double tol, tl_info *info)
{
  if (J > pt->m)
    return j_too_large(info, J, pt);
  double *scratch;
  int st = tl_pdd_ref_local_y_d(pt, a, b, c, d, x, &scratch, info);
  if (st < 0)
    return st;
  st = tl_rpdd_ref_spikes_d(pt, a, b, c, J, tol, scratch, info);
  free(scratch);
  return st;
}

int tl_rpdd_ref_spikes_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                         size_t J, double tol, double *scratch, tl_info *info)
{
  int st = tl_rpdd_ref_spikes_drops_d(pt, a, b, c, J, tol, scratch, info);
  if (st == TL_OK)
    tl_pdd_bound_margin_d(pt, a, b, c); /* bookkeeping: the local margin */
  return st;
}

int tl_rpdd_ref_spikes_drops_d(tl_pdd_part_d *pt, const double *a, const double *b,
                               const double *c, size_t J, double tol, double *scratch,
                               tl_info *info)
{
  size_t m = pt->m;
  /* J = 0: grow each spike until its estimated tail is below tol. */
  size_t kmax = J ? J : m;
  double stop = J ? -1.0 : tol, eta_v = 0.0, eta_w = 0.0;
  long bad = -1;
  pt->kv = pt->kw = 0;
  if (pt->p > 0)
    bad = tl_rpdd_ref_spike_first_d(m, a, b, c, kmax, stop, pt->v, &pt->kv, &eta_v, scratch);
  if (bad < 0 && pt->p + 1 < pt->parts)
    bad = tl_rpdd_ref_spike_last_d(m, a, b, c, kmax, stop, pt->w, &pt->kw, &eta_w, scratch);
  if (bad >= 0)
    return tl_pdd_ref_spike_breakdown_d(pt, bad, info);
  tl_pdd_bound_drops_d(pt); /* bookkeeping: what phase 3 drops */
  truncation_bound(pt, a, c, eta_v, eta_w);
  return TL_OK;
}

void tl_rpdd_ref_send_d(const tl_pdd_part_d *pt, const double *a, const double *c, const double *x,
                        tl_pdd_edge_d *to_prev, tl_pdd_edge_d *to_next)
{
  if (to_prev && pt->p > 0)
    tl_pdd_ref_send_first_d(pt, a, x, to_prev);
  if (to_next && pt->p + 1 < pt->parts)
    tl_pdd_ref_send_last_d(pt, c, x, to_next);
}

static int iface_breakdown(tl_info *info, int left, size_t row)
{
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)row, "",
                 "rpdd: the 2x2 interface system between partitions %d and %d (rows %zu, %zu) "
                 "is singular or overflows",
                 left, left + 1, row, row + 1);
}

int tl_rpdd_ref_interfaces_d(tl_pdd_part_d *pt, const double *a, const double *c, const double *x,
                             const tl_pdd_edge_d *from_prev, const tl_pdd_edge_d *from_next,
                             tl_info *info)
{
  double xl, xr;
  if (pt->p > 0) { /* interface p-1 | p: we need x[begin-1] */
    tl_pdd_edge_d mine;
    tl_pdd_ref_send_first_d(pt, a, x, &mine);
    if (tl_pdd_ref_solve2_d(from_prev, &mine, &xl, &xr) != 0)
      return iface_breakdown(info, pt->p - 1, pt->begin - 1);
    pt->x_left = xl;
    tl_pdd_bound_from_prev_d(pt, from_prev->coupling);
  }
  if (pt->p + 1 < pt->parts) { /* interface p | p+1: we need x[end] */
    tl_pdd_edge_d mine;
    tl_pdd_ref_send_last_d(pt, c, x, &mine);
    if (tl_pdd_ref_solve2_d(&mine, from_next, &xl, &xr) != 0)
      return iface_breakdown(info, pt->p, pt->end - 1);
    pt->x_right = xr;
    tl_pdd_bound_from_next_d(pt, from_next->coupling);
  }
  return TL_OK;
}

int tl_rpdd_ref_solve_d(size_t n, const double *a, const double *b, const double *c,
                        const double *d, double *x, int parts, const size_t *part_sizes, size_t J,
                        double tol, tl_ledger *ledger, tl_info *info)
{
  int P = parts, status = TL_OK, ready = 0;
  tl_pdd_part_d *pt = tl_alloc((size_t)P, sizeof *pt);
  tl_pdd_edge_d *first = tl_alloc((size_t)P, sizeof *first);
  tl_pdd_edge_d *last = tl_alloc((size_t)P, sizeof *last);
  if (!pt || !first || !last) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "rpdd: no memory for %d partitions", P);
    goto cleanup;
  }
  for (; ready < P; ready++)
    TL_CHECK(tl_pdd_part_init_d(&pt[ready], n, P, part_sizes, ready, info));
  for (int p = 0; p < P; p++) /* check J before any work */
    if (J > pt[p].m) {
      status = j_too_large(info, J, &pt[p]);
      goto cleanup;
    }
#define ROWS(v) ((v) + pt[p].begin)
  for (int p = 0; p < P; p++) /* phase 1: local solves, truncated spikes */
    TL_CHECK(
        tl_rpdd_ref_local_d(&pt[p], ROWS(a), ROWS(b), ROWS(c), ROWS(d), ROWS(x), J, tol, info));
  for (int p = 0; p < P; p++) { /* phase 2: one exchange, both directions */
    tl_rpdd_ref_send_d(&pt[p], ROWS(a), ROWS(c), ROWS(x), &first[p], &last[p]);
    if (p > 0)
      tl_ledger_message(ledger, "edges", 0, p, p - 1, TL_PDD_EDGE_WORDS);
    if (p + 1 < P)
      tl_ledger_message(ledger, "edges", 0, p, p + 1, TL_PDD_EDGE_WORDS);
  }
  for (int p = 0; p < P; p++) /* phase 3: both interfaces, on both sides */
    TL_CHECK(tl_rpdd_ref_interfaces_d(&pt[p], ROWS(a), ROWS(c), ROWS(x),
                                      p > 0 ? &last[p - 1] : NULL, p + 1 < P ? &first[p + 1] : NULL,
                                      info));
  for (int p = 0; p < P; p++) /* phase 4: correct the first and last J rows */
    TL_CHECK(tl_pdd_ref_correct_d(&pt[p], ROWS(x), info));
#undef ROWS
  status = tl_pdd_ref_reduce_d(pt, P, tol, "rpdd", ledger, info); /* phase 5 */
cleanup:
  for (int p = 0; p < ready; p++)
    tl_pdd_part_free_d(&pt[p]);
  free(pt);
  free(first);
  free(last);
  return status;
}

/* ---------------------------------------------------------------- */
/* Registry                                                            */

static const tl_param rpdd_params[] = {
    {"J", TL_PARAM_INT, 0.0, 0.0, 1e9, NULL,
     "spike entries kept at each end (0: the smallest length whose tail estimate is <= tol)"},
    {"tol", TL_PARAM_REAL, 2.0 * TL_EPS, 0.0, 1.0, NULL,
     "largest dropped spike entry accepted as TL_OK (default 2 eps)"},
};

static int rpdd_system(const tl_algorithm *self, const tl_batch *one, void *x,
                       const tl_options *opt, tl_info *info)
{
  size_t J = (size_t)tl_param_value(self, opt, "J");
  double tol = tl_param_value(self, opt, "tol");
  return tl_rpdd_ref_solve_d(one->n, one->a, one->b, one->c, one->d, x, opt->parts, opt->part_sizes,
                             J, tol, opt->ledger, info);
}

/* One exchange: every partition sends an edge (3 words per system) to
 * each neighbour; then PDD's verdict. */
static int rpdd_ledger_model(const tl_algorithm *self, const tl_batch *shape, const tl_options *opt,
                             const tl_info *solved, tl_ledger *out)
{
  (void)self;
  (void)solved;
  size_t nsys = shape->nsys;
  int P = opt->parts;
  tl_ledger_reset(out);
  for (int p = 0; p < P; p++) {
    if (p > 0)
      tl_ledger_message(out, "edges", 0, p, p - 1, TL_PDD_EDGE_WORDS * nsys);
    if (p + 1 < P)
      tl_ledger_message(out, "edges", 0, p, p + 1, TL_PDD_EDGE_WORDS * nsys);
  }
  tl_pdd_ledger_verdict(out, P, nsys);
  return TL_OK;
}

static int rpdd_solve(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                      tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, rpdd_system);
}

const tl_algorithm tl_algo_rpdd_ref = {
    .name = "rpdd",
    .family = "partition",
    .backend = "reference",
    .exact = 0,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .params = rpdd_params,
    .nparams = 2,
    .summary = "reduced PDD: spikes truncated to J entries, both interfaces solved after one "
               "exchange",
    .source = "paper 003 (ITS) §1, §2.4, §3 eq. (18), §5.3; paper 000 (DistD2-TDS) §2.2.2 "
              "Algorithm 4; Sun 1995",
    .solve = rpdd_solve,
    .dropped_means = "the largest estimated first neglected entry eta(J) of a truncated spike "
                     "(relative, as PDD's)",
    .bound_means =
        "||x - x_exact||_inf / ||x||_inf in exact arithmetic, for a strictly row-dominant A",
    .ledger_model = rpdd_ledger_model,
};
