/* optimized/gpu/gpu_device.cu -- the device build of the GPU kernels
 * (docs/gpu.md, "Building for CUDA and HIP").
 *
 * nvcc compiles this file as CUDA; hipcc compiles the same file as HIP
 * (tl_gpu_port.h maps the runtime calls). It includes the kernels that
 * the host emulator runs (gpu_kernels.h), unchanged, and wraps each in a
 * function with C linkage that copies a batch to the device, launches
 * the kernel and copies the answer and the status words back (the
 * transfers are part of these wrappers, not of the kernels a benchmark
 * times). Returns 0, or -1 with the runtime's message in `err`.
 *
 * Every array that comes back is uploaded first, the outputs too: a word
 * the kernel does not write (a padding lane of the packed layout, the
 * spike a partition without that neighbour has not, the rows of a
 * system that broke down) then comes back as it went, as it does where
 * the emulator runs the kernel on the caller's arrays. Copied back
 * unset, such a word is whatever the device's memory held: zero in a
 * fresh allocation, so that a test comparing the two paths passes by
 * luck (compute-sanitizer's initcheck found it on an H200).
 */
#include <stddef.h>
#include <stdio.h>

#include "tl_gpu_port.h"
#include "tridlab/gpu.h"

#define TL_GPU_EACH "gpu_kernels.h"
#include "gpu_each_precision.h"

extern "C" int tl_gpu_device_count(void)
{
  int count = 0;
  if (tl_gpuGetDeviceCount(&count) != tl_gpuSuccess)
    return 0;
  return count;
}

/* The device arrays of one call: uploaded together, freed together. */
struct dev_arrays {
  void *p[12];
  int count;
};

/* Free everything; 0, or -1 with the runtime's message in err. */
static int dev_done(dev_arrays *m, tl_gpuError_t e, char *err, size_t len)
{
  for (int k = 0; k < m->count; k++)
    tl_gpuFree(m->p[k]);
  if (e != tl_gpuSuccess) {
    snprintf(err, len, "%s", tl_gpuGetErrorString(e));
    (void)tl_gpuGetLastError(); /* not left pending for the next call's launch check */
  }
  return e == tl_gpuSuccess ? 0 : -1;
}

/* Device copies of `count` host arrays of bytes[k] bytes each (a NULL
 * host array: uninitialised scratch, never copied back; bytes 0: no
 * array). */
static tl_gpuError_t dev_upload(dev_arrays *m, int count, const void *const *host,
                                const size_t *bytes)
{
  for (int k = 0; k < count; k++) {
    m->p[k] = NULL;
    if (!bytes[k])
      continue;
    tl_gpuError_t e = tl_gpuMalloc(&m->p[k], bytes[k]);
    if (e != tl_gpuSuccess)
      return e;
    m->count = k + 1;
    if (host[k] &&
        (e = tl_gpuMemcpy(m->p[k], host[k], bytes[k], tl_gpuMemcpyHostToDevice)) != tl_gpuSuccess)
      return e;
  }
  return tl_gpuSuccess;
}

/* After the launch: the launch's error, else copy the answer (array
 * `ans`) and the status words (array `st`) back. */
static tl_gpuError_t dev_download(dev_arrays *m, int ans, void *x, size_t xbytes, int st, int *stat,
                                  size_t sbytes)
{
  tl_gpuError_t e = tl_gpuGetLastError();
  if (e == tl_gpuSuccess)
    e = tl_gpuMemcpy(x, m->p[ans], xbytes, tl_gpuMemcpyDeviceToHost);
  if (e == tl_gpuSuccess)
    e = tl_gpuMemcpy(stat, m->p[st], sbytes, tl_gpuMemcpyDeviceToHost);
  return e;
}

/* Device memory that outlives one call (tl_gpu_device_ops: alloc,
 * release, put, get), for callers that keep arrays there between
 * kernels. */
