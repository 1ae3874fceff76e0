/* verify/port_export.c -- the contracts a port can claim, the gallery
 * exported as system directories with a manifest, and the judgement of
 * one answer (`tridlab gallery export`, `tridlab check`; docs/ports.md).
 *
 * The judgement is tl_verify_judge's, so an answer checked here gets the
 * verdict `tridlab verify` would give the same answer. What this file
 * adds is the reason: a port that differs from LAPACK on an
 * ill-conditioned matrix is not wrong when its forward error stays
 * within cond(A) eps (the DGET04 ratio < 30), and is wrong when it does
 * not or when its residual is large.
 */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tridlab/backend.h"
#include "tridlab/npy.h"
#include "tridlab/port.h"

/* ------------------------------------------------------------------ */
/* Contracts                                                           */

#define BOTH_DTYPES (TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128))

/* Each contract copies the classes of the reference algorithm it is
 * named after (docs/gallery.md), so a port "like thomas" is expected to
 * pass where thomas is. */
static const tl_algorithm contracts[] = {
    {.name = "thomas-like",
     .family = "direct",
     .exact = 1,
     .classes = TL_CLASS_ROW_DD | TL_CLASS_COL_DD | TL_CLASS_SPD,
     .dtypes = BOTH_DTYPES,
     .layouts = TL_NONPERIODIC,
     .summary = "elimination without pivoting: diagonally dominant or SPD matrices"},
    {.name = "cr-like",
     .family = "cyclic-reduction",
     .exact = 1,
     .classes = TL_CLASS_ROW_DD,
     .dtypes = BOTH_DTYPES,
     .layouts = TL_NONPERIODIC,
     .summary = "cyclic reduction: row diagonally dominant matrices"},
    {.name = "pivoting",
     .family = "direct",
     .exact = 1,
     .classes = TL_CLASS_NONSINGULAR,
     .dtypes = BOTH_DTYPES,
     .layouts = TL_NONPERIODIC,
     .summary = "partial pivoting (gtsv): every nonsingular matrix"},
    {.name = "periodic",
     .family = "direct",
     .exact = 1,
     .classes = TL_CLASS_STRICT_DD,
     .dtypes = BOTH_DTYPES,
     .layouts = TL_PERIODIC,
     .summary = "periodic elimination: strictly dominant cyclic matrices"},
    {.name = "approximate",
     .family = "partition",
     .exact = 0,
     .classes = TL_CLASS_STRICT_DD,
     .dtypes = BOTH_DTYPES,
     .layouts = TL_NONPERIODIC | TL_PERIODIC,
     .summary = "truncating partition method: pass, or report what it dropped above its "
                "tolerance"},
};

size_t tl_contract_count(void)
{
  return sizeof contracts / sizeof contracts[0];
}

const tl_algorithm *tl_contract_get(size_t index)
{
  return index < tl_contract_count() ? &contracts[index] : NULL;
}

const tl_algorithm *tl_contract_find(const char *name)
{
  for (size_t k = 0; name && k < tl_contract_count(); k++)
    if (strcmp(contracts[k].name, name) == 0)
      return &contracts[k];
  return NULL;
}

const tl_algorithm *tl_contract_reference(const tl_algorithm *like)
{
  static const char *const namesakes[][2] = {{"thomas-like", "thomas"},
                                             {"cr-like", "cr"},
                                             {"pivoting", "gtsv"},
                                             {"periodic", "thomas_periodic"},
                                             {"approximate", "pdd"}};
  for (size_t k = 0; k < sizeof namesakes / sizeof namesakes[0]; k++)
    if (like == tl_contract_find(namesakes[k][0]))
      return tl_find(namesakes[k][1]);
  return like;
}

const char *tl_expected_word(const tl_gallery_type *type, const tl_algorithm *algo)
{
  if (!(algo->dtypes & TL_DTYPE_BIT(type->dtype)) ||
      !(algo->layouts & (type->periodic ? TL_PERIODIC : TL_NONPERIODIC)))
    return "skip";
  if (!tl_gallery_expects_pass(type, algo))
    return "may-report";
  return algo->exact ? "pass" : "pass-or-report";
}

/* ------------------------------------------------------------------ */
/* Export                                                              */

