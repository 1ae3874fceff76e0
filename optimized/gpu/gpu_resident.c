/* optimized/gpu/gpu_resident.c -- one MPI rank's slices kept where the
 * GPU kernels run, across its exchange: DistD2's between Algorithm 6 and
 * Algorithm 7 (tl_gpu_distd2_resident_*: a plan per system; and
 * tl_gpu_compact_resident_*: the compact scheme, one plan, at the end of
 * the file), PDD's from phase 1 to the correction (tl_gpu_pdd_resident_*)
 * (tridlab/gpu.h; docs/gpu.md, "One GPU per MPI rank").
 *
 * The slice entry points (tl_gpu_distd2_slice_decouple_d, _substitute_d)
 * copy every array there and back on every call, so d' makes a round trip
 * through the host between the two kernels. Here the slices stay:
 *
 *      host                         where the kernels run
 *      rows, fix_scale, d  ----->   rows, fix_scale, d        (open)
 *                                   d' = Algorithm 6 (d)      (decouple)
 *      edges, status      <-----    edges, status
 *      exchange, 2x2 systems
 *      ends               ----->    x = Algorithm 7 (d', ends) (substitute)
 *      x, status          <-----
 *
 * Per system of m rows: 6 m + 1 words go there and 6 come back before
 * the exchange, 2 go there and m come back after it (the 3 status words
 * go there once, at open, and come back after each kernel), where the
 * copying entry points move about 14 m there (their outputs are uploaded
 * too: gpu_device.cu) and 2 m back. The memory is the installed device's
 * (its table's alloc, release, put, get and the two kernels on arrays
 * there; a table without them is not used here) or host memory from
 * tl_gpu_scratch_alloc (poisoned, as a device's is unset) on which the
 * emulator runs the same kernels with its checker. A device that has no
 * memory left is TL_ERR_NOMEM, as the host's: the caller may fall back.
 *
 * PDD's slices (below DistD2's) stay from phase 1 to the correction:
 *
 *      host                         where the kernels run
 *      a, b, c, d          ----->   a, b, c, d                 (open)
 *                                   y, v, w = phase 1          (local)
 *                                   the six end words of each
 *      ends, part, status  <-----
 *      two messages, 2x2 systems
 *      x_left, x_right     ----->   x = y - v x_left - w x_right (correct)
 *      x, |x|max, row      <-----
 *
 * Per system of m rows: 4 m words there and 12 back before the
 * exchange, 2 there and m + 2 back after it, where the copying entry
 * point (tl_gpu_pdd_slice_d) moves 7 m there and 3 m back, and the host
 * then reads y, v and w again for the correction.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_emulator.h"
#include "gpu_internal.h"
#include "tridlab/backend.h"
#include "tridlab/gpu.h"

/* Where one rank's slices live: the installed device (dev) or, NULL,
 * host memory the emulator runs the kernels on; what was copied. */
typedef struct there {
  const char *who; /* "distd2_resident", "pdd_resident": for messages */
  const tl_gpu_device_ops *dev;
  size_t up, down; /* bytes copied there and back since open */
} there;

struct tl_gpu_distd2_resident {
  there at;
  size_t m, nsys;
  double *rows, *fix, *d, *dt, *x, *edge, *ends;
  int *stat;
};

/* `bytes` where the kernels run, or NULL with *status set (once: a
 * failure before this one is kept). */
static void *place(there *at, size_t bytes, int *status, tl_info *info)
{
  if (*status != TL_OK)
    return NULL;
  char err[200] = "no memory";
  void *p = at->dev ? at->dev->alloc(bytes, err, sizeof err) : tl_gpu_scratch_alloc(bytes, 1);
  if (!p)
    *status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: %zu bytes on the %s: %s", at->who, bytes,
                      at->dev ? at->dev->name : "host", err);
  return p;
}

/* The device's table, if it has the memory functions the resident
 * slices need (and the kernels: the caller's test). */
