/* core/solve.c -- tl_solve: the checks that do not depend on the
 * algorithm (sizes, dtype, layout, corners, finite entries, partitions),
 * made the same way for every entry point before the algorithm runs; and
 * the per-system driver that turns a one-system kernel into a batch solve.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/registry.h"

/* ---------------------------------------------------------------- */
/* Validation                                                        */

static int nonzero_at(const tl_batch *sys, const void *arr, size_t k)
{
  if (sys->dtype == TL_F64)
    return ((const double *)arr)[k] != 0.0;
  return ((const double complex *)arr)[k] != 0.0;
}

static int finite_at(const tl_batch *sys, const void *arr, size_t k)
{
  if (sys->dtype == TL_F64)
    return isfinite(((const double *)arr)[k]);
  double complex z = ((const double complex *)arr)[k];
  return isfinite(creal(z)) && isfinite(cimag(z));
}

/* 1 when the exponent bits of the double at v are all ones (infinite or
 * NaN), as bit 63 of the result: (~bits & EXP) is zero exactly then, and
 * zero minus one is the only case that sets the top bit. */
#define EXP_BITS 0x7ff0000000000000u
static inline uint64_t not_finite_bit(const double *v)
{
  uint64_t bits;
  memcpy(&bits, v, sizeof bits);
  return (~bits & EXP_BITS) - 1u;
}

/* 1 when all `count` doubles are finite. Integer operations only, OR-ed
 * into eight independent accumulators: no branch and no chain of
 * dependent ORs, so the loop runs at the memory's speed (measured out of
 * cache, one thread: 12 GB/s with one accumulator and a comparison per
 * entry, 21 GB/s this way) -- the check costs a fraction of a solve, so
 * fast backends stay fast. */
static int all_finite(const double *v, size_t count)
{
  uint64_t acc[8] = {0};
  size_t k = 0;
  for (; k + 8 <= count; k += 8)
    for (int j = 0; j < 8; j++)
      acc[j] |= not_finite_bit(v + k + j);
  for (; k < count; k++)
    acc[0] |= not_finite_bit(v + k);
  uint64_t any = 0;
  for (int j = 0; j < 8; j++)
    any |= acc[j];
  return !(any >> 63);
}

static const char *const entry_names[4] = {"a", "b", "c", "d"};

/* TL_ERR_ARG when one of a, b, c, d is NULL. */
static int check_present(const tl_batch *sys, tl_info *info)
{
  const void *arrs[4] = {sys->a, sys->b, sys->c, sys->d};
  for (int k = 0; k < 4; k++)
    if (!arrs[k])
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, entry_names[k], "array %s is NULL", entry_names[k]);
  return TL_OK;
}

int tl_corners_fine(const tl_batch *sys, size_t row0, size_t n_total)
{
  if (sys->periodic || sys->n == 0)
    return 1;
  int first = row0 == 0, last = row0 + sys->n == n_total;
  for (size_t s = 0; s < sys->nsys; s++)
    if ((first && nonzero_at(sys, sys->a, s * sys->n)) ||
        (last && nonzero_at(sys, sys->c, s * sys->n + sys->n - 1)))
      return 0;
  return 1;
}

int tl_entries_fine(const tl_batch *sys, size_t row0, size_t n_total)
{
  const void *arrs[4] = {sys->a, sys->b, sys->c, sys->d};
  size_t doubles = sys->n * sys->nsys * (sys->dtype == TL_F64 ? 1 : 2);
  if (sys->n == 0)
    return 1;
  for (int k = 0; k < 4; k++)
    if (!all_finite(arrs[k], doubles))
      return 0;
  return tl_corners_fine(sys, row0, n_total);
}

