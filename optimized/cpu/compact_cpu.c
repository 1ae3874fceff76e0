/* optimized/cpu/compact_cpu.c -- the preprocessed constant-coefficient
 * solve of compact schemes with the right-hand side fused into the
 * forward pass, and the DistD2 decoupling and substitution phases, on
 * SZ-packed data.
 *
 * Source: paper 000 (DistD2-TDS) §4.2: Algorithm 5 (preprocessing, done
 * once per matrix by tl_distd2_plan_create_d of reference/distd2_ref.c),
 * Algorithm 6 (decoupling: the stencil of eq. (2) evaluated row by row
 * inside the forward pass, Figure 9), Figure 8 (the 2x2 systems),
 * Algorithm 7 (substitution). Symbols as in reference/distd2_ref.c:
 * f_j = fwd_scale, r_j = fwd_mul, w_j = bwd_mul, s^a = sa, s^c = sc,
 * stencil c_{-2..2} = st[0..4].
 *
 * The matrix is the same for every system, so the coefficients are n
 * scalars each, read from cache and broadcast to the SZ lanes; per
 * right-hand side only u is read and du written. Fused solve, one group
 * of SZ systems at a time while it is in cache (P = 1):
 *
 *   forward   y_j = f_j (d_j - r_j y_{j-1}),  d_j = st . u_{j-2..j+2}
 *                                      (reads u: memory; writes y in du)
 *   backward  y_j -= w_j y_{j+1}, j = n-3..1; y_0 = w_1' (y_0 - w_0 y_1)
 *   2x2       the corner system of the first and last unknowns (exact
 *             with one partition: the coupling it keeps is the periodic
 *             corner; for a plain system it is zero)
 *   substitute x_j = y_j - sa_j x_0 - sc_j x_{n-1}
 *
 * Traffic: read u, write du: 2 words per unknown (paper 000 Table 3,
 * "DistD2 decoupling phase", cached). About 21 flops per unknown. As for
 * Thomas (thomas_packed_cpu.c), a thread pipelines its groups: the backward
 * pass, 2x2 and substitution of group g (cache) run two rows per forward
 * row of group g+1 (memory).
 *
 * The phase functions (tl_cpu_distd2_*) do the same per partition on the
 * whole packed system, with the exchange in between left to the caller
 * (tl_cpu_distd2_solve_sz_d runs it in one address space, as the
 * reference does); they write d' to memory between the phases, as the
 * distributed algorithm must.
 */
#ifndef TL_CPU_PASS
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "tridlab/part_distd2.h"

/* What a group kernel needs from a plan, in the kernel's precision. */
typedef struct coef_d {
  const double *f, *r, *w, *sa, *sc;
  double fix;
} coef_d;
typedef struct coef_f {
  const float *f, *r, *w, *sa, *sc;
  float fix;
} coef_f;

#define TL_CPU_SELF "optimized/cpu/compact_cpu.c"
#include "optimized/layout/sz_passes.h"

static int check_plan(const tl_distd2_plan *plan, int p, size_t sz, const void *in, const void *out,
                      const char *who, tl_info *info)
{
  TL_CALL(tl_cpu_check_sz(sz, who, info));
  if (!plan || !plan->begin || !in || !out)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "%s: plan and arrays may not be NULL", who);
  if (p < 0 || p >= plan->parts)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "%s: partition %d of %d", who, p,
                   plan->parts);
  return TL_OK;
}

int tl_cpu_compact_sz_d(const tl_distd2_plan *plan, const double st[5], size_t nsys, size_t sz,
                        const double *u, double *du, tl_info *info)
{
  TL_CALL(check_plan(plan, 0, sz, u, du, "compact_sz", info));
  if (plan->parts != 1 || plan->n < 3 || !st || !tl_cpu_packed_count(plan->n, nsys, sz))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "plan",
                   "compact_sz: needs a one-partition plan of n >= 3 rows, a stencil and "
                   "nsys >= 1");
  coef_d k = {plan->fwd_scale, plan->fwd_mul, plan->bwd_mul,
              plan->sa,        plan->sc,      plan->fix_scale[0]};
  double s[5] = {st[0], st[1], st[2], st[3], st[4]};
  TL_CPU_DISPATCH(sz, compact_packed, d, plan->n, plan->periodic, &k, s, nsys, u, du, info);
}

