/* verify/runner.c -- every registry algorithm over every gallery matrix.
 *
 * Each (algorithm, matrix) pair ends in one verdict:
 *   passed      status ok, residual and forward-error ratios < THRESH;
 *   reported    the solver returned a failure or outside-domain status;
 *   unexpected  reported, although the gallery says it should pass
 *               (an approximate algorithm that dropped more than its
 *               tolerance and says so is reported, not unexpected); and,
 *               whatever the gallery says, a status that is not a
 *               tl_status or a write outside x (x lies between guard
 *               regions checked after every call: answer_internal.h);
 *   SILENT      status ok but a ratio >= THRESH or not finite: a wrong
 *               answer nobody was warned about. The promise is zero.
 * A matrix singular to working precision (rcond < eps, LAPACK's rule)
 * promises no pass to anyone and has no forward-error ratio: only the
 * residual judges an ok answer there.
 *   skipped     the algorithm does not take this dtype, layout or size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer_internal.h"
#include "tridlab/backend.h"
#include "tridlab/verify.h"

const char *tl_verdict_name(tl_verdict v)
{
  switch (v) {
  case TL_VERDICT_PASSED: return "passed";
  case TL_VERDICT_REPORTED: return "reported";
  case TL_VERDICT_UNEXPECTED: return "unexpected";
  case TL_VERDICT_SILENT: return "SILENT";
  case TL_VERDICT_SKIPPED: return "skipped";
  }
  return "?";
}

/* A bad --parts for this n (too few rows per partition) is not the
 * algorithm failing on the matrix: skip the pair. */
static int is_skip(int status, const tl_info *info)
{
  return status == TL_ERR_UNSUPPORTED || (status == TL_ERR_ARG && strcmp(info->arg, "parts") == 0);
}

/* An approximate algorithm (or an exact one in an approximate mode, such
 * as tridsolver's jacobi reduced solve) that returns outside-domain because what it
 * dropped exceeds its tolerance is doing its job: it says so, with the
 * size. That is a report even on a matrix of its class, since whether the
 * dropped coupling is small depends on the partition sizes, not only on
 * the class. So is an approximate algorithm's outside-domain from its own
 * residual check: its on an ill-conditioned dominant matrix (gallery 58,
 * 59) fails it with two partitions and passes with one. */
static int is_truncation_report(const tl_algorithm *algo, int status, const tl_info *info)
{
  return status == TL_OUTSIDE_DOMAIN && (info->dropped > info->tol || !algo->exact);
}

/* The values of enum tl_status (tridlab/status.h). A solver that returns
 * anything else (a plug-in's or a port's own numbers) has said nothing
 * the judge can read: not a report, a bug. */
static int is_status(int status)
{
  return status >= TL_ERR_IO && status <= TL_OUTSIDE_DOMAIN;
}

static tl_verdict classify(int status, double resid, double ferr, int expected)
{
  if (status == TL_OK) {
    int good = resid < TL_THRESH && (isnan(ferr) || ferr < TL_THRESH);
    if (good)
      return TL_VERDICT_PASSED;
    return TL_VERDICT_SILENT;
  }
  return expected ? TL_VERDICT_UNEXPECTED : TL_VERDICT_REPORTED;
}

void tl_verify_judge(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                     int status, const tl_info *info, const void *x, const double *rcond,
                     tl_verify_result *r)
{
  memset(r, 0, sizeof *r);
  r->algo = algo;
  r->ledger_model = -1;
  r->type = p->type;
  r->n = p->sys.n;
  r->nsys = p->sys.nsys;
  r->parts = opt ? opt->parts : 1;
  r->resid = NAN;
  r->ferr = NAN;
  r->expected = p->type ? tl_gallery_expects_pass(p->type, algo) : 0;
  r->status = status;
  snprintf(r->note, sizeof r->note, "%s", info->msg);
  if (!is_status(status)) {
    char why[sizeof r->note];
    snprintf(why, sizeof why, "invalid status %d (a solver returns 1, 0 or -1 to -6)%s%.160s",
             status, info->msg[0] ? ": " : "", info->msg);
    tl_answer_fault(r, why);
    return;
  }
  if (is_skip(status, info)) {
    r->verdict = TL_VERDICT_SKIPPED;
    return;
  }
  double worst; /* LAPACK's rule for a matrix singular to working precision */
  int singular = tl_singular_to_working_precision(rcond, p->sys.nsys, &worst);
  if (singular) {
    r->expected = 0;
    char msg[sizeof r->note];
    snprintf(msg, sizeof msg, "%.150s%ssingular to working precision (rcond %.2g < eps): "
             "forward error not judged", info->msg, info->msg[0] ? "; " : "", worst);
    memcpy(r->note, msg, sizeof msg);
  }
  if (tl_status_has_solution(status) && x) {
    r->resid = tl_residual_ratio(&p->sys, x);
    if (p->xtrue && rcond && !singular)
      r->ferr = tl_forward_ratio(&p->sys, x, p->xtrue, rcond);
  }
  r->verdict =
      classify(status, r->resid, r->ferr, r->expected && !is_truncation_report(algo, status, info));
}

/* The recorded ledger of an ok solve against the algorithm's model. */
static void compare_ledger(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                           const tl_info *info, tl_verify_result *r)
{
  r->ledger = opt->ledger;
  if (r->status != TL_OK || !algo->ledger_model)
    return;
  tl_ledger model;
  tl_ledger_init(&model);
  tl_options mo = *opt;
  mo.ledger = NULL;
  if (algo->ledger_model(algo, &p->sys, &mo, info, &model) == TL_OK)
    r->ledger_model = tl_ledger_equal(opt->ledger, &model, r->ledger_why, sizeof r->ledger_why);
  else
    snprintf(r->ledger_why, sizeof r->ledger_why, "the model could not be evaluated");
  tl_ledger_free(&model);
}

