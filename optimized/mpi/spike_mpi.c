/* optimized/mpi/spike_mpi.c -- SPIKE with pivoted block solves across MPI
 * ranks: spike_mpi (partial pivoting), spike_dp_mpi (diagonal pivoting)
 * and spike_givens_mpi (Givens rotations, a singular block modified), one
 * rank program for every variant of SPIKE.
 *
 * The rank program of reference/spike_ref.c's driver (tl_spike_run_*):
 * rank p is partition p and runs the same phase functions
 * (tridlab/part_spike.h; the variant's phases 1-2, tl_spike_variant) on
 * its own rows of every system of the batch. The reference gathers every partition's
 * tips, solves the reduced system and hands every partition its two
 * boundary unknowns; across ranks that is a gather and a scatter for the
 * whole batch (docs/algorithms/spike.md):
 *
 *   phase                     rank 0                  rank p > 0
 *   1 factor, g, V, W         its block, pivoted      its block, pivoted
 *   2 "tips" (gather)         <----- g, V, W at the block's top and bottom (6 scalars)
 *   3 reduced system          DGBSV on 2(P-1) unknowns, as the reference
 *                             (or recursive SPIKE: reduced=recursive)
 *   4 "boundary" (scatter)    ----- x_prev_bottom, x_next_top (2 scalars) ---->
 *   5 retrieval               its m rows              its m rows
 *   6 "halo" and "verdict": strict row dominance and LAPACK's residual
 *     ratio of the whole answer (optimized/mpi/verdict_mpi.c)
 *
 * Phase 1 of spike_mpi in double runs all the rank's systems at once,
 * eight to a vector, through tl_cpu_spike_local_d (optimized/cpu/
 * spike_cpu.c: DGTTRF's row swaps as per-lane selects, the reference's
 * bits), and spike_givens_mpi's through tl_cpu_spike_givens_local_d
 * (spike_givens_cpu.c: the rotations in lanes); a system the kernel
 * flags runs the reference's phase, which gives its report. Both take
 * their entries' check from the kernel's flags (own_entry_check).
 * spike_dp_mpi, and complex batches, run the reference phases system
 * after system (diagonal pivoting has no batched kernel).
 *
 * The Givens variant (tl_spike_variant.kernel) also sends K's two tips
 * (8 scalars) and gets its own pinned unknown back (3), which its
 * retrieval needs.
 *
 * Rank 0 solving the reduced system is the reference's arithmetic bit for
 * bit; a rank whose block broke down still sends (zeros), so nobody
 * waits, and the first failure in the reference's order wins
 * (status_mpi.c).
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"
#include "tridlab/part_spike.h"
#include "tridlab/part_spike_dp.h"
#include "tridlab/part_spike_givens.h"

extern const tl_algorithm tl_algo_spike_ref;    /* the simulated references */
extern const tl_algorithm tl_algo_spike_dp_ref;
extern const tl_algorithm tl_algo_spike_givens_ref;

/* Scalars per system up (the tips) and down (the boundary unknowns) for
 * a variant: a kernel variant adds K's two tips and its pinned unknown. */
#define SP_UP(var) ((var)->kernel ? (size_t)TL_SPIKE_SEND_KERNEL : (size_t)TL_SPIKE_SEND)
#define SP_DOWN(var) ((var)->kernel ? (size_t)TL_SPIKE_BACK_KERNEL : (size_t)TL_SPIKE_BACK)

/* Phases in the reference's order (the order failures are met): the
 * reference factors and solves partition after partition, so a rank's
 * factorization and local solves are one phase. */
enum { PH_LOCAL = 1, PH_REDUCED = 2, PH_RETRIEVE = 3 };

static int sp_rank_d(const tl_spike_variant *var, const tl_spike_mode *mode, int own_check,
                     tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices, double *x,
                     tl_info *info);
static int sp_rank_z(const tl_spike_variant *var, const tl_spike_mode *mode, int own_check,
                     tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices,
                     double complex *x, tl_info *info);

/* The parameters are the reference's (truncate, tol, reduced). Truncated
 * SPIKE (truncate=1) is refused, not ignored: its verdict needs PDD's
 * per-partition numbers reduced across ranks, which is not built.
 * reduced=recursive is rank 0's choice of reduced solve. Every rank reads
 * the same options, so every rank refuses before any message. */
