/* optimized/cpu/thomas_lines_cpu.c -- Thomas on contiguous lines, the
 * x-line kernel: a batch of nsys systems stored one after the other (the
 * layout of tl_batch, and of the x lines of a Cartesian array), solved
 * SZ lines at a time without a separate reordering pass.
 * tl_cpu_thomas_lines_d (the registry backend "thomas_cpu", thomas_cpu.c,
 * and the MPI room call it) and tl_cpu_thomas_lines_sz_* (thomas_3d along
 * x, thomas_3d_cpu.c).
 *
 * Source: paper 000 (DistD2-TDS) §2.1 Algorithm 1 (Thomas), §4.1 (SZ
 * systems per group), §5.1 and Table 3 (data movement of a cached
 * implementation). reference/thomas_ref.c is the readable version of the
 * recurrence on one system; thomas_group.h runs it on one row of a group
 * (the symbols are the same: cp = c', dp = d'). The teaching explanation
 * is docs/algorithms/thomas_cpu.md ("Along x, y and z without a separate
 * reordering pass", "Errors, and what thomas_cpu promises").
 *
 * A GROUP is SZ lines solved together, one lane each, so that the
 * recurrence of a row runs on SZ systems at once (the inner, vectorised
 * loop). But the lines are contiguous: row i of the SZ lines is SZ values
 * n apart, not SZ adjacent values as the vectors want. So the kernel
 * reads a TILE at a time -- XT rows (one 64-byte cache line) of each of
 * the SZ lines -- and transposes it in registers into a small tile in
 * L1 whose row r holds entry r of the SZ lines (tile_from_lines, 8x8
 * blocks of doubles, 4x4 of floats), runs those XT rows of the forward
 * recurrence, and in the backward pass transposes the results back into
 * the lines the same way:
 *
 *   line 0:  r0 .. r7 | r8 .. r15 | ...        tile t = 0: row 0: l0 .. l7
 *   line 1:  r0 .. r7 | r8 .. r15 | ...   ->               row 1: l0 .. l7
 *   ...                                                    ...
 *   line 7:  r0 .. r7 | r8 .. r15 | ...                    row 7: l0 .. l7
 *
 * Traffic (the byte model of docs/performance.md): a, b, c and d are read
 * once and x written once, 5 words per unknown. cp and dp live in a
 * per-thread scratch of 2 np SZ values (np: n rounded up to a tile) that
 * stays in the core's L2 cache between the forward and the backward
 * pass, so the transposes cost instructions in cache, not memory traffic.
 *
 * A software pipeline over the groups of a thread keeps memory busy: the
 * forward tiles of group g+1 (memory) run in the same loop as the
 * backward tiles of group g (cache), one tile of each per step, and both
 * share one scratch (lines_pipeline). Where whole tiles run in registers
 * (SZ = 8, below) the groups run one after the other instead
 * (lines_sequence): measured, about as fast for thomas_3d and faster for
 * the registry backend; where a thread's share of the batch fits in L2,
 * two groups at a time, their recurrences side by side (lines_pairs,
 * double). Software prefetch runs
 * one chunk of 256 rows ahead (chunk_prefetch). The kernel is built for SSE2, AVX2
 * and AVX-512 (TL_CPU_CLONES), and written once for every (precision, SZ)
 * pair: this file includes itself through optimized/layout/sz_passes.h
 * (optimized/layout/sz_template.h explains how).
 *
 * The group size: tl_cpu_thomas_lines_d takes lines_sz below (8 doubles);
 * thomas_3d takes what its caller gives, tl_cpu_sz_lines(n) by default.
 * Where a tile is whole (all 8 lines of a group, SZ = 8, the default,
 * with a compiler that has TL_CPU_SHUFFLE; 8 rows of doubles, 16 of
 * floats) it runs in registers (tile_forward_regs, tile_backward_regs);
 * the rest, and every tile of the other group sizes, through small tiles
 * on the stack.
 *
 * Checks fused into the solve: the registry backend "thomas_cpu" needs
 * what tl_solve would have checked in passes of its own. This kernel
 * records it in the tiles it reads anyway, while they are in L1 or in registers
 * (reg = 1, double only): non-zero corners and each lane's dominance
 * margins (FN(dom) below). It reports nothing itself: redo[s] says which
 * systems the caller must hand to tl_check_entries and the reference.
 */
#ifndef TL_CPU_PASS
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

/* The whole tiles' helpers pass 64-byte vectors by value between inline
 * functions of this file, never across a library boundary: GCC's
 * -Wpsabi note (the ABI of such a vector without AVX-512) concerns no
 * caller, as in lanes.h. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

/* The pairs' loop of rows (tile_forward_regs2) unrolled, so that each
 * row's share of the next tile's transposes is known when compiling:
 * measured up to 1.1 times faster for thomas_cpu on one thread. Not in
 * the sanitized build (one version of each kernel, TL_CPU_NO_CLONES),
 * where the unrolled copies made this file's compile 1.3 times longer
 * (95 s against 73), on the critical path of `make check`. */
#ifdef TL_CPU_NO_CLONES
#define TL_LINES_PAIR_UNROLL _Pragma("GCC unroll 1")
#else
#define TL_LINES_PAIR_UNROLL _Pragma("GCC unroll 16")
#endif

#define TL_CPU_SELF "optimized/cpu/thomas_lines_cpu.c"
#include "optimized/layout/sz_passes.h"

int tl_cpu_thomas_lines_sz_d(size_t n, size_t nsys, size_t sz, const double *a, const double *b,
                             const double *c, const double *d, double *x, unsigned char *redo,
                             const tl_cpu_lines_more *more, tl_info *info)
{
  TL_CPU_DISPATCH(sz, thomas_lines, d, n, nsys, a, b, c, d, x, redo, more, info);
}

int tl_cpu_thomas_lines_sz_f(size_t n, size_t nsys, size_t sz, const float *a, const float *b,
                             const float *c, const float *d, float *x, unsigned char *redo,
                             tl_info *info)
{
  TL_CPU_DISPATCH(sz, thomas_lines, f, n, nsys, a, b, c, d, x, redo, NULL, info);
}

/* The group size of tl_cpu_thomas_lines_d: tl_cpu_sz_lines (one 64-byte
 * vector of each row, 8 doubles: the fewest lines read at once, best
 * when the batch streams from memory). A batch that fits in cache (5
 * arrays of at most 2 MiB together) took 16, two chains of dependent
 * divisions per row; since a whole tile of 8 lines runs in registers, 8
 * is 1.2-1.3 times faster there too (docs/performance.md). A compiler
 * without the register transposes (TL_CPU_SHUFFLE) keeps 16 in cache. */
static size_t lines_sz(size_t n, size_t nsys)
{
#ifndef TL_CPU_SHUFFLE
  if (nsys <= ((size_t)2 << 20) / (5 * sizeof(double)) / n)
    return 16;
#endif
  (void)nsys;
  return tl_cpu_sz_lines(n, sizeof(double));
}

int tl_cpu_thomas_lines_more_d(size_t n, size_t nsys, const double *a, const double *b,
                               const double *c, const double *d, double *x, unsigned char *flag,
                               const tl_cpu_lines_more *more, tl_info *info)
{
  if (!n || !nsys)
    return TL_OK;
  TL_CALL(tl_cpu_check_arrays(a, b, c, d, x, "thomas_lines", info));
  if (!flag)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "flag", "thomas_lines: flag may not be NULL");
  return tl_cpu_thomas_lines_sz_d(n, nsys, lines_sz(n, nsys), a, b, c, d, x, flag, more, info);
}

