/* convergence/study_sweeps.c -- the sweeps of the study table
 * (tridlab/study.h, docs/sweeps.md): each runs a truncation study of
 * tridlab/sweep.h at the sizes of its arguments, writes its table, CSV,
 * gnuplot data and scripts, and says what it found. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study_internal.h"
#include "tridlab/backend.h"
#include "tridlab/part_its.h"

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
  tl_csv_row_end(f, v, 7, w->status, w->note);
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
            study_num(b[0], 24, "%.3e", w->eps_c_rate), study_num(b[1], 24, "%.3e", w->eps_c),
            study_num(b[2], 24, "%.3e", w->err), study_num(b[3], 24, "%.3e", w->bound),
            study_num(b[4], 24, "%.3e", w->dropped),
            study_num(b[5], 24, "%.3e", paper_err(pp, np, w->J)), tl_status_name(w->status),
            study_mark(w->status));
  }
}

/* The measured error against the bound, and beside the paper's values. */
static size_t its_findings(tl_study_result *res, const tl_sweep_its_row *rows, size_t count,
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
    study_findings(res, "No J gave a solution: the status column says why (a J larger than a "
                        "partition is an error). ");
    return 0;
  }
  study_findings(
      res,
      "The measured error is within the eq-24 bound (info.bound, plus 8 eps of rounding) "
      "at %zu of %zu values of J; the largest ratio error / bound is %.2f (J = %zu). ",
      within, solved, worst, worst_J);
  int listed = 0;
  for (size_t k = 0; k < np; k++) {
    for (size_t r = 0; r < count; r++)
      if (rows[r].J == pp[k].J && tl_status_has_solution(rows[r].status))
        study_findings(res, "%s J = %zu: paper %.2e, tridlab %.2e (x%.1f)",
                       listed++ ? ";" : "Paper 003 beside ours:", pp[k].J, pp[k].err, rows[r].err,
                       rows[r].err / pp[k].err);
  }
  if (listed)
    study_findings(res, " (%s)", table);
  /* The smallest J at which we reach each of the paper's errors (within
   * 10 %): how many more coefficients we need for the same accuracy. */
  study_findings(res, ". tridlab reaches the paper's error (to 10 %%) at");
  for (size_t k = 0; k < np; k++) {
    size_t reach = 0;
    for (size_t r = 0; r < count && !reach; r++)
      if (tl_status_has_solution(rows[r].status) && rows[r].err <= 1.1 * pp[k].err)
        reach = rows[r].J;
    if (reach)
      study_findings(res, "%s J = %zu (paper J = %zu)", k ? "," : "", reach, pp[k].J);
    else
      study_findings(res, "%s none of the J run (paper J = %zu; our round-off floor is above it)",
                     k ? "," : "", pp[k].J);
  }
  study_findings(res, ". ");
  return solved;
}

static int its_plot(const study_ctx *c, const char *stem, const char *title,
                    const tl_sweep_its_row *rows, size_t count, const paper_point *pp, size_t np,
                    const char *paper_label, double err_a, const char *caption)
{
  FILE *d = study_open_dat(c, stem);
  if (!d)
    return TL_ERR_IO;
  fprintf(d, "# J err bound eps_c_rate eps_c dropped\n");
  for (size_t r = 0; r < count; r++) {
    fprintf(d, "%zu", rows[r].J);
    tl_dat_num(d, rows[r].err, 1);
    tl_dat_num(d, rows[r].bound, 1);
    tl_dat_num(d, rows[r].eps_c_rate, 1);
    tl_dat_num(d, rows[r].eps_c, 1);
    tl_dat_num(d, rows[r].dropped, 1);
    fputc('\n', d);
  }
  fprintf(d, "\n\n# %s: J err\n", paper_label);
  for (size_t k = 0; k < np; k++)
    fprintf(d, "%zu %.6e\n", pp[k].J, pp[k].err);
  if (study_close_dat(c, d, stem))
    return TL_ERR_IO;
  FILE *f = study_open_plot(c, stem, 900, 650);
  if (!f)
    return TL_ERR_IO;
  char dat[128];
  snprintf(dat, sizeof dat, "%s.dat", stem);
  fprintf(f, "set title \"%s\" noenhanced\n", title);
  fprintf(f, "set logscale y\nset format y '10^{%%L}'\n"
             "set xlabel 'J (coefficients kept on each side of an interface)'\n"
             "set ylabel '||x_{seq} - x_{par}||_{/Symbol \\245} / ||d||_{/Symbol \\245}'\n"
             "set key top right\n");
  fputs("plot ", f);
  tl_gp_str(f, dat);
  fprintf(f,
          " index 0 using 1:2 with linespoints pt 7 lw 2 lc rgb '%s' title 'measured error', "
          "\\\n     '' index 0 using 1:3 with lines dt 2 lw 2 lc rgb '%s' title 'eq-24 bound "
          "(info.bound)', \\\n     '' index 0 using 1:4 with lines dt 3 lw 1.5 lc rgb '%s' "
          "title 'eps_c = rho^J (eq 18)', \\\n     '' index 1 using 1:2 with points pt 6 ps 2.2 "
          "lw 2 lc rgb '%s' title '%s'",
          study_palette[0], study_palette[1], study_palette[7], study_palette[2], paper_label);
  if (isfinite(err_a))
    fprintf(f,
            ", \\\n     %.6e with lines dt 4 lw 1.5 lc rgb 'black' title 'E_a (derivative "
            "error, LAPACK solve)'",
            err_a);
  fputc('\n', f);
  return study_finish_plot(c, f, stem, caption);
}

