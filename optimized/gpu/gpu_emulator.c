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
  EMUL_SHARED_GUARD = 5, /* a write over a sub-array's guard words */
  /* what the checker sees (tl_gpu_access) */
  EMUL_RACE = 6,        /* two threads of a block, one word, one region */
  EMUL_RACE_BLOCKS = 7, /* two blocks, one word, one launch */
  EMUL_UNINIT = 8,      /* a load of a word never stored */
  EMUL_BOUNDS = 9       /* outside the (sub-)array the pointer is in */
};
static _Thread_local int emul_error;
static _Thread_local char emul_what[240];

/* The checker: on or off, the block running now (NULL outside a
 * launch), the numbers of the launch and of the region running now, and
 * the watched global arrays. */
static _Thread_local int emul_check = -1; /* -1: not yet set, see checking() */
static _Thread_local tl_gpu_block *emul_block;
static _Thread_local unsigned emul_launches, emul_epochs, emul_lives;
typedef struct watched {
  const char *base;
  size_t bytes, size; /* size: of one value, for the index in messages */
  const char *name;
  int set;             /* 1: every word holds a value from the start */
  tl_gpu_word *shadow; /* one per 4-byte word; NULL: bounds only */
  size_t words;        /* of the shadow */
  unsigned life;       /* the watch's number: its words' `stored` */
} watched;
static _Thread_local watched emul_watched[TL_GPU_WATCHED];
static _Thread_local int emul_nwatched;
static _Thread_local unsigned emul_found; /* every kind found: TL_GPU_FOUND_* */

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

const char *tl_gpu_set_order_pair(int k)
{
  static const struct {
    tl_gpu_order threads, blocks;
    unsigned long seed;
    const char *name;
  } pair[TL_GPU_ORDER_PAIRS] = {
      {TL_GPU_FORWARD, TL_GPU_REVERSE, 1, "threads forward, blocks reverse"},
      {TL_GPU_REVERSE, TL_GPU_SHUFFLE, 1, "threads reverse, blocks shuffled"},
      {TL_GPU_SHUFFLE, TL_GPU_FORWARD, 1, "threads shuffled, blocks forward"},
      {TL_GPU_SHUFFLE, TL_GPU_SHUFFLE, 12345, "threads and blocks shuffled (seed 12345)"}};
  if (k < 0 || k >= TL_GPU_ORDER_PAIRS) {
    tl_gpu_set_order(TL_GPU_SHUFFLE, 1);
    tl_gpu_set_block_order(TL_GPU_SHUFFLE, 1);
    return "threads and blocks shuffled (seed 1)";
  }
  tl_gpu_set_order(pair[k].threads, pair[k].seed);
  tl_gpu_set_block_order(pair[k].blocks, pair[k].seed);
  return pair[k].name;
}

void tl_gpu_set_check(int on)
{
  emul_check = on != 0;
}

/* On unless the environment says TRIDLAB_GPU_CHECK=0 (read once per
 * thread, until tl_gpu_set_check). The sanitized test run sets it:
 * there AddressSanitizer watches every access, and the checker, which
 * made the emulated tests 3.4x slower under it, runs in the plain run. */
static int checking(void)
{
  if (emul_check < 0) {
    const char *e = getenv("TRIDLAB_GPU_CHECK");
    emul_check = !(e && strcmp(e, "0") == 0);
  }
  return emul_check;
}

/* Keep the first error only: later ones are often its consequences. */
static void fail(int error)
{
  if (!emul_error)
    emul_error = error;
}

/* A kernel bug with the words that say where: a shared-memory error or
 * a finding of the checker, kept if it is the first error. The checker's
 * kinds are also noted whatever came first (tl_gpu_checker_found). */
static void report(int error, const char *fmt, ...)
{
  if (error >= EMUL_RACE)
    emul_found |= 1u << (error - EMUL_RACE);
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
  case EMUL_RACE: return TL_FAIL(info, TL_ERR_ARG, -1, -1, "race", "gpu checker: %s", emul_what);
  case EMUL_RACE_BLOCKS:
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "race-blocks", "gpu checker: %s", emul_what);
  case EMUL_UNINIT:
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "uninitialized", "gpu checker: %s", emul_what);
  case EMUL_BOUNDS:
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "bounds", "gpu checker: %s", emul_what);
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
  blk->epoch = ++emul_epochs;
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

int tl_gpu_region_next(tl_gpu_block *blk, int k, int *t)
{
  if (k >= blk->threads) {
    blk->thread = -1;
    return 0;
  }
  *t = blk->thread = blk->order[k];
  return 1;
}

