/* tests/test_cpu.c -- the optimized CPU kernels (optimized/cpu/) against
 * the reference solvers on the gallery: odd n, n and batch counts that
 * are not multiples of SZ, every SZ, the three directions of a Cartesian
 * array, float against double, and the statuses of the registry backend
 * thomas_cpu against those of thomas.
 *
 * Agreement is measured as LAPACK's DGET04 ratio against the reference
 * solution: ||x - x_ref||_inf / ||x_ref||_inf * rcond / eps < 30 (rcond
 * from DGTCON), with eps = 2^-53 for double and 2^-24 for float.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "helpers.h"
#include "tridlab/cpu.h"
#include "tridlab/tridlab.h"

#define EPS_F 0x1p-24
#define TWO_PI 6.283185307179586476925

static const size_t all_sz[] = {8, 16, 32, 64};
#define NSZ (sizeof all_sz / sizeof all_sz[0])

/* Gallery types inside Thomas's domain (docs/gallery.md). */
static const int dominant_types[] = {1, 2, 5, 6, 20, 21, 22, 23, 24, 32, 34, 35, 36};
#define NDOM (sizeof dominant_types / sizeof dominant_types[0])

static int float_safe(int id)
{
  return id != 5 && id != 6; /* scaled by 2^-971 / 2^971: not representable in float */
}

static double *ref_solution(const tl_problem *p)
{
  size_t n = p->sys.n, nsys = p->sys.nsys;
  double *x = malloc(n * nsys * sizeof *x);
  cr_assert_not_null(x);
  const double *a = p->a, *b = p->b, *c = p->c, *d = p->d;
  for (size_t s = 0; s < nsys; s++) {
    tl_info info;
    int st = tl_thomas_ref_d(n, a + s * n, b + s * n, c + s * n, d + s * n, x + s * n, &info);
    cr_assert_geq(st, 0, "reference failed: %s", info.msg);
  }
  return x;
}

/* Largest DGET04 ratio of x against xref over the batch, in units of eps. */
static double ferr_ratio(const tl_problem *p, const double *x, const double *xref, double eps)
{
  size_t n = p->sys.n, nsys = p->sys.nsys;
  double *rcond = malloc(nsys * sizeof *rcond);
  tl_info info;
  cr_assert_eq(tl_rcond(&p->sys, rcond, &info), TL_OK);
  double worst = 0;
  for (size_t s = 0; s < nsys; s++) {
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
      num = fmax(num, fabs(x[s * n + i] - xref[s * n + i]));
      den = fmax(den, fabs(xref[s * n + i]));
    }
    double r = den > 0 ? num / den * rcond[s] / eps : (num > 0 ? INFINITY : 0);
    if (rcond[s] < eps)
      r = 0; /* singular to working precision: any two answers may differ */
    if (!(r <= worst))
      worst = r;
  }
  free(rcond);
  return worst;
}

static float *to_float(const double *v, size_t count)
{
  float *f = malloc(count * sizeof *f);
  for (size_t k = 0; k < count; k++)
    f[k] = (float)v[k];
  return f;
}

/* The batch (float64 arrays of p) SZ-packed; b padded with 1. */
static double *packed(const tl_problem *p, const void *arr, size_t sz, double pad)
{
  size_t cnt = tl_cpu_packed_count(p->sys.n, p->sys.nsys, sz);
  double *dst = malloc(cnt * sizeof *dst);
  tl_info info;
  cr_assert_eq(tl_cpu_pack_batch_d(p->sys.n, p->sys.nsys, sz, arr, dst, pad, &info), TL_OK);
  return dst;
}

/* ------------------------------------------------------------------ */
/* Group size and layout                                                */

Test(cpu_layout, sz_choice)
{
  cr_expect_eq(tl_cpu_sz_default(256, 8), 16);
  cr_expect_eq(tl_cpu_sz_default(256, 4), 16);
  cr_expect_eq(tl_cpu_sz_default(4096, 4), 16);
  cr_expect_eq(tl_cpu_sz_default(4096, 8), 8);
  cr_expect_eq(tl_cpu_sz_default(1u << 20, 8), 8, "never below 8: no cap on n");
  for (size_t n = 1; n < 100000; n = 3 * n + 1)
    cr_expect(tl_cpu_sz_supported(tl_cpu_sz_default(n, 4)) &&
              tl_cpu_sz_supported(tl_cpu_sz_default(n, 8)));
  cr_expect(!tl_cpu_sz_supported(4) && !tl_cpu_sz_supported(12) && !tl_cpu_sz_supported(128));
  /* Cartesian: 128-byte rows where they are near (<= 32 KiB apart), 32
   * lanes where they are far, then the smallest SZ that covers an x-row,
   * and a group's scratch (2 n SZ values) within 1 MiB. */
  size_t cube[3] = {256, 64, 1024}, near_z[3] = {64, 64, 4096}, thin[3] = {5, 100, 100};
  size_t mid[3] = {12, 100, 100}, zero[3] = {0, 4, 4}, long_y[3] = {64, 16384, 2};
  cr_expect_eq(tl_cpu_sz_3d(cube, TL_DIR_X, 8), tl_cpu_sz_lines(256, 8));
  cr_expect_eq(tl_cpu_sz_3d(cube, TL_DIR_Y, 8), 16);
  cr_expect_eq(tl_cpu_sz_3d(cube, TL_DIR_Y, 4), 32);
  cr_expect_eq(tl_cpu_sz_3d(cube, TL_DIR_Z, 8), 32, "rows 128 KiB apart");
  cr_expect_eq(tl_cpu_sz_3d(cube, TL_DIR_Z, 4), 32);
  cr_expect_eq(tl_cpu_sz_3d(near_z, TL_DIR_Z, 8), 16, "rows exactly 32 KiB apart are near");
  cr_expect_eq(tl_cpu_sz_3d(thin, TL_DIR_Y, 8), 8);
  cr_expect_eq(tl_cpu_sz_3d(mid, TL_DIR_Z, 4), 16);
  cr_expect_eq(tl_cpu_sz_3d(zero, TL_DIR_Y, 8), 0);
  cr_expect_eq(tl_cpu_sz_3d(cube, (tl_dir)3, 8), 0);
  cr_expect_eq(tl_cpu_sz_3d(cube, TL_DIR_Y, 12), 0, "an element size of neither 4 nor 8");
  cr_expect_eq(tl_cpu_sz_3d(long_y, TL_DIR_Y, 8), 8, "n = 16384: 16 lanes would hold 4 MiB");
  cr_expect_eq(tl_cpu_sz_3d(long_y, TL_DIR_Y, 4), 8);
  cr_expect_eq(tl_cpu_packed_count(5, 17, 8), 3 * 8 * 5);
  cr_expect_eq(tl_cpu_packed_count(5, 16, 8), 2 * 8 * 5);
  cr_expect_eq(tl_cpu_packed_count(0, 16, 8), 0);
  cr_expect_eq(tl_cpu_packed_count((size_t)1 << 40, (size_t)1 << 40, 8), 0, "overflow");
}

Test(cpu_layout, pack_batch_index_and_round_trip)
{
  for (size_t k = 0; k < NSZ; k++) {
    size_t sz = all_sz[k], n = 7, nsys = sz + 3, cnt = tl_cpu_packed_count(n, nsys, sz);
    double *src = malloc(n * nsys * sizeof *src), *pk = malloc(cnt * sizeof *pk);
    double *back = calloc(n * nsys, sizeof *back);
    float *fsrc = malloc(n * nsys * sizeof *fsrc), *fpk = malloc(cnt * sizeof *fpk);
    float *fback = calloc(n * nsys, sizeof *fback);
    for (size_t q = 0; q < n * nsys; q++)
      fsrc[q] = (float)(src[q] = (double)q + 0.5);
    tl_info info;
    cr_assert_eq(tl_cpu_pack_batch_d(n, nsys, sz, src, pk, -1.0, &info), TL_OK);
    cr_assert_eq(tl_cpu_pack_batch_f(n, nsys, sz, fsrc, fpk, -1.0f, &info), TL_OK);
    for (size_t s = 0; s < (nsys + sz - 1) / sz * sz; s++)
      for (size_t i = 0; i < n; i++) {
        size_t q = ((s / sz) * n + i) * sz + s % sz;
        double want = s < nsys ? src[s * n + i] : -1.0;
        cr_assert_eq(pk[q], want, "sz %zu s %zu i %zu", sz, s, i);
        cr_assert_eq(fpk[q], (float)want);
      }
    cr_assert_eq(tl_cpu_unpack_batch_d(n, nsys, sz, pk, back, &info), TL_OK);
    cr_assert_eq(tl_cpu_unpack_batch_f(n, nsys, sz, fpk, fback, &info), TL_OK);
    cr_expect_arr_eq(back, src, n * nsys * sizeof *src);
    cr_expect_arr_eq(fback, fsrc, n * nsys * sizeof *fsrc);
    free(src), free(pk), free(back), free(fsrc), free(fpk), free(fback);
  }
}

/* Offset of entry (line s, row i) of a solve along dir; an independent
 * statement of the numbering in tridlab/cpu.h. */
static size_t cart_index(const size_t *dims, tl_dir dir, size_t s, size_t i)
{
  size_t nx = dims[0], ny = dims[1];
  if (dir == TL_DIR_X)
    return s * nx + i;
  if (dir == TL_DIR_Y)
    return (s / nx) * nx * ny + i * nx + s % nx;
  return i * nx * ny + s;
}

Test(cpu_layout, pack_3d_all_directions)
{
  static const size_t shapes[][3] = {{5, 7, 3}, {16, 3, 9}, {9, 17, 2}, {1, 1, 33}};
  for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++)
    for (int dir = 0; dir < 3; dir++)
      for (size_t k = 0; k < NSZ; k++) {
        const size_t *dims = shapes[h];
        size_t sz = all_sz[k], total = dims[0] * dims[1] * dims[2], n, nsys;
        tl_info info;
        cr_assert_eq(tl_cpu_lines(dims, (tl_dir)dir, &n, &nsys, &info), TL_OK);
        size_t cnt = tl_cpu_packed_count(n, nsys, sz);
        double *u = malloc(total * sizeof *u), *pk = malloc(cnt * sizeof *pk);
        double *back = calloc(total, sizeof *back);
        for (size_t q = 0; q < total; q++)
          u[q] = (double)q;
        cr_assert_eq(tl_cpu_pack_3d_d(dims, (tl_dir)dir, sz, u, pk, 0.0, &info), TL_OK);
        for (size_t s = 0; s < nsys; s++)
          for (size_t i = 0; i < n; i++)
            cr_assert_eq(pk[((s / sz) * n + i) * sz + s % sz],
                         u[cart_index(dims, (tl_dir)dir, s, i)], "dir %d s %zu i %zu", dir, s, i);
        cr_assert_eq(tl_cpu_unpack_3d_d(dims, (tl_dir)dir, sz, pk, back, &info), TL_OK);
        cr_expect_arr_eq(back, u, total * sizeof *u);
        free(u), free(pk), free(back);
      }
}

