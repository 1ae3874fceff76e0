/* reference/registry.c -- the algorithm registry and the generic solve.
 *
 * The table below is the one place an algorithm is added. tl_solve()
 * checks everything that does not depend on the algorithm (sizes, dtype,
 * layout, corners, finite entries, partitions) so that every entry point
 * rejects bad input the same way, then calls the algorithm.
 */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/registry.h"

extern const tl_algorithm tl_algo_thomas_ref;
extern const tl_algorithm tl_algo_thomas_periodic_ref;
extern const tl_algorithm tl_algo_cr_ref;
extern const tl_algorithm tl_algo_pcr_ref;
extern const tl_algorithm tl_algo_jacobi_ref;
extern const tl_algorithm tl_algo_gtsv_ref;
extern const tl_algorithm tl_algo_hybrid_pcr_ref;
extern const tl_algorithm tl_algo_tridsolver_ref;
extern const tl_algorithm tl_algo_distd2_ref;
extern const tl_algorithm tl_algo_ptdma_ref;
extern const tl_algorithm tl_algo_its_ref;
extern const tl_algorithm tl_algo_nshaped_ref;
extern const tl_algorithm tl_algo_pdd_ref;
extern const tl_algorithm tl_algo_rpdd_ref;
extern const tl_algorithm tl_algo_thomas_cpu;
extern const tl_algorithm tl_algo_thomas_periodic_cpu;

static const tl_algorithm *const registry[] = {
    &tl_algo_thomas_ref, &tl_algo_thomas_periodic_ref, &tl_algo_cr_ref,
    &tl_algo_pcr_ref,    &tl_algo_jacobi_ref,          &tl_algo_gtsv_ref,
    /* partition algorithms, simulated over P partitions */
    &tl_algo_hybrid_pcr_ref, &tl_algo_tridsolver_ref, &tl_algo_distd2_ref, &tl_algo_ptdma_ref,
    &tl_algo_pdd_ref,        &tl_algo_rpdd_ref,       &tl_algo_its_ref,    &tl_algo_nshaped_ref,
    /* optimized backends (optimized/), checked against their reference */
    &tl_algo_thomas_cpu, &tl_algo_thomas_periodic_cpu,
};

const tl_algorithm *const *tl_registry(size_t *count)
{
  if (count)
    *count = sizeof registry / sizeof registry[0];
  return registry;
}

const tl_algorithm *tl_find(const char *name)
{
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (strcmp(registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}

/* ---------------------------------------------------------------- */
/* Parameters                                                        */

void tl_options_init(tl_options *opt)
{
  memset(opt, 0, sizeof *opt);
  opt->parts = 1;
}

static int param_index(const tl_algorithm *algo, const char *key)
{
  for (int i = 0; i < algo->nparams && i < TL_MAX_PARAMS; i++)
    if (strcmp(algo->params[i].name, key) == 0)
      return i;
  return -1;
}

/* Index of `word` in "w0|w1|w2", or -1. */
static int choice_index(const char *choices, const char *word)
{
  size_t len = strlen(word);
  int idx = 0;
  for (const char *p = choices; p && *p; idx++) {
    const char *bar = strchr(p, '|');
    size_t plen = bar ? (size_t)(bar - p) : strlen(p);
    if (plen == len && strncmp(p, word, len) == 0)
      return idx;
    p = bar ? bar + 1 : NULL;
  }
  return -1;
}

static void list_keys(const tl_algorithm *algo, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < algo->nparams; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s", i ? ", " : "", algo->params[i].name);
  }
  if (!algo->nparams)
    snprintf(buf, size, "none");
}

int tl_options_set_param(tl_options *opt, const tl_algorithm *algo, const char *key,
                         const char *value, tl_info *info)
{
  if (!opt || !algo || !key || !value)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "missing parameter key or value");
  int k = param_index(algo, key);
  if (k < 0) {
    char keys[160];
    list_keys(algo, keys, sizeof keys);
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param",
                   "%s has no parameter '%s' (its parameters: %s)", algo->name, key, keys);
  }
  const tl_param *p = &algo->params[k];
  double v;
  if (p->kind == TL_PARAM_CHOICE) {
    int c = choice_index(p->choices, value);
    if (c < 0)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "%s: %s=%s is not one of %s",
                     algo->name, key, value, p->choices);
    v = c;
  } else {
    char *end = NULL;
    errno = 0;
    v = strtod(value, &end);
    if (end == value || *end != '\0' || errno == ERANGE || !isfinite(v))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "%s: %s=%s is not a number", algo->name,
                     key, value);
    if (p->kind == TL_PARAM_INT && v != floor(v))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "%s: %s=%s must be an integer",
                     algo->name, key, value);
    if (v < p->min || v > p->max)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "%s: %s=%s is outside [%g, %g]",
                     algo->name, key, value, p->min, p->max);
  }
  opt->value[k] = v;
  opt->is_set[k] = 1;
  return TL_OK;
}

