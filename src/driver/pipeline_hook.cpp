#include "mlgo/driver/pipeline_hook.h"

#include <mutex>

namespace mlgo {

namespace {
std::mutex gHooksMutex;
PipelineHooks &hooks() {
  static PipelineHooks instance;
  return instance;
}
}  // namespace

void registerProcessWideHook(std::shared_ptr<PipelineHook> hook) {
  std::lock_guard<std::mutex> lock(gHooksMutex);
  hooks().push_back(std::move(hook));
}

const PipelineHooks &processWideHooks() {
  // Registration happens at start-up, before any compile thread exists.
  return hooks();
}

}  // namespace mlgo
