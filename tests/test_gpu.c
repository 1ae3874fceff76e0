/* tests/test_gpu.c -- the GPU kernels run on the host (docs/gpu.md):
 * every kernel gives the same bits in every thread and block order, every
 * gpu-emulated backend agrees with its reference on the whole gallery
 * (status, system, row and the answer itself), and the race detector
 * works: a planted race and a missing barrier are caught, and a region's
 * variable used after its barrier does not compile. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/tl_gpu_port.h"
#include "cli_helpers.h"
#include "helpers.h"
#include "tridlab/backend.h"
#include "tridlab/cpu.h"
#include "tridlab/gpu.h"
#include "tridlab/part_pdd.h"
#include "tridlab/tridlab.h"

/* The orders every test runs (tl_gpu_set_order_pair): threads forward,
 * reverse, two shuffles, each with another order of the blocks (reverse,
 * shuffled, forward, shuffled), so that every thread order and every
 * block order is met and a kernel whose blocks depend on each other
 * gives another answer. */
#define NORDERS TL_GPU_ORDER_PAIRS
static const char *order_names[NORDERS];

static void set_orders(size_t o)
{
  order_names[o] = tl_gpu_set_order_pair((int)o);
}

static void reset_order(void)
{
  tl_gpu_set_order_pair(-1);
}

/* ---------------------------------------------------------------- */
/* Backends against their references, over the gallery               */

static const size_t sizes[] = {1, 2, 3, 4, 5, 17, 100, 257, 1000};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const size_t counts[] = {1, 7, 33};
#define NCOUNTS (sizeof counts / sizeof counts[0])

/* Solve p with the backend and the reference: the same status, system,
 * row, and (when there is a solution) the same bits. */
static void expect_same(const char *gpu, const char *ref, const tl_problem *p, int id,
                        const char *order, const tl_options *opt)
{
  const tl_algorithm *ga = tl_find(gpu), *ra = tl_find(ref);
  cr_assert(ga && ra && ga->reference && !strcmp(ga->reference->name, ra->name),
            "%s names %s as its reference", gpu, ref);
  size_t cnt = p->sys.n * p->sys.nsys;
  double *xg = calloc(cnt, sizeof *xg), *xr = calloc(cnt, sizeof *xr);
  tl_info gi, ri;
  tl_options gopt; /* the order this case was given, not all four (--param orders=one) */
  if (opt)
    gopt = *opt;
  else
    tl_options_init(&gopt);
  cr_assert_eq(tl_options_set_param_kv(&gopt, ga, "orders=one", &gi), TL_OK, "%s", gi.msg);
  int gs = tl_solve(ga, &p->sys, xg, &gopt, &gi);
  int rs = tl_solve(ra, &p->sys, xr, opt, &ri);
  int parts = opt ? opt->parts : 1;
  cr_expect_eq(gs, rs, "%s vs %s, type %d n %zu nsys %zu P %d (%s): status %d vs %d (%s | %s)", gpu,
               ref, id, p->sys.n, p->sys.nsys, parts, order, gs, rs, gi.msg, ri.msg);
  if (gs == rs && rs != TL_OK) {
    cr_expect_eq(gi.row, ri.row, "%s type %d n %zu nsys %zu: row %ld vs %ld", gpu, id, p->sys.n,
                 p->sys.nsys, gi.row, ri.row);
    cr_expect_eq(gi.system, ri.system, "%s type %d n %zu: system %ld vs %ld", gpu, id, p->sys.n,
                 gi.system, ri.system);
  }
  if (gs == rs && tl_status_has_solution(rs))
    cr_expect(memcmp(xg, xr, cnt * sizeof *xg) == 0, "%s type %d n %zu nsys %zu (%s): x differs",
              gpu, id, p->sys.n, p->sys.nsys, order);
  free(xg);
  free(xr);
}

static void gallery_agrees(const char *gpu, const char *ref, int periodic, int parts)
{
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = parts;
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    if (t->dtype != TL_F64 || t->periodic != periodic)
      continue;
    for (size_t in = 0; in < NSIZES; in++)
      for (size_t ic = 0; ic < NCOUNTS; ic++) {
        tl_problem p;
        tl_info info;
        if (sizes[in] < t->min_n || sizes[in] < 2 * (size_t)parts ||
            tl_gallery_make(t->id, sizes[in], counts[ic], 7, &p, &info))
          continue;
        size_t o = (in + ic + k) % NORDERS; /* every order meets every kind of matrix */
        set_orders(o);
        expect_same(gpu, ref, &p, t->id, order_names[o], &opt);
        tl_problem_free(&p);
      }
  }
  reset_order();
}

Test(gpu_registry, room_lists_emulated_backends)
{
  const char *names[] = {"thomas_gpu",     "pcr_gpu",    "thomas_periodic_gpu",
                         "hybrid_pcr_gpu", "distd2_gpu", "pdd_gpu", "spike_gpu"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    const tl_algorithm *a = tl_find(names[k]);
    cr_assert_not_null(a, "%s is not registered", names[k]);
    cr_expect_str_eq(a->backend, "gpu-emulated");
    cr_expect_str_eq(tl_algorithm_room(a), "gpu");
  }
  cr_expect_str_eq(tl_gpu_backend_name(), "gpu-emulated");
}

Test(gpu_registry, thomas_gpu_agrees_with_thomas, .timeout = 300)
{
  gallery_agrees("thomas_gpu", "thomas", 0, 1);
}

Test(gpu_registry, pcr_gpu_agrees_with_pcr, .timeout = 300)
{
  gallery_agrees("pcr_gpu", "pcr", 0, 1);
}

Test(gpu_registry, thomas_periodic_gpu_agrees_with_thomas_periodic, .timeout = 300)
{
  gallery_agrees("thomas_periodic_gpu", "thomas_periodic", 1, 1);
}

Test(gpu_registry, hybrid_pcr_gpu_agrees_with_hybrid_pcr, .timeout = 300)
{
  /* 64 and 128: partitions of 2 to 8 rows at n = 257 and 1000, where
   * the on-chip kernel runs (hybrid_chip_kernel) */
  static const int parts[] = {1, 2, 3, 7, 64, 128};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
    gallery_agrees("hybrid_pcr_gpu", "hybrid_pcr", 0, parts[k]);
}

/* Given partition sizes: each of at least 2 rows, summing to n; else
 * TL_ERR_ARG, for either kernel (the on-chip one would otherwise read
 * the next partition's row as a one-row partition's second). */
Test(gpu_registry, hybrid_partition_sizes_are_checked)
{
  double a[9], b[9], c[9], d[9], x[9];
  int st[3];
  for (int i = 0; i < 9; i++)
    a[i] = -1, b[i] = 4, c[i] = -1, d[i] = i;
  static const size_t one_row[3] = {1, 4, 4}, too_many[3] = {2, 4, 4}, good[3] = {3, 3, 3};
  size_t shared;
  int per;
  cr_expect_eq(tl_gpu_hybrid_chip_launch(9, 3, 1, 4, sizeof(double), &shared, &per), 0);
  for (int chip = 0; chip < 2; chip++) {
    tl_info info;
    tl_gpu_hybrid_chip(chip);
    cr_expect_eq(tl_gpu_hybrid_pcr_d(9, 1, 3, one_row, a, b, c, d, x, st, &info), TL_ERR_ARG);
    cr_expect_str_eq(info.arg, "parts");
    cr_expect_eq(tl_gpu_hybrid_pcr_d(9, 1, 3, too_many, a, b, c, d, x, st, &info), TL_ERR_ARG);
    cr_expect(strstr(info.msg, "sum to 10") != NULL, "%s", info.msg);
    cr_expect_eq(tl_gpu_hybrid_pcr_d(9, 1, 3, good, a, b, c, d, x, st, &info), TL_OK);
  }
  tl_gpu_hybrid_chip(1);
}

/* The on-chip hybrid kernel against the one with global scratch
 * (tl_gpu_hybrid_chip): the same status words and the same bits, NaN
 * included, over the gallery's float64 types, at partitions of 2 to 8
 * rows (even and uneven), in every order pair. */
