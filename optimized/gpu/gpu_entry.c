/* optimized/gpu/gpu_entry.c -- the entry points of tridlab/gpu.h: the
 * GPU kernels (gpu_kernels.h) for double and for float, each wrapped in
 * a function that checks its arguments, runs the kernel through
 * dispatch -- on the device a device build installed, else on the host
 * grid of gpu_emulator.h -- and turns the status words into the batch
 * status (docs/gpu.md).
 *
 * The part before TL_GPU_PASS is compiled once; the entry points after
 * it are written once for a scalar T and compiled for double and float
 * (gpu_each_precision.h includes this file again for each).
 */
#ifndef TL_GPU_PASS
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "tl_gpu_port.h"
#include "tridlab/backend.h"
#include "tridlab/gpu.h"
#include "tridlab/part_distd2.h"

/* The device installed by a device build, or NULL: emulate. */
static const tl_gpu_device_ops *device;

void tl_gpu_use_device(const tl_gpu_device_ops *ops)
{
  device = ops;
  tl_gpu_room_backend(tl_gpu_backend_name());
}

const char *tl_gpu_backend_name(void)
{
  return device ? device->name : "gpu-emulated";
}

const tl_gpu_device_ops *tl_gpu_device_installed(void)
{
  return device;
}

/* tl_gpu_hybrid_chip's setting (tridlab/gpu.h): the on-chip hybrid
 * kernel wherever it applies, unless a caller turned it off. */
static int hybrid_chip_on = 1;

int tl_gpu_hybrid_chip(int mode)
{
  int before = hybrid_chip_on;
  if (mode == 0 || mode == 1)
    hybrid_chip_on = mode;
  return before;
}

/* A device call's result: TL_OK, or unsupported with the runtime's
 * message (the caller may fall back to the reference). */
int tl_gpu_device_failed(const tl_gpu_device_ops *dev, const char *who, const char *err,
                         tl_info *info)
{
  return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "device", "%s on the %s device: %s", who,
                 dev->name, err);
}

static int device_result(int rc, const char *who, const char *err, tl_info *info)
{
  return rc == 0 ? TL_OK : tl_gpu_device_failed(device, who, err, info);
}

int tl_gpu_batch_status(const char *who, size_t nsys, const int *stat, tl_info *info)
{
  for (size_t s = 0; s < nsys; s++) {
    const int *st = stat + s * TL_GPU_STAT_WORDS;
    if (st[0] == TL_GPU_PIVOT)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)s, st[1], "",
                     "%s: zero or non-finite pivot at row %d of system %zu", who, st[1], s);
    if (st[0] != TL_GPU_OK)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)s, st[1], "",
                     "%s: non-finite result (overflow) at row %d of system %zu", who, st[1], s);
  }
  return TL_OK;
}

/* The arrays of one emulated call the checker watches (gpu_emulator.h):
 * name, values, and whether they hold values before the kernels run
 * (inputs: 1) or are the kernels' to store first (outputs, and scratch
 * the device path allocates for itself: 0, as a device's memory is
 * unset). Watched for the call, then forgotten. */
typedef tl_gpu_watch_spec watch_spec; /* gpu_internal.h */

void tl_gpu_watch_each(const watch_spec *w, size_t n)
{
  for (size_t k = 0; k < n; k++)
    tl_gpu_global_watch(w[k].p, w[k].count, w[k].size, w[k].name, w[k].set);
}

static void forget_each(const watch_spec *w, size_t n)
{
  for (size_t k = 0; k < n; k++)
    tl_gpu_global_forget(w[k].p);
}

#define WATCHING(spec, launches)                                                                   \
  do {                                                                                             \
    tl_gpu_watch_each(spec, sizeof spec / sizeof spec[0]);                                         \
    launches;                                                                                      \
    forget_each(spec, sizeof spec / sizeof spec[0]);                                               \
  } while (0)

/* The kernels, once per precision. */
#define TL_GPU_EACH "gpu_kernels.h"
#include "gpu_each_precision.h"

static int check_sizes(const char *who, size_t n, size_t nsys, size_t min_n, tl_info *info)
{
  if (n < min_n || nsys < 1 || n > (size_t)INT32_MAX || nsys > (size_t)INT32_MAX)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "%s: n = %zu (at least %zu), nsys = %zu", who, n,
                   min_n, nsys);
  return TL_OK;
}

/* The first row of each of the P partitions, and n: P + 1 offsets. */
static long *partition_offsets(size_t n, int parts, const size_t *part_sizes)
{
  long *off = tl_alloc((size_t)parts + 1, sizeof *off);
  for (int p = 0; off && p < parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    off[p] = (long)lo;
    off[p + 1] = (long)hi;
  }
  return off;
}

/* The status of a DistD2 batch from the words of its (system, partition)
 * pairs, in the order the reference meets failures in one system: the
 * decoupling of every partition, the interfaces, the substitutions. Then,
 * when every system solved, the verdict on what was dropped, which
 * depends on the matrix only (tl_distd2_verdict). */
static int distd2_system_status(const int *w, int parts, tl_info *one)
{
  static const char *const what[3] = {"overflow in the decoupling phase at row %d",
                                      "the 2x2 system across the interface after row %d is "
                                      "singular",
                                      "overflow in the substitution at row %d"};
  for (int k = 0; k < 3; k++)
    for (int p = 0; p < parts; p++)
      if (w[3 * p + k] >= 0) {
        char msg[120];
        snprintf(msg, sizeof msg, what[k], w[3 * p + k]);
        return TL_FAIL(one, TL_ERR_BREAKDOWN, -1, w[3 * p + k], "", "distd2_gpu: %s", msg);
      }
  return TL_OK;
}

