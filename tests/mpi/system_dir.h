/* tests/mpi/system_dir.h -- the system directories the tridlab-mpi
 * command tests solve: a strictly row-dominant batch written as a.npy,
 * b.npy, c.npy, d.npy (the files of `tridlab solve`, docs/cli.md). */
#ifndef TL_TESTS_MPI_SYSTEM_DIR_H
#define TL_TESTS_MPI_SYSTEM_DIR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tridlab/tridlab.h"

/* nsys systems of n rows in dir (created): b in [8, 9], a, c and d in
 * [-1, 1] (zero corners), from the given seed. Arrays of shape (nsys, n)
 * when ndim = 2, (n) when ndim = 1 and nsys = 1. broken: b[0] = 0 and
 * c[0] = 0 in the first system (a zero pivot in row 0). */
static void write_system_dir(const char *dir, size_t n, size_t nsys, uint64_t seed, int ndim,
                             int broken)
{
  char path[700];
  mkdir(dir, 0700);
  size_t cnt = n * nsys, shape[2] = {nsys, n};
  double *v = malloc(4 * cnt * sizeof *v);
  if (!v)
    return;
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t k = 0; k < cnt; k++) {
    size_t i = k % n;
    v[k] = i ? tl_rng_uniform(&rng, -1, 1) : 0.0;
    v[cnt + k] = 8 + tl_rng_uniform(&rng, 0, 1);
    v[2 * cnt + k] = i + 1 < n ? tl_rng_uniform(&rng, -1, 1) : 0.0;
    v[3 * cnt + k] = tl_rng_uniform(&rng, -1, 1);
  }
  if (broken)
    v[cnt] = 0.0, v[2 * cnt] = 0.0;
  const char *names[4] = {"a", "b", "c", "d"};
  for (int k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "%s/%s.npy", dir, names[k]);
    tl_info info;
    if (tl_npy_write(path, TL_F64, ndim, ndim == 2 ? shape : shape + 1, v + (size_t)k * cnt,
                     &info) != TL_OK)
      fprintf(stderr, "cannot write %s: %s\n", path, info.msg);
  }
  free(v);
}

#endif
