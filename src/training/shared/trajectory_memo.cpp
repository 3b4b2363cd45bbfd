#include "mlgo/training/shared/trajectory_memo.h"

#include "mlgo/driver/compiler_driver.h"

namespace mlgo {

namespace {
// What the allocator adds to each allocation (glibc: a 16-byte header and
// 16-byte rounding), so that the bound holds for the process's memory, not
// just for the bytes the tree asked for.
constexpr size_t kAllocationOverhead = 16;
constexpr size_t allocated(size_t bytes) { return (bytes + kAllocationOverhead + 15) / 16 * 16; }
}  // namespace

std::string TrajectoryMemo::moduleKey(const CorpusModule &module) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = moduleKeys_.find(module.name);
    if (found != moduleKeys_.end()) return found->second;
  }
  std::string key = CompilerDriver::requestMemoKey({&module, "", {}});  // reads the bitcode: outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  return moduleKeys_.emplace(module.name, std::move(key)).first->second;
}

std::optional<CompileResult> TrajectoryMemo::replay(const std::string &moduleKey, ActionSampler &sampler) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto root = roots_.find(moduleKey);
  if (root == roots_.end()) return std::nullopt;
  for (const Node *node = root->second.get(); node;) {
    if (node->result) return *node->result;
    if (node->features.empty()) return std::nullopt;
    const int64_t action = sampler.sample(node->features.data());
    if (action != 0 && action != 1) return std::nullopt;
    node = node->next[action].get();
  }
  return std::nullopt;
}

bool TrajectoryMemo::record(const std::string &moduleKey, const Trajectory &trajectory, const CompileResult &result) {
  if (trajectory.actionCount != 2) return true;  // the tree holds yes/no decisions only
  std::lock_guard<std::mutex> lock(mutex_);
  auto root = roots_.find(moduleKey);
  if (root == roots_.end()) {
    // A new module's root also costs its key and the map's node.
    const size_t rootBytes =
        allocated(sizeof(Node)) + allocated(moduleKey.size() + sizeof(std::string) + 2 * sizeof(void *));
    if (bytes_ + rootBytes > maxBytes_) return true;
    root = roots_.emplace(moduleKey, std::make_unique<Node>()).first;
    bytes_ += rootBytes;
  }
  auto grow = [&](std::unique_ptr<Node> &slot) {
    if (slot) return true;
    if (bytes_ + allocated(sizeof(Node)) > maxBytes_) return false;
    slot = std::make_unique<Node>();
    bytes_ += allocated(sizeof(Node));
    return true;
  };
  Node *node = root->second.get();
  const size_t width = trajectory.featureCount;
  for (size_t i = 0; i < trajectory.decisions(); ++i) {
    if (node->result) return false;  // the tree says no decision followed here
    const int64_t *features = trajectory.features.data() + i * width;
    if (node->features.empty()) {
      if (bytes_ + allocated(width * sizeof(int64_t)) > maxBytes_) return true;
      node->features.assign(features, features + width);
      bytes_ += allocated(width * sizeof(int64_t));
    } else if (!std::equal(node->features.begin(), node->features.end(), features)) {
      return false;
    }
    std::unique_ptr<Node> &next = node->next[trajectory.actions[i] ? 1 : 0];
    if (!grow(next)) return true;
    node = next.get();
  }
  if (!node->features.empty()) return false;  // the tree says another decision followed
  if (node->result) return true;
  const size_t resultBytes = allocated(sizeof(CompileResult)) +
                             (result.message.size() > 15 ? allocated(result.message.size() + 1) : 0);
  if (bytes_ + resultBytes > maxBytes_) return true;
  node->result = std::make_unique<CompileResult>(result);
  bytes_ += resultBytes;
  return true;
}

size_t TrajectoryMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace mlgo
