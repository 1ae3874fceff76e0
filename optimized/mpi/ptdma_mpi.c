/* optimized/mpi/ptdma_mpi.c -- the CaNS P-TDMA across MPI ranks.
 *
 * The rank program of reference/ptdma_ref.c (paper 001 (CaNS) §2.2.3-
 * 2.2.4): rank p is partition p. It reduces its own rows so that every
 * interior unknown depends on its first and last unknowns only; the
 * first and last rows of all ranks form, per system, a tridiagonal
 * system of 2P rows, which rank 0 solves for the whole batch (the
 * reduced systems are gathered: CaNS transposes them so that each rank
 * solves some; with the gather the ledger is the same for any nsys);
 * the 2 values of each rank come back and it reconstructs its interior
 * (docs/algorithms/ptdma.md, "MPI").
 *
 * The plan/runtime split of paper 001 Algorithm 2 (flavour "split", the
 * default) keeps the exchange that depends on the matrix apart from the
 * one per right-hand side:
 *
 *   rank 0 (solves)                 rank p
 *   1  init: a, b, c of own rows     init: a, b, c of own rows
 *      "plan-rows" gather  <------   a, b, c of rows 0 and m-1: 6 words
 *   2  runtime: d' of own rows       runtime: d'
 *      "rhs-rows"  gather  <------   d' of rows 0 and m-1:      2 words
 *   3  Thomas on 2P rows, per system
 *      "solution" scatter  ------>   x of rows 0 and m-1:       2 words
 *   4  reconstruct                   reconstruct the interior
 *   5  "verdict": one allreduce of 5 pairs per system
 *
 * Flavour "combined" (Algorithm 1) reduces coefficients and right-hand
 * side together and gathers a, c, d' of the 2 rows at once ("rows": 6
 * words; the unit diagonal is not sent). One rank alone gathers
 * nothing. Per system the words are the same for every nsys; a plan
 * reused for many right-hand sides would pay "plan-rows" once.
 *
 * Cost per rank: the reference's flops on m rows per system; rank 0
 * also solves nsys systems of 2P rows (8 * 2P flops each).
 *
 * In "split" a rank keeps only what it sends: steps 1 and 2 run in one
 * pass over its rows (tl_cpu_ptdma_ends_d) that keeps the rows 0 and
 * m-1, and step 4 solves rows 1 .. m-2 by Thomas once x_0 and x_{m-1}
 * are known (finish_lines, below; where it cannot, steps 1 and 2 run
 * again, in L2, before the paper's reconstruction: tl_cpu_ptdma_finish_d):
 * 9 words per unknown moved, where keeping a', b', c', d' between the
 * phases moved 16, and 3 more for the verdict's row classes, which now
 * read the slice only where a row is not strictly dominant
 * (docs/algorithms/ptdma.md). The passes invert each pivot once where
 * the reference divides by it, so their values are within a few
 * roundings of the reference's.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"
#include "tridlab/part_ptdma.h"

/* Phases in the reference's order: the reduction (init) of all
 * partitions, the reduced system, the reconstructions. */
enum { PH_REDUCE = 1, PH_REDUCED = 2, PH_RECONSTRUCT = 3 };

/* The verdict's pairs per system: status, minus the worst relative
 * margin (row), not row dominant, not strictly dominant, near underflow. */
enum { V_STATUS, V_MARGIN, V_NOTROW, V_NOTSTRICT, V_TINY, V_PAIRS };
_Static_assert(2 * V_PAIRS == TL_PTDMA_VERDICT_WORDS, "the verdict's words");

typedef struct ptdma_run {
  tl_mpi_exchange *ex;
  const tl_mpi_batch *sl;
  int combined;           /* 1: Algorithm 1; 0: Algorithm 2 (plan, runtime)   */
  int own_check, suspect; /* own_entry_check; 1: an entry here is not fine  */
  double *a, *b, *c, *d;  /* reduced rows: m per system ("combined": a, c,
                           * d); m in all ("split": one system's, for the
                           * reference) */
  unsigned char *bad;     /* 1: the system failed on this rank            */
  unsigned char *strict;  /* "split": 1 where the pass found every row
                           * of the system here strictly dominant        */
  unsigned char *again;   /* "split": 1 where the reference ran phase 1  */
  unsigned char *dsmall;  /* "split": 1 where an interior d' was near 0  */
  size_t lanes;           /* "split": the systems the pass ran           */
  double *inner;          /* "split": rows 1 and m-2 after the pass, 8 per
                           * system (tl_cpu_ptdma_ends_d's inner)         */
  tl_mpi_status st;
} ptdma_run;

