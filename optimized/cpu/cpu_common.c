/* optimized/cpu/cpu_common.c -- threads, argument checks, scratch memory
 * and breakdown reports shared by the optimized CPU kernels (the group
 * size SZ and the layout: optimized/layout/layout.c). */
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

/* The least bytes of output a batched MPI phase writes with streaming
 * stores (optimized/cpu/lanes.h): more than this machine's last-level
 * cache, 32 MiB. */
static size_t stream_min_bytes = (size_t)32 << 20;

size_t tl_cpu_stream_min_bytes(void)
{
  return stream_min_bytes;
}

size_t tl_cpu_set_stream_min_bytes(size_t bytes)
{
  size_t was = stream_min_bytes;
  stream_min_bytes = bytes;
  return was;
}

int tl_cpu_check_arrays(const void *a, const void *b, const void *c, const void *d, const void *x,
                        const char *who, tl_info *info)
{
  if (!a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "%s: no array may be NULL", who);
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
