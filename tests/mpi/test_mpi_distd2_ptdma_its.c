/* tests/mpi/test_mpi_distd2_ptdma_its.c -- what the generic test of the
 * partition algorithms (test_mpi_partition.c, default parameters) does
 * not reach for distd2, ptdma and its:
 *
 *  - their parameters: P-TDMA's "combined" flavour (Algorithm 1), ITS
 *    with J given (enough, and too few: it reports what it dropped), on
 *    uneven slices, plain and periodic, against the simulated reference
 *    with the same slices and parameters (status, report, answer, and on
 *    an ok solve the same ledger, equal to the model); ITS with a tol
 *    looser than the default on a batch where only some systems' residual
 *    is checked (each judged by its own numbers; the ok that used the
 *    slack says so, as tl_solve's does);
 *  - DistD2's compact-scheme entry point on SZ-packed slices
 *    (tl_mpi_distd2_compact_sz) against the simulated fused solve
 *    (tl_distd2_solve_stencil_d) with the same slices, its ledger (the
 *    model plus the halo), and a bad argument on one rank only;
 *  - ITS on the near-overflow, ill-conditioned periodic gallery types 58
 *    and 59, where the reference ends with the truncation's verdict (the
 *    local solves overflowed) or its residual self-check: the ranks give
 *    its status and kind of report, and an ok answer passes;
 *  - a breakdown inside the reduced solve, which only the ranks' joint
 *    rows meet: every algorithm with a reduced system (ptdma, nshaped,
 *    hybrid_pcr, tridsolver's direct strategies) on a batch whose middle
 *    system is singular, two rows per rank, reported as the simulated
 *    reference reports it (status, system, row, message) on every rank.
 *
 * Run under mpirun with 1..7 ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "tridlab/backend.h"
#include "tridlab/cpu.h"
#include "tridlab/gpu.h"
#include "tridlab/mpi.h"
#include "tridlab/part_distd2.h"
#include "tridlab/tridlab.h"

/* The batches of param_case. */
typedef enum { PLAIN, SINGULAR, MIXED, SUBNORMAL } batch_kind;

/* A strictly dominant batch on rank 0 (|b| >= 8 (|a| + |c|)).
 * SINGULAR: its middle system is the Neumann Laplacian [-1, 2, -1]
 * with b = 1 in the first and last rows (not periodic): singular, every
 * proper principal block nonsingular, so with two rows per rank the
 * local phases go through and the reduced system meets an exactly zero
 * pivot.
 * MIXED, for its with J = 3 and tol = 0.5: the even systems decay slowly
 * (b = 4), so the truncation drops about 1e-2 of |z_I|, within that tol:
 * ok without the residual self-check, and their truncated answers'
 * residual ratios are far above 30; the odd ones decay fast (b = 1e6),
 * drop nothing of note and are checked. The checked systems are then not
 * the first ones of the batch: each must be judged by its own pass over
 * its slice (a verdict that took system 0's numbers for system 1 would
 * fail it), and the halo crosses for all (the ledgers).
 * SUBNORMAL: system 1 is diagonal, b = 2^-1030 (subnormal), d ~ 1e-300:
 * x ~ 1e10 by division, but 1 / b overflows, so the x-line kernel,
 * which multiplies by reciprocals, flags it and the reference solves it
 * again; whatever the kernel's pass measured of it must not be kept. */
static void *make_batch(tl_batch *sys, size_t n, size_t nsys, int periodic, uint64_t seed,
                        batch_kind kind)
{
  int singular = kind == SINGULAR;
  double *m = calloc(4 * n * nsys, sizeof *m);
  memset(sys, 0, sizeof *sys);
  sys->dtype = TL_F64, sys->n = n, sys->nsys = nsys, sys->periodic = periodic;
  sys->a = m, sys->b = m + n * nsys, sys->c = m + 2 * n * nsys, sys->d = m + 3 * n * nsys;
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t k = 0; k < n * nsys; k++) {
    m[k] = (periodic || k % n) ? tl_rng_uniform(&rng, -1, 1) : 0.0;
    m[n * nsys + k] = 8 + tl_rng_uniform(&rng, 0, 1);
    m[2 * n * nsys + k] = (periodic || k % n + 1 < n) ? tl_rng_uniform(&rng, -1, 1) : 0.0;
    m[3 * n * nsys + k] = tl_rng_uniform(&rng, -1, 1);
  }
  for (size_t i = 0, o = nsys / 2 * n; singular && i < n; i++) {
    m[o + i] = i ? -1 : 0;
    m[n * nsys + o + i] = i == 0 || i + 1 == n ? 1 : 2;
    m[2 * n * nsys + o + i] = i + 1 < n ? -1 : 0;
  }
  for (size_t k = 0; kind == MIXED && k < n * nsys; k++)
    m[n * nsys + k] = k / n % 2 ? 1e6 : 4.0;
  for (size_t i = 0, o = n; kind == SUBNORMAL && i < n; i++) {
    m[o + i] = m[2 * n * nsys + o + i] = 0.0;
    m[n * nsys + o + i] = 0x1p-1030;
    m[3 * n * nsys + o + i] *= 1e-300;
  }
  return m;
}

