/* tests/test_gpu_planted.c -- planted bugs: small kernels, each broken on
 * purpose in one way the emulator must catch (docs/gpu.md, "Emulation,
 * and what it proves"), next to its correct twin, which must run clean:
 *
 *   blocks sharing a global scratch slot   the answer changes with the
 *                                          block order
 *   a read of global scratch never written NaN (the scratch is poisoned)
 *   a shared sub-array overflowing         the guard words report it
 *   sub-arrays beyond the launch's bytes   reported
 *   a launch over the shared-memory limit  a launch error, nothing runs
 *   the checker: a race between threads,   named with its kind (race,
 *   between blocks, a load never stored,   race-blocks, uninitialized,
 *   an index past a sub-array, a store at  bounds) in every order; off,
 *   kernel scope                           nothing is said
 *
 * Kernels (a) to (d) index memory plainly, so that the checker does not
 * see them: they test the answer-based checks (orders, poison, guard
 * words, limits) alone. (e) writes every access as TL_LD / TL_ST, as the
 * real kernels do, for the checker.
 *
 * Written with the port macros, as the real kernels; compiled only into
 * the tests. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/tl_gpu_port.h"
#include "tridlab/gpu.h"
#include "tridlab/status.h"

#define GRID 8
#define THREADS 32
#define VALUES (GRID * THREADS)

/* The checker on, whatever TRIDLAB_GPU_CHECK says (the sanitized run
 * turns it off for the other tests): these tests are of the checker. */
static void checker_on(void)
{
  tl_gpu_set_check(1);
}
TestSuite(gpu_planted, .init = checker_on);

static void default_orders(void)
{
  tl_gpu_set_order(TL_GPU_SHUFFLE, 1);
  tl_gpu_set_block_order(TL_GPU_SHUFFLE, 1);
}

static void fill(double *v)
{
  for (int k = 0; k < VALUES; k++)
    v[k] = 1 + 0.25 * k;
}

/* ---------------------------------------------------------------- */
/* (a) Two blocks sharing one global scratch slot                     */

/* Two launches, as DistD2's decouple and finish: the first leaves each
 * block's sum in a scratch slot, the second reads it back. slot_div 1:
 * slot b for block b (correct). slot_div 2: PLANTED, a scratch of half
 * the size it needs, blocks 2k and 2k+1 share slot k: the last of the
 * two to run wins, and which one that is depends on the block order. */
TL_KERNEL(block_sums, const double *v, double *scratch, long slot_div)
{
  TL_SHARED_BEGIN();
  double *part = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  TL_REGION(t)
  {
    part[t] = v[TL_BLOCK_ID * TL_BLOCK_THREADS + t];
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    if (t == 0) {
      double s = 0;
      for (int k = 0; k < TL_BLOCK_THREADS; k++)
        s += part[k];
      scratch[TL_BLOCK_ID / slot_div] = s;
    }
  }
  TL_BARRIER();
}

TL_KERNEL(scale_by_sums, const double *v, const double *scratch, long slot_div, double *out)
{
  TL_REGION(t)
  {
    long i = TL_BLOCK_ID * TL_BLOCK_THREADS + t;
    out[i] = v[i] / scratch[TL_BLOCK_ID / slot_div];
  }
  TL_BARRIER();
}

static void shared_slot_run(tl_gpu_order block_order, unsigned long seed, long slot_div,
                            double *out)
{
  double v[VALUES];
  fill(v);
  double *scratch = tl_gpu_scratch_alloc(GRID, sizeof(double));
  cr_assert_not_null(scratch);
  tl_gpu_set_block_order(block_order, seed);
  TL_LAUNCH(block_sums, GRID, THREADS, THREADS * sizeof(double), v, scratch, slot_div);
  TL_LAUNCH(scale_by_sums, GRID, THREADS, 0, v, scratch, slot_div, out);
  free(scratch);
  tl_info info;
  cr_expect_eq(tl_gpu_launch_status(&info), TL_OK, "%s", info.msg);
}

