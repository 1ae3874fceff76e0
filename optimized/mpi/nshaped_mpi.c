/* optimized/mpi/nshaped_mpi.c -- the N-shaped partition method across MPI
 * ranks.
 *
 * The rank program of reference/nshaped_ref.c (paper 004 §4, Table 1):
 * rank p is partition p and runs the same stages (tridlab/part_nshaped.h,
 * a state holding its own rows: tl_nshaped_init_rank) on its rows of
 * every system of the batch. What the simulated partitions pass in msg[]
 * and in the reduced system travels here once for the whole batch
 * (docs/algorithms/nshaped.md, "MPI"):
 *
 *   stage                   rank p-1          rank p           root P-1
 *   RD, RU, JU              its block         its block        its block
 *   "block-row"             -- last row of its block (4) -->
 *   JD                                        joint line J_p
 *   "reduced" (gather)                        -- ra rb rc rd (4) -->
 *   RS                                                         Thomas on
 *                                                              P or P+1 rows
 *   "solution" (scatter)                      <-- rx[p], rx[p+1] (2) --
 *   SS                      its block         its block        its block
 *   "halo", "verdict": the reference's domain check (dominance by rows or
 *   columns; the residual ratio where SS ran near underflow)
 *
 * The root is the last rank: it owns the last joint line of a plain
 * system (row n-1), so every rank sends the same 4 scalars. Rank P-1
 * solving the reduced system is the reference's arithmetic bit for bit
 * (levels > 1 included); a rank whose rows broke down still sends
 * (zeros), so nobody waits, and the first failure in the reference's
 * order wins (status_mpi.c).
 *
 * Cost per rank: the reference's flops on its m rows per system (about
 * 18 m flops, 3 m divisions); the root adds the reduced solve (8 (P+1)
 * flops per system). Messages per rank: 1 block row, 1 gather, 1 scatter,
 * 2 halo messages and 1 allreduce, whatever the batch size.
 *
 * In double the local stages run on the whole batch at once
 * (optimized/cpu/nshaped_cpu.c, the reference's operations and so its
 * bits): RD, RU and JU eight systems at a time, one per vector lane,
 * where the reference runs one chain of dependent divisions per system;
 * SS eight rows at a time. A system they flag (a zero or non-finite
 * pivot in RD, a non-finite x in SS) runs the reference's stage again,
 * which gives its report. Complex batches run the reference's stages.
 * The two also measure what the verdict needs of the block's rows
 * (tl_cpu_nshaped_scan: margins, weakest row, maxima), so the verdict
 * reads only the rows at the block's ends of a system they did not flag
 * (on one rank as well: there the slice is the matrix).
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/algorithms.h"
#include "tridlab/cpu.h"
#include "tridlab/part_nshaped.h"

extern const tl_algorithm tl_algo_nshaped_ref; /* the simulated reference */

/* Stages in the reference's order (the order failures are met). */
enum { PH_RD = 1, PH_RU = 2, PH_JU = 3, PH_JD = 4, PH_RS = 5, PH_SS = 6 };

/* The verdict's pairs per system (TL_NSHAPED_VERDICT_PAIRS). */
enum { V_STATUS, V_WEAKEST, V_NOT_ROW, V_NOT_STRICT, V_NOT_COL, V_TINY, V_XMAX, V_AMAX };

/* What every rank knows of the partitions: begin[0..P] from the slices. */
typedef struct ns_plan {
  tl_mpi_exchange *ex;
  const tl_mpi_batch *sl;
  const size_t *slices;
  size_t *begin;
  int levels;
  int src, dst;  /* the block row comes from src and goes to dst (-1: none) */
  int own_check; /* the entries checked in the local stages (own_entry_check) */
} ns_plan;

static int ns_rank_d(ns_plan *pl, double *x, tl_info *info);
static int ns_rank_z(ns_plan *pl, double complex *x, tl_info *info);

