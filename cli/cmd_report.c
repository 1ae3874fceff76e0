/* cli/cmd_report.c -- `tridlab report`: the verification, convergence
 * studies and truncation sweeps in one directory, with an index.md that
 * links every CSV, embeds every plot, says what each shows and how to
 * reproduce it (docs/report.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "study.h"
#include "tridlab/sweep.h"
#include "tridlab/tridlab.h"

static const char *const palette[] = {"#1f4e9c", "#d62728", "#2a9d3a", "#9467bd",
                                      "#e69f00", "#17becf", "#8c564b", "#7f7f7f"};
#define NPALETTE (sizeof palette / sizeof palette[0])
#define MAX_SERIES 6

static void report_usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab report [--out DIR] [--quick] [--no-plot]\n"
          "\n"
          "Runs, into DIR (default report/):\n"
          "  1. the verification, as 'tridlab verify' does: every registry algorithm on every\n"
          "     gallery matrix against LAPACK (verification.md, verification.csv)\n"
          "  2. convergence studies of the compact schemes (tridlab converge): the 6th-order\n"
          "     periodic scheme with periodic Thomas and DistD2 on 2, 4, 8 partitions; the\n"
          "     three schemes periodic and with their closures; ITS and PDD with a\n"
          "     truncation below and above the scheme's error\n"
          "  3. every truncation sweep of 'tridlab sweep'\n"
          "  4. without --quick: 'tridlab bench --quick', the optimized CPU kernels against\n"
          "     this machine's memory bandwidth (bench.csv, bench.png, bench-summary.txt)\n"
          "and writes DIR/index.md: every CSV linked, every plot embedded, what each shows\n"
          "with the measured numbers, and the command that reproduces it. Plots need\n"
          "gnuplot; without it the .dat and .gp files are written and the index says so.\n"
          "About half a minute on 2 cores; --quick: smaller sizes and no benchmark.\n"
          "\n"
          "options:\n"
          "  --out DIR     output directory (created if missing)\n"
          "  --quick       smaller sizes, no benchmark (the CI test runs this)\n"
          "  --no-bench    leave out the benchmark (section 4)\n"
          "  --no-plot     do not run gnuplot\n"
          "\n"
          "exit status:\n"
          "  0  written, and the verification found no SILENT or UNEXPECTED result\n"
          "  1  the verification found SILENT or UNEXPECTED results (the report is still\n"
          "     written), bad usage, or a file could not be written\n");
}

/* ---------------------------------------------------------------- */
/* Text of the index                                                 */

typedef struct text {
  char *buf;
  size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void add(text *t, const char *fmt, ...)
{
  va_list ap;
  for (;;) {
    size_t room = t->cap - t->len;
    va_start(ap, fmt);
    int w = t->buf ? vsnprintf(t->buf + t->len, room, fmt, ap) : -1;
    va_end(ap);
    if (w >= 0 && (size_t)w < room) {
      t->len += (size_t)w;
      return;
    }
    size_t cap = t->cap ? 2 * t->cap : 8192;
    while (w >= 0 && cap - t->len <= (size_t)w)
      cap *= 2;
    char *p = realloc(t->buf, cap);
    if (!p)
      return; /* keep what we have; the index will be short */
    t->buf = p;
    t->cap = cap;
  }
}

/* The plot in the index, or why it is missing. */
static void add_figure(text *t, const char *dir, const char *png, const char *caption, int plot)
{
  if (out_exists(dir, png)) {
    add(t, "![%s](%s)\n\n", caption, png);
  } else {
    char gp[128];
    size_t len = strlen(png);
    snprintf(gp, sizeof gp, "%.*s.gp", (int)(len > 4 ? len - 4 : len), png);
    add(t,
        "*(plot `%s` not made: gnuplot %s; the data and script are here: run `gnuplot %s` in "
        "this directory)*\n\n",
        png,
        !gnuplot_found() ? "is not installed"
        : plot           ? "failed"
                         : "was not run (--no-plot)",
        gp);
  }
}

/* ---------------------------------------------------------------- */
/* 1. Verification: exactly `tridlab verify`, in process             */

typedef struct verify_outcome {
  long passed, reported, unexpected, silent, skipped;
  int parsed, rc;
} verify_outcome;

static int run_verification(const char *dir, int quick, verify_outcome *vo)
{
  char md[4096], csv[4096];
  snprintf(md, sizeof md, "%s/verification.md", dir);
  snprintf(csv, sizeof csv, "%s/verification.csv", dir);
  char *argv[8] = {"verify", "--markdown", md, "--csv", csv, "--quiet", NULL, NULL};
  int argc = 6;
  if (quick)
    argv[argc++] = "--quick";
  memset(vo, 0, sizeof *vo);
  vo->rc = cmd_verify(argc, argv);
  fflush(stdout);
  /* The summary line verify writes into verification.md. */
  FILE *f = fopen(md, "r");
  if (!f)
    return -1;
  char line[1024];
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "**%ld passed, %ld reported, %ld unexpected, %ld silent failures** (%ld",
               &vo->passed, &vo->reported, &vo->unexpected, &vo->silent, &vo->skipped) == 5) {
      vo->parsed = 1;
      break;
    }
  fclose(f);
  return vo->parsed ? 0 : -1;
}

