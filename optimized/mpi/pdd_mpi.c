/* optimized/mpi/pdd_mpi.c -- PDD and RPDD across MPI ranks.
 *
 * The rank programs of reference/pdd_ref.c and reference/rpdd_ref.c:
 * rank p is partition p and runs the same phase functions on its own rows
 * of every system of the batch; what the simulated partitions pass in
 * their edge and interface buffers travels here as one message per
 * neighbour for the whole batch (docs/algorithms/pdd.md, "MPI"):
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
 * Phase 1 runs for the whole slice through the x-line CPU kernel (below,
 * "Phase 1 for the whole slice"), its bookkeeping's margin and the
 * correction (phase 5) through SIMD loops with the reference's bits
 * (optimized/cpu/pdd_cpu.c); the interfaces and the verdict are the
 * reference's, one system at a time.
 *
 * Cost per rank: phase 1 at the node's memory bandwidth (PDD: 5 words per
 * unknown for y, about 8 more per spike), then the reference's flops for
 * the interfaces, the correction (4m per system) and the verdict;
 * messages: 2 (PDD, in two dependent steps) or 2 at once (RPDD), plus the
 * verdict.
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
  int gpu;                  /* 1: phase 1 on the GPU kernel (pdd_gpu_mpi) */
  tl_pdd_part_d *pt;        /* one per system                           */
  tl_pdd_edge_d *to_prev, *to_next, *from_prev, *from_next;
  unsigned char *bad;       /* 1: the system failed on this rank        */
  tl_mpi_status st;
} pdd_run;

#define ROWS(arr, s) ((const double *)(arr) + (s) * r->sl->m)

