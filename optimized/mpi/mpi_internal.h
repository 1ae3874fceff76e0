/* optimized/mpi/mpi_internal.h -- what the MPI rank programs share:
 * the exchange layer (exchange.c) and the status of a distributed batch
 * (status_mpi.c). Private to optimized/mpi/.
 *
 * THE EXCHANGE LAYER is the only code that calls MPI for the solvers.
 * Every call names the phase and round it belongs to and records this
 * rank's entries in ex->ledger (tridlab/ledger.h); counts are in
 * elements of the given dtype (words = 1 per double, 2 per complex). A
 * rank argument of -1 means "nobody" (no neighbour there). Each returns
 * TL_OK, or TL_ERR_UNSUPPORTED when a count does not fit MPI's int.
 */
#ifndef TL_MPI_INTERNAL_H
#define TL_MPI_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "tridlab/backend.h"
#include "tridlab/mpi.h"

/* ---- the exchange layer (exchange.c) ------------------------------- */

/* Send count elements to dst and receive rcount from src, in one step. */
int tl_mpi_shift(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, const void *send,
                 size_t count, int dst, void *recv, size_t rcount, int src);
/* The same, started: the messages travel while the rank computes; the
 * buffers belong to MPI until tl_mpi_wait (recorded at the start). The
 * latency hiding of Tridsolver's mini-batches. */
typedef struct tl_mpi_pending {
  MPI_Request req[2];
  int nreq;
} tl_mpi_pending;
int tl_mpi_shift_start(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt,
                       const void *send, size_t count, int dst, void *recv, size_t rcount, int src,
                       tl_mpi_pending *pend);
int tl_mpi_wait(tl_mpi_exchange *ex, tl_mpi_pending *pend);
/* Both neighbours at once: to_prev goes to rank prev, to_next to rank
 * next; from_prev comes from prev, from_next from next (-1: none). */
int tl_mpi_neighbours(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, int prev,
                      int next, const void *to_prev, size_t nto_prev, const void *to_next,
                      size_t nto_next, void *from_prev, size_t nfrom_prev, void *from_next,
                      size_t nfrom_next);
int tl_mpi_allgather(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt,
                     const void *send, size_t count, void *recv);
int tl_mpi_gather(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, const void *send,
                  size_t count, void *recv, int root);
int tl_mpi_scatter(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, const void *send,
                   size_t count, void *recv, int root);
int tl_mpi_bcast(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, void *buf,
                 size_t count, int root);
/* In place over all ranks: the largest of each entry. */
int tl_mpi_allreduce_max(tl_mpi_exchange *ex, const char *phase, int round, double *buf,
                         size_t count);
/* In place over all ranks: the sum of each entry (in MPI's order). */
int tl_mpi_allreduce_sum(tl_mpi_exchange *ex, const char *phase, int round, double *buf,
                         size_t count);
/* In place: npairs (value, row) pairs combined by tl_pair_max (the rows
 * travel as doubles; exact below 2^53). The verdict's reduction. */
int tl_mpi_allreduce_pairs(tl_mpi_exchange *ex, const char *phase, int round, double *pairs,
                           size_t npairs);

/* Messages to and from any ranks at once: scount[q] elements from
 * sbuf[q] go to rank q, rcount[q] arrive from it into rbuf[q] (P entries
 * each; 0: no message; the own rank's entries are ignored). */
int tl_mpi_sparse(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt,
                  const size_t *scount, const void *const *sbuf, const size_t *rcount,
                  void *const *rbuf);

/* Time a local step (not communication) without recording anything. */
double tl_mpi_now(void);

/* ---- entries checked in a program's own pass (solve_mpi.c) ------- */

/* For a program with own_entry_check (tridlab/mpi.h): 1 when systems
 * [s0, s0 + k) of the slice have finite entries and, where the slice
 * holds them, zero corners (a plain system); 0 else. Run it on rows the
 * program reads anyway, while they are in cache. */
int tl_mpi_entries_scan(const tl_mpi_batch *sl, size_t s0, size_t k);
/* Only the corners of systems [s0, s0 + k) (tl_corners_fine): for the
 * systems whose values a kernel checked as it read them. */
int tl_mpi_corners_fine(const tl_mpi_batch *sl, size_t s0, size_t k);
/* 1 when rows [i0, i1) of a, b, c, d of systems [s0, s0 + k) (a double
 * slice) are finite: the rows such a kernel does not read. */
