/* reference/nshaped_ref.c -- the N-shaped partition method.
 *
 * Source: paper 004 (N-shaped), §4 (§4.1.1 partitioning, §4.1.2 stages RD
 * and RU, §4.1.3 JU and JD, §4.1.4 RS, §4.1.5 SS, §4.1.6 iterating, eq 6),
 * Table 1 (the stages), §5.4.1 eqs 7-8 (optimal block counts). Exact (a
 * direct method): Gaussian elimination of the block rows onto the joint
 * lines, a reduced tridiagonal solve, and a substitution.
 *
 * Symbols. Paper 004 writes b_i psi_{i-1} + a_i psi_i + c_i psi_{i+1} =
 * d_i with 1-based rows: its b (lower) is our a, its a (diagonal) our b,
 * its c our c, its psi our x, its n_tot our n, its n_bl our number of
 * blocks, its joint lines J_w (w = 0..n_bl) our joint[w] (0-based rows).
 * Here partition p starts with joint line J_p = begin_p, and row n-1 is
 * the last joint line of a plain system; block w = the rows strictly
 * between J_w and J_{w+1} (empty when they are adjacent). After RD and RU
 * the paper's b_i, a_i, c_i, d_i of a block row are our left[i], diag[i],
 * right[i], rhs[i]; its multiplier r_i is our r.
 *
 * The non-zero structure, n = 11, joint lines 0, 4, 8, 10 (J), block rows
 * (.), x = entry, f = fill created by the stage:
 *
 *   start          after RD         after RU         after JU+JD
 *   J x x          J x x            J x x            J x       f      (joint rows
 *   . x x x        . x x x          . x x   f        . x x   f         now couple
 *   .   x x x      . f x x          . f x   f        . f x   f         only to
 *   .     x x x    . f   x x        . f   x x        . f   x x         joint
 *   J       x x x  J       x x x    J       x x x    J f     x       f columns:
 *   .         x x  .         x x x  .         x x  f .       x x   f   "N"s)
 *   ...            (same per block)
 *
 * RD (Table 1): for i = J_w+2 .. J_{w+1}-1: r = -a_i/diag_{i-1};
 *   diag_i = b_i + r c_{i-1}; left_i = r left_{i-1}; rhs_i = d_i + r rhs_{i-1}.
 * RU: for i = J_{w+1}-2 .. J_w+1: r = -c_i/diag_{i+1};
 *   left_i += r left_{i+1}; right_i = r right_{i+1}; rhs_i += r rhs_{i+1}.
 * JU: joint J_w with f = J_w+1: r = -c_{J_w}/diag_f;
 *   rb_w = b_{J_w} + r left_f; rc_w = r right_f; rd_w = d_{J_w} + r rhs_f.
 * JD: joint J_w with l = J_w-1 (the last row of the block above): r = -a_{J_w}/diag_l;
 *   rb_w += r right_l; ra_w = r left_l; rd_w += r rhs_l.
 * RS: solve tridiag(ra, rb, rc) rx = rd (nj rows; cyclic for periodic).
 * SS (Table 1): x_i = (rhs_i - left_i x_{J_w} - right_i x_{J_{w+1}}) / diag_i.
 *
 * Periodic systems: the joint lines are the partition starts only and
 * the last block wraps to J_0 = row 0, so a[0] and c[n-1] are ordinary
 * couplings to the joint columns and the reduced system is cyclic (P
 * rows, solved by the periodic Thomas algorithm; P = 1 and 2 fold onto
 * themselves as tridlab/system.h defines).
 *
 * Distribution. Paper 004 shares the joint lines between two processes
 * and adds into them atomically (§4.1.3); with distributed memory it
 * proposes "extra memory elements per joint line". Here each joint line
 * belongs to the partition that starts with it, and partition w sends the
 * last row of its block (4 words, msg[]) to partition w+1, which does JD.
 * The stages take each partition's own rows (pointers to its first row),
 * so optimized/mpi/nshaped_mpi.c runs them on one rank's slice around
 * real messages; the one-call solve records the same messages in a
 * ledger (tl_nshaped_ledger_*; docs/algorithms/nshaped.md, "MPI").
 *
 * Cost per partition of m rows (real arithmetic; complex about 4x): RD
 * 1 division + 5 flops a row, RU 1 division + 6 flops, SS 1 division + 4
 * flops: about 18 m flops and 3 m divisions (§5.4: 3(n - n_bl) divisions
 * in parallel). JU, JD: 2 divisions + 6 flops. Messages: one of 4 words
 * to the next partition (JD), one reduced row of 4 words to the root and
 * 2 support values back (RS): 3 messages and 2 synchronisation steps.
 * Root: a Thomas solve of P+1 rows (8(P+1) flops), or the method again.
 * Scratch: 4n words plus 9 words per partition.
 *
 * Domain. Every stage is Gaussian elimination without pivoting on the
 * symmetrically permuted matrix (block rows first, joint lines last), a
 * permutation that keeps diagonal dominance by rows and by columns; RD,
 * RU, JU and JD keep each row dominant (|left| + |right| <= |diag|), so
 * entries stay bounded as in Thomas's algorithm (Higham, Accuracy and
 * Stability of Numerical Algorithms, §9.5). Guaranteed for matrices
 * dominant by rows or by columns (plain systems) and strictly dominant by
 * rows (periodic: weakly dominant cyclic matrices can be singular);
 * outside, the solve returns TL_OUTSIDE_DOMAIN. Paper 004 uses it on
 * Crank-Nicolson matrices, which are strictly dominant. A zero or
 * non-finite pivot is TL_ERR_BREAKDOWN at its row.
 *
 * Underflow (found by fuzzing). SS computes a block row from its reduced
 * row, which JU / JD used, exact, to eliminate it from the joint lines:
 * where SS's terms are subnormal they carry an absolute error up to
 * eps DBL_MIN, which reaches the joint line's residual multiplied by
 * c[J] / diag (or a[J] / diag), of any size when rows are scaled very
 * differently (as in cr_ref.c; residual ratio 1e11 on a dominant complex
 * batch). When SS's terms in some row are below 2 DBL_MIN, the solve
 * measures LAPACK's residual ratio of its answer and returns
 * TL_OUTSIDE_DOMAIN when it is >= 30.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_nshaped.h"

size_t tl_nshaped_optimal_blocks(size_t n)
{
  return tl_nshaped_optimal_blocks_nested(n, 1);
}

size_t tl_nshaped_optimal_blocks_nested(size_t n, int levels)
{
  if (n <= 1 || levels < 1)
    return 1;
  double k = floor(pow((double)n, (double)levels / (levels + 1.0)) + 0.5);
  if (k < 1)
    k = 1;
  if (k > (double)n)
    k = (double)n;
  return (size_t)k;
}

int tl_nshaped_block_row_dest(size_t n, int periodic, int parts, const size_t *begin, int w)
{
  /* Joint line w+1 starts partition w+1; past the last partition it is
   * row n-1 (plain: the last partition owns it) or row 0 (periodic). */
  int last = (w + 1 == parts);
  int extra = !periodic && begin[parts - 1] != n - 1; /* row n-1 is its own joint line */
  if (last && !periodic && !extra)
    return -1; /* no block below the last joint line */
  size_t next = last ? (periodic ? n : n - 1) : begin[w + 1];
  if (next - begin[w] <= 1)
    return -1; /* an empty block sends nothing: JD reads a[J] itself */
  int dest = last ? (periodic ? 0 : parts - 1) : w + 1;
  return dest == w ? -1 : dest;
}

