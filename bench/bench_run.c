/* bench/bench_run.c -- the sweep of the benchmark library (tl_bench_run):
 * every selected kernel, precision, thread count, n, SZ and direction,
 * timed by the one driver (tl_bench_time) against its same-traffic limit,
 * with the copy and the speed-ups over the reference and LAPACK loops
 * measured in the same run (docs/design.md §7, docs/performance.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"
#include "tridlab/backend.h"
#include "tridlab/convergence.h"

/* ---------------------------------------------------------------- */
/* The configuration                                                  */

void tl_bench_config_init(tl_bench_config *cfg, int quick)
{
  memset(cfg, 0, sizeof *cfg);
  for (size_t k = 0; k < 9; k++)
    cfg->sizes[k] = (size_t)32 << k;
  cfg->nsizes = 9;
  cfg->threads[0] = 1;
  cfg->threads[1] = (size_t)tl_cpu_threads();
  cfg->nthreads = cfg->threads[1] > 1 ? 2 : 1;
  cfg->unknowns = (size_t)1 << 25;
  cfg->reps = 7;
  cfg->precisions = TL_BENCH_DOUBLE | TL_BENCH_FLOAT;
  cfg->dirs = 7;
  if (quick) {
    cfg->sizes[0] = 256, cfg->sizes[1] = 4096;
    cfg->nsizes = 2;
    cfg->unknowns = (size_t)1 << 22;
    cfg->reps = 3;
  }
}

/* Calls fn on each name of a comma-separated list; stops at the first
 * non-zero return and returns it. */
static int each_name(const char *list, int (*fn)(const char *name, size_t len, void *arg),
                     void *arg)
{
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t plen = comma ? (size_t)(comma - p) : strlen(p);
    int r = fn(p, plen, arg);
    if (r)
      return r;
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

static int name_is(const char *p, size_t len, void *arg)
{
  return strlen(arg) == len && !strncmp(p, arg, len);
}

int tl_bench_selected(const tl_bench_config *cfg, const char *name)
{
  return !cfg->kernels || each_name(cfg->kernels, name_is, (void *)name);
}

static int name_unknown(const char *p, size_t len, void *arg)
{
  size_t count;
  const tl_bench_kernel *ks = tl_bench_kernels(&count);
  for (size_t k = 0; k < count; k++)
    if (strlen(ks[k].name) == len && !strncmp(ks[k].name, p, len))
      return 0;
  TL_FAIL((tl_info *)arg, TL_ERR_ARG, -1, -1, "kernels", "unknown kernel '%.*s'", (int)len, p);
  return 1;
}

int tl_bench_config_check(const tl_bench_config *c, tl_info *info)
{
  if (c->kernels && each_name(c->kernels, name_unknown, info))
    return TL_ERR_ARG;
  if (!c->nsizes || c->nsizes > TL_BENCH_MAX_LIST || !c->nthreads ||
      c->nthreads > TL_BENCH_MAX_LIST || c->nszs > TL_BENCH_MAX_LIST)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "cfg",
                   "sizes and thread counts: 1 to %d values each (group sizes: 0 to %d)",
                   TL_BENCH_MAX_LIST, TL_BENCH_MAX_LIST);
  if (c->reps < 1 || c->reps > TL_BENCH_MAX_REPS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "reps", "reps must be in 1..%d, got %ld",
                   TL_BENCH_MAX_REPS, c->reps);
  if (c->unknowns < 4096)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "unknowns", "unknowns must be at least 4096, got %zu",
                   c->unknowns);
  if (!(c->precisions & 3) || (c->precisions & ~3u))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "precisions", "precisions: double, float or both");
  if (!(c->dirs & 7) || (c->dirs & ~7u))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dirs", "directions: a non-empty set of x, y, z");
  for (size_t k = 0; k < c->nszs; k++)
    if (!tl_cpu_sz_supported(c->szs[k]))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "szs", "sz values must be 8, 16, 32 or 64, got %zu",
                     c->szs[k]);
  for (size_t k = 0; k < c->nthreads; k++)
    if (c->threads[k] < 1 || c->threads[k] > 4096)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "threads",
                     "thread counts must be in 1..4096, got %zu", c->threads[k]);
  for (size_t k = 0; k < c->nsizes; k++)
    if (c->sizes[k] < 3 || c->unknowns / c->sizes[k] < 64)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "sizes",
                     "n = %zu: sizes must be >= 3 and leave at least 64 systems in "
                     "--unknowns %zu",
                     c->sizes[k], c->unknowns);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* One measurement                                                    */