Test(cpu_layout, bad_arguments)
{
  double v[64] = {0};
  size_t dims[3] = {4, 4, 4}, zero[3] = {4, 0, 4};
  tl_info info;
  cr_expect_eq(tl_cpu_pack_batch_d(4, 4, 12, v, v + 32, 0, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "sz");
  cr_expect_eq(tl_cpu_pack_3d_d(zero, TL_DIR_X, 8, v, v, 0, &info), TL_ERR_ARG);
  cr_expect_eq(tl_cpu_pack_3d_d(dims, (tl_dir)3, 8, v, v, 0, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "dir");
  cr_expect_eq(tl_cpu_thomas_sz_d(4, 4, 8, NULL, v, v, v, &info), TL_ERR_ARG);
  cr_expect_eq(tl_cpu_thomas_3d_d(dims, TL_DIR_Y, 7, v, v, v, v, v, &info), TL_ERR_ARG);
}

/* ------------------------------------------------------------------ */
/* Thomas on SZ-packed data                                             */

static const size_t sizes[] = {1, 2, 3, 5, 17, 100, 257};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const size_t counts[] = {1, 7, 33, 70};
#define NCOUNTS (sizeof counts / sizeof counts[0])

Test(cpu_thomas, packed_double_and_float_match_reference, .timeout = 120)
{
  for (size_t t = 0; t < NDOM; t++)
    for (size_t in = 0; in < NSIZES; in++)
      for (size_t ic = 0; ic < NCOUNTS; ic++) {
        int id = dominant_types[t];
        size_t n = sizes[in], nsys = counts[ic], sz = all_sz[(in + ic + t) % NSZ];
        tl_problem p;
        tl_info info;
        if (tl_gallery_make(id, n, nsys, 11, &p, &info) != TL_OK)
          continue;
        double *xref = ref_solution(&p);
        double *pa = packed(&p, p.a, sz, 0), *pb = packed(&p, p.b, sz, 1);
        double *pc = packed(&p, p.c, sz, 0), *pd = packed(&p, p.d, sz, 0);
        size_t cnt = tl_cpu_packed_count(n, nsys, sz);
        float *fa = to_float(pa, cnt), *fb = to_float(pb, cnt), *fc = to_float(pc, cnt);
        float *fd = to_float(pd, cnt);
        int st = tl_cpu_thomas_sz_d(n, nsys, sz, pa, pb, pc, pd, &info);
        cr_assert_eq(st, TL_OK, "type %d n %zu nsys %zu sz %zu: %s", id, n, nsys, sz, info.msg);
        double *x = malloc(n * nsys * sizeof *x);
        tl_cpu_unpack_batch_d(n, nsys, sz, pd, x, &info);
        double r = ferr_ratio(&p, x, xref, TL_EPS);
        cr_expect_lt(r, TL_THRESH, "double: type %d n %zu nsys %zu sz %zu ratio %g", id, n, nsys,
                     sz, r);
        if (float_safe(id)) {
          st = tl_cpu_thomas_sz_f(n, nsys, sz, fa, fb, fc, fd, &info);
          cr_assert_eq(st, TL_OK, "float type %d n %zu: %s", id, n, info.msg);
          float *xf = malloc(n * nsys * sizeof *xf);
          tl_cpu_unpack_batch_f(n, nsys, sz, fd, xf, &info);
          for (size_t q = 0; q < n * nsys; q++)
            x[q] = xf[q];
          r = ferr_ratio(&p, x, xref, EPS_F);
          cr_expect_lt(r, TL_THRESH, "float: type %d n %zu nsys %zu sz %zu ratio %g", id, n, nsys,
                       sz, r);
          free(xf);
        }
        free(x), free(xref), free(pa), free(pb), free(pc), free(pd);
        free(fa), free(fb), free(fc), free(fd);
        tl_problem_free(&p);
      }
}

/* Every SZ on one odd size with a partial last group. */
Test(cpu_thomas, packed_every_sz)
{
  for (size_t k = 0; k < NSZ; k++) {
    size_t sz = all_sz[k], n = 31, nsys = 2 * sz + 5;
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(20, n, nsys, 5, &p, &info), TL_OK);
    double *xref = ref_solution(&p);
    double *pa = packed(&p, p.a, sz, 0), *pb = packed(&p, p.b, sz, 1);
    double *pc = packed(&p, p.c, sz, 0), *pd = packed(&p, p.d, sz, 0);
    cr_assert_eq(tl_cpu_thomas_sz_d(n, nsys, sz, pa, pb, pc, pd, &info), TL_OK);
    double *x = malloc(n * nsys * sizeof *x);
    tl_cpu_unpack_batch_d(n, nsys, sz, pd, x, &info);
    cr_expect_lt(ferr_ratio(&p, x, xref, TL_EPS), TL_THRESH, "sz %zu", sz);
    free(x), free(xref), free(pa), free(pb), free(pc), free(pd);
    tl_problem_free(&p);
  }
}

/* A zero pivot in one system of a batch: that system and the reference's
 * row are reported; threads do not change which one. */
Test(cpu_thomas, packed_breakdown_reports_system_and_row)
{
  size_t n = 40, nsys = 37, sz = 8;
  tl_problem p;
  tl_info info, ref;
  cr_assert_eq(tl_gallery_make(39, n, nsys, 3, &p, &info), TL_OK); /* zero pivot at row 1 */
  /* Make every system but 23 and 30 safe: copy system 0 of sdd-random. */
  tl_problem good;
  cr_assert_eq(tl_gallery_make(20, n, nsys, 3, &good, &info), TL_OK);
  double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
  for (size_t s = 0; s < nsys; s++)
    if (s != 23 && s != 30) {
      memcpy(a + s * n, (double *)good.a + s * n, n * sizeof *a);
      memcpy(b + s * n, (double *)good.b + s * n, n * sizeof *a);
      memcpy(c + s * n, (double *)good.c + s * n, n * sizeof *a);
      memcpy(d + s * n, (double *)good.d + s * n, n * sizeof *a);
    }
  double *xr = malloc(n * sizeof *xr);
  tl_info_clear(&ref);
  cr_assert_eq(tl_thomas_ref_d(n, a + 23 * n, b + 23 * n, c + 23 * n, d + 23 * n, xr, &ref),
               TL_ERR_BREAKDOWN);
  double *pa = packed(&p, p.a, sz, 0), *pb = packed(&p, p.b, sz, 1);
  double *pc = packed(&p, p.c, sz, 0), *pd = packed(&p, p.d, sz, 0);
  for (int th = 1; th <= 2; th++) {
    double *dd = packed(&p, p.d, sz, 0);
    tl_cpu_set_threads(th);
    cr_expect_eq(tl_cpu_thomas_sz_d(n, nsys, sz, pa, pb, pc, dd, &info), TL_ERR_BREAKDOWN);
    cr_expect_eq(info.system, 23);
    cr_expect_eq(info.row, ref.row);
    free(dd);
  }
  tl_cpu_set_threads(0);
  /* The 3-D kernels report the same line and row. */
  size_t dims[3] = {n, nsys, 1};
  double *x = malloc(n * nsys * sizeof *x);
  cr_expect_eq(tl_cpu_thomas_3d_d(dims, TL_DIR_X, 16, a, b, c, d, x, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.system, 23);
  cr_expect_eq(info.row, ref.row);
  cr_expect_eq(tl_cpu_thomas_3d_naive_d(dims, TL_DIR_X, a, b, c, d, x, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.system, 23);
  cr_expect_eq(info.row, ref.row);
  free(x), free(xr), free(pa), free(pb), free(pc), free(pd);
  tl_problem_free(&p);
  tl_problem_free(&good);
}

/* ------------------------------------------------------------------ */
/* Cartesian arrays along x, y and z                                    */

/* The problem's batch scattered into Cartesian arrays of dims. */
static double *scatter(const size_t *dims, tl_dir dir, const tl_problem *p, const void *arr)
{
  size_t n = p->sys.n, nsys = p->sys.nsys;
  double *u = malloc(n * nsys * sizeof *u);
  const double *v = arr;
  for (size_t s = 0; s < nsys; s++)
    for (size_t i = 0; i < n; i++)
      u[cart_index(dims, dir, s, i)] = v[s * n + i];
  return u;
}

static void gather(const size_t *dims, tl_dir dir, size_t n, size_t nsys, const double *u,
                   double *v)
{
  for (size_t s = 0; s < nsys; s++)
    for (size_t i = 0; i < n; i++)
      v[s * n + i] = u[cart_index(dims, dir, s, i)];
}

Test(cpu_thomas, cartesian_xyz_match_reference, .timeout = 120)
{
  static const size_t shapes[][3] = {{17, 9, 5}, {16, 20, 3}, {33, 3, 7}, {1, 40, 2}, {5, 1, 1}};
  static const int types[] = {2, 20, 23, 34, 35};
  for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++)
    for (int dir = 0; dir < 3; dir++)
      for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        const size_t *dims = shapes[h];
        size_t n, nsys, sz = all_sz[(h + (size_t)dir + t) % NSZ];
        tl_info info;
        tl_cpu_lines(dims, (tl_dir)dir, &n, &nsys, &info);
        tl_problem p;
        cr_assert_eq(tl_gallery_make(types[t], n, nsys, 9, &p, &info), TL_OK);
        double *xref = ref_solution(&p);
        double *a = scatter(dims, (tl_dir)dir, &p, p.a), *b = scatter(dims, (tl_dir)dir, &p, p.b);
        double *c = scatter(dims, (tl_dir)dir, &p, p.c), *d = scatter(dims, (tl_dir)dir, &p, p.d);
        size_t total = n * nsys;
        double *x = malloc(total * sizeof *x), *xb = malloc(total * sizeof *xb);
        float *fa = to_float(a, total), *fb = to_float(b, total), *fc = to_float(c, total);
        float *fd = to_float(d, total), *fx = malloc(total * sizeof *fx);
        /* out of place, optimized */
        cr_assert_eq(tl_cpu_thomas_3d_d(dims, (tl_dir)dir, sz, a, b, c, d, x, &info), TL_OK, "%s",
                     info.msg);
        gather(dims, (tl_dir)dir, n, nsys, x, xb);
        double r = ferr_ratio(&p, xb, xref, TL_EPS);
        cr_expect_lt(r, TL_THRESH, "3d dir %d dims %zu %zu %zu sz %zu type %d: %g", dir, dims[0],
                     dims[1], dims[2], sz, types[t], r);
        /* baseline */
        cr_assert_eq(tl_cpu_thomas_3d_naive_d(dims, (tl_dir)dir, a, b, c, d, x, &info), TL_OK);
        gather(dims, (tl_dir)dir, n, nsys, x, xb);
        r = ferr_ratio(&p, xb, xref, TL_EPS);
        cr_expect_lt(r, TL_THRESH, "naive dir %d type %d: %g", dir, types[t], r);
        /* float, in place, and the float baseline */
        float *fd2 = to_float(d, total);
        cr_assert_eq(tl_cpu_thomas_3d_f(dims, (tl_dir)dir, sz, fa, fb, fc, fd2, fd2, &info), TL_OK);
        for (size_t q = 0; q < total; q++)
          x[q] = fd2[q];
        gather(dims, (tl_dir)dir, n, nsys, x, xb);
        r = ferr_ratio(&p, xb, xref, EPS_F);
        cr_expect_lt(r, TL_THRESH, "float dir %d type %d: %g", dir, types[t], r);
        cr_assert_eq(tl_cpu_thomas_3d_naive_f(dims, (tl_dir)dir, fa, fb, fc, fd, fx, &info), TL_OK);
        for (size_t q = 0; q < total; q++)
          x[q] = fx[q];
        gather(dims, (tl_dir)dir, n, nsys, x, xb);
        r = ferr_ratio(&p, xb, xref, EPS_F);
        cr_expect_lt(r, TL_THRESH, "float naive dir %d type %d: %g", dir, types[t], r);
        /* double in place */
        cr_assert_eq(tl_cpu_thomas_3d_d(dims, (tl_dir)dir, sz, a, b, c, d, d, &info), TL_OK);
        gather(dims, (tl_dir)dir, n, nsys, d, xb);
        cr_expect_lt(ferr_ratio(&p, xb, xref, TL_EPS), TL_THRESH, "in place dir %d", dir);
        free(x), free(xb), free(xref), free(a), free(b), free(c), free(d);
        free(fa), free(fb), free(fc), free(fd), free(fd2), free(fx);
        tl_problem_free(&p);
      }
}

/* Along y and z a unit is one group where the rows are near (at most
 * TL_CPU_NEAR_ROWS bytes apart) and several where they are far: both must
 * give the bits of the x kernel on the same batch (the same operations
 * lane by lane), at the recommended SZ and at 8 and 64, in both
 * precisions (a float row is half as far), and report a zero pivot in the
 * first, a middle or the last group of an x-row with its line. */
static void units_case(const size_t *dims, tl_dir dir, size_t sz)
{
  size_t n, nsys;
  tl_info info;
  cr_assert_eq(tl_cpu_lines(dims, dir, &n, &nsys, &info), TL_OK);
  tl_problem p;
  cr_assert_eq(tl_gallery_make(2, n, nsys, 11, &p, &info), TL_OK);
  size_t total = n * nsys, xdims[3] = {n, nsys, 1};
  double *a = scatter(dims, dir, &p, p.a), *b = scatter(dims, dir, &p, p.b);
  double *c = scatter(dims, dir, &p, p.c), *d = scatter(dims, dir, &p, p.d);
  double *x = malloc(total * sizeof *x), *xb = malloc(total * sizeof *xb);
  double *xx = malloc(total * sizeof *xx);
  cr_assert_eq(tl_cpu_thomas_3d_d(dims, dir, sz, a, b, c, d, x, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(tl_cpu_thomas_3d_d(xdims, TL_DIR_X, 8, p.a, p.b, p.c, p.d, xx, &info), TL_OK);
  gather(dims, dir, n, nsys, x, xb);
  size_t diff = 0;
  for (size_t q = 0; q < total; q++)
    diff += memcmp(&xb[q], &xx[q], sizeof xx[q]) != 0;
  cr_expect_eq(diff, 0, "dims %zu %zu %zu dir %d sz %zu: %zu values differ from x", dims[0],
               dims[1], dims[2], (int)dir, sz, diff);
  /* float */
  float *fa = to_float(a, total), *fb = to_float(b, total), *fc = to_float(c, total);
  float *fd = to_float(d, total), *fx = malloc(total * sizeof *fx);
  float *ga = to_float(p.a, total), *gb = to_float(p.b, total), *gc = to_float(p.c, total);
  float *gd = to_float(p.d, total), *gx = malloc(total * sizeof *gx);
  cr_assert_eq(tl_cpu_thomas_3d_f(dims, dir, sz, fa, fb, fc, fd, fx, &info), TL_OK);
  cr_assert_eq(tl_cpu_thomas_3d_f(xdims, TL_DIR_X, 8, ga, gb, gc, gd, gx, &info), TL_OK);
  size_t difff = 0;
  for (size_t s = 0; s < nsys; s++)
    for (size_t i = 0; i < n; i++)
      difff += memcmp(&fx[cart_index(dims, dir, s, i)], &gx[s * n + i], sizeof(float)) != 0;
  cr_expect_eq(difff, 0, "float dims %zu %zu %zu dir %d sz %zu: %zu values differ from x",
               dims[0], dims[1], dims[2], (int)dir, sz, difff);
  /* a zero pivot in row 0 of one line, in the first, a middle and the
   * last group of an x-row (and so of a wide unit), one at a time */
  size_t nx = dims[0], base = nsys / 2 / nx * nx;
  size_t at[3] = {3 < nx ? 3 : nx - 1, nx / 2 + 3 < nx ? nx / 2 + 3 : nx - 1, nx - 1};
  for (int q = 0; q < 3; q++) {
    size_t bad = base + at[q], e = cart_index(dims, dir, bad, 0);
    double keep = b[e];
    b[e] = 0;
    cr_expect_eq(tl_cpu_thomas_3d_d(dims, dir, sz, a, b, c, d, x, &info), TL_ERR_BREAKDOWN);
    cr_expect_eq(info.system, (long)bad, "dims %zu %zu %zu dir %d sz %zu: line %ld, not %zu",
                 dims[0], dims[1], dims[2], (int)dir, sz, info.system, bad);
    b[e] = keep;
  }
  free(a), free(b), free(c), free(d), free(x), free(xb), free(xx);
  free(fa), free(fb), free(fc), free(fd), free(fx), free(ga), free(gb), free(gc), free(gd);
  free(gx);
  tl_problem_free(&p);
}

Test(cpu_thomas, cartesian_units_near_and_far_are_the_bits_of_x, .timeout = 120)
{
  /* double rows: far, far, near, near, far (float: near, near, near,
   * near, far) */
  static const size_t shapes[][3] = {
      {72, 64, 6}, {4100, 3, 2}, {40, 30, 9}, {33, 70, 12}, {130, 300, 5}};
  static const tl_dir dirs[] = {TL_DIR_Z, TL_DIR_Y, TL_DIR_Z, TL_DIR_Y, TL_DIR_Z};
  for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++) {
    size_t szs[3] = {tl_cpu_sz_3d(shapes[h], dirs[h], sizeof(double)), 8, 64};
    for (size_t k = 0; k < 3; k++)
      units_case(shapes[h], dirs[h], szs[k]);
  }
}

/* ------------------------------------------------------------------ */
/* The registry backend                                                 */

Test(cpu_registry, thomas_cpu_is_registered_and_declines_what_it_does_not_solve)
{
  const tl_algorithm *al = tl_find("thomas_cpu");
  cr_assert_not_null(al);
  cr_expect_str_eq(al->backend, "cpu");
  cr_expect_str_eq(al->family, "direct");
  cr_expect(al->reference == tl_find("thomas") || !strcmp(al->reference->name, "thomas"),
            "thomas_cpu names thomas as its reference");
  cr_expect_eq(al->classes, al->reference->classes); /* inherited, not copied */
  tl_problem p;
  tl_info info;
  double x[2 * 10 * 2];
  cr_assert_eq(tl_gallery_make(51, 10, 2, 1, &p, &info), TL_OK); /* periodic */
  cr_expect_eq(tl_solve(al, &p.sys, x, NULL, &info), TL_ERR_UNSUPPORTED);
  tl_problem_free(&p);
  cr_assert_eq(tl_gallery_make(60, 10, 2, 1, &p, &info), TL_OK); /* complex */
  cr_expect_eq(tl_solve(al, &p.sys, x, NULL, &info), TL_ERR_UNSUPPORTED);
  tl_problem_free(&p);
}

/* thomas_cpu returns what thomas returns -- status, system, row, message
 * -- on every real non-periodic gallery type, dominant or not, with zero
 * pivots, singular; and a solution within LAPACK's ratios of thomas's
 * (its recurrence multiplies by one reciprocal per row: not bit for bit). */
Test(cpu_registry, thomas_cpu_statuses_equal_thomas, .timeout = 120)
{
  const tl_algorithm *ref = tl_find("thomas"), *opt = tl_find("thomas_cpu");
  static const size_t ns[] = {1, 2, 3, 7, 64, 255};
  static const size_t nsyss[] = {1, 3, 20};
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *ty = tl_gallery_get(k);
    if (ty->dtype != TL_F64 || ty->periodic)
      continue;
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
      for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++) {
        size_t n = ns[in], nsys = nsyss[ic];
        tl_problem p;
        tl_info ir, io;
        if (n < ty->min_n || tl_gallery_make(ty->id, n, nsys, 21, &p, &ir) != TL_OK)
          continue;
        double *xr = calloc(n * nsys, sizeof *xr), *xo = calloc(n * nsys, sizeof *xo);
        int sr = tl_solve(ref, &p.sys, xr, NULL, &ir);
        int so = tl_solve(opt, &p.sys, xo, NULL, &io);
        cr_expect_eq(so, sr, "type %d n %zu nsys %zu: thomas %s, thomas_cpu %s", ty->id, n, nsys,
                     tl_status_name(sr), tl_status_name(so));
        cr_expect_eq(io.system, ir.system, "type %d n %zu", ty->id, n);
        cr_expect_eq(io.row, ir.row, "type %d n %zu", ty->id, n);
        cr_expect_str_eq(io.msg, ir.msg, "type %d n %zu", ty->id, n);
        if (sr == TL_OK && so == TL_OK) {
          double r = ferr_ratio(&p, xo, xr, TL_EPS);
          cr_expect_lt(r, TL_THRESH, "type %d n %zu nsys %zu: ratio %g", ty->id, n, nsys, r);
        }
        free(xr), free(xo);
        tl_problem_free(&p);
      }
  }
}

