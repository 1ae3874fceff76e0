/* tests/test_nshaped.c -- the N-shaped partition method (paper 004).
 *
 * Against LAPACK (tl_lapack_solve) for P in {1,2,3,4,7,16}, equal and
 * unequal partitions, n from P to thousands, 1 to 3 levels, real and
 * complex, plain and periodic (the Crank-Nicolson TDSE systems of the
 * paper among them); the stages called one by one give the one-call
 * solve bitwise; limits are clear errors; the block-count estimates of
 * §5.4.1; and the gallery sweep: never TL_OK with a wrong answer.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/backend.h"
#include "tridlab/part_nshaped.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"
#include "underflow_helpers.h"

extern const tl_algorithm tl_algo_nshaped_ref;
#define ALGO (&tl_algo_nshaped_ref)
#define SEED 0x4e5a1u

static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])

/* Solve p with the options, check the status and LAPACK's two ratios. */
static void check_solve(const tl_problem *p, const tl_options *opt, const char *what)
{
  size_t n = p->sys.n;
  void *x = calloc(n * p->sys.nsys, tl_dtype_size(p->sys.dtype));
  cr_assert(x);
  tl_info info;
  int st = tl_solve(ALGO, &p->sys, x, opt, &info);
  cr_assert_eq(st, TL_OK, "%s n=%zu P=%d: status %d (%s)", what, n, opt->parts, st, info.msg);
  double res, fwd;
  cr_assert_eq(th_ratios(&p->sys, x, &res, &fwd), 0);
  cr_assert(res < TL_THRESH && fwd < TL_THRESH, "%s n=%zu P=%d: residual %g forward %g", what, n,
            opt->parts, res, fwd);
  free(x);
}

static const int lapack_types[] = {20, 22, 2, 34, 50, 55, 60, 61, 62};
#define NTYPES (sizeof lapack_types / sizeof lapack_types[0])

Test(nshaped, against_lapack_equal_partitions)
{
  static const size_t sizes[] = {1, 2, 3, 5, 8, 17, 33, 100, 1000, 5000};
  for (size_t t = 0; t < NTYPES; t++)
    for (size_t k = 0; k < NPARTS; k++)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int levels = 1; levels <= 3; levels++) {
          size_t n = sizes[s];
          int P = parts_list[k];
          if (n < (size_t)P || (n > 1000 && levels > 1))
            continue;
          tl_problem p;
          cr_assert_eq(tl_gallery_make(lapack_types[t], n, 2, SEED + n, &p, NULL), TL_OK);
          tl_options opt;
          tl_options_init(&opt);
          opt.parts = P;
          char lv[16];
          snprintf(lv, sizeof lv, "%d", levels);
          cr_assert_eq(tl_options_set_param(&opt, ALGO, "levels", lv, NULL), TL_OK);
          check_solve(&p, &opt, p.type->name);
          tl_problem_free(&p);
        }
}

Test(nshaped, against_lapack_unequal_partitions)
{
  uint64_t state = SEED;
  tl_rng rng;
  tl_rng_seed(&rng, state);
  for (size_t t = 0; t < NTYPES; t++)
    for (size_t k = 0; k < NPARTS; k++)
      for (int rep = 0; rep < 6; rep++) {
        int P = parts_list[k];
        size_t sizes[16], n = 0;
        for (int q = 0; q < P; q++) {
          /* 1 or 2 rows (empty blocks), or up to 60 */
          size_t m = (rep % 2) ? 1 + (tl_rng_next(&rng) % 2) : 1 + (tl_rng_next(&rng) % 60);
          sizes[q] = m;
          n += m;
        }
        tl_problem p;
        cr_assert_eq(tl_gallery_make(lapack_types[t], n, 1, SEED + (uint64_t)rep, &p, NULL), TL_OK);
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
        opt.part_sizes = sizes;
        opt.is_set[0] = 1;
        opt.value[0] = 1 + rep % 3; /* levels */
        check_solve(&p, &opt, "unequal");
        tl_problem_free(&p);
      }
}

