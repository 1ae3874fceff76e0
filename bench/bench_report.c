/* bench/bench_report.c -- what the benchmark library reports: the CSV
 * rows, the table of targets (docs/performance.md) and the gnuplot files
 * of time per unknown against n (paper 000 Figure 12). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/bench.h"
#include "tridlab/study.h"

void tl_bench_csv_header(FILE *f)
{
  fprintf(f, "kernel,n,dir,precision,threads,sz,nsys,words_per_unknown,time_s,ns_per_unknown,"
             "gbs,copy_gbs,copy_ratio,limit_gbs,limit_ratio,speedup_ref,speedup_gtsv\n");
}

void tl_bench_csv_row(FILE *f, const tl_bench_row *w)
{
  double unknowns = (double)w->n * (double)w->nsys;
  fprintf(f, "%s,%zu,%c,%s,%zu,%zu,%zu,%g,%.6g,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f,", w->kernel, w->n,
          w->dir, w->fl ? "float" : "double", w->threads, w->sz, w->nsys, w->words, w->t,
          1e9 * w->t / unknowns, w->gbs, w->copy, w->gbs / w->copy, w->limit_gbs, w->limit_ratio);
  if (isnan(w->speedup_ref))
    fprintf(f, ",");
  else
    fprintf(f, "%.2f,", w->speedup_ref);
  if (isnan(w->speedup_gtsv))
    fprintf(f, "\n");
  else
    fprintf(f, "%.2f\n", w->speedup_gtsv);
  fflush(f);
}

/* Median over the rows that match, of a field; NaN if none. */
static double median_of(const tl_bench_results *res, const char *kname, char dir, int fl,
                        size_t threads, size_t nmin, size_t nmax, int field)
{
  double v[TL_BENCH_MAX_REPS * 4];
  long k = 0;
  for (size_t i = 0; i < res->count && k < (long)(sizeof v / sizeof v[0]); i++) {
    const tl_bench_row *w = &res->rows[i];
    if (strcmp(w->kernel, kname) || w->dir != dir || w->fl != fl || w->threads != threads ||
        w->n < nmin || w->n > nmax)
      continue;
    v[k++] = field == 0 ? w->limit_ratio : field == 1 ? w->speedup_gtsv : w->t;
  }
  return tl_bench_median(v, (size_t)k);
}

/* The time along x over the time along y and z, median over n. */
static double x_over(const tl_bench_results *res, char other, size_t threads, size_t lo, size_t hi)
{
  double v[TL_BENCH_MAX_LIST];
  long k = 0;
  for (size_t i = 0; i < res->count; i++) {
    const tl_bench_row *w = &res->rows[i];
    if (strcmp(w->kernel, "thomas_3d") || w->dir != 'x' || w->fl || w->threads != threads ||
        w->n < lo || w->n > hi || k == TL_BENCH_MAX_LIST)
      continue;
    for (size_t j = 0; j < res->count; j++) {
      const tl_bench_row *o = &res->rows[j];
      if (!strcmp(o->kernel, "thomas_3d") && o->dir == other && !o->fl && o->threads == threads &&
          o->n == w->n && o->sz == w->sz)
        v[k++] = w->t / o->t;
    }
  }
  return tl_bench_median(v, (size_t)k);
}

/* One line of the targets: its label, the target, a value per thread
 * count. Returns 1. */
static int print_target(FILE *f, const char *label, const char *want, const double *v,
                        size_t nthreads)
{
  fprintf(f, "  %-44s %8s", label, want);
  for (size_t t = 0; t < nthreads; t++)
    fprintf(f, "  %6.2f", v[t]);
  fputc('\n', f);
  return 1;
}

