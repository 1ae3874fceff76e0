/* tridlab/backend.h -- what an algorithm author includes (not users).
 *
 * Status macros that record file and line, the per-system driver that
 * turns a one-system kernel into a batch solve, and the matrix-class
 * checks every algorithm uses to decide whether it is inside its domain.
 */
#ifndef TRIDLAB_BACKEND_H
#define TRIDLAB_BACKEND_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/registry.h"
#include "tridlab/residual.h"
#include "tridlab/status.h"
#include "tridlab/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A room's contribution to the registry. Every backend room defines one,
 * named tl_room_<room> (reference/registry_ref.c: tl_room_reference); the
 * build lists the rooms it built, and tl_registry() holds their
 * algorithms in that order. */
typedef struct tl_room {
  const char *name;                      /* "reference", "cpu", ...        */
  const tl_algorithm *const *algorithms; /* in the order `list` shows them */
  size_t count;
} tl_room;

/* Add a room at run time: a backend library that a program links beside
 * libtridlab (the MPI room: tl_mpi_registry, tridlab/mpi.h). Its
 * algorithms join the registry after the built rooms, each checked as
 * tl_register checks one, and tl_algorithm_room names the room. Adding
 * the same room again does nothing. A room joins whole or not at all:
 * TL_ERR_ARG (info says why, as tl_register) when any of its algorithms
 * would be refused. */
int tl_register_room(const tl_room *room, tl_info *info);

/* Set a status in `info` (may be NULL) with this file and line; evaluates
 * to the status. Use TL_FAIL for errors and TL_WARN for TL_OUTSIDE_DOMAIN. */
#define TL_FAIL(info, status, system, row, arg, ...) \
  tl_info_set((info), __FILE__, __LINE__, (status), (system), (row), (arg), __VA_ARGS__)
#define TL_WARN(info, row, ...) \
  tl_info_set((info), __FILE__, __LINE__, TL_OUTSIDE_DOMAIN, -1, (row), "", __VA_ARGS__)

/* Return early on a negative status. */
#define TL_CALL(expr)               \
  do {                              \
    int tl_call_status_ = (expr);   \
    if (tl_call_status_ < 0)        \
      return tl_call_status_;       \
  } while (0)

/* In functions with one cleanup path: `int status = TL_OK; ... cleanup:`. */
#define TL_CHECK(expr)   \
  do {                   \
    status = (expr);     \
    if (status < 0)      \
      goto cleanup;      \
  } while (0)

/* A one-system kernel: `one` has nsys = 1. It returns a status and fills
 * info (system index is added by the driver). */
typedef int (*tl_system_fn)(const tl_algorithm *self, const tl_batch *one, void *x,
                            const tl_options *opt, tl_info *info);

/* The status of a batch from the statuses of its systems, added in
 * order: the first error stops the batch and is its report; else the
 * first outside-domain warning is; dropped, bound, tol and iterations are
 * the largest over the systems (a failed batch keeps the failing
 * system's own). Messages get "system s: " in front when nsys > 1. The
 * rule of tl_for_each_system, for drivers that solve a batch their own
 * way (the optimized and MPI backends). */
typedef struct tl_outcome {
  size_t nsys;
  int status;   /* so far: TL_OK, TL_OUTSIDE_DOMAIN, or the first error */
  tl_info first;/* the report of that first error or warning           */
  double dropped, bound, tol;
  int iterations;
} tl_outcome;
void tl_outcome_init(tl_outcome *o, size_t nsys);
/* Add system s (in increasing order); returns the batch status so far
 * (negative: stop, later systems are ignored). */
int tl_outcome_add(tl_outcome *o, size_t s, int status, const tl_info *one);
/* The batch status, and the report in info (may be NULL). */
int tl_outcome_finish(const tl_outcome *o, tl_info *info);

/* Run fn on every system of the batch. Stops at the first error; keeps
 * the first TL_OUTSIDE_DOMAIN message; info->dropped, bound and
 * iterations become the largest over the batch. */
int tl_for_each_system(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info, tl_system_fn fn);
/* tl_for_each_system for a partition algorithm whose MPI program sends
 * a batch's messages a mini-batch of mb systems at a time (Tridsolver's
 * latency hiding, PDD's phases in cache): system s's messages are
 * recorded in opt->ledger with (s / mb) * stride added to their rounds,
 * but for the verification's phases, which run once for the batch
 * (tl_ledger_merge_in_round). mb = 0, mb >= nsys or no ledger:
 * tl_for_each_system. */
int tl_for_each_system_in_minibatches(const tl_algorithm *self, const tl_batch *sys, void *x,
                                      const tl_options *opt, size_t mb, int stride, tl_info *info,
                                      tl_system_fn fn);
