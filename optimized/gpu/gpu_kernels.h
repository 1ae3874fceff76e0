/* optimized/gpu/gpu_kernels.h -- the GPU kernels, written once (docs/gpu.md).
 *
 * Included once per precision by the host entry points (gpu_entry.c, a
 * C11 file, which run them on the emulator of gpu_emulator.h) and by the
 * device build (gpu_device.cu, nvcc or hipcc), with
 *   T      the scalar (double or float)
 *   KF(x)  the name of x in this precision (x_d or x_f)
 * and tl_gpu_port.h giving TL_KERNEL, TL_REGION, TL_BARRIER, ...
 *
 * Every kernel does the very operations of its reference
 * (reference/thomas_ref.c, pcr_ref.c, thomas_periodic_ref.c,
 * hybrid_pcr_ref.c, distd2_ref.c, pdd_ref.c: each kernel names its own),
 * in the same order, so that without contraction of a * b + c into one
 * rounding (host: ISO C's default; nvcc: -fmad=false; hipcc:
 * -ffp-contract=off) the double kernels give the reference's answers and
 * breakdown rows bit for bit.
 *
 * Status words per system (tridlab/gpu.h): kind, row, flags; the DistD2
 * and PDD kernels write 3 ints per (system, partition), described above
 * each.
 *
 * Every load from and store to memory shared between threads (shared
 * memory, global arrays) is written TL_LD(p, i) and TL_ST(p, i) = v:
 * p[i] on a device, and on the host an access the emulator's checker
 * records (tl_gpu_port.h). Values a thread keeps to itself (registers,
 * its own small arrays) are plain C.
 */

/* ------------------------------------------------------------------ */
/* Thomas, one thread per system of a packed group                     */

/* Rows loaded ahead of the recurrence: a thread issues the loads of
 * TL_GPU_AHEAD rows (4 TL_GPU_AHEAD independent loads) before it needs
 * the first of them. One thread per system leaves few threads when the
 * systems are long (2^25 unknowns at n = 4096: 8192 threads), and a
 * thread that loads one row at a time keeps too few bytes in flight to
 * cover the memory's latency; loading ahead multiplies them. The
 * arithmetic, and its order, is the reference's. */
#ifndef TL_GPU_AHEAD
#define TL_GPU_AHEAD 8
#endif

/* One system whose rows are z values apart (TL_GPU_SZ in a packed
 * group, 1 on the batch layout). d becomes x; cp (c') is scratch.
 *
 *   forward, TL_GPU_AHEAD rows at a time:  load a, b, c, d of rows i0..i0+7
 *                                          then eliminate row after row
 *   backward, the same from the last row:  load c', d' of rows i1-7..i1
 *                                          then substitute row after row */
TL_DEVICE_FN void KF(thomas_lane)(long n, long z, const T *a, const T *b, const T *c, T *d, T *cp,
                                  int *st)
{
  enum { U = TL_GPU_AHEAD };
  int kind = TL_GPU_OK, row = 0, flags = 0; /* the status words, stored at the end */
  T cprev = 0, dprev = 0;
  for (long i0 = 0; i0 < n && kind == TL_GPU_OK; i0 += U) {
    T ra[U], rb[U], rc[U], rd[U];
    TL_UNROLL
    for (int k = 0; k < U; k++) /* the loads, all issued before the recurrence */
      if (i0 + k < n) {
        long i = (i0 + k) * z;
        ra[k] = TL_LD(a, i), rb[k] = TL_LD(b, i), rc[k] = TL_LD(c, i), rd[k] = TL_LD(d, i);
      }
    /* eliminate a, scale the pivot to 1 (no break: a loop of U trips unrolls) */
    TL_UNROLL
    for (int k = 0; k < U; k++) {
      long i = i0 + k;
      if (i >= n || kind != TL_GPU_OK)
        continue;
      T pivot = i == 0 ? rb[k] : rb[k] - ra[k] * cprev;
      if (pivot == 0 || !isfinite(pivot)) {
        kind = TL_GPU_PIVOT;
        row = (int)i;
        continue;
      }
      if (!(pivot > 0))
        flags = TL_GPU_NONPOSITIVE;
      cprev = i + 1 < n ? rc[k] / pivot : 0;
      dprev = i == 0 ? rd[k] / pivot : (rd[k] - ra[k] * dprev) / pivot;
      TL_ST(cp, i * z) = cprev;
      TL_ST(d, i * z) = dprev;
    }
  }
  T xnext = dprev; /* x of the last row is its d' */
  for (long i1 = n - 1; kind == TL_GPU_OK && i1 >= 0; i1 -= U) {
    T rcp[U], rd[U];
    TL_UNROLL
    for (int k = 0; k < U; k++)
      if (i1 - k >= 0) {
        rcp[k] = TL_LD(cp, (i1 - k) * z);
        rd[k] = TL_LD(d, (i1 - k) * z);
      }
    TL_UNROLL
    for (int k = 0; k < U; k++) { /* backward substitution */
      long i = i1 - k;
      if (i < 0 || kind != TL_GPU_OK)
        continue;
      T xi = i + 1 < n ? rd[k] - rcp[k] * xnext : rd[k];
      TL_ST(d, i * z) = xi;
      xnext = xi;
      if (!isfinite(xi)) {
        kind = TL_GPU_NONFINITE;
        row = (int)i;
      }
    }
  }
  TL_ST(st, 0) = kind;
  TL_ST(st, 1) = row;
  TL_ST(st, 2) = flags;
}

/* Block g solves packed group g: thread t its system g SZ + t. No
 * barrier inside: the lanes never share data. */
TL_KERNEL(KF(thomas_sz_kernel), long n, long nsys, const T *a, const T *b, const T *c, T *d, T *w,
          int *stat)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t, o = TL_BLOCK_ID * n * TL_GPU_SZ + t;
    if (s < nsys) {
      int *st = stat + s * TL_GPU_STAT_WORDS;
      KF(thomas_lane)(n, TL_GPU_SZ, a + o, b + o, c + o, d + o, w + o, st);
    }
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
  T b0 = TL_LD(b, 0), a0 = TL_LD(a, 0), cn = TL_LD(c, (n - 1) * z);
  T g = b0 == 0 ? (T)-1 : -b0;
  T bfirst = b0 - g, blast = TL_LD(b, (n - 1) * z) - a0 * (cn / g);
  T cprev = 0, yprev = 0, zprev = 0;
  int flags = 0;
  TL_ST(st, 0) = TL_GPU_OK;
  TL_ST(st, 1) = 0;
  for (long i = 0; i < n; i++) { /* one forward pass for both right-hand sides */
    T bi = i == 0 ? bfirst : i == n - 1 ? blast : TL_LD(b, i * z);
    T ui = i == 0 ? g : i == n - 1 ? cn : (T)0;
    T ai = TL_LD(a, i * z), di = TL_LD(d, i * z);
    T pivot = i == 0 ? bi : bi - ai * cprev;
    if (pivot == 0 || !isfinite(pivot)) {
      TL_ST(st, 0) = TL_GPU_PIVOT;
      TL_ST(st, 1) = (int)i;
      TL_ST(st, 2) = flags;
      return;
    }
    if (!(pivot > 0))
      flags = TL_GPU_NONPOSITIVE;
    cprev = i + 1 < n ? TL_LD(c, i * z) / pivot : 0;
    yprev = i == 0 ? di / pivot : (di - ai * yprev) / pivot;
    zprev = i == 0 ? ui / pivot : (ui - ai * zprev) / pivot;
    TL_ST(cp, i * z) = cprev;
    TL_ST(d, i * z) = yprev;
    TL_ST(zz, i * z) = zprev;
  }
  long ybad = -1, zbad = -1; /* the first non-finite row from the bottom, as the
                                reference's two backward passes meet them */
  T ynext = 0, znext = 0;
  for (long i = n; i-- > 0;) {
    T yi = TL_LD(d, i * z), zi = TL_LD(zz, i * z);
    if (i + 1 < n) {
      T ci = TL_LD(cp, i * z);
      yi = yi - ci * ynext;
      zi = zi - ci * znext;
      TL_ST(d, i * z) = yi;
      TL_ST(zz, i * z) = zi;
    }
    if (ybad < 0 && !isfinite(yi))
      ybad = i;
    if (zbad < 0 && !isfinite(zi))
      zbad = i;
    ynext = yi;
    znext = zi;
  }
  TL_ST(st, 2) = flags;
  if (ybad >= 0 || zbad >= 0) {
    TL_ST(st, 0) = TL_GPU_NONFINITE;
    TL_ST(st, 1) = (int)(ybad >= 0 ? ybad : zbad);
    return;
  }
  T vy = ynext + (a0 / g) * TL_LD(d, (n - 1) * z); /* ynext, znext: row 0 */
  T denom = 1 + znext + (a0 / g) * TL_LD(zz, (n - 1) * z);
  if (denom == 0 || !isfinite(denom)) {
    TL_ST(st, 0) = TL_GPU_PIVOT;
    TL_ST(st, 1) = 0;
    return;
  }
  T factor = vy / denom;
  int kind = TL_GPU_OK, row = 0;
  for (long i = 0; i < n; i++) {
    T xi = TL_LD(d, i * z) - factor * TL_LD(zz, i * z);
    TL_ST(d, i * z) = xi;
    if (kind == TL_GPU_OK && !isfinite(xi)) {
      kind = TL_GPU_NONFINITE;
      row = (int)i;
    }
  }
  TL_ST(st, 0) = kind;
  TL_ST(st, 1) = row;
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

