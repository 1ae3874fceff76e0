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
struct tl_verify_config;
struct tl_verify_summary;
/* `tridlab verify`'s defaults (sizes, quick sizes, partition counts, nsys,
 * seed) in *cfg. */
void cli_verify_defaults(struct tl_verify_config *cfg, int quick);
/* The verification as `tridlab verify` runs and prints it: the table
 * (unless quiet), the failures and the summary line on stdout, every pair
 * to csv_path and the table to md_path where they are not NULL; the counts
 * from the library's runner in *sum. 0, or EXIT_BAD_INPUT (said). */
int cli_verify_run(struct tl_verify_config *cfg, const char *csv_path, const char *md_path,
                   int quiet, struct tl_verify_summary *sum);
int cmd_converge(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_gallery(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_trace(int argc, char **argv);

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
/* Parse a comma-separated list of gallery ids or names into ids. */
int cli_parse_types(const char *s, int *out, size_t cap, size_t *count);
/* The promises an answer is judged by: --contract NAME or --like ALGO
 * (thomas-like when neither); NULL with a message when unknown. */
struct tl_algorithm;
const struct tl_algorithm *cli_find_contract(const char *contract, const char *like);

/* What an approximate algorithm dropped, its tolerance and its bound,
 * each with what it measures (tl_algorithm.dropped_means, bound_means):
 * every algorithm normalises them its own way. */
struct tl_info;
void cli_print_dropped(const struct tl_algorithm *algo, const struct tl_info *info);

/* --plugin PATH (argv[*i]): load the plug-in, whose tridlab_plugin_init
 * registers its algorithms (tl_plugin_load). 0, or -1 with a message. */
int cli_plugin(int argc, char **argv, int *i);

/* One cell of a conformance table (an algorithm on a gallery type, over
 * its sizes): verdict counts and the largest residual ratio of a pass. */
struct tl_verify_result;
typedef struct cli_cell {
  long n[5];         /* count per tl_verdict */
  double max_resid;  /* largest residual ratio among the passes */
} cli_cell;
void cli_cell_add(cli_cell *c, const struct tl_verify_result *r);
/* The worst verdict wins: SILENT, UNEXPECTED, then "pass R" (R the
 * largest residual ratio), "pass+rep R", "rep", "skip" or "-". */
void cli_cell_text(const cli_cell *c, char *buf, size_t size);

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