/* thomas_periodic_cpu returns thomas_periodic's status on every real
 * periodic gallery type (out-of-domain and singular ones through the
 * reference itself), and a solution that passes LAPACK's tests where
 * the reference's does. */
Test(cpu_registry, thomas_periodic_cpu_agrees_with_thomas_periodic, .timeout = 120)
{
  const tl_algorithm *ref = tl_find("thomas_periodic"), *opt = tl_find("thomas_periodic_cpu");
  cr_assert_not_null(opt);
  cr_expect_str_eq(opt->backend, "cpu");
  static const size_t ns[] = {1, 2, 3, 7, 64, 255};
  static const size_t nsyss[] = {1, 3, 20};
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *ty = tl_gallery_get(k);
    if (ty->dtype != TL_F64 || !ty->periodic)
      continue;
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
      for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++) {
        size_t n = ns[in], nsys = nsyss[ic];
        tl_problem p;
        tl_info ir, io;
        if (n < ty->min_n || tl_gallery_make(ty->id, n, nsys, 22, &p, &ir) != TL_OK)
          continue;
        double *xr = calloc(n * nsys, sizeof *xr), *xo = calloc(n * nsys, sizeof *xo);
        int sr = tl_solve(ref, &p.sys, xr, NULL, &ir);
        int so = tl_solve(opt, &p.sys, xo, NULL, &io);
        cr_expect_eq(so, sr, "type %d n %zu nsys %zu: thomas_periodic %s, cpu %s", ty->id, n, nsys,
                     tl_status_name(sr), tl_status_name(so));
        cr_expect_eq(io.row, ir.row, "type %d n %zu", ty->id, n);
        if (sr == TL_OK && so == TL_OK) {
          double *rc = calloc(nsys, sizeof *rc), *xl = calloc(n * nsys, sizeof *xl);
          cr_assert_eq(tl_rcond(&p.sys, rc, NULL), TL_OK);
          cr_assert_eq(tl_lapack_solve(&p.sys, xl, NULL), TL_OK);
          double res = tl_residual_ratio(&p.sys, xo), fwd = tl_forward_ratio(&p.sys, xo, xl, rc);
          cr_expect_lt(res, TL_THRESH, "type %d n %zu: residual ratio %g", ty->id, n, res);
          cr_expect(!(fwd >= TL_THRESH), "type %d n %zu: forward ratio %g", ty->id, n, fwd);
          free(rc), free(xl);
        }
        free(xr), free(xo);
        tl_problem_free(&p);
      }
  }
}

