/* optimized/mpi/distd2_mpi.c -- DistD2 across MPI ranks.
 *
 * The rank program of reference/distd2_ref.c (paper 000 (DistD2-TDS)
 * §4.2): rank p is partition p. It builds a slice plan of its own rows
 * (Algorithm 5, tl_distd2_plan_slice_d), decouples them (Algorithm 6),
 * and sends the two rows the 2x2 systems need -- its first row to p-1,
 * its last row to p+1 -- in ONE exchange with both neighbours for a
 * mini-batch of systems (a general batch: below, "Mini-batches"; the
 * whole batch, or rounds of groups, for the compact entry)
 * (docs/algorithms/distd2.md, "MPI"). Both neighbours then
 * solve the 2x2 across their interface redundantly (the same bits from
 * the same rows), and each substitutes (Algorithm 7):
 *
 *   rank           p-1                 p                  p+1
 *   1-2 plan, decouple: d' of own rows, no communication
 *   "edges"         | <-- first row --  |                   |   3 words
 *                   |                   | -- last row -->   |   3 words
 *                   | -- last row --->  | <-- first row --  |
 *   3-4 2x2 (p-1|p) -> x_first, 2x2 (p|p+1) -> x_last; periodic: the
 *       corner 2x2 (P-1|0) joins rank P-1 and rank 0 through the ring
 *   5   substitution x_k = d'_k - sa_k x_first - sc_k x_last
 *   6   "verdict": one allreduce of 6 (value, row) pairs per system
 *
 * A plain system's ends: rank 0's corner 2x2 has no left row (a zero
 * row: it gives x_first = d'_first, as the reference's zero corner does)
 * and keeps only its own dropped entry; rank P-1 mirrors it.
 *
 * Two entry points. tl_mpi_solve (the registry's "distd2"): a general
 * batch, every system its own matrix, solved with the reference's
 * phases on each system's rows (Algorithms 5 and 6 eight systems at
 * once and in one pass: tl_cpu_distd2_plan_decouple_lines_d, the same
 * bits; Algorithm 7 in SIMD lanes). tl_mpi_distd2_compact_sz: the
 * compact scheme of paper 000 -- one matrix for the whole batch, the
 * right-hand side a 5-point stencil of u fused into the decoupling --
 * on SZ-packed slices with the packed kernels of optimized/cpu/ (where
 * the packed kernels apply: a matrix shared by the batch).
 *
 * distd2_gpu_mpi (one GPU per rank) is the general batch's program with
 * Algorithms 6 and 7 on the GPU kernels of the rank's slices, which stay
 * where the kernels run between the two (tl_gpu_distd2_resident_*: a
 * thread per system, each reading its own plan's rows; only the edges
 * and the ends cross, and x at the end): Algorithm 5 and the 2x2 systems
 * stay on the host, and so do the messages and the ledger, which are
 * distd2_mpi's.
 *
 * Cost per rank: the reference's flops on m rows per system; an
 * exchange of 3 words per system with each neighbour, per mini-batch or
 * round (the packed entry: a halo of 2 rows of u each way before it);
 * the verdict's 12 words.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"
#include "tridlab/gpu.h"
#include "tridlab/part_distd2.h"

/* Phases in the reference's order (the order it meets failures in): the
 * plans of all partitions, then the decoupling of all, the interfaces
 * 0|1 .. P-2|P-1, the corner P-1|0, the substitutions. */
enum { PH_PLAN = 1, PH_DECOUPLE = 2, PH_IFACE = 3, PH_CORNER = 4, PH_SUBSTITUTE = 5, PH_COUNT };

/* Where failures are noted. A general batch: per system. One matrix for
 * the whole batch (the compact entry): one slot, whose phases count
 * system by system (s PH_COUNT + phase), so that the first failure of
 * the batch is still the one the reference meets first, and the verdict
 * is the matrix's, once. */
typedef struct notes {
  tl_mpi_status *st;
  int by_batch;
} notes;

static void note(const notes *nt, size_t s, int phase, int rc, tl_info *one)
{
  if (!nt->by_batch) {
    tl_mpi_status_note(nt->st, s, phase, rc, one);
    return;
  }
  one->system = (long)s;
  tl_mpi_status_note(nt->st, 0, (int)(s * PH_COUNT) + phase, rc, one);
}

/* A boundary row as it travels: (coupling out of the partition, the
 * entry DistD2 drops, right-hand side). */
typedef struct row3 {
  double lower, upper, rhs;
} row3;
_Static_assert(sizeof(row3) == TL_DISTD2_EDGE_WORDS * sizeof(double),
               "a boundary row travels as 3 doubles");
_Static_assert(sizeof(tl_distd2_edge) == 2 * TL_DISTD2_EDGE_WORDS * sizeof(double),
               "the GPU kernel writes an edge as 6 doubles");

/* The verdict's pairs per system: status, dropped (row), kappa, spike,
 * minus the worst relative margin (row), "not strictly dominant". */
enum { V_STATUS, V_DROPPED, V_KAPPA, V_SPIKE, V_MARGIN, V_NOTSTRICT, V_PAIRS };
_Static_assert(2 * V_PAIRS == TL_DISTD2_VERDICT_WORDS, "the verdict's words");

/* What one rank knows about one system after its interfaces. */
typedef struct sys_state {
  tl_distd2_edge edge;    /* own first and last rows (Algorithm 6)  */
  double x_first, x_last; /* from the two 2x2 systems               */
  double dropped, kappa;  /* over the (one or two) 2x2 it solved    */
  long drop_row;
  int bad; /* 1: this system failed on this rank     */
} sys_state;

/* ---------------------------------------------------------------- */
/* The exchange and the 2x2 systems: shared by both entry points       */

/* Rows to send: the first to prev, the last to next. A failed system
 * sends zero rows, so its neighbours go on (and fail no later). */
static void split_edges(const sys_state *ss, size_t nsys, row3 *to_prev, row3 *to_next)
{
  for (size_t s = 0; s < nsys; s++) {
    const tl_distd2_edge *e = &ss[s].edge;
    to_prev[s] = ss[s].bad ? (row3){0, 0, 0} : (row3){e->first_lower, e->first_upper, e->first_rhs};
    to_next[s] = ss[s].bad ? (row3){0, 0, 0} : (row3){e->last_lower, e->last_upper, e->last_rhs};
  }
}

