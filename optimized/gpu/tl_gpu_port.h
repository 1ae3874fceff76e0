/* optimized/gpu/tl_gpu_port.h -- one kernel source for CUDA, HIP and the
 * host (docs/gpu.md).
 *
 * A kernel is written as a sequence of per-thread REGIONS separated by
 * BARRIERS. Inside a region every thread of the block runs the same code
 * on its own data; a barrier is where the threads wait for each other.
 *
 *   TL_KERNEL(name, args...)          kernel scope: uniform values only
 *   {                                 (the same for every thread;
 *                                     TL_KERNEL_BOUNDED(name, threads,
 *                                     args...): launched with at most
 *                                     `threads`, registers kept to that)
 *     TL_PER_THREAD(double, carry);   a value that lives across barriers
 *     TL_SHARED_BEGIN();              carve the block's shared memory:
 *     double *u = TL_SHARED_ARRAY(double, n);    sub-arrays, in order
 *     TL_REGION(t) { ... }            region: thread t's code
 *     TL_BARRIER();                   every region ends at a barrier
 *     TL_REGION(t) { ... TL_MY(carry) ... TL_ST(u, t) = TL_LD(g, t) ... }
 *     TL_BARRIER();
 *   }
 *
 * Under nvcc or hipcc a region is a block of code run by every thread
 * (t = threadIdx.x) and a barrier is __syncthreads(). Under a C compiler
 * a region is a loop over the block's threads in an order chosen by the
 * emulator (gpu_emulator.h: forward, reverse, shuffled), and the
 * barrier is the end of that loop: loop fission at barriers, the MCUDA
 * technique (Stratton, Stone and Hwu 2008). A value that must survive a barrier is declared
 * per thread (an array of one value per thread on the host, a register
 * on the device) and read as TL_MY(name): the running thread's, and only
 * its own (there is no thread index to give, so no thread can read
 * another's, which a device could not either).
 *
 * Memory. Every load from and store to shared or global memory is
 * written TL_LD(p, i) (the value p[i]) and TL_ST(p, i) = v (p[i] = v).
 * On the device they are p[i]; on the host each access also goes to the
 * emulator's checker (gpu_emulator.h), which records per word who last
 * stored and loaded it, and reports a race between two threads of a
 * block or two blocks, a load of a word never stored, and an index
 * outside the (sub-)array the pointer points into -- whatever order the
 * threads and blocks run in. A thread's own arrays (registers on the
 * device) are plain C.
 *
 * Why the scopes: the thread index t and every variable declared inside
 * a region go out of scope at the region's closing brace, in both
 * builds. Using a region's variable after the barrier, or t at kernel
 * scope, does not compile: state crosses a barrier only as TL_MY.
 *
 * Shared memory is carved into sub-arrays by TL_SHARED_ARRAY, one after
 * the other with no padding (carve the larger types first; the host
 * reports a misaligned one): on the device at the very offsets a kernel
 * would compute by hand; on the host with guard words
 * between them that the emulator checks after every block, so that a
 * sub-array overflowing into the next is reported (gpu_emulator.h).
 * TL_SHARED_MEM(type) is the whole buffer, unchecked: prefer sub-arrays.
 *
 * Two rules the compiler cannot check: no `return` or `break` directly in
 * a region's body (on the host they would leave the loop over threads and
 * skip the others; on a device a thread that returns misses the next
 * barrier) -- let the region's code run to its closing brace; and code at
 * kernel scope must be uniform (it runs once on the host, in every thread
 * on a device).
 */
#ifndef TL_GPU_PORT_H
#define TL_GPU_PORT_H

#include <stddef.h>

/* Shared memory a block may use: the 48 KiB every CUDA and HIP device
 * gives without opting in. The launches keep under it (tl_gpu_pcr_launch);
 * the emulator fails a launch that asks for more, as a device does. */
#define TL_GPU_SHARED_MAX ((size_t)48 * 1024)

/* PCR's launch (pcr_kernel), the same for the emulator, the device
 * wrapper and the benchmark: a warp per 32 rows, at most 256 threads;
 * shared memory for each thread's key and row, and for the two work
 * systems (8 n values of `size` bytes) when they fit -- else *global = 1
 * and the caller passes a global buffer of 8 n values per system.
 * Returns the threads per block. */
static inline int tl_gpu_pcr_launch(size_t n, size_t size, size_t *shared, int *global)
{
  size_t t32 = (n + 31) / 32 * 32;
  int threads = t32 > 256 ? 256 : (int)t32;
  size_t keys = 2 * (size_t)threads * sizeof(long long), work = 8 * n * size;
  *global = keys + work > TL_GPU_SHARED_MAX;
  *shared = keys + (*global ? 0 : work);
  return threads;
}

/* The on-chip hybrid kernel (hybrid_chip_kernel): at most TL_GPU_CHIP_M
 * rows per partition, held in a thread's registers; rows staged through
 * shared memory with one pad word after every 8 (TL_GPU_CHIP_PAD). */