void tl_bench_summary(FILE *f, const tl_bench_results *res, const tl_bench_config *o)
{
  /* n = 256..4096 when measured, else every n. */
  size_t lo = 256, hi = 4096, inside = 0;
  for (size_t i = 0; i < res->count; i++)
    inside += res->rows[i].n >= lo && res->rows[i].n <= hi;
  if (!inside)
    lo = 0, hi = (size_t)-1;
  fprintf(f, "\nTargets (double, medians over n = %zu..%zu):\n", inside ? lo : o->sizes[0],
          inside ? hi : o->sizes[o->nsizes - 1]);
  fprintf(f, "  %-44s %8s", "", "");
  for (size_t t = 0; t < o->nthreads; t++)
    fprintf(f, "  %zu thr%s", o->threads[t], o->threads[t] > 1 ? "s" : " ");
  fputc('\n', f);
  static const struct {
    const char *label, *kernel;
    char dir;
    int field;
    const char *want;
  } lines[] = {
      {"thomas_sz limit_ratio", "thomas_sz", '-', 0, ">= 0.85"},
      {"compact_sz limit_ratio", "compact_sz", '-', 0, ">= 0.80"},
      {"thomas_sz speed-up over DGTSV loop", "thomas_sz", '-', 1, ">= 15"},
      {"thomas_3d x limit_ratio", "thomas_3d", 'x', 0, ">= 0.85"},
      {"thomas_3d y limit_ratio", "thomas_3d", 'y', 0, ">= 0.80"},
      {"thomas_3d z limit_ratio", "thomas_3d", 'z', 0, ">= 0.80"},
      {"thomas_cpu (tl_solve) limit_ratio", "thomas_cpu", '-', 0, ">= 0.80"},
      {"thomas_periodic_cpu (tl_solve) limit_ratio", "thomas_periodic_cpu", '-', 0, ">= 0.80"}};
  /* Only the targets of the kernels this run measured: a row of "nan"
   * says nothing. */
  int shown = 0;
  double v[TL_BENCH_MAX_LIST];
  for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
    int measured = 0;
    for (size_t t = 0; t < o->nthreads; t++) {
      v[t] = median_of(res, lines[l].kernel, lines[l].dir, 0, o->threads[t], lo, hi,
                       lines[l].field);
      measured |= !isnan(v[t]);
    }
    if (measured)
      shown += print_target(f, lines[l].label, lines[l].want, v, o->nthreads);
  }
  for (int k = 0; k < 2; k++) {
    char other = k ? 'z' : 'y';
    int measured = 0;
    for (size_t t = 0; t < o->nthreads; t++)
      measured |= !isnan(v[t] = x_over(res, other, o->threads[t], lo, hi));
    if (measured)
      shown += print_target(f, k ? "thomas_3d time x / time z" : "thomas_3d time x / time y",
                            "<= 1.2", v, o->nthreads);
  }
  if (!shown)
    fprintf(f, "  (none of the kernels run has a target)\n");
}

/* The largest time per unknown over the smallest among the rows of one
 * thread count (those the plot draws: double precision), 1 when none. */
static double time_span(const tl_bench_results *res, size_t threads)
{
  double lo = INFINITY, hi = 0;
  for (size_t i = 0; i < res->count; i++) {
    const tl_bench_row *w = &res->rows[i];
    double unknowns = (double)w->n * (double)w->nsys;
    for (int k = 0; k < 2 && !w->fl && w->threads == threads; k++) {
      double t = 1e9 * (k ? w->t_limit : w->t) / unknowns;
      if (t > 0 && isfinite(t)) {
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
      }
    }
  }
  return hi > 0 ? hi / lo : 1;
}

/* The data blocks (one per series that has rows) into fd and the plot
 * commands into fg: one panel for the first thread count, one for the
 * last. A panel whose times span more than a factor 10 (a naive kernel
 * beside its limit) gets a log y axis: on a linear one the fast lines
 * would lie flat on zero. */
