/* cli/cmd_sweep.c -- `tridlab sweep`: truncation-error studies of the
 * approximate partition algorithms (docs/sweeps.md). The studies live in
 * the library (tridlab/sweep.h); this file chooses their sizes, prints the
 * tables and writes CSV, gnuplot data, scripts and plots. */
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

/* ---------------------------------------------------------------- */
/* Small helpers                                                     */

static void findings(study_result *res, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void findings(study_result *res, const char *fmt, ...)
{
  size_t len = strlen(res->findings);
  if (len + 1 >= sizeof res->findings)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(res->findings + len, sizeof res->findings - len, fmt, ap);
  va_end(ap);
}

static void add_csv(study_result *res, const char *name)
{
  if (res->ncsv < STUDY_MAX_FILES)
    snprintf(res->csv[res->ncsv++], sizeof res->csv[0], "%s", name);
}

static void add_png(study_result *res, const char *name, const char *caption)
{
  if (res->npng < STUDY_MAX_FILES) {
    snprintf(res->png[res->npng], sizeof res->png[0], "%s", name);
    snprintf(res->caption[res->npng++], sizeof res->caption[0], "%s", caption);
  }
}

/* "" (ok), " *" (outside-domain: solved, no guarantee), " !" (failed). */
static const char *mark(int status)
{
  return status == TL_OK ? "" : status > 0 ? "*" : "!";
}

/* A number for a table: "-" when NaN. */
static const char *num(char *buf, size_t size, const char *fmt, double v)
{
  if (isnan(v))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, fmt, v);
  return buf;
}

/* A library message without its own "sweep: " prefix (the command adds
 * the study's name). */
static const char *lib_msg(const tl_info *info)
{
  return strncmp(info->msg, "sweep: ", 7) == 0 ? info->msg + 7 : info->msg;
}

/* Progress of a library study: the study's name as the prefix. */
static void on_progress(const char *what, size_t done, size_t total, void *ctx)
{
  progress_line((const char *)ctx, what, done, total);
}

/* Write dir/<stem>.gp (already filled by the caller through f), close it
 * and run gnuplot when asked. */
static int finish_plot(const study_args *sa, FILE *f, const char *stem, study_result *res,
                       const char *caption)
{
  char gp[128], png[128];
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  if (out_close(f, sa->out, gp))
    return -1;
  add_png(res, png, caption);
  if (sa->plot)
    gnuplot_make(sa->out, gp, png);
  return 0;
}

/* Open dir/<stem>.gp with the terminal and output lines written. */
static FILE *open_plot(const study_args *sa, const char *stem, int width, int height)
{
  char gp[128], png[128];
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  FILE *f = out_open(sa->out, gp);
  if (!f)
    return NULL;
  fprintf(f, "# tridlab sweep: run 'gnuplot %s' in this directory to remake %s\n", gp, png);
  gp_begin(f, png, width, height);
  return f;
}

static FILE *open_dat(const study_args *sa, const char *stem)
{
  char dat[128];
  snprintf(dat, sizeof dat, "%s.dat", stem);
  return out_open(sa->out, dat);
}

static int close_dat(const study_args *sa, FILE *f, const char *stem)
{
  char dat[128];
  snprintf(dat, sizeof dat, "%s.dat", stem);
  return out_close(f, sa->out, dat);
}

/* ---------------------------------------------------------------- */
/* ITS against J: paper 003 Tables 2 and 3                           */

typedef struct paper_point {
  size_t J;
  double err;
} paper_point;

/* Paper 003 (ITS) §5.1: Table 2 (with E_a = 2.77e-5) and Table 3. */
static const paper_point table2[] = {{7, 7.13e-6}, {15, 7.26e-11}, {27, 3.85e-17}};
static const paper_point table3[] = {
    {7, 1.4e-5}, {15, 2.1e-11}, {18, 4.7e-14}, {20, 4.4e-16}, {27, 4.4e-16}};
#define PAPER_TABLE2_EA 2.77e-5

static double paper_err(const paper_point *pp, size_t np, size_t J)
{
  for (size_t k = 0; k < np; k++)
    if (pp[k].J == J)
      return pp[k].err;
  return NAN;
}

static void its_csv_header(FILE *f)
{
  fprintf(f, "study,n,parts,J,eps_c_rate,eps_c,err,bound,dropped,err_a,paper_err,status,note\n");
}

static void its_csv_row(FILE *f, const char *study, const tl_sweep_its_row *w, double paper)
{
  fprintf(f, "%s,%zu,%d,%zu,", study, w->n, w->parts, w->J);
  double v[7] = {w->eps_c_rate, w->eps_c, w->err, w->bound, w->dropped, w->err_a, paper};
  for (int k = 0; k < 7; k++) {
    csv_num(f, v[k]);
    fputc(',', f);
  }
  fprintf(f, "%s,", tl_status_name(w->status));
  csv_str(f, w->note);
  fputc('\n', f);
}

static void its_table(FILE *out, const tl_sweep_its_row *rows, size_t count, const paper_point *pp,
                      size_t np)
{
  fprintf(out, "%4s  %-11s  %-11s  %-11s  %-11s  %-11s  %-11s  %s\n", "J", "eps_c eq18",
          "eps_c A^-1", "error", "bound eq24", "dropped", "paper", "status");
  for (size_t r = 0; r < count; r++) {
    const tl_sweep_its_row *w = &rows[r];
    char b[6][24];
    fprintf(out, "%4zu  %-11s  %-11s  %-11s  %-11s  %-11s  %-11s  %s%s\n", w->J,
            num(b[0], 24, "%.3e", w->eps_c_rate), num(b[1], 24, "%.3e", w->eps_c),
            num(b[2], 24, "%.3e", w->err), num(b[3], 24, "%.3e", w->bound),
            num(b[4], 24, "%.3e", w->dropped), num(b[5], 24, "%.3e", paper_err(pp, np, w->J)),
            tl_status_name(w->status), mark(w->status));
  }
}

/* The measured error against the bound, and beside the paper's values. */
static size_t its_findings(study_result *res, const tl_sweep_its_row *rows, size_t count,
                           const paper_point *pp, size_t np, const char *table)
{
  double worst = 0.0;
  size_t worst_J = 0, solved = 0, within = 0;
  for (size_t r = 0; r < count; r++) {
    if (!tl_status_has_solution(rows[r].status))
      continue;
    solved++;
    /* eq 24 bounds the dropping; rounding (a few eps) comes on top. */
    if (rows[r].err <= rows[r].bound + 8 * TL_EPS)
      within++;
    if (rows[r].bound > 0 && rows[r].err / rows[r].bound > worst) {
      worst = rows[r].err / rows[r].bound;
      worst_J = rows[r].J;
    }
  }
  if (!solved) {
    findings(res, "No J gave a solution: the status column says why (a J larger than a "
                  "partition is an error). ");
    return 0;
  }
  findings(res,
           "The measured error is within the eq-24 bound (info.bound, plus 8 eps of rounding) "
           "at %zu of %zu values of J; the largest ratio error / bound is %.2f (J = %zu). ",
           within, solved, worst, worst_J);
  int listed = 0;
  for (size_t k = 0; k < np; k++) {
    for (size_t r = 0; r < count; r++)
      if (rows[r].J == pp[k].J && tl_status_has_solution(rows[r].status))
        findings(res, "%s J = %zu: paper %.2e, tridlab %.2e (x%.1f)",
                 listed++ ? ";" : "Paper 003 beside ours:", pp[k].J, pp[k].err, rows[r].err,
                 rows[r].err / pp[k].err);
  }
  if (listed)
    findings(res, " (%s)", table);
  /* The smallest J at which we reach each of the paper's errors (within
   * 10 %): how many more coefficients we need for the same accuracy. */
  findings(res, ". tridlab reaches the paper's error (to 10 %%) at");
  for (size_t k = 0; k < np; k++) {
    size_t reach = 0;
    for (size_t r = 0; r < count && !reach; r++)
      if (tl_status_has_solution(rows[r].status) && rows[r].err <= 1.1 * pp[k].err)
        reach = rows[r].J;
    if (reach)
      findings(res, "%s J = %zu (paper J = %zu)", k ? "," : "", reach, pp[k].J);
    else
      findings(res, "%s none of the J run (paper J = %zu; our round-off floor is above it)",
               k ? "," : "", pp[k].J);
  }
  findings(res, ". ");
  return solved;
}