static void verify_pair_rcond(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                              const double *rcond, tl_verify_result *r)
{
  size_t es = tl_dtype_size(p->sys.dtype), count = p->sys.n * p->sys.nsys;
  void *x = tl_answer_alloc(count, es);
  tl_info info;
  tl_info_clear(&info);
  if (!x) {
    memset(r, 0, sizeof *r);
    r->algo = algo;
    r->type = p->type;
    r->status = TL_ERR_NOMEM;
    r->verdict = TL_VERDICT_SKIPPED;
    r->ledger_model = -1;
    snprintf(r->note, sizeof r->note, "no memory");
    return;
  }
  if (opt->ledger)
    tl_ledger_reset(opt->ledger);
  int status = tl_solve(algo, &p->sys, x, opt, &info);
  tl_verify_judge(algo, p, opt, status, &info, x, rcond, r);
  tl_answer_check_guards(algo, x, count, es, r);
  if (opt->ledger)
    compare_ledger(algo, p, opt, &info, r);
  tl_answer_free(x);
}

void tl_verify_pair(const tl_algorithm *algo, const tl_problem *p, const tl_options *opt,
                    tl_verify_result *r)
{
  tl_options defaults;
  if (!opt) {
    tl_options_init(&defaults);
    opt = &defaults;
  }
  double *rcond = p->xtrue ? tl_alloc(p->sys.nsys, sizeof(double)) : NULL;
  if (rcond && tl_rcond(&p->sys, rcond, NULL) < 0) {
    free(rcond);
    rcond = NULL;
  }
  verify_pair_rcond(algo, p, opt, rcond, r);
  free(rcond);
}

void tl_verify_summary_add(tl_verify_summary *s, tl_verdict v)
{
  switch (v) {
  case TL_VERDICT_PASSED: s->passed++; break;
  case TL_VERDICT_REPORTED: s->reported++; break;
  case TL_VERDICT_UNEXPECTED: s->unexpected++; break;
  case TL_VERDICT_SILENT: s->silent++; break;
  case TL_VERDICT_SKIPPED: s->skipped++; break;
  }
}

/* Run every selected algorithm on one generated problem. */
static int run_problem(const tl_verify_config *cfg, const tl_problem *p, tl_verify_summary *sum,
                       tl_info *info)
{
  double *rcond = tl_alloc(p->sys.nsys, sizeof(double));
  if (!rcond)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "verify: no memory");
  int have_rcond = p->xtrue && tl_rcond(&p->sys, rcond, NULL) == TL_OK;
  size_t nalg = 0;
  const tl_algorithm *const *reg = tl_registry(&nalg);
  int one_count = cfg->parts > 0 ? cfg->parts : 1;
  const int *parts = cfg->nparts ? cfg->parts_list : &one_count;
  size_t nparts = cfg->nparts ? cfg->nparts : 1;
  tl_ledger ledger;
  tl_ledger_init(&ledger);
  for (size_t k = 0; k < nalg; k++) {
    const tl_algorithm *algo = reg[k];
    if (cfg->algo && strcmp(cfg->algo, algo->name) != 0)
      continue;
    if (cfg->room && strcmp(cfg->room, tl_algorithm_room(algo)) != 0)
      continue;
    /* Partitioned algorithms once per partition count, the others once. */
    for (size_t q = 0; q < (algo->partitioned ? nparts : 1); q++) {
      tl_options opt;
      if (cfg->options && cfg->algo)
        opt = *cfg->options;
      else
        tl_options_init(&opt);
      if (algo->partitioned)
        opt.parts = parts[q];
      opt.ledger = cfg->ledgers && algo->partitioned ? &ledger : NULL;
      tl_verify_result r;
      verify_pair_rcond(algo, p, &opt, have_rcond ? rcond : NULL, &r);
      tl_verify_summary_add(sum, r.verdict);
      if (cfg->on_result)
        cfg->on_result(&r, cfg->ctx);
    }
  }
  tl_ledger_free(&ledger);
  free(rcond);
  return TL_OK;
}

int tl_verify_run(const tl_verify_config *cfg, tl_verify_summary *summary, tl_info *info)
{
  tl_verify_summary sum = {0};
  if (cfg->algo && !tl_find(cfg->algo))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "no algorithm named '%s'", cfg->algo);
  if (cfg->type_id && !tl_gallery_find(cfg->type_id))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "type", "no gallery type %d", cfg->type_id);
  size_t ntypes = tl_gallery_count();
  for (size_t t = 0; t < ntypes; t++) {
    const tl_gallery_type *type = tl_gallery_get(t);
    if (cfg->type_id && type->id != cfg->type_id)
      continue;
    for (size_t k = 0; k < cfg->nsizes; k++) {
      size_t n = cfg->sizes[k];
      if (n < type->min_n)
        continue;
      tl_problem p;
      int st = tl_gallery_make(type->id, n, cfg->nsys ? cfg->nsys : 1, cfg->seed, &p, info);
      if (st < 0)
        return st;
      st = run_problem(cfg, &p, &sum, info);
      tl_problem_free(&p);
      if (st < 0)
        return st;
    }
  }
  if (summary)
    *summary = sum;
  return TL_OK;
}
