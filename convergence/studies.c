/* convergence/studies.c -- the study table of tridlab/study.h: which
 * studies exist, their defaults, tl_study_run, and the helpers the
 * runners share (findings, files, plots, progress). The sweeps are run
 * by convergence/study_sweeps.c, the convergence figures by
 * convergence/study_converge.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study_internal.h"
#include "tridlab/backend.h"

const char *const study_palette[STUDY_NPALETTE] = {"#1f4e9c", "#d62728", "#2a9d3a", "#9467bd",
                                                   "#e69f00", "#17becf", "#8c564b", "#7f7f7f"};

/* ---------------------------------------------------------------- */
/* Helpers of the runners                                            */

void study_findings(tl_study_result *res, const char *fmt, ...)
{
  size_t len = strlen(res->findings);
  if (len + 1 >= sizeof res->findings)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(res->findings + len, sizeof res->findings - len, fmt, ap);
  va_end(ap);
}

void study_add_csv(tl_study_result *res, const char *name)
{
  if (res->ncsv < TL_STUDY_MAX_FILES)
    snprintf(res->csv[res->ncsv++], sizeof res->csv[0], "%s", name);
}

const char *study_mark(int status)
{
  return status == TL_OK ? "" : status > 0 ? "*" : "!";
}

const char *study_num(char *buf, size_t size, const char *fmt, double v)
{
  if (isnan(v))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, fmt, v);
  return buf;
}

void study_progress(const study_ctx *c, const char *what, size_t done, size_t total)
{
  if (c->progress && c->progress->fn)
    c->progress->fn(c->name, what, done, total, c->progress->ctx);
}

void study_progress_end(const study_ctx *c)
{
  if (c->progress && c->progress->fn)
    c->progress->fn(c->name, NULL, 0, 0, c->progress->ctx);
}

static void forward_progress(const char *what, size_t done, size_t total, void *ctx)
{
  study_progress((const study_ctx *)ctx, what, done, total);
}

tl_sweep_progress study_sweep_progress(const study_ctx *c)
{
  tl_sweep_progress p = {forward_progress, (void *)c};
  return p;
}

int study_fail(const study_ctx *c, const tl_info *inner, const char *where)
{
  /* The library's own "sweep: " prefix gives way to the study's name. */
  const char *msg = strncmp(inner->msg, "sweep: ", 7) == 0 ? inner->msg + 7 : inner->msg;
  int st = inner->status < 0 ? inner->status : TL_ERR_ARG;
  return TL_FAIL(c->info, st, -1, -1, inner->arg, "sweep %s: %s%s%s", c->name, where ? where : "",
                 where ? ": " : "", msg);
}

FILE *study_open_dat(const study_ctx *c, const char *stem)
{
  char dat[128];
  snprintf(dat, sizeof dat, "%s.dat", stem);
  return tl_out_open(c->sa->out, dat, c->info);
}

int study_close_dat(const study_ctx *c, FILE *f, const char *stem)
{
  char dat[128];
  snprintf(dat, sizeof dat, "%s.dat", stem);
  return tl_out_close(f, c->sa->out, dat, c->info);
}

FILE *study_open_plot(const study_ctx *c, const char *stem, int width, int height)
{
  char gp[128], png[128];
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  FILE *f = tl_out_open(c->sa->out, gp, c->info);
  if (!f)
    return NULL;
  fprintf(f, "# tridlab sweep: run 'gnuplot %s' in this directory to remake %s\n", gp, png);
  tl_gp_begin(f, png, width, height);
  return f;
}

void study_make_plot(const study_ctx *c, const char *script, const char *png, const char *caption)
{
  tl_study_result *res = c->res;
  if (res->npng < TL_STUDY_MAX_FILES) {
    snprintf(res->png[res->npng], sizeof res->png[0], "%s", png);
    snprintf(res->caption[res->npng++], sizeof res->caption[0], "%s", caption);
  }
  if (!c->sa->plot)
    return;
  tl_info pinfo;
  tl_info_clear(&pinfo);
  int st = tl_gnuplot_make(c->sa->out, script, png, &pinfo);
  if (st == TL_OK)
    res->plots_made++;
  else if (st != TL_ERR_UNSUPPORTED && !res->plot_error[0])
    snprintf(res->plot_error, sizeof res->plot_error, "%s", pinfo.msg);
}

