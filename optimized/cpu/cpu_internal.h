/* optimized/cpu/cpu_internal.h -- what the optimized CPU kernels share
 * (private: not installed, not included by users).
 */
#ifndef TRIDLAB_CPU_INTERNAL_H
#define TRIDLAB_CPU_INTERNAL_H

#include <float.h>
#include <limits.h> /* defines __GLIBC__ on glibc systems */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "optimized/layout/layout_internal.h"
#include "tridlab/backend.h"
#include "tridlab/cpu.h"

/* Force inlining where a constant argument (exact or not, a layout)
 * must specialise the body. */
#if defined(__GNUC__)
#define TL_CPU_INLINE inline __attribute__((always_inline))
#else
#define TL_CPU_INLINE inline
#endif

/* Function multiversioning: the group kernels are compiled for the
 * baseline x86-64 (SSE2), AVX2 and AVX-512, and the loader picks the best
 * the CPU has (GCC's target_clones, glibc's ifunc). The default build
 * thus uses wide vectors without -march=native; NATIVE=1 still works, and
 * -DTL_CPU_NO_CLONES turns it off. Elsewhere: one portable version. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__) &&       \
    !defined(TL_CPU_NO_CLONES)
#ifndef TL_CPU_CLONE_LIST
#define TL_CPU_CLONE_LIST "default", "avx2", "avx512f"
#endif
#define TL_CPU_CLONES __attribute__((target_clones(TL_CPU_CLONE_LIST)))
#else
#define TL_CPU_CLONES
#endif

/* Software prefetch into every cache level (a hint; compilers without
 * the builtin get nothing). TL_CPU_PREFETCH_L2 stops at L2 (x86:
 * prefetcht1): for a kernel that fetches more ahead than L1 holds. */
#if defined(__GNUC__)
#define TL_CPU_PREFETCH(p, write) __builtin_prefetch((p), (write), 3)
#define TL_CPU_PREFETCH_L2(p, write) __builtin_prefetch((p), (write), 2)
#else
#define TL_CPU_PREFETCH(p, write) ((void)(p))
#define TL_CPU_PREFETCH_L2(p, write) ((void)(p))
#endif
/* The compiler keeps the loads before it before it and those after it
 * after it (no instruction; a compiler barrier): an order of loads that
 * matters to the cache, which the compiler would otherwise choose. */
#if defined(__GNUC__)
#define TL_CPU_ORDER() __asm__ __volatile__("" ::: "memory")
#else
#define TL_CPU_ORDER() ((void)0)
#endif
/* Software prefetch of row r of four SZ-packed arrays (every 64-byte
 * line of the row's sz values): a, b, c read, d read and written. */
#define TL_CPU_PREFETCH_ROW(a, b, c, d, r, sz)                                                     \
  do {                                                                                             \
    for (size_t k_ = 0; k_ < (sz); k_ += 64 / sizeof *(a)) {                                       \
      size_t q_ = (r) * (sz) + k_;                                                                 \
      TL_CPU_PREFETCH((a) + q_, 0);                                                                \
      TL_CPU_PREFETCH((b) + q_, 0);                                                                \
      TL_CPU_PREFETCH((c) + q_, 0);                                                                \
      TL_CPU_PREFETCH((d) + q_, 1);                                                                \
    }                                                                                              \
  } while (0)

/* Rows ahead of the row being computed that the kernels prefetch. */
#ifndef TL_CPU_PF_NEAR
#define TL_CPU_PF_NEAR 16
#endif

/* The kernels on contiguous lines (thomas_lines_cpu.c, the registry's
 * periodic path) prefetch into L2 in CHUNKS of XC rows of a group's
 * lines, one chunk ahead; settable at build time (-D) to measure. */
#ifndef TL_CPU_XC
#define TL_CPU_XC 256
#endif

/* The calling thread's share [*first, *end) of `count` work items in an
 * OpenMP parallel region: contiguous, in thread order, as a static
 * schedule splits them (the whole range outside a parallel region). */
void tl_cpu_my_share(size_t count, size_t *first, size_t *end);

/* Streaming stores: a whole cache line written without being read first
 * (the "read for ownership" a plain store to a line not in cache makes,
 * a word read per word written). Worth it only for results larger than
 * the cache, which go to memory anyway, and only for whole, aligned
 * lines: a streaming store to part of a line costs more than a plain
 * one. SSE2's is in every x86-64 processor (the write-combining buffer
 * joins its 16-byte pieces into the line); elsewhere plain stores. The
 * caller ends its kernel with tl_cpu_stream_fence. */
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define TL_CPU_NT 1
#else
#define TL_CPU_NT 0
#endif

