/* bench/mpi/model_mpi.c -- the alpha-beta-gamma cost model
 * (tridlab/mpi_model.h, `tridlab-mpi model`, docs/model.md).
 *
 * The model never lists the algorithms: it asks each registry entry for
 * its ledger model and reduces that ledger to the critical path,
 *
 *   ledger (rank, phase, round, kind, peer, words)
 *     -> per (phase, round, kind): the busiest rank's calls and words
 *     -> alpha * calls + 8 words / beta, collectives as OpenMPI runs them
 *
 * and adds the compute of the largest slice.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_mpi_internal.h"
#include "tridlab/mpi_model.h"

/* ---------------------------------------------------------------- */
/* Ledger -> counts of the critical path                               */

/* The phase slot of (phase, round, kind), added if new; NULL when full. */
static tl_model_phase *slot(tl_model_counts *c, const tl_ledger_entry *e, tl_ledger_kind kind)
{
  for (size_t k = 0; k < c->count; k++) {
    tl_model_phase *s = &c->phase[k];
    if (s->round == e->round && s->kind == kind && !strcmp(s->phase, e->phase))
      return s;
  }
  if (c->count == TL_MODEL_PHASES)
    return NULL;
  tl_model_phase *s = &c->phase[c->count++];
  memset(s, 0, sizeof *s);
  snprintf(s->phase, sizeof s->phase, "%s", e->phase);
  s->round = e->round;
  s->kind = kind;
  return s;
}

/* One rank's sums for one (phase, round, kind), folded into the slot:
 * the busiest rank decides each count. */
static void fold(tl_model_phase *s, long calls, long sent, long recv)
{
  long words = sent > recv ? sent : recv;
  s->calls = calls > s->calls ? calls : s->calls;
  s->words = words > s->words ? words : s->words;
}

static int same_group(const tl_ledger_entry *x, const tl_ledger_entry *y)
{
  int px = x->kind <= TL_LEDGER_RECV, py = y->kind <= TL_LEDGER_RECV;
  return x->rank == y->rank && x->round == y->round && !strcmp(x->phase, y->phase) &&
         (px && py ? 1 : x->kind == y->kind);
}

int tl_model_counts_of(tl_ledger *ledger, int P, tl_model_counts *out, tl_info *info)
{
  out->P = P;
  out->count = 0;
  if (ledger->failed)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "model: the ledger is incomplete (no memory)");
  tl_ledger_sort(ledger); /* rank, phase, round, kind, peer: groups are runs */
  for (size_t k = 0; k < ledger->count;) {
    const tl_ledger_entry *first = &ledger->entries[k];
    int p2p = first->kind <= TL_LEDGER_RECV;
    long calls = 0, sent = 0, recv = 0;
    size_t j = k;
    for (; j < ledger->count && same_group(first, &ledger->entries[j]); j++) {
      const tl_ledger_entry *e = &ledger->entries[j];
      calls += p2p ? e->kind == TL_LEDGER_SEND : 1;
      sent += e->words_sent;
      recv += e->words_recv;
    }
    tl_model_phase *s = slot(out, first, p2p ? TL_LEDGER_SEND : first->kind);
    if (!s)
      return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "",
                     "model: more than %d phases in one ledger", TL_MODEL_PHASES);
    fold(s, calls, sent, recv);
    k = j;
  }
  return TL_OK;
}

int tl_model_counts_algorithm(const tl_algorithm *algo, const tl_batch *shape, int P,
                              const size_t *slices, const tl_info *solved, tl_model_counts *out,
                              tl_info *info)
{
  if (!algo->ledger_model)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo", "model: %s has no ledger model",
                   algo->name);
  size_t *sizes = malloc((size_t)P * sizeof *sizes);
  if (!sizes)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "model: no memory");
  if (slices)
    memcpy(sizes, slices, (size_t)P * sizeof *sizes);
  else
    tl_mpi_default_slices(algo, shape->n, P, sizes);
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  opt.part_sizes = sizes;
  tl_ledger ledger;
  tl_ledger_init(&ledger);
  int st = algo->ledger_model(algo, shape, &opt, solved, &ledger);
  if (st != TL_OK)
    st = TL_FAIL(info, st, -1, -1, "", "model: %s's ledger model failed (%s)", algo->name,
                 tl_status_name(st));
  else
    st = tl_model_counts_of(&ledger, P, out, info);
  tl_ledger_free(&ledger);
  free(sizes);
  return st;
}

