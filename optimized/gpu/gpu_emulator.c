/* optimized/gpu/gpu_emulator.c -- the host grid that runs the GPU
 * kernels where no device does: the orders in which a launch visits its
 * blocks and a region a block's threads, the launch (each block with its
 * shared memory poisoned and its sub-arrays guarded), poisoned global
 * scratch, and the checks of a launch: every region ends at a barrier,
 * shared memory within the device's limit and within each sub-array.
 * What it emulates and how: gpu_emulator.h.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_gpu_port.h"
#include "tridlab/backend.h"
#include "tridlab/gpu.h"

/* The calling thread's orders, their seeds, and the first launch error. */
static _Thread_local tl_gpu_order emul_order = TL_GPU_SHUFFLE;
static _Thread_local unsigned long emul_seed = 1;
static _Thread_local tl_gpu_order emul_block_order = TL_GPU_SHUFFLE;
static _Thread_local unsigned long emul_block_seed = 1;
/* The first launch error: 0, TL_ERR_NOMEM, or one of these kernel bugs,
 * with the words that say where (emul_what). */
enum {
  EMUL_NO_BARRIER = 1,
  EMUL_BAD_THREADS = 2,
  EMUL_SHARED_LIMIT = 3, /* a launch asked for more than TL_GPU_SHARED_MAX */
  EMUL_SHARED_CARVE = 4, /* sub-arrays beyond the launch's shared memory */
  EMUL_SHARED_GUARD = 5  /* a write over a sub-array's guard words */
};
static _Thread_local int emul_error;
static _Thread_local char emul_what[160];

/* Bytes that fill what a device leaves unset: shared memory (0x7f:
 * doubles near 1.4e306, floats near 3.4e38), global scratch (0xff: NaN
 * in both precisions), and the canary of the guard words (0xa5). */
enum { POISON_SHARED = 0x7f, POISON_SCRATCH = 0xff, CANARY = 0xa5 };

void tl_gpu_set_order(tl_gpu_order order, unsigned long seed)
{
  emul_order = order;
  emul_seed = seed ? seed : 1;
}

void tl_gpu_set_block_order(tl_gpu_order order, unsigned long seed)
{
  emul_block_order = order;
  emul_block_seed = seed ? seed : 1;
}

/* Keep the first error only: later ones are often its consequences. */
static void fail(int error)
{
  if (!emul_error)
    emul_error = error;
}

/* A shared-memory error, with the words that say where. */
static void fail_shared(int error, const char *fmt, ...)
{
  if (emul_error)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(emul_what, sizeof emul_what, fmt, ap);
  va_end(ap);
  emul_error = error;
}

int tl_gpu_launch_status(tl_info *info)
{
  int e = emul_error;
  emul_error = 0;
  switch (e) {
  case 0:
    return TL_OK;
  case TL_ERR_NOMEM:
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "gpu emulation: no memory for a launch");
  case EMUL_BAD_THREADS:
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "threads",
                   "gpu emulation: a launch asked for a block of threads outside 1 .. %d",
                   TL_GPU_MAX_THREADS);
  case EMUL_SHARED_LIMIT:
  case EMUL_SHARED_CARVE:
  case EMUL_SHARED_GUARD:
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "shared", "gpu emulation: %s", emul_what);
  default:
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "kernel",
                   "gpu emulation: a region was not closed by TL_BARRIER before the next region "
                   "or the end of the kernel (a kernel bug: on a GPU the regions would overlap)");
  }
}

/* splitmix64: the shuffles are the same on every machine. */
static uint64_t mix(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

int tl_gpu_region_begin(tl_gpu_block *blk)
{
  if (blk->open)
    blk->unclosed = 1;
  blk->open = 1;
  blk->regions++;
  if (blk->seed) { /* Fisher-Yates, seeded by (seed, block, region) */
    uint64_t st = blk->seed * 0x100000001b3u ^ (uint64_t)blk->block << 20 ^ blk->regions;
    for (int k = blk->threads - 1; k > 0; k--) {
      int j = (int)(mix(&st) % (uint64_t)(k + 1)), v = blk->order[k];
      blk->order[k] = blk->order[j];
      blk->order[j] = v;
    }
  }
  return 0;
}

void *tl_gpu_scratch_alloc(size_t count, size_t size)
{
  if (size && count > SIZE_MAX / size)
    return NULL;
  size_t bytes = count * size;
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p) /* a device's allocation is unset: make a read of it show */
    memset(p, POISON_SCRATCH, bytes);
  return p;
}

