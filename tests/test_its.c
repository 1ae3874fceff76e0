/* tests/test_its.c -- the interface-splitting algorithm (paper 003).
 *
 * Against LAPACK (tl_lapack_solve) for P in {1,2,3,4,7,16}, equal and
 * unequal partitions, plain and periodic; the phases one by one give the
 * one-call solve bitwise; eq 18 (Table 2's J and eps_c); Table 3's
 * behaviour (error against J for the non-constant matrix, within the
 * eq-24 bound); dropped > tol and non-dominant matrices are reported;
 * J > m is a clear error; the gallery sweep: never TL_OK with a wrong
 * answer.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/backend.h"
#include "tridlab/cpu.h"
#include "tridlab/part_its.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

extern const tl_algorithm tl_algo_its_ref;
#define ALGO (&tl_algo_its_ref)
#define SEED 0x175u

static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])

static void set(tl_options *opt, const char *key, const char *value)
{
  tl_info info;
  cr_assert_eq(tl_options_set_param(opt, ALGO, key, value, &info), TL_OK, "%s", info.msg);
}

/* ||x - y||_inf / ||d||_inf: paper 003's normalisation (Tables 2, 3). */
static double its_error(size_t n, const double *x, const double *y, const double *d)
{
  double e = 0, dn = 0;
  for (size_t i = 0; i < n; i++) {
    e = fmax(e, fabs(x[i] - y[i]));
    dn = fmax(dn, fabs(d[i]));
  }
  return e / dn;
}

/* Solve with opt; the status must be `want` (or anything with a
 * solution if want < 0); when it is TL_OK the LAPACK ratios pass; when
 * there is a solution the error is within info.bound. */
static void check(const tl_problem *p, const tl_options *opt, int want, const char *what)
{
  size_t n = p->sys.n, ns = p->sys.nsys;
  double *x = calloc(n * ns, sizeof(double)), *xref = calloc(n * ns, sizeof(double));
  double *rc = calloc(ns, sizeof(double));
  tl_info info, li;
  int st = tl_solve(ALGO, &p->sys, x, opt, &info);
  if (want >= 0)
    cr_assert_eq(st, want, "%s n=%zu P=%d: status %d (%s)", what, n, opt->parts, st, info.msg);
  else
    cr_assert(tl_status_has_solution(st), "%s: status %d (%s)", what, st, info.msg);
  cr_assert_eq(tl_lapack_solve(&p->sys, xref, &li), TL_OK);
  cr_assert_eq(tl_rcond(&p->sys, rc, &li), TL_OK);
  if (st == TL_OK) {
    double res = tl_residual_ratio(&p->sys, x), fwd = tl_forward_ratio(&p->sys, x, xref, rc);
    cr_assert(res < TL_THRESH && fwd < TL_THRESH, "%s n=%zu P=%d: residual %g forward %g",
              what, n, opt->parts, res, fwd);
  }
  if (opt->parts > 1 || p->sys.periodic)
    for (size_t s = 0; s < ns; s++) {
      double e = its_error(n, x + s * n, xref + s * n, (const double *)p->d + s * n);
      cr_assert(e <= info.bound + 4 * TL_EPS, "%s n=%zu P=%d: error %g above bound %g", what, n,
                opt->parts, e, info.bound);
    }
  free(x);
  free(xref);
  free(rc);
}

static const int types[] = {20, 22, 23, 24, 2, 34, 32, 50, 51, 52, 53, 54, 55};
#define NTYPES (sizeof types / sizeof types[0])

Test(its, against_lapack_equal_partitions)
{
  static const size_t sizes[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  for (size_t t = 0; t < NTYPES; t++)
    for (size_t k = 0; k < NPARTS; k++)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        int P = parts_list[k];
        if (n < (size_t)P)
          continue;
        tl_problem p;
        cr_assert_eq(tl_gallery_make(types[t], n, 2, SEED + n, &p, NULL), TL_OK);
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
        /* 256 rows per partition are plenty for these dominance margins */
        int want = (n / (size_t)P >= 256 && types[t] != 20 && types[t] != 50) ? TL_OK : -1;
        check(&p, &opt, want, p.type->name);
        tl_problem_free(&p);
      }
}

