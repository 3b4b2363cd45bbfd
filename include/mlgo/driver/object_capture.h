#pragma once
// A hook that keeps the object code of the compile it takes part in: for
// whoever needs the object itself (mlgo cc writes it, the correctness gate
// links it). Its compiles always generate code (never from the memo), so the
// object is always there.
#include <string>
#include <string_view>

#include "mlgo/driver/pipeline_hook.h"

namespace mlgo {

class ObjectCapture final : public PipelineHook {
 public:
  void objectEmitted(std::string_view object) override { object_.assign(object); }
  bool affectsCodeGeneration() const override { return true; }
  bool affectsOptimization() const override { return false; }
  /// Empty until a compile generated code.
  const std::string &object() const { return object_; }

 private:
  std::string object_;
};

}  // namespace mlgo