/* ---------------------------------------------------------------- */
/* 2. Convergence studies through the library (tridlab/convergence.h) */

typedef struct conv_series {
  const char *label;
  const char *scheme;
  int periodic;
  const char *algo;
  int parts;
  const char *params[2]; /* "key=value" */
  size_t fixed_m;        /* > 0: P = n / m at every n */
} conv_series;

typedef struct conv_piece {
  const char *stem;
  const char *title;
  const char *what; /* what it shows and what to look for */
  const char *function;
  size_t nmin, nmax, nmax_quick;
  int slopes[3];
  conv_series series[MAX_SERIES];
} conv_piece;

static const conv_piece pieces[] = {
    {"conv_lele6_distd2",
     "Lele's 6th-order scheme, periodic: periodic Thomas and DistD2 on P = 2, 4, 8",
     "The periodic 6th-order first derivative of sin(x) on [0, 2 pi), solved by periodic "
     "Thomas and by DistD2 on 2, 4 and 8 partitions (paper 000 (DistD2-TDS) Fig. 10 does "
     "n = 32 .. 256 on 2). Look for: slope 6 down to the round-off floor near 1e-13; DistD2 on "
     "top of periodic Thomas wherever its partitions are long enough for the coupling it "
     "drops (about 0.38^m for [1/3, 1, 1/3], m rows per partition) to vanish below eps, and "
     "marked outside-domain where they are not.",
     "sin",
     16,
     2048,
     512,
     {6, 0, 0},
     {{"thomas_periodic", "lele6", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"distd2, P = 2", "lele6", 1, "distd2", 2, {NULL, NULL}, 0},
      {"distd2, P = 4", "lele6", 1, "distd2", 4, {NULL, NULL}, 0},
      {"distd2, P = 8", "lele6", 1, "distd2", 8, {NULL, NULL}, 0}}},
    {"conv_periodic",
     "The three schemes, periodic, periodic Thomas",
     "Pade 4th order and Lele's 6th-order first derivative and the 6th-order second "
     "derivative of sin(x), periodic. Look for: slopes 4, 6 and 6 until the round-off floor, "
     "which the second derivative (rounding grows like eps / h^2) reaches first.",
     "sin",
     16,
     2048,
     512,
     {4, 6, 0},
     {{"pade4", "pade4", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"lele6", "lele6", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"d2-6th", "d2-6th", 1, "thomas_periodic", 1, {NULL, NULL}, 0}}},
    {"conv_closures",
     "The three schemes with their one-sided closures, LAPACK gtsv",
     "The same schemes on [0, 2 pi] with both ends, closed by the standard 3rd-order one-sided "
     "rows (docs/convergence.md), on u = (1 + x^2) exp(-x), solved by LAPACK's pivoted gtsv. "
     "Look for: global order 3 in the max norm whatever the interior order: the closure rows "
     "set it.",
     "polyexp",
     16,
     4096,
     1024,
     {3, 0, 0},
     {{"pade4", "pade4", 0, "gtsv", 1, {NULL, NULL}, 0},
      {"lele6", "lele6", 0, "gtsv", 1, {NULL, NULL}, 0},
      {"d2-6th", "d2-6th", 0, "gtsv", 1, {NULL, NULL}, 0}}},
    {"conv_its_tol",
     "ITS with a truncation below and above the scheme's error",
     "Lele's 6th-order periodic scheme on 4 partitions solved by ITS, with the cut-off eps_c "
     "(and tol) far below the scheme's truncation error, and with eps_c = tol = 1e-6, above "
     "it from n = 64 on. Look for: the first on top of periodic Thomas (order 6 unchanged); "
     "the second flat near 1e-7, order gone, although ITS says ok: the tolerance is the "
     "user's choice, and the vs-LAPACK column of the CSV shows its price. Small partitions "
     "that cannot hold J are marked outside-domain.",
     "sin",
     64,
     2048,
     1024,
     {6, 0, 0},
     {{"thomas_periodic", "lele6", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"its, eps_c = 1e-15, tol = 1e-13", "lele6", 1, "its", 4, {"eps_c=1e-15", "tol=1e-13"}, 0},
      {"its, eps_c = tol = 1e-6", "lele6", 1, "its", 4, {"eps_c=1e-6", "tol=1e-6"}, 0}}},
    {"conv_pdd_m",
     "PDD with a fixed number of rows per partition",
     "Pade 4th order with closures (global order 3) on (1 + x^2) exp(-x), solved by LAPACK "
     "gtsv and by PDD with m = 64 and m = 8 rows per partition at every n (P = n / m: more "
     "ranks as the grid is refined). PDD drops far spike entries of about 0.27^m for "
     "[1/4, 1, 1/4]: 1e-37 for m = 64, below every truncation error; 3e-5 for m = 8, above "
     "it once the grid is fine. Look for: m = 64 on top of gtsv (order 3 unchanged), m = 8 "
     "flattening. Every PDD row is outside-domain because the closure rows are not "
     "diagonally dominant (the status says why; the answers are still written).",
     "polyexp",
     16,
     4096,
     1024,
     {3, 0, 0},
     {{"gtsv", "pade4", 0, "gtsv", 1, {NULL, NULL}, 0},
      {"pdd, m = 64", "pade4", 0, "pdd", 0, {"tol=1", NULL}, 64},
      {"pdd, m = 8", "pade4", 0, "pdd", 0, {"tol=1", NULL}, 8}}},
};
#define NPIECES (sizeof pieces / sizeof pieces[0])

