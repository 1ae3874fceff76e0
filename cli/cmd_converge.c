/* cli/cmd_converge.c -- `tridlab converge`: order of accuracy of a compact
 * scheme solved by a chosen algorithm (docs/convergence.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tridlab/convergence.h"
#include "tridlab/study.h"
#include "tridlab/tridlab.h"

#define MAX_PARAMS 16

static void converge_usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab converge [options]\n"
          "\n"
          "Order-of-accuracy study of a compact finite-difference scheme (S. K. Lele 1992)\n"
          "whose tridiagonal system is solved by any registry algorithm. For n = nmin,\n"
          "2 nmin, 4 nmin, ... <= nmax it samples a test function u on [0, L], computes its\n"
          "derivative f with the scheme and prints, against the analytic derivative:\n"
          "  max error    max_i |f_i - f(x_i)|\n"
          "  L2 error     sqrt(h sum_i (f_i - f(x_i))^2)\n"
          "  order        log(e_prev / e) / log(h_prev / h), i.e. log2(e_h / e_h/2), for both\n"
          "  vs LAPACK    ||f - f_lapack||_inf / ||f_lapack||_inf: the solver's own error\n"
          "               against a pivoted LAPACK solve of the same system\n"
          "  status       the solver's status; rows marked * are outside the algorithm's\n"
          "               guaranteed domain (still solved), ! a failed solve (no errors);\n"
          "               their messages follow the table\n"
          "\n"
          "options:\n"
          "  --scheme NAME         pade4   first derivative [1/4, 1, 1/4], 4th order\n"
          "                        lele6   first derivative [1/3, 1, 1/3], 6th order (default)\n"
          "                        d2-6th  second derivative [2/11, 1, 2/11], 6th order\n"
          "  --boundary KIND       periodic  x_i = i h, h = L/n, cyclic system (default)\n"
          "                        otherwise x_i = i h, h = L/(n-1), both ends, closed by:\n"
          "                        closure   3rd-order compact rows [1, 2] ([1, 11] for d2-6th):\n"
          "                                  global order 3 (not diagonally dominant)\n"
          "                        lele4     Lele's 4th-order row [1, 3] (alpha = 3; [1, 10]\n"
          "                                  for d2-6th) and a Pade row 1: global order 4\n"
          "                        lele4-singular  lele6 only: [1, 3] above a [1/3, 1, 1/3]\n"
          "                                  row 1: leading 2x2 block singular, so Thomas and\n"
          "                                  every non-pivoting solver break down at row 1\n"
          "                        explicit5 explicit one-sided 5th-order rows: order 5\n"
          "                        explicit6 explicit one-sided 6th-order rows: order 6 for\n"
          "                                  lele6 and d2-6th (strictly diagonally dominant)\n"
          "  --function NAME       sin      sin(k x) (default with periodic)\n"
          "                        cos      cos(k x)\n"
          "                        expsin   exp(sin(k x))\n"
          "                        polyexp  (1 + x^2) exp(-k x), closed grids only (their\n"
          "                                 default: sin(k x) on [0, 2 pi] has u'''' = 0\n"
          "                                 at both ends, which hides the leading error of\n"
          "                                 the 3rd-order first-derivative closure)\n"
          "  --wavenumber K        k > 0 (default 1); periodic: k L / (2 pi) must be an integer\n"
          "  --length L            domain length (default 2 pi)\n"
          "  --algo NAME           registry algorithm (see 'tridlab list'); default\n"
          "                        thomas_periodic (periodic) or gtsv (closed grids)\n"
          "  --parts P             number of partitions (partitioned algorithms)\n"
          "  --param key=value     algorithm parameter (repeatable)\n"
          "  --nmin N              smallest n (default 16)\n"
          "  --nmax N              largest n (default 2048)\n"
          "  --csv FILE            the table as CSV\n"
          "  --plot FILE.png       log-log plot of the errors against n with dashed reference\n"
          "                        slopes n^-4 and n^-6 (and n^-3 or n^-5 with the closures\n"
          "                        of that order); writes\n"
          "                        FILE.dat and FILE.gp beside it and runs gnuplot if it is\n"
          "                        installed (else says so and keeps going)\n"
          "\n"
          "exit status:\n"
          "  0  the study ran (rows where the solver failed are marked, not fatal)\n"
          "  1  bad usage (message names the option), or a file could not be written\n"
          "\n"
          "example:\n"
          "  tridlab converge --scheme lele6 --algo distd2 --parts 2 --nmin 16 --nmax 512\n");
}

typedef struct converge_args {
  const char *scheme, *boundary, *function, *algo, *csv, *plot;
  double k, length;
  long parts, nmin, nmax;
  const char *params[MAX_PARAMS];
  int nparams;
} converge_args;

static int parse_real(const char *s, const char *what, double *out)
{
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(v) || !(v > 0.0)) {
    cli_error("%s must be a positive number, got '%s'", what, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* Returns 0 to go on, or an exit status + 1 (so help's 0 is distinct). */
