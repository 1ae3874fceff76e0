/* tridlab/cpu.h -- the optimized CPU kernels (optimized/cpu/): batches of
 * tridiagonal systems at the memory-bandwidth limit.
 *
 * Source: paper 000 (DistD2-TDS) §4.1 (the SZ-packed data structure,
 * Figures 6 and 7), §4.2 (Algorithms 5, 6, 7), §5.1 (data movement,
 * Table 3). docs/performance.md has the byte model and the measurements.
 *
 * The SZ-packed layout, its group size SZ and the reordering to and from
 * it (and TL_DIR_X/Y/Z, the numbering of the lines of 3-D arrays) are in
 * tridlab/layout.h (optimized/layout/), which this header includes: the
 * GPU kernels use the same layout.
 *
 * ERRORS. Every function returns a tl_status. Kernels on raw arrays do
 * not check the matrix class (the registry backend "thomas_cpu" does);
 * they detect a zero or non-finite pivot and an overflow in any lane and
 * return TL_ERR_BREAKDOWN with info->system and info->row (the first
 * pivot that is zero or not finite in the reference recurrence, else the
 * row of a non-finite result). In-place kernels then hold no solution for
 * that system; every other system is solved. Corner entries a[0] and
 * c[n-1] of non-periodic kernels are never used.
 *
 * Threads: OpenMP over groups (static schedule, each thread a contiguous
 * range of groups); inside a group `omp simd` across the SZ systems.
 */
#ifndef TRIDLAB_CPU_H
#define TRIDLAB_CPU_H

#include <stddef.h>

#include "tridlab/layout.h"
#include "tridlab/part_distd2.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Threads and the group size SZ                                       */

/* Threads the kernels use (OpenMP's limit; 1 without OpenMP). */
int tl_cpu_threads(void);
/* Use `threads` threads from now on; threads <= 0 restores all cores. */
void tl_cpu_set_threads(int threads);

/* The batched local phases of the MPI rank programs (optimized/cpu/
 * lanes.h) write their results with streaming stores (without reading
 * each cache line first) when they write more than this many bytes, to
 * arrays on 64-byte boundaries: results larger than the cache go to
 * memory anyway. So does the double x-line kernel (thomas_3d along x,
 * thomas_cpu) in one call, into an x apart from d that lies as far past
 * a cache line as b, lines a multiple of 8 long, groups of 8 (its whole
 * tiles in registers); and tl_cpu_stream_abcdx_d, its limit. Default
 * 32 MiB; the setter returns the old value (the tests set 0 to compare
 * both paths' bits). Not thread-safe: set it before solving. */
size_t tl_cpu_stream_min_bytes(void);
size_t tl_cpu_set_stream_min_bytes(size_t bytes);

/* ------------------------------------------------------------------ */
/* Thomas (general coefficients, non-periodic)                         */

/* On SZ-packed arrays, in place: d is overwritten by x. Per unknown it
 * reads a, b, c, d and writes d (5 words); the forward pass's c' stays
 * in a per-thread scratch of n SZ entries (cache). Pivots by one
 * reciprocal each (8 flops per unknown, as paper 000 Algorithm 1). */
int tl_cpu_thomas_sz_d(size_t n, size_t nsys, size_t sz, const double *a, const double *b,
                       const double *c, double *d, tl_info *info);
int tl_cpu_thomas_sz_f(size_t n, size_t nsys, size_t sz, const float *a, const float *b,
                       const float *c, float *d, tl_info *info);

/* Along direction dir of Cartesian arrays, without a separate reordering
 * pass: lines along y and z are read SZ adjacent systems at a time (one
 * group where the rows are at most TL_CPU_NEAR_ROWS bytes apart, several
 * side by side where they are further); lines along x are transposed
 * through a small tile in cache, one 64-byte cache line of each of SZ
 * lines at a time. Along y and z every supported SZ gives the same bits
 * (cpu_thomas::cartesian_units_near_and_far_are_the_bits_of_x); the fastest
 * measured is tl_cpu_sz_3d(dims, dir, elem_size) (tl_cpu_sz_lines(n) along
 * x). x may be d (in place) but must not overlap a, b, c. Reads a, b, c, d
 * and writes x: 5 words per unknown. */
int tl_cpu_thomas_3d_d(const size_t dims[3], tl_dir dir, size_t sz, const double *a,
                       const double *b, const double *c, const double *d, double *x, tl_info *info);
int tl_cpu_thomas_3d_f(const size_t dims[3], tl_dir dir, size_t sz, const float *a, const float *b,
                       const float *c, const float *d, float *x, tl_info *info);

/* A batch of nsys contiguous systems of n rows (system s at s n, the
 * layout of tl_batch and of a rank's slice in the MPI room), through the
 * x-line kernel, checks fused into its pass, SZ = tl_cpu_sz_lines(n)
 * (8 doubles). a[0] and c[n-1] of each system are not used by the
 * solve. Nothing is reported per
 * system: flag[s] (nsys bytes) receives 1 when system s may have broken
 * down (a pivot not finite, or one that cancelled to within 2^-30 of b,
 * where a rounding decides) or holds a non-finite entry (its x is then not to be trusted:
 * solve it again with the reference, which gives the row), 2 when it is
 * outside Thomas's dominance classes (neither by rows nor by columns),
 * 3 when a corner a[0] or c[n-1] is not zero, else 0. x may be d.
 * Returns TL_OK (also for n or nsys 0), TL_ERR_ARG for a NULL array or
 * flag, or TL_ERR_NOMEM (then x is not to be trusted). */
int tl_cpu_thomas_lines_d(size_t n, size_t nsys, const double *a, const double *b,
                          const double *c, const double *d, double *x, unsigned char *flag,
                          tl_info *info);