static int has_memory(const tl_gpu_device_ops *dev)
{
  return dev && dev->alloc && dev->release && dev->put && dev->get;
}

static void unplace(const there *at, void *p)
{
  if (!p)
    return;
  if (at->dev)
    at->dev->release(p);
  else
    tl_gpu_scratch_free(p);
}

/* A device call that failed: "WHO: WHAT" with the runtime's message. */
static int failed(const there *at, const char *what, const char *err, tl_info *info)
{
  char who[120];
  snprintf(who, sizeof who, "%s: %s", at->who, what);
  return tl_gpu_device_failed(at->dev, who, err, info);
}

/* Copy bytes there (up) or back, and count them. */
static int copy(there *at, void *to, const void *from, size_t bytes, int up, tl_info *info)
{
  char err[200] = "";
  if (at->dev && (up ? at->dev->put(to, from, bytes, err, sizeof err)
                     : at->dev->get(to, from, bytes, err, sizeof err)))
    return failed(at, up ? "a copy to the device" : "a copy from the device", err, info);
  if (!at->dev)
    memcpy(to, from, bytes);
  *(up ? &at->up : &at->down) += bytes;
  return TL_OK;
}

/* The status words start as "no row" (-1): each kernel writes its own. */
static int unset_words(there *at, int *to, size_t count, tl_info *info)
{
  int *unset = tl_alloc(count, sizeof *unset);
  if (!unset)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory", at->who);
  for (size_t k = 0; k < count; k++)
    unset[k] = -1;
  int status = copy(at, to, unset, count * sizeof *unset, 1, info);
  free(unset);
  return status;
}

/* The bytes copied there and back since open (at NULL: none). */
static void traffic(const there *at, size_t *up, size_t *down)
{
  if (up)
    *up = at ? at->up : 0;
  if (down)
    *down = at ? at->down : 0;
}

typedef tl_gpu_watch_spec watch; /* gpu_internal.h */

/* In emulation, the resident arrays stay watched from open to close
 * (tl_gpu_scratch_free forgets them), so the checker sees each kernel's
 * reads against the stores of the kernels before it; watched again with
 * set = 1 after the host stores into one. A device: nothing (its
 * sanitizer's initcheck does this). */
static void watch_all(const there *at, const watch *w, size_t n)
{
  if (!at->dev)
    tl_gpu_watch_each(w, n);
}

void tl_gpu_distd2_resident_close(tl_gpu_distd2_resident *r)
{
  if (!r)
    return;
  void *all[] = {r->rows, r->fix, r->d, r->dt, r->x, r->edge, r->ends, r->stat};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    unplace(&r->at, all[k]);
  free(r);
}

int tl_gpu_distd2_resident_open_d(size_t m, size_t nsys, const double *rows,
                                  const double *fix_scale, const double *d,
                                  tl_gpu_distd2_resident **out, tl_info *info)
{
  if (!out)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "out", "distd2_resident: out is NULL");
  *out = NULL;
  if (m < 2 || nsys < 1 || m > (size_t)INT32_MAX || nsys > (size_t)INT32_MAX ||
      m > SIZE_MAX / 6 / sizeof(double) / nsys)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n",
                   "distd2_resident: m = %zu (at least 2), nsys = %zu", m, nsys);
  if (!rows || !fix_scale || !d)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_resident: no array may be NULL");
  tl_gpu_distd2_resident *r = tl_alloc(1, sizeof *r);
  if (!r)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2_resident: no memory");
  const tl_gpu_device_ops *dev = tl_gpu_device_installed();
  r->m = m, r->nsys = nsys, r->at.who = "distd2_resident";
  r->at.dev =
      has_memory(dev) && dev->distd2_slice_decouple_there && dev->distd2_slice_substitute_there
          ? dev
          : NULL;
  size_t z = sizeof(double), v = m * nsys * z;
  int status = TL_OK;
  there *at = &r->at;
  r->rows = place(at, 5 * v, &status, info);
  r->fix = place(at, nsys * z, &status, info);
  r->d = place(at, v, &status, info);
  r->dt = place(at, v, &status, info);
  r->x = place(at, v, &status, info);
  r->edge = place(at, 6 * nsys * z, &status, info);
  r->ends = place(at, 2 * nsys * z, &status, info);
  r->stat = place(at, 3 * nsys * sizeof(int), &status, info);
  const void *from[] = {rows, fix_scale, d};
  void *to[] = {r->rows, r->fix, r->d};
  size_t sent[] = {5 * v, nsys * z, v};
  for (size_t k = 0; k < 3 && status == TL_OK; k++)
    status = copy(at, to[k], from[k], sent[k], 1, info);
  if (status == TL_OK)
    status = unset_words(at, r->stat, 3 * nsys, info);
  if (status != TL_OK) {
    tl_gpu_distd2_resident_close(r);
    return status;
  }
  *out = r;
  return TL_OK;
}

