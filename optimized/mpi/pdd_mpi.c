/* optimized/mpi/pdd_mpi.c -- PDD and RPDD across MPI ranks.
 *
 * The rank programs of reference/pdd_ref.c and reference/rpdd_ref.c:
 * rank p is partition p and runs the same phase functions on its own rows
 * of every system of the batch; what the simulated partitions pass in
 * their edge and interface buffers travels here as one message per
 * neighbour for a whole mini-batch of systems (PDD; below,
 * "Mini-batches") or for the whole batch (RPDD) (docs/algorithms/pdd.md,
 * "MPI"):
 *
 *   PDD, per system          rank p-1        rank p          rank p+1
 *   1 local solve + spikes      |               |               |
 *   2 "first-row"               | <- y0 v0 a0 --|               |   3 words
 *   3 "interface" (2x2 solve)   |               |-- x_last c -> |   2 words
 *   5 correction                |               |               |
 *   6 "verdict": two allreduces (status, dropped, margin, |x|; then the
 *     two tail terms of the bound): 8 and 4 words
 *
 *   RPDD: one "edges" exchange with both neighbours at once (3 words each
 *   way), then each rank solves both of its interfaces itself.
 *
 * Phase 1 and the correction run on CPU kernels (below, "Phase 1 on
 * the kernels"), or, in pdd_gpu_mpi, on the GPU
 * kernels with the slices kept where they run from phase 1 to the
 * correction (local_gpu, correct_there); the interfaces and the verdict
 * are the reference's, one system at a time.
 *
 * Cost per rank: PDD reads the slice from memory once (phase 1's
 * eliminations; phase 5's second solve finds a mini-batch's rows in
 * cache) and writes x: 5 words per unknown where x goes by streaming
 * stores, 6 with x's read for ownership; RPDD reads it once and writes y
 * (5 or 6 words), plus a few words per spike row; then the reference's
 * flops for the interfaces and the verdict; messages: 2 per mini-batch
 * (PDD, in two dependent steps) or 2 at once (RPDD), plus the verdict.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"
#include "tridlab/gpu.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_rpdd.h"

_Static_assert(sizeof(tl_pdd_edge_d) == TL_PDD_EDGE_WORDS * sizeof(double),
               "an edge travels as 3 doubles");
_Static_assert(sizeof(tl_pdd_iface_d) == TL_PDD_IFACE_WORDS * sizeof(double),
               "an interface message travels as 2 doubles");

/* Phases as the references number them (the order failures are met). */
enum { PH_CHECK = 0, PH_LOCAL = 1, PH_INTERFACE = 3, PH_CORRECT_PDD = 5, PH_CORRECT_RPDD = 4 };

typedef struct pdd_run {
  tl_mpi_exchange *ex;
  const tl_mpi_batch *sl;
  double *x;
  const char *name;
  int gpu;                  /* 1: phases 1 and 5 on the GPU kernels (pdd_gpu_mpi) */
  tl_gpu_pdd_resident *res; /* gpu: the slices, where the kernels run   */
  tl_pdd_part_d *pt;        /* one per system                           */
  tl_pdd_edge_d *to_prev, *to_next, *from_prev, *from_next;
  unsigned char *bad;       /* 1: the system failed on this rank        */
  unsigned char *redo;      /* phase 1: 1 where the reference takes over */
  unsigned char *finish;    /* per system: how phase 5 finishes x (below) */
  double *mid_max;          /* ENDS: the largest |y| between the spikes  */
  int own_check;            /* 1: the entries checked here (own_entry_check) */
  int suspect;              /* 1: a scan of the entries said no          */
  size_t scanned;           /* systems whose entries were scanned        */
  tl_mpi_status st;
} pdd_run;

/* How a system's x is finished after the interfaces (phase 5), by what
 * its phase 1 kept:
 *   CORRECT    x holds y, v and w whole (the reference's phase 1, or the
 *              GPU kernel's): x -= v x_left + w x_right on every row;
 *   ENDS       RPDD on the kernel: x holds y, v and w only the rows they
 *              reach ([0, kv), [m - kw, m)), and mid_max the largest |y|
 *              between: only the rows the spikes reach are corrected;
 *   RESOLVE    PDD on the kernel: x holds only y_0 and y_{m-1}, v and w
 *              only their first and last entries; x is solved again with
 *              the neighbours' x moved to the right-hand side;
 *   THERE      PDD on the GPU kernels: y, v and w whole where the kernels
 *              ran (res), their ends here as RESOLVE's; the correction
 *              runs there and x comes back. */
enum { CORRECT = 0, ENDS = 1, RESOLVE = 2, THERE = 3 };

#define ROWS(arr, s) ((const double *)(arr) + (s) * r->sl->m)

static void run_free(pdd_run *r)
{
  if (r->pt)
    for (size_t s = 0; s < r->sl->nsys; s++)
      tl_pdd_part_free_d(&r->pt[s]);
  free(r->pt);
  free(r->to_prev);
  free(r->bad);
  free(r->redo);
  free(r->finish);
  free(r->mid_max);
  tl_gpu_pdd_resident_close(r->res);
  tl_mpi_status_free(&r->st);
}