void *tl_gpu_scratch_alloc(size_t count, size_t size)
{
  if (size && count > SIZE_MAX / size)
    return NULL;
  size_t bytes = count * size;
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p) { /* a device's allocation is unset: make a read of it show */
    memset(p, POISON_SCRATCH, bytes);
    tl_gpu_global_watch(p, count, size, "scratch", 0);
  }
  return p;
}

void tl_gpu_scratch_free(void *p)
{
  tl_gpu_global_forget(p);
  free(p);
}

/* ---- the checker: what each watched word saw ---- */

/* The checker's words, kept for reuse: a kernel call watches its arrays,
 * then forgets them, call after call. Allocating and zeroing the words
 * each time cost more than the checks (page faults on every call); the
 * numbers in tl_gpu_word make old words harmless, so a block of words
 * goes back to this pool and out again as it is. */
enum { POOL = 8 };
static _Thread_local struct {
  tl_gpu_word *w;
  size_t words;
} emul_pool[POOL];

static tl_gpu_word *words_take(size_t words, size_t *got)
{
  int best = -1;
  for (int k = 0; k < POOL; k++)
    if (emul_pool[k].w && emul_pool[k].words >= words &&
        (best < 0 || emul_pool[k].words < emul_pool[best].words))
      best = k;
  if (best >= 0) {
    tl_gpu_word *w = emul_pool[best].w;
    *got = emul_pool[best].words;
    emul_pool[best].w = NULL;
    return w;
  }
  *got = words;
  return calloc(words > 0 ? words : 1, sizeof(tl_gpu_word)); /* zeros: numbers never used */
}

static void words_give(tl_gpu_word *w, size_t words)
{
  if (!w)
    return;
  int slot = -1;
  for (int k = 0; k < POOL && slot < 0; k++)
    if (!emul_pool[k].w)
      slot = k;
  if (slot < 0) { /* full: drop the smallest, if smaller than this one */
    slot = 0;
    for (int k = 1; k < POOL; k++)
      if (emul_pool[k].words < emul_pool[slot].words)
        slot = k;
    if (emul_pool[slot].words >= words) {
      free(w);
      return;
    }
    free(emul_pool[slot].w);
  }
  emul_pool[slot].w = w;
  emul_pool[slot].words = words;
}

void tl_gpu_global_watch(const void *p, size_t count, size_t size, const char *name, int set)
{
  if (!p)
    return;
  tl_gpu_global_forget(p);
  if (emul_nwatched >= TL_GPU_WATCHED)
    return; /* not watched: said in gpu_emulator.h */
  size_t bytes = count * size, words = (bytes + 3) / 4;
  watched w = {p, bytes, size ? size : 1, name, set, NULL, 0, ++emul_lives};
  if (checking() && bytes <= TL_GPU_WATCH_MAX)
    w.shadow = words_take(words, &w.words);
  /* no memory for the words: the array is checked for bounds only */
  emul_watched[emul_nwatched++] = w;
}

void tl_gpu_global_forget(const void *p)
{
  for (int k = 0; k < emul_nwatched; k++)
    if (emul_watched[k].base == p) {
      words_give(emul_watched[k].shadow, emul_watched[k].words);
      emul_watched[k] = emul_watched[--emul_nwatched];
      return;
    }
}

unsigned tl_gpu_checker_found(void)
{
  unsigned f = emul_found;
  emul_found = 0;
  return f;
}

/* The word a report is about: an array (a watched one's name, or shared
 * sub-array `sub`) and the index of the value in it. Formatted only when
 * there is something to report. */
typedef struct where {
  const char *name; /* NULL: shared memory */
  int sub;
  long index;
} where;

static const char *where_str(const where *at, char *buf, size_t len)
{
  if (at->name)
    snprintf(buf, len, "%s[%ld]", at->name, at->index);
  else
    snprintf(buf, len, "shared sub-array %d, value %ld", at->sub, at->index);
  return buf;
}

/* Who touched a word before, in words: "thread 3", "several threads". */
static const char *who(int id, const char *one, char *buf, size_t len)
{
  if (id == -2)
    snprintf(buf, len, "several %ss", one);
  else
    snprintf(buf, len, "%s %d", one, id);
  return buf;
}

