/* optimized/mpi/grid_mpi.c -- 3-D arrays on a Cartesian process grid and
 * the batched solve along one direction (tridlab/mpi_grid.h, docs/grid.md).
 *
 * The solve has two paths:
 *   P[d] = 1   the lines along d are whole in this rank's box: the OpenMP
 *              kernel solves them where they lie (no communication);
 *   P[d] > 1   the ranks of the grid line hold slices of the same lines:
 *              gather them into the batch layout, solve with an MPI
 *              algorithm over the line's sub-communicator, scatter back.
 * The transposes of the other route are in transpose_mpi.c.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/mpi_grid.h"

/* ---- boxes ----------------------------------------------------------- */

void tl_grid_copy_box(const double *src, const size_t sb[3], const size_t sm[3], double *dst,
                      const size_t db[3], const size_t dm[3], const size_t rb[3],
                      const size_t rm[3], size_t words)
{
  /* One memcpy per x-row of the region: x is fastest in both boxes. */
  size_t row = rm[0] * words * sizeof(double);
  if (!row)
    return;
  for (size_t k = 0; k < rm[2]; k++)
    for (size_t j = 0; j < rm[1]; j++) {
      size_t s = (((rb[2] + k - sb[2]) * sm[1] + rb[1] + j - sb[1]) * sm[0] + rb[0] - sb[0]);
      size_t t = (((rb[2] + k - db[2]) * dm[1] + rb[1] + j - db[1]) * dm[0] + rb[0] - db[0]);
      memcpy(dst + t * words, src + s * words, row);
    }
}

size_t tl_grid_local_count(const tl_grid *g)
{
  return g->m[0] * g->m[1] * g->m[2];
}

/* ---- agreeing on a status -------------------------------------------- */

static int severity(int status)
{
  return status < 0 ? 2 : status > 0 ? 1 : 0;
}

int tl_grid_agree(MPI_Comm comm, int status, tl_info *info)
{
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int worst, mine = severity(status), who;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst == 0)
    return TL_OK;
  int cand = mine == worst ? rank : size;
  MPI_Allreduce(&cand, &who, 1, MPI_INT, MPI_MIN, comm);
  /* The report travels as plain fields (not the source-file pointer). */
  struct {
    int status;
    long system, row;
    char arg[32], msg[256];
  } r = {status, -1, -1, "", ""};
  if (info && rank == who) {
    r.system = info->system;
    r.row = info->row;
    memcpy(r.arg, info->arg, sizeof r.arg);
    memcpy(r.msg, info->msg, sizeof r.msg);
  }
  MPI_Bcast(&r, (int)sizeof r, MPI_BYTE, who, comm);
  if (info && rank != who) {
    tl_info_clear(info);
    info->system = r.system;
    info->row = r.row;
    memcpy(info->arg, r.arg, sizeof r.arg);
    memcpy(info->msg, r.msg, sizeof r.msg);
  }
  if (info)
    info->status = r.status;
  return r.status;
}

/* ---- making a grid --------------------------------------------------- */

/* The grid on comm, whose ranks are already in the order of the grid's
 * coordinates (row-major, z fastest, as MPI_Cart_create numbers them). */
static int grid_on(MPI_Comm comm, const int P[3], const size_t n[3], const size_t *const sl[3],
                   tl_grid *g, tl_info *info)
{
  memset(g, 0, sizeof *g);
  g->cart = g->line[0] = g->line[1] = g->line[2] = MPI_COMM_NULL;
  int size, bad = 0;
  MPI_Comm_size(comm, &size);
  long want = 1;
  for (int d = 0; d < 3; d++) {
    if (P[d] < 1 || n[d] < 1)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "grid", "direction %d: %d ranks, %zu rows", d, P[d],
                     n[d]);
    want *= P[d];
  }
  if (want != size)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "grid",
                   "a %d x %d x %d grid needs %ld ranks, the communicator has %d", P[0], P[1], P[2],
                   want, size);
  for (int d = 0; d < 3; d++) {
    g->P[d] = P[d];
    g->n[d] = n[d];
    g->slices[d] = malloc((size_t)P[d] * sizeof(size_t));
    if (!g->slices[d]) {
      tl_grid_free(g);
      return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "grid: out of memory");
    }
    size_t total = 0;
    for (int q = 0; q < P[d]; q++) {
      size_t b;
      if (sl && sl[d])
        g->slices[d][q] = sl[d][q];
      else
        tl_mpi_even_slice(n[d], P[d], q, &b, &g->slices[d][q]);
      total += g->slices[d][q];
    }
    bad |= total != n[d];
  }
  if (bad) { /* the same slices on every rank: the same verdict */
    tl_grid_free(g);
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "slices", "grid slices do not add up to the extents");
  }
  int periods[3] = {0, 0, 0};
  MPI_Cart_create(comm, 3, g->P, periods, 0, &g->cart);
  MPI_Comm_rank(g->cart, &g->rank);
  g->size = size;
  MPI_Cart_coords(g->cart, g->rank, 3, g->coords);
  for (int d = 0; d < 3; d++) {
    g->begin[d] = 0;
    for (int q = 0; q < g->coords[d]; q++)
      g->begin[d] += g->slices[d][q];
    g->m[d] = g->slices[d][g->coords[d]];
    int keep[3] = {d == 0, d == 1, d == 2}; /* the ranks that differ only along d */
    MPI_Cart_sub(g->cart, keep, &g->line[d]);
  }
  return TL_OK;
}

