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

/* A fresh directory /tmp/tridlab-NAME-XXXXXX into dir. */
static inline void cli_tmpdir(char *dir, size_t size, const char *name)
{
  snprintf(dir, size, "/tmp/tridlab-%s-XXXXXX", name);
  cr_assert_not_null(mkdtemp(dir));
}

/* Remove it and everything in it. */
static inline void cli_rmdir(const char *dir)
{
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_expect_eq(system(cmd), 0);
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