/* Rank 0: the largest |x - y| against the largest |y|. */
static int close_to(const double *x, const double *y, size_t count)
{
  double diff = 0, scale = 0;
  for (size_t k = 0; k < count; k++) {
    diff = fmax(diff, fabs(x[k] - y[k]));
    scale = fmax(scale, fabs(y[k]));
  }
  return diff <= 30 * TL_EPS * scale;
}

/* One algorithm with one or two parameter settings, across the ranks
 * and simulated with the same slices. */
static void param_case(mpi_check *mc, const char *name, const char *param, const char *param2,
                       int periodic, size_t nsys, const size_t *slices, size_t n, batch_kind kind)
{
  static const char *const kinds[] = {"", " middle system singular",
                                      " checked and unchecked systems",
                                      " a subnormal diagonal"};
  int singular = kind == SINGULAR;
  mc_case(mc, "%s %s%s%s P=%d n=%zu nsys=%zu%s%s", name, param ? param : "", param2 ? " " : "",
          param2 ? param2 : "", mc->size, n, nsys, periodic ? " periodic" : "", kinds[kind]);
  const tl_algorithm *algo = tl_mpi_find(name);
  tl_batch sys = {0};
  void *mem = mc->rank == 0 ? make_batch(&sys, n, nsys, periodic, 77 + nsys, kind) : NULL;
  tl_info info, sinfo;
  tl_mpi_batch local;
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &sys, slices, &local, &info) == TL_OK, "scatter");
  tl_options opt;
  tl_options_init(&opt);
  MC_EXPECT(mc, !param || tl_options_set_param_kv(&opt, algo, param, &info) == TL_OK,
            "%s", info.msg);
  MC_EXPECT(mc, !param2 || tl_options_set_param_kv(&opt, algo, param2, &info) == TL_OK,
            "%s", info.msg);
  tl_ledger mine, all, sim, model;
  tl_ledger_init(&mine), tl_ledger_init(&all), tl_ledger_init(&sim), tl_ledger_init(&model);
  opt.ledger = &mine;
  double *x = calloc(local.m * nsys + 1, sizeof *x), *x_all = calloc(n * nsys, sizeof *x);
  int st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
  tl_mpi_gather_x(mc->comm, 0, &local, x, x_all, &info);
  tl_mpi_ledger_gather(mc->comm, &mine, 0, &all);
  if (mc->rank == 0) { /* the simulated reference, same slices and parameters */
    double *x_sim = calloc(n * nsys, sizeof *x_sim);
    opt.parts = mc->size, opt.part_sizes = slices, opt.ledger = &sim;
    int sst = tl_solve(algo->reference, &sys, x_sim, &opt, &sinfo);
    MC_EXPECT(mc, sst == st && strcmp(sinfo.msg, info.msg) == 0, "%s '%s', simulated %s '%s'",
              tl_status_name(st), info.msg, tl_status_name(sst), sinfo.msg);
    MC_EXPECT(mc, st == TL_OK || (info.system == sinfo.system && info.row == sinfo.row),
              "system %ld row %ld, simulated %ld, %ld", info.system, info.row, sinfo.system,
              sinfo.row);
    MC_EXPECT(mc, !singular || (st == TL_ERR_BREAKDOWN && info.system == (long)(nsys / 2)),
              "the singular system: %s in system %ld", tl_status_name(st), info.system);
    MC_EXPECT(mc, !tl_status_has_solution(st) || close_to(x_all, x_sim, n * nsys), "x differs");
    MC_EXPECT(mc, kind != MIXED || sst == TL_OK, "simulated: %s", tl_status_name(sst));
    char why[512];
    if (st == TL_OK) { /* MIXED: the unchecked truncated answers' ratios exceed 30 */
      MC_EXPECT(mc, kind == MIXED || tl_residual_ratio(&sys, x_all) < TL_THRESH,
                "residual ratio");
      MC_EXPECT(mc, tl_ledger_equal(&all, &sim, why, sizeof why), "ledger vs simulated: %s", why);
      algo->ledger_model(algo, &sys, &opt, &info, &model);
      MC_EXPECT(mc, tl_ledger_equal(&all, &model, why, sizeof why), "ledger vs model: %s", why);
    }
    free(x_sim);
  }
  free(x);
  free(x_all);
  free(mem);
  tl_mpi_batch_free(&local);
  tl_ledger_free(&mine), tl_ledger_free(&all), tl_ledger_free(&sim), tl_ledger_free(&model);
  mc_end(mc);
}

/* ---- ptdma "split": step 4 by Thomas on the interior rows ----------- */

/* 17 dominant systems (two whole groups of eight and one left over) on
 * the uneven slices, system 2's right-hand side zero: its interior d'
 * are 0, where the reconstruction's underflow test holds, so that
 * system goes to the reference's step 4 and the ranks warn (the
 * residual check that clears it in the simulated reference is not made
 * across ranks: ptdma_mpi.c's judge), x = 0 exactly; every other system
 * solved by the x-line kernel with its end rows given, within the
 * roundings of the simulated reference's answer. */
