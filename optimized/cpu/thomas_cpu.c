/* optimized/cpu/thomas_cpu.c -- batched Thomas at the memory-bandwidth
 * limit: SZ-packed groups, x/y/z lines of Cartesian arrays, the registry
 * backend "thomas_cpu", and the no-reordering baseline.
 *
 * Source: paper 000 (DistD2-TDS) §2.1 Algorithm 1 (Thomas), §4.1 (the
 * SZ-packed data structure, Figures 6 and 7), §5.1 and Table 3 (data
 * movement of a cached implementation: read 1, write 1 domain-sized
 * array per operand). reference/thomas_ref.c is the readable version of
 * the recurrence; the symbols are the same (cp = c', dp = d').
 *
 * A GROUP is SZ systems solved together: the loop over the SZ systems is
 * the inner, vectorised (`omp simd`) loop; the recurrence runs down the
 * rows. With SZ = 4 and rows r0, r1, ...:
 *
 *   memory:  [a r0: s0 s1 s2 s3][a r1: s0 s1 s2 s3] ...   (same for b, c, d)
 *   forward: row i of all 4 systems at once, from row i-1:
 *            p = b_i - a_i cp_{i-1};  cp_i = c_i / p;  dp_i = (d_i - a_i dp_{i-1}) / p
 *   backward: x_i = dp_i - cp_i x_{i+1}, row i of all 4 systems at once
 *
 * Traffic (the byte model of docs/performance.md): a, b, c and d are read
 * once and x written once, 5 words per unknown. cp (and dp where it is
 * not kept in x) live in a per-thread scratch of n SZ values that stays
 * in the core's L2 cache between the forward and the backward pass
 * (paper 000 §4.1: "temporal locality between the forward and backward
 * passes"), so they add no memory traffic while 2 n SZ values fit
 * (tl_cpu_sz_default keeps them under 512 KiB; larger n still works, it
 * only moves more bytes).
 *
 * Three ways to reach a group's rows, one recurrence (row_first, row_next,
 * row_back below):
 *   packed   the SZ-packed layout: row i of a group is a + (g n + i) SZ
 *   lanes    y and z lines of a Cartesian array: the SZ systems of a
 *            group are adjacent in x, row i is a + base + i stride
 *   rows     x lines (and tridlab's batch layout): each system is a
 *            contiguous line; XT rows (64 bytes) of the SZ lines are
 *            transposed into a small tile in L1 before the forward pass
 *            and back after the backward pass
 *
 * A software pipeline over the groups of a thread keeps memory busy: the
 * forward pass of group g+1 (memory) runs in the same loop as the
 * backward pass of group g (cache), one row (or tile) of each per step,
 * and both share one scratch (packed_pipeline, cart_pipeline). Software
 * prefetch runs 16 rows ahead of the forward pass (packed, lanes) or one
 * chunk of 256 rows ahead (rows, rows_prefetch). The functions that
 * hold the loops are built for SSE2, AVX2 and AVX-512 (TL_CPU_CLONES).
 *
 * Breakdown: every lane adds up its pivots and its results, one add per
 * value; the sum is not finite as soon as a pivot or a result is not
 * finite (a zero pivot always makes some x infinite or NaN). A lane whose
 * sum is not finite is checked with the reference recurrence
 * (tl_cpu_breakdown_row_*), which gives the row, or finds that only the
 * sum overflowed (then the lane is fine).
 *
 * One recurrence: one reciprocal per row, then two multiplications, as
 * paper 000 Algorithm 1. The registry backend ("thomas_cpu", lines along
 * x) also records, in the tiles it reads anyway, what tl_solve would
 * have checked in passes of its own: non-zero corners and each lane's
 * dominance margins (FN(dom) below); a flagged system is then handed to
 * tl_check_entries and the reference, which give its status.
 */
#ifndef TL_CPU_PASS
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "tridlab/algorithms.h"

#define TL_CPU_SELF "thomas_cpu.c"
#include "cpu_passes.h"

/* ---------------------------------------------------------------- */
/* Public entry points                                               */

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

int tl_cpu_thomas_3d_d(const size_t dims[3], tl_dir dir, size_t sz, const double *a,
                       const double *b, const double *c, const double *d, double *x, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_check_sz(sz, "thomas_3d", info));
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_3d", info));
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  TL_CPU_DISPATCH(sz, thomas_cart, d, dims, dir, a, b, c, d, x, NULL, info);
}

int tl_cpu_thomas_3d_f(const size_t dims[3], tl_dir dir, size_t sz, const float *a, const float *b,
                       const float *c, const float *d, float *x, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_check_sz(sz, "thomas_3d", info));
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_3d", info));
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  TL_CPU_DISPATCH(sz, thomas_cart, f, dims, dir, a, b, c, d, x, NULL, info);
}

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

/* ---------------------------------------------------------------- */
/* The registry backend                                              */

/* The group size of the registry backend: tl_cpu_sz_lines (one 64-byte
 * vector of each row, 8 doubles: the fewest lines read at once, best when
 * the batch streams from memory), but 16 for a batch that fits in cache
 * (5 arrays of at most 2 MiB together), where two chains of dependent
 * divisions per row hide each other's latency (docs/performance.md). */
static size_t registry_sz(size_t n, size_t nsys)
{
  if (nsys <= ((size_t)2 << 20) / (5 * sizeof(double)) / n)
    return 16;
  return tl_cpu_sz_lines(n, sizeof(double));
}

