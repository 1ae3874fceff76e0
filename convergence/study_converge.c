/* convergence/study_converge.c -- the convergence figures of the study
 * table (tridlab/study.h): compact schemes solved by chosen registry
 * algorithms, several series per figure, each series one
 * tl_converge_run (or tl_sweep_converge_fixed_m) study. Each figure
 * writes STEM.csv, STEM.dat, STEM.gp and STEM.png, and returns one
 * Markdown bullet of measured facts per series and the `tridlab converge`
 * command that reproduces each series (docs/report.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study_internal.h"
#include "tridlab/backend.h"
#include "tridlab/tridlab.h"

#define MAX_SERIES 6

typedef struct conv_series {
  const char *label;
  const char *scheme;
  int periodic;
  const char *algo;
  int parts;
  const char *params[2]; /* "key=value" */
  size_t fixed_m;        /* > 0: P = n / m at every n */
} conv_series;

typedef struct conv_figure {
  tl_study pub; /* name, kind, title (summary), what it shows (description) */
  const char *stem;
  const char *function;
  size_t nmin, nmax, nmax_quick;
  int slopes[3];
  conv_series series[MAX_SERIES];
} conv_figure;

#define FIGURE(name, title, what)                                                                  \
  {                                                                                                \
    name, TL_STUDY_CONVERGENCE, title, what, 0                                                     \
  }

static const conv_figure figures[] = {
    {FIGURE("conv-lele6-distd2",
            "Lele's 6th-order scheme, periodic: periodic Thomas and DistD2 on P = 2, 4, 8",
            "The periodic 6th-order first derivative of sin(x) on [0, 2 pi), solved by periodic "
            "Thomas and by DistD2 on 2, 4 and 8 partitions (paper 000 (DistD2-TDS) Fig. 10 does "
            "n = 32 .. 256 on 2). Look for: slope 6 down to the round-off floor near 1e-13; "
            "DistD2 on top of periodic Thomas wherever its partitions are long enough for the "
            "coupling it drops (about 0.38^m for [1/3, 1, 1/3], m rows per partition) to vanish "
            "below eps, and marked outside-domain where they are not."),
     "conv_lele6_distd2",
     "sin",
     16,
     2048,
     512,
     {6, 0, 0},
     {{"thomas_periodic", "lele6", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"distd2, P = 2", "lele6", 1, "distd2", 2, {NULL, NULL}, 0},
      {"distd2, P = 4", "lele6", 1, "distd2", 4, {NULL, NULL}, 0},
      {"distd2, P = 8", "lele6", 1, "distd2", 8, {NULL, NULL}, 0}}},
    {FIGURE("conv-periodic", "The three schemes, periodic, periodic Thomas",
            "Pade 4th order and Lele's 6th-order first derivative and the 6th-order second "
            "derivative of sin(x), periodic. Look for: slopes 4, 6 and 6 until the round-off "
            "floor, which the second derivative (rounding grows like eps / h^2) reaches first."),
     "conv_periodic",
     "sin",
     16,
     2048,
     512,
     {4, 6, 0},
     {{"pade4", "pade4", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"lele6", "lele6", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"d2-6th", "d2-6th", 1, "thomas_periodic", 1, {NULL, NULL}, 0}}},
    {FIGURE("conv-closures", "The three schemes with their one-sided closures, LAPACK gtsv",
            "The same schemes on [0, 2 pi] with both ends, closed by the standard 3rd-order "
            "one-sided rows (docs/convergence.md), on u = (1 + x^2) exp(-x), solved by LAPACK's "
            "pivoted gtsv. Look for: global order 3 in the max norm whatever the interior order: "
            "the closure rows set it."),
     "conv_closures",
     "polyexp",
     16,
     4096,
     1024,
     {3, 0, 0},
     {{"pade4", "pade4", 0, "gtsv", 1, {NULL, NULL}, 0},
      {"lele6", "lele6", 0, "gtsv", 1, {NULL, NULL}, 0},
      {"d2-6th", "d2-6th", 0, "gtsv", 1, {NULL, NULL}, 0}}},
    {FIGURE("conv-its-tol", "ITS with a truncation below and above the scheme's error",
            "Lele's 6th-order periodic scheme on 4 partitions solved by ITS, with the cut-off "
            "eps_c (and tol) far below the scheme's truncation error, and with eps_c = tol = "
            "1e-6, above it from n = 64 on. Look for: the first on top of periodic Thomas (order "
            "6 unchanged); the second flat near 1e-7, order gone, although ITS says ok: the "
            "tolerance is the user's choice, and the vs-LAPACK column of the CSV shows its "
            "price. Small partitions that cannot hold J are marked outside-domain."),
     "conv_its_tol",
     "sin",
     64,
     2048,
     1024,
     {6, 0, 0},
     {{"thomas_periodic", "lele6", 1, "thomas_periodic", 1, {NULL, NULL}, 0},
      {"its, eps_c = 1e-15, tol = 1e-13", "lele6", 1, "its", 4, {"eps_c=1e-15", "tol=1e-13"}, 0},
      {"its, eps_c = tol = 1e-6", "lele6", 1, "its", 4, {"eps_c=1e-6", "tol=1e-6"}, 0}}},
    {FIGURE("conv-pdd-m", "PDD with a fixed number of rows per partition",
            "Pade 4th order with closures (global order 3) on (1 + x^2) exp(-x), solved by "
            "LAPACK gtsv and by PDD with m = 64 and m = 8 rows per partition at every n (P = n / "
            "m: more ranks as the grid is refined). PDD drops far spike entries of about 0.27^m "
            "for [1/4, 1, 1/4]: 1e-37 for m = 64, below every truncation error; 3e-5 for m = 8, "
            "above it once the grid is fine. Look for: m = 64 on top of gtsv (order 3 "
            "unchanged), m = 8 flattening. Every PDD row is outside-domain because the closure "
            "rows are not diagonally dominant (the status says why; the answers are still "
            "written)."),
     "conv_pdd_m",
     "polyexp",
     16,
     4096,
     1024,
     {3, 0, 0},
     {{"gtsv", "pade4", 0, "gtsv", 1, {NULL, NULL}, 0},
      {"pdd, m = 64", "pade4", 0, "pdd", 0, {"tol=1", NULL}, 64},
      {"pdd, m = 8", "pade4", 0, "pdd", 0, {"tol=1", NULL}, 8}}},
};
#define NFIGURES (sizeof figures / sizeof figures[0])