#define ROWS(arr, s) ((const double *)(arr) + (s)*r->sl->m)
#define MINE(arr, s) ((arr) + (s)*r->sl->m)

/* Words per system of what a rank sends to rank 0 for each phase. */
static size_t send_words(const ptdma_run *r)
{
  return r->combined ? TL_PTDMA_ROW_WORDS : TL_PTDMA_COEF_WORDS;
}

/* Step 1 for system s by the reference: Algorithm 1's reduction, or
 * Algorithm 2's initialization, of its own rows; its report. */
static void reduce_one(ptdma_run *r, size_t s)
{
  const tl_mpi_batch *sl = r->sl;
  size_t begin = sl->begin, end = begin + sl->m;
  tl_info one;
  tl_info_clear(&one);
  int rc;
  if (r->combined)
    rc = tl_ptdma_reduce_d(sl->n, sl->periodic, begin, end, ROWS(sl->a, s), ROWS(sl->b, s),
                           ROWS(sl->c, s), ROWS(sl->d, s), MINE(r->a, s), MINE(r->c, s),
                           MINE(r->d, s), &one);
  else
    rc = tl_ptdma_init_d(sl->n, sl->periodic, begin, end, ROWS(sl->a, s), ROWS(sl->b, s),
                         ROWS(sl->c, s), MINE(r->a, s), MINE(r->b, s), MINE(r->c, s), &one);
  tl_mpi_status_note(&r->st, s, PH_REDUCE, rc, &one);
  r->bad[s] = rc < 0;
}

/* Step 1 of Algorithm 1 ("combined"): the reduction of every system's
 * own rows by the reference, then its 2 boundary rows into `rows`
 * (send_words() per system). */
static void reduce_and_pack(ptdma_run *r, double *rows)
{
  const tl_mpi_batch *sl = r->sl;
  size_t begin = sl->begin, end = begin + sl->m, w = send_words(r);
  for (size_t s = 0; s < sl->nsys; s++) {
    double *q = rows + s * w; /* [a0 a1 | c0 c1 | d0 d1] */
    if (r->own_check)
      r->suspect |= !tl_mpi_entries_scan(sl, s, 1);
    reduce_one(r, s);
    tl_ptdma_pack_d(begin, end, 0, MINE(r->a, s), NULL, MINE(r->c, s), MINE(r->d, s), q, NULL,
                    q + 2, q + 4);
    if (r->bad[s]) /* a failed system sends zeros: rank 0 goes on */
      memset(q, 0, w * sizeof *q);
  }
}

/* Algorithm 2's steps 1 and 2 ("split") for one system by the
 * reference, into the run's rows of one system (r->a .. r->d, zeroed
 * first: a failed initialization leaves rows unwritten); the
 * initialization's report noted. Returns 1 when it did not fail. */
static int split_one(ptdma_run *r, size_t s)
{
  const tl_mpi_batch *sl = r->sl;
  size_t begin = sl->begin, end = begin + sl->m;
  memset(r->a, 0, 4 * sl->m * sizeof *r->a);
  tl_info one;
  tl_info_clear(&one);
  int rc = tl_ptdma_init_d(sl->n, sl->periodic, begin, end, ROWS(sl->a, s), ROWS(sl->b, s),
                           ROWS(sl->c, s), r->a, r->b, r->c, &one);
  tl_mpi_status_note(&r->st, s, PH_REDUCE, rc, &one);
  if (rc < 0)
    return 0;
  tl_ptdma_runtime_d(begin, end, ROWS(sl->a, s), ROWS(sl->c, s), r->b, ROWS(sl->d, s), r->d);
  return 1;
}

