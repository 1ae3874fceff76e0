/* verify/answer_internal.h -- what the drivers that judge answers share
 * (verify/runner.c, verify/port_run.c; private: not installed, not
 * included by users): x between two guard regions, so that a solver
 * (a plug-in, a --lib port, a registry algorithm) that writes before
 * x[0] or past its last entry is caught on every call, not counted as
 * passing, and not left to corrupt the heap of the program judging it.
 */
#ifndef TRIDLAB_ANSWER_INTERNAL_H
#define TRIDLAB_ANSWER_INTERNAL_H

#include <stddef.h>

#include "tridlab/registry.h"
#include "tridlab/verify.h"

/* Bytes of guard before and after x: a multiple of 64, so x keeps the
 * alignment of the allocation. */
#define TL_ANSWER_GUARD 256

/* count entries of es bytes, zeroed, between two guards (via tl_alloc,
 * so the allocation-failure tests reach it); NULL when out of memory.
 * Free with tl_answer_free. */
void *tl_answer_alloc(size_t count, size_t es);
void tl_answer_free(void *x);

/* 1 when a guard of x changed since tl_answer_alloc: then the verdict is
 * UNEXPECTED and the note says which side, how many bytes and that
 * `algo` wrote them. 0 (r untouched) when both guards are intact. */
int tl_answer_check_guards(const tl_algorithm *algo, const void *x, size_t count, size_t es,
                           tl_verify_result *r);

/* Mark r UNEXPECTED because the solver broke its interface (no answer
 * in time, an answer of the wrong shape, memory written outside x): a
 * bug whatever the matrix, so whatever the gallery expected. */
void tl_answer_fault(tl_verify_result *r, const char *why);

#endif