int tl_cpu_compact_sz_f(const tl_distd2_plan *plan, const double st[5], size_t nsys, size_t sz,
                        const float *u, float *du, tl_info *info)
{
  TL_CALL(check_plan(plan, 0, sz, u, du, "compact_sz", info));
  if (plan->parts != 1 || plan->n < 3 || !st || !tl_cpu_packed_count(plan->n, nsys, sz))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "plan",
                   "compact_sz: needs a one-partition plan of n >= 3 rows, a stencil and "
                   "nsys >= 1");
  size_t n = plan->n;
  float *c = malloc(5 * n * sizeof *c);
  if (!c)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "compact_sz: no memory");
  const double *src[5] = {plan->fwd_scale, plan->fwd_mul, plan->bwd_mul, plan->sa, plan->sc};
  for (size_t q = 0; q < 5; q++)
    for (size_t j = 0; j < n; j++)
      c[q * n + j] = (float)src[q][j];
  coef_f k = {c, c + n, c + 2 * n, c + 3 * n, c + 4 * n, (float)plan->fix_scale[0]};
  float s[5] = {(float)st[0], (float)st[1], (float)st[2], (float)st[3], (float)st[4]};
  int status;
  TL_CPU_DISPATCH_TO(status, sz, compact_packed, f, n, plan->periodic, &k, s, nsys, u, du, info);
  free(c);
  return status;
}

/* ---------------------------------------------------------------- */
/* The DistD2 phases, once for both precisions                       */

/* The coefficients of partition p, as the kernels of precision fl read
 * them: the plan's own arrays for double; for float a copy rounded to
 * float, returned in *owned (release with free()). */
static int phase_coef(const tl_distd2_plan *plan, int p, int fl, coef_d *kd, coef_f *kf,
                      float **owned, tl_info *info)
{
  size_t k0 = plan->begin[p], m = plan->begin[p + 1] - k0;
  const double *src[5] = {plan->fwd_scale + k0, plan->fwd_mul + k0, plan->bwd_mul + k0,
                          plan->sa + k0, plan->sc + k0};
  *owned = NULL;
  if (!fl) {
    coef_d k = {src[0], src[1], src[2], src[3], src[4], plan->fix_scale[p]};
    *kd = k;
    return TL_OK;
  }
  float *c = malloc(5 * (m ? m : 1) * sizeof *c);
  if (!c)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2_sz: no memory");
  for (size_t q = 0; q < 5; q++)
    for (size_t j = 0; j < m; j++)
      c[q * m + j] = (float)src[q][j];
  coef_f k = {c, c + m, c + 2 * m, c + 3 * m, c + 4 * m, (float)plan->fix_scale[p]};
  *kf = k;
  *owned = c;
  return TL_OK;
}

/* Decoupling (Algorithm 6) of partition p in every group, either
 * precision: from d (st NULL) or from the halo uh (st given). */
static int decouple(const tl_distd2_plan *plan, int p, const double *st, size_t nsys, size_t sz,
                    int fl, const void *in, void *dt, tl_info *info)
{
  size_t k0 = plan->begin[p], m = plan->begin[p + 1] - k0, hrows = st ? m + 4 : 0;
  coef_d kd;
  coef_f kf;
  float *owned;
  TL_CALL(phase_coef(plan, p, fl, &kd, &kf, &owned, info));
  int status;
  if (fl) {
    TL_CPU_DISPATCH_TO(status, sz, decouple_packed, f, plan->n, k0, plan->row0 + k0, m, &kf, st,
                       nsys, in, hrows, dt, info);
  } else {
    TL_CPU_DISPATCH_TO(status, sz, decouple_packed, d, plan->n, k0, plan->row0 + k0, m, &kd, st,
                       nsys, in, hrows, dt, info);
  }
  free(owned);
  return status;
}

/* Substitution (Algorithm 7) of partition p in every group. */
static int substitute(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz, int fl, int nt,
                      const double *x_first, const double *x_last, const void *dt, void *x,
                      tl_info *info)
{
  size_t k0 = plan->begin[p], m = plan->begin[p + 1] - k0, n = plan->n;
  coef_d kd;
  coef_f kf;
  float *owned;
  TL_CALL(phase_coef(plan, p, fl, &kd, &kf, &owned, info));
  int status;
  if (fl) {
    TL_CPU_DISPATCH_TO(status, sz, substitute_packed, f, n, k0, plan->row0 + k0, m, &kf, nsys,
                       x_first, x_last, dt, x, 0, info);
  } else {
    TL_CPU_DISPATCH_TO(status, sz, substitute_packed, d, n, k0, plan->row0 + k0, m, &kd, nsys,
                       x_first, x_last, dt, x, nt, info);
  }
  free(owned);
  return status;
}

