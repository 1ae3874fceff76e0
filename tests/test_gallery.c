/* tests/test_gallery.c -- the matrix gallery keeps its promises.
 *
 * Every type is made at several sizes; corners of non-periodic systems are
 * exactly zero; seeds are reproducible and systems independent of nsys;
 * the declared dominance classes hold when measured; d = A xtrue up to
 * rounding; singular types are singular; bad arguments are rejected.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tridlab/backend.h"
#include "tridlab/verify.h"

static const size_t make_sizes[] = {1, 2, 3, 7, 64};
static const size_t class_sizes[] = {1, 2, 3, 5, 7, 16, 64, 1000};
#define NSIZES(v) (sizeof v / sizeof v[0])
#define NSYS 3
#define SEED 20240601u

static const unsigned measured = TL_CLASS_ROW_DD | TL_CLASS_STRICT_DD | TL_CLASS_COL_DD;

static tl_problem make_ok(const tl_gallery_type *t, size_t n, size_t nsys, uint64_t seed)
{
  tl_problem p;
  tl_info info;
  int st = tl_gallery_make(t->id, n, nsys, seed, &p, &info);
  cr_assert_eq(st, TL_OK, "%s n=%zu: status %d (%s)", t->name, n, st, info.msg);
  return p;
}

static size_t bytes(const tl_problem *p)
{
  return p->sys.nsys * p->sys.n * tl_dtype_size(p->sys.dtype);
}

static int all_finite(const tl_problem *p, const void *v)
{
  const double *x = v;
  size_t count = bytes(p) / sizeof(double);
  for (size_t k = 0; k < count; k++)
    if (!isfinite(x[k]))
      return 0;
  return 1;
}

/* One system's entries as complex numbers (real types widen exactly). */
static double complex entry(const tl_problem *p, const void *v, size_t k)
{
  if (p->sys.dtype == TL_F64)
    return ((const double *)v)[k];
  return ((const double complex *)v)[k];
}

Test(gallery, table_is_consistent)
{
  size_t count = tl_gallery_count();
  cr_assert_gt(count, 40);
  cr_expect_null(tl_gallery_get(count));
  for (size_t k = 0; k < count; k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    cr_assert_not_null(t);
    cr_expect_eq(tl_gallery_find(t->id), t, "find(%d)", t->id);
    cr_expect_eq(tl_gallery_find_name(t->name), t, "find_name(%s)", t->name);
    cr_expect_geq(t->min_n, 1);
    cr_expect(t->dtype == TL_F64 || t->dtype == TL_C128);
    cr_expect(!t->singular || t->classes == 0, "%s: singular with classes", t->name);
    cr_expect(t->singular || (t->classes & TL_CLASS_NONSINGULAR), "%s lacks NONSINGULAR", t->name);
    for (size_t j = 0; j < k; j++) {
      cr_expect_neq(tl_gallery_get(j)->id, t->id, "duplicate id %d", t->id);
      cr_expect_str_neq(tl_gallery_get(j)->name, t->name, "duplicate name");
    }
  }
  cr_expect_null(tl_gallery_find(0));
  cr_expect_null(tl_gallery_find(-3));
  cr_expect_null(tl_gallery_find_name("no-such-type"));
  cr_expect_null(tl_gallery_find_name(NULL));
}