Test(gpu_registry, hybrid_chip_same_bits_as_global_scratch, .timeout = 300)
{
  static const size_t ns[] = {2, 3, 9, 17, 64, 257, 1000, 2048};
  static const size_t rows[] = {2, 3, 5, 8};
  size_t cases = 0;
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    if (t->dtype != TL_F64 || t->periodic)
      continue;
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
      for (size_t ir = 0; ir < sizeof rows / sizeof rows[0]; ir++) {
        size_t n = ns[in], nsys = 1 + (in + ir) % 3, shared;
        int per;
        int parts = (int)((n + rows[ir] - 1) / rows[ir]);
        tl_problem p;
        tl_info info;
        /* n = 2048 in partitions of 2 or 3 rows: the reduced system is
         * too large for shared memory, hybrid_kernel would run */
        int applies = tl_gpu_hybrid_chip_launch(n, parts, 2, rows[ir], sizeof(double), &shared, &per);
        cr_expect_eq(applies, !(n == 2048 && rows[ir] < 5), "n %zu, %d partitions", n, parts);
        if (applies && n == 2048) /* staged in more than one round */
          cr_expect_lt(per, parts, "n %zu, %d partitions: %d a round", n, parts, per);
        if (!applies || n < t->min_n || n < 2 * (size_t)parts ||
            tl_gallery_make(t->id, n, nsys, 3, &p, &info))
          continue;
        size_t cnt = n * nsys, o = (k + in + ir) % NORDERS;
        set_orders(o);
        double *x[2];
        int *st[2], rc[2];
        for (int chip = 0; chip < 2; chip++) {
          x[chip] = calloc(cnt, sizeof(double));
          st[chip] = calloc(3 * nsys, sizeof(int));
          tl_gpu_hybrid_chip(chip);
          rc[chip] = tl_gpu_hybrid_pcr_d(n, nsys, parts, NULL, p.sys.a, p.sys.b, p.sys.c, p.sys.d,
                                         x[chip], st[chip], &info);
        }
        tl_gpu_hybrid_chip(1);
        cr_expect_eq(rc[0], rc[1], "type %d n %zu P %d (%s): status %d vs %d", t->id, n, parts,
                     order_names[o], rc[1], rc[0]);
        cr_expect(memcmp(st[0], st[1], 3 * nsys * sizeof(int)) == 0,
                  "type %d n %zu P %d (%s): status words differ", t->id, n, parts, order_names[o]);
        cr_expect(memcmp(x[0], x[1], cnt * sizeof(double)) == 0,
                  "type %d n %zu P %d (%s): x differs", t->id, n, parts, order_names[o]);
        for (int chip = 0; chip < 2; chip++)
          free(x[chip]), free(st[chip]);
        tl_problem_free(&p);
        cases++;
      }
  }
  reset_order();
  cr_expect_gt(cases, 100, "only %zu cases ran", cases);
}

/* DistD2's kernels (Algorithms 6 and 7; Algorithm 5 on the host) and
 * PDD's local-phase kernel (the exchange on the host), as backends: the
 * reference's status, row and bits over the gallery, plain and periodic
 * for DistD2. */
Test(gpu_registry, distd2_gpu_agrees_with_distd2, .timeout = 300)
{
  static const int parts[] = {1, 2, 3, 7};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
    gallery_agrees("distd2_gpu", "distd2", 0, parts[k]);
    gallery_agrees("distd2_gpu", "distd2", 1, parts[k]);
  }
}

/* SPIKE's local phase on the GPU (partial pivoting, a thread per
 * partition), phases 4-5 on the host: spike's status, row and bits over
 * the gallery, dominant or not, singular blocks included. */
Test(gpu_registry, spike_gpu_agrees_with_spike, .timeout = 300)
{
  static const int parts[] = {1, 2, 3, 7};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
    gallery_agrees("spike_gpu", "spike", 0, parts[k]);
}

Test(gpu_registry, pdd_gpu_agrees_with_pdd, .timeout = 300)
{
  static const int parts[] = {1, 2, 3, 7};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
    gallery_agrees("pdd_gpu", "pdd", 0, parts[k]);
}

/* Unequal partitions, as the reference takes them. */
Test(gpu_registry, hybrid_pcr_gpu_unequal_partitions)
{
  size_t n = 100, psizes[5];
  th_unequal_sizes(n, 5, 2, psizes);
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 5;
  opt.part_sizes = psizes;
  for (int id = 20; id <= 21; id++) {
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(id, n, 9, 1, &p, &info), TL_OK);
    expect_same("hybrid_pcr_gpu", "hybrid_pcr", &p, id, "unequal", &opt);
    tl_problem_free(&p);
  }
}

/* `tridlab verify` over the gallery, as CI runs it: exit 0 means no
 * SILENT and no UNEXPECTED pair; `list` shows the emulated backend. Each
 * backend in every order (--param orders=all, the backends' default: an
 * answer that depends on the order is an unexpected "race") on batches
 * of 3 systems, the checker on throughout (in the plain run; the
 * sanitized run has it off: Makefile, check-unit); the two on the packed layout
 * also once on batches of 33 (two groups of 32, the second nearly
 * empty) in the default order (--param orders=one). The others run one
 * block per system (or one system per launch): gpu_registry::
 * *_agrees_with_* run every backend on batches of 1, 7 and 33. */
Test(gpu_cli, verify_every_gpu_backend, .timeout = 300)
{
  static const char *names[] = {"thomas_gpu",     "pcr_gpu",    "thomas_periodic_gpu",
                                "hybrid_pcr_gpu", "distd2_gpu", "pdd_gpu",
                                "spike_gpu"};
  char args[256];
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    snprintf(args, sizeof args, "verify --quick --nsys 33 --quiet --algo %s --param orders=one",
             names[k]);
    if (k == 0 || k == 2) /* the packed layout's groups of 32 */
      cr_expect_eq(cli_run(args, ">/dev/null 2>&1"), 0, "tridlab %s", args);
    snprintf(args, sizeof args, "verify --quick --nsys 3 --quiet --algo %s", names[k]);
    cr_expect_eq(cli_run(args, ">/dev/null 2>&1"), 0, "tridlab %s", args);
  }
  cr_expect_eq(cli_run("list | grep -q 'pcr_gpu .*gpu-emulated'", ""), 0);
}

/* Hostile systems in a batch: a breakdown in one system is reported with
 * that system and the reference's row, whatever the thread order. */
Test(gpu_registry, breakdown_in_the_middle_of_a_batch)
{
  const char *pairs[][2] = {
      {"thomas_gpu", "thomas"}, {"pcr_gpu", "pcr"}, {"hybrid_pcr_gpu", "hybrid_pcr"}};
  for (size_t o = 0; o < NORDERS; o++)
    for (size_t k = 0; k < 3; k++) {
      tl_problem p;
      tl_info info;
      size_t n = 37, nsys = 40;
      cr_assert_eq(tl_gallery_make(20, n, nsys, 3, &p, &info), TL_OK);
      double *b = p.b, *d = p.d;
      b[35 * n + 9] = 0;     /* system 35, row 9: a zero diagonal */
      d[36 * n + 2] = 1e308; /* system 36 overflows later */
      set_orders(o);
      expect_same(pairs[k][0], pairs[k][1], &p, 20, "hostile", NULL);
      tl_problem_free(&p);
    }
  reset_order();
}

/* ---------------------------------------------------------------- */
/* Every kernel, every order: the same bits                          */

/* One run of a kernel on copies of the inputs: d (or x) and stat out. */
typedef struct run_out {
  double *x;
  float *xf;
  int *stat;
  int status;
} run_out;

enum { K_THOMAS, K_PERIODIC, K_PCR, K_HYBRID, K_CHIP };
#define HYBRID_PARTS 3

