/* bench/gpu/bench_gpu.cu -- tridlab-gpu-bench: the GPU kernels against the
 * device's bandwidth and cuSPARSE (docs/gpu.md, section 5).
 * Built by `make gpu` with nvcc; never timed in tests.
 *
 * Without a device it says so and exits 0, printing no numbers. With one,
 * for n = 256, 1024, 4096 and 2^25 unknowns, in one run:
 *   copy      cudaMemcpy device to device of one array: 2 words / unknown
 *   stream    a same-traffic kernel (read a, b, c, d, write d; no
 *             recurrence): the limit for the solvers' declared traffic
 *   thomas_sz thomas_sz_kernel (packed, in place), declared 5 words /
 *             unknown; also in float, against a float stream
 *   periodic_sz, pcr, hybrid_pcr  the other kernels, declared 5 words
 *             (their scratch traffic is not counted: it is their cost)
 *   hybrid_chip_m8, _m4  hybrid Thomas-PCR on chip, partitions of 8 and
 *             4 rows: 5 words declared and moved; also in float
 *   ddiv      the device's rate of double divisions (once, with n = 256):
 *             GB/s holds 10^9 divisions a second, limit_ratio divisions
 *             per clock per multiprocessor
 *   hybrid_chip_m<m>_resident  (CUDA) blocks of that launch resident on
 *             a multiprocessor at once, in the GB/s column, and their
 *             threads over the multiprocessor's most, in limit_ratio
 *   distd2_stencil  DistD2 with the compact stencil fused, declared 2
 *             words (read u, write du)
 *   pdd_local PDD's local phase (y and both spikes per partition),
 *             declared 7 words (read a, b, c, d, write y, v, w)
 *   cusparse  gtsvInterleavedBatch (algorithm 0, Thomas) on the fully
 *             interleaved layout, and gtsv2StridedBatch on the batch layout;
 *             built by hipcc: rocsparse gtsv_interleaved_batch (Thomas)
 *             and gtsv_no_pivot_strided_batch, the same layouts
 * as GB/s under each one's byte model, the median of 7 timed runs after
 * one warm-up (and the spread: smallest and largest), inputs restored
 * before each run outside the timed region, transfers to and from the
 * host excluded. limit_ratio = GB/s / stream GB/s of the same precision.
 * --occupancy adds Thomas launched with at most k blocks per
 * multiprocessor (thomas_sz_occ<k>, k = 1..16; docs/gpu.md says why).
 * --n N runs one of the three sizes only, --reps R times each kernel R
 * times after its warm-up (R odd, 1..101): with --reps 1 a profiler
 * sees every kernel launched twice (docs/gpu.md, "Counters").
 * The column `ahead` is TL_GPU_AHEAD, the rows Thomas loads ahead
 * (gpu_kernels.h; build with -DTL_GPU_AHEAD=k to compare). CSV on stdout.
 *
 * Measured numbers go into docs/gpu.md, replacing the predictions.
 */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "optimized/gpu/tl_gpu_port.h"
#include "tridlab/gpu.h"
#include "tridlab/part_distd2.h"

/* The runtime calls of this program under HIP: the CUDA names, mapped. */
#ifdef __HIPCC__
#include <rocsparse/rocsparse.h>
#define cudaEvent_t hipEvent_t
#define cudaEventCreate hipEventCreate
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventDestroy hipEventDestroy
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaGetLastError hipGetLastError
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaSuccess hipSuccess
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemcpy hipMemcpy
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaGetDevice hipGetDevice
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrClockRate hipDeviceAttributeClockRate
#define SPARSE "rocsparse"
#else
#include <cusparse.h>
#define SPARSE "cusparse"
#endif

