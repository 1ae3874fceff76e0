/* tests/gpu/scope_error.c -- must NOT compile: `mine` is declared inside
 * the first region and read after the barrier. tl_gpu_port.h makes each
 * region a scope, so the compiler rejects it, in the host build as in
 * the device build (tests/test_gpu.c checks the failure). */
#include "optimized/gpu/tl_gpu_port.h"

TL_KERNEL(carry, double *v)
{
  TL_REGION(t)
  {
    double mine = v[t];
    (void)mine;
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    v[t] = mine + v[(t + 1) % TL_BLOCK_THREADS];
  }
  TL_BARRIER();
}

#if !TL_GPU_DEVICE /* the host build: the kernel is a plain function */
void (*tl_scope_kernel)(tl_gpu_block *, double *) = carry;
#endif
