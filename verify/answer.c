/* verify/answer.c -- x between guard regions, and the verdict on an
 * answer that broke the solver's interface (verify/answer_internal.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer_internal.h"
#include "tridlab/backend.h"

/* Not zero (solvers write zeros), not a byte of a small double. */
#define GUARD_BYTE 0xA5

void *tl_answer_alloc(size_t count, size_t es)
{
  if (es && count > (SIZE_MAX - 2 * TL_ANSWER_GUARD) / es)
    return NULL;
  unsigned char *block = tl_alloc(count * es + 2 * TL_ANSWER_GUARD, 1);
  if (!block)
    return NULL;
  memset(block, GUARD_BYTE, TL_ANSWER_GUARD);
  memset(block + TL_ANSWER_GUARD + count * es, GUARD_BYTE, TL_ANSWER_GUARD);
  return block + TL_ANSWER_GUARD;
}

void tl_answer_free(void *x)
{
  if (x)
    free((unsigned char *)x - TL_ANSWER_GUARD);
}

/* Changed bytes of one guard, and the offset of the changed byte
 * nearest to x (0: the byte right next to it). */
static size_t changed(const unsigned char *g, int before, size_t *nearest)
{
  size_t count = 0;
  *nearest = TL_ANSWER_GUARD;
  for (size_t k = 0; k < TL_ANSWER_GUARD; k++) {
    size_t offset = before ? TL_ANSWER_GUARD - 1 - k : k;
    if (g[k] != GUARD_BYTE) {
      count++;
      if (offset < *nearest)
        *nearest = offset;
    }
  }
  return count;
}

int tl_answer_check_guards(const tl_algorithm *algo, const void *x, size_t count, size_t es,
                           tl_verify_result *r)
{
  const unsigned char *lo = (const unsigned char *)x - TL_ANSWER_GUARD;
  const unsigned char *hi = (const unsigned char *)x + count * es;
  size_t near_lo, near_hi;
  size_t n_lo = changed(lo, 1, &near_lo), n_hi = changed(hi, 0, &near_hi);
  if (!n_lo && !n_hi)
    return 0;
  char why[sizeof r->note];
  if (n_hi)
    snprintf(why, sizeof why,
             "%s wrote past the end of x: %zu of the %d guard bytes after x[%zu] changed (the "
             "first at offset %zu past the end)",
             algo->name, n_hi, TL_ANSWER_GUARD, count - 1, near_hi);
  else
    snprintf(why, sizeof why,
             "%s wrote before the start of x: %zu of the %d guard bytes before x[0] changed "
             "(the nearest at offset %zu before it)",
             algo->name, n_lo, TL_ANSWER_GUARD, near_lo);
  tl_answer_fault(r, why);
  return 1;
}

void tl_answer_fault(tl_verify_result *r, const char *why)
{
  r->verdict = TL_VERDICT_UNEXPECTED;
  snprintf(r->note, sizeof r->note, "%s", why);
}