int tl_cpu_thomas_lines_d(size_t n, size_t nsys, const double *a, const double *b, const double *c,
                          const double *d, double *x, unsigned char *flag, tl_info *info)
{
  return tl_cpu_thomas_lines_more_d(n, nsys, a, b, c, d, x, flag, NULL, info);
}

#else /* ---- one (precision, SZ) pass ---- */

#include "optimized/cpu/thomas_group.h"

/* XT: rows per tile, TL_CPU_XT_LINES cache lines of each line (1: one
 * 64-byte line of each of the SZ lines per step, one 8x8 or 4x4 block
 * per array). Larger tiles were slower out of cache (0.27 of the limit
 * at 4 lines against 0.40 at 1, docs/performance.md). Memory is fetched
 * ahead by software prefetch in CHUNKS of TL_CPU_XC rows of the group's
 * SZ lines (chunk_prefetch; cpu_internal.h). Both can be set at build
 * time (-D) to measure other shapes. */
#ifndef TL_CPU_XT_LINES
#define TL_CPU_XT_LINES 1
#endif
#undef XT
#define XT (TILE * TL_CPU_XT_LINES)

/* ---- tiles: XT rows of the SZ lines, transposed in registers ---- */

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

/* ---- the registry backend's checks, in the tiles ---- */

/* What the registry backend learns about each lane from the tiles the
 * solve reads anyway (no extra pass over memory): a non-zero corner, and
 * the least margins of diagonal dominance by rows and by columns, as
 * tl_classes_d computes them (same operations, same bits):
 *   row i:     |b_i| - (|a_i| + |c_i|)          (a_0, c_{n-1} count as 0)
 *   column i:  |b_i| - (|c_{i-1}| + |a_{i+1}|)  (checked at row i + 1)  */
