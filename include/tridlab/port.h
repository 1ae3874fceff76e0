/* tridlab/port.h -- validating a port of a solver, in any language
 * (docs/ports.md).
 *
 * Four pieces, all judging exactly as `tridlab verify` does
 * (tl_verify_judge):
 *   contracts      what a port promises, named like the registry's
 *                  reference algorithms (thomas-like, cr-like, pivoting,
 *                  periodic, approximate), or any registry algorithm;
 *   export         every gallery system as a system directory with its
 *                  true solution and a manifest of expected verdicts;
 *   check          the LAPACK ratios and the verdict of one answer, with
 *                  the reason a difference is or is not a bug;
 *   ports          an external program or a shared library entry point
 *                  wrapped as a tl_algorithm, run over the whole gallery
 *                  beside a reference algorithm (tl_validate_run);
 *   plug-ins       a shared library whose init function tl_register()s
 *                  its algorithms (tl_plugin_load).
 */
#ifndef TRIDLAB_PORT_H
#define TRIDLAB_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "tridlab/registry.h"
#include "tridlab/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Contracts                                                           */

/* The contracts a port may claim, as algorithm descriptors that are not
 * in the registry (their solve is NULL): name, classes, dtypes, layouts
 * and exactness are what tl_gallery_expects_pass reads. */
size_t tl_contract_count(void);
const tl_algorithm *tl_contract_get(size_t index); /* NULL past the end */
const tl_algorithm *tl_contract_find(const char *name);

/* The registry algorithm a contract is named after (thomas-like:
 * thomas, cr-like: cr, pivoting: gtsv, periodic: thomas_periodic,
 * approximate: pdd); a registry algorithm is its own reference. */
const tl_algorithm *tl_contract_reference(const tl_algorithm *like);

/* What a verdict should be on `type` for something declared like
 * `algo`: "pass" (expected to pass), "pass-or-report" (expected, but an
 * approximate algorithm may report that it dropped more than its
 * tolerance), "may-report" (it may pass or report, never fail silently)
 * or "skip" (it does not take the type's dtype or layout). */
const char *tl_expected_word(const tl_gallery_type *type, const tl_algorithm *algo);

/* ------------------------------------------------------------------ */
/* Export                                                              */

typedef struct tl_export_config {
  const char *dir;  /* created if missing                          */
  const int *types; /* gallery ids (NULL: every type)              */
  size_t ntypes;
  const size_t *sizes; /* n values (below a type's min n: left out)   */
  size_t nsizes;
  size_t nsys; /* systems per directory (1: arrays of shape (n)) */
  uint64_t seed;
} tl_export_config;

/* Write DIR/tID-NAME-nN/ {a,b,c,d}.npy, x_true.npy (not for singular
 * types), `periodic` (periodic types) and `type` (the gallery id and
 * name on one line), and DIR/manifest.json. *written: directories made. */
int tl_gallery_export(const tl_export_config *cfg, size_t *written, tl_info *info);

/* The gallery type a system directory names in its `type` file (NULL
 * when there is none or it names no type). */
const tl_gallery_type *tl_system_dir_type(const char *dir);

/* ------------------------------------------------------------------ */
/* Check one answer                                                    */

typedef struct tl_check_result {
  tl_verify_result v; /* ratios and verdict, as `verify` gives them   */
  double cond;        /* largest 1-norm condition estimate (1/rcond)  */
  double relerr;      /* ||x - x_true||_inf / ||x_true||_inf (NaN: no x_true) */
  char why[320];      /* one line: what the ratios mean here          */
} tl_check_result;

/* Judge x, returned with `status`, on sys. xtrue may be NULL (then no
 * forward-error ratio); type may be NULL (then the classes are measured
 * on the matrix, NONSINGULAR when every rcond > 0); like is the contract
 * or algorithm the answer claims to follow. */
int tl_check_answer(const tl_batch *sys, const void *xtrue, const tl_gallery_type *type,
                    const tl_algorithm *like, int status, const void *x, tl_check_result *r,
                    tl_info *info);

/* A status from its name ("ok", "outside-domain", "breakdown",
 * "not-converged", "unsupported") or from an exit code of the external
 * program convention below. TL_ERR_ARG for anything else. */
int tl_status_parse(const char *text, int *status);

/* ------------------------------------------------------------------ */
/* Ports                                                               */

/* The C entry point a shared library exports (Fortran: bind(C) with
 * these types). dtype 1: real (float64), 2: complex (complex128, each
 * entry two doubles, real then imaginary). Arrays of nsys * n entries,
 * system s at entry s * n, row i: a[i] x[i-1] + b[i] x[i] + c[i] x[i+1]
 * = d[i]; a[0], c[n-1] are the corners (zero unless periodic). Returns
 * a tl_status value: 0 solved, 1 solved outside its domain, -2
 * breakdown, -4 does not handle this case (skipped). */
