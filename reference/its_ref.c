/* reference/its_ref.c -- the interface-splitting algorithm (ITS).
 *
 * Source: paper 003 (ITS), §2.2 eqs 9-15, §2.3 eqs 16-17 and Algorithm 1,
 * §3 eq 18 (Bondeli's estimate of J) and Table 1 (cost), §4 Proposition 1
 * and Theorem 1 (eq 24, the error bound). Approximate: it truncates the
 * rows of A^{-1} that give the interface values.
 *
 * Symbols. Paper 003 writes A = [l_i, d_i, r_i], A x = b, 1-based: its l,
 * d, r, b are our a, b, c, d. Its p processors of m rows are our P
 * partitions of m_k rows (unequal allowed); its interface row km is our
 * I_k = end_k - 1 (0-based), the last row of partition k. z^k = row I_k
 * of C = A^{-1} (eq 11: A^T z^k = g_km); s^k, u = t^{k+1}, a_b^k, a_t^k,
 * v~^k and N^k are as in Algorithm 1. J, L, eps_c as in the paper.
 *
 * What it does. x_{I_k} = z^k . d exactly; z^k decays away from I_k
 * (A dominant), so ITS keeps 2J terms: J from partition k (s^k, rows
 * I_k-J+1..I_k) and J from partition k+1 (t^{k+1}, rows I_k+1..I_k+J).
 * z' is computed from the 2(J+L)-row window of A around I_k (§2.3). Each
 * partition then knows both its interface values and solves N^k, its
 * diagonal block with the last row replaced by the identity (eq 9), the
 * value above moved into the first right-hand side entry (eq 12-13):
 *
 *   A, P = 2:             Q = diag(N^1, N^2)     eq 15: v = T^{-1} d
 *   | x x         |       | x x         |        v_i = d_i, except
 *   | x x x       |       | x x x       |        v_{I_0} = x~_{I_0} (= z^0 . d)
 *   |   x x x     |  ->   |   x x x     |        v_{I_0+1} = d - a x~_{I_0}
 *   |     x x x   |       |       1     |  <- I_0 (identity row)
 *   |       x x x |       |         x x |  <- first row: a moved to v
 *   |         x x |       |         x x |
 *
 * Phases (tridlab/part_its.h): rate and truncation (choose J, L), window
 * (copy 2(J+L) coefficient rows around each interface: the setup
 * exchange), coefficients (solve the window's transposed system, keep
 * s^k and send u), partial (the two truncated dot products), exchange
 * (one bidirectional message of one word each way per interface),
 * local_solve (modify the rhs, solve N^k by Thomas).
 *
 * Periodic systems: interface P-1 is row n-1, coupled to row 0 through
 * the corners; windows wrap around, and the first row of partition 0
 * moves a[0] x~_{n-1} to its right-hand side. For P = 1 the window below
 * I_0 = n-1 is rows 0.. of the same partition, shortened so the two
 * sides do not overlap (jr = min(J, n - J)); when 2(J+L) >= n the window
 * is the whole cyclic matrix.
 *
 * Cost per partition of m rows (Table 1, single rhs): setup (window
 * solve, once per matrix) 8*2(J+L) flops; per rhs 2J multiply-adds for
 * the dot products and the Thomas solve of N^k (8m flops): 8m + 4J
 * flops. Words moved: setup 3(J+L) coefficients from the neighbour and J
 * coefficients u to it; per rhs one word each way per interface (step 5,
 * a single bidirectional exchange): 2 messages, 1 synchronisation step.
 *
 * Accuracy (paper 003 §4). With e_k = x~_{I_k} - x_{I_k}, Proposition 1
 * gives max |x~ - x| <= max_k |e_k| for a strictly dominant A, and
 * |e_k| <= sum_{neglected j} |z_j| ||d||_inf + rounding. We measure
 * z' on the window and report, over the interfaces,
 *   info->dropped = sum of the neglected |z'_j| (rows of the window
 *                   outside the 2J kept) / |z'_{I_k}|   (dimensionless;
 *                   about (1+rho)/(1-rho) eps_c for geometric decay)
 *   info->bound   = (2 + L) eps sum|z'| + (10/9) sum_{neglected} |z'_j|,
 *                   eq 24 in dimensioned form: a bound on
 *                   ||x_seq - x_par||_inf / ||d||_inf (10/9: the tail
 *                   beyond the window, one digit per L rows)
 *   info->tol     = the parameter tol (default eps = 2^-53).
 * The solve returns TL_OUTSIDE_DOMAIN when dropped > tol, or when A is
 * not strictly diagonally dominant (by rows; periodic corners included):
 * the decay of z, and so the whole method, rests on it (§2.2, eq 6); and
 * when dropped <= eps, after LAPACK's residual ratio of its answer (5n
 * flops; across partitions a halo of 2 words each way and two small
 * allreduces) comes out >= 30 (tl_its_finish).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_its.h"

double tl_its_bondeli_J(double eps_c, double lambda)
{
  double l = fabs(lambda);
  if (!(l > 2))
    return INFINITY;
  return -log(eps_c) / log(0.5 * (l + sqrt(l * l - 4)));
}

/* In units of |b|: b^2 overflows from |b| = 1.3e154 on, and a rate of
 * 2|a| / inf = 0 promised a decay that a row of entries near 1e300 does
 * not have (J = 1 on a matrix whose rows of A^-1 do not decay at all). */