static int run_init(pdd_run *r, tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices,
                    void *x, const char *name, tl_info *info)
{
  memset(r, 0, sizeof *r);
  r->ex = ex;
  r->sl = sl;
  r->x = x;
  r->name = name;
  size_t nsys = sl->nsys;
  r->pt = tl_alloc(nsys, sizeof *r->pt);
  r->to_prev = tl_alloc(4 * nsys, sizeof *r->to_prev);
  r->bad = tl_alloc(nsys, 1);
  r->redo = tl_alloc(nsys, 1);
  r->finish = tl_alloc(nsys, 1);
  r->mid_max = tl_alloc(nsys, sizeof *r->mid_max);
  /* Every system's spikes v, w (2 words per own row), in the rank's
   * scratch kept from one solve to the next, not fresh per system, and
   * not zeroed whole: the kernels' paths write and read only a few
   * entries ("finish" above), the reference's path zeroes a system's
   * spikes first (spikes_zero). */
  double *spikes = tl_mpi_scratch_dirty(2 * sl->m * nsys, sizeof(double));
  int status = tl_mpi_status_init(&r->st, ex, nsys, info);
  if (status == TL_OK &&
      (!r->pt || !r->to_prev || !r->bad || !r->redo || !r->finish || !r->mid_max || !spikes))
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for %zu systems", name, nsys);
  if (status < 0) {
    run_free(r);
    return status;
  }
  r->to_next = r->to_prev + nsys;
  r->from_prev = r->to_prev + 2 * nsys;
  r->from_next = r->to_prev + 3 * nsys;
  for (size_t s = 0; s < nsys; s++) {
    tl_info one;
    tl_info_clear(&one);
    int st = tl_pdd_part_init_in_d(&r->pt[s], sl->n, ex->size, slices, ex->rank,
                                   spikes + 2 * sl->m * s, &one);
    if (st < 0) { /* no spikes for this system: note it, skip its phases */
      r->bad[s] = 1;
      tl_mpi_status_note(&r->st, s, PH_LOCAL, st, &one);
    }
  }
  return TL_OK;
}

/* Note a phase's status for system s; a failed system skips the phases
 * after it (its rank still sends, so nobody waits). */
static void note(pdd_run *r, size_t s, int phase, int status, const tl_info *one)
{
  if (status < 0)
    r->bad[s] = 1;
  tl_mpi_status_note(&r->st, s, phase, status, one);
}

/* ---- Phase 1 on the kernels ------------------------------------------
 *
 * WHAT THE REFERENCE COMPUTES. For every system of the slice, the local
 * solution A_p y = d_p and the two spikes
 *   A_p v = a[0] e_0        (only when p has a left neighbour: kv = m)
 *   A_p w = c[m-1] e_{m-1}  (only when p has a right neighbour: kw = m)
 * then its bookkeeping (tl_pdd_bound_local_d); RPDD truncates the spikes
 * (tl_rpdd_ref_spikes_drops_d: they stop after a few rows, y is the bulk
 * of the work). One system after another, with scalar recurrences (about
 * 17 ns per unknown for y alone).
 *
 * WHAT THE RANK KEEPS, AND WHY. Each word per unknown written and read
 * back costs a rank program about a tenth of its time at P = 2
 * (docs/performance.md, "MPI"), so phase 1 keeps only what the later
 * phases read:
 *   PDD   the ends of y, v and w: y_0, y_{m-1} in x; v_0, v_{m-1}, w_0,
 *         w_{m-1} in the spikes (the messages and the bound read nothing
 *         else). They come from two eliminations that write nothing
 *         (tl_cpu_pdd_ends_d, optimized/cpu/pdd_ends_cpu.c: the end of a
 *         solution needs no back substitution), a mini-batch of systems
 *         at a time (below, "Mini-batches"). Phase 5 then solves the
 *         block again with the neighbours' unknowns on the right-hand
 *         side (resolve, below): x = y - v x_left - w x_right without y,
 *         v or w.
 *   RPDD  y through the x-line kernel (tl_cpu_thomas_lines_more_d, the
 *         node's memory bandwidth), a chunk of systems at a time; while
 *         a chunk's rows are in cache, each system's truncated spikes by
 *         the reference into a buffer of one system, of which the rows
 *         they reach are kept; the margin; and the largest |y| between
 *         the spikes, so that phase 5 reads and writes only the rows the
 *         spikes reach.
 * The ends and y are the reference's to rounding (other eliminations of
 * the same numbers; the kernels multiply by reciprocals where the
 * reference divides). The bottom-up elimination of PDD's ends has the
 * reference's pivots of w, so it meets w's breakdowns where the
 * reference does; the top-down one (and phase 5's solve) has y's and v's.
 * A rank without a left neighbour runs the bottom-up one only for the
 * systems whose rows are not all strictly dominant with |b| < 2^1023:
 * in the others no pivot of w vanishes or overflows (pdd_ends).
 *
 * FALLBACK. A system a kernel flags (a pivot zero or not finite, or a
 * value not finite) gets the reference's whole phase 1 instead
 * (tl_pdd_ref_local_d, tl_rpdd_ref_local_d), which gives its exact
 * status, row and message, and later the whole correction. What PDD's
 * kernels do not compute they cannot flag: a y or a v that overflows
 * inside the block while x does not (near-overflow data) is a breakdown
 * for the reference and not here. Flags 2 and 3
 * of the x-line kernel do not matter here: the corners of a block are its
 * couplings, and the verdict judges dominance. When scratch memory is
 * short, every system falls back. The x-line kernel also flags a pivot
 * that cancelled to within 2^-30 of b, where the reference's rounding may
 * give exactly zero (thomas_group.h); PDD's ends sweep does not. */

/* One kernel solve of k systems of m rows (a, b, c), right-hand sides
 * rhs into sol (may be rhs); systems flagged 1 are marked in redo; and
 * what more asks for (tl_cpu_thomas_lines_more_d: each system's least
 * row margin for margin(), its largest |x|, the right-hand side's end
 * rows, streaming stores for x). 0 when the kernel could not run. */
static int lines(size_t m, size_t k, const double *a, const double *b, const double *c,
                 const double *rhs, double *sol, unsigned char *flag, const tl_cpu_lines_more *more,
                 unsigned char *redo)
{
  tl_info ti;
  tl_info_clear(&ti);
  if (tl_cpu_thomas_lines_more_d(m, k, a, b, c, rhs, sol, flag, more, &ti) != TL_OK)
    return 0;
  for (size_t s = 0; s < k; s++)
    if (flag[s] == 1)
      redo[s] = 1;
  return 1;
}

/* With own_entry_check, the entries of the k systems from s0: from the
 * flags of the kernel that has just solved them (tl_mpi_entries_from_flags)
 * instead of a scan of the four arrays, or, flag NULL (no kernel ran
 * here), a scan. */
