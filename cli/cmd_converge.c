/* cli/cmd_converge.c -- `tridlab converge`: order of accuracy of a compact
 * scheme solved by a chosen algorithm (docs/convergence.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "tridlab/convergence.h"
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
          "                        closure   x_i = i h, h = L/(n-1), one-sided 3rd-order\n"
          "                                  closures at both ends (not diagonally dominant)\n"
          "  --function NAME       sin      sin(k x) (default with periodic)\n"
          "                        expsin   exp(sin(k x))\n"
          "                        polyexp  (1 + x^2) exp(-k x), closure only (default\n"
          "                                 there: sin(k x) on [0, 2 pi] has u'''' = 0\n"
          "                                 at both ends, which hides the leading error of\n"
          "                                 the first-derivative closure)\n"
          "  --wavenumber K        k > 0 (default 1); periodic: k L / (2 pi) must be an integer\n"
          "  --length L            domain length (default 2 pi)\n"
          "  --algo NAME           registry algorithm (see 'tridlab list'); default\n"
          "                        thomas_periodic (periodic) or gtsv (closure)\n"
          "  --parts P             number of partitions (partitioned algorithms)\n"
          "  --param key=value     algorithm parameter (repeatable)\n"
          "  --nmin N              smallest n (default 16)\n"
          "  --nmax N              largest n (default 2048)\n"
          "  --csv FILE            the table as CSV\n"
          "  --plot FILE.png       log-log plot of the errors against n with dashed reference\n"
          "                        slopes n^-4 and n^-6 (and n^-3 with closures); writes\n"
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
  } else if (!strcmp(ca->boundary, "closure")) {
    cfg->periodic = 0;
  } else {
    cli_error("converge: --boundary must be periodic or closure, got '%s'", ca->boundary);
    return -1;
  }
  if (!ca->function)
    ca->function = cfg->periodic ? "sin" : "polyexp";
  cfg->function = tl_converge_function_find(ca->function);
  if (!cfg->function) {
    cli_error("converge: --function must be sin, expsin or polyexp, got '%s'", ca->function);
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
          cfg->periodic ? "periodic" : "3rd-order closures", cfg->function->formula,
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
}

static void csv_field(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static int write_csv(const char *path, const tl_converge_config *cfg, const tl_converge_row *rows,
                     size_t count)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    cli_error("cannot write %s", path);
    return -1;
  }
  fprintf(f, "scheme,boundary,function,wavenumber,length,algo,parts,n,h,err_max,err_l2,"
             "order_max,order_l2,solver_diff,dropped,status,note\n");
  double L = cfg->length > 0.0 ? cfg->length : 2.0 * acos(-1.0);
  for (size_t r = 0; r < count; r++) {
    const tl_converge_row *w = &rows[r];
    fprintf(f, "%s,%s,%s,%.17g,%.17g,%s,%d,%zu,%.17g,%.9e,%.9e,%.6f,%.6f,%.6e,%.6e,%s,",
            cfg->scheme->name, cfg->periodic ? "periodic" : "closure", cfg->function->name,
            cfg->wavenumber, L, cfg->algo->name, cfg->opt ? cfg->opt->parts : 1, w->n, w->h,
            w->err_max, w->err_l2, w->order_max, w->order_l2, w->solver_diff, w->dropped,
            tl_status_name(w->status));
    csv_field(f, w->note);
    fputc('\n', f);
  }
  if (fclose(f) != 0) {
    cli_error("cannot write %s", path);
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- */
/* The plot: FILE.dat + FILE.gp beside FILE.png, then gnuplot        */

/* A value for the .dat file: gnuplot reads "?" as missing. */
static void dat_value(FILE *f, double v)
{
  if (isfinite(v))
    fprintf(f, " %.9e", v);
  else
    fputs(" ?", f);
}

/* A gnuplot single-quoted string ('' stands for one quote). */
static void gp_string(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    fputc(*s, f);
  }
  fputc('\'', f);
}

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Is `prog` an executable file in a directory of $PATH? */
static int in_path(const char *prog)
{
  const char *path = getenv("PATH");
  if (!path)
    return 0;
  char buf[4096];
  while (*path) {
    size_t len = strcspn(path, ":");
    int w = snprintf(buf, sizeof buf, "%.*s%s%s", (int)len, path, len ? "/" : "./", prog);
    if (w > 0 && (size_t)w < sizeof buf && access(buf, X_OK) == 0)
      return 1;
    path += len;
    if (*path == ':')
      path++;
  }
  return 0;
}