double tl_its_row_rate(double a, double b, double c)
{
  double aa = fabs(a), bb = fabs(b), cc = fabs(c);
  if (!(bb > aa + cc))
    return 1.0;
  double ra = aa / bb, rc = cc / bb;
  return 2 * (ra > rc ? ra : rc) / (1 + sqrt(1 - 4 * ra * rc));
}

void tl_its_free(tl_its_state *st)
{
  if (!st)
    return;
  free(st->begin);
  free(st->rate);
  free(st->wa);
  free(st->wlen);
  free(st->wpos);
  free(st->wfull);
  free(st->s);
  free(st->t);
  free(st->eps_c);
  memset(st, 0, sizeof *st);
}

int tl_its_init(tl_its_state *st, size_t n, int periodic, int parts, const size_t *part_sizes,
                tl_info *info)
{
  memset(st, 0, sizeof *st);
  if (n == 0 || parts < 1 || (size_t)parts > n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "its: need 1 <= parts <= n (n = %zu, parts = %d)", n, parts);
  size_t P = (size_t)parts;
  st->n = n;
  st->periodic = periodic;
  st->parts = parts;
  st->nif = periodic ? parts : parts - 1;
  st->begin = tl_alloc(P + 1, sizeof(size_t));
  st->rate = tl_alloc(P, sizeof(double));
  st->eps_c = tl_alloc(3 * P + 4 * P, sizeof(double));
  if (!st->begin || !st->rate || !st->eps_c) {
    tl_its_free(st);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory");
  }
  st->dropped = st->eps_c + P;
  st->bound = st->eps_c + 2 * P;
  st->ab = st->eps_c + 3 * P;
  st->at = st->eps_c + 4 * P;
  st->recv_b = st->eps_c + 5 * P;
  st->recv_t = st->eps_c + 6 * P;
  for (int p = 0; p < parts; p++) {
    size_t b0, e0;
    tl_partition_bounds(n, parts, part_sizes, p, &b0, &e0);
    st->begin[p] = b0;
  }
  st->begin[P] = n;
  return TL_OK;
}

/* The largest decay rate over the rows of partition p (corners counted
 * for periodic systems): what J and L are chosen from. a, b, c point at
 * the partition's first row. */
void tl_its_rate(tl_its_state *st, int p, const double *a, const double *b, const double *c)
{
  double r = 0;
  size_t b0 = st->begin[p];
  for (size_t j = 0; j < st->begin[p + 1] - b0; j++) {
    size_t i = b0 + j; /* the global row */
    int has_a = st->periodic || i > 0, has_c = st->periodic || i + 1 < st->n;
    double ri = tl_its_row_rate(has_a ? a[j] : 0, b[j], has_c ? c[j] : 0);
    if (ri > r)
      r = ri;
  }
  st->rate[p] = r;
}

