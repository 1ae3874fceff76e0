/* optimized/gpu/gpu_internal.h -- what the GPU room's files tell each
 * other (not installed). */
#ifndef TL_GPU_INTERNAL_H
#define TL_GPU_INTERNAL_H

/* Where the room's registry backends run: "gpu-emulated", or the device
 * a device build installed (tl_gpu_use_device calls it, before any
 * solve). registry_gpu.c. */
void tl_gpu_room_backend(const char *name);

#endif
