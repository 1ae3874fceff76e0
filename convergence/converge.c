/* convergence/converge.c -- order-of-accuracy studies of the compact
 * schemes, solved by any registry algorithm (docs/design.md §5: max-norm and
 * L2 error against the analytic derivative, observed order).
 *
 * For n = nmin, 2 nmin, 4 nmin, ... <= nmax the study samples a test
 * function on the grid (periodic: x_i = i h, h = L/n; closure: both ends,
 * h = L/(n-1)), builds the compact system (convergence/compact.c), solves
 * it with the chosen algorithm, P and parameters, and measures
 *
 *   e_max = max_i |f_i - f(x_i)|,     e_L2 = sqrt(h sum_i (f_i - f(x_i))^2),
 *   order = log(e_prev / e) / log(h_prev / h)     (= log2(e_h / e_{h/2}) when h halves)
 *
 * beside the solver's own error: the distance to a pivoted LAPACK solve of
 * the same system, ||f - f_lapack||_inf / ||f_lapack||_inf. A solver that
 * returns TL_OUTSIDE_DOMAIN still gives a row (its status marks it); a
 * failed solve gives a row with its status and NaN errors, and the study
 * goes on.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/convergence.h"
#include "tridlab/verify.h"

#define TWO_PI 6.283185307179586476925286766559

/* ---------------------------------------------------------------- */
/* Test functions                                                    */

/* sin(k x) */
static double fn_sin(double x, double k, int m)
{
  switch (m) {
  case 0: return sin(k * x);
  case 1: return k * cos(k * x);
  default: return -k * k * sin(k * x);
  }
}

/* cos(k x): its odd derivatives vanish at x = 0 (and at x = L when k L is
 * a multiple of 2 pi). */
static double fn_cos(double x, double k, int m)
{
  switch (m) {
  case 0: return cos(k * x);
  case 1: return -k * sin(k * x);
  default: return -k * k * cos(k * x);
  }
}

/* exp(sin(k x)): every Fourier mode present, periodic. */
static double fn_expsin(double x, double k, int m)
{
  double s = sin(k * x), c = cos(k * x), u = exp(s);
  switch (m) {
  case 0: return u;
  case 1: return k * c * u;
  default: return k * k * (c * c - s) * u;
  }
}

/* (1 + x^2) exp(-k x): not periodic, for the closures. */
static double fn_polyexp(double x, double k, int m)
{
  double e = exp(-k * x), p = 1.0 + x * x;
  switch (m) {
  case 0: return p * e;
  case 1: return (2.0 * x - k * p) * e;
  default: return (2.0 - 4.0 * k * x + k * k * p) * e;
  }
}

static const tl_converge_function functions[] = {
    {"sin", "sin(k x)", 1, fn_sin},
    {"cos", "cos(k x)", 1, fn_cos},
    {"expsin", "exp(sin(k x))", 1, fn_expsin},
    {"polyexp", "(1 + x^2) exp(-k x)", 0, fn_polyexp},
};

size_t tl_converge_function_count(void)
{
  return sizeof functions / sizeof functions[0];
}

const tl_converge_function *tl_converge_function_get(size_t index)
{
  return index < tl_converge_function_count() ? &functions[index] : NULL;
}

const tl_converge_function *tl_converge_function_find(const char *name)
{
  for (size_t k = 0; name && k < tl_converge_function_count(); k++)
    if (strcmp(functions[k].name, name) == 0)
      return &functions[k];
  return NULL;
}

/* ---------------------------------------------------------------- */
/* The study                                                         */

size_t tl_converge_count(size_t nmin, size_t nmax)
{
  if (nmin == 0 || nmin > nmax)
    return 0;
  size_t count = 1;
  for (size_t n = nmin; n <= nmax / 2; n *= 2)
    count++;
  return count;
}

static int check_config(const tl_converge_config *cfg, double L, size_t cap, tl_info *info)
{
  const tl_compact_scheme *s = cfg->scheme;
  const tl_converge_function *f = cfg->function;
  const tl_algorithm *al = cfg->algo;
  if (!s)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "scheme", "no scheme given");
  if (!f || !f->eval)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "function", "no test function given");
  if (!al)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "no algorithm given");
  double k = cfg->wavenumber;
  if (!(k > 0.0) || !isfinite(k))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "wavenumber",
                   "wavenumber k = %g must be positive and finite", k);
  if (!(L > 0.0) || !isfinite(L))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "length", "domain length L = %g must be positive", L);
  if (cfg->periodic) {
    if (!f->periodic)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "function",
                     "%s = %s is not periodic: use it with the closure boundary", f->name,
                     f->formula);
    double q = k * L / TWO_PI; /* periods in the domain */
    if (fabs(q - nearbyint(q)) > 1e-9 * fmax(1.0, q))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "wavenumber",
                     "%s is periodic on [0, L) only when k L / (2 pi) is an integer; "
                     "k = %g, L = %g give %.6g",
                     f->formula, k, L, q);
  }
  const tl_compact_closure *cl = NULL;
  if (!cfg->periodic) {
    cl = tl_compact_closure_resolve(s, cfg->closure);
    if (!cl)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "closure", "closure '%s' is not one of %s's",
                     cfg->closure->name ? cfg->closure->name : "?", s->name);
  }
  size_t min_n = cl ? cl->min_n : s->min_n_periodic;
  if (cfg->nmin < min_n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nmin", "%s on a %s grid needs nmin >= %zu, got %zu",
                   s->name, cl ? cl->name : "periodic", min_n, cfg->nmin);
  if (cfg->nmax < cfg->nmin)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nmax", "nmax = %zu is below nmin = %zu", cfg->nmax,
                   cfg->nmin);
  size_t need = tl_converge_count(cfg->nmin, cfg->nmax);
  if (cap < need)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows",
                   "the study has %zu rows, room was given for %zu", need, cap);
  if (!(al->dtypes & TL_DTYPE_BIT(TL_F64)))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo", "%s does not solve real systems",
                   al->name);
  if (!(al->layouts & (cfg->periodic ? TL_PERIODIC : TL_NONPERIODIC)))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo", "%s does not solve %s systems%s",
                   al->name, cfg->periodic ? "periodic" : "non-periodic",
                   cfg->periodic ? " (try thomas_periodic)" : " (try gtsv)");
  if (cfg->opt && (cfg->opt->parts > 1 || cfg->opt->part_sizes) && !al->partitioned)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "%s is not a partitioned algorithm; it takes no partitions", al->name);
  return TL_OK;
}

