/* optimized/gpu/gpu_kernels.h -- the GPU kernels, written once (docs/gpu.md).
 *
 * Included once per precision by the host emulator (gpu_emulate.c, a C11
 * file) and by the device build (gpu_device.cu, nvcc or hipcc), with
 *   T      the scalar (double or float)
 *   KF(x)  the name of x in this precision (x_d or x_f)
 * and tl_gpu_port.h giving TL_KERNEL, TL_REGION, TL_BARRIER, ...
 *
 * Every kernel does the very operations of its reference
 * (reference/thomas_ref.c, pcr_ref.c, thomas_periodic_ref.c), in the same
 * order, so that without contraction of a * b + c into one rounding
 * (host: ISO C's default; nvcc: -fmad=false) the double kernels give
 * the reference's answers and breakdown rows bit for bit.
 *
 * Status words per system (tridlab/gpu.h): kind, row, flags.
 */

/* ------------------------------------------------------------------ */
/* Thomas, one thread per system of a packed group                     */

/* One lane of a packed group: rows are TL_GPU_SZ values apart. d becomes
 * x; cp (the lane's c') is scratch. */
TL_DEVICE_FN void KF(thomas_lane)(long n, const T *a, const T *b, const T *c, T *d, T *cp, int *st)
{
  const long z = TL_GPU_SZ;
  int flags = 0;
  T cprev = 0, dprev = 0;
  st[0] = TL_GPU_OK;
  st[1] = 0;
  for (long i = 0; i < n; i++) { /* forward: eliminate a, scale the pivot to 1 */
    T pivot = i == 0 ? b[0] : b[i * z] - a[i * z] * cprev;
    if (pivot == 0 || !isfinite(pivot)) {
      st[0] = TL_GPU_PIVOT;
      st[1] = (int)i;
      break;
    }
    if (!(pivot > 0))
      flags = TL_GPU_NONPOSITIVE;
    cprev = i + 1 < n ? c[i * z] / pivot : 0;
    dprev = i == 0 ? d[0] / pivot : (d[i * z] - a[i * z] * dprev) / pivot;
    cp[i * z] = cprev;
    d[i * z] = dprev;
  }
  for (long i = n; st[0] == TL_GPU_OK && i-- > 0;) { /* backward substitution */
    if (i + 1 < n)
      d[i * z] = d[i * z] - cp[i * z] * d[(i + 1) * z];
    if (!isfinite(d[i * z])) {
      st[0] = TL_GPU_NONFINITE;
      st[1] = (int)i;
    }
  }
  st[2] = flags;
}

/* Block g solves packed group g: thread t its system g SZ + t. No
 * barrier inside: the lanes never share data. */
TL_KERNEL(KF(thomas_sz_kernel), long n, long nsys, const T *a, const T *b, const T *c, T *d, T *w,
          int *stat)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t, o = TL_BLOCK_ID * n * TL_GPU_SZ + t;
    if (s < nsys)
      KF(thomas_lane)(n, a + o, b + o, c + o, d + o, w + o, stat + s * TL_GPU_STAT_WORDS);
  }
  TL_BARRIER();
}

/* ------------------------------------------------------------------ */
/* Periodic Thomas (Sherman-Morrison), one thread per system            */

/* One lane, n >= 3: y (in d) and z (in w + n rows) from one forward pass
 * over B = A - u v^T, as reference/thomas_periodic_ref.c with g = -b0
 * (or -1 when b0 = 0); then x = y - (v.y) / (1 + v.z) z. */