/* Run `gnuplot SCRIPT` inside DIR; its exit status, or -1. */
static int run_gnuplot(const char *dir, const char *script)
{
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    if (chdir(dir) != 0)
      _exit(127);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
    return -1;
  return WEXITSTATUS(st);
}

static int write_dat(const char *path, const tl_converge_config *cfg, const tl_converge_row *rows,
                     size_t count)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    cli_error("cannot write %s", path);
    return -1;
  }
  fprintf(f, "# tridlab converge: scheme %s, %s, u = %s, k = %g, algo %s, P = %d\n",
          cfg->scheme->name, cfg->periodic ? "periodic" : "closure", cfg->function->formula,
          cfg->wavenumber, cfg->algo->name, cfg->opt ? cfg->opt->parts : 1);
  fprintf(f, "# n h err_max err_l2 order_max order_l2 solver_diff status\n");
  for (size_t r = 0; r < count; r++) {
    fprintf(f, "%zu", rows[r].n);
    dat_value(f, rows[r].h);
    dat_value(f, rows[r].err_max);
    dat_value(f, rows[r].err_l2);
    dat_value(f, rows[r].order_max);
    dat_value(f, rows[r].order_l2);
    dat_value(f, rows[r].solver_diff);
    fprintf(f, " %s\n", tl_status_name(rows[r].status));
  }
  if (fclose(f) != 0) {
    cli_error("cannot write %s", path);
    return -1;
  }
  return 0;
}

/* The script refers to its files by their names alone, so it runs in
 * (and can be rerun from) the directory that holds them. */
static int write_gp(const char *path, const char *dat, const char *png,
                    const tl_converge_config *cfg, const tl_converge_row *rows, size_t count)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    cli_error("cannot write %s", path);
    return -1;
  }
  /* Reference slopes C n^-p through the first row with a finite error;
   * the ranges fit the data, not the reference lines. */
  double n0 = 0.0, e0 = 0.0, lo = INFINITY, hi = 0.0;
  for (size_t r = 0; r < count; r++) {
    double v[3] = {rows[r].err_max, rows[r].err_l2, rows[r].solver_diff};
    for (int k = 0; k < 3; k++)
      if (isfinite(v[k]) && v[k] > 0.0) {
        lo = fmin(lo, v[k]);
        hi = fmax(hi, v[k]);
      }
    if (n0 == 0.0 && isfinite(rows[r].err_max) && rows[r].err_max > 0.0) {
      n0 = (double)rows[r].n;
      e0 = rows[r].err_max;
    }
  }
  fprintf(f, "# tridlab converge: run 'gnuplot %s' in this directory\n", base_name(path));
  fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
             "  set terminal pngcairo enhanced size 900,650\n"
             "} else {\n"
             "  set terminal png enhanced size 900,650\n"
             "}\n");
  fputs("set output ", f);
  gp_string(f, png);
  fputc('\n', f);
  fprintf(f, "set title \"%s, %s, u = %s (k = %g), solver %s, P = %d\" noenhanced\n",
          cfg->scheme->name, cfg->periodic ? "periodic" : "closures", cfg->function->formula,
          cfg->wavenumber, cfg->algo->name, cfg->opt ? cfg->opt->parts : 1);
  fprintf(f, "set logscale xy\nset format y '10^{%%L}'\nset xlabel 'n'\nset ylabel 'error'\n"
             "set grid\nset key outside right\nset datafile missing '?'\n");
  if (count)
    fprintf(f, "set xrange [%g:%g]\n", (double)rows[0].n / 1.4, (double)rows[count - 1].n * 1.4);
  if (hi > 0.0)
    fprintf(f, "set yrange [%.3e:%.3e]\n", lo / 10.0, hi * 10.0);
  fputs("plot ", f);
  gp_string(f, dat);
  fputs(" using 1:3 with linespoints pt 7 lw 2 lc rgb '#1f4e9c' title 'max error', \\\n     ", f);
  gp_string(f, dat);
  fputs(" using 1:4 with linespoints pt 5 lw 2 lc rgb '#2a9d3a' title 'L2 error', \\\n     ", f);
  gp_string(f, dat);
  fputs(" using 1:($7 > 0 ? $7 : NaN) with points pt 6 lc rgb '#7f7f7f' "
        "title 'solver vs LAPACK'",
        f);
  if (n0 > 0.0) {
    static const int slopes[3] = {4, 6, 3};
    static const char *const colors[3] = {"#d62728", "#9467bd", "#e69f00"};
    int nslopes = cfg->periodic ? 2 : 3;
    for (int k = 0; k < nslopes; k++)
      fprintf(f,
              ", \\\n     %.9e * x**(-%d) with lines dt 2 lw 1.5 lc rgb '%s' "
              "title 'n^{-%d}'",
              e0 * pow(n0, slopes[k]), slopes[k], colors[k], slopes[k]);
  }
  fputc('\n', f);
  if (fclose(f) != 0) {
    cli_error("cannot write %s", path);
    return -1;
  }
  return 0;
}