int tl_cpu_thomas_lines_d(size_t n, size_t nsys, const double *a, const double *b,
                          const double *c, const double *d, double *x, unsigned char *flag,
                          tl_info *info)
{
  size_t dims[3] = {n, nsys, 1};
  if (!n || !nsys)
    return TL_OK;
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_lines", info));
  if (!flag)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "flag", "thomas_lines: flag may not be NULL");
  int st;
  TL_CPU_DISPATCH_TO(st, registry_sz(n, nsys), thomas_cart, d, dims, TL_DIR_X, a, b, c, d, x, flag,
                     info);
  return st;
}

/* 1 when the kernel flagged a system that may hold a non-finite entry or
 * a non-zero corner (redo 1 or 3): only then are the entries scanned. */
static int suspect(const unsigned char *redo, size_t nsys)
{
  for (size_t s = 0; s < nsys; s++)
    if (redo[s] == 1 || redo[s] == 3)
      return 1;
  return 0;
}

/* The reference solves the systems the kernel flagged, in order, and
 * gives their statuses, rows and messages; the statuses combine as in
 * tl_for_each_system: the first error stops, else the first
 * outside-domain warning is reported. */
static int redo_flagged(const tl_batch *sys, double *x, const unsigned char *redo, tl_info *info)
{
  size_t n = sys->n, nsys = sys->nsys;
  const double *a = sys->a, *b = sys->b, *c = sys->c, *d = sys->d;
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    if (!redo[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    size_t o = s * n;
    int st = tl_thomas_ref_d(n, a + o, b + o, c + o, d + o, x + o, &one);
    tl_outcome_add(&out, s, st, &one);
  }
  return tl_outcome_finish(&out, info);
}

/* The batch through the x-line kernel (an n x nsys x 1 array), which
 * also checks, in the tiles it reads, what tl_solve would have checked
 * first (finite entries, zero corners: the algorithm declares
 * checks_entries) and each system's dominance margins. Only when a
 * system is flagged does anything read the data again: tl_check_entries
 * to report a bad entry as tl_solve reports it, then the reference for
 * every flagged system (breakdown, outside the dominance classes: the
 * reference decides, symmetric positive definite included). */
static int thomas_cpu_solve(const tl_algorithm *self, const tl_batch *sys, void *xv,
                            const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  if (sys->dtype != TL_F64 || sys->periodic)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, sys->periodic ? "periodic" : "dtype",
                   "thomas_cpu solves non-periodic float64 batches; use the reference");
  size_t n = sys->n, nsys = sys->nsys;
  unsigned char *redo = tl_alloc(nsys, 1);
  if (!redo)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_cpu: no memory");
  int st = tl_cpu_thomas_lines_d(n, nsys, sys->a, sys->b, sys->c, sys->d, xv, redo, info);
  if (st >= 0 && suspect(redo, nsys))
    st = tl_check_entries(sys, 0, n, info);
  if (st >= 0)
    st = redo_flagged(sys, xv, redo, info);
  free(redo);
  return st;
}

const tl_algorithm tl_algo_thomas_cpu = {
    .name = "thomas_cpu",
    .family = "direct",
    .backend = "cpu",
    .exact = 1,
    .classes = TL_CLASS_ROW_DD | TL_CLASS_COL_DD | TL_CLASS_SPD,
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC,
    .partitioned = 0,
    .min_rows_per_part = 1,
    .params = NULL,
    .nparams = 0,
    .summary = "Thomas, SZ systems per SIMD group, OpenMP threads; checks fused into the solve",
    .source = "paper 000 (DistD2-TDS) §2.1 Algorithm 1, §4.1 (SZ-packed groups)",
    .solve = thomas_cpu_solve,
    .checks_entries = 1,
};

#else /* ---- one (precision, SZ) pass ---- */

/* A row of SZ zeros: the corner entries a[0] and c[n-1] as the kernels use them. */
static const T FN(zero_row)[SZ];

/* Row 0 of SZ systems: cp = c / b, dp = d / b, by one reciprocal.
 * chk starts the NaN check. */
static TL_CPU_INLINE void FN(row_first)(const T *b, const T *c, const T *d, T *cp, T *dp, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    T p = b[l], r = (T)1 / p;
    cp[l] = c[l] * r;
    dp[l] = d[l] * r;
    chk[l] = p;
  }
}

/* Row i > 0 from row i-1 (cpm, dpm). dp may be d (in place). */
static TL_CPU_INLINE void FN(row_next)(const T *a, const T *b, const T *c, const T *d, const T *cpm,
                                       const T *dpm, T *cp, T *dp, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    T p = b[l] - a[l] * cpm[l], r = (T)1 / p;
    cp[l] = c[l] * r;
    dp[l] = (d[l] - a[l] * dpm[l]) * r;
    chk[l] += p;
  }
}

/* Backward step: x = dp - cp x1 (x may be dp). */
static TL_CPU_INLINE void FN(row_back)(const T *cp, const T *dp, const T *x1, T *x, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    x[l] = dp[l] - cp[l] * x1[l];
    chk[l] += x[l];
  }
}

static TL_CPU_INLINE void FN(row_copy_check)(const T *dp, T *x, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    x[l] = dp[l];
    chk[l] += x[l];
  }
}

/* The first lane of `bad` (lanes < valid) that really broke down, with
 * its row and kind; -1 when every candidate was only an overflow of the
 * check sum. Lane l starts at a + l lane_step, its rows row_step apart. */
