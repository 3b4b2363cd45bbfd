#pragma once
// Adam's state as a LibTorch archive whose bytes depend only on the state.
//
// torch::save(optimizer) keys each parameter's moments by the address of its
// tensor in memory, so two identical runs wrote different optimizer.pt files
// and a rerun could not be compared with its reference byte for byte. Here
// the moments are keyed by the parameter's position in the optimizer.
// Include only from training code: it pulls in torch.
#include <filesystem>

#include <torch/torch.h>

namespace mlgo {

void saveAdamState(const torch::optim::Adam &optimizer, const std::filesystem::path &file);

/// Restores what saveAdamState wrote into an optimizer over the same
/// parameters. Throws InputError naming the file when it is missing, damaged,
/// or holds another number of parameters or other shapes.
void loadAdamState(torch::optim::Adam &optimizer, const std::filesystem::path &file);

}  // namespace mlgo