void tl_nshaped_ledger_exchange(tl_ledger *ledger, size_t n, int periodic, int parts,
                                const size_t *begin, size_t nsys, size_t w)
{
  if (!ledger)
    return;
  int root = parts - 1; /* it owns the last joint line of a plain system */
  size_t others = (size_t)parts - 1;
  for (int p = 0; p < parts; p++) {
    int dest = tl_nshaped_block_row_dest(n, periodic, parts, begin, p);
    if (dest >= 0)
      tl_ledger_message(ledger, "block-row", 0, p, dest, TL_NSHAPED_BLOCK_ROW * w * nsys);
  }
  for (int p = 0; p < parts; p++) {
    int r = p == root;
    tl_ledger_collective(ledger, "reduced", 0, TL_LEDGER_GATHER, p, root,
                         r ? 0 : TL_NSHAPED_REDUCED * w * nsys,
                         r ? TL_NSHAPED_REDUCED * w * nsys * others : 0);
    tl_ledger_collective(ledger, "solution", 0, TL_LEDGER_SCATTER, p, root,
                         r ? TL_NSHAPED_SUPPORT * w * nsys * others : 0,
                         r ? 0 : TL_NSHAPED_SUPPORT * w * nsys);
  }
}

void tl_nshaped_ledger_verdict(tl_ledger *ledger, int parts, int periodic, size_t nsys, size_t w,
                               size_t tiny)
{
  tl_ledger_halo(ledger, parts, periodic, 2 * w * nsys);
  size_t pairs = 2 * TL_NSHAPED_VERDICT_PAIRS * nsys;
  tl_ledger_collective_all(ledger, "verdict", 0, TL_LEDGER_ALLREDUCE, parts, -1, pairs, pairs);
  if (tiny) { /* the residual ratio's sums, then its largest column sum */
    tl_ledger_collective_all(ledger, "verdict", 1, TL_LEDGER_ALLREDUCE, parts, -1, 2 * tiny,
                             2 * tiny);
    tl_ledger_collective_all(ledger, "verdict", 2, TL_LEDGER_ALLREDUCE, parts, -1, tiny, tiny);
  }
}

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "nshaped_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "nshaped_ref.c"
#undef TL_TEMPLATE_PASS

