/* optimized/gpu/gpu_internal.h -- what the GPU room's files tell each
 * other (not installed). */
#ifndef TL_GPU_INTERNAL_H
#define TL_GPU_INTERNAL_H

#include "tridlab/gpu.h"

/* Where the room's registry backends run: "gpu-emulated", or the device
 * a device build installed (tl_gpu_use_device calls it, before any
 * solve). registry_gpu.c. */
void tl_gpu_room_backend(const char *name);

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

#endif
