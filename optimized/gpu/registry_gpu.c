/* optimized/gpu/registry_gpu.c -- the GPU room's table for the registry
 * (docs/gpu.md): thomas_gpu, pcr_gpu, thomas_periodic_gpu, hybrid_pcr_gpu,
 * distd2_gpu, pdd_gpu and spike_gpu.
 *
 * Each backend lays the batch out for its kernel, runs it (on the host
 * by emulation in this build: backend "gpu-emulated"), and turns the
 * per-system status words into the batch status with the reference's
 * rules (tl_outcome_*): a breakdown with its row as the kernel found it,
 * else the reference's domain test, decided on the host from the matrix.
 * Since the kernels do the reference's operations in its order, the
 * answers, the rows and the statuses agree with the reference's; the
 * tests (tests/test_gpu.c) and `tridlab verify` hold them to that.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/gpu.h"
#include "tridlab/layout.h"
#include "tridlab/part_distd2.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_spike.h"

/* ---------------------------------------------------------------- */
/* Shared by the backends                                            */

/* nsys packed copies of a batch array (pad: the value of padding lanes). */
static double *packed_copy(size_t n, size_t nsys, const double *src, double pad, size_t extra)
{
  size_t count = tl_cpu_packed_count(n, nsys, TL_GPU_SZ);
  double *p = tl_alloc(count + extra, sizeof(double));
  if (p && tl_cpu_pack_batch_d(n, nsys, TL_GPU_SZ, src, p, pad, NULL) != TL_OK) {
    free(p);
    p = NULL;
  }
  return p;
}

/* The packed copies a, b, c, d and the scratch w (w_rows per row). */
typedef struct packed_batch {
  double *a, *b, *c, *d, *w;
  int *stat;
} packed_batch;

static void packed_free(packed_batch *p)
{
  free(p->a);
  free(p->b);
  free(p->c);
  free(p->d);
  free(p->w);
  free(p->stat);
}

static int packed_make(const tl_batch *sys, size_t w_rows, packed_batch *p, tl_info *info)
{
  size_t n = sys->n, nsys = sys->nsys;
  memset(p, 0, sizeof *p);
  p->a = packed_copy(n, nsys, sys->a, 0, 0);
  p->b = packed_copy(n, nsys, sys->b, 1, 0);
  p->c = packed_copy(n, nsys, sys->c, 0, 0);
  p->d = packed_copy(n, nsys, sys->d, 0, 0);
  p->w = tl_alloc(tl_cpu_packed_count(n, nsys, TL_GPU_SZ), w_rows * sizeof(double));
  p->stat = tl_alloc(nsys, TL_GPU_STAT_WORDS * sizeof(int));
  if (!p->a || !p->b || !p->c || !p->d || !p->w || !p->stat) {
    packed_free(p);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "gpu: no memory for the packed batch");
  }
  return TL_OK;
}

/* A launch error that is not a breakdown (a kernel bug, no memory) stops
 * the solve; breakdowns are in the status words. */
static int launch_error(int st)
{
  return st < 0 && st != TL_ERR_BREAKDOWN;
}

static const double *sys_d(const void *arr, size_t s, size_t n)
{
  return (const double *)arr + s * n;
}

/* What the backends of one block per system take (and distd2_gpu's):
 * float64 (plain unless `periodic`), at most 1024 partitions (`per`:
 * threads of a block, blocks per group); else unsupported, and tl_solve
 * answers with the reference. */
static int partitioned_ok(const char *who, const char *per, int periodic, const tl_batch *sys,
                          const tl_options *opt, tl_info *info)
{
  if (sys->dtype != TL_F64 || (sys->periodic && !periodic))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dtype", "%s solves %sfloat64 batches",
                   who, periodic ? "" : "non-periodic ");
  if (opt->parts > 1024)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "parts", "%s: at most 1024 partitions (%s)",
                   who, per);
  return TL_OK;
}

/* 1 when no partition of system s raised a flag in a local-phase kernel's
 * status words (3 per (system, partition), the kind first). */
