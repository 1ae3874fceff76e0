/* optimized/cpu/residual_cpu.c -- the MPI verdicts' passes over a double
 * slice, the rows side by side in SIMD lanes, with the bits of the loops
 * they replace: tl_residual_slice_pass_d, tl_slice_weakest_row with
 * tl_residual_slice_max (one pass for the two), and tl_residual_slice_max
 * (core/residual.c), tl_row_classes_slice_d
 * (core/system.c) and tl_nshaped_dd_slice_d (reference/nshaped_ref.c).
 *
 * WHY. The core passes go row after row: per row a division (the row's
 * dominance margin over |b|), a dozen comparisons with branches, and two
 * running sums. In a rank program of Tridsolver, the hybrid or ITS that
 * was a fifth to a third of the solve. Only the sums depend on the row
 * before; the rest is per row. So a block of rows is computed at once,
 *
 *   rows i .. i+B-1 of the block   SIMD: each row's |x_i|, its residual
 *                                  |d_i - ((b_i x_i + a_i x_{i-1}) +
 *                                  c_i x_{i+1})|, its column sum, its
 *                                  -rel; the maxima, the smallest nonzero
 *                                  entries, the largest -rel of the block
 *   the two running sums           one add per row, in row order
 *   the weakest row                the first row of the block with the
 *                                  largest -rel, only when the block beats
 *                                  the rows before it
 *
 * WHY THE SAME BITS. Every per-row value is computed by the operations of
 * the core pass, in its order (no contraction into fused multiply-adds:
 * the room's flags); the sums add those values in row order, as the core
 * pass does; a maximum or minimum of finite values does not depend on the
 * order it is taken in, and the weakest row is the first row of the
 * largest -rel, as the core pass keeps it (its value is that row's own,
 * so that a tie of +0 and -0 keeps the sign the core loop keeps). The
 * passes with sums assume finite values; when a sum shows one that is
 * not, or for slices of fewer than three rows, the core function runs
 * instead, with its rules. The row classes and N-shaped's dominance have
 * no sums: their comparisons treat a NaN as the core loops do, and only
 * the slices too short for their end rows go to the core loops.
 */
#include <math.h>

#include "cpu_internal.h"
#include "tridlab/part_nshaped.h"

/* Rows per block: the per-row buffers stay in L1 (the pass's: 2 per
 * system of a group of TL_PASS_GROUP, 32 KiB). */
#define BLOCK 256
#define TL_PASS_GROUP 8

/* row_margin of core/residual.c: (|b| - (left + right)) / |b|, DBL_MIN
 * when strict but the quotient underflowed, -inf when b = 0; negated. */
#define NEG_REL(mb, ma, mc, out)                                                                   \
  do {                                                                                             \
    double margin_ = (mb) - ((ma) + (mc));                                                         \
    double rel_ = (mb) > 0.0 ? margin_ / (mb) : -INFINITY;                                         \
    rel_ = (margin_ > 0.0 && !(rel_ > 0.0)) ? DBL_MIN : rel_;                                      \
    (out) = -rel_;                                                                                 \
  } while (0)

/* The first row of v[0 .. k) that holds the block's extreme value best
 * (a block's largest -rel, smallest rel). */
static size_t first_of(const double *v, size_t k, double best)
{
  size_t j = 0;
  while (j + 1 < k && !(v[j] == best))
    j++;
  return j;
}

/* ---- the verdict's one pass (tl_residual_slice_pass_d) ---------------- */

typedef struct pass_acc {
  double amax, xmax, alo, xlo, dlo, dmax, col, weak;
  double xnorm, rnorm; /* in row order */
  long weak_row;
} pass_acc;

/* The smallest nonzero of v >= 0 as a minimum: zeros do not count. */
#define NONZERO(v) ((v) > 0.0 ? (v) : INFINITY)

/* The same minimum without a comparison and a blend per value: the bits
 * of a double >= 0 (or NaN) order as the unsigned integers they are, and
 * bits - 1 wraps +0 to the largest one, so the unsigned minimum of bits - 1
 * over the values, plus 1, is the smallest nonzero value. A NaN's bits lie
 * above +inf's and never win, as NaN never wins the comparison above. The
 * running minimum is > 0, so the minimum never wraps. */
