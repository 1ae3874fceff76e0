/* bench/mpi/bench_mpi.c -- timing the MPI algorithms against the
 * memory limit of the machine, the OpenMP packed kernel, and the network
 * (tridlab/mpi_bench.h; `tridlab-mpi bench`; docs/performance.md "MPI").
 *
 * Timed by the benchmark library's one driver (tl_bench_time_steps),
 * one pair of runs as every rank sees it:
 *
 *   quiet barrier -> s0 -> stream my slice -> s1   (the same bytes, no
 *                                                   recurrence, no message)
 *   quiet barrier -> t0 -> tl_mpi_solve -> t1      (the algorithm)
 *   allreduce max of (t1 - t0, s1 - s0, comm)      (the slowest rank)
 *
 * The pair is repeated `reps` times after one warm-up; medians are
 * reported. The inputs of tl_mpi_solve are never modified, so nothing
 * needs restoring between runs; the stream writes into x, which the
 * solve overwrites.
 */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tridlab/backend.h"
#include "tridlab/bench.h"
#include "tridlab/cpu.h"
#include "tridlab/gpu.h"
#include "tridlab/mpi_bench.h"
#include "tridlab/part_distd2.h"
#include "tridlab/verify.h"
#include "bench_mpi_internal.h"

void tl_mpi_bench_config_init(tl_mpi_bench_config *cfg)
{
  cfg->n = 4096;
  cfg->unknowns = (size_t)1 << 24;
  cfg->reps = 5;
  cfg->seed = 1;
  cfg->check_systems = 16;
  cfg->slices = NULL;
}

int tl_mpi_bench_all(MPI_Comm comm, int ok)
{
  int all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  return all;
}

int tl_mpi_bench_agree(MPI_Comm comm, int st, const char *what, tl_info *info)
{
  int worst;
  MPI_Allreduce(&st, &worst, 1, MPI_INT, MPI_MIN, comm);
  if (worst != TL_OK && st == TL_OK)
    return TL_FAIL(info, worst, -1, -1, "", "%s failed on another rank (%s)", what,
                   tl_status_name(worst));
  return st;
}

void tl_mpi_quiet_barrier(MPI_Comm comm)
{
  MPI_Request req;
  MPI_Ibarrier(comm, &req);
  int done = 0;
  MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  while (!done) {
    struct timespec nap = {0, 200000}; /* 0.2 ms: short against a solve */
    nanosleep(&nap, NULL);
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  }
}

/* ---------------------------------------------------------------- */
/* The batch: entries as a function of (seed, array, system, row)      */

