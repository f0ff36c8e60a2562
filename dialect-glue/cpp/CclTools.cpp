//===- CclTools.cpp - mlir-opt, mlir-lsp-server and mlir-reduce with ccl --===//
//
// The tool mains are MLIR's own (MlirOptMain, MlirLspServerMain,
// mlirReduceMain) over a registry with every upstream dialect, extension
// and pass, the ccl dialect and the Rust passes: every flag has mlir-opt's
// meaning by construction. cclOptMain is MLIR's two-step opt main (parse
// the command line, then run on the input) with three things of cclir's
// between the steps, each a callback into Rust:
//   - the input is looked at before MLIR parses it (nesting deeper than the
//     stack allows is an error, not a crash);
//   - an output file is Rust's to write (a device or FIFO in place, a
//     regular file atomically); stdout stays LLVM's;
//   - `--mlir-pass-statistics` reports the Rust passes' counters (Debian's
//     LLVM compiles llvm::Statistic out, so MLIR's own report is empty), and
//     an unknown pass name gets a "did you mean" note;
//   - `--sarif=FILE` writes the run's diagnostics as a SARIF log too.
//
//===----------------------------------------------------------------------===//
#include "CclDialect.h"
#include "CclGlue.h"
#include "RustPass.h"

#include "mlir/CAPI/Diagnostics.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-reduce/MlirReduceMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

using namespace mlir;

namespace {

DialectRegistry cclRegistry() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<ccl::CclDialect>();
  return registry;
}

/// The value of a command-line option MLIR registered, by name.
template <typename T>
llvm::cl::opt<T> *registeredOption(StringRef name) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto found = options.find(name);
  return found == options.end() ? nullptr : static_cast<llvm::cl::opt<T> *>(found->second);
}

/// Owned by the pass manager of one run; prints the Rust passes' statistics
/// report when the run's pass manager goes.
class StatisticsReport : public PassInstrumentation {
public:
  StatisticsReport(const CclOptHooks *hooks, std::string pipeline, std::vector<cclir::RecordedPass> passes, bool list)
      : hooks(hooks), pipeline(std::move(pipeline)), passes(std::move(passes)), list(list) {}

  ~StatisticsReport() override {
    std::vector<MlirStringRef> arguments, names;
    std::vector<void *> statistics;
    for (auto &pass : passes) {
      arguments.push_back(wrap(StringRef(pass.argument)));
      names.push_back(wrap(StringRef(pass.name)));
      statistics.push_back(pass.statistics);
    }
    hooks->print_statistics(wrap(StringRef(pipeline)), passes.size(), arguments.data(), names.data(),
                            statistics.data(), list);
    for (auto &pass : passes)
      cclir::release(pass);
  }

private:
  const CclOptHooks *hooks;
  std::string pipeline;
  std::vector<cclir::RecordedPass> passes;
  bool list;
};

/// Builds the run's pipeline as mlir-opt would, then adds cclir's two
/// additions (the statistics report, the "did you mean" note).
LogicalResult setUpPipeline(const MlirOptMainConfig &base, const CclOptHooks *hooks, bool statistics, bool list,
                            PassManager &pm) {
  std::vector<RustPass *> created;
  std::vector<RustPass *> *previous = cclir::startRecording(&created);
  std::string unknown;
  LogicalResult built = success();
  {
    // An unknown pass is reported by MLIR's pipeline parser as one error;
    // hold it back to add the note to it.
    ScopedDiagnosticHandler hold(pm.getContext(), [&](Diagnostic &diagnostic) {
      std::string message = diagnostic.str();
      StringRef text(message);
      size_t end = text.find("' does not refer to a registered pass or pass pipeline");
      if (end == StringRef::npos || !unknown.empty())
        return failure();
      size_t start = text.rfind('\'', end - 1);
      if (start == StringRef::npos)
        return failure();
      unknown = message;
      return success();
    });
    built = base.setupPassPipeline(pm);
  }
  cclir::startRecording(previous);
  if (!unknown.empty()) {
    InFlightDiagnostic error = emitError(UnknownLoc::get(pm.getContext())) << unknown;
    StringRef text(unknown);
    size_t end = text.find("' does not refer to a registered pass or pass pipeline");
    size_t start = text.rfind('\'', end - 1) + 1;
    std::vector<std::string> names = cclir::registeredPassNames();
    std::vector<MlirStringRef> refs;
    for (auto &name : names)
      refs.push_back(wrap(StringRef(name)));
    if (const char *nearest = hooks->suggest(wrap(text.slice(start, end)), refs.data(), refs.size()))
      error.attachNote() << "did you mean '" << nearest << "'?";
    return failure();
  }
  if (failed(built))
    return failure();
  if (statistics) {
    std::string pipeline;
    llvm::raw_string_ostream os(pipeline);
    pm.printAsTextualPipeline(os);
    os.flush();
    std::vector<cclir::RecordedPass> passes;
    for (RustPass *pass : created)
      passes.push_back(cclir::retain(pass));
    pm.addInstrumentation(std::make_unique<StatisticsReport>(hooks, pipeline, std::move(passes), list));
  }
  return success();
}