/* Partition p's halo: rows begin-2 .. end+1 of every group, wrapped when
 * periodic, zero outside otherwise; es bytes per value. */
static void halo(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz, size_t es,
                 const void *u, void *uh)
{
  size_t n = plan->n, k0 = plan->begin[p], m = plan->begin[p + 1] - k0;
  size_t groups = (nsys + sz - 1) / sz;
  long nn = (long)n;
  for (size_t g = 0; g < groups; g++)
    for (long j = -2; j < (long)m + 2; j++) {
      long i = (long)k0 + j;
      char *dst = (char *)uh + (g * (m + 4) + (size_t)(j + 2)) * sz * es;
      if (i < 0 || i >= nn) {
        if (!plan->periodic) {
          memset(dst, 0, sz * es);
          continue;
        }
        i = ((i % nn) + nn) % nn;
      }
      memcpy(dst, (const char *)u + (g * n + (size_t)i) * sz * es, sz * es);
    }
}

/* The edges partition p sends: its first and last rows of every system
 * (the right-hand sides widened to double for the 2x2 systems). */
static void pack(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz, int fl, const void *dt,
                 tl_distd2_edge *edges)
{
  size_t n = plan->n, first = plan->begin[p], last = plan->begin[p + 1] - 1;
  for (size_t s = 0; s < nsys; s++) {
    size_t base = (s / sz) * n * sz + s % sz;
    edges[s].first_lower = plan->sa[first];
    edges[s].first_upper = plan->sc[first];
    edges[s].last_lower = plan->sa[last];
    edges[s].last_upper = plan->sc[last];
    if (fl) {
      edges[s].first_rhs = ((const float *)dt)[base + first * sz];
      edges[s].last_rhs = ((const float *)dt)[base + last * sz];
    } else {
      edges[s].first_rhs = ((const double *)dt)[base + first * sz];
      edges[s].last_rhs = ((const double *)dt)[base + last * sz];
    }
  }
}

/* All phases for a batch, either precision: decouple and pack every
 * partition, the 2x2 systems across the interfaces in double, substitute;
 * then the reference's verdict on the largest dropped coupling. */
static int solve(const tl_distd2_plan *plan, size_t nsys, size_t sz, int fl, const void *d, void *x,
                 double tol, tl_info *info)
{
  TL_CALL(check_plan(plan, 0, sz, d, x, "distd2_solve_sz", info));
  int P = plan->parts, status = TL_OK;
  size_t n = plan->n, cnt = tl_cpu_packed_count(n, nsys, sz);
  if (!cnt)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nsys", "distd2_solve_sz: nsys = %zu", nsys);
  void *dt = tl_cpu_scratch(cnt, fl ? sizeof(float) : sizeof(double));
  tl_distd2_edge *edge = tl_alloc((size_t)P * nsys, sizeof *edge);
  double *xs = tl_alloc((size_t)P * nsys, sizeof *xs), *xe = tl_alloc((size_t)P * nsys, sizeof *xe);
  if (!dt || !edge || !xs || !xe) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2_solve_sz: no memory");
    goto cleanup;
  }
  /* Phase 1: every partition decouples (all systems) and packs its edges. */
  for (int p = 0; p < P; p++) {
    TL_CHECK(decouple(plan, p, NULL, nsys, sz, fl, d, dt, info));
    pack(plan, p, nsys, sz, fl, dt, edge + (size_t)p * nsys);
  }
  /* Phase 2: the 2x2 systems across interfaces, per system. */
  double dropped = 0.0, kappa = 1.0;
  long drop_row = -1;
  for (int p = 0; p < P; p++) {
    int q = (p + 1) % P;
    long row = (long)plan->begin[p + 1] - 1;
    for (size_t s = 0; s < nsys; s++) {
      double dp, kp;
      tl_info one;
      tl_info_clear(&one);
      int st = tl_distd2_interface_d(&edge[(size_t)p * nsys + s], &edge[(size_t)q * nsys + s],
                                     P == 1, &xe[(size_t)p * nsys + s], &xs[(size_t)q * nsys + s],
                                     &dp, &kp, row, &one);
      if (st < 0) {
        if (info) {
          *info = one;
          info->system = (long)s;
        }
        status = st;
        goto cleanup;
      }
      if (drop_row < 0 || dp > dropped) {
        dropped = dp;
        drop_row = row;
      }
      kappa = fmax(kappa, kp);
    }
  }
  /* Phase 3: every partition substitutes. */
  for (int p = 0; p < P; p++)
    TL_CHECK(substitute(plan, p, nsys, sz, fl, 0, xs + (size_t)p * nsys, xe + (size_t)p * nsys, dt,
                        x, info));
  status = tl_distd2_verdict(plan, dropped, drop_row, kappa, tol, info);