void tl_model_counts_drop(tl_model_counts *c, const char *phase)
{
  size_t kept = 0;
  for (size_t k = 0; k < c->count; k++)
    if (strcmp(c->phase[k].phase, phase))
      c->phase[kept++] = c->phase[k];
  c->count = kept;
}

void tl_model_counts_scale(tl_model_counts *c, double factor)
{
  for (size_t k = 0; k < c->count; k++)
    c->phase[k].words = (long)llround((double)c->phase[k].words * factor);
}

/* ---------------------------------------------------------------- */
/* Machines                                                            */

/* Published figures, not measured here (docs/model.md gives the sources
 * and the arithmetic). */
static const tl_model_machine machines[] = {
    {"frontier",
     "OLCF Frontier user guide: HPE Cray EX235a node, 4 AMD MI250X = 8 GCDs of 1.6 TB/s "
     "HBM2e, 4 Slingshot-11 NICs of 25 GB/s, about 2 us MPI latency (the LUMI-G node is the "
     "same); one rank per GCD",
     2e-6, 100e9, 12.8e12, 8},
    {"summit",
     "OLCF Summit user guide: 6 NVIDIA V100 of 900 GB/s HBM2, dual-rail EDR InfiniBand "
     "2 x 12.5 GB/s, about 1 us MPI latency; one rank per GPU",
     1e-6, 25e9, 5.4e12, 6},
    {"archer2",
     "ARCHER2 hardware documentation: 2 AMD EPYC 7742, 8 channels of DDR4-3200 per socket "
     "(204.8 GB/s), HPE Slingshot 2 x 100 Gb/s per node, about 2 us MPI latency; one rank "
     "per socket (paper 000's layout)",
     2e-6, 25e9, 409.6e9, 2},
    {"archer2-cores",
     "as archer2, one rank per core (128 per node: paper 003's one rank per processor)", 2e-6, 25e9,
     409.6e9, 128},
};

const tl_model_machine *tl_model_machines(size_t *count)
{
  *count = sizeof machines / sizeof machines[0];
  return machines;
}

const tl_model_machine *tl_model_machine_find(const char *name)
{
  for (size_t k = 0; name && k < sizeof machines / sizeof machines[0]; k++)
    if (!strcmp(machines[k].name, name))
      return &machines[k];
  return NULL;
}

/* ---------------------------------------------------------------- */
/* Time                                                                */

static double log2_rounds(int P)
{
  return P > 1 ? ceil(log2((double)P)) : 0.0;
}

/* One phase: a point-to-point step, or `calls` collectives of `words`
 * words on the busiest rank, as OpenMPI's tuned algorithms do them. */
static double phase_time(const tl_model_phase *s, int P, double alpha, double beta)
{
  double L = log2_rounds(P), bytes = 8.0 * (double)s->words, k = (double)s->calls;
  if (P < 2 && s->kind != TL_LEDGER_SEND)
    return 0.0; /* a collective on one rank moves nothing */
  switch (s->kind) {
  case TL_LEDGER_SEND: return k * alpha + bytes / beta;
  case TL_LEDGER_ALLREDUCE: {
    double rd = L * (k * alpha + bytes / beta);                        /* recursive doubling */
    double rab = 2 * L * k * alpha + 2.0 * (P - 1) / P * bytes / beta; /* Rabenseifner       */
    return rd < rab ? rd : rab;
  }
  case TL_LEDGER_BCAST: return L * (k * alpha + bytes / beta);
  case TL_LEDGER_ALLTOALL: return k * (P - 1) * alpha + bytes / beta;
  default: return L * k * alpha + bytes / beta; /* allgather, gather, scatter */
  }
}