/* A dominant batch of nsys systems of n rows (b in [2, 3), a, c in
 * [-0.5, 0.5), zero corners) in arrays that start `skew` doubles past a
 * 64-byte boundary: the kernels must not assume aligned lines. */
typedef struct hostile {
  tl_problem p;
  double *mem;
} hostile;

static void hostile_make(hostile *h, size_t n, size_t nsys, size_t skew, unsigned seed)
{
  size_t count = n * nsys;
  /* aligned_alloc wants a size that is a multiple of the alignment. */
  size_t bytes = ((4 * count + 8 * 4) * sizeof(double) + 63) / 64 * 64;
  h->mem = aligned_alloc(64, bytes);
  cr_assert_not_null(h->mem);
  memset(&h->p, 0, sizeof h->p);
  double *arr[4];
  for (int k = 0; k < 4; k++)
    arr[k] = h->mem + k * (count + 8) + skew;
  srand(seed);
  for (size_t q = 0; q < count; q++) {
    arr[0][q] = (double)rand() / RAND_MAX - 0.5;
    arr[1][q] = 2.0 + (double)rand() / RAND_MAX;
    arr[2][q] = (double)rand() / RAND_MAX - 0.5;
    arr[3][q] = (double)rand() / RAND_MAX - 0.5;
  }
  for (size_t s = 0; s < nsys; s++)
    arr[0][s * n] = arr[2][s * n + n - 1] = 0.0;
  h->p.a = arr[0], h->p.b = arr[1], h->p.c = arr[2], h->p.d = arr[3];
  h->p.sys = (tl_batch){
      .dtype = TL_F64, .n = n, .nsys = nsys, .a = arr[0], .b = arr[1], .c = arr[2], .d = arr[3]};
}

/* thomas and thomas_cpu on the same batch: the same status, system, row
 * and message, and solutions within LAPACK's ratio where both solved. */
static void expect_same_as_thomas(hostile *h, const char *what)
{
  size_t count = h->p.sys.n * h->p.sys.nsys;
  double *xr = calloc(count, sizeof *xr), *xo = calloc(count + 1, sizeof *xo);
  tl_info ir, io;
  int sr = tl_solve(tl_find("thomas"), &h->p.sys, xr, NULL, &ir);
  int so = tl_solve(tl_find("thomas_cpu"), &h->p.sys, xo + 1, NULL, &io); /* unaligned x */
  cr_expect_eq(so, sr, "%s: thomas %s, thomas_cpu %s (%s)", what, tl_status_name(sr),
               tl_status_name(so), io.msg);
  cr_expect_eq(io.system, ir.system, "%s: system %ld, thomas %ld", what, io.system, ir.system);
  cr_expect_eq(io.row, ir.row, "%s: row %ld, thomas %ld", what, io.row, ir.row);
  cr_expect_str_eq(io.msg, ir.msg, "%s", what);
  if (sr == TL_OK && so == TL_OK) {
    double r = ferr_ratio(&h->p, xo + 1, xr, TL_EPS);
    cr_expect_lt(r, TL_THRESH, "%s: ratio %g", what, r);
  }
  free(xr), free(xo);
}

/* The checks fused into thomas_cpu's pass find what tl_solve's separate
 * checks and thomas find: a non-finite entry (each array), a non-zero
 * corner, a zero pivot, a row that is not dominant (outside the domain),
 * an overflow -- at the first, a middle and the last row of the first, a middle and
 * the last system of an n x nsys batch in unaligned arrays. */
static void fused_checks_case(size_t n, size_t nsys)
{
  size_t sys_at[3] = {0, nsys / 2, nsys - 1}, row_at[3] = {0, n / 2, n - 1};
  for (int kind = 0; kind < 8; kind++)
    for (int ws = 0; ws < 3; ws++)
      for (int wr = 0; wr < 3; wr++) {
        hostile h;
        hostile_make(&h, n, nsys, (size_t)(kind + ws + wr) % 3,
                     (unsigned)(kind * 9 + ws * 3 + wr));
        size_t s = sys_at[ws], i = row_at[wr], q = s * n + i;
        double *a = (double *)h.p.a, *b = (double *)h.p.b, *c = (double *)h.p.c;
        double *d = (double *)h.p.d;
        switch (kind) {
        case 0: a[q] = NAN; break;
        case 1: b[q] = INFINITY; break;
        case 2: c[q] = -INFINITY; break;
        case 3: d[q] = NAN; break;
        case 4: /* a corner: a[0] or c[n-1] */
          if (wr == 0)
            a[s * n] = 0.5;
          else
            c[s * n + n - 1] = 0.5;
          break;
        case 5: /* a zero pivot at row i: p_i = b_i - a_i c'_{i-1} = 0 */
          a[q] = i ? 0.0 : a[q];
          b[q] = 0.0;
          break;
        case 6: /* not dominant at row i, still solvable */ b[q] = 0.1; break;
        default: /* x overflows at row i */
          b[q] = 1e-300;
          d[q] = 1e300;
          break;
        }
        char what[96];
        snprintf(what, sizeof what, "kind %d n %zu nsys %zu system %zu row %zu", kind, n, nsys,
                 s, i);
        expect_same_as_thomas(&h, what);
        free(h.mem);
      }
}

/* Small batches (in cache): n not a multiple of the tile, nsys not a
 * multiple of SZ; n = 64, whose last tile is whole (its corner c[n-1]
 * and last column margin taken in registers), in arrays 0 to 2 doubles
 * past a boundary (a short first tile for 1 and 2). */
Test(cpu_registry, thomas_cpu_fused_checks_find_what_thomas_finds, .timeout = 120)
{
  static const size_t ns[] = {1, 2, 37, 64, 300};
  static const size_t nsyss[] = {1, 13, 70};
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
    for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++)
      fused_checks_case(ns[in], nsyss[ic]);
}

/* Batches beyond 2 MiB (thomas_cpu takes SZ = 8, the group size for
 * lines, at every size): the same checks, nsys not a multiple of 8. */
Test(cpu_registry, thomas_cpu_fused_checks_on_a_large_batch, .timeout = 120)
{
  cr_assert_eq(tl_cpu_sz_lines(37, sizeof(double)), 8);
  fused_checks_case(37, 1501);
  fused_checks_case(300, 181);
}

/* thomas_periodic_cpu skips tl_solve's entry check too: a non-finite
 * entry, or a row that is not dominant (kind 4), at the first, a middle
 * and the last row of the first, a middle and the last system is
 * reported as thomas_periodic reports it. */
Test(cpu_registry, thomas_periodic_cpu_finds_non_finite_entries, .timeout = 60)
{
  static const size_t ns[] = {1, 2, 3, 37};
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
    for (int kind = 0; kind < 5; kind++)
      for (int w = 0; w < 9; w++) {
        size_t n = ns[in], nsys = 13, s = (size_t)(w / 3) * (nsys - 1) / 2;
        size_t i = (size_t)(w % 3) * (n - 1) / 2;
        hostile h;
        hostile_make(&h, n, nsys, 1, (unsigned)(kind * 9 + w));
        h.p.sys.periodic = 1;
        double *arr[4] = {(double *)h.p.a, (double *)h.p.b, (double *)h.p.c, (double *)h.p.d};
        if (kind < 4)
          arr[kind][s * n + i] = kind % 2 ? INFINITY : NAN;
        else
          arr[1][s * n + i] = 0.1;
        double *xr = calloc(n * nsys, sizeof *xr), *xo = calloc(n * nsys, sizeof *xo);
        tl_info ir, io;
        int sr = tl_solve(tl_find("thomas_periodic"), &h.p.sys, xr, NULL, &ir);
        int so = tl_solve(tl_find("thomas_periodic_cpu"), &h.p.sys, xo, NULL, &io);
        cr_expect_eq(so, sr, "n %zu kind %d at %zu/%zu: %s", n, kind, s, i, io.msg);
        cr_expect_eq(io.system, ir.system, "n %zu kind %d", n, kind);
        cr_expect_eq(io.row, ir.row, "n %zu kind %d", n, kind);
        cr_expect_str_eq(io.msg, ir.msg, "n %zu kind %d", n, kind);
        if (sr == TL_OK && so == TL_OK) {
          double r = ferr_ratio(&h.p, xo, xr, TL_EPS);
          cr_expect_lt(r, TL_THRESH, "n %zu kind %d: ratio %g", n, kind, r);
        }
        free(xr), free(xo), free(h.mem);
      }
}

