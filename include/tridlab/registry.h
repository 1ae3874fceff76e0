/* tridlab/registry.h -- one interface for every algorithm (docs/design.md).
 *
 * Every solver -- reference, optimized, distributed, GPU, or a user's own
 * -- is a tl_algorithm in the registry. The CLI, the verification layer,
 * the tests and the benchmarks iterate over tl_registry(), so an algorithm
 * added to its room's table (reference/registry_ref.c,
 * optimized/cpu/registry_cpu.c, ...) or registered at run time with
 * tl_register() is listed, verified and tested at once.
 */
#ifndef TRIDLAB_REGISTRY_H
#define TRIDLAB_REGISTRY_H

#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/status.h"
#include "tridlab/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Matrix classes. An algorithm lists the classes inside which its
 * stability is guaranteed; a gallery matrix lists the classes it belongs
 * to. A solve on a matrix in none of its algorithm's classes is reported
 * as TL_OUTSIDE_DOMAIN. */
enum tl_class {
  TL_CLASS_ROW_DD = 1u << 0,     /* |b_i| >= |a_i| + |c_i| for every row      */
  TL_CLASS_STRICT_DD = 1u << 1,  /* |b_i| >  |a_i| + |c_i| for every row      */
  TL_CLASS_COL_DD = 1u << 2,     /* weakly diagonally dominant by columns     */
  TL_CLASS_SPD = 1u << 3,        /* symmetric/Hermitian positive definite     */
  TL_CLASS_NONSINGULAR = 1u << 4,/* any nonsingular matrix (pivoting solvers) */
  TL_CLASS_STRONG_DD = 1u << 5   /* |b_i| >= 2 (|a_i| + |c_i|): Jacobi contracts
                                    by at least 1/2 per sweep                 */
};

/* Layout bits for tl_algorithm.layouts. */
enum { TL_NONPERIODIC = 1u << 0, TL_PERIODIC = 1u << 1 };

/* Parameter kinds. Values are stored as doubles; a TL_PARAM_CHOICE value
 * is the index of the chosen word in `choices` ("a|b|c"). */
typedef enum tl_param_kind { TL_PARAM_INT, TL_PARAM_REAL, TL_PARAM_CHOICE } tl_param_kind;

typedef struct tl_param {
  const char *name;      /* key used in --param key=value              */
  tl_param_kind kind;
  double def;            /* default value (index for a choice)          */
  double min, max;       /* allowed range (ignored for a choice)        */
  const char *choices;   /* "allgather|gather_scatter|pcr" for a choice */
  const char *help;      /* one line                                    */
} tl_param;

#define TL_MAX_PARAMS 8
#define TL_MAX_PARTS 65536

/* Options of one solve. Start from tl_options_init(); set parameters with
 * tl_options_set_param(), which checks them against the algorithm. */
typedef struct tl_options {
  int parts;                 /* P, the number of partitions (>= 1)          */
  const size_t *part_sizes;  /* NULL: as even as possible; else P sizes >= 1
                                summing to n (unequal partitions)            */
  double value[TL_MAX_PARAMS];
  unsigned char is_set[TL_MAX_PARAMS];
  tl_ledger *ledger;         /* NULL, or where a partitioned algorithm records
                                the messages its partitions exchange
                                (tridlab/ledger.h); the caller resets it   */
} tl_options;

struct tl_algorithm;

/* The solve entry point. tl_solve() has already validated the generic
 * arguments (sizes, dtype, layout, finite entries, corners, partitions)
 * before it calls this. x receives nsys*n solutions. */
typedef int (*tl_solve_fn)(const struct tl_algorithm *self, const tl_batch *sys,
                           void *x, const tl_options *opt, tl_info *info);

/* The communication one solve needs, as a ledger (tridlab/ledger.h): what
 * every partition sends and receives in each phase for a batch of the
 * given shape (its n, nsys, dtype and periodic; the arrays are not read)
 * split as opt says (parts, part_sizes, parameters).
 * `solved` is the info of the solve being modelled, for the counts that
 * depend on the data (iterations, the truncation J chosen); it may be
 * NULL where nothing does. Writes into `out` (reset first). This is the
 * formula of the algorithm's page, and the tests compare it with what
 * the simulated and the MPI solves record. */
typedef int (*tl_ledger_model_fn)(const struct tl_algorithm *self, const tl_batch *shape,
                                  const tl_options *opt, const tl_info *solved, tl_ledger *out);

