/* reference/spike_bound.c -- the error-bound bookkeeping of PDD and RPDD:
 * what their dropped spike entries leave out, how large an error that
 * can cause, and the verdict (status, info->dropped, info->bound).
 *
 * Apart from the algorithms on purpose: reference/pdd_ref.c and
 * reference/rpdd_ref.c read as the papers' steps and call in here at
 * three points (after the local phase, when a neighbour's message
 * arrives, and once at the end); optimized/mpi/pdd_mpi.c runs the same
 * verdict as two allreduces. docs/algorithms/pdd.md and rpdd.md derive it.
 *
 * Exactly (without rounding), the computed x solves A x = d + r, where r
 * is non-zero only in the row next to each dropped spike entry:
 *  - a whole spike's far entry (PDD, and RPDD when J = m): v_{m-1}^p is
 *    missing from row end, r[end] = a[end] v_{m-1}^p x[begin-1]; w_0^p
 *    from row begin-1, r[begin-1] = c[begin-1] w_0^p x[end]. The coupling
 *    entries a[end], c[begin-1] belong to the neighbours and arrive with
 *    their messages (tl_pdd_bound_from_next_d / _from_prev_d).
 *  - a truncated spike (RPDD, k < m entries kept): the first neglected
 *    entry's row, r[begin+k] = a[begin+k] v_{k-1} x[begin-1] (mirrored for
 *    w); rpdd_ref.c records its estimate eta(k) and coupling.
 * For a strictly row-dominant A, ||A^{-1}||_inf <= 1/mu with
 * mu = min_i (|b_i| - |a_i| - |c_i|) (Varah 1975), hence
 *   ||x - x_exact||_inf / ||x||_inf <= (max|r_v| + max|r_w|) / (mu ||x||_inf)
 * = info->bound. And ||r||_1 <= dropped ||A||_1 ||x||_1 (to first order), so
 * the residual ratio of LAPACK's test grows by at most dropped / eps: the
 * default tol = 2 eps keeps a TL_OK solution below THRESH = 30.
 * info->dropped is the largest dropped entry (spike entries are ratios:
 * the change of x per unit of the neighbour's value, already relative).
 */
#include <math.h>

#include "tridlab/backend.h"
#include "tridlab/part_pdd.h"
#include "tridlab/residual.h"

/* ---------------------------------------------------------------- */
/* Per partition, during the solve                                     */

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

void tl_pdd_bound_drops_d(tl_pdd_part_d *pt)
{
  /* A whole spike's far entry is dropped from the 2x2 system at the other
   * end of the partition: v_{m-1} unless p is the last, w_0 unless p is
   * the first (there is no system there). */
  size_t m = pt->m;
  pt->drop_v = (pt->kv == m && pt->p + 1 < pt->parts) ? fabs(pt->v[m - 1]) : 0.0;
  pt->drop_w = (pt->kw == m && pt->p > 0) ? fabs(pt->w[0]) : 0.0;
  pt->tail_coef_v = pt->tail_coef_w = 0.0;
}

void tl_pdd_bound_margin_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c)
{
  local_margin(pt, a, b, c);
}

void tl_pdd_bound_local_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c)
{
  tl_pdd_bound_drops_d(pt);
  local_margin(pt, a, b, c);
}

void tl_pdd_bound_from_next_d(tl_pdd_part_d *pt, double coupling)
{
  if (pt->kv == pt->m) /* v_{m-1} x[begin-1] is missing from row `end` */
    pt->tail_coef_v = fabs(coupling);
}

void tl_pdd_bound_from_prev_d(tl_pdd_part_d *pt, double coupling)
{
  if (pt->kw == pt->m) /* w_0 x[end] is missing from row begin-1 */
    pt->tail_coef_w = fabs(coupling);
}

/* ---------------------------------------------------------------- */
/* The verdict, over all partitions                                    */

/* The reduction over the partitions, in two rounds (two allreduces under
 * MPI, optimized/mpi/pdd_mpi.c): each partition contributes its numbers
 * (tl_pdd_ref_verdict_part0_d, then _part1_d with the global margin and
 * |x|), combined by "the largest, on a tie the smallest row" -- an order
 * that does not depend on who combines first -- and the verdict is read
 * off the combined numbers (tl_pdd_ref_verdict_d). */
void tl_pdd_verdict_init_d(tl_pdd_verdict_d *v)
{
  *v = (tl_pdd_verdict_d){.dropped = 0.0,
                          .drop_row = -1,
                          .neg_mu = -INFINITY,
                          .mu_row = -1,
                          .xmax = 0.0,
                          .rv = 0.0,
                          .rw = 0.0};
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
  tl_pdd_ledger_verdict(ledger, P, 1);
  return tl_pdd_ref_verdict_d(&v, tol, name, info);
}

/* The verdict's two reductions of nsys systems, in a ledger (may be
 * NULL): PDD's and RPDD's ledger models and tl_pdd_ref_reduce_d. */
void tl_pdd_ledger_verdict(tl_ledger *out, int P, size_t nsys)
{
  tl_ledger_collective_all(out, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1,
                           TL_PDD_VERDICT_WORDS0 * nsys, TL_PDD_VERDICT_WORDS0 * nsys);
  tl_ledger_collective_all(out, "verdict", 1, TL_LEDGER_ALLREDUCE, P, -1,
                           TL_PDD_VERDICT_WORDS1 * nsys, TL_PDD_VERDICT_WORDS1 * nsys);
}