/* Systems per mini-batch of a rank program that runs its phases a few
 * systems at a time so that a later phase reads from cache what an
 * earlier one has just read or written (PDD's and DistD2's `minibatch`),
 * for a batch of nsys systems of n rows over P ranks: `minibatch` (the
 * parameter) when it is not 0; else (automatic; Tridsolver's 0 means the
 * whole batch) as many systems as make 2^15 rows of
 * the even slice (ceil(n / P) rows each), rounded down to a multiple of 8
 * (the kernels' SIMD groups) and at least 8: 1 MiB of four arrays, which
 * a core's L2 holds (for slices up to 4096 rows). At most nsys, at least
 * 1. */
size_t tl_minibatch_systems(size_t n, int P, size_t nsys, size_t minibatch);

/* A reference kernel for one system in the project's notation (rows a, b,
 * c, d of n entries, the answer in x), in double and in double complex. */
typedef int (*tl_kernel_d_fn)(size_t n, const double *a, const double *b, const double *c,
                              const double *d, double *x, tl_info *info);
typedef int (*tl_kernel_z_fn)(size_t n, const double complex *a, const double complex *b,
                              const double complex *c, const double complex *d,
                              double complex *x, tl_info *info);
/* The solve of a reference that is a kernel per system and takes no
 * options: the batch system by system (tl_for_each_system's rule), each
 * by kd or kz as its dtype says (kz NULL: complex is unsupported). The
 * one adapter of thomas, thomas_periodic, cr, pcr and gtsv. */
int tl_solve_each(const tl_batch *sys, void *x, tl_info *info, tl_kernel_d_fn kd,
                  tl_kernel_z_fn kz);

/* tl_solve's checks of parameter values (also those written into
 * tl_options directly) against the algorithm's table: TL_ERR_ARG naming
 * the parameter. */
int tl_check_params(const tl_algorithm *algo, const tl_options *opt, tl_info *info);
/* After an ok solve with a "tol" the caller loosened beyond the default
 * and that the algorithm used (info->dropped above the default), say so
 * in info->msg: the residual ratio may then exceed 30. */
void tl_note_caller_tolerance(const tl_algorithm *algo, const tl_options *opt, int status,
                              tl_info *info);

/* tl_solve's checks of the entries, for a batch or for one rank's slice
 * of rows: no array is NULL, every entry is finite, and a non-periodic
 * system has zero corners. sys holds sys->n rows of each system starting
 * at global row row0 of n_total (tl_solve: row0 = 0, n_total = sys->n);
 * corners are checked where the slice holds them; reports name global
 * rows. TL_ERR_ARG with the array in info->arg, the system and the row. */
int tl_check_entries(const tl_batch *sys, size_t row0, size_t n_total, tl_info *info);
/* Whether tl_check_entries would pass (no array NULL assumed), without a
 * report: 1 when every entry is finite and the corners it checks are
 * zero. Its scans run at the memory's speed. For a solver that checks its
 * entries in its own pass over them (the MPI rank programs of PDD and
 * RPDD, a chunk of systems at a time) and calls tl_check_entries for the
 * report only when this says 0. */
int tl_entries_fine(const tl_batch *sys, size_t row0, size_t n_total);
/* Its corners alone (a NaN corner is not zero): for a solver whose own
 * pass has checked that the values are finite. */
int tl_corners_fine(const tl_batch *sys, size_t row0, size_t n_total);

/* tl_solve's checks of a batch for algo, in tl_solve's order: a dtype and
 * a layout algo solves (the periodic hint), n_total >= 1 and nsys >= 1,
 * n_total * nsys entries addressable, x not NULL; then, when sys holds
 * rows (sys->n > 0), the entries (entries = 1: tl_check_entries, finite
 * and zero corners; 0: only that no array is NULL) and that x (sys->n *
 * nsys entries) overlaps none of a, b, c, d. For a whole batch row0 = 0
 * and n_total = sys->n; for one rank's slice (tl_mpi_solve) sys holds its
 * m rows of each system, from global row row0 of n_total. TL_ERR_ARG or
 * TL_ERR_UNSUPPORTED naming the argument. The one copy of these checks:
 * every entry point calls it. */
int tl_check_batch(const tl_algorithm *algo, const tl_batch *sys, size_t row0, size_t n_total,
                   const void *x, int entries, tl_info *info);

/* tl_solve's checks of opt->parts and opt->part_sizes for algo on sys:
 * 1 <= parts <= TL_MAX_PARTS; none but a partitioned algorithm takes
 * them; every size is checked on its own (at least the algorithm's
 * min_rows_per_part, at most the rows still left) and the sizes add up to
 * sys->n without wrapping around. TL_ERR_ARG naming the partition. */
int tl_check_partitions(const tl_algorithm *algo, const tl_batch *sys, const tl_options *opt,
                        tl_info *info);

