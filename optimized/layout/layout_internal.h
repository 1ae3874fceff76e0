/* optimized/layout/layout_internal.h -- what the SZ-packed kernels share
 * (optimized/layout/, optimized/cpu/): the choice of the compiled pass
 * for a run-time SZ (private: not installed, not included by users).
 */
#ifndef TRIDLAB_LAYOUT_INTERNAL_H
#define TRIDLAB_LAYOUT_INTERNAL_H

#include <float.h>
#include <stddef.h>

#include "tridlab/backend.h"
#include "tridlab/layout.h"

/* out = name_d8 ... name_d64 (or _f)(...), chosen by the run-time sz. */
#define TL_CPU_DISPATCH_TO(out, sz, name, sfx, ...)                                                \
  switch (sz) {                                                                                    \
  case 8: out = name##_##sfx##8(__VA_ARGS__); break;                                               \
  case 16: out = name##_##sfx##16(__VA_ARGS__); break;                                             \
  case 32: out = name##_##sfx##32(__VA_ARGS__); break;                                             \
  default: out = name##_##sfx##64(__VA_ARGS__); break;                                             \
  }

/* The same, returning what it returns. */
#define TL_CPU_DISPATCH(sz, name, sfx, ...)                                                        \
  do {                                                                                             \
    int r_;                                                                                        \
    TL_CPU_DISPATCH_TO(r_, sz, name, sfx, __VA_ARGS__);                                            \
    return r_;                                                                                     \
  } while (0)

/* TL_ERR_ARG unless sz is 8, 16, 32 or 64. */
int tl_cpu_check_sz(size_t sz, const char *who, tl_info *info);

/* 1 when the rows of a line along y or z (dims[0] elements apart along
 * y, dims[0] dims[1] along z) of elements of elem_size bytes are at most
 * TL_CPU_NEAR_ROWS bytes apart: tl_cpu_thomas_3d then runs one group per
 * unit, and tl_cpu_sz_3d recommends 128-byte rows. No product that could
 * wrap. */
int tl_cpu_rows_near(const size_t dims[3], tl_dir dir, size_t elem_size);

#endif