double tl_model_comm_time(const tl_model_counts *c, const tl_model_machine *mach)
{
  int rpn = mach->ranks_per_node > 0 ? mach->ranks_per_node : 1;
  double beta = mach->beta / rpn, t = 0.0; /* the ranks of a node share its NICs */
  for (size_t k = 0; k < c->count; k++)
    t += phase_time(&c->phase[k], c->P, mach->alpha, beta);
  return t;
}

double tl_model_time(const tl_model_counts *c, const tl_model_machine *mach, size_t m, size_t nsys,
                     double gamma)
{
  int rpn = mach->ranks_per_node > 0 ? mach->ranks_per_node : 1;
  double unknowns = (double)m * (double)nsys;
  double bytes = TL_MPI_BENCH_WORDS * 8.0 * unknowns / (mach->mem_bw / rpn);
  double own = gamma * unknowns;
  return tl_model_comm_time(c, mach) + (own > bytes ? own : bytes);
}

/* ---------------------------------------------------------------- */
/* Model against measurement                                           */

#define SAMPLE_SYSTEMS 16 /* systems of the batch the ledger model reads */

/* The counts of a bench batch of nsys systems over P ranks: the ledger
 * model of its first few systems (the matrix rebuilt from the seed: ITS
 * reads it), the words scaled to the whole batch. */
static int bench_counts(const tl_algorithm *algo, const tl_mpi_bench_config *cfg, size_t nsys,
                        int P, tl_model_counts *out, tl_info *info)
{
  size_t n = cfg->n, k = nsys < SAMPLE_SYSTEMS ? nsys : SAMPLE_SYSTEMS;
  double *mem = malloc(4 * n * k * sizeof *mem);
  if (!mem)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "model: no memory for the sample");
  double *arr[4] = {mem, mem + n * k, mem + 2 * n * k, mem + 3 * n * k};
  tl_mpi_bench_fill(cfg->seed, n, k, 0, n, arr);
  tl_batch shape = {
      .dtype = TL_F64, .n = n, .nsys = k, .a = arr[0], .b = arr[1], .c = arr[2], .d = arr[3]};
  int st = tl_model_counts_algorithm(algo, &shape, P, NULL, NULL, out, info);
  free(mem);
  if (st == TL_OK)
    tl_model_counts_scale(out, (double)nsys / (double)k);
  return st;
}

/* The bench of algo on the first `ranks` ranks of comm (the others wait
 * quietly); the result on every rank of comm. */
static int bench_on(MPI_Comm comm, int ranks, const tl_algorithm *algo,
                    const tl_mpi_bench_config *cfg, tl_mpi_bench_result *res, tl_info *info)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm sub;
  MPI_Comm_split(comm, rank < ranks ? 0 : MPI_UNDEFINED, rank, &sub);
  int st = TL_OK;
  memset(res, 0, sizeof *res);
  if (sub != MPI_COMM_NULL) {
    st = tl_mpi_bench_algorithm(sub, algo, cfg, res, info);
    MPI_Comm_free(&sub);
  }
  tl_mpi_quiet_barrier(comm);
  MPI_Bcast(res, (int)sizeof *res, MPI_BYTE, 0, comm);
  MPI_Bcast(&st, 1, MPI_INT, 0, comm);
  if (st != TL_OK) {
    MPI_Bcast(info->msg, (int)sizeof info->msg, MPI_CHAR, 0, comm);
    info->status = st;
  }
  return st;
}

