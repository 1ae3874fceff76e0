/* optimized/cpu/thomas_periodic_cpu.c -- batched periodic Thomas on
 * SZ-packed data (Sherman-Morrison), in place.
 *
 * Source: paper 000 (DistD2-TDS) §2.1 (periodic Thomas) and Table 3
 * ("Periodic Thomas", cached: read 1, write 1 per operand); the method,
 * its symbols and its failure modes are those of
 * reference/thomas_periodic_ref.c: A = B + u v^T with the shift
 * gamma = -b[0] (-1 where b[0] = 0),
 *
 *   B y = d,  B z = u = (gamma, 0, ..., 0, c[n-1]),
 *   x = y - (v.y) / (1 + v.z) z,   v = (1, 0, ..., 0, a[0] / gamma).
 *
 * Per group of SZ systems the two solves share one forward pass (one
 * pivot per row: B is the same matrix); y overwrites d, c' and z live in
 * a per-thread scratch of 2 n SZ values, and the correction is a third
 * pass over the group while it is in cache:
 *
 *   forward  (memory -> cache): p, c', y' into d, z'
 *   backward (cache):           y, z
 *   correct  (cache -> memory): x = y - f z
 *
 * Traffic: a, b, c, d read once, d written once: 5 words per unknown,
 * as for plain Thomas. About 20 flops per unknown, three of them
 * divisions: the reference's operations in the reference's order (see
 * periodic_group for why). n >= 3 (the 1x1 and 2x2 cases of the
 * reference are not vectorised).
 */
#ifndef TL_CPU_PASS
#include <math.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "tridlab/registry.h"

#define TL_CPU_SELF "optimized/cpu/thomas_periodic_cpu.c"
#include "optimized/layout/sz_passes.h"

static int check(size_t n, size_t nsys, size_t sz, const void *a, const void *b, const void *c,
                 const void *d, tl_info *info)
{
  TL_CALL(tl_cpu_check_sz(sz, "thomas_periodic_sz", info));
  if (!a || !b || !c || !d)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "thomas_periodic_sz: no array may be NULL");
  if (n < 3)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n",
                   "thomas_periodic_sz: n = %zu; the packed kernel needs n >= 3 (use the "
                   "reference for 1x1 and 2x2 cyclic systems)",
                   n);
  if (!tl_cpu_packed_count(n, nsys, sz))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nsys", "thomas_periodic_sz: nsys = %zu", nsys);
  return TL_OK;
}

int tl_cpu_thomas_periodic_sz_d(size_t n, size_t nsys, size_t sz, const double *a, const double *b,
                                const double *c, double *d, tl_info *info)
{
  TL_CALL(check(n, nsys, sz, a, b, c, d, info));
  TL_CPU_DISPATCH(sz, periodic_packed, d, n, nsys, a, b, c, d, info);
}

int tl_cpu_thomas_periodic_sz_f(size_t n, size_t nsys, size_t sz, const float *a, const float *b,
                                const float *c, float *d, tl_info *info)
{
  TL_CALL(check(n, nsys, sz, a, b, c, d, info));
  TL_CPU_DISPATCH(sz, periodic_packed, f, n, nsys, a, b, c, d, info);
}

/* ---------------------------------------------------------------- */
/* The registry backend "thomas_periodic_cpu"                         */

/* The reference (reference/thomas_periodic_ref.c), which decides every
 * batch the packed kernel does not take. */
extern const tl_algorithm tl_algo_thomas_periodic_ref;

/* The batch is solved group by group, each packed into a per-thread
 * scratch (periodic_lines), when every system is in the kernel's domain
 * (n >= 3, and the dominance test made on each packed group);
 * otherwise -- or if the kernel reports a breakdown -- the reference
 * solves the batch, so statuses, rows and messages are the reference's.
 * The kernel makes thomas_periodic's operations in its order, so the
 * results are the reference's (bit for bit where the compiler contracts
 * neither into fused multiply-adds). */