/* thomas_3d along x on hostile shapes: odd n, n not a multiple of the
 * tile, a batch count that is not a multiple of SZ, unaligned arrays,
 * double and float, every SZ; n a multiple of the tile in arrays 1 to 7
 * doubles (a float more) past a 64-byte boundary, where the tiles start
 * on the lines' cache-line boundaries (a short first tile); a breakdown
 * in a middle line is reported with its line and row. */
Test(cpu_thomas, x_lines_hostile_shapes, .timeout = 120)
{
  static const size_t ns[] = {1, 3, 31, 33, 65, 129, 301, 8, 16, 48, 64, 256};
  static const size_t nsyss[] = {1, 9, 67};
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
    for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++) {
      size_t n = ns[in], nsys = nsyss[ic], count = n * nsys, sz = all_sz[(in + ic) % NSZ];
      size_t dims[3] = {n, nsys, 1};
      hostile h;
      hostile_make(&h, n, nsys, 1 + (in + ic) % 7, (unsigned)(in * 7 + ic));
      double *xref = ref_solution(&h.p), *x = malloc((count + 1) * sizeof *x);
      tl_info info;
      cr_assert_eq(tl_cpu_thomas_3d_d(dims, TL_DIR_X, sz, h.p.a, h.p.b, h.p.c, h.p.d, x + 1, &info),
                   TL_OK, "n %zu nsys %zu sz %zu: %s", n, nsys, sz, info.msg);
      double r = ferr_ratio(&h.p, x + 1, xref, TL_EPS);
      cr_expect_lt(r, TL_THRESH, "double n %zu nsys %zu sz %zu: %g", n, nsys, sz, r);
      float *fm = malloc((5 * count + 5) * sizeof *fm);
      float *fa = fm + 1, *fb = fa + count, *fc = fb + count, *fd = fc + count, *fx = fd + count;
      const double *da = h.p.a, *db = h.p.b, *dc = h.p.c, *dd = h.p.d;
      for (size_t q = 0; q < count; q++) {
        fa[q] = (float)da[q], fb[q] = (float)db[q];
        fc[q] = (float)dc[q], fd[q] = (float)dd[q];
      }
      cr_assert_eq(tl_cpu_thomas_3d_f(dims, TL_DIR_X, sz, fa, fb, fc, fd, fx, &info), TL_OK);
      for (size_t q = 0; q < count; q++)
        x[q + 1] = fx[q];
      r = ferr_ratio(&h.p, x + 1, xref, EPS_F);
      cr_expect_lt(r, TL_THRESH, "float n %zu nsys %zu sz %zu: %g", n, nsys, sz, r);
      if (n > 2 && nsys > 2) { /* a zero pivot in the middle of a middle line */
        size_t s = nsys / 2, i = n / 2;
        ((double *)h.p.b)[s * n + i] = 0;
        ((double *)h.p.a)[s * n + i] = 0;
        cr_expect_eq(
            tl_cpu_thomas_3d_d(dims, TL_DIR_X, sz, h.p.a, h.p.b, h.p.c, h.p.d, x + 1, &info),
            TL_ERR_BREAKDOWN);
        cr_expect_eq(info.system, (long)s, "n %zu nsys %zu", n, nsys);
        cr_expect_eq(info.row, (long)i, "n %zu nsys %zu", n, nsys);
      }
      free(xref), free(x), free(fm), free(h.mem);
    }
}

/* Along x, whole tiles of a group of 8 lines run in registers and the
 * rest (a short first tile, the last rows, a group of fewer lines)
 * through tiles on the stack; both are the recurrence the y kernel runs
 * on adjacent systems. So x (thomas_3d in double and float, and the
 * registry's tl_cpu_thomas_lines_d, its checks on) must give the y
 * kernel's bits on the transposed batch: n around and at multiples of
 * the tile, 8, 9 and 17 lines, the arrays 0 to 7 elements past a 64-byte
 * boundary. */
Test(cpu_thomas, x_register_tiles_are_the_bits_of_y, .timeout = 120)
{
  static const size_t ns[] = {7, 8, 9, 16, 23, 64, 257, 1024};
  /* 17 and 40: groups two at a time on one or two threads (lines_pairs),
   * a pair with a short group (9, 17 on one thread); the threads set, so
   * that a thread holds two groups on a machine of many cores too */
  static const size_t nsyss[] = {8, 9, 17, 40};
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
    for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++)
      for (size_t skew = 0; skew < 8; skew++) {
        size_t n = ns[in], nsys = nsyss[ic], count = n * nsys;
        size_t xdims[3] = {n, nsys, 1}, ydims[3] = {nsys, n, 1};
        tl_cpu_set_threads(1 + (int)(skew % 2)); /* each shape on one and two threads */
        hostile h;
        hostile_make(&h, n, nsys, skew, (unsigned)(100 + in * 31 + ic * 7 + skew));
        double *y = malloc(5 * count * sizeof *y), *x = malloc(2 * count * sizeof *x);
        double *xl = x + count;
        const double *src[4] = {h.p.a, h.p.b, h.p.c, h.p.d};
        for (int k = 0; k < 4; k++) /* row i of line s at s + nsys i */
          for (size_t s = 0; s < nsys; s++)
            for (size_t i = 0; i < n; i++)
              y[k * count + s + nsys * i] = src[k][s * n + i];
        double *ya = y, *yb = y + count, *yc = y + 2 * count, *yd = y + 3 * count;
        double *yx = y + 4 * count;
        unsigned char *flag = calloc(nsys, 1);
        tl_info info;
        cr_assert_eq(tl_cpu_thomas_3d_d(ydims, TL_DIR_Y, 8, ya, yb, yc, yd, yx, &info), TL_OK);
        cr_assert_eq(tl_cpu_thomas_3d_d(xdims, TL_DIR_X, 8, h.p.a, h.p.b, h.p.c, h.p.d, x, &info),
                     TL_OK);
        cr_assert_eq(tl_cpu_thomas_lines_d(n, nsys, h.p.a, h.p.b, h.p.c, h.p.d, xl, flag, &info),
                     TL_OK);
        size_t diff = 0, diffl = 0, flagged = 0;
        for (size_t s = 0; s < nsys; s++) {
          flagged += flag[s] != 0;
          for (size_t i = 0; i < n; i++) {
            double v = yx[s + nsys * i];
            diff += memcmp(&x[s * n + i], &v, sizeof v) != 0;
            diffl += memcmp(&xl[s * n + i], &v, sizeof v) != 0;
          }
        }
        cr_expect_eq(diff, 0, "thomas_3d x, n %zu nsys %zu skew %zu: %zu values differ", n,
                     nsys, skew, diff);
        cr_expect_eq(diffl, 0, "thomas_lines, n %zu nsys %zu skew %zu: %zu values differ", n,
                     nsys, skew, diffl);
        cr_expect_eq(flagged, 0, "n %zu nsys %zu skew %zu: dominant systems flagged", n, nsys,
                     skew);
        /* float: whole tiles of 16 rows, the lines 0 to 7 floats past a boundary */
        float *fm = aligned_alloc(64, ((5 * count + 16) * sizeof(float) + 63) / 64 * 64);
        float *fx = fm + skew, *ya2 = malloc(5 * count * sizeof *ya2);
        for (int k = 0; k < 4; k++)
          for (size_t s = 0; s < nsys; s++)
            for (size_t i = 0; i < n; i++)
              fx[k * count + s * n + i] = ya2[k * count + s + nsys * i] =
                  (float)src[k][s * n + i];
        cr_assert_eq(tl_cpu_thomas_3d_f(ydims, TL_DIR_Y, 8, ya2, ya2 + count, ya2 + 2 * count,
                                        ya2 + 3 * count, ya2 + 4 * count, &info),
                     TL_OK);
        cr_assert_eq(tl_cpu_thomas_3d_f(xdims, TL_DIR_X, 8, fx, fx + count, fx + 2 * count,
                                        fx + 3 * count, fx + 4 * count, &info),
                     TL_OK);
        size_t difff = 0;
        for (size_t s = 0; s < nsys; s++)
          for (size_t i = 0; i < n; i++)
            difff += memcmp(&fx[4 * count + s * n + i], &ya2[4 * count + s + nsys * i],
                            sizeof(float)) != 0;
        cr_expect_eq(difff, 0, "float thomas_3d x, n %zu nsys %zu skew %zu: %zu values differ", n,
                     nsys, skew, difff);
        free(fm), free(ya2);
        free(y), free(x), free(flag), free(h.mem);
      }
  tl_cpu_set_threads(0);
}

/* The registry's flags from whole tiles in registers: a batch of 8
 * aligned systems (one whole group; whole first and, for n a multiple of
 * 8, last tiles), one case per system, each flag asserted, then each
 * system solved alone (a group of one line: the stack tiles), which must
 * give the same flag and the same bits. */
Test(cpu_registry, thomas_lines_flags_from_whole_tiles, .timeout = 60)
{
  static const size_t ns[] = {8, 16, 37, 64};
  static const unsigned char want[8] = {3, 3, 2, 2, 1, 1, 1, 0};
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
    size_t n = ns[in], nsys = 8, count = n * nsys;
    hostile h;
    hostile_make(&h, n, nsys, 0, (unsigned)(500 + in));
    double *a = (double *)h.p.a, *b = (double *)h.p.b, *c = (double *)h.p.c;
    double *d = (double *)h.p.d;
    a[0 * n] = 0.5;                                         /* a corner a[0]                */
    c[1 * n + n - 1] = INFINITY;                            /* a corner c[n-1], not finite  */
    b[2 * n] = 0.1, c[2 * n] = 0.4, a[2 * n + 1] = 0.4;     /* row and column 0 not dominant */
    b[3 * n + n - 1] = 0.1, a[3 * n + n - 1] = 0.4;         /* the last row and column      */
    c[3 * n + n - 2] = 0.4;
    a[4 * n + (n > 9 ? 9 : n - 1)] = NAN;                   /* a NaN inside a tile          */
    b[5 * n + n / 2] = 0.0, a[5 * n + n / 2] = 0.0;         /* a zero pivot                 */
    b[6 * n + n / 2] = -0.0, a[6 * n + n / 2] = 0.0;        /* a zero pivot of sign -       */
    double *x = malloc(count * sizeof *x), *x1 = malloc(n * sizeof *x1);
    unsigned char flag[8], f1;
    tl_info info;
    cr_assert_eq(tl_cpu_thomas_lines_d(n, nsys, a, b, c, d, x, flag, &info), TL_OK);
    for (size_t s = 0; s < nsys; s++) {
      cr_expect_eq(flag[s], want[s], "n %zu system %zu: flag %d, want %d", n, s, flag[s], want[s]);
      size_t o = s * n;
      cr_assert_eq(tl_cpu_thomas_lines_d(n, 1, a + o, b + o, c + o, d + o, x1, &f1, &info), TL_OK);
      cr_expect_eq(f1, flag[s], "n %zu system %zu alone: flag %d, in the group %d", n, s, f1,
                   flag[s]);
      cr_expect_eq(memcmp(x1, x + o, n * sizeof *x1), 0, "n %zu system %zu: other bits alone", n,
                   s);
    }
    free(x), free(x1), free(h.mem);
  }
  /* thomas_3d along x reports a zero pivot in a whole tile with its line and row. */
  hostile h;
  size_t n = 64, nsys = 16, dims[3] = {64, 16, 1};
  hostile_make(&h, n, nsys, 0, 77);
  ((double *)h.p.b)[5 * n + 40] = 0.0, ((double *)h.p.a)[5 * n + 40] = 0.0;
  double *x = malloc(n * nsys * sizeof *x);
  tl_info info;
  cr_expect_eq(tl_cpu_thomas_3d_d(dims, TL_DIR_X, 8, h.p.a, h.p.b, h.p.c, h.p.d, x, &info),
               TL_ERR_BREAKDOWN);
  cr_expect_eq(info.system, 5);
  cr_expect_eq(info.row, 40);
  free(x), free(h.mem);
}

