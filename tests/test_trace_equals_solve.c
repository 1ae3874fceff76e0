/* tests/test_trace_equals_solve.c -- the trace is the solve
 * (docs/trace.md): for every traced algorithm, every gallery type it
 * takes, n = 2..17 and (partitioned) P = 2..5, `tl_trace_run` answers
 * exactly what `tl_solve` answers -- status, message, the verdict's
 * numbers, x bit for bit, and the ledger. A tracer with a verdict of its
 * own (once thomas and pcr said ok where the solve said outside-domain)
 * fails here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/tridlab.h"

/* The parameters each algorithm is traced with besides its defaults:
 * the ones that change which phases run ("key=value,key=value"; a
 * reduced Jacobi that does not converge records every sweep: 40 do). */
static const struct {
  const char *algo, *param;
} variants[] = {
    {"jacobi", "maxit=3"},
    {"rpdd", "J=2"},
    {"nshaped", "levels=2"},
    {"ptdma", "flavour=combined"},
    {"tridsolver", "reduced=gather_scatter"},
    {"tridsolver", "reduced=pcr"},
    {"tridsolver", "reduced=jacobi,maxit=40"},
    {"spike", "reduced=recursive"},
    {"spike", "truncate=1"},
    {"spike_dp", "reduced=recursive"},
    {"spike_givens", "reduced=recursive"},
    {"spike_givens", "truncate=1"},
};

typedef struct run {
  int status;
  tl_info info;
  tl_ledger ledger;
  double *x;
} run;

static void run_free(run *r)
{
  tl_ledger_free(&r->ledger);
  free(r->x);
}

/* Every field of tl_info a caller reads: a tracer must not have its own. */
static void expect_same_info(const tl_info *t, const tl_info *s, const char *what)
{
  cr_expect_str_eq(t->msg, s->msg, "%s: message", what);
  cr_expect_eq(t->row, s->row, "%s: row %ld, the solve's %ld", what, t->row, s->row);
  cr_expect_eq(t->system, s->system, "%s: system", what);
  cr_expect_str_eq(t->arg, s->arg, "%s: arg", what);
  cr_expect_eq(memcmp(&t->dropped, &s->dropped, sizeof t->dropped), 0, "%s: dropped %g, %g", what,
               t->dropped, s->dropped);
  cr_expect_eq(memcmp(&t->bound, &s->bound, sizeof t->bound), 0, "%s: bound %g, %g", what, t->bound,
               s->bound);
  cr_expect_eq(memcmp(&t->tol, &s->tol, sizeof t->tol), 0, "%s: tol", what);
  cr_expect_eq(t->iterations, s->iterations, "%s: iterations", what);
}

/* What the stages showed: how many, and the ledger phases they name. */
typedef struct seen {
  int stages, nphase;
  const char *phase[32];
} seen;

static void see_stage(const tl_trace_stage *st, void *ctx)
{
  seen *sn = ctx;
  cr_expect_eq(st->index, sn->stages++, "stages come in order");
  for (int k = 0; k < 2; k++)
    if (st->ledger_phase[k][0] && sn->nphase < 32)
      sn->phase[sn->nphase++] = st->ledger_phase[k];
}

/* A stage prints the messages of the phases it names from the solve's
 * ledger: with partitions to talk to, each name must be one the solve
 * records, or the stage prints nothing. Except "halo": ITS sends its
 * residual self-check's halo only when it makes the check. */
static void expect_phases_recorded(const seen *sn, const tl_ledger *l, const char *what)
{
  for (int k = 0; k < sn->nphase; k++) {
    int found = !strcmp(sn->phase[k], "halo");
    for (size_t e = 0; e < l->count && !found; e++)
      found = !strcmp(l->entries[e].phase, sn->phase[k]);
    cr_expect(found, "%s: a stage names ledger phase '%s', which the solve does not record", what,
              sn->phase[k]);
  }
}

