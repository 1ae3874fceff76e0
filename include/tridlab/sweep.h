/* tridlab/sweep.h -- truncation-error studies of the approximate
 * partition algorithms (docs/design.md §1, convergence/: "ITS truncation
 * studies"; verify/: "tolerance sweeps").
 *
 * An approximate algorithm drops a coupling that decays geometrically
 * with the distance it spans. These studies measure the error that the
 * dropping causes against the knob that sets it, beside the bound or the
 * prediction the algorithm's page states, and return plain rows: the
 * `tridlab sweep` command prints them, writes them as CSV and plots them
 * (docs/sweeps.md).
 *
 *   tl_sweep_its             ITS error against J for one system
 *                            (paper 003 (ITS) §5.1, Tables 2 and 3; the
 *                            error against n at fixed J of Fig. 3 is this
 *                            study repeated over n)
 *   tl_sweep_bondeli         J of eq 18 against lambda and eps_c (Fig. 2),
 *                            beside the J measured on the exact A^-1 and
 *                            the J the its solver chooses
 *   tl_sweep_dominance       PDD, RPDD, DistD2 error against the dominance
 *                            of tridiag(1, lambda, 1) and the rows per
 *                            partition m, beside sigma^-m (every solve
 *                            with the algorithm's default tol: the
 *                            answer is written either way, and the
 *                            status says whether it vouches for it)
 *   tl_sweep_jacobi          Tridsolver with the Jacobi reduced solve:
 *                            error against the number of sweeps K
 *   tl_sweep_converge_fixed_m  an order-of-accuracy study with a fixed
 *                            number of rows per partition (P grows with n)
 *
 * Every study returns TL_OK when all its rows were computed, whatever the
 * algorithm's status on each row was (a row keeps the status, the
 * message, and NaN errors when the solve failed); TL_ERR_ARG for a bad
 * configuration before any work, TL_ERR_NOMEM.
 */
#ifndef TRIDLAB_SWEEP_H
#define TRIDLAB_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "tridlab/convergence.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called after each row of a long study (may be NULL): `what` names the
 * row for a person ("J = 7", "lambda = 2.5, m = 16"). */
typedef struct tl_sweep_progress {
  void (*fn)(const char *what, size_t done, size_t total, void *ctx);
  void *ctx;
} tl_sweep_progress;

/* ------------------------------------------------------------------ */
/* ITS truncation (paper 003 (ITS) §5.1)                               */

typedef enum tl_sweep_its_problem {
  /* 4th-order compact (Pade) first derivative of sin(20 pi x) on the
   * periodic grid x_i = i h, h = 1/n, 0 <= i <= n-1 (n = 252: the paper's
   * 0 <= i <= 251), rows scaled to the paper's [1, 4, 1]:
   *   f'_{i-1} + 4 f'_i + f'_{i+1} = 3 (u_{i+1} - u_{i-1}) / h.           */
  TL_SWEEP_ITS_COMPACT = 1,
  /* [sin(i), 2(|sin i| + |cos i|), cos(i)] (1-based i, as in the paper;
   * a[0] = c[n-1] = 0), d = 1, not periodic.                               */
  TL_SWEEP_ITS_NONCONST = 2
} tl_sweep_its_problem;

/* The system of a problem, n entries each (caller's arrays). fexact (may
 * be NULL) receives the analytic derivative for TL_SWEEP_ITS_COMPACT, NaN
 * for the other. *periodic says which layout it is. TL_ERR_ARG for an
 * unknown problem or n < 3. */
int tl_sweep_its_system(tl_sweep_its_problem problem, size_t n, double *a, double *b, double *c,
                        double *d, double *fexact, int *periodic, tl_info *info);

typedef struct tl_sweep_its_row {
  size_t n;
  int parts;
  size_t J;
  /* rho^J, rho = the largest decay rate per row of the its solver
   * (tl_its_row_rate): the eps_c that eq 18 assigns to J (kappa^-J for
   * tridiag(1, lambda, 1); Table 2's eps_c column).                        */
  double eps_c_rate;
  /* Measured on the exact rows z = e_I^T A^-1 of the interfaces (a LAPACK
   * solve of A^T z = e_I): the largest neglected |z_j| / |z_I|, j outside
   * the 2J rows I-J+1 .. I+J that ITS keeps.                               */
  double eps_c;
  double err;     /* ||x_seq - x_par||_inf / ||d||_inf, x_seq: pivoted LAPACK */
  double bound;   /* info.bound of the its solver (eq 24)                      */
  double dropped; /* info.dropped of the its solver                            */
  /* TL_SWEEP_ITS_COMPACT: the derivative's own error
   * ||f'_exact - f'_seq||_inf / ||f'_exact||_inf (Table 2's E_a); NaN else. */
  double err_a;
  int status;     /* what the its solver returned                             */
  char note[256]; /* its message when status != TL_OK                         */
} tl_sweep_its_row;

/* ITS with each J of Js (J = 0: the solver's own choice from eps_c) on
 * `parts` equal partitions of the problem of size n, default eps_c and
 * tol (the status then says whether ITS vouches for the answer: it writes
 * the solution either way). rows: nJ entries. A J larger than a partition
 * gives a row with the solver's TL_ERR_ARG and NaN errors. */
int tl_sweep_its(tl_sweep_its_problem problem, size_t n, int parts, const size_t *Js, size_t nJ,
                 tl_sweep_its_row *rows, const tl_sweep_progress *progress, tl_info *info);