/* Two threads of the running block, one word, one region. */
static void word_threads(tl_gpu_word *w, int store, const where *at)
{
  tl_gpu_block *b = emul_block;
  int t = b->thread;
  char other[32], s[80];
  if (t < 0) { /* kernel scope: every thread of the block runs it */
    if (store)
      report(EMUL_RACE,
             "kernel %s, block %ld: a store to %s at kernel scope, where every thread of the block "
             "runs it (put it in a region, for one thread)",
             b->kernel, b->block, where_str(at, s, sizeof s));
    return;
  }
  if (w->epoch != b->epoch) {
    w->epoch = b->epoch;
    w->writer = w->reader = -1;
  }
  if (store && w->writer >= 0 && w->writer != t)
    report(EMUL_RACE, "kernel %s, block %ld, region %u: threads %d and %d both store to %s",
           b->kernel, b->block, b->regions, w->writer, t, where_str(at, s, sizeof s));
  else if (store && w->reader != -1 && w->reader != t)
    report(EMUL_RACE,
           "kernel %s, block %ld, region %u: thread %d stores to %s, which %s loaded in the same "
           "region",
           b->kernel, b->block, b->regions, t, where_str(at, s, sizeof s),
           who(w->reader, "thread", other, sizeof other));
  else if (!store && w->writer >= 0 && w->writer != t)
    report(EMUL_RACE,
           "kernel %s, block %ld, region %u: thread %d loads %s, which thread %d stored to in the "
           "same region (no barrier between them)",
           b->kernel, b->block, b->regions, t, where_str(at, s, sizeof s), w->writer);
  if (store)
    w->writer = (short)t;
  else
    w->reader = (short)(w->reader == -1 || w->reader == t ? t : -2);
}

/* Two blocks of the launch, one word of global memory. */
static void word_blocks(tl_gpu_word *w, int store, const where *at)
{
  tl_gpu_block *b = emul_block;
  int blk = (int)b->block;
  char other[32], s[80];
  if (w->launch != emul_launches) {
    w->launch = emul_launches;
    w->wblock = w->rblock = -1;
  }
  if (store && w->wblock >= 0 && w->wblock != blk)
    report(EMUL_RACE_BLOCKS, "kernel %s: blocks %d and %d both store to %s in one launch",
           b->kernel, w->wblock, blk, where_str(at, s, sizeof s));
  else if (store && w->rblock != -1 && w->rblock != blk)
    report(EMUL_RACE_BLOCKS, "kernel %s: block %d stores to %s, which %s loaded in the same launch",
           b->kernel, blk, where_str(at, s, sizeof s),
           who(w->rblock, "block", other, sizeof other));
  else if (!store && w->wblock >= 0 && w->wblock != blk)
    report(EMUL_RACE_BLOCKS,
           "kernel %s: block %d loads %s, which block %d stored to in the same launch (blocks run "
           "in any order)",
           b->kernel, blk, where_str(at, s, sizeof s), w->wblock);
  if (store)
    w->wblock = blk;
  else
    w->rblock = w->rblock == -1 || w->rblock == blk ? blk : -2;
}

/* The n words of one access: races, then a load of a word never stored
 * in this life (unless every word is set from the start). */
static void words(tl_gpu_word *w, size_t n, int global, int set, unsigned life, int store,
                  const where *at)
{
  for (size_t k = 0; k < n; k++) {
    word_threads(&w[k], store, at);
    if (global)
      word_blocks(&w[k], store, at);
    if (!store && !set && w[k].stored != life) {
      char s[80];
      report(EMUL_UNINIT, "kernel %s, block %ld, thread %d loads %s, never stored before",
             emul_block->kernel, emul_block->block, emul_block->thread, where_str(at, s, sizeof s));
    }
    if (store)
      w[k].stored = life;
  }
}

/* Where an access outside its array goes once the checker has reported
 * it: a word of its own, so that the kernel runs on to the end of the
 * launch without reading or writing anyone's memory (a wild index would
 * otherwise crash the program before the report is read). The index is
 * the distance to it in values of the access's size; the sink is
 * aligned for any of them. */
static _Thread_local union {
  long double align;
  long long words[8];
} emul_sink;

static long sink_index(uintptr_t base, long i, size_t size)
{
  uintptr_t to = (uintptr_t)&emul_sink;
  intptr_t gap = (intptr_t)(to - base);
  return gap % (intptr_t)size == 0 ? (long)(gap / (intptr_t)size) : i;
}

/* A shared-memory access, base and the value at host offsets boff and
 * off: within the sub-array base points into, then its words. Returns 0
 * when it is outside. */
