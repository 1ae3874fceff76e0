/* optimized/mpi/exchange.c -- the exchange layer: the only code that calls
 * MPI for the solvers, and the place the ledger is recorded.
 *
 * Each function is one MPI call (or one Sendrecv / one set of
 * non-blocking neighbour messages completed together) with the entries
 * this rank adds to the ledger. Counts are elements of the dtype; the
 * ledger counts 8-byte words. A message to oneself (a periodic system on
 * one rank) is a copy: nothing is sent, nothing recorded.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

enum { TAG_TO_NEXT = 101, TAG_TO_PREV = 102, TAG_SHIFT = 103, TAG_SPARSE = 104 };

double tl_mpi_now(void)
{
  return MPI_Wtime();
}

const char *tl_mpi_gpu_aware(int *aware)
{
  int yes = 0;
  const char *why = "unknown: this MPI library does not say (no MPIX_CUDA_AWARE_SUPPORT)";
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  yes = MPIX_Query_cuda_support() == 1;
  why = yes ? "yes (CUDA, at build and at run time)"
            : "no: built with CUDA support, none at run time (MPIX_Query_cuda_support)";
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  why = "no: this MPI library was built without CUDA support (MPIX_CUDA_AWARE_SUPPORT 0)";
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  if (!yes && MPIX_Query_rocm_support() == 1)
    yes = 1, why = "yes (ROCm, at build and at run time)";
#endif
  if (aware)
    *aware = yes;
  return why;
}

static MPI_Datatype mpi_type(tl_dtype dt)
{
  return dt == TL_C128 ? MPI_C_DOUBLE_COMPLEX : MPI_DOUBLE;
}

/* 8-byte words per element. */
static size_t words_per(tl_dtype dt)
{
  return dt == TL_C128 ? 2 : 1;
}

static int too_big(size_t count)
{
  return count > (size_t)INT_MAX;
}

#define CHECK_COUNT(n)                                                                             \
  do {                                                                                             \
    if (too_big(n))                                                                                \
      return TL_ERR_UNSUPPORTED;                                                                   \
  } while (0)

int tl_mpi_shift_start(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt,
                       const void *send, size_t count, int dst, void *recv, size_t rcount, int src,
                       tl_mpi_pending *pend)
{
  CHECK_COUNT(count);
  CHECK_COUNT(rcount);
  size_t w = words_per(dt);
  pend->nreq = 0;
  if (dst == ex->rank && src == ex->rank) {
    memcpy(recv, send, (count < rcount ? count : rcount) * tl_dtype_size(dt));
    return TL_OK;
  }
  double t0 = MPI_Wtime();
  if (src >= 0)
    MPI_Irecv(recv, (int)rcount, mpi_type(dt), src, TAG_SHIFT, ex->comm, &pend->req[pend->nreq++]);
  if (dst >= 0)
    MPI_Isend(send, (int)count, mpi_type(dt), dst, TAG_SHIFT, ex->comm, &pend->req[pend->nreq++]);
  ex->seconds += MPI_Wtime() - t0;
  if (dst >= 0)
    tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_SEND, ex->rank, dst, count * w);
  if (src >= 0)
    tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_RECV, ex->rank, src, rcount * w);
  return TL_OK;
}

int tl_mpi_wait(tl_mpi_exchange *ex, tl_mpi_pending *pend)
{
  double t0 = MPI_Wtime();
  MPI_Waitall(pend->nreq, pend->req, MPI_STATUSES_IGNORE);
  ex->seconds += MPI_Wtime() - t0;
  pend->nreq = 0;
  return TL_OK;
}

int tl_mpi_shift(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, const void *send,
                 size_t count, int dst, void *recv, size_t rcount, int src)
{
  tl_mpi_pending pend;
  TL_CALL(tl_mpi_shift_start(ex, phase, round, dt, send, count, dst, recv, rcount, src, &pend));
  return tl_mpi_wait(ex, &pend);
}

