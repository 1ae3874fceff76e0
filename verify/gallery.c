/* verify/gallery.c -- the numbered, seeded matrix gallery (docs/design.md §5).
 *
 * Every type has a stable id, a short name and the matrix classes all its
 * matrices belong to; docs/gallery.md is the table a person reads. A
 * problem is made deterministically from (id, n, nsys, seed) with the
 * splitmix64 generator below and nothing else, so a seed means the same
 * matrices on every machine. System s of a batch draws from its own stream
 * (derived from seed, id, n and s): it does not depend on nsys.
 *
 * For each system: the matrix is generated, the corners of a non-periodic
 * system are set to exactly 0, then xtrue is drawn uniform in [-1, 1)
 * (complex: both parts) and d = A xtrue is computed in double, wrapping
 * around for periodic systems (n = 1, 2 included: entries that land on the
 * same column add up). Singular types have no xtrue; their d is uniform.
 *
 * The first twelve types follow LAPACK's GT test matrices (DCHKGT with
 * DLATB4's constants); the rest cover dominance margins (MATLAB's Dorr
 * matrices among them: weakly dominant and nearly singular), compact-scheme
 * matrices with their boundary closures, the matrix of paper 003 (ITS), pivot
 * breakdowns, periodic variants and complex Crank-Nicolson systems.
 */
#include <complex.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/verify.h"

#define G_PI 3.14159265358979323846
/* C11's CMPLX, where the C library leaves it out (glibc under clang);
 * exact for finite parts. */
#ifndef CMPLX
#define CMPLX(x, y) ((double complex)((double)(x) + _Complex_I * (double)(y)))
#endif
/* DLATB4's constants: SMALL = 2^-971 and LARGE = 2^971 are powers of two,
 * so scaling by them is exact and keeps every dominance margin. */
#define G_SMALL (0.25 * (DBL_MIN / TL_EPS))
#define G_LARGE (1.0 / G_SMALL)

/* ------------------------------------------------------------------ */
/* splitmix64                                                          */

void tl_rng_seed(tl_rng *rng, uint64_t seed)
{
  rng->state = seed;
}