static size_t series_count(const conv_piece *pc)
{
  size_t k = 0;
  while (k < MAX_SERIES && pc->series[k].label)
    k++;
  return k;
}

/* The tridlab converge command that gives one series' numbers. */
static void series_command(const conv_piece *pc, const conv_series *s, size_t nmax, char *buf,
                           size_t size)
{
  char params[128] = "", parts[32] = "";
  for (int k = 0; k < 2 && s->params[k]; k++) {
    size_t len = strlen(params);
    snprintf(params + len, sizeof params - len, " --param %s", s->params[k]);
  }
  const char *boundary = s->periodic ? "periodic" : "closure";
  if (s->fixed_m) {
    /* One grid at a time, P = n / m. */
    snprintf(buf, size,
             "n=%zu; while [ $n -le %zu ]; do build/tridlab converge --scheme %s --boundary %s "
             "--function %s --algo %s --parts $(( n / %zu > 0 ? n / %zu : 1 ))%s --nmin $n "
             "--nmax $n; n=$((2 * n)); done",
             pc->nmin, nmax, s->scheme, boundary, pc->function, s->algo, s->fixed_m, s->fixed_m,
             params);
    return;
  }
  if (s->parts > 1)
    snprintf(parts, sizeof parts, " --parts %d", s->parts);
  snprintf(buf, size,
           "build/tridlab converge --scheme %s --boundary %s --function %s --algo %s%s%s "
           "--nmin %zu --nmax %zu",
           s->scheme, boundary, pc->function, s->algo, parts, params, pc->nmin, nmax);
}

