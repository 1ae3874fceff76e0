/* verify/npy.c -- NumPy .npy reader and writer (docs/design.md §6).
 *
 * A .npy file is a preamble, a header and the raw data:
 *
 *   bytes 0-5   "\x93NUMPY"                 magic
 *   bytes 6-7   major, minor                1.0, 2.0 or 3.0
 *   then        header length, little-endian: 2 bytes (1.0) or 4 (2.0, 3.0)
 *   then        header: a Python dict literal padded with spaces and '\n',
 *               {'descr': '<f8', 'fortran_order': False, 'shape': (3, 5), }
 *   then        count * itemsize bytes of data, C order, little-endian
 *
 * The header is parsed here by a small hand-written scanner that accepts
 * what Python's literal syntax allows for these three keys (any order,
 * either quote, any whitespace, optional trailing comma) and nothing
 * else. Every size taken from the file is checked against the bytes that
 * are actually there before anything is allocated or copied, so any input
 * either parses or is rejected with TL_ERR_ARG and a one-line reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/npy.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_HEADER 65536u /* larger headers are refused, not allocated */
#define NPY_ALIGN 64          /* numpy aligns the data start to 64 bytes    */
#define NPY_WORD 8            /* data is byte-swapped in 8-byte words       */

/* Parser state: the file name for messages and the header dict text. */
typedef struct npy_parser {
  const char *name;
  tl_info *info;
  const unsigned char *text; /* header dict, not NUL-terminated */
  size_t len, pos;
  unsigned seen; /* KEY_* bits already read */
  tl_dtype dtype;
  int fortran;
  int ndim; /* entries of the shape tuple, may exceed 2 */
  size_t shape[2];
} npy_parser;

enum { KEY_DESCR = 1u, KEY_ORDER = 2u, KEY_SHAPE = 4u };

/* ---- messages ----------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int reject_at(tl_info *info, const char *file, int line, const char *name,
                     const char *fmt, ...)
{
  char why[192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return tl_info_set(info, file, line, TL_ERR_ARG, -1, -1, "file", "%s: %s", name, why);
}

/* Reject the file being parsed, recording this source line. */
#define REJECT(p, ...) reject_at((p)->info, __FILE__, __LINE__, (p)->name, __VA_ARGS__)

#define IO_FAIL(info, path, what, err)                                                  \
  tl_info_set((info), __FILE__, __LINE__, TL_ERR_IO, -1, -1, "file", "%s: %s: %s", (path), \
              (what), (err) ? strerror(err) : "unknown error")

/* Copy bytes from the file into buf for a message: at most cap-4 of them,
 * unprintable ones as '?', so the message stays one line. */
static const char *shown(const unsigned char *s, size_t n, char *buf, size_t cap)
{
  size_t k = 0;
  for (; k < n && k + 4 < cap; k++)
    buf[k] = (s[k] >= 0x20 && s[k] < 0x7f) ? (char)s[k] : '?';
  if (k < n)
    for (int i = 0; i < 3; i++)
      buf[k++] = '.';
  buf[k] = '\0';
  return buf;
}

static const char *shape_text(char *buf, size_t cap, int ndim, const size_t *shape)
{
  if (ndim == 1)
    snprintf(buf, cap, "(%zu,)", shape[0]);
  else
    snprintf(buf, cap, "(%zu, %zu)", shape[0], shape[1]);
  return buf;
}

/* ---- byte order --------------------------------------------------------- */

