/* optimized/mpi/hybrid_pcr_mpi.c -- the hybrid Thomas-PCR solver across
 * MPI ranks.
 *
 * The rank program of reference/hybrid_pcr_ref.c (paper 002 Algorithms 3
 * and 4): rank p is partition p and runs the same phase functions
 * (tridlab/part_hybrid_pcr.h) on its own rows of every system of the
 * batch. The reference gathers the 2P-row reduced system, solves it with
 * PCR and hands every partition its two unknowns; across ranks that is a
 * gather and a scatter for the whole batch (docs/algorithms/hybrid_pcr.md,
 * "MPI"):
 *
 *   phase                     rank 0                  rank p > 0
 *   1 modified Thomas         its m rows              its m rows
 *   2 "reduced" (gather)      <----- rows 0 and m-1 (a*, c*, d*: 6 scalars)
 *   3 PCR on the 2P rows      tl_pcr_ref, as the reference
 *   4 "solution" (scatter)    ----- x_first, x_last (2 scalars) ---->
 *   5 substitution            its m rows              its m rows
 *   6 "halo" and "verdict": dominance and LAPACK's residual ratio of the
 *     whole answer (optimized/mpi/verdict_mpi.c)
 *
 * Rank 0 solving the reduced system is the reference's arithmetic bit for
 * bit (paper 002's gather-scatter); a rank whose rows broke down still
 * sends (zeros), so nobody waits, and the first failure in the
 * reference's order wins (status_mpi.c).
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"
#include "tridlab/algorithms.h"
#include "tridlab/part_hybrid_pcr.h"

extern const tl_algorithm tl_algo_hybrid_pcr_ref; /* the simulated reference */

/* Phases in the reference's order (the order failures are met). */
enum { PH_FORWARD = 1, PH_REDUCED = 2, PH_BACKWARD = 3 };

#define DD_WHY "the modified Thomas step and PCR have no stability guarantee here"
#define RESIDUAL_WHY                                                                               \
  "PCR on the reduced system is not backward stable on this ill-conditioned matrix (its "          \
  "error is still bounded by cond(A) eps)"

/* The rank program for each scalar type (the template passes below). */
static int hp_rank_d(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices, double *x,
                     int own_check, tl_info *info);
static int hp_rank_z(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices,
                     double complex *x, int own_check, tl_info *info);

static int hybrid_pcr_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                                const tl_mpi_batch *sl, const size_t *slices, void *x,
                                const tl_options *opt, tl_info *info)
{
  (void)opt;
  int own_check = self->mpi->own_entry_check;
  if (sl->dtype == TL_F64)
    return hp_rank_d(ex, sl, slices, x, own_check, info);
  return hp_rank_z(ex, sl, slices, x, own_check, info);
}

static const tl_mpi_program hybrid_pcr_program = {
    .crosses = "two boundary rows to rank 0, PCR on the 2P-row reduced system there, two "
               "unknowns back, verdict",
    .solve = hybrid_pcr_mpi_solve,
    .own_entry_check = 1, /* in the forward sweep's pass over the slice */
};

const tl_algorithm tl_mpi_algo_hybrid_pcr = {
    .name = "hybrid_pcr_mpi",
    .backend = "mpi",
    .reference = &tl_algo_hybrid_pcr_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &hybrid_pcr_program,
};

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "hybrid_pcr_mpi.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "hybrid_pcr_mpi.c"
#undef TL_TEMPLATE_PASS

#else /* ---- the rank program, once for S = double and S = double complex ---- */

/* Rank 0: the reduced system of system s from the gathered rows (rank q's
 * 6 nsys scalars, system after system), PCR, and every rank's two
 * unknowns into `pairs` (rank-major, 2 per system). w: 16P scratch. */
static void FN(hp_root_solve)(tl_mpi_status *st, const tl_mpi_batch *sl, const size_t *slices,
                              const S *all, size_t s, S *w, S *pairs)
{
  size_t P = (size_t)st->ex->size, nsys = sl->nsys;
  S *send = w, *ra = w + 6 * P, *rb = ra + 2 * P, *rc = rb + 2 * P, *rd = rc + 2 * P;
  S *y = rd + 2 * P;
  for (size_t q = 0; q < P; q++)
    memcpy(send + 6 * q, all + (q * nsys + s) * 6, 6 * sizeof(S));
  FN(tl_hybrid_pcr_gather)((int)P, send, ra, rb, rc, rd);
  tl_info one;
  tl_info_clear(&one);
  int status = FN(tl_pcr_ref)(2 * P, ra, rb, rc, rd, y, &one);
  if (status < 0) {
    status = tl_hybrid_pcr_reduced_failure(&one, status, sl->n, (int)P, slices);
    tl_mpi_status_note(st, s, PH_REDUCED, status, &one);
    return;
  }
  for (size_t q = 0; q < P; q++) {
    pairs[(q * nsys + s) * 2] = y[2 * q];
    pairs[(q * nsys + s) * 2 + 1] = y[2 * q + 1];
  }
}