cleanup:
  free(dt);
  free(edge);
  free(xs);
  free(xe);
  return status;
}

/* The public entry points: arguments checked, then the shared bodies. */
int tl_cpu_distd2_decouple_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                const double *d, double *dt, tl_info *info)
{
  TL_CALL(check_plan(plan, p, sz, d, dt, "distd2_decouple_sz", info));
  return decouple(plan, p, NULL, nsys, sz, 0, d, dt, info);
}

int tl_cpu_distd2_decouple_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                const float *d, float *dt, tl_info *info)
{
  TL_CALL(check_plan(plan, p, sz, d, dt, "distd2_decouple_sz", info));
  return decouple(plan, p, NULL, nsys, sz, 1, d, dt, info);
}

int tl_cpu_distd2_decouple_stencil_sz_d(const tl_distd2_plan *plan, int p, const double st[5],
                                        size_t nsys, size_t sz, const double *uh, double *dt,
                                        tl_info *info)
{
  TL_CALL(check_plan(plan, p, sz, uh, dt, "distd2_decouple_stencil_sz", info));
  if (!st)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "st", "distd2_decouple_stencil_sz: no stencil");
  return decouple(plan, p, st, nsys, sz, 0, uh, dt, info);
}

int tl_cpu_distd2_decouple_stencil_sz_f(const tl_distd2_plan *plan, int p, const double st[5],
                                        size_t nsys, size_t sz, const float *uh, float *dt,
                                        tl_info *info)
{
  TL_CALL(check_plan(plan, p, sz, uh, dt, "distd2_decouple_stencil_sz", info));
  if (!st)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "st", "distd2_decouple_stencil_sz: no stencil");
  return decouple(plan, p, st, nsys, sz, 1, uh, dt, info);
}

void tl_cpu_distd2_halo_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const double *u, double *uh)
{
  halo(plan, p, nsys, sz, sizeof *u, u, uh);
}

void tl_cpu_distd2_halo_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const float *u, float *uh)
{
  halo(plan, p, nsys, sz, sizeof *u, u, uh);
}

void tl_cpu_distd2_pack_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const double *dt, tl_distd2_edge *edges)
{
  pack(plan, p, nsys, sz, 0, dt, edges);
}

void tl_cpu_distd2_pack_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const float *dt, tl_distd2_edge *edges)
{
  pack(plan, p, nsys, sz, 1, dt, edges);
}

int tl_cpu_distd2_substitute_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                  const double *x_first, const double *x_last, const double *dt,
                                  double *x, tl_info *info)
{
  TL_CALL(check_plan(plan, p, sz, dt, x, "distd2_substitute_sz", info));
  if (!x_first || !x_last)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_substitute_sz: no end values");
  return substitute(plan, p, nsys, sz, 0, 0, x_first, x_last, dt, x, info);
}

int tl_cpu_distd2_substitute_stream_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                         const double *x_first, const double *x_last,
                                         const double *dt, double *x, tl_info *info)
{
  TL_CALL(check_plan(plan, p, sz, dt, x, "distd2_substitute_stream_sz", info));
  if (!x_first || !x_last)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_substitute_stream_sz: no end values");
  /* A group's m rows of SZ values are contiguous in x and written in
   * order, so the write-combining buffer joins the 16-byte pieces into
   * whole lines, all but the group's first and last where x is not on a
   * line (as tl_cpu_stream_abcdx_d writes x). */
  int nt = TL_CPU_NT && x != dt && (uintptr_t)x % 16 == 0;
  return substitute(plan, p, nsys, sz, 0, nt, x_first, x_last, dt, x, info);
}

int tl_cpu_distd2_substitute_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                  const double *x_first, const double *x_last, const float *dt,
                                  float *x, tl_info *info)
{
  TL_CALL(check_plan(plan, p, sz, dt, x, "distd2_substitute_sz", info));
  if (!x_first || !x_last)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_substitute_sz: no end values");
  return substitute(plan, p, nsys, sz, 1, 0, x_first, x_last, dt, x, info);
}

int tl_cpu_distd2_solve_sz_d(const tl_distd2_plan *plan, size_t nsys, size_t sz, const double *d,
                             double *x, double tol, tl_info *info)
{
  return solve(plan, nsys, sz, 0, d, x, tol, info);
}