#ifndef TL_GPU_CHIP_M
#define TL_GPU_CHIP_M 8
#endif
#define TL_GPU_CHIP_PAD(i) ((i) + ((i) >> 3))
/* Its threads per block at most (its partitions): a thread holds 3
 * TL_GPU_CHIP_M values and its reduced rows in registers, and a block of
 * 1024 such threads would not launch; the kernel is compiled to fit
 * 4096 / TL_GPU_CHIP_M threads (512: 128 registers each), enough for
 * systems of 4096 rows. */
#define TL_GPU_CHIP_THREADS (4096 / TL_GPU_CHIP_M)

/* Its launch, the same for the emulator, the device wrapper and the
 * benchmark: one block of `parts` threads per system. Shared memory: a
 * failure key per thread, then one buffer for, in turn, the four arrays
 * of a round of *per partitions, the reduced system (4 x 2 parts values)
 * and x. *per: the first of P, P/2, P/4, ... (rounded up) whose round
 * fits; P when the whole system does (one round). Returns 1 with the
 * shared bytes and *per when the kernel applies: at most
 * TL_GPU_CHIP_THREADS partitions, every one of 2 to TL_GPU_CHIP_M rows
 * (the shortest: min_rows, the longest: max_rows), and the memory within
 * TL_GPU_SHARED_MAX; else 0 (hybrid_kernel runs). */
#define TL_GPU_CHIP_SPAN(per) (TL_GPU_CHIP_PAD((per) * TL_GPU_CHIP_M - 1) + 1)
static inline int tl_gpu_hybrid_chip_launch(size_t n, int parts, size_t min_rows, size_t max_rows,
                                            size_t size, size_t *shared, int *per)
{
  size_t P = (size_t)parts, keys = P * sizeof(long long);
  size_t need = TL_GPU_CHIP_PAD(n - 1) + 1; /* x; then the reduced system */
  need = need > 8 * P ? need : 8 * P;
  *per = 0;
  *shared = 0;
  if (parts < 1 || parts > TL_GPU_CHIP_THREADS || n < 2 || min_rows < 2 ||
      max_rows > TL_GPU_CHIP_M ||
      keys + need * size > TL_GPU_SHARED_MAX)
    return 0;
  size_t q = P; /* a round's four arrays in what is left, or in `need` */
  while (q > 1 && keys + 4 * TL_GPU_CHIP_SPAN(q) * size > TL_GPU_SHARED_MAX)
    q = (q + 1) / 2;
  size_t words = 4 * TL_GPU_CHIP_SPAN(q) > need ? 4 * TL_GPU_CHIP_SPAN(q) : need;
  if (keys + words * size > TL_GPU_SHARED_MAX)
    return 0;
  *per = (int)q;
  *shared = keys + words * size;
  return 1;
}

/* The same, for the partitions whose first rows are off[0..parts-1] and
 * off[parts] = n (the host's copy): what the emulator and the device
 * wrapper ask before choosing the kernel. */
static inline int tl_gpu_hybrid_chip_fits(size_t n, int parts, const long *off, size_t size,
                                          size_t *shared, int *per)
{
  size_t shortest = n, longest = 0;
  for (int p = 0; p < parts; p++) {
    size_t m = (size_t)(off[p + 1] - off[p]);
    shortest = m < shortest ? m : shortest;
    longest = m > longest ? m : longest;
  }
  return tl_gpu_hybrid_chip_launch(n, parts, shortest, longest, size, shared, per);
}

#if defined(__CUDACC__) || defined(__HIPCC__)
/* ------------------------------------------------------------------ */
/* Device build: CUDA or HIP                                           */
#define TL_GPU_DEVICE 1
/* The runtime calls the host side of a device build makes. */
#ifdef __HIPCC__
#include <hip/hip_runtime.h>
#define tl_gpuError_t hipError_t
#define tl_gpuSuccess hipSuccess
#define tl_gpuMalloc hipMalloc
#define tl_gpuFree hipFree
#define tl_gpuMemcpy hipMemcpy
#define tl_gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define tl_gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define tl_gpuGetDeviceCount hipGetDeviceCount
#define tl_gpuDeviceSynchronize hipDeviceSynchronize
#define tl_gpuGetLastError hipGetLastError
#define tl_gpuGetErrorString hipGetErrorString
#else
#define tl_gpuError_t cudaError_t
#define tl_gpuSuccess cudaSuccess
#define tl_gpuMalloc cudaMalloc
#define tl_gpuFree cudaFree
#define tl_gpuMemcpy cudaMemcpy
#define tl_gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define tl_gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define tl_gpuGetDeviceCount cudaGetDeviceCount
#define tl_gpuDeviceSynchronize cudaDeviceSynchronize
#define tl_gpuGetLastError cudaGetLastError
#define tl_gpuGetErrorString cudaGetErrorString
#endif