int tl_grid_create(MPI_Comm comm, const int P[3], const size_t n[3], const size_t *const slices[3],
                   tl_grid *g, tl_info *info)
{
  return grid_on(comm, P, n, slices, g, info);
}

void tl_grid_free(tl_grid *g)
{
  for (int d = 0; d < 3; d++) {
    if (g->line[d] != MPI_COMM_NULL)
      MPI_Comm_free(&g->line[d]);
    free(g->slices[d]);
    g->slices[d] = NULL;
  }
  if (g->cart != MPI_COMM_NULL)
    MPI_Comm_free(&g->cart);
}

int tl_grid_pencil(const tl_grid *g, tl_dir d, tl_dir e, tl_grid *pencil, tl_info *info)
{
  if ((int)d < 0 || d > 2 || (int)e < 0 || e > 2 || d == e)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dir", "pencil: directions %d and %d", (int)d, (int)e);
  int P[3] = {g->P[0], g->P[1], g->P[2]};
  P[d] = 1;
  P[e] = g->P[e] * g->P[d];
  /* Each of g's slices of e cut into P[d] pieces, piece q for the rank at
   * coordinate q along d. */
  size_t *cut = malloc((size_t)P[e] * sizeof *cut), whole = g->n[d];
  if (!cut)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pencil: out of memory");
  for (int b = 0; b < g->P[e]; b++)
    for (int q = 0; q < g->P[d]; q++) {
      size_t begin;
      tl_mpi_even_slice(g->slices[e][b], g->P[d], q, &begin, &cut[b * g->P[d] + q]);
    }
  const size_t *sl[3] = {g->slices[0], g->slices[1], g->slices[2]};
  sl[d] = &whole;
  sl[e] = cut;
  /* This rank's place in the new grid, so one line of g becomes the
   * pieces of one slice of e. */
  int c[3] = {g->coords[0], g->coords[1], g->coords[2]};
  c[e] = g->coords[e] * g->P[d] + g->coords[d];
  c[d] = 0;
  int key = (c[0] * P[1] + c[1]) * P[2] + c[2];
  MPI_Comm ordered;
  MPI_Comm_split(g->cart, 0, key, &ordered);
  int st = grid_on(ordered, P, g->n, sl, pencil, info);
  MPI_Comm_free(&ordered);
  free(cut);
  return st;
}

int tl_grid_gather_d(const tl_grid *g, int root, const double *local, double *whole, tl_info *info)
{
  int P = g->size, st = TL_OK;
  size_t count = tl_grid_local_count(g), total = g->n[0] * g->n[1] * g->n[2];
  if (total > (size_t)INT_MAX)
    st = TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "gather: %zu entries do not fit an int",
                 total);
  if ((st = tl_grid_agree(g->cart, st, info)) < 0)
    return st;
  int *counts = NULL, *displs = NULL, mine = (int)count;
  double *buf = NULL;
  if (g->rank == root) {
    counts = malloc((size_t)P * sizeof *counts);
    displs = malloc((size_t)P * sizeof *displs);
    buf = malloc((total ? total : 1) * sizeof *buf);
  }
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, root, g->cart);
  if (g->rank == root)
    for (int r = 0, at = 0; r < P; r++) {
      displs[r] = at;
      at += counts[r];
    }
  MPI_Gatherv(local, mine, MPI_DOUBLE, buf, counts, displs, MPI_DOUBLE, root, g->cart);
  if (g->rank == root) { /* each rank's box into its place */
    size_t zero[3] = {0, 0, 0};
    for (int r = 0; r < P; r++) {
      int c[3];
      size_t b[3] = {0, 0, 0}, m[3];
      MPI_Cart_coords(g->cart, r, 3, c);
      for (int d = 0; d < 3; d++) {
        for (int q = 0; q < c[d]; q++)
          b[d] += g->slices[d][q];
        m[d] = g->slices[d][c[d]];
      }
      tl_grid_copy_box(buf + displs[r], b, m, whole, zero, g->n, b, m, 1);
    }
  }
  free(counts);
  free(displs);
  free(buf);
  return TL_OK;
}

/* ---- lines of a box as a batch --------------------------------------- */

/* Line s of direction d in a box of extents m starts at base(s) and its
 * rows are `stride` apart (systems numbered as tridlab/cpu.h does). */