typedef struct tl_sweep_bondeli_row {
  double lambda; /* tridiag(1, lambda, 1)                                   */
  double sigma;  /* row dominance lambda / 2 (paper 003's sigma)            */
  double eps_c;  /* cut-off threshold                                        */
  double J_eq18; /* eq 18 as a real number (tl_its_bondeli_J)                */
  /* Smallest J whose largest neglected |z_j| / |z_I| is <= eps_c, for the
   * exact middle row of A^-1 (n = 2 (J + 8) rows at least): what eq 18
   * predicts exactly for a Toeplitz row, ceil(J_eq18).                       */
  size_t J_measured;
  size_t J_its; /* the J the its solver picks with J = 0 and this eps_c   */
} tl_sweep_bondeli_row;

/* Rows for every (lambda, eps_c) pair, lambda-major: nl * ne entries.
 * TL_ERR_ARG when a lambda is not > 2 (eq 18 is infinite) or an eps_c is
 * not in (0, 1). */
int tl_sweep_bondeli(const double *lambdas, size_t nl, const double *eps_c, size_t ne,
                     tl_sweep_bondeli_row *rows, const tl_sweep_progress *progress, tl_info *info);

/* ------------------------------------------------------------------ */
/* Dominance and rows per partition: PDD, RPDD, DistD2                  */

/* The series of the dominance study, in this order. */
typedef enum tl_sweep_series {
  TL_SWEEP_PDD,        /* pdd, default tol                                   */
  TL_SWEEP_RPDD_AUTO,  /* rpdd, J = 0: J chosen from tol, at most m          */
  TL_SWEEP_RPDD_FIXED, /* rpdd, J fixed (config rpdd_J), default tol           */
  TL_SWEEP_DISTD2,     /* distd2, default tol                                */
  TL_SWEEP_NSERIES
} tl_sweep_series;

/* Its label: "pdd", "rpdd", "rpdd J=8", "distd2" (buf of size >= 32). */
const char *tl_sweep_series_label(tl_sweep_series s, size_t rpdd_J, char *buf, size_t size);

typedef struct tl_sweep_dominance_row {
  tl_sweep_series series;
  const char *algo; /* registry name                                          */
  double lambda;    /* tridiag(1, lambda, 1)                                  */
  double sigma;     /* (lambda + sqrt(lambda^2 - 4)) / 2: spikes decay like sigma^-k */
  int parts;
  size_t m, n;                /* rows per partition, n = parts * m                      */
  double err;                 /* ||x - x_exact||_inf / ||x_exact||_inf; NaN if no solution */
  double predicted;           /* sigma^-m; sigma^-min(m, J) for RPDD with J fixed       */
  double dropped, bound, tol; /* the algorithm's info                          */
  int status;
  char note[256];
} tl_sweep_dominance_row;

typedef struct tl_sweep_dominance_config {
  const double *lambdas; /* each > 2                                     */
  size_t nlambda;
  const size_t *ms; /* rows per partition, each >= 2 (DistD2's minimum) */
  size_t nm;
  int parts;     /* P >= 3, so that some partition has two neighbours */
  size_t rpdd_J; /* J of the fixed-J RPDD series; 0: no such series */
  uint64_t seed; /* x_exact uniform in [-1, 1) from this seed      */
} tl_sweep_dominance_config;

/* Number of rows the study makes: nlambda * nm * (series run). */
size_t tl_sweep_dominance_count(const tl_sweep_dominance_config *cfg);

/* x_exact is seeded, d = A x_exact, every series solves the same system.
 * Rows are lambda-major, then m, then series. A fixed J larger than m
 * gives a row with the solver's TL_ERR_ARG. */
int tl_sweep_dominance(const tl_sweep_dominance_config *cfg, tl_sweep_dominance_row *rows,
                       size_t cap, size_t *count, const tl_sweep_progress *progress, tl_info *info);

/* ------------------------------------------------------------------ */
/* Tridsolver's Jacobi reduced solve: error against the sweeps K        */

typedef struct tl_sweep_jacobi_row {
  double lambda;
  int parts;
  size_t m, n;
  long iters; /* K, the fixed number of Jacobi sweeps                  */
  double err; /* ||x - x_exact||_inf / ||x_exact||_inf                  */
  /* q = max_p (|A_p| + |C_p|) / |B_p| over the reduced rows (paper 002
   * (Tridsolver)'s reduced system): the contraction of one sweep, and
   * q^(K+1), the predicted error (the start F = D/B is off by at most q). */
  double q;
  double predicted;
  double dropped, bound; /* the solver's info                                 */
  int status;
  char note[256];
} tl_sweep_jacobi_row;

typedef struct tl_sweep_jacobi_config {
  const double *lambdas; /* each > 2                                     */
  size_t nlambda;
  const size_t *ms; /* rows per partition, each >= 2                */
  size_t nm;
  int parts; /* P >= 2                                       */
  long kmax; /* K = 1 .. kmax                                */
  uint64_t seed;
} tl_sweep_jacobi_config;

size_t tl_sweep_jacobi_count(const tl_sweep_jacobi_config *cfg);
/* Rows lambda-major, then m, then K. */
int tl_sweep_jacobi(const tl_sweep_jacobi_config *cfg, tl_sweep_jacobi_row *rows, size_t cap,
                    size_t *count, const tl_sweep_progress *progress, tl_info *info);

/* ------------------------------------------------------------------ */
/* Convergence with a fixed number of rows per partition                */

/* tl_converge_run, but each grid n is split into P = max(1, n / m)
 * partitions (as even as possible): the weak-scaling view, where an
 * approximate partition algorithm drops a coupling of fixed size (about
 * sigma^-m) at every n. cfg->opt supplies the parameters (its parts is
 * ignored; NULL: defaults). Orders are taken between consecutive rows
 * as in tl_converge_run; P of row r is max(1, rows[r].n / m). */
int tl_sweep_converge_fixed_m(const tl_converge_config *cfg, size_t m, tl_converge_row *rows,
                              size_t cap, size_t *count, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