/* What the rank programs of PDD and RPDD ask of the x-line kernel
 * besides the solve, each from the tiles it holds anyway, so that they
 * need not read the batch again (every pointer may be NULL; nsys values
 * each):
 *   rowmin[s]  out: the least row margin of diagonal dominance of
 *              system s, min over i of |b_i| - (|a_i| + |c_i|) with
 *              a[0] and c[n-1] counted as 0, in the reference's
 *              operations (the bits of tl_pdd_bound_margin_d's margin of
 *              a partition without neighbours;
 *              tl_cpu_pdd_margin_from_rows_d adds the neighbours' rows);
 *   xmax[s]    out: the largest |x| of system s;
 *   d_ends     in, 2 nsys values: d_ends[s] is subtracted from d[0] of
 *              system s and d_ends[nsys + s] from d[n-1] as they are
 *              read (the solve is then that of those right-hand sides,
 *              d itself unchanged): PDD's neighbours' unknowns, without
 *              a copy of d;
 *   x_last     in, nsys values: row n-1 of system s is read as the
 *              identity row x_{n-1} = x_last[s] (a = 0, b = 1, d =
 *              x_last[s], its c the corner, not used) instead of the
 *              arrays' row: ITS's local system N^p, without a copy of
 *              a, b and d;
 *   x_first    in, nsys values: row 0 of system s is read as the
 *              identity row x_0 = x_first[s] (a = c = 0, b = 1, d =
 *              x_first[s]). With x_last too, the solve is that of rows
 *              1 .. n-2 with x_0 and x_{n-1} given, whose pivots are
 *              those of a forward sweep from row 1 (P-TDMA's
 *              reconstruction, ptdma_mpi). An identity row replaces
 *              d_ends' change of that row; rowmin and flags 2 and 3
 *              are of the rows as the kernel reads them, identity
 *              rows included;
 *   x_span     0: x by plain stores (a caller that reads x right
 *              after); else the bytes of x that the caller's whole pass
 *              writes, of which this call is a part: x goes to memory
 *              by streaming stores when that is larger than the cache
 *              (and x is not d, n a multiple of 8, x as far past a
 *              cache line as b, a build with whole tiles in registers):
 *              for a caller that solves a large slice a chunk at a time
 *              and does not read x right after, which saves the read of
 *              x's lines before they are written.
 * With more NULL, or none of its fields set, the call is
 * tl_cpu_thomas_lines_d's, which streams x by its own size. */
typedef struct tl_cpu_lines_more {
  double *rowmin, *xmax;
  const double *d_ends;
  size_t x_span;
  const double *x_last;
  const double *x_first;
} tl_cpu_lines_more;

/* tl_cpu_thomas_lines_d with more (may be NULL). rowmin and xmax are
 * meaningful where flag[s] is not 1 (a system with a non-finite entry
 * the solve reads is flagged 1). */
int tl_cpu_thomas_lines_more_d(size_t n, size_t nsys, const double *a, const double *b,
                               const double *c, const double *d, double *x, unsigned char *flag,
                               const tl_cpu_lines_more *more, tl_info *info);

/* The baseline without any reordering (what a solver on Cartesian arrays
 * does when the layout is not changed): along x one line after another
 * with the scalar recurrence; along y and z one vectorised sweep over all
 * nx lines of an x-y or x-z plane at once, its c' scratch of n nx
 * entries. Same arguments, same traffic model, the same checks but one:
 * it does not flag a pivot that cancelled (thomas_group.h's cancelled),
 * so where the reference's pivot is exactly 0 and its own an ulp it
 * returns its answer. */
int tl_cpu_thomas_3d_naive_d(const size_t dims[3], tl_dir dir, const double *a, const double *b,
                             const double *c, const double *d, double *x, tl_info *info);
int tl_cpu_thomas_3d_naive_f(const size_t dims[3], tl_dir dir, const float *a, const float *b,
                             const float *c, const float *d, float *x, tl_info *info);

/* ------------------------------------------------------------------ */
/* Periodic Thomas (Sherman-Morrison, as reference/thomas_periodic_ref.c) */

/* On SZ-packed arrays, in place, n >= 3 (TL_ERR_ARG otherwise), with
 * the reference's shift gamma = -b[0] (-1 where b[0] = 0) per system.
 * The corner entries a[0], c[n-1] are used. Reads a, b, c,
 * d and writes d: 5 words per unknown; c', the correction vector z and
 * the right-hand side stay in cache (3 n SZ entries of scratch). */
int tl_cpu_thomas_periodic_sz_d(size_t n, size_t nsys, size_t sz, const double *a, const double *b,
                                const double *c, double *d, tl_info *info);
int tl_cpu_thomas_periodic_sz_f(size_t n, size_t nsys, size_t sz, const float *a, const float *b,
                                const float *c, float *d, tl_info *info);

/* ------------------------------------------------------------------ */
/* Preprocessed compact schemes and the DistD2 phases on SZ-packed data */

/* The fused compact solve of paper 000 Algorithms 5-7 within ONE
 * partition: plan from tl_distd2_plan_create_d with parts = 1 (periodic
 * or not; the matrix is the same for every system), the right-hand side
 * d = st[0] u[i-2] + ... + st[4] u[i+2] built inside the forward pass
 * (indices wrap when the plan is periodic, u = 0 outside otherwise), the
 * corner 2x2 and the substitution while the group is in cache. Reads u,
 * writes du: 2 words per unknown. u and du are SZ-packed, n = plan->n,
 * n >= 3; they must not overlap. The float version rounds the plan's
 * coefficients to float. Exact: the same as tl_distd2_plan_solve_stencil_d
 * with P = 1 up to rounding. */
int tl_cpu_compact_sz_d(const tl_distd2_plan *plan, const double st[5], size_t nsys, size_t sz,
                        const double *u, double *du, tl_info *info);
int tl_cpu_compact_sz_f(const tl_distd2_plan *plan, const double st[5], size_t nsys, size_t sz,
                        const float *u, float *du, tl_info *info);

/* DistD2 phases on SZ-packed arrays of the whole system (n = plan->n
 * rows in every group); partition p works on rows [plan->begin[p],
 * plan->begin[p+1]) of every group, as tl_distd2_decouple_d /
 * tl_distd2_substitute_d do on one system. Double (_d) and float (_f):
 * the float versions round the plan's coefficients to float; the edges
 * and the 2x2 systems across interfaces stay in double.
 *
 * Decoupling (Algorithm 6), general right-hand side: dt from d. */
