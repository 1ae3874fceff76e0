/* tests/test_port.c -- port validation (docs/ports.md): the gallery
 * exported and judged back as `verify` judges it, the example ports
 * (C, Fortran, Python, a program) right and broken, plug-ins, and the
 * commands' one-line errors. The example ports are found beside the
 * command (TRIDLAB_CLI's build directory); without them these tests are
 * skipped. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "tridlab/tridlab.h"

static char dir[256];

static void setup(void)
{
  cli_tmpdir(dir, sizeof dir, "port");
}

static void teardown(void)
{
  cli_rmdir(dir);
}

TestSuite(port, .init = setup, .fini = teardown, .timeout = 240);

/* build/examples/ports/NAME, or skip the test. */
static const char *port_path(const char *name)
{
  static char path[1024];
  char cli[1024];
  snprintf(cli, sizeof cli, "%s", cli_path());
  snprintf(path, sizeof path, "%s/examples/ports/%s", dirname(cli), name);
  if (access(path, R_OK) != 0)
    cr_skip_test("%s is not built", path);
  return path;
}

static int exists(const char *sub)
{
  char path[600];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  return stat(path, &st) == 0;
}

Test(port, export_writes_directories_true_solutions_and_manifest)
{
  static const int types[] = {20, 50, 56, 60};
  static const size_t sizes[] = {5};
  tl_export_config cfg = {dir, types, 4, sizes, 1, 1, 2026};
  size_t written = 0;
  tl_info info;
  cr_assert_eq(tl_gallery_export(&cfg, &written, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(written, 4);
  cr_expect(exists("t20-sdd-random-n5/x_true.npy"));
  cr_expect(exists("t50-sdd-random-periodic-n5/periodic"));
  cr_expect(!exists("t20-sdd-random-n5/periodic"));
  cr_expect(!exists("t56-laplacian-periodic-singular-n5/x_true.npy"), "singular: no x_true");
  char path[600];
  snprintf(path, sizeof path, "%s/t60-tdse-cn-n5", dir);
  cr_expect_eq(tl_system_dir_type(path), tl_gallery_find(60));
  /* The manifest names each system's expected verdict per contract. */
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  char text[8192] = "";
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = '\0';
  cr_expect_not_null(strstr(text, "\"dir\": \"t20-sdd-random-n5\", \"type\": 20"));
  cr_expect_not_null(strstr(text, "\"thomas-like\": \"pass\", \"cr-like\": \"pass\""));
  cr_expect_not_null(strstr(text, "\"periodic\": \"pass\", \"approximate\": \"pass-or-report\""));
  cr_expect_not_null(strstr(text, "\"singular\": true, \"x_true\": false"));
}

Test(port, export_rejects_an_unknown_type)
{
  static const int types[] = {999};
  static const size_t sizes[] = {5};
  tl_export_config cfg = {dir, types, 1, sizes, 1, 1, 2026};
  tl_info info;
  cr_expect_eq(tl_gallery_export(&cfg, NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.msg, "no gallery type 999");
}

/* Solve one exported directory with algo and judge it as check does. */
static tl_verdict judge_exported(const char *sub, const tl_algorithm *algo)
{
  char path[600], tpath[700];
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  tl_system_dir sd;
  tl_info info;
  cr_assert_eq(tl_system_dir_read(path, 0, &sd, &info), TL_OK, "%s", info.msg);
  tl_npy xt = {0};
  snprintf(tpath, sizeof tpath, "%s/x_true.npy", path);
  int have_true = tl_npy_read(tpath, &xt, &info) == TL_OK;
  void *x = calloc(sd.sys.n * sd.sys.nsys, tl_dtype_size(sd.sys.dtype));
  tl_options opt;
  tl_options_init(&opt);
  tl_info_clear(&info);
  int st = tl_solve(algo, &sd.sys, x, &opt, &info);
  tl_check_result r;
  cr_assert_eq(tl_check_answer(&sd.sys, have_true ? xt.data : NULL, tl_system_dir_type(path), algo,
                               st, x, &r, &info),
               TL_OK);
  free(x);
  if (have_true)
    tl_npy_free(&xt);
  tl_system_dir_free(&sd);
  return r.v.verdict;
}

Test(port, export_solve_check_round_trip_gives_verify_verdicts)
{
  static const size_t sizes[] = {2, 5, 17};
  tl_export_config cfg = {dir, NULL, 0, sizes, 3, 1, 2026};
  tl_info info;
  cr_assert_eq(tl_gallery_export(&cfg, NULL, &info), TL_OK, "%s", info.msg);
  static const char *const algos[] = {"thomas", "gtsv", "thomas_periodic", "cr", "nshaped"};
  for (size_t t = 0; t < tl_gallery_count(); t++) {
    const tl_gallery_type *type = tl_gallery_get(t);
    for (size_t k = 0; k < 3; k++) {
      if (sizes[k] < type->min_n)
        continue;
      tl_problem p;
      cr_assert_eq(tl_gallery_make(type->id, sizes[k], 1, 2026, &p, &info), TL_OK);
      char sub[128];
      snprintf(sub, sizeof sub, "t%02d-%s-n%zu", type->id, type->name, sizes[k]);
      for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        const tl_algorithm *algo = tl_find(algos[a]);
        tl_options opt;
        tl_options_init(&opt);
        tl_verify_result want;
        tl_verify_pair(algo, &p, &opt, &want);
        tl_verdict got = judge_exported(sub, algo);
        cr_expect_eq(got, want.verdict, "%s on %s: check says %s, verify %s", algos[a], sub,
                     tl_verdict_name(got), tl_verdict_name(want.verdict));
      }
      tl_problem_free(&p);
    }
  }
}

Test(port, check_tells_ill_conditioning_from_a_bug)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(4, 100, 1, 2026, &p, &info), TL_OK);
  double x[100];
  cr_assert_eq(tl_lapack_solve(&p.sys, x, &info), TL_OK);
  tl_check_result r;
  const tl_algorithm *piv = tl_contract_find("pivoting");
  cr_assert_eq(tl_check_answer(&p.sys, p.xtrue, p.type, piv, TL_OK, x, &r, &info), TL_OK);
  cr_expect_eq(r.v.verdict, TL_VERDICT_PASSED);
  cr_expect_gt(r.relerr, 1e-8, "far from x_true (cond 1e15)...");
  cr_expect_not_null(strstr(r.why, "legitimate difference"), "...and not a bug: %s", r.why);
  tl_problem_free(&p);
  /* A well-conditioned matrix, x off by a relative 1e-9: a small residual
   * is not enough, the forward error gives the bug away. */
  cr_assert_eq(tl_gallery_make(2, 50, 1, 2026, &p, &info), TL_OK);
  double y[50];
  for (size_t i = 0; i < 50; i++)
    y[i] = ((double *)p.xtrue)[i] * (1 + 1e-9);
  cr_assert_eq(tl_check_answer(&p.sys, p.xtrue, p.type, piv, TL_OK, y, &r, &info), TL_OK);
  cr_expect_eq(r.v.verdict, TL_VERDICT_SILENT);
  cr_expect_gt(r.v.ferr, TL_THRESH);
  tl_problem_free(&p);
}