/* After a launch: wait for it; 0, or -1 with the runtime's message
 * (launch or run-time error, cleared). */
static int dev_launched(char *err, size_t len)
{
  tl_gpuError_t e = tl_gpuGetLastError();
  if (e == tl_gpuSuccess)
    e = tl_gpuDeviceSynchronize();
  if (e == tl_gpuSuccess)
    return 0;
  snprintf(err, len, "%s", tl_gpuGetErrorString(e));
  (void)tl_gpuGetLastError();
  return -1;
}

static void *dev_alloc(size_t bytes, char *err, size_t len)
{
  void *p = NULL;
  tl_gpuError_t e = tl_gpuMalloc(&p, bytes ? bytes : 1);
  if (e == tl_gpuSuccess)
    return p;
  snprintf(err, len, "%s", tl_gpuGetErrorString(e));
  (void)tl_gpuGetLastError(); /* not left pending for the next launch's check */
  return NULL;
}

static void dev_release(void *p)
{
  if (p)
    tl_gpuFree(p);
}

static int dev_copy(void *to, const void *from, size_t bytes, int up, char *err, size_t len)
{
  if (!bytes)
    return 0;
  tl_gpuError_t e =
      tl_gpuMemcpy(to, from, bytes, up ? tl_gpuMemcpyHostToDevice : tl_gpuMemcpyDeviceToHost);
  if (e == tl_gpuSuccess)
    return 0;
  snprintf(err, len, "%s", tl_gpuGetErrorString(e));
  (void)tl_gpuGetLastError();
  return -1;
}

static int dev_put(void *dev, const void *host, size_t bytes, char *err, size_t len)
{
  return dev_copy(dev, host, bytes, 1, err, len);
}

static int dev_get(void *host, const void *dev, size_t bytes, char *err, size_t len)
{
  return dev_copy(host, dev, bytes, 0, err, len);
}

#define TL_GPU_EACH "gpu_device_pass.h"
#include "gpu_each_precision.h"

/* Installed at start-up when this object is linked into a program and a
 * device is present: from then on tridlab/gpu.h's double entry points,
 * and the registry's GPU backends, run on the device. */
#ifdef __HIPCC__
#define TL_GPU_RUNTIME "hip"
#else
#define TL_GPU_RUNTIME "cuda"
#endif
static const tl_gpu_device_ops device_ops = {TL_GPU_RUNTIME,
                                             tl_gpu_dev_thomas_sz_d,
                                             tl_gpu_dev_thomas_periodic_sz_d,
                                             tl_gpu_dev_pcr_d,
                                             tl_gpu_dev_hybrid_pcr_d,
                                             tl_gpu_dev_distd2_d,
                                             tl_gpu_dev_pdd_local_d,
                                             tl_gpu_dev_spike_local_d,
                                             tl_gpu_dev_distd2_slice_decouple_d,
                                             tl_gpu_dev_distd2_slice_substitute_d,
                                             dev_alloc,
                                             dev_release,
                                             dev_put,
                                             dev_get,
                                             tl_gpu_dev_distd2_slice_decouple_there_d,
                                             tl_gpu_dev_distd2_slice_substitute_there_d,
                                             tl_gpu_dev_pdd_slice_local_there_d,
                                             tl_gpu_dev_pdd_slice_ends_there_d,
                                             tl_gpu_dev_pdd_slice_correct_there_d,
                                             tl_gpu_dev_distd2_compact_decouple_there_d,
                                             tl_gpu_dev_distd2_compact_substitute_there_d};

/* The device's table, for programs that switch between it and emulation
 * (tests/gpu/device_test.c). */
extern "C" const tl_gpu_device_ops *tl_gpu_device_ops_built(void)
{
  return &device_ops;
}

namespace {
struct device_installer {
  device_installer()
  {
    if (tl_gpu_device_count() > 0)
      tl_gpu_use_device(&device_ops);
  }
} install_device;
} // namespace
