/* tests/mpi/test_mpi_grid.c -- solves along x, y and z of a 3-D array on
 * every Px x Py x Pz grid the launched ranks make (slabs, pencils,
 * blocks): the fast path where the direction is whole on a rank (a grid
 * line of one rank), every MPI algorithm of the registry across the grid
 * line where it is split, and the transpose route, each against LAPACK's
 * residual ratio (< 30) on the whole array gathered on rank 0 and against
 * each other. Slices are uneven, and a rank holds one plane of a direction
 * it does not solve along (and, for the transpose route, of the one it
 * does). The ledger: empty on the fast path, the algorithm's on the
 * distributed one equal to its model line by line, two alltoalls that
 * mirror each other on the transpose. A zero pivot on one rank: the same
 * error on every rank, by every route.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "tridlab/mpi_grid.h"
#include "tridlab/tridlab.h"

/* Entry `field` (a, b, c, d) at global (i, j, k): a function of the
 * position only, so every rank makes its own box and rank 0 the whole
 * array. Strictly dominant (|b| >= 8 (|a| + |c|)). */
static double entry(int field, size_t i, size_t j, size_t k)
{
  uint64_t h = ((uint64_t)field * 0x9E3779B97F4A7C15u) ^ (i * 0xBF58476D1CE4E5B9u) ^
               (j * 0x94D049BB133111EBu) ^ (k * 0x2545F4914F6CDD1Du);
  h ^= h >> 31;
  h *= 0xD6E8FEB86659FD93u;
  h ^= h >> 32;
  double u = (double)(h >> 11) * 0x1p-53; /* [0, 1) */
  return field == 1 ? 16 + u : 2 * u - 1;
}

static void fill(const size_t b[3], const size_t m[3], double *arr[4])
{
  for (size_t k = 0; k < m[2]; k++)
    for (size_t j = 0; j < m[1]; j++)
      for (size_t i = 0; i < m[0]; i++)
        for (int f = 0; f < 4; f++)
          arr[f][(k * m[1] + j) * m[0] + i] = entry(f, b[0] + i, b[1] + j, b[2] + k);
}

/* Rank 0: LAPACK's residual ratio of x (the whole array) for the lines
 * along d of the whole array. */
static double whole_ratio(const size_t n[3], tl_dir d, const double *x)
{
  size_t cnt = n[0] * n[1] * n[2], len = n[d], nsys = cnt / len;
  size_t st = d == 0 ? 1 : d == 1 ? n[0] : n[0] * n[1];
  double *mem = malloc(5 * cnt * sizeof *mem), *arr[5];
  for (int f = 0; f < 5; f++)
    arr[f] = mem + (size_t)f * cnt;
  for (size_t s = 0; s < nsys; s++) {
    size_t base = d == 0 ? s * n[0] : d == 1 ? (s / n[0]) * n[0] * n[1] + s % n[0] : s;
    for (size_t r = 0; r < len; r++) {
      size_t p = base + r * st, i = p % n[0], j = (p / n[0]) % n[1], k = p / (n[0] * n[1]);
      for (int f = 0; f < 4; f++)
        arr[f][s * len + r] = entry(f, i, j, k);
      arr[4][s * len + r] = x[p];
    }
    arr[0][s * len] = 0;
    arr[2][s * len + len - 1] = 0;
  }
  tl_batch sys = {
      .dtype = TL_F64, .n = len, .nsys = nsys, .a = arr[0], .b = arr[1], .c = arr[2], .d = arr[3]};
  double ratio = tl_residual_ratio(&sys, arr[4]);
  free(mem);
  return ratio;
}

/* Slices of one direction: `rows` rows per rank, unevenly (+0, +2, +1,
 * ...), and the last rank `last` rows. */
static void slices_of(int P, size_t rows, size_t last, size_t *s, size_t *n)
{
  *n = 0;
  for (int q = 0; q < P; q++) {
    s[q] = q == P - 1 && P > 1 ? last : rows + (size_t)((q * 2) % 3);
    *n += s[q];
  }
}

static char axis_name(tl_dir d)
{
  return d == TL_DIR_X ? 'x' : d == TL_DIR_Y ? 'y' : 'z';
}

