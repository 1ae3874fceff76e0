/* convergence/sweep_dominance.c -- tolerance sweeps of the partition
 * algorithms that drop a coupling: PDD, RPDD and DistD2 against the
 * diagonal dominance and the rows per partition, and Tridsolver's Jacobi
 * reduced solve against its number of sweeps.
 *
 * Matrix: tridiag(1, lambda, 1), lambda > 2, n = P m rows, x_exact
 * uniform in [-1, 1) from a seed (as LAPACK's tests do), d = A x_exact.
 * Error: ||x - x_exact||_inf / ||x_exact||_inf.
 *
 * Prediction. The inverse of a long tridiag(1, lambda, 1) decays like
 * sigma^-k with k the distance from the diagonal and
 *   sigma = (lambda + sqrt(lambda^2 - 4)) / 2
 * (paper 003 (ITS) eq 18 calls it kappa; sigma is the larger root of
 * t^2 - lambda t + 1). The spikes of PDD (docs/algorithms/pdd.md) and the
 * couplings DistD2 drops (docs/algorithms/distd2.md) are columns of local
 * inverses read m rows away from where they start, so what they drop, and
 * the error it causes, scale like sigma^-m; RPDD with J entries kept drops
 * sigma^-min(m, J).
 *
 * Jacobi (paper 002 (Tridsolver) Algorithm 5) on the reduced system of
 * one row per partition, A_p F[p-1] + B_p F[p] + C_p F[p+1] = D_p,
 * contracts the error by q = max_p (|A_p| + |C_p|) / |B_p| per sweep;
 * starting from F = D / B the first error is at most q ||F||, so after K
 * sweeps the predicted relative error is q^(K+1). The reduced rows come
 * from the tridsolver phases themselves (tridlab/part_tridsolver.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/part_tridsolver.h"
#include "tridlab/sweep.h"
#include "tridlab/verify.h"

static void progress_row(const tl_sweep_progress *progress, const char *what, size_t done,
                         size_t total)
{
  if (progress && progress->fn)
    progress->fn(what, done, total, progress->ctx);
}

static double sigma_of(double lambda)
{
  return 0.5 * (lambda + sqrt(lambda * lambda - 4.0));
}

/* tridiag(1, lambda, 1) of n rows, x_exact from the seed, d = A x_exact. */
static void toeplitz_problem(size_t n, double lambda, uint64_t seed, double *a, double *b,
                             double *c, double *d, double *xe)
{
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t i = 0; i < n; i++) {
    a[i] = i == 0 ? 0.0 : 1.0;
    b[i] = lambda;
    c[i] = i + 1 == n ? 0.0 : 1.0;
    xe[i] = tl_rng_uniform(&rng, -1.0, 1.0);
  }
  for (size_t i = 0; i < n; i++) {
    double s = b[i] * xe[i];
    if (i > 0)
      s += a[i] * xe[i - 1];
    if (i + 1 < n)
      s += c[i] * xe[i + 1];
    d[i] = s;
  }
}

static double rel_err(size_t n, const double *x, const double *xe)
{
  double e = 0.0, m = 0.0;
  for (size_t i = 0; i < n; i++) {
    e = fmax(e, fabs(x[i] - xe[i]));
    m = fmax(m, fabs(xe[i]));
  }
  return isfinite(e) ? e / m : INFINITY;
}

static int check_lists(const double *lambdas, size_t nl, const size_t *ms, size_t nm, size_t min_m,
                       tl_info *info)
{
  if ((!lambdas && nl) || (!ms && nm))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lambdas", "sweep: NULL lambda or m list");
  for (size_t k = 0; k < nl; k++)
    if (!(lambdas[k] > 2.0) || !isfinite(lambdas[k]))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lambda",
                     "sweep: lambda must be > 2 (strictly dominant), got %g", lambdas[k]);
  for (size_t k = 0; k < nm; k++)
    if (ms[k] < min_m || ms[k] > 100000000)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "m",
                     "sweep: rows per partition must be in [%zu, 1e8], got %zu", min_m, ms[k]);
  return TL_OK;
}

const char *tl_sweep_series_label(tl_sweep_series s, size_t rpdd_J, char *buf, size_t size)
{
  switch (s) {
  case TL_SWEEP_PDD: snprintf(buf, size, "pdd"); break;
  case TL_SWEEP_RPDD_AUTO: snprintf(buf, size, "rpdd"); break;
  case TL_SWEEP_RPDD_FIXED: snprintf(buf, size, "rpdd J=%zu", rpdd_J); break;
  case TL_SWEEP_DISTD2: snprintf(buf, size, "distd2"); break;
  default: snprintf(buf, size, "?"); break;
  }
  return buf;
}

static int series_on(const tl_sweep_dominance_config *cfg, int s)
{
  return s != TL_SWEEP_RPDD_FIXED || cfg->rpdd_J > 0;
}