static void zero_rhs_case(mpi_check *mc, int periodic, const size_t *slices, size_t n)
{
  enum { NSYS = 17, ZERO = 2 };
  mc_case(mc, "ptdma flavour=split P=%d n=%zu nsys=%d%s, system %d's d zero", mc->size, n, NSYS,
          periodic ? " periodic" : "", ZERO);
  const tl_algorithm *algo = tl_mpi_find("ptdma");
  tl_batch sys = {0};
  double *mem = mc->rank == 0 ? make_batch(&sys, n, NSYS, periodic, 91, PLAIN) : NULL;
  if (mem)
    memset(mem + 3 * n * NSYS + ZERO * n, 0, n * sizeof *mem);
  tl_info info, sinfo;
  tl_mpi_batch local;
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &sys, slices, &local, &info) == TL_OK, "scatter");
  tl_options opt;
  tl_options_init(&opt);
  MC_EXPECT(mc, tl_options_set_param_kv(&opt, algo, "flavour=split", &info) == TL_OK, "%s",
            info.msg);
  double *x = calloc(local.m * NSYS + 1, sizeof *x), *x_all = calloc(n * NSYS, sizeof *x);
  int st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
  tl_mpi_gather_x(mc->comm, 0, &local, x, x_all, &info);
  MC_EXPECT(mc, st == TL_OUTSIDE_DOMAIN && info.system == ZERO && strstr(info.msg, "underflow"),
            "%s in system %ld: '%s'", tl_status_name(st), info.system, info.msg);
  if (mc->rank == 0) {
    double *x_sim = calloc(n * NSYS, sizeof *x_sim);
    opt.parts = mc->size, opt.part_sizes = slices;
    int sst = tl_solve(algo->reference, &sys, x_sim, &opt, &sinfo);
    MC_EXPECT(mc, sst == TL_OK, "simulated: %s '%s'", tl_status_name(sst), sinfo.msg);
    MC_EXPECT(mc, close_to(x_all, x_sim, n * NSYS), "x differs");
    int zero = 1;
    for (size_t i = 0; i < n; i++)
      zero &= x_all[ZERO * n + i] == 0.0;
    MC_EXPECT(mc, zero, "system %d: x is not 0", ZERO);
    MC_EXPECT(mc, tl_residual_ratio(&sys, x_all) < TL_THRESH, "residual ratio");
    free(x_sim);
  }
  free(x);
  free(x_all);
  free(mem);
  tl_mpi_batch_free(&local);
  mc_end(mc);
}

/* ---- ptdma on the Dorr matrix (issue 22) --------------------------- */

/* `rows` rows per rank. At 85 (n = 255 at P = 3) the reference's reduced
 * rows lose dominance and it says outside-domain; the ranks must say the
 * same, with the same row and message, or both solve it to a passing
 * residual. With nsys = 9 (a whole group of eight) the split flavour's
 * step 4 runs the x-line kernel, whose x_1 and x_{m-2} part from the
 * paper's on this ill-conditioned interior: those groups must take the
 * paper's step 4 (ptdma_mpi.c's finish_lines), or rows 0 and m-1's
 * residual ratio reaches 1e2-1e6 with an ok status. There the rows sent
 * come from the pass with one reciprocal per row, within a few roundings
 * of the reference's: the same status, but where the reduced rows' own
 * verdict fails, not always at the same reduced row (message and row
 * compared at nsys = 1 only, where the reference's phases run). */
static void dorr_case(mpi_check *mc, const char *param, size_t rows, size_t nsys)
{
  size_t n = rows * (size_t)mc->size;
  mc_case(mc, "ptdma %s on Dorr 1e-4 P=%d n=%zu nsys=%zu", param, mc->size, n, nsys);
  const tl_algorithm *algo = tl_mpi_find("ptdma");
  size_t *slices = malloc((size_t)mc->size * sizeof *slices);
  for (int r = 0; r < mc->size; r++)
    slices[r] = rows;
  tl_problem p = {0}; /* gallery type 43: MATLAB's gallery('dorr', n, 1e-4) */
  tl_info info, sinfo;
  if (mc->rank == 0)
    MC_EXPECT(mc, tl_gallery_make(43, n, nsys, 1, &p, &info) == TL_OK, "%s", info.msg);
  tl_batch sys = p.sys;
  tl_mpi_batch local;
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &sys, slices, &local, &info) == TL_OK, "scatter");
  tl_options opt;
  tl_options_init(&opt);
  MC_EXPECT(mc, tl_options_set_param_kv(&opt, algo, param, &info) == TL_OK, "%s",
            info.msg);
  double *x = calloc(local.m * nsys + 1, sizeof *x), *x_all = calloc(n * nsys, sizeof *x_all);
  int st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
  tl_mpi_gather_x(mc->comm, 0, &local, x, x_all, &info);
  if (mc->rank == 0) {
    double *x_sim = calloc(n * nsys, sizeof *x_sim);
    opt.parts = mc->size, opt.part_sizes = slices;
    int sst = tl_solve(algo->reference, &sys, x_sim, &opt, &sinfo);
    MC_EXPECT(
        mc, sst == st && (nsys > 1 || (strcmp(sinfo.msg, info.msg) == 0 && info.row == sinfo.row)),
        "%s '%s' row %ld, simulated %s '%s' row %ld", tl_status_name(st), info.msg, info.row,
        tl_status_name(sst), sinfo.msg, sinfo.row);
    MC_EXPECT(mc, mc->size != 3 || rows != 85 || st == TL_OUTSIDE_DOMAIN, "P = 3: %s",
              tl_status_name(st));
    MC_EXPECT(mc, st != TL_OK || tl_residual_ratio(&sys, x_all) < TL_THRESH, "residual ratio");
    free(x_sim);
  }
  free(x);
  free(x_all);
  if (mc->rank == 0)
    tl_problem_free(&p);
  free(slices);
  tl_mpi_batch_free(&local);
  mc_end(mc);
}