static int thomas_periodic_cpu_solve(const tl_algorithm *self, const tl_batch *sys, void *xv,
                                     const tl_options *opt, tl_info *info)
{
  (void)self;
  if (sys->dtype != TL_F64 || !sys->periodic)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, sys->periodic ? "dtype" : "periodic",
                   "thomas_periodic_cpu solves periodic float64 batches; use the reference");
  size_t n = sys->n, nsys = sys->nsys;
  const double *a = sys->a, *b = sys->b, *c = sys->c, *d = sys->d;
  int st = TL_ERR_BREAKDOWN;
  if (n >= 3) {
    size_t sz = tl_cpu_sz_default(n, sizeof(double));
    TL_CPU_DISPATCH_TO(st, sz, periodic_lines, d, n, nsys, a, b, c, d, xv);
    if (st == TL_ERR_NOMEM)
      return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_periodic_cpu: no memory");
  }
  if (st == TL_OK) {
    if (info) {
      tl_info_clear(info);
      info->status = TL_OK;
    }
    return TL_OK;
  }
  /* Outside the kernel's domain, or a breakdown: a non-finite entry shows
   * as either (it fails the dominance test or makes a lane's check sum
   * not finite), so tl_solve's entry check, skipped for this backend,
   * runs here first; then the reference decides. */
  TL_CALL(tl_check_entries(sys, 0, n, info));
  return tl_algo_thomas_periodic_ref.solve(&tl_algo_thomas_periodic_ref, sys, xv, opt, info);
}

const tl_algorithm tl_algo_thomas_periodic_cpu = {
    .name = "thomas_periodic_cpu",
    .reference = &tl_algo_thomas_periodic_ref, /* inherits family, classes, layouts, ... */
    .backend = "cpu",
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .summary = "periodic Thomas on SZ-packed groups, OpenMP threads; as thomas_periodic within "
               "eps-scaled ratios",
    .source = "paper 000 (DistD2-TDS) §2.1 (periodic Thomas), §4.1 (SZ-packed groups)",
    .solve = thomas_periodic_cpu_solve,
    .checks_entries = 1,
};

#else /* ---- one (precision, SZ) pass ---- */

/* One group in place. Returns the lanes whose check sum is not finite.
 *
 * The forward pass divides by the pivot, as the reference does, where
 * thomas_cpu.c multiplies by one reciprocal. On a Toeplitz system every
 * middle row has the same pivot, so a reciprocal rounds the same way in
 * every row and z[n-1] drifts by n eps (relative) instead of about eps;
 * y likewise. Sherman-Morrison's 1 + v.z and v.y cancel down to about
 * n eps when the cyclic matrix is nearly singular (cyclic [a, a (1 +
 * 2^-52), -0.089], a = 1e300, even n: cond 1.8e16), so that drift was
 * the whole denominator: with status ok, the forward-error ratio against
 * LAPACK reached 5.5 at n = 100 and 142 at n = 1750, where the
 * reference's stays below 1 (tests/test_forward.c). Row n-1's pivot takes
 * the reference's expression too, so the kernel computes what
 * thomas_periodic computes. The pivot's division was already on the
 * recurrence (as 1 / p); the other two are off it. */
TL_CPU_CLONES static uint64_t FN(periodic_group)(size_t n, const T *a, const T *b, const T *c, T *d,
                                                 T *cp, T *z)
{
  T chk[SZ], g[SZ], ag[SZ];
  const T *al = a + (n - 1) * SZ, *bl = b + (n - 1) * SZ, *cl = c + (n - 1) * SZ;
  /* Row 0 with the shifted diagonal b0 - gamma. */
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    g[l] = b[l] != 0 ? -b[l] : (T)-1;
    ag[l] = a[l] / g[l];
    T p = b[l] - g[l];
    cp[l] = c[l] / p;
    d[l] = d[l] / p;
    z[l] = g[l] / p;
    chk[l] = p;
  }
  /* Rows 1 .. n-2: u is zero there. */
  for (size_t i = 1; i + 1 < n; i++) {
    const T *ai = a + i * SZ, *bi = b + i * SZ, *ci = c + i * SZ;
    T *di = d + i * SZ, *cpi = cp + i * SZ, *zi = z + i * SZ;
    if (i + TL_CPU_PF_NEAR < n)
      TL_CPU_PREFETCH_ROW(a, b, c, d, i + TL_CPU_PF_NEAR, SZ);
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      T p = bi[l] - ai[l] * cpi[l - SZ];
      cpi[l] = ci[l] / p;
      di[l] = (di[l] - ai[l] * di[l - SZ]) / p;
      zi[l] = -ai[l] * zi[l - SZ] / p;
      chk[l] += p;
    }
  }
  /* Row n-1: B's diagonal b - a0 (c[n-1] / gamma), u = c[n-1]; no c'. */
  {
    T *dl = d + (n - 1) * SZ, *zl = z + (n - 1) * SZ;
    const T *cpm = cp + (n - 2) * SZ;
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      T p = (bl[l] - a[l] * (cl[l] / g[l])) - al[l] * cpm[l];
      dl[l] = (dl[l] - al[l] * dl[l - SZ]) / p;
      zl[l] = (cl[l] - al[l] * zl[l - SZ]) / p;
      chk[l] += p;
    }
  }
  for (size_t i = n - 1; i-- > 0;) {
    T *di = d + i * SZ, *zi = z + i * SZ;
    const T *cpi = cp + i * SZ;
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      di[l] -= cpi[l] * di[l + SZ];
      zi[l] -= cpi[l] * zi[l + SZ];
    }
  }
  /* Sherman-Morrison: f = (v.y) / (1 + v.z), then x = y - f z. */
  T f[SZ];
  const T *dl = d + (n - 1) * SZ, *zl = z + (n - 1) * SZ;
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    T den = 1 + z[l] + ag[l] * zl[l];
    f[l] = (d[l] + ag[l] * dl[l]) / den;
    chk[l] += den;
  }
  for (size_t i = 0; i < n; i++) {
    T *di = d + i * SZ;
    const T *zi = z + i * SZ;
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      di[l] -= f[l] * zi[l];
      chk[l] += di[l];
    }
  }
  uint64_t bad;
  TL_CPU_BAD_MASK(chk, SZ, bad);
  return bad;
}