/* ------------------------------------------------------------------ */
/* Periodic Thomas on SZ-packed data                                    */

Test(cpu_periodic, packed_matches_reference, .timeout = 120)
{
  static const int types[] = {50, 51, 52, 53, 54, 55};
  static const size_t ns[] = {3, 4, 5, 17, 100, 257};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
      size_t n = ns[in], nsys = 13 + 10 * in, sz = all_sz[(t + in) % NSZ];
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(types[t], n, nsys, 4, &p, &info), TL_OK);
      double *xref = malloc(n * nsys * sizeof *xref), *x = malloc(n * nsys * sizeof *x);
      const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
      for (size_t s = 0; s < nsys; s++)
        cr_assert_geq(tl_thomas_periodic_ref_d(n, a + s * n, b + s * n, c + s * n, d + s * n,
                                               xref + s * n, &info),
                      0);
      double *pa = packed(&p, p.a, sz, 0), *pb = packed(&p, p.b, sz, 1);
      double *pc = packed(&p, p.c, sz, 0), *pd = packed(&p, p.d, sz, 0);
      size_t cnt = tl_cpu_packed_count(n, nsys, sz);
      float *fa = to_float(pa, cnt), *fb = to_float(pb, cnt), *fc = to_float(pc, cnt);
      float *fd = to_float(pd, cnt), *xf = malloc(n * nsys * sizeof *xf);
      cr_assert_eq(tl_cpu_thomas_periodic_sz_d(n, nsys, sz, pa, pb, pc, pd, &info), TL_OK,
                   "type %d n %zu: %s", types[t], n, info.msg);
      tl_cpu_unpack_batch_d(n, nsys, sz, pd, x, &info);
      double r = ferr_ratio(&p, x, xref, TL_EPS);
      cr_expect_lt(r, TL_THRESH, "type %d n %zu sz %zu: %g", types[t], n, sz, r);
      cr_assert_eq(tl_cpu_thomas_periodic_sz_f(n, nsys, sz, fa, fb, fc, fd, &info), TL_OK);
      tl_cpu_unpack_batch_f(n, nsys, sz, fd, xf, &info);
      for (size_t q = 0; q < n * nsys; q++)
        x[q] = xf[q];
      r = ferr_ratio(&p, x, xref, EPS_F);
      cr_expect_lt(r, TL_THRESH, "float type %d n %zu sz %zu: %g", types[t], n, sz, r);
      free(xref), free(x), free(pa), free(pb), free(pc), free(pd);
      free(fa), free(fb), free(fc), free(fd), free(xf);
      tl_problem_free(&p);
    }
}

/* The registry path reads groups of 8 lines in tiles transposed into
 * registers: on strictly dominant batches (which it solves itself) its
 * x must be the packed kernel's (here at tl_cpu_sz_default's SZ: the
 * lanes are independent), bit for bit, whole tiles or not. A change to
 * its reading or writing of the lines that moves a value fails here. */
static int strictly_dominant(const tl_problem *p)
{
  size_t count = p->sys.n * p->sys.nsys;
  const double *a = p->a, *b = p->b, *c = p->c;
  for (size_t q = 0; q < count; q++)
    if (!(fabs(b[q]) - (fabs(a[q]) + fabs(c[q])) > 0))
      return 0;
  return 1;
}

Test(cpu_periodic, registry_path_is_the_packed_kernels_bits, .timeout = 120)
{
  static const int types[] = {50, 51, 52, 53, 54, 55};
  static const size_t ns[] = {3, 7, 8, 9, 16, 17, 100, 257, 1024};
  static const size_t nsyss[] = {5, 16, 17, 40};
  const tl_algorithm *opt = tl_find("thomas_periodic_cpu");
  cr_assert_not_null(opt);
  size_t compared = 0;
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
      for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++) {
        size_t n = ns[in], nsys = nsyss[ic], sz = tl_cpu_sz_default(n, sizeof(double));
        tl_problem p;
        tl_info info;
        if (tl_gallery_make(types[t], n, nsys, 5 + ic, &p, &info) != TL_OK)
          continue;
        if (!strictly_dominant(&p)) {
          tl_problem_free(&p);
          continue;
        }
        double *x = malloc(n * nsys * sizeof *x), *xp = malloc(n * nsys * sizeof *xp);
        cr_assert_eq(tl_solve(opt, &p.sys, x, NULL, &info), TL_OK, "type %d n %zu: %s", types[t],
                     n, info.msg);
        double *pa = packed(&p, p.a, sz, 0), *pb = packed(&p, p.b, sz, 1);
        double *pc = packed(&p, p.c, sz, 0), *pd = packed(&p, p.d, sz, 0);
        cr_assert_eq(tl_cpu_thomas_periodic_sz_d(n, nsys, sz, pa, pb, pc, pd, &info), TL_OK);
        tl_cpu_unpack_batch_d(n, nsys, sz, pd, xp, &info);
        size_t diff = 0;
        for (size_t q = 0; q < n * nsys; q++)
          diff += memcmp(&x[q], &xp[q], sizeof x[q]) != 0;
        cr_expect_eq(diff, 0, "type %d n %zu nsys %zu: %zu values differ", types[t], n, nsys,
                     diff);
        compared++;
        free(x), free(xp), free(pa), free(pb), free(pc), free(pd);
        tl_problem_free(&p);
      }
  cr_expect_geq(compared, 40, "only %zu dominant batches compared", compared);
}

Test(cpu_periodic, singular_system_is_a_breakdown)
{
  size_t n = 12, nsys = 9, sz = 8;
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(56, n, nsys, 1, &p, &info), TL_OK); /* cyclic (-1, 2, -1) */
  double *pa = packed(&p, p.a, sz, 0), *pb = packed(&p, p.b, sz, 1);
  double *pc = packed(&p, p.c, sz, 0), *pd = packed(&p, p.d, sz, 0);
  cr_expect_eq(tl_cpu_thomas_periodic_sz_d(n, nsys, sz, pa, pb, pc, pd, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.system, 0);
  cr_expect_eq(tl_cpu_thomas_periodic_sz_d(2, nsys, sz, pa, pb, pc, pd, &info), TL_ERR_ARG);
  free(pa), free(pb), free(pc), free(pd);
  tl_problem_free(&p);
}

/* ------------------------------------------------------------------ */
/* The fused compact solve and the DistD2 phases                        */

/* Largest relative difference over the batch, in units of eps. */
static double rel_diff(size_t count, const double *x, const double *xref, double eps)
{
  double num = 0, den = 0;
  for (size_t k = 0; k < count; k++) {
    num = fmax(num, fabs(x[k] - xref[k]));
    den = fmax(den, fabs(xref[k]));
  }
  return num / den / eps;
}

Test(cpu_compact, fused_solve_matches_distd2_reference, .timeout = 60)
{
  static const size_t ns[] = {3, 5, 16, 33, 100, 256};
  for (int periodic = 0; periodic <= 1; periodic++)
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
      size_t n = ns[in], nsys = 5 + 7 * in, sz = all_sz[in % NSZ];
      double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
      double st[5];
      th_lele6(n, periodic, a, b, c, st, TWO_PI / (double)n);
      tl_distd2_plan plan;
      tl_info info;
      cr_assert_eq(tl_distd2_plan_create_d(&plan, n, periodic, 1, NULL, a, b, c, &info), TL_OK);
      double *u = malloc(n * nsys * sizeof *u), *xref = malloc(n * nsys * sizeof *xref);
      for (size_t s = 0; s < nsys; s++)
        for (size_t i = 0; i < n; i++)
          u[s * n + i] =
              sin(TWO_PI * (double)i / (double)n * (double)(1 + s % 3)) + 0.1 * (double)s;
      for (size_t s = 0; s < nsys; s++)
        cr_assert_geq(
            tl_distd2_plan_solve_stencil_d(&plan, st, u + s * n, xref + s * n, 1.0, &info), 0);
      size_t cnt = tl_cpu_packed_count(n, nsys, sz);
      double *pu = malloc(cnt * sizeof *pu), *pdu = malloc(cnt * sizeof *pdu);
      double *x = malloc(n * nsys * sizeof *x);
      tl_cpu_pack_batch_d(n, nsys, sz, u, pu, 0, &info);
      cr_assert_eq(tl_cpu_compact_sz_d(&plan, st, nsys, sz, pu, pdu, &info), TL_OK, "%s", info.msg);
      tl_cpu_unpack_batch_d(n, nsys, sz, pdu, x, &info);
      double r = rel_diff(n * nsys, x, xref, TL_EPS);
      cr_expect_lt(r, 64, "periodic %d n %zu sz %zu: %g eps", periodic, n, sz, r);
      /* float */
      float *fu = to_float(pu, cnt), *fdu = malloc(cnt * sizeof *fdu);
      float *xf = malloc(n * nsys * sizeof *xf);
      cr_assert_eq(tl_cpu_compact_sz_f(&plan, st, nsys, sz, fu, fdu, &info), TL_OK);
      tl_cpu_unpack_batch_f(n, nsys, sz, fdu, xf, &info);
      for (size_t q = 0; q < n * nsys; q++)
        x[q] = xf[q];
      /* Rounding u to float alone changes du by eps |st|_1 |u| / |du| relative
       * (the stencil differences cancel): that is the unit here. */
      double st1 = 0, umax = 0, dumax = 0;
      for (int q = 0; q < 5; q++)
        st1 += fabs(st[q]);
      for (size_t q = 0; q < n * nsys; q++) {
        umax = fmax(umax, fabs(u[q]));
        dumax = fmax(dumax, fabs(xref[q]));
      }
      r = rel_diff(n * nsys, x, xref, EPS_F * st1 * umax / dumax);
      cr_expect_lt(r, 64, "float periodic %d n %zu: %g", periodic, n, r);
      tl_distd2_plan_destroy(&plan);
      free(a), free(b), free(c), free(u), free(xref), free(pu), free(pdu), free(x);
      free(fu), free(fdu), free(xf);
    }
}

