/* convergence/output.c -- the files the studies write: the output
 * directory, CSV fields, gnuplot data and scripts, running gnuplot, and
 * a convergence study's CSV, data and script (tridlab/study.h). Nothing
 * here prints: failures are statuses with a message in tl_info, and
 * gnuplot's own output is captured. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tridlab/backend.h"
#include "tridlab/study.h"

int tl_out_mkdir(const char *dir, tl_info *info)
{
  char path[4096];
  int w = snprintf(path, sizeof path, "%s", dir);
  if (w <= 0 || (size_t)w >= sizeof path)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "out", "output directory name too long: %s", dir);
  /* Create each component in turn, as mkdir -p does. */
  for (char *p = path + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char keep = *p;
      *p = '\0';
      if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return TL_FAIL(info, TL_ERR_IO, -1, -1, "out", "cannot create directory %s: %s", path,
                       strerror(errno));
      *p = keep;
      if (keep == '\0')
        break;
    }
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "out", "%s is not a directory", dir);
  return TL_OK;
}

static int join(char *buf, size_t size, const char *dir, const char *name)
{
  int w = snprintf(buf, size, "%s/%s", dir, name);
  return w > 0 && (size_t)w < size ? 0 : -1;
}

FILE *tl_out_open(const char *dir, const char *name, tl_info *info)
{
  char path[4096];
  FILE *f = NULL;
  if (join(path, sizeof path, dir, name) == 0)
    f = fopen(path, "w");
  if (!f)
    TL_FAIL(info, TL_ERR_IO, -1, -1, "out", "cannot write %s/%s", dir, name);
  return f;
}

int tl_out_close(FILE *f, const char *dir, const char *name, tl_info *info)
{
  if (fclose(f) != 0)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "out", "cannot write %s/%s", dir, name);
  return TL_OK;
}

int tl_out_exists(const char *dir, const char *name)
{
  char path[4096];
  return join(path, sizeof path, dir, name) == 0 && access(path, R_OK) == 0;
}

void tl_csv_num(FILE *f, double v)
{
  if (isnan(v))
    fputs("nan", f);
  else if (isinf(v))
    fputs(v > 0 ? "inf" : "-inf", f);
  else
    fprintf(f, "%.9e", v);
}

/* s quoted with `q`, a quote inside doubled (CSV and gnuplot alike). */
static void quoted(FILE *f, const char *s, char q)
{
  fputc(q, f);
  for (; *s; s++) {
    if (*s == q)
      fputc(q, f);
    fputc(*s, f);
  }
  fputc(q, f);
}

void tl_csv_str(FILE *f, const char *s)
{
  quoted(f, s, '"');
}

void tl_csv_row_end(FILE *f, const double *v, size_t count, int status, const char *note)
{
  for (size_t k = 0; k < count; k++) {
    tl_csv_num(f, v[k]);
    fputc(',', f);
  }
  fprintf(f, "%s,", tl_status_name(status));
  tl_csv_str(f, note);
  fputc('\n', f);
}

void tl_dat_num(FILE *f, double v, int logscale)
{
  if (!isfinite(v) || (logscale && !(v > 0.0)))
    fputs(" ?", f);
  else
    fprintf(f, " %.9e", v);
}

void tl_gp_str(FILE *f, const char *s)
{
  quoted(f, s, '\'');
}

void tl_gp_begin(FILE *f, const char *png, int width, int height)
{
  fprintf(f,
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo enhanced size %d,%d\n"
          "} else {\n"
          "  set terminal png enhanced size %d,%d\n"
          "}\n",
          width, height, width, height);
  fputs("set output ", f);
  tl_gp_str(f, png);
  fputs("\nset datafile missing '?'\nset grid\n", f);
}

int tl_gnuplot_found(void)
{
  const char *path = getenv("PATH");
  if (!path)
    return 0;
  char buf[4096];
  while (*path) {
    size_t len = strcspn(path, ":");
    int w = snprintf(buf, sizeof buf, "%.*s%sgnuplot", (int)len, path, len ? "/" : "./");
    if (w > 0 && (size_t)w < sizeof buf && access(buf, X_OK) == 0)
      return 1;
    path += len;
    if (*path == ':')
      path++;
  }
  return 0;
}

/* The last non-empty line of what gnuplot said, into line. */
static void last_line(const char *text, char *line, size_t size)
{
  size_t len = strlen(text);
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    len--;
  size_t start = len;
  while (start > 0 && text[start - 1] != '\n')
    start--;
  snprintf(line, size, "%.*s", (int)(len - start), text + start);
}

