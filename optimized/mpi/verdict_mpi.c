/* optimized/mpi/verdict_mpi.c -- the verdict of the exact partition
 * solvers (tridsolver, hybrid_pcr) across ranks; and, at its end, the
 * row classes of a slice that ptdma's and distd2's verdicts reduce
 * (tl_mpi_row_classes).
 *
 * Their references end by reading the whole matrix and x: a matrix that
 * is not strictly dominant by rows gets a warning naming its weakest row;
 * otherwise LAPACK's residual ratio must be < 30. A rank holds a slice,
 * so the numbers are made per slice and combined (tl_residual_slice_* of
 * tridlab/backend.h, the same code the serial ratio runs):
 *
 *   "halo"       x and the coupling entry at each end of the slice go to
 *                that neighbour: the residual and the column sums of the
 *                slice's edge rows need them        (2 scalars each way)
 *   "verdict" 0  allreduce of 4 (value, row) pairs per system: the
 *                status, the weakest row, the largest |x| and |A| entry
 *   "verdict" 1  allreduce (sum) of ||x||_1 and ||d - A x||_1 (scaled)
 *   "verdict" 2  allreduce (max) of the largest column sum
 *
 * The weakest row and the maxima are exact; the two sums add the ranks'
 * partial sums in MPI's order, so a ratio may differ from the serial one
 * in its last bits (a verdict can differ only at a ratio of 30 exactly).
 *
 * What is read of the slice (m rows of a, b, c, d, x per system), when:
 *
 *                   double                          complex
 *   "halo"          x, a, c of the end rows         the same
 *   before round 0  a, b, c, d, x once: the         a, b, c (the weakest row),
 *                   weakest row, the maxima, the    then a, b, c, x (the maxima)
 *                   norms unscaled (a, b, c, x
 *                   again if a value is not finite)
 *   before round 1  nothing: the norms times the    a, b, c, d, x: the norms,
 *                   global maxima's powers of two   scaled by the global maxima
 *                   (the same bits); a, b, c, d, x
 *                   if the slice holds values near
 *                   over- or underflow
 *
 * (tl_residual_slice_pass_d and tl_residual_slice_rescale, core/residual.c,
 * say why the rescaled norms are the scaled pass's bits.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"

/* Elements of the batch: system s, local row i. */
#define AT(arr, s, i) ((const char *)(arr) + ((s)*sl->m + (i)) * es)

/* Both ends of the slice to the neighbours: (x, a) of the first row to
 * the previous rank, (x, c) of the last to the next; the halo of system s
 * is then x[begin-1], x[end], c[begin-1], a[end]. */
static int halo_exchange(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x,
                         const void *xends, const size_t *which, size_t k, void *halo_out);

int tl_mpi_residual_halo(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x, void *halo_out)
{
  return halo_exchange(ex, sl, x, NULL, NULL, sl->nsys, halo_out);
}

int tl_mpi_residual_halo_of(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x,
                            const size_t *which, size_t k, void *halo_out)
{
  return halo_exchange(ex, sl, x, NULL, which, k, halo_out);
}

int tl_mpi_residual_halo_ends(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *xends,
                              void *halo_out)
{
  return halo_exchange(ex, sl, NULL, xends, NULL, sl->nsys, halo_out);
}

/* The halo of the k systems which[0..k): x's end rows from x, or from
 * xends (x_0 and x_{m-1} of system s at 2 s, 2 s + 1) when x is NULL. */
static int halo_exchange(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x,
                         const void *xends, const size_t *which, size_t k, void *halo_out)
{
  char *halo = halo_out;
  size_t es = tl_dtype_size(sl->dtype), m = sl->m;
  int p = ex->rank, P = ex->size;
  int prev = p > 0 ? p - 1 : (sl->periodic ? P - 1 : -1);
  int next = p + 1 < P ? p + 1 : (sl->periodic ? 0 : -1);
  char *buf = tl_alloc(8 * k + 1, es);
  if (!buf)
    return TL_ERR_NOMEM;
  char *to_prev = buf, *to_next = buf + 2 * k * es;
  char *from_prev = buf + 4 * k * es, *from_next = buf + 6 * k * es;
  for (size_t j = 0; j < k; j++) {
    size_t s = which ? which[j] : j;
    const char *first = x ? (const char *)x + s * m * es : (const char *)xends + 2 * s * es;
    const char *last = x ? (const char *)x + (s * m + m - 1) * es : first + es;
    memcpy(to_prev + 2 * j * es, first, es);
    memcpy(to_prev + (2 * j + 1) * es, AT(sl->a, s, 0), es);
    memcpy(to_next + 2 * j * es, last, es);
    memcpy(to_next + (2 * j + 1) * es, AT(sl->c, s, m - 1), es);
  }
  memset(from_prev, 0, 4 * k * es);
  int status = tl_mpi_neighbours(ex, "halo", 0, sl->dtype, prev, next, to_prev, 2 * k, to_next,
                                 2 * k, from_prev, 2 * k, from_next, 2 * k);
  for (size_t j = 0; j < k; j++) {
    char *h = halo + 4 * (which ? which[j] : j) * es;
    memcpy(h, from_prev + 2 * j * es, es);
    memcpy(h + es, from_next + 2 * j * es, es);
    memcpy(h + 2 * es, from_prev + (2 * j + 1) * es, es);
    memcpy(h + 3 * es, from_next + (2 * j + 1) * es, es);
  }
  free(buf);
  return status;
}

