/* array-offsets.c -- thomas_3d along x (double, SZ = 8, one thread) on 2^18
 * unknowns in cache, the arrays a, b, c, d, x placed k*skew bytes (mod 4 KiB)
 * past a 4 KiB boundary; the fastest of 31 calls. docs/performance.md,
 * "The float x tile's two halves".
 *
 *   gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude array-offsets.c \
 *       build/libtridlab.a -fopenmp -llapacke -llapack -lblas -lm -ldl -pthread
 *   OMP_NUM_THREADS=1 ./a.out N SKEW
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tridlab/cpu.h"
#include "tridlab/status.h"
static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv)
{
  size_t n = atoi(argv[1]), skew = atoi(argv[2]), total = 262144, nsys = total / n;
  size_t dims[3] = {n, nsys, 1};
  char *mem = aligned_alloc(4096, 5 * (total * 8 + 16384));
  double *arr[5];
  for (int k = 0; k < 5; k++) {
    arr[k] = (double *)(mem + k * (total * 8 + 16384) + (k * skew) % 4096);
  }
  srand(1);
  for (size_t q = 0; q < total; q++) {
    arr[0][q] = 0.3 * rand() / RAND_MAX - 0.15;
    arr[1][q] = 2 + 0.5 * rand() / RAND_MAX;
    arr[2][q] = 0.3 * rand() / RAND_MAX - 0.15;
    arr[3][q] = rand() / (double)RAND_MAX;
  }
  tl_info info;
  double best = 1e9;
  for (int r = 0; r < 31; r++) {
    double t = now();
    if (tl_cpu_thomas_3d_d(dims, TL_DIR_X, 8, arr[0], arr[1], arr[2], arr[3], arr[4], &info) !=
        TL_OK) {
      printf("fail %s\n", info.msg);
      return 1;
    }
    t = now() - t;
    if (t < best)
      best = t;
  }
  printf("n %zu skew %zu: %.3f ns/unknown\n", n, skew, 1e9 * best / total);
  return 0;
}
