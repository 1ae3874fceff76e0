/* tridlab/npy.h -- NumPy .npy interchange (docs/design.md §6).
 *
 * Reads and writes version 1.0, 2.0 and 3.0 .npy files holding float64
 * ('<f8') or complex128 ('<c16') arrays of one or two dimensions in C
 * order. Anything else -- truncated data, another dtype, Fortran order,
 * more dimensions, an absurd header -- is rejected with TL_ERR_ARG and a
 * one-line message in info->msg that names the file. Never crashes on any
 * input bytes.
 */
#ifndef TRIDLAB_NPY_H
#define TRIDLAB_NPY_H

#include <stddef.h>

#include "tridlab/status.h"
#include "tridlab/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_npy {
  tl_dtype dtype;
  int ndim;          /* 1 or 2                              */
  size_t shape[2];   /* shape[1] unused (0) when ndim == 1  */
  size_t count;      /* number of elements                  */
  void *data;        /* malloc'd, C order; free with tl_npy_free */
} tl_npy;

/* Read `path`. TL_ERR_IO if it cannot be opened or read; TL_ERR_ARG if it
 * is not an acceptable .npy file. */
int tl_npy_read(const char *path, tl_npy *out, tl_info *info);

/* Parse an in-memory .npy image; `name` is used in messages. */
int tl_npy_parse(const unsigned char *buf, size_t len, const char *name, tl_npy *out,
                 tl_info *info);

/* Write a version 1.0 file. ndim is 1 or 2. */
int tl_npy_write(const char *path, tl_dtype dtype, int ndim, const size_t *shape,
                 const void *data, tl_info *info);

void tl_npy_free(tl_npy *arr);

/* A system directory: DIR/a.npy b.npy c.npy d.npy, each of shape (n) or
 * (nsys, n), all of one shape; float64 arrays are promoted to complex128
 * when any array is complex; periodic when `periodic` is set or a file
 * DIR/periodic exists. sys points into the arrays; ndim and shape are
 * d's (for writing x with the shape of d). One-line errors name the file
 * (TL_ERR_IO, TL_ERR_ARG with the array's name in info->arg). */
typedef struct tl_system_dir {
  tl_batch sys;
  tl_npy arr[4];
  int ndim;
  size_t shape[2];
} tl_system_dir;

int tl_system_dir_read(const char *dir, int periodic, tl_system_dir *sd, tl_info *info);
void tl_system_dir_free(tl_system_dir *sd);

/* Write a batch as a system directory (created if missing): a b c d
 * .npy of shape (n), or (nsys, n) when nsys > 1, and the `periodic`
 * marker exactly when sys is periodic. */
int tl_system_dir_write(const char *dir, const tl_batch *sys, tl_info *info);
/* One more array of the batch's shape and dtype, as DIR/NAME.npy (the
 * true solution, an answer). */
int tl_system_dir_write_array(const char *dir, const char *name, const tl_batch *sys,
                              const void *data, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