/* ---- shared memory: the buffer, its sub-arrays and their guards ---- */

/* The host buffer of a block: a guard, then the launch's bytes with a
 * guard after each sub-array (TL_GPU_SHARED_ARRAYS at most). blk->shared
 * points past the first guard, so TL_SHARED_MEM and the first sub-array
 * begin where they begin on the device. */
static size_t shared_host_bytes(size_t shared_bytes)
{
  return shared_bytes + (TL_GPU_SHARED_ARRAYS + 1) * (size_t)TL_GPU_GUARD;
}

void *tl_gpu_shared_carve(tl_gpu_block *blk, size_t *at, size_t size, size_t count)
{
  size_t start = *at, end = start + size * count; /* the device's offsets */
  *at = end;
  int k = blk->carved++;
  if (size && start % size) /* the device does not align: carve larger types first */
    fail_shared(EMUL_SHARED_CARVE,
                "kernel %s carves shared sub-array %d at byte %zu, not a multiple of its type's "
                "%zu bytes (carve the larger types first)",
                blk->kernel, k, start, size);
  if (end > blk->shared_bytes || k >= TL_GPU_SHARED_ARRAYS) {
    /* Beyond what the launch gave (or more sub-arrays than guards): a
     * kernel bug. The sub-array gets memory of its own, poisoned, so that
     * the kernel runs on safely to the end of the block. */
    fail_shared(EMUL_SHARED_CARVE,
                "kernel %s carves shared sub-array %d up to byte %zu, beyond the %zu bytes of "
                "its launch (or more than %d sub-arrays)",
                blk->kernel, k, end, blk->shared_bytes, TL_GPU_SHARED_ARRAYS);
    size_t bytes = size * count;
    void *p = blk->spills < TL_GPU_SHARED_ARRAYS ? malloc(bytes > 0 ? bytes : 1) : NULL;
    if (p) {
      memset(p, POISON_SHARED, bytes);
      blk->spill[blk->spills++] = p;
    }
    return p;
  }
  /* Sub-array k sits k guards further than on the device; its guard
   * follows it, before sub-array k + 1. */
  char *base = (char *)blk->shared;
  blk->guard[k] = end + (size_t)k * TL_GPU_GUARD;
  memset(base + blk->guard[k], CANARY, TL_GPU_GUARD);
  return base + start + (size_t)k * TL_GPU_GUARD;
}

/* 1 when the TL_GPU_GUARD bytes at p are all canary. */
static int guard_intact(const unsigned char *p)
{
  for (int k = 0; k < TL_GPU_GUARD; k++)
    if (p[k] != CANARY)
      return 0;
  return 1;
}

/* After a block: its guards (the one before the buffer, the one after
 * each sub-array) must be intact; free the spilled sub-arrays. */
static void shared_check(tl_gpu_block *b)
{
  const unsigned char *base = b->shared;
  if (!guard_intact(base - TL_GPU_GUARD))
    fail_shared(EMUL_SHARED_GUARD,
                "kernel %s, block %ld: a write before the start of its shared memory (the guard "
                "before sub-array 0 was overwritten)",
                b->kernel, b->block);
  int carved = b->carved < TL_GPU_SHARED_ARRAYS ? b->carved : TL_GPU_SHARED_ARRAYS;
  for (int k = 0; k < carved; k++)
    if (!guard_intact(base + b->guard[k]))
      fail_shared(EMUL_SHARED_GUARD,
                  "kernel %s, block %ld: shared sub-array %d overflowed (a write past its end, "
                  "or before the start of sub-array %d, hit the guard words between them)",
                  b->kernel, b->block, k, k + 1);
  for (int k = 0; k < b->spills; k++)
    free(b->spill[k]);
  b->spills = 0;
}

/* ---- the launch ---- */

/* The block order of a launch: forward and reverse need nothing; a
 * shuffle is a Fisher-Yates permutation of the grid seeded by (seed,
 * grid), the same on every machine. */