Test(gallery, makes_every_type)
{
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    for (size_t m = 0; m < NSIZES(make_sizes); m++) {
      size_t n = make_sizes[m];
      if (n < t->min_n)
        continue;
      tl_problem p = make_ok(t, n, NSYS, SEED);
      cr_expect_eq(p.type, t);
      cr_expect_eq(p.seed, SEED);
      cr_expect_eq(p.sys.dtype, t->dtype);
      cr_expect_eq(p.sys.n, n);
      cr_expect_eq(p.sys.nsys, NSYS);
      cr_expect_eq(p.sys.periodic, t->periodic);
      cr_expect(p.sys.a == p.a && p.sys.b == p.b && p.sys.c == p.c && p.sys.d == p.d);
      cr_expect_eq(p.xtrue == NULL, t->singular != 0, "%s: xtrue vs singular", t->name);
      const void *arrays[5] = {p.a, p.b, p.c, p.d, p.xtrue};
      for (int a = 0; a < 5; a++)
        cr_expect(!arrays[a] || all_finite(&p, arrays[a]), "%s n=%zu: array %d not finite", t->name,
                  n, a);
      for (size_t s = 0; s < NSYS && !t->periodic; s++) {
        cr_expect(entry(&p, p.a, s * n) == 0.0, "%s n=%zu: a[0] != 0", t->name, n);
        cr_expect(entry(&p, p.c, s * n + n - 1) == 0.0, "%s n=%zu: c[n-1] != 0", t->name, n);
      }
      tl_problem_free(&p);
    }
  }
}

static int same_arrays(const tl_problem *p, const tl_problem *q)
{
  size_t nb = bytes(p);
  if (memcmp(p->a, q->a, nb) || memcmp(p->b, q->b, nb) || memcmp(p->c, q->c, nb) ||
      memcmp(p->d, q->d, nb))
    return 0;
  return !p->xtrue || !memcmp(p->xtrue, q->xtrue, nb);
}

Test(gallery, seeds_are_reproducible)
{
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    size_t n = t->min_n > 7 ? t->min_n : 7;
    tl_problem p = make_ok(t, n, NSYS, SEED);
    tl_problem q = make_ok(t, n, NSYS, SEED);
    tl_problem other = make_ok(t, n, NSYS, SEED + 1);
    tl_problem single = make_ok(t, n, 1, SEED);
    size_t one = n * tl_dtype_size(t->dtype);
    cr_expect(same_arrays(&p, &q), "%s: same seed, different arrays", t->name);
    cr_expect(memcmp(p.d, other.d, bytes(&p)) != 0, "%s: seed ignored", t->name);
    /* System 0 does not depend on how many systems the batch has. */
    cr_expect(!memcmp(p.a, single.a, one) && !memcmp(p.b, single.b, one) &&
                  !memcmp(p.d, single.d, one),
              "%s: system 0 depends on nsys", t->name);
    cr_expect(memcmp(p.d, (const char *)p.d + one, one) != 0, "%s: systems 0, 1 equal", t->name);
    tl_problem_free(&p);
    tl_problem_free(&q);
    tl_problem_free(&other);
    tl_problem_free(&single);
  }
}

static unsigned measure(const tl_problem *p, size_t s, long *worst)
{
  size_t n = p->sys.n, off = s * n;
  if (p->sys.dtype == TL_F64)
    return tl_classes_d(n, (const double *)p->a + off, (const double *)p->b + off,
                        (const double *)p->c + off, p->sys.periodic, worst);
  return tl_classes_z(n, (const double complex *)p->a + off, (const double complex *)p->b + off,
                      (const double complex *)p->c + off, p->sys.periodic, worst);
}

Test(gallery, declared_classes_hold)
{
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    unsigned want = t->classes & measured;
    for (size_t m = 0; m < NSIZES(class_sizes); m++) {
      size_t n = class_sizes[m];
      if (n < t->min_n)
        continue;
      tl_problem p = make_ok(t, n, NSYS, SEED);
      for (size_t s = 0; s < NSYS; s++) {
        long worst = -1;
        unsigned got = measure(&p, s, &worst);
        cr_expect_eq(got & want, want, "%s n=%zu system %zu: classes 0x%x, declared 0x%x (row %ld)",
                     t->name, n, s, got, want, worst);
      }
      tl_problem_free(&p);
    }
  }
}

/* |d_i - (A x)_i| <= k eps (|A||x|)_i: d was made as A x in double, so
 * the two evaluations differ by a few roundings; complex products round
 * more than real ones. Gradual underflow adds at most a subnormal unit per
 * product, which only the SMALL-scaled types can meet. */
