/* tridlab/layout.h -- the SZ-packed layout of batches and 3-D arrays
 * (optimized/layout/), below both the CPU kernels (tridlab/cpu.h, which
 * includes this header) and the GPU kernels (tridlab/gpu.h, SZ =
 * TL_GPU_SZ).
 *
 * Source: paper 000 (DistD2-TDS) §4.1 (the SZ-packed data structure,
 * Figures 6 and 7).
 *
 * THE SZ-PACKED LAYOUT. A batch of nsys systems of n rows is cut into
 * groups of SZ systems (the last group padded to SZ). In a group the
 * i-th entries of its SZ systems are adjacent, so the recurrence of row i
 * runs on SZ systems at once with one vector instruction per SZ/width
 * lanes, and memory is read as one linear stream per array:
 *
 *   batch layout (tridlab.h):  s0: r0 r1 r2 ... | s1: r0 r1 r2 ... | ...
 *   SZ-packed (SZ = 4):        group 0: [r0 of s0 s1 s2 s3][r1 of s0..s3]...
 *                              group 1: [r0 of s4 s5 s6 s7][r1 ...]...
 *
 * Entry (system s, row i) lives at ((s / SZ) * n + i) * SZ + s % SZ.
 * tl_cpu_packed_count() gives the number of entries including padding.
 * Padding lanes are filled with `pad` by the pack functions: pack b with
 * pad = 1 and a, c, d with pad = 0, so padding lanes solve the identity.
 * SZ is one of 8, 16, 32, 64 (double and float); see tl_cpu_sz_default.
 *
 * CARTESIAN ARRAYS. A 3-D array u of dims {nx, ny, nz} stores u(i, j, k)
 * at (k * ny + j) * nx + i (x fastest). A solve along direction dir is a
 * batch of lines of n = dims[dir] rows; its systems are numbered
 *   x: s = k * ny + j,   y: s = k * nx + i,   z: s = j * nx + i,
 * so consecutive systems of y and z solves are adjacent in memory, and a
 * solve along x is exactly the batch layout with nsys = ny * nz.
 *
 * The functions keep the tl_cpu_ names they had when the CPU room held
 * them. ERRORS. Every function that can fail returns a tl_status.
 *
 * Threads: OpenMP over groups (static schedule).
 */
#ifndef TRIDLAB_LAYOUT_H
#define TRIDLAB_LAYOUT_H

#include <stddef.h>

#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The group size SZ                                                   */

#define TL_CPU_SZ_MIN 8
#define TL_CPU_SZ_MAX 64

/* 1 when sz is a supported group size (8, 16, 32 or 64). */
int tl_cpu_sz_supported(size_t sz);
/* The recommended SZ for systems of n rows of elem_size bytes (8 or 4):
 * 128 bytes of a row of a group (16 doubles, 32 floats: several vectors
 * of independent recurrences in flight for any vector width), halved
 * while a group's cache-resident scratch (2 n SZ elements) exceeds
 * 512 KiB, but never below 8. docs/performance.md measures SZ = 8..64. */
size_t tl_cpu_sz_default(size_t n, size_t elem_size);
/* The recommended SZ for lines along x (contiguous systems, the batch
 * layout): 8 lines (8 doubles: a 64-byte vector; 8 floats: half of one),
 * at most tl_cpu_sz_default. Each group reads SZ lines at once; out of
 * cache fewer lines stream better than more vectors of recurrences help,
 * and 16 float lines n apart share L1 sets at power-of-two n. */
size_t tl_cpu_sz_lines(size_t n, size_t elem_size);
/* Entries of an SZ-packed batch: ceil(nsys / sz) * sz * n; 0 if it
 * overflows or an argument is 0. */
size_t tl_cpu_packed_count(size_t n, size_t nsys, size_t sz);

/* ------------------------------------------------------------------ */
/* Reordering                                                          */

typedef enum tl_dir { TL_DIR_X = 0, TL_DIR_Y = 1, TL_DIR_Z = 2 } tl_dir;

/* Rows n and number of lines nsys of a solve along dir. TL_ERR_ARG for
 * a zero dimension, a bad dir or an overflowing size. */
int tl_cpu_lines(const size_t dims[3], tl_dir dir, size_t *n, size_t *nsys, tl_info *info);

/* Rows of a line along y or z this many bytes apart, or fewer, are "near":
 * tl_cpu_thomas_3d then reads one group of SZ adjacent lines at a time
 * (rows of SZ values), and further apart a unit of several groups (rows of
 * up to 2 KiB). docs/performance.md measures both. */
#define TL_CPU_NEAR_ROWS (32u << 10)
/* The recommended SZ for tl_cpu_thomas_3d along dir of an array of dims:
 * along x tl_cpu_sz_lines(n); along y and z, rows of 128 bytes (16
 * doubles, 32 floats) where the rows are near, 32 lanes where they are
 * not, then the smallest supported SZ that covers an x-row, and halved
 * (not below 8) while a group's scratch of 2 n SZ values would exceed
 * 1 MiB. elem_size 8 or 4 (0: 8); 0 for another size, a zero dimension
 * or a bad dir. */
size_t tl_cpu_sz_3d(const size_t dims[3], tl_dir dir, size_t elem_size);

/* Batch layout (system s at [s n, (s+1) n)) to SZ-packed and back. dst
 * holds tl_cpu_packed_count(n, nsys, sz) entries; padding lanes get pad. */
int tl_cpu_pack_batch_d(size_t n, size_t nsys, size_t sz, const double *src, double *dst,
                        double pad, tl_info *info);
int tl_cpu_unpack_batch_d(size_t n, size_t nsys, size_t sz, const double *src, double *dst,
                          tl_info *info);
int tl_cpu_pack_batch_f(size_t n, size_t nsys, size_t sz, const float *src, float *dst, float pad,
                        tl_info *info);
int tl_cpu_unpack_batch_f(size_t n, size_t nsys, size_t sz, const float *src, float *dst,
                          tl_info *info);

/* Cartesian 3-D array to the SZ-packed layout of direction dir (systems
 * numbered as above) and back. */
int tl_cpu_pack_3d_d(const size_t dims[3], tl_dir dir, size_t sz, const double *src, double *dst,
                     double pad, tl_info *info);
int tl_cpu_unpack_3d_d(const size_t dims[3], tl_dir dir, size_t sz, const double *src, double *dst,
                       tl_info *info);
int tl_cpu_pack_3d_f(const size_t dims[3], tl_dir dir, size_t sz, const float *src, float *dst,
                     float pad, tl_info *info);
int tl_cpu_unpack_3d_f(const size_t dims[3], tl_dir dir, size_t sz, const float *src, float *dst,
                       tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