static int block_order_begin(tl_gpu_launch *l)
{
  l->reverse = emul_block_order == TL_GPU_REVERSE;
  l->blocks = NULL;
  if (emul_block_order != TL_GPU_SHUFFLE || l->grid < 2)
    return TL_OK;
  if (!(l->blocks = malloc((size_t)l->grid * sizeof *l->blocks)))
    return TL_ERR_NOMEM;
  for (long k = 0; k < l->grid; k++)
    l->blocks[k] = k;
  uint64_t st = emul_block_seed * 0x9e3779b97f4a7c15u ^ (uint64_t)l->grid;
  for (long k = l->grid - 1; k > 0; k--) {
    long j = (long)(mix(&st) % (uint64_t)(k + 1)), v = l->blocks[k];
    l->blocks[k] = l->blocks[j];
    l->blocks[j] = v;
  }
  return TL_OK;
}

/* The launch's k-th block in the block order. */
static long block_at(const tl_gpu_launch *l, long k)
{
  return l->blocks ? l->blocks[k] : l->reverse ? l->grid - 1 - k : k;
}

void tl_gpu_launch_begin(tl_gpu_launch *l, const char *kernel, long grid, int threads,
                         size_t shared_bytes)
{
  memset(&l->blk, 0, sizeof l->blk);
  l->grid = grid;
  l->next = 0;
  l->blocks = NULL;
  l->blk.kernel = kernel;
  l->blk.shared_bytes = shared_bytes;
  if (threads < 1 || threads > TL_GPU_MAX_THREADS) {
    fail(EMUL_BAD_THREADS);
    l->grid = 0;
    return;
  }
  if (shared_bytes > TL_GPU_SHARED_MAX) { /* a device refuses the launch */
    fail_shared(EMUL_SHARED_LIMIT,
                "kernel %s asks for %zu bytes of shared memory per block, more than the "
                "device's %zu (TL_GPU_SHARED_MAX); nothing ran",
                kernel, shared_bytes, TL_GPU_SHARED_MAX);
    l->grid = 0;
    return;
  }
  l->blk.threads = threads;
  l->blk.order = l->order;
  l->blk.seed = emul_order == TL_GPU_SHUFFLE ? emul_seed : 0;
  char *host = malloc(shared_host_bytes(shared_bytes));
  l->blk.shared = host ? host + TL_GPU_GUARD : NULL;
  if (!host || block_order_begin(l) != TL_OK) {
    fail(TL_ERR_NOMEM);
    free(host);
    l->blk.shared = NULL;
    l->grid = 0;
  }
}

/* Close the block just run (its last region must have met a barrier,
 * its guards must be intact), then set up the next one in the block
 * order; 0 when the grid is done. */
int tl_gpu_launch_next(tl_gpu_launch *l)
{
  tl_gpu_block *b = &l->blk;
  if (l->next > 0) {
    if (b->open || b->unclosed)
      fail(EMUL_NO_BARRIER);
    shared_check(b);
  }
  if (l->next >= l->grid) {
    free(b->shared ? (char *)b->shared - TL_GPU_GUARD : NULL);
    b->shared = NULL;
    free(l->blocks);
    l->blocks = NULL;
    return 0;
  }
  b->block = block_at(l, l->next++);
  b->open = b->unclosed = 0;
  b->regions = 0;
  b->carved = 0;
  for (int k = 0; k < b->threads; k++)
    b->order[k] = emul_order == TL_GPU_REVERSE ? b->threads - 1 - k : k;
  /* A device leaves shared memory as the last block left it: fill it
   * with bytes 0x7f (doubles near 1.4e306, floats near 3.4e38, ints
   * 2139062143), so that a kernel reading what it never wrote gives a
   * wrong, visibly odd answer here too, instead of a zero that happens
   * to be right. The guard before it gets its canary; the guards after
   * the sub-arrays get theirs as the kernel carves them. */
  char *host = (char *)b->shared - TL_GPU_GUARD;
  memset(host, CANARY, TL_GPU_GUARD);
  memset(b->shared, POISON_SHARED, shared_host_bytes(l->blk.shared_bytes) - TL_GPU_GUARD);
  return 1;
}
