/* tests/ports/hostile_port.c -- a port program that breaks the rules of
 * `tridlab validate --exec` (docs/ports.md) one way at a time, for
 * tests/test_port.c:
 *
 *   hostile_port MODE SYSTEM_DIR OUT.npy [PIDFILE]
 *
 *   ok            a right answer (gtsv's), exit 0
 *   hang          never answers; a child in its process group sleeps too
 *                 (both pids are written to PIDFILE)
 *   litter        a right answer, and files, a subdirectory and a
 *                 directory without permissions in and beside SYSTEM_DIR
 *   remove-input  a right answer, then SYSTEM_DIR removed
 *   remove-parent a right answer, then the directory around SYSTEM_DIR
 *                 (and OUT.npy) removed
 *   flat          x of shape (n nsys, 1) instead of d's shape
 *   float32       x as float32
 *   real          the real part of a complex x, as float64
 *
 * Not an example to follow: it exists to be caught. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tridlab/npy.h"
#include "tridlab/tridlab.h"

/* A float32 .npy of shape (count) by hand: tridlab writes only float64
 * and complex128. */
static int write_float32(const char *path, const double *v, size_t count)
{
  char head[128];
  snprintf(head, sizeof head, "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu,), }", count);
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  uint16_t hlen = 118; /* 10 + 118 = 128 bytes before the data */
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc(hlen & 0xff, f);
  fputc(hlen >> 8, f);
  fprintf(f, "%-*s\n", hlen - 1, head);
  for (size_t i = 0; i < count; i++) {
    float x = (float)v[i];
    fwrite(&x, sizeof x, 1, f);
  }
  return fclose(f);
}

static void hang(const char *pidfile)
{
  pid_t child = fork();
  if (child == 0) {
    for (;;)
      sleep(60);
  }
  FILE *f = pidfile ? fopen(pidfile, "w") : NULL;
  if (f) {
    fprintf(f, "%ld %ld\n", (long)getpid(), (long)child);
    fclose(f);
  }
  for (;;)
    sleep(60);
}

static void litter(const char *sysdir)
{
  char path[4200];
  snprintf(path, sizeof path, "%s/scratch", sysdir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/scratch/notes.txt", sysdir);
  FILE *f = fopen(path, "w");
  if (f)
    fclose(f);
  snprintf(path, sizeof path, "%s/locked", sysdir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/locked/inside", sysdir);
  f = fopen(path, "w");
  if (f)
    fclose(f);
  snprintf(path, sizeof path, "%s/locked", sysdir);
  chmod(path, 0);
  snprintf(path, sizeof path, "%s/../beside.log", sysdir);
  f = fopen(path, "w");
  if (f)
    fclose(f);
}

int main(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: hostile_port MODE SYSTEM_DIR OUT.npy [PIDFILE]\n");
    return 1;
  }
  const char *mode = argv[1], *sysdir = argv[2], *out = argv[3];
  if (strcmp(mode, "hang") == 0)
    hang(argc > 4 ? argv[4] : NULL);
  tl_system_dir sd;
  tl_info info;
  if (tl_system_dir_read(sysdir, 0, &sd, &info) != TL_OK) {
    fprintf(stderr, "hostile_port: %s\n", info.msg);
    return 1;
  }
  const tl_batch *s = &sd.sys;
  size_t count = s->n * s->nsys;
  double *x = calloc(count, tl_dtype_size(s->dtype));
  int st = x ? tl_solve(tl_find("gtsv"), s, x, NULL, &info) : TL_ERR_NOMEM;
  if (st != TL_OK) {
    fprintf(stderr, "hostile_port: %s\n", info.msg);
    return st == TL_ERR_BREAKDOWN ? 2 : 1;
  }
  int rc = 0;
  if (strcmp(mode, "flat") == 0) {
    size_t shape[2] = {count, 1};
    rc = tl_npy_write(out, s->dtype, 2, shape, x, &info);
  } else if (strcmp(mode, "float32") == 0) {
    rc = write_float32(out, x, s->dtype == TL_F64 ? count : 2 * count);
  } else if (strcmp(mode, "real") == 0 && s->dtype == TL_C128) {
    for (size_t i = 0; i < count; i++)
      x[i] = x[2 * i];
    rc = tl_npy_write(out, TL_F64, sd.ndim, sd.shape, x, &info);
  } else {
    rc = tl_npy_write(out, s->dtype, sd.ndim, sd.shape, x, &info);
  }
  if (strcmp(mode, "litter") == 0)
    litter(sysdir);
  if (strncmp(mode, "remove-", 7) == 0) {
    char dir[4096], cmd[4200];
    snprintf(dir, sizeof dir, "%s", sysdir);
    char *slash = strrchr(dir, '/');
    if (strcmp(mode, "remove-parent") == 0 && slash)
      *slash = '\0';
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    rc |= system(cmd);
  }
  free(x);
  tl_system_dir_free(&sd);
  return rc ? 1 : 0;
}
