/* tests/test_npy.c -- the .npy reader and writer (verify/npy.c).
 *
 * Round trips are bit-exact (the data include NaN payloads and signed
 * zeros). Every malformed file is built byte by byte here, so the tests
 * need no Python: each must give TL_ERR_ARG and a one-line message naming
 * the file and the reason. A fixed-seed fuzz feeds the parser prefixes,
 * byte mutations and token soups and accepts only TL_OK or TL_ERR_ARG.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, opendir */

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/npy.h"

/* ---- fixture: one temporary directory per test -------------------------- */

static char tmpdir[64];

static void make_tmpdir(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/tridlab-npy-XXXXXX");
  cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void remove_tmpdir(void)
{
  char path[512];
  DIR *dir = opendir(tmpdir);
  if (!dir)
    return;
  for (struct dirent *e; (e = readdir(dir));) {
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
      remove(path);
    }
  }
  closedir(dir);
  remove(tmpdir);
}

TestSuite(npy, .init = make_tmpdir, .fini = remove_tmpdir);

static const char *tmp_path(const char *name)
{
  static char path[8][256];
  static int next;
  char *p = path[next++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", tmpdir, name);
  return p;
}

/* ---- helpers ------------------------------------------------------------ */

/* splitmix64: a fixed-seed generator, the same on every platform. */
static uint64_t rng_next(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Arbitrary bit patterns, so NaN payloads must survive too. */
static void fill_bits(void *data, size_t bytes, uint64_t seed)
{
  unsigned char *b = data;
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t w = rng_next(&seed);
    memcpy(b + i, &w, bytes - i < 8 ? bytes - i : 8);
  }
}

typedef struct image {
  unsigned char *p;
  size_t len;
} image;

/* A .npy image of format `major`.0 holding `dict` padded with spaces and
 * '\n' to a 64-byte boundary, followed by `nbytes` bytes of data. */
static image make_image(int major, const char *dict, size_t nbytes)
{
  size_t pre = major == 1 ? 10 : 12, dlen = strlen(dict);
  size_t hdr = pre + dlen + 1;
  hdr += (64 - hdr % 64) % 64;
  size_t hlen = hdr - pre;
  image img = {malloc(hdr + nbytes + 1), hdr + nbytes};
  cr_assert_not_null(img.p);
  memcpy(img.p, "\x93NUMPY", 6);
  img.p[6] = (unsigned char)major;
  img.p[7] = 0;
  for (size_t k = 0; k < pre - 8; k++)
    img.p[8 + k] = (unsigned char)(hlen >> (8 * k));
  memcpy(img.p + pre, dict, dlen);
  memset(img.p + pre + dlen, ' ', hdr - pre - dlen - 1);
  img.p[hdr - 1] = '\n';
  fill_bits(img.p + hdr, nbytes, 7);
  return img;
}

static void write_file(const char *path, const unsigned char *p, size_t len)
{
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "%s: %s", path, strerror(errno));
  cr_assert_eq(fwrite(p, 1, len, f), len);
  cr_assert_eq(fclose(f), 0);
}

static image read_raw(const char *path)
{
  image img = {malloc(1 << 16), 0};
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  img.len = fread(img.p, 1, 1 << 16, f);
  fclose(f);
  return img;
}

/* Parse a copy of exactly len bytes, so any over-read is caught. */
static int parse_exact(const unsigned char *p, size_t len, const char *name, tl_npy *out,
                       tl_info *info)
{
  unsigned char *copy = malloc(len ? len : 1);
  cr_assert_not_null(copy);
  memcpy(copy, p, len);
  int st = tl_npy_parse(copy, len, name, out, info);
  free(copy);
  return st;
}

static void check_rejected(int st, const tl_info *info, const tl_npy *out, const char *name,
                           const char *reason)
{
  cr_assert_eq(st, TL_ERR_ARG, "%s: status %d, msg '%s'", name, st, info->msg);
  cr_assert_str_eq(info->arg, "file");
  cr_assert_not_null(strstr(info->msg, name), "message '%s' lacks the name", info->msg);
  cr_assert_not_null(strstr(info->msg, reason), "message '%s' lacks '%s'", info->msg, reason);
  cr_assert_null(strchr(info->msg, '\n'), "message '%s' is not one line", info->msg);
  cr_assert(out->data == NULL && out->count == 0 && out->ndim == 0);
}

/* The image must be rejected from a file (via tl_npy_read) and from
 * memory, with `reason` in the message. Frees img. */
