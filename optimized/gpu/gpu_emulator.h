/* optimized/gpu/gpu_emulator.h -- the host grid that runs the GPU kernels
 * where no device does (docs/gpu.md, "Emulation, and what it proves").
 *
 * What it emulates: a launch of `grid` blocks of `threads` threads (at
 * most TL_GPU_MAX_THREADS, the GPUs' limit), each block with its dynamic
 * shared memory, and inside a block a kernel written as regions
 * separated by barriers (tl_gpu_port.h). How:
 *
 *   blocks          one after the other (tl_gpu_launch_next), in an
 *                   order chosen like the threads': forward, reverse or
 *                   shuffled (a Fisher-Yates permutation of the grid by
 *                   splitmix64 from the seed; tl_gpu_set_block_order,
 *                   default shuffled, seed 1). Blocks share only global
 *                   memory and a device runs them in any order, so a
 *                   kernel whose answer depends on the block order has a
 *                   cross-block dependence: one block reads what another
 *                   wrote, or two write the same word and the last wins
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
 *                   odd values here too, not zeros that happen to be right.
 *                   At most TL_GPU_SHARED_MAX bytes (48 KiB, tl_gpu_port.h)
 *                   per block, as on a device without opt-in: a launch
 *                   asking for more runs nothing and fails
 *   sub-arrays      TL_SHARED_ARRAY carves the buffer into sub-arrays in
 *                   the device's layout, but with TL_GPU_GUARD bytes of
 *                   canary (0xa5) before the first and after each one;
 *                   the canaries are checked when the block ends, so a
 *                   write past a sub-array's end (or before its start) is
 *                   reported with the kernel's name and the sub-array's
 *                   number; so is a carve beyond the launch's bytes
 *   global scratch  tl_gpu_scratch_alloc: the scratch an entry point
 *                   allocates for its kernels, filled with bytes 0xff (a
 *                   NaN in float and double, -1 as an int) as a device's
 *                   allocation is unset: a read of scratch never written
 *                   gives NaN, not a zero that happens to be right
 *   the checker     every load and store a kernel writes as TL_LD /
 *                   TL_ST (tl_gpu_port.h) is recorded per 4-byte word of
 *                   shared memory and of the global arrays the caller
 *                   watches (tl_gpu_global_watch; tl_gpu_scratch_alloc
 *                   watches its scratch): which block, thread and region
 *                   last wrote and read it. It reports, whatever the
 *                   orders, two threads of a block touching one word in
 *                   one region with at least one store ("race"); two
 *                   blocks touching one word in one launch with at least
 *                   one store ("race-blocks"); a load of a word never
 *                   stored (shared memory in this block; scratch and
 *                   outputs since they were watched: "uninitialized");
 *                   an access outside the (sub-)array its pointer points
 *                   into ("bounds"). tl_gpu_set_check (tridlab/gpu.h),
 *                   on by default (off where the environment has
 *                   TRIDLAB_GPU_CHECK=0, until tl_gpu_set_check)
 *   kernel bugs     a region begun before the previous one met
 *                   TL_BARRIER, a block that ends inside a region, a
 *                   block of 0 or too many threads, the shared-memory
 *                   errors above; the first is kept and reported by
 *                   tl_gpu_launch_status (tridlab/gpu.h), as is a launch
 *                   without memory for its shared memory
 *
 * The orders, their seeds, the watched arrays and the first error
 * belong to the calling thread of the program. What emulation does not
 * check (atomics, warp-synchronous code, accesses not written as TL_LD /
 * TL_ST, code at kernel scope racing a region: docs/gpu.md).
 *
 * tl_gpu_port.h's host branch includes this header and builds
 * TL_REGION, TL_BARRIER, TL_SHARED_ARRAY and TL_LAUNCH on it; a kernel
 * never calls these functions itself. gpu_emulator.c implements them.
 */
#ifndef TL_GPU_EMULATOR_H
#define TL_GPU_EMULATOR_H

#include <stddef.h>

/* Most threads in a block the emulator runs (the GPUs' limit). */
#define TL_GPU_MAX_THREADS 1024

/* Guard words between the sub-arrays TL_SHARED_ARRAY carves (host only):
 * TL_GPU_GUARD bytes of canary before the first and after each, for at
 * most TL_GPU_SHARED_ARRAYS sub-arrays per block. 64 bytes: 8 doubles,
 * enough to catch the off-by-one and off-by-a-few writes. */
#define TL_GPU_GUARD 64
#define TL_GPU_SHARED_ARRAYS 16

/* What the emulator tells one block: its index, its threads, the order
 * in which regions visit them, its shared memory (and the sub-arrays
 * carved from it so far), and the check that every region is closed by
 * a barrier. */
/* What the checker keeps per 4-byte word it watches: the region
 * (numbered across launches) in which `writer` and `reader` touched it
 * (threads; -1 none, -2 several readers), the launch in which `wblock`
 * and `rblock` did (blocks, the same codes), and the life in which it
 * was stored to (a watched array's watch, or a block of the shared
 * memory: numbered, never reused). Every number only grows, so a word
 * whose numbers are old is simply unused: the checker's memory is
 * reused without clearing it. */
typedef struct tl_gpu_word {
  unsigned epoch, launch, stored;
  short writer, reader;
  int wblock, rblock;
} tl_gpu_word;