/* Whether a flagged lane really broke down, and where: the pivots of B
 * (the reference's recurrence), then the Sherman-Morrison denominator
 * (row 0), then the first non-finite x. -1: only the check sum overflowed. */
static long FN(periodic_confirm)(size_t n, const T *a, const T *b, const T *c, const T *x)
{
  T g = b[0] != 0 ? -b[0] : (T)-1, cp = 0, p;
  for (size_t i = 0; i < n; i++) {
    size_t o = i * SZ;
    T bi = b[o];
    if (i == 0)
      bi -= g;
    if (i + 1 == n)
      bi -= a[0] * (c[o] / g);
    p = i ? bi - a[o] * cp : bi;
    if (p == 0 || !isfinite(p))
      return (long)i;
    cp = c[o] / p;
  }
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i * SZ]))
      return (long)i;
  return -1;
}

static int FN(periodic_packed)(size_t n, size_t nsys, const T *a, const T *b, const T *c, T *d,
                               tl_info *info)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  uint64_t *bad = tl_alloc(groups, sizeof *bad);
  if (!bad)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_periodic_sz: no memory");
  int nomem = 0;
#pragma omp parallel
  {
    size_t g0, g1;
    tl_cpu_my_share(groups, &g0, &g1);
    T *cp = g0 < g1 ? tl_cpu_scratch(2 * n * SZ, sizeof(T)) : NULL;
    if (cp) {
      for (size_t g = g0; g < g1; g++) {
        size_t o = g * n * SZ;
        bad[g] = FN(periodic_group)(n, a + o, b + o, c + o, d + o, cp, cp + n * SZ);
      }
    } else if (g0 < g1) {
#pragma omp atomic write
      nomem = 1;
    }
    free(cp);
  }
  int st = TL_OK;
  if (nomem)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_periodic_sz: no memory for scratch");
  for (size_t g = 0; g < groups && st == TL_OK; g++)
    for (size_t l = 0; l < SZ && g * SZ + l < nsys && st == TL_OK; l++) {
      if (!(bad[g] >> l & 1u))
        continue;
      size_t o = g * n * SZ + l;
      long row = FN(periodic_confirm)(n, a + o, b + o, c + o, d + o);
      if (row >= 0)
        st = TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(g * SZ + l), row, "",
                     "thomas_periodic_sz: zero or non-finite pivot, singular correction or "
                     "overflow at row %ld of system %zu",
                     row, g * SZ + l);
    }
  free(bad);
  return st;
}

#if !TL_CPU_FLOAT /* the registry backend solves float64 only */
/* Systems s0 .. s0+SZ-1 of a batch (lines of n values) to one packed
 * group in w (a, b, c, d: n SZ values each), padding lanes as identity. */
static TL_CPU_INLINE void FN(pack_lines)(size_t n, size_t valid, const T *const src[4], T *w)
{
  static const T pad[4] = {0, 1, 0, 0};
  for (int k = 0; k < 4; k++) {
    T *q = w + (size_t)k * n * SZ;
    size_t i0 = 0;
#ifdef TL_CPU_SHUFFLE
    if (valid == SZ) /* a full group: 8 lines x 8 rows per register transpose */
      for (; i0 + 8 <= n; i0 += 8)
        for (size_t l = 0; l < SZ; l += 8)
          tl_cpu_transpose8_d(src[k] + l * n + i0, n, q + i0 * SZ + l, SZ);
#endif
    for (size_t l = 0; l < SZ; l++)
      for (size_t i = i0; i < n; i++)
        q[i * SZ + l] = l < valid ? src[k][l * n + i] : pad[k];
  }
}