/* splitmix64's finaliser: a well-mixed 64-bit value from any counter. */
static uint64_t mix(uint64_t z)
{
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double entry(uint64_t seed, int array, size_t n, size_t s, size_t i)
{
  uint64_t key = mix(seed ^ ((uint64_t)array << 60)) ^ (uint64_t)(s * n + i);
  double u = (double)(mix(key) >> 11) * 0x1p-53; /* [0, 1) */
  switch (array) {
  case 0: return i == 0 ? 0.0 : u - 0.5;     /* a */
  case 1: return 2.0 + 0.5 * u;              /* b */
  case 2: return i + 1 == n ? 0.0 : u - 0.5; /* c */
  default: return 2.0 * u - 1.0;             /* d */
  }
}

/* Rows [begin, begin + m) of every system, system s at [s m, (s+1) m). */
void tl_mpi_bench_fill(uint64_t seed, size_t n, size_t nsys, size_t begin, size_t m,
                      double *const arr[4])
{
  for (int k = 0; k < 4; k++)
    for (size_t s = 0; s < nsys; s++)
      for (size_t i = 0; i < m; i++)
        arr[k][s * m + i] = entry(seed, k, n, s, begin + i);
}

int tl_mpi_bench_batch(MPI_Comm comm, size_t n, size_t nsys, const size_t *slices, uint64_t seed,
                       tl_mpi_batch *local, tl_info *info)
{
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  memset(local, 0, sizeof *local);
  size_t begin, end;
  tl_partition_bounds(n, P, slices, rank, &begin, &end);
  size_t m = end - begin, cnt = m * nsys;
  double *mem = tl_alloc(4 * (cnt ? cnt : 1), sizeof(double));
  if (!tl_mpi_bench_all(comm, mem != NULL)) {
    free(mem);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory for a %zu x %zu batch",
                   nsys, n);
  }
  double *arr[4] = {mem, mem + cnt, mem + 2 * cnt, mem + 3 * cnt};
  tl_mpi_bench_fill(seed, n, nsys, begin, m, arr);
  *local = (tl_mpi_batch){.dtype = TL_F64, .n = n, .nsys = nsys, .periodic = 0,
                          .begin = begin, .m = m,
                          .a = arr[0], .b = arr[1], .c = arr[2], .d = arr[3]};
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Results                                                             */

/* Fill the time fields of res from the driver's medians (slowest rank's). */
static void summarise(tl_mpi_bench_result *res, const tl_bench_timing *tm, double words)
{
  res->limit_ratio = tm->ratio;
  res->t_med = tm->t;
  res->t_min = tm->t_min;
  res->t_max = tm->t_max;
  res->t_comm = tm->t_part;
  res->t_compute = res->t_med - res->t_comm;
  res->t_limit = tm->t_limit;
  res->words = words;
  double bytes = words * sizeof(double) * (double)res->n * (double)res->nsys;
  res->gbs = bytes / res->t_med * 1e-9;
  res->limit_gbs = bytes / res->t_limit * 1e-9;
}

/* ---------------------------------------------------------------- */
/* One MPI algorithm                                                   */

/* LAPACK's residual ratio of the first `count` systems, on rank 0: their
 * answers gathered, their entries made again from the seed. */
static double check_answer(MPI_Comm comm, const tl_mpi_batch *local, const double *x,
                          size_t count, uint64_t seed)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  size_t n = local->n;
  tl_mpi_batch head = *local;
  head.nsys = count;
  double *x_all = NULL, *mem = NULL;
  if (rank == 0) {
    x_all = malloc(n * count * sizeof *x_all);
    mem = malloc(4 * n * count * sizeof *mem);
  }
  tl_mpi_gather_x(comm, 0, &head, x, x_all, NULL);
  double ratio = NAN;
  if (rank == 0 && x_all && mem) {
    double *arr[4] = {mem, mem + n * count, mem + 2 * n * count, mem + 3 * n * count};
    tl_mpi_bench_fill(seed, n, count, 0, n, arr);
    tl_batch sys = {.dtype = TL_F64, .n = n, .nsys = count,
                    .a = arr[0], .b = arr[1], .c = arr[2], .d = arr[3]};
    ratio = tl_residual_ratio(&sys, x_all);
  }
  free(x_all);
  free(mem);
  MPI_Bcast(&ratio, 1, MPI_DOUBLE, 0, comm);
  return ratio;
}

/* The busiest rank's ledger totals for one solve (the rank sending most
 * words; ties: most messages). */
static tl_ledger_totals busiest(MPI_Comm comm, const tl_ledger *mine, int rank)
{
  tl_ledger_totals t = tl_ledger_rank_totals(mine, rank, NULL);
  long v[4] = {t.messages, t.words_sent, t.words_recv, t.collectives}, mx[4];
  MPI_Allreduce(v, mx, 4, MPI_LONG, MPI_MAX, comm);
  return (tl_ledger_totals){mx[0], mx[1], mx[2], mx[3]};
}

/* The steps of one timed MPI solve (tl_bench_time_steps). */
typedef struct timed_solve {
  MPI_Comm comm;
  const tl_algorithm *algo;
  const tl_mpi_batch *local;
  double *x;
  size_t cnt;
  tl_options opt;
  tl_info info;
  int status;
  double comm_s; /* this rank's time in communication, last solve */
} timed_solve;

