/* tests/helpers.c -- the shared test helpers of tests/helpers.h. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/backend.h"
#include "tridlab/cpu.h"

th_sys th_sys_make(size_t n, int kind, double lo, double hi, uint64_t seed)
{
  th_sys s;
  memset(&s, 0, sizeof s);
  s.n = n;
  s.a = calloc(n, sizeof(double));
  s.b = calloc(n, sizeof(double));
  s.c = calloc(n, sizeof(double));
  s.d = calloc(n, sizeof(double));
  s.x = calloc(n, sizeof(double));
  s.xref = calloc(n, sizeof(double));
  cr_assert(s.a && s.b && s.c && s.d && s.x && s.xref);
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t i = 0; i < n; i++) {
    if (kind == 0) {
      s.a[i] = i > 0 ? tl_rng_uniform(&rng, -1, 1) : 0.0;
      s.c[i] = i + 1 < n ? tl_rng_uniform(&rng, -1, 1) : 0.0;
      double off = fabs(s.a[i]) + fabs(s.c[i]);
      double mag = (off > 0 ? off : 1.0) * (1.0 + tl_rng_uniform(&rng, lo, hi));
      s.b[i] = (tl_rng_next(&rng) >> 63) ? -mag : mag;
    } else {
      s.a[i] = i > 0 ? 1.0 : 0.0;
      s.c[i] = i + 1 < n ? 1.0 : 0.0;
      s.b[i] = lo;
    }
    s.d[i] = tl_rng_uniform(&rng, -1, 1);
  }
  s.batch = (tl_batch){TL_F64, n, 1, 0, s.a, s.b, s.c, s.d};
  tl_info info;
  cr_assert_eq(tl_lapack_solve(&s.batch, s.xref, &info), TL_OK);
  cr_assert_eq(tl_rcond(&s.batch, &s.rcond, &info), TL_OK);
  return s;
}

void th_sys_free(th_sys *s)
{
  free(s->a);
  free(s->b);
  free(s->c);
  free(s->d);
  free(s->x);
  free(s->xref);
}

double th_max_abs(size_t n, const double *v)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    m = fabs(v[i]) > m ? fabs(v[i]) : m;
  return m;
}

double th_sys_rel_err(const th_sys *s)
{
  double e = 0.0;
  for (size_t i = 0; i < s->n; i++)
    e = fabs(s->x[i] - s->xref[i]) > e ? fabs(s->x[i] - s->xref[i]) : e;
  return e / th_max_abs(s->n, s->xref);
}

void th_sys_assert_accurate(const th_sys *s, const char *what, int P)
{
  double res = tl_residual_ratio(&s->batch, s->x);
  double fwd = tl_forward_ratio(&s->batch, s->x, s->xref, &s->rcond);
  cr_assert(res < TL_THRESH && fwd < TL_THRESH, "%s n=%zu P=%d: residual ratio %g, forward %g",
            what, s->n, P, res, fwd);
}

/* x_lapack and rcond of every system into xref, rc; 0 or -1. */
static int lapack_reference(const tl_batch *sys, void *xref, double *rc)
{
  tl_info info;
  return tl_lapack_solve(sys, xref, &info) == TL_OK && tl_rcond(sys, rc, &info) == TL_OK ? 0 : -1;
}

int th_ratios(const tl_batch *sys, const void *x, double *resid, double *ferr)
{
  size_t len = sys->n * sys->nsys;
  void *xref = calloc(len, tl_dtype_size(sys->dtype));
  double *rc = calloc(sys->nsys, sizeof *rc);
  cr_assert(xref && rc);
  *resid = tl_residual_ratio(sys, x);
  int ok = lapack_reference(sys, xref, rc);
  *ferr = ok == 0 ? tl_forward_ratio(sys, x, xref, rc) : NAN;
  if (ok == 0 && tl_singular_to_working_precision(rc, sys->nsys, NULL))
    *ferr = 0.0; /* nothing to judge */
  free(xref);
  free(rc);
  return ok;
}