/* The untimed restore before every run: the kernel's own, then d = d0. */
static int restore_step(void *arg)
{
  tl_bench_ctx *r = arg;
  r->kern->restore(r);
  tl_bench_restore_d(r);
  return 0;
}

static int limit_step(void *arg)
{
  tl_bench_ctx *r = arg;
  r->kern->limit(r);
  return 0;
}

static int run_step(void *arg)
{
  tl_bench_ctx *r = arg;
  r->kern->run(r);
  return r->status;
}

/* The copy: d = d0 timed on its own, 2 words per element. */
static int copy_step(void *arg)
{
  tl_bench_restore_d(arg);
  return 0;
}

static double copy_gbs(tl_bench_ctx *r, long reps, tl_info *info)
{
  tl_bench_timing tm;
  tl_bench_time(NULL, NULL, copy_step, r, reps, &tm, info);
  return 2.0 * (double)r->unknowns * (double)r->m->es / tm.t / 1e9;
}

/* ---------------------------------------------------------------- */
/* The sweep                                                          */

void tl_bench_results_free(tl_bench_results *res)
{
  free(res->rows);
  memset(res, 0, sizeof *res);
}

static int add_row(tl_bench_results *res, const tl_bench_row *rw)
{
  if (res->count == res->cap) {
    size_t cap = res->cap ? 2 * res->cap : 256;
    tl_bench_row *p = realloc(res->rows, cap * sizeof *p);
    if (!p)
      return -1;
    res->rows = p;
    res->cap = cap;
  }
  res->rows[res->count++] = *rw;
  return 0;
}

/* The Cartesian shape of a solve of nsys lines of n rows along dir: the
 * two other dimensions as even as powers of two allow, the longer one
 * along x (so groups of SZ adjacent x lines are full). */
static void shape_for(size_t n, size_t nsys, tl_dir dir, size_t dims[3])
{
  size_t small = 1;
  while (small * small * 4 <= nsys && nsys % (small * 2) == 0)
    small *= 2;
  size_t big = nsys / small;
  if (dir == TL_DIR_X) {
    dims[0] = n, dims[1] = small, dims[2] = big;
  } else if (dir == TL_DIR_Y) {
    dims[0] = big, dims[1] = n, dims[2] = small;
  } else {
    dims[0] = big, dims[1] = small, dims[2] = n;
  }
}

int tl_bench_compact_row(size_t n, double lhs[3], double st[5], tl_info *info)
{
  const tl_compact_scheme *lele6 = tl_compact_find("lele6");
  if (!lele6 || lele6->derivative != 1 || lele6->interior.first != -2 ||
      lele6->interior.width != 5)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "scheme", "bench: no 5-point lele6 scheme");
  double h = 1.0 / (double)n;
  for (int k = 0; k < 3; k++)
    lhs[k] = lele6->interior.lhs[k];
  for (int k = 0; k < 5; k++)
    st[k] = lele6->interior.rhs[k] / h; /* the same bits as b/(4h), a/(2h): 4, 2 are exact */
  return TL_OK;
}

/* The plan of the compact kernel's matrix, the periodic [1/3, 1, 1/3]
 * (paper 000 eq. (2)), and its stencil (tl_bench_compact_row). */
