/* tridlab/part_distd2.h -- the phases of DistD2 (paper 000 (DistD2-TDS) §4.2).
 *
 * DistD2 splits one diagonally dominant system over P partitions
 * ("ranks"), decouples every partition from its interior with a modified
 * Thomas pass, drops the reduced-system entries that couple a partition's
 * first and last unknowns (they decay like the partition's spikes and are
 * below rounding for a strongly enough dominant matrix), and so is left
 * with independent 2x2 systems across the partition interfaces (plus one
 * corner 2x2 between the last and the first partition). It is APPROXIMATE:
 * the solve reports what it dropped (tl_info.dropped) and a bound on the
 * error it causes (tl_info.bound); see docs/algorithms/distd2.md.
 *
 * Phases, in the order tl_distd2_plan_solve_d calls them:
 *
 *   tl_distd2_plan_create_d   all partitions: Algorithm 5 (preprocessing),
 *                             once per matrix (calls tl_distd2_preprocess_d)
 *   tl_distd2_decouple_d      partition p: Algorithm 6, general d
 *   tl_distd2_decouple_stencil_d   the same with the compact-scheme
 *                             right-hand side fused into the forward pass
 *                             (needs tl_distd2_halo_d: 2 values each side)
 *   tl_distd2_pack_d          partition p: its first and last rows, the
 *                             only data it sends (to partitions p-1, p+1)
 *   tl_distd2_interface_d     one 2x2 system across an interface
 *   tl_distd2_substitute_d    partition p: Algorithm 7
 *
 * Arrays a, b, c, d, u, x hold the plan's rows (length plan->n); a phase
 * for partition p reads and writes only the rows [begin_p, end_p) it owns
 * (plan->begin[p], plan->begin[p+1]). A whole plan holds the whole
 * system; a slice plan (tl_distd2_plan_slice_d) holds one partition's
 * rows alone -- what an MPI rank holds -- and its phases are called with
 * p = 0. Non-periodic plans never read the system's corners a[0] and
 * c[n-1]. Every partition needs at least 2 rows.
 */
#ifndef TRIDLAB_PART_DISTD2_H
#define TRIDLAB_PART_DISTD2_H

#include <stddef.h>

#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default tolerance on the dropped coupling: 2 eps = 2^-52. */
#define TL_DISTD2_DEFAULT_TOL 0x1p-52

/* The preprocessed matrix (Algorithm 5) for P partitions. After it, row k
 * of partition p (local j = k - begin[p], m rows) reads
 *   j = 0:         sa[k] x[begin-1] + x[k] + sc[k] x[end-1]  = d'[k]
 *   0 < j < m-1:   sa[k] x[begin]   + x[k] + sc[k] x[end-1]  = d'[k]
 *   j = m-1:       sa[k] x[begin]   + x[k] + sc[k] x[end]    = d'[k]
 * (indices outside 0..n-1 wrap for a periodic plan). fwd_scale, fwd_mul,
 * bwd_mul and fix_scale are what Algorithm 6 needs to turn d into d'. */
typedef struct tl_distd2_plan {
  size_t n;          /* rows of the system                                */
  int parts;         /* P                                                 */
  int periodic;      /* 1: cyclic system, a[0] and c[n-1] are read        */
  size_t *begin;     /* P + 1 partition bounds; partition p: [begin[p], begin[p+1]) */
  double *sa, *sc;   /* paper's s^a, s^c: the spike coefficients (n each)  */
  double *fwd_scale; /* paper's f_j: 1 / pivot of the forward pass (n)    */
  double *fwd_mul;   /* paper's r_j: a_j, multiplier of d'_{j-1} (n)       */
  double *bwd_mul;   /* paper's w_j: multiplier of d'_{j+1} backwards (n)  */
  double *fix_scale; /* paper's w_1 of line 18: 1/(1 - s^c_1 s^a_2), per partition (P) */
  double spike;      /* max over interior rows of |sa| + |sc| (<= 1 when dominant) */
  unsigned classes;  /* tl_class bits of the matrix (tl_classes_d)        */
  long worst_row;    /* row of the smallest dominance margin              */
  /* Where the plan's rows sit in the whole system. A whole plan holds all
   * n rows (row0 = 0, n_total = n); a slice plan (tl_distd2_plan_slice_d)
   * holds ONE partition's m rows alone, as an MPI rank does (n = m,
   * parts = 1), and needs them to find the system's true ends (the
   * corners of a plain system) and to name global rows in reports. */
  size_t row0;      /* global row of the plan's row 0                    */
  size_t n_total;   /* rows of the whole system                          */
  double worst_rel; /* slice plans: the smallest margin / |b| of its rows
                       (classes: TL_CLASS_ROW_DD, TL_CLASS_STRICT_DD of
                       its rows only; a distributed verdict reduces them;
                       distd2_mpi leaves it INFINITY, worst_row -1, where
                       every row is strictly dominant: not needed) */
  int rows_lent;    /* 1: sa .. bwd_mul are the caller's memory (plan_slice_in) */
} tl_distd2_plan;