static int FN(confirm)(uint64_t bad, size_t valid, size_t n, const T *a, const T *b, const T *c,
                       const T *x, size_t lane_step, size_t row_step, long *row, int *piv)
{
  for (size_t l = 0; l < valid && l < SZ; l++) {
    if (!(bad >> l & 1u))
      continue;
    size_t o = l * lane_step;
#if TL_CPU_FLOAT
    *row = tl_cpu_breakdown_row_f(n, a + o, b + o, c + o, row_step, x + o, row_step, piv);
#else
    *row = tl_cpu_breakdown_row_d(n, a + o, b + o, c + o, row_step, x + o, row_step, piv);
#endif
    if (*row >= 0)
      return (int)l;
  }
  return -1;
}

/* ---- packed: the group's rows are SZ adjacent values, in place ---- */

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

/* ---- Cartesian lines: groups along x, y and z ---- */

/* Where group g of a solve along dir lives. Along x (and for a batch)
 * the lanes are lines `lane` apart whose rows are adjacent; along y and
 * z the lanes are adjacent and the rows `row` apart, and a group stays
 * inside one x-row of the array (ceil(nx / SZ) groups per row). */
typedef struct FN(cgroup) {
  size_t off;   /* entry (lane 0, row 0)                */
  size_t row;   /* distance between rows of a lane      */
  size_t lane;  /* distance between lanes of a row      */
  size_t valid; /* real systems in the group (<= SZ)    */
  size_t s0;    /* system number of lane 0              */
} FN(cgroup);

static FN(cgroup) FN(cart_group)(const size_t *dims, tl_dir dir, size_t g)
{
  size_t nx = dims[0], ny = dims[1], nz = dims[2];
  FN(cgroup) q;
  if (dir == TL_DIR_X) {
    size_t nsys = ny * nz;
    q.s0 = g * SZ;
    q.off = g * SZ * nx;
    q.row = 1;
    q.lane = nx;
    q.valid = nsys - q.s0 < SZ ? nsys - q.s0 : SZ;
    return q;
  }
  size_t per_row = (nx + SZ - 1) / SZ, r = g / per_row, i0 = (g % per_row) * SZ;
  q.valid = nx - i0 < SZ ? nx - i0 : SZ;
  q.s0 = r * nx + i0;
  q.lane = 1;
  if (dir == TL_DIR_Y) { /* r = k */
    q.off = r * nx * ny + i0;
    q.row = nx;
  } else { /* r = j */
    q.off = r * nx + i0;
    q.row = nx * ny;
  }
  (void)nz;
  return q;
}

static size_t FN(cart_groups)(const size_t *dims, tl_dir dir)
{
  size_t nx = dims[0], ny = dims[1], nz = dims[2];
  if (dir == TL_DIR_X)
    return (ny * nz + SZ - 1) / SZ;
  return (nx + SZ - 1) / SZ * (dir == TL_DIR_Y ? nz : ny);
}

/* Scratch row of row i: i, or upside down (np rows) for every other group. */
#define TL_CPU_POS(i, rev, np) ((rev) ? (np)-1 - (i) : (i))

/* Along y and z, G adjacent groups of an x-row advance in lockstep (a
 * "unit"), so that each row is read as one run of up to 2 KiB instead of
 * SZ values: DRAM streams long runs far better than many short ones.
 * Along x a unit is one group. */
#define GMAX (2048 / (SZ * (int)sizeof(T)))

static size_t FN(cart_units)(const size_t *dims, tl_dir dir, size_t G)
{
  size_t nx = dims[0];
  if (dir == TL_DIR_X)
    return FN(cart_groups)(dims, dir);
  size_t per_row = (nx + SZ - 1) / SZ;
  return (per_row + G - 1) / G * (dir == TL_DIR_Y ? dims[2] : dims[1]);
}

/* The groups first .. first+count-1 of unit u. */
static void FN(unit_groups)(const size_t *dims, tl_dir dir, size_t G, size_t u, size_t *first,
                            size_t *count)
{
  if (dir == TL_DIR_X) {
    *first = u;
    *count = 1;
    return;
  }
  size_t per_row = (dims[0] + SZ - 1) / SZ, units_per_row = (per_row + G - 1) / G;
  size_t r = u / units_per_row, k = (u % units_per_row) * G;
  *first = r * per_row + k;
  *count = per_row - k < G ? per_row - k : G;
}

/* What the registry backend learns about each lane from the tiles the
 * solve reads anyway (no extra pass over memory): a non-zero corner, and
 * the least margins of diagonal dominance by rows and by columns, as
 * tl_classes_d computes them (same operations, same bits):
 *   row i:     |b_i| - (|a_i| + |c_i|)          (a_0, c_{n-1} count as 0)
 *   column i:  |b_i| - (|c_{i-1}| + |a_{i+1}|)  (checked at row i + 1)  */
typedef struct FN(dom) {
  T corner[SZ];             /* |a_0| + |c_{n-1}|: 0 unless a corner is set */
  T rmin[SZ], cmin[SZ];     /* least row and column margins so far         */
  T b1[SZ], c1[SZ], c2[SZ]; /* |b_{i-1}|, |c_{i-1}|, |c_{i-2}|          */
} FN(dom);

#undef TABS
#if TL_CPU_FLOAT
#define TABS(v) fabsf(v)
#else
#define TABS(v) fabs(v)
#endif