int tl_mpi_neighbours(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, int prev,
                      int next, const void *to_prev, size_t nto_prev, const void *to_next,
                      size_t nto_next, void *from_prev, size_t nfrom_prev, void *from_next,
                      size_t nfrom_next)
{
  CHECK_COUNT(nto_prev);
  CHECK_COUNT(nto_next);
  CHECK_COUNT(nfrom_prev);
  CHECK_COUNT(nfrom_next);
  size_t w = words_per(dt), es = tl_dtype_size(dt);
  MPI_Request req[4];
  int nreq = 0;
  double t0 = MPI_Wtime();
  /* A message to oneself is a copy (one rank, periodic): what this rank
   * sends "forward" to itself is what it receives from "behind". */
  if (prev == ex->rank && next == ex->rank) {
    if (from_prev && to_next)
      memcpy(from_prev, to_next, nto_next * es);
    if (from_next && to_prev)
      memcpy(from_next, to_prev, nto_prev * es);
    return TL_OK;
  }
  /* Tags say the direction, so two messages between the same two ranks
   * (P = 2, periodic) cannot be confused. */
  if (prev >= 0 && from_prev)
    MPI_Irecv(from_prev, (int)nfrom_prev, mpi_type(dt), prev, TAG_TO_NEXT, ex->comm, &req[nreq++]);
  if (next >= 0 && from_next)
    MPI_Irecv(from_next, (int)nfrom_next, mpi_type(dt), next, TAG_TO_PREV, ex->comm, &req[nreq++]);
  if (prev >= 0 && to_prev)
    MPI_Isend(to_prev, (int)nto_prev, mpi_type(dt), prev, TAG_TO_PREV, ex->comm, &req[nreq++]);
  if (next >= 0 && to_next)
    MPI_Isend(to_next, (int)nto_next, mpi_type(dt), next, TAG_TO_NEXT, ex->comm, &req[nreq++]);
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  ex->seconds += MPI_Wtime() - t0;
  if (prev >= 0 && to_prev)
    tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_SEND, ex->rank, prev, nto_prev * w);
  if (next >= 0 && to_next)
    tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_SEND, ex->rank, next, nto_next * w);
  if (prev >= 0 && from_prev)
    tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_RECV, ex->rank, prev, nfrom_prev * w);
  if (next >= 0 && from_next)
    tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_RECV, ex->rank, next, nfrom_next * w);
  return TL_OK;
}

int tl_mpi_allgather(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt,
                     const void *send, size_t count, void *recv)
{
  CHECK_COUNT(count);
  double t0 = MPI_Wtime();
  MPI_Allgather(send, (int)count, mpi_type(dt), recv, (int)count, mpi_type(dt), ex->comm);
  ex->seconds += MPI_Wtime() - t0;
  size_t words = count * words_per(dt);
  tl_ledger_collective(ex->ledger, phase, round, TL_LEDGER_ALLGATHER, ex->rank, -1, words,
                       (size_t)(ex->size - 1) * words);
  return TL_OK;
}

int tl_mpi_gather(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, const void *send,
                  size_t count, void *recv, int root)
{
  CHECK_COUNT(count);
  double t0 = MPI_Wtime();
  MPI_Gather(send, (int)count, mpi_type(dt), recv, (int)count, mpi_type(dt), root, ex->comm);
  ex->seconds += MPI_Wtime() - t0;
  size_t words = count * words_per(dt);
  int at_root = ex->rank == root;
  tl_ledger_collective(ex->ledger, phase, round, TL_LEDGER_GATHER, ex->rank, root,
                       at_root ? 0 : words, at_root ? (size_t)(ex->size - 1) * words : 0);
  return TL_OK;
}

int tl_mpi_scatter(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, const void *send,
                   size_t count, void *recv, int root)
{
  CHECK_COUNT(count);
  double t0 = MPI_Wtime();
  MPI_Scatter(send, (int)count, mpi_type(dt), recv, (int)count, mpi_type(dt), root, ex->comm);
  ex->seconds += MPI_Wtime() - t0;
  size_t words = count * words_per(dt);
  int at_root = ex->rank == root;
  tl_ledger_collective(ex->ledger, phase, round, TL_LEDGER_SCATTER, ex->rank, root,
                       at_root ? (size_t)(ex->size - 1) * words : 0, at_root ? 0 : words);
  return TL_OK;
}

int tl_mpi_bcast(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt, void *buf,
                 size_t count, int root)
{
  CHECK_COUNT(count);
  double t0 = MPI_Wtime();
  MPI_Bcast(buf, (int)count, mpi_type(dt), root, ex->comm);
  ex->seconds += MPI_Wtime() - t0;
  size_t words = count * words_per(dt);
  int at_root = ex->rank == root;
  tl_ledger_collective(ex->ledger, phase, round, TL_LEDGER_BCAST, ex->rank, root,
                       at_root ? words : 0, at_root ? 0 : words);
  return TL_OK;
}

