/* cli/mpi/cmd_mpi_bench.c -- `tridlab-mpi bench`: every MPI algorithm on
 * one large batch, its time split into compute and communication, against
 * the same-traffic memory limit, the OpenMP packed kernel on the same
 * cores and ScaLAPACK's PDDTSV; and a ping-pong. The measuring is in the
 * library (tridlab/mpi_bench.h); this file parses, prints and plots. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mpi_cli.h"
#include "tridlab/bench.h"
#include "tridlab/mpi.h"
#include "tridlab/mpi_bench.h"
#include "tridlab/study.h"
#include "tridlab/tridlab.h"

#define MAX_ALGOS 32

static void bench_usage(FILE *out)
{
  fprintf(out, "usage: mpirun --bind-to none -n P tridlab-mpi bench [options]\n"
               "\n"
               "Every MPI algorithm solves one seeded, diagonally dominant batch (double) of\n"
               "--unknowns unknowns in systems of --n rows, each rank owning its slice of every\n"
               "system. Per algorithm: the median time per solve of the slowest rank (after a\n"
               "warm-up), split into communication (inside the exchange layer, waiting included)\n"
               "and compute; GB/s for 5 words per unknown (read a, b, c, d, write x); the\n"
               "same-traffic limit, a stream of the same arrays on every rank at once, paired\n"
               "with every run (limit_ratio = t_limit / t_solve, median); the busiest rank's\n"
               "ledger; LAPACK's residual ratio of the first systems; and the time against the\n"
               "OpenMP SZ-packed Thomas kernel with P threads on one rank and against PDDTSV.\n"
               "With 2 ranks or more, a ping-pong between ranks 0 and 1 gives latency alpha and\n"
               "bandwidth beta.\n"
               "\n"
               "options:\n"
               "  --n N              rows per system (default 4096)\n"
               "  --unknowns N       unknowns in the batch (default 2^24 = 16777216)\n"
               "  --reps R           timed runs per measurement (default 5)\n"
               "  --algo A1,A2,..    only these MPI algorithms (default all)\n"
               "  --seed S           batch seed (default 1)\n"
               "  --quick            n = 1024, 2^20 unknowns, 3 runs (a check, not a figure)\n"
               "  --no-packed        skip the OpenMP packed kernel\n"
               "  --no-gtsv          skip the serial baseline (LAPACK dgtsv loop, rank 0)\n"
               "  --no-pingpong      skip the ping-pong\n"
               "  --pingpong-max B   largest ping-pong message in bytes (default 16777216)\n"
               "  --csv FILE         also write the rows as CSV to FILE\n"
               "  --append           append to FILE (no header), e.g. for P = 1 then 2\n"
               "  --plot PREFIX      PREFIX.dat, PREFIX.gp and PREFIX.png (gnuplot): the time\n"
               "                     split per algorithm\n"
               "  --compact          also the compact scheme: DistD2 across the ranks\n"
               "                     (tl_mpi_distd2_compact_sz; one exchange for the batch,\n"
               "                     then rounds of --rounds groups) against the fused\n"
               "                     packed kernel with P threads on rank 0; 2 words per\n"
               "                     unknown (read u, write du)\n"
               "  --rounds R         groups per round for --compact (default 2)\n"
               "  --gpu              with --compact, also the compact scheme on the GPU kernels\n"
               "                     (tl_mpi_distd2_compact_gpu: one exchange, the slices kept\n"
               "                     on each rank's device; without a device the emulator runs\n"
               "                     them: a check of the path, not a figure)\n"
               "\n"
               "Bind no rank to a core (mpirun --bind-to none): the packed kernel runs P threads\n"
               "in rank 0. Exit status 0, 1 for bad options or when a solve fails.\n");
}

typedef struct bench_args {
  tl_mpi_bench_config cfg;
  const char *algos[MAX_ALGOS];
  size_t nalgos;
  char *algo_list;
  int packed, gtsv, pingpong, append, compact, gpu;
  size_t rounds;
  size_t pingpong_max;
  const char *csv, *plot;
} bench_args;

static int parse_algos(bench_args *a, const char *v)
{
  a->algo_list = strdup(v);
  for (char *tok = strtok(a->algo_list, ","); tok; tok = strtok(NULL, ",")) {
    if (!tl_mpi_find(tok)) {
      cli_error("bench: no MPI algorithm named '%s' (see 'tridlab-mpi list')", tok);
      return 2;
    }
    if (a->nalgos == MAX_ALGOS) {
      cli_error("bench: at most %d algorithms", MAX_ALGOS);
      return 2;
    }
    a->algos[a->nalgos++] = tok;
  }
  return 0;
}

/* The bench batch's options, shared by bench and model: --n, --unknowns,
 * --reps, --seed, --quick. 1: taken (i moved past its value), 0: not
 * one of them, -1: a bad value (said). */