/* Half a ping-pong's trip for 8 bytes .. 16 MiB: alpha and beta. */
static int measure_network(MPI_Comm comm, double *alpha, double *beta, tl_info *info)
{
  int P;
  MPI_Comm_size(comm, &P);
  *alpha = *beta = NAN;
  if (P < 2)
    return TL_OK; /* one rank: no message to model */
  size_t sizes[] = {8, 64, 512, 4096, 32768, 262144, 2097152, 16777216};
  double half[sizeof sizes / sizeof sizes[0]];
  size_t ns = sizeof sizes / sizeof sizes[0];
  int st = tl_mpi_pingpong(comm, sizes, ns, 20, half, alpha, beta, info);
  /* No large message beat alpha (a noisy alpha): the largest message's
   * own rate, alpha included, is the bandwidth the model can stand on. */
  if (st == TL_OK && !(*beta > 0))
    *beta = (double)sizes[ns - 1] / half[ns - 1];
  return st;
}

/* One row: the bench at `ranks` against the model with gamma. The
 * measured machine is one rank's: the ping-pong's alpha and beta, the
 * memory bandwidth of the same-traffic stream timed beside the solve. */
static int model_row(MPI_Comm comm, const tl_algorithm *algo, const tl_mpi_bench_config *cfg,
                     int ranks, double gamma, double alpha, double beta, tl_model_row *row,
                     tl_info *info)
{
  tl_mpi_bench_result res;
  int st = bench_on(comm, ranks, algo, cfg, &res, info);
  if (st != TL_OK)
    return st;
  tl_model_counts counts;
  st = bench_counts(algo, cfg, res.nsys, ranks, &counts, info);
  size_t *sizes = st == TL_OK ? malloc((size_t)ranks * sizeof *sizes) : NULL, m = 0;
  if (st == TL_OK && !sizes)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "model: no memory");
  if ((st = tl_mpi_bench_agree(comm, st, "model: a calibration or row", info)) != TL_OK) {
    free(sizes);
    return st;
  }
  tl_mpi_default_slices(algo, res.n, ranks, sizes);
  for (int r = 0; r < ranks; r++)
    m = sizes[r] > m ? sizes[r] : m;
  free(sizes);
  double bytes = TL_MPI_BENCH_WORDS * 8.0 * (double)m * (double)res.nsys;
  tl_model_machine here = {
      "measured",          "this run", ranks > 1 ? alpha : 0.0, ranks > 1 ? beta : INFINITY,
      bytes / res.t_limit, 1};
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", algo->name);
  row->ranks = ranks;
  row->status = res.status;
  row->gamma = gamma;
  row->t_comm_model = tl_model_comm_time(&counts, &here);
  row->t_model = tl_model_time(&counts, &here, m, res.nsys, gamma);
  row->t_compute_model = row->t_model - row->t_comm_model;
  row->t_bytes_model = tl_model_time(&counts, &here, m, res.nsys, 0.0);
  row->t_measured = res.t_med;
  row->t_comm_measured = res.t_comm;
  row->ratio = row->t_model / row->t_measured;
  return TL_OK;
}

#define IDLE_ROWS 64 /* rows of each rank beside the one timed (partitioned_gamma) */

/* gamma at q >= 2 ranks: the rate of one rank doing a partitioned rank's
 * work -- the m rows of every system the busiest rank holds at q, with
 * every phase a rank of q runs (spikes, reduced rows, its share of the
 * verdict), which one rank alone does not -- timed on q ranks where the
 * others hold IDLE_ROWS rows each (m / 8 where m is below 512 rows, and
 * never fewer than the algorithm's smallest partition):
 *
 *   the prediction (q = 2)     [ m rows    | m rows    ]  even: each waits
 *   the calibration, twice     [ m rows    | 64 ]          for the other
 *                              [ 64 | m rows    ]
 *
 * The small ranks finish their phases at once and wait for it, so its
 * time is its own compute and messages, without the waiting for an
 * equal partner (imbalance, descheduling) that the prediction must not
 * be given. The first, the last and (q > 2) an interior rank are timed in
 * turn and the slowest rate is gamma: the busiest rank decides, as it
 * does the message counts. A calibration whose solve gives no solution
 * is an error that names the split. */