int tl_check_entries(const tl_batch *sys, size_t row0, size_t n_total, tl_info *info)
{
  const void *arrs[4] = {sys->a, sys->b, sys->c, sys->d};
  const char *const *names = entry_names;
  size_t doubles = sys->n * sys->nsys * (sys->dtype == TL_F64 ? 1 : 2);
  TL_CALL(check_present(sys, info));
  if (tl_entries_fine(sys, row0, n_total))
    return TL_OK; /* else the first entry at fault, for the report */
  for (int k = 0; k < 4; k++) {
    if (all_finite(arrs[k], doubles))
      continue;
    /* Which entry: the first one that is not finite. */
    for (size_t s = 0; s < sys->nsys; s++)
      for (size_t i = 0; i < sys->n; i++)
        if (!finite_at(sys, arrs[k], s * sys->n + i))
          return TL_FAIL(info, TL_ERR_ARG, (long)s, (long)(row0 + i), names[k],
                         "%s[%zu] of system %zu is not finite", names[k], row0 + i, s);
  }
  if (!sys->periodic) {
    int first = row0 == 0, last = row0 + sys->n == n_total;
    for (size_t s = 0; s < sys->nsys; s++) {
      if (first && nonzero_at(sys, sys->a, s * sys->n))
        return TL_FAIL(info, TL_ERR_ARG, (long)s, 0, "a",
                       "a[0] of system %zu is a non-zero corner, but the system is not "
                       "periodic (declare it periodic or set a[0] = 0)",
                       s);
      if (last && nonzero_at(sys, sys->c, s * sys->n + sys->n - 1))
        return TL_FAIL(info, TL_ERR_ARG, (long)s, (long)n_total - 1, "c",
                       "c[n-1] of system %zu is a non-zero corner, but the system is not "
                       "periodic (declare it periodic or set c[n-1] = 0)",
                       s);
    }
  }
  return TL_OK;
}

static int overlaps(const void *p, const void *q, size_t bytes)
{
  const char *a = p, *b = q;
  return a < b + bytes && b < a + bytes;
}

int tl_check_batch(const tl_algorithm *algo, const tl_batch *sys, size_t row0, size_t n_total,
                   const void *x, int entries, tl_info *info)
{
  size_t es = tl_dtype_size(sys->dtype);
  if (!es)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dtype", "unknown dtype %d", (int)sys->dtype);
  if (!(algo->dtypes & TL_DTYPE_BIT(sys->dtype)))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dtype", "%s does not solve %s systems",
                   algo->name, tl_dtype_name(sys->dtype));
  if (n_total < 1)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "n = 0: a system needs at least one row");
  if (sys->nsys < 1)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nsys", "nsys = 0: the batch is empty");
  if (n_total > SIZE_MAX / sys->nsys / es)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "n * nsys overflows");
  unsigned layout = sys->periodic ? TL_PERIODIC : TL_NONPERIODIC;
  if (!(algo->layouts & layout))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "periodic", "%s does not solve %s systems%s",
                   algo->name, sys->periodic ? "periodic" : "non-periodic",
                   sys->periodic ? " (try thomas_periodic)" : "");
  if (!x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "x", "output array x is NULL");
  if (sys->n == 0)
    return TL_OK; /* a slice without rows: nothing of its own to check */
  if (entries)
    TL_CALL(tl_check_entries(sys, row0, n_total, info));
  else
    TL_CALL(check_present(sys, info));
  size_t bytes = sys->n * sys->nsys * es;
  const void *ins[4] = {sys->a, sys->b, sys->c, sys->d};
  for (int k = 0; k < 4; k++)
    if (overlaps(x, ins[k], bytes))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "x", "output x overlaps input array %c", "abcd"[k]);
  return TL_OK;
}

int tl_check_partitions(const tl_algorithm *algo, const tl_batch *sys, const tl_options *opt,
                        tl_info *info)
{
  int P = opt ? opt->parts : 1;
  if (P < 1 || P > TL_MAX_PARTS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "parts = %d is outside [1, %d]", P,
                   TL_MAX_PARTS);
  if (!algo->partitioned) {
    if (P != 1 || (opt && opt->part_sizes))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "%s is not a partitioned algorithm; it takes no --parts", algo->name);
    return TL_OK;
  }
  size_t minrows = algo->min_rows_per_part ? algo->min_rows_per_part : 1;
  if (opt && opt->part_sizes) {
    /* Each size on its own first, then the running sum against n: a sum
     * of size_t values may wrap around to n (SIZE_MAX + 21 = 20), and a
     * partition that passed a wrapped sum would index past every array. */
    size_t total = 0;
    for (int p = 0; p < P; p++) {
      size_t rows = opt->part_sizes[p];
      if (rows < minrows)
        return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                       "partition %d has %zu rows; %s needs at least %zu per partition", p,
                       rows, algo->name, minrows);
      if (rows > sys->n - total) {
        if (p == 0)
          return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                         "partition 0 has %zu rows, more than the system's %zu", rows, sys->n);
        return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                       "partition %d has %zu rows, but only %zu of the system's %zu rows are "
                       "left after the partitions before it",
                       p, rows, sys->n - total, sys->n);
      }
      total += rows;
    }
    if (total != sys->n)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "partition sizes add up to %zu rows, the system has %zu", total, sys->n);
  } else if (sys->n / (size_t)P < minrows) {
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "n = %zu is too small for %d partitions: %s needs at least %zu row%s per "
                   "partition",
                   sys->n, P, algo->name, minrows, minrows == 1 ? "" : "s");
  }
  return TL_OK;
}