static int make_plan(tl_distd2_plan *plan, size_t n, double st[5])
{
  double lhs[3];
  if (tl_bench_compact_row(n, lhs, st, NULL) != TL_OK)
    return -1;
  double *a = malloc(3 * n * sizeof *a);
  if (!a)
    return -1;
  for (size_t i = 0; i < 3 * n; i++)
    a[i] = lhs[i / n];
  tl_info info;
  int s = tl_distd2_plan_create_d(plan, n, 1, 1, NULL, a, a + n, a + 2 * n, &info);
  free(a);
  return s == TL_OK ? 0 : -1;
}

/* An upper bound of the measurements, for the progress callback. */
static long count_total(const tl_bench_config *c)
{
  size_t nk;
  const tl_bench_kernel *ks = tl_bench_kernels(&nk);
  long total = 0, ndirs = (long)((c->dirs & 1u) + (c->dirs >> 1 & 1u) + (c->dirs >> 2 & 1u));
  for (int fl = 0; fl <= 1; fl++)
    for (size_t k = 0; k < nk; k++)
      if ((c->precisions & (1u << fl)) && tl_bench_selected(c, ks[k].name) &&
          !(ks[k].double_only && fl))
        total += ks[k].per_dir ? ndirs : 1;
  return total * (long)(c->nsizes * c->nthreads * (c->nszs ? c->nszs : 1));
}

/* Speed-ups of the general-Thomas kernels of one (n, precision, threads,
 * SZ), now that the reference and LAPACK loops ran. */
static void fill_speedups(tl_bench_results *res, const tl_bench_ctx *r, size_t threads,
                          double t_ref, double t_gtsv)
{
  for (size_t i = 0; i < res->count; i++) {
    tl_bench_row *w = &res->rows[i];
    if (w->n != r->n || w->fl != r->fl || w->threads != threads || (w->sz && w->sz != r->sz) ||
        !strncmp(w->kernel, "compact", 7) || strstr(w->kernel, "periodic") ||
        strstr(w->kernel, "loop"))
      continue;
    if (!isnan(w->speedup_ref) || !isnan(w->speedup_gtsv))
      continue;
    w->speedup_ref = t_ref / w->t;
    w->speedup_gtsv = t_gtsv / w->t;
  }
}

/* What one sweep carries from measurement to measurement. */
typedef struct sweep {
  const tl_bench_config *cfg;
  tl_bench_progress progress;
  void *progress_arg;
  tl_bench_results *res;
  long count, total;
  double copy, t_ref, t_gtsv; /* t_*: the loops the speed-ups refer to */
  size_t threads;
} sweep;

/* One kernel along one direction: time it, keep its row. */
static int measure_at(sweep *s, tl_bench_ctx *r, const tl_bench_kernel *kn, int dir, tl_info *info)
{
  r->dir = (tl_dir)dir;
  r->kern = kn;
  shape_for(r->n, r->nsys, r->dir, r->dims);
  if (s->progress)
    s->progress(s->progress_arg, ++s->count, s->total, kn->name, r->n, r->fl, s->threads);
  tl_bench_timing ms;
  int st = tl_bench_time(restore_step, limit_step, run_step, r, s->cfg->reps, &ms, info);
  if (st != TL_OK)
    return st;
  if (ms.failed)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "",
                   "%s failed on n = %zu (a kernel reported an error)", kn->name, r->n);
  if (!strcmp(kn->name, "thomas_ref_loop"))
    s->t_ref = ms.t;
  if (!strcmp(kn->name, "gtsv_loop"))
    s->t_gtsv = ms.t;
  double bytes = kn->words * (double)r->m->es * (double)r->unknowns;
  tl_bench_row w = {.kernel = kn->name,
                    .n = r->n,
                    .nsys = r->nsys,
                    .sz = kn->uses_sz ? r->sz : 0,
                    .threads = s->threads,
                    .dir = kn->per_dir ? "xyz"[dir] : '-',
                    .fl = r->fl,
                    .words = kn->words,
                    .t = ms.t,
                    .t_min = ms.t_min,
                    .t_max = ms.t_max,
                    .t_limit = ms.t_limit,
                    .t_limit_min = ms.t_limit_min,
                    .t_limit_max = ms.t_limit_max,
                    .gbs = bytes / ms.t / 1e9,
                    .limit_gbs = bytes / ms.t_limit / 1e9,
                    .copy = s->copy,
                    .limit_ratio = ms.ratio,
                    .speedup_ref = NAN,
                    .speedup_gtsv = NAN};
  if (add_row(s->res, &w))
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "out of memory");
  return TL_OK;
}