/* The neighbour's row as an edge for tl_distd2_interface_d: the last row
 * of the partition on the left, or the first row of the one on the
 * right; a missing neighbour (a plain system's end) is a zero row. */
static tl_distd2_edge left_edge(const row3 *r)
{
  tl_distd2_edge e = {0, 0, 0, 0, 0, 0};
  if (r)
    e.last_lower = r->lower, e.last_upper = r->upper, e.last_rhs = r->rhs;
  return e;
}

static tl_distd2_edge right_edge(const row3 *r)
{
  tl_distd2_edge e = {0, 0, 0, 0, 0, 0};
  if (r)
    e.first_lower = r->lower, e.first_upper = r->upper, e.first_rhs = r->rhs;
  return e;
}

/* The two 2x2 systems of rank p for system s (the reference's phase 2,
 * restricted to the interfaces that touch p), noted in the reference's
 * order: interface p-1|p before p|p+1; the corner P-1|0 after all. */
static void interfaces(const notes *nt, sys_state *ss, size_t s, size_t begin, size_t m, size_t n,
                       const row3 *from_prev, const row3 *from_next)
{
  int p = nt->st->ex->rank, P = nt->st->ex->size;
  sys_state *y = &ss[s];
  y->dropped = -INFINITY, y->kappa = 1.0, y->drop_row = -1; /* the first 2x2 sets them */
  if (y->bad)
    return;
  tl_info one;
  double xo, dp, kp;
  if (P == 1) { /* one 2x2, the partition's own: exact */
    tl_info_clear(&one);
    long row = (long)n - 1;
    int rc =
        tl_distd2_interface_d(&y->edge, &y->edge, 1, &y->x_last, &y->x_first, &dp, &kp, row, &one);
    note(nt, s, PH_CORNER, rc, &one);
    y->bad = rc < 0;
    y->dropped = dp, y->kappa = kp, y->drop_row = row;
    return;
  }
  /* Left interface (p-1 | p), or the corner (P-1 | 0) at p = 0. */
  tl_distd2_edge left = left_edge(from_prev);
  long lrow = p > 0 ? (long)begin - 1 : (long)n - 1;
  tl_info_clear(&one);
  int rc = tl_distd2_interface_d(&left, &y->edge, 0, &xo, &y->x_first, &dp, &kp, lrow, &one);
  note(nt, s, p > 0 ? PH_IFACE : PH_CORNER, rc, &one);
  tl_pair_max(&y->dropped, &y->drop_row, dp, lrow);
  y->kappa = fmax(y->kappa, kp);
  if (rc < 0) {
    y->bad = 1;
    return;
  }
  /* Right interface (p | p+1), or the corner at p = P-1. */
  tl_distd2_edge right = right_edge(from_next);
  long rrow = (long)(begin + m) - 1;
  tl_info_clear(&one);
  rc = tl_distd2_interface_d(&y->edge, &right, 0, &y->x_last, &xo, &dp, &kp, rrow, &one);
  note(nt, s, p + 1 < P ? PH_IFACE : PH_CORNER, rc, &one);
  tl_pair_max(&y->dropped, &y->drop_row, dp, rrow);
  y->kappa = fmax(y->kappa, kp);
  y->bad = rc < 0;
}

/* Systems [s0, s0 + nsys) of ss: their rows in one exchange (round
 * `round` of phase "edges"), then their 2x2 systems. */
static int exchange_and_interfaces(const notes *nt, sys_state *ss, size_t s0, size_t nsys,
                                   int round, size_t begin, size_t m, size_t n, int periodic)
{
  tl_mpi_exchange *ex = nt->st->ex;
  int prev, next;
  tl_distd2_neighbours(ex->size, periodic, ex->rank, &prev, &next);
  row3 *buf = tl_alloc(4 * nsys, sizeof *buf);
  if (!buf)
    return TL_ERR_NOMEM;
  row3 *to_prev = buf, *to_next = buf + nsys, *from_prev = buf + 2 * nsys,
       *from_next = buf + 3 * nsys;
  split_edges(ss + s0, nsys, to_prev, to_next);
  size_t w = TL_DISTD2_EDGE_WORDS * nsys;
  int rc = tl_mpi_neighbours(ex, "edges", round, TL_F64, prev, next, prev >= 0 ? to_prev : NULL, w,
                             next >= 0 ? to_next : NULL, w, prev >= 0 ? from_prev : NULL, w,
                             next >= 0 ? from_next : NULL, w);
  for (size_t s = 0; rc == TL_OK && s < nsys; s++)
    interfaces(nt, ss, s0 + s, begin, m, n, prev >= 0 ? &from_prev[s] : NULL,
               next >= 0 ? &from_next[s] : NULL);
  free(buf);
  return rc;
}

/* System s's verdict from the reduced numbers: the whole system's plan
 * as tl_distd2_verdict reads it. */
static int judge(void *ctx, size_t s, const double *q, tl_info *one)
{
  (void)s;
  const double *tol = ctx;
  tl_distd2_plan whole = {.spike = q[2 * V_SPIKE],
                          .classes = q[2 * V_NOTSTRICT] > 0 ? 0u : TL_CLASS_STRICT_DD,
                          .worst_row = (long)q[2 * V_MARGIN + 1]};
  return tl_distd2_verdict(&whole, q[2 * V_DROPPED], (long)q[2 * V_DROPPED + 1], q[2 * V_KAPPA],
                           *tol, one);
}

/* The verdict: one allreduce, then each slot's status from the combined
 * numbers, with the reference's own tl_distd2_verdict. System s's plan is
 * plans[s * plan_stride] (stride 0: one plan for all). By batch, the one
 * slot takes the largest over the systems (the matrix's numbers). */
