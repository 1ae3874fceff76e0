/* verify/trace.c -- algorithms watched stage by stage (tridlab/trace.h):
 * the picture every tracer draws, the dispatch, and the serial
 * algorithms (the partition ones: trace_*.c, trace_internal.h).
 *
 * The trace's answer -- x, status, message, the verdict's numbers, the
 * ledger -- is the one-call solve's: tl_trace_run calls tl_solve first,
 * so a tracer has no verdict of its own to drift from it
 * (tests/test_trace_equals_solve.c). Each tracer is a second driver of
 * an algorithm's public phase functions, in the solve's order, so the x
 * it draws is the solve's x bit for bit (checked here after every
 * trace); after each stage it draws the system as it stands as a dense
 * n x n matrix -- the pictures the reference files draw in their opening
 * comments, with the numbers of this system in them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "trace_internal.h"

int tl_tr_init(tracer *tr, const tl_batch *sys, int parts, const size_t *part_sizes, tl_trace_fn fn,
               void *ctx, tl_tr_solved solved)
{
  memset(tr, 0, sizeof *tr);
  tr->n = sys->n;
  tr->a = sys->a;
  tr->b = sys->b;
  tr->c = sys->c;
  tr->d = sys->d;
  tr->fn = fn;
  tr->ctx = ctx;
  tr->parts = parts;
  tr->solved = solved;
  tr->periodic = sys->periodic;
  tr->dense = tl_alloc(tr->n * tr->n, sizeof(double));
  tr->rhs = tl_alloc(tr->n, sizeof(double));
  tr->begin = tl_alloc((size_t)parts + 1, sizeof(size_t));
  if (!tr->dense || !tr->rhs || !tr->begin)
    return TL_ERR_NOMEM;
  for (int p = 0; p < parts; p++)
    tl_partition_bounds(tr->n, parts, part_sizes, p, &tr->begin[p], &tr->begin[p + 1]);
  return TL_OK;
}

void tl_tr_free(tracer *tr)
{
  free(tr->dense);
  free(tr->rhs);
  free(tr->begin);
}

/* A fresh stage with the tracer's geometry; the caller fills the rest. */
tl_trace_stage tl_tr_stage_new(tracer *tr, const char *title)
{
  tl_trace_stage st;
  memset(&st, 0, sizeof st);
  st.n = tr->n;
  st.parts = tr->parts;
  st.begin = tr->begin;
  st.ledger_phase[0] = st.ledger_phase[1] = "";
  snprintf(st.title, sizeof st.title, "%s", title);
  return st;
}

void tl_tr_emit(tracer *tr, tl_trace_stage *st, int with_matrix)
{
  st->index = tr->index++;
  if (with_matrix) {
    st->dense = tr->dense;
    st->rhs = tr->rhs;
  }
  if (tr->fn)
    tr->fn(st, tr->ctx);
}

void tl_tr_add_vec(tl_trace_stage *st, const char *name, int part, size_t row0, size_t len,
                   const double *v)
{
  if (st->nvec < TL_TRACE_VECS)
    st->vec[st->nvec++] = (tl_trace_vec){name, part, row0, len, v};
}

/* The picture of a tridiagonal system whose row i couples x[i - s],
 * x[i], x[i + s] (s = 1: the input). */
void tl_tr_draw_banded(tracer *tr, size_t s, const double *a, const double *b, const double *c,
                       const double *d)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (size_t i = 0; i < tr->n; i++) {
    if (i >= s)
      AT(tr, i, i - s) = a[i];
    AT(tr, i, i) = b[i];
    if (i + s < tr->n)
      AT(tr, i, i + s) = c[i];
    tr->rhs[i] = d[i];
  }
}