/* Algorithm 2's steps 1 and 2 ("split"): the initialization and the
 * runtime of every system's own rows, in one pass eight systems at once
 * (tl_cpu_ptdma_ends_d, one reciprocal per row), of which only the rows
 * sent are kept: a, b, c of rows 0 and m-1 into `plan` (6 words per
 * system), d' of them into `rhs` (2). A system the pass flags, or one
 * outside its groups of eight, runs in the reference, for its report. */
static void ends_split(ptdma_run *r, double *plan, double *rhs, unsigned char *dflag)
{
  const tl_mpi_batch *sl = r->sl;
  size_t begin = sl->begin, end = begin + sl->m, w = send_words(r);
  memset(r->bad, 0, sl->nsys);
  memset(dflag, 0, sl->nsys);
  size_t lanes =
      tl_cpu_ptdma_ends_d(sl->n, sl->periodic, begin, sl->m, sl->nsys, sl->a, sl->b, sl->c, sl->d,
                          plan, rhs, r->bad, dflag, r->strict, r->dsmall, r->inner);
  memset(r->strict + lanes, 0, sl->nsys - lanes);
  r->lanes = lanes;
  /* own_entry_check: the pass checked the entries of the systems it did
   * not flag as it read them; the corners of all, and the other systems'
   * entries whole, here. */
  if (r->own_check)
    r->suspect |= !tl_mpi_corners_fine(sl, 0, sl->nsys);
  for (size_t s = 0; s < sl->nsys; s++) {
    double *q = plan + s * w, *qd = rhs + 2 * s; /* [a0 a1 | b0 b1 | c0 c1], [d0 d1] */
    r->again[s] = s >= lanes || r->bad[s] || dflag[s];
    if (r->again[s]) {
      if (r->own_check)
        r->suspect |= !tl_mpi_entries_scan(sl, s, 1);
      r->bad[s] = !split_one(r, s);
      if (!r->bad[s]) {
        tl_ptdma_pack_d(begin, end, 0, r->a, r->b, r->c, NULL, q, q + 2, q + 4, NULL);
        tl_ptdma_pack_d(begin, end, 0, NULL, NULL, NULL, r->d, NULL, NULL, NULL, qd);
      }
    }
    if (r->bad[s]) { /* a failed system sends zeros: rank 0 goes on */
      memset(q, 0, w * sizeof *q);
      qd[0] = qd[1] = 0.0;
    }
  }
}

/* Move `w` words per system from every rank to rank 0 (all[q][s][w]). */
static int gather_rows(ptdma_run *r, const char *phase, const double *mine, size_t w, double *all)
{
  size_t cnt = w * r->sl->nsys;
  if (r->ex->size == 1) { /* one rank: nothing to send */
    memcpy(all, mine, cnt * sizeof *all);
    return TL_OK;
  }
  return tl_mpi_gather(r->ex, phase, 0, TL_F64, mine, cnt, all, 0);
}

/* Rank 0, step 3: the reduced system of system s from every rank's 2
 * rows (coef: [q][s][6] of the plan or of Algorithm 1; rhs: [q][s][2]
 * of the runtime, NULL for Algorithm 1), solved by Thomas; x of rank q's
 * 2 rows into out[q][s][2]. */
static void solve_reduced(ptdma_run *r, const size_t *begins, const double *coef, const double *rhs,
                          double *red, double *out)
{
  int P = r->ex->size;
  size_t nsys = r->sl->nsys, rows = 2 * (size_t)P, w = send_words(r);
  double *ra = red, *rb = red + rows, *rc = red + 2 * rows, *rd = red + 3 * rows,
         *rx = red + 4 * rows;
  for (size_t s = 0; s < nsys; s++) {
    for (int q = 0; q < P; q++)
      for (size_t j = 0; j < 2; j++) { /* rank q's rows are rows 2q, 2q+1 */
        const double *g = coef + ((size_t)q * nsys + s) * w;
        size_t k = 2 * (size_t)q + j;
        ra[k] = g[j];
        rb[k] = r->combined ? 1.0 : g[2 + j];
        rc[k] = r->combined ? g[2 + j] : g[4 + j];
        rd[k] = r->combined ? g[4 + j] : rhs[((size_t)q * nsys + s) * 2 + j];
      }
    tl_info one;
    tl_info_clear(&one);
    int st = tl_ptdma_reduced_solve_d(rows, r->sl->periodic, ra, rb, rc, rd, rx, &one);
    if (st != TL_OK) /* an error, or the reduced rows' own verdict (rx written then) */
      one.row = tl_ptdma_global_row(begins, one.row);
    if (st < 0)
      memset(rx, 0, rows * sizeof *rx);
    tl_mpi_status_note(&r->st, s, PH_REDUCED, st, &one);
    for (int q = 0; q < P; q++)
      memcpy(out + ((size_t)q * nsys + s) * 2, rx + 2 * q, 2 * sizeof *rx);
  }
}