/* After a kernel's streaming stores: they are ordered before what
 * follows (another thread or rank may read the results next). */
static inline void tl_cpu_stream_fence(void)
{
#if TL_CPU_NT
  _mm_sfence();
#endif
}

/* Small in-register transposes for the tiles of the x-direction kernels:
 * 8x8 blocks of doubles, 4x4 of floats, rows p[k] (unaligned) to rows q[k]. GCC 12+ and Clang have
 * __builtin_shufflevector; other compilers get the scalar loops, and so
 * does a build with -DTL_CPU_NO_SHUFFLE (to test them). */
#if defined(__has_builtin) && !defined(TL_CPU_NO_SHUFFLE)
#if __has_builtin(__builtin_shufflevector)
#define TL_CPU_SHUFFLE 1
#endif
#endif
#ifdef TL_CPU_SHUFFLE
typedef float tl_cpu_v4f __attribute__((vector_size(16)));

/* 8x8 doubles in three rounds of 8 two-vector shuffles: rows p + k ps
 * (k = 0..7, 8 values each, unaligned) to columns q + k qs. 24 shuffles for 64 values,
 * where 4x4 blocks take 32; one 512-bit register per row with AVX-512
 * (the compiler splits the vectors on narrower machines).
 *
 *   rows               round 1: pairs    round 2: pairs of pairs      round 3: halves
 *   r0: 00 01 .. 07    t0: 00 10 02 12   u0: 00 10 20 30 04 14 24 34  q0: 00 10 20 .. 70
 *   r1: 10 11 .. 17    t1: 01 11 03 13   u1: 01 11 21 31 05 15 25 35  q4: 04 14 24 .. 74
 *   ...                ...               ...                          ...
 */
typedef double tl_cpu_v8d __attribute__((vector_size(64)));

/* The three rounds on eight rows held in registers: r[k] (row k) becomes
 * column k, in place. */
