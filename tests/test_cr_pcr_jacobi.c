/* tests/test_cr_pcr_jacobi.c -- cyclic reduction, parallel cyclic
 * reduction and the Jacobi iteration.
 *
 * CR and PCR solve strictly dominant random systems of every size 1..70
 * and a few awkward larger ones as accurately as Thomas (LAPACK's residual
 * ratio below THRESH, forward error within the condition bound), in real
 * and complex arithmetic and with entries scaled near overflow and
 * underflow; zero pivots are breakdowns at the right row; non-dominant
 * input is reported. Jacobi converges on strictly dominant systems,
 * periodic ones included, to the backward error it promises, and reports
 * slow convergence, divergence and zero diagonals. The registry entries
 * carry what the algorithms promise.
 *
 * Non-periodic systems are passed with NaN in the corners a[0], c[n-1]:
 * the kernels must never read them.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tridlab/algorithms.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"
#include "underflow_helpers.h"

static const size_t big_sizes[] = {127, 128, 129, 1000, 4097};
#define NBIG (sizeof big_sizes / sizeof big_sizes[0])
#define MAX_SMALL 70
#define SEED 0x7d1a2b3c4d5e6f70u

/* ---------------------------------------------------------------- */
/* A small seeded generator (splitmix64), so the test needs nothing    */
/* but the kernels.                                                    */