int tl_its_truncation(tl_its_state *st, size_t J_param, double eps_c, tl_info *info)
{
  size_t mmin = st->n;
  for (int p = 0; p < st->parts; p++) {
    size_t m = st->begin[p + 1] - st->begin[p];
    if (m < mmin)
      mmin = m;
  }
  double rho = 0; /* the reduction of P numbers (an allreduce with MPI) */
  for (int p = 0; p < st->parts; p++)
    if (st->rate[p] > rho)
      rho = st->rate[p];
  st->rho = rho;
  if (J_param > mmin)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param",
                   "its: J = %zu exceeds the smallest partition (%zu rows); the truncated dot "
                   "products may not reach past the neighbour partition (paper 003 §3.2: J <= m); "
                   "use fewer partitions or a smaller J",
                   J_param, mmin);
  /* L: rows over which z loses one digit (Theorem 1); eq 18 with eps_c = 1/10. */
  double Lr = (rho > 0 && rho < 1) ? ceil(log(10.0) / -log(rho)) : (rho <= 0 ? 1.0 : (double)st->n);
  st->L = Lr < 1 ? 1 : (Lr > (double)st->n ? st->n : (size_t)Lr);
  if (J_param > 0) {
    st->J = J_param;
  } else {
    /* eq 18, with 1/kappa replaced by the largest row rate (equal for tridiag(1, lambda, 1)),
     * and the cut-off applied to the whole neglected tail on both sides, sum_{j >= J} rho^j
     * (1 + rho) = rho^J (1 + rho) / (1 - rho), which is what tol is compared with. */
    double cut = eps_c * (1 - rho) / (1 + rho);
    double Jr = (rho > 0 && rho < 1) ? ceil(log(cut) / log(rho)) : (rho <= 0 ? 1.0 : (double)mmin);
    st->J = Jr < 1 ? 1 : (Jr > (double)mmin ? mmin : (size_t)Jr);
  }
  st->jl = st->J;
  st->jr = st->J;
  if (st->periodic && st->parts == 1)
    st->jr = st->J < st->n - st->J ? st->J : st->n - st->J; /* the two sides must not overlap */
  size_t nif = (size_t)(st->nif > 0 ? st->nif : 0), P = (size_t)st->parts;
  st->W = 2 * (st->J + st->L);
  if (st->W > st->n)
    st->W = st->n;
  st->wa = tl_alloc(4 * (nif ? nif : 1) * st->W, sizeof(double));
  st->wlen = tl_alloc(nif + 1, sizeof(size_t));
  st->wpos = tl_alloc(nif + 1, sizeof(size_t));
  st->wfull = tl_alloc(nif + 1, sizeof(int));
  st->s = tl_alloc((nif + 1) * st->jl, sizeof(double));
  st->t = tl_alloc(P * (st->jr ? st->jr : 1), sizeof(double));
  if (!st->wa || !st->wlen || !st->wpos || !st->wfull || !st->s || !st->t)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory for the windows");
  st->wb = st->wa + (nif ? nif : 1) * st->W;
  st->wc = st->wb + (nif ? nif : 1) * st->W;
  st->z = st->wc + (nif ? nif : 1) * st->W;
  return TL_OK;
}

/* The coefficient rows of the window around interface k (Alg. 1 step
 * 2.1): rows I_k-J-L+1 .. I_k+J+L, clipped to the matrix (plain) or
 * wrapped (periodic). Sets its length and where I_k is in it. */
size_t tl_its_window_rows(tl_its_state *st, int k, long *first)
{
  long n = (long)st->n, Ik = (long)st->begin[k + 1] - 1;
  long lo = Ik - (long)(st->J + st->L) + 1, hi = Ik + (long)(st->J + st->L);
  st->wfull[k] = 0;
  if (!st->periodic) {
    lo = lo < 0 ? 0 : lo;
    hi = hi > n - 1 ? n - 1 : hi;
  } else if (hi - lo + 1 >= n) {
    lo = 0; /* the whole cyclic matrix, in natural order */
    hi = n - 1;
    st->wfull[k] = 1;
  }
  st->wlen[k] = (size_t)(hi - lo + 1);
  st->wpos[k] = (size_t)(Ik - lo);
  *first = ((lo % n) + n) % n;
  return st->wlen[k];
}

void tl_its_window_close(tl_its_state *st, int k)
{
  if (!st->wfull[k]) { /* rows at the window's edges lose their outside neighbour */
    st->wa[(size_t)k * st->W] = 0;
    st->wc[(size_t)k * st->W + st->wlen[k] - 1] = 0;
  }
}

int tl_its_owner(const tl_its_state *st, size_t row)
{
  int p = 0;
  while (p + 1 < st->parts && st->begin[p + 1] <= row)
    p++;
  return p;
}

/* Who sends what before the first right-hand side: the rows of window k
 * go to partition k from the partitions that hold them (3 words a row;
 * k's own rows stay), and k's u goes to k+1 as t^{k+1}. */
void tl_its_ledger_setup(tl_its_state *st, tl_ledger *ledger)
{
  if (!ledger)
    return;
  for (int k = 0; k < st->nif; k++) {
    long first;
    size_t len = tl_its_window_rows(st, k, &first);
    for (size_t r = 0; r < len; r++) {
      int q = tl_its_owner(st, ((size_t)first + r) % st->n);
      if (q != k)
        tl_ledger_message(ledger, "window", 0, q, k, TL_ITS_ROW_WORDS);
    }
    int below = (k + 1) % st->parts;
    if (below != k)
      tl_ledger_message(ledger, "spike", 0, k, below, st->jr);
  }
}

