/* cli/mpi/cmd_mpi_model.c -- `tridlab-mpi model`: the alpha-beta-gamma
 * cost model of every MPI algorithm (docs/model.md). --measure (the
 * default) measures the machine and the algorithms in one run and prints
 * the model beside the measurement; --project predicts a paper's problem
 * on a published machine and plots it with the paper's figures. The
 * model is in the library (tridlab/mpi_model.h); this file parses, prints
 * and plots. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mpi_cli.h"
#include "tridlab/mpi.h"
#include "tridlab/mpi_model.h"
#include "tridlab/study.h"
#include "tridlab/tridlab.h"

#define MAX_ROWS 256
#define MAX_P 32 /* powers of two up to 2^31 */

static void model_usage(FILE *out)
{
  fprintf(out,
          "usage: mpirun --bind-to none -n P tridlab-mpi model [--measure] [options]\n"
          "       tridlab-mpi model --project --paper 000|001|003|all [options]\n"
          "\n"
          "The alpha-beta-gamma cost model of every MPI algorithm with a ledger model:\n"
          "time = compute + sum over the ledger's phases of alpha * messages + 8 words / beta\n"
          "(collectives as OpenMPI runs them), compute = max(gamma m nsys, the byte model).\n"
          "\n"
          "--measure (default): in one run, a ping-pong (alpha, beta), then per algorithm\n"
          "  gamma, its seconds per unknown: for P = 1 on one rank with 1/P of the batch;\n"
          "  for P >= 2 the rate of a rank holding the busiest rank's rows on P ranks\n"
          "  whose other ranks hold 64 rows each, fewer for short slices (its partitioned\n"
          "  work, no waiting); then\n"
          "  the bench batch on 1..P ranks against the model, with the same-traffic stream\n"
          "  measured beside each solve. Prints predicted and measured ms and their ratio,\n"
          "  and whether it is within 30%%.\n"
          "--project: the paper's problem on a published machine (figures not measured\n"
          "  here), P = powers of two; writes PREFIX-PAPER.csv, .dat, .gp and .png (time\n"
          "  per solve and parallel efficiency against P, the paper's figures as points).\n"
          "\n"
          "options:\n"
          "  --n N, --unknowns N, --reps R, --seed S, --quick   the batch (as bench)\n"
          "  --csv FILE         --measure: also write the rows as CSV\n"
          "  --paper ID         --project: 000, 001, 003 or all (default all)\n"
          "  --machine NAME     --project: frontier, summit, archer2, archer2-cores\n"
          "                     (default: the paper's own)\n"
          "  --out PREFIX       --project: output prefix (default model)\n"
          "  --max-ranks P      --project: stop at P ranks (default: the paper's largest)\n"
          "  --machines         list the published machines and their sources\n"
          "\n"
          "Exit status 0, 1 for bad options or when a measurement fails.\n");
}

typedef struct model_args {
  tl_mpi_bench_config cfg;
  int project, machines, max_ranks;
  const char *csv, *paper, *machine, *out;
} model_args;

static int parse(int argc, char **argv, model_args *a)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    long k;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      if (mpi_rank() == 0)
        model_usage(stdout);
      return 1;
    } else if (!strcmp(arg, "--measure")) {
      a->project = 0;
    } else if (!strcmp(arg, "--project")) {
      a->project = 1;
    } else if (!strcmp(arg, "--machines")) {
      a->machines = 1;
    } else if ((k = mpi_batch_option(argc, argv, &i, &a->cfg)) != 0) {
      if (k < 0)
        return 2;
    } else if (cli_is(arg, "--csv")) {
      if (!(a->csv = cli_value(argc, argv, &i, "--csv")))
        return 2;
    } else if (cli_is(arg, "--paper")) {
      if (!(a->paper = cli_value(argc, argv, &i, "--paper")))
        return 2;
      if (strcmp(a->paper, "all") && !tl_model_paper_find(a->paper)) {
        cli_error("model: no paper '%s' (000, 001, 003 or all)", a->paper);
        return 2;
      }
    } else if (cli_is(arg, "--machine")) {
      if (!(a->machine = cli_value(argc, argv, &i, "--machine")))
        return 2;
      if (!tl_model_machine_find(a->machine)) {
        cli_error("model: no machine '%s' (see 'tridlab-mpi model --machines')", a->machine);
        return 2;
      }
    } else if (cli_is(arg, "--max-ranks")) {
      const char *v = cli_value(argc, argv, &i, "--max-ranks");
      long k2;
      if (!v || cli_parse_int(v, "--max-ranks", 2, 1L << 20, &k2))
        return 2;
      a->max_ranks = (int)k2;
    } else if (cli_is(arg, "--out")) {
      if (!(a->out = cli_value(argc, argv, &i, "--out")))
        return 2;
    } else {
      cli_error("model: unknown option '%s' (see 'tridlab-mpi model --help')", arg);
      return 2;
    }
  }
  if (a->cfg.unknowns < a->cfg.n) {
    cli_error("model: --unknowns (%zu) is smaller than --n (%zu)", a->cfg.unknowns, a->cfg.n);
    return 2;
  }
  return 0;
}

