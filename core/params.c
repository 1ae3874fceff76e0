/* core/params.c -- the parameters of a solve (--param key=value, checked
 * against the algorithm's table) and the split of n rows into partitions. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/registry.h"

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

/* Number of words in "w0|w1|w2". */
static int count_choices(const char *choices)
{
  int count = choices && *choices ? 1 : 0;
  for (const char *p = choices; p && *p; p++)
    count += *p == '|';
  return count;
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

/* Parameter values written into tl_options directly, not through
 * tl_options_set_param(), get the same checks. */
int tl_check_params(const tl_algorithm *algo, const tl_options *opt, tl_info *info)
{
  for (int k = 0; opt && k < algo->nparams && k < TL_MAX_PARAMS; k++) {
    const tl_param *p = &algo->params[k];
    double v = opt->value[k];
    if (!opt->is_set[k])
      continue;
    int ok = p->kind == TL_PARAM_CHOICE
                 ? v >= 0 && v == floor(v) && v < (double)count_choices(p->choices)
                 : v >= p->min && v <= p->max && (p->kind != TL_PARAM_INT || v == floor(v));
    if (!ok)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "%s: parameter %s = %g is not valid",
                     algo->name, p->name, v);
  }
  return TL_OK;
}

/* With its default tolerance an approximate algorithm's ok answer passes
 * LAPACK's tests (ratios below 30); with a looser tolerance set by the
 * caller it need not, and its ok says so when it used the slack. */
void tl_note_caller_tolerance(const tl_algorithm *algo, const tl_options *opt, int status,
                              tl_info *info)
{
  if (status != TL_OK || !algo || !info || !opt)
    return;
  int k = param_index(algo, "tol");
  if (k < 0 || !opt->is_set[k])
    return;
  double def = algo->params[k].def, tol = opt->value[k];
  if (tol > def && info->dropped > def)
    snprintf(info->msg, sizeof info->msg,
             "ok within tol = %.3g chosen by the caller (default %.3g, dropped %.3g): the "
             "residual ratio may exceed 30",
             tol, def, info->dropped);
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