void tl_tr_stage_input(tracer *tr, const char *note)
{
  tl_trace_stage st = tl_tr_stage_new(tr, "the system A x = d");
  snprintf(st.note, sizeof st.note, "%s", note);
  tl_tr_draw_banded(tr, 1, tr->a, tr->b, tr->c, tr->d);
  size_t n = tr->n;
  if (tr->periodic && n == 1) /* the corners fold onto the row (tridlab/system.h) */
    AT(tr, 0, 0) = tr->a[0] + tr->b[0] + tr->c[0];
  else if (tr->periodic && n == 2) {
    AT(tr, 0, 1) = tr->a[0] + tr->c[0];
    AT(tr, 1, 0) = tr->a[1] + tr->c[1];
  } else if (tr->periodic) {
    AT(tr, 0, n - 1) = tr->a[0];
    AT(tr, n - 1, 0) = tr->c[n - 1];
  }
  tl_tr_emit(tr, &st, 1);
}

void tl_tr_draw_solved(tracer *tr, tl_trace_stage *st, const double *x)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (size_t i = 0; i < tr->n; i++) {
    AT(tr, i, i) = 1;
    tr->rhs[i] = x[i];
  }
  tl_tr_add_vec(st, "x", -1, 0, tr->n, x);
}

void tl_tr_note_stage(tracer *tr, const char *title, const char *phase0, const char *phase1,
                      const char *fmt, ...)
{
  tl_trace_stage st = tl_tr_stage_new(tr, title);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st.note, sizeof st.note, fmt, ap);
  va_end(ap);
  st.ledger_phase[0] = phase0;
  st.ledger_phase[1] = phase1;
  tl_tr_emit(tr, &st, 0);
}

void tl_tr_x_stage(tracer *tr, const char *title, const double *x, const char *fmt, ...)
{
  tl_trace_stage st = tl_tr_stage_new(tr, title);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st.note, sizeof st.note, fmt, ap);
  va_end(ap);
  tl_tr_add_vec(&st, "x", -1, 0, tr->n, x);
  tl_tr_emit(tr, &st, 0);
}

void tl_tr_pair_stage(tracer *tr, const char *title, const char *phase, const char *note,
                      const char *name0, const double *v0, const char *name1, const double *v1)
{
  tl_trace_stage st = tl_tr_stage_new(tr, title);
  snprintf(st.note, sizeof st.note, "%s", note);
  tl_tr_add_vec(&st, name0, -1, 0, (size_t)tr->parts, v0);
  tl_tr_add_vec(&st, name1, -1, 0, (size_t)tr->parts, v1);
  st.ledger_phase[0] = phase;
  tl_tr_emit(tr, &st, 0);
}

void tl_tr_verdict(tracer *tr, const char *title, const char *phase0, const char *phase1,
                   const char *no_bound)
{
  const tl_info *in = tr->solved.info;
  const char *status = tl_status_name(tr->solved.status);
  if (in->tol > 0 && no_bound)
    tl_tr_note_stage(tr, title, phase0, phase1, "dropped %.3g against tol %.3g, no bound (%s): %s",
                     in->dropped, in->tol, no_bound, status);
  else if (in->tol > 0) /* an approximate step: what it dropped */
    tl_tr_note_stage(tr, title, phase0, phase1, "dropped %.3g against tol %.3g, bound %.3g: %s",
                     in->dropped, in->tol, in->bound, status);
  else
    tl_tr_note_stage(tr, title, phase0, phase1, "%s%s%s", status, in->msg[0] ? ": " : "", in->msg);
}

int tl_tr_nomem(tl_info *info)
{
  return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory");
}

/* ------------------------------------------------------------------ */
/* Thomas: the forward sweep row by row, then back substitution         */

