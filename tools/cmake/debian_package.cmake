# `cpack -G DEB` in the build directory: a Debian 12 package of what
# `cmake --install` installs (docs/install.md), installed under /usr.

set(MLGO_PACKAGE_MAINTAINER "The mlgo authors <maintainers@mlgo.invalid>"
    CACHE STRING "Maintainer field of the Debian package (Name <email>)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mlgo)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Trains machine-learned compiler optimizations for LLVM 19")
set(CPACK_PACKAGE_DESCRIPTION "What ml-compiler-opt does in Python and TensorFlow, in one C++ binary: \
turns a code base into a training corpus, records the default inlining decisions, trains a policy \
(behavioral cloning, PPO), evaluates, exports it for LLVM, and autotunes pass lists.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mlgo_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${MLGO_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE MLGO_DEB_ARCHITECTURE
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT MLGO_DEB_ARCHITECTURE)
  set(MLGO_DEB_ARCHITECTURE amd64)
endif()
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${MLGO_DEB_ARCHITECTURE})

# Depends, listed by hand rather than by CPACK_DEBIAN_PACKAGE_SHLIBDEPS:
# dpkg-shlibdeps is in dpkg-dev, which a machine that only builds mlgo need not
# have, and it cannot see the programs mlgo runs (clang-19, opt, gnuplot). The
# libraries are what dpkg-shlibdeps reports on Debian 12 for bin/mlgo and
# lib/libmlgo_*.so (versions from the packages' symbols files);
# test/install/package_test.sh checks that the package of every library they
# need is named here.
set(MLGO_DEB_DEPENDS
  "libc6 (>= 2.34)"
  "libstdc++6 (>= 12)"
  "libgcc-s1 (>= 3.0)"
  libllvm19                         # libLLVM.so.19.1: the in-process compiler (mlgo_core)
  "libclang-cpp19 (>= 1:19.1.7)"    # libclang-cpp.so.19.1: clang's front end for corpus modules
  libspdlog1.10-fmt9                # libspdlog.so.1.10 built with fmt 9 (provided by libspdlog1.10)
  "libfmt9 (>= 9.1.0+ds1)"          # libfmt.so.9: spdlog's formatting, also used directly
  "libprotobuf32 (>= 3.21.12)"      # libprotobuf.so.32: TensorBoard event files (mlgo_report)
  "libsqlite3-0 (>= 3.35.0)"        # libsqlite3.so.0: the project stores of mlgo cc --store (mlgo_core)
  "libpq5 (>= 15)"                  # libpq.so.5: stores on a PostgreSQL server (mlgo_postgres)
  "libtorch1.13 (>= 1.13.1+dfsg)"   # libtorch, libc10: training and TorchScript (mlgo_training)
  clang-19                          # compiles the gate's programs; eval --check-fidelity's reference
  llvm-19                           # /usr/lib/llvm-19/bin/opt: runs autotune's candidates in the gate
  "gnuplot-nox | gnuplot"           # mlgo report's plots
)
if(MLGO_WITH_MPI)
  list(APPEND MLGO_DEB_DEPENDS "libopenmpi3 (>= 4.1.4)")  # libmpi.so.40: runs across the ranks of an mpirun
  # mpirun itself is only needed to start several ranks; mlgo runs alone without it.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin, libopenblas0-serial")
else()
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenblas0-serial")
endif()
# libopenblas0-serial: a faster BLAS for LibTorch than Debian's reference one,
# serial so that training stays deterministic (tools/install-deps.sh).
list(JOIN MLGO_DEB_DEPENDS ", " CPACK_DEBIAN_PACKAGE_DEPENDS)

include(CPack)