static int nshaped_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                             const tl_mpi_batch *sl, const size_t *slices, void *x,
                             const tl_options *opt, tl_info *info)
{
  int P = ex->size, p = ex->rank;
  ns_plan pl = {.ex = ex, .sl = sl, .slices = slices};
  pl.levels = (int)tl_param_value(self, opt, "levels");
  pl.own_check = self->mpi->own_entry_check;
  pl.begin = tl_alloc((size_t)P + 1, sizeof(size_t));
  if (!pl.begin)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "nshaped: no memory for %d ranks", P);
  for (int q = 0; q < P; q++)
    pl.begin[q + 1] = pl.begin[q] + slices[q];
  pl.dst = tl_nshaped_block_row_dest(sl->n, sl->periodic, P, pl.begin, p);
  int above = (p + P - 1) % P; /* the block above joint line J_p */
  pl.src = (p > 0 || sl->periodic) &&
                   tl_nshaped_block_row_dest(sl->n, sl->periodic, P, pl.begin, above) == p
               ? above
               : -1;
  int status = sl->dtype == TL_F64 ? ns_rank_d(&pl, x, info) : ns_rank_z(&pl, x, info);
  free(pl.begin);
  return status;
}

static const tl_mpi_program nshaped_program = {
    .crosses = "last block row to the next rank, joint rows gathered on the last rank, its "
               "reduced solve, two support values back, verdict",
    .solve = nshaped_mpi_solve,
    .own_entry_check = 1, /* in the batched reduction's pass over the slice */
};

const tl_algorithm tl_mpi_algo_nshaped = {
    .name = "nshaped_mpi",
    .backend = "mpi",
    .reference = &tl_algo_nshaped_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &nshaped_program,
};

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "nshaped_mpi.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "nshaped_mpi.c"
#undef TL_TEMPLATE_PASS

#else /* ---- the rank program, once for S = double and S = double complex ---- */

#define ST FN(tl_nshaped_state)

/* 1: the local stages of a double batch run on the batched kernels of
 * optimized/cpu/ (complex: the reference's, system after system). */
#undef NS_BATCHED
#define NS_BATCHED (!TL_IS_COMPLEX)

/* One rank's solve of the batch: a state per system, holding its rows. */
typedef struct FN(ns_run) {
  ns_plan *pl;
  ST *st;
  S *rows;                /* every system's block rows, 4 m each (the states') */
  unsigned char *bad;     /* 1: the system failed on this rank            */
  unsigned char *tiny;    /* 1: SS (or the root's nested RS) near underflow */
  unsigned char *flag;    /* 1: a batched stage flagged it (NS_BATCHED)      */
  unsigned char *noscan;  /* 1: scan[s] does not stand for its rows          */
  tl_cpu_nshaped_scan *scan; /* the verdict's measure, from the batched stages */
  int own_check, suspect; /* own_entry_check; 1: an entry here is not fine */
  S *buf;                 /* 4 nsys out, 4 nsys in, then sup and ju:       */
  S *sup;                 /* 2 nsys: x of J_p and of the next joint line    */
  S *ju;                  /* 3 nsys: J_p's rb, rc, rd from the batched JU  */
  tl_mpi_status stat;
} FN(ns_run);

static void FN(ns_free)(FN(ns_run) * r)
{
  for (size_t s = 0; r->st && s < r->pl->sl->nsys; s++)
    FN(tl_nshaped_free)(&r->st[s]);
  free(r->st);
  free(r->bad);
  free(r->buf);
  free(r->scan);
  tl_mpi_status_free(&r->stat);
}

static void FN(ns_note)(FN(ns_run) * r, size_t s, int phase, int status, const tl_info *one)
{
  if (status < 0)
    r->bad[s] = 1;
  tl_mpi_status_note(&r->stat, s, phase, status, one);
}

#define ROWS(arr, s) ((const S *)(arr) + (s)*sl->m)

#if NS_BATCHED
/* The last row of this rank's block, counted from its joint line J_p
 * (row 0): the reference's block rows, the same in every system. 0 when
 * the block is empty, when there is none (the last rank of a plain
 * system may hold its joint lines only) or when no state was made: the
 * batched stages then leave every system to the reference's. */