static TL_CPU_INLINE void tl_cpu_transpose8_regs_d(tl_cpu_v8d r[8])
{
  tl_cpu_v8d t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 2, 10, 4, 12, 6, 14);
    t[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
  for (int k = 0; k < 8; k += 4)
    for (int j = 0; j < 2; j++) {
      u[k + j] = __builtin_shufflevector(t[k + j], t[k + j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[k + j + 2] = __builtin_shufflevector(t[k + j], t[k + j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  for (int k = 0; k < 4; k++) {
    r[k] = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[k + 4] = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

/* Rows p + k ps (k = 0..7) into registers as columns: v[j][k] = p[k ps + j]. */
static TL_CPU_INLINE void tl_cpu_transpose8_load_d(const double *p, size_t ps, tl_cpu_v8d v[8])
{
  for (int k = 0; k < 8; k++)
    memcpy(&v[k], p + (size_t)k * ps, sizeof v[k]);
  tl_cpu_transpose8_regs_d(v);
}

/* The inverse: q[k qs + j] = v[j][k] (v is transposed in place). */
static TL_CPU_INLINE void tl_cpu_transpose8_store_d(tl_cpu_v8d v[8], double *q, size_t qs)
{
  tl_cpu_transpose8_regs_d(v);
  for (int k = 0; k < 8; k++)
    memcpy(q + (size_t)k * qs, &v[k], sizeof v[k]);
}

/* Eight doubles v to the cache line at q (64-byte aligned) by streaming
 * stores: SSE2's four 16-byte pieces, which the write-combining buffer
 * joins into the line, each cut out of the register by one shuffle (not
 * two elements by two scalar moves, which GCC spilled through the
 * stack). */
static TL_CPU_INLINE void tl_cpu_stream_line_d(double *q, tl_cpu_v8d v)
{
#if TL_CPU_NT
  _mm_stream_pd(q, (__m128d)__builtin_shufflevector(v, v, 0, 1));
  _mm_stream_pd(q + 2, (__m128d)__builtin_shufflevector(v, v, 2, 3));
  _mm_stream_pd(q + 4, (__m128d)__builtin_shufflevector(v, v, 4, 5));
  _mm_stream_pd(q + 6, (__m128d)__builtin_shufflevector(v, v, 6, 7));
#else
  memcpy(q, &v, sizeof v);
#endif
}

/* tl_cpu_transpose8_store_d with streaming stores: each q + k qs on a
 * 64-byte boundary. */
static TL_CPU_INLINE void tl_cpu_transpose8_stream_d(tl_cpu_v8d v[8], double *q, size_t qs)
{
#if TL_CPU_NT
  tl_cpu_transpose8_regs_d(v);
  for (int k = 0; k < 8; k++)
    for (int h = 0; h < 8; h += 2)
      _mm_stream_pd(q + (size_t)k * qs + h, _mm_set_pd(v[k][h + 1], v[k][h]));
#else
  tl_cpu_transpose8_store_d(v, q, qs);
#endif
}

static TL_CPU_INLINE void tl_cpu_transpose8_d(const double *p, size_t ps, double *q, size_t qs)
{
  tl_cpu_v8d r[8];
  tl_cpu_transpose8_load_d(p, ps, r);
  for (int k = 0; k < 8; k++)
    memcpy(q + (size_t)k * qs, &r[k], sizeof r[k]);
}

/* 8x8 floats in 256-bit registers, in three rounds of 8 two-vector
 * shuffles (the float x kernel's whole tiles: thomas_lines_cpu.c): r[k]
 * (row k) becomes column k, in place.
 *
 *   rows               round 1            round 2                    round 3: halves
 *   r0: 00 01 .. 07    t0: 00 10 01 11    u0: 00 10 20 30 04 14 24 34  q0: 00 10 .. 70
 *   r1: 10 11 .. 17        04 14 05 15    u1: 01 11 21 31 05 15 25 35  q4: 04 14 .. 74
 */
typedef float tl_cpu_v8f __attribute__((vector_size(32)));

static TL_CPU_INLINE void tl_cpu_transpose8_regs_f(tl_cpu_v8f r[8])
{
  tl_cpu_v8f t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int k = 0; k < 8; k += 4)
    for (int j = 0; j < 2; j++) {
      u[k + 2 * j] = __builtin_shufflevector(t[k + j], t[k + j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[k + 2 * j + 1] =
          __builtin_shufflevector(t[k + j], t[k + j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  for (int k = 0; k < 4; k++) {
    r[k] = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[k + 4] = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

/* Rows p + k ps (k = 0..7) into registers as columns: v[j][k] = p[k ps + j]. */
static TL_CPU_INLINE void tl_cpu_transpose8_load_f(const float *p, size_t ps, tl_cpu_v8f v[8])
{
  for (int k = 0; k < 8; k++)
    memcpy(&v[k], p + (size_t)k * ps, sizeof v[k]);
  tl_cpu_transpose8_regs_f(v);
}

/* The inverse: q[k qs + j] = v[j][k] (v is transposed in place). */
static TL_CPU_INLINE void tl_cpu_transpose8_store_f(tl_cpu_v8f v[8], float *q, size_t qs)
{
  tl_cpu_transpose8_regs_f(v);
  for (int k = 0; k < 8; k++)
    memcpy(q + (size_t)k * qs, &v[k], sizeof v[k]);
}

static TL_CPU_INLINE void tl_cpu_transpose4_f(const float *p0, const float *p1, const float *p2,
                                              const float *p3, float *q0, float *q1, float *q2,
                                              float *q3)
{
  tl_cpu_v4f a, b, c, d, t0, t1, t2, t3, r;
  memcpy(&a, p0, sizeof a);
  memcpy(&b, p1, sizeof b);
  memcpy(&c, p2, sizeof c);
  memcpy(&d, p3, sizeof d);
  t0 = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  t1 = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  t2 = __builtin_shufflevector(c, d, 0, 4, 1, 5);
  t3 = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  r = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  memcpy(q0, &r, sizeof r);
  r = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  memcpy(q1, &r, sizeof r);
  r = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  memcpy(q2, &r, sizeof r);
  r = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
  memcpy(q3, &r, sizeof r);
}
#endif

/* TL_ERR_ARG (argument "array") when a, b, c, d or x is NULL. */
int tl_cpu_check_arrays(const void *a, const void *b, const void *c, const void *d, const void *x,
                        const char *who, tl_info *info);

/* The x-line kernel (thomas_lines_cpu.c) at group size sz (8, 16, 32 or
 * 64, not checked): nsys contiguous lines of n >= 1 rows, system s at
 * s n, into x (x may be d). Without redo (NULL) the first breakdown is
 * reported as thomas_3d reports it (tl_cpu_thomas_3d_* along x). With
 * redo (nsys bytes, double only) nothing is reported: redo[s] receives
 * what tl_cpu_thomas_lines_d's flag does (tridlab/cpu.h), and more (may
 * be NULL) what tl_cpu_thomas_lines_more_d's does. */
int tl_cpu_thomas_lines_sz_d(size_t n, size_t nsys, size_t sz, const double *a, const double *b,
                             const double *c, const double *d, double *x, unsigned char *redo,
                             const tl_cpu_lines_more *more, tl_info *info);
int tl_cpu_thomas_lines_sz_f(size_t n, size_t nsys, size_t sz, const float *a, const float *b,
                             const float *c, const float *d, float *x, unsigned char *redo,
                             tl_info *info);

/* 64-byte aligned scratch of count elements of `size` bytes, NULL on
 * overflow or when memory is short; release with free(). */
void *tl_cpu_scratch(size_t count, size_t size);

/* The row where the reference Thomas recurrence of one system breaks
 * down: the first zero or non-finite pivot (*pivot = 1), else the
 * highest row whose x is not finite (*pivot = 0; x may be NULL), else -1.
 * Entry j of the system is at a[j * stride]; of x at x[j * xstride]. */
long tl_cpu_breakdown_row_d(size_t n, const double *a, const double *b, const double *c,
                            size_t stride, const double *x, size_t xstride, int *pivot);
long tl_cpu_breakdown_row_f(size_t n, const float *a, const float *b, const float *c, size_t stride,
                            const float *x, size_t xstride, int *pivot);

/* A SPIKE variant's registry backend on the CPU (spike_cpu.c): its
 * batched phases 1-3 (the shape of tl_cpu_spike_givens_local_d; k NULL
 * for a variant without a kernel column), the reference variant whose
 * phases a flagged system runs, and the variant whose name the reports
 * of phases 4-5 carry. */
struct tl_spike_variant;
typedef size_t (*tl_cpu_spike_lanes_fn)(size_t m, size_t ld, size_t nsys, int left, int right,
                                        const double *a, const double *b, const double *c,
                                        const double *d, double *g, double *v, double *w, double *k,
                                        double *tips, unsigned char *flagged);
typedef struct tl_cpu_spike_backend {
  const struct tl_spike_variant *ref, *cpu;
  tl_cpu_spike_lanes_fn lanes;
} tl_cpu_spike_backend;
/* One group of eight systems through a variant's lanes kernel (phases
 * 1-3: g, v, w and -- a kernel variant's -- K; pk: its packed scratch;
 * flag[0..7] set where a system fails). */
typedef void (*tl_cpu_spike_group_fn)(size_t m, size_t ld, int left, int right, const double *a,
                                      const double *b, const double *c, const double *d, double *g,
                                      double *v, double *w, double *k, double *pk,
                                      unsigned char *flag);
/* What a batched SPIKE kernel's entry does around its lanes kernel
 * (spike_cpu.c): every whole group of eight by group (NULL where the
 * lanes are not built), with arrays packed rows of scratch per group,
 * then each of its systems' tips (TL_SPIKE_SEND or TL_SPIKE_SEND_KERNEL
 * words a system); the systems past the last group through the variant's
 * reference phases 1-3, system by system, with the same outputs (k: K,
 * a kernel variant's, else NULL); flagged[s] = 1 where they fail or
 * memory is short. Returns how many systems the lanes ran. */
size_t tl_cpu_spike_lanes_run_d(const struct tl_spike_variant *var, tl_cpu_spike_group_fn group,
                                int arrays, size_t m, size_t ld, size_t nsys, int has_left,
                                int has_right, const double *a, const double *b, const double *c,
                                const double *d, double *g, double *v, double *w, double *k,
                                double *tips, unsigned char *flagged);
/* The backend's solve: phases 1-3 by the lanes, partition by partition,
 * then phases 4-5 and the verdict of each system by the reference's code
 * (tl_spike_finish_d); a flagged system by the reference variant whole. */
int tl_cpu_spike_solve(const tl_cpu_spike_backend *be, const struct tl_algorithm *self,
                       const tl_batch *sys, void *x, const tl_options *opt, tl_info *info);

/* Mask of the lanes whose check value is not finite. A check value is
 * the sum of every pivot and every result of a lane: one add per value,
 * and not finite as soon as one value was infinite or NaN. The sum can
 * also overflow on its own, so a flagged lane is a candidate only: the
 * caller confirms it with tl_cpu_breakdown_row_* (or the reference). */
#define TL_CPU_BAD_MASK(chk, nl, out)                                                              \
  do {                                                                                             \
    uint64_t m_ = 0;                                                                               \
    for (int l_ = 0; l_ < (nl); l_++)                                                              \
      if (!((chk)[l_] - (chk)[l_] == 0))                                                           \
        m_ |= (uint64_t)1 << l_;                                                                   \
    (out) = m_;                                                                                    \
  } while (0)

#endif