int tl_cpu_distd2_decouple_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                const double *d, double *dt, tl_info *info);
int tl_cpu_distd2_decouple_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                const float *d, float *dt, tl_info *info);
/* Decoupling with the stencil fused: uh holds partition p's halo in
 * SZ-packed form, m + 4 rows per group (row j + 2 = u[begin + j], j =
 * -2 .. m+1), as tl_distd2_halo_d gives for one system; see
 * tl_cpu_distd2_halo_sz_*. */
int tl_cpu_distd2_decouple_stencil_sz_d(const tl_distd2_plan *plan, int p, const double st[5],
                                        size_t nsys, size_t sz, const double *uh, double *dt,
                                        tl_info *info);
int tl_cpu_distd2_decouple_stencil_sz_f(const tl_distd2_plan *plan, int p, const double st[5],
                                        size_t nsys, size_t sz, const float *uh, float *dt,
                                        tl_info *info);
void tl_cpu_distd2_halo_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const double *u, double *uh);
void tl_cpu_distd2_halo_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const float *u, float *uh);
/* The edges partition p sends, one per system (nsys entries). */
void tl_cpu_distd2_pack_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const double *dt, tl_distd2_edge *edges);
void tl_cpu_distd2_pack_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                             const float *dt, tl_distd2_edge *edges);
/* Substitution (Algorithm 7) with x_first[s], x_last[s] of every system
 * (double: they come from the 2x2 systems). */
int tl_cpu_distd2_substitute_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                  const double *x_first, const double *x_last, const double *dt,
                                  double *x, tl_info *info);
int tl_cpu_distd2_substitute_sz_f(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                  const double *x_first, const double *x_last, const float *dt,
                                  float *x, tl_info *info);
/* tl_cpu_distd2_substitute_sz_d with x (apart from dt, on a 16-byte
 * boundary) written by streaming stores: each line without being read
 * first, for results that go to memory anyway (larger than the cache;
 * tl_mpi_distd2_compact_sz in rounds, whose dt is a round's scratch).
 * Otherwise as tl_cpu_distd2_substitute_sz_d, with the same values. */
int tl_cpu_distd2_substitute_stream_sz_d(const tl_distd2_plan *plan, int p, size_t nsys, size_t sz,
                                         const double *x_first, const double *x_last,
                                         const double *dt, double *x, tl_info *info);
/* All phases for a batch of nsys right-hand sides: decouple every
 * partition, the 2x2 systems across the interfaces (tl_distd2_interface_d
 * per system), substitute. Status and info as tl_distd2_plan_solve_d
 * (dropped, tol, bound: the largest over the batch). */
int tl_cpu_distd2_solve_sz_d(const tl_distd2_plan *plan, size_t nsys, size_t sz, const double *d,
                             double *x, double tol, tl_info *info);
int tl_cpu_distd2_solve_sz_f(const tl_distd2_plan *plan, size_t nsys, size_t sz, const float *d,
                             float *x, double tol, tl_info *info);

/* ------------------------------------------------------------------ */
/* Streaming kernels of the bandwidth benchmark (same threads, same
 * static schedule): each moves exactly the arrays of a solver,
 * element-wise, without a recurrence. count elements. */

/* STREAM copy: dst = src (read 1, write 1 word; + write-allocate). */
void tl_cpu_stream_copy_d(size_t count, const double *src, double *dst);
void tl_cpu_stream_copy_f(size_t count, const float *src, float *dst);
/* The traffic of in-place general Thomas: read a, b, c, read-modify-write d. */
void tl_cpu_stream_abcd_d(size_t count, const double *a, const double *b, const double *c,
                          double *d);
void tl_cpu_stream_abcd_f(size_t count, const float *a, const float *b, const float *c, float *d);
/* The traffic of Thomas into a separate x, as tl_solve's backends
 * write it: read a, b, c, d, write x (x may not overlap d). x's whole
 * cache lines by streaming stores above tl_cpu_stream_min_bytes when x
 * is on 16-byte boundaries: 5 words per unknown on the memory bus, not
 * 6 (a plain store reads each line of x first). */
void tl_cpu_stream_abcdx_d(size_t count, const double *a, const double *b, const double *c,
                           const double *d, double *x);
/* The traffic of the fused compact solve: read u, write du (a 5-point
 * stencil inside each group of rows of length n*sz, wrapping). */
void tl_cpu_stream_stencil_d(size_t n, size_t ngroups, size_t sz, const double st[5],
                             const double *u, double *du);
void tl_cpu_stream_stencil_f(size_t n, size_t ngroups, size_t sz, const double st[5],
                             const float *u, float *du);

/* Tridsolver's local sweeps (tl_tridsolver_forward_d and
 * tl_tridsolver_backward_d, tridlab/part_tridsolver.h) on nsys slices of
 * m >= 2 rows, system s at [s m, (s+1) m) (the rows an MPI rank holds,
 * from global row begin), eight systems at once
 * (optimized/cpu/modified_thomas_cpu.c). Forward: as, cs, ds as the reference
 * writes them, but with one reciprocal per row where the reference
 * divides three times (within a few roundings of its values). Backward:
 * the reference's operations, so its bits; F[2 s] and F[2 s + 1] are
 * system s's first unknown of this partition and of the next. A zero or
 * non-finite pivot, or one that cancelled to within 2^-30 of its terms
 * (forward), or a non-finite x (backward) sets bad[s]
 * (never cleared; an overflowing check sum may set it too); that
 * system's outputs are then unspecified: run the reference phase on it
 * for the report. The forward sweep also sets bad[s] when one of system
 * s's 4 m entries (the corners too) is not finite, so an unflagged
 * system's entries are all finite. */
void tl_cpu_tridsolver_forward_d(size_t begin, size_t m, size_t nsys, int has_left, int has_right,
                                 const double *a, const double *b, const double *c,
                                 const double *d, double *as, double *cs, double *ds,
                                 unsigned char *bad);