/* ---- its on gallery 58 and 59 ------------------------------------- */

/* A report's kind: its text up to the first digit, after "system S: ". */
static size_t kind_len(const char **msg)
{
  if (strncmp(*msg, "system ", 7) == 0 && strchr(*msg, ':'))
    *msg = strchr(*msg, ':') + 2;
  return strcspn(*msg, "0123456789");
}

static int same_kind(const char *x, const char *y)
{
  size_t kx = kind_len(&x), ky = kind_len(&y);
  return kx == ky && strncmp(x, y, kx) == 0;
}

/* Cyclic [+-a, a(1 + 2^-52), c], a ~ 1e300, cond ~1e16: rows of A^-1 that
 * do not decay. With the windows covering the matrix nothing is dropped,
 * but the interface values are accurate only to cond eps (residual ratio
 * 1e13 with status ok, silently, before the rank program measured it);
 * with more partitions the truncation drops nearly everything and the
 * local solves overflow (a breakdown, before it said the truncation's
 * verdict). The ranks must say what the simulated reference says on the
 * same slices, and an ok answer must pass. */
static void near_overflow_case(mpi_check *mc, int type, size_t n, size_t nsys)
{
  mc_case(mc, "its on gallery %d P=%d n=%zu nsys=%zu", type, mc->size, n, nsys);
  const tl_algorithm *algo = tl_mpi_find("its");
  size_t *slices = malloc((size_t)mc->size * sizeof *slices);
  tl_mpi_default_slices(algo, n, mc->size, slices);
  tl_problem pr;
  memset(&pr, 0, sizeof pr);
  tl_info info, sinfo;
  if (mc->rank == 0)
    MC_EXPECT(mc, tl_gallery_make(type, n, nsys, 2026, &pr, &info) == TL_OK, "gallery");
  tl_mpi_batch local;
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &pr.sys, slices, &local, &info) == TL_OK,
            "scatter");
  tl_options opt;
  tl_options_init(&opt);
  double *x = calloc(local.m * nsys + 1, sizeof *x), *x_all = calloc(n * nsys, sizeof *x_all);
  int st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
  tl_mpi_gather_x(mc->comm, 0, &local, x, x_all, &info);
  if (mc->rank == 0) {
    double *x_sim = calloc(n * nsys, sizeof *x_sim);
    opt.parts = mc->size, opt.part_sizes = slices;
    int sst = tl_solve(algo->reference, &pr.sys, x_sim, &opt, &sinfo);
    MC_EXPECT(mc, st == sst && same_kind(info.msg, sinfo.msg) && info.system == sinfo.system,
              "%s '%s', simulated %s '%s'", tl_status_name(st), info.msg, tl_status_name(sst),
              sinfo.msg);
    double ratio = st == TL_OK ? tl_residual_ratio(&pr.sys, x_all) : 0.0;
    MC_EXPECT(mc, ratio < TL_THRESH, "status ok with residual ratio %.3g", ratio);
    free(x_sim);
    tl_problem_free(&pr);
  }
  free(x);
  free(x_all);
  free(slices);
  tl_mpi_batch_free(&local);
  mc_end(mc);
}

/* ---- DistD2's compact scheme on packed slices --------------------- */

/* Lele's 6th-order first derivative (paper 000 eq. (2)), h = 1/n. */
static void lele(size_t n, double st[5])
{
  double h = 1.0 / (double)n, a = 14.0 / 9.0, b = 1.0 / 9.0;
  double s[5] = {-b / (4 * h), -a / (2 * h), 0, a / (2 * h), b / (4 * h)};
  memcpy(st, s, sizeof s);
}

/* The field of system s at global row i: every rank makes its own rows. */
static double field(size_t s, size_t i, size_t n)
{
  double t = 6.283185307179586 * (double)i / (double)n;
  return sin((double)(s + 1) * t) + 0.25 * cos(3 * t + (double)s);
}

/* This rank's even slice [begin, begin + m) of n rows and its slice plan
 * of the compact scheme's matrix [1/3, 1, 1/3] (plain: no corners). */
