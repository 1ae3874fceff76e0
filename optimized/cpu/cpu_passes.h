/* optimized/cpu/cpu_passes.h -- include TL_CPU_SELF once per (precision,
 * SZ) pair; see cpu_template.h. */
#define TL_CPU_PASS 1
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 2
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 3
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 4
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 5
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 6
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 7
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
#define TL_CPU_PASS 8
#include "cpu_template.h"
#include TL_CPU_SELF
#undef TL_CPU_PASS
