/* tests/cli_helpers.h -- what the tests that run the tridlab command
 * share: the command itself (found through TRIDLAB_CLI, which `make
 * check` sets; without it those tests are skipped), a temporary
 * directory per test, and running the command. Header-only: each test
 * file that includes it gets its own static copies. */
#ifndef TRIDLAB_TESTS_CLI_HELPERS_H
#define TRIDLAB_TESTS_CLI_HELPERS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The tridlab command; skips the test when TRIDLAB_CLI is not set. */
static inline const char *cli_path(void)
{
  const char *p = getenv("TRIDLAB_CLI");
  if (!p || access(p, X_OK) != 0)
    cr_skip_test("TRIDLAB_CLI is not set to the tridlab command");
  return p;
}

/* The directories this test process made, removed when it exits: a test
 * whose assertion fails ends before its own cli_rmdir, and its directory
 * would stay behind. */
enum { CLI_DIRS = 8 };
static char cli_dirs[CLI_DIRS][256];
static int cli_dirs_registered;

static void cli_dirs_remove(void)
{
  for (int k = 0; k < CLI_DIRS; k++)
    if (cli_dirs[k][0]) {
      char cmd[sizeof cli_dirs + 16]; /* GCC bounds the string by the whole array */
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", cli_dirs[k]);
      if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cli_dirs[k]);
      cli_dirs[k][0] = 0;
    }
}

/* A fresh directory /tmp/tridlab-NAME-XXXXXX into dir, removed at exit at
 * the latest. */
static inline void cli_tmpdir(char *dir, size_t size, const char *name)
{
  snprintf(dir, size, "/tmp/tridlab-%s-XXXXXX", name);
  cr_assert_not_null(mkdtemp(dir));
  int k = 0;
  while (k < CLI_DIRS && cli_dirs[k][0])
    k++;
  if (!cli_dirs_registered)
    cli_dirs_registered = atexit(cli_dirs_remove) == 0;
  if (k < CLI_DIRS && strlen(dir) < sizeof cli_dirs[k])
    strcpy(cli_dirs[k], dir);
}

/* Remove it and everything in it (and forget it). */
static inline void cli_rmdir(const char *dir)
{
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_expect_eq(system(cmd), 0);
  for (int k = 0; k < CLI_DIRS; k++)
    if (!strcmp(cli_dirs[k], dir))
      cli_dirs[k][0] = 0;
}

/* Run `tridlab ARGS REDIRECT` (REDIRECT: a shell redirection of its
 * output, e.g. ">/dev/null 2>&1"); its exit status. */
static inline int cli_run(const char *args, const char *redirect)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s %s %s", cli_path(), args, redirect);
  int st = system(cmd);
  cr_assert(WIFEXITED(st), "command did not exit normally: %s", cmd);
  return WEXITSTATUS(st);
}

#endif