/* Words per system of DistD2's messages (docs/ledger.md): a boundary row
 * (its coupling, its dropped entry, its right-hand side) to each
 * neighbour, and the verdict's allreduce of 6 (value, row) pairs:
 * status, dropped, kappa, spike, worst margin, strictness. */
#define TL_DISTD2_EDGE_WORDS 3
#define TL_DISTD2_VERDICT_WORDS 12

/* What partition p sends: its first row to partition p-1 and its last
 * row to partition p+1 (after Algorithm 6). Each row has a unit diagonal. */
typedef struct tl_distd2_edge {
  double first_lower; /* sa of the first row: couples to x[begin-1] (previous partition) */
  double first_upper; /* sc of the first row: couples to x[end-1] (own; dropped if P > 1) */
  double first_rhs;   /* d' of the first row                                 */
  double last_lower;  /* sa of the last row: couples to x[begin] (own; dropped if P > 1)  */
  double last_upper;  /* sc of the last row: couples to x[end] (next partition)           */
  double last_rhs;    /* d' of the last row                                  */
} tl_distd2_edge;

/* Allocate a plan for n rows split in `parts` partitions (part_sizes NULL:
 * as even as possible, else `parts` sizes summing to n) and run Algorithm 5
 * on every partition. TL_ERR_ARG for bad sizes (a partition below 2
 * rows), TL_ERR_BREAKDOWN (with the global row) for a zero or non-finite
 * pivot, TL_ERR_NOMEM. On failure the plan is left empty (destroy is safe). */
int tl_distd2_plan_create_d(tl_distd2_plan *plan, size_t n, int periodic, int parts,
                            const size_t *part_sizes, const double *a, const double *b,
                            const double *c, tl_info *info);
void tl_distd2_plan_destroy(tl_distd2_plan *plan);

/* A plan of ONE partition held alone: rows [row0, row0 + m) of an
 * n_total-row system, a, b, c pointing at row row0 (m entries each), as
 * an MPI rank holds them. Algorithm 5 on them (the same code as a whole
 * plan's partition), row classes of these rows only, reports naming
 * global rows. The phases below take it with p = 0. m >= 2. */
int tl_distd2_plan_slice_d(tl_distd2_plan *plan, size_t n_total, int periodic, size_t row0,
                           size_t m, const double *a, const double *b, const double *c,
                           tl_info *info);

/* The same with the five arrays of m rows (sa, sc, fwd_scale, fwd_mul,
 * bwd_mul) in the caller's memory `rows` (5 m values), which
 * tl_distd2_plan_destroy leaves alone: a rank keeps one block for the
 * plans of a whole batch from one solve to the next. */
int tl_distd2_plan_slice_in_d(tl_distd2_plan *plan, size_t n_total, int periodic, size_t row0,
                              size_t m, const double *a, const double *b, const double *c,
                              double *rows, tl_info *info);

/* tl_distd2_plan_slice_in_d in its three steps, for a caller that runs
 * Algorithm 5 on many slices at once (optimized/cpu/distd2_lines_cpu.c):
 * the plan's memory and fields without its rows (shell; `rows` may be
 * NULL, then the plan allocates them), Algorithm 5
 * (tl_distd2_preprocess_d with p = 0, or the batched kernel), and the
 * row classes of its rows (classes). */
int tl_distd2_plan_slice_shell_d(tl_distd2_plan *plan, size_t n_total, int periodic, size_t row0,
                                 size_t m, double *rows, tl_info *info);
void tl_distd2_plan_slice_classes_d(tl_distd2_plan *plan, const double *a, const double *b,
                                    const double *c);

/* Algorithm 5 on partition p of an allocated plan (begin[] filled). */
int tl_distd2_preprocess_d(tl_distd2_plan *plan, int p, const double *a, const double *b,
                           const double *c, tl_info *info);

/* Algorithm 6, general right-hand side: d' of partition p's rows into dt. */
int tl_distd2_decouple_d(const tl_distd2_plan *plan, int p, const double *d, double *dt,
                         tl_info *info);