/* The update of row i at stride s (reference/pcr_ref.c, pcr_step): row
 * i's own values in own[0..3] (a, b, c, d), its neighbours i - s and
 * i + s read from the current system a, b, c, d of n rows; the new row
 * into out[0..3]. Returns the row of a zero or non-finite divisor (out is
 * then unset), or -1. The arithmetic of every PCR in this file, wherever
 * its rows live (pcr_row_value below: all in memory; the on-chip hybrid
 * kernel: a thread's own rows in its registers). */
TL_DEVICE_FN long KF(pcr_row_own)(long n, long s, long i, const T *own, const T *a, const T *b,
                                  const T *c, const T *d, T *out)
{
  T ai = 0, bi = own[1], ci = 0, di = own[3];
  if (i >= s) { /* left neighbour l = i - s */
    long l = i - s;
    T bl = TL_LD(b, l);
    if (bl == 0 || !isfinite(bl))
      return l;
    T alpha = -own[0] / bl;
    if (l >= s)
      ai = alpha * TL_LD(a, l);
    bi += alpha * TL_LD(c, l);
    di += alpha * TL_LD(d, l);
  }
  if (i + s < n) { /* right neighbour r = i + s */
    long r = i + s;
    T br = TL_LD(b, r);
    if (br == 0 || !isfinite(br))
      return r;
    T gamma = -own[2] / br;
    if (r + s < n)
      ci = gamma * TL_LD(c, r);
    bi += gamma * TL_LD(a, r);
    di += gamma * TL_LD(d, r);
  }
  out[0] = ai;
  out[1] = bi;
  out[2] = ci;
  out[3] = di;
  return -1;
}

/* The same, row i's own values read from the system too. */
TL_DEVICE_FN long KF(pcr_row_value)(long n, long s, long i, const T *a, const T *b, const T *c,
                                    const T *d, T *out)
{
  T own[4] = {TL_LD(a, i), TL_LD(b, i), TL_LD(c, i), TL_LD(d, i)};
  return KF(pcr_row_own)(n, s, i, own, a, b, c, d, out);
}

/* The update of row i (pcr_row below); returns the row of a zero or
 * non-finite divisor, or -1 once row i of the next system is written. */
TL_DEVICE_FN long KF(pcr_row_update)(long n, long s, long i, const T *a, const T *b, const T *c,
                                     const T *d, T *na, T *nb, T *nc, T *nd)
{
  T row[4];
  long bad = KF(pcr_row_value)(n, s, i, a, b, c, d, row);
  if (bad >= 0)
    return bad;
  TL_ST(na, i) = row[0];
  TL_ST(nb, i) = row[1];
  TL_ST(nc, i) = row[2];
  TL_ST(nd, i) = row[3];
  return -1;
}

/* Row i of one PCR step at stride s (reference/pcr_ref.c, pcr_step):
 * reads the current system, writes row i of the next. Returns the row of
 * a zero or non-finite divisor, or -1; the row is then written as NaN, so
 * that no later step reads memory nobody wrote (a device leaves shared
 * memory unset and the emulator fills it with bytes 0x7f: a broken
 * system's answer would otherwise depend on what the memory held). */
