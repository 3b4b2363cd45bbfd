#include "mlgo/launcher/unit_choices.h"

#include "mlgo/autotune/search_space.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo::launcher {

namespace {

constexpr const char *kFormat = "mlgo-unit-choices";

}  // namespace

const char *unitWayName(UnitWay way) {
  switch (way) {
    case UnitWay::Plain: return "plain";
    case UnitWay::Policy: return "policy";
    case UnitWay::PassList: return "pass-list";
  }
  return "?";
}

nlohmann::json unitChoicesToJson(const UnitChoices &choices) {
  nlohmann::json units = nlohmann::json::object();
  for (const auto &[module, choice] : choices.units) {
    nlohmann::json entry{{"way", unitWayName(choice.way)}};
    if (choice.way == UnitWay::PassList) entry["pipeline"] = choice.pipeline;
    units[module] = entry;
  }
  nlohmann::json out{{"format", kFormat}, {"version", 1}, {"units", units}};
  if (!choices.policy.empty()) out["policy"] = choices.policy.string();
  return out;
}

UnitChoices readUnitChoices(const std::filesystem::path &file, const autotune::SearchSpace &space) {
  const nlohmann::json json = readJsonFile(file);
  const std::string name = file.string();
  if (!json.is_object() || json.value("format", nlohmann::json()).dump() != nlohmann::json(kFormat).dump() ||
      !json.contains("units") || !json["units"].is_object())
    throw InputError(describeInputProblem(name, "", std::string("not a choice file (format ") + kFormat + ")"));
  UnitChoices choices;
  if (json.contains("policy")) {
    if (!json["policy"].is_string()) throw InputError(describeInputProblem(name, "policy", "not a string"));
    choices.policy = json["policy"].get<std::string>();
  }
  for (const auto &[module, entry] : json["units"].items()) {
    const std::string where = "units." + module;
    if (!entry.is_object() || !entry.contains("way") || !entry["way"].is_string())
      throw InputError(describeInputProblem(name, where, "needs a \"way\": plain, policy or pass-list"));
    const std::string way = entry["way"].get<std::string>();
    UnitChoice choice;
    if (way == "plain") {
      choice.way = UnitWay::Plain;
    } else if (way == "policy") {
      if (choices.policy.empty())
        throw InputError(describeInputProblem(name, where, "chooses the policy, but the file names none"));
      choice.way = UnitWay::Policy;
    } else if (way == "pass-list") {
      if (!entry.contains("pipeline") || !entry["pipeline"].is_string())
        throw InputError(describeInputProblem(name, where + ".pipeline", "missing or not a string"));
      choice.way = UnitWay::PassList;
      choice.pipeline = space.pipeline(space.listOfPipeline(entry["pipeline"].get<std::string>(), name, where));
    } else {
      throw InputError(describeInputProblem(name, where + ".way", "\"" + way + "\" is not plain, policy or pass-list"));
    }
    choices.units[module] = choice;
  }
  return choices;
}

}  // namespace mlgo::launcher
