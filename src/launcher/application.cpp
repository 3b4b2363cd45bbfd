#include "mlgo/launcher/application.h"

#include "mlgo/autotune/autotuner.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/policy/policy_directory.h"
#include "mlgo/problems/problem.h"

namespace mlgo::launcher {

Application loadApplication(const std::filesystem::path &policy, const std::filesystem::path &passLists,
                            std::chrono::milliseconds timeout) {
  Application application;
  application.timeout = timeout;
  if (!policy.empty()) {
    const Problem &problem = findProblem(policy_directory::problemOf(policy));
    application.policyHooks = problem.policyHooks(policy);
    application.policyDescription = policy.string();
  }
  if (!passLists.empty()) {
    application.passLists =
        autotune::readPassLists(passLists, autotune::SearchSpace::load(autotune::defaultSearchSpaceFile()));
    application.passListsDescription = passLists.string();
  }
  return application;
}

}  // namespace mlgo::launcher
