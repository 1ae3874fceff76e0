/* cli/cli.h -- shared pieces of the tridlab command. */
#ifndef TRIDLAB_CLI_H
#define TRIDLAB_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "tridlab/study.h"

/* Exit statuses of `tridlab solve` (documented in its --help). */
enum {
  EXIT_SOLVED = 0,
  EXIT_BAD_INPUT = 1,
  EXIT_BREAKDOWN = 2,
  EXIT_OUTSIDE_DOMAIN = 3
};

int cmd_list(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_converge(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* The program's name in messages ("tridlab"; "tridlab-mpi"), and 1 on
 * the MPI ranks that must not print (rank 0 speaks for all). */
extern const char *cli_program;
extern int cli_silent;

/* Print "<program>: <msg>" on stderr (nothing when cli_silent). */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The value of option argv[*i] (--opt VALUE or --opt=VALUE); advances *i.
 * NULL (with a message) if it is missing. */
const char *cli_value(int argc, char **argv, int *i, const char *opt);
/* 1 if argv[i] is `opt` or starts with `opt=`. */
int cli_is(const char *arg, const char *opt);
/* Seconds on a monotonic clock (for timings). */
double cli_now(void);

/* Parse an integer / unsigned 64-bit / comma-separated size list;
 * 0 on success, -1 with a message naming `what` otherwise. */
int cli_parse_int(const char *s, const char *what, long min, long max, long *out);
int cli_parse_u64(const char *s, const char *what, uint64_t *out);
int cli_parse_sizes(const char *s, const char *what, size_t *out, size_t cap, size_t *count);

/* Progress on stderr, only when it is a terminal: "\r<prefix>: <what>
 * (done/total)", and the line cleared. */
void progress_line(const char *prefix, const char *what, size_t done, size_t total);
void progress_clear(void);
/* A tl_study_progress function printing that line (what == NULL clears it). */
void cli_study_progress(const char *study, const char *what, size_t done, size_t total, void *ctx);
/* After a study: say once that gnuplot is not installed, or the first plot
 * gnuplot failed on (nothing when plot is 0 or every plot was made). */
void cli_plot_notes(const char *dir, int plot, const tl_study_result *res);

#endif
