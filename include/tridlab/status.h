/* tridlab/status.h -- status codes and the solve report (docs/design.md §4).
 *
 * Every tridlab function returns an int status. Negative: no solution.
 * Zero: solved inside the algorithm's guaranteed domain. Positive: a
 * solution was written but carries no stability guarantee, and the
 * report says why. No library function prints or aborts.
 */
#ifndef TRIDLAB_STATUS_H
#define TRIDLAB_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tl_status {
  TL_OK = 0,                /* solved, inside the guaranteed domain            */
  TL_OUTSIDE_DOMAIN = 1,    /* solved, but outside the domain (msg says why)   */
  TL_ERR_ARG = -1,          /* bad argument: info.arg names it                 */
  TL_ERR_BREAKDOWN = -2,    /* zero or non-finite pivot at info.row            */
  TL_ERR_NOT_CONVERGED = -3,/* iteration limit or stagnation; no solution      */
  TL_ERR_UNSUPPORTED = -4,  /* this backend does not handle the case           */
  TL_ERR_NOMEM = -5,        /* allocation failed                               */
  TL_ERR_IO = -6            /* file could not be read or written               */
};

/* What a solve reports besides its status. Fields that do not apply stay
 * at the values tl_info_clear() gives them (-1, "" and 0). */
typedef struct tl_info {
  int status;        /* the returned status, repeated                       */
  long system;       /* batch index the status refers to, -1 if none        */
  long row;          /* row of a breakdown / domain violation, -1 if none   */
  char arg[32];      /* name of the bad argument for TL_ERR_ARG             */
  char msg[256];     /* one line for a person, no trailing newline          */
  const char *file;  /* where the status was set (source file and line)     */
  int line;
  /* Approximate and iterative algorithms: */
  double dropped;    /* magnitude of what was dropped (largest in batch)    */
  double tol;        /* the tolerance it was compared with                  */
  double bound;      /* stated bound on the error, 0 when none applies      */
  int iterations;    /* iterations used (largest in batch)                  */
} tl_info;

/* Short name of a status ("ok", "outside-domain", "bad-argument", ...). */
const char *tl_status_name(int status);

/* 1 when the status means a solution was written (TL_OK, TL_OUTSIDE_DOMAIN). */
int tl_status_has_solution(int status);

void tl_info_clear(tl_info *info);

/* Record a status in info (info may be NULL) and return it. Use the
 * TL_FAIL / TL_WARN macros of tridlab/backend.h, which add file and line. */
int tl_info_set(tl_info *info, const char *file, int line, int status,
                long system, long row, const char *arg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 8, 9)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