#define T double
#define KF(x) x##_d
#include "optimized/gpu/gpu_kernels.h"
#undef T
#undef KF
#define T float
#define KF(x) x##_f
#include "optimized/gpu/gpu_kernels.h"
#undef T
#undef KF

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != 0) {                                                                             \
      fprintf(stderr, "tridlab-gpu-bench: %s failed at line %d\n", #call, __LINE__);               \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* The same traffic as Thomas in place, without the recurrence. */
template <class R> TL_KERNEL(stream5, long count, const R *a, const R *b, const R *c, R *d)
{
  TL_REGION(t)
  {
    long k = TL_BLOCK_ID * TL_BLOCK_THREADS + t;
    if (k < count)
      d[k] = a[k] + b[k] + c[k] + d[k];
  }
  TL_BARRIER();
}

/* One timed run of `body`, after `restore` (not timed): milliseconds. */
template <class R, class B> static float timed(R restore, B body)
{
  cudaEvent_t t0, t1;
  float ms = 0;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  restore();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(t0));
  body();
  CHECK(cudaEventRecord(t1));
  CHECK(cudaEventSynchronize(t1));
  CHECK(cudaGetLastError());
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return ms;
}

/* The vendor's batched solvers, double: cuSPARSE's gtsvInterleavedBatch
 * (algorithm 0, Thomas) and gtsv2StridedBatch, or rocSPARSE's
 * gtsv_interleaved_batch (its Thomas algorithm; it takes the batch stride
 * too) and gtsv_no_pivot_strided_batch. The interleaved layout puts row i
 * of system j at i nsys + j; the strided one at j n + i. */
#ifdef __HIPCC__
typedef rocsparse_handle sparse_handle;
static void sparse_create(sparse_handle *h)
{
  CHECK(rocsparse_create_handle(h));
}
static void sparse_destroy(sparse_handle h)
{
  rocsparse_destroy_handle(h);
}
static size_t sparse_buffer(sparse_handle h, long n, long nsys, double *dl, double *dd, double *du,
                            double *x)
{
  size_t bi = 0, bs = 0;
  CHECK(rocsparse_dgtsv_interleaved_batch_buffer_size(
      h, rocsparse_gtsv_interleaved_alg_thomas, (int)n, dl, dd, du, x, (int)nsys, (int)nsys, &bi));
  CHECK(rocsparse_dgtsv_no_pivot_strided_batch_buffer_size(h, (int)n, dl, dd, du, x, (int)nsys,
                                                           (int)n, &bs));
  return std::max(bi, bs);
}
static void sparse_interleaved(sparse_handle h, long n, long nsys, double *dl, double *dd,
                               double *du, double *x, void *buf)
{
  CHECK(rocsparse_dgtsv_interleaved_batch(h, rocsparse_gtsv_interleaved_alg_thomas, (int)n, dl, dd,
                                          du, x, (int)nsys, (int)nsys, buf));
}
static void sparse_strided(sparse_handle h, long n, long nsys, double *dl, double *dd, double *du,
                           double *x, void *buf)
{
  CHECK(rocsparse_dgtsv_no_pivot_strided_batch(h, (int)n, dl, dd, du, x, (int)nsys, (int)n, buf));
}
#else
typedef cusparseHandle_t sparse_handle;
static void sparse_create(sparse_handle *h)
{
  CHECK(cusparseCreate(h));
}
static void sparse_destroy(sparse_handle h)
{
  cusparseDestroy(h);
}
static size_t sparse_buffer(sparse_handle h, long n, long nsys, double *dl, double *dd, double *du,
                            double *x)
{
  size_t bi = 0, bs = 0;
  CHECK(cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, (int)n, dl, dd, du, x, (int)nsys, &bi));
  CHECK(cusparseDgtsv2StridedBatch_bufferSizeExt(h, (int)n, dl, dd, du, x, (int)nsys, (int)n, &bs));
  return std::max(bi, bs);
}
static void sparse_interleaved(sparse_handle h, long n, long nsys, double *dl, double *dd,
                               double *du, double *x, void *buf)
{
  CHECK(cusparseDgtsvInterleavedBatch(h, 0, (int)n, dl, dd, du, x, (int)nsys, buf));
}
static void sparse_strided(sparse_handle h, long n, long nsys, double *dl, double *dd, double *du,
                           double *x, void *buf)
{
  CHECK(cusparseDgtsv2StridedBatch(h, (int)n, dl, dd, du, x, (int)nsys, (int)n, buf));
}
#endif

/* The median of `reps` runs (7; --reps) after a warm-up, and their
 * smallest and largest. */