/* measure_at with the group size of the Cartesian kernels
 * (tl_cpu_sz_3d of the shape timed: tl_cpu_sz_lines along x) when no --sz
 * was given, the SZ of the sweep otherwise. */
static int measure_one(sweep *s, tl_bench_ctx *r, const tl_bench_kernel *kn, int dir, tl_info *info)
{
  size_t sz = r->sz;
  if (!s->cfg->nszs && kn->per_dir) {
    size_t dims[3];
    shape_for(r->n, r->nsys, (tl_dir)dir, dims);
    r->sz = tl_cpu_sz_3d(dims, (tl_dir)dir, r->m->es);
  }
  int st = measure_at(s, r, kn, dir, info);
  r->sz = sz;
  return st;
}

/* Every selected kernel at one n and SZ (kernels without SZ: only at the
 * first SZ, so they run once per n). */
static int measure_sz(sweep *s, tl_bench_ctx *r, size_t zi, tl_info *info)
{
  const tl_bench_config *c = s->cfg;
  size_t nk;
  const tl_bench_kernel *ks = tl_bench_kernels(&nk);
  tl_distd2_plan plan;
  memset(&plan, 0, sizeof plan);
  r->plan = &plan;
  if (tl_bench_selected(c, "compact_sz") && make_plan(&plan, r->n, r->st))
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "",
                   "could not build the compact-scheme plan for n = %zu", r->n);
  int st = TL_OK;
  for (size_t k = 0; k < nk && st == TL_OK; k++) {
    const tl_bench_kernel *kn = &ks[k];
    if (!tl_bench_selected(c, kn->name) || (kn->double_only && r->fl) || (zi > 0 && !kn->uses_sz))
      continue;
    for (int dir = 0; dir < (kn->per_dir ? 3 : 1) && st == TL_OK; dir++)
      if (!kn->per_dir || (c->dirs & (1u << dir)))
        st = measure_one(s, r, kn, dir, info);
  }
  if (st == TL_OK)
    fill_speedups(s->res, r, s->threads, s->t_ref, s->t_gtsv);
  tl_distd2_plan_destroy(&plan);
  return st;
}

/* One precision on its buffers, every thread count and n; the rows of
 * each n go to csv when complete. */
static int measure_precision(sweep *s, tl_bench_buffers *m, int fl, FILE *csv, tl_info *info)
{
  const tl_bench_config *c = s->cfg;
  for (size_t ti = 0; ti < c->nthreads; ti++) {
    s->threads = c->threads[ti];
    tl_cpu_set_threads((int)s->threads);
    tl_bench_ctx base = {.fl = fl, .m = m, .unknowns = c->unknowns};
    s->copy = copy_gbs(&base, c->reps, info);
    for (size_t ni = 0; ni < c->nsizes; ni++) {
      size_t n = c->sizes[ni], nsys = c->unknowns / n / 64 * 64;
      s->t_ref = s->t_gtsv = NAN;
      for (size_t zi = 0; zi < (c->nszs ? c->nszs : 1); zi++) {
        tl_bench_ctx r = base;
        r.n = n;
        r.nsys = nsys;
        r.unknowns = n * nsys;
        r.sz = c->nszs ? c->szs[zi] : tl_cpu_sz_default(n, m->es);
        int st = measure_sz(s, &r, zi, info);
        if (st != TL_OK)
          return st;
      }
      for (size_t i = 0; csv && i < s->res->count; i++) {
        const tl_bench_row *w = &s->res->rows[i];
        if (w->n == n && w->fl == fl && w->threads == s->threads)
          tl_bench_csv_row(csv, w);
      }
    }
  }
  return TL_OK;
}

