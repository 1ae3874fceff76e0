/* examples/spike_dp_growth.c -- diagonal pivoting against partial
 * pivoting in SPIKE's blocks (docs/algorithms/spike_dp.md).
 *
 * For some matrices that are not diagonally dominant, over 100 seeds of
 * n = 1000 rows each: the element growth of each factorization of the
 * whole matrix (spike_dp: max |beta| / max |a_ij|, at most 1/kappa^2 =
 * 2.618; spike, DGTTRF: the largest entry of U over max |a_ij|, at most
 * 2), and LAPACK's forward-error ratio (DGET04, against the true
 * solution) of gtsv, spike and spike_dp at P = 1 and 16: the mean and
 * the largest. Exits 1 if a growth bound is broken or a ratio reaches
 * 30.
 *
 *   build/examples/spike_dp_growth
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tridlab/phases.h"
#include "tridlab/tridlab.h"
#include "tridlab/verify.h"

enum { N = 1000, SEEDS = 100 };

/* max |v| over k entries. */
static double largest(size_t k, const double *v)
{
  double g = 0;
  for (size_t i = 0; i < k; i++)
    g = fmax(g, fabs(v[i]));
  return g;
}

/* The growth of both factorizations of a real matrix into grow[0] (spike_dp)
 * and grow[1] (spike), the larger of what they held and this matrix's. */
static void growth(const tl_problem *p, double grow[2])
{
  const double *a = p->a, *b = p->b, *c = p->c;
  double amax = fmax(largest(N, a), fmax(largest(N, b), largest(N, c)));
  double *f = calloc(4 * N, sizeof *f);
  unsigned char *flags = calloc(N, 1);
  tl_info info;
  if (f && flags && tl_spike_dp_factor_d(0, N, 0, a, b, c, f, flags, &info) == TL_OK)
    grow[0] = fmax(grow[0], largest(N, f) / amax); /* beta */
  if (f && flags &&
      tl_spike_factor_d(0, N, 0, a, b, c, f, f + N, f + 2 * N, f + 3 * N, flags, &info) == TL_OK)
    grow[1] = fmax(grow[1], largest(3 * N, f + N) / amax); /* u0, u1, u2 */
  free(f);
  free(flags);
}

/* LAPACK's forward-error ratio of algo's answer (P partitions), +inf
 * when it has none. */
static double ferr(const char *algo, const tl_problem *p, int P, double rcond, void *x)
{
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  tl_info info;
  int st = tl_solve(tl_find(algo), &p->sys, x, &opt, &info);
  return tl_status_has_solution(st) ? tl_forward_ratio(&p->sys, x, p->xtrue, &rcond) : INFINITY;
}

int main(void)
{
  static const char *const types[] = {"gt07-random", "toeplitz-1.5", "zero-diag",
                                      "complex-random", "helmholtz-damped"};
  static const char *const algos[] = {"gtsv", "spike", "spike_dp"};
  static const int parts[] = {1, 16};
  void *x = malloc(N * 16);
  int bad = !x;
  printf("| type | growth spike_dp | growth spike | P | gtsv mean / max | spike mean / max | "
         "spike_dp mean / max |\n|---|---|---|---|---|---|---|\n");
  for (size_t t = 0; t < sizeof types / sizeof types[0] && !bad; t++) {
    double grow[2] = {0, 0}, sum[2][3] = {{0}}, most[2][3] = {{0}};
    const tl_gallery_type *type = tl_gallery_find_name(types[t]);
    for (int s = 0; s < SEEDS && !bad; s++) {
      tl_problem p;
      tl_info info;
      double rcond;
      if (!type || tl_gallery_make(type->id, N, 1, 1000 + (uint64_t)s, &p, &info) != TL_OK) {
        bad = 1;
        break;
      }
      if (p.sys.dtype == TL_F64)
        growth(&p, grow);
      tl_rcond(&p.sys, &rcond, &info);
      for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++) {
          double f = ferr(algos[j], &p, j ? parts[k] : 1, rcond, x);
          sum[k][j] += f;
          most[k][j] = fmax(most[k][j], f);
        }
      tl_problem_free(&p);
    }
    for (int k = 0; k < 2; k++) {
      if (k == 0 && type->dtype == TL_F64)
        printf("| `%s` | %.2f | %.2f |", types[t], grow[0], grow[1]);
      else
        printf("| `%s` | | |", types[t]);
      printf(" %d |", parts[k]);
      for (int j = 0; j < 3; j++) {
        printf(" %.3f / %.3f |", sum[k][j] / SEEDS, most[k][j]);
        bad |= !(most[k][j] < 30);
      }
      printf("\n");
    }
    bad |= grow[0] > 1 / (TL_SPIKE_DP_KAPPA * TL_SPIKE_DP_KAPPA) + 1e-12 || grow[1] > 2;
  }
  free(x);
  return bad;
}