/* This rank's box of a, b, c, d (filled) and x, in one allocation. */
static double *make_box(const tl_grid *g, double *arr[4], double **x)
{
  size_t cnt = tl_grid_local_count(g);
  double *mem = malloc((5 * cnt + 1) * sizeof *mem);
  for (int f = 0; f < 4; f++)
    arr[f] = mem + (size_t)f * cnt;
  *x = mem + 4 * cnt;
  fill(g->begin, g->m, arr);
  return mem;
}

typedef struct route {
  const char *name;
  const tl_algorithm *algo; /* NULL: fast path or transpose  */
  int transpose;                /* 1: the transpose route         */
  tl_dir e;                     /* the direction it splits further */
} route;

/* The distributed path: the ledger of each grid line (gathered on its
 * first rank) equals the algorithm's model for that line's batch: P[d]
 * ranks with the grid's slices, one system per line of the box. */
static void line_ledger_vs_model(mpi_check *mc, const tl_grid *g, tl_dir d,
                                 const tl_algorithm *algo, int st, const tl_ledger *mine)
{
  if (st != TL_OK || algo->mpi->baseline || !algo->ledger_model)
    return; /* a library baseline has no model (it is not ours to count) */
  tl_ledger line, model;
  tl_ledger_init(&line);
  tl_ledger_init(&model);
  tl_mpi_ledger_gather(g->line[d], mine, 0, &line);
  int lr;
  MPI_Comm_rank(g->line[d], &lr);
  if (lr == 0) {
    tl_batch shape = {.dtype = TL_F64, .n = g->n[d], .nsys = g->m[(d + 1) % 3] * g->m[(d + 2) % 3]};
    tl_options mo;
    tl_options_init(&mo);
    mo.parts = g->P[d];
    mo.part_sizes = g->slices[d];
    tl_info minfo;
    tl_info_clear(&minfo);
    char why[512] = "";
    /* A model whose message sizes depend on the matrix (ITS: J and L come
     * from the decay rates) needs the entries, which no rank of a grid
     * line holds whole; it says so (TL_ERR_ARG for a shape without
     * arrays), and its model is checked line for line against the
     * recorded ledger in test_mpi_partition instead. */
    if (algo->ledger_model(algo, &shape, &mo, &minfo, &model) == TL_ERR_ARG) {
      MC_EXPECT(mc, line.count > 0, "empty ledger (%s)", algo->name);
      tl_ledger_free(&line);
      tl_ledger_free(&model);
      return;
    }
    MC_EXPECT(mc, model.count > 0 && line.count > 0, "empty ledger: %zu entries, model %zu",
              line.count, model.count);
    if (getenv("GRID_DEBUG"))
      fprintf(stderr, "  line ledger == model: %zu entries\n", line.count);
    MC_EXPECT(mc, tl_ledger_equal(&line, &model, why, sizeof why), "ledger vs model: %s", why);
  }
  tl_ledger_free(&line);
  tl_ledger_free(&model);
}

