/* optimized/mpi/solve_mpi.c -- tl_mpi_solve: the checks every rank makes
 * and agrees on before an algorithm runs, and the distribution of whole
 * batches (the I/O of the command and the tests).
 *
 * The checks are tl_solve's (core/solve.c), made by each rank on its own
 * rows, plus the slices: each at least the algorithm's smallest partition
 * and adding up to n (tl_check_partitions, the check tl_solve makes of
 * its partitions), and contiguous; and every rank's batch has rank 0's
 * shape (n, nsys, dtype, layout). One allgather of (begin, m, status,
 * shape) lets every rank see every rank's verdict; the lowest rank that found a
 * problem broadcasts its report, so all return the same one-line error.
 * These collectives are not part of any algorithm and are not recorded
 * in the ledger.
 */
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"

void tl_mpi_even_slice(size_t n, int P, int rank, size_t *begin, size_t *m)
{
  size_t end;
  tl_partition_bounds(n, P, NULL, rank, begin, &end);
  *m = end - *begin;
}

void tl_mpi_default_slices(const tl_algorithm *algo, size_t n, int P, size_t *sizes)
{
  if (algo && algo->mpi && algo->mpi->slices) {
    algo->mpi->slices(n, P, sizes);
    return;
  }
  for (int r = 0; r < P; r++) {
    size_t begin;
    tl_mpi_even_slice(n, P, r, &begin, &sizes[r]);
  }
}

static int share_report(MPI_Comm comm, int rank, int owner, tl_info *info);

/* The checks of one rank on its own slice (no communication): tl_solve's
 * own (tl_check_batch), on the rows this rank holds; the entries' values
 * but for a program that checks them itself (own_entry_check). */
static int check_local(const tl_algorithm *algo, const tl_mpi_batch *sl, const void *x,
                       tl_info *info)
{
  tl_batch mine = {.dtype = sl->dtype, .n = sl->m, .nsys = sl->nsys, .periodic = sl->periodic,
                   .a = sl->a, .b = sl->b, .c = sl->c, .d = sl->d};
  return tl_check_batch(algo, &mine, sl->begin, sl->n, x, !algo->mpi->own_entry_check, info);
}

/* Systems [s0, s0 + k) of the slice as a batch of their own. */
static tl_batch chunk_of(const tl_mpi_batch *sl, size_t s0, size_t k)
{
  size_t off = s0 * sl->m * tl_dtype_size(sl->dtype); /* bytes to system s0 */
  return (tl_batch){.dtype = sl->dtype, .n = sl->m, .nsys = k, .periodic = sl->periodic,
                    .a = (const char *)sl->a + off, .b = (const char *)sl->b + off,
                    .c = (const char *)sl->c + off, .d = (const char *)sl->d + off};
}

int tl_mpi_entries_scan(const tl_mpi_batch *sl, size_t s0, size_t k)
{
  tl_batch chunk = chunk_of(sl, s0, k);
  return tl_entries_fine(&chunk, sl->begin, sl->n);
}

int tl_mpi_corners_fine(const tl_mpi_batch *sl, size_t s0, size_t k)
{
  tl_batch chunk = chunk_of(sl, s0, k);
  return tl_corners_fine(&chunk, sl->begin, sl->n);
}

int tl_mpi_rows_finite(const tl_mpi_batch *sl, size_t s0, size_t k, size_t i0, size_t i1)
{
  const double *v[4] = {sl->a, sl->b, sl->c, sl->d};
  for (size_t s = s0; s < s0 + k; s++)
    for (int j = 0; j < 4; j++)
      for (size_t i = i0; i < i1; i++)
        if (!isfinite(v[j][s * sl->m + i]))
          return 0;
  return 1;
}

int tl_mpi_entries_from_flags(const tl_mpi_batch *sl, size_t s0, size_t k,
                              const unsigned char *flag, const unsigned char *skip)
{
  if (!tl_mpi_rows_finite(sl, s0, k, 0, 1) || !tl_mpi_rows_finite(sl, s0, k, sl->m - 1, sl->m) ||
      !tl_mpi_corners_fine(sl, s0, k))
    return 0;
  for (size_t j = 0; j < k; j++) {
    if (skip && skip[j]) {
      if (!tl_mpi_entries_scan(sl, s0 + j, 1))
        return 0;
    } else if (flag[j] == 1)
      return 0;
  }
  return 1;
}

