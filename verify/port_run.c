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
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* ------------------------------------------------------------------ */
/* The port's directory                                                */

/* Remove everything inside the directory open as dirfd (which this
 * closes), whatever the port wrote there: subdirectories, files in
 * directories it took its own permissions from. Symbolic links are
 * removed, never followed. The *at calls need no path, so no depth of
 * nesting makes a name too long. */
static int remove_entries(int dirfd)
{
  DIR *d = fdopendir(dirfd);
  if (!d) {
    close(dirfd);
    return -1;
  }
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *name = e->d_name;
    struct stat st;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
      continue;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
      fchmodat(dirfd, name, 0700, 0);
      int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      rc |= sub < 0 ? -1 : remove_entries(sub);
      rc |= unlinkat(dirfd, name, AT_REMOVEDIR);
    } else {
      rc |= unlinkat(dirfd, name, 0);
    }
  }
  closedir(d);
  return rc;
}

/* Empty the port's directory, so every system starts from nothing the
 * program left behind; make it again (only ours: 0700, and mkdir fails
 * on a name someone else took) if the program removed it. */
static int fresh_workdir(const char *workdir, tl_info *info)
{
  chmod(workdir, 0700);
  int fd = open(workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && mkdir(workdir, 0700) == 0)
    return TL_OK;
  if (fd < 0 || remove_entries(fd) != 0)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "exec", "cannot empty the port's directory %s: %s",
                   workdir, strerror(errno));
  return TL_OK;
}

/* ------------------------------------------------------------------ */
/* Running the program: its own process group, a time limit, signals   */

/* A SIGINT, SIGTERM or SIGHUP that arrived while an --exec port was
 * open. The handler only records it: the wait for the program sees it,
 * ends the program's process group, tl_validate_run stops, and
 * tl_port_close removes the directory and raises the signal again. */
static volatile sig_atomic_t stop_signal;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved_actions[3];
static int ports_catching; /* --exec ports open: the handler is installed while > 0 */

static void on_stop_signal(int sig)
{
  stop_signal = sig;
}

static void catch_stop_signals(void)
{
  if (ports_catching++)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int k = 0; k < 3; k++) {
    sigaction(stop_signals[k], NULL, &saved_actions[k]);
    /* A signal the shell told us to ignore (nohup, `&`) stays ignored. */
    if (saved_actions[k].sa_handler != SIG_IGN)
      sigaction(stop_signals[k], &sa, NULL);
  }
}

/* Put the old handlers back and deliver a signal that was held. */
static void release_stop_signals(void)
{
  if (--ports_catching)
    return;
  for (int k = 0; k < 3; k++)
    sigaction(stop_signals[k], &saved_actions[k], NULL);
  if (stop_signal) {
    int sig = stop_signal;
    stop_signal = 0;
    raise(sig);
  }
}

static double seconds_since(const struct timespec *t0)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* Wait up to `limit` seconds (0: no limit) for the program to exit,
 * without reaping it: while its zombie lives, its pid (the process
 * group's id) cannot be reused, so the group can still be signalled
 * safely. 1 when it exited; 0 on time out, or when a stop signal came
 * and `stoppable`. Short naps first: a quick program costs little. */
static int wait_exit(pid_t pid, double limit, int stoppable)
{
  struct timespec t0, nap = {0, 100000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR)
      return 1; /* not our child any more: nothing to wait for */
    if (si.si_pid == pid)
      return 1;
    if ((stoppable && stop_signal) || (limit > 0 && seconds_since(&t0) >= limit))
      return 0;
    nanosleep(&nap, NULL);
    if (nap.tv_nsec < 20000000)
      nap.tv_nsec *= 2;
  }
}

/* End the program's process group and reap the program: SIGTERM and a
 * moment to exit when it is still running, then SIGKILL to whatever is
 * left, so nothing it started outlives its system. Its wait status. */
static int end_group(pid_t pid, int exited)
{
  if (!exited) {
    kill(-pid, SIGTERM);
    wait_exit(pid, 0.5, 0);
  }
  kill(-pid, SIGKILL);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    continue;
  return st;
}

/* Start `sh -c cmd` in a process group of its own (so that it can be
 * ended whole, and a terminal's Ctrl-C reaches validate, which ends it),
 * stdin from /dev/null, stdout and stderr to logfd. */
