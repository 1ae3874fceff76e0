/* examples/sz_packed.c -- the SZ-packed layout and the optimized CPU
 * Thomas kernel, step by step (tutorials/10-sz-packed.md walks through
 * it). Build with `make`; run build/examples/sz_packed.
 *
 *   1. where the entries of a small batch go in the SZ-packed layout;
 *   2. a batch of 2000 systems: pack, solve with tl_cpu_thomas_sz_d,
 *      unpack, and check the answer against LAPACK with LAPACK's ratio;
 *   3. the same batch through the registry: thomas_cpu returns the status
 *      the reference thomas returns and an answer that passes LAPACK's
 *      test, a few ulps from thomas's (one reciprocal per row where thomas
 *      divides twice).
 *
 * Exit status 0 when every check passes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tridlab/tridlab.h"

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 1. The layout: entry (s, i) of a batch goes to ((s / SZ) n + i) SZ +
 * s % SZ. Print where the rows of 10 systems of 3 rows land with SZ = 8:
 * two groups, the second padded with 6 lanes. */
static void show_layout(void)
{
  size_t n = 3, nsys = 10, sz = 8;
  size_t count = tl_cpu_packed_count(n, nsys, sz);
  double batch[30], packed[48];
  for (size_t s = 0; s < nsys; s++)
    for (size_t i = 0; i < n; i++)
      batch[s * n + i] = 10.0 * (double)s + (double)i; /* "s.i" as a number: 10 s + i */
  tl_cpu_pack_batch_d(n, nsys, sz, batch, packed, -1.0, NULL);
  printf("1. SZ-packed layout, n = %zu, nsys = %zu, SZ = %zu: %zu entries (value 10 s + i;\n"
         "   -1 marks a padding lane)\n",
         n, nsys, sz, count);
  for (size_t g = 0; g < count / (n * sz); g++)
    for (size_t i = 0; i < n; i++) {
      printf("   group %zu row %zu:", g, i);
      for (size_t l = 0; l < sz; l++)
        printf(" %3.0f", packed[(g * n + i) * sz + l]);
      printf("\n");
    }
}

int main(void)
{
  int ok = 1;
  show_layout();

  /* 2. A batch from the gallery (type 20: strictly diagonally dominant,
   * random), packed, solved in place, unpacked. */
  size_t n = 300, nsys = 2000, sz = tl_cpu_sz_default(n, sizeof(double));
  tl_problem p;
  tl_info info;
  if (tl_gallery_make(20, n, nsys, 7, &p, &info) != TL_OK) {
    fprintf(stderr, "gallery: %s\n", info.msg);
    return 1;
  }
  size_t count = tl_cpu_packed_count(n, nsys, sz);
  double *pa = malloc(count * sizeof *pa), *pb = malloc(count * sizeof *pb);
  double *pc = malloc(count * sizeof *pc), *pd = malloc(count * sizeof *pd);
  double *x = malloc(n * nsys * sizeof *x), *xl = malloc(n * nsys * sizeof *xl);
  double *xr = malloc(n * nsys * sizeof *xr), *xc = malloc(n * nsys * sizeof *xc);
  double *rcond = malloc(nsys * sizeof *rcond);
  if (!pa || !pb || !pc || !pd || !x || !xl || !xr || !xc || !rcond) {
    fprintf(stderr, "no memory\n");
    return 1;
  }
  /* Padding lanes solve the identity: b = 1, a = c = d = 0. */
  tl_cpu_pack_batch_d(n, nsys, sz, p.a, pa, 0.0, NULL);
  tl_cpu_pack_batch_d(n, nsys, sz, p.b, pb, 1.0, NULL);
  tl_cpu_pack_batch_d(n, nsys, sz, p.c, pc, 0.0, NULL);
  tl_cpu_pack_batch_d(n, nsys, sz, p.d, pd, 0.0, NULL);
  double t0 = seconds();
  int st = tl_cpu_thomas_sz_d(n, nsys, sz, pa, pb, pc, pd, &info);
  double t_packed = seconds() - t0;
  tl_cpu_unpack_batch_d(n, nsys, sz, pd, x, NULL);
  tl_lapack_solve(&p.sys, xl, NULL);
  tl_rcond(&p.sys, rcond, NULL);
  double res = tl_residual_ratio(&p.sys, x), fwd = tl_forward_ratio(&p.sys, x, xl, rcond);
  printf("\n2. %zu systems of %zu rows, SZ = %zu, %d threads: status %s\n"
         "   residual ratio %.2f, forward-error ratio %.2f against LAPACK (pass: < %g)\n",
         nsys, n, sz, tl_cpu_threads(), tl_status_name(st), res, fwd, TL_THRESH);
  ok &= st == TL_OK && res < TL_THRESH && fwd < TL_THRESH;

  /* 3. The registry: thomas_cpu against the reference thomas. */
  const tl_algorithm *ref = tl_find("thomas"), *cpu = tl_find("thomas_cpu");
  t0 = seconds();
  int sr = tl_solve(ref, &p.sys, xr, NULL, &info);
  double t_ref = seconds() - t0;
  t0 = seconds();
  int sc = tl_solve(cpu, &p.sys, xc, NULL, &info);
  double t_cpu = seconds() - t0;
  double diff = 0, scale = 0, res_cpu = tl_residual_ratio(&p.sys, xc);
  for (size_t k = 0; k < n * nsys; k++) {
    double dk = xr[k] > xc[k] ? xr[k] - xc[k] : xc[k] - xr[k];
    double sk = xr[k] > 0 ? xr[k] : -xr[k];
    diff = dk > diff ? dk : diff;
    scale = sk > scale ? sk : scale;
  }
  printf("\n3. registry: thomas %s in %.2f ms, thomas_cpu %s in %.2f ms\n"
         "   thomas_cpu's residual ratio %.2f (pass: < %g); largest difference from\n"
         "   thomas %s of max |x|\n"
         "   (the packed kernel alone: %.2f ms; one run each, no warm-up: use\n"
         "   'tridlab bench' for measurements)\n",
         tl_status_name(sr), 1e3 * t_ref, tl_status_name(sc), 1e3 * t_cpu, res_cpu, TL_THRESH,
         diff / scale < 1e-14 ? "below 1e-14" : "ABOVE 1e-14", 1e3 * t_packed);
  ok &= sr == TL_OK && sc == TL_OK && res_cpu < TL_THRESH && diff / scale < 1e-14;

  free(pa), free(pb), free(pc), free(pd), free(x), free(xl), free(xr), free(xc), free(rcond);
  tl_problem_free(&p);
  printf("\n%s\n", ok ? "all checks passed" : "A CHECK FAILED");
  return ok ? 0 : 1;
}
