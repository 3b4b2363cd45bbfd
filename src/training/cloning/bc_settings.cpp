#include "mlgo/training/cloning/bc_settings.h"

namespace mlgo {

namespace {

using S = BCSettings;

/// Where an earlier schema and validator disagreed, the narrower range holds:
/// dropout [0, 0.99] and holdout_fraction [0, 0.9] (the validator allowed
/// up to 1, the schema refused it first); iterations at least 1 (a run of
/// none was refused).
SettingsSchema<S> declare() {
  SettingsSchema<S> schema;
  schema.field("hidden_layers", &S::hiddenLayers, {40, 40, 20}, "hidden layer sizes of the MLP")
      .within(1, 4096)
      .choice("activation", &S::activation, Activation::Relu, {{"relu", Activation::Relu}, {"tanh", Activation::Tanh}},
              "relu or tanh")
      .field("dropout", &S::dropout, 0.2, "dropout after each hidden layer while training")
      .within(0, 0.99)
      .field("learning_rate", &S::learningRate, 1e-3, "Adam learning rate")
      .positive(1)
      .field("adam_epsilon", &S::adamEpsilon, 3.125e-4, "Adam epsilon")
      .positive(1)
      .field("batch_size", &S::batchSize, 64, "decisions per gradient step")
      .within(1, 1e7)
      .field("iterations", &S::iterations, 100000, "gradient steps")
      .within(1, 1e10)
      .field("holdout_fraction", &S::holdoutFraction, 0.1, "share of modules held out for evaluation")
      .within(0, 0.9)
      .field("report_every", &S::reportEvery, 1000, "steps between metrics records")
      .within(1, 1e10)
      .field("checkpoint_every", &S::checkpointEvery, 10000, "steps between checkpoints (0: none)")
      .within(0, 1e10)
      .field("with_sqrt", &S::withSqrt, false, "add sqrt(x) per feature")
      .field("with_z_score", &S::withZScore, false, "add a z-score term per feature")
      .field("passthrough_features", &S::passthroughFeatures, {}, "features that skip normalization")
      .field("gain_weight", &S::gainWeight, 0.0,
             "imitation: a module's decisions weigh 1 + gain_weight x (its trace's % .text gain over the default "
             "heuristic, from baselines.json); 0: every decision weighs the same")
      .within(0, 1e6)
      .field("flip_weight", &S::flipWeight, 0.0,
             "imitation: a decision whose action differs from the default heuristic's (what the search changed) "
             "weighs 1 + flip_weight times more")
      .within(0, 1e6);
  return schema;
}

}  // namespace

const SettingsSchema<BCSettings> &bcSettingsSchema() {
  static const SettingsSchema<BCSettings> schema = declare();
  return schema;
}

}  // namespace mlgo