static size_t line_base(const size_t m[3], tl_dir d, size_t s)
{
  if (d == TL_DIR_X)
    return s * m[0]; /* s = k m1 + j */
  if (d == TL_DIR_Y)
    return (s / m[0]) * m[0] * m[1] + s % m[0]; /* s = k m0 + i */
  return s;                                     /* s = j m0 + i */
}

static size_t line_stride(const size_t m[3], tl_dir d)
{
  return d == TL_DIR_X ? 1 : d == TL_DIR_Y ? m[0] : m[0] * m[1];
}

/* Box -> batch layout (system s at [s n, (s+1) n)), and back. */
static void lines_gather(const size_t m[3], tl_dir d, const double *box, double *batch)
{
  size_t n = m[d], nsys = m[0] * m[1] * m[2] / n, st = line_stride(m, d);
  for (size_t s = 0; s < nsys; s++) {
    const double *in = box + line_base(m, d, s);
    for (size_t r = 0; r < n; r++)
      batch[s * n + r] = in[r * st];
  }
}

static void lines_scatter(const size_t m[3], tl_dir d, const double *batch, double *box)
{
  size_t n = m[d], nsys = m[0] * m[1] * m[2] / n, st = line_stride(m, d);
  for (size_t s = 0; s < nsys; s++) {
    double *out = box + line_base(m, d, s);
    for (size_t r = 0; r < n; r++)
      out[r * st] = batch[s * n + r];
  }
}

/* The fast path: whole lines here, the OpenMP kernel. */
static int solve_local(const tl_grid *g, tl_dir d, const double *a, const double *b,
                       const double *c, const double *d_, double *x, tl_info *info)
{
  if (!tl_grid_local_count(g))
    return TL_OK; /* an empty box: nothing to solve */
  return tl_cpu_thomas_3d_d(g->m, d, tl_cpu_sz_3d(g->m, d, sizeof(double)), a, b, c, d_, x, info);
}

/* The distributed path: this rank's slice of the grid line's batch. */
static int solve_across(const tl_grid *g, tl_dir d, const tl_algorithm *algo, const double *a,
                        const double *b, const double *c, const double *d_, double *x,
                        const tl_options *opt, tl_info *info)
{
  size_t count = tl_grid_local_count(g), m = g->m[d];
  size_t nsys = m ? count / m : g->m[(d + 1) % 3] * g->m[(d + 2) % 3];
  if (!nsys) /* the whole line has an empty box: no lines to solve */
    return TL_OK;
  /* The gathered lines and x: kept from one solve to the next
   * (tl_mpi_keep), as the algorithms keep their scratch, so that a time
   * step does not fault in 5 words per unknown of fresh pages. */
  double *mem = tl_mpi_keep(5 * count + 1, sizeof *mem);
  int st = TL_OK;
  if (!mem)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "grid solve: out of memory");
  /* Every rank of the line calls tl_mpi_solve, so a rank without memory
   * cannot leave the others waiting: agree first. */
  if ((st = tl_grid_agree(g->line[d], st, info)) < 0)
    return st;
  double *arr[5] = {mem, mem + count, mem + 2 * count, mem + 3 * count, mem + 4 * count};
  const double *in[4] = {a, b, c, d_};
  for (int f = 0; f < 4; f++)
    if (m)
      lines_gather(g->m, d, in[f], arr[f]);
  /* The corners outside the global system are zero in a plain batch. */
  for (size_t s = 0; s < nsys && m; s++) {
    if (g->begin[d] == 0)
      arr[0][s * m] = 0;
    if (g->begin[d] + m == g->n[d])
      arr[2][s * m + m - 1] = 0;
  }
  tl_mpi_batch mine = {.dtype = TL_F64,
                       .n = g->n[d],
                       .nsys = nsys,
                       .begin = g->begin[d],
                       .m = m,
                       .a = arr[0],
                       .b = arr[1],
                       .c = arr[2],
                       .d = arr[3]};
  st = tl_mpi_solve(algo, g->line[d], &mine, arr[4], opt, info);
  if (tl_status_has_solution(st) && m)
    lines_scatter(g->m, d, arr[4], x);
  return st;
}

int tl_grid_solve_d(const tl_grid *g, tl_dir d, const tl_algorithm *algo, const double *a,
                    const double *b, const double *c, const double *d_, double *x,
                    const tl_options *opt, tl_info *info)
{
  int st;
  if ((int)d < 0 || d > 2)
    st = TL_FAIL(info, TL_ERR_ARG, -1, -1, "dir", "direction %d is not x, y or z", (int)d);
  else if (g->P[d] == 1)
    st = solve_local(g, d, a, b, c, d_, x, info);
  else if (!algo)
    st = TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo",
                 "direction %d is split over %d ranks: name an MPI algorithm", (int)d, g->P[d]);
  else
    st = solve_across(g, d, algo, a, b, c, d_, x, opt, info);
  return tl_grid_agree(g->cart, st, info);
}