static int its_plot(const study_args *sa, const char *stem, const char *title,
                    const tl_sweep_its_row *rows, size_t count, const paper_point *pp, size_t np,
                    const char *paper_label, double err_a, study_result *res, const char *caption)
{
  FILE *d = open_dat(sa, stem);
  if (!d)
    return -1;
  fprintf(d, "# J err bound eps_c_rate eps_c dropped\n");
  for (size_t r = 0; r < count; r++) {
    fprintf(d, "%zu", rows[r].J);
    dat_num(d, rows[r].err, 1);
    dat_num(d, rows[r].bound, 1);
    dat_num(d, rows[r].eps_c_rate, 1);
    dat_num(d, rows[r].eps_c, 1);
    dat_num(d, rows[r].dropped, 1);
    fputc('\n', d);
  }
  fprintf(d, "\n\n# %s: J err\n", paper_label);
  for (size_t k = 0; k < np; k++)
    fprintf(d, "%zu %.6e\n", pp[k].J, pp[k].err);
  if (close_dat(sa, d, stem))
    return -1;
  FILE *f = open_plot(sa, stem, 900, 650);
  if (!f)
    return -1;
  char dat[128];
  snprintf(dat, sizeof dat, "%s.dat", stem);
  fprintf(f, "set title \"%s\" noenhanced\n", title);
  fprintf(f, "set logscale y\nset format y '10^{%%L}'\n"
             "set xlabel 'J (coefficients kept on each side of an interface)'\n"
             "set ylabel '||x_{seq} - x_{par}||_{/Symbol \\245} / ||d||_{/Symbol \\245}'\n"
             "set key top right\n");
  fputs("plot ", f);
  gp_str(f, dat);
  fprintf(f,
          " index 0 using 1:2 with linespoints pt 7 lw 2 lc rgb '%s' title 'measured error', "
          "\\\n     '' index 0 using 1:3 with lines dt 2 lw 2 lc rgb '%s' title 'eq-24 bound "
          "(info.bound)', \\\n     '' index 0 using 1:4 with lines dt 3 lw 1.5 lc rgb '%s' "
          "title 'eps_c = rho^J (eq 18)', \\\n     '' index 1 using 1:2 with points pt 6 ps 2.2 "
          "lw 2 lc rgb '%s' title '%s'",
          palette[0], palette[1], palette[7], palette[2], paper_label);
  if (isfinite(err_a))
    fprintf(f,
            ", \\\n     %.6e with lines dt 4 lw 1.5 lc rgb 'black' title 'E_a (derivative "
            "error, LAPACK solve)'",
            err_a);
  fputc('\n', f);
  return finish_plot(sa, f, stem, res, caption);
}

static int run_its_table(const study_args *sa, FILE *table, study_result *res, int compact)
{
  const char *study = compact ? "its-compact" : "its-nonconst";
  const char *stem = compact ? "its_compact" : "its_nonconst";
  const paper_point *pp = compact ? table2 : table3;
  size_t np = compact ? sizeof table2 / sizeof table2[0] : sizeof table3 / sizeof table3[0];
  tl_sweep_its_row rows[STUDY_MAX_LIST];
  tl_info info;
  tl_sweep_progress prog = {on_progress, (void *)study};
  int st = tl_sweep_its(compact ? TL_SWEEP_ITS_COMPACT : TL_SWEEP_ITS_NONCONST, (size_t)sa->n,
                        (int)sa->parts, sa->J, sa->nJ, rows, &prog, &info);
  progress_clear();
  if (st < 0) {
    cli_error("sweep %s: %s", study, lib_msg(&info));
    return EXIT_BAD_INPUT;
  }
  char title[256];
  if (compact)
    snprintf(title, sizeof title,
             "ITS, 4th-order compact derivative of sin(20 pi x), periodic, n = %ld, P = %ld "
             "(paper 003 Table 2)",
             sa->n, sa->parts);
  else
    snprintf(title, sizeof title,
             "ITS, A = [sin i, 2(|sin i|+|cos i|), cos i], d = 1, n = %ld, P = %ld "
             "(paper 003 Table 3)",
             sa->n, sa->parts);
  if (table) {
    fprintf(table, "%s\n", title);
    if (compact)
      fprintf(table, "E_a = ||f' - f'_seq||_inf / ||f'||_inf = %.3e (paper 003: %.2e)\n",
              rows[0].err_a, PAPER_TABLE2_EA);
    fprintf(table, "error = ||x_seq - x_par||_inf / ||d||_inf; * outside-domain (solved, "
                   "dropped > tol), ! failed\n\n");
    its_table(table, rows, sa->nJ, pp, np);
  }
  char csv[64];
  snprintf(csv, sizeof csv, "%s.csv", stem);
  FILE *f = out_open(sa->out, csv);
  if (!f)
    return EXIT_BAD_INPUT;
  its_csv_header(f);
  for (size_t r = 0; r < sa->nJ; r++)
    its_csv_row(f, study, &rows[r], paper_err(pp, np, rows[r].J));
  if (out_close(f, sa->out, csv))
    return EXIT_BAD_INPUT;
  add_csv(res, csv);

  size_t solved = its_findings(res, rows, sa->nJ, pp, np, compact ? "Table 2" : "Table 3");
  if (compact && solved) {
    size_t first = 0;
    for (size_t r = 0; r < sa->nJ && !first; r++)
      if (tl_status_has_solution(rows[r].status) && rows[r].err < rows[r].err_a)
        first = rows[r].J;
    findings(res, "The derivative's own error E_a is %.2e (paper: %.2e); ", rows[0].err_a,
             PAPER_TABLE2_EA);
    if (first)
      findings(res,
               "the ITS error falls below it from J = %zu on (the paper: from its smallest "
               "J, 7). ",
               first);
    else
      findings(res, "the ITS error stays above it for the J given. ");
  }
  /* eq 18's eps_c (from the worst row's decay rate) against the one
   * measured on the exact inverse, where the latter is above round-off. */
  double lo = INFINITY, hi = 0.0;
  for (size_t r = 0; r < sa->nJ; r++)
    if (rows[r].eps_c > 1e3 * TL_EPS && rows[r].eps_c_rate > 0) {
      lo = fmin(lo, rows[r].eps_c_rate / rows[r].eps_c);
      hi = fmax(hi, rows[r].eps_c_rate / rows[r].eps_c);
    }
  if (hi > 0 && hi / lo < 1.01)
    findings(res,
             "eps_c from the decay rate (rho^J, eq 18) equals the largest neglected "
             "|z_j| / |z_I| of the exact A^-1 to 1 %% (ratio %.4f .. %.4f).",
             lo, hi);
  else if (hi > 0)
    findings(res,
             "eps_c from the worst row's decay rate (rho^J, rho = %.3g) is %.3g .. %.3g times "
             "the largest neglected |z_j| / |z_I| of the exact A^-1: the rows of this matrix "
             "decay faster on average than its worst row.",
             pow(rows[0].eps_c_rate, 1.0 / (double)rows[0].J), lo, hi);
  snprintf(res->command, sizeof res->command, "tridlab sweep %s --out %s", study, sa->out);
  char caption[160];
  snprintf(caption, sizeof caption, "ITS error against J with the eq-24 bound and the paper's %s",
           compact ? "Table 2" : "Table 3");
  if (its_plot(sa, stem, title, rows, sa->nJ, pp, np,
               compact ? "paper 003 Table 2" : "paper 003 Table 3", compact ? rows[0].err_a : NAN,
               res, caption))
    return EXIT_BAD_INPUT;
  return 0;
}

static int run_its_compact(const study_args *sa, FILE *table, study_result *res)
{
  return run_its_table(sa, table, res, 1);
}

static int run_its_nonconst(const study_args *sa, FILE *table, study_result *res)
{
  return run_its_table(sa, table, res, 0);
}

/* ---------------------------------------------------------------- */
/* ITS against n at fixed J (paper 003 Fig. 3)                       */

