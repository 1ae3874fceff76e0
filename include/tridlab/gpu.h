/* tridlab/gpu.h -- the GPU kernels (optimized/gpu/), run on the device
 * where one is built and present, else on the host by emulation
 * (docs/gpu.md).
 *
 * Every kernel is written once as per-thread regions separated by
 * barriers (optimized/gpu/tl_gpu_port.h). The host build runs a block's
 * threads as a loop, in the order chosen here, so that a missing barrier
 * or an in-place race shows up as a different answer in another order.
 *
 * STATUS PER SYSTEM. Each kernel writes TL_GPU_STAT_WORDS ints per
 * system: stat[0] the kind (TL_GPU_OK, TL_GPU_PIVOT: a zero or
 * non-finite divisor, TL_GPU_NONFINITE: a non-finite result), stat[1] its
 * row, stat[2] flags (TL_GPU_NONPOSITIVE: some pivot was not > 0). The
 * functions below reduce them to the batch status: the first system that
 * failed gives TL_ERR_BREAKDOWN with its system and row. Nothing fails
 * silently.
 */
#ifndef TRIDLAB_GPU_H
#define TRIDLAB_GPU_H

#include <stddef.h>

#include "tridlab/part_distd2.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Systems per group of the packed Thomas kernels: one thread each, one
 * warp per group (the CPU's SIMD lane becomes threadIdx.x). */
#define TL_GPU_SZ 32
#define TL_GPU_STAT_WORDS 3
enum { TL_GPU_OK = 0, TL_GPU_PIVOT = 1, TL_GPU_NONFINITE = 2 };
enum { TL_GPU_NONPOSITIVE = 1 };

/* The order in which the host runs a block's threads in every region. */
typedef enum tl_gpu_order {
  TL_GPU_FORWARD = 0, /* 0, 1, ..., T-1                               */
  TL_GPU_REVERSE = 1, /* T-1, ..., 0                                  */
  TL_GPU_SHUFFLE = 2  /* a permutation drawn per block and region     */
} tl_gpu_order;

/* The order of the calling thread's later launches (the default is
 * TL_GPU_SHUFFLE with seed 1), and the seed of the shuffles. */
void tl_gpu_set_order(tl_gpu_order order, unsigned long seed);
/* The order in which the host runs a launch's blocks, for the calling
 * thread's later launches: forward (0 .. grid-1), reverse, or shuffled
 * (one permutation of the grid per launch, drawn from the seed and the
 * grid's size). Default TL_GPU_SHUFFLE, seed 1. Separate from the thread
 * order, so that each can be varied alone; a kernel whose answer depends
 * on it has a cross-block dependence (docs/gpu.md). */
void tl_gpu_set_block_order(tl_gpu_order order, unsigned long seed);
/* The emulator's checker (optimized/gpu/gpu_emulator.h) for the calling
 * thread's later launches: on (the default) or off (0). On, every load
 * and store a kernel makes to shared memory and to the global arrays
 * its entry point watches is recorded per word, and a race between two
 * threads of a block ("race") or two blocks ("race-blocks"), a load of a
 * word never stored ("uninitialized") and an index outside its array
 * ("bounds") are reported by tl_gpu_launch_status with that arg.
 * Before the first call, a thread's default is read from the
 * environment: off where TRIDLAB_GPU_CHECK=0, on otherwise. */
void tl_gpu_set_check(int on);
/* The four order pairs the tests, the planted bugs and `--param
 * orders=all` run: threads forward, reverse, shuffled, shuffled (seed
 * 12345), with blocks reverse, shuffled, forward, shuffled (seed 12345):
 * every thread order and every block order. tl_gpu_set_order_pair(k)
 * sets pair k (0 <= k < TL_GPU_ORDER_PAIRS) for the calling thread and
 * returns its name ("threads forward, blocks reverse", ...);
 * tl_gpu_set_order_pair(-1) the default (both shuffled, seed 1). */
#define TL_GPU_ORDER_PAIRS 4
const char *tl_gpu_set_order_pair(int k);
/* "gpu-emulated" (kernels run on the host) or the device's runtime. */
const char *tl_gpu_backend_name(void);
/* TL_OK, or the first error of the launches since the last call: a region
 * left open without a barrier (arg "kernel"), a block of too many
 * threads ("threads"), more shared memory than the device's 48 KiB, a
 * shared sub-array written past its end or carved beyond the launch's
 * bytes ("shared": the message names the kernel), what the checker
 * found ("race", "race-blocks", "uninitialized", "bounds": the message
 * names the kernel, block, threads and word), no memory. Clears it. */
int tl_gpu_launch_status(tl_info *info);

/* Thomas on the SZ-packed layout (tridlab/layout.h with SZ = TL_GPU_SZ), one
 * thread per system, in place: d becomes x. w (same size, may be c) is
 * scratch: the emulated kernel keeps c' there, a device its own scratch
 * (w is then not touched); its contents afterwards are unspecified.
 * stat: TL_GPU_STAT_WORDS per system. */
int tl_gpu_thomas_sz_d(size_t n, size_t nsys, const double *a, const double *b, const double *c,
                       double *d, double *w, int *stat, tl_info *info);
int tl_gpu_thomas_sz_f(size_t n, size_t nsys, const float *a, const float *b, const float *c,
                       float *d, float *w, int *stat, tl_info *info);

/* Periodic Thomas (Sherman-Morrison, reference/thomas_periodic_ref.c) on
 * the SZ-packed layout, n >= 3, in place on d; w is scratch of 2 n values
 * per system (packed, 2 x the size of d), as thomas_sz's w. */
int tl_gpu_thomas_periodic_sz_d(size_t n, size_t nsys, const double *a, const double *b,
                                const double *c, double *d, double *w, int *stat, tl_info *info);
int tl_gpu_thomas_periodic_sz_f(size_t n, size_t nsys, const float *a, const float *b,
                                const float *c, float *d, float *w, int *stat, tl_info *info);

/* PCR, one thread block per system of the batch layout (tridlab/system.h),
 * any n >= 1: the two work systems live in shared memory when they fit,
 * else in global memory. */
int tl_gpu_pcr_d(size_t n, size_t nsys, const double *a, const double *b, const double *c,
                 const double *d, double *x, int *stat, tl_info *info);
int tl_gpu_pcr_f(size_t n, size_t nsys, const float *a, const float *b, const float *c,
                 const float *d, float *x, int *stat, tl_info *info);

/* Hybrid Thomas-PCR (paper 002), one block per system of the batch
 * layout, one thread per partition (1 <= parts <= 1024; part_sizes NULL:
 * as even as possible, else parts sizes >= 2 summing to n); the reduced
 * system of 2 parts rows is solved by PCR inside the block. */
int tl_gpu_hybrid_pcr_d(size_t n, size_t nsys, int parts, const size_t *part_sizes, const double *a,
                        const double *b, const double *c, const double *d, double *x, int *stat,
                        tl_info *info);
int tl_gpu_hybrid_pcr_f(size_t n, size_t nsys, int parts, const size_t *part_sizes, const float *a,
                        const float *b, const float *c, const float *d, float *x, int *stat,
                        tl_info *info);

/* Which kernel tl_gpu_hybrid_pcr_* launches. When there are at most 512
 * partitions, every one of 2 to 8 rows, and the block's shared memory
 * allows (on a device: and the kernel's own thread limit), the on-chip kernel
 * (hybrid_chip_kernel: partitions in registers, the reduced system
 * through shared memory, 5 words per unknown through memory); else the
 * kernel with its scratch in global memory (hybrid_kernel). Both do the
 * reference's operations, so they give the same bits. mode 1: the
 * on-chip kernel wherever it applies (the default); 0: never; -1: only
 * ask. Returns the setting before the call. One setting per process,
 * for the emulated and the device paths alike (tests and benchmarks
 * compare the two kernels with it); not for concurrent use. */
int tl_gpu_hybrid_chip(int mode);

/* DistD2 (paper 000 §4.2, Algorithms 6 and 7) on SZ-packed batches that
 * share one matrix, preprocessed by tl_distd2_plan_create_d (Algorithm
 * 5, on the host, once): one thread per system, one block per (group,
 * partition); each partition solves the 2x2 systems at its two
 * interfaces itself. x (packed, n = plan->n rows per group) from d, or
 * from u with the compact scheme's 5-point stencil fused into the
 * decoupling pass. The status is what tl_distd2_plan_solve_d returns for
 * the first system that fails, else its verdict on what was dropped
 * (info->dropped, tol, bound). The float versions round the plan to
 * float. */
int tl_gpu_distd2_sz_d(const tl_distd2_plan *plan, size_t nsys, const double *d, double *x,
                       double tol, tl_info *info);
int tl_gpu_distd2_sz_f(const tl_distd2_plan *plan, size_t nsys, const float *d, float *x,
                       double tol, tl_info *info);
int tl_gpu_distd2_stencil_sz_d(const tl_distd2_plan *plan, const double st[5], size_t nsys,
                               const double *u, double *x, double tol, tl_info *info);
int tl_gpu_distd2_stencil_sz_f(const tl_distd2_plan *plan, const double st[5], size_t nsys,
                               const float *u, float *x, double tol, tl_info *info);

/* The DistD2 plan in the layout the kernels read (gpu_kernels.h,
 * distd2_coef): coef[5 n + P + 5] holds sa, sc, fwd_scale, fwd_mul,
 * bwd_mul (n values each), fix_scale (P), then the stencil st (5; zeros
 * when st is NULL); begin[P + 1] the partition bounds. For a program that
 * launches the kernels itself (bench/gpu/bench_gpu.cu). */
void tl_gpu_distd2_flatten(const tl_distd2_plan *plan, const double st[5], double *coef,
                           long *begin);

/* DistD2 on an MPI rank's slices (optimized/mpi/distd2_mpi.c,
 * distd2_gpu_mpi): nsys systems of m >= 2 rows each (the batch layout:
 * system s's rows at s m), each the rank's partition of a longer system
 * with its own matrix, so its own slice plan (Algorithm 5, on the host):
 * rows + 5 m s holds its sa, sc, fwd_scale, fwd_mul, bwd_mul (m each; the
 * rows tl_distd2_plan_slice_in_d and tl_cpu_distd2_preprocess_lines_d
 * write), fix_scale[s] its fix_scale. One thread per system, TL_GPU_SZ
 * systems per block, in two kernels with the exchange between them:
 *
 *   decouple    Algorithm 6 on d into dt (m nsys values, not d), and the
 *               two rows each system sends into edge + 6 s, in
 *               tl_distd2_edge's order (what tl_distd2_pack_d gives)
 *   (host)      the exchange, the 2x2 systems (tl_distd2_interface_d)
 *   substitute  Algorithm 7 from dt with ends[2 s], ends[2 s + 1] =
 *               x_first, x_last of system s, into x (may be dt)
 *
 * stat: 3 ints per system, the decoupling's and the substitution's first
 * non-finite row (words 0 and 2; word 1 is -1: the 2x2 systems are the
 * host's), rows counted in the slice. The first system with one is
 * returned as TL_ERR_BREAKDOWN (the caller may ask the reference for its
 * report, as distd2_gpu_mpi does). The reference's operations, so its
 * bits in double. On the device where a device build installed one (the
 * double entry points; each call copies its arrays there and back, so dt
 * returns to the host between the two), else emulated on the host. */
int tl_gpu_distd2_slice_decouple_d(size_t m, size_t nsys, const double *rows,
                                   const double *fix_scale, const double *d, double *dt,
                                   double *edge, int *stat, tl_info *info);
int tl_gpu_distd2_slice_decouple_f(size_t m, size_t nsys, const float *rows, const float *fix_scale,
                                   const float *d, float *dt, float *edge, int *stat,
                                   tl_info *info);
int tl_gpu_distd2_slice_substitute_d(size_t m, size_t nsys, const double *rows, const double *ends,
                                     const double *dt, double *x, int *stat, tl_info *info);
int tl_gpu_distd2_slice_substitute_f(size_t m, size_t nsys, const float *rows, const float *ends,
                                     const float *dt, float *x, int *stat, tl_info *info);

/* The same two kernels with the slices kept where the kernels run, between
 * the two and across the exchange (optimized/gpu/gpu_resident.c; what
 * distd2_gpu_mpi runs): on the device a device build installed when the
 * slices are opened, else in host memory the emulator runs the kernels on.
 *
 *   open        the plans' rows (5 m per system), fix_scale and d go there
 *   decouple    Algorithm 6 there; d' stays, the edges (6 per system) and
 *               the status words (3 ints per system) come back
 *   (host)      the exchange, the 2x2 systems
 *   substitute  the ends (2 per system) go there, Algorithm 7 into x
 *               there, x and the status words come back; d' is kept
 *   dt          one system's m values of d' to the host (to_device 0) or
 *               back (1), for a caller that redoes that system on the host
 *
 * traffic: the bytes copied there (up) and back (down) since open. The
 * returns, stat, and the kernels' bits are the slice entry points'. close
 * frees what open made (NULL: nothing). Double only. */
typedef struct tl_gpu_distd2_resident tl_gpu_distd2_resident;
int tl_gpu_distd2_resident_open_d(size_t m, size_t nsys, const double *rows,
                                  const double *fix_scale, const double *d,
                                  tl_gpu_distd2_resident **out, tl_info *info);
int tl_gpu_distd2_resident_decouple_d(tl_gpu_distd2_resident *r, double *edge, int *stat,
                                      tl_info *info);
int tl_gpu_distd2_resident_dt_d(tl_gpu_distd2_resident *r, size_t s, double *dt, int to_device,
                                tl_info *info);
int tl_gpu_distd2_resident_substitute_d(tl_gpu_distd2_resident *r, const double *ends, double *x,
                                        int *stat, tl_info *info);
void tl_gpu_distd2_resident_traffic(const tl_gpu_distd2_resident *r, size_t *up, size_t *down);
void tl_gpu_distd2_resident_close(tl_gpu_distd2_resident *r);

/* The compact scheme across MPI ranks on the GPU kernels (tl_mpi_distd2_
 * compact_gpu, optimized/mpi/distd2_mpi.c), a rank's slices kept where
 * the kernels run between Algorithms 6 and 7 (optimized/gpu/
 * gpu_resident.c): ONE slice plan for every system (plan->parts == 1,
 * m = plan->n >= 2 rows), the 5-point stencil st fused into the
 * decoupling, the batch packed in groups of TL_GPU_SZ systems. One thread
 * per system:
 *
 *   open        the plan (flattened), st and uh go there: u of every
 *               system with two ghost rows on each side, m + 4 rows per
 *               group (tl_mpi_distd2_compact_sz's layout, the ghost rows
 *               already filled from the neighbours)
 *   decouple    Algorithm 6 with the stencil there; d' stays; its rows 0
 *               and m-1 per system come back into ends[2 s], ends[2 s+1]
 *   (host)      the exchange, the 2x2 systems
 *   substitute  x_first, x_last per system (xfl[2 s], xfl[2 s + 1]) go
 *               there, Algorithm 7 in place over d', and x comes back
 *               into du (m rows per group; the lanes past nsys 0)
 *
 * stat: 2 ints per system, the decoupling's and the substitution's first
 * row whose value is not finite (-1: none); each call fills its own and
 * returns TL_OK: the caller reports (as tl_mpi_distd2_compact_sz's
 * kernels do, the first failing system). The reference's operations, so
 * the packed CPU kernels' bits. substitute runs once after each
 * decouple. traffic: bytes copied there and back since open. */
typedef struct tl_gpu_compact_resident tl_gpu_compact_resident;
int tl_gpu_compact_resident_open_d(const tl_distd2_plan *plan, const double st[5], size_t nsys,
                                   const double *uh, tl_gpu_compact_resident **out, tl_info *info);
int tl_gpu_compact_resident_decouple_d(tl_gpu_compact_resident *r, double *ends, int *stat,
                                       tl_info *info);
int tl_gpu_compact_resident_substitute_d(tl_gpu_compact_resident *r, const double *xfl, double *du,
                                         int *stat, tl_info *info);
void tl_gpu_compact_resident_traffic(const tl_gpu_compact_resident *r, size_t *up, size_t *down);
void tl_gpu_compact_resident_close(tl_gpu_compact_resident *r);

/* PDD's local phase (reference/pdd_ref.c, tl_pdd_ref_local_d: the
 * partition's solution y and its whole spikes v, w) for every partition
 * of every system of a batch (batch layout), one block per system and
 * one thread per partition (1 <= parts <= 1024, part_sizes as
 * tl_solve's): y, v, w have the batch's shape; per (system, partition)
 * q = s parts + p: part[3q..] = drop_v, drop_w, margin and stat[3q..] =
 * kind (0 ok, 1 local solve, 2 spike), failing row, margin row (global
 * rows). The first failure is returned as TL_ERR_BREAKDOWN. What the
 * MPI room's ranks would run before their exchange. The double version
 * runs on a device when one is installed (below). */
int tl_gpu_pdd_local_d(size_t n, size_t nsys, int parts, const size_t *part_sizes, const double *a,
                       const double *b, const double *c, const double *d, double *y, double *v,
                       double *w, double *part, int *stat, tl_info *info);
int tl_gpu_pdd_local_f(size_t n, size_t nsys, int parts, const size_t *part_sizes, const float *a,
                       const float *b, const float *c, const float *d, float *y, float *v, float *w,
                       float *part, int *stat, tl_info *info);

/* PDD's local phase of an MPI rank's slices (optimized/mpi/, pdd_gpu_mpi):
 * nsys systems of m rows each (the batch layout), each the rank's
 * partition of a longer system, with a left neighbour (has_left) and a
 * right one (has_right) on other ranks. Outputs as tl_gpu_pdd_local_*
 * with parts = 1 (rows counted in the slice). */
int tl_gpu_pdd_slice_d(size_t m, size_t nsys, int has_left, int has_right, const double *a,
                       const double *b, const double *c, const double *d, double *y, double *v,
                       double *w, double *part, int *stat, tl_info *info);
int tl_gpu_pdd_slice_f(size_t m, size_t nsys, int has_left, int has_right, const float *a,
                       const float *b, const float *c, const float *d, float *y, float *v, float *w,
                       float *part, int *stat, tl_info *info);

/* PDD on an MPI rank's slices kept where the kernels run, from phase 1
 * to the correction (optimized/gpu/gpu_resident.c; what pdd_gpu_mpi
 * runs): on the device a device build installed when the slices are
 * opened, else in host memory the emulator runs the kernels on. nsys
 * systems of m >= 2 rows (the batch layout), each the rank's partition of
 * a longer system, with a left neighbour (has_left) and a right one
 * (has_right) on other ranks. One thread per system:
 *
 *   open     a, b, c, d go there
 *   local    phase 1 there (tl_pdd_ref_local_d's operations): y, v, w
 *            stay; per system the six words the messages and the 2x2
 *            systems read, ends[6 s..] = y_0, y_{m-1}, v_0, v_{m-1}, w_0,
 *            w_{m-1}, and part[3 s..], stat[3 s..] as tl_gpu_pdd_slice_d's
 *            come back
 *   (host)   the two messages, the 2x2 interface systems
 *   correct  x_left, x_right per system (lr[2 s], lr[2 s + 1]) go there;
 *            x = y - v x_left - w x_right there (tl_pdd_ref_correct_d's
 *            operations); x comes back into the caller's x for every
 *            system but those skip[s] names (skip NULL: all; runs of
 *            systems, one copy each), with xmax[s], the largest |x|, and
 *            row[s], the first row whose x is not finite (-1: none)
 *
 * local returns TL_ERR_BREAKDOWN for the first system whose stat names a
 * failure, correct for the first row[s] >= 0 that skip does not name
 * (the caller may ask the reference for its report, as pdd_gpu_mpi
 * does). traffic: bytes copied there and back since open. Double only. */
#define TL_GPU_PDD_ENDS 6 /* the end words per system local gives */
typedef struct tl_gpu_pdd_resident tl_gpu_pdd_resident;
int tl_gpu_pdd_resident_open_d(size_t m, size_t nsys, int has_left, int has_right, const double *a,
                               const double *b, const double *c, const double *d,
                               tl_gpu_pdd_resident **out, tl_info *info);
int tl_gpu_pdd_resident_local_d(tl_gpu_pdd_resident *r, double *ends, double *part, int *stat,
                                tl_info *info);
int tl_gpu_pdd_resident_correct_d(tl_gpu_pdd_resident *r, const double *lr,
                                  const unsigned char *skip, double *x, double *xmax, int *row,
                                  tl_info *info);
void tl_gpu_pdd_resident_traffic(const tl_gpu_pdd_resident *r, size_t *up, size_t *down);
void tl_gpu_pdd_resident_close(tl_gpu_pdd_resident *r);

/* SPIKE's local phase (reference/spike_ref.c, phases 1-3: the block
 * factored with partial pivoting as DGTTRF, g = A_p^-1 d, the spikes V and
 * W, the six tips) for every partition of every system of a batch (batch
 * layout), one block per system and one thread per partition (1 <= parts
 * <= 1024, part_sizes as tl_solve's): g, v, w have the batch's shape; per
 * (system, partition) q = s parts + p: tips[6q..] as tl_spike_tips_d, and
 * stat[3q..] = kind (0 ok, 1 a singular diagonal block, 2 a non-finite
 * local result), its global row, 0. The first failure is returned as
 * TL_ERR_BREAKDOWN. Phases 4-5 are tl_spike_finish_d's (tridlab/
 * part_spike.h). The double version runs on a device when one is
 * installed (below). */
int tl_gpu_spike_local_d(size_t n, size_t nsys, int parts, const size_t *part_sizes,
                         const double *a, const double *b, const double *c, const double *d,
                         double *g, double *v, double *w, double *tips, int *stat, tl_info *info);
int tl_gpu_spike_local_f(size_t n, size_t nsys, int parts, const size_t *part_sizes,
                         const float *a, const float *b, const float *c, const float *d, float *g,
                         float *v, float *w, float *tips, int *stat, tl_info *info);

/* A DEVICE. The functions above run on the host by emulation unless a
 * device build is linked into the program (make gpu: optimized/gpu/
 * gpu_device.cu installs itself at start-up when a device is present).
 * Then the double kernels run on the device: arrays are copied there and
 * back by these functions, and the registry lists the backends as
 * "cuda" or "hip". Each function takes host arrays, as the emulated
 * entry points; returns 0, or -1 with the runtime's message in err. */
typedef struct tl_gpu_device_ops {
  const char *name; /* "cuda" or "hip" */
  int (*thomas_sz)(size_t n, size_t nsys, const double *a, const double *b, const double *c,
                   double *d, int *stat, char *err, size_t len);
  int (*thomas_periodic_sz)(size_t n, size_t nsys, const double *a, const double *b,
                            const double *c, double *d, int *stat, char *err, size_t len);
  int (*pcr)(size_t n, size_t nsys, const double *a, const double *b, const double *c,
             const double *d, double *x, int *stat, char *err, size_t len);
  int (*hybrid_pcr)(size_t n, size_t nsys, int parts, const long *offsets, const double *a,
                    const double *b, const double *c, const double *d, double *x, int *stat,
                    char *err, size_t len);
  /* DistD2 with the plan flattened: coef = sa, sc, fwd_scale, fwd_mul,
   * bwd_mul (n each), fix_scale (parts), the stencil (5; read when
   * stencil is 1, then in is u, else d). stat: 3 ints per (system,
   * partition). */
  int (*distd2)(size_t n, int periodic, size_t nsys, int parts, const long *begin,
                const double *coef, int stencil, const double *in, double *x, int *stat, char *err,
                size_t len);
  /* PDD's local phase on the batch layout (tl_gpu_pdd_local_d), offsets as
   * hybrid_pcr's; part and stat: 3 per (system, partition). */
  int (*pdd_local)(size_t n, size_t nsys, int parts, int edges, const long *offsets, const double *a,
                   const double *b, const double *c, const double *d, double *y, double *v,
                   double *w, double *part, int *stat, char *err, size_t len);
  /* SPIKE's local phase (tl_gpu_spike_local_d), offsets as pdd_local's;
   * tips: 6 and stat: 3 per (system, partition). */
  int (*spike_local)(size_t n, size_t nsys, int parts, const long *offsets, const double *a,
                     const double *b, const double *c, const double *d, double *g, double *v,
                     double *w, double *tips, int *stat, char *err, size_t len);
  /* One MPI rank's DistD2 slices (tl_gpu_distd2_slice_decouple_d and
   * _substitute_d): the plans' rows, d or d', in; d' and the edges, or
   * x (which may be dt), out. */
  int (*distd2_slice_decouple)(size_t m, size_t nsys, const double *rows, const double *fix_scale,
                               const double *d, double *dt, double *edge, int *stat, char *err,
                               size_t len);
  int (*distd2_slice_substitute)(size_t m, size_t nsys, const double *rows, const double *ends,
                                 const double *dt, double *x, int *stat, char *err, size_t len);
  /* Memory on the device, kept between calls (tl_gpu_distd2_resident_*):
   * alloc (NULL when it fails, the runtime's message in err), release,
   * and copies of bytes to it (put) and from it (get): 0, or -1 with the
   * message. */
  void *(*alloc)(size_t bytes, char *err, size_t len);
  void (*release)(void *p);
  int (*put)(void *dev, const void *host, size_t bytes, char *err, size_t len);
  int (*get)(void *host, const void *dev, size_t bytes, char *err, size_t len);
  /* The two slice kernels on arrays already on the device: no copies. */
  int (*distd2_slice_decouple_there)(size_t m, size_t nsys, const double *rows,
                                     const double *fix_scale, const double *d, double *dt,
                                     double *edge, int *stat, char *err, size_t len);
  int (*distd2_slice_substitute_there)(size_t m, size_t nsys, const double *rows,
                                       const double *ends, const double *dt, double *x, int *stat,
                                       char *err, size_t len);
  /* PDD's three slice kernels on arrays already on the device
   * (tl_gpu_pdd_resident_*): the local phase (scratch: m nsys values),
   * the six end words per system, the correction over y in x. */
  int (*pdd_slice_local_there)(size_t m, size_t nsys, int edges, const double *a, const double *b,
                               const double *c, const double *d, double *y, double *v, double *w,
                               double *scratch, double *part, int *stat, char *err, size_t len);
  int (*pdd_slice_ends_there)(size_t m, size_t nsys, const double *y, const double *v,
                              const double *w, double *ends, char *err, size_t len);
  int (*pdd_slice_correct_there)(size_t m, size_t nsys, int edges, const double *v, const double *w,
                                 const double *lr, double *x, double *xmax, int *row, char *err,
                                 size_t len);
  /* The compact scheme's two kernels on arrays already on the device
   * (tl_gpu_compact_resident_*): coef, the slice plan flattened
   * (tl_gpu_distd2_flatten); uh, u with its ghost rows; stat, 2 per system. */
  int (*distd2_compact_decouple_there)(size_t m, size_t nsys, const double *coef, const double *uh,
                                       double *dt, double *ends, int *stat, char *err, size_t len);
  int (*distd2_compact_substitute_there)(size_t m, size_t nsys, const double *coef,
                                         const double *xfl, const double *dt, double *x, int *stat,
                                         char *err, size_t len);
} tl_gpu_device_ops;
/* Run the double kernels on this device from now on (NULL: emulate). */
void tl_gpu_use_device(const tl_gpu_device_ops *ops);

/* The batch status from the per-system words (kernel names `who`). */
int tl_gpu_batch_status(const char *who, size_t nsys, const int *stat, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