static int solve_step(void *arg)
{
  timed_solve *ts = arg;
  ts->status = tl_mpi_solve_timed(ts->algo, ts->comm, ts->local, ts->x, &ts->opt, &ts->info,
                                  &ts->comm_s);
  return ts->status;
}

static int stream_step(void *arg)
{
  timed_solve *ts = arg;
  tl_cpu_stream_abcd_d(ts->cnt, ts->local->a, ts->local->b, ts->local->c, ts->x);
  return TL_OK;
}

static void sync_step(void *arg)
{
  tl_mpi_quiet_barrier(((timed_solve *)arg)->comm);
}

/* Every rank reports the slowest rank's times. */
static void slowest(void *arg, double t[3])
{
  MPI_Allreduce(MPI_IN_PLACE, t, 3, MPI_DOUBLE, MPI_MAX, ((timed_solve *)arg)->comm);
}

int tl_mpi_bench_algorithm(MPI_Comm comm, const tl_algorithm *algo,
                           const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res,
                           tl_info *info)
{
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  memset(res, 0, sizeof *res);
  snprintf(res->name, sizeof res->name, "%s", algo->name);
  res->ranks = P;
  res->n = cfg->n;
  res->nsys = cfg->unknowns / cfg->n ? cfg->unknowns / cfg->n : 1;
  int reps = cfg->reps > 0 ? cfg->reps : 1;
  size_t *slices = malloc((size_t)P * sizeof *slices);
  if (!tl_mpi_bench_all(comm, slices != NULL)) { /* every rank leaves, or none */
    free(slices);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory");
  }
  if (cfg->slices) {
    memcpy(slices, cfg->slices, (size_t)P * sizeof *slices);
    int fit = tl_mpi_check_slices(algo, res->n, P, slices, info); /* as tl_mpi_solve's */
    if (fit != TL_OK) {
      free(slices);
      return fit;
    }
  } else {
    tl_mpi_default_slices(algo, res->n, P, slices);
  }
  tl_mpi_batch local;
  int st = tl_mpi_bench_batch(comm, res->n, res->nsys, slices, cfg->seed, &local, info);
  free(slices);
  if (st != TL_OK)
    return st;
  size_t cnt = local.m * local.nsys;
  double *x = tl_alloc(cnt ? cnt : 1, sizeof *x);
  if (!tl_mpi_bench_all(comm, x != NULL)) {
    free(x);
    tl_mpi_batch_free(&local);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory");
  }
  timed_solve ts = {.comm = comm, .algo = algo, .local = &local, .x = x, .cnt = cnt};
  tl_options_init(&ts.opt);
  tl_bench_steps steps = {.limit = stream_step, .run = solve_step, .sync = sync_step,
                          .combine = slowest, .part = &ts.comm_s};
  tl_bench_timing tm;
  st = tl_bench_time_steps(&steps, &ts, reps, &tm, info);
  if (st != TL_OK) { /* reps out of range: the same on every rank */
    free(x);
    tl_mpi_batch_free(&local);
    return st;
  }
  summarise(res, &tm, TL_MPI_BENCH_WORDS);
  st = ts.status;
  res->status = st;
  if (st != TL_OK)
    snprintf(res->msg, sizeof res->msg, "%s", ts.info.msg);
  tl_ledger ledger;
  tl_ledger_init(&ledger);
  tl_options opt;
  tl_options_init(&opt);
  opt.ledger = &ledger;
  tl_info sinfo;
  /* One more solve, untimed: its ledger, and its x for the check. */
  res->residual = NAN;
  int again = tl_mpi_solve(algo, comm, &local, x, &opt, &sinfo);
  res->ledger = busiest(comm, &ledger, rank);
  if (tl_status_has_solution(again)) {
    size_t count = cfg->check_systems < res->nsys ? cfg->check_systems : res->nsys;
    res->residual = check_answer(comm, &local, x, count, cfg->seed);
  }
  tl_ledger_free(&ledger);
  free(x);
  tl_mpi_batch_free(&local);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* The OpenMP packed kernel on rank 0                                  */

/* Rank 0's timing of a baseline on `threads` threads: the steps paired
 * with the same-traffic stream, the run's own status (*status, *why)
 * reported when the timing itself went well; the result into res. */
static int root_timed(int threads, tl_bench_fn restore, tl_bench_fn stream, tl_bench_fn run,
                      void *k, int reps, const int *status, const tl_info *why,
                      tl_mpi_bench_result *res, tl_info *info)
{
  int before = tl_cpu_threads();
  tl_cpu_set_threads(threads);
  tl_bench_timing tm;
  int st = tl_bench_time(restore, stream, run, k, reps, &tm, info);
  tl_cpu_set_threads(before);
  if (st == TL_OK && *status != TL_OK)
    st = *status, *info = *why;
  if (st == TL_OK)
    summarise(res, &tm, TL_MPI_BENCH_WORDS);
  res->status = st;
  return st;
}

/* The steps of the packed kernel's timing on rank 0. */
typedef struct timed_packed {
  size_t n, nsys, sz, pc;
  double *pa, *pb, *pc_, *pd, *pd0;
  int status;
  tl_info info;
} timed_packed;

static int packed_restore(void *arg) /* d = d0, untimed */
{
  timed_packed *k = arg;
  tl_cpu_stream_copy_d(k->pc, k->pd0, k->pd);
  return TL_OK;
}

static int packed_run(void *arg)
{
  timed_packed *k = arg;
  k->status = tl_cpu_thomas_sz_d(k->n, k->nsys, k->sz, k->pa, k->pb, k->pc_, k->pd, &k->info);
  return k->status;
}

static int packed_stream(void *arg)
{
  timed_packed *k = arg;
  tl_cpu_stream_abcd_d(k->pc, k->pa, k->pb, k->pc_, k->pd);
  return TL_OK;
}

/* Rank 0's half: pack, then time the kernel and the stream in pairs. */
static int packed_on_root(int threads, const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res,
                          tl_info *info)
{
  size_t n = res->n, nsys = res->nsys, sz = tl_cpu_sz_default(n, sizeof(double));
  size_t cnt = n * nsys, pc = tl_cpu_packed_count(n, nsys, sz);
  int reps = cfg->reps > 0 ? cfg->reps : 1;
  double *plain = tl_alloc(4 * cnt, sizeof(double));
  double *pk = tl_alloc(5 * pc, sizeof(double));
  int st = TL_OK;
  if (!plain || !pk) {
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory for the packed batch");
    goto out;
  }
  double *arr[4] = {plain, plain + cnt, plain + 2 * cnt, plain + 3 * cnt};
  tl_mpi_bench_fill(cfg->seed, n, nsys, 0, n, arr);
  timed_packed k = {.n = n, .nsys = nsys, .sz = sz, .pc = pc, .pa = pk, .pb = pk + pc,
                    .pc_ = pk + 2 * pc, .pd = pk + 3 * pc, .pd0 = pk + 4 * pc};
  const double pads[4] = {0.0, 1.0, 0.0, 0.0}; /* padding lanes solve 1 x = 0 */
  double *dst[4] = {k.pa, k.pb, k.pc_, k.pd0};
  for (int q = 0; q < 4 && st == TL_OK; q++)
    st = tl_cpu_pack_batch_d(n, nsys, sz, arr[q], dst[q], pads[q], info);
  if (st != TL_OK)
    goto out;
  st = root_timed(threads, packed_restore, packed_stream, packed_run, &k, reps, &k.status,
                  &k.info, res, info);
out:
  free(plain);
  free(pk);
  return st;
}

/* ---------------------------------------------------------------- */
/* A loop of LAPACK's dgtsv on rank 0, one core                        */

/* What a user without a parallel algorithm runs: one system after
 * another, each by Gaussian elimination with partial pivoting (dgtsv
 * overwrites its matrix and right-hand side, so all four are restored,
 * untimed, before each run). */
typedef struct timed_gtsv {
  size_t n, nsys, cnt;
  double *w[4], *orig[4]; /* a, b, c, d: the working copies, the batch */
  int status;
  tl_info info;
} timed_gtsv;

static int gtsv_restore(void *arg)
{
  timed_gtsv *k = arg;
  for (int q = 0; q < 4; q++)
    tl_cpu_stream_copy_d(k->cnt, k->orig[q], k->w[q]);
  return TL_OK;
}

static int gtsv_run(void *arg)
{
  timed_gtsv *k = arg;
  size_t n = k->n;
  for (size_t s = 0; s < k->nsys; s++) {
    size_t o = s * n; /* dl = a[1..n-1], du = c[0..n-2] */
    lapack_int st = LAPACKE_dgtsv_work(LAPACK_COL_MAJOR, (lapack_int)n, 1, k->w[0] + o + 1,
                                       k->w[1] + o, k->w[2] + o, k->w[3] + o, (lapack_int)n);
    if (st != 0) {
      k->status = TL_FAIL(&k->info, st > 0 ? TL_ERR_BREAKDOWN : TL_ERR_ARG, (long)s, -1, "",
                          "bench: dgtsv returned %d on system %zu", (int)st, s);
      return k->status;
    }
  }
  k->status = TL_OK;
  return TL_OK;
}

static int gtsv_stream(void *arg)
{
  timed_gtsv *k = arg;
  tl_cpu_stream_abcd_d(k->cnt, k->w[0], k->w[1], k->w[2], k->w[3]);
  return TL_OK;
}

static int gtsv_on_root(int threads, const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res,
                        tl_info *info)
{
  size_t n = res->n, nsys = res->nsys, cnt = n * nsys;
  int reps = cfg->reps > 0 ? cfg->reps : 1, st = TL_OK;
  double *mem = tl_alloc(8 * cnt, sizeof(double));
  if (!mem || n > (size_t)INT32_MAX) {
    free(mem);
    return TL_FAIL(info, mem ? TL_ERR_UNSUPPORTED : TL_ERR_NOMEM, -1, -1, "",
                   "bench: no memory for the dgtsv loop's batch, or n beyond LAPACK's integers");
  }
  timed_gtsv k = {.n = n, .nsys = nsys, .cnt = cnt};
  for (int q = 0; q < 4; q++)
    k.orig[q] = mem + (size_t)q * cnt, k.w[q] = mem + (size_t)(4 + q) * cnt;
  tl_mpi_bench_fill(cfg->seed, n, nsys, 0, n, k.orig);
  st = root_timed(threads, gtsv_restore, gtsv_stream, gtsv_run, &k, reps, &k.status, &k.info,
                  res, info);
  free(mem);
  return st;
}

/* A measurement made by rank 0 alone with `threads` threads while the
 * other ranks wait in a quiet barrier; every rank gets its result. */
typedef int (*on_root_fn)(int threads, const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res,
                          tl_info *info);

static int root_alone(MPI_Comm comm, const char *name, on_root_fn fn, int threads,
                      const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res, tl_info *info)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  memset(res, 0, sizeof *res);
  snprintf(res->name, sizeof res->name, "%s", name);
  res->ranks = threads;
  res->n = cfg->n;
  res->nsys = cfg->unknowns / cfg->n ? cfg->unknowns / cfg->n : 1;
  res->residual = NAN;
  int st = TL_OK;
  tl_mpi_quiet_barrier(comm);
  if (rank == 0)
    st = fn(threads, cfg, res, info);
  tl_mpi_quiet_barrier(comm);
  /* Everyone gets rank 0's numbers (the struct holds no pointers). */
  MPI_Bcast(res, (int)sizeof *res, MPI_BYTE, 0, comm);
  MPI_Bcast(&st, 1, MPI_INT, 0, comm);
  return st;
}