static int system_clean(const int *stat, size_t s, size_t parts)
{
  for (size_t p = 0; p < parts; p++)
    if (stat[3 * (s * parts + p)] != 0)
      return 0;
  return 1;
}

/* ---------------------------------------------------------------- */
/* thomas_gpu                                                        */

/* Thomas's domain as reference/thomas_ref.c decides it: dominant by rows
 * or columns, or symmetric with positive pivots. */
static int thomas_status(size_t n, const double *a, const double *b, const double *c, const int *st,
                         tl_info *one)
{
  if (st[0] == TL_GPU_PIVOT)
    return TL_FAIL(one, TL_ERR_BREAKDOWN, -1, st[1], "",
                   "thomas_gpu: zero or non-finite pivot at row %d (elimination without pivoting "
                   "breaks down; try gtsv)",
                   st[1]);
  if (st[0] != TL_GPU_OK)
    return TL_FAIL(one, TL_ERR_BREAKDOWN, -1, st[1], "",
                   "thomas_gpu: overflow in the backward pass at row %d", st[1]);
  long worst = -1;
  if (tl_classes_d(n, a, b, c, 0, &worst) & (TL_CLASS_ROW_DD | TL_CLASS_COL_DD))
    return TL_OK;
  int symmetric = !(st[2] & TL_GPU_NONPOSITIVE);
  for (size_t i = 0; symmetric && i + 1 < n; i++)
    symmetric = a[i + 1] == c[i];
  if (symmetric)
    return TL_OK; /* symmetric with positive pivots: positive definite */
  return TL_WARN(one, worst,
                 "thomas_gpu: matrix is not diagonally dominant (row %ld) nor found symmetric "
                 "positive definite; Thomas without pivoting has no stability guarantee here",
                 worst);
}

static int thomas_gpu_once(const tl_algorithm *self, const tl_batch *sys, void *x,
                            const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  if (sys->dtype != TL_F64)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dtype", "thomas_gpu solves float64");
  size_t n = sys->n, nsys = sys->nsys;
  packed_batch p;
  TL_CALL(packed_make(sys, 1, &p, info));
  int st = tl_gpu_thomas_sz_d(n, nsys, p.a, p.b, p.c, p.d, p.w, p.stat, info);
  if (launch_error(st)) {
    packed_free(&p);
    return st;
  }
  tl_cpu_unpack_batch_d(n, nsys, TL_GPU_SZ, p.d, x, NULL);
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    tl_info one;
    tl_info_clear(&one);
    int sst = thomas_status(n, sys_d(sys->a, s, n), sys_d(sys->b, s, n), sys_d(sys->c, s, n),
                            p.stat + s * TL_GPU_STAT_WORDS, &one);
    tl_outcome_add(&out, s, sst, &one);
  }
  packed_free(&p);
  return tl_outcome_finish(&out, info);
}

/* ---------------------------------------------------------------- */
/* pcr_gpu and hybrid_pcr_gpu: kernels on the batch layout           */

/* What the two PCR backends say about one system. */
typedef struct pcr_words {
  const char *who, *pivot, *result, *outside, *unstable;
} pcr_words;

static const pcr_words pcr_says = {
    "pcr_gpu",
    "zero or non-finite pivot b at row %d (cyclic reduction without pivoting breaks "
    "down; try gtsv)",
    "zero or non-finite pivot or result at row %d in the final division",
    "parallel cyclic reduction has no stability guarantee here",
    "PCR is not backward stable on this ill-conditioned matrix (its error is still bounded by "
    "cond(A) eps)"};

static const pcr_words hybrid_says = {
    "hybrid_pcr_gpu",
    "zero or non-finite pivot at row %d (modified Thomas or the reduced system's PCR)",
    "non-finite result at row %d (substitution)",
    "the modified Thomas step and PCR have no stability guarantee here",
    "PCR on the reduced system is not backward stable on this ill-conditioned matrix (its error "
    "is still bounded by cond(A) eps)"};

/* The domain as reference/pcr_ref.c and hybrid_pcr_ref.c decide it:
 * strict row dominance, then LAPACK's residual test of the answer (PCR
 * is forward but not backward stable). */