int study_finish_plot(const study_ctx *c, FILE *f, const char *stem, const char *caption)
{
  char gp[128], png[128];
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  TL_CALL(tl_out_close(f, c->sa->out, gp, c->info));
  study_make_plot(c, gp, png, caption);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* The table                                                         */

typedef struct sweep_entry {
  tl_study pub;
  int (*run)(const study_ctx *c);
} sweep_entry;

static const sweep_entry sweeps[] = {
    {{"its-compact", TL_STUDY_SWEEP,
      "ITS error against J, 4th-order compact derivative of sin(20 pi x), n = 252, P = 3 "
      "(paper 003 Table 2)",
      NULL, TL_STUDY_OPT_N | TL_STUDY_OPT_PARTS | TL_STUDY_OPT_J},
     study_run_its_compact},
    {{"its-nonconst", TL_STUDY_SWEEP,
      "ITS error against J, A = [sin i, 2(|sin i|+|cos i|), cos i], n = 1000, P = 4 "
      "(paper 003 Table 3)",
      NULL, TL_STUDY_OPT_N | TL_STUDY_OPT_PARTS | TL_STUDY_OPT_J},
     study_run_its_nonconst},
    {{"its-n", TL_STUDY_SWEEP, "ITS error against n at fixed J (paper 003 Fig. 3)", NULL,
      TL_STUDY_OPT_PARTS | TL_STUDY_OPT_J | TL_STUDY_OPT_NRANGE},
     study_run_its_n},
    {{"bondeli", TL_STUDY_SWEEP, "Bondeli's J (eq 18) against lambda and eps_c (paper 003 Fig. 2)",
      NULL, TL_STUDY_OPT_LAMBDA | TL_STUDY_OPT_EPS},
     study_run_bondeli},
    {{"dominance", TL_STUDY_SWEEP,
      "PDD, RPDD, DistD2 error against lambda of tridiag(1, lambda, 1) and rows per partition m",
      NULL,
      TL_STUDY_OPT_PARTS | TL_STUDY_OPT_M | TL_STUDY_OPT_LAMBDA | TL_STUDY_OPT_RPDD_J |
          TL_STUDY_OPT_SEED},
     study_run_dominance},
    {{"jacobi-reduced", TL_STUDY_SWEEP,
      "Tridsolver's Jacobi reduced solve: error against the sweeps K", NULL,
      TL_STUDY_OPT_PARTS | TL_STUDY_OPT_M | TL_STUDY_OPT_LAMBDA | TL_STUDY_OPT_KMAX |
          TL_STUDY_OPT_SEED},
     study_run_jacobi},
};
#define NSWEEPS (sizeof sweeps / sizeof sweeps[0])

size_t tl_study_count(void)
{
  size_t k = 0;
  while (study_converge_get(k))
    k++;
  return NSWEEPS + k;
}

const tl_study *tl_study_get(size_t index)
{
  return index < NSWEEPS ? &sweeps[index].pub : study_converge_get(index - NSWEEPS);
}

const tl_study *tl_study_find(const char *name)
{
  const tl_study *s;
  for (size_t k = 0; name && (s = tl_study_get(k)); k++)
    if (!strcmp(s->name, name))
      return s;
  return NULL;
}

void tl_study_args_init(tl_study_args *sa, int quick)
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
  /* n, parts, J, m and lambda depend on the study: tl_study_run fills
   * what the caller did not give. */
}

/* The per-study defaults of what was not given. */
static void study_defaults(const tl_study *s, tl_study_args *sa)
{
  int quick = sa->quick;
  if (!(sa->given & TL_STUDY_OPT_N))
    sa->n = !strcmp(s->name, "its-nonconst") ? 1000 : 252;
  if (!(sa->given & TL_STUDY_OPT_PARTS)) {
    if (!strcmp(s->name, "its-nonconst") || !strcmp(s->name, "dominance"))
      sa->parts = 4;
    else if (!strcmp(s->name, "jacobi-reduced"))
      sa->parts = 16;
    else
      sa->parts = 3;
  }
  if (!(sa->given & TL_STUDY_OPT_J)) {
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
  if (!(sa->given & TL_STUDY_OPT_LAMBDA)) {
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
  if (!(sa->given & TL_STUDY_OPT_M)) {
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

/* The `tridlab sweep` names of the options in opts. */
static void option_names(unsigned opts, char *buf, size_t size)
{
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {{TL_STUDY_OPT_N, "--n"},
               {TL_STUDY_OPT_PARTS, "--parts"},
               {TL_STUDY_OPT_J, "--J"},
               {TL_STUDY_OPT_M, "--m"},
               {TL_STUDY_OPT_LAMBDA, "--lambda"},
               {TL_STUDY_OPT_EPS, "--eps-c"},
               {TL_STUDY_OPT_NRANGE, "--nmin/--nmax"},
               {TL_STUDY_OPT_KMAX, "--kmax"},
               {TL_STUDY_OPT_RPDD_J, "--rpdd-J"},
               {TL_STUDY_OPT_SEED, "--seed"}};
  buf[0] = '\0';
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (opts & names[k].bit) {
      size_t len = strlen(buf);
      snprintf(buf + len, size - len, "%s%s", len ? " " : "", names[k].name);
    }
}

int tl_study_run(const char *name, const tl_study_args *args, FILE *table,
                 const tl_study_progress *progress, tl_study_result *res, tl_info *info)
{
  tl_info_clear(info);
  if (!res || !args)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "res", "no arguments or result given");
  memset(res, 0, sizeof *res);
  const tl_study *s = tl_study_find(name);
  if (!s)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "name", "sweep: no study named '%s'",
                   name ? name : "(null)");
  if (args->given & ~s->opts) {
    char takes[256];
    option_names(s->opts, takes, sizeof takes);
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "given",
                   "sweep %s: an option given does not apply to this study (it takes: %s)", name,
                   takes[0] ? takes : "no study options");
  }
  tl_study_args sa = *args;
  if (!sa.out)
    sa.out = "sweep";
  study_defaults(s, &sa);
  TL_CALL(tl_out_mkdir(sa.out, info));
  study_ctx c = {s->name, &sa, table, progress, res, info};
  int st;
  if (s->kind == TL_STUDY_CONVERGENCE) {
    st = study_run_converge(&c, s);
  } else {
    const sweep_entry *e = (const sweep_entry *)s;
    st = e->run(&c);
  }
  if (table)
    fputc('\n', table);
  return st;
}
