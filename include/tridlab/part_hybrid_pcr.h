/* tridlab/part_hybrid_pcr.h -- the phases of the hybrid Thomas-PCR solver
 * (registry name "hybrid_pcr"), one partition ("rank") at a time.
 *
 * Source: paper 002 (Tridsolver) Algorithms 3 (hybrid_forward) and 4
 * (hybrid_backward); paper 000 (DistD2-TDS) §2.2.1, Algorithms 2 and 3.
 * reference/hybrid_pcr_ref.c explains the method; docs/algorithms/
 * hybrid_pcr.md walks through it.
 *
 * A partition owns the m >= 2 consecutive rows [begin, begin + m) of
 * the system. The phases, in the order the one-call solve runs them:
 *
 *   1. tl_hybrid_pcr_forward   local: modified Thomas on the m rows; after
 *                              it every row couples only to the first and
 *                              the last unknown of the partition (rows 1..m-2)
 *                              or to the neighbours' (rows 0 and m-1).
 *   2. tl_hybrid_pcr_pack      local: copy the two boundary rows (6 words)
 *                              into the buffer the rank sends.
 *   3. tl_hybrid_pcr_gather    exchange: the 2P-row reduced system from the
 *                              P buffers (what a gather delivers).
 *   4. tl_pcr_ref_d / _z       the reduced solve (tridlab/algorithms.h).
 *   5. tl_hybrid_pcr_backward  local: x from the partition's two reduced
 *                              unknowns (what a scatter delivers).
 *
 * Pointers a, b, c, d, as, cs, ds, x passed to the local phases point at the
 * partition's first row (a + begin, ...); begin is used only to report
 * global rows. has_left / has_right say whether a neighbouring partition
 * exists: without one, a[begin] (resp. c[begin + m - 1]) is a corner and
 * is not read.
 */
#ifndef TRIDLAB_PART_HYBRID_PCR_H
#define TRIDLAB_PART_HYBRID_PCR_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Words one rank sends for the reduced system: rows 0 and m-1 as
 * (a*, c*, d*) each; their diagonal is 1 after the forward phase. */
#define TL_HYBRID_PCR_SEND 6

/* Phase 1 (paper 002 Algorithm 3). Writes as, cs, ds (m entries each).
 * Afterwards, in the partition's local numbering (x_{-1} and x_m are the
 * neighbours' unknowns):
 *   row 0:         as[0] x_{-1} + x_0 + cs[0] x_{m-1} = ds[0]   (m >= 3)
 *   rows 1..m-2:   as[i] x_0    + x_i + cs[i] x_{m-1} = ds[i]
 *   row m-1:       as[m-1] x_0  + x_{m-1} + cs[m-1] x_m = ds[m-1]
 * (m = 2: row 0 is as[0] x_{-1} + x_0 + cs[0] x_1 = ds[0]). TL_ERR_ARG for
 * m < 2; TL_ERR_BREAKDOWN with the global row on a zero or non-finite pivot. */
int tl_hybrid_pcr_forward_d(size_t begin, size_t m, int has_left, int has_right, const double *a,
                            const double *b, const double *c, const double *d, double *as,
                            double *cs, double *ds, tl_info *info);
int tl_hybrid_pcr_forward_z(size_t begin, size_t m, int has_left, int has_right,
                            const double complex *a, const double complex *b,
                            const double complex *c, const double complex *d, double complex *as,
                            double complex *cs, double complex *ds, tl_info *info);

/* Phase 2: send = {as[0], cs[0], ds[0], as[m-1], cs[m-1], ds[m-1]}. */
void tl_hybrid_pcr_pack_d(size_t m, const double *as, const double *cs, const double *ds,
                          double send[TL_HYBRID_PCR_SEND]);
void tl_hybrid_pcr_pack_z(size_t m, const double complex *as, const double complex *cs,
                          const double complex *ds, double complex send[TL_HYBRID_PCR_SEND]);

/* Phase 3: from the P send buffers (6P words, rank after rank) build the
 * reduced system of 2P rows: reduced row 2p is partition p's row 0,
 * row 2p+1 its row m-1; unknown 2p is x[begin_p], 2p+1 is x[end_p - 1].
 * ra, rb, rc, rd have 2P entries; ra[0] and rc[2P-1] are set to 0. */
void tl_hybrid_pcr_gather_d(int parts, const double *send, double *ra, double *rb, double *rc,
                            double *rd);
void tl_hybrid_pcr_gather_z(int parts, const double complex *send, double complex *ra,
                            double complex *rb, double complex *rc, double complex *rd);

/* Phase 5 (paper 002 Algorithm 4): x_0 = first, x_{m-1} = last,
 * x_i = ds[i] - as[i] first - cs[i] last. TL_ERR_BREAKDOWN (global row) on
 * a non-finite result. */
int tl_hybrid_pcr_backward_d(size_t begin, size_t m, const double *as, const double *cs,
                             const double *ds, double first, double last, double *x,
                             tl_info *info);
int tl_hybrid_pcr_backward_z(size_t begin, size_t m, const double complex *as,
                             const double complex *cs, const double complex *ds,
                             double complex first, double complex last, double complex *x,
                             tl_info *info);

/* All phases for one non-periodic system split in `parts` partitions
 * (part_sizes NULL: as even as possible; else parts sizes >= 2 summing to
 * n). TL_OUTSIDE_DOMAIN when A is not row diagonally dominant. */
int tl_hybrid_pcr_ref_d(size_t n, int parts, const size_t *part_sizes, const double *a,
                        const double *b, const double *c, const double *d, double *x,
                        tl_info *info);
int tl_hybrid_pcr_ref_z(size_t n, int parts, const size_t *part_sizes, const double complex *a,
                        const double complex *b, const double complex *c,
                        const double complex *d, double complex *x, tl_info *info);

/* The same, recording in ledger (may be NULL) what P ranks exchange
 * (docs/algorithms/hybrid_pcr.md, "MPI"). */
int tl_hybrid_pcr_ref_ledger_d(size_t n, int parts, const size_t *part_sizes, const double *a,
                               const double *b, const double *c, const double *d, double *x,
                               tl_ledger *ledger, tl_info *info);
int tl_hybrid_pcr_ref_ledger_z(size_t n, int parts, const size_t *part_sizes,
                               const double complex *a, const double complex *b,
                               const double complex *c, const double complex *d, double complex *x,
                               tl_ledger *ledger, tl_info *info);

/* A failure of PCR on the reduced system (info->row = the reduced row k)
 * reported at its matrix row: partition k/2's first row (k even) or last
 * row (k odd). Returns status. */
int tl_hybrid_pcr_reduced_failure(tl_info *info, int status, size_t n, int parts,
                                  const size_t *part_sizes);
/* Rank p's part of the exchange, w words per rank (a scalar's words
 * times nsys): its 6 w to rank 0 ("reduced", a gather; solved = 0), or
 * its 2 w back ("solution", a scatter; solved = 1). */
void tl_hybrid_pcr_ledger_reduced(tl_ledger *ledger, int P, int p, size_t w, int solved);

#ifdef __cplusplus
}
#endif
#endif