void tl_cpu_tridsolver_backward_d(size_t begin, size_t m, size_t nsys, const double *as,
                                  const double *cs, const double *ds, const double *F, double *x,
                                  unsigned char *bad);
/* The same two sweeps as an MPI rank runs them without keeping a', c',
 * d' (tridsolver_mpi): tl_cpu_tridsolver_ends_d is the forward sweep
 * keeping only what the rank sends and its reduced row reads, rows 0 and
 * m-1, 6 per system at ends + 6 s (a'_0, a'_{m-1}, c'_0, c'_{m-1}, d'_0,
 * d'_{m-1}: tl_cpu_tridsolver_forward_d's bits), for the systems of
 * whole groups of eight (the count returned; the rest are the caller's);
 * bad[s] as the forward sweep's. tl_cpu_tridsolver_finish_d runs that
 * sweep again on each whole group, into a scratch in L2, and the backward
 * sweep from it: x as tl_cpu_tridsolver_backward_d gives it from
 * tl_cpu_tridsolver_forward_d's a', c', d', bit for bit. A group holding
 * a system with skip[s] is not solved: redo[s] = 1 for its other
 * systems; redo[s] also where a sweep flags system s (redo is cleared
 * first; the systems past the count returned are the caller's). With
 * passes (not NULL), each solved group's part of the MPI verdict's pass,
 * tl_cpu_residual_slices_pass_d(n, 0, begin, m, ...) with halo (4 per
 * system), is made while its rows are in cache. The ends read 4 words
 * per unknown and write none, the finish reads 4 and writes 1; the
 * forward and backward sweeps keeping a', c', d' read 4 + 3 and write
 * 3 + 1, and the verdict's pass read 5 more. */
struct tl_residual_pass;
size_t tl_cpu_tridsolver_ends_d(size_t m, size_t nsys, int has_left, int has_right, const double *a,
                                const double *b, const double *c, const double *d, double *ends,
                                unsigned char *bad);
size_t tl_cpu_tridsolver_finish_d(size_t n, size_t begin, size_t m, size_t nsys, int has_left,
                                  int has_right, const double *a, const double *b, const double *c,
                                  const double *d, const double *F, const unsigned char *skip,
                                  double *x, unsigned char *redo, const double *halo,
                                  struct tl_residual_pass *passes);

/* The hybrid Thomas-PCR's modified Thomas (tl_hybrid_pcr_forward_d,
 * tridlab/part_hybrid_pcr.h) on the same layout, eight systems at once:
 * as, cs, ds as the reference writes them, its forward pass with one
 * reciprocal per row (within a few roundings), its backward pass and row
 * 0 with its own operations. bad[s] as above (the entries too). */
void tl_cpu_hybrid_pcr_forward_d(size_t begin, size_t m, size_t nsys, int has_left, int has_right,
                                 const double *a, const double *b, const double *c,
                                 const double *d, double *as, double *cs, double *ds,
                                 unsigned char *bad);
/* And as hybrid_pcr_mpi runs it without keeping a', c', d', as
 * Tridsolver's above: tl_cpu_hybrid_pcr_ends_d keeps what the rank sends,
 * tl_hybrid_pcr_pack's 6 per system at send + 6 s (the bits
 * tl_cpu_hybrid_pcr_forward_d's arrays give); tl_cpu_hybrid_pcr_finish_d
 * runs the sweeps again in L2, then tl_hybrid_pcr_backward's substitution
 * from xb (x_0 and x_{m-1} of system s at 2 s, 2 s + 1): its bits. skip,
 * redo, halo, passes and the count returned as for Tridsolver's. */
size_t tl_cpu_hybrid_pcr_ends_d(size_t m, size_t nsys, int has_left, int has_right, const double *a,
                                const double *b, const double *c, const double *d, double *send,
                                unsigned char *bad);
size_t tl_cpu_hybrid_pcr_finish_d(size_t n, size_t begin, size_t m, size_t nsys, int has_left,
                                  int has_right, const double *a, const double *b, const double *c,
                                  const double *d, const double *xb, const unsigned char *skip,
                                  double *x, unsigned char *redo, const double *halo,
                                  struct tl_residual_pass *passes);

/* CaNS's P-TDMA (tridlab/part_ptdma.h) on the same layout, eight systems
 * at once (optimized/cpu/ptdma_cpu.c), the reference's operations, so its
 * bits: tl_ptdma_init_d of the rows [begin, begin + m) of n (a, b, c as
 * it writes them; bad[s] set, never cleared, where it would break down
 * or where one of system s's A, B, C (the corners too) is not finite --
 * run it on that system for the report) and tl_ptdma_runtime_d (d' from
 * D and the initialization's b; a system flagged by the initialization
 * gets an unspecified d'; bad, unless NULL, set where one of system s's
 * D is not finite). */
void tl_cpu_ptdma_init_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                         const double *A, const double *B, const double *C, double *a, double *b,
                         double *c, unsigned char *bad);
void tl_cpu_ptdma_runtime_d(size_t begin, size_t m, size_t nsys, const double *A, const double *C,
                            const double *b, const double *D, double *d, unsigned char *bad);
