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

static int FN(hp_rank)(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices, S *x,
                       int own_check, tl_info *info)
{
  int p = ex->rank, P = ex->size;
  size_t nsys = sl->nsys, m = sl->m;
  tl_mpi_status st;
  TL_CALL(tl_mpi_status_init(&st, ex, nsys, info));
  /* a', c', d' of every system (written where they are read: a system
   * that failed is read no more), then what is sent and received, zeroed
   * (a failed system sends zeros); the rank's scratch, kept for the next
   * solve, not zeroed whole (that cost 3 % of the solve) */
  S *as = tl_mpi_scratch_dirty(3 * m * nsys + 8 * nsys, sizeof(S));
  unsigned char *bad = tl_alloc(nsys, 1);
  int status = TL_OK, suspect = 0; /* suspect: an entry here is not fine (own_entry_check) */
  if (!as || !bad) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "hybrid_pcr: no memory for %zu systems", nsys);
    goto cleanup;
  }
  S *cs = as + m * nsys, *ds = cs + m * nsys, *send = ds + m * nsys, *mine = send + 6 * nsys;
  memset(send, 0, 8 * nsys * sizeof(S));
  const S *a = sl->a, *b = sl->b, *c = sl->c, *d = sl->d;
  memset(bad, 0, nsys);
#if !TL_IS_COMPLEX /* eight systems at once; a flagged one again below */
  tl_cpu_hybrid_pcr_forward_d(sl->begin, m, nsys, p > 0, p + 1 < P, a, b, c, d, as, cs, ds, bad);
  /* it checked the entries of the systems it did not flag as it read
   * them; the corners of all, and the flagged systems whole, here */
  suspect = own_check && !tl_mpi_corners_fine(sl, 0, nsys);
#endif
  for (size_t s = 0; s < nsys; s++) { /* phase 1: modified Thomas, then pack */
    size_t o = s * m;
    if (TL_IS_COMPLEX || bad[s]) { /* the reference, for its report */
      if (own_check)
        suspect |= !tl_mpi_entries_scan(sl, s, 1);
      tl_info one;
      tl_info_clear(&one);
      int fst = FN(tl_hybrid_pcr_forward)(sl->begin, m, p > 0, p + 1 < P, a + o, b + o, c + o,
                                          d + o, as + o, cs + o, ds + o, &one);
      tl_mpi_status_note(&st, s, PH_FORWARD, fst, &one);
      bad[s] = fst < 0;
    }
    if (!bad[s])
      FN(tl_hybrid_pcr_pack)(m, as + o, cs + o, ds + o, send + TL_HYBRID_PCR_SEND * s);
  }
  status = FN(hp_reduced)(&st, sl, slices, send, mine);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "hybrid_pcr: the reduced exchange failed");
    goto cleanup;
  }
  for (size_t s = 0; s < nsys; s++) { /* phase 5: substitution */
    if (bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    size_t o = s * m;
    int bst = TL_OK;
#if !TL_IS_COMPLEX /* the rows in SIMD lanes, the same bits; the reference for a report */
    if (!tl_cpu_two_spike_rows_d(m, as + o, NULL, cs + o, ds + o, mine[2 * s], mine[2 * s + 1],
                                 x + o, NULL))
#endif
      bst = FN(tl_hybrid_pcr_backward)(sl->begin, m, as + o, cs + o, ds + o, mine[2 * s],
                                       mine[2 * s + 1], x + o, &one);
    tl_mpi_status_note(&st, s, PH_BACKWARD, bst, &one);
  }
  status = own_check ? tl_mpi_entries_agree(ex, sl, suspect, info) : TL_OK;
  if (status == TL_OK)
    status = tl_mpi_residual_verdict(&st, sl, x, "hybrid_pcr", DD_WHY, RESIDUAL_WHY, NULL, info);
cleanup:
  free(bad);
  tl_mpi_status_free(&st);
  return status;
}

#endif