typedef struct FN(dom) {
  _Alignas(64) T corner[SZ]; /* |a_0| + |c_{n-1}|: 0 unless a corner is set */
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

/* What a group's lanes end with, kept for after the solve, at
 * kept + KEPT(reg) g (uint64_t words): the lanes outside Thomas's
 * dominance classes (neither by rows nor by columns) and the lanes with
 * a non-zero corner, as two masks; with reg = 2 also the least row
 * margins and the largest |x|, SZ values each. thomas_cpu (reg = 1)
 * keeps the two masks only, as it did before the extras. */
#undef KEPT
#define KEPT(reg) ((reg) == 2 ? 2 + 2 * SZ * sizeof(T) / sizeof(uint64_t) : 2)
static void FN(dom_keep)(int reg, const FN(dom) * m, const T *xmax, uint64_t *out)
{
  uint64_t o = 0, k = 0;
  for (int l = 0; l < SZ; l++) {
    if (!(m->rmin[l] >= 0) && !(m->cmin[l] >= 0))
      o |= (uint64_t)1 << l;
    if (m->corner[l] != 0)
      k |= (uint64_t)1 << l;
  }
  out[0] = o, out[1] = k;
  if (reg == 2) {
    memcpy(out + 2, m->rmin, SZ * sizeof(T));
    memcpy((char *)(out + 2) + SZ * sizeof(T), xmax, SZ * sizeof(T));
  }
}

/* The largest |x| of rows [0, rows) of a tile (tile[r][l]) into xmax,
 * lane by lane (reg = 2). */
static TL_CPU_INLINE void FN(xmax_tile)(const T *tx, size_t rows, T *xmax)
{
  T xm[SZ];
  memcpy(xm, xmax, sizeof xm);
  for (size_t r = 0; r < rows; r++)
#pragma omp simd
    for (int l = 0; l < SZ; l++) {
      T v = TABS(tx[r * SZ + l]);
      xm[l] = v > xm[l] ? v : xm[l];
    }
  memcpy(xmax, xm, sizeof xm);
}

/* ---- one group in flight: a tile of it per step ---- */

/* The state of one group in flight: where its lines are, its check
 * sums, the row of x the backward pass carries into the tile below, and
 * (registry backend) its corners and dominance margins. */
typedef struct FN(flight) {
  const T *a, *b, *c, *d;
  T *x;
  size_t shift; /* rows before the first cache-line boundary (below) */
  size_t off;   /* entry (lane 0, row 0): line g SZ                 */
  size_t lane;  /* distance between lanes (lines): n                */
  size_t valid; /* real lines in the group (<= SZ)                  */
  int rev;      /* scratch rows stored upside down (TL_CPU_POS)     */
  int nt;       /* whole tiles of x by streaming stores (stream_x)  */
  const T *fix0, *fix1; /* reg = 2: subtracted from d of rows 0, n-1 */
  const T *last;        /* reg = 2: row n-1 the identity row, x = last */
  const T *first;       /* reg = 2: row 0 the identity row, x = first  */
  /* On cache lines, as the dominance state below: the whole-tile path
   * loads and stores these as 64-byte vectors every tile. Where the
   * layout of a larger state left them across two lines, one of two
   * threads ran much slower: thomas_cpu on two threads took 2.2-2.7 ns
   * per unknown, against 1.4 with the same code aligned
   * (docs/performance.md). */
  _Alignas(64) T chk[SZ], xr[SZ];
  FN(dom) dom;
  _Alignas(64) T xmax[SZ]; /* the largest |x| so far (reg = 2 only: lines_run_more) */
} FN(flight);

/* Group g of nsys lines of n rows, its scratch rows upside down if rev. */
static TL_CPU_INLINE void FN(flight_start)(FN(flight) * f, size_t n, size_t nsys, size_t g, int rev,
                                           size_t shift, const T *a, const T *b, const T *c,
                                           const T *d, T *x)
{
  f->shift = shift;
  f->off = g * SZ * n;
  f->lane = n;
  f->valid = nsys - g * SZ < SZ ? nsys - g * SZ : SZ;
  f->a = a;
  f->b = b;
  f->c = c;
  f->d = d;
  f->x = x;
  f->rev = rev;
  f->nt = 0;
  f->fix0 = f->fix1 = NULL;
  f->last = f->first = NULL;
  /* xr is carried from one backward tile to the one below; the last tile
   * (row n-1) starts it, so this value is never used -- but the compiler
   * cannot see that through the register path's copies. */
  memset(f->xr, 0, sizeof f->xr);
  FN(dom_start)(&f->dom);
}

/* The rows of tile t: tiles are XT rows long and start on the lines'
 * cache-line boundaries, so that the transposes read whole lines. A line
 * whose first entry sits `shift` rows past a boundary (an array from
 * malloc is usually 16 bytes past one) has a short first tile of XT -
 * shift rows; tile t (t >= 1) starts at row t XT - shift. Without the
 * shift every 64-byte block read would straddle two cache lines, and the
 * SZ lines of a, b, c and d -- n entries apart, the same L1 sets when n
 * is a power of two -- would need twice the lines in the same sets: 1.6
 * times the time in cache, 1.5 times from memory (docs/performance.md).
 * The scratch keeps virtual rows (row + shift), np of them. */
static TL_CPU_INLINE void FN(tile_rows)(size_t n, size_t shift, size_t t, size_t *i0, size_t *rows)
{
  size_t v0 = t * XT, lo = v0 > shift ? v0 - shift : 0, hi = v0 + XT - shift;
  *i0 = lo;
  *rows = (hi < n ? hi : n) - lo;
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
 * for doubles, SZ = 8) before its tiles are read. The prefetch stops at
 * L2: a chunk is more than L1 holds, and prefetched into L1 it pushed
 * out the lines of the tiles being read (from memory, one thread,
 * n = 1024: 4.4-4.6 ns per unknown into L1, 3.6-3.8 into L2;
 * docs/performance.md). A prefetch past the end of an array is harmless
 * (it never faults). */
static TL_CPU_INLINE void FN(chunk_prefetch)(size_t n, size_t np, size_t t, const FN(flight) * f)
{
  size_t xc = np < TL_CPU_XC ? np : TL_CPU_XC, steps = xc / XT, k = t / steps, j = t % steps;
  size_t ln = f->lane, base = f->off, r0 = (k + 1) * xc;
  if (r0 >= n) /* the last chunk: the next group's first */
    base += SZ * ln, r0 = 0;
  size_t per_line = xc / TILE, per_step = SZ * per_line / steps, q = j * per_step;
  size_t line = q / per_line, e = q % per_line; /* this step's first cache line */
  const T *pa = f->a + base + r0, *pb = f->b + base + r0, *pc = f->c + base + r0;
  const T *pd = f->d + base + r0;
  for (size_t u = 0; u < per_step; u++) {
    size_t o = line * ln + e * TILE;
    TL_CPU_PREFETCH_L2(pa + o, 0);
    TL_CPU_PREFETCH_L2(pb + o, 0);
    TL_CPU_PREFETCH_L2(pc + o, 0);
    TL_CPU_PREFETCH_L2(pd + o, 1);
    if (++e == per_line)
      e = 0, line++;
  }
}

/* ---- a whole tile in registers (SZ = 8) ---- */

/* Where a tile is whole -- XT rows (8 doubles, 16 floats: one cache
 * line) of all 8 lines of a group -- its rows are transposed straight
 * into registers, one vector of the 8 lanes per row and array
 * (tl_cpu_transpose8_load_d, _f) and the recurrence runs on them; the
 * backward pass keeps the tile's rows of x in registers too and
 * transposes them out. The general path (tile_load / tile_store) goes
 * through small tiles on the stack instead, a store and a reload of
 * every row between the transposes and the recurrence; that round trip
 * cost about a third of the kernel's time (docs/performance.md, "The x
 * kernel's whole tiles in registers"). The operations are row_first's,
 * row_next's, row_back's and row_copy_check's, in the same order: the
 * same bits. */
#undef TL_LINES_REGS
#undef TL_LINES_PAIR
#if defined(TL_CPU_SHUFFLE) && SZ == 8 && TL_CPU_XT_LINES == 1
#define TL_LINES_REGS 1
#if !TL_CPU_FLOAT /* float: 0-7 % in L2, not kept (docs/performance.md) */
#define TL_LINES_PAIR 1
#endif

/* A row of the 8 lanes: 512 bits of doubles, 256 of floats; a float tile
 * (16 rows, one cache line) is two 8x8 transposes. */
#undef TL_LV
#undef TL_LV_LOAD
#undef TL_LV_STORE
#if TL_CPU_FLOAT
#define TL_LV tl_cpu_v8f
#define TL_LV_LOAD tl_cpu_transpose8_load_f
#define TL_LV_STORE tl_cpu_transpose8_store_f
#else
#define TL_LV tl_cpu_v8d
#define TL_LV_LOAD tl_cpu_transpose8_load_d
#define TL_LV_STORE tl_cpu_transpose8_store_d
#endif

/* thomas_group.h's cancelled() on a row of 8 lanes: NaN where the pivot
 * p = b - t cancelled to within 2^-30 of b, 0 elsewhere. */
#if TL_CPU_FLOAT
typedef int32_t FN(lvbits) __attribute__((vector_size(32)));
#else
typedef int64_t FN(lvbits) __attribute__((vector_size(64)));
#endif
static TL_CPU_INLINE TL_LV FN(vcancelled)(TL_LV p, TL_LV b)
{
  const TL_LV k = {0x1p-30, 0x1p-30, 0x1p-30, 0x1p-30, 0x1p-30, 0x1p-30, 0x1p-30, 0x1p-30};
  const TL_LV nan = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
#if TL_CPU_FLOAT
  FN(lvbits) m = (FN(lvbits)){0} + INT32_MAX; /* all bits but the sign */
#else
  FN(lvbits) m = (FN(lvbits)){0} + INT64_MAX;
#endif
  TL_LV x = k * (TL_LV)((FN(lvbits))b & m);
  FN(lvbits) cut = ((FN(lvbits))p & m) <= (FN(lvbits))x;
  return (TL_LV)((FN(lvbits))nan & cut);
}

#if !TL_CPU_FLOAT /* the registry's margins: double only */
typedef long long FN(v8l) __attribute__((vector_size(64)));

/* |v|, and v where v < cur else cur: fabs and dom_tile's `mr < rmin ?
 * mr : rmin`, lane by lane (a NaN keeps cur). */
static TL_CPU_INLINE tl_cpu_v8d FN(vabs)(tl_cpu_v8d v)
{
  const FN(v8l) m = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX,
                     INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  return (tl_cpu_v8d)((FN(v8l))v & m);
}

static TL_CPU_INLINE tl_cpu_v8d FN(vless)(tl_cpu_v8d v, tl_cpu_v8d cur)
{
  T o[SZ], w[SZ], c[SZ];
  memcpy(w, &v, sizeof w), memcpy(c, &cur, sizeof c);
#pragma omp simd
  for (int l = 0; l < SZ; l++)
    o[l] = w[l] < c[l] ? w[l] : c[l];
  memcpy(&cur, o, sizeof o);
  return cur;
}

/* v where v > cur else cur, lane by lane. */
static TL_CPU_INLINE tl_cpu_v8d FN(vmore)(tl_cpu_v8d v, tl_cpu_v8d cur)
{
  T o[SZ], w[SZ], c[SZ];
  memcpy(w, &v, sizeof w), memcpy(c, &cur, sizeof c);
#pragma omp simd
  for (int l = 0; l < SZ; l++)
    o[l] = w[l] > c[l] ? w[l] : c[l];
  memcpy(&cur, o, sizeof o);
  return cur;
}

/* xmax_tile on a whole tile in registers. */
static TL_CPU_INLINE void FN(xmax_tile_regs)(const tl_cpu_v8d *X, T *xmax)
{
  tl_cpu_v8d xm;
  memcpy(&xm, xmax, sizeof xm);
  for (size_t r = 0; r < XT; r++)
    xm = FN(vmore)(FN(vabs)(X[r]), xm);
  memcpy(xmax, &xm, sizeof xm);
}

/* dom_tile on a whole tile in registers: the same margins, the same
 * order, the same bits. */
static TL_CPU_INLINE void FN(dom_tile_regs)(const tl_cpu_v8d *A, const tl_cpu_v8d *B,
                                            const tl_cpu_v8d *C, size_t i0, size_t n,
                                            FN(dom) * m)
{
  tl_cpu_v8d rmin, cmin, b1, c1, c2;
  size_t r0 = 0;
  memcpy(&rmin, m->rmin, sizeof rmin), memcpy(&cmin, m->cmin, sizeof cmin);
  memcpy(&b1, m->b1, sizeof b1), memcpy(&c1, m->c1, sizeof c1), memcpy(&c2, m->c2, sizeof c2);
  if (i0 == 0) { /* row 0: |b_0| - |c_0| */
    tl_cpu_v8d ab = FN(vabs)(B[0]), ac = FN(vabs)(C[0]);
    rmin = FN(vless)(ab - ac, rmin);
    c2 = c1, c1 = ac, b1 = ab;
    r0 = 1;
  }
  for (size_t r = r0; r < XT; r++) {
    tl_cpu_v8d ab = FN(vabs)(B[r]), aa = FN(vabs)(A[r]), ac = FN(vabs)(C[r]);
    rmin = FN(vless)(ab - (aa + ac), rmin);
    cmin = FN(vless)(b1 - (c2 + aa), cmin);
    c2 = c1, c1 = ac, b1 = ab;
  }
  if (i0 + XT == n) /* the last column: |b_{n-1}| - |c_{n-2}| */
    cmin = FN(vless)(b1 - c2, cmin);
  memcpy(m->rmin, &rmin, sizeof rmin), memcpy(m->cmin, &cmin, sizeof cmin);
  memcpy(m->b1, &b1, sizeof b1), memcpy(m->c1, &c1, sizeof c1), memcpy(m->c2, &c2, sizeof c2);
}
#endif

/* A[r] = row i0 + r of the 8 lines, and B, C, D. A float tile (16 rows)
 * reads each cache line in two halves. The usual order interleaves the
 * arrays: the first halves of A, B, C and D, then their second halves, so
 * that the transposes of one array overlap the loads of the next. Where
 * the lines lie a multiple of 2 KiB apart (lane a multiple of 512
 * floats: n = 512, 1024, 4096, ...) and the arrays share one offset
 * modulo 4 KiB (as large allocations usually do), the 8 lines of the
 * four arrays fall into two sets of L1 (16 lines each) or one (32), more
 * than its 12 ways, and the second halves found their lines evicted.
 * There the two halves of each array are read one after the other: in
 * cache, one thread, n = 1024 and 4096 take 1.29-1.30 ns per unknown
 * instead of 1.61-1.63, n = 512 1.21 instead of 1.33; at the other n that
 * order was 5-7 % slower than the usual one (docs/performance.md, "The
 * float x tile's two halves", raw CSVs beside it). TL_CPU_ORDER keeps
 * each order as written: without it the compiler gave both paths one
 * schedule, and neither gain. A double tile (8 rows) is one load per line
 * and array; a barrier there cost 5-8 % from memory, so it has none. */
static TL_CPU_INLINE void FN(tile_in_regs)(const FN(flight) * f, size_t i0, TL_LV *A, TL_LV *B,
                                           TL_LV *C, TL_LV *D)
{
  size_t ln = f->lane, o = f->off + i0;
  if (XT > 8 && ln % (2048 / sizeof(T)) == 0) {
    for (size_t h = 0; h < XT; h += 8)
      TL_LV_LOAD(f->a + o + h, ln, A + h);
    TL_CPU_ORDER();
    for (size_t h = 0; h < XT; h += 8)
      TL_LV_LOAD(f->b + o + h, ln, B + h);
    TL_CPU_ORDER();
    for (size_t h = 0; h < XT; h += 8)
      TL_LV_LOAD(f->c + o + h, ln, C + h);
    TL_CPU_ORDER();
    for (size_t h = 0; h < XT; h += 8)
      TL_LV_LOAD(f->d + o + h, ln, D + h);
    return;
  }
  for (size_t h = 0; h < XT; h += 8) {
    TL_LV_LOAD(f->a + o + h, ln, A + h);
    TL_LV_LOAD(f->b + o + h, ln, B + h);
    TL_LV_LOAD(f->c + o + h, ln, C + h);
    TL_LV_LOAD(f->d + o + h, ln, D + h);
    if (XT > 8) /* more than one load per line (float): its halves in this order too */
      TL_CPU_ORDER();
  }
}

/* row_next on a row of the 8 lanes, its c' and d' stored at scratch row w:
 * the one copy of the forward step that tile_forward_regs and the pairs'
 * tile_forward_regs2 run, so that both give row_next's bits. */
static TL_CPU_INLINE void FN(row_next_regs)(TL_LV A, TL_LV B, TL_LV C, TL_LV D, TL_LV *pc,
                                            TL_LV *pd, TL_LV *chk, T *cp, T *dp, size_t w)
{
  const TL_LV one = {1, 1, 1, 1, 1, 1, 1, 1};
  TL_LV p = B - A * *pc, q = one / p;
  *pc = C * q;
  *pd = (D - A * *pd) * q;
  *chk += p + FN(vcancelled)(p, B);
  memcpy(cp + w * SZ, pc, sizeof *pc), memcpy(dp + w * SZ, pd, sizeof *pd);
}

/* row_back on a row of the 8 lanes, from scratch row p. */
static TL_CPU_INLINE TL_LV FN(row_back_regs)(const T *cp, const T *dp, size_t p, TL_LV *xr,
                                             TL_LV *chk)
{
  TL_LV c1, d1;
  memcpy(&c1, cp + p * SZ, sizeof c1), memcpy(&d1, dp + p * SZ, sizeof d1);
  *xr = d1 - c1 * *xr;
  *chk += *xr;
  return *xr;
}

/* A backward tile's rows of x (X) out to the group's lines: the largest
 * |x| kept (reg = 2), then transposed out, by streaming stores where the
 * flight streams (f->nt). */
static TL_CPU_INLINE void FN(tile_out_regs)(int reg, FN(flight) * f, size_t i0, TL_LV *X)
{
  (void)reg;    /* (float: no largest |x|) */
#if !TL_CPU_FLOAT
  if (reg == 2) /* off the recurrence's chain: the tile's rows are done */
    FN(xmax_tile_regs)(X, f->xmax);
  if (f->nt) { /* the tile's 8 rows: a whole cache line of each line */
    tl_cpu_transpose8_stream_d(X, f->x + f->off + i0, f->lane);
    return;
  }
#endif
  for (size_t h = 0; h < XT; h += 8)
    TL_LV_STORE(X + h, f->x + f->off + i0 + h, f->lane);
}

static TL_CPU_INLINE void FN(tile_forward_regs)(int reg, size_t n, size_t np, size_t i0,
                                                FN(flight) * f, T *cp, T *dp)
{
  const TL_LV one = {1, 1, 1, 1, 1, 1, 1, 1};
  size_t sh = f->shift, r0 = 0;
  TL_LV A[XT], B[XT], C[XT], D[XT], pc, pd, chk;
  FN(tile_in_regs)(f, i0, A, B, C, D);
  if (reg == 2 && f->fix0) { /* the right-hand side's end rows (lines_run_more) */
    if (i0 == 0)
      for (int l = 0; l < SZ; l++)
        D[0][l] -= f->fix0[l];
    if (i0 + XT == n)
      for (int l = 0; l < SZ; l++)
        D[XT - 1][l] -= f->fix1[l];
  }
  if (reg == 2 && f->last && i0 + XT == n) /* the identity row (lines_run_more) */
    for (int l = 0; l < SZ; l++)
      A[XT - 1][l] = 0, B[XT - 1][l] = 1, D[XT - 1][l] = f->last[l];
  if (reg == 2 && f->first && i0 == 0) /* the identity row (lines_run_more) */
    for (int l = 0; l < SZ; l++)
      A[0][l] = 0, B[0][l] = 1, C[0][l] = 0, D[0][l] = f->first[l];
  if (reg && i0 == 0)
    for (int l = 0; l < SZ; l++)
      f->dom.corner[l] += TABS(A[0][l]);
  if (i0 + XT == n) { /* the corner c[n-1] is not part of the system */
    if (reg)
      for (int l = 0; l < SZ; l++)
        f->dom.corner[l] += TABS(C[XT - 1][l]);
    C[XT - 1] = one - one;
  }
  memcpy(&chk, f->chk, sizeof chk);
  if (i0 == 0) { /* row_first */
    TL_LV q = one / B[0];
    size_t w = TL_CPU_POS(sh, f->rev, np);
    pc = C[0] * q;
    pd = D[0] * q;
    chk = B[0];
    memcpy(cp + w * SZ, &pc, sizeof pc), memcpy(dp + w * SZ, &pd, sizeof pd);
    r0 = 1;
  } else {
    size_t pm = TL_CPU_POS(sh + i0 - 1, f->rev, np);
    memcpy(&pc, cp + pm * SZ, sizeof pc), memcpy(&pd, dp + pm * SZ, sizeof pd);
  }
  for (size_t r = r0; r < XT; r++)
    FN(row_next_regs)
    (A[r], B[r], C[r], D[r], &pc, &pd, &chk, cp, dp, TL_CPU_POS(sh + i0 + r, f->rev, np));
  memcpy(f->chk, &chk, sizeof chk);
#if !TL_CPU_FLOAT
  if (reg)
    FN(dom_tile_regs)(A, B, C, i0, n, &f->dom);
#endif
}

static TL_CPU_INLINE void FN(tile_backward_regs)(int reg, size_t n, size_t np, size_t i0,
                                                 FN(flight) * f, const T *cp, const T *dp)
{
  size_t sh = f->shift, r = XT;
  TL_LV X[XT], xr, chk;
  memcpy(&chk, f->chk, sizeof chk);
  if (i0 + XT == n) { /* row_copy_check: x = d' on the last row */
    r--;
    memcpy(&xr, dp + TL_CPU_POS(sh + i0 + r, f->rev, np) * SZ, sizeof xr);
    chk += xr;
    X[r] = xr;
  } else {
    memcpy(&xr, f->xr, sizeof xr);
  }
  while (r-- > 0)
    X[r] = FN(row_back_regs)(cp, dp, TL_CPU_POS(sh + i0 + r, f->rev, np), &xr, &chk);
  memcpy(f->xr, &xr, sizeof xr); /* row i0 carries into the tile below */
  memcpy(f->chk, &chk, sizeof chk);
  FN(tile_out_regs)(reg, f, i0, X);
}

#ifdef TL_LINES_PAIR
/* Two groups' interior tiles at once (lines_pairs): the same rows of two
 * flights f[0], f[1], each with its own scratch. A row's recurrence is
 * one chain of dependent operations (a multiplication, a subtraction,
 * the division, a multiplication); on its own the chain leaves the core
 * idle most of the time. Two independent chains, one per group, issued
 * row by row side by side, share that wait. The operations of each
 * group are row_next's and row_back's, in the same order: the same bits.
 *
 * Forward, interior tiles only (not row 0, not row n-1): the rows of the
 * tile lie transposed in cur[g][j][r] (j: a, b, c, d), and the next
 * tile's rows are transposed into nxt meanwhile, one array of one group
 * after each of the 8 rows, so that the transposes fill the wait of the
 * chains rather than queue behind it. Double only (TL_LINES_PAIR): a
 * tile is 8 rows, one load of each line per array. */
static TL_CPU_INLINE void FN(tile_forward_regs2)(int reg, size_t n, size_t np, size_t i0, size_t i1,
                                                 FN(flight) * f, T *const *cp, T *const *dp,
                                                 TL_LV (*cur)[4][XT], TL_LV (*nxt)[4][XT])
{
  TL_LV pc[2], pd[2], chk[2];
  const T *src[XT];
  size_t ln = f[0].lane;
  for (size_t r = 0; r < XT; r++) { /* row r's job: array r % 4 of group r / 4 */
    size_t g = r / 4, j = r % 4;
    const T *arr = j == 0 ? f[g].a : j == 1 ? f[g].b : j == 2 ? f[g].c : f[g].d;
    src[r] = arr + f[g].off + i1;
  }
  for (int g = 0; g < 2; g++) {
    size_t pm = TL_CPU_POS(f[g].shift + i0 - 1, f[g].rev, np);
    memcpy(&chk[g], f[g].chk, sizeof chk[g]);
    memcpy(&pc[g], cp[g] + pm * SZ, sizeof pc[g]), memcpy(&pd[g], dp[g] + pm * SZ, sizeof pd[g]);
  }
  TL_LINES_PAIR_UNROLL
  for (size_t r = 0; r < XT; r++) {
    for (int g = 0; g < 2; g++)
      FN(row_next_regs)
      (cur[g][0][r], cur[g][1][r], cur[g][2][r], cur[g][3][r], &pc[g], &pd[g], &chk[g], cp[g],
       dp[g], TL_CPU_POS(f[g].shift + i0 + r, f[g].rev, np));
    TL_LV_LOAD(src[r], ln, nxt[r / 4][r % 4]);
  }
  for (int g = 0; g < 2; g++) {
    memcpy(f[g].chk, &chk[g], sizeof chk[g]);
    if (reg)
      FN(dom_tile_regs)(cur[g][0], cur[g][1], cur[g][2], i0, n, &f[g].dom);
  }
}

static TL_CPU_INLINE void FN(tile_backward_regs2)(int reg, size_t np, size_t i0, FN(flight) * f,
                                                  T *const *cp, T *const *dp)
{
  TL_LV X[2][XT], xr[2], chk[2];
  for (int g = 0; g < 2; g++)
    memcpy(&chk[g], f[g].chk, sizeof chk[g]), memcpy(&xr[g], f[g].xr, sizeof xr[g]);
  for (size_t r = XT; r-- > 0;)
    for (int g = 0; g < 2; g++)
      X[g][r] = FN(row_back_regs)(cp[g], dp[g], TL_CPU_POS(f[g].shift + i0 + r, f[g].rev, np),
                                  &xr[g], &chk[g]);
  for (int g = 0; g < 2; g++) {
    memcpy(f[g].xr, &xr[g], sizeof xr[g]), memcpy(f[g].chk, &chk[g], sizeof chk[g]);
    FN(tile_out_regs)(reg, &f[g], i0, X[g]);
  }
}
#endif /* TL_LINES_PAIR */
#endif

/* Forward tile t of a group (rows t XT - shift ..., tile_rows; tile 0
 * short when shift > 0); np = rows of the scratch, in virtual rows (row
 * + shift), so the pipeline's two groups still meet tile for tile: group
 * g+1's forward tile k (upside down) fills exactly the XT positions that
 * group g's backward tile nt-1-k has just read.
 * reg (the registry backend): the tile's corners and dominance margins
 * go into f->dom while the tile is in L1. */
static TL_CPU_INLINE void FN(tile_forward)(int reg, size_t n, size_t np, size_t t, FN(flight) * f,
                                           T *cp, T *dp)
{
  size_t i0, rows, ln = f->lane, sh = f->shift;
  FN(tile_rows)(n, sh, t, &i0, &rows);
  size_t valid = f->valid;
  const T *fa = f->a + f->off, *fb = f->b + f->off, *fc = f->c + f->off;
  const T *fd = f->d + f->off;
  FN(chunk_prefetch)(n, np, t, f);
#ifdef TL_LINES_REGS
  if (rows == XT && valid == SZ) {
    FN(tile_forward_regs)(reg, n, np, i0, f, cp, dp);
    return;
  }
#endif
  T ta[XT * SZ], tb[XT * SZ], tc[XT * SZ], td[XT * SZ];
  FN(tile_load)(fa + i0, ln, valid, rows, 0, ta);
  FN(tile_load)(fb + i0, ln, valid, rows, 1, tb);
  FN(tile_load)(fc + i0, ln, valid, rows, 0, tc);
  FN(tile_load)(fd + i0, ln, valid, rows, 0, td);
  if (reg == 2 && f->fix0) { /* the right-hand side's end rows (lines_run_more) */
    if (i0 == 0)
      for (size_t l = 0; l < valid; l++)
        td[l] -= f->fix0[l];
    if (i0 + rows == n)
      for (size_t l = 0; l < valid; l++)
        td[(rows - 1) * SZ + l] -= f->fix1[l];
  }
  if (reg == 2 && f->last && i0 + rows == n) /* the identity row (lines_run_more) */
    for (size_t l = 0; l < valid; l++) {
      size_t q = (rows - 1) * SZ + l;
      ta[q] = 0, tb[q] = 1, td[q] = f->last[l];
    }
  if (reg == 2 && f->first && i0 == 0) /* the identity row (lines_run_more) */
    for (size_t l = 0; l < valid; l++)
      ta[l] = 0, tb[l] = 1, tc[l] = 0, td[l] = f->first[l];
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
  memcpy(chk, f->chk, sizeof chk);
  if (i0 == 0) {
    size_t p = TL_CPU_POS(sh, f->rev, np);
    FN(row_first)(tb, tc, td, cp + p * SZ, dp + p * SZ, chk);
    r0 = 1;
  }
  size_t pm = TL_CPU_POS(sh + i0 + r0 - 1, f->rev, np);
  memcpy(pc, cp + pm * SZ, sizeof pc), memcpy(pd, dp + pm * SZ, sizeof pd);
  for (size_t r = r0; r < rows; r++) {
    size_t p = TL_CPU_POS(sh + i0 + r, f->rev, np);
    FN(row_next)(ta + r * SZ, tb + r * SZ, tc + r * SZ, td + r * SZ, pc, pd, pc, pd, chk);
    memcpy(cp + p * SZ, pc, sizeof pc), memcpy(dp + p * SZ, pd, sizeof pd);
  }
  memcpy(f->chk, chk, sizeof chk);
}

/* Backward step k: tile nt-1-k, its rows from the last, then transposed out. */
static TL_CPU_INLINE void FN(tile_backward)(int reg, size_t n, size_t np, size_t k, FN(flight) * f,
                                            const T *cp, const T *dp)
{
  size_t i0, rows;
  FN(tile_rows)(n, f->shift, np / XT - 1 - k, &i0, &rows);
#ifdef TL_LINES_REGS
  if (rows == XT && f->valid == SZ) {
    FN(tile_backward_regs)(reg, n, np, i0, f, cp, dp);
    return;
  }
#endif
  T tx[XT * SZ], xr[SZ], chk[SZ]; /* xr: x of row i + 1, in registers */
  memcpy(xr, f->xr, sizeof xr), memcpy(chk, f->chk, sizeof chk);
  for (size_t r = rows; r-- > 0;) {
    size_t i = i0 + r, p = TL_CPU_POS(f->shift + i, f->rev, np);
    if (i + 1 == n)
      FN(row_copy_check)(dp + p * SZ, xr, chk);
    else
      FN(row_back)(cp + p * SZ, dp + p * SZ, xr, xr, chk);
    memcpy(tx + r * SZ, xr, sizeof xr);
  }
  memcpy(f->xr, xr, sizeof xr); /* row i0 carries into the tile below */
  memcpy(f->chk, chk, sizeof chk);
  if (reg == 2)
    FN(xmax_tile)(tx, rows, f->xmax);
  FN(tile_store)(tx, f->lane, f->valid, rows, f->x + f->off + i0);
}

/* A thread's groups g0..g1-1 as a software pipeline: step k runs the
 * backward tile k of group g (from the last tile up, in cache) and the
 * forward tile k of group g+1 (from memory):
 *
 *   step k:   forward tile k of group g+1       (reads a, b, c, d)
 *             backward tile nt-1-k of group g   (reads c', d' from cache, writes x)
 *
 * One scratch pair (c', d') of np SZ values each serves both groups:
 * every other group stores its rows upside down (rev), so group g+1
 * writes its tile k where group g has just read its tile nt-1-k. */
static TL_CPU_INLINE void FN(lines_pipeline)(int reg, int nt, int pair, size_t n, size_t nsys,
                                             size_t g0, size_t g1, size_t shift, const T *a,
                                             const T *b, const T *c, const T *d, T *x, T *cp, T *dp,
                                             uint64_t *bad, uint64_t *kept)
{
  size_t np = (n + shift + XT - 1) / XT * XT, steps = np / XT;
  FN(flight) fl[2];
  (void)nt, (void)pair; /* its tiles go through the stack: plain stores, one group */
  if (g0 >= g1)
    return;
  FN(flight_start)(&fl[0], n, nsys, g0, 0, shift, a, b, c, d, x);
  for (size_t k = 0; k < steps; k++)
    FN(tile_forward)(reg, n, np, k, &fl[0], cp, dp);
  for (size_t g = g0; g < g1; g++) {
    FN(flight) *cur = &fl[(g - g0) & 1u], *nxt = &fl[1 - ((g - g0) & 1u)];
    int more = g + 1 < g1;
    if (more)
      FN(flight_start)(nxt, n, nsys, g + 1, !cur->rev, shift, a, b, c, d, x);
    for (size_t k = 0; k < steps; k++) {
      FN(tile_backward)(reg, n, np, k, cur, cp, dp);
      if (more)
        FN(tile_forward)(reg, n, np, k, nxt, cp, dp);
    }
    TL_CPU_BAD_MASK(cur->chk, SZ, bad[g]);
    if (reg)
      FN(dom_keep)(reg, &cur->dom, cur->xmax, kept + KEPT(reg) * g);
  }
}

#ifdef TL_LINES_PAIR
/* Groups g0, g0+1, ... two at a time (lines_sequence where the thread's
 * share of the batch is in L2, lines_pair): all forward tiles of the
 * pair, then all backward tiles; each group has its own scratch, the
 * second pair of np SZ values after dp. Their whole tiles run side by
 * side (tile_forward_regs2: the interior ones; tile_backward_regs2: all
 * but the one with row n-1, which starts the backward sweep); the other
 * tiles, and every tile of a pair with a group of fewer than SZ lines,
 * as lines_sequence runs them. Returns the group after the last pair.
 * A function of its own (not inlined into lines_sequence): inlined, the
 * one-group path beside it ran 2-4 % slower on large batches. */
TL_CPU_CLONES static size_t FN(lines_pairs)(int reg, int nt, size_t n, size_t nsys, size_t g0,
                                            size_t g1, size_t shift, const T *a, const T *b,
                                            const T *c, const T *d, T *x, T *cp, T *dp,
                                            uint64_t *bad, uint64_t *kept)
{
  size_t np = (n + shift + XT - 1) / XT * XT, steps = np / XT, g = g0;
  FN(flight) f2[2];
  T *cps[2] = {cp, dp + np * SZ}, *dps[2] = {dp, dp + 2 * np * SZ};
  for (; g + 1 < g1; g += 2) {
    for (int h = 0; h < 2; h++) {
      FN(flight_start)(&f2[h], n, nsys, g + (size_t)h, 0, shift, a, b, c, d, x);
      f2[h].nt = nt;
    }
    int whole = f2[0].valid == SZ && f2[1].valid == SZ;
    /* interior whole tiles: k in [klo, khi) (not row 0, not row n-1) */
    size_t klo = 1, khi = steps - 1;
    if (!whole || khi <= klo)
      klo = khi = steps;
    _Alignas(64) TL_LV buf[2][2][4][XT];
    for (size_t k = 0; k < steps; k++) {
      size_t i0, rows;
      FN(tile_rows)(n, shift, k, &i0, &rows);
      if (k >= klo && k < khi) {
        size_t i1 = k + 1 < khi ? i0 + XT : i0; /* the last: its own again, unused */
        FN(chunk_prefetch)(n, np, k, &f2[0]);
        FN(chunk_prefetch)(n, np, k, &f2[1]);
        FN(tile_forward_regs2)(reg, n, np, i0, i1, f2, cps, dps, buf[k & 1], buf[(k + 1) & 1]);
      } else {
        FN(tile_forward)(reg, n, np, k, &f2[0], cps[0], dps[0]);
        FN(tile_forward)(reg, n, np, k, &f2[1], cps[1], dps[1]);
        if (k + 1 == klo && klo < khi) /* the first interior tile's rows, for the step above */
          for (int h = 0; h < 2; h++)
            FN(tile_in_regs)
            (&f2[h], i0 + rows, buf[klo & 1][h][0], buf[klo & 1][h][1], buf[klo & 1][h][2],
             buf[klo & 1][h][3]);
      }
    }
    for (size_t k = 0; k < steps; k++) {
      size_t i0, rows;
      FN(tile_rows)(n, shift, steps - 1 - k, &i0, &rows);
      if (whole && rows == XT && i0 + XT < n) {
        FN(tile_backward_regs2)(reg, np, i0, f2, cps, dps);
      } else {
        FN(tile_backward)(reg, n, np, k, &f2[0], cps[0], dps[0]);
        FN(tile_backward)(reg, n, np, k, &f2[1], cps[1], dps[1]);
      }
    }
    for (int h = 0; h < 2; h++) {
      TL_CPU_BAD_MASK(f2[h].chk, SZ, bad[g + (size_t)h]);
      if (reg)
        FN(dom_keep)(reg, &f2[h].dom, f2[h].xmax, kept + KEPT(reg) * (g + (size_t)h));
    }
  }
  return g;
}
#endif

/* A thread's groups g0..g1-1 one after the other: all forward tiles of
 * a group, then its backward tiles. With whole tiles in registers (SZ =
 * 8) this order was as fast as the pipeline above for double thomas_3d,
 * 1.12-1.31 times faster for the registry backend, whose margins the
 * pipeline kept for two groups at once, and 1.15-1.2 times faster for
 * float (docs/performance.md); the chunk prefetch still runs ahead, into
 * the next group. Where every tile goes through the stack (SZ 16 to 64)
 * the pipeline stays. */
static TL_CPU_INLINE void FN(lines_sequence)(int reg, int nt, int pair, size_t n, size_t nsys,
                                             size_t g0, size_t g1, size_t shift, const T *a,
                                             const T *b, const T *c, const T *d, T *x, T *cp, T *dp,
                                             uint64_t *bad, uint64_t *kept)
{
  size_t np = (n + shift + XT - 1) / XT * XT, steps = np / XT;
  FN(flight) f;
  size_t g = g0;
#ifdef TL_LINES_PAIR
  if (pair) /* two groups at a time while they last (lines_pairs) */
    g = FN(lines_pairs)(reg, nt, n, nsys, g0, g1, shift, a, b, c, d, x, cp, dp, bad, kept);
#else
  (void)pair;
#endif
  for (; g < g1; g++) {
    FN(flight_start)(&f, n, nsys, g, 0, shift, a, b, c, d, x);
    f.nt = nt;
    for (size_t k = 0; k < steps; k++)
      FN(tile_forward)(reg, n, np, k, &f, cp, dp);
    for (size_t k = 0; k < steps; k++)
      FN(tile_backward)(reg, n, np, k, &f, cp, dp);
    TL_CPU_BAD_MASK(f.chk, SZ, bad[g]);
    if (reg)
      FN(dom_keep)(reg, &f.dom, f.xmax, kept + KEPT(reg) * g);
  }
}

#undef TL_LINES_GROUPS
#ifdef TL_LINES_REGS
#define TL_LINES_GROUPS FN(lines_sequence)
#else
#define TL_LINES_GROUPS FN(lines_pipeline)
#endif

/* The specialisations: with the registry's checks only where the
 * registry backend uses them (double), which keeps the build time down. */
TL_CPU_CLONES static void FN(lines_run)(int reg, int nt, int pair, size_t n, size_t nsys, size_t g0,
                                        size_t g1, size_t shift, const T *a, const T *b, const T *c,
                                        const T *d, T *x, T *cp, T *dp, uint64_t *bad,
                                        uint64_t *kept)
{
#if !TL_CPU_FLOAT
  if (reg)
    TL_LINES_GROUPS(1, nt, pair, n, nsys, g0, g1, shift, a, b, c, d, x, cp, dp, bad, kept);
  else
#endif
    TL_LINES_GROUPS(0, nt, pair, n, nsys, g0, g1, shift, a, b, c, d, x, cp, dp, bad, kept);
  if (nt)
    tl_cpu_stream_fence();
  (void)reg;
}

/* The registry's checks and also the margins and the largest |x| (reg =
 * 2, the rank programs of PDD and RPDD), fix (2 nsys values, may be NULL)
 * subtracted from d's rows 0 and n-1 as they are read: a function of its
 * own, its groups one after the other (lines_sequence's order), so that
 * lines_run's code stays as it was for thomas_cpu. */
TL_CPU_CLONES static void FN(lines_run_more)(int nt, size_t n, size_t nsys, size_t g0, size_t g1,
                                             size_t shift, const T *a, const T *b, const T *c,
                                             const T *d, T *x, T *cp, T *dp, uint64_t *bad,
                                             uint64_t *kept, const T *fix, const T *last,
                                             const T *first)
{
#if !TL_CPU_FLOAT
  size_t np = (n + shift + XT - 1) / XT * XT, steps = np / XT;
  FN(flight) f;
  for (size_t g = g0; g < g1; g++) {
    FN(flight_start)(&f, n, nsys, g, 0, shift, a, b, c, d, x);
    f.nt = nt;
    memset(f.xmax, 0, sizeof f.xmax);
    if (fix)
      f.fix0 = fix + g * SZ, f.fix1 = fix + nsys + g * SZ;
    if (last)
      f.last = last + g * SZ;
    if (first)
      f.first = first + g * SZ;
    for (size_t k = 0; k < steps; k++)
      FN(tile_forward)(2, n, np, k, &f, cp, dp);
    for (size_t k = 0; k < steps; k++)
      FN(tile_backward)(2, n, np, k, &f, cp, dp);
    TL_CPU_BAD_MASK(f.chk, SZ, bad[g]);
    FN(dom_keep)(2, &f.dom, f.xmax, kept + KEPT(2) * g);
  }
  if (nt)
    tl_cpu_stream_fence();
#else
  (void)nt, (void)n, (void)nsys, (void)g0, (void)g1, (void)shift, (void)a, (void)b, (void)c;
  (void)d, (void)x, (void)cp, (void)dp, (void)bad, (void)kept, (void)fix, (void)last;
  (void)first;
#endif
}

/* The first lane of the groups that broke down, reported as thomas_3d
 * reports it; TL_OK when every flagged lane was only an overflow of its
 * check sum. */
static int FN(lines_report)(size_t n, size_t nsys, const uint64_t *bad, const T *a, const T *b,
                            const T *c, const T *x, tl_info *info)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  for (size_t g = 0; g < groups; g++) {
    if (!bad[g])
      continue;
    size_t s0 = g * SZ, off = s0 * n, valid = nsys - s0 < SZ ? nsys - s0 : SZ;
    long row;
    int piv;
    int l = FN(confirm)(bad[g], valid, n, a + off, b + off, c + off, x + off, n, 1, &row, &piv);
    if (l >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(s0 + (size_t)l), row, "",
                     "thomas_3d: %s at row %ld of line %zu",
                     piv ? "zero or non-finite pivot" : "overflow", row, s0 + (size_t)l);
  }
  return TL_OK;
}

