#include "mlgo/training/es/es_settings.h"

namespace mlgo {

namespace {

using S = ESSettings;

SettingsSchema<S> declare() {
  SettingsSchema<S> schema;
  schema.field("iterations", &S::iterations, 100, "ES steps (each compiles every candidate on the sampled modules)")
      .within(1, 1e9)
      .resumable()
      .field("perturbations", &S::perturbations, 8, "antithetic pairs of directions per step")
      .within(1, 10000)
      .field("modules_per_iteration", &S::modulesPerIteration, 25,
             "modules sampled per step, the same for every candidate")
      .within(1, 1e9)
      .field("sigma", &S::sigma, 0.02, "standard deviation of the weight perturbations")
      .positive(100)
      .field("learning_rate", &S::learningRate, 0.005, "Adam step size (gradient ascent on the shaped fitness)")
      .positive(100)
      .field("adam_beta1", &S::adamBeta1, 0.9, "Adam's first-moment decay")
      .within(0, 0.9999)
      .field("adam_beta2", &S::adamBeta2, 0.999, "Adam's second-moment decay")
      .within(0, 0.999999)
      .field("adam_epsilon", &S::adamEpsilon, 1e-8, "Adam epsilon")
      .positive(1)
      .choice("fitness_shaping", &S::shaping, FitnessShaping::CenteredRanks,
              {{"ranks", FitnessShaping::CenteredRanks}, {"zscores", FitnessShaping::ZScores}},
              "ranks (centered ranks in [-0.5, 0.5]) or zscores")
      .field("checkpoint_every", &S::checkpointEvery, 50, "steps between checkpoints (0: none)")
      .within(0, 1e9);
  return schema;
}

}  // namespace

const SettingsSchema<ESSettings> &esSettingsSchema() {
  static const SettingsSchema<ESSettings> schema = declare();
  return schema;
}

}  // namespace mlgo