static int run_its_table(const study_ctx *c, int compact)
{
  const tl_study_args *sa = c->sa;
  FILE *table = c->table;
  tl_study_result *res = c->res;
  const char *study = compact ? "its-compact" : "its-nonconst";
  const char *stem = compact ? "its_compact" : "its_nonconst";
  const paper_point *pp = compact ? table2 : table3;
  size_t np = compact ? sizeof table2 / sizeof table2[0] : sizeof table3 / sizeof table3[0];
  tl_sweep_its_row rows[TL_STUDY_MAX_LIST];
  tl_info info;
  tl_sweep_progress prog = study_sweep_progress(c);
  int st = tl_sweep_its(compact ? TL_SWEEP_ITS_COMPACT : TL_SWEEP_ITS_NONCONST, (size_t)sa->n,
                        (int)sa->parts, sa->J, sa->nJ, rows, &prog, &info);
  study_progress_end(c);
  if (st < 0)
    return study_fail(c, &info, NULL);
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
  FILE *f = tl_out_open(sa->out, csv, c->info);
  if (!f)
    return TL_ERR_IO;
  its_csv_header(f);
  for (size_t r = 0; r < sa->nJ; r++)
    its_csv_row(f, study, &rows[r], paper_err(pp, np, rows[r].J));
  if (tl_out_close(f, sa->out, csv, c->info))
    return TL_ERR_IO;
  study_add_csv(res, csv);

  size_t solved = its_findings(res, rows, sa->nJ, pp, np, compact ? "Table 2" : "Table 3");
  if (compact && solved) {
    size_t first = 0;
    for (size_t r = 0; r < sa->nJ && !first; r++)
      if (tl_status_has_solution(rows[r].status) && rows[r].err < rows[r].err_a)
        first = rows[r].J;
    study_findings(res, "The derivative's own error E_a is %.2e (paper: %.2e); ", rows[0].err_a,
                   PAPER_TABLE2_EA);
    if (first)
      study_findings(res,
                     "the ITS error falls below it from J = %zu on (the paper: from its smallest "
                     "J, 7). ",
                     first);
    else
      study_findings(res, "the ITS error stays above it for the J given. ");
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
    study_findings(res,
                   "eps_c from the decay rate (rho^J, eq 18) equals the largest neglected "
                   "|z_j| / |z_I| of the exact A^-1 to 1 %% (ratio %.4f .. %.4f).",
                   lo, hi);
  else if (hi > 0)
    study_findings(
        res,
        "eps_c from the worst row's decay rate (rho^J, rho = %.3g) is %.3g .. %.3g times "
        "the largest neglected |z_j| / |z_I| of the exact A^-1: the rows of this matrix "
        "decay faster on average than its worst row.",
        pow(rows[0].eps_c_rate, 1.0 / (double)rows[0].J), lo, hi);
  snprintf(res->command, sizeof res->command, "tridlab sweep %s --out %s", study, sa->out);
  char caption[160];
  snprintf(caption, sizeof caption, "ITS error against J with the eq-24 bound and the paper's %s",
           compact ? "Table 2" : "Table 3");
  if (its_plot(c, stem, title, rows, sa->nJ, pp, np,
               compact ? "paper 003 Table 2" : "paper 003 Table 3", compact ? rows[0].err_a : NAN,
               caption))
    return TL_ERR_IO;
  return TL_OK;
}

int study_run_its_compact(const study_ctx *c)
{
  return run_its_table(c, 1);
}

int study_run_its_nonconst(const study_ctx *c)
{
  return run_its_table(c, 0);
}

/* ---------------------------------------------------------------- */
/* ITS against n at fixed J (paper 003 Fig. 3)                       */

int study_run_its_n(const study_ctx *c)
{
  const tl_study_args *sa = c->sa;
  FILE *table = c->table;
  tl_study_result *res = c->res;
  size_t nn = tl_converge_count(sa->nmin, sa->nmax), nJ = sa->nJ;
  tl_sweep_its_row *rows = calloc(nn * nJ > 0 ? nn * nJ : 1, sizeof *rows);
  if (!rows)
    return TL_FAIL(c->info, TL_ERR_NOMEM, -1, -1, "", "sweep %s: out of memory", c->name);
  int rc = TL_ERR_IO;
  size_t k = 0;
  for (size_t n = sa->nmin; k < nn; n *= 2, k++) {
    tl_info info;
    char what[64];
    snprintf(what, sizeof what, "n = %zu", n);
    study_progress(c, what, k + 1, nn);
    int st = tl_sweep_its(TL_SWEEP_ITS_COMPACT, n, (int)sa->parts, sa->J, nJ, &rows[k * nJ], NULL,
                          &info);
    if (st < 0) {
      study_progress_end(c);
      char where[48];
      snprintf(where, sizeof where, "n = %zu", n);
      rc = study_fail(c, &info, where);
      goto done;
    }
  }
  study_progress_end(c);
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
      fprintf(table, "%8zu  %-11s", rows[i * nJ].n, study_num(b, 24, "%.3e", rows[i * nJ].err_a));
      for (size_t j = 0; j < nJ; j++) {
        const tl_sweep_its_row *w = &rows[i * nJ + j];
        char e[24], bb[24], cellv[32];
        snprintf(cellv, sizeof cellv, "%s%s", study_num(e, 24, "%.3e", w->err),
                 study_mark(w->status));
        fprintf(table, "  %-13s  %-11s", cellv, study_num(bb, 24, "%.3e", w->bound));
      }
      fputc('\n', table);
    }
  }
  FILE *f = tl_out_open(sa->out, "its_n.csv", c->info);
  if (!f)
    goto done;
  its_csv_header(f);
  for (size_t r = 0; r < nn * nJ; r++)
    its_csv_row(f, "its-n", &rows[r], NAN);
  if (tl_out_close(f, sa->out, "its_n.csv", c->info))
    goto done;
  study_add_csv(res, "its_n.csv");

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
      study_findings(res, "%sJ = %zu: no solution at any n (J larger than a partition?)",
                     j ? "; " : "", sa->J[j]);
      continue;
    }
    study_findings(res, "%sJ = %zu: error between %.2e and %.2e over n = %zu .. %zu%s",
                   j ? "; " : "", sa->J[j], lo, hi, sa->nmin, rows[(nn - 1) * nJ].n,
                   within ? ", always within the bound" : ", NOT always within the bound");
  }
  size_t best = 0;
  for (size_t i = 1; i < nn; i++)
    if (rows[i * nJ].err_a < rows[best * nJ].err_a)
      best = i;
  study_findings(
      res,
      ". The error of the parallel solve is set by J, not by n (paper 003 Fig. 3), while "
      "the derivative's own error E_a falls from %.2e at n = %zu to %.2e at n = %zu",
      rows[0].err_a, rows[0].n, rows[best * nJ].err_a, rows[best * nJ].n);
  study_findings(res, "%s.",
                 best + 1 < nn ? " (then rounding, which grows like eps / h, takes over)" : "");
  snprintf(res->command, sizeof res->command, "tridlab sweep its-n --out %s%s", sa->out,
           sa->quick ? " --quick" : "");

  FILE *d = study_open_dat(c, "its_n");
  if (!d)
    goto done;
  for (size_t j = 0; j < nJ; j++) {
    fprintf(d, "%s# J = %zu: n err bound\n", j ? "\n\n" : "", sa->J[j]);
    for (size_t i = 0; i < nn; i++) {
      fprintf(d, "%zu", rows[i * nJ + j].n);
      tl_dat_num(d, rows[i * nJ + j].err, 1);
      tl_dat_num(d, rows[i * nJ + j].bound, 1);
      fputc('\n', d);
    }
  }
  fprintf(d, "\n\n# E_a: n err_a\n");
  for (size_t i = 0; i < nn; i++) {
    fprintf(d, "%zu", rows[i * nJ].n);
    tl_dat_num(d, rows[i * nJ].err_a, 1);
    fputc('\n', d);
  }
  if (study_close_dat(c, d, "its_n"))
    goto done;
  FILE *g = study_open_plot(c, "its_n", 900, 700);
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
    const char *col = study_palette[j % STUDY_NPALETTE];
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
  if (study_finish_plot(c, g, "its_n",
                        "ITS error against n at fixed J (paper 003 Fig. 3), with the derivative's "
                        "own error E_a"))
    goto done;
  rc = TL_OK;
