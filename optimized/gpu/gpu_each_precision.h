/* optimized/gpu/gpu_each_precision.h -- include the file named by
 * TL_GPU_EACH twice: with T = double and names x_d, then with T = float
 * and names x_f (KF(x)); TL_GPU_DOUBLE says which. The kernels and their wrappers are written once
 * for a scalar T; this is how they become two. */
#define T double
#define KF(x) x##_d
#define TL_GPU_DOUBLE 1
#include TL_GPU_EACH
#undef T
#undef KF
#undef TL_GPU_DOUBLE
#define T float
#define KF(x) x##_f
#define TL_GPU_DOUBLE 0
#include TL_GPU_EACH
#undef T
#undef KF
#undef TL_GPU_DOUBLE
#undef TL_GPU_EACH
