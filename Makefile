# tridlab -- GNU Makefile.
#
#   make            library, the tridlab command and the test program
#   make check      the Criterion tests, then again under ASan + UBSan
#   make report     verification, convergence studies, sweeps: report/index.md
#   make bench      tridlab bench --quick, then the reference algorithms' throughput
#   make fuzz       the libFuzzer targets of tests/fuzz/, FUZZ_SECONDS each
#   make gpu        the GPU kernels for CUDA (nvcc) and HIP (hipcc) where found
#   make check-gpu  the device test programs (skipped, exit 77, without a GPU)
#   make info       what was detected and built
#   make install    PREFIX=/usr/local: library, headers, command, pkg-config
#   make format     clang-format every source file
#   make clean
#
# Options: SANITIZE=1 (ASan + UBSan build in build-san/), BUILD=dir,
# CC=..., NATIVE=1 (adds -march=native; never the default).

CC      ?= cc
PREFIX  ?= /usr/local
SANITIZE ?= 0
NATIVE  ?= 0
ifeq ($(SANITIZE),1)
BUILD   ?= build-san
else
BUILD   ?= build
endif

CSTD     = -std=c11 -D_POSIX_C_SOURCE=200809L
# -Wpointer-arith: a batch's arrays are void *; arithmetic on one (a GNU
# extension) counts bytes, not entries -- a wrong slice, not an error.
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith
OPT      = -O2 -g
ifeq ($(SANITIZE),1)
OPT      = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
ifeq ($(NATIVE),1)
OPT     += -march=native
endif
# Public headers as "tridlab/NAME.h" (include/); a room's private header,
# where a room above reaches it, from the repository root as
# "core/template.h" (docs/design.md §1; scripts/check-rooms.sh). Every
# build uses these flags: plain, SANITIZE=1, fuzz, MPI, nvcc and hipcc.
CPPFLAGS += -Iinclude -I.
CFLAGS  ?=
ALL_CFLAGS = $(CSTD) $(WARN) $(OPT) -pthread -fPIC -MMD -MP $(CFLAGS)
LDLIBS_LAPACK = -llapacke -llapack -lblas -lm -ldl -pthread
# The optimized CPU kernels: OpenMP threads and SIMD, higher optimization;
# no errno from sqrt (none of them reads it), so that it vectorises.
OMP     = -fopenmp
# -Wno-psabi: GCC notes, once per file, that passing a 64-byte vector by
# value changed ABI in GCC 4.6; the kernels pass them only between their
# own inline functions (lanes.h's pragma does not silence the note).
OPT_CPU = -O3 -g -ffp-contract=off -fno-math-errno -Wno-psabi
# Sanitized, one version of each kernel for this machine's widest vectors
# (-march=native), the one the loader would pick from the plain build's
# three target_clones: the three under ASan and UBSan took 143 s to
# compile for thomas_lines_cpu.c alone, one takes 37 s. The lanes and the
# memory each kernel touches are the same in every version.
ifeq ($(SANITIZE),1)
OPT_CPU = $(OPT) -ffp-contract=off -Wno-psabi -DTL_CPU_NO_CLONES -march=native
endif
SAN_LDFLAGS =
ifeq ($(SANITIZE),1)
SAN_LDFLAGS = -fsanitize=address,undefined
endif

