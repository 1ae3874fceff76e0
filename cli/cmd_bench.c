/* cli/cmd_bench.c -- `tridlab bench`: the optimized CPU kernels against
 * the memory-bandwidth limit of this machine (docs/design.md §7,
 * docs/performance.md).
 *
 * For every kernel, system size n, direction, precision and thread count
 * it reports the bandwidth achieved under the kernel's declared byte
 * model, and two ratios measured in the same process and run:
 *   copy_ratio   to a STREAM copy (read 1, write 1 word per element);
 *   limit_ratio  to a streaming kernel that moves exactly the kernel's
 *                arrays the same way (read, write or read-modify-write),
 *                element-wise, without a recurrence -- the real limit
 *                for that access pattern (a copy understates it: its
 *                writes cost a write-allocate read).
 * and the speed-up over the reference Thomas loop and a LAPACK xGTSV
 * loop on the same batch. Protocol: inputs restored before every run
 * (outside the timed region), one warm-up run discarded, the median of
 * `reps` runs; each run of a kernel is paired with a run of its limit
 * kernel, and limit_ratio is the median of the paired ratios. GB = 1e9
 * bytes.
 */
#define _DEFAULT_SOURCE /* madvise */
#include <errno.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tridlab/study.h"
#include "tridlab/cpu.h"
#include "tridlab/tridlab.h"

#define MAX_LIST 32
#define MAX_REPS 101

/* ---------------------------------------------------------------- */
/* Options                                                            */

typedef struct bench_opts {
  size_t sizes[MAX_LIST], nsizes;
  size_t threads[MAX_LIST], nthreads;
  size_t szs[MAX_LIST], nszs; /* nszs = 0: tl_cpu_sz_default per n */
  size_t unknowns;            /* per batch */
  long reps;
  unsigned precisions; /* bit 0 double, bit 1 float */
  unsigned dirs;       /* bits of x, y, z */
  const char *only;    /* comma-separated kernel names, or NULL */
  const char *csv_path;
  const char *plot_prefix;
  const char *summary_path; /* the summary of the targets also goes here */
  int quiet;
} bench_opts;

static void bench_usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab bench [options]\n"
          "\n"
          "Measures the optimized CPU kernels against the memory bandwidth of this machine\n"
          "(docs/performance.md). For each kernel, n, direction, precision and thread count:\n"
          "GB/s under the kernel's declared byte model, copy_ratio (to a STREAM copy),\n"
          "limit_ratio (to a streaming kernel moving the same arrays the same way, no\n"
          "recurrence; the median of paired runs) and the speed-up over the reference Thomas\n"
          "loop and a LAPACK xGTSV loop on the same batch. CSV on stdout (or --csv FILE).\n"
          "\n"
          "kernels (declared words moved per unknown):\n"
          "  thomas_sz          SZ-packed in-place Thomas (read a b c d, write d: 5)\n"
          "  thomas_3d          Cartesian arrays along x, y, z, reordered in cache (5)\n"
          "  thomas_3d_naive    Cartesian arrays, no reordering: the baseline (5)\n"
          "  thomas_sz_reorder  pack a b c d from Cartesian, thomas_sz, unpack d (5 declared)\n"
          "  thomas_periodic_sz SZ-packed periodic Thomas, in place (5)\n"
          "  compact_sz         fused 6th-order compact derivative, periodic (read u,\n"
          "                     write du: 2)\n"
          "  thomas_ref_loop    reference thomas, one system after another (double only; 5)\n"
          "  gtsv_loop          LAPACK DGTSV / SGTSV, one system after another (5 declared)\n"
          "  thomas_cpu         the registry backend through tl_solve on a plain batch:\n"
          "                     input checks, domain check, solve (double only; 5)\n"
          "  thomas_periodic_cpu  the periodic registry backend through tl_solve on a\n"
          "                     plain batch (double only; 5)\n"
          "\n"
          "options:\n"
          "  --quick            n = 256, 4096; 2^22 unknowns; 3 runs (well under a minute)\n"
          "  --sizes N1,N2,...  system sizes n (default 32,64,...,8192)\n"
          "  --unknowns N       unknowns per batch (default 2^25; the batch is N / n systems)\n"
          "  --threads T1,...   thread counts (default 1 and all %d)\n"
          "  --reps R           timed runs per measurement (default 7)\n"
          "  --sz S1,S2,...     group sizes for the SZ kernels, each of 8, 16, 32, 64\n"
          "                     (default: tl_cpu_sz_default(n))\n"
          "  --precision P      double, float or both (default both)\n"
          "  --dirs LIST        directions for the Cartesian kernels, e.g. x,z (default x,y,z)\n"
          "  --kernels LIST     only these kernels (comma-separated)\n"
          "  --csv FILE         write the CSV to FILE instead of stdout\n"
          "  --plot PREFIX      write PREFIX.dat and PREFIX.gp (normalised time per unknown\n"
          "                     against n, as paper 000 Figure 12) and, when gnuplot is\n"
          "                     installed, PREFIX.png\n"
          "  --summary FILE     also write the summary of the targets to FILE\n"
          "  --quiet            no summary of the targets\n"
          "Exit status: 0, or 1 on bad options or when memory is short.\n",
          tl_cpu_threads());
}