static void compact_plan(mpi_check *mc, size_t n, int periodic, size_t *begin, size_t *m,
                         tl_distd2_plan *plan)
{
  tl_mpi_even_slice(n, mc->size, mc->rank, begin, m);
  size_t b = *begin, k = *m;
  double *abc = malloc(3 * k * sizeof *abc);
  for (size_t j = 0; j < k; j++) {
    abc[j] = 1.0 / 3, abc[k + j] = 1.0, abc[2 * k + j] = 1.0 / 3;
    if (!periodic && b + j == 0)
      abc[j] = 0;
    if (!periodic && b + j == n - 1)
      abc[2 * k + j] = 0;
  }
  tl_info info;
  MC_EXPECT(mc,
            tl_distd2_plan_slice_d(plan, n, periodic, b, k, abc, abc + k, abc + 2 * k, &info) ==
                TL_OK,
            "slice plan: %s", info.msg);
  free(abc);
}

/* Rank 0: what the compact entry point must record: the halo (2 rows of
 * every group of SZ systems to each neighbour), the boundary rows (3
 * words per system, as the general batch; one round per `per` groups,
 * 0: one for all), and one verdict for the batch (its matrix is the
 * batch's: 6 pairs). */
static void compact_expected(int P, int periodic, size_t nsys, size_t sz, size_t per,
                             tl_ledger *out)
{
  size_t groups = (nsys + sz - 1) / sz, halo = 2 * groups * sz;
  per = per ? per : groups;
  tl_ledger_reset(out);
  for (int p = 0; P > 1 && p < P; p++) {
    int to[2] = {(periodic || p > 0) ? (p + P - 1) % P : -1,
                 (periodic || p + 1 < P) ? (p + 1) % P : -1};
    for (int k = 0; k < 2; k++) {
      if (to[k] < 0)
        continue;
      tl_ledger_message(out, "ghost-rows", 0, p, to[k], halo);
      for (size_t g0 = 0; g0 < groups; g0 += per) { /* round g0 / per */
        size_t ns = (g0 + per < groups ? (g0 + per) * sz : nsys) - g0 * sz;
        tl_ledger_message(out, "edges", (int)(g0 / per), p, to[k], 3 * ns);
      }
    }
  }
  tl_ledger_collective_all(out, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1, 12, 12);
}

/* stream: the rounds' du written by streaming stores (d' in a round's
 * scratch), which a batch this small gets only with the threshold set to
 * 0; the result must be the bits of the plain path's. */
static void compact_case(mpi_check *mc, int periodic, size_t n, size_t nsys, size_t sz, size_t per,
                         int broken, int stream)
{
  mc_case(mc, "distd2 compact P=%d n=%zu nsys=%zu SZ=%zu rounds of %zu groups%s%s%s", mc->size, n,
          nsys, sz, per, periodic ? " periodic" : "", broken ? " NULL u on the last rank" : "",
          stream ? " streamed" : "");
  int P = mc->size, p = mc->rank;
  size_t begin, m;
  double st[5];
  tl_distd2_plan plan;
  tl_info info;
  lele(n, st);
  compact_plan(mc, n, periodic, &begin, &m, &plan);
  size_t cnt = tl_cpu_packed_count(m, nsys, sz), groups = (nsys + sz - 1) / sz;
  double *u = calloc(groups * (m + 4) * sz, sizeof *u), *dup = malloc(cnt * sizeof *dup);
  double *x = malloc(m * nsys * sizeof *x);
  for (size_t s = 0; s < nsys; s++) /* own rows 2 .. m+1 of each group; ghosts are filled */
    for (size_t j = 0; j < m; j++)
      u[((s / sz) * (m + 4) + j + 2) * sz + s % sz] = field(s, begin + j, n);
  tl_ledger mine, all, want;
  tl_ledger_init(&mine), tl_ledger_init(&all), tl_ledger_init(&want);
  double *u_in = broken && p == P - 1 ? NULL : u;
  double *plain = NULL, *dup_at = dup;
  size_t was = 0;
  int plain_ok = 0;
  if (stream) { /* the plain path first, then the streamed one into du 16 bytes past a line */
    plain = malloc(cnt * sizeof *plain);
    free(dup);
    dup = aligned_alloc(64, (cnt + 2) * sizeof *dup + 64 - (cnt + 2) * sizeof *dup % 64);
    MC_EXPECT(mc, plain && dup, "no memory");
    dup_at = dup + 2;
    tl_ledger other;
    tl_ledger_init(&other);
    plain_ok = plain && dup &&
               tl_mpi_distd2_compact_sz(mc->comm, &plan, st, nsys, sz, per, u_in, plain,
                                        TL_DISTD2_DEFAULT_TOL, &other, NULL, &info) == TL_OK;
    MC_EXPECT(mc, plain_ok, "plain: %s", info.msg);
    tl_ledger_free(&other);
    was = tl_cpu_set_stream_min_bytes(0);
  }
  int rc = tl_mpi_distd2_compact_sz(mc->comm, &plan, st, nsys, sz, per, u_in, dup_at,
                                    TL_DISTD2_DEFAULT_TOL, &mine, NULL, &info);
  if (stream) {
    tl_cpu_set_stream_min_bytes(was);
    MC_EXPECT(mc, !plain_ok || !memcmp(plain, dup_at, cnt * sizeof *dup),
              "streamed du differs from plain");
    free(plain);
    memmove(dup, dup_at, cnt * sizeof *dup); /* where the checks below read it */
  }
  if (broken) {
    MC_EXPECT(mc, rc == TL_ERR_ARG, "a NULL u on one rank gave %s", tl_status_name(rc));
  } else {
    MC_EXPECT(mc, rc == TL_OK, "%s: %s", tl_status_name(rc), info.msg);
    tl_cpu_unpack_batch_d(m, nsys, sz, dup, x, &info);
    /* Every rank: the simulated fused solve of each whole system, same slices. */
    size_t *sizes = malloc((size_t)P * sizeof *sizes), b0;
    for (int q = 0; q < P; q++)
      tl_mpi_even_slice(n, P, q, &b0, &sizes[q]);
    double *a = malloc(5 * n * sizeof *a), *b = a + n, *c = b + n, *uw = c + n, *xw = uw + n;
    for (size_t i = 0; i < n; i++)
      a[i] = (periodic || i > 0) ? 1.0 / 3 : 0, b[i] = 1,
      c[i] = (periodic || i + 1 < n) ? 1.0 / 3 : 0;
    for (size_t s = 0; s < nsys; s++) {
      for (size_t i = 0; i < n; i++)
        uw[i] = field(s, i, n);
      tl_info si;
      int sst = tl_distd2_solve_stencil_d(n, periodic, P, sizes, a, b, c, st, uw, xw,
                                          TL_DISTD2_DEFAULT_TOL, &si);
      MC_EXPECT(mc, sst == rc, "system %zu: simulated %s", s, tl_status_name(sst));
      MC_EXPECT(mc, close_to(x + s * m, xw + begin, m), "system %zu differs", s);
    }
    free(sizes);
    free(a);
    tl_mpi_ledger_gather(mc->comm, &mine, 0, &all);
    char why[512];
    if (p == 0) {
      compact_expected(P, periodic, nsys, sz, per, &want);
      MC_EXPECT(mc, tl_ledger_equal(&all, &want, why, sizeof why), "ledger: %s", why);
    }
  }
  tl_distd2_plan_destroy(&plan);
  free(u), free(dup), free(x);
  tl_ledger_free(&mine), tl_ledger_free(&all), tl_ledger_free(&want);
  mc_end(mc);
}

