#pragma once
// The LibTorch side of mlgo (train-bc, train-ppo, train-pass-predictor and the
// TorchScript export) is a shared library of its own, libmlgo_training.so, that the mlgo
// executable loads only for the commands that need it: LibTorch costs every
// process that maps it 0.7 s and 150 MB, which eval, extract-ir,
// autotune's compile workers and the rest of the commands never need.
//
// The library exports one C function, kTrainingLibraryEntry, returning this
// table. No LibTorch header here.
#include <filesystem>

#include "mlgo/training/shared/config_schema.h"

namespace mlgo {

class Cluster;
class YesNoPolicy;
struct BCOptions;
struct BCSummary;
struct PPOOptions;
struct PPOSummary;
struct PassPredictorOptions;
struct PassPredictorResult;

struct TrainingLibrary {
  ConfigSchema (*behavioralCloningSchema)();
  BCSummary (*trainBehavioralCloning)(const BCOptions &options);
  ConfigSchema (*ppoSchema)();
  PPOSummary (*trainPPO)(const PPOOptions &options);
  void (*serveCollectionForPPO)(const PPOOptions &options, Cluster &cluster);
  void (*exportTorchScript)(const YesNoPolicy &policy, const std::filesystem::path &file, bool replace);
  ConfigSchema (*passPredictorSchema)();
  PassPredictorResult (*trainPassPredictor)(const PassPredictorOptions &options);
};

/// The library's file name and the name of its entry point,
/// `extern "C" const mlgo::TrainingLibrary *mlgo_training_library()`.
inline constexpr const char *kTrainingLibraryFile = "libmlgo_training.so";
inline constexpr const char *kTrainingLibraryEntry = "mlgo_training_library";

}  // namespace mlgo