static void write_series(FILE *fd, FILE *fg, const char *dat, const char *png,
                         const tl_bench_results *res, const tl_bench_config *o)
{
  static const struct {
    const char *kernel;
    char dir;
    int limit; /* 1: the kernel's streaming limit, not the kernel */
    const char *title, *style;
  } series[] = {
      {"thomas_sz", '-', 0, "Thomas, SZ-packed", "lw 2 lc rgb '#1f4e9c' pt 7"},
      {"thomas_sz", '-', 1, "limit of Thomas: read a b c, read-write d",
       "dt 2 lw 2 lc rgb 'black' pt 0"},
      {"thomas_3d", 'x', 0, "Thomas x, reordered in cache", "lc rgb '#2ca02c' pt 5"},
      {"thomas_3d", 'y', 0, "Thomas y", "lc rgb '#17becf' pt 9"},
      {"thomas_3d", 'z', 0, "Thomas z", "lc rgb '#9467bd' pt 11"},
      {"thomas_3d_naive", 'x', 0, "Thomas x, no reordering", "dt 3 lc rgb '#2ca02c' pt 4"},
      {"thomas_3d_naive", 'z', 0, "Thomas z, no reordering", "dt 3 lc rgb '#9467bd' pt 10"},
      {"thomas_periodic_sz", '-', 0, "periodic Thomas, SZ-packed", "lc rgb '#d62728' pt 13"},
      {"compact_sz", '-', 0, "compact 6th order, fused (2 words)", "lw 2 lc rgb '#ff7f0e' pt 7"},
      {"compact_sz", '-', 1, "limit of compact: read u, write du",
       "dt 2 lw 2 lc rgb '#ff7f0e' pt 0"}};
  size_t tsel[2] = {o->threads[0], o->threads[o->nthreads - 1]};
  int panels = o->nthreads > 1 ? 2 : 1, block = 0;
  fprintf(fg,
          "# gnuplot script written by tridlab bench: normalised time per unknown\n"
          "set terminal pngcairo size 1400,600 font ',10'\n"
          "set output '%s'\n"
          "set multiplot layout 1,%d\n"
          "set logscale x 2\nset xlabel 'n (rows per system)'\n"
          "set ylabel 'time per unknown (ns), double'\nset key top left font ',8'\n"
          "set grid\n",
          png, panels);
  for (int p = 0; p < panels; p++) {
    if (time_span(res, tsel[p]) > 10)
      fputs("set logscale y\nset yrange [*:*]\n", fg);
    else
      fputs("unset logscale y\nset yrange [0:*]\n", fg);
    fprintf(fg, "set title '%zu thread%s'\nplot ", tsel[p], tsel[p] > 1 ? "s" : "");
    int first = 1;
    for (size_t s = 0; s < sizeof series / sizeof series[0]; s++) {
      int any = 0;
      for (size_t i = 0; i < res->count; i++) {
        const tl_bench_row *w = &res->rows[i];
        if (strcmp(w->kernel, series[s].kernel) || w->dir != series[s].dir || w->fl ||
            w->threads != tsel[p])
          continue;
        double unknowns = (double)w->n * (double)w->nsys;
        fprintf(fd, "%zu %.5f\n", w->n, 1e9 * (series[s].limit ? w->t_limit : w->t) / unknowns);
        any = 1;
      }
      if (!any)
        continue;
      fprintf(fd, "\n\n");
      fprintf(fg, "%s'%s' index %d with linespoints %s title '%s'", first ? "" : ", \\\n     ", dat,
              block++, series[s].style, series[s].title);
      first = 0;
    }
    fprintf(fg, "%s\n", first ? "0 notitle" : "");
  }
}

/* PREFIX.dat: one block per series (gnuplot `index`), PREFIX.gp, and
 * PREFIX.png when gnuplot runs. */
int tl_bench_plot(const char *prefix, const tl_bench_results *res, const tl_bench_config *o,
                  int *png_status, tl_info *png_info, tl_info *info)
{
  /* The script names its files relative to its own directory, as the
   * report's scripts do: `gnuplot NAME.gp` run there remakes the plot. */
  *png_status = TL_ERR_UNSUPPORTED;
  const char *slash = strrchr(prefix, '/');
  const char *base = slash ? slash + 1 : prefix;
  size_t dlen = slash ? (size_t)(slash - prefix) : 0;
  size_t len = strlen(prefix) + 8;
  char *dir = malloc(dlen + 2), *dat = malloc(len), *gp = malloc(len), *png = malloc(len);
  if (!dir || !dat || !gp || !png) {
    free(dir), free(dat), free(gp), free(png);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "out of memory");
  }
  if (slash)
    snprintf(dir, dlen + 2, "%.*s", (int)(dlen ? dlen : 1), dlen ? prefix : "/");
  else
    snprintf(dir, 2, ".");
  snprintf(dat, len, "%s.dat", prefix);
  snprintf(gp, len, "%s.gp", prefix);
  snprintf(png, len, "%s.png", prefix);
  FILE *fd = fopen(dat, "w"), *fg = fopen(gp, "w");
  if (!fd || !fg) {
    TL_FAIL(info, TL_ERR_IO, -1, -1, "prefix", "cannot write %s / %s", dat, gp);
    if (fd)
      fclose(fd);
    if (fg)
      fclose(fg);
    free(dir), free(dat), free(gp), free(png);
    return TL_ERR_IO;
  }
  /* From here on: names inside dir. */
  snprintf(dat, len, "%s.dat", base);
  snprintf(gp, len, "%s.gp", base);
  snprintf(png, len, "%s.png", base);
  write_series(fd, fg, dat, png, res, o);
  fprintf(fg, "unset multiplot\n");
  int bad = fclose(fd) != 0;
  bad |= fclose(fg) != 0;
  int st = TL_OK;
  if (bad)
    st = TL_FAIL(info, TL_ERR_IO, -1, -1, "prefix", "cannot write %s.dat / %s.gp", prefix, prefix);
  else
    *png_status = tl_gnuplot_make(dir, gp, png, png_info);
  free(dir), free(dat), free(gp), free(png);
  return st;
}