size_t tl_sweep_dominance_count(const tl_sweep_dominance_config *cfg)
{
  size_t ns = 0;
  for (int s = 0; s < TL_SWEEP_NSERIES; s++)
    ns += (size_t)series_on(cfg, s);
  return cfg->nlambda * cfg->nm * ns;
}

/* One solve of the dominance study into row w. */
static void dominance_solve(const tl_sweep_dominance_config *cfg, tl_sweep_series s,
                            const tl_batch *sys, const double *xe, double *x,
                            tl_sweep_dominance_row *w)
{
  static const char *const algos[TL_SWEEP_NSERIES] = {"pdd", "rpdd", "rpdd", "distd2"};
  const tl_algorithm *al = tl_find(algos[s]);
  tl_info si;
  tl_info_clear(&si);
  w->series = s;
  w->algo = algos[s];
  if (!al) {
    w->status = TL_ERR_UNSUPPORTED;
    snprintf(w->note, sizeof w->note, "no algorithm '%s' in the registry", algos[s]);
    w->err = w->dropped = w->bound = w->tol = NAN;
    return;
  }
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = cfg->parts;
  int st = TL_OK;
  if (s == TL_SWEEP_RPDD_FIXED) {
    char jtext[32];
    snprintf(jtext, sizeof jtext, "%zu", cfg->rpdd_J);
    st = tl_options_set_param(&opt, al, "J", jtext, &si);
  }
  if (st == TL_OK)
    st = tl_solve(al, sys, x, &opt, &si);
  w->status = st;
  if (st != TL_OK)
    snprintf(w->note, sizeof w->note, "%s", si.msg);
  if (tl_status_has_solution(st)) {
    w->err = rel_err(sys->n, x, xe);
    w->dropped = si.dropped;
    w->bound = si.bound;
    w->tol = si.tol;
  } else {
    w->err = w->dropped = w->bound = w->tol = NAN;
  }
}

int tl_sweep_dominance(const tl_sweep_dominance_config *cfg, tl_sweep_dominance_row *rows,
                       size_t cap, size_t *count, const tl_sweep_progress *progress, tl_info *info)
{
  tl_info_clear(info);
  if (!cfg || !rows || !count)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: NULL configuration or rows");
  *count = 0;
  TL_CALL(check_lists(cfg->lambdas, cfg->nlambda, cfg->ms, cfg->nm, 2, info));
  if (cfg->parts < 3 || cfg->parts > TL_MAX_PARTS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "sweep: the dominance study needs 3 <= parts <= %d (PDD drops nothing "
                   "below 3), got %d",
                   TL_MAX_PARTS, cfg->parts);
  size_t total = tl_sweep_dominance_count(cfg);
  if (cap < total)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: %zu rows needed, %zu given", total,
                   cap);
  size_t mmax = 0;
  for (size_t k = 0; k < cfg->nm; k++)
    mmax = cfg->ms[k] > mmax ? cfg->ms[k] : mmax;
  size_t nmax = mmax * (size_t)cfg->parts;
  double *work = tl_alloc(6 * nmax, sizeof(double));
  if (!work)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "sweep: no memory");
  double *a = work, *b = a + nmax, *c = b + nmax, *d = c + nmax, *xe = d + nmax, *x = xe + nmax;
  size_t r = 0, step = 0;
  for (size_t il = 0; il < cfg->nlambda; il++) {
    double lambda = cfg->lambdas[il], sigma = sigma_of(lambda);
    for (size_t im = 0; im < cfg->nm; im++) {
      size_t m = cfg->ms[im], n = m * (size_t)cfg->parts;
      toeplitz_problem(n, lambda, cfg->seed, a, b, c, d, xe);
      tl_batch sys = {
          .dtype = TL_F64, .n = n, .nsys = 1, .periodic = 0, .a = a, .b = b, .c = c, .d = d};
      for (int s = 0; s < TL_SWEEP_NSERIES; s++) {
        if (!series_on(cfg, s))
          continue;
        tl_sweep_dominance_row *w = &rows[r++];
        memset(w, 0, sizeof *w);
        w->lambda = lambda;
        w->sigma = sigma;
        w->parts = cfg->parts;
        w->m = m;
        w->n = n;
        /* RPDD with J fixed keeps J spike entries whatever m is. */
        size_t kept = s == TL_SWEEP_RPDD_FIXED && cfg->rpdd_J < m ? cfg->rpdd_J : m;
        w->predicted = pow(sigma, -(double)kept);
        dominance_solve(cfg, (tl_sweep_series)s, &sys, xe, x, w);
      }
      char what[64];
      snprintf(what, sizeof what, "lambda = %g, m = %zu", lambda, m);
      progress_row(progress, what, ++step, cfg->nlambda * cfg->nm);
    }
  }
  *count = r;
  free(work);
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* Jacobi on the reduced system                                        */

size_t tl_sweep_jacobi_count(const tl_sweep_jacobi_config *cfg)
{
  return cfg->kmax > 0 ? cfg->nlambda * cfg->nm * (size_t)cfg->kmax : 0;
}