/* SILENT count and the set of gallery ids where they fell. */
typedef struct silent_log {
  long count;
  int ids[8];
  int nids;
} silent_log;

static void log_silent(const tl_verify_result *port, const tl_verify_result *ref, void *ctx)
{
  silent_log *log = ctx;
  cr_expect(!ref || ref->verdict != TL_VERDICT_SILENT, "the reference is never silent");
  if (port->verdict != TL_VERDICT_SILENT)
    return;
  log->count++;
  for (int k = 0; k < log->nids; k++)
    if (log->ids[k] == port->type->id)
      return;
  if (log->nids < 8)
    log->ids[log->nids++] = port->type->id;
}

/* Validate a port like thomas over the default sizes; its SILENT log. */
static silent_log validate_port(tl_port *port, const size_t *sizes, size_t nsizes)
{
  silent_log log = {0};
  tl_validate_config cfg = {.solver = &port->algo,
                            .ref = tl_find("thomas"),
                            .sizes = sizes,
                            .nsizes = nsizes,
                            .nsys = 1,
                            .seed = 2026,
                            .on_result = log_silent,
                            .ctx = &log};
  tl_verify_summary sum;
  tl_info info;
  cr_assert_eq(tl_validate_run(&cfg, &sum, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(sum.silent, log.count);
  cr_expect_eq(sum.unexpected, 0);
  return log;
}

static const size_t all_sizes[] = {1, 2, 3, 5, 17, 100};

/* The right entry point: no silent failure; the broken one (the
 * multiplier conjugated): SILENT on exactly the two complex types a
 * Thomas-like solver must pass, tdse-cn and complex-sdd-random, at every
 * n > 1 (n = 1 has no multiplier): 2 x 5 cells. */
static void expect_right_and_broken(const char *lib, const char *good, const char *bad)
{
  char spec[1200];
  tl_port port;
  tl_info info;
  const tl_algorithm *like = tl_find("thomas");
  snprintf(spec, sizeof spec, "%s:%s", lib, good);
  cr_assert_eq(tl_port_open_lib(&port, spec, like, &info), TL_OK, "%s", info.msg);
  silent_log log = validate_port(&port, all_sizes, 6);
  cr_expect_eq(log.count, 0, "%s: %ld silent", good, log.count);
  tl_port_close(&port);
  snprintf(spec, sizeof spec, "%s:%s", lib, bad);
  cr_assert_eq(tl_port_open_lib(&port, spec, like, &info), TL_OK, "%s", info.msg);
  log = validate_port(&port, all_sizes, 6);
  cr_expect_eq(log.count, 10, "%s: %ld silent", bad, log.count);
  cr_expect_eq(log.nids, 2);
  cr_expect(log.ids[0] == 60 && log.ids[1] == 62, "silent on %d, %d", log.ids[0], log.ids[1]);
  tl_port_close(&port);
}

Test(port, c_library_port_right_and_broken)
{
  expect_right_and_broken(port_path("libthomas_port.so"), "port_thomas", "port_thomas_conj");
}

Test(port, fortran_library_port_right_and_broken)
{
  expect_right_and_broken(port_path("libthomas_port_f.so"), "port_thomas_f", "port_thomas_f_conj");
}

/* A program run per system: fewer sizes (a process each). */
static void expect_exec(const char *cmd, long silent)
{
  static const size_t sizes[] = {1, 5, 17};
  tl_port port;
  tl_info info;
  cr_assert_eq(tl_port_open_exec(&port, cmd, tl_find("thomas"), &info), TL_OK, "%s", info.msg);
  silent_log log = validate_port(&port, sizes, 3);
  cr_expect_eq(log.count, silent, "%s: %ld silent", cmd, log.count);
  if (silent)
    cr_expect(log.nids == 2 && log.ids[0] == 60 && log.ids[1] == 62);
  tl_port_close(&port);
}

Test(port, program_port_right_and_broken)
{
  char cmd[1200];
  const char *prog = port_path("thomas_port");
  snprintf(cmd, sizeof cmd, "%s {system} {out}", prog);
  expect_exec(cmd, 0);
  snprintf(cmd, sizeof cmd, "%s {system} {out} --conjugate-bug", prog);
  expect_exec(cmd, 4);
}

Test(port, python_port_right_and_broken)
{
  if (system("python3 -c 'import numpy' >/dev/null 2>&1") != 0)
    cr_skip_test("python3 with numpy is not installed");
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "python3 examples/ports/thomas_port.py {system} {out}");
  expect_exec(cmd, 0);
  snprintf(cmd, sizeof cmd, "python3 examples/ports/thomas_port.py {system} {out} --conjugate-bug");
  expect_exec(cmd, 4);
}

Test(port, exec_command_needs_its_placeholders)
{
  tl_port port;
  tl_info info;
  cr_expect_eq(tl_port_open_exec(&port, "solver {system}", tl_find("thomas"), &info), TL_ERR_ARG);
  cr_expect_not_null(strstr(info.msg, "{system} and {out}"));
}

Test(port, library_errors_are_one_line)
{
  tl_port port;
  tl_info info;
  cr_expect_eq(tl_port_open_lib(&port, "/nonexistent/lib.so:f", tl_find("thomas"), &info),
               TL_ERR_IO);
  cr_expect_null(strchr(info.msg, '\n'));
  cr_expect_eq(tl_port_open_lib(&port, "no-colon", tl_find("thomas"), &info), TL_ERR_ARG);
  char spec[1200];
  snprintf(spec, sizeof spec, "%s:missing", port_path("libthomas_port.so"));
  cr_expect_eq(tl_port_open_lib(&port, spec, tl_find("thomas"), &info), TL_ERR_ARG);
  cr_expect_not_null(strstr(info.msg, "has no symbol 'missing'"), "%s", info.msg);
}

Test(port, plugin_joins_the_registry_and_is_verified)
{
  tl_info info;
  cr_assert_eq(tl_plugin_load(port_path("plugin_thomas.so"), &info), TL_OK, "%s", info.msg);
  const tl_algorithm *a = tl_find("student_thomas");
  cr_assert_not_null(a);
  cr_expect_str_eq(tl_algorithm_room(a), "registered");
  static const size_t sizes[] = {1, 5, 100};
  tl_verify_config cfg = {
      .sizes = sizes, .nsizes = 3, .nsys = 2, .seed = 2026, .algo = "student_thomas"};
  tl_verify_summary sum;
  cr_assert_eq(tl_verify_run(&cfg, &sum, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(sum.silent + sum.unexpected, 0);
  cr_expect_gt(sum.passed, 50);
}

Test(port, plugin_errors_are_one_line)
{
  tl_info info;
  cr_expect_eq(tl_plugin_load("/nonexistent/plugin.so", &info), TL_ERR_IO);
  cr_expect_null(strchr(info.msg, '\n'));
  cr_expect_eq(tl_plugin_load(port_path("libthomas_port.so"), &info), TL_ERR_ARG);
  cr_expect_not_null(strstr(info.msg, "has no function tridlab_plugin_init"), "%s", info.msg);
}

/* Exit status of `tridlab ARGS`, and its stderr in err. */
static int run_err(const char *args, char *err, size_t size)
{
  char redirect[700], path[600];
  snprintf(path, sizeof path, "%s/stderr", dir);
  snprintf(redirect, sizeof redirect, ">/dev/null 2>%s", path);
  int rc = cli_run(args, redirect);
  FILE *f = fopen(path, "r");
  size_t len = f ? fread(err, 1, size - 1, f) : 0;
  if (f)
    fclose(f);
  err[len] = '\0';
  return rc;
}

Test(port, commands_exit_statuses_and_one_line_errors)
{
  char args[1600], err[2048];
  cr_expect_eq(run_err("verify --plugin /nonexistent/plugin.so", err, sizeof err), 1);
  cr_expect_eq(strchr(err, '\n'), strrchr(err, '\n'), "one line: %s", err);
  snprintf(args, sizeof args, "validate --lib %s:nope", port_path("libthomas_port.so"));
  cr_expect_eq(run_err(args, err, sizeof err), 1);
  cr_expect_eq(strchr(err, '\n'), strrchr(err, '\n'), "one line: %s", err);
  snprintf(args, sizeof args, "validate --lib %s:port_thomas_conj --type 62 --quiet",
           port_path("libthomas_port.so"));
  cr_expect_eq(run_err(args, err, sizeof err), 1, "SILENT: exit 1");
  snprintf(args, sizeof args, "validate --lib %s:port_thomas --type 62 --quiet",
           port_path("libthomas_port.so"));
  cr_expect_eq(run_err(args, err, sizeof err), 0);
  /* export, solve with the buggy program, check: exit 2 on SILENT. */
  snprintf(args, sizeof args, "gallery export %s/g --types 62 --sizes 17", dir);
  cr_assert_eq(run_err(args, err, sizeof err), 0, "%s", err);
  char cmd[1600];
  snprintf(cmd, sizeof cmd, "%s %s/g/t62-complex-sdd-random-n17 %s/x.npy --conjugate-bug",
           port_path("thomas_port"), dir, dir);
  cr_assert_eq(system(cmd), 0);
  snprintf(args, sizeof args, "check --system %s/g/t62-complex-sdd-random-n17 --x %s/x.npy", dir,
           dir);
  cr_expect_eq(run_err(args, err, sizeof err), 2);
  snprintf(args, sizeof args,
           "check --system %s/g/t62-complex-sdd-random-n17 --x %s/x.npy "
           "--status breakdown",
           dir, dir);
  cr_expect_eq(run_err(args, err, sizeof err), 2, "UNEXPECTED: the contract promises a pass");
}

/* ------------------------------------------------------------------ */
/* Hostile ports (tests/ports/): each breaks the interface one way     */

/* build/tests/ports/NAME, or skip the test. */
static const char *hostile_path(const char *name)
{
  static char path[1024];
  char cli[1024];
  snprintf(cli, sizeof cli, "%s", cli_path());
  snprintf(path, sizeof path, "%s/tests/ports/%s", dirname(cli), name);
  if (access(path, R_OK) != 0)
    cr_skip_test("%s is not built", path);
  return path;
}

/* The port's temporary directories go to DIR/tmp, where the tests can
 * see what is left. */
static const char *private_tmpdir(void)
{
  static char tmp[600];
  snprintf(tmp, sizeof tmp, "%s/tmp", dir);
  cr_assert_eq(mkdir(tmp, 0700), 0);
  cr_assert_eq(setenv("TMPDIR", tmp, 1), 0);
  return tmp;
}

/* Entries left in a directory. */
static int entries_left(const char *path)
{
  DIR *d = opendir(path);
  cr_assert_not_null(d, "%s", path);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return count;
}

/* Verdict counts and the first UNEXPECTED note. */
typedef struct verdict_log {
  long count[TL_VERDICT_SKIPPED + 1];
  char note[256];
} verdict_log;

static void log_verdict(const tl_verify_result *port, const tl_verify_result *ref, void *ctx)
{
  (void)ref;
  verdict_log *log = ctx;
  log->count[port->verdict]++;
  if (port->verdict == TL_VERDICT_UNEXPECTED && !log->note[0])
    snprintf(log->note, sizeof log->note, "%s", port->note);
}

/* A port declared pivoting over one gallery type. */
static verdict_log validate_type(tl_port *port, int type, size_t nsys)
{
  static const size_t sizes[] = {5, 17};
  verdict_log log = {0};
  tl_validate_config cfg = {.solver = &port->algo,
                            .ref = tl_find("gtsv"),
                            .sizes = sizes,
                            .nsizes = 2,
                            .nsys = nsys,
                            .seed = 2026,
                            .type_id = type,
                            .on_result = log_verdict,
                            .ctx = &log};
  tl_verify_summary sum;
  tl_info info;
  cr_assert_eq(tl_validate_run(&cfg, &sum, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(sum.unexpected, log.count[TL_VERDICT_UNEXPECTED]);
  return log;
}

/* hostile_port MODE over type `type`: its verdicts. */
static verdict_log validate_hostile(const char *mode, int type, size_t nsys, double timeout)
{
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "%s %s {system} {out}", hostile_path("hostile_port"), mode);
  tl_port port;
  tl_info info;
  cr_assert_eq(tl_port_open_exec(&port, cmd, tl_contract_find("pivoting"), &info), TL_OK, "%s",
               info.msg);
  port.timeout = timeout;
  verdict_log log = validate_type(&port, type, nsys);
  if (timeout > 0)
    cr_expect_eq(port.timeouts, log.count[TL_VERDICT_UNEXPECTED]);
  tl_port_close(&port);
  return log;
}

Test(port, hostile_right_answer_passes)
{
  private_tmpdir();
  verdict_log log = validate_hostile("ok", 62, 2, 0);
  cr_expect_eq(log.count[TL_VERDICT_PASSED], 2, "%s", log.note);
}

Test(port, timeout_is_unexpected_and_validate_moves_on, .timeout = 30)
{
  private_tmpdir();
  verdict_log log = validate_hostile("hang", 20, 1, 0.3);
  cr_expect_eq(log.count[TL_VERDICT_UNEXPECTED], 2, "both sizes time out");
  cr_expect_not_null(strstr(log.note, "port: timeout: no answer within 0.3 s"), "%s", log.note);
}

static void nap_ms(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Whether pid is gone (a zombie waiting for init to reap it counts as
 * gone: it runs nothing). */
static int process_gone(long pid)
{
  for (int k = 0; k < 100; k++) {
    if (kill((pid_t)pid, 0) != 0)
      return 1;
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f) {
      size_t len = fread(stat, 1, sizeof stat - 1, f);
      fclose(f);
      stat[len] = '\0';
      const char *paren = strrchr(stat, ')');
      if (paren && paren[1] == ' ' && paren[2] == 'Z')
        return 1;
    }
    nap_ms(20);
  }
  return 0;
}

/* Both processes the hanging port started (it and its child). */
static void expect_port_processes_gone(const char *pidfile)
{
  FILE *f = fopen(pidfile, "r");
  cr_assert_not_null(f, "the port wrote no %s", pidfile);
  long pid = 0, child = 0;
  cr_assert_eq(fscanf(f, "%ld %ld", &pid, &child), 2);
  fclose(f);
  cr_expect(process_gone(pid), "the port (pid %ld) outlived validate", pid);
  cr_expect(process_gone(child), "the port's child (pid %ld) outlived validate", child);
}

Test(port, validate_timeout_option_kills_the_port_group, .timeout = 30)
{
  const char *tmp = private_tmpdir();
  char args[1200], out[700], pids[700];
  snprintf(pids, sizeof pids, "%s/pids", dir);
  snprintf(out, sizeof out, ">%s/out 2>&1", dir);
  snprintf(args, sizeof args,
           "validate --exec '%s hang {system} {out} %s' --contract pivoting --type 20 "
           "--sizes 5 --timeout 1",
           hostile_path("hostile_port"), pids);
  cr_expect_eq(cli_run(args, out), 1);
  char path[700], text[4096] = "";
  snprintf(path, sizeof path, "%s/out", dir);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  text[fread(text, 1, sizeof text - 1, f)] = '\0';
  fclose(f);
  cr_expect_not_null(strstr(text, "port: timeout: no answer within 1 s"), "%s", text);
  cr_expect_not_null(strstr(text, "validate: 0 passed, 0 reported, 1 unexpected (1 timed out), "
                                  "0 silent failures (0 skipped)"),
                     "%s", text);
  cr_expect_eq(entries_left(tmp), 0, "the port's directory is left behind");
  expect_port_processes_gone(pids);
}

Test(port, validate_timeout_is_for_exec_only)
{
  char args[1600], err[2048];
  snprintf(args, sizeof args, "validate --lib %s:port_thomas --timeout 1",
           port_path("libthomas_port.so"));
  cr_expect_eq(run_err(args, err, sizeof err), 1);
  cr_expect_not_null(strstr(err, "--timeout applies to --exec only"), "%s", err);
  cr_expect_eq(run_err("validate --exec 'x {system} {out}' --timeout -1", err, sizeof err), 1);
  cr_expect_not_null(strstr(err, "--timeout must be a number of seconds"), "%s", err);
}

Test(port, validate_removes_whatever_the_port_wrote)
{
  const char *tmp = private_tmpdir();
  char args[1600];
  snprintf(args, sizeof args,
           "validate --exec '%s litter {system} {out}' --contract pivoting --type 20 --sizes 5,17 "
           "--quiet",
           hostile_path("hostile_port"));
  cr_expect_eq(cli_run(args, ">/dev/null 2>&1"), 0, "litter is not a fault");
  cr_expect_eq(entries_left(tmp), 0, "the port's directory is left behind");
}

/* validate on the hanging port, stopped by `sig` while the port runs:
 * it must end the port, remove its directory and die of the signal. */
static void expect_clean_stop(int sig)
{
  const char *tmp = private_tmpdir();
  char cmd[1200], pids[700];
  snprintf(pids, sizeof pids, "%s/pids", dir);
  snprintf(cmd, sizeof cmd, "%s hang {system} {out} %s", hostile_path("hostile_port"), pids);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    signal(sig, SIG_DFL); /* as from a terminal, whatever the test runner set */
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(cli_path(), "tridlab", "validate", "--exec", cmd, "--type", "20", "--sizes", "5",
          (char *)NULL);
    _exit(127);
  }
  for (int k = 0; k < 500 && access(pids, R_OK) != 0; k++)
    nap_ms(10);
  nap_ms(100); /* the file is there; let the port write it whole */
  cr_assert_eq(kill(pid, sig), 0);
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == sig, "validate did not die of signal %d (%#x)", sig,
            st);
  cr_expect_eq(entries_left(tmp), 0, "the port's directory is left behind");
  expect_port_processes_gone(pids);
}

Test(port, sigterm_stops_validate_cleanly, .timeout = 30)
{
  expect_clean_stop(SIGTERM);
}

Test(port, sigint_stops_validate_cleanly, .timeout = 30)
{
  expect_clean_stop(SIGINT);
}

Test(port, port_that_removes_its_input_is_unexpected)
{
  private_tmpdir();
  static const char *const modes[] = {"remove-input", "remove-parent"};
  for (int k = 0; k < 2; k++) {
    verdict_log log = validate_hostile(modes[k], 20, 1, 0);
    cr_expect_eq(log.count[TL_VERDICT_UNEXPECTED], 2, "%s", modes[k]);
    cr_expect_str_eq(log.note, "port: the program removed its input directory {system}", "%s",
                     modes[k]);
  }
}

Test(port, answer_of_the_wrong_shape_or_dtype_is_refused)
{
  private_tmpdir();
  static const struct {
    const char *mode;
    int type;
    size_t nsys;
    const char *why;
  } cases[] = {
      {"flat", 62, 2, "port: x has shape (10, 1), expected (2, 5)"},
      {"flat", 20, 1, "port: x has shape (5, 1), expected (5)"},
      {"float32", 20, 1, "port: x has dtype float32, expected float64"},
      {"float32", 62, 2, "port: x has dtype float32, expected complex128"},
      {"real", 62, 2, "port: x has dtype float64, expected complex128"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    verdict_log log = validate_hostile(cases[k].mode, cases[k].type, cases[k].nsys, 0);
    cr_expect_eq(log.count[TL_VERDICT_UNEXPECTED], 2, "%s on type %d", cases[k].mode,
                 cases[k].type);
    cr_expect_eq(log.count[TL_VERDICT_SILENT] + log.count[TL_VERDICT_PASSED], 0);
    cr_expect_str_eq(log.note, cases[k].why);
  }
}

/* verify --plugin on one hostile algorithm: every cell it does not skip
 * is UNEXPECTED with a note that holds `why`. */
static void expect_plugin_unexpected(const char *algo, const char *why)
{
  static const size_t sizes[] = {1, 5, 17};
  tl_verify_config cfg = {.sizes = sizes, .nsizes = 3, .nsys = 2, .seed = 2026, .algo = algo};
  tl_verify_summary sum;
  tl_info info;
  cr_assert_eq(tl_verify_run(&cfg, &sum, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(sum.passed + sum.reported + sum.silent, 0, "%s: %ld passed, %ld reported", algo,
               sum.passed, sum.reported);
  cr_expect_gt(sum.unexpected, 50, "%s", algo);
  /* The note of one cell, through the pair judge the runner uses. */
  tl_problem p;
  cr_assert_eq(tl_gallery_make(20, 5, 1, 2026, &p, &info), TL_OK);
  tl_verify_result r;
  tl_verify_pair(tl_find(algo), &p, NULL, &r);
  cr_expect_eq(r.verdict, TL_VERDICT_UNEXPECTED);
  cr_expect_not_null(strstr(r.note, why), "%s: %s", algo, r.note);
  tl_problem_free(&p);
}

Test(port, plugin_writing_outside_x_is_unexpected)
{
  tl_info info;
  cr_assert_eq(tl_plugin_load(hostile_path("hostile_plugin.so"), &info), TL_OK, "%s", info.msg);
  expect_plugin_unexpected("hostile_overrun", "hostile_overrun wrote past the end of x");
  expect_plugin_unexpected("hostile_underrun", "hostile_underrun wrote before the start of x");
}

Test(port, plugin_invalid_status_is_unexpected)
{
  tl_info info;
  cr_assert_eq(tl_plugin_load(hostile_path("hostile_plugin.so"), &info), TL_OK, "%s", info.msg);
  expect_plugin_unexpected("hostile_status_42", "invalid status 42");
  expect_plugin_unexpected("hostile_status_m99", "invalid status -99");
  expect_plugin_unexpected("hostile_status_2", "invalid status 2");
}

/* validate --lib on one hostile entry point, over type 20. */
static void expect_lib_unexpected(const char *symbol, const char *why)
{
  char spec[1200];
  snprintf(spec, sizeof spec, "%s:%s", hostile_path("hostile_plugin.so"), symbol);
  tl_port port;
  tl_info info;
  cr_assert_eq(tl_port_open_lib(&port, spec, tl_contract_find("pivoting"), &info), TL_OK, "%s",
               info.msg);
  verdict_log log = validate_type(&port, 20, 2);
  cr_expect_eq(log.count[TL_VERDICT_UNEXPECTED], 2, "%s", symbol);
  cr_expect_not_null(strstr(log.note, why), "%s: %s", symbol, log.note);
  tl_port_close(&port);
}

Test(port, library_port_writing_outside_x_or_invalid_status_is_unexpected)
{
  expect_lib_unexpected("port_overrun", "port_overrun wrote past the end of x");
  expect_lib_unexpected("port_status_42", "invalid status 42");
  expect_lib_unexpected("port_status_m99", "invalid status -99");
  expect_lib_unexpected("port_status_2", "invalid status 2");
}