static void entries_checked(pdd_run *r, size_t s0, size_t k, const unsigned char *flag)
{
  if (!r->own_check)
    return;
  r->suspect |= flag ? !tl_mpi_entries_from_flags(r->sl, s0, k, flag, NULL)
                     : !tl_mpi_entries_scan(r->sl, s0, k);
  r->scanned += k;
}

/* The local margin of the error bound of system s (tl_pdd_bound_margin_d):
 * from rowmin, the least row margin the kernel found in its pass over
 * the system, and rows 0 and m-1 (tl_cpu_pdd_margin_from_rows_d, the
 * same bits); where that margin is not positive, its row is searched for
 * (tl_cpu_pdd_margin_d, the loop in SIMD lanes), since the verdict names
 * the row of a margin that is not positive and of no other; and where a
 * NaN is met, the reference's loop. A positive margin's row is left at
 * -1: nothing reads it (tl_pdd_ref_verdict_d). Reading a, b and c once
 * more for every system took 9 % of a rank's time at P = 1
 * (docs/performance.md, "MPI"). */
static void margin(pdd_run *r, size_t s, double rowmin)
{
  const tl_mpi_batch *sl = r->sl;
  tl_pdd_part_d *pt = &r->pt[s];
  const double *a = ROWS(sl->a, s), *b = ROWS(sl->b, s), *c = ROWS(sl->c, s);
  int left = r->ex->rank > 0, right = r->ex->rank + 1 < r->ex->size;
  long row;
  if (tl_cpu_pdd_margin_from_rows_d(sl->m, left, right, a, b, c, rowmin, &pt->margin))
    pt->margin_row = -1;
  else if (tl_cpu_pdd_margin_d(sl->m, left, right, a, b, c, &pt->margin, &row))
    pt->margin_row = (long)pt->begin + row;
  else
    tl_pdd_bound_margin_d(pt, a, b, c);
}

/* A system that takes the reference's phase 1: its spikes zeroed first,
 * as the reference's own memory is ("the rest is 0", part_pdd.h), since
 * the rank's scratch is not zeroed (tl_mpi_scratch_dirty) and the whole
 * correction reads every row of v and w. */
static void spikes_zero(tl_pdd_part_d *pt)
{
  memset(pt->v, 0, pt->m * sizeof *pt->v);
  memset(pt->w, 0, pt->m * sizeof *pt->w);
}

/* The systems of a chunk still on the kernel's path. */
#define KEPT(r, redo, s) (!(r)->bad[s] && !(redo)[s])

/* PDD's phase 1 on the kernel: only the ends of y, v and w, by two
 * eliminations that keep nothing (tl_cpu_pdd_ends_d); y_0 and y_{m-1}
 * into x, the spikes' ends into the spikes, the bookkeeping but the
 * margin (phase 5 takes it, when the rows are in cache). Systems the
 * kernel flags into redo. 0 when there was no memory for it. */
static int pdd_ends(pdd_run *r, size_t s0, size_t s1, unsigned char *redo)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m, ns = s1 - s0;
  int left = r->ex->rank > 0, right = r->ex->rank + 1 < r->ex->size;
  double *ends = tl_alloc(6 * ns, sizeof *ends);
  unsigned char *strict = tl_alloc(ns + 1, 1);
  if (!ends || !strict) {
    free(ends);
    free(strict);
    return 0;
  }
  /* Top-down where there is a right neighbour, for the ends at m-1; a
   * breakdown of y (and so of v: the same pivots) on a partition without
   * it is met by phase 5's solve, which has y's pivots. Bottom-up where
   * there is a left neighbour, for the ends at row 0; it also has the
   * pivots of the reference's w, whose breakdowns the reference reports.
   * A partition with no left neighbour needs that sweep for them alone,
   * and a block whose rows are all strictly dominant, with |b| < 2^1023,
   * has none (no pivot of w vanishes or overflows:
   * tl_cpu_pdd_ends_d's strict): there the top-down sweep's margins
   * decide, and a system they do not clear gets the bottom-up sweep alone
   * (one system at a time, the same operations). At P = 2, each rank then
   * sweeps once, where rank 0 swept twice and rank 1 waited for it. */
  int margins = right && !left; /* (one rank: no sweep, nothing to test) */
  tl_cpu_pdd_ends_d(m, ns, right, left, ROWS(sl->a, s0), ROWS(sl->b, s0), ROWS(sl->c, s0),
                    ROWS(sl->d, s0), ends, redo + s0, margins ? strict : NULL);
  for (size_t s = s0; s < s1; s++) {
    if (margins && !strict[s - s0] && !redo[s]) { /* w's pivots, from the sweep that has them */
      double up[6];
      unsigned char flag = 0;
      tl_cpu_pdd_ends_d(m, 1, 0, 1, ROWS(sl->a, s), ROWS(sl->b, s), ROWS(sl->c, s), ROWS(sl->d, s),
                        up, &flag, NULL);
      redo[s] = flag;
    }
    if (!KEPT(r, redo, s))
      continue;
    tl_pdd_part_d *pt = &r->pt[s];
    const double *e = ends + 6 * (s - s0);
    double *x = r->x + s * m;
    /* the four ends, zero where no sweep computed them (read by nothing,
     * but defined): the scratch holds another solve's numbers */
    pt->v[0] = pt->v[m - 1] = pt->w[0] = pt->w[m - 1] = 0.0;
    if (left) /* y_0, v_0, w_0 */
      x[0] = e[0], pt->v[0] = e[2], pt->w[0] = e[4];
    if (right) /* y_{m-1}, v_{m-1}, w_{m-1} */
      x[m - 1] = e[1], pt->v[m - 1] = e[3], pt->w[m - 1] = e[5];
    tl_pdd_ref_spike_lengths_d(pt);
    tl_pdd_bound_drops_d(pt); /* reads v_{m-1} (right) and w_0 (left) only */
    r->finish[s] = RESOLVE;
  }
  free(ends);
  free(strict);
  return 1;
}

