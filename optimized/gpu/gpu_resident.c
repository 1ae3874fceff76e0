/* optimized/gpu/gpu_resident.c -- one MPI rank's DistD2 slices kept where
 * the GPU kernels run, between Algorithm 6 and Algorithm 7
 * (tridlab/gpu.h, tl_gpu_distd2_resident_*; docs/gpu.md, "One GPU per MPI
 * rank").
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
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_emulator.h"
#include "gpu_internal.h"
#include "tridlab/backend.h"
#include "tridlab/gpu.h"

struct tl_gpu_distd2_resident {
  size_t m, nsys;
  const tl_gpu_device_ops *dev; /* the device the slices live on; NULL: host */
  double *rows, *fix, *d, *dt, *x, *edge, *ends;
  int *stat;
  size_t up, down; /* bytes copied there and back since open */
};

/* `bytes` where the kernels run, or NULL with *status set (once: a
 * failure before this one is kept). */
static void *place(tl_gpu_distd2_resident *r, size_t bytes, int *status, tl_info *info)
{
  if (*status != TL_OK)
    return NULL;
  char err[200] = "no memory";
  void *p = r->dev ? r->dev->alloc(bytes, err, sizeof err) : tl_gpu_scratch_alloc(bytes, 1);
  if (!p)
    *status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2_resident: %zu bytes on the %s: %s",
                      bytes, r->dev ? r->dev->name : "host", err);
  return p;
}

/* The device's table, if it has what the resident slices need. */
static const tl_gpu_device_ops *usable(const tl_gpu_device_ops *dev)
{
  if (dev && dev->alloc && dev->release && dev->put && dev->get &&
      dev->distd2_slice_decouple_there && dev->distd2_slice_substitute_there)
    return dev;
  return NULL;
}

static void unplace(const tl_gpu_distd2_resident *r, void *p)
{
  if (r->dev)
    r->dev->release(p);
  else
    tl_gpu_scratch_free(p);
}

/* Copy bytes there (up) or back, and count them. */
static int copy(tl_gpu_distd2_resident *r, void *to, const void *from, size_t bytes, int up,
                tl_info *info)
{
  char err[200] = "";
  if (r->dev && (up ? r->dev->put(to, from, bytes, err, sizeof err)
                    : r->dev->get(to, from, bytes, err, sizeof err)))
    return tl_gpu_device_failed(r->dev,
                                up ? "distd2_resident: a copy to the device"
                                   : "distd2_resident: a copy from the device",
                                err, info);
  if (!r->dev)
    memcpy(to, from, bytes);
  *(up ? &r->up : &r->down) += bytes;
  return TL_OK;
}

void tl_gpu_distd2_resident_close(tl_gpu_distd2_resident *r)
{
  if (!r)
    return;
  void *all[] = {r->rows, r->fix, r->d, r->dt, r->x, r->edge, r->ends, r->stat};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    if (all[k])
      unplace(r, all[k]);
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
  int *unset = tl_alloc(3 * nsys, sizeof *unset);
  if (!r || !unset) {
    free(r), free(unset);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2_resident: no memory");
  }
  r->m = m, r->nsys = nsys, r->dev = usable(tl_gpu_device_installed());
  size_t z = sizeof(double), v = m * nsys * z;
  int status = TL_OK;
  r->rows = place(r, 5 * v, &status, info);
  r->fix = place(r, nsys * z, &status, info);
  r->d = place(r, v, &status, info);
  r->dt = place(r, v, &status, info);
  r->x = place(r, v, &status, info);
  r->edge = place(r, 6 * nsys * z, &status, info);
  r->ends = place(r, 2 * nsys * z, &status, info);
  r->stat = place(r, 3 * nsys * sizeof(int), &status, info);
  /* the status words start as "no row" (-1): each kernel writes its own */
  for (size_t k = 0; k < 3 * nsys; k++)
    unset[k] = -1;
  const void *from[] = {rows, fix_scale, d, unset};
  void *to[] = {r->rows, r->fix, r->d, r->stat};
  size_t sent[] = {5 * v, nsys * z, v, 3 * nsys * sizeof(int)};
  for (size_t k = 0; k < 4 && status == TL_OK; k++)
    status = copy(r, to[k], from[k], sent[k], 1, info);
  free(unset);
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
  if (r->dev && r->dev->distd2_slice_decouple_there(r->m, r->nsys, r->rows, r->fix, r->d, r->dt,
                                                    r->edge, r->stat, err, sizeof err))
    return tl_gpu_device_failed(r->dev, "distd2_resident: the decoupling", err, info);
  if (!r->dev)
    TL_CALL(tl_gpu_distd2_slice_decouple_emulate_d(r->m, r->nsys, r->rows, r->fix, r->d, r->dt,
                                                   r->edge, r->stat, info));
  TL_CALL(copy(r, edge, r->edge, 6 * r->nsys * sizeof(double), 0, info));
  TL_CALL(copy(r, stat, r->stat, 3 * r->nsys * sizeof(int), 0, info));
  return tl_gpu_distd2_slice_verdict_d("decoupling", r->nsys, stat, 0, info);
}

int tl_gpu_distd2_resident_dt_d(tl_gpu_distd2_resident *r, size_t s, double *dt, int to_device,
                                tl_info *info)
{
  if (!r || !dt || s >= r->nsys)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "s", "distd2_resident: system %zu of %zu, or no array",
                   s, r ? r->nsys : 0);
  double *there = r->dt + s * r->m;
  return to_device ? copy(r, there, dt, r->m * sizeof(double), 1, info)
                   : copy(r, dt, there, r->m * sizeof(double), 0, info);
}

int tl_gpu_distd2_resident_substitute_d(tl_gpu_distd2_resident *r, const double *ends, double *x,
                                        int *stat, tl_info *info)
{
  if (!r || !ends || !x || !stat)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2_resident: no array may be NULL");
  TL_CALL(copy(r, r->ends, ends, 2 * r->nsys * sizeof(double), 1, info));
  char err[200] = "";
  if (r->dev && r->dev->distd2_slice_substitute_there(r->m, r->nsys, r->rows, r->ends, r->dt, r->x,
                                                      r->stat, err, sizeof err))
    return tl_gpu_device_failed(r->dev, "distd2_resident: the substitution", err, info);
  if (!r->dev)
    TL_CALL(tl_gpu_distd2_slice_substitute_emulate_d(r->m, r->nsys, r->rows, r->ends, r->dt, r->x,
                                                     r->stat, info));
  TL_CALL(copy(r, x, r->x, r->m * r->nsys * sizeof(double), 0, info));
  TL_CALL(copy(r, stat, r->stat, 3 * r->nsys * sizeof(int), 0, info));
  return tl_gpu_distd2_slice_verdict_d("substitution", r->nsys, stat, 2, info);
}

void tl_gpu_distd2_resident_traffic(const tl_gpu_distd2_resident *r, size_t *up, size_t *down)
{
  if (up)
    *up = r ? r->up : 0;
  if (down)
    *down = r ? r->down : 0;
}
