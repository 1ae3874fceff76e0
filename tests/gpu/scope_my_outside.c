/* tests/gpu/scope_my_outside.c -- must NOT compile: a per-thread value
 * read at kernel scope, where no thread is running (on a device, every
 * thread would read its own and the code would not be uniform). TL_MY
 * exists only inside a region (tests/test_gpu.c checks the failure). */
#include "optimized/gpu/tl_gpu_port.h"

TL_KERNEL(outside, double *v)
{
  TL_PER_THREAD(double, mine);
  TL_REGION(t)
  {
    TL_MY(mine) = TL_LD(v, t);
  }
  TL_BARRIER();
  double first = TL_MY(mine);
  TL_REGION(t)
  {
    TL_ST(v, t) = first;
  }
  TL_BARRIER();
}

#if !TL_GPU_DEVICE /* the host build: the kernel is a plain function */
void (*tl_scope_kernel)(tl_gpu_block *, double *) = outside;
#endif