static int distd2_batch_status(const tl_distd2_plan *plan, size_t nsys, const int *stat, double tol,
                               tl_info *info)
{
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    tl_info one;
    tl_info_clear(&one);
    tl_outcome_add(&out, s, distd2_system_status(stat + 3 * s * plan->parts, plan->parts, &one),
                   &one);
  }
  if (out.status < 0)
    return tl_outcome_finish(&out, info);
  double dropped = 0, kappa = 1;
  long drop_row = -1;
  for (int p = 0; p < plan->parts; p++) { /* the 2x2 matrices, without right-hand sides */
    tl_distd2_edge left, right;
    double xl, xf, dp, kp;
    long row = (long)plan->begin[p + 1] - 1;
    tl_distd2_pack_d(plan, p, plan->sa, &left); /* any dt: only the matrix is read here */
    tl_distd2_pack_d(plan, (p + 1) % plan->parts, plan->sa, &right);
    if (tl_distd2_interface_d(&left, &right, plan->parts == 1, &xl, &xf, &dp, &kp, row, NULL))
      continue;
    if (drop_row < 0 || dp > dropped) {
      dropped = dp;
      drop_row = row;
    }
    kappa = fmax(kappa, kp);
  }
  tl_info_clear(info);
  return tl_distd2_verdict(plan, dropped, drop_row, kappa, tol, info);
}

/* The first failure of PDD's local phase over (system, partition) pairs,
 * in the reference's order: system by system, partition by partition. */
static int pdd_local_status(size_t nsys, int parts, const int *stat, tl_info *info)
{
  for (size_t q = 0; q < nsys * (size_t)parts; q++)
    if (stat[3 * q])
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(q / (size_t)parts), stat[3 * q + 1], "",
                     "pdd_gpu: zero or non-finite pivot at row %d in %s of partition %d "
                     "(elimination without pivoting breaks down)",
                     stat[3 * q + 1], stat[3 * q] == 1 ? "the local solve" : "a spike",
                     (int)(q % (size_t)parts));
  return TL_OK;
}

int tl_gpu_pdd_local_verdict(size_t nsys, int parts, const int *stat, tl_info *info)
{
  return pdd_local_status(nsys, parts, stat, info);
}

/* The first failure of SPIKE's local phase (stat: kind, global row, 0
 * per (system, partition)), the system and row in info. */
static int spike_local_status(size_t nsys, int parts, const int *stat, tl_info *info)
{
  for (size_t q = 0; q < nsys * (size_t)parts; q++)
    if (stat[3 * q])
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)(q / (size_t)parts), stat[3 * q + 1], "",
                     stat[3 * q] == 1 ? "spike_gpu: the diagonal block of partition %d is "
                                        "singular (a zero or non-finite U at row %d)"
                                      : "spike_gpu: partition %d: non-finite local solution or "
                                        "spike at row %d",
                     (int)(q % (size_t)parts), stat[3 * q + 1]);
  return TL_OK;
}

void tl_gpu_distd2_flatten(const tl_distd2_plan *plan, const double st[5], double *coef,
                           long *begin)
{
  size_t n = plan->n, P = (size_t)plan->parts;
  const double *from[5] = {plan->sa, plan->sc, plan->fwd_scale, plan->fwd_mul, plan->bwd_mul};
  for (size_t k = 0; k < 5; k++)
    memcpy(coef + k * n, from[k], n * sizeof(double));
  memcpy(coef + 5 * n, plan->fix_scale, P * sizeof(double));
  for (int k = 0; k < 5; k++)
    coef[5 * n + P + (size_t)k] = st ? st[k] : 0;
  for (size_t p = 0; p <= P; p++)
    begin[p] = (long)plan->begin[p];
}

/* Only the double kernels have a device path (the registry's). */
#define TL_GPU_DEVICE_CALLS TL_GPU_DOUBLE
#define TL_GPU_PASS 1
#define TL_GPU_EACH "gpu_entry.c"
#include "gpu_each_precision.h"
#undef TL_GPU_PASS

#else /* ---- the entry points, once per precision ---- */

/* One kernel call of an entry point: its arguments, as its device path
 * and its emulated path both take them (each kernel reads its own). */
typedef struct KF(gpu_call) {
  const char *who;        /* the entry point, for messages               */
  size_t n, nsys;         /* rows per system, systems                    */
  int parts;              /* hybrid_pcr, pdd_local, distd2: partitions   */
  int edges;              /* pdd_local: neighbours beyond the batch      */
  const long *off;        /* their first rows, then n (distd2: begin)    */
  const T *a, *b, *c, *d; /* the batch (distd2: d, or u with a stencil)  */
  T *x;                   /* the answer (packed Thomas: d, in place)     */
  T *w;                   /* scratch c' (packed), d' (distd2); pdd's w   */
  T *y, *v, *part;        /* pdd_local: y, v and what PDD drops          */
  int *stat;              /* the status words                            */
  int periodic, stencil;  /* distd2: a periodic plan; d holds u          */
  const T *coef;          /* distd2: the plan, flattened; distd2 slices:  */
                          /* the plans' rows, 5 m per system            */
  const T *fix;           /* distd2 slices: fix_scale per system (decouple) */
                          /* or x_first, x_last per system (substitute) */
  T *edge;                /* distd2 slices: the rows the exchange sends   */
} KF(gpu_call);

typedef int (*KF(gpu_on_device))(const KF(gpu_call) *k, char *err, size_t len);
typedef int (*KF(gpu_emulated))(const KF(gpu_call) *k, tl_info *info);

/* Where a kernel call runs -- the one place that chooses (docs/gpu.md,
 * "Device or emulator"): on the device a device build installed
 * (tl_gpu_use_device), when there is one and the entry point has a
 * device path (on_device; NULL in float: the device table is double's),
 * else on the host grid of gpu_emulator.h (emulate launches the kernels).
 * Returns TL_OK, a device error as unsupported with the runtime's
 * message, or the emulation's error (no memory; a kernel bug, from
 * tl_gpu_launch_status). The caller then reads the status words. */