static int sp_solve(const tl_spike_variant *var, const tl_algorithm *self, tl_mpi_exchange *ex,
                    const tl_mpi_batch *sl, const size_t *slices, void *x, const tl_options *opt,
                    tl_info *info)
{
  tl_spike_mode mode;
  TL_CALL(tl_spike_mode_of(self, opt, &mode, info));
  if (mode.truncate)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "truncate",
                   "%s: truncate=1 is not built across ranks (the simulated reference has it)",
                   var->name);
  int own_check = self->mpi->own_entry_check;
  if (sl->dtype == TL_F64)
    return sp_rank_d(var, &mode, own_check, ex, sl, slices, x, info);
  return sp_rank_z(var, &mode, own_check, ex, sl, slices, x, info);
}

static int spike_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex, const tl_mpi_batch *sl,
                           const size_t *slices, void *x, const tl_options *opt, tl_info *info)
{
  return sp_solve(&tl_spike_partial, self, ex, sl, slices, x, opt, info);
}

static int spike_dp_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                              const tl_mpi_batch *sl, const size_t *slices, void *x,
                              const tl_options *opt, tl_info *info)
{
  return sp_solve(&tl_spike_diagonal, self, ex, sl, slices, x, opt, info);
}

static int spike_givens_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                                  const tl_mpi_batch *sl, const size_t *slices, void *x,
                                  const tl_options *opt, tl_info *info)
{
  return sp_solve(&tl_spike_givens, self, ex, sl, slices, x, opt, info);
}

#define SP_CROSSES                                                                                 \
  "g, V and W tips to rank 0 (6 scalars), the reduced system there (band or recursive), two "    \
  "boundary unknowns back, verdict"

static const tl_mpi_program spike_program = {
    .crosses = SP_CROSSES,
    .solve = spike_mpi_solve,
    .own_entry_check = 1, /* in the batched phase 1's pass over the slice */
};
static const tl_mpi_program spike_dp_program = {.crosses = SP_CROSSES,
                                                .solve = spike_dp_mpi_solve};
static const tl_mpi_program spike_givens_program = {
    .crosses = "g, V, W and K tips to rank 0 (8 scalars), the reduced system there (band or "
               "recursive), three boundary unknowns back (the outer two and the rank's pinned "
               "one), verdict",
    .solve = spike_givens_mpi_solve,
    .own_entry_check = 1, /* in the batched phase 1's pass over the slice */
};

const tl_algorithm tl_mpi_algo_spike = {
    .name = "spike_mpi",
    .backend = "mpi",
    .reference = &tl_algo_spike_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &spike_program,
};

const tl_algorithm tl_mpi_algo_spike_givens = {
    .name = "spike_givens_mpi",
    .backend = "mpi",
    .reference = &tl_algo_spike_givens_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &spike_givens_program,
};

const tl_algorithm tl_mpi_algo_spike_dp = {
    .name = "spike_dp_mpi",
    .backend = "mpi",
    .reference = &tl_algo_spike_dp_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* tl_mpi_solve checks each rank's rows */
    .mpi = &spike_dp_program,
};

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "spike_mpi.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "spike_mpi.c"
#undef TL_TEMPLATE_PASS

#else /* ---- the rank program, once for S = double and S = double complex ---- */

/* Rank 0: the reduced system of system s from the gathered tips (rank q's
 * `up` nsys scalars, system after system: 6, or 8 for a kernel variant),
 * by the reference's own phase 4 (tl_spike_phase4_*: the band solve or
 * recursive SPIKE, its breakdowns named as the reference names them),
 * and every rank's boundary unknowns into
 * `pairs` (rank-major, `down` per system: x_prev_bottom, x_next_top and,
 * for a kernel variant, its own pinned unknown). tips, y: up P and 2P
 * scratch. */
static void FN(sp_root_solve)(const tl_spike_variant *var, const tl_spike_mode *mode,
                              tl_mpi_status *st,
                              const tl_mpi_batch *sl, const size_t *slices, const S *all, size_t s,
                              S *tips, S *y, S *pairs)
{
  size_t nsys = sl->nsys, up = SP_UP(var), down = SP_DOWN(var);
  size_t P = (size_t)st->ex->size;
  for (size_t q = 0; q < P; q++)
    memcpy(tips + up * q, all + (q * nsys + s) * up, up * sizeof(S));
  tl_info one;
  tl_info_clear(&one);
  int status = FN(tl_spike_phase4)(var, mode, sl->n, (int)P, slices, tips, y, &one);
  if (status < 0) {
    tl_mpi_status_note(st, s, PH_REDUCED, status, &one);
    return;
  }
  for (size_t q = 0; q < P; q++) {
    S *to = pairs + (q * nsys + s) * down;
    to[0] = q > 0 ? y[2 * q - 2] : 0;
    to[1] = q + 1 < P ? y[2 * q + 1] : 0;
    if (var->kernel) /* its pinned unknown: its bottom, or the last rank's top */
      to[2] = q + 1 < P ? y[2 * q] : q > 0 ? y[2 * q - 1] : 0;
  }
}