int mpi_batch_option(int argc, char **argv, int *i, tl_mpi_bench_config *cfg)
{
  const char *arg = argv[*i], *v;
  long k;
  if (!strcmp(arg, "--quick")) {
    cfg->n = 1024, cfg->unknowns = (size_t)1 << 20, cfg->reps = 3;
  } else if (cli_is(arg, "--n")) {
    if (!(v = cli_value(argc, argv, i, "--n")) || cli_parse_int(v, "--n", 1, 1L << 30, &k))
      return -1;
    cfg->n = (size_t)k;
  } else if (cli_is(arg, "--unknowns")) {
    if (!(v = cli_value(argc, argv, i, "--unknowns")) ||
        cli_parse_int(v, "--unknowns", 1, 1L << 32, &k))
      return -1;
    cfg->unknowns = (size_t)k;
  } else if (cli_is(arg, "--reps")) {
    if (!(v = cli_value(argc, argv, i, "--reps")) || cli_parse_int(v, "--reps", 1, TL_BENCH_MAX_REPS, &k))
      return -1;
    cfg->reps = (int)k;
  } else if (cli_is(arg, "--seed")) {
    if (!(v = cli_value(argc, argv, i, "--seed")) || cli_parse_u64(v, "--seed", &cfg->seed))
      return -1;
  } else {
    return 0;
  }
  return 1;
}

static int parse(int argc, char **argv, bench_args *a)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    long k;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      if (mpi_rank() == 0)
        bench_usage(stdout);
      return 1;
    } else if (!strcmp(arg, "--no-packed")) {
      a->packed = 0;
    } else if (!strcmp(arg, "--no-gtsv")) {
      a->gtsv = 0;
    } else if (!strcmp(arg, "--no-pingpong")) {
      a->pingpong = 0;
    } else if (!strcmp(arg, "--append")) {
      a->append = 1;
    } else if (!strcmp(arg, "--compact")) {
      a->compact = 1;
    } else if (!strcmp(arg, "--gpu")) {
      a->gpu = 1;
    } else if (cli_is(arg, "--rounds")) {
      if (!(v = cli_value(argc, argv, &i, "--rounds")) ||
          cli_parse_int(v, "--rounds", 1, 1L << 20, &k))
        return 2;
      a->rounds = (size_t)k;
    } else if ((k = mpi_batch_option(argc, argv, &i, &a->cfg)) != 0) {
      if (k < 0)
        return 2;
    } else if (cli_is(arg, "--algo")) {
      if (!(v = cli_value(argc, argv, &i, "--algo")) || parse_algos(a, v))
        return 2;
    } else if (cli_is(arg, "--pingpong-max")) {
      if (!(v = cli_value(argc, argv, &i, "--pingpong-max")) ||
          cli_parse_int(v, "--pingpong-max", 8, 1L << 30, &k))
        return 2;
      a->pingpong_max = (size_t)k;
    } else if (cli_is(arg, "--csv")) {
      if (!(a->csv = cli_value(argc, argv, &i, "--csv")))
        return 2;
    } else if (cli_is(arg, "--plot")) {
      if (!(a->plot = cli_value(argc, argv, &i, "--plot")))
        return 2;
    } else {
      cli_error("bench: unknown option '%s' (see 'tridlab-mpi bench --help')", arg);
      return 2;
    }
  }
  if (a->cfg.unknowns < a->cfg.n) {
    cli_error("bench: --unknowns (%zu) is smaller than --n (%zu)", a->cfg.unknowns, a->cfg.n);
    return 2;
  }
  return 0;
}

