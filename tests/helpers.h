/* tests/helpers.h -- what several test files share: seeded systems with
 * their LAPACK solution, LAPACK's two test ratios of a solution, solving
 * a gallery matrix and measuring it, unequal partitions, and Lele's
 * sixth-order scheme. Defined in tests/helpers.c, which the Makefile
 * links into the test program as it does every test file. */
#ifndef TRIDLAB_TESTS_HELPERS_H
#define TRIDLAB_TESTS_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "tridlab/ledger.h"
#include "tridlab/part_distd2.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

/* One real system with its LAPACK solution xref and 1-norm rcond; x is
 * room for a solver's answer. */
typedef struct th_sys {
  size_t n;
  double *a, *b, *c, *d, *x, *xref;
  double rcond;
  tl_batch batch;
} th_sys;

/* Whether this build runs the batched kernels in SIMD lanes (a compiler
 * with vector shuffles; not -DTL_CPU_NO_SHUFFLE). Without them every
 * batched kernel leaves its systems to its caller, as documented (the
 * count of systems it took in groups of eight is 0); tests of the lane
 * path skip there (TH_NEEDS_LANES). */
int th_lanes_built(void);
#define TH_NEEDS_LANES()                                                                           \
  do {                                                                                             \
    if (!th_lanes_built())                                                                         \
      cr_skip_test("this build has no SIMD lanes (no vector shuffles)");                           \
  } while (0)

/* kind 0: strictly dominant random rows, b = +-(|a|+|c|)(1 + u), u
 * uniform in [lo, hi); kind 1: tridiag(1, lambda, 1) with lambda = lo.
 * The right-hand side is uniform in [-1, 1); everything from `seed`. */
th_sys th_sys_make(size_t n, int kind, double lo, double hi, uint64_t seed);
void th_sys_free(th_sys *s);
/* max_i |v_i|. */
double th_max_abs(size_t n, const double *v);
/* max_i |x_i - xref_i| / max_i |xref_i|. */
double th_sys_rel_err(const th_sys *s);
/* Asserts LAPACK's residual and forward-error ratios of s->x below
 * TL_THRESH (the message names `what`, n and P). */
void th_sys_assert_accurate(const th_sys *s, const char *what, int P);

/* LAPACK's residual ratio (DGTT02) of x for a batch, and its forward-error
 * ratio (DGET04) against a pivoted LAPACK solve; 0, or -1 with
 * *ferr = NaN when LAPACK cannot solve it (exactly singular). A batch
 * singular to working precision (an rcond below eps, as the verification
 * judges it) has no forward error to judge: *ferr = 0 there. */
int th_ratios(const tl_batch *sys, const void *x, double *resid, double *ferr);

/* Solve p with algo and opt: the status, and the two ratios when there is
 * a solution (NaN otherwise; ferr NaN when LAPACK cannot solve p). relerr
 * (may be NULL): max |x - x_lapack| / max |x|. */
int th_solve_measure(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                     double *resid, double *ferr, double *relerr, tl_info *info);

/* Gallery type id, n rows, nsys systems from seed: expects status ok and
 * both ratios below TL_THRESH. */
void th_check_type(const tl_algorithm *algo, int id, size_t n, size_t nsys, uint64_t seed,
                   const tl_options *opt);

/* tl_options for algo on P partitions (sizes: their rows; NULL: even)
 * with the parameters params, "key=value,key=value" (NULL or "": the
 * defaults); asserts that each is accepted. */
void th_options_parts(tl_options *opt, const tl_algorithm *algo, int P, const size_t *sizes,
                      const char *params);

/* tl_solve of sys into x by algo on P partitions (sizes: NULL even) with
 * the parameter key = value (value NULL: the defaults). */
int th_solve_param(const tl_algorithm *algo, const tl_batch *sys, void *x, int P,
                   const size_t *sizes, const char *key, const char *value, tl_info *info);

/* The gallery type named `name` (its id); fails the test if none. */
int th_gallery_id(const char *name);

/* Gallery type id, n rows, 2 systems (seed 29 + n), solved by the
 * algorithm `name` on P partitions (sizes NULL: even): the status and
 * LAPACK's two ratios, as th_solve_measure. */
int th_measure_parts(const char *name, int id, size_t n, int P, const size_t *sizes, double *resid,
                     double *ferr, tl_info *info);

/* A SPIKE variant (`name`) against gtsv: dominant matrices (sdd-random,
 * toeplitz-4, complex tdse-cn: ok) and indefinite ones (toeplitz-1.5,
 * gt07-random, complex-random, helmholtz-damped: outside-domain, the
 * answer written), n = 17, 64, 255, 1000 and P = 1, 2, 3, 4, 7, 16:
 * LAPACK's ratios below 30 every time. */
void th_expect_spike_agrees_with_gtsv(const char *name);

/* The ledger the algorithm `name` records solving gallery types ids (64
 * rows, 2 systems, seed 3) at P = 1, 2, 3, 4, 7, 16 is its ledger model's. */
void th_expect_ledger_is_model(const char *name, const int *ids, size_t nids);