int tl_tr_thomas(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                 tl_info *info)
{
  (void)algo;
  (void)opt;
  size_t n = tr->n;
  double *cp = tl_alloc(n, sizeof *cp);
  if (!cp)
    return tl_tr_nomem(info);
  tl_tr_stage_input(tr, "Thomas eliminates the sub-diagonal from the top down, then substitutes "
                        "back from the bottom up");
  int all_positive;
  /* Row i of the sweep depends on rows 0..i only, so the sweep over all
   * rows shows the state after row k by keeping rows > k as they were. */
  long bad = tl_thomas_ref_forward_d(n, tr->a, tr->b, tr->c, tr->d, cp, x, &all_positive);
  size_t done = bad >= 0 ? (size_t)bad : n;
  for (size_t k = 0; k < done; k++) {
    char title[96];
    snprintf(title, sizeof title, "forward sweep: row %zu", k);
    tl_trace_stage st = tl_tr_stage_new(tr, title);
    double pivot = k == 0 ? tr->b[0] : tr->b[k] - tr->a[k] * cp[k - 1];
    if (k == 0)
      snprintf(st.note, sizeof st.note, "pivot b[0] = %.4g; row 0 divided by it", pivot);
    else
      snprintf(st.note, sizeof st.note,
               "pivot b[%zu] - a[%zu] cp[%zu] = %.4g; row %zu minus a[%zu] times row %zu, "
               "divided by the pivot",
               k, k, k - 1, pivot, k, k, k - 1);
    AT(tr, k, k) = 1;
    if (k > 0)
      AT(tr, k, k - 1) = 0;
    if (k + 1 < n)
      AT(tr, k, k + 1) = cp[k];
    tr->rhs[k] = x[k];
    tl_tr_add_vec(&st, "cp", -1, 0, k + 1, cp);
    tl_tr_add_vec(&st, "dp", -1, 0, k + 1, x);
    tl_tr_emit(tr, &st, 1);
  }
  if (bad >= 0) {
    free(cp);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "thomas: zero pivot at row %ld", bad);
  }
  bad = tl_thomas_ref_backward_d(n, cp, x);
  free(cp);
  tl_trace_stage st = tl_tr_stage_new(tr, "back substitution");
  snprintf(st.note, sizeof st.note, "x[i] = dp[i] - cp[i] x[i+1], from the last row up");
  tl_tr_draw_solved(tr, &st, x);
  tl_tr_emit(tr, &st, 1);
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "thomas: overflow at row %ld", bad);
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* PCR: every row, every level                                          */

int tl_tr_pcr(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x, tl_info *info)
{
  (void)algo;
  (void)opt;
  size_t n = tr->n;
  double *w = tl_alloc(n, 8 * sizeof(double));
  if (!w)
    return tl_tr_nomem(info);
  tl_tr_stage_input(tr, "PCR: at each level every row eliminates its two neighbours at distance s, "
                        "and then couples to rows at distance 2s");
  const double *ca = tr->a, *cb = tr->b, *cc = tr->c, *cd = tr->d;
  int k = 0, level = 0, status = TL_OK;
  for (size_t s = 1; s < n; s *= 2, k ^= 1, level++) {
    double *na = w + 4 * k * n, *nb = na + n, *nc = nb + n, *nd = nc + n;
    long bad = tl_pcr_ref_step_d(n, s, ca, cb, cc, cd, na, nb, nc, nd);
    if (bad >= 0) {
      status = TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "pcr: zero pivot at row %ld", bad);
      break;
    }
    ca = na, cb = nb, cc = nc, cd = nd;
    char title[96];
    snprintf(title, sizeof title, "level %d: stride %zu", level, s);
    tl_trace_stage st = tl_tr_stage_new(tr, title);
    snprintf(st.note, sizeof st.note,
             "row i minus a[i]/b[i-%zu] row i-%zu minus c[i]/b[i+%zu] row i+%zu: row i now "
             "couples x[i-%zu], x[i], x[i+%zu]",
             s, s, s, s, 2 * s, 2 * s);
    tl_tr_draw_banded(tr, 2 * s, ca, cb, cc, cd);
    tl_tr_emit(tr, &st, 1);
  }
  if (status == TL_OK) {
    tl_trace_stage st = tl_tr_stage_new(tr, "divide");
    snprintf(st.note, sizeof st.note, "every row is alone: x[i] = d[i] / b[i]");
    for (size_t i = 0; i < n; i++)
      x[i] = cd[i] / cb[i];
    tl_tr_draw_banded(tr, n, ca, cb, cc, x);
    for (size_t i = 0; i < n; i++)
      AT(tr, i, i) = 1;
    tl_tr_add_vec(&st, "x", -1, 0, n, x);
    tl_tr_emit(tr, &st, 1);
  }
  free(w);
  return status;
}

/* ------------------------------------------------------------------ */
/* CR: half the rows per level, then back substitution                  */