Test(its, against_lapack_unequal_partitions_and_given_J)
{
  tl_rng rng;
  tl_rng_seed(&rng, SEED);
  for (size_t t = 0; t < NTYPES; t++)
    for (size_t k = 1; k < NPARTS; k++)
      for (int rep = 0; rep < 4; rep++) {
        int P = parts_list[k];
        size_t sizes[16], n = 0, mmin = SIZE_MAX;
        for (int q = 0; q < P; q++) {
          sizes[q] = 1 + tl_rng_next(&rng) % (rep < 2 ? 300 : 20);
          n += sizes[q];
          mmin = sizes[q] < mmin ? sizes[q] : mmin;
        }
        tl_problem p;
        cr_assert_eq(tl_gallery_make(types[t], n, 1, SEED + (uint64_t)rep, &p, NULL), TL_OK);
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
        opt.part_sizes = sizes;
        if (rep % 2) { /* a given J, as large as allowed */
          char jv[32];
          snprintf(jv, sizeof jv, "%zu", mmin);
          set(&opt, "J", jv);
        }
        check(&p, &opt, -1, "unequal");
        tl_problem_free(&p);
      }
}

/* The phases one by one, as a learner calls them, give the one-call
 * solve bit for bit (plain and periodic). */
Test(its, phases_equal_one_call_bitwise)
{
  static const int ty[] = {22, 34, 51, 55};
  for (size_t t = 0; t < 4; t++) {
    size_t n = 300, sizes[] = {60, 100, 40, 100}, J = 12;
    int P = 4;
    tl_problem p;
    cr_assert_eq(tl_gallery_make(ty[t], n, 1, SEED, &p, NULL), TL_OK);
    const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
    double *x1 = calloc(n, sizeof(double)), *x2 = calloc(n, sizeof(double));
    int per = p.sys.periodic;
    int st1 = tl_its_ref_d(n, per, a, b, c, d, x1, P, sizes, J, 1e-10, 1.0, NULL);
    cr_assert_eq(st1, TL_OK);
    tl_its_state st;
    cr_assert_eq(tl_its_init(&st, n, per, P, sizes, NULL), TL_OK);
    for (int q = 0; q < P; q++)
      tl_its_rate(&st, q, a + st.begin[q], b + st.begin[q], c + st.begin[q]);
    cr_assert_eq(tl_its_truncation(&st, J, 1e-10, NULL), TL_OK);
    cr_assert_eq(st.nif, per ? 4 : 3);
    for (int k = 0; k < st.nif; k++) {
      tl_its_window(&st, k, a, b, c);
      cr_assert_eq(tl_its_coefficients(&st, k, NULL), TL_OK);
    }
    for (int q = 0; q < P; q++)
      tl_its_partial(&st, q, d + st.begin[q]);
    tl_its_exchange(&st);
    for (int q = 0; q < P; q++)
      cr_assert_eq(tl_its_local_solve(&st, q, a + st.begin[q], b + st.begin[q], c + st.begin[q],
                                      d + st.begin[q], x2 + st.begin[q], NULL),
                   TL_OK);
    cr_assert_eq(memcmp(x1, x2, n * sizeof(double)), 0);
    /* the window is 2(J+L) rows (§2.3) and z' is row I_k of the window's inverse */
    cr_assert_eq(st.wlen[1], 2 * (st.J + st.L));
    tl_its_free(&st);
    free(x1);
    free(x2);
    tl_problem_free(&p);
  }
}

/* Eq 18 reproduces §3's examples and Table 2's (J, eps_c) pairs for
 * [1, 4, 1]; the row rate of eq 18's Toeplitz row is 1/kappa. */