static int run_its_n(const study_args *sa, FILE *table, study_result *res)
{
  size_t nn = tl_converge_count(sa->nmin, sa->nmax), nJ = sa->nJ;
  tl_sweep_its_row *rows = calloc(nn * nJ > 0 ? nn * nJ : 1, sizeof *rows);
  if (!rows) {
    cli_error("out of memory");
    return EXIT_BAD_INPUT;
  }
  int rc = EXIT_BAD_INPUT;
  size_t k = 0;
  for (size_t n = sa->nmin; k < nn; n *= 2, k++) {
    tl_info info;
    char what[64];
    snprintf(what, sizeof what, "n = %zu", n);
    progress_line("its-n", what, k + 1, nn);
    int st = tl_sweep_its(TL_SWEEP_ITS_COMPACT, n, (int)sa->parts, sa->J, nJ, &rows[k * nJ], NULL,
                          &info);
    if (st < 0) {
      progress_clear();
      cli_error("sweep its-n: n = %zu: %s", n, lib_msg(&info));
      goto done;
    }
  }
  progress_clear();
  if (table) {
    fprintf(table,
            "ITS error against n at fixed J: 4th-order compact derivative of sin(20 pi x), "
            "periodic, P = %ld (paper 003 Fig. 3)\nerror = ||x_seq - x_par||_inf / ||d||_inf; "
            "* outside-domain (solved, dropped > tol), ! failed\n\n%8s  %-11s",
            sa->parts, "n", "E_a");
    for (size_t j = 0; j < nJ; j++) {
      char h[32];
      snprintf(h, sizeof h, "J=%zu error", sa->J[j]);
      fprintf(table, "  %-13s  %-11s", h, "bound");
    }
    fputc('\n', table);
    for (size_t i = 0; i < nn; i++) {
      char b[24];
      fprintf(table, "%8zu  %-11s", rows[i * nJ].n, num(b, 24, "%.3e", rows[i * nJ].err_a));
      for (size_t j = 0; j < nJ; j++) {
        const tl_sweep_its_row *w = &rows[i * nJ + j];
        char e[24], bb[24], cellv[32];
        snprintf(cellv, sizeof cellv, "%s%s", num(e, 24, "%.3e", w->err), mark(w->status));
        fprintf(table, "  %-13s  %-11s", cellv, num(bb, 24, "%.3e", w->bound));
      }
      fputc('\n', table);
    }
  }
  FILE *f = out_open(sa->out, "its_n.csv");
  if (!f)
    goto done;
  its_csv_header(f);
  for (size_t r = 0; r < nn * nJ; r++)
    its_csv_row(f, "its-n", &rows[r], NAN);
  if (out_close(f, sa->out, "its_n.csv"))
    goto done;
  add_csv(res, "its_n.csv");

  for (size_t j = 0; j < nJ; j++) {
    double lo = INFINITY, hi = 0.0;
    int within = 1, solved = 0;
    for (size_t i = 0; i < nn; i++) {
      const tl_sweep_its_row *w = &rows[i * nJ + j];
      if (!tl_status_has_solution(w->status))
        continue;
      solved = 1;
      lo = fmin(lo, w->err);
      hi = fmax(hi, w->err);
      within &= w->err <= w->bound + 8 * TL_EPS;
    }
    if (!solved) {
      findings(res, "%sJ = %zu: no solution at any n (J larger than a partition?)", j ? "; " : "",
               sa->J[j]);
      continue;
    }
    findings(res, "%sJ = %zu: error between %.2e and %.2e over n = %zu .. %zu%s", j ? "; " : "",
             sa->J[j], lo, hi, sa->nmin, rows[(nn - 1) * nJ].n,
             within ? ", always within the bound" : ", NOT always within the bound");
  }
  size_t best = 0;
  for (size_t i = 1; i < nn; i++)
    if (rows[i * nJ].err_a < rows[best * nJ].err_a)
      best = i;
  findings(res,
           ". The error of the parallel solve is set by J, not by n (paper 003 Fig. 3), while "
           "the derivative's own error E_a falls from %.2e at n = %zu to %.2e at n = %zu",
           rows[0].err_a, rows[0].n, rows[best * nJ].err_a, rows[best * nJ].n);
  findings(res, "%s.",
           best + 1 < nn ? " (then rounding, which grows like eps / h, takes over)" : "");
  snprintf(res->command, sizeof res->command, "tridlab sweep its-n --out %s%s", sa->out,
           sa->quick ? " --quick" : "");

  FILE *d = open_dat(sa, "its_n");
  if (!d)
    goto done;
  for (size_t j = 0; j < nJ; j++) {
    fprintf(d, "%s# J = %zu: n err bound\n", j ? "\n\n" : "", sa->J[j]);
    for (size_t i = 0; i < nn; i++) {
      fprintf(d, "%zu", rows[i * nJ + j].n);
      dat_num(d, rows[i * nJ + j].err, 1);
      dat_num(d, rows[i * nJ + j].bound, 1);
      fputc('\n', d);
    }
  }
  fprintf(d, "\n\n# E_a: n err_a\n");
  for (size_t i = 0; i < nn; i++) {
    fprintf(d, "%zu", rows[i * nJ].n);
    dat_num(d, rows[i * nJ].err_a, 1);
    fputc('\n', d);
  }
  if (close_dat(sa, d, "its_n"))
    goto done;
  FILE *g = open_plot(sa, "its_n", 900, 700);
  if (!g)
    goto done;
  fprintf(g,
          "set title \"ITS at fixed J against n: compact derivative of sin(20 pi x), P = %ld "
          "(paper 003 Fig. 3)\" noenhanced\n",
          sa->parts);
  fprintf(g,
          "set logscale xy\nset format y '10^{%%L}'\nset xlabel 'n'\n"
          "set ylabel 'error'\nset key below maxrows 3\nset xrange [%g:%g]\n",
          (double)sa->nmin / 1.4, (double)rows[(nn - 1) * nJ].n * 1.4);
  fputs("plot ", g);
  for (size_t j = 0; j < nJ; j++) {
    const char *col = palette[j % NPALETTE];
    fprintf(g,
            "%s'its_n.dat' index %zu using 1:2 with linespoints pt 7 lw 2 lc rgb '%s' "
            "title 'J = %zu', \\\n     '' index %zu using 1:3 with lines dt 2 lw 1.5 lc rgb "
            "'%s' title 'bound, J = %zu'",
            j ? ", \\\n     " : "", j, col, sa->J[j], j, col, sa->J[j]);
  }
  fprintf(g,
          ", \\\n     'its_n.dat' index %zu using 1:2 with linespoints pt 5 lw 2 lc rgb "
          "'black' title 'E_a (derivative error)'\n",
          nJ);
  if (finish_plot(sa, g, "its_n", res,
                  "ITS error against n at fixed J (paper 003 Fig. 3), with the derivative's "
                  "own error E_a"))
    goto done;
  rc = 0;
done:
  free(rows);
  return rc;
}

/* ---------------------------------------------------------------- */
/* Bondeli's J (eq 18) against lambda and eps_c (paper 003 Fig. 2)   */

