/* tests/gpu/scope_ok.c -- a kernel that carries a value across a barrier
 * the right way, as a per-thread value (tests/test_gpu.c compiles it;
 * its twin scope_error.c must not compile). */
#include "optimized/gpu/tl_gpu_port.h"

TL_KERNEL(carry, double *v)
{
  TL_PER_THREAD(double, mine);
  TL_REGION(t)
  {
    TL_MY(mine) = TL_LD(v, t);
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    TL_ST(v, t) = TL_MY(mine) + TL_LD(v, (t + 1) % TL_BLOCK_THREADS);
  }
  TL_BARRIER();
}

#if !TL_GPU_DEVICE /* the host build: the kernel is a plain function */
void (*tl_scope_kernel)(tl_gpu_block *, double *) = carry;
#endif
