/* optimized/gpu/gpu_emulator.c -- the host grid that runs the GPU
 * kernels where no device does: the orders in which a region visits a
 * block's threads, the launch (the blocks one after the other, each
 * with its shared memory poisoned), and the check that every region
 * ends at a barrier. What it emulates and how: gpu_emulator.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_emulator.h"
#include "tridlab/backend.h"
#include "tridlab/gpu.h"

/* The calling thread's order, seed, and the first launch error. */
static _Thread_local tl_gpu_order emul_order = TL_GPU_SHUFFLE;
static _Thread_local unsigned long emul_seed = 1;
/* The first launch error: 0, TL_ERR_NOMEM, or one of these kernel bugs. */
enum { EMUL_NO_BARRIER = 1, EMUL_BAD_THREADS = 2 };
static _Thread_local int emul_error;

void tl_gpu_set_order(tl_gpu_order order, unsigned long seed)
{
  emul_order = order;
  emul_seed = seed ? seed : 1;
}

int tl_gpu_launch_status(tl_info *info)
{
  int e = emul_error;
  emul_error = 0;
  if (e == TL_ERR_NOMEM)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "gpu emulation: no memory for shared memory");
  if (e == EMUL_BAD_THREADS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "threads",
                   "gpu emulation: a launch asked for a block of threads outside 1 .. %d",
                   TL_GPU_MAX_THREADS);
  if (e)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "kernel",
                   "gpu emulation: a region was not closed by TL_BARRIER before the next region "
                   "or the end of the kernel (a kernel bug: on a GPU the regions would overlap)");
  return TL_OK;
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

void tl_gpu_launch_begin(tl_gpu_launch *l, long grid, int threads, size_t shared_bytes)
{
  memset(&l->blk, 0, sizeof l->blk);
  l->grid = grid;
  l->next = 0;
  l->shared_bytes = shared_bytes;
  if (threads < 1 || threads > TL_GPU_MAX_THREADS) {
    emul_error = EMUL_BAD_THREADS;
    l->grid = 0;
    return;
  }
  l->blk.threads = threads;
  l->blk.order = l->order;
  l->blk.seed = emul_order == TL_GPU_SHUFFLE ? emul_seed : 0;
  l->blk.shared = shared_bytes ? malloc(shared_bytes) : NULL;
  if (shared_bytes && !l->blk.shared) {
    emul_error = TL_ERR_NOMEM;
    l->grid = 0;
  }
}

/* Close the block just run (its last region must have met a barrier),
 * then set up the next one; 0 when the grid is done. */
int tl_gpu_launch_next(tl_gpu_launch *l)
{
  if (l->next > 0 && (l->blk.open || l->blk.unclosed) && !emul_error)
    emul_error = EMUL_NO_BARRIER;
  if (l->next >= l->grid) {
    free(l->blk.shared);
    l->blk.shared = NULL;
    return 0;
  }
  tl_gpu_block *b = &l->blk;
  b->block = l->next++;
  b->open = b->unclosed = 0;
  b->regions = 0;
  for (int k = 0; k < b->threads; k++)
    b->order[k] = emul_order == TL_GPU_REVERSE ? b->threads - 1 - k : k;
  /* A device leaves shared memory as the last block left it: fill it
   * with bytes 0x7f (doubles near 1.4e306, floats near 3.4e38, ints
   * 2139062143), so that a kernel reading what it never wrote gives a
   * wrong, visibly odd answer here too, instead of a zero that happens
   * to be right. */
  if (b->shared)
    memset(b->shared, 0x7f, l->shared_bytes);
  return 1;
}
