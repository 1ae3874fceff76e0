/* tests/test_hostile.c -- matrices the gallery does not have, made up on
 * the spot from a fixed seed: barely dominant rows, wild row scaling, zero
 * and tiny diagonals, extreme off-diagonal entries, near-singular
 * M-matrices, alternating 1e+-280 scales; real and complex, plain and
 * periodic, n from 1 to 500; partitioned algorithms on P = 1, 3 and 7
 * partitions. Every algorithm of the registry must either
 * say it is not sure (any status but TL_OK) or pass LAPACK's residual and
 * forward-error tests. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "tridlab/tridlab.h"

#define CASES 400

typedef struct hostile {
  size_t n;
  int periodic, cplx;
  void *a, *b, *c, *d, *xt;
} hostile;

/* Row i of a matrix of the given kind (before the complex phase). */
static void hostile_row(tl_rng *r, int kind, size_t i, double *va, double *vb, double *vc,
                        double *scale)
{
  *va = tl_rng_uniform(r, -1, 1);
  *vb = tl_rng_uniform(r, -1, 1);
  *vc = tl_rng_uniform(r, -1, 1);
  *scale = 1.0;
  double off = fabs(*va) + fabs(*vc);
  switch (kind) {
  case 0: *vb = off * (1 + tl_rng_uniform(r, 0, 1e-8)); break;          /* barely dominant */
  case 1: *scale = pow(10, tl_rng_uniform(r, -150, 150)); break;        /* wild row scaling */
  case 2: if (tl_rng_uniform(r, 0, 1) < 0.3) *vb = 0; break;            /* zero diagonals */
  case 3: *vb = off * (tl_rng_uniform(r, 0, 1) < 0.5 ? 1.0 : 3.0); break; /* weak rows */
  case 4: *va *= 1e-300; *vc *= 1e300; break;                            /* extreme entries */
  case 5: *vb = 2 * off; if (tl_rng_uniform(r, 0, 1) < 0.01) *vb = 1e-200; break;
  case 6: *va = -1; *vc = -1; *vb = 2 + (tl_rng_uniform(r, 0, 1) < 0.5 ? 0 : 1e-12); break;
  case 7: *vb = off * (1 + tl_rng_uniform(r, 0.5, 1)); *va *= pow(10, tl_rng_uniform(r, -5, 5));
          break;                                                         /* column variation */
  case 8: *vb = tl_rng_uniform(r, -1, 1) * 1e-8; break;                  /* tiny diagonals */
  default: *vb = off * (1 + tl_rng_uniform(r, 0, 1)); *scale = (i % 2) ? 1e280 : 1e-280; break;
  }
}

static void hostile_make(tl_rng *r, long k, hostile *h)
{
  int kind = (int)(k % 10);
  h->n = 1 + (size_t)(tl_rng_uniform(r, 0, 1) * (k % 3 == 0 ? 500 : 40));
  h->periodic = (k % 7 == 0);
  h->cplx = (k % 5 == 0);
  size_t n = h->n, es = h->cplx ? sizeof(double complex) : sizeof(double);
  h->a = calloc(n, es), h->b = calloc(n, es), h->c = calloc(n, es);
  h->d = calloc(n, es), h->xt = calloc(n, es);
  for (size_t i = 0; i < n; i++) {
    double va, vb, vc, s;
    hostile_row(r, kind, i, &va, &vb, &vc, &s);
    if (!h->periodic && i == 0)
      va = 0;
    if (!h->periodic && i == n - 1)
      vc = 0;
    if (h->cplx) {
      double ph = tl_rng_uniform(r, 0, 6.28), pb = tl_rng_uniform(r, 0, 6.28);
      ((double complex *)h->a)[i] = va * s * cexp(I * ph);
      ((double complex *)h->b)[i] = vb * s * cexp(I * pb);
      ((double complex *)h->c)[i] = vc * s * cexp(2 * I * ph);
      ((double complex *)h->xt)[i] = tl_rng_uniform(r, -1, 1) + I * tl_rng_uniform(r, -1, 1);
    } else {
      ((double *)h->a)[i] = va * s;
      ((double *)h->b)[i] = vb * s;
      ((double *)h->c)[i] = vc * s;
      ((double *)h->xt)[i] = tl_rng_uniform(r, -1, 1);
    }
  }
}

/* d = A xt, so xt is the answer up to the rounding of d. */
static void hostile_rhs(hostile *h)
{
  size_t n = h->n;
  for (size_t i = 0; i < n; i++) {
    size_t l = (i + n - 1) % n, rr = (i + 1) % n;
    int has_l = i > 0 || h->periodic, has_r = i + 1 < n || h->periodic;
    if (h->cplx) {
      const double complex *A = h->a, *B = h->b, *C = h->c, *X = h->xt;
      double complex s = B[i] * X[i] + (has_l ? A[i] * X[l] : 0) + (has_r ? C[i] * X[rr] : 0);
      ((double complex *)h->d)[i] = s;
    } else {
      const double *A = h->a, *B = h->b, *C = h->c, *X = h->xt;
      ((double *)h->d)[i] = B[i] * X[i] + (has_l ? A[i] * X[l] : 0) + (has_r ? C[i] * X[rr] : 0);
    }
  }
}

Test(hostile, no_algorithm_is_silently_wrong, .timeout = 600)
{
  size_t nalg;
  const tl_algorithm *const *reg = tl_registry(&nalg);
  tl_rng r;
  tl_rng_seed(&r, 20261122);
  long checked = 0;
  for (long k = 0; k < CASES; k++) {
    hostile h;
    hostile_make(&r, k, &h);
    hostile_rhs(&h);
    tl_batch sys = {.dtype = h.cplx ? TL_C128 : TL_F64, .n = h.n, .nsys = 1,
                    .periodic = h.periodic, .a = h.a, .b = h.b, .c = h.c, .d = h.d};
    double rcond = NAN;
    tl_info info;
    if (tl_rcond(&sys, &rcond, &info) != TL_OK)
      rcond = NAN;
    void *x = calloc(h.n, h.cplx ? sizeof(double complex) : sizeof(double));
    static const int parts[] = {1, 3, 7};
    for (size_t q = 0; q < nalg; q++)
      for (size_t pi = 0; pi < (reg[q]->partitioned ? 3u : 1u); pi++) {
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = parts[pi];
        if (tl_solve(reg[q], &sys, x, &opt, &info) != TL_OK)
          continue;
        checked++;
        double res = tl_residual_ratio(&sys, x);
        double fe = isnan(rcond) ? 0.0 : tl_forward_ratio(&sys, x, h.xt, &rcond);
        cr_expect(res < TL_THRESH && !(fe >= TL_THRESH), /* fe NaN: rcond overflowed */
                  "%s P=%d: case %ld (kind %ld, n=%zu, periodic %d, complex %d): ok but resid %g "
                  "ferr %g",
                  reg[q]->name, parts[pi], k, k % 10, h.n, h.periodic, h.cplx, res, fe);
      }
    free(x);
    free(h.a), free(h.b), free(h.c), free(h.d), free(h.xt);
  }
  cr_expect_gt(checked, CASES / 2, "too few solves returned ok to test anything");
}