typedef struct tl_algorithm {
  const char *name;        /* registry name: "thomas", "pcr", ...           */
  const char *family;      /* "direct", "cyclic-reduction", "iterative", ... */
  const char *backend;     /* "reference", "lapack", "cpu", "mpi", "cuda"   */
  int exact;               /* 1 exact (up to round-off), 0 approximate      */
  unsigned classes;        /* tl_class bits: where stability is guaranteed  */
  unsigned dtypes;         /* bits (1u << TL_F64) | (1u << TL_C128)         */
  unsigned layouts;        /* TL_NONPERIODIC | TL_PERIODIC                  */
  int partitioned;         /* 1 if it takes --parts P                       */
  size_t min_rows_per_part;/* smallest partition it accepts (1 if none)     */
  const tl_param *params;
  int nparams;
  const char *summary;     /* one line                                      */
  const char *source;      /* paper, section and algorithm number           */
  tl_solve_fn solve;
  tl_ledger_model_fn ledger_model; /* partitioned algorithms: their ledger
                                      formula; NULL when they communicate
                                      nothing                              */
  /* Approximate and iterative algorithms: what their info.dropped and
   * info.bound measure, in one line each (NULL: not reported). Each
   * algorithm normalises them its own way (relative to ||x|| for PDD and
   * DistD2, to ||d|| for ITS), so `tridlab solve` prints these beside
   * the numbers. */
  const char *dropped_means;
  const char *bound_means;
  int checks_entries;      /* 1: solve() makes tl_check_entries' checks
                              itself, inside its own pass over the data,
                              and reports what it finds as tl_check_entries
                              does; tl_solve then skips them              */
  /* The reference this backend runs the phases of (NULL: it is a
   * reference, or stands alone). A backend inherits from it every field
   * it leaves unset -- 0 or NULL: family, exact, classes, dtypes, layouts,
   * partitioned, min_rows_per_part, params (with nparams), summary,
   * source, dropped_means, bound_means (not its ledger model: what it
   * sends is its own) -- so it states only
   * where it differs (its name, backend, solve; a narrower dtype, ...);
   * and where its solve returns TL_ERR_UNSUPPORTED, tl_solve answers with
   * the reference and says so in info->msg (design.md §3). */
  const struct tl_algorithm *reference;
  /* The MPI room's algorithms (tridlab/mpi.h): the program every rank
   * runs on its own slice of rows, and how the rows are laid out over
   * the ranks. NULL for every other backend (the core never reads it;
   * not inherited). */
  const struct tl_mpi_program *mpi;
} tl_algorithm;

#define TL_DTYPE_BIT(dt) (1u << (unsigned)(dt))

/* Most algorithms the registry holds (built in and registered). */
#define TL_REGISTRY_MAX 256

/* The registry, in a fixed order: the rooms of this build (reference,
 * then the optimized backends), then what tl_register() added. The
 * array stays valid for the life of the program. */
const tl_algorithm *const *tl_registry(size_t *count);
/* Look an algorithm up by name; NULL if there is none. */
const tl_algorithm *tl_find(const char *name);
/* Add an algorithm at run time (a student's solver, a plug-in): from
 * then on it is listed, verified and benchmarked like the built-in ones.
 * The descriptor must outlive its use. TL_ERR_ARG (info says why) when
 * the descriptor lacks a name, a solve function, a family, backend,
 * summary or source, a dtype or a layout, declares more than
 * TL_MAX_PARAMS parameters, or its name is taken. */
int tl_register(const tl_algorithm *algo, tl_info *info);
/* algo with what it inherits from algo->reference filled in (see
 * tl_algorithm.reference): algo itself when it has no reference, else
 * *view, a copy. tl_registry() and tl_find() hand out such copies, and
 * tl_solve makes one for a descriptor it is given directly. */
const tl_algorithm *tl_algorithm_resolve(const tl_algorithm *algo, tl_algorithm *view);
/* The room an algorithm comes from ("reference", "cpu", ...), or
 * "registered" for one added by tl_register(). */
const char *tl_algorithm_room(const tl_algorithm *algo);

void tl_options_init(tl_options *opt);
/* Set parameter `key` of `algo` from the text `value`. TL_ERR_ARG (with a
 * message listing the valid keys or choices) when the key is unknown, the
 * value does not parse or is out of range. */
int tl_options_set_param(tl_options *opt, const tl_algorithm *algo, const char *key,
                         const char *value, tl_info *info);
/* Parse "key=value". */
int tl_options_set_param_kv(tl_options *opt, const tl_algorithm *algo, const char *kv,
                            tl_info *info);
/* The value of parameter `key` (its default when unset). NaN if the
 * algorithm has no such parameter. */
double tl_param_value(const tl_algorithm *algo, const tl_options *opt, const char *key);

/* Validate the generic arguments (sizes, dtype, layout, finite entries,
 * corners -- unless algo->checks_entries: then algo->solve checks them
 * --, partitions, and parameter values even when written into opt
 * directly), fold a periodic batch of n <= 2 (tridlab/system.h), then run
 * algo->solve. opt may be NULL (defaults, P = 1). Never modifies the
 * batch; x must not overlap it. An approximate algorithm's TL_OK with a
 * "tol" looser than its default, set by the caller, whose dropped exceeds
 * the default, carries info->msg "ok within tol = ... chosen by the
 * caller ...: the residual ratio may exceed 30" (with the default tol an
 * ok answer is meant to pass LAPACK's tests; with a looser one it may
 * not). */
int tl_solve(const tl_algorithm *algo, const tl_batch *sys, void *x, const tl_options *opt,
             tl_info *info);

/* Bounds of partition p of n rows split in P parts (even split, or the
 * sizes in opt->part_sizes). Writes [*begin, *end). */
void tl_partition_bounds(size_t n, int parts, const size_t *part_sizes, int p, size_t *begin,
                         size_t *end);

#ifdef __cplusplus
}
#endif
#endif