static uint64_t next_u64(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static double uniform(uint64_t *state, double lo, double hi)
{
  return lo + (hi - lo) * (double)(next_u64(state) >> 11) * 0x1p-53;
}

/* One system, always held as complex (a real system has zero imaginary
 * parts, and widening is exact), plus its real parts for the _d kernels. */
typedef struct sys_t {
  size_t n;
  int periodic;
  double complex *a, *b, *c, *d;
  double *ra, *rb, *rc, *rd;
} sys_t;

static sys_t sys_alloc(size_t n, int periodic)
{
  sys_t s = {.n = n, .periodic = periodic};
  s.a = calloc(n, sizeof *s.a);
  s.b = calloc(n, sizeof *s.b);
  s.c = calloc(n, sizeof *s.c);
  s.d = calloc(n, sizeof *s.d);
  s.ra = calloc(n, sizeof *s.ra);
  s.rb = calloc(n, sizeof *s.rb);
  s.rc = calloc(n, sizeof *s.rc);
  s.rd = calloc(n, sizeof *s.rd);
  cr_assert(s.a && s.b && s.c && s.d && s.ra && s.rb && s.rc && s.rd, "out of memory");
  return s;
}

static void sys_free(sys_t *s)
{
  free(s->a);
  free(s->b);
  free(s->c);
  free(s->d);
  free(s->ra);
  free(s->rb);
  free(s->rc);
  free(s->rd);
}

/* Copy the real parts into ra..rd; a non-periodic system gets NaN
 * corners there (the complex copy keeps zeros for the checks). */
static void sys_sync_real(sys_t *s)
{
  for (size_t i = 0; i < s->n; i++) {
    s->ra[i] = creal(s->a[i]);
    s->rb[i] = creal(s->b[i]);
    s->rc[i] = creal(s->c[i]);
    s->rd[i] = creal(s->d[i]);
  }
  if (!s->periodic) {
    s->ra[0] = NAN;
    s->rc[s->n - 1] = NAN;
  }
}

/* Complex copies with NaN corners for the _z kernels (caller frees). */
static double complex *with_nan_corner(const sys_t *s, const double complex *v, size_t corner)
{
  double complex *w = malloc(s->n * sizeof *w);
  cr_assert(w, "out of memory");
  memcpy(w, v, s->n * sizeof *w);
  if (!s->periodic)
    w[corner] = NAN; /* poison: a kernel that reads it returns NaN */
  return w;
}

/* Strictly row diagonally dominant: |b_i| >= |a_i| + |c_i| + 0.5, with
 * the corners counted when periodic. Entries are multiplied by `scale`. */
static sys_t make_dd(size_t n, int periodic, int complex_entries, uint64_t seed, double scale)
{
  sys_t s = sys_alloc(n, periodic);
  uint64_t st = seed;
  for (size_t i = 0; i < n; i++) {
    double complex a = uniform(&st, -1, 1), c = uniform(&st, -1, 1), d = uniform(&st, -1, 1);
    if (complex_entries) {
      a += I * uniform(&st, -1, 1);
      c += I * uniform(&st, -1, 1);
      d += I * uniform(&st, -1, 1);
    }
    if (!periodic && i == 0)
      a = 0;
    if (!periodic && i + 1 == n)
      c = 0;
    double mod = cabs(a) + cabs(c) + uniform(&st, 0.5, 1.5);
    double complex dir = uniform(&st, 0, 1) < 0.5 ? -1.0 : 1.0;
    if (complex_entries)
      dir = cexp(I * uniform(&st, 0, 6.283185307179586));
    s.a[i] = scale * a;
    s.b[i] = scale * mod * dir;
    s.c[i] = scale * c;
    s.d[i] = scale * d;
  }
  sys_sync_real(&s);
  return s;
}

/* Constant diagonals (lo, di, up) and d = 1. */
static sys_t make_toeplitz(size_t n, double lo, double di, double up)
{
  sys_t s = sys_alloc(n, 0);
  for (size_t i = 0; i < n; i++) {
    s.a[i] = (i > 0) ? lo : 0;
    s.b[i] = di;
    s.c[i] = (i + 1 < n) ? up : 0;
    s.d[i] = 1;
  }
  sys_sync_real(&s);
  return s;
}

/* ---------------------------------------------------------------- */
/* Checks in LAPACK's units                                            */

/* The entry of row i, column j of the assembled matrix (entries that land
 * on the same column add, as tridlab/system.h says for n = 1, 2). */
static double complex entry(const sys_t *s, size_t i, size_t j)
{
  size_t n = s->n;
  double complex v = 0;
  if (j == i)
    v += s->b[i];
  if (i > 0 ? j == i - 1 : (s->periodic && j == n - 1))
    v += s->a[i];
  if (i + 1 < n ? j == i + 1 : (s->periodic && j == 0))
    v += s->c[i];
  return v;
}

/* Columns that row i touches: i-1, i, i+1 with wrapping, deduplicated. */
static size_t row_columns(const sys_t *s, size_t i, size_t cols[3])
{
  size_t n = s->n, k = 0;
  size_t cand[3] = {i > 0 ? i - 1 : n - 1, i, i + 1 < n ? i + 1 : 0};
  for (int t = 0; t < 3; t++) {
    int dup = 0;
    for (size_t u = 0; u < k; u++)
      dup |= cols[u] == cand[t];
    if (!dup)
      cols[k++] = cand[t];
  }
  return k;
}

static double norm1(const sys_t *s)
{
  double *col = calloc(s->n, sizeof *col);
  cr_assert(col, "out of memory");
  for (size_t i = 0; i < s->n; i++) {
    size_t cols[3], k = row_columns(s, i, cols);
    for (size_t u = 0; u < k; u++)
      col[cols[u]] += cabs(entry(s, i, cols[u]));
  }
  double m = 0;
  for (size_t j = 0; j < s->n; j++)
    m = fmax(m, col[j]);
  free(col);
  return m;
}

/* DGTT02: ||d - A x||_1 / (||A||_1 ||x||_1 eps). */
static double resid_ratio(const sys_t *s, const double complex *x)
{
  double rn = 0, xn = 0;
  for (size_t i = 0; i < s->n; i++) {
    size_t cols[3], k = row_columns(s, i, cols);
    double complex r = s->d[i];
    for (size_t u = 0; u < k; u++)
      r -= entry(s, i, cols[u]) * x[cols[u]];
    rn += cabs(r);
    xn += cabs(x[i]);
  }
  if (rn == 0)
    return 0;
  if (!isfinite(rn) || !(xn > 0))
    return INFINITY;
  return rn / norm1(s) / xn / TL_EPS;
}

/* DGET04 with the condition bound of a strictly row dominant matrix,
 * ||A^-1||_inf <= 1 / min_i (|b_i| - |a_i| - |c_i|) (Varah 1975):
 * ||x - xref||_inf / ||xref||_inf / (kappa_bound eps). */
static double forward_ratio(const sys_t *s, const double complex *x, const double complex *xref)
{
  double margin = INFINITY, norm_inf = 0, err = 0, ref = 0;
  for (size_t i = 0; i < s->n; i++) {
    double off = 0, row = 0;
    size_t cols[3], k = row_columns(s, i, cols);
    for (size_t u = 0; u < k; u++) {
      double v = cabs(entry(s, i, cols[u]));
      row += v;
      if (cols[u] != i)
        off += v;
    }
    margin = fmin(margin, cabs(entry(s, i, i)) - off);
    norm_inf = fmax(norm_inf, row);
    err = fmax(err, cabs(x[i] - xref[i]));
    ref = fmax(ref, cabs(xref[i]));
  }
  cr_assert_gt(margin, 0, "forward_ratio needs a strictly dominant matrix");
  if (err == 0)
    return 0;
  return err / ref / (norm_inf / margin) / TL_EPS;
}

static double complex *widen(const double *x, size_t n)
{
  double complex *z = malloc(n * sizeof *z);
  cr_assert(z, "out of memory");
  for (size_t i = 0; i < n; i++)
    z[i] = x[i];
  return z;
}

static double resid_ratio_d(const sys_t *s, const double *x)
{
  double complex *z = widen(x, s->n);
  double r = resid_ratio(s, z);
  free(z);
  return r;
}

/* ---------------------------------------------------------------- */
/* CR and PCR against Thomas                                           */

typedef int (*kernel_d)(size_t, const double *, const double *, const double *, const double *,
                        double *, tl_info *);
typedef int (*kernel_z)(size_t, const double complex *, const double complex *,
                        const double complex *, const double complex *, double complex *,
                        tl_info *);

static const struct {
  const char *name;
  kernel_d d;
  kernel_z z;
} direct[] = {
    {"thomas", tl_thomas_ref_d, tl_thomas_ref_z},
    {"cr", tl_cr_ref_d, tl_cr_ref_z},
    {"pcr", tl_pcr_ref_d, tl_pcr_ref_z},
};
#define NDIRECT (sizeof direct / sizeof direct[0])

static size_t size_at(size_t k)
{
  return k < MAX_SMALL ? k + 1 : big_sizes[k - MAX_SMALL];
}

/* Solve with Thomas, CR and PCR; each must be inside its domain, pass the
 * residual test, and CR/PCR must agree with Thomas within the condition
 * bound. */
static void check_against_thomas(const sys_t *s, int complex_kernels, const char *what)
{
  size_t n = s->n;
  double complex *x[NDIRECT];
  double complex *za = with_nan_corner(s, s->a, 0), *zc = with_nan_corner(s, s->c, n - 1);
  for (size_t k = 0; k < NDIRECT; k++) {
    tl_info info;
    tl_info_clear(&info);
    int st;
    if (complex_kernels) {
      x[k] = malloc(n * sizeof *x[k]);
      cr_assert(x[k], "out of memory");
      st = direct[k].z(n, za, s->b, zc, s->d, x[k], &info);
    } else {
      double *xr = malloc(n * sizeof *xr);
      cr_assert(xr, "out of memory");
      st = direct[k].d(n, s->ra, s->rb, s->rc, s->rd, xr, &info);
      x[k] = widen(xr, n);
      free(xr);
    }
    cr_assert_eq(st, TL_OK, "%s %s n=%zu: status %s (%s)", direct[k].name, what, n,
                 tl_status_name(st), info.msg);
    double r = resid_ratio(s, x[k]);
    cr_assert_lt(r, TL_THRESH, "%s %s n=%zu: residual ratio %g", direct[k].name, what, n, r);
    if (k > 0) {
      double f = forward_ratio(s, x[k], x[0]);
      cr_assert_lt(f, TL_THRESH, "%s %s n=%zu: forward ratio against thomas %g", direct[k].name,
                   what, n, f);
    }
  }
  for (size_t k = 0; k < NDIRECT; k++)
    free(x[k]);
  free(za);
  free(zc);
}

Test(cr_pcr, agree_with_thomas_real)
{
  for (size_t k = 0; k < MAX_SMALL + NBIG; k++) {
    sys_t s = make_dd(size_at(k), 0, 0, SEED + k, 1.0);
    check_against_thomas(&s, 0, "real");
    sys_free(&s);
  }
}

Test(cr_pcr, agree_with_thomas_complex)
{
  for (size_t k = 0; k < MAX_SMALL + NBIG; k++) {
    sys_t s = make_dd(size_at(k), 0, 1, SEED + 1000 + k, 1.0);
    check_against_thomas(&s, 1, "complex");
    sys_free(&s);
  }
}

/* Ratios before products: nothing overflows at 1e292 or flushes to zero
 * at 5e-293, where a product of two entries would. */
Test(cr_pcr, scaled_near_overflow_and_underflow)
{
  static const double scales[] = {1e292, 5e-293};
  static const size_t sizes[] = {1, 2, 3, 17, 100, 129};
  for (size_t q = 0; q < 2; q++)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
      for (int cplx = 0; cplx < 2; cplx++) {
        sys_t s = make_dd(sizes[k], 0, cplx, SEED + 2000 + k, scales[q]);
        check_against_thomas(&s, cplx, scales[q] > 1 ? "scaled 1e292" : "scaled 5e-293");
        sys_free(&s);
      }
}

/* tridiag(-1, 2, -1) is only weakly dominant: inside CR's domain; PCR
 * needs strict dominance (it is not backward stable on ill-conditioned
 * matrices) and says so, with a solution that is still accurate. */
/* Found by fuzzing: rows scaled 1e-162 and 1e138, d near 1e-323. CR's back
 * substitution computes x0 from terms in the subnormal range (absolute
 * error eps DBL_MIN, 10% of x0 here), and row 1, reduced with the exact
 * x0, sees that error times a1 / b0 = 4e299: residual ratio 2.6e13 with
 * status ok. Thomas and gtsv are fine. CR now checks its residual when it
 * back-substitutes near the underflow threshold. */
Test(cr_pcr, back_substitution_near_underflow_is_checked)
{
  static const double a[3] = {0, -4e138, 1e138}, b[3] = {1e-161, 6e138, 3e138};
  static const double c[3] = {3e-162, 1e138, 0}, d[3] = {3e-323, 0, 0};
  expect_underflow_reported("cr", a, b, c, d);
}

Test(cr_pcr, weakly_dominant_is_inside_cr_outside_pcr)
{
  static const size_t sizes[] = {1, 2, 3, 64, 1000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    sys_t s = make_toeplitz(sizes[k], -1, 2, -1);
    double *x = malloc(s.n * sizeof *x);
    for (size_t m = 1; m < NDIRECT; m++) {
      tl_info info;
      int st = direct[m].d(s.n, s.ra, s.rb, s.rc, s.rd, x, &info);
      int is_pcr = strcmp(direct[m].name, "pcr") == 0;
      if (is_pcr && s.n > 2) { /* n <= 2: every row is strictly dominant */
        cr_assert_eq(st, TL_OUTSIDE_DOMAIN, "pcr n=%zu: %s", s.n, tl_status_name(st));
        continue;
      }
      cr_assert_eq(st, TL_OK, "%s n=%zu: %s", direct[m].name, s.n, tl_status_name(st));
      double r = resid_ratio_d(&s, x);
      cr_assert_lt(r, TL_THRESH, "%s n=%zu: residual ratio %g", direct[m].name, s.n, r);
    }
    free(x);
    sys_free(&s);
  }
}

static void expect_breakdown(kernel_d fn, const char *name, const sys_t *s, long row)
{
  double *x = malloc(s->n * sizeof *x);
  tl_info info;
  tl_info_clear(&info);
  int st = fn(s->n, s->ra, s->rb, s->rc, s->rd, x, &info);
  cr_assert_eq(st, TL_ERR_BREAKDOWN, "%s n=%zu: status %s, expected breakdown", name, s->n,
               tl_status_name(st));
  cr_assert_eq(info.row, row, "%s n=%zu: breakdown at row %ld, expected %ld", name, s->n, info.row,
               row);
  cr_assert_eq(info.status, TL_ERR_BREAKDOWN);
  free(x);
}

Test(cr_pcr, zero_pivot_is_breakdown_at_its_row)
{
  /* b[0] = 0: row 0 is the first divisor of both (CR eliminates it at
   * level 0, PCR uses it in the first step). */
  static const size_t sizes[] = {1, 2, 3, 8, 33};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    sys_t s = make_dd(sizes[k], 0, 0, SEED + 3000 + k, 1.0);
    s.b[0] = 0;
    sys_sync_real(&s);
    expect_breakdown(tl_cr_ref_d, "cr", &s, 0);
    expect_breakdown(tl_pcr_ref_d, "pcr", &s, 0);
    sys_free(&s);
  }
  /* [1 1 0; 1 2 1; 0 1 1] is singular: CR's reduced row 1 has b' = 0;
   * PCR ends with b = 0 in rows 0 and 1 and meets row 0 first. */
  sys_t s = make_toeplitz(3, 1, 1, 1);
  s.b[1] = 2;
  sys_sync_real(&s);
  expect_breakdown(tl_cr_ref_d, "cr", &s, 1);
  expect_breakdown(tl_pcr_ref_d, "pcr", &s, 0);
  sys_free(&s);
}