static void run_free(pdd_run *r)
{
  if (r->pt)
    for (size_t s = 0; s < r->sl->nsys; s++)
      tl_pdd_part_free_d(&r->pt[s]);
  free(r->pt);
  free(r->to_prev);
  free(r->bad);
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
  /* Every system's spikes v, w (2 words per own row), in the rank's
   * scratch kept from one solve to the next, not fresh per system. */
  double *spikes = tl_mpi_scratch(2 * sl->m * nsys, sizeof(double));
  int status = tl_mpi_status_init(&r->st, ex, nsys, info);
  if (status == TL_OK && (!r->pt || !r->to_prev || !r->bad || !spikes))
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

/* ---- Phase 1 for the whole slice ------------------------------------
 *
 * WHAT IT COMPUTES. For every system of the slice, the local solution
 * A_p y = d_p (into x) and, for PDD, the two spikes
 *   A_p v = a[0] e_0        (only when p has a left neighbour: kv = m)
 *   A_p w = c[m-1] e_{m-1}  (only when p has a right neighbour: kw = m)
 * into the system's tl_pdd_part_d, then the reference's bookkeeping
 * (tl_pdd_bound_local_d). RPDD takes y from here and computes its
 * truncated spikes with the reference (tl_rpdd_ref_spikes_d: they stop
 * after a few rows, y is the bulk of the work).
 *
 * WHY THE KERNEL. The reference solves one system after another with a
 * scalar recurrence (about 17 ns per unknown for y alone). The slice is
 * nsys contiguous systems of m rows, exactly what tl_cpu_thomas_lines_d
 * takes: SZ systems per SIMD group, at the node's memory bandwidth (about
 * 4 ns per unknown). So y, v and w are one kernel call each per chunk
 * of systems (below).
 *
 * WHY IT IS THE REFERENCE'S ANSWER (to rounding: the kernel multiplies
 * by a reciprocal where the reference divides):
 *   y  both are Thomas on the block; neither reads a[0] or c[m-1].
 *   v  the reference's left spike is Thomas's recurrence with the
 *      right-hand side a[0] e_0: the same pivots, forward values
 *      a[0] / p_0 and -a[i] g_{i-1} / p_i, the same back substitution.
 *   w  the reference eliminates the right spike BOTTOM-UP (pivots
 *      b[i] - c[i] a[i+1] / p_{i+1}): it breaks down where a trailing
 *      block is singular, not where a leading one is. Thomas on the
 *      mirrored block (row t is row m-1-t, a and c swapped) with the
 *      right-hand side c[m-1] e_0 is exactly that elimination, so w is
 *      solved on a mirrored copy and mirrored back. (Thomas top-down would
 *      give the same w, but miss those breakdowns.)
 *
 * FALLBACK. A system the kernel flags 1 in any of the solves (a pivot
 * zero or not finite, or a result not finite) gets the reference's whole
 * phase 1 instead (tl_pdd_ref_local_d, tl_rpdd_ref_local_d), which gives
 * its exact status, row and message. Flags 2 and 3 do not matter here:
 * the corners of a block are its couplings, and the verdict judges
 * dominance. When scratch memory is short, every system falls back.
 * The flag sees what the kernel's own rounding produces: a pivot that is
 * exactly zero only in the reference's rounding is not seen, as for the
 * registry's thomas_cpu. */

/* One kernel solve of k systems of m rows (a, b, c), right-hand sides
 * rhs into sol (may be rhs); systems flagged 1 are marked in redo. 0
 * when the kernel could not run. */
static int lines(size_t m, size_t k, const double *a, const double *b, const double *c,
                 const double *rhs, double *sol, unsigned char *flag, unsigned char *redo)
{
  tl_info ti;
  tl_info_clear(&ti);
  if (tl_cpu_thomas_lines_d(m, k, a, b, c, rhs, sol, flag, &ti) != TL_OK)
    return 0;
  for (size_t s = 0; s < k; s++)
    if (flag[s] == 1)
      redo[s] = 1;
  return 1;
}

/* The slice goes through the kernel a few SIMD groups of systems at a
 * time (tl_mpi_kernel_chunk): y, then the spikes and the bookkeeping of
 * the same systems while their rows are still in cache, so that a, b and
 * c come from memory once. The right-hand sides of the spikes and the
 * mirrored blocks live in one scratch of that size, reused; no
 * batch-sized buffer is taken and touched anew on every solve (measured:
 * its first touch cost more than the solves). */

/* The local margin of the error bound of system s (tl_pdd_bound_margin_d),
 * its loop in SIMD lanes (tl_cpu_pdd_margin_d, the same bits; the
 * reference's loop when it meets a NaN). */
static void margin(pdd_run *r, size_t s)
{
  const tl_mpi_batch *sl = r->sl;
  tl_pdd_part_d *pt = &r->pt[s];
  const double *a = ROWS(sl->a, s), *b = ROWS(sl->b, s), *c = ROWS(sl->c, s);
  long row;
  if (tl_cpu_pdd_margin_d(sl->m, r->ex->rank > 0, r->ex->rank + 1 < r->ex->size, a, b, c,
                          &pt->margin, &row))
    pt->margin_row = (long)pt->begin + row;
  else
    tl_pdd_bound_margin_d(pt, a, b, c);
}

/* What tl_pdd_bound_local_d leaves after phase 1 of system s. */
static void bookkeeping(pdd_run *r, size_t s)
{
  tl_pdd_ref_spike_lengths_d(&r->pt[s]);
  tl_pdd_bound_drops_d(&r->pt[s]);
  margin(r, s);
}

/* y into x for every system; with spikes (PDD), v and w into each
 * system's pt and its bookkeeping. Marks in redo the systems for the
 * reference (all of them when memory is short). */
static void local_lines(pdd_run *r, int spikes, unsigned char *redo)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m, nsys = sl->nsys;
  const double *A = sl->a, *B = sl->b, *C = sl->c, *D = sl->d;
  int left = spikes && r->ex->rank > 0, right = spikes && r->ex->rank + 1 < r->ex->size;
  size_t chunk = tl_mpi_kernel_chunk(m, nsys);
  unsigned char *flag = tl_alloc(chunk, 1);
  double *buf = left || right ? tl_alloc(4 * chunk * m, sizeof *buf) : NULL;
  int ok = m > 0 && flag && (buf || !(left || right));
  for (size_t s0 = 0; ok && s0 < nsys; s0 += chunk) {
    size_t k = nsys - s0 < chunk ? nsys - s0 : chunk, o0 = s0 * m;
    /* y: Thomas on the blocks */
    ok = lines(m, k, A + o0, B + o0, C + o0, D + o0, r->x + o0, flag, redo + s0);
    if (ok && left) { /* v: the right-hand side a[0] e_0, solved in place */
      memset(buf, 0, k * m * sizeof *buf);
      for (size_t j = 0; j < k; j++)
        buf[j * m] = A[o0 + j * m];
      ok = lines(m, k, A + o0, B + o0, C + o0, buf, buf, flag, redo + s0);
      for (size_t j = 0; ok && j < k; j++)
        if (!r->bad[s0 + j] && !redo[s0 + j])
          memcpy(r->pt[s0 + j].v, buf + j * m, m * sizeof *buf);
    }
    if (ok && right) { /* w: the mirrored block, right-hand side c[m-1] e_0 */
      double *ma = buf + chunk * m, *mb = ma + chunk * m, *mc = mb + chunk * m;
      tl_cpu_mirror_rows_d(m, k, A + o0, B + o0, C + o0, ma, mb, mc);
      memset(buf, 0, k * m * sizeof *buf);
      for (size_t j = 0; j < k; j++)
        buf[j * m] = C[o0 + j * m + m - 1];
      ok = lines(m, k, ma, mb, mc, buf, buf, flag, redo + s0);
      for (size_t j = 0; ok && j < k; j++)
        if (!r->bad[s0 + j] && !redo[s0 + j])
          tl_cpu_reverse_d(m, buf + j * m, r->pt[s0 + j].w);
    }
    for (size_t j = 0; ok && spikes && j < k; j++)
      if (!r->bad[s0 + j] && !redo[s0 + j])
        bookkeeping(r, s0 + j);
  }
  if (!ok)
    memset(redo, 1, nsys);
  free(flag);
  free(buf);
}