/* The same two phases without their arrays (ptdma_mpi, "split"): for
 * the systems of whole groups of eight (the count returned; the caller
 * runs the rest by the references), the initialization and the runtime
 * in one pass over A, B, C, D, in L2, keeping only what the rank sends:
 * plan[6 s ..] = a', b', c' of rows 0 and m-1 (tl_ptdma_pack_d's order:
 * a0 a_{m-1} b0 b_{m-1} c0 c_{m-1}) and rhs[2 s ..] = d' of the two rows,
 * within a few roundings of the reference's (one reciprocal per row where
 * it divides: optimized/cpu/ptdma_cpu.c); bad and dbad as
 * tl_cpu_ptdma_init_d's and tl_cpu_ptdma_runtime_d's, bad also where a
 * pivot's reciprocal is not finite or a pivot cancelled to within 2^-30
 * of its terms, where a rounding decides between the reference's
 * breakdown and a finite answer (run the reference on a flagged system;
 * never cleared; a flagged system's values unspecified). Every array but strict is
 * required. strict (may be NULL): strict[s] = 1 where every row margin |B| - (|A| + |C|) of the
 * rows (without the coupling a global end row lacks, unless periodic) is > 0, as
 * tl_cpu_row_classes_slice_d would find TL_CLASS_STRICT_DD; 0 else (NaN included).
 * dsmall (may be NULL): dsmall[s] = 1 where an interior row's d' after both passes is below
 * TL_PTDMA_D_SMALL in magnitude (a NaN is not below it), the rows where step 4's
 * underflow test (tl_ptdma_reconstruct_tiny_d, which also needs |d'| < 2 DBL_MIN, here far
 * below the screen) may hold; 0 else. inner (may be NULL; m >= 3): inner[8 s ..] = a', c',
 * d' and 1 / b' of row 1, then of row m-2, after both passes: what step 4's reconstruction
 * x_k = (d'_k - a'_k x_first - c'_k x_last) / b'_k needs there (tl_cpu_ptdma_finish_d's
 * operations: the bits of its x_1 and x_{m-2}). */
#define TL_PTDMA_D_SMALL 0x1p-1000
size_t tl_cpu_ptdma_ends_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                           const double *A, const double *B, const double *C, const double *D,
                           double *plan, double *rhs, unsigned char *bad, unsigned char *dbad,
                           unsigned char *strict, unsigned char *dsmall, double *inner);
/* Step 4 with the two phases run again rather than kept: x of every
 * system of a whole group (the count returned) from its x_first and
 * x_last (xb[2 s], xb[2 s + 1]): tl_ptdma_reconstruct_d's values within
 * a few roundings, the same sweeps as tl_cpu_ptdma_ends_d. A group holding a system with skip[s]
 * (one that failed) is not solved: redo[s] = 1 for its other systems. redo[s] set also where a
 * value of x is not finite (run the reference for its report) and where
 * the sweeps flag the system (tl_cpu_ptdma_ends_d flagged it too: its
 * rows sent were then the reference's, so its x must be too); tiny[s]
 * set as tl_ptdma_reconstruct_tiny_d. Reads 4 words per unknown and
 * writes 1, where keeping a', b', c', d' wrote 4 and read them again. */
size_t tl_cpu_ptdma_finish_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                             const double *A, const double *B, const double *C, const double *D,
                             const double *xb, const unsigned char *skip, double *x,
                             unsigned char *redo, unsigned char *tiny);
/* And its reconstruction of one system's m rows (tl_ptdma_reconstruct_d:
 * the same arguments but m, the same bits and status), the rows in SIMD
 * lanes; *tiny = tl_ptdma_reconstruct_tiny_d's answer on the same rows. */
int tl_cpu_ptdma_reconstruct_d(size_t begin, size_t m, const double *a, const double *b,
                               const double *c, const double *d, double x_first, double x_last,
                               double *x, int *tiny, tl_info *info);
/* The loop both run, and DistD2's substitution (tl_distd2_substitute_d):
 * x[0] = x_first, x[m-1] = x_last, x[k] = ((d[k] - a[k] x_first) - c[k]
 * x_last) / b[k] between (b = NULL: no division), the rows in SIMD lanes,
 * the references' bits; *tiny (may be NULL) whether a row meets
 * tl_ptdma_reconstruct_tiny_d's test. 0, x untouched, when m < 2 or a
 * value would not be finite: the caller's reference reports it. d may be
 * x. */
int tl_cpu_two_spike_rows_d(size_t m, const double *a, const double *b, const double *c,
                            const double *d, double x_first, double x_last, double *x, int *tiny);

/* DistD2's Algorithm 5 (tl_distd2_preprocess_d, tridlab/part_distd2.h) on
 * nsys slices of m >= 2 rows, rows [row0, row0 + m) of n_total, system s
 * at [s m, (s+1) m), eight systems at once
 * (optimized/cpu/distd2_lines_cpu.c), the reference's operations and so
 * its bits: system s's plan rows (sa, sc, fwd_scale, fwd_mul, bwd_mul,
 * m each) at rows + 5 m s, its fix_scale and spike into fix_scale[s] and
 * spike[s]. bad[s] set (never cleared) where the reference would break
 * down, where one of the system's a, b, c (the corners too) is not
 * finite, and for the systems past the last group of eight: run the
 * reference on them (then its results replace these). strict (may be
 * NULL): strict[s] = 1 where every row margin |b| - (|a| + |c|) of the
 * rows (without the coupling a global end row lacks, unless periodic) is
 * > 0, as tl_cpu_row_classes_slice_d would find TL_CLASS_STRICT_DD; 0
 * else (NaN included, past the last group of eight, and for every
 * system when no group runs: m < 2, nsys < 8, no memory). */
void tl_cpu_distd2_preprocess_lines_d(size_t n_total, int periodic, size_t row0, size_t m,
                                      size_t nsys, const double *a, const double *b,
                                      const double *c, double *rows, double *fix_scale,
                                      double *spike, unsigned char *bad, unsigned char *strict);

/* DistD2's Algorithm 6 (tl_distd2_decouple_d) on the same slices, from
 * the plan rows and fix_scale above: d' of system s into dt + s m, the
 * reference's operations and bits; bad[s] set where a d' is not finite
 * (the reference's breakdown), where a d is not, and past the last group
 * of eight: run the reference there. */
void tl_cpu_distd2_decouple_lines_d(size_t m, size_t nsys, const double *rows,
                                    const double *fix_scale, const double *d, double *dt,
                                    unsigned char *bad);

