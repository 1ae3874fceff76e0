/* tridlab/part_its.h -- the interface-splitting algorithm (ITS), phase by phase.
 *
 * Paper 003 (ITS), §2.2-§2.3 Algorithm 1, eqs 9-17; J from eq 18; error
 * bound eq 24. Real double. One system of n rows is split into P
 * partitions (tl_partition_bounds); interface k is the last row I_k of
 * partition k (k < P-1, and k = P-1 too for a periodic system, whose
 * interface couples row n-1 with row 0). Each phase acts on ONE partition
 * or interface, or on the explicit exchanged data in the state:
 *
 *   tl_its_init         partition offsets, buffers
 *   tl_its_rate         local decay-rate estimate of partition p (eq 18)
 *   tl_its_truncation   J (given, or from eps_c and the largest rate: one
 *                       reduction of P numbers) and L; J > m is an error
 *   tl_its_window       the 2(J+L) coefficient rows around interface k
 *                       (setup exchange: rows of the neighbour partition)
 *   tl_its_coefficients A'^T z' = g' (eq 11 on the window, Alg. 1 step 2):
 *                       s^k kept, u sent to partition k+1 as t^{k+1}
 *   tl_its_partial      a_b^p = s^p . (last J of d^p), a_t^p = t^p .
 *                       (first J of d^p)  (Alg. 1 step 4)
 *   tl_its_exchange     the single bidirectional exchange (step 5)
 *   tl_its_local_solve  modify the rhs (step 6) and solve N^p x^p = v^p
 *                       (eq 14/17, step 7)
 *
 * tl_its_ref_d is the one-call solve that runs them in this order. The
 * phases of partition p take its arrays as pointers to its FIRST row
 * (a + begin[p], ...: what an MPI rank holds); the window is filled from
 * wherever its rows are (tl_its_window_rows, then the rows in window
 * order into wa, wb, wc + k W, then tl_its_window_close).
 *
 * Messages (the ledger, docs/ledger.md), per system: "rate", an
 * allreduce of 1 word (the largest decay rate: J and L); "window", 3
 * words per window row from the partition that holds it to the one that
 * owns the interface (a neighbour, or further when J + L exceeds a
 * partition); "spike", t^{k+1} (jr words) from k to k+1; "sums", a_b^k
 * down and a_t^{k+1} up (1 word each); "verdict", 8 (value, row) pairs;
 * and when the solve measures its residual ratio (an ok verdict that
 * dropped at most eps), "halo", 2 words to each neighbour and back, and
 * "verdict" rounds 1 and 2, allreduces of 2 words and 1.
 */
#ifndef TRIDLAB_PART_ITS_H
#define TRIDLAB_PART_ITS_H

#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_ITS_RATE_WORDS 1
#define TL_ITS_ROW_WORDS 3
#define TL_ITS_SUM_WORDS 1
/* The verdict: 8 (value, row) pairs per system -- the status, the
 * dropped mass, the bound, eps_c, the worst margin, strictness, and the
 * largest |x| and |A| entry that the residual ratio needs. */
#define TL_ITS_VERDICT_WORDS 16
/* The residual self-check: an ok verdict that dropped at most this
 * (relative to |z_I|; the default tol, eps) is not yet ok -- the solve
 * measures LAPACK's residual ratio of its answer (tl_its_checks_residual). */
#define TL_ITS_CHECK_DROPPED 0x1p-53
#define TL_ITS_RESIDUAL_WHY                                                                        \
  "the interface values are rows of A^-1 times d, accurate only to cond(A) eps on this "           \
  "ill-conditioned matrix"

