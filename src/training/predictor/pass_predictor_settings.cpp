#include "mlgo/training/predictor/pass_predictor_settings.h"

namespace mlgo {

namespace {

using S = PassPredictorSettings;

SettingsSchema<S> declare() {
  SettingsSchema<S> schema;
  // A few hundred modules and ~80 features: one hidden layer and a firm L2
  // penalty generalize best on a planted rule among noise features (an
  // unregularized 64x64 network memorizes the noise; BENCHMARKS.md).
  schema.field("hidden_layers", &S::hiddenLayers, {64}, "hidden layer sizes of the MLP (ReLU)")
      .within(1, 4096)
      .field("learning_rate", &S::learningRate, 3e-3, "Adam learning rate")
      .positive(1)
      .field("weight_decay", &S::weightDecay, 1e-2, "L2 penalty on the weights (Adam's weight_decay)")
      .within(0, 1)
      .field("epochs", &S::epochs, 300, "full-batch gradient steps")
      .within(1, 1e7)
      .field("temperature", &S::temperature, 0.01,
             "softmax temperature of the target over log gains (0.01: a list 1% smaller weighs e times more)")
      .positive(10)
      .field("validation_folds", &S::validationFolds, 10,
             "the projects (a module name's first component) are dealt into this many folds, at most one a "
             "project; each fold validates a model trained on the others against the coreset's order")
      .within(2, 1e6)
      .field("report_every", &S::reportEvery, 50, "epochs between metrics records")
      .within(1, 1e7);
  return schema;
}

}  // namespace

const SettingsSchema<PassPredictorSettings> &passPredictorSettingsSchema() {
  static const SettingsSchema<PassPredictorSettings> schema = declare();
  return schema;
}

}  // namespace mlgo