/* Per system, after the three reductions: the reference's verdict. */
static int decide(tl_mpi_status *stat, const tl_mpi_batch *sl, const double *pairs,
                  const double *ratio, const char *name, const char *dd_why, const char *why,
                  const tl_info *fields, tl_info *info)
{
  tl_outcome out;
  tl_outcome_init(&out, sl->nsys);
  for (size_t s = 0; s < sl->nsys; s++) {
    const double *q = pairs + 8 * s;
    tl_info one;
    tl_info_clear(&one);
    int st;
    if (!(-q[2] > 0.0)) {
      long worst = (long)q[3];
      st = TL_WARN(&one, worst, "%s: matrix is not strictly row diagonally dominant (row %ld); %s",
                   name, worst, dd_why);
    } else if (tl_mpi_status_warned(pairs, 4, s)) { /* the solver's own warning */
      TL_CALL(tl_mpi_status_warning(stat, pairs, 4, s, &one));
      st = TL_OUTSIDE_DOMAIN;
    } else {
      st = tl_residual_verdict(name, ratio[s], why, &one);
    }
    if (fields) { /* what an approximate reduced solve reports */
      one.iterations = fields[s].iterations;
      one.dropped = fields[s].dropped;
      one.tol = fields[s].tol;
      one.bound = fields[s].bound;
    }
    tl_outcome_add(&out, s, st, &one);
  }
  return tl_outcome_finish(&out, info);
}

/* This slice's part of system s's norms, given its global maxima: from
 * the verdict's one pass (pass) when they rescale exactly; for a double
 * slice without one, from a pass made now (one read of the slice, where
 * the scaled norms read it several times); else the scaled norms. */
static void slice_norms(const tl_mpi_batch *sl, const void *x, const void *halo, size_t s,
                        const double max[2], const tl_residual_pass *pass, double norms[3])
{
  size_t es = tl_dtype_size(sl->dtype), m = sl->m;
  tl_residual_pass now;
  if (!pass && sl->dtype == TL_F64) {
    tl_cpu_residual_slice_pass_d(sl->n, sl->periodic, sl->begin, m, (const double *)AT(sl->a, s, 0),
                                 (const double *)AT(sl->b, s, 0), (const double *)AT(sl->c, s, 0),
                                 (const double *)AT(sl->d, s, 0), (const double *)x + s * m,
                                 (const double *)halo + 4 * s, &now);
    pass = &now;
  }
  if (pass && tl_residual_slice_rescale(pass, max, norms))
    return;
  tl_residual_slice_norms(sl->dtype, sl->n, sl->periodic, sl->begin, m, AT(sl->a, s, 0),
                          AT(sl->b, s, 0), AT(sl->c, s, 0), AT(sl->d, s, 0),
                          (const char *)x + s * m * es, (const char *)halo + 4 * s * es, max,
                          norms);
}

/* Rounds 1 and 2 of tl_mpi_residual_ratios; passes (one per system of
 * the batch, or NULL) what the verdict's pass measured. */
static int ratios(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x, const void *halo,
                  const size_t *which, size_t k, double *max, const tl_residual_pass *passes,
                  double *ratio)
{
  double *sums = tl_alloc(3 * k, sizeof(double)), *cols = sums + 2 * k;
  if (!sums)
    return TL_ERR_NOMEM;
  for (size_t j = 0; j < k; j++) {
    double norms[3] = {0.0, 0.0, 0.0};
    if (max[2 * j] < INFINITY) /* else x is not finite: the ratio is inf */
      slice_norms(sl, x, halo, which ? which[j] : j, max + 2 * j,
                  passes ? passes + (which ? which[j] : j) : NULL, norms);
    sums[2 * j] = norms[0], sums[2 * j + 1] = norms[1], cols[j] = norms[2];
  }
  int status = tl_mpi_allreduce_sum(ex, "verdict", 1, sums, 2 * k);
  if (status == TL_OK)
    status = tl_mpi_allreduce_max(ex, "verdict", 2, cols, k);
  for (size_t j = 0; status == TL_OK && j < k; j++) {
    double norms[3] = {sums[2 * j], sums[2 * j + 1], cols[j]};
    ratio[j] = tl_residual_slice_ratio(sl->n, max + 2 * j, norms);
  }
  free(sums);
  return status;
}

int tl_mpi_residual_ratios(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const void *x,
                           const void *halo, const size_t *which, size_t k, double *max,
                           const tl_residual_pass *passes, double *ratio)
{
  return ratios(ex, sl, x, halo, which, k, max, passes, ratio);
}