static inline uint64_t lo_key(double v)
{
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u - 1;
}
static inline double lo_of_key(uint64_t key)
{
  double v;
  key += 1;
  memcpy(&v, &key, sizeof v);
  return v;
}

/* Rows [0, k) of a block (global row g0 first): xm[i] = x of the row
 * above, xp[i] of the row below, cu[i] = c of the row above, ad[i] = a of
 * the row below (pointers offset by one from x, c, a for the rows
 * between the ends). Everything per row but the two sums: each row's
 * |x_i| into xs, its residual into rs, for ordered_sums. */
TL_CPU_CLONES static void pass_rows(size_t k, const double *a, const double *b, const double *c,
                                    const double *d, const double *x, const double *xm,
                                    const double *xp, const double *cu, const double *ad, long g0,
                                    pass_acc *p, double *xs, double *rs)
{
  double neg[BLOCK];
  double amax = p->amax, xmax = p->xmax, dmax = p->dmax, col = p->col, best = -INFINITY;
  uint64_t alo = lo_key(p->alo), xlo = lo_key(p->xlo), dlo = lo_key(p->dlo);
#pragma omp simd reduction(max : amax, xmax, dmax, col, best) reduction(min : alo, xlo, dlo)
  for (size_t i = 0; i < k; i++) {
    double ma = fabs(a[i]), mb = fabs(b[i]), mc = fabs(c[i]), mx = fabs(x[i]), md = fabs(d[i]);
    double big = mb > ma ? mb : ma;
    big = big > mc ? big : mc;
    amax = big > amax ? big : amax;
    uint64_t ka = lo_key(ma), kb = lo_key(mb), kc = lo_key(mc), kx = lo_key(mx), kd = lo_key(md);
    uint64_t lo = ka < kb ? ka : kb;
    lo = kc < lo ? kc : lo;
    alo = lo < alo ? lo : alo;
    xmax = mx > xmax ? mx : xmax;
    xlo = kx < xlo ? kx : xlo;
    xs[i] = mx;
    rs[i] = fabs(d[i] - ((b[i] * x[i] + a[i] * xm[i]) + c[i] * xp[i]));
    double cs = (mb + fabs(cu[i])) + fabs(ad[i]);
    col = cs > col ? cs : col;
    dlo = kd < dlo ? kd : dlo;
    dmax = md > dmax ? md : dmax;
    double ng;
    NEG_REL(mb, ma, mc, ng);
    neg[i] = ng;
    best = ng > best ? ng : best;
  }
  p->amax = amax, p->xmax = xmax, p->dmax = dmax, p->col = col;
  p->alo = lo_of_key(alo), p->xlo = lo_of_key(xlo), p->dlo = lo_of_key(dlo);
  if (best > p->weak) { /* on a tie the earlier row stays */
    size_t j = first_of(neg, k, best);
    p->weak = neg[j]; /* the row's own value (a tie of +0 and -0 keeps its sign) */
    p->weak_row = g0 + (long)j;
  }
}

/* The two sums of the g systems of a group over k rows, each system's in
 * its row order. One system's sums are two chains of dependent adds (one
 * add per row each, ~0.7 ns per row of the pass's 2.2 in cache); the
 * chains of the group's systems are independent, and run side by side. */
static void ordered_sums(int g, size_t k, const double (*xs)[BLOCK], const double (*rs)[BLOCK],
                         pass_acc *p)
{
  double xn[TL_PASS_GROUP], rn[TL_PASS_GROUP];
  for (int j = 0; j < g; j++)
    xn[j] = p[j].xnorm, rn[j] = p[j].rnorm;
  if (g == TL_PASS_GROUP) { /* the usual group: its chains interleaved */
    for (size_t i = 0; i < k; i++)
      for (int j = 0; j < TL_PASS_GROUP; j++) {
        xn[j] += xs[j][i];
        rn[j] += rs[j][i];
      }
  } else {
    for (int j = 0; j < g; j++)
      for (size_t i = 0; i < k; i++) {
        xn[j] += xs[j][i];
        rn[j] += rs[j][i];
      }
  }
  for (int j = 0; j < g; j++)
    p[j].xnorm = xn[j], p[j].rnorm = rn[j];
}