int tl_options_set_param_kv(tl_options *opt, const tl_algorithm *algo, const char *kv,
                            tl_info *info)
{
  const char *eq = kv ? strchr(kv, '=') : NULL;
  if (!eq || eq == kv)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "parameter '%s' is not key=value",
                   kv ? kv : "(null)");
  char key[64];
  size_t klen = (size_t)(eq - kv);
  if (klen >= sizeof key)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "parameter key too long");
  memcpy(key, kv, klen);
  key[klen] = '\0';
  return tl_options_set_param(opt, algo, key, eq + 1, info);
}

double tl_param_value(const tl_algorithm *algo, const tl_options *opt, const char *key)
{
  int k = param_index(algo, key);
  if (k < 0)
    return NAN;
  if (opt && opt->is_set[k])
    return opt->value[k];
  return algo->params[k].def;
}

/* ---------------------------------------------------------------- */
/* Partitions                                                        */

void tl_partition_bounds(size_t n, int parts, const size_t *part_sizes, int p, size_t *begin,
                         size_t *end)
{
  if (part_sizes) {
    size_t b = 0;
    for (int q = 0; q < p; q++)
      b += part_sizes[q];
    *begin = b;
    *end = b + part_sizes[p];
    return;
  }
  /* Even split: the first n % P partitions get one extra row. */
  size_t P = (size_t)parts, base = n / P, extra = n % P, q = (size_t)p;
  *begin = q * base + (q < extra ? q : extra);
  *end = *begin + base + (q < extra ? 1 : 0);
}

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

/* 1 when all `count` doubles are finite. Reads the exponent bits (all
 * ones: infinite or NaN) with an integer OR, a loop compilers vectorise:
 * the check costs a fraction of a solve, so fast backends stay fast. */
static int all_finite(const double *v, size_t count)
{
  uint64_t bad = 0;
  for (size_t k = 0; k < count; k++) {
    uint64_t bits;
    memcpy(&bits, v + k, sizeof bits);
    bad |= (~bits & 0x7ff0000000000000u) == 0;
  }
  return !bad;
}

static int check_entries(const tl_batch *sys, tl_info *info)
{
  const void *arrs[4] = {sys->a, sys->b, sys->c, sys->d};
  static const char *const names[4] = {"a", "b", "c", "d"};
  size_t doubles = sys->n * sys->nsys * (sys->dtype == TL_F64 ? 1 : 2);
  for (int k = 0; k < 4; k++) {
    if (!arrs[k])
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, names[k], "array %s is NULL", names[k]);
    if (all_finite(arrs[k], doubles))
      continue;
    /* Which entry: the first one that is not finite. */
    for (size_t s = 0; s < sys->nsys; s++)
      for (size_t i = 0; i < sys->n; i++)
        if (!finite_at(sys, arrs[k], s * sys->n + i))
          return TL_FAIL(info, TL_ERR_ARG, (long)s, (long)i, names[k],
                         "%s[%zu] of system %zu is not finite", names[k], i, s);
  }
  if (!sys->periodic) {
    for (size_t s = 0; s < sys->nsys; s++) {
      if (nonzero_at(sys, sys->a, s * sys->n))
        return TL_FAIL(info, TL_ERR_ARG, (long)s, 0, "a",
                       "a[0] of system %zu is a non-zero corner, but the system is not "
                       "periodic (declare it periodic or set a[0] = 0)",
                       s);
      if (nonzero_at(sys, sys->c, s * sys->n + sys->n - 1))
        return TL_FAIL(info, TL_ERR_ARG, (long)s, (long)sys->n - 1, "c",
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

static int check_partitions(const tl_algorithm *algo, const tl_batch *sys, const tl_options *opt,
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
    size_t total = 0;
    for (int p = 0; p < P; p++) {
      if (opt->part_sizes[p] < minrows)
        return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                       "partition %d has %zu rows; %s needs at least %zu per partition", p,
                       opt->part_sizes[p], algo->name, minrows);
      total += opt->part_sizes[p];
    }
    if (total != sys->n)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "partition sizes add up to %zu rows, the system has %zu", total, sys->n);
  } else if (sys->n / (size_t)P < minrows) {
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "n = %zu is too small for %d partitions: %s needs at least %zu rows per "
                   "partition",
                   sys->n, P, algo->name, minrows);
  }
  return TL_OK;
}