/* Whether x's whole tiles go out by streaming stores (cpu_internal.h,
 * TL_CPU_NT): x larger than the cache (tl_cpu_stream_min_bytes), so its
 * lines go to memory anyway, and each whole tile of x a whole cache line
 * of every line -- lines a multiple of TILE long and x as far past a
 * 64-byte boundary as b, on whose lines the tiles start (tile_rows) --
 * and x an array of its own (tl_solve's). Without them each line of x
 * is read from memory before it is written: a sixth word per unknown
 * where the model has five. In place (x = d) the line of d the forward
 * sweep read is still in L2 when the backward sweep writes it, and a
 * streaming store, which takes the line out of the cache, was slower
 * there: 2.0-2.3 -> 2.3-2.9 ns per unknown (docs/performance.md).
 * Double only: for float lines (a whole tile is two transposes, 16 rows)
 * streaming was 1.15-1.2 times faster at n = 256 and 1.05 times slower
 * at 4096 (one thread, 2^24 unknowns), so plain stores stay. */
static int FN(stream_x)(size_t n, size_t nsys, const T *b, const T *d, const T *x, size_t span)
{
#ifdef TL_LINES_REGS /* only whole tiles in registers stream (tile_backward_regs) */
  size_t past = (size_t)((uintptr_t)b % 64);
  return TL_CPU_NT && !TL_CPU_FLOAT && x != d && n % TILE == 0 && past % sizeof(T) == 0 &&
         (uintptr_t)x % 64 == past &&
         (n * nsys * sizeof(T) > span ? n * nsys * sizeof(T) : span) > tl_cpu_stream_min_bytes();
#else
  (void)n, (void)nsys, (void)b, (void)d, (void)x, (void)span;
  return 0;
#endif
}