static size_t FN(ns_block_last)(const FN(ns_run) * r)
{
  const ST *st = &r->st[0];
  size_t p = (size_t)r->pl->ex->rank;
  if (r->pl->sl->nsys == 0 || !st->joint || p >= st->nblocks || st->msg_empty[p])
    return 0;
  size_t next = p + 1 < st->nj ? st->joint[p + 1] : st->n; /* periodic: it wraps */
  return next - st->begin[p] - 1;
}

/* A system the batched RD, RU, JU did not flag: its block rows are in
 * place; the state gets what the reference's RD and JU write besides
 * them. msg[p], the block's last row (row L, which RU leaves alone), and
 * the joint rows: J_p's from the batched JU, and where row m-1 is the
 * last joint line of a plain system (L = m-2), that line as it is: no
 * block lies below it. */
static void FN(ns_take)(FN(ns_run) * r, size_t s, size_t L)
{
  const tl_mpi_batch *sl = r->pl->sl;
  ST *st = &r->st[s];
  size_t p = (size_t)r->pl->ex->rank, m = sl->m;
  S *msg = st->msg + TL_NSHAPED_BLOCK_ROW * p;
  msg[0] = st->left[L], msg[1] = st->diag[L], msg[2] = st->right[L], msg[3] = st->rhs[L];
  const S *ju = r->ju + 3 * s;
  st->rb[p] = ju[0], st->rc[p] = ju[1], st->rd[p] = ju[2];
  if (L + 2 == m) {
    st->rb[p + 1] = ROWS(sl->b, s)[m - 1], st->rd[p + 1] = ROWS(sl->d, s)[m - 1];
    st->rc[p + 1] = 0;
  }
}
#endif

/* RD, RU, JU on this rank's block of every system; a failed system is
 * skipped from then on. In double the three run eight systems at once
 * (tl_cpu_nshaped_reduce_d, the reference's bits, into the states' block
 * rows); a system they flag runs the reference's stages, for its report. */
static void FN(ns_local)(FN(ns_run) * r)
{
  const tl_mpi_batch *sl = r->pl->sl;
  int p = r->pl->ex->rank;
#if NS_BATCHED
  size_t L = FN(ns_block_last)(r);
  tl_cpu_nshaped_reduce_scan_d(sl->m, L, sl->nsys, sl->a, sl->b, sl->c, sl->d, r->rows, r->ju,
                               r->flag, r->scan);
  for (size_t s = 0; s < sl->nsys; s++)
    r->noscan[s] = r->flag[s]; /* the reference's stages run there */
  /* own_entry_check: the kernel checked rows 0 .. L of the systems it did
   * not flag as it read them; the rows after L and the corners of all,
   * and a flagged system whole, here. */
  if (r->own_check)
    r->suspect |= !tl_mpi_corners_fine(sl, 0, sl->nsys) ||
                  (L + 1 < sl->m && !tl_mpi_rows_finite(sl, 0, sl->nsys, L + 1, sl->m));
#endif
  for (size_t s = 0; s < sl->nsys; s++) {
    tl_info one;
    tl_info_clear(&one);
    ST *st = &r->st[s];
#if NS_BATCHED
    if (!r->bad[s] && !r->flag[s]) {
      FN(ns_take)(r, s, L);
      continue;
    }
#endif
    if (r->own_check)
      r->suspect |= !tl_mpi_entries_scan(sl, s, 1);
    if (!r->bad[s])
      FN(ns_note)
    (r, s, PH_RD,
     FN(tl_nshaped_rd)(st, p, ROWS(sl->a, s), ROWS(sl->b, s), ROWS(sl->c, s), ROWS(sl->d, s), &one),
     &one);
    if (!r->bad[s])
      FN(ns_note)(r, s, PH_RU, FN(tl_nshaped_ru)(st, p, ROWS(sl->c, s)), &one);
    if (!r->bad[s])
      FN(ns_note)
    (r, s, PH_JU,
     FN(tl_nshaped_ju)(st, p, ROWS(sl->a, s), ROWS(sl->b, s), ROWS(sl->c, s), ROWS(sl->d, s), &one),
     &one);
  }
}