/* RPDD's phase 1 of the k systems from s0: y by the kernel into x, then
 * each system's truncated spikes by the reference into sp (2 m words,
 * and m multipliers after them), of which the rows they reach are kept;
 * the margin, and the largest |y| between the spikes. Each system's
 * status noted. 0 when the kernel could not run. */
static int rpdd_chunk(pdd_run *r, size_t s0, size_t k, size_t J, double tol, double *sp,
                      unsigned char *flag, double *rowmin, unsigned char *redo)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m;
  /* A rank without neighbours has no spikes: y is x, its largest |x|
   * the kernel's, and nothing reads x again (streaming stores). */
  int alone = r->ex->size == 1;
  double *xm = alone ? rowmin + k : NULL;
  tl_cpu_lines_more more = {rowmin, xm,  NULL, alone ? sl->nsys * m * sizeof(double) : 0,
                            NULL,   NULL};
  if (!lines(m, k, ROWS(sl->a, s0), ROWS(sl->b, s0), ROWS(sl->c, s0), ROWS(sl->d, s0),
             r->x + s0 * m, flag, &more, redo + s0))
    return 0;
  entries_checked(r, s0, k, flag);
  for (size_t s = s0; s < s0 + k; s++) {
    if (!KEPT(r, redo, s))
      continue;
    tl_pdd_part_d *pt = &r->pt[s];
    double *v = pt->v, *w = pt->w;
    pt->v = sp, pt->w = sp + m; /* the reference's spikes, in cache */
    tl_info one;
    tl_info_clear(&one);
    int st = tl_rpdd_ref_spikes_drops_d(pt, ROWS(sl->a, s), ROWS(sl->b, s), ROWS(sl->c, s), J,
                                        tol, sp + 2 * m, &one);
    if (pt->kv + pt->kw <= m) { /* the rows the spikes reach */
      memcpy(v, sp, pt->kv * sizeof *v);
      memcpy(w + m - pt->kw, sp + 2 * m - pt->kw, pt->kw * sizeof *w);
    } else { /* they overlap: whole, for the whole correction (zeros beyond) */
      memcpy(v, sp, m * sizeof *v);
      memcpy(w, sp + m, m * sizeof *w);
    }
    pt->v = v, pt->w = w;
    note(r, s, PH_LOCAL, st, &one);
    if (st != TL_OK)
      continue;
    margin(r, s, rowmin[s - s0]);
    if (pt->kv + pt->kw <= m) {
      r->mid_max[s] = xm && pt->kv + pt->kw == 0
                          ? xm[s - s0]
                          : tl_cpu_max_abs_d(m - pt->kv - pt->kw, r->x + s * m + pt->kv);
      r->finish[s] = ENDS;
    }
  }
  return 1;
}

/* Phase 1 on the kernel for every system of [s0, s1) it can take (PDD:
 * rpdd = 0; RPDD: 1, with its J and tol); the others are marked in redo
 * (all of them when memory is short). */
static void local_lines(pdd_run *r, size_t s0, size_t s1, int rpdd, size_t J, double tol,
                        unsigned char *redo)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m, chunk = tl_mpi_kernel_chunk(m, s1 - s0);
  unsigned char *flag = tl_alloc(chunk, 1);
  /* RPDD: the two spikes of one system and the reference's multipliers,
   * then the kernel's row margins and largest |x| of a chunk */
  double *buf = rpdd ? tl_alloc(3 * m + 2 * chunk, sizeof *buf) : NULL;
  int ok = m > 0 && flag && (buf || !rpdd);
  if (ok && !rpdd)
    ok = pdd_ends(r, s0, s1, redo);
  for (size_t c0 = s0; ok && rpdd && c0 < s1; c0 += chunk) {
    size_t k = s1 - c0 < chunk ? s1 - c0 : chunk;
    ok = rpdd_chunk(r, c0, k, J, tol, buf, flag, buf + 3 * m, redo);
  }
  if (!ok) { /* every system to the reference, its status and finish afresh */
    memset(redo + s0, 1, s1 - s0);
    memset(r->finish + s0, CORRECT, s1 - s0);
  }
  free(flag);
  free(buf);
}

/* Phase 1 of pdd_gpu_mpi: this rank's slices go where the GPU kernels run
 * (tl_gpu_pdd_resident_open_d: a, b, c, d), PDD's local phase of every
 * system runs there (one thread per system), and only what phases 2-4
 * and the bound read comes back: the ends of y, v and w (6 words per
 * system), what PDD drops and the margin (3), the status words (3).
 * y, v and w stay there for phase 5 (correct_there). Without a device
 * the emulator runs the same kernels on host memory, with its checker.
 * A system the kernel flags goes to the reference (redo), for its
 * report; a kernel bug or a launch that fails is every system's failure,
 * reported; no memory: the reference for every system. */
static void local_gpu(pdd_run *r, unsigned char *redo)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m, nsys = sl->nsys;
  int left = r->ex->rank > 0, right = r->ex->rank + 1 < r->ex->size;
  double *ends = tl_alloc((TL_GPU_PDD_ENDS + 3) * nsys, sizeof *ends);
  double *part = ends ? ends + TL_GPU_PDD_ENDS * nsys : NULL;
  int *stat = tl_alloc(3 * nsys, sizeof *stat);
  tl_info gi;
  tl_info_clear(&gi);
  int st = ends && stat ? tl_gpu_pdd_resident_open_d(m, nsys, left, right, sl->a, sl->b, sl->c,
                                                     sl->d, &r->res, &gi)
                        : TL_ERR_NOMEM;
  if (st == TL_OK)
    st = tl_gpu_pdd_resident_local_d(r->res, ends, part, stat, &gi);
  for (size_t s = 0; s < nsys; s++) {
    if (r->bad[s])
      continue;
    if (st < 0 && st != TL_ERR_BREAKDOWN) { /* nothing came back */
      if (st == TL_ERR_NOMEM || (st == TL_ERR_ARG && m < 2))
        redo[s] = 1; /* the reference can still solve it */
      else
        note(r, s, PH_LOCAL, st, &gi);
      continue;
    }
    if (stat[3 * s] != 0) {
      redo[s] = 1;
      continue;
    }
    const double *e = ends + TL_GPU_PDD_ENDS * s;
    double *x = r->x + s * m;
    x[0] = e[0], x[m - 1] = e[1];
    tl_pdd_ref_local_ends_taken_d(&r->pt[s], e + 2, part + 3 * s,
                                  (long)r->pt[s].begin + stat[3 * s + 2]);
    r->finish[s] = THERE;
  }
  free(ends);
  free(stat);
}