int tl_mpi_entries_agree(tl_mpi_exchange *ex, const tl_mpi_batch *sl, int suspect, tl_info *info)
{
  tl_info mine;
  tl_info_clear(&mine);
  int status = TL_OK;
  if (suspect) { /* the report, as tl_mpi_solve's own check would give it */
    tl_batch b = {.dtype = sl->dtype, .n = sl->m, .nsys = sl->nsys, .periodic = sl->periodic,
                  .a = sl->a, .b = sl->b, .c = sl->c, .d = sl->d};
    status = tl_check_entries(&b, sl->begin, sl->n, &mine);
  }
  int failed = status < 0 ? ex->rank : ex->size, owner;
  MPI_Allreduce(&failed, &owner, 1, MPI_INT, MPI_MIN, ex->comm);
  if (owner == ex->size)
    return TL_OK;
  if (ex->rank == owner)
    *info = mine;
  return share_report(ex->comm, ex->rank, owner, info);
}

int tl_mpi_check_slices(const tl_algorithm *algo, size_t n, int P, const size_t *slices,
                        tl_info *info)
{
  if (!algo)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "no algorithm given");
  tl_algorithm view;
  algo = tl_algorithm_resolve(algo, &view);
  tl_batch sys = {.n = n};
  tl_options o;
  tl_options_init(&o);
  o.parts = P;
  /* The even split first: when n is too small for P ranks that says so
   * once, instead of naming the first slice that came out too small. Any
   * slices that pass the second check pass the first. */
  TL_CALL(tl_check_partitions(algo, &sys, &o, info));
  if (!slices)
    return TL_OK;
  o.part_sizes = slices;
  return tl_check_partitions(algo, &sys, &o, info);
}

/* The allgather's words per rank: begin, m, failed, n, nsys, and dtype
 * and layout (2 dtype + periodic). */
#define SLOT_WORDS 6

/* Every rank must hold a slice of the same batch: the same n, nsys, dtype
 * and layout as rank 0 (a rank given another batch would run a different
 * number of rounds and leave the others waiting). The same verdict on
 * every rank: they all see the same table. */
static int check_shapes(const unsigned long long *table, int P, tl_info *info)
{
  static const char *const what[3] = {"n", "nsys", "dtype or layout"};
  for (int r = 1; r < P; r++)
    for (int k = 0; k < 3; k++)
      if (table[SLOT_WORDS * r + 3 + k] != table[3 + k])
        return TL_FAIL(info, TL_ERR_ARG, -1, -1, k == 0 ? "n" : k == 1 ? "nsys" : "dtype",
                       "rank %d holds a batch with another %s than rank 0's (%llu, rank 0: "
                       "%llu): every rank must pass a slice of the same batch",
                       r, what[k], table[SLOT_WORDS * r + 3 + k], table[3 + k]);
  return TL_OK;
}

/* Every rank's (begin, m) against n and the algorithm's smallest slice;
 * the same verdict on every rank (they all see the same table). The
 * sizes first, by tl_solve's own check (no sum that wraps around), so
 * the running begin below cannot wrap either. */
static int check_slices(const tl_algorithm *algo, const unsigned long long *table, int P,
                        size_t n, size_t *slices, tl_info *info)
{
  for (int r = 0; r < P; r++)
    slices[r] = (size_t)table[SLOT_WORDS * r + 1];
  TL_CALL(tl_mpi_check_slices(algo, n, P, slices, info));
  size_t next = 0;
  for (int r = 0; r < P; r++) {
    size_t begin = (size_t)table[SLOT_WORDS * r];
    if (begin != next)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "rank %d holds rows from %zu, but rank %d ends at row %zu: slices must be "
                     "contiguous, in rank order",
                     r, begin, r - 1, next);
    next += slices[r];
  }
  return TL_OK;
}

/* The algorithm on agreed arguments. A periodic system of n <= 2 rows
 * folds onto itself (tridlab/system.h): on one rank it is folded as
 * tl_solve folds it, so every backend solves the same matrix; across
 * ranks it would be split inside a row's own wrap-around, and is refused
 * (the same verdict on every rank: they all see n and P). */