/* [2 1 0; 1 0 1; 0 1 2]: CR reduces row 1 to b' = -1 and never divides by
 * b[1] = 0; PCR divides by every diagonal entry and breaks down there. */
Test(cr_pcr, pcr_divides_by_every_diagonal)
{
  sys_t s = make_toeplitz(3, 1, 2, 1);
  s.b[1] = 0;
  sys_sync_real(&s);
  double x[3];
  tl_info info;
  int st = tl_cr_ref_d(3, s.ra, s.rb, s.rc, s.rd, x, &info);
  cr_assert_eq(st, TL_OUTSIDE_DOMAIN, "cr: status %s", tl_status_name(st));
  cr_assert_eq(info.row, 1, "cr: worst row %ld, expected 1", info.row);
  double r = resid_ratio_d(&s, x);
  cr_assert_lt(r, TL_THRESH, "cr: residual ratio %g", r);
  expect_breakdown(tl_pcr_ref_d, "pcr", &s, 1);
  sys_free(&s);
}

Test(cr_pcr, not_dominant_is_outside_domain)
{
  static const size_t sizes[] = {2, 7, 40, 129};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    sys_t s = sys_alloc(n, 0);
    uint64_t st = SEED + 4000 + k;
    for (size_t i = 0; i < n; i++) {
      s.a[i] = (i > 0) ? uniform(&st, 1, 2) : 0;
      s.b[i] = uniform(&st, -1, 1);
      s.c[i] = (i + 1 < n) ? uniform(&st, 1, 2) : 0;
      s.d[i] = uniform(&st, -1, 1);
    }
    sys_sync_real(&s);
    double *x = malloc(n * sizeof *x);
    for (size_t m = 1; m < NDIRECT; m++) {
      tl_info info;
      tl_info_clear(&info);
      int status = direct[m].d(n, s.ra, s.rb, s.rc, s.rd, x, &info);
      cr_assert_eq(status, TL_OUTSIDE_DOMAIN, "%s n=%zu: status %s (%s)", direct[m].name, n,
                   tl_status_name(status), info.msg);
      cr_assert(info.row >= 0 && info.row < (long)n, "%s: row %ld", direct[m].name, info.row);
      cr_assert(strstr(info.msg, "row diagonally dominant"), "%s: message '%s'", direct[m].name,
                info.msg);
    }
    free(x);
    sys_free(&s);
  }
}