typedef struct tl_gpu_block {
  long block;         /* blockIdx.x                                   */
  int threads;        /* blockDim.x                                   */
  int thread;         /* the thread running now; -1 at kernel scope   */
  unsigned epoch;     /* the region running now, numbered across launches */
  tl_gpu_word *shadow; /* the checker's words of the shared memory, or NULL */
  unsigned life;       /* this block's number: its shared words' `stored` */
  int *order;         /* a permutation of 0..threads-1 per region     */
  void *shared;       /* the dynamic shared memory of the block       */
  size_t shared_bytes; /* what the launch gave (without the guards)   */
  int carved;         /* sub-arrays carved (TL_SHARED_ARRAY)          */
  size_t guard[TL_GPU_SHARED_ARRAYS]; /* where each one's guard begins */
  size_t start[TL_GPU_SHARED_ARRAYS]; /* and where it begins (host offsets) */
  size_t elem[TL_GPU_SHARED_ARRAYS];  /* the size of its values, in bytes */
  const char *kernel; /* the kernel's name, for messages              */
  void *spill[TL_GPU_SHARED_ARRAYS]; /* carves beyond the launch's bytes */
  int spills;
  int open;           /* 1 inside a region not yet closed by TL_BARRIER */
  int unclosed;       /* set when a region began while one was open   */
  unsigned regions;   /* regions run so far (seeds the shuffles)      */
  unsigned long seed; /* 0: the order is fixed, else shuffled per region */
} tl_gpu_block;

/* Start a region: count it, reshuffle the order, note a missing barrier.
 * Returns 0, the first value of the thread loop. */
int tl_gpu_region_begin(tl_gpu_block *blk);
/* The region's k-th thread in the order into *t (and blk->thread);
 * 0 after the last, when blk->thread becomes -1 (kernel scope). */
int tl_gpu_region_next(tl_gpu_block *blk, int k, int *t);

/* TL_LD and TL_ST on the host: the checker records a load (store = 0)
 * or a store of one value of `size` bytes at base[i] by the running
 * thread, and returns i. Nothing is recorded outside a launch, with the
 * checker off, or for memory neither shared nor watched (a thread's own
 * arrays). */
long tl_gpu_access(const void *base, long i, size_t size, int store);

/* Global arrays the checker watches: count values of `size` bytes at p,
 * named in its reports; `set` 1 when every word already holds a value
 * (the caller's inputs), 0 when a kernel must store a word before it
 * loads it (outputs, scratch: a device's allocation is unset). Watched
 * until tl_gpu_global_forget(p); at most TL_GPU_WATCHED at a time (more
 * are not watched). Arrays over TL_GPU_WATCH_MAX bytes are checked for
 * bounds only. */
#define TL_GPU_WATCHED 32
#define TL_GPU_WATCH_MAX ((size_t)64 << 20)
void tl_gpu_global_watch(const void *p, size_t count, size_t size, const char *name, int set);
void tl_gpu_global_forget(const void *p);

/* Every kind the checker found since the last call, not only the first
 * (which tl_gpu_launch_status reports): bits TL_GPU_FOUND_*. Clears
 * them. For the planted-bug tests: a planted bug may cause several. */
enum {
  TL_GPU_FOUND_RACE = 1,
  TL_GPU_FOUND_RACE_BLOCKS = 2,
  TL_GPU_FOUND_UNINIT = 4,
  TL_GPU_FOUND_BOUNDS = 8
};
unsigned tl_gpu_checker_found(void);

/* TL_SHARED_ARRAY on the host: the next `count` values of `size` bytes
 * of the block's shared memory. *at is the device's offset (kernel
 * scope, advanced past the sub-array; it must be a multiple of `size`,
 * as the device does not align: carve the larger types first); the host
 * puts guard words around it. A carve beyond the
 * launch's bytes is recorded as a kernel bug and gets memory of its own,
 * so that the kernel still runs safely to its end. */
void *tl_gpu_shared_carve(tl_gpu_block *blk, size_t *at, size_t size, size_t count);

/* Global scratch for a kernel, as a device allocates it: unset. count
 * values of `size` bytes, filled with bytes 0xff (NaN in float and
 * double) so that a read of scratch never written shows, and watched by
 * the checker as unset ("scratch"); give it back with
 * tl_gpu_scratch_free. NULL when there is no memory. */
void *tl_gpu_scratch_alloc(size_t count, size_t size);
void tl_gpu_scratch_free(void *p);

/* A launch on the host: the blocks one after the other in the block
 * order, each with the launch's shared memory, poisoned (bytes 0x7f).
 * tl_gpu_launch_next sets up the next block (after checking the one just
 * run) and returns 0 after the last; a kernel bug or no memory is
 * recorded for tl_gpu_launch_status(). */
typedef struct tl_gpu_launch {
  tl_gpu_block blk;
  long grid, next;
  long *blocks; /* the shuffled block order, or NULL: forward or reverse */
  size_t shadow_words; /* of blk.shadow, for giving it back */
  int reverse;  /* blocks from grid-1 down to 0                        */
  int order[TL_GPU_MAX_THREADS];
} tl_gpu_launch;
void tl_gpu_launch_begin(tl_gpu_launch *l, const char *kernel, long grid, int threads,
                         size_t shared_bytes);
int tl_gpu_launch_next(tl_gpu_launch *l);

#endif
