/* cli/cmd_gallery.c -- `tridlab gallery list | export`: the matrix gallery
 * as a table, or written out as system directories for ports in other
 * languages (the work is tl_gallery_export, verify/port_export.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tridlab/tridlab.h"

#define MAX_SIZES 64
#define MAX_TYPES 128
static const size_t default_sizes[] = {1, 2, 3, 5, 17, 100};

static void gallery_usage(FILE *out)
{
  fprintf(
      out,
      "usage: tridlab gallery list\n"
      "       tridlab gallery export DIR [--types ID,...] [--sizes N,...] [--nsys K] [--seed S]\n"
      "\n"
      "list: every gallery type (docs/gallery.md): id, name, dtype, layout, smallest n,\n"
      "description.\n"
      "\n"
      "export: every selected gallery system as a system directory DIR/tID-NAME-nN holding\n"
      "a.npy b.npy c.npy d.npy (float64 or complex128; shape (n), or (nsys, n) when\n"
      "--nsys > 1), x_true.npy (the true solution; not for singular types), a `periodic`\n"
      "marker for periodic types and a `type` file (id and name); and DIR/manifest.json\n"
      "with each system's type, n, 1-norm condition estimate and the expected verdict\n"
      "for each contract (thomas-like, cr-like, pivoting, periodic, approximate): pass,\n"
      "pass-or-report, may-report or skip. Judge an answer with 'tridlab check'.\n"
      "\n"
      "options:\n"
      "  --types ID,...   gallery ids or names (default: every type)\n"
      "  --sizes N,...    system sizes (default 1,2,3,5,17,100)\n"
      "  --nsys K         systems per directory (default 1)\n"
      "  --seed S         gallery seed (default 2026, as 'tridlab verify')\n");
}

static int gallery_list(void)
{
  printf("%3s  %-28s %-8s %-9s %5s  %s\n", "id", "name", "dtype", "layout", "min_n", "description");
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    printf("%3d  %-28s %-8s %-9s %5zu  %s\n", t->id, t->name,
           t->dtype == TL_C128 ? "complex" : "real", t->periodic ? "periodic" : "plain", t->min_n,
           t->desc);
  }
  return 0;
}

int cmd_gallery(int argc, char **argv)
{
  if (argc < 2) {
    gallery_usage(stderr);
    return EXIT_BAD_INPUT;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    gallery_usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "list"))
    return gallery_list();
  if (strcmp(argv[1], "export") != 0) {
    cli_error("gallery: unknown subcommand '%s' (list or export)", argv[1]);
    return EXIT_BAD_INPUT;
  }
  size_t sizes[MAX_SIZES], nsizes = sizeof default_sizes / sizeof default_sizes[0];
  memcpy(sizes, default_sizes, sizeof default_sizes);
  int types[MAX_TYPES];
  size_t ntypes = 0;
  long nsys = 1;
  uint64_t seed = 2026;
  const char *dir = NULL;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      gallery_usage(stdout);
      return 0;
    } else if (cli_is(arg, "--types")) {
      if (!(v = cli_value(argc, argv, &i, "--types")) ||
          cli_parse_types(v, types, MAX_TYPES, &ntypes))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--sizes")) {
      if (!(v = cli_value(argc, argv, &i, "--sizes")) ||
          cli_parse_sizes(v, "--sizes", sizes, MAX_SIZES, &nsizes))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--nsys")) {
      if (!(v = cli_value(argc, argv, &i, "--nsys")) ||
          cli_parse_int(v, "--nsys", 1, 1 << 20, &nsys))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--seed")) {
      if (!(v = cli_value(argc, argv, &i, "--seed")) || cli_parse_u64(v, "--seed", &seed))
        return EXIT_BAD_INPUT;
    } else if (arg[0] != '-' && !dir) {
      dir = arg;
    } else {
      cli_error("gallery export: unknown option '%s' (try --help)", arg);
      return EXIT_BAD_INPUT;
    }
  }
  if (!dir) {
    cli_error("gallery export: the output directory DIR is missing");
    return EXIT_BAD_INPUT;
  }
  tl_export_config cfg = {.dir = dir,
                          .types = ntypes ? types : NULL,
                          .ntypes = ntypes,
                          .sizes = sizes,
                          .nsizes = nsizes,
                          .nsys = (size_t)nsys,
                          .seed = seed};
  size_t written = 0;
  tl_info info;
  tl_info_clear(&info);
  if (tl_gallery_export(&cfg, &written, &info) != TL_OK) {
    cli_error("gallery export: %s", info.msg);
    return EXIT_BAD_INPUT;
  }
  printf("wrote %zu system director%s and %s/manifest.json\n", written, written == 1 ? "y" : "ies",
         dir);
  return 0;
}
