/* verify/port_run.c -- a solver written elsewhere, run over the gallery
 * (`tridlab validate`, `tridlab verify --plugin`; docs/ports.md).
 *
 * A port is wrapped as a tl_algorithm, so it goes through tl_solve and
 * tl_verify_judge like every registry algorithm: the verdicts of
 * `validate` are the verdicts `verify` would give the same answers.
 *   --exec CMD   the system is written as a system directory, CMD runs
 *                with {system} and {out} replaced, its exit code is its
 *                status (tridlab/port.h), x is read back from {out};
 *   --lib SO:SYM one C entry point, found with dlopen and dlsym.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "answer_internal.h"
#include "tridlab/backend.h"
#include "tridlab/npy.h"
#include "tridlab/port.h"

/* The descriptor of a port: the contract's promises, the port's name. */
static void port_init(tl_port *port, const char *name, const char *what, const tl_algorithm *like,
                      tl_solve_fn solve)
{
  memset(port, 0, sizeof *port);
  snprintf(port->name, sizeof port->name, "%s", name);
  snprintf(port->summary, sizeof port->summary, "%s, declared like %s", what, like->name);
  port->algo.name = port->name;
  port->algo.family = like->family;
  port->algo.backend = "port";
  port->algo.exact = like->exact;
  port->algo.classes = like->classes;
  port->algo.dtypes = like->dtypes;
  port->algo.layouts = like->layouts;
  port->algo.min_rows_per_part = 1;
  port->algo.summary = port->summary;
  port->algo.source = "an external port";
  port->algo.solve = solve;
}

/* ------------------------------------------------------------------ */
/* --exec                                                              */

/* Append `s` to out in single quotes, for the shell. */
static void append_quoted(char *out, size_t size, const char *s)
{
  size_t len = strlen(out);
  if (len + 1 < size)
    out[len++] = '\'';
  for (; *s && len + 5 < size; s++) {
    if (*s == '\'') {
      memcpy(out + len, "'\\''", 4);
      len += 4;
    } else {
      out[len++] = *s;
    }
  }
  if (len + 1 < size)
    out[len++] = '\'';
  out[len] = '\0';
}

/* The command with {system} and {out} replaced by quoted paths. */
static void expand_command(const char *tmpl, const char *sysdir, const char *out, char *cmd,
                           size_t size)
{
  cmd[0] = '\0';
  for (const char *p = tmpl; *p;) {
    if (strncmp(p, "{system}", 8) == 0) {
      append_quoted(cmd, size, sysdir);
      p += 8;
    } else if (strncmp(p, "{out}", 5) == 0) {
      append_quoted(cmd, size, out);
      p += 5;
    } else {
      size_t len = strlen(cmd);
      if (len + 1 < size) {
        cmd[len] = *p;
        cmd[len + 1] = '\0';
      }
      p++;
    }
  }
}

/* The first line the program printed, for the note of a failure. */
static void first_line(const char *path, char *line, size_t size)
{
  line[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  if (fgets(line, (int)size, f))
    line[strcspn(line, "\n")] = '\0';
  fclose(f);
}

/* x from the program's output file; NaN where it wrote nothing usable,
 * so an "ok" without an answer is judged as the wrong answer it is. */
static void read_answer(const char *path, const tl_batch *sys, void *x)
{
  size_t count = sys->n * sys->nsys, es = tl_dtype_size(sys->dtype);
  tl_npy arr;
  tl_info info;
  if (tl_npy_read(path, &arr, &info) == TL_OK) {
    int fits = arr.dtype == sys->dtype && arr.count == count;
    if (fits)
      memcpy(x, arr.data, count * es);
    tl_npy_free(&arr);
    if (fits)
      return;
  }
  double *v = x;
  for (size_t i = 0; i < count * es / sizeof(double); i++)
    v[i] = NAN;
}

static int exec_status(int exit_code, const char *log, tl_info *info)
{
  char line[200];
  switch (exit_code) {
  case TL_PORT_EXIT_OK: return TL_OK;
  case TL_PORT_EXIT_OUTSIDE:
    first_line(log, line, sizeof line);
    return TL_WARN(info, -1, "port: outside its domain: %s", line);
  case TL_PORT_EXIT_BREAKDOWN:
    first_line(log, line, sizeof line);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "port: no solution: %s", line);
  case TL_PORT_EXIT_UNSUPPORTED:
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "port: does not handle this case");
  default:
    first_line(log, line, sizeof line);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "port: the program failed (exit %d): %s",
                   exit_code, line);
  }
}

