/* verify/trace_whole.c -- periodic Thomas and Jacobi watched stage by
 * stage (verify/trace_internal.h): two algorithms on the whole system,
 * from the steps tridlab/algorithms.h exposes (the Sherman-Morrison split
 * and correction; one Jacobi sweep and its backward error). Their
 * verdicts are the one-call solve's (tr->solved), whose x must be the
 * steps' x.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "trace_internal.h"

/* ------------------------------------------------------------------ */
/* Periodic Thomas: A = B + u v^T, two Thomas solves, Sherman-Morrison   */

/* The steps for n >= 3 (w: bmod, u, z, 3n); a failure is the one-call
 * solve's too, which says why. */
static int periodic_steps(tracer *tr, double *w, double *x)
{
  size_t n = tr->n;
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  double *bmod = w, *u = w + n, *z = w + 2 * n;
  double g = b[0] == 0 ? -1 : -b[0]; /* the solve's shift */
  tl_thomas_periodic_split_d(n, a, b, c, g, bmod, u);
  tl_trace_stage st = tl_tr_stage_new(tr, "A = B + u v^T: the tridiagonal part B");
  snprintf(st.note, sizeof st.note,
           "g = %.4g; B is A without its corners, b[0] - g and b[n-1] - a[0] c[n-1] / g on the "
           "diagonal; u = (g, 0, ..., 0, c[n-1]), v = (1, 0, ..., 0, a[0]/g = %.4g)",
           g, a[0] / g);
  tl_tr_draw_banded(tr, 1, a, bmod, c, d);
  tl_tr_add_vec(&st, "u", -1, 0, n, u);
  tl_tr_emit(tr, &st, 1);
  tl_info inner;
  if (tl_thomas_ref_d(n, a, bmod, c, d, x, &inner) < 0 ||
      tl_thomas_ref_d(n, a, bmod, c, u, z, &inner) < 0)
    return TL_ERR_BREAKDOWN;
  st = tl_tr_stage_new(tr, "two Thomas solves with B: B y = d, B z = u");
  snprintf(st.note, sizeof st.note, "the same tridiagonal matrix, two right-hand sides");
  tl_tr_add_vec(&st, "y", -1, 0, n, x);
  tl_tr_add_vec(&st, "z", -1, 0, n, z);
  tl_tr_emit(tr, &st, 0);
  if (tl_thomas_periodic_correct_d(n, a[0], g, z, x, &inner) < 0)
    return TL_ERR_BREAKDOWN;
  st = tl_tr_stage_new(tr, "Sherman-Morrison: x = y - (v.y) / (1 + v.z) z");
  snprintf(st.note, sizeof st.note, "one dot product of two entries, one update of every row");
  tl_tr_draw_solved(tr, &st, x);
  tl_tr_emit(tr, &st, 1);
  return TL_OK;
}

int tl_tr_thomas_periodic(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                          tl_info *info)
{
  (void)algo;
  (void)opt;
  size_t n = tr->n;
  tl_tr_stage_input(tr, "periodic Thomas: the corners make A a tridiagonal B plus a rank-one "
                        "u v^T; two Thomas solves with B and the Sherman-Morrison formula");
  double *w = tl_alloc(3 * n, sizeof(double));
  if (!w)
    return tl_tr_nomem(info);
  int status = TL_OK;
  if (n >= 3) {
    status = periodic_steps(tr, w, x);
  } else {
    tl_tr_note_stage(tr, "n <= 2: solved directly", "", "",
                     "the corners fold onto the row (tridlab/system.h): a 1x1 or 2x2 system");
    memcpy(x, tr->solved.x, n * sizeof *x); /* no steps of its own to compare */
  }
  if (status == TL_OK)
    tl_tr_verdict(tr, "the verdict", "", "", NULL);
  free(w);
  return status;
}

/* ------------------------------------------------------------------ */
/* Jacobi: the first sweeps, each with its backward error               */

#define JACOBI_SHOWN 8 /* sweeps drawn; the solve may go on */

/* Sweeps from the start D^-1 d (the sweep of x = 0) until eta <= tol,
 * a non-finite iterate, or JACOBI_SHOWN sweeps; x holds the last. */
static long jacobi_sweeps(tracer *tr, double tol, long maxit, double *w, double *x)
{
  size_t n = tr->n;
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  double *cur = w, *next = w + n;
  memset(cur, 0, n * sizeof *cur);
  tl_jacobi_sweep_d(n, 0, a, b, c, d, cur, next); /* x^(0) = D^-1 d */
  memcpy(cur, next, n * sizeof *cur);
  long it = 0;
  while (it < maxit && it < JACOBI_SHOWN) {
    int finite = tl_jacobi_sweep_d(n, 0, a, b, c, d, cur, next);
    double *t = cur;
    cur = next;
    next = t;
    it++;
    double eta = finite ? tl_jacobi_backward_error_d(n, 0, a, b, c, d, cur) : INFINITY;
    char title[96];
    snprintf(title, sizeof title, "sweep %ld", it);
    tl_tr_x_stage(tr, title, cur,
                  "x_i = (d_i - a_i x_{i-1} - c_i x_{i+1}) / b_i with the previous iterate; "
                  "backward error eta = %.3g against tol %.3g",
                  eta, tol);
    if (!finite || eta <= tol)
      break;
  }
  memcpy(x, cur, n * sizeof *x);
  return it;
}

int tl_tr_jacobi(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                 tl_info *info)
{
  size_t n = tr->n;
  double tol = tl_param_value(algo, opt, "tol");
  long maxit = (long)tl_param_value(algo, opt, "maxit");
  tl_tr_stage_input(tr, "Jacobi: keep the diagonal, move the rest to the right-hand side with "
                        "the previous iterate, from x = D^-1 d; stop when the componentwise "
                        "backward error eta <= tol");
  double *w = tl_alloc(2 * n, sizeof(double));
  if (!w)
    return tl_tr_nomem(info);
  long shown = jacobi_sweeps(tr, tol, maxit, w, x);
  const tl_tr_solved *sv = &tr->solved;
  if (sv->info->iterations > shown) { /* the solve went on: its iterate is the answer */
    tl_tr_note_stage(tr, "the sweeps not drawn", "", "",
                     "the solve went on to sweep %d (eta %.3g); its iterate is the answer",
                     sv->info->iterations, sv->info->dropped);
    memcpy(x, sv->x, n * sizeof *x);
  }
  tl_tr_verdict(tr, "the verdict", "", "", NULL);
  free(w);
  return TL_OK;
}