/* The compact scheme with one GPU per rank (tl_mpi_distd2_compact_gpu,
 * the GPU kernels emulated with the checker) against the CPU program on
 * the same packed slices (SZ = TL_GPU_SZ, one round): the same status,
 * report, row and system, the same ledger on every rank, and x bit for
 * bit. huge: u of system 5 (or the last) at a middle row of the middle
 * rank near the largest double, so that d' overflows there. */
static void compact_gpu_case(mpi_check *mc, int periodic, size_t n, size_t nsys, int huge)
{
  mc_case(mc, "distd2 compact on the GPU kernels P=%d n=%zu nsys=%zu%s%s", mc->size, n, nsys,
          periodic ? " periodic" : "", huge ? " overflow" : "");
  int P = mc->size, p = mc->rank;
  size_t begin, m, sz = TL_GPU_SZ;
  double st[5];
  tl_distd2_plan plan;
  tl_info info, ginfo;
  lele(n, st);
  compact_plan(mc, n, periodic, &begin, &m, &plan);
  size_t groups = (nsys + sz - 1) / sz, cnt = groups * m * sz, ucnt = groups * (m + 4) * sz;
  double *u = calloc(2 * ucnt, sizeof *u), *ug = u + ucnt, *du = calloc(2 * cnt, sizeof *du);
  double *dg = du + cnt, *x = malloc(2 * m * nsys * sizeof *x), *xg = x + m * nsys;
  for (size_t s = 0; s < nsys; s++)
    for (size_t j = 0; j < m; j++)
      u[((s / sz) * (m + 4) + j + 2) * sz + s % sz] = field(s, begin + j, n);
  if (huge && p == P / 2) {
    size_t s = nsys > 5 ? 5 : nsys - 1;
    u[((s / sz) * (m + 4) + m / 2 + 2) * sz + s % sz] = 1.7e308;
  }
  memcpy(ug, u, ucnt * sizeof *u);
  tl_ledger cpu, gpu;
  tl_ledger_init(&cpu), tl_ledger_init(&gpu);
  int rc = tl_mpi_distd2_compact_sz(mc->comm, &plan, st, nsys, sz, 0, u, du, TL_DISTD2_DEFAULT_TOL,
                                    &cpu, NULL, &info);
  int gc = tl_mpi_distd2_compact_gpu(mc->comm, &plan, st, nsys, ug, dg, TL_DISTD2_DEFAULT_TOL, &gpu,
                                     NULL, &ginfo);
  MC_EXPECT(mc, gc == rc && !strcmp(info.msg, ginfo.msg), "gpu %s (%s), cpu %s (%s)",
            tl_status_name(gc), ginfo.msg, tl_status_name(rc), info.msg);
  MC_EXPECT(mc,
            ginfo.row == info.row && ginfo.system == info.system && ginfo.dropped == info.dropped &&
                ginfo.bound == info.bound && ginfo.tol == info.tol,
            "row %ld (%ld), system %ld (%ld), dropped %g (%g), bound %g (%g)", ginfo.row, info.row,
            ginfo.system, info.system, ginfo.dropped, info.dropped, ginfo.bound, info.bound);
  char why[512];
  MC_EXPECT(mc, tl_ledger_equal(&gpu, &cpu, why, sizeof why), "ledger: %s", why);
  if (huge)
    MC_EXPECT(mc, rc == TL_ERR_BREAKDOWN, "the overflow gave %s", tl_status_name(rc));
  if (tl_status_has_solution(rc)) {
    tl_cpu_unpack_batch_d(m, nsys, sz, du, x, &info);
    tl_cpu_unpack_batch_d(m, nsys, sz, dg, xg, &info);
    MC_EXPECT(mc, !memcmp(x, xg, m * nsys * sizeof *x), "x differs from the CPU program's");
  }
  tl_distd2_plan_destroy(&plan);
  free(u), free(du), free(x);
  tl_ledger_free(&cpu), tl_ledger_free(&gpu);
  mc_end(mc);
}

