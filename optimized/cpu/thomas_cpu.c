/* optimized/cpu/thomas_cpu.c -- the registry backend "thomas_cpu": Thomas
 * on a tridlab batch (float64, non-periodic) through the x-line kernel,
 * with tl_solve's checks fused into the kernel's one pass over the data.
 *
 * Source: paper 000 (DistD2-TDS) §2.1 Algorithm 1 (Thomas), §4.1 (SZ
 * systems per group). The algorithm is the reference's,
 * reference/thomas_ref.c (tl_thomas_ref_d), and so are its statuses,
 * rows and messages: the reference solves again every system the kernel
 * flags. The teaching explanation is docs/algorithms/thomas_cpu.md
 * ("Errors, and what thomas_cpu promises").
 *
 * A batch stores its systems one after the other: the x lines of an
 * n x nsys x 1 array. tl_cpu_thomas_lines_d (thomas_lines_cpu.c) solves
 * them and, in the tiles it transposes anyway, records what tl_solve
 * would have checked in passes of its own -- non-finite entries (through
 * each lane's check sum), non-zero corners, each system's dominance
 * margins -- as one byte per system:
 *
 *   0  solved, dominant by rows or by columns: nothing more to do
 *   1  may have broken down, or holds a non-finite entry
 *   2  outside Thomas's dominance classes (neither by rows nor columns)
 *   3  a corner a[0] or c[n-1] is not zero
 *
 * Only when a system is flagged does anything read the data again
 * (below): tl_check_entries for 1 and 3, to report a bad entry exactly as
 * tl_solve would have, then the reference for every flagged system.
 */
#include <stdlib.h>

#include "cpu_internal.h"
#include "tridlab/algorithms.h"

/* 1 when the kernel flagged a system that may hold a non-finite entry or
 * a non-zero corner (redo 1 or 3): only then are the entries scanned. */
static int suspect(const unsigned char *redo, size_t nsys)
{
  for (size_t s = 0; s < nsys; s++)
    if (redo[s] == 1 || redo[s] == 3)
      return 1;
  return 0;
}

/* The reference solves the systems the kernel flagged, in order, and
 * gives their statuses, rows and messages; the statuses combine as in
 * tl_for_each_system: the first error stops, else the first
 * outside-domain warning is reported. */
static int redo_flagged(const tl_batch *sys, double *x, const unsigned char *redo, tl_info *info)
{
  size_t n = sys->n, nsys = sys->nsys;
  const double *a = sys->a, *b = sys->b, *c = sys->c, *d = sys->d;
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    if (!redo[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    size_t o = s * n;
    int st = tl_thomas_ref_d(n, a + o, b + o, c + o, d + o, x + o, &one);
    tl_outcome_add(&out, s, st, &one);
  }
  return tl_outcome_finish(&out, info);
}

/* The batch through the x-line kernel (an n x nsys x 1 array), which
 * also checks, in the tiles it reads, what tl_solve would have checked
 * first (finite entries, zero corners: the algorithm declares
 * checks_entries) and each system's dominance margins. Only when a
 * system is flagged does anything read the data again: tl_check_entries
 * to report a bad entry as tl_solve reports it, then the reference for
 * every flagged system (breakdown, outside the dominance classes: the
 * reference decides, symmetric positive definite included). */
static int thomas_cpu_solve(const tl_algorithm *self, const tl_batch *sys, void *xv,
                            const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  if (sys->dtype != TL_F64 || sys->periodic)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, sys->periodic ? "periodic" : "dtype",
                   "thomas_cpu solves non-periodic float64 batches; use the reference");
  size_t n = sys->n, nsys = sys->nsys;
  unsigned char *redo = tl_alloc(nsys, 1);
  if (!redo)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_cpu: no memory");
  int st = tl_cpu_thomas_lines_d(n, nsys, sys->a, sys->b, sys->c, sys->d, xv, redo, info);
  if (st >= 0 && suspect(redo, nsys))
    st = tl_check_entries(sys, 0, n, info);
  if (st >= 0)
    st = redo_flagged(sys, xv, redo, info);
  free(redo);
  return st;
}

/* The backend names its reference and inherits what it does not state
 * (family, exactness, classes, layouts, partitioning; registry.h): it
 * says only where it differs -- double only, checks fused into the solve. */
extern const tl_algorithm tl_algo_thomas_ref;
const tl_algorithm tl_algo_thomas_cpu = {
    .name = "thomas_cpu",
    .reference = &tl_algo_thomas_ref,
    .backend = "cpu",
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .summary = "Thomas on contiguous lines, SZ systems per register-transposed tile, OpenMP "
               "threads; checks fused into the solve",
    .source = "paper 000 (DistD2-TDS) §2.1 Algorithm 1, §4.1 (SIMD groups of systems)",
    .solve = thomas_cpu_solve,
    .checks_entries = 1,
};