static int reps = 7;
struct timing {
  float med, lo, hi;
};
template <class R, class B> static timing median(R restore, B body)
{
  timed(restore, body);
  std::vector<float> v;
  for (int k = 0; k < reps; k++)
    v.push_back(timed(restore, body));
  std::sort(v.begin(), v.end());
  return {v[reps / 2], v[0], v[reps - 1]};
}

static void row(const char *what, const char *prec, long n, long nsys, double words, size_t size,
                timing t, double limit)
{
  double gbs = words * (double)size * (double)n * (double)nsys / (t.med * 1e-3) / 1e9;
  printf("%s,%s,%ld,%ld,%d,%.4f,%.4f,%.4f,%.1f,%.3f\n", what, prec, n, nsys, TL_GPU_AHEAD, t.med,
         t.lo, t.hi, gbs, limit > 0 ? gbs / limit : 0.0);
}

/* Device arrays of one batch, in the precision R. */
template <class R> struct batch {
  long n, nsys, count;
  size_t bytes;
  R *a, *b, *c, *d, *d0, *w;
  int *stat;
  batch(long n_, long nsys_) : n(n_), nsys(nsys_), count(n_ * nsys_)
  {
    bytes = (size_t)count * sizeof(R);
    std::vector<R> ha(count), hb(count), hc(count), hd(count);
    for (long k = 0; k < count; k++) { /* dominant rows; packed rows of 32 lanes */
      long i = (k / TL_GPU_SZ) % n;
      ha[k] = i == 0 ? 0 : -1;
      hc[k] = i == n - 1 ? 0 : -1;
      hb[k] = 4;
      hd[k] = (R)(k % 97) / (R)97;
    }
    R **all[] = {&a, &b, &c, &d, &d0};
    for (R **p : all)
      CHECK(cudaMalloc(p, bytes));
    CHECK(cudaMalloc(&w, 2 * bytes));
    CHECK(cudaMalloc(&stat, (size_t)nsys * TL_GPU_STAT_WORDS * sizeof(int)));
    CHECK(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, hc.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d0, hd.data(), bytes, cudaMemcpyHostToDevice));
  }
  ~batch()
  {
    R *all[] = {a, b, c, d, d0, w};
    for (R *p : all)
      cudaFree(p);
    cudaFree(stat);
  }
  void restore()
  {
    CHECK(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice));
  }
  /* The same-traffic limit in GB/s (5 words per unknown). */
  double limit(timing *t)
  {
    *t = median([&] { restore(); },
                [&] { TL_LAUNCH(stream5<R>, (count + 255) / 256, 256, 0, count, a, b, c, d); });
    return 5.0 * sizeof(R) * (double)count / (t->med * 1e-3) / 1e9;
  }
};

#ifndef __HIPCC__
/* Thomas with k blocks (warps) per multiprocessor at most, forced by
 * asking for shared memory the kernel does not use: fewer systems in
 * flight keep the scratch (c', d') a thread writes in its forward pass
 * in L2 until its backward pass reads it back. */
static void occupancy(batch<double> &g, double limit)
{
  int dev = 0, per_sm = 0, per_block = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  CHECK(cudaFuncSetAttribute(thomas_sz_kernel_d, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             per_block));
  static const int ks[] = {1, 2, 3, 4, 6, 8, 12, 16};
  for (int k : ks) {
    size_t sh = (size_t)per_sm / k - 1024; /* 1 KiB per block is the system's */
    if (sh > (size_t)per_block)
      sh = (size_t)per_block;
    timing t = median([&] { g.restore(); },
                      [&] {
                        TL_LAUNCH(thomas_sz_kernel_d, g.nsys / TL_GPU_SZ, TL_GPU_SZ, sh, g.n,
                                  g.nsys, g.a, g.b, g.c, g.d, g.w, g.stat);
                      });
    char name[32];
    snprintf(name, sizeof name, "thomas_sz_occ%d", k);
    row(name, "double", g.n, g.nsys, 5, sizeof(double), t, limit);
  }
}
#endif

/* DistD2 with the compact scheme's stencil fused (paper 000, Algorithms
 * 6 and 7): sixth-order first derivative on Lele's matrix [1/3, 1, 1/3],
 * one partition, the plan made on the host once; declared 2 words per
 * unknown (read u, write du), as the CPU's fused kernel
 * (docs/algorithms/compact_cpu.md). The decoupling pass writes d' and the
 * finishing pass reads it back: that traffic is the kernel's cost. */
