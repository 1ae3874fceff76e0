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
 *
 * The registry backend "thomas_periodic_cpu" takes the batch's layout
 * (one system after another) and runs the same operations on groups of 8
 * lines read in tiles, as the x-line kernel does (periodic_share_regs,
 * below): no packed copy of the batch.
 */
#ifndef TL_CPU_PASS
#include <math.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "tridlab/registry.h"

/* The whole tiles' helpers pass 64-byte vectors by value between inline
 * functions of this file, never across a library boundary: GCC's
 * -Wpsabi note (the ABI of such a vector without AVX-512) concerns no
 * caller, as in thomas_lines_cpu.c. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

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

/* The batch is solved group by group from its lines (periodic_lines:
 * groups of 8 lines read in tiles transposed into registers, or through
 * a tile on the stack where the compiler lacks the register shuffles),
 * when every system is in the kernel's domain
 * (n >= 3, and the dominance test made on each group as it is read);
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
    st = periodic_lines_d8(n, nsys, a, b, c, d, xv); /* groups of 8 lines */
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
    .summary = "periodic Thomas on groups of 8 lines, tiles transposed in registers, OpenMP "
               "threads; thomas_periodic's operations, so its results",
    .source = "paper 000 (DistD2-TDS) §2.1 (periodic Thomas), §4.1 (SZ systems per group)",
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
/* ---- the registry's layout on whole tiles in registers (SZ = 8) ---- */

/* This path used to pack each group into a scratch (8x8 transposes),
 * read it back for the dominance test and again for the solve above,
 * and unpack x in a pass of its own: 4.2-4.9 ns per unknown on one
 * thread where thomas_cpu takes 2.2-2.4 (docs/performance.md, "The
 * periodic registry path on the x kernel's tiles"). Now the lines are
 * read the way the x-line kernel reads them (thomas_lines_cpu.c): a
 * TILE of 8 rows of the 8 lines is transposed straight into eight
 * 512-bit vectors per array, one vector per row
 * (tl_cpu_transpose8_load_d; through the stack for a partial tile, or
 * without the compiler's register shuffles), and the test and the
 * forward pass run on those registers:
 *
 *   forward  (lines -> registers -> scratch): dominance, p, c', y', z'
 *   backward (scratch):                       y, z
 *   correct  (scratch -> registers -> lines): x = y - f z, transposed out
 *
 * The operations and their order are periodic_group's, so x is the
 * packed kernel's, bit for bit (cpu_periodic::registry_path_is_the_
 * packed_kernels_bits). The scratch holds c', y and z: 3 n SZ values. */
#if SZ == 8

/* A row of the group: its 8 lanes in one vector (one AVX-512 register). */
typedef T FN(pv) __attribute__((vector_size(8 * sizeof(T))));
typedef long long FN(pmask) __attribute__((vector_size(8 * sizeof(T))));

/* One group: its lines (line l of array a at a + l lane) and how its
 * tiles fall. Tiles start on b's cache lines where every line starts
 * the same distance past one (n a multiple of TILE), as in the x-line
 * kernel (its tile_rows): tile t covers rows t TILE - shift ... */
typedef struct FN(pgroup) {
  const T *a, *b, *c, *d;
  T *x;
  size_t n, lane, valid, shift, tiles;
  int nt; /* whole tiles of x by streaming stores */
} FN(pgroup);

static TL_CPU_INLINE void FN(ptile)(const FN(pgroup) * G, size_t t, size_t *i0, size_t *rows)
{
  size_t v0 = t * TILE, lo = v0 > G->shift ? v0 - G->shift : 0, hi = v0 + TILE - G->shift;
  *i0 = lo;
  *rows = (hi < G->n ? hi : G->n) - lo;
}

/* Rows i0 .. i0+rows-1 of the group's lines as V[r] (the 8 lanes of row
 * i0 + r): one register transpose where the tile is whole; otherwise
 * through the stack, missing lanes and rows as pad (an identity lane:
 * a = c = d = 0, b = 1, which passes the dominance test and solves to
 * 0 without a breakdown). */
static TL_CPU_INLINE void FN(ptile_in)(const FN(pgroup) * G, const T *src, size_t i0, size_t rows,
                                       T pad, FN(pv) V[8])
{
#ifdef TL_CPU_SHUFFLE
  if (rows == 8 && G->valid == SZ) {
    tl_cpu_transpose8_load_d(src + i0, G->lane, V);
    return;
  }
#endif
  T t[8 * SZ];
  for (size_t r = 0; r < 8; r++)
    for (size_t l = 0; l < SZ; l++)
      t[r * SZ + l] = r < rows && l < G->valid ? src[l * G->lane + i0 + r] : pad;
  memcpy(V, t, sizeof t);
}

