/* bench/bench_kernels.c -- the table of kernels of the benchmark library
 * (tridlab/bench.h) and the buffers they run on.
 *
 * Each kernel declares the words it must move per unknown (its byte
 * model, docs/design.md §7) and its same-traffic limit kernel: a streaming
 * kernel over exactly its arrays, read, written or read-modify-written the
 * same way, element-wise, with no recurrence -- the real limit for that
 * access pattern (a STREAM copy understates it: its writes cost a
 * write-allocate read). A kernel joins the table with a run function, its
 * limit, its untimed restore and its byte model (docs/design.md §1).
 */
#define _DEFAULT_SOURCE /* madvise */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_internal.h"
#include "tridlab/algorithms.h"
#include "tridlab/registry.h"
#include "tridlab/system.h"

/* ---------------------------------------------------------------- */
/* Data                                                               */

void tl_bench_buffers_free(tl_bench_buffers *m)
{
  for (size_t k = 0; k < sizeof m->mem / sizeof m->mem[0]; k++)
    free(m->mem[k]);
  memset(m, 0, sizeof *m);
}

/* A value in [0, 1) from an index: the same numbers on every machine. */
static double hash01(size_t k, unsigned salt)
{
  unsigned long long z =
      (unsigned long long)k * 0x9E3779B97F4A7C15ull + salt * 0xBF58476D1CE4E5B9ull;
  z ^= z >> 31;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 29;
  return (double)(z >> 11) * 0x1p-53;
}

int tl_bench_buffers_alloc(tl_bench_buffers *m, size_t count, size_t es)
{
  return tl_bench_buffers_alloc_at(m, count, es, 0);
}