static void distd2_row(const batch<double> &g, double limit)
{
  long n = g.n, nsys = g.nsys;
  std::vector<double> a(n, 1.0 / 3), b(n, 1.0), c(n, 1.0 / 3);
  a[0] = 0, c[n - 1] = 0;
  double h = 1.0 / (double)n, al = 14.0 / 9.0, be = 1.0 / 9.0;
  double st[5] = {-be / (4 * h), -al / (2 * h), 0, al / (2 * h), be / (4 * h)};
  tl_distd2_plan plan;
  tl_info info;
  if (tl_distd2_plan_create_d(&plan, (size_t)n, 0, 1, NULL, a.data(), b.data(), c.data(), &info)) {
    fprintf(stderr, "tridlab-gpu-bench: distd2 plan: %s\n", info.msg);
    exit(1);
  }
  std::vector<double> cf(5 * n + 1 + 5);
  long hb[2];
  tl_gpu_distd2_flatten(&plan, st, cf.data(), hb);
  tl_distd2_plan_destroy(&plan);
  double *dcf, *dt;
  long *begin;
  int *stat;
  CHECK(cudaMalloc(&dcf, cf.size() * sizeof(double)));
  CHECK(cudaMalloc(&begin, sizeof hb));
  CHECK(cudaMalloc(&dt, g.bytes));
  CHECK(cudaMalloc(&stat, (size_t)nsys * 3 * sizeof(int)));
  CHECK(cudaMemcpy(dcf, cf.data(), cf.size() * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(begin, hb, sizeof hb, cudaMemcpyHostToDevice));
  distd2_coef_d q = {begin, dcf, dcf + n, dcf + 2 * n, dcf + 3 * n, dcf + 4 * n, dcf + 5 * n};
  long groups = nsys / TL_GPU_SZ;
  timing t = median([] {},
                    [&] {
                      TL_LAUNCH(distd2_decouple_kernel_d, groups, TL_GPU_SZ, 0, n, 0, nsys, 1, q,
                                dcf + 5 * n + 1, g.d0, dt, stat);
                      TL_LAUNCH(distd2_finish_kernel_d, groups, TL_GPU_SZ, 0, n, nsys, 1, q, dt,
                                g.w, stat);
                    });
  row("distd2_stencil", "double", n, nsys, 2, sizeof(double), t, limit);
  cudaFree(dcf), cudaFree(begin), cudaFree(dt), cudaFree(stat);
}

/* The device's rate of IEEE divisions in double (the kernels do the
 * reference's divisions, so that their answers are its bits): every
 * thread runs 4 independent chains of TL_DIV_STEPS divisions, each by a
 * divisor of its own that changes every step (as a pivot does), so that
 * no part of a division can be hoisted or shared, and with a numerator
 * other than 1 (1 / q compiles to a reciprocal, which is cheaper). Row
 * ddiv: the GB/s column holds 10^9 divisions per second, limit_ratio the
 * divisions per clock per multiprocessor at the device's top clock. */
#define TL_DIV_STEPS 64
static __global__ void ddiv_chains(long count, const double *b, double *y)
{
  long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count)
    return;
  double bk = b[k], y0 = 1, y1 = 2, y2 = 3, y3 = 4;
  for (int s = 0; s < TL_DIV_STEPS; s++) {
    double q = bk + (double)s; /* a numerator of its own too: a division, not a reciprocal */
    y0 = (bk + y0) / (q - 0.25 * y0);
    y1 = (bk + y1) / (q + 0.5 - 0.25 * y1);
    y2 = (bk + y2) / (q + 1.0 - 0.25 * y2);
    y3 = (bk + y3) / (q + 1.5 - 0.25 * y3);
  }
  y[k] = y0 + y1 + y2 + y3;
}