int tl_mpi_bench_packed(MPI_Comm comm, int threads, const tl_mpi_bench_config *cfg,
                        tl_mpi_bench_result *res, tl_info *info)
{
  return root_alone(comm, "omp_packed", packed_on_root, threads, cfg, res, info);
}

int tl_mpi_bench_gtsv_loop(MPI_Comm comm, const tl_mpi_bench_config *cfg,
                           tl_mpi_bench_result *res, tl_info *info)
{
  return root_alone(comm, "gtsv_loop", gtsv_on_root, 1, cfg, res, info);
}

/* ---------------------------------------------------------------- */
/* The compact scheme: DistD2 across ranks against the fused kernel     */

/* The sixth-order compact first derivative of paper 000 (Lele's
 * tridiagonal scheme, alpha = 1/3), periodic, h = 1/n: the matrix
 * [1/3, 1, 1/3] and the 5-point stencil of u on the right, as the bench
 * library takes them from the scheme table (tl_bench_compact_row). A
 * slice plan of rows [begin, begin + m) of that matrix, or (whole) the
 * plan of one partition of all n rows. */
static int lele6_plan(tl_distd2_plan *plan, size_t n, int whole, size_t begin, size_t m,
                      tl_info *info)
{
  double lhs[3], st5[5];
  TL_CALL(tl_bench_compact_row(n, lhs, st5, info));
  double *abc = tl_alloc(3 * m, sizeof *abc);
  if (!abc)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory for the plan");
  for (size_t j = 0; j < m; j++)
    abc[j] = lhs[0], abc[m + j] = lhs[1], abc[2 * m + j] = lhs[2];
  int st = whole ? tl_distd2_plan_create_d(plan, n, 1, 1, NULL, abc, abc + m, abc + 2 * m, info)
               : tl_distd2_plan_slice_d(plan, n, 1, begin, m, abc, abc + m, abc + 2 * m, info);
  free(abc);
  return st;
}