done:
  free(rows);
  return rc;
}

/* ---------------------------------------------------------------- */
/* Bondeli's J (eq 18) against lambda and eps_c (paper 003 Fig. 2)   */

int study_run_bondeli(const study_ctx *c)
{
  const tl_study_args *sa = c->sa;
  FILE *table = c->table;
  tl_study_result *res = c->res;
  size_t nl = sa->nlambda, ne = sa->neps;
  tl_sweep_bondeli_row *rows = calloc(nl * ne > 0 ? nl * ne : 1, sizeof *rows);
  if (!rows)
    return TL_FAIL(c->info, TL_ERR_NOMEM, -1, -1, "", "sweep %s: out of memory", c->name);
  int rc = TL_ERR_IO;
  tl_info info;
  tl_sweep_progress prog = study_sweep_progress(c);
  int st = tl_sweep_bondeli(sa->lambda, nl, sa->eps_c, ne, rows, &prog, &info);
  study_progress_end(c);
  if (st < 0) {
    rc = study_fail(c, &info, NULL);
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
  FILE *f = tl_out_open(sa->out, "bondeli.csv", c->info);
  if (!f)
    goto done;
  fprintf(f, "lambda,sigma,eps_c,J_eq18,J_eq18_ceil,J_measured,J_its\n");
  for (size_t r = 0; r < nl * ne; r++) {
    const tl_sweep_bondeli_row *w = &rows[r];
    fprintf(f, "%.9g,%.9g,%.3e,%.6f,%.0f,%zu,%zu\n", w->lambda, w->sigma, w->eps_c, w->J_eq18,
            ceil(w->J_eq18), w->J_measured, w->J_its);
  }
  if (tl_out_close(f, sa->out, "bondeli.csv", c->info))
    goto done;
  study_add_csv(res, "bondeli.csv");

  size_t agree = 0;
  double extra = 0.0;
  for (size_t r = 0; r < nl * ne; r++) {
    agree += (double)rows[r].J_measured == ceil(rows[r].J_eq18);
    extra = fmax(extra, (double)rows[r].J_its - (double)rows[r].J_measured);
  }
  study_findings(
      res,
      "The J measured on the exact inverse equals ceil(eq 18) in %zu of %zu cases: for a "
      "Toeplitz row eq 18 is exact (z_j = z_I sigma^-|j-I|). The its solver's own choice "
      "(J = 0) is larger by at most %.0f rows, because it bounds the whole neglected tail, "
      "not only its largest term. ",
      agree, nl * ne, extra);
  /* The paper: "relatively small J for sigma > 1.2". */
  for (size_t e = 0; e < ne; e++) {
    double s12 = 1.2, l12 = 2.0 * s12;
    study_findings(res, "%s eps_c = %.0e: J = %.1f at sigma = 1.2", e ? ";" : "At", sa->eps_c[e],
                   tl_its_bondeli_J(sa->eps_c[e], l12));
    if (nl > 0)
      study_findings(res, ", %.1f at sigma = %.4g", rows[e].J_eq18, rows[e].sigma);
  }
  study_findings(res, ": J grows without bound as sigma -> 1 (paper 003 Fig. 2).");
  snprintf(res->command, sizeof res->command, "tridlab sweep bondeli --out %s%s", sa->out,
           sa->quick ? " --quick" : "");

  FILE *d = study_open_dat(c, "bondeli");
  if (!d)
    goto done;
  for (size_t e = 0; e < ne; e++) {
    fprintf(d, "%s# eps_c = %.3e: sigma J_eq18 J_measured J_its\n", e ? "\n\n" : "", sa->eps_c[e]);
    for (size_t l = 0; l < nl; l++) {
      const tl_sweep_bondeli_row *w = &rows[l * ne + e];
      fprintf(d, "%.9g %.6f %zu %zu\n", w->sigma, w->J_eq18, w->J_measured, w->J_its);
    }
  }
  if (study_close_dat(c, d, "bondeli"))
    goto done;
  FILE *g = study_open_plot(c, "bondeli", 900, 650);
  if (!g)
    goto done;
  fprintf(g, "set title \"J against the dominance sigma = lambda/2 of tridiag(1, lambda, 1) "
             "(paper 003 eq 18, Fig. 2)\" noenhanced\n"
             "set logscale y\nset xrange [1:*]\nset xlabel 'sigma = lambda / 2'\nset ylabel 'J'\n"
             "set key top right\n");
  fputs("plot ", g);
  for (size_t e = 0; e < ne; e++) {
    const char *col = study_palette[e % STUDY_NPALETTE];
    fprintf(g,
            "%s'bondeli.dat' index %zu using 1:2 with lines lw 2 lc rgb '%s' title "
            "'eq 18, eps_c = %.0e', \\\n     '' index %zu using 1:3 with points pt 6 ps 1.2 "
            "lc rgb '%s' notitle, \\\n     '' index %zu using 1:4 with points pt 2 ps 1 lc "
            "rgb '%s' notitle",
            e ? ", \\\n     " : "", e, col, sa->eps_c[e], e, col, e, col);
  }
  fprintf(g, ", \\\n     NaN with points pt 6 lc rgb 'black' title 'measured on A^{-1}', \\\n"
             "     NaN with points pt 2 lc rgb 'black' title 'its solver, J = 0'\n");
  if (study_finish_plot(
          c, g, "bondeli",
          "Bondeli's J (eq 18) against sigma for several eps_c (paper 003 Fig. 2), with "
          "the J measured on the exact inverse and the one the its solver picks"))
    goto done;
  rc = TL_OK;
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

static int dom_plots(const study_ctx *c, const dom_view *v)
{
  size_t li[4], mi[4];
  size_t nli = spread(v->nl, li), nmi = spread(v->nm, mi);
  char label[32];
  /* Error against m: one panel per series, a few lambdas. */
  FILE *d = study_open_dat(c, "dominance_m");
  if (!d)
    return TL_ERR_IO;
  for (size_t s = 0; s < v->ns; s++)
    for (size_t k = 0; k < nli; k++) {
      fprintf(d, "%s# %s, lambda = %g: m err sigma^-m\n", s || k ? "\n\n" : "",
              dom_at(v, li[k], 0, s)->algo, dom_at(v, li[k], 0, s)->lambda);
      for (size_t m = 0; m < v->nm; m++) {
        const tl_sweep_dominance_row *w = dom_at(v, li[k], m, s);
        fprintf(d, "%zu", w->m);
        tl_dat_num(d, w->err, 1);
        tl_dat_num(d, w->predicted, 1);
        fputc('\n', d);
      }
    }
  if (study_close_dat(c, d, "dominance_m"))
    return TL_ERR_IO;
  FILE *g = study_open_plot(c, "dominance_m", 1200, 900);
  if (!g)
    return TL_ERR_IO;
  fprintf(g,
          "set multiplot layout 2,2 title \"tridiag(1, lambda, 1), P = %d: error against rows "
          "per partition m (dashed: predicted sigma^{-m}, a straight line on these axes)\"\n"
          "set logscale y\nset format y '10^{%%L}'\nset xlabel 'm (rows per partition)'\n"
          "set ylabel '||x - x_{exact}||_{/Symbol \\245} / ||x_{exact}||_{/Symbol \\245}'\n"
          "set yrange [1e-17:10]\nset key bottom left font ',9'\n",
          v->rows[0].parts);
  for (size_t s = 0; s < v->ns; s++) {
    fprintf(g, "set title '%s'\nplot ",
            tl_sweep_series_label((tl_sweep_series)v->series[s], v->rpdd_J, label, sizeof label));
    for (size_t k = 0; k < nli; k++) {
      size_t idx = s * nli + k;
      const char *col = study_palette[k % STUDY_NPALETTE];
      fprintf(g,
              "%s'dominance_m.dat' index %zu using 1:2 with linespoints pt 7 lw 2 lc rgb '%s' "
              "title 'lambda = %g', '' index %zu using 1:3 with lines dt 2 lc rgb '%s' notitle",
              k ? ", \\\n     " : "", idx, col, dom_at(v, li[k], 0, s)->lambda, idx, col);
    }
    fputc('\n', g);
  }
  fputs("unset multiplot\n", g);
  if (study_finish_plot(c, g, "dominance_m",
                        "PDD, RPDD, DistD2: error against the rows per partition m, with sigma^-m "
                        "dashed"))
    return TL_ERR_IO;

  /* Error against lambda: one panel per series, a few m. */
  d = study_open_dat(c, "dominance_lambda");
  if (!d)
    return TL_ERR_IO;
  for (size_t s = 0; s < v->ns; s++)
    for (size_t k = 0; k < nmi; k++) {
      fprintf(d, "%s# %s, m = %zu: lambda err sigma^-m\n", s || k ? "\n\n" : "",
              dom_at(v, 0, mi[k], s)->algo, dom_at(v, 0, mi[k], s)->m);
      for (size_t l = 0; l < v->nl; l++) {
        const tl_sweep_dominance_row *w = dom_at(v, l, mi[k], s);
        fprintf(d, "%.9g", w->lambda);
        tl_dat_num(d, w->err, 1);
        tl_dat_num(d, w->predicted, 1);
        fputc('\n', d);
      }
    }
  if (study_close_dat(c, d, "dominance_lambda"))
    return TL_ERR_IO;
  g = study_open_plot(c, "dominance_lambda", 1200, 900);
  if (!g)
    return TL_ERR_IO;
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
      const char *col = study_palette[k % STUDY_NPALETTE];
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
  if (study_finish_plot(c, g, "dominance_lambda",
                        "PDD, RPDD, DistD2: error against the dominance lambda at a few m, with "
                        "sigma^-m dashed"))
    return TL_ERR_IO;

  /* Every point: error against the prediction. */
  d = study_open_dat(c, "dominance_collapse");
  if (!d)
    return TL_ERR_IO;
  for (size_t s = 0; s < v->ns; s++) {
    fprintf(d, "%s# %s: sigma^-m err\n", s ? "\n\n" : "", dom_at(v, 0, 0, s)->algo);
    for (size_t l = 0; l < v->nl; l++)
      for (size_t m = 0; m < v->nm; m++) {
        const tl_sweep_dominance_row *w = dom_at(v, l, m, s);
        tl_dat_num(d, w->predicted, 1);
        tl_dat_num(d, w->err, 1);
        fputc('\n', d);
      }
  }
  if (study_close_dat(c, d, "dominance_collapse"))
    return TL_ERR_IO;
  g = study_open_plot(c, "dominance_collapse", 900, 700);
  if (!g)
    return TL_ERR_IO;
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
            s, 6 + 2 * (int)s, study_palette[s % STUDY_NPALETTE],
            tl_sweep_series_label((tl_sweep_series)v->series[s], v->rpdd_J, label, sizeof label));
  fputc('\n', g);
  if (study_finish_plot(c, g, "dominance_collapse",
                        "Every (lambda, m): the measured error against sigma^-m"))
    return TL_ERR_IO;
  return TL_OK;
}

/* The findings as a short table, one row per series (indented: a code
 * block where the report embeds it in Markdown), then what it means. */
static void dom_findings(const dom_view *v, tl_study_result *res)
{
  char label[32];
  study_findings(res, "    %-10s %12s %20s %4s %14s\n", "series", "within bound",
                 "error / prediction", "ok", "worst ok error");
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
    char within_s[32], ratio_s[48], worst_s[24];
    snprintf(within_s, sizeof within_s, "%zu of %zu", within, solved);
    if (hi > 0.0)
      snprintf(ratio_s, sizeof ratio_s, "%.2g .. %.2g", lo, hi);
    else
      snprintf(ratio_s, sizeof ratio_s, "-");
    if (ok)
      snprintf(worst_s, sizeof worst_s, "%.1e", worst_ok);
    else
      snprintf(worst_s, sizeof worst_s, "-");
    study_findings(res, "    %-10s %12s %20s %4zu %14s\n", label, within_s, ratio_s, ok, worst_s);
  }
  study_findings(res,
                 "\nWithin bound: the error is at most the bound the solve reported\n"
                 "(info.bound) plus 64 eps cond(A). Error / prediction: the error over\n"
                 "sigma^-m, where both exceed 1e3 eps. Every solve writes its answer; the\n"
                 "status is outside-domain exactly when the dropped coupling (info.dropped,\n"
                 "in the CSV) exceeds the algorithm's default tolerance (2 eps), so ok\n"
                 "means an error at round-off level.");
  if (v->rpdd_J)
    study_findings(res, "\nRPDD with J = %zu stops improving once m > J, at about sigma^-%zu.",
                   v->rpdd_J, v->rpdd_J);
}

