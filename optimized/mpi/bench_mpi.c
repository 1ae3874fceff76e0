/* optimized/mpi/bench_mpi.c -- timing the MPI algorithms against the
 * memory limit of the machine, the OpenMP packed kernel, and the network
 * (tridlab/mpi_bench.h; `tridlab-mpi bench`; docs/performance.md "MPI").
 *
 * One timed run, as every rank sees it:
 *
 *   quiet barrier -> t0 -> tl_mpi_solve -> t1      (the algorithm)
 *   quiet barrier -> s0 -> stream my slice -> s1   (the same bytes, no
 *                                                   recurrence, no message)
 *   allreduce max of (t1 - t0, comm, s1 - s0)      (the slowest rank)
 *
 * The pair is repeated `reps` times after one warm-up; medians are
 * reported. The inputs of tl_mpi_solve are never modified, so nothing
 * needs restoring between runs; the stream writes into x, which the next
 * solve overwrites.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tridlab/backend.h"
#include "tridlab/cpu.h"
#include "tridlab/mpi_bench.h"
#include "tridlab/verify.h"
#include "mpi_internal.h"

void tl_mpi_bench_config_init(tl_mpi_bench_config *cfg)
{
  cfg->n = 4096;
  cfg->unknowns = (size_t)1 << 24;
  cfg->reps = 5;
  cfg->seed = 1;
  cfg->check_systems = 16;
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
  int ok = mem != NULL, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) {
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
/* Medians                                                             */

static int cmp_double(const void *x, const void *y)
{
  double u = *(const double *)x, v = *(const double *)y;
  return (u > v) - (u < v);
}