int tl_gpu_distd2_resident_decouple_d(tl_gpu_distd2_resident *r, double *edge, int *stat,
                                      tl_info *info)
{
  if (!r || !edge || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_resident: no array may be NULL");
  char err[200] = "";
  const tl_gpu_device_ops *dev = r->at.dev;
  if (dev && dev->distd2_slice_decouple_there(r->m, r->nsys, r->rows, r->fix, r->d, r->dt, r->edge,
                                              r->stat, err, sizeof err))
    return failed(&r->at, "the decoupling", err, info);
  if (!dev)
    TL_CALL(tl_gpu_distd2_slice_decouple_emulate_d(r->m, r->nsys, r->rows, r->fix, r->d, r->dt,
                                                   r->edge, r->stat, info));
  TL_CALL(copy(&r->at, edge, r->edge, 6 * r->nsys * sizeof(double), 0, info));
  TL_CALL(copy(&r->at, stat, r->stat, 3 * r->nsys * sizeof(int), 0, info));
  return tl_gpu_distd2_slice_verdict_d("decoupling", r->nsys, stat, 0, info);
}

int tl_gpu_distd2_resident_dt_d(tl_gpu_distd2_resident *r, size_t s, double *dt, int to_device,
                                tl_info *info)
{
  if (!r || !dt || s >= r->nsys)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "s", "distd2_resident: system %zu of %zu, or no array",
                   s, r ? r->nsys : 0);
  double *dts = r->dt + s * r->m;
  return to_device ? copy(&r->at, dts, dt, r->m * sizeof(double), 1, info)
                   : copy(&r->at, dt, dts, r->m * sizeof(double), 0, info);
}

