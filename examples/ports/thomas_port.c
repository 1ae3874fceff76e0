/* examples/ports/thomas_port.c -- a port of the Thomas algorithm as a
 * student would write it, behind the one C entry point that `tridlab
 * validate --lib` loads (docs/ports.md):
 *
 *   int SYMBOL(int dtype, int periodic, int64_t n, int64_t nsys,
 *              const double *a, const double *b, const double *c,
 *              const double *d, double *x);
 *
 * dtype 1: real; 2: complex, each entry two doubles (real, imaginary).
 * Returns 0 solved, 1 solved outside its domain (the matrix is neither
 * row nor column diagonally dominant, so elimination without pivoting
 * carries no guarantee), -2 zero pivot, -4 periodic (not handled).
 *
 * Two entry points: port_thomas is right; port_thomas_conj has the bug
 * the validation must catch: it conjugates the multiplier, which changes
 * nothing on real input and is wrong on every complex system with n > 1.
 * Needs nothing from tridlab: a port is standalone.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "thomas_port.h"

/* Weak dominance by rows or by columns (the corners are zero). */
static int dominant(int64_t n, const double complex *a, const double complex *b,
                    const double complex *c)
{
  int rows = 1, cols = 1;
  for (int64_t i = 0; i < n; i++) {
    double off_row = (i > 0 ? cabs(a[i]) : 0) + (i < n - 1 ? cabs(c[i]) : 0);
    double off_col = (i > 0 ? cabs(c[i - 1]) : 0) + (i < n - 1 ? cabs(a[i + 1]) : 0);
    rows &= cabs(b[i]) >= off_row;
    cols &= cabs(b[i]) >= off_col;
  }
  return rows || cols;
}

/* One system, in complex arithmetic (a real system has zero imaginary
 * parts, so the same sweep serves both). bp: n scratch entries. */
static int thomas_one(int64_t n, const double complex *a, const double complex *b,
                      const double complex *c, const double complex *d, double complex *x,
                      double complex *bp, int conj_bug)
{
  bp[0] = b[0];
  x[0] = d[0];
  for (int64_t i = 1; i < n; i++) {
    if (bp[i - 1] == 0)
      return -2;
    double complex w = a[i] / bp[i - 1];
    if (conj_bug)
      w = conj(w); /* the bug: as if the multiplier were real */
    bp[i] = b[i] - w * c[i - 1];
    x[i] = d[i] - w * x[i - 1];
  }
  if (bp[n - 1] == 0)
    return -2;
  x[n - 1] /= bp[n - 1];
  for (int64_t i = n - 2; i >= 0; i--)
    x[i] = (x[i] - c[i] * x[i + 1]) / bp[i];
  return 0;
}

/* Copy entry k of a real or complex array into a complex one. */
static void load(int dtype, int64_t count, const double *in, double complex *out)
{
  for (int64_t k = 0; k < count; k++)
    out[k] = dtype == 2 ? CMPLX(in[2 * k], in[2 * k + 1]) : CMPLX(in[k], 0);
}

static int solve(int dtype, int periodic, int64_t n, int64_t nsys, const double *a, const double *b,
                 const double *c, const double *d, double *x, int conj_bug)
{
  if (periodic || (dtype != 1 && dtype != 2) || n < 1 || nsys < 1)
    return -4;
  int64_t count = n * nsys;
  double complex *z = malloc(6 * (size_t)count * sizeof *z);
  if (!z)
    return -4;
  double complex *za = z, *zb = z + count, *zc = z + 2 * count, *zd = z + 3 * count;
  double complex *zx = z + 4 * count, *bp = z + 5 * count;
  load(dtype, count, a, za);
  load(dtype, count, b, zb);
  load(dtype, count, c, zc);
  load(dtype, count, d, zd);
  int status = 0;
  for (int64_t s = 0; s < nsys && status >= 0; s++) {
    int64_t o = s * n;
    int st = thomas_one(n, za + o, zb + o, zc + o, zd + o, zx + o, bp, conj_bug);
    if (st == 0 && !dominant(n, za + o, zb + o, zc + o))
      st = 1;
    status = st < 0 ? st : (st > status ? st : status);
  }
  for (int64_t k = 0; k < count && status >= 0; k++) {
    if (dtype == 2) {
      x[2 * k] = creal(zx[k]);
      x[2 * k + 1] = cimag(zx[k]);
    } else {
      x[k] = creal(zx[k]);
    }
  }
  free(z);
  return status;
}

int port_thomas(int dtype, int periodic, int64_t n, int64_t nsys, const double *a, const double *b,
                const double *c, const double *d, double *x)
{
  return solve(dtype, periodic, n, nsys, a, b, c, d, x, 0);
}

int port_thomas_conj(int dtype, int periodic, int64_t n, int64_t nsys, const double *a,
                     const double *b, const double *c, const double *d, double *x)
{
  return solve(dtype, periodic, n, nsys, a, b, c, d, x, 1);
}