typedef struct tl_its_state {
  size_t n;
  int periodic;
  int parts;        /* P                                                    */
  size_t *begin;    /* P+1 partition offsets, begin[P] = n                  */
  int nif;          /* interfaces: P-1 (plain) or P (periodic)             */
  size_t J, L;      /* truncation half-width and one-digit decay length     */
  double rho;       /* decay rate per row used for J and L (eq 18)          */
  double *rate;     /* P: local decay-rate estimates, from tl_its_rate      */
  /* Per interface k (window capacity W entries each): */
  size_t W;
  double *wa, *wb, *wc;  /* window rows of A around I_k (local order)       */
  double *z;             /* z' from A'^T z' = g' (eq 11 on the window)      */
  size_t *wlen;          /* rows in the window                              */
  size_t *wpos;          /* position of I_k in the window                   */
  int *wfull;            /* 1: the whole cyclic matrix (periodic, small n)   */
  size_t jl, jr;         /* dot-product lengths above and below I_k         */
  double *s;             /* nif*jl: s^k, coefficients of rows I_k-jl+1..I_k */
  double *t;             /* P*jr: t^p = u of the interface above p: rows     */
                         /* begin_p .. begin_p+jr-1 (sent by partition p-1)  */
  double *eps_c;         /* nif: largest neglected |z'_j| / |z'_{I_k}|       */
  double *dropped;       /* nif: sum of neglected |z'_j| / |z'_{I_k}|        */
  double *bound;         /* nif: eq 24, on |x~_{I_k} - x_{I_k}| / ||d||_inf  */
  double *ab, *at;       /* P: partial sums a_b^p, a_t^p (step 4)            */
  double *recv_b;        /* P: a_b of the partition above, received (step 5) */
  double *recv_t;        /* P: a_t of the partition below, received          */
} tl_its_state;

/* Bondeli's estimate, paper 003 eq 18, for tridiag(1, lambda, 1):
 * J = -ln(eps_c) / ln((|lambda| + sqrt(lambda^2 - 4)) / 2), as a real
 * number (round up to use it); +inf when |lambda| <= 2. */
double tl_its_bondeli_J(double eps_c, double lambda);

/* The decay rate per row that eq 18 generalises to a row [a, b, c]: the
 * smaller root modulus of the local symbol, 2 max(|a|,|c|) / (|b| +
 * sqrt(b^2 - 4|a||c|)) (= 1/kappa of eq 18 when a = c = 1); 1 when the
 * row is not strictly dominant. */
double tl_its_row_rate(double a, double b, double c);

int tl_its_init(tl_its_state *st, size_t n, int periodic, int parts, const size_t *part_sizes,
                tl_info *info);
void tl_its_free(tl_its_state *st);
void tl_its_rate(tl_its_state *st, int p, const double *a, const double *b, const double *c);
/* J_param = 0: choose J from eps_c (eq 18 with the largest rate), capped
 * at the smallest partition; else J_param, TL_ERR_ARG (arg "param") when
 * it exceeds the smallest partition (paper 003 §3.2: "the algorithm
 * assumes J <= m"). */
int tl_its_truncation(tl_its_state *st, size_t J_param, double eps_c, tl_info *info);
/* The window around interface k: its rows are the global rows first,
 * first + 1, ... (mod n), len of them (the return value); sets wlen,
 * wpos, wfull. After its rows are written into wa, wb, wc + k W in that
 * order, tl_its_window_close drops the couplings that leave it. */
size_t tl_its_window_rows(tl_its_state *st, int k, long *first);
void tl_its_window_close(tl_its_state *st, int k);
/* The whole window from the whole system's arrays (one address space). */
void tl_its_window(tl_its_state *st, int k, const double *a, const double *b, const double *c);
/* The partition that holds global row `row`. */
int tl_its_owner(const tl_its_state *st, size_t row);
/* The messages of one system's solve, in a ledger (may be NULL): setup
 * ("window" rows to each interface's owner, "spike" t^{k+1} to k+1) after
 * the truncation, and the per-right-hand-side "sums". */
void tl_its_ledger_setup(tl_its_state *st, tl_ledger *ledger);
void tl_its_ledger_sums(const tl_its_state *st, tl_ledger *ledger);
/* Alg. 1 steps 2.2-2.5 for interface k: the window's transposed system
 * solved for z' (eq 11), then tl_its_coefficients_take. */
int tl_its_coefficients(tl_its_state *st, int k, tl_info *info);
/* What follows the window solve, from z' (st->z + k W, as that solve
 * leaves it): a zero z'_{I_k} is a breakdown; s^k, t^{k+1} and the
 * truncation's eps_c, dropped mass and bound (eq 24). For a caller that
 * solved the window systems otherwise (eight at once:
 * tl_cpu_its_window_solves_d, tridlab/cpu.h). */
int tl_its_coefficients_take(tl_its_state *st, int k, tl_info *info);
void tl_its_partial(tl_its_state *st, int p, const double *d);
void tl_its_exchange(tl_its_state *st);
int tl_its_local_solve(const tl_its_state *st, int p, const double *a, const double *b,
                       const double *c, const double *d, double *x, tl_info *info);
