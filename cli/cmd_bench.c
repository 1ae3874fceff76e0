/* cli/cmd_bench.c -- `tridlab bench`: the optimized CPU kernels against
 * the memory-bandwidth limit of this machine (docs/design.md §7,
 * docs/performance.md).
 *
 * Options and printing only: the kernels, their byte models and limit
 * kernels, the timing driver and the sweep are the benchmark library's
 * (bench/, tridlab/bench.h); this file turns the options into a
 * tl_bench_config, shows progress on a terminal, and writes the CSV, the
 * summary of the targets and the plot the library makes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tridlab/bench.h"
#include "tridlab/cpu.h"
#include "tridlab/tridlab.h"

/* ---------------------------------------------------------------- */
/* Options                                                            */

typedef struct bench_opts {
  tl_bench_config cfg;
  const char *csv_path;
  const char *plot_prefix;
  const char *summary_path; /* the summary of the targets also goes here */
  int quiet;
} bench_opts;

static void bench_usage(FILE *out)
{
  fprintf(out, "usage: tridlab bench [options]\n"
               "\n"
               "Measures the optimized CPU kernels against the memory bandwidth of this machine\n"
               "(docs/performance.md). For each kernel, n, direction, precision and thread count:\n"
               "GB/s under the kernel's declared byte model, copy_ratio (to a STREAM copy),\n"
               "limit_ratio (to a streaming kernel moving the same arrays the same way, no\n"
               "recurrence; the median of paired runs) and the speed-up over the reference Thomas\n"
               "loop and a LAPACK xGTSV loop on the same batch. CSV on stdout (or --csv FILE).\n"
               "\n"
               "kernels (what each moves per unknown: the declared words):\n");
  size_t count;
  const tl_bench_kernel *ks = tl_bench_kernels(&count);
  for (size_t k = 0; k < count; k++)
    fprintf(out, "  %-19s %s\n  %-19s (%s%s = %g words)\n", ks[k].name, ks[k].summary, "",
            ks[k].double_only ? "double only; " : "", ks[k].moves, ks[k].words);
  fprintf(out,
          "\n"
          "options:\n"
          "  --quick            n = 256, 4096; 2^22 unknowns; 3 runs (well under a minute)\n"
          "  --sizes N1,N2,...  system sizes n (default 32,64,...,8192)\n"
          "  --unknowns N       unknowns per batch (default 2^25; the batch is N / n systems)\n"
          "  --threads T1,...   thread counts (default 1 and all %d)\n"
          "  --reps R           timed runs per measurement (default 7)\n"
          "  --sz S1,S2,...     group sizes for the SZ kernels, each of 8, 16, 32, 64\n"
          "                     (default: tl_cpu_sz_default(n); for the Cartesian\n"
          "                     kernels, tl_cpu_sz_3d of the shape timed)\n"
          "  --precision P      double, float or both (default both)\n"
          "  --dirs LIST        directions for the Cartesian kernels, e.g. x,z (default x,y,z)\n"
          "  --kernels LIST     only these kernels (comma-separated)\n"
          "  --offset B         every array B bytes past its 2 MiB boundary (default 0;\n"
          "                     16: where malloc puts a large array; a multiple of 8)\n"
          "  --csv FILE         write the CSV to FILE instead of stdout\n"
          "  --plot PREFIX      write PREFIX.dat and PREFIX.gp (normalised time per unknown\n"
          "                     against n, as paper 000 Figure 12) and, when gnuplot is\n"
          "                     installed, PREFIX.png\n"
          "  --summary FILE     also write the summary of the targets to FILE\n"
          "  --quiet            no summary of the targets\n"
          "Exit status: 0, or 1 on bad options or when memory is short.\n",
          tl_cpu_threads());
}

static int parse_precision(const char *v, unsigned *out)
{
  if (!strcmp(v, "double"))
    *out = TL_BENCH_DOUBLE;
  else if (!strcmp(v, "float"))
    *out = TL_BENCH_FLOAT;
  else if (!strcmp(v, "both"))
    *out = TL_BENCH_DOUBLE | TL_BENCH_FLOAT;
  else {
    cli_error("bench: --precision must be double, float or both, got '%s'", v);
    return -1;
  }
  return 0;
}

