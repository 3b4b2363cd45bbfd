#include "mlgo/training/trajectory_memo.h"

namespace mlgo {

namespace {
constexpr size_t kNodeBytes = sizeof(void *) * 8;  // the node, its allocation and the map's share
}  // namespace

std::optional<CompileResult> TrajectoryMemo::replay(const std::string &moduleKey, ActionSampler &sampler) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto root = roots_.find(moduleKey);
  if (root == roots_.end()) return std::nullopt;
  for (const Node *node = root->second.get(); node;) {
    if (node->result) return node->result;
    if (node->features.empty()) return std::nullopt;
    node = node->next[sampler.sample(node->features.data()) ? 1 : 0].get();
  }
  return std::nullopt;
}

bool TrajectoryMemo::record(const std::string &moduleKey, const Trajectory &trajectory, const CompileResult &result) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<Node> &root = roots_[moduleKey];
  auto grow = [&](std::unique_ptr<Node> &slot) {
    if (slot) return true;
    if (bytes_ + kNodeBytes + moduleKey.size() > maxBytes_) return false;
    slot = std::make_unique<Node>();
    bytes_ += kNodeBytes;
    return true;
  };
  if (!grow(root)) return true;
  Node *node = root.get();
  const size_t width = trajectory.featureCount;
  for (size_t i = 0; i < trajectory.decisions(); ++i) {
    if (node->result) return false;  // the tree says no decision followed here
    const int64_t *features = trajectory.features.data() + i * width;
    if (node->features.empty()) {
      if (bytes_ + width * sizeof(int64_t) > maxBytes_) return true;
      node->features.assign(features, features + width);
      bytes_ += width * sizeof(int64_t);
    } else if (!std::equal(node->features.begin(), node->features.end(), features)) {
      return false;
    }
    std::unique_ptr<Node> &next = node->next[trajectory.actions[i] ? 1 : 0];
    if (!grow(next)) return true;
    node = next.get();
  }
  if (!node->features.empty()) return false;  // the tree says another decision followed
  node->result = result;
  return true;
}

size_t TrajectoryMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace mlgo