/* The stages one by one, as a learner calls them, give the one-call
 * solve bit for bit (real and complex, plain and periodic). */
Test(nshaped, stages_equal_one_call_bitwise)
{
  static const int types[] = {20, 50, 60, 61};
  for (size_t t = 0; t < 4; t++) {
    size_t n = 203, sizes[] = {50, 1, 2, 80, 70};
    int P = 5;
    tl_problem p;
    cr_assert_eq(tl_gallery_make(types[t], n, 1, SEED, &p, NULL), TL_OK);
    int periodic = p.sys.periodic;
    if (p.sys.dtype == TL_F64) {
      double *x1 = calloc(n, sizeof(double)), *x2 = calloc(n, sizeof(double));
      const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
      cr_assert_eq(tl_nshaped_ref_d(n, periodic, a, b, c, d, x1, P, sizes, 1, NULL), TL_OK);
      tl_nshaped_state_d st;
      cr_assert_eq(tl_nshaped_init_d(&st, n, periodic, P, sizes, NULL), TL_OK);
      const size_t *o = st.begin; /* the stages take a partition's first row */
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_rd_d(&st, q, a + o[q], b + o[q], c + o[q], d + o[q], NULL), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_ru_d(&st, q, c + o[q]), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_ju_d(&st, q, a + o[q], b + o[q], c + o[q], d + o[q], NULL), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_jd_d(&st, q, a + o[q], NULL), TL_OK);
      cr_assert_eq(tl_nshaped_rs_d(&st, 1, NULL), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_ss_d(&st, q, x2 + o[q], NULL), TL_OK);
      cr_assert_eq(memcmp(x1, x2, n * sizeof(double)), 0);
      tl_nshaped_free_d(&st);
      free(x1);
      free(x2);
    } else {
      double complex *x1 = calloc(n, sizeof(double complex)),
                     *x2 = calloc(n, sizeof(double complex));
      const double complex *a = p.a, *b = p.b, *c = p.c, *d = p.d;
      cr_assert_eq(tl_nshaped_ref_z(n, periodic, a, b, c, d, x1, P, sizes, 1, NULL), TL_OK);
      tl_nshaped_state_z st;
      cr_assert_eq(tl_nshaped_init_z(&st, n, periodic, P, sizes, NULL), TL_OK);
      const size_t *o = st.begin; /* the stages take a partition's first row */
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_rd_z(&st, q, a + o[q], b + o[q], c + o[q], d + o[q], NULL), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_ru_z(&st, q, c + o[q]), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_ju_z(&st, q, a + o[q], b + o[q], c + o[q], d + o[q], NULL), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_jd_z(&st, q, a + o[q], NULL), TL_OK);
      cr_assert_eq(tl_nshaped_rs_z(&st, 1, NULL), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_nshaped_ss_z(&st, q, x2 + o[q], NULL), TL_OK);
      cr_assert_eq(memcmp(x1, x2, n * sizeof(double complex)), 0);
      tl_nshaped_free_z(&st);
      free(x1);
      free(x2);
    }
    tl_problem_free(&p);
  }
}

/* Stage by stage on a 2-partition system small enough to check by hand:
 * after JU and JD the joint lines hold the Schur complement, whose
 * solution is x at the joint lines. */