static TL_CPU_INLINE void FN(ptile_out)(const FN(pgroup) * G, FN(pv) X[8], size_t i0, size_t rows)
{
#ifdef TL_CPU_SHUFFLE
  if (rows == 8 && G->valid == SZ) {
    if (G->nt)
      tl_cpu_transpose8_stream_d(X, G->x + i0, G->lane);
    else
      tl_cpu_transpose8_store_d(X, G->x + i0, G->lane);
    return;
  }
#endif
  T t[8 * SZ];
  memcpy(t, X, sizeof t);
  for (size_t l = 0; l < G->valid; l++)
    for (size_t r = 0; r < rows; r++)
      G->x[l * G->lane + i0 + r] = t[r * SZ + l];
}

/* Software prefetch into L2 one chunk of TL_CPU_XC rows ahead, along
 * each line in turn (the x-line kernel's chunk_prefetch: runs of rows
 * for memory, not 8 scattered lines per tile); after the group's last
 * chunk, the next group's first. */
static TL_CPU_INLINE void FN(pprefetch)(const FN(pgroup) * G, size_t t)
{
  size_t np = G->tiles * TILE, xc = np < TL_CPU_XC ? np : TL_CPU_XC, steps = xc / TILE;
  size_t k = t / steps, j = t % steps, ln = G->lane, r0 = (k + 1) * xc, base = 0;
  if (r0 >= G->n)
    base = SZ * ln, r0 = 0;
  size_t per_line = xc / TILE, per_step = SZ * per_line / steps, q = j * per_step;
  size_t line = q / per_line, e = q % per_line;
  for (size_t u = 0; u < per_step; u++) {
    size_t o = base + r0 + line * ln + e * TILE;
    TL_CPU_PREFETCH_L2(G->a + o, 0);
    TL_CPU_PREFETCH_L2(G->b + o, 0);
    TL_CPU_PREFETCH_L2(G->c + o, 0);
    TL_CPU_PREFETCH_L2(G->d + o, 0);
    if (++e == per_line)
      e = 0, line++;
  }
}

/* The recurrence's carried state: c', y' and z' of the previous row, the
 * check sum, and row 0's shift gamma, a[0] / gamma and a[0]. */
typedef struct FN(pstate) {
  FN(pv) pc, py, pz, chk, g, ag, a0;
  FN(pv) fail; /* rows not strictly dominant so far, per lane */
} FN(pstate);

/* |v|, lane by lane (fabs) */
static TL_CPU_INLINE FN(pv) FN(pabs)(FN(pv) v)
{
  const FN(pmask)
      m = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  return (FN(pv))((FN(pmask))v & m);
}

/* Row i of rows 1 .. n-2 (periodic_group's middle rows). */
static TL_CPU_INLINE void FN(prow_mid)(FN(pstate) * s, FN(pv) A, FN(pv) B, FN(pv) C, FN(pv) D,
                                       T *cp, T *y, T *z)
{
  FN(pv) p = B - A * s->pc;
  s->pc = C / p;
  s->py = (D - A * s->py) / p;
  s->pz = -A * s->pz / p;
  s->chk += p;
  memcpy(cp, &s->pc, sizeof s->pc), memcpy(y, &s->py, sizeof s->py);
  memcpy(z, &s->pz, sizeof s->pz);
}

/* Dominance of the tile's rows: |b| - (|a| + |c|) > 0 in every row,
 * corners included (tl_classes_d's test for a cyclic matrix), each
 * failing row counted in its lane (a NaN fails); the rows past `rows`
 * are padding and pass. Then b[0] != 0 and B = A - u v^T is dominant
 * too (|B[n-1][n-1]| >= |b[n-1]| - |a[0] c[n-1] / b[0]| > |a[n-1]|),
 * so the reference returns TL_OK unless it breaks down. A lane loop:
 * GCC made the same test written as a vector comparison one scalar
 * compare per lane (2.84 -> 2.32 ns per unknown in cache). */
static TL_CPU_INLINE void FN(pdominance)(FN(pstate) * s, const FN(pv) * A, const FN(pv) * B,
                                         const FN(pv) * C)
{
  T fail[SZ], m[SZ];
  memcpy(fail, &s->fail, sizeof fail);
  for (int r = 0; r < 8; r++) {
    FN(pv) v = FN(pabs)(B[r]) - (FN(pabs)(A[r]) + FN(pabs)(C[r]));
    memcpy(m, &v, sizeof m);
#pragma omp simd
    for (int l = 0; l < SZ; l++)
      fail[l] += m[l] > 0 ? 0 : 1;
  }
  memcpy(&s->fail, fail, sizeof fail);
}