/* Phases 2-4: the gather, rank 0's PCR, the scatter into mine (2 nsys). */
static int FN(hp_reduced)(tl_mpi_status *st, const tl_mpi_batch *sl, const size_t *slices,
                          const S *send, S *mine)
{
  tl_mpi_exchange *ex = st->ex;
  size_t P = (size_t)ex->size, nsys = sl->nsys;
  int root = ex->rank == 0;
  S *all = root ? tl_alloc(8 * nsys * P + 16 * P, sizeof(S)) : NULL;
  if (root && !all)
    return TL_ERR_NOMEM;
  S *pairs = root ? all + 6 * nsys * P : NULL, *w = root ? pairs + 2 * nsys * P : NULL;
  int status = tl_mpi_gather(ex, "reduced", 0, sl->dtype, send, TL_HYBRID_PCR_SEND * nsys, all, 0);
  for (size_t s = 0; root && status == TL_OK && s < nsys; s++)
    FN(hp_root_solve)(st, sl, slices, all, s, w, pairs);
  if (status == TL_OK)
    status = tl_mpi_scatter(ex, "solution", 0, sl->dtype, pairs, 2 * nsys, mine, 0);
  free(all);
  return status;
}

/* Phase 1 for system s by the reference into as, cs, ds (m each): its
 * status, its report noted. */
static int FN(hp_forward_one)(tl_mpi_status *st, const tl_mpi_batch *sl, size_t s, S *as, S *cs,
                              S *ds)
{
  int p = st->ex->rank, P = st->ex->size;
  size_t m = sl->m, o = s * m;
  const S *a = sl->a, *b = sl->b, *c = sl->c, *d = sl->d;
  tl_info one;
  tl_info_clear(&one);
  int fst = FN(tl_hybrid_pcr_forward)(sl->begin, m, p > 0, p + 1 < P, a + o, b + o, c + o, d + o,
                                      as, cs, ds, &one);
  tl_mpi_status_note(st, s, PH_FORWARD, fst, &one);
  return fst;
}

/* Phase 5 for system s by the reference, from its a', c', d'. */
static void FN(hp_backward_one)(tl_mpi_status *st, const tl_mpi_batch *sl, size_t s, const S *as,
                                const S *cs, const S *ds, const S *mine, S *x)
{
  tl_info one;
  tl_info_clear(&one);
  int bst = FN(tl_hybrid_pcr_backward)(sl->begin, sl->m, as, cs, ds, mine[2 * s], mine[2 * s + 1],
                                       x + s * sl->m, &one);
  tl_mpi_status_note(st, s, PH_BACKWARD, bst, &one);
}

#if !TL_IS_COMPLEX
/* Phase 5 with the verdict's pass, as Tridsolver's rank program makes it
 * (tridsolver_mpi.c, ts_finish): the whole groups that phase 1 swept in
 * lanes run the sweeps again in L2, the substitution and the pass from
 * cache (tl_cpu_hybrid_pcr_finish_d); a system phase 1 ran in the
 * reference (flag), by the reference again, and one of a group left
 * aside from its group's batched sweeps; both by the reference's
 * substitution. tmp: 3 8 m. */
static void FN(hp_finish)(tl_mpi_status *st, const tl_mpi_batch *sl, const unsigned char *bad,
                          const unsigned char *flag, unsigned char *skip, const S *mine, S *x,
                          const S *halo, tl_residual_pass *passes, S *tmp)
{
  int p = st->ex->rank, P = st->ex->size;
  const S *a = sl->a, *b = sl->b, *c = sl->c, *d = sl->d;
  size_t m = sl->m, nsys = sl->nsys, group = (size_t)-1; /* the group tmp holds */
  unsigned char *redo = skip + nsys, fl[8];
  for (size_t s = 0; s < nsys; s++)
    skip[s] = bad[s] | flag[s];
  size_t done = tl_cpu_hybrid_pcr_finish_d(sl->n, sl->begin, m, nsys, p > 0, p + 1 < P, a, b, c, d,
                                           mine, skip, x, redo, halo, passes);
  for (size_t s = 0; s < nsys; s++) {
    if (bad[s] || (s < done && !skip[s] && !redo[s]))
      continue;
    size_t o = s * m;
    if (flag[s]) { /* its status was noted in phase 1 */
      tl_info one;
      tl_info_clear(&one);
      FN(tl_hybrid_pcr_forward)
      (sl->begin, m, p > 0, p + 1 < P, a + o, b + o, c + o, d + o, tmp, tmp + m, tmp + 2 * m, &one);
      FN(hp_backward_one)(st, sl, s, tmp, tmp + m, tmp + 2 * m, mine, x);
      group = (size_t)-1;
    } else {
      size_t g0 = s / 8 * 8 + 8 <= nsys ? s / 8 * 8 : nsys - 8; /* eight inside the batch */
      size_t og = g0 * m, k = (s - g0) * m;
      if (g0 != group)
        tl_cpu_hybrid_pcr_forward_d(sl->begin, m, 8, p > 0, p + 1 < P, a + og, b + og, c + og,
                                    d + og, tmp, tmp + 8 * m, tmp + 16 * m, fl);
      group = g0;
      FN(hp_backward_one)(st, sl, s, tmp + k, tmp + 8 * m + k, tmp + 16 * m + k, mine, x);
    }
    tl_cpu_residual_slice_pass_d(sl->n, sl->periodic, sl->begin, m, a + o, b + o, c + o, d + o,
                                 x + o, halo + 4 * s, passes + s);
  }
}
#endif