static TL_CPU_INLINE void FN(dom_start)(FN(dom) * m)
{
  for (int l = 0; l < SZ; l++)
    m->corner[l] = 0, m->rmin[l] = m->cmin[l] = (T)INFINITY, m->b1[l] = m->c1[l] = m->c2[l] = 0;
}

/* Rows i0 .. i0+rows-1 of a tile (tile[r][l]); c of row n-1 already 0.
 * The running state is copied to locals (registers) for the tile, and
 * row 0 of a line (no a, no column to check) is peeled off, so that the
 * loop over the rows has no branch. */
static TL_CPU_INLINE void FN(dom_tile)(const T *ta, const T *tb, const T *tc, size_t i0,
                                       size_t rows, size_t n, FN(dom) * m)
{
  T rmin[SZ], cmin[SZ], b1[SZ], c1[SZ], c2[SZ];
  memcpy(rmin, m->rmin, sizeof rmin), memcpy(cmin, m->cmin, sizeof cmin);
  memcpy(b1, m->b1, sizeof b1), memcpy(c1, m->c1, sizeof c1), memcpy(c2, m->c2, sizeof c2);
  size_t r0 = 0;
  if (i0 == 0) { /* row 0: |b_0| - |c_0|, a_0 counts as 0 */
    for (int l = 0; l < SZ; l++) {
      T ab = TABS(tb[l]), ac = TABS(tc[l]), mr = ab - ac;
      rmin[l] = mr < rmin[l] ? mr : rmin[l];
      c2[l] = c1[l], c1[l] = ac, b1[l] = ab;
    }
    r0 = 1;
  }
  for (size_t r = r0; r < rows; r++) {
    const T *a = ta + r * SZ, *b = tb + r * SZ, *c = tc + r * SZ;
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      T ab = TABS(b[l]), aa = TABS(a[l]), ac = TABS(c[l]);
      T mr = ab - (aa + ac), mc = b1[l] - (c2[l] + aa);
      rmin[l] = mr < rmin[l] ? mr : rmin[l];
      cmin[l] = mc < cmin[l] ? mc : cmin[l];
      c2[l] = c1[l], c1[l] = ac, b1[l] = ab;
    }
  }
  if (i0 + rows == n) /* the last column: |b_{n-1}| - |c_{n-2}| */
    for (int l = 0; l < SZ; l++) {
      T mc = b1[l] - c2[l];
      cmin[l] = mc < cmin[l] ? mc : cmin[l];
    }
  memcpy(m->rmin, rmin, sizeof rmin), memcpy(m->cmin, cmin, sizeof cmin);
  memcpy(m->b1, b1, sizeof b1), memcpy(m->c1, c1, sizeof c1), memcpy(m->c2, c2, sizeof c2);
}

/* Lanes outside Thomas's dominance classes (neither by rows nor by
 * columns), and lanes with a non-zero corner. */
static void FN(dom_masks)(const FN(dom) * m, uint64_t *outside, uint64_t *corner)
{
  uint64_t o = 0, k = 0;
  for (int l = 0; l < SZ; l++) {
    if (!(m->rmin[l] >= 0) && !(m->cmin[l] >= 0))
      o |= (uint64_t)1 << l;
    if (m->corner[l] != 0)
      k |= (uint64_t)1 << l;
  }
  *outside = o;
  *corner = k;
}

/* The state of one unit in flight: its groups, their checks, the row of
 * x the backward pass carries; dom only for the registry backend (x). */
typedef struct FN(flight) {
  const T *a, *b, *c, *d;
  T *x;
  size_t first, count;
  FN(cgroup) q[GMAX];
  int rev;
  T chk[GMAX][SZ], xr[GMAX][SZ];
  FN(dom) dom;
} FN(flight);

static TL_CPU_INLINE void FN(flight_start)(FN(flight) * f, const size_t *dims, tl_dir dir, size_t G,
                                           size_t u, int rev, const T *a, const T *b, const T *c,
                                           const T *d, T *x)
{
  FN(unit_groups)(dims, dir, G, u, &f->first, &f->count);
  for (size_t k = 0; k < f->count; k++)
    f->q[k] = FN(cart_group)(dims, dir, f->first + k);
  f->a = a;
  f->b = b;
  f->c = c;
  f->d = d;
  f->x = x;
  f->rev = rev;
  FN(dom_start)(&f->dom);
}

/* -- lanes (y, z): one row of SZ adjacent values per step -- */

/* A row of `valid` < SZ lanes, padded with the identity (a = c = d = 0, b = 1). */
static TL_CPU_INLINE void FN(pad_row)(const T *src, size_t valid, T fill, T *row)
{
  for (size_t l = 0; l < SZ; l++)
    row[l] = l < valid ? src[l] : fill;
}