static int partitioned_gamma(MPI_Comm comm, const tl_algorithm *algo,
                             const tl_mpi_bench_config *cfg, int q, double *gamma, tl_info *info)
{
  size_t *sizes = malloc(2 * (size_t)q * sizeof *sizes), m = 0;
  int st = sizes ? TL_OK : TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "model: no memory");
  if ((st = tl_mpi_bench_agree(comm, st, "model: a calibration or row", info)) != TL_OK) {
    free(sizes);
    return st;
  }
  tl_mpi_default_slices(algo, cfg->n, q, sizes);
  for (int r = 0; r < q; r++)
    m = sizes[r] > m ? sizes[r] : m;
  size_t least = algo->min_rows_per_part ? algo->min_rows_per_part : 1;
  size_t idle = m / 8 < IDLE_ROWS ? m / 8 : IDLE_ROWS;
  idle = idle > least ? idle : least;
  size_t nsys = cfg->unknowns / cfg->n ? cfg->unknowns / cfg->n : 1, *sl = sizes + q;
  int who[3] = {0, q - 1, 1}, nwho = q > 2 ? 3 : 2;
  *gamma = 0.0;
  for (int w = 0; w < nwho && st == TL_OK; w++) {
    for (int r = 0; r < q; r++)
      sl[r] = r == who[w] ? m : idle;
    tl_mpi_bench_config cal = *cfg;
    cal.n = m + (size_t)(q - 1) * idle;
    cal.unknowns = cal.n * nsys;
    cal.slices = sl;
    tl_mpi_bench_result res;
    if ((st = bench_on(comm, q, algo, &cal, &res, info)) != TL_OK)
      break;
    if (!tl_status_has_solution(res.status))
      st = TL_FAIL(info, res.status, -1, -1, "",
                   "model: %s's calibration (rank %d of %d holding %zu rows, the others %zu) "
                   "failed: %s",
                   algo->name, who[w], q, m, idle, res.msg);
    double g = res.t_med / ((double)m * (double)nsys);
    *gamma = g > *gamma ? g : *gamma;
  }
  free(sizes);
  return st;
}

int tl_model_measure(MPI_Comm comm, const tl_mpi_bench_config *cfg, tl_model_row *rows, size_t cap,
                     size_t *nrows, double *alpha, double *beta, tl_info *info)
{
  int P;
  MPI_Comm_size(comm, &P);
  *nrows = 0;
  tl_mpi_bench_config own = *cfg; /* every bench on the algorithm's own slices */
  own.slices = NULL;
  cfg = &own;
  int st = measure_network(comm, alpha, beta, info);
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  for (size_t k = 0; k < count && st == TL_OK; k++) {
    const tl_algorithm *algo = reg[k];
    if (!algo->ledger_model)
      continue; /* a baseline with no ledger: nothing to model */
    /* gamma of the P = 1 row: the algorithm alone on one rank, on 1/P of
     * the batch -- the unknowns each of P ranks holds, so that the rate is
     * measured at the memory footprint of the P-rank solve, and P = 1 is
     * predicted from another size. Rows of q >= 2 ranks take
     * partitioned_gamma's rate instead. */
    tl_mpi_bench_config cal = *cfg;
    cal.unknowns = cfg->unknowns / (size_t)P >= cfg->n ? cfg->unknowns / (size_t)P : cfg->n;
    tl_mpi_bench_result res;
    if ((st = bench_on(comm, 1, algo, &cal, &res, info)) != TL_OK)
      break;
    if (!tl_status_has_solution(res.status)) {
      st = TL_FAIL(info, res.status, -1, -1, "", "model: %s's calibration on one rank failed: %s",
                   algo->name, res.msg);
      break;
    }
    double gamma = res.t_med / ((double)res.n * (double)res.nsys);
    for (int q = 1; q <= P && st == TL_OK; q++) {
      if (*nrows == cap)
        return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "model: more than %zu rows", cap);
      if (q >= 2 && (st = partitioned_gamma(comm, algo, cfg, q, &gamma, info)) != TL_OK)
        break;
      st = model_row(comm, algo, cfg, q, gamma, *alpha, *beta, &rows[*nrows], info);
      *nrows += st == TL_OK;
    }
  }
  return st;
}