Test(its, bondeli_estimate_eq18)
{
  cr_assert_eq(ceil(tl_its_bondeli_J(1e-4, 4)), 7);
  cr_assert_eq(ceil(tl_its_bondeli_J(1e-15, 4)), 27);
  cr_assert_eq(round(tl_its_bondeli_J(9.92e-5, 4)), 7);
  cr_assert_eq(round(tl_its_bondeli_J(2.64e-9, 4)), 15);
  cr_assert_eq(round(tl_its_bondeli_J(3.61e-16, 4)), 27);
  cr_assert(isinf(tl_its_bondeli_J(1e-4, 2)));
  double kappa = 2 + sqrt(3.0);
  cr_assert(fabs(tl_its_row_rate(1, 4, 1) - 1 / kappa) <= 4 * TL_EPS);
  cr_assert_eq(tl_its_row_rate(0, 4, 1), 0.25);
  cr_assert_eq(tl_its_row_rate(1, 2, 1), 1.0);

  /* Table 2's matrix: tridiag(1, 4, 1), 252 unknowns, 3 partitions. The
   * measured largest neglected coefficient, relative to z_I, is Table 2's
   * eps_c = kappa^-J (the row above I_k at distance J is the first one
   * dropped, since s^k keeps I_k itself). */
  size_t n = 252;
  double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double)),
         *c = calloc(n, sizeof(double)), *d = calloc(n, sizeof(double)),
         *x = calloc(n, sizeof(double));
  for (size_t i = 0; i < n; i++) {
    a[i] = i ? 1 : 0;
    c[i] = i + 1 < n ? 1 : 0;
    b[i] = 4;
    d[i] = 1;
  }
  static const size_t Js[] = {7, 15, 27};
  for (size_t j = 0; j < 3; j++) {
    tl_its_state st;
    cr_assert_eq(tl_its_init(&st, n, 0, 3, NULL, NULL), TL_OK);
    for (int q = 0; q < 3; q++)
      tl_its_rate(&st, q, a + st.begin[q], b + st.begin[q], c + st.begin[q]);
    cr_assert_eq(tl_its_truncation(&st, Js[j], 1e-16, NULL), TL_OK);
    cr_assert_eq(st.L, 2); /* one digit per 2 rows: kappa^2 = 13.9 */
    tl_its_window(&st, 0, a, b, c);
    cr_assert_eq(tl_its_coefficients(&st, 0, NULL), TL_OK);
    double want = pow(kappa, -(double)Js[j]);
    cr_assert(st.eps_c[0] > 0.9 * want && st.eps_c[0] < 1.1 * want, "J=%zu eps_c %g vs %g", Js[j],
              st.eps_c[0], want);
    tl_its_free(&st);
  }
  free(a);
  free(b);
  free(c);
  free(d);
  free(x);
}

/* Table 3: A = [sin i, 2(|sin i| + |cos i|), cos i], n = 1000, b = 1, four
 * partitions. The error against the sequential solution falls with J
 * (paper: 1.4e-5, 2.1e-11, 4.7e-14, 4.4e-16, 4.4e-16 for J = 7, 15, 18,
 * 20, 27) and stays within the eq-24 bound; dropped > tol is reported. */
Test(its, table3_error_against_J)
{
  size_t n = 1000;
  double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double)),
         *c = calloc(n, sizeof(double)), *d = calloc(n, sizeof(double)),
         *x = calloc(n, sizeof(double)), *xs = calloc(n, sizeof(double));
  for (size_t k = 0; k < n; k++) {
    double i = (double)(k + 1);
    a[k] = k ? sin(i) : 0;
    c[k] = k + 1 < n ? cos(i) : 0;
    b[k] = 2 * (fabs(sin(i)) + fabs(cos(i)));
    d[k] = 1;
  }
  tl_batch sys = {TL_F64, n, 1, 0, a, b, c, d};
  tl_info info;
  cr_assert_eq(tl_lapack_solve(&sys, xs, &info), TL_OK);
  static const size_t Js[] = {7, 15, 18, 20, 27};
  double err[5];
  for (size_t j = 0; j < 5; j++) {
    int st = tl_its_ref_d(n, 0, a, b, c, d, x, 4, NULL, Js[j], 1e-16, 1.0, &info);
    cr_assert_eq(st, TL_OK);
    err[j] = its_error(n, x, xs, d);
    cr_assert(err[j] <= info.bound, "J=%zu: error %g above the eq-24 bound %g", Js[j], err[j],
              info.bound);
    /* the default tolerance: TL_OK only once the dropped part is below eps */
    int st2 = tl_its_ref_d(n, 0, a, b, c, d, x, 4, NULL, Js[j], 1e-16, 0x1p-53, &info);
    cr_assert_eq(st2, info.dropped > 0x1p-53 ? TL_OUTSIDE_DOMAIN : TL_OK);
    cr_assert_eq(info.tol, 0x1p-53);
  }
  cr_assert(err[0] > 1e-8 && err[0] < 1e-3, "J=7: %g", err[0]); /* paper: 1.4e-5 */
  for (size_t j = 1; j < 5; j++)
    cr_assert(err[j] <= err[j - 1] || err[j] <= 8 * TL_EPS, "J=%zu: %g after %g", Js[j], err[j],
              err[j - 1]);
  /* measured here: 3.4e-5, 1.0e-9, 8.2e-12, 4.1e-14, 3.3e-16 (see docs/algorithms/its.md) */
  cr_assert(err[1] < 1e-8, "J=15: %g", err[1]);  /* paper: 2.1e-11 */
  cr_assert(err[3] < 1e-12, "J=20: %g", err[3]); /* paper: 4.4e-16 */
  cr_assert(err[4] <= 8 * TL_EPS, "J=27: %g", err[4]); /* paper: 4.4e-16 */
  /* J chosen from eps_c = eps (the default) is TL_OK and as accurate */
  cr_assert_eq(tl_its_ref_d(n, 0, a, b, c, d, x, 4, NULL, 0, 0x1p-53, 0x1p-53, &info), TL_OK);
  cr_assert(its_error(n, x, xs, d) <= 8 * TL_EPS);
  free(a);
  free(b);
  free(c);
  free(d);
  free(x);
  free(xs);
}

