/* tridlab/part_tridsolver.h -- the phases of the Tridsolver distributed
 * solver (registry name "tridsolver"), one partition ("rank") at a time.
 *
 * Source: paper 002 (Tridsolver) Algorithm 6 (forward_sweep, one reduced
 * row per partition), Algorithm 5 (Jacobi) and section "Distributed
 * memory algorithms" (reduced-system strategies allgather, gather-scatter,
 * PCR, Jacobi). reference/tridsolver_ref.c explains the method.
 *
 * A partition owns m >= 2 rows [begin, begin + m). Phases, in order:
 *   1. tl_tridsolver_forward      local (Algorithm 6)
 *   2. tl_tridsolver_last_row     local: 3 words sent to rank p+1
 *   3. tl_tridsolver_reduced_row  local, with the 3 words received from
 *                                 rank p-1: this rank's reduced row (4 words)
 *   4. one strategy on the P reduced rows (4P words, rank after rank),
 *      giving F[p] = x[begin_p], the first unknown of every partition:
 *      tl_tridsolver_allgather, tl_tridsolver_gather_scatter,
 *      tl_tridsolver_pcr (steps: tl_tridsolver_pcr_step) or
 *      tl_tridsolver_jacobi (sweeps: tl_tridsolver_jacobi_update)
 *   5. tl_tridsolver_backward     local, with F[p] and F[p+1] (1 word
 *                                 received from rank p+1)
 * Local pointers point at the partition's first row; begin only labels
 * global rows in messages. has_left / has_right: whether a neighbour
 * exists (without one, a[begin] / c[begin+m-1] are corners, never read).
 */
#ifndef TRIDLAB_PART_TRIDSOLVER_H
#define TRIDLAB_PART_TRIDSOLVER_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reduced-system strategies: the index of the choice "reduced". */
enum { TL_TRIDSOLVER_ALLGATHER, TL_TRIDSOLVER_GATHER_SCATTER, TL_TRIDSOLVER_PCR,
       TL_TRIDSOLVER_JACOBI };

/* Phase 1 (Algorithm 6). Afterwards (local numbering, x_{-1}, x_m the
 * neighbours' unknowns):
 *   row 0:        as[0] x_{-1} + x_0 + cs[0] x_{m-1} = ds[0]
 *   rows 1..m-1:  as[i] x_0 + x_i + cs[i] x_{i+1} = ds[i]
 * TL_ERR_ARG for m < 2, TL_ERR_BREAKDOWN (global row) on a zero pivot. */
int tl_tridsolver_forward_d(size_t begin, size_t m, int has_left, int has_right, const double *a,
                            const double *b, const double *c, const double *d, double *as,
                            double *cs, double *ds, tl_info *info);
int tl_tridsolver_forward_z(size_t begin, size_t m, int has_left, int has_right,
                            const double complex *a, const double complex *b,
                            const double complex *c, const double complex *d, double complex *as,
                            double complex *cs, double complex *ds, tl_info *info);

/* Phase 2: send = {as[m-1], cs[m-1], ds[m-1]}. */
void tl_tridsolver_last_row_d(size_t m, const double *as, const double *cs, const double *ds,
                              double send[3]);
void tl_tridsolver_last_row_z(size_t m, const double complex *as, const double complex *cs,
                              const double complex *ds, double complex send[3]);

/* Phase 3: row = {A, B, C, D} of the reduced row
 * A F[p-1] + B F[p] + C F[p+1] = D; prev = rank p-1's last row (NULL for p = 0). */
void tl_tridsolver_reduced_row_d(size_t m, const double *as, const double *cs, const double *ds,
                                 const double *prev, double row[4]);
void tl_tridsolver_reduced_row_z(size_t m, const double complex *as, const double complex *cs,
                                 const double complex *ds, const double complex *prev,
                                 double complex row[4]);

/* Phase 4, exact strategies: rows (4P) -> F (P). work: 4P scratch words
 * (the gathered copy). TL_ERR_BREAKDOWN with the reduced row (= partition). */
int tl_tridsolver_allgather_d(int parts, const double *rows, double *work, double *F,
                              tl_info *info);