static run_out run_kernel(int kernel, int single, size_t n, size_t nsys, const th_sys *base)
{
  size_t cnt = tl_cpu_packed_count(n, nsys, TL_GPU_SZ), sys_cnt = n * nsys;
  int batch = kernel >= K_PCR; /* the batch layout, else packed */
  size_t len = batch ? sys_cnt : cnt;
  double *in[4];
  for (int k = 0; k < 4; k++) {
    in[k] = calloc(len, sizeof(double));
    const double *src = k == 0 ? base->a : k == 1 ? base->b : k == 2 ? base->c : base->d;
    for (size_t s = 0; s < nsys; s++) /* the same system everywhere, perturbed per system */
      for (size_t i = 0; i < n; i++) {
        double v = src[i] * (1 + 1e-3 * (double)s);
        if (batch)
          in[k][s * n + i] = v;
        else
          in[k][((s / TL_GPU_SZ) * n + i) * TL_GPU_SZ + s % TL_GPU_SZ] = v;
      }
  }
  if (!batch) /* padding lanes solve the identity */
    for (size_t s = nsys; s % TL_GPU_SZ; s++)
      for (size_t i = 0; i < n; i++)
        in[1][((s / TL_GPU_SZ) * n + i) * TL_GPU_SZ + s % TL_GPU_SZ] = 1;
  run_out r = {calloc(len, sizeof(double)), calloc(len, sizeof(float)),
               calloc(nsys * TL_GPU_STAT_WORDS, sizeof(int)), 0};
  tl_info info;
  if (!single) {
    double *w = calloc(2 * len, sizeof(double));
    if (kernel == K_PCR) {
      r.status = tl_gpu_pcr_d(n, nsys, in[0], in[1], in[2], in[3], r.x, r.stat, &info);
    } else if (kernel >= K_HYBRID) { /* K_CHIP: partitions of 2 to 4 rows, on chip */
      r.status = tl_gpu_hybrid_pcr_d(n, nsys, kernel == K_CHIP ? (int)(n + 3) / 4 : HYBRID_PARTS,
                                     NULL, in[0], in[1], in[2], in[3], r.x, r.stat, &info);
    } else {
      memcpy(r.x, in[3], len * sizeof(double));
      r.status =
          kernel == K_THOMAS
              ? tl_gpu_thomas_sz_d(n, nsys, in[0], in[1], in[2], r.x, w, r.stat, &info)
              : tl_gpu_thomas_periodic_sz_d(n, nsys, in[0], in[1], in[2], r.x, w, r.stat, &info);
    }
    free(w);
  } else {
    float *f[4], *w = calloc(2 * len, sizeof(float));
    for (int k = 0; k < 4; k++) {
      f[k] = malloc(len * sizeof(float));
      for (size_t q = 0; q < len; q++)
        f[k][q] = (float)in[k][q];
    }
    if (kernel == K_PCR) {
      r.status = tl_gpu_pcr_f(n, nsys, f[0], f[1], f[2], f[3], r.xf, r.stat, &info);
    } else if (kernel >= K_HYBRID) {
      r.status = tl_gpu_hybrid_pcr_f(n, nsys, kernel == K_CHIP ? (int)(n + 3) / 4 : HYBRID_PARTS,
                                     NULL, f[0], f[1], f[2], f[3], r.xf, r.stat, &info);
    } else {
      memcpy(r.xf, f[3], len * sizeof(float));
      r.status =
          kernel == K_THOMAS
              ? tl_gpu_thomas_sz_f(n, nsys, f[0], f[1], f[2], r.xf, w, r.stat, &info)
              : tl_gpu_thomas_periodic_sz_f(n, nsys, f[0], f[1], f[2], r.xf, w, r.stat, &info);
    }
    for (int k = 0; k < 4; k++)
      free(f[k]);
    free(w);
  }
  for (int k = 0; k < 4; k++)
    free(in[k]);
  return r;
}

static void run_free(run_out *r)
{
  free(r->x);
  free(r->xf);
  free(r->stat);
}

Test(gpu_orders, every_kernel_same_bits_in_every_order, .timeout = 300)
{
  const size_t ns[] = {3, 4, 5, 31, 64, 100, 777};
  const size_t nsyss[] = {1, 31, 33, 70};
  for (int kernel = K_THOMAS; kernel <= K_CHIP; kernel++)
    for (int single = 0; single <= 1; single++)
      for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
        for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++) {
          size_t n = ns[in], nsys = nsyss[ic];
          if (kernel == K_HYBRID && n < 2 * HYBRID_PARTS)
            continue;
          th_sys base = th_sys_make(n, 0, 0.1, 1.0, 100 + n);
          if (kernel == K_PERIODIC) { /* random corners, still dominant */
            base.a[0] = base.a[1];
            base.c[n - 1] = base.c[n - 2];
            base.b[0] = base.b[1];
            base.b[n - 1] = base.b[n - 2];
          }
          size_t len = kernel >= K_PCR ? n * nsys : tl_cpu_packed_count(n, nsys, TL_GPU_SZ);
          set_orders(0);
          run_out first = run_kernel(kernel, single, n, nsys, &base);
          cr_expect_eq(first.status, TL_OK, "kernel %d n %zu", kernel, n);
          for (size_t o = 1; o < NORDERS; o++) {
            set_orders(o);
            run_out r = run_kernel(kernel, single, n, nsys, &base);
            cr_expect_eq(r.status, first.status);
            cr_expect(memcmp(r.x, first.x, len * sizeof(double)) == 0 &&
                          memcmp(r.xf, first.xf, len * sizeof(float)) == 0 &&
                          memcmp(r.stat, first.stat, nsys * TL_GPU_STAT_WORDS * sizeof(int)) == 0,
                      "kernel %d float %d n %zu nsys %zu: %s differs from %s", kernel, single, n,
                      nsys, order_names[o], order_names[0]);
            run_free(&r);
          }
          run_free(&first);
          th_sys_free(&base);
        }
  reset_order();
}

/* The float kernels solve dominant systems to float accuracy. */
Test(gpu_orders, float_kernels_are_accurate)
{
  size_t n = 200, nsys = 40;
  th_sys base = th_sys_make(n, 0, 0.1, 1.0, 9);
  for (int kernel = K_THOMAS; kernel <= K_CHIP; kernel++) {
    run_out d = run_kernel(kernel, 0, n, nsys, &base), f = run_kernel(kernel, 1, n, nsys, &base);
    size_t len = kernel >= K_PCR ? n * nsys : tl_cpu_packed_count(n, nsys, TL_GPU_SZ);
    double worst = 0, big = 0;
    for (size_t q = 0; q < len; q++) {
      worst = fmax(worst, fabs(d.x[q] - f.xf[q]));
      big = fmax(big, fabs(d.x[q]));
    }
    cr_expect_lt(worst / big, 1e-5, "kernel %d: float error %g", kernel, worst / big);
    run_free(&d);
    run_free(&f);
  }
  th_sys_free(&base);
}

/* ---------------------------------------------------------------- */
/* The race detector catches what it must                            */

/* PLANTED RACE: PCR updating the system in place inside one region, with
 * no second buffer. Thread i reads rows i - s and i + s, which other
 * threads of the same region may already have overwritten: on a GPU the
 * answer depends on timing; on the host, on the order. Indexed plainly,
 * not through TL_LD / TL_ST, on purpose: this test is of the orders
 * alone, without the checker (tests/test_gpu_planted.c and
 * tests/gpu/mutants.txt test the checker). */
TL_KERNEL(racy_pcr, long n, double *a, double *b, double *c, double *d)
{
  for (long s = 1; s < n; s *= 2) {
    TL_REGION(t)
    {
      long i = t;
      double ai = 0, bi = b[i], ci = 0, di = d[i];
      if (i >= s) {
        double alpha = -a[i] / b[i - s];
        ai = alpha * a[i - s];
        bi += alpha * c[i - s];
        di += alpha * d[i - s];
      }
      if (i + s < n) {
        double gamma = -c[i] / b[i + s];
        ci = gamma * c[i + s];
        bi += gamma * a[i + s];
        di += gamma * d[i + s];
      }
      a[i] = ai; /* the race: rows i +- s of this step may read these */
      b[i] = bi;
      c[i] = ci;
      d[i] = di;
    }
    TL_BARRIER();
  }
  TL_REGION(t)
  {
    d[t] /= b[t];
  }
  TL_BARRIER();
}

static void racy_run(tl_gpu_order order, unsigned long seed, const th_sys *s, double *x)
{
  size_t n = s->n;
  double *a = malloc(4 * n * sizeof *a), *b = a + n, *c = b + n;
  memcpy(a, s->a, n * sizeof *a);
  memcpy(b, s->b, n * sizeof *a);
  memcpy(c, s->c, n * sizeof *a);
  memcpy(x, s->d, n * sizeof *a);
  a[0] = 0;
  c[n - 1] = 0;
  tl_gpu_set_order(order, seed);
  TL_LAUNCH(racy_pcr, 1, (int)n, 0, (long)n, a, b, c, x);
  free(a);
}

Test(gpu_race, planted_in_place_pcr_race_is_caught)
{
  size_t n = 64;
  th_sys s = th_sys_make(n, 0, 0.1, 1.0, 4);
  double xf[64], xr[64], xs[64];
  racy_run(TL_GPU_FORWARD, 1, &s, xf);
  racy_run(TL_GPU_REVERSE, 1, &s, xr);
  racy_run(TL_GPU_SHUFFLE, 7, &s, xs);
  cr_expect(memcmp(xf, xr, sizeof xf) != 0 || memcmp(xf, xs, sizeof xf) != 0,
            "the thread orders did not expose the in-place race");
  /* The correct kernel, same system: the same bits in every order. */
  double x1[64], x2[64];
  int st[TL_GPU_STAT_WORDS];
  tl_info info;
  s.a[0] = 0;
  s.c[n - 1] = 0;
  tl_gpu_set_order(TL_GPU_FORWARD, 1);
  cr_assert_eq(tl_gpu_pcr_d(n, 1, s.a, s.b, s.c, s.d, x1, st, &info), TL_OK);
  tl_gpu_set_order(TL_GPU_REVERSE, 1);
  cr_assert_eq(tl_gpu_pcr_d(n, 1, s.a, s.b, s.c, s.d, x2, st, &info), TL_OK);
  cr_expect(memcmp(x1, x2, sizeof x1) == 0);
  th_sys_free(&s);
  reset_order();
}

/* A MISSING BARRIER: two regions back to back. The host runs them in
 * sequence anyway, so it could not tell; the launch reports it. */
