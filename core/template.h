/* core/template.h -- write an algorithm once, build it for double
 * and double complex.
 *
 * A reference file includes itself twice with TL_TEMPLATE_PASS set:
 *
 *   #ifndef TL_TEMPLATE_PASS            -- the part compiled once
 *   ...
 *   #define TL_TEMPLATE_PASS 1           -- real pass
 *   #include "core/template.h"
 *   #include "thomas_ref.c"
 *   #define TL_TEMPLATE_PASS 2           -- complex pass
 *   ...
 *   #else                                -- the algorithm, written once
 *   int FN(tl_thomas_ref)(size_t n, const S *a, ...)
 *   #endif
 *
 * Inside the algorithm: S is the scalar type, FN(name) appends _d or _z,
 * ABS is the modulus, ISFINITE tests a scalar, CLASSES is tl_classes_d/z,
 * PERIODIC1 is tl_periodic1_entry_d/z (the entry of a 1x1 periodic matrix),
 * FOLD_PERIODIC is tl_fold_periodic_d/z (periodic n <= 2, folded),
 * PART_MAX(v) the largest modulus of v's parts (real and imaginary),
 * LDEXP(v, k) v 2^k (each part by ldexp).
 */
#undef S
#undef FN
#undef ABS
#undef ISFINITE
#undef CLASSES
#undef PERIODIC1
#undef FOLD_PERIODIC
#undef PART_MAX
#undef LDEXP
#undef TL_IS_COMPLEX

#if TL_TEMPLATE_PASS == 1
#define S double
#define FN(name) name##_d
#define ABS(v) fabs(v)
#define ISFINITE(v) isfinite(v)
#define CLASSES tl_classes_d
#define PERIODIC1 tl_periodic1_entry_d
#define FOLD_PERIODIC tl_fold_periodic_d
#define PART_MAX(v) fabs(v)
#define LDEXP(v, k) ldexp((v), (k))
#define TL_IS_COMPLEX 0
#elif TL_TEMPLATE_PASS == 2
#define S double complex
#define FN(name) name##_z
#define ABS(v) cabs(v)
#define ISFINITE(v) (isfinite(creal(v)) && isfinite(cimag(v)))
#define CLASSES tl_classes_z
#define PERIODIC1 tl_periodic1_entry_z
#define FOLD_PERIODIC tl_fold_periodic_z
#define PART_MAX(v) fmax(fabs(creal(v)), fabs(cimag(v)))
#define LDEXP(v, k) tl_cmplx(ldexp(creal(v), (k)), ldexp(cimag(v), (k)))
#define TL_IS_COMPLEX 1
#else
#error "define TL_TEMPLATE_PASS as 1 (double) or 2 (double complex) before including template.h"
#endif