/* ---------------------------------------------------------------- */
/* --measure                                                           */

static void print_rows(const tl_model_row *rows, size_t nrows, double alpha, double beta,
                       const tl_mpi_bench_config *cfg, FILE *csv)
{
  printf("tridlab-mpi model --measure: %zu systems x %zu rows, %d runs (medians)\n",
         cfg->unknowns / cfg->n, cfg->n, cfg->reps);
  if (isnan(alpha))
    printf("one rank: no ping-pong, no message modelled\n");
  else
    printf("measured: alpha = %.3f us, beta = %.3f GB/s (ping-pong, this run)\n", 1e6 * alpha,
           beta * 1e-9);
  printf("%-16s %2s %10s %10s %10s %10s %10s %7s %7s %s\n", "algorithm", "P", "gamma ns",
         "model ms", "comm ms", "bytes ms", "measured", "ratio", "30%?", "(comm measured ms)");
  if (csv)
    fprintf(csv, "name,ranks,status,gamma_s_per_unknown,t_model_s,t_comm_model_s,"
                 "t_compute_model_s,t_bytes_model_s,t_measured_s,t_comm_measured_s,ratio,"
                 "within_30,alpha_s,beta_Bps\n");
  for (size_t k = 0; k < nrows; k++) {
    const tl_model_row *r = &rows[k];
    int ok = r->status == TL_OK && fabs(r->ratio - 1.0) <= 0.30;
    printf("%-16s %2d %10.3f %10.3f %10.4f %10.3f %10.3f %7.3f %7s (%.3f)\n", r->name, r->ranks,
           1e9 * r->gamma, 1e3 * r->t_model, 1e3 * r->t_comm_model, 1e3 * r->t_bytes_model,
           1e3 * r->t_measured, r->ratio,
           r->status != TL_OK ? tl_status_name(r->status)
           : ok               ? "yes"
                              : "NO",
           1e3 * r->t_comm_measured);
    if (csv) {
      fprintf(csv, "%s,%d,%s", r->name, r->ranks, tl_status_name(r->status));
      const double v[] = {r->gamma,
                          r->t_model,
                          r->t_comm_model,
                          r->t_compute_model,
                          r->t_bytes_model,
                          r->t_measured,
                          r->t_comm_measured,
                          r->ratio,
                          ok,
                          alpha,
                          beta};
      for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
        fputc(',', csv);
        tl_csv_num(csv, v[j]);
      }
      fputc('\n', csv);
    }
  }
  printf("(gamma: seconds per unknown, P = 1 one rank alone on 1/P of the batch, P >= 2 a rank\n"
         " with the busiest rank's rows whose partners hold 64 rows each; bytes\n"
         " ms: the byte model at the stream's bandwidth instead of gamma, plus comm; ratio = model "
         "/ measured)\n");
}

static int run_measure(const model_args *a)
{
  tl_model_row *rows = calloc(MAX_ROWS, sizeof *rows);
  FILE *csv = NULL;
  int bad = !rows;
  if (mpi_rank() == 0 && a->csv && !(csv = fopen(a->csv, "w"))) {
    cli_error("model: cannot write %s", a->csv);
    bad = 1;
  }
  if (mpi_agree(bad)) {
    free(rows);
    return EXIT_BAD_INPUT;
  }
  int threads = tl_cpu_threads();
  tl_cpu_set_threads(1); /* one core per rank */
  size_t nrows = 0;
  double alpha, beta;
  tl_info info;
  int st = tl_model_measure(MPI_COMM_WORLD, &a->cfg, rows, MAX_ROWS, &nrows, &alpha, &beta, &info);
  tl_cpu_set_threads(threads); /* as tl_mpi_share_cores left it */
  int failed = st != TL_OK;
  if (mpi_rank() == 0) {
    if (failed)
      cli_error("model: %s", info.msg);
    else
      print_rows(rows, nrows, alpha, beta, &a->cfg, csv);
    for (size_t k = 0; k < nrows; k++)
      failed |= rows[k].status != TL_OK;
    if (csv && fclose(csv) != 0) {
      cli_error("model: cannot write %s", a->csv);
      failed = 1;
    }
  }
  free(rows);
  return mpi_agree(failed) ? 1 : 0;
}

/* ---------------------------------------------------------------- */
/* --project                                                           */

/* The efficiency at P relative to `base`, from the times of the powers
 * of two p_first * 2^j (NaN where either is missing). */