static void conv_progress(const tl_converge_row *row, size_t index, size_t count, void *ctx)
{
  char what[96];
  snprintf(what, sizeof what, "%s, n = %zu", (const char *)ctx, row->n);
  progress_line("report", what, index + 1, count);
}

/* Run one series; rows has tl_converge_count entries. */
static int run_series(const conv_piece *pc, const conv_series *s, size_t nmax,
                      tl_converge_row *rows, size_t cap, size_t *count)
{
  tl_converge_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.scheme = tl_compact_find(s->scheme);
  cfg.periodic = s->periodic;
  cfg.function = tl_converge_function_find(pc->function);
  cfg.wavenumber = 1.0;
  cfg.algo = tl_find(s->algo);
  cfg.nmin = pc->nmin;
  cfg.nmax = nmax;
  cfg.on_row = conv_progress;
  cfg.ctx = (void *)s->label;
  tl_info info;
  tl_info_clear(&info);
  if (!cfg.scheme || !cfg.function || !cfg.algo) {
    cli_error("report: %s: scheme, function or algorithm missing from this build", s->label);
    return -1;
  }
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = s->parts > 0 ? s->parts : 1;
  for (int k = 0; k < 2 && s->params[k]; k++)
    if (tl_options_set_param_kv(&opt, cfg.algo, s->params[k], &info) != TL_OK) {
      cli_error("report: %s: %s", s->label, info.msg);
      return -1;
    }
  cfg.opt = &opt;
  int st = s->fixed_m ? tl_sweep_converge_fixed_m(&cfg, s->fixed_m, rows, cap, count, &info)
                      : tl_converge_run(&cfg, rows, cap, count, &info);
  progress_clear();
  if (st < 0) {
    cli_error("report: %s: %s", s->label, info.msg);
    return -1;
  }
  return 0;
}

static int series_parts(const conv_series *s, size_t n)
{
  if (!s->fixed_m)
    return s->parts > 0 ? s->parts : 1;
  size_t P = n / s->fixed_m;
  return P < 1 ? 1 : (int)P;
}

/* Measured facts about one series, for the index. */
static void series_findings(text *t, const conv_series *s, const tl_converge_row *rows,
                            size_t count)
{
  add(t, "- **%s**: observed order (max norm)", s->label);
  for (size_t r = 1; r < count; r++) {
    if (isnan(rows[r].order_max))
      add(t, "%s -", r > 1 ? "," : "");
    else
      add(t, "%s %.2f", r > 1 ? "," : "", rows[r].order_max);
  }
  double emin = INFINITY;
  size_t nmin_err = 0, first_match = 0, outside = 0, failed = 0;
  for (size_t r = 0; r < count; r++) {
    if (rows[r].err_max < emin) {
      emin = rows[r].err_max;
      nmin_err = rows[r].n;
    }
    outside += rows[r].status > 0;
    failed += rows[r].status < 0;
  }
  /* From which n on the solver agrees with LAPACK to round-off. */
  for (size_t r = count; r-- > 0;) {
    if (!(rows[r].solver_diff <= 1e-14))
      break;
    first_match = rows[r].n;
  }
  add(t, " for n = %zu .. %zu; smallest error %.2e at n = %zu", rows[0].n, rows[count - 1].n, emin,
      nmin_err);
  if (first_match)
    add(t, "; agrees with LAPACK to 1e-14 from n = %zu on", first_match);
  else
    add(t, "; never within 1e-14 of LAPACK (largest difference %.1e)", rows[count - 1].solver_diff);
  if (outside || failed) {
    add(t, "; status:");
    for (size_t r = 0; r < count; r++)
      if (rows[r].status != TL_OK)
        add(t, " n=%zu %s", rows[r].n, rows[r].status > 0 ? "outside-domain" : "failed");
  } else {
    add(t, "; status ok at every n");
  }
  add(t, ".\n");
}

