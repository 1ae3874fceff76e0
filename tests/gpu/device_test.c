/* tests/gpu/device_test.c -- the GPU kernels on a real device against the
 * same kernels run on the host (docs/gpu.md). Built by `make gpu` with
 * the device object of nvcc or hipcc; run by `make check-gpu`.
 *
 * Without a device it prints "skipped" and exits 77, which is never
 * counted as a pass. With one, every kernel solves gallery batches of
 * several sizes on the device and on the host (emulated, three thread
 * orders are the Criterion tests' job): the status words must be equal
 * and the double answers bit-identical (the device build contracts no
 * a * b + c: -fmad=false); float answers within 4 ulps of the host's.
 * DistD2's slice kernels run twice: through the copying entry points and
 * with the slices kept on the device (tl_gpu_distd2_resident_*); PDD's
 * resident slices (tl_gpu_pdd_resident_*) and the compact scheme's
 * (tl_gpu_compact_resident_*) once.
 * Every output array starts as the same byte pattern on both paths
 * (prefilled), so that a word no kernel writes must come back as it
 * went on the device too.
 * The hybrid kernel runs twice: with its scratch in global memory and
 * on chip (tl_gpu_hybrid_chip). Prints "N passed, N failed"; exits 1 on
 * any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/cpu.h"
#include "tridlab/gpu.h"
#include "tridlab/part_distd2.h"
#include "tridlab/tridlab.h"
#include "slice_batch.h"

int tl_gpu_device_count(void);
const tl_gpu_device_ops *tl_gpu_device_ops_built(void);
int tl_gpu_dev_thomas_sz_d(size_t n, size_t nsys, const double *a, const double *b, const double *c,
                           double *d, int *stat, char *err, size_t len);
int tl_gpu_dev_thomas_periodic_sz_d(size_t n, size_t nsys, const double *a, const double *b,
                                    const double *c, double *d, int *stat, char *err, size_t len);
int tl_gpu_dev_pcr_d(size_t n, size_t nsys, const double *a, const double *b, const double *c,
                     const double *d, double *x, int *stat, char *err, size_t len);
int tl_gpu_dev_hybrid_pcr_d(size_t n, size_t nsys, int parts, const long *off, const double *a,
                            const double *b, const double *c, const double *d, double *x, int *stat,
                            char *err, size_t len);

static int passed, failed;

static void check(int ok, const char *what, size_t n, size_t nsys, const char *err)
{
  if (ok) {
    passed++;
    return;
  }
  failed++;
  printf("FAILED: %s n %zu nsys %zu %s\n", what, n, nsys, err);
}

/* The same bits in every entry, except that NaN equals NaN: a system
 * that broke down (its status words, compared first, say so) may hold
 * NaNs, and the default NaN of a device and of the host differ in sign
 * and payload. Otherwise the first difference goes to msg. */
static int same_answers(const double *xh, const double *xd, size_t len, char *msg, size_t cap)
{
  for (size_t k = 0; k < len; k++)
    if (memcmp(&xh[k], &xd[k], sizeof(double)) && !(isnan(xh[k]) && isnan(xd[k]))) {
      snprintf(msg, cap, "answers differ: entry %zu host %.17g device %.17g", k, xh[k], xd[k]);
      return 0;
    }
  return 1;
}

/* An output array as both paths get it: not zeros, which a fresh
 * device allocation holds too, but one byte pattern, so that a word the
 * kernel leaves unwritten comes back as it went on both paths or shows
 * up as a difference (gpu_device.cu). */
static void *prefilled(size_t count, size_t size)
{
  void *p = malloc(count * size);
  if (p)
    memset(p, 0x5a, count * size);
  return p;
}

