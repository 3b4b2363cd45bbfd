// See adam_state.h.
#include "mlgo/training/shared/adam_state.h"

#include <string>

#include "mlgo/support/errors.h"

namespace fs = std::filesystem;

namespace mlgo {

namespace {

/// The parameters in the optimizer's order, and the key Adam keeps each
/// one's state under (its tensor's address: the order is the stable name).
std::vector<torch::Tensor> parametersInOrder(const torch::optim::Adam &optimizer) {
  std::vector<torch::Tensor> parameters;
  for (const auto &group : optimizer.param_groups())
    for (const torch::Tensor &parameter : group.params()) parameters.push_back(parameter);
  return parameters;
}

std::string stateKey(const torch::Tensor &parameter) { return c10::guts::to_string(parameter.unsafeGetTensorImpl()); }

}  // namespace

void saveAdamState(const torch::optim::Adam &optimizer, const fs::path &file) {
  const std::vector<torch::Tensor> parameters = parametersInOrder(optimizer);
  torch::serialize::OutputArchive archive;
  archive.write("parameters", torch::tensor(int64_t(parameters.size())));
  for (size_t i = 0; i < parameters.size(); ++i) {
    const auto found = optimizer.state().find(stateKey(parameters[i]));
    if (found == optimizer.state().end()) continue;  // not stepped yet
    const auto &state = static_cast<const torch::optim::AdamParamState &>(*found->second);
    const std::string index = std::to_string(i);
    archive.write("step_" + index, torch::tensor(state.step()));
    archive.write("exp_avg_" + index, state.exp_avg());
    archive.write("exp_avg_sq_" + index, state.exp_avg_sq());
    if (state.max_exp_avg_sq().defined()) archive.write("max_exp_avg_sq_" + index, state.max_exp_avg_sq());
  }
  archive.save_to(file.string());
}

void loadAdamState(torch::optim::Adam &optimizer, const fs::path &file) {
  auto bad = [&](const std::string &what) { return InputError(describeInputProblem(file.string(), "", what)); };
  if (!fs::is_regular_file(file)) throw bad("missing");
  const std::vector<torch::Tensor> parameters = parametersInOrder(optimizer);
  torch::serialize::InputArchive archive;
  torch::Tensor count;
  try {
    archive.load_from(file.string());
    archive.read("parameters", count);
  } catch (const c10::Error &e) {
    throw bad(std::string("not an optimizer state of this run (truncated or damaged?): ") +
              e.what_without_backtrace());
  }
  if (count.numel() != 1 || count.item<int64_t>() != int64_t(parameters.size()))
    throw bad("holds the state of another network (" + std::to_string(count.numel() == 1 ? count.item<int64_t>() : -1) +
              " parameters, this one has " + std::to_string(parameters.size()) + ")");
  optimizer.state().clear();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const std::string index = std::to_string(i);
    torch::Tensor step, average, squares, maximum;
    if (!archive.try_read("step_" + index, step)) continue;
    if (!archive.try_read("exp_avg_" + index, average) || !archive.try_read("exp_avg_sq_" + index, squares) ||
        !average.sizes().equals(parameters[i].sizes()) || !squares.sizes().equals(parameters[i].sizes()))
      throw bad("parameter " + index + ": moments missing or of another shape");
    auto state = std::make_unique<torch::optim::AdamParamState>();
    state->step(step.item<int64_t>());
    state->exp_avg(average);
    state->exp_avg_sq(squares);
    if (archive.try_read("max_exp_avg_sq_" + index, maximum)) state->max_exp_avg_sq(maximum);
    optimizer.state()[stateKey(parameters[i])] = std::move(state);
  }
}

}  // namespace mlgo