/* Matrix classes (tl_class bits) of one system, measured on its entries:
 * TL_CLASS_ROW_DD, TL_CLASS_STRICT_DD, TL_CLASS_STRONG_DD, TL_CLASS_COL_DD. For periodic
 * systems the corners count as off-diagonal entries. *worst_row (may be
 * NULL) receives the row with the smallest dominance margin
 * |b_i| - |a_i| - |c_i|. */
unsigned tl_classes_d(size_t n, const double *a, const double *b, const double *c, int periodic,
                      long *worst_row);
/* The row classes (TL_CLASS_ROW_DD, TL_CLASS_STRICT_DD) of a slice: rows
 * [row0, row0 + m) of an n-row system, a, b, c pointing at row row0, as
 * tl_classes_d judges those rows; *worst_rel (may be NULL) the smallest
 * margin / |b_i| and *worst_row its global row (the first on a tie). A
 * distributed verdict combines the slices: the classes by AND, the worst
 * row by the smallest worst_rel, then the smallest row. */
unsigned tl_row_classes_slice_d(size_t m, const double *a, const double *b, const double *c,
                                size_t row0, size_t n, int periodic, double *worst_rel,
                                long *worst_row);
unsigned tl_classes_z(size_t n, const double complex *a, const double complex *b,
                      const double complex *c, int periodic, long *worst_row);

/* re + i im, infinite and NaN parts included: C11's CMPLX, which some C
 * libraries leave out under some compilers (glibc under clang). A
 * complex number is stored as an array of its two parts (C11 6.2.5). */
static inline double complex tl_cmplx(double re, double im)
{
  double complex z;
  double *part = (double *)&z;
  part[0] = re;
  part[1] = im;
  return z;
}

/* The entry of a periodic 1x1 matrix. Its three terms land on its one
 * column (tridlab/system.h): A = [a + b + c]. Every solver, the class
 * check and the metrics take the entry from here, so that all of them
 * solve and judge the same matrix: the sum of the three within about an
 * ulp of the exact one (the rounding errors of the two additions are
 * added back; an intermediate overflow is avoided), the same bits for
 * any order of the arguments, +-inf only when the exact sum overflows.
 * Complex: real and imaginary parts separately. */
double tl_periodic1_entry_d(double a, double b, double c);
double complex tl_periodic1_entry_z(double complex a, double complex b, double complex c);

/* A periodic system of n <= 2 rows folded (tridlab/system.h): the same
 * matrix with every entry on its own column and zero corners, so that a
 * solver may treat it as any other periodic (or plain) system. n = 1:
 * fb = tl_periodic1_entry(a, b, c), fa = fc = 0; n = 2: fc[0] = a[0] +
 * c[0], fa[1] = a[1] + c[1], fb = b, fa[0] = fc[1] = 0. For a solver's
 * own entry point: when periodic and n <= 2, fills fa, fb, fc (2 entries
 * each) and points *a, *b, *c at them; otherwise does nothing.
 * TL_ERR_ARG (the message starts with `who`) when a folded entry
 * overflows: the matrix is not representable. */
int tl_fold_periodic_d(const char *who, size_t n, int periodic, const double **a,
                       const double **b, const double **c, double *fa, double *fb, double *fc,
                       tl_info *info);
int tl_fold_periodic_z(const char *who, size_t n, int periodic, const double complex **a,
                       const double complex **b, const double complex **c, double complex *fa,
                       double complex *fb, double complex *fc, tl_info *info);
/* The same for a batch: when sys is periodic with n <= 2, *folded is the
 * folded batch in arrays allocated in *storage (free it after the solve);
 * otherwise *folded = *sys and *storage = NULL. tl_solve() does this
 * before it calls an algorithm, so every algorithm solves the same
 * matrix. TL_ERR_ARG when a folded entry overflows, TL_ERR_NOMEM. */
int tl_batch_fold_periodic(const tl_batch *sys, tl_batch *folded, void **storage, tl_info *info);

/* A posteriori check for solvers that are forward but not backward stable
 * (PCR and the partition solvers that use it on their reduced system):
 * LAPACK's residual ratio of x for one system of dtype (the corners of a
 * plain system are not read). TL_OK below TL_THRESH, else TL_OUTSIDE_DOMAIN
 * with "<name>: residual ratio R >= 30: <why>". In the core
 * (core/residual.c), with eps, THRESH and the ratio (tridlab/residual.h). */
int tl_residual_check(const char *name, tl_dtype dtype, size_t n, int periodic, const void *a,
                      const void *b, const void *c, const void *d, const void *x, const char *why,
                      tl_info *info);

