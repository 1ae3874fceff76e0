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
#include "tridlab/study.h"
#include "tridlab/tridlab.h"

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
          "     truncation below and above the scheme's error; 6th order with both ends\n"
          "     (explicit closures) through several solvers; the closure study (every\n"
          "     closure family of every scheme with gtsv and thomas, as a table)\n"
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
  if (tl_out_exists(dir, png)) {
    add(t, "![%s](%s)\n\n", caption, png);
  } else {
    char gp[128];
    size_t len = strlen(png);
    snprintf(gp, sizeof gp, "%.*s.gp", (int)(len > 4 ? len - 4 : len), png);
    add(t,
        "*(plot `%s` not made: gnuplot %s; the data and script are here: run `gnuplot %s` in "
        "this directory)*\n\n",
        png,
        !tl_gnuplot_found() ? "is not installed"
        : plot              ? "failed"
                            : "was not run (--no-plot)",
        gp);
  }
}

/* ---------------------------------------------------------------- */
/* 1. Verification: exactly `tridlab verify`, in process             */

/* The counts come from the library's runner (tl_verify_run), through the
 * same function `tridlab verify` prints with. */
static int run_verification(const char *dir, int quick, tl_verify_summary *vo)
{
  char md[4096], csv[4096];
  snprintf(md, sizeof md, "%s/verification.md", dir);
  snprintf(csv, sizeof csv, "%s/verification.csv", dir);
  tl_verify_config cfg;
  cli_verify_defaults(&cfg, quick);
  int rc = cli_verify_run(&cfg, csv, md, 1, vo);
  fflush(stdout);
  return rc;
}

/* ---------------------------------------------------------------- */
/* 2 and 3. The studies of the library (tridlab/study.h)             */

/* Run study s into dir; 0, or -1 with the library's message. */
static int run_study(const tl_study *s, const char *dir, int quick, int plot, tl_study_result *res)
{
  tl_study_args sa;
  tl_study_args_init(&sa, quick);
  sa.out = dir;
  sa.plot = plot;
  tl_info info;
  tl_study_progress prog = {cli_study_progress, NULL};
  if (tl_study_run(s->name, &sa, NULL, &prog, res, &info) != TL_OK) {
    cli_error("report: %s", info.msg);
    return -1;
  }
  cli_plot_notes(dir, plot, res);
  return 0;
}

/* A convergence figure in the index: its plot, what it shows, the
 * measured facts of each series, its data and commands. */
static void add_convergence(text *t, const char *dir, int plot, const tl_study *s,
                            const tl_study_result *res)
{
  add(t, "### %s\n\n", s->summary);
  if (res->npng)
    add_figure(t, dir, res->png[0], s->summary, plot);
  add(t, "%s\n\nMeasured:\n\n%s", s->description, res->findings);
  if (res->ncsv)
    add(t,
        "\nData: [%s](%s) (one row per series and n: errors, orders, the solver's "
        "difference to LAPACK, what it dropped, its status and message). Reproduce each "
        "series:\n\n```sh\n",
        res->csv[0], res->csv[0]);
  add(t, "%s```\n\n", res->command);
}

/* A sweep in the index: its plots, findings, data and command. */
static void add_sweep(text *t, const char *dir, int plot, const tl_study *s,
                      const tl_study_result *res)
{
  add(t, "### %s\n\n%s.\n\n", s->name, s->summary);
  for (size_t p = 0; p < res->npng; p++)
    add_figure(t, dir, res->png[p], res->caption[p], plot);
  add(t, "Measured:\n\n%s\n\nData:", res->findings);
  for (size_t c = 0; c < res->ncsv; c++)
    add(t, " [%s](%s)", res->csv[c], res->csv[c]);
  add(t, ". Reproduce: `build/%s` (docs/sweeps.md explains the study).\n\n", res->command);
}

/* Every study of one kind, in the table's order, into t. */
static int run_studies(tl_study_kind kind, const char *dir, int quick, int plot, text *t)
{
  const tl_study *s;
  for (size_t k = 0; (s = tl_study_get(k)); k++) {
    if (s->kind != kind)
      continue;
    if (kind == TL_STUDY_CONVERGENCE)
      printf("report: convergence: %s\n", s->summary);
    else
      printf("report: sweep %s\n", s->name);
    fflush(stdout);
    tl_study_result res;
    if (run_study(s, dir, quick, plot, &res))
      return -1;
    if (kind == TL_STUDY_CONVERGENCE)
      add_convergence(t, dir, plot, s, &res);
    else
      add_sweep(t, dir, plot, s, &res);
  }
  return 0;
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
  tl_info info;
  if (tl_out_mkdir(dir, &info) != TL_OK) {
    cli_error("%s", info.msg);
    return EXIT_BAD_INPUT;
  }
  if (plot && !tl_gnuplot_found()) {
    fprintf(stderr, "tridlab: gnuplot is not installed: the report will have no plots (the "
                    ".dat and .gp files are written; install gnuplot and rerun)\n");
    plot = 0;
  }

  int rc = EXIT_BAD_INPUT;
  const char *q = quick ? " --quick" : "";

  /* 1. Verification. */
  printf("report: verification (tridlab verify%s)\n", q);
  fflush(stdout);
  tl_verify_summary vo;
  if (run_verification(dir, quick, &vo))
    goto done; /* said */
  int verified = !vo.silent && !vo.unexpected;

  /* 2. Convergence, 3. Sweeps. */
  text conv = {0}, sw = {0};
  if (run_studies(TL_STUDY_CONVERGENCE, dir, quick, plot, &conv) ||
      run_studies(TL_STUDY_SWEEP, dir, quick, plot, &sw)) {
    free(conv.buf);
    free(sw.buf);
    goto done;
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
  FILE *f = tl_out_open(dir, "index.md", &info);
  if (!f) {
    cli_error("%s", info.msg);
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
  if (tl_out_close(f, dir, "index.md", &info) != TL_OK) {
    cli_error("%s", info.msg);
    goto done;
  }
  /* The verdict last, as `tridlab verify` ends. */
  printf("report: wrote %s/index.md\n", dir);
  printf("verify: %ld passed, %ld reported, %ld unexpected, %ld silent failures (%ld skipped)\n",
         vo.passed, vo.reported, vo.unexpected, vo.silent, vo.skipped);
  rc = verified ? 0 : 1;
done:
  return rc;
}
