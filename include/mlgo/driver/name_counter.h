#pragma once
// LLVM's module symbol table gives a name that clashes a number from one
// counter ("str" becomes "str.51" after the frontend's ".str" ... ".str.50"),
// and bitcode does not keep that counter: a module read back from bitcode
// numbers the globals its optimization creates from 1. Private names show up
// in objects (section names under -fdata-sections, label order), so to write
// clang's object from its frontend's module read back, the counter has to be
// carried over.
namespace llvm {
class Module;
}

namespace mlgo {

/// The module symbol table's counter as it stands. Probes it with two
/// clashing globals, then removes them (the counter itself moves on: call
/// it on a module that is written out already, or thrown away).
unsigned nameCounterOf(llvm::Module &module);

/// Moves the counter of a module (read back from bitcode) on to `counter`,
/// as if the module's names had clashed that often.
void continueNameCounter(llvm::Module &module, unsigned counter);

}  // namespace mlgo