const tl_study *study_converge_get(size_t k)
{
  return k < NFIGURES ? &figures[k].pub : NULL;
}

static size_t series_count(const conv_figure *fg)
{
  size_t k = 0;
  while (k < MAX_SERIES && fg->series[k].label)
    k++;
  return k;
}

/* The tridlab converge command that gives one series' numbers, and a
 * newline, appended to buf. */
static void series_command(const conv_figure *fg, const conv_series *s, size_t nmax, char *buf,
                           size_t size)
{
  char params[128] = "", parts[32] = "";
  for (int k = 0; k < 2 && s->params[k]; k++) {
    size_t len = strlen(params);
    snprintf(params + len, sizeof params - len, " --param %s", s->params[k]);
  }
  const char *boundary = s->periodic ? "periodic" : "closure";
  size_t len = strlen(buf);
  if (s->fixed_m) {
    /* One grid at a time, P = n / m. */
    snprintf(buf + len, size - len,
             "n=%zu; while [ $n -le %zu ]; do build/tridlab converge --scheme %s --boundary %s "
             "--function %s --algo %s --parts $(( n / %zu > 0 ? n / %zu : 1 ))%s --nmin $n "
             "--nmax $n; n=$((2 * n)); done\n",
             fg->nmin, nmax, s->scheme, boundary, fg->function, s->algo, s->fixed_m, s->fixed_m,
             params);
    return;
  }
  if (s->parts > 1)
    snprintf(parts, sizeof parts, " --parts %d", s->parts);
  snprintf(buf + len, size - len,
           "build/tridlab converge --scheme %s --boundary %s --function %s --algo %s%s%s "
           "--nmin %zu --nmax %zu\n",
           s->scheme, boundary, fg->function, s->algo, parts, params, fg->nmin, nmax);
}

typedef struct series_progress {
  const study_ctx *c;
  const char *label;
} series_progress;

static void on_row(const tl_converge_row *row, size_t index, size_t count, void *ctx)
{
  const series_progress *sp = ctx;
  char what[96];
  snprintf(what, sizeof what, "%s, n = %zu", sp->label, row->n);
  study_progress(sp->c, what, index + 1, count);
}

/* The configuration of one series (opt filled with its P and
 * parameters); TL_OK or TL_ERR_ARG. */
static int series_config(const study_ctx *c, const conv_figure *fg, const conv_series *s,
                         size_t nmax, tl_options *opt, tl_converge_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  cfg->scheme = tl_compact_find(s->scheme);
  cfg->periodic = s->periodic;
  cfg->function = tl_converge_function_find(fg->function);
  cfg->wavenumber = 1.0;
  cfg->algo = tl_find(s->algo);
  cfg->nmin = fg->nmin;
  cfg->nmax = nmax;
  if (!cfg->scheme || !cfg->function || !cfg->algo)
    return TL_FAIL(c->info, TL_ERR_ARG, -1, -1, "series",
                   "%s: %s: scheme, function or algorithm missing from this build", c->name,
                   s->label);
  tl_options_init(opt);
  opt->parts = s->parts > 0 ? s->parts : 1;
  for (int k = 0; k < 2 && s->params[k]; k++) {
    tl_info pinfo;
    if (tl_options_set_param_kv(opt, cfg->algo, s->params[k], &pinfo) != TL_OK)
      return TL_FAIL(c->info, TL_ERR_ARG, -1, -1, "param", "%s: %s: %s", c->name, s->label,
                     pinfo.msg);
  }
  cfg->opt = opt;
  return TL_OK;
}