/* Scratch arrays for the largest grid. */
typedef struct study_work {
  double *x, *u, *exact, *a, *b, *c, *d, *f, *fref;
} study_work;

double tl_converge_order(double e_prev, double e, double h_prev, double h)
{
  if (!(e_prev > 0.0) || !(e > 0.0) || !isfinite(e_prev) || !isfinite(e))
    return NAN;
  return log(e_prev / e) / log(h_prev / h);
}

/* One grid: fill row (n, h, status, errors, solver_diff). */
static int study_row(const tl_converge_config *cfg, double L, size_t n, study_work *w,
                     tl_converge_row *row)
{
  const tl_compact_scheme *s = cfg->scheme;
  double k = cfg->wavenumber;
  double h = cfg->periodic ? L / (double)n : L / (double)(n - 1);
  memset(row, 0, sizeof *row);
  row->n = n;
  row->h = h;
  row->err_max = row->err_l2 = row->solver_diff = NAN;
  row->order_max = row->order_l2 = NAN;
  for (size_t i = 0; i < n; i++) {
    w->x[i] = (double)i * h;
    w->u[i] = cfg->function->eval(w->x[i], k, 0);
    w->exact[i] = cfg->function->eval(w->x[i], k, s->derivative);
  }
  tl_info info;
  const tl_compact_closure *cl = cfg->periodic ? NULL : tl_compact_closure_resolve(s, cfg->closure);
  int st = tl_compact_system_closed(s, cl, n, h, w->u, w->a, w->b, w->c, w->d, &info);
  if (st < 0)
    return st; /* the configuration was checked: this is a bug, not a row */
  tl_batch sys = {.dtype = TL_F64,
                  .n = n,
                  .nsys = 1,
                  .periodic = cfg->periodic,
                  .a = w->a,
                  .b = w->b,
                  .c = w->c,
                  .d = w->d};
  row->status = tl_solve(cfg->algo, &sys, w->f, cfg->opt, &info);
  row->dropped = info.dropped;
  row->row = info.row;
  if (row->status != TL_OK)
    snprintf(row->note, sizeof row->note, "%s", info.msg);
  if (!tl_status_has_solution(row->status))
    return TL_OK;

  double emax = 0.0, sum2 = 0.0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(w->f[i] - w->exact[i]);
    emax = isnan(e) || e > emax ? e : emax;
    sum2 += e * e;
  }
  row->err_max = emax;
  row->err_l2 = sqrt(h * sum2);

  tl_info linfo;
  tl_info_clear(&linfo);
  if (tl_lapack_solve(&sys, w->fref, &linfo) == TL_OK) {
    double diff = 0.0, ref = 0.0;
    for (size_t i = 0; i < n; i++) {
      double e = fabs(w->f[i] - w->fref[i]);
      diff = isnan(e) || e > diff ? e : diff;
      ref = fmax(ref, fabs(w->fref[i]));
    }
    row->solver_diff = ref > 0.0 ? diff / ref : diff;
  }
  return TL_OK;
}

int tl_converge_run(const tl_converge_config *cfg, tl_converge_row *rows, size_t cap, size_t *count,
                    tl_info *info)
{
  tl_info_clear(info);
  if (count)
    *count = 0;
  if (!cfg)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "cfg", "no configuration given");
  if (!rows)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "array rows is NULL");
  double L = cfg->length == 0.0 ? TWO_PI : cfg->length;
  TL_CALL(check_config(cfg, L, cap, info));

  size_t nrows = tl_converge_count(cfg->nmin, cfg->nmax);
  size_t nbig = cfg->nmin;
  for (size_t r = 1; r < nrows; r++)
    nbig *= 2;
  study_work w;
  double *mem = tl_alloc(nbig, 9 * sizeof *mem);
  if (!mem)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "no memory for n = %zu", nbig);
  double **arrs[9] = {&w.x, &w.u, &w.exact, &w.a, &w.b, &w.c, &w.d, &w.f, &w.fref};
  for (int k = 0; k < 9; k++)
    *arrs[k] = mem + (size_t)k * nbig;

  int status = TL_OK;
  size_t n = cfg->nmin;
  for (size_t r = 0; r < nrows; r++, n *= 2) {
    status = study_row(cfg, L, n, &w, &rows[r]);
    if (status < 0) {
      TL_FAIL(info, status, -1, -1, "", "n = %zu: the compact system could not be built", n);
      break;
    }
    if (r > 0) {
      const tl_converge_row *p = &rows[r - 1];
      rows[r].order_max = tl_converge_order(p->err_max, rows[r].err_max, p->h, rows[r].h);
      rows[r].order_l2 = tl_converge_order(p->err_l2, rows[r].err_l2, p->h, rows[r].h);
    }
    if (count)
      *count = r + 1;
    if (cfg->on_row)
      cfg->on_row(&rows[r], r, nrows, cfg->ctx);
  }
  free(mem);
  return status;
}