Test(its, limits_are_clear_errors)
{
  tl_problem p;
  cr_assert_eq(tl_gallery_make(22, 100, 1, SEED, &p, NULL), TL_OK);
  double x[100];
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 4; /* m = 25 */
  set(&opt, "J", "26");
  tl_info info;
  cr_assert_eq(tl_solve(ALGO, &p.sys, x, &opt, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "param");
  cr_assert(strstr(info.msg, "J = 26") != NULL);
  set(&opt, "J", "25");
  cr_assert(tl_status_has_solution(tl_solve(ALGO, &p.sys, x, &opt, &info)));
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "J", "-1", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "eps_c", "0", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "tol", "-1", &info), TL_ERR_ARG);
  cr_assert_eq(tl_its_ref_d(100, 0, p.a, p.b, p.c, p.d, x, 4, NULL, 0, 0, 0, &info), TL_ERR_ARG);
  cr_assert_eq(tl_its_ref_d(100, 0, p.a, p.b, p.c, p.d, x, 101, NULL, 0, 0.1, 0, &info),
               TL_ERR_ARG);
  tl_problem_free(&p);
  /* complex systems are not taken */
  cr_assert_eq(tl_gallery_make(60, 50, 1, SEED, &p, NULL), TL_OK);
  double complex z[50];
  tl_options_init(&opt);
  cr_assert_lt(tl_solve(ALGO, &p.sys, z, &opt, &info), 0);
  tl_problem_free(&p);
}

/* dropped > tol: a solution, TL_OUTSIDE_DOMAIN, dropped and bound set,
 * and the error within the bound. Non-dominant: TL_OUTSIDE_DOMAIN. */
Test(its, outside_domain_is_reported)
{
  tl_problem p;
  cr_assert_eq(tl_gallery_make(21, 400, 1, SEED, &p, NULL), TL_OK); /* toeplitz-2.05 */
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 4;
  set(&opt, "J", "3");
  check(&p, &opt, TL_OUTSIDE_DOMAIN, "J=3");
  double x[400];
  tl_info info;
  tl_solve(ALGO, &p.sys, x, &opt, &info);
  cr_assert(info.dropped > info.tol && info.tol == 0x1p-53 && info.bound > 0);
  cr_assert(strstr(info.msg, "tol") != NULL);
  set(&opt, "tol", "10"); /* accepted when asked for; still within the bound */
  cr_assert_eq(tl_solve(ALGO, &p.sys, x, &opt, &info), TL_OK);
  double xs[400];
  tl_info li;
  cr_assert_eq(tl_lapack_solve(&p.sys, xs, &li), TL_OK);
  cr_assert(its_error(400, x, xs, p.d) <= info.bound);
  tl_problem_free(&p);

  cr_assert_eq(tl_gallery_make(35, 100, 1, SEED, &p, NULL), TL_OK); /* weakly dominant */
  tl_options_init(&opt);
  opt.parts = 2;
  cr_assert_eq(tl_solve(ALGO, &p.sys, x, &opt, &info), TL_OUTSIDE_DOMAIN);
  tl_problem_free(&p);
}