static void expect_reject(const char *fname, image img, const char *reason)
{
  const char *path = tmp_path(fname);
  tl_npy out;
  tl_info info;
  write_file(path, img.p, img.len);
  check_rejected(tl_npy_read(path, &out, &info), &info, &out, path, reason);
  check_rejected(parse_exact(img.p, img.len, fname, &out, &info), &info, &out, fname, reason);
  cr_assert_eq(tl_npy_parse(img.p, img.len, fname, &out, NULL), TL_ERR_ARG);
  free(img.p);
}

/* A dict with f8 data of the size the dict's shape needs; nbytes given. */
static void expect_reject_dict(const char *fname, const char *dict, size_t nbytes,
                               const char *reason)
{
  expect_reject(fname, make_image(1, dict, nbytes), reason);
}

static void expect_accept(image img, tl_dtype dtype, int ndim, size_t s0, size_t s1)
{
  tl_npy out;
  tl_info info;
  int st = parse_exact(img.p, img.len, "ok.npy", &out, &info);
  cr_assert_eq(st, TL_OK, "status %d: %s", st, info.msg);
  cr_assert_eq(out.dtype, dtype);
  cr_assert_eq(out.ndim, ndim);
  cr_assert_eq(out.shape[0], s0);
  cr_assert_eq(out.shape[1], s1);
  size_t bytes = out.count * (dtype == TL_F64 ? 8 : 16);
  cr_assert_eq(memcmp(out.data, img.p + img.len - bytes, bytes), 0);
  tl_npy_free(&out);
  free(img.p);
}

/* ---- round trips -------------------------------------------------------- */