/* ---------------------------------------------------------------- */
/* The papers' problems (docs/model.md, "Projections")                 */

static const tl_model_point points_000[] = {
    {"distd2_mpi", 128, 2, 0.827, "paper 000 (DistD2-TDS) §5.2, Fig. 13: ARCHER2, 2 to 128 CPUs"},
    {"distd2_mpi", 8192, 1024, 0.958,
     "paper 000 (DistD2-TDS) §5.2, Fig. 13: ARCHER2, 1024 to 8192 CPUs"},
};
static const tl_model_point points_001[] = {
    {"ptdma_mpi", 512, 256, 0.5,
     "paper 001 (CaNS P-TDMA) §3.1, Fig. 4: 1D slabs, time nearly constant from 256 to 512 GPUs"},
};
static const tl_model_point points_003[] = {
    {"its_mpi", 512, 8, 0.92, "paper 003 (ITS) §5.2, Fig. 6b: BW-Grid, m = 128, E_8 at p = 512"},
    {"rpdd_mpi", 512, 8, 0.63, "paper 003 (ITS) §5.2, Fig. 6b: BW-Grid, m = 128, E_8 at p = 512"},
};

#define POINTS(v) v, sizeof v / sizeof v[0]
static const tl_model_paper papers[] = {
    {"000", "DistD2-TDS strong scaling (ARCHER2)",
     "12.88e9 points (one ARCHER2 node, 75% of memory) split along the solve direction, one "
     "rank per socket; the shape is not stated: n = 16384 rows (2 per rank at 8192), "
     "nsys = 12.88e9 / n = 786133",
     "archer2", 0, 16384, 786133, 2, 8192, POINTS(points_000)},
    {"001", "CaNS P-TDMA, the 1024-GPU channel (LUMI-G node)",
     "7168 x 7168 x 1594 grid, the z solves split over all ranks (1D slabs along z): "
     "n = 1594, nsys = 7168^2 = 51380224",
     "frontier", 0, 1594, 51380224, 2, 512, POINTS(points_001)},
    {"003", "ITS scaled problem (m = 128, m^2 right-hand sides)",
     "weak scaling: m = 128 rows per rank, n = 128 P, nsys = 128^2 = 16384, one rank per core",
     "archer2-cores", 1, 128, 16384, 8, 16384, POINTS(points_003)},
};

int tl_model_projected(const tl_algorithm *algo)
{
  return algo->ledger_model && algo->backend && !strcmp(algo->backend, "mpi");
}

const tl_model_paper *tl_model_papers(size_t *count)
{
  *count = sizeof papers / sizeof papers[0];
  return papers;
}

const tl_model_paper *tl_model_paper_find(const char *id)
{
  for (size_t k = 0; id && k < sizeof papers / sizeof papers[0]; k++)
    if (!strcmp(papers[k].id, id))
      return &papers[k];
  return NULL;
}

int tl_model_project(const tl_algorithm *algo, const tl_model_paper *paper,
                     const tl_model_machine *mach, int P, double *seconds, tl_info *info)
{
  size_t n = paper->weak ? paper->n * (size_t)P : paper->n;
  size_t least = algo->min_rows_per_part ? algo->min_rows_per_part : 1;
  if (n < (size_t)P * (least ? least : 1))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "P",
                   "model: %d ranks cannot hold %zu rows (%s needs %zu each)", P, n, algo->name,
                   least);
  tl_mpi_bench_config one = {.n = n, .unknowns = n, .seed = 1};
  tl_model_counts *c = malloc(sizeof *c);
  if (!c)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "model: no memory");
  int st = bench_counts(algo, &one, 1, P, c, info);
  if (st == TL_OK) {
    tl_model_counts_drop(c, "verdict"); /* tridlab's check: the papers' codes have none */
    tl_model_counts_scale(c, (double)paper->nsys);
    size_t m = (n + (size_t)P - 1) / (size_t)P;
    *seconds = tl_model_time(c, mach, m, paper->nsys, 0.0);
  }
  free(c);
  return st;
}
