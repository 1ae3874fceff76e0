/* tridlab/verify.h -- the verification layer (docs/design.md §5).
 *
 * A seeded, numbered gallery of matrices; LAPACK-convention metrics
 * (DGTT02 residual ratio, DGET04 forward-error ratio with DGTCON's rcond,
 * or for periodic systems DGBCON's on DGBTRF's band form of the cyclic
 * matrix (tl_rcond); eps = 2^-53, THRESH = 30; computed without overflow,
 * with an allowance for underflow); and a runner that takes every registry algorithm over
 * every gallery matrix and classifies each pair.
 */
#ifndef TRIDLAB_VERIFY_H
#define TRIDLAB_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "tridlab/registry.h"
#include "tridlab/residual.h"
#include "tridlab/status.h"
#include "tridlab/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Gallery                                                             */

typedef struct tl_gallery_type {
  int id;               /* stable number; docs/gallery.md lists them     */
  const char *name;     /* short name, e.g. "gt03-ill-sqrt"              */
  const char *desc;     /* one line                                       */
  tl_dtype dtype;
  int periodic;
  unsigned classes;     /* tl_class bits every matrix of the type has    */
  int singular;         /* 1: exactly singular for every n >= its min_n  */
  size_t min_n;         /* smallest n it is defined for (usually 1)      */
} tl_gallery_type;

/* A generated problem. It owns its arrays; sys points into them. */
typedef struct tl_problem {
  tl_batch sys;
  void *a, *b, *c, *d;
  void *xtrue;          /* the solution d = A xtrue was made from; NULL for
                           singular types                                 */
  const tl_gallery_type *type;
  uint64_t seed;
} tl_problem;

size_t tl_gallery_count(void);
const tl_gallery_type *tl_gallery_get(size_t index);   /* NULL past the end */
const tl_gallery_type *tl_gallery_find(int id);        /* NULL if unknown   */
const tl_gallery_type *tl_gallery_find_name(const char *name);

/* Make nsys systems of type `id` and size n from `seed` (same seed, same
 * matrices, on every machine). */
int tl_gallery_make(int id, size_t n, size_t nsys, uint64_t seed, tl_problem *p, tl_info *info);
void tl_problem_free(tl_problem *p);

/* 1 when the type's classes meet the algorithm's classes: the algorithm
 * is expected to pass (not just to report) on this type. */
int tl_gallery_expects_pass(const tl_gallery_type *type, const tl_algorithm *algo);

/* A deterministic generator (splitmix64), so seeds mean the same thing
 * everywhere. */
typedef struct tl_rng { uint64_t state; } tl_rng;
void tl_rng_seed(tl_rng *rng, uint64_t seed);
uint64_t tl_rng_next(tl_rng *rng);
double tl_rng_uniform(tl_rng *rng, double lo, double hi);  /* [lo, hi) */

/* ------------------------------------------------------------------ */
/* Metrics                                                             */

/* eps, THRESH and the residual ratio (DGTT02, tl_residual_ratio):
 * tridlab/residual.h, included above (they live in the core, where
 * solvers judge their own answers with them). */

/* Reciprocal condition number in the 1-norm of every system (nsys
 * values), of A scaled by a power of two near its largest entry (rcond
 * does not change, the estimate no longer overflows): DGTCON / ZGTCON on
 * DGTTRF's factors; for periodic systems DGBCON / ZGBCON on DGBTRF's
 * factors of the cyclic matrix as a band matrix (unknowns reordered 0,
 * n-1, 1, n-2, ...). 0 for a singular system. */
int tl_rcond(const tl_batch *sys, double *rcond, tl_info *info);

/* 1 when some system's rcond (nsys values from tl_rcond) is below eps:
 * the matrix is singular to working precision, as LAPACK's xGESVX says
 * (INFO = N+1). There cond eps allows any forward error and DGTCON's
 * estimate itself saturates (near 1e19 on Dorr matrices whose true
 * condition number is 1e543): the verification judges no forward error
 * and promises no solver a pass. *smallest (may be NULL) gets the
 * smallest such rcond. A NaN (no estimate) is not singular. */
int tl_singular_to_working_precision(const double *rcond, size_t nsys, double *smallest);

/* DGET04 with the same allowance: max over systems of
 *     ||x - xref||_inf / (||xref||_inf + DBL_MIN + n DBL_MIN / ||A||_1)
 *     * rcond / eps
 * (rcond per system), on x and xref scaled by one power of two so that
 * x - xref cannot overflow. 0 when x = xref; +inf when x is not finite;
 * NaN (no ratio) when an rcond is NaN, which DGTCON returns when its
 * estimate overflows. */