int th_solve_measure(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                     double *resid, double *ferr, double *relerr, tl_info *info)
{
  size_t es = tl_dtype_size(p->sys.dtype), N = p->sys.n * p->sys.nsys;
  void *x = calloc(N, es), *xref = calloc(N, es);
  double *rc = calloc(p->sys.nsys, sizeof *rc);
  cr_assert(x && xref && rc);
  int st = tl_solve(algo, &p->sys, x, opt, info);
  *resid = *ferr = NAN;
  if (relerr)
    *relerr = NAN;
  if (tl_status_has_solution(st)) {
    *resid = tl_residual_ratio(&p->sys, x);
    if (lapack_reference(&p->sys, xref, rc) == 0) {
      *ferr = tl_forward_ratio(&p->sys, x, xref, rc);
      double emax = 0, xmax = 0;
      for (size_t i = 0; relerr && i < N; i++) {
        double e, v;
        if (p->sys.dtype == TL_F64) {
          e = fabs(((double *)x)[i] - ((double *)xref)[i]);
          v = fabs(((double *)x)[i]);
        } else {
          e = cabs(((double complex *)x)[i] - ((double complex *)xref)[i]);
          v = cabs(((double complex *)x)[i]);
        }
        emax = e > emax ? e : emax;
        xmax = v > xmax ? v : xmax;
      }
      if (relerr)
        *relerr = xmax > 0 ? emax / xmax : emax;
    }
  }
  free(x);
  free(xref);
  free(rc);
  return st;
}

void th_check_type(const tl_algorithm *algo, int id, size_t n, size_t nsys, uint64_t seed,
                   const tl_options *opt)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(id, n, nsys, seed, &p, &info), TL_OK);
  double resid, ferr;
  int st = th_solve_measure(algo, &p, opt, &resid, &ferr, NULL, &info);
  cr_expect_eq(st, TL_OK, "type %d n=%zu P=%d: status %d (%s)", id, n, opt->parts, st, info.msg);
  cr_expect(resid < TL_THRESH, "type %d n=%zu P=%d: residual ratio %g", id, n, opt->parts, resid);
  cr_expect(ferr < TL_THRESH, "type %d n=%zu P=%d: forward ratio %g", id, n, opt->parts, ferr);
  tl_problem_free(&p);
}

int th_gallery_id(const char *name)
{
  for (size_t k = 0; k < tl_gallery_count(); k++)
    if (!strcmp(tl_gallery_get(k)->name, name))
      return tl_gallery_get(k)->id;
  cr_assert_fail("no gallery type %s", name);
  return -1;
}

int th_measure_parts(const char *name, int id, size_t n, int P, const size_t *sizes, double *resid,
                     double *ferr, tl_info *info)
{
  const tl_algorithm *algo = tl_find(name);
  cr_assert_not_null(algo, "%s", name);
  tl_problem p;
  cr_assert_eq(tl_gallery_make(id, n, 2, 29 + (uint64_t)n, &p, info), TL_OK, "%s", info->msg);
  tl_options opt;
  th_options_parts(&opt, algo, P, sizes, NULL);
  int st = th_solve_measure(algo, &p, &opt, resid, ferr, NULL, info);
  tl_problem_free(&p);
  return st;
}

