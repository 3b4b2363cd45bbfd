#pragma once
// Training that computes the same bits on every x86-64 CPU.
//
// LibTorch hands matrix products to the system BLAS, and OpenBLAS picks its
// kernel from the CPU when it loads (Prescott, Haswell, SkylakeX, ...): the
// kernels sum in different orders and some fuse multiply-adds, so one seed
// trained three different policies on three kernels. ATen's own vectorized
// kernels are chosen the same way (default, AVX2, AVX512). mlgo therefore
//  - computes the BLAS routines LibTorch calls for these networks itself
//    (deterministic_blas.cpp: libmlgo_training.so defines them, and the
//    dynamic linker binds LibTorch's calls to the first definition, which is
//    ours), in one fixed order with no fused multiply-add (as fast as
//    OpenBLAS on these shapes: BENCHMARKS.md), and
//  - pins ATen's kernels to its portable ("default") build by setting
//    ATEN_CPU_CAPABILITY when the library loads, before any kernel is chosen.
// Include only from training code: it pulls in torch.
#include <cstdint>
#include <string>

namespace mlgo {

/// Sets up LibTorch for one deterministic training run: one intra-op thread
/// (results never depend on the machine's cores), the seed, and a check that
/// ATen runs its portable kernels. Every trainer calls it before it builds a
/// network. Throws std::logic_error if ATen chose its kernels before mlgo
/// could pin them.
void startDeterministicTorch(uint64_t seed);

/// ATen's own words for the kernels it runs ("CPU capability usage: NO AVX"
/// when pinned).
std::string torchCpuKernels();

/// How many BLAS calls mlgo's own routines have answered in this process:
/// proof that LibTorch's products reach them.
uint64_t deterministicBlasCalls();

}  // namespace mlgo
