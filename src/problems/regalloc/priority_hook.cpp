#include "mlgo/problems/regalloc/priority_hook.h"

#include "mlgo/problems/regalloc/eviction_hook.h"
#include "priority_state.h"

namespace mlgo::regalloc {

namespace {
thread_local PriorityHook::State *tlsActive = nullptr;
}

PriorityHook::State *activePriorityState() { return tlsActive; }

PriorityHook::PriorityHook(std::shared_ptr<PrioritySteer> steer)
    : steer_(std::move(steer)), state_(std::make_unique<State>()), scoring_(std::make_unique<EvictionHook>()) {
  installPrioritySeam();
}

PriorityHook::~PriorityHook() = default;

void PriorityHook::beginCompile() {
  *state_ = State();
  state_->steer = steer_.get();
  tlsActive = state_.get();
  scoring_->beginCompile();
}

void PriorityHook::endCompile() {
  scoring_->endCompile();
  tlsActive = nullptr;
}

uint64_t PriorityHook::decisionsTaken() const { return state_->decisions; }
double PriorityHook::score() const { return scoring_->score(); }
const std::map<std::string, double> &PriorityHook::functionScores() const { return scoring_->functionScores(); }
uint64_t PriorityHook::changedDecisions() const { return state_->changed; }
std::vector<std::string> PriorityHook::problems() const { return state_->problems; }

}  // namespace mlgo::regalloc
