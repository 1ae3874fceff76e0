/* core/status.c -- status names and the solve report. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tridlab/status.h"

const char *tl_status_name(int status)
{
  switch (status) {
  case TL_OK: return "ok";
  case TL_OUTSIDE_DOMAIN: return "outside-domain";
  case TL_ERR_ARG: return "bad-argument";
  case TL_ERR_BREAKDOWN: return "breakdown";
  case TL_ERR_NOT_CONVERGED: return "not-converged";
  case TL_ERR_UNSUPPORTED: return "unsupported";
  case TL_ERR_NOMEM: return "out-of-memory";
  case TL_ERR_IO: return "io-error";
  default: return "unknown-status";
  }
}

int tl_status_has_solution(int status) { return status == TL_OK || status == TL_OUTSIDE_DOMAIN; }

void tl_info_clear(tl_info *info)
{
  if (!info)
    return;
  memset(info, 0, sizeof *info);
  info->system = -1;
  info->row = -1;
}

int tl_info_set(tl_info *info, const char *file, int line, int status, long system, long row,
                const char *arg, const char *fmt, ...)
{
  if (!info)
    return status;
  info->status = status;
  info->system = system;
  info->row = row;
  info->file = file;
  info->line = line;
  snprintf(info->arg, sizeof info->arg, "%s", arg ? arg : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(info->msg, sizeof info->msg, fmt, ap);
  va_end(ap);
  return status;
}