/* The working system: row i couples x[i - stride[i]], x[i], x[i + stride[i]]. */
static void draw_strided(tracer *tr, const size_t *stride, const double *a, const double *b,
                         const double *c, const double *d)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (size_t i = 0; i < tr->n; i++) {
    size_t s = stride[i];
    if (i >= s && a[i] != 0)
      AT(tr, i, i - s) = a[i];
    AT(tr, i, i) = b[i];
    if (i + s < tr->n && c[i] != 0)
      AT(tr, i, i + s) = c[i];
    tr->rhs[i] = d[i];
  }
}

static int cr_levels(tracer *tr, double *w, size_t *stride, double *x, tl_info *info)
{
  size_t n = tr->n, h = 1;
  double *wa = w, *wb = w + n, *wc = w + 2 * n, *wd = w + 3 * n;
  for (size_t i = 0; i < n; i++) {
    wa[i] = i > 0 ? tr->a[i] : 0;
    wb[i] = tr->b[i];
    wc[i] = i + 1 < n ? tr->c[i] : 0;
    wd[i] = tr->d[i];
    stride[i] = 1;
  }
  tl_tr_stage_input(tr, "CR: each level keeps every other row of the one before and eliminates the "
                        "rest from it; then the eliminated rows are recovered level by level");
  for (int level = 0; h <= n / 2; h *= 2, level++) {
    long bad = tl_cr_ref_reduce_d(n, h, wa, wb, wc, wd);
    if (bad >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "cr: zero pivot at row %ld", bad);
    for (size_t i = 2 * h - 1; i < n; i += 2 * h)
      stride[i] = 2 * h;
    char title[96];
    snprintf(title, sizeof title, "reduction level %d: rows %zu, %zu, ...", level, 2 * h - 1,
             4 * h - 1);
    tl_trace_stage st = tl_tr_stage_new(tr, title);
    snprintf(st.note, sizeof st.note,
             "row i eliminates x[i-%zu] and x[i+%zu] with its neighbours and now couples "
             "x[i-%zu], x[i], x[i+%zu]; the other rows wait",
             h, h, 2 * h, 2 * h);
    draw_strided(tr, stride, wa, wb, wc, wd);
    tl_tr_emit(tr, &st, 1);
  }
  size_t last = h - 1;
  x[last] = wd[last] / wb[last];
  int tiny = 0;
  for (size_t g = h / 2; g > 0; g /= 2) {
    long bad = tl_cr_ref_back_d(n, g, wa, wb, wc, wd, x, &tiny);
    if (bad >= 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "", "cr: overflow at row %ld", bad);
  }
  tl_tr_x_stage(tr, "back substitution, level by level", x,
                "row %zu alone gives x[%zu]; each level below takes its neighbours from the "
                "level above",
                last, last);
  return TL_OK;
}