Test(nshaped, reduced_system_is_exact_at_joint_lines)
{
  size_t n = 9;
  double a[9], b[9], c[9], xt[9], d[9];
  for (size_t i = 0; i < n; i++) {
    a[i] = i ? 1.0 + 0.1 * (double)i : 0;
    c[i] = i + 1 < n ? -0.5 : 0;
    b[i] = 4.0 + (double)(i % 3);
    xt[i] = (double)i - 3.0;
  }
  for (size_t i = 0; i < n; i++)
    d[i] = b[i] * xt[i] + (i ? a[i] * xt[i - 1] : 0) + (i + 1 < n ? c[i] * xt[i + 1] : 0);
  tl_nshaped_state_d st;
  cr_assert_eq(tl_nshaped_init_d(&st, n, 0, 2, NULL, NULL), TL_OK);
  cr_assert_eq(st.nj, 3); /* joint lines 0, 5, 8 */
  cr_assert_eq(st.joint[1], 5);
  cr_assert_eq(st.joint[2], 8);
  const size_t *o = st.begin;
  for (int q = 0; q < 2; q++)
    tl_nshaped_rd_d(&st, q, a + o[q], b + o[q], c + o[q], d + o[q], NULL);
  for (int q = 0; q < 2; q++)
    tl_nshaped_ru_d(&st, q, c + o[q]);
  for (int q = 0; q < 2; q++)
    tl_nshaped_ju_d(&st, q, a + o[q], b + o[q], c + o[q], d + o[q], NULL);
  for (int q = 0; q < 2; q++)
    tl_nshaped_jd_d(&st, q, a + o[q], NULL);
  /* every block row now couples only to its two joint columns (Fig. 1.f) */
  for (size_t i = 1; i < 8; i++) {
    if (i == 5)
      continue;
    size_t jl = i < 5 ? 0 : 5, jr = i < 5 ? 5 : 8;
    double lhs = st.left[i] * xt[jl] + st.diag[i] * xt[i] + st.right[i] * xt[jr];
    cr_assert(fabs(lhs - st.rhs[i]) <= 64 * TL_EPS * (fabs(st.rhs[i]) + 10));
  }
  for (size_t w = 0; w < 3; w++) {
    double lhs = st.rb[w] * xt[st.joint[w]] + (w ? st.ra[w] * xt[st.joint[w - 1]] : 0) +
                 (w < 2 ? st.rc[w] * xt[st.joint[w + 1]] : 0);
    cr_assert(fabs(lhs - st.rd[w]) <= 64 * TL_EPS * (fabs(st.rd[w]) + 10));
  }
  tl_nshaped_free_d(&st);
}

Test(nshaped, optimal_block_estimates)
{
  cr_assert_eq(tl_nshaped_optimal_blocks(0), 1);
  cr_assert_eq(tl_nshaped_optimal_blocks(1), 1);
  cr_assert_eq(tl_nshaped_optimal_blocks(2), 1);
  cr_assert_eq(tl_nshaped_optimal_blocks(1000000), 1000);
  cr_assert_eq(tl_nshaped_optimal_blocks(300000), 548); /* paper 004 Fig. 2: n = 3e5 */
  cr_assert_eq(tl_nshaped_optimal_blocks_nested(1000000, 1), 1000);
  cr_assert_eq(tl_nshaped_optimal_blocks_nested(1000000, 2), 10000);
  cr_assert_eq(tl_nshaped_optimal_blocks_nested(1000000, 0), 1);
}

Test(nshaped, limits_are_clear_errors)
{
  tl_options opt;
  tl_options_init(&opt);
  tl_info info;
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "levels", "0", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "levels", "1.5", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "blocks", "4", &info), TL_ERR_ARG);
  tl_problem p;
  cr_assert_eq(tl_gallery_make(20, 5, 1, SEED, &p, NULL), TL_OK);
  double x[5];
  opt.parts = 6; /* more partitions than rows */
  cr_assert_eq(tl_solve(ALGO, &p.sys, x, &opt, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "parts");
  cr_assert_eq(tl_nshaped_ref_d(5, 0, p.a, p.b, p.c, p.d, x, 2, NULL, 0, &info), TL_ERR_ARG);
  cr_assert_eq(tl_nshaped_ref_d(5, 0, p.a, p.b, p.c, p.d, x, 6, NULL, 1, &info), TL_ERR_ARG);
  tl_problem_free(&p);
}

/* A zero pivot inside a block (RD) and a zero diagonal on a joint line
 * after JU are breakdowns at their rows. */