TL_DEVICE_FN long KF(pcr_row)(long n, long s, long i, const T *a, const T *b, const T *c,
                              const T *d, T *na, T *nb, T *nc, T *nd)
{
  long bad = KF(pcr_row_update)(n, s, i, a, b, c, d, na, nb, nc, nd);
  if (bad >= 0)
    TL_ST(na, i) = TL_ST(nb, i) = TL_ST(nc, i) = TL_ST(nd, i) = (T)NAN;
  return bad;
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
  TL_SHARED_BEGIN();
  long long *keys = TL_SHARED_ARRAY(long long, TL_BLOCK_THREADS);
  long long *rows = TL_SHARED_ARRAY(long long, TL_BLOCK_THREADS);
  T *buf = gbuf ? gbuf + sys * 8 * n : TL_SHARED_ARRAY(T, 8 * n);
  const T *ca = a + sys * n, *cb = b + sys * n, *cc = c + sys * n, *cd = d + sys * n;
  long step = 0;
  TL_PER_THREAD(long long, key); /* this thread's first failure */
  TL_PER_THREAD(long long, krow);
  TL_REGION(t)
  {
    TL_MY(key) = TL_PCR_NONE;
    TL_MY(krow) = 0;
  }
  TL_BARRIER();
  for (long s = 1; s < n; s *= 2, step++) { /* uniform: the same s in every thread */
    T *na = buf + (step & 1) * 4 * n, *nb = na + n, *nc = nb + n, *nd = nc + n;
    TL_REGION(t)
    {
      for (long i = t; i < n; i += TL_BLOCK_THREADS) {
        long bad = KF(pcr_row)(n, s, i, ca, cb, cc, cd, na, nb, nc, nd);
        if (bad >= 0 && TL_MY(key) == TL_PCR_NONE) {
          TL_MY(key) = (long long)step * n + i;
          TL_MY(krow) = bad;
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
      T bi = TL_LD(cb, i), xi = TL_LD(cd, i) / bi;
      TL_ST(x, sys * n + i) = xi;
      if ((bi == 0 || !isfinite(bi) || !isfinite(xi)) && TL_MY(key) == TL_PCR_NONE) {
        TL_MY(key) = (long long)step * n + i;
        TL_MY(krow) = i;
      }
    }
    TL_ST(keys, t) = TL_MY(key);
    TL_ST(rows, t) = TL_MY(krow);
  }
  TL_BARRIER();
  TL_REGION(t) /* thread 0 finds the block's first failure */
  {
    if (t == 0) {
      long long best = TL_PCR_NONE, row = 0;
      for (int k = 0; k < TL_BLOCK_THREADS; k++) {
        long long first = TL_LD(keys, k);
        if (first != TL_PCR_NONE && (best == TL_PCR_NONE || first < best)) {
          best = first;
          row = TL_LD(rows, k);
        }
      }
      int *st = stat + sys * TL_GPU_STAT_WORDS;
      TL_ST(st, 0) = best == TL_PCR_NONE ? TL_GPU_OK
                     : best / n < step   ? TL_GPU_PIVOT
                                         : TL_GPU_NONFINITE;
      TL_ST(st, 1) = (int)row;
      TL_ST(st, 2) = 0;
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
    T bi = TL_LD(b, i);
    if (bi == 0 || !isfinite(bi))
      return i;
    T ai = (i == 0 && !has_left) ? (T)0 : TL_LD(a, i);
    T ci = (i == m - 1 && !has_right) ? (T)0 : TL_LD(c, i);
    TL_ST(as, i) = ai / bi;
    TL_ST(cs, i) = ci / bi;
    TL_ST(ds, i) = TL_LD(d, i) / bi;
  }
  for (long i = 2; i < m; i++) { /* forward: the fill-in stays in column 0 */
    T ai = TL_LD(a, i), p = TL_LD(b, i) - ai * TL_LD(cs, i - 1);
    if (p == 0 || !isfinite(p))
      return i;
    T ci = (i == m - 1 && !has_right) ? (T)0 : TL_LD(c, i);
    TL_ST(ds, i) = (TL_LD(d, i) - ai * TL_LD(ds, i - 1)) / p;
    TL_ST(as, i) = -(ai * TL_LD(as, i - 1)) / p;
    TL_ST(cs, i) = ci / p;
  }
  for (long i = m - 2; i-- > 1;) { /* backward: the fill-in moves to column m-1 */
    T ci = TL_LD(cs, i);
    TL_ST(ds, i) = TL_LD(ds, i) - ci * TL_LD(ds, i + 1);
    TL_ST(as, i) = TL_LD(as, i) - ci * TL_LD(as, i + 1);
    TL_ST(cs, i) = -ci * TL_LD(cs, i + 1);
  }
  if (m >= 3) { /* row 0 eliminates x_1 */
    T c0 = TL_LD(cs, 0), a1 = TL_LD(as, 1), p = 1 - c0 * a1;
    if (p == 0 || !isfinite(p))
      return 0;
    TL_ST(ds, 0) = (TL_LD(ds, 0) - c0 * TL_LD(ds, 1)) / p;
    TL_ST(as, 0) = TL_LD(as, 0) / p;
    TL_ST(cs, 0) = -(c0 * TL_LD(cs, 1)) / p;
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
  /* One sub-array for the four failure arrays, split by hand: carving
   * four (CUDA 13, sm_90) took the double kernel from 70 to 89 registers
   * per thread, and so fewer threads (partitions) a block could have. */
  TL_SHARED_BEGIN();
  long long *fwd = TL_SHARED_ARRAY(long long, 4 * P), *pkey = fwd + P, *prow = pkey + P;
  long long *bwd = prow + P;
  T *as = work + sys * TL_HYBRID_WORK(n, P), *cs = as + n, *ds = cs + n, *red = ds + n;
  const T *sa = a + sys * n, *sb = b + sys * n, *sc = c + sys * n, *sd = d + sys * n;
  TL_REGION(p) /* phase 1 and the reduced rows */
  {
    long lo = TL_LD(off, p), m = TL_LD(off, p + 1) - lo;
    long bad = KF(hybrid_forward)(m, p > 0, p + 1 < P, sa + lo, sb + lo, sc + lo, sd + lo, as + lo,
                                  cs + lo, ds + lo);
    TL_ST(fwd, p) = bad < 0 ? TL_PCR_NONE : lo + bad;
    TL_ST(pkey, p) = TL_PCR_NONE;
    for (long i = lo; bad >= 0 && i < lo + m; i++) /* a breakdown left rows unset: NaN */
      TL_ST(as, i) = TL_ST(cs, i) = TL_ST(ds, i) = (T)NAN;
    for (int k = 0; k < 2; k++) { /* rows 0 and m-1 */
      long i = lo + (k ? m - 1 : 0), r = 2 * p + k;
      TL_ST(red, r) = (r == 0) ? (T)0 : TL_LD(as, i);
      TL_ST(red, R + r) = 1;
      TL_ST(red, 2 * R + r) = (r == R - 1) ? (T)0 : TL_LD(cs, i);
      TL_ST(red, 3 * R + r) = TL_LD(ds, i);
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
        if (bad >= 0 && TL_LD(pkey, p) == TL_PCR_NONE) {
          TL_ST(pkey, p) = (long long)step * R + i;
          TL_ST(prow, p) = bad;
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
      T bi = TL_LD(cb, i), yi = TL_LD(cd, i) / bi;
      TL_ST(y, i) = yi;
      if ((bi == 0 || !isfinite(bi) || !isfinite(yi)) && TL_LD(pkey, p) == TL_PCR_NONE) {
        TL_ST(pkey, p) = (long long)step * R + i;
        TL_ST(prow, p) = i;
      }
    }
  }
  TL_BARRIER();
  TL_REGION(p) /* phase 3: substitution with the partition's two unknowns */
  {
    long lo = TL_LD(off, p), m = TL_LD(off, p + 1) - lo;
    T first = TL_LD(y, 2 * p), last = TL_LD(y, 2 * p + 1);
    T *xp = x + sys * n + lo;
    TL_ST(xp, 0) = first;
    TL_ST(xp, m - 1) = last;
    for (long i = 1; i + 1 < m; i++)
      TL_ST(xp, i) = TL_LD(ds, lo + i) - TL_LD(as, lo + i) * first - TL_LD(cs, lo + i) * last;
    long long bad = TL_PCR_NONE; /* the partition's first non-finite x */
    for (long i = 0; i < m && bad == TL_PCR_NONE; i++)
      if (!isfinite(TL_LD(xp, i)))
        bad = lo + i;
    TL_ST(bwd, p) = bad;
  }
  TL_BARRIER();
  TL_REGION(p) /* thread 0: the first failure in the reference's order */
  {
    if (p == 0) {
      int *st = stat + sys * TL_GPU_STAT_WORDS, kind = TL_GPU_OK;
      long long row = 0, best = TL_PCR_NONE;
      for (long q = 0; q < P && kind == TL_GPU_OK; q++)
        if (TL_LD(fwd, q) != TL_PCR_NONE)
          kind = TL_GPU_PIVOT, row = TL_LD(fwd, q);
      for (long q = 0; q < P && kind == TL_GPU_OK; q++)
        if (TL_LD(pkey, q) != TL_PCR_NONE && (best == TL_PCR_NONE || TL_LD(pkey, q) < best))
          best = TL_LD(pkey, q), row = TL_LD(prow, q);
      if (kind == TL_GPU_OK && best != TL_PCR_NONE) /* reduced row -> global row */
        kind = TL_GPU_PIVOT, row = (row % 2) ? TL_LD(off, row / 2 + 1) - 1 : TL_LD(off, row / 2);
      for (long q = 0; q < P && kind == TL_GPU_OK; q++)
        if (TL_LD(bwd, q) != TL_PCR_NONE)
          kind = TL_GPU_NONFINITE, row = TL_LD(bwd, q);
      TL_ST(st, 0) = kind;
      TL_ST(st, 1) = (int)row;
      TL_ST(st, 2) = 0;
    }
  }
  TL_BARRIER();
}

/* ------------------------------------------------------------------ */
/* Hybrid Thomas-PCR on chip: a system split over a block's threads,    */
/* nothing but the answer written                                      */

/* The same algorithm and arithmetic as hybrid_kernel (so the same bits),
 * for partitions of at most TL_GPU_CHIP_M rows, with every intermediate
 * kept on the chip: a thread's partition (a, b, c, d, then a*, c*, d*)
 * and its two reduced rows in registers, the reduced system's exchange
 * through shared memory. Global memory sees a, b, c, d read once and x
 * written once: the 5 words per unknown of the byte model, where
 * hybrid_kernel and the packed Thomas kernel move 9 or more (docs/gpu.md).
 *
 * A thread's rows are adjacent in memory, so a warp reading them
 * directly would touch 32 lines per load. The block reads the arrays
 * instead with consecutive threads on consecutive rows (coalesced) into
 * shared memory, then every thread takes its own rows from there:
 *
 *   global a:  | r0 r1 r2 ... r7 | r8 ... r15 | ...    thread t loads rows
 *                 t0 t1 t2  ...                         t, t + P, t + 2P, ...
 *   shared:    | r0 .. r7 pad | r8 .. r15 pad | ...    one pad word per 8
 *   registers: thread p takes rows off[p] .. off[p+1]-1
 *
 * The pad word keeps the second read free of bank conflicts (rows 8
 * apart would otherwise fall in the same bank). All four arrays of `per`
 * partitions are staged at once (a round): one round when the system
 * fits in shared memory, more for long systems (tl_gpu_hybrid_chip_launch);
 * x leaves the same way. */
/* What a thread keeps across barriers: its partition (lo, m; a*, c*, d*
 * after phase 1, x after phase 3), its two rows of the reduced system
 * (a, b, c, d) and its first failure (key). */
typedef struct KF(chip_rows) {
  T a[TL_GPU_CHIP_M], c[TL_GPU_CHIP_M], d[TL_GPU_CHIP_M];
  T red[8];
  long long key;
  long lo;
  int m;
} KF(chip_rows);

/* Phase 1 of one partition: hybrid_forward's operations, reading a, b,
 * c, d of row i from the staged round (array k at buf[k span + pad(base
 * + i)]) as the sweep reaches it and keeping only a*, c*, d* (in a, c,
 * d: the thread's registers). Loops of TL_GPU_CHIP_M trips with a test
 * of m, so that they unroll and the arrays stay registers. Returns the
 * local row of a zero or non-finite pivot, or -1. */
#define TL_CHIP_IN(k, i) TL_LD(buf, (k) * span + TL_GPU_CHIP_PAD(base + (i)))
TL_DEVICE_FN long KF(chip_forward)(int m, int has_left, int has_right, const T *buf, long span,
                                   long base, T *a, T *c, T *d)
{
  TL_UNROLL
  for (int i = 0; i < 2; i++) { /* rows 0 and 1: scaled by their diagonal */
    T bi = TL_CHIP_IN(1, i);
    if (bi == 0 || !isfinite(bi))
      return i;
    T ai = (i == 0 && !has_left) ? (T)0 : TL_CHIP_IN(0, i);
    T ci = (i == m - 1 && !has_right) ? (T)0 : TL_CHIP_IN(2, i);
    a[i] = ai / bi;
    c[i] = ci / bi;
    d[i] = TL_CHIP_IN(3, i) / bi;
  }
  TL_UNROLL
  for (int i = 2; i < TL_GPU_CHIP_M; i++) { /* forward: the fill-in stays in column 0 */
    if (i < m) {
      T ai = TL_CHIP_IN(0, i), p = TL_CHIP_IN(1, i) - ai * c[i - 1];
      if (p == 0 || !isfinite(p))
        return i;
      T ci = (i == m - 1 && !has_right) ? (T)0 : TL_CHIP_IN(2, i);
      d[i] = (TL_CHIP_IN(3, i) - ai * d[i - 1]) / p;
      a[i] = -(ai * a[i - 1]) / p;
      c[i] = ci / p;
    }
  }
  TL_UNROLL
  for (int i = TL_GPU_CHIP_M - 3; i >= 1; i--) { /* backward: the fill-in moves to column m-1 */
    if (i <= m - 3) {
      T ci = c[i];
      d[i] = d[i] - ci * d[i + 1];
      a[i] = a[i] - ci * a[i + 1];
      c[i] = -ci * c[i + 1];
    }
  }
  if (m >= 3) { /* row 0 eliminates x_1 */
    T c0 = c[0], a1 = a[1], p = 1 - c0 * a1;
    if (p == 0 || !isfinite(p))
      return 0;
    d[0] = (d[0] - c0 * d[1]) / p;
    a[0] = a[0] / p;
    c[0] = -(c0 * c[1]) / p;
  }
  return -1;
}
#undef TL_CHIP_IN

/* A failure's key: the smaller, the earlier in the reference's order
 * (phase 1 by row, then PCR by step and row, then phase 3 by row), with
 * the row to report in the low 32 bits. */
#define TL_CHIP_KEY(rank, row) (((long long)(rank) << 32) | (long long)(unsigned)(row))
#define TL_CHIP_NONE (0x7fffffffffffffffLL)

/* One block per system, thread p = partition p of rows [off[p], off[p+1]),
 * P threads, 2 <= rows <= TL_GPU_CHIP_M, `per` partitions a round
 * (tl_gpu_hybrid_chip_launch).
 *   rounds    a, b, c, d of partitions [q0, q0 + per) staged through
 *             shared memory; phase 1 on each, reading its rows there;
 *             rows 0 and m-1 become reduced rows 2p and 2p+1, stored
 *   PCR       thread p owns reduced rows p and p + P (neighbouring
 *             threads, neighbouring words: no bank conflicts); per
 *             stride it updates them from the stored system, barrier,
 *             stores them, barrier
 *   phase 3   y = d / b of rows 2p and 2p+1, x of the partition, staged
 *             back through shared memory and stored coalesced
 *   last      thread 0 reports the smallest failure key
 * Shared memory: P keys, then the staging buffer (4 arrays of a round's
 * rows, x, or the reduced system: whichever is largest). */
TL_KERNEL_BOUNDED(KF(hybrid_chip_kernel), TL_GPU_CHIP_THREADS, long n, int parts, int per,
                  const long *off, const T *a, const T *b, const T *c, const T *d, T *x, int *stat)
{
  const long sys = TL_BLOCK_ID, P = parts, R = 2 * P;
  const long span = TL_GPU_CHIP_SPAN((long)per); /* one array of a round */
  long words = TL_GPU_CHIP_PAD(n - 1) + 1;       /* x */
  words = words > 4 * R ? words : 4 * R;
  words = words > 4 * span ? words : 4 * span;
  TL_SHARED_BEGIN();
  long long *keys = TL_SHARED_ARRAY(long long, P);
  T *buf = TL_SHARED_ARRAY(T, words);
  T *ra = buf, *rb = buf + R, *rc = buf + 2 * R, *rd = buf + 3 * R; /* the reduced system */
  TL_PER_THREAD(KF(chip_rows), rows);
  const T *sa = a + sys * n, *sb = b + sys * n, *sc = c + sys * n, *sd = d + sys * n;
  for (long q0 = 0; q0 < P; q0 += per) { /* a round: partitions q0 .. q1-1 */
    const long q1 = q0 + per < P ? q0 + per : P;
    TL_REGION(t) /* the round's rows, coalesced, into shared memory */
    {
      /* A thread's rows t, t + P, ... : at most TL_GPU_CHIP_M (a round
       * has at most per <= P partitions of at most that many rows). Every
       * load is issued before the first store, so that the thread waits
       * for memory once, not once per row. */
      long r0 = TL_LD(off, q0), rows_in = TL_LD(off, q1) - r0;
      T v[4][TL_GPU_CHIP_M];
      TL_UNROLL
      for (int k = 0; k < TL_GPU_CHIP_M; k++) {
        long i = t + k * P;
        if (i < rows_in) {
          v[0][k] = TL_LD(sa, r0 + i);
          v[1][k] = TL_LD(sb, r0 + i);
          v[2][k] = TL_LD(sc, r0 + i);
          v[3][k] = TL_LD(sd, r0 + i);
        }
      }
      TL_UNROLL
      for (int k = 0; k < TL_GPU_CHIP_M; k++) {
        long i = t + k * P;
        if (i < rows_in)
          TL_UNROLL
          for (int q = 0; q < 4; q++)
            TL_ST(buf, q * span + TL_GPU_CHIP_PAD(i)) = v[q][k];
      }
    }
    TL_BARRIER();
    TL_REGION(p) /* each partition of the round: phase 1 from the staged rows */
    {
      if (p >= q0 && p < q1) {
        KF(chip_rows) *r = &TL_MY(rows);
        r->lo = TL_LD(off, p);
        r->m = (int)(TL_LD(off, p + 1) - r->lo);
        int m = r->m;
        long bad = KF(chip_forward)(m, p > 0, p + 1 < P, buf, span, r->lo - TL_LD(off, q0), r->a,
                                    r->c, r->d);
        r->key = bad < 0 ? TL_CHIP_NONE : TL_CHIP_KEY(r->lo + bad, 0);
        TL_UNROLL
        for (int i = 0; i < TL_GPU_CHIP_M; i++) /* a breakdown left rows unset: NaN */
          if (bad >= 0 && i < m)
            r->a[i] = r->c[i] = r->d[i] = (T)NAN;
        T al = 0, cl = 0, dl = 0; /* row m-1, found by an unrolled loop: registers */
        TL_UNROLL
        for (int i = 1; i < TL_GPU_CHIP_M; i++)
          if (i == m - 1)
            al = r->a[i], cl = r->c[i], dl = r->d[i];
        r->red[0] = p == 0 ? (T)0 : r->a[0];
        r->red[1] = 1;
        r->red[2] = r->c[0]; /* row 2p is never the last */
        r->red[3] = r->d[0];
        r->red[4] = al;
        r->red[5] = 1;
        r->red[6] = p + 1 == P ? (T)0 : cl;
        r->red[7] = dl;
      }
    }
    TL_BARRIER();
  }
  TL_REGION(p) /* the reduced rows 2p, 2p+1 into the reduced system */
  {
    TL_UNROLL
    for (int e = 0; e < 2; e++) {
      TL_ST(ra, 2 * p + e) = TL_MY(rows).red[4 * e];
      TL_ST(rb, 2 * p + e) = TL_MY(rows).red[4 * e + 1];
      TL_ST(rc, 2 * p + e) = TL_MY(rows).red[4 * e + 2];
      TL_ST(rd, 2 * p + e) = TL_MY(rows).red[4 * e + 3];
    }
  }
  TL_BARRIER();
  /* PCR on the reduced system: thread p's rows p and p + P */
  long step = 0;
  for (long s = 1; s < R; s *= 2, step++) {
    TL_REGION(p)
    {
      KF(chip_rows) *r = &TL_MY(rows);
      TL_UNROLL
      for (int e = 0; e < 2; e++) {
        long i = p + e * P;
        T *row = r->red + 4 * e;
        if (step == 0) /* the stored rows, theirs until now */
          row[0] = TL_LD(ra, i), row[1] = TL_LD(rb, i), row[2] = TL_LD(rc, i),
          row[3] = TL_LD(rd, i);
        T own[4] = {row[0], row[1], row[2], row[3]};
        long bad = KF(pcr_row_own)(R, s, i, own, ra, rb, rc, rd, row);
        if (bad >= 0) {
          TL_UNROLL
          for (int k = 0; k < 4; k++)
            row[k] = (T)NAN;
          long long key = TL_CHIP_KEY(n + step * R + i, bad);
          r->key = key < r->key ? key : r->key;
        }
      }
    }
    TL_BARRIER();
    TL_REGION(p)
    {
      TL_UNROLL
      for (int e = 0; e < 2; e++) {
        long i = p + e * P;
        TL_ST(ra, i) = TL_MY(rows).red[4 * e];
        TL_ST(rb, i) = TL_MY(rows).red[4 * e + 1];
        TL_ST(rc, i) = TL_MY(rows).red[4 * e + 2];
        TL_ST(rd, i) = TL_MY(rows).red[4 * e + 3];
      }
    }
    TL_BARRIER();
  }
  TL_REGION(p) /* the reduced answer for rows 2p, 2p+1; phase 3 in registers */
  {
    KF(chip_rows) *r = &TL_MY(rows);
    int m = r->m;
    T y[2];
    TL_UNROLL
    for (int e = 0; e < 2; e++) { /* y_i = d_i / b_i */
      long i = 2 * p + e;
      T bi = TL_LD(rb, i);
      y[e] = TL_LD(rd, i) / bi;
      if (bi == 0 || !isfinite(bi) || !isfinite(y[e])) {
        long long key = TL_CHIP_KEY(n + step * R + i, i);
        r->key = key < r->key ? key : r->key;
      }
    }
    T first = y[0], last = y[1];
    long long bad = TL_CHIP_NONE; /* the partition's first non-finite x */
    TL_UNROLL
    for (int i = 0; i < TL_GPU_CHIP_M; i++)
      if (i < m) {
        T xi = i == 0 ? first : i == m - 1 ? last : r->d[i] - r->a[i] * first - r->c[i] * last;
        r->d[i] = xi;
        if (!isfinite(xi) && bad == TL_CHIP_NONE)
          bad = TL_CHIP_KEY(n + (step + 1) * R + r->lo + i, 0);
      }
    TL_ST(keys, p) = bad < r->key ? bad : r->key;
  }
  TL_BARRIER();
  TL_REGION(p) /* x into shared memory, as the rows were staged */
  {
    KF(chip_rows) *r = &TL_MY(rows);
    TL_UNROLL
    for (int i = 0; i < TL_GPU_CHIP_M; i++)
      if (i < r->m)
        TL_ST(buf, TL_GPU_CHIP_PAD(r->lo + i)) = r->d[i];
  }
  TL_BARRIER();
  const long W = P < 32 ? P : 32;
  TL_REGION(t) /* x stored coalesced; the keys reduced to W */
  {
    T *xs = x + sys * n; /* at most TL_GPU_CHIP_M rows a thread */
    TL_UNROLL
    for (int k = 0; k < TL_GPU_CHIP_M; k++)
      if (t + k * P < n)
        TL_ST(xs, t + k * P) = TL_LD(buf, TL_GPU_CHIP_PAD(t + k * P));
    if (t < W) {
      long long best = TL_LD(keys, t);
      for (long q = t + W; q < P; q += W) {
        long long kq = TL_LD(keys, q);
        best = kq < best ? kq : best;
      }
      TL_ST(keys, t) = best;
    }
  }
  TL_BARRIER();
  TL_REGION(t) /* thread 0: the first failure in the reference's order */
  {
    if (t == 0) {
      long long best = TL_LD(keys, 0);
      for (long q = 1; q < W; q++) {
        long long kq = TL_LD(keys, q);
        best = kq < best ? kq : best;
      }
      int *st = stat + sys * TL_GPU_STAT_WORDS, kind = TL_GPU_OK;
      long row = 0;
      if (best != TL_CHIP_NONE) {
        long rank = (long)(best >> 32), val = (long)(best & 0xffffffffLL);
        if (rank < n) /* phase 1 */
          kind = TL_GPU_PIVOT, row = rank;
        else if (rank < n + (step + 1) * R) /* PCR: reduced row -> global row */
          kind = TL_GPU_PIVOT, row = (val % 2) ? TL_LD(off, val / 2 + 1) - 1 : TL_LD(off, val / 2);
        else /* phase 3 */
          kind = TL_GPU_NONFINITE, row = rank - n - (step + 1) * R;
      }
      TL_ST(st, 0) = kind;
      TL_ST(st, 1) = (int)row;
      TL_ST(st, 2) = 0;
    }
  }
  TL_BARRIER();
}

/* ------------------------------------------------------------------ */
/* DistD2 (paper 000 §4.2), one thread per system of a packed group,    */
/* one block per (group, partition)                                     */

/* The preprocessed matrix of Algorithm 5 (tridlab/part_distd2.h) in the
 * kernel's precision: the same for every system of the batch in the
 * SZ-packed kernels below (the slice kernels of one MPI rank read one
 * per system instead). */
typedef struct KF(distd2_coef) {
  const long *begin; /* P + 1 partition bounds */
  const T *sa, *sc, *f, *r, *w, *fix;
} KF(distd2_coef);

/* u at row i of this lane (rows z apart): wrap when periodic, zero
 * outside otherwise (the halo rule of tl_distd2_halo_d); with ghosts (an
 * MPI rank's slice: tl_mpi_distd2_compact_gpu) u holds the two rows on
 * each side of its own, filled from the neighbours, read as they are
 * (rows past them, which the window loads ahead and no row uses: 0).
 * ghosts is a constant at every call, so the kernels without them keep
 * no test of it (a test of a kernel argument cost the fused DistD2
 * kernel 4 to 13 registers). */
TL_DEVICE_FN T KF(field)(long n, long z, int periodic, int ghosts, const T *u, long i)
{
  if ((i >= 0 && i < n) || (ghosts && i >= -2 && i < n + 2))
    return TL_LD(u, i * z);
  if (!periodic || ghosts)
    return 0;
  return TL_LD(u, (((i % n) + n) % n) * z);
}

/* Algorithm 6 on rows [k0, k0 + m) of one lane, whose rows are z apart
 * in `in` and dt (TL_GPU_SZ packed, 1 on the batch layout; the plan's
 * rows are 1 apart): the right-hand side is d, or the 5-point stencil on
 * u when st is given (the fusion of Figure 9). Returns the first row
 * whose d' is not finite, or -1.
 *
 * As Thomas's lane, the forward sweep loads TL_GPU_AHEAD rows ahead: u
 * through a window of the stencil's reach (win[k] = u(i0 - 2 + k)), or d;
 * the backward sweep loads d' ahead. Each row's final d' is checked for
 * being finite as it is made (the last two rows in the forward sweep,
 * rows m-3..1 in the backward one, row 0 after lines 18-20), so no pass
 * reads d' again only to check it. */
TL_DEVICE_FN long KF(distd2_decouple_lane)(long n, long z, int periodic, int ghosts, long k0,
                                           long m, const KF(distd2_coef) * q, const T *fix,
                                           const T *st, const T *in, T *dt)
{
  enum { U = TL_GPU_AHEAD };
  const T *f = q->f + k0, *r = q->r + k0, *w = q->w + k0;
  T *y = dt + k0 * z;
  long bad = m; /* the smallest row whose d' is not finite; m: none */
  T win[U + 4], yprev = 0, ylast2 = 0;
  for (long j0 = 0; j0 < m; j0 += U) { /* lines 1-12 */
    TL_UNROLL
    for (int k = 0; k < U + 4; k++) /* u(i0 - 2 .. i0 + U + 1): the window moves by U */
      if (st && (j0 == 0 || k >= 4))
        win[k] = KF(field)(n, z, periodic, ghosts, in, k0 + j0 - 2 + k);
      else if (st)
        win[k] = win[k + U];
    T rd[U];
    TL_UNROLL
    for (int k = 0; k < U; k++)
      if (!st && j0 + k < m)
        rd[k] = TL_LD(in, (k0 + j0 + k) * z);
    TL_UNROLL
    for (int k = 0; k < U; k++) {
      long j = j0 + k;
      if (j >= m)
        continue;
      T rhs = st ? TL_LD(st, 0) * win[k] + TL_LD(st, 1) * win[k + 1] + TL_LD(st, 2) * win[k + 2] +
                       TL_LD(st, 3) * win[k + 3] + TL_LD(st, 4) * win[k + 4]
                 : rd[k];
      T yj = (j < 2) ? rhs * TL_LD(f, j) : TL_LD(f, j) * (rhs - TL_LD(r, j) * yprev);
      TL_ST(y, j * z) = yj;
      if (j == m - 2)
        ylast2 = yj;
      if (j >= m - 2 && !isfinite(yj) && j < bad)
        bad = j;
      yprev = yj;
    }
  }
  T ynext = ylast2; /* lines 13-17: rows m-3 .. 1, from d'(m-2) */
  for (long j1 = m - 3; j1 >= 1; j1 -= U) {
    T ry[U];
    TL_UNROLL
    for (int k = 0; k < U; k++)
      if (j1 - k >= 1)
        ry[k] = TL_LD(y, (j1 - k) * z);
    TL_UNROLL
    for (int k = 0; k < U; k++) {
      long j = j1 - k;
      if (j < 1)
        continue;
      T yj = ry[k] - TL_LD(w, j) * ynext;
      TL_ST(y, j * z) = yj;
      if (!isfinite(yj))
        bad = j; /* rows come downwards: the last one found is the first */
      ynext = yj;
    }
  }
  if (m >= 3) { /* lines 18-20 */
    T y0 = TL_LD(fix, 0) * (TL_LD(y, 0) - TL_LD(w, 0) * TL_LD(y, z));
    TL_ST(y, 0) = y0;
    if (!isfinite(y0))
      bad = 0;
  }
  return bad < m ? k0 + bad : -1;
}

/* Block (g, p): partition p of packed group g. stat: 3 ints per (system,
 * partition): the first non-finite row of the decoupling, of the
 * interface, of the substitution (-1: none); this kernel writes the first. */
TL_KERNEL(KF(distd2_decouple_kernel), long n, int periodic, long nsys, int parts, KF(distd2_coef) q,
          const T *st, const T *in, T *dt, int *stat)
{
  const long g = TL_BLOCK_ID / parts, p = TL_BLOCK_ID % parts;
  TL_REGION(t)
  {
    long s = g * TL_GPU_SZ + t, o = g * n * TL_GPU_SZ + t;
    if (s < nsys) {
      long k0 = TL_LD(q.begin, p), m = TL_LD(q.begin, p + 1) - k0;
      long bad = KF(distd2_decouple_lane)(n, TL_GPU_SZ, periodic, 0, k0, m, &q, q.fix + p, st,
                                          in + o, dt + o);
      TL_ST(stat, (s * parts + p) * 3) = (int)bad;
    }
  }
  TL_BARRIER();
}

/* The 2x2 across the interface after partition `left` (tl_distd2_interface_d):
 * x_first of the partition after it, then x_last of `left`. Returns 0 when
 * the 2x2 is singular. */
TL_DEVICE_FN int KF(distd2_interface)(const KF(distd2_coef) * q, int parts, long left, const T *dt,
                                      T *x_last, T *x_first)
{
  long right = (left + 1) % parts;
  long last = TL_LD(q->begin, left + 1) - 1, first = TL_LD(q->begin, right);
  T alpha = TL_LD(q->sc, last), beta = TL_LD(q->sa, first);
  if (parts == 1) { /* one partition: its own coupling is kept */
    alpha += TL_LD(q->sa, last);
    beta += TL_LD(q->sc, first);
  }
  T det = 1 - alpha * beta;
  if (det == 0 || !isfinite(det))
    return 0;
  T dfirst = TL_LD(dt, first * TL_GPU_SZ), dlast = TL_LD(dt, last * TL_GPU_SZ);
  *x_first = (dfirst - beta * dlast) / det;
  *x_last = dlast - alpha * *x_first;
  return 1;
}

/* Algorithm 7 on rows [k0, k1) of one lane (rows z apart in dt and x,
 * 1 apart in sa and sc): x_k0 = first, x_k = d'_k - sa_k first - sc_k
 * last, x_(k1-1) = last, rows loaded ahead. x may be dt (each row is read
 * before it is written). Returns the first row whose x is not finite, or
 * -1. */
TL_DEVICE_FN long KF(distd2_substitute_lane)(long k0, long k1, long z, const T *sa, const T *sc,
                                             T first, T last, const T *dt, T *x)
{
  long bad = k1; /* the first row whose x is not finite; k1: none */
  TL_ST(x, k0 * z) = first;
  for (long k = k0 + 1; k + 1 < k1; k += TL_GPU_AHEAD) {
    T rd[TL_GPU_AHEAD];
    TL_UNROLL
    for (int j = 0; j < TL_GPU_AHEAD; j++)
      if (k + j + 1 < k1)
        rd[j] = TL_LD(dt, (k + j) * z);
    TL_UNROLL
    for (int j = 0; j < TL_GPU_AHEAD; j++)
      if (k + j + 1 < k1) {
        T xk = rd[j] - TL_LD(sa, k + j) * first - TL_LD(sc, k + j) * last;
        TL_ST(x, (k + j) * z) = xk;
        if (!isfinite(xk) && k + j < bad)
          bad = k + j;
      }
  }
  TL_ST(x, (k1 - 1) * z) = last; /* (k1 - 1 = k0: one row, x = last) */
  if (!isfinite(last) && bad == k1)
    bad = k1 - 1;
  if (k1 - 1 > k0 && !isfinite(first))
    bad = k0;
  return bad < k1 ? bad : -1;
}

/* Block (g, p): the two interfaces of partition p (before and after it),
 * then Algorithm 7 on its rows. Every partition solves its own copy of
 * the 2x2 it shares with a neighbour: the same operations on the same
 * values, so the copies agree, and no block waits for another. */
TL_KERNEL(KF(distd2_finish_kernel), long n, long nsys, int parts, KF(distd2_coef) q, const T *dt,
          T *x, int *stat)
{
  const long g = TL_BLOCK_ID / parts, p = TL_BLOCK_ID % parts;
  TL_REGION(t)
  {
    long s = g * TL_GPU_SZ + t, o = g * n * TL_GPU_SZ + t;
    if (s < nsys) {
      int *st = stat + (s * parts + p) * 3;
      T first = 0, last = 0, unused;
      long k0 = TL_LD(q.begin, p), k1 = TL_LD(q.begin, p + 1);
      KF(distd2_interface)(&q, parts, (p + parts - 1) % parts, dt + o, &unused, &first);
      int ok = KF(distd2_interface)(&q, parts, p, dt + o, &last, &unused);
      TL_ST(st, 1) = ok ? -1 : (int)(k1 - 1); /* the interface after p is p's to report */
      long bad =
          KF(distd2_substitute_lane)(k0, k1, TL_GPU_SZ, q.sa, q.sc, first, last, dt + o, x + o);
      TL_ST(st, 2) = (int)bad;
    }
  }
  TL_BARRIER();
}

#if TL_GPU_DOUBLE /* double only, as the compact scheme across ranks */
/* ------------------------------------------------------------------ */
/* The compact scheme across MPI ranks (tl_mpi_distd2_compact_gpu): ONE */
/* slice plan for every system of the rank's packed batch, the stencil  */
/* fused, kept where the kernels run (tl_gpu_compact_resident_*)        */

/* Block g, thread t: system s = g TL_GPU_SZ + t of the rank's packed
 * slices of m rows. uh: u with the two neighbour rows on each side, m + 4
 * rows per group (tl_mpi_distd2_compact_sz's layout); Algorithm 6 with
 * the stencil into dt (m rows per group), and the two d' the exchange
 * needs into ends[2 s], ends[2 s + 1] (rows 0 and m-1); stat[2 s]: the
 * first row whose d' is not finite, or -1. */
TL_KERNEL(KF(distd2_compact_decouple_kernel), long m, long nsys, KF(distd2_coef) q, const T *st,
          const T *uh, T *dt, T *ends, int *stat)
{
  const long g = TL_BLOCK_ID;
  TL_REGION(t)
  {
    long s = g * TL_GPU_SZ + t, o = g * m * TL_GPU_SZ + t;
    if (s < nsys) {
      const T *u = uh + (g * (m + 4) + 2) * TL_GPU_SZ + t; /* own row 0 */
      long bad = KF(distd2_decouple_lane)(m, TL_GPU_SZ, 0, 1, 0, m, &q, q.fix, st, u, dt + o);
      TL_ST(ends, 2 * s) = TL_LD(dt, o);
      TL_ST(ends, 2 * s + 1) = TL_LD(dt, o + (m - 1) * TL_GPU_SZ);
      TL_ST(stat, 2 * s) = (int)bad;
    } else { /* a lane past the last system: zeros, so that x comes back defined */
      for (long k = 0; k < m; k++)
        TL_ST(dt, o + k * TL_GPU_SZ) = 0;
    }
  }
  TL_BARRIER();
}

/* Thread t, system s as above: Algorithm 7 from dt with x_first, x_last
 * = xfl[2 s], xfl[2 s + 1] into x (m rows per group; may be dt);
 * stat[2 s + 1]: the first row whose x is not finite, or -1. */
TL_KERNEL(KF(distd2_compact_substitute_kernel), long m, long nsys, KF(distd2_coef) q, const T *xfl,
          const T *dt, T *x, int *stat)
{
  const long g = TL_BLOCK_ID;
  TL_REGION(t)
  {
    long s = g * TL_GPU_SZ + t, o = g * m * TL_GPU_SZ + t;
    if (s < nsys) {
      long bad = KF(distd2_substitute_lane)(0, m, TL_GPU_SZ, q.sa, q.sc, TL_LD(xfl, 2 * s),
                                            TL_LD(xfl, 2 * s + 1), dt + o, x + o);
      TL_ST(stat, 2 * s + 1) = (int)bad;
    }
  }
  TL_BARRIER();
}
#endif /* TL_GPU_DOUBLE */

/* ------------------------------------------------------------------ */
/* DistD2 on an MPI rank's slices (optimized/mpi/distd2_mpi.c,          */
/* distd2_gpu_mpi): one thread per system of the batch layout, each     */
/* system its own matrix and so its own plan                            */

/* What the decoupling of a rank's rows sends (tl_distd2_pack_d): its
 * first and last rows, 6 values per system in tl_distd2_edge's order. */
#define TL_DISTD2_SLICE_EDGE 6

/* Block g, thread t: system s = g TL_GPU_SZ + t of nsys slices of m rows
 * (the batch layout: system s's rows at s m). Its plan (Algorithm 5, made
 * on the host: tl_distd2_plan_slice_in_d or tl_cpu_distd2_preprocess_lines_d)
 * is plan + 5 m s: sa, sc, fwd_scale, fwd_mul, bwd_mul (m each), and
 * fix[s]. Algorithm 6 on d into dt, then the two rows the exchange sends
 * into edge + 6 s. stat: 3 ints per system, as the DistD2 kernels above:
 * word 0 the decoupling's first non-finite row, word 1 the interface's
 * (-1 here: the 2x2 systems are the host's), word 2 the substitution's;
 * this kernel writes words 0 and 1. The systems share nothing: no
 * barrier inside. */
TL_KERNEL(KF(distd2_slice_decouple_kernel), long m, long nsys, const T *plan, const T *fix,
          const T *d, T *dt, T *edge, int *stat)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t;
    if (s < nsys) {
      const T *rows = plan + 5 * m * s;
      KF(distd2_coef) q = {NULL, rows, rows + m, rows + 2 * m, rows + 3 * m, rows + 4 * m, fix + s};
      T *y = dt + s * m, *e = edge + TL_DISTD2_SLICE_EDGE * s;
      long bad = KF(distd2_decouple_lane)(m, 1, 0, 0, 0, m, &q, q.fix, NULL, d + s * m, y);
      TL_ST(e, 0) = TL_LD(q.sa, 0); /* first row: to the rank before */
      TL_ST(e, 1) = TL_LD(q.sc, 0);
      TL_ST(e, 2) = TL_LD(y, 0);
      TL_ST(e, 3) = TL_LD(q.sa, m - 1); /* last row: to the rank after */
      TL_ST(e, 4) = TL_LD(q.sc, m - 1);
      TL_ST(e, 5) = TL_LD(y, m - 1);
      TL_ST(stat, 3 * s) = (int)bad;
      TL_ST(stat, 3 * s + 1) = -1;
    }
  }
  TL_BARRIER();
}

/* Thread t of block g, system s as above: Algorithm 7 on its rows with
 * its x_first and x_last (ends[2 s], ends[2 s + 1]: the host solved the
 * 2x2 systems from the exchanged rows), d' from dt into x (x may be dt).
 * Writes stat[3 s + 2], the first row whose x is not finite (-1: none). */
TL_KERNEL(KF(distd2_slice_substitute_kernel), long m, long nsys, const T *plan, const T *ends,
          const T *dt, T *x, int *stat)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t;
    if (s < nsys) {
      const T *rows = plan + 5 * m * s;
      long bad = KF(distd2_substitute_lane)(0, m, 1, rows, rows + m, TL_LD(ends, 2 * s),
                                            TL_LD(ends, 2 * s + 1), dt + s * m, x + s * m);
      TL_ST(stat, 3 * s + 2) = (int)bad;
    }
  }
  TL_BARRIER();
}

/* ------------------------------------------------------------------ */
/* PDD's local phase (reference/pdd_ref.c, tl_pdd_ref_local_d), one     */
/* block per system, one thread per partition                           */

/* The left spike A_p v = a[0] e_0 by top-down elimination, whole (PDD).
 * Returns the local row of a zero or non-finite pivot, or -1. */
TL_DEVICE_FN long KF(pdd_spike_first)(long m, const T *a, const T *b, const T *c, T *v, T *cp)
{
  T cprev = 0, vprev = 0;
  for (long i = 0; i < m; i++) {
    T ai = TL_LD(a, i), piv = (i == 0) ? TL_LD(b, 0) : TL_LD(b, i) - ai * cprev;
    if (piv == 0 || !isfinite(piv))
      return i;
    cprev = (i + 1 < m) ? TL_LD(c, i) / piv : (T)0;
    vprev = (i == 0) ? ai / piv : -ai * vprev / piv;
    TL_ST(cp, i) = cprev;
    TL_ST(v, i) = vprev;
    if (!isfinite(vprev))
      return i;
  }
  for (long i = m - 1; i-- > 0;) {
    vprev = TL_LD(v, i) - TL_LD(cp, i) * vprev;
    TL_ST(v, i) = vprev;
  }
  return -1;
}

/* The right spike A_p w = c[m-1] e_{m-1} by bottom-up elimination. */
TL_DEVICE_FN long KF(pdd_spike_last)(long m, const T *a, const T *b, const T *c, T *w, T *ap)
{
  T aprev = 0, wprev = 0, cm = TL_LD(c, m - 1);
  for (long t = 0; t < m; t++) {
    long i = m - 1 - t;
    T ci = TL_LD(c, i), piv = (t == 0) ? TL_LD(b, i) : TL_LD(b, i) - ci * aprev;
    if (piv == 0 || !isfinite(piv))
      return i;
    aprev = (i > 0) ? TL_LD(a, i) / piv : (T)0;
    wprev = (t == 0) ? cm / piv : -ci * wprev / piv;
    TL_ST(ap, i) = aprev;
    TL_ST(w, i) = wprev;
    if (!isfinite(wprev))
      return i;
  }
  for (long i = 1; i < m; i++) {
    wprev = TL_LD(w, i) - TL_LD(ap, i) * wprev;
    TL_ST(w, i) = wprev;
  }
  return -1;
}

/* The smallest dominance margin |b| - (|a| + |c|) of a partition's rows
 * (couplings to the neighbours count, the matrix corners do not); its
 * global row into *row. */
TL_DEVICE_FN T KF(pdd_margin)(long lo, long m, int has_left, int has_right, const T *a, const T *b,
                              const T *c, int *row)
{
  T margin = (T)INFINITY;
  for (long k = 0; k < m; k++) {
    T left = (k > 0 || has_left) ? (T)fabs(TL_LD(a, k)) : (T)0;
    T right = (k + 1 < m || has_right) ? (T)fabs(TL_LD(c, k)) : (T)0;
    T mg = (T)fabs(TL_LD(b, k)) - (left + right);
    if (!(mg >= margin)) {
      margin = isnan(mg) ? -(T)INFINITY : mg;
      *row = (int)(lo + k);
    }
  }
  return margin;
}

/* One partition's local phase: y = A_p^{-1} d_p into y, the spikes v
 * (left: p has a left neighbour) and w (right: a right one), what PDD
 * drops at each end (|v_{m-1}|, |w_0|; zero at the ends of the system)
 * and the smallest dominance margin: out[3] = drop_v, drop_w, margin;
 * st[3] = kind (0 ok, 1 local solve, 2 spike), the row of that failure,
 * the row of the margin (rows counted from lo's origin). y, v and w are
 * written whole (zeros where a spike is absent or stops). */
TL_DEVICE_FN void KF(pdd_partition)(long lo, long m, int left, int right, const T *la, const T *lb,
                                    const T *lc, const T *ld, T *ly, T *lv, T *lw, T *tmp, T *out,
                                    int *st)
{
  int lst[TL_GPU_STAT_WORDS];
  for (long k = 0; k < m; k++) {
    TL_ST(ly, k) = TL_LD(ld, k);
    TL_ST(lv, k) = 0;
    TL_ST(lw, k) = 0;
  }
  T drop_v = 0, drop_w = 0;
  int kind = 0, row = 0, mrow = 0;                 /* the status words, stored at the end */
  KF(thomas_lane)(m, 1, la, lb, lc, ly, tmp, lst); /* Thomas never reads la[0], lc[m-1] */
  long bad = -1;
  if (lst[0] != TL_GPU_OK) {
    kind = 1;
    row = (int)(lo + lst[1]);
  }
  if (kind == 0 && left && (bad = KF(pdd_spike_first)(m, la, lb, lc, lv, tmp)) < 0)
    drop_v = right ? (T)fabs(TL_LD(lv, m - 1)) : (T)0;
  if (kind == 0 && bad < 0 && right && (bad = KF(pdd_spike_last)(m, la, lb, lc, lw, tmp)) < 0)
    drop_w = left ? (T)fabs(TL_LD(lw, 0)) : (T)0;
  if (kind == 0 && bad >= 0) {
    kind = 2;
    row = (int)(lo + bad);
  }
  TL_ST(out, 2) = KF(pdd_margin)(lo, m, left, right, la, lb, lc, &mrow);
  TL_ST(out, 0) = drop_v;
  TL_ST(out, 1) = drop_w;
  TL_ST(st, 0) = kind;
  TL_ST(st, 1) = row;
  TL_ST(st, 2) = mrow;
}

/* Block `sys`, thread p: partition p of system sys (pdd_partition).
 * Per (system, partition) q = sys parts + p: part[3 q..] and stat[3 q..]
 * as pdd_partition's out and st (rows counted in the batch's n). The
 * partitions are those of whole systems, unless `edges` says that the
 * batch is a slice of longer ones (an MPI rank's): bit 1, partition 0
 * has a left neighbour beyond it; bit 2, the last a right one. One
 * region: the partitions share nothing until the exchange. */
TL_KERNEL(KF(pdd_local_kernel), long n, int parts, int edges, const long *off, const T *a,
          const T *b, const T *c, const T *d, T *y, T *v, T *w, T *scratch, T *part, int *stat)
{
  const long sys = TL_BLOCK_ID;
  TL_REGION(p)
  {
    long lo = TL_LD(off, p), m = TL_LD(off, p + 1) - lo, o = sys * n + lo, q = sys * parts + p;
    int left = p > 0 || (edges & 1), right = p + 1 < parts || (edges & 2);
    KF(pdd_partition)
    (lo, m, left, right, a + o, b + o, c + o, d + o, y + o, v + o, w + o, scratch + o, part + 3 * q,
     stat + 3 * q);
  }
  TL_BARRIER();
}

/* ------------------------------------------------------------------ */
/* PDD on an MPI rank's slices kept where the kernels run               */
/* (tl_gpu_pdd_resident_*, pdd_gpu_mpi): one thread per system of the   */
/* batch layout, TL_GPU_SZ systems per block, three kernels             */
/*                                                                      */
/*   local    phase 1 of every system: y, v, w stay                     */
/*   ends     the six words per system the exchange and the 2x2         */
/*            systems read: y_0, y_{m-1}, v_0, v_{m-1}, w_0, w_{m-1}    */
/*   (host)   the two messages, the 2x2 interface systems               */
/*   correct  phase 5: x = y - v x_left - w x_right, in place over y    */

#if TL_GPU_DOUBLE /* double only, as the resident slices (tridlab/gpu.h) */

/* Thread t of block g: system s = g TL_GPU_SZ + t of nsys slices of m
 * rows (system s's rows at s m), its partition's neighbours in edges
 * (bit 1 left, bit 2 right). part and stat: 3 per system, as
 * pdd_partition's (rows counted in the slice). */
TL_KERNEL(KF(pdd_slice_local_kernel), long m, long nsys, int edges, const T *a, const T *b,
          const T *c, const T *d, T *y, T *v, T *w, T *scratch, T *part, int *stat)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t, o = s * m;
    if (s < nsys) {
      KF(pdd_partition)
      (0, m, edges & 1, (edges & 2) != 0, a + o, b + o, c + o, d + o, y + o, v + o, w + o,
       scratch + o, part + 3 * s, stat + 3 * s);
    }
  }
  TL_BARRIER();
}