static void division_row(const batch<double> &g)
{
  int dev = 0, sms = 0, khz = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  long count = g.count / 16; /* 2^21 threads */
  timing t = median([] {}, [&] {
    ddiv_chains<<<(unsigned)((count + 255) / 256), 256>>>(count, g.b, g.w);
  });
  double divs = 4.0 * TL_DIV_STEPS * (double)count, rate = divs / (t.med * 1e-3);
  printf("ddiv,double,%d,%ld,%d,%.4f,%.4f,%.4f,%.1f,%.3f\n", TL_DIV_STEPS * 4, count, TL_GPU_AHEAD,
         t.med, t.lo, t.hi, rate / 1e9, rate / ((double)sms * khz * 1e3));
}

/* Hybrid Thomas-PCR on chip (hybrid_chip_kernel): a system split over a
 * block's threads in partitions of m rows (m = TL_GPU_CHIP_M, its half,
 * ... down to 4; as many partitions as that makes), as
 * gpu_device_pass.h launches it (tl_gpu_hybrid_chip_launch); 5 words
 * declared, and moved. The kernel of the batch's precision: */
static decltype(&hybrid_chip_kernel_d) chip_kernel(double)
{
  return hybrid_chip_kernel_d;
}
static decltype(&hybrid_chip_kernel_f) chip_kernel(float)
{
  return hybrid_chip_kernel_f;
}
template <class R>
static void chip_rows(batch<R> &g, double limit, R *x, const char *prec = "double")
{
  long n = g.n, nsys = g.nsys;
  auto kernel = chip_kernel(R());
  for (int m = TL_GPU_CHIP_M; m >= 4; m /= 2) {
    int parts = (int)(n / m), per;
    size_t shared;
    if (n % m || !tl_gpu_hybrid_chip_launch((size_t)n, parts, (size_t)m, (size_t)m, sizeof(R),
                                            &shared, &per))
      continue;
#ifndef __HIPCC__
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, (const void *)kernel));
    if (fa.maxThreadsPerBlock < parts)
      continue;
#endif
    std::vector<long> ho(parts + 1);
    for (int p = 0; p <= parts; p++)
      ho[p] = (long)((long long)n * p / parts);
    long *off;
    CHECK(cudaMalloc(&off, (parts + 1) * sizeof(long)));
    CHECK(cudaMemcpy(off, ho.data(), (parts + 1) * sizeof(long), cudaMemcpyHostToDevice));
    timing t = median([] {},
                      [&] {
                        TL_LAUNCH(kernel, nsys, parts, shared, n, parts, per, off, g.a, g.b, g.c,
                                  g.d0, x, g.stat);
                      });
    char name[48];
    snprintf(name, sizeof name, "hybrid_chip_m%d", m);
    row(name, prec, n, nsys, 5, sizeof(R), t, limit);
#ifndef __HIPCC__
    int blocks = 0, dev = 0, most = 0; /* what the launch leaves resident */
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)kernel, parts,
                                                        shared));
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    printf("%s_resident,%s,%ld,%ld,%d,0,0,0,%d,%.3f\n", name, prec, n, nsys, TL_GPU_AHEAD, blocks,
           (double)blocks * parts / most);
#endif
    cudaFree(off);
  }
}

/* Thomas in float: its own limit, its own stream. */
static void float_thomas(long n, long nsys)
{
  batch<float> f(n, nsys);
  timing st;
  double limit = f.limit(&st);
  timing t = median([&] { f.restore(); },
                    [&] {
                      TL_LAUNCH(thomas_sz_kernel_f, nsys / TL_GPU_SZ, TL_GPU_SZ, 0, n, nsys, f.a,
                                f.b, f.c, f.d, f.w, f.stat);
                    });
  row("stream", "float", n, nsys, 5, sizeof(float), st, limit);
  row("thomas_sz", "float", n, nsys, 5, sizeof(float), t, limit);
  float *x;
  CHECK(cudaMalloc(&x, f.bytes));
  chip_rows(f, limit, x, "float");
  cudaFree(x);
}

/* PCR (one block per system) and hybrid Thomas-PCR (a thread per
 * partition of 32 rows) on the batch layout, as gpu_device_pass.h
 * launches them (tl_gpu_pcr_launch). */