static int pcr_status(const pcr_words *w, size_t n, const double *a, const double *b,
                      const double *c, const double *d, const double *x, const int *st,
                      tl_info *one)
{
  if (st[0] != TL_GPU_OK) {
    char what[160];
    snprintf(what, sizeof what, st[0] == TL_GPU_PIVOT ? w->pivot : w->result, st[1]);
    return TL_FAIL(one, TL_ERR_BREAKDOWN, -1, st[1], "", "%s: %s", w->who, what);
  }
  long worst = -1;
  if (!(tl_classes_d(n, a, b, c, 0, &worst) & TL_CLASS_STRICT_DD))
    return TL_WARN(one, worst, "%s: matrix is not strictly row diagonally dominant (row %ld); %s",
                   w->who, worst, w->outside);
  return tl_residual_check(w->who, TL_F64, n, 0, a, b, c, d, x, w->unstable, one);
}

/* Run the kernel on the whole batch (hybrid: parts > 0), then judge every
 * system in order (tl_outcome: the first error stops the batch). */
static int pcr_family_solve(const pcr_words *w, int parts, const tl_batch *sys, double *x,
                            const tl_options *opt, tl_info *info)
{
  TL_CALL(partitioned_ok(w->who, "threads of a block", 1, sys, opt, info));
  size_t n = sys->n, nsys = sys->nsys;
  int *stat = tl_alloc(nsys, TL_GPU_STAT_WORDS * sizeof(int));
  if (!stat)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory", w->who);
  int st = parts ? tl_gpu_hybrid_pcr_d(n, nsys, parts, opt->part_sizes, sys->a, sys->b, sys->c,
                                       sys->d, x, stat, info)
                 : tl_gpu_pcr_d(n, nsys, sys->a, sys->b, sys->c, sys->d, x, stat, info);
  if (launch_error(st)) {
    free(stat);
    return st;
  }
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    tl_info one;
    tl_info_clear(&one);
    int sst = pcr_status(w, n, sys_d(sys->a, s, n), sys_d(sys->b, s, n), sys_d(sys->c, s, n),
                         sys_d(sys->d, s, n), x + s * n, stat + s * TL_GPU_STAT_WORDS, &one);
    tl_outcome_add(&out, s, sst, &one);
  }
  free(stat);
  return tl_outcome_finish(&out, info);
}

static int pcr_gpu_once(const tl_algorithm *self, const tl_batch *sys, void *x,
                         const tl_options *opt, tl_info *info)
{
  (void)self;
  return pcr_family_solve(&pcr_says, 0, sys, x, opt, info);
}

static int hybrid_pcr_gpu_once(const tl_algorithm *self, const tl_batch *sys, void *x,
                                const tl_options *opt, tl_info *info)
{
  (void)self;
  return pcr_family_solve(&hybrid_says, opt->parts, sys, x, opt, info);
}

/* ---------------------------------------------------------------- */
/* thomas_periodic_gpu                                               */

/* 1 when the reference would answer TL_OK with nothing to add: the
 * kernel met no failure, b0 != 0 (g = -b0), A is strictly dominant and
 * so is B = A - u v^T (it differs from A only in rows 0 and n-1; row 0 of
 * B has b0 - g = 2 b0 and is dominant). Every other system is solved
 * again by the reference, which gives its status, row and message. */
static int periodic_clean(size_t n, const double *a, const double *b, const double *c,
                          const int *st)
{
  if (st[0] != TL_GPU_OK || b[0] == 0)
    return 0;
  if (!(tl_classes_d(n, a, b, c, 1, NULL) & TL_CLASS_STRICT_DD))
    return 0;
  double g = -b[0], blast = b[n - 1] - a[0] * (c[n - 1] / g);
  return fabs(blast) >= fabs(a[n - 1]);
}