int tl_gpu_distd2_resident_substitute_d(tl_gpu_distd2_resident *r, const double *ends, double *x,
                                        int *stat, tl_info *info)
{
  if (!r || !ends || !x || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_resident: no array may be NULL");
  TL_CALL(copy(&r->at, r->ends, ends, 2 * r->nsys * sizeof(double), 1, info));
  char err[200] = "";
  const tl_gpu_device_ops *dev = r->at.dev;
  if (dev && dev->distd2_slice_substitute_there(r->m, r->nsys, r->rows, r->ends, r->dt, r->x,
                                                r->stat, err, sizeof err))
    return failed(&r->at, "the substitution", err, info);
  if (!dev)
    TL_CALL(tl_gpu_distd2_slice_substitute_emulate_d(r->m, r->nsys, r->rows, r->ends, r->dt, r->x,
                                                     r->stat, info));
  TL_CALL(copy(&r->at, x, r->x, r->m * r->nsys * sizeof(double), 0, info));
  TL_CALL(copy(&r->at, stat, r->stat, 3 * r->nsys * sizeof(int), 0, info));
  return tl_gpu_distd2_slice_verdict_d("substitution", r->nsys, stat, 2, info);
}

void tl_gpu_distd2_resident_traffic(const tl_gpu_distd2_resident *r, size_t *up, size_t *down)
{
  traffic(r ? &r->at : NULL, up, down);
}

/* ---------------------------------------------------------------- */
/* PDD's slices                                                       */

struct tl_gpu_pdd_resident {
  there at;
  size_t m, nsys;
  int edges; /* bit 1: a left neighbour; bit 2: a right one */
  double *a, *b, *c, *d, *y, *v, *w, *scratch, *part, *ends, *lr, *xmax;
  int *stat, *row;
  int stage; /* 0 opened, 1 after the local phase, 2 after the correction */
};

/* Every array watched under its name (watch_all): the uploads set, what
 * the kernels store unset until they store it -- so a word of y, v or w
 * that phase 1 never stored, read by the ends or the correction, is
 * reported. */
static void pdd_watch(const tl_gpu_pdd_resident *r)
{
  size_t mv = r->m * r->nsys, n = r->nsys, z = sizeof(double), i = sizeof(int);
  const watch w[] = {{r->a, mv, z, "a", 1},
                     {r->b, mv, z, "b", 1},
                     {r->c, mv, z, "c", 1},
                     {r->d, mv, z, "d", 1},
                     {r->y, mv, z, "y", 0},
                     {r->v, mv, z, "v", 0},
                     {r->w, mv, z, "w", 0},
                     {r->scratch, mv, z, "scratch", 0},
                     {r->part, 3 * n, z, "part", 0},
                     {r->ends, TL_GPU_PDD_ENDS * n, z, "ends", 0},
                     {r->lr, 2 * n, z, "x_left, x_right", 0},
                     {r->xmax, n, z, "xmax", 0},
                     {r->stat, 3 * n, i, "stat", 0},
                     {r->row, n, i, "row", 0}};
  watch_all(&r->at, w, sizeof w / sizeof w[0]);
}

void tl_gpu_pdd_resident_close(tl_gpu_pdd_resident *r)
{
  if (!r)
    return;
  void *all[] = {r->a,       r->b,    r->c,    r->d,  r->y,    r->v,    r->w,
                 r->scratch, r->part, r->ends, r->lr, r->xmax, r->stat, r->row};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    unplace(&r->at, all[k]);
  free(r);
}

int tl_gpu_pdd_resident_open_d(size_t m, size_t nsys, int has_left, int has_right, const double *a,
                               const double *b, const double *c, const double *d,
                               tl_gpu_pdd_resident **out, tl_info *info)
{
  if (!out)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "out", "pdd_resident: out is NULL");
  *out = NULL;
  if (m < 2 || nsys < 1 || m > (size_t)INT32_MAX || nsys > (size_t)INT32_MAX ||
      m > SIZE_MAX / 8 / sizeof(double) / nsys)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "pdd_resident: m = %zu (at least 2), nsys = %zu",
                   m, nsys);
  if (!a || !b || !c || !d)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "pdd_resident: no array may be NULL");
  tl_gpu_pdd_resident *r = tl_alloc(1, sizeof *r);
  if (!r)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd_resident: no memory");
  const tl_gpu_device_ops *dev = tl_gpu_device_installed();
  r->m = m, r->nsys = nsys, r->at.who = "pdd_resident";
  r->edges = (has_left ? 1 : 0) | (has_right ? 2 : 0);
  r->at.dev = has_memory(dev) && dev->pdd_slice_local_there && dev->pdd_slice_ends_there &&
                      dev->pdd_slice_correct_there
                  ? dev
                  : NULL;
  size_t z = sizeof(double), v = m * nsys * z;
  int status = TL_OK;
  there *at = &r->at;
  double **rows[] = {&r->a, &r->b, &r->c, &r->d, &r->y, &r->v, &r->w, &r->scratch};
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
    *rows[k] = place(at, v, &status, info);
  r->part = place(at, 3 * nsys * z, &status, info);
  r->ends = place(at, TL_GPU_PDD_ENDS * nsys * z, &status, info);
  r->lr = place(at, 2 * nsys * z, &status, info);
  r->xmax = place(at, nsys * z, &status, info);
  r->stat = place(at, 3 * nsys * sizeof(int), &status, info);
  r->row = place(at, nsys * sizeof(int), &status, info);
  const double *from[] = {a, b, c, d};
  for (size_t k = 0; k < 4 && status == TL_OK; k++)
    status = copy(at, *rows[k], from[k], v, 1, info);
  if (status != TL_OK) {
    tl_gpu_pdd_resident_close(r);
    return status;
  }
  pdd_watch(r);
  *out = r;
  return TL_OK;
}