/// An output stream whose bytes go to Rust (which owns the file).
class RustOutput : public llvm::raw_ostream {
public:
  RustOutput(const CclOptHooks *hooks, void *handle) : hooks(hooks), handle(handle) { SetBuffered(); }
  ~RustOutput() override { flush(); }

  /// Flushes, then asks Rust to keep or discard the file; false (with the
  /// message printed) if something failed.
  bool finish(bool keep) {
    flush();
    const char *message = nullptr;
    bool ok = hooks->close_output(handle, keep && !failedWrite, &message) != 0;
    handle = nullptr;
    if (!failedMessage.empty())
      llvm::errs() << failedMessage << "\n";
    else if (!ok && message)
      llvm::errs() << message << "\n";
    return ok && !failedWrite;
  }

private:
  void write_impl(const char *data, size_t size) override {
    position += size;
    if (failedWrite || !handle)
      return;
    const char *message = nullptr;
    if (!hooks->write_output(handle, data, size, &message)) {
      failedWrite = true;
      failedMessage = message ? message : "error writing output";
    }
  }
  uint64_t current_pos() const override { return position; }

  const CclOptHooks *hooks;
  void *handle;
  uint64_t position = 0;
  bool failedWrite = false;
  std::string failedMessage;
};

/// `--sarif=FILE`: every diagnostic of the run goes to Rust for the log,
/// then on to the handlers below (mlir-opt's printer, or the verifier of
/// `--verify-diagnostics`). Parse errors come before any pass manager: after
/// a failed run in which a chunk of the input (the whole input, or each
/// `--split-input-file` chunk) did not reach its passes, the chunks are
/// parsed again with a recording handler.
class SarifRecorder {
public:
  SarifRecorder(const CclOptHooks *hooks, std::string path) : hooks(hooks), path(std::move(path)) {}

  bool enabled() const { return !path.empty(); }

  /// Records what `context` reports from now on (the pass manager's context
  /// of one chunk, which parsed).
  void attach(MLIRContext *context) {
    ++chunksWithPasses;
    context->getDiagEngine().registerHandler([hooks = hooks](Diagnostic &diagnostic) {
      hooks->record_diagnostic(wrap(diagnostic));
      return failure();
    });
  }

  /// After a failed run: the parser's diagnostics of each chunk of `input`
  /// that does not parse, split and parsed as MlirOptMain splits and parses
  /// them (a chunk's locations are the whole input's lines). Nothing when
  /// every chunk reached its passes.
  void recordParseErrors(const llvm::MemoryBuffer &input, DialectRegistry &registry,
                         const MlirOptMainConfig &config) {
    // The chunks view `input`, which outlives them (the splitter's own copy
    // of the whole does not); it runs once, so its warnings (a near miss of
    // the marker) print once more at most.
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> chunks;
    (void)splitAndProcessBuffer(
        llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef(), false),
        [&chunks](std::unique_ptr<llvm::MemoryBuffer> chunk, const llvm::MemoryBufferRef &, raw_ostream &) {
          chunks.push_back(std::move(chunk));
          return success();
        },
        llvm::nulls(), config.inputSplitMarker());
    if (chunks.size() <= chunksWithPasses)
      return;
    for (auto &chunk : chunks) {
      auto sourceMgr = std::make_shared<llvm::SourceMgr>();
      sourceMgr->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef(), false), SMLoc());
      sourceMgr->AddNewSourceBuffer(std::move(chunk), SMLoc());
      MLIRContext context(registry, MLIRContext::Threading::DISABLED);
      context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
      std::vector<Diagnostic> held;
      ScopedDiagnosticHandler hold(&context, [&held](Diagnostic &diagnostic) {
        held.push_back(std::move(diagnostic));
        return success();
      });
      ParserConfig parseConfig(&context);
      // A chunk that parses reached its passes, which recorded its
      // diagnostics.
      if (!parseSourceFileForTool(sourceMgr, parseConfig, !config.shouldUseExplicitModule()))
        for (Diagnostic &diagnostic : held)
          hooks->record_diagnostic(wrap(diagnostic));
    }
  }

  /// Writes the log (when asked for) and returns the run's exit code: 1 if
  /// the log cannot be written.
  int finish(int code) {
    if (!enabled())
      return code;
    const char *message = nullptr;
    if (!hooks->write_sarif(wrap(StringRef(path)), code, &message)) {
      llvm::errs() << (message ? message : "cannot write the SARIF log") << "\n";
      return 1;
    }
    return code;
  }

