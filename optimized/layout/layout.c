/* optimized/layout/layout.c -- the SZ-packed layout of paper 000
 * (DistD2-TDS) §4.1, Figures 6 and 7: the group size SZ, and reordering
 * to and from tridlab's batch layout and Cartesian 3-D arrays. Below the
 * CPU kernels (optimized/cpu/) and the GPU backends (optimized/gpu/),
 * which both work on packed batches.
 *
 * Entry (system s, row i) of a packed batch is at
 *   ((s / SZ) * n + i) * SZ + s % SZ,
 * so row i of the SZ systems of a group is one run of SZ adjacent values
 * (the paper's column-major (SZ, n, groups) array of Figure 7). In the
 * source, system s starts at base(s) and its rows are `stride` apart:
 *
 *   batch, and 3-D along x:  base = s n,                    stride 1
 *   3-D along y (s = k nx + i):  base = k nx ny + i,        stride nx
 *   3-D along z (s = j nx + i):  base = j nx + i,           stride nx ny
 *
 * Along y and z the SZ systems of a group are usually adjacent in the
 * source too (base(s+1) = base(s) + 1): then each packed row is a copy
 * of SZ values. Along x each system is a contiguous line and the group
 * is transposed through a tile of 64 bytes per line. Cost: one read and
 * one write (plus write-allocate) per entry; threads over groups.
 */
#ifndef TL_CPU_PASS
#include <stdint.h>
#include <string.h>

#include "layout_internal.h"

int tl_cpu_sz_supported(size_t sz)
{
  return sz == 8 || sz == 16 || sz == 32 || sz == 64;
}

int tl_cpu_check_sz(size_t sz, const char *who, tl_info *info)
{
  if (!tl_cpu_sz_supported(sz))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "sz",
                   "%s: sz = %zu; the group size must be 8, 16, "
                   "32 or 64",
                   who, sz);
  return TL_OK;
}

size_t tl_cpu_sz_default(size_t n, size_t elem_size)
{
  if (elem_size == 0)
    elem_size = sizeof(double);
  size_t sz = 16;
  if (sz > TL_CPU_SZ_MAX)
    sz = TL_CPU_SZ_MAX;
  if (sz < TL_CPU_SZ_MIN)
    sz = TL_CPU_SZ_MIN;
  /* Keep c' and d' of one group (2 n sz elements) within 512 KiB. */
  while (sz > TL_CPU_SZ_MIN && n > (512u * 1024u) / (2u * sz * elem_size))
    sz /= 2;
  return sz;
}

size_t tl_cpu_sz_lines(size_t n, size_t elem_size)
{
  /* 8 lines, whatever the precision: 16 float lines (one 64-byte vector
   * of each row) fall into the same few L1 sets at power-of-two n and
   * lose more than the wider vector gains (docs/performance.md). */
  size_t sz = tl_cpu_sz_default(n, elem_size), lines = 8;
  if (lines < TL_CPU_SZ_MIN)
    lines = TL_CPU_SZ_MIN;
  return sz < lines ? sz : lines;
}

int tl_cpu_rows_near(const size_t dims[3], tl_dir dir, size_t elem_size)
{
  size_t near_elems = TL_CPU_NEAR_ROWS / elem_size;
  return dims[0] <= near_elems && (dir == TL_DIR_Y || dims[1] <= near_elems / dims[0]);
}

size_t tl_cpu_sz_3d(const size_t dims[3], tl_dir dir, size_t elem_size)
{
  if (!dims || !dims[0] || !dims[1] || !dims[2] || (unsigned)dir > TL_DIR_Z)
    return 0;
  if (elem_size == 0)
    elem_size = sizeof(double);
  if (elem_size != sizeof(double) && elem_size != sizeof(float))
    return 0;
  if (dir == TL_DIR_X)
    return tl_cpu_sz_lines(dims[dir], elem_size);
  size_t sz = tl_cpu_rows_near(dims, dir, elem_size) ? 128u / elem_size : 32u, n = dims[dir];
  if (sz > TL_CPU_SZ_MAX)
    sz = TL_CPU_SZ_MAX;
  /* The smallest supported SZ that covers an x-row, */
  while (sz > TL_CPU_SZ_MIN && sz / 2 >= dims[0])
    sz /= 2;
  /* and a group's scratch (2 n SZ values) within 1 MiB, the most
   * measured (16 doubles at n = 4096, performance.md). */
  while (sz > TL_CPU_SZ_MIN && n > (1u << 20) / (2 * sz * elem_size))
    sz /= 2;
  return sz;
}

size_t tl_cpu_packed_count(size_t n, size_t nsys, size_t sz)
{
  if (!n || !nsys || !sz)
    return 0;
  size_t groups = nsys / sz + (nsys % sz != 0);
  if (groups > SIZE_MAX / sz || groups * sz > SIZE_MAX / n)
    return 0;
  return groups * sz * n;
}

int tl_cpu_lines(const size_t dims[3], tl_dir dir, size_t *n, size_t *nsys, tl_info *info)
{
  if (!dims || !dims[0] || !dims[1] || !dims[2])
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dims", "every dimension must be >= 1");
  if (dir != TL_DIR_X && dir != TL_DIR_Y && dir != TL_DIR_Z)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dir", "direction %d is not x, y or z", (int)dir);
  if (dims[0] > SIZE_MAX / dims[1] || dims[0] * dims[1] > SIZE_MAX / dims[2] / sizeof(double))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dims", "nx * ny * nz overflows");
  *n = dims[dir];
  *nsys = dims[0] * dims[1] * dims[2] / dims[dir];
  return TL_OK;
}