int tl_bench_buffers_alloc_at(tl_bench_buffers *m, size_t count, size_t es, size_t offset)
{
  memset(m, 0, sizeof *m);
  m->count = count;
  m->es = es;
  void **all[] = {&m->a, &m->b, &m->c, &m->d, &m->d0, &m->pa, &m->pb, &m->pc, &m->pd};
  /* 2 MiB aligned, and transparent huge pages asked for where the system
   * offers them: a solve along z touches a new 4 KiB page every row of
   * every array, so with small pages the strided kernels would measure
   * TLB misses as much as memory. The limit kernels use the same arrays. */
  size_t huge = (size_t)2 << 20, bytes = (count * es + offset + huge - 1) / huge * huge;
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    if (!(m->mem[k] = aligned_alloc(huge, bytes))) {
      tl_bench_buffers_free(m);
      return -1;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(m->mem[k], bytes, MADV_HUGEPAGE);
#endif
    *all[k] = (char *)m->mem[k] + offset;
  }
  /* First touch by the kernels' threads and schedule (static split). */
  double *fa = m->a, *fb = m->b, *fc = m->c, *fd = m->d0;
  float *ga = m->a, *gb = m->b, *gc = m->c, *gd = m->d0;
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < count; k++) {
    double va = 0.25 + 0.125 * hash01(k, 1), vc = 0.25 + 0.125 * hash01(k, 2);
    double vb = 2.0 + 0.5 * hash01(k, 3), vd = hash01(k, 4) - 0.5;
    if (es == sizeof(double)) {
      fa[k] = va, fb[k] = vb, fc[k] = vc, fd[k] = vd;
      ((double *)m->d)[k] = vd;
      ((double *)m->pa)[k] = ((double *)m->pb)[k] = ((double *)m->pc)[k] = ((double *)m->pd)[k] =
          0.0;
    } else {
      ga[k] = (float)va, gb[k] = (float)vb, gc[k] = (float)vc, gd[k] = (float)vd;
      ((float *)m->d)[k] = (float)vd;
      ((float *)m->pa)[k] = ((float *)m->pb)[k] = ((float *)m->pc)[k] = ((float *)m->pd)[k] = 0.0f;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- */
/* Kernels                                                            */

void tl_bench_restore_d(tl_bench_ctx *r)
{
  if (r->fl)
    tl_cpu_stream_copy_f(r->unknowns, r->m->d0, r->m->d);
  else
    tl_cpu_stream_copy_d(r->unknowns, r->m->d0, r->m->d);
}

static void restore_lapack(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  if (r->fl) {
    tl_cpu_stream_copy_f(r->unknowns, m->a, m->pa);
    tl_cpu_stream_copy_f(r->unknowns, m->b, m->pb);
    tl_cpu_stream_copy_f(r->unknowns, m->c, m->pc);
    tl_cpu_stream_copy_f(r->unknowns, m->d0, m->pd);
  } else {
    tl_cpu_stream_copy_d(r->unknowns, m->a, m->pa);
    tl_cpu_stream_copy_d(r->unknowns, m->b, m->pb);
    tl_cpu_stream_copy_d(r->unknowns, m->c, m->pc);
    tl_cpu_stream_copy_d(r->unknowns, m->d0, m->pd);
  }
}

static void no_restore(tl_bench_ctx *r)
{
  (void)r;
}

static void limit_abcd(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  if (r->fl)
    tl_cpu_stream_abcd_f(r->unknowns, m->a, m->b, m->c, m->d);
  else
    tl_cpu_stream_abcd_d(r->unknowns, m->a, m->b, m->c, m->d);
}

/* The registry backends read d0 and write x = d (tl_solve's x may not
 * overlap its input): the stream of that pattern. */
static void limit_abcdx(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_cpu_stream_abcdx_d(r->unknowns, m->a, m->b, m->c, m->d0, m->d);
}

static void limit_stencil(tl_bench_ctx *r)
{
  size_t groups = r->nsys / r->sz;
  if (r->fl)
    tl_cpu_stream_stencil_f(r->n, groups, r->sz, r->st, r->m->d0, r->m->d);
  else
    tl_cpu_stream_stencil_d(r->n, groups, r->sz, r->st, r->m->d0, r->m->d);
}

static void run_thomas_sz(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_info info;
  r->status = r->fl ? tl_cpu_thomas_sz_f(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info)
                    : tl_cpu_thomas_sz_d(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info);
}

static void run_thomas_3d(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_info info;
  r->status = r->fl
                  ? tl_cpu_thomas_3d_f(r->dims, r->dir, r->sz, m->a, m->b, m->c, m->d, m->d, &info)
                  : tl_cpu_thomas_3d_d(r->dims, r->dir, r->sz, m->a, m->b, m->c, m->d, m->d, &info);
}

static void run_thomas_naive(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_info info;
  r->status = r->fl
                  ? tl_cpu_thomas_3d_naive_f(r->dims, r->dir, m->a, m->b, m->c, m->d, m->d, &info)
                  : tl_cpu_thomas_3d_naive_d(r->dims, r->dir, m->a, m->b, m->c, m->d, m->d, &info);
}

static void run_thomas_reorder(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_info info;
  int st = 0;
  if (r->fl) {
    st |= tl_cpu_pack_3d_f(r->dims, r->dir, r->sz, m->a, m->pa, 0.0f, &info);
    st |= tl_cpu_pack_3d_f(r->dims, r->dir, r->sz, m->b, m->pb, 1.0f, &info);
    st |= tl_cpu_pack_3d_f(r->dims, r->dir, r->sz, m->c, m->pc, 0.0f, &info);
    st |= tl_cpu_pack_3d_f(r->dims, r->dir, r->sz, m->d, m->pd, 0.0f, &info);
    st |= tl_cpu_thomas_sz_f(r->n, r->nsys, r->sz, m->pa, m->pb, m->pc, m->pd, &info);
    st |= tl_cpu_unpack_3d_f(r->dims, r->dir, r->sz, m->pd, m->d, &info);
  } else {
    st |= tl_cpu_pack_3d_d(r->dims, r->dir, r->sz, m->a, m->pa, 0.0, &info);
    st |= tl_cpu_pack_3d_d(r->dims, r->dir, r->sz, m->b, m->pb, 1.0, &info);
    st |= tl_cpu_pack_3d_d(r->dims, r->dir, r->sz, m->c, m->pc, 0.0, &info);
    st |= tl_cpu_pack_3d_d(r->dims, r->dir, r->sz, m->d, m->pd, 0.0, &info);
    st |= tl_cpu_thomas_sz_d(r->n, r->nsys, r->sz, m->pa, m->pb, m->pc, m->pd, &info);
    st |= tl_cpu_unpack_3d_d(r->dims, r->dir, r->sz, m->pd, m->d, &info);
  }
  r->status = st ? -1 : 0;
}

static void run_periodic(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_info info;
  r->status =
      r->fl ? tl_cpu_thomas_periodic_sz_f(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info)
            : tl_cpu_thomas_periodic_sz_d(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info);
}

static void run_compact(tl_bench_ctx *r)
{
  tl_info info;
  r->status = r->fl ? tl_cpu_compact_sz_f(r->plan, r->st, r->nsys, r->sz, r->m->d0, r->m->d, &info)
                    : tl_cpu_compact_sz_d(r->plan, r->st, r->nsys, r->sz, r->m->d0, r->m->d, &info);
}

/* The reference, one system per iteration, threads over systems. */
static void run_ref_loop(tl_bench_ctx *r)
{
  const double *a = r->m->a, *b = r->m->b, *c = r->m->c, *d = r->m->d0;
  double *x = r->m->pd;
  size_t n = r->n;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
  for (size_t s = 0; s < r->nsys; s++) {
    size_t o = s * n;
    /* corners are part of the data; the reference ignores them */
    bad |= tl_thomas_ref_d(n, a + o, b + o, c + o, d + o, x + o, NULL) < 0;
  }
  r->status = bad ? -1 : 0;
}

/* LAPACK xGTSV (partial pivoting) on copies of the batch, in place; the
 * _work entry point, so LAPACKE does not first scan the inputs for NaN. */
static void run_gtsv_loop(tl_bench_ctx *r)
{
  size_t n = r->n;
  int bad = 0;
  lapack_int ln = (lapack_int)n;
  if (r->fl) {
    float *dl = r->m->pa, *dd = r->m->pb, *du = r->m->pc, *rhs = r->m->pd;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (size_t s = 0; s < r->nsys; s++) {
      size_t o = s * n;
      bad |=
          LAPACKE_sgtsv_work(LAPACK_COL_MAJOR, ln, 1, dl + o + 1, dd + o, du + o, rhs + o, ln) != 0;
    }
  } else {
    double *dl = r->m->pa, *dd = r->m->pb, *du = r->m->pc, *rhs = r->m->pd;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (size_t s = 0; s < r->nsys; s++) {
      size_t o = s * n;
      bad |=
          LAPACKE_dgtsv_work(LAPACK_COL_MAJOR, ln, 1, dl + o + 1, dd + o, du + o, rhs + o, ln) != 0;
    }
  }
  r->status = bad ? -1 : 0;
}

/* The registry backend thomas_cpu on the batch, as a user calls it:
 * tl_solve validates the input, thomas_cpu checks each system's domain
 * and solves. The registry rejects non-zero corners, so the batch's a
 * and c are copies with a[0] = c[n-1] = 0 (made by the untimed restore). */
static void restore_registry(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  double *a = m->pa, *c = m->pc;
  tl_cpu_stream_copy_d(r->unknowns, m->a, a);
  tl_cpu_stream_copy_d(r->unknowns, m->c, c);
  for (size_t s = 0; s < r->nsys; s++)
    a[s * r->n] = c[s * r->n + r->n - 1] = 0.0;
}

static void run_registry(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_batch sys = {
      .dtype = TL_F64, .n = r->n, .nsys = r->nsys, .a = m->pa, .b = m->b, .c = m->pc, .d = m->d0};
  tl_info info;
  r->status = tl_solve(tl_find("thomas_cpu"), &sys, m->d, NULL, &info) == TL_OK ? 0 : -1;
}

/* The registry backend thomas_periodic_cpu on the batch read as periodic
 * systems (the corners are part of the data), through tl_solve. */
static void run_registry_periodic(tl_bench_ctx *r)
{
  tl_bench_buffers *m = r->m;
  tl_batch sys = {.dtype = TL_F64,
                  .n = r->n,
                  .nsys = r->nsys,
                  .periodic = 1,
                  .a = m->a,
                  .b = m->b,
                  .c = m->c,
                  .d = m->d0};
  tl_info info;
  r->status = tl_solve(tl_find("thomas_periodic_cpu"), &sys, m->d, NULL, &info) == TL_OK ? 0 : -1;
}

#define ABCD "read a b c, read-write d (tl_cpu_stream_abcd)"
#define ABCDX "read a b c d, write a separate x (tl_cpu_stream_abcdx)"
static const tl_bench_kernel kernels[] = {
    {"thomas_sz", "SZ-packed in-place Thomas", "read a b c d, write d", 5, ABCD, 0, 1, 0,
     run_thomas_sz, limit_abcd, tl_bench_restore_d, 0},
    {"thomas_3d", "Cartesian arrays along x, y, z, reordered in cache", "read a b c d, write d", 5,
     ABCD, 1, 1, 0, run_thomas_3d, limit_abcd, tl_bench_restore_d, 0},
    {"thomas_3d_naive", "Cartesian arrays, no reordering: the baseline", "read a b c d, write d", 5,
     ABCD, 1, 0, 0, run_thomas_naive, limit_abcd, tl_bench_restore_d, 0},
    {"thomas_sz_reorder", "pack a b c d from Cartesian, thomas_sz, unpack d (moves more)",
     "read a b c d, write d", 5, ABCD, 1, 1, 0, run_thomas_reorder, limit_abcd, tl_bench_restore_d,
     0},
    {"thomas_periodic_sz", "SZ-packed periodic Thomas, in place", "read a b c d, write d", 5, ABCD,
     0, 1, 0, run_periodic, limit_abcd, tl_bench_restore_d, 0},
    {"compact_sz", "fused 6th-order compact derivative, periodic", "read u, write du", 2,
     "read u, write du, the same stencil (tl_cpu_stream_stencil)", 0, 1, 0, run_compact,
     limit_stencil, no_restore, 0},
    {"thomas_ref_loop", "reference thomas, one system after another", "read a b c d, write x", 5,
     ABCD, 0, 0, 1, run_ref_loop, limit_abcd, no_restore, 1},
    {"gtsv_loop", "LAPACK DGTSV / SGTSV, one system after another (moves more)",
     "read a b c d, write d", 5, ABCD, 0, 0, 0, run_gtsv_loop, limit_abcd, restore_lapack, 1},
    {"thomas_cpu", "the registry backend through tl_solve: input and domain checks, solve",
     "read a b c d, write x", 5, ABCDX, 0, 0, 1, run_registry, limit_abcdx, restore_registry, 0},
    {"thomas_periodic_cpu", "the periodic registry backend through tl_solve",
     "read a b c d, write x", 5, ABCDX, 0, 0, 1, run_registry_periodic, limit_abcdx, no_restore,
     0},
};

const tl_bench_kernel *tl_bench_kernels(size_t *count)
{
  if (count)
    *count = sizeof kernels / sizeof kernels[0];
  return kernels;
}

const tl_bench_kernel *tl_bench_kernel_find(const char *name)
{
  for (size_t k = 0; name && k < sizeof kernels / sizeof kernels[0]; k++)
    if (!strcmp(kernels[k].name, name))
      return &kernels[k];
  return NULL;
}