/* tl_mpi_distd2_compact_gpu when memory runs short (tl_alloc_fail_at(k),
 * k = 1, 2, ...; one rank): each failed allocation is the solve's
 * TL_ERR_NOMEM, or one it works around (the resident slices' handle or
 * plan, their ends or status words: the CPU round) with the CPU program's
 * bits. */
static void compact_gpu_memory_case(mpi_check *mc)
{
  if (mc->size != 1)
    return;
  mc_case(mc, "distd2 compact on the GPU kernels with memory short: the CPU's bits, or no memory");
  size_t n = 40, nsys = 5, begin, m, sz = TL_GPU_SZ;
  double st[5];
  tl_distd2_plan plan;
  tl_info info;
  lele(n, st);
  compact_plan(mc, n, 1, &begin, &m, &plan);
  size_t cnt = m * sz, ucnt = (m + 4) * sz;
  double *u = calloc(ucnt, sizeof *u), *want = calloc(cnt, sizeof *want);
  double *got = calloc(cnt, sizeof *got);
  for (size_t s = 0; s < nsys; s++)
    for (size_t j = 0; j < m; j++)
      u[(j + 2) * sz + s] = field(s, j, n);
  MC_EXPECT(mc,
            tl_mpi_distd2_compact_sz(mc->comm, &plan, st, nsys, sz, 0, u, want,
                                     TL_DISTD2_DEFAULT_TOL, NULL, NULL, &info) == TL_OK,
            "%s", info.msg);
  int worked = 0, short_ = 0;
  for (long k = 1; k <= 20; k++) {
    memset(got, 0, cnt * sizeof *got);
    tl_alloc_fail_at(k);
    int rc = tl_mpi_distd2_compact_gpu(mc->comm, &plan, st, nsys, u, got, TL_DISTD2_DEFAULT_TOL,
                                       NULL, NULL, &info);
    tl_alloc_fail_at(0);
    if (rc == TL_OK) {
      worked++;
      for (size_t s = 0; s < nsys; s++)
        for (size_t j = 0; j < m; j++)
          MC_EXPECT(mc, got[j * sz + s] == want[j * sz + s],
                    "allocation %ld failing: x of system %zu row %zu differs", k, s, j);
    } else {
      short_++;
      MC_EXPECT(mc, rc == TL_ERR_NOMEM, "allocation %ld failing: %s (%s)", k, tl_status_name(rc),
                info.msg);
    }
  }
  MC_EXPECT(mc, worked > 1 && short_ > 0, "%d solved, %d short of memory", worked, short_);
  tl_distd2_plan_destroy(&plan);
  free(u), free(want), free(got);
  mc_end(mc);
}

/* Uneven slices of 30 .. 58 rows; returns their sum. */
static size_t uneven_slices(int P, size_t *sizes)
{
  size_t n = 0;
  for (int r = 0; r < P; r++)
    n += sizes[r] = 30 + 7 * (size_t)((r * 3) % 5);
  return n;
}