/* A SPIKE variant's simulated solve (tl_spike_*_ref_ledger_d). */
typedef int (*th_spike_run_fn)(size_t n, int parts, const size_t *part_sizes, const double *a,
                               const double *b, const double *c, const double *d, double *x,
                               tl_ledger *ledger, tl_info *info);
/* Bad input to the SPIKE variant `name` (its simulated solve `run`) is a
 * bad argument: more partitions than rows, no x, NULL arrays, n = 0, its
 * message in its own name; 2 partitions of 3 rows are fine. */
void th_expect_spike_bad_input(const char *name, th_spike_run_fn run);

/* A spike solver under test (PDD, RPDD): s on P partitions (sizes: their
 * rows; NULL: even) with its default parameters. */
typedef int (*th_solve_parts_fn)(th_sys *s, int P, const size_t *sizes, tl_info *info);
/* Strongly dominant and tridiag(1, 4, 1) systems of 16 to 10007 rows on
 * each P of parts: ok or outside-domain, LAPACK's ratios when ok, ok from
 * 40 rows a partition of the Toeplitz matrix, sane dropped and bound. */
void th_expect_spikes_match_lapack(th_solve_parts_fn solve, const int *parts, size_t nparts,
                                   uint64_t seed);
/* Three unequal partitionings of tridiag(1, 4, 1): 1- and 2-row middle
 * partitions are outside-domain (the message contains outside_msg), the
 * others pass LAPACK's ratios. */
void th_expect_unequal_partitions(th_solve_parts_fn solve, const char *outside_msg);

/* A batched SPIKE local phase's spikes where the partition has no
 * neighbour to couple to: V (no right one) and W (no left one) of system
 * s, rows [o, o + m), must keep the sentinel value they were filled with
 * (nothing written). */
void th_expect_spikes_untouched(const double *v, const double *w, size_t o, size_t m, int left,
                                int right, size_t s, double sentinel);

/* A batched SPIKE local phase on eight systems of m rows, ld = m: a, b,
 * c, d in, flags out (its other outputs the adapter's business). */
typedef void (*th_spike_lanes_fn)(size_t m, int left, int right, const double *a, const double *b,
                                  const double *c, const double *d, unsigned char *flagged);
/* For m in 2, 3, 9, 17 and every shape, one entry at a time (each array,
 * each row; a NaN or an inf) made bad in system 3 of eight dominant
 * ones: the kernel flags system 3 and no other -- except, when
 * corners_unread, a[0] without a left neighbour and c[m-1] without a
 * right one, which it does not read and must not flag. */
void th_expect_bad_entries_flagged(th_spike_lanes_fn run, int corners_unread);

/* A registry backend `name` against its reference `ref` on every float64,
 * non-periodic gallery type, n from 1 to 257, 1, 9 and 17 systems, P =
 * 1, 2, 3, 7: the same status, system and row, and with a solution the
 * same bits of x. */
void th_expect_backend_is_reference_bits(const char *name, const char *ref);

/* Unequal partition sizes summing to n: alternately long and of the
 * minimum size minrows. */
void th_unequal_sizes(size_t n, int parts, size_t minrows, size_t *sizes);

/* Gallery matrix 20 (a general, not dominant one) as nsys systems of n
 * rows (seed 3) into p, and its DistD2 plan of parts partitions (not
 * periodic) into plan; asserts both. */
void th_distd2_gallery_plan(size_t n, size_t nsys, size_t parts, tl_problem *p,
                            tl_distd2_plan *plan);

/* Lele's sixth-order first derivative (paper 000 eq. (2)) with spacing h:
 * matrix [1/3, 1, 1/3] (corners zero unless periodic) and the right-hand
 * side stencil st of u[i-2] .. u[i+2]. */
void th_lele6(size_t n, int periodic, double *a, double *b, double *c, double st[5], double h);

/* A batch of nsys slices of m rows of a, b, c, d, one array of 4 m nsys
 * (a at 0, b at m nsys, ...): a, c, d uniform in [-1, 1], b in [4, 5]
 * (strictly dominant). The caller frees it. */
double *th_dominant_slices(size_t m, size_t nsys, uint64_t seed);

/* 1 when the k values of out are within a few roundings of ref's,
 * |out - ref| <= 64 eps (1 + |ref|): a sweep over a dominant system
 * keeps its values O(1), and one reciprocal in place of a division moves
 * each by an ulp or two. */
int th_close_to(const double *out, const double *ref, size_t k);

/* One case of a batched slice kernel against its reference: nsys slices
 * of m rows, slice q of 3 (first, middle, last) of a 3 m-row system,
 * plain or periodic; system broken_sys (none when >= nsys) given a zero
 * pivot at local row `row`. */
typedef void th_slice_case(size_t m, size_t nsys, int q, int periodic, size_t broken_sys,
                           size_t row, uint64_t seed);

/* Every size around the tile (8 rows) and group (8 systems) edges, every
 * slice position, plain and periodic. */
void th_slices_every_size(th_slice_case *one);

/* A zero pivot in one system of a batch of nsys, at many rows. */
void th_slices_one_broken(th_slice_case *one, size_t nsys);

#endif