/* A backend said unsupported after the checks (a partition count its
 * kernel does not take, a device that failed): the reference it runs the
 * phases of answers instead, where it takes the same arguments, and the
 * message says so -- the caller gets an answer and knows whose. */
static int answer_with_reference(const tl_algorithm *algo, const tl_batch *sys, void *x,
                                 const tl_options *opt, tl_info *info)
{
  tl_algorithm view;
  const tl_algorithm *ref = tl_algorithm_resolve(algo->reference, &view);
  char why[sizeof info->msg];
  snprintf(why, sizeof why, "%s", info ? info->msg : "");
  tl_info_clear(info);
  if (!(ref->dtypes & TL_DTYPE_BIT(sys->dtype)) ||
      !(ref->layouts & (sys->periodic ? TL_PERIODIC : TL_NONPERIODIC)) ||
      tl_check_partitions(ref, sys, opt, info) != TL_OK || tl_check_params(ref, opt, info) != TL_OK)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo", "%.240s", why);
  int status = ref->solve(ref, sys, x, opt, info);
  if (info) {
    char msg[sizeof info->msg];
    snprintf(msg, sizeof msg, "%.100s%sanswered by the reference %s (%.100s)", info->msg,
             info->msg[0] ? "; " : "", ref->name, why);
    memcpy(info->msg, msg, sizeof msg);
  }
  return status;
}

int tl_solve(const tl_algorithm *algo, const tl_batch *sys, void *x, const tl_options *opt,
             tl_info *info)
{
  tl_info_clear(info);
  tl_algorithm view; /* a descriptor given directly: what it inherits filled in */
  algo = tl_algorithm_resolve(algo, &view);
  if (!algo)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "no algorithm given");
  if (!sys)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "sys", "no system given");
  /* A backend that checks the entries inside its solve saves a pass over
   * the whole batch: the check would cost as much time as the solve. */
  int entries = !(algo->checks_entries && !(sys->periodic && sys->n <= 2)); /* folded: first */
  TL_CALL(tl_check_batch(algo, sys, 0, sys->n, x, entries, info));
  TL_CALL(tl_check_partitions(algo, sys, opt, info));
  TL_CALL(tl_check_params(algo, opt, info));
  tl_options defaults;
  if (!opt) {
    tl_options_init(&defaults);
    opt = &defaults;
  }
  tl_batch folded; /* periodic n <= 2: the one matrix every algorithm solves */
  void *storage;
  TL_CALL(tl_batch_fold_periodic(sys, &folded, &storage, info));
  int status = algo->solve(algo, &folded, x, opt, info);
  if (status == TL_ERR_UNSUPPORTED && algo->reference)
    status = answer_with_reference(algo, &folded, x, opt, info);
  free(storage);
  tl_note_caller_tolerance(algo, opt, status, info);
  if (info)
    info->status = status;
  return status;
}

/* ---------------------------------------------------------------- */
/* The per-system driver                                             */

/* "system s: " in front of a message, so a batch report says which one. */
static void prefix_system(tl_info *info, long s)
{
  char msg[sizeof info->msg];
  snprintf(msg, sizeof msg, "system %ld: %.220s", s, info->msg);
  memcpy(info->msg, msg, sizeof msg);
}

void tl_outcome_init(tl_outcome *o, size_t nsys)
{
  memset(o, 0, sizeof *o);
  o->nsys = nsys;
  o->status = TL_OK;
  tl_info_clear(&o->first);
}

int tl_outcome_add(tl_outcome *o, size_t s, int status, const tl_info *one)
{
  if (o->status < 0)
    return o->status; /* an earlier system failed: the batch stops there */
  if (one->dropped > o->dropped)
    o->dropped = one->dropped;
  if (one->bound > o->bound)
    o->bound = one->bound;
  if (one->tol > o->tol)
    o->tol = one->tol;
  if (one->iterations > o->iterations)
    o->iterations = one->iterations;
  if (status < 0 || (status == TL_OUTSIDE_DOMAIN && o->status == TL_OK)) {
    o->first = *one;
    o->first.system = (long)s;
    o->first.status = status;
    o->status = status;
  }
  return o->status;
}