/* Step 5's single exchange: a_b^k down to k+1, a_t^{k+1} up to k. */
void tl_its_ledger_sums(const tl_its_state *st, tl_ledger *ledger)
{
  for (int k = 0; k < st->nif; k++) {
    int below = (k + 1) % st->parts;
    if (below == k)
      continue; /* one periodic partition: its own interface */
    tl_ledger_message(ledger, "sums", 0, k, below, TL_ITS_SUM_WORDS);
    tl_ledger_message(ledger, "sums", 0, below, k, TL_ITS_SUM_WORDS);
  }
}

/* The window from the whole system's arrays (one address space). */
void tl_its_window(tl_its_state *st, int k, const double *a, const double *b, const double *c)
{
  long first;
  size_t len = tl_its_window_rows(st, k, &first), n = st->n;
  double *wa = st->wa + (size_t)k * st->W, *wb = st->wb + (size_t)k * st->W,
         *wc = st->wc + (size_t)k * st->W;
  for (size_t r = 0; r < len; r++) {
    size_t i = ((size_t)first + r) % n;
    wa[r] = a[i];
    wb[r] = b[i];
    wc[r] = c[i];
  }
  tl_its_window_close(st, k);
}

/* Is window position r among the 2J kept terms of interface k? */
static int kept(const tl_its_state *st, int k, size_t r)
{
  size_t len = st->wlen[k], pos = st->wpos[k], up, down;
  if (st->wfull[k]) {             /* the whole cyclic matrix: around the ring */
    up = (pos + len - r) % len;   /* rows above I_k (0 = I_k itself) */
    down = (r + len - pos) % len; /* rows below I_k */
  } else {
    up = r <= pos ? pos - r : len;
    down = r > pos ? r - pos : len;
  }
  return up < st->jl || (down >= 1 && down <= st->jr);
}

/* Window position (pos + j) mod len, for pos + j < 2 len (a subtraction
 * where a division would cost more than the rest of the loop). */
static size_t wrap(size_t pos, size_t j, size_t len)
{
  size_t r = pos + j;
  return r >= len ? r - len : r;
}

/* Alg. 1 step 2: A'^T z' = g' on the window (eq 11), keep s^k, send u. */
int tl_its_coefficients(tl_its_state *st, int k, tl_info *info)
{
  size_t len = st->wlen[k], pos = st->wpos[k];
  const double *wa = st->wa + (size_t)k * st->W, *wb = st->wb + (size_t)k * st->W,
               *wc = st->wc + (size_t)k * st->W;
  double *z = st->z + (size_t)k * st->W;
  double *work = tl_alloc(4 * len, sizeof(double));
  if (!work)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory");
  double *ta = work, *tb = work + len, *tc = work + 2 * len, *g = work + 3 * len;
  for (size_t r = 0; r < len; r++) { /* the transpose: (A^T)_{r,r-1} = A_{r-1,r} */
    ta[r] = r > 0 ? wc[r - 1] : (st->wfull[k] ? wc[len - 1] : 0);
    tb[r] = wb[r];
    tc[r] = r + 1 < len ? wa[r + 1] : (st->wfull[k] ? wa[0] : 0);
    g[r] = r == pos;
  }
  tl_info inner;
  tl_info_clear(&inner);
  int s = st->wfull[k] ? tl_thomas_periodic_ref_d(len, ta, tb, tc, g, z, &inner)
                       : tl_thomas_ref_d(len, ta, tb, tc, g, z, &inner);
  free(work);
  long Ik = (long)st->begin[k + 1] - 1;
  if (s == TL_ERR_NOMEM)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory for the window system");
  if (s < 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, Ik, "",
                   "its: the window system around interface row %ld breaks down (%s)", Ik,
                   inner.msg);
  return tl_its_coefficients_take(st, k, info);
}