int tl_gpu_pdd_resident_local_d(tl_gpu_pdd_resident *r, double *ends, double *part, int *stat,
                                tl_info *info)
{
  if (!r || !ends || !part || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "pdd_resident: no array may be NULL");
  size_t m = r->m, nsys = r->nsys;
  char err[200] = "";
  const tl_gpu_device_ops *dev = r->at.dev;
  if (dev && (dev->pdd_slice_local_there(m, nsys, r->edges, r->a, r->b, r->c, r->d, r->y, r->v,
                                         r->w, r->scratch, r->part, r->stat, err, sizeof err) ||
              dev->pdd_slice_ends_there(m, nsys, r->y, r->v, r->w, r->ends, err, sizeof err)))
    return failed(&r->at, "the local phase", err, info);
  if (!dev) {
    TL_CALL(tl_gpu_pdd_slice_local_emulate_d(m, nsys, r->edges, r->a, r->b, r->c, r->d, r->y, r->v,
                                             r->w, r->scratch, r->part, r->stat, info));
    TL_CALL(tl_gpu_pdd_slice_ends_emulate_d(m, nsys, r->y, r->v, r->w, r->ends, info));
  }
  TL_CALL(copy(&r->at, ends, r->ends, TL_GPU_PDD_ENDS * nsys * sizeof(double), 0, info));
  TL_CALL(copy(&r->at, part, r->part, 3 * nsys * sizeof(double), 0, info));
  TL_CALL(copy(&r->at, stat, r->stat, 3 * nsys * sizeof(int), 0, info));
  r->stage = 1;
  return tl_gpu_pdd_local_verdict(nsys, 1, stat, info);
}

int tl_gpu_pdd_resident_correct_d(tl_gpu_pdd_resident *r, const double *lr,
                                  const unsigned char *skip, double *x, double *xmax, int *row,
                                  tl_info *info)
{
  if (!r || !lr || !x || !xmax || !row)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "pdd_resident: no array may be NULL");
  if (r->stage != 1) /* it works in place over y */
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "r",
                   "pdd_resident: the correction runs once after each local phase");
  size_t m = r->m, nsys = r->nsys;
  TL_CALL(copy(&r->at, r->lr, lr, 2 * nsys * sizeof(double), 1, info));
  const watch stored = {r->lr, 2 * nsys, sizeof(double), "x_left, x_right", 1};
  watch_all(&r->at, &stored, 1);
  r->stage = 2;
  char err[200] = "";
  const tl_gpu_device_ops *dev = r->at.dev;
  if (dev && dev->pdd_slice_correct_there(m, nsys, r->edges, r->v, r->w, r->lr, r->y, r->xmax,
                                          r->row, err, sizeof err))
    return failed(&r->at, "the correction", err, info);
  if (!dev)
    TL_CALL(tl_gpu_pdd_slice_correct_emulate_d(m, nsys, r->edges, r->v, r->w, r->lr, r->y, r->xmax,
                                               r->row, info));
  /* x of the systems skip does not name: one copy per run of them */
  for (size_t s0 = 0; s0 < nsys;) {
    if (skip && skip[s0]) {
      s0++;
      continue;
    }
    size_t s1 = s0 + 1;
    while (s1 < nsys && !(skip && skip[s1]))
      s1++;
    TL_CALL(copy(&r->at, x + s0 * m, r->y + s0 * m, (s1 - s0) * m * sizeof(double), 0, info));
    s0 = s1;
  }
  TL_CALL(copy(&r->at, xmax, r->xmax, nsys * sizeof(double), 0, info));
  TL_CALL(copy(&r->at, row, r->row, nsys * sizeof(int), 0, info));
  for (size_t s = 0; s < nsys; s++)
    if (row[s] >= 0 && !(skip && skip[s]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, (long)s, row[s], "",
                     "pdd_resident: overflow in the correction at row %d of system %zu", row[s], s);
  return TL_OK;
}

