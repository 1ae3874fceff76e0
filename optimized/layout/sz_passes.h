/* optimized/layout/sz_passes.h -- include TL_CPU_SELF once per (precision,
 * SZ) pair; see sz_template.h. TL_CPU_SELF names the kernel file from the
 * repository root ("optimized/cpu/thomas_cpu.c"): a quoted include is
 * looked for beside this header first, then on the include path. */
#define TL_CPU_PASS 1
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 2
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 3
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 4
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 5
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 6
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 7
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 8
#include "sz_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
