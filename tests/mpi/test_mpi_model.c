/* tests/mpi/test_mpi_model.c -- the cost model's formulas against the
 * measured ledger (docs/model.md): for every MPI algorithm with a ledger
 * model, a real solve over the ranks records its ledger; rank 0 gathers
 * it, reduces it to the critical path's messages, words and collective
 * calls per phase (tl_model_counts_of), and holds it equal to the counts
 * the model computes from the algorithm's registry entry
 * (tl_model_counts_algorithm) -- and so the modelled communication time
 * to the time of the measured counts. Even and uneven slices, batches of
 * 1 and 4 systems. Then the bench on chosen slices and the model
 * against a measurement on a tiny batch. Run under mpirun with 1..7
 * ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "tridlab/mpi.h"
#include "tridlab/mpi_bench.h"
#include "tridlab/mpi_model.h"
#include "tridlab/tridlab.h"

static const tl_model_phase *find_phase(const tl_model_counts *c, const tl_model_phase *p)
{
  for (size_t k = 0; k < c->count; k++)
    if (c->phase[k].round == p->round && c->phase[k].kind == p->kind &&
        !strcmp(c->phase[k].phase, p->phase))
      return &c->phase[k];
  return NULL;
}

/* Rank 0: the counts of the recorded ledger against the model's. */
static void compare_counts(mpi_check *mc, const tl_algorithm *algo, tl_ledger *all, size_t n,
                           size_t nsys, const tl_info *solved)
{
  tl_mpi_batch whole; /* the same seeded batch, every row: the model reads the matrix */
  tl_info info;
  if (tl_mpi_bench_batch(MPI_COMM_SELF, n, nsys, NULL, 1, &whole, &info) != TL_OK) {
    MC_EXPECT(mc, 0, "no memory for the batch");
    return;
  }
  tl_batch shape = {.dtype = TL_F64,
                    .n = n,
                    .nsys = nsys,
                    .a = whole.a,
                    .b = whole.b,
                    .c = whole.c,
                    .d = whole.d};
  tl_model_counts *got = malloc(sizeof *got), *model = malloc(sizeof *model);
  int st1 = tl_model_counts_of(all, mc->size, got, &info);
  MC_EXPECT(mc, st1 == TL_OK, "counts of the ledger: %s", info.msg);
  int st2 = tl_model_counts_algorithm(algo, &shape, mc->size, NULL, solved, model, &info);
  MC_EXPECT(mc, st2 == TL_OK, "model counts: %s", info.msg);
  if (st1 == TL_OK && st2 == TL_OK) {
    MC_EXPECT(mc, got->count == model->count, "%zu phases recorded, %zu modelled", got->count,
              model->count);
    for (size_t k = 0; k < model->count; k++) {
      const tl_model_phase *m = &model->phase[k], *g = find_phase(got, m);
      MC_EXPECT(mc, g != NULL, "modelled phase %s/%d (%s) not recorded", m->phase, m->round,
                tl_ledger_kind_name(m->kind));
      if (g)
        MC_EXPECT(mc, g->calls == m->calls && g->words == m->words,
                  "phase %s/%d (%s): recorded %ld calls %ld words, modelled %ld calls %ld words",
                  m->phase, m->round, tl_ledger_kind_name(m->kind), g->calls, g->words, m->calls,
                  m->words);
    }
    size_t nm;
    const tl_model_machine *mach = tl_model_machines(&nm);
    for (size_t k = 0; k < nm; k++) {
      double tg = tl_model_comm_time(got, &mach[k]), tm = tl_model_comm_time(model, &mach[k]);
      MC_EXPECT(mc, tg == tm && tm >= 0 && (mc->size > 1 || tm == 0),
                "%s: comm %g s from the ledger, %g s modelled", mach[k].name, tg, tm);
    }
  }
  free(got);
  free(model);
  tl_mpi_batch_free(&whole);
}

static void one_case(mpi_check *mc, const tl_algorithm *algo, size_t n, size_t nsys)
{
  mc_case(mc, "%s, n = %zu, nsys = %zu", algo->name, n, nsys);
  size_t *slices = malloc((size_t)mc->size * sizeof *slices);
  tl_mpi_default_slices(algo, n, mc->size, slices);
  tl_mpi_batch local;
  tl_info info;
  int st = tl_mpi_bench_batch(mc->comm, n, nsys, slices, 1, &local, &info);
  free(slices);
  MC_EXPECT(mc, st == TL_OK, "batch: %s", info.msg);
  if (st == TL_OK) {
    size_t cnt = local.m * nsys;
    double *x = malloc((cnt ? cnt : 1) * sizeof *x);
    tl_ledger mine, all;
    tl_ledger_init(&mine);
    tl_ledger_init(&all);
    tl_options opt;
    tl_options_init(&opt);
    opt.ledger = &mine;
    st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
    MC_EXPECT(mc, st == TL_OK, "solve: %s %s", tl_status_name(st), info.msg);
    tl_mpi_ledger_gather(mc->comm, &mine, 0, &all);
    if (st == TL_OK && mc->rank == 0)
      compare_counts(mc, algo, &all, n, nsys, &info);
    tl_ledger_free(&mine);
    tl_ledger_free(&all);
    free(x);
    tl_mpi_batch_free(&local);
  }
  mc_end(mc);
}