/* Forward tile t: rows from the lines, the dominance test, then the
 * rows of the recurrence into the scratch (c', y, z: row i at i SZ). A
 * middle tile runs its eight rows in a loop of fixed length, so that
 * the tile's vectors stay in registers; the first and the last tile take
 * rows 0 and n-1 row by row. */
static TL_CPU_INLINE void FN(pforward_tile)(const FN(pgroup) * G, size_t t, FN(pstate) * s, T *cp,
                                            T *y, T *z)
{
  size_t i0, rows, n = G->n;
  FN(pv) A[8], B[8], C[8], D[8];
  FN(ptile)(G, t, &i0, &rows);
  FN(pprefetch)(G, t);
  FN(ptile_in)(G, G->a, i0, rows, 0, A);
  FN(ptile_in)(G, G->b, i0, rows, 1, B);
  FN(ptile_in)(G, G->c, i0, rows, 0, C);
  FN(ptile_in)(G, G->d, i0, rows, 0, D);
  FN(pdominance)(s, A, B, C);
  if (i0 > 0 && i0 + rows < n && rows == 8) {
    for (int r = 0; r < 8; r++) {
      size_t o = (i0 + (size_t)r) * SZ;
      FN(prow_mid)(s, A[r], B[r], C[r], D[r], cp + o, y + o, z + o);
    }
    return;
  }
  for (size_t r = 0; r < rows; r++) {
    size_t i = i0 + r, o = i * SZ;
    if (i == 0) { /* row 0, with the shifted diagonal b0 - gamma */
      T g[SZ];
      for (int l = 0; l < SZ; l++)
        g[l] = B[0][l] != 0 ? -B[0][l] : (T)-1;
      memcpy(&s->g, g, sizeof g);
      s->a0 = A[0];
      s->ag = A[0] / s->g;
      FN(pv) p = B[0] - s->g;
      s->pc = C[0] / p;
      s->py = D[0] / p;
      s->pz = s->g / p;
      s->chk = p;
      memcpy(cp + o, &s->pc, sizeof s->pc), memcpy(y + o, &s->py, sizeof s->py);
      memcpy(z + o, &s->pz, sizeof s->pz);
    } else if (i + 1 == n) { /* B's diagonal b - a0 (c[n-1] / gamma), u = c[n-1] */
      FN(pv) p = (B[r] - s->a0 * (C[r] / s->g)) - A[r] * s->pc;
      s->py = (D[r] - A[r] * s->py) / p;
      s->pz = (C[r] - A[r] * s->pz) / p;
      s->chk += p;
      memcpy(y + o, &s->py, sizeof s->py), memcpy(z + o, &s->pz, sizeof s->pz);
    } else {
      FN(prow_mid)(s, A[r], B[r], C[r], D[r], cp + o, y + o, z + o);
    }
  }
}

/* Correction tile t: x = y - f z for its rows, into the check sum in row
 * order, transposed out to the lines. */
static TL_CPU_INLINE void FN(pcorrect_tile)(const FN(pgroup) * G, size_t t, FN(pv) f, FN(pv) * chk,
                                            const T *y, const T *z)
{
  size_t i0, rows;
  FN(pv) X[8], yi, zi;
  FN(ptile)(G, t, &i0, &rows);
  if (rows == 8) {
    for (int r = 0; r < 8; r++) {
      size_t o = (i0 + (size_t)r) * SZ;
      memcpy(&yi, y + o, sizeof yi), memcpy(&zi, z + o, sizeof zi);
      X[r] = yi - f * zi;
      *chk += X[r];
    }
  } else {
    for (size_t r = 0; r < rows; r++) {
      size_t o = (i0 + r) * SZ;
      memcpy(&yi, y + o, sizeof yi), memcpy(&zi, z + o, sizeof zi);
      X[r] = yi - f * zi;
      *chk += X[r];
    }
  }
  FN(ptile_out)(G, X, i0, rows);
}

/* One group from its lines to x. Returns 2 when a lane is not strictly
 * dominant (x not written: the reference decides), 1 when a lane's
 * check sum is not finite, else 0. */