static int exec_solve(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                      tl_info *info)
{
  (void)opt;
  const tl_port *port = (const tl_port *)self; /* algo is its first member */
  char sysdir[300], out[300], log[300], cmd[4096];
  snprintf(sysdir, sizeof sysdir, "%s/system", port->workdir);
  snprintf(out, sizeof out, "%s/x.npy", port->workdir);
  snprintf(log, sizeof log, "%s/log", port->workdir);
  remove(out);
  TL_CALL(tl_system_dir_write(sysdir, sys, info));
  expand_command(port->cmd, sysdir, out, cmd, sizeof cmd - 320);
  strcat(cmd, " >");
  append_quoted(cmd, sizeof cmd, log);
  strcat(cmd, " 2>&1");
  int st = system(cmd);
  int code = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : 255;
  int status = exec_status(code, log, info);
  if (tl_status_has_solution(status))
    read_answer(out, sys, x);
  return status;
}

int tl_port_open_exec(tl_port *port, const char *cmd, const tl_algorithm *like, tl_info *info)
{
  if (!strstr(cmd, "{system}") || !strstr(cmd, "{out}"))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "exec",
                   "--exec: the command must contain {system} and {out}: '%s'", cmd);
  if (strlen(cmd) >= sizeof port->cmd)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "exec", "--exec: the command is too long");
  port_init(port, "port", "an external program", like, exec_solve);
  snprintf(port->cmd, sizeof port->cmd, "%s", cmd);
  const char *tmp = getenv("TMPDIR");
  snprintf(port->workdir, sizeof port->workdir, "%s/tridlab-port-XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(port->workdir))
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "exec", "cannot create a temporary directory");
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* --lib                                                               */

static int lib_solve(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                     tl_info *info)
{
  (void)opt;
  const tl_port *port = (const tl_port *)self;
  int st = port->entry((int)sys->dtype, sys->periodic, (int64_t)sys->n, (int64_t)sys->nsys, sys->a,
                       sys->b, sys->c, sys->d, x);
  if (st == TL_OK)
    return TL_OK;
  if (st == TL_OUTSIDE_DOMAIN)
    return TL_WARN(info, -1, "port: outside its domain (returned %d)", st);
  if (st == TL_ERR_UNSUPPORTED)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "port: does not handle this case");
  if (st < 0 && st >= TL_ERR_IO)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "port: no solution (returned %d)", st);
  /* Not a status at all (42, -99, 2): passed on as it is, so the judge
   * calls it what it is, an invalid status, on every matrix. */
  snprintf(info->msg, sizeof info->msg, "port: returned %d", st);
  return st;
}

int tl_port_open_lib(tl_port *port, const char *spec, const tl_algorithm *like, tl_info *info)
{
  char path[1024];
  const char *colon = strrchr(spec, ':');
  if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof path)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lib", "--lib must be PATH.so:SYMBOL, got '%s'", spec);
  memcpy(path, spec, (size_t)(colon - spec));
  path[colon - spec] = '\0';
  port_init(port, colon + 1, "a shared library", like, lib_solve);
  port->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!port->handle)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "lib", "cannot load %s: %s", path, dlerror());
  void *sym = dlsym(port->handle, colon + 1);
  if (!sym) {
    dlclose(port->handle);
    port->handle = NULL;
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lib", "%s has no symbol '%s'", path, colon + 1);
  }
  /* POSIX guarantees a function pointer survives the trip through void *. */
  memcpy(&port->entry, &sym, sizeof port->entry);
  return TL_OK;
}

void tl_port_close(tl_port *port)
{
  if (port->handle)
    dlclose(port->handle);
  if (port->workdir[0]) {
    static const char *const files[] = {"system/a.npy", "system/b.npy",    "system/c.npy",
                                        "system/d.npy", "system/periodic", "x.npy",
                                        "log"};
    char path[400];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
      snprintf(path, sizeof path, "%s/%s", port->workdir, files[k]);
      remove(path);
    }
    snprintf(path, sizeof path, "%s/system", port->workdir);
    remove(path);
    remove(port->workdir);
  }
  memset(port, 0, sizeof *port);
}