TL_KERNEL(no_barrier, double *v)
{
  TL_REGION(t)
  {
    v[t] = t;
  }
  TL_REGION(t)
  {
    v[t] += v[(t + 1) % TL_BLOCK_THREADS];
  }
  TL_BARRIER();
}

Test(gpu_race, missing_barrier_is_reported)
{
  double v[32];
  tl_info info;
  cr_assert_eq(tl_gpu_launch_status(&info), TL_OK);
  TL_LAUNCH(no_barrier, 2, 32, 0, v);
  cr_expect_eq(tl_gpu_launch_status(&info), TL_ERR_ARG);
  cr_expect(strstr(info.msg, "TL_BARRIER") != NULL, "%s", info.msg);
  cr_expect_eq(tl_gpu_launch_status(&info), TL_OK, "the error is cleared once read");
  TL_LAUNCH(no_barrier, 1, TL_GPU_MAX_THREADS + 1, 0, v); /* runs nothing */
  cr_expect_eq(tl_gpu_launch_status(&info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "threads");
}

/* A region's variable used after its barrier does not compile: the
 * scopes of tl_gpu_port.h at work (tests/gpu/scope_error.c; its twin
 * scope_ok.c compiles, so the failure is the scope and nothing else). */
Test(gpu_race, state_across_a_barrier_must_be_per_thread)
{
  FILE *f = fopen("tests/gpu/scope_error.c", "r");
  if (!f)
    cr_skip_test("run from the repository root to compile tests/gpu/");
  fclose(f);
  const char *cc = getenv("CC") ? getenv("CC") : "cc";
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "%s -std=c11 -Iinclude -I. -fsyntax-only tests/gpu/scope_ok.c 2>/dev/null", cc);
  cr_assert_eq(system(cmd), 0, "tests/gpu/scope_ok.c should compile: %s", cmd);
  /* a region's variable after its barrier; another thread's per-thread
   * value; a per-thread value at kernel scope */
  const char *wrong[] = {"scope_error", "scope_my_index", "scope_my_outside"};
  for (int k = 0; k < 3; k++) {
    snprintf(cmd, sizeof cmd, "%s -std=c11 -Iinclude -I. -fsyntax-only tests/gpu/%s.c 2>/dev/null",
             cc, wrong[k]);
    cr_expect_neq(system(cmd), 0, "tests/gpu/%s.c compiled: a thread's state escaped", wrong[k]);
  }
}

/* ---------------------------------------------------------------- */
/* DistD2 phases on packed batches                                   */

/* One DistD2 batch (Lele's matrix, nsys right-hand sides) on the GPU
 * kernels against tl_distd2_plan_solve(_stencil)_d system by system:
 * the batch status is the first failing system's, else the verdict, and
 * the double answers are the reference's bits. huge: system 3 gets a
 * value that overflows the decoupling. */
static void distd2_agrees(size_t n, int periodic, int parts, size_t nsys, int stencil, int huge)
{
  double a[400], b[400], c[400], st[5];
  th_lele6(n, periodic, a, b, c, st, 0.01);
  tl_distd2_plan plan;
  tl_info info, ri;
  cr_assert_eq(tl_distd2_plan_create_d(&plan, n, periodic, parts, NULL, a, b, c, &info), TL_OK,
               "%s", info.msg);
  size_t cnt = tl_cpu_packed_count(n, nsys, TL_GPU_SZ);
  double *in = calloc(n * nsys, sizeof(double)), *xr = calloc(n * nsys, sizeof(double));
  double *pin = calloc(cnt, sizeof(double)), *px = calloc(cnt, sizeof(double));
  double *xg = calloc(n * nsys, sizeof(double));
  for (size_t k = 0; k < n * nsys; k++)
    in[k] = sin(0.37 * (double)k) + 0.1 * (double)(k % 7);
  if (huge && nsys > 3)
    in[3 * n + n / 2] = 1e308;
  int rs = TL_OK; /* the reference, system by system, combined as a batch */
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys; s++) {
    tl_info one;
    int st1 = stencil ? tl_distd2_plan_solve_stencil_d(&plan, st, in + s * n, xr + s * n,
                                                       TL_DISTD2_DEFAULT_TOL, &one)
                      : tl_distd2_plan_solve_d(&plan, in + s * n, xr + s * n, TL_DISTD2_DEFAULT_TOL,
                                               &one);
    tl_outcome_add(&out, s, st1, &one);
  }
  rs = tl_outcome_finish(&out, &ri);
  if (huge && stencil) /* 77 x 1e308 overflows: the hostile case is exercised */
    cr_expect_eq(rs, TL_ERR_BREAKDOWN, "n %zu P %d: %s", n, parts, ri.msg);
  tl_cpu_pack_batch_d(n, nsys, TL_GPU_SZ, in, pin, 0, NULL);
  int gs = stencil
               ? tl_gpu_distd2_stencil_sz_d(&plan, st, nsys, pin, px, TL_DISTD2_DEFAULT_TOL, &info)
               : tl_gpu_distd2_sz_d(&plan, nsys, pin, px, TL_DISTD2_DEFAULT_TOL, &info);
  cr_expect_eq(gs, rs, "distd2 n %zu P %d periodic %d stencil %d: %d vs %d (%s | %s)", n, parts,
               periodic, stencil, gs, rs, info.msg, ri.msg);
  if (gs < 0 && gs == rs) {
    cr_expect_eq(info.system, ri.system);
    cr_expect_eq(info.row, ri.row, "row %ld vs %ld", info.row, ri.row);
  }
  if (gs >= 0 && gs == rs) {
    tl_cpu_unpack_batch_d(n, nsys, TL_GPU_SZ, px, xg, NULL);
    cr_expect(memcmp(xg, xr, n * nsys * sizeof(double)) == 0, "distd2 n %zu P %d: x differs", n,
              parts);
    cr_expect_eq(info.dropped, ri.dropped);
  }
  free(in), free(xr), free(pin), free(px), free(xg);
  tl_distd2_plan_destroy(&plan);
}

Test(gpu_distd2, phases_agree_with_the_reference, .timeout = 300)
{
  static const size_t ns[] = {4, 9, 50, 333};
  static const int parts[] = {1, 2, 3, 7};
  for (size_t in = 0; in < 4; in++)
    for (size_t ip = 0; ip < 4; ip++)
      for (int periodic = 0; periodic <= 1; periodic++)
        for (int stencil = 0; stencil <= 1; stencil++) {
          if (ns[in] < 2 * (size_t)parts[ip])
            continue;
          size_t o = (in + ip + (size_t)periodic) % NORDERS;
          set_orders(o);
          distd2_agrees(ns[in], periodic, parts[ip], 1 + 34 * ip, stencil, 0);
          distd2_agrees(ns[in], periodic, parts[ip], 40, stencil, 1);
        }
  reset_order();
}

/* The float kernels: close to the double ones. */
Test(gpu_distd2, float_phases_are_accurate)
{
  size_t n = 200, nsys = 40, cnt = tl_cpu_packed_count(n, nsys, TL_GPU_SZ);
  double a[200], b[200], c[200], st[5];
  th_lele6(n, 1, a, b, c, st, 0.01);
  tl_distd2_plan plan;
  tl_info info;
  cr_assert_eq(tl_distd2_plan_create_d(&plan, n, 1, 4, NULL, a, b, c, &info), TL_OK);
  double *u = malloc(cnt * sizeof *u), *x = malloc(cnt * sizeof *x);
  float *uf = malloc(cnt * sizeof *uf), *xf = malloc(cnt * sizeof *xf);
  for (size_t k = 0; k < cnt; k++)
    uf[k] = (float)(u[k] = sin(0.01 * (double)k));
  cr_assert_eq(tl_gpu_distd2_stencil_sz_d(&plan, st, nsys, u, x, TL_DISTD2_DEFAULT_TOL, &info),
               TL_OK, "%s", info.msg);
  cr_assert_eq(tl_gpu_distd2_stencil_sz_f(&plan, st, nsys, uf, xf, 1e-6, &info), TL_OK, "%s",
               info.msg);
  double worst = 0, big = 0;
  for (size_t k = 0; k < cnt; k++) {
    worst = fmax(worst, fabs(x[k] - xf[k]));
    big = fmax(big, fabs(x[k]));
  }
  cr_expect_lt(worst / big, 1e-5, "float error %g", worst / big);
  free(u), free(x), free(uf), free(xf);
  tl_distd2_plan_destroy(&plan);
}

/* ---------------------------------------------------------------- */
/* DistD2 on an MPI rank's slices (distd2_gpu_mpi)                    */