static int verdict(const notes *nt, const sys_state *ss, size_t nsys, const tl_distd2_plan *plans,
                   size_t plan_stride, double tol, tl_info *info)
{
  size_t slots = nt->st->nsys;
  double *pairs = tl_alloc(V_PAIRS * slots, 2 * sizeof(double));
  if (!pairs)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2: no memory for the verdict");
  tl_mpi_status_pairs(nt->st, pairs, V_PAIRS);
  for (size_t v = 0; v < slots; v++) {
    double *q = pairs + 2 * V_PAIRS * v;
    q[2 * V_DROPPED] = -INFINITY, q[2 * V_DROPPED + 1] = -1.0;
    q[2 * V_KAPPA] = 1.0, q[2 * V_KAPPA + 1] = -1.0;
  }
  for (size_t s = 0; s < nsys; s++) {
    const tl_distd2_plan *pl = &plans[s * plan_stride];
    double *q = pairs + 2 * V_PAIRS * (nt->by_batch ? 0 : s);
    int ok = pl->begin != NULL; /* a plan that failed holds nothing */
    long row = (long)q[2 * V_DROPPED + 1];
    tl_pair_max(&q[2 * V_DROPPED], &row, ss[s].dropped, ss[s].drop_row);
    q[2 * V_DROPPED + 1] = (double)row;
    q[2 * V_KAPPA] = fmax(q[2 * V_KAPPA], ss[s].kappa);
    q[2 * V_SPIKE] = ok ? pl->spike : 0.0, q[2 * V_SPIKE + 1] = -1.0;
    q[2 * V_MARGIN] = ok ? -pl->worst_rel : -INFINITY, q[2 * V_MARGIN + 1] = (double)pl->worst_row;
    q[2 * V_NOTSTRICT] = (ok && (pl->classes & TL_CLASS_STRICT_DD)) ? 0.0 : 1.0;
    q[2 * V_NOTSTRICT + 1] = -1.0;
  }
  int status = tl_mpi_allreduce_pairs(nt->st->ex, "verdict", 0, pairs, V_PAIRS * slots);
  if (status == TL_OK)
    status = tl_mpi_status_verdicts(nt->st, pairs, V_PAIRS, judge, &tol, info);
  if (status < 0 && nt->by_batch && info) /* the slot's phase counts the systems */
    info->system = tl_mpi_status_phase(nt->st, pairs, V_PAIRS, 0) / PH_COUNT;
  free(pairs);
  return status;
}

/* ---------------------------------------------------------------- */
/* A general batch: the reference's scalar phases, one system at a time */

#define ROWS(arr, s) ((const double *)(arr) + (s)*sl->m)

/* Phase 2 of distd2_gpu_mpi: the slices go where the GPU kernels run
 * (tl_gpu_distd2_resident_open_d: the plans' rows and d), Algorithm 6 of
 * every system runs there, and only each system's two boundary rows (its
 * edge, 6 words) and status words come back for the exchange: d' stays
 * there (*res) for phase 5. Without a device the emulator runs the same
 * kernel, with its checker. A system whose d' the kernel flags goes to
 * the reference (redo) for its report; a launch that fails (a kernel bug
 * the checker found) is every system's failure, reported; no memory: the
 * reference for every system. */
static void decouple_gpu(const notes *nt, const tl_mpi_batch *sl, const double *rows,
                         const double *fix, tl_gpu_distd2_resident **res, sys_state *ss,
                         unsigned char *redo)
{
  size_t m = sl->m, nsys = sl->nsys;
  double *edge = tl_alloc(TL_DISTD2_EDGE_WORDS * 2 * nsys, sizeof *edge);
  int *stat = tl_alloc(3 * nsys, sizeof *stat);
  tl_info gi;
  tl_info_clear(&gi);
  int rc = edge && stat ? tl_gpu_distd2_resident_open_d(m, nsys, rows, fix, sl->d, res, &gi)
                        : TL_ERR_NOMEM;
  if (rc == TL_OK)
    rc = tl_gpu_distd2_resident_decouple_d(*res, edge, stat, &gi);
  for (size_t s = 0; s < nsys; s++) {
    if (ss[s].bad)
      continue;
    if (rc == TL_ERR_NOMEM || (rc == TL_ERR_BREAKDOWN && stat[3 * s] >= 0)) {
      redo[s] = 1;
    } else if (rc < 0 && rc != TL_ERR_BREAKDOWN) { /* nothing came back */
      note(nt, s, PH_DECOUPLE, rc, &gi);
      ss[s].bad = 1;
    } else {
      memcpy(&ss[s].edge, edge + 2 * TL_DISTD2_EDGE_WORDS * s, sizeof ss[s].edge);
    }
  }
  free(edge);
  free(stat);
}

/* Phase 5 of distd2_gpu_mpi: the x_first, x_last of every system's 2x2
 * systems go to the resident slices, Algorithm 7 runs there from the d'
 * phase 2 left there, and x comes back (tl_gpu_distd2_resident_substitute_d);
 * each system's status noted. A system the kernel flags, and every system
 * when memory is short, runs the reference's substitution (its bits and
 * report) on its d' fetched back into dt (no resident slices: every d' is
 * in dt already, from the reference); a launch that fails is every
 * system's failure. */
static void substitute_gpu(const notes *nt, const tl_mpi_batch *sl, const tl_distd2_plan *plans,
                           tl_gpu_distd2_resident *res, double *dt, double *x, const sys_state *ss)
{
  size_t m = sl->m, nsys = sl->nsys;
  double *ends = tl_alloc(2 * nsys, sizeof *ends);
  int *stat = tl_alloc(3 * nsys, sizeof *stat);
  tl_info one;
  tl_info_clear(&one);
  int rc = TL_ERR_NOMEM;
  if (res && ends && stat) {
    for (size_t s = 0; s < nsys; s++) {
      ends[2 * s] = ss[s].bad ? 0.0 : ss[s].x_first;
      ends[2 * s + 1] = ss[s].bad ? 0.0 : ss[s].x_last;
    }
    rc = tl_gpu_distd2_resident_substitute_d(res, ends, x, stat, &one);
  }
  tl_info gi = one;
  for (size_t s = 0; s < nsys; s++) {
    if (ss[s].bad)
      continue;
    tl_info_clear(&one);
    int sst = TL_OK;
    if (rc < 0 && rc != TL_ERR_BREAKDOWN && rc != TL_ERR_NOMEM) /* nothing came back */
      sst = rc, one = gi;
    else if (rc == TL_ERR_NOMEM || (rc == TL_ERR_BREAKDOWN && stat[3 * s + 2] >= 0)) {
      if (res) /* its d' is where the kernels run */
        sst = tl_gpu_distd2_resident_dt_d(res, s, dt + s * m, 0, &one);
      if (sst == TL_OK)
        sst = tl_distd2_substitute_d(&plans[s], 0, ss[s].x_first, ss[s].x_last, dt + s * m,
                                     x + s * m, &one);
    }
    note(nt, s, PH_SUBSTITUTE, sst, &one);
  }
  free(ends);
  free(stat);
}