static int run_bondeli(const study_args *sa, FILE *table, study_result *res)
{
  size_t nl = sa->nlambda, ne = sa->neps;
  tl_sweep_bondeli_row *rows = calloc(nl * ne > 0 ? nl * ne : 1, sizeof *rows);
  if (!rows) {
    cli_error("out of memory");
    return EXIT_BAD_INPUT;
  }
  int rc = EXIT_BAD_INPUT;
  tl_info info;
  tl_sweep_progress prog = {on_progress, (void *)"bondeli"};
  int st = tl_sweep_bondeli(sa->lambda, nl, sa->eps_c, ne, rows, &prog, &info);
  progress_clear();
  if (st < 0) {
    cli_error("sweep bondeli: %s", lib_msg(&info));
    goto done;
  }
  if (table) {
    fprintf(table,
            "Bondeli's J (paper 003 eq 18) for tridiag(1, lambda, 1), sigma = lambda/2\n"
            "per eps_c: eq 18 (real) / measured on the exact A^-1 / chosen by its (J = 0)"
            "\n\n%8s  %6s",
            "lambda", "sigma");
    for (size_t e = 0; e < ne; e++) {
      char h[32];
      snprintf(h, sizeof h, "eps_c=%.0e", sa->eps_c[e]);
      fprintf(table, "  %-20s", h);
    }
    fputc('\n', table);
    for (size_t l = 0; l < nl; l++) {
      fprintf(table, "%8.4f  %6.3f", rows[l * ne].lambda, rows[l * ne].sigma);
      for (size_t e = 0; e < ne; e++) {
        const tl_sweep_bondeli_row *w = &rows[l * ne + e];
        char c3[48];
        snprintf(c3, sizeof c3, "%.1f / %zu / %zu", w->J_eq18, w->J_measured, w->J_its);
        fprintf(table, "  %-20s", c3);
      }
      fputc('\n', table);
    }
  }
  FILE *f = out_open(sa->out, "bondeli.csv");
  if (!f)
    goto done;
  fprintf(f, "lambda,sigma,eps_c,J_eq18,J_eq18_ceil,J_measured,J_its\n");
  for (size_t r = 0; r < nl * ne; r++) {
    const tl_sweep_bondeli_row *w = &rows[r];
    fprintf(f, "%.9g,%.9g,%.3e,%.6f,%.0f,%zu,%zu\n", w->lambda, w->sigma, w->eps_c, w->J_eq18,
            ceil(w->J_eq18), w->J_measured, w->J_its);
  }
  if (out_close(f, sa->out, "bondeli.csv"))
    goto done;
  add_csv(res, "bondeli.csv");

  size_t agree = 0;
  double extra = 0.0;
  for (size_t r = 0; r < nl * ne; r++) {
    agree += (double)rows[r].J_measured == ceil(rows[r].J_eq18);
    extra = fmax(extra, (double)rows[r].J_its - (double)rows[r].J_measured);
  }
  findings(res,
           "The J measured on the exact inverse equals ceil(eq 18) in %zu of %zu cases: for a "
           "Toeplitz row eq 18 is exact (z_j = z_I sigma^-|j-I|). The its solver's own choice "
           "(J = 0) is larger by at most %.0f rows, because it bounds the whole neglected tail, "
           "not only its largest term. ",
           agree, nl * ne, extra);
  /* The paper: "relatively small J for sigma > 1.2". */
  for (size_t e = 0; e < ne; e++) {
    double s12 = 1.2, l12 = 2.0 * s12;
    findings(res, "%s eps_c = %.0e: J = %.1f at sigma = 1.2", e ? ";" : "At", sa->eps_c[e],
             tl_its_bondeli_J(sa->eps_c[e], l12));
    if (nl > 0)
      findings(res, ", %.1f at sigma = %.4g", rows[e].J_eq18, rows[e].sigma);
  }
  findings(res, ": J grows without bound as sigma -> 1 (paper 003 Fig. 2).");
  snprintf(res->command, sizeof res->command, "tridlab sweep bondeli --out %s%s", sa->out,
           sa->quick ? " --quick" : "");

  FILE *d = open_dat(sa, "bondeli");
  if (!d)
    goto done;
  for (size_t e = 0; e < ne; e++) {
    fprintf(d, "%s# eps_c = %.3e: sigma J_eq18 J_measured J_its\n", e ? "\n\n" : "", sa->eps_c[e]);
    for (size_t l = 0; l < nl; l++) {
      const tl_sweep_bondeli_row *w = &rows[l * ne + e];
      fprintf(d, "%.9g %.6f %zu %zu\n", w->sigma, w->J_eq18, w->J_measured, w->J_its);
    }
  }
  if (close_dat(sa, d, "bondeli"))
    goto done;
  FILE *g = open_plot(sa, "bondeli", 900, 650);
  if (!g)
    goto done;
  fprintf(g, "set title \"J against the dominance sigma = lambda/2 of tridiag(1, lambda, 1) "
             "(paper 003 eq 18, Fig. 2)\" noenhanced\n"
             "set logscale y\nset xrange [1:*]\nset xlabel 'sigma = lambda / 2'\nset ylabel 'J'\n"
             "set key top right\n");
  fputs("plot ", g);
  for (size_t e = 0; e < ne; e++) {
    const char *col = palette[e % NPALETTE];
    fprintf(g,
            "%s'bondeli.dat' index %zu using 1:2 with lines lw 2 lc rgb '%s' title "
            "'eq 18, eps_c = %.0e', \\\n     '' index %zu using 1:3 with points pt 6 ps 1.2 "
            "lc rgb '%s' notitle, \\\n     '' index %zu using 1:4 with points pt 2 ps 1 lc "
            "rgb '%s' notitle",
            e ? ", \\\n     " : "", e, col, sa->eps_c[e], e, col, e, col);
  }
  fprintf(g, ", \\\n     NaN with points pt 6 lc rgb 'black' title 'measured on A^{-1}', \\\n"
             "     NaN with points pt 2 lc rgb 'black' title 'its solver, J = 0'\n");
  if (finish_plot(sa, g, "bondeli", res,
                  "Bondeli's J (eq 18) against sigma for several eps_c (paper 003 Fig. 2), with "
                  "the J measured on the exact inverse and the one the its solver picks"))
    goto done;
  rc = 0;
done:
  free(rows);
  return rc;
}

/* ---------------------------------------------------------------- */
/* Dominance and rows per partition: PDD, RPDD, DistD2               */

/* Up to 4 indices spread over 0 .. count-1. */
static size_t spread(size_t count, size_t *idx)
{
  if (count <= 4) {
    for (size_t k = 0; k < count; k++)
      idx[k] = k;
    return count;
  }
  for (size_t k = 0; k < 4; k++)
    idx[k] = k * (count - 1) / 3;
  return 4;
}

typedef struct dom_view {
  const tl_sweep_dominance_row *rows;
  size_t count, nl, nm, ns;
  int series[TL_SWEEP_NSERIES];
  size_t rpdd_J;
} dom_view;

static const tl_sweep_dominance_row *dom_at(const dom_view *v, size_t l, size_t m, size_t s)
{
  return &v->rows[(l * v->nm + m) * v->ns + s];
}

static int dom_plots(const study_args *sa, const dom_view *v, study_result *res)
{
  size_t li[4], mi[4];
  size_t nli = spread(v->nl, li), nmi = spread(v->nm, mi);
  char label[32];
  /* Error against m: one panel per series, a few lambdas. */
  FILE *d = open_dat(sa, "dominance_m");
  if (!d)
    return -1;
  for (size_t s = 0; s < v->ns; s++)
    for (size_t k = 0; k < nli; k++) {
      fprintf(d, "%s# %s, lambda = %g: m err sigma^-m\n", s || k ? "\n\n" : "",
              dom_at(v, li[k], 0, s)->algo, dom_at(v, li[k], 0, s)->lambda);
      for (size_t m = 0; m < v->nm; m++) {
        const tl_sweep_dominance_row *w = dom_at(v, li[k], m, s);
        fprintf(d, "%zu", w->m);
        dat_num(d, w->err, 1);
        dat_num(d, w->predicted, 1);
        fputc('\n', d);
      }
    }
  if (close_dat(sa, d, "dominance_m"))
    return -1;
  FILE *g = open_plot(sa, "dominance_m", 1200, 900);
  if (!g)
    return -1;
  fprintf(g,
          "set multiplot layout 2,2 title \"tridiag(1, lambda, 1), P = %d: error against rows "
          "per partition m (dashed: predicted sigma^{-m})\"\n"
          "set logscale xy\nset format y '10^{%%L}'\nset xlabel 'm (rows per partition)'\n"
          "set ylabel '||x - x_{exact}||_{/Symbol \\245} / ||x_{exact}||_{/Symbol \\245}'\n"
          "set yrange [1e-17:10]\nset key bottom left font ',9'\n",
          v->rows[0].parts);
  for (size_t s = 0; s < v->ns; s++) {
    fprintf(g, "set title '%s'\nplot ",
            tl_sweep_series_label((tl_sweep_series)v->series[s], v->rpdd_J, label, sizeof label));
    for (size_t k = 0; k < nli; k++) {
      size_t idx = s * nli + k;
      const char *col = palette[k % NPALETTE];
      fprintf(g,
              "%s'dominance_m.dat' index %zu using 1:2 with linespoints pt 7 lw 2 lc rgb '%s' "
              "title 'lambda = %g', '' index %zu using 1:3 with lines dt 2 lc rgb '%s' notitle",
              k ? ", \\\n     " : "", idx, col, dom_at(v, li[k], 0, s)->lambda, idx, col);
    }
    fputc('\n', g);
  }
  fputs("unset multiplot\n", g);
  if (finish_plot(sa, g, "dominance_m", res,
                  "PDD, RPDD, DistD2: error against the rows per partition m, with sigma^-m "
                  "dashed"))
    return -1;

  /* Error against lambda: one panel per series, a few m. */
  d = open_dat(sa, "dominance_lambda");
  if (!d)
    return -1;
  for (size_t s = 0; s < v->ns; s++)
    for (size_t k = 0; k < nmi; k++) {
      fprintf(d, "%s# %s, m = %zu: lambda err sigma^-m\n", s || k ? "\n\n" : "",
              dom_at(v, 0, mi[k], s)->algo, dom_at(v, 0, mi[k], s)->m);
      for (size_t l = 0; l < v->nl; l++) {
        const tl_sweep_dominance_row *w = dom_at(v, l, mi[k], s);
        fprintf(d, "%.9g", w->lambda);
        dat_num(d, w->err, 1);
        dat_num(d, w->predicted, 1);
        fputc('\n', d);
      }
    }
  if (close_dat(sa, d, "dominance_lambda"))
    return -1;
  g = open_plot(sa, "dominance_lambda", 1200, 900);
  if (!g)
    return -1;
  fprintf(g,
          "set multiplot layout 2,2 title \"tridiag(1, lambda, 1), P = %d: error against the "
          "dominance lambda (dashed: predicted sigma^{-m})\"\n"
          "set logscale y\nset format y '10^{%%L}'\nset xlabel 'lambda'\n"
          "set ylabel '||x - x_{exact}||_{/Symbol \\245} / ||x_{exact}||_{/Symbol \\245}'\n"
          "set yrange [1e-17:10]\nset key top right font ',9'\n",
          v->rows[0].parts);
  for (size_t s = 0; s < v->ns; s++) {
    fprintf(g, "set title '%s'\nplot ",
            tl_sweep_series_label((tl_sweep_series)v->series[s], v->rpdd_J, label, sizeof label));
    int first = 1;
    for (size_t k = 0; k < nmi; k++) {
      size_t idx = s * nmi + k;
      const char *col = palette[k % NPALETTE];
      /* A fixed J larger than m leaves no solution to plot. */
      int any = 0;
      for (size_t l = 0; l < v->nl; l++)
        any |= dom_at(v, l, mi[k], s)->err > 0.0;
      if (!any)
        continue;
      fprintf(g,
              "%s'dominance_lambda.dat' index %zu using 1:2 with linespoints pt 7 lw 2 lc rgb "
              "'%s' title 'm = %zu', '' index %zu using 1:3 with lines dt 2 lc rgb '%s' "
              "notitle",
              first ? "" : ", \\\n     ", idx, col, dom_at(v, 0, mi[k], s)->m, idx, col);
      first = 0;
    }
    if (first)
      fputs("NaN notitle", g);
    fputc('\n', g);
  }
  fputs("unset multiplot\n", g);
  if (finish_plot(sa, g, "dominance_lambda", res,
                  "PDD, RPDD, DistD2: error against the dominance lambda at a few m, with "
                  "sigma^-m dashed"))
    return -1;

  /* Every point: error against the prediction. */
  d = open_dat(sa, "dominance_collapse");
  if (!d)
    return -1;
  for (size_t s = 0; s < v->ns; s++) {
    fprintf(d, "%s# %s: sigma^-m err\n", s ? "\n\n" : "", dom_at(v, 0, 0, s)->algo);
    for (size_t l = 0; l < v->nl; l++)
      for (size_t m = 0; m < v->nm; m++) {
        const tl_sweep_dominance_row *w = dom_at(v, l, m, s);
        dat_num(d, w->predicted, 1);
        dat_num(d, w->err, 1);
        fputc('\n', d);
      }
  }
  if (close_dat(sa, d, "dominance_collapse"))
    return -1;
  g = open_plot(sa, "dominance_collapse", 900, 700);
  if (!g)
    return -1;
  fprintf(g, "set title \"every (lambda, m): error against the prediction sigma^{-m} (sigma^{-J} "
             "for RPDD, J fixed, m > J)\"\n"
             "set logscale xy\nset format x '10^{%%L}'\nset format y '10^{%%L}'\n"
             "set xrange [1e-20:1]\nset yrange [1e-17:10]\n"
             "set xlabel 'predicted: sigma^{-m}'\nset ylabel 'error'\nset key top left\n");
  fputs("plot x with lines dt 2 lw 2 lc rgb 'black' title 'error = prediction'", g);
  for (size_t s = 0; s < v->ns; s++)
    fprintf(g,
            ", \\\n     'dominance_collapse.dat' index %zu using 1:2 with points pt %d ps 1.1 "
            "lc rgb '%s' title '%s'",
            s, 6 + 2 * (int)s, palette[s % NPALETTE],
            tl_sweep_series_label((tl_sweep_series)v->series[s], v->rpdd_J, label, sizeof label));
  fputc('\n', g);
  if (finish_plot(sa, g, "dominance_collapse", res,
                  "Every (lambda, m): the measured error against sigma^-m"))
    return -1;
  return 0;
}