TL_DEVICE_FN void KF(periodic_lane)(long n, const T *a, const T *b, const T *c, T *d, T *w, int *st)
{
  const long z = TL_GPU_SZ;
  T *cp = w, *zz = w + n * z;
  T g = b[0] == 0 ? (T)-1 : -b[0];
  T bfirst = b[0] - g, blast = b[(n - 1) * z] - a[0] * (c[(n - 1) * z] / g);
  T cprev = 0, yprev = 0, zprev = 0;
  int flags = 0;
  st[0] = TL_GPU_OK;
  st[1] = 0;
  for (long i = 0; i < n; i++) { /* one forward pass for both right-hand sides */
    T bi = i == 0 ? bfirst : i == n - 1 ? blast : b[i * z];
    T ui = i == 0 ? g : i == n - 1 ? c[(n - 1) * z] : (T)0;
    T pivot = i == 0 ? bi : bi - a[i * z] * cprev;
    if (pivot == 0 || !isfinite(pivot)) {
      st[0] = TL_GPU_PIVOT;
      st[1] = (int)i;
      st[2] = flags;
      return;
    }
    if (!(pivot > 0))
      flags = TL_GPU_NONPOSITIVE;
    cprev = i + 1 < n ? c[i * z] / pivot : 0;
    yprev = i == 0 ? d[0] / pivot : (d[i * z] - a[i * z] * yprev) / pivot;
    zprev = i == 0 ? ui / pivot : (ui - a[i * z] * zprev) / pivot;
    cp[i * z] = cprev;
    d[i * z] = yprev;
    zz[i * z] = zprev;
  }
  long ybad = -1, zbad = -1; /* the first non-finite row from the bottom, as the
                                reference's two backward passes meet them */
  for (long i = n; i-- > 0;) {
    if (i + 1 < n) {
      d[i * z] = d[i * z] - cp[i * z] * d[(i + 1) * z];
      zz[i * z] = zz[i * z] - cp[i * z] * zz[(i + 1) * z];
    }
    if (ybad < 0 && !isfinite(d[i * z]))
      ybad = i;
    if (zbad < 0 && !isfinite(zz[i * z]))
      zbad = i;
  }
  st[2] = flags;
  if (ybad >= 0 || zbad >= 0) {
    st[0] = TL_GPU_NONFINITE;
    st[1] = (int)(ybad >= 0 ? ybad : zbad);
    return;
  }
  T vy = d[0] + (a[0] / g) * d[(n - 1) * z];
  T denom = 1 + zz[0] + (a[0] / g) * zz[(n - 1) * z];
  if (denom == 0 || !isfinite(denom)) {
    st[0] = TL_GPU_PIVOT;
    st[1] = 0;
    return;
  }
  T factor = vy / denom;
  for (long i = 0; i < n; i++) {
    d[i * z] -= factor * zz[i * z];
    if (st[0] == TL_GPU_OK && !isfinite(d[i * z])) {
      st[0] = TL_GPU_NONFINITE;
      st[1] = (int)i;
    }
  }
}

TL_KERNEL(KF(periodic_sz_kernel), long n, long nsys, const T *a, const T *b, const T *c, T *d, T *w,
          int *stat)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t, o = TL_BLOCK_ID * n * TL_GPU_SZ + t;
    if (s < nsys)
      KF(periodic_lane)
    (n, a + o, b + o, c + o, d + o, w + 2 * TL_BLOCK_ID * n * TL_GPU_SZ + t,
     stat + s * TL_GPU_STAT_WORDS);
  }
  TL_BARRIER();
}

/* ------------------------------------------------------------------ */
/* PCR, one block per system, any n                                    */

/* Row i of one PCR step at stride s (reference/pcr_ref.c, pcr_step):
 * reads the current system, writes row i of the next. Returns the row of
 * a zero or non-finite divisor, or -1. */
TL_DEVICE_FN long KF(pcr_row)(long n, long s, long i, const T *a, const T *b, const T *c,
                              const T *d, T *na, T *nb, T *nc, T *nd)
{
  T ai = 0, bi = b[i], ci = 0, di = d[i];
  if (i >= s) { /* left neighbour l = i - s */
    long l = i - s;
    if (b[l] == 0 || !isfinite(b[l]))
      return l;
    T alpha = -a[i] / b[l];
    if (l >= s)
      ai = alpha * a[l];
    bi += alpha * c[l];
    di += alpha * d[l];
  }
  if (i + s < n) { /* right neighbour r = i + s */
    long r = i + s;
    if (b[r] == 0 || !isfinite(b[r]))
      return r;
    T gamma = -c[i] / b[r];
    if (r + s < n)
      ci = gamma * c[r];
    bi += gamma * a[r];
    di += gamma * d[r];
  }
  na[i] = ai;
  nb[i] = bi;
  nc[i] = ci;
  nd[i] = di;
  return -1;
}