int tl_outcome_finish(const tl_outcome *o, tl_info *info)
{
  if (!info)
    return o->status;
  tl_info_clear(info);
  if (o->status != TL_OK) {
    *info = o->first;
    if (o->nsys > 1)
      prefix_system(info, o->first.system);
  }
  info->status = o->status;
  if (o->status >= 0) { /* a failed batch reports the failing system's own numbers */
    info->dropped = o->dropped;
    info->bound = o->bound;
    info->tol = o->tol;
    info->iterations = o->iterations;
  }
  return o->status;
}

/* What solves one system: an algorithm's tl_system_fn, or a pair of
 * reference kernels (tl_solve_each). With `mine`, the system records its
 * messages there (opt->ledger), and they move into `batch` in the rounds
 * of its mini-batch of mb (tl_for_each_system_in_minibatches). */
typedef struct one_solver {
  const tl_algorithm *self;
  const tl_options *opt;
  tl_system_fn fn;
  tl_kernel_d_fn kd;
  tl_kernel_z_fn kz;
  tl_ledger *mine, *batch;
  size_t mb;
  int stride;
} one_solver;

static int solve_one(const one_solver *o, const tl_batch *one, void *x, tl_info *info)
{
  if (o->fn)
    return o->fn(o->self, one, x, o->opt, info);
  if (one->dtype == TL_F64)
    return o->kd(one->n, one->a, one->b, one->c, one->d, x, info);
  if (!o->kz)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dtype", "no complex kernel");
  return o->kz(one->n, one->a, one->b, one->c, one->d, x, info);
}

/* The batch, system by system; the first error stops it (tl_outcome). */
static int each_system(const one_solver *o, const tl_batch *sys, void *x, tl_info *info)
{
  size_t es = tl_dtype_size(sys->dtype);
  tl_outcome out;
  tl_outcome_init(&out, sys->nsys);
  for (size_t s = 0; s < sys->nsys && out.status >= 0; s++) {
    tl_batch one = tl_batch_system(sys, s);
    tl_info one_info;
    tl_info_clear(&one_info);
    tl_ledger_reset(o->mine);
    int st = solve_one(o, &one, (char *)x + s * sys->n * es, &one_info);
    if (o->mine)
      tl_ledger_merge_in_round(o->batch, o->mine, (int)(s / o->mb) * o->stride);
    tl_outcome_add(&out, s, st, &one_info);
  }
  return tl_outcome_finish(&out, info);
}

int tl_for_each_system(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info, tl_system_fn fn)
{
  one_solver o = {.self = self, .opt = opt, .fn = fn};
  return each_system(&o, sys, x, info);
}

int tl_for_each_system_in_minibatches(const tl_algorithm *self, const tl_batch *sys, void *x,
                                      const tl_options *opt, size_t mb, int stride, tl_info *info,
                                      tl_system_fn fn)
{
  if (mb == 0 || mb >= sys->nsys || !opt || !opt->ledger)
    return tl_for_each_system(self, sys, x, opt, info, fn);
  tl_ledger mine; /* one system's messages, then moved into its rounds */
  tl_ledger_init(&mine);
  tl_options each = *opt;
  each.ledger = &mine;
  one_solver o = {.self = self,
                  .opt = &each,
                  .fn = fn,
                  .mine = &mine,
                  .batch = opt->ledger,
                  .mb = mb,
                  .stride = stride};
  int status = each_system(&o, sys, x, info);
  tl_ledger_free(&mine);
  return status;
}

size_t tl_minibatch_systems(size_t n, int P, size_t nsys, size_t minibatch)
{
  size_t widest = P > 0 ? (n + (size_t)P - 1) / (size_t)P : n;
  size_t mb = minibatch;
  if (mb == 0) { /* 2^15 rows of the even slice, in whole groups of 8 */
    mb = widest ? ((size_t)1 << 15) / widest / 8 * 8 : 8;
    mb = mb < 8 ? 8 : mb;
  }
  mb = mb > nsys ? nsys : mb;
  return mb ? mb : 1;
}

int tl_solve_each(const tl_batch *sys, void *x, tl_info *info, tl_kernel_d_fn kd,
                  tl_kernel_z_fn kz)
{
  one_solver o = {.kd = kd, .kz = kz};
  return each_system(&o, sys, x, info);
}