Test(nshaped, breakdown_rows)
{
  double a[6] = {0, 1, 1, 1, 1, 1}, b[6] = {4, 1, 1, 4, 4, 4}, c[6] = {1, 1, 1, 1, 1, 0};
  double d[6] = {1, 1, 1, 1, 1, 1}, x[6];
  tl_info info;
  /* P = 2: joint lines 0, 3, 5; block 0 = rows 1, 2: pivot 2 = 1 - 1*1/1 = 0 */
  cr_assert_eq(tl_nshaped_ref_d(6, 0, a, b, c, d, x, 2, NULL, 1, &info), TL_ERR_BREAKDOWN);
  cr_assert_eq(info.row, 2);
  /* joint line 0 after JU: b0 - c0 left1 / diag1 = 1 - 1 = 0 (c1 = 0 keeps left1 = a1) */
  double b2[6] = {1, 1, 4, 4, 4, 4}, c2[6] = {1, 0, 1, 1, 1, 0};
  cr_assert_eq(tl_nshaped_ref_d(6, 0, a, b2, c2, d, x, 2, NULL, 1, &info), TL_ERR_BREAKDOWN);
  cr_assert_eq(info.row, 0);
}

Test(nshaped, outside_domain_is_reported)
{
  tl_problem p;
  cr_assert_eq(tl_gallery_make(25, 100, 1, SEED, &p, NULL), TL_OK); /* toeplitz-1.5 */
  double x[100];
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 4;
  tl_info info;
  int st = tl_solve(ALGO, &p.sys, x, &opt, &info);
  cr_assert(st == TL_OUTSIDE_DOMAIN || st == TL_ERR_BREAKDOWN, "status %d", st);
  tl_problem_free(&p);
  /* complex-random (type 63) is not dominant: reported, or right */
  cr_assert_eq(tl_gallery_make(63, 500, 1, SEED, &p, NULL), TL_OK);
  double complex z[500];
  st = tl_solve(ALGO, &p.sys, z, &opt, &info);
  cr_assert_neq(st, TL_OK);
  tl_problem_free(&p);
}

/* The global promise over the whole gallery. */
/* Found by fuzzing: SS computes the block row 1 from terms in the
 * subnormal range (d1 = 7 * 2^-1074), with an absolute error eps DBL_MIN
 * that joint line 0, which eliminated row 1 exactly, sees multiplied by
 * c0 / b1 = 6e299: residual ratio 8e13 with status ok. The solve now
 * checks its residual when SS runs near the underflow threshold. */
Test(nshaped, substitution_near_underflow_is_checked)
{
  static const double a[3] = {0, 3.738e-162, 1e138}, b[3] = {6e138, 1e-161, 3e138};
  static const double c[3] = {-5.9399999999999995e+138, 0, 0}, d[3] = {0, 7 * 0x1p-1074, 0};
  expect_underflow_reported("nshaped", a, b, c, d);
}

Test(nshaped, gallery_sweep_no_silent_wrong_answer, .timeout = 120)
{
  static const size_t sizes[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  size_t ntypes = tl_gallery_count();
  for (size_t t = 0; t < ntypes; t++) {
    const tl_gallery_type *ty = tl_gallery_get(t);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t k = 0; k < NPARTS; k++) {
        size_t n = sizes[s];
        int P = parts_list[k];
        if (n < ty->min_n || n < (size_t)P)
          continue;
        tl_problem p;
        cr_assert_eq(tl_gallery_make(ty->id, n, 1, SEED, &p, NULL), TL_OK);
        void *x = calloc(n, tl_dtype_size(p.sys.dtype));
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
        opt.is_set[0] = 1;
        opt.value[0] = 1 + (double)(k % 2); /* levels 1 and 2 */
        tl_info info;
        int st = tl_solve(ALGO, &p.sys, x, &opt, &info);
        if (st == TL_OK) {
          double res, fwd;
          cr_assert_eq(th_ratios(&p.sys, x, &res, &fwd), 0, "%s n=%zu", ty->name, n);
          cr_assert(res < TL_THRESH && fwd < TL_THRESH,
                    "silent wrong answer: %s n=%zu P=%d residual %g forward %g", ty->name, n, P,
                    res, fwd);
        }
        free(x);
        tl_problem_free(&p);
      }
  }
}
