/* optimized/layout/sz_template.h -- write a kernel once, build it for every
 * (precision, SZ) pair (the SZ-packed kernels of optimized/layout/ and
 * optimized/cpu/).
 *
 * SIMD code wants the group size SZ as a compile-time constant: then the
 * loop over the SZ systems of a group becomes SZ / width vector
 * instructions with no remainder. A kernel file includes itself through
 * sz_passes.h, once per pair, with TL_CPU_PASS set:
 *
 *   #ifndef TL_CPU_PASS                 -- compiled once
 *   ...shared helpers...
 *   #define TL_CPU_SELF "optimized/cpu/thomas_packed_cpu.c"
 *   #include "optimized/layout/sz_passes.h"  -- the 8 passes below
 *   ...public functions: TL_CPU_DISPATCH (layout_internal.h) picks the
 *      pass by sz: thomas_packed_d8 ... thomas_packed_f64...
 *   #else                               -- the kernel, written once
 *   #include "optimized/cpu/thomas_group.h"  -- per-pass code several files share
 *   static int FN(thomas_packed)(...)   -- thomas_packed_d8 ... _f64
 *   #endif
 *
 * Inside a pass: T is the scalar (double or float), SZ the group size,
 * FN(name) appends the pass suffix (_d8, _d16, ..., _f64), TL_CPU_FLOAT
 * is 1 for float, TMAX the largest finite T, TILE the rows of a 64-byte
 * cache line.
 */
#undef T
#undef SZ
#undef FN
#undef TL_CPU_FLOAT
#undef TMAX
#undef TILE

#if TL_CPU_PASS >= 1 && TL_CPU_PASS <= 4
#define T double
#define TL_CPU_FLOAT 0
#define TMAX DBL_MAX
#define TILE 8
#elif TL_CPU_PASS >= 5 && TL_CPU_PASS <= 8
#define T float
#define TL_CPU_FLOAT 1
#define TMAX FLT_MAX
#define TILE 16
#else
#error "TL_CPU_PASS must be 1..8"
#endif

#if TL_CPU_PASS == 1
#define SZ 8
#define FN(name) name##_d8
#elif TL_CPU_PASS == 2
#define SZ 16
#define FN(name) name##_d16
#elif TL_CPU_PASS == 3
#define SZ 32
#define FN(name) name##_d32
#elif TL_CPU_PASS == 4
#define SZ 64
#define FN(name) name##_d64
#elif TL_CPU_PASS == 5
#define SZ 8
#define FN(name) name##_f8
#elif TL_CPU_PASS == 6
#define SZ 16
#define FN(name) name##_f16
#elif TL_CPU_PASS == 7
#define SZ 32
#define FN(name) name##_f32
#elif TL_CPU_PASS == 8
#define SZ 64
#define FN(name) name##_f64
#endif