/* The global promise over the whole gallery. */
Test(its, gallery_sweep_no_silent_wrong_answer, .timeout = 120)
{
  static const size_t sizes[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  size_t ntypes = tl_gallery_count();
  for (size_t t = 0; t < ntypes; t++) {
    const tl_gallery_type *ty = tl_gallery_get(t);
    if (ty->dtype != TL_F64)
      continue;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t k = 0; k < NPARTS; k++) {
        size_t n = sizes[s];
        int P = parts_list[k];
        if (n < ty->min_n || n < (size_t)P)
          continue;
        tl_problem p;
        cr_assert_eq(tl_gallery_make(ty->id, n, 1, SEED, &p, NULL), TL_OK);
        double *x = calloc(n, sizeof(double));
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
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

/* The batched rate (optimized/cpu/its_cpu.c) against tl_its_rate, bit for
 * bit: slices at the start, in the middle and at the end of a plain
 * system and of a periodic one, of 1 to 40 rows (the SIMD loop's
 * remainders), with rows that are not strictly dominant (rate 1), rows
 * with a zero coupling and a zero diagonal among them. */
Test(its, cpu_rate_same_bits_as_reference)
{
  const size_t n = 97, nsys = 5;
  const size_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 40};
  double *a = malloc(n * nsys * sizeof *a), *b = malloc(n * nsys * sizeof *b);
  double *c = malloc(n * nsys * sizeof *c), rate[5];
  cr_assert(a && b && c);
  tl_rng rng;
  tl_rng_seed(&rng, SEED);
  for (size_t k = 0; k < n * nsys; k++) {
    double u = tl_rng_uniform(&rng, 0.0, 1.0);
    a[k] = u - 0.5, c[k] = 0.7 - u, b[k] = 1.0 + 2.0 * u;
    if (k % 11 == 3) /* not strictly dominant */
      b[k] = 0.5 * u;
    if (k % 13 == 5)
      a[k] = 0.0;
    if (k % 29 == 7)
      b[k] = 0.0;
  }
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
      size_t m = sizes[j];
      size_t begins[3] = {0, (n - m) / 2, n - m};
      for (int e = 0; e < 3; e++) {
        size_t begin = begins[e];
        /* the slice of every system, m rows each, contiguous */
        double *sa = malloc(m * nsys * sizeof *sa), *sb = malloc(m * nsys * sizeof *sb);
        double *sc = malloc(m * nsys * sizeof *sc);
        cr_assert(sa && sb && sc);
        for (size_t s = 0; s < nsys; s++)
          for (size_t i = 0; i < m; i++) {
            sa[s * m + i] = a[s * n + begin + i];
            sb[s * m + i] = b[s * n + begin + i];
            sc[s * m + i] = c[s * n + begin + i];
          }
        tl_cpu_its_rate_d(n, periodic, begin, m, nsys, sa, sb, sc, rate);
        for (size_t s = 0; s < nsys; s++) {
          /* the reference: these rows are partition q of up to three */
          size_t ps[3];
          int P = 0, q;
          if (begin > 0)
            ps[P++] = begin;
          q = P, ps[P++] = m;
          if (begin + m < n)
            ps[P++] = n - begin - m;
          tl_its_state st;
          cr_assert_eq(tl_its_init(&st, n, periodic, P, ps, NULL), TL_OK, "m %zu begin %zu", m,
                       begin);
          tl_its_rate(&st, q, sa + s * m, sb + s * m, sc + s * m);
          cr_expect(!memcmp(&st.rate[q], &rate[s], sizeof rate[s]),
                    "periodic %d, rows [%zu, %zu), system %zu: %.17g, reference %.17g", periodic,
                    begin, begin + m, s, rate[s], st.rate[q]);
          tl_its_free(&st);
        }
        free(sa);
        free(sb);
        free(sc);
      }
    }
  free(a);
  free(b);
  free(c);
}

/* The window solves eight at a time (tl_cpu_its_window_solves_d, what
 * its_mpi runs) and then tl_its_coefficients_take give tl_its_coefficients'
 * statuses and bits: z', s^k, t^{k+1}, eps_c, the dropped mass and the
 * bound, for every interface of 21 systems (runs of eight, a run cut by
 * a window of another shape, the systems past the last run; windows of
 * random shapes, which all go to the reference), with zero pivots, a NaN
 * and a skipped system among them. */
static void window_states(tl_its_state *st, size_t nsys, size_t n, int type)
{
  size_t sizes[] = {60, 100, 40, 100};
  for (size_t s = 0; s < nsys; s++) {
    tl_problem p;
    cr_assert_eq(tl_gallery_make(type, n, 1, SEED + s, &p, NULL), TL_OK);
    const double *a = p.a, *b = p.b, *c = p.c;
    cr_assert_eq(tl_its_init(&st[s], n, p.sys.periodic, 4, sizes, NULL), TL_OK);
    for (int q = 0; q < 4; q++)
      tl_its_rate(&st[s], q, a + st[s].begin[q], b + st[s].begin[q], c + st[s].begin[q]);
    cr_assert_eq(tl_its_truncation(&st[s], s == 9 ? 10 : 12, 1e-10, NULL), TL_OK);
    for (int k = 0; k < st[s].nif; k++)
      tl_its_window(&st[s], k, a, b, c);
    tl_problem_free(&p);
  }
  /* interface 1: a zero pivot in system 3's first row and in system 5's
   * last (where no later pivot carries it), a NaN in system 12 */
  size_t k = 1, len = st[5].wlen[k];
  st[3].wb[k * st[3].W] = 0, st[3].wa[k * st[3].W + 1] = 0;
  st[5].wb[k * st[5].W + len - 1] = 0, st[5].wc[k * st[5].W + len - 2] = 0;
  st[12].wc[k * st[12].W + 5] = NAN;
}

#define SAME(x, y, cnt) (memcmp((x), (y), (cnt) * sizeof(double)) == 0)

Test(its, window_solves_eight_at_once_are_the_references_bits)
{
  TH_NEEDS_LANES();
  static const int ty[] = {34, 20, 55, 50};
  enum { NS = 21 };
  for (size_t t = 0; t < 4; t++) {
    tl_its_state ref[NS], opt[NS];
    size_t n = 300, done_total = 0;
    window_states(ref, NS, n, ty[t]);
    window_states(opt, NS, n, ty[t]);
    unsigned char skip[NS] = {0}, done[NS];
    skip[17] = 1;
    for (int k = 0; k < ref[0].nif; k++) {
      done_total += tl_cpu_its_window_solves_d(opt, NS, k, skip, done);
      for (size_t s = 0; s < NS; s++) {
        if (skip[s]) {
          cr_expect_eq(done[s], 0);
          continue;
        }
        tl_info i1, i2;
        int s1 = tl_its_coefficients(&ref[s], k, &i1);
        int s2 = done[s] ? tl_its_coefficients_take(&opt[s], k, &i2)
                         : tl_its_coefficients(&opt[s], k, &i2);
        cr_expect_eq(s1, s2, "type %d k %d system %zu: status %d against %d", ty[t], k, s, s2, s1);
        if (s1 < 0) {
          cr_expect_eq(done[s], 0, "system %zu broke down but was taken as done", s);
          cr_expect_str_eq(i1.msg, i2.msg);
          continue;
        }
        const tl_its_state *a = &ref[s], *b = &opt[s];
        size_t W = a->W, len = a->wlen[k];
        cr_expect(SAME(a->z + k * W, b->z + k * W, len), "type %d k %d system %zu: z'", ty[t], k,
                  s);
        cr_expect(SAME(a->s + k * a->jl, b->s + k * b->jl, a->jl), "system %zu: s^k", s);
        cr_expect(SAME(a->t, b->t, (size_t)a->parts * a->jr), "system %zu: t", s);
        cr_expect(SAME(&a->eps_c[k], &b->eps_c[k], 1) && SAME(&a->dropped[k], &b->dropped[k], 1) &&
                      SAME(&a->bound[k], &b->bound[k], 1),
                  "system %zu: eps_c, dropped, bound", s);
      }
    }
    /* its-nonconst's windows have one shape in every system (sdd-random's
     * do not: every window goes to the reference there) */
    if (ty[t] == 34 || ty[t] == 55)
      cr_expect_geq(done_total, 8 * (size_t)ref[0].nif, "type %d: only %zu windows eight at once",
                    ty[t], done_total);
    for (size_t s = 0; s < NS; s++)
      tl_its_free(&ref[s]), tl_its_free(&opt[s]);
  }
}

/* The batched rate passes over rows that cannot raise the largest rate so
 * far (optimized/cpu/its_cpu.c, rows_below): the result must still be
 * tl_its_rate's bits (a mutant that passes over too much -- a looser
 * bound, a key row matched on |a| alone, the range or the dominance test
 * left out -- fails this test). Slices of 1 to 203 rows in the middle of a plain
 * system (every row has both neighbours), one system per kind of data:
 * random strictly dominant rows, rates rising to the last row, rates
 * falling, constant coefficients (a compact scheme's 1/3, 1, 1/3) but one
 * row whose larger c raises the rate, rows all but weakly dominant (|a| =
 * |c| = |b|/2 - an ulp: 1 - 4p near 0), one row not strictly dominant at
 * the end, a NaN, subnormal couplings, rows whose |a| and |c| swap (the
 * same rate, another row), and the random rows scaled by 2^600 and 2^-600,
 * outside the range where the bound is used. */
static double rate_entry(int kind, size_t i, size_t m, int which, tl_rng *rng)
{
  double u = tl_rng_uniform(rng, 0.0, 1.0), s = 1.0;
  if (kind >= 9) /* the random rows, scaled */
    s = kind == 9 ? 0x1p600 : 0x1p-600, kind = 0;
  double t = (double)i / (double)(m > 1 ? m - 1 : 1);
  double b = 1.0 + tl_rng_uniform(rng, 0.0, 1.0);
  double v[3];
  switch (kind) {
  case 0: v[0] = 0.49 * b * u, v[1] = b, v[2] = 0.5 * b * (1 - u); break;         /* random */
  case 1: v[0] = 0.45 * t * b, v[1] = b, v[2] = 0.45 * t * b * u; break;          /* rising */
  case 2: v[0] = 0.45 * (1 - t) * b, v[1] = b, v[2] = 0.4 * b * u; break;         /* falling */
  case 3: v[0] = 1.0 / 3, v[1] = 1.0, v[2] = i + 2 == m ? 0.4 : 1.0 / 3; break;   /* constant */
  case 4: v[0] = v[2] = nextafter(0.5, 0) * b, v[1] = b; break;                   /* 1 - 4p ~ 0 */
  case 5: v[0] = 0.3 * b, v[1] = i + 1 == m ? 0.5 * b : b, v[2] = 0.3 * b; break; /* weak end */
  case 6: v[0] = i == m / 2 ? NAN : 0.2 * b, v[1] = b, v[2] = 0.1 * b * u; break;
  case 7: v[0] = 1e-320 * u, v[1] = b, v[2] = i % 3 ? 0.0 : 3e-310; break; /* subnormal */
  default: v[0] = i % 2 ? 0.25 : 0.125, v[1] = 1.0, v[2] = i % 2 ? 0.125 : 0.25;
  }
  return (i % 4 == 1 ? -1 : 1) * s * v[which];
}

Test(its, cpu_rate_passed_over_rows_keep_the_bits)
{
  const size_t sizes[] = {1, 7, 8, 9, 16, 17, 64, 203};
  const int kinds = 11;
  for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
    size_t m = sizes[j], begin = 5, n = m + 10, nsys = (size_t)kinds;
    double *a = malloc(m * nsys * sizeof *a), *b = malloc(m * nsys * sizeof *b);
    double *c = malloc(m * nsys * sizeof *c), rate[11];
    cr_assert(a && b && c);
    tl_rng rng;
    tl_rng_seed(&rng, 4242 + m);
    for (int k = 0; k < kinds; k++)
      for (size_t i = 0; i < m; i++) { /* the same draws for a, b, c of a row */
        tl_rng st = rng;
        a[k * m + i] = rate_entry(k, i, m, 0, &st);
        st = rng, b[k * m + i] = rate_entry(k, i, m, 1, &st);
        c[k * m + i] = rate_entry(k, i, m, 2, &rng);
      }
    tl_cpu_its_rate_d(n, 0, begin, m, nsys, a, b, c, rate);
    for (int k = 0; k < kinds; k++) {
      size_t ps[3] = {begin, m, n - begin - m};
      tl_its_state st;
      cr_assert_eq(tl_its_init(&st, n, 0, 3, ps, NULL), TL_OK);
      tl_its_rate(&st, 1, a + k * m, b + k * m, c + k * m);
      cr_expect(!memcmp(&st.rate[1], &rate[k], sizeof rate[k]),
                "m %zu, kind %d: %.17g, reference %.17g", m, k, rate[k], st.rate[1]);
      tl_its_free(&st);
    }
    free(a), free(b), free(c);
  }
}
