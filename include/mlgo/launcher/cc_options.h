#pragma once
// mlgo cc's options, declared once. Each row gives a flag, its environment
// variable (for build systems that cannot pass flags to a launcher), the
// setting it fills, its default, the values it takes and one line of help.
// Everything that reads or passes these options is made from the table: the
// command line and the environment (cli/cc_command.cpp), the mlgo
// executable's choice to hand a call with nothing to apply straight to the
// compiler (cli/entry.cpp), the environments compare-builds gives its builds,
// and the pass plugin. Header only: the mlgo executable reads it without
// linking anything.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "mlgo/autotune/search_budget.h"
#include "mlgo/store/store_model.h"

namespace mlgo::launcher {

/// What mlgo cc was asked to do. Defaults are the table's (the constructor).
struct CcSettings {
  std::string policy, passLists, log, predictor, choices, linkMaps, record, store, gatePrograms, storeMaxSize, baseDir;
  bool predict = false, neverLarger = false, uncheckedLinks = false;
  size_t predictedLists = 0, explore = 0, exploreBudget = 0;
  double timeout = 0, costBound = 0;
  CcSettings();
};

/// What an option's variable set on its own asks of a call.
enum class CcEffect {
  Applies,    ///< something to apply: every call goes through mlgo cc
  LinksOnly,  ///< something to do at a link only (link maps)
  Modifies,   ///< a setting of something else: alone, nothing to do
};

using CcMember = std::variant<std::string CcSettings::*, bool CcSettings::*, size_t CcSettings::*,
                              double CcSettings::*>;

struct CcOption {
  const char *flag;           ///< "--policy"
  const char *valueName;      ///< "DIR" for the usage line; "" for a switch
  const char *variable;       ///< "MLGO_CC_POLICY"; nullptr: a flag only
  CcMember member;
  double defaultValue;        ///< of a number or a switch (1 = on); strings default to ""
  /// Of a whole number; of a number, when maximum is above 0 (else: seconds above 0).
  uint64_t minimum, maximum;
  CcEffect effect;
  const char *help;
};

inline constexpr CcOption kCcOptions[] = {
    {"--policy", "DIR", "MLGO_CC_POLICY", &CcSettings::policy, 0, 0, 0, CcEffect::Applies,
     "Trained policy directory to compile with (its problem is read from it)"},
    {"--pass-lists", "FILE", "MLGO_CC_PASS_LISTS", &CcSettings::passLists, 0, 0, 0, CcEffect::Applies,
     "autotune's best.json (or predict-passes --json): each translation unit gets its module's list, matched by "
     "object name"},
    {"--predict", "", "MLGO_CC_PREDICT", &CcSettings::predict, 0, 0, 0, CcEffect::Applies,
     "Units without a tuned list: compile the predictor's first lists beside the recorded level and keep the "
     "smallest object (the variable: 1, or a predictor directory)"},
    {"--predictor", "DIR", "MLGO_CC_PREDICT", &CcSettings::predictor, 0, 0, 0, CcEffect::Applies,
     "Predictor directory for --predict (default: the one shipped with mlgo)"},
    {"--predicted-lists", "N", nullptr, &CcSettings::predictedLists, 1, 1, 1000, CcEffect::Modifies,
     "How many of the predictor's lists a unit tries"},
    {"--never-larger", "", "MLGO_CC_NEVER_LARGER", &CcSettings::neverLarger, 0, 0, 0, CcEffect::Modifies,
     "Also compile each unit plainly at its recorded level and keep the smaller object (.text+data): a policy or "
     "list never makes a unit larger"},
    {"--choices", "FILE", "MLGO_CC_CHOICES", &CcSettings::choices, 0, 0, 0, CcEffect::Applies,
     "A choice file of mlgo compare-builds: each unit compiled the way it names (plainly, with its policy or a pass "
     "list); alone, without --policy, --pass-lists or --predict"},
    {"--link-maps", "DIR", "MLGO_CC_LINK_MAPS", &CcSettings::linkMaps, 0, 0, 0, CcEffect::LinksOnly,
     "Links also write their linker map into this directory, NAME.map beside NAME.json (the link's directory and "
     "output): what compare-builds attributes linked bytes with"},
    {"--record", "DIR", "MLGO_CC_RECORD", &CcSettings::record, 0, 0, 0, CcEffect::Applies,
     "Also write every unit compiled in-process into this corpus directory, as extract-ir lays one out"},
    {"--store", "STORE", "MLGO_CC_STORE", &CcSettings::store, 0, 0, 0, CcEffect::Applies,
     "The project's store (an SQLite file, made when missing, or postgresql://... shared by many machines): every "
     "list a unit compiled, with sizes and gate verdicts; a unit it has decided compiles once with its choice"},
    {"--explore", "N", "MLGO_CC_EXPLORE", &CcSettings::explore, 0, 0, 1000, CcEffect::Applies,
     "With --store: the build spends N plain builds' worth of compile cost on new lists, for the units where the "
     "linked bytes are expected to shrink most: the ranked lists first, then autotune's search"},
    {"--explore-budget", "B", nullptr, &CcSettings::exploreBudget, 500, 1, autotune::kMaxSearchBudget,
     CcEffect::Modifies,
     "The budget of the autotune search --explore replays: after B/N builds a unit has tried what mlgo autotune "
     "--budget B tries on its module, and is decided"},
    {"--base-dir", "DIR", "MLGO_CC_BASE_DIR", &CcSettings::baseDir, 0, 0, 0, CcEffect::Modifies,
     "With --store: paths under DIR are left out of units' keys, as ccache's base_dir (default: the deepest "
     "directory holding the compile's directory, its source and its include directories near it)"},
    {"--store-max-size", "SIZE", "MLGO_CC_STORE_MAX_SIZE", &CcSettings::storeMaxSize, 0, 0, 0, CcEffect::Modifies,
     "With --store: after a link, a store larger than SIZE (200K, 64M, 2G) is cleaned up as mlgo store-gc does"},
    {"--cost-bound", "R", "MLGO_CC_COST_BOUND", &CcSettings::costBound, store::kDefaultCostBound,
     uint64_t(store::kMinCostBound), uint64_t(store::kMaxCostBound), CcEffect::Modifies,
     "The bound on a build's estimated compile cost, against its plain build's: the store's choices share it as "
     "one budget; a predicted list over it (against its unit's -Oz compile) is skipped for the next one"},
    {"--gate-programs", "DIR", "MLGO_CC_GATE_PROGRAMS", &CcSettings::gatePrograms, 0, 0, 0, CcEffect::Modifies,
     "The correctness gate's programs for --store (default: the shipped ones)"},
    {"--unchecked-links", "", "MLGO_CC_UNCHECKED_LINKS", &CcSettings::uncheckedLinks, 0, 0, 0, CcEffect::Modifies,
     "Links ship as linked, not compared with their plain links: a way measured as it is (compare-builds' raw ways)"},
    {"--log", "FILE", "MLGO_CC_LOG", &CcSettings::log, 0, 0, 0, CcEffect::Modifies,
     "Append one JSON line per translation unit: what was applied, sizes, fallbacks"},
    {"--timeout", "S", nullptr, &CcSettings::timeout, 600, 0, 0, CcEffect::Modifies,
     "Seconds of CPU time one translation unit may take in-process before it is compiled plainly"},
};

/// The row that fills `member`.
constexpr const CcOption &ccOption(CcMember member) {
  for (const CcOption &option : kCcOptions)
    if (option.member == member) return option;
  return kCcOptions[0];  // unreachable for a member of CcSettings: every one has a row
}

/// The environment variable of the option that fills `member`.
constexpr const char *ccVariable(CcMember member) { return ccOption(member).variable; }

/// "MLGO_CC_POLICY=DIR": what a build's environment sets to pass `value`.
inline std::string ccAssignment(CcMember member, const std::string &value) {
  return std::string(ccVariable(member)) + "=" + value;
}

inline CcSettings::CcSettings() {
  for (const CcOption &option : kCcOptions) {
    if (auto *number = std::get_if<size_t CcSettings::*>(&option.member))
      this->*(*number) = size_t(option.defaultValue);
    if (auto *seconds = std::get_if<double CcSettings::*>(&option.member)) this->*(*seconds) = option.defaultValue;
    if (auto *on = std::get_if<bool CcSettings::*>(&option.member)) this->*(*on) = option.defaultValue != 0;
  }
}

}  // namespace mlgo::launcher