static int thomas_periodic_gpu_once(const tl_algorithm *self, const tl_batch *sys, void *xv,
                                     const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  if (sys->dtype != TL_F64 || !sys->periodic)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "dtype",
                   "thomas_periodic_gpu solves periodic float64 batches");
  size_t n = sys->n, nsys = sys->nsys;
  double *x = xv;
  packed_batch p = {0};
  /* n <= 2 (folded by tl_solve) has no recurrence to run: every system
   * goes to the reference, as below for the systems that are not clean. */
  if (n >= 3) {
    TL_CALL(packed_make(sys, 2, &p, info));
    int st = tl_gpu_thomas_periodic_sz_d(n, nsys, p.a, p.b, p.c, p.d, p.w, p.stat, info);
    if (launch_error(st)) {
      packed_free(&p);
      return st;
    }
    tl_cpu_unpack_batch_d(n, nsys, TL_GPU_SZ, p.d, x, NULL);
  }
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    const double *a = sys_d(sys->a, s, n), *b = sys_d(sys->b, s, n), *c = sys_d(sys->c, s, n);
    tl_info one;
    tl_info_clear(&one);
    int sst = TL_OK;
    if (n < 3 || !periodic_clean(n, a, b, c, p.stat + s * TL_GPU_STAT_WORDS))
      sst = tl_thomas_periodic_ref_d(n, a, b, c, sys_d(sys->d, s, n), x + s * n, &one);
    tl_outcome_add(&out, s, sst, &one);
  }
  packed_free(&p);
  return tl_outcome_finish(&out, info);
}

/* ---------------------------------------------------------------- */
/* distd2_gpu: Algorithm 5 on the host, Algorithms 6 and 7 on the GPU */

/* One system: its plan (Algorithm 5, on the host, as the GPU entry point
 * expects: its kernels share one matrix over a batch of right-hand
 * sides), then the decoupling and the interfaces and substitution by the
 * two kernels, on a packed group of one system. The status is the GPU
 * entry point's, which follows the reference's order of failures and
 * verdict (tl_gpu_distd2_sz_d). */
static int distd2_gpu_system(const tl_algorithm *self, const tl_batch *one, void *x,
                             const tl_options *opt, tl_info *info)
{
  size_t n = one->n;
  tl_distd2_plan plan;
  TL_CALL(tl_distd2_plan_create_d(&plan, n, one->periodic, opt->parts, opt->part_sizes, one->a,
                                  one->b, one->c, info));
  double *pd = packed_copy(n, 1, one->d, 0, 0);
  double *px = tl_alloc(tl_cpu_packed_count(n, 1, TL_GPU_SZ), sizeof *px);
  int status = TL_OK;
  if (!pd || !px)
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2_gpu: no memory");
  else
    status = tl_gpu_distd2_sz_d(&plan, 1, pd, px, tl_param_value(self, opt, "tol"), info);
  if (pd && px && tl_status_has_solution(status))
    tl_cpu_unpack_batch_d(n, 1, TL_GPU_SZ, px, x, NULL);
  free(pd);
  free(px);
  tl_distd2_plan_destroy(&plan);
  return status;
}

static int distd2_gpu_once(const tl_algorithm *self, const tl_batch *sys, void *x,
                            const tl_options *opt, tl_info *info)
{
  TL_CALL(partitioned_ok("distd2_gpu", "blocks per group", 1, sys, opt, info));
  return tl_for_each_system(self, sys, x, opt, info, distd2_gpu_system);
}

/* ---------------------------------------------------------------- */
/* pdd_gpu: the local phase on the GPU, the exchange on the host      */

/* Phases 2-6 of one system whose local phase the kernel ran cleanly:
 * the partitions' states from the kernel's spikes, dropped entries and
 * margins (tl_pdd_part_d, as tl_pdd_ref_local_d and
 * tl_pdd_bound_local_d would leave them), then the reference's exchange
 * on the host, where an MPI rank would send its messages. */