static int KF(run_emulated)(const KF(gpu_call) * k, KF(gpu_emulated) emulate, tl_info *info)
{
  TL_CALL(emulate(k, info));
  return tl_gpu_launch_status(info);
}

static int KF(dispatch)(const KF(gpu_call) *k, KF(gpu_on_device) on_device,
                        KF(gpu_emulated) emulate, tl_info *info)
{
  if (device && on_device) {
    char err[200] = "";
    return device_result(on_device(k, err, sizeof err), k->who, err, info);
  }
  return KF(run_emulated)(k, emulate, info);
}

/* The device paths: the device table's functions (tridlab/gpu.h,
 * tl_gpu_device_ops), which copy the arrays there and back. */
#if TL_GPU_DEVICE_CALLS
static int KF(thomas_sz_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->thomas_sz(k->n, k->nsys, k->a, k->b, k->c, k->x, k->stat, err, len);
}

static int KF(thomas_periodic_sz_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->thomas_periodic_sz(k->n, k->nsys, k->a, k->b, k->c, k->x, k->stat, err, len);
}

static int KF(pcr_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->pcr(k->n, k->nsys, k->a, k->b, k->c, k->d, k->x, k->stat, err, len);
}

static int KF(hybrid_pcr_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->hybrid_pcr(k->n, k->nsys, k->parts, k->off, k->a, k->b, k->c, k->d, k->x, k->stat,
                            err, len);
}

static int KF(distd2_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->distd2(k->n, k->periodic, k->nsys, k->parts, k->off, k->coef, k->stencil, k->d,
                        k->x, k->stat, err, len);
}

static int KF(pdd_local_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->pdd_local(k->n, k->nsys, k->parts, k->edges, k->off, k->a, k->b, k->c, k->d,
                           k->y, k->v, k->w, k->part, k->stat, err, len);
}
static int KF(spike_local_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->spike_local(k->n, k->nsys, k->parts, k->off, k->a, k->b, k->c, k->d, k->y, k->v,
                             k->w, k->part, k->stat, err, len);
}
static int KF(distd2_slice_decouple_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->distd2_slice_decouple(k->n, k->nsys, k->coef, k->fix, k->d, k->w, k->edge,
                                       k->stat, err, len);
}
static int KF(distd2_slice_substitute_on_device)(const KF(gpu_call) *k, char *err, size_t len)
{
  return device->distd2_slice_substitute(k->n, k->nsys, k->coef, k->fix, k->d, k->x, k->stat,
                                         err, len);
}
#define ON_DEVICE(f) f
#else
#define ON_DEVICE(f) NULL
#endif

/* The emulated paths: scratch the device path allocates for itself,
 * then the launches. Scratch comes from tl_gpu_scratch_alloc, poisoned
 * (NaN) as a device's memory is unset: a kernel that reads scratch it
 * never wrote gives NaN here, not a zero that happens to be right. */