int study_run_dominance(const study_ctx *c)
{
  const tl_study_args *sa = c->sa;
  FILE *table = c->table;
  tl_study_result *res = c->res;
  tl_sweep_dominance_config cfg = {.lambdas = sa->lambda,
                                   .nlambda = sa->nlambda,
                                   .ms = sa->m,
                                   .nm = sa->nm,
                                   .parts = (int)sa->parts,
                                   .rpdd_J = (size_t)sa->rpdd_J,
                                   .seed = sa->seed};
  size_t cap = tl_sweep_dominance_count(&cfg), count = 0;
  tl_sweep_dominance_row *rows = calloc(cap ? cap : 1, sizeof *rows);
  if (!rows)
    return TL_FAIL(c->info, TL_ERR_NOMEM, -1, -1, "", "sweep %s: out of memory", c->name);
  int rc = TL_ERR_IO;
  tl_info info;
  tl_sweep_progress prog = study_sweep_progress(c);
  int st = tl_sweep_dominance(&cfg, rows, cap, &count, &prog, &info);
  study_progress_end(c);
  if (st < 0) {
    rc = study_fail(c, &info, NULL);
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
          snprintf(c2, sizeof c2, "%s%s", study_num(e, 24, "%.2e", w->err), study_mark(w->status));
          fprintf(table, "  %-11s", c2);
        }
        fputc('\n', table);
      }
  }
  FILE *f = tl_out_open(sa->out, "dominance.csv", c->info);
  if (!f)
    goto done;
  fprintf(f, "algo,series,lambda,sigma,parts,m,n,err,predicted,dropped,bound,tol,status,note\n");
  for (size_t r = 0; r < count; r++) {
    const tl_sweep_dominance_row *w = &rows[r];
    fprintf(f, "%s,%s,%.9g,%.9g,%d,%zu,%zu,", w->algo,
            tl_sweep_series_label(w->series, v.rpdd_J, label, sizeof label), w->lambda, w->sigma,
            w->parts, w->m, w->n);
    double vals[5] = {w->err, w->predicted, w->dropped, w->bound, w->tol};
    tl_csv_row_end(f, vals, 5, w->status, w->note);
  }
  if (tl_out_close(f, sa->out, "dominance.csv", c->info))
    goto done;
  study_add_csv(res, "dominance.csv");
  dom_findings(&v, res);
  snprintf(res->command, sizeof res->command, "tridlab sweep dominance --out %s%s", sa->out,
           sa->quick ? " --quick" : "");
  if (dom_plots(c, &v))
    goto done;
  rc = TL_OK;