static int parse_dirs(const char *v, unsigned *out)
{
  *out = 0;
  for (const char *p = v; *p; p++) {
    if (*p == 'x' || *p == 'y' || *p == 'z')
      *out |= 1u << (*p - 'x');
    else if (*p != ',') {
      cli_error("bench: --dirs takes x, y and z, comma-separated, got '%s'", v);
      return -1;
    }
  }
  if (!*out) {
    cli_error("bench: --dirs is empty");
    return -1;
  }
  return 0;
}

/* --opt LIST of sizes into list/count. */
static int parse_list(int argc, char **argv, int *i, const char *opt, size_t *list, size_t *count)
{
  const char *v = cli_value(argc, argv, i, opt);
  return !v || cli_parse_sizes(v, opt, list, TL_BENCH_MAX_LIST, count) ? -1 : 0;
}

/* One option at argv[*i] into o; -1 (with a message) when it is bad. */
static int parse_one(int argc, char **argv, int *i, bench_opts *o, unsigned *given)
{
  tl_bench_config *c = &o->cfg;
  const char *arg = argv[*i], *v;
  long lv;
  if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q"))
    o->quiet = 1;
  else if (cli_is(arg, "--summary"))
    return (o->summary_path = cli_value(argc, argv, i, "--summary")) ? 0 : -1;
  else if (cli_is(arg, "--sizes"))
    return *given |= 1, parse_list(argc, argv, i, "--sizes", c->sizes, &c->nsizes);
  else if (cli_is(arg, "--threads"))
    return parse_list(argc, argv, i, "--threads", c->threads, &c->nthreads);
  else if (cli_is(arg, "--sz"))
    return parse_list(argc, argv, i, "--sz", c->szs, &c->nszs);
  else if (cli_is(arg, "--unknowns")) {
    if (!(v = cli_value(argc, argv, i, "--unknowns")) ||
        cli_parse_int(v, "--unknowns", 4096, 1L << 32, &lv))
      return -1;
    c->unknowns = (size_t)lv, *given |= 2;
  } else if (cli_is(arg, "--reps")) {
    if (!(v = cli_value(argc, argv, i, "--reps")) ||
        cli_parse_int(v, "--reps", 1, TL_BENCH_MAX_REPS, &lv))
      return -1;
    c->reps = lv, *given |= 4;
  } else if (cli_is(arg, "--precision"))
    return (v = cli_value(argc, argv, i, "--precision")) ? parse_precision(v, &c->precisions) : -1;
  else if (cli_is(arg, "--dirs"))
    return (v = cli_value(argc, argv, i, "--dirs")) ? parse_dirs(v, &c->dirs) : -1;
  else if (cli_is(arg, "--offset")) {
    if (!(v = cli_value(argc, argv, i, "--offset")) ||
        cli_parse_int(v, "--offset", 0, 1L << 20, &lv))
      return -1;
    if (lv % 8) {
      cli_error("bench: --offset must be a multiple of 8 bytes, got %ld", lv);
      return -1;
    }
    c->offset = (size_t)lv;
  } else if (cli_is(arg, "--kernels"))
    return (c->kernels = cli_value(argc, argv, i, "--kernels")) ? 0 : -1;
  else if (cli_is(arg, "--csv"))
    return (o->csv_path = cli_value(argc, argv, i, "--csv")) ? 0 : -1;
  else if (cli_is(arg, "--plot")) {
    if (!(o->plot_prefix = cli_value(argc, argv, i, "--plot")))
      return -1;
    if (strchr(o->plot_prefix, '\'') || !*o->plot_prefix) {
      cli_error("bench: --plot PREFIX must be a non-empty path without a single quote");
      return -1;
    }
  } else {
    cli_error("bench: unknown option '%s' (see 'tridlab bench --help')", arg);
    return -1;
  }
  return 0;
}