Test(cr_pcr, bad_arguments)
{
  double v[1] = {1}, x[1];
  tl_info info;
  cr_assert_eq(tl_cr_ref_d(0, v, v, v, v, x, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "n");
  cr_assert_eq(tl_pcr_ref_d(1, v, NULL, v, v, x, &info), TL_ERR_ARG);
  cr_assert_eq(tl_pcr_ref_d(0, v, v, v, v, x, &info), TL_ERR_ARG);
}

/* ---------------------------------------------------------------- */
/* Jacobi                                                              */

#define JACOBI_TOL (8 * TL_EPS)
#define JACOBI_MAXIT 20000

static int run_jacobi(const sys_t *s, int complex_kernel, double tol, long maxit, double complex *x,
                      tl_info *info)
{
  tl_info_clear(info);
  if (complex_kernel) {
    double complex *za = with_nan_corner(s, s->a, 0), *zc = with_nan_corner(s, s->c, s->n - 1);
    int st = tl_jacobi_ref_z(s->n, s->periodic, za, s->b, zc, s->d, x, tol, maxit, info);
    free(za);
    free(zc);
    return st;
  }
  double *xr = malloc(s->n * sizeof *xr);
  cr_assert(xr, "out of memory");
  int st = tl_jacobi_ref_d(s->n, s->periodic, s->ra, s->rb, s->rc, s->rd, xr, tol, maxit, info);
  for (size_t i = 0; i < s->n; i++)
    x[i] = xr[i];
  free(xr);
  return st;
}

static void check_jacobi_converges(const sys_t *s, int complex_kernel, const char *what)
{
  double complex *x = malloc(s->n * sizeof *x);
  tl_info info;
  int st = run_jacobi(s, complex_kernel, JACOBI_TOL, JACOBI_MAXIT, x, &info);
  cr_assert_eq(st, TL_OK, "jacobi %s n=%zu: status %s (%s)", what, s->n, tl_status_name(st),
               info.msg);
  cr_assert_gt(info.iterations, 0, "jacobi %s n=%zu: no iterations reported", what, s->n);
  cr_assert_leq(info.dropped, JACOBI_TOL, "jacobi %s n=%zu: backward error %g > tol", what, s->n,
                info.dropped);
  cr_assert_eq(info.tol, JACOBI_TOL, "jacobi %s n=%zu: info.tol %g", what, s->n, info.tol);
  cr_assert_eq(info.bound, JACOBI_TOL, "jacobi %s n=%zu: info.bound %g", what, s->n, info.bound);
  double r = resid_ratio(s, x);
  cr_assert_lt(r, TL_THRESH, "jacobi %s n=%zu: residual ratio %g", what, s->n, r);
  free(x);
}

Test(jacobi, converges_on_strictly_dominant)
{
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t k = 0; k < MAX_SMALL + NBIG; k++) {
      sys_t s = make_dd(size_at(k), periodic, 0, SEED + 5000 + k, 1.0);
      check_jacobi_converges(&s, 0, periodic ? "periodic real" : "real");
      sys_free(&s);
    }
}