int tl_its_coefficients_take(tl_its_state *st, int k, tl_info *info)
{
  size_t len = st->wlen[k], pos = st->wpos[k];
  const double *z = st->z + (size_t)k * st->W;
  long Ik = (long)st->begin[k + 1] - 1;
  if (z[pos] == 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, Ik, "",
                   "its: the window system around interface row %ld breaks down (%s)", Ik,
                   "z' is zero at the interface");
  size_t P = (size_t)st->parts;
  for (size_t j = 0; j < st->jl; j++) /* s^k: rows I_k-jl+1 .. I_k */
    st->s[(size_t)k * st->jl + j] = z[wrap(pos, len - st->jl + 1 + j, len)];
  size_t below = ((size_t)k + 1) % P; /* u -> t^{k+1} (Alg. 1 steps 2.5, 3) */
  for (size_t j = 0; j < st->jr; j++)
    st->t[below * st->jr + j] = z[wrap(pos, 1 + j, len)];
  double big = 0, mass = 0, total = 0;
  for (size_t r = 0; r < len; r++) {
    double v = fabs(z[r]);
    total += v;
    if (!kept(st, k, r)) {
      mass += v;
      big = v > big ? v : big;
    }
  }
  double zi = fabs(z[pos]);
  st->eps_c[k] = big / zi;
  st->dropped[k] = mass / zi;
  st->bound[k] = (2.0 + (double)st->L) * 0x1p-53 * total + (10.0 / 9.0) * mass; /* eq 24 */
  return TL_OK;
}

/* Alg. 1 step 4: the truncated dot products with the local rhs (d: the
 * partition's rows, from its first). */
void tl_its_partial(tl_its_state *st, int p, const double *d)
{
  size_t P = (size_t)st->parts, m = st->begin[p + 1] - st->begin[p];
  st->ab[p] = 0;
  st->at[p] = 0;
  if (p < st->nif) { /* a_b^p = s^p . (last jl entries of d^p) */
    for (size_t j = 0; j < st->jl; j++)
      st->ab[p] += st->s[(size_t)p * st->jl + j] * d[m - st->jl + j];
  }
  int above = st->periodic ? (int)(((size_t)p + P - 1) % P) : p - 1;
  if (above >= 0) { /* a_t^p = t^p . (first jr entries of d^p) */
    for (size_t j = 0; j < st->jr; j++)
      st->at[p] += st->t[(size_t)p * st->jr + j] * d[j];
  }
}

/* Alg. 1 step 5: partition k sends a_b^k down and a_t^k up, in one
 * bidirectional exchange; these buffers are exactly the MPI messages. */
void tl_its_exchange(tl_its_state *st)
{
  size_t P = (size_t)st->parts;
  for (size_t p = 0; p < P; p++) {
    st->recv_b[p] = 0;
    st->recv_t[p] = 0;
  }
  for (int k = 0; k < st->nif; k++) {
    size_t below = ((size_t)k + 1) % P;
    st->recv_b[below] = st->ab[k];
    st->recv_t[k] = st->at[below];
  }
}

/* Alg. 1 steps 6-7: v~ (the identity row takes x~_{I_p}, the first row
 * moves a x~_{I_{p-1}} to the right), then N^p x^p = v~^p by Thomas. */
void tl_its_local_system(const tl_its_state *st, int p, const double *a, const double *b,
                         const double *c, const double *d, double *la, double *lb, double *lc,
                         double *ld)
{
  size_t m = st->begin[p + 1] - st->begin[p];
  for (size_t r = 0; r < m; r++) { /* the partition's rows, from its first */
    la[r] = a[r];
    lb[r] = b[r];
    lc[r] = c[r];
    ld[r] = d[r];
  }
  tl_its_local_ends(st, p, a[0], la, lb, lc, ld);
}

double tl_its_value_above(const tl_its_state *st, int p)
{
  return st->at[p] + st->recv_b[p];
}

int tl_its_local_end_rows(const tl_its_state *st, int p, double a0, double *top, double *last)
{
  int has_bottom = p < st->nif;
  int has_top = st->periodic ? (st->nif > 0) : p > 0;
  /* step 6.2: v~_1 = d_1 - (a_t^p + a_b^{p-1}) l_1 */
  *top = has_top ? tl_its_value_above(st, p) * a0 : 0;
  /* step 6.1 and eq 9: the identity row, v~_m = a_b^p + a_t^{p+1} */
  *last = has_bottom ? st->ab[p] + st->recv_t[p] : 0;
  return has_bottom;
}

void tl_its_local_ends(const tl_its_state *st, int p, double a0, double *la, double *lb, double *lc,
                       double *ld)
{
  size_t m = st->begin[p + 1] - st->begin[p];
  double top, last;
  int identity = tl_its_local_end_rows(st, p, a0, &top, &last);
  la[0] = 0; /* N^p's own corners */
  if (lc)
    lc[m - 1] = 0;
  ld[0] -= top;
  if (identity) {
    la[m - 1] = 0;
    lb[m - 1] = 1;
    ld[m - 1] = last;
  }
}