/* Forward row i of group k of a unit; its scratch is cp, dp (n SZ each). */
static TL_CPU_INLINE void FN(lanes_forward_group)(size_t n, size_t i, FN(flight) * f, size_t k,
                                                  T *cp, T *dp)
{
  const FN(cgroup) *q = &f->q[k];
  size_t st = q->row, valid = q->valid, o = q->off + i * st;
  const T *pa = f->a + o, *pb = f->b + o, *pc = f->c + o, *pd = f->d + o;
  /* Prefetch about 2 KiB ahead in each of the four streams, as the
   * packed kernel does (16 rows of 128 bytes): a wide unit's rows are
   * long, so fewer rows ahead. */
  size_t dist = 2048 / (f->count * SZ * sizeof(T));
  dist = dist ? dist : 1;
  if (i + dist < n) {
    size_t ahead = dist * st;
    for (size_t e = 0; e < valid; e += 64 / sizeof(T)) {
      TL_CPU_PREFETCH(pa + ahead + e, 0);
      TL_CPU_PREFETCH(pb + ahead + e, 0);
      TL_CPU_PREFETCH(pc + ahead + e, 0);
      TL_CPU_PREFETCH(pd + ahead + e, 0);
    }
  }
  T ra[SZ], rb[SZ], rc[SZ], rd[SZ];
  if (valid < SZ) {
    FN(pad_row)(pa, valid, 0, ra);
    FN(pad_row)(pb, valid, 1, rb);
    FN(pad_row)(pc, valid, 0, rc);
    FN(pad_row)(pd, valid, 0, rd);
    pa = ra, pb = rb, pc = rc, pd = rd;
  }
  if (i + 1 == n)
    pc = FN(zero_row);
  size_t p = TL_CPU_POS(i, f->rev, n);
  if (i == 0)
    FN(row_first)(pb, pc, pd, cp + p * SZ, dp + p * SZ, f->chk[k]);
  else
    FN(row_next)
  (pa, pb, pc, pd, cp + TL_CPU_POS(i - 1, f->rev, n) * SZ, dp + TL_CPU_POS(i - 1, f->rev, n) * SZ,
   cp + p * SZ, dp + p * SZ, f->chk[k]);
}

/* Forward row i of every group of the unit (group k's scratch is the
 * k-th block of n SZ values of cp and of dp). */
static TL_CPU_INLINE void FN(lanes_forward)(size_t n, size_t i, FN(flight) * f, T *cp, T *dp)
{
  for (size_t k = 0; k < f->count; k++)
    FN(lanes_forward_group)(n, i, f, k, cp + k * n * SZ, dp + k * n * SZ);
}

/* Backward step k: row i = n-1-k of every group into x. */
static TL_CPU_INLINE void FN(lanes_backward)(size_t n, size_t step, FN(flight) * f, const T *cp,
                                             const T *dp)
{
  size_t i = n - 1 - step, p = TL_CPU_POS(i, f->rev, n);
  for (size_t k = 0; k < f->count; k++) {
    const T *cpk = cp + k * n * SZ, *dpk = dp + k * n * SZ;
    T *xr = f->xr[k];
    if (step == 0)
      FN(row_copy_check)(dpk + p * SZ, xr, f->chk[k]);
    else
      FN(row_back)(cpk + p * SZ, dpk + p * SZ, xr, xr, f->chk[k]);
    T *px = f->x + f->q[k].off + i * f->q[k].row;
    if (f->q[k].valid == SZ) {
#pragma omp simd
      for (int l = 0; l < SZ; l++)
        px[l] = xr[l];
    } else {
      for (size_t l = 0; l < f->q[k].valid; l++)
        px[l] = xr[l];
    }
  }
}

/* -- rows (x): XT rows of the SZ lines per step, through a tile -- */

/* XT: rows per tile, TL_CPU_XT_LINES cache lines of each line (1: one
 * 64-byte line of each of the SZ lines per step, one 8x8 or 4x4 block
 * per array). Larger tiles were slower out of cache (0.27 of the limit
 * at 4 lines against 0.40 at 1, docs/performance.md). Memory is fetched
 * ahead by software prefetch in CHUNKS of XC rows of the group's SZ
 * lines (rows_prefetch). Both can be set at build time (-D) to measure
 * other shapes. */
#ifndef TL_CPU_XT_LINES
#define TL_CPU_XT_LINES 1
#endif
#ifndef TL_CPU_XC
#define TL_CPU_XC 256
#endif
#undef XT
#define XT (TILE * TL_CPU_XT_LINES)

/* A full tile: tile[r][l] = line l entry r (lines `lane` apart), for
 * l < SZ, r < XT, by 8x8 (double) or 4x4 (float) register transposes:
 *
 *   lines in memory (SZ = 8)           the tile (row r = 8 lanes)
 *   line 0: r0 r1 r2 .. r7 | r8 ..     row 0: l0 l1 l2 .. l7
 *   line 1: r0 r1 r2 .. r7 | r8 ..  -> row 1: l0 l1 l2 .. l7
 *   ...                                ...
 *   line 7: r0 r1 r2 .. r7 | r8 ..     row 7: l0 l1 l2 .. l7   (then rows 8..15, ...)
 */
static TL_CPU_INLINE void FN(tile_from_lines)(const T *in, size_t lane, T *tile)
{
#if defined(TL_CPU_SHUFFLE) && TL_CPU_FLOAT
  for (size_t l = 0; l < SZ; l += 4)
    for (size_t r = 0; r < XT; r += 4)
      tl_cpu_transpose4_f(in + l * lane + r, in + (l + 1) * lane + r, in + (l + 2) * lane + r,
                          in + (l + 3) * lane + r, tile + r * SZ + l, tile + (r + 1) * SZ + l,
                          tile + (r + 2) * SZ + l, tile + (r + 3) * SZ + l);
#elif defined(TL_CPU_SHUFFLE)
  for (size_t l = 0; l < SZ; l += 8) /* 8 lines x 8 rows at a time */
    for (size_t r = 0; r < XT; r += 8)
      tl_cpu_transpose8_d(in + l * lane + r, lane, tile + r * SZ + l, SZ);
#else
  for (size_t l = 0; l < SZ; l++)
    for (size_t r = 0; r < XT; r++)
      tile[r * SZ + l] = in[l * lane + r];
#endif
}