static int make_dir(const char *path, tl_info *info)
{
  if (mkdir(path, 0777) == 0 || errno == EEXIST)
    return TL_OK;
  return TL_FAIL(info, TL_ERR_IO, -1, -1, "dir", "cannot create directory %s: %s", path,
                 strerror(errno));
}

static int write_text(const char *path, const char *text, tl_info *info)
{
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "dir", "cannot write %s", path);
  return TL_OK;
}

/* The problem as the solvers see it: a periodic system of one or two
 * rows folded (tridlab/system.h), so a port reads every entry on its own
 * column, as tl_solve gives it to every registry algorithm. */
static int write_problem(const char *dir, const tl_problem *p, tl_info *info)
{
  tl_batch folded;
  void *storage = NULL;
  int status = tl_batch_fold_periodic(&p->sys, &folded, &storage, info);
  if (status == TL_OK)
    status = tl_system_dir_write(dir, &folded, info);
  free(storage);
  if (status == TL_OK && p->xtrue)
    status = tl_system_dir_write_array(dir, "x_true", &p->sys, p->xtrue, info);
  if (status != TL_OK)
    return status;
  char path[4400], line[128];
  snprintf(path, sizeof path, "%s/type", dir);
  snprintf(line, sizeof line, "%d %s\n", p->type->id, p->type->name);
  return write_text(path, line, info);
}

/* The largest 1-norm condition estimate over the batch; +inf when a
 * system is singular, NaN when LAPACK's estimate overflowed. */
static double batch_cond(const tl_batch *sys)
{
  double *rcond = tl_alloc(sys->nsys, sizeof *rcond);
  double cond = NAN;
  if (rcond && tl_rcond(sys, rcond, NULL) == TL_OK) {
    cond = 0;
    for (size_t s = 0; s < sys->nsys; s++) {
      double c = rcond[s] > 0 ? 1 / rcond[s] : (isnan(rcond[s]) ? NAN : INFINITY);
      cond = (isnan(c) || c > cond) ? c : cond;
      if (isnan(cond))
        break;
    }
  }
  free(rcond);
  return cond;
}

/* JSON has no inf or NaN: null stands for "no finite estimate". */
static void json_number(FILE *f, double v)
{
  if (isfinite(v))
    fprintf(f, "%.6g", v);
  else
    fputs("null", f);
}

static void manifest_entry(FILE *f, const char *sub, const tl_problem *p, int first)
{
  const tl_gallery_type *t = p->type;
  fprintf(f, "%s\n    {\"dir\": \"%s\", \"type\": %d, \"name\": \"%s\", \"dtype\": \"%s\", ",
          first ? "" : ",", sub, t->id, t->name, t->dtype == TL_C128 ? "complex128" : "float64");
  fprintf(f, "\"periodic\": %s, \"n\": %zu, \"nsys\": %zu, \"singular\": %s, \"x_true\": %s, ",
          t->periodic ? "true" : "false", p->sys.n, p->sys.nsys, t->singular ? "true" : "false",
          p->xtrue ? "true" : "false");
  fputs("\"cond1\": ", f);
  json_number(f, batch_cond(&p->sys));
  fputs(", \"expected\": {", f);
  for (size_t k = 0; k < tl_contract_count(); k++)
    fprintf(f, "%s\"%s\": \"%s\"", k ? ", " : "", contracts[k].name,
            tl_expected_word(t, &contracts[k]));
  fputs("}}", f);
}

static int type_selected(const tl_export_config *cfg, int id)
{
  if (!cfg->types || cfg->ntypes == 0)
    return 1;
  for (size_t k = 0; k < cfg->ntypes; k++)
    if (cfg->types[k] == id)
      return 1;
  return 0;
}

static void manifest_head(FILE *f, const tl_export_config *cfg)
{
  fprintf(f, "{\n  \"format\": \"tridlab-gallery-export 1\",\n  \"seed\": %llu,\n",
          (unsigned long long)cfg->seed);
  fprintf(f, "  \"eps\": %.17g,\n  \"thresh\": %g,\n  \"contracts\": {", TL_EPS, TL_THRESH);
  for (size_t k = 0; k < tl_contract_count(); k++)
    fprintf(f, "%s\n    \"%s\": \"%s\"", k ? "," : "", contracts[k].name, contracts[k].summary);
  fputs("\n  },\n  \"systems\": [", f);
}