/* Phase 1 of PDD (rpdd = 0) or RPDD (rpdd = 1, with its J and tol) for
 * the systems [s0, s1) (the GPU's: every system), each one's status
 * noted. */
static void local_phase(pdd_run *r, size_t s0, size_t s1, int rpdd, size_t J, double tol)
{
  const tl_mpi_batch *sl = r->sl;
  unsigned char *redo = r->redo;
  int kernel = !rpdd || J <= sl->m; /* RPDD checks J first */
  memset(redo + s0, 0, s1 - s0);
  memset(r->finish + s0, CORRECT, s1 - s0);
  if (kernel && r->gpu)
    local_gpu(r, redo);
  else if (kernel)
    local_lines(r, s0, s1, rpdd, J, tol, redo);
  for (size_t s = s0; s < s1; s++) {
    if (r->bad[s] || (kernel && !redo[s]))
      continue; /* failed, or done on the kernel (its status noted) */
    const double *a = ROWS(sl->a, s), *b = ROWS(sl->b, s), *c = ROWS(sl->c, s);
    double *x = r->x + s * sl->m;
    tl_info one;
    tl_info_clear(&one);
    int phase = PH_LOCAL; /* the reference's whole phase 1 */
    spikes_zero(&r->pt[s]);
    int st = rpdd ? tl_rpdd_ref_local_d(&r->pt[s], a, b, c, ROWS(sl->d, s), x, J, tol, &one)
                  : tl_pdd_ref_local_d(&r->pt[s], a, b, c, ROWS(sl->d, s), x, &one);
    if (rpdd && st == TL_ERR_ARG)
      phase = PH_CHECK;
    r->finish[s] = CORRECT;
    note(r, s, phase, st, &one);
  }
}

/* Phase 5 of system s (CORRECT, ENDS): the correction in SIMD lanes
 * (tl_cpu_pdd_correct_d, or _ends_d on the rows RPDD's spikes reach; the
 * reference's bits); the reference's own when a value would not be
 * finite, for its report. */
static int correct(pdd_run *r, size_t s, tl_info *info)
{
  tl_pdd_part_d *pt = &r->pt[s];
  double *x = r->x + s * r->sl->m;
  int done = r->finish[s] == ENDS
                 ? tl_cpu_pdd_correct_ends_d(pt->m, pt->kv, pt->kw, pt->v, pt->w, pt->x_left,
                                             pt->x_right, x, r->mid_max[s], &pt->xmax)
                 : tl_cpu_pdd_correct_d(pt->m, pt->kv, pt->kw, pt->v, pt->w, pt->x_left,
                                        pt->x_right, x, &pt->xmax);
  return done ? TL_OK : tl_pdd_ref_correct_d(pt, x, info);
}

/* A RESOLVE or THERE system a kernel flags in phase 5: the reference's whole
 * phase 1 (its spikes whole, y in x) and its correction, which give its
 * report; what the interfaces told the system is kept. */
static void resolve_by_reference(pdd_run *r, size_t s, int phase)
{
  const tl_mpi_batch *sl = r->sl;
  tl_pdd_part_d *pt = &r->pt[s];
  tl_pdd_part_d told = *pt;
  tl_info one;
  tl_info_clear(&one);
  r->finish[s] = CORRECT;
  spikes_zero(pt);
  int st = tl_pdd_ref_local_d(pt, ROWS(sl->a, s), ROWS(sl->b, s), ROWS(sl->c, s),
                              ROWS(sl->d, s), r->x + s * sl->m, &one);
  if (st < 0) {
    note(r, s, PH_LOCAL, st, &one);
    return;
  }
  pt->x_left = told.x_left, pt->x_right = told.x_right;
  pt->tail_coef_v = told.tail_coef_v, pt->tail_coef_w = told.tail_coef_w;
  tl_info_clear(&one);
  note(r, s, phase, correct(r, s, &one), &one);
}

/* Phase 5 of the RESOLVE systems of [first, end): x solved again by the
 * kernel, a chunk at a time, the neighbours' unknowns on the right-hand side,
 *
 *   A_p x = d_p - a[0] x_left e_0 - c[m-1] x_right e_{m-1}
 *
 * (= y - v x_left - w x_right: the correction without y, v, w). The two
 * products go to the kernel, which subtracts them from d's end rows as
 * it reads them (d_ends; a copy of d with the two rows changed took as
 * long as the solve at P = 2, docs/performance.md). Where every system
 * of a chunk is RESOLVE, x is solved into place, by streaming stores
 * where the kernel can (nothing reads x again: the kernel gives the
 * largest |x| and the margin's rows); else into a scratch with plain
 * stores, and only those copied. */