/* The inverse: line l entry r = tile[r][l]. */
static TL_CPU_INLINE void FN(lines_from_tile)(const T *tile, size_t lane, T *out)
{
#if defined(TL_CPU_SHUFFLE) && TL_CPU_FLOAT
  for (size_t r = 0; r < XT; r += 4)
    for (size_t l = 0; l < SZ; l += 4)
      tl_cpu_transpose4_f(tile + r * SZ + l, tile + (r + 1) * SZ + l, tile + (r + 2) * SZ + l,
                          tile + (r + 3) * SZ + l, out + l * lane + r, out + (l + 1) * lane + r,
                          out + (l + 2) * lane + r, out + (l + 3) * lane + r);
#elif defined(TL_CPU_SHUFFLE)
  for (size_t r = 0; r < XT; r += 8)
    for (size_t l = 0; l < SZ; l += 8)
      tl_cpu_transpose8_d(tile + r * SZ + l, SZ, out + l * lane + r, lane);
#else
  for (size_t r = 0; r < XT; r++)
    for (size_t l = 0; l < SZ; l++)
      out[l * lane + r] = tile[r * SZ + l];
#endif
}

/* Transpose `rows` rows of `valid` lines into tile[r][l]. */
static TL_CPU_INLINE void FN(tile_load)(const T *src, size_t lane, size_t valid, size_t rows,
                                        T fill, T *tile)
{
  if (valid == SZ && rows == XT) { /* the common case: block transposes */
    FN(tile_from_lines)(src, lane, tile);
    return;
  }
  for (size_t l = 0; l < SZ; l++) {
    if (l < valid) {
      const T *q = src + l * lane;
      for (size_t r = 0; r < rows; r++)
        tile[r * SZ + l] = q[r];
    } else {
      for (size_t r = 0; r < rows; r++)
        tile[r * SZ + l] = fill;
    }
  }
}

static TL_CPU_INLINE void FN(tile_store)(const T *tile, size_t lane, size_t valid, size_t rows,
                                         T *dst)
{
  if (valid == SZ && rows == XT) {
    FN(lines_from_tile)(tile, lane, dst);
    return;
  }
  for (size_t l = 0; l < valid; l++) {
    T *q = dst + l * lane;
    for (size_t r = 0; r < rows; r++)
      q[r] = tile[r * SZ + l];
  }
}

/* Software prefetch one chunk ahead. A chunk is XC rows (all np rows
 * when fewer) of the group's SZ lines; while the tiles of chunk k are
 * solved, each step prefetches its share of chunk k + 1 -- or of the
 * next group's first chunk -- in memory order, line after line:
 *
 *   line 0: [chunk k | chunk k+1 ->->->]     the tiles read one cache
 *   line 1: [chunk k | chunk k+1 ->->->]     line of every line per step
 *   ...                                      (SZ places); the prefetches
 *   line SZ-1: ...                           run along one line at a time
 *
 * so memory sees runs of XC values rather than SZ scattered lines per
 * step, and the chunk waits in L2 (4 arrays x SZ x XC values: 64 KiB
 * for doubles, SZ = 8) before its tiles are read. A prefetch past the
 * end of an array is harmless (it never faults). */
static TL_CPU_INLINE void FN(rows_prefetch)(size_t n, size_t np, size_t t, const FN(flight) * f)
{
  size_t xc = np < TL_CPU_XC ? np : TL_CPU_XC, steps = xc / XT, k = t / steps, j = t % steps;
  size_t ln = f->q[0].lane, base = f->q[0].off, r0 = (k + 1) * xc;
  if (r0 >= n) /* the last chunk: the next group's first */
    base += SZ * ln, r0 = 0;
  size_t per_line = xc / TILE, per_step = SZ * per_line / steps, q = j * per_step;
  size_t line = q / per_line, e = q % per_line; /* this step's first cache line */
  const T *pa = f->a + base + r0, *pb = f->b + base + r0, *pc = f->c + base + r0;
  const T *pd = f->d + base + r0;
  for (size_t u = 0; u < per_step; u++) {
    size_t o = line * ln + e * TILE;
    TL_CPU_PREFETCH(pa + o, 0);
    TL_CPU_PREFETCH(pb + o, 0);
    TL_CPU_PREFETCH(pc + o, 0);
    TL_CPU_PREFETCH(pd + o, 1);
    if (++e == per_line)
      e = 0, line++;
  }
}

/* Forward tile t (rows t XT ...) of a group; np = rows of the scratch.
 * reg (the registry backend): the tile's corners and dominance margins
 * go into f->dom while the tile is in L1. */
