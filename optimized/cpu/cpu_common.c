/* optimized/cpu/cpu_common.c -- threads, the group size SZ, argument checks, scratch
 * memory and breakdown reports shared by the optimized CPU kernels. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_internal.h"

int tl_cpu_threads(void)
{
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void tl_cpu_set_threads(int threads)
{
#ifdef _OPENMP
  omp_set_num_threads(threads > 0 ? threads : omp_get_num_procs());
#else
  (void)threads;
#endif
}

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

int tl_cpu_check_arrays(const void *a, const void *b, const void *c, const void *d, const void *x,
                        const char *who, tl_info *info)
{
  if (!a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "%s: no array may be NULL", who);
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
  size_t sz = tl_cpu_sz_default(n, elem_size), one = 64 / (elem_size ? elem_size : sizeof(double));
  if (one < TL_CPU_SZ_MIN)
    one = TL_CPU_SZ_MIN;
  return sz < one ? sz : one;
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

void tl_cpu_my_share(size_t count, size_t *first, size_t *end)
{
#ifdef _OPENMP
  size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
#else
  size_t t = 0, nt = 1;
#endif
  size_t base = count / nt, extra = count % nt;
  *first = t * base + (t < extra ? t : extra);
  *end = *first + base + (t < extra ? 1 : 0);
}

void *tl_cpu_scratch(size_t count, size_t size)
{
  if (count == 0)
    count = 1;
  if (size && count > (SIZE_MAX - 64) / size)
    return NULL;
  size_t bytes = (count * size + 63) / 64 * 64;
  return aligned_alloc(64, bytes);
}

/* Written once for double and float. */
#define TL_CPU_BREAKDOWN_ROW(name, T)                                                              \
  long name(size_t n, const T *a, const T *b, const T *c, size_t stride, const T *x,               \
            size_t xstride, int *pivot)                                                            \
  {                                                                                                \
    T cp = 0;                                                                                      \
    *pivot = 1;                                                                                    \
    for (size_t j = 0; j < n; j++) {                                                               \
      T p = j ? b[j * stride] - a[j * stride] * cp : b[0];                                         \
      if (p == 0 || !isfinite(p))                                                                  \
        return (long)j;                                                                            \
      cp = (j + 1 < n) ? c[j * stride] / p : 0;                                                    \
    }                                                                                              \
    *pivot = 0;                                                                                    \
    for (size_t k = n; x && k-- > 0;)                                                              \
      if (!isfinite(x[k * xstride]))                                                               \
        return (long)k;                                                                            \
    return -1;                                                                                     \
  }

TL_CPU_BREAKDOWN_ROW(tl_cpu_breakdown_row_d, double)
TL_CPU_BREAKDOWN_ROW(tl_cpu_breakdown_row_f, float)