/* ---------------------------------------------------------------- */
/* Output (rank 0)                                                     */

static const char CSV_HEADER[] =
    "kind,name,ranks,n,nsys,status,t_med_s,t_min_s,t_max_s,t_comm_s,t_compute_s,"
    "words_per_unknown,gbs,limit_gbs,limit_ratio,time_vs_pddtsv,time_vs_packed,messages,"
    "words_sent,words_recv,collectives,residual_ratio\n";

static void csv_row(FILE *f, const char *kind, const tl_mpi_bench_result *r, double vs_pddtsv,
                    double vs_packed)
{
  fprintf(f, "%s,%s,%d,%zu,%zu,%s", kind, r->name, r->ranks, r->n, r->nsys,
          tl_status_name(r->status));
  const double v[] = {r->t_med,       r->t_min,           r->t_max, r->t_comm,
                      r->t_compute,   r->words,           r->gbs,   r->limit_gbs,
                      r->limit_ratio, vs_pddtsv,          vs_packed};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    fputc(',', f);
    tl_csv_num(f, v[k]);
  }
  fprintf(f, ",%ld,%ld,%ld,%ld,", r->ledger.messages, r->ledger.words_sent, r->ledger.words_recv,
          r->ledger.collectives);
  tl_csv_num(f, r->residual);
  fputc('\n', f);
}

static void print_row(const tl_mpi_bench_result *r, double vs_pddtsv, double vs_packed)
{
  printf("%-16s %2d %9.3f %9.3f %8.3f %7.2f %6.2f %8.2f %8.2f %6ld %9ld %8.2g %s\n", r->name,
         r->ranks, 1e3 * r->t_med, 1e3 * r->t_comm, 1e3 * (r->t_max - r->t_min), r->gbs,
         r->limit_ratio, vs_pddtsv, vs_packed, r->ledger.messages, r->ledger.words_sent,
         r->residual, r->status == TL_OK ? "" : r->msg);
}

/* PREFIX.dat (name compute comm, one line per bar) and PREFIX.gp: a
 * stacked bar per algorithm, in milliseconds. */
static void write_plot(const char *prefix, const tl_mpi_bench_result *res, size_t count, int P)
{
  char dir[1024], base[512], name[600];
  const char *slash = strrchr(prefix, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - prefix) : 1, slash ? prefix : ".");
  snprintf(base, sizeof base, "%s", slash ? slash + 1 : prefix);
  tl_info info;
  snprintf(name, sizeof name, "%s.dat", base);
  FILE *f = tl_out_open(dir, name, &info);
  if (!f) {
    cli_error("bench: %s", info.msg);
    return;
  }
  fprintf(f, "# name compute_ms comm_ms\n");
  for (size_t k = 0; k < count; k++)
    if (res[k].status == TL_OK)
      fprintf(f, "%s %.6g %.6g\n", res[k].name, 1e3 * res[k].t_compute, 1e3 * res[k].t_comm);
  tl_out_close(f, dir, name, &info);
  snprintf(name, sizeof name, "%s.gp", base);
  char png[600];
  snprintf(png, sizeof png, "%s.png", base);
  if (!(f = tl_out_open(dir, name, &info))) {
    cli_error("bench: %s", info.msg);
    return;
  }
  tl_gp_begin(f, png, 900, 500);
  fprintf(f,
          "set title 'tridlab-mpi bench: time per solve, %d rank(s), %zu x %zu' noenhanced\n"
          "set style data histograms\nset style histogram rowstacked\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
          "set ylabel 'ms per solve (slowest rank)'\nset xtics rotate by -30 noenhanced\n"
          "set key top left\n"
          "plot '%s.dat' using 2:xtic(1) title 'compute', '' using 3 title 'communication'\n",
          P, res[0].nsys, res[0].n, base);
  tl_out_close(f, dir, name, &info);
  int made = tl_gnuplot_make(dir, name, png, &info);
  if (made == TL_OK)
    fprintf(stderr, "bench: wrote %s.png\n", prefix);
  else
    fprintf(stderr, "bench: wrote %s.dat and %s.gp (no png: %s)\n", prefix, prefix, info.msg);
}

