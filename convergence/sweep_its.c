/* convergence/sweep_its.c -- truncation-error studies of the interface-
 * splitting algorithm (ITS), paper 003 (ITS) §3 (eq 18, Fig. 2) and §5.1
 * (Tables 2 and 3, Fig. 3).
 *
 * ITS computes each interface value x_I = z . d from the row z = e_I^T A^-1
 * truncated to the 2J entries I-J+1 .. I+J (docs/algorithms/its.md). What
 * it neglects is measured here twice: by the solver itself (info.dropped,
 * info.bound, from z computed on a window of A), and independently from
 * the exact rows of A^-1, obtained by a pivoted LAPACK solve of A^T z = e_I
 * on the whole matrix. The error is the paper's normalisation
 *
 *   err = ||x_seq - x_par||_inf / ||d||_inf,
 *
 * x_seq a pivoted LAPACK solve of the same system, x_par the its solve.
 *
 * Bondeli's eq 18 for tridiag(1, lambda, 1): the middle row of the inverse
 * of a long Toeplitz matrix is z_j = z_I kappa^-|j-I|, kappa = (lambda +
 * sqrt(lambda^2 - 4)) / 2, so the largest neglected ratio with J kept on
 * the side of j < I is kappa^-J, and J = -ln eps_c / ln kappa.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/part_its.h"
#include "tridlab/sweep.h"
#include "tridlab/verify.h"

#define PI 3.14159265358979323846264338327950288

static double max_abs(size_t n, const double *v)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(v[i]));
  return m;
}

static void progress_row(const tl_sweep_progress *progress, const char *what, size_t done,
                         size_t total)
{
  if (progress && progress->fn)
    progress->fn(what, done, total, progress->ctx);
}

int tl_sweep_its_system(tl_sweep_its_problem problem, size_t n, double *a, double *b, double *c,
                        double *d, double *fexact, int *periodic, tl_info *info)
{
  tl_info_clear(info);
  if (!a || !b || !c || !d || !periodic)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "sweep: NULL array");
  if (n < 3)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "sweep: its studies need n >= 3, got %zu", n);
  if (problem == TL_SWEEP_ITS_COMPACT) {
    /* Pade rows [1/4, 1, 1/4] times 4: paper 003 writes the matrix as
     * [1, 4, 1], and ||d||_inf in the error depends on that scaling. */
    double h = 1.0 / (double)n, k = 20.0 * PI;
    for (size_t i = 0; i < n; i++) {
      size_t ip = i + 1 == n ? 0 : i + 1, im = i == 0 ? n - 1 : i - 1;
      a[i] = 1.0;
      b[i] = 4.0;
      c[i] = 1.0;
      d[i] = 3.0 * (sin(k * (double)ip * h) - sin(k * (double)im * h)) / h;
      if (fexact)
        fexact[i] = k * cos(k * (double)i * h);
    }
    *periodic = 1;
    return TL_OK;
  }
  if (problem == TL_SWEEP_ITS_NONCONST) {
    /* Paper 003 §5.1.2 counts rows from 1: row k is i = k + 1 (gallery
     * type 34, its-nonconst). */
    for (size_t k = 0; k < n; k++) {
      double i = (double)(k + 1), s = sin(i), co = cos(i);
      a[k] = k == 0 ? 0.0 : s;
      b[k] = 2.0 * (fabs(s) + fabs(co));
      c[k] = k + 1 == n ? 0.0 : co;
      d[k] = 1.0;
      if (fexact)
        fexact[k] = NAN;
    }
    *periodic = 0;
    return TL_OK;
  }
  return TL_FAIL(info, TL_ERR_ARG, -1, -1, "problem", "sweep: unknown its problem %d",
                 (int)problem);
}

/* |z_j| / |z_I| of the exact row I of A^-1, for every interface: solve
 * A^T z = e_I (A^T: a_T[i] = c[i-1], c_T[i] = a[i+1], cyclically). zr:
 * nif * n entries. */
static int exact_rows(size_t n, int periodic, const double *a, const double *b, const double *c,
                      int nif, const size_t *iface, double *zr, tl_info *info)
{
  double *at = tl_alloc(4 * n, sizeof(double));
  if (!at)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "sweep: no memory");
  double *ct = at + n, *e = at + 2 * n, *bt = at + 3 * n;
  for (size_t i = 0; i < n; i++) {
    at[i] = i > 0 ? c[i - 1] : (periodic ? c[n - 1] : 0.0);
    ct[i] = i + 1 < n ? a[i + 1] : (periodic ? a[0] : 0.0);
    bt[i] = b[i];
  }
  tl_batch sys = {
      .dtype = TL_F64, .n = n, .nsys = 1, .periodic = periodic, .a = at, .b = bt, .c = ct, .d = e};
  int status = TL_OK;
  for (int k = 0; k < nif && status == TL_OK; k++) {
    double *z = zr + (size_t)k * n;
    memset(e, 0, n * sizeof *e);
    e[iface[k]] = 1.0;
    status = tl_lapack_solve(&sys, z, info);
    double zi = fabs(z[iface[k]]);
    for (size_t j = 0; j < n; j++)
      z[j] = fabs(z[j]) / zi;
  }
  free(at);
  return status;
}