/* A row at an end of the slice, as core/residual.c's pass_end_row: the
 * entries it does not have (left, right: it has them) as 0; those it reads
 * from the halo enter the smallest entries too. */
static void pass_end(pass_acc *p, double a, double b, double c, double d, double x, double xm,
                     double xp, double cu, double ad, int left, int right, long g)
{
  if (left) {
    p->xlo = NONZERO(fabs(xm)) < p->xlo ? fabs(xm) : p->xlo;
    p->alo = NONZERO(fabs(cu)) < p->alo ? fabs(cu) : p->alo;
  } else {
    a = xm = cu = 0.0;
  }
  if (right) {
    p->xlo = NONZERO(fabs(xp)) < p->xlo ? fabs(xp) : p->xlo;
    p->alo = NONZERO(fabs(ad)) < p->alo ? fabs(ad) : p->alo;
  } else {
    c = xp = ad = 0.0;
  }
  double xs, rs;
  pass_rows(1, &a, &b, &c, &d, &x, &xm, &xp, &cu, &ad, g, p, &xs, &rs);
  p->xnorm += xs;
  p->rnorm += rs;
}

/* One system's slice (the arrays from its first row; halo: its 4). */
typedef struct pass_slice {
  const double *a, *b, *c, *d, *x, *halo;
} pass_slice;

/* The unknowns and entries just outside the rows: from the halo, or for
 * a whole system its other end. */
static void outside(const pass_slice *q, size_t n, size_t m, double o[4])
{
  o[0] = m == n ? q->x[n - 1] : q->halo[0]; /* x left  */
  o[1] = m == n ? q->x[0] : q->halo[1];     /* x right */
  o[2] = m == n ? q->c[n - 1] : q->halo[2]; /* c left  */
  o[3] = m == n ? q->a[0] : q->halo[3];     /* a right */
}

/* Rows 0 .. m-2 of the g (<= TL_PASS_GROUP) systems of a group, m >= 3
 * rows each: the first row with x_{-1} = xl[j] but without the column
 * entry c_{-1} above it (system_tail adds what it changes), then rows
 * [1, m-1) a block at a time for all of them. */
static void group_head(size_t begin, int left, size_t m, int g, const pass_slice *q,
                       const double *xl, pass_acc *p)
{
  double xs[TL_PASS_GROUP][BLOCK], rs[TL_PASS_GROUP][BLOCK];
  size_t l = m - 1;
  for (int j = 0; j < g; j++) {
    p[j] = (pass_acc){
        .alo = INFINITY, .xlo = INFINITY, .dlo = INFINITY, .weak = -INFINITY, .weak_row = -1};
    pass_end(&p[j], q[j].a[0], q[j].b[0], q[j].c[0], q[j].d[0], q[j].x[0], xl[j], q[j].x[1], 0.0,
             q[j].a[1], left, 1, (long)begin);
  }
  for (size_t i = 1; i < l; i += BLOCK) {
    size_t k = l - i < BLOCK ? l - i : BLOCK;
    for (int j = 0; j < g; j++) {
      const double *a = q[j].a, *c = q[j].c, *x = q[j].x;
      pass_rows(k, a + i, q[j].b + i, c + i, q[j].d + i, x + i, x + i - 1, x + i + 1, c + i - 1,
                a + i + 1, (long)(begin + i), &p[j], xs[j], rs[j]);
    }
    ordered_sums(g, k, (const double(*)[BLOCK])xs, (const double(*)[BLOCK])rs, p);
  }
}

/* The rest of one system's pass after group_head: c_{-1} into the first
 * row's column sum and the smallest entries (a maximum and a minimum: in
 * any order; the head took it as 0, which the column sum only lowers),
 * then the last row, which the sums add last, as the core pass does. */