/* Whether a thread runs its groups two at a time (lines_pairs): where
 * its share of a, b, c, d and x fits in L2 (TL_LINES_PAIR_MAX bytes),
 * the kernel's time is the chain of dependent operations of each row's
 * recurrence, and two chains side by side were 1.20-1.26 times faster on
 * one thread and 1.06-1.25 on two (n = 128 and 256). From L3 they gained
 * nothing at n = 256 and 1024 and were 1.2 times slower at 4096, and from
 * memory, 16 lines read at once instead of 8, 1.1-1.3 times slower:
 * there the supply of the lines, not the chain, sets the time
 * (docs/performance.md, "The x kernel in L2: two chains"). */
#ifndef TL_LINES_PAIR_MAX
#define TL_LINES_PAIR_MAX ((size_t)1 << 20)
#endif
static int FN(lines_pair)(size_t n, size_t groups)
{
#ifdef TL_LINES_PAIR
  return groups >= 2 && groups * SZ * n * 5 * sizeof(T) <= TL_LINES_PAIR_MAX;
#else
  (void)n, (void)groups;
  return 0;
#endif
}

/* Solve nsys lines of n rows. Without redo, the first breakdown is
 * reported. With redo (nsys bytes; the registry backend, double only)
 * nothing is reported: redo[s] receives 1 for a system that may have
 * broken down (or holds a non-finite entry), 2 for one outside the
 * dominance classes, 3 for one with a non-zero corner, else 0; and,
 * only with redo, rowmin and xmax (nsys values each, may be NULL) each
 * system's least row margin (FN(dom)) and largest |x|. span: the bytes
 * of x the caller's whole pass writes, of which this call is a part (0:
 * this call's own): x's lines go to memory by streaming stores when it
 * is larger than the cache (stream_x). */
