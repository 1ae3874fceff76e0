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

#define MAX_SERIES 6

typedef struct conv_series {
  const char *label;
  const char *scheme;
  const char *boundary; /* "periodic" or a closure family of the scheme */
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
  int slopes[4]; /* reference slopes n^-p, 0 ends the list */
  conv_series series[MAX_SERIES];
  /* 1: the closure study: its series are every closure family of every
   * scheme (gtsv and thomas), its findings a table (series unused). */
  int closure_table;
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
     {{"thomas_periodic", "lele6", "periodic", "thomas_periodic", 1, {NULL, NULL}, 0},
      {"distd2, P = 2", "lele6", "periodic", "distd2", 2, {NULL, NULL}, 0},
      {"distd2, P = 4", "lele6", "periodic", "distd2", 4, {NULL, NULL}, 0},
      {"distd2, P = 8", "lele6", "periodic", "distd2", 8, {NULL, NULL}, 0}},
     0},
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
     {{"pade4", "pade4", "periodic", "thomas_periodic", 1, {NULL, NULL}, 0},
      {"lele6", "lele6", "periodic", "thomas_periodic", 1, {NULL, NULL}, 0},
      {"d2-6th", "d2-6th", "periodic", "thomas_periodic", 1, {NULL, NULL}, 0}},
     0},
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
     {{"pade4", "pade4", "closure", "gtsv", 1, {NULL, NULL}, 0},
      {"lele6", "lele6", "closure", "gtsv", 1, {NULL, NULL}, 0},
      {"d2-6th", "d2-6th", "closure", "gtsv", 1, {NULL, NULL}, 0}},
     0},
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
     {{"thomas_periodic", "lele6", "periodic", "thomas_periodic", 1, {NULL, NULL}, 0},
      {"its, eps_c = 1e-15, tol = 1e-13",
       "lele6",
       "periodic",
       "its",
       4,
       {"eps_c=1e-15", "tol=1e-13"},
       0},
      {"its, eps_c = tol = 1e-6", "lele6", "periodic", "its", 4, {"eps_c=1e-6", "tol=1e-6"}, 0}},
     0},
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
     {{"gtsv", "pade4", "closure", "gtsv", 1, {NULL, NULL}, 0},
      {"pdd, m = 64", "pade4", "closure", "pdd", 0, {"tol=1", NULL}, 64},
      {"pdd, m = 8", "pade4", "closure", "pdd", 0, {"tol=1", NULL}, 8}},
     0},
    {FIGURE("conv-bounded6",
            "Sixth order with both ends: explicit 6th-order closures, and the solvers",
            "Lele's 6th-order first derivative and the 6th-order second derivative on [0, 2 pi] "
            "with both ends, closed by explicit one-sided 6th-order rows at the first two points "
            "(docs/convergence.md, closure explicit6), on u = (1 + x^2) exp(-x); each series "
            "names its solver. The rows 0 and 1 are explicit (a diagonal left-hand side), so the "
            "matrix stays strictly diagonally dominant and every solver is inside its domain. "
            "Look for: slope 6 in the max norm until the round-off floor (about 5e-13 for the "
            "first derivative from n = 1024, 1e-10 for the second from n = 512, whose 8-point "
            "boundary stencil sums ~ 190 eps / h^2), approached from below (5.75, 5.88, 5.95 "
            "at n = 128, 256, 512); thomas and pcr on top of gtsv; DistD2 on 4 partitions on "
            "top once its partitions are long enough, marked outside-domain before; and the "
            "3rd-order closure of the same scheme for contrast."),
     "conv_bounded6",
     "polyexp",
     16,
     1024,
     1024,
     {6, 3, 0},
     {{"lele6, explicit6, gtsv", "lele6", "explicit6", "gtsv", 1, {NULL, NULL}, 0},
      {"lele6, explicit6, thomas", "lele6", "explicit6", "thomas", 1, {NULL, NULL}, 0},
      {"lele6, explicit6, distd2 P = 4", "lele6", "explicit6", "distd2", 4, {NULL, NULL}, 0},
      {"d2-6th, explicit6, gtsv", "d2-6th", "explicit6", "gtsv", 1, {NULL, NULL}, 0},
      {"d2-6th, explicit6, pcr", "d2-6th", "explicit6", "pcr", 1, {NULL, NULL}, 0},
      {"lele6, closure (3rd order), gtsv", "lele6", "closure", "gtsv", 1, {NULL, NULL}, 0}},
     0},
    {FIGURE("conv-closure-study",
            "The closure study: every closure family of every scheme, gtsv and thomas",
            "Every closure family of every scheme (docs/convergence.md) on u = (1 + x^2) exp(-x), "
            "solved by LAPACK's pivoted gtsv (the orders) and by thomas (what a solver without "
            "pivoting says). The figure shows Lele's 6th-order scheme with each of its closures "
            "(gtsv). Look for: the lowest-order boundary row sets the global order in the max "
            "norm, and the L2 order is half an order higher (the boundary error lives on O(1) "
            "points, weighted by sqrt(h)); explicit6 keeps the 6 of lele6 and d2-6th; "
            "lele4-singular is as accurate as lele4 with gtsv, but thomas breaks down at row 1: "
            "its leading 2 x 2 block [[1, 3], [1/3, 1]] is exactly singular although the matrix "
            "is not."),
     "conv_closure_study",
     "polyexp",
     16,
     1024,
     1024,
     {6, 5, 4, 3},
     {{NULL, NULL, NULL, NULL, 0, {NULL, NULL}, 0}},
     1},
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
  const char *boundary = s->boundary;
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
  cfg->periodic = !strcmp(s->boundary, "periodic");
  cfg->closure = cfg->periodic ? NULL : tl_compact_closure_find(cfg->scheme, s->boundary);
  cfg->function = tl_converge_function_find(fg->function);
  cfg->wavenumber = 1.0;
  cfg->algo = tl_find(s->algo);
  cfg->nmin = fg->nmin;
  cfg->nmax = nmax;
  if (!cfg->scheme || !cfg->function || !cfg->algo || (!cfg->periodic && !cfg->closure))
    return TL_FAIL(c->info, TL_ERR_ARG, -1, -1, "series",
                   "%s: %s: scheme, boundary, function or algorithm missing from this build",
                   c->name, s->label);
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