/* The derivative of sin is cos to 6th order: the fused solve is a compact
 * scheme, not only a linear solve. */
Test(cpu_compact, sixth_order_derivative)
{
  double err[2];
  for (int k = 0; k < 2; k++) {
    size_t n = k ? 64 : 32, nsys = 8, sz = 8;
    double h = TWO_PI / (double)n, st[5];
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    th_lele6(n, 1, a, b, c, st, h);
    tl_distd2_plan plan;
    tl_info info;
    cr_assert_eq(tl_distd2_plan_create_d(&plan, n, 1, 1, NULL, a, b, c, &info), TL_OK);
    double *u = malloc(n * sz * sizeof *u), *du = malloc(n * sz * sizeof *du);
    for (size_t i = 0; i < n; i++)
      for (size_t l = 0; l < sz; l++)
        u[i * sz + l] = sin((double)i * h);
    cr_assert_eq(tl_cpu_compact_sz_d(&plan, st, nsys, sz, u, du, &info), TL_OK);
    err[k] = 0;
    for (size_t i = 0; i < n; i++)
      err[k] = fmax(err[k], fabs(du[i * sz + 3] - cos((double)i * h)));
    tl_distd2_plan_destroy(&plan);
    free(a), free(b), free(c), free(u), free(du);
  }
  double order = log(err[0] / err[1]) / log(2.0);
  cr_expect_gt(order, 5.8, "observed order %g (errors %g, %g)", order, err[0], err[1]);
}

Test(cpu_distd2, phases_match_reference, .timeout = 60)
{
  static const int parts[] = {1, 2, 3, 4, 7};
  static const int types[] = {22, 53, 20, 50};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t ip = 0; ip < sizeof parts / sizeof parts[0]; ip++) {
      size_t n = 101, nsys = 19, sz = all_sz[(t + ip) % NSZ];
      int P = parts[ip];
      tl_problem p;
      tl_info info, ir;
      cr_assert_eq(tl_gallery_make(types[t], n, nsys, 8, &p, &info), TL_OK);
      /* one matrix for the batch: system 0's, with every system's d */
      const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
      tl_distd2_plan plan;
      cr_assert_eq(tl_distd2_plan_create_d(&plan, n, p.sys.periodic, P, NULL, a, b, c, &info),
                   TL_OK);
      double *xref = malloc(n * nsys * sizeof *xref), *x = malloc(n * nsys * sizeof *x);
      int sref = TL_OK;
      double dropped = 0;
      for (size_t s = 0; s < nsys; s++) {
        tl_info_clear(&ir);
        int st = tl_distd2_plan_solve_d(&plan, d + s * n, xref + s * n, TL_DISTD2_DEFAULT_TOL, &ir);
        if (st != TL_OK && sref == TL_OK)
          sref = st;
        dropped = fmax(dropped, ir.dropped);
      }
      double *pd = packed(&p, p.d, sz, 0);
      size_t cnt = tl_cpu_packed_count(n, nsys, sz);
      double *px = malloc(cnt * sizeof *px);
      int so = tl_cpu_distd2_solve_sz_d(&plan, nsys, sz, pd, px, TL_DISTD2_DEFAULT_TOL, &info);
      cr_expect_eq(so, sref, "type %d P %d: %s vs %s", types[t], P, tl_status_name(so),
                   tl_status_name(sref));
      cr_expect_eq(info.dropped, dropped, "type %d P %d", types[t], P);
      tl_cpu_unpack_batch_d(n, nsys, sz, px, x, &info);
      double r = rel_diff(n * nsys, x, xref, TL_EPS);
      cr_expect_lt(r, 64, "type %d P %d sz %zu: %g eps", types[t], P, sz, r);
      /* float: the same status and dropped coupling (the plan is double),
       * the solution within float's eps-scaled ratio */
      float *fd = to_float(pd, cnt), *fx = malloc(cnt * sizeof *fx);
      float *xf = malloc(n * nsys * sizeof *xf);
      so = tl_cpu_distd2_solve_sz_f(&plan, nsys, sz, fd, fx, TL_DISTD2_DEFAULT_TOL, &info);
      cr_expect_eq(so, sref, "float type %d P %d", types[t], P);
      cr_expect_eq(info.dropped, dropped, "float type %d P %d", types[t], P);
      tl_cpu_unpack_batch_f(n, nsys, sz, fx, xf, &info);
      for (size_t q2 = 0; q2 < n * nsys; q2++)
        x[q2] = xf[q2];
      r = rel_diff(n * nsys, x, xref, EPS_F);
      cr_expect_lt(r, 64, "float type %d P %d sz %zu: %g eps_f", types[t], P, sz, r);
      free(fd), free(fx), free(xf);
      /* the fused-stencil decoupling of one partition against the reference's */
      double st5[5] = {-0.1, -0.7, 0.05, 0.7, 0.1};
      int q = P / 2;
      size_t k0 = plan.begin[q], m = plan.begin[q + 1] - k0, groups = (nsys + sz - 1) / sz;
      double *pu = pd, *uh = malloc(groups * (m + 4) * sz * sizeof *uh);
      double *dt = calloc(cnt, sizeof *dt), *dts = malloc(n * sizeof *dts);
      double *uh1 = malloc((m + 4) * sizeof *uh1);
      tl_cpu_distd2_halo_sz_d(&plan, q, nsys, sz, pu, uh);
      cr_assert_eq(tl_cpu_distd2_decouple_stencil_sz_d(&plan, q, st5, nsys, sz, uh, dt, &info),
                   TL_OK);
      /* the same in float */
      float *fu = to_float(pu, cnt), *fuh = malloc(groups * (m + 4) * sz * sizeof *fuh);
      float *fdt = calloc(cnt, sizeof *fdt);
      tl_cpu_distd2_halo_sz_f(&plan, q, nsys, sz, fu, fuh);
      cr_assert_eq(tl_cpu_distd2_decouple_stencil_sz_f(&plan, q, st5, nsys, sz, fuh, fdt, &info),
                   TL_OK);
      for (size_t s = 0; s < nsys; s += 5) {
        tl_distd2_halo_d(&plan, q, d + s * n, uh1);
        cr_assert_eq(tl_distd2_decouple_stencil_d(&plan, q, st5, uh1, dts, &info), TL_OK);
        for (size_t j = k0; j < k0 + m; j++) {
          double v = dt[((s / sz) * n + j) * sz + s % sz];
          cr_expect_leq(fabs(v - dts[j]), 64 * TL_EPS * (fabs(dts[j]) + 1), "s %zu row %zu", s, j);
          double vf = fdt[((s / sz) * n + j) * sz + s % sz];
          cr_expect_leq(fabs(vf - dts[j]), 64 * EPS_F * (fabs(dts[j]) + 1), "float s %zu row %zu",
                        s, j);
        }
      }
      tl_distd2_plan_destroy(&plan);
      free(xref), free(x), free(pd), free(px), free(uh), free(dt), free(dts), free(uh1);
      free(fu), free(fuh), free(fdt);
      tl_problem_free(&p);
    }
}

/* A non-finite end value in the substitution is a breakdown of that
 * system, at the first row it reaches; every phase says which system. */
Test(cpu_distd2, substitution_overflow_names_the_system)
{
  size_t n = 40, nsys = 21, sz = 8;
  tl_problem p;
  tl_info info;
  tl_distd2_plan plan;
  th_distd2_gallery_plan(n, nsys, 2, &p, &plan);
  size_t cnt = tl_cpu_packed_count(n, nsys, sz);
  double *pd = packed(&p, p.d, sz, 0), *dt = malloc(cnt * sizeof *dt);
  double *x = malloc(cnt * sizeof *x), xf[21], xl[21];
  float *fdt = malloc(cnt * sizeof *fdt), *fx = malloc(cnt * sizeof *fx);
  for (size_t s = 0; s < nsys; s++)
    xf[s] = xl[s] = 1.0;
  xf[13] = INFINITY;
  xl[17] = NAN;
  cr_assert_eq(tl_cpu_distd2_decouple_sz_d(&plan, 1, nsys, sz, pd, dt, &info), TL_OK);
  cr_expect_eq(tl_cpu_distd2_substitute_sz_d(&plan, 1, nsys, sz, xf, xl, dt, x, &info),
               TL_ERR_BREAKDOWN);
  cr_expect_eq(info.system, 13, "%s", info.msg);
  cr_expect_eq(info.row, (long)plan.begin[1], "%s", info.msg);
  for (size_t q = 0; q < cnt; q++)
    fdt[q] = (float)dt[q];
  cr_expect_eq(tl_cpu_distd2_substitute_sz_f(&plan, 1, nsys, sz, xf, xl, fdt, fx, &info),
               TL_ERR_BREAKDOWN);
  cr_expect_eq(info.system, 13, "%s", info.msg);
  tl_distd2_plan_destroy(&plan);
  free(pd), free(dt), free(x), free(fdt), free(fx);
  tl_problem_free(&p);
}

/* A non-finite value made in the decoupling is a breakdown of the lowest
 * such system, at its first non-finite row; values that are all finite
 * but whose sum overflows (the kernel's per-lane check) are not. */