static int conv_plot(const char *dir, int plot, const conv_piece *pc, size_t ns,
                     tl_converge_row *const *rows, const size_t *counts)
{
  char dat[128], gp[128], png[128];
  snprintf(dat, sizeof dat, "%s.dat", pc->stem);
  snprintf(gp, sizeof gp, "%s.gp", pc->stem);
  snprintf(png, sizeof png, "%s.png", pc->stem);
  FILE *d = out_open(dir, dat);
  if (!d)
    return -1;
  double n0 = 0.0, e0 = 0.0, lo = INFINITY, hi = 0.0;
  for (size_t s = 0; s < ns; s++) {
    fprintf(d, "%s# %s: n err_max err_l2 solver_diff\n", s ? "\n\n" : "", pc->series[s].label);
    for (size_t r = 0; r < counts[s]; r++) {
      const tl_converge_row *w = &rows[s][r];
      fprintf(d, "%zu", w->n);
      dat_num(d, w->err_max, 1);
      dat_num(d, w->err_l2, 1);
      dat_num(d, w->solver_diff, 1);
      fputc('\n', d);
      if (w->err_max > 0 && isfinite(w->err_max)) {
        lo = fmin(lo, w->err_max);
        hi = fmax(hi, w->err_max);
      }
      if (s == 0 && n0 == 0.0 && w->err_max > 0 && isfinite(w->err_max)) {
        n0 = (double)w->n;
        e0 = w->err_max;
      }
    }
  }
  if (out_close(d, dir, dat))
    return -1;
  FILE *g = out_open(dir, gp);
  if (!g)
    return -1;
  fprintf(g, "# tridlab report: run 'gnuplot %s' in this directory to remake %s\n", gp, png);
  gp_begin(g, png, 900, 700);
  fprintf(g, "set title \"%s\" noenhanced\n", pc->title);
  fprintf(g,
          "set logscale xy\nset format y '10^{%%L}'\nset xlabel 'n'\n"
          "set ylabel 'max error against the analytic derivative'\nset key below maxrows 3\n"
          "set xrange [%g:%g]\n",
          (double)pc->nmin / 1.4, (double)rows[0][counts[0] - 1].n * 1.4);
  if (hi > 0)
    fprintf(g, "set yrange [%.3e:%.3e]\n", lo / 10.0, hi * 10.0);
  fputs("plot ", g);
  for (size_t s = 0; s < ns; s++) {
    /* Later series dashed and with open markers, so that series lying on
     * top of each other stay visible. */
    fprintf(g,
            "%s'%s' index %zu using 1:2 with linespoints pt %d ps %.1f lw 2 dt %d lc rgb '%s' "
            "title '%s' noenhanced",
            s ? ", \\\n     " : "", dat, s, s ? 4 + 2 * (int)s : 7, s ? 1.6 : 1.0,
            s ? (int)s + 1 : 1, palette[s % NPALETTE], pc->series[s].label);
  }
  for (int k = 0; k < 3 && pc->slopes[k]; k++)
    if (n0 > 0)
      fprintf(g, ", \\\n     %.9e * x**(-%d) with lines dt 3 lw 1 lc rgb 'black' title 'n^{-%d}'",
              e0 * pow(n0, pc->slopes[k]), pc->slopes[k], pc->slopes[k]);
  fputc('\n', g);
  if (out_close(g, dir, gp))
    return -1;
  if (plot)
    gnuplot_make(dir, gp, png);
  return 0;
}