/* The series of one figure, run: their configurations and rows. */
typedef struct run_set {
  size_t ns;
  const conv_series *se;      /* ns series                      */
  tl_converge_row **rows;     /* ns arrays of tl_converge_count */
  tl_options *opts;           /* ns                             */
  tl_converge_config *cfgs;   /* ns                             */
  tl_converge_series *series; /* ns, pointing into the above    */
} run_set;

static void run_set_free(run_set *rs)
{
  for (size_t s = 0; rs->rows && s < rs->ns; s++)
    free(rs->rows[s]);
  free(rs->rows);
  free(rs->opts);
  free(rs->cfgs);
  free(rs->series);
}

/* Run the ns series se[] of figure fg up to nmax into rs. */
static int run_all(const study_ctx *c, const conv_figure *fg, const conv_series *se, size_t ns,
                   size_t nmax, run_set *rs)
{
  memset(rs, 0, sizeof *rs);
  rs->ns = ns;
  rs->se = se;
  size_t cap = tl_converge_count(fg->nmin, nmax);
  rs->rows = calloc(ns, sizeof *rs->rows);
  rs->opts = calloc(ns, sizeof *rs->opts);
  rs->cfgs = calloc(ns, sizeof *rs->cfgs);
  rs->series = calloc(ns, sizeof *rs->series);
  if (!rs->rows || !rs->opts || !rs->cfgs || !rs->series)
    return TL_FAIL(c->info, TL_ERR_NOMEM, -1, -1, "", "%s: out of memory", c->name);
  for (size_t s = 0; s < ns; s++) {
    rs->rows[s] = calloc(cap, sizeof *rs->rows[s]);
    if (!rs->rows[s])
      return TL_FAIL(c->info, TL_ERR_NOMEM, -1, -1, "", "%s: out of memory", c->name);
    rs->series[s] = (tl_converge_series){se[s].label, &rs->cfgs[s], se[s].fixed_m, rs->rows[s], 0};
    TL_CALL(series_config(c, fg, &se[s], nmax, &rs->opts[s], &rs->cfgs[s]));
    TL_CALL(run_series(c, &se[s], &rs->cfgs[s], rs->rows[s], cap, &rs->series[s].count));
  }
  return TL_OK;
}

