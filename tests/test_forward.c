/* tests/test_forward.c -- every optimized backend against its reference
 * by LAPACK's forward-error ratio (DGET04 against a pivoted LAPACK solve,
 * rcond from tl_rcond), not only by the residual ratio: on the gallery
 * scaled by huge and tiny powers of two (up to entries near 2^1020, down
 * to entries near 2^-1010), near overflow and ill-conditioned.
 *
 * The backends are found in the registry: every algorithm of the rooms
 * "cpu" and "gpu" is named after its reference (thomas_cpu -> thomas,
 * hybrid_pcr_gpu -> hybrid_pcr). Each must return the reference's
 * status, and where both wrote a solution, a forward-error ratio below
 * THRESH wherever the reference's is below it (and within FACTOR of the
 * reference's where it is not).
 *
 * Why the residual is not enough: issue 22's cyclic system
 * [1e300, 1e300 (1 + 2^-52), -0.089] is strictly dominant with cond_1
 * 1.8e16, and thomas_periodic_cpu, multiplying by one reciprocal pivot
 * per row, returned ok with residual ratio below 1 and forward-error
 * ratio 142 (n = 1750) where thomas_periodic's was 0.05.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/tridlab.h"
#include "tridlab/verify.h"

/* Where the reference's ratio is >= THRESH (a warned, ill-conditioned
 * solve), the backend's may be at most this many times larger. */
#define FACTOR 4.0

/* The reference an optimized backend names in its descriptor; NULL when
 * the algorithm is not one of the cpu or gpu rooms' backends. */
static const tl_algorithm *reference_of(const tl_algorithm *opt)
{
  const char *room = tl_algorithm_room(opt);
  if (strcmp(room, "cpu") != 0 && strcmp(room, "gpu") != 0)
    return NULL;
  cr_assert_not_null(opt->reference, "%s names no reference", opt->name);
  return tl_find(opt->reference->name);
}

/* Largest |entry| of the matrix of a batch. */
static double largest_entry(const tl_batch *sys)
{
  const double *arr[3] = {sys->a, sys->b, sys->c};
  double m = 0;
  for (int k = 0; k < 3; k++)
    for (size_t q = 0; q < sys->n * sys->nsys; q++)
      m = fmax(m, fabs(arr[k][q]));
  return m;
}

/* A copy of p's arrays scaled by one power of two (d too, so x is
 * unchanged where nothing underflows): its largest entry becomes about
 * 2^top. mem holds the four arrays; sys points into it. */
static double *scaled_copy(const tl_problem *p, int top, tl_batch *sys)
{
  size_t cnt = p->sys.n * p->sys.nsys;
  int e;
  frexp(largest_entry(&p->sys), &e);
  double *mem = malloc(4 * cnt * sizeof *mem);
  cr_assert_not_null(mem);
  const double *src[4] = {p->a, p->b, p->c, p->d};
  for (int k = 0; k < 4; k++)
    for (size_t q = 0; q < cnt; q++)
      mem[k * cnt + q] = ldexp(src[k][q], top - e);
  *sys = p->sys;
  sys->a = mem;
  sys->b = mem + cnt;
  sys->c = mem + 2 * cnt;
  sys->d = mem + 3 * cnt;
  return mem;
}

/* Solve sys with the backend and its reference: the same status, and the
 * forward-error ratios compared as the file's comment says. Returns the
 * backend's ratio (0 when not measured). */
static double expect_as_reference(const tl_algorithm *opt, const tl_algorithm *ref,
                                  const tl_batch *sys, int parts, const char *what)
{
  size_t cnt = sys->n * sys->nsys;
  double *xo = calloc(cnt, sizeof *xo), *xr = calloc(cnt, sizeof *xr);
  double *xl = calloc(cnt, sizeof *xl), *rc = calloc(sys->nsys, sizeof *rc);
  tl_options o;
  tl_options_init(&o);
  o.parts = parts;
  tl_info io, ir;
  int so = tl_solve(opt, sys, xo, &o, &io), sr = tl_solve(ref, sys, xr, &o, &ir);
  cr_expect_eq(so, sr, "%s vs %s, %s, n %zu P %d: status %s vs %s (%s | %s)", opt->name, ref->name,
               what, sys->n, parts, tl_status_name(so), tl_status_name(sr), io.msg, ir.msg);
  double fo = 0;
  if (so == sr && tl_status_has_solution(so) && tl_lapack_solve(sys, xl, NULL) == TL_OK &&
      tl_rcond(sys, rc, NULL) == TL_OK) {
    fo = tl_forward_ratio(sys, xo, xl, rc);
    double fr = tl_forward_ratio(sys, xr, xl, rc);
    /* Singular to working precision (an rcond below eps; Dorr with
     * theta = 1e-4 from n = 16): any answer with a small residual is as
     * good as another -- thomas_cpu's lies 1e22 from thomas's at n = 64,
     * both with residual ratios below 0.1 -- and the verification judges
     * no forward error there either. */
    if (tl_singular_to_working_precision(rc, sys->nsys, NULL))
      fr = NAN;
    if (!isnan(fr)) {
      int good = fr < TL_THRESH ? fo < TL_THRESH : fo <= FACTOR * fr;
      cr_expect(good, "%s, %s, n %zu P %d, status %s: forward-error ratio %.3g, %s's %.3g",
                opt->name, what, sys->n, parts, tl_status_name(so), fo, ref->name, fr);
    }
  }
  free(xo), free(xr), free(xl), free(rc);
  return fo;
}