/* "block-row": msg[p] of every system to the owner of J_{p+1}; the block
 * above J_p arrives into msg[src]. Then JD. */
static int FN(ns_block_rows)(FN(ns_run) * r)
{
  ns_plan *pl = r->pl;
  const tl_mpi_batch *sl = pl->sl;
  size_t nsys = sl->nsys, B = TL_NSHAPED_BLOCK_ROW;
  int p = pl->ex->rank;
  S *out = r->buf, *in = r->buf + B * nsys;
  for (size_t s = 0; s < nsys; s++) /* (a state that could not be made has none: zeros) */
    if (r->st[s].msg)
      memcpy(out + B * s, r->st[s].msg + B * (size_t)p, B * sizeof(S));
  TL_CALL(tl_mpi_shift(pl->ex, "block-row", 0, sl->dtype, out, B * nsys, pl->dst, in, B * nsys,
                       pl->src));
  for (size_t s = 0; s < nsys; s++) {
    if (pl->src >= 0 && r->st[s].msg)
      memcpy(r->st[s].msg + B * (size_t)pl->src, in + B * s, B * sizeof(S));
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    FN(ns_note)(r, s, PH_JD, FN(tl_nshaped_jd)(&r->st[s], p, ROWS(sl->a, s), &one), &one);
  }
  return TL_OK;
}

/* The root's RS for system s from the gathered joint rows (rank q's 4
 * nsys scalars, system after system), and every rank's two support
 * values into sup (rank-major, 2 per system). */
static void FN(ns_root_solve)(FN(ns_run) * r, size_t s, const S *all, S *sup)
{
  ns_plan *pl = r->pl;
  size_t P = (size_t)pl->ex->size, nsys = pl->sl->nsys, R = TL_NSHAPED_REDUCED;
  ST *st = &r->st[s];
  for (size_t q = 0; q + 1 < P; q++) { /* the root's own rows are in st already */
    const S *row = all + (q * nsys + s) * R;
    st->ra[q] = row[0], st->rb[q] = row[1], st->rc[q] = row[2], st->rd[q] = row[3];
  }
  tl_info one;
  tl_info_clear(&one);
  FN(ns_note)(r, s, PH_RS, FN(tl_nshaped_rs)(st, pl->levels, &one), &one);
  if (r->bad[s])
    return;
  r->tiny[s] |= (unsigned char)st->tiny;
  for (size_t q = 0; q < P; q++) {
    sup[(q * nsys + s) * 2] = st->rx[q];
    sup[(q * nsys + s) * 2 + 1] = st->rx[(q + 1) % st->nj];
  }
}

/* "reduced" (gather on the last rank), RS there, "solution" (scatter). */
static int FN(ns_reduced)(FN(ns_run) * r)
{
  ns_plan *pl = r->pl;
  tl_mpi_exchange *ex = pl->ex;
  size_t P = (size_t)ex->size, nsys = pl->sl->nsys, R = TL_NSHAPED_REDUCED;
  int p = ex->rank, root = (int)P - 1;
  S *mine = r->buf, *sup = r->sup;
  S *all = p == root ? tl_alloc((R + 2) * nsys * P, sizeof(S)) : NULL;
  if (p == root && !all)
    return TL_ERR_NOMEM;
  for (size_t s = 0; s < nsys; s++) {
    const ST *st = &r->st[s];
    if (!st->ra)
      continue; /* no state: zeros */
    S row[4] = {st->ra[p], st->rb[p], st->rc[p], st->rd[p]};
    memcpy(mine + R * s, row, sizeof row); /* a failed system sends what it has */
  }
  int status = tl_mpi_gather(ex, "reduced", 0, pl->sl->dtype, mine, R * nsys, all, root);
  S *sup_all = all ? all + R * nsys * P : NULL;
  for (size_t s = 0; p == root && status == TL_OK && s < nsys; s++)
    if (!r->bad[s])
      FN(ns_root_solve)(r, s, all, sup_all);
  if (status == TL_OK)
    status = tl_mpi_scatter(ex, "solution", 0, pl->sl->dtype, sup_all, 2 * nsys, sup, root);
  for (size_t s = 0; status == TL_OK && s < nsys; s++) {
    ST *st = &r->st[s];
    if (!st->rx)
      continue;
    st->rx[p] = sup[2 * s];
    st->rx[((size_t)p + 1) % st->nj] = sup[2 * s + 1];
  }
  free(all);
  return status;
}