static int run_algorithm(const tl_algorithm *algo, MPI_Comm comm, int rank, int P,
                         const tl_mpi_batch *local, const size_t *slices, void *x,
                         const tl_options *opt, tl_info *info, double *comm_seconds)
{
  tl_options o;
  if (opt)
    o = *opt;
  else
    tl_options_init(&o);
  o.parts = P;
  o.part_sizes = slices;
  tl_mpi_exchange ex = {.comm = comm, .rank = rank, .size = P, .ledger = o.ledger};
  if (!local->periodic || local->n > 2) {
    int status = algo->mpi->solve(algo, &ex, local, slices, x, &o, info);
    *comm_seconds = ex.seconds;
    return status;
  }
  if (P > 1)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "parts",
                   "%s: a periodic system of %zu rows folds onto itself; solve it on one rank",
                   algo->name, local->n);
  tl_batch whole = {.dtype = local->dtype, .n = local->n, .nsys = local->nsys, .periodic = 1,
                    .a = local->a, .b = local->b, .c = local->c, .d = local->d};
  tl_batch folded;
  void *storage;
  TL_CALL(tl_batch_fold_periodic(&whole, &folded, &storage, info));
  tl_mpi_batch mine = *local;
  mine.a = folded.a, mine.b = folded.b, mine.c = folded.c;
  int status = algo->mpi->solve(algo, &ex, &mine, slices, x, &o, info);
  *comm_seconds = ex.seconds;
  free(storage);
  return status;
}

/* Memory that runs out on one rank in the middle of a solve leaves the
 * others waiting for a message that never comes. No status can reach
 * them, so the one way out that cannot hang is to end the job: say why on
 * this rank, then MPI_Abort. On one rank the status is returned. */
static int end_the_job_on_nomem(MPI_Comm comm, int rank, int P, int status, const tl_info *info)
{
  if (status != TL_ERR_NOMEM || P == 1)
    return status;
  fprintf(stderr,
          "tridlab-mpi: rank %d of %d: %s; ending the job (MPI_Abort), as the other ranks would "
          "wait for this one forever\n",
          rank, P, info->msg[0] ? info->msg : "no memory");
  fflush(stderr);
  MPI_Abort(comm, 3);
  return status;
}

/* The report of the lowest rank whose status is an error, to all. */
static int share_report(MPI_Comm comm, int rank, int owner, tl_info *info)
{
  enum { WORDS = (sizeof(tl_info) + sizeof(double) - 1) / sizeof(double) };
  double buf[WORDS];
  memset(buf, 0, sizeof buf);
  if (rank == owner)
    memcpy(buf, info, sizeof(tl_info));
  MPI_Bcast(buf, WORDS, MPI_DOUBLE, owner, comm);
  memcpy(info, buf, sizeof(tl_info));
  if (rank != owner)
    info->file = NULL;
  return info->status;
}

int tl_mpi_share_cores(MPI_Comm comm)
{
  MPI_Comm node;
  int local = 1;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
  }
  if (!getenv("OMP_NUM_THREADS")) {
    tl_cpu_set_threads(0); /* every core of the node */
    int cores = tl_cpu_threads();
    tl_cpu_set_threads(cores / local > 1 ? cores / local : 1);
  }
  return tl_cpu_threads();
}

int tl_mpi_solve(const tl_algorithm *algo, MPI_Comm comm, const tl_mpi_batch *local, void *x,
                 const tl_options *opt, tl_info *info)
{
  return tl_mpi_solve_timed(algo, comm, local, x, opt, info, NULL);
}

int tl_mpi_solve_timed(const tl_algorithm *algo, MPI_Comm comm, const tl_mpi_batch *local,
                       void *x, const tl_options *opt, tl_info *info, double *comm_seconds)
{
  return tl_mpi_solve_agreed(algo, comm, local, x, opt, info, comm_seconds, TL_OK);
}