/* --quick sets the sizes, unknowns and runs the options did not give. */
static void apply_quick(tl_bench_config *c, unsigned given)
{
  tl_bench_config q;
  tl_bench_config_init(&q, 1);
  if (!(given & 1)) {
    memcpy(c->sizes, q.sizes, sizeof q.sizes);
    c->nsizes = q.nsizes;
  }
  if (!(given & 2))
    c->unknowns = q.unknowns;
  if (!(given & 4))
    c->reps = q.reps;
}

static int parse_args(int argc, char **argv, bench_opts *o, int *done)
{
  *done = 0;
  tl_bench_config_init(&o->cfg, 0);
  int quick = 0;
  unsigned given = 0; /* bits: sizes, unknowns, reps */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      bench_usage(stdout);
      *done = 1;
      return 0;
    }
    if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else if (parse_one(argc, argv, &i, o, &given))
      return -1;
  }
  if (quick)
    apply_quick(&o->cfg, given);
  tl_info info;
  if (tl_bench_config_check(&o->cfg, &info) != TL_OK) {
    cli_error("bench: %s%s", info.msg,
              strcmp(info.arg, "kernels") ? "" : " (see 'tridlab bench --help')");
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- */
/* Printing                                                           */

static void show_progress(void *arg, long count, long total, const char *kernel, size_t n, int fl,
                          size_t threads)
{
  (void)arg;
  fprintf(stderr, "\rbench: %ld/%ld  %-20s n=%-5zu %s %zu thr   ", count, total, kernel, n,
          fl ? "float " : "double", threads);
}

/* The summary of the targets into path; 0, or -1 with a message. */
static int write_summary(const char *path, const tl_bench_results *res, const tl_bench_config *c)
{
  FILE *sf = fopen(path, "w");
  if (sf) {
    tl_bench_summary(sf, res, c);
    if (!fclose(sf))
      return 0;
  }
  cli_error("bench: cannot write %s: %s", path, strerror(errno));
  return -1;
}

/* PREFIX.dat, PREFIX.gp and, with gnuplot, PREFIX.png; what was made on
 * stderr. 0, or -1 with a message. */
static int write_plot(const char *prefix, const tl_bench_results *res, const tl_bench_config *c)
{
  tl_info info, pinfo;
  int made;
  if (tl_bench_plot(prefix, res, c, &made, &pinfo, &info) != TL_OK) {
    cli_error("bench: %s", info.msg);
    return -1;
  }
  if (made == TL_ERR_IO)
    cli_error("%s", pinfo.msg);
  if (made == TL_OK)
    fprintf(stderr, "bench: wrote %s.dat, %s.gp and %s.png\n", prefix, prefix, prefix);
  else
    fprintf(stderr, "bench: wrote %s.dat and %s.gp (no %s.png: gnuplot %s)\n", prefix, prefix,
            prefix, made == TL_ERR_UNSUPPORTED ? "is not installed or was not run" : "failed");
  return 0;
}

int cmd_bench(int argc, char **argv)
{
  bench_opts o;
  memset(&o, 0, sizeof o);
  int done;
  if (parse_args(argc, argv, &o, &done))
    return EXIT_BAD_INPUT;
  if (done)
    return 0;
  FILE *csv = stdout;
  if (o.csv_path && !(csv = fopen(o.csv_path, "w"))) {
    cli_error("bench: cannot write %s: %s", o.csv_path, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  int progress = isatty(STDERR_FILENO), status = 0;
  tl_bench_results res = {NULL, 0, 0};
  tl_info info;
  if (tl_bench_run(&o.cfg, csv, progress ? show_progress : NULL, NULL, &res, &info) != TL_OK) {
    cli_error("bench: %s", info.msg);
    status = EXIT_BAD_INPUT;
  }
  if (progress)
    fprintf(stderr, "\r%70s\r", "");
  if (csv != stdout)
    fclose(csv);
  if (!status && !o.quiet)
    tl_bench_summary(o.csv_path ? stdout : stderr, &res, &o.cfg);
  if (!status && o.summary_path && write_summary(o.summary_path, &res, &o.cfg))
    status = EXIT_BAD_INPUT;
  if (!status && o.plot_prefix && write_plot(o.plot_prefix, &res, &o.cfg))
    status = EXIT_BAD_INPUT;
  tl_bench_results_free(&res);
  return status;
}