static void resolve(pdd_run *r, size_t first, size_t end, int phase)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m;
  int left = r->ex->rank > 0, right = r->ex->rank + 1 < r->ex->size;
  size_t chunk = tl_mpi_kernel_chunk(m, end - first), any = 0;
  for (size_t s = first; s < end; s++)
    any += r->finish[s] == RESOLVE && !r->bad[s];
  if (!any) { /* no kernel: the entries scanned */
    entries_checked(r, first, end - first, NULL);
    return;
  }
  unsigned char *flag = tl_alloc(chunk, 1), *redo = tl_alloc(chunk, 1);
  /* rowmin, then the largest |x| and the end rows' products (2 chunk);
   * rhs, a chunk's solutions, only where a chunk mixes RESOLVE systems
   * with others (made when first needed) */
  double *rhs = NULL, *rowmin = tl_alloc(4 * chunk, sizeof *rowmin);
  int ok = m > 0 && flag && redo && rowmin;
  for (size_t s0 = first; s0 < end; s0 += chunk) {
    size_t k = end - s0 < chunk ? end - s0 : chunk, o0 = s0 * m, mine = 0;
    for (size_t s = s0; s < s0 + k; s++)
      mine += r->finish[s] == RESOLVE && !r->bad[s];
    if (!mine) { /* no kernel here: the entries scanned */
      entries_checked(r, s0, k, NULL);
      continue;
    }
    if (mine < k && !rhs)
      rhs = tl_alloc(chunk * m, sizeof *rhs);
    double *x = r->x + o0, *sol = mine == k ? x : rhs;
    int ran = 0;
    if (ok && sol) {
      const double *A = ROWS(sl->a, s0), *C = ROWS(sl->c, s0);
      double *ends = rowmin + 2 * chunk; /* d[0] -= ends[j], d[m-1] -= ends[k + j] */
      for (size_t j = 0; j < k; j++) {
        const tl_pdd_part_d *pt = &r->pt[s0 + j];
        ends[j] = left ? A[j * m] * pt->x_left : 0.0;
        ends[k + j] = right ? C[j * m + m - 1] * pt->x_right : 0.0;
      }
      tl_cpu_lines_more more = {rowmin,
                                rowmin + chunk,
                                left || right ? ends : NULL,
                                sol == x ? sl->nsys * m * sizeof *x : 0,
                                NULL,
                                NULL};
      memset(redo, 0, k);
      ran = lines(m, k, A, ROWS(sl->b, s0), C, ROWS(sl->d, s0), sol, flag, &more, redo);
    }
    entries_checked(r, s0, k, ran ? flag : NULL);
    for (size_t j = 0, s = s0; j < k; j++, s++) {
      if (r->finish[s] != RESOLVE || r->bad[s])
        continue;
      if (!ran || redo[j]) {
        resolve_by_reference(r, s, phase);
        continue;
      }
      if (sol != x)
        memcpy(x + j * m, sol + j * m, m * sizeof *x);
      r->pt[s].xmax = rowmin[chunk + j]; /* the kernel's largest |x| */
      margin(r, s, rowmin[j]); /* phase 1's bookkeeping */
    }
  }
  free(flag);
  free(redo);
  free(rhs);
  free(rowmin);
}

/* Phase 5 of the THERE systems: each one's x_left and x_right go to the
 * resident slices, the correction runs there over y, v and w as phase 1
 * left them (tl_gpu_pdd_resident_correct_d: the reference's operations),
 * and x comes back with its largest |x|; the other systems' x is not
 * touched (skip). A system the kernel flags, and every one when memory
 * is short, gets the reference's phase 1 and correction on the host
 * (resolve_by_reference: its report); a launch that fails is every
 * system's failure. */
static void correct_there(pdd_run *r, int phase)
{
  size_t nsys = r->sl->nsys, any = 0;
  for (size_t s = 0; s < nsys; s++)
    any += r->finish[s] == THERE && !r->bad[s];
  if (!any)
    return;
  double *lr = tl_alloc(3 * nsys, sizeof *lr), *xmax = lr ? lr + 2 * nsys : NULL;
  int *row = tl_alloc(nsys, sizeof *row);
  unsigned char *skip = tl_alloc(nsys, 1);
  tl_info gi;
  tl_info_clear(&gi);
  int rc = TL_ERR_NOMEM;
  if (lr && row && skip) {
    for (size_t s = 0; s < nsys; s++) {
      const tl_pdd_part_d *pt = &r->pt[s];
      skip[s] = r->finish[s] != THERE || r->bad[s];
      lr[2 * s] = skip[s] ? 0.0 : pt->x_left;
      lr[2 * s + 1] = skip[s] ? 0.0 : pt->x_right;
    }
    rc = tl_gpu_pdd_resident_correct_d(r->res, lr, skip, r->x, xmax, row, &gi);
  }
  for (size_t s = 0; s < nsys; s++) {
    if (r->finish[s] != THERE || r->bad[s])
      continue;
    if (rc < 0 && rc != TL_ERR_BREAKDOWN && rc != TL_ERR_NOMEM) /* nothing came back */
      note(r, s, phase, rc, &gi);
    else if (rc == TL_ERR_NOMEM || row[s] >= 0)
      resolve_by_reference(r, s, phase);
    else
      r->pt[s].xmax = xmax[s];
  }
  free(lr);
  free(row);
  free(skip);
}

/* Before the verdict, with own_entry_check: the systems no pass has
 * scanned yet (a program that took the reference's path) scanned now,
 * and every rank's verdict on its entries agreed. */
static int entries_agree(pdd_run *r, tl_info *info)
{
  if (!r->own_check)
    return TL_OK;
  if (r->scanned != r->sl->nsys)
    r->suspect |= !tl_mpi_entries_scan(r->sl, 0, r->sl->nsys);
  return tl_mpi_entries_agree(r->ex, r->sl, r->suspect, info);
}