/* Thread t, system s as above: its six end words into ends + 6 s. */
TL_KERNEL(KF(pdd_slice_ends_kernel), long m, long nsys, const T *y, const T *v, const T *w, T *ends)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t, o = s * m;
    if (s < nsys) {
      T *e = ends + TL_GPU_PDD_ENDS * s;
      TL_ST(e, 0) = TL_LD(y, o);
      TL_ST(e, 1) = TL_LD(y, o + m - 1);
      TL_ST(e, 2) = TL_LD(v, o);
      TL_ST(e, 3) = TL_LD(v, o + m - 1);
      TL_ST(e, 4) = TL_LD(w, o);
      TL_ST(e, 5) = TL_LD(w, o + m - 1);
    }
  }
  TL_BARRIER();
}

/* Thread t, system s as above: the correction of tl_pdd_ref_correct_d,
 * in its order, over y in x with x_left, x_right = lr[2 s], lr[2 s + 1]
 * (a spike only where edges has its neighbour). xmax[s]: the largest
 * |x|; bad[s]: the first row whose x is not finite (its x and those
 * after it left as y), or -1. */
TL_KERNEL(KF(pdd_slice_correct_kernel), long m, long nsys, int edges, const T *v, const T *w,
          const T *lr, T *x, T *xmax, int *bad)
{
  TL_REGION(t)
  {
    long s = TL_BLOCK_ID * TL_GPU_SZ + t, o = s * m, first = -1;
    if (s < nsys) {
      T xl = TL_LD(lr, 2 * s), xr = TL_LD(lr, 2 * s + 1), big = 0;
      for (long k = 0; k < m; k++) {
        T val = TL_LD(x, o + k);
        if (edges & 1)
          val -= TL_LD(v, o + k) * xl;
        if (edges & 2)
          val -= TL_LD(w, o + k) * xr;
        if (!isfinite(val)) {
          first = k;
          break;
        }
        TL_ST(x, o + k) = val;
        if ((T)fabs(val) > big)
          big = (T)fabs(val);
      }
      TL_ST(xmax, s) = big;
      TL_ST(bad, s) = (int)first;
    }
  }
  TL_BARRIER();
}

