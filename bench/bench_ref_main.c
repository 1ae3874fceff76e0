/* bench/bench_ref_main.c -- the program tridlab-bench-ref: the throughput
 * of the reference algorithms (tl_bench_reference, tridlab/bench.h) as
 * CSV on stdout. Argument: one algorithm's name (default: all). */
#include <stdio.h>

#include "tridlab/bench.h"

int main(int argc, char **argv)
{
  tl_info info;
  if (tl_bench_reference(stdout, argc > 1 ? argv[1] : NULL, &info) != TL_OK) {
    fprintf(stderr, "bench: %s\n", info.msg);
    return 1;
  }
  return 0;
}
