/* tests/gpu/scope_my_index.c -- must NOT compile: a thread reads another
 * thread's per-thread value. TL_MY takes no thread index (tl_gpu_port.h):
 * a thread reaches only its own, as on a device, where the value is a
 * register (tests/test_gpu.c checks the failure). */
#include "optimized/gpu/tl_gpu_port.h"

TL_KERNEL(neighbour, double *v)
{
  TL_PER_THREAD(double, mine);
  TL_REGION(t)
  {
    TL_MY(mine) = TL_LD(v, t);
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    TL_ST(v, t) = TL_MY(mine, (t + 1) % TL_BLOCK_THREADS);
  }
  TL_BARRIER();
}

#if !TL_GPU_DEVICE /* the host build: the kernel is a plain function */
void (*tl_scope_kernel)(tl_gpu_block *, double *) = neighbour;
#endif
