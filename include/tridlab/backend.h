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

/* Run fn on every system of the batch. Stops at the first error; keeps
 * the first TL_OUTSIDE_DOMAIN message; info->dropped, bound and
 * iterations become the largest over the batch. */
int tl_for_each_system(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info, tl_system_fn fn);

/* Matrix classes (tl_class bits) of one system, measured on its entries:
 * TL_CLASS_ROW_DD, TL_CLASS_STRICT_DD, TL_CLASS_STRONG_DD, TL_CLASS_COL_DD. For periodic
 * systems the corners count as off-diagonal entries. *worst_row (may be
 * NULL) receives the row with the smallest dominance margin
 * |b_i| - |a_i| - |c_i|. */
unsigned tl_classes_d(size_t n, const double *a, const double *b, const double *c, int periodic,
                      long *worst_row);
unsigned tl_classes_z(size_t n, const double complex *a, const double complex *b,
                      const double complex *c, int periodic, long *worst_row);

/* A posteriori check for solvers that are forward but not backward stable
 * (PCR and the partition solvers that use it on their reduced system):
 * LAPACK's residual ratio of x for one system of dtype (the corners of a
 * plain system are not read). TL_OK below TL_THRESH, else TL_OUTSIDE_DOMAIN
 * with "<name>: residual ratio R >= 30: <why>". */
int tl_residual_check(const char *name, tl_dtype dtype, size_t n, int periodic, const void *a,
                      const void *b, const void *c, const void *d, const void *x, const char *why,
                      tl_info *info);

/* Scratch memory: calloc of n elements of `size` bytes, NULL on overflow. */
void *tl_alloc(size_t n, size_t size);

#ifdef __cplusplus
}
#endif
#endif