int tl_cpu_distd2_solve_sz_f(const tl_distd2_plan *plan, size_t nsys, size_t sz, const float *d,
                             float *x, double tol, tl_info *info)
{
  return solve(plan, nsys, sz, 1, d, x, tol, info);
}

#else /* ---- one (precision, SZ) pass ---- */

#if TL_CPU_FLOAT
#define COEF coef_f
#else
#define COEF coef_d
#endif

/* y = s0 r0 + s1 r1 + s2 r2 + s3 r3 + s4 r4 over the SZ lanes. */
static TL_CPU_INLINE void FN(stencil_row)(const T *s, const T *r0, const T *r1, const T *r2,
                                          const T *r3, const T *r4, T *y)
{
  T s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4];
#pragma omp simd
  for (int l = 0; l < SZ; l++)
    y[l] = s0 * r0[l] + s1 * r1[l] + s2 * r2[l] + s3 * r3[l] + s4 * r4[l];
}

/* Algorithm 6's forward step on row j of a group into y: y_{j-1} is
 * carried in yc (registers) rather than read back from y, which would put
 * a store-to-load forwarding delay into the recurrence of every row (as
 * in compact_forward). */
static TL_CPU_INLINE void FN(forward_row)(const COEF *k, size_t j, const T *rhs, T *y, T *yc)
{
  T fj = k->f[j], rj = k->r[j];
  if (j < 2) {
#pragma omp simd
    for (int l = 0; l < SZ; l++)
      y[j * SZ + l] = yc[l] = fj * rhs[l];
  } else {
#pragma omp simd
    for (int l = 0; l < SZ; l++)
      y[j * SZ + l] = yc[l] = fj * (rhs[l] - rj * yc[l]);
  }
}

/* Algorithm 6 lines 13-20 on the m rows of y, y_{j+1} carried in yb, and
 * each lane's sum of the final y into chk. */
static TL_CPU_INLINE void FN(backward_rows)(const COEF *k, size_t m, T *y, T *chk)
{
  T yb[SZ]; /* m >= 2 (the plans' smallest partition); rows m-2 and m-1 stay */
  for (int l = 0; l < SZ; l++) {
    yb[l] = y[(m - 2) * SZ + l];
    chk[l] = y[(m - 1) * SZ + l] + yb[l];
  }
  for (size_t j = m - 2; j-- > 1;) {
    T wj = k->w[j];
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      y[j * SZ + l] = yb[l] = y[j * SZ + l] - wj * yb[l];
      chk[l] += yb[l];
    }
  }
  if (m >= 3) {
    T w0 = k->w[0], fix = k->fix;
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      y[l] = fix * (y[l] - w0 * yb[l]);
      chk[l] += y[l];
    }
  }
}

/* Row j of x from v (SZ values) by streaming stores, 16 bytes at a time
 * (double; elsewhere never asked for). */
static TL_CPU_INLINE void FN(stream_row)(T *xj, const T *v)
{
#if TL_CPU_NT && !TL_CPU_FLOAT
  for (int l = 0; l < SZ; l += 2)
    _mm_stream_pd(xj + l, _mm_loadu_pd(v + l));
#else
  memcpy(xj, v, SZ * sizeof *v);
#endif
}

/* Algorithm 7 on the m rows: x_j = y_j - sa_j xf - sc_j xl (x may be y);
 * nt: x (apart from y, on cache lines) written by streaming stores. */
static TL_CPU_INLINE void FN(substitute_rows)(const COEF *k, size_t m, const T *xf, const T *xl,
                                              const T *y, T *x, T *chk, int nt)
{
  for (size_t j = 0; j < m; j++) {
    T saj = k->sa[j], scj = k->sc[j];
    const T *yj = y + j * SZ;
    T *xj = x + j * SZ;
    if (j == 0 || j + 1 == m) {
      const T *v = j == 0 ? xf : xl;
#pragma omp simd
      for (int l = 0; l < SZ; l++)
        chk[l] += v[l];
      if (nt)
        FN(stream_row)(xj, v);
      else
        memcpy(xj, v, SZ * sizeof *v);
    } else if (nt) {
      T v[SZ];
#pragma omp simd
      for (int l = 0; l < SZ; l++) {
        v[l] = yj[l] - saj * xf[l] - scj * xl[l];
        chk[l] += v[l];
      }
      FN(stream_row)(xj, v);
    } else {
#pragma omp simd
      for (int l = 0; l < SZ; l++) {
        xj[l] = yj[l] - saj * xf[l] - scj * xl[l];
        chk[l] += xj[l];
      }
    }
  }
}