static void batch_kernels(batch<double> &g, double limit)
{
  long n = g.n, nsys = g.nsys;
  double *x, *gbuf = NULL, *work;
  long *off;
  CHECK(cudaMalloc(&x, g.bytes));
  size_t shared;
  int global, threads = tl_gpu_pcr_launch((size_t)n, sizeof(double), &shared, &global);
  if (global)
    CHECK(cudaMalloc(&gbuf, 8 * g.bytes));
  timing t = median([] {},
                    [&] {
                      TL_LAUNCH(pcr_kernel_d, nsys, threads, shared, n, g.a, g.b, g.c, g.d0, x,
                                gbuf, g.stat);
                    });
  row(global ? "pcr_global" : "pcr_shared", "double", n, nsys, 5, sizeof(double), t, limit);
  int parts = (int)(n / 32 > 1024 ? 1024 : n / 32);
  std::vector<long> ho(parts + 1);
  for (int p = 0; p <= parts; p++)
    ho[p] = (long)((long long)n * p / parts);
  CHECK(cudaMalloc(&off, (parts + 1) * sizeof(long)));
  CHECK(cudaMemcpy(off, ho.data(), (parts + 1) * sizeof(long), cudaMemcpyHostToDevice));
  CHECK(
      cudaMalloc(&work, (size_t)nsys * TL_HYBRID_WORK((size_t)n, (size_t)parts) * sizeof(double)));
  t = median([] {},
             [&] {
               TL_LAUNCH(hybrid_kernel_d, nsys, parts, 4 * (size_t)parts * sizeof(long long), n,
                         parts, off, g.a, g.b, g.c, g.d0, x, work, g.stat);
             });
  row("hybrid_pcr", "double", n, nsys, 5, sizeof(double), t, limit);
  chip_rows(g, limit, x);
  /* PDD's local phase on the same partitions: read a, b, c, d, write y,
   * v, w (7 words declared; the spikes' scratch is its cost). */
  double *yvw, *part;
  CHECK(cudaMalloc(&yvw, 4 * g.bytes));
  CHECK(cudaMalloc(&part, 3 * (size_t)nsys * parts * sizeof(double)));
  int *pst;
  CHECK(cudaMalloc(&pst, 3 * (size_t)nsys * parts * sizeof(int)));
  long q = g.count;
  t = median([] {},
             [&] {
               TL_LAUNCH(pdd_local_kernel_d, nsys, parts, 0, n, parts, 0, off, g.a, g.b, g.c, g.d0,
                         yvw, yvw + q, yvw + 2 * q, yvw + 3 * q, part, pst);
             });
  row("pdd_local", "double", n, nsys, 7, sizeof(double), t, limit);
  cudaFree(yvw), cudaFree(part), cudaFree(pst);
  cudaFree(x), cudaFree(gbuf), cudaFree(work), cudaFree(off);
}

int main(int argc, char **argv)
{
  int with_occupancy = 0;
  long only = 0;
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (!strcmp(argv[i], "--occupancy")) {
      with_occupancy = 1;
      continue;
    }
    if (i + 1 < argc && !strcmp(argv[i], "--reps")) {
      long r = strtol(argv[++i], &end, 10);
      if (*end || r < 1 || r > 101 || r % 2 == 0) {
        fprintf(stderr, "tridlab-gpu-bench: --reps takes an odd count from 1 to 101\n");
        return 2;
      }
      reps = (int)r;
      continue;
    }
    if (i + 1 < argc && !strcmp(argv[i], "--n")) {
      only = strtol(argv[++i], &end, 10);
      if (*end || (only != 256 && only != 1024 && only != 4096)) {
        fprintf(stderr, "tridlab-gpu-bench: --n takes 256, 1024 or 4096\n");
        return 2;
      }
      continue;
    }
    fprintf(stderr, "usage: tridlab-gpu-bench [--occupancy] [--n 256|1024|4096] [--reps R]\n");
    return 2;
  }
#ifdef __HIPCC__
  if (with_occupancy) {
    fprintf(stderr, "tridlab-gpu-bench: --occupancy is measured under CUDA only\n");
    return 2;
  }
