/* optimized/gpu/gpu_device_pass.h -- the device wrappers of one
 * precision (T, KF), included twice by gpu_device.cu. Arguments as the
 * host entry points of tridlab/gpu.h, every array on the host. Device
 * arrays: 0-3 a, b, c, d; 4 the answer or scratch; 5 the status words;
 * 6 PCR's work systems when they do not fit in shared memory. */

#define TL_DEV_ARGS(m) (const T *)m.p[0], (const T *)m.p[1], (const T *)m.p[2]

/* Packed Thomas (periodic: 1), in place on d. */
static int KF(dev_packed)(int periodic, size_t n, size_t nsys, const T *a, const T *b, const T *c,
                          T *d, int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ, v = groups * TL_GPU_SZ * n * sizeof(T);
  size_t sb = nsys * TL_GPU_STAT_WORDS * sizeof(int);
  const void *host[6] = {a, b, c, d, NULL, NULL};
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
  size_t v = n * nsys * sizeof(T), t32 = (n + 31) / 32 * 32;
  size_t sb = nsys * TL_GPU_STAT_WORDS * sizeof(int);
  int threads = t32 > 256 ? 256 : (int)t32;
  size_t keys = 2 * (size_t)threads * sizeof(long long), work = 8 * n * sizeof(T);
  int global = keys + work > TL_GPU_SHARED_MAX;
  const void *host[7] = {a, b, c, d, NULL, NULL, NULL};
  size_t bytes[7] = {v, v, v, v, v, sb, global ? 8 * v : 0};
  tl_gpuError_t e = dev_upload(&m, 7, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  TL_LAUNCH(KF(pcr_kernel), nsys, threads, keys + (global ? 0 : work), (long)n, TL_DEV_ARGS(m),
            (const T *)m.p[3], (T *)m.p[4], (T *)m.p[6], (int *)m.p[5]);
  return dev_done(&m, dev_download(&m, 4, x, v, 5, stat, sb), err, len);
}

/* Hybrid Thomas-PCR on the batch layout, one thread per partition; off
 * holds the parts + 1 partition offsets (first rows, then n). */
extern "C" int KF(tl_gpu_dev_hybrid_pcr)(size_t n, size_t nsys, int parts, const long *off,
                                         const T *a, const T *b, const T *c, const T *d, T *x,
                                         int *stat, char *err, size_t len)
{
  dev_arrays m = {{0}, 0};
  size_t v = n * nsys * sizeof(T), sb = nsys * TL_GPU_STAT_WORDS * sizeof(int);
  const void *host[8] = {a, b, c, d, NULL, NULL, off, NULL};
  size_t bytes[8] = {v,
                     v,
                     v,
                     v,
                     v,
                     sb,
                     ((size_t)parts + 1) * sizeof(long),
                     nsys * TL_HYBRID_WORK(n, (size_t)parts) * sizeof(T)};
  tl_gpuError_t e = dev_upload(&m, 8, host, bytes);
  if (e != tl_gpuSuccess)
    return dev_done(&m, e, err, len);
  TL_LAUNCH(KF(hybrid_kernel), nsys, parts, 4 * (size_t)parts * sizeof(long long), (long)n, parts,
            (const long *)m.p[6], TL_DEV_ARGS(m), (const T *)m.p[3], (T *)m.p[4], (T *)m.p[7],
            (int *)m.p[5]);
  return dev_done(&m, dev_download(&m, 4, x, v, 5, stat, sb), err, len);
}

#undef TL_DEV_ARGS