/* Forward row j of the fused solve of one group: the stencil on rows
 * j-2 .. j+2 of u (wrapped, or zero outside), then Algorithm 6's forward
 * step into y (= du). */
static TL_CPU_INLINE void FN(compact_forward)(size_t n, int periodic, const COEF *k, const T *s,
                                              size_t j, const T *u, T *y, T *yc)
{
  static const T zero[SZ];
  const T *rows[5];
  T rhs[SZ];
  if (j >= 2 && j + 2 < n) {
    for (int q = 0; q < 5; q++)
      rows[q] = u + (j + (size_t)q - 2) * SZ;
  } else {
    for (int q = 0; q < 5; q++) { /* rows j-2 .. j+2: wrapped, or zero outside */
      long i = (long)j + q - 2;
      if (i >= 0 && i < (long)n)
        rows[q] = u + (size_t)i * SZ;
      else if (periodic)
        rows[q] = u + (size_t)((i + (long)n) % (long)n) * SZ;
      else
        rows[q] = zero;
    }
  }
  if (j + TL_CPU_PF_NEAR < n)
    for (size_t c = 0; c < SZ; c += 64 / sizeof(T)) {
      TL_CPU_PREFETCH(u + (j + TL_CPU_PF_NEAR) * SZ + c, 0);
      TL_CPU_PREFETCH(y + (j + TL_CPU_PF_NEAR) * SZ + c, 1);
    }
  FN(stencil_row)(s, rows[0], rows[1], rows[2], rows[3], rows[4], rhs);
  /* Algorithm 6's forward step; y_{j-1} is carried in yc (registers)
   * rather than read back from y, which would put a store-to-load
   * forwarding delay into the recurrence of every row. */
  T fj = k->f[j], rj = k->r[j];
  T *yj = y + j * SZ;
  if (j < 2) {
#pragma omp simd
    for (int l = 0; l < SZ; l++)
      yj[l] = yc[l] = fj * rhs[l];
  } else {
#pragma omp simd
    for (int l = 0; l < SZ; l++)
      yj[l] = yc[l] = fj * (rhs[l] - rj * yc[l]);
  }
}

/* What follows the forward pass of a group, cut into 2n units so that
 * it can run two units per forward step of the next group: units 0..n-1
 * are the backward pass (row n-1-unit; rows n-1 and n-2 have nothing to
 * do), the last of them also solves the corner 2x2; units n..2n-1 are
 * the substitution of row unit-n. */
static TL_CPU_INLINE void FN(compact_unit)(size_t n, const COEF *k, size_t unit, T *y, T *chk,
                                           T *xf, T *xl, T *yb)
{
  if (unit < n) {
    size_t j = n - 1 - unit;
    /* yb carries y_{j+1} of the recurrence in registers (see
     * compact_forward). */
    if (j >= 1 && j + 2 < n) {
      T wj = k->w[j];
#pragma omp simd
      for (int l = 0; l < SZ; l++)
        y[j * SZ + l] = yb[l] = y[j * SZ + l] - wj * yb[l];
    } else if (j + 2 == n) {
#pragma omp simd
      for (int l = 0; l < SZ; l++)
        yb[l] = y[j * SZ + l];
    } else if (j == 0) {
      T w0 = k->w[0], fix = k->fix;
      T alpha = k->sc[n - 1] + k->sa[n - 1], beta = k->sa[0] + k->sc[0];
      T det = 1 - alpha * beta;
      const T *yl = y + (n - 1) * SZ;
#pragma omp simd
      for (int l = 0; l < SZ; l++) {
        y[l] = fix * (y[l] - w0 * yb[l]);
        /* the corner 2x2 (nothing dropped with one partition) */
        xf[l] = (y[l] - beta * yl[l]) / det;
        xl[l] = yl[l] - alpha * xf[l];
        chk[l] = det;
      }
    }
    return;
  }
  size_t j = unit - n;
  T *yj = y + j * SZ;
  if (j == 0 || j + 1 == n) {
    const T *v = j == 0 ? xf : xl;
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      yj[l] = v[l];
      chk[l] += v[l];
    }
  } else {
    T saj = k->sa[j], scj = k->sc[j];
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      yj[l] = yj[l] - saj * xf[l] - scj * xl[l];
      chk[l] += yj[l];
    }
  }
}

/* A thread's groups g0..g1-1 as a software pipeline, as for Thomas
 * (thomas_packed_cpu.c): while the forward pass of group g+1 streams its u from
 * memory, the backward pass, the 2x2 and the substitution of group g run
 * on data in cache, two units per forward row. */
