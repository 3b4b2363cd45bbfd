// The entry point of libmlgo_training.so (see training_library.h).
#include "mlgo/training/training_library.h"

#include "mlgo/export/torchscript_export.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/training/predictor/pass_predictor_trainer.h"
#include "mlgo/training/ppo/ppo_trainer.h"

extern "C" const mlgo::TrainingLibrary *mlgo_training_library() {
  static const mlgo::TrainingLibrary library{
      &mlgo::behavioralCloningSchema, &mlgo::trainBehavioralCloning, &mlgo::ppoSchema,
      &mlgo::trainPPO,                &mlgo::serveCollectionForPPO,  &mlgo::exportTorchScript,
      &mlgo::passPredictorSchema,     &mlgo::trainPassPredictor,
  };
  return &library;
}