static void dom_findings(const dom_view *v, study_result *res)
{
  char label[32];
  for (size_t s = 0; s < v->ns; s++) {
    double lo = INFINITY, hi = 0.0, worst_ok = 0.0;
    size_t solved = 0, ok = 0, within = 0;
    for (size_t l = 0; l < v->nl; l++)
      for (size_t m = 0; m < v->nm; m++) {
        const tl_sweep_dominance_row *w = dom_at(v, l, m, s);
        if (!tl_status_has_solution(w->status))
          continue;
        solved++;
        /* The page's bound is for exact arithmetic: add a few eps times
         * cond(A) <= (lambda + 2) / (lambda - 2). */
        within += w->err <= w->bound + 64 * TL_EPS * (w->lambda + 2.0) / (w->lambda - 2.0);
        if (w->status == TL_OK) {
          ok++;
          worst_ok = fmax(worst_ok, w->err);
        }
        /* The ratio to the prediction where rounding does not hide it. */
        if (w->err > 1e3 * TL_EPS && w->predicted > 1e3 * TL_EPS) {
          lo = fmin(lo, w->err / w->predicted);
          hi = fmax(hi, w->err / w->predicted);
        }
      }
    tl_sweep_series_label((tl_sweep_series)v->series[s], v->rpdd_J, label, sizeof label);
    findings(res,
             "%s: error within the reported bound (info.bound, plus 64 eps cond) in %zu of %zu "
             "solves; error / prediction between %.2g and %.2g where both exceed 1e3 eps; %zu "
             "returned ok",
             label, within, solved, lo, hi, ok);
    if (ok)
      findings(res, ", the largest error among them %.1e", worst_ok);
    findings(res, ". ");
  }
  findings(res, "Every solve writes its answer; the status is outside-domain exactly when the "
                "dropped coupling (info.dropped, in the CSV) exceeds the algorithm's default "
                "tolerance (2 eps), so ok means an error at round-off level.");
  if (v->rpdd_J)
    findings(res, " RPDD with J = %zu stops improving once m > J, at about sigma^-%zu.", v->rpdd_J,
             v->rpdd_J);
}

static int run_dominance(const study_args *sa, FILE *table, study_result *res)
{
  tl_sweep_dominance_config cfg = {.lambdas = sa->lambda,
                                   .nlambda = sa->nlambda,
                                   .ms = sa->m,
                                   .nm = sa->nm,
                                   .parts = (int)sa->parts,
                                   .rpdd_J = (size_t)sa->rpdd_J,
                                   .seed = sa->seed};
  size_t cap = tl_sweep_dominance_count(&cfg), count = 0;
  tl_sweep_dominance_row *rows = calloc(cap ? cap : 1, sizeof *rows);
  if (!rows) {
    cli_error("out of memory");
    return EXIT_BAD_INPUT;
  }
  int rc = EXIT_BAD_INPUT;
  tl_info info;
  tl_sweep_progress prog = {on_progress, (void *)"dominance"};
  int st = tl_sweep_dominance(&cfg, rows, cap, &count, &prog, &info);
  progress_clear();
  if (st < 0) {
    cli_error("sweep dominance: %s", lib_msg(&info));
    goto done;
  }
  dom_view v = {
      .rows = rows, .count = count, .nl = sa->nlambda, .nm = sa->nm, .rpdd_J = (size_t)sa->rpdd_J};
  for (int s = 0; s < TL_SWEEP_NSERIES; s++)
    if (s != TL_SWEEP_RPDD_FIXED || sa->rpdd_J > 0)
      v.series[v.ns++] = s;
  char label[32];
  if (table) {
    fprintf(table,
            "tridiag(1, lambda, 1), P = %ld partitions of m rows, x_exact seeded (%llu)\n"
            "error = ||x - x_exact||_inf / ||x_exact||_inf; predicted sigma^-m, sigma = "
            "(lambda + sqrt(lambda^2 - 4)) / 2\n* outside-domain (solved, dropped > tol), ! "
            "failed (no solution)\n\n%7s  %5s  %-10s",
            sa->parts, (unsigned long long)sa->seed, "lambda", "m", "sigma^-m");
    for (size_t s = 0; s < v.ns; s++)
      fprintf(table, "  %-11s",
              tl_sweep_series_label((tl_sweep_series)v.series[s], v.rpdd_J, label, sizeof label));
    fputc('\n', table);
    for (size_t l = 0; l < v.nl; l++)
      for (size_t m = 0; m < v.nm; m++) {
        const tl_sweep_dominance_row *w0 = dom_at(&v, l, m, 0);
        fprintf(table, "%7.3f  %5zu  %-10.2e", w0->lambda, w0->m, w0->predicted);
        for (size_t s = 0; s < v.ns; s++) {
          const tl_sweep_dominance_row *w = dom_at(&v, l, m, s);
          char e[24], c2[32];
          snprintf(c2, sizeof c2, "%s%s", num(e, 24, "%.2e", w->err), mark(w->status));
          fprintf(table, "  %-11s", c2);
        }
        fputc('\n', table);
      }
  }
  FILE *f = out_open(sa->out, "dominance.csv");
  if (!f)
    goto done;
  fprintf(f, "algo,series,lambda,sigma,parts,m,n,err,predicted,dropped,bound,tol,status,note\n");
  for (size_t r = 0; r < count; r++) {
    const tl_sweep_dominance_row *w = &rows[r];
    fprintf(f, "%s,%s,%.9g,%.9g,%d,%zu,%zu,", w->algo,
            tl_sweep_series_label(w->series, v.rpdd_J, label, sizeof label), w->lambda, w->sigma,
            w->parts, w->m, w->n);
    double vals[5] = {w->err, w->predicted, w->dropped, w->bound, w->tol};
    for (int k = 0; k < 5; k++) {
      csv_num(f, vals[k]);
      fputc(',', f);
    }
    fprintf(f, "%s,", tl_status_name(w->status));
    csv_str(f, w->note);
    fputc('\n', f);
  }
  if (out_close(f, sa->out, "dominance.csv"))
    goto done;
  add_csv(res, "dominance.csv");
  dom_findings(&v, res);
  snprintf(res->command, sizeof res->command, "tridlab sweep dominance --out %s%s", sa->out,
           sa->quick ? " --quick" : "");
  if (dom_plots(sa, &v, res))
    goto done;
  rc = 0;
done:
  free(rows);
  return rc;
}

