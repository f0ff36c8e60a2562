//===- RustPass.h - what the tool mains need of the Rust pass class -------===//
#ifndef CCLIR_RUSTPASS_H
#define CCLIR_RUSTPASS_H

#include "CclGlue.h"

#include <string>
#include <vector>

class RustPass;

namespace cclir {

/// A Rust pass of a built pipeline, as its statistics report names it.
struct RecordedPass {
  std::string argument;
  std::string name;
  /// A share of the pass's counters (released by `release`).
  void *statistics;
  const CclPassCallbacks *callbacks;
};

/// Makes the Rust passes created on this thread from now on go into `into`
/// (null: nowhere); returns the previous target.
std::vector<RustPass *> *startRecording(std::vector<RustPass *> *into);

RecordedPass retain(RustPass *pass);

/// Every registered pass and pass pipeline name: llvm::cl registers each as
/// a name of the one option that takes pass flags (`--cse`).
std::vector<std::string> registeredPassNames();
void release(RecordedPass &pass);

} // namespace cclir

#endif // CCLIR_RUSTPASS_H