/* Algorithm 7 on a slice in place over d' (tl_distd2_substitute_d), its
 * rows in SIMD lanes (tl_cpu_two_spike_rows_d, the same bits); the
 * reference when a value would not be finite, for its report. */
static int substitute(const tl_distd2_plan *plan, double x_first, double x_last, double *x,
                      tl_info *info)
{
  size_t k0 = plan->begin[0], m = plan->begin[1] - k0;
  if (tl_cpu_two_spike_rows_d(m, plan->sa + k0, NULL, plan->sc + k0, x + k0, x_first, x_last,
                              x + k0, NULL))
    return TL_OK;
  return tl_distd2_substitute_d(plan, 0, x_first, x_last, x, x, info);
}

/* What the phases of one solve share. */
typedef struct d2_run {
  const tl_mpi_batch *sl;
  notes nt;
  tl_distd2_plan *plans;
  sys_state *ss;
  double *fix, *spike, *x;
  unsigned char *flag, *strict;
  int gpu, own_check, suspect;
} d2_run;

/* Phase 1 of the systems [s0, s1): Algorithm 5 on own rows, eight
 * systems at once (the reference's bits); on the CPU with Algorithm 6 in
 * the same pass, d' into x and only sa and sc of the plan rows written
 * (the multipliers stay in cache: 3 words per row written instead of 5,
 * and none read back). A system the batch flags runs the reference,
 * which gives its report. rows: the plan rows of system s0 (5 m each). */
static void d2_plan(d2_run *r, size_t s0, size_t s1, double *rows)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m, ns = s1 - s0;
  tl_info one;
  if (r->gpu)
    tl_cpu_distd2_preprocess_lines_d(sl->n, sl->periodic, sl->begin, m, ns, ROWS(sl->a, s0),
                                     ROWS(sl->b, s0), ROWS(sl->c, s0), rows, r->fix + s0,
                                     r->spike + s0, r->flag + s0, r->strict + s0);
  else
    tl_cpu_distd2_plan_decouple_lines_d(sl->n, sl->periodic, sl->begin, m, ns, ROWS(sl->a, s0),
                                        ROWS(sl->b, s0), ROWS(sl->c, s0), ROWS(sl->d, s0), rows,
                                        r->x + s0 * m, r->fix + s0, r->spike + s0, r->flag + s0,
                                        r->strict + s0);
  r->suspect |= r->own_check && !tl_mpi_corners_fine(sl, s0, ns);
  for (size_t s = s0; s < s1; s++) {
    tl_info_clear(&one);
    const double *a = ROWS(sl->a, s), *b = ROWS(sl->b, s), *c = ROWS(sl->c, s);
    double *mine = rows + 5 * m * (s - s0);
    tl_distd2_plan *pl = &r->plans[s];
    if (r->own_check && r->flag[s])
      r->suspect |= !tl_mpi_entries_scan(sl, s, 1);
    if (r->flag[s])
      memset(mine, 0, 5 * m * sizeof *mine);
    int rc = tl_distd2_plan_slice_shell_d(pl, sl->n, sl->periodic, sl->begin, m, mine, &one);
    if (rc == TL_OK && r->flag[s]) {
      rc = tl_distd2_preprocess_d(pl, 0, a, b, c, &one);
      r->fix[s] = pl->fix_scale[0]; /* for the batched decoupling below */
    } else if (rc == TL_OK)
      pl->fix_scale[0] = r->fix[s], pl->spike = r->spike[s];
    /* tl_distd2_plan_slice_classes_d, the rows in SIMD lanes; not read
     * again where phase 1's pass found every row strictly dominant */
    if (rc == TL_OK)
      pl->classes = tl_mpi_row_classes(sl, s, r->strict[s], &pl->worst_rel, &pl->worst_row);
    else
      tl_distd2_plan_destroy(pl); /* a plan that failed holds nothing (verdict) */
    note(&r->nt, s, PH_PLAN, rc, &one);
    r->ss[s].bad = rc < 0;
  }
}

/* Phase 2 of the systems [s0, s1): Algorithm 6. On the CPU, d' is in x
 * from phase 1 but for the systems it flagged (their entries, d's too,
 * scanned above). On the GPU kernel (decouple_gpu, before), d' stays
 * where the kernel ran (res) and the edges came back; dt holds only what
 * the host redoes. A flagged system runs the reference for its report
 * (its d' then put back there); one whose plan failed is skipped. */
static void d2_decouple(d2_run *r, size_t s0, size_t s1, double *dt, tl_gpu_distd2_resident *res)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m;
  tl_info one;
  for (size_t s = s0; s < s1; s++) {
    sys_state *y = &r->ss[s];
    if (r->gpu && r->own_check && (r->flag[s] || y->bad)) /* d not checked by the kernel */
      r->suspect |= !tl_mpi_entries_scan(sl, s, 1);
    if (y->bad)
      continue;
    int rc = TL_OK;
    tl_info_clear(&one);
    if (r->flag[s])
      rc = tl_distd2_decouple_d(&r->plans[s], 0, ROWS(sl->d, s), dt + s * m, &one);
    if (r->flag[s] && rc >= 0 && res) { /* the reference's d' replaces the kernel's there */
      int put = tl_gpu_distd2_resident_dt_d(res, s, dt + s * m, 1, &one);
      if (put < 0)
        rc = put;
    }
    note(&r->nt, s, PH_DECOUPLE, rc, &one);
    y->bad = rc < 0;
    if (!y->bad && (!r->gpu || r->flag[s]))
      tl_distd2_pack_d(&r->plans[s], 0, dt + s * m, &y->edge);
  }
}

