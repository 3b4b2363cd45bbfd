// See deterministic_torch.h.
#include "mlgo/training/shared/deterministic_torch.h"

#include <cstdlib>
#include <stdexcept>

#include <torch/torch.h>

namespace mlgo {

namespace {

/// ATen reads ATEN_CPU_CAPABILITY once, when it first dispatches a kernel;
/// this runs when libmlgo_training.so loads, before any training code can.
/// It overrides a value the user set: a run's result must not depend on it.
const bool kernelsPinned = [] { return setenv("ATEN_CPU_CAPABILITY", "default", 1) == 0; }();

}  // namespace

std::string torchCpuKernels() {
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  const size_t start = config.find(key);
  if (start == std::string::npos) return "";
  const size_t end = config.find('\n', start);
  return config.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

void startDeterministicTorch(uint64_t seed) {
  if (!kernelsPinned || torchCpuKernels() != "CPU capability usage: NO AVX")
    throw std::logic_error("LibTorch chose its CPU kernels before mlgo pinned them (" + torchCpuKernels() +
                           "): training would depend on this machine's CPU");
  // One intra-op thread: results then never depend on the machine's cores
  // (and these networks are far too small to gain from more).
  torch::set_num_threads(1);
  torch::manual_seed(seed);
}

}  // namespace mlgo