done:
  free(rows);
  return rc;
}

/* ---------------------------------------------------------------- */
/* Tridsolver's Jacobi reduced solve against the sweeps K            */

int study_run_jacobi(const study_ctx *c)
{
  const tl_study_args *sa = c->sa;
  FILE *table = c->table;
  tl_study_result *res = c->res;
  tl_sweep_jacobi_config cfg = {.lambdas = sa->lambda,
                                .nlambda = sa->nlambda,
                                .ms = sa->m,
                                .nm = sa->nm,
                                .parts = (int)sa->parts,
                                .kmax = sa->kmax,
                                .seed = sa->seed};
  size_t cap = tl_sweep_jacobi_count(&cfg), count = 0;
  tl_sweep_jacobi_row *rows = calloc(cap ? cap : 1, sizeof *rows);
  if (!rows)
    return TL_FAIL(c->info, TL_ERR_NOMEM, -1, -1, "", "sweep %s: out of memory", c->name);
  int rc = TL_ERR_IO;
  tl_info info;
  tl_sweep_progress prog = study_sweep_progress(c);
  int st = tl_sweep_jacobi(&cfg, rows, cap, &count, &prog, &info);
  study_progress_end(c);
  if (st < 0) {
    rc = study_fail(c, &info, NULL);
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
        snprintf(c2, sizeof c2, "%s%s", study_num(e, 24, "%.2e", w->err), study_mark(w->status));
        fprintf(table, "  %-19s", c2);
      }
      fputc('\n', table);
    }
  }
  FILE *f = tl_out_open(sa->out, "jacobi_reduced.csv", c->info);
  if (!f)
    goto done;
  fprintf(f, "lambda,parts,m,n,iters,err,q,predicted,dropped,bound,status,note\n");
  for (size_t r = 0; r < count; r++) {
    const tl_sweep_jacobi_row *w = &rows[r];
    fprintf(f, "%.9g,%d,%zu,%zu,%ld,", w->lambda, w->parts, w->m, w->n, w->iters);
    double vals[5] = {w->err, w->q, w->predicted, w->dropped, w->bound};
    tl_csv_row_end(f, vals, 5, w->status, w->note);
  }
  if (tl_out_close(f, sa->out, "jacobi_reduced.csv", c->info))
    goto done;
  study_add_csv(res, "jacobi_reduced.csv");

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
    study_findings(res, "%slambda = %g, m = %zu: q = %.3g, ", s ? "; " : "", w0->lambda, w0->m,
                   w0->q);
    if (first_ok)
      study_findings(res, "status ok (dropped <= tol) from K = %zu", first_ok);
    else
      study_findings(res, "not ok within K = %zu", K);
    study_findings(res,
                   ", error within the reported bound (plus 64 eps cond) at %zu of %zu K and below "
                   "q^(K+1) at %zu",
                   within, solved, below);
  }
  study_findings(res,
                 ". More rows per partition make the reduced system nearly diagonal (q falls "
                 "like sigma^-m), so a few sweeps suffice; weak dominance and short partitions "
                 "need many.");
  snprintf(res->command, sizeof res->command, "tridlab sweep jacobi-reduced --out %s%s", sa->out,
           sa->quick ? " --quick" : "");

  FILE *d = study_open_dat(c, "jacobi_reduced");
  if (!d)
    goto done;
  for (size_t s = 0; s < ns; s++) {
    fprintf(d, "%s# lambda = %g, m = %zu: K err q^(K+1) bound\n", s ? "\n\n" : "",
            rows[s * K].lambda, rows[s * K].m);
    for (size_t k = 0; k < K; k++) {
      const tl_sweep_jacobi_row *w = &rows[s * K + k];
      fprintf(d, "%ld", w->iters);
      tl_dat_num(d, w->err, 1);
      tl_dat_num(d, w->predicted, 1);
      tl_dat_num(d, w->bound, 1);
      fputc('\n', d);
    }
  }
  if (study_close_dat(c, d, "jacobi_reduced"))
    goto done;
  FILE *g = study_open_plot(c, "jacobi_reduced", 900, 700);
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
    const char *col = study_palette[s % STUDY_NPALETTE];
    fprintf(g,
            "%s'jacobi_reduced.dat' index %zu using 1:2 with linespoints pt 7 lw 2 lc rgb "
            "'%s' title 'lambda = %g, m = %zu', '' index %zu using 1:3 with lines dt 2 lc rgb "
            "'%s' notitle",
            s ? ", \\\n     " : "", s, col, rows[s * K].lambda, rows[s * K].m, s, col);
  }
  fputc('\n', g);
  if (study_finish_plot(
          c, g, "jacobi_reduced",
          "Tridsolver with the Jacobi reduced solve: error against the number of sweeps, "
          "with q^(K+1) dashed"))
    goto done;
  rc = TL_OK;
done:
  free(rows);
  return rc;
}