/* nsys slices of m rows, rows [row0, row0 + m) of n_total-row systems,
 * each system its own dominant matrix and so its own slice plan: the two
 * slice kernels against the reference's phases system by system --
 * Algorithm 6 (tl_distd2_decouple_d), the rows the exchange sends
 * (tl_distd2_pack_d) and Algorithm 7 (tl_distd2_substitute_d) with given
 * x_first, x_last -- bit for bit, apart and in place; the checker is on
 * (a finding would be the entry's status). bad & 1: system 3 gets an
 * infinite d (the decoupling overflows); bad & 2: an infinite x_first
 * (the substitution does). The breakdown names the system and the
 * reference's row, in the slice. */
static void distd2_slice_agrees(size_t m, size_t nsys, size_t n_total, size_t row0, int periodic,
                                int bad)
{
  size_t cnt = m * nsys;
  double *abcd = malloc(4 * cnt * sizeof(double)), *a = abcd, *b = a + cnt, *c = b + cnt;
  double *d = c + cnt, *rows = malloc(5 * cnt * sizeof(double)), *fix = malloc(nsys * 8);
  double *dt = malloc(cnt * 8), *dtr = calloc(cnt, 8), *x = malloc(cnt * 8);
  double *xr = malloc(cnt * 8), *xin = malloc(cnt * 8), *edge = malloc(6 * nsys * 8);
  double *ends = malloc(2 * nsys * 8);
  int *stat = malloc(3 * nsys * sizeof(int));
  cr_assert(abcd && rows && fix && dt && dtr && x && xr && xin && edge && ends && stat);
  for (size_t k = 0; k < cnt; k++) {
    a[k] = sin(0.7 * (double)k + 0.3);
    c[k] = cos(1.3 * (double)k);
    b[k] = 4 + 0.5 * sin(0.11 * (double)k);
    d[k] = 1 + 0.01 * (double)(k % 17) + sin(0.05 * (double)k);
  }
  if ((bad & 1) && nsys > 3)
    d[3 * m + m / 2] = INFINITY;
  tl_distd2_plan *plans = calloc(nsys, sizeof *plans);
  tl_info info, ri;
  int rdec = TL_OK, rsub = TL_OK;
  long dsys = -1, drow = -1, ssys = -1, srow = -1;
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * m;
    cr_assert_eq(tl_distd2_plan_slice_in_d(&plans[s], n_total, periodic, row0, m, a + o, b + o,
                                           c + o, rows + 5 * o, &info),
                 TL_OK, "%s", info.msg);
    fix[s] = plans[s].fix_scale[0];
    ends[2 * s] = (bad & 2) && s == 3 ? INFINITY : sin((double)s);
    ends[2 * s + 1] = cos((double)s);
    int st = tl_distd2_decouple_d(&plans[s], 0, d + o, dtr + o, &ri);
    if (st < 0 && rdec == TL_OK)
      rdec = st, dsys = (long)s, drow = ri.row - (long)row0;
    st = tl_distd2_substitute_d(&plans[s], 0, ends[2 * s], ends[2 * s + 1], dtr + o, xr + o, &ri);
    if (st < 0 && rsub == TL_OK)
      rsub = st, ssys = (long)s, srow = ri.row - (long)row0;
  }
  int gs = tl_gpu_distd2_slice_decouple_d(m, nsys, rows, fix, d, dt, edge, stat, &info);
  cr_expect_eq(gs, rdec, "m %zu nsys %zu row0 %zu: decouple %d vs %d (%s)", m, nsys, row0, gs, rdec,
               info.msg);
  if (gs < 0 && gs == rdec)
    cr_expect(info.system == dsys && info.row == drow, "system %ld row %ld, reference %ld %ld",
              info.system, info.row, dsys, drow);
  for (size_t s = 0; s < nsys; s++) {
    if ((long)s == dsys)
      continue;
    tl_distd2_edge e;
    tl_distd2_pack_d(&plans[s], 0, dtr + s * m, &e);
    cr_expect(memcmp(dt + s * m, dtr + s * m, m * 8) == 0, "d' of system %zu differs", s);
    cr_expect(memcmp(edge + 6 * s, &e, sizeof e) == 0, "the edge of system %zu differs", s);
  }
  if (dsys >= 0) /* the reference's d' of the system that broke down: the same input */
    memcpy(dt + (size_t)dsys * m, dtr + (size_t)dsys * m, m * 8);
  memcpy(xin, dt, cnt * 8);
  for (int in_place = 0; in_place <= 1; in_place++) {
    double *out = in_place ? xin : x;
    gs = tl_gpu_distd2_slice_substitute_d(m, nsys, rows, ends, in_place ? xin : dt, out, stat,
                                          &info);
    cr_expect_eq(gs, rsub, "m %zu: substitute %d vs %d (%s)", m, gs, rsub, info.msg);
    if (gs < 0 && gs == rsub)
      cr_expect(info.system == ssys && info.row == srow, "system %ld row %ld, reference %ld %ld",
                info.system, info.row, ssys, srow);
    for (size_t s = 0; s < nsys; s++)
      if ((long)s != dsys && (long)s != ssys)
        cr_expect(memcmp(out + s * m, xr + s * m, m * 8) == 0, "x of system %zu differs (%s)", s,
                  in_place ? "in place" : "apart");
  }
  for (size_t s = 0; s < nsys; s++)
    tl_distd2_plan_destroy(&plans[s]);
  free(plans), free(abcd), free(rows), free(fix), free(dt), free(dtr), free(x), free(xr);
  free(xin), free(edge), free(ends), free(stat);
}

Test(gpu_distd2, slice_phases_agree_with_the_reference, .timeout = 120)
{
  static const size_t ms[] = {2, 3, 9, 40, 101};
  static const size_t counts_[] = {1, 7, 33, 70};
  for (size_t o = 0; o < NORDERS; o++) {
    set_orders(o);
    for (size_t im = 0; im < 5; im++)
      for (size_t ic = 0; ic < 4; ic++) {
        size_t m = ms[im], nsys = counts_[ic];
        distd2_slice_agrees(m, nsys, 3 * m, m, 0, 0);           /* a middle rank */
        distd2_slice_agrees(m, nsys, 2 * m, 0, (int)ic & 1, 0); /* the first rank */
        distd2_slice_agrees(m, nsys, 4 * m + 1, 3 * m + 1, 1, 1 + (int)(o & 1));
      }
  }
  reset_order();
}

/* A resident-slices case on m = 2, 9, 101 rows and the three batch
 * sizes `batches`, in the four order pairs. */
static void in_every_order(void (*agrees)(size_t m, size_t nsys), const size_t batches[3])
{
  static const size_t ms[] = {2, 9, 101};
  for (size_t o = 0; o < NORDERS; o++) {
    set_orders(o);
    for (size_t im = 0; im < 3; im++)
      for (size_t ic = 0; ic < 3; ic++)
        agrees(ms[im], batches[ic]);
  }
  reset_order();
}

/* The resident slices (tl_gpu_distd2_resident_*, what distd2_gpu_mpi
 * runs) against the copying slice entry points on the same inputs: the
 * same returns, status words, edges, d' (fetched back system by system)
 * and x, bit for bit, with an overflow in the decoupling (system 3's d)
 * and in the substitution (system 5's x_first) where nsys allows; a d'
 * put back for system 0 is the one the substitution uses; the bytes that
 * crossed are the ones the header counts; bad arguments are refused. */