int tl_its_local_solve(const tl_its_state *st, int p, const double *a, const double *b,
                       const double *c, const double *d, double *x, tl_info *info)
{
  size_t b0 = st->begin[p], m = st->begin[p + 1] - b0;
  double *w = tl_alloc(4 * m, sizeof(double));
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory");
  double *la = w, *lb = w + m, *lc = w + 2 * m, *ld = w + 3 * m;
  tl_its_local_system(st, p, a, b, c, d, la, lb, lc, ld);
  tl_info inner;
  tl_info_clear(&inner);
  int s = tl_thomas_ref_d(m, la, lb, lc, ld, x, &inner);
  free(w);
  if (s == TL_ERR_NOMEM)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory for the local system N^%d", p);
  if (s < 0) {
    long row = inner.row >= 0 ? (long)b0 + inner.row : -1;
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, row, "",
                   "its: the local system N^%d breaks down at row %ld", p, row);
  }
  return TL_OK;
}

int tl_its_verdict(const tl_its_state *st, double dropped, long drop_row, double bound, double epsc,
                   int strict, long worst, double tol, tl_info *info)
{
  if (info) {
    info->dropped = dropped;
    info->bound = bound;
    info->tol = tol;
  }
  if (!strict)
    return TL_WARN(info, worst,
                   "its: matrix not strictly diagonally dominant (row %ld); the rows of A^-1 "
                   "need not decay, so the truncation has no guarantee",
                   worst);
  if (dropped > tol)
    return TL_WARN(info, drop_row,
                   "its: dropped coefficients at interface row %ld sum to %.3g of |z_I| "
                   "(largest %.3g; J = %zu, L = %zu), above tol = %.3g; raise J or use fewer "
                   "partitions",
                   drop_row, dropped, epsc, st->J, st->L, tol);
  return TL_OK;
}

int tl_its_overflow_verdict(const tl_its_state *st, double dropped, long drop_row, double bound,
                            double tol, tl_info *info)
{
  if (info) {
    info->dropped = dropped;
    info->bound = bound;
    info->tol = tol;
  }
  return TL_WARN(info, drop_row,
                 "its: dropped coefficients at interface row %ld sum to %.3g of |z_I| "
                 "(J = %zu, L = %zu), above tol = %.3g, and the local solves overflowed: x "
                 "is not finite; raise J or use fewer partitions",
                 drop_row, dropped, st->J, st->L, tol);
}

/* Each interface value is a dot product with a row of A^-1, accurate to
 * about cond(A) eps, each on its own: on an ill-conditioned dominant
 * matrix (gallery 58, 59: cond 1e16, rows of A^-1 that do not decay, so
 * nothing is dropped when the windows cover the matrix) two interfaces
 * err in directions no nearby system explains, and the residual ratio
 * reached 1e11 with status ok. As pcr does, the solve measures LAPACK's
 * residual ratio of its own answer (5n flops) before it says ok -- when
 * what it dropped is within the default tol (eps): a caller who loosens
 * tol asks for a truncated answer, whose residual may exceed 30 (tl_solve
 * says so). */
int tl_its_checks_residual(int verdict, double dropped)
{
  return verdict == TL_OK && dropped <= TL_ITS_CHECK_DROPPED;
}

void tl_its_ledger_verdict(const tl_its_state *st, int checked, tl_ledger *ledger)
{
  /* The halo crosses before the verdict's first allreduce, whether the
   * residual is checked or not: a rank reads its slice once for the
   * verdict's numbers and the residual's norms together, and that pass
   * needs x beyond both ends (its_mpi.c). */
  tl_ledger_halo(ledger, st->parts, st->periodic, 2);
  tl_ledger_collective_all(ledger, "verdict", 0, TL_LEDGER_ALLREDUCE, st->parts, -1,
                           TL_ITS_VERDICT_WORDS, TL_ITS_VERDICT_WORDS);
  if (!checked)
    return;
  tl_ledger_collective_all(ledger, "verdict", 1, TL_LEDGER_ALLREDUCE, st->parts, -1, 2, 2);
  tl_ledger_collective_all(ledger, "verdict", 2, TL_LEDGER_ALLREDUCE, st->parts, -1, 1, 1);
}

