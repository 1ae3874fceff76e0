/* optimized/gpu/gpu_emulator.h -- the host grid that runs the GPU kernels
 * where no device does (docs/gpu.md, "Emulation, and what it proves").
 *
 * What it emulates: a launch of `grid` blocks of `threads` threads (at
 * most TL_GPU_MAX_THREADS, the GPUs' limit), each block with its dynamic
 * shared memory, and inside a block a kernel written as regions
 * separated by barriers (tl_gpu_port.h). How:
 *
 *   blocks          one after the other (tl_gpu_launch_next); blocks
 *                   share only global memory, so this is an order a
 *                   device may choose too
 *   threads         a region is a loop over the block's threads and a
 *                   barrier is the end of that loop: loop fission at
 *                   barriers (MCUDA, Stratton, Stone and Hwu 2008)
 *   thread order    every region visits the threads forward (0..T-1),
 *                   in reverse, or shuffled: a Fisher-Yates permutation
 *                   drawn afresh per (seed, block, region) by splitmix64,
 *                   the same on every machine (tl_gpu_set_order in
 *                   tridlab/gpu.h; default shuffled, seed 1). A kernel
 *                   whose answer depends on the order has a race
 *   per-thread      TL_PER_THREAD: an array of one value per thread
 *   shared memory   one buffer per launch, filled with bytes 0x7f before
 *                   every block: a device leaves shared memory unset, and
 *                   a kernel that reads what it never wrote gets visibly
 *                   odd values here too, not zeros that happen to be right
 *   kernel bugs     a region begun before the previous one met
 *                   TL_BARRIER, a block that ends inside a region, a
 *                   block of 0 or too many threads; the first is kept
 *                   and reported by tl_gpu_launch_status (tridlab/gpu.h),
 *                   as is a launch without memory for its shared memory
 *
 * The order, its seed and the first error belong to the calling thread
 * of the program. What emulation does not check (atomics, warp-
 * synchronous code, every interleaving, resource limits): docs/gpu.md.
 *
 * tl_gpu_port.h's host branch includes this header and builds
 * TL_REGION, TL_BARRIER, TL_SHARED_MEM and TL_LAUNCH on it; a kernel
 * never calls these functions itself. gpu_emulator.c implements them.
 */
#ifndef TL_GPU_EMULATOR_H
#define TL_GPU_EMULATOR_H

#include <stddef.h>

/* Most threads in a block the emulator runs (the GPUs' limit). */
#define TL_GPU_MAX_THREADS 1024

/* What the emulator tells one block: its index, its threads, the order
 * in which regions visit them, its shared memory, and the check that
 * every region is closed by a barrier. */
typedef struct tl_gpu_block {
  long block;         /* blockIdx.x                                   */
  int threads;        /* blockDim.x                                   */
  int *order;         /* a permutation of 0..threads-1 per region     */
  void *shared;       /* the dynamic shared memory of the block       */
  int open;           /* 1 inside a region not yet closed by TL_BARRIER */
  int unclosed;       /* set when a region began while one was open   */
  unsigned regions;   /* regions run so far (seeds the shuffles)      */
  unsigned long seed; /* 0: the order is fixed, else shuffled per region */
} tl_gpu_block;

/* Start a region: count it, reshuffle the order, note a missing barrier.
 * Returns 0, the first value of the thread loop. */
int tl_gpu_region_begin(tl_gpu_block *blk);

/* A launch on the host: the blocks one after the other, each with the
 * launch's shared memory, poisoned (bytes 0x7f). tl_gpu_launch_next
 * sets up the next block and returns 0 after the last; a missing
 * barrier or no memory is recorded for tl_gpu_launch_status(). */
typedef struct tl_gpu_launch {
  tl_gpu_block blk;
  long grid, next;
  size_t shared_bytes;
  int order[TL_GPU_MAX_THREADS];
} tl_gpu_launch;
void tl_gpu_launch_begin(tl_gpu_launch *l, long grid, int threads, size_t shared_bytes);
int tl_gpu_launch_next(tl_gpu_launch *l);

#endif
