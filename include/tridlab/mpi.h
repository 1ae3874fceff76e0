/* tridlab/mpi.h -- the partition algorithms across real MPI ranks
 * (optimized/mpi/, library libtridlab_mpi; docs/mpi.md).
 *
 * Rank p of a communicator of P ranks owns a contiguous slice of rows
 * [begin, begin + m) of every system of a batch (the systems share the
 * decomposition). It holds m * nsys entries of each of a, b, c, d, system
 * s at [s m, (s+1) m), and receives x in the same layout:
 *
 *   global system s:   rows 0 .......... n-1
 *   rank 0:            [0, m0)
 *   rank 1:                    [m0, m0+m1)
 *   ...                                        rank P-1: [.., n)
 *
 * Each algorithm runs the phase functions of its simulated reference
 * (reference/, tridlab/part_*.h) on its own rows and exchanges what the
 * reference's explicit message buffers hold, through one exchange layer
 * (the only code that calls MPI for the solvers). The exchange layer
 * records the ledger (tridlab/ledger.h): a rank records its own entries;
 * tl_mpi_ledger_gather() collects them.
 *
 * Every rank returns the same status and the same info: a bad argument
 * found on one rank, a breakdown in one rank's rows, or a verdict that
 * needs every rank's numbers is agreed on before tl_mpi_solve returns
 * (docs/mpi.md, "status"). Nothing hangs: a rank whose rows broke down
 * still takes part in every exchange.
 */
#ifndef TRIDLAB_MPI_H
#define TRIDLAB_MPI_H

#include <mpi.h>
#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/part_distd2.h"
#include "tridlab/registry.h"
#include "tridlab/status.h"
#include "tridlab/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One rank's slice of a distributed batch. */
typedef struct tl_mpi_batch {
  tl_dtype dtype;
  size_t n;          /* rows of every system (global)                     */
  size_t nsys;       /* systems in the batch                              */
  int periodic;
  size_t begin, m;   /* this rank's rows [begin, begin + m)               */
  const void *a, *b, *c, *d; /* m * nsys entries each; never modified     */
} tl_mpi_batch;

/* The exchange layer's handle: the communicator, and where to record. */
typedef struct tl_mpi_exchange {
  MPI_Comm comm;
  int rank, size;
  tl_ledger *ledger; /* NULL: nothing recorded                           */
  double seconds;    /* time spent inside communication calls            */
} tl_mpi_exchange;

/* An algorithm's rank program. tl_mpi_solve() has checked the arguments
 * on every rank and agreed on them; `slices` holds every rank's m (P
 * entries); self is the algorithm's registry descriptor (its reference's
 * parameters inherited). It returns this rank's status after the verdict
 * (the same on every rank). */
typedef int (*tl_mpi_solve_fn)(const tl_algorithm *self, tl_mpi_exchange *ex,
                               const tl_mpi_batch *local, const size_t *slices, void *x,
                               const tl_options *opt, tl_info *info);

/* What makes a registry algorithm an MPI one (tl_algorithm.mpi). The rest
 * of its descriptor is the registry's: its name ("pdd_mpi"), backend
 * "mpi", its simulated reference (classes, dtypes, layouts, parameters,
 * smallest slice are inherited from it) and a ledger model, the
 * reference's: the messages the ranks record are the ones the simulated
 * partitions record. */
typedef struct tl_mpi_program {
  const char *crosses;  /* one line: what crosses the ranks             */
  tl_mpi_solve_fn solve;
  int baseline;         /* 1: a library baseline (ScaLAPACK) with no
                           simulated twin; checked against LAPACK only,
                           no ledger model                              */
  void (*slices)(size_t n, int P, size_t *sizes); /* the layout it needs;
                           NULL: any slices, even by default            */
  int own_entry_check;  /* 1: the program checks that its entries are
                           finite and its corners zero in its own pass
                           over them and agrees on the verdict
                           (tl_mpi_entries_agree) before its own one;
                           tl_mpi_solve checks the rest                 */
} tl_mpi_program;

/* The MPI room's algorithms, in the order of the registry. The first
 * call adds the room to the registry (tl_register_room, under the name
 * "mpi"), so that from then on tl_registry(), tl_find(), `list` and the
 * verification runner hold them beside the serial ones. */
const tl_algorithm *const *tl_mpi_registry(size_t *count);
/* An MPI algorithm by its name ("pdd_mpi") or by its reference's name
 * ("pdd"); NULL when there is none. */
const tl_algorithm *tl_mpi_find(const char *name);

/* The communicator the MPI algorithms run on when they are called through
 * tl_solve (whole batches, below): MPI_COMM_WORLD unless set here. */
void tl_mpi_set_comm(MPI_Comm comm);
MPI_Comm tl_mpi_comm(void);