static int nshaped_system(const tl_algorithm *self, const tl_batch *one, void *x,
                          const tl_options *opt, tl_info *info)
{
  int levels = (int)tl_param_value(self, opt, "levels");
  int parts = opt ? opt->parts : 1;
  const size_t *sizes = opt ? opt->part_sizes : NULL;
  tl_ledger *ledger = opt ? opt->ledger : NULL;
  if (one->dtype == TL_F64)
    return tl_nshaped_ref_ledger_d(one->n, one->periodic, one->a, one->b, one->c, one->d, x, parts,
                                   sizes, levels, ledger, info);
  return tl_nshaped_ref_ledger_z(one->n, one->periodic, one->a, one->b, one->c, one->d, x, parts,
                                 sizes, levels, ledger, info);
}

/* docs/algorithms/nshaped.md, "MPI": per system a block row to the next
 * partition, a reduced row to the root and two support values back, the
 * halo and the verdict (a solve whose substitution stayed clear of
 * underflow: the usual case; `solved` cannot tell). */
static int nshaped_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                                const tl_options *opt, const tl_info *solved, tl_ledger *out)
{
  (void)self;
  (void)solved;
  int P = opt->parts;
  size_t w = shape->dtype == TL_C128 ? 2 : 1;
  size_t *begin = tl_alloc((size_t)P + 1, sizeof *begin);
  if (!begin)
    return TL_ERR_NOMEM;
  for (int p = 0; p < P; p++) {
    size_t e;
    tl_partition_bounds(shape->n, P, opt->part_sizes, p, &begin[p], &e);
  }
  begin[P] = shape->n;
  tl_ledger_reset(out);
  tl_nshaped_ledger_exchange(out, shape->n, shape->periodic, P, begin, shape->nsys, w);
  tl_nshaped_ledger_verdict(out, P, shape->periodic, shape->nsys, w, 0);
  free(begin);
  return TL_OK;
}

static int nshaped_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                         const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, nshaped_system);
}

static const tl_param nshaped_params[] = {
    {"levels", TL_PARAM_INT, 1, 1, 16, NULL,
     "applications of the method (paper 004 §4.1.6): 1 solves the reduced system by Thomas; "
     "L > 1 solves it by the method again with tl_nshaped_optimal_blocks_nested blocks"},
};

