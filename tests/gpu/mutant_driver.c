/* tests/gpu/mutant_driver.c -- runs one kernel family's entry point on
 * the emulator, in every thread and block order, and says what the
 * checker found (docs/gpu.md, "The checker").
 *
 *   mutant_driver FAMILY KIND
 *
 * FAMILY: thomas, periodic, pcr, hybrid, hybrid-chip (the on-chip
 * hybrid kernel), distd2, distd2-slice (the
 * kernels of an MPI rank's DistD2 slices), distd2-compact (those of the
 * compact scheme across ranks: tl_gpu_compact_resident_*), pdd, pdd-slice
 * (those of its PDD slices, resident: tl_gpu_pdd_resident_*), spike. KIND: what the
 * checker must find in every order (race, race-blocks, uninitialized,
 * bounds), or "clean": nothing; or "orders": with the checker off, the
 * family's registry backend (--param orders=all, its default) must
 * report that its answer depends on the order. Linked with a mutant of the kernels
 * (tests/gpu/mutants.txt, scripts/check-gpu-mutants.sh), or with the
 * library's own kernels for "clean". Each family runs on two batches:
 * dominant systems, and the same with a zero pivot in one system (so
 * that the failure paths run too). Exit 0 when the expectation holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/gpu_emulator.h"
#include "tridlab/gpu.h"
#include "tridlab/layout.h"
#include "tridlab/part_distd2.h"
#include "tridlab/registry.h"
#include "slice_batch.h"

static const char *const kinds[] = {"race", "race-blocks", "uninitialized", "bounds"};


/* One run of the family's entry point; the status. */
static int run(const char *family, int broken, tl_info *info)
{
  enum { N = 37, NSYS = 70, PN = 1000, PSYS = 3, HN = 64, PARTS = 4 };
  size_t big = tl_cpu_packed_count(PN, PSYS, 1) + tl_cpu_packed_count(N, NSYS, TL_GPU_SZ) + 64;
  double *a = calloc(big, sizeof *a), *b = calloc(big, sizeof *b), *c = calloc(big, sizeof *c);
  double *d = calloc(big, sizeof *d), *x = calloc(big, sizeof *x), *w = calloc(2 * big, sizeof *w);
  double *y = calloc(big, sizeof *y), *v = calloc(big, sizeof *v),
         *part = calloc(big, sizeof *part);
  int *stat = calloc(big, sizeof *stat);
  int status = TL_ERR_NOMEM;
  if (!a || !b || !c || !d || !x || !w || !y || !v || !part || !stat)
    goto done;
  if (!strcmp(family, "thomas") || !strcmp(family, "periodic")) {
    size_t cnt = tl_cpu_packed_count(N, NSYS, TL_GPU_SZ);
    fill(cnt, broken, a, b, c, d);
    status = family[0] == 't' ? tl_gpu_thomas_sz_d(N, NSYS, a, b, c, d, w, stat, info)
                              : tl_gpu_thomas_periodic_sz_d(N, NSYS, a, b, c, d, w, stat, info);
  } else if (!strcmp(family, "pcr")) { /* n = 1000: the work systems in global memory */
    fill((size_t)PN * PSYS, broken, a, b, c, d);
    status = tl_gpu_pcr_d(PN, PSYS, a, b, c, d, x, stat, info);
    if (status != TL_ERR_ARG) { /* and n = 37: in shared memory */
      fill((size_t)N * PSYS, broken, a, b, c, d);
      status = tl_gpu_pcr_d(N, PSYS, a, b, c, d, x, stat, info);
    }
  } else if (!strcmp(family, "hybrid")) { /* partitions of 16 rows: global scratch */
    fill((size_t)HN * PSYS, broken, a, b, c, d);
    status = tl_gpu_hybrid_pcr_d(HN, PSYS, PARTS, NULL, a, b, c, d, x, stat, info);
  } else if (!strcmp(family, "hybrid-chip")) { /* 13 partitions of 4 or 5 rows: on chip */
    fill((size_t)HN * PSYS, broken, a, b, c, d);
    status = tl_gpu_hybrid_pcr_d(HN, PSYS, 13, NULL, a, b, c, d, x, stat, info);
  } else if (!strcmp(family, "pdd")) {
    fill((size_t)HN * PSYS, broken, a, b, c, d);
    status = tl_gpu_pdd_local_d(HN, PSYS, PARTS, NULL, a, b, c, d, y, v, w, part, stat, info);
  } else if (!strcmp(family, "spike")) { /* the broken row: a singular block */
    fill((size_t)HN * PSYS, broken, a, b, c, d);
    double *tips = calloc(6 * (size_t)PARTS * PSYS, sizeof *tips);
    status = tips ? tl_gpu_spike_local_d(HN, PSYS, PARTS, NULL, a, b, c, d, y, v, w, tips, stat,
                                         info)
                  : TL_ERR_NOMEM;
    free(tips);
  } else if (!strcmp(family, "distd2")) { /* one matrix, NSYS right-hand sides */
    double ma[N], mb[N], mc[N];
    fill(N, 0, ma, mb, mc, d);
    tl_distd2_plan plan;
    status = tl_distd2_plan_create_d(&plan, N, 0, 3, NULL, ma, mb, mc, info);
    if (status == TL_OK) {
      size_t cnt = tl_cpu_packed_count(N, NSYS, TL_GPU_SZ);
      fill(cnt, 0, a, b, c, d);
      if (broken)
        d[cnt / 2] = INFINITY; /* an overflow in the decoupling */
      status = tl_gpu_distd2_sz_d(&plan, NSYS, d, x, TL_DISTD2_DEFAULT_TOL, info);
      tl_distd2_plan_destroy(&plan);
    }
  } else if (!strcmp(family, "distd2-slice")) { /* a rank's slices, a plan per system */
    double *rows = calloc(5 * (size_t)N * NSYS, sizeof *rows), *fix = calloc(NSYS, sizeof *fix);
    double *ends = calloc(2 * NSYS, sizeof *ends), *edge = calloc(6 * NSYS, sizeof *edge);
    fill((size_t)N * NSYS, 0, a, b, c, d);
    if (broken)
      d[(size_t)N * NSYS / 2 + 3] = INFINITY; /* an overflow in the decoupling */
    status = rows && fix && ends && edge ? slice_plans(N, NSYS, a, b, c, rows, fix, ends, info)
                                         : TL_ERR_NOMEM;
    if (status == TL_OK)
      status = tl_gpu_distd2_slice_decouple_d(N, NSYS, rows, fix, d, w, edge, stat, info);
    if (status == TL_OK || status == TL_ERR_BREAKDOWN)
      status = tl_gpu_distd2_slice_substitute_d(N, NSYS, rows, ends, w, x, stat, info);
    free(rows), free(fix), free(ends), free(edge);
  } else if (!strcmp(family, "distd2-compact")) { /* one slice plan, u with ghost rows */
    double ma[N], mb[N], mc[N], st[5] = {-0.1, -0.7, 0, 0.7, 0.1};
    size_t uc = (NSYS + TL_GPU_SZ - 1) / TL_GPU_SZ * (N + 4) * TL_GPU_SZ;
    double *uh = calloc(uc, sizeof *uh);
    fill(N, 0, ma, mb, mc, d);
    tl_distd2_plan plan;
    status = uh ? tl_distd2_plan_slice_d(&plan, 3 * N, 0, N, N, ma, mb, mc, info) : TL_ERR_NOMEM;
    for (size_t k = 0; uh && k < uc; k++)
      uh[k] = sin(0.1 * (double)k);
    if (uh && broken)
      uh[uc / 2] = 1.7e308; /* an overflow in the decoupling */
    tl_gpu_compact_resident *r = NULL;
    if (status == TL_OK) {
      status = tl_gpu_compact_resident_open_d(&plan, st, NSYS, uh, &r, info);
      if (status == TL_OK)
        status = tl_gpu_compact_resident_decouple_d(r, w, stat, info);
      if (status == TL_OK) /* w: rows 0 and m-1 of d', as x_first and x_last */
        status = tl_gpu_compact_resident_substitute_d(r, w, x, stat, info);
      tl_gpu_compact_resident_close(r);
      tl_distd2_plan_destroy(&plan);
    }
    free(uh);
  } else if (!strcmp(family, "pdd-slice")) { /* a middle and a first rank's slices, kept there */
    fill((size_t)N * NSYS, broken, a, b, c, d);
    for (size_t k = 0; k < 2 * NSYS; k++)
      w[k] = k & 1 ? -0.25 : 0.5; /* x_left, x_right */
    for (int left = 1; left >= 0; left--) {
      tl_gpu_pdd_resident *r = NULL;
      status = tl_gpu_pdd_resident_open_d(N, NSYS, left, 1, a, b, c, d, &r, info);
      if (status == TL_OK)
        status = tl_gpu_pdd_resident_local_d(r, y, part, stat, info);
      if (status == TL_OK || status == TL_ERR_BREAKDOWN)
        status = tl_gpu_pdd_resident_correct_d(r, w, NULL, x, v, stat + 3 * NSYS, info);
      tl_gpu_pdd_resident_close(r);
    }
  } else {
    fprintf(stderr, "mutant_driver: unknown family %s\n", family);
    exit(2);
  }
done:
  free(a), free(b), free(c), free(d), free(x), free(w), free(y), free(v), free(part), free(stat);
  return status;
}