int tl_mpi_rows_finite(const tl_mpi_batch *sl, size_t s0, size_t k, size_t i0, size_t i1);
/* For the systems [s0, s0 + k) of a double slice that the x-line kernel
 * (tl_cpu_thomas_lines_d) has just solved, each from rows 1 .. m-2 of
 * the slice as they are (rows 0 and m-1 may be changed or dropped: PDD's
 * and ITS's right-hand sides, ITS's identity row), with its flags: 1 when
 * their entries are fine as far as can be told without a scan -- no flag
 * 1 (every entry the kernel reads enters a lane's check sum), rows 0 and
 * m-1 finite, the corners zero where the slice holds them -- and the
 * systems with skip[j] set (not solved by the kernel; skip may be NULL)
 * scanned. 0: the rank is suspect (tl_mpi_entries_agree decides). */
int tl_mpi_entries_from_flags(const tl_mpi_batch *sl, size_t s0, size_t k,
                              const unsigned char *flag, const unsigned char *skip);

/* Collective, once per solve, on every rank, before the verdict:
 * suspect = 1 when a scan of this rank said 0. Then TL_OK, or on every
 * rank the report of the lowest rank whose tl_check_entries fails (what
 * tl_mpi_solve's own check gives), in info. Not recorded in the ledger
 * (the checks are not part of the algorithm). */
int tl_mpi_entries_agree(tl_mpi_exchange *ex, const tl_mpi_batch *sl, int suspect, tl_info *info);

/* ---- scratch kept between solves (scratch_mpi.c) ------------------ */

/* n elements of size bytes, zero-filled, from this thread's scratch
 * buffer: the same memory as the last solve's when it is large enough (no
 * fresh pages to fault in), else a larger one. Valid until the next
 * request or tl_mpi_scratch_release (tridlab/mpi.h); never free it. One
 * per solve (a solve calls no other). NULL when memory runs out. */
void *tl_mpi_scratch(size_t n, size_t size);

/* The same buffer NOT zero-filled: zeros when fresh, else what the last
 * solve (of any algorithm) left there. For a solve whose results depend
 * only on entries it wrote itself (PDD's and RPDD's spikes, Tridsolver's
 * and the hybrid's a', c', d'): zeroing 2 words per unknown cost RPDD 6 %
 * of its time. */
void *tl_mpi_scratch_dirty(size_t n, size_t size);

/* The same for the code around a solve (the 3-D grid's lines gathered
 * for tl_mpi_solve): a second buffer of this thread, kept between calls,
 * NOT zero-filled (the caller writes all of it). Valid until the next
 * tl_mpi_keep or tl_mpi_scratch_release; never free it. */
void *tl_mpi_keep(size_t n, size_t size);

/* ---- the status of a distributed batch (status_mpi.c) ------------- */

/* A rank notes the status of every phase for every system; the first
 * failure of the batch (lowest system, then earliest phase, then lowest
 * rank, as the simulated reference meets them) travels as the first
 * (value, row) pair of each system in the verdict's allreduce, and the
 * rank that found it sends its report to all (one broadcast, phase
 * "report", only when something failed). */
typedef struct tl_mpi_status {
  tl_mpi_exchange *ex;
  size_t nsys;
  double *key;    /* per system: 0, or the encoded (status, phase, rank) */
  long *row;      /* per system: the global row of that status           */
  tl_info **note; /* per system: this rank's report of it (NULL: none)   */
} tl_mpi_status;

int tl_mpi_status_init(tl_mpi_status *st, tl_mpi_exchange *ex, size_t nsys, tl_info *info);
void tl_mpi_status_free(tl_mpi_status *st);
/* Phase `phase` (1, 2, ... in the reference's order) ended with `status`
 * for system s on this rank. Errors and outside-domain warnings are kept;
 * TL_OK is ignored. */
void tl_mpi_status_note(tl_mpi_status *st, size_t s, int phase, int status, const tl_info *one);
/* Write each system's status pair into pairs[s * stride], stride pairs
 * per system (pair 0 of each system). */
void tl_mpi_status_pairs(const tl_mpi_status *st, double *pairs, size_t stride);
/* After the allreduce of the pairs: 1 when system s failed (an error)
 * on some rank. */
int tl_mpi_status_failed(const double *pairs, size_t stride, size_t s);
int tl_mpi_status_warned(const double *pairs, size_t stride, size_t s);
/* After the allreduce: when a system failed on some rank, the report of
 * the first failure (lowest system) goes from its rank to all, and every
 * rank returns it as the batch's status (with "system s: " when
 * nsys > 1). Returns 0 when nothing failed (the algorithm then decides
 * each system from the reduced numbers, with tl_outcome_*). */