/* One gallery batch through one kernel, on the device and on the host. */
static void compare(int kernel, int type, size_t n, size_t nsys)
{
  tl_problem p;
  tl_info info;
  if (tl_gallery_make(type, n, nsys, 5, &p, &info) != TL_OK)
    return;
  size_t len = kernel >= 2 ? n * nsys : tl_cpu_packed_count(n, nsys, TL_GPU_SZ);
  double *in[4], *xh = prefilled(len, sizeof(double)), *xd = prefilled(len, sizeof(double));
  double *w = calloc(2 * len, sizeof(double));
  int *sh = prefilled(nsys, TL_GPU_STAT_WORDS * sizeof(int));
  int *sd = prefilled(nsys, TL_GPU_STAT_WORDS * sizeof(int));
  const void *src[4] = {p.a, p.b, p.c, p.d};
  for (int k = 0; k < 4; k++) {
    in[k] = calloc(len, sizeof(double));
    if (kernel >= 2)
      memcpy(in[k], src[k], len * sizeof(double));
    else
      tl_cpu_pack_batch_d(n, nsys, TL_GPU_SZ, src[k], in[k], k == 1, NULL);
  }
  char err[256] = "";
  /* hybrid (3): 16 partitions from n = 64, with global scratch; hybrid
   * on chip (4): partitions of at most 8 rows */
  int rc, parts = kernel == 4 ? (int)((n + 7) / 8) : n >= 64 ? 16 : 1;
  long *off = malloc(((size_t)parts + 1) * sizeof *off);
  for (int p = 0; p <= parts; p++) /* even partitions, as tl_partition_bounds */
    if (p < parts) {
      size_t lo, hi;
      tl_partition_bounds(n, parts, NULL, p, &lo, &hi);
      off[p] = (long)lo;
      off[p + 1] = (long)hi;
    }
  tl_gpu_use_device(NULL); /* the tl_gpu_* entry points emulate; tl_gpu_dev_* run on the device */
  if (kernel >= 3) {
    tl_gpu_hybrid_chip(kernel == 4);
    tl_gpu_hybrid_pcr_d(n, nsys, parts, NULL, in[0], in[1], in[2], in[3], xh, sh, &info);
    rc = tl_gpu_dev_hybrid_pcr_d(n, nsys, parts, off, in[0], in[1], in[2], in[3], xd, sd, err,
                                 sizeof err);
    tl_gpu_hybrid_chip(1);
  } else if (kernel == 2) {
    tl_gpu_pcr_d(n, nsys, in[0], in[1], in[2], in[3], xh, sh, &info);
    rc = tl_gpu_dev_pcr_d(n, nsys, in[0], in[1], in[2], in[3], xd, sd, err, sizeof err);
  } else {
    memcpy(xh, in[3], len * sizeof(double));
    memcpy(xd, in[3], len * sizeof(double));
    if (kernel == 0) {
      tl_gpu_thomas_sz_d(n, nsys, in[0], in[1], in[2], xh, w, sh, &info);
      rc = tl_gpu_dev_thomas_sz_d(n, nsys, in[0], in[1], in[2], xd, sd, err, sizeof err);
    } else {
      tl_gpu_thomas_periodic_sz_d(n, nsys, in[0], in[1], in[2], xh, w, sh, &info);
      rc = tl_gpu_dev_thomas_periodic_sz_d(n, nsys, in[0], in[1], in[2], xd, sd, err, sizeof err);
    }
  }
  static const char *names[] = {"thomas_sz", "thomas_periodic_sz", "pcr", "hybrid_pcr",
                                "hybrid_chip"};
  check(rc == 0, names[kernel], n, nsys, err);
  check(memcmp(sh, sd, nsys * TL_GPU_STAT_WORDS * sizeof(int)) == 0, names[kernel], n, nsys,
        "status words differ");
  check(same_answers(xh, xd, len, err, sizeof err), names[kernel], n, nsys, err);
  for (int k = 0; k < 4; k++)
    free(in[k]);
  free(xh), free(xd), free(w), free(sh), free(sd), free(off);
  tl_problem_free(&p);
}