const tl_algorithm tl_algo_nshaped_ref = {
    .name = "nshaped",
    .family = "partition",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_ROW_DD | TL_CLASS_COL_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC | TL_PERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .params = nshaped_params,
    .nparams = 1,
    .summary = "N-shaped partition method: block reductions RD/RU, joins JU/JD, reduced "
               "solve RS, support substitution SS",
    .source = "paper 004 (N-shaped) §4, Table 1, eqs 6-8",
    .solve = nshaped_solve,
    .ledger_model = nshaped_ledger_model,
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

#define ST FN(tl_nshaped_state)
#undef WORDS
#define WORDS (TL_IS_COMPLEX ? 2u : 1u) /* 8-byte words per scalar */

/* Rows of block w: [*first, *last] (empty when *first > *last, as the
 * signed values say). The block below joint w ends before the next joint
 * line (row n for the wrapping block of a periodic system). */
static void FN(block_rows)(const ST *st, size_t w, long *first, long *last)
{
  size_t next = (w + 1 < st->nj) ? st->joint[w + 1] : st->n;
  *first = (long)st->joint[w] + 1;
  *last = (long)next - 1;
}

void FN(tl_nshaped_free)(ST *st)
{
  if (!st)
    return;
  free(st->begin);
  free(st->joint);
  if (!st->rows_lent)
    free(st->left);
  free(st->msg);
  free(st->msg_empty);
  free(st->ra);
  memset(st, 0, sizeof *st);
}

/* The partitions and joint lines (§4.1.1), and room for the block rows
 * of partition `held` (-1: all of them): `rows` when given (zeroed, 4
 * held values), else allocated. */
static int FN(init_held)(ST *st, size_t n, int periodic, int parts, const size_t *part_sizes,
                         int held, S *rows, tl_info *info)
{
  memset(st, 0, sizeof *st);
  if (n == 0 || parts < 1 || (size_t)parts > n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "nshaped: need 1 <= parts <= n (n = %zu, parts = %d)", n, parts);
  size_t P = (size_t)parts;
  st->n = n;
  st->periodic = periodic;
  st->parts = parts;
  st->begin = tl_alloc(P + 1, sizeof(size_t));
  st->joint = tl_alloc(P + 1, sizeof(size_t));
  st->msg = tl_alloc(4 * P, sizeof(S));
  st->msg_empty = tl_alloc(P, 1);
  st->ra = tl_alloc(5 * (P + 1), sizeof(S));
  if (!st->begin || !st->joint || !st->msg || !st->msg_empty || !st->ra)
    goto nomem;
  for (int p = 0; p < parts; p++) {
    size_t b0, e0;
    tl_partition_bounds(n, parts, part_sizes, p, &b0, &e0);
    if (e0 <= b0) {
      FN(tl_nshaped_free)(st);
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "nshaped: partition %d is empty", p);
    }
    st->begin[p] = b0;
    st->joint[p] = b0; /* §4.1.1: every partition starts with a joint line */
  }
  st->begin[P] = n;
  st->nj = P;
  if (!periodic && st->joint[P - 1] != n - 1)
    st->joint[st->nj++] = n - 1; /* J_{n_bl} = n_tot closes a plain system */
  st->nblocks = periodic ? P : st->nj - 1;
  for (size_t w = 0; w < st->nblocks; w++) {
    long f, l;
    FN(block_rows)(st, w, &f, &l);
    st->msg_empty[w] = (unsigned char)(f > l);
  }
  st->row0 = held < 0 ? 0 : st->begin[held];
  st->held = held < 0 ? n : st->begin[held + 1] - st->begin[held];
  st->rows_lent = rows != NULL;
  st->left = rows ? rows : tl_alloc(4 * st->held, sizeof(S));
  if (!st->left)
    goto nomem;
  st->diag = st->left + st->held;
  st->right = st->left + 2 * st->held;
  st->rhs = st->left + 3 * st->held;
  st->rb = st->ra + (P + 1);
  st->rc = st->ra + 2 * (P + 1);
  st->rd = st->ra + 3 * (P + 1);
  st->rx = st->ra + 4 * (P + 1);
  return TL_OK;
nomem:
  FN(tl_nshaped_free)(st);
  return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "nshaped: no memory for n = %zu", n);
}

