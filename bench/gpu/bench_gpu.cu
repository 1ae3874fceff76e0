/* bench/gpu/bench_gpu.cu -- tridlab-gpu-bench: the packed Thomas kernel
 * against the device's bandwidth and cuSPARSE (docs/gpu.md, section 5).
 * Built by `make gpu` with nvcc; never timed in tests.
 *
 * Without a device it says so and exits 0, printing no numbers. With one,
 * for n = 256, 1024, 4096 and 2^25 unknowns (double), in one run:
 *   copy     cudaMemcpy device to device of one array: 2 words / unknown
 *   stream   a same-traffic kernel (read a, b, c, d, write d; no
 *            recurrence): the limit for Thomas's access pattern
 *   thomas   thomas_sz_kernel, declared 5 words / unknown
 *   cusparse gtsvInterleavedBatch (algorithm 0, Thomas) on the fully
 *            interleaved layout, and gtsv2StridedBatch on the batch layout
 * as GB/s under each one's byte model (5 words for the solvers), the
 * median of 7 timed runs after one warm-up, inputs restored before each
 * run outside the timed region, transfers to and from the host excluded.
 * limit_ratio = thomas GB/s / stream GB/s. Output: CSV on stdout.
 *
 * Measured numbers go into docs/gpu.md, replacing the predictions.
 */
#include <algorithm>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "../../optimized/gpu/tl_gpu_port.h"
#include "tridlab/gpu.h"

#define T double
#define KF(x) x##_d
#include "../../optimized/gpu/gpu_kernels.h"
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
TL_KERNEL(stream5, long count, const double *a, const double *b, const double *c, double *d)
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

/* The median of 7 runs after a warm-up. */
template <class R, class B> static float median(R restore, B body)
{
  timed(restore, body);
  std::vector<float> v;
  for (int k = 0; k < 7; k++)
    v.push_back(timed(restore, body));
  std::sort(v.begin(), v.end());
  return v[3];
}

static void row(const char *what, long n, long nsys, double words, float ms, double limit)
{
  double gbs = words * 8.0 * (double)n * (double)nsys / (ms * 1e-3) / 1e9;
  printf("%s,%ld,%ld,%.4f,%.1f,%.3f\n", what, n, nsys, ms, gbs, limit > 0 ? gbs / limit : 0.0);
}

int main(void)
{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    printf("tridlab-gpu-bench: no GPU device present; nothing measured\n");
    return 0;
  }
  cusparseHandle_t sp;
  CHECK(cusparseCreate(&sp));
  printf("kernel,n,nsys,ms,GB/s,limit_ratio\n");
  const long total = 1L << 25;
  for (long n = 256; n <= 4096; n *= 4) {
    long nsys = total / n, count = n * nsys; /* nsys is a multiple of 32 */
    std::vector<double> ha(count), hb(count), hc(count), hd(count);
    for (long k = 0; k < count; k++) { /* dominant rows, packed by rows of 32 lanes */
      long i = (k / TL_GPU_SZ) % n;
      ha[k] = i == 0 ? 0 : -1;
      hc[k] = i == n - 1 ? 0 : -1;
      hb[k] = 4;
      hd[k] = (double)(k % 97) / 97.0;
    }
    double *a, *b, *c, *d, *d0, *w, *dl, *dd, *du;
    int *stat;
    size_t bytes = (size_t)count * sizeof(double);
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&c, bytes));
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMalloc(&d0, bytes));
    CHECK(cudaMalloc(&w, bytes));
    CHECK(cudaMalloc(&dl, bytes));
    CHECK(cudaMalloc(&dd, bytes));
    CHECK(cudaMalloc(&du, bytes));
    CHECK(cudaMalloc(&stat, (size_t)nsys * TL_GPU_STAT_WORDS * sizeof(int)));
    CHECK(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, hc.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d0, hd.data(), bytes, cudaMemcpyHostToDevice));
    auto restore = [&] { CHECK(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice)); };
    auto nothing = [] {};
    float copy =
        median(nothing, [&] { CHECK(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice)); });
    float stream = median(
        restore, [&] { TL_LAUNCH(stream5, (count + 255) / 256, 256, 0, count, a, b, c, d); });
    float thomas = median(restore, [&] {
      TL_LAUNCH(thomas_sz_kernel_d, nsys / TL_GPU_SZ, TL_GPU_SZ, 0, n, nsys, a, b, c, d, w, stat);
    });
    double limit = 5.0 * 8.0 * (double)count / (stream * 1e-3) / 1e9;
    row("copy", n, nsys, 2, copy, 0);
    row("stream", n, nsys, 5, stream, limit);
    row("thomas_sz", n, nsys, 5, thomas, limit);

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
    size_t buf_i = 0, buf_s = 0;
    CHECK(cusparseDgtsvInterleavedBatch_bufferSizeExt(sp, 0, (int)n, dl, dd, du, d, (int)nsys,
                                                      &buf_i));
    CHECK(cusparseDgtsv2StridedBatch_bufferSizeExt(sp, (int)n, dl, dd, du, d, (int)nsys, (int)n,
                                                   &buf_s));
    void *buf;
    CHECK(cudaMalloc(&buf, std::max(buf_i, buf_s) + 1));
    auto restore_layout = [&](const double *lo, const double *up) {
      CHECK(cudaMemcpy(dl, lo, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaMemcpy(dd, b, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaMemcpy(du, up, bytes, cudaMemcpyDeviceToDevice));
      CHECK(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice));
    };
    float inter =
        median([&] { restore_layout(lo_i, up_i); },
               [&] {
                 CHECK(cusparseDgtsvInterleavedBatch(sp, 0, (int)n, dl, dd, du, d, (int)nsys, buf));
               });
    float strided = median(
        [&] { restore_layout(lo_s, up_s); },
        [&] {
          CHECK(cusparseDgtsv2StridedBatch(sp, (int)n, dl, dd, du, d, (int)nsys, (int)n, buf));
        });
    row("cusparse_interleaved", n, nsys, 5, inter, limit);
    row("cusparse_strided", n, nsys, 5, strided, limit);
    cudaFree(buf);
    double *all[] = {a, b, c, d, d0, w, dl, dd, du, lo_i, up_i, lo_s, up_s};
    for (double *p : all)
      cudaFree(p);
    cudaFree(stat);
  }
  cusparseDestroy(sp);
  return 0;
}