/* The verdict (both rounds) and the batch's status. */
static int verdict(pdd_run *r, double tol, tl_info *info)
{
  size_t nsys = r->sl->nsys;
  int status = TL_OK;
  double *pairs = tl_alloc(6 * nsys, 2 * sizeof(double));
  tl_pdd_verdict_d *v = tl_alloc(nsys, sizeof *v);
  if (!pairs || !v) {
    free(pairs);
    free(v);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for the verdict", r->name);
  }
  double *round1 = pairs + 2 * 4 * nsys;
  /* Round 0: the status pair, then the dropped entry, margin and |x|. */
  tl_mpi_status_pairs(&r->st, pairs, 4);
  for (size_t s = 0; s < nsys; s++) {
    tl_pdd_verdict_init_d(&v[s]);
    if (!r->bad[s])
      tl_pdd_ref_verdict_part0_d(&r->pt[s], &v[s]);
    double *q = pairs + 8 * s;
    q[2] = v[s].dropped, q[3] = (double)v[s].drop_row;
    q[4] = v[s].neg_mu, q[5] = (double)v[s].mu_row;
    q[6] = v[s].xmax, q[7] = -1.0;
  }
  TL_CHECK(tl_mpi_allreduce_pairs(r->ex, "verdict", 0, pairs, 4 * nsys));
  status = tl_mpi_status_first_error(&r->st, pairs, 4, info);
  if (status != 0)
    goto cleanup; /* every rank saw the same failure: no round 1 */
  /* Round 1: the tail terms, with the global margin and |x|. */
  for (size_t s = 0; s < nsys; s++) {
    const double *q = pairs + 8 * s;
    v[s].dropped = q[2], v[s].drop_row = (long)q[3];
    v[s].neg_mu = q[4], v[s].mu_row = (long)q[5];
    v[s].xmax = q[6];
    v[s].rv = v[s].rw = 0.0;
    tl_pdd_ref_verdict_part1_d(&r->pt[s], &v[s]);
    round1[4 * s] = v[s].rv, round1[4 * s + 1] = -1.0;
    round1[4 * s + 2] = v[s].rw, round1[4 * s + 3] = -1.0;
  }
  TL_CHECK(tl_mpi_allreduce_pairs(r->ex, "verdict", 1, round1, 2 * nsys));
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys; s++) {
    v[s].rv = round1[4 * s];
    v[s].rw = round1[4 * s + 2];
    tl_info one;
    tl_info_clear(&one);
    int st = tl_pdd_ref_verdict_d(&v[s], tol, r->name, &one);
    tl_outcome_add(&out, s, st, &one);
  }
  status = tl_outcome_finish(&out, info);
cleanup:
  free(pairs);
  free(v);
  return status;
}

/* ---- Mini-batches ---------------------------------------------------
 *
 * Phase 5 (resolve) reads the four arrays again: from memory when phase
 * 1 has swept the whole slice before the messages, from a core's cache
 * when it runs on a mini-batch phase 1 has just swept. So pdd_mpi runs
 * phases 1-5 a mini-batch at a time (tl_minibatch_systems: by default 2^15
 * rows of the widest slice, 1 MiB of a, b, c and d, a core's L2):
 *
 *   mini-batch 0:  ends sweep -> first-row -> interface -> resolve
 *   mini-batch 1:  ends sweep -> first-row -> interface -> resolve
 *   ...            (its 2 dependent messages in round k)
 *
 * 4 words a row from memory and x written once where the whole batch at
 * once read the slice twice: 5 words instead of 9, for 2 messages per
 * mini-batch instead of 2 per solve. Each system's operations are the
 * same in either order (the kernels' lanes are systems), so are the
 * bits. pdd_gpu_mpi keeps its slices on the device from phase 1 to the
 * correction for the whole batch, and only its messages go a mini-batch
 * at a time (the same ledger). */

/* Phases 1-5 of PDD for the systems [s0, s1), their messages in round
 * `round`; in pdd_gpu_mpi phases 2-4 only (1 and 5 run for the whole
 * batch, on the device). */
static int pdd_round(pdd_run *r, size_t s0, size_t s1, int round, double tol, tl_pdd_iface_d *down,
                     tl_pdd_iface_d *down_in)
{
  tl_mpi_exchange *ex = r->ex;
  const tl_mpi_batch *sl = r->sl;
  int p = ex->rank, P = ex->size;
  size_t ns = s1 - s0;
  if (!r->gpu)
    local_phase(r, s0, s1, 0, 0, tol);      /* phase 1: local solve and spikes */
  for (size_t s = s0; s < s1 && p > 0; s++) /* phase 2: first rows go up */
    if (!r->bad[s])
      tl_pdd_ref_send_first_d(&r->pt[s], ROWS(sl->a, s), r->x + s * sl->m, &r->to_prev[s]);
  TL_CALL(tl_mpi_shift(ex, "first-row", round, TL_F64, r->to_prev + s0, TL_PDD_EDGE_WORDS * ns,
                       p > 0 ? p - 1 : -1, r->from_next + s0, TL_PDD_EDGE_WORDS * ns,
                       p + 1 < P ? p + 1 : -1));
  for (size_t s = s0; s < s1 && p + 1 < P; s++) { /* phase 3: interface p|p+1 */
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_INTERFACE,
         tl_pdd_ref_interface_d(&r->pt[s], ROWS(sl->c, s), r->x + s * sl->m, &r->from_next[s],
                                &down[s], &one),
         &one);
  }
  TL_CALL(tl_mpi_shift(ex, "interface", round, TL_F64, down + s0, TL_PDD_IFACE_WORDS * ns,
                       p + 1 < P ? p + 1 : -1, down_in + s0, TL_PDD_IFACE_WORDS * ns,
                       p > 0 ? p - 1 : -1));
  for (size_t s = s0; s < s1; s++) { /* phases 4 and 5: receive, correct */
    if (r->bad[s])
      continue;
    if (p > 0)
      tl_pdd_ref_receive_d(&r->pt[s], &down_in[s]);
    if (r->finish[s] == RESOLVE || r->finish[s] == THERE)
      continue; /* below */
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_CORRECT_PDD, correct(r, s, &one), &one);
  }
  resolve(r, s0, s1, PH_CORRECT_PDD);
  return TL_OK;
}

/* PDD's rank program, a mini-batch at a time (above); gpu: its phases 1
 * and 5 on the GPU kernels for the whole batch, the slices kept there
 * between them (local_gpu, correct_there). */