static pid_t spawn(const char *cmd, int logfd)
{
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    /* Only async-signal-safe calls between fork and exec. */
    setpgid(0, 0);
    if (dup2(null, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0)
      _exit(127);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  if (pid > 0)
    setpgid(pid, pid); /* also here: the group exists before we may signal it */
  close(null);
  return pid;
}

/* ------------------------------------------------------------------ */
/* Judging what the program left                                       */

/* The first line the program printed, for the note of a failure (read
 * through our descriptor: the program may have removed the file). */
static void first_line(int logfd, char *line, size_t size)
{
  ssize_t len = pread(logfd, line, size - 1, 0);
  line[len > 0 ? len : 0] = '\0';
  line[strcspn(line, "\n")] = '\0';
}

/* 1 when the program removed its input (the system directory, or one
 * of its arrays), which it must only read; why in `why`. */
static int input_removed(const char *sysdir, char *why, size_t size)
{
  static const char *const files[] = {"a.npy", "b.npy", "c.npy", "d.npy"};
  char path[400];
  struct stat st;
  if (stat(sysdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(why, size, "port: the program removed its input directory {system}");
    return 1;
  }
  for (size_t k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "%s/%s", sysdir, files[k]);
    if (stat(path, &st) != 0) {
      snprintf(why, size, "port: the program removed its input file {system}/%s", files[k]);
      return 1;
    }
  }
  return 0;
}

/* "(5)" or "(2, 5)", as docs/ports.md writes shapes. */
static void shape_text(char *buf, size_t size, int ndim, const size_t *shape)
{
  if (ndim == 1)
    snprintf(buf, size, "(%zu)", shape[0]);
  else
    snprintf(buf, size, "(%zu, %zu)", shape[0], shape[1]);
}

/* The dtype a .npy header declares, in NumPy's words (float32,
 * complex64, int64, ...), when the file has one tridlab does not read;
 * "" when it cannot tell. */
static void npy_dtype_word(const char *path, char *word, size_t size)
{
  char head[512] = "", code[16] = "";
  word[0] = '\0';
  FILE *f = fopen(path, "rb");
  if (!f)
    return;
  size_t len = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[len] = '\0';
  const char *d = len > 10 ? strstr(head + 10, "'descr':") : NULL;
  char order, kind;
  unsigned bytes;
  if (!d || sscanf(d, "'descr': '%15[^']'", code) != 1 ||
      sscanf(code, "%c%c%u", &order, &kind, &bytes) != 3)
    return;
  static const struct {
    char kind;
    const char *name;
    unsigned scale;
  } kinds[] = {{'f', "float", 8}, {'c', "complex", 8}, {'i', "int", 8}, {'u', "uint", 8}};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (kinds[k].kind == kind)
      snprintf(word, size, "%s%u%s", kinds[k].name, bytes * kinds[k].scale,
               order == '>' ? " (big-endian)" : "");
  if (!word[0])
    snprintf(word, size, "'%s'", code);
}

/* x from the program's output file, when it is an array of d's dtype
 * and shape; otherwise why not, in `why`, and x untouched. An array of
 * the right count but the wrong shape is refused too: (n nsys, 1) for
 * (nsys, n) means the port did not read its input as written. */
static int read_answer(const char *path, const tl_batch *sys, void *x, char *why, size_t size)
{
  size_t count = sys->n * sys->nsys, es = tl_dtype_size(sys->dtype);
  size_t want[2] = {sys->nsys > 1 ? sys->nsys : sys->n, sys->n};
  int want_ndim = sys->nsys > 1 ? 2 : 1;
  char got_text[64], want_text[64], word[48];
  tl_npy arr;
  tl_info info;
  why[0] = '\0';
  if (tl_npy_read(path, &arr, &info) != TL_OK) {
    npy_dtype_word(path, word, sizeof word);
    if (word[0])
      snprintf(why, size, "port: x has dtype %s, expected %s", word, tl_dtype_name(sys->dtype));
    else
      snprintf(why, size, "port: no answer it can be judged by: %.200s", info.msg);
    return -1;
  }
  shape_text(got_text, sizeof got_text, arr.ndim, arr.shape);
  shape_text(want_text, sizeof want_text, want_ndim, want);
  if (arr.dtype != sys->dtype)
    snprintf(why, size, "port: x has dtype %s, expected %s", tl_dtype_name(arr.dtype),
             tl_dtype_name(sys->dtype));
  else if (strcmp(got_text, want_text) != 0)
    snprintf(why, size, "port: x has shape %s, expected %s", got_text, want_text);
  else
    memcpy(x, arr.data, count * es);
  tl_npy_free(&arr);
  return why[0] ? -1 : 0;
}

/* The status the program's exit says (docs/ports.md). */
static int exec_status(int wait_status, int logfd, tl_info *info)
{
  char line[200];
  first_line(logfd, line, sizeof line);
  if (WIFSIGNALED(wait_status))
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "",
                   "port: the program was killed by signal %d: %s", WTERMSIG(wait_status), line);
  int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 255;
  switch (code) {
  case TL_PORT_EXIT_OK: return TL_OK;
  case TL_PORT_EXIT_OUTSIDE: return TL_WARN(info, -1, "port: outside its domain: %s", line);
  case TL_PORT_EXIT_BREAKDOWN:
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "port: no solution: %s", line);
  case TL_PORT_EXIT_UNSUPPORTED:
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "port: does not handle this case");
  default:
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "port: the program failed (exit %d): %s",
                   code, line);
  }
}

