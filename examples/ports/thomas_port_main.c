/* examples/ports/thomas_port_main.c -- the example port as a program, the
 * form `tridlab validate --exec` runs (any language would do; this one
 * reads and writes .npy with tridlab's reader):
 *
 *   thomas_port SYSTEM_DIR OUT.npy [--conjugate-bug]
 *
 * Exit code (docs/ports.md): 0 solved, 3 solved outside its domain,
 * 2 zero pivot, 4 not handled (periodic), 1 unreadable input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thomas_port.h"
#include "tridlab/npy.h"

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: thomas_port SYSTEM_DIR OUT.npy [--conjugate-bug]\n");
    return 1;
  }
  int conj_bug = argc > 3 && strcmp(argv[3], "--conjugate-bug") == 0;
  tl_system_dir sd;
  tl_info info;
  if (tl_system_dir_read(argv[1], 0, &sd, &info) != TL_OK) {
    fprintf(stderr, "thomas_port: %s\n", info.msg);
    return 1;
  }
  const tl_batch *s = &sd.sys;
  double *x = malloc(s->n * s->nsys * tl_dtype_size(s->dtype));
  int (*solve)(int, int, int64_t, int64_t, const double *, const double *, const double *,
               const double *, double *) = conj_bug ? port_thomas_conj : port_thomas;
  int st = x ? solve((int)s->dtype, s->periodic, (int64_t)s->n, (int64_t)s->nsys, s->a, s->b, s->c,
                     s->d, x)
             : -1;
  if (st >= 0 && tl_npy_write(argv[2], s->dtype, sd.ndim, sd.shape, x, &info) != TL_OK) {
    fprintf(stderr, "thomas_port: %s\n", info.msg);
    st = -1;
  }
  free(x);
  tl_system_dir_free(&sd);
  switch (st) {
  case 0: return 0;
  case 1: fprintf(stderr, "not diagonally dominant\n"); return 3;
  case -2: fprintf(stderr, "zero pivot\n"); return 2;
  case -4: return 4;
  default: return 1;
  }
}