static int pdd_run_solve(int gpu, const tl_algorithm *self, tl_mpi_exchange *ex,
                         const tl_mpi_batch *sl, const size_t *slices, void *x,
                         const tl_options *opt, tl_info *info)
{
  double tol = tl_param_value(self, opt, "tol");
  pdd_run run, *r = &run;
  TL_CALL(run_init(r, ex, sl, slices, x, "pdd", info));
  r->gpu = gpu;
  r->own_check = self->mpi->own_entry_check;
  size_t nsys = sl->nsys;
  tl_pdd_iface_d *down = tl_alloc(2 * nsys, sizeof *down);
  if (!down) {
    run_free(r);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for %zu systems", nsys);
  }
  size_t mb =
      tl_minibatch_systems(sl->n, ex->size, nsys, (size_t)tl_param_value(self, opt, "minibatch"));
  /* One rank by default the whole batch: no ends sweep runs before phase
   * 5 there, so there is nothing to keep in cache, and mini-batches of 16
   * were 5 % slower (docs/performance.md); no message, so the ledger does
   * not change. */
  if (ex->size == 1 && tl_param_value(self, opt, "minibatch") == 0)
    mb = nsys;
  if (gpu)
    local_phase(r, 0, nsys, 0, 0, tol); /* phase 1, on the device */
  int status = TL_OK, round = 0;
  for (size_t s0 = 0; status == TL_OK && (s0 < nsys || round == 0); s0 += mb, round++)
    status = pdd_round(r, s0, nsys - s0 < mb ? nsys : s0 + mb, round, tol, down, down + nsys);
  if (status == TL_OK && gpu)
    correct_there(r, PH_CORRECT_PDD); /* phase 5, on the device */
  if (status == TL_OK)
    status = entries_agree(r, info);
  if (status == TL_OK)
    status = verdict(r, tol, info); /* phase 6 */
  free(down);
  run_free(r);
  return status;
}

static int pdd_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                         const tl_mpi_batch *sl, const size_t *slices, void *x,
                         const tl_options *opt, tl_info *info)
{
  return pdd_run_solve(0, self, ex, sl, slices, x, opt, info);
}

static int pdd_gpu_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                             const tl_mpi_batch *sl, const size_t *slices, void *x,
                             const tl_options *opt, tl_info *info)
{
  return pdd_run_solve(1, self, ex, sl, slices, x, opt, info);
}

static int rpdd_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                          const tl_mpi_batch *sl, const size_t *slices, void *x,
                          const tl_options *opt, tl_info *info)
{
  int p = ex->rank, P = ex->size;
  double tol = tl_param_value(self, opt, "tol");
  size_t J = (size_t)tl_param_value(self, opt, "J");
  pdd_run run, *r = &run;
  TL_CALL(run_init(r, ex, sl, slices, x, "rpdd", info));
  r->own_check = self->mpi->own_entry_check;
  size_t nsys = sl->nsys;
  int status = TL_OK;
  local_phase(r, 0, nsys, 1, J, tol); /* phase 1 (J checked first) */
  for (size_t s = 0; s < nsys; s++) /* phase 2: edges to both neighbours */
    if (!r->bad[s])
      tl_rpdd_ref_send_d(&r->pt[s], ROWS(sl->a, s), ROWS(sl->c, s), r->x + s * sl->m,
                         &r->to_prev[s], &r->to_next[s]);
  TL_CHECK(tl_mpi_neighbours(ex, "edges", 0, TL_F64, p > 0 ? p - 1 : -1, p + 1 < P ? p + 1 : -1,
                             r->to_prev, TL_PDD_EDGE_WORDS * nsys, r->to_next,
                             TL_PDD_EDGE_WORDS * nsys, r->from_prev, TL_PDD_EDGE_WORDS * nsys,
                             r->from_next, TL_PDD_EDGE_WORDS * nsys));
  for (size_t s = 0; s < nsys; s++) { /* phases 3 and 4: interfaces, correct */
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_INTERFACE,
         tl_rpdd_ref_interfaces_d(&r->pt[s], ROWS(sl->a, s), ROWS(sl->c, s), r->x + s * sl->m,
                                  p > 0 ? &r->from_prev[s] : NULL,
                                  p + 1 < P ? &r->from_next[s] : NULL, &one),
         &one);
    if (r->bad[s])
      continue;
    tl_info_clear(&one);
    note(r, s, PH_CORRECT_RPDD, correct(r, s, &one), &one);
  }
  status = entries_agree(r, info);
  if (status == TL_OK)
    status = verdict(r, tol, info); /* phase 5 */
cleanup:
  run_free(r);
  return status;
}

extern const tl_algorithm tl_algo_pdd_ref;
extern const tl_algorithm tl_algo_rpdd_ref;

static const tl_mpi_program pdd_program = {
    .crosses = "first rows up, solved interfaces down (2 dependent messages per mini-batch), "
               "verdict",
    .solve = pdd_mpi_solve,
    .own_entry_check = 1, /* in phase 5's pass over the slice */
};

const tl_algorithm tl_mpi_algo_pdd = {
    .name = "pdd_mpi",
    .backend = "mpi",
    .reference = &tl_algo_pdd_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &pdd_program,
};

/* PDD with one GPU per rank (docs/mpi.md, "One GPU per rank"): the same
 * program, its phases 1 and 5 on the GPU kernels with the slices kept
 * there between them, the same messages and ledger. */
static const tl_mpi_program pdd_gpu_program = {
    .crosses = "first rows up, solved interfaces down (2 dependent messages per mini-batch), "
               "verdict",
    .solve = pdd_gpu_mpi_solve,
};

const tl_algorithm tl_mpi_algo_pdd_gpu = {
    .name = "pdd_gpu_mpi",
    .backend = "mpi+gpu-emulated",
    .reference = &tl_algo_pdd_ref,
    .summary = "PDD across MPI ranks, one GPU per rank: each rank's local solves, spikes and "
               "correction on the GPU kernels, its slices kept there between them, the boundary "
               "words through the exchange layer",
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* tl_mpi_solve checks each rank's rows */
    .mpi = &pdd_gpu_program,
};

static const tl_mpi_program rpdd_program = {
    .crosses = "one exchange of edges with both neighbours, verdict",
    .solve = rpdd_mpi_solve,
    .own_entry_check = 1, /* in phase 1's pass over the slice */
};

const tl_algorithm tl_mpi_algo_rpdd = {
    .name = "rpdd_mpi",
    .backend = "mpi",
    .reference = &tl_algo_rpdd_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &rpdd_program,
};