/* SS on this rank's rows of every system. In double, eight rows at a
 * time (tl_cpu_nshaped_substitute_d, the reference's bits) from the
 * support values as they came; a system it flags runs the reference's
 * SS, for its report. */
static void FN(ns_substitute)(FN(ns_run) * r, S *x)
{
  const tl_mpi_batch *sl = r->pl->sl;
  int p = r->pl->ex->rank;
#if NS_BATCHED
  memset(r->flag, 0, sl->nsys);
  tl_cpu_nshaped_substitute_scan_d(sl->m, FN(ns_block_last)(r), sl->nsys, r->rows, r->sup, r->bad,
                                   x, r->tiny, r->flag, r->scan);
  for (size_t s = 0; s < sl->nsys; s++)
    r->noscan[s] |= r->flag[s] | r->bad[s];
#endif
  for (size_t s = 0; s < sl->nsys; s++) {
    if (r->bad[s] || (NS_BATCHED && !r->flag[s]))
      continue;
    tl_info one;
    tl_info_clear(&one);
    FN(ns_note)(r, s, PH_SS, FN(tl_nshaped_ss)(&r->st[s], p, x + s * sl->m, &one), &one);
    if (!r->bad[s])
      r->tiny[s] |= (unsigned char)FN(tl_nshaped_ss_tiny)(&r->st[s], p);
  }
}

/* The slice's largest |x| and |A| (the residual's scale): the rows in
 * SIMD lanes where the batch is real, the core's loop else. */
static void FN(ns_maxima)(const tl_mpi_batch *sl, const S *a, const S *b, const S *c, const S *x,
                          double max[2])
{
#if NS_BATCHED
  tl_cpu_residual_slice_max_d(sl->n, sl->periodic, sl->begin, sl->m, a, b, c, x, max);
#else
  tl_residual_slice_max(sl->dtype, sl->n, sl->periodic, sl->begin, sl->m, a, b, c, x, max);
#endif
}

/* This rank's verdict pairs of system s (all but the status). One rank
 * judges the whole matrix as the reference does (tl_classes_*, which
 * knows the folded periodic systems of 1 and 2 rows). */
