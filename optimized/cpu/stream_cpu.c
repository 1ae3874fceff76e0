/* optimized/cpu/stream_cpu.c -- the streaming kernels the bandwidth
 * benchmark measures against (docs/design.md §7, docs/performance.md).
 *
 * Each moves exactly the arrays of a solver in the same direction (read,
 * write or read-modify-write), element after element, with the same
 * threads and the same static split of the data between threads, and no
 * recurrence: the time it takes is what memory allows for that access
 * pattern on this machine. The arithmetic is a few flops per element so
 * the compiler can neither drop a load nor turn the loop into memset.
 *
 * Each thread's part is a function of its own, built for the machine's
 * vectors (TL_CPU_CLONES) as the kernels are: the body of an OpenMP
 * region is outlined by the compiler into a function that target_clones
 * does not reach, and it was built for the baseline x86-64 (two doubles
 * per SSE2 instruction), a weaker streamer than the kernels it judges.
 */
#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h"

TL_CPU_CLONES static void copy_part_d(size_t k0, size_t k1, const double *src, double *dst)
{
#pragma omp simd
  for (size_t k = k0; k < k1; k++)
    dst[k] = src[k];
}

TL_CPU_CLONES static void copy_part_f(size_t k0, size_t k1, const float *src, float *dst)
{
#pragma omp simd
  for (size_t k = k0; k < k1; k++)
    dst[k] = src[k];
}

void tl_cpu_stream_copy_d(size_t count, const double *src, double *dst)
{
#pragma omp parallel
  {
    size_t k0, k1;
    tl_cpu_my_share(count, &k0, &k1);
    copy_part_d(k0, k1, src, dst);
  }
}

void tl_cpu_stream_copy_f(size_t count, const float *src, float *dst)
{
#pragma omp parallel
  {
    size_t k0, k1;
    tl_cpu_my_share(count, &k0, &k1);
    copy_part_f(k0, k1, src, dst);
  }
}

/* In-place Thomas moves: read a, b, c, read and write d. Blocks of 64
 * elements, with the software prefetch the kernels use (the same
 * distance in bytes), so the limit is not a weaker streamer than the
 * kernels it judges. */
#ifndef TL_CPU_STREAM_PF
#define TL_CPU_STREAM_PF 2048
#endif
#define TL_CPU_STREAM_ABCD(name, T)                                                                \
  TL_CPU_CLONES static void name##_part(size_t k0, size_t k1, const T *a, const T *b, const T *c,  \
                                        T *d)                                                      \
  {                                                                                                \
    size_t ahead = TL_CPU_STREAM_PF / sizeof(T);                                                   \
    for (size_t k = k0; k < k1; k += 64) {                                                         \
      size_t e = k1 - k < 64 ? k1 : k + 64;                                                        \
      if (k + ahead + 64 <= k1)                                                                    \
        for (size_t q = 0; q < 64; q += 64 / sizeof(T)) {                                          \
          TL_CPU_PREFETCH(a + k + ahead + q, 0);                                                   \
          TL_CPU_PREFETCH(b + k + ahead + q, 0);                                                   \
          TL_CPU_PREFETCH(c + k + ahead + q, 0);                                                   \
          TL_CPU_PREFETCH(d + k + ahead + q, 1);                                                   \
        }                                                                                          \
      _Pragma("omp simd") for (size_t i = k; i < e; i++) d[i] = (d[i] - a[i] * c[i]) * b[i];       \
    }                                                                                              \
  }                                                                                                \
  void name(size_t count, const T *a, const T *b, const T *c, T *d)                                \
  {                                                                                                \
    _Pragma("omp parallel")                                                                        \
    {                                                                                              \
      size_t k0, k1;                                                                               \
      tl_cpu_my_share(count, &k0, &k1);                                                            \
      name##_part(k0, k1, a, b, c, d);                                                             \
    }                                                                                              \
  }

TL_CPU_STREAM_ABCD(tl_cpu_stream_abcd_d, double)
TL_CPU_STREAM_ABCD(tl_cpu_stream_abcd_f, float)

/* Thomas into a separate x (tl_solve's contract: x may not overlap d):
 * read a, b, c, d, write x; the same blocks and prefetch. Where x is
 * larger than the cache (tl_cpu_stream_min_bytes) and its entries on
 * 16-byte boundaries, the whole cache lines of x are written by
 * streaming stores (cpu_internal.h), as the x-line kernel writes them
 * (thomas_lines_cpu.c): without, each line of x is read before it is
 * written, a sixth word per unknown, and the limit would be slower than
 * the memory allows. The blocks then start on x's cache lines. */
static TL_CPU_INLINE void abcdx_rows(size_t k, size_t e, const double *a, const double *b,
                                     const double *c, const double *d, double *x)
{
#pragma omp simd
  for (size_t i = k; i < e; i++)
    x[i] = (d[i] - a[i] * c[i]) * b[i];
}