/* Phase 1 of pdd_gpu_mpi: the GPU's PDD kernel on this rank's slice of
 * every system (tl_gpu_pdd_slice_d: one partition per system, with the
 * rank's neighbours), y into x; each system's state from the kernel's
 * spikes, dropped entries and margin, as tl_pdd_ref_local_d and
 * tl_pdd_bound_local_d leave it. On a device the slice would stay there
 * and only the boundary words of phase 2 come back; here the device is
 * the emulator, with its checker. A system the kernel flags goes to the
 * reference (redo), for its report; a kernel bug or a launch that fails
 * is every system's failure, reported. */
static void local_gpu(pdd_run *r, unsigned char *redo)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m, nsys = sl->nsys;
  int left = r->ex->rank > 0, right = r->ex->rank + 1 < r->ex->size;
  double *v = tl_alloc(2 * m * nsys + 3 * nsys, sizeof *v), *w = v ? v + m * nsys : NULL;
  int *stat = tl_alloc(3 * nsys, sizeof *stat);
  tl_info gi;
  tl_info_clear(&gi);
  int st = m > 0 && v && stat ? tl_gpu_pdd_slice_d(m, nsys, left, right, sl->a, sl->b, sl->c,
                                                   sl->d, r->x, v, w, w + m * nsys, stat, &gi)
                              : TL_ERR_NOMEM;
  for (size_t s = 0; s < nsys; s++) {
    tl_pdd_part_d *pt = &r->pt[s];
    if (r->bad[s])
      continue;
    if (st < 0 && st != TL_ERR_BREAKDOWN) { /* nothing came back */
      if (st == TL_ERR_NOMEM || m == 0)
        redo[s] = 1; /* the reference can still solve it */
      else
        note(r, s, PH_LOCAL, st, &gi);
      continue;
    }
    if (stat[3 * s] != 0) {
      redo[s] = 1;
      continue;
    }
    tl_pdd_ref_local_taken_d(pt, v + s * m, w + s * m, w + m * nsys + 3 * s,
                             (long)pt->begin + stat[3 * s + 2]); /* the kernel's rows are the slice's */
  }
  free(v);
  free(stat);
}