/* Algorithms 5 and 6 in one pass over the slices, for a batch whose
 * matrix and right-hand side come together (distd2_mpi): the packed rows
 * stay in cache from the forward pass to the backward one, and only what
 * Algorithm 7 and the edges read leaves it -- sa and sc into each plan's
 * rows (rows + 5 m s and rows + 5 m s + m), d' into dt + s m: 3 words
 * per row written, where the two calls above write 5, then read 3 of
 * them back and write d'. The plan's other three rows (the multipliers)
 * are NOT written. The same operations as the two calls, so the same
 * bits in sa, sc, d', fix_scale, spike and strict; bad[s] set (never
 * cleared) where either would set it: run the reference's Algorithms 5
 * and 6 on that system. */
void tl_cpu_distd2_plan_decouple_lines_d(size_t n_total, int periodic, size_t row0, size_t m,
                                         size_t nsys, const double *a, const double *b,
                                         const double *c, const double *d, double *rows, double *dt,
                                         double *fix_scale, double *spike, unsigned char *bad,
                                         unsigned char *strict);

/* The N-shaped method's local stages (tridlab/part_nshaped.h) on nsys
 * slices of m rows, system s at [s m, (s+1) m): partition p of each
 * system, whose row 0 is the joint line J_p and rows 1 .. L its block
 * (L = m-1, or m-2 when row m-1 is the last joint line of a plain
 * system; 1 <= L < m). The reference's operations, so its bits
 * (optimized/cpu/nshaped_cpu.c).
 *
 * Reduce: RD, RU and JU eight systems at once. System s's block rows
 * (left, diag, right, rhs, m each: the rows tl_nshaped_init_rank_in_d
 * takes) into rows 1 .. L of rows + 4 m s, and J_p's reduced row (rb,
 * rc, rd) into ju[3 s ..]. bad[s] set (never cleared) where RD would
 * break down, where one of the entries of rows 0 .. L (the ones read) is
 * not finite, for the systems past the last group of eight, and for all
 * when L is out of range: run the reference stages there (then their
 * results replace these). */
void tl_cpu_nshaped_reduce_d(size_t m, size_t L, size_t nsys, const double *a, const double *b,
                             const double *c, const double *d, double *rows, double *ju,
                             unsigned char *bad);

/* Substitute: SS from those block rows and the support values sup[2 s]
 * = x of J_p and sup[2 s + 1] = x of the next joint line, along each
 * system's rows, eight at a time: x + m s, its m rows. tiny[s] set where
 * tl_nshaped_ss_tiny_d would return 1; bad[s] set where an x is not
 * finite (SS's breakdown), and for all when L is out of range: run the
 * reference's SS there. A system with skip[s] set (skip may be NULL) is
 * left alone. */
void tl_cpu_nshaped_substitute_d(size_t m, size_t L, size_t nsys, const double *rows,
                                 const double *sup, const unsigned char *skip, double *x,
                                 unsigned char *tiny, unsigned char *bad);

/* What the verdict of an MPI rank (tl_cpu_nshaped_dd_max_slice_d below)
 * needs of a system's rows 1 .. L-1, measured by the two stages above as
 * they read those rows, so that the verdict need not read the slice
 * again: the least row margin |b| - (|a| + |c|) and column margin |b_i|
 * - (|c_{i-1}| + |a_{i+1}|) (+inf: no row), the least margin / |b|
 * (-inf where b = 0) and its first row, the largest |a|, |b|, |c|, and
 * (from the substitution, rows 1 .. L) the largest |x|. Valid for a
 * system neither stage flagged in bad[]. */
typedef struct tl_cpu_nshaped_scan {
  double rmin, cmin, worst, amax, xmax;
  size_t worst_row; /* counted from the slice's row 0 */
} tl_cpu_nshaped_scan;

/* The two stages, with scan[s] written: the reduction writes all but
 * xmax for each system of a whole group of eight (xmax = 0), the
 * substitution xmax for each system it runs on; so a system's scan
 * stands for its rows after both, where neither flagged it. scan may be
 * NULL: then they are the two calls above. */
void tl_cpu_nshaped_reduce_scan_d(size_t m, size_t L, size_t nsys, const double *a, const double *b,
                                  const double *c, const double *d, double *rows, double *ju,
                                  unsigned char *bad, tl_cpu_nshaped_scan *scan);
void tl_cpu_nshaped_substitute_scan_d(size_t m, size_t L, size_t nsys, const double *rows,
                                      const double *sup, const unsigned char *skip, double *x,
                                      unsigned char *tiny, unsigned char *bad,
                                      tl_cpu_nshaped_scan *scan);

/* The MPI verdicts' passes over a double slice (tridlab/backend.h), blocks
 * of rows in SIMD lanes and the two sums in row order
 * (optimized/cpu/residual_cpu.c), the same results bit for bit:
 * tl_cpu_residual_slice_pass_d as tl_residual_slice_pass_d (the same
 * arguments). */
struct tl_residual_pass;
void tl_cpu_residual_slice_pass_d(size_t n, int periodic, size_t begin, size_t m,
                                  const double *a, const double *b, const double *c,
                                  const double *d, const double *x, const double *halo,
                                  struct tl_residual_pass *out);
/* The same for k systems' slices of m rows each, one after the other in
 * a, b, c, d, x (system s from row s m), halo 4 per system, out[k]: each
 * out[s] the bits tl_cpu_residual_slice_pass_d gives for system s. Eight
 * systems at a time, so that their row-ordered sums run side by side. */
void tl_cpu_residual_slices_pass_d(size_t n, int periodic, size_t begin, size_t m, size_t k,
                                   const double *a, const double *b, const double *c,
                                   const double *d, const double *x, const double *halo,
                                   struct tl_residual_pass *out);
/* The same pass in two parts, for a rank that knows x just above its
 * slice (x_{-1}) once it has solved it, but x just below (x_m) only after
 * its neighbour has (ITS: x_{-1} is the interface value the sums gave):
 *   tl_cpu_residual_slices_head_d  rows 0 .. m-2 of the k systems, while
 *                                  they are in cache; xleft[s] is x_{-1}
 *                                  of system s (unused where the slice
 *                                  has no row above); the column entry
 *                                  c_{-1} is not needed yet;
 *   tl_cpu_residual_slices_tail_d  after the halo: the last row, and what
 *                                  c_{-1} adds to the first; out[s] the
 *                                  bits tl_cpu_residual_slices_pass_d
 *                                  gives. A system whose halo x_{-1} is
 *                                  not xleft[s], bit for bit, or whose
 *                                  head was not made, is read whole.
 * The sums still add the rows in order: the last row comes last. */