static int pdd_gpu_finish(const tl_batch *sys, size_t s, const tl_options *opt, const double *v,
                          const double *w, const double *part, const int *stat, double tol,
                          double *x, tl_info *info)
{
  size_t n = sys->n;
  int P = opt->parts, ready = 0, status = TL_OK;
  tl_pdd_part_d *pt = tl_alloc((size_t)P, sizeof *pt);
  if (!pt)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd_gpu: no memory");
  for (; ready < P; ready++) {
    tl_pdd_part_d *q = &pt[ready];
    size_t k = 3 * (s * (size_t)P + (size_t)ready); /* the kernel's words of (s, ready) */
    TL_CHECK(tl_pdd_part_init_d(q, n, P, opt->part_sizes, ready, info));
    tl_pdd_ref_local_taken_d(q, v + s * n + q->begin, w + s * n + q->begin, part + k,
                             stat[k + 2]);
  }
  status = tl_pdd_ref_exchange_d(pt, P, sys_d(sys->a, s, n), sys_d(sys->c, s, n), x + s * n, tol,
                                 "pdd_gpu", NULL, info);
cleanup:
  for (int p = 0; p < ready; p++)
    tl_pdd_part_free_d(&pt[p]);
  free(pt);
  return status;
}

static int pdd_gpu_once(const tl_algorithm *self, const tl_batch *sys, void *xv,
                         const tl_options *opt, tl_info *info)
{
  TL_CALL(partitioned_ok("pdd_gpu", "threads of a block", 0, sys, opt, info));
  size_t n = sys->n, nsys = sys->nsys, per = 3 * nsys * (size_t)opt->parts;
  double *x = xv, tol = tl_param_value(self, opt, "tol");
  double *v = tl_alloc(n * nsys, sizeof *v), *w = tl_alloc(n * nsys, sizeof *w);
  double *part = tl_alloc(per, sizeof *part);
  int *stat = tl_alloc(per, sizeof *stat);
  int status = TL_OK;
  if (!v || !w || !part || !stat) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd_gpu: no memory");
    goto cleanup;
  }
  /* Phase 1 of every partition of every system: y into x, the spikes. */
  status = tl_gpu_pdd_local_d(n, nsys, opt->parts, opt->part_sizes, sys->a, sys->b, sys->c, sys->d,
                              x, v, w, part, stat, info);
  if (launch_error(status))
    goto cleanup;
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    tl_info one;
    tl_info_clear(&one);
    int sst;
    if (system_clean(stat, s, (size_t)opt->parts))
      sst = pdd_gpu_finish(sys, s, opt, v, w, part, stat, tol, x, &one);
    else /* the kernel found a breakdown: the reference says where and why */
      sst = tl_pdd_ref_solve_d(n, sys_d(sys->a, s, n), sys_d(sys->b, s, n), sys_d(sys->c, s, n),
                               sys_d(sys->d, s, n), x + s * n, opt->parts, opt->part_sizes, tol,
                               NULL, &one);
    tl_outcome_add(&out, s, sst, &one);
  }
  status = tl_outcome_finish(&out, info);
cleanup:
  free(v);
  free(w);
  free(part);
  free(stat);
  return status;
}

/* ---------------------------------------------------------------- */
/* spike_gpu: phases 1-3 on the GPU, the reduced system on the host   */

/* SPIKE's shared phases word their reports with the variant's name; the
 * GPU's local phase is spike's (partial pivoting), so only the name. */
static const tl_spike_variant spike_gpu_variant = {.name = "spike_gpu", .words = 5};