static int parse_args(int argc, char **argv, converge_args *ca)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      converge_usage(stdout);
      return 0 + 1;
    } else if (cli_is(arg, "--scheme")) {
      if (!(ca->scheme = cli_value(argc, argv, &i, "--scheme")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--boundary")) {
      if (!(ca->boundary = cli_value(argc, argv, &i, "--boundary")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--function")) {
      if (!(ca->function = cli_value(argc, argv, &i, "--function")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--wavenumber")) {
      if (!(v = cli_value(argc, argv, &i, "--wavenumber")) || parse_real(v, "--wavenumber", &ca->k))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--length")) {
      if (!(v = cli_value(argc, argv, &i, "--length")) || parse_real(v, "--length", &ca->length))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--algo")) {
      if (!(ca->algo = cli_value(argc, argv, &i, "--algo")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--parts")) {
      if (!(v = cli_value(argc, argv, &i, "--parts")) ||
          cli_parse_int(v, "--parts", 1, TL_MAX_PARTS, &ca->parts))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--param")) {
      if (!(v = cli_value(argc, argv, &i, "--param")))
        return EXIT_BAD_INPUT + 1;
      if (ca->nparams == MAX_PARAMS) {
        cli_error("converge: at most %d --param options", MAX_PARAMS);
        return EXIT_BAD_INPUT + 1;
      }
      ca->params[ca->nparams++] = v;
    } else if (cli_is(arg, "--nmin")) {
      if (!(v = cli_value(argc, argv, &i, "--nmin")) ||
          cli_parse_int(v, "--nmin", 1, 1000000000L, &ca->nmin))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--nmax")) {
      if (!(v = cli_value(argc, argv, &i, "--nmax")) ||
          cli_parse_int(v, "--nmax", 1, 1000000000L, &ca->nmax))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--csv")) {
      if (!(ca->csv = cli_value(argc, argv, &i, "--csv")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--plot")) {
      if (!(ca->plot = cli_value(argc, argv, &i, "--plot")))
        return EXIT_BAD_INPUT + 1;
    } else {
      cli_error("converge: unknown option '%s' (see 'tridlab converge --help')", arg);
      return EXIT_BAD_INPUT + 1;
    }
  }
  return 0;
}

/* The study's configuration from the arguments; 0, or -1 with a message. */
static int make_config(converge_args *ca, tl_options *opt, tl_converge_config *cfg)
{
  cfg->scheme = tl_compact_find(ca->scheme);
  if (!cfg->scheme) {
    cli_error("converge: --scheme must be pade4, lele6 or d2-6th, got '%s'", ca->scheme);
    return -1;
  }
  if (!strcmp(ca->boundary, "periodic")) {
    cfg->periodic = 1;
  } else if ((cfg->closure = tl_compact_closure_find(cfg->scheme, ca->boundary))) {
    cfg->periodic = 0;
  } else {
    char names[256] = "periodic";
    for (size_t k = 0; k < cfg->scheme->nclosures; k++) {
      size_t len = strlen(names);
      snprintf(names + len, sizeof names - len, ", %s", cfg->scheme->closures[k].name);
    }
    cli_error("converge: --boundary of %s must be one of %s; got '%s'", cfg->scheme->name, names,
              ca->boundary);
    return -1;
  }
  if (!ca->function)
    ca->function = cfg->periodic ? "sin" : "polyexp";
  cfg->function = tl_converge_function_find(ca->function);
  if (!cfg->function) {
    cli_error("converge: --function must be sin, cos, expsin or polyexp, got '%s'", ca->function);
    return -1;
  }
  if (!ca->algo)
    ca->algo = cfg->periodic ? "thomas_periodic" : "gtsv";
  cfg->algo = tl_find(ca->algo);
  if (!cfg->algo) {
    cli_error("converge: no algorithm named '%s' (see 'tridlab list')", ca->algo);
    return -1;
  }
  tl_options_init(opt);
  if (ca->parts)
    opt->parts = (int)ca->parts;
  for (int k = 0; k < ca->nparams; k++) {
    tl_info info;
    tl_info_clear(&info);
    if (tl_options_set_param_kv(opt, cfg->algo, ca->params[k], &info) != TL_OK) {
      cli_error("%s", info.msg);
      return -1;
    }
  }
  cfg->opt = opt;
  cfg->wavenumber = ca->k;
  cfg->length = ca->length;
  cfg->nmin = (size_t)ca->nmin;
  cfg->nmax = (size_t)ca->nmax;
  return 0;
}

/* "ok", "outside-domain *", "breakdown !" */
static void status_text(int status, char *buf, size_t size)
{
  const char *mark = status == TL_OK ? "" : status > 0 ? " *" : " !";
  snprintf(buf, size, "%s%s", tl_status_name(status), mark);
}

/* One number of the table; "-" where there is none (NaN). */
static void cell(char *buf, size_t size, const char *fmt, double v)
{
  if (isnan(v))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, fmt, v);
}

static void print_table(FILE *out, const tl_converge_config *cfg, const tl_converge_row *rows,
                        size_t count)
{
  const tl_compact_scheme *s = cfg->scheme;
  double L = cfg->length > 0.0 ? cfg->length : 2.0 * acos(-1.0);
  fprintf(out, "scheme %s (%s), %s, u = %s, k = %g, on [0, %g%s\n", s->name, s->summary,
          cfg->periodic ? "periodic" : cfg->closure->summary, cfg->function->formula,
          cfg->wavenumber, L, cfg->periodic ? ")" : "]");
  fprintf(out, "solver %s, P = %d\n\n", cfg->algo->name, cfg->opt ? cfg->opt->parts : 1);
  fprintf(out, "%8s  %-10s  %-12s  %-12s  %10s  %10s  %-10s  %s\n", "n", "h", "max error",
          "L2 error", "order(max)", "order(L2)", "vs LAPACK", "status");
  for (size_t r = 0; r < count; r++) {
    const tl_converge_row *w = &rows[r];
    char st[48];
    status_text(w->status, st, sizeof st);
    char emax[24], el2[24], omax[24], ol2[24], diff[24];
    cell(emax, sizeof emax, "%.6e", w->err_max);
    cell(el2, sizeof el2, "%.6e", w->err_l2);
    cell(omax, sizeof omax, "%.3f", w->order_max);
    cell(ol2, sizeof ol2, "%.3f", w->order_l2);
    cell(diff, sizeof diff, "%.2e", w->solver_diff);
    fprintf(out, "%8zu  %-10.4e  %-12s  %-12s  %10s  %10s  %-10s  %s\n", w->n, w->h, emax, el2,
            omax, ol2, diff, st);
  }
  /* The solver's messages, one line per run of rows that share one. */
  int notes = 0;
  for (size_t r = 0; r < count;) {
    size_t end = r + 1;
    while (end < count && rows[end].status == rows[r].status &&
           !strcmp(rows[end].note, rows[r].note))
      end++;
    if (rows[r].status != TL_OK) {
      if (!notes++)
        fputc('\n', out);
      if (end - r > 1)
        fprintf(out, "n = %zu .. %zu: ", rows[r].n, rows[end - 1].n);
      else
        fprintf(out, "n = %zu: ", rows[r].n);
      fprintf(out, "%s: %s\n", tl_status_name(rows[r].status), rows[r].note);
    }
    r = end;
  }
  if (!cfg->periodic && cfg->closure->singular_block)
    fprintf(out,
            "\nclosure %s: the leading 2 x 2 block of the matrix is exactly singular (the matrix "
            "is not): elimination without pivoting meets a zero pivot at row 1; a pivoting "
            "solver (gtsv) solves it (docs/convergence.md, \"The trap\")\n",
            cfg->closure->name);
}

/* --csv FILE: the library's CSV of one series. */
static int write_csv(const char *path, const tl_converge_series *series)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    cli_error("cannot write %s", path);
    return -1;
  }
  tl_converge_csv(f, series, 1, 0);
  if (fclose(f) != 0) {
    cli_error("cannot write %s", path);
    return -1;
  }
  return 0;
}

/* A third reference slope for a closure whose global order is 3 or 5. */
static int extra_slope(const tl_converge_config *cfg)
{
  int p = cfg->periodic ? 0 : (int)lround(cfg->closure->order_max);
  return p == 3 || p == 5 ? p : 0;
}

/* --plot FILE.png: FILE.dat and FILE.gp beside it, then gnuplot (its
 * absence or failure is said, not fatal). */
static int make_plot(const char *png, const tl_converge_series *series)
{
  const tl_converge_config *cfg = series->cfg;
  size_t len = strlen(png);
  size_t stem_len = len > 4 && !strcmp(png + len - 4, ".png") ? len - 4 : len;
  const char *slash = strrchr(png, '/');
  const char *base = slash ? slash + 1 : png;
  char *dir = malloc(len + 2), *stem = malloc(len + 1);
  int rc = -1;
  if (!dir || !stem) {
    cli_error("out of memory");
    goto done;
  }
  if (slash)
    snprintf(dir, len + 2, "%.*s", slash == png ? 1 : (int)(slash - png), png);
  else
    snprintf(dir, len + 2, ".");
  snprintf(stem, len + 1, "%.*s", (int)(stem_len - (size_t)(base - png)), base);
  char title[512];
  snprintf(title, sizeof title, "%s, %s, u = %s (k = %g), solver %s, P = %d", cfg->scheme->name,
           cfg->periodic ? "periodic" : cfg->closure->name, cfg->function->formula, cfg->wavenumber,
           cfg->algo->name, cfg->opt ? cfg->opt->parts : 1);
  tl_converge_plot plot = {.title = title,
                           .origin = "tridlab converge",
                           .width = 900,
                           .height = 650,
                           .all_errors = 1,
                           .slopes = {4, 6, extra_slope(cfg), 0}};
  tl_info info;
  if (tl_converge_plot_write(dir, stem, base, series, 1, &plot, &info) != TL_OK) {
    cli_error("%s", info.msg);
    goto done;
  }
  rc = 0;
  char gp[4096];
  snprintf(gp, sizeof gp, "%s.gp", stem);
  if (tl_gnuplot_make(dir, gp, base, &info) != TL_OK)
    cli_error("%s", info.msg);
done:
  free(dir);
  free(stem);
  return rc;
}

/* ---------------------------------------------------------------- */

static void on_row(const tl_converge_row *row, size_t index, size_t count, void *ctx)
{
  (void)ctx;
  char what[48];
  snprintf(what, sizeof what, "n = %zu", row->n);
  progress_line("converge", what, index + 1, count);
}

int cmd_converge(int argc, char **argv)
{
  converge_args ca = {
      .scheme = "lele6", .boundary = "periodic", .k = 1.0, .nmin = 16, .nmax = 2048};
  int pa = parse_args(argc, argv, &ca);
  if (pa)
    return pa - 1;
  tl_options opt;
  tl_converge_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (make_config(&ca, &opt, &cfg))
    return EXIT_BAD_INPUT;
  size_t cap = tl_converge_count(cfg.nmin, cfg.nmax);
  if (!cap) {
    cli_error("converge: --nmax %zu is below --nmin %zu", cfg.nmax, cfg.nmin);
    return EXIT_BAD_INPUT;
  }
  tl_converge_row *rows = calloc(cap, sizeof *rows);
  if (!rows) {
    cli_error("out of memory");
    return EXIT_BAD_INPUT;
  }
  cfg.on_row = on_row;
  size_t count = 0;
  tl_info info;
  int st = tl_converge_run(&cfg, rows, cap, &count, &info);
  progress_clear();
  int rc = EXIT_SOLVED;
  if (st < 0) {
    cli_error("converge: %s", info.msg);
    rc = EXIT_BAD_INPUT;
    goto done;
  }
  print_table(stdout, &cfg, rows, count);
  tl_converge_series series = {NULL, &cfg, 0, rows, count};
  if (ca.csv && write_csv(ca.csv, &series))
    rc = EXIT_BAD_INPUT;
  if (ca.plot && make_plot(ca.plot, &series))
    rc = EXIT_BAD_INPUT;
done:
  free(rows);
  return rc;
}
