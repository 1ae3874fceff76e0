/* tridlab/part_pdd.h -- the phases of Sun's parallel diagonally dominant
 * algorithm (PDD), and the pieces the reduced variant (RPDD) shares.
 *
 * reference/pdd_ref.c simulates P partitions ("ranks") in one address
 * space. Every phase below acts on ONE partition's rows of a, b, c, d, x,
 * or on the explicit messages a rank would send to a neighbour
 * (tl_pdd_edge_d, tl_pdd_iface_d). Calling them in the order of
 * tl_pdd_ref_solve_d's body reproduces the one-call solve bit for bit:
 *
 *   for each p:      tl_pdd_part_init_d, tl_pdd_ref_local_d
 *   for p >= 1:      tl_pdd_ref_send_first_d   (message to p-1)
 *   for p <= P-2:    tl_pdd_ref_interface_d    (2x2 solve, message to p+1)
 *   for p >= 1:      tl_pdd_ref_receive_d
 *   for each p:      tl_pdd_ref_correct_d
 *   once:            tl_pdd_ref_reduce_d       (dropped, bound, status)
 *
 * Notation: row i reads a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i];
 * partition p owns rows [begin, end), m = end - begin; local row k is
 * global row begin + k. The phases take pointers to the partition's first
 * row (a + begin, ..., x + begin: m entries each, what an MPI rank holds);
 * begin only labels global rows in reports. Real double only.
 *
 * Messages (the ledger, tridlab/ledger.h), per system: first-row, p to
 * p-1, TL_PDD_EDGE_WORDS; interface, p to p+1, TL_PDD_IFACE_WORDS; the
 * verdict, two allreduces of TL_PDD_VERDICT_WORDS0 and _WORDS1 words.
 */
#ifndef TRIDLAB_PART_PDD_H
#define TRIDLAB_PART_PDD_H

#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/registry.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Words per system of PDD's messages: an edge (y, s, coupling), the
 * solved interface (x_last, coupling), and the two rounds of the verdict:
 * (value, row) pairs of the status, the dropped entry, the margin and |x|;
 * then of the two tail terms of the bound. */
#define TL_PDD_EDGE_WORDS 3
#define TL_PDD_IFACE_WORDS 2
#define TL_PDD_VERDICT_WORDS0 8
#define TL_PDD_VERDICT_WORDS1 4

/* The state of one partition. */
typedef struct tl_pdd_part_d {
  /* Set by tl_pdd_part_init_d. */
  int p, parts;            /* this partition and P                        */
  size_t n, begin, end, m; /* rows [begin, end) of n, m = end - begin     */
  double *v;               /* left spike  A_p v = a[begin] e_0, m entries */
  double *w;               /* right spike A_p w = c[end-1] e_{m-1}        */
  /* Set by the local phase. */
  size_t kv, kw; /* v is computed on local rows [0, kv), w on
                    [m - kw, m); the rest is 0. kv = 0 when
                    p = 0 (no left neighbour), kw = 0 when
                    p = P-1. PDD: kv = kw = m.                  */
  /* Set by the interface phases. */
  double x_left;  /* x[begin-1] (0 when p = 0)                   */
  double x_right; /* x[end] (0 when p = P-1)                     */
  /* Set by the correction phase. */
  double xmax; /* max |x| over own rows                      */
  /* Error-bound bookkeeping (reference/spike_bound.c), not the algorithm:
   * set by tl_pdd_bound_local_d (RPDD: and its truncation) after the local
   * phase, the tail couplings of whole spikes by the messages. */
  double drop_v, drop_w; /* size of the spike entries neglected at each
                            end (docs/algorithms/pdd.md, "dropped")     */
  double tail_coef_v;    /* |coupling entry| that multiplies the first
                            neglected entry of v: |a[begin+kv]|; when
                            kv = m it is the next partition's a[end],
                            learned from its message                   */
  double tail_coef_w;    /* |c[end-1-kw]|, or |c[begin-1]| when kw = m  */
  double margin;         /* min over own rows of |b| - |a| - |c|        */
  long margin_row;       /* global row of that minimum                  */
  int spikes_lent;       /* 1: v, w are the caller's memory (init_in)   */
} tl_pdd_part_d;

/* What a rank sends to a neighbour about the boundary row next to it. */
typedef struct tl_pdd_edge_d {
  double y;        /* local solution at that row: y_0 or y_{m-1}             */
  double s;        /* spike at that row: v_0 (first row) or w_{m-1} (last)   */
  double coupling; /* the row's entry into the neighbour: a[begin] or c[end-1] */
} tl_pdd_edge_d;

/* PDD's second message, from p (which solved interface p|p+1) to p+1. */
typedef struct tl_pdd_iface_d {
  double x_last;   /* x[end-1] of partition p, from the 2x2 system            */
  double coupling; /* c[end-1] of partition p                                 */
} tl_pdd_iface_d;

/* Bounds, spike storage (2m doubles). opt-like arguments: part_sizes may
 * be NULL (even split, tl_partition_bounds). TL_ERR_NOMEM on failure. */