/* u of system s at global row i: a smooth periodic field. */
static double wave(size_t s, size_t i, size_t n)
{
  return sin(6.283185307179586 * (double)((s % 7 + 1) * i) / (double)n);
}

typedef struct timed_compact {
  MPI_Comm comm;
  const tl_distd2_plan *plan;
  double st[5];
  size_t nsys, sz, rounds, own;
  double *u, *du; /* u: m + 4 rows per group (ghosts), du: m rows */
  int status;
  tl_info info;
  double comm_s;
} timed_compact;

static int compact_mpi_step(void *arg)
{
  timed_compact *k = arg;
  k->status = tl_mpi_distd2_compact_sz(k->comm, k->plan, k->st, k->nsys, k->sz, k->rounds, k->u,
                                       k->du, TL_DISTD2_DEFAULT_TOL, NULL, &k->comm_s, &k->info);
  return k->status;
}

static int compact_gpu_step(void *arg)
{
  timed_compact *k = arg;
  k->status = tl_mpi_distd2_compact_gpu(k->comm, k->plan, k->st, k->nsys, k->u, k->du,
                                        TL_DISTD2_DEFAULT_TOL, NULL, &k->comm_s, &k->info);
  return k->status;
}

static int compact_cpu_step(void *arg)
{
  timed_compact *k = arg;
  k->status = tl_cpu_compact_sz_d(k->plan, k->st, k->nsys, k->sz, k->u, k->du, &k->info);
  return k->status;
}

