/* optimized/cpu/thomas_packed_cpu.c -- Thomas on SZ-packed groups, in
 * place: tl_cpu_thomas_sz_d, tl_cpu_thomas_sz_f.
 *
 * Source: paper 000 (DistD2-TDS) §2.1 Algorithm 1 (Thomas), §4.1 (the
 * SZ-packed data structure, Figures 6 and 7), §5.1 and Table 3 (data
 * movement of a cached implementation: read 1, write 1 domain-sized
 * array per operand). reference/thomas_ref.c is the readable version of
 * the recurrence on one system; thomas_group.h runs it on one row of a
 * group (the symbols are the same: cp = c', dp = d'). The teaching
 * explanation is docs/algorithms/thomas_cpu.md ("The SZ-packed layout",
 * "Keeping the forward pass in cache", "A software pipeline over
 * groups").
 *
 * A GROUP is SZ systems solved together: the loop over the SZ systems is
 * the inner, vectorised (`omp simd`) loop; the recurrence runs down the
 * rows. In the SZ-packed layout (optimized/layout/layout.c packs a batch into it) row
 * i of a group is SZ adjacent values, a + (g n + i) SZ. With SZ = 4:
 *
 *   memory:  [a r0: s0 s1 s2 s3][a r1: s0 s1 s2 s3] ...   (same for b, c, d)
 *   forward: row i of all 4 systems at once, from row i-1:
 *            p = b_i - a_i cp_{i-1};  cp_i = c_i / p;  dp_i = (d_i - a_i dp_{i-1}) / p
 *   backward: x_i = dp_i - cp_i x_{i+1}, row i of all 4 systems at once
 *
 * Traffic (the byte model of docs/performance.md): a, b, c and d are read
 * once and x written once into d, 5 words per unknown. dp is kept in d;
 * cp lives in a per-thread scratch of n SZ values that stays in the
 * core's L2 cache between the forward and the backward pass (paper 000
 * §4.1: "temporal locality between the forward and backward passes"), so
 * it adds no memory traffic while 2 n SZ values fit (tl_cpu_sz_default
 * keeps them under 512 KiB; larger n still works, it only moves more
 * bytes).
 *
 * A software pipeline over the groups of a thread keeps memory busy: the
 * forward pass of group g+1 (memory) runs in the same loop as the
 * backward pass of group g (cache), one row of each per step, and both
 * share one scratch (packed_pipeline). Software prefetch runs 16 rows
 * ahead of the forward pass. The pipeline is built for SSE2, AVX2 and
 * AVX-512 (TL_CPU_CLONES). The kernel is written once and built for every
 * (precision, SZ) pair: this file includes itself through optimized/layout/sz_passes.h
 * (optimized/layout/sz_template.h explains how).
 */
#ifndef TL_CPU_PASS
#include <stdlib.h>

#include "cpu_internal.h"

#define TL_CPU_SELF "optimized/cpu/thomas_packed_cpu.c"
#include "optimized/layout/sz_passes.h"

int tl_cpu_thomas_sz_d(size_t n, size_t nsys, size_t sz, const double *a, const double *b,
                       const double *c, double *d, tl_info *info)
{
  TL_CALL(tl_cpu_check_sz(sz, "thomas_sz", info));
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, d, "thomas_sz", info));
  if (!tl_cpu_packed_count(n, nsys, sz))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "thomas_sz: n = %zu, nsys = %zu", n, nsys);
  TL_CPU_DISPATCH(sz, thomas_packed, d, n, nsys, a, b, c, d, info);
}

int tl_cpu_thomas_sz_f(size_t n, size_t nsys, size_t sz, const float *a, const float *b,
                       const float *c, float *d, tl_info *info)
{
  TL_CALL(tl_cpu_check_sz(sz, "thomas_sz", info));
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, d, "thomas_sz", info));
  if (!tl_cpu_packed_count(n, nsys, sz))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "thomas_sz: n = %zu, nsys = %zu", n, nsys);
  TL_CPU_DISPATCH(sz, thomas_packed, f, n, nsys, a, b, c, d, info);
}

#else /* ---- one (precision, SZ) pass ---- */

#include "optimized/cpu/thomas_group.h"

/* Forward row i of a packed group in place (dp overwrites d). c' of row
 * i is kept at scratch row i, or n-1-i when rev (see packed_pipeline). */