typedef struct tl_cpu_pass_head {
  double acc[10]; /* the pass's running numbers (residual_cpu.c) */
  long weak_row;
  double xleft; /* the x_{-1} the first row's residual took */
  int made;     /* 1: rows 0 .. m-2 measured (m >= 3, m < n) */
} tl_cpu_pass_head;
void tl_cpu_residual_slices_head_d(size_t n, int periodic, size_t begin, size_t m, size_t k,
                                   const double *a, const double *b, const double *c,
                                   const double *d, const double *x, const double *xleft,
                                   tl_cpu_pass_head *head);
void tl_cpu_residual_slices_tail_d(size_t n, int periodic, size_t begin, size_t m, size_t k,
                                   const double *a, const double *b, const double *c,
                                   const double *d, const double *x, const double *halo,
                                   const tl_cpu_pass_head *head, struct tl_residual_pass *out);
/* tl_row_classes_slice_d (tridlab/system.h) the same way: the classes,
 * the smallest margin / |b| and its first row, bit for bit. */
unsigned tl_cpu_row_classes_slice_d(size_t m, const double *a, const double *b, const double *c,
                                    size_t row0, size_t n, int periodic, double *worst_rel,
                                    long *worst_row);
/* And tl_nshaped_dd_slice_d (tridlab/part_nshaped.h) and the double case
 * of tl_residual_slice_max (tridlab/backend.h). */
void tl_cpu_nshaped_dd_slice_d(size_t n, int periodic, size_t row0, size_t m, const double *a,
                               const double *b, const double *c, double up, double down,
                               int flags[3], double *worst_rel, long *worst_row);
void tl_cpu_residual_slice_max_d(size_t n, int periodic, size_t begin, size_t m, const double *a,
                                 const double *b, const double *c, const double *x, double max[2]);
/* Both of tl_cpu_nshaped_dd_slice_d and tl_cpu_residual_slice_max_d (x:
 * the slice's answer; max as the latter's) in one pass over a, b, c: the
 * same results, bit for bit. */
void tl_cpu_nshaped_dd_max_slice_d(size_t n, int periodic, size_t row0, size_t m, const double *a,
                                   const double *b, const double *c, const double *x, double up,
                                   double down, int flags[3], double *worst_rel, long *worst_row,
                                   double max[2]);
/* The same results from the rows that scan leaves out (0 and L .. m-1,
 * read here) and scan's measure of rows 1 .. L-1 (the N-shaped stages'
 * block, L as they took it): bit for bit those of the call above, which
 * it makes itself where scan cannot stand for the rows (L < 2, m < 3, or
 * values large enough that the call's finiteness sum could overflow). */
void tl_cpu_nshaped_dd_max_scan_d(size_t n, int periodic, size_t row0, size_t m, size_t L,
                                  const double *a, const double *b, const double *c,
                                  const double *x, double up, double down,
                                  const tl_cpu_nshaped_scan *scan, int flags[3], double *worst_rel,
                                  long *worst_row, double max[2]);

/* PDD's loops besides its Thomas solves, for the rank programs of PDD and
 * RPDD (optimized/cpu/pdd_cpu.c), the reference's operations row by row:
 *   tl_cpu_pdd_margin_d   tl_pdd_bound_local_d's margin of one partition
 *                         of m rows (has_left, has_right: it has those
 *                         neighbours) and its first row (0-based); 0, and
 *                         nothing set, when a margin is NaN or none is
 *                         below +inf (the reference's rules decide);
 *   tl_cpu_pdd_correct_d  tl_pdd_ref_correct_d on m rows: x -= v x_left
 *                         where k < kv, then x -= w x_right where k + kw
 *                         >= m (v and w hold m values each), *xmax the
 *                         largest |x|; 0, x untouched, when a value would
 *                         not be finite (the reference reports it). */
int tl_cpu_pdd_margin_d(size_t m, int has_left, int has_right, const double *a, const double *b,
                        const double *c, double *margin, long *row);
/* The same margin from the x-line kernel's row minimum rowmin of the
 * partition (tl_cpu_thomas_lines_more_d, rows 0 and m-1 without
 * their outer neighbour), with only rows 0 and m-1 read again for the
 * neighbours it has: the same bits. Its row is not searched: 1, *margin
 * set, only when the margin is positive and finite, where the verdict
 * never names its row (tl_pdd_ref_verdict_d names the row of a margin
 * that is not positive); 0 otherwise, for tl_cpu_pdd_margin_d or the
 * reference to find it. m >= 2. */
int tl_cpu_pdd_margin_from_rows_d(size_t m, int has_left, int has_right, const double *a,
                                  const double *b, const double *c, double rowmin, double *margin);
int tl_cpu_pdd_correct_d(size_t m, size_t kv, size_t kw, const double *v, const double *w,
                         double xl, double xr, double *x, double *xmax);
/*   tl_cpu_pdd_correct_ends_d  the same where kv + kw <= m touching only
 *                         rows [0, kv) and [m - kw, m): v and w are read
 *                         only there, mid_max is the largest |x| of the
 *                         rows between (the caller's, e.g. while they were
 *                         in cache); kv + kw > m: tl_cpu_pdd_correct_d;
 *   tl_cpu_max_abs_d      the largest |x_k| of m values (0 for none). */
int tl_cpu_pdd_correct_ends_d(size_t m, size_t kv, size_t kw, const double *v, const double *w,
                              double xl, double xr, double *x, double mid_max, double *xmax);
double tl_cpu_max_abs_d(size_t m, const double *x);

