#include "mlgo/driver/name_counter.h"

#include <string>
#include <vector>

#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

namespace mlgo {

namespace {

constexpr const char *kProbe = "mlgo.name.counter.probe";

llvm::GlobalVariable *probeGlobal(llvm::Module &module) {
  return new llvm::GlobalVariable(module, llvm::Type::getInt8Ty(module.getContext()), /*isConstant=*/true,
                                  llvm::GlobalValue::PrivateLinkage, nullptr, kProbe);
}

/// The number a clashing global's name was given ("probe.7" -> 7).
unsigned suffixOf(const llvm::GlobalVariable &global) {
  const std::string name = global.getName().str();
  return unsigned(std::stoul(name.substr(std::string(kProbe).size() + 1)));
}

}  // namespace

unsigned nameCounterOf(llvm::Module &module) {
  llvm::GlobalVariable *first = probeGlobal(module);
  llvm::GlobalVariable *clash = probeGlobal(module);
  // The symbol table names the clash with the counter moved on by one (the
  // probe's names are free, so once).
  const unsigned counter = suffixOf(*clash) - 1;
  clash->eraseFromParent();
  first->eraseFromParent();
  return counter;
}

void continueNameCounter(llvm::Module &module, unsigned counter) {
  if (counter == 0) return;
  // Each clash moves the counter on by one; the last clash's number is where it stands.
  std::vector<llvm::GlobalVariable *> probes{probeGlobal(module)};
  do probes.push_back(probeGlobal(module));
  while (suffixOf(*probes.back()) < counter);
  for (llvm::GlobalVariable *probe : probes) probe->eraseFromParent();
}

}  // namespace mlgo