/* The first failure in the reference's order is the smallest
 * (step, row): key = step n + row, one per thread, then the block's
 * smallest. TL_PCR_NONE: no failure. */
#define TL_PCR_NONE (-1LL)

/* Block `sys`: thread t owns rows t, t + T, t + 2T, ... in every step.
 * Every row reads the old system and writes the new one (two buffers),
 * so the only sharing is across the barrier that ends a step.
 * Shared memory: key and row of each thread, then, unless gbuf is given,
 * the two work systems (8 n values). */
TL_KERNEL(KF(pcr_kernel), long n, const T *a, const T *b, const T *c, const T *d, T *x, T *gbuf,
          int *stat)
{
  const long sys = TL_BLOCK_ID;
  long long *keys = TL_SHARED_MEM(long long);
  long long *rows = keys + TL_BLOCK_THREADS;
  T *buf = gbuf ? gbuf + sys * 8 * n : (T *)(rows + TL_BLOCK_THREADS);
  const T *ca = a + sys * n, *cb = b + sys * n, *cc = c + sys * n, *cd = d + sys * n;
  long step = 0;
  TL_PER_THREAD(long long, key); /* this thread's first failure */
  TL_PER_THREAD(long long, krow);
  TL_REGION(t)
  {
    TL_MY(key, t) = TL_PCR_NONE;
    TL_MY(krow, t) = 0;
  }
  TL_BARRIER();
  for (long s = 1; s < n; s *= 2, step++) { /* uniform: the same s in every thread */
    T *na = buf + (step & 1) * 4 * n, *nb = na + n, *nc = nb + n, *nd = nc + n;
    TL_REGION(t)
    {
      for (long i = t; i < n; i += TL_BLOCK_THREADS) {
        long bad = KF(pcr_row)(n, s, i, ca, cb, cc, cd, na, nb, nc, nd);
        if (bad >= 0 && TL_MY(key, t) == TL_PCR_NONE) {
          TL_MY(key, t) = (long long)step * n + i;
          TL_MY(krow, t) = bad;
        }
      }
    }
    TL_BARRIER();
    ca = na;
    cb = nb;
    cc = nc;
    cd = nd;
  }
  TL_REGION(t) /* every row alone: x_i = d_i / b_i */
  {
    for (long i = t; i < n; i += TL_BLOCK_THREADS) {
      T xi = cd[i] / cb[i];
      x[sys * n + i] = xi;
      if ((cb[i] == 0 || !isfinite(cb[i]) || !isfinite(xi)) && TL_MY(key, t) == TL_PCR_NONE) {
        TL_MY(key, t) = (long long)step * n + i;
        TL_MY(krow, t) = i;
      }
    }
    keys[t] = TL_MY(key, t);
    rows[t] = TL_MY(krow, t);
  }
  TL_BARRIER();
  TL_REGION(t) /* thread 0 finds the block's first failure */
  {
    if (t == 0) {
      long long best = TL_PCR_NONE, row = 0;
      for (int k = 0; k < TL_BLOCK_THREADS; k++)
        if (keys[k] != TL_PCR_NONE && (best == TL_PCR_NONE || keys[k] < best)) {
          best = keys[k];
          row = rows[k];
        }
      int *st = stat + sys * TL_GPU_STAT_WORDS;
      st[0] = best == TL_PCR_NONE ? TL_GPU_OK : best / n < step ? TL_GPU_PIVOT : TL_GPU_NONFINITE;
      st[1] = (int)row;
      st[2] = 0;
    }
  }
  TL_BARRIER();
}