void tl_gpu_pdd_resident_traffic(const tl_gpu_pdd_resident *r, size_t *up, size_t *down)
{
  traffic(r ? &r->at : NULL, up, down);
}

/* ---------------------------------------------------------------- */
/* The compact scheme's slices: one plan, the stencil fused            */

struct tl_gpu_compact_resident {
  there at;
  size_t m, nsys, groups;
  double *coef, *uh, *dt, *ends, *xfl;
  int *stat;
  int stage; /* 0 opened, 1 after the decoupling, 2 after the substitution */
};

void tl_gpu_compact_resident_close(tl_gpu_compact_resident *r)
{
  if (!r)
    return;
  void *all[] = {r->coef, r->uh, r->dt, r->ends, r->xfl, r->stat};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    unplace(&r->at, all[k]);
  free(r);
}

/* Every array watched under its name (watch_all), as PDD's slices. */
static void compact_watch(const tl_gpu_compact_resident *r)
{
  size_t m = r->m, n = r->nsys, z = sizeof(double), lanes = r->groups * TL_GPU_SZ;
  const watch w[] = {{r->coef, 5 * m + 6, z, "the plan", 1},
                     {r->uh, lanes * (m + 4), z, "u with ghost rows", 1},
                     {r->dt, lanes * m, z, "d'", 0},
                     {r->ends, 2 * n, z, "ends", 0},
                     {r->xfl, 2 * n, z, "x_first, x_last", 0},
                     {r->stat, 2 * n, sizeof(int), "stat", 1}}; /* -1 from open */
  watch_all(&r->at, w, sizeof w / sizeof w[0]);
}

int tl_gpu_compact_resident_open_d(const tl_distd2_plan *plan, const double st[5], size_t nsys,
                                   const double *uh, tl_gpu_compact_resident **out, tl_info *info)
{
  if (!out)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "out", "compact_resident: out is NULL");
  *out = NULL;
  size_t m = plan ? plan->n : 0, groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ;
  int whole = plan && plan->begin && plan->sa && plan->sc && plan->fwd_scale && plan->fwd_mul &&
              plan->bwd_mul && plan->fix_scale;
  if (!whole || plan->parts != 1 || m < 2 || !st || !uh || nsys < 1 || m > (size_t)INT32_MAX ||
      nsys > (size_t)INT32_MAX || m + 4 > SIZE_MAX / 2 / sizeof(double) / TL_GPU_SZ / groups)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "plan",
                   "compact_resident: a slice plan of one partition and >= 2 rows, a stencil, u "
                   "and nsys >= 1");
  tl_gpu_compact_resident *r = tl_alloc(1, sizeof *r);
  double *coef = tl_alloc(5 * m + 6, sizeof *coef);
  if (!r || !coef) {
    free(r), free(coef);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "compact_resident: no memory");
  }
  long begin[2];
  tl_gpu_distd2_flatten(plan, st, coef, begin);
  const tl_gpu_device_ops *dev = tl_gpu_device_installed();
  r->m = m, r->nsys = nsys, r->groups = groups, r->at.who = "compact_resident";
  r->at.dev =
      has_memory(dev) && dev->distd2_compact_decouple_there && dev->distd2_compact_substitute_there
          ? dev
          : NULL;
  size_t z = sizeof(double), lanes = groups * TL_GPU_SZ;
  int status = TL_OK;
  there *at = &r->at;
  r->coef = place(at, (5 * m + 6) * z, &status, info);
  r->uh = place(at, lanes * (m + 4) * z, &status, info);
  r->dt = place(at, lanes * m * z, &status, info);
  r->ends = place(at, 2 * nsys * z, &status, info);
  r->xfl = place(at, 2 * nsys * z, &status, info);
  r->stat = place(at, 2 * nsys * sizeof(int), &status, info);
  if (status == TL_OK)
    status = copy(at, r->coef, coef, (5 * m + 6) * z, 1, info);
  if (status == TL_OK)
    status = copy(at, r->uh, uh, lanes * (m + 4) * z, 1, info);
  if (status == TL_OK)
    status = unset_words(at, r->stat, 2 * nsys, info);
  free(coef);
  if (status != TL_OK) {
    tl_gpu_compact_resident_close(r);
    return status;
  }
  compact_watch(r);
  *out = r;
  return TL_OK;
}

