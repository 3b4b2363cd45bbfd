#pragma once
#include "mlgo/training/training_library.h"

namespace mlgo::cli {

/// libmlgo_training.so, loaded on the first call from the directory that holds
/// libmlgo_core.so (the two are built and installed side by side, so this
/// holds for a copied executable too). Throws std::runtime_error naming the
/// file and the loader's reason when it cannot be loaded.
const TrainingLibrary &trainingLibrary();

}  // namespace mlgo::cli