static void system_tail(size_t n, int periodic, size_t begin, size_t m, const pass_slice *q,
                        pass_acc *p, tl_residual_pass *out)
{
  int left = begin > 0 || periodic, right = begin + m < n || periodic;
  size_t l = m - 1;
  double o[4];
  outside(q, n, m, o);
  if (left) {
    double cs = (fabs(q->b[0]) + fabs(o[2])) + fabs(q->a[1]);
    p->col = cs > p->col ? cs : p->col;
    p->alo = NONZERO(fabs(o[2])) < p->alo ? fabs(o[2]) : p->alo;
  }
  pass_end(p, q->a[l], q->b[l], q->c[l], q->d[l], q->x[l], q->x[l - 1], o[1], q->c[l - 1], o[3], 1,
           right, (long)(begin + l));
  int finite = isfinite(p->xnorm) && isfinite(p->rnorm) && isfinite(p->col) &&
               (!left || isfinite(o[2])) && (!right || isfinite(o[3]));
  if (!finite) { /* the core pass, with its rules for inf and NaN */
    tl_residual_slice_pass_d(n, periodic, begin, m, q->a, q->b, q->c, q->d, q->x, q->halo, out);
    return;
  }
  *out = (tl_residual_pass){.max = {p->xmax, p->amax},
                            .weak = p->weak,
                            .weak_row = p->weak_row,
                            .norms = {p->xnorm, p->rnorm, p->col},
                            .lo = {p->alo, p->xlo, p->dlo},
                            .dmax = p->dmax};
}

/* The g (<= TL_PASS_GROUP) systems of a group, m >= 3 rows each: the
 * head with x_{-1} from the halo, then each one's tail. */
static void pass_group(size_t n, int periodic, size_t begin, size_t m, int g, const pass_slice *q,
                       tl_residual_pass *out)
{
  pass_acc p[TL_PASS_GROUP];
  double xl[TL_PASS_GROUP];
  for (int j = 0; j < g; j++) {
    double o[4];
    outside(&q[j], n, m, o);
    xl[j] = o[0];
  }
  group_head(begin, begin > 0 || periodic, m, g, q, xl, p);
  for (int j = 0; j < g; j++)
    system_tail(n, periodic, begin, m, &q[j], &p[j], &out[j]);
}

/* The groups are independent (each writes its own out[]), so a rank
 * with more than one thread shares them out, as the x-line kernel shares
 * its groups: the same bits on any number of threads. */
void tl_cpu_residual_slices_pass_d(size_t n, int periodic, size_t begin, size_t m, size_t k,
                                   const double *a, const double *b, const double *c,
                                   const double *d, const double *x, const double *halo,
                                   tl_residual_pass *out)
{
  long groups = (long)((k + TL_PASS_GROUP - 1) / TL_PASS_GROUP);
#pragma omp parallel for schedule(static) if (groups > 1)
  for (long gi = 0; gi < groups; gi++) {
    size_t s0 = (size_t)gi * TL_PASS_GROUP;
    int g = k - s0 < TL_PASS_GROUP ? (int)(k - s0) : TL_PASS_GROUP;
    pass_slice q[TL_PASS_GROUP];
    for (int j = 0; j < g; j++) {
      size_t at = (s0 + (size_t)j) * m;
      q[j] = (pass_slice){a + at, b + at, c + at, d + at, x + at, halo + 4 * (s0 + (size_t)j)};
    }
    if (m >= 3) {
      pass_group(n, periodic, begin, m, g, q, out + s0);
      continue;
    }
    for (int j = 0; j < g; j++) /* a row or two (and the folded periodic systems): the core pass */
      tl_residual_slice_pass_d(n, periodic, begin, m, q[j].a, q[j].b, q[j].c, q[j].d, q[j].x,
                               q[j].halo, &out[s0 + (size_t)j]);
  }
}