int FN(tl_nshaped_init)(ST *st, size_t n, int periodic, int parts, const size_t *part_sizes,
                        tl_info *info)
{
  return FN(init_held)(st, n, periodic, parts, part_sizes, -1, NULL, info);
}

int FN(tl_nshaped_init_rank)(ST *st, size_t n, int periodic, int parts, const size_t *part_sizes,
                             int p, tl_info *info)
{
  if (p < 0 || p >= parts)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "nshaped: rank %d of %d partitions", p,
                   parts);
  return FN(init_held)(st, n, periodic, parts, part_sizes, p, NULL, info);
}

int FN(tl_nshaped_init_rank_in)(ST *st, size_t n, int periodic, int parts, const size_t *part_sizes,
                                int p, S *rows, tl_info *info)
{
  if (p < 0 || p >= parts || !rows)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "nshaped: rank %d of %d partitions, rows %s",
                   p, parts, rows ? "given" : "missing");
  return FN(init_held)(st, n, periodic, parts, part_sizes, p, rows, info);
}

/* The block rows of partition p, indexed like its a, b, c, d: row i of
 * the system is entry i - begin[p]. NULL when the state does not hold
 * them (a rank's state asked for another partition). */
typedef struct FN(part_rows) {
  S *left, *diag, *right, *rhs;
  long o; /* begin[p]: subtract from a global row */
} FN(part_rows);

static int FN(rows_of)(const ST *st, int p, FN(part_rows) * r)
{
  size_t o = st->begin[p];
  if (o < st->row0 || st->begin[p + 1] > st->row0 + st->held)
    return TL_ERR_ARG;
  r->left = st->left + (o - st->row0);
  r->diag = st->diag + (o - st->row0);
  r->right = st->right + (o - st->row0);
  r->rhs = st->rhs + (o - st->row0);
  r->o = (long)o;
  return TL_OK;
}

#define NOT_HELD(p)                                                                                \
  TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "nshaped: partition %d's rows are not held here", (p))

/* RD, Table 1: the Thomas forward sweep inside the block, keeping the
 * column of J_w as fill (left). Also packs msg[p], the block's last row,
 * which RU does not change. */