/* ------------------------------------------------------------------ */
/* Hybrid Thomas-PCR (paper 002), one block per system, a thread per    */
/* partition                                                            */

/* Phase 1 on one partition of m >= 2 rows (reference/hybrid_pcr_ref.c,
 * tl_hybrid_pcr_forward): modified Thomas, the fill-in kept in columns 0
 * and m-1. Returns the local row of a zero or non-finite pivot, or -1. */
TL_DEVICE_FN long KF(hybrid_forward)(long m, int has_left, int has_right, const T *a, const T *b,
                                     const T *c, const T *d, T *as, T *cs, T *ds)
{
  for (long i = 0; i < 2; i++) { /* rows 0 and 1: scaled by their diagonal */
    if (b[i] == 0 || !isfinite(b[i]))
      return i;
    T ai = (i == 0 && !has_left) ? (T)0 : a[i];
    T ci = (i == m - 1 && !has_right) ? (T)0 : c[i];
    as[i] = ai / b[i];
    cs[i] = ci / b[i];
    ds[i] = d[i] / b[i];
  }
  for (long i = 2; i < m; i++) { /* forward: the fill-in stays in column 0 */
    T p = b[i] - a[i] * cs[i - 1];
    if (p == 0 || !isfinite(p))
      return i;
    T ci = (i == m - 1 && !has_right) ? (T)0 : c[i];
    ds[i] = (d[i] - a[i] * ds[i - 1]) / p;
    as[i] = -(a[i] * as[i - 1]) / p;
    cs[i] = ci / p;
  }
  for (long i = m - 2; i-- > 1;) { /* backward: the fill-in moves to column m-1 */
    ds[i] = ds[i] - cs[i] * ds[i + 1];
    as[i] = as[i] - cs[i] * as[i + 1];
    cs[i] = -cs[i] * cs[i + 1];
  }
  if (m >= 3) { /* row 0 eliminates x_1 */
    T p = 1 - cs[0] * as[1];
    if (p == 0 || !isfinite(p))
      return 0;
    ds[0] = (ds[0] - cs[0] * ds[1]) / p;
    as[0] = as[0] / p;
    cs[0] = -(cs[0] * cs[1]) / p;
  }
  return -1;
}

/* Block `sys`, thread p = partition p of rows [off[p], off[p+1]).
 *   region 1  phase 1 on every partition; rows 0 and m-1 of partition p
 *             become rows 2p and 2p+1 of the reduced system (unit diagonal)
 *   regions   PCR on the 2P reduced rows, thread p updating rows p and
 *             p + P, one region and one barrier per step
 *   region    phase 3: x_i = ds_i - as_i x_first - cs_i x_last
 *   region    thread 0 reduces the failures in the reference's order:
 *             phase 1 (first partition), PCR (first step, row), phase 3.
 * Global scratch per system (TL_HYBRID_WORK): as, cs, ds (3n), the
 * reduced system of 2P rows, its two PCR buffers and its answer
 * (13 x 2P). Shared memory: 4P failure words. */