int tl_tridsolver_allgather_z(int parts, const double complex *rows, double complex *work,
                              double complex *F, tl_info *info);
int tl_tridsolver_gather_scatter_d(int parts, const double *rows, double *work, double *F,
                                   tl_info *info);
int tl_tridsolver_gather_scatter_z(int parts, const double complex *rows, double complex *work,
                                   double complex *F, tl_info *info);
/* One PCR step on one rank at stride s: left / right are the rows received
 * from ranks p-s / p+s (NULL when absent). Returns 0, or -1 on a zero or
 * non-finite divisor. */
int tl_tridsolver_pcr_step_d(const double self[4], const double *left, const double *right,
                             double out[4]);
int tl_tridsolver_pcr_step_z(const double complex self[4], const double complex *left,
                             const double complex *right, double complex out[4]);
int tl_tridsolver_pcr_d(int parts, const double *rows, double *work, double *F, tl_info *info);
int tl_tridsolver_pcr_z(int parts, const double complex *rows, double complex *work,
                        double complex *F, tl_info *info);

/* Phase 4, Jacobi (Algorithm 5): one rank's update from its neighbours'
 * old values (0 when absent). */
double tl_tridsolver_jacobi_update_d(const double row[4], double left, double right);
double complex tl_tridsolver_jacobi_update_z(const double complex row[4], double complex left,
                                             double complex right);
/* iters > 0: the result of iters sweeps, stopping early once a sweep
 * leaves F unchanged bit for bit, or a second sweep brings it back (the
 * remaining sweeps would repeat themselves), or F is no longer finite;
 * info->iterations counts the sweeps run. iters = 0: until dropped <= tol,
 * at most maxit sweeps. dropped = ||r||_inf / (||R||_inf ||F||_inf), r = D - R F
 * the reduced residual; bound = dropped ||R||_inf / margin (margin =
 * min_p |B_p| - |A_p| - |C_p|) bounds ||x - x_exact||_inf / ||x||_inf when
 * A is strictly row diagonally dominant.
 * work: 2P scratch words. Sets info->iterations, dropped, tol, bound.
 * TL_ERR_NOT_CONVERGED (limit, stagnation, divergence); TL_OUTSIDE_DOMAIN
 * when a fixed count leaves dropped > tol. */
int tl_tridsolver_jacobi_d(int parts, const double *rows, double *work, double *F, long iters,
                           double tol, long maxit, tl_info *info);
int tl_tridsolver_jacobi_z(int parts, const double complex *rows, double complex *work,
                           double complex *F, long iters, double tol, long maxit, tl_info *info);

/* Phase 5: x_0 = first, x_{m-1} = ds - as first - cs next_first, then
 * x_i = ds[i] - as[i] first - cs[i] x_{i+1} down to i = 1. */
int tl_tridsolver_backward_d(size_t begin, size_t m, const double *as, const double *cs,
                             const double *ds, double first, double next_first, double *x,
                             tl_info *info);
int tl_tridsolver_backward_z(size_t begin, size_t m, const double complex *as,
                             const double complex *cs, const double complex *ds,
                             double complex first, double complex next_first, double complex *x,
                             tl_info *info);

/* After the last PCR step the row couples nothing: F = D / B. Returns 0,
 * or -1 on a zero or non-finite B. */
int tl_tridsolver_pcr_unknown_d(const double row[4], double *F);
int tl_tridsolver_pcr_unknown_z(const double complex row[4], double complex *F);
/* The report of a PCR breakdown at reduced row p (stride 0: the last
 * division). Returns TL_ERR_BREAKDOWN. */
int tl_tridsolver_pcr_breakdown(tl_info *info, size_t p, size_t stride);
/* A reduced-solve failure names partition p in info->row: make it the
 * matrix row of F[p], begin_p, and say so in the message. */
void tl_tridsolver_name_row(tl_info *info, size_t n, int parts, const size_t *part_sizes);

