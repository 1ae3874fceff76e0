/* bench/bench_internal.h -- what the files of the benchmark library
 * share: the buffers of one precision and the state of one measurement
 * (tl_bench_ctx). Not installed; users see tridlab/bench.h. */
#ifndef TRIDLAB_BENCH_INTERNAL_H
#define TRIDLAB_BENCH_INTERNAL_H

#include <stddef.h>

#include "tridlab/bench.h"
#include "tridlab/cpu.h"
#include "tridlab/part_distd2.h"

/* The buffers of one precision, `count` elements each. a, b, c, d0 hold
 * a diagonally dominant batch (every entry, corners too); d is what the
 * kernels overwrite; p* are packed copies, LAPACK's work arrays, the
 * reference's output. */
typedef struct tl_bench_buffers {
  size_t count, es;
  void *a, *b, *c, *d, *d0, *pa, *pb, *pc, *pd;
  void *mem[9]; /* what was allocated: each array `offset` bytes further */
} tl_bench_buffers;

int tl_bench_buffers_alloc(tl_bench_buffers *m, size_t count, size_t es);
/* The same with every array `offset` bytes past its 2 MiB boundary (a
 * multiple of es): 16 is where malloc puts a large array. */
int tl_bench_buffers_alloc_at(tl_bench_buffers *m, size_t count, size_t es, size_t offset);
void tl_bench_buffers_free(tl_bench_buffers *m);

struct tl_bench_ctx {
  int fl; /* 1: float */
  size_t n, nsys, unknowns, sz;
  tl_dir dir;
  size_t dims[3];
  tl_bench_buffers *m;
  tl_distd2_plan *plan;
  double st[5];
  int status;                  /* the last kernel status (negative: failed) */
  const tl_bench_kernel *kern; /* the kernel being measured */
};

/* d = d0 (a STREAM copy): restored before every run of every kernel. */
void tl_bench_restore_d(tl_bench_ctx *r);

#endif