static int KF(thomas_sz_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  (void)info;
  long groups = (long)((k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  size_t all = (size_t)groups * TL_GPU_SZ * k->n, z = sizeof(T);
  watch_spec w[] = {{k->a, all, z, "a", 1},
                    {k->b, all, z, "b", 1},
                    {k->c, all, z, "c", 1},
                    {k->x, all, z, "d", 1},
                    {k->w, all, z, "c' (scratch)", 0},
                    {k->stat, 3 * k->nsys, sizeof(int), "stat", 0}};
  WATCHING(w, TL_LAUNCH(KF(thomas_sz_kernel), groups, TL_GPU_SZ, 0, (long)k->n, (long)k->nsys, k->a,
                        k->b, k->c, k->x, k->w, k->stat));
  return TL_OK;
}

static int KF(thomas_periodic_sz_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  (void)info;
  long groups = (long)((k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  size_t all = (size_t)groups * TL_GPU_SZ * k->n, z = sizeof(T);
  watch_spec w[] = {{k->a, all, z, "a", 1},
                    {k->b, all, z, "b", 1},
                    {k->c, all, z, "c", 1},
                    {k->x, all, z, "d", 1},
                    {k->w, 2 * all, z, "c' and z (scratch)", 0},
                    {k->stat, 3 * k->nsys, sizeof(int), "stat", 0}};
  WATCHING(w, TL_LAUNCH(KF(periodic_sz_kernel), groups, TL_GPU_SZ, 0, (long)k->n, (long)k->nsys,
                        k->a, k->b, k->c, k->x, k->w, k->stat));
  return TL_OK;
}

/* The batch layout's arrays a, b, c, d (inputs) and x (output) of n
 * rows per system, and the status words: w[0..5]. */
#define BATCH_SPEC(k)                                                                              \
  {k->a, k->n * k->nsys, sizeof(T), "a", 1}, {k->b, k->n * k->nsys, sizeof(T), "b", 1},            \
      {k->c, k->n * k->nsys, sizeof(T), "c", 1}, {k->d, k->n * k->nsys, sizeof(T), "d", 1},        \
  {                                                                                                \
    k->x, k->n * k->nsys, sizeof(T), "x", 0                                                        \
  }

static int KF(pcr_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  size_t shared;
  int global, threads = tl_gpu_pcr_launch(k->n, sizeof(T), &shared, &global);
  T *gbuf = NULL; /* the work systems: shared memory when they fit */
  if (global && !(gbuf = tl_gpu_scratch_alloc(8 * k->n * k->nsys, sizeof(T))))
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pcr: no memory for the work systems");
  watch_spec w[] = {BATCH_SPEC(k), {k->stat, 3 * k->nsys, sizeof(int), "stat", 0}};
  WATCHING(w, TL_LAUNCH(KF(pcr_kernel), (long)k->nsys, threads, shared, (long)k->n, k->a, k->b,
                        k->c, k->d, k->x, gbuf, k->stat));
  tl_gpu_scratch_free(gbuf);
  return TL_OK;
}

static int KF(hybrid_pcr_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  size_t shared;
  int per, chip = tl_gpu_hybrid_chip(-1) &&
                  tl_gpu_hybrid_chip_fits(k->n, k->parts, k->off, sizeof(T), &shared, &per);
  T *work = NULL; /* hybrid_kernel's scratch; the on-chip kernel needs none */
  if (!chip &&
      !(work = tl_gpu_scratch_alloc(k->nsys, TL_HYBRID_WORK(k->n, (size_t)k->parts) * sizeof(T))))
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "hybrid_pcr: no memory for scratch");
  watch_spec w[] = {BATCH_SPEC(k),
                    {k->off, (size_t)k->parts + 1, sizeof(long), "off", 1},
                    {k->stat, 3 * k->nsys, sizeof(int), "stat", 0}};
  WATCHING(w, {
    if (chip)
      TL_LAUNCH(KF(hybrid_chip_kernel), (long)k->nsys, k->parts, shared, (long)k->n, k->parts,
                per, k->off, k->a, k->b, k->c, k->d, k->x, k->stat);
    else
      TL_LAUNCH(KF(hybrid_kernel), (long)k->nsys, k->parts,
                4 * (size_t)k->parts * sizeof(long long), (long)k->n, k->parts, k->off, k->a,
                k->b, k->c, k->d, k->x, work, k->stat);
  });
  tl_gpu_scratch_free(work);
  return TL_OK;
}

static int KF(distd2_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  (void)info;
  size_t n = k->n, P = (size_t)k->parts, groups = (k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  size_t all = groups * TL_GPU_SZ * n;
  const T *cf = k->coef, *fix = cf + 5 * n, *st = fix + P;
  KF(distd2_coef) q = {k->off, cf, cf + n, cf + 2 * n, cf + 3 * n, cf + 4 * n, fix};
  watch_spec w[] = {{k->d, all, sizeof(T), k->stencil ? "u" : "d", 1},
                    {k->x, all, sizeof(T), "x", 0},
                    {cf, 5 * n + P + 5, sizeof(T), "the plan", 1},
                    {k->off, P + 1, sizeof(long), "begin", 1},
                    {k->stat, 3 * P * k->nsys, sizeof(int), "stat", 0}};
  WATCHING(w, {
    TL_LAUNCH(KF(distd2_decouple_kernel), (long)(groups * P), TL_GPU_SZ, 0, (long)n, k->periodic,
              (long)k->nsys, (int)P, q, k->stencil ? st : NULL, k->d, k->w, k->stat);
    TL_LAUNCH(KF(distd2_finish_kernel), (long)(groups * P), TL_GPU_SZ, 0, (long)n, (long)k->nsys,
              (int)P, q, k->w, k->x, k->stat);
  });
  return TL_OK;
}

/* One rank's DistD2 slices (the batch layout, m = k->n rows, a plan
 * per system): the plans' rows and d (or d' and x_first, x_last) in,
 * d' (or x) out, and the status words. */
static int KF(distd2_slice_decouple_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  (void)info;
  size_t m = k->n, nsys = k->nsys, z = sizeof(T);
  long groups = (long)((nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  watch_spec w[] = {{k->coef, 5 * m * nsys, z, "the plans", 1},
                    {k->fix, nsys, z, "fix_scale", 1},
                    {k->d, m * nsys, z, "d", 1},
                    {k->w, m * nsys, z, "d'", 0},
                    {k->edge, TL_DISTD2_SLICE_EDGE * nsys, z, "edges", 0},
                    {k->stat, 3 * nsys, sizeof(int), "stat", 0}};
  WATCHING(w, TL_LAUNCH(KF(distd2_slice_decouple_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys,
                        k->coef, k->fix, k->d, k->w, k->edge, k->stat));
  return TL_OK;
}

static int KF(distd2_slice_substitute_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  (void)info;
  size_t m = k->n, nsys = k->nsys, z = sizeof(T);
  long groups = (long)((nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  watch_spec w[] = {{k->coef, 5 * m * nsys, z, "the plans", 1},
                    {k->fix, 2 * nsys, z, "x_first, x_last", 1},
                    {k->d, m * nsys, z, "d'", 1},
                    {k->stat, 3 * nsys, sizeof(int), "stat", 0},
                    {k->x, m * nsys, z, "x", 0}};
  size_t watched = k->x == k->d ? 4 : 5; /* in place: x is d', watched once */
  tl_gpu_watch_each(w, watched);
  TL_LAUNCH(KF(distd2_slice_substitute_kernel), groups, TL_GPU_SZ, 0, (long)m, (long)nsys, k->coef,
            k->fix, k->d, k->x, k->stat);
  forget_each(w, watched);
  return TL_OK;
}

/* What the local-phase kernels of PDD and SPIKE watch: the batch a, b,
 * c, d; their outputs y (named `y_name`), v, w of its shape; `per`
 * values of `part_name` and 3 status words per (system, partition); the
 * partitions' first rows. */
#define LOCAL_SPEC(k, y_name, part_name, per)                                                      \
  {k->a, k->n * k->nsys, sizeof(T), "a", 1}, {k->b, k->n * k->nsys, sizeof(T), "b", 1},            \
      {k->c, k->n * k->nsys, sizeof(T), "c", 1}, {k->d, k->n * k->nsys, sizeof(T), "d", 1},        \
      {k->y, k->n * k->nsys, sizeof(T), y_name, 0}, {k->v, k->n * k->nsys, sizeof(T), "v", 0},     \
      {k->w, k->n * k->nsys, sizeof(T), "w", 0},                                                   \
      {k->part, (per) * (size_t)k->parts * k->nsys, sizeof(T), part_name, 0},                     \
      {k->stat, 3 * (size_t)k->parts * k->nsys, sizeof(int), "stat", 0},                          \
      {k->off, (size_t)k->parts + 1, sizeof(long), "off", 1}

static int KF(pdd_local_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  T *scratch = tl_gpu_scratch_alloc(k->n * k->nsys, sizeof(T));
  if (!scratch)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd_local: no memory");
  watch_spec w[] = {LOCAL_SPEC(k, "y", "part", 3)};
  WATCHING(w, TL_LAUNCH(KF(pdd_local_kernel), (long)k->nsys, k->parts, 0, (long)k->n, k->parts,
                        k->edges, k->off, k->a, k->b, k->c, k->d, k->y, k->v, k->w, scratch,
                        k->part, k->stat));
  tl_gpu_scratch_free(scratch);
  return TL_OK;
}

#if TL_GPU_DOUBLE
/* PDD's resident slices (gpu_resident.c): the three slice kernels on
 * host arrays, one thread per system, m = k->n rows. Not watched here:
 * the resident slices keep their arrays watched, under their names, from
 * open to close, so that each kernel's reads are checked against the
 * stores of the kernels before it (a word phase 1 never wrote, read by
 * the ends or the correction), where a watch per call would take every
 * input as set. The local phase: a, b, c, d in; y, v, w, part (3 per
 * system) and stat out; scratch (k->x): m values per system. */
static int KF(pdd_slice_local_emulated)(const KF(gpu_call) * k, tl_info *info)
{
  (void)info;
  long groups = (long)((k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  TL_LAUNCH(KF(pdd_slice_local_kernel), groups, TL_GPU_SZ, 0, (long)k->n, (long)k->nsys, k->edges,
            k->a, k->b, k->c, k->d, k->y, k->v, k->w, k->x, k->part, k->stat);
  return TL_OK;
}

/* The ends: y, v, w in; 6 words per system (k->part) out. */
static int KF(pdd_slice_ends_emulated)(const KF(gpu_call) * k, tl_info *info)
{
  (void)info;
  long groups = (long)((k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  TL_LAUNCH(KF(pdd_slice_ends_kernel), groups, TL_GPU_SZ, 0, (long)k->n, (long)k->nsys, k->y, k->v,
            k->w, k->part);
  return TL_OK;
}

/* The correction: v, w, x_left and x_right (k->fix, 2 per system) in, x
 * (y before) in and out; the largest |x| (k->part) and the first row
 * not finite (k->stat), 1 per system, out. */
static int KF(pdd_slice_correct_emulated)(const KF(gpu_call) * k, tl_info *info)
{
  (void)info;
  long groups = (long)((k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  TL_LAUNCH(KF(pdd_slice_correct_kernel), groups, TL_GPU_SZ, 0, (long)k->n, (long)k->nsys, k->edges,
            k->v, k->w, k->fix, k->x, k->part, k->stat);
  return TL_OK;
}
#endif

#if TL_GPU_DOUBLE
/* The compact scheme across ranks (gpu_resident.c, tl_gpu_compact_
 * resident_*): the plan flattened in k->coef (sa, sc, fwd_scale,
 * fwd_mul, bwd_mul: m each, fix_scale, the stencil), m = k->n rows per
 * group. Not watched here, as PDD's slices: the resident arrays are.
 * Decoupling: u with its ghost rows (k->d) in; d' (k->w), the two ends
 * per system (k->edge) and stat out. */
static KF(distd2_coef) KF(compact_coef)(const KF(gpu_call) * k)
{
  const T *cf = k->coef;
  size_t m = k->n;
  return (KF(distd2_coef)){NULL, cf, cf + m, cf + 2 * m, cf + 3 * m, cf + 4 * m, cf + 5 * m};
}

static int KF(compact_decouple_emulated)(const KF(gpu_call) * k, tl_info *info)
{
  (void)info;
  long groups = (long)((k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  TL_LAUNCH(KF(distd2_compact_decouple_kernel), groups, TL_GPU_SZ, 0, (long)k->n, (long)k->nsys,
            KF(compact_coef)(k), k->coef + 5 * k->n + 1, k->d, k->w, k->edge, k->stat);
  return TL_OK;
}

/* Substitution: x_first, x_last per system (k->fix) and d' (k->w) in, x
 * (k->x, may be d') and stat out. */
static int KF(compact_substitute_emulated)(const KF(gpu_call) * k, tl_info *info)
{
  (void)info;
  long groups = (long)((k->nsys + TL_GPU_SZ - 1) / TL_GPU_SZ);
  TL_LAUNCH(KF(distd2_compact_substitute_kernel), groups, TL_GPU_SZ, 0, (long)k->n, (long)k->nsys,
            KF(compact_coef)(k), k->fix, k->w, k->x, k->stat);
  return TL_OK;
}
#endif

static int KF(spike_local_emulated)(const KF(gpu_call) *k, tl_info *info)
{
  T *factors = tl_gpu_scratch_alloc(5 * k->n * k->nsys, sizeof(T));
  if (!factors)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "spike_local: no memory");
  watch_spec w[] = {LOCAL_SPEC(k, "g", "tips", 6)};
  WATCHING(w, TL_LAUNCH(KF(spike_local_kernel), (long)k->nsys, k->parts, 0, (long)k->n, k->parts,
                        k->off, k->a, k->b, k->c, k->d, k->y, k->v, k->w, factors, k->part,
                        k->stat));
  tl_gpu_scratch_free(factors);
  return TL_OK;
}

/* The entry points of tridlab/gpu.h: check, run the kernel where the
 * kernels run (dispatch), read the status words. */
/* The packed in-place entry points (thomas_sz, thomas_periodic_sz): the
 * sizes (at least min_n rows) and arrays, the dispatch, the batch's
 * status. d becomes x. */
static int KF(packed_entry)(const char *who, size_t min_n, size_t n, size_t nsys, const T *a,
                            const T *b, const T *c, T *d, T *w, int *stat,
                            KF(gpu_on_device) on_device, KF(gpu_emulated) emulate, tl_info *info)
{
  TL_CALL(check_sizes(who, n, nsys, min_n, info));
  if (!a || !b || !c || !d || !w || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "%s: no array may be NULL", who);
  KF(gpu_call) call = {.who = who,
                       .n = n,
                       .nsys = nsys,
                       .a = a,
                       .b = b,
                       .c = c,
                       .d = d,
                       .x = d,
                       .w = w,
                       .stat = stat};
  TL_CALL(KF(dispatch)(&call, on_device, emulate, info));
  return tl_gpu_batch_status(who, nsys, stat, info);
}

int KF(tl_gpu_thomas_sz)(size_t n, size_t nsys, const T *a, const T *b, const T *c, T *d, T *w,
                         int *stat, tl_info *info)
{
  return KF(packed_entry)("thomas_sz", 1, n, nsys, a, b, c, d, w, stat,
                          ON_DEVICE(KF(thomas_sz_on_device)), KF(thomas_sz_emulated), info);
}

int KF(tl_gpu_thomas_periodic_sz)(size_t n, size_t nsys, const T *a, const T *b, const T *c, T *d,
                                  T *w, int *stat, tl_info *info)
{
  return KF(packed_entry)("thomas_periodic_sz", 3, n, nsys, a, b, c, d, w, stat,
                          ON_DEVICE(KF(thomas_periodic_sz_on_device)),
                          KF(thomas_periodic_sz_emulated), info);
}

int KF(tl_gpu_pcr)(size_t n, size_t nsys, const T *a, const T *b, const T *c, const T *d, T *x,
                   int *stat, tl_info *info)
{
  TL_CALL(check_sizes("pcr", n, nsys, 1, info));
  if (!a || !b || !c || !d || !x || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "pcr: no array may be NULL");
  KF(gpu_call) call = {
      .who = "pcr", .n = n, .nsys = nsys, .a = a, .b = b, .c = c, .d = d, .x = x, .stat = stat};
  TL_CALL(KF(dispatch)(&call, ON_DEVICE(KF(pcr_on_device)), KF(pcr_emulated), info));
  return tl_gpu_batch_status("pcr", nsys, stat, info);
}

/* What the partitioned entry points share: the partition count (1 to
 * TL_GPU_MAX_THREADS, partitions of at least min_rows rows, even or of
 * the sizes given, which must sum to n), the partitions' first rows
 * (call->off, one thread each), and the dispatch. */
static int KF(dispatch_parts)(KF(gpu_call) *call, const size_t *part_sizes, size_t min_rows,
                              KF(gpu_on_device) on_device, KF(gpu_emulated) emulate,
                              tl_info *info)
{
  int parts = call->parts;
  int too_small = !part_sizes && parts >= 1 && call->n / (size_t)parts < min_rows;
  size_t sum = 0; /* given sizes: each at least min_rows, summing to n */
  for (int p = 0; part_sizes && p < parts && p <= TL_GPU_MAX_THREADS; p++) {
    too_small |= part_sizes[p] < min_rows;
    sum += part_sizes[p];
  }
  if (part_sizes && parts >= 1 && parts <= TL_GPU_MAX_THREADS && sum != call->n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "%s: partition sizes sum to %zu, not n = %zu",
                   call->who, sum, call->n);
  if (parts < 1 || parts > TL_GPU_MAX_THREADS || too_small)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "%s: %d partitions of %zu rows: 1 to %d partitions of >= %zu row%s", call->who,
                   parts, call->n, TL_GPU_MAX_THREADS, min_rows, min_rows > 1 ? "s" : "");
  long *off = partition_offsets(call->n, parts, part_sizes);
  if (!off)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory", call->who);
  call->off = off;
  int status = KF(dispatch)(call, on_device, emulate, info);
  free(off);
  call->off = NULL;
  return status;
}

int KF(tl_gpu_hybrid_pcr)(size_t n, size_t nsys, int parts, const size_t *part_sizes, const T *a,
                          const T *b, const T *c, const T *d, T *x, int *stat, tl_info *info)
{
  TL_CALL(check_sizes("hybrid_pcr", n, nsys, 2, info));
  if (!a || !b || !c || !d || !x || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "hybrid_pcr: no array may be NULL");
  KF(gpu_call) call = {.who = "hybrid_pcr", .n = n, .nsys = nsys, .parts = parts,
                       .a = a, .b = b, .c = c, .d = d, .x = x, .stat = stat};
  TL_CALL(KF(dispatch_parts)(&call, part_sizes, 2, ON_DEVICE(KF(hybrid_pcr_on_device)),
                             KF(hybrid_pcr_emulated), info));
  return tl_gpu_batch_status("hybrid_pcr", nsys, stat, info);
}

/* DistD2 on packed arrays: both kernels, then the batch status. st:
 * the stencil (fused right-hand side from in = u), or NULL (in = d). */
static int KF(distd2_run)(const tl_distd2_plan *plan, const double *stencil, size_t nsys,
                          const T *in, T *x, double tol, tl_info *info)
{
  if (!plan || !plan->begin || !in || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "plan", "distd2_gpu: no plan or no array");
  TL_CALL(check_sizes("distd2_gpu", plan->n, nsys, 2, info));
  size_t n = plan->n, P = (size_t)plan->parts;
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  T *cf = tl_alloc(5 * n + P + 5, sizeof(T));
  T *dt = tl_gpu_scratch_alloc(groups * TL_GPU_SZ * n, sizeof(T)); /* the decoupled d' */
  double *cd = tl_alloc(5 * n + P + 5, sizeof(double));
  long *begin = tl_alloc(P + 1, sizeof(long));
  int *stat = tl_alloc(nsys * P * 3, sizeof(int));
  int status = TL_OK;
  if (!cf || !cd || !dt || !begin || !stat) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2_gpu: no memory");
    goto cleanup;
  }
  tl_gpu_distd2_flatten(plan, stencil, cd, begin);
  for (size_t k = 0; k < 5 * n + P + 5; k++) /* the plan in the kernel's precision */
    cf[k] = (T)cd[k];
  KF(gpu_call) call = {.who = "distd2",
                       .n = n,
                       .nsys = nsys,
                       .parts = (int)P,
                       .off = begin,
                       .d = in,
                       .x = x,
                       .w = dt,
                       .stat = stat,
                       .periodic = plan->periodic,
                       .stencil = stencil != NULL,
                       .coef = cf};
  status = KF(dispatch)(&call, ON_DEVICE(KF(distd2_on_device)), KF(distd2_emulated), info);
  if (status == TL_OK)
    status = distd2_batch_status(plan, nsys, stat, tol, info);
cleanup:
  free(cf);
  free(cd);
  tl_gpu_scratch_free(dt);
  free(begin);
  free(stat);
  return status;
}

int KF(tl_gpu_distd2_sz)(const tl_distd2_plan *plan, size_t nsys, const T *d, T *x, double tol,
                         tl_info *info)
{
  return KF(distd2_run)(plan, NULL, nsys, d, x, tol, info);
}

int KF(tl_gpu_distd2_stencil_sz)(const tl_distd2_plan *plan, const double st[5], size_t nsys,
                                 const T *u, T *x, double tol, tl_info *info)
{
  if (!st)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "st", "distd2_gpu: no stencil");
  return KF(distd2_run)(plan, st, nsys, u, x, tol, info);
}

/* The status of a rank's DistD2 slices after one of the two kernels:
 * the first system whose words say its d' (word 0) or its x (word 2) is
 * not finite, as TL_ERR_BREAKDOWN with its system and row in the slice. */
static int KF(distd2_slice_status)(const char *what, size_t nsys, const int *stat, int word,
                                   tl_info *info)
{
  for (size_t s = 0; s < nsys; s++)
    if (stat[3 * s + (size_t)word] >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)s, stat[3 * s + (size_t)word], "",
                     "distd2_slice: overflow in the %s at row %d of system %zu", what,
                     stat[3 * s + (size_t)word], s);
  return TL_OK;
}

/* The kernel call of each slice phase, for the entry points below and
 * the resident slices' emulated path. */
static KF(gpu_call) KF(decouple_call)(size_t m, size_t nsys, const T *rows, const T *fix_scale,
                                      const T *d, T *dt, T *edge, int *stat)
{
  return (KF(gpu_call)){.who = "distd2_slice",
                        .n = m,
                        .nsys = nsys,
                        .coef = rows,
                        .fix = fix_scale,
                        .d = d,
                        .w = dt,
                        .edge = edge,
                        .stat = stat};
}

static KF(gpu_call) KF(substitute_call)(size_t m, size_t nsys, const T *rows, const T *ends,
                                        const T *dt, T *x, int *stat)
{
  return (KF(gpu_call)){.who = "distd2_slice",
                        .n = m,
                        .nsys = nsys,
                        .coef = rows,
                        .fix = ends,
                        .d = dt,
                        .x = x,
                        .stat = stat};
}

int KF(tl_gpu_distd2_slice_decouple)(size_t m, size_t nsys, const T *rows, const T *fix_scale,
                                     const T *d, T *dt, T *edge, int *stat, tl_info *info)
{
  TL_CALL(check_sizes("distd2_slice", m, nsys, 2, info));
  if (!rows || !fix_scale || !d || !dt || !edge || !stat || dt == d)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array",
                   "distd2_slice: no array may be NULL, and dt may not be d");
  KF(gpu_call) call = KF(decouple_call)(m, nsys, rows, fix_scale, d, dt, edge, stat);
  TL_CALL(KF(dispatch)(&call, ON_DEVICE(KF(distd2_slice_decouple_on_device)),
                       KF(distd2_slice_decouple_emulated), info));
  return KF(distd2_slice_status)("decoupling", nsys, stat, 0, info);
}

#if TL_GPU_DOUBLE
int tl_gpu_distd2_slice_verdict_d(const char *what, size_t nsys, const int *stat, int word,
                                  tl_info *info)
{
  return KF(distd2_slice_status)(what, nsys, stat, word, info);
}

int tl_gpu_distd2_slice_decouple_emulate_d(size_t m, size_t nsys, const double *rows,
                                           const double *fix_scale, const double *d, double *dt,
                                           double *edge, int *stat, tl_info *info)
{
  KF(gpu_call) call = KF(decouple_call)(m, nsys, rows, fix_scale, d, dt, edge, stat);
  return KF(run_emulated)(&call, KF(distd2_slice_decouple_emulated), info);
}

int tl_gpu_distd2_slice_substitute_emulate_d(size_t m, size_t nsys, const double *rows,
                                             const double *ends, const double *dt, double *x,
                                             int *stat, tl_info *info)
{
  KF(gpu_call) call = KF(substitute_call)(m, nsys, rows, ends, dt, x, stat);
  return KF(run_emulated)(&call, KF(distd2_slice_substitute_emulated), info);
}
#endif

#if TL_GPU_DOUBLE
int tl_gpu_pdd_slice_local_emulate_d(size_t m, size_t nsys, int edges, const double *a,
                                     const double *b, const double *c, const double *d, double *y,
                                     double *v, double *w, double *scratch, double *part, int *stat,
                                     tl_info *info)
{
  KF(gpu_call)
  call = {.who = "pdd_slice",
          .n = m,
          .nsys = nsys,
          .edges = edges,
          .a = a,
          .b = b,
          .c = c,
          .d = d,
          .y = y,
          .v = v,
          .w = w,
          .x = scratch,
          .part = part,
          .stat = stat};
  return KF(run_emulated)(&call, KF(pdd_slice_local_emulated), info);
}

int tl_gpu_pdd_slice_ends_emulate_d(size_t m, size_t nsys, const double *y, const double *v,
                                    const double *w, double *ends, tl_info *info)
{
  KF(gpu_call)
  call = {.who = "pdd_slice",
          .n = m,
          .nsys = nsys,
          .y = (T *)y,
          .v = (T *)v,
          .w = (T *)w,
          .part = ends};
  return KF(run_emulated)(&call, KF(pdd_slice_ends_emulated), info);
}

int tl_gpu_pdd_slice_correct_emulate_d(size_t m, size_t nsys, int edges, const double *v,
                                       const double *w, const double *lr, double *x, double *xmax,
                                       int *row, tl_info *info)
{
  KF(gpu_call)
  call = {.who = "pdd_slice",
          .n = m,
          .nsys = nsys,
          .edges = edges,
          .v = (T *)v,
          .w = (T *)w,
          .fix = lr,
          .x = x,
          .part = xmax,
          .stat = row};
  return KF(run_emulated)(&call, KF(pdd_slice_correct_emulated), info);
}
#endif

#if TL_GPU_DOUBLE
int tl_gpu_compact_decouple_emulate_d(size_t m, size_t nsys, const double *coef, const double *uh,
                                      double *dt, double *ends, int *stat, tl_info *info)
{
  KF(gpu_call)
  call = {.who = "distd2_compact",
          .n = m,
          .nsys = nsys,
          .coef = coef,
          .d = uh,
          .w = dt,
          .edge = ends,
          .stat = stat};
  return KF(run_emulated)(&call, KF(compact_decouple_emulated), info);
}

int tl_gpu_compact_substitute_emulate_d(size_t m, size_t nsys, const double *coef,
                                        const double *xfl, double *dt, double *x, int *stat,
                                        tl_info *info)
{
  KF(gpu_call)
  call = {.who = "distd2_compact",
          .n = m,
          .nsys = nsys,
          .coef = coef,
          .fix = xfl,
          .w = dt,
          .x = x,
          .stat = stat};
  return KF(run_emulated)(&call, KF(compact_substitute_emulated), info);
}
#endif

int KF(tl_gpu_distd2_slice_substitute)(size_t m, size_t nsys, const T *rows, const T *ends,
                                       const T *dt, T *x, int *stat, tl_info *info)
{
  TL_CALL(check_sizes("distd2_slice", m, nsys, 2, info));
  if (!rows || !ends || !dt || !x || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_slice: no array may be NULL");
  KF(gpu_call) call = KF(substitute_call)(m, nsys, rows, ends, dt, x, stat);
  TL_CALL(KF(dispatch)(&call, ON_DEVICE(KF(distd2_slice_substitute_on_device)),
                       KF(distd2_slice_substitute_emulated), info));
  return KF(distd2_slice_status)("substitution", nsys, stat, 2, info);
}

/* PDD's local phase: of whole systems (edges 0), or of a rank's slices
 * (one partition, edges: its neighbours, tl_gpu_pdd_slice_*). */
static int KF(pdd_local_run)(size_t n, size_t nsys, int parts, int edges, const size_t *part_sizes,
                             const T *a, const T *b, const T *c, const T *d, T *y, T *v, T *w,
                             T *part, int *stat, tl_info *info)
{
  TL_CALL(check_sizes("pdd_local", n, nsys, 1, info));
  if (!a || !b || !c || !d || !y || !v || !w || !part || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "pdd_local: no array may be NULL");
  KF(gpu_call) call = {.who = "pdd_local", .n = n, .nsys = nsys, .parts = parts, .edges = edges,
                       .a = a, .b = b, .c = c, .d = d, .y = y, .v = v, .w = w, .part = part,
                       .stat = stat};
  TL_CALL(KF(dispatch_parts)(&call, part_sizes, 1, ON_DEVICE(KF(pdd_local_on_device)),
                             KF(pdd_local_emulated), info));
  return pdd_local_status(nsys, parts, stat, info);
}

int KF(tl_gpu_pdd_local)(size_t n, size_t nsys, int parts, const size_t *part_sizes, const T *a,
                         const T *b, const T *c, const T *d, T *y, T *v, T *w, T *part, int *stat,
                         tl_info *info)
{
  return KF(pdd_local_run)(n, nsys, parts, 0, part_sizes, a, b, c, d, y, v, w, part, stat, info);
}

int KF(tl_gpu_pdd_slice)(size_t m, size_t nsys, int has_left, int has_right, const T *a,
                         const T *b, const T *c, const T *d, T *y, T *v, T *w, T *part, int *stat,
                         tl_info *info)
{
  return KF(pdd_local_run)(m, nsys, 1, (has_left ? 1 : 0) | (has_right ? 2 : 0), NULL, a, b, c, d,
                           y, v, w, part, stat, info);
}

int KF(tl_gpu_spike_local)(size_t n, size_t nsys, int parts, const size_t *part_sizes, const T *a,
                           const T *b, const T *c, const T *d, T *g, T *v, T *w, T *tips,
                           int *stat, tl_info *info)
{
  TL_CALL(check_sizes("spike_local", n, nsys, 1, info));
  if (!a || !b || !c || !d || !g || !v || !w || !tips || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "spike_local: no array may be NULL");
  KF(gpu_call) call = {.who = "spike_local", .n = n, .nsys = nsys, .parts = parts, .a = a, .b = b,
                       .c = c, .d = d, .y = g, .v = v, .w = w, .part = tips, .stat = stat};
  TL_CALL(KF(dispatch_parts)(&call, part_sizes, 1, ON_DEVICE(KF(spike_local_on_device)),
                             KF(spike_local_emulated), info));
  return spike_local_status(nsys, parts, stat, info);
}

#undef ON_DEVICE
#endif