/* Phase 5 on the CPU of the systems [s0, s1): Algorithm 7, in place over
 * d'. */
static void d2_substitute(d2_run *r, size_t s0, size_t s1)
{
  tl_info one;
  for (size_t s = s0; s < s1; s++) {
    if (r->ss[s].bad)
      continue;
    tl_info_clear(&one);
    int rc = substitute(&r->plans[s], r->ss[s].x_first, r->ss[s].x_last, r->x + s * r->sl->m, &one);
    note(&r->nt, s, PH_SUBSTITUTE, rc, &one);
  }
}

/* Every system has its own matrix, so its own slice plan: 5 words per
 * row (sa, sc and the three multipliers). On the CPU only sa and sc are
 * written for a system the one pass does not flag (the multipliers of
 * such a plan hold whatever the scratch held: nothing reads them; a
 * flagged system's plan is zeroed and filled whole by the reference).
 *
 * MINI-BATCHES. On the CPU phases 1-5 run a mini-batch of systems at a
 * time (the parameter `minibatch`, tl_minibatch_systems: by default 2^15
 * rows of ceil(n / P)), each with its exchange in round k of "edges":
 *
 *   mini-batch k:  Algorithms 5+6 (a, b, c, d read; sa, sc, d' written)
 *                  -> "edges" round k -> 2x2 systems -> Algorithm 7
 *
 * so that Algorithm 7 reads sa, sc and d' from the cache, where they
 * were just written, instead of from memory; the plan rows of one
 * mini-batch (5 m per system) are one scratch, the same for every
 * mini-batch and so in cache: 4 words per row read from memory and x
 * written, where the whole batch at once moved 11. The plans' rows are
 * read by nothing after their mini-batch (the verdict reads each plan's
 * numbers). The rows live in the rank's scratch, kept from one solve to
 * the next (tl_mpi_scratch_dirty), not in fresh memory per system and
 * solve, whose first touch cost more than the solve itself
 * (docs/algorithms/distd2.md, "MPI"). (TRIDLAB_SCRATCH_POISON fills
 * the scratch with NaN when a solve asks for it: from the second
 * mini-batch on, the multipliers no one writes hold the previous
 * mini-batch's numbers instead, and a bug that read them would give
 * finite values there.)
 *
 * gpu: Algorithms 6 and 7 on the GPU kernels (distd2_gpu_mpi) for the
 * whole batch, d' in the scratch after the whole batch's plans (a sixth
 * word per row: the reference's report of a failed substitution needs
 * it), the plans and the 2x2 systems on the host as for distd2_mpi; only
 * the exchanges go a mini-batch at a time (the same ledger). */
static int distd2_run_solve(int gpu, const tl_algorithm *self, tl_mpi_exchange *ex,
                            const tl_mpi_batch *sl, void *x_out, const tl_options *opt,
                            tl_info *info)
{
  double tol = tl_param_value(self, opt, "tol");
  size_t nsys = sl->nsys, m = sl->m;
  size_t mb =
      tl_minibatch_systems(sl->n, ex->size, nsys, (size_t)tl_param_value(self, opt, "minibatch"));
  tl_mpi_status st;
  TL_CALL(tl_mpi_status_init(&st, ex, nsys, info));
  d2_run run = {.sl = sl, .nt = {&st, 0}, .x = x_out, .gpu = gpu};
  d2_run *r = &run;
  r->plans = tl_alloc(nsys, sizeof *r->plans);
  r->ss = tl_alloc(nsys, sizeof *r->ss);
  /* The plan rows: the batched pass writes what is read later of a
   * system it does not flag (on the CPU sa and sc; on the GPU program's
   * path every row), so only the flagged systems' are zeroed (d2_plan),
   * before the reference's preprocessing fills them; zeroing all of it
   * cost 4 % of the solve. The GPU program's d' after them is not zeroed
   * either: only the systems the host redoes are written there (by the
   * reference, or fetched back from the resident slices) and read. */
  double *rows = tl_mpi_scratch_dirty((gpu ? 6 * nsys : 5 * mb) * m, sizeof(double));
  r->fix = tl_alloc(2 * nsys + 1, sizeof *r->fix), r->spike = r->fix ? r->fix + nsys : NULL;
  r->flag = tl_alloc(2 * nsys + 1, 1), r->strict = r->flag ? r->flag + nsys : NULL;
  tl_gpu_distd2_resident *res = NULL; /* the GPU program's slices, where its kernels run */
  int status = TL_OK;
  /* own_entry_check: the kernels check the entries of the systems they do
   * not flag as they read them (a, b, c and, through d', d in phase 1;
   * the GPU program's d in phase 2); the corners of all, and a flagged
   * system's entries whole, here. */
  r->own_check = self->mpi->own_entry_check;
  if (!r->plans || !r->ss || !rows || !r->fix || !r->flag) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2: no memory for %zu systems", nsys);
    goto cleanup;
  }
  double *dt = gpu ? rows + 5 * m * nsys : r->x;
  if (gpu) { /* phases 1 and 2 of the whole batch, Algorithm 6 on the device */
    d2_plan(r, 0, nsys, rows);
    memset(r->flag, 0, nsys);
    decouple_gpu(&r->nt, sl, rows, r->fix, &res, r->ss, r->flag);
    d2_decouple(r, 0, nsys, dt, res);
  }
  int round = 0;
  for (size_t s0 = 0; s0 < nsys || round == 0; s0 += mb, round++) {
    size_t s1 = nsys - s0 < mb ? nsys : s0 + mb;
    if (!gpu) { /* phases 1 and 2 of the mini-batch, its plan rows in cache */
      d2_plan(r, s0, s1, rows);
      d2_decouple(r, s0, s1, dt, NULL);
    }
    status = exchange_and_interfaces(&r->nt, r->ss, s0, s1 - s0, round, sl->begin, m, sl->n,
                                     sl->periodic);
    if (status < 0) {
      status =
          TL_FAIL(info, status, -1, -1, "", "distd2: the exchange of %zu systems failed", s1 - s0);
      goto cleanup;
    }
    if (!gpu) /* phase 5 of the mini-batch */
      d2_substitute(r, s0, s1);
  }
  if (gpu)
    substitute_gpu(&r->nt, sl, r->plans, res, dt, r->x, r->ss);
  status = r->own_check ? tl_mpi_entries_agree(ex, sl, r->suspect, info) : TL_OK;
  if (status == TL_OK)
    status = verdict(&r->nt, r->ss, nsys, r->plans, 1, tol, info);
