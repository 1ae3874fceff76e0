#!/usr/bin/env bash
# Install the Debian packages tridlab needs. Idempotent: packages already
# present are left alone. Runs as root, or through sudo.
set -euo pipefail

PACKAGES=(
  build-essential        # gcc, make
  pkg-config
  liblapacke-dev         # LAPACKE (pulls LAPACK and BLAS)
  libcriterion-dev       # the test framework
  openmpi-bin libopenmpi-dev   # MPI backends (built when mpicc is present)
  libscalapack-openmpi-dev     # ScaLAPACK PDDTSV, the distributed LAPACK baseline
  libfftw3-dev                 # FFTW3: the FFTs of the Poisson/Helmholtz mini-app (apps/poisson)
  gnuplot-nox            # plots in the report
  clang-format           # make format
  clang libclang-rt-14-dev     # make fuzz, and the fuzzing step of make check (libFuzzer)
  hipcc                  # make gpu: the HIP build of the GPU kernels (about 650 MB with its
                         # clang and ROCm libraries); CUDA's nvcc is not in Debian main and
                         # stays optional: make gpu uses it when it is on the PATH
  librocsparse-dev       # make gpu: rocSPARSE for the HIP build of tridlab-gpu-bench (about
                         # 1.3 GB unpacked: its AMD device code)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: need root to install: ${missing[*]}" >&2
  echo "install-deps: run this script as root, or install sudo" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