void tl_cpu_residual_slice_pass_d(size_t n, int periodic, size_t begin, size_t m, const double *a,
                                  const double *b, const double *c, const double *d,
                                  const double *x, const double *halo, tl_residual_pass *out)
{
  tl_cpu_residual_slices_pass_d(n, periodic, begin, m, 1, a, b, c, d, x, halo, out);
}

_Static_assert(sizeof(pass_acc) == sizeof(((tl_cpu_pass_head *)0)->acc) + sizeof(long),
               "tl_cpu_pass_head holds a pass_acc");

void tl_cpu_residual_slices_head_d(size_t n, int periodic, size_t begin, size_t m, size_t k,
                                   const double *a, const double *b, const double *c,
                                   const double *d, const double *x, const double *xleft,
                                   tl_cpu_pass_head *head)
{
  int ok = m >= 3 && m < n, left = begin > 0 || periodic;
  for (size_t s0 = 0; s0 < k; s0 += TL_PASS_GROUP) {
    int g = k - s0 < TL_PASS_GROUP ? (int)(k - s0) : TL_PASS_GROUP;
    pass_slice q[TL_PASS_GROUP];
    pass_acc p[TL_PASS_GROUP];
    double xl[TL_PASS_GROUP];
    for (int j = 0; j < g; j++) {
      size_t at = (s0 + (size_t)j) * m;
      q[j] = (pass_slice){a + at, b + at, c + at, d + at, x + at, NULL};
      xl[j] = left ? xleft[s0 + (size_t)j] : 0.0;
    }
    if (ok)
      group_head(begin, left, m, g, q, xl, p);
    for (int j = 0; j < g; j++) {
      tl_cpu_pass_head *h = &head[s0 + (size_t)j];
      memset(h, 0, sizeof *h);
      if (ok)
        memcpy(h, &p[j], sizeof p[j]);
      h->xleft = xl[j];
      h->made = ok;
    }
  }
}

void tl_cpu_residual_slices_tail_d(size_t n, int periodic, size_t begin, size_t m, size_t k,
                                   const double *a, const double *b, const double *c,
                                   const double *d, const double *x, const double *halo,
                                   const tl_cpu_pass_head *head, tl_residual_pass *out)
{
  int left = begin > 0 || periodic;
  for (size_t s = 0; s < k; s++) {
    size_t at = s * m;
    pass_slice q = {a + at, b + at, c + at, d + at, x + at, halo + 4 * s};
    const tl_cpu_pass_head *h = &head[s];
    uint64_t took, sent;
    memcpy(&took, &h->xleft, sizeof took);
    memcpy(&sent, &halo[4 * s], sizeof sent);
    if (!h->made || (left && took != sent)) { /* the whole pass */
      tl_cpu_residual_slices_pass_d(n, periodic, begin, m, 1, q.a, q.b, q.c, q.d, q.x, q.halo,
                                    &out[s]);
      continue;
    }
    pass_acc p;
    memcpy(&p, h, sizeof p);
    system_tail(n, periodic, begin, m, &q, &p, &out[s]);
  }
}

/* ---- the row classes of a slice (tl_row_classes_slice_d) -------------- */

typedef struct class_acc {
  int row_dd, strict; /* every margin >= 0; every margin > 0 */
  double worst;       /* the smallest margin / |b|          */
  long worst_row;
} class_acc;

/* Rows [0, k) of a block with both couplings (left = right = 1) or with
 * the couplings an end row has, the first being global row g0. */
TL_CPU_CLONES static void class_block(size_t k, const double *a, const double *b, const double *c,
                                      int left, int right, long g0, class_acc *w)
{
  double rel[BLOCK];
  int row_dd = 1, strict = 1;
  double best = INFINITY;
#pragma omp simd reduction(min : best) reduction(& : row_dd, strict)
  for (size_t i = 0; i < k; i++) {
    double mb = fabs(b[i]), l = left ? fabs(a[i]) : 0.0, r = right ? fabs(c[i]) : 0.0;
    double margin = mb - (l + r); /* core/system.c's judge_row */
    row_dd &= margin >= 0.0;
    strict &= margin > 0.0;
    double q = mb > 0.0 ? margin / mb : -INFINITY;
    rel[i] = q;
    best = q < best ? q : best;
  }
  w->row_dd &= row_dd, w->strict &= strict;
  if (best < w->worst) { /* on a tie the earlier row stays */
    size_t j = first_of(rel, k, best);
    w->worst = rel[j]; /* the row's own value (a tie of +0 and -0 keeps its sign) */
    w->worst_row = g0 + (long)j;
  }
}