static int conv_csv(const char *dir, const conv_piece *pc, size_t ns, tl_converge_row *const *rows,
                    const size_t *counts)
{
  char csv[128];
  snprintf(csv, sizeof csv, "%s.csv", pc->stem);
  FILE *f = out_open(dir, csv);
  if (!f)
    return -1;
  fprintf(f, "series,scheme,boundary,function,wavenumber,length,algo,parts,n,h,err_max,err_l2,"
             "order_max,order_l2,solver_diff,dropped,status,note\n");
  for (size_t s = 0; s < ns; s++) {
    const conv_series *se = &pc->series[s];
    for (size_t r = 0; r < counts[s]; r++) {
      const tl_converge_row *w = &rows[s][r];
      csv_str(f, se->label);
      fprintf(f, ",%s,%s,%s,1,%.17g,%s,%d,%zu,%.17g,", se->scheme,
              se->periodic ? "periodic" : "closure", pc->function, 2.0 * acos(-1.0), se->algo,
              series_parts(se, w->n), w->n, w->h);
      double v[6] = {w->err_max, w->err_l2, w->order_max, w->order_l2, w->solver_diff, w->dropped};
      for (int k = 0; k < 6; k++) {
        csv_num(f, v[k]);
        fputc(',', f);
      }
      fprintf(f, "%s,", tl_status_name(w->status));
      csv_str(f, w->note);
      fputc('\n', f);
    }
  }
  return out_close(f, dir, csv);
}

static int run_piece(const char *dir, int quick, int plot, const conv_piece *pc, text *t)
{
  size_t ns = series_count(pc), nmax = quick ? pc->nmax_quick : pc->nmax;
  size_t cap = tl_converge_count(pc->nmin, nmax);
  tl_converge_row *rows[MAX_SERIES] = {NULL};
  size_t counts[MAX_SERIES] = {0};
  int rc = -1;
  for (size_t s = 0; s < ns; s++) {
    rows[s] = calloc(cap, sizeof *rows[s]);
    if (!rows[s]) {
      cli_error("out of memory");
      goto done;
    }
    if (run_series(pc, &pc->series[s], nmax, rows[s], cap, &counts[s]))
      goto done;
  }
  if (conv_csv(dir, pc, ns, rows, counts) || conv_plot(dir, plot, pc, ns, rows, counts))
    goto done;
  char png[128];
  snprintf(png, sizeof png, "%s.png", pc->stem);
  add(t, "### %s\n\n", pc->title);
  add_figure(t, dir, png, pc->title, plot);
  add(t, "%s\n\nMeasured:\n\n", pc->what);
  for (size_t s = 0; s < ns; s++)
    series_findings(t, &pc->series[s], rows[s], counts[s]);
  add(t,
      "\nData: [%s.csv](%s.csv) (one row per series and n: errors, orders, the solver's "
      "difference to LAPACK, what it dropped, its status and message). Reproduce each "
      "series:\n\n```sh\n",
      pc->stem, pc->stem);
  for (size_t s = 0; s < ns; s++) {
    char cmd[1024];
    series_command(pc, &pc->series[s], nmax, cmd, sizeof cmd);
    add(t, "%s\n", cmd);
  }
  add(t, "```\n\n");
  rc = 0;
done:
  for (size_t s = 0; s < ns; s++)
    free(rows[s]);
  return rc;
}

/* ---------------------------------------------------------------- */

/* Section 4: `tridlab bench --quick` into dir (bench.csv, bench.png,
 * bench-summary.txt), and its text for the index. */
static int run_bench(const char *dir, int plot, text *t)
{
  char csv[4096], prefix[4096], summary[4096];
  snprintf(csv, sizeof csv, "%s/bench.csv", dir);
  snprintf(prefix, sizeof prefix, "%s/bench", dir);
  snprintf(summary, sizeof summary, "%s/bench-summary.txt", dir);
  char *argv[12];
  int argc = 0;
  argv[argc++] = "bench";
  argv[argc++] = "--quick";
  argv[argc++] = "--quiet";
  argv[argc++] = "--csv";
  argv[argc++] = csv;
  argv[argc++] = "--summary";
  argv[argc++] = summary;
  if (plot) {
    argv[argc++] = "--plot";
    argv[argc++] = prefix;
  }
  argv[argc] = NULL;
  if (cmd_bench(argc, argv)) {
    cli_error("report: tridlab bench failed");
    return -1;
  }
  add(t, "The optimized CPU kernels (docs/algorithms/thomas_cpu.md, compact_cpu.md) against "
         "this machine's memory bandwidth, measured in this run by `tridlab bench --quick`: "
         "GB/s under each kernel's declared byte model, `copy_ratio` to a STREAM copy and "
         "`limit_ratio` to a streaming kernel that moves the same arrays the same way "
         "(docs/performance.md: the protocol, the targets, and a full run with the reasons for "
         "the targets not met). The quick run uses 2^22 unknowns per batch, which a large "
         "last-level cache may hold: the full run (`build/tridlab bench`) uses 2^25.\n\n");
  add_figure(t, dir, "bench.png",
             "time per unknown against n, double; dashed: the same-traffic limits", plot);
  FILE *f = fopen(summary, "r");
  if (f) {
    char line[512];
    add(t, "```\n");
    while (fgets(line, sizeof line, f))
      add(t, "%s", line);
    add(t, "```\n\n");
    fclose(f);
  }
  add(t, "Data: [bench.csv](bench.csv). Reproduce: `build/tridlab bench --quick` "
         "(docs/performance.md).\n\n");
  return 0;
}

