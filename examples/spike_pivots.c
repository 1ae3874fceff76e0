/* examples/spike_pivots.c -- SPIKE on a matrix PDD refuses, phase by
 * phase (tutorials/03b-spike.md).
 *
 * The indefinite tridiag(1, 1.5, 1) of 12 rows in 3 partitions of 4. For
 * each partition: which rows its pivoted factorization swapped (LAPACK's
 * DGTTRF rule: the larger entry of the column is the pivot), and its two
 * spikes V = A_p^-1 (c e_last) and W = A_p^-1 (a e_first) -- which do not
 * decay, as PDD needs them to. Then the reduced system's answer, the
 * retrieval, and the residual against the one-call solve.
 *
 *   build/examples/spike_pivots
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tridlab/phases.h"
#include "tridlab/tridlab.h"

enum { N = 12, P = 3, M = N / P };

static void print_column(const char *name, const double *v)
{
  printf("    %s:", name);
  for (int i = 0; i < M; i++)
    printf(" %7.3f", v[i]);
  printf("\n");
}

int main(void)
{
  double a[N], b[N], c[N], d[N], x[N], xs[N];
  for (int i = 0; i < N; i++)
    a[i] = i ? 1.0 : 0.0, b[i] = 1.5, c[i] = i + 1 < N ? 1.0 : 0.0, d[i] = 1.0;
  double l[N], u0[N], u1[N], u2[N], g[N], v[N], w[N], tips[6 * P], y[2 * P];
  unsigned char swap[N];
  tl_info info;
  for (int p = 0; p < P; p++) {
    int lo = p * M, left = p > 0, right = p + 1 < P;
    if (tl_spike_factor_d(lo, M, p, a + lo, b + lo, c + lo, l + lo, u0 + lo, u1 + lo, u2 + lo,
                          swap + lo, &info) != TL_OK ||
        tl_spike_local_d(lo, M, left, right, a + lo, c + lo, d + lo, l + lo, u0 + lo, u1 + lo,
                         u2 + lo, swap + lo, g + lo, v + lo, w + lo, &info) != TL_OK) {
      printf("partition %d: %s\n", p, info.msg);
      return 1;
    }
    printf("partition %d (rows %d..%d): swaps at steps", p, lo, lo + M - 1);
    int any = 0;
    for (int i = 0; i + 1 < M; i++)
      if (swap[lo + i])
        printf(" %d", i), any = 1;
    printf("%s\n", any ? "" : " none");
    print_column("g", g + lo);
    if (right)
      print_column("V", v + lo);
    if (left)
      print_column("W", w + lo);
    tl_spike_tips_d(M, left, right, g + lo, v + lo, w + lo, tips + 6 * p);
  }
  if (tl_spike_reduced_d(P, tips, y, &info) != TL_OK) {
    printf("reduced system: %s\n", info.msg);
    return 1;
  }
  printf("reduced system (%d unknowns): y =", 2 * (P - 1));
  for (int k = 0; k < 2 * (P - 1); k++)
    printf(" %.6f", y[k]);
  printf("\n");
  for (int p = 0; p < P; p++) {
    int lo = p * M, left = p > 0, right = p + 1 < P;
    if (tl_spike_retrieve_d(lo, M, left, right, g + lo, v + lo, w + lo, left ? y[2 * p - 2] : 0,
                            right ? y[2 * p + 1] : 0, x + lo, &info) != TL_OK) {
      printf("retrieval: %s\n", info.msg);
      return 1;
    }
  }
  tl_batch sys = {TL_F64, N, 1, 0, a, b, c, d};
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  int st = tl_solve(tl_find("spike"), &sys, xs, &opt, &info);
  printf("x by phases = x by tl_solve (%s): %s\n", tl_status_name(st),
         memcmp(x, xs, sizeof x) ? "no" : "yes, bit for bit");
  printf("residual ratio: %.3g (THRESH 30)\n", tl_residual_ratio(&sys, x));
  return tl_status_has_solution(st) && !memcmp(x, xs, sizeof x) ? 0 : 1;
}