void th_expect_spike_agrees_with_gtsv(const char *name)
{
  static const struct {
    const char *type;
    int status;
  } cases[] = {
      {"sdd-random", TL_OK},
      {"toeplitz-4", TL_OK},
      {"tdse-cn", TL_OK},
      {"toeplitz-1.5", TL_OUTSIDE_DOMAIN},
      {"gt07-random", TL_OUTSIDE_DOMAIN},
      {"complex-random", TL_OUTSIDE_DOMAIN},
      {"helmholtz-damped", TL_OUTSIDE_DOMAIN},
  };
  static const size_t sizes[] = {17, 64, 255, 1000};
  static const int parts[] = {1, 2, 3, 4, 7, 16};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
      for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        double resid, ferr;
        tl_info info;
        int st = th_measure_parts(name, th_gallery_id(cases[i].type), sizes[j], parts[k], NULL,
                                  &resid, &ferr, &info);
        cr_expect_eq(st, cases[i].status, "%s: %s n=%zu P=%d: %s", name, cases[i].type, sizes[j],
                     parts[k], info.msg);
        cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "%s: %s n=%zu P=%d: ratios %g %g", name,
                  cases[i].type, sizes[j], parts[k], resid, ferr);
      }
}

void th_expect_ledger_is_model(const char *name, const int *ids, size_t nids)
{
  static const int parts[] = {1, 2, 3, 4, 7, 16};
  const tl_algorithm *algo = tl_find(name);
  cr_assert_not_null(algo, "%s", name);
  for (size_t i = 0; i < nids; i++)
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(ids[i], 64, 2, 3, &p, &info), TL_OK);
      void *x = calloc(128, tl_dtype_size(p.sys.dtype));
      tl_ledger rec, model;
      tl_ledger_init(&rec);
      tl_ledger_init(&model);
      tl_options opt;
      th_options_parts(&opt, algo, parts[k], NULL, NULL);
      opt.ledger = &rec;
      cr_expect(tl_status_has_solution(tl_solve(algo, &p.sys, x, &opt, &info)), "%s", info.msg);
      opt.ledger = NULL;
      cr_assert_eq(algo->ledger_model(algo, &p.sys, &opt, &info, &model), TL_OK);
      char why[256];
      cr_expect(tl_ledger_equal(&rec, &model, why, sizeof why), "%s type %d P=%d: %s", name, ids[i],
                parts[k], why);
      tl_ledger_free(&rec);
      tl_ledger_free(&model);
      free(x);
      tl_problem_free(&p);
    }
}