/* DistD2 with the fused stencil: emulated, then on the device. */
static void distd2_on_device(size_t n, int periodic, int parts, size_t nsys)
{
  double *a = malloc(3 * n * sizeof(double)), *b = a + n, *c = b + n, st[5];
  double hh = 1.0 / (double)n, al = 14.0 / 9.0, be = 1.0 / 9.0;
  double s5[5] = {-be / (4 * hh), -al / (2 * hh), 0, al / (2 * hh), be / (4 * hh)};
  for (size_t i = 0; i < n; i++) { /* Lele's matrix [1/3, 1, 1/3] */
    a[i] = (periodic || i > 0) ? 1.0 / 3 : 0;
    b[i] = 1;
    c[i] = (periodic || i + 1 < n) ? 1.0 / 3 : 0;
  }
  memcpy(st, s5, sizeof st);
  tl_distd2_plan plan;
  tl_info info;
  if (tl_distd2_plan_create_d(&plan, n, periodic, parts, NULL, a, b, c, &info) != TL_OK) {
    check(0, "distd2 plan", n, nsys, info.msg);
    free(a);
    return;
  }
  size_t cnt = tl_cpu_packed_count(n, nsys, TL_GPU_SZ);
  double *u = malloc(cnt * sizeof *u), *xh = prefilled(cnt, sizeof *xh),
         *xd = prefilled(cnt, sizeof *xd);
  for (size_t k = 0; k < cnt; k++)
    u[k] = sin(0.001 * (double)k);
  tl_gpu_use_device(NULL);
  int sh = tl_gpu_distd2_stencil_sz_d(&plan, st, nsys, u, xh, TL_DISTD2_DEFAULT_TOL, &info);
  tl_gpu_use_device(tl_gpu_device_ops_built());
  int sd = tl_gpu_distd2_stencil_sz_d(&plan, st, nsys, u, xd, TL_DISTD2_DEFAULT_TOL, &info);
  check(sh == sd && !memcmp(xh, xd, cnt * sizeof *xh), "distd2_stencil", n, nsys, info.msg);
  free(u), free(xh), free(xd), free(a);
  tl_distd2_plan_destroy(&plan);
}

/* The registry backends with the device installed: the same statuses,
 * rows and bits as their references (what `tridlab verify` relies on). */
static void registry_on_device(void)
{
  static const char *pairs[][2] = {{"thomas_gpu", "thomas"},
                                   {"pcr_gpu", "pcr"},
                                   {"thomas_periodic_gpu", "thomas_periodic"},
                                   {"hybrid_pcr_gpu", "hybrid_pcr"},
                                   {"distd2_gpu", "distd2"},
                                   {"pdd_gpu", "pdd"},
                                   {"spike_gpu", "spike"}};
  tl_gpu_use_device(tl_gpu_device_ops_built());
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
    for (size_t t = 0; t < tl_gallery_count(); t++) {
      const tl_gallery_type *g = tl_gallery_get(t);
      tl_problem p;
      tl_info gi, ri;
      if (g->dtype != TL_F64 || g->periodic != (k == 2) ||
          tl_gallery_make(g->id, 1000, 40, 9, &p, &gi) != TL_OK)
        continue;
      tl_options opt;
      tl_options_init(&opt);
      opt.parts = k >= 3 ? 16 : 1; /* the partition algorithms */
      double *xg = calloc(40000, sizeof(double)), *xr = calloc(40000, sizeof(double));
      int sg = tl_solve(tl_find(pairs[k][0]), &p.sys, xg, &opt, &gi);
      int sr = tl_solve(tl_find(pairs[k][1]), &p.sys, xr, &opt, &ri);
      int same = sg == sr && gi.row == ri.row &&
                 (!tl_status_has_solution(sr) || !memcmp(xg, xr, 40000 * sizeof(double)));
      check(same, pairs[k][0], 1000, 40, gi.msg);
      free(xg), free(xr);
      tl_problem_free(&p);
    }
}

/* PDD's (spike 0) or SPIKE's (spike 1) local phase: emulated, then on
 * the device; every output bit for bit (NaN equals NaN), and the same
 * status words. */