int tl_tr_cr(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x, tl_info *info)
{
  (void)algo;
  (void)opt;
  double *w = tl_alloc(tr->n, 4 * sizeof(double));
  size_t *stride = tl_alloc(tr->n, sizeof *stride);
  int status = (w && stride) ? cr_levels(tr, w, stride, x, info) : tl_tr_nomem(info);
  free(w);
  free(stride);
  return status;
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                             */

/* The traced algorithms, in the order of `tridlab trace --help`. */
static const struct {
  const char *name;
  tl_tr_fn run;
} traced[] = {
    {"thomas", tl_tr_thomas},
    {"thomas_periodic", tl_tr_thomas_periodic},
    {"cr", tl_tr_cr},
    {"pcr", tl_tr_pcr},
    {"jacobi", tl_tr_jacobi},
    {"pdd", tl_tr_pdd},
    {"rpdd", tl_tr_rpdd},
    {"distd2", tl_tr_distd2},
    {"its", tl_tr_its},
    {"tridsolver", tl_tr_tridsolver},
    {"hybrid_pcr", tl_tr_hybrid_pcr},
    {"ptdma", tl_tr_ptdma},
    {"nshaped", tl_tr_nshaped},
    {"spike", tl_tr_spike},
    {"spike_dp", tl_tr_spike_dp},
    {"spike_givens", tl_tr_spike_givens},
};
#define TRACED (sizeof traced / sizeof traced[0])

const char *tl_trace_algorithms(void)
{
  static char names[256];
  if (!names[0]) /* the table's names, space-separated */
    for (size_t k = 0; k < TRACED; k++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "",
               traced[k].name);
  return names;
}

static tl_tr_fn tracer_of(const char *algo)
{
  for (size_t k = 0; k < TRACED; k++)
    if (algo && strcmp(algo, traced[k].name) == 0)
      return traced[k].run;
  return NULL;
}

int tl_trace_supported(const char *algo)
{
  return tracer_of(algo) != NULL;
}

/* The options of the one-call solve, which the tracer gets too: a
 * partitioned algorithm opt's partitions, the others none (the command's
 * default of 3 partitions means nothing to them). */
static tl_options solve_options(const tl_algorithm *algo, const tl_options *opt, tl_ledger *ledger)
{
  tl_options one = *opt;
  if (!algo->partitioned) {
    one.parts = 1;
    one.part_sizes = NULL;
  }
  one.ledger = ledger;
  return one;
}

/* Where the solve has an x, the phases drawn must have reached it, bit
 * for bit: else a tracer bug, said loudly instead of the solve's status. */
static int phases_agree(size_t n, int drawn, const double *xt, const double *x, int status,
                        tl_info *info)
{
  if (!tl_status_has_solution(status))
    return status;
  if (drawn < 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "",
                   "trace: a phase failed where the one-call solve did not (a tracer bug)");
  for (size_t i = 0; i < n; i++)
    if (memcmp(&xt[i], &x[i], sizeof *x) != 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)i, "",
                     "trace: the phases' x differs from the one-call solve's at row %zu (a "
                     "tracer bug)",
                     i);
  return status;
}

/* The phases drawn, after the solve: a tracer reads its answer (status,
 * info, x) and writes its own x, which must be the solve's. */
static int draw_phases(const tl_algorithm *algo, const tl_batch *sys, const tl_options *opt,
                       tl_trace_fn fn, void *ctx, const double *x, int status, tl_info *info)
{
  size_t n = sys->n;
  double *xt = tl_alloc(n, sizeof *xt);
  tl_info scratch; /* a failing phase's report: the solve's info has it already */
  tl_info_clear(&scratch);
  tracer tr;
  tl_tr_solved solved = {status, info, x};
  if (tl_tr_init(&tr, sys, opt->parts, opt->part_sizes, fn, ctx, solved) == TL_OK && xt) {
    int drawn = tracer_of(algo->name)(&tr, algo, opt, xt, &scratch);
    status = phases_agree(n, drawn, xt, x, status, info);
  } else {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "trace: no memory for n = %zu", n);
  }
  tl_tr_free(&tr);
  free(xt);
  return status;
}

int tl_trace_run(const tl_algorithm *algo, const tl_batch *sys, const tl_options *opt,
                 tl_trace_fn fn, void *ctx, tl_ledger *ledger, double *x, tl_info *info)
{
  tl_options defaults;
  tl_options_init(&defaults);
  if (!opt)
    opt = &defaults;
  if (!tl_trace_supported(algo->name))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "algo",
                   "trace: cannot trace '%s' yet (it traces: %s)", algo->name,
                   tl_trace_algorithms());
  int periodic_only = !strcmp(algo->name, "thomas_periodic");
  if (sys->dtype != TL_F64 || sys->nsys != 1 || (sys->periodic != 0) != periodic_only)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "system",
                   "trace: %s traces one real, %s system only (see 'tridlab gallery list')",
                   algo->name, periodic_only ? "periodic" : "non-periodic");
  tl_options one = solve_options(algo, opt, ledger);
  tl_info answer; /* the caller's info may be NULL; the tracer reads this one */
  int status = tl_solve(algo, sys, x, &one, &answer);
  if (status != TL_ERR_ARG && status != TL_ERR_UNSUPPORTED && status != TL_ERR_NOMEM)
    status = draw_phases(algo, sys, &one, fn, ctx, x, status, &answer);
  /* else refused before it ran: nothing to watch */
  if (info)
    *info = answer;
  return status;
}