/* What PDD's messages need of its phase 1, for nsys slices of m rows
 * (system s at [s m, (s+1) m)), without the spikes
 * (optimized/cpu/pdd_ends_cpu.c): ends[6 s ..] = y_0, y_{m-1}, v_0,
 * v_{m-1}, w_0, w_{m-1} of A_p y = d, A_p v = a[0] e_0, A_p w = c[m-1]
 * e_{m-1} (A_p: the block without a[0], c[m-1]). down: y_{m-1}, v_{m-1},
 * w_{m-1} are set (the top-down elimination, Thomas's pivots); up: y_0,
 * v_0, w_0 (the bottom-up one, the pivots of the reference's w); the
 * others are not written. bad[s] = 1 when a pivot or a value of a sweep
 * of system s is zero or not finite (then its ends are unspecified: the
 * reference's phase 1 decides). strict (may be NULL): strict[s] = 1 when
 * every row's margin |b| - (|a| + |c|), the entries as they are (a[0]
 * and c[m-1] too), is > 0 and |b| < 2^1023 (so |b| + |c| is finite), else 0 (NaN
 * included): then no pivot of the bottom-up elimination vanishes or
 * overflows, and a caller may leave that sweep out where it would only
 * meet w's breakdowns (pdd_mpi.c). */
void tl_cpu_pdd_ends_d(size_t m, size_t nsys, int down, int up, const double *a, const double *b,
                       const double *c, const double *d, double *ends, unsigned char *bad,
                       unsigned char *strict);

/* ITS's decay-rate estimate (tridlab/part_its.h, tl_its_rate) of nsys
 * slices of m rows, system s at [s m, (s+1) m), the rows [begin, begin +
 * m) of n: rate[s] the largest tl_its_row_rate of system s's rows, the
 * rows of a slice side by side in SIMD lanes, rows that cannot raise the
 * largest passed over (optimized/cpu/its_cpu.c). The reference's
 * operations on the rows rated, so its bits. */
void tl_cpu_its_rate_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                       const double *a, const double *b, const double *c, double *rate);

/* ITS's window solves (tl_its_coefficients' transposed window system,
 * Thomas), eight systems at once: for the systems s of st[0 .. nsys)
 * with skip[s] == 0 and k < st[s].nif, whose window k is open (its rows
 * written and tl_its_window_close'd), runs of eight with the same window
 * length and position, not the whole cyclic matrix, are solved side by
 * side in SIMD lanes with tl_thomas_ref_d's operations; z' goes to
 * st[s].z + k W and done[s] = 1, after which tl_its_coefficients_take
 * gives what tl_its_coefficients gives, bit for bit. A lane whose pivots
 * or results are not all finite, and every system not in such a run,
 * keeps done[s] = 0: the caller runs tl_its_coefficients on it (which
 * reports the breakdown). The number of systems done. */
struct tl_its_state;
size_t tl_cpu_its_window_solves_d(struct tl_its_state *st, size_t nsys, int k,
                                  const unsigned char *skip, unsigned char *done);

/* SPIKE's local phase with partial pivoting (phases 1-3 of
 * tridlab/part_spike.h: tl_spike_factor_d, tl_spike_local_d,
 * tl_spike_tips_d) on nsys slices of m rows, eight systems at once, the
 * row swaps of DGTTRF as per-lane selects (optimized/cpu/spike_cpu.c).
 * System s's rows are at [s ld, s ld + m) of a, b, c, d and of the
 * results g, v, w (ld >= m; ld = m: the rows an MPI rank holds). g = A_p^-1
 * d; v (has_right) and w (has_left) the spikes, else left untouched (v, w
 * must still be arrays of that layout); tips + TL_SPIKE_SEND s system s's
 * six tips. The reference's operations, so its bits. flagged[s] = 1 where
 * the reference may break down (a zero or non-finite pivot, a non-finite
 * result; an overflowing check sum flags too): that system's results are
 * then unspecified -- run the reference phases on it, which give its
 * report or the same bits. Else 0. The systems past the last group of
 * eight, blocks of m < 2 rows and builds without the lanes run the
 * reference phases here (flagged where they fail). Returns how many
 * systems, from the first, ran in the lanes: one among them with an
 * entry that is not finite, but for the corners (a[0] with no left
 * neighbour, c[m-1] with no right one, which it does not read), is
 * flagged -- what an MPI rank's own entry check relies on. */
size_t tl_cpu_spike_local_d(size_t m, size_t ld, size_t nsys, int has_left, int has_right,
                            const double *a, const double *b, const double *c, const double *d,
                            double *g, double *v, double *w, double *tips, unsigned char *flagged);

/* spike_givens's local phase (phases 1-3 of tridlab/part_spike_givens.h:
 * tl_spike_givens_factor, _shift, _kernel, _local, and
 * tl_spike_tips_kernel_d) on nsys slices of m rows, eight systems at
 * once, Givens rotations in vector lanes (optimized/cpu/
 * spike_givens_cpu.c), the layout of tl_cpu_spike_local_d; the last
 * partition's shape (has_left, not has_right) factors its blocks bottom
 * up, as the reference does. g, v (has_right), w (has_left) and k (K,
 * every system: 0 where the block was not modified); tips +
 * TL_SPIKE_SEND_KERNEL s system s's eight tips. The reference's
 * operations (the C library's hypot, lane by lane), so its bits.
 * flagged[s] = 1 where the reference may break down (a zero column, R not
 * finite, a singular block with no boundary unknown to carry it, results
 * not finite; an overflowing check sum flags too) and where an entry of
 * rows 0 .. m-1 is not finite (the corners too): run the reference
 * phases on that system. Returns how many systems, from the first, ran in
 * the lanes; the rest (and blocks of m < 2 rows, builds without the
 * lanes) ran the reference phases here (flagged where they fail). */
size_t tl_cpu_spike_givens_local_d(size_t m, size_t ld, size_t nsys, int has_left, int has_right,
                                   const double *a, const double *b, const double *c,
                                   const double *d, double *g, double *v, double *w, double *k,
                                   double *tips, unsigned char *flagged);

#ifdef __cplusplus
}
#endif
#endif