static void local_on_device(int spike, int type, size_t n, int parts, size_t nsys)
{
  tl_problem p;
  tl_info info;
  if (tl_gallery_make(type, n, nsys, 9, &p, &info) != TL_OK)
    return;
  const char *who = spike ? "spike_local" : "pdd_local";
  size_t len = n * nsys, q = nsys * (size_t)parts, per = spike ? 6 : 3;
  double *out[2][4];
  int *st[2], rc[2];
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 3; j++)
      out[k][j] = prefilled(len, sizeof(double));
    out[k][3] = prefilled(per * q, sizeof(double));
    st[k] = prefilled(3 * q, sizeof(int));
    tl_gpu_use_device(k ? tl_gpu_device_ops_built() : NULL);
    rc[k] = spike ? tl_gpu_spike_local_d(n, nsys, parts, NULL, p.a, p.b, p.c, p.d, out[k][0],
                                         out[k][1], out[k][2], out[k][3], st[k], &info)
                  : tl_gpu_pdd_local_d(n, nsys, parts, NULL, p.a, p.b, p.c, p.d, out[k][0],
                                       out[k][1], out[k][2], out[k][3], st[k], &info);
  }
  tl_gpu_use_device(NULL);
  char err[256] = "";
  check(rc[0] == rc[1], who, n, nsys, info.msg);
  check(!memcmp(st[0], st[1], 3 * q * sizeof(int)), who, n, nsys, "status words differ");
  int same = 1;
  for (int j = 0; j < 4 && same; j++)
    same = same_answers(out[0][j], out[1][j], j < 3 ? len : per * q, err, sizeof err);
  check(same, who, n, nsys, err);
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 4; j++)
      free(out[k][j]);
    free(st[k]);
  }
  tl_problem_free(&p);
}

/* What the resident slices' emulated run (k = 0) and device run (1)
 * must agree on besides the answers: the return codes (rc_bytes of each),
 * the bytes copied each way, and `words` status words. */
static void resident_agree(const char *what, size_t m, size_t nsys, const void *rc0,
                           const void *rc1, size_t rc_bytes, size_t moved[2][2], const int *st0,
                           const int *st1, size_t words, const char *msg)
{
  check(!memcmp(rc0, rc1, rc_bytes), what, m, nsys, msg);
  check(!memcmp(moved[0], moved[1], sizeof moved[0]), what, m, nsys,
        "the bytes copied each way differ");
  check(!memcmp(st0, st1, words * sizeof(int)), what, m, nsys, "status words differ");
}

/* The three double outputs of two runs of DistD2's slices (per[j]: a
 * value per row, else 6 per system), bit for bit (NaN equals NaN); then
 * freed. */
static int three_same(double *out[2][3], const size_t per[3], size_t len, size_t nsys, char *err,
                      size_t cap)
{
  int same = 1;
  for (int j = 0; j < 3 && same; j++)
    same = same_answers(out[0][j], out[1][j], per[j] ? len : 6 * nsys, err, cap);
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 3; j++)
      free(out[k][j]);
  return same;
}

/* One MPI rank's DistD2 slices (what distd2_gpu_mpi runs on each rank):
 * the middle rank of three, m rows, a plan per system; the decoupling
 * and the substitution emulated, then on the device: d', the edges, x
 * and the status words bit for bit (NaN equals NaN). `broken`: an
 * infinite d in one system, so that the failure paths run too. */
static void slices_on_device(size_t m, size_t nsys, int broken)
{
  size_t len = m * nsys;
  double *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b), *c = malloc(len * sizeof *c);
  double *d = malloc(len * sizeof *d), *rows = calloc(5 * len, sizeof *rows);
  double *fix = calloc(nsys, sizeof *fix), *ends = calloc(2 * nsys, sizeof *ends);
  double *out[2][3];
  int *st[2][2], rc[2][2];
  tl_info info;
  fill(len, 0, a, b, c, d);
  if (broken)
    d[len / 2 + 3] = INFINITY;
  int ok = slice_plans(m, nsys, a, b, c, rows, fix, ends, &info) == TL_OK;
  check(ok, "distd2_slice plans", m, nsys, info.msg);
  for (int k = 0; k < 2 && ok; k++) {
    out[k][0] = prefilled(len, sizeof(double));      /* d' */
    out[k][1] = prefilled(6 * nsys, sizeof(double)); /* the edges */
    out[k][2] = prefilled(len, sizeof(double));      /* x */
    st[k][0] = prefilled(3 * nsys, sizeof(int));
    st[k][1] = prefilled(3 * nsys, sizeof(int));
    tl_gpu_use_device(k ? tl_gpu_device_ops_built() : NULL);
    rc[k][0] = tl_gpu_distd2_slice_decouple_d(m, nsys, rows, fix, d, out[k][0], out[k][1],
                                              st[k][0], &info);
    rc[k][1] = tl_gpu_distd2_slice_substitute_d(m, nsys, rows, ends, out[k][0], out[k][2],
                                                st[k][1], &info);
  }
  tl_gpu_use_device(NULL);
  if (ok) {
    char err[256] = "";
    check(rc[0][0] == rc[1][0] && rc[0][1] == rc[1][1], "distd2_slice", m, nsys, info.msg);
    check(!memcmp(st[0][0], st[1][0], 3 * nsys * sizeof(int)) &&
              !memcmp(st[0][1], st[1][1], 3 * nsys * sizeof(int)),
          "distd2_slice", m, nsys, "status words differ");
    static const size_t per[3] = {1, 0, 1};
    check(three_same(out, per, len, nsys, err, sizeof err), "distd2_slice", m, nsys, err);
    for (int k = 0; k < 2; k++)
      free(st[k][0]), free(st[k][1]);
  }
  free(a), free(b), free(c), free(d), free(rows), free(fix), free(ends);
}