/* This rank's numbers of system s's verdict, but the reconstruction's
 * underflow test: its rows' classes and worst relative margin, the
 * slice not read again where phase 1's pass found every row strictly
 * dominant (r->strict; tl_mpi_row_classes says why that is enough). */
static void verdict_numbers(const ptdma_run *r, size_t s, double *q)
{
  double rel;
  long worst;
  unsigned cls = tl_mpi_row_classes(r->sl, s, r->strict && r->strict[s], &rel, &worst);
  q[2 * V_MARGIN] = -rel, q[2 * V_MARGIN + 1] = (double)worst;
  q[2 * V_NOTROW] = (cls & TL_CLASS_ROW_DD) ? 0.0 : 1.0, q[2 * V_NOTROW + 1] = -1.0;
  q[2 * V_NOTSTRICT] = (cls & TL_CLASS_STRICT_DD) ? 0.0 : 1.0, q[2 * V_NOTSTRICT + 1] = -1.0;
  q[2 * V_TINY] = 0.0, q[2 * V_TINY + 1] = -1.0;
}

/* Step 4 for system s from the rows a', b' (split), c', d' given, by the
 * SIMD rows (the reference's bits and report). */
static void reconstruct_one(ptdma_run *r, size_t s, const double *a, const double *b,
                            const double *c, const double *d, const double *xb, double *x,
                            double *q)
{
  const tl_mpi_batch *sl = r->sl;
  tl_info one;
  tl_info_clear(&one);
  int tiny;
  int rc = tl_cpu_ptdma_reconstruct_d(sl->begin, sl->m, a, b, c, d, xb[2 * s], xb[2 * s + 1],
                                      x + s * sl->m, &tiny, &one);
  tl_mpi_status_note(&r->st, s, PH_RECONSTRUCT, rc, &one);
  if (b && tiny)
    q[2 * V_TINY] = 1.0;
}

/* Step 4 for the systems phase 1's pass ran (r->lanes of them), once x
 * of rows 0 and m-1 is known: rows 1 .. m-2 are then the tridiagonal
 * system a_k x_{k-1} + b_k x_k + c_k x_{k+1} = d_k with x_0 and x_{m-1}
 * given, solved by the x-line kernel of thomas_cpu with rows 0 and m-1
 * read as identity rows x_0 = x_first, x_{m-1} = x_last. Its pivots are
 * those of phase 1's forward sweep (b'_1 = b_1, b'_k = b_k - a_k c_{k-1}
 * / b'_{k-1}), its operations one division and a few multiplications
 * per row where the paper's reconstruction (tl_cpu_ptdma_finish_d) runs
 * phases 1 and 2 again, down and up, before it: the same x within a few
 * roundings, 1.1-1.4 times faster a solve (docs/performance.md).
 *
 * The same x in exact arithmetic, not always in floating point. x_0 and
 * x_{m-1} satisfy the reduced rows, which phase 1 made from its own
 * elimination of rows 1 .. m-2; the paper's x_1 and x_{m-2} come from
 * that same elimination, so rows 0 and m-1 of the matrix hold with them.
 * The kernel's x_1 and x_{m-2} come from another order of operations:
 * where the interior is ill-conditioned (MATLAB's gallery('dorr'): a
 * residual ratio of 378 to 1e6 in rows 0 and m-1 against the paper's
 * < 30) they part. So each system's x_1 and x_{m-2} are compared with
 * the paper's, (d'_k - a'_k x_0 - c'_k x_{m-1}) / b'_k from the rows
 * phase 1 kept (r->inner): apart by more than PT_AGREE eps of the
 * slice's largest |x|, the system takes the paper's step 4. Within it,
 * rows 0 and m-1's residuals move by at most PT_AGREE eps |c_0| |x|.
 * (The paper's step 4 here is tl_cpu_ptdma_finish_d's, from the same
 * pass as the rows sent; the reference's, from its own phase 1, would
 * part from x_0 and x_{m-1} as the kernel does.)
 *
 * So the group of eight of such a system runs tl_cpu_ptdma_finish_d,
 * as every group did before the kernel took step 4 (below); and so does the
 * group of a system the kernel flags (a pivot, an entry or x not
 * finite, or a pivot that cancelled), and of one where an interior d'
 * came near zero in phase 1's pass (r->dsmall: the reconstruction's
 * underflow test, which only the paper's form computes, may then
 * hold): there redo[s] and tiny[s] are tl_cpu_ptdma_finish_d's. A system
 * that failed in phase 1 gets an x here that nothing reads (its status
 * says so). Returns the systems solved; 0 when the kernel could not run
 * (a partition of fewer than 3 rows, or no memory). */