static int FN(hp_rank)(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices, S *x,
                       int own_check, tl_info *info)
{
  size_t nsys = sl->nsys, m = sl->m;
  tl_mpi_status st;
  TL_CALL(tl_mpi_status_init(&st, ex, nsys, info));
  /* What is sent and received (6 + 2 per system, zeroed: a failed system
   * sends zeros), the halo (4; double), then a', c', d': in double a
   * scratch of 3 8 m for the systems the reference takes (phase 1 keeps
   * only what it sends, phase 5 sweeps again: hp_finish); in complex
   * every system's. The rank's scratch, kept for the next solve. */
  size_t arrays = TL_IS_COMPLEX ? 3 * m * nsys : 24 * m;
  S *send = tl_mpi_scratch_dirty(12 * nsys + arrays, sizeof(S));
  unsigned char *bad = tl_alloc(4 * nsys, 1), *flag = bad + nsys;
#if TL_IS_COMPLEX
  void *passes = NULL;
#else
  tl_residual_pass *passes = tl_alloc(nsys, sizeof *passes);
#endif
  int status = TL_OK, suspect = 0; /* suspect: an entry here is not fine (own_entry_check) */
  if (!send || !bad || (!TL_IS_COMPLEX && !passes)) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "hybrid_pcr: no memory for %zu systems", nsys);
    goto cleanup;
  }
  S *mine = send + 6 * nsys, *halo = mine + 2 * nsys, *as = halo + 4 * nsys;
  memset(send, 0, 8 * nsys * sizeof(S));
  size_t done = 0;
#if !TL_IS_COMPLEX /* eight systems at once; a flagged one again below */
  done = tl_cpu_hybrid_pcr_ends_d(m, nsys, ex->rank > 0, ex->rank + 1 < ex->size, sl->a, sl->b,
                                  sl->c, sl->d, send, flag);
  /* it checked the entries of the systems it did not flag as it read
   * them; the corners of all, and the others whole, here */
  suspect = own_check && done > 0 && !tl_mpi_corners_fine(sl, 0, nsys);
#endif
  for (size_t s = 0; s < nsys; s++) { /* phase 1: modified Thomas, then pack */
    if (s < done && !flag[s])
      continue;
    flag[s] = 1; /* the reference, for its report */
    if (own_check)
      suspect |= !tl_mpi_entries_scan(sl, s, 1);
    size_t o = TL_IS_COMPLEX ? s * m : 0, k = TL_IS_COMPLEX ? m * nsys : m;
    bad[s] = FN(hp_forward_one)(&st, sl, s, as + o, as + k + o, as + 2 * k + o) < 0;
    if (!bad[s])
      FN(tl_hybrid_pcr_pack)(m, as + o, as + k + o, as + 2 * k + o, send + TL_HYBRID_PCR_SEND * s);
    else /* a failed system sends zeros, not the rows the lanes wrote */
      memset(send + TL_HYBRID_PCR_SEND * s, 0, TL_HYBRID_PCR_SEND * sizeof(S));
  }
  status = FN(hp_reduced)(&st, sl, slices, send, mine);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "hybrid_pcr: the reduced exchange failed");
    goto cleanup;
  }
  /* the entries' own check first: a batch it rejects sends no halo */
  status = own_check ? tl_mpi_entries_agree(ex, sl, suspect, info) : TL_OK;
  if (status != TL_OK)
    goto cleanup;
#if !TL_IS_COMPLEX /* phase 5 and the verdict's pass; x_0, x_{m-1} are mine */
  status = tl_mpi_residual_halo_ends(ex, sl, mine, halo);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "hybrid_pcr: the halo exchange failed");
    goto cleanup;
  }
  FN(hp_finish)(&st, sl, bad, flag, flag + nsys, mine, x, halo, passes, as);
#else
  for (size_t s = 0; s < nsys; s++) /* phase 5: substitution */
    if (!bad[s])
      FN(hp_backward_one)
      (&st, sl, s, as + s * m, as + (nsys + s) * m, as + (2 * nsys + s) * m, mine, x);
#endif
  if (!TL_IS_COMPLEX)
    status = tl_mpi_residual_verdict_of(&st, sl, x, halo, passes, "hybrid_pcr", DD_WHY,
                                        RESIDUAL_WHY, NULL, info);
  else
    status = tl_mpi_residual_verdict(&st, sl, x, "hybrid_pcr", DD_WHY, RESIDUAL_WHY, NULL, info);
cleanup:
  free(bad);
  free(passes);
  tl_mpi_status_free(&st);
  return status;
}

#endif