#define TL_KERNEL(name, ...) __global__ void name(__VA_ARGS__)
/* A kernel launched with at most `threads` threads a block: the compiler
 * keeps its registers within what that many threads can have. */
#define TL_KERNEL_BOUNDED(name, threads, ...) __global__ void __launch_bounds__(threads) name(__VA_ARGS__)
#define TL_DEVICE_FN __device__ static inline
/* Unroll the next loop fully (its trip count is a constant). */
#define TL_UNROLL _Pragma("unroll")
#define TL_BLOCK_ID ((long)blockIdx.x)
#define TL_BLOCK_THREADS ((int)blockDim.x)
/* One pass of a one-trip loop: the region is a scope holding t. */
#define TL_REGION(t) for (int t = (int)threadIdx.x, tl_once_ = 1; tl_once_ && t >= 0; tl_once_ = 0)
#define TL_BARRIER() __syncthreads()
#define TL_PER_THREAD(type, name) type name
#define TL_MY(name) (name)
#define TL_LD(p, i) ((p)[i])
#define TL_ST(p, i) ((p)[i])
/* Dynamic shared memory (the launch gives its size in bytes). */
#define TL_SHARED_MEM(type) ((type *)tl_gpu_shared_)
extern __shared__ double tl_gpu_shared_[];
/* Sub-arrays of it, carved in order: the byte offset of the next one.
 * Written as one expression on tl_gpu_shared_ itself (count is read
 * twice), so that the compiler still sees shared memory and keeps its
 * 32-bit addressing and register count, as with pointers set by hand. */
#define TL_SHARED_BEGIN() size_t tl_shared_at_ = 0
#define TL_SHARED_ARRAY(type, count)                                                               \
  ((type *)((char *)tl_gpu_shared_ + ((tl_shared_at_ += sizeof(type) * (size_t)(count)) -        \
                                      sizeof(type) * (size_t)(count))))
#define TL_LAUNCH(kernel, grid, threads, shared_bytes, ...)                                        \
  kernel<<<(unsigned)(grid), (unsigned)(threads), (size_t)(shared_bytes)>>>(__VA_ARGS__)

#else
/* ------------------------------------------------------------------ */
/* Host build: the block's threads are loops                           */
#define TL_GPU_DEVICE 0

/* The host grid the macros below run on: blocks, threads, orders. */
#include "gpu_emulator.h"

#define TL_KERNEL(name, ...) static void name(tl_gpu_block *tl_blk_, __VA_ARGS__)
#define TL_KERNEL_BOUNDED(name, threads, ...) TL_KERNEL(name, __VA_ARGS__)
#define TL_DEVICE_FN static inline
#define TL_UNROLL
#define TL_BLOCK_ID (tl_blk_->block)
#define TL_BLOCK_THREADS (tl_blk_->threads)
#define TL_REGION(t)                                                                               \
  for (int tl_k_ = tl_gpu_region_begin(tl_blk_), tl_me_ = 0, t = 0;                                \
       tl_gpu_region_next(tl_blk_, tl_k_, &tl_me_) && ((t = tl_me_), (void)t, 1); tl_k_++)
#define TL_BARRIER() (tl_blk_->open = 0)
#define TL_PER_THREAD(type, name) type name[TL_GPU_MAX_THREADS]
/* The running thread's value (tl_me_: the region's thread, out of the
 * kernel's reach; at kernel scope it does not exist: a compile error). */
#define TL_MY(name) ((name)[tl_me_])
/* Loads and stores through the checker (gpu_emulator.h). */
#define TL_LD(p, i) ((p)[tl_gpu_access((p), (long)(i), sizeof *(p), 0)])
#define TL_ST(p, i) ((p)[tl_gpu_access((p), (long)(i), sizeof *(p), 1)])
#define TL_SHARED_MEM(type) ((type *)tl_blk_->shared)
/* Sub-arrays: the device's offsets, guard words between them. */
#define TL_SHARED_BEGIN() size_t tl_shared_at_ = 0
#define TL_SHARED_ARRAY(type, count)                                                               \
  ((type *)tl_gpu_shared_carve(tl_blk_, &tl_shared_at_, sizeof(type), (size_t)(count)))

/* The kernel's name as a string, its macros expanded (KF(x) -> "x_d"). */
#define TL_GPU_STR_(x) #x
#define TL_GPU_NAME_(x) TL_GPU_STR_(x)

/* Every block of the grid in turn, in the block order (gpu_emulator.h). */
#define TL_LAUNCH(kernel, grid, threads, shared_bytes, ...)                                        \
  do {                                                                                             \
    tl_gpu_launch tl_l_;                                                                           \
    for (tl_gpu_launch_begin(&tl_l_, TL_GPU_NAME_(kernel), (grid), (threads), (shared_bytes));     \
         tl_gpu_launch_next(&tl_l_);)                                                              \
      kernel(&tl_l_.blk, __VA_ARGS__);                                                             \
  } while (0)
#endif

#endif
