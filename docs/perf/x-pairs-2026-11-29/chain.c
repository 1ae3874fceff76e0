/* NOT BUILT: a record of an experiment (docs/performance.md, "The x kernel in L2: two
 * chains"). The x kernel's recurrence alone, on 8 lanes of doubles in L1, without the
 * transposes: one group's chain (a multiplication, a subtraction, the division, a
 * multiplication per row, then the backward sweep) against two groups' chains side by side.
 *   gcc -O2 -mavx512f -mprefer-vector-width=512 -ffp-contract=off chain.c -o chain && ./chain
 * Printed on the development machine, 2026-11-29: one chain 1.19 ns per unknown, two 0.79. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
#define R 256
typedef double v8 __attribute__((vector_size(64)));
static v8 A[2][R], B[2][R], C[2][R], D[2][R], CP[2][R], DP[2][R], X[2][R];
__attribute__((noinline)) void one(int g)
{
  v8 one = {1, 1, 1, 1, 1, 1, 1, 1};
  v8 pc = C[g][0] / B[g][0], pd = D[g][0] / B[g][0];
  for (int r = 1; r < R; r++) {
    v8 p = B[g][r] - A[g][r] * pc, q = one / p;
    pc = C[g][r] * q;
    pd = (D[g][r] - A[g][r] * pd) * q;
    CP[g][r] = pc;
    DP[g][r] = pd;
  }
  v8 x = DP[g][R - 1];
  for (int r = R - 1; r-- > 0;) {
    x = DP[g][r] - CP[g][r] * x;
    X[g][r] = x;
  }
}
__attribute__((noinline)) void two(void)
{
  v8 one = {1, 1, 1, 1, 1, 1, 1, 1};
  v8 pc[2], pd[2];
  for (int g = 0; g < 2; g++) {
    pc[g] = C[g][0] / B[g][0];
    pd[g] = D[g][0] / B[g][0];
  }
  for (int r = 1; r < R; r++)
    for (int g = 0; g < 2; g++) {
      v8 p = B[g][r] - A[g][r] * pc[g], q = one / p;
      pc[g] = C[g][r] * q;
      pd[g] = (D[g][r] - A[g][r] * pd[g]) * q;
      CP[g][r] = pc[g];
      DP[g][r] = pd[g];
    }
  v8 x[2];
  for (int g = 0; g < 2; g++)
    x[g] = DP[g][R - 1];
  for (int r = R - 1; r-- > 0;)
    for (int g = 0; g < 2; g++) {
      x[g] = DP[g][r] - CP[g][r] * x[g];
      X[g][r] = x[g];
    }
}
int main(void)
{
  for (int g = 0; g < 2; g++)
    for (int r = 0; r < R; r++)
      for (int l = 0; l < 8; l++) {
        A[g][r][l] = -0.3 - 0.01 * l;
        B[g][r][l] = 2.5;
        C[g][r][l] = -0.4;
        D[g][r][l] = 1;
      }
  int N = 200000;
  double t0 = now();
  for (int i = 0; i < N; i++) {
    one(0);
    one(1);
  }
  double t1 = now();
  printf("one chain: %.3f ns/unknown\n", (t1 - t0) / N / (2 * R * 8) * 1e9);
  t0 = now();
  for (int i = 0; i < N; i++) {
    two();
  }
  t1 = now();
  printf("two chains: %.3f ns/unknown\n", (t1 - t0) / N / (2 * R * 8) * 1e9);
  return 0;
}