/* The compact kernels' limit: read u, write du (2 words per unknown). */
static int compact_stream_step(void *arg)
{
  timed_compact *k = arg;
  tl_cpu_stream_copy_d(k->own, k->u, k->du);
  return TL_OK;
}

static void compact_sync(void *arg)
{
  tl_mpi_quiet_barrier(((timed_compact *)arg)->comm);
}

static void compact_slowest(void *arg, double t[3])
{
  MPI_Allreduce(MPI_IN_PLACE, t, 3, MPI_DOUBLE, MPI_MAX, ((timed_compact *)arg)->comm);
}

/* tl_mpi_bench_compact (gpu 0) and tl_mpi_bench_compact_gpu (1). */
static int bench_compact(MPI_Comm comm, int gpu, size_t round_groups,
                         const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res, tl_info *info)
{
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  memset(res, 0, sizeof *res);
  if (gpu)
    snprintf(res->name, sizeof res->name, "distd2_compact_gpu");
  else
    snprintf(res->name, sizeof res->name, round_groups ? "distd2_compact_r%zu" : "distd2_compact",
             round_groups);
  res->ranks = P;
  res->n = cfg->n;
  res->nsys = cfg->unknowns / cfg->n ? cfg->unknowns / cfg->n : 1;
  res->residual = NAN;
  size_t begin, m;
  tl_mpi_even_slice(res->n, P, rank, &begin, &m);
  timed_compact k = {.comm = comm, .nsys = res->nsys, .rounds = round_groups};
  k.sz = gpu ? TL_GPU_SZ : tl_cpu_sz_default(m, sizeof(double));
  double lhs[3];
  TL_CALL(tl_bench_compact_row(res->n, lhs, k.st, info));
  size_t groups = (k.nsys + k.sz - 1) / k.sz;
  k.own = groups * k.sz * m;
  tl_distd2_plan plan;
  memset(&plan, 0, sizeof plan);
  int st = m >= 2 ? lele6_plan(&plan, res->n, 0, begin, m, info)
                  : TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "bench: fewer than 2 rows per rank");
  k.plan = &plan;
  k.u = st == TL_OK ? tl_alloc(groups * (m + 4) * k.sz, sizeof(double)) : NULL;
  k.du = st == TL_OK ? tl_alloc(k.own, sizeof(double)) : NULL;
  if (tl_mpi_bench_all(comm, k.u && k.du)) {
    for (size_t s = 0; s < k.nsys; s++) /* own rows 2 .. m+1 of each group */
      for (size_t j = 0; j < m; j++)
        k.u[((s / k.sz) * (m + 4) + j + 2) * k.sz + s % k.sz] = wave(s, begin + j, res->n);
    tl_bench_steps steps = {.limit = compact_stream_step,
                            .run = gpu ? compact_gpu_step : compact_mpi_step,
                            .sync = compact_sync,
                            .combine = compact_slowest,
                            .part = &k.comm_s};
    tl_bench_timing tm;
    st = tl_bench_time_steps(&steps, &k, cfg->reps > 0 ? cfg->reps : 1, &tm, info);
    if (st == TL_OK) {
      summarise(res, &tm, TL_MPI_BENCH_COMPACT_WORDS);
      res->status = k.status;
      if (k.status != TL_OK)
        snprintf(res->msg, sizeof res->msg, "%s", k.info.msg);
    }
  } else if (st == TL_OK) {
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory for the compact batch");
  }
  st = tl_mpi_bench_agree(comm, st, "bench: the compact batch", info);
  tl_distd2_plan_destroy(&plan);
  free(k.u);
  free(k.du);
  return st;
}