/* ------------------------------------------------------------------ */
/* The gallery, scaled                                                 */

static const size_t sizes[] = {2, 5, 64, 255, 1000};
#define NSIZES (sizeof sizes / sizeof sizes[0])
/* The largest entry near 2^top: 0 leaves the system as made. */
static const int tops[] = {0, -1010, -900, 900, 1020};
#define NTOPS (sizeof tops / sizeof tops[0])

/* Every non-singular real gallery type of the backend's layout, at every
 * size and scale, P = 1 (and 4 for a partitioned backend). */
static void gallery_scaled(const tl_algorithm *opt, const tl_algorithm *ref)
{
  int periodic = (opt->layouts & TL_PERIODIC) != 0;
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    if (t->dtype != TL_F64 || t->periodic != periodic || t->singular)
      continue;
    for (size_t in = 0; in < NSIZES; in++)
      for (size_t it = 0; it < NTOPS; it++)
        for (int parts = 1; parts <= (opt->partitioned ? 4 : 1); parts += 3) {
          tl_problem p;
          if (sizes[in] < t->min_n || sizes[in] < 2 * (size_t)parts ||
              tl_gallery_make(t->id, sizes[in], 3, 22, &p, NULL) != TL_OK)
            continue;
          tl_batch sys;
          double *mem = scaled_copy(&p, tops[it], &sys);
          char what[96];
          if (tops[it])
            snprintf(what, sizeof what, "type %d %s, largest entry 2^%d", t->id, t->name, tops[it]);
          else
            snprintf(what, sizeof what, "type %d %s, as made", t->id, t->name);
          expect_as_reference(opt, ref, tops[it] ? &sys : &p.sys, parts, what);
          free(mem);
          tl_problem_free(&p);
        }
  }
}

Test(forward, every_optimized_backend_as_its_reference_on_the_scaled_gallery, .timeout = 600)
{
  size_t count, seen = 0;
  const tl_algorithm *const *all = tl_registry(&count);
  for (size_t k = 0; k < count; k++) {
    const tl_algorithm *ref = reference_of(all[k]);
    if (!ref)
      continue;
    cr_assert(all[k]->dtypes & TL_DTYPE_BIT(TL_F64), "%s", all[k]->name);
    gallery_scaled(all[k], ref);
    seen++;
  }
  cr_expect_geq(seen, 6, "thomas_cpu, thomas_periodic_cpu and the four gpu backends");
}

/* ------------------------------------------------------------------ */
/* Issue 22's reproducer                                               */

/* Cyclic [a, a (1 + 2^-52), c], x uniform in [-1, 1) from the gallery's
 * generator, d = A x with fma as the gallery forms it. */
static void reproducer(size_t n, double a, double c, uint64_t seed, double *m)
{
  double *pa = m, *pb = m + n, *pc = m + 2 * n, *pd = m + 3 * n, *x = m + 4 * n;
  tl_rng r;
  tl_rng_seed(&r, seed);
  for (size_t i = 0; i < n; i++) {
    pa[i] = a;
    pb[i] = a * (1 + 0x1p-52);
    pc[i] = c;
    x[i] = tl_rng_uniform(&r, -1.0, 1.0);
  }
  for (size_t i = 0; i < n; i++) {
    double s = fma(pa[i], x[i > 0 ? i - 1 : n - 1], pb[i] * x[i]);
    pd[i] = fma(pc[i], x[i + 1 < n ? i + 1 : 0], s);
  }
}

/* The reciprocal kernel's ratio grew like n: 5.5 at n = 100, 108 at 900,
 * 142 at 1750; thomas_periodic's stays below 1. */
Test(forward, periodic_backends_on_the_issue_22_system, .timeout = 120)
{
  static const char *const names[] = {"thomas_periodic_cpu", "thomas_periodic_gpu"};
  const tl_algorithm *ref = tl_find("thomas_periodic");
  double *m = malloc(5 * 2000 * sizeof *m);
  for (size_t k = 0; k < 2; k++) {
    const tl_algorithm *opt = tl_find(names[k]);
    cr_assert_not_null(opt);
    double worst = 0;
    for (size_t n = 100; n <= 2000; n += 50) {
      reproducer(n, 1e300, -0.089, 7, m);
      tl_batch sys = {TL_F64, n, 1, 1, m, m + n, m + 2 * n, m + 3 * n};
      worst = fmax(worst, expect_as_reference(opt, ref, &sys, 1, "issue 22's system"));
    }
    cr_expect_lt(worst, 1.0, "%s: worst forward-error ratio %.3g", names[k], worst);
  }
  free(m);
}
