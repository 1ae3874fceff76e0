/* tests/test_spike_recursive.c -- recursive SPIKE for the reduced system
 * (reduced=recursive, tl_spike_reduced_recursive_*).
 *
 * On random tips the recursion gives the band solve's boundary unknowns
 * to rounding, at every P from 1 to 33 (powers of two and odd counts,
 * whose odd segment waits a level); through the registry, spike,
 * spike_dp and spike_givens with reduced=recursive give the same statuses
 * as with the band solve, and answers within LAPACK's ratios, on dominant
 * and indefinite gallery matrices at P in {1, 2, 3, 4, 7, 16}; a merged
 * block that is singular (while A and every partition's block are not)
 * is a breakdown naming the partitions, where the band solve answers;
 * spike_givens' singular block is a breakdown under recursion; the
 * ledger is the band solve's; truncate=1 with reduced=recursive is a bad
 * argument.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/part_spike.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

static const tl_algorithm *algo(const char *name)
{
  const tl_algorithm *a = tl_find(name);
  cr_assert_not_null(a, "%s", name);
  return a;
}

static uint64_t state = 88172645463325252ull;
static double uniform(void) /* in [-1, 1) */
{
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return (double)(state >> 11) / 4503599627370496.0 - 1.0;
}

/* Tips of P partitions whose spikes are moderate (|V|, |W| < 0.5: the
 * reduced system is well conditioned); the first has no W, the last no V. */
static void random_tips(int P, double *t)
{
  for (int p = 0; p < P; p++) {
    double *q = t + TL_SPIKE_SEND * (size_t)p;
    q[0] = uniform(), q[1] = uniform();
    q[2] = p + 1 < P ? 0.5 * uniform() : 0, q[3] = p + 1 < P ? 0.5 * uniform() : 0;
    q[4] = p > 0 ? 0.5 * uniform() : 0, q[5] = p > 0 ? 0.5 * uniform() : 0;
  }
}

Test(spike_recursive, equals_the_band_solve_on_random_tips)
{
  for (int P = 1; P <= 33; P++) {
    double tips[TL_SPIKE_SEND * 33], yb[66] = {0}, yr[66] = {0};
    random_tips(P, tips);
    tl_info info;
    cr_assert_eq(tl_spike_reduced_d(P, tips, yb, &info), TL_OK, "P=%d: %s", P, info.msg);
    cr_assert_eq(tl_spike_reduced_recursive_d(P, tips, yr, &info), TL_OK, "P=%d: %s", P, info.msg);
    for (int k = 0; k < 2 * (P - 1); k++)
      cr_expect(fabs(yr[k] - yb[k]) <= 64 * TL_EPS * (1 + fabs(yb[k])), "P=%d y[%d]: %.17g %.17g",
                P, k, yr[k], yb[k]);
  }
}

/* The same in complex arithmetic. */
Test(spike_recursive, equals_the_band_solve_in_complex)
{
  for (int P = 2; P <= 17; P += 3) {
    double complex tips[TL_SPIKE_SEND * 17], yb[34] = {0}, yr[34] = {0};
    double re[TL_SPIKE_SEND * 17], im[TL_SPIKE_SEND * 17];
    random_tips(P, re);
    random_tips(P, im);
    for (int k = 0; k < TL_SPIKE_SEND * P; k++)
      tips[k] = re[k] + I * im[k];
    tl_info info;
    cr_assert_eq(tl_spike_reduced_z(P, tips, yb, &info), TL_OK, "P=%d: %s", P, info.msg);
    cr_assert_eq(tl_spike_reduced_recursive_z(P, tips, yr, &info), TL_OK, "P=%d: %s", P, info.msg);
    for (int k = 0; k < 2 * (P - 1); k++)
      cr_expect(cabs(yr[k] - yb[k]) <= 64 * TL_EPS * (1 + cabs(yb[k])), "P=%d y[%d]", P, k);
  }
}

/* One solve of gallery type `type` (n rows) by `name`, P partitions,
 * reduced = `how`. */
static int solve_how(const char *name, const char *how, const tl_problem *p, int P, void *x,
                     tl_ledger *ledger, tl_info *info)
{
  const tl_algorithm *a = algo(name);
  tl_options opt;
  th_options_parts(&opt, a, P, NULL, NULL);
  opt.ledger = ledger;
  cr_assert_eq(tl_options_set_param(&opt, a, "reduced", how, info), TL_OK, "%s", info->msg);
  return tl_solve(a, &p->sys, x, &opt, info);
}

/* Dominant and indefinite gallery matrices, real and complex: the same
 * status as the band solve, LAPACK's ratios below 30 wherever it passes.
 * spike_givens modifies nearly singular blocks here (toeplitz-1.5 at
 * P = 16, gt07-random at P = 7 and 16): the recursion folds their column
 * K into plain tips (fold_kernel) and still answers as the band solve. */