cleanup:
  tl_gpu_distd2_resident_close(res);
  for (size_t s = 0; r->plans && s < nsys; s++)
    tl_distd2_plan_destroy(&r->plans[s]);
  free(r->plans);
  free(r->ss);
  free(r->fix);
  free(r->flag);
  tl_mpi_status_free(&st);
  return status;
}

static int distd2_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex, const tl_mpi_batch *sl,
                            const size_t *slices, void *x, const tl_options *opt, tl_info *info)
{
  (void)slices;
  return distd2_run_solve(0, self, ex, sl, x, opt, info);
}

static int distd2_gpu_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                                const tl_mpi_batch *sl, const size_t *slices, void *x,
                                const tl_options *opt, tl_info *info)
{
  (void)slices;
  return distd2_run_solve(1, self, ex, sl, x, opt, info);
}

#undef ROWS

/* ---------------------------------------------------------------- */
/* The compact scheme on SZ-packed slices (the packed kernels)         */

/* The ranks the halo of u comes from: as the boundary rows, except that
 * one periodic rank is its own neighbour (its halo wraps onto itself). */
static void halo_neighbours(int P, int periodic, int p, int *prev, int *next)
{
  *prev = (periodic || p > 0) ? (p + P - 1) % P : -1;
  *next = (periodic || p + 1 < P) ? (p + 1) % P : -1;
}

/* Rows r, r+1 of every group of a packed array of `rows` rows per group
 * to a buffer of 2 rows per group (to_buf), or back (!to_buf). */
static void two_rows(size_t groups, size_t rows, size_t sz, size_t r, double *arr, double *buf,
                     int to_buf)
{
  for (size_t g = 0; g < groups; g++) {
    double *a = arr + (g * rows + r) * sz, *b = buf + g * 2 * sz;
    memcpy(to_buf ? b : a, to_buf ? a : b, 2 * sz * sizeof(double));
  }
}

/* The halo of u, in place: u holds m + 4 rows per group, its own rows at
 * 2 .. m+1; rows 0, 1 come from prev (its last two), rows m+2, m+3 from
 * next (its first two), zero beyond a plain system's ends. One exchange
 * of 2 rows per group with each neighbour: phase "ghost-rows" (the
 * algorithm's data; "halo" is the verdict's). */
static int exchange_halo(tl_mpi_exchange *ex, int periodic, size_t m, size_t groups, size_t sz,
                         double *u)
{
  int prev, next;
  halo_neighbours(ex->size, periodic, ex->rank, &prev, &next);
  size_t rows2 = 2 * groups * sz, hm = m + 4;
  double *buf = tl_alloc(4 * rows2, sizeof(double));
  if (!buf)
    return TL_ERR_NOMEM;
  double *to_prev = buf, *to_next = buf + rows2, *from_prev = buf + 2 * rows2,
         *from_next = buf + 3 * rows2;
  memset(from_prev, 0, 2 * rows2 * sizeof(double));
  two_rows(groups, hm, sz, 2, u, to_prev, 1); /* own first two rows */
  two_rows(groups, hm, sz, m, u, to_next, 1); /* own last two rows  */
  int rc = tl_mpi_neighbours(ex, "ghost-rows", 0, TL_F64, prev, next, to_prev, rows2, to_next,
                             rows2, from_prev, rows2, from_next, rows2);
  two_rows(groups, hm, sz, 0, u, from_prev, 0);
  two_rows(groups, hm, sz, m + 2, u, from_next, 0);
  free(buf);
  return rc;
}

/* What one round of the compact entry works on: groups [g0, g0 + ng)
 * of SZ systems, systems [s0, s0 + ns). */
/* The largest d' of a round kept in a scratch of its own (4 MiB: a core's
 * L2 or its share of L3; rounds of two groups of 16 systems of 4096 rows
 * take 1 MiB). */
#define ROUND_SCRATCH_MAX ((size_t)4 << 20)

typedef struct compact_round {
  const tl_distd2_plan *plan;
  const double *st;
  size_t sz, g0, s0, ns;
  int round;
  double *ys; /* d' of a round, in cache (NULL: in du) */
} compact_round;

/* One round: the packed decoupling of its groups, their boundary rows
 * exchanged and the 2x2 systems solved, the packed substitution -- d' of
 * the round's groups is still in cache when the substitution reads it
 * when the round is small (paper 002's mini-batches). With ys, d' is
 * made in that scratch, which stays in cache from round to round, and
 * the substitution writes du by streaming stores: du is written once,
 * no line of it read first (2 words per unknown with u, not 3). */