static int FN(thomas_lines)(size_t n, size_t nsys, const T *a, const T *b, const T *c, const T *d,
                            T *x, unsigned char *redo, const tl_cpu_lines_more *more, tl_info *info)
{
  T *rowmin = NULL, *xmax = NULL;
  const T *fix = NULL, *last = NULL, *first = NULL;
  size_t span = 0;
#if !TL_CPU_FLOAT
  if (more) {
    rowmin = more->rowmin, xmax = more->xmax, fix = more->d_ends, span = more->x_span;
    last = more->x_last, first = more->x_first;
  }
#else
  (void)more; /* float: the registry's checks are not built */
#endif
  /* 2: lines_run_more, which also keeps the margins and |x| and takes fix */
  int reg = redo == NULL ? 0 : (rowmin || xmax || fix || last || first) ? 2 : 1;
  if (reg && TL_CPU_FLOAT) /* not built: see lines_run */
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dir",
                   "thomas_3d: the registry's checks are built for double lines along x only");
  /* Tiles on b's cache lines (tile_rows): where every line starts the
   * same distance past a boundary (n a multiple of TILE) and b's entries
   * are aligned to their size; otherwise as they fall. */
  size_t past = (size_t)((uintptr_t)b % 64), shift = 0;
  if (n % TILE == 0 && past % sizeof(T) == 0 && past > 0)
    shift = past / sizeof(T);
  /* the extras (reg = 2) stream x only when the caller says how large
   * its pass is: a rank program that reads x right after passes 0 */
  int nt = (reg < 2 || span > 0) && FN(stream_x)(n, nsys, b, d, x, span);
  size_t groups = (nsys + SZ - 1) / SZ, np = (n + shift + XT - 1) / XT * XT;
  uint64_t *bad = tl_alloc(groups, sizeof *bad);
  uint64_t *kept = reg ? tl_alloc(KEPT(reg) * groups, sizeof *kept) : NULL;
  if (!bad || (reg && !kept)) {
    free(bad);
    free(kept);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_3d: no memory");
  }
  size_t nomem = 0; /* the scratch values a thread did not get */
