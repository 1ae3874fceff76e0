/* optimized/cpu/thomas_3d_cpu.c -- Thomas along x, y or z of Cartesian
 * arrays, without a separate reordering pass: tl_cpu_thomas_3d_d,
 * tl_cpu_thomas_3d_f.
 *
 * Source: paper 000 (DistD2-TDS) §2.1 Algorithm 1 (Thomas), §4.1 (SZ
 * systems per group), §5.1 and Table 3 (data movement of a cached
 * implementation). reference/thomas_ref.c is the readable version of the
 * recurrence on one system; thomas_group.h runs it on one row of a group
 * (the symbols are the same: cp = c', dp = d'). The teaching explanation
 * is docs/algorithms/thomas_cpu.md ("Along x, y and z without a separate
 * reordering pass").
 *
 * A 3-D array u(i, j, k) lives at (k ny + j) nx + i (x fastest;
 * tridlab/cpu.h numbers the lines of each direction). A GROUP is SZ
 * lines solved together, one lane each, row i of the SZ lines at once
 * (the inner, vectorised loop):
 *
 *   along x  the lines are contiguous: that is the x-line kernel,
 *            thomas_lines_cpu.c, which transposes tiles of the SZ lines
 *            in registers (tl_cpu_thomas_lines_sz_*)
 *   along y  SZ adjacent x-positions are SZ adjacent lines: row i of the
 *            group is SZ adjacent values, rows nx apart
 *   along z  the same, rows nx ny apart
 *
 * so along y and z the kernel reads the rows where they are, as the
 * packed kernel (thomas_packed_cpu.c) reads its rows, with a stride:
 *
 *   x-row j of plane k:  i = 0 1 .. SZ-1 | SZ .. 2SZ-1 | ...
 *                          group g        group g+1      (one row of each)
 *   row i+1 of the same groups: nx values further (y) or nx ny (z)
 *
 * A group stays inside one x-row of the array (ceil(nx / SZ) groups per
 * row, the last padded with the identity). Where the rows are far apart
 * (more than TL_CPU_NEAR_ROWS bytes: large planes along z, long x-rows
 * along y), G adjacent groups advance in lockstep (a UNIT), so that each
 * row is read as one run of up to 2 KiB instead of SZ values: there DRAM
 * streams long runs far better than many short ones. Where they are near
 * (short x-rows along y, small planes along z) a unit is one group:
 * measured faster (cart_width). tl_cpu_sz_3d picks SZ for both: rows of
 * 128 bytes where they are near, 32 lanes where they are far.
 *
 * Traffic (the byte model of docs/performance.md): a, b, c and d are read
 * once and x written once, 5 words per unknown. cp and dp live in a
 * per-thread scratch of 2 n SZ values per group of the unit that stays in
 * the core's L2 cache between the forward and the backward pass.
 *
 * A software pipeline over the units of a thread keeps memory busy: the
 * forward pass of unit u+1 (memory) runs in the same loop as the
 * backward pass of unit u (cache), one row of each per step, and both
 * share one scratch (lanes_pipeline). Software prefetch runs about 2 KiB
 * ahead of the forward pass, into L2 (prefetcht1: one thread, along y,
 * 1.2-1.3 times faster than into L1, docs/performance.md). The pipeline is built for SSE2, AVX2 and
 * AVX-512 (TL_CPU_CLONES), and written once for every (precision, SZ)
 * pair: this file includes itself through optimized/layout/sz_passes.h (optimized/layout/sz_template.h
 * explains how). The baseline without reordering is
 * thomas_3d_naive_cpu.c.
 */
#ifndef TL_CPU_PASS
#include <stdlib.h>

#include "cpu_internal.h"

#define TL_CPU_SELF "optimized/cpu/thomas_3d_cpu.c"
#include "optimized/layout/sz_passes.h"

int tl_cpu_thomas_3d_d(const size_t dims[3], tl_dir dir, size_t sz, const double *a,
                       const double *b, const double *c, const double *d, double *x, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_check_sz(sz, "thomas_3d", info));
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_3d", info));
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  if (dir == TL_DIR_X)
    return tl_cpu_thomas_lines_sz_d(n, nsys, sz, a, b, c, d, x, NULL, NULL, info);
  TL_CPU_DISPATCH(sz, thomas_lanes, d, dims, dir, a, b, c, d, x, info);
}

