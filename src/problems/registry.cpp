#include <map>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace inlining {
const Problem &inliningProblem();
}

namespace {
/// One line per problem.
const std::map<std::string, const Problem *> &registry() {
  static const std::map<std::string, const Problem *> problems = {
      {"inlining", &inlining::inliningProblem()},
  };
  return problems;
}
}  // namespace

const Problem &findProblem(const std::string &name) {
  auto found = registry().find(name);
  if (found == registry().end()) {
    std::string known;
    for (const auto &[key, problem] : registry()) known += (known.empty() ? "" : ", ") + key;
    throw UsageError("unknown problem \"" + name + "\" (known: " + known + ")");
  }
  return *found->second;
}

std::vector<std::string> problemNames() {
  std::vector<std::string> names;
  for (const auto &[key, problem] : registry()) names.push_back(key);
  return names;
}

}  // namespace mlgo