/* Phases 2-4: the gather, rank 0's reduced solves, the scatter into mine
 * (down nsys: each system's boundary unknowns). */
static int FN(sp_reduced)(const tl_spike_variant *var, const tl_spike_mode *mode, tl_mpi_status *st,
                          const tl_mpi_batch *sl, const size_t *slices, const S *send, S *mine)
{
  tl_mpi_exchange *ex = st->ex;
  size_t P = (size_t)ex->size, nsys = sl->nsys, up = SP_UP(var), down = SP_DOWN(var);
  int root = ex->rank == 0;
  S *all = root ? tl_alloc((up + down) * nsys * P + (up + 2) * P, sizeof(S)) : NULL;
  if (root && !all)
    return TL_ERR_NOMEM;
  S *pairs = root ? all + up * nsys * P : NULL;
  S *tips = root ? pairs + down * nsys * P : NULL, *y = root ? tips + up * P : NULL;
  int status = tl_mpi_gather(ex, "tips", 0, sl->dtype, send, up * nsys, all, 0);
  for (size_t s = 0; root && status == TL_OK && s < nsys; s++)
    FN(sp_root_solve)(var, mode, st, sl, slices, all, s, tips, y, pairs);
  if (status == TL_OK)
    status = tl_mpi_scatter(ex, "boundary", 0, sl->dtype, pairs, down * nsys, mine, 0);
  free(all);
  return status;
}

/* Phases 1-2 for system s: the variant's factorization of its block, g
 * and the spikes, then the tips (and a kernel variant's column K, kept in
 * k for the retrieval). f: the factors' scratch (var->words m scalars),
 * flags: m bytes (the variant's: row swaps, pivot sizes). */
static int FN(sp_local)(const tl_spike_variant *var, const tl_mpi_exchange *ex,
                        const tl_mpi_batch *sl, size_t s, S *f, unsigned char *flags, S *g, S *v,
                        S *w, S *k, S *send, tl_info *one)
{
  int p = ex->rank, P = ex->size;
  size_t m = sl->m, o = s * m;
  const S *a = (const S *)sl->a + o, *b = (const S *)sl->b + o, *c = (const S *)sl->c + o;
  const S *d = (const S *)sl->d + o;
  TL_CALL(var->FN(local)(sl->begin, m, p, p > 0, p + 1 < P, a, b, c, d, f, flags, g + o, v + o,
                         w + o, one));
  if (!var->kernel) {
    FN(tl_spike_tips)(m, p > 0, p + 1 < P, g + o, v + o, w + o, send + TL_SPIKE_SEND * s);
    return TL_OK;
  }
  memcpy(k + o, f + (var->words - 1) * m, m * sizeof(S)); /* K: the factors' last m */
  FN(tl_spike_tips_kernel)(m, p > 0, p + 1 < P, g + o, v + o, w + o, k + o,
                           send + TL_SPIKE_SEND_KERNEL * s);
  return TL_OK;
}

/* Phases 1-2 (and the tips) of every system at once, eight systems to a
 * vector, the reference's bits, on this rank's rows as they lie: spike's
 * partial pivoting (tl_cpu_spike_local_d, optimized/cpu/spike_cpu.c) and
 * spike_givens's rotations (tl_cpu_spike_givens_local_d,
 * spike_givens_cpu.c, K into k), in double. bad[s] = 1 for a system the
 * kernel flags, which the caller runs through the reference phase for
 * its report (or the same bits). Returns how many systems, from the
 * first, ran in the lanes (every entry of those it did not flag was
 * checked, the corners apart); the other nsys - lanes ran the
 * reference phases inside the kernel. -1 where it does not apply --
 * complex, and spike_dp's diagonal pivoting, which keeps its reference
 * phases system by system. */