int cmd_report(int argc, char **argv)
{
  const char *dir = "report";
  int quick = 0, plot = 1, bench = 1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      report_usage(stdout);
      return 0;
    } else if (!strcmp(arg, "--quick")) {
      quick = 1;
    } else if (!strcmp(arg, "--no-plot")) {
      plot = 0;
    } else if (!strcmp(arg, "--no-bench")) {
      bench = 0;
    } else if (cli_is(arg, "--out")) {
      if (!(dir = cli_value(argc, argv, &i, "--out")))
        return EXIT_BAD_INPUT;
    } else {
      cli_error("report: unknown option '%s' (see 'tridlab report --help')", arg);
      return EXIT_BAD_INPUT;
    }
  }
  if (out_mkdir(dir))
    return EXIT_BAD_INPUT;
  if (plot && !gnuplot_found()) {
    fprintf(stderr, "tridlab: gnuplot is not installed: the report will have no plots (the "
                    ".dat and .gp files are written; install gnuplot and rerun)\n");
    plot = 0;
  }

  int rc = EXIT_BAD_INPUT;
  const char *q = quick ? " --quick" : "";

  /* 1. Verification. */
  printf("report: verification (tridlab verify%s)\n", q);
  fflush(stdout);
  verify_outcome vo;
  if (run_verification(dir, quick, &vo)) {
    cli_error("report: the verification did not write its summary into %s/verification.md", dir);
    goto done;
  }
  int verified = !vo.silent && !vo.unexpected;

  /* 2. Convergence. */
  text conv = {0};
  for (size_t k = 0; k < NPIECES; k++) {
    printf("report: convergence: %s\n", pieces[k].title);
    fflush(stdout);
    if (run_piece(dir, quick, plot, &pieces[k], &conv)) {
      free(conv.buf);
      goto done;
    }
  }

  /* 3. Sweeps. */
  text sw = {0};
  for (size_t k = 0; k < study_count(); k++) {
    printf("report: sweep %s\n", study_name(k));
    fflush(stdout);
    study_args sa;
    study_args_init(&sa, quick);
    sa.out = dir;
    sa.plot = plot;
    study_result res;
    if (study_run(study_name(k), &sa, NULL, &res)) {
      free(conv.buf);
      free(sw.buf);
      goto done;
    }
    add(&sw, "### %s\n\n%s.\n\n", study_name(k), study_summary(k));
    for (size_t p = 0; p < res.npng; p++)
      add_figure(&sw, dir, res.png[p], res.caption[p], plot);
    add(&sw, "Measured: %s\n\nData:", res.findings);
    for (size_t c = 0; c < res.ncsv; c++)
      add(&sw, " [%s](%s)", res.csv[c], res.csv[c]);
    add(&sw, ". Reproduce: `build/%s` (docs/sweeps.md explains the study).\n\n", res.command);
  }

  /* 4. Performance: the quick benchmark, in this process (timings are
   * only meaningful with the machine otherwise idle). */
  text perf = {0};
  if (bench && !quick) {
    printf("report: bench --quick (optimized CPU kernels against memory bandwidth)\n");
    fflush(stdout);
    if (run_bench(dir, plot, &perf)) {
      free(conv.buf);
      free(sw.buf);
      free(perf.buf);
      goto done;
    }
  }

  /* The index. */
  FILE *f = out_open(dir, "index.md");
  if (!f) {
    free(conv.buf);
    free(sw.buf);
    goto done;
  }
  fprintf(f, "# tridlab report\n\n");
  fprintf(f,
          "Written by `tridlab report%s` (tridlab %s)%s. Reproduce all of it with "
          "`build/tridlab report --out %s%s` (or `make report`); each section gives the "
          "command for its own piece. How to read it: docs/report.md.\n\n",
          q, TRIDLAB_VERSION, quick ? " at the small --quick sizes" : "", dir, q);
  fprintf(f, "## Verdict\n\n");
  if (verified)
    fprintf(f,
            "**Zero silent failures.** Every (algorithm, gallery matrix, size, partition count) "
            "either passed LAPACK's residual and forward-error tests (ratio < 30, eps = 2^-53) "
            "or returned a status that says why it may not: %ld passed, %ld reported, "
            "%ld unexpected, %ld silent failures (%ld skipped: dtype or layout not taken).\n\n",
            vo.passed, vo.reported, vo.unexpected, vo.silent, vo.skipped);
  else
    fprintf(f,
            "**The verification FAILED: %ld silent failures, %ld unexpected.** A silent "
            "failure is a status ok with a ratio >= 30: a wrong answer nobody was warned "
            "about; an unexpected one is a report on a matrix inside the algorithm's classes. "
            "They are listed at the end of [verification.md](verification.md). (%ld passed, "
            "%ld reported, %ld skipped.)\n\n",
            vo.silent, vo.unexpected, vo.passed, vo.reported, vo.skipped);
  fprintf(f, "## 1. Verification\n\n");
  fprintf(f,
          "Every registry algorithm on every matrix of the gallery (docs/gallery.md), against "
          "LAPACK, with LAPACK's test ratios: residual (DGTT02) and forward error (DGET04 with "
          "DGTCON's rcond). Partitioned algorithms run at P = 1, 2, 3, 4, 7, 16. Table: "
          "[verification.md](verification.md); every triple: "
          "[verification.csv](verification.csv). Reproduce: `build/tridlab verify%s` "
          "(docs/verification.md explains the verdicts).\n\n",
          q);
  fprintf(f, "## 2. Convergence studies\n\n");
  fprintf(f, "Compact finite differences (docs/convergence.md) solved by registry algorithms: "
             "error against the analytic derivative as the grid is refined. An accurate solver "
             "leaves the scheme's slope; a solver that drops more than the scheme's error bends "
             "it. Dotted black lines: reference slopes n^-p through the first point.\n\n");
  if (conv.buf)
    fputs(conv.buf, f);
  fprintf(f, "## 3. Truncation sweeps\n\n");
  fprintf(f, "The approximate partition algorithms (ITS, PDD, RPDD, DistD2, Tridsolver's "
             "Jacobi) against the knob that sets what they drop, beside the bound or prediction "
             "their pages state (docs/sweeps.md). Every CSV has the algorithm's status and "
             "message per row: an approximate answer is always written, and the status says "
             "whether the algorithm vouches for it.\n\n");
  if (sw.buf)
    fputs(sw.buf, f);
  fprintf(f, "## 4. Performance\n\n");
  if (perf.buf)
    fputs(perf.buf, f);
  else
    fprintf(f,
            "Not run (%s). Run `build/tridlab bench --quick` on an otherwise idle machine; "
            "docs/performance.md has the protocol and a full run.\n",
            quick ? "--quick" : "--no-bench");
  free(conv.buf);
  free(sw.buf);
  free(perf.buf);
  if (out_close(f, dir, "index.md"))
    goto done;
  /* The verdict last, as `tridlab verify` ends. */
  printf("report: wrote %s/index.md\n", dir);
  printf("verify: %ld passed, %ld reported, %ld unexpected, %ld silent failures (%ld skipped)\n",
         vo.passed, vo.reported, vo.unexpected, vo.silent, vo.skipped);
  rc = verified ? 0 : 1;
done:
  return rc;
}
