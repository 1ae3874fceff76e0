/* convergence/trace_plot.c -- one stage of `tridlab trace` drawn with
 * gnuplot (tridlab/trace.h): each non-zero entry of the system as it
 * stands, coloured by log10 of its size, the partitions as lines, the
 * dropped entries circled. The gnuplot room is here, above verify/. */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/study.h"
#include "tridlab/trace.h"

static void write_dat(FILE *f, const tl_trace_stage *st)
{
  fprintf(f, "# column row log10|entry|\n");
  for (size_t i = 0; i < st->n; i++)
    for (size_t j = 0; j < st->n; j++) {
      double v = st->dense[i * st->n + j];
      if (v != 0)
        fprintf(f, "%zu %zu %.6g\n", j, i, log10(fabs(v)));
    }
  fprintf(f, "\n\n# dropped: column row\n");
  for (int k = 0; k < st->ndrop; k++)
    fprintf(f, "%ld %ld\n", st->drop_col[k], st->drop_row[k]);
  if (!st->ndrop)
    fprintf(f, "-10 -10\n"); /* an empty block would stop gnuplot */
}

static void write_gp(FILE *f, const tl_trace_stage *st, const char *dat, const char *png)
{
  tl_gp_begin(f, png, 640, 600);
  char title[160];
  snprintf(title, sizeof title, "stage %d: %s", st->index, st->title);
  fputs("unset grid\nset title ", f);
  tl_gp_str(f, title);
  fprintf(f, "\nset xrange [-0.5:%zu.5]\nset yrange [%zu.5:-0.5]\n", st->n - 1, st->n - 1);
  fputs("set size square\nset cblabel 'log10 |entry|'\nset xlabel 'column'\n"
        "set ylabel 'row'\nset palette rgb 33,13,10\n",
        f);
  for (int p = 1; p < st->parts; p++)
    fprintf(f,
            "set arrow from %zu.0-0.5,-0.5 to %zu.0-0.5,%zu.5 nohead dt 2\n"
            "set arrow from -0.5,%zu.0-0.5 to %zu.5,%zu.0-0.5 nohead dt 2\n",
            st->begin[p], st->begin[p], st->n - 1, st->begin[p], st->n - 1, st->begin[p]);
  fputs("plot ", f);
  tl_gp_str(f, dat);
  fputs(" index 0 using 1:2:3 with points pt 5 ps 2.5 palette notitle, \\\n     ", f);
  tl_gp_str(f, dat);
  fputs(" index 1 using 1:2 with points pt 6 ps 4 lw 2 lc rgb 'black' title 'dropped'\n", f);
}

int tl_trace_plot(const tl_trace_stage *st, const char *prefix, tl_info *info)
{
  char copy[1024], base[1024], stem[1100], dat[1200], gp[1200], png[1200];
  snprintf(copy, sizeof copy, "%s", prefix);
  snprintf(base, sizeof base, "%s", prefix);
  const char *dir = dirname(copy);
  snprintf(stem, sizeof stem, "%s-%02d", basename(base), st->index);
  snprintf(dat, sizeof dat, "%s.dat", stem);
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  FILE *f = tl_out_open(dir, dat, info);
  if (!f)
    return info->status;
  write_dat(f, st);
  TL_CALL(tl_out_close(f, dir, dat, info));
  if (!(f = tl_out_open(dir, gp, info)))
    return info->status;
  write_gp(f, st, dat, png);
  TL_CALL(tl_out_close(f, dir, gp, info));
  return tl_gnuplot_make(dir, gp, png, info);
}