static TL_CPU_INLINE void FN(packed_forward_row)(size_t n, size_t i, int rev, const T *a,
                                                 const T *b, const T *c, T *d, T *cp, T *chk)
{
  size_t o = i * SZ;
  T *cpi = cp + (rev ? n - 1 - i : i) * SZ;
  if (i + TL_CPU_PF_NEAR < n)
    TL_CPU_PREFETCH_ROW(a, b, c, d, i + TL_CPU_PF_NEAR, SZ);
  if (i == 0)
    FN(row_first)(b, n > 1 ? c : FN(zero_row), d, cpi, d, chk);
  else
    FN(row_next)
  (a + o, b + o, i + 1 < n ? c + o : FN(zero_row), d + o, rev ? cpi + SZ : cpi - SZ, d + o - SZ,
   cpi, d + o, chk);
}

/* Backward step k = 0..n-1 of a packed group: row i = n-1-k, in place. */
static TL_CPU_INLINE void FN(packed_backward_row)(size_t n, size_t k, int rev, T *d, const T *cp,
                                                  T *chk)
{
  size_t i = n - 1 - k;
  if (k == 0)
    FN(row_copy_check)(d + i * SZ, d + i * SZ, chk);
  else
    FN(row_back)(cp + (rev ? k : i) * SZ, d + i * SZ, d + (i + 1) * SZ, d + i * SZ, chk);
}

/* A thread's groups g0..g1-1 as a software pipeline: the forward pass of
 * group g+1 runs in the same loop as the backward pass of group g, so
 * while the forward rows wait for memory the backward rows (in cache)
 * keep the core busy, and memory streams without the pause a backward
 * pass would otherwise leave:
 *
 *   step k:   forward row k of group g+1    (reads a, b, c, d from memory)
 *             backward row n-1-k of group g (reads c', d from cache)
 *
 * One scratch of n SZ values holds c' of both groups: group g+1 writes
 * its row k where group g has just read its row n-1-k, because every
 * other group stores its c' upside down (rev). So the cache holds 2 n SZ
 * values per thread (c' and the part of d in flight), as an unpipelined
 * solve would. */
TL_CPU_CLONES static void FN(packed_pipeline)(size_t n, size_t g0, size_t g1, const T *a,
                                              const T *b, const T *c, T *d, T *cp, uint64_t *bad)
{
  T chk[2][SZ];
  size_t stride = n * SZ;
  if (g0 >= g1)
    return;
  for (size_t i = 0; i < n; i++)
    FN(packed_forward_row)
  (n, i, 0, a + g0 * stride, b + g0 * stride, c + g0 * stride, d + g0 * stride, cp, chk[0]);
  for (size_t g = g0; g < g1; g++) {
    int cur = (int)((g - g0) & 1u), nxt = 1 - cur;
    T *dg = d + g * stride;
    if (g + 1 < g1) {
      size_t o = (g + 1) * stride;
      for (size_t k = 0; k < n; k++) {
        FN(packed_backward_row)(n, k, cur, dg, cp, chk[cur]);
        FN(packed_forward_row)(n, k, nxt, a + o, b + o, c + o, d + o, cp, chk[nxt]);
      }
    } else {
      for (size_t k = 0; k < n; k++)
        FN(packed_backward_row)(n, k, cur, dg, cp, chk[cur]);
    }
    TL_CPU_BAD_MASK(chk[cur], SZ, bad[g]);
  }
}

static int FN(thomas_packed)(size_t n, size_t nsys, const T *a, const T *b, const T *c, T *d,
                             tl_info *info)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  uint64_t *bad = tl_alloc(groups, sizeof *bad);
  if (!bad)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_sz: no memory");
  int nomem = 0;
#pragma omp parallel
  {
    T *cp = tl_cpu_scratch(n * SZ, sizeof(T));
    size_t g0, g1;
    tl_cpu_my_share(groups, &g0, &g1);
    if (cp) {
      FN(packed_pipeline)(n, g0, g1, a, b, c, d, cp, bad);
    } else {
#pragma omp atomic write
      nomem = 1;
    }
    free(cp);
  }
  int st = TL_OK;
  if (nomem) {
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_sz: no memory for %zu scratch values",
                 n * SZ);
  } else {
    for (size_t g = 0; g < groups && st == TL_OK; g++) {
      size_t o = g * n * SZ, valid = nsys - g * SZ < SZ ? nsys - g * SZ : SZ;
      long row;
      int piv, l = FN(confirm)(bad[g], valid, n, a + o, b + o, c + o, d + o, 1, SZ, &row, &piv);
      if (l >= 0)
        st = TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(g * SZ + (size_t)l), row, "",
                     "thomas_sz: %s at row %ld of system %zu",
                     piv ? "zero or non-finite pivot" : "overflow", row, g * SZ + (size_t)l);
    }
  }
  free(bad);
  return st;
}

#endif