/* ---------------------------------------------------------------- */

/* Message sizes 8, 64, 512, ... bytes (a factor 8), then the largest. */
static size_t pingpong_sizes(size_t most, size_t *sizes, size_t cap)
{
  size_t count = 0;
  for (size_t m = 8; m < most && count + 1 < cap; m *= 8)
    sizes[count++] = m;
  sizes[count++] = most;
  return count;
}

static void pingpong(FILE *csv, int P, size_t most)
{
  size_t sizes[16];
  size_t NS = pingpong_sizes(most, sizes, 16);
  double half[16], alpha, beta;
  tl_info info;
  if (tl_mpi_pingpong(MPI_COMM_WORLD, sizes, NS, 20, half, &alpha, &beta, &info) != TL_OK) {
    if (mpi_rank() == 0 && P > 1)
      cli_error("bench: %s", info.msg);
    return;
  }
  if (mpi_rank() != 0)
    return;
  printf("\nping-pong between ranks 0 and 1 (half the median round trip of 20):\n");
  printf("%10s %12s %10s\n", "bytes", "us", "GB/s");
  for (size_t k = 0; k < NS; k++)
    printf("%10zu %12.3f %10.3f\n", sizes[k], 1e6 * half[k], sizes[k] / half[k] * 1e-9);
  printf("model: alpha = %.3f us, beta = %.3f GB/s\n", 1e6 * alpha, beta * 1e-9);
  if (!csv)
    return;
  for (size_t k = 0; k < NS; k++) {
    fprintf(csv, "pingpong,%zu,2,,,ok,", sizes[k]);
    tl_csv_num(csv, half[k]);
    fprintf(csv, ",,,,,,");
    tl_csv_num(csv, sizes[k] / half[k] * 1e-9);
    fprintf(csv, ",,,,,,,,,\n");
  }
  fprintf(csv, "alpha_beta,fit,2,,,ok,");
  tl_csv_num(csv, alpha);
  fprintf(csv, ",,,,,,");
  tl_csv_num(csv, beta * 1e-9);
  fprintf(csv, ",,,,,,,,,\n");
}

/* The compact scheme across the ranks (one exchange, then rounds)
 * against the fused kernel on rank 0 with P threads. 1 if one failed. */