static void round_trip(tl_dtype dtype, int ndim, size_t s0, size_t s1)
{
  const char *path = tmp_path("rt.npy");
  size_t shape[2] = {s0, s1}, count = s0 * (ndim == 2 ? s1 : 1);
  size_t bytes = count * (dtype == TL_F64 ? 8 : 16);
  unsigned char *data = malloc(bytes);
  tl_npy out;
  tl_info info;
  fill_bits(data, bytes, 42 + count);
  memcpy(data, &(double){-0.0}, 8);
  cr_assert_eq(tl_npy_write(path, dtype, ndim, shape, data, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(tl_npy_read(path, &out, &info), TL_OK, "%s", info.msg);
  cr_assert_eq(out.dtype, dtype);
  cr_assert_eq(out.ndim, ndim);
  cr_assert_eq(out.shape[0], s0);
  cr_assert_eq(out.shape[1], ndim == 2 ? s1 : 0);
  cr_assert_eq(out.count, count);
  cr_assert_eq(memcmp(out.data, data, bytes), 0, "data differ after the round trip");
  tl_npy_free(&out);
  tl_npy_free(&out); /* safe twice */
  cr_assert_null(out.data);
  free(data);
}

Test(npy, round_trip_f64_1d) { round_trip(TL_F64, 1, 37, 0); }
Test(npy, round_trip_f64_2d) { round_trip(TL_F64, 2, 3, 5); }
Test(npy, round_trip_c128_1d) { round_trip(TL_C128, 1, 1, 0); }
Test(npy, round_trip_c128_2d) { round_trip(TL_C128, 2, 4, 9); }
Test(npy, round_trip_large) { round_trip(TL_F64, 2, 17, 10007); }

Test(npy, written_header_is_numpy_style)
{
  const char *path = tmp_path("hdr.npy");
  size_t shape[2] = {2, 3};
  double data[6] = {1, 2, 3, 4, 5, 6};
  cr_assert_eq(tl_npy_write(path, TL_F64, 2, shape, data, NULL), TL_OK);
  image img = read_raw(path);
  size_t hlen = img.p[8] | (size_t)img.p[9] << 8;
  cr_assert_eq(memcmp(img.p, "\x93NUMPY\x01\x00", 8), 0);
  cr_assert_eq((10 + hlen) % 64, 0, "data does not start on a 64-byte boundary");
  cr_assert_eq(img.len, 10 + hlen + sizeof data);
  cr_assert_eq(img.p[10 + hlen - 1], '\n');
  const char *want = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  cr_assert_eq(memcmp(img.p + 10, want, strlen(want)), 0);
  cr_assert_eq(memcmp(img.p + 10 + hlen, data, sizeof data), 0);
  free(img.p);
}

/* ---- accepted variants -------------------------------------------------- */

Test(npy, version_2_and_3_accepted)
{
  const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
  expect_accept(make_image(2, dict, 32), TL_F64, 1, 4, 0);
  expect_accept(make_image(3, dict, 32), TL_F64, 1, 4, 0);
}

Test(npy, header_variants_accepted)
{
  expect_accept(make_image(1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}", 48),
                TL_F64, 2, 2, 3);
  expect_accept(make_image(1, "{\"descr\": \"<c16\", \"fortran_order\": False, \"shape\": (5,)}",
                           80),
                TL_C128, 1, 5, 0);
  expect_accept(make_image(1, " {\t'fortran_order' :False,\n'shape':( 2 ,3 , ),'descr':'<f8' , } ",
                           48),
                TL_F64, 2, 2, 3);
  expect_accept(make_image(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 2L), }", 48),
                TL_F64, 2, 3, 2);
}

/* ---- rejected files ----------------------------------------------------- */

#define F8_4x100 "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 100), }"
#define F8_3 "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"

Test(npy, truncated_and_trailing_data_messages)
{
  tl_npy out;
  tl_info info;
  image img = make_image(1, F8_4x100, 3192);
  cr_assert_eq(tl_npy_parse(img.p, img.len, "x.npy", &out, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.msg,
                   "x.npy: truncated: shape (4, 100) needs 3200 data bytes, file has 3192");
  cr_assert_eq(info.status, TL_ERR_ARG);
  free(img.p);
  img = make_image(1, F8_4x100, 3208);
  cr_assert_eq(tl_npy_parse(img.p, img.len, "x.npy", &out, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.msg,
                   "x.npy: trailing bytes: shape (4, 100) needs 3200 data bytes, file has 3208");
  free(img.p);
}

Test(npy, rejects_wrong_data_size)
{
  expect_reject_dict("short.npy", F8_4x100, 3192, "truncated");
  expect_reject_dict("nodata.npy", F8_3, 0, "truncated");
  expect_reject_dict("long.npy", F8_4x100, 3201, "trailing bytes");
}

Test(npy, rejects_other_dtypes)
{
  expect_reject_dict("f4.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 12,
                     "'<f4'");
  expect_reject_dict("i8.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 24,
                     "'<i8'");
  expect_reject_dict("be.npy", "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }", 24,
                     "'>f8'");
  expect_reject_dict("obj.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", 24,
                     "unsupported dtype");
  expect_reject_dict("rec.npy",
                     "{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (3,), }", 24,
                     "structured");
}

Test(npy, rejects_layouts)
{
  expect_reject_dict("fortran.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                     48, "Fortran");
  expect_reject_dict("3d.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }",
                     64, "3-D");
  expect_reject_dict("0d.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8,
                     "0-d");
  expect_reject_dict("zero.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 5), }", 0,
                     "zero dimension");
  expect_reject_dict("zero1.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", 0,
                     "empty array");
}

Test(npy, rejects_bad_preamble)
{
  image img = make_image(1, F8_3, 24);
  img.p[1] = 'X';
  expect_reject("magic.npy", img, "magic");
  img = make_image(1, F8_3, 24);
  img.p[6] = 4;
  expect_reject("version.npy", img, "version 4.0");
  img = make_image(2, F8_3, 24);
  memcpy(img.p + 8, "\xff\xff\xff\x7f", 4);
  expect_reject("absurd.npy", img, "exceeds the limit");
  img = make_image(1, F8_3, 24);
  img.p[8] = 0xe8; /* 1000 bytes, the file has fewer */
  img.p[9] = 0x03;
  expect_reject("beyond.npy", img, "runs past the end");
  expect_reject("empty.npy", (image){malloc(1), 0}, "empty file");
  img = make_image(1, F8_3, 24);
  img.len = 9;
  expect_reject("stub.npy", img, "truncated");
}

Test(npy, rejects_header_over_64k)
{
  char *dict = malloc(70001);
  memset(dict, ' ', 70000);
  dict[70000] = '\0';
  memcpy(dict, F8_3, strlen(F8_3));
  expect_reject("huge.npy", make_image(2, dict, 24), "exceeds the limit of 65536");
  free(dict);
}

Test(npy, rejects_bad_shapes)
{
  expect_reject_dict(
      "overflow.npy",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775807, "
      "9223372036854775807), }",
      24, "overflows size_t");
  expect_reject_dict("overflow1.npy",
                     "{'descr': '<c16', 'fortran_order': False, 'shape': (2305843009213693952,), }",
                     24, "overflows size_t");
  expect_reject_dict(
      "bigdim.npy",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 24,
      "does not fit");
  expect_reject_dict("alpha.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (a, 3), }",
                     48, "non-negative integers");
  expect_reject_dict("neg.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }", 24,
                     "non-negative integers");
  expect_reject_dict("notuple.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3), }",
                     24, "not a tuple");
  expect_reject_dict("list.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': [3], }", 24,
                     "not a tuple");
  expect_reject_dict("float.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3.0,), }",
                     24, "non-negative integers");
}

Test(npy, rejects_bad_dicts)
{
  expect_reject_dict("noshape.npy", "{'descr': '<f8', 'fortran_order': False, }", 24,
                     "no 'shape' key");
  expect_reject_dict("nodescr.npy", "{'fortran_order': False, 'shape': (3,), }", 24,
                     "no 'descr' key");
  expect_reject_dict("dup.npy",
                     "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'shape': (3,)}", 24,
                     "duplicate");
  expect_reject_dict("extra.npy",
                     "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'x': 1}", 24,
                     "unknown header key 'x'");
  expect_reject_dict("garbage.npy",
                     "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), } junk", 24,
                     "garbage after");
  expect_reject_dict("nobrace.npy", "'descr': '<f8', 'fortran_order': False, 'shape': (3,)", 24,
                     "not a dict");
  expect_reject_dict("order.npy", "{'descr': '<f8', 'fortran_order': 0, 'shape': (3,), }", 24,
                     "True or False");
  expect_reject_dict("quote.npy", "{'descr': '<f8", 24, "unterminated");
  expect_reject_dict("escape.npy", "{'descr': '<f\\x38', 'fortran_order': False, 'shape': (3,)}",
                     24, "escaped");
  expect_reject_dict("comma.npy", "{'descr': '<f8' 'fortran_order': False, 'shape': (3,), }", 24,
                     "expected ',' or '}'");
  expect_reject_dict("unclosed.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), ",
                     24, "expected a quoted key");
}

Test(npy, message_is_one_line_for_control_bytes)
{
  expect_reject_dict("ctl.npy", "{'descr': '<f\x01\x7f', 'fortran_order': False, 'shape': (3,)}",
                     24, "'<f?\?'");
}

/* ---- I/O errors and arguments ------------------------------------------- */

Test(npy, missing_file_is_io_error)
{
  const char *path = tmp_path("absent.npy");
  tl_npy out;
  tl_info info;
  cr_assert_eq(tl_npy_read(path, &out, &info), TL_ERR_IO);
  cr_assert_not_null(strstr(info.msg, path), "%s", info.msg);
  cr_assert_not_null(strstr(info.msg, strerror(ENOENT)), "%s", info.msg);
  cr_assert_null(out.data);
  cr_assert_eq(tl_npy_read(path, &out, NULL), TL_ERR_IO);
  cr_assert_eq(tl_npy_read(tmpdir, &out, &info), TL_ERR_IO, "a directory: %s", info.msg);
}

Test(npy, write_io_errors)
{
  size_t shape[1] = {3};
  double data[3] = {1, 2, 3};
  tl_info info;
  const char *path = tmp_path("no/such/dir.npy");
  cr_assert_eq(tl_npy_write(path, TL_F64, 1, shape, data, &info), TL_ERR_IO);
  cr_assert_not_null(strstr(info.msg, path), "%s", info.msg);
  cr_assert_not_null(strstr(info.msg, strerror(ENOENT)), "%s", info.msg);
  FILE *full = fopen("/dev/full", "wb");
  if (full) { /* the device accepts an open and fails every write */
    fclose(full);
    cr_assert_eq(tl_npy_write("/dev/full", TL_F64, 1, shape, data, &info), TL_ERR_IO);
    cr_assert_not_null(strstr(info.msg, "/dev/full"), "%s", info.msg);
  }
}

Test(npy, write_bad_arguments)
{
  const char *path = tmp_path("bad.npy");
  size_t shape[2] = {3, 2}, zero[2] = {3, 0};
  double data[6] = {0};
  tl_info info;
  cr_assert_eq(tl_npy_write(path, TL_F64, 3, shape, data, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "ndim");
  cr_assert_eq(tl_npy_write(path, TL_F64, 0, shape, data, &info), TL_ERR_ARG);
  cr_assert_eq(tl_npy_write(path, (tl_dtype)7, 1, shape, data, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "dtype");
  cr_assert_eq(tl_npy_write(path, TL_F64, 1, shape, NULL, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "data");
  cr_assert_eq(tl_npy_write(path, TL_F64, 1, NULL, data, &info), TL_ERR_ARG);
  cr_assert_eq(tl_npy_write(path, TL_F64, 2, zero, data, &info), TL_ERR_ARG);
  cr_assert_eq(tl_npy_write(NULL, TL_F64, 1, shape, data, NULL), TL_ERR_ARG);
  cr_assert_null(fopen(path, "rb"), "a rejected write created the file");
}

Test(npy, parse_bad_arguments)
{
  tl_npy out;
  tl_info info;
  cr_assert_eq(tl_npy_parse(NULL, 5, "x", &out, &info), TL_ERR_ARG);
  cr_assert_eq(tl_npy_parse(NULL, 0, NULL, &out, NULL), TL_ERR_ARG);
  cr_assert_eq(tl_npy_parse((const unsigned char *)"x", 1, "x", NULL, &info), TL_ERR_ARG);
  cr_assert_eq(tl_npy_read(NULL, &out, &info), TL_ERR_ARG);
  tl_npy_free(NULL);
}

/* ---- robustness --------------------------------------------------------- */

/* Only TL_OK (then freed) or TL_ERR_ARG with a one-line named message. */
static void check_survives(const unsigned char *p, size_t len)
{
  tl_npy out;
  tl_info info;
  int st = parse_exact(p, len, "fuzz.npy", &out, &info);
  if (st == TL_OK) {
    cr_assert(out.ndim == 1 || out.ndim == 2);
    cr_assert_not_null(out.data);
    tl_npy_free(&out);
    return;
  }
  cr_assert_eq(st, TL_ERR_ARG, "status %d: %s", st, info.msg);
  cr_assert_not_null(strstr(info.msg, "fuzz.npy"));
  cr_assert_null(strchr(info.msg, '\n'));
  cr_assert_null(out.data);
}

Test(npy, every_prefix_rejected)
{
  const char *path = tmp_path("prefix.npy");
  size_t shape[2] = {3, 4};
  unsigned char data[3 * 4 * 16];
  fill_bits(data, sizeof data, 3);
  cr_assert_eq(tl_npy_write(path, TL_C128, 2, shape, data, NULL), TL_OK);
  image img = read_raw(path);
  tl_npy out;
  tl_info info;
  for (size_t k = 0; k < img.len; k++) {
    int st = parse_exact(img.p, k, "prefix.npy", &out, &info);
    cr_assert_eq(st, TL_ERR_ARG, "prefix of %zu bytes: status %d", k, st);
    cr_assert_not_null(strstr(info.msg, "prefix.npy"));
  }
  cr_assert_eq(parse_exact(img.p, img.len, "prefix.npy", &out, &info), TL_OK);
  tl_npy_free(&out);
  free(img.p);
}

Test(npy, random_byte_mutations)
{
  static const char special[] = "{}()[],:'\" \n\tL0123456789-TrueFalse<>fc\x00\xff";
  const size_t nspecial = sizeof special - 1;
  image img = make_image(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3), }", 96);
  size_t hdr = img.len - 96;
  unsigned char *buf = malloc(img.len);
  uint64_t seed = 2024;
  for (int iter = 0; iter < 5000; iter++) {
    memcpy(buf, img.p, img.len);
    int edits = 1 + (int)(rng_next(&seed) % 4);
    for (int e = 0; e < edits; e++) {
      uint64_t r = rng_next(&seed);
      size_t at = (r & 15) ? (r >> 8) % hdr : (r >> 8) % img.len;
      unsigned char syntax = (unsigned char)special[(r >> 40) % nspecial];
      buf[at] = (r & 16) ? (unsigned char)(r >> 40) : syntax; /* mostly in the header */
    }
    size_t len = (rng_next(&seed) % 8 == 0) ? (size_t)(rng_next(&seed) % img.len) : img.len;
    check_survives(buf, len);
  }
  free(buf);
  free(img.p);
}

Test(npy, random_token_headers)
{
  static const char *tok[] = {"{", "}", "(", ")", ",", ":", " ", "'descr'", "'shape'",
                              "'fortran_order'", "'<f8'", "'<c16'", "True", "False", "3", "2",
                              "0", "L", "'", "\"", "99999999999999999999", "\n", "[", "]"};
  const size_t ntok = sizeof tok / sizeof tok[0];
  uint64_t seed = 99;
  char dict[512];
  for (int iter = 0; iter < 3000; iter++) {
    size_t n = 0, count = 1 + rng_next(&seed) % 24;
    for (size_t t = 0; t < count; t++) {
      const char *s = tok[rng_next(&seed) % ntok];
      memcpy(dict + n, s, strlen(s));
      n += strlen(s);
    }
    dict[n] = '\0';
    image img = make_image(1 + (int)(iter % 3), dict, 8 * (rng_next(&seed) % 8));
    check_survives(img.p, img.len);
    free(img.p);
  }
}