int tl_pdd_part_init_d(tl_pdd_part_d *pt, size_t n, int parts, const size_t *part_sizes, int p,
                       tl_info *info);
/* The same with the spikes v, w in the caller's memory `spikes` (2 m
 * values: v, then w), which tl_pdd_part_free_d leaves alone: an MPI rank
 * keeps one block for the spikes of a whole batch between solves. */
int tl_pdd_part_init_in_d(tl_pdd_part_d *pt, size_t n, int parts, const size_t *part_sizes, int p,
                          double *spikes, tl_info *info);
void tl_pdd_part_free_d(tl_pdd_part_d *pt);

/* ---- building blocks (shared with RPDD) ---------------------------- */

/* The spikes by elimination without pivoting, each split in its two
 * sweeps so that RPDD can stop after any row (part_rpdd.h). Arrays are
 * the partition's m local rows, a[0] = the coupling alpha, c[m-1] = gamma.
 * Left spike A_p v = a[0] e_0: the forward sweep over local rows [i0, i1)
 * (in order, starting at 0) leaves the forward values in v and the
 * multipliers in cp (m doubles); the back substitution over the leading
 * k rows turns them into the spike of the leading k x k block (k = m:
 * PDD's whole spike). The forward sweeps return -1, or the local row of
 * a zero or non-finite pivot. */
long tl_pdd_ref_spike_first_fwd_d(size_t m, const double *a, const double *b, const double *c,
                                  size_t i0, size_t i1, double *v, double *cp);
void tl_pdd_ref_spike_first_back_d(size_t k, double *v, const double *cp);
/* Right spike A_p w = c[m-1] e_{m-1}, the mirror image: the forward sweep
 * runs bottom-up over t = m-1-i in [t0, t1), the back substitution over
 * the trailing k rows. */
long tl_pdd_ref_spike_last_fwd_d(size_t m, const double *a, const double *b, const double *c,
                                 size_t t0, size_t t1, double *w, double *ap);
void tl_pdd_ref_spike_last_back_d(size_t m, size_t k, double *w, const double *ap);

/* y = A_p^{-1} d_p into x (the partition's m rows; Thomas, which never
 * reads the couplings), then m doubles of scratch for the spike sweeps
 * into *scratch (the caller frees them). TL_ERR_BREAKDOWN (global row) on
 * a zero or non-finite pivot, TL_ERR_NOMEM. */
int tl_pdd_ref_local_y_d(const tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                         const double *d, double *x, double **scratch, tl_info *info);
/* The report of a spike elimination that broke down at local row `row`:
 * TL_ERR_BREAKDOWN with the global row. */
int tl_pdd_ref_spike_breakdown_d(const tl_pdd_part_d *pt, long row, tl_info *info);

/* The message about the first row (to p-1; p >= 1) and the last row (to
 * p+1; p <= P-2), after the local phase. */
void tl_pdd_ref_send_first_d(const tl_pdd_part_d *pt, const double *a, const double *x,
                             tl_pdd_edge_d *to_prev);
void tl_pdd_ref_send_last_d(const tl_pdd_part_d *pt, const double *c, const double *x,
                            tl_pdd_edge_d *to_next);

/* The 2x2 interface system between the last row of a left partition and
 * the first row of a right one, with the far spike entries dropped:
 *   | 1      w_last | |x_last |   |y_last |
 *   | v_first 1     | |x_first| = |y_first|
 * Deterministic: both neighbours get the same bits from the same edges.
 * Returns 0, or -1 when the determinant 1 - w_last v_first is zero or a
 * result is not finite. */
int tl_pdd_ref_solve2_d(const tl_pdd_edge_d *left_last, const tl_pdd_edge_d *right_first,
                        double *x_last, double *x_first);

/* Correction: x = y - v x_left - w x_right on own rows (only where the
 * spikes were computed); records pt->xmax. TL_ERR_BREAKDOWN on a
 * non-finite result. */
int tl_pdd_ref_correct_d(tl_pdd_part_d *pt, double *x, tl_info *info);

/* ---- the error-bound bookkeeping (reference/spike_bound.c) ----------- */

/* Not part of the algorithm: what the dropped spike entries leave out, for
 * info->dropped and info->bound. After the local phase (whole spikes; RPDD
 * then records its truncated ones): drop_v, drop_w, the margin; tail
 * couplings reset. */
void tl_pdd_bound_local_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c);
/* Its two halves: the entries dropped and the tails reset; the margin
 * (a rank program measures the margin with a batched kernel,
 * tl_cpu_pdd_margin_d, and calls this where that declines). */
void tl_pdd_bound_drops_d(tl_pdd_part_d *pt);
void tl_pdd_bound_margin_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c);
/* When a whole spike's far entry is dropped, the coupling entry that
 * multiplies it belongs to the neighbour and arrives with its message:
 * from p+1 (a[end]) and from p-1 (c[begin-1]). */
void tl_pdd_bound_from_next_d(tl_pdd_part_d *pt, double coupling);
void tl_pdd_bound_from_prev_d(tl_pdd_part_d *pt, double coupling);