private:
  const CclOptHooks *hooks;
  std::string path;
  unsigned chunksWithPasses = 0;
};

} // namespace

extern "C" int cclOptMain(int argc, char **argv, const CclOptHooks *hooks) {
  // Registered before MLIR parses the command line, so --help lists it; a
  // static, as LLVM's options are (the registry keeps a pointer to it for
  // the process), made only by ccl-opt's main.
  static llvm::cl::opt<std::string> sarifFile("sarif",
                                              llvm::cl::desc("Write the diagnostics as a SARIF 2.1.0 log to <file> too"),
                                              llvm::cl::value_desc("file"), llvm::cl::init(""));
  DialectRegistry registry = cclRegistry();
  cclRegisterAllPasses(hooks->register_rust);
  auto [inputFilename, outputFilename] =
      registerAndParseCLIOptions(argc, argv, "ccl-opt: MLIR's optimizer driver with the ccl dialect and passes",
                                 registry);
  SarifRecorder sarif(hooks, sarifFile.getValue());
  llvm::InitLLVM initLLVM(argc, argv);

  // The statistics report is cclir's (see the file comment); MLIR's own
  // would print only its header.
  bool statistics = false, list = false;
  if (auto *option = registeredOption<bool>("mlir-pass-statistics")) {
    statistics = option->getValue();
    option->setValue(false);
  }
  if (auto *option = registeredOption<PassDisplayMode>("mlir-pass-statistics-display"))
    list = option->getValue() == PassDisplayMode::List;

  const MlirOptMainConfig base = MlirOptMainConfig::createFromCLOptions();
  MlirOptMainConfig config = base;
  config.setPassPipelineSetupFn([&base, hooks, statistics, list, &sarif](PassManager &pm) {
    if (sarif.enabled())
      sarif.attach(pm.getContext());
    return setUpPipeline(base, hooks, statistics, list, pm);
  });

  if (config.shouldShowDialects() || config.shouldListPasses())
    return failed(MlirOptMain(llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));

  if (inputFilename == "-" && llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to interrupt)\n";

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return sarif.finish(1);
  }
  const char *message = nullptr;
  if (!hooks->check_input(file->getBufferStart(), file->getBufferSize(), wrap(file->getBufferIdentifier()),
                          &message)) {
    llvm::errs() << (message ? message : "input rejected") << "\n";
    return sarif.finish(1);
  }
  // MlirOptMain owns the input, as in mlir-opt; with --sarif a copy is kept,
  // for a failed parse to be parsed again for the log.
  std::unique_ptr<llvm::MemoryBuffer> kept =
      sarif.enabled() ? llvm::MemoryBuffer::getMemBufferCopy(file->getBuffer(), file->getBufferIdentifier()) : nullptr;
  auto run = [&](llvm::raw_ostream &os) {
    bool ok = succeeded(MlirOptMain(os, std::move(file), registry, config));
    if (!ok && kept)
      sarif.recordParseErrors(*kept, registry, config);
    return ok;
  };

  if (outputFilename == "-") {
    std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(outputFilename, &errorMessage);
    if (!output) {
      llvm::errs() << errorMessage << "\n";
      return sarif.finish(1);
    }
    if (!run(output->os()))
      return sarif.finish(1);
    output->keep();
    return sarif.finish(0);
  }

  void *handle = hooks->open_output(wrap(StringRef(outputFilename)), &message);
  if (!handle) {
    llvm::errs() << (message ? message : "cannot open output file") << "\n";
    return sarif.finish(1);
  }
  RustOutput output(hooks, handle);
  bool ok = run(output);
  return sarif.finish(output.finish(ok) && ok ? 0 : 1);
}

extern "C" int cclLspServerMain(int argc, char **argv) {
  DialectRegistry registry = cclRegistry();
  return failed(MlirLspServerMain(argc, argv, registry));
}

extern "C" int cclReduceMain(int argc, char **argv, CclRegisterFn registerRust) {
  DialectRegistry registry = cclRegistry();
  cclRegisterAllPasses(registerRust);
  MLIRContext context(registry);
  return failed(mlirReduceMain(argc, argv, context));
}

extern "C" void cclRegisterSignalHandlers() {
  llvm::sys::SetOneShotPipeSignalFunction(llvm::sys::DefaultOneShotPipeSignalHandler);
}

extern "C" void cclRemoveFileOnSignal(MlirStringRef path, bool remove) {
  if (remove)
    (void)llvm::sys::RemoveFileOnSignal(unwrap(path));
  else
    llvm::sys::DontRemoveFileOnSignal(unwrap(path));
}