#define PT_AGREE 16.0
static int paper_agrees(const double *q, double xf, double xl, double xk, double xmax)
{
  double v = (q[2] - q[0] * xf - q[1] * xl) * q[3]; /* finish_group's operations */
  return fabs(xk - v) <= PT_AGREE * DBL_EPSILON * xmax;
}

static size_t finish_lines(ptdma_run *r, const double *xb, double *x, unsigned char *redo,
                           unsigned char *tiny)
{
  const tl_mpi_batch *sl = r->sl;
  size_t k = r->lanes, m = sl->m;
  double *ends = m >= 3 && k > 0 ? tl_alloc(3 * k, sizeof *ends) : NULL;
  if (!ends)
    return 0;
  for (size_t s = 0; s < k; s++)
    ends[s] = xb[2 * s], ends[k + s] = xb[2 * s + 1];
  tl_cpu_lines_more more = {
      .xmax = ends + 2 * k, .x_first = ends, .x_last = ends + k, .x_span = m * k * sizeof *x};
  tl_info ti;
  tl_info_clear(&ti);
  int st = tl_cpu_thomas_lines_more_d(m, k, sl->a, sl->b, sl->c, sl->d, x, redo, &more, &ti);
  for (size_t s = 0; s < k && st == TL_OK; s++) { /* 2, 3: classes, corners: the verdict's */
    const double *q = r->inner + 8 * s, *xs = x + s * m;
    double xf = ends[s], xl = ends[k + s], xm = ends[2 * k + s];
    redo[s] = redo[s] == 1 || r->dsmall[s] || !paper_agrees(q, xf, xl, xs[1], xm) ||
              !paper_agrees(q + 4, xf, xl, xs[m - 2], xm);
  }
  free(ends);
  if (st != TL_OK)
    return 0;
  /* The paper's step 4 for a group that needs it, every lane run: a
   * system that failed in phase 1 is not read again (reconstruct), and
   * the others' rows sent were the pass's, so their x must be too (the
   * reference's would part from x_0 and x_{m-1}, as the kernel's did).
   * Without memory for it, the group goes to the reference, as every
   * system did before when tl_cpu_ptdma_finish_d could not run. */
  static const unsigned char none[8];
  for (size_t s0 = 0; s0 < k; s0 += 8) {
    if (memchr(redo + s0, 1, 8) == NULL)
      continue;              /* redo and tiny stay 0 */
    memset(redo + s0, 0, 8); /* tl_cpu_ptdma_finish_d sets them, never clears */
    if (!tl_cpu_ptdma_finish_d(sl->n, sl->periodic, sl->begin, m, 8, ROWS(sl->a, s0),
                               ROWS(sl->b, s0), ROWS(sl->c, s0), ROWS(sl->d, s0), xb + 2 * s0, none,
                               x + s0 * m, redo + s0, tiny + s0))
      memset(redo + s0, 1, 8);
  }
  return k;
}