TL_CPU_CLONES static void FN(compact_pipeline)(size_t n, int periodic, const COEF *k, const T *s,
                                               size_t g0, size_t g1, const T *u, T *du,
                                               uint64_t *bad)
{
  T chk[SZ], xf[SZ], xl[SZ], yc[SZ], yb[SZ];
  size_t stride = n * SZ;
  if (g0 >= g1)
    return;
  for (size_t j = 0; j < n; j++)
    FN(compact_forward)(n, periodic, k, s, j, u + g0 * stride, du + g0 * stride, yc);
  for (size_t g = g0; g < g1; g++) {
    T *y = du + g * stride;
    if (g + 1 < g1) {
      const T *un = u + (g + 1) * stride;
      T *yn = du + (g + 1) * stride;
      for (size_t j = 0; j < n; j++) {
        FN(compact_unit)(n, k, 2 * j, y, chk, xf, xl, yb);
        FN(compact_unit)(n, k, 2 * j + 1, y, chk, xf, xl, yb);
        FN(compact_forward)(n, periodic, k, s, j, un, yn, yc);
      }
    } else {
      for (size_t unit = 0; unit < 2 * n; unit++)
        FN(compact_unit)(n, k, unit, y, chk, xf, xl, yb);
    }
    TL_CPU_BAD_MASK(chk, SZ, bad[g]);
  }
}

/* The first row of lane l whose value is not finite, or -1. */
static long FN(first_nonfinite)(size_t m, const T *x, size_t l)
{
  for (size_t j = 0; j < m; j++)
    if (!isfinite(x[j * SZ + l]))
      return (long)j;
  return -1;
}

static int FN(compact_packed)(size_t n, int periodic, const COEF *k, const T *s, size_t nsys,
                              const T *u, T *du, tl_info *info)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  uint64_t *bad = tl_alloc(groups, sizeof *bad);
  if (!bad)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "compact_sz: no memory");
#pragma omp parallel
  {
    size_t g0, g1;
    tl_cpu_my_share(groups, &g0, &g1);
    FN(compact_pipeline)(n, periodic, k, s, g0, g1, u, du, bad);
  }
  int st = TL_OK;
  for (size_t g = 0; g < groups && st == TL_OK; g++)
    for (size_t l = 0; l < SZ && g * SZ + l < nsys && st == TL_OK; l++) {
      if (!(bad[g] >> l & 1u))
        continue;
      /* A non-finite value, else a singular corner 2x2, else only the
       * check sum overflowed. */
      long row = FN(first_nonfinite)(n, du + g * n * SZ, l);
      T det = 1 - (k->sc[n - 1] + k->sa[n - 1]) * (k->sa[0] + k->sc[0]);
      if (row < 0 && det != 0 && isfinite(det))
        continue;
      st = TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(g * SZ + l), row < 0 ? 0 : row, "",
                   "compact_sz: %s at row %ld of system %zu",
                   row < 0 ? "singular corner 2x2 system" : "overflow", row < 0 ? 0 : row,
                   g * SZ + l);
    }
  free(bad);
  return st;
}

/* The DistD2 phases (both precisions). */

/* After a phase on group g (m rows at y): the lowest system of the batch
 * with a value that is not finite, and its global row, kept in *bad_sys,
 * *bad_row across the threads. Lanes whose check sum chk is finite are
 * skipped (chk NULL: every lane is searched). */
static void FN(note_nonfinite)(size_t m, const T *y, const T *chk, size_t g, size_t nsys, size_t k0,
                               long *bad_sys, long *bad_row)
{
  for (size_t l = 0; l < SZ && g * SZ + l < nsys; l++) {
    if (chk && chk[l] - chk[l] == 0)
      continue;
    long row = FN(first_nonfinite)(m, y, l);
    if (row < 0)
      continue;
#pragma omp critical(tl_cpu_distd2_bad)
    if (*bad_sys < 0 || (long)(g * SZ + l) < *bad_sys) {
      *bad_sys = (long)(g * SZ + l);
      *bad_row = (long)k0 + row;
    }
    return; /* lanes are in system order: the group's lowest is found */
  }
}

/* Decoupling of one group (Algorithm 6 on its m rows into y): the
 * right-hand side row by row from in (the packed d; or, s not NULL, the
 * stencil s on the packed halo, rows j .. j+4 = u[k0+j-2 .. k0+j+2]),
 * and each lane's sum of y into chk, which note_nonfinite reads.
 *
 * WHY A FUNCTION OF ITS OWN. The body of an OpenMP loop is outlined by
 * the compiler into a function of its own, which target_clones does not
 * reach: inside decouple_packed's loop these rows were built for the
 * baseline x86-64 (two doubles per SSE2 instruction) and took 2.2-2.5
 * times the fused kernel's time (distd2_compact at P = 1, 4096 x 4096,
 * on an Intel AVX-512 machine). Called from the loop, this one is
 * built for the machine's vectors, as compact_pipeline is. */