uint64_t tl_rng_next(tl_rng *rng)
{
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

double tl_rng_uniform(tl_rng *rng, double lo, double hi)
{
  /* The top 53 bits give a multiple of 2^-53 in [0, 1). An explicit
   * fma rounds once on every machine, whatever the compiler contracts. */
  double u = (double)(tl_rng_next(rng) >> 11) * 0x1p-53;
  double v = fma(hi - lo, u, lo);
  return v < hi ? v : nextafter(hi, lo); /* rounding must not reach hi */
}

/* The stream of system s: the seed, id, n and s hashed in turn. */
static void stream_seed(tl_rng *rng, uint64_t seed, int id, size_t n, size_t s)
{
  const uint64_t parts[3] = {(uint64_t)(int64_t)id, (uint64_t)n, (uint64_t)s};
  tl_rng_seed(rng, seed);
  uint64_t h = tl_rng_next(rng);
  for (int k = 0; k < 3; k++) {
    tl_rng_seed(rng, h ^ parts[k]);
    h = tl_rng_next(rng);
  }
  tl_rng_seed(rng, h);
}

static double rsign(tl_rng *r)
{
  return (tl_rng_next(r) >> 63) ? -1.0 : 1.0;
}

static double complex cuniform(tl_rng *r, double lo, double hi)
{
  double re = tl_rng_uniform(r, lo, hi);
  double im = tl_rng_uniform(r, lo, hi);
  return CMPLX(re, im);
}

/* ------------------------------------------------------------------ */
/* Building blocks                                                     */

/* What a generator knows: the size, the layout and the type's parameter. */
typedef struct gen_ctx {
  size_t n;
  int periodic;
  double p;
} gen_ctx;

typedef void (*gen_d_fn)(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c);
typedef void (*gen_z_fn)(tl_rng *r, const gen_ctx *g, double complex *a, double complex *b,
                         double complex *c);

static void fill_d(tl_rng *r, size_t n, double *v, double lo, double hi)
{
  for (size_t i = 0; i < n; i++)
    v[i] = tl_rng_uniform(r, lo, hi);
}

static void fill_z(tl_rng *r, size_t n, double complex *v, double lo, double hi)
{
  for (size_t i = 0; i < n; i++)
    v[i] = cuniform(r, lo, hi);
}

static void corners_d(const gen_ctx *g, double *a, double *c)
{
  if (!g->periodic) {
    a[0] = 0.0;
    c[g->n - 1] = 0.0;
  }
}

static void corners_z(const gen_ctx *g, double complex *a, double complex *c)
{
  if (!g->periodic) {
    a[0] = 0.0;
    c[g->n - 1] = 0.0;
  }
}

static void toeplitz_d(size_t n, double lo, double di, double up, double *a, double *b, double *c)
{
  for (size_t i = 0; i < n; i++) {
    a[i] = lo;
    b[i] = di;
    c[i] = up;
  }
}

static void scale_d(size_t n, double s, double *a, double *b, double *c)
{
  for (size_t i = 0; i < n; i++) {
    a[i] *= s;
    b[i] *= s;
    c[i] *= s;
  }
}

/* Off-diagonal modulus sum of a row; 1 for a row without any (n = 1),
 * so a diagonal built from it is never zero. */
static double offsum(double s)
{
  return s > 0.0 ? s : 1.0;
}

/* b_i = +-(|a_i| + |c_i|)(1 + u), u in [0.1, 1): strictly row dominant
 * with a relative margin of at least 10%, from the entries as stored. */
static void dominant_diag_d(tl_rng *r, size_t n, const double *a, double *b, const double *c)
{
  for (size_t i = 0; i < n; i++) {
    double s = offsum(fabs(a[i]) + fabs(c[i]));
    b[i] = rsign(r) * s * (1.0 + tl_rng_uniform(r, 0.1, 1.0));
  }
}

/* Zero column j of a non-periodic system: the diagonal entry and the
 * off-diagonal entries of the neighbouring rows that sit in column j. */
static void zero_column_d(size_t n, size_t j, double *a, double *b, double *c)
{
  b[j] = 0.0;
  if (j > 0)
    c[j - 1] = 0.0;
  if (j + 1 < n)
    a[j + 1] = 0.0;
}

/* ------------------------------------------------------------------ */
/* Real generators                                                     */

/* gt01: |b_i| = 2^(-i/(n-1)) runs geometrically from 1 to 1/2. */
static void gen_diagonal(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  size_t n = g->n;
  for (size_t i = 0; i < n; i++) {
    double mag = n > 1 ? exp2(-(double)i / (double)(n - 1)) : 1.0;
    a[i] = 0.0;
    c[i] = 0.0;
    b[i] = rsign(r) * mag;
  }
}

/* gt02: |b_i| exceeds both the row and the column off-diagonal sums by
 * u in [1, 2), so ||A^-1|| <= 1 and ||A|| < 6 in the 1- and inf-norms. */
static void gen_cond_small(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  size_t n = g->n;
  fill_d(r, n, a, -1.0, 1.0);
  fill_d(r, n, c, -1.0, 1.0);
  corners_d(g, a, c);
  for (size_t i = 0; i < n; i++) {
    double row = fabs(a[i]) + fabs(c[i]);
    double col = (i > 0 ? fabs(c[i - 1]) : 0.0) + (i + 1 < n ? fabs(a[i + 1]) : 0.0);
    b[i] = rsign(r) * (fmax(row, col) + tl_rng_uniform(r, 1.0, 2.0));
  }
  scale_d(n, g->p, a, b, c); /* gt05 / gt06 scale by SMALL / LARGE */
}

/* gt03/gt04: tridiag(1, beta, 1) has eigenvalues beta + 2cos(k pi/(n+1));
 * shifting eigenvalue k0 to delta = +-4/cond puts cond_2 in [cond/2.9, cond]
 * (the largest modulus is in [sqrt 2, 4)). Random signs on the off-diagonal
 * pairs are a signature similarity (same eigenvalues); random row scales
 * in [0.5, 2) change cond_2 by < 4x. */
static void gen_ill(tl_rng *r, const gen_ctx *g, double cond, double *a, double *b, double *c)
{
  size_t n = g->n;
  double delta = rsign(r) * 4.0 / cond;
  if (n == 1) {
    a[0] = c[0] = 0.0;
    b[0] = delta * tl_rng_uniform(r, 0.5, 2.0);
    return;
  }
  size_t k0 = 1 + (size_t)(tl_rng_next(r) % n);
  double beta = -2.0 * cos((double)k0 * G_PI / (double)(n + 1));
  beta += delta;
  toeplitz_d(n, 1.0, beta, 1.0, a, b, c);
  for (size_t i = 0; i + 1 < n; i++) {
    double s = rsign(r);
    c[i] = s;
    a[i + 1] = s;
  }
  corners_d(g, a, c);
  for (size_t i = 0; i < n; i++) {
    double f = tl_rng_uniform(r, 0.5, 2.0);
    a[i] *= f;
    b[i] *= f;
    c[i] *= f;
  }
}

static void gen_ill_sqrt(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ill(r, g, sqrt(0.1 / TL_EPS), a, b, c); /* BADC1 */
}

static void gen_ill_eps(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ill(r, g, 0.1 / TL_EPS, a, b, c); /* BADC2 */
}

/* gt07 (and gt11/gt12, random-periodic): every entry uniform(-1, 1),
 * scaled by p. */
static void gen_random(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  fill_d(r, g->n, a, -1.0, 1.0);
  fill_d(r, g->n, b, -1.0, 1.0);
  fill_d(r, g->n, c, -1.0, 1.0);
  corners_d(g, a, c);
  scale_d(g->n, g->p, a, b, c);
}

/* gt08-gt10: p is the column's position as a fraction of n-1
 * (0: first, 1: last, 0.5: (n-1)/2 rounded down). */
static void gen_zero_col(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ctx unit = {g->n, g->periodic, 1.0};
  gen_random(r, &unit, a, b, c);
  size_t j = g->p == 0.0 ? 0 : g->p == 1.0 ? g->n - 1 : (g->n - 1) / 2;
  zero_column_d(g->n, j, a, b, c);
}

static void gen_sdd(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  fill_d(r, g->n, a, -1.0, 1.0);
  fill_d(r, g->n, c, -1.0, 1.0);
  corners_d(g, a, c);
  dominant_diag_d(r, g->n, a, b, c);
}

/* tridiag(1, p, 1): Toeplitz types and their periodic forms. */
static void gen_toeplitz(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  (void)r;
  toeplitz_d(g->n, 1.0, g->p, 1.0, a, b, c);
  corners_d(g, a, c);
}

/* tridiag(p, 1, p): the compact-scheme left-hand sides. */
static void gen_compact(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  (void)r;
  toeplitz_d(g->n, g->p, 1.0, g->p, a, b, c);
  corners_d(g, a, c);
}

/* Rows 0 and n-1 get the closure [1, w] / [w, 1]; rows 1 and n-2 (when
 * `inner` > 0) the lower-order stencil [inner, 1, inner]. */
static void closures(size_t n, double w, double inner, double *a, double *c)
{
  c[0] = w;
  a[n - 1] = w;
  if (inner > 0.0) {
    a[1] = c[1] = inner;
    a[n - 2] = c[n - 2] = inner;
  }
}

/* Pade 4th-order first derivative with the standard 3rd-order one-sided
 * closure f0' + 2 f1' = (-5 f0 + 4 f1 + f2) / (2h). Singular for n = 3. */
static void gen_pade4_closure(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ctx in = {g->n, 0, 0.25};
  gen_compact(r, &in, a, b, c);
  closures(g->n, 2.0, 0.0, a, c);
}

/* Lele 6th-order first derivative; Pade next to the boundary. */
static void gen_lele6_closure(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ctx in = {g->n, 0, 1.0 / 3.0};
  gen_compact(r, &in, a, b, c);
  closures(g->n, 2.0, 0.25, a, c);
}

/* Lele 6th-order first derivative under Lele's 4th-order closure
 * f0' + 3 f1' (alpha = 3), with the interior's [1/3, 1, 1/3] right up to
 * row 1: the leading 2 x 2 block [[1, 3], [1/3, 1]] is exactly singular,
 * so elimination without pivoting meets a zero pivot at row 1, while the
 * whole matrix is not singular for n >= 6 (docs/gallery.md). */
static void gen_lele6_alpha3(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ctx in = {g->n, 0, 1.0 / 3.0};
  gen_compact(r, &in, a, b, c);
  closures(g->n, 3.0, 0.0, a, c);
}

/* 6th-order second derivative; 4th order next to the boundary and the
 * 3rd-order closure f0'' + 11 f1''. */
static void gen_d2_closure(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ctx in = {g->n, 0, 2.0 / 11.0};
  gen_compact(r, &in, a, b, c);
  closures(g->n, 11.0, 0.1, a, c);
}

/* Paper 003 (ITS): row i (1-based) is [sin i, 2(|sin i| + |cos i|), cos i]. */
static void gen_its(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  (void)r;
  for (size_t k = 0; k < g->n; k++) {
    double i = (double)(k + 1);
    a[k] = sin(i);
    c[k] = cos(i);
    b[k] = 2.0 * (fabs(a[k]) + fabs(c[k]));
  }
  corners_d(g, a, c);
}

static void gen_mmatrix(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  (void)r;
  toeplitz_d(g->n, -1.0, 2.0, -1.0, a, b, c);
  corners_d(g, a, c);
}

/* Zero margin in interior rows, a positive one in the two boundary rows:
 * irreducibly diagonally dominant, hence nonsingular. */
static void gen_mmatrix_random(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  size_t n = g->n;
  fill_d(r, n, a, -1.0, -0.5);
  fill_d(r, n, c, -1.0, -0.5);
  corners_d(g, a, c);
  for (size_t i = 0; i < n; i++) {
    b[i] = fabs(a[i]) + fabs(c[i]);
    if (i == 0 || i + 1 == n)
      b[i] += tl_rng_uniform(r, 0.5, 1.0);
  }
}

/* v rounded to `bits` significant bits: an entry with a short
 * significand leaves room for d = A xtrue to be exact (exact_xbits). */
static double round_bits(double v, int bits)
{
  int e;
  frexp(v, &e);
  return ldexp(round(ldexp(v, bits - e)), e - bits);
}

/* MATLAB's gallery('dorr', n, theta), theta = p: upwind differences for
 * -theta u'' + (x - 1/2) u' on n interior points of [0, 1], h = 1/(n+1).
 * Row i (1-based) has the couplings -theta/h^2 on the upwind side and
 * -theta/h^2 - |1/2 - i h|/h on the other (the convection points to the
 * middle from both ends), and b_i = |a_i| + |c_i| in floating point: zero
 * margin, exactly, in every row but 0 and n-1, which keep theta/h^2 from
 * the dropped corner. (1/2 - i h)/h = (n+1)/2 - i is exact; theta/h^2 is
 * rounded to 20 significant bits, so that d = A xtrue can be exact: the
 * matrix is so close to singular that a rounded d would have an exact
 * solution nothing like xtrue (docs/gallery.md, "Nearly singular"). */
static void gen_dorr(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  (void)r;
  size_t n = g->n, half = (n + 1) / 2;
  double np1 = (double)(n + 1), term = round_bits(g->p * np1 * np1, 20);
  for (size_t k = 0; k < n; k++) {
    double i = (double)(k + 1), drift = 0.5 * np1 - i; /* (1/2 - i h)/h */
    a[k] = k < half ? -term : -term + drift;
    c[k] = k < half ? -term - drift : -term;
    b[k] = -(a[k] + c[k]); /* MATLAB: d = -(c + e), before the corners go */
  }
  corners_d(g, a, c);
}

static void gen_zero_diag(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_ctx unit = {g->n, g->periodic, 1.0};
  gen_random(r, &unit, a, b, c);
  b[0] = 0.0;
}

/* sdd-random with every 7th diagonal entry (rows 0, 7, 14, ...) shrunk
 * by 1e-14: tiny pivots for elimination without pivoting. */
static void gen_tiny_diag(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  gen_sdd(r, g, a, b, c);
  for (size_t i = 0; i < g->n; i += 7)
    b[i] *= 1e-14;
}

/* Rows 0, 1 = [1 1; 1 1 c1]: the second pivot of elimination without
 * pivoting is exactly 0, yet |c1|, |a2| >= 0.5 keep A nonsingular and
 * well-conditioned (row 1 minus row 0 gives c1 x2 = d1 - d0). */
static void gen_zero_pivot(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  size_t n = g->n;
  fill_d(r, n, a, -1.0, 1.0);
  fill_d(r, n, c, -1.0, 1.0);
  c[1] = rsign(r) * tl_rng_uniform(r, 0.5, 1.0);
  a[2] = rsign(r) * tl_rng_uniform(r, 0.5, 1.0);
  corners_d(g, a, c);
  dominant_diag_d(r, n, a, b, c);
  b[0] = c[0] = 1.0;
  a[1] = b[1] = 1.0;
}

/* 58, 59: the cyclic Toeplitz rows [p a, a (1 + 2^-52), c_i] with a
 * near 1e300 and |c_i| < 1. The row margin |b| - |a| is one or two units
 * in the last place of a, so the matrix is strictly dominant by rows and
 * columns, yet (c being negligible beside a) it is within a relative
 * 2^-52 of a (I + p P), P the cyclic shift: singular for p = -1 (the
 * constant vector) and, for p = +1, at even n (the alternating vector).
 * a has a random mantissa (a power of two would make 1 / b exact, and the
 * SIMD kernel that multiplied by that reciprocal, wrong on this matrix,
 * exact); b = a (1 + 2^-52) is rounded once by the fma. */
static void gen_eps_margin(tl_rng *r, const gen_ctx *g, double *a, double *b, double *c)
{
  double big = tl_rng_uniform(r, 0.5, 1.0) * 0x1p997; /* in [6.7e299, 1.3e300) */
  double diag = fma(big, 0x1p-52, big);
  for (size_t i = 0; i < g->n; i++) {
    a[i] = g->p * big;
    b[i] = diag;
    c[i] = tl_rng_uniform(r, -1.0, 1.0);
  }
  corners_d(g, a, c);
}

/* ------------------------------------------------------------------ */
/* Complex generators                                                  */

/* Crank-Nicolson for i psi_t = -1/2 psi_xx + V psi on x in [-10, 10]:
 * A = I + i dt/2 H, H = -1/2 D2 + V, with r = dt/dx^2 = 10. Non-periodic:
 * n interior points, V = x^2/2. Periodic: a ring of n points, V = 0. */
static void gen_tdse(tl_rng *rng, const gen_ctx *g, double complex *a, double complex *b,
                     double complex *c)
{
  (void)rng;
  const double r = 10.0;
  size_t n = g->n;
  double dx = 20.0 / (double)(g->periodic ? n : n + 1);
  double dt = r * dx * dx;
  for (size_t i = 0; i < n; i++) {
    double x = fma((double)(i + 1), dx, -10.0);
    double v = g->periodic ? 0.0 : 0.5 * x * x;
    a[i] = c[i] = CMPLX(0.0, -r / 4.0);
    b[i] = CMPLX(1.0, fma(0.5 * dt, v, 0.5 * r));
  }
  corners_z(g, a, c);
}

/* Like gen_sdd, with the diagonal given a random phase. */
static void gen_sdd_z(tl_rng *r, const gen_ctx *g, double complex *a, double complex *b,
                      double complex *c)
{
  fill_z(r, g->n, a, -1.0, 1.0);
  fill_z(r, g->n, c, -1.0, 1.0);
  corners_z(g, a, c);
  for (size_t i = 0; i < g->n; i++) {
    double s = offsum(cabs(a[i]) + cabs(c[i]));
    double m = s * (1.0 + tl_rng_uniform(r, 0.1, 1.0));
    double phi = tl_rng_uniform(r, 0.0, 2.0 * G_PI);
    b[i] = CMPLX(m * cos(phi), m * sin(phi));
  }
}

static void gen_random_z(tl_rng *r, const gen_ctx *g, double complex *a, double complex *b,
                         double complex *c)
{
  fill_z(r, g->n, a, -1.0, 1.0);
  fill_z(r, g->n, b, -1.0, 1.0);
  fill_z(r, g->n, c, -1.0, 1.0);
  corners_z(g, a, c);
}

/* A damped 1-D Helmholtz operator u'' + k^2 u with k h = 1.2 and a
 * little absorption: tridiag(1, -2 + 1.44 + 0.01 i, 1). Indefinite (the
 * real parts of its eigenvalues -0.56 + 2 cos(j pi / (n + 1)) take both
 * signs) and nowhere dominant (|b| = 0.56 < 2), but the absorption keeps
 * every eigenvalue 0.01 away from zero: cond_2 <= 2.56 / 0.01. What a
 * Helmholtz solver at large wavenumber hands its tridiagonal solver, and
 * what only a pivoting algorithm solves. */
static void gen_helmholtz_z(tl_rng *rng, const gen_ctx *g, double complex *a, double complex *b,
                            double complex *c)
{
  (void)rng;
  for (size_t i = 0; i < g->n; i++) {
    a[i] = c[i] = 1.0;
    b[i] = CMPLX(-2.0 + 1.44, 0.01);
  }
  corners_z(g, a, c);
}

static void gen_zero_col_mid_z(tl_rng *r, const gen_ctx *g, double complex *a, double complex *b,
                               double complex *c)
{
  gen_random_z(r, g, a, b, c);
  size_t j = (g->n - 1) / 2;
  b[j] = 0.0;
  if (j > 0)
    c[j - 1] = 0.0;
  if (j + 1 < g->n)
    a[j + 1] = 0.0;
}

/* ------------------------------------------------------------------ */
/* The table                                                           */

typedef struct gallery_entry {
  tl_gallery_type type;
  gen_d_fn gen_d; /* exactly one of gen_d / gen_z is set, by dtype */
  gen_z_fn gen_z;
  double p;     /* the generator's parameter */
  int exact_d;  /* 1: xtrue is rounded so that d = A xtrue is exact */
} gallery_entry;

enum {
  ROW = TL_CLASS_ROW_DD,
  STR = TL_CLASS_STRICT_DD,
  COL = TL_CLASS_COL_DD,
  SPD = TL_CLASS_SPD,
  NS = TL_CLASS_NONSINGULAR,
  STRONG = TL_CLASS_STRONG_DD, /* |b_i| >= 2 (|a_i| + |c_i|) */
  DOM = ROW | STR | COL | NS /* strictly dominant by rows and columns */
};

#define REAL(id, name, desc, per, cls, sing, minn, fn, p)                                          \
  {                                                                                                \
    {id, name, desc, TL_F64, per, cls, sing, minn}, fn, NULL, p, 0                                  \
  }
#define REAL_EXACT_D(id, name, desc, per, cls, sing, minn, fn, p)                                  \
  {                                                                                                \
    {id, name, desc, TL_F64, per, cls, sing, minn}, fn, NULL, p, 1                                 \
  }
#define CPLX(id, name, desc, per, cls, sing, minn, fn)                                             \
  {                                                                                                \
    {id, name, desc, TL_C128, per, cls, sing, minn}, NULL, fn, 0.0, 0                                \
  }

static const gallery_entry gallery[] = {
    REAL(1, "gt01-diagonal", "diagonal, |b| geometric from 1 to 1/2, random signs", 0, DOM | STRONG, 0, 1,
         gen_diagonal, 0.0),
    REAL(2, "gt02-cond2", "random, row and column dominant by >= 1, cond < 6", 0, DOM, 0, 1,
         gen_cond_small, 1.0),
    REAL(3, "gt03-ill-sqrt", "cond_2 ~ sqrt(0.1/eps) ~ 3e7 (shifted Toeplitz, scaled rows)", 0, NS,
         0, 1, gen_ill_sqrt, 0.0),
    REAL(4, "gt04-ill-eps", "cond_2 ~ 0.1/eps ~ 9e14 (shifted Toeplitz, scaled rows)", 0, NS, 0, 1,
         gen_ill_eps, 0.0),
    REAL(5, "gt05-small-norm", "gt02 scaled by SMALL = 2^-971", 0, DOM, 0, 1, gen_cond_small,
         G_SMALL),
    REAL(6, "gt06-large-norm", "gt02 scaled by LARGE = 2^971", 0, DOM, 0, 1, gen_cond_small,
         G_LARGE),
    REAL(7, "gt07-random", "every entry uniform(-1, 1)", 0, NS, 0, 1, gen_random, 1.0),
    REAL(8, "gt08-zero-col-first", "gt07 with column 0 zero (singular)", 0, 0, 1, 1, gen_zero_col,
         0.0),
    REAL(9, "gt09-zero-col-last", "gt07 with column n-1 zero (singular)", 0, 0, 1, 1, gen_zero_col,
         1.0),
    REAL(10, "gt10-zero-col-mid", "gt07 with column (n-1)/2 zero (singular)", 0, 0, 1, 1,
         gen_zero_col, 0.5),
    REAL(11, "gt11-random-small", "gt07 scaled by SMALL = 2^-971", 0, NS, 0, 1, gen_random,
         G_SMALL),
    REAL(12, "gt12-random-large", "gt07 scaled by LARGE = 2^971", 0, NS, 0, 1, gen_random, G_LARGE),
    REAL(20, "sdd-random", "random, strictly row dominant by 10% to 100%", 0, ROW | STR | NS, 0, 1,
         gen_sdd, 0.0),
    REAL(21, "toeplitz-2.05", "tridiag(1, 2.05, 1)", 0, DOM | SPD, 0, 1, gen_toeplitz, 2.05),
    REAL(22, "toeplitz-2.5", "tridiag(1, 2.5, 1)", 0, DOM | SPD, 0, 1, gen_toeplitz, 2.5),
    REAL(23, "toeplitz-4", "tridiag(1, 4, 1)", 0, DOM | SPD | STRONG, 0, 1, gen_toeplitz, 4.0),
    REAL(24, "toeplitz-8", "tridiag(1, 8, 1)", 0, DOM | SPD | STRONG, 0, 1, gen_toeplitz, 8.0),
    REAL(25, "toeplitz-1.5", "tridiag(1, 1.5, 1): indefinite, not dominant", 0, NS, 0, 1,
         gen_toeplitz, 1.5),
    REAL(30, "pade4-closure", "Pade [1/4, 1, 1/4] with 3rd-order closure [1, 2]", 0, NS, 0, 4,
         gen_pade4_closure, 0.0),
    REAL(31, "lele6-closure", "Lele [1/3, 1, 1/3], Pade rows 1, n-2, closure [1, 2]", 0, NS, 0, 5,
         gen_lele6_closure, 0.0),
    REAL(32, "lele6-plain", "Lele [1/3, 1, 1/3], rows truncated", 0, DOM | SPD, 0, 1, gen_compact,
         1.0 / 3.0),
    REAL(33, "d2-6th-closure", "2nd derivative [2/11, 1, 2/11], closure [1, 11]", 0, NS, 0, 5,
         gen_d2_closure, 0.0),
    REAL(34, "its-nonconst", "ITS [sin i, 2(|sin i|+|cos i|), cos i]", 0, ROW | STR | STRONG | NS, 0, 1,
         gen_its, 0.0),
    REAL(35, "mmatrix-weak", "tridiag(-1, 2, -1): zero margin in interior rows", 0,
         ROW | COL | SPD | NS, 0, 1, gen_mmatrix, 0.0),
    REAL(36, "mmatrix-weak-random", "random M-matrix, zero margin in interior rows", 0, ROW | NS, 0,
         1, gen_mmatrix_random, 0.0),
    REAL(37, "zero-diag", "gt07 with b[0] = 0", 0, NS, 0, 2, gen_zero_diag, 0.0),
    REAL(38, "tiny-diag", "sdd-random with b[0], b[7], ... shrunk by 1e-14", 0, NS, 0, 1,
         gen_tiny_diag, 0.0),
    REAL(39, "zero-pivot-interior", "rows 0, 1 = [1 1; 1 1 c1]: exact zero pivot at row 1", 0, NS,
         0, 3, gen_zero_pivot, 0.0),
    REAL(40, "lele6-alpha3-closure",
         "Lele [1/3, 1, 1/3] up to row 1, closure [1, 3]: singular leading 2x2 block", 0, NS, 0, 6,
         gen_lele6_alpha3, 0.0),
    REAL_EXACT_D(41, "dorr-1e-2", "MATLAB gallery('dorr', n, 0.01): zero margin inside, ill-conditioned",
                 0, ROW | NS, 0, 1, gen_dorr, 1e-2),
    REAL_EXACT_D(42, "dorr-5e-3", "MATLAB gallery('dorr', n, 0.005): zero margin inside, cond to 2e16",
                 0, ROW | NS, 0, 1, gen_dorr, 5e-3),
    REAL_EXACT_D(43, "dorr-1e-4",
                 "MATLAB gallery('dorr', n, 1e-4): singular to working precision from n = 16 on",
                 0, ROW | NS, 0, 1, gen_dorr, 1e-4),
    REAL(50, "sdd-random-periodic", "sdd-random with random corners", 1, ROW | STR | NS, 0, 1,
         gen_sdd, 0.0),
    REAL(51, "toeplitz-2.5-periodic", "cyclic tridiag(1, 2.5, 1)", 1, DOM | SPD, 0, 1, gen_toeplitz,
         2.5),
    REAL(52, "pade4-periodic", "cyclic Pade [1/4, 1, 1/4]", 1, DOM | SPD | STRONG, 0, 1, gen_compact, 0.25),
    REAL(53, "lele6-periodic", "cyclic Lele [1/3, 1, 1/3]", 1, DOM | SPD, 0, 1, gen_compact,
         1.0 / 3.0),
    REAL(54, "d2-6th-periodic", "cyclic 2nd derivative [2/11, 1, 2/11]", 1, DOM | SPD | STRONG, 0, 1,
         gen_compact, 2.0 / 11.0),
    REAL(55, "its-nonconst-periodic", "ITS matrix with its corners kept", 1, ROW | STR | STRONG | NS, 0, 1,
         gen_its, 0.0),
    REAL(56, "laplacian-periodic-singular", "cyclic tridiag(-1, 2, -1) (singular)", 1, 0, 1, 1,
         gen_mmatrix, 0.0),
    REAL(57, "random-periodic", "every entry uniform(-1, 1), corners too", 1, NS, 0, 1, gen_random,
         1.0),
    REAL(58, "eps-margin-periodic-alt",
         "cyclic [a, a(1 + 2^-52), c], a ~ 1e300, |c| < 1: nearly singular at even n", 1, DOM, 0,
         1, gen_eps_margin, 1.0),
    REAL(59, "eps-margin-periodic-const",
         "cyclic [-a, a(1 + 2^-52), c], a ~ 1e300, |c| < 1: nearly singular at every n", 1, DOM, 0,
         1, gen_eps_margin, -1.0),
    CPLX(60, "tdse-cn", "Crank-Nicolson TDSE, harmonic potential, dt/dx^2 = 10", 0, DOM, 0, 1,
         gen_tdse),
    CPLX(61, "tdse-cn-periodic", "Crank-Nicolson TDSE on a ring, V = 0, dt/dx^2 = 10", 1, DOM, 0, 1,
         gen_tdse),
    CPLX(62, "complex-sdd-random", "complex, strictly row dominant, random diagonal phase", 0,
         ROW | STR | NS, 0, 1, gen_sdd_z),
    CPLX(63, "complex-random", "complex entries uniform in [-1, 1) + i[-1, 1)", 0, NS, 0, 1,
         gen_random_z),
    CPLX(64, "complex-zero-col-mid", "complex-random with column (n-1)/2 zero (singular)", 0, 0, 1,
         1, gen_zero_col_mid_z),
    CPLX(65, "helmholtz-damped",
         "tridiag(1, -0.56 + 0.01i, 1): damped Helmholtz, kh = 1.2, indefinite, cond < 260", 0,
         NS, 0, 1, gen_helmholtz_z),
};

#define GALLERY_COUNT (sizeof gallery / sizeof gallery[0])

size_t tl_gallery_count(void)
{
  return GALLERY_COUNT;
}

const tl_gallery_type *tl_gallery_get(size_t index)
{
  return index < GALLERY_COUNT ? &gallery[index].type : NULL;
}

static const gallery_entry *find_entry(int id)
{
  for (size_t k = 0; k < GALLERY_COUNT; k++)
    if (gallery[k].type.id == id)
      return &gallery[k];
  return NULL;
}

const tl_gallery_type *tl_gallery_find(int id)
{
  const gallery_entry *e = find_entry(id);
  return e ? &e->type : NULL;
}

const tl_gallery_type *tl_gallery_find_name(const char *name)
{
  if (!name)
    return NULL;
  for (size_t k = 0; k < GALLERY_COUNT; k++)
    if (strcmp(gallery[k].type.name, name) == 0)
      return &gallery[k].type;
  return NULL;
}

int tl_gallery_expects_pass(const tl_gallery_type *type, const tl_algorithm *algo)
{
  if (!type || !algo)
    return 0;
  if (!(algo->dtypes & TL_DTYPE_BIT(type->dtype)))
    return 0;
  if (!(algo->layouts & (type->periodic ? TL_PERIODIC : TL_NONPERIODIC)))
    return 0;
  if (type->singular)
    return 0;
  return (type->classes & algo->classes) != 0;
}

/* ------------------------------------------------------------------ */
/* Making a problem                                                    */

/* Row i of A x with wraparound; in a non-periodic system the corners are
 * 0, so the wrapped terms vanish. n = 1, 2 periodic: terms on the same
 * column add, as tridlab/system.h defines (n = 1: the entry
 * tl_periodic1_entry computes, the one every solver uses).
 *
 * Every product is added with an explicit fma: the rounding is then the
 * same on every machine, whether or not the compiler would contract
 * a*b + c by itself (GCC does by default where the hardware has FMA, and
 * vectorizes complex products into fused instructions). */
static void matvec_d(size_t n, const double *a, const double *b, const double *c, const double *x,
                     double *d)
{
  if (n == 1) { /* the 1x1 entry (corners are 0 unless periodic) */
    d[0] = tl_periodic1_entry_d(a[0], b[0], c[0]) * x[0];
    return;
  }
  for (size_t i = 0; i < n; i++) {
    double s = fma(a[i], x[i > 0 ? i - 1 : n - 1], b[i] * x[i]);
    d[i] = fma(c[i], x[i + 1 < n ? i + 1 : 0], s);
  }
}

/* s + p q for complex numbers, each part with two fmas. */
static double complex zfma(double complex p, double complex q, double complex s)
{
  double pr = creal(p), pi = cimag(p), qr = creal(q), qi = cimag(q);
  double re = fma(pr, qr, fma(-pi, qi, creal(s)));
  double im = fma(pr, qi, fma(pi, qr, cimag(s)));
  return CMPLX(re, im);
}

static void matvec_z(size_t n, const double complex *a, const double complex *b,
                     const double complex *c, const double complex *x, double complex *d)
{
  if (n == 1) {
    d[0] = zfma(tl_periodic1_entry_z(a[0], b[0], c[0]), x[0], 0.0);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    double complex s = zfma(b[i], x[i], 0.0);
    s = zfma(a[i], x[i > 0 ? i - 1 : n - 1], s);
    d[i] = zfma(c[i], x[i + 1 < n ? i + 1 : 0], s);
  }
}

/* The exponent of the lowest set bit of v (v != 0): v is an integer
 * multiple of 2^lowest_bit(v). */
static int lowest_bit(double v)
{
  int e;
  double m = ldexp(frexp(fabs(v), &e), 53); /* the significand, an integer */
  int k = e - 53;
  while (fmod(m, 2.0) == 0.0) {
    m *= 0.5;
    k++;
  }
  return k;
}

/* Fraction bits xtrue (|x| < 1) may keep so that every product and
 * partial sum of d = A xtrue is exact: all of them are multiples of
 * 2^(low - bits), where 2^low divides every entry, and smaller than
 * 2^high, a bound on |A| |x| in every row; 53 bits hold them. */
static int exact_xbits(size_t n, const double *a, const double *b, const double *c)
{
  int low = INT_MAX, high = INT_MIN;
  for (size_t i = 0; i < n; i++) {
    const double row[3] = {a[i], b[i], c[i]};
    int e;
    for (int k = 0; k < 3; k++)
      if (row[k] != 0.0 && lowest_bit(row[k]) < low)
        low = lowest_bit(row[k]);
    frexp(fabs(a[i]) + fabs(b[i]) + fabs(c[i]), &e);
    if (e + 1 > high)
      high = e + 1;
  }
  int bits = 53 - high + low;
  return bits < 52 ? bits : 52;
}

/* System s: matrix, corners, then xtrue and d (or a random d). */
static void make_system(const gallery_entry *e, tl_rng *r, size_t n, size_t s, tl_problem *p)
{
  gen_ctx g = {n, e->type.periodic, e->p};
  size_t off = s * n;
  if (e->type.dtype == TL_F64) {
    double *a = (double *)p->a + off, *b = (double *)p->b + off, *c = (double *)p->c + off;
    double *d = (double *)p->d + off, *x = p->xtrue ? (double *)p->xtrue + off : NULL;
    e->gen_d(r, &g, a, b, c);
    corners_d(&g, a, c);
    fill_d(r, n, x ? x : d, -1.0, 1.0);
    if (x && e->exact_d) {
      int bits = exact_xbits(n, a, b, c);
      for (size_t i = 0; i < n; i++)
        x[i] = ldexp(round(ldexp(x[i], bits)), -bits); /* |x| <= 1 still */
    }
    if (x)
      matvec_d(n, a, b, c, x, d);
  } else {
    double complex *a = (double complex *)p->a + off, *b = (double complex *)p->b + off;
    double complex *c = (double complex *)p->c + off, *d = (double complex *)p->d + off;
    double complex *x = p->xtrue ? (double complex *)p->xtrue + off : NULL;
    e->gen_z(r, &g, a, b, c);
    corners_z(&g, a, c);
    fill_z(r, n, x ? x : d, -1.0, 1.0);
    if (x)
      matvec_z(n, a, b, c, x, d);
  }
}

static int allocate(tl_problem *p, size_t count, size_t size, int with_x)
{
  void **arrays[5] = {&p->a, &p->b, &p->c, &p->d, &p->xtrue};
  for (int k = 0; k < (with_x ? 5 : 4); k++) {
    *arrays[k] = malloc(count * size);
    if (!*arrays[k])
      return 0;
  }
  return 1;
}

int tl_gallery_make(int id, size_t n, size_t nsys, uint64_t seed, tl_problem *p, tl_info *info)
{
  tl_info_clear(info);
  if (!p)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "p", "the problem pointer is NULL");
  memset(p, 0, sizeof *p);
  const gallery_entry *e = find_entry(id);
  if (!e)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "id", "no gallery type has id %d", id);
  if (n < e->type.min_n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "gallery type %s needs n >= %zu, got n = %zu",
                   e->type.name, e->type.min_n, n);
  if (nsys == 0)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nsys", "nsys = 0: the batch is empty");
  size_t size = tl_dtype_size(e->type.dtype);
  if (n > SIZE_MAX / size / nsys)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nsys", "n * nsys = %zu * %zu overflows", n, nsys);
  if (!allocate(p, n * nsys, size, !e->type.singular)) {
    tl_problem_free(p);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "cannot allocate %zu systems of %zu rows", nsys,
                   n);
  }
  for (size_t s = 0; s < nsys; s++) {
    tl_rng r;
    stream_seed(&r, seed, id, n, s);
    make_system(e, &r, n, s, p);
  }
  p->sys = (tl_batch){e->type.dtype, n, nsys, e->type.periodic, p->a, p->b, p->c, p->d};
  p->type = &e->type;
  p->seed = seed;
  return TL_OK;
}

void tl_problem_free(tl_problem *p)
{
  if (!p)
    return;
  free(p->a);
  free(p->b);
  free(p->c);
  free(p->d);
  free(p->xtrue);
  memset(p, 0, sizeof *p);
}
