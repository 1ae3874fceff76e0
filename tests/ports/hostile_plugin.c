/* tests/ports/hostile_plugin.c -- a plug-in and --lib entry points that
 * break their interface (docs/ports.md), for tests/test_port.c. Like
 * examples/ports/plugin_thomas.c it is not linked against tridlab: it
 * calls the program's tl_register and tl_solve.
 *
 * Algorithms (verify --plugin): gtsv's right answer, and then
 *   hostile_overrun    one entry written past the end of x;
 *   hostile_underrun   one entry written before x[0];
 *   hostile_status_42, hostile_status_m99, hostile_status_2
 *                      that status returned (none is a tl_status).
 * Entry points (validate --lib): port_overrun (the same as
 * hostile_overrun), port_status_42, port_status_m99, port_status_2. */
#include <stdint.h>
#include <stdlib.h>

#include "tridlab/backend.h"

/* gtsv's answer through the program's own registry. */
static int right_answer(const tl_batch *sys, void *x, tl_info *info)
{
  return tl_solve(tl_find("gtsv"), sys, x, NULL, info);
}

/* x[count] (after) or x[-1] (before): one double outside the answer. */
static void scribble(const tl_batch *sys, void *x, int after)
{
  size_t words = sys->n * sys->nsys * tl_dtype_size(sys->dtype) / sizeof(double);
  double *v = x;
  if (after)
    v[words] = 1.0;
  else
    v[-1] = 1.0;
}

static int overrun_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                         const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  int st = right_answer(sys, x, info);
  scribble(sys, x, 1);
  return st;
}

static int underrun_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                          const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  int st = right_answer(sys, x, info);
  scribble(sys, x, 0);
  return st;
}

/* The status is the number in the name: hostile_status_42 returns 42. */
static int status_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                        const tl_options *opt, tl_info *info)
{
  (void)opt;
  right_answer(sys, x, info);
  return self->name[15] == 'm' ? -99 : (int)strtol(self->name + 15, NULL, 10);
}

#define HOSTILE(NAME, SOLVE)                                                                       \
  {                                                                                                \
    .name = NAME, .family = "direct", .backend = "plugin", .exact = 1,                             \
    .classes = TL_CLASS_NONSINGULAR, .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),       \
    .layouts = TL_NONPERIODIC, .min_rows_per_part = 1,                                             \
    .summary = "a plug-in that breaks its interface (tests only)",                                 \
    .source = "tests/ports/hostile_plugin.c", .solve = SOLVE                                       \
  }

static const tl_algorithm hostile[] = {
    HOSTILE("hostile_overrun", overrun_solve),  HOSTILE("hostile_underrun", underrun_solve),
    HOSTILE("hostile_status_42", status_solve), HOSTILE("hostile_status_m99", status_solve),
    HOSTILE("hostile_status_2", status_solve),
};

int tridlab_plugin_init(tl_info *info);

int tridlab_plugin_init(tl_info *info)
{
  for (size_t k = 0; k < sizeof hostile / sizeof hostile[0]; k++)
    TL_CALL(tl_register(&hostile[k], info));
  return TL_OK;
}

/* --lib entry points (tridlab/port.h's tl_port_entry). */
#define ENTRY_ARGS                                                                                 \
  int dtype, int periodic, int64_t n, int64_t nsys, const double *a, const double *b,              \
      const double *c, const double *d, double *x

int port_overrun(ENTRY_ARGS);
int port_status_42(ENTRY_ARGS);
int port_status_m99(ENTRY_ARGS);
int port_status_2(ENTRY_ARGS);

int port_overrun(ENTRY_ARGS)
{
  tl_batch sys = {.dtype = (tl_dtype)dtype,
                  .periodic = periodic,
                  .n = (size_t)n,
                  .nsys = (size_t)nsys,
                  .a = a,
                  .b = b,
                  .c = c,
                  .d = d};
  tl_info info;
  int st = right_answer(&sys, x, &info);
  scribble(&sys, x, 1);
  return st == TL_OK ? 0 : -2;
}

/* No answer at all: only the status matters. */
int port_status_42(ENTRY_ARGS)
{
  (void)dtype, (void)periodic, (void)n, (void)nsys, (void)a, (void)b, (void)c, (void)d, (void)x;
  return 42;
}

int port_status_m99(ENTRY_ARGS)
{
  (void)dtype, (void)periodic, (void)n, (void)nsys, (void)a, (void)b, (void)c, (void)d, (void)x;
  return -99;
}

int port_status_2(ENTRY_ARGS)
{
  (void)dtype, (void)periodic, (void)n, (void)nsys, (void)a, (void)b, (void)c, (void)d, (void)x;
  return 2;
}