int tl_gpu_compact_resident_decouple_d(tl_gpu_compact_resident *r, double *ends, int *stat,
                                       tl_info *info)
{
  if (!r || !ends || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "compact_resident: no array may be NULL");
  char err[200] = "";
  const tl_gpu_device_ops *dev = r->at.dev;
  if (dev && dev->distd2_compact_decouple_there(r->m, r->nsys, r->coef, r->uh, r->dt, r->ends,
                                                r->stat, err, sizeof err))
    return failed(&r->at, "the decoupling", err, info);
  if (!dev)
    TL_CALL(tl_gpu_compact_decouple_emulate_d(r->m, r->nsys, r->coef, r->uh, r->dt, r->ends,
                                              r->stat, info));
  r->stage = 1;
  TL_CALL(copy(&r->at, ends, r->ends, 2 * r->nsys * sizeof(double), 0, info));
  return copy(&r->at, stat, r->stat, 2 * r->nsys * sizeof(int), 0, info);
}

int tl_gpu_compact_resident_substitute_d(tl_gpu_compact_resident *r, const double *xfl, double *du,
                                         int *stat, tl_info *info)
{
  if (!r || !xfl || !du || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "compact_resident: no array may be NULL");
  if (r->stage != 1) /* it works in place over d' */
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "r",
                   "compact_resident: the substitution runs once after each decoupling");
  TL_CALL(copy(&r->at, r->xfl, xfl, 2 * r->nsys * sizeof(double), 1, info));
  const watch stored = {r->xfl, 2 * r->nsys, sizeof(double), "x_first, x_last", 1};
  watch_all(&r->at, &stored, 1);
  r->stage = 2;
  char err[200] = "";
  const tl_gpu_device_ops *dev = r->at.dev;
  if (dev && dev->distd2_compact_substitute_there(r->m, r->nsys, r->coef, r->xfl, r->dt, r->dt,
                                                  r->stat, err, sizeof err))
    return failed(&r->at, "the substitution", err, info);
  if (!dev)
    TL_CALL(tl_gpu_compact_substitute_emulate_d(r->m, r->nsys, r->coef, r->xfl, r->dt, r->dt,
                                                r->stat, info));
  TL_CALL(copy(&r->at, du, r->dt, r->groups * TL_GPU_SZ * r->m * sizeof(double), 0, info));
  return copy(&r->at, stat, r->stat, 2 * r->nsys * sizeof(int), 0, info);
}

void tl_gpu_compact_resident_traffic(const tl_gpu_compact_resident *r, size_t *up, size_t *down)
{
  traffic(r ? &r->at : NULL, up, down);
}
