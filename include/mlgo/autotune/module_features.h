#pragma once
// What a pass-list predictor knows about a module before compiling it: counts
// computed in-process by LLVM 19 on the module's unoptimized bitcode (the
// corpus's, what a pass list is applied to). Three groups, all named:
//   op.<opcode>   instructions of each LLVM opcode (op.add, op.call, ...)
//   fp.<field>    LLVM's FunctionPropertiesAnalysis, summed over the defined
//                 functions (fp.MaxLoopDepth: the maximum)
//   module.<what> functions defined and declared, internal functions,
//                 global variables, loops, and whether the source is C++
// The predictor file records these names; a predictor trained on other
// names is refused (mlgo/autotune/pass_predictor.h).
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"

namespace llvm {
class Module;
}

namespace mlgo::autotune {

/// The feature names, in the order moduleFeatures() returns their values.
const std::vector<std::string> &moduleFeatureNames();

/// The features of a parsed module.
std::vector<double> moduleFeatures(llvm::Module &module, bool cxx);

/// The features of a corpus module (its bitcode parsed in a context of its
/// own). Throws InputError naming the module when its bitcode is unreadable.
std::vector<double> moduleFeatures(const CorpusModule &module);

}  // namespace mlgo::autotune