/* KIND "orders": the checker off, the registry backend of the family on a
 * plain dominant batch must say that its answer depends on the order. */
static int orders_caught(const char *family)
{
  static const char *const names[][2] = {{"thomas", "thomas_gpu"}, {"pcr", "pcr_gpu"},
                                         {"hybrid", "hybrid_pcr_gpu"}, {"distd2", "distd2_gpu"},
                                         {"pdd", "pdd_gpu"}};
  const tl_algorithm *algo = NULL;
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (!strcmp(family, names[k][0]))
      algo = tl_find(names[k][1]);
  enum { N = 100, NSYS = 7 };
  static double a[N * NSYS], b[N * NSYS], c[N * NSYS], d[N * NSYS], x[N * NSYS];
  fill(N * NSYS, 0, a, b, c, d);
  for (size_t s = 0; s < NSYS; s++) /* a plain batch: no corners */
    a[s * N] = c[s * N + N - 1] = 0;
  tl_batch sys = {TL_F64, N, NSYS, 0, a, b, c, d};
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = strcmp(family, "thomas") && strcmp(family, "pcr") ? 4 : 1; /* partitioned: 4 */
  tl_info info;
  tl_gpu_set_check(0);
  int st = algo ? tl_solve(algo, &sys, x, &opt, &info) : TL_ERR_ARG;
  tl_gpu_set_check(1);
  int ok = algo && st == TL_ERR_ARG && !strcmp(info.arg, "race") &&
           strstr(info.msg, "depends on the order") != NULL;
  printf("  %s, checker off, --param orders=all: %s -- %s\n", algo ? algo->name : family,
         ok ? "as expected" : "NOT AS EXPECTED", algo ? info.msg : "no such backend");
  return ok;
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: mutant_driver FAMILY KIND\n");
    return 2;
  }
  const char *family = argv[1], *kind = argv[2];
  tl_gpu_set_check(1); /* the checker's own test: on, whatever TRIDLAB_GPU_CHECK says */
  if (!strcmp(kind, "orders"))
    return orders_caught(family) ? 0 : 1;
  int clean = !strcmp(kind, "clean"), want = -1;
  for (int k = 0; k < 4; k++)
    if (!strcmp(kind, kinds[k]))
      want = k;
  if (!clean && want < 0) {
    fprintf(stderr, "mutant_driver: unknown kind %s\n", kind);
    return 2;
  }
  int ok = 1;
  for (int o = 0; o < TL_GPU_ORDER_PAIRS; o++) { /* every thread order, every block order */
    tl_gpu_set_order_pair(o);
    unsigned seen = 0;
    char first[300] = "";
    for (int broken = 0; broken <= 1; broken++) {
      tl_info info;
      int st = run(family, broken, &info);
      seen |= tl_gpu_checker_found();
      if (st == TL_ERR_ARG && !first[0])
        snprintf(first, sizeof first, "%s: %s", info.arg, info.msg);
      if (st == TL_ERR_NOMEM) {
        fprintf(stderr, "mutant_driver: no memory\n");
        return 2;
      }
    }
    int pass = clean ? seen == 0 && !first[0] : (seen >> want & 1) != 0;
    printf("  %s, order %d: %s%s%s\n", family, o, pass ? "as expected" : "NOT AS EXPECTED",
           first[0] ? " -- " : "", first);
    ok &= pass;
  }
  return ok ? 0 : 1;
}