unsigned tl_cpu_row_classes_slice_d(size_t m, const double *a, const double *b, const double *c,
                                    size_t row0, size_t n, int periodic, double *worst_rel,
                                    long *worst_row)
{
  class_acc w = {1, 1, INFINITY, m ? (long)row0 : -1};
  /* the global rows 0 and n-1 of a plain system have a coupling fewer */
  size_t lo = (!periodic && row0 == 0) ? 1 : 0, hi = (!periodic && row0 + m == n) ? 1 : 0;
  if (m < lo + hi + 1) /* a row or two at both ends: the core loop */
    return tl_row_classes_slice_d(m, a, b, c, row0, n, periodic, worst_rel, worst_row);
  if (lo)
    class_block(1, a, b, c, 0, 1, (long)row0, &w);
  for (size_t i = lo; i < m - hi; i += BLOCK) {
    size_t k = m - hi - i < BLOCK ? m - hi - i : BLOCK;
    class_block(k, a + i, b + i, c + i, 1, 1, (long)(row0 + i), &w);
  }
  if (hi)
    class_block(1, a + m - 1, b + m - 1, c + m - 1, 1, 0, (long)(row0 + m - 1), &w);
  if (worst_rel)
    *worst_rel = w.worst;
  if (worst_row)
    *worst_row = w.worst_row;
  return (w.row_dd ? TL_CLASS_ROW_DD : 0u) | (w.row_dd && w.strict ? TL_CLASS_STRICT_DD : 0u);
}

/* ---- N-shaped's dominance of a slice (tl_nshaped_dd_slice_d) ---------- */

typedef struct dd_acc {
  int not_row, not_strict, not_col; /* some row fails: by rows, strictly, by columns */
  double worst;
  long worst_row;
} dd_acc;

/* Rows [0, k) (global row g0 first); cu[i], ad[i]: the moduli's sources
 * above and below b in its column (c of the row above, a of the row
 * below); left, right: the rows have those couplings. */
TL_CPU_CLONES static void dd_block(size_t k, const double *a, const double *b, const double *c,
                                   const double *cu, const double *ad, int left, int right, long g0,
                                   dd_acc *w)
{
  double rel[BLOCK];
  int not_row = 0, not_strict = 0, not_col = 0;
  double best = INFINITY;
#pragma omp simd reduction(min : best) reduction(| : not_row, not_strict, not_col)
  for (size_t i = 0; i < k; i++) {
    double l = left ? fabs(a[i]) : 0.0, r = right ? fabs(c[i]) : 0.0;
    double above = fabs(cu[i]), below = fabs(ad[i]);
    double bi = fabs(b[i]), margin = bi - (l + r);
    not_row |= !(margin >= 0.0);
    not_strict |= !(margin > 0.0);
    not_col |= !(bi - (above + below) >= 0.0);
    double q = bi > 0.0 ? margin / bi : -INFINITY;
    rel[i] = q;
    best = q < best ? q : best;
  }
  w->not_row |= not_row, w->not_strict |= not_strict, w->not_col |= not_col;
  if (best < w->worst) { /* on a tie the earlier row stays */
    size_t j = first_of(rel, k, best);
    w->worst = rel[j]; /* the row's own value (a tie of +0 and -0 keeps its sign) */
    w->worst_row = g0 + (long)j;
  }
}