/* q = max_p (|A_p| + |C_p|) / |B_p| of the reduced rows, from the
 * tridsolver phases 1-3 run partition by partition. scratch: 3m. */
static int reduced_contraction(size_t n, int parts, const double *a, const double *b,
                               const double *c, const double *d, double *scratch, double *q,
                               tl_info *info)
{
  double prev[3], last[3], row[4];
  *q = 0.0;
  for (int p = 0; p < parts; p++) {
    size_t begin, end;
    tl_partition_bounds(n, parts, NULL, p, &begin, &end);
    size_t m = end - begin;
    double *as = scratch, *cs = as + m, *ds = cs + m;
    TL_CALL(tl_tridsolver_forward_d(begin, m, p > 0, p + 1 < parts, a + begin, b + begin, c + begin,
                                    d + begin, as, cs, ds, info));
    tl_tridsolver_reduced_row_d(m, as, cs, ds, p > 0 ? prev : NULL, row);
    tl_tridsolver_last_row_d(m, as, cs, ds, last);
    memcpy(prev, last, sizeof prev);
    if (row[1] != 0.0)
      *q = fmax(*q, (fabs(row[0]) + fabs(row[2])) / fabs(row[1]));
    else
      *q = INFINITY;
  }
  return TL_OK;
}

int tl_sweep_jacobi(const tl_sweep_jacobi_config *cfg, tl_sweep_jacobi_row *rows, size_t cap,
                    size_t *count, const tl_sweep_progress *progress, tl_info *info)
{
  tl_info_clear(info);
  if (!cfg || !rows || !count)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: NULL configuration or rows");
  *count = 0;
  TL_CALL(check_lists(cfg->lambdas, cfg->nlambda, cfg->ms, cfg->nm, 2, info));
  if (cfg->parts < 2 || cfg->parts > TL_MAX_PARTS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "sweep: the Jacobi study needs 2 <= parts <= %d, got %d", TL_MAX_PARTS,
                   cfg->parts);
  if (cfg->kmax < 1 || cfg->kmax > 100000)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "kmax", "sweep: K must be in [1, 100000], got %ld",
                   cfg->kmax);
  size_t total = tl_sweep_jacobi_count(cfg);
  if (cap < total)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: %zu rows needed, %zu given", total,
                   cap);
  const tl_algorithm *ts = tl_find("tridsolver");
  if (!ts)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo", "sweep: no tridsolver registered");
  size_t mmax = 0;
  for (size_t k = 0; k < cfg->nm; k++)
    mmax = cfg->ms[k] > mmax ? cfg->ms[k] : mmax;
  size_t nmax = mmax * (size_t)cfg->parts;
  double *work = tl_alloc(6 * nmax + 3 * mmax, sizeof(double));
  if (!work)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "sweep: no memory");
  double *a = work, *b = a + nmax, *c = b + nmax, *d = c + nmax, *xe = d + nmax, *x = xe + nmax;
  double *scratch = x + nmax;
  int status = TL_OK;
  size_t r = 0, step = 0;
  for (size_t il = 0; il < cfg->nlambda; il++) {
    double lambda = cfg->lambdas[il];
    for (size_t im = 0; im < cfg->nm; im++) {
      size_t m = cfg->ms[im], n = m * (size_t)cfg->parts;
      toeplitz_problem(n, lambda, cfg->seed, a, b, c, d, xe);
      tl_batch sys = {
          .dtype = TL_F64, .n = n, .nsys = 1, .periodic = 0, .a = a, .b = b, .c = c, .d = d};
      double q;
      TL_CHECK(reduced_contraction(n, cfg->parts, a, b, c, d, scratch, &q, info));
      for (long K = 1; K <= cfg->kmax; K++) {
        tl_sweep_jacobi_row *w = &rows[r++];
        memset(w, 0, sizeof *w);
        w->lambda = lambda;
        w->parts = cfg->parts;
        w->m = m;
        w->n = n;
        w->iters = K;
        w->q = q;
        w->predicted = pow(q, (double)(K + 1));
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = cfg->parts;
        tl_info si;
        tl_info_clear(&si);
        char ktext[32];
        snprintf(ktext, sizeof ktext, "%ld", K);
        int st = tl_options_set_param(&opt, ts, "reduced", "jacobi", &si);
        if (st == TL_OK)
          st = tl_options_set_param(&opt, ts, "iters", ktext, &si);
        if (st == TL_OK)
          st = tl_solve(ts, &sys, x, &opt, &si);
        w->status = st;
        if (st != TL_OK)
          snprintf(w->note, sizeof w->note, "%s", si.msg);
        if (tl_status_has_solution(st)) {
          w->err = rel_err(n, x, xe);
          w->dropped = si.dropped;
          w->bound = si.bound;
        } else {
          w->err = w->dropped = w->bound = NAN;
        }
      }
      char what[64];
      snprintf(what, sizeof what, "lambda = %g, m = %zu", lambda, m);
      progress_row(progress, what, ++step, cfg->nlambda * cfg->nm);
    }
  }
  *count = r;
cleanup:
  free(work);
  return status;
}