/* Largest |z_j| / |z_I| outside the 2J kept rows I-J+1 .. I+J. */
static double largest_neglected(size_t n, int periodic, const double *zr, size_t iface_row,
                                size_t J)
{
  double m = 0.0;
  for (size_t j = 0; j < n; j++) {
    int kept;
    if (periodic) {
      size_t fwd = (j + n - iface_row) % n; /* j = I + fwd */
      size_t bwd = (iface_row + n - j) % n; /* j = I - bwd */
      kept = fwd <= J || bwd + 1 <= J;
    } else {
      kept = (j <= iface_row && iface_row - j + 1 <= J) || (j > iface_row && j - iface_row <= J);
    }
    if (!kept)
      m = fmax(m, zr[j]);
  }
  return m;
}

int tl_sweep_its(tl_sweep_its_problem problem, size_t n, int parts, const size_t *Js, size_t nJ,
                 tl_sweep_its_row *rows, const tl_sweep_progress *progress, tl_info *info)
{
  tl_info_clear(info);
  if (!rows || (!Js && nJ))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: NULL rows or J list");
  if (parts < 1 || (size_t)parts > n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "sweep: need 1 <= parts <= n (%d, %zu)",
                   parts, n);
  const tl_algorithm *its = tl_find("its");
  if (!its)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo", "sweep: no its in the registry");

  double *work = tl_alloc(7 * n, sizeof(double));
  size_t *iface = tl_alloc((size_t)parts, sizeof(size_t));
  double *zr = NULL;
  int status = TL_OK, periodic = 0;
  if (!work || !iface) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "sweep: no memory");
    goto cleanup;
  }
  double *a = work, *b = a + n, *c = b + n, *d = c + n, *fx = d + n, *xs = fx + n, *xp = xs + n;
  TL_CHECK(tl_sweep_its_system(problem, n, a, b, c, d, fx, &periodic, info));
  int nif = periodic ? parts : parts - 1;
  for (int k = 0; k < nif; k++) {
    size_t begin, end;
    tl_partition_bounds(n, parts, NULL, k, &begin, &end);
    iface[k] = end - 1;
  }
  zr = tl_alloc((size_t)(nif > 0 ? nif : 1) * n, sizeof(double));
  if (!zr) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "sweep: no memory");
    goto cleanup;
  }
  TL_CHECK(exact_rows(n, periodic, a, b, c, nif, iface, zr, info));
  tl_batch sys = {
      .dtype = TL_F64, .n = n, .nsys = 1, .periodic = periodic, .a = a, .b = b, .c = c, .d = d};
  TL_CHECK(tl_lapack_solve(&sys, xs, info));

  double dnorm = max_abs(n, d), rho = 0.0, err_a = NAN;
  for (size_t i = 0; i < n; i++)
    rho = fmax(rho, tl_its_row_rate(a[i], b[i], c[i]));
  if (problem == TL_SWEEP_ITS_COMPACT) {
    double e = 0.0;
    for (size_t i = 0; i < n; i++)
      e = fmax(e, fabs(fx[i] - xs[i]));
    err_a = e / max_abs(n, fx);
  }

  for (size_t r = 0; r < nJ; r++) {
    tl_sweep_its_row *w = &rows[r];
    memset(w, 0, sizeof *w);
    w->n = n;
    w->parts = parts;
    w->J = Js[r];
    w->eps_c_rate = pow(rho, (double)Js[r]);
    w->err_a = err_a;
    w->eps_c = 0.0;
    for (int k = 0; k < nif; k++)
      w->eps_c =
          fmax(w->eps_c, largest_neglected(n, periodic, zr + (size_t)k * n, iface[k], Js[r]));
    tl_options opt;
    tl_options_init(&opt);
    opt.parts = parts;
    tl_info si;
    tl_info_clear(&si);
    char jtext[32];
    snprintf(jtext, sizeof jtext, "%zu", Js[r]);
    w->status = tl_options_set_param(&opt, its, "J", jtext, &si);
    if (w->status == TL_OK)
      w->status = tl_solve(its, &sys, xp, &opt, &si);
    if (w->status != TL_OK)
      snprintf(w->note, sizeof w->note, "%s", si.msg);
    if (tl_status_has_solution(w->status)) {
      double e = 0.0;
      for (size_t i = 0; i < n; i++)
        e = fmax(e, fabs(xs[i] - xp[i]));
      w->err = e / dnorm;
      w->bound = si.bound;
      w->dropped = si.dropped;
    } else {
      w->err = w->bound = w->dropped = NAN;
    }
    char what[64];
    snprintf(what, sizeof what, "n = %zu, J = %zu", n, Js[r]);
    progress_row(progress, what, r + 1, nJ);
  }

