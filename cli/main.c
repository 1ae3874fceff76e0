/* cli/main.c -- the tridlab command: subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tridlab/tridlab.h"

static void usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab COMMAND [options]\n"
          "\n"
          "tridlab %s -- teaching reference and verification framework for tridiagonal solvers\n"
          "\n"
          "commands:\n"
          "  list     the algorithms in the registry, their classes and parameters\n"
          "  solve    solve a system (or batch) stored as .npy files\n"
          "  verify   every algorithm on every gallery matrix, against LAPACK\n"
          "  converge order of accuracy of compact schemes, solved by any algorithm\n"
          "  sweep    truncation-error studies of the approximate partition algorithms\n"
          "  report   verification, convergence studies and sweeps, as report/index.md\n"
          "  bench    optimized CPU kernels against the memory-bandwidth limit\n"
          "  trace    one small solve stage by stage: matrices, messages, drops\n"
          "  gallery  list the gallery, or export it as system directories for ports\n"
          "  check    judge one answer of a port: LAPACK's ratios and the verdict\n"
          "  validate run a port (program or shared library) over the whole gallery\n"
          "\n"
          "Run 'tridlab COMMAND --help' for the options of a command.\n",
          TRIDLAB_VERSION);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return EXIT_BAD_INPUT;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("tridlab %s\n", TRIDLAB_VERSION);
    return 0;
  }
  if (!strcmp(cmd, "list"))
    return cmd_list(argc - 1, argv + 1);
  if (!strcmp(cmd, "solve"))
    return cmd_solve(argc - 1, argv + 1);
  if (!strcmp(cmd, "sweep"))
    return cmd_sweep(argc - 1, argv + 1);
  if (!strcmp(cmd, "report"))
    return cmd_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "converge"))
    return cmd_converge(argc - 1, argv + 1);
  if (!strcmp(cmd, "verify"))
    return cmd_verify(argc - 1, argv + 1);
  if (!strcmp(cmd, "bench"))
    return cmd_bench(argc - 1, argv + 1);
  if (!strcmp(cmd, "trace"))
    return cmd_trace(argc - 1, argv + 1);
  if (!strcmp(cmd, "gallery"))
    return cmd_gallery(argc - 1, argv + 1);
  if (!strcmp(cmd, "check"))
    return cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "validate"))
    return cmd_validate(argc - 1, argv + 1);
  cli_error("unknown command '%s' (try 'tridlab --help')", cmd);
  return EXIT_BAD_INPUT;
}