int tl_gnuplot_make(const char *dir, const char *script, const char *png, tl_info *info)
{
  if (!tl_gnuplot_found())
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "gnuplot",
                   "gnuplot is not installed: %s/%s not made (run 'gnuplot %s' in %s)", dir, png,
                   script, dir);
  int fd[2];
  if (pipe(fd) != 0)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "gnuplot", "cannot run gnuplot: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "gnuplot", "cannot run gnuplot: %s", strerror(errno));
  }
  if (pid == 0) {
    /* gnuplot's messages go into the pipe; the script names its files
     * relative to the directory. */
    close(fd[0]);
    dup2(fd[1], STDOUT_FILENO);
    dup2(fd[1], STDERR_FILENO);
    close(fd[1]);
    if (chdir(dir) != 0)
      _exit(127);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  /* Keep the end of what it says (its last message explains a failure). */
  char said[2048] = "";
  size_t len = 0;
  char chunk[512];
  ssize_t got;
  while ((got = read(fd[0], chunk, sizeof chunk)) != 0) {
    if (got < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (len + (size_t)got >= sizeof said) {
      size_t drop = len + (size_t)got - (sizeof said - 1);
      drop = drop > len ? len : drop;
      memmove(said, said + drop, len - drop);
      len -= drop;
    }
    size_t take = (size_t)got < sizeof said - 1 - len ? (size_t)got : sizeof said - 1 - len;
    memcpy(said + len, chunk + (size_t)got - take, take);
    len += take;
    said[len] = '\0';
  }
  close(fd[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      return TL_FAIL(info, TL_ERR_IO, -1, -1, "gnuplot", "gnuplot failed on %s/%s: no plot made",
                     dir, script);
  char line[160];
  last_line(said, line, sizeof line);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "gnuplot", "gnuplot failed on %s/%s: no plot made%s%s",
                   dir, script, line[0] ? ": " : "", line);
  if (!tl_out_exists(dir, png))
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "gnuplot", "gnuplot ran but %s/%s was not written", dir,
                   png);
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* A convergence study's CSV, data and script                          */

static double domain_length(const tl_converge_config *cfg)
{
  return cfg->length > 0.0 ? cfg->length : 2.0 * acos(-1.0);
}

/* "periodic", or the name of the closure family. */
static const char *boundary_name(const tl_converge_config *cfg)
{
  const tl_compact_closure *cl = tl_compact_closure_resolve(cfg->scheme, cfg->closure);
  return cfg->periodic ? "periodic" : cl ? cl->name : "?";
}

/* P of a row: fixed, or n / m for a fixed-m series (as
 * tl_sweep_converge_fixed_m chooses it). */
static int series_parts(const tl_converge_series *s, size_t n)
{
  if (!s->fixed_m)
    return s->cfg->opt && s->cfg->opt->parts > 0 ? s->cfg->opt->parts : 1;
  size_t P = n / s->fixed_m;
  return P < 1 ? 1 : P > TL_MAX_PARTS ? TL_MAX_PARTS : (int)P;
}

void tl_converge_csv(FILE *f, const tl_converge_series *series, size_t ns, int series_column)
{
  fprintf(f,
          "%sscheme,boundary,function,wavenumber,length,algo,parts,n,h,err_max,err_l2,"
          "order_max,order_l2,solver_diff,dropped,status,note\n",
          series_column ? "series," : "");
  for (size_t s = 0; s < ns; s++) {
    const tl_converge_series *se = &series[s];
    const tl_converge_config *cfg = se->cfg;
    for (size_t r = 0; r < se->count; r++) {
      const tl_converge_row *w = &se->rows[r];
      if (series_column) {
        tl_csv_str(f, se->label ? se->label : "");
        fputc(',', f);
      }
      fprintf(f, "%s,%s,%s,%.17g,%.17g,%s,%d,%zu,%.17g,", cfg->scheme->name, boundary_name(cfg),
              cfg->function->name, cfg->wavenumber, domain_length(cfg), cfg->algo->name,
              series_parts(se, w->n), w->n, w->h);
      double v[6] = {w->err_max, w->err_l2, w->order_max, w->order_l2, w->solver_diff, w->dropped};
      tl_csv_row_end(f, v, 6, w->status, w->note);
    }
  }
}

static const char *const palette[] = {"#1f4e9c", "#d62728", "#2a9d3a", "#9467bd",
                                      "#e69f00", "#17becf", "#8c564b", "#7f7f7f"};
#define NPALETTE (sizeof palette / sizeof palette[0])

static int write_dat(const char *dir, const char *dat, const tl_converge_series *series, size_t ns,
                     const tl_converge_plot *plot, tl_info *info)
{
  FILE *d = tl_out_open(dir, dat, info);
  if (!d)
    return TL_ERR_IO;
  fprintf(d, "# %s\n", plot->title);
  for (size_t s = 0; s < ns; s++) {
    const tl_converge_series *se = &series[s];
    fprintf(d, "%s# %s%sn h err_max err_l2 order_max order_l2 solver_diff status\n",
            s ? "\n\n" : "", se->label ? se->label : "", se->label ? ": " : "");
    for (size_t r = 0; r < se->count; r++) {
      const tl_converge_row *w = &se->rows[r];
      fprintf(d, "%zu", w->n);
      tl_dat_num(d, w->h, 0);
      tl_dat_num(d, w->err_max, 1);
      tl_dat_num(d, w->err_l2, 1);
      tl_dat_num(d, w->order_max, 0);
      tl_dat_num(d, w->order_l2, 0);
      tl_dat_num(d, w->solver_diff, 1);
      fprintf(d, " %s\n", tl_status_name(w->status));
    }
  }
  return tl_out_close(d, dir, dat, info);
}

int tl_converge_plot_write(const char *dir, const char *stem, const char *png,
                           const tl_converge_series *series, size_t ns,
                           const tl_converge_plot *plot, tl_info *info)
{
  tl_info_clear(info);
  if (!dir || !stem || !series || !ns || !plot || !series[0].count)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "series", "nothing to plot");
  char dat[512], gp[512], pngbuf[512];
  snprintf(dat, sizeof dat, "%s.dat", stem);
  snprintf(gp, sizeof gp, "%s.gp", stem);
  if (!png) {
    snprintf(pngbuf, sizeof pngbuf, "%s.png", stem);
    png = pngbuf;
  }
  TL_CALL(write_dat(dir, dat, series, ns, plot, info));

  /* The ranges fit the data, not the reference lines; the slopes go
   * through the first series' first point. */
  double n0 = 0.0, e0 = 0.0, lo = INFINITY, hi = 0.0;
  for (size_t s = 0; s < ns; s++)
    for (size_t r = 0; r < series[s].count; r++) {
      const tl_converge_row *w = &series[s].rows[r];
      double v[3] = {w->err_max, w->err_l2, w->solver_diff};
      for (int k = 0; k < (plot->all_errors ? 3 : 1); k++)
        if (isfinite(v[k]) && v[k] > 0.0) {
          lo = fmin(lo, v[k]);
          hi = fmax(hi, v[k]);
        }
      if (s == 0 && n0 == 0.0 && isfinite(w->err_max) && w->err_max > 0.0) {
        n0 = (double)w->n;
        e0 = w->err_max;
      }
    }
  FILE *g = tl_out_open(dir, gp, info);
  if (!g)
    return TL_ERR_IO;
  fprintf(g, "# %s: run 'gnuplot %s' in this directory to remake %s\n",
          plot->origin ? plot->origin : "tridlab", gp, png);
  tl_gp_begin(g, png, plot->width, plot->height);
  fprintf(g, "set title \"%s\" noenhanced\n", plot->title);
  fprintf(g, "set logscale xy\nset format y '10^{%%L}'\nset xlabel 'n'\n");
  if (plot->all_errors)
    fprintf(g, "set ylabel 'error'\nset key outside right\n");
  else
    fprintf(g, "set ylabel 'max error against the analytic derivative'\nset key below maxrows 3\n");
  fprintf(g, "set xrange [%g:%g]\n", (double)series[0].rows[0].n / 1.4,
          (double)series[0].rows[series[0].count - 1].n * 1.4);
  if (hi > 0.0)
    fprintf(g, "set yrange [%.3e:%.3e]\n", lo / 10.0, hi * 10.0);
  fputs("plot ", g);
  for (size_t s = 0; s < ns; s++) {
    const char *label = series[s].label ? series[s].label : "";
    const char *sep = s ? ", \\\n     " : "";
    if (plot->all_errors) {
      fprintf(g,
              "%s'%s' index %zu using 1:3 with linespoints pt 7 lw 2 lc rgb '%s' title '%smax "
              "error', \\\n     '' index %zu using 1:4 with linespoints pt 5 lw 2 lc rgb '%s' "
              "title '%sL2 error', \\\n     '' index %zu using 1:7 with points pt 6 lc rgb "
              "'#7f7f7f' title '%ssolver vs LAPACK'",
              sep, dat, s, palette[(2 * s) % NPALETTE], label, s, palette[(2 * s + 2) % NPALETTE],
              label, s, label);
    } else {
      /* Later series dashed and with open markers, so that series lying
       * on top of each other stay visible. */
      fprintf(g,
              "%s'%s' index %zu using 1:3 with linespoints pt %d ps %.1f lw 2 dt %d lc rgb '%s' "
              "title '%s' noenhanced",
              sep, dat, s, s ? 4 + 2 * (int)s : 7, s ? 1.6 : 1.0, s ? (int)s + 1 : 1,
              palette[s % NPALETTE], label);
    }
  }
  static const char *const slope_colors[] = {"#d62728", "#9467bd", "#e69f00", "#17becf"};
  for (int k = 0; k < 4 && plot->slopes[k] && n0 > 0; k++) {
    int p = plot->slopes[k];
    if (plot->all_errors)
      fprintf(g, ", \\\n     %.9e * x**(-%d) with lines dt 2 lw 1.5 lc rgb '%s' title 'n^{-%d}'",
              e0 * pow(n0, p), p, slope_colors[k], p);
    else
      fprintf(g, ", \\\n     %.9e * x**(-%d) with lines dt 3 lw 1 lc rgb 'black' title 'n^{-%d}'",
              e0 * pow(n0, p), p, p);
  }
  fputc('\n', g);
  return tl_out_close(g, dir, gp, info);
}