typedef int (*tl_port_entry)(int dtype, int periodic, int64_t n, int64_t nsys, const double *a,
                             const double *b, const double *c, const double *d, double *x);

/* Exit codes of an external program run by --exec (`tridlab solve`'s):
 * 0 solved and x written; 3 solved outside its domain, x written; 2 no
 * solution (breakdown); 4 does not handle this case (skipped); any other
 * is a failure of the program (reported, with the code). Whatever the
 * code, UNEXPECTED when the program ran out of time, removed its input,
 * or wrote an x of another shape or dtype than d's. */
enum {
  TL_PORT_EXIT_OK = 0,
  TL_PORT_EXIT_BREAKDOWN = 2,
  TL_PORT_EXIT_OUTSIDE = 3,
  TL_PORT_EXIT_UNSUPPORTED = 4
};

/* Seconds an --exec program may take on one system before it is
 * stopped (`validate --timeout`). */
#define TL_PORT_TIMEOUT 60.0

/* A port as an algorithm: `algo` first, so a tl_algorithm pointer to it
 * is a pointer to the port. Its classes, dtypes, layouts and exactness
 * are those of the contract it is declared like. */
typedef struct tl_port {
  tl_algorithm algo;
  char name[64];
  char summary[160];
  char cmd[1024];      /* --exec: the command with {system} and {out}  */
  tl_port_entry entry; /* --lib: the entry point                       */
  void *handle;        /* dlopen handle                                */
  char workdir[256];   /* --exec: a private temporary directory        */
  double timeout;      /* --exec: seconds per system (0: no limit);
                          TL_PORT_TIMEOUT unless changed after opening */
  long timeouts;       /* --exec: systems that ran out of time         */
  char fault[256];     /* --exec: what the last system's run holds
                          against the program ("" when nothing)        */
} tl_port;

/* Wrap `cmd` (must contain {system} and {out}) / the symbol of a shared
 * library ("PATH.so:SYMBOL"). One-line errors: a bad path, a missing
 * symbol, a command without its placeholders.
 *
 * An --exec program runs per system with `sh -c`, in a process group of
 * its own, stdin from /dev/null, stdout and stderr to a log whose first
 * line is quoted in a failure's note. When it runs past port->timeout,
 * its group gets SIGTERM, then SIGKILL half a second later (the group
 * always gets SIGKILL once its leader exited: nothing it started
 * outlives its system). Each system starts in an emptied directory.
 * While an --exec port is open, SIGINT, SIGTERM and SIGHUP (unless
 * ignored) are held: the running program is ended, tl_validate_run
 * stops, and tl_port_close removes the directory with everything in
 * it and then raises the signal again. */
int tl_port_open_exec(tl_port *port, const char *cmd, const tl_algorithm *like, tl_info *info);
int tl_port_open_lib(tl_port *port, const char *spec, const tl_algorithm *like, tl_info *info);
/* Unload the library / remove the port's directory and everything the
 * program wrote into it; then deliver a held stop signal. */
void tl_port_close(tl_port *port);

/* ------------------------------------------------------------------ */
/* Validate: a solver over the gallery beside a reference algorithm    */

typedef struct tl_validate_config {
  const tl_algorithm *solver; /* a port, or any algorithm               */
  const tl_algorithm *ref;    /* the registry algorithm compared with (NULL: none) */
  int no_status;              /* the solver returns no status: judge only
                                 the cells where a pass is expected     */
  const size_t *sizes;
  size_t nsizes;
  size_t nsys;
  uint64_t seed;
  int type_id; /* 0: every type                         */
  /* Called per problem: the solver's result and the reference's (ref
   * NULL when there is no reference). */
  void (*on_result)(const tl_verify_result *port, const tl_verify_result *ref, void *ctx);
  void *ctx;
} tl_validate_config;

/* Every selected gallery system through the solver and the reference.
 * x lies between guard regions: a solver that writes outside it is
 * UNEXPECTED, as is a port's fault (tl_port.fault). Stops with an error
 * when an --exec port holds a stop signal. */
int tl_validate_run(const tl_validate_config *cfg, tl_verify_summary *summary, tl_info *info);

/* ------------------------------------------------------------------ */
/* Plug-ins                                                            */

/* dlopen PATH and call its `int tridlab_plugin_init(tl_info *info)`,
 * which tl_register()s the plug-in's algorithms. One-line errors for a
 * bad path, a missing symbol, or an init that fails. */
int tl_plugin_load(const char *path, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