/* One allreduce of count doubles in place with a predefined operation. */
static int allreduce_doubles(tl_mpi_exchange *ex, const char *phase, int round, double *buf,
                             size_t count, MPI_Op op)
{
  CHECK_COUNT(count);
  double t0 = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_DOUBLE, op, ex->comm);
  ex->seconds += MPI_Wtime() - t0;
  tl_ledger_collective(ex->ledger, phase, round, TL_LEDGER_ALLREDUCE, ex->rank, -1, count, count);
  return TL_OK;
}

int tl_mpi_allreduce_max(tl_mpi_exchange *ex, const char *phase, int round, double *buf,
                         size_t count)
{
  return allreduce_doubles(ex, phase, round, buf, count, MPI_MAX);
}

int tl_mpi_allreduce_sum(tl_mpi_exchange *ex, const char *phase, int round, double *buf,
                         size_t count)
{
  return allreduce_doubles(ex, phase, round, buf, count, MPI_SUM);
}

/* MPI's user operation for (value, row) pairs: tl_pair_max, which is a
 * total order, hence commutative and associative as MPI requires. The
 * pair is one MPI datatype, so MPI never splits a value from its row. */
static void pair_max_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
  (void)type;
  const double *a = in;
  double *b = inout;
  for (int k = 0; k < *len; k++) {
    long row = (long)b[2 * k + 1];
    tl_pair_max(&b[2 * k], &row, a[2 * k], (long)a[2 * k + 1]);
    b[2 * k + 1] = (double)row;
  }
}

int tl_mpi_allreduce_pairs(tl_mpi_exchange *ex, const char *phase, int round, double *pairs,
                           size_t npairs)
{
  static MPI_Op op = MPI_OP_NULL;
  static MPI_Datatype pair = MPI_DATATYPE_NULL;
  CHECK_COUNT(npairs);
  if (op == MPI_OP_NULL) {
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(pair_max_op, 1, &op);
  }
  double t0 = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, pairs, (int)npairs, pair, op, ex->comm);
  ex->seconds += MPI_Wtime() - t0;
  tl_ledger_collective(ex->ledger, phase, round, TL_LEDGER_ALLREDUCE, ex->rank, -1, 2 * npairs,
                       2 * npairs);
  return TL_OK;
}

/* ---- messages to any ranks (its_mpi.c: the windows of ITS) ---------- */

int tl_mpi_sparse(tl_mpi_exchange *ex, const char *phase, int round, tl_dtype dt,
                  const size_t *scount, const void *const *sbuf, const size_t *rcount,
                  void *const *rbuf)
{
  int P = ex->size, nreq = 0;
  for (int q = 0; q < P; q++) {
    CHECK_COUNT(scount[q]);
    CHECK_COUNT(rcount[q]);
  }
  MPI_Request *req = malloc(2 * (size_t)P * sizeof *req);
  if (!req)
    return TL_ERR_NOMEM;
  size_t w = words_per(dt);
  double t0 = MPI_Wtime();
  for (int q = 0; q < P; q++) /* nothing to oneself: a rank keeps its rows */
    if (q != ex->rank && rcount[q] > 0)
      MPI_Irecv(rbuf[q], (int)rcount[q], mpi_type(dt), q, TAG_SPARSE, ex->comm, &req[nreq++]);
  for (int q = 0; q < P; q++)
    if (q != ex->rank && scount[q] > 0)
      MPI_Isend(sbuf[q], (int)scount[q], mpi_type(dt), q, TAG_SPARSE, ex->comm, &req[nreq++]);
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  ex->seconds += MPI_Wtime() - t0;
  free(req);
  for (int q = 0; q < P; q++) {
    if (q == ex->rank)
      continue;
    if (scount[q] > 0)
      tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_SEND, ex->rank, q, scount[q] * w);
    if (rcount[q] > 0)
      tl_ledger_p2p(ex->ledger, phase, round, TL_LEDGER_RECV, ex->rank, q, rcount[q] * w);
  }
  return TL_OK;
}
