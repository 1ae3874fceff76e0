/* optimized/mpi/status_mpi.c -- one status for a batch solved by many
 * ranks.
 *
 * The simulated reference meets failures in a fixed order: system after
 * system (tl_for_each_system), and inside a system phase after phase,
 * partition after partition; the first one it meets is what it reports.
 * An MPI rank only sees its own rows, so each rank notes, per system, the
 * first failure in its rows as a key that sorts like that order:
 *
 *   key = base - (phase * P + rank),  base = 2^40 for errors, 2^30 for
 *                                      outside-domain warnings
 *
 * (a larger key is an earlier failure, and any error beats any warning).
 * The keys ride in the verdict's allreduce as the first (value, row) pair
 * of every system, combined by "largest" (tl_pair_max); afterwards every
 * rank knows, for every system, who failed first, and that rank
 * broadcasts its report (phase "report") -- only when something failed.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

#define ERR_BASE 0x1p40
#define WARN_BASE 0x1p30

int tl_mpi_status_init(tl_mpi_status *st, tl_mpi_exchange *ex, size_t nsys, tl_info *info)
{
  memset(st, 0, sizeof *st);
  st->ex = ex;
  st->nsys = nsys;
  st->key = tl_alloc(nsys, sizeof *st->key);
  st->row = tl_alloc(nsys, sizeof *st->row);
  st->note = tl_alloc(nsys, sizeof *st->note);
  if (!st->key || !st->row || !st->note) {
    tl_mpi_status_free(st);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "mpi: no memory for the status of %zu systems",
                   nsys);
  }
  return TL_OK;
}

void tl_mpi_status_free(tl_mpi_status *st)
{
  if (st->note)
    for (size_t s = 0; s < st->nsys; s++)
      free(st->note[s]);
  free(st->key);
  free(st->row);
  free(st->note);
  memset(st, 0, sizeof *st);
}

void tl_mpi_status_note(tl_mpi_status *st, size_t s, int phase, int status, const tl_info *one)
{
  if (status == TL_OK)
    return;
  double code = (double)phase * st->ex->size + st->ex->rank;
  double key = (status < 0 ? ERR_BASE : WARN_BASE) - code;
  if (key <= st->key[s])
    return; /* an earlier failure of this system is already noted */
  if (!st->note[s])
    st->note[s] = malloc(sizeof(tl_info));
  if (st->note[s]) {
    *st->note[s] = *one;
    st->note[s]->status = status;
  }
  st->key[s] = key;
  st->row[s] = one->row;
}

void tl_mpi_status_pairs(const tl_mpi_status *st, double *pairs, size_t stride)
{
  for (size_t s = 0; s < st->nsys; s++) {
    pairs[2 * s * stride] = st->key[s];
    pairs[2 * s * stride + 1] = (double)st->row[s];
  }
}

int tl_mpi_status_failed(const double *pairs, size_t stride, size_t s)
{
  return pairs[2 * s * stride] > ERR_BASE / 2;
}

int tl_mpi_status_warned(const double *pairs, size_t stride, size_t s)
{
  double key = pairs[2 * s * stride];
  return key > 0 && key <= ERR_BASE / 2;
}

/* The report of system s from the rank that noted its winning key. A
 * tl_info travels as bytes inside doubles; its `file` pointer only means
 * something on the rank that set it. */
int tl_mpi_status_report(tl_mpi_status *st, const double *pairs, size_t stride, size_t s,
                         tl_info *one)
{
  double key = pairs[2 * s * stride];
  double code = (key > ERR_BASE / 2 ? ERR_BASE : WARN_BASE) - key;
  int P = st->ex->size, owner = (int)((long long)code % P);
  enum { WORDS = (sizeof(tl_info) + sizeof(double) - 1) / sizeof(double) };
  double buf[WORDS];
  memset(buf, 0, sizeof buf);
  if (st->ex->rank == owner && st->note[s])
    memcpy(buf, st->note[s], sizeof(tl_info));
  int rc = tl_mpi_bcast(st->ex, "report", 0, TL_F64, buf, WORDS, owner);
  if (rc < 0)
    return rc;
  memcpy(one, buf, sizeof(tl_info));
  if (st->ex->rank != owner)
    one->file = NULL;
  one->system = (long)s;
  return TL_OK;
}

int tl_mpi_status_first_error(tl_mpi_status *st, const double *pairs, size_t stride,
                              tl_info *info)
{
  for (size_t s = 0; s < st->nsys; s++) {
    if (!tl_mpi_status_failed(pairs, stride, s))
      continue;
    tl_info one;
    TL_CALL(tl_mpi_status_report(st, pairs, stride, s, &one));
    tl_outcome out;
    tl_outcome_init(&out, st->nsys);
    tl_outcome_add(&out, s, one.status, &one);
    return tl_outcome_finish(&out, info);
  }
  return 0;
}

int tl_mpi_status_warning(tl_mpi_status *st, const double *pairs, size_t stride, size_t s,
                          tl_info *one)
{
  TL_CALL(tl_mpi_status_report(st, pairs, stride, s, one));
  return TL_OUTSIDE_DOMAIN;
}

int tl_mpi_status_outcome(tl_mpi_status *st, const double *pairs, size_t stride, tl_info *info)
{
  int status = tl_mpi_status_first_error(st, pairs, stride, info);
  if (status != 0)
    return status;
  tl_outcome out;
  tl_outcome_init(&out, st->nsys);
  for (size_t s = 0; s < st->nsys; s++) {
    tl_info one;
    tl_info_clear(&one);
    int sst = TL_OK;
    if (tl_mpi_status_warned(pairs, stride, s)) {
      TL_CALL(tl_mpi_status_warning(st, pairs, stride, s, &one));
      sst = TL_OUTSIDE_DOMAIN;
    }
    tl_outcome_add(&out, s, sst, &one);
    if (sst != TL_OK)
      break; /* the first warning is the batch's report */
  }
  return tl_outcome_finish(&out, info);
}

int tl_mpi_status_verdicts(tl_mpi_status *st, const double *pairs, size_t stride,
                           tl_mpi_verdict_fn judge, void *ctx, tl_info *info)
{
  int failed = tl_mpi_status_first_error(st, pairs, stride, info);
  tl_outcome out;
  tl_outcome_init(&out, st->nsys);
  for (size_t s = 0; failed == 0 && s < st->nsys; s++) { /* every system, in order */
    tl_info one;
    tl_info_clear(&one);
    int verdict = judge(ctx, s, pairs + 2 * stride * s, &one);
    tl_outcome_add(&out, s, verdict, &one);
  }
  return failed != 0 ? failed : tl_outcome_finish(&out, info);
}

long tl_mpi_status_phase(const tl_mpi_status *st, const double *pairs, size_t stride, size_t s)
{
  double key = pairs[2 * s * stride];
  if (!(key > 0))
    return -1;
  double code = (key > ERR_BASE / 2 ? ERR_BASE : WARN_BASE) - key;
  return (long)((long long)code / st->ex->size);
}