int main(int argc, char **argv)
{
  mpi_check mc;
  MPI_Init(&argc, &argv);
  mc_init(&mc, MPI_COMM_WORLD);
  size_t *uneven = malloc((size_t)mc.size * sizeof *uneven);
  size_t n = uneven_slices(mc.size, uneven);
  static const char *const cases[][2] = {
      {"ptdma", "flavour=combined"}, {"ptdma", "flavour=split"}, {"its", "J=24"}, {"its", "J=4"}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    for (int periodic = 0; periodic < 2; periodic++)
      param_case(&mc, cases[k][0], cases[k][1], NULL, periodic, periodic ? 1 : 5, uneven, n,
                 PLAIN);
  for (int periodic = 0; periodic < 2; periodic++) {
    param_case(&mc, "its", "J=3", "tol=0.5", periodic, 4, uneven, n, MIXED);
    param_case(&mc, "its", NULL, NULL, periodic, 3, uneven, n, SUBNORMAL);
  }
  static const size_t small[] = {4, 16, 17};
  for (int type = 58; type <= 59; type++)
    for (size_t k = 0; k < sizeof small / sizeof small[0]; k++)
      for (size_t nsys = 1; nsys <= 3 && small[k] >= (size_t)mc.size; nsys += 2)
        near_overflow_case(&mc, type, small[k], nsys);
  for (int periodic = 0; periodic < 2; periodic++) { /* whole groups: step 4 by the x-line kernel */
    param_case(&mc, "ptdma", "flavour=split", NULL, periodic, 17, uneven, n, PLAIN);
    zero_rhs_case(&mc, periodic, uneven, n);
  }
  dorr_case(&mc, "flavour=split", 85, 1);
  dorr_case(&mc, "flavour=combined", 85, 1);
  for (size_t rows = 4; rows <= 43; rows += 39) /* rows and sizes where it was seen */
    dorr_case(&mc, "flavour=split", rows, 9);
  /* The reduced solve breaks down: two rows per rank. */
  static const char *const reduced[][2] = {
      {"ptdma", "flavour=split"},         {"ptdma", "flavour=combined"},
      {"nshaped", "levels=1"},            {"hybrid_pcr", NULL},
      {"tridsolver", "reduced=allgather"}, {"tridsolver", "reduced=gather_scatter"},
      {"tridsolver", "reduced=pcr"}};
  size_t *two = malloc((size_t)mc.size * sizeof *two);
  for (int r = 0; r < mc.size; r++)
    two[r] = 2;
  for (size_t k = 0; k < sizeof reduced / sizeof reduced[0]; k++)
    param_case(&mc, reduced[k][0], reduced[k][1], NULL, 0, 3, two, 2 * (size_t)mc.size,
               SINGULAR);
  free(two);
  for (int periodic = 0; periodic < 2; periodic++)
    compact_case(&mc, periodic, 64 * (size_t)mc.size + 5, 5, 8, 0, 0, 0);
  compact_case(&mc, 1, 64 * (size_t)mc.size + 3, 37, 8, 2, 0, 0); /* rounds of 2 groups: 3 rounds */
  for (int periodic = 0; periodic < 2; periodic++)                /* the same, du streamed */
    compact_case(&mc, periodic, 64 * (size_t)mc.size + 3, 37, 8, 2, 0, 1);
  compact_case(&mc, 0, 24 * (size_t)mc.size, 13, 16, 0, 1, 0);
  /* the same on the GPU kernels, against the CPU program: a batch of one
   * system, of a group and more (70: three groups of TL_GPU_SZ), plain
   * and periodic, uneven n, and an overflow of d' in the middle rank */
  for (int periodic = 0; periodic < 2; periodic++) {
    compact_gpu_case(&mc, periodic, 24 * (size_t)mc.size + 5, 1, 0);
    compact_gpu_case(&mc, periodic, 40 * (size_t)mc.size + 3, 70, 0);
  }
  compact_gpu_case(&mc, 0, 40 * (size_t)mc.size, 70, 1);
  compact_gpu_case(&mc, 1, 24 * (size_t)mc.size + 1, 7, 1);
  compact_gpu_memory_case(&mc);
  /* No algorithm: a clear error on every rank (the ok-with-a-loosened-tol
   * note that tl_mpi_solve adds must not read it). */
  mc_case(&mc, "tl_mpi_solve without an algorithm P=%d", mc.size);
  {
    tl_mpi_batch none = {0};
    tl_info why;
    double xx[1];
    tl_options o;
    tl_options_init(&o);
    int st = tl_mpi_solve(NULL, mc.comm, &none, xx, &o, &why);
    MC_EXPECT(&mc, st == TL_ERR_ARG && strstr(why.msg, "no algorithm"), "%s '%s'",
              tl_status_name(st), why.msg);
  }
  mc_end(&mc);
  /* The local kernels' threads: the node's cores shared by its ranks. */
  mc_case(&mc, "tl_mpi_share_cores P=%d", mc.size);
  MPI_Comm node;
  int local;
  MPI_Comm_split_type(mc.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  tl_cpu_set_threads(0);
  int cores = tl_cpu_threads(), t = tl_mpi_share_cores(mc.comm);
  MC_EXPECT(&mc, t >= 1 && t == tl_cpu_threads(), "%d threads", t);
  MC_EXPECT(&mc, getenv("OMP_NUM_THREADS") || t == (cores / local > 1 ? cores / local : 1),
            "%d threads for %d ranks on %d cores", t, local, cores);
  mc_end(&mc);
  free(uneven);
  int rc = mc_finish(&mc, "test_mpi_distd2_ptdma_its");
  MPI_Finalize();
  return rc;
}
