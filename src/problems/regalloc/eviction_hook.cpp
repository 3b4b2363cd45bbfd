#include "mlgo/problems/regalloc/eviction_hook.h"

#include "eviction_state.h"

namespace mlgo::regalloc {

namespace {
thread_local EvictionHook::State *tlsActive = nullptr;
}

EvictionHook::State *activeEvictionState() { return tlsActive; }

EvictionHook::EvictionHook(std::shared_ptr<EvictionSteer> steer)
    : steer_(std::move(steer)), state_(std::make_unique<State>()) {
  installEvictionSeam();
}

EvictionHook::~EvictionHook() = default;

void EvictionHook::beginCompile() {
  *state_ = State();
  state_->steer = steer_.get();
  tlsActive = state_.get();
}

void EvictionHook::endCompile() { tlsActive = nullptr; }

uint64_t EvictionHook::decisionsTaken() const { return state_->decisions; }
double EvictionHook::score() const { return state_->score; }
const std::map<std::string, double> &EvictionHook::functionScores() const { return state_->functionScores; }
uint64_t EvictionHook::changedDecisions() const { return state_->changed; }
std::vector<std::string> EvictionHook::problems() const { return state_->problems; }

}  // namespace mlgo::regalloc