cleanup:
  free(work);
  free(iface);
  free(zr);
  return status;
}

/* ------------------------------------------------------------------ */
/* Bondeli's J (eq 18), measured and chosen                            */

/* The J the its solver picks for tridiag(1, lambda, 1) with J = 0: its
 * phases up to the truncation, on n rows in two partitions. */
static int its_auto_J(size_t n, const double *a, const double *b, const double *c, double eps_c,
                      size_t *J, tl_info *info)
{
  tl_its_state st;
  int status = tl_its_init(&st, n, 0, 2, NULL, info);
  if (status < 0)
    return status;
  for (int p = 0; p < 2; p++)
    tl_its_rate(&st, p, a + st.begin[p], b + st.begin[p], c + st.begin[p]);
  status = tl_its_truncation(&st, 0, eps_c, info);
  *J = st.J;
  tl_its_free(&st);
  return status;
}

int tl_sweep_bondeli(const double *lambdas, size_t nl, const double *eps_c, size_t ne,
                     tl_sweep_bondeli_row *rows, const tl_sweep_progress *progress, tl_info *info)
{
  tl_info_clear(info);
  if (!rows || (!lambdas && nl) || (!eps_c && ne))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: NULL array");
  double emin = 1.0, lmin = INFINITY;
  for (size_t k = 0; k < nl; k++) {
    if (!(lambdas[k] > 2.0) || !isfinite(lambdas[k]))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lambda", "sweep: eq 18 needs lambda > 2, got %g",
                     lambdas[k]);
    lmin = fmin(lmin, lambdas[k]);
  }
  for (size_t k = 0; k < ne; k++) {
    if (!(eps_c[k] > 0.0 && eps_c[k] < 1.0))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "eps_c", "sweep: eps_c must be in (0, 1), got %g",
                     eps_c[k]);
    emin = fmin(emin, eps_c[k]);
  }
  if (!nl || !ne)
    return TL_OK;
  /* Long enough for the largest J on both sides of the middle row, and
   * for the its solver's J (eq 18 on the whole tail, a few rows more). */
  double Jmax = tl_its_bondeli_J(emin, lmin);
  if (!(Jmax < 1e6))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lambda",
                   "sweep: J of eq 18 is %g for lambda = %g, eps_c = %g: too large to measure",
                   Jmax, lmin, emin);
  size_t n = 2 * ((size_t)ceil(Jmax) + 64);
  double *work = tl_alloc(5 * n, sizeof(double));
  if (!work)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "sweep: no memory");
  double *a = work, *b = a + n, *c = b + n, *zr = c + n;
  int status = TL_OK;
  size_t mid = n / 2 - 1;
  for (size_t il = 0; il < nl; il++) {
    double lambda = lambdas[il];
    for (size_t i = 0; i < n; i++) {
      a[i] = i == 0 ? 0.0 : 1.0;
      b[i] = lambda;
      c[i] = i + 1 == n ? 0.0 : 1.0;
    }
    TL_CHECK(exact_rows(n, 0, a, b, c, 1, &mid, zr, info));
    for (size_t ie = 0; ie < ne; ie++) {
      tl_sweep_bondeli_row *w = &rows[il * ne + ie];
      w->lambda = lambda;
      w->sigma = lambda / 2.0;
      w->eps_c = eps_c[ie];
      w->J_eq18 = tl_its_bondeli_J(eps_c[ie], lambda);
      size_t J = 1;
      while (J < mid && largest_neglected(n, 0, zr, mid, J) > eps_c[ie])
        J++;
      w->J_measured = J;
      TL_CHECK(its_auto_J(n, a, b, c, eps_c[ie], &w->J_its, info));
    }
    char what[64];
    snprintf(what, sizeof what, "lambda = %g", lambda);
    progress_row(progress, what, il + 1, nl);
  }
cleanup:
  free(work);
  return status;
}