static int compact_one_round(const notes *nt, const compact_round *cr, double *u, double *du,
                             sys_state *ss, tl_distd2_edge *edges, double *xs, double *xe)
{
  const tl_distd2_plan *plan = cr->plan;
  size_t m = plan->n, sz = cr->sz, s0 = cr->s0, ns = cr->ns;
  double *ur = u + cr->g0 * (m + 4) * sz, *dr = du + cr->g0 * m * sz;
  double *yr = cr->ys ? cr->ys : dr;
  tl_info one;
  tl_info_clear(&one);
  int rc = tl_cpu_distd2_decouple_stencil_sz_d(plan, 0, cr->st, ns, sz, ur, yr, &one);
  size_t bad = one.system >= 0 ? s0 + (size_t)one.system : s0; /* the kernel's first failure */
  if (rc < 0)
    note(nt, bad, PH_DECOUPLE, rc, &one);
  tl_cpu_distd2_pack_sz_d(plan, 0, ns, sz, yr, edges + s0);
  for (size_t s = s0; s < s0 + ns; s++) {
    ss[s].edge = edges[s];
    ss[s].bad = rc < 0 && s == bad;
  }
  int status = exchange_and_interfaces(nt, ss, s0, ns, cr->round, plan->row0, m, plan->n_total,
                                       plan->periodic);
  if (status < 0)
    return status;
  for (size_t s = s0; s < s0 + ns; s++) {
    xs[s] = ss[s].bad ? 0.0 : ss[s].x_first;
    xe[s] = ss[s].bad ? 0.0 : ss[s].x_last;
  }
  tl_info_clear(&one);
  rc = cr->ys
           ? tl_cpu_distd2_substitute_stream_sz_d(plan, 0, ns, sz, xs + s0, xe + s0, yr, dr, &one)
           : tl_cpu_distd2_substitute_sz_d(plan, 0, ns, sz, xs + s0, xe + s0, dr, dr, &one);
  if (rc < 0)
    note(nt, one.system >= 0 ? s0 + (size_t)one.system : s0, PH_SUBSTITUTE, rc, &one);
  return TL_OK;
}

/* The first system whose status word `word` (0: d', 1: x) names a row,
 * noted as the CPU's packed kernels report it (decouple_packed and
 * substitute_packed in optimized/cpu/compact_cpu.c: the lowest system,
 * its first row, counted in the whole system); its index, or -1. */
static long note_overflow(const notes *nt, const tl_distd2_plan *plan, size_t nsys, const int *stat,
                          int word)
{
  for (size_t s = 0; s < nsys; s++) {
    if (stat[2 * s + (size_t)word] < 0)
      continue;
    long row = (long)plan->row0 + stat[2 * s + (size_t)word];
    tl_info one;
    tl_info_clear(&one);
    note(nt, s, word ? PH_SUBSTITUTE : PH_DECOUPLE,
         TL_FAIL(&one, TL_ERR_BREAKDOWN, (long)s, row, "",
                 "distd2: overflow in the %s at row %ld of system %ld",
                 word ? "substitution" : "decoupling phase", row, (long)s),
         &one);
    return (long)s;
  }
  return -1;
}

/* The compact scheme with one GPU per rank: the phases of
 * tl_mpi_distd2_compact_sz (one round), Algorithms 6 and 7 on the GPU
 * kernels with the rank's slices kept there between them
 * (tl_gpu_compact_resident_*):
 *
 *   "ghost-rows"   host: u's two rows each way (exchange_halo)
 *   open           the plan, the stencil and u with its ghost rows go there
 *   decouple       GPU: d' stays; rows 0 and m-1 of every system come back
 *   "edges"        host: packed as tl_cpu_distd2_pack_sz_d packs them, the
 *                  2x2 systems (exchange_and_interfaces)
 *   substitute     GPU: x from d' and x_first, x_last; x comes back
 *   "verdict"      host, as the CPU program's
 *
 * The kernels do the reference's operations, so the CPU program's bits,
 * and a failure is reported as its kernels report it (note_overflow).
 * Where the slices cannot be placed or a launch has no memory, this rank
 * runs the CPU round instead (the same messages, so no rank waits); a
 * device that fails is every system's failure, after the same messages,
 * with du zeroed. */