/* Jacobi's pieces, for a rank that holds one reduced row (the MPI rank
 * program): |r_p| of its row at the iterate (left, F, right); its
 * margin |B| - |A| - |C| and norm |B| + |A| + |C|; the reference's
 * maxima (a NaN residual counts as infinity, a NaN |F| not at all);
 * dropped from the global maxima; the report of a zero diagonal; and the
 * status of the finished iteration (bad: the first partition whose F is
 * not finite, or -1), which also sets info's iterations, dropped, tol,
 * bound. */
double tl_tridsolver_jacobi_residual_d(const double row[4], double left, double F, double right,
                                       int has_left, int has_right);
double tl_tridsolver_jacobi_residual_z(const double complex row[4], double complex left,
                                       double complex F, double complex right, int has_left,
                                       int has_right);
void tl_tridsolver_jacobi_row_d(const double row[4], int has_left, int has_right, double *margin,
                                double *norm);
void tl_tridsolver_jacobi_row_z(const double complex row[4], int has_left, int has_right,
                                double *margin, double *norm);
void tl_tridsolver_jacobi_max(double *rmax, double *fmax, double r, double f);
double tl_tridsolver_jacobi_dropped(double rmax, double fmax, double rnorm);
int tl_tridsolver_jacobi_breakdown(tl_info *info, size_t p);
int tl_tridsolver_jacobi_status(long it, long iters, long maxit, double dropped, double tol,
                                double margin, double rnorm, long bad, tl_info *info);

/* Sweeps without a new smallest dropped that count as stagnation. */
#define TL_TRIDSOLVER_STALL 200

/* Numbers per system in each of Jacobi's tests across ranks (one
 * allreduce per sweep, docs/algorithms/tridsolver.md). */
#define TL_TRIDSOLVER_TEST_WORDS 6

/* The ledger of phase 4 for P ranks and nsys systems of w words a
 * scalar: allgather of 4 w ("reduced"); gather of 4 w and scatter of
 * 2 w ("reduced", "solution"); PCR's rows of 4 w to p - 2^l and p + 2^l
 * ("pcr", round l) and F[p] to rank p-1 ("next-first", w); Jacobi's
 * rounds 0..sweeps of F to both neighbours ("jacobi", w) and a test
 * ("jacobi-test", an allreduce of TL_TRIDSOLVER_TEST_WORDS), each
 * times nsys; every round is round0 + r (a mini-batch's rounds). */
void tl_tridsolver_ledger_reduced(tl_ledger *ledger, int strategy, int P, size_t nsys, size_t w,
                                  long sweeps, int round0);
/* Rounds of one mini-batch: mini-batch i's messages (minibatch = K) are
 * recorded at rounds TL_TRIDSOLVER_ROUNDS i + r (PCR needs r < 17). */
#define TL_TRIDSOLVER_ROUNDS 32

/* All phases for one non-periodic system. strategy: TL_TRIDSOLVER_*.
 * A failure of the reduced solve (phase 4) names the matrix row of its
 * reduced unknown: info->row = begin_p, the first row of partition p. */
int tl_tridsolver_ref_d(size_t n, int parts, const size_t *part_sizes, int strategy, long iters,
                        double tol, long maxit, const double *a, const double *b, const double *c,
                        const double *d, double *x, tl_info *info);
int tl_tridsolver_ref_z(size_t n, int parts, const size_t *part_sizes, int strategy, long iters,
                        double tol, long maxit, const double complex *a, const double complex *b,
                        const double complex *c, const double complex *d, double complex *x,
                        tl_info *info);

/* The same, recording in ledger (may be NULL) what the P ranks would
 * exchange (docs/algorithms/tridsolver.md, "MPI"). */
int tl_tridsolver_ref_ledger_d(size_t n, int parts, const size_t *part_sizes, int strategy,
                               long iters, double tol, long maxit, const double *a, const double *b,
                               const double *c, const double *d, double *x, tl_ledger *ledger,
                               tl_info *info);
int tl_tridsolver_ref_ledger_z(size_t n, int parts, const size_t *part_sizes, int strategy,
                               long iters, double tol, long maxit, const double complex *a,
                               const double complex *b, const double complex *c,
                               const double complex *d, double complex *x, tl_ledger *ledger,
                               tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