/* Step 4 and this rank's numbers of the verdict. "split": by Thomas on
 * the interior rows (finish_lines) where it applies; else phases 1 and 2
 * run again, eight systems at once, and x comes from their rows in L2
 * (tl_cpu_ptdma_finish_d): 4 words read and 1 written per unknown, where
 * keeping a', b', c', d' from phase 1 wrote 4 and read them back. A
 * system the pass leaves over, or whose phase 1 the reference ran, runs
 * in the reference. */
static void reconstruct(ptdma_run *r, const double *xb, double *x, double *pairs,
                        unsigned char *flags)
{
  const tl_mpi_batch *sl = r->sl;
  size_t nsys = sl->nsys, lanes = 0;
  unsigned char *redo = flags, *tiny = flags + nsys;
  if (!r->combined) {
    memset(flags, 0, 2 * nsys);
    lanes = finish_lines(r, xb, x, redo, tiny);
    if (lanes == 0)
      lanes = tl_cpu_ptdma_finish_d(sl->n, sl->periodic, sl->begin, sl->m, nsys, sl->a, sl->b,
                                    sl->c, sl->d, xb, r->bad, x, redo, tiny);
  }
  for (size_t s = 0; s < nsys; s++) {
    double *q = pairs + 2 * V_PAIRS * s;
    verdict_numbers(r, s, q);
    if (r->bad[s])
      continue;
    if (r->combined)
      reconstruct_one(r, s, MINE(r->a, s), NULL, MINE(r->c, s), MINE(r->d, s), xb, x, q);
    else if (s >= lanes || redo[s] || r->again[s]) {
      if (split_one(r, s)) /* it did not fail in phase 1: it will not now */
        reconstruct_one(r, s, r->a, r->b, r->c, r->d, xb, x, q);
    } else if (tiny[s])
      q[2 * V_TINY] = 1.0;
  }
}

/* After the allreduce: system s's domain verdict, as the reference's. */
static int judge(void *ctx, size_t s, const double *q, tl_info *one)
{
  ptdma_run *r = ctx;
  unsigned cls = (q[2 * V_NOTROW] > 0 ? 0u : TL_CLASS_ROW_DD) |
                 (q[2 * V_NOTSTRICT] > 0 ? 0u : TL_CLASS_STRICT_DD);
  int sst = tl_ptdma_domain_verdict(cls, (long)q[2 * V_MARGIN + 1], r->sl->periodic, one);
  /* The reduced solve's own verdict (its rows not dominant as computed),
   * noted at rank 0, as the reference gives it: after the matrix's own
   * verdict, which says more when it has something to say. */
  if (sst == TL_OK && tl_mpi_status_warned(q, V_PAIRS, 0))
    return tl_mpi_status_warning(&r->st, q - 2 * V_PAIRS * s, V_PAIRS, s, one);
  /* The reference then measures the residual of the whole system; no
   * rank holds it, so the MPI solve says what it could not check. */
  if (sst == TL_OK && q[2 * V_TINY] > 0)
    sst = TL_WARN(one, -1,
                  "ptdma: its reconstruction divided terms near the underflow threshold by b_k; "
                  "across ranks the residual check that could clear it is not made");
  return sst;
}

static void run_free(ptdma_run *r)
{
  free(r->bad);     /* bad, strict, then D's flags or redo, tiny, again, dsmall */
  if (!r->combined) /* "combined": the rank's scratch, kept for the next solve */
    free(r->a);
  tl_mpi_status_free(&r->st);
}

