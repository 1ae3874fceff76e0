/* optimized/cpu/thomas_3d_naive_cpu.c -- the baseline without
 * reordering: Thomas along x, y or z of Cartesian arrays as a solver does
 * it when the layout is left alone. tl_cpu_thomas_3d_naive_d,
 * tl_cpu_thomas_3d_naive_f; `tridlab bench` measures thomas_3d
 * (thomas_3d_cpu.c) against it.
 *
 * Source: paper 000 (DistD2-TDS) §2.1 Algorithm 1 (Thomas) and §5.1
 * (what reordering saves). The recurrence is reference/thomas_ref.c's
 * (cp = c'), with one reciprocal per row; the teaching explanation is
 * docs/algorithms/thomas_cpu.md ("The baseline").
 *
 *   along x       one line after another with the scalar recurrence: the
 *                 line is contiguous, but nothing vectorises across
 *                 systems (naive_line)
 *   along y, z    one vectorised sweep over all nx lines of an x-y (x-z)
 *                 plane at once, d' written into x and c' into a scratch
 *                 of n nx values that does not fit in cache for large
 *                 planes, both read again by the backward pass
 *                 (naive_plane)
 *
 * It has no groups: the file includes itself through optimized/layout/sz_passes.h only
 * for T (optimized/layout/sz_template.h), and builds its functions in the SZ = 8 passes
 * alone, once for double and once for float.
 */
#ifndef TL_CPU_PASS
#include <stdlib.h>

#include "cpu_internal.h"

#define TL_CPU_SELF "optimized/cpu/thomas_3d_naive_cpu.c"
#include "optimized/layout/sz_passes.h"

int tl_cpu_thomas_3d_naive_d(const size_t dims[3], tl_dir dir, const double *a, const double *b,
                             const double *c, const double *d, double *x, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_3d_naive", info));
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  return thomas_naive_d8(dims, dir, a, b, c, d, x, info);
}

int tl_cpu_thomas_3d_naive_f(const size_t dims[3], tl_dir dir, const float *a, const float *b,
                             const float *c, const float *d, float *x, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_3d_naive", info));
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  return thomas_naive_f8(dims, dir, a, b, c, d, x, info);
}

#else /* ---- one (precision, SZ) pass ---- */

#if SZ == 8 /* the baseline has no groups: one pass per precision */

/* One x line, scalar recurrence, c' in scratch. Returns 1 on breakdown. */
TL_CPU_CLONES static int FN(naive_line)(size_t n, const T *a, const T *b, const T *c, const T *d,
                                        T *x, T *cp)
{
  T chk, p = b[0], r = (T)1 / p;
  cp[0] = n > 1 ? c[0] * r : 0;
  x[0] = d[0] * r;
  chk = p * 0;
  for (size_t i = 1; i < n; i++) {
    p = b[i] - a[i] * cp[i - 1];
    r = (T)1 / p;
    cp[i] = i + 1 < n ? c[i] * r : 0;
    x[i] = (d[i] - a[i] * x[i - 1]) * r;
    chk += p * 0;
  }
  chk += x[n - 1] * 0;
  for (size_t i = n - 1; i-- > 0;) {
    x[i] -= cp[i] * x[i + 1];
    chk += x[i] * 0;
  }
  return chk != chk;
}

/* One x-y (or x-z) plane of nx lines along y (z), rows `stride` apart,
 * vectorised over the whole plane row. Returns the first bad line or -1. */