#endif /* TL_GPU_DOUBLE */

/* ------------------------------------------------------------------ */
/* SPIKE's local phase (reference/spike_ref.c, phases 1-3), one block   */
/* per system, one thread per partition                                 */

/* Phase 1 on one partition of m rows: A_p = L U with partial pivoting, in
 * LAPACK DGTTRF's order (tl_spike_factor_d): at step i the row with the
 * larger entry in column i is the pivot row; a swap brings row i+1's c
 * into row i, the fill-in u2 on the second superdiagonal. sw[i] = 1
 * where rows i and i+1 were swapped. Returns the local row of a zero or
 * non-finite diagonal of U (the block is singular), or -1. */
TL_DEVICE_FN long KF(spike_factor)(long m, const T *a, const T *b, const T *c, T *l, T *u0, T *u1,
                                   T *u2, T *sw)
{
  for (long i = 0; i < m; i++) {
    TL_ST(u0, i) = TL_LD(b, i);
    TL_ST(u1, i) = i + 1 < m ? TL_LD(c, i) : (T)0;
    TL_ST(l, i) = i + 1 < m ? TL_LD(a, i + 1) : (T)0; /* below the diagonal in column i */
    TL_ST(u2, i) = 0;
    TL_ST(sw, i) = 0;
  }
  for (long i = 0; i + 1 < m; i++) {
    T piv = TL_LD(u0, i), below = TL_LD(l, i);
    if (fabs(piv) >= fabs(below)) { /* row i is the pivot row */
      if (piv != 0) {
        T fact = below / piv;
        TL_ST(l, i) = fact;
        TL_ST(u0, i + 1) = TL_LD(u0, i + 1) - fact * TL_LD(u1, i);
      }
    } else { /* swap rows i and i+1: row i+1 is the pivot row */
      T fact = piv / below, next = TL_LD(u0, i + 1), temp = TL_LD(u1, i);
      TL_ST(u0, i) = below;
      TL_ST(l, i) = fact;
      TL_ST(u1, i) = next;
      TL_ST(u0, i + 1) = temp - fact * next;
      if (i + 2 < m) { /* row i+1's c moves up: the fill-in */
        T up = TL_LD(u1, i + 1);
        TL_ST(u2, i) = up;
        TL_ST(u1, i + 1) = -fact * up;
      }
      TL_ST(sw, i) = 1;
    }
  }
  for (long i = 0; i < m; i++) {
    T di = TL_LD(u0, i);
    if (di == 0 || !isfinite(di))
      return i;
  }
  return -1;
}