static TL_CPU_INLINE void FN(rows_forward)(int reg, size_t n, size_t np, size_t t, FN(flight) * f,
                                           T *cp, T *dp)
{
  size_t i0 = t * XT, rows = n - i0 < XT ? n - i0 : XT, ln = f->q[0].lane;
  size_t valid = f->q[0].valid;
  const T *fa = f->a + f->q[0].off, *fb = f->b + f->q[0].off, *fc = f->c + f->q[0].off;
  const T *fd = f->d + f->q[0].off;
  FN(rows_prefetch)(n, np, t, f);
  T ta[XT * SZ], tb[XT * SZ], tc[XT * SZ], td[XT * SZ];
  FN(tile_load)(fa + i0, ln, valid, rows, 0, ta);
  FN(tile_load)(fb + i0, ln, valid, rows, 1, tb);
  FN(tile_load)(fc + i0, ln, valid, rows, 0, tc);
  FN(tile_load)(fd + i0, ln, valid, rows, 0, td);
  if (reg && i0 == 0)
    for (int l = 0; l < SZ; l++)
      f->dom.corner[l] += TABS(ta[l]);
  if (i0 + rows == n) { /* the corner c[n-1] is not part of the system */
    if (reg)
      for (int l = 0; l < SZ; l++)
        f->dom.corner[l] += TABS(tc[(rows - 1) * SZ + l]);
    memset(tc + (rows - 1) * SZ, 0, SZ * sizeof(T));
  }
  if (reg)
    FN(dom_tile)(ta, tb, tc, i0, rows, n, &f->dom);
  /* The recurrence carries c' and d' of the previous row in locals
   * (registers) rather than reading back what it just stored: the chain
   * of dependent operations per row is then a multiply-add, a division
   * and a multiplication, with no store-to-load delay. */
  T pc[SZ], pd[SZ], chk[SZ];
  size_t r0 = 0;
  memcpy(chk, f->chk[0], sizeof chk);
  if (i0 == 0) {
    size_t p = TL_CPU_POS(0, f->rev, np);
    FN(row_first)(tb, tc, td, cp + p * SZ, dp + p * SZ, chk);
    r0 = 1;
  }
  size_t pm = TL_CPU_POS(i0 + r0 - 1, f->rev, np);
  memcpy(pc, cp + pm * SZ, sizeof pc), memcpy(pd, dp + pm * SZ, sizeof pd);
  for (size_t r = r0; r < rows; r++) {
    size_t p = TL_CPU_POS(i0 + r, f->rev, np);
    FN(row_next)(ta + r * SZ, tb + r * SZ, tc + r * SZ, td + r * SZ, pc, pd, pc, pd, chk);
    memcpy(cp + p * SZ, pc, sizeof pc), memcpy(dp + p * SZ, pd, sizeof pd);
  }
  memcpy(f->chk[0], chk, sizeof chk);
}

/* Backward step k: tile nt-1-k, its rows from the last, then transposed out. */
static TL_CPU_INLINE void FN(rows_backward)(size_t n, size_t np, size_t k, FN(flight) * f,
                                            const T *cp, const T *dp)
{
  size_t t = np / XT - 1 - k, i0 = t * XT, rows = n - i0 < XT ? n - i0 : XT;
  T tx[XT * SZ], xr[SZ], chk[SZ]; /* xr: x of row i + 1, in registers */
  memcpy(xr, f->xr[0], sizeof xr), memcpy(chk, f->chk[0], sizeof chk);
  for (size_t r = rows; r-- > 0;) {
    size_t i = i0 + r, p = TL_CPU_POS(i, f->rev, np);
    if (i + 1 == n)
      FN(row_copy_check)(dp + p * SZ, xr, chk);
    else
      FN(row_back)(cp + p * SZ, dp + p * SZ, xr, xr, chk);
    memcpy(tx + r * SZ, xr, sizeof xr);
  }
  memcpy(f->xr[0], xr, sizeof xr); /* row i0 carries into the tile below */
  memcpy(f->chk[0], chk, sizeof chk);
  FN(tile_store)(tx, f->q[0].lane, f->q[0].valid, rows, f->x + f->q[0].off + i0);
}

/* A thread's units u0..u1-1 as a software pipeline (as packed_pipeline):
 * step k runs the backward step k of unit u and the forward step k of
 * unit u+1; one scratch pair (c', d') of G np SZ values each serves both,
 * every other unit storing its rows upside down. Steps are rows along
 * y and z, tiles of XT rows along x (np = n rounded up to XT). */
static TL_CPU_INLINE void FN(cart_pipeline)(int reg, int rows, const size_t *dims, tl_dir dir,
                                            size_t G, size_t u0, size_t u1, const T *a, const T *b,
                                            const T *c, const T *d, T *x, T *cp, T *dp,
                                            uint64_t *bad, uint64_t *outside, uint64_t *corner)
{
  size_t n = dims[dir], np = rows ? (n + XT - 1) / XT * XT : n;
  size_t steps = rows ? np / XT : n;
  FN(flight) fl[2];
  if (u0 >= u1)
    return;
  FN(flight_start)(&fl[0], dims, dir, G, u0, 0, a, b, c, d, x);
  for (size_t k = 0; k < steps; k++) {
    if (rows)
      FN(rows_forward)(reg, n, np, k, &fl[0], cp, dp);
    else
      FN(lanes_forward)(n, k, &fl[0], cp, dp);
  }
  for (size_t u = u0; u < u1; u++) {
    FN(flight) *cur = &fl[(u - u0) & 1u], *nxt = &fl[1 - ((u - u0) & 1u)];
    int more = u + 1 < u1;
    if (more)
      FN(flight_start)(nxt, dims, dir, G, u + 1, !cur->rev, a, b, c, d, x);
    for (size_t k = 0; k < steps; k++) {
      if (rows) {
        FN(rows_backward)(n, np, k, cur, cp, dp);
        if (more)
          FN(rows_forward)(reg, n, np, k, nxt, cp, dp);
      } else {
        FN(lanes_backward)(n, k, cur, cp, dp);
        if (more)
          FN(lanes_forward)(n, k, nxt, cp, dp);
      }
    }
    for (size_t k = 0; k < cur->count; k++)
      TL_CPU_BAD_MASK(cur->chk[k], SZ, bad[cur->first + k]);
    if (reg)
      FN(dom_masks)(&cur->dom, &outside[cur->first], &corner[cur->first]);
  }
}