/* ---------------------------------------------------------------- */
/* Tridsolver's Jacobi reduced solve against the sweeps K            */

static int run_jacobi(const study_args *sa, FILE *table, study_result *res)
{
  tl_sweep_jacobi_config cfg = {.lambdas = sa->lambda,
                                .nlambda = sa->nlambda,
                                .ms = sa->m,
                                .nm = sa->nm,
                                .parts = (int)sa->parts,
                                .kmax = sa->kmax,
                                .seed = sa->seed};
  size_t cap = tl_sweep_jacobi_count(&cfg), count = 0;
  tl_sweep_jacobi_row *rows = calloc(cap ? cap : 1, sizeof *rows);
  if (!rows) {
    cli_error("out of memory");
    return EXIT_BAD_INPUT;
  }
  int rc = EXIT_BAD_INPUT;
  tl_info info;
  tl_sweep_progress prog = {on_progress, (void *)"jacobi-reduced"};
  int st = tl_sweep_jacobi(&cfg, rows, cap, &count, &prog, &info);
  progress_clear();
  if (st < 0) {
    cli_error("sweep jacobi-reduced: %s", lib_msg(&info));
    goto done;
  }
  size_t ns = sa->nlambda * sa->nm, K = (size_t)sa->kmax;
  if (table) {
    fprintf(table,
            "tridsolver --param reduced=jacobi iters=K on tridiag(1, lambda, 1), P = %ld\n"
            "error = ||x - x_exact||_inf / ||x_exact||_inf; q = max_p (|A_p| + |C_p|) / |B_p| "
            "of the reduced rows, predicted q^(K+1)\n* outside-domain (dropped > tol), ! "
            "failed\n\n%4s",
            sa->parts, "K");
    for (size_t s = 0; s < ns; s++) {
      char h[48];
      snprintf(h, sizeof h, "l=%g m=%zu q=%.2g", rows[s * K].lambda, rows[s * K].m, rows[s * K].q);
      fprintf(table, "  %-19s", h);
    }
    fputc('\n', table);
    for (size_t k = 0; k < K; k++) {
      fprintf(table, "%4zu", k + 1);
      for (size_t s = 0; s < ns; s++) {
        const tl_sweep_jacobi_row *w = &rows[s * K + k];
        char e[24], c2[32];
        snprintf(c2, sizeof c2, "%s%s", num(e, 24, "%.2e", w->err), mark(w->status));
        fprintf(table, "  %-19s", c2);
      }
      fputc('\n', table);
    }
  }
  FILE *f = out_open(sa->out, "jacobi_reduced.csv");
  if (!f)
    goto done;
  fprintf(f, "lambda,parts,m,n,iters,err,q,predicted,dropped,bound,status,note\n");
  for (size_t r = 0; r < count; r++) {
    const tl_sweep_jacobi_row *w = &rows[r];
    fprintf(f, "%.9g,%d,%zu,%zu,%ld,", w->lambda, w->parts, w->m, w->n, w->iters);
    double vals[5] = {w->err, w->q, w->predicted, w->dropped, w->bound};
    for (int k = 0; k < 5; k++) {
      csv_num(f, vals[k]);
      fputc(',', f);
    }
    fprintf(f, "%s,", tl_status_name(w->status));
    csv_str(f, w->note);
    fputc('\n', f);
  }
  if (out_close(f, sa->out, "jacobi_reduced.csv"))
    goto done;
  add_csv(res, "jacobi_reduced.csv");

  for (size_t s = 0; s < ns; s++) {
    const tl_sweep_jacobi_row *w0 = &rows[s * K];
    size_t first_ok = 0, within = 0, below = 0, solved = 0;
    /* Rounding on top of the bound: a few eps times cond(A), and
     * cond_inf(tridiag(1, lambda, 1)) <= (lambda + 2) / (lambda - 2). */
    double round = 64 * TL_EPS * (w0->lambda + 2.0) / (w0->lambda - 2.0);
    for (size_t k = 0; k < K; k++) {
      const tl_sweep_jacobi_row *w = &rows[s * K + k];
      if (!first_ok && w->status == TL_OK)
        first_ok = (size_t)w->iters;
      if (tl_status_has_solution(w->status)) {
        solved++;
        within += w->err <= w->bound + round;
        below += w->err <= w->predicted + round;
      }
    }
    findings(res, "%slambda = %g, m = %zu: q = %.3g, ", s ? "; " : "", w0->lambda, w0->m, w0->q);
    if (first_ok)
      findings(res, "status ok (dropped <= tol) from K = %zu", first_ok);
    else
      findings(res, "not ok within K = %zu", K);
    findings(res,
             ", error within the reported bound (plus 64 eps cond) at %zu of %zu K and below "
             "q^(K+1) at %zu",
             within, solved, below);
  }
  findings(res, ". More rows per partition make the reduced system nearly diagonal (q falls "
                "like sigma^-m), so a few sweeps suffice; weak dominance and short partitions "
                "need many.");
  snprintf(res->command, sizeof res->command, "tridlab sweep jacobi-reduced --out %s%s", sa->out,
           sa->quick ? " --quick" : "");

  FILE *d = open_dat(sa, "jacobi_reduced");
  if (!d)
    goto done;
  for (size_t s = 0; s < ns; s++) {
    fprintf(d, "%s# lambda = %g, m = %zu: K err q^(K+1) bound\n", s ? "\n\n" : "",
            rows[s * K].lambda, rows[s * K].m);
    for (size_t k = 0; k < K; k++) {
      const tl_sweep_jacobi_row *w = &rows[s * K + k];
      fprintf(d, "%ld", w->iters);
      dat_num(d, w->err, 1);
      dat_num(d, w->predicted, 1);
      dat_num(d, w->bound, 1);
      fputc('\n', d);
    }
  }
  if (close_dat(sa, d, "jacobi_reduced"))
    goto done;
  FILE *g = open_plot(sa, "jacobi_reduced", 900, 700);
  if (!g)
    goto done;
  fprintf(g,
          "set title \"Tridsolver, Jacobi reduced solve, P = %ld: error against the sweeps K "
          "(dashed: q^{K+1})\"\n"
          "set logscale y\nset format y '10^{%%L}'\nset xlabel 'K (Jacobi sweeps)'\n"
          "set ylabel '||x - x_{exact}||_{/Symbol \\245} / ||x_{exact}||_{/Symbol \\245}'\n"
          "set yrange [1e-17:10]\nset key below maxrows 3\n",
          sa->parts);
  fputs("plot ", g);
  for (size_t s = 0; s < ns; s++) {
    const char *col = palette[s % NPALETTE];
    fprintf(g,
            "%s'jacobi_reduced.dat' index %zu using 1:2 with linespoints pt 7 lw 2 lc rgb "
            "'%s' title 'lambda = %g, m = %zu', '' index %zu using 1:3 with lines dt 2 lc rgb "
            "'%s' notitle",
            s ? ", \\\n     " : "", s, col, rows[s * K].lambda, rows[s * K].m, s, col);
  }
  fputc('\n', g);
  if (finish_plot(sa, g, "jacobi_reduced", res,
                  "Tridsolver with the Jacobi reduced solve: error against the number of sweeps, "
                  "with q^(K+1) dashed"))
    goto done;
  rc = 0;
done:
  free(rows);
  return rc;
}

/* ---------------------------------------------------------------- */
/* The studies                                                       */

typedef struct study {
  const char *name;
  const char *summary;
  unsigned opts; /* STUDY_OPT_* it takes */
  int (*run)(const study_args *sa, FILE *table, study_result *res);
} study;