int tl_mpi_solve_agreed(const tl_algorithm *algo, MPI_Comm comm, const tl_mpi_batch *local,
                        void *x, const tl_options *opt, tl_info *info, double *comm_seconds,
                        int found)
{
  double comm_scratch = 0;
  if (!comm_seconds)
    comm_seconds = &comm_scratch;
  *comm_seconds = 0;
  tl_info scratch;
  if (!info) {
    info = &scratch;
    found = found < 0 ? TL_FAIL(info, found, -1, -1, "", "this rank's own check failed") : found;
  }
  if (found >= 0)
    tl_info_clear(info);
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  int status;
  tl_algorithm view; /* a descriptor given directly: what it inherits filled in */
  algo = tl_algorithm_resolve(algo, &view);
  if (!algo)
    status = TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "no algorithm given");
  else if (!algo->mpi)
    status = TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo",
                     "%s is not an MPI algorithm (see tl_mpi_registry)", algo->name);
  else if (!local)
    status = TL_FAIL(info, TL_ERR_ARG, -1, -1, "sys", "no slice given");
  else if (found < 0)
    status = found; /* the caller's report is in info */
  else
    status = check_local(algo, local, x, info);

  /* One allgather: every rank's slice, whether its checks passed, and
   * the shape of the batch it was given (n, nsys, dtype, layout). */
  unsigned long long mine[SLOT_WORDS] = {
      local ? local->begin : 0, local ? local->m : 0, (unsigned long long)(status < 0),
      local ? local->n : 0, local ? local->nsys : 0,
      local ? (unsigned long long)local->dtype * 2 + (local->periodic != 0) : 0};
  unsigned long long *table = malloc(SLOT_WORDS * (size_t)P * sizeof *table);
  size_t *slices = malloc((size_t)P * sizeof *slices);
  if (!table || !slices) {
    free(table);
    free(slices);
    return end_the_job_on_nomem(
        comm, rank, P, TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "mpi: no memory for %d slices", P),
        info);
  }
  MPI_Allgather(mine, SLOT_WORDS, MPI_UNSIGNED_LONG_LONG, table, SLOT_WORDS,
                MPI_UNSIGNED_LONG_LONG, comm);
  int owner = -1;
  for (int r = 0; r < P && owner < 0; r++)
    if (table[SLOT_WORDS * r + 2])
      owner = r;
  if (owner >= 0) {
    status = share_report(comm, rank, owner, info);
  } else {
    status = check_shapes(table, P, info);
    if (status == TL_OK)
      status = check_slices(algo, table, P, local->n, slices, info);
    if (status == TL_OK)
      status = tl_check_params(algo, opt, info);
    if (status == TL_OK)
      status = end_the_job_on_nomem(
          comm, rank, P,
          run_algorithm(algo, comm, rank, P, local, slices, x, opt, info, comm_seconds), info);
  }
  free(table);
  free(slices);
  /* An ok that used a tolerance looser than the default says so, as
   * tl_solve's does (every rank has the same status and dropped mass). */
  tl_note_caller_tolerance(algo, opt, status, info);
  info->status = status;
  return status;
}

/* ---------------------------------------------------------------- */
/* Ledgers and whole batches                                          */

int tl_mpi_ledger_gather(MPI_Comm comm, const tl_ledger *mine, int root, tl_ledger *all)
{
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  int bytes = (int)(mine->count * sizeof(tl_ledger_entry));
  int failed = mine->failed;
  int *counts = rank == root ? malloc((size_t)P * sizeof *counts) : NULL;
  int *displs = rank == root ? malloc((size_t)P * sizeof *displs) : NULL;
  int *fails = rank == root ? malloc((size_t)P * sizeof *fails) : NULL;
  MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, root, comm);
  MPI_Gather(&failed, 1, MPI_INT, fails, 1, MPI_INT, root, comm);
  char *buf = NULL;
  int total = 0;
  if (rank == root) {
    for (int r = 0; r < P; r++) {
      displs[r] = total;
      total += counts[r];
    }
    buf = malloc(total ? (size_t)total : 1);
  }
  MPI_Gatherv(mine->entries, bytes, MPI_BYTE, buf, counts, displs, MPI_BYTE, root, comm);
  int status = TL_OK;
  if (rank == root) {
    tl_ledger_reset(all);
    tl_ledger part = {.entries = (tl_ledger_entry *)buf,
                      .count = (size_t)total / sizeof(tl_ledger_entry)};
    tl_ledger_merge(all, &part);
    for (int r = 0; r < P; r++)
      if (fails[r])
        all->failed = 1;
    status = all->failed ? TL_ERR_NOMEM : TL_OK;
  }
  free(buf);
  free(counts);
  free(displs);
  free(fails);
  return status;
}

void tl_mpi_batch_free(tl_mpi_batch *local)
{
  free((void *)local->a);
  memset(local, 0, sizeof *local);
}

/* Rows [begin, begin + m) of every system of a whole batch, as one MPI
 * datatype (nsys blocks of m entries, n entries apart), so slices go
 * straight between the whole arrays and the slices. */
