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