static void resident_agrees(size_t m, size_t nsys)
{
  size_t cnt = m * nsys;
  double *abc = malloc(3 * cnt * 8), *rows = malloc(5 * cnt * 8), *fix = malloc(nsys * 8);
  double *d = malloc(cnt * 8), *dt = malloc(cnt * 8), *dtr = malloc(cnt * 8);
  double *x = malloc(cnt * 8), *xr = malloc(cnt * 8), *edge = malloc(6 * nsys * 8);
  double *edger = malloc(6 * nsys * 8), *ends = malloc(2 * nsys * 8);
  int *stat = malloc(3 * nsys * sizeof(int)), *statr = malloc(3 * nsys * sizeof(int));
  cr_assert(abc && rows && fix && d && dt && dtr && x && xr && edge && edger && ends && stat &&
            statr);
  tl_info info;
  for (size_t k = 0; k < cnt; k++) {
    abc[k] = sin(0.7 * (double)k), abc[cnt + k] = 4 + cos((double)k);
    abc[2 * cnt + k] = cos(1.3 * (double)k), d[k] = sin(0.01 * (double)k);
  }
  if (nsys > 3)
    d[3 * m + m / 2] = INFINITY;
  for (size_t s = 0; s < nsys; s++) {
    tl_distd2_plan plan;
    size_t o = s * m;
    cr_assert_eq(tl_distd2_plan_slice_in_d(&plan, 3 * m, 0, m, m, abc + o, abc + cnt + o,
                                           abc + 2 * cnt + o, rows + 5 * o, &info),
                 TL_OK, "%s", info.msg);
    fix[s] = plan.fix_scale[0];
    ends[2 * s] = s == 5 ? INFINITY : sin((double)s), ends[2 * s + 1] = cos((double)s);
    tl_distd2_plan_destroy(&plan);
  }
  /* the copying entry points */
  int rdec = tl_gpu_distd2_slice_decouple_d(m, nsys, rows, fix, d, dtr, edger, statr, &info);
  for (size_t k = 0; k < m; k++) /* system 0's d', changed by the caller */
    dtr[k] = 0.5 + 0.25 * (double)k;
  memcpy(dt, dtr, m * 8);
  int *dec_stat = malloc(3 * nsys * sizeof(int));
  cr_assert(dec_stat);
  memcpy(dec_stat, statr, 3 * nsys * sizeof(int));
  int rsub = tl_gpu_distd2_slice_substitute_d(m, nsys, rows, ends, dtr, xr, statr, &info);
  /* the resident slices */
  tl_gpu_distd2_resident *r = NULL;
  cr_assert_eq(tl_gpu_distd2_resident_open_d(m, nsys, rows, fix, d, &r, &info), TL_OK, "%s",
               info.msg);
  int gdec = tl_gpu_distd2_resident_decouple_d(r, edge, stat, &info);
  cr_expect_eq(gdec, rdec, "m %zu nsys %zu: decouple %d vs %d", m, nsys, gdec, rdec);
  cr_expect(memcmp(edge, edger, 6 * nsys * 8) == 0, "m %zu nsys %zu: edges differ", m, nsys);
  for (size_t s = 0; s < nsys; s++) /* words 0 and 1 the kernel's, word 2 still "no row" */
    cr_expect(stat[3 * s] == dec_stat[3 * s] && stat[3 * s + 1] == dec_stat[3 * s + 1] &&
                  stat[3 * s + 2] == -1,
              "m %zu: status words of system %zu after the decoupling", m, s);
  free(dec_stat);
  for (size_t s = 1; s < nsys; s++) {
    double got[128];
    cr_assert(m <= 128);
    cr_assert_eq(tl_gpu_distd2_resident_dt_d(r, s, got, 0, &info), TL_OK, "%s", info.msg);
    cr_expect(memcmp(got, dtr + s * m, m * 8) == 0, "m %zu: d' of system %zu differs", m, s);
  }
  cr_assert_eq(tl_gpu_distd2_resident_dt_d(r, 0, dt, 1, &info), TL_OK, "%s", info.msg);
  int gsub = tl_gpu_distd2_resident_substitute_d(r, ends, x, stat, &info);
  cr_expect_eq(gsub, rsub, "m %zu nsys %zu: substitute %d vs %d", m, nsys, gsub, rsub);
  cr_expect(memcmp(stat, statr, 3 * nsys * sizeof(int)) == 0, "status words differ");
  cr_expect(memcmp(x, xr, cnt * 8) == 0, "m %zu nsys %zu: x differs", m, nsys);
  size_t up, down, z = 8, i = sizeof(int);
  tl_gpu_distd2_resident_traffic(r, &up, &down);
  size_t want_up = 6 * cnt * z + nsys * z + 3 * nsys * i + m * z + 2 * nsys * z;
  size_t want_down = 6 * nsys * z + 3 * nsys * i + (nsys - 1) * m * z + cnt * z + 3 * nsys * i;
  cr_expect(up == want_up && down == want_down, "bytes up %zu (%zu), down %zu (%zu)", up, want_up,
            down, want_down);
  cr_expect_eq(tl_gpu_distd2_resident_dt_d(r, nsys, dt, 0, &info), TL_ERR_ARG);
  tl_gpu_distd2_resident_close(r);
  free(abc), free(rows), free(fix), free(d), free(dt), free(dtr), free(x), free(xr);
  free(edge), free(edger), free(ends), free(stat), free(statr);
}

Test(gpu_distd2, resident_slices_equal_the_copying_entry_points, .timeout = 120)
{
  static const size_t counts_[] = {1, 7, 33};
  in_every_order(resident_agrees, counts_);
  tl_gpu_distd2_resident *r = (tl_gpu_distd2_resident *)1;
  double one[4] = {1, 1, 1, 1};
  tl_info info;
  cr_expect_eq(tl_gpu_distd2_resident_open_d(1, 1, one, one, one, &r, &info), TL_ERR_ARG);
  cr_expect_null(r, "a refused open leaves no slices");
  cr_expect_eq(tl_gpu_distd2_resident_open_d(2, 1, NULL, one, one, &r, &info), TL_ERR_ARG);
  cr_expect_eq(tl_gpu_distd2_resident_open_d(2, 1, one, one, one, NULL, &info), TL_ERR_ARG);
  cr_expect_eq(tl_gpu_distd2_resident_decouple_d(NULL, one, (int *)one, &info), TL_ERR_ARG);
  tl_gpu_distd2_resident_close(NULL);
}

/* PDD's resident slices (tl_gpu_pdd_resident_*, what pdd_gpu_mpi runs)
 * against the copying slice entry point (tl_gpu_pdd_slice_d: another
 * kernel over the same device function) and the reference's correction
 * (tl_pdd_ref_correct_d) on its y, v and w, a rank with a left and a
 * right neighbour or either or none: the same returns, status words,
 * drops and margins, the six ends of y, v and w, and x bit for bit, with
 * a zero pivot in system 2 (its x skipped, as pdd_gpu_mpi hands it to
 * the reference) and an infinite neighbour value in system 4 (the
 * correction's first row not finite, the reference's rows before it);
 * a skipped system's x is not touched; the bytes that crossed are the
 * ones the header counts. */
static void pdd_resident_agrees(size_t m, size_t nsys, int left, int right)
{
  size_t cnt = m * nsys, z = sizeof(double), i = sizeof(int);
  double *a = malloc(cnt * z), *b = malloc(cnt * z), *c = malloc(cnt * z), *d = malloc(cnt * z);
  double *y = malloc(cnt * z), *v = malloc(cnt * z), *w = malloc(cnt * z);
  double *x = malloc(cnt * z), *xr = malloc(cnt * z), *part = malloc(3 * nsys * z);
  double *partr = malloc(3 * nsys * z), *ends = malloc(TL_GPU_PDD_ENDS * nsys * z);
  double *lr = malloc(2 * nsys * z), *xmax = malloc(nsys * z);
  int *stat = malloc(3 * nsys * i), *statr = malloc(3 * nsys * i), *row = malloc(nsys * i);
  unsigned char *skip = calloc(nsys, 1);
  cr_assert(a && b && c && d && y && v && w && x && xr && part && partr && ends && lr && xmax &&
            stat && statr && row && skip);
  for (size_t k = 0; k < cnt; k++) {
    a[k] = sin(0.7 * (double)k), b[k] = 4 + cos((double)k);
    c[k] = cos(1.3 * (double)k), d[k] = sin(0.01 * (double)k);
  }
  if (nsys > 2) /* a = b = 0: a zero pivot in system 2's local solve */
    a[2 * m + m / 2] = b[2 * m + m / 2] = 0, skip[2] = 1;
  if (nsys > 1)
    skip[1] = 1;
  tl_info info;
  int rc = tl_gpu_pdd_slice_d(m, nsys, left, right, a, b, c, d, y, v, w, partr, statr, &info);
  tl_gpu_pdd_resident *r = NULL;
  cr_assert_eq(tl_gpu_pdd_resident_open_d(m, nsys, left, right, a, b, c, d, &r, &info), TL_OK, "%s",
               info.msg);
  int got = tl_gpu_pdd_resident_local_d(r, ends, part, stat, &info);
  cr_expect_eq(got, rc, "m %zu nsys %zu: local %d vs %d", m, nsys, got, rc);
  cr_expect(memcmp(part, partr, 3 * nsys * z) == 0 && memcmp(stat, statr, 3 * nsys * i) == 0,
            "m %zu nsys %zu: drops, margins or status words differ", m, nsys);
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * m, l = o + m - 1;
    double want[TL_GPU_PDD_ENDS] = {y[o], y[l], v[o], v[l], w[o], w[l]};
    cr_expect(memcmp(ends + TL_GPU_PDD_ENDS * s, want, sizeof want) == 0,
              "m %zu: the ends of system %zu differ", m, s);
    lr[2 * s] = s == 4 ? INFINITY : sin((double)s);
    lr[2 * s + 1] = s == 4 ? -INFINITY : cos((double)s);
  }
  /* the reference's correction on the copying entry point's y, v, w */
  int want_rc = TL_OK;
  memcpy(xr, y, cnt * z);
  for (size_t s = 0; s < nsys; s++) {
    for (size_t k = 0; skip[s] && k < m; k++)
      xr[s * m + k] = x[s * m + k] = 7.0; /* untouched */
    if (skip[s])
      continue;
    tl_pdd_part_d pt;
    memset(&pt, 0, sizeof pt);
    pt.m = m, pt.end = m, pt.kv = left ? m : 0, pt.kw = right ? m : 0;
    pt.v = v + s * m, pt.w = w + s * m, pt.x_left = lr[2 * s], pt.x_right = lr[2 * s + 1];
    tl_info one;
    int st = tl_pdd_ref_correct_d(&pt, xr + s * m, &one);
    if (st < 0 && want_rc == TL_OK)
      want_rc = st;
    cr_expect_eq(row[s] = st < 0 ? (int)one.row : -1, (left || right) && s == 4 ? 0 : -1,
                 "m %zu: system %zu's reference correction", m, s);
    xmax[s] = pt.xmax;
  }
  double *xmaxr = malloc(nsys * z);
  int *rowr = malloc(nsys * i);
  cr_assert(xmaxr && rowr);
  memcpy(xmaxr, xmax, nsys * z);
  memcpy(rowr, row, nsys * i);
  got = tl_gpu_pdd_resident_correct_d(r, lr, skip, x, xmax, row, &info);
  cr_expect_eq(got, want_rc, "m %zu nsys %zu: correct %d vs %d", m, nsys, got, want_rc);
  cr_expect(memcmp(x, xr, cnt * z) == 0, "m %zu nsys %zu: x differs", m, nsys);
  for (size_t s = 0; s < nsys; s++)
    cr_expect(skip[s] || (row[s] == rowr[s] && (row[s] >= 0 || xmax[s] == xmaxr[s])),
              "m %zu: system %zu's row %d (%d) or largest |x| %g (%g)", m, s, row[s], rowr[s],
              xmax[s], xmaxr[s]);
  size_t up, down, kept = 0;
  for (size_t s = 0; s < nsys; s++)
    kept += !skip[s];
  tl_gpu_pdd_resident_traffic(r, &up, &down);
  size_t want_up = 4 * cnt * z + 2 * nsys * z;
  size_t want_down =
      (TL_GPU_PDD_ENDS + 3) * nsys * z + 3 * nsys * i + kept * m * z + nsys * (z + i);
  cr_expect(up == want_up && down == want_down, "bytes up %zu (%zu), down %zu (%zu)", up, want_up,
            down, want_down);
  tl_gpu_pdd_resident_close(r);
  free(a), free(b), free(c), free(d), free(y), free(v), free(w), free(x), free(xr), free(part);
  free(partr), free(ends), free(lr), free(xmax), free(stat), free(statr), free(row), free(skip);
  free(xmaxr), free(rowr);
}