Test(gpu_planted, blocks_sharing_a_scratch_slot_change_with_the_block_order)
{
  double fwd[VALUES], rev[VALUES], shuf[VALUES];
  shared_slot_run(TL_GPU_FORWARD, 1, 2, fwd);
  shared_slot_run(TL_GPU_REVERSE, 1, 2, rev);
  shared_slot_run(TL_GPU_SHUFFLE, 3, 2, shuf);
  cr_expect(memcmp(fwd, rev, sizeof fwd) != 0,
            "forward and reverse block orders agree: the shared slot went unseen");
  cr_expect(memcmp(fwd, shuf, sizeof fwd) != 0 || memcmp(rev, shuf, sizeof rev) != 0,
            "the shuffled block order agrees with both others");
  /* The correct twin, one slot per block: the same bits in every order. */
  shared_slot_run(TL_GPU_FORWARD, 1, 1, fwd);
  shared_slot_run(TL_GPU_REVERSE, 1, 1, rev);
  shared_slot_run(TL_GPU_SHUFFLE, 3, 1, shuf);
  cr_expect(memcmp(fwd, rev, sizeof fwd) == 0 && memcmp(fwd, shuf, sizeof fwd) == 0,
            "the correct kernel depends on the block order");
  default_orders();
}

/* ---------------------------------------------------------------- */
/* (b) A read of global scratch never written                         */

/* Every thread accumulates into its scratch word and copies it out.
 * PLANTED (init 0): the word is never set first, as if the scratch were
 * zero -- which tl_alloc's would be, and the answer right by luck. */
TL_KERNEL(accumulate, const double *v, double *scratch, int init, double *out)
{
  TL_REGION(t)
  {
    long i = TL_BLOCK_ID * TL_BLOCK_THREADS + t;
    if (init)
      scratch[i] = 0;
    scratch[i] += v[i];
    out[i] = scratch[i];
  }
  TL_BARRIER();
}

/* Returns how many of out are NaN. zeroed: scratch from calloc. */
static int accumulate_run(int init, int zeroed, double *out)
{
  double v[VALUES];
  fill(v);
  double *scratch =
      zeroed ? calloc(VALUES, sizeof(double)) : tl_gpu_scratch_alloc(VALUES, sizeof(double));
  cr_assert_not_null(scratch);
  TL_LAUNCH(accumulate, GRID, THREADS, 0, v, scratch, init, out);
  free(scratch);
  int nans = 0;
  for (int k = 0; k < VALUES; k++)
    nans += isnan(out[k]) != 0;
  return nans;
}

Test(gpu_planted, read_of_scratch_never_written_gives_nan)
{
  double out[VALUES], v[VALUES];
  fill(v);
  cr_expect_eq(accumulate_run(0, 0, out), VALUES,
               "poisoned scratch: every value read before it was written must show as NaN");
  /* What poison is for: on zeroed scratch the planted bug is invisible. */
  cr_expect_eq(accumulate_run(0, 1, out), 0);
  cr_expect(memcmp(out, v, sizeof out) == 0, "zeroed scratch hides the bug");
  /* The correct twin runs clean on poisoned scratch. */
  cr_expect_eq(accumulate_run(1, 0, out), 0);
  cr_expect(memcmp(out, v, sizeof out) == 0);
}

/* ---------------------------------------------------------------- */
/* (c) A shared sub-array overflowing into the next                   */

/* Two sub-arrays of one value per thread, lo then hi. shift 0: thread t
 * writes lo[t]. PLANTED (shift 1): lo[t + 1], so the last thread writes
 * one past the end of lo -- on a device, over hi[0]. */
