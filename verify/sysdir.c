/* verify/sysdir.c -- a system directory: a.npy b.npy c.npy d.npy (and an
 * optional file named `periodic`), as `tridlab solve`, `tridlab-mpi solve`
 * and ports in other languages exchange systems. */
#include <complex.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tridlab/backend.h"
#include "tridlab/npy.h"

void tl_system_dir_free(tl_system_dir *sd)
{
  for (int k = 0; k < 4; k++)
    tl_npy_free(&sd->arr[k]);
  memset(sd, 0, sizeof *sd);
}

static int promote_to_complex(tl_npy *arr)
{
  double complex *z = malloc((arr->count ? arr->count : 1) * sizeof *z);
  if (!z)
    return -1;
  const double *r = arr->data;
  for (size_t i = 0; i < arr->count; i++)
    z[i] = r[i];
  free(arr->data);
  arr->data = z;
  arr->dtype = TL_C128;
  return 0;
}

static void shape_text(const tl_npy *m, char *buf, size_t size)
{
  if (m->ndim == 2)
    snprintf(buf, size, "(%zu, %zu)", m->shape[0], m->shape[1]);
  else
    snprintf(buf, size, "(%zu,)", m->shape[0]);
}

int tl_system_dir_read(const char *dir, int periodic, tl_system_dir *sd, tl_info *info)
{
  static const char *const names[4] = {"a", "b", "c", "d"};
  memset(sd, 0, sizeof *sd);
  char path[4][4096];
  for (int k = 0; k < 4; k++) {
    snprintf(path[k], sizeof path[k], "%s/%s.npy", dir, names[k]);
    int st = tl_npy_read(path[k], &sd->arr[k], info);
    if (st != TL_OK) {
      tl_system_dir_free(sd);
      return st;
    }
  }
  const tl_npy *d = &sd->arr[3];
  for (int k = 0; k < 3; k++) {
    const tl_npy *m = &sd->arr[k];
    if (m->ndim != d->ndim || m->shape[0] != d->shape[0] || m->shape[1] != d->shape[1]) {
      char ms[64], ds[64];
      shape_text(m, ms, sizeof ms);
      shape_text(d, ds, sizeof ds);
      tl_system_dir_free(sd);
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, names[k],
                     "%s: shape %s differs from the shape %s of d.npy", path[k], ms, ds);
    }
  }
  int complex_any = 0;
  for (int k = 0; k < 4; k++)
    complex_any |= sd->arr[k].dtype == TL_C128;
  for (int k = 0; k < 4 && complex_any; k++)
    if (sd->arr[k].dtype == TL_F64 && promote_to_complex(&sd->arr[k])) {
      tl_system_dir_free(sd);
      return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "out of memory reading %s", dir);
    }
  char marker[4096];
  struct stat st;
  snprintf(marker, sizeof marker, "%s/periodic", dir);
  tl_batch *sys = &sd->sys;
  sys->dtype = complex_any ? TL_C128 : TL_F64;
  sys->nsys = d->ndim == 2 ? d->shape[0] : 1;
  sys->n = d->ndim == 2 ? d->shape[1] : d->shape[0];
  sys->periodic = periodic || stat(marker, &st) == 0;
  sys->a = sd->arr[0].data;
  sys->b = sd->arr[1].data;
  sys->c = sd->arr[2].data;
  sys->d = sd->arr[3].data;
  sd->ndim = d->ndim;
  sd->shape[0] = d->shape[0];
  sd->shape[1] = d->shape[1];
  return TL_OK;
}

/* One array as DIR/NAME.npy, of shape (n) for one system, (nsys, n) for
 * a batch. */
int tl_system_dir_write_array(const char *dir, const char *name, const tl_batch *sys,
                              const void *data, tl_info *info)
{
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  size_t shape[2] = {sys->nsys, sys->n};
  if (sys->nsys == 1)
    return tl_npy_write(path, sys->dtype, 1, &shape[1], data, info);
  return tl_npy_write(path, sys->dtype, 2, shape, data, info);
}

int tl_system_dir_write(const char *dir, const tl_batch *sys, tl_info *info)
{
  static const char *const names[4] = {"a", "b", "c", "d"};
  const void *arrays[4] = {sys->a, sys->b, sys->c, sys->d};
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "dir", "cannot create directory %s: %s", dir,
                   strerror(errno));
  for (int k = 0; k < 4; k++)
    TL_CALL(tl_system_dir_write_array(dir, names[k], sys, arrays[k], info));
  /* The marker says periodic; its absence says plain, so a directory
   * written again for another system never keeps a stale one. */
  char marker[4200];
  snprintf(marker, sizeof marker, "%s/periodic", dir);
  if (!sys->periodic) {
    remove(marker);
    return TL_OK;
  }
  FILE *f = fopen(marker, "w");
  if (!f || fclose(f) != 0)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "dir", "cannot write %s", marker);
  return TL_OK;
}