/* STEM.csv with every series of rs, and STEM.dat, STEM.gp, STEM.png with
 * the nplot series of plot[]. */
static int write_files(const study_ctx *c, const conv_figure *fg, const run_set *rs,
                       const tl_converge_series *plot_series, size_t nplot)
{
  const tl_study_args *sa = c->sa;
  char csv[128], gp[128], png[128];
  snprintf(csv, sizeof csv, "%s.csv", fg->stem);
  snprintf(gp, sizeof gp, "%s.gp", fg->stem);
  snprintf(png, sizeof png, "%s.png", fg->stem);
  FILE *f = tl_out_open(sa->out, csv, c->info);
  if (!f)
    return TL_ERR_IO;
  tl_converge_csv(f, rs->series, rs->ns, 1);
  TL_CALL(tl_out_close(f, sa->out, csv, c->info));
  study_add_csv(c->res, csv);
  tl_converge_plot plot = {.title = fg->pub.summary,
                           .origin = "tridlab report",
                           .width = 900,
                           .height = 700,
                           .all_errors = 0,
                           .slopes = {fg->slopes[0], fg->slopes[1], fg->slopes[2], fg->slopes[3]}};
  TL_CALL(tl_converge_plot_write(sa->out, fg->stem, NULL, plot_series, nplot, &plot, c->info));
  study_make_plot(c, gp, png, fg->pub.summary);
  return TL_OK;
}

/* A coefficient as a small fraction when it is one ("1/3", "-11/12"). */
static void fraction(double v, char *buf, size_t size)
{
  for (int q = 1; q <= 60; q++) {
    double p = v * q;
    if (fabs(p - nearbyint(p)) <= 1e-9 * fmax(1.0, fabs(p))) {
      if (q == 1)
        snprintf(buf, size, "%.0f", p);
      else
        snprintf(buf, size, "%.0f/%d", p, q);
      return;
    }
  }
  snprintf(buf, size, "%.6g", v);
}

/* "[1, 3] / [1/3, 1, 1/3]": the left-hand sides of the closure rows. */
static void closure_lhs(const tl_compact_closure *cl, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int r = 0; r < cl->nrows; r++) {
    const double *l = cl->rows[r].lhs;
    char t[3][24];
    for (int k = 0; k < 3; k++)
      fraction(l[k], t[k], sizeof t[k]);
    size_t len = strlen(buf);
    if (r == 0)
      snprintf(buf + len, size - len, "[%s, %s]", t[1], t[2]);
    else
      snprintf(buf + len, size - len, " / [%s, %s, %s]", t[0], t[1], t[2]);
  }
}

/* The order of rows at n (the order between n/2 and n), or NaN. */
static double order_at(const tl_converge_series *s, size_t n, int l2)
{
  for (size_t r = 0; r < s->count; r++)
    if (s->rows[r].n == n)
      return l2 ? s->rows[r].order_l2 : s->rows[r].order_max;
  return NAN;
}

/* What thomas said over the study, in a few words. */
static void thomas_verdict(const tl_converge_series *t, char *buf, size_t size)
{
  const tl_converge_row *w = &t->rows[0];
  for (size_t r = 1; r < t->count; r++)
    if (t->rows[r].status != w->status) {
      snprintf(buf, size, "differs with n (the CSV has each n)");
      return;
    }
  if (!tl_status_has_solution(w->status)) {
    snprintf(buf, size, "%s at row %ld, no answer", tl_status_name(w->status), w->row);
    return;
  }
  double worst = 0.0;
  for (size_t r = 0; r < t->count; r++)
    worst = fmax(worst, t->rows[r].solver_diff);
  if (w->status == TL_OK)
    snprintf(buf, size, "ok, within %.0e of LAPACK", worst);
  else
    snprintf(buf, size, "%s (row %ld not dominant), within %.0e of LAPACK",
             tl_status_name(w->status), w->row, worst);
}

/* The closure study: every closure family of every scheme with gtsv and
 * with thomas; the findings are a Markdown table. */