/* One thread's part k0 .. k1-1 (nt: x by streaming stores). */
TL_CPU_CLONES static void abcdx_part(size_t k0, size_t k1, int nt, const double *a, const double *b,
                                     const double *c, const double *d, double *x)
{
  size_t k = k0, ahead = TL_CPU_STREAM_PF / sizeof(double);
  if (nt) { /* up to x's next cache line, plain */
    size_t head = (64 - (uintptr_t)(x + k0) % 64) % 64 / sizeof(double);
    size_t e = k1 - k0 < head ? k1 : k0 + head;
    abcdx_rows(k0, e, a, b, c, d, x);
    k = e;
  }
  for (; k < k1; k += 64) {
    size_t e = k1 - k < 64 ? k1 : k + 64;
    if (k + ahead + 64 <= k1)
      for (size_t q = 0; q < 64; q += 64 / sizeof(double)) {
        TL_CPU_PREFETCH(a + k + ahead + q, 0);
        TL_CPU_PREFETCH(b + k + ahead + q, 0);
        TL_CPU_PREFETCH(c + k + ahead + q, 0);
        TL_CPU_PREFETCH(d + k + ahead + q, 0);
        if (!nt)
          TL_CPU_PREFETCH(x + k + ahead + q, 1);
      }
#if TL_CPU_NT
    if (nt && e - k == 64) {
      for (size_t i = k; i < e; i += 2)
        _mm_stream_pd(x + i, _mm_set_pd((d[i + 1] - a[i + 1] * c[i + 1]) * b[i + 1],
                                        (d[i] - a[i] * c[i]) * b[i]));
      continue;
    }
#endif
    abcdx_rows(k, e, a, b, c, d, x);
  }
  if (nt)
    tl_cpu_stream_fence();
}

void tl_cpu_stream_abcdx_d(size_t count, const double *a, const double *b, const double *c,
                           const double *d, double *x)
{
  int nt =
      TL_CPU_NT && count * sizeof(double) > tl_cpu_stream_min_bytes() && (uintptr_t)x % 16 == 0;
#pragma omp parallel
  {
    size_t k0, k1;
    tl_cpu_my_share(count, &k0, &k1);
    abcdx_part(k0, k1, nt, a, b, c, d, x);
  }
}

/* The fused compact solve moves: read u, write du, one group of n rows
 * of sz values after another; the stencil wraps inside the group; the
 * same software prefetch as the kernel. Only the two rows at each end
 * of a group wrap, so the interior rows are a plain 5-point sweep (no
 * index arithmetic per row: the limit must stream, not compute). */
#define TL_CPU_STREAM_STENCIL(name, T)                                                             \
  TL_CPU_CLONES static void name##_group(size_t n, size_t sz, const T *s, const T *ug, T *dg)      \
  {                                                                                                \
    const T s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4];                                 \
    for (size_t i = 0; i < n; i++) {                                                               \
      const T *r0, *r1, *r2 = ug + i * sz, *r3, *r4;                                               \
      if (i >= 2 && i + 2 < n) {                                                                   \
        r0 = r2 - 2 * sz, r1 = r2 - sz, r3 = r2 + sz, r4 = r2 + 2 * sz;                            \
      } else {                                                                                     \
        r0 = ug + (i + 2 * n - 2) % n * sz, r1 = ug + (i + n - 1) % n * sz;                        \
        r3 = ug + (i + 1) % n * sz, r4 = ug + (i + 2) % n * sz;                                    \
      }                                                                                            \
      T *o = dg + i * sz;                                                                          \
      if (i + TL_CPU_PF_NEAR < n)                                                                  \
        for (size_t q = 0; q < sz; q += 64 / sizeof(T)) {                                          \
          TL_CPU_PREFETCH(r2 + TL_CPU_PF_NEAR * sz + q, 0);                                        \
          TL_CPU_PREFETCH(o + TL_CPU_PF_NEAR * sz + q, 1);                                         \
        }                                                                                          \
      _Pragma("omp simd") for (size_t l = 0; l < sz; l++) o[l] =                                   \
          s0 * r0[l] + s1 * r1[l] + s2 * r2[l] + s3 * r3[l] + s4 * r4[l];                          \
    }                                                                                              \
  }                                                                                                \
  void name(size_t n, size_t ngroups, size_t sz, const double st[5], const T *u, T *du)            \
  {                                                                                                \
    const T s[5] = {(T)st[0], (T)st[1], (T)st[2], (T)st[3], (T)st[4]};                             \
    _Pragma("omp parallel for schedule(static)") for (size_t g = 0; g < ngroups; g++)              \
        name##_group(n, sz, s, u + g * n * sz, du + g * n * sz);                                   \
  }

TL_CPU_STREAM_STENCIL(tl_cpu_stream_stencil_d, double)
TL_CPU_STREAM_STENCIL(tl_cpu_stream_stencil_f, float)