Test(jacobi, converges_on_strictly_dominant_complex)
{
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t k = 0; k < MAX_SMALL + NBIG; k++) {
      sys_t s = make_dd(size_at(k), periodic, 1, SEED + 6000 + k, 1.0);
      check_jacobi_converges(&s, 1, periodic ? "periodic complex" : "complex");
      sys_free(&s);
    }
}

/* n = 1 periodic: the corners land on the diagonal, (a + b + c) x = d. */
Test(jacobi, periodic_one_row_adds_the_corners)
{
  sys_t s = sys_alloc(1, 1);
  s.a[0] = 1;
  s.b[0] = -0.5;
  s.c[0] = 0.25;
  s.d[0] = 3;
  sys_sync_real(&s);
  double complex x[1];
  tl_info info;
  cr_assert_eq(run_jacobi(&s, 0, JACOBI_TOL, 10, x, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(creal(x[0]), 4.0, "x = %g, expected 3 / 0.75 = 4", creal(x[0]));
  s.c[0] = -0.5; /* a + b + c = 0 */
  sys_sync_real(&s);
  cr_assert_eq(run_jacobi(&s, 0, JACOBI_TOL, 10, x, &info), TL_ERR_BREAKDOWN);
  cr_assert_eq(info.row, 0);
  sys_free(&s);
}

/* Issue 9: x = 1e-600 rounds to 0, the closest double; Jacobi's backward
 * error allows for underflow as the metrics do, so 0 is converged, not a
 * stagnation at backward error 1. */
Test(jacobi, answer_that_underflows_is_converged)
{
  double a[1] = {0}, b[1] = {1e300}, c[1] = {0}, d[1] = {1e-300}, x[1] = {-1};
  tl_info info;
  cr_expect_eq(tl_jacobi_ref_d(1, 0, a, b, c, d, x, JACOBI_TOL, 100, &info), TL_OK, "%s",
               info.msg);
  cr_expect_eq(x[0], 0.0);
}

/* tridiag(-1, 2, -1): rho(J) = cos(pi / 2001), far too slow for 100 steps. */
Test(jacobi, slow_on_weakly_dominant)
{
  sys_t s = make_toeplitz(2000, -1, 2, -1);
  double complex *x = malloc(s.n * sizeof *x);
  tl_info info;
  int st = run_jacobi(&s, 0, JACOBI_TOL, 100, x, &info);
  cr_assert_eq(st, TL_ERR_NOT_CONVERGED, "status %s", tl_status_name(st));
  cr_assert_eq(info.iterations, 100, "iterations %d", info.iterations);
  cr_assert_gt(info.dropped, JACOBI_TOL, "backward error %g", info.dropped);
  cr_assert(strstr(info.msg, "not strictly diagonally dominant"), "message '%s'", info.msg);
  free(x);
  sys_free(&s);
}

/* tridiag(2, 1, 2): rho(J) close to 4, the iterates blow up. */
Test(jacobi, diverges_on_non_dominant)
{
  sys_t s = make_toeplitz(50, 2, 1, 2);
  double complex *x = malloc(s.n * sizeof *x);
  tl_info info;
  int st = run_jacobi(&s, 0, JACOBI_TOL, JACOBI_MAXIT, x, &info);
  cr_assert_eq(st, TL_ERR_NOT_CONVERGED, "status %s", tl_status_name(st));
  cr_assert_lt(info.iterations, JACOBI_MAXIT, "stopped only at the limit (%d)", info.iterations);
  cr_assert(strstr(info.msg, "not strictly diagonally dominant"), "message '%s'", info.msg);
  st = run_jacobi(&s, 1, JACOBI_TOL, JACOBI_MAXIT, x, &info);
  cr_assert_eq(st, TL_ERR_NOT_CONVERGED, "complex: status %s", tl_status_name(st));
  free(x);
  sys_free(&s);
}

Test(jacobi, zero_diagonal_is_breakdown)
{
  sys_t s = make_dd(9, 0, 0, SEED + 7000, 1.0);
  s.b[3] = 0;
  sys_sync_real(&s);
  double complex x[9];
  tl_info info;
  cr_assert_eq(run_jacobi(&s, 0, JACOBI_TOL, 100, x, &info), TL_ERR_BREAKDOWN);
  cr_assert_eq(info.row, 3, "row %ld", info.row);
  cr_assert_eq(run_jacobi(&s, 1, JACOBI_TOL, 100, x, &info), TL_ERR_BREAKDOWN);
  cr_assert_eq(info.row, 3, "complex: row %ld", info.row);
  sys_free(&s);
}

Test(jacobi, bad_arguments)
{
  double v[2] = {1, 1}, x[2];
  tl_info info;
  cr_assert_eq(tl_jacobi_ref_d(2, 0, v, v, v, v, x, 0.0, 10, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "tol");
  cr_assert_eq(tl_jacobi_ref_d(2, 0, v, v, v, v, x, NAN, 10, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "tol");
  cr_assert_eq(tl_jacobi_ref_d(2, 0, v, v, v, v, x, JACOBI_TOL, 0, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "maxit");
  cr_assert_eq(tl_jacobi_ref_d(0, 0, v, v, v, v, x, JACOBI_TOL, 10, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "n");
}

/* ---------------------------------------------------------------- */
/* Through the registry                                                */

Test(registry_cr_pcr_jacobi, descriptors)
{
  static const char *const names[] = {"cr", "pcr", "jacobi"};
  for (size_t k = 0; k < 3; k++) {
    const tl_algorithm *al = tl_find(names[k]);
    cr_assert(al, "%s is not in the registry", names[k]);
    cr_assert_str_eq(al->backend, "reference");
    cr_assert_eq(al->dtypes, TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128));
    cr_assert_eq(al->partitioned, 0);
  }
  const tl_algorithm *cr = tl_find("cr"), *pcr = tl_find("pcr"), *jac = tl_find("jacobi");
  cr_assert_str_eq(cr->family, "cyclic-reduction");
  cr_assert_str_eq(pcr->family, "cyclic-reduction");
  cr_assert_eq(cr->exact, 1);
  cr_assert_eq(pcr->exact, 1);
  cr_assert_eq(cr->classes, TL_CLASS_ROW_DD);
  cr_assert_eq(pcr->classes, TL_CLASS_STRICT_DD);
  cr_assert_eq(cr->layouts, TL_NONPERIODIC);
  cr_assert_eq(pcr->layouts, TL_NONPERIODIC);
  cr_assert_str_eq(jac->family, "iterative");
  cr_assert_eq(jac->exact, 0);
  cr_assert_eq(jac->classes, TL_CLASS_STRONG_DD);
  cr_assert_eq(jac->layouts, TL_NONPERIODIC | TL_PERIODIC);
  cr_assert_eq(tl_param_value(jac, NULL, "tol"), 8 * TL_EPS);
  cr_assert_eq(tl_param_value(jac, NULL, "maxit"), 20000);
}

/* A batch of three systems through tl_solve; the flat arrays hold them one
 * after the other. Corners are zero here, as tl_solve requires. */
static void batch_of(size_t n, size_t nsys, int periodic, int cplx, uint64_t seed, sys_t *parts,
                     void **flat)
{
  size_t es = cplx ? sizeof(double complex) : sizeof(double);
  for (int k = 0; k < 4; k++) {
    flat[k] = malloc(n * nsys * es);
    cr_assert(flat[k], "out of memory");
  }
  for (size_t q = 0; q < nsys; q++) {
    parts[q] = make_dd(n, periodic, cplx, seed + q, 1.0);
    const double complex *src[4] = {parts[q].a, parts[q].b, parts[q].c, parts[q].d};
    for (int k = 0; k < 4; k++)
      for (size_t i = 0; i < n; i++) {
        if (cplx)
          ((double complex *)flat[k])[q * n + i] = src[k][i];
        else
          ((double *)flat[k])[q * n + i] = creal(src[k][i]);
      }
  }
}

Test(registry_cr_pcr_jacobi, batches_through_tl_solve)
{
  enum { N = 33, NSYS = 3 };
  static const char *const names[] = {"cr", "pcr", "jacobi"};
  for (int cplx = 0; cplx < 2; cplx++)
    for (size_t k = 0; k < 3; k++) {
      int periodic = (k == 2); /* jacobi also takes periodic systems */
      sys_t parts[NSYS];
      void *flat[4];
      batch_of(N, NSYS, periodic, cplx, SEED + 8000 + k, parts, flat);
      tl_batch b = {cplx ? TL_C128 : TL_F64, N, NSYS, periodic, flat[0], flat[1], flat[2], flat[3]};
      double complex *x = malloc(N * NSYS * sizeof *x);
      tl_options opt;
      tl_options_init(&opt);
      tl_info info;
      if (k == 2)
        cr_assert_eq(tl_options_set_param(&opt, tl_find("jacobi"), "tol", "1e-12", &info), TL_OK,
                     "%s", info.msg);
      int st = tl_solve(tl_find(names[k]), &b, x, &opt, &info);
      cr_assert_eq(st, TL_OK, "%s batch: %s (%s)", names[k], tl_status_name(st), info.msg);
      for (size_t q = 0; q < NSYS; q++) {
        double r;
        if (cplx) {
          r = resid_ratio(&parts[q], x + q * N);
        } else {
          r = resid_ratio_d(&parts[q], (double *)x + q * N);
        }
        double limit = (k == 2) ? 2e-12 / TL_EPS : TL_THRESH;
        cr_assert_lt(r, limit, "%s batch system %zu: residual ratio %g", names[k], q, r);
        sys_free(&parts[q]);
      }
      if (k == 2) {
        cr_assert_eq(info.tol, 1e-12);
        cr_assert_leq(info.dropped, 1e-12);
        cr_assert_gt(info.iterations, 0);
      }
      for (int m = 0; m < 4; m++)
        free(flat[m]);
      free(x);
    }
}

Test(registry_cr_pcr_jacobi, breakdown_names_system_and_row)
{
  enum { N = 10, NSYS = 2 };
  sys_t parts[NSYS];
  void *flat[4];
  batch_of(N, NSYS, 0, 0, SEED + 9000, parts, flat);
  ((double *)flat[1])[N + 4] = 0; /* b[4] of system 1; row 4 is a divisor at level 0 */
  tl_batch b = {TL_F64, N, NSYS, 0, flat[0], flat[1], flat[2], flat[3]};
  double x[N * NSYS];
  tl_info info;
  static const char *const names[] = {"cr", "pcr"};
  for (int k = 0; k < 2; k++) {
    int st = tl_solve(tl_find(names[k]), &b, x, NULL, &info);
    cr_assert_eq(st, TL_ERR_BREAKDOWN, "%s: %s", names[k], tl_status_name(st));
    cr_assert_eq(info.system, 1, "%s: system %ld", names[k], info.system);
    cr_assert_eq(info.row, 4, "%s: row %ld", names[k], info.row);
  }
  tl_options opt;
  tl_options_init(&opt);
  cr_assert_eq(tl_options_set_param(&opt, tl_find("jacobi"), "tol", "1e-20", &info), TL_ERR_ARG);
  for (int m = 0; m < 4; m++)
    free(flat[m]);
  for (size_t q = 0; q < NSYS; q++)
    sys_free(&parts[q]);
}