static void check_residual(const tl_problem *p)
{
  size_t n = p->sys.n;
  double k = p->sys.dtype == TL_F64 ? 8.0 : 16.0;
  for (size_t s = 0; s < p->sys.nsys; s++) {
    size_t o = s * n;
    for (size_t i = 0; i < n; i++) {
      size_t l = o + (i > 0 ? i - 1 : n - 1), r = o + (i + 1 < n ? i + 1 : 0);
      double complex ta = entry(p, p->a, o + i) * entry(p, p->xtrue, l);
      double complex tb = entry(p, p->b, o + i) * entry(p, p->xtrue, o + i);
      double complex tc = entry(p, p->c, o + i) * entry(p, p->xtrue, r);
      double res = cabs(entry(p, p->d, o + i) - (ta + tb + tc));
      double scale = cabs(ta) + cabs(tb) + cabs(tc);
      cr_expect_leq(res, k * TL_EPS * scale + 3.0 * DBL_TRUE_MIN,
                    "%s n=%zu system %zu row %zu: residual %g, |A||x| %g", p->type->name, n, s, i,
                    res, scale);
    }
  }
}

Test(gallery, rhs_is_a_times_xtrue)
{
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    if (t->singular)
      continue;
    for (size_t m = 0; m < NSIZES(make_sizes); m++) {
      if (make_sizes[m] < t->min_n)
        continue;
      tl_problem p = make_ok(t, make_sizes[m], NSYS, SEED);
      check_residual(&p);
      tl_problem_free(&p);
    }
  }
}

/* A singular type shows why: an exactly zero column (e_j is a null
 * vector) or exactly zero row sums of the wrapped matrix (ones is). */
static int visibly_singular(const tl_problem *p, size_t s)
{
  size_t n = p->sys.n, o = s * n;
  int rows_zero = 1;
  for (size_t i = 0; i < n; i++) {
    double complex sum = entry(p, p->a, o + i) + entry(p, p->b, o + i) + entry(p, p->c, o + i);
    rows_zero = rows_zero && sum == 0.0;
  }
  if (p->sys.periodic && rows_zero)
    return 1;
  for (size_t j = 0; j < n; j++) {
    int zero = entry(p, p->b, o + j) == 0.0;
    if (j > 0)
      zero = zero && entry(p, p->c, o + j - 1) == 0.0;
    if (j + 1 < n)
      zero = zero && entry(p, p->a, o + j + 1) == 0.0;
    if (zero)
      return 1;
  }
  return 0;
}

Test(gallery, singular_types_are_singular)
{
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    if (!t->singular)
      continue;
    for (size_t m = 0; m < NSIZES(make_sizes); m++) {
      if (make_sizes[m] < t->min_n)
        continue;
      tl_problem p = make_ok(t, make_sizes[m], NSYS, SEED);
      for (size_t s = 0; s < NSYS; s++)
        cr_expect(visibly_singular(&p, s), "%s n=%zu system %zu is not visibly singular", t->name,
                  make_sizes[m], s);
      tl_problem_free(&p);
    }
  }
}

static void expect_bad(int id, size_t n, size_t nsys, const char *arg)
{
  tl_problem p;
  memset(&p, 0xAB, sizeof p); /* garbage in: make must not trust it */
  tl_info info;
  int st = tl_gallery_make(id, n, nsys, SEED, &p, &info);
  cr_expect_eq(st, TL_ERR_ARG, "id %d n %zu nsys %zu: status %d", id, n, nsys, st);
  cr_expect_eq(info.status, TL_ERR_ARG);
  cr_expect_str_eq(info.arg, arg, "id %d n %zu nsys %zu", id, n, nsys);
  cr_expect_neq(info.msg[0], '\0');
  tl_problem_free(&p); /* safe after a failed make */
}