static int spike_gpu_once(const tl_algorithm *self, const tl_batch *sys, void *xv,
                          const tl_options *opt, tl_info *info)
{
  TL_CALL(partitioned_ok("spike_gpu", "threads of a block", 0, sys, opt, info));
  size_t n = sys->n, nsys = sys->nsys, P = (size_t)opt->parts;
  tl_spike_mode mode;
  TL_CALL(tl_spike_mode_of(self, opt, &mode, info));
  double *x = xv, *v = tl_alloc(n * nsys, sizeof *v), *w = tl_alloc(n * nsys, sizeof *w);
  double *tips = tl_alloc(TL_SPIKE_SEND * P * nsys, sizeof *tips);
  int *stat = tl_alloc(3 * P * nsys, sizeof *stat), status = TL_OK;
  if (!v || !w || !tips || !stat) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "spike_gpu: no memory");
    goto cleanup;
  }
  /* Phases 1-3 of every partition of every system: g into x, V, W, the tips. */
  status = tl_gpu_spike_local_d(n, nsys, opt->parts, opt->part_sizes, sys->a, sys->b, sys->c,
                                sys->d, x, v, w, tips, stat, info);
  if (launch_error(status))
    goto cleanup;
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    const double *a = sys_d(sys->a, s, n), *b = sys_d(sys->b, s, n), *c = sys_d(sys->c, s, n);
    const double *d = sys_d(sys->d, s, n);
    double *xs = x + s * n;
    tl_info one;
    tl_info_clear(&one);
    int sst;
    if (system_clean(stat, s, P)) /* phases 4-5 and the verdict on the host, x = g - V .. - W .. */
      sst = tl_spike_finish_d(&spike_gpu_variant, &mode, n, opt->parts, opt->part_sizes, a, b, c,
                              d, NULL, xs, v + s * n, w + s * n, tips + TL_SPIKE_SEND * P * s, xs,
                              NULL, &one);
    else /* a singular block or an overflow: the reference says where and why */
      sst = tl_spike_run_mode_d(&tl_spike_partial, &mode, n, opt->parts, opt->part_sizes, a, b, c,
                                d, xs, NULL, &one);
    tl_outcome_add(&out, s, sst, &one);
  }
  status = tl_outcome_finish(&out, info);
cleanup:
  free(v);
  free(w);
  free(tips);
  free(stat);
  return status;
}

/* ---------------------------------------------------------------- */
/* --param orders=all: the kernels in every order                     */

/* The emulator runs a block's threads, and a launch's blocks, in one
 * order per solve (tl_gpu_set_order_pair: by default both shuffled).
 * With orders=all (the default) a backend solves the batch in each of the
 * four order pairs, which together run every thread order and every
 * block order, and requires the same status, system and row and the same
 * bits of x: an answer that depends on the order is a race, reported as
 * one (arg "race") even where the checker saw nothing. orders=one runs
 * the default pair only (a quarter of the time). On a device the orders
 * are the hardware's: one solve. */
static const char *const orders_words = "all|one";

static int in_every_order(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                    tl_info *info,
                    int (*once)(const tl_algorithm *, const tl_batch *, void *, const tl_options *,
                                tl_info *))
{
  size_t bytes = sys->n * sys->nsys * tl_dtype_size(sys->dtype);
  int all = tl_param_value(self, opt, "orders") == 0;
  if (!all || strcmp(tl_gpu_backend_name(), "gpu-emulated") != 0)
    return once(self, sys, x, opt, info);
  void *y = tl_alloc(bytes > 0 ? bytes : 1, 1);
  if (!y)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory", self->name);
  const char *first = tl_gpu_set_order_pair(0);
  int status = once(self, sys, x, opt, info), differs = -1;
  for (int k = 1; k < TL_GPU_ORDER_PAIRS && differs < 0 && !launch_error(status); k++) {
    tl_info other;
    tl_info_clear(&other);
    const char *name = tl_gpu_set_order_pair(k);
    int st = once(self, sys, y, opt, &other);
    if (launch_error(st)) { /* a kernel bug the checker found, no memory: not an answer */
      *info = other;
      status = st;
    } else if (st != status || other.system != info->system || other.row != info->row ||
               (tl_status_has_solution(st) && memcmp(x, y, bytes) != 0)) {
      differs = k;
      status = TL_FAIL(info, TL_ERR_ARG, -1, -1, "race",
                       "%s: the answer depends on the order the emulator runs threads and blocks "
                       "in (%s: %s; %s: %s): a race, or a block reading another's memory",
                       self->name, first, tl_status_name(status), name, tl_status_name(st));
    }
  }
  tl_gpu_set_order_pair(-1);
  free(y);
  return status;
}