/* The same slices kept where the kernels run (tl_gpu_distd2_resident_*,
 * what distd2_gpu_mpi runs): emulated, then on the device; the edges,
 * every system's d' fetched back, x and the status words bit for bit. */
static void resident_on_device(size_t m, size_t nsys, int broken)
{
  size_t len = m * nsys;
  double *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b), *c = malloc(len * sizeof *c);
  double *d = malloc(len * sizeof *d), *rows = calloc(5 * len, sizeof *rows);
  double *fix = calloc(nsys, sizeof *fix), *ends = calloc(2 * nsys, sizeof *ends);
  double *out[2][3], *mine = malloc(m * sizeof *mine);
  int *st[2], rc[2][3];
  size_t moved[2][2] = {{0, 0}, {0, 0}};
  tl_info info;
  fill(len, 0, a, b, c, d);
  if (broken)
    d[len / 2 + 3] = INFINITY;
  for (size_t i = 0; i < m; i++) /* a d' of its own for system 0, put there before Algorithm 7 */
    mine[i] = 0.5 + 0.25 * (double)i;
  int ok = slice_plans(m, nsys, a, b, c, rows, fix, ends, &info) == TL_OK;
  check(ok, "distd2_resident plans", m, nsys, info.msg);
  for (int k = 0; k < 2 && ok; k++) {
    out[k][0] = prefilled(6 * nsys, sizeof(double)); /* the edges */
    out[k][1] = prefilled(len, sizeof(double));      /* d', fetched back */
    out[k][2] = prefilled(len, sizeof(double));      /* x */
    st[k] = prefilled(6 * nsys, sizeof(int));
    tl_gpu_use_device(k ? tl_gpu_device_ops_built() : NULL);
    tl_gpu_distd2_resident *r = NULL;
    rc[k][0] = tl_gpu_distd2_resident_open_d(m, nsys, rows, fix, d, &r, &info);
    rc[k][1] = r ? tl_gpu_distd2_resident_decouple_d(r, out[k][0], st[k], &info) : -99;
    for (size_t s = 0; r && s < nsys; s++)
      if (tl_gpu_distd2_resident_dt_d(r, s, out[k][1] + s * m, 0, &info) != TL_OK)
        rc[k][1] = -98;
    if (r && tl_gpu_distd2_resident_dt_d(r, 0, mine, 1, &info) != TL_OK)
      rc[k][1] = -97;
    rc[k][2] =
        r ? tl_gpu_distd2_resident_substitute_d(r, ends, out[k][2], st[k] + 3 * nsys, &info) : -99;
    tl_gpu_distd2_resident_traffic(r, &moved[k][0], &moved[k][1]);
    tl_gpu_distd2_resident_close(r);
  }
  tl_gpu_use_device(NULL);
  if (ok) {
    char err[256] = "";
    resident_agree("distd2_resident", m, nsys, rc[0], rc[1], sizeof rc[0], moved, st[0], st[1],
                   6 * nsys, info.msg);
    static const size_t per[3] = {0, 1, 1};
    check(three_same(out, per, len, nsys, err, sizeof err), "distd2_resident", m, nsys, err);
    free(st[0]), free(st[1]);
  }
  free(a), free(b), free(c), free(d), free(rows), free(fix), free(ends), free(mine);
}