int tl_solve(const tl_algorithm *algo, const tl_batch *sys, void *x, const tl_options *opt,
             tl_info *info)
{
  tl_info_clear(info);
  if (!algo)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "no algorithm given");
  if (!sys)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "sys", "no system given");
  size_t es = tl_dtype_size(sys->dtype);
  if (!es)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dtype", "unknown dtype %d", (int)sys->dtype);
  if (!(algo->dtypes & TL_DTYPE_BIT(sys->dtype)))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dtype", "%s does not solve %s systems",
                   algo->name, tl_dtype_name(sys->dtype));
  if (sys->n < 1)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "n = 0: a system needs at least one row");
  if (sys->nsys < 1)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nsys", "nsys = 0: the batch is empty");
  if (sys->n > SIZE_MAX / sys->nsys / es)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "n * nsys overflows");
  unsigned layout = sys->periodic ? TL_PERIODIC : TL_NONPERIODIC;
  if (!(algo->layouts & layout))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "periodic", "%s does not solve %s systems%s",
                   algo->name, sys->periodic ? "periodic" : "non-periodic",
                   sys->periodic ? " (try thomas_periodic)" : "");
  if (!x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "x", "output array x is NULL");
  TL_CALL(check_entries(sys, info));
  size_t bytes = sys->n * sys->nsys * es;
  const void *ins[4] = {sys->a, sys->b, sys->c, sys->d};
  for (int k = 0; k < 4; k++)
    if (overlaps(x, ins[k], bytes))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "x", "output x overlaps input array %c",
                     "abcd"[k]);
  TL_CALL(check_partitions(algo, sys, opt, info));
  tl_options defaults;
  if (!opt) {
    tl_options_init(&defaults);
    opt = &defaults;
  }
  int status = algo->solve(algo, sys, x, opt, info);
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

int tl_for_each_system(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info, tl_system_fn fn)
{
  size_t es = tl_dtype_size(sys->dtype);
  int worst = TL_OK;
  tl_info first_warning;
  tl_info_clear(&first_warning);
  double dropped = 0.0, bound = 0.0, tol = 0.0;
  int iterations = 0;
  for (size_t s = 0; s < sys->nsys; s++) {
    tl_batch one = tl_batch_system(sys, s);
    tl_info one_info;
    tl_info_clear(&one_info);
    int st = fn(self, &one, (char *)x + s * sys->n * es, opt, &one_info);
    one_info.system = (long)s;
    if (one_info.dropped > dropped)
      dropped = one_info.dropped;
    if (one_info.bound > bound)
      bound = one_info.bound;
    if (one_info.tol > tol)
      tol = one_info.tol;
    if (one_info.iterations > iterations)
      iterations = one_info.iterations;
    if (st < 0) {
      if (info) {
        *info = one_info;
        info->status = st;
        if (sys->nsys > 1)
          prefix_system(info, (long)s);
      }
      return st;
    }
    if (st == TL_OUTSIDE_DOMAIN && worst == TL_OK) {
      worst = st;
      first_warning = one_info;
    }
  }
  if (info) {
    if (worst != TL_OK) {
      *info = first_warning;
      if (sys->nsys > 1)
        prefix_system(info, first_warning.system);
    }
    info->status = worst;
    info->dropped = dropped;
    info->bound = bound;
    info->tol = tol;
    info->iterations = iterations;
  }
  return worst;
}