static int ptdma_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                           const tl_mpi_batch *sl, const size_t *slices, void *x,
                           const tl_options *opt, tl_info *info)
{
  int P = ex->size, root = ex->rank == 0;
  size_t nsys = sl->nsys, m = sl->m, rows = 2 * (size_t)P;
  ptdma_run run = {.ex = ex, .sl = sl}, *r = &run;
  r->combined = (int)tl_param_value(self, opt, "flavour") == TL_PTDMA_COMBINED;
  r->own_check = self->mpi->own_entry_check;
  TL_CALL(tl_mpi_status_init(&r->st, ex, nsys, info));
  size_t w = send_words(r), all = root ? (size_t)P * nsys : 0;
  /* The reduced rows: "combined" keeps a, c, d of every system (the
   * reference writes every row: the scratch is not zeroed); "split" a,
   * b, c, d of one system, for the reference (split_one), then the
   * pass's rows 1 and m-2 of every system (r->inner). */
  r->a = r->combined ? tl_mpi_scratch_dirty(3 * m * nsys, sizeof(double))
                     : tl_alloc(4 * m + 8 * nsys, sizeof(double));
  r->bad = tl_alloc(6 * nsys, 1); /* bad; strict; D's flags, then redo and tiny; again; dsmall */
  /* mine: the rows this rank sends and the 2 values it gets back; at rank
   * 0 also everyone's, the bounds and one reduced system. */
  double *mine = tl_alloc((w + 4) * nsys, sizeof(double));
  double *every = tl_alloc((w + 4) * all + 5 * rows + 1, sizeof(double));
  double *pairs = tl_alloc(V_PAIRS * nsys, 2 * sizeof(double));
  size_t *begins = tl_alloc((size_t)P + 1, sizeof *begins);
  int status = TL_OK;
  if (!r->a || !r->bad || !mine || !every || !pairs || !begins) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "ptdma: no memory for %zu systems", nsys);
    goto cleanup;
  }
  size_t stride = r->combined ? m * nsys : m;
  r->strict = r->combined ? NULL : r->bad + nsys;
  r->again = r->bad + 4 * nsys, r->dsmall = r->bad + 5 * nsys;
  r->inner = r->combined ? NULL : r->a + 4 * m;
  r->b = r->combined ? NULL : r->a + stride; /* Algorithm 1: a unit diagonal */
  r->c = r->a + (r->combined ? 1 : 2) * stride, r->d = r->c + stride;
  double *rd = mine + w * nsys, *xb = rd + 2 * nsys;
  double *coef_all = every, *rhs_all = every + w * all, *x_all = rhs_all + 2 * all;
  double *red = x_all + 2 * all;
  begins[0] = 0;
  for (int q = 0; q < P; q++)
    begins[q + 1] = begins[q] + slices[q];

  if (r->combined) /* step 1 */
    reduce_and_pack(r, mine);
  else /* steps 1 and 2: the plan's rows, then the runtime's */
    ends_split(r, mine, rd, r->bad + 2 * nsys);
  TL_CHECK(gather_rows(r, r->combined ? "rows" : "plan-rows", mine, w, coef_all));
  if (!r->combined)
    TL_CHECK(gather_rows(r, "rhs-rows", rd, 2, rhs_all));
  if (root) /* step 3 */
    solve_reduced(r, begins, coef_all, rhs_all, red, x_all);
  if (P == 1)
    memcpy(xb, x_all, 2 * nsys * sizeof *xb);
  else
    TL_CHECK(tl_mpi_scatter(ex, "solution", 0, TL_F64, x_all, 2 * nsys, xb, 0));
  reconstruct(r, xb, x, pairs, r->bad + 2 * nsys); /* step 4 */
  if (r->own_check && (status = tl_mpi_entries_agree(ex, sl, r->suspect, info)) != TL_OK)
    goto cleanup;
  tl_mpi_status_pairs(&r->st, pairs, V_PAIRS); /* after the last phase's notes */
  TL_CHECK(tl_mpi_allreduce_pairs(ex, "verdict", 0, pairs, V_PAIRS * nsys));
  status = tl_mpi_status_verdicts(&r->st, pairs, V_PAIRS, judge, r, info);
cleanup:
  free(mine);
  free(every);
  free(pairs);
  free(begins);
  run_free(r);
  return status;
}

#undef ROWS
#undef MINE

/* The registry entry: the reference it runs the phases of, and what
 * crosses the ranks. */
extern const tl_algorithm tl_algo_ptdma_ref;
static const tl_mpi_program ptdma_program = {
    .crosses = "2 boundary rows per system gathered on rank 0 (plan once, d' per solve), reduced "
               "systems solved there, x of the 2 rows scattered back, verdict",
    .solve = ptdma_mpi_solve,
    .own_entry_check = 1, /* in the initialization's and the runtime's passes */
};

const tl_algorithm tl_mpi_algo_ptdma = {
    .name = "ptdma_mpi",
    .backend = "mpi",
    .reference = &tl_algo_ptdma_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &ptdma_program,
};
