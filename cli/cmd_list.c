/* cli/cmd_list.c -- `tridlab list`: the registry. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tridlab/tridlab.h"

static void classes_text(unsigned cls, char *buf, size_t size)
{
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {{TL_CLASS_ROW_DD, "row-dd"},
               {TL_CLASS_STRICT_DD, "strict-dd"},
               {TL_CLASS_COL_DD, "col-dd"},
               {TL_CLASS_SPD, "spd"},
               {TL_CLASS_STRONG_DD, "strong-dd"},
               {TL_CLASS_NONSINGULAR, "nonsingular"}};
  buf[0] = '\0';
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (cls & names[k].bit) {
      size_t used = strlen(buf);
      snprintf(buf + used, size - used, "%s%s", used ? "|" : "", names[k].name);
    }
}

static void params_text(const tl_algorithm *al, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int k = 0; k < al->nparams; k++) {
    const tl_param *p = &al->params[k];
    size_t used = strlen(buf);
    if (p->kind == TL_PARAM_CHOICE)
      snprintf(buf + used, size - used, "%s%s=%s", k ? " " : "", p->name, p->choices);
    else
      snprintf(buf + used, size - used, "%s%s=%g", k ? " " : "", p->name, p->def);
  }
  if (!al->nparams)
    snprintf(buf, size, "-");
}

static void layouts_text(const tl_algorithm *al, char *buf, size_t size)
{
  snprintf(buf, size, "%s%s%s", (al->layouts & TL_NONPERIODIC) ? "plain" : "",
           (al->layouts & TL_NONPERIODIC) && (al->layouts & TL_PERIODIC) ? "|" : "",
           (al->layouts & TL_PERIODIC) ? "periodic" : "");
}

static void dtypes_text(const tl_algorithm *al, char *buf, size_t size)
{
  int r = (al->dtypes & TL_DTYPE_BIT(TL_F64)) != 0, z = (al->dtypes & TL_DTYPE_BIT(TL_C128)) != 0;
  snprintf(buf, size, "%s%s%s", r ? "real" : "", r && z ? "|" : "", z ? "complex" : "");
}

int cmd_list(int argc, char **argv)
{
  int csv = 0, verbose = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: tridlab list [--csv] [--verbose] [--plugin PATH.so]\n\n"
             "Lists the registry: name, family, backend, exact or approximate, scalar types,\n"
             "layouts (plain / periodic), whether it partitions (--parts), the matrix classes\n"
             "where its stability is guaranteed, its parameters with defaults.\n"
             "  --csv      machine-readable, one row per algorithm\n"
             "  --verbose  also the summary and the source of each algorithm\n"
             "  --plugin PATH.so  load a plug-in first (its algorithms are listed as\n"
             "             registered; docs/ports.md)\n");
      return 0;
    } else if (!strcmp(argv[i], "--csv")) {
      csv = 1;
    } else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
      verbose = 1;
    } else if (cli_is(argv[i], "--plugin")) {
      if (cli_plugin(argc, argv, &i))
        return EXIT_BAD_INPUT;
    } else {
      cli_error("list: unknown option '%s'", argv[i]);
      return EXIT_BAD_INPUT;
    }
  }
  size_t count = 0;
  const tl_algorithm *const *reg = tl_registry(&count);
  if (csv)
    printf("name,family,backend,exact,dtypes,layouts,partitioned,classes,params,summary,source\n");
  else
    printf("%-19s %-14s %-9s %-6s %-12s %-14s %-5s %-28s %s\n", "name", "family", "backend",
           "exact", "dtypes", "layouts", "parts", "classes", "params");
  for (size_t k = 0; k < count; k++) {
    const tl_algorithm *al = reg[k];
    char cls[96], prm[256], lay[32], dty[32];
    classes_text(al->classes, cls, sizeof cls);
    params_text(al, prm, sizeof prm);
    layouts_text(al, lay, sizeof lay);
    dtypes_text(al, dty, sizeof dty);
    if (csv) {
      printf("%s,%s,%s,%s,%s,%s,%s,%s,\"%s\",\"%s\",\"%s\"\n", al->name, al->family, al->backend,
             al->exact ? "exact" : "approx", dty, lay, al->partitioned ? "yes" : "no", cls, prm,
             al->summary, al->source);
      continue;
    }
    printf("%-19s %-14s %-9s %-6s %-12s %-14s %-5s %-28s %s\n", al->name, al->family,
           al->backend, al->exact ? "exact" : "approx", dty, lay, al->partitioned ? "yes" : "no",
           cls, prm);
    if (verbose)
      printf("    %s\n    source: %s\n", al->summary, al->source);
  }
  return 0;
}