/* One grid, one direction, one route: solve, gather, judge. */
static void run_case(mpi_check *mc, const int P[3], const size_t *const sl[3], tl_dir d,
                     const route *rt, double *first_x)
{
  size_t n[3];
  for (int q = 0; q < 3; q++) {
    n[q] = 0;
    for (int r = 0; r < P[q]; r++)
      n[q] += sl[q][r];
  }
  mc_case(mc, "%dx%dx%d grid, %zux%zux%zu, along %c, %s", P[0], P[1], P[2], n[0], n[1], n[2],
          axis_name(d), rt->name);
  if (getenv("GRID_DEBUG"))
    fprintf(stderr, "[%d] %s\n", mc->rank, mc->name);
  tl_grid g;
  tl_info info;
  tl_info_clear(&info);
  int st = tl_grid_create(MPI_COMM_WORLD, P, n, sl, &g, &info);
  MC_EXPECT(mc, st == TL_OK, "grid: %s", info.msg);
  if (st != TL_OK) {
    mc_end(mc);
    return;
  }
  double *arr[4], *x, *mem = make_box(&g, arr, &x);
  tl_ledger led;
  tl_ledger_init(&led);
  tl_options opt;
  tl_options_init(&opt);
  opt.ledger = &led;
  if (rt->transpose)
    st = tl_grid_solve_transpose_d(&g, d, rt->e, arr[0], arr[1], arr[2], arr[3], x, &opt, &info,
                                   NULL);
  else
    st = tl_grid_solve_d(&g, d, rt->algo, arr[0], arr[1], arr[2], arr[3], x, &opt, &info);
  MC_EXPECT(mc, st == TL_OK, "status %s: %s", tl_status_name(st), info.msg);

  /* The ledger of this rank. */
  tl_ledger_totals all = tl_ledger_rank_totals(&led, -1, NULL);
  if (P[d] == 1)
    MC_EXPECT(mc, led.count == 0, "a whole line needs no communication, %zu entries", led.count);
  else if (rt->transpose) {
    tl_ledger_totals fw = tl_ledger_rank_totals(&led, -1, "transpose");
    tl_ledger_totals bw = tl_ledger_rank_totals(&led, -1, "transpose-back");
    MC_EXPECT(mc, all.collectives == 2 && all.messages == 0, "transpose: %ld calls",
              all.collectives);
    MC_EXPECT(mc, fw.words_sent == 4 * bw.words_recv && fw.words_recv == 4 * bw.words_sent,
              "forward %ld/%ld words, back %ld/%ld", fw.words_sent, fw.words_recv, bw.words_sent,
              bw.words_recv);
  } else {
    MC_EXPECT(mc, all.messages + all.collectives > 0, "a split line must communicate");
    line_ledger_vs_model(mc, &g, d, rt->algo, st, &led);
  }

  /* The whole answer on rank 0: LAPACK's ratio, and the same as the
   * first route of this direction. */
  size_t total = n[0] * n[1] * n[2];
  double *whole = mc->rank == 0 ? malloc(total * sizeof *whole) : NULL;
  if (st == TL_OK && tl_grid_gather_d(&g, 0, x, whole, &info) == TL_OK && mc->rank == 0) {
    double ratio = whole_ratio(n, d, whole), diff = 0, big = 0;
    MC_EXPECT(mc, ratio < TL_THRESH, "residual ratio %g", ratio);
    if (first_x[0] != first_x[0]) /* NaN: the first route; keep it */
      memcpy(first_x, whole, total * sizeof *whole);
    for (size_t p = 0; p < total; p++) {
      diff = fmax(diff, fabs(whole[p] - first_x[p]));
      big = fmax(big, fabs(first_x[p]));
    }
    MC_EXPECT(mc, diff <= 64 * TL_EPS * big * (double)n[d], "differs from the first route by %g",
              diff);
  }
  free(whole);
  tl_ledger_free(&led);
  free(mem);
  tl_grid_free(&g);
  mc_end(mc);
}

/* Every route of one direction on one grid shape. */
static void direction(mpi_check *mc, const int P[3], tl_dir d)
{
  size_t s[3][8], n[3], one[3][8];
  const size_t *sl[3];
  for (int q = 0; q < 3; q++) {
    /* The solve direction: rows enough for PDD's truncation (a few
     * dozen per rank); the others: a rank with one plane. */
    if (q == (int)d)
      slices_of(P[q], 20, 24, s[q], &n[q]);
    else
      slices_of(P[q], 2, 1, s[q], &n[q]);
    slices_of(P[q], 2, 1, one[q], &n[q]);
    sl[q] = s[q];
  }
  size_t nd = 0;
  for (int r = 0; r < P[d]; r++)
    nd += s[d][r];
  size_t total = nd * (n[(d + 1) % 3]) * (n[(d + 2) % 3]);
  double *first = mc->rank == 0 ? malloc(total * sizeof *first) : NULL;
  if (first)
    first[0] = NAN;
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  if (P[d] == 1) {
    route fast = {"fast path (OpenMP kernel)", NULL, 0, 0};
    run_case(mc, P, sl, d, &fast, first);
  } else {
    for (size_t a = 0; a < count; a++) {
      route r = {reg[a]->name, reg[a], 0, 0};
      size_t own[8];
      const size_t *keep = sl[d];
      if (reg[a]->mpi->slices) { /* the layout the algorithm needs (ScaLAPACK's) */
        tl_mpi_default_slices(reg[a], nd, P[d], own);
        sl[d] = own;
      }
      run_case(mc, P, sl, d, &r, first);
      sl[d] = keep;
    }
  }
  for (int k = 1; k <= 2; k++) {
    route tr = {k == 1 ? "transpose (e = next)" : "transpose (e = previous)", NULL, 1,
                (tl_dir)((d + k) % 3)};
    run_case(mc, P, sl, d, &tr, first);
  }
  free(first);
  /* One plane per rank along the solve direction too: only routes that
   * need no rows per rank (the transpose route). */
  if (P[d] > 1) {
    const size_t *sl1[3] = {one[0], one[1], one[2]};
    double *f1 = mc->rank == 0 ? malloc(4096 * sizeof *f1) : NULL;
    if (f1)
      f1[0] = NAN;
    route tr = {"transpose, one plane", NULL, 1, (tl_dir)((d + 1) % 3)};
    run_case(mc, P, sl1, d, &tr, f1);
    free(f1);
  }
}