int tl_mpi_bench_compact(MPI_Comm comm, size_t round_groups, const tl_mpi_bench_config *cfg,
                         tl_mpi_bench_result *res, tl_info *info)
{
  return bench_compact(comm, 0, round_groups, cfg, res, info);
}

int tl_mpi_bench_compact_gpu(MPI_Comm comm, const tl_mpi_bench_config *cfg,
                             tl_mpi_bench_result *res, tl_info *info)
{
  return bench_compact(comm, 1, 0, cfg, res, info);
}

/* Rank 0's half of tl_mpi_bench_compact_packed. */
static int compact_on_root(int threads, const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res,
                           tl_info *info)
{
  size_t n = res->n;
  timed_compact k = {.nsys = res->nsys, .sz = tl_cpu_sz_default(n, sizeof(double))};
  double lhs[3];
  TL_CALL(tl_bench_compact_row(n, lhs, k.st, info));
  k.own = tl_cpu_packed_count(n, k.nsys, k.sz);
  tl_distd2_plan plan;
  memset(&plan, 0, sizeof plan);
  int st = lele6_plan(&plan, n, 1, 0, n, info);
  k.plan = &plan;
  k.u = st == TL_OK ? tl_alloc(k.own, sizeof(double)) : NULL;
  k.du = st == TL_OK ? tl_alloc(k.own, sizeof(double)) : NULL;
  if (st == TL_OK && (!k.u || !k.du))
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory for the compact batch");
  if (st == TL_OK) {
    for (size_t s = 0; s < k.nsys; s++)
      for (size_t i = 0; i < n; i++)
        k.u[((s / k.sz) * n + i) * k.sz + s % k.sz] = wave(s, i, n);
    int before = tl_cpu_threads();
    tl_cpu_set_threads(threads);
    tl_bench_timing tm;
    st = tl_bench_time(NULL, compact_stream_step, compact_cpu_step, &k,
                       cfg->reps > 0 ? cfg->reps : 1, &tm, info);
    tl_cpu_set_threads(before);
    if (st == TL_OK && k.status != TL_OK)
      st = k.status, *info = k.info;
    if (st == TL_OK)
      summarise(res, &tm, TL_MPI_BENCH_COMPACT_WORDS);
  }
  res->status = st;
  tl_distd2_plan_destroy(&plan);
  free(k.u);
  free(k.du);
  return st;
}