#ifndef TL_HYBRID_WORK
#define TL_HYBRID_WORK(n, P) (3 * (n) + 26 * (P))
#endif
TL_KERNEL(KF(hybrid_kernel), long n, int parts, const long *off, const T *a, const T *b, const T *c,
          const T *d, T *x, T *work, int *stat)
{
  const long sys = TL_BLOCK_ID, P = parts, R = 2 * P;
  long long *fwd = TL_SHARED_MEM(long long), *pkey = fwd + P, *prow = pkey + P, *bwd = prow + P;
  T *as = work + sys * TL_HYBRID_WORK(n, P), *cs = as + n, *ds = cs + n, *red = ds + n;
  const T *sa = a + sys * n, *sb = b + sys * n, *sc = c + sys * n, *sd = d + sys * n;
  TL_REGION(p) /* phase 1 and the reduced rows */
  {
    long lo = off[p], m = off[p + 1] - lo;
    long bad = KF(hybrid_forward)(m, p > 0, p + 1 < P, sa + lo, sb + lo, sc + lo, sd + lo, as + lo,
                                  cs + lo, ds + lo);
    fwd[p] = bad < 0 ? TL_PCR_NONE : lo + bad;
    pkey[p] = TL_PCR_NONE;
    for (int k = 0; k < 2; k++) { /* rows 0 and m-1 */
      long i = lo + (k ? m - 1 : 0), r = 2 * p + k;
      red[r] = (r == 0) ? (T)0 : as[i];
      red[R + r] = 1;
      red[2 * R + r] = (r == R - 1) ? (T)0 : cs[i];
      red[3 * R + r] = ds[i];
    }
  }
  TL_BARRIER();
  const T *ca = red, *cb = red + R, *cc = red + 2 * R, *cd = red + 3 * R;
  long step = 0;
  for (long s = 1; s < R; s *= 2, step++) { /* PCR on the reduced system */
    T *na = red + 4 * R + (step & 1) * 4 * R, *nb = na + R, *nc = nb + R, *nd = nc + R;
    TL_REGION(p)
    {
      for (long i = p; i < R; i += P) {
        long bad = KF(pcr_row)(R, s, i, ca, cb, cc, cd, na, nb, nc, nd);
        if (bad >= 0 && pkey[p] == TL_PCR_NONE) {
          pkey[p] = (long long)step * R + i;
          prow[p] = bad;
        }
      }
    }
    TL_BARRIER();
    ca = na;
    cb = nb;
    cc = nc;
    cd = nd;
  }
  T *y = red + 12 * R;
  TL_REGION(p) /* the reduced answer: y_i = d_i / b_i */
  {
    for (long i = p; i < R; i += P) {
      y[i] = cd[i] / cb[i];
      if ((cb[i] == 0 || !isfinite(cb[i]) || !isfinite(y[i])) && pkey[p] == TL_PCR_NONE) {
        pkey[p] = (long long)step * R + i;
        prow[p] = i;
      }
    }
  }
  TL_BARRIER();
  TL_REGION(p) /* phase 3: substitution with the partition's two unknowns */
  {
    long lo = off[p], m = off[p + 1] - lo;
    T first = y[2 * p], last = y[2 * p + 1];
    T *xp = x + sys * n + lo;
    xp[0] = first;
    xp[m - 1] = last;
    for (long i = 1; i + 1 < m; i++)
      xp[i] = ds[lo + i] - as[lo + i] * first - cs[lo + i] * last;
    bwd[p] = TL_PCR_NONE;
    for (long i = 0; i < m && bwd[p] == TL_PCR_NONE; i++)
      if (!isfinite(xp[i]))
        bwd[p] = lo + i;
  }
  TL_BARRIER();
  TL_REGION(p) /* thread 0: the first failure in the reference's order */
  {
    if (p == 0) {
      int *st = stat + sys * TL_GPU_STAT_WORDS, kind = TL_GPU_OK;
      long long row = 0, best = TL_PCR_NONE;
      for (long q = 0; q < P && kind == TL_GPU_OK; q++)
        if (fwd[q] != TL_PCR_NONE)
          kind = TL_GPU_PIVOT, row = fwd[q];
      for (long q = 0; q < P && kind == TL_GPU_OK; q++)
        if (pkey[q] != TL_PCR_NONE && (best == TL_PCR_NONE || pkey[q] < best))
          best = pkey[q], row = prow[q];
      if (kind == TL_GPU_OK && best != TL_PCR_NONE) /* reduced row -> global row */
        kind = TL_GPU_PIVOT, row = (row % 2) ? off[row / 2 + 1] - 1 : off[row / 2];
      for (long q = 0; q < P && kind == TL_GPU_OK; q++)
        if (bwd[q] != TL_PCR_NONE)
          kind = TL_GPU_NONFINITE, row = bwd[q];
      st[0] = kind;
      st[1] = (int)row;
      st[2] = 0;
    }
  }
  TL_BARRIER();
}