/* A zero first column in one line (b at its global first row and a at
 * the second, on one rank only): a zero first pivot for the algorithms
 * without pivoting and a singular block for spike, which pivots. Every
 * rank returns the same error, by every route, and nothing waits. */
static void breakdown(mpi_check *mc, const int P[3], tl_dir d, const route *rt)
{
  size_t n[3];
  for (int q = 0; q < 3; q++)
    n[q] = q == (int)d ? 24 * (size_t)P[q] : 2 * (size_t)P[q] + 1;
  mc_case(mc, "%dx%dx%d grid, along %c, %s, zero pivot on one rank", P[0], P[1], P[2], axis_name(d),
          rt->name);
  tl_grid g;
  tl_info info;
  tl_info_clear(&info);
  if (tl_grid_create(MPI_COMM_WORLD, P, n, NULL, &g, &info) != TL_OK) {
    MC_EXPECT(mc, 0, "grid: %s", info.msg);
    mc_end(mc);
    return;
  }
  double *arr[4], *x, *mem = make_box(&g, arr, &x);
  if (g.begin[0] == 0 && g.begin[1] == 0 && g.begin[2] == 0) {
    size_t next = d == TL_DIR_X ? 1 : d == TL_DIR_Y ? g.m[0] : g.m[0] * g.m[1];
    arr[1][0] = 0;    /* b at global (0, 0, 0): the first pivot of its line */
    arr[0][next] = 0; /* and a below it: nothing to swap up */
  }
  int st = rt->transpose
               ? tl_grid_solve_transpose_d(&g, d, rt->e, arr[0], arr[1], arr[2], arr[3], x, NULL,
                                           &info, NULL)
               : tl_grid_solve_d(&g, d, rt->algo, arr[0], arr[1], arr[2], arr[3], x, NULL, &info);
  int lo, hi;
  MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MC_EXPECT(mc, st != TL_OK, "a zero pivot gave status ok");
  MC_EXPECT(mc, lo == hi, "statuses differ between ranks: %d .. %d", lo, hi);
  free(mem);
  tl_grid_free(&g);
  mc_end(mc);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  mpi_check mc;
  mc_init(&mc, MPI_COMM_WORLD);
  int size = mc.size;
  /* Every factorisation size = Px Py Pz. */
  for (int px = 1; px <= size; px++)
    for (int py = 1; px * py <= size; py++) {
      if (size % (px * py))
        continue;
      int P[3] = {px, py, size / (px * py)};
      for (int d = 0; d < 3; d++)
        direction(&mc, P, (tl_dir)d);
    }
  /* A breakdown on one rank, on slabs along the split direction (or the
   * fast path on one rank): every route, every algorithm. */
  {
    int P[3] = {1, 1, size};
    size_t count;
    const tl_algorithm *const *reg = tl_mpi_registry(&count);
    route fast = {size > 1 ? "transpose" : "fast path", NULL, 1, TL_DIR_Y};
    breakdown(&mc, P, TL_DIR_Z, &fast);
    for (size_t a = 0; a < count && size > 1; a++) {
      route r = {reg[a]->name, reg[a], 0, 0};
      if (!reg[a]->mpi->slices) /* the grid's even slices; not ScaLAPACK's layout */
        breakdown(&mc, P, TL_DIR_Z, &r);
    }
  }
  /* A grid that does not match the ranks: a clear error everywhere. */
  {
    mc_case(&mc, "grid of the wrong size");
    tl_grid g;
    tl_info info;
    tl_info_clear(&info);
    int P[3] = {size + 1, 1, 1};
    size_t n[3] = {16, 4, 4};
    int st = tl_grid_create(MPI_COMM_WORLD, P, n, NULL, &g, &info);
    MC_EXPECT(&mc, st == TL_ERR_ARG, "status %s", tl_status_name(st));
    mc_end(&mc);
  }
  int rc = mc_finish(&mc, "test_mpi_grid");
  MPI_Finalize();
  return rc;
}