static int run_closure_table(const study_ctx *c, const conv_figure *fg)
{
  enum { MAXPAIRS = 3 * TL_COMPACT_MAX_CLOSURES };
  conv_series se[2 * MAXPAIRS];
  char labels[2 * MAXPAIRS][64];
  size_t np = 0;
  for (size_t k = 0; k < tl_compact_count(); k++) {
    const tl_compact_scheme *sc = tl_compact_get(k);
    for (size_t j = 0; j < sc->nclosures && np < MAXPAIRS; j++, np++)
      for (int t = 0; t < 2; t++) {
        size_t i = 2 * np + (size_t)t;
        snprintf(labels[i], sizeof labels[i], "%s, %s, %s", sc->name, sc->closures[j].name,
                 t ? "thomas" : "gtsv");
        se[i] = (conv_series){
            labels[i], sc->name, sc->closures[j].name, t ? "thomas" : "gtsv", 1, {NULL, NULL}, 0};
      }
  }
  size_t nmax = c->sa->quick ? fg->nmax_quick : fg->nmax;
  run_set rs;
  int rc = run_all(c, fg, se, 2 * np, nmax, &rs);
  tl_converge_series plot_series[TL_COMPACT_MAX_CLOSURES];
  size_t nplot = 0;
  for (size_t i = 0; rc == TL_OK && i < np; i++)
    if (!strcmp(se[2 * i].scheme, "lele6") && nplot < TL_COMPACT_MAX_CLOSURES)
      plot_series[nplot++] = rs.series[2 * i];
  if (rc == TL_OK)
    rc = write_files(c, fg, &rs, plot_series, nplot);
  if (rc != TL_OK) {
    run_set_free(&rs);
    return rc;
  }
  tl_study_result *res = c->res;
  static const size_t at[3] = {128, 256, 512};
  study_findings(res,
                 "| scheme | closure | rows 0 / 1 (left side) | local orders | order (max) at "
                 "n = %zu, %zu, %zu | order (L2) | stated (max / L2) | thomas |\n"
                 "|---|---|---|---|---|---|---|---|\n",
                 at[0], at[1], at[2]);
  for (size_t i = 0; i < np; i++) {
    const tl_converge_series *g = &rs.series[2 * i], *t = &rs.series[2 * i + 1];
    const tl_compact_scheme *sc = g->cfg->scheme;
    const tl_compact_closure *cl = tl_compact_closure_resolve(sc, g->cfg->closure);
    char lhs[96], orders[32] = "", th[128];
    closure_lhs(cl, lhs, sizeof lhs);
    for (int r = 0; r < cl->nrows; r++) {
      size_t len = strlen(orders);
      snprintf(orders + len, sizeof orders - len, "%s%d", r ? ", " : "", cl->rows[r].order);
    }
    thomas_verdict(t, th, sizeof th);
    study_findings(res, "| %s | `%s` | %s | %s |", sc->name, cl->name, lhs, orders);
    for (int l2 = 0; l2 < 2; l2++) {
      for (int k = 0; k < 3; k++) {
        double o = order_at(g, at[k], l2);
        if (isnan(o))
          study_findings(res, "%s-", k ? ", " : " ");
        else
          study_findings(res, "%s%.2f", k ? ", " : " ", o);
      }
      study_findings(res, " |");
    }
    study_findings(res, " %.1f / %.1f | %s |\n", cl->order_max, cl->order_l2, th);
    series_command(fg, &se[2 * i], nmax, res->command, sizeof res->command);
  }
  run_set_free(&rs);
  return TL_OK;
}

int study_run_converge(const study_ctx *c, const tl_study *figure)
{
  const conv_figure *fg = (const conv_figure *)figure;
  if (fg->closure_table)
    return run_closure_table(c, fg);
  size_t ns = series_count(fg), nmax = c->sa->quick ? fg->nmax_quick : fg->nmax;
  run_set rs;
  int rc = run_all(c, fg, fg->series, ns, nmax, &rs);
  if (rc == TL_OK)
    rc = write_files(c, fg, &rs, rs.series, ns);
  for (size_t s = 0; rc == TL_OK && s < ns; s++) {
    series_findings(c->res, &fg->series[s], rs.rows[s], rs.series[s].count);
    series_command(fg, &fg->series[s], nmax, c->res->command, sizeof c->res->command);
  }
  run_set_free(&rs);
  return rc;
}