Test(cpu_distd2, decoupling_overflow_names_the_system)
{
  size_t n = 40, nsys = 21, sz = 8;
  tl_problem p;
  tl_info info;
  tl_distd2_plan plan;
  th_distd2_gallery_plan(n, nsys, 2, &p, &plan);
  size_t k0 = plan.begin[1], m = plan.begin[2] - k0;
  size_t cnt = tl_cpu_packed_count(n, nsys, sz);
  double *d = p.d;
  for (size_t j = 0; j < n; j++) /* system 4: d = 1 */
    d[4 * n + j] = 1.0;
  double *dt = malloc(cnt * sizeof *dt), *pd = packed(&p, p.d, sz, 0);
#define Y4(j) dt[((4 / sz) * n + k0 + (j)) * sz + 4 % sz] /* system 4's row k0 + j */
  /* System 4's d scaled so that its largest |y| is 1.75e308: each y finite,
   * their sum in row order (d = 1 gives y of sum 1.06 times the largest) not. */
  cr_assert_eq(tl_cpu_distd2_decouple_sz_d(&plan, 1, nsys, sz, pd, dt, &info), TL_OK);
  double big = 0;
  for (size_t j = 0; j < m; j++)
    big = fmax(big, fabs(Y4(j)));
  for (size_t j = 0; j < n; j++)
    d[4 * n + j] *= 1.75e308 / big;
  free(pd);
  pd = packed(&p, p.d, sz, 0);
  cr_assert_eq(tl_cpu_distd2_decouple_sz_d(&plan, 1, nsys, sz, pd, dt, &info), TL_OK, "%s",
               info.msg);
  /* the sum in the kernel's order: rows m-1, m-2, then m-3 .. 1, then 0 */
  double sum = Y4(m - 1) + Y4(m - 2);
  int finite = 1;
  for (size_t j = 0; j < m; j++)
    finite &= isfinite(Y4(j));
  for (size_t j = m - 2; j-- > 0;)
    sum += Y4(j);
  cr_assert(finite && !isfinite(sum), "system 4's y: all finite, the sum not (the test's premise)");
#undef Y4
  /* The first non-finite y row of system s of partition 1 (its global
   * row), or -1. */
#define FIRST_BAD(s, first)                                                                        \
  do {                                                                                             \
    (first) = -1;                                                                                  \
    for (size_t j_ = 0; j_ < m && (first) < 0; j_++)                                               \
      if (!isfinite(dt[(((s) / sz) * n + k0 + j_) * sz + (s) % sz]))                               \
        (first) = (long)(k0 + j_);                                                                 \
  } while (0)
  /* inf and NaN in rows of systems 13 and 17 (partition 1): 13 is named,
   * at its first non-finite row */
  double *pd2 = malloc(cnt * sizeof *pd2);
  memcpy(pd2, pd, cnt * sizeof *pd2);
  pd2[((13 / sz) * n + k0 + 3) * sz + 13 % sz] = INFINITY;
  pd2[((17 / sz) * n + k0 + 1) * sz + 17 % sz] = NAN;
  cr_expect_eq(tl_cpu_distd2_decouple_sz_d(&plan, 1, nsys, sz, pd2, dt, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.system, 13, "%s", info.msg);
  long first;
  FIRST_BAD(13, first);
  cr_expect_geq(first, 0);
  cr_expect_eq(info.row, first, "%s", info.msg);
  /* One non-finite row alone: an inf in d's row 0 reaches only y_0 (rows
   * 1 and 2 do not read it, the backward pass ends on it), a NaN in row
   * m-1 only y_{m-1} (the backward pass starts above it); each must still
   * reach its lane's sum. */
  for (int end = 0; end < 2; end++) {
    size_t s = end ? 10 : 6, row = end ? m - 1 : 0;
    memcpy(pd2, pd, cnt * sizeof *pd2);
    pd2[((s / sz) * n + k0 + row) * sz + s % sz] = end ? NAN : INFINITY;
    cr_expect_eq(tl_cpu_distd2_decouple_sz_d(&plan, 1, nsys, sz, pd2, dt, &info), TL_ERR_BREAKDOWN,
                 "row %zu", row);
    cr_expect_eq(info.system, (long)s, "%s", info.msg);
    cr_expect_eq(info.row, (long)(k0 + row), "%s", info.msg);
    FIRST_BAD(s, first);
    cr_expect_eq(first, (long)(k0 + row), "only row %zu of y is not finite", row);
    for (size_t j = 0; j < m; j++)
      if (j != row)
        cr_expect(isfinite(dt[((s / sz) * n + k0 + j) * sz + s % sz]), "row %zu", j);
  }
#undef FIRST_BAD
  free(pd2);
  tl_distd2_plan_destroy(&plan);
  free(pd), free(dt);
  tl_problem_free(&p);
}

/* ------------------------------------------------------------------ */
/* The streaming kernels and the bench command                          */

Test(cpu_stream, kernels_compute_what_they_say)
{
  size_t count = 1000;
  double a[1000], b[1000], c[1000], d[1000], e[1000];
  float fa[1000], fb[1000], fc[1000], fd[1000];
  for (size_t k = 0; k < count; k++) {
    a[k] = 0.5 + (double)k, b[k] = 2.0, c[k] = 0.25, d[k] = (double)k;
    fa[k] = (float)a[k], fb[k] = 2.0f, fc[k] = 0.25f, fd[k] = (float)d[k];
  }
  tl_cpu_stream_copy_d(count, a, e);
  cr_expect_arr_eq(e, a, sizeof a);
  tl_cpu_stream_abcd_d(count, a, b, c, d);
  tl_cpu_stream_abcd_f(count, fa, fb, fc, fd);
  for (size_t k = 0; k < count; k++) {
    double want = ((double)k - a[k] * 0.25) * 2.0;
    cr_expect_eq(d[k], want);
    cr_expect_eq(fd[k], (float)(((float)k - fa[k] * 0.25f) * 2.0f));
  }
  /* The stencil stream: one group of n = 10 rows, sz = 8, wrapping. */
  double st[5] = {1, 2, 3, 4, 5}, u[80], du[80];
  for (size_t q = 0; q < 80; q++)
    u[q] = (double)(q / 8);
  tl_cpu_stream_stencil_d(10, 1, 8, st, u, du);
  for (size_t i = 0; i < 10; i++) {
    double want = 1.0 * (double)((i + 8) % 10) + 2.0 * (double)((i + 9) % 10) + 3.0 * (double)i +
                  4.0 * (double)((i + 1) % 10) + 5.0 * (double)((i + 2) % 10);
    cr_expect_eq(du[i * 8 + 5], want, "row %zu", i);
  }
}

/* The command's output format (not its timings): tests never time. */
Test(cpu_bench, command_writes_the_documented_csv, .timeout = 60)
{
  const char *cli = cli_path();
  char cmd[1024], line[1024];
  snprintf(cmd, sizeof cmd,
           "%s bench --kernels thomas_sz,thomas_3d,compact_sz --sizes 64 --unknowns 8192 "
           "--threads 1 --reps 1 --quiet",
           cli);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  cr_assert_not_null(fgets(line, sizeof line, p));
  cr_expect_eq(strncmp(line, "kernel,n,dir,precision,threads,", 31), 0, "header: %s", line);
  cr_expect_not_null(strstr(line, ",gbs,copy_gbs,copy_ratio,limit_gbs,limit_ratio,"));
  cr_expect_not_null(strstr(line, "speedup_ref,speedup_gtsv"));
  int rows = 0;
  while (fgets(line, sizeof line, p))
    rows++;
  cr_expect_eq(pclose(p), 0);
  cr_expect_eq(rows, 2 * (1 + 3 + 1), "double and float, thomas_sz + 3 directions + compact");
  /* Every kernel once, and the summary of the targets into a file. */
  char summary[] = "/tmp/tridlab-bench-summary-XXXXXX";
  int fd = mkstemp(summary);
  cr_assert_geq(fd, 0);
  close(fd);
  snprintf(cmd, sizeof cmd,
           "%s bench --sizes 64 --unknowns 4096 --threads 1 --reps 1 --precision double "
           "--quiet --summary %s",
           cli, summary);
  p = popen(cmd, "r");
  cr_assert_not_null(p);
  rows = 0;
  int seen_gtsv = 0, seen_ref = 0;
  while (fgets(line, sizeof line, p)) {
    rows++;
    seen_gtsv |= !strncmp(line, "gtsv_loop,", 10);
    seen_ref |= !strncmp(line, "thomas_ref_loop,", 16);
  }
  cr_expect_eq(pclose(p), 0);
  cr_expect_eq(rows, 1 + 16, "header + 1 + 3 + 3 + 3 + 1 + 1 + 1 + 1 + 1 + 1 rows");
  cr_expect(seen_gtsv && seen_ref);
  FILE *sf = fopen(summary, "r");
  cr_assert_not_null(sf);
  int has_target = 0;
  while (fgets(line, sizeof line, sf))
    has_target |= strstr(line, "thomas_sz limit_ratio") != NULL;
  fclose(sf);
  remove(summary);
  cr_expect(has_target, "the summary names the targets");
  snprintf(cmd, sizeof cmd, "%s bench --no-such-option 2>/dev/null", cli);
  cr_expect_neq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s bench --help >/dev/null", cli);
  cr_expect_eq(system(cmd), 0);
}

/* A pivot that a rounding decides: rows k and k+1 of system 3 set to
 * (a, b, c) = (0, 49, 49) and (1, 1, 0), a singular 2 x 2 block in a
 * weakly row-dominant matrix. thomas's pivot of row k+1 is 1 - 49 / 49 =
 * 0, a breakdown; one reciprocal gives 1 - 49 (1 / 49) = 1.1e-16. The
 * kernel must flag the lane and report what thomas reports: status,
 * system, row and message; with the block inside a whole tile (the tile
 * in registers: vcancelled, thomas_lines_cpu.c) and in the last, short
 * one (row_next's cancelled, thomas_group.h). Double only. */
Test(cpu_thomas, a_pivot_that_cancels_is_the_references_breakdown)
{
  const tl_algorithm *fast = tl_find("thomas_cpu"), *ref = tl_find("thomas");
  cr_assert(fast && ref);
  const size_t ns[] = {40, 45}, ks[] = {19, 41};
  for (int j = 0; j < 2; j++) {
    size_t n = ns[j], nsys = 16, k = ks[j];
    tl_problem p;
    tl_info info, rinfo;
    cr_assert_eq(tl_gallery_make(2, n, nsys, 5, &p, &info), TL_OK);
    double *a = (double *)p.sys.a + 3 * n, *b = (double *)p.sys.b + 3 * n;
    double *c = (double *)p.sys.c + 3 * n;
    a[k] = 0, b[k] = c[k] = 49, a[k + 1] = b[k + 1] = 1, c[k + 1] = 0;
    double *x = calloc(n * nsys, sizeof *x), *xr = calloc(n * nsys, sizeof *xr);
    tl_options opt;
    tl_options_init(&opt);
    int st = tl_solve(fast, &p.sys, x, &opt, &info);
    int rst = tl_solve(ref, &p.sys, xr, &opt, &rinfo);
    cr_expect(st == TL_ERR_BREAKDOWN && st == rst && info.system == rinfo.system &&
                  info.row == rinfo.row && !strcmp(info.msg, rinfo.msg),
              "n %zu: thomas_cpu %s (system %ld row %ld), thomas %s (system %ld row %ld)", n,
              tl_status_name(st), info.system, info.row, tl_status_name(rst), rinfo.system,
              rinfo.row);
    free(x), free(xr);
    tl_problem_free(&p);
  }
}