/* The compact-scheme right-hand side with a 5-point stencil
 *   d[i] = st[0] u[i-2] + st[1] u[i-1] + st[2] u[i] + st[3] u[i+1] + st[4] u[i+2],
 * indices wrapping when periodic, u = 0 outside 0..n-1 otherwise.
 * Lele's 6th-order first derivative on a grid of spacing h (paper 000
 * eq. (2)): st = {-b/(4h), -a/(2h), 0, a/(2h), b/(4h)}, a = 14/9, b = 1/9,
 * with the matrix [1/3, 1, 1/3]. */
void tl_distd2_stencil_rhs_d(size_t n, int periodic, const double st[5], const double *u,
                             double *d);
/* The halo of partition p: uh[j + 2] = u[begin + j] for j = -2 .. m+1
 * (m + 4 values; wrapping or zero as above): what a rank receives from
 * its neighbours before the fused pass. */
void tl_distd2_halo_d(const tl_distd2_plan *plan, int p, const double *u, double *uh);
/* Algorithm 6 with the stencil fused into the forward pass: reads the
 * halo uh of partition p (tl_distd2_halo_d), writes d' of its rows. */
int tl_distd2_decouple_stencil_d(const tl_distd2_plan *plan, int p, const double st[5],
                                 const double *uh, double *dt, tl_info *info);

/* The partitions p sends its first row to (*prev) and its last row to
 * (*next) for the 2x2 systems: p-1 and p+1, around the ring when
 * periodic; -1 for none (the ends of a plain system, and P = 1, whose
 * 2x2 is its own). */
void tl_distd2_neighbours(int P, int periodic, int p, int *prev, int *next);

/* Copy partition p's first and last rows of the decoupled system. */
void tl_distd2_pack_d(const tl_distd2_plan *plan, int p, const double *dt, tl_distd2_edge *edge);

/* The 2x2 system across the interface between partition `left`'s last
 * unknown and partition `right`'s first unknown (right = left + 1, or
 * the corner: left = P-1, right = 0):
 *   | 1     alpha | | x_last  |   | left->last_rhs   |
 *   | beta  1     | | x_first | = | right->first_rhs |
 * alpha = left->last_upper, beta = right->first_lower. same = 1 (P = 1,
 * left and right are one partition) keeps the partition's own coupling:
 * alpha += last_lower, beta += first_upper, and the 2x2 is exact;
 * otherwise those two entries are DROPPED. *dropped receives the larger
 * of their moduli (0 when same), *kappa the inf-norm of the 2x2 inverse.
 * row: global row of x_last, for a breakdown report (singular 2x2). */
int tl_distd2_interface_d(const tl_distd2_edge *left, const tl_distd2_edge *right, int same,
                          double *x_last, double *x_first, double *dropped, double *kappa, long row,
                          tl_info *info);

/* Algorithm 7: partition p's unknowns from its first and last ones. */
int tl_distd2_substitute_d(const tl_distd2_plan *plan, int p, double x_first, double x_last,
                           const double *dt, double *x, tl_info *info);

/* The verdict after the interfaces (the largest dropped entry, near
 * drop_row, and the largest 2x2 inverse norm kappa): sets info->dropped,
 * tol and bound = max(1, spike) kappa dropped, and returns
 * TL_OUTSIDE_DOMAIN when dropped > tol or the matrix is not strictly
 * diagonally dominant, else TL_OK. For a batch, pass the largest. */
int tl_distd2_verdict(const tl_distd2_plan *plan, double dropped, long drop_row, double kappa,
                      double tol, tl_info *info);

/* The whole solve with a plan: decouple, pack, interfaces, substitute,
 * then the domain verdict: TL_OUTSIDE_DOMAIN when the largest dropped
 * entry exceeds tol or the matrix is not strictly diagonally dominant.
 * info->dropped, info->tol and info->bound are set (bound: on
 * ||x_exact - x||_inf / ||x_exact||_inf caused by the dropping). */
int tl_distd2_plan_solve_d(const tl_distd2_plan *plan, const double *d, double *x, double tol,
                           tl_info *info);
/* The same with the fused compact-scheme right-hand side from u. */
int tl_distd2_plan_solve_stencil_d(const tl_distd2_plan *plan, const double st[5], const double *u,
                                   double *x, double tol, tl_info *info);

/* One call: plan, solve, free. */
int tl_distd2_solve_d(size_t n, int periodic, int parts, const size_t *part_sizes, const double *a,
                      const double *b, const double *c, const double *d, double *x, double tol,
                      tl_info *info);
int tl_distd2_solve_stencil_d(size_t n, int periodic, int parts, const size_t *part_sizes,
                              const double *a, const double *b, const double *c, const double st[5],
                              const double *u, double *x, double tol, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
