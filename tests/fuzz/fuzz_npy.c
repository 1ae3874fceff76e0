/* tests/fuzz/fuzz_npy.c -- libFuzzer target for the .npy reader.
 *
 * Input: any bytes, taken as the image of a .npy file (the corpus in
 * tests/fuzz/corpus/npy/ holds valid files of every version, dtype and
 * rank, and the rejected kinds: truncated, Fortran order, 3-D, ...).
 *
 * Oracle, for every input (a violation aborts, which libFuzzer reports):
 *  - no sanitizer report (ASan, UBSan, LeakSanitizer);
 *  - tl_npy_parse returns TL_OK, or TL_ERR_ARG with a message naming the
 *    file and an emptied output (TL_ERR_NOMEM only for a huge count);
 *  - an accepted array is 1-D or 2-D, float64 or complex128, of no zero
 *    dimension, with count = the product of its shape, and its data are
 *    exactly the input's last count * itemsize bytes;
 *  - tl_npy_read of the same bytes in a file gives the same status and
 *    array, and an accepted array written by tl_npy_write reads back the
 *    same (shape, dtype and every bit of the data).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tridlab/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz_npy: oracle violated at %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* One scratch file per process, removed at exit. */
static char scratch[64];

static void remove_scratch(void)
{
  if (scratch[0])
    unlink(scratch);
}

static const char *scratch_path(void)
{
  if (!scratch[0]) {
    snprintf(scratch, sizeof scratch, "/tmp/tridlab-fuzz-npy-XXXXXX");
    int fd = mkstemp(scratch);
    CHECK(fd >= 0);
    close(fd);
    atexit(remove_scratch);
  }
  return scratch;
}

static void write_bytes(const char *path, const uint8_t *data, size_t size)
{
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  CHECK(fwrite(data, 1, size, f) == size);
  CHECK(fclose(f) == 0);
}

static int same_array(const tl_npy *x, const tl_npy *y)
{
  return x->dtype == y->dtype && x->ndim == y->ndim && x->shape[0] == y->shape[0] &&
         x->shape[1] == y->shape[1] && x->count == y->count &&
         memcmp(x->data, y->data, x->count * tl_dtype_size(x->dtype)) == 0;
}

static int is_empty(const tl_npy *x)
{
  return !x->data && !x->count && !x->ndim && !x->shape[0] && !x->shape[1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  tl_npy arr, back;
  tl_info info;
  int st = tl_npy_parse(data, size, "fuzz.npy", &arr, &info);
  CHECK(st == TL_OK || st == TL_ERR_ARG || st == TL_ERR_NOMEM);
  if (st != TL_OK) {
    CHECK(is_empty(&arr));
    CHECK(strncmp(info.msg, "fuzz.npy", 8) == 0);
  } else {
    size_t es = tl_dtype_size(arr.dtype);
    CHECK(arr.dtype == TL_F64 || arr.dtype == TL_C128);
    CHECK(arr.ndim == 1 || arr.ndim == 2);
    CHECK(arr.shape[0] >= 1 && (arr.ndim == 2 ? arr.shape[1] >= 1 : arr.shape[1] == 0));
    CHECK(arr.count == arr.shape[0] * (arr.ndim == 2 ? arr.shape[1] : 1));
    CHECK(arr.data != NULL && arr.count * es <= size);
    /* little-endian hosts: the data are the input's last bytes */
    const uint16_t one = 1;
    if (*(const uint8_t *)&one)
      CHECK(memcmp(arr.data, data + size - arr.count * es, arr.count * es) == 0);
  }

  /* The file reader: the same verdict and the same array. */
  const char *path = scratch_path();
  write_bytes(path, data, size);
  int st2 = tl_npy_read(path, &back, &info);
  CHECK(st2 == st || st == TL_ERR_NOMEM || st2 == TL_ERR_NOMEM);
  if (st == TL_OK && st2 == TL_OK)
    CHECK(same_array(&arr, &back));
  tl_npy_free(&back);

  /* Write what was accepted, read it back. */
  if (st == TL_OK) {
    size_t shape[2] = {arr.shape[0], arr.shape[1]};
    CHECK(tl_npy_write(path, arr.dtype, arr.ndim, shape, arr.data, &info) == TL_OK);
    CHECK(tl_npy_read(path, &back, &info) == TL_OK);
    CHECK(same_array(&arr, &back));
    tl_npy_free(&back);
  }
  tl_npy_free(&arr);
  return 0;
}