static int make_plot(const char *png, const tl_converge_config *cfg, const tl_converge_row *rows,
                     size_t count)
{
  size_t len = strlen(png);
  size_t stem = len > 4 && !strcmp(png + len - 4, ".png") ? len - 4 : len;
  char *dat = malloc(stem + 5), *gp = malloc(stem + 5), *dir = malloc(len + 2);
  int rc = -1;
  if (!dat || !gp || !dir) {
    cli_error("out of memory");
    goto done;
  }
  snprintf(dat, stem + 5, "%.*s.dat", (int)stem, png);
  snprintf(gp, stem + 5, "%.*s.gp", (int)stem, png);
  const char *slash = strrchr(png, '/');
  if (slash)
    snprintf(dir, len + 2, "%.*s", slash == png ? 1 : (int)(slash - png), png);
  else
    snprintf(dir, len + 2, ".");
  if (write_dat(dat, cfg, rows, count) ||
      write_gp(gp, base_name(dat), base_name(png), cfg, rows, count))
    goto done;
  rc = 0;
  if (!in_path("gnuplot")) {
    fprintf(stderr,
            "tridlab: gnuplot is not installed: no plot made; wrote %s and %s (run 'gnuplot %s' "
            "in %s to make %s)\n",
            dat, gp, base_name(gp), dir, base_name(png));
    goto done;
  }
  int st = run_gnuplot(dir, base_name(gp));
  if (st != 0) {
    fprintf(stderr, "tridlab: gnuplot failed on %s (exit status %d): no plot made\n", gp, st);
    goto done;
  }
  if (access(png, R_OK) != 0)
    fprintf(stderr, "tridlab: gnuplot ran but %s was not written\n", png);
done:
  free(dat);
  free(gp);
  free(dir);
  return rc;
}

/* ---------------------------------------------------------------- */

typedef struct progress {
  int on;
} progress;

static void on_row(const tl_converge_row *row, size_t index, size_t count, void *ctx)
{
  const progress *p = ctx;
  if (p->on)
    fprintf(stderr, "\rconverge: n = %zu (%zu/%zu)", row->n, index + 1, count);
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
  progress pr = {isatty(STDERR_FILENO)};
  cfg.on_row = on_row;
  cfg.ctx = &pr;
  size_t count = 0;
  tl_info info;
  int st = tl_converge_run(&cfg, rows, cap, &count, &info);
  if (pr.on)
    fprintf(stderr, "\r%60s\r", "");
  int rc = EXIT_SOLVED;
  if (st < 0) {
    cli_error("converge: %s", info.msg);
    rc = EXIT_BAD_INPUT;
    goto done;
  }
  print_table(stdout, &cfg, rows, count);
  if (ca.csv && write_csv(ca.csv, &cfg, rows, count))
    rc = EXIT_BAD_INPUT;
  if (ca.plot && make_plot(ca.plot, &cfg, rows, count))
    rc = EXIT_BAD_INPUT;
done:
  free(rows);
  return rc;
}