static int host_is_little(void)
{
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* .npy data is little-endian; on a big-endian host each 8-byte word (a
 * double, or one half of a complex double) is reversed. dst may overlap
 * src when dst <= src. */
static void copy_le(unsigned char *dst, const unsigned char *src, size_t bytes)
{
  if (host_is_little()) {
    memmove(dst, src, bytes);
    return;
  }
  for (size_t w = 0; w < bytes; w += NPY_WORD) {
    unsigned char word[NPY_WORD];
    memcpy(word, src + w, NPY_WORD);
    for (size_t k = 0; k < NPY_WORD; k++)
      dst[w + k] = word[NPY_WORD - 1 - k];
  }
}

/* ---- header scanner ----------------------------------------------------- */

static int peek(const npy_parser *p) { return p->pos < p->len ? p->text[p->pos] : -1; }

/* Python allows these between tokens inside a bracketed literal. */
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

static void skip_ws(npy_parser *p)
{
  while (is_space(peek(p)))
    p->pos++;
}

/* A quoted string without escapes; its contents are text[*start, +*n). */
static int scan_string(npy_parser *p, const char *what, size_t *start, size_t *n)
{
  int quote = peek(p);
  if (quote != '\'' && quote != '"')
    return REJECT(p, "header: expected %s at byte %zu", what, p->pos);
  size_t i = p->pos + 1;
  while (i < p->len && p->text[i] != quote && p->text[i] != '\\' && p->text[i] != '\n')
    i++;
  if (i >= p->len || p->text[i] != quote)
    return REJECT(p, "header: unterminated or escaped string at byte %zu", p->pos);
  *start = p->pos + 1;
  *n = i - *start;
  p->pos = i + 1;
  return TL_OK;
}

static int span_is(const npy_parser *p, size_t start, size_t n, const char *word)
{
  return strlen(word) == n && memcmp(p->text + start, word, n) == 0;
}

static int parse_descr(npy_parser *p)
{
  size_t start, n;
  char buf[32];
  if (peek(p) != '\'' && peek(p) != '"')
    return REJECT(p, "'descr' is not a dtype string (structured dtypes are not supported)");
  if (scan_string(p, "a dtype string", &start, &n))
    return TL_ERR_ARG;
  if (span_is(p, start, n, "<f8"))
    p->dtype = TL_F64;
  else if (span_is(p, start, n, "<c16"))
    p->dtype = TL_C128;
  else
    return REJECT(p, "unsupported dtype '%s' (need '<f8' float64 or '<c16' complex128)",
                  shown(p->text + start, n, buf, sizeof buf));
  return TL_OK;
}

static int is_ident(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int parse_order(npy_parser *p)
{
  size_t start = p->pos;
  while (is_ident(peek(p)))
    p->pos++;
  if (span_is(p, start, p->pos - start, "True"))
    p->fortran = 1;
  else if (span_is(p, start, p->pos - start, "False"))
    p->fortran = 0;
  else
    return REJECT(p, "'fortran_order' must be True or False (byte %zu of the header)", start);
  return TL_OK;
}

/* A non-negative decimal integer (Python 2 writers add an 'L'). */
static int parse_dim(npy_parser *p, size_t *value)
{
  size_t v = 0, start = p->pos;
  int c;
  while ((c = peek(p)) >= '0' && c <= '9') {
    size_t d = (size_t)(c - '0');
    if (v > (SIZE_MAX - d) / 10)
      return REJECT(p, "'shape' entry at byte %zu of the header does not fit in size_t", start);
    v = v * 10 + d;
    p->pos++;
  }
  if (p->pos > start && c == 'L')
    p->pos++;
  if (p->pos == start || is_ident(peek(p)) || peek(p) == '.')
    return REJECT(p, "'shape' must be a tuple of non-negative integers (byte %zu of the header)",
                  start);
  *value = v;
  return TL_OK;
}

static int parse_shape(npy_parser *p)
{
  size_t open = p->pos;
  int comma = 0; /* a comma followed the last entry */
  if (peek(p) != '(')
    return REJECT(p, "'shape' is not a tuple (byte %zu of the header)", open);
  p->pos++;
  for (skip_ws(p); peek(p) != ')'; skip_ws(p)) {
    size_t dim = 0;
    if (parse_dim(p, &dim))
      return TL_ERR_ARG;
    if (p->ndim < 2)
      p->shape[p->ndim] = dim;
    p->ndim++;
    skip_ws(p);
    comma = peek(p) == ',';
    if (comma)
      p->pos++;
    else if (peek(p) != ')')
      return REJECT(p, "'shape': expected ',' or ')' at byte %zu of the header", p->pos);
  }
  p->pos++;
  if (p->ndim == 1 && !comma)
    return REJECT(p, "'shape' (n) is not a tuple: a 1-D shape is written (n,)");
  return TL_OK;
}

static int parse_value(npy_parser *p, unsigned key)
{
  if (key == KEY_DESCR)
    return parse_descr(p);
  if (key == KEY_ORDER)
    return parse_order(p);
  return parse_shape(p);
}

/* One "key: value" item. */
static int parse_item(npy_parser *p)
{
  size_t start, n;
  char buf[32];
  unsigned key;
  if (scan_string(p, "a quoted key or '}'", &start, &n))
    return TL_ERR_ARG;
  if (span_is(p, start, n, "descr"))
    key = KEY_DESCR;
  else if (span_is(p, start, n, "fortran_order"))
    key = KEY_ORDER;
  else if (span_is(p, start, n, "shape"))
    key = KEY_SHAPE;
  else
    return REJECT(p, "unknown header key '%s'", shown(p->text + start, n, buf, sizeof buf));
  if (p->seen & key)
    return REJECT(p, "duplicate header key '%s'", shown(p->text + start, n, buf, sizeof buf));
  p->seen |= key;
  skip_ws(p);
  if (peek(p) != ':')
    return REJECT(p, "header: expected ':' at byte %zu", p->pos);
  p->pos++;
  skip_ws(p);
  return parse_value(p, key);
}

static int parse_dict(npy_parser *p)
{
  skip_ws(p);
  if (peek(p) != '{')
    return REJECT(p, "header is not a dict (expected '{' at byte %zu)", p->pos);
  p->pos++;
  for (skip_ws(p); peek(p) != '}'; skip_ws(p)) {
    if (parse_item(p))
      return TL_ERR_ARG;
    skip_ws(p);
    if (peek(p) == ',')
      p->pos++;
    else if (peek(p) != '}')
      return REJECT(p, "header: expected ',' or '}' at byte %zu", p->pos);
  }
  p->pos++;
  skip_ws(p);
  if (p->pos != p->len)
    return REJECT(p, "garbage after the header dict at byte %zu", p->pos);
  return TL_OK;
}

/* ---- the whole image ---------------------------------------------------- */

/* Magic, version and header length; *hdr_off and *hdr_len locate the
 * header dict inside buf, which is checked to hold it. */
static int parse_preamble(npy_parser *p, const unsigned char *buf, size_t len, size_t *hdr_off,
                          size_t *hdr_len)
{
  size_t head = len < NPY_MAGIC_LEN ? len : NPY_MAGIC_LEN;
  if (len == 0)
    return REJECT(p, "empty file, not a .npy file");
  if (memcmp(buf, NPY_MAGIC, head) != 0)
    return REJECT(p, "not a .npy file (bad magic string)");
  if (len < NPY_MAGIC_LEN + 2)
    return REJECT(p, "truncated: %zu bytes, too short for a .npy preamble", len);
  unsigned major = buf[6], minor = buf[7];
  if (major < 1 || major > 3 || minor != 0)
    return REJECT(p, "unsupported .npy format version %u.%u (need 1.0, 2.0 or 3.0)", major, minor);
  size_t width = major == 1 ? 2 : 4, off = NPY_MAGIC_LEN + 2 + width;
  if (len < off)
    return REJECT(p, "truncated: %zu bytes, too short for a .npy preamble", len);
  unsigned long hlen = 0;
  for (size_t k = width; k-- > 0;)
    hlen = (hlen << 8) | buf[NPY_MAGIC_LEN + 2 + k];
  if (hlen > NPY_MAX_HEADER)
    return REJECT(p, "header length %lu exceeds the limit of %u bytes", hlen, NPY_MAX_HEADER);
  if (hlen > len - off)
    return REJECT(p, "header length %lu runs past the end of the file (%zu bytes)", hlen, len);
  *hdr_off = off;
  *hdr_len = hlen;
  return TL_OK;
}

/* What the parsed header says must be a 1-D or 2-D C-order array. */
static int check_layout(npy_parser *p)
{
  static const char *key[] = {"descr", "fortran_order", "shape"};
  char buf[64];
  for (unsigned k = 0; k < 3; k++)
    if (!(p->seen & (1u << k)))
      return REJECT(p, "header has no '%s' key", key[k]);
  if (p->fortran)
    return REJECT(p, "Fortran-order arrays are not supported (need fortran_order False)");
  if (p->ndim == 0)
    return REJECT(p, "shape () is a 0-d scalar; need a 1-D or 2-D array");
  if (p->ndim > 2)
    return REJECT(p, "%d-D array; only 1-D and 2-D arrays are supported", p->ndim);
  for (int k = 0; k < p->ndim; k++)
    if (p->shape[k] == 0)
      return REJECT(p, "empty array: shape %s has a zero dimension",
                    shape_text(buf, sizeof buf, p->ndim, p->shape));
  return TL_OK;
}

/* The data must be exactly count * itemsize bytes. */
static int check_data(npy_parser *p, size_t have, size_t *count)
{
  char buf[64];
  size_t size = tl_dtype_size(p->dtype), n = p->shape[0], m = p->ndim == 2 ? p->shape[1] : 1;
  shape_text(buf, sizeof buf, p->ndim, p->shape);
  if (n > SIZE_MAX / m || n * m > SIZE_MAX / size)
    return REJECT(p, "shape %s is too large: its size in bytes overflows size_t", buf);
  size_t need = n * m * size;
  if (have < need)
    return REJECT(p, "truncated: shape %s needs %zu data bytes, file has %zu", buf, need, have);
  if (have > need)
    return REJECT(p, "trailing bytes: shape %s needs %zu data bytes, file has %zu", buf, need,
                  have);
  *count = n * m;
  return TL_OK;
}

/* Validate the whole image and fill out's description (not its data);
 * *data_off is where the data starts in buf. */
static int npy_inspect(const unsigned char *buf, size_t len, const char *name, tl_npy *out,
                       size_t *data_off, tl_info *info)
{
  npy_parser p = {.name = name ? name : "(buffer)", .info = info};
  size_t hdr_off = 0, hdr_len = 0, count = 0;
  if (!buf && len)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "buf", "buf is NULL");
  if (parse_preamble(&p, buf, len, &hdr_off, &hdr_len))
    return TL_ERR_ARG;
  p.text = buf + hdr_off;
  p.len = hdr_len;
  if (parse_dict(&p) || check_layout(&p) || check_data(&p, len - hdr_off - hdr_len, &count))
    return TL_ERR_ARG;
  out->dtype = p.dtype;
  out->ndim = p.ndim;
  out->shape[0] = p.shape[0];
  out->shape[1] = p.ndim == 2 ? p.shape[1] : 0;
  out->count = count;
  *data_off = hdr_off + hdr_len;
  return TL_OK;
}

int tl_npy_parse(const unsigned char *buf, size_t len, const char *name, tl_npy *out,
                 tl_info *info)
{
  size_t off = 0;
  tl_info_clear(info);
  if (!out)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "out", "out is NULL");
  memset(out, 0, sizeof *out);
  int status = npy_inspect(buf, len, name, out, &off, info);
  if (status != TL_OK)
    return status;
  size_t bytes = out->count * tl_dtype_size(out->dtype);
  unsigned char *data = malloc(bytes);
  if (!data) {
    memset(out, 0, sizeof *out);
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_NOMEM, -1, -1, "",
                       "%s: out of memory for %zu data bytes", name ? name : "(buffer)", bytes);
  }
  copy_le(data, buf + off, bytes);
  out->data = data;
  return TL_OK;
}