/* A first, a middle, a last and a lone rank's slices. */
static void pdd_resident_every_rank(size_t m, size_t nsys)
{
  for (int e = 0; e < 4; e++)
    pdd_resident_agrees(m, nsys, e & 1, (e & 2) != 0);
}

Test(gpu_pdd, resident_slices_equal_the_copying_entry_point, .timeout = 120)
{
  static const size_t counts_[] = {1, 7, 33};
  in_every_order(pdd_resident_every_rank, counts_);
  tl_gpu_pdd_resident *r = (tl_gpu_pdd_resident *)1;
  double one[4] = {1, 1, 1, 1};
  int words[3];
  tl_info info;
  cr_expect_eq(tl_gpu_pdd_resident_open_d(1, 1, 1, 1, one, one, one, one, &r, &info), TL_ERR_ARG);
  cr_expect_null(r, "a refused open leaves no slices");
  cr_expect_eq(tl_gpu_pdd_resident_open_d(2, 1, 1, 1, one, NULL, one, one, &r, &info), TL_ERR_ARG);
  cr_expect_eq(tl_gpu_pdd_resident_open_d(2, 1, 1, 1, one, one, one, one, NULL, &info), TL_ERR_ARG);
  cr_expect_eq(tl_gpu_pdd_resident_local_d(NULL, one, one, words, &info), TL_ERR_ARG);
  cr_expect_eq(tl_gpu_pdd_resident_correct_d(NULL, one, NULL, one, one, words, &info), TL_ERR_ARG);
  tl_gpu_pdd_resident_close(NULL);
  /* the correction works in place over y: once after each local phase */
  double ends[TL_GPU_PDD_ENDS], part[3], lr[2] = {0.5, 0.5}, x[2], xmax;
  double a2[2] = {0, 1}, b2[2] = {4, 4}, c2[2] = {1, 0}, d2[2] = {1, 2};
  cr_assert_eq(tl_gpu_pdd_resident_open_d(2, 1, 1, 1, a2, b2, c2, d2, &r, &info), TL_OK);
  cr_expect_eq(tl_gpu_pdd_resident_correct_d(r, lr, NULL, x, &xmax, words, &info), TL_ERR_ARG,
               "a correction before the local phase");
  cr_expect_eq(tl_gpu_pdd_resident_local_d(r, ends, part, words, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(tl_gpu_pdd_resident_correct_d(r, lr, NULL, x, &xmax, words, &info), TL_OK);
  cr_expect_eq(tl_gpu_pdd_resident_correct_d(r, lr, NULL, x, &xmax, words, &info), TL_ERR_ARG,
               "a second correction");
  cr_expect_eq(tl_gpu_pdd_resident_local_d(r, ends, part, words, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(tl_gpu_pdd_resident_correct_d(r, lr, NULL, x, &xmax, words, &info), TL_OK,
               "a correction after the next local phase");
  tl_gpu_pdd_resident_close(r);
}

/* The compact scheme's resident slices (tl_gpu_compact_resident_*, what
 * tl_mpi_distd2_compact_gpu runs) against the CPU's packed kernels on the
 * same slice plan and u with ghost rows (tl_cpu_distd2_decouple_stencil_sz_d
 * and tl_cpu_distd2_substitute_sz_d with SZ = TL_GPU_SZ): d' of rows 0 and
 * m-1 and x bit for bit, the lanes past the last system 0, the status
 * words -1; the substitution once after each decoupling. */
static void compact_resident_agrees(size_t m, size_t nsys)
{
  size_t sz = TL_GPU_SZ, groups = (nsys + sz - 1) / sz, uc = groups * (m + 4) * sz;
  size_t xc = groups * m * sz;
  double *abc = malloc(3 * m * sizeof *abc), *uh = malloc(uc * sizeof *uh);
  double *dt = calloc(xc, sizeof *dt), *x = calloc(xc, sizeof *x), *du = malloc(xc * sizeof *du);
  double *ends = malloc(2 * nsys * sizeof *ends), *xs = malloc(2 * nsys * sizeof *xs);
  int *stat = malloc(2 * nsys * sizeof *stat);
  double st[5] = {-0.1, -0.7, 0, 0.7, 0.1};
  cr_assert(abc && uh && dt && x && du && ends && xs && stat);
  for (size_t j = 0; j < m; j++)
    abc[j] = sin(0.7 * (double)j), abc[m + j] = 4, abc[2 * m + j] = cos(1.3 * (double)j);
  for (size_t k = 0; k < uc; k++)
    uh[k] = sin(0.01 * (double)k) + 0.1 * (double)(k % 5);
  tl_distd2_plan plan;
  tl_info info;
  cr_assert_eq(tl_distd2_plan_slice_d(&plan, 3 * m, 0, m, m, abc, abc + m, abc + 2 * m, &info),
               TL_OK, "%s", info.msg);
  cr_assert_eq(tl_cpu_distd2_decouple_stencil_sz_d(&plan, 0, st, nsys, sz, uh, dt, &info), TL_OK);
  for (size_t s = 0; s < nsys; s++)
    xs[s] = sin((double)s), xs[nsys + s] = cos((double)s);
  cr_assert_eq(tl_cpu_distd2_substitute_sz_d(&plan, 0, nsys, sz, xs, xs + nsys, dt, x, &info),
               TL_OK);
  tl_gpu_compact_resident *r = NULL;
  cr_assert_eq(tl_gpu_compact_resident_open_d(&plan, st, nsys, uh, &r, &info), TL_OK, "%s",
               info.msg);
  cr_expect_eq(tl_gpu_compact_resident_substitute_d(r, xs, du, stat, &info), TL_ERR_ARG,
               "a substitution before the decoupling");
  cr_assert_eq(tl_gpu_compact_resident_decouple_d(r, ends, stat, &info), TL_OK, "%s", info.msg);
  for (size_t s = 0; s < nsys; s++) {
    size_t o = (s / sz) * m * sz + s % sz;
    cr_expect(ends[2 * s] == dt[o] && ends[2 * s + 1] == dt[o + (m - 1) * sz] &&
                  stat[2 * s] == -1 && stat[2 * s + 1] == -1,
              "m %zu: system %zu's ends or status words after the decoupling", m, s);
    ends[2 * s] = xs[s], ends[2 * s + 1] = xs[nsys + s];
  }
  cr_assert_eq(tl_gpu_compact_resident_substitute_d(r, ends, du, stat, &info), TL_OK, "%s",
               info.msg);
  cr_expect_eq(tl_gpu_compact_resident_substitute_d(r, ends, du, stat, &info), TL_ERR_ARG,
               "a second substitution");
  for (size_t s = 0; s < groups * sz; s++)
    for (size_t j = 0; j < m; j++) {
      size_t o = (s / sz) * m * sz + s % sz + j * sz;
      cr_assert(s < nsys ? du[o] == x[o] : du[o] == 0, "m %zu nsys %zu: x of lane %zu row %zu", m,
                nsys, s, j);
    }
  for (size_t s = 0; s < nsys; s++)
    cr_expect_eq(stat[2 * s + 1], -1);
  tl_gpu_compact_resident_close(r);
  tl_distd2_plan_destroy(&plan);
  free(abc), free(uh), free(dt), free(x), free(du), free(ends), free(xs), free(stat);
}

Test(gpu_distd2, compact_resident_equals_the_packed_cpu_kernels, .timeout = 120)
{
  static const size_t counts_[] = {1, 33, 70};
  in_every_order(compact_resident_agrees, counts_);
  tl_gpu_compact_resident *r = (tl_gpu_compact_resident *)1;
  double one[4] = {1, 1, 1, 1}, st[5] = {0, 0, 1, 0, 0};
  tl_info info;
  cr_expect_eq(tl_gpu_compact_resident_open_d(NULL, st, 1, one, &r, &info), TL_ERR_ARG);
  cr_expect_null(r, "a refused open leaves no slices");
  cr_expect_eq(tl_gpu_compact_resident_decouple_d(NULL, one, (int *)one, &info), TL_ERR_ARG);
  tl_gpu_compact_resident_close(NULL);
}

/* The float slice kernels: the double plans rounded to float, close to
 * the double kernels' d', edges and x. */
Test(gpu_distd2, float_slice_phases_are_accurate)
{
  enum { M = 60, NSYS = 37 };
  size_t cnt = (size_t)M * NSYS;
  double *abc = malloc(3 * cnt * sizeof(double)), *rows = malloc(5 * cnt * sizeof(double));
  double *d = malloc(cnt * 8), *dt = malloc(cnt * 8), *x = malloc(cnt * 8);
  double fix[NSYS], edge[6 * NSYS], ends[2 * NSYS];
  float *rf = malloc(5 * cnt * sizeof(float)), *df = malloc(cnt * 4), *dtf = malloc(cnt * 4);
  float *xf = malloc(cnt * 4), fixf[NSYS], edgef[6 * NSYS], endsf[2 * NSYS];
  int stat[3 * NSYS];
  cr_assert(abc && rows && d && dt && x && rf && df && dtf && xf);
  tl_info info;
  for (size_t k = 0; k < cnt; k++) {
    abc[k] = sin(0.7 * (double)k), abc[cnt + k] = 4, abc[2 * cnt + k] = cos(1.3 * (double)k);
    df[k] = (float)(d[k] = sin(0.01 * (double)k));
  }
  for (size_t s = 0; s < NSYS; s++) {
    tl_distd2_plan plan;
    size_t o = s * M;
    cr_assert_eq(tl_distd2_plan_slice_in_d(&plan, 3 * M, 1, M, M, abc + o, abc + cnt + o,
                                           abc + 2 * cnt + o, rows + 5 * o, &info),
                 TL_OK, "%s", info.msg);
    fixf[s] = (float)(fix[s] = plan.fix_scale[0]);
    endsf[2 * s] = (float)(ends[2 * s] = 0.5);
    endsf[2 * s + 1] = (float)(ends[2 * s + 1] = -0.25);
    tl_distd2_plan_destroy(&plan);
  }
  for (size_t k = 0; k < 5 * cnt; k++)
    rf[k] = (float)rows[k];
  cr_assert_eq(tl_gpu_distd2_slice_decouple_d(M, NSYS, rows, fix, d, dt, edge, stat, &info), TL_OK);
  cr_assert_eq(tl_gpu_distd2_slice_decouple_f(M, NSYS, rf, fixf, df, dtf, edgef, stat, &info),
               TL_OK, "%s", info.msg);
  cr_assert_eq(tl_gpu_distd2_slice_substitute_d(M, NSYS, rows, ends, dt, x, stat, &info), TL_OK);
  cr_assert_eq(tl_gpu_distd2_slice_substitute_f(M, NSYS, rf, endsf, dtf, xf, stat, &info), TL_OK,
               "%s", info.msg);
  double worst = 0, big = 0;
  for (size_t k = 0; k < cnt; k++) {
    worst = fmax(worst, fmax(fabs(x[k] - xf[k]), fabs(dt[k] - dtf[k])));
    big = fmax(big, fmax(fabs(x[k]), fabs(dt[k])));
  }
  for (size_t k = 0; k < 6 * NSYS; k++)
    worst = fmax(worst, fabs(edge[k] - edgef[k]));
  cr_expect_lt(worst / big, 1e-5, "float error %g", worst / big);
  free(abc), free(rows), free(d), free(dt), free(x), free(rf), free(df), free(dtf), free(xf);
}

/* ---------------------------------------------------------------- */
/* PDD's local phase                                                 */

/* The kernel against tl_pdd_ref_local_d, partition by partition: y, both
 * spikes, the drops and the margin, bit for bit; the first failure. */
static void pdd_local_agrees(int id, size_t n, size_t nsys, int parts, int zero_row)
{
  tl_problem p;
  tl_info info, ri;
  cr_assert_eq(tl_gallery_make(id, n, nsys, 5, &p, &info), TL_OK);
  double *b = p.b;
  if (zero_row >= 0)
    b[(nsys - 1) * n + (size_t)zero_row] = 0;
  size_t cnt = n * nsys, q = nsys * (size_t)parts;
  double *y = calloc(cnt, sizeof(double)), *v = calloc(cnt, sizeof(double));
  double *w = calloc(cnt, sizeof(double)), *part = calloc(3 * q, sizeof(double));
  double *xr = calloc(cnt, sizeof(double));
  int *stat = calloc(3 * q, sizeof(int));
  int gs = tl_gpu_pdd_local_d(n, nsys, parts, NULL, p.a, p.b, p.c, p.d, y, v, w, part, stat, &info);
  int rs = TL_OK;
  for (size_t s = 0; s < nsys && rs == TL_OK; s++)
    for (int k = 0; k < parts && rs == TL_OK; k++) {
      tl_pdd_part_d pt;
      cr_assert_eq(tl_pdd_part_init_d(&pt, n, parts, NULL, k, &ri), TL_OK);
      size_t o = s * n + pt.begin, m = pt.m, e = (s * (size_t)parts + (size_t)k) * 3;
      rs = tl_pdd_ref_local_d(&pt, (double *)p.a + o, (double *)p.b + o, (double *)p.c + o,
                              (double *)p.d + o, xr + o, &ri);
      if (rs == TL_OK) {
        cr_expect(memcmp(y + o, xr + o, m * sizeof(double)) == 0, "y, s %zu p %d", s, k);
        cr_expect(k == 0 || memcmp(v + o, pt.v, m * sizeof(double)) == 0, "v, s %zu p %d", s, k);
        cr_expect(k + 1 == parts || memcmp(w + o, pt.w, m * sizeof(double)) == 0, "w, p %d", k);
        cr_expect(part[e] == pt.drop_v && part[e + 1] == pt.drop_w && part[e + 2] == pt.margin,
                  "type %d s %zu p %d: drops %g %g margin %g vs %g %g %g", id, s, k, part[e],
                  part[e + 1], part[e + 2], pt.drop_v, pt.drop_w, pt.margin);
        cr_expect_eq(stat[e + 2], pt.margin_row);
      } else {
        ri.system = (long)s;
      }
      tl_pdd_part_free_d(&pt);
    }
  cr_expect_eq(gs, rs, "type %d n %zu P %d: %s | %s", id, n, parts, info.msg, ri.msg);
  if (gs < 0 && gs == rs)
    cr_expect(info.row == ri.row && info.system == ri.system, "row %ld vs %ld", info.row, ri.row);
  free(y), free(v), free(w), free(part), free(xr), free(stat);
  tl_problem_free(&p);
}

Test(gpu_pdd, local_phase_agrees_with_the_reference, .timeout = 120)
{
  static const int types[] = {20, 21, 23};
  static const int parts[] = {1, 2, 3, 8};
  for (size_t t = 0; t < 3; t++)
    for (size_t k = 0; k < 4; k++)
      for (size_t o = 0; o < NORDERS; o++) {
        set_orders(o);
        pdd_local_agrees(types[t], 97, 5, parts[k], -1);
        pdd_local_agrees(types[t], 40, 3, parts[k], (int)(7 * k + o) % 40);
      }
  reset_order();
}