/* PDD's slices kept where the kernels run (tl_gpu_pdd_resident_*, what
 * pdd_gpu_mpi runs), a rank with both neighbours: emulated, then on the
 * device; the ends, drops and margins, status words, x, the largest |x|
 * and the correction's rows bit for bit (NaN equals NaN), every second
 * system's x skipped (it must come back as it went). `broken`: a zero
 * pivot in one system, so that the failure paths run too. */
static void pdd_resident_on_device(size_t m, size_t nsys, int broken)
{
  size_t len = m * nsys, e = TL_GPU_PDD_ENDS * nsys;
  double *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b), *c = malloc(len * sizeof *c);
  double *d = malloc(len * sizeof *d), *lr = malloc(2 * nsys * sizeof *lr), *out[2][3];
  unsigned char *skip = malloc(nsys);
  int *st[2], rc[2][2];
  size_t moved[2][2] = {{0, 0}, {0, 0}};
  tl_info info;
  tl_info_clear(&info);
  fill(len, broken, a, b, c, d);
  for (size_t s = 0; s < nsys; s++)
    lr[2 * s] = 0.5 / (double)(s + 1), lr[2 * s + 1] = -0.25, skip[s] = s & 1;
  for (int k = 0; k < 2; k++) {
    out[k][0] = prefilled(e + 3 * nsys, sizeof(double)); /* the ends, then part */
    out[k][1] = prefilled(len, sizeof(double));          /* x */
    out[k][2] = prefilled(nsys, sizeof(double));         /* the largest |x| */
    st[k] = prefilled(4 * nsys, sizeof(int));            /* status words, rows */
    tl_gpu_use_device(k ? tl_gpu_device_ops_built() : NULL);
    tl_gpu_pdd_resident *r = NULL;
    rc[k][0] = tl_gpu_pdd_resident_open_d(m, nsys, 1, 1, a, b, c, d, &r, &info);
    if (r)
      rc[k][0] = tl_gpu_pdd_resident_local_d(r, out[k][0], out[k][0] + e, st[k], &info);
    rc[k][1] = r ? tl_gpu_pdd_resident_correct_d(r, lr, skip, out[k][1], out[k][2],
                                                 st[k] + 3 * nsys, &info)
                 : -99;
    tl_gpu_pdd_resident_traffic(r, &moved[k][0], &moved[k][1]);
    tl_gpu_pdd_resident_close(r);
  }
  tl_gpu_use_device(NULL);
  char err[256] = "";
  resident_agree("pdd_resident", m, nsys, rc[0], rc[1], sizeof rc[0], moved, st[0], st[1], 4 * nsys,
                 info.msg);
  size_t sizes[3] = {e + 3 * nsys, len, nsys};
  int same = 1;
  for (int j = 0; j < 3 && same; j++)
    same = same_answers(out[0][j], out[1][j], sizes[j], err, sizeof err);
  check(same, "pdd_resident", m, nsys, err);
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 3; j++)
      free(out[k][j]);
    free(st[k]);
  }
  free(a), free(b), free(c), free(d), free(lr), free(skip);
}

/* The compact scheme's slices kept where the kernels run (tl_gpu_compact_
 * resident_*, what tl_mpi_distd2_compact_gpu runs): a middle rank's slice
 * plan, u with ghost rows; emulated, then on the device: the ends, x
 * (with the lanes past the last system) and the status words bit for bit,
 * and the bytes copied. `broken`: u near the largest double in one
 * system, so that d' overflows there. */