static TL_CPU_INLINE int FN(pgroup_solve)(const FN(pgroup) * G, T *cp, T *y, T *z)
{
  size_t n = G->n;
  FN(pstate) s;
  memset(&s, 0, sizeof s);
  for (size_t t = 0; t < G->tiles; t++)
    FN(pforward_tile)(G, t, &s, cp, y, z);
  for (int l = 0; l < SZ; l++)
    if (s.fail[l] != 0)
      return 2;
  /* backward: y_i -= c'_i y_{i+1}, z_i likewise */
  FN(pv) yr, zr, yl, zl, ci, yi, zi;
  memcpy(&yr, y + (n - 1) * SZ, sizeof yr), memcpy(&zr, z + (n - 1) * SZ, sizeof zr);
  yl = yr, zl = zr;
  for (size_t i = n - 1; i-- > 0;) {
    memcpy(&ci, cp + i * SZ, sizeof ci);
    memcpy(&yi, y + i * SZ, sizeof yi), memcpy(&zi, z + i * SZ, sizeof zi);
    yr = yi - ci * yr;
    zr = zi - ci * zr;
    memcpy(y + i * SZ, &yr, sizeof yr), memcpy(z + i * SZ, &zr, sizeof zr);
  }
  /* Sherman-Morrison: f = (v.y) / (1 + v.z); yr, zr are rows 0 */
  const FN(pv) one = {1, 1, 1, 1, 1, 1, 1, 1};
  FN(pv) den = one + zr + s.ag * zl, f = (yr + s.ag * yl) / den;
  s.chk += den;
  for (size_t t = 0; t < G->tiles; t++)
    FN(pcorrect_tile)(G, t, f, &s.chk, y, z);
  T chk[SZ];
  uint64_t bad;
  memcpy(chk, &s.chk, sizeof chk);
  TL_CPU_BAD_MASK(chk, SZ, bad);
  return bad ? 1 : 0;
}

/* A thread's groups g0 .. g1-1, each through the scratch w (3 n SZ
 * values); nonzero as soon as one is outside the kernel's domain or
 * flagged. */
TL_CPU_CLONES static int FN(periodic_share_regs)(size_t n, size_t nsys, size_t g0, size_t g1,
                                                 size_t shift, int nt, const T *a, const T *b,
                                                 const T *c, const T *d, T *x, T *w)
{
  int bad = 0;
  for (size_t g = g0; g < g1 && !bad; g++) {
    size_t o = g * SZ * n;
    FN(pgroup) G = {.n = n, .lane = n, .shift = shift, .nt = nt};
    G.a = a + o, G.b = b + o, G.c = c + o, G.d = d + o, G.x = x + o;
    G.valid = nsys - g * SZ < SZ ? nsys - g * SZ : SZ;
    G.tiles = (n + shift + TILE - 1) / TILE;
    bad = FN(pgroup_solve)(&G, w, w + n * SZ, w + 2 * n * SZ);
  }
  if (nt)
    tl_cpu_stream_fence();
  return bad;
}

/* The registry's batch of nsys lines to x: TL_ERR_BREAKDOWN when a group
 * is outside the kernel's domain or a lane was flagged (the caller lets
 * the reference decide), TL_ERR_NOMEM without scratch. */
static int FN(periodic_lines)(size_t n, size_t nsys, const T *a, const T *b, const T *c, const T *d,
                              T *x)
{
  size_t groups = (nsys + SZ - 1) / SZ;
  int st = TL_OK;
  /* tiles on b's cache lines, and x's whole tiles streamed, as the x-line
   * kernel does (its tile_rows and stream_x) */
  size_t past = (size_t)((uintptr_t)b % 64), shift = 0;
  if (n % TILE == 0 && past % sizeof(T) == 0 && past > 0)
    shift = past / sizeof(T);
  int nt = TL_CPU_NT && n % TILE == 0 && past % sizeof(T) == 0 && (uintptr_t)x % 64 == past &&
           n * nsys * sizeof(T) > tl_cpu_stream_min_bytes();
#pragma omp parallel
  {
    size_t g0, g1;
    int bad = 0;
    tl_cpu_my_share(groups, &g0, &g1);
    T *w = g0 < g1 ? tl_cpu_scratch(3 * n * SZ, sizeof(T)) : NULL;
    if (w)
      bad = FN(periodic_share_regs)(n, nsys, g0, g1, shift, nt, a, b, c, d, x, w);
    if ((g0 < g1 && !w) || bad) {
#pragma omp critical(tl_cpu_periodic_lines)
      st = st == TL_ERR_NOMEM || !w ? TL_ERR_NOMEM : TL_ERR_BREAKDOWN;
    }
    free(w);
  }
  return st;
}
#endif /* SZ == 8 */

#endif /* !TL_CPU_FLOAT */

#endif