static const study studies[] = {
    {"its-compact",
     "ITS error against J, 4th-order compact derivative of sin(20 pi x), n = 252, P = 3 "
     "(paper 003 Table 2)",
     STUDY_OPT_N | STUDY_OPT_PARTS | STUDY_OPT_J, run_its_compact},
    {"its-nonconst",
     "ITS error against J, A = [sin i, 2(|sin i|+|cos i|), cos i], n = 1000, P = 4 "
     "(paper 003 Table 3)",
     STUDY_OPT_N | STUDY_OPT_PARTS | STUDY_OPT_J, run_its_nonconst},
    {"its-n", "ITS error against n at fixed J (paper 003 Fig. 3)",
     STUDY_OPT_PARTS | STUDY_OPT_J | STUDY_OPT_NRANGE, run_its_n},
    {"bondeli", "Bondeli's J (eq 18) against lambda and eps_c (paper 003 Fig. 2)",
     STUDY_OPT_LAMBDA | STUDY_OPT_EPS, run_bondeli},
    {"dominance",
     "PDD, RPDD, DistD2 error against lambda of tridiag(1, lambda, 1) and rows per partition m",
     STUDY_OPT_PARTS | STUDY_OPT_M | STUDY_OPT_LAMBDA | STUDY_OPT_RPDD_J | STUDY_OPT_SEED,
     run_dominance},
    {"jacobi-reduced", "Tridsolver's Jacobi reduced solve: error against the sweeps K",
     STUDY_OPT_PARTS | STUDY_OPT_M | STUDY_OPT_LAMBDA | STUDY_OPT_KMAX | STUDY_OPT_SEED,
     run_jacobi},
};
#define NSTUDIES (sizeof studies / sizeof studies[0])

size_t study_count(void)
{
  return NSTUDIES;
}

const char *study_name(size_t k)
{
  return k < NSTUDIES ? studies[k].name : NULL;
}

const char *study_summary(size_t k)
{
  return k < NSTUDIES ? studies[k].summary : NULL;
}

static const study *find_study(const char *name)
{
  for (size_t k = 0; k < NSTUDIES; k++)
    if (!strcmp(studies[k].name, name))
      return &studies[k];
  return NULL;
}

void study_args_init(study_args *sa, int quick)
{
  memset(sa, 0, sizeof *sa);
  sa->out = "sweep";
  sa->quick = quick;
  sa->plot = 1;
  sa->seed = 2026;
  sa->rpdd_J = 8;
  sa->kmax = quick ? 20 : 40;
  sa->nmin = 96;
  sa->nmax = quick ? 6144 : 98304;
  static const double eps[] = {1e-4, 1e-8, 1e-12, 1e-15};
  memcpy(sa->eps_c, eps, sizeof eps);
  sa->neps = sizeof eps / sizeof eps[0];
  /* n, parts, J, m and lambda depend on the study: study_run fills what
   * the command line did not give. */
}

/* The per-study defaults of what was not given on the command line. */
static void study_defaults(const study *s, study_args *sa)
{
  int quick = sa->quick;
  if (!(sa->given & STUDY_OPT_N))
    sa->n = !strcmp(s->name, "its-nonconst") ? 1000 : 252;
  if (!(sa->given & STUDY_OPT_PARTS)) {
    if (!strcmp(s->name, "its-nonconst") || !strcmp(s->name, "dominance"))
      sa->parts = 4;
    else if (!strcmp(s->name, "jacobi-reduced"))
      sa->parts = 16;
    else
      sa->parts = 3;
  }
  if (!(sa->given & STUDY_OPT_J)) {
    if (!strcmp(s->name, "its-n")) {
      static const size_t j3[] = {7, 15, 27};
      memcpy(sa->J, j3, sizeof j3);
      sa->nJ = 3;
    } else {
      sa->nJ = 30;
      for (size_t k = 0; k < sa->nJ; k++)
        sa->J[k] = k + 1;
    }
  }
  if (!(sa->given & STUDY_OPT_LAMBDA)) {
    if (!strcmp(s->name, "bondeli")) {
      /* lambda - 2 spread geometrically from 0.01 to 8. */
      sa->nlambda = quick ? 12 : 40;
      for (size_t k = 0; k < sa->nlambda; k++)
        sa->lambda[k] = 2.0 + 0.01 * pow(800.0, (double)k / (double)(sa->nlambda - 1));
    } else if (!strcmp(s->name, "dominance")) {
      static const double full[] = {2.05, 2.1, 2.2, 2.35, 2.5, 2.75, 3, 3.5, 4, 5, 6, 8};
      static const double few[] = {2.05, 2.5, 4, 8};
      const double *src = quick ? few : full;
      sa->nlambda = quick ? sizeof few / sizeof few[0] : sizeof full / sizeof full[0];
      memcpy(sa->lambda, src, sa->nlambda * sizeof *src);
    } else {
      static const double jl[] = {2.05, 2.5, 4};
      sa->nlambda = 3;
      memcpy(sa->lambda, jl, sizeof jl);
    }
  }
  if (!(sa->given & STUDY_OPT_M)) {
    if (!strcmp(s->name, "jacobi-reduced")) {
      sa->m[0] = 4;
      sa->m[1] = 16;
      sa->nm = 2;
    } else {
      sa->nm = quick ? 6 : 8; /* 2, 4, ..., 64 or 256 */
      for (size_t k = 0; k < sa->nm; k++)
        sa->m[k] = (size_t)2 << k;
    }
  }
}

static void option_names(unsigned opts, char *buf, size_t size)
{
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {{STUDY_OPT_N, "--n"},
               {STUDY_OPT_PARTS, "--parts"},
               {STUDY_OPT_J, "--J"},
               {STUDY_OPT_M, "--m"},
               {STUDY_OPT_LAMBDA, "--lambda"},
               {STUDY_OPT_EPS, "--eps-c"},
               {STUDY_OPT_NRANGE, "--nmin/--nmax"},
               {STUDY_OPT_KMAX, "--kmax"},
               {STUDY_OPT_RPDD_J, "--rpdd-J"},
               {STUDY_OPT_SEED, "--seed"}};
  buf[0] = '\0';
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (opts & names[k].bit) {
      size_t len = strlen(buf);
      snprintf(buf + len, size - len, "%s%s", len ? " " : "", names[k].name);
    }
}

int study_run(const char *name, const study_args *given, FILE *table, study_result *res)
{
  memset(res, 0, sizeof *res);
  const study *s = find_study(name);
  if (!s) {
    cli_error("sweep: no study named '%s' (see 'tridlab sweep --help')", name);
    return EXIT_BAD_INPUT;
  }
  if (given->given & ~s->opts) {
    char takes[256];
    option_names(s->opts, takes, sizeof takes);
    cli_error("sweep %s: an option given does not apply to this study (it takes: %s)", name,
              takes[0] ? takes : "no study options");
    return EXIT_BAD_INPUT;
  }
  study_args sa = *given;
  study_defaults(s, &sa);
  if (out_mkdir(sa.out))
    return EXIT_BAD_INPUT;
  int rc = s->run(&sa, table, res);
  if (table)
    fputc('\n', table);
  return rc;
}

/* ---------------------------------------------------------------- */
/* The command                                                       */

static void sweep_usage(FILE *out)
{
  fprintf(out, "usage: tridlab sweep STUDY|all [options]\n"
               "       tridlab sweep --study STUDY [options]\n"
               "\n"
               "Truncation-error studies of the approximate partition algorithms. Each study\n"
               "prints a table, writes STUDY.csv, and a gnuplot script (.gp) with its data (.dat)\n"
               "and the plot (.png, made when gnuplot is installed; else said on stderr) into the\n"
               "output directory, and ends with a short summary of what it found.\n"
               "\n"
               "studies:\n");
  for (size_t k = 0; k < NSTUDIES; k++)
    fprintf(out, "  %-15s %s\n", studies[k].name, studies[k].summary);
  fprintf(out,
          "  %-15s every study above, with their defaults\n"
          "\n"
          "options:\n"
          "  --out DIR          output directory (default sweep/), created if missing\n"
          "  --quick            smaller sizes (its-n to n = 6144, fewer lambdas and m)\n"
          "  --no-plot          write the .dat and .gp files but do not run gnuplot\n"
          "options of one study (an option a study does not take is an error):\n"
          "  --n N              its-compact (252), its-nonconst (1000): system size\n"
          "  --parts P          partitions: its-compact 3, its-nonconst 4, its-n 3,\n"
          "                     dominance 4 (at least 3), jacobi-reduced 16\n"
          "  --J J1,J2,...      its-compact, its-nonconst: J = 1..30; its-n: 7,15,27\n"
          "  --nmin N --nmax N  its-n: n = nmin, 2 nmin, ... <= nmax (96 .. 98304)\n"
          "  --lambda L1,...    tridiag(1, lambda, 1), each > 2: bondeli (40 values, 2.01 ..\n"
          "                     10), dominance (2.05 .. 8, 12 values), jacobi-reduced\n"
          "                     (2.05,2.5,4)\n"
          "  --eps-c E1,...     bondeli: cut-off thresholds (1e-4,1e-8,1e-12,1e-15)\n"
          "  --m M1,...         rows per partition: dominance (2,4,...,256), jacobi-reduced\n"
          "                     (4,16)\n"
          "  --rpdd-J J         dominance: J of the fixed-J RPDD series (8; 0: no such series)\n"
          "  --kmax K           jacobi-reduced: K = 1 .. K sweeps (40)\n"
          "  --seed S           dominance, jacobi-reduced: seed of x_exact (2026)\n"
          "\n"
          "Statuses in the tables: * outside-domain (solved; the algorithm dropped more than\n"
          "its tolerance or the matrix is outside its class), ! failed (no solution; the\n"
          "CSV has the message).\n"
          "\n"
          "exit status:\n"
          "  0  the studies ran (rows where a solver failed are marked, not fatal)\n"
          "  1  bad usage (the message names the option), or a file could not be written\n"
          "\n"
          "examples:\n"
          "  tridlab sweep its-compact --out sweep\n"
          "  tridlab sweep dominance --lambda 2.05,3,8 --m 8,16,32,64 --parts 8\n"
          "  tridlab sweep all --quick --out sweep-quick\n",
          "all");
}