/* A collective on one rank costs nothing; more ranks never cost less. */
static void rounds_case(mpi_check *mc)
{
  mc_case(mc, "collective rounds");
  tl_model_counts c = {.P = 1, .count = 1};
  c.phase[0] = (tl_model_phase){"verdict", 0, TL_LEDGER_ALLREDUCE, 1, 12};
  const tl_model_machine *m = tl_model_machine_find("frontier");
  MC_EXPECT(mc, tl_model_comm_time(&c, m) == 0, "P = 1: %g s", tl_model_comm_time(&c, m));
  double last = 0;
  for (int P = 2; P <= 16384; P *= 2) {
    c.P = P;
    double t = tl_model_comm_time(&c, m);
    MC_EXPECT(mc, t > last, "P = %d: %g s, not more than %g s", P, t, last);
    last = t;
  }
  mc_end(mc);
}

/* Every published point of the projections names an algorithm they draw
 * (a registry entry with a ledger model, on the host). */
static void points_case(mpi_check *mc, const tl_algorithm *const *reg, size_t count)
{
  mc_case(mc, "the published points name projected algorithms");
  size_t np;
  const tl_model_paper *pp = tl_model_papers(&np);
  for (size_t i = 0; i < np; i++)
    for (size_t k = 0; k < pp[i].npoints; k++) {
      const char *want = pp[i].points[k].algo;
      int found = 0;
      for (size_t j = 0; j < count; j++)
        found |= !strcmp(reg[j]->name, want) && tl_model_projected(reg[j]);
      MC_EXPECT(mc, found, "paper %s: '%s' is not a projected algorithm", pp[i].id, want);
    }
  mc_end(mc);
}

/* The bench on chosen slices, which the model's gamma for P >= 2 runs:
 * P sizes adding up to n are solved as given, and sizes that do not add
 * up, or one below the algorithm's smallest partition, are an error
 * (TL_ERR_ARG) on every rank. */
static void slices_case(mpi_check *mc, const tl_algorithm *algo)
{
  mc_case(mc, "%s on chosen slices", algo->name);
  size_t sl[64], n = 0;
  for (int r = 0; r < mc->size; r++)
    n += sl[r] = r == mc->size - 1 ? 80 : 64; /* uneven: the last holds more */
  tl_mpi_bench_config cfg;
  tl_mpi_bench_config_init(&cfg);
  cfg.n = n, cfg.unknowns = 4 * n, cfg.reps = 1, cfg.check_systems = 4, cfg.slices = sl;
  tl_mpi_bench_result res;
  tl_info info;
  int st = tl_mpi_bench_algorithm(mc->comm, algo, &cfg, &res, &info);
  MC_EXPECT(mc, st == TL_OK && res.status == TL_OK && res.n == n && res.nsys == 4,
            "status %d (%s), solve %d, n %zu", st, st ? info.msg : "", res.status, res.n);
  MC_EXPECT(mc, res.residual < 30, "residual ratio %g", res.residual);
  sl[0]++; /* n + 1 rows */
  st = tl_mpi_bench_algorithm(mc->comm, algo, &cfg, &res, &info);
  MC_EXPECT(mc, st == TL_ERR_ARG && !strcmp(info.arg, "parts"), "sizes adding to n + 1: %d", st);
  sl[0]--;
  if (algo->min_rows_per_part > 1 && mc->size > 1) { /* n kept: rank 0 short, the last longer */
    sl[0] = algo->min_rows_per_part - 1, sl[mc->size - 1] += 64 - sl[0];
    st = tl_mpi_bench_algorithm(mc->comm, algo, &cfg, &res, &info);
    MC_EXPECT(mc, st == TL_ERR_ARG, "a slice of %zu rows: %d", sl[0], st);
  }
  mc_end(mc);
}

/* The model against a measurement, on a tiny batch: every algorithm's
 * row at q = 1 .. P has a status of ok and a positive, finite gamma, the
 * one of q >= 2 measured on the uneven calibration splits. */
static void measure_case(mpi_check *mc)
{
  mc_case(mc, "the model against a measurement, every row");
  tl_mpi_bench_config cfg;
  tl_mpi_bench_config_init(&cfg);
  cfg.n = 512, cfg.unknowns = 4 * 512, cfg.reps = 1,
  cfg.check_systems = 2; /* 73 rows or more per rank at 7 ranks: the measured solves of the
                            truncated algorithms in their domain */
  size_t cap = 64 * 8, nrows = 0;
  tl_model_row *rows = calloc(cap, sizeof *rows);
  double alpha, beta;
  tl_info info;
  int st = rows ? tl_model_measure(mc->comm, &cfg, rows, cap, &nrows, &alpha, &beta, &info)
                : TL_ERR_NOMEM;
  MC_EXPECT(mc, st == TL_OK && nrows > 0, "status %d (%s), %zu rows", st, st ? info.msg : "",
            nrows);
  for (size_t k = 0; k < nrows; k++)
    MC_EXPECT(mc, rows[k].status == TL_OK && rows[k].gamma > 0 && isfinite(rows[k].gamma),
              "%s at %d ranks: status %d, gamma %g", rows[k].name, rows[k].ranks, rows[k].status,
              rows[k].gamma);
  free(rows);
  mc_end(mc);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  mpi_check mc;
  mc_init(&mc, MPI_COMM_WORLD);
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  for (size_t k = 0; k < count; k++) {
    if (!reg[k]->ledger_model)
      continue; /* a baseline: no ledger, nothing to model */
    one_case(&mc, reg[k], 512, 1);
    one_case(&mc, reg[k], 509, 4); /* uneven slices */
  }
  rounds_case(&mc);
  points_case(&mc, reg, count);
  for (size_t k = 0; k < count; k++)
    if (!strcmp(reg[k]->name, "pdd_mpi") || !strcmp(reg[k]->name, "tridsolver_mpi"))
      slices_case(&mc, reg[k]);
  measure_case(&mc);
  int rc = mc_finish(&mc, "test_mpi_model");
  MPI_Finalize();
  return rc;
}
