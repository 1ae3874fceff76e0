/* tridlab.h -- the umbrella header users include.
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
#include "tridlab/part_distd2.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/part_its.h"
#include "tridlab/part_nshaped.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_rpdd.h"
#include "tridlab/part_ptdma.h"
#include "tridlab/part_tridsolver.h"
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