/* The verdict: the numbers every partition contributes, combined over
 * the partitions by "largest; on a tie, the smallest row" (an allreduce
 * under MPI; the order of combining does not matter). */
typedef struct tl_pdd_verdict_d {
  double dropped;
  long drop_row; /* largest dropped entry and its row     */
  double neg_mu;
  long mu_row;   /* minus the smallest margin, its row    */
  double xmax;   /* largest |x|                            */
  double rv, rw; /* round 1: the two tail terms of the bound */
} tl_pdd_verdict_d;
void tl_pdd_verdict_init_d(tl_pdd_verdict_d *v);
/* Round 0: partition p's dropped entries, margin and |x| into v. */
void tl_pdd_ref_verdict_part0_d(const tl_pdd_part_d *pt, tl_pdd_verdict_d *v);
/* Round 1: its tail terms, with the global margin and |x| of round 0. */
void tl_pdd_ref_verdict_part1_d(const tl_pdd_part_d *pt, tl_pdd_verdict_d *v);
/* From the combined numbers: info->dropped = the largest dropped entry,
 * info->tol = tol, info->bound = the ||x - x_exact||_inf / ||x||_inf bound
 * (exact arithmetic, see the docs; 0 when the matrix is not strictly
 * dominant). TL_OK, or TL_OUTSIDE_DOMAIN when the matrix is not strictly
 * diagonally dominant by rows or dropped > tol. `name` prefixes the
 * message. */
int tl_pdd_ref_verdict_d(const tl_pdd_verdict_d *v, double tol, const char *name, tl_info *info);

/* The whole reduction of the simulated partitions: both rounds, recorded
 * in ledger (may be NULL) as two allreduces, then the verdict. */
int tl_pdd_ref_reduce_d(const tl_pdd_part_d *parts, int P, double tol, const char *name,
                        tl_ledger *ledger, tl_info *info);
/* The verdict's two reductions in a ledger model (PDD and RPDD). */
void tl_pdd_ledger_verdict(tl_ledger *out, int P, size_t nsys);

/* ---- PDD's own phases (paper 000 Algorithm 4, Sun's two one-way steps) */

/* Phase 1: A_p [y v w] = [d_p, a[begin] e_0, c[end-1] e_{m-1}], full spikes. */
int tl_pdd_ref_local_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                       const double *d, double *x, tl_info *info);
/* The lengths of PDD's spikes that phase 1 computes: kv = m when p has a
 * left neighbour, kw = m when it has a right one, else 0. */
void tl_pdd_ref_spike_lengths_d(tl_pdd_part_d *pt);
/* The state phase 1 leaves (tl_pdd_ref_local_d, then
 * tl_pdd_bound_local_d), from a phase 1 computed elsewhere -- a GPU
 * kernel's: the spikes v and w (m values each, copied), the spike
 * lengths, bound = {drop_v, drop_w, margin} and the margin's global row;
 * the tail couplings reset. */
void tl_pdd_ref_local_taken_d(tl_pdd_part_d *pt, const double *v, const double *w,
                              const double bound[3], long margin_row);
/* The same from a phase 1 that kept the spikes where it ran (the GPU's
 * resident slices: pdd_gpu_mpi): only their ends, spike_ends = v_0,
 * v_{m-1}, w_0, w_{m-1}, are set here (what the messages, the 2x2
 * systems and the bound read); the correction then runs there too. */
void tl_pdd_ref_local_ends_taken_d(tl_pdd_part_d *pt, const double spike_ends[4],
                                   const double bound[3], long margin_row);
/* Phase 3 (p <= P-2): receive the first-row edge of p+1, solve interface
 * p|p+1, keep x[end] (pt->x_right), write the message to p+1. */
int tl_pdd_ref_interface_d(tl_pdd_part_d *pt, const double *c, const double *x,
                           const tl_pdd_edge_d *from_next, tl_pdd_iface_d *to_next, tl_info *info);
/* Phase 4 (p >= 1): take x[begin-1] from p-1's message. */
void tl_pdd_ref_receive_d(tl_pdd_part_d *pt, const tl_pdd_iface_d *from_prev);

/* Phases 2-6 of the P simulated partitions of one system after their
 * local phase (wherever it ran: a GPU backend runs it on the device):
 * the first rows up, the interfaces, x[begin-1] down, the correction of
 * x (which holds y), the verdict; messages recorded in ledger (may be
 * NULL); `name` prefixes the messages. */
int tl_pdd_ref_exchange_d(tl_pdd_part_d *pt, int P, const double *a, const double *c, double *x,
                          double tol, const char *name, tl_ledger *ledger, tl_info *info);
/* The whole solve of one system with P partitions (part_sizes may be NULL),
 * calling exactly the phases above. */
int tl_pdd_ref_solve_d(size_t n, const double *a, const double *b, const double *c, const double *d,
                       double *x, int parts, const size_t *part_sizes, double tol,
                       tl_ledger *ledger, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