/* Run one series into rows (tl_converge_count entries). */
static int run_series(const study_ctx *c, const conv_series *s, const tl_converge_config *cfg,
                      tl_converge_row *rows, size_t cap, size_t *count)
{
  series_progress sp = {c, s->label};
  tl_converge_config run = *cfg;
  run.on_row = on_row;
  run.ctx = &sp;
  tl_info info;
  int st = s->fixed_m ? tl_sweep_converge_fixed_m(&run, s->fixed_m, rows, cap, count, &info)
                      : tl_converge_run(&run, rows, cap, count, &info);
  study_progress_end(c);
  if (st < 0)
    return TL_FAIL(c->info, st, -1, -1, info.arg, "%s: %s: %s", c->name, s->label, info.msg);
  return TL_OK;
}

/* Measured facts about one series: a Markdown bullet. */
static void series_findings(tl_study_result *res, const conv_series *s, const tl_converge_row *rows,
                            size_t count)
{
  study_findings(res, "- **%s**: observed order (max norm)", s->label);
  for (size_t r = 1; r < count; r++) {
    if (isnan(rows[r].order_max))
      study_findings(res, "%s -", r > 1 ? "," : "");
    else
      study_findings(res, "%s %.2f", r > 1 ? "," : "", rows[r].order_max);
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
  study_findings(res, " for n = %zu .. %zu; smallest error %.2e at n = %zu", rows[0].n,
                 rows[count - 1].n, emin, nmin_err);
  if (first_match)
    study_findings(res, "; agrees with LAPACK to 1e-14 from n = %zu on", first_match);
  else
    study_findings(res, "; never within 1e-14 of LAPACK (largest difference %.1e)",
                   rows[count - 1].solver_diff);
  if (outside || failed) {
    study_findings(res, "; status:");
    for (size_t r = 0; r < count; r++)
      if (rows[r].status != TL_OK)
        study_findings(res, " n=%zu %s", rows[r].n,
                       rows[r].status > 0 ? "outside-domain" : "failed");
  } else {
    study_findings(res, "; status ok at every n");
  }
  study_findings(res, ".\n");
}

int study_run_converge(const study_ctx *c, const tl_study *figure)
{
  const conv_figure *fg = (const conv_figure *)figure;
  const tl_study_args *sa = c->sa;
  tl_study_result *res = c->res;
  size_t ns = series_count(fg), nmax = sa->quick ? fg->nmax_quick : fg->nmax;
  size_t cap = tl_converge_count(fg->nmin, nmax);
  tl_converge_row *rows[MAX_SERIES] = {NULL};
  tl_options opts[MAX_SERIES];
  tl_converge_config cfgs[MAX_SERIES];
  tl_converge_series series[MAX_SERIES];
  int rc = TL_ERR_NOMEM;
  for (size_t s = 0; s < ns; s++) {
    rows[s] = calloc(cap, sizeof *rows[s]);
    if (!rows[s]) {
      TL_FAIL(c->info, TL_ERR_NOMEM, -1, -1, "", "%s: out of memory", c->name);
      goto done;
    }
    const conv_series *se = &fg->series[s];
    series[s] = (tl_converge_series){se->label, &cfgs[s], se->fixed_m, rows[s], 0};
    if ((rc = series_config(c, fg, se, nmax, &opts[s], &cfgs[s])) != TL_OK ||
        (rc = run_series(c, se, &cfgs[s], rows[s], cap, &series[s].count)) != TL_OK)
      goto done;
  }
  char csv[128], gp[128], png[128];
  snprintf(csv, sizeof csv, "%s.csv", fg->stem);
  snprintf(gp, sizeof gp, "%s.gp", fg->stem);
  snprintf(png, sizeof png, "%s.png", fg->stem);
  rc = TL_ERR_IO;
  FILE *f = tl_out_open(sa->out, csv, c->info);
  if (!f)
    goto done;
  tl_converge_csv(f, series, ns, 1);
  if (tl_out_close(f, sa->out, csv, c->info))
    goto done;
  study_add_csv(res, csv);
  tl_converge_plot plot = {.title = fg->pub.summary,
                           .origin = "tridlab report",
                           .width = 900,
                           .height = 700,
                           .all_errors = 0,
                           .slopes = {fg->slopes[0], fg->slopes[1], fg->slopes[2], 0}};
  if ((rc = tl_converge_plot_write(sa->out, fg->stem, NULL, series, ns, &plot, c->info)) != TL_OK)
    goto done;
  study_make_plot(c, gp, png, fg->pub.summary);
  for (size_t s = 0; s < ns; s++) {
    series_findings(res, &fg->series[s], rows[s], series[s].count);
    series_command(fg, &fg->series[s], nmax, res->command, sizeof res->command);
  }
  rc = TL_OK;
done:
  for (size_t s = 0; s < ns; s++)
    free(rows[s]);
  return rc;
}