int tl_gallery_export(const tl_export_config *cfg, size_t *written, tl_info *info)
{
  size_t count = 0;
  for (size_t k = 0; k < cfg->ntypes && cfg->types; k++)
    if (!tl_gallery_find(cfg->types[k]))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "types", "no gallery type %d", cfg->types[k]);
  TL_CALL(make_dir(cfg->dir, info));
  char path[4200];
  snprintf(path, sizeof path, "%s/manifest.json", cfg->dir);
  FILE *f = fopen(path, "w");
  if (!f)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "dir", "cannot write %s", path);
  manifest_head(f, cfg);
  int status = TL_OK;
  for (size_t t = 0; t < tl_gallery_count() && status == TL_OK; t++) {
    const tl_gallery_type *type = tl_gallery_get(t);
    if (!type_selected(cfg, type->id))
      continue;
    for (size_t k = 0; k < cfg->nsizes && status == TL_OK; k++) {
      if (cfg->sizes[k] < type->min_n)
        continue;
      tl_problem p;
      status =
          tl_gallery_make(type->id, cfg->sizes[k], cfg->nsys ? cfg->nsys : 1, cfg->seed, &p, info);
      if (status < 0)
        break;
      char sub[128], dir[4200];
      snprintf(sub, sizeof sub, "t%02d-%s-n%zu", type->id, type->name, cfg->sizes[k]);
      snprintf(dir, sizeof dir, "%s/%s", cfg->dir, sub);
      status = write_problem(dir, &p, info);
      if (status == TL_OK)
        manifest_entry(f, sub, &p, count++ == 0);
      tl_problem_free(&p);
    }
  }
  fputs("\n  ]\n}\n", f);
  if (fclose(f) != 0 && status == TL_OK)
    status = TL_FAIL(info, TL_ERR_IO, -1, -1, "dir", "cannot write %s", path);
  if (written)
    *written = count;
  return status;
}

const tl_gallery_type *tl_system_dir_type(const char *dir)
{
  char path[4200];
  snprintf(path, sizeof path, "%s/type", dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  int id = 0;
  int ok = fscanf(f, "%d", &id) == 1;
  fclose(f);
  return ok ? tl_gallery_find(id) : NULL;
}

/* ------------------------------------------------------------------ */
/* Check one answer                                                    */

int tl_status_parse(const char *text, int *status)
{
  static const struct {
    const char *word;
    int status;
  } words[] = {{"ok", TL_OK},
               {"0", TL_OK},
               {"outside-domain", TL_OUTSIDE_DOMAIN},
               {"3", TL_OUTSIDE_DOMAIN},
               {"breakdown", TL_ERR_BREAKDOWN},
               {"2", TL_ERR_BREAKDOWN},
               {"not-converged", TL_ERR_NOT_CONVERGED},
               {"unsupported", TL_ERR_UNSUPPORTED},
               {"4", TL_ERR_UNSUPPORTED}};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strcmp(text, words[k].word) == 0) {
      *status = words[k].status;
      return TL_OK;
    }
  return TL_ERR_ARG;
}

/* The classes of the matrix, measured, when no gallery type says them. */
static void measured_type(const tl_batch *sys, const double *rcond, tl_gallery_type *t)
{
  unsigned classes = ~0u;
  int nonsingular = 1;
  size_t n = sys->n;
  for (size_t s = 0; s < sys->nsys; s++) {
    if (sys->dtype == TL_C128) {
      const double complex *a = sys->a, *b = sys->b, *c = sys->c;
      classes &= tl_classes_z(n, a + s * n, b + s * n, c + s * n, sys->periodic, NULL);
    } else {
      const double *a = sys->a, *b = sys->b, *c = sys->c;
      classes &= tl_classes_d(n, a + s * n, b + s * n, c + s * n, sys->periodic, NULL);
    }
    nonsingular &= rcond[s] > 0;
  }
  memset(t, 0, sizeof *t);
  t->name = "measured";
  t->desc = "classes measured on the matrix";
  t->dtype = sys->dtype;
  t->periodic = sys->periodic;
  t->classes = classes | (nonsingular ? TL_CLASS_NONSINGULAR : 0u);
  t->singular = !nonsingular;
  t->min_n = 1;
}