static MPI_Datatype rows_type(size_t n, size_t nsys, size_t m, size_t es)
{
  MPI_Datatype t;
  MPI_Type_vector((int)nsys, (int)(m * es), (int)(n * es), MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

static int fits_int(size_t n, size_t nsys, size_t es)
{
  return n * es <= (size_t)INT_MAX && nsys <= (size_t)INT_MAX && n * nsys * es <= (size_t)INT_MAX;
}

int tl_mpi_scatter_batch(MPI_Comm comm, int root, const tl_batch *sys, const size_t *slices,
                         tl_mpi_batch *local, tl_info *info)
{
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  memset(local, 0, sizeof *local);
  unsigned long long shape[4] = {0, 0, 0, 0};
  if (rank == root)
    shape[0] = sys->n, shape[1] = sys->nsys, shape[2] = (unsigned long long)sys->dtype,
    shape[3] = (unsigned long long)sys->periodic;
  MPI_Bcast(shape, 4, MPI_UNSIGNED_LONG_LONG, root, comm);
  local->n = (size_t)shape[0];
  local->nsys = (size_t)shape[1];
  local->dtype = (tl_dtype)shape[2];
  local->periodic = (int)shape[3];
  size_t es = tl_dtype_size(local->dtype), end;
  if (!es || !fits_int(local->n, local->nsys, es))
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "n",
                   "mpi: a batch of %zu x %zu entries is too large to distribute", local->nsys,
                   local->n);
  tl_partition_bounds(local->n, P, slices, rank, &local->begin, &end);
  local->m = end - local->begin;
  size_t cnt = local->m * local->nsys;
  char *mem = tl_alloc(4 * (cnt ? cnt : 1), es);
  int ok = mem != NULL, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) {
    free(mem);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "mpi: no memory for the slices");
  }
  const void *whole[4] = {NULL, NULL, NULL, NULL};
  if (rank == root)
    whole[0] = sys->a, whole[1] = sys->b, whole[2] = sys->c, whole[3] = sys->d;
  for (int k = 0; k < 4; k++) {
    char *dst = mem + (size_t)k * cnt * es;
    if (rank != root) {
      MPI_Recv(dst, (int)(cnt * es), MPI_BYTE, root, 7, comm, MPI_STATUS_IGNORE);
      continue;
    }
    for (int r = 0; r < P; r++) {
      size_t b, e;
      tl_partition_bounds(local->n, P, slices, r, &b, &e);
      MPI_Datatype t = rows_type(local->n, local->nsys, e - b, es);
      const char *from = (const char *)whole[k] + b * es;
      if (r == rank)
        MPI_Sendrecv(from, 1, t, rank, 7, dst, (int)(cnt * es), MPI_BYTE, rank, 7, comm,
                     MPI_STATUS_IGNORE);
      else
        MPI_Send(from, 1, t, r, 7, comm);
      MPI_Type_free(&t);
    }
  }
  local->a = mem;
  local->b = mem + cnt * es;
  local->c = mem + 2 * cnt * es;
  local->d = mem + 3 * cnt * es;
  return TL_OK;
}

int tl_mpi_gather_x(MPI_Comm comm, int root, const tl_mpi_batch *local, const void *x_local,
                    void *x_all, tl_info *info)
{
  (void)info;
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  size_t es = tl_dtype_size(local->dtype), n = local->n, nsys = local->nsys;
  unsigned long long mine[2] = {local->begin, local->m};
  unsigned long long *table = malloc(2 * (size_t)P * sizeof *table);
  MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, table, 2, MPI_UNSIGNED_LONG_LONG, comm);
  if (rank != root) {
    MPI_Send(x_local, (int)(local->m * nsys * es), MPI_BYTE, root, 8, comm);
  } else {
    for (int r = 0; r < P; r++) {
      size_t begin = (size_t)table[2 * r], m = (size_t)table[2 * r + 1];
      MPI_Datatype t = rows_type(n, nsys, m, es);
      char *to = (char *)x_all + begin * es;
      if (r == rank)
        MPI_Sendrecv(x_local, (int)(m * nsys * es), MPI_BYTE, rank, 8, to, 1, t, rank, 8, comm,
                     MPI_STATUS_IGNORE);
      else
        MPI_Recv(to, 1, t, r, 8, comm, MPI_STATUS_IGNORE);
      MPI_Type_free(&t);
    }
  }
  free(table);
  return TL_OK;
}
