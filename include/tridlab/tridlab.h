/* tridlab.h -- the umbrella header users include: the registry and
 * tl_solve, the reference kernels, the kernels of the CPU and GPU rooms,
 * verification, convergence studies and benchmarks. The phase functions
 * of the partition algorithms (for tracing and teaching, and for the
 * backends that run them) are in tridlab/phases.h.
 *
 * tridlab: a teaching reference and verification framework for (parallel)
 * tridiagonal solvers. See README.md and docs/.
 */
#ifndef TRIDLAB_H
#define TRIDLAB_H

#define TRIDLAB_VERSION "0.1.0"

#include "tridlab/algorithms.h"
#include "tridlab/bench.h"
#include "tridlab/convergence.h"
#include "tridlab/cpu.h"
#include "tridlab/gpu.h"
#include "tridlab/layout.h"
#include "tridlab/ledger.h"
#include "tridlab/npy.h"
#include "tridlab/port.h"
#include "tridlab/registry.h"
#include "tridlab/residual.h"
#include "tridlab/status.h"
#include "tridlab/study.h"
#include "tridlab/sweep.h"
#include "tridlab/system.h"
#include "tridlab/trace.h"
#include "tridlab/verify.h"

#endif
