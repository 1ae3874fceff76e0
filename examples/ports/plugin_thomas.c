/* examples/ports/plugin_thomas.c -- a student's solver joining the
 * registry at run time, without editing or rebuilding tridlab:
 *
 *   cc -shared -fPIC -Iinclude plugin_thomas.c thomas_port.c -o plugin_thomas.so
 *   tridlab verify --plugin ./plugin_thomas.so --algo student_thomas --quick
 *
 * The program loads it with dlopen and calls tridlab_plugin_init, which
 * tl_register()s the descriptor; from then on `student_thomas` is listed,
 * verified and benchmarked like the built-in algorithms. The plug-in is
 * not linked against tridlab: tl_register and tl_info_set are the
 * program's own (docs/ports.md). */
#include "thomas_port.h"
#include "tridlab/backend.h"

/* The registry's solve entry point around the port's C entry point. */
static int student_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                         const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  int st = port_thomas((int)sys->dtype, sys->periodic, (int64_t)sys->n, (int64_t)sys->nsys, sys->a,
                       sys->b, sys->c, sys->d, x);
  if (st == 0)
    return TL_OK;
  if (st > 0)
    return TL_WARN(info, -1, "student_thomas: not diagonally dominant");
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "student_thomas: zero pivot");
}

static const tl_algorithm student_thomas = {
    .name = "student_thomas",
    .family = "direct",
    .backend = "plugin",
    .exact = 1,
    .classes = TL_CLASS_ROW_DD | TL_CLASS_COL_DD | TL_CLASS_SPD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .min_rows_per_part = 1,
    .summary = "a student's Thomas algorithm, loaded as a plug-in",
    .source = "examples/ports/thomas_port.c",
    .solve = student_solve,
};

int tridlab_plugin_init(tl_info *info);

int tridlab_plugin_init(tl_info *info)
{
  return tl_register(&student_thomas, info);
}