/* Phase 1 of PDD (rpdd = 0) or RPDD (rpdd = 1, with its J and tol) for
 * every system, each one's status noted. */
static void local_phase(pdd_run *r, int rpdd, size_t J, double tol)
{
  const tl_mpi_batch *sl = r->sl;
  size_t nsys = sl->nsys;
  unsigned char *redo = tl_alloc(nsys, 1);
  double *scratch = rpdd ? tl_alloc(sl->m, sizeof *scratch) : NULL;
  int kernel = redo && (!rpdd || (scratch && J <= sl->m)); /* RPDD checks J first */
  if (kernel && r->gpu)
    local_gpu(r, redo);
  else if (kernel)
    local_lines(r, !rpdd, redo);
  for (size_t s = 0; s < nsys; s++) {
    if (r->bad[s])
      continue;
    const double *a = ROWS(sl->a, s), *b = ROWS(sl->b, s), *c = ROWS(sl->c, s);
    double *x = r->x + s * sl->m;
    tl_info one;
    tl_info_clear(&one);
    int st, phase = PH_LOCAL;
    if (!kernel || redo[s]) { /* the reference's whole phase 1 */
      st = rpdd ? tl_rpdd_ref_local_d(&r->pt[s], a, b, c, ROWS(sl->d, s), x, J, tol, &one)
                : tl_pdd_ref_local_d(&r->pt[s], a, b, c, ROWS(sl->d, s), x, &one);
      if (rpdd && st == TL_ERR_ARG)
        phase = PH_CHECK;
    } else if (rpdd) { /* y from the kernel; the truncated spikes, the margin in SIMD lanes */
      st = tl_rpdd_ref_spikes_drops_d(&r->pt[s], a, b, c, J, tol, scratch, &one);
      if (st == TL_OK)
        margin(r, s);
    } else if (r->gpu) { /* y, v, w and the bookkeeping from the GPU kernel */
      st = TL_OK;
    } else { /* y, v, w and the bookkeeping from local_lines */
      st = TL_OK;
    }
    note(r, s, phase, st, &one);
  }
  free(redo);
  free(scratch);
}

/* Phase 5 of system s: the correction in SIMD lanes (tl_cpu_pdd_correct_d,
 * the reference's bits); the reference's own when a value would not be
 * finite, for its report. */
