/* optimized/gpu/gpu_device_pass.h -- the device wrappers of one
 * precision (T, KF), included twice by gpu_device.cu. Arguments as the
 * host entry points of tridlab/gpu.h, every array on the host. Device
 * arrays: 0-3 a, b, c, d (packed Thomas: d becomes x); 4 the answer, or
 * packed Thomas's scratch; 5 the status words; 6 PCR's work systems when
 * they do not fit in shared memory, or the hybrid's offsets, and 7 its
 * scratch. DistD2 and PDD's local phase: above each. */

#define TL_DEV_ARGS(m) (const T *)m.p[0], (const T *)m.p[1], (const T *)m.p[2]

/* Packed Thomas (periodic: 1), in place on d. */
static int KF(dev_packed)(int periodic, size_t n, size_t nsys, const T *a, const T *b, const T *c,
                          T *d, int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ, v = groups * TL_GPU_SZ * n * sizeof(T);
  size_t sb = nsys * TL_GPU_STAT_WORDS * sizeof(int);
  const void *host[6] = {a, b, c, d, NULL, stat};
  size_t bytes[6] = {v, v, v, v, (periodic ? 2 : 1) * v, sb};
  tl_gpuError_t e = dev_upload(&m, 6, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  if (periodic)
    TL_LAUNCH(KF(periodic_sz_kernel), groups, TL_GPU_SZ, 0, (long)n, (long)nsys, TL_DEV_ARGS(m),
              (T *)m.p[3], (T *)m.p[4], (int *)m.p[5]);
  else
    TL_LAUNCH(KF(thomas_sz_kernel), groups, TL_GPU_SZ, 0, (long)n, (long)nsys, TL_DEV_ARGS(m),
              (T *)m.p[3], (T *)m.p[4], (int *)m.p[5]);
  return dev_done(&m, dev_download(&m, 3, d, v, 5, stat, sb), err, len);
}

extern "C" int KF(tl_gpu_dev_thomas_sz)(size_t n, size_t nsys, const T *a, const T *b, const T *c,
                                        T *d, int *stat, char *err, size_t len)
{
  return KF(dev_packed)(0, n, nsys, a, b, c, d, stat, err, len);
}

/* n >= 3. */
extern "C" int KF(tl_gpu_dev_thomas_periodic_sz)(size_t n, size_t nsys, const T *a, const T *b,
                                                 const T *c, T *d, int *stat, char *err, size_t len)
{
  return KF(dev_packed)(1, n, nsys, a, b, c, d, stat, err, len);
}

/* PCR on the batch layout; x out. */
extern "C" int KF(tl_gpu_dev_pcr)(size_t n, size_t nsys, const T *a, const T *b, const T *c,
                                  const T *d, T *x, int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t v = n * nsys * sizeof(T), sb = nsys * TL_GPU_STAT_WORDS * sizeof(int), shared;
  int global, threads = tl_gpu_pcr_launch(n, sizeof(T), &shared, &global);
  const void *host[7] = {a, b, c, d, x, stat, NULL};
  size_t bytes[7] = {v, v, v, v, v, sb, global ? 8 * v : 0};
  tl_gpuError_t e = dev_upload(&m, 7, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  TL_LAUNCH(KF(pcr_kernel), nsys, threads, shared, (long)n, TL_DEV_ARGS(m), (const T *)m.p[3],
            (T *)m.p[4], (T *)m.p[6], (int *)m.p[5]);
  return dev_done(&m, dev_download(&m, 4, x, v, 5, stat, sb), err, len);
}

/* Hybrid Thomas-PCR on the batch layout, one thread per partition; off
 * holds the parts + 1 partition offsets (first rows, then n). The
 * on-chip kernel where it applies (tl_gpu_hybrid_chip), else the one
 * with global scratch. */
extern "C" int KF(tl_gpu_dev_hybrid_pcr)(size_t n, size_t nsys, int parts, const long *off,
                                         const T *a, const T *b, const T *c, const T *d, T *x,
                                         int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t v = n * nsys * sizeof(T), sb = nsys * TL_GPU_STAT_WORDS * sizeof(int);
  const void *host[8] = {a, b, c, d, x, stat, off, NULL};
  size_t bytes[8] = {v,
                     v,
                     v,
                     v,
                     v,
                     sb,
                     ((size_t)parts + 1) * sizeof(long),
                     nsys * TL_HYBRID_WORK(n, (size_t)parts) * sizeof(T)};
  size_t shared;
  int per, chip = tl_gpu_hybrid_chip(-1) &&
                  tl_gpu_hybrid_chip_fits(n, parts, off, sizeof(T), &shared, &per);
#ifndef __HIPCC__
  cudaFuncAttributes fa; /* a device with fewer registers: the other kernel */
  if (chip && cudaFuncGetAttributes(&fa, KF(hybrid_chip_kernel)) != cudaSuccess) {
    (void)cudaGetLastError(); /* not left pending for the launch after it */
    chip = 0;
  } else if (chip && fa.maxThreadsPerBlock < parts) {
    chip = 0;
  }
#endif
  if (chip)
    bytes[7] = 0; /* no scratch: everything stays on the chip */
  tl_gpuError_t e = dev_upload(&m, 8, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  if (chip)
    TL_LAUNCH(KF(hybrid_chip_kernel), nsys, parts, shared, (long)n, parts, per,
              (const long *)m.p[6], TL_DEV_ARGS(m), (const T *)m.p[3], (T *)m.p[4],
              (int *)m.p[5]);
  else
    TL_LAUNCH(KF(hybrid_kernel), nsys, parts, 4 * (size_t)parts * sizeof(long long), (long)n, parts,
            (const long *)m.p[6], TL_DEV_ARGS(m), (const T *)m.p[3], (T *)m.p[4], (T *)m.p[7],
            (int *)m.p[5]);
  return dev_done(&m, dev_download(&m, 4, x, v, 5, stat, sb), err, len);
}

/* DistD2 on packed batches (gpu_entry.c, distd2_run, flattens the plan
 * into begin and coef); stat: 3 ints per (system, partition). Device
 * arrays: 0 in, 1 x, 2 the decoupled d', 3 stat, 4 begin, 5 coef. */
extern "C" int KF(tl_gpu_dev_distd2)(size_t n, int periodic, size_t nsys, int parts,
                                     const long *begin, const T *coef, int stencil, const T *in,
                                     T *x, int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ, v = groups * TL_GPU_SZ * n * sizeof(T);
  size_t sb = nsys * (size_t)parts * 3 * sizeof(int), P = (size_t)parts;
  const void *host[7] = {in, x, NULL, stat, begin, coef, NULL};
  size_t bytes[7] = {v, v, v, sb, (P + 1) * sizeof(long), (5 * n + P + 5) * sizeof(T), 0};
  tl_gpuError_t e = dev_upload(&m, 7, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  const T *cf = (const T *)m.p[5];
  KF(distd2_coef)
  q = {(const long *)m.p[4], cf, cf + n, cf + 2 * n, cf + 3 * n, cf + 4 * n, cf + 5 * n};
  TL_LAUNCH(KF(distd2_decouple_kernel), groups * P, TL_GPU_SZ, 0, (long)n, periodic, (long)nsys,
            parts, q, stencil ? cf + 5 * n + P : (const T *)NULL, (const T *)m.p[0], (T *)m.p[2],
            (int *)m.p[3]);
  TL_LAUNCH(KF(distd2_finish_kernel), groups * P, TL_GPU_SZ, 0, (long)n, (long)nsys, parts, q,
            (const T *)m.p[2], (T *)m.p[1], (int *)m.p[3]);
  return dev_done(&m, dev_download(&m, 1, x, v, 3, stat, sb), err, len);
}

/* PDD's local phase on the batch layout, one block per system and one
 * thread per partition (offsets as hybrid_pcr's); y, v, w, part and stat
 * come back. Device arrays: 0-3 a, b, c, d; 4-6 y, v, w; 7 scratch;
 * 8 part; 9 stat; 10 offsets. */
extern "C" int KF(tl_gpu_dev_pdd_local)(size_t n, size_t nsys, int parts, int edges, const long *off,
                                        const T *a, const T *b, const T *c, const T *d, T *y, T *v,
                                        T *w, T *part, int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t v_ = n * nsys * sizeof(T), q = nsys * (size_t)parts;
  const void *host[11] = {a, b, c, d, y, v, w, NULL, part, stat, off};
  size_t bytes[11] = {v_,
                      v_,
                      v_,
                      v_,
                      v_,
                      v_,
                      v_,
                      v_,
                      3 * q * sizeof(T),
                      3 * q * sizeof(int),
                      ((size_t)parts + 1) * sizeof(long)};
  tl_gpuError_t e = dev_upload(&m, 11, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  TL_LAUNCH(KF(pdd_local_kernel), nsys, parts, 0, (long)n, parts, edges, (const long *)m.p[10],
            TL_DEV_ARGS(m), (const T *)m.p[3], (T *)m.p[4], (T *)m.p[5], (T *)m.p[6], (T *)m.p[7],
            (T *)m.p[8], (int *)m.p[9]);
  e = tl_gpuGetLastError();
  void *out[4] = {y, v, w, part};
  size_t outb[4] = {v_, v_, v_, 3 * q * sizeof(T)};
  for (int k = 0; k < 4 && e == tl_gpuSuccess; k++)
    e = tl_gpuMemcpy(out[k], m.p[4 + (k < 3 ? k : 4)], outb[k], tl_gpuMemcpyDeviceToHost);
  if (e == tl_gpuSuccess)
    e = tl_gpuMemcpy(stat, m.p[9], 3 * q * sizeof(int), tl_gpuMemcpyDeviceToHost);
  return dev_done(&m, e, err, len);
}

/* SPIKE's local phase, the same layout as PDD's: g, v, w, tips and stat
 * come back. Device arrays: 0-3 a, b, c, d; 4-6 g, v, w; 7 the factors
 * (5 n per system); 8 tips; 9 stat; 10 offsets. */
extern "C" int KF(tl_gpu_dev_spike_local)(size_t n, size_t nsys, int parts, const long *off,
                                          const T *a, const T *b, const T *c, const T *d, T *g,
                                          T *v, T *w, T *tips, int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t v_ = n * nsys * sizeof(T), q = nsys * (size_t)parts;
  const void *host[11] = {a, b, c, d, g, v, w, NULL, tips, stat, off};
  size_t bytes[11] = {v_,     v_, v_, v_, v_, v_, v_, 5 * v_, 6 * q * sizeof(T),
                      3 * q * sizeof(int), ((size_t)parts + 1) * sizeof(long)};
  tl_gpuError_t e = dev_upload(&m, 11, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  TL_LAUNCH(KF(spike_local_kernel), nsys, parts, 0, (long)n, parts, (const long *)m.p[10],
            TL_DEV_ARGS(m), (const T *)m.p[3], (T *)m.p[4], (T *)m.p[5], (T *)m.p[6], (T *)m.p[7],
            (T *)m.p[8], (int *)m.p[9]);
  e = tl_gpuGetLastError();
  void *out[5] = {g, v, w, tips, stat};
  size_t outb[5] = {v_, v_, v_, 6 * q * sizeof(T), 3 * q * sizeof(int)};
  for (int k = 0; k < 5 && e == tl_gpuSuccess; k++)
    e = tl_gpuMemcpy(out[k], m.p[4 + (k < 3 ? k : k + 1)], outb[k], tl_gpuMemcpyDeviceToHost);
  return dev_done(&m, e, err, len);
}

/* The two slice kernels on arrays already on the device: launch, wait,
 * and the launch's error (0, or -1 with the message). The resident
 * slices of tl_gpu_distd2_resident_* (gpu_resident.c) call them through
 * the device table; the copying wrappers below, between their copies. */
extern "C" int KF(tl_gpu_dev_distd2_slice_decouple_there)(size_t m, size_t nsys, const T *rows,
                                                          const T *fix_scale, const T *d, T *dt,
                                                          T *edge, int *stat, char *err, size_t len)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  TL_LAUNCH(KF(distd2_slice_decouple_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys, rows,
            fix_scale, d, dt, edge, stat);
  return dev_launched(err, len);
}

extern "C" int KF(tl_gpu_dev_distd2_slice_substitute_there)(size_t m, size_t nsys, const T *rows,
                                                            const T *ends, const T *dt, T *x,
                                                            int *stat, char *err, size_t len)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  TL_LAUNCH(KF(distd2_slice_substitute_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys, rows,
            ends, dt, x, stat);
  return dev_launched(err, len);
}

/* One MPI rank's DistD2 slices (the batch layout, m rows, a plan of 5 m
 * values per system). Decoupling: rows, fix_scale and d in; d', the
 * edges and stat back. Device arrays: 0 rows, 1 fix_scale, 2 d, 3 d',
 * 4 edges, 5 stat (each kernel writes only its own words of the three;
 * the others come back as they went, as every output of these wrappers
 * does: gpu_device.cu). Every call copies in and out: d' comes back to
 * the host between the two kernels, as the exchange needs only the
 * edges. */
extern "C" int KF(tl_gpu_dev_distd2_slice_decouple)(size_t m, size_t nsys, const T *rows,
                                                    const T *fix_scale, const T *d, T *dt, T *edge,
                                                    int *stat, char *err, size_t len)
{
  dev_arrays a = {{0}, 0};
  size_t v = m * nsys * sizeof(T), eb = TL_DISTD2_SLICE_EDGE * nsys * sizeof(T);
  size_t sb = 3 * nsys * sizeof(int);
  const void *host[6] = {rows, fix_scale, d, dt, edge, stat};
  size_t bytes[6] = {5 * v, nsys * sizeof(T), v, v, eb, sb};
  tl_gpuError_t e = dev_upload(&a, 6, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&a, e, err, len);
  if (KF(tl_gpu_dev_distd2_slice_decouple_there)(m, nsys, (const T *)a.p[0], (const T *)a.p[1],
                                                 (const T *)a.p[2], (T *)a.p[3], (T *)a.p[4],
                                                 (int *)a.p[5], err, len)) {
    dev_done(&a, tl_gpuSuccess, err, len); /* frees; err holds the launch's message */
    return -1;
  }
  e = dev_download(&a, 3, dt, v, 5, stat, sb);
  if (e == tl_gpuSuccess)
    e = tl_gpuMemcpy(edge, a.p[4], eb, tl_gpuMemcpyDeviceToHost);
  return dev_done(&a, e, err, len);
}

/* Substitution: rows, x_first and x_last per system, d' in; x (which may
 * be d') and stat back. Device arrays: 0 rows, 1 ends, 2 d', 3 x, 4 stat
 * (uploaded, as above). */
extern "C" int KF(tl_gpu_dev_distd2_slice_substitute)(size_t m, size_t nsys, const T *rows,
                                                      const T *ends, const T *dt, T *x, int *stat,
                                                      char *err, size_t len)
{
  dev_arrays a = {{0}, 0};
  size_t v = m * nsys * sizeof(T), sb = 3 * nsys * sizeof(int);
  int in_place = x == dt;
  const void *host[5] = {rows, ends, dt, x, stat};
  size_t bytes[5] = {5 * v, 2 * nsys * sizeof(T), v, in_place ? 0 : v, sb};
  tl_gpuError_t e = dev_upload(&a, 5, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&a, e, err, len);
  T *dx = in_place ? (T *)a.p[2] : (T *)a.p[3];
  if (KF(tl_gpu_dev_distd2_slice_substitute_there)(m, nsys, (const T *)a.p[0], (const T *)a.p[1],
                                                   (const T *)a.p[2], dx, (int *)a.p[4], err,
                                                   len)) {
    dev_done(&a, tl_gpuSuccess, err, len);
    return -1;
  }
  return dev_done(&a, dev_download(&a, in_place ? 2 : 3, x, v, 4, stat, sb), err, len);
}

#if TL_GPU_DOUBLE
/* PDD's three slice kernels on arrays already on the device (the
 * resident slices of tl_gpu_pdd_resident_*, gpu_resident.c): launch,
 * wait, the launch's error. One thread per system, TL_GPU_SZ a block. */
extern "C" int KF(tl_gpu_dev_pdd_slice_local_there)(size_t m, size_t nsys, int edges, const T *a,
                                                    const T *b, const T *c, const T *d, T *y, T *v,
                                                    T *w, T *scratch, T *part, int *stat, char *err,
                                                    size_t len)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  TL_LAUNCH(KF(pdd_slice_local_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys, edges, a, b, c,
            d, y, v, w, scratch, part, stat);
  return dev_launched(err, len);
}

extern "C" int KF(tl_gpu_dev_pdd_slice_ends_there)(size_t m, size_t nsys, const T *y, const T *v,
                                                   const T *w, T *ends, char *err, size_t len)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  TL_LAUNCH(KF(pdd_slice_ends_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys, y, v, w, ends);
  return dev_launched(err, len);
}

extern "C" int KF(tl_gpu_dev_pdd_slice_correct_there)(size_t m, size_t nsys, int edges, const T *v,
                                                      const T *w, const T *lr, T *x, T *xmax,
                                                      int *row, char *err, size_t len)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  TL_LAUNCH(KF(pdd_slice_correct_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys, edges, v, w,
            lr, x, xmax, row);
  return dev_launched(err, len);
}

/* The compact scheme across ranks (tl_gpu_compact_resident_*): its two
 * kernels on arrays already on the device, coef the plan flattened
 * (sa, sc, fwd_scale, fwd_mul, bwd_mul: m each, fix_scale, the stencil). */
static KF(distd2_coef) KF(dev_compact_coef)(size_t m, const T *coef)
{
  return (KF(distd2_coef)){NULL,         coef,         coef + m,    coef + 2 * m,
                           coef + 3 * m, coef + 4 * m, coef + 5 * m};
}

extern "C" int KF(tl_gpu_dev_distd2_compact_decouple_there)(size_t m, size_t nsys, const T *coef,
                                                            const T *uh, T *dt, T *ends, int *stat,
                                                            char *err, size_t len)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  TL_LAUNCH(KF(distd2_compact_decouple_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys,
            KF(dev_compact_coef)(m, coef), coef + 5 * m + 1, uh, dt, ends, stat);
  return dev_launched(err, len);
}

extern "C" int KF(tl_gpu_dev_distd2_compact_substitute_there)(size_t m, size_t nsys, const T *coef,
                                                              const T *xfl, const T *dt, T *x,
                                                              int *stat, char *err, size_t len)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  TL_LAUNCH(KF(distd2_compact_substitute_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys,
            KF(dev_compact_coef)(m, coef), xfl, dt, x, stat);
  return dev_launched(err, len);
}
#endif

#undef TL_DEV_ARGS