static double norm_inf(const tl_batch *sys, const void *v, const void *w)
{
  double m = 0;
  size_t count = sys->n * sys->nsys;
  for (size_t i = 0; i < count; i++) {
    double e;
    if (sys->dtype == TL_C128)
      e = cabs(((const double complex *)v)[i] - (w ? ((const double complex *)w)[i] : 0));
    else
      e = fabs(((const double *)v)[i] - (w ? ((const double *)w)[i] : 0));
    m = (e > m || isnan(e)) ? e : m;
  }
  return m;
}

/* The one line that says what the numbers mean. */
static void explain(tl_check_result *r)
{
  const tl_verify_result *v = &r->v;
  double allowed = r->cond * TL_EPS;
  switch (v->verdict) {
  case TL_VERDICT_SILENT:
    if (!(v->resid < TL_THRESH))
      snprintf(r->why, sizeof r->why,
               "the residual ratio is %.3g >= 30: x does not solve the system, and the status "
               "said nothing: a bug",
               v->resid);
    else
      snprintf(r->why, sizeof r->why,
               "the residual is small but x is %.3g away from x_true (relative), more than "
               "cond1 eps = %.3g allows (forward-error ratio %.3g): a bug or an unstable method",
               r->relerr, allowed, v->ferr);
    break;
  case TL_VERDICT_PASSED:
    if (allowed > 1.0)
      snprintf(r->why, sizeof r->why,
               "the residual passes; the matrix is singular to working precision (cond1 eps = "
               "%.3g > 1, LAPACK's rule), so any difference from x_true (here %.3g, relative) "
               "is allowed and no forward error is judged",
               allowed, r->relerr);
    else if (r->relerr > 1e3 * TL_EPS)
      snprintf(r->why, sizeof r->why,
               "x differs from x_true by %.3g (relative), which cond1 = %.3g allows (cond1 eps "
               "= %.3g): a legitimate difference on an ill-conditioned matrix, not a bug",
               r->relerr, r->cond, allowed);
    else
      snprintf(r->why, sizeof r->why, "residual and forward error within LAPACK's thresholds");
    break;
  case TL_VERDICT_REPORTED:
    snprintf(r->why, sizeof r->why,
             "the status says why the answer may not be trusted, and the contract allows it%s",
             allowed > 1.0 ? " (the matrix is singular to working precision: no solver is "
                             "promised a pass)"
                           : "");
    break;
  case TL_VERDICT_UNEXPECTED:
    snprintf(r->why, sizeof r->why,
             "reported a failure on a matrix the contract promises to solve: a bug, but not a "
             "silent one");
    break;
  case TL_VERDICT_SKIPPED:
    snprintf(r->why, sizeof r->why, "the contract does not take this dtype or layout");
    break;
  }
}

int tl_check_answer(const tl_batch *sys, const void *xtrue, const tl_gallery_type *type,
                    const tl_algorithm *like, int status, const void *x, tl_check_result *r,
                    tl_info *info)
{
  memset(r, 0, sizeof *r);
  double *rcond = tl_alloc(sys->nsys, sizeof *rcond);
  if (!rcond)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "check: no memory");
  int have_rcond = tl_rcond(sys, rcond, info) == TL_OK;
  tl_gallery_type measured;
  if (!type) {
    measured_type(sys, rcond, &measured);
    type = &measured;
  }
  tl_problem p = {.sys = *sys, .xtrue = (void *)xtrue, .type = type};
  tl_options opt;
  tl_options_init(&opt);
  tl_info solved;
  tl_info_clear(&solved);
  /* An external approximate solver has one way to say "I dropped more
   * than my tolerance": outside-domain. Count it as the runner counts a
   * truncation report, not as a failure on a matrix of its class. */
  if (!like->exact && status == TL_OUTSIDE_DOMAIN)
    solved.dropped = 1;
  tl_verify_judge(like, &p, &opt, status, &solved, x, have_rcond ? rcond : NULL, &r->v);
  r->v.type = type == &measured ? NULL : type;
  r->cond = batch_cond(sys);
  r->relerr = NAN;
  if (xtrue && x && tl_status_has_solution(status))
    r->relerr = norm_inf(sys, x, xtrue) / norm_inf(sys, xtrue, NULL);
  explain(r);
  free(rcond);
  return TL_OK;
}