int tl_bench_run(const tl_bench_config *cfg, FILE *csv, tl_bench_progress progress,
                 void *progress_arg, tl_bench_results *res, tl_info *info)
{
  int st = tl_bench_config_check(cfg, info);
  if (st != TL_OK)
    return st;
  int initial_threads = tl_cpu_threads();
  sweep s = {.cfg = cfg, .progress = progress, .progress_arg = progress_arg, .res = res};
  s.total = count_total(cfg);
  if (csv)
    tl_bench_csv_header(csv);
  for (int fl = 0; fl <= 1 && st == TL_OK; fl++) {
    if (!(cfg->precisions & (1u << fl)))
      continue;
    tl_bench_buffers m;
    if (tl_bench_buffers_alloc_at(&m, cfg->unknowns, fl ? sizeof(float) : sizeof(double),
                                  cfg->offset)) {
      st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "unknowns",
                   "not enough memory for 9 arrays of %zu values", cfg->unknowns);
      break;
    }
    st = measure_precision(&s, &m, fl, csv, info);
    tl_bench_buffers_free(&m);
  }
  tl_cpu_set_threads(initial_threads);
  return st;
}

/* ---------------------------------------------------------------- */
/* The check of a kernel's restore                                    */

static double answer_at(const tl_bench_ctx *r, size_t k)
{
  const void *x = r->kern->answer_in_work ? r->m->pd : r->m->d;
  return r->fl ? (double)((const float *)x)[k] : ((const double *)x)[k];
}

/* One run on the untouched input against the last of `reps` timed runs. */
static int check_dir(tl_bench_ctx *r, double *first, double *maxdiff, tl_info *info)
{
  shape_for(r->n, r->nsys, r->dir, r->dims);
  restore_step(r);
  if (run_step(r) < 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "%s failed on n = %zu", r->kern->name, r->n);
  for (size_t k = 0; k < r->unknowns; k++)
    first[k] = answer_at(r, k);
  tl_bench_timing tm;
  int st = tl_bench_time(restore_step, limit_step, run_step, r, 3, &tm, info);
  if (st != TL_OK)
    return st;
  if (tm.failed)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "%s failed on n = %zu", r->kern->name, r->n);
  for (size_t k = 0; k < r->unknowns; k++) {
    double dv = fabs(answer_at(r, k) - first[k]);
    *maxdiff = dv > *maxdiff || isnan(dv) ? dv : *maxdiff;
  }
  return TL_OK;
}

int tl_bench_check_restore(const tl_bench_kernel *k, size_t n, int fl, double *maxdiff,
                           tl_info *info)
{
  *maxdiff = 0;
  if (!k || n < 3 || (fl && k->double_only))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "k", "no kernel, n < 3, or float for a double-only");
  tl_bench_buffers m;
  size_t nsys = 64, es = fl ? sizeof(float) : sizeof(double);
  double *first = malloc(n * nsys * sizeof *first);
  if (!first || tl_bench_buffers_alloc(&m, n * nsys, es)) {
    free(first);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "out of memory");
  }
  tl_distd2_plan plan;
  memset(&plan, 0, sizeof plan);
  tl_bench_ctx r = {.fl = fl, .n = n, .nsys = nsys, .unknowns = n * nsys, .m = &m, .kern = k};
  r.sz = tl_cpu_sz_default(n, es);
  r.plan = &plan;
  int st = make_plan(&plan, n, r.st) ? TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "no plan") : TL_OK;
  for (int dir = 0; dir < (k->per_dir ? 3 : 1) && st == TL_OK; dir++) {
    r.dir = (tl_dir)dir;
    st = check_dir(&r, first, maxdiff, info);
  }
  tl_distd2_plan_destroy(&plan);
  tl_bench_buffers_free(&m);
  free(first);
  return st;
}