/* ---------------------------------------------------------------- */
/* Timing                                                             */

static int cmp_double(const void *p, const void *q)
{
  double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

static double median(const double *v, long k)
{
  double t[MAX_REPS];
  memcpy(t, v, (size_t)k * sizeof *t);
  qsort(t, (size_t)k, sizeof *t, cmp_double);
  return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

/* ---------------------------------------------------------------- */
/* Data                                                               */

/* The buffers of one precision, `count` elements each. a, b, c, d0 hold
 * a diagonally dominant batch (every entry, corners too); d is what the
 * kernels overwrite; p* are packed copies, LAPACK's work arrays, the
 * reference's output. */
typedef struct buffers {
  size_t count, es;
  void *a, *b, *c, *d, *d0, *pa, *pb, *pc, *pd;
} buffers;

static void buffers_free(buffers *m)
{
  void *all[] = {m->a, m->b, m->c, m->d, m->d0, m->pa, m->pb, m->pc, m->pd};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    free(all[k]);
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

static int buffers_alloc(buffers *m, size_t count, size_t es)
{
  memset(m, 0, sizeof *m);
  m->count = count;
  m->es = es;
  void **all[] = {&m->a, &m->b, &m->c, &m->d, &m->d0, &m->pa, &m->pb, &m->pc, &m->pd};
  /* 2 MiB aligned, and transparent huge pages asked for where the system
   * offers them: a solve along z touches a new 4 KiB page every row of
   * every array, so with small pages the strided kernels would measure
   * TLB misses as much as memory. The limit kernels use the same arrays. */
  size_t huge = (size_t)2 << 20, bytes = (count * es + huge - 1) / huge * huge;
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    if (!(*all[k] = aligned_alloc(huge, bytes))) {
      buffers_free(m);
      return -1;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(*all[k], bytes, MADV_HUGEPAGE);
#endif
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

typedef struct run_ctx {
  int fl; /* 1: float */
  size_t n, nsys, unknowns, sz;
  tl_dir dir;
  size_t dims[3];
  buffers *m;
  tl_distd2_plan *plan;
  double st[5];
  int status; /* the last kernel status (negative: failed) */
} run_ctx;

typedef struct kernel {
  const char *name;
  int per_dir; /* 1: runs along x, y and z */
  int uses_sz;
  int double_only;
  double words; /* declared words moved per unknown */
  void (*run)(run_ctx *);
  void (*limit)(run_ctx *);
  void (*restore)(run_ctx *); /* untimed, before every run */
} kernel;

static void restore_d(run_ctx *r)
{
  if (r->fl)
    tl_cpu_stream_copy_f(r->unknowns, r->m->d0, r->m->d);
  else
    tl_cpu_stream_copy_d(r->unknowns, r->m->d0, r->m->d);
}

static void restore_lapack(run_ctx *r)
{
  buffers *m = r->m;
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

static void no_restore(run_ctx *r)
{
  (void)r;
}

static void limit_abcd(run_ctx *r)
{
  buffers *m = r->m;
  if (r->fl)
    tl_cpu_stream_abcd_f(r->unknowns, m->a, m->b, m->c, m->d);
  else
    tl_cpu_stream_abcd_d(r->unknowns, m->a, m->b, m->c, m->d);
}

static void limit_stencil(run_ctx *r)
{
  size_t groups = r->nsys / r->sz;
  if (r->fl)
    tl_cpu_stream_stencil_f(r->n, groups, r->sz, r->st, r->m->d0, r->m->d);
  else
    tl_cpu_stream_stencil_d(r->n, groups, r->sz, r->st, r->m->d0, r->m->d);
}

static void run_thomas_sz(run_ctx *r)
{
  buffers *m = r->m;
  tl_info info;
  r->status = r->fl ? tl_cpu_thomas_sz_f(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info)
                    : tl_cpu_thomas_sz_d(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info);
}

static void run_thomas_3d(run_ctx *r)
{
  buffers *m = r->m;
  tl_info info;
  r->status = r->fl
                  ? tl_cpu_thomas_3d_f(r->dims, r->dir, r->sz, m->a, m->b, m->c, m->d, m->d, &info)
                  : tl_cpu_thomas_3d_d(r->dims, r->dir, r->sz, m->a, m->b, m->c, m->d, m->d, &info);
}

static void run_thomas_naive(run_ctx *r)
{
  buffers *m = r->m;
  tl_info info;
  r->status = r->fl
                  ? tl_cpu_thomas_3d_naive_f(r->dims, r->dir, m->a, m->b, m->c, m->d, m->d, &info)
                  : tl_cpu_thomas_3d_naive_d(r->dims, r->dir, m->a, m->b, m->c, m->d, m->d, &info);
}

static void run_thomas_reorder(run_ctx *r)
{
  buffers *m = r->m;
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

static void run_periodic(run_ctx *r)
{
  buffers *m = r->m;
  tl_info info;
  r->status =
      r->fl ? tl_cpu_thomas_periodic_sz_f(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info)
            : tl_cpu_thomas_periodic_sz_d(r->n, r->nsys, r->sz, m->a, m->b, m->c, m->d, &info);
}

static void run_compact(run_ctx *r)
{
  tl_info info;
  r->status = r->fl ? tl_cpu_compact_sz_f(r->plan, r->st, r->nsys, r->sz, r->m->d0, r->m->d, &info)
                    : tl_cpu_compact_sz_d(r->plan, r->st, r->nsys, r->sz, r->m->d0, r->m->d, &info);
}

/* The reference, one system per iteration, threads over systems. */
static void run_ref_loop(run_ctx *r)
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
static void run_gtsv_loop(run_ctx *r)
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
static void restore_registry(run_ctx *r)
{
  buffers *m = r->m;
  double *a = m->pa, *c = m->pc;
  tl_cpu_stream_copy_d(r->unknowns, m->a, a);
  tl_cpu_stream_copy_d(r->unknowns, m->c, c);
  for (size_t s = 0; s < r->nsys; s++)
    a[s * r->n] = c[s * r->n + r->n - 1] = 0.0;
}

static void run_registry(run_ctx *r)
{
  buffers *m = r->m;
  tl_batch sys = {
      .dtype = TL_F64, .n = r->n, .nsys = r->nsys, .a = m->pa, .b = m->b, .c = m->pc, .d = m->d0};
  tl_info info;
  r->status = tl_solve(tl_find("thomas_cpu"), &sys, m->d, NULL, &info) == TL_OK ? 0 : -1;
}

/* The registry backend thomas_periodic_cpu on the batch read as periodic
 * systems (the corners are part of the data), through tl_solve. */
static void run_registry_periodic(run_ctx *r)
{
  buffers *m = r->m;
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

static const kernel kernels[] = {
    {"thomas_sz", 0, 1, 0, 5, run_thomas_sz, limit_abcd, restore_d},
    {"thomas_3d", 1, 1, 0, 5, run_thomas_3d, limit_abcd, restore_d},
    {"thomas_3d_naive", 1, 0, 0, 5, run_thomas_naive, limit_abcd, restore_d},
    {"thomas_sz_reorder", 1, 1, 0, 5, run_thomas_reorder, limit_abcd, restore_d},
    {"thomas_periodic_sz", 0, 1, 0, 5, run_periodic, limit_abcd, restore_d},
    {"compact_sz", 0, 1, 0, 2, run_compact, limit_stencil, no_restore},
    {"thomas_ref_loop", 0, 0, 1, 5, run_ref_loop, limit_abcd, no_restore},
    {"gtsv_loop", 0, 0, 0, 5, run_gtsv_loop, limit_abcd, restore_lapack},
    {"thomas_cpu", 0, 0, 1, 5, run_registry, limit_abcd, restore_registry},
    {"thomas_periodic_cpu", 0, 0, 1, 5, run_registry_periodic, limit_abcd, no_restore},
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])
enum { K_REF = 6, K_GTSV = 7 };

/* ---------------------------------------------------------------- */
/* Measurement                                                        */

typedef struct measure {
  double t, t_limit, ratio; /* medians: kernel, limit kernel, paired limit/kernel */
  int failed;
} measure;

static measure measure_kernel(const kernel *k, run_ctx *r, long reps)
{
  double t[MAX_REPS], tl[MAX_REPS], q[MAX_REPS];
  measure out = {0, 0, 0, 0};
  for (long i = -1; i < reps; i++) { /* i = -1: the warm-up, discarded */
    k->restore(r);
    restore_d(r);
    double t0 = cli_now();
    k->limit(r);
    double t1 = cli_now();
    k->restore(r);
    restore_d(r);
    double t2 = cli_now();
    k->run(r);
    double t3 = cli_now();
    if (r->status < 0)
      out.failed = 1;
    if (i >= 0) {
      tl[i] = t1 - t0;
      t[i] = t3 - t2;
      q[i] = tl[i] / t[i];
    }
  }
  out.t = median(t, reps);
  out.t_limit = median(tl, reps);
  out.ratio = median(q, reps);
  return out;
}

static double copy_gbs(run_ctx *r, long reps)
{
  double t[MAX_REPS];
  for (long i = -1; i < reps; i++) {
    double t0 = cli_now();
    restore_d(r); /* d = d0: a STREAM copy */
    if (i >= 0)
      t[i] = cli_now() - t0;
  }
  return 2.0 * (double)r->unknowns * (double)r->m->es / median(t, reps) / 1e9;
}

/* ---------------------------------------------------------------- */
/* Output                                                             */

typedef struct row {
  const char *kernel;
  size_t n, nsys, sz, threads;
  char dir;
  int fl;
  double words, t, t_limit, gbs, limit_gbs, copy, limit_ratio, speedup_ref, speedup_gtsv;
} row;

typedef struct results {
  row *rows;
  size_t count, cap;
} results;

static int add_row(results *res, const row *rw)
{
  if (res->count == res->cap) {
    size_t cap = res->cap ? 2 * res->cap : 256;
    row *p = realloc(res->rows, cap * sizeof *p);
    if (!p)
      return -1;
    res->rows = p;
    res->cap = cap;
  }
  res->rows[res->count++] = *rw;
  return 0;
}

static void print_csv_header(FILE *f)
{
  fprintf(f, "kernel,n,dir,precision,threads,sz,nsys,words_per_unknown,time_s,ns_per_unknown,"
             "gbs,copy_gbs,copy_ratio,limit_gbs,limit_ratio,speedup_ref,speedup_gtsv\n");
}

static void print_csv_row(FILE *f, const row *w)
{
  double unknowns = (double)w->n * (double)w->nsys;
  fprintf(f, "%s,%zu,%c,%s,%zu,%zu,%zu,%g,%.6g,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f,", w->kernel, w->n,
          w->dir, w->fl ? "float" : "double", w->threads, w->sz, w->nsys, w->words, w->t,
          1e9 * w->t / unknowns, w->gbs, w->copy, w->gbs / w->copy, w->limit_gbs, w->limit_ratio);
  if (isnan(w->speedup_ref))
    fprintf(f, ",");
  else
    fprintf(f, "%.2f,", w->speedup_ref);
  if (isnan(w->speedup_gtsv))
    fprintf(f, "\n");
  else
    fprintf(f, "%.2f\n", w->speedup_gtsv);
  fflush(f);
}

/* Median over the rows that match, of a field; NaN if none. */
static double median_of(const results *res, const char *kname, char dir, int fl, size_t threads,
                        size_t nmin, size_t nmax, int field)
{
  double v[MAX_REPS * 4];
  long k = 0;
  for (size_t i = 0; i < res->count && k < (long)(sizeof v / sizeof v[0]); i++) {
    const row *w = &res->rows[i];
    if (strcmp(w->kernel, kname) || w->dir != dir || w->fl != fl || w->threads != threads ||
        w->n < nmin || w->n > nmax)
      continue;
    v[k++] = field == 0 ? w->limit_ratio : field == 1 ? w->speedup_gtsv : w->t;
  }
  if (!k)
    return NAN;
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* The time along x over the time along y and z, median over n. */
static double x_over(const results *res, char other, size_t threads, size_t lo, size_t hi)
{
  double v[MAX_LIST];
  long k = 0;
  for (size_t i = 0; i < res->count; i++) {
    const row *w = &res->rows[i];
    if (strcmp(w->kernel, "thomas_3d") || w->dir != 'x' || w->fl || w->threads != threads ||
        w->n < lo || w->n > hi || k == MAX_LIST)
      continue;
    for (size_t j = 0; j < res->count; j++) {
      const row *o = &res->rows[j];
      if (!strcmp(o->kernel, "thomas_3d") && o->dir == other && !o->fl && o->threads == threads &&
          o->n == w->n && o->sz == w->sz)
        v[k++] = w->t / o->t;
    }
  }
  if (!k)
    return NAN;
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

static void print_summary(FILE *f, const results *res, const bench_opts *o)
{
  /* n = 256..4096 when measured, else every n. */
  size_t lo = 256, hi = 4096, inside = 0;
  for (size_t i = 0; i < res->count; i++)
    inside += res->rows[i].n >= lo && res->rows[i].n <= hi;
  if (!inside)
    lo = 0, hi = (size_t)-1;
  fprintf(f, "\nTargets (double, medians over n = %zu..%zu):\n", inside ? lo : o->sizes[0],
          inside ? hi : o->sizes[o->nsizes - 1]);
  fprintf(f, "  %-44s %8s", "", "");
  for (size_t t = 0; t < o->nthreads; t++)
    fprintf(f, "  %zu thr%s", o->threads[t], o->threads[t] > 1 ? "s" : " ");
  fputc('\n', f);
  static const struct {
    const char *label, *kernel;
    char dir;
    int field;
    const char *want;
  } lines[] = {
      {"thomas_sz limit_ratio", "thomas_sz", '-', 0, ">= 0.85"},
      {"compact_sz limit_ratio", "compact_sz", '-', 0, ">= 0.80"},
      {"thomas_sz speed-up over DGTSV loop", "thomas_sz", '-', 1, ">= 15"},
      {"thomas_3d x limit_ratio", "thomas_3d", 'x', 0, ">= 0.85"},
      {"thomas_3d y limit_ratio", "thomas_3d", 'y', 0, ">= 0.80"},
      {"thomas_3d z limit_ratio", "thomas_3d", 'z', 0, ">= 0.80"},
      {"thomas_cpu (tl_solve) limit_ratio", "thomas_cpu", '-', 0, ">= 0.80"},
      {"thomas_periodic_cpu (tl_solve) limit_ratio", "thomas_periodic_cpu", '-', 0, ">= 0.80"}};
  for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
    fprintf(f, "  %-44s %8s", lines[l].label, lines[l].want);
    for (size_t t = 0; t < o->nthreads; t++)
      fprintf(
          f, "  %6.2f",
          median_of(res, lines[l].kernel, lines[l].dir, 0, o->threads[t], lo, hi, lines[l].field));
    fputc('\n', f);
  }
  fprintf(f, "  %-44s %8s", "thomas_3d time x / time y", "<= 1.2");
  for (size_t t = 0; t < o->nthreads; t++)
    fprintf(f, "  %6.2f", x_over(res, 'y', o->threads[t], lo, hi));
  fprintf(f, "\n  %-44s %8s", "thomas_3d time x / time z", "<= 1.2");
  for (size_t t = 0; t < o->nthreads; t++)
    fprintf(f, "  %6.2f", x_over(res, 'z', o->threads[t], lo, hi));
  fputc('\n', f);
}

/* PREFIX.dat: one block per series (gnuplot `index`), PREFIX.gp, and
 * PREFIX.png when gnuplot runs. */
static int write_plot(const char *prefix, const results *res, const bench_opts *o)
{
  /* The script names its files relative to its own directory, as the
   * report's scripts do: `gnuplot NAME.gp` run there remakes the plot. */
  const char *slash = strrchr(prefix, '/');
  const char *base = slash ? slash + 1 : prefix;
  size_t dlen = slash ? (size_t)(slash - prefix) : 0;
  size_t len = strlen(prefix) + 8;
  char *dir = malloc(dlen + 2), *dat = malloc(len), *gp = malloc(len), *png = malloc(len);
  if (!dir || !dat || !gp || !png) {
    free(dir), free(dat), free(gp), free(png);
    return -1;
  }
  if (slash)
    snprintf(dir, dlen + 2, "%.*s", (int)(dlen ? dlen : 1), dlen ? prefix : "/");
  else
    snprintf(dir, 2, ".");
  snprintf(dat, len, "%s.dat", prefix);
  snprintf(gp, len, "%s.gp", prefix);
  snprintf(png, len, "%s.png", prefix);
  FILE *fd = fopen(dat, "w"), *fg = fopen(gp, "w");
  if (!fd || !fg) {
    cli_error("bench: cannot write %s / %s", dat, gp);
    if (fd)
      fclose(fd);
    if (fg)
      fclose(fg);
    free(dir), free(dat), free(gp), free(png);
    return -1;
  }
  /* From here on: names inside dir. */
  snprintf(dat, len, "%s.dat", base);
  snprintf(gp, len, "%s.gp", base);
  snprintf(png, len, "%s.png", base);
  static const struct {
    const char *kernel;
    char dir;
    int limit; /* 1: the kernel's streaming limit, not the kernel */
    const char *title, *style;
  } series[] = {
      {"thomas_sz", '-', 0, "Thomas, SZ-packed", "lw 2 lc rgb '#1f4e9c' pt 7"},
      {"thomas_sz", '-', 1, "limit of Thomas: read a b c, read-write d",
       "dt 2 lw 2 lc rgb 'black' pt 0"},
      {"thomas_3d", 'x', 0, "Thomas x, reordered in cache", "lc rgb '#2ca02c' pt 5"},
      {"thomas_3d", 'y', 0, "Thomas y", "lc rgb '#17becf' pt 9"},
      {"thomas_3d", 'z', 0, "Thomas z", "lc rgb '#9467bd' pt 11"},
      {"thomas_3d_naive", 'x', 0, "Thomas x, no reordering", "dt 3 lc rgb '#2ca02c' pt 4"},
      {"thomas_3d_naive", 'z', 0, "Thomas z, no reordering", "dt 3 lc rgb '#9467bd' pt 10"},
      {"thomas_periodic_sz", '-', 0, "periodic Thomas, SZ-packed", "lc rgb '#d62728' pt 13"},
      {"compact_sz", '-', 0, "compact 6th order, fused (2 words)", "lw 2 lc rgb '#ff7f0e' pt 7"},
      {"compact_sz", '-', 1, "limit of compact: read u, write du",
       "dt 2 lw 2 lc rgb '#ff7f0e' pt 0"}};
  size_t tsel[2] = {o->threads[0], o->threads[o->nthreads - 1]};
  int panels = o->nthreads > 1 ? 2 : 1, block = 0;
  fprintf(fg,
          "# gnuplot script written by tridlab bench: normalised time per unknown\n"
          "set terminal pngcairo size 1400,600 font ',10'\n"
          "set output '%s'\n"
          "set multiplot layout 1,%d\n"
          "set logscale x 2\nset xlabel 'n (rows per system)'\n"
          "set ylabel 'time per unknown (ns), double'\nset key top left font ',8'\n"
          "set grid\nset yrange [0:*]\n",
          png, panels);
  for (int p = 0; p < panels; p++) {
    fprintf(fg, "set title '%zu thread%s'\nplot ", tsel[p], tsel[p] > 1 ? "s" : "");
    int first = 1;
    for (size_t s = 0; s < sizeof series / sizeof series[0]; s++) {
      int any = 0;
      for (size_t i = 0; i < res->count; i++) {
        const row *w = &res->rows[i];
        if (strcmp(w->kernel, series[s].kernel) || w->dir != series[s].dir || w->fl ||
            w->threads != tsel[p])
          continue;
        double unknowns = (double)w->n * (double)w->nsys;
        fprintf(fd, "%zu %.5f\n", w->n, 1e9 * (series[s].limit ? w->t_limit : w->t) / unknowns);
        any = 1;
      }
      if (!any)
        continue;
      fprintf(fd, "\n\n");
      fprintf(fg, "%s'%s' index %d with linespoints %s title '%s'", first ? "" : ", \\\n     ", dat,
              block++, series[s].style, series[s].title);
      first = 0;
    }
    fprintf(fg, "%s\n", first ? "0 notitle" : "");
  }
  fprintf(fg, "unset multiplot\n");
  fclose(fd);
  fclose(fg);
  tl_info pinfo;
  int made = tl_gnuplot_make(dir, gp, png, &pinfo);
  if (made == TL_ERR_IO)
    cli_error("%s", pinfo.msg);
  if (made == TL_OK)
    fprintf(stderr, "bench: wrote %s.dat, %s.gp and %s.png\n", prefix, prefix, prefix);
  else
    fprintf(stderr, "bench: wrote %s.dat and %s.gp (no %s.png: gnuplot %s)\n", prefix, prefix,
            prefix, made == TL_ERR_UNSUPPORTED ? "is not installed or was not run" : "failed");
  free(dir), free(dat), free(gp), free(png);
  return 0;
}

/* ---------------------------------------------------------------- */
/* The driver                                                         */

static int kernel_selected(const bench_opts *o, const char *name)
{
  if (!o->only)
    return 1;
  size_t len = strlen(name);
  for (const char *p = o->only; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t plen = comma ? (size_t)(comma - p) : strlen(p);
    if (plen == len && !strncmp(p, name, len))
      return 1;
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

/* The Cartesian shape of a solve of nsys lines of n rows along dir: the
 * two other dimensions as even as powers of two allow, the longer one
 * along x (so groups of SZ adjacent x lines are full). */
static void shape_for(size_t n, size_t nsys, tl_dir dir, size_t dims[3])
{
  size_t small = 1;
  while (small * small * 4 <= nsys && nsys % (small * 2) == 0)
    small *= 2;
  size_t big = nsys / small;
  if (dir == TL_DIR_X) {
    dims[0] = n, dims[1] = small, dims[2] = big;
  } else if (dir == TL_DIR_Y) {
    dims[0] = big, dims[1] = n, dims[2] = small;
  } else {
    dims[0] = big, dims[1] = small, dims[2] = n;
  }
}

static int parse_precision(const char *v, unsigned *out)
{
  if (!strcmp(v, "double"))
    *out = 1;
  else if (!strcmp(v, "float"))
    *out = 2;
  else if (!strcmp(v, "both"))
    *out = 3;
  else {
    cli_error("bench: --precision must be double, float or both, got '%s'", v);
    return -1;
  }
  return 0;
}

static int parse_dirs(const char *v, unsigned *out)
{
  *out = 0;
  for (const char *p = v; *p; p++) {
    if (*p == 'x' || *p == 'y' || *p == 'z')
      *out |= 1u << (*p - 'x');
    else if (*p != ',') {
      cli_error("bench: --dirs takes x, y and z, comma-separated, got '%s'", v);
      return -1;
    }
  }
  if (!*out) {
    cli_error("bench: --dirs is empty");
    return -1;
  }
  return 0;
}

static int parse_args(int argc, char **argv, bench_opts *o, int *done)
{
  long lv;
  const char *v;
  *done = 0;
  for (size_t k = 0; k < 9; k++)
    o->sizes[k] = (size_t)32 << k;
  o->nsizes = 9;
  o->threads[0] = 1;
  o->threads[1] = (size_t)tl_cpu_threads();
  o->nthreads = o->threads[1] > 1 ? 2 : 1;
  o->unknowns = (size_t)1 << 25;
  o->reps = 7;
  o->precisions = 3;
  o->dirs = 7;
  int quick = 0, sizes_set = 0, unknowns_set = 0, reps_set = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      bench_usage(stdout);
      *done = 1;
      return 0;
    } else if (!strcmp(arg, "--quick")) {
      quick = 1;
    } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
      o->quiet = 1;
    } else if (cli_is(arg, "--summary")) {
      if (!(o->summary_path = cli_value(argc, argv, &i, "--summary")))
        return -1;
    } else if (cli_is(arg, "--sizes")) {
      if (!(v = cli_value(argc, argv, &i, "--sizes")) ||
          cli_parse_sizes(v, "--sizes", o->sizes, MAX_LIST, &o->nsizes))
        return -1;
      sizes_set = 1;
    } else if (cli_is(arg, "--threads")) {
      if (!(v = cli_value(argc, argv, &i, "--threads")) ||
          cli_parse_sizes(v, "--threads", o->threads, MAX_LIST, &o->nthreads))
        return -1;
    } else if (cli_is(arg, "--sz")) {
      if (!(v = cli_value(argc, argv, &i, "--sz")) ||
          cli_parse_sizes(v, "--sz", o->szs, MAX_LIST, &o->nszs))
        return -1;
      for (size_t k = 0; k < o->nszs; k++)
        if (!tl_cpu_sz_supported(o->szs[k])) {
          cli_error("bench: --sz values must be 8, 16, 32 or 64, got %zu", o->szs[k]);
          return -1;
        }
    } else if (cli_is(arg, "--unknowns")) {
      if (!(v = cli_value(argc, argv, &i, "--unknowns")) ||
          cli_parse_int(v, "--unknowns", 4096, 1L << 32, &lv))
        return -1;
      o->unknowns = (size_t)lv;
      unknowns_set = 1;
    } else if (cli_is(arg, "--reps")) {
      if (!(v = cli_value(argc, argv, &i, "--reps")) ||
          cli_parse_int(v, "--reps", 1, MAX_REPS, &lv))
        return -1;
      o->reps = lv;
      reps_set = 1;
    } else if (cli_is(arg, "--precision")) {
      if (!(v = cli_value(argc, argv, &i, "--precision")) || parse_precision(v, &o->precisions))
        return -1;
    } else if (cli_is(arg, "--dirs")) {
      if (!(v = cli_value(argc, argv, &i, "--dirs")) || parse_dirs(v, &o->dirs))
        return -1;
    } else if (cli_is(arg, "--kernels")) {
      if (!(o->only = cli_value(argc, argv, &i, "--kernels")))
        return -1;
      for (const char *p = o->only; *p;) {
        const char *comma = strchr(p, ',');
        size_t plen = comma ? (size_t)(comma - p) : strlen(p), k;
        for (k = 0; k < NKERNELS; k++)
          if (strlen(kernels[k].name) == plen && !strncmp(kernels[k].name, p, plen))
            break;
        if (k == NKERNELS) {
          cli_error("bench: unknown kernel '%.*s' (see 'tridlab bench --help')", (int)plen, p);
          return -1;
        }
        p = comma ? comma + 1 : p + plen;
      }
    } else if (cli_is(arg, "--csv")) {
      if (!(o->csv_path = cli_value(argc, argv, &i, "--csv")))
        return -1;
    } else if (cli_is(arg, "--plot")) {
      if (!(o->plot_prefix = cli_value(argc, argv, &i, "--plot")))
        return -1;
      if (strchr(o->plot_prefix, '\'') || !*o->plot_prefix) {
        cli_error("bench: --plot PREFIX must be a non-empty path without a single quote");
        return -1;
      }
    } else {
      cli_error("bench: unknown option '%s' (see 'tridlab bench --help')", arg);
      return -1;
    }
  }
  if (quick) {
    if (!sizes_set) {
      o->sizes[0] = 256, o->sizes[1] = 4096;
      o->nsizes = 2;
    }
    if (!unknowns_set)
      o->unknowns = (size_t)1 << 22;
    if (!reps_set)
      o->reps = 3;
  }
  for (size_t k = 0; k < o->nthreads; k++)
    if (o->threads[k] > 4096) {
      cli_error("bench: --threads values must be at most 4096");
      return -1;
    }
  for (size_t k = 0; k < o->nsizes; k++)
    if (o->sizes[k] < 3 || o->unknowns / o->sizes[k] < 64) {
      cli_error("bench: n = %zu: sizes must be >= 3 and leave at least 64 systems in "
                "--unknowns %zu",
                o->sizes[k], o->unknowns);
      return -1;
    }
  return 0;
}

/* Lele's 6th-order first derivative, periodic (paper 000 eq. (2)). */
static int make_plan(tl_distd2_plan *plan, size_t n, double st[5])
{
  double *a = malloc(3 * n * sizeof *a);
  if (!a)
    return -1;
  for (size_t i = 0; i < 3 * n; i++)
    a[i] = (i / n == 1) ? 1.0 : 1.0 / 3.0;
  double h = 1.0 / (double)n, ca = 14.0 / 9.0, cb = 1.0 / 9.0;
  st[0] = -cb / (4 * h), st[1] = -ca / (2 * h), st[2] = 0, st[3] = ca / (2 * h);
  st[4] = cb / (4 * h);
  tl_info info;
  int s = tl_distd2_plan_create_d(plan, n, 1, 1, NULL, a, a + n, a + 2 * n, &info);
  free(a);
  return s == TL_OK ? 0 : -1;
}

int cmd_bench(int argc, char **argv)
{
  bench_opts o;
  memset(&o, 0, sizeof o);
  int done;
  if (parse_args(argc, argv, &o, &done))
    return EXIT_BAD_INPUT;
  if (done)
    return 0;
  FILE *csv = stdout;
  if (o.csv_path && !(csv = fopen(o.csv_path, "w"))) {
    cli_error("bench: cannot write %s: %s", o.csv_path, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  int progress = isatty(STDERR_FILENO), status = 0, initial_threads = tl_cpu_threads();
  results res = {NULL, 0, 0};
  print_csv_header(csv);
  long total = 0, count = 0;
  long ndirs = (long)((o.dirs & 1u) + (o.dirs >> 1 & 1u) + (o.dirs >> 2 & 1u));
  for (int fl = 0; fl <= 1; fl++)
    for (size_t k = 0; k < NKERNELS; k++)
      if ((o.precisions & (1u << fl)) && kernel_selected(&o, kernels[k].name) &&
          !(kernels[k].double_only && fl))
        total += kernels[k].per_dir ? ndirs : 1;
  total *= (long)(o.nsizes * o.nthreads * (o.nszs ? o.nszs : 1)); /* an upper bound */

  for (int fl = 0; fl <= 1 && !status; fl++) {
    if (!(o.precisions & (1u << fl)))
      continue;
    buffers m;
    if (buffers_alloc(&m, o.unknowns, fl ? sizeof(float) : sizeof(double))) {
      cli_error("bench: not enough memory for 9 arrays of %zu values", o.unknowns);
      status = EXIT_BAD_INPUT;
      break;
    }
    for (size_t ti = 0; ti < o.nthreads && !status; ti++) {
      size_t threads = o.threads[ti];
      tl_cpu_set_threads((int)threads);
      run_ctx base = {.fl = fl, .m = &m, .unknowns = o.unknowns};
      double copy = copy_gbs(&base, o.reps);
      for (size_t ni = 0; ni < o.nsizes && !status; ni++) {
        size_t n = o.sizes[ni], nsys = o.unknowns / n / 64 * 64;
        double t_ref = NAN, t_gtsv = NAN; /* the loops the speed-ups refer to */
        for (size_t zi = 0; zi < (o.nszs ? o.nszs : 1) && !status; zi++) {
          run_ctx r = base;
          r.n = n;
          r.nsys = nsys;
          r.unknowns = n * nsys;
          r.sz = o.nszs ? o.szs[zi] : tl_cpu_sz_default(n, m.es);
          tl_distd2_plan plan;
          memset(&plan, 0, sizeof plan);
          r.plan = &plan;
          if (kernel_selected(&o, "compact_sz") && make_plan(&plan, n, r.st)) {
            cli_error("bench: could not build the compact-scheme plan for n = %zu", n);
            status = EXIT_BAD_INPUT;
            break;
          }
          for (size_t k = 0; k < NKERNELS && !status; k++) {
            const kernel *kn = &kernels[k];
            if (!kernel_selected(&o, kn->name) || (kn->double_only && fl) ||
                (zi > 0 && !kn->uses_sz))
              continue; /* kernels without SZ run once per n */
            for (int dir = 0; dir < (kn->per_dir ? 3 : 1); dir++) {
              if (kn->per_dir && !(o.dirs & (1u << dir)))
                continue;
              r.dir = (tl_dir)dir;
              shape_for(n, nsys, r.dir, r.dims);
              if (progress)
                fprintf(stderr, "\rbench: %ld/%ld  %-20s n=%-5zu %s %zu thr   ", ++count, total,
                        kn->name, n, fl ? "float " : "double", threads);
              measure ms = measure_kernel(kn, &r, o.reps);
              if (ms.failed) {
                cli_error("bench: %s failed on n = %zu (a kernel reported an error)", kn->name, n);
                status = EXIT_BAD_INPUT;
                break;
              }
              if (k == K_REF)
                t_ref = ms.t;
              if (k == K_GTSV)
                t_gtsv = ms.t;
              double bytes = kn->words * (double)m.es * (double)r.unknowns;
              row w = {.kernel = kn->name,
                       .n = n,
                       .nsys = nsys,
                       .sz = kn->uses_sz ? r.sz : 0,
                       .threads = threads,
                       .dir = kn->per_dir ? "xyz"[dir] : '-',
                       .fl = fl,
                       .words = kn->words,
                       .t = ms.t,
                       .t_limit = ms.t_limit,
                       .gbs = bytes / ms.t / 1e9,
                       .limit_gbs = bytes / ms.t_limit / 1e9,
                       .copy = copy,
                       .limit_ratio = ms.ratio,
                       .speedup_ref = NAN,
                       .speedup_gtsv = NAN};
              if (add_row(&res, &w)) {
                cli_error("bench: out of memory");
                status = EXIT_BAD_INPUT;
                break;
              }
            }
          }
          /* Speed-ups of the general-Thomas kernels, now that the loops ran. */
          for (size_t i = 0; i < res.count; i++) {
            row *w = &res.rows[i];
            if (w->n != n || w->fl != fl || w->threads != threads || (w->sz && w->sz != r.sz) ||
                !strncmp(w->kernel, "compact", 7) || strstr(w->kernel, "periodic") ||
                strstr(w->kernel, "loop"))
              continue;
            if (!isnan(w->speedup_ref) || !isnan(w->speedup_gtsv))
              continue;
            w->speedup_ref = t_ref / w->t;
            w->speedup_gtsv = t_gtsv / w->t;
          }
          tl_distd2_plan_destroy(&plan);
        }
        /* The rows of this n, as they are complete. */
        for (size_t i = 0; i < res.count; i++) {
          row *w = &res.rows[i];
          if (w->n == n && w->fl == fl && w->threads == threads)
            print_csv_row(csv, w);
        }
      }
    }
    buffers_free(&m);
  }
  tl_cpu_set_threads(initial_threads);
  if (progress)
    fprintf(stderr, "\r%70s\r", "");
  if (csv != stdout)
    fclose(csv);
  if (!status && !o.quiet)
    print_summary(o.csv_path ? stdout : stderr, &res, &o);
  if (!status && o.summary_path) {
    FILE *sf = fopen(o.summary_path, "w");
    if (!sf) {
      cli_error("bench: cannot write %s: %s", o.summary_path, strerror(errno));
      status = EXIT_BAD_INPUT;
    } else {
      print_summary(sf, &res, &o);
      if (fclose(sf)) {
        cli_error("bench: cannot write %s: %s", o.summary_path, strerror(errno));
        status = EXIT_BAD_INPUT;
      }
    }
  }
  if (!status && o.plot_prefix && write_plot(o.plot_prefix, &res, &o))
    status = EXIT_BAD_INPUT;
  free(res.rows);
  return status;
}