int tl_mpi_status_first_error(tl_mpi_status *st, const double *pairs, size_t stride, tl_info *info);
/* For algorithms whose verdict is only the status pair: the first error
 * (as above); else the first system with a warning noted by some rank,
 * whose report that rank broadcasts; else TL_OK. */
int tl_mpi_status_outcome(tl_mpi_status *st, const double *pairs, size_t stride, tl_info *info);
/* The report of the failure noted for system s (the winning key of its
 * pair, an error or a warning), broadcast by the rank that noted it:
 * *one gets it, one->status its status. TL_OK, or the broadcast's
 * failure. For an algorithm that judges a failure by its kind. */
int tl_mpi_status_report(tl_mpi_status *st, const double *pairs, size_t stride, size_t s,
                         tl_info *one);
/* The report of the first warning noted by some rank for system s (the
 * same broadcast, when an algorithm's warning comes from one rank's rows). */
int tl_mpi_status_warning(tl_mpi_status *st, const double *pairs, size_t stride, size_t s,
                          tl_info *one);

/* The first error (as above); else each system's verdict from its
 * reduced pairs (q: the system's `stride` pairs), combined by the rule of
 * a batch (tl_outcome). What most algorithms do after the verdict. */
typedef int (*tl_mpi_verdict_fn)(void *ctx, size_t s, const double *q, tl_info *one);
int tl_mpi_status_verdicts(tl_mpi_status *st, const double *pairs, size_t stride,
                           tl_mpi_verdict_fn judge, void *ctx, tl_info *info);

/* After the allreduce: the phase (as noted) of the failure that won for
 * system s; -1 when none. */
long tl_mpi_status_phase(const tl_mpi_status *st, const double *pairs, size_t stride, size_t s);

/* ---- the verdict of the exact solvers (verdict_mpi.c) --------------- */

/* The end of a solve whose reference ends with "not strictly dominant by
 * rows: a warning naming the weakest row; else LAPACK's residual ratio
 * >= 30: outside the domain" (tridsolver, hybrid_pcr): the halo exchange
 * and three reductions of tl_ledger_residual_verdict, then the batch's
 * status, the same on every rank. st holds the failures the rank noted;
 * x this rank's rows. Messages: "<name>: matrix is not strictly row
 * diagonally dominant (row R); <dd_why>"; else a warning the solver noted
 * (an approximate reduced solve); else tl_residual_check's with `why`.
 * fields (nsys, or NULL): iterations, dropped, tol and bound to report
 * per system. */
int tl_mpi_residual_verdict(tl_mpi_status *st, const tl_mpi_batch *sl, const void *x,
                            const char *name, const char *dd_why, const char *why,
                            const tl_info *fields, tl_info *info);
/* The same after the halo (tl_mpi_residual_halo or _halo_ends) and, for
 * a double batch, the verdict's pass over the slice (passes: nsys of
 * tl_cpu_residual_slices_pass_d's, or NULL to read the slice here) made
 * by the caller: a rank program that makes the pass as it writes x
 * (tridsolver_mpi, hybrid_pcr_mpi). */
int tl_mpi_residual_verdict_of(tl_mpi_status *st, const tl_mpi_batch *sl, const void *x,
                               const void *halo, const tl_residual_pass *passes, const char *name,
                               const char *dd_why, const char *why, const tl_info *fields,
                               tl_info *info);

/* Its pieces, for a verdict of another shape (nshaped_mpi.c):
 * "halo": x and the coupling entry at each end of the slice to that
 * neighbour; halo gets 4 scalars per system (x[begin-1], x[end],
 * c[begin-1], a[end]; zeros where a plain system has none).
 * "verdict" rounds 1 and 2: the residual ratio of the k systems
 * which[0..k) (NULL: 0..k-1), given each one's global max |x| and max
 * |A| (max, 2 per listed system), into ratio[0..k). */
int tl_mpi_residual_halo(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x, void *halo);
/* The same for the k systems which[0..k) only (2 k scalars each way;
 * NULL: 0..k-1): halo + 4 s for each listed s, the others untouched. A
 * verdict that measures the residual of some systems (its_mpi.c). */
int tl_mpi_residual_halo_of(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x,
                            const size_t *which, size_t k, void *halo);
/* The halo from x's end rows given before x is: xends holds x_0 and
 * x_{m-1} of system s at 2 s and 2 s + 1 (the same messages). */
int tl_mpi_residual_halo_ends(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *xends,
                              void *halo);
/* passes: NULL, or one per system of the batch (indexed by system, not
 * by its place in which) from tl_cpu_residual_slices_pass_d after the
 * halo: then a double slice is not read again unless its values are near
 * over- or underflow (tl_residual_slice_rescale). */
