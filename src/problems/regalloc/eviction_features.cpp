#include "mlgo/problems/regalloc/eviction_hook.h"

namespace mlgo::regalloc {

const trace::DecisionSpec &decisionSpec() {
  // RA_EVICT_FEATURES_LIST of LLVM 19's MLRegAllocEvictAdvisor.cpp: type,
  // name and shape, in its order (the order its runner logs them in).
  using Type = trace::FeatureTensor::Type;
  static const trace::DecisionSpec spec = [] {
    const std::vector<int64_t> perPosition = {1, static_cast<int64_t>(kPositions)};
    trace::DecisionSpec spec;
    spec.features = {
        {"mask", Type::Int64, perPosition},
        {"is_free", Type::Int64, perPosition},
        {"nr_urgent", Type::Float, perPosition},
        {"nr_broken_hints", Type::Float, perPosition},
        {"is_hint", Type::Int64, perPosition},
        {"is_local", Type::Int64, perPosition},
        {"nr_rematerializable", Type::Float, perPosition},
        {"nr_defs_and_uses", Type::Float, perPosition},
        {"weighed_reads_by_max", Type::Float, perPosition},
        {"weighed_writes_by_max", Type::Float, perPosition},
        {"weighed_read_writes_by_max", Type::Float, perPosition},
        {"weighed_indvars_by_max", Type::Float, perPosition},
        {"hint_weights_by_max", Type::Float, perPosition},
        {"start_bb_freq_by_max", Type::Float, perPosition},
        {"end_bb_freq_by_max", Type::Float, perPosition},
        {"hottest_bb_freq_by_max", Type::Float, perPosition},
        {"liverange_size", Type::Float, perPosition},
        {"use_def_density", Type::Float, perPosition},
        {"max_stage", Type::Int64, perPosition},
        {"min_stage", Type::Int64, perPosition},
        {"progress", Type::Float, {1}},
    };
    spec.actions = static_cast<int64_t>(kPositions);
    return spec;
  }();
  return spec;
}

}  // namespace mlgo::regalloc
