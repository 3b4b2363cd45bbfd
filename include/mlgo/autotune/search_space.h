#pragma once
// The autotuner's search space: opt's transformation passes of LLVM 19 as
// pipeline elements, read from configs/autotune/passes.txt (one line per pass,
// included or excluded with the reason; see the file's header).
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo::autotune {

struct PassElement {
  bool included = false;
  std::string level;    ///< module, cgscc, function, loop or loop-mssa
  std::string element;  ///< what goes inside the level's wrapper
  std::string reason;
  /// The element wrapped for its level as `opt -passes=` needs it, e.g.
  /// "function(loop-mssa(licm))".
  std::string pipelineText() const;
};

class SearchSpace {
 public:
  /// Whether load checks each included pass against LLVM's registry.
  enum class PassCheck {
    AgainstLLVM,
    /// Left to the compiles: each parses its list anyway, and one naming a
    /// pass LLVM does not know fails and builds plainly. `mlgo cc` loads the
    /// space on every compile of a build, and the 121 checks cost each 2 ms.
    WhenCompiled,
  };
  /// Throws InputError naming the file and line of a malformed entry.
  static SearchSpace load(const std::filesystem::path &file, PassCheck check = PassCheck::AgainstLLVM);

  const std::vector<PassElement> &all() const { return all_; }
  /// The included elements; a pass list holds indices into this.
  const std::vector<PassElement> &passes() const { return passes_; }
  /// Index of an included element by its text ("default<Oz>"); -1 if none.
  int find(const std::string &element) const;
  /// Whether the space lists `element` but does not include it at any level
  /// (excluded with a reason, e.g. found to miscompile), as against a name
  /// it does not know at all.
  bool excludes(const std::string &element) const;

  /// The opt pipeline of a list of pass indices ("" for an empty list).
  std::string pipeline(const std::vector<int> &list) const;
  /// Element names joined by spaces, for people ("default<Oz> mergefunc").
  std::string describe(const std::vector<int> &list) const;

  /// A pass list read from a file (best.json, a coreset, a predictor) is
  /// untrusted data: its elements must be passes of this space, and the
  /// pipeline mlgo runs is the one it renders from them, never the file's
  /// own text. `stored`, the file's pipeline text, must agree with that
  /// rendering. Throws InputError naming `file`, `entry` and the element.
  std::string checkedPipeline(const std::vector<std::string> &elements, const std::string &stored,
                              const std::string &file, const std::string &entry) const;
  /// The list whose rendering is `pipeline` (pipeline() read back): each
  /// top-level element must be one of the space's. Throws InputError naming
  /// `file` and `entry` otherwise.
  std::vector<int> listOfPipeline(const std::string &pipeline, const std::string &file,
                                  const std::string &entry) const;

 private:
  std::vector<PassElement> all_;
  std::vector<PassElement> passes_;
};

/// The file named by $MLGO_PASSES, or else configs/autotune/passes.txt of
/// mlgo's data directory (mlgo/support/data_paths.h).
std::filesystem::path defaultSearchSpaceFile();

}  // namespace mlgo::autotune