int tl_cpu_thomas_3d_f(const size_t dims[3], tl_dir dir, size_t sz, const float *a, const float *b,
                       const float *c, const float *d, float *x, tl_info *info)
{
  size_t n, nsys;
  TL_CALL(tl_cpu_check_sz(sz, "thomas_3d", info));
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_3d", info));
  TL_CALL(tl_cpu_lines(dims, dir, &n, &nsys, info));
  if (dir == TL_DIR_X)
    return tl_cpu_thomas_lines_sz_f(n, nsys, sz, a, b, c, d, x, NULL, info);
  TL_CPU_DISPATCH(sz, thomas_lanes, f, dims, dir, a, b, c, d, x, info);
}

#else /* ---- one (precision, SZ) pass ---- */

#include "optimized/cpu/thomas_group.h"

/* ---- where the groups and units are ---- */

/* Where group g of a solve along y or z lives: its lanes are adjacent,
 * its rows `row` apart, inside one x-row of the array. */
typedef struct FN(cgroup) {
  size_t off;   /* entry (lane 0, row 0)                */
  size_t row;   /* distance between rows of a lane      */
  size_t valid; /* real systems in the group (<= SZ)    */
  size_t s0;    /* system number of lane 0              */
} FN(cgroup);

static FN(cgroup) FN(cart_group)(const size_t *dims, tl_dir dir, size_t g)
{
  size_t nx = dims[0], ny = dims[1];
  FN(cgroup) q;
  size_t per_row = (nx + SZ - 1) / SZ, r = g / per_row, i0 = (g % per_row) * SZ;
  q.valid = nx - i0 < SZ ? nx - i0 : SZ;
  q.s0 = r * nx + i0;
  if (dir == TL_DIR_Y) { /* r = k */
    q.off = r * nx * ny + i0;
    q.row = nx;
  } else { /* r = j */
    q.off = r * nx + i0;
    q.row = nx * ny;
  }
  return q;
}

static size_t FN(cart_groups)(const size_t *dims, tl_dir dir)
{
  return (dims[0] + SZ - 1) / SZ * (dir == TL_DIR_Y ? dims[2] : dims[1]);
}

/* The most groups in a unit: rows of 2 KiB. */
#define GMAX (2048 / (SZ * (int)sizeof(T)))

static size_t FN(cart_units)(const size_t *dims, tl_dir dir, size_t G)
{
  size_t per_row = (dims[0] + SZ - 1) / SZ;
  return (per_row + G - 1) / G * (dir == TL_DIR_Y ? dims[2] : dims[1]);
}

/* The groups first .. first+count-1 of unit u. */
static void FN(unit_groups)(const size_t *dims, size_t G, size_t u, size_t *first, size_t *count)
{
  size_t per_row = (dims[0] + SZ - 1) / SZ, units_per_row = (per_row + G - 1) / G;
  size_t r = u / units_per_row, k = (u % units_per_row) * G;
  *first = r * per_row + k;
  *count = per_row - k < G ? per_row - k : G;
}

/* Groups per unit. Where the rows of a line are near (at most
 * TL_CPU_NEAR_ROWS bytes apart: along y where an x-row is that short,
 * along z where a plane is), one group: units of two groups were
 * 1.15-1.9 times slower from memory there at the recommended SZ
 * (tl_cpu_sz_3d), wider ones 1.05-1.7 times, and as fast in cache
 * (docs/performance.md, "Along y and z: one group where the rows are
 * near"). Further apart (large planes along z) one group of 16 doubles
 * was 1.4-1.95 times slower than a wide unit: rows of up to 2 KiB (GMAX
 * groups), as far as the x-row reaches, while the unit's scratch (2 np
 * SZ values per group) stays within 2 MiB. */
static size_t FN(cart_width)(const size_t *dims, tl_dir dir, size_t np)
{
  size_t G = 1, per_row = (dims[0] + SZ - 1) / SZ;
  if (tl_cpu_rows_near(dims, dir, sizeof(T)))
    return 1;
  while (2 * G <= (size_t)GMAX && 2 * G <= per_row &&
         2 * (2 * G) * np * SZ * sizeof(T) <= ((size_t)2 << 20))
    G *= 2;
  return G;
}

/* The state of one unit in flight: its groups, their checks, the row of
 * x the backward pass carries. */
typedef struct FN(flight) {
  const T *a, *b, *c, *d;
  T *x;
  size_t first, count;
  FN(cgroup) q[GMAX];
  int rev;
  T chk[GMAX][SZ], xr[GMAX][SZ];
} FN(flight);

static TL_CPU_INLINE void FN(flight_start)(FN(flight) * f, const size_t *dims, tl_dir dir, size_t G,
                                           size_t u, int rev, const T *a, const T *b, const T *c,
                                           const T *d, T *x)
{
  FN(unit_groups)(dims, G, u, &f->first, &f->count);
  for (size_t k = 0; k < f->count; k++)
    f->q[k] = FN(cart_group)(dims, dir, f->first + k);
  f->a = a;
  f->b = b;
  f->c = c;
  f->d = d;
  f->x = x;
  f->rev = rev;
}