static int correct(pdd_run *r, size_t s, tl_info *info)
{
  tl_pdd_part_d *pt = &r->pt[s];
  double *x = r->x + s * r->sl->m;
  if (tl_cpu_pdd_correct_d(pt->m, pt->kv, pt->kw, pt->v, pt->w, pt->x_left, pt->x_right, x,
                           &pt->xmax))
    return TL_OK;
  return tl_pdd_ref_correct_d(pt, x, info);
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

/* PDD's rank program; gpu: its phase 1 on the GPU kernel. */
static int pdd_run_solve(int gpu, const tl_algorithm *self, tl_mpi_exchange *ex,
                         const tl_mpi_batch *sl, const size_t *slices, void *x,
                         const tl_options *opt, tl_info *info)
{
  int p = ex->rank, P = ex->size;
  double tol = tl_param_value(self, opt, "tol");
  pdd_run run, *r = &run;
  TL_CALL(run_init(r, ex, sl, slices, x, "pdd", info));
  r->gpu = gpu;
  size_t nsys = sl->nsys;
  tl_pdd_iface_d *down = tl_alloc(2 * nsys, sizeof *down);
  if (!down) {
    run_free(r);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for %zu systems", nsys);
  }
  tl_pdd_iface_d *down_in = down + nsys;
  int status = TL_OK;
  local_phase(r, 0, 0, tol); /* phase 1: local solve and spikes */
  for (size_t s = 0; s < nsys && p > 0; s++) /* phase 2: first rows go up */
    if (!r->bad[s])
      tl_pdd_ref_send_first_d(&r->pt[s], ROWS(sl->a, s), r->x + s * sl->m, &r->to_prev[s]);
  TL_CHECK(tl_mpi_shift(ex, "first-row", 0, TL_F64, r->to_prev, TL_PDD_EDGE_WORDS * nsys,
                        p > 0 ? p - 1 : -1, r->from_next, TL_PDD_EDGE_WORDS * nsys,
                        p + 1 < P ? p + 1 : -1));
  for (size_t s = 0; s < nsys && p + 1 < P; s++) { /* phase 3: interface p|p+1 */
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_INTERFACE,
         tl_pdd_ref_interface_d(&r->pt[s], ROWS(sl->c, s), r->x + s * sl->m, &r->from_next[s],
                                &down[s], &one),
         &one);
  }
  TL_CHECK(tl_mpi_shift(ex, "interface", 0, TL_F64, down, TL_PDD_IFACE_WORDS * nsys,
                        p + 1 < P ? p + 1 : -1, down_in, TL_PDD_IFACE_WORDS * nsys,
                        p > 0 ? p - 1 : -1));
  for (size_t s = 0; s < nsys; s++) { /* phases 4 and 5: receive, correct */
    if (r->bad[s])
      continue;
    if (p > 0)
      tl_pdd_ref_receive_d(&r->pt[s], &down_in[s]);
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_CORRECT_PDD, correct(r, s, &one), &one);
  }
  status = verdict(r, tol, info); /* phase 6 */
cleanup:
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
  size_t nsys = sl->nsys;
  int status = TL_OK;
  local_phase(r, 1, J, tol); /* phase 1 (J checked first) */
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
  status = verdict(r, tol, info); /* phase 5 */
cleanup:
  run_free(r);
  return status;
}

extern const tl_algorithm tl_algo_pdd_ref;
extern const tl_algorithm tl_algo_rpdd_ref;

static const tl_mpi_program pdd_program = {
    .crosses = "first rows up, solved interfaces down (2 dependent messages), verdict",
    .solve = pdd_mpi_solve,
};

const tl_algorithm tl_mpi_algo_pdd = {
    .name = "pdd_mpi",
    .backend = "mpi",
    .reference = &tl_algo_pdd_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* tl_mpi_solve checks each rank's rows */
    .mpi = &pdd_program,
};

/* PDD with one GPU per rank (docs/mpi.md, "One GPU per rank"): the same
 * program, its phase 1 on the GPU kernel, the same messages and ledger. */
static const tl_mpi_program pdd_gpu_program = {
    .crosses = "first rows up, solved interfaces down (2 dependent messages), verdict",
    .solve = pdd_gpu_mpi_solve,
};

const tl_algorithm tl_mpi_algo_pdd_gpu = {
    .name = "pdd_gpu_mpi",
    .backend = "mpi+gpu-emulated",
    .reference = &tl_algo_pdd_ref,
    .summary = "PDD across MPI ranks, one GPU per rank: each rank's local solves and spikes on "
               "the GPU kernel, the boundary words through the exchange layer",
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* tl_mpi_solve checks each rank's rows */
    .mpi = &pdd_gpu_program,
};

static const tl_mpi_program rpdd_program = {
    .crosses = "one exchange of edges with both neighbours, verdict",
    .solve = rpdd_mpi_solve,
};

const tl_algorithm tl_mpi_algo_rpdd = {
    .name = "rpdd_mpi",
    .backend = "mpi",
    .reference = &tl_algo_rpdd_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* tl_mpi_solve checks each rank's rows */
    .mpi = &rpdd_program,
};