static int compact(FILE *csv, const bench_args *a, int P)
{
  tl_mpi_bench_result r[4];
  size_t rounds[2] = {0, a->rounds};
  int failed = 0, ok[4] = {0, 0, 0, 0};
  int threads = tl_cpu_threads();
  tl_cpu_set_threads(1);
  for (int k = 0; k < 2; k++) {
    tl_info info;
    ok[k] = tl_mpi_bench_compact(MPI_COMM_WORLD, rounds[k], &a->cfg, &r[k], &info) == TL_OK;
    if (!ok[k] && mpi_rank() == 0)
      cli_error("bench: the compact scheme: %s", info.msg);
    failed |= !ok[k] || r[k].status != TL_OK;
  }
  if (a->gpu) { /* the GPU kernels, one exchange */
    tl_info info;
    ok[3] = tl_mpi_bench_compact_gpu(MPI_COMM_WORLD, &a->cfg, &r[3], &info) == TL_OK;
    if (!ok[3] && mpi_rank() == 0)
      cli_error("bench: the compact scheme on the GPU kernels: %s", info.msg);
    failed |= !ok[3] || r[3].status != TL_OK;
  }
  tl_cpu_set_threads(threads); /* as tl_mpi_share_cores left it */
  tl_info info;
  ok[2] = tl_mpi_bench_compact_packed(MPI_COMM_WORLD, P, &a->cfg, &r[2], &info) == TL_OK;
  if (!ok[2] && mpi_rank() == 0)
    cli_error("bench: the fused compact kernel: %s", info.msg);
  if (mpi_rank() != 0)
    return failed;
  double t_fused = ok[2] ? r[2].t_med : NAN;
  printf("\ncompact scheme (6th order, periodic; one matrix, the stencil of u fused in), %zu "
         "systems x %zu rows, 2 words per unknown:\n",
         r[2].nsys ? r[2].nsys : r[0].nsys, a->cfg.n);
  printf("%-18s %2s %9s %9s %8s %7s %6s %8s\n", "kernel", "P", "ms", "comm ms", "spread", "GB/s",
         "limit", "/fused");
  for (int k = 0; k < 4; k++)
    if (ok[k]) {
      printf("%-18s %2d %9.3f %9.3f %8.3f %7.2f %6.2f %8.2f %s\n", r[k].name, r[k].ranks,
             1e3 * r[k].t_med, 1e3 * r[k].t_comm, 1e3 * (r[k].t_max - r[k].t_min), r[k].gbs,
             r[k].limit_ratio, r[k].t_med / t_fused, r[k].status == TL_OK ? "" : r[k].msg);
      if (csv)
        csv_row(csv,
                k == 2   ? "openmp-compact"
                : k == 3 ? "mpi-gpu-compact"
                         : "mpi-compact",
                &r[k], NAN, r[k].t_med / t_fused);
    }
  printf("(/fused: this time / the fused packed kernel's with %d thread(s) on one rank)\n", P);
  return failed;
}