#endif
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    printf("tridlab-gpu-bench: no GPU device present; nothing measured\n");
    return 0;
  }
  sparse_handle sp;
  sparse_create(&sp);
  printf("kernel,precision,n,nsys,ahead,ms,ms_min,ms_max,GB/s,limit_ratio\n");
  const long total = 1L << 25;
  for (long n = 256; n <= 4096; n *= 4) {
    if (only && n != only)
      continue;
    long nsys = total / n, count = n * nsys; /* nsys is a multiple of 32 */
    batch<double> g(n, nsys);
    double *a = g.a, *b = g.b, *c = g.c, *d = g.d, *d0 = g.d0, *w = g.w;
    int *stat = g.stat;
    size_t bytes = g.bytes;
    std::vector<double> ha(count), hc(count);
    double *dl, *dd, *du;
    CHECK(cudaMalloc(&dl, bytes));
    CHECK(cudaMalloc(&dd, bytes));
    CHECK(cudaMalloc(&du, bytes));
    auto restore = [&] { g.restore(); };
    auto nothing = [] {};
    timing copy =
        median(nothing, [&] { CHECK(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice)); });
    timing stream;
    double limit = g.limit(&stream);
    timing thomas = median(restore, [&] {
      TL_LAUNCH(thomas_sz_kernel_d, nsys / TL_GPU_SZ, TL_GPU_SZ, 0, n, nsys, a, b, c, d, w, stat);
    });
    timing periodic = median(restore, [&] {
      TL_LAUNCH(periodic_sz_kernel_d, nsys / TL_GPU_SZ, TL_GPU_SZ, 0, n, nsys, a, b, c, d, w, stat);
    });
#ifndef __HIPCC__
    if (with_occupancy)
      occupancy(g, limit);
#endif
    row("copy", "double", n, nsys, 2, sizeof(double), copy, 0);
    row("stream", "double", n, nsys, 5, sizeof(double), stream, limit);
    row("thomas_sz", "double", n, nsys, 5, sizeof(double), thomas, limit);
    row("periodic_sz", "double", n, nsys, 5, sizeof(double), periodic, limit);
    batch_kernels(g, limit);
    if (n == 256)
      division_row(g);
    distd2_row(g, limit);
    float_thomas(n, nsys);

    /* cuSPARSE, fully interleaved (element i of system j at i nsys + j)
     * and strided (the batch layout): the same matrix tridiag(-1, 4, -1)
     * in every system, with zero corners in each layout's places. */
    double *lo_i, *up_i, *lo_s, *up_s;
    CHECK(cudaMalloc(&lo_i, bytes));
    CHECK(cudaMalloc(&up_i, bytes));
    CHECK(cudaMalloc(&lo_s, bytes));
    CHECK(cudaMalloc(&up_s, bytes));
    for (int layout = 0; layout < 2; layout++) {
      for (long k = 0; k < count; k++) {
        long i = layout == 0 ? k / nsys : k % n;
        ha[k] = i == 0 ? 0 : -1;
        hc[k] = i == n - 1 ? 0 : -1;
      }
      CHECK(cudaMemcpy(layout == 0 ? lo_i : lo_s, ha.data(), bytes, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(layout == 0 ? up_i : up_s, hc.data(), bytes, cudaMemcpyHostToDevice));
    }
    void *buf;
    CHECK(cudaMalloc(&buf, sparse_buffer(sp, n, nsys, dl, dd, du, d) + 1));
    auto restore_layout = [&](const double *lo, const double *up) {
      CHECK(cudaMemcpy(dl, lo, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaMemcpy(dd, b, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaMemcpy(du, up, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice));
    };
    timing inter = median([&] { restore_layout(lo_i, up_i); },
                          [&] { sparse_interleaved(sp, n, nsys, dl, dd, du, d, buf); });
    timing strided = median([&] { restore_layout(lo_s, up_s); },
                            [&] { sparse_strided(sp, n, nsys, dl, dd, du, d, buf); });
    row(SPARSE "_interleaved", "double", n, nsys, 5, sizeof(double), inter, limit);
    row(SPARSE "_strided", "double", n, nsys, 5, sizeof(double), strided, limit);
    cudaFree(buf);
    double *all[] = {dl, dd, du, lo_i, up_i, lo_s, up_s};
    for (double *p : all)
      cudaFree(p);
  }
  sparse_destroy(sp);
  return 0;
}