static double efficiency(const tl_model_paper *pp, const double *t, int P, int base)
{
  int i = (int)lround(log2((double)P / pp->p_first)),
      b = (int)lround(log2((double)base / pp->p_first));
  if (i < 0 || b < 0 || i >= MAX_P || b >= MAX_P || isnan(t[i]) || isnan(t[b]))
    return NAN;
  return pp->weak ? t[b] / t[i] : t[b] * base / (t[i] * P);
}

/* The gnuplot script: time per solve (log-log) over efficiency, one
 * line per algorithm (blocks of PREFIX.dat), the paper's points. */
static void write_gp(FILE *f, const char *png, const char *dat, const char *pts,
                     const tl_model_paper *pp, int p_last, const tl_model_machine *mach,
                     const char **names, size_t nalgo)
{
  tl_gp_begin(f, png, 1000, 900);
  /* the names' underscores as they are: a label's own noenhanced is not
   * honoured by every gnuplot (distd2_mpi came out with a subscript) */
  fprintf(f, "set termoption noenhanced\n");
  fprintf(f, "set multiplot layout 2,1 title 'paper %s: %s, on %s (model)' noenhanced\n", pp->id,
          pp->title, mach->name);
  fprintf(f, "set xrange [%g:%g]\n", pp->p_first / 1.5, p_last * 1.5);
  fprintf(f, "set logscale x 2\nset logscale y\nset key outside right noenhanced\n"
             "set xlabel 'ranks P'\nset ylabel 'predicted s per solve'\nplot \\\n");
  /* gnuplot has 8 colours: the curves after the eighth are dashed */
  for (size_t k = 0; k < nalgo; k++)
    fprintf(f, "  '%s' index %zu using 1:2 with linespoints dt %zu title '%s'%s\n", dat, k,
            1 + k / 8, names[k], k + 1 < nalgo ? ", \\" : "");
  fprintf(f,
          "unset logscale y\nset yrange [0:1.2]\nset ylabel 'parallel efficiency (from P = %d)'\n"
          "plot \\\n",
          pp->p_first);
  for (size_t k = 0; k < nalgo; k++)
    fprintf(f, "  '%s' index %zu using 1:3 with linespoints dt %zu title '%s', \\\n", dat, k,
            1 + k / 8, names[k]);
  fprintf(f,
          "  '%s' using 1:2:(sprintf('%%s %%.2f', stringcolumn(4), $2)) with labels noenhanced "
          "point pt 7 "
          "ps 2 offset 0,1 notitle, \\\n  '%s' using 1:2 with points pt 7 ps 2 lc rgb 'black' "
          "title 'paper %s (own base P)'\n",
          pts, pts, pp->id);
  fprintf(f, "unset multiplot\n");
}