/* The inverse for x: line l of the group, row i = pd[i SZ + l]. */
static TL_CPU_INLINE void FN(unpack_lines)(size_t n, size_t valid, const T *pd, T *x)
{
  size_t i0 = 0;
#ifdef TL_CPU_SHUFFLE
  if (valid == SZ)
    for (; i0 + 8 <= n; i0 += 8)
      for (size_t l = 0; l < SZ; l += 8)
        tl_cpu_transpose8_d(pd + i0 * SZ + l, SZ, x + l * n + i0, n);
#endif
  for (size_t l = 0; l < valid; l++)
    for (size_t i = i0; i < n; i++)
      x[l * n + i] = pd[i * SZ + l];
}

/* 1 when every lane of a packed group (a, b, c at w) is strictly
 * diagonally dominant by rows, corners included: |b| - (|a| + |c|) > 0
 * in every row, tl_classes_d's test for a cyclic matrix, made while the
 * group is in cache. Then b[0] != 0, B = A - u v^T is dominant too
 * (|B[n-1][n-1]| >= |b[n-1]| - |a[0] c[n-1] / b[0]| > |a[n-1]|), and the
 * reference returns TL_OK unless it breaks down. A NaN fails the test;
 * padding lanes (b = 1, a = c = 0) pass. */
static TL_CPU_INLINE int FN(group_strict_dd)(size_t n, const T *w)
{
  const T *a = w, *b = w + n * SZ, *c = w + 2 * n * SZ;
  T fail[SZ] = {0};
  for (size_t i = 0; i < n; i++) {
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      size_t q = i * SZ + (size_t)l;
      T margin = fabs(b[q]) - (fabs(a[q]) + fabs(c[q]));
      fail[l] += margin > 0 ? 0 : 1;
    }
  }
  for (int l = 0; l < SZ; l++)
    if (fail[l] != 0)
      return 0;
  return 1;
}

/* The registry's batch layout, group by group: SZ systems packed into a
 * per-thread scratch (it stays in L2), solved there, unpacked into x.
 * Memory sees a, b, c, d read once and x written once; no copy of the
 * batch. TL_ERR_BREAKDOWN when any lane was flagged or a group is not
 * strictly dominant (the caller lets the reference decide), TL_ERR_NOMEM
 * without scratch. */
/* A thread's groups g0 .. g1-1 through its scratch w (6 n SZ values);
 * nonzero when one was flagged or is outside the kernel's domain. Built
 * for each vector width (TL_CPU_CLONES), the transposes included. */
TL_CPU_CLONES static uint64_t FN(periodic_share)(size_t n, size_t nsys, size_t g0, size_t g1,
                                                 const T *a, const T *b, const T *c, const T *d,
                                                 T *x, T *w)
{
  uint64_t bad = 0;
  for (size_t g = g0; g < g1; g++) {
    size_t o = g * SZ * n, valid = nsys - g * SZ < SZ ? nsys - g * SZ : SZ;
    const T *src[4] = {a + o, b + o, c + o, d + o};
    T *pd = w + 3 * n * SZ;
    FN(pack_lines)(n, valid, src, w);
    if (!FN(group_strict_dd)(n, w))
      return 1; /* outside the kernel's domain: the reference decides */
    bad |= FN(periodic_group)(n, w, w + n * SZ, w + 2 * n * SZ, pd, w + 4 * n * SZ, w + 5 * n * SZ);
    FN(unpack_lines)(n, valid, pd, x + o);
  }
  return bad;
}

static int FN(periodic_lines)(size_t n, size_t nsys, const T *a, const T *b, const T *c, const T *d,
                              T *x)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  int st = TL_OK;
#pragma omp parallel
  {
    size_t g0, g1;
    uint64_t bad = 0;
    tl_cpu_my_share(groups, &g0, &g1);
    T *w = g0 < g1 ? tl_cpu_scratch(6 * n * SZ, sizeof(T)) : NULL;
    if (w)
      bad = FN(periodic_share)(n, nsys, g0, g1, a, b, c, d, x, w);
    if ((g0 < g1 && !w) || bad) {
#pragma omp critical(tl_cpu_periodic_lines)
      st = st == TL_ERR_NOMEM || !w ? TL_ERR_NOMEM : TL_ERR_BREAKDOWN;
    }
    free(w);
  }
  return st;
}

#endif /* !TL_CPU_FLOAT */

#endif