/* Trace and solve one case; 1 when the trace took it. */
static int expect_same(const tl_algorithm *algo, const tl_options *base, const tl_problem *p,
                       int parts, const char *what)
{
  tl_options opt = *base;
  opt.parts = parts;
  size_t n = p->sys.n;
  run t = {.x = calloc(n, sizeof(double))}, s = {.x = calloc(n, sizeof(double))};
  cr_assert(t.x && s.x);
  tl_ledger_init(&t.ledger);
  tl_ledger_init(&s.ledger);
  seen sn = {0};
  t.status = tl_trace_run(algo, &p->sys, &opt, see_stage, &sn, &t.ledger, t.x, &t.info);
  int took = t.status != TL_ERR_UNSUPPORTED;
  if (took) {
    opt.ledger = &s.ledger;
    s.status = tl_solve(algo, &p->sys, s.x, &opt, &s.info);
    cr_expect_eq(t.status, s.status, "%s: status %s, the solve's %s (%s)", what,
                 tl_status_name(t.status), tl_status_name(s.status), s.info.msg);
    expect_same_info(&t.info, &s.info, what);
    cr_expect_eq(memcmp(t.x, s.x, n * sizeof(double)), 0, "%s: x differs", what);
    char why[256];
    cr_expect(tl_ledger_equal(&t.ledger, &s.ledger, why, sizeof why), "%s: ledger: %s", what, why);
    if (parts > 1 && tl_status_has_solution(s.status))
      expect_phases_recorded(&sn, &t.ledger, what);
  }
  run_free(&t);
  run_free(&s);
  return took;
}

/* One algorithm with one set of parameters over the gallery; how many
 * cases the trace took. */
static int sweep(const tl_algorithm *algo, const char *param)
{
  tl_options opt;
  tl_options_init(&opt);
  tl_info info;
  char kv[128];
  snprintf(kv, sizeof kv, "%s", param ? param : "");
  for (char *save, *one = strtok_r(kv, ",", &save); one; one = strtok_r(NULL, ",", &save))
    cr_assert_eq(tl_options_set_param_kv(&opt, algo, one, &info), TL_OK, "%s", info.msg);
  int took = 0;
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *type = tl_gallery_get(k);
    /* The trace takes one real system, periodic for thomas_periodic and
     * plain for the others (tridlab/trace.h). */
    int takes = type->dtype == TL_F64 && type->periodic == (algo->layouts == TL_PERIODIC);
    for (size_t n = type->min_n > 2 ? type->min_n : 2; n <= 17; n++) {
      tl_problem p;
      cr_assert_eq(tl_gallery_make(type->id, n, 1, 7, &p, &info), TL_OK, "%s", info.msg);
      for (int P = algo->partitioned ? 2 : 1; P <= (algo->partitioned ? 5 : 1); P++) {
        char what[160];
        snprintf(what, sizeof what, "%s%s%s on %s, n = %zu, P = %d", algo->name, param ? " " : "",
                 param ? param : "", type->name, n, P);
        int t = expect_same(algo, &opt, &p, P, what);
        cr_expect_eq(t, takes, "%s: traced %d", what, t);
        took += t;
      }
      tl_problem_free(&p);
    }
  }
  return took;
}

Test(trace_equals_solve, every_tracer_on_the_gallery)
{
  char names[256];
  snprintf(names, sizeof names, "%s", tl_trace_algorithms());
  int algos = 0;
  for (char *save, *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
    const tl_algorithm *algo = tl_find(name);
    cr_assert_not_null(algo, "%s", name);
    cr_expect_gt(sweep(algo, NULL), 0, "%s: no case traced", name);
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
      if (!strcmp(variants[v].algo, name))
        cr_expect_gt(sweep(algo, variants[v].param), 0, "%s %s", name, variants[v].param);
    algos++;
  }
  cr_expect_eq(algos, 16, "the traced algorithms");
}