/* ---- files -------------------------------------------------------------- */

/* The whole file in a malloc'd buffer (grown as read, so pipes work too). */
static int slurp(const char *path, unsigned char **buf, size_t *len, tl_info *info)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return IO_FAIL(info, path, "cannot open", errno);
  unsigned char *b = NULL;
  size_t cap = 0, n = 0;
  int status = TL_OK;
  for (;;) {
    if (n == cap) {
      size_t grown = cap ? 2 * cap : NPY_MAX_HEADER;
      unsigned char *nb = grown > cap ? realloc(b, grown) : NULL;
      if (!nb) {
        status = tl_info_set(info, __FILE__, __LINE__, TL_ERR_NOMEM, -1, -1, "",
                             "%s: out of memory after reading %zu bytes", path, n);
        break;
      }
      b = nb;
      cap = grown;
    }
    errno = 0;
    size_t want = cap - n, got = fread(b + n, 1, want, f);
    n += got;
    if (got < want) {
      if (ferror(f))
        status = IO_FAIL(info, path, "read failed", errno);
      break;
    }
  }
  fclose(f); /* read-only: a close error loses nothing */
  if (status != TL_OK) {
    free(b);
    return status;
  }
  *buf = b;
  *len = n;
  return TL_OK;
}

int tl_npy_read(const char *path, tl_npy *out, tl_info *info)
{
  unsigned char *buf = NULL;
  size_t len = 0, off = 0;
  tl_info_clear(info);
  if (!out)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "out", "out is NULL");
  memset(out, 0, sizeof *out);
  if (!path)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "path", "path is NULL");
  int status = slurp(path, &buf, &len, info);
  if (status != TL_OK)
    return status;
  status = npy_inspect(buf, len, path, out, &off, info);
  if (status != TL_OK) {
    free(buf);
    return status;
  }
  /* Keep the file buffer as the array: move the data to its start. */
  size_t bytes = out->count * tl_dtype_size(out->dtype);
  copy_le(buf, buf + off, bytes);
  unsigned char *fit = realloc(buf, bytes);
  out->data = fit ? fit : buf;
  return TL_OK;
}