int tl_mpi_residual_ratios(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x,
                           const void *halo, const size_t *which, size_t k, double *max,
                           const tl_residual_pass *passes, double *ratio);

/* System s's row classes on this rank's rows (TL_CLASS_ROW_DD,
 * TL_CLASS_STRICT_DD: tl_cpu_row_classes_slice_d) and its weakest row
 * (the smallest margin / |b|, and its global row), for a verdict that
 * names the weakest row only for a matrix that is not strictly dominant
 * (ptdma, distd2). strict: a pass over these rows already found every
 * one strictly dominant (tl_lanes_margin_pos in the batched kernels);
 * then the rows are not read again, and the weakest is INFINITY, row
 * -1: the row the verdict names has a margin that is not positive, on
 * another rank, and this rank's (-inf, -1) pair never wins the
 * allreduce over it. */
unsigned tl_mpi_row_classes(const tl_mpi_batch *sl, size_t s, int strict, double *worst_rel,
                            long *worst_row);

/* ---- 3-D boxes (grid_mpi.c) ---------------------------------------- */

/* Copy the region (rb, rm) of a global 3-D array, elements of `words`
 * doubles, from src holding box (sb, sm) to dst holding box (db, dm);
 * both boxes must contain the region. Boxes are x fastest. A contiguous
 * buffer for the region is the box (rb, rm) itself. */
void tl_grid_copy_box(const double *src, const size_t sb[3], const size_t sm[3], double *dst,
                      const size_t db[3], const size_t dm[3], const size_t rb[3],
                      const size_t rm[3], size_t words);

/* ---- the agreed solve (solve_mpi.c) -------------------------------- */

/* tl_mpi_solve_timed, for a caller that has already checked something on
 * this rank: found < 0 (its report in info) counts as this rank's failed
 * check, so every rank agrees on it in the same collective instead of
 * this rank leaving the others waiting. */
int tl_mpi_solve_agreed(const tl_algorithm *algo, MPI_Comm comm, const tl_mpi_batch *local,
                        void *x, const tl_options *opt, tl_info *info, double *comm_seconds,
                        int found);

/* ---- the rank programs (one file each) ----------------------------- */

/* Every MPI descriptor's ledger model: its reference's (registry_mpi.c). */
int tl_mpi_ledger_model(const tl_algorithm *self, const tl_batch *shape, const tl_options *opt,
                        const tl_info *solved, tl_ledger *out);

extern const tl_algorithm tl_mpi_algo_pdd;
extern const tl_algorithm tl_mpi_algo_pdd_gpu;
extern const tl_algorithm tl_mpi_algo_rpdd;
/* distd2_mpi.c, ptdma_mpi.c, its_mpi.c */
extern const tl_algorithm tl_mpi_algo_distd2;
extern const tl_algorithm tl_mpi_algo_distd2_gpu;
extern const tl_algorithm tl_mpi_algo_ptdma;
extern const tl_algorithm tl_mpi_algo_its;
extern const tl_algorithm tl_mpi_algo_tridsolver; /* tridsolver_mpi.c */
extern const tl_algorithm tl_mpi_algo_hybrid_pcr; /* hybrid_pcr_mpi.c */
extern const tl_algorithm tl_mpi_algo_nshaped;    /* nshaped_mpi.c */
extern const tl_algorithm tl_mpi_algo_spike;      /* spike_mpi.c */
extern const tl_algorithm tl_mpi_algo_spike_dp;   /* spike_mpi.c */
extern const tl_algorithm tl_mpi_algo_spike_givens; /* spike_mpi.c */
#ifdef TL_HAVE_SCALAPACK
extern const tl_algorithm tl_mpi_algo_pddtsv;
#endif

/* ---- chunks for the x-line kernel (pdd_mpi.c, its_mpi.c) ---------- */

/* Systems of m rows per chunk when a rank feeds its slice to
 * tl_cpu_thomas_lines_d through a reused scratch: about 2^15 entries per
 * array (it stays in cache; nothing batch-sized is taken and first-touched
 * on every solve), a multiple of 16 systems (the kernel's SIMD groups are
 * 8 or 16), at least 16, at most nsys. */
static inline size_t tl_mpi_kernel_chunk(size_t m, size_t nsys)
{
  size_t chunk = m ? ((size_t)1 << 15) / m / 16 * 16 : 0;
  chunk = chunk < 16 ? 16 : chunk;
  return chunk > nsys ? nsys : chunk;
}

#endif