/* An MPI algorithm through tl_solve (its tl_algorithm.solve): the whole
 * batch on every rank. Collective over tl_mpi_comm(): every rank calls
 * tl_solve with the same batch and options -- so tl_solve's checks give
 * the same verdict on every rank before any message. Rank r takes its
 * slice of rows (opt->part_sizes, else the algorithm's default slices),
 * the ranks solve with tl_mpi_solve, and every rank receives the whole x;
 * opt->ledger, when set, receives every rank's entries. The ranks are the
 * partitions: opt->parts is 1 (the default) or the communicator's size.
 * Without MPI (not initialised, or finalised) it is unsupported, and
 * tl_solve answers with the reference. This is how the verification
 * runner drives the MPI algorithms under mpirun. */
int tl_mpi_solve_batch(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info);

/* Rows of rank `rank` when n rows are split over P ranks as evenly as
 * possible (the first n % P ranks get one more): as tl_partition_bounds. */
void tl_mpi_even_slice(size_t n, int P, int rank, size_t *begin, size_t *m);
/* The rows of every rank (P sizes) an algorithm is run with when the
 * caller does not choose: its own layout, or as even as possible. */
void tl_mpi_default_slices(const tl_algorithm *algo, size_t n, int P, size_t *sizes);
/* The checks of P slices of n rows for algo, the ones tl_solve makes of
 * its partitions (tl_check_partitions on algo; partition r is
 * rank r's slice): n is large enough for P ranks, every slice has at
 * least the algorithm's smallest number of rows and at most the rows
 * still left, and they add up to n without wrapping around. slices NULL:
 * only the even split is checked. No communication: every rank that
 * passes the same arguments gets the same verdict, so a program checks
 * before it moves any rows (tl_mpi_scatter_batch does not check).
 * TL_ERR_ARG (arg "parts") naming the slice. */
int tl_mpi_check_slices(const tl_algorithm *algo, size_t n, int P, const size_t *slices,
                        tl_info *info);
/* ScaLAPACK's 1-D block layout: ceil(n / P) rows per rank, the last ones
 * the rest (possibly none). */
void tl_mpi_pddtsv_slices(size_t n, int P, size_t *sizes);

/* The OpenMP threads of this rank's local kernels (the x-line Thomas of
 * PDD, RPDD and ITS, DistD2's packed phases): the cores of its node
 * shared between the node's ranks of comm, at least 1 -- unless the
 * environment sets OMP_NUM_THREADS, which is then left as set. Without
 * it every rank would start a thread per core of the node. Collective;
 * returns this rank's thread count. tridlab-mpi calls it at start. */
int tl_mpi_share_cores(MPI_Comm comm);

/* Whether the MPI library can send from and receive into a GPU's
 * memory (GPU-aware MPI), as it says at build time and at run time
 * (Open MPI's MPIX_CUDA_AWARE_SUPPORT and MPIX_Query_cuda_support, its
 * ROCm pair where it has them): *aware 1 when both say yes, else 0;
 * returns a sentence that says which. The rank programs on the GPU
 * kernels (pdd_gpu_mpi, distd2_gpu_mpi) do not use it either way: their
 * messages are formed on the host (boundary words that came back, with
 * host entries and the 2x2 systems' answers). Not collective. */
const char *tl_mpi_gpu_aware(int *aware);

/* The partition algorithms keep their largest per-solve arrays (the
 * modified coefficients, spikes or plans of a slice, 2 to 5 words per
 * unknown; the 3-D grid its gathered lines, 5) from one solve to the
 * next, per thread, so that repeated solves do not fault in fresh pages
 * each time. This frees the calling
 * thread's (e.g. before MPI_Finalize, or between phases of a program that
 * needs the memory back); the next solve allocates again. Not collective.
 * A program that solves from several threads calls it in each of them
 * before the thread ends: nothing frees a thread's scratch at its exit. */
void tl_mpi_scratch_release(void);

/* Solve. Collective over comm: every rank calls it with its slice. opt
 * may be NULL; opt->parts and opt->part_sizes are ignored (the ranks and
 * their slices are the partitions); opt->ledger, when set, receives this
 * rank's entries. algo: an MPI algorithm (tl_mpi_registry, tl_mpi_find).
 * Checks on every rank: tl_solve's own (tl_check_batch) on the rank's
 * rows (dtype, layout, sizes, n * nsys addressable, finite entries, zero
 * corners of plain systems, x overlapping no input), every rank's batch
 * of the same shape, the slices contiguous and each at least the
 * algorithm's rows (tl_check_partitions), the parameters -- agreed by one
 * collective that the ledger does not count (it is not part of the
 * algorithm); then the algorithm; then the verdict. A program with
 * own_entry_check checks the entries itself, in passes over them it
 * makes anyway (its batched sweeps, or the flags of the x-line kernel
 * that solves its local systems), and scans what those do not read; it agrees
 * before its verdict, by one more collective the ledger does not count:
 * the same report (the lowest failing rank's tl_check_entries) on every
 * rank. The program has then run on the bad entries (its messages and
 * ledger entries exist), and x is unspecified. */