TL_CPU_CLONES static long FN(naive_plane)(size_t n, size_t nx, size_t stride, const T *a,
                                          const T *b, const T *c, const T *d, T *x, T *cp, T *chk)
{
#pragma omp simd
  for (size_t i = 0; i < nx; i++) {
    T r = (T)1 / b[i];
    cp[i] = n > 1 ? c[i] * r : 0;
    x[i] = d[i] * r;
    chk[i] = b[i] * 0;
  }
  for (size_t j = 1; j < n; j++) {
    const T *aj = a + j * stride, *bj = b + j * stride, *cj = c + j * stride;
    const T *dj = d + j * stride;
    T *xj = x + j * stride, *xm = xj - stride, *cpj = cp + j * nx, *cpm = cpj - nx;
    int last = j + 1 == n;
#pragma omp simd
    for (size_t i = 0; i < nx; i++) {
      T p = bj[i] - aj[i] * cpm[i], r = (T)1 / p;
      cpj[i] = last ? 0 : cj[i] * r;
      xj[i] = (dj[i] - aj[i] * xm[i]) * r;
      chk[i] += p * 0;
    }
  }
  for (size_t j = n; j-- > 0;) {
    T *xj = x + j * stride, *cpj = cp + j * nx;
    if (j + 1 < n) {
      const T *xp = xj + stride;
#pragma omp simd
      for (size_t i = 0; i < nx; i++)
        xj[i] -= cpj[i] * xp[i];
    }
#pragma omp simd
    for (size_t i = 0; i < nx; i++)
      chk[i] += xj[i] * 0;
  }
  for (size_t i = 0; i < nx; i++)
    if (chk[i] != chk[i])
      return (long)i;
  return -1;
}

static int FN(thomas_naive)(const size_t *dims, tl_dir dir, const T *a, const T *b, const T *c,
                            const T *d, T *x, tl_info *info)
{
  size_t nx = dims[0], ny = dims[1], nz = dims[2], n = dims[dir];
  size_t units = dir == TL_DIR_X ? ny * nz : dir == TL_DIR_Y ? nz : ny;
  size_t width = dir == TL_DIR_X ? 1 : nx, stride = dir == TL_DIR_Z ? nx * ny : nx;
  long first_bad = -1;
  int nomem = 0;
#pragma omp parallel
  {
    T *cp = tl_cpu_scratch(n * width + width, sizeof(T));
    if (!cp) {
#pragma omp atomic write
      nomem = 1;
    }
#pragma omp for schedule(static)
    for (size_t u = 0; u < units; u++) {
      if (!cp)
        continue;
      long bad;
      size_t s0;
      if (dir == TL_DIR_X) {
        size_t o = u * nx;
        bad = FN(naive_line)(n, a + o, b + o, c + o, d + o, x + o, cp) ? 0 : -1;
        s0 = u;
      } else {
        size_t o = dir == TL_DIR_Y ? u * nx * ny : u * nx;
        bad = FN(naive_plane)(n, nx, stride, a + o, b + o, c + o, d + o, x + o, cp, cp + n * nx);
        s0 = u * nx;
      }
      if (bad >= 0) {
#pragma omp critical(tl_cpu_naive_bad)
        if (first_bad < 0 || (long)(s0 + (size_t)bad) < first_bad)
          first_bad = (long)(s0 + (size_t)bad);
      }
    }
    free(cp);
  }
  if (nomem)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_3d_naive: no memory");
  if (first_bad < 0)
    return TL_OK;
  size_t s = (size_t)first_bad, o, step;
  if (dir == TL_DIR_X)
    o = s * nx, step = 1;
  else if (dir == TL_DIR_Y)
    o = s / nx * nx * ny + s % nx, step = nx;
  else
    o = s, step = nx * ny;
  int piv;
#if TL_CPU_FLOAT
  long row = tl_cpu_breakdown_row_f(n, a + o, b + o, c + o, step, x + o, step, &piv);
#else
  long row = tl_cpu_breakdown_row_d(n, a + o, b + o, c + o, step, x + o, step, &piv);
#endif
  return TL_FAIL(info, TL_ERR_BREAKDOWN, first_bad, row, "",
                 "thomas_3d_naive: %s at row %ld of line %ld",
                 piv ? "zero or non-finite pivot" : "overflow", row, first_bad);
}

#endif /* SZ == 8 */

#endif