static double median(double *v, int count)
{
  qsort(v, (size_t)count, sizeof *v, cmp_double);
  return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

/* Fill the time fields of res from the runs' times (slowest rank's). */
static void summarise(tl_mpi_bench_result *res, double *t, double *comm, double *lim, int reps)
{
  double *ratio = malloc((size_t)reps * sizeof *ratio);
  for (int r = 0; r < reps; r++)
    ratio[r] = t[r] > 0 ? lim[r] / t[r] : 0.0;
  res->limit_ratio = ratio ? median(ratio, reps) : NAN;
  free(ratio);
  res->t_med = median(t, reps);
  res->t_min = t[0];
  res->t_max = t[reps - 1];
  res->t_comm = median(comm, reps);
  res->t_compute = res->t_med - res->t_comm;
  res->t_limit = median(lim, reps);
  double bytes = (double)TL_MPI_BENCH_WORDS * sizeof(double) * (double)res->n * (double)res->nsys;
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

int tl_mpi_bench_algorithm(MPI_Comm comm, const tl_mpi_algorithm *algo,
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
  if (!slices)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory");
  tl_mpi_default_slices(algo, res->n, P, slices);
  tl_mpi_batch local;
  int st = tl_mpi_bench_batch(comm, res->n, res->nsys, slices, cfg->seed, &local, info);
  free(slices);
  if (st != TL_OK)
    return st;
  size_t cnt = local.m * local.nsys;
  double *x = tl_alloc(cnt ? cnt : 1, sizeof *x);
  double *t = calloc(3 * (size_t)reps, sizeof *t);
  if (!x || !t) {
    free(x);
    free(t);
    tl_mpi_batch_free(&local);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory");
  }
  double *comm_t = t + reps, *lim = t + 2 * reps;
  tl_ledger ledger;
  tl_ledger_init(&ledger);
  tl_options opt;
  tl_options_init(&opt);
  tl_info sinfo;
  for (int r = -1; r < reps; r++) { /* r = -1: the warm-up, not kept */
    opt.ledger = r == reps - 1 ? &ledger : NULL;
    tl_mpi_quiet_barrier(comm);
    double t0 = MPI_Wtime(), cs = 0;
    st = tl_mpi_solve_timed(algo, comm, &local, x, &opt, &sinfo, &cs);
    double t1 = MPI_Wtime();
    tl_mpi_quiet_barrier(comm);
    double s0 = MPI_Wtime();
    tl_cpu_stream_abcd_d(cnt, local.a, local.b, local.c, x);
    double s1 = MPI_Wtime();
    double mine[3] = {t1 - t0, cs, s1 - s0}, mx[3];
    MPI_Allreduce(mine, mx, 3, MPI_DOUBLE, MPI_MAX, comm);
    if (r >= 0)
      t[r] = mx[0], comm_t[r] = mx[1], lim[r] = mx[2];
  }
  summarise(res, t, comm_t, lim, reps);
  res->status = st;
  if (st != TL_OK)
    snprintf(res->msg, sizeof res->msg, "%s", sinfo.msg);
  res->ledger = busiest(comm, &ledger, rank);
  /* The last timed run wrote x, then the stream overwrote it: solve once
   * more for the check. */
  res->residual = NAN;
  if (tl_status_has_solution(tl_mpi_solve(algo, comm, &local, x, NULL, &sinfo))) {
    size_t count = cfg->check_systems < res->nsys ? cfg->check_systems : res->nsys;
    res->residual = check_answer(comm, &local, x, count, cfg->seed);
  }
  tl_ledger_free(&ledger);
  free(t);
  free(x);
  tl_mpi_batch_free(&local);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* The OpenMP packed kernel on rank 0                                  */

/* Rank 0's half: pack, then time the kernel and the stream in pairs. */
static int packed_on_root(int threads, const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res,
                          tl_info *info)
{
  size_t n = res->n, nsys = res->nsys, sz = tl_cpu_sz_default(n, sizeof(double));
  size_t cnt = n * nsys, pc = tl_cpu_packed_count(n, nsys, sz);
  int reps = cfg->reps > 0 ? cfg->reps : 1;
  double *plain = tl_alloc(4 * cnt, sizeof(double));
  double *pk = tl_alloc(5 * pc, sizeof(double));
  double *t = calloc(3 * (size_t)reps, sizeof *t); /* times, limits, zero comm */
  int st = TL_OK;
  if (!plain || !pk || !t) {
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "bench: no memory for the packed batch");
    goto out;
  }
  double *arr[4] = {plain, plain + cnt, plain + 2 * cnt, plain + 3 * cnt};
  tl_mpi_bench_fill(cfg->seed, n, nsys, 0, n, arr);
  double *pa = pk, *pb = pk + pc, *pcc = pk + 2 * pc, *pd = pk + 3 * pc, *pd0 = pk + 4 * pc;
  const double pads[4] = {0.0, 1.0, 0.0, 0.0}; /* padding lanes solve 1 x = 0 */
  double *dst[4] = {pa, pb, pcc, pd0};
  for (int k = 0; k < 4 && st == TL_OK; k++)
    st = tl_cpu_pack_batch_d(n, nsys, sz, arr[k], dst[k], pads[k], info);
  if (st != TL_OK)
    goto out;
  int before = tl_cpu_threads();
  tl_cpu_set_threads(threads);
  double *lim = t + reps, *no_comm = t + 2 * reps;
  for (int r = -1; r < reps && st == TL_OK; r++) {
    tl_cpu_stream_copy_d(pc, pd0, pd); /* restore d, not timed */
    double t0 = MPI_Wtime();
    st = tl_cpu_thomas_sz_d(n, nsys, sz, pa, pb, pcc, pd, info);
    double t1 = MPI_Wtime();
    tl_cpu_stream_abcd_d(pc, pa, pb, pcc, pd);
    double t2 = MPI_Wtime();
    if (r >= 0)
      t[r] = t1 - t0, lim[r] = t2 - t1;
  }
  tl_cpu_set_threads(before);
  if (st == TL_OK)
    summarise(res, t, no_comm, lim, reps);
  res->status = st;
out:
  free(plain);
  free(pk);
  free(t);
  return st;
}

int tl_mpi_bench_packed(MPI_Comm comm, int threads, const tl_mpi_bench_config *cfg,
                        tl_mpi_bench_result *res, tl_info *info)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  memset(res, 0, sizeof *res);
  snprintf(res->name, sizeof res->name, "omp_packed");
  res->ranks = threads;
  res->n = cfg->n;
  res->nsys = cfg->unknowns / cfg->n ? cfg->unknowns / cfg->n : 1;
  res->residual = NAN;
  int st = TL_OK;
  tl_mpi_quiet_barrier(comm);
  if (rank == 0)
    st = packed_on_root(threads, cfg, res, info);
  tl_mpi_quiet_barrier(comm);
  /* Everyone gets rank 0's numbers (the struct holds no pointers). */
  MPI_Bcast(res, (int)sizeof *res, MPI_BYTE, 0, comm);
  MPI_Bcast(&st, 1, MPI_INT, 0, comm);
  return st;
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
  int ok = buf && t, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
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
      half_rtt[k] = 0.5 * median(t, reps);
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