static void FN(ns_pairs)(FN(ns_run) * r, size_t s, const S *x, const S *halo, double *q)
{
  const tl_mpi_batch *sl = r->pl->sl;
  const S *a = ROWS(sl->a, s), *b = ROWS(sl->b, s), *c = ROWS(sl->c, s);
  int flags[3];
  double rel, max[2];
  long row;
  if (r->pl->ex->size == 1) {
    int done = 0;
#if NS_BATCHED
    /* The slice is the matrix: the rows classified as tl_classes does it
     * (the same margins, the same weakest row), from what RD and SS
     * measured; its ends' columns wrap where the system does. Not for a
     * periodic system of 1 or 2 rows, which tl_classes folds. */
    if (r->scan && !r->noscan[s] && sl->n >= 3) {
      double up = sl->periodic ? ABS(c[sl->n - 1]) : 0.0, down = sl->periodic ? ABS(a[0]) : 0.0;
      tl_cpu_nshaped_dd_max_scan_d(sl->n, sl->periodic, 0, sl->m, FN(ns_block_last)(r), a, b, c, x,
                                   up, down, &r->scan[s], flags, &rel, &row, max);
      done = 1;
    }
#endif
    if (!done) {
      unsigned cls = CLASSES(sl->n, a, b, c, sl->periodic, &row);
      flags[0] = !(cls & TL_CLASS_ROW_DD);
      flags[1] = !(cls & TL_CLASS_STRICT_DD);
      flags[2] = !(cls & TL_CLASS_COL_DD);
      FN(ns_maxima)(sl, a, b, c, x, max);
    }
    rel = 0.0;
  } else {
#if NS_BATCHED /* the rows in SIMD lanes, the same bits; the maxima in the same pass */
    if (r->scan && !r->noscan[s]) /* rows 1 .. L-1 as RD and SS measured them */
      tl_cpu_nshaped_dd_max_scan_d(sl->n, sl->periodic, sl->begin, sl->m, FN(ns_block_last)(r), a,
                                   b, c, x, ABS(halo[2]), ABS(halo[3]), &r->scan[s], flags, &rel,
                                   &row, max);
    else
      tl_cpu_nshaped_dd_max_slice_d(sl->n, sl->periodic, sl->begin, sl->m, a, b, c, x, ABS(halo[2]),
                                    ABS(halo[3]), flags, &rel, &row, max);
#else
    FN(tl_nshaped_dd_slice)
    (sl->n, sl->periodic, sl->begin, sl->m, a, b, c, ABS(halo[2]), ABS(halo[3]), flags, &rel, &row);
    FN(ns_maxima)(sl, a, b, c, x, max);
#endif
  }
  double v[TL_NSHAPED_VERDICT_PAIRS][2] = {
      [V_WEAKEST] = {-rel, (double)row}, [V_NOT_ROW] = {flags[0], -1.0},
      [V_NOT_STRICT] = {flags[1], -1.0}, [V_NOT_COL] = {flags[2], -1.0},
      [V_TINY] = {r->tiny[s], -1.0},     [V_XMAX] = {max[0], -1.0},
      [V_AMAX] = {max[1], -1.0}};
  memcpy(q + 2, v[1], sizeof v - sizeof v[0]);
}

/* Per system after the allreduce: the reference's verdict. The residual
 * ratio (rounds 1 and 2) only for the systems whose SS ran near
 * underflow, as the reference measures it only for them. */
static int FN(ns_decide)(FN(ns_run) * r, const S *x, const S *halo, double *pairs, tl_info *info)
{
  const tl_mpi_batch *sl = r->pl->sl;
  size_t nsys = sl->nsys, k = 0, V = TL_NSHAPED_VERDICT_PAIRS;
  size_t *which = tl_alloc(nsys, sizeof(size_t));
  double *max = tl_alloc(3 * nsys, sizeof(double)), *ratio = max ? max + 2 * nsys : NULL;
  int *in_domain = tl_alloc(nsys, sizeof(int)), status = TL_OK;
  if (!which || !max || !in_domain) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "nshaped: no memory for the verdict");
    goto cleanup;
  }
  for (size_t s = 0; s < nsys; s++) {
    const double *q = pairs + 2 * V * s;
    in_domain[s] = sl->periodic ? !q[2 * V_NOT_STRICT] : (!q[2 * V_NOT_ROW] || !q[2 * V_NOT_COL]);
    if (in_domain[s] && q[2 * V_TINY]) {
      max[2 * k] = q[2 * V_XMAX], max[2 * k + 1] = q[2 * V_AMAX];
      which[k++] = s;
    }
  }
  if (k && (status = tl_mpi_residual_ratios(r->pl->ex, sl, x, halo, which, k, max, NULL, ratio)) < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "nshaped: the residual ratio's exchange failed");
    goto cleanup;
  }
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0, j = 0; s < nsys; s++) {
    const double *q = pairs + 2 * V * s;
    tl_info one;
    tl_info_clear(&one);
    int st = TL_OK;
    long worst = (long)q[2 * V_WEAKEST + 1];
    if (!in_domain[s])
      st = TL_WARN(&one, worst, TL_NSHAPED_DD_MSG,
                   sl->periodic ? "strictly (periodic)" : "row or column", worst);
    else if (j < k && which[j] == s)
      st = tl_residual_verdict("nshaped", ratio[j++], TL_NSHAPED_TINY_WHY, &one);
    tl_outcome_add(&out, s, st, &one);
  }
  status = tl_outcome_finish(&out, info);
cleanup:
  free(which);
  free(max);
  free(in_domain);
  return status;
}