int FN(tl_nshaped_rd)(ST *st, int p, const S *a, const S *b, const S *c, const S *d, tl_info *info)
{
  size_t w = (size_t)p;
  if (w >= st->nblocks || st->msg_empty[w])
    return TL_OK; /* the last partition of a plain system may hold one joint row only */
  FN(part_rows) pr;
  if (FN(rows_of)(st, p, &pr) < 0)
    return NOT_HELD(p);
  long f, l;
  FN(block_rows)(st, w, &f, &l);
  f -= pr.o, l -= pr.o; /* local rows from here on */
  for (long i = f; i <= l; i++) {
    if (i == f) {
      pr.left[i] = a[i];
      pr.diag[i] = b[i];
      pr.rhs[i] = d[i];
    } else {
      S r = -a[i] / pr.diag[i - 1];
      pr.left[i] = r * pr.left[i - 1];
      pr.diag[i] = b[i] + r * c[i - 1];
      pr.rhs[i] = d[i] + r * pr.rhs[i - 1];
    }
    if (pr.diag[i] == 0 || !ISFINITE(pr.diag[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, i + pr.o, "",
                     "nshaped: zero or non-finite pivot at row %ld in stage RD of block %d",
                     i + pr.o, p);
  }
  pr.right[l] = c[l];
  S *m = st->msg + 4 * w; /* what partition p sends to the owner of the next joint line */
  m[0] = pr.left[l];
  m[1] = pr.diag[l];
  m[2] = pr.right[l];
  m[3] = pr.rhs[l];
  return TL_OK;
}

/* RU, Table 1: the backward sweep, which replaces the upper diagonal by
 * the column of J_{w+1} (right) and leaves the pivots alone. */
int FN(tl_nshaped_ru)(ST *st, int p, const S *c)
{
  size_t w = (size_t)p;
  if (w >= st->nblocks)
    return TL_OK;
  FN(part_rows) pr;
  if (FN(rows_of)(st, p, &pr) < 0)
    return TL_ERR_ARG;
  long f, l;
  FN(block_rows)(st, w, &f, &l);
  f -= pr.o, l -= pr.o;
  for (long i = l - 1; i >= f; i--) {
    S r = -c[i] / pr.diag[i + 1];
    pr.left[i] += r * pr.left[i + 1];
    pr.right[i] = r * pr.right[i + 1];
    pr.rhs[i] += r * pr.rhs[i + 1];
  }
  return TL_OK;
}

/* Joint lines owned by partition p: J_p, and row n-1 for the last
 * partition of a plain system with more than one row. */
static size_t FN(owned_joints)(const ST *st, int p, size_t *w0)
{
  *w0 = (size_t)p;
  if (!st->periodic && p == st->parts - 1 && st->nj == (size_t)st->parts + 1)
    return 2;
  return 1;
}

/* JU: the joint line absorbs the first row of the block below it. */
int FN(tl_nshaped_ju)(ST *st, int p, const S *a, const S *b, const S *c, const S *d, tl_info *info)
{
  (void)a;
  FN(part_rows) pr;
  if (FN(rows_of)(st, p, &pr) < 0)
    return NOT_HELD(p);
  size_t w0, k = FN(owned_joints)(st, p, &w0);
  for (size_t w = w0; w < w0 + k; w++) {
    long J = (long)st->joint[w] - pr.o;
    st->rb[w] = b[J];
    st->rd[w] = d[J];
    st->rc[w] = 0;
    if (w >= st->nblocks)
      continue; /* the last joint line of a plain system has no block below */
    if (st->msg_empty[w]) {
      st->rc[w] = c[J]; /* adjacent joint lines couple directly */
      continue;
    }
    long f = J + 1;
    S r = -c[J] / pr.diag[f];
    st->rb[w] += r * pr.left[f];
    st->rc[w] = r * pr.right[f];
    st->rd[w] += r * pr.rhs[f];
  }
  return TL_OK;
}

/* JD: the joint line absorbs the last row of the block above it,
 * received from the partition above in msg[]. */
int FN(tl_nshaped_jd)(ST *st, int p, const S *a, tl_info *info)
{
  size_t w0, k = FN(owned_joints)(st, p, &w0);
  for (size_t w = w0; w < w0 + k; w++) {
    long J = (long)(st->joint[w] - st->begin[p]);
    st->ra[w] = 0;
    if (!st->periodic && w == 0)
      continue; /* row 0 of a plain system has nothing above */
    size_t above = (w + st->nblocks - 1) % st->nblocks;
    if (st->msg_empty[above]) {
      st->ra[w] = a[J];
      continue;
    }
    const S *m = st->msg + 4 * above;
    S r = -a[J] / m[1];
    st->rb[w] += r * m[2];
    st->ra[w] = r * m[0];
    st->rd[w] += r * m[3];
  }
  for (size_t w = w0; w < w0 + k; w++)
    if (st->rb[w] == 0 || !ISFINITE(st->rb[w]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)st->joint[w], "",
                     "nshaped: zero or non-finite diagonal on joint line %zu (row %zu) after "
                     "JU and JD",
                     w, st->joint[w]);
  return TL_OK;
}

static int FN(nshaped_run)(size_t n, int periodic, const S *a, const S *b, const S *c, const S *d,
                           S *x, int parts, const size_t *part_sizes, int levels, int *tiny,
                           tl_ledger *ledger, tl_info *info);

/* RS: the reduced (tridiagonal, or cyclic) system of the joint lines. */
int FN(tl_nshaped_rs)(ST *st, int levels, tl_info *info)
{
  size_t nj = st->nj;
  tl_info inner;
  tl_info_clear(&inner);
  int s;
  if (levels > 1 && nj > 2) {
    /* §4.1.6: the reduced system is solved by the method itself (eq 6). */
    size_t q = tl_nshaped_optimal_blocks_nested(nj, levels - 1);
    s = FN(nshaped_run)(nj, st->periodic, st->ra, st->rb, st->rc, st->rd, st->rx, (int)q, NULL,
                        levels - 1, &st->tiny, NULL, &inner);
  } else if (st->periodic) {
    s = FN(tl_thomas_periodic_ref)(nj, st->ra, st->rb, st->rc, st->rd, st->rx, &inner);
  } else {
    s = FN(tl_thomas_ref)(nj, st->ra, st->rb, st->rc, st->rd, st->rx, &inner);
  }
  if (s < 0) {
    long row = (inner.row >= 0 && (size_t)inner.row < nj) ? (long)st->joint[inner.row] : -1;
    return TL_FAIL(info, s, -1, row, inner.arg,
                   "nshaped: the reduced system of the joint lines failed at row %ld (%s)", row,
                   inner.msg);
  }
  return TL_OK; /* a positive status of the inner solve is superseded by our domain check */
}

/* SS, Table 1: every block row from the two support values around it. */
int FN(tl_nshaped_ss)(const ST *st, int p, S *x, tl_info *info)
{
  FN(part_rows) pr;
  if (FN(rows_of)(st, p, &pr) < 0)
    return NOT_HELD(p);
  size_t w0, k = FN(owned_joints)(st, p, &w0);
  for (size_t w = w0; w < w0 + k; w++)
    x[st->joint[w] - st->begin[p]] = st->rx[w];
  if ((size_t)p < st->nblocks) {
    size_t w = (size_t)p;
    long f, l;
    FN(block_rows)(st, w, &f, &l);
    S xl = st->rx[w], xr = st->rx[(w + 1) % st->nj];
    for (long i = f - pr.o; i <= l - pr.o; i++)
      x[i] = (pr.rhs[i] - pr.left[i] * xl - pr.right[i] * xr) / pr.diag[i];
  }
  for (size_t i = 0; i < st->begin[p + 1] - st->begin[p]; i++)
    if (!ISFINITE(x[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(i + st->begin[p]), "",
                     "nshaped: non-finite solution at row %zu (overflow)", i + st->begin[p]);
  return TL_OK;
}

/* 1 when SS took a row of block p from terms near the underflow
 * threshold (see "Underflow" above). */
int FN(tl_nshaped_ss_tiny)(const ST *st, int p)
{
  FN(part_rows) pr;
  if ((size_t)p >= st->nblocks || FN(rows_of)(st, p, &pr) < 0)
    return 0;
  long f, l;
  FN(block_rows)(st, (size_t)p, &f, &l);
  S xl = st->rx[p], xr = st->rx[((size_t)p + 1) % st->nj];
  for (long i = f - pr.o; i <= l - pr.o; i++)
    if (ABS(pr.rhs[i]) + ABS(pr.left[i] * xl) + ABS(pr.right[i] * xr) < 2 * DBL_MIN)
      return 1;
  return 0;
}

/* All stages in the order of Table 1; no domain check (also used for the
 * nested reduced solves). *tiny becomes 1 when a substitution ran near
 * the underflow threshold. The ledger (may be NULL) gets what P ranks
 * would exchange: the block rows JD reads from msg[], the gathered
 * reduced rows and the scattered support values. */
static int FN(nshaped_run)(size_t n, int periodic, const S *a, const S *b, const S *c, const S *d,
                           S *x, int parts, const size_t *part_sizes, int levels, int *tiny,
                           tl_ledger *ledger, tl_info *info)
{
  ST st;
  int status = FN(tl_nshaped_init)(&st, n, periodic, parts, part_sizes, info);
  if (status < 0)
    return status;
  const size_t *o = st.begin; /* the stages take each partition's first row */
  for (int p = 0; p < parts; p++)
    TL_CHECK(FN(tl_nshaped_rd)(&st, p, a + o[p], b + o[p], c + o[p], d + o[p], info));
  for (int p = 0; p < parts; p++)
    TL_CHECK(FN(tl_nshaped_ru)(&st, p, c + o[p]));
  for (int p = 0; p < parts; p++)
    TL_CHECK(FN(tl_nshaped_ju)(&st, p, a + o[p], b + o[p], c + o[p], d + o[p], info));
  /* The exchange: msg[] of each block to the owner of the next joint
   * line, the reduced rows to the root and the support values back. */
  tl_nshaped_ledger_exchange(ledger, n, periodic, parts, st.begin, 1, WORDS);
  for (int p = 0; p < parts; p++) /* after the exchange of msg[] */
    TL_CHECK(FN(tl_nshaped_jd)(&st, p, a + o[p], info));
  TL_CHECK(FN(tl_nshaped_rs)(&st, levels, info));
  *tiny |= st.tiny;
  for (int p = 0; p < parts; p++) {
    TL_CHECK(FN(tl_nshaped_ss)(&st, p, x + o[p], info));
    *tiny |= FN(tl_nshaped_ss_tiny)(&st, p);
  }
cleanup:
  FN(tl_nshaped_free)(&st);
  return status;
}

void FN(tl_nshaped_dd_slice)(size_t n, int periodic, size_t row0, size_t m, const S *a, const S *b,
                             const S *c, double up, double down, int flags[3], double *worst_rel,
                             long *worst_row)
{
  flags[0] = flags[1] = flags[2] = 0;
  *worst_rel = INFINITY;
  *worst_row = m ? (long)row0 : -1;
  for (size_t i = 0; i < m; i++) {
    size_t g = row0 + i; /* as tl_classes_*: the ends of a plain system have no corner */
    double left = (g > 0 || periodic) ? ABS(a[i]) : 0.0;
    double right = (g + 1 < n || periodic) ? ABS(c[i]) : 0.0;
    /* Column g holds c[g-1] above and a[g+1] below the diagonal. */
    double above = i > 0 ? ABS(c[i - 1]) : up, below = i + 1 < m ? ABS(a[i + 1]) : down;
    double bi = ABS(b[i]), margin = bi - (left + right);
    flags[0] |= !(margin >= 0.0);
    flags[1] |= !(margin > 0.0);
    flags[2] |= !(bi - (above + below) >= 0.0);
    double rel = bi > 0.0 ? margin / bi : -INFINITY;
    if (rel < *worst_rel) {
      *worst_rel = rel;
      *worst_row = (long)g;
    }
  }
}

int FN(tl_nshaped_ref_ledger)(size_t n, int periodic, const S *a, const S *b, const S *c,
                              const S *d, S *x, int parts, const size_t *part_sizes, int levels,
                              tl_ledger *ledger, tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "nshaped: n must be >= 1 and no array may be NULL");
  if (levels < 1)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "nshaped: levels = %d must be >= 1", levels);
  S fa[2], fb[2], fc[2]; /* periodic n <= 2: its entries folded (tridlab/system.h) */
  TL_CALL(FOLD_PERIODIC("nshaped", n, periodic, &a, &b, &c, fa, fb, fc, info));
  int tiny = 0;
  int status =
      FN(nshaped_run)(n, periodic, a, b, c, d, x, parts, part_sizes, levels, &tiny, ledger, info);
  if (status < 0)
    return status;
  long worst = -1;
  unsigned cls = CLASSES(n, a, b, c, periodic, &worst);
  unsigned need = periodic ? TL_CLASS_STRICT_DD : (TL_CLASS_ROW_DD | TL_CLASS_COL_DD);
  /* Under MPI: a halo, one allreduce, and two more for a tiny system. */
  tl_nshaped_ledger_verdict(ledger, parts, periodic, 1, WORDS, tiny && (cls & need));
  if (cls & need)
    return tiny ? tl_residual_check("nshaped", TL_IS_COMPLEX ? TL_C128 : TL_F64, n, periodic, a, b,
                                    c, d, x, TL_NSHAPED_TINY_WHY, info)
                : TL_OK;
  return TL_WARN(info, worst, TL_NSHAPED_DD_MSG, periodic ? "strictly (periodic)" : "row or column",
                 worst);
}

int FN(tl_nshaped_ref)(size_t n, int periodic, const S *a, const S *b, const S *c, const S *d, S *x,
                       int parts, const size_t *part_sizes, int levels, tl_info *info)
{
  return FN(tl_nshaped_ref_ledger)(n, periodic, a, b, c, d, x, parts, part_sizes, levels, NULL,
                                   info);
}

#undef NOT_HELD
#undef ST
#endif