Test(gallery, rejects_bad_arguments)
{
  expect_bad(0, 8, 1, "id");
  expect_bad(999, 8, 1, "id");
  expect_bad(-1, 8, 1, "id");
  expect_bad(1, 0, 1, "n");
  expect_bad(30, 3, 1, "n"); /* pade4-closure is singular at n = 3 */
  expect_bad(31, 4, 1, "n");
  expect_bad(39, 2, 1, "n");
  expect_bad(1, 8, 0, "nsys");
  expect_bad(1, SIZE_MAX / 2, 4, "nsys");
  tl_info info;
  cr_expect_eq(tl_gallery_make(1, 8, 1, SEED, NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "p");
  cr_expect_eq(tl_gallery_make(999, 8, 1, SEED, NULL, NULL), TL_ERR_ARG);
}

Test(gallery, free_is_safe)
{
  tl_problem p;
  memset(&p, 0, sizeof p);
  tl_problem_free(&p);
  tl_problem_free(NULL);
  p = make_ok(tl_gallery_find(1), 5, 2, SEED);
  tl_problem_free(&p);
  tl_problem_free(&p);
  cr_expect_null(p.a);
  cr_expect_null(p.xtrue);
}

Test(gallery, expects_pass_follows_classes_dtype_and_layout)
{
  const unsigned both = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128);
  tl_algorithm thomas = {.name = "thomas",
                         .dtypes = both,
                         .layouts = TL_NONPERIODIC,
                         .classes = TL_CLASS_ROW_DD | TL_CLASS_COL_DD | TL_CLASS_SPD};
  tl_algorithm gtsv = {
      .name = "gtsv", .dtypes = both, .layouts = TL_NONPERIODIC, .classes = TL_CLASS_NONSINGULAR};
  tl_algorithm periodic = {.name = "thomas_periodic",
                           .dtypes = both,
                           .layouts = TL_PERIODIC,
                           .classes = TL_CLASS_STRICT_DD};
  tl_algorithm real_only = gtsv;
  real_only.dtypes = TL_DTYPE_BIT(TL_F64);
  cr_expect(tl_gallery_expects_pass(tl_gallery_find(1), &thomas));
  cr_expect(!tl_gallery_expects_pass(tl_gallery_find(7), &thomas));
  cr_expect(tl_gallery_expects_pass(tl_gallery_find(7), &gtsv));
  cr_expect(tl_gallery_expects_pass(tl_gallery_find(1), &gtsv));
  cr_expect(!tl_gallery_expects_pass(tl_gallery_find(10), &gtsv));   /* singular */
  cr_expect(!tl_gallery_expects_pass(tl_gallery_find(51), &thomas)); /* layout */
  cr_expect(tl_gallery_expects_pass(tl_gallery_find(51), &periodic));
  cr_expect(!tl_gallery_expects_pass(tl_gallery_find(22), &periodic));
  cr_expect(!tl_gallery_expects_pass(tl_gallery_find(56), &periodic));
  cr_expect(!tl_gallery_expects_pass(tl_gallery_find(63), &real_only)); /* dtype */
  cr_expect(tl_gallery_expects_pass(tl_gallery_find(63), &gtsv));
  cr_expect(!tl_gallery_expects_pass(NULL, &gtsv));
}

Test(gallery, rng_is_splitmix64)
{
  tl_rng r;
  tl_rng_seed(&r, 0);
  /* splitmix64's published first outputs from state 0. */
  cr_expect_eq(tl_rng_next(&r), UINT64_C(0xE220A8397B1DCDAF));
  cr_expect_eq(tl_rng_next(&r), UINT64_C(0x6E789E6AA1B965F4));
  tl_rng_seed(&r, 7);
  for (int k = 0; k < 10000; k++) {
    double u = tl_rng_uniform(&r, -2.0, 3.0);
    cr_assert(u >= -2.0 && u < 3.0, "uniform out of range: %.17g", u);
  }
}