/* tl_residual_check's verdict on a ratio already measured. */
int tl_residual_verdict(const char *name, double ratio, const char *why, tl_info *info);
/* The same ratio for a system whose rows are split in slices (the MPI
 * ranks of optimized/mpi/), in two steps with a reduction over the slices
 * after each: the slice of rows [begin, begin + m) (arrays point at row
 * begin) gives
 *   tl_residual_slice_max    max[0] = the largest part of x (inf when x
 *                            is not finite), max[1] = of A's entries:
 *                            combined by the largest;
 *   tl_residual_slice_norms  with the global max: norms[0] = ||x||_1,
 *                            norms[1] = ||d - A x||_1 of its rows (combined
 *                            by sum), norms[2] = its largest column sum
 *                            (combined by the largest), all scaled;
 * and tl_residual_slice_ratio is the ratio from the combined numbers.
 * halo (4 entries of dtype) = x[begin-1], x[begin+m], c[begin-1],
 * a[begin+m], indices wrapping when periodic; not read when m = n. One
 * slice of all rows gives the bits of tl_residual_ratio; more slices add
 * the sums in another order (the last bits of a ratio may differ). */
void tl_residual_slice_max(tl_dtype dtype, size_t n, int periodic, size_t begin, size_t m,
                           const void *a, const void *b, const void *c, const void *x,
                           double max[2]);
void tl_residual_slice_norms(tl_dtype dtype, size_t n, int periodic, size_t begin, size_t m,
                             const void *a, const void *b, const void *c, const void *d,
                             const void *x, const void *halo, const double max[2], double norms[3]);
double tl_residual_slice_ratio(size_t n, const double max[2], const double norms[3]);
/* The weakest row of the slice, which the exact partition solvers'
 * verdicts name when a matrix is not strictly dominant by rows: the pair
 * (-rel, global row) of the smallest rel = (|b| - left - right) / |b|
 * (left, right: the moduli of the row's coupling entries, 0 where a plain
 * system has none; rel = -inf when b = 0, DBL_MIN when the margin is
 * positive but the quotient underflowed), the first on a tie, as
 * tl_pair_max combines it; (-inf, -1) for no rows. */
void tl_slice_weakest_row(tl_dtype dtype, size_t n, int periodic, size_t begin, size_t m,
                          const void *a, const void *b, const void *c, double *neg, long *row);
/* All of it for a double slice in one pass over a, b, c, d, x (the MPI
 * verdict reads each slice once):
 *   max         as tl_residual_slice_max;
 *   weak, weak_row  as tl_slice_weakest_row;
 *   norms       as tl_residual_slice_norms with no scaling (fa = fx = 1);
 *               NaN when a value read is not finite, when a sum
 *               overflowed, or where that function folds (periodic,
 *               n <= 2, m = n);
 *   lo, dmax    the smallest nonzero |entry| read of A, x (the halo's
 *               included) and d (inf: none) and the largest |d|: whether
 *               scaling afterwards is exact.
 * halo as for tl_residual_slice_norms (not read when m = n). */
typedef struct tl_residual_pass {
  double max[2];
  double weak;
  long weak_row;
  double norms[3];
  double lo[3]; /* A, x, d */
  double dmax;
} tl_residual_pass;
void tl_residual_slice_pass_d(size_t n, int periodic, size_t begin, size_t m, const double *a,
                              const double *b, const double *c, const double *d, const double *x,
                              const double *halo, tl_residual_pass *p);
/* With the global max: tl_residual_slice_norms's norms from the pass's,
 * times the powers of two that function scales by. 1 when that gives its
 * bits exactly (every value either computation meets is a normal double
 * or zero; core/residual.c says when); else 0, norms untouched: run
 * tl_residual_slice_norms. */
int tl_residual_slice_rescale(const tl_residual_pass *p, const double max[2], double norms[3]);

/* Combine (cand, cand_row) into (*value, *row) by "the largest value; on
 * a tie, the smallest row; NaN beats any number": a total order, so a
 * reduction over partitions gives the same result in any order (the
 * verdicts of the partition algorithms, simulated or over MPI). */
void tl_pair_max(double *value, long *row, double cand, long cand_row);

/* The power of two 2^-e that brings m >= 0 into [1/2, 1) (m = 2^e f, as
 * frexp), e clamped to [-1000, 1024] so that the factor is a double; 1
 * (e = 0) when m is 0 or not finite. Multiplying by it is exact unless the
 * product underflows: scaling by it keeps a computation clear of
 * overflow without changing its rounding. */
double tl_pow2_scale(double m, int *e);

/* Scratch memory: calloc of n elements of `size` bytes, NULL on overflow. */
void *tl_alloc(size_t n, size_t size);

/* Testing: the k-th call of tl_alloc from now (k >= 1) returns NULL, as
 * if memory had run out; k = 0 disarms. Process-wide; for the tests that
 * check what a backend does when memory runs out. */
void tl_alloc_fail_at(long k);

#ifdef __cplusplus
}
#endif
#endif