int cmd_mpi_bench(int argc, char **argv)
{
  bench_args a = {.packed = 1, .gtsv = 1, .pingpong = 1, .pingpong_max = (size_t)1 << 24, .rounds = 2};
  tl_mpi_bench_config_init(&a.cfg);
  int pr = parse(argc, argv, &a);
  if (pr) {
    free(a.algo_list);
    return pr == 1 ? 0 : EXIT_BAD_INPUT;
  }
  int P = mpi_size(), rank = mpi_rank();
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  tl_mpi_bench_result *res = calloc(count + 1, sizeof *res);
  FILE *csv = NULL;
  int bad = 0;
  if (rank == 0 && a.csv && !(csv = fopen(a.csv, a.append ? "a" : "w"))) {
    cli_error("bench: cannot write %s", a.csv);
    bad = 1;
  }
  if (mpi_agree(bad) || !res) {
    free(res);
    free(a.algo_list);
    return EXIT_BAD_INPUT;
  }
  if (csv && !a.append)
    fputs(CSV_HEADER, csv);
  int threads = tl_cpu_threads();
  tl_cpu_set_threads(1); /* one core per rank */
  size_t nres = 0;
  int failed = 0;
  for (size_t k = 0; k < count; k++) {
    int wanted = a.nalgos == 0;
    for (size_t j = 0; j < a.nalgos; j++)
      wanted |= tl_mpi_find(a.algos[j]) == reg[k];
    if (!wanted)
      continue;
    if (rank == 0)
      progress_line("bench", reg[k]->name, nres, a.nalgos ? a.nalgos : count);
    tl_info info;
    if (tl_mpi_bench_algorithm(MPI_COMM_WORLD, reg[k], &a.cfg, &res[nres], &info) != TL_OK) {
      if (rank == 0)
        cli_error("bench: %s: %s", reg[k]->name, info.msg);
      failed = 1;
      continue;
    }
    failed |= res[nres].status != TL_OK;
    nres++;
  }
  tl_cpu_set_threads(threads); /* as tl_mpi_share_cores left it */
  if (rank == 0)
    progress_clear();
  tl_mpi_bench_result packed = {.status = TL_ERR_UNSUPPORTED};
  tl_mpi_bench_result gtsv = {.status = TL_ERR_UNSUPPORTED};
  if (a.packed) {
    tl_info info;
    if (tl_mpi_bench_packed(MPI_COMM_WORLD, P, &a.cfg, &packed, &info) != TL_OK && rank == 0)
      cli_error("bench: the packed kernel: %s", info.msg);
  }
  if (a.gtsv) {
    tl_info info;
    if (tl_mpi_bench_gtsv_loop(MPI_COMM_WORLD, &a.cfg, &gtsv, &info) != TL_OK && rank == 0)
      cli_error("bench: the dgtsv loop: %s", info.msg);
  }
  double t_pddtsv = NAN;
  for (size_t k = 0; k < nres; k++)
    if (!strcmp(res[k].name, "pddtsv") && res[k].status == TL_OK)
      t_pddtsv = res[k].t_med;
  double t_packed = packed.status == TL_OK ? packed.t_med : NAN;
  if (rank == 0) {
    printf("tridlab-mpi bench: %d rank(s), %zu systems x %zu rows, %d runs (medians)\n", P,
           res[0].nsys ? res[0].nsys : packed.nsys, a.cfg.n, a.cfg.reps);
    printf("%-16s %2s %9s %9s %8s %7s %6s %8s %8s %6s %9s %8s\n", "algorithm", "P", "ms", "comm ms",
           "spread", "GB/s", "limit", "/pddtsv", "/packed", "msgs", "words", "residual");
    for (size_t k = 0; k < nres; k++)
      print_row(&res[k], t_pddtsv / res[k].t_med, res[k].t_med / t_packed);
    if (packed.status == TL_OK)
      print_row(&packed, t_pddtsv / packed.t_med, 1.0);
    if (gtsv.status == TL_OK)
      print_row(&gtsv, t_pddtsv / gtsv.t_med, gtsv.t_med / t_packed);
    printf("(limit: t_stream / t_solve; /pddtsv: PDDTSV's time / this time (> 1: faster);\n"
           " /packed: this time / the packed kernel's with %d thread(s); gtsv_loop: LAPACK's\n"
           " dgtsv system after system on rank 0, one thread)\n",
           P);
    if (csv) {
      for (size_t k = 0; k < nres; k++)
        csv_row(csv, "mpi", &res[k], t_pddtsv / res[k].t_med, res[k].t_med / t_packed);
      if (packed.status == TL_OK)
        csv_row(csv, "openmp", &packed, t_pddtsv / packed.t_med, 1.0);
      if (gtsv.status == TL_OK)
        csv_row(csv, "lapack", &gtsv, t_pddtsv / gtsv.t_med, gtsv.t_med / t_packed);
    }
    if (a.plot && nres) {
      if (packed.status == TL_OK)
        res[nres] = packed;
      write_plot(a.plot, res, nres + (packed.status == TL_OK), P);
    }
  }
  if (a.compact)
    failed |= compact(csv, &a, P);
  if (a.pingpong && P > 1)
    pingpong(csv, P, a.pingpong_max);
  if (csv && fclose(csv) != 0) {
    cli_error("bench: cannot write %s", a.csv);
    failed = 1;
  }
  free(res);
  free(a.algo_list);
  return mpi_agree(failed) ? 1 : 0;
}