/* Round 0's numbers of system s into its 4 pairs q (the first, the
 * status, is set): the weakest row, the largest |x| and |A| entry. A
 * double slice has been read once already (*pass, made for the whole
 * batch by tl_cpu_residual_slices_pass_d, keeps the unscaled norms for
 * rounds 1 and 2); a complex one is read twice here and once more in
 * round 1. */
static void round0_pairs(const tl_mpi_batch *sl, const void *x, size_t s, double *q,
                         const tl_residual_pass *pass)
{
  size_t es = tl_dtype_size(sl->dtype), m = sl->m;
  const void *xs = (const char *)x + s * m * es;
  double max[2];
  long row;
  if (pass) {
    q[2] = pass->weak, row = pass->weak_row;
    max[0] = pass->max[0], max[1] = pass->max[1];
  } else {
    tl_slice_weakest_row(sl->dtype, sl->n, sl->periodic, sl->begin, m, AT(sl->a, s, 0),
                         AT(sl->b, s, 0), AT(sl->c, s, 0), &q[2], &row);
    tl_residual_slice_max(sl->dtype, sl->n, sl->periodic, sl->begin, m, AT(sl->a, s, 0),
                          AT(sl->b, s, 0), AT(sl->c, s, 0), xs, max);
  }
  q[3] = (double)row;
  q[4] = max[0], q[5] = -1.0;
  q[6] = max[1], q[7] = -1.0;
}

int tl_mpi_residual_verdict(tl_mpi_status *st, const tl_mpi_batch *sl, const void *x,
                            const char *name, const char *dd_why, const char *why,
                            const tl_info *fields, tl_info *info)
{
  size_t nsys = sl->nsys, es = tl_dtype_size(sl->dtype);
  char *halo = tl_alloc(4 * nsys, es);
  /* the one pass's numbers, double only */
  tl_residual_pass *passes = sl->dtype == TL_F64 ? tl_alloc(nsys, sizeof *passes) : NULL;
  int status;
  if (!halo || (sl->dtype == TL_F64 && !passes)) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for the verdict", name);
    goto cleanup;
  }
  status = tl_mpi_residual_halo(st->ex, sl, x, halo);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "%s: the halo exchange failed", name);
    goto cleanup;
  }
  if (passes)
    tl_cpu_residual_slices_pass_d(sl->n, sl->periodic, sl->begin, sl->m, nsys, sl->a, sl->b, sl->c,
                                  sl->d, x, (const double *)halo, passes);
  status = tl_mpi_residual_verdict_of(st, sl, x, halo, passes, name, dd_why, why, fields, info);
cleanup:
  free(halo);
  free(passes);
  return status;
}

int tl_mpi_residual_verdict_of(tl_mpi_status *st, const tl_mpi_batch *sl, const void *x,
                               const void *halo, const tl_residual_pass *passes, const char *name,
                               const char *dd_why, const char *why, const tl_info *fields,
                               tl_info *info)
{
  tl_mpi_exchange *ex = st->ex;
  size_t nsys = sl->nsys;
  double *pairs = tl_alloc(11 * nsys, sizeof(double));
  if (!pairs)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for the verdict", name);
  double *maxes = pairs + 8 * nsys, *ratio = maxes + 2 * nsys;
  /* Round 0: the status, the weakest row, the maxima of x and A. */
  tl_mpi_status_pairs(st, pairs, 4);
  for (size_t s = 0; s < nsys; s++)
    round0_pairs(sl, x, s, pairs + 8 * s, passes ? passes + s : NULL);
  int status = tl_mpi_allreduce_pairs(ex, "verdict", 0, pairs, 4 * nsys);
  if (status == TL_OK)
    status = tl_mpi_status_first_error(st, pairs, 4, info);
  if (status != 0)
    goto cleanup; /* every rank saw the same failure */
  /* Rounds 1 and 2: this slice's part of the residual ratio's norms. */
  for (size_t s = 0; s < nsys; s++)
    maxes[2 * s] = pairs[8 * s + 4], maxes[2 * s + 1] = pairs[8 * s + 6];
  status = ratios(ex, sl, x, halo, NULL, nsys, maxes, passes, ratio);
  if (status == TL_OK)
    status = decide(st, sl, pairs, ratio, name, dd_why, why, fields, info);
cleanup:
  free(pairs);
  return status;
}

unsigned tl_mpi_row_classes(const tl_mpi_batch *sl, size_t s, int strict, double *worst_rel,
                            long *worst_row)
{
  if (strict) {
    *worst_rel = INFINITY, *worst_row = -1;
    return TL_CLASS_ROW_DD | TL_CLASS_STRICT_DD;
  }
  size_t o = s * sl->m;
  return tl_cpu_row_classes_slice_d(sl->m, (const double *)sl->a + o, (const double *)sl->b + o,
                                    (const double *)sl->c + o, sl->begin, sl->n, sl->periodic,
                                    worst_rel, worst_row);
}