static int parse_reals(const char *s, const char *what, double *out, size_t cap, size_t *count)
{
  size_t k = 0;
  const char *p = s;
  while (*p) {
    char *end = NULL;
    double v = strtod(p, &end);
    if (end == p || !isfinite(v) || !(v > 0.0) || (*end != ',' && *end != '\0')) {
      cli_error("%s must be a comma-separated list of positive numbers, got '%s'", what, s);
      return -1;
    }
    if (k == cap) {
      cli_error("%s: at most %zu values", what, cap);
      return -1;
    }
    out[k++] = v;
    p = *end == ',' ? end + 1 : end;
  }
  if (!k) {
    cli_error("%s is empty", what);
    return -1;
  }
  *count = k;
  return 0;
}

/* 0 to go on; else the exit status + 1 (help: 0 + 1). */
static int parse_sweep_args(int argc, char **argv, study_args *sa, const char **name)
{
  long lv;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      sweep_usage(stdout);
      return 0 + 1;
    } else if (arg[0] != '-') {
      if (*name) {
        cli_error("sweep: one study at a time ('%s' and '%s')", *name, arg);
        return EXIT_BAD_INPUT + 1;
      }
      *name = arg;
    } else if (cli_is(arg, "--study")) {
      if (!(v = cli_value(argc, argv, &i, "--study")))
        return EXIT_BAD_INPUT + 1;
      if (*name) {
        cli_error("sweep: one study at a time ('%s' and '%s')", *name, v);
        return EXIT_BAD_INPUT + 1;
      }
      *name = v;
    } else if (!strcmp(arg, "--quick")) {
      sa->quick = 1;
    } else if (!strcmp(arg, "--no-plot")) {
      sa->plot = 0;
    } else if (cli_is(arg, "--out")) {
      if (!(sa->out = cli_value(argc, argv, &i, "--out")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--n")) {
      if (!(v = cli_value(argc, argv, &i, "--n")) || cli_parse_int(v, "--n", 3, 100000000L, &lv))
        return EXIT_BAD_INPUT + 1;
      sa->n = lv;
      sa->given |= STUDY_OPT_N;
    } else if (cli_is(arg, "--parts")) {
      if (!(v = cli_value(argc, argv, &i, "--parts")) ||
          cli_parse_int(v, "--parts", 1, TL_MAX_PARTS, &lv))
        return EXIT_BAD_INPUT + 1;
      sa->parts = lv;
      sa->given |= STUDY_OPT_PARTS;
    } else if (cli_is(arg, "--J")) {
      if (!(v = cli_value(argc, argv, &i, "--J")) ||
          cli_parse_sizes(v, "--J", sa->J, STUDY_MAX_LIST, &sa->nJ))
        return EXIT_BAD_INPUT + 1;
      sa->given |= STUDY_OPT_J;
    } else if (cli_is(arg, "--m")) {
      if (!(v = cli_value(argc, argv, &i, "--m")) ||
          cli_parse_sizes(v, "--m", sa->m, STUDY_MAX_LIST, &sa->nm))
        return EXIT_BAD_INPUT + 1;
      sa->given |= STUDY_OPT_M;
    } else if (cli_is(arg, "--lambda")) {
      if (!(v = cli_value(argc, argv, &i, "--lambda")) ||
          parse_reals(v, "--lambda", sa->lambda, STUDY_MAX_LIST, &sa->nlambda))
        return EXIT_BAD_INPUT + 1;
      sa->given |= STUDY_OPT_LAMBDA;
    } else if (cli_is(arg, "--eps-c")) {
      if (!(v = cli_value(argc, argv, &i, "--eps-c")) ||
          parse_reals(v, "--eps-c", sa->eps_c, STUDY_MAX_LIST, &sa->neps))
        return EXIT_BAD_INPUT + 1;
      sa->given |= STUDY_OPT_EPS;
    } else if (cli_is(arg, "--nmin") || cli_is(arg, "--nmax")) {
      int is_min = cli_is(arg, "--nmin");
      const char *o = is_min ? "--nmin" : "--nmax";
      if (!(v = cli_value(argc, argv, &i, o)) || cli_parse_int(v, o, 3, 100000000L, &lv))
        return EXIT_BAD_INPUT + 1;
      *(is_min ? &sa->nmin : &sa->nmax) = (size_t)lv;
      sa->given |= STUDY_OPT_NRANGE;
    } else if (cli_is(arg, "--kmax")) {
      if (!(v = cli_value(argc, argv, &i, "--kmax")) ||
          cli_parse_int(v, "--kmax", 1, 100000, &sa->kmax))
        return EXIT_BAD_INPUT + 1;
      sa->given |= STUDY_OPT_KMAX;
    } else if (cli_is(arg, "--rpdd-J")) {
      if (!(v = cli_value(argc, argv, &i, "--rpdd-J")) ||
          cli_parse_int(v, "--rpdd-J", 0, 100000000L, &sa->rpdd_J))
        return EXIT_BAD_INPUT + 1;
      sa->given |= STUDY_OPT_RPDD_J;
    } else if (cli_is(arg, "--seed")) {
      if (!(v = cli_value(argc, argv, &i, "--seed")) || cli_parse_u64(v, "--seed", &sa->seed))
        return EXIT_BAD_INPUT + 1;
      sa->given |= STUDY_OPT_SEED;
    } else {
      cli_error("sweep: unknown option '%s' (see 'tridlab sweep --help')", arg);
      return EXIT_BAD_INPUT + 1;
    }
  }
  return 0;
}

int cmd_sweep(int argc, char **argv)
{
  study_args sa;
  study_args_init(&sa, 0);
  const char *name = NULL;
  int pa = parse_sweep_args(argc, argv, &sa, &name);
  if (pa)
    return pa - 1;
  if (!name) {
    cli_error("sweep: name a study, or 'all' (see 'tridlab sweep --help')");
    return EXIT_BAD_INPUT;
  }
  /* --quick changes the defaults that depend on it. */
  study_args q;
  study_args_init(&q, sa.quick);
  if (!(sa.given & STUDY_OPT_KMAX))
    sa.kmax = q.kmax;
  if (!(sa.given & STUDY_OPT_NRANGE)) {
    sa.nmin = q.nmin;
    sa.nmax = q.nmax;
  }
  if (sa.nmin > sa.nmax) {
    cli_error("sweep: --nmax %zu is below --nmin %zu", sa.nmax, sa.nmin);
    return EXIT_BAD_INPUT;
  }
  if (!strcmp(name, "all")) {
    if (sa.given & ~STUDY_OPT_SEED) {
      cli_error("sweep all: the options of one study need its name (only --out, --quick, "
                "--no-plot and --seed apply to all)");
      return EXIT_BAD_INPUT;
    }
    for (size_t k = 0; k < NSTUDIES; k++) {
      study_result res;
      study_args one = sa;
      one.given = studies[k].opts & STUDY_OPT_SEED ? sa.given : 0;
      if (study_run(studies[k].name, &one, stdout, &res))
        return EXIT_BAD_INPUT;
      printf("%s\n\n", res.findings);
    }
    printf("sweep: wrote %s/\n", sa.out);
    return 0;
  }
  study_result res;
  int rc = study_run(name, &sa, stdout, &res);
  if (rc)
    return rc;
  printf("%s\n", res.findings);
  printf("sweep: wrote");
  for (size_t k = 0; k < res.ncsv; k++)
    printf(" %s/%s", sa.out, res.csv[k]);
  for (size_t k = 0; k < res.npng; k++)
    printf(" %s/%s%s", sa.out, res.png[k], out_exists(sa.out, res.png[k]) ? "" : " (not made)");
  printf("\n");
  return 0;
}