/* Magic, version 1.0, length and the padded dict: a multiple of 64 bytes. */
static size_t format_header(unsigned char *hdr, size_t cap, tl_dtype dtype, int ndim,
                            const size_t *shape)
{
  char dims[64];
  const size_t pre = NPY_MAGIC_LEN + 4;
  size_t n = (size_t)snprintf((char *)hdr + pre, cap - pre,
                              "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                              dtype == TL_F64 ? "<f8" : "<c16",
                              shape_text(dims, sizeof dims, ndim, shape));
  size_t total = pre + n + 1, pad = (NPY_ALIGN - total % NPY_ALIGN) % NPY_ALIGN;
  memset(hdr + pre + n, ' ', pad);
  hdr[pre + n + pad] = '\n';
  total += pad;
  memcpy(hdr, NPY_MAGIC, NPY_MAGIC_LEN);
  hdr[6] = 1;
  hdr[7] = 0;
  hdr[8] = (unsigned char)((total - pre) & 0xff);
  hdr[9] = (unsigned char)((total - pre) >> 8);
  return total;
}

/* Write the data little-endian; 0 on success. */
static int write_le(FILE *f, const void *data, size_t bytes)
{
  if (host_is_little())
    return fwrite(data, 1, bytes, f) != bytes;
  unsigned char chunk[64 * NPY_WORD];
  for (size_t off = 0; off < bytes; off += sizeof chunk) {
    size_t n = bytes - off < sizeof chunk ? bytes - off : sizeof chunk;
    copy_le(chunk, (const unsigned char *)data + off, n);
    if (fwrite(chunk, 1, n, f) != n)
      return 1;
  }
  return 0;
}