double tl_forward_ratio(const tl_batch *sys, const void *x, const void *xref,
                        const double *rcond);

/* Pivoted LAPACK solve of the batch: DGTSV / ZGTSV, or for periodic
 * systems DGBTRF / DGBTRS (ZGB...) on the cyclic matrix as a band matrix
 * (unknowns reordered 0, n-1, 1, n-2, ...). The oracle of the tests. */
int tl_lapack_solve(const tl_batch *sys, void *x, tl_info *info);

/* ------------------------------------------------------------------ */
/* Runner                                                              */

typedef enum tl_verdict {
  TL_VERDICT_PASSED,      /* status fine, ratios < THRESH                      */
  TL_VERDICT_REPORTED,    /* a failure or outside-domain status was returned   */
  TL_VERDICT_UNEXPECTED,  /* reported, but the gallery says it should pass; or,
                             on any matrix, a status outside enum tl_status, or
                             a solver that broke its interface (wrote outside
                             x; a port: no answer in time, x of the wrong
                             shape or dtype, its input removed)               */
  TL_VERDICT_SILENT,      /* status fine, ratio >= THRESH or non-finite        */
  TL_VERDICT_SKIPPED      /* the algorithm does not take this dtype or layout  */
} tl_verdict;

const char *tl_verdict_name(tl_verdict v);

typedef struct tl_verify_result {
  const tl_algorithm *algo;
  const tl_gallery_type *type;
  size_t n, nsys;
  int parts;
  int status;             /* what the solve returned                          */
  double resid;           /* DGTT02 ratio (NaN when there is no solution)     */
  double ferr;            /* DGET04 ratio (NaN when not computable)           */
  int expected;           /* tl_gallery_expects_pass                          */
  tl_verdict verdict;
  char note[256];         /* the solver's message                              */
  /* With cfg->ledgers, for a partitioned algorithm: what the solve
   * recorded (valid during on_result), and for an ok solve whether it
   * equals the algorithm's ledger model: 1 equal, 0 differs (why in
   * ledger_why), -1 no model. Else ledger NULL, ledger_model -1. */
  const tl_ledger *ledger;
  int ledger_model;
  char ledger_why[256];
} tl_verify_result;

typedef struct tl_verify_config {
  const size_t *sizes;    /* n values                                         */
  size_t nsizes;
  size_t nsys;            /* systems per batch                                */
  uint64_t seed;
  const char *algo;       /* only this algorithm (NULL: all)                  */
  int type_id;            /* only this gallery type (0: all)                  */
  int parts;              /* partitions for partitioned algorithms, used when
                             nparts == 0                                      */
  const int *parts_list;  /* several partition counts: each partitioned
                             algorithm runs once per count (non-partitioned
                             ones once)                                       */
  size_t nparts;
  const char *room;       /* only the algorithms of this room (tl_algorithm_room:
                             "reference", "cpu", "mpi", ...; NULL: every room) */
  const tl_options *options; /* the parameters of cfg->algo (NULL: defaults)  */
  int ledgers;            /* 1: record each partitioned solve's ledger and
                             compare it with the algorithm's ledger model      */
  /* Called for every pair (may be NULL). */
  void (*on_result)(const tl_verify_result *r, void *ctx);
  void *ctx;
} tl_verify_config;

typedef struct tl_verify_summary {
  long passed, reported, unexpected, silent, skipped;
} tl_verify_summary;

/* The verdict on one answer, as the runner gives it: x is what `algo`
 * returned with `status` and `info` on problem p (x may be NULL when the
 * status carries no solution); rcond holds the problem's per-system
 * reciprocal condition numbers (NULL: no forward-error ratio). A status
 * that is not an enum tl_status value is UNEXPECTED ("invalid status
 * N"). For drivers that solve their own way (MPI ranks, external
 * programs). */
void tl_verify_judge(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                     int status, const tl_info *info, const void *x, const double *rcond,
                     tl_verify_result *r);

/* Count one verdict into a summary. */
void tl_verify_summary_add(tl_verify_summary *s, tl_verdict v);

/* Classify one (algorithm, problem) pair. */
void tl_verify_pair(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                    tl_verify_result *r);

/* Run the whole battery. Returns TL_OK, or a negative status if the
 * gallery could not be generated. The verdict counts are in *summary. */
int tl_verify_run(const tl_verify_config *cfg, tl_verify_summary *summary, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