static int compact_gpu_round(const notes *nt, const tl_distd2_plan *plan, const double *st,
                             size_t nsys, double *u, double *du, sys_state *ss,
                             tl_distd2_edge *edges, double *xs, double *xe)
{
  size_t m = plan->n;
  double *ends = tl_alloc(2 * nsys, sizeof *ends);
  int *stat = tl_alloc(2 * nsys, sizeof *stat);
  tl_gpu_compact_resident *res = NULL;
  tl_info gi;
  tl_info_clear(&gi);
  int rc =
      ends && stat ? tl_gpu_compact_resident_open_d(plan, st, nsys, u, &res, &gi) : TL_ERR_NOMEM;
  if (rc == TL_OK)
    rc = tl_gpu_compact_resident_decouple_d(res, ends, stat, &gi);
  if (rc == TL_ERR_NOMEM) { /* the CPU round: the same phases and messages */
    tl_gpu_compact_resident_close(res);
    free(ends), free(stat);
    compact_round cr = {plan, st, TL_GPU_SZ, 0, 0, nsys, 0, NULL};
    return compact_one_round(nt, &cr, u, du, ss, edges, xs, xe);
  }
  long bad = rc == TL_OK ? note_overflow(nt, plan, nsys, stat, 0) : -1;
  for (size_t s = 0; rc < 0 && s < nsys; s++) /* the device failed */
    note(nt, s, PH_DECOUPLE, rc, &gi);
  for (size_t s = 0; s < nsys; s++) { /* tl_cpu_distd2_pack_sz_d's edges */
    tl_distd2_edge *e = &ss[s].edge;
    e->first_lower = plan->sa[0], e->first_upper = plan->sc[0];
    e->last_lower = plan->sa[m - 1], e->last_upper = plan->sc[m - 1];
    e->first_rhs = rc == TL_OK ? ends[2 * s] : 0.0;
    e->last_rhs = rc == TL_OK ? ends[2 * s + 1] : 0.0;
    ss[s].bad = rc < 0 || (long)s == bad;
  }
  int status =
      exchange_and_interfaces(nt, ss, 0, nsys, 0, plan->row0, m, plan->n_total, plan->periodic);
  if (status == TL_OK && rc == TL_OK) {
    for (size_t s = 0; s < nsys; s++) {
      xs[s] = ss[s].bad ? 0.0 : ss[s].x_first;
      xe[s] = ss[s].bad ? 0.0 : ss[s].x_last;
      ends[2 * s] = xs[s], ends[2 * s + 1] = xe[s];
    }
    rc = tl_gpu_compact_resident_substitute_d(res, ends, du, stat, &gi);
    if (rc == TL_OK)
      note_overflow(nt, plan, nsys, stat, 1);
    for (size_t s = 0; rc < 0 && s < nsys; s++)
      note(nt, s, PH_SUBSTITUTE, rc, &gi);
  }
  if (rc < 0) /* x defined, every system failed */
    memset(du, 0, (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ * TL_GPU_SZ * m * sizeof *du);
  tl_gpu_compact_resident_close(res);
  free(ends);
  free(stat);
  return status;
}

/* Both entry points: the argument check, the ghost rows, the rounds on
 * the CPU's packed kernels or the one round on the GPU kernels, the
 * verdict (collective: every rank returns the same status). */
static int compact_run(int gpu, MPI_Comm comm, const tl_distd2_plan *plan, const double st[5],
                       size_t nsys, size_t sz, size_t round_groups, double *u, double *du,
                       double tol, tl_ledger *ledger, double *comm_seconds, tl_info *info)
{
  const char *name = gpu ? "distd2 compact gpu" : "distd2 compact";
  tl_info_clear(info);
  tl_mpi_exchange ex = {.comm = comm, .ledger = ledger};
  MPI_Comm_rank(comm, &ex.rank);
  MPI_Comm_size(comm, &ex.size);
  size_t m = plan ? plan->n : 0, groups = sz ? (nsys + sz - 1) / sz : 0;
  int ok = plan && plan->begin && plan->parts == 1 && m >= 2 && st && u && du && nsys >= 1 &&
           tl_cpu_sz_supported(sz),
      all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm); /* not recorded: an argument check */
  if (!all_ok)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "plan",
                   "%s: every rank needs a slice plan of >= 2 rows, a stencil, u, du, nsys >= 1%s",
                   name, gpu ? "" : " and SZ in {8, 16, 32, 64}");
  tl_mpi_status stt; /* one slot: the matrix is the batch's */
  TL_CALL(tl_mpi_status_init(&stt, &ex, 1, info));
  notes nt = {&stt, 1};
  sys_state *ss = tl_alloc(nsys, sizeof *ss);
  tl_distd2_edge *edges = tl_alloc(nsys, sizeof *edges);
  double *xs = tl_alloc(2 * nsys, sizeof *xs), *xe = xs ? xs + nsys : NULL;
  int status = TL_OK;
  if (!ss || !edges || !xs) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory", name);
    goto cleanup;
  }
  status = exchange_halo(&ex, plan->periodic, m, groups, sz, u); /* the whole batch's, once */
  if (status == TL_OK && gpu)
    status = compact_gpu_round(&nt, plan, st, nsys, u, du, ss, edges, xs, xe);
  size_t per = round_groups ? round_groups : groups;
  compact_round cr = {plan, st, sz, 0, 0, 0, 0, NULL};
  /* Rounds over a du larger than the cache: d' in a round's scratch, du
   * streamed (compact_one_round) -- where a round's d' stays in cache
   * (ROUND_SCRATCH_MAX); a larger scratch would go to memory and back. */
  if (!gpu && round_groups && per < groups && (uintptr_t)du % 16 == 0 &&
      groups * m * sz * sizeof *du > tl_cpu_stream_min_bytes() &&
      per * m * sz * sizeof *du <= ROUND_SCRATCH_MAX)
    cr.ys = tl_mpi_scratch_dirty(per * m * sz, sizeof *du); /* NULL: in du, as without */
  for (; !gpu && status == TL_OK && cr.g0 < groups; cr.g0 += per, cr.round++) {
    cr.s0 = cr.g0 * sz;
    cr.ns = (cr.g0 + per < groups ? (cr.g0 + per) * sz : nsys) - cr.s0;
    status = compact_one_round(&nt, &cr, u, du, ss, edges, xs, xe);
  }
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "%s: the exchange failed", name);
    goto cleanup;
  }
  status = verdict(&nt, ss, nsys, plan, 0, tol, info);
cleanup:
  if (comm_seconds)
    *comm_seconds = ex.seconds;
  free(ss);
  free(edges);
  free(xs);
  tl_mpi_status_free(&stt);
  return status;
}

int tl_mpi_distd2_compact_sz(MPI_Comm comm, const tl_distd2_plan *plan, const double st[5],
                             size_t nsys, size_t sz, size_t round_groups, double *u, double *du,
                             double tol, tl_ledger *ledger, double *comm_seconds, tl_info *info)
{
  return compact_run(0, comm, plan, st, nsys, sz, round_groups, u, du, tol, ledger, comm_seconds,
                     info);
}

int tl_mpi_distd2_compact_gpu(MPI_Comm comm, const tl_distd2_plan *plan, const double st[5],
                              size_t nsys, double *u, double *du, double tol, tl_ledger *ledger,
                              double *comm_seconds, tl_info *info)
{
  return compact_run(1, comm, plan, st, nsys, TL_GPU_SZ, 0, u, du, tol, ledger, comm_seconds, info);
}

extern const tl_algorithm tl_algo_distd2_ref;

static const tl_mpi_program distd2_program = {
    .crosses = "one exchange of boundary rows with both neighbours per mini-batch, 2x2 systems "
               "solved by both, verdict",
    .solve = distd2_mpi_solve,
    .own_entry_check = 1, /* in the preprocessing's and the decoupling's passes */
};

const tl_algorithm tl_mpi_algo_distd2 = {
    .name = "distd2_mpi",
    .backend = "mpi",
    .reference = &tl_algo_distd2_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &distd2_program,
};

/* DistD2 with one GPU per rank (docs/mpi.md, "One GPU per rank"): the
 * same program, its decoupling and substitution on the GPU kernels, the
 * same messages and ledger. */
static const tl_mpi_program distd2_gpu_program = {
    .crosses = "one exchange of boundary rows with both neighbours per mini-batch, 2x2 systems "
               "solved by both, verdict",
    .solve = distd2_gpu_mpi_solve,
};

const tl_algorithm tl_mpi_algo_distd2_gpu = {
    .name = "distd2_gpu_mpi",
    .backend = "mpi+gpu-emulated",
    .reference = &tl_algo_distd2_ref,
    .summary = "DistD2 across MPI ranks, one GPU per rank: each rank's decoupling and "
               "substitution on the GPU kernels (a plan per system, made on the host), the "
               "boundary rows through the exchange layer",
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* tl_mpi_solve checks each rank's rows */
    .mpi = &distd2_gpu_program,
};