void tl_cpu_nshaped_dd_slice_d(size_t n, int periodic, size_t row0, size_t m, const double *a,
                               const double *b, const double *c, double up, double down,
                               int flags[3], double *worst_rel, long *worst_row)
{
  if (m < 3) { /* a row or two: the reference's loop */
    tl_nshaped_dd_slice_d(n, periodic, row0, m, a, b, c, up, down, flags, worst_rel, worst_row);
    return;
  }
  dd_acc w = {0, 0, 0, INFINITY, (long)row0};
  size_t l = m - 1;
  /* the first row: c above it is `up`; the last: a below it is `down`
   * (the neighbours' entries, given as moduli) */
  dd_block(1, a, b, c, &up, a + 1, row0 > 0 || periodic, 1, (long)row0, &w);
  for (size_t i = 1; i < l; i += BLOCK) {
    size_t k = l - i < BLOCK ? l - i : BLOCK;
    dd_block(k, a + i, b + i, c + i, c + i - 1, a + i + 1, 1, 1, (long)(row0 + i), &w);
  }
  dd_block(1, a + l, b + l, c + l, c + l - 1, &down, 1, row0 + m < n || periodic, (long)(row0 + l),
           &w);
  flags[0] = w.not_row, flags[1] = w.not_strict, flags[2] = w.not_col;
  *worst_rel = w.worst, *worst_row = w.worst_row;
}

/* ---- the maxima alone (tl_residual_slice_max) ------------------------- */

TL_CPU_CLONES static void max_block(size_t k, const double *a, const double *b, const double *c,
                                    const double *x, int left, int right, double *amax,
                                    double *xmax, double *sum)
{
  double am = *amax, xm = *xmax, s = 0.0;
#pragma omp simd reduction(max : am, xm) reduction(+ : s)
  for (size_t i = 0; i < k; i++) {
    double ma = left ? fabs(a[i]) : 0.0, mb = fabs(b[i]), mc = right ? fabs(c[i]) : 0.0;
    double mx = fabs(x[i]);
    s += (ma + mb) + (mc + mx);
    double big = mb > ma ? mb : ma;
    big = big > mc ? big : mc;
    am = big > am ? big : am;
    xm = mx > xm ? mx : xm;
  }
  *amax = am, *xmax = xm, *sum += s;
}

void tl_cpu_residual_slice_max_d(size_t n, int periodic, size_t begin, size_t m, const double *a,
                                 const double *b, const double *c, const double *x, double max[2])
{
  if (m < 3) {
    tl_residual_slice_max(TL_F64, n, periodic, begin, m, a, b, c, x, max);
    return;
  }
  double amax = 0.0, xmax = 0.0, sum = 0.0;
  size_t l = m - 1;
  max_block(1, a, b, c, x, begin > 0 || periodic, 1, &amax, &xmax, &sum);
  for (size_t i = 1; i < l; i += BLOCK) {
    size_t k = l - i < BLOCK ? l - i : BLOCK;
    max_block(k, a + i, b + i, c + i, x + i, 1, 1, &amax, &xmax, &sum);
  }
  max_block(1, a + l, b + l, c + l, x + l, 1, begin + m < n || periodic, &amax, &xmax, &sum);
  if (!isfinite(sum)) { /* the core loops, with their rules for inf and NaN */
    tl_residual_slice_max(TL_F64, n, periodic, begin, m, a, b, c, x, max);
    return;
  }
  max[0] = xmax, max[1] = amax;
}

/* ---- N-shaped's dominance and the maxima in one pass ------------------ */

/* Row 0, rows 1 .. L-1 (read here when scan is NULL, then L = 1; else as
 * the N-shaped stages measured them, as dd_block and max_block would
 * have left them), rows L .. m-2 and the last row (m >= 3): the
 * dominance into flags, worst_rel, worst_row, the maxima into max.
 * Returns the sum of every |value| read here, which is not finite when
 * one of them is not. */