/* y = A_p^-1 y in place with the factors (DGTTRS, tl_spike_solve_block_d):
 * L's swaps and multipliers in order, then U's three diagonals upwards.
 * Returns the first local row whose result is not finite, or m. */
TL_DEVICE_FN long KF(spike_apply)(long m, const T *l, const T *u0, const T *u1, const T *u2,
                                  const T *sw, T *y)
{
  for (long i = 0; i + 1 < m; i++) {
    T yi = TL_LD(y, i), yn = TL_LD(y, i + 1), li = TL_LD(l, i);
    if (TL_LD(sw, i) == 0) {
      TL_ST(y, i + 1) = yn - li * yi;
    } else {
      TL_ST(y, i) = yn;
      TL_ST(y, i + 1) = yi - li * yn;
    }
  }
  TL_ST(y, m - 1) = TL_LD(y, m - 1) / TL_LD(u0, m - 1);
  if (m > 1)
    TL_ST(y, m - 2) =
        (TL_LD(y, m - 2) - TL_LD(u1, m - 2) * TL_LD(y, m - 1)) / TL_LD(u0, m - 2);
  for (long i = m >= 2 ? m - 2 : 0; i-- > 0;)
    TL_ST(y, i) = (TL_LD(y, i) - TL_LD(u1, i) * TL_LD(y, i + 1) - TL_LD(u2, i) * TL_LD(y, i + 2)) /
                  TL_LD(u0, i);
  long bad = m;
  for (long i = m; i-- > 0;)
    if (!isfinite(TL_LD(y, i)))
      bad = i;
  return bad;
}

