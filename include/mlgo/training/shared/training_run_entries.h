#pragma once
// What a training run (train-bc, train-ppo, train-es) writes into its output
// directory: what `--force` may remove there (docs/formats.md, "Training
// output directories").
#include <string>
#include <vector>

namespace mlgo {

/// Glob patterns of top-level names. policy/ and resume/ are replaced through
/// NAME.partial/ and NAME.old/, which a killed run can leave behind.
inline std::vector<std::string> trainingRunEntries() {
  return {"config.json", "metrics.jsonl", "checkpoints", "policy",         "policy.partial",
          "policy.old",  "resume",        "resume.partial", "resume.old"};
}

}  // namespace mlgo