/* ------------------------------------------------------------------ */
/* Validate                                                            */

/* One algorithm on one problem, judged. no_status: the solver's status
 * means nothing, so only a pass-or-not question is asked, and only where
 * a pass is expected. A write outside x is UNEXPECTED whatever the
 * status and the matrix. */
static void judge_one(const tl_algorithm *algo, const tl_problem *p, const double *rcond,
                      int no_status, tl_verify_result *r)
{
  tl_options opt;
  tl_options_init(&opt);
  tl_info info;
  tl_info_clear(&info);
  size_t count = p->sys.n * p->sys.nsys, es = tl_dtype_size(p->sys.dtype);
  void *x = tl_answer_alloc(count, es);
  int status = x ? tl_solve(algo, &p->sys, x, &opt, &info) : TL_ERR_NOMEM;
  if (no_status && status == TL_OUTSIDE_DOMAIN)
    status = TL_OK;
  tl_verify_judge(algo, p, &opt, status, &info, x, rcond, r);
  if (no_status && !r->expected) {
    r->verdict = TL_VERDICT_SKIPPED;
    snprintf(r->note, sizeof r->note, "no status: judged only where a pass is expected");
  }
  if (x)
    tl_answer_check_guards(algo, x, count, es, r);
  tl_answer_free(x);
}

static int validate_problem(const tl_validate_config *cfg, const tl_problem *p,
                            tl_verify_summary *sum)
{
  double *rcond = tl_alloc(p->sys.nsys, sizeof *rcond);
  if (!rcond)
    return TL_ERR_NOMEM;
  int have = p->xtrue && tl_rcond(&p->sys, rcond, NULL) == TL_OK;
  tl_verify_result port, ref;
  judge_one(cfg->solver, p, have ? rcond : NULL, cfg->no_status, &port);
  tl_verify_summary_add(sum, port.verdict);
  if (cfg->ref)
    judge_one(cfg->ref, p, have ? rcond : NULL, 0, &ref);
  if (cfg->on_result)
    cfg->on_result(&port, cfg->ref ? &ref : NULL, cfg->ctx);
  free(rcond);
  return TL_OK;
}

int tl_validate_run(const tl_validate_config *cfg, tl_verify_summary *summary, tl_info *info)
{
  tl_verify_summary sum = {0};
  if (cfg->type_id && !tl_gallery_find(cfg->type_id))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "type", "no gallery type %d", cfg->type_id);
  for (size_t t = 0; t < tl_gallery_count(); t++) {
    const tl_gallery_type *type = tl_gallery_get(t);
    if (cfg->type_id && type->id != cfg->type_id)
      continue;
    for (size_t k = 0; k < cfg->nsizes; k++) {
      if (cfg->sizes[k] < type->min_n)
        continue;
      tl_problem p;
      TL_CALL(
          tl_gallery_make(type->id, cfg->sizes[k], cfg->nsys ? cfg->nsys : 1, cfg->seed, &p, info));
      int st = validate_problem(cfg, &p, &sum);
      tl_problem_free(&p);
      if (st < 0)
        return TL_FAIL(info, st, -1, -1, "", "validate: no memory");
    }
  }
  if (summary)
    *summary = sum;
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* Plug-ins                                                            */

typedef int (*plugin_init_fn)(tl_info *info);

int tl_plugin_load(const char *path, tl_info *info)
{
  /* RTLD_GLOBAL is not needed: the plug-in calls back into the program
   * (tl_register), whose symbols the program exports. */
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "plugin", "cannot load plug-in: %s", dlerror());
  void *sym = dlsym(handle, "tridlab_plugin_init");
  if (!sym) {
    dlclose(handle);
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "plugin",
                   "%s has no function tridlab_plugin_init (see docs/ports.md)", path);
  }
  plugin_init_fn init;
  memcpy(&init, &sym, sizeof init);
  int st = init(info);
  /* Never dlclose a loaded plug-in: its descriptors are now in the
   * registry for the rest of the program. */
  if (st < 0) {
    char why[sizeof info->msg];
    snprintf(why, sizeof why, "%s", info ? info->msg : "");
    return TL_FAIL(info, st, -1, -1, "plugin", "%s: tridlab_plugin_init failed: %s", path, why);
  }
  return TL_OK;
}