TL_KERNEL(two_arrays, const double *v, int shift, double *out)
{
  TL_SHARED_BEGIN();
  double *lo = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  double *hi = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  TL_REGION(t)
  {
    hi[t] = v[TL_BLOCK_ID * TL_BLOCK_THREADS + t];
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    lo[t + shift] = 2 * hi[t];
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    out[TL_BLOCK_ID * TL_BLOCK_THREADS + t] = hi[t] + lo[t];
  }
  TL_BARRIER();
}

Test(gpu_planted, shared_sub_array_overflow_is_reported)
{
  double v[VALUES], out[VALUES];
  fill(v);
  tl_info info;
  cr_assert_eq(tl_gpu_launch_status(&info), TL_OK);
  TL_LAUNCH(two_arrays, GRID, THREADS, 2 * THREADS * sizeof(double), v, 1, out);
  cr_expect_eq(tl_gpu_launch_status(&info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "shared");
  cr_expect(strstr(info.msg, "two_arrays") && strstr(info.msg, "sub-array 0 overflowed"), "%s",
            info.msg);
  /* The correct twin: clean, and right. */
  TL_LAUNCH(two_arrays, GRID, THREADS, 2 * THREADS * sizeof(double), v, 0, out);
  cr_expect_eq(tl_gpu_launch_status(&info), TL_OK, "%s", info.msg);
  for (int k = 0; k < VALUES; k++)
    cr_expect_eq(out[k], 3 * v[k]);
}

/* Sub-arrays beyond what the launch gave: the kernel carves two arrays of
 * T values, the PLANTED launch gives room for one. */
Test(gpu_planted, sub_arrays_beyond_the_launch_are_reported)
{
  double v[VALUES], out[VALUES];
  fill(v);
  tl_info info;
  TL_LAUNCH(two_arrays, GRID, THREADS, THREADS * sizeof(double), v, 0, out);
  cr_expect_eq(tl_gpu_launch_status(&info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "shared");
  cr_expect(strstr(info.msg, "two_arrays") && strstr(info.msg, "beyond the 256 bytes"), "%s",
            info.msg);
}

/* ---------------------------------------------------------------- */
/* (d) A launch over the shared-memory limit                          */

TL_KERNEL(mark, double *out)
{
  TL_SHARED_BEGIN();
  double *all = TL_SHARED_ARRAY(double, TL_GPU_SHARED_MAX / sizeof(double));
  TL_REGION(t)
  {
    all[t] = t;
    out[t] = all[t];
  }
  TL_BARRIER();
}

Test(gpu_planted, launch_over_the_shared_limit_fails)
{
  double out[THREADS];
  for (int k = 0; k < THREADS; k++)
    out[k] = -1;
  tl_info info;
  TL_LAUNCH(mark, 1, THREADS, TL_GPU_SHARED_MAX + sizeof(double), out); /* PLANTED */
  cr_expect_eq(tl_gpu_launch_status(&info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "shared");
  cr_expect(strstr(info.msg, "mark") && strstr(info.msg, "49160 bytes"), "%s", info.msg);
  cr_expect_eq(out[1], -1, "a launch refused must run nothing");
  /* Exactly the limit is allowed. */
  TL_LAUNCH(mark, 1, THREADS, TL_GPU_SHARED_MAX, out);
  cr_expect_eq(tl_gpu_launch_status(&info), TL_OK, "%s", info.msg);
  cr_expect_eq(out[1], 1);
}

/* ---------------------------------------------------------------- */
/* (e) The checker: what the accesses show, whatever the order         */

/* Kernels written as the real ones are, every shared and global access
 * through TL_LD / TL_ST, so that the checker (gpu_emulator.h) records
 * them. Each planted bug has its correct twin; the checker must name the
 * bug's kind in every thread and block order, and find nothing in the
 * twin. */

/* Thread t adds its right neighbour's value. PLANTED (barrier 0): the
 * values are stored and read in one region. */
TL_KERNEL(neighbour_sum, const double *v, int barrier, double *out)
{
  TL_SHARED_BEGIN();
  double *s = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  const long base = TL_BLOCK_ID * TL_BLOCK_THREADS;
  if (barrier) {
    TL_REGION(t)
    {
      TL_ST(s, t) = TL_LD(v, base + t);
    }
    TL_BARRIER();
    TL_REGION(t)
    {
      TL_ST(out, base + t) = TL_LD(s, t) + TL_LD(s, (t + 1) % TL_BLOCK_THREADS);
    }
    TL_BARRIER();
  } else {
    TL_REGION(t)
    {
      TL_ST(s, t) = TL_LD(v, base + t);
      TL_ST(out, base + t) = TL_LD(s, t) + TL_LD(s, (t + 1) % TL_BLOCK_THREADS);
    }
    TL_BARRIER();
  }
}

/* Thread 0 of block b stores its block's first value in slot b / div.
 * PLANTED (div 2): blocks 2k and 2k + 1 store to one slot. */
TL_KERNEL(slot_store, const double *v, long div, double *slots)
{
  TL_REGION(t)
  {
    if (t == 0)
      TL_ST(slots, TL_BLOCK_ID / div) = TL_LD(v, TL_BLOCK_ID * TL_BLOCK_THREADS);
  }
  TL_BARRIER();
}

/* Every thread adds its value to a scratch word and copies it out.
 * PLANTED (init 0): the word is read before anything stored it. */
TL_KERNEL(accumulate_checked, const double *v, double *scratch, int init, double *out)
{
  TL_REGION(t)
  {
    long i = TL_BLOCK_ID * TL_BLOCK_THREADS + t;
    if (init)
      TL_ST(scratch, i) = 0;
    TL_ST(scratch, i) = TL_LD(scratch, i) + TL_LD(v, i);
    TL_ST(out, i) = TL_LD(scratch, i);
  }
  TL_BARRIER();
}

/* Two sub-arrays, lo then hi. PLANTED (shift 1): thread t stores
 * lo[t + 1], the last thread one past lo's end. */
TL_KERNEL(two_arrays_checked, const double *v, int shift, double *out)
{
  TL_SHARED_BEGIN();
  double *lo = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  double *hi = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  TL_REGION(t)
  {
    TL_ST(hi, t) = TL_LD(v, TL_BLOCK_ID * TL_BLOCK_THREADS + t);
    TL_ST(lo, t) = 0;
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    TL_ST(lo, t + shift) = 2 * TL_LD(hi, t);
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    TL_ST(out, TL_BLOCK_ID * TL_BLOCK_THREADS + t) = TL_LD(hi, t) + TL_LD(lo, t);
  }
  TL_BARRIER();
}

/* PLANTED (store 1): a store at kernel scope, which every thread of the
 * block runs on a device. */
TL_KERNEL(kernel_scope_store, int store, double *out)
{
  if (store)
    TL_ST(out, TL_BLOCK_ID) = 1;
  TL_REGION(t)
  {
    if (t == 0)
      TL_ST(out, TL_BLOCK_ID) = 2;
  }
  TL_BARRIER();
}

/* One planted kernel or its twin (which = 0..4, planted 1 or 0) in the
 * current orders: the launch status, with the first finding in *info
 * and every kind found in *found (TL_GPU_FOUND_*). */
static int checked_run(int which, int planted, tl_info *info, unsigned *found)
{
  double v[VALUES], out[VALUES], slots[GRID];
  fill(v);
  double *scratch = tl_gpu_scratch_alloc(VALUES, sizeof(double));
  cr_assert_not_null(scratch);
  tl_gpu_global_watch(v, VALUES, sizeof(double), "v", 1);
  tl_gpu_global_watch(out, VALUES, sizeof(double), "out", 0);
  tl_gpu_global_watch(slots, GRID, sizeof(double), "slots", 0);
  tl_gpu_checker_found(); /* clear */
  switch (which) {
  case 0:
    TL_LAUNCH(neighbour_sum, GRID, THREADS, THREADS * sizeof(double), v, !planted, out);
    break;
  case 1: TL_LAUNCH(slot_store, GRID, THREADS, 0, v, planted ? 2 : 1, slots); break;
  case 2: TL_LAUNCH(accumulate_checked, GRID, THREADS, 0, v, scratch, !planted, out); break;
  case 3:
    TL_LAUNCH(two_arrays_checked, GRID, THREADS, 2 * THREADS * sizeof(double), v, planted, out);
    break;
  default: TL_LAUNCH(kernel_scope_store, GRID, THREADS, 0, planted, out);
  }
  tl_gpu_global_forget(v);
  tl_gpu_global_forget(out);
  tl_gpu_global_forget(slots);
  tl_gpu_scratch_free(scratch);
  *found = tl_gpu_checker_found();
  return tl_gpu_launch_status(info);
}

Test(gpu_planted, the_checker_names_each_kind_in_every_order)
{
  /* The kind each planted bug must show, and the words of its report
   * when it is the first finding. neighbour_sum's load of a value not yet
   * stored is also a load never stored before, in the orders where the
   * neighbour runs later: the race must be among the findings. */
  static const struct {
    unsigned kind;
    const char *arg, *words;
  } want[5] = {{TL_GPU_FOUND_RACE, "race", "which thread"},
               {TL_GPU_FOUND_RACE_BLOCKS, "race-blocks", "store to slots["},
               {TL_GPU_FOUND_UNINIT, "uninitialized", "loads scratch["},
               {TL_GPU_FOUND_BOUNDS, "bounds", "shared sub-array 0"},
               {TL_GPU_FOUND_RACE, "race", "kernel scope"}};
  const tl_gpu_order orders[3] = {TL_GPU_FORWARD, TL_GPU_REVERSE, TL_GPU_SHUFFLE};
  for (int which = 0; which < 5; which++)
    for (int o = 0; o < 3; o++) {
      tl_gpu_set_order(orders[o], 5);
      tl_gpu_set_block_order(orders[2 - o], 5);
      tl_info info;
      unsigned found;
      cr_expect_eq(checked_run(which, 1, &info, &found), TL_ERR_ARG, "kernel %d order %d: not seen",
                   which, o);
      cr_expect(found & want[which].kind, "kernel %d order %d: kinds %#x (first: %s)", which, o,
                found, info.msg);
      if (!strcmp(info.arg, want[which].arg))
        cr_expect(strstr(info.msg, want[which].words) != NULL, "kernel %d: %s", which, info.msg);
      cr_expect_eq(checked_run(which, 0, &info, &found), TL_OK, "twin %d order %d: %s", which, o,
                   info.msg);
      cr_expect_eq(found, 0u);
    }
  default_orders();
}

/* The race of neighbour_sum in the reverse order, where every thread but
 * the first to run finds its neighbour's value already stored and the
 * answer is right but for one value per block: the checker reports the
 * race from the accesses, not from the answer (and the one load of a
 * value never stored). With the checker off, the launch reports nothing. */
Test(gpu_planted, the_checker_sees_what_the_answer_hides)
{
  tl_info info;
  unsigned found;
  tl_gpu_set_order(TL_GPU_REVERSE, 1);
  tl_gpu_set_block_order(TL_GPU_FORWARD, 1);
  cr_expect_eq(checked_run(0, 1, &info, &found), TL_ERR_ARG);
  cr_expect(found & TL_GPU_FOUND_RACE, "kinds %#x (first: %s)", found, info.msg);
  cr_expect(strstr(info.msg, "neighbour_sum") != NULL, "%s", info.msg);
  tl_gpu_set_check(0);
  cr_expect_eq(checked_run(0, 1, &info, &found), TL_OK, "checker off: %s", info.msg);
  tl_gpu_set_check(1);
  default_orders();
}