static int check_write_args(const char *path, tl_dtype dtype, int ndim, const size_t *shape,
                            const void *data, size_t *bytes, tl_info *info)
{
  size_t size = tl_dtype_size(dtype);
  if (!path)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "path", "path is NULL");
  if (size == 0)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "dtype",
                       "%s: dtype %d is neither TL_F64 nor TL_C128", path, (int)dtype);
  if (ndim != 1 && ndim != 2)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "ndim",
                       "%s: ndim is %d, need 1 or 2", path, ndim);
  if (!shape || !data)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, shape ? "data" : "shape",
                       "%s: %s is NULL", path, shape ? "data" : "shape");
  size_t n = shape[0], m = ndim == 2 ? shape[1] : 1;
  if (n == 0 || m == 0)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "shape",
                       "%s: shape has a zero dimension; empty arrays are not written", path);
  if (n > SIZE_MAX / m || n * m > SIZE_MAX / size)
    return tl_info_set(info, __FILE__, __LINE__, TL_ERR_ARG, -1, -1, "shape",
                       "%s: shape is too large: its size in bytes overflows size_t", path);
  *bytes = n * m * size;
  return TL_OK;
}

int tl_npy_write(const char *path, tl_dtype dtype, int ndim, const size_t *shape,
                 const void *data, tl_info *info)
{
  unsigned char hdr[256];
  size_t bytes = 0;
  tl_info_clear(info);
  int status = check_write_args(path, dtype, ndim, shape, data, &bytes, info);
  if (status != TL_OK)
    return status;
  size_t hlen = format_header(hdr, sizeof hdr, dtype, ndim, shape);
  FILE *f = fopen(path, "wb");
  if (!f)
    return IO_FAIL(info, path, "cannot open for writing", errno);
  errno = 0;
  int failed = fwrite(hdr, 1, hlen, f) != hlen || write_le(f, data, bytes);
  int err = errno;
  errno = 0;
  /* Buffered data reaches the disk at fclose, so its failure counts too. */
  if (fclose(f) != 0 && !failed) {
    failed = 1;
    err = errno;
  }
  if (failed)
    return IO_FAIL(info, path, "write failed", err);
  return TL_OK;
}

void tl_npy_free(tl_npy *arr)
{
  if (!arr)
    return;
  free(arr->data);
  memset(arr, 0, sizeof *arr);
}