/* The specialisations: rows (x) or lanes (y, z); the registry's checks
 * only where the registry backend uses them (double, rows: the batch
 * layout is lines along x), which keeps the build time down. */
TL_CPU_CLONES static void FN(cart_run)(int reg, const size_t *dims, tl_dir dir, size_t G, size_t u0,
                                       size_t u1, const T *a, const T *b, const T *c, const T *d,
                                       T *x, T *cp, T *dp, uint64_t *bad, uint64_t *outside,
                                       uint64_t *corner)
{
  if (dir == TL_DIR_X) {
#if !TL_CPU_FLOAT
    if (reg)
      FN(cart_pipeline)(1, 1, dims, dir, 1, u0, u1, a, b, c, d, x, cp, dp, bad, outside, corner);
    else
#endif
      FN(cart_pipeline)(0, 1, dims, dir, 1, u0, u1, a, b, c, d, x, cp, dp, bad, outside, corner);
  } else {
    FN(cart_pipeline)(0, 0, dims, dir, G, u0, u1, a, b, c, d, x, cp, dp, bad, outside, corner);
  }
  (void)reg;
}

/* Groups per unit along y and z: rows of up to 2 KiB (GMAX groups), as
 * far as the x-row reaches, while the unit's scratch (2 n SZ values per
 * group) stays within 2 MiB. Along x: 1. */
static size_t FN(cart_width)(const size_t *dims, tl_dir dir, size_t np)
{
  size_t G = 1;
  if (dir != TL_DIR_X) {
    size_t per_row = (dims[0] + SZ - 1) / SZ;
    while (2 * G <= (size_t)GMAX && 2 * G <= per_row &&
           2 * (2 * G) * np * SZ * sizeof(T) <= ((size_t)2 << 20))
      G *= 2;
  }
  return G;
}

/* The first lane of the groups that broke down, reported as thomas_3d
 * reports it; TL_OK when every flagged lane was only an overflow of its
 * check sum. */
static int FN(cart_report)(const size_t *dims, tl_dir dir, const uint64_t *bad, const T *a,
                           const T *b, const T *c, const T *x, tl_info *info)
{
  size_t n = dims[dir], groups = FN(cart_groups)(dims, dir);
  for (size_t g = 0; g < groups; g++) {
    if (!bad[g])
      continue;
    FN(cgroup) q = FN(cart_group)(dims, dir, g);
    long row;
    int piv, l = FN(confirm)(bad[g], q.valid, n, a + q.off, b + q.off, c + q.off, x + q.off, q.lane,
                             q.row, &row, &piv);
    if (l >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(q.s0 + (size_t)l), row, "",
                     "thomas_3d: %s at row %ld of line %zu",
                     piv ? "zero or non-finite pivot" : "overflow", row, q.s0 + (size_t)l);
  }
  return TL_OK;
}

/* Solve along dir. Without redo, the first breakdown is reported. With
 * redo (nsys bytes; the registry backend, double along x only) nothing
 * is reported: redo[s] receives 1 for a system that may have broken down
 * (or holds a non-finite entry), 2 for one outside the dominance
 * classes, 3 for one with a non-zero corner, else 0. */
static int FN(thomas_cart)(const size_t *dims, tl_dir dir, const T *a, const T *b, const T *c,
                           const T *d, T *x, unsigned char *redo, tl_info *info)
{
  int reg = redo != NULL;
  if (reg && (TL_CPU_FLOAT || dir != TL_DIR_X)) /* not built: see cart_run */
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dir",
                   "thomas_3d: the registry's checks are built for double lines along x only");
  size_t n = dims[dir], groups = FN(cart_groups)(dims, dir);
  size_t np = (n + XT - 1) / XT * XT, G = FN(cart_width)(dims, dir, np);
  size_t units = FN(cart_units)(dims, dir, G);
  uint64_t *bad = tl_alloc(3 * groups, sizeof *bad);
  if (!bad)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_3d: no memory");
  uint64_t *outside = bad + groups, *corner = bad + 2 * groups;
  int nomem = 0;
#pragma omp parallel
  {
    size_t u0, u1;
    tl_cpu_my_share(units, &u0, &u1);
    T *cp = u0 < u1 ? tl_cpu_scratch(2 * G * np * SZ, sizeof(T)) : NULL;
    if (cp) {
      FN(cart_run)
      (reg, dims, dir, G, u0, u1, a, b, c, d, x, cp, cp + G * np * SZ, bad, outside, corner);
    } else if (u0 < u1) {
#pragma omp atomic write
      nomem = 1;
    }
    free(cp);
  }
  int st = TL_OK;
  if (nomem)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_3d: no memory for %zu scratch values",
                 2 * G * np * SZ);
  else if (reg)
    for (size_t g = 0; g < groups; g++) {
      FN(cgroup) q = FN(cart_group)(dims, dir, g);
      for (size_t l = 0; l < q.valid; l++)
        redo[q.s0 + l] = (bad[g] >> l & 1u)       ? 1
                         : (corner[g] >> l & 1u)  ? 3
                         : (outside[g] >> l & 1u) ? 2
                                                  : 0;
    }
  else
    st = FN(cart_report)(dims, dir, bad, a, b, c, x, info);
  free(bad);
  return st;
}

/* ---- the baseline without reordering (built for SZ = 8 only) ---- */
#if SZ == 8

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