/* "halo", "verdict": the same status on every rank. */
static int FN(ns_verdict)(FN(ns_run) * r, const S *x, tl_info *info)
{
  const tl_mpi_batch *sl = r->pl->sl;
  size_t nsys = sl->nsys, V = TL_NSHAPED_VERDICT_PAIRS;
  S *halo = tl_alloc(4 * nsys, sizeof(S));
  double *pairs = tl_alloc(2 * V * nsys, sizeof(double));
  int status = TL_OK;
  if (!halo || !pairs) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "nshaped: no memory for the verdict");
    goto cleanup;
  }
  status = tl_mpi_residual_halo(r->pl->ex, sl, x, halo);
  tl_mpi_status_pairs(&r->stat, pairs, V);
  for (size_t s = 0; status == TL_OK && s < nsys; s++)
    FN(ns_pairs)(r, s, x + s * sl->m, halo + 4 * s, pairs + 2 * V * s);
  if (status == TL_OK)
    status = tl_mpi_allreduce_pairs(r->pl->ex, "verdict", 0, pairs, V * nsys);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "nshaped: the verdict's exchange failed");
    goto cleanup;
  }
  status = tl_mpi_status_first_error(&r->stat, pairs, V, info);
  if (status == 0) /* no system failed: decide each from the reduced numbers */
    status = FN(ns_decide)(r, x, halo, pairs, info);
cleanup:
  free(halo);
  free(pairs);
  return status;
}

static int FN(ns_rank)(ns_plan *pl, S *x, tl_info *info)
{
  const tl_mpi_batch *sl = pl->sl;
  size_t nsys = sl->nsys;
  int P = pl->ex->size, p = pl->ex->rank;
  FN(ns_run) run = {.pl = pl, .own_check = pl->own_check}, *r = &run;
  TL_CALL(tl_mpi_status_init(&r->stat, pl->ex, nsys, info));
  r->st = tl_alloc(nsys, sizeof(ST));
  r->bad = tl_alloc(4 * nsys, 1);
  r->buf = tl_alloc(13 * nsys, sizeof(S));
  /* Every system's block rows (4 per own row), in the rank's scratch kept
   * from one solve to the next rather than fresh pages per system; not
   * zeroed (that cost 4 % of the solve): the stages, batched or the
   * reference's, read only the block's rows, after RD and RU wrote them. */
  S *rows = r->rows = tl_mpi_scratch_dirty(4 * sl->m * nsys, sizeof(S));
  int status = TL_OK;
  if (!r->st || !r->bad || !r->buf || !rows) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "nshaped: no memory for %zu systems", nsys);
    goto cleanup;
  }
  r->tiny = r->bad + nsys, r->flag = r->bad + 2 * nsys, r->noscan = r->bad + 3 * nsys;
#if NS_BATCHED
  /* The verdict's measure of the rows, taken by the batched stages.
   * Without it (no memory for it here), the verdict reads the rows: the
   * same numbers. */
  if (nsys)
    r->scan = tl_alloc(nsys, sizeof *r->scan);
#endif
  r->sup = r->buf + 8 * nsys, r->ju = r->buf + 10 * nsys;
  for (size_t s = 0; s < nsys; s++) {
    tl_info one;
    tl_info_clear(&one);
    FN(ns_note)
    (r, s, PH_RD,
     FN(tl_nshaped_init_rank_in)(&r->st[s], sl->n, sl->periodic, P, pl->slices, p,
                                 rows + 4 * sl->m * s, &one),
     &one);
  }
  FN(ns_local)(r);
  status = FN(ns_block_rows)(r);
  if (status == TL_OK)
    status = FN(ns_reduced)(r);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "nshaped: an exchange failed");
    goto cleanup;
  }
  FN(ns_substitute)(r, x);
  status = r->own_check ? tl_mpi_entries_agree(pl->ex, sl, r->suspect, info) : TL_OK;
  if (status == TL_OK)
    status = FN(ns_verdict)(r, x, info);
cleanup:
  FN(ns_free)(r);
  return status;
}

#undef ROWS
#undef ST
#endif