static void compact_resident_on_device(size_t m, size_t nsys, int broken)
{
  size_t groups = (nsys + TL_GPU_SZ - 1) / TL_GPU_SZ, uc = groups * (m + 4) * TL_GPU_SZ;
  size_t xc = groups * m * TL_GPU_SZ;
  double *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b), *c = malloc(m * sizeof *c);
  double *d = malloc(m * sizeof *d), *uh = malloc(uc * sizeof *uh), *out[2][3];
  double st[5] = {-0.1, -0.7, 0, 0.7, 0.1};
  int *sw[2], rc[2][3];
  size_t moved[2][2] = {{0, 0}, {0, 0}};
  tl_info info;
  tl_info_clear(&info);
  fill(m, 0, a, b, c, d);
  for (size_t k = 0; k < uc; k++)
    uh[k] = sin(0.1 * (double)k);
  if (broken)
    uh[uc / 2] = 1.7e308;
  tl_distd2_plan plan;
  int ok = tl_distd2_plan_slice_d(&plan, 3 * m, 0, m, m, a, b, c, &info) == TL_OK;
  check(ok, "compact_resident plan", m, nsys, info.msg);
  for (int k = 0; k < 2 && ok; k++) {
    out[k][0] = prefilled(2 * nsys, sizeof(double)); /* the ends */
    out[k][1] = prefilled(xc, sizeof(double));       /* x */
    out[k][2] = NULL;
    sw[k] = prefilled(4 * nsys, sizeof(int));
    tl_gpu_use_device(k ? tl_gpu_device_ops_built() : NULL);
    tl_gpu_compact_resident *r = NULL;
    rc[k][0] = tl_gpu_compact_resident_open_d(&plan, st, nsys, uh, &r, &info);
    rc[k][1] = r ? tl_gpu_compact_resident_decouple_d(r, out[k][0], sw[k], &info) : -99;
    rc[k][2] =
        r ? tl_gpu_compact_resident_substitute_d(r, out[k][0], out[k][1], sw[k] + 2 * nsys, &info)
          : -99;
    tl_gpu_compact_resident_traffic(r, &moved[k][0], &moved[k][1]);
    tl_gpu_compact_resident_close(r);
  }
  tl_gpu_use_device(NULL);
  if (ok) {
    char err[256] = "";
    resident_agree("compact_resident", m, nsys, rc[0], rc[1], sizeof rc[0], moved, sw[0], sw[1],
                   4 * nsys, info.msg);
    check(same_answers(out[0][0], out[1][0], 2 * nsys, err, sizeof err) &&
              same_answers(out[0][1], out[1][1], xc, err, sizeof err),
          "compact_resident", m, nsys, err);
    for (int k = 0; k < 2; k++)
      free(out[k][0]), free(out[k][1]), free(sw[k]);
    tl_distd2_plan_destroy(&plan);
  }
  free(a), free(b), free(c), free(d), free(uh);
}

int main(void)
{
  if (tl_gpu_device_count() < 1) {
    printf("gpu device test: skipped (no GPU device present)\n");
    return 77;
  }
  static const size_t sizes[] = {3, 5, 17, 100, 1000, 4096};
  static const size_t counts[] = {1, 33, 500};
  static const int plain[] = {20, 38, 39}, periodic[] = {50};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++) {
      for (size_t t = 0; t < sizeof plain / sizeof plain[0]; t++) {
        compare(0, plain[t], sizes[i], counts[j]);
        compare(2, plain[t], sizes[i], counts[j]);
        compare(3, plain[t], sizes[i], counts[j]);
        compare(4, plain[t], sizes[i], counts[j]);
      }
      compare(1, periodic[0], sizes[i], counts[j]);
    }
  registry_on_device();
  for (int broken = 0; broken <= 1; broken++) {
    slices_on_device(37, 70, broken);
    slices_on_device(1000, 33, broken);
    resident_on_device(37, 70, broken);
    resident_on_device(1000, 33, broken);
    pdd_resident_on_device(37, 70, broken);
    pdd_resident_on_device(1000, 33, broken);
    compact_resident_on_device(37, 70, broken);
    compact_resident_on_device(1000, 33, broken);
  }
  distd2_on_device(1000, 1, 8, 500);
  distd2_on_device(4096, 0, 16, 33);
  for (int spike = 0; spike <= 1; spike++)
    for (size_t t = 0; t < sizeof plain / sizeof plain[0]; t++) {
      local_on_device(spike, plain[t], 1000, 8, 33);
      local_on_device(spike, plain[t], 4096, 64, 500);
      local_on_device(spike, plain[t], 17, 3, 7);
    }
  printf("gpu device test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