int tl_mpi_solve(const tl_algorithm *algo, MPI_Comm comm, const tl_mpi_batch *local, void *x,
                 const tl_options *opt, tl_info *info);

/* tl_mpi_solve, also saying how long this rank spent inside the
 * algorithm's communication calls (the exchange layer's clock: waiting for
 * a slower rank counts as communication). comm_seconds may be NULL. */
int tl_mpi_solve_timed(const tl_algorithm *algo, MPI_Comm comm, const tl_mpi_batch *local,
                       void *x, const tl_options *opt, tl_info *info, double *comm_seconds);
/* Collect every rank's ledger entries on `root` (into *all, reset first,
 * significant on root only). Collective; not recorded. */
int tl_mpi_ledger_gather(MPI_Comm comm, const tl_ledger *mine, int root, tl_ledger *all);

/* Distribute a whole batch held on `root` (sys significant there only;
 * n, nsys, dtype, periodic are broadcast) into slices with the given
 * sizes (slices NULL: even; else the same P sizes on every rank, adding
 * up to n -- unchecked: a slice that reaches past n reads past the
 * arrays, so check them first with tl_mpi_check_slices), and gather a
 * solution back. The I/O of `tridlab-mpi solve` and of the tests; not
 * recorded. `local` owns its arrays: free them with tl_mpi_batch_free. */
int tl_mpi_scatter_batch(MPI_Comm comm, int root, const tl_batch *sys, const size_t *slices,
                         tl_mpi_batch *local, tl_info *info);
void tl_mpi_batch_free(tl_mpi_batch *local);
int tl_mpi_gather_x(MPI_Comm comm, int root, const tl_mpi_batch *local, const void *x_local,
                    void *x_all, tl_info *info);

/* DistD2 for a compact scheme (paper 000 §4.2, Figure 9) across the
 * ranks of comm: ONE matrix for every system of the batch, the
 * right-hand side the 5-point stencil st of u fused into the decoupling,
 * on SZ-packed slices with the packed kernels of optimized/cpu/. plan:
 * this rank's slice plan of its m rows of the matrix
 * (tl_distd2_plan_slice_d). u: its rows of every system with ghost
 * rows, SZ-packed with m + 4 rows per group -- entry (system s, own row
 * j) at ((s / SZ) (m + 4) + j + 2) SZ + s % SZ; the function fills the
 * ghost rows 0, 1 and m+2, m+3 of every group from the neighbours. du:
 * the answer, SZ-packed with m rows per group (tridlab/cpu.h, n = m).
 * Phases: "ghost-rows" (2 rows per group to each neighbour), the packed
 * decoupling, "edges" (3 words per system each way), the 2x2 systems,
 * the packed substitution, "verdict". round_groups: 0, one exchange of
 * "edges" for the whole batch; else rounds of that many groups each
 * (round r of "edges"), so that d' of a round is still in cache when
 * its substitution reads it (paper 002's mini-batches: more messages,
 * half the memory traffic). With rounds, a du larger than
 * tl_cpu_stream_min_bytes() on 16-byte boundaries is written by
 * streaming stores, and d' of a round (up to 4 MiB) is made in this
 * thread's kept scratch (tl_mpi_scratch_release frees it). Collective:
 * every rank returns the
 * same status (as tl_distd2_plan_solve_stencil_d's for each system, the
 * first failure of the batch). ledger: this rank's entries (may be
 * NULL); comm_seconds: time inside communication (may be NULL). */
int tl_mpi_distd2_compact_sz(MPI_Comm comm, const tl_distd2_plan *plan, const double st[5],
                             size_t nsys, size_t sz, size_t round_groups, double *u, double *du,
                             double tol, tl_ledger *ledger, double *comm_seconds, tl_info *info);
/* The same with one GPU per rank (tridlab/gpu.h, tl_gpu_compact_
 * resident_*): the batch packed in groups of TL_GPU_SZ (u with its ghost
 * rows and du as above with SZ = TL_GPU_SZ), one exchange of "edges"
 * for the whole batch, Algorithms 6 and 7 on the GPU kernels with the
 * slices kept there between them (on the device a device build
 * installed, else emulated with the checker). The same messages, status,
 * report and bits of every system as tl_mpi_distd2_compact_sz with
 * round_groups 0; du's lanes past the last system are 0 (the CPU's hold
 * what its kernels made of u's), and all of du when the device failed. */
int tl_mpi_distd2_compact_gpu(MPI_Comm comm, const tl_distd2_plan *plan, const double st[5],
                              size_t nsys, double *u, double *du, double tol, tl_ledger *ledger,
                              double *comm_seconds, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
