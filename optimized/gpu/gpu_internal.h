/* optimized/gpu/gpu_internal.h -- what the GPU room's files tell each
 * other (not installed). */
#ifndef TL_GPU_INTERNAL_H
#define TL_GPU_INTERNAL_H

#include "tridlab/gpu.h"

/* Where the room's registry backends run: "gpu-emulated", or the device
 * a device build installed (tl_gpu_use_device calls it, before any
 * solve). registry_gpu.c. */
void tl_gpu_room_backend(const char *name);

/* An array the emulator's checker watches (gpu_emulator.h): its values,
 * their size, its name in reports, and whether it holds values before
 * the next launch (set: inputs, or what the host stored) or is the
 * kernels' to store first (0, as a device's memory is unset).
 * tl_gpu_watch_each watches each (gpu_entry.c). */
typedef struct tl_gpu_watch_spec {
  const void *p;
  size_t count, size;
  const char *name;
  int set;
} tl_gpu_watch_spec;
void tl_gpu_watch_each(const tl_gpu_watch_spec *w, size_t n);

/* The device a device build installed, or NULL (gpu_entry.c). */
const tl_gpu_device_ops *tl_gpu_device_installed(void);
/* A device call that failed: TL_ERR_UNSUPPORTED, "WHO on the NAME
 * device: ERR" (the runtime's message), arg "device"; the caller may fall
 * back to the reference. */
int tl_gpu_device_failed(const tl_gpu_device_ops *dev, const char *who, const char *err,
                         tl_info *info);

/* The two DistD2 slice kernels run by the emulator on host arrays, with
 * the checker watching them, whatever device is installed: TL_OK or the
 * launch's error (tl_gpu_launch_status); the status words are the
 * caller's to read (gpu_entry.c; for gpu_resident.c). */
int tl_gpu_distd2_slice_decouple_emulate_d(size_t m, size_t nsys, const double *rows,
                                           const double *fix_scale, const double *d, double *dt,
                                           double *edge, int *stat, tl_info *info);
int tl_gpu_distd2_slice_substitute_emulate_d(size_t m, size_t nsys, const double *rows,
                                             const double *ends, const double *dt, double *x,
                                             int *stat, tl_info *info);
/* The slice entry points' status: TL_ERR_BREAKDOWN for the first system
 * whose status word `word` (0: the decoupling, 2: the substitution) names
 * a row, with `what` in the message; else TL_OK. */
int tl_gpu_distd2_slice_verdict_d(const char *what, size_t nsys, const int *stat, int word,
                                  tl_info *info);

/* The first failure of PDD's local phase in the status words (3 per
 * (system, partition)): TL_ERR_BREAKDOWN with its system and row, as
 * tl_gpu_pdd_local_d returns it; else TL_OK. */
int tl_gpu_pdd_local_verdict(size_t nsys, int parts, const int *stat, tl_info *info);

/* PDD's three slice kernels (tridlab/gpu.h, tl_gpu_pdd_resident_*) run
 * by the emulator on host arrays: the local phase (y, v, w, part and
 * stat: 3 per system; scratch: m values per system), the six end words
 * per system, and the correction over y in x (xmax and row: 1 per
 * system). edges: bit 1 a left neighbour, bit 2 a right one. Unlike the
 * DistD2 ones these watch no array: the caller keeps them watched
 * (tl_gpu_global_watch) across the three launches. */
int tl_gpu_pdd_slice_local_emulate_d(size_t m, size_t nsys, int edges, const double *a,
                                     const double *b, const double *c, const double *d, double *y,
                                     double *v, double *w, double *scratch, double *part, int *stat,
                                     tl_info *info);
int tl_gpu_pdd_slice_ends_emulate_d(size_t m, size_t nsys, const double *y, const double *v,
                                    const double *w, double *ends, tl_info *info);
int tl_gpu_pdd_slice_correct_emulate_d(size_t m, size_t nsys, int edges, const double *v,
                                       const double *w, const double *lr, double *x, double *xmax,
                                       int *row, tl_info *info);

/* The two kernels of the compact scheme across ranks (tl_gpu_compact_
 * resident_*) run by the emulator on host arrays, watching nothing (the
 * caller keeps them watched): coef, the plan flattened by
 * tl_gpu_distd2_flatten (5 m + 1 + 5 values); uh, u with two ghost rows
 * on each side (m + 4 rows per group of TL_GPU_SZ); dt and x, m rows per
 * group; ends and xfl, 2 per system; stat, 2 per system (the
 * decoupling's, the substitution's first non-finite row). */
int tl_gpu_compact_decouple_emulate_d(size_t m, size_t nsys, const double *coef, const double *uh,
                                      double *dt, double *ends, int *stat, tl_info *info);
int tl_gpu_compact_substitute_emulate_d(size_t m, size_t nsys, const double *coef,
                                        const double *xfl, double *dt, double *x, int *stat,
                                        tl_info *info);

#endif