/* Run the command on the system written in the port's directory: 0 and
 * its wait status in *st when it exited; -1 with port->fault set when it
 * ran out of time or validate was asked to stop; -2 (errno set) when it
 * could not be started. */
static int run_program(tl_port *port, const char *cmd, int logfd, int *st)
{
  pid_t pid = spawn(cmd, logfd);
  if (pid < 0)
    return -2;
  int exited = wait_exit(pid, port->timeout, 1);
  *st = end_group(pid, exited);
  if (exited)
    return 0;
  if (stop_signal) {
    snprintf(port->fault, sizeof port->fault, "port: stopped by signal %d", (int)stop_signal);
  } else {
    port->timeouts++;
    snprintf(port->fault, sizeof port->fault,
             "port: timeout: no answer within %g s (--timeout); its process group was killed",
             port->timeout);
  }
  return -1;
}

static int exec_solve(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                      tl_info *info)
{
  (void)opt;
  /* algo is the port's first member, and a port is never a const
   * object (tl_port_open_exec fills the caller's): the solve records in
   * it what judge_one is to hold against the program. */
  tl_port *port = (tl_port *)self;
  char sysdir[300], out[300], log[300], cmd[4096];
  port->fault[0] = '\0';
  if (stop_signal)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "port: not run: stopped by signal %d",
                   (int)stop_signal);
  snprintf(sysdir, sizeof sysdir, "%s/system", port->workdir);
  snprintf(out, sizeof out, "%s/x.npy", port->workdir);
  snprintf(log, sizeof log, "%s/log", port->workdir);
  TL_CALL(fresh_workdir(port->workdir, info));
  TL_CALL(tl_system_dir_write(sysdir, sys, info));
  int logfd = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (logfd < 0)
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "exec", "cannot create %s: %s", log, strerror(errno));
  expand_command(port->cmd, sysdir, out, cmd, sizeof cmd);
  int st = 0, ran = run_program(port, cmd, logfd, &st), status;
  if (ran == -2) {
    status =
        TL_FAIL(info, TL_ERR_IO, -1, -1, "exec", "cannot start the program: %s", strerror(errno));
  } else if (ran == -1) {
    status = TL_FAIL(info, TL_ERR_BREAKDOWN, -1, -1, "", "%s", port->fault);
  } else {
    status = exec_status(st, logfd, info);
    if (!input_removed(sysdir, port->fault, sizeof port->fault) && tl_status_has_solution(status))
      read_answer(out, sys, x, port->fault, sizeof port->fault);
  }
  close(logfd);
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
  port->timeout = TL_PORT_TIMEOUT;
  const char *tmp = getenv("TMPDIR");
  snprintf(port->workdir, sizeof port->workdir, "%s/tridlab-port-XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(port->workdir)) {
    port->workdir[0] = '\0';
    return TL_FAIL(info, TL_ERR_IO, -1, -1, "exec", "cannot create a temporary directory: %s",
                   strerror(errno));
  }
  catch_stop_signals();
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
    /* Everything, whatever the program wrote: nothing of a run stays in
     * the temporary directory. */
    chmod(port->workdir, 0700);
    int fd = open(port->workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
      remove_entries(fd);
    rmdir(port->workdir);
    release_stop_signals();
  }
  memset(port, 0, sizeof *port);
}

/* ------------------------------------------------------------------ */
/* Validate                                                            */

/* What an --exec port's last solve held against the program (a
 * timeout, its input removed, x of the wrong shape or dtype), or NULL. */
static const char *port_fault(const tl_algorithm *algo)
{
  const tl_port *port = (const tl_port *)algo;
  return algo->solve == exec_solve && port->fault[0] ? port->fault : NULL;
}

/* One algorithm on one problem, judged. no_status: the solver's status
 * means nothing, so only a pass-or-not question is asked, and only where
 * a pass is expected. A broken interface (port_fault, a write outside
 * x) is UNEXPECTED whatever the status and the matrix. */
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
  const char *fault = x ? port_fault(algo) : NULL;
  if (no_status && status == TL_OUTSIDE_DOMAIN)
    status = TL_OK;
  tl_verify_judge(algo, p, &opt, status, &info, fault ? NULL : x, rcond, r);
  if (no_status && !r->expected) {
    r->verdict = TL_VERDICT_SKIPPED;
    snprintf(r->note, sizeof r->note, "no status: judged only where a pass is expected");
  }
  if (fault)
    tl_answer_fault(r, fault);
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
      if (stop_signal)
        return TL_FAIL(info, TL_ERR_IO, -1, -1, "", "stopped by signal %d", (int)stop_signal);
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