static long FN(sp_batched)(const tl_spike_variant *var, int p, int P, const tl_mpi_batch *sl, S *g,
                           S *v, S *w, S *k, S *send, unsigned char *bad)
{
#if TL_IS_COMPLEX
  (void)var, (void)p, (void)P, (void)sl, (void)g, (void)v, (void)w, (void)k, (void)send, (void)bad;
  return -1;
#else
  if (var == &tl_spike_partial)
    return (long)tl_cpu_spike_local_d(sl->m, sl->m, sl->nsys, p > 0, p + 1 < P, sl->a, sl->b, sl->c,
                                      sl->d, g, v, w, send, bad);
  if (var == &tl_spike_givens)
    return (long)tl_cpu_spike_givens_local_d(sl->m, sl->m, sl->nsys, p > 0, p + 1 < P, sl->a, sl->b,
                                             sl->c, sl->d, g, v, w, k, send, bad);
  return -1;
#endif
}

static int FN(sp_rank)(const tl_spike_variant *var, const tl_spike_mode *mode, int own_check,
                       tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices, S *x,
                       tl_info *info)
{
  int p = ex->rank, P = ex->size;
  size_t nsys = sl->nsys, m = sl->m, up = SP_UP(var), down = SP_DOWN(var);
  size_t spikes = var->kernel ? 4 : 3; /* g, V, W (and K) */
  tl_mpi_status st;
  TL_CALL(tl_mpi_status_init(&st, ex, nsys, info));
  /* g, V, W (and K) of every system, then the tips and the boundary
   * unknowns: the rank's scratch, kept for the next solve. Not zeroed:
   * every value read is written first -- g always, V where the rank has
   * a right neighbour and W a left one, which is where the tips and the
   * retrieval read them, K by its copy, the tips by the phase or zeros (a
   * failed system sends zeros), the boundary unknowns by the scatter. The
   * factors of one system at a time. */
  S *g = tl_mpi_scratch_dirty(spikes * m * nsys + (up + down) * nsys, sizeof(S));
  S *f = tl_alloc(var->words * m + 1, sizeof(S));
  unsigned char *flags = tl_alloc(m + 1, 1), *bad = tl_alloc(nsys, 1);
  int status = TL_OK, suspect = 0; /* suspect: an entry here is not fine (own_check) */
  if (!g || !f || !flags || !bad) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for %zu systems", var->name,
                     nsys);
    goto cleanup;
  }
  S *v = g + m * nsys, *w = v + m * nsys, *k = var->kernel ? w + m * nsys : NULL;
  S *send = g + spikes * m * nsys, *mine = send + up * nsys;
  long lanes = FN(sp_batched)(var, p, P, sl, g, v, w, k, send, bad);
  int batched = lanes >= 0;
  /* own_check (spike's, spike_givens's): the kernel checked the entries of the systems
   * it ran in its lanes and did not flag; their corners here, every
   * other system whole (a flagged one just before the reference reads it
   * again) */
  suspect = own_check && lanes > 0 && !tl_mpi_corners_fine(sl, 0, (size_t)lanes);
  for (size_t s = 0; s < nsys; s++) { /* phase 1 */
    if (own_check && !(batched && (long)s < lanes && !bad[s]))
      suspect |= !tl_mpi_entries_scan(sl, s, 1);
    if (batched && !bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    int lst = FN(sp_local)(var, ex, sl, s, f, flags, g, v, w, k, send, &one);
    tl_mpi_status_note(&st, s, PH_LOCAL, lst, &one);
    bad[s] = lst < 0;
    if (bad[s]) /* a failed system sends zeros */
      memset(send + up * s, 0, up * sizeof(S));
  }
  status = FN(sp_reduced)(var, mode, &st, sl, slices, send, mine);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "%s: the reduced exchange failed", var->name);
    goto cleanup;
  }
  for (size_t s = 0; s < nsys; s++) { /* phase 5: retrieval */
    if (bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    size_t o = s * m;
    const S *back = mine + down * s;
    int rst = FN(tl_spike_retrieve_kernel)(sl->begin, m, p > 0, p + 1 < P, g + o, v + o, w + o,
                                           k ? k + o : NULL, back[0], back[1], k ? back[2] : 0,
                                           x + o, &one);
    tl_mpi_status_note(&st, s, PH_RETRIEVE, tl_spike_named(var, rst, &one), &one);
  }
  /* the entries' own check before the verdict: a batch it rejects sends
   * no halo */
  status = own_check ? tl_mpi_entries_agree(ex, sl, suspect, info) : TL_OK;
  if (status != TL_OK)
    goto cleanup;
  status = tl_mpi_residual_verdict(&st, sl, x, var->name, TL_SPIKE_DD_WHY,
                                   TL_SPIKE_RESIDUAL_WHY, NULL, info);
cleanup:
  free(f);
  free(flags);
  free(bad);
  tl_mpi_status_free(&st);
  return status;
}

#endif