static double dd_max_rows(size_t n, int periodic, size_t row0, size_t m, size_t L, const double *a,
                          const double *b, const double *c, const double *x, double up, double down,
                          const tl_cpu_nshaped_scan *scan, int flags[3], double *worst_rel,
                          long *worst_row, double max[2])
{
  dd_acc w = {0, 0, 0, INFINITY, (long)row0};
  double amax = 0.0, xmax = 0.0, sum = 0.0;
  size_t l = m - 1;
  int left = row0 > 0 || periodic, right = row0 + m < n || periodic;
  dd_block(1, a, b, c, &up, a + 1, left, 1, (long)row0, &w);
  max_block(1, a, b, c, x, left, 1, &amax, &xmax, &sum);
  if (scan) {
    w.not_row |= !(scan->rmin >= 0.0), w.not_strict |= !(scan->rmin > 0.0);
    w.not_col |= !(scan->cmin >= 0.0);
    if (scan->worst < w.worst) /* on a tie row 0 stays */
      w.worst = scan->worst, w.worst_row = (long)(row0 + scan->worst_row);
    amax = scan->amax > amax ? scan->amax : amax;
    xmax = scan->xmax > xmax ? scan->xmax : xmax;
  }
  for (size_t i = L; i < l; i += BLOCK) { /* the block read once from memory, once from L1 */
    size_t k = l - i < BLOCK ? l - i : BLOCK;
    dd_block(k, a + i, b + i, c + i, c + i - 1, a + i + 1, 1, 1, (long)(row0 + i), &w);
    max_block(k, a + i, b + i, c + i, x + i, 1, 1, &amax, &xmax, &sum);
  }
  dd_block(1, a + l, b + l, c + l, c + l - 1, &down, 1, right, (long)(row0 + l), &w);
  max_block(1, a + l, b + l, c + l, x + l, 1, right, &amax, &xmax, &sum);
  flags[0] = w.not_row, flags[1] = w.not_strict, flags[2] = w.not_col;
  *worst_rel = w.worst, *worst_row = w.worst_row;
  max[0] = xmax, max[1] = amax;
  return sum;
}

void tl_cpu_nshaped_dd_max_slice_d(size_t n, int periodic, size_t row0, size_t m, const double *a,
                                   const double *b, const double *c, const double *x, double up,
                                   double down, int flags[3], double *worst_rel, long *worst_row,
                                   double max[2])
{
  if (m < 3) { /* a row or two: the two functions, each with its own rules */
    tl_cpu_nshaped_dd_slice_d(n, periodic, row0, m, a, b, c, up, down, flags, worst_rel, worst_row);
    tl_cpu_residual_slice_max_d(n, periodic, row0, m, a, b, c, x, max);
    return;
  }
  double sum = dd_max_rows(n, periodic, row0, m, 1, a, b, c, x, up, down, NULL, flags, worst_rel,
                           worst_row, max);
  if (!isfinite(sum)) /* the core loops, with their rules for inf and NaN */
    tl_residual_slice_max(TL_F64, n, periodic, row0, m, a, b, c, x, max);
}

/* ---- the same, with the N-shaped stages' measure of rows 1 .. L-1 ----- */

void tl_cpu_nshaped_dd_max_scan_d(size_t n, int periodic, size_t row0, size_t m, size_t L,
                                  const double *a, const double *b, const double *c,
                                  const double *x, double up, double down,
                                  const tl_cpu_nshaped_scan *scan, int flags[3], double *worst_rel,
                                  long *worst_row, double max[2])
{
  double sum = NAN;
  if (m >= 3 && L >= 2 && L < m && scan)
    sum = dd_max_rows(n, periodic, row0, m, L, a, b, c, x, up, down, scan, flags, worst_rel,
                      worst_row, max);
  /* The pass above sums every |value| to tell a non-finite one, and goes
   * to the core's loops when the sum is not finite. Its 4 m terms are
   * each below DBL_MAX / (8 m) here, so its sum is finite, unless a value
   * of the rows read here is not (the stages flag one of theirs): else
   * its results, from the pass itself. */
  if (isfinite(sum) && (max[0] > max[1] ? max[0] : max[1]) < DBL_MAX / (8.0 * (double)m))
    return;
  tl_cpu_nshaped_dd_max_slice_d(n, periodic, row0, m, a, b, c, x, up, down, flags, worst_rel,
                                worst_row, max);
}