int tl_mpi_bench_compact_packed(MPI_Comm comm, int threads, const tl_mpi_bench_config *cfg,
                                tl_mpi_bench_result *res, tl_info *info)
{
  return root_alone(comm, "omp_compact", compact_on_root, threads, cfg, res, info);
}

/* ---------------------------------------------------------------- */
/* Ping-pong                                                           */

int tl_mpi_pingpong(MPI_Comm comm, const size_t *bytes, size_t nsizes, int reps, double *half_rtt,
                    double *alpha, double *beta, tl_info *info)
{
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  if (P < 2)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "ranks",
                   "ping-pong: needs 2 ranks (run under mpirun -n 2 or more)");
  size_t most = 1;
  for (size_t k = 0; k < nsizes; k++)
    most = bytes[k] > most ? bytes[k] : most;
  char *buf = calloc(most, 1);
  double *t = calloc(reps > 0 ? (size_t)reps : 1, sizeof *t);
  if (!tl_mpi_bench_all(comm, buf && t)) {
    free(buf);
    free(t);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "ping-pong: no memory");
  }
  for (size_t k = 0; k < nsizes; k++) {
    int len = (int)bytes[k];
    if (rank <= 1) {
      for (int r = -2; r < reps; r++) { /* two warm-up trips */
        double t0 = MPI_Wtime();
        if (rank == 0) {
          MPI_Send(buf, len, MPI_BYTE, 1, 11, comm);
          MPI_Recv(buf, len, MPI_BYTE, 1, 12, comm, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf, len, MPI_BYTE, 0, 11, comm, MPI_STATUS_IGNORE);
          MPI_Send(buf, len, MPI_BYTE, 0, 12, comm);
        }
        if (r >= 0)
          t[r] = MPI_Wtime() - t0;
      }
      half_rtt[k] = 0.5 * tl_bench_median(t, (size_t)reps);
    }
    tl_mpi_quiet_barrier(comm);
  }
  MPI_Bcast(half_rtt, (int)nsizes, MPI_DOUBLE, 0, comm);
  /* t(m) = alpha + m / beta: alpha, the latency, is the time of the
   * smallest message; beta, the bandwidth, the best a large message (at
   * least 1 MiB) achieves once alpha is paid. Each number from the sizes
   * it governs: a line fitted through all of them would let the large
   * sizes decide alpha, and their noise exceeds the latency itself. */
  size_t lo = 0;
  for (size_t k = 0; k < nsizes; k++)
    lo = bytes[k] < bytes[lo] ? k : lo;
  *alpha = half_rtt[lo];
  *beta = 0;
  for (size_t k = 0; k < nsizes; k++)
    if (bytes[k] >= ((size_t)1 << 20) && half_rtt[k] > *alpha) {
      double b = (double)bytes[k] / (half_rtt[k] - *alpha);
      *beta = b > *beta ? b : *beta;
    }
  if (*beta == 0)
    *beta = NAN; /* no message large enough */
  free(buf);
  free(t);
  return TL_OK;
}