int tl_its_finish(const tl_its_state *st, int status, const double *a, const double *b,
                  const double *c, const double *d, const double *x, double tol, tl_ledger *ledger,
                  tl_info *info)
{
  size_t n = st->n;
  double dropped = 0, bound = 0, epsc = 0;
  int worst_if = -1;
  for (int k = 0; k < st->nif; k++) {
    if (st->dropped[k] > dropped || worst_if < 0) {
      dropped = st->dropped[k] > dropped ? st->dropped[k] : dropped;
      worst_if = st->dropped[k] >= dropped ? k : worst_if;
    }
    bound = st->bound[k] > bound ? st->bound[k] : bound;
    epsc = st->eps_c[k] > epsc ? st->eps_c[k] : epsc;
  }
  long row = worst_if >= 0 ? (long)st->begin[worst_if + 1] - 1 : -1;
  for (size_t i = 0; i < n && status >= 0; i++)
    if (!isfinite(x[i]))
      status = TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)i, "",
                       "its: non-finite solution at row %zu (overflow)", i);
  if (status == TL_ERR_BREAKDOWN && dropped > tol) {
    /* The truncation failed first: interface values far from the true
     * ones (rows of A^-1 that do not decay) overflow the local solves.
     * That is the verdict to give, not the overflow it caused. */
    return tl_its_overflow_verdict(st, dropped, row, bound, tol, info);
  }
  if (status < 0)
    return status;
  long worst = -1;
  int strict = (tl_classes_d(n, a, b, c, st->periodic, &worst) & TL_CLASS_STRICT_DD) != 0;
  status = tl_its_verdict(st, dropped, row, bound, epsc, strict, worst, tol, info);
  int checked = tl_its_checks_residual(status, dropped);
  /* One allreduce, and the residual ratio's halo and two more. */
  tl_its_ledger_verdict(st, checked, ledger);
  if (checked)
    status =
        tl_residual_check("its", TL_F64, n, st->periodic, a, b, c, d, x, TL_ITS_RESIDUAL_WHY, info);
  return status;
}

static int its_solve_one(size_t n, int periodic, const double *a, const double *b, const double *c,
                         const double *d, double *x, int parts, const size_t *part_sizes, size_t J,
                         double eps_c, double tol, tl_ledger *ledger, tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "its: n must be >= 1 and no array may be NULL");
  if (!(eps_c > 0 && eps_c < 1) || !(tol >= 0))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param",
                   "its: need 0 < eps_c < 1 and tol >= 0 (eps_c = %g, tol = %g)", eps_c, tol);
  double fa[2], fb[2], fc[2]; /* periodic n <= 2: its entries folded (tridlab/system.h) */
  TL_CALL(tl_fold_periodic_d("its", n, periodic, &a, &b, &c, fa, fb, fc, info));
  tl_its_state st;
  int status = tl_its_init(&st, n, periodic, parts, part_sizes, info);
  if (status < 0)
    return status;
  for (int p = 0; p < parts; p++)
    tl_its_rate(&st, p, a + st.begin[p], b + st.begin[p], c + st.begin[p]);
  /* The largest rate of all partitions: an allreduce of one word. */
  tl_ledger_collective_all(ledger, "rate", 0, TL_LEDGER_ALLREDUCE, parts, -1, TL_ITS_RATE_WORDS,
                           TL_ITS_RATE_WORDS);
  TL_CHECK(tl_its_truncation(&st, J, eps_c, info));
  tl_its_ledger_setup(&st, ledger);
  for (int k = 0; k < st.nif; k++) {
    tl_its_window(&st, k, a, b, c);
    TL_CHECK(tl_its_coefficients(&st, k, info));
  }
  for (int p = 0; p < parts; p++)
    tl_its_partial(&st, p, d + st.begin[p]);
  tl_its_exchange(&st);
  tl_its_ledger_sums(&st, ledger);
  for (int p = 0; p < parts && status >= 0; p++) {
    size_t b0 = st.begin[p];
    status = tl_its_local_solve(&st, p, a + b0, b + b0, c + b0, d + b0, x + b0, info);
  }
  status = tl_its_finish(&st, status, a, b, c, d, x, tol, ledger, info);
cleanup:
  tl_its_free(&st);
  if (info && status < 0)
    info->dropped = info->bound = info->tol = 0;
  return status;
}

int tl_its_ref_d(size_t n, int periodic, const double *a, const double *b, const double *c,
                 const double *d, double *x, int parts, const size_t *part_sizes, size_t J,
                 double eps_c, double tol, tl_info *info)
{
  return its_solve_one(n, periodic, a, b, c, d, x, parts, part_sizes, J, eps_c, tol, NULL, info);
}

static int its_system(const tl_algorithm *self, const tl_batch *one, void *x,
                      const tl_options *opt, tl_info *info)
{
  double Jv = tl_param_value(self, opt, "J");
  double eps_c = tl_param_value(self, opt, "eps_c");
  double tol = tl_param_value(self, opt, "tol");
  return its_solve_one(one->n, one->periodic, one->a, one->b, one->c, one->d, x,
                       opt ? opt->parts : 1, opt ? opt->part_sizes : NULL, (size_t)Jv, eps_c, tol,
                       opt ? opt->ledger : NULL, info);
}