Test(spike_recursive, agrees_with_the_band_solve_on_the_gallery)
{
  static const char *const names[] = {"spike", "spike_dp", "spike_givens"};
  static const char *const types[] = {"sdd-random", "toeplitz-1.5", "helmholtz-damped",
                                      "gt07-random"};
  static const int parts[] = {1, 2, 3, 4, 7, 16};
  for (size_t a = 0; a < 3; a++)
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
      for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        tl_problem p;
        tl_info info;
        cr_assert_eq(tl_gallery_make(th_gallery_id(types[t]), 200, 2, 7, &p, &info), TL_OK);
        size_t bytes = 200 * 2 * tl_dtype_size(p.sys.dtype);
        void *xb = calloc(1, bytes), *xr = calloc(1, bytes);
        tl_info ib, ir;
        int sb = solve_how(names[a], "band", &p, parts[k], xb, NULL, &ib);
        int sr = solve_how(names[a], "recursive", &p, parts[k], xr, NULL, &ir);
        cr_expect_eq(sr, sb, "%s %s P=%d: %s / %s", names[a], types[t], parts[k], ir.msg, ib.msg);
        double resid, ferr;
        if (sb >= 0 && th_ratios(&p.sys, xb, &resid, &ferr) == TL_OK && resid < TL_THRESH &&
            ferr < TL_THRESH) {
          cr_expect_eq(th_ratios(&p.sys, xr, &resid, &ferr), TL_OK);
          cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "%s %s P=%d: ratios %g %g", names[a],
                    types[t], parts[k], resid, ferr);
        }
        free(xb);
        free(xr);
        tl_problem_free(&p);
      }
}

/* Four partitions of one row: blocks 1, 1, 3, 3 (non-singular), A
 * non-singular, but rows 0-1, [1 1; 1 1], the merge of partitions 0 and
 * 1, singular. The band solve pivots across it; the recursion cannot. */
Test(spike_recursive, a_singular_merged_block_is_a_breakdown)
{
  double a[4] = {0, 1, 1, 1}, b[4] = {1, 1, 3, 3}, c[4] = {1, 1, 1, 0}, d[4] = {1, 2, 3, 4};
  tl_batch sys = {.n = 4, .nsys = 1, .dtype = TL_F64, .a = a, .b = b, .c = c, .d = d};
  tl_problem p = {.sys = sys};
  double x[4];
  tl_info info;
  int st = solve_how("spike", "recursive", &p, 4, x, NULL, &info);
  cr_expect_eq(st, TL_ERR_BREAKDOWN, "%s", info.msg);
  cr_expect(strstr(info.msg, "recursive SPIKE: the block of partitions 0..1 is singular") != NULL,
            "%s", info.msg);
  cr_expect(strstr(info.msg, "reduced=band") != NULL, "%s", info.msg);
  st = solve_how("spike", "band", &p, 4, x, NULL, &info);
  cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "%s", info.msg); /* not dominant: the answer is written */
  double resid, ferr;
  cr_expect_eq(th_ratios(&p.sys, x, &resid, &ferr), TL_OK);
  cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "ratios %g %g", resid, ferr);
}

/* zero-pivot-interior with its first block [1 1; 1 1] (rows 0-1):
 * spike_givens modifies it and solves with the band solve; the
 * recursion needs the block itself non-singular and says so. */
Test(spike_recursive, a_singular_block_of_spike_givens_is_a_breakdown)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(th_gallery_id("zero-pivot-interior"), 64, 1, 1, &p, &info), TL_OK);
  size_t split[2] = {2, 62};
  double x[64];
  int st = th_solve_param(algo("spike_givens"), &p.sys, x, 2, split, "reduced", "recursive", &info);
  cr_expect_eq(st, TL_ERR_BREAKDOWN, "%s", info.msg);
  cr_expect(strstr(info.msg, "spike_givens: recursive SPIKE: the diagonal block of partition 0 is "
                             "singular") != NULL,
            "%s", info.msg);
  st = th_solve_param(algo("spike_givens"), &p.sys, x, 2, split, "reduced", "band", &info);
  cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "%s", info.msg);
  tl_problem_free(&p);
}

/* The recursion runs where the reduced system is solved (partition 0):
 * the messages are the band solve's. */
Test(spike_recursive, the_ledger_is_the_band_solves)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(th_gallery_id("sdd-random"), 100, 2, 3, &p, &info), TL_OK);
  double x[200];
  tl_ledger lb, lr;
  tl_ledger_init(&lb);
  tl_ledger_init(&lr);
  cr_assert_eq(solve_how("spike", "band", &p, 7, x, &lb, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(solve_how("spike", "recursive", &p, 7, x, &lr, &info), TL_OK, "%s", info.msg);
  char why[256];
  cr_expect(tl_ledger_equal(&lb, &lr, why, sizeof why), "%s", why);
  tl_ledger_free(&lb);
  tl_ledger_free(&lr);
  tl_problem_free(&p);
}

Test(spike_recursive, truncation_and_recursion_exclude_each_other)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(th_gallery_id("sdd-random"), 64, 1, 3, &p, &info), TL_OK);
  const tl_algorithm *a = algo("spike");
  tl_options opt;
  th_options_parts(&opt, a, 4, NULL, NULL);
  cr_assert_eq(tl_options_set_param(&opt, a, "truncate", "1", &info), TL_OK);
  cr_assert_eq(tl_options_set_param(&opt, a, "reduced", "recursive", &info), TL_OK);
  double x[64];
  cr_expect_eq(tl_solve(a, &p.sys, x, &opt, &info), TL_ERR_ARG);
  cr_expect(strstr(info.msg, "reduced=recursive") != NULL, "%s", info.msg);
  cr_expect_eq(tl_options_set_param(&opt, a, "reduced", "cyclic", &info), TL_ERR_ARG);
  tl_problem_free(&p);
}