void th_expect_spike_bad_input(const char *name, th_spike_run_fn run)
{
  const tl_algorithm *algo = tl_find(name);
  cr_assert_not_null(algo, "%s", name);
  double a[3] = {0, 1, 1}, b[3] = {4, 4, 4}, c[3] = {1, 1, 0}, d[3] = {1, 2, 3}, x[3];
  tl_batch sys = {TL_F64, 3, 1, 0, a, b, c, d};
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 4;
  tl_info info;
  cr_expect_eq(tl_solve(algo, &sys, x, &opt, &info), TL_ERR_ARG, "P > n: %s", info.msg);
  cr_expect_str_eq(info.arg, "parts");
  opt.parts = 2;
  cr_expect_eq(tl_solve(algo, &sys, NULL, &opt, &info), TL_ERR_ARG, "x NULL: %s", info.msg);
  cr_expect_eq(run(3, 4, NULL, a, b, c, d, x, NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  char want[64];
  snprintf(want, sizeof want, "%s: 4 partitions of 3 rows", name);
  cr_expect(strstr(info.msg, want) != NULL, "%s", info.msg);
  cr_expect_eq(run(3, 1, NULL, NULL, b, c, d, x, NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "array");
  cr_expect_eq(run(0, 1, NULL, a, b, c, d, x, NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "n");
  cr_expect_eq(run(3, 2, NULL, a, b, c, d, x, NULL, &info), TL_OK, "%s", info.msg);
}

void th_unequal_sizes(size_t n, int parts, size_t minrows, size_t *sizes)
{
  size_t left = n;
  for (int q = 0; q < parts; q++) {
    size_t rest = (size_t)(parts - q - 1);
    size_t s = (q == parts - 1) ? left : (q % 2 ? minrows : (left - rest * minrows) / 2);
    if (s < minrows)
      s = minrows;
    if (left - s < rest * minrows)
      s = left - rest * minrows;
    sizes[q] = s;
    left -= s;
  }
}

void th_lele6(size_t n, int periodic, double *a, double *b, double *c, double st[5], double h)
{
  const double alpha = 1.0 / 3.0, ca = 14.0 / 9.0, cb = 1.0 / 9.0;
  for (size_t i = 0; i < n; i++) {
    a[i] = alpha;
    b[i] = 1.0;
    c[i] = alpha;
  }
  if (!periodic)
    a[0] = c[n - 1] = 0.0;
  st[0] = -cb / (4 * h);
  st[1] = -ca / (2 * h);
  st[2] = 0.0;
  st[3] = ca / (2 * h);
  st[4] = cb / (4 * h);
}

void th_options_parts(tl_options *opt, const tl_algorithm *algo, int P, const size_t *sizes,
                      const char *params)
{
  tl_options_init(opt);
  opt->parts = P;
  opt->part_sizes = sizes;
  char kvs[256], *save = NULL;
  snprintf(kvs, sizeof kvs, "%s", params ? params : "");
  for (char *kv = strtok_r(kvs, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    tl_info info;
    cr_assert_eq(tl_options_set_param_kv(opt, algo, kv, &info), TL_OK, "%s: %s", kv, info.msg);
  }
}

void th_expect_spikes_match_lapack(th_solve_parts_fn solve, const int *parts, size_t nparts,
                                   uint64_t seed)
{
  static const size_t ns[] = {16, 17, 60, 100, 257, 1000, 4096, 10007};
  for (size_t ip = 0; ip < nparts; ip++) {
    int P = parts[ip];
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
      size_t n = ns[in];
      if (n < (size_t)P)
        continue;
      for (int kind = 0; kind < 2; kind++) {
        th_sys s = kind ? th_sys_make(n, 1, 4.0, 0, 0) : th_sys_make(n, 0, 1.0, 3.0, seed + n + P);
        tl_info info;
        int st = solve(&s, P, NULL, &info);
        cr_assert(st == TL_OK || st == TL_OUTSIDE_DOMAIN, "%s", info.msg);
        if (st == TL_OK)
          th_sys_assert_accurate(&s, kind ? "toeplitz-4" : "sdd", P);
        /* decay ~ 0.27^m for lambda = 4: m >= 40 drops nothing visible */
        if (kind == 1 && n / (size_t)P >= 40)
          cr_assert_eq(st, TL_OK, "n=%zu P=%d: %s", n, P, info.msg);
        cr_assert(info.dropped <= 1.0 && info.bound >= 0.0);
        th_sys_free(&s);
      }
    }
  }
}

void th_expect_unequal_partitions(th_solve_parts_fn solve, const char *outside_msg)
{
  static const size_t sz1[] = {1, 60, 2, 90, 45, 1};        /* 199 */
  static const size_t sz2[] = {300, 41, 41, 1000, 80};      /* 1462 */
  static const size_t sz3[] = {50, 50, 50, 50, 50, 50, 50}; /* 350 */
  const size_t *all[] = {sz1, sz2, sz3};
  const int counts[] = {6, 5, 7};
  const size_t ns[] = {199, 1462, 350};
  for (int k = 0; k < 3; k++) {
    th_sys s = th_sys_make(ns[k], 1, 4.0, 0, 0);
    tl_info info;
    int st = solve(&s, counts[k], all[k], &info);
    if (k == 0) { /* 1- and 2-row middle partitions: far entries are not small */
      cr_assert_eq(st, TL_OUTSIDE_DOMAIN);
      cr_assert(info.dropped > 2 * TL_EPS);
      cr_assert(strstr(info.msg, outside_msg) != NULL, "%s", info.msg);
    } else {
      cr_assert_eq(st, TL_OK, "%s", info.msg);
      th_sys_assert_accurate(&s, "unequal", counts[k]);
    }
    th_sys_free(&s);
  }
}

int th_solve_param(const tl_algorithm *algo, const tl_batch *sys, void *x, int P,
                   const size_t *sizes, const char *key, const char *value, tl_info *info)
{
  char params[128] = "";
  if (value)
    snprintf(params, sizeof params, "%s=%s", key, value);
  tl_options opt;
  th_options_parts(&opt, algo, P, sizes, params);
  return tl_solve(algo, sys, x, &opt, info);
}

double *th_dominant_slices(size_t m, size_t nsys, uint64_t seed)
{
  size_t cnt = m * nsys;
  double *v = malloc(4 * cnt * sizeof *v);
  if (!v)
    return NULL;
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t k = 0; k < cnt; k++) {
    v[k] = tl_rng_uniform(&rng, -1, 1);
    v[cnt + k] = 4 + tl_rng_uniform(&rng, 0, 1);
    v[2 * cnt + k] = tl_rng_uniform(&rng, -1, 1);
    v[3 * cnt + k] = tl_rng_uniform(&rng, -1, 1);
  }
  return v;
}

int th_close_to(const double *out, const double *ref, size_t k)
{
  for (size_t i = 0; i < k; i++)
    if (!(fabs(out[i] - ref[i]) <= 64 * DBL_EPSILON * (1 + fabs(ref[i]))))
      return 0;
  return 1;
}

void th_slices_every_size(th_slice_case *one)
{
  static const size_t ms[] = {2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 64, 67};
  static const size_t ns[] = {1, 7, 8, 9, 16, 21};
  uint64_t seed = 1;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
      for (int q = 0; q < 3; q++)
        for (int periodic = 0; periodic < 2; periodic++)
          one(ms[i], ns[j], q, periodic, (size_t)-1, 0, seed++);
}

void th_slices_one_broken(th_slice_case *one, size_t nsys)
{
  static const size_t ms[] = {2, 3, 9, 16, 33};
  uint64_t seed = 100;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (size_t row = 0; row < ms[i]; row += 2)
      for (size_t sys = 0; sys < nsys; sys += 5)
        one(ms[i], nsys, 1, 0, sys, row, seed++);
}

int th_lanes_built(void)
{
  double v[4][16], ends[6 * 8];
  unsigned char bad[8] = {0};
  for (int k = 0; k < 16; k++)
    v[0][k] = v[2][k] = 0.25, v[1][k] = 2.0, v[3][k] = 1.0;
  return tl_cpu_tridsolver_ends_d(2, 8, 0, 0, v[0], v[1], v[2], v[3], ends, bad) == 8;
}

void th_expect_spikes_untouched(const double *v, const double *w, size_t o, size_t m, int left,
                                int right, size_t s, double sentinel)
{
  if (!right)
    cr_expect(v[o] == sentinel && v[o + m - 1] == sentinel,
              "m=%zu: v written without a right neighbour (system %zu)", m, s);
  if (!left)
    cr_expect(w[o] == sentinel && w[o + m - 1] == sentinel,
              "m=%zu: w written without a left neighbour (system %zu)", m, s);
}

void th_expect_bad_entries_flagged(th_spike_lanes_fn run, int corners_unread)
{
  static const size_t ms[] = {2, 3, 9, 17};
  for (size_t q = 0; q < sizeof ms / sizeof ms[0]; q++)
    for (int shape = 0; shape < 4; shape++)
      for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < ms[q]; i++) {
          size_t m = ms[q], cnt = 8 * m;
          int left = shape & 1, right = shape >> 1;
          double *in = malloc(4 * cnt * sizeof *in);
          tl_rng rng;
          tl_rng_seed(&rng, 900 + i);
          for (size_t j = 0; j < 4 * cnt; j++)
            in[j] = tl_rng_uniform(&rng, -1, 1);
          for (size_t j = 0; j < cnt; j++)
            in[cnt + j] += 4; /* b: dominant, no breakdown */
          in[k * cnt + 3 * m + i] = (i + (size_t)k) % 2 ? NAN : INFINITY;
          unsigned char flagged[8];
          run(m, left, right, in, in + cnt, in + 2 * cnt, in + 3 * cnt, flagged);
          int unread =
              corners_unread && ((k == 0 && i == 0 && !left) || (k == 2 && i == m - 1 && !right));
          for (int s = 0; s < 8; s++)
            cr_expect_eq(flagged[s], s == 3 && !unread,
                         "m=%zu shape %d%d: %c[%zu] of system 3 bad: system %d flagged %d", m, left,
                         right, "abcd"[k], i, s, flagged[s]);
          free(in);
        }
}

/* The same status, system, row and (with a solution) the same bits. */
static void expect_same_bits(const char *name, const char *ref, const tl_problem *p, int id,
                             const tl_options *opt)
{
  const tl_algorithm *ca = tl_find(name), *ra = tl_find(ref);
  cr_assert(ca && ra && ca->reference && !strcmp(ca->reference->name, ref),
            "%s names %s as its reference", name, ref);
  size_t cnt = p->sys.n * p->sys.nsys;
  double *xc = calloc(cnt, sizeof *xc), *xr = calloc(cnt, sizeof *xr);
  tl_info ci, ri;
  int cs = tl_solve(ca, &p->sys, xc, opt, &ci);
  int rs = tl_solve(ra, &p->sys, xr, opt, &ri);
  cr_expect_eq(cs, rs, "%s type %d n %zu nsys %zu P %d: status %d vs %d (%s | %s)", name, id,
               p->sys.n, p->sys.nsys, opt->parts, cs, rs, ci.msg, ri.msg);
  if (cs == rs && rs != TL_OK)
    cr_expect(ci.row == ri.row && ci.system == ri.system,
              "%s type %d n %zu P %d: row %ld system %ld vs row %ld system %ld", name, id, p->sys.n,
              opt->parts, ci.row, ci.system, ri.row, ri.system);
  if (cs == rs && tl_status_has_solution(rs))
    cr_expect(!memcmp(xc, xr, cnt * sizeof *xc), "%s type %d n %zu nsys %zu P %d: x differs", name,
              id, p->sys.n, p->sys.nsys, opt->parts);
  free(xc);
  free(xr);
}

void th_expect_backend_is_reference_bits(const char *name, const char *ref)
{
  static const size_t sizes[] = {1, 2, 3, 4, 5, 17, 100, 257};
  static const size_t counts[] = {1, 9, 17};
  static const int parts[] = {1, 2, 3, 7};
  for (size_t ip = 0; ip < sizeof parts / sizeof parts[0]; ip++) {
    tl_options opt;
    tl_options_init(&opt);
    opt.parts = parts[ip];
    for (size_t k = 0; k < tl_gallery_count(); k++) {
      const tl_gallery_type *t = tl_gallery_get(k);
      if (t->dtype != TL_F64 || t->periodic)
        continue;
      for (size_t in = 0; in < sizeof sizes / sizeof sizes[0]; in++)
        for (size_t ic = 0; ic < sizeof counts / sizeof counts[0]; ic++) {
          tl_problem p;
          tl_info info;
          if (sizes[in] < t->min_n || sizes[in] < (size_t)parts[ip] ||
              tl_gallery_make(t->id, sizes[in], counts[ic], 7, &p, &info))
            continue;
          expect_same_bits(name, ref, &p, t->id, &opt);
          tl_problem_free(&p);
        }
    }
  }
}

void th_distd2_gallery_plan(size_t n, size_t nsys, size_t parts, tl_problem *p,
                            tl_distd2_plan *plan)
{
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, n, nsys, 3, p, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(tl_distd2_plan_create_d(plan, n, 0, parts, NULL, p->a, p->b, p->c, &info), TL_OK,
               "%s", info.msg);
}