#pragma omp parallel
  {
    size_t g0, g1;
    tl_cpu_my_share(groups, &g0, &g1);
    int pair = reg < 2 && FN(lines_pair)(n, g1 - g0);
    size_t want = (pair ? 4 : 2) * np * SZ; /* two groups' c', d' with pairs */
    T *cp = g0 < g1 ? tl_cpu_scratch(want, sizeof(T)) : NULL;
    if (cp && reg == 2) {
      FN(lines_run_more)
      (nt, n, nsys, g0, g1, shift, a, b, c, d, x, cp, cp + np * SZ, bad, kept, fix, last, first);
    } else if (cp) {
      FN(lines_run)
      (reg, nt, pair, n, nsys, g0, g1, shift, a, b, c, d, x, cp, cp + np * SZ, bad, kept);
    } else if (g0 < g1) {
#pragma omp atomic write
      nomem = want;
    }
    free(cp);
  }
  int st = TL_OK;
  if (nomem)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_3d: no memory for %zu scratch values",
                 nomem);
  else if (reg)
    for (size_t g = 0; g < groups; g++) {
      size_t s0 = g * SZ, valid = nsys - s0 < SZ ? nsys - s0 : SZ;
      const uint64_t *kg = kept + KEPT(reg) * g;
      const char *vals = (const char *)(kg + 2); /* reg = 2: rmin, then xmax */
      for (size_t l = 0; l < valid; l++) {
        redo[s0 + l] = (bad[g] >> l & 1u) ? 1 : (kg[1] >> l & 1u) ? 3 : (kg[0] >> l & 1u) ? 2 : 0;
        if (rowmin)
          memcpy(rowmin + s0 + l, vals + l * sizeof(T), sizeof(T));
        if (xmax)
          memcpy(xmax + s0 + l, vals + (SZ + l) * sizeof(T), sizeof(T));
      }
    }
  else
    st = FN(lines_report)(n, nsys, bad, a, b, c, x, info);
  free(bad);
  free(kept);
  return st;
}

#endif