CPU_SRC  = $(wildcard optimized/cpu/*.c)
# The SZ-packed layout (optimized/layout/, tridlab/layout.h): below the CPU
# and the GPU rooms, built like the CPU kernels.
LAYOUT_SRC = $(wildcard optimized/layout/*.c)
# The GPU room (optimized/gpu/, docs/gpu.md): its kernels are one source
# that nvcc and hipcc compile for a device and the C compiler for the
# host, where the registry backends run them by emulation ("gpu-emulated").
GPU_SRC  = $(wildcard optimized/gpu/*.c)

# The MPI room (optimized/mpi/, libtridlab_mpi), its command and its test
# programs: built when mpicc is found.
MPICC   ?= $(shell command -v mpicc 2>/dev/null)
MPI_SRC  = $(wildcard optimized/mpi/*.c)
# The MPI benchmark and cost model (bench/mpi/, tridlab/mpi_bench.h and
# tridlab/mpi_model.h): in the bench room, built into libtridlab_mpi.
MPI_SRC += $(wildcard bench/mpi/*.c)
# ScaLAPACK (the distributed LAPACK baseline, PDDTSV), when installed.
SCALAPACK_LIB ?= $(firstword $(wildcard /usr/lib/*/libscalapack-openmpi.so /usr/lib/libscalapack-openmpi.so))
ifneq ($(SCALAPACK_LIB),)
MPI_CFLAGS = -DTL_HAVE_SCALAPACK
MPI_LDLIBS = $(SCALAPACK_LIB)
endif
# FFTW3 (the FFTs of the Poisson/Helmholtz mini-app, apps/poisson), when installed.
FFTW_LIB ?= $(firstword $(wildcard /usr/lib/*/libfftw3.so /usr/lib/libfftw3.so))
MPI_OBJ  = $(MPI_SRC:%.c=$(BUILD)/obj/%.o)
MPI_LIB_A = $(BUILD)/libtridlab_mpi.a
MPI_CLI_SRC = $(wildcard cli/mpi/*.c)
MPI_CLI_OBJ = $(MPI_CLI_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/cli/common.o $(BUILD)/obj/cli/cmd_list.o
MPI_CLI  = $(BUILD)/tridlab-mpi
MPI_TEST_SRC = $(wildcard tests/mpi/test_*.c)
ifeq ($(FFTW_LIB),)
MPI_TEST_SRC := $(filter-out tests/mpi/test_mpi_poisson.c,$(MPI_TEST_SRC))
endif
MPI_TESTS = $(MPI_TEST_SRC:tests/mpi/%.c=$(BUILD)/tests/mpi/%)
# A plain program that runs tridlab-mpi under mpirun, as a user does.
MPI_CLI_TEST = $(BUILD)/tests/mpi/cli_mpi
# The same, given every kind of bad argument, on each of MPI_ARGS_RANKS.
MPI_ARGS_TEST = $(BUILD)/tests/mpi/cli_args_mpi
MPI_ARGS_RANKS ?= 1 2 3 7
# Memory running out on one rank: the job must end, never hang.
MPI_OOM_TEST = $(BUILD)/tests/mpi/oom_mpi
# Every MPI test runs on each of these rank counts (oversubscribed).
MPI_RANKS ?= 1 2 3 4 7
MPI_ENV  = OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
           OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 \
           OMPI_MCA_mca_base_component_disable_dlclose=1 OMPI_MCA_mpi_yield_when_idle=1 \
           LSAN_OPTIONS=suppressions=$(abspath tests/mpi/lsan.supp) \
           ASAN_OPTIONS=fast_unwind_on_malloc=0
# The Poisson/Helmholtz mini-app (apps/poisson): MPI and FFTW.
POISSON  = $(BUILD)/poisson
POISSON_OBJ = $(BUILD)/obj/apps/poisson/poisson.o
ifneq ($(MPICC),)
MPI_ALL  = $(MPI_LIB_A) $(MPI_CLI) $(MPI_TESTS) $(MPI_CLI_TEST) $(MPI_ARGS_TEST) $(MPI_OOM_TEST)
ifneq ($(FFTW_LIB),)
MPI_ALL += $(POISSON)
endif
endif
# The rooms whose algorithms join the registry, in the order `tridlab list`
# shows them; each defines tl_room_<name>. A backend room that is built
# adds itself here (scripts/gen-rooms.sh writes the list the core reads).
ROOMS    = reference cpu gpu
ROOMS_C  = $(BUILD)/gen/rooms.c
# The benchmark library (bench/, tridlab/bench.h) is part of libtridlab;
# bench/*_main.c are its programs.
BENCH_MAIN = $(wildcard bench/*_main.c)
BENCH_LIB_SRC = $(filter-out $(BENCH_MAIN),$(wildcard bench/*.c))
LIB_SRC  = $(wildcard core/*.c) $(wildcard reference/*.c) $(wildcard verify/*.c) \
           $(wildcard convergence/*.c) $(LAYOUT_SRC) $(CPU_SRC) $(GPU_SRC) $(BENCH_LIB_SRC)
CLI_SRC  = $(wildcard cli/*.c)
TEST_SRC = $(wildcard tests/*.c)
BENCH_SRC = $(BENCH_MAIN)
EXAMPLE_SRC = $(wildcard examples/*.c)

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/rooms.o
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
BENCH_OBJ = $(BENCH_SRC:%.c=$(BUILD)/obj/%.o)
EXAMPLES = $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)

# The example ports of docs/ports.md (examples/ports/): a C port as a shared
# library (a right and a broken entry point), the same as a program, as a
# plug-in, and in Fortran when gfortran is found.
GFORTRAN ?= $(shell command -v gfortran 2>/dev/null)
PORT_BUILD = $(BUILD)/examples/ports
PORTS    = $(PORT_BUILD)/libthomas_port.so $(PORT_BUILD)/thomas_port $(PORT_BUILD)/plugin_thomas.so
ifneq ($(GFORTRAN),)
PORTS   += $(PORT_BUILD)/libthomas_port_f.so
endif
# Ports that break the rules one way at a time (tests/ports/), for the
# tests only: found beside the command, as the example ports are.
TEST_PORT_BUILD = $(BUILD)/tests/ports
TEST_PORTS = $(TEST_PORT_BUILD)/hostile_port $(TEST_PORT_BUILD)/hostile_plugin.so

LIB_A    = $(BUILD)/libtridlab.a
LIB_SO   = $(BUILD)/libtridlab.so
CLI      = $(BUILD)/tridlab
TESTS    = $(BUILD)/tridlab-tests
BENCH    = $(BUILD)/tridlab-bench-ref

.PHONY: FORCE gpu check-gpu check-gpu-mutants all check check-quick check-rooms check-plain check-unit check-mpi \
  check-examples check-tutorials tutorial-figures \
  check-sanitize check-fuzz fuzz \
  fuzz-build report bench info install format clean

all: $(LIB_A) $(LIB_SO) $(CLI) $(TESTS) $(BENCH) $(EXAMPLES) $(PORTS) $(TEST_PORTS) $(MPI_ALL)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# The list of rooms, rewritten only when it changes (so nothing rebuilds
# needlessly), compiled like any library source.
$(ROOMS_C): FORCE
	@mkdir -p $(dir $@)
	@sh scripts/gen-rooms.sh $(ROOMS) > $@.tmp && { cmp -s $@.tmp $@ || mv $@.tmp $@; }; rm -f $@.tmp

$(BUILD)/obj/gen/rooms.o: $(ROOMS_C)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

FORCE:

$(BUILD)/obj/optimized/cpu/%.o: optimized/cpu/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) $(OPT) $(OPT_CPU) $(OMP) -fPIC -MMD -MP $(CFLAGS) -c $< -o $@

$(BUILD)/obj/optimized/layout/%.o: optimized/layout/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CSTD) $(WARN) $(OPT) $(OPT_CPU) $(OMP) -fPIC -MMD -MP $(CFLAGS) -c $< -o $@

$(BUILD)/obj/optimized/mpi/%.o: optimized/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(ALL_CFLAGS) $(MPI_CFLAGS) -c $< -o $@

$(BUILD)/obj/bench/mpi/%.o: bench/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(ALL_CFLAGS) $(MPI_CFLAGS) -c $< -o $@

$(BUILD)/obj/cli/mpi/%.o: cli/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(MPI_CLI): $(MPI_CLI_OBJ) $(MPI_LIB_A) $(LIB_A)
	$(MPICC) $(SAN_LDFLAGS) $(OMP) -o $@ $(MPI_CLI_OBJ) $(MPI_LIB_A) $(LIB_A) $(MPI_LDLIBS) \
	  $(LDLIBS_LAPACK)

$(MPI_LIB_A): $(MPI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(MPI_CLI_TEST): tests/mpi/cli_mpi.c tests/mpi/system_dir.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(OMP) -o $@ $< $(LIB_A) $(LDLIBS_LAPACK)

$(MPI_ARGS_TEST): tests/mpi/cli_args_mpi.c tests/mpi/system_dir.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(OMP) -o $@ $< $(LIB_A) $(LDLIBS_LAPACK)

$(BUILD)/tests/mpi/test_%: tests/mpi/test_%.c $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(OMP) -o $@ $< $(MPI_LIB_A) $(LIB_A) \
	  $(MPI_LDLIBS) $(LDLIBS_LAPACK)

$(MPI_OOM_TEST): tests/mpi/oom_mpi.c $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(OMP) -o $@ $< $(MPI_LIB_A) $(LIB_A) \
	  $(MPI_LDLIBS) $(LDLIBS_LAPACK)

$(BUILD)/obj/apps/poisson/%.o: apps/poisson/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(POISSON): $(POISSON_OBJ) $(BUILD)/obj/apps/poisson/poisson_main.o $(MPI_LIB_A) $(LIB_A)
	$(MPICC) $(SAN_LDFLAGS) $(OMP) -o $@ $^ $(FFTW_LIB) $(MPI_LDLIBS) $(LDLIBS_LAPACK)

$(BUILD)/tests/mpi/test_mpi_poisson: tests/mpi/test_mpi_poisson.c $(POISSON_OBJ) $(MPI_LIB_A) \
  $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) -Iapps/poisson $(ALL_CFLAGS) $(SAN_LDFLAGS) $(OMP) -o $@ $< \
	  $(POISSON_OBJ) $(MPI_LIB_A) $(LIB_A) $(FFTW_LIB) $(MPI_LDLIBS) $(LDLIBS_LAPACK)

# The benchmark library times OpenMP loops of the reference and LAPACK too.
$(BUILD)/obj/bench/%.o: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(OMP) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	$(CC) -shared $(SAN_LDFLAGS) $(OMP) -o $@ $^ $(LDLIBS_LAPACK)

# --export-dynamic: a plug-in (tridlab verify --plugin) calls back into the
# program's own registry (tl_register), so the program exports its symbols.
$(CLI): $(CLI_OBJ) $(LIB_A)
	$(CC) $(SAN_LDFLAGS) $(OMP) -Wl,--export-dynamic -o $@ $(CLI_OBJ) $(LIB_A) $(LDLIBS_LAPACK)

$(TESTS): $(TEST_OBJ) $(LIB_A)
	$(CC) $(SAN_LDFLAGS) $(OMP) -Wl,--export-dynamic -o $@ $(TEST_OBJ) $(LIB_A) -lcriterion $(LDLIBS_LAPACK)

$(BENCH): $(BENCH_OBJ) $(LIB_A)
	$(CC) $(SAN_LDFLAGS) $(OMP) -o $@ $(BENCH_OBJ) $(LIB_A) $(LDLIBS_LAPACK)

# The device builds of the GPU kernels (docs/gpu.md): the same kernel
# source as the emulated room, compiled by nvcc (sm_80, sm_90 and PTX;
# -fmad=false: no contraction, so double answers match the host's bit for
# bit) and by hipcc (gfx90a). Each links a device test program that exits
# 77 without a device, and the tridlab command with the device object in
# it ($(BUILD)/gpu/cuda/tridlab: with a device present the gpu backends
# run on it, listed as "cuda"; without one they emulate), and the
# benchmark tridlab-gpu-bench (CUDA and cuSPARSE, or HIP and rocSPARSE
# where rocsparse.h is found; without a device it
# says so and exits 0). The registers per kernel (ptxas -v) are kept in
# $(BUILD)/gpu/cuda/ptxas.txt. A failing compiler fails the build; a
# missing one is said and skipped. tests/gpu/scope_error.c must NOT
# compile (a region's variable read after its barrier).
NVCC    ?= $(shell command -v nvcc 2>/dev/null)
HIPCC   ?= $(shell command -v hipcc 2>/dev/null)
NVCC_ARCH = -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
            -gencode arch=compute_90,code=compute_90
NVCC_FLAGS = -O3 -fmad=false $(CPPFLAGS)
HIP_ARCH = --offload-arch=gfx90a
HIP_FLAGS = -O3 -ffp-contract=off $(CPPFLAGS)
GPU_OUT  = $(BUILD)/gpu
ROCSPARSE_H ?= $(wildcard /usr/include/rocsparse/rocsparse.h /opt/rocm/include/rocsparse/rocsparse.h)
GPU_LINK = $(LIB_A) -llapacke -llapack -lblas -lm -lpthread -lgomp
# hipcc's clang leaves an empty directory per offload compile in TMPDIR
# (gpu_device-XXXXXX, bench_gpu-XXXXXX); it is given one of the build's,
# removed when the HIP build is done.
HIP_TMP  = $(abspath $(GPU_OUT))/hip/tmp
HIPCC_IN = TMPDIR=$(HIP_TMP) $(HIPCC)

gpu: $(LIB_A) $(CLI_OBJ) $(if $(MPICC),$(MPI_CLI_OBJ) $(MPI_LIB_A))
ifneq ($(NVCC),)
	@mkdir -p $(GPU_OUT)/cuda
	$(NVCC) $(NVCC_FLAGS) $(NVCC_ARCH) -Xptxas -v -c optimized/gpu/gpu_device.cu \
	  -o $(GPU_OUT)/cuda/gpu_device.o 2> $(GPU_OUT)/cuda/ptxas.txt || { cat $(GPU_OUT)/cuda/ptxas.txt; exit 1; }
	$(NVCC) $(NVCC_FLAGS) -o $(GPU_OUT)/cuda/device_test tests/gpu/device_test.c \
	  $(GPU_OUT)/cuda/gpu_device.o $(GPU_LINK)
	$(NVCC) -o $(GPU_OUT)/cuda/tridlab $(CLI_OBJ) $(GPU_OUT)/cuda/gpu_device.o $(GPU_LINK)
ifneq ($(MPICC),)
	$(NVCC) -ccbin $(MPICC) -o $(GPU_OUT)/cuda/tridlab-mpi $(MPI_CLI_OBJ) $(MPI_LIB_A) \
	  $(GPU_OUT)/cuda/gpu_device.o $(MPI_LDLIBS) $(GPU_LINK) -lstdc++
endif
	$(NVCC) $(NVCC_FLAGS) $(NVCC_ARCH) -o $(GPU_OUT)/cuda/tridlab-gpu-bench bench/gpu/bench_gpu.cu \
	  -lcusparse $(GPU_LINK)
	@if $(NVCC) -x cu $(CPPFLAGS) -c tests/gpu/scope_error.c -o /dev/null >/dev/null 2>&1; then \
	  echo "gpu: tests/gpu/scope_error.c compiled under nvcc: a region's state escapes"; exit 1; fi
	@echo "gpu: CUDA build done ($(GPU_OUT)/cuda; registers per kernel in ptxas.txt)"
else
	@echo "gpu: nvcc not found, CUDA build skipped"
endif
ifneq ($(HIPCC),)
	@mkdir -p $(GPU_OUT)/hip $(HIP_TMP)
	$(HIPCC_IN) -x hip $(HIP_FLAGS) $(HIP_ARCH) -c optimized/gpu/gpu_device.cu -o $(GPU_OUT)/hip/gpu_device.o
	$(CC) $(CPPFLAGS) $(CSTD) -O2 -c tests/gpu/device_test.c -o $(GPU_OUT)/hip/device_test.o
	$(HIPCC_IN) $(HIP_ARCH) -o $(GPU_OUT)/hip/device_test $(GPU_OUT)/hip/device_test.o \
	  $(GPU_OUT)/hip/gpu_device.o $(GPU_LINK)
	$(HIPCC_IN) $(HIP_ARCH) -o $(GPU_OUT)/hip/tridlab $(CLI_OBJ) $(GPU_OUT)/hip/gpu_device.o $(GPU_LINK)
ifneq ($(ROCSPARSE_H),)
	$(HIPCC_IN) -x hip $(HIP_FLAGS) $(HIP_ARCH) -c bench/gpu/bench_gpu.cu \
	  -o $(GPU_OUT)/hip/bench_gpu.o
	$(HIPCC_IN) $(HIP_ARCH) -o $(GPU_OUT)/hip/tridlab-gpu-bench $(GPU_OUT)/hip/bench_gpu.o \
	  -lrocsparse $(GPU_LINK)
else
	@echo "gpu: rocsparse.h not found, HIP benchmark skipped"
endif
	rm -rf $(HIP_TMP)
	@echo "gpu: HIP build done ($(GPU_OUT)/hip)"
else
	@echo "gpu: hipcc not found, HIP build skipped"
endif

# Each device test program: 0 passes, 77 is a skip (never a pass).
check-gpu: gpu
	@for t in $(wildcard $(GPU_OUT)/cuda/device_test $(GPU_OUT)/hip/device_test); do \
	  $$t; rc=$$?; \
	  if [ $$rc = 77 ]; then echo "check-gpu: $$t SKIPPED (no device)"; \
	  elif [ $$rc != 0 ]; then echo "check-gpu: $$t FAILED"; exit 1; fi; \
	done
	@# The device build of tridlab-mpi: its GPU algorithms on 2 ranks (on the
	@# device where there is one, else emulated), as the host build's.
	@if [ -x $(GPU_OUT)/cuda/tridlab-mpi ]; then \
	  $(MPI_ENV) timeout -k 5 300 mpirun -n 2 $(GPU_OUT)/cuda/tridlab-mpi verify --gpu \
	    > $(GPU_OUT)/cuda/verify-mpi.txt 2>&1 || { cat $(GPU_OUT)/cuda/verify-mpi.txt; \
	    echo "check-gpu: mpirun -n 2 $(GPU_OUT)/cuda/tridlab-mpi verify --gpu FAILED"; exit 1; }; \
	  echo "check-gpu: $$(tail -1 $(GPU_OUT)/cuda/verify-mpi.txt) ($(GPU_OUT)/cuda/tridlab-mpi)"; fi

# Runnable examples of the tutorials (tutorials/): one program each.
.SECONDARY: $(EXAMPLE_SRC:%.c=$(BUILD)/obj/%.o)
$(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_LDFLAGS) $(OMP) -o $@ $< $(LIB_A) $(LDLIBS_LAPACK)

$(PORT_BUILD)/libthomas_port.so: examples/ports/thomas_port.c examples/ports/thomas_port.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -fPIC -shared $(SAN_LDFLAGS) -o $@ $< -lm

$(PORT_BUILD)/thomas_port: examples/ports/thomas_port_main.c examples/ports/thomas_port.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(OMP) -o $@ $(filter %.c,$^) $(LIB_A) \
	  $(LDLIBS_LAPACK)

# A plug-in is not linked against tridlab: it calls the program's own, and
# shares its descriptors (tl_algorithm): it is rebuilt when a public
# header changes, since a plug-in built against other headers is another
# ABI (docs/ports.md).
PUBLIC_H = $(wildcard include/tridlab/*.h)
$(PORT_BUILD)/plugin_thomas.so: examples/ports/plugin_thomas.c examples/ports/thomas_port.c \
  $(PUBLIC_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -shared $(SAN_LDFLAGS) -o $@ $(filter %.c,$^) -lm

$(PORT_BUILD)/libthomas_port_f.so: examples/ports/thomas_port.f90
	@mkdir -p $(dir $@)
	$(GFORTRAN) -O2 -g -fPIC -shared -J $(dir $@) $(SAN_LDFLAGS) -o $@ $<

$(TEST_PORT_BUILD)/hostile_port: tests/ports/hostile_port.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(OMP) -o $@ $< $(LIB_A) $(LDLIBS_LAPACK)

$(TEST_PORT_BUILD)/hostile_plugin.so: tests/ports/hostile_plugin.c $(PUBLIC_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -shared $(SAN_LDFLAGS) -o $@ $<

# make check runs its stages one after another (scripts/check-stages.sh),
# each with make's job slots, and prints every stage's wall time at the
# end (also when one fails). check-quick is the edit-build-test loop: the
# rooms, the plain build, the Criterion tests, the MPI tests on 3 ranks,
# the examples and the tutorials; no sanitizers, fuzzing or GPU compilers.
CHECK_STAGES = rooms=check-rooms build=all unit=check-unit mutants=check-gpu-mutants mpi=check-mpi \
  examples=check-examples tutorials=check-tutorials sanitize=check-sanitize fuzz=check-fuzz \
  gpu=check-gpu
check:
	@sh scripts/check-stages.sh "$(MAKE)" $(CHECK_STAGES)

check-quick:
	@sh scripts/check-stages.sh "$(MAKE)" rooms=check-rooms build=all unit=check-unit \
	  mutants=check-gpu-mutants \
	  "mpi=check-mpi MPI_RANKS=3 MPI_ARGS_RANKS=3" examples=check-examples tutorials=check-tutorials

# The planted bugs of tests/gpu/mutants.txt: each a copy of the GPU
# kernels broken by one sed command, which the emulator's checker must
# catch with the right kind in every order; and the real kernels clean.
check-gpu-mutants: $(LIB_A)
	@CC="$(CC)" CPPFLAGS="$(CPPFLAGS)" LIBS="$(OMP) $(LDLIBS_LAPACK)" \
	  sh scripts/check-gpu-mutants.sh $(BUILD) $(LIB_A)

# Every room includes only its own headers and those of the rooms below it
# (docs/design.md §1), and no include climbs out of its directory.
check-rooms:
	@sh scripts/check-rooms.sh

# Tests find the command through TRIDLAB_CLI (the CLI tests run it).
check-plain: check-unit check-examples check-tutorials check-mpi

# OMP_WAIT_POLICY=passive: Criterion runs two tests at once on two cores,
# and an OpenMP team that spins after each parallel region took the other
# test's core (the GPU tests, which pack many small batches, ran 2-10x
# slower side by side than alone).
# TRIDLAB_GPU_CHECK: the emulator's checker (docs/gpu.md, "The checker")
# on in the plain run, whatever the caller's environment says; off in
# the sanitized one, except in the tests of the checker itself, which
# turn it on: there ASan watches the emulated kernels' memory (not their
# races, loads of words never stored or shared sub-arrays), and the
# checker on top of it made the emulated tests 3.4x slower.
# First: no vector arithmetic left in an OpenMP region, where the
# compiler builds it for the baseline (scripts/check-omp-clones.sh).
check-unit: $(TESTS) $(CLI) $(PORTS) $(TEST_PORTS)
	@sh scripts/check-omp-clones.sh $(LIB_A)
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) TRIDLAB_CLI=$(abspath $(CLI)) \
	  TRIDLAB_GPU_CHECK=$(if $(filter 1,$(SANITIZE)),0,1) OMP_WAIT_POLICY=passive $(TESTS) $(TEST_ARGS)

# The MPI test programs on 1..7 ranks; a failing or hanging rank fails the
# run (timeout -k: nothing may hang). Skipped, and said, without mpicc.
# The two that run every rank program once more on 3 ranks with
# TRIDLAB_SCRATCH_POISON=1: the scratch that is not zeroed comes back
# full of NaNs, so a program that reads what it did not write fails.
# The command's own behaviour (cli_mpi: one message, one exit status;
# cli_args_mpi: the same for every kind of bad argument, on 1, 2, 3, 7 ranks) is
# checked in the plain run; its library code runs sanitized above.
check-mpi: $(MPI_ALL)
ifneq ($(MPICC),)
	@for P in $(MPI_RANKS); do for t in $(MPI_TESTS); do \
	  $(MPI_ENV) timeout -k 5 300 mpirun -n $$P $$t || { echo "FAILED: mpirun -n $$P $$t"; exit 1; }; \
	done; done
	@for t in $(filter %/test_mpi_partition %/test_mpi_distd2_ptdma_its,$(MPI_TESTS)); do \
	  $(MPI_ENV) TRIDLAB_SCRATCH_POISON=1 timeout -k 5 300 mpirun -x TRIDLAB_SCRATCH_POISON -n 3 $$t || \
	    { echo "FAILED: TRIDLAB_SCRATCH_POISON=1 mpirun -n 3 $$t"; exit 1; }; \
	done
	@$(MPI_ENV) timeout -k 5 60 mpirun -n 1 $(MPI_OOM_TEST) || { echo "FAILED: oom_mpi on 1 rank"; exit 1; }
	@for c in "tridsolver reduced=gather_scatter 6" "pdd '' 2" "distd2 '' 3"; do \
	  eval set -- $$c; \
	  out=$$($(MPI_ENV) timeout -k 5 60 mpirun -n 3 $(MPI_OOM_TEST) "$$@" 2>&1); rc=$$?; \
	  if [ $$rc = 0 ] || [ $$rc = 124 ] || [ $$rc = 137 ] || \
	     ! printf '%s\n' "$$out" | grep -q "ending the job (MPI_Abort)"; then \
	    printf '%s\n' "$$out"; echo "FAILED: oom_mpi $$c on 3 ranks (exit $$rc)"; exit 1; fi; \
	  echo "oom_mpi $$c on 3 ranks: the job ended with the failing rank's message (exit $$rc)"; \
	done
ifneq ($(SANITIZE),1)
	@for P in 1 3; do \
	  $(MPI_ENV) timeout -k 5 300 mpirun -n $$P $(MPI_CLI) verify > $(BUILD)/verify-mpi-$$P.txt 2>&1 || \
	    { cat $(BUILD)/verify-mpi-$$P.txt; echo "FAILED: mpirun -n $$P $(MPI_CLI) verify"; exit 1; }; \
	  tail -1 $(BUILD)/verify-mpi-$$P.txt; \
	done
	@$(MPI_ENV) TRIDLAB_MPI_CLI=$(abspath $(MPI_CLI)) timeout -k 5 600 $(MPI_CLI_TEST)
	@for P in $(MPI_ARGS_RANKS); do \
	  $(MPI_ENV) TRIDLAB_MPI_CLI=$(abspath $(MPI_CLI)) timeout -k 5 600 $(MPI_ARGS_TEST) $$P || \
	    { echo "FAILED: cli_args_mpi on $$P ranks"; exit 1; }; \
	done
endif
else
	@echo "check-mpi: mpicc not found, MPI tests skipped"
endif

# Every example must run and pass its own checks (exit status 0).
check-examples: $(EXAMPLES)
	@for e in $(EXAMPLES); do echo "example $$e"; $$e > $$e.out || { cat $$e.out; exit 1; }; done

# Every command the tutorials show, run and compared with the output the
# page pastes (tutorials/README.md). In the plain build only: the pages
# name build/.
# Page 09 needs the MPI room: left out, and said, without mpicc.
TUTORIAL_PAGES = $(sort $(wildcard tutorials/[0-9]*.md))
# 09 runs build/tridlab-mpi and build/poisson: it needs mpicc and FFTW3.
ifeq ($(if $(MPICC),$(FFTW_LIB)),)
TUTORIAL_PAGES := $(filter-out tutorials/09-%,$(TUTORIAL_PAGES))
endif
# The tutorials' figures (tutorials/figures/), made by the commands the
# pages show; check-tutorials makes them, failing if one cannot be made.
tutorial-figures: $(CLI) $(EXAMPLES)
	@sh scripts/tutorial-figures.sh --timed

check-tutorials: $(CLI) $(PORTS) $(EXAMPLES) $(MPI_ALL)
ifneq ($(SANITIZE),1)
	@sh scripts/tutorial-figures.sh
	@$(if $(MPICC),$(if $(FFTW_LIB),,echo "check-tutorials: FFTW3 not found (build/poisson), tutorial 09 left out";),echo "check-tutorials: mpicc not found, tutorial 09 left out";)
	@sh scripts/check-tutorials.sh $(TUTORIAL_PAGES)
	@sh scripts/check-links.sh
endif

# Under the sanitizers the MPI programs run on 1 and 7 ranks (the single
# rank, and the most ranks, with first, middle and last ranks and the
# smallest and most uneven slices); the plain run has every count of
# MPI_RANKS. Each sanitized rank pays ASan's start and LeakSanitizer's
# full-stack unwinding of OpenMPI's allocations: on 2 cores the five
# programs took 8 s on 1 rank, 8 s on 2, 22 s on 3, 31 s on 4 and 56 s on
# 7 ranks (3 ranks were dropped on 2026-11-30 to keep make check within
# 15 minutes; SAN_MPI_RANKS="1 3 7" runs them).
SAN_MPI_RANKS ?= 1 7
check-sanitize:
	$(MAKE) --no-print-directory SANITIZE=1 MPI_RANKS="$(SAN_MPI_RANKS)" check-plain

# Fuzzing (tests/fuzz/, docs/verification.md#fuzzing): libFuzzer targets
# built by clang with ASan and UBSan in build-fuzz/, against the library
# compiled the same way (without OpenMP: the CPU kernels run serially).
# `make fuzz` runs each for FUZZ_SECONDS, growing a corpus in build-fuzz/;
# `make check` replays the committed regression inputs and fuzzes each
# target for FUZZ_CHECK_SECONDS. An oracle violation or a sanitizer report
# fails; the input is saved under build-fuzz/artifacts/.
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 25
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  = $(CSTD) -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
  -Wall -Wno-unknown-pragmas -MMD -MP
FUZZ_TARGETS = $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB     = $(FUZZ_BUILD)/libtridlab.a
FUZZ_OPTS    = -timeout=20 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_PROBE   = printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
  | $(FUZZ_CC) -fsanitize=fuzzer,address,undefined -x c - -o /dev/null >/dev/null 2>&1
FUZZ_MISSING = echo "$@: skipped: $(FUZZ_CC) with libFuzzer not found (Debian: clang, libclang-rt-14-dev; scripts/install-deps.sh installs them)"
FUZZ_ENV     = UBSAN_OPTIONS=print_stacktrace=1

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/obj/gen/rooms.o: $(ROOMS_C)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_LIB): $(LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_BUILD)/obj/gen/rooms.o
	rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS_LAPACK)

# (without clang's libFuzzer it builds nothing; fuzz and check-fuzz say so)
fuzz-build:
	@if $(FUZZ_PROBE); then $(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%); fi

# Each target: its working corpus (kept between runs), seeded with the
# committed one.
fuzz: fuzz-build
	@$(FUZZ_PROBE) || { $(FUZZ_MISSING); exit 0; }; \
	for t in $(FUZZ_TARGETS); do c=$${t#fuzz_}; \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$c $(FUZZ_BUILD)/artifacts; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/$$t $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$c- \
	    $(FUZZ_BUILD)/corpus/$$c tests/fuzz/corpus/$$c || exit 1; \
	done

# Replay every committed input once, then fuzz from them for a fixed time
# and seed (new inputs go to a scratch directory, not to the repository).
# The targets run side by side (one process each: the stage's time is
# the longest target's, not their sum); each one's lines are printed when
# all have ended, and any failure fails the stage.
check-fuzz: fuzz-build
	@$(FUZZ_PROBE) || { $(FUZZ_MISSING); exit 0; }; \
	mkdir -p $(FUZZ_BUILD)/artifacts; pids=""; \
	for t in $(FUZZ_TARGETS); do c=$${t#fuzz_}; \
	  ( echo "check-fuzz: $$t replays tests/fuzz/corpus/$$c"; \
	    rm -rf $(FUZZ_BUILD)/check-corpus/$$c; mkdir -p $(FUZZ_BUILD)/check-corpus/$$c; \
	    $(FUZZ_ENV) $(FUZZ_BUILD)/$$t $(FUZZ_OPTS) -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$c- \
	      tests/fuzz/corpus/$$c/* > $(FUZZ_BUILD)/$$t-replay.log 2>&1 \
	      || { tail -40 $(FUZZ_BUILD)/$$t-replay.log; echo "FAILED: $$t replay"; exit 1; }; \
	    echo "check-fuzz: $$t fuzzes for $(FUZZ_CHECK_SECONDS) s (seed 1)"; \
	    $(FUZZ_ENV) $(FUZZ_BUILD)/$$t $(FUZZ_OPTS) -max_total_time=$(FUZZ_CHECK_SECONDS) -seed=1 \
	      -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$c- \
	      $(FUZZ_BUILD)/check-corpus/$$c tests/fuzz/corpus/$$c > $(FUZZ_BUILD)/$$t.log 2>&1 \
	      || { tail -40 $(FUZZ_BUILD)/$$t.log; echo "FAILED: $$t"; exit 1; }; \
	    grep -h "stat::number_of_executed_units" $(FUZZ_BUILD)/$$t.log | sed "s/^/check-fuzz: $$t /" \
	  ) > $(FUZZ_BUILD)/$$t-check.out 2>&1 & pids="$$pids $$!"; \
	done; \
	status=0; for p in $$pids; do wait $$p || status=1; done; \
	for t in $(FUZZ_TARGETS); do cat $(FUZZ_BUILD)/$$t-check.out; done; \
	exit $$status

# The verification, the convergence studies and the sweeps, with plots
# (gnuplot), indexed by report/index.md. QUICK=1: the small sizes.
report: $(CLI) $(if $(MPICC),$(MPI_CLI) $(if $(FFTW_LIB),$(POISSON)))
	$(CLI) report --out report $(if $(filter 1,$(QUICK)),--quick)
ifneq ($(MPICC),)
	$(MPI_ENV) sh scripts/report-model.sh $(MPI_CLI) report
ifneq ($(FFTW_LIB),)
	$(MPI_ENV) sh scripts/report-poisson.sh $(POISSON) report
endif
endif

bench: $(CLI) $(BENCH)
	$(CLI) bench --quick --csv $(BUILD)/bench.csv --plot $(BUILD)/bench
	$(BENCH) | tee $(BUILD)/bench-ref.csv

info:
	@echo "tridlab build information"
	@echo "  CC        : $(CC) ($$($(CC) --version | head -n1))"
	@echo "  CFLAGS    : $(ALL_CFLAGS)"
	@echo "  LAPACKE   : $$(if printf '#include <lapacke.h>\n' | $(CC) -E -x c - >/dev/null 2>&1; then echo found; else echo MISSING; fi)"
	@echo "  Criterion : $$(if printf '#include <criterion/criterion.h>\n' | $(CC) -E -x c - >/dev/null 2>&1; then echo found; else echo MISSING; fi)"
	@echo "  mpicc     : $$(command -v mpicc || echo 'not found (MPI backends not built)')"
	@echo "  nvcc      : $$(command -v nvcc || echo 'not found (CUDA backends not built)')"
	@echo "  hipcc     : $$(command -v hipcc || echo 'not found (HIP backends not built)')"
	@echo "  gnuplot   : $$(command -v gnuplot || echo 'not found (no plots)')"
	@echo "  gfortran  : $(if $(GFORTRAN),$(GFORTRAN) (the Fortran example port is built),not found (no Fortran example port))"
	@echo "  OpenMP    : $$(if printf '#include <omp.h>\n' | $(CC) -fopenmp -E -x c - >/dev/null 2>&1; then echo found; else echo MISSING; fi)"
	@echo "  built     : reference algorithms, verification layer, optimized CPU kernels (OpenMP + SIMD), tridlab command"
	@echo "  rooms     : $(ROOMS) (the registry's tables)"
	@echo "  MPI       : $(if $(MPICC),built: libtridlab_mpi.a and tridlab-mpi (mpicc $(MPICC)),not built (no mpicc))"
	@echo "  ScaLAPACK : $(if $(SCALAPACK_LIB),$(SCALAPACK_LIB) (pddtsv baseline built),not found (no pddtsv baseline))"
	@echo "  GPU       : room gpu built, kernels run on the host (gpu-emulated); make gpu: $(if $(NVCC),CUDA with $(NVCC),no nvcc (CUDA skipped)), $(if $(HIPCC),HIP with $(HIPCC),no hipcc (HIP skipped))"
	@echo "  FFTW3     : $(if $(FFTW_LIB),$(FFTW_LIB) (poisson mini-app built),not found (no poisson mini-app))"

install: $(LIB_A) $(LIB_SO) $(CLI)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/tridlab \
	  $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/tridlab/*.h $(DESTDIR)$(PREFIX)/include/tridlab/
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' scripts/tridlab.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tridlab.pc

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-san $(FUZZ_BUILD)

-include $(LIB_OBJ:.o=.d) $(MPI_OBJ:.o=.d) $(POISSON_OBJ:.o=.d) $(BUILD)/obj/apps/poisson/poisson_main.d $(MPI_CLI_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) \
  $(BENCH_OBJ:.o=.d) $(EXAMPLE_SRC:%.c=$(BUILD)/obj/%.d) $(MPI_TESTS:=.d) \
  $(wildcard $(FUZZ_BUILD)/obj/*/*.d $(FUZZ_BUILD)/obj/*/*/*.d)