static int shared_access(tl_gpu_block *b, uintptr_t boff, uintptr_t off, long i, size_t size,
                         int store)
{
  int k = 0, carved = b->carved < TL_GPU_SHARED_ARRAYS ? b->carved : TL_GPU_SHARED_ARRAYS;
  uintptr_t lo = 0, hi = b->shared_bytes, elem = size; /* no sub-arrays: the whole buffer */
  if (carved) {
    while (k < carved && !(boff >= b->start[k] && boff < b->guard[k]))
      k++;
    if (k == carved) {
      report(EMUL_BOUNDS,
             "kernel %s, block %ld, thread %d: a pointer into shared memory outside every "
             "sub-array (in the guard words after one)",
             b->kernel, b->block, b->thread);
      return 0;
    }
    lo = b->start[k], hi = b->guard[k], elem = b->elem[k];
  }
  if (off < lo || off + size > hi) {
    report(EMUL_BOUNDS,
           "kernel %s, block %ld, thread %d: index %ld from a pointer into shared sub-array %d "
           "falls outside it (%zu values)",
           b->kernel, b->block, b->thread, i, k, (size_t)((hi - lo) / elem));
    return 0;
  }
  where at = {NULL, k, (long)((off - lo) / elem)};
  if (b->shadow)
    words(b->shadow + off / 4, (off % 4 + size + 3) / 4, 0, 0, b->life, store, &at);
  return 1;
}

long tl_gpu_access(const void *base, long i, size_t size, int store)
{
  tl_gpu_block *b = emul_block;
  if (!b || !checking())
    return i;
  uintptr_t p = (uintptr_t)base, a = p + (uintptr_t)(i * (long)size);
  uintptr_t sh = (uintptr_t)b->shared;
  uintptr_t host = b->shared_bytes + TL_GPU_SHARED_ARRAYS * (uintptr_t)TL_GPU_GUARD;
  if (sh && p >= sh && p < sh + host)
    return shared_access(b, p - sh, a - sh, i, size, store) ? i : sink_index(p, i, size);
  for (int k = 0; k < emul_nwatched; k++) {
    watched *w = &emul_watched[k];
    uintptr_t lo = (uintptr_t)w->base, hi = lo + w->bytes;
    if (p < lo || p >= hi)
      continue;
    if (a < lo || a + size > hi) {
      report(EMUL_BOUNDS,
             "kernel %s, block %ld, thread %d: index %ld from a pointer into %s falls outside it "
             "(%zu values)",
             b->kernel, b->block, b->thread, i, w->name, w->bytes / w->size);
      return sink_index(p, i, size);
    }
    if (w->shadow) {
      where at = {w->name, 0, (long)((a - lo) / w->size)};
      words(w->shadow + (a - lo) / 4, ((a - lo) % 4 + size + 3) / 4, 1, w->set, w->life, store,
            &at);
    }
    return i;
  }
  return i; /* a thread's own memory, or memory nobody watches */
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
    report(EMUL_SHARED_CARVE,
           "kernel %s carves shared sub-array %d at byte %zu, not a multiple of its type's "
           "%zu bytes (carve the larger types first)",
           blk->kernel, k, start, size);
  if (end > blk->shared_bytes || k >= TL_GPU_SHARED_ARRAYS) {
    /* Beyond what the launch gave (or more sub-arrays than guards): a
     * kernel bug. The sub-array gets memory of its own, poisoned, so that
     * the kernel runs on safely to the end of the block. */
    report(EMUL_SHARED_CARVE,
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
  blk->start[k] = start + (size_t)k * TL_GPU_GUARD;
  blk->elem[k] = size ? size : 1;
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
    report(EMUL_SHARED_GUARD,
           "kernel %s, block %ld: a write before the start of its shared memory (the guard "
           "before sub-array 0 was overwritten)",
           b->kernel, b->block);
  int carved = b->carved < TL_GPU_SHARED_ARRAYS ? b->carved : TL_GPU_SHARED_ARRAYS;
  for (int k = 0; k < carved; k++)
    if (!guard_intact(base + b->guard[k]))
      report(EMUL_SHARED_GUARD,
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
    report(EMUL_SHARED_LIMIT,
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
  size_t got = 0;
  if (checking()) /* the checker's words of shared memory, past the first guard */
    l->blk.shadow = words_take(shared_host_bytes(shared_bytes) / 4 + 1, &got);
  l->shadow_words = got;
  if (!host || (checking() && !l->blk.shadow) || block_order_begin(l) != TL_OK) {
    fail(TL_ERR_NOMEM);
    free(host);
    words_give(l->blk.shadow, got);
    l->blk.shared = NULL;
    l->blk.shadow = NULL;
    l->grid = 0;
    return;
  }
  emul_launches++;
  emul_block = &l->blk;
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
    words_give(b->shadow, l->shadow_words);
    b->shadow = NULL;
    free(l->blocks);
    l->blocks = NULL;
    emul_block = NULL;
    return 0;
  }
  b->block = block_at(l, l->next++);
  b->thread = -1;
  b->life = ++emul_lives; /* shared memory starts unset in every block */
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