TL_CPU_CLONES static void FN(decouple_group)(const COEF *k, size_t m, const T *s, const T *in, T *y,
                                             T *chk)
{
  T rhs[SZ], yc[SZ];
  for (size_t j = 0; j < m; j++) {
    const T *r = in + j * SZ;
    if (j + TL_CPU_PF_NEAR < m) /* as compact_forward: the rows ahead, and y's */
      for (size_t c = 0; c < SZ; c += 64 / sizeof(T)) {
        TL_CPU_PREFETCH(r + TL_CPU_PF_NEAR * SZ + c, 0);
        TL_CPU_PREFETCH(y + (j + TL_CPU_PF_NEAR) * SZ + c, 1);
      }
    if (s) {
      FN(stencil_row)(s, r, r + SZ, r + 2 * SZ, r + 3 * SZ, r + 4 * SZ, rhs);
      r = rhs;
    }
    FN(forward_row)(k, j, r, y, yc);
  }
  FN(backward_rows)(k, m, y, chk);
}

/* Decoupling of partition [k0, k0 + m) in every group. in: d (the whole
 * packed system, n rows per group) when st is NULL, else the packed
 * halo (hrows = m + 4 rows per group). g0: the global row of row k0, for
 * reports (k0 itself, unless the plan holds a slice of a larger system). */
static int FN(decouple_packed)(size_t n, size_t k0, size_t g0, size_t m, const COEF *k,
                               const double *st, size_t nsys, const T *in, size_t hrows, T *dt,
                               tl_info *info)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  T s[5] = {0, 0, 0, 0, 0};
  if (st)
    for (int q = 0; q < 5; q++)
      s[q] = (T)st[q];
  long bad_sys = -1, bad_row = -1;
#pragma omp parallel for schedule(static)
  for (size_t g = 0; g < groups; g++) {
    T *y = dt + (g * n + k0) * SZ, chk[SZ];
    const T *r = st ? in + g * hrows * SZ : in + (g * n + k0) * SZ;
    FN(decouple_group)(k, m, st ? s : NULL, r, y, chk);
    FN(note_nonfinite)(m, y, chk, g, nsys, g0, &bad_sys, &bad_row);
  }
  if (bad_sys >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, bad_sys, bad_row, "",
                   "distd2: overflow in the decoupling phase at row %ld of system %ld", bad_row,
                   bad_sys);
  return TL_OK;
}

/* Algorithm 7 on one group, x_first and x_last of its systems (those past
 * nsys: 0); built for the machine's vectors (decouple_group says why). */
TL_CPU_CLONES static void FN(substitute_group)(const COEF *k, size_t m, size_t s0, size_t nsys,
                                               const double *x_first, const double *x_last,
                                               const T *y, T *x, T *chk, int nt)
{
  T xf[SZ], xl[SZ];
  for (size_t l = 0; l < SZ; l++) {
    size_t s = s0 + l;
    xf[l] = s < nsys ? (T)x_first[s] : 0;
    xl[l] = s < nsys ? (T)x_last[s] : 0;
    chk[l] = 0;
  }
  FN(substitute_rows)(k, m, xf, xl, y, x, chk, nt);
}

static int FN(substitute_packed)(size_t n, size_t k0, size_t g0, size_t m, const COEF *k,
                                 size_t nsys, const double *x_first, const double *x_last,
                                 const T *dt, T *x, int nt, tl_info *info)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  long bad_sys = -1, bad_row = -1;
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (size_t g = 0; g < groups; g++) {
      T chk[SZ];
      size_t o = (g * n + k0) * SZ;
      FN(substitute_group)(k, m, g * SZ, nsys, x_first, x_last, dt + o, x + o, chk, nt);
      FN(note_nonfinite)(m, x + o, chk, g, nsys, g0, &bad_sys, &bad_row);
    }
    if (nt) /* each thread's streaming stores ordered before the region ends */
      tl_cpu_stream_fence();
  }
  if (bad_sys >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, bad_sys, bad_row, "",
                   "distd2: overflow in the substitution at row %ld of system %ld", bad_row,
                   bad_sys);
  return TL_OK;
}

#undef COEF
#endif
