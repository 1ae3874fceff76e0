/* tridlab/part_rpdd.h -- the phases of the reduced parallel diagonally
 * dominant algorithm (RPDD), simulated with P partitions.
 *
 * RPDD is PDD (tridlab/part_pdd.h) with the spikes truncated to their
 * first / last J entries and both interfaces of a partition solved by that
 * partition after ONE exchange with both neighbours. It shares PDD's state
 * (tl_pdd_part_d), messages (tl_pdd_edge_d) and building blocks. Calling
 * these in the order of tl_rpdd_ref_solve_d reproduces it bit for bit:
 *
 *   for each p:  tl_pdd_part_init_d, tl_rpdd_ref_local_d
 *   for each p:  tl_rpdd_ref_send_d          (edges to p-1 and p+1)
 *   for each p:  tl_rpdd_ref_interfaces_d    (both 2x2 systems)
 *   for each p:  tl_pdd_ref_correct_d
 *   once:        tl_pdd_ref_reduce_d(..., "rpdd", ...)
 */
#ifndef TRIDLAB_PART_RPDD_H
#define TRIDLAB_PART_RPDD_H

#include <stddef.h>

#include "tridlab/part_pdd.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Left spike, truncated: solve the leading k x k block of the local
 * matrix (arrays of m local rows, a[0] = the coupling entry alpha)
 *   T_k v = a[0] e_0,
 * with PDD's two sweeps, and store v[0..k) (v[k..m) = 0). k is the first
 * value in 1..kmax whose estimated first neglected entry
 *   eta(k) = |a[k]| |v_{k-1}| / (|b[k]| - |c[k]|)
 * is <= stop_tol, else kmax (stop_tol < 0: always kmax). *drop receives
 * eta(k), or |v_{m-1}| when k = m (the far entry PDD neglects). scratch:
 * m doubles. Returns -1, or the local row of a zero / non-finite pivot. */
long tl_rpdd_ref_spike_first_d(size_t m, const double *a, const double *b, const double *c,
                               size_t kmax, double stop_tol, double *v, size_t *k, double *drop,
                               double *scratch);
/* Right spike, truncated: the mirror image (bottom-up elimination of the
 * trailing k x k block, T_k w = c[m-1] e_{k-1}); w[m-k..m) is stored,
 * eta(k) = |c[m-1-k]| |w_{m-k}| / (|b[m-1-k]| - |a[m-1-k]|), and *drop is
 * |w_0| when k = m. */
long tl_rpdd_ref_spike_last_d(size_t m, const double *a, const double *b, const double *c,
                              size_t kmax, double stop_tol, double *w, size_t *k, double *drop,
                              double *scratch);

/* The phases take pointers to the partition's first row, as PDD's do.
 * Phase 1: y = A_p^{-1} d_p into x (m rows), and the truncated spikes:
 * J >= 1 computes exactly J entries of each (TL_ERR_ARG, arg "param", when
 * J > m); J = 0 chooses, per spike, the smallest length whose estimated
 * first neglected entry is <= tol (at most m). */
int tl_rpdd_ref_local_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                        const double *d, double *x, size_t J, double tol, tl_info *info);
/* Phase 1 after the local solve (tl_pdd_ref_local_y_d, or any solver of
 * A_p y = d_p): the truncated spikes and the bookkeeping, as
 * tl_rpdd_ref_local_d does them; J <= m; scratch: m doubles. */
int tl_rpdd_ref_spikes_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                         size_t J, double tol, double *scratch, tl_info *info);
/* All of it but the local margin (tl_pdd_bound_margin_d), for a rank
 * program that measures the margin with a batched kernel. */
int tl_rpdd_ref_spikes_drops_d(tl_pdd_part_d *pt, const double *a, const double *b,
                               const double *c, size_t J, double tol, double *scratch,
                               tl_info *info);

/* Phase 2: the edges to send (either pointer may be NULL; to_prev is only
 * written when p >= 1, to_next when p <= P-2). */
void tl_rpdd_ref_send_d(const tl_pdd_part_d *pt, const double *a, const double *c, const double *x,
                        tl_pdd_edge_d *to_prev, tl_pdd_edge_d *to_next);

/* Phase 3: with the edges received from p-1 (NULL when p = 0) and p+1
 * (NULL when p = P-1), solve both interface systems; sets pt->x_left and
 * pt->x_right. Neighbours solving the same interface get the same bits. */
int tl_rpdd_ref_interfaces_d(tl_pdd_part_d *pt, const double *a, const double *c, const double *x,
                             const tl_pdd_edge_d *from_prev, const tl_pdd_edge_d *from_next,
                             tl_info *info);

/* The whole solve of one system (part_sizes may be NULL). */
int tl_rpdd_ref_solve_d(size_t n, const double *a, const double *b, const double *c,
                        const double *d, double *x, int parts, const size_t *part_sizes, size_t J,
                        double tol, tl_ledger *ledger, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