/* Block `sys`, thread p: phases 1-3 of partition p (rows [off[p],
 * off[p+1])): the factors (5 n scratch per system: l, u0, u1, u2, the
 * swaps), g = A_p^-1 d into g, the spikes V = A_p^-1 (c_last e_last)
 * (p < P-1) into v and W = A_p^-1 (a_first e_first) (p > 0) into w, and
 * the six tips the partition sends (tl_spike_tips_d) into tips[6 q].
 * stat[3 q] per (system, partition) q = sys P + p: the kind (0 ok, 1 a
 * singular block, 2 a non-finite local result), its global row, 0. One
 * region: the partitions share nothing until the reduced system. */
TL_KERNEL(KF(spike_local_kernel), long n, int parts, const long *off, const T *a, const T *b,
          const T *c, const T *d, T *g, T *v, T *w, T *factors, T *tips, int *stat)
{
  const long sys = TL_BLOCK_ID;
  TL_REGION(p)
  {
    long lo = TL_LD(off, p), m = TL_LD(off, p + 1) - lo, o = sys * n + lo, q = sys * parts + p;
    int left = p > 0, right = p + 1 < parts;
    T *f = factors + 5 * sys * n + 5 * lo, *lg = g + o, *lv = v + o, *lw = w + o;
    T *l = f, *u0 = l + m, *u1 = u0 + m, *u2 = u1 + m, *sw = u2 + m, *send = tips + 6 * q;
    long bad = KF(spike_factor)(m, a + o, b + o, c + o, l, u0, u1, u2, sw);
    int kind = bad >= 0 ? 1 : 0;
    if (kind == 0) { /* phase 2: g, then the spikes this partition has */
      for (long i = 0; i < m; i++)
        TL_ST(lg, i) = TL_LD(d, o + i);
      bad = KF(spike_apply)(m, l, u0, u1, u2, sw, lg);
      if (right) {
        for (long i = 0; i < m; i++)
          TL_ST(lv, i) = i + 1 < m ? (T)0 : TL_LD(c, o + m - 1);
        long k = KF(spike_apply)(m, l, u0, u1, u2, sw, lv);
        bad = k < bad ? k : bad;
      }
      if (left) {
        for (long i = 0; i < m; i++)
          TL_ST(lw, i) = i ? (T)0 : TL_LD(a, o);
        long k = KF(spike_apply)(m, l, u0, u1, u2, sw, lw);
        bad = k < bad ? k : bad;
      }
      kind = bad < m ? 2 : 0;
      /* phase 3: the tips (0 for a spike the partition does not have) */
      TL_ST(send, 0) = TL_LD(lg, 0);
      TL_ST(send, 1) = TL_LD(lg, m - 1);
      TL_ST(send, 2) = right ? TL_LD(lv, 0) : (T)0;
      TL_ST(send, 3) = right ? TL_LD(lv, m - 1) : (T)0;
      TL_ST(send, 4) = left ? TL_LD(lw, 0) : (T)0;
      TL_ST(send, 5) = left ? TL_LD(lw, m - 1) : (T)0;
    }
    int *st = stat + 3 * q;
    TL_ST(st, 0) = kind;
    TL_ST(st, 1) = kind ? (int)(lo + bad) : 0;
    TL_ST(st, 2) = 0;
  }
  TL_BARRIER();
}