/* The rows of N^p and its right-hand side v~^p (steps 6.1, 6.2), what
 * tl_its_local_solve hands to Thomas, into la, lb, lc, ld (m entries
 * each, m the partition's rows): for a caller that solves them itself. */
void tl_its_local_system(const tl_its_state *st, int p, const double *a, const double *b,
                         const double *c, const double *d, double *la, double *lb, double *lc,
                         double *ld);
/* What tl_its_local_system changes after copying the partition's rows
 * (la, lb, lc, ld hold a, b, c, d; a0 = a[0]): the corners a[0] and
 * c[m-1] to 0, the first right-hand side entry moved by the sums, and
 * the identity row at I_p. lc may be NULL (a caller that reads c where
 * it lies: N^p's c differs from it only in that corner). */
void tl_its_local_ends(const tl_its_state *st, int p, double a0, double *la, double *lb, double *lc,
                       double *ld);
/* The same changes as numbers, for a caller that applies them as it
 * reads the rows (optimized/mpi/its_mpi.c, through the x-line kernel):
 * *top is what row 0's right-hand side loses (0 without an interface
 * above: d - 0 is d), and where the return value is 1 row m-1 is the
 * identity row x_{m-1} = *last. */
int tl_its_local_end_rows(const tl_its_state *st, int p, double a0, double *top, double *last);
/* x~ at the interface above partition p (its row just above, I_{p-1}),
 * a_t^p + a_b^{p-1}, after the exchange: what its first row moves to the
 * right-hand side, and, bit for bit, what partition p-1's identity row
 * gives its last unknown (a_b^{p-1} + a_t^p). Meaningful where p has an
 * interface above. */
double tl_its_value_above(const tl_its_state *st, int p);

/* The verdict from the numbers over all interfaces: the largest dropped
 * mass (at interface row drop_row), the largest bound and eps_c, whether
 * the matrix is strictly diagonally dominant (worst: its worst row).
 * Sets info->dropped, bound, tol; TL_OK or TL_OUTSIDE_DOMAIN. */
int tl_its_verdict(const tl_its_state *st, double dropped, long drop_row, double bound, double epsc,
                   int strict, long worst, double tol, tl_info *info);
/* The truncation's verdict when the local solves overflowed (x not
 * finite, a breakdown) after it dropped more than tol: what failed
 * first, not the overflow it caused. TL_OUTSIDE_DOMAIN at drop_row; sets
 * info->dropped, bound, tol. */
int tl_its_overflow_verdict(const tl_its_state *st, double dropped, long drop_row, double bound,
                            double tol, tl_info *info);
/* 1 when a system with this verdict (tl_its_verdict's status) and this
 * dropped mass measures its residual ratio before it says ok. */
int tl_its_checks_residual(int verdict, double dropped);
/* The verdict's messages of one system (a ledger may be NULL): x and
 * the coupling entry at each end of a partition to that neighbour
 * ("halo", 2 words each way, around the ring when periodic: a rank reads
 * its slice once for the verdict's numbers and the residual's norms,
 * and that pass needs them), the allreduce of TL_ITS_VERDICT_WORDS
 * ("verdict" round 0); with checked, the residual ratio across the
 * partitions: the sums of ||x||_1 and ||d - A x||_1 ("verdict" round 1,
 * 2 words) and the largest column sum (round 2, 1 word). */
void tl_its_ledger_verdict(const tl_its_state *st, int checked, tl_ledger *ledger);
/* The end of the solve, after the local solves of every partition
 * (status: TL_OK or the first of their failures; x written where they
 * ran; a, b, c, d, x the whole system): x not finite is a breakdown --
 * or, when the truncation dropped more than tol, its outside-domain
 * (tl_its_overflow_verdict); else tl_its_verdict over all interfaces
 * with the class check, and the residual self-check where
 * tl_its_checks_residual says so. Records the verdict's messages. */
int tl_its_finish(const tl_its_state *st, int status, const double *a, const double *b,
                  const double *c, const double *d, const double *x, double tol, tl_ledger *ledger,
                  tl_info *info);

/* The one-call solve. J = 0: chosen from eps_c. tol: the largest
 * dropped (normalised as in tl_its_state.dropped) accepted for TL_OK.
 * Sets info->dropped, info->tol and info->bound. */
int tl_its_ref_d(size_t n, int periodic, const double *a, const double *b, const double *c,
                 const double *d, double *x, int parts, const size_t *part_sizes, size_t J,
                 double eps_c, double tol, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
