/* optimized/mpi/scratch_mpi.c -- a rank's large scratch arrays, kept
 * from one solve to the next.
 *
 * Between their forward and backward phases the partition algorithms
 * hold a few words per unknown of the whole slice: PDD's and RPDD's
 * spikes (2 words), the modified coefficients of Tridsolver and the
 * hybrid Thomas-PCR (3) and of PTDMA's combined flavour (3), N-shaped's block rows (4),
 * DistD2's plans of a batch whose systems each have their own matrix
 * (5, of one mini-batch at a time). Taken fresh from the system for every solve, those pages are
 * mapped and zeroed by the kernel on first touch, and on this project's
 * machine that cost three to four times the solve itself
 * (docs/performance.md, "MPI"). A rank keeps them instead: one buffer,
 * grown when a solve needs more, zero-filled on every request (the
 * algorithms send zeros for a failed system; tl_mpi_scratch_dirty skips
 * that for a solve that uses only what it wrote), freed by
 * tl_mpi_scratch_release. Per thread, so two threads solving at once do
 * not share one (and each thread releases its own). Growth goes through
 * tl_alloc: memory that runs out is reported as before
 * (tests/mpi/oom_mpi.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* Two buffers per thread: the algorithm's (tl_mpi_scratch, zero-filled)
 * and its caller's (tl_mpi_keep: the grid's gathered lines, around the
 * solve that uses the first). */
enum { ALGORITHM, CALLER, BUFFERS };
static _Thread_local void *kept[BUFFERS];   /* as allocated              */
static _Thread_local char *start[BUFFERS];  /* its first 64-byte boundary */
static _Thread_local size_t kept_bytes[BUFFERS];

/* Buffer k, at least n * size bytes from a 64-byte boundary (a cache
 * line: the batched kernels write whole lines of it with streaming
 * stores, optimized/cpu/lanes.h); zeroed when `zero`. */
static void *kept_buffer(int k, size_t n, size_t size, int zero)
{
  if (size && n > SIZE_MAX / size)
    return NULL;
  size_t bytes = n && size ? n * size : 1;
  if (bytes > kept_bytes[k]) {
    if (bytes > SIZE_MAX - 64)
      return NULL;
    void *p = tl_alloc(bytes + 64, 1); /* calloc: the pages come zeroed */
    if (!p)
      return NULL;
    free(kept[k]);
    kept[k] = p, kept_bytes[k] = bytes;
    start[k] = (char *)p + (64 - (uintptr_t)p % 64) % 64;
    return start[k];
  }
  if (zero)
    memset(start[k], 0, bytes);
  return start[k];
}

void *tl_mpi_scratch(size_t n, size_t size)
{
  return kept_buffer(ALGORITHM, n, size, 1);
}

/* TRIDLAB_SCRATCH_POISON=1 (the tests): every dirty request comes back
 * filled with NaNs (all bits set), so that a solve that reads what it did
 * not write gives NaNs, and fails its test, instead of the last solve's
 * values that may happen to be right. */
static int poison(void)
{
  static _Thread_local int on = -1; /* read once per thread: the tests set it first */
  if (on < 0) {
    const char *v = getenv("TRIDLAB_SCRATCH_POISON");
    on = v && *v && strcmp(v, "0") != 0;
  }
  return on;
}

void *tl_mpi_scratch_dirty(size_t n, size_t size)
{
  void *p = kept_buffer(ALGORITHM, n, size, 0);
  if (p && poison())
    memset(p, 0xff, n && size ? n * size : 1);
  return p;
}

void *tl_mpi_keep(size_t n, size_t size)
{
  return kept_buffer(CALLER, n, size, 0);
}

void tl_mpi_scratch_release(void)
{
  for (int k = 0; k < BUFFERS; k++) {
    free(kept[k]);
    kept[k] = NULL, start[k] = NULL, kept_bytes[k] = 0;
  }
}