/* ---- one row of SZ adjacent values per step ---- */

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
      TL_CPU_PREFETCH_L2(pa + ahead + e, 0);
      TL_CPU_PREFETCH_L2(pb + ahead + e, 0);
      TL_CPU_PREFETCH_L2(pc + ahead + e, 0);
      TL_CPU_PREFETCH_L2(pd + ahead + e, 0);
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

/* A thread's units u0..u1-1 as a software pipeline (as packed_pipeline
 * in thomas_packed_cpu.c): step k runs the backward row n-1-k of unit u
 * (from cache) and the forward row k of unit u+1 (from memory); one
 * scratch pair (c', d') of G n SZ values each serves both, every other
 * unit storing its rows upside down. */
TL_CPU_CLONES static void FN(lanes_pipeline)(const size_t *dims, tl_dir dir, size_t G, size_t u0,
                                             size_t u1, const T *a, const T *b, const T *c,
                                             const T *d, T *x, T *cp, T *dp, uint64_t *bad)
{
  size_t n = dims[dir];
  FN(flight) fl[2];
  if (u0 >= u1)
    return;
  FN(flight_start)(&fl[0], dims, dir, G, u0, 0, a, b, c, d, x);
  for (size_t k = 0; k < n; k++)
    FN(lanes_forward)(n, k, &fl[0], cp, dp);
  for (size_t u = u0; u < u1; u++) {
    FN(flight) *cur = &fl[(u - u0) & 1u], *nxt = &fl[1 - ((u - u0) & 1u)];
    int more = u + 1 < u1;
    if (more)
      FN(flight_start)(nxt, dims, dir, G, u + 1, !cur->rev, a, b, c, d, x);
    for (size_t k = 0; k < n; k++) {
      FN(lanes_backward)(n, k, cur, cp, dp);
      if (more)
        FN(lanes_forward)(n, k, nxt, cp, dp);
    }
    for (size_t k = 0; k < cur->count; k++)
      TL_CPU_BAD_MASK(cur->chk[k], SZ, bad[cur->first + k]);
  }
}

/* The first lane of the groups that broke down, reported as thomas_3d
 * reports it; TL_OK when every flagged lane was only an overflow of its
 * check sum. */
static int FN(lanes_report)(const size_t *dims, tl_dir dir, const uint64_t *bad, const T *a,
                            const T *b, const T *c, const T *x, tl_info *info)
{
  size_t n = dims[dir], groups = FN(cart_groups)(dims, dir);
  for (size_t g = 0; g < groups; g++) {
    if (!bad[g])
      continue;
    FN(cgroup) q = FN(cart_group)(dims, dir, g);
    long row;
    int piv, l = FN(confirm)(bad[g], q.valid, n, a + q.off, b + q.off, c + q.off, x + q.off, 1,
                             q.row, &row, &piv);
    if (l >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(q.s0 + (size_t)l), row, "",
                     "thomas_3d: %s at row %ld of line %zu",
                     piv ? "zero or non-finite pivot" : "overflow", row, q.s0 + (size_t)l);
  }
  return TL_OK;
}

/* Solve along y or z; the first breakdown is reported. The scratch rows
 * of a group are n rounded up to a cache line of rows (TILE), so that
 * dp, after G of them, starts on a cache line as cp does. */
static int FN(thomas_lanes)(const size_t *dims, tl_dir dir, const T *a, const T *b, const T *c,
                            const T *d, T *x, tl_info *info)
{
  size_t n = dims[dir], groups = FN(cart_groups)(dims, dir);
  size_t np = (n + TILE - 1) / TILE * TILE, G = FN(cart_width)(dims, dir, np);
  size_t units = FN(cart_units)(dims, dir, G);
  uint64_t *bad = tl_alloc(groups, sizeof *bad);
  if (!bad)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_3d: no memory");
  int nomem = 0;
#pragma omp parallel
  {
    size_t u0, u1;
    tl_cpu_my_share(units, &u0, &u1);
    T *cp = u0 < u1 ? tl_cpu_scratch(2 * G * np * SZ, sizeof(T)) : NULL;
    if (cp) {
      FN(lanes_pipeline)(dims, dir, G, u0, u1, a, b, c, d, x, cp, cp + G * np * SZ, bad);
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
  else
    st = FN(lanes_report)(dims, dir, bad, a, b, c, x, info);
  free(bad);
  return st;
}

#endif