static int project_paper(const tl_model_paper *pp, const tl_model_machine *mach, const char *prefix,
                         int max_ranks)
{
  int p_last = max_ranks && max_ranks < pp->p_last ? max_ranks : pp->p_last;
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  char dir[1024], base[512], name[700], png[700], dat[700], pts[700];
  const char *slash = strrchr(prefix, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - prefix) : 1, slash ? prefix : ".");
  snprintf(base, sizeof base, "%s-%s", slash ? slash + 1 : prefix, pp->id);
  tl_info info;
  if (tl_out_mkdir(dir, &info) != TL_OK) {
    cli_error("model: %s", info.msg);
    return 1;
  }
  snprintf(name, sizeof name, "%s.csv", base);
  snprintf(dat, sizeof dat, "%s.dat", base);
  snprintf(pts, sizeof pts, "%s-points.dat", base);
  FILE *csv = tl_out_open(dir, name, &info), *df = tl_out_open(dir, dat, &info);
  if (!csv || !df) {
    cli_error("model: %s", info.msg);
    if (csv)
      fclose(csv);
    if (df)
      fclose(df);
    return 1;
  }
  printf("paper %s: %s\n  problem: %s\n  machine: %s: %s\n", pp->id, pp->title, pp->problem,
         mach->name, mach->source);
  fprintf(csv, "paper,machine,algorithm,P,n,nsys,t_model_s,efficiency\n");
  const char *names[64];
  double times[64][MAX_P];
  size_t nalgo = 0;
  for (size_t k = 0; k < count && nalgo < 64; k++) {
    const tl_algorithm *algo = reg[k];
    if (!tl_model_projected(algo))
      continue;
    names[nalgo] = algo->name;
    double *t = times[nalgo];
    for (int j = 0; j < MAX_P; j++)
      t[j] = NAN;
    progress_line("model", algo->name, nalgo, count);
    for (int P = pp->p_first, j = 0; P <= p_last && j < MAX_P; P *= 2, j++)
      if (tl_model_project(algo, pp, mach, P, &t[j], &info) != TL_OK)
        t[j] = NAN;
    fprintf(df, "# %s\n", algo->name);
    for (int P = pp->p_first, j = 0; P <= p_last && j < MAX_P; P *= 2, j++) {
      double e = efficiency(pp, t, P, pp->p_first);
      size_t n = pp->weak ? pp->n * (size_t)P : pp->n;
      fprintf(csv, "%s,%s,%s,%d,%zu,%zu,", pp->id, mach->name, algo->name, P, n, pp->nsys);
      tl_csv_num(csv, t[j]);
      fputc(',', csv);
      tl_csv_num(csv, e);
      fputc('\n', csv);
      fprintf(df, "%d", P);
      tl_dat_num(df, t[j], 1);
      tl_dat_num(df, e, 0);
      fputc('\n', df);
    }
    fprintf(df, "\n\n");
    nalgo++;
  }
  progress_clear();
  tl_out_close(df, dir, dat, &info);
  FILE *pf = tl_out_open(dir, pts, &info);
  printf("  %-8s %6s %6s %10s %10s  %s\n", "algo", "P", "base", "published", "model", "source");
  int unmatched = 0;
  for (size_t k = 0; k < pp->npoints; k++) {
    const tl_model_point *q = &pp->points[k];
    double e = NAN;
    int found = 0;
    for (size_t j = 0; j < nalgo; j++)
      if (!strcmp(names[j], q->algo))
        e = efficiency(pp, times[j], q->P, q->base), found = 1;
    if (!found) { /* a name the registry no longer has: say so, not a silent nan */
      cli_error("model: paper %s's published point names '%s', which is not a projected "
                "algorithm of the registry",
                pp->id, q->algo);
      unmatched = 1;
    }
    printf("  %-8s %6d %6d %10.3f %10.3f  %s\n", q->algo, q->P, q->base, q->efficiency, e,
           q->where);
    if (pf)
      fprintf(pf, "%d %.4f %d %s/%d\n", q->P, q->efficiency, q->base, q->algo, q->base);
    fprintf(csv, "%s,%s,published:%s,%d,,,,", pp->id, mach->name, q->algo, q->P);
    tl_csv_num(csv, q->efficiency);
    fputc('\n', csv);
  }
  if (pf)
    tl_out_close(pf, dir, pts, &info);
  int bad = tl_out_close(csv, dir, name, &info) != TL_OK || unmatched;
  snprintf(name, sizeof name, "%s.gp", base);
  snprintf(png, sizeof png, "%s.png", base);
  FILE *gp = tl_out_open(dir, name, &info);
  if (!gp) {
    cli_error("model: %s", info.msg);
    return 1;
  }
  write_gp(gp, png, dat, pts, pp, p_last, mach, names, nalgo);
  tl_out_close(gp, dir, name, &info);
  if (tl_gnuplot_make(dir, name, png, &info) == TL_OK)
    printf("  wrote %s/%s.csv and %s/%s\n", dir, base, dir, png);
  else
    printf("  wrote %s/%s.csv and %s/%s (no png: %s)\n", dir, base, dir, name, info.msg);
  return bad;
}

static void list_machines(void)
{
  size_t count;
  const tl_model_machine *m = tl_model_machines(&count);
  printf("%-14s %8s %9s %10s %5s  %s\n", "machine", "alpha us", "beta GB/s", "mem GB/s", "ranks",
         "source (published figures, not measured here)");
  for (size_t k = 0; k < count; k++)
    printf("%-14s %8.2f %9.1f %10.1f %5d  %s\n", m[k].name, 1e6 * m[k].alpha, 1e-9 * m[k].beta,
           1e-9 * m[k].mem_bw, m[k].ranks_per_node, m[k].source);
}

static int run_project(const model_args *a)
{
  if (mpi_rank() != 0)
    return 0; /* arithmetic only: rank 0 does it */
  size_t count;
  const tl_model_paper *papers = tl_model_papers(&count);
  int bad = 0;
  for (size_t k = 0; k < count; k++) {
    const tl_model_paper *pp = &papers[k];
    if (a->paper && strcmp(a->paper, "all") && strcmp(a->paper, pp->id))
      continue;
    const tl_model_machine *mach = tl_model_machine_find(a->machine ? a->machine : pp->machine);
    bad |= project_paper(pp, mach, a->out ? a->out : "model", a->max_ranks);
  }
  return bad;
}

int cmd_mpi_model(int argc, char **argv)
{
  model_args a = {0};
  tl_mpi_bench_config_init(&a.cfg);
  int pr = parse(argc, argv, &a);
  if (pr)
    return pr == 1 ? 0 : EXIT_BAD_INPUT;
  if (a.machines) {
    if (mpi_rank() == 0)
      list_machines();
    return 0;
  }
  return a.project ? mpi_agree(run_project(&a)) : run_measure(&a);
}