/* Start and row stride of system s of a solve along dir (dims NULL: a
 * batch of lines of n rows). */
static void line_of(const size_t *dims, size_t n, size_t s, tl_dir dir, size_t *base,
                    size_t *stride)
{
  if (!dims || dir == TL_DIR_X) {
    *base = s * n;
    *stride = 1;
  } else if (dir == TL_DIR_Y) {
    size_t nx = dims[0], k = s / nx, i = s % nx;
    *base = k * nx * dims[1] + i;
    *stride = nx;
  } else {
    size_t nx = dims[0];
    *base = s; /* s = j nx + i is the offset of (i, j, 0) */
    *stride = nx * dims[1];
  }
}

#define TL_CPU_SELF "optimized/layout/layout.c"
#include "sz_passes.h"

static int check_args(size_t n, size_t nsys, size_t sz, const void *src, const void *dst,
                      tl_info *info)
{
  TL_CALL(tl_cpu_check_sz(sz, "pack", info));
  if (!src || !dst)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "pack: src and dst may not be NULL");
  if (!tl_cpu_packed_count(n, nsys, sz))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "pack: n = %zu, nsys = %zu: empty or too large",
                   n, nsys);
  return TL_OK;
}

int tl_cpu_pack_batch_d(size_t n, size_t nsys, size_t sz, const double *src, double *dst,
                        double pad, tl_info *info)
{
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, d, NULL, TL_DIR_X, n, nsys, src, dst, pad, 1);
}

int tl_cpu_unpack_batch_d(size_t n, size_t nsys, size_t sz, const double *src, double *dst,
                          tl_info *info)
{
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, d, NULL, TL_DIR_X, n, nsys, dst, (double *)src, 0.0, 0);
}

int tl_cpu_pack_batch_f(size_t n, size_t nsys, size_t sz, const float *src, float *dst, float pad,
                        tl_info *info)
{
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, f, NULL, TL_DIR_X, n, nsys, src, dst, pad, 1);
}

int tl_cpu_unpack_batch_f(size_t n, size_t nsys, size_t sz, const float *src, float *dst,
                          tl_info *info)
{
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, f, NULL, TL_DIR_X, n, nsys, dst, (float *)src, 0.0f, 0);
}

int tl_cpu_pack_3d_d(const size_t dims[3], tl_dir dir, size_t sz, const double *src, double *dst,
                     double pad, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, d, dims, dir, n, nsys, src, dst, pad, 1);
}

int tl_cpu_unpack_3d_d(const size_t dims[3], tl_dir dir, size_t sz, const double *src, double *dst,
                       tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, d, dims, dir, n, nsys, dst, (double *)src, 0.0, 0);
}

int tl_cpu_pack_3d_f(const size_t dims[3], tl_dir dir, size_t sz, const float *src, float *dst,
                     float pad, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, f, dims, dir, n, nsys, src, dst, pad, 1);
}

int tl_cpu_unpack_3d_f(const size_t dims[3], tl_dir dir, size_t sz, const float *src, float *dst,
                       tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  TL_CALL(check_args(n, nsys, sz, src, dst, info));
  TL_CPU_DISPATCH(sz, reorder, f, dims, dir, n, nsys, dst, (float *)src, 0.0f, 0);
}

#else /* ---- one (precision, SZ) pass ---- */

/* One group: to_packed copies the source lines into the packed group,
 * else the packed group back into the lines (padding lanes skipped). */
static void FN(reorder_group)(const size_t *dims, tl_dir dir, size_t n, size_t nsys, size_t g,
                              const T *lines, T *packed, T pad, int to_packed)
{
  size_t base[SZ], stride = 1, valid = nsys - g * SZ < SZ ? nsys - g * SZ : SZ;
  for (size_t l = 0; l < valid; l++)
    line_of(dims, n, g * SZ + l, dir, &base[l], &stride);
  T *grp = packed + g * n * SZ;
  int adjacent = valid == SZ && stride != 1 && base[SZ - 1] == base[0] + SZ - 1;
  if (adjacent) { /* y and z: SZ neighbours per row */
    for (size_t i = 0; i < n; i++) {
      T *p = grp + i * SZ;
      T *q = (T *)lines + base[0] + i * stride;
      if (to_packed)
        memcpy(p, q, SZ * sizeof(T));
      else
        memcpy(q, p, SZ * sizeof(T));
    }
    return;
  }
  for (size_t i0 = 0; i0 < n; i0 += TILE) { /* a tile of TILE rows, lane by lane */
    size_t ib = n - i0 < TILE ? n - i0 : TILE;
    for (size_t l = 0; l < SZ; l++) {
      T *p = grp + i0 * SZ + l;
      if (l >= valid) {
        if (to_packed)
          for (size_t r = 0; r < ib; r++)
            p[r * SZ] = pad;
        continue;
      }
      T *q = (T *)lines + base[l] + i0 * stride;
      if (to_packed)
        for (size_t r = 0; r < ib; r++)
          p[r * SZ] = q[r * stride];
      else
        for (size_t r = 0; r < ib; r++)
          q[r * stride] = p[r * SZ];
    }
  }
}

static int FN(reorder)(const size_t *dims, tl_dir dir, size_t n, size_t nsys, const T *lines,
                       T *packed, T pad, int to_packed)
{
  size_t groups = (nsys + SZ - 1) / SZ;
#pragma omp parallel for schedule(static)
  for (size_t g = 0; g < groups; g++)
    FN(reorder_group)(dims, dir, n, nsys, g, lines, packed, pad, to_packed);
  return TL_OK;
}

#endif