#define EVERY_ORDER(name)                                                                          \
  static int name##_solve(const tl_algorithm *self, const tl_batch *sys, void *x,                  \
                          const tl_options *opt, tl_info *info)                                    \
  {                                                                                                \
    return in_every_order(self, sys, x, opt, info, name##_once);                                         \
  }
EVERY_ORDER(thomas_gpu)
EVERY_ORDER(pcr_gpu)
EVERY_ORDER(thomas_periodic_gpu)
EVERY_ORDER(hybrid_pcr_gpu)
EVERY_ORDER(distd2_gpu)
EVERY_ORDER(pdd_gpu)
EVERY_ORDER(spike_gpu)

#define ORDERS_PARAM                                                                               \
  {"orders", TL_PARAM_CHOICE, 0, 0, 0, orders_words,                                              \
   "all: solve in every thread and block order of the emulator and require the same answer; "    \
   "one: the default order only"}
static const tl_param orders_params[] = {ORDERS_PARAM};
/* distd2_gpu and pdd_gpu: their references' tol, and orders. */
static const tl_param distd2_gpu_params[] = {
    {"tol", TL_PARAM_REAL, TL_DISTD2_DEFAULT_TOL, 0.0, 1.0, NULL,
     "largest reduced-system coupling that may be dropped (default 2^-52 = 2 eps)"},
    ORDERS_PARAM};
static const tl_param pdd_gpu_params[] = {
    {"tol", TL_PARAM_REAL, 2.0 * TL_EPS, 0.0, 1.0, NULL,
     "largest dropped far spike entry accepted as TL_OK (default 2 eps)"},
    ORDERS_PARAM};

/* spike_gpu: spike's truncate, tol and reduced, and orders. */
static const tl_param spike_gpu_params[] = {
    {"truncate", TL_PARAM_INT, 0, 0, 1, NULL,
     "1: truncated SPIKE, the P-1 interfaces' 2x2 systems alone (0: the whole reduced system)"},
    {"tol", TL_PARAM_REAL, 2.0 * TL_EPS, 0.0, 1.0, NULL,
     "truncate=1: largest dropped far spike entry accepted as TL_OK (default 2 eps)"},
    {"reduced", TL_PARAM_CHOICE, 0, 0, 0, "band|recursive",
     "band: the reduced system by LAPACK's pivoted band solve; recursive: by recursive SPIKE"},
    ORDERS_PARAM};

/* ---------------------------------------------------------------- */
/* The table                                                         */

/* Each backend names the reference whose algorithm its kernel runs and
 * inherits from it what it does not state (family, classes, layouts,
 * partitioning, exactness; registry.h): a backend says only where it
 * differs -- double only, its own summary and source. Run by emulation
 * unless a device build is linked in (tl_gpu_room_backend then names the
 * device, from a static constructor, before the registry is first read).
 * The descriptors are not const for that one change of name. Where a
 * kernel cannot take a case (more than 1024 partitions, a device call
 * that fails) it says unsupported and tl_solve answers with the
 * reference. */
extern const tl_algorithm tl_algo_thomas_ref, tl_algo_pcr_ref, tl_algo_thomas_periodic_ref,
    tl_algo_hybrid_pcr_ref, tl_algo_distd2_ref, tl_algo_pdd_ref, tl_algo_spike_ref;

#define TL_GPU_COMMON .backend = "gpu-emulated", .dtypes = TL_DTYPE_BIT(TL_F64)
#define TL_GPU_ORDERS .params = orders_params, .nparams = 1

static tl_algorithm tl_algo_thomas_gpu = {
    .name = "thomas_gpu",
    .reference = &tl_algo_thomas_ref,
    TL_GPU_COMMON,
    .summary = "Thomas kernel, one GPU thread per system of a 32-system packed group, in place",
    .source = "paper 000 (DistD2-TDS) §2.1 Algorithm 1, §4.1 (SZ-packed groups)",
    TL_GPU_ORDERS,
    .solve = thomas_gpu_solve,
};

static tl_algorithm tl_algo_pcr_gpu = {
    .name = "pcr_gpu",
    .reference = &tl_algo_pcr_ref,
    TL_GPU_COMMON,
    .summary = "PCR kernel, one GPU thread block per system in shared memory, any n",
    .source = "Hockney & Jesshope 1981; paper 002 (Tridsolver) distributed algorithms",
    TL_GPU_ORDERS,
    .solve = pcr_gpu_solve,
};

static tl_algorithm tl_algo_thomas_periodic_gpu = {
    .name = "thomas_periodic_gpu",
    .reference = &tl_algo_thomas_periodic_ref,
    TL_GPU_COMMON,
    .summary = "periodic Thomas kernel (Sherman-Morrison), one GPU thread per system",
    .source = "paper 000 (DistD2-TDS) §2.1 (periodic Thomas); Sherman-Morrison 1950",
    TL_GPU_ORDERS,
    .solve = thomas_periodic_gpu_solve,
};

static tl_algorithm tl_algo_hybrid_pcr_gpu = {
    .name = "hybrid_pcr_gpu",
    .reference = &tl_algo_hybrid_pcr_ref,
    TL_GPU_COMMON,
    .summary = "hybrid Thomas-PCR kernel: a GPU thread per partition, the reduced system by PCR "
               "in the block",
    .source = "paper 002 (Tridsolver) Algorithms 3, 4; paper 000 (DistD2-TDS) §2.2.1",
    TL_GPU_ORDERS,
    .solve = hybrid_pcr_gpu_solve,
};

static tl_algorithm tl_algo_distd2_gpu = {
    .name = "distd2_gpu",
    .reference = &tl_algo_distd2_ref,
    TL_GPU_COMMON,
    .summary = "DistD2 kernels: Algorithm 5 on the host, the decoupling and the interfaces on the "
               "GPU, a block per partition",
    .source = "paper 000 (DistD2-TDS) §4.2 Algorithms 5, 6, 7",
    .params = distd2_gpu_params,
    .nparams = (int)(sizeof distd2_gpu_params / sizeof distd2_gpu_params[0]),
    .solve = distd2_gpu_solve,
};

static tl_algorithm tl_algo_pdd_gpu = {
    .name = "pdd_gpu",
    .reference = &tl_algo_pdd_ref,
    TL_GPU_COMMON,
    .summary = "PDD: local solves and spikes on the GPU (a thread per partition), the 2x2 "
               "interfaces and the correction on the host",
    .source = "paper 000 (DistD2-TDS) §2.2.2 Algorithm 4; Sun 1995",
    .params = pdd_gpu_params,
    .nparams = (int)(sizeof pdd_gpu_params / sizeof pdd_gpu_params[0]),
    .solve = pdd_gpu_solve,
};

static tl_algorithm tl_algo_spike_gpu = {
    .name = "spike_gpu",
    .reference = &tl_algo_spike_ref,
    TL_GPU_COMMON,
    .summary = "SPIKE: blocks factored with partial pivoting, spikes and tips on the GPU (a thread "
               "per partition), the reduced system and the retrieval on the host",
    .source = "Polizzi and Sameh 2006; Chang, Stratton, Kim and Hwu SC12 (SPIKE on a GPU); LAPACK "
              "DGTTRF/DGTTRS",
    .params = spike_gpu_params,
    .nparams = (int)(sizeof spike_gpu_params / sizeof spike_gpu_params[0]),
    .solve = spike_gpu_solve,
};

void tl_gpu_room_backend(const char *name)
{
  tl_algo_thomas_gpu.backend = name;
  tl_algo_pcr_gpu.backend = name;
  tl_algo_thomas_periodic_gpu.backend = name;
  tl_algo_hybrid_pcr_gpu.backend = name;
  tl_algo_distd2_gpu.backend = name;
  tl_algo_pdd_gpu.backend = name;
  tl_algo_spike_gpu.backend = name;
}

static const tl_algorithm *const algorithms[] = {
    &tl_algo_thomas_gpu,
    &tl_algo_pcr_gpu,
    &tl_algo_thomas_periodic_gpu,
    &tl_algo_hybrid_pcr_gpu,
    &tl_algo_distd2_gpu,
    &tl_algo_pdd_gpu,
    &tl_algo_spike_gpu,
};

const tl_room tl_room_gpu = {
    .name = "gpu",
    .algorithms = algorithms,
    .count = sizeof algorithms / sizeof algorithms[0],
};