/* The ledger of one solve of nsys systems with status ok
 * (docs/algorithms/its.md, "MPI"). Its words depend on J and L, which the
 * matrix chooses (eq 18), so the model takes each system's J and L as the
 * truncation does and counts: the rows of each window held by other
 * partitions (3 words each), t^{k+1} (jr words) to k+1, one word each way
 * per interface for the sums, and the two allreduces (rate: 1 word;
 * verdict: 16). Whether the verdict measures the residual ratio (its halo
 * and two more allreduces) depends on what the truncation dropped: the
 * model solves each window's transposed system as the coefficients phase
 * does (16(J+L) flops per interface) and takes the largest. */
static int its_ledger_model(const tl_algorithm *self, const tl_batch *shape, const tl_options *opt,
                            const tl_info *solved, tl_ledger *out)
{
  (void)solved;
  int P = opt->parts;
  size_t n = shape->n, J = (size_t)tl_param_value(self, opt, "J");
  double eps_c = tl_param_value(self, opt, "eps_c");
  tl_ledger_reset(out);
  if (shape->dtype != TL_F64 || !shape->a || !shape->b || !shape->c)
    return TL_ERR_ARG;
  for (size_t s = 0; s < shape->nsys; s++) {
    const double *a = (const double *)shape->a + s * n, *b = (const double *)shape->b + s * n,
                 *c = (const double *)shape->c + s * n;
    tl_its_state st;
    int status = tl_its_init(&st, n, shape->periodic, P, opt->part_sizes, NULL);
    for (int p = 0; status == TL_OK && p < P; p++)
      tl_its_rate(&st, p, a + st.begin[p], b + st.begin[p], c + st.begin[p]);
    if (status == TL_OK)
      status = tl_its_truncation(&st, J, eps_c, NULL);
    tl_ledger_collective_all(out, "rate", 0, TL_LEDGER_ALLREDUCE, P, -1, 1, 1);
    if (status == TL_OK) {
      for (int k = 0; k < st.nif; k++) { /* rows of window k held elsewhere, and t^{k+1} */
        long first;
        size_t len = tl_its_window_rows(&st, k, &first);
        for (size_t r = 0; r < len; r++) {
          int q = tl_its_owner(&st, ((size_t)first + r) % n);
          if (q != k)
            tl_ledger_message(out, "window", 0, q, k, 3);
        }
        int below = (k + 1) % P;
        if (below != k) {
          tl_ledger_message(out, "spike", 0, k, below, st.jr);
          tl_ledger_message(out, "sums", 0, k, below, 1);
          tl_ledger_message(out, "sums", 0, below, k, 1);
        }
      }
    }
    double dropped = 0;
    for (int k = 0; status == TL_OK && k < st.nif; k++) {
      tl_its_window(&st, k, a, b, c);
      status = tl_its_coefficients(&st, k, NULL);
      dropped = st.dropped[k] > dropped ? st.dropped[k] : dropped;
    }
    if (status == TL_OK) /* an ok solve: its verdict was ok */
      tl_its_ledger_verdict(&st, tl_its_checks_residual(TL_OK, dropped), out);
    tl_its_free(&st);
    if (status < 0)
      return status;
  }
  return TL_OK;
}

static int its_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                     const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, its_system);
}

static const tl_param its_params[] = {
    {"J", TL_PARAM_INT, 0, 0, 1e9, NULL,
     "truncation: terms kept on each side of an interface (0: choose from eps_c by eq 18)"},
    {"eps_c", TL_PARAM_REAL, 0x1p-53, 1e-300, 0.5, NULL,
     "cut-off threshold of the coefficients z (paper 003 eq 18), used when J = 0"},
    {"tol", TL_PARAM_REAL, 0x1p-53, 0, 1e6, NULL,
     "largest dropped coefficient mass (relative to |z_I|) accepted for status ok"},
};

const tl_algorithm tl_algo_its_ref = {
    .name = "its",
    .family = "partition",
    .backend = "reference",
    .exact = 0,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC | TL_PERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .params = its_params,
    .nparams = 3,
    .summary = "interface splitting: truncated rows of A^-1 give the interface values, one "
               "bidirectional exchange, local solves",
    .source = "paper 003 (ITS) §2.2-2.3 Algorithm 1, eqs 9-18, 24",
    .ledger_model = its_ledger_model,
    .solve = its_solve,
    .dropped_means = "the largest sum over an interface of the neglected |z'_j| / |z'_I| (relative to ||d||_inf)",
    .bound_means = "|x~_I - x_I| / ||d||_inf at the interface rows (paper 003 eq 24)",
};
