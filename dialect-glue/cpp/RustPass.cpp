//===- RustPass.cpp - Rust passes in MLIR's pass registry -----------------===//
//
// One mlir::Pass class for every Rust pass. Its argument, name, description,
// anchor, dependent dialects and options are the Rust description's
// (CclPassInfo); runOnOperation and the option checks call back into Rust.
// Options are real Pass::Options, so MLIR parses `{max-blocks=32}`, lists
// them in --help, prints them in --dump-pass-pipeline and copies them into
// the clones it makes for its threads. Named pipelines with options are
// registered the same way.
//
//===----------------------------------------------------------------------===//
#include "CclGlue.h"
#include "CclDialect.h"
#include "RustPass.h"

#include "mlir-c/Diagnostics.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Threading.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/ParseUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <mutex>
#include <vector>

using namespace mlir;

namespace {

/// The value of a choice option: the index of one of its names. An enum,
/// so that llvm::cl parses and MLIR prints it by name.
enum class Choice : int64_t {};

/// A pass option or pipeline option, made from its Rust description.
template <typename Owner>
struct DynamicOptions {
  std::vector<std::unique_ptr<detail::PassOptions::Option<bool>>> bools;
  std::vector<std::unique_ptr<detail::PassOptions::Option<int64_t>>> ints;
  std::vector<std::unique_ptr<detail::PassOptions::Option<Choice>>> choices;
  /// Per declared option: its kind and its index into the vector of that kind.
  std::vector<std::pair<int, size_t>> slots;

  /// Declares the options of `infos` on `parent` (a Pass, whose options
  /// are `Pass::Option`s, or a pipeline's `detail::PassOptions`).
  template <template <typename> class Option, typename Parent>
  void declare(Parent &parent, const CclOptionInfo *infos, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const CclOptionInfo &info = infos[i];
      if (info.kind == CCL_OPTION_BOOL) {
        slots.emplace_back(info.kind, bools.size());
        bools.push_back(std::make_unique<Option<bool>>(parent, info.name, llvm::cl::desc(info.description),
                                                       llvm::cl::init(info.default_value != 0)));
      } else if (info.kind == CCL_OPTION_CHOICE) {
        slots.emplace_back(info.kind, choices.size());
        auto option = std::make_unique<Option<Choice>>(parent, info.name, llvm::cl::desc(info.description),
                                                       llvm::cl::init(Choice(info.default_value)));
        for (size_t c = 0; c < info.num_choices; ++c)
          option->getParser().addLiteralOption(info.choices[c], Choice(c), info.choice_helps[c]);
        choices.push_back(std::move(option));
      } else {
        slots.emplace_back(info.kind, ints.size());
        ints.push_back(std::make_unique<Option<int64_t>>(parent, info.name, llvm::cl::desc(info.description),
                                                         llvm::cl::init(info.default_value)));
      }
    }
  }

  std::vector<int64_t> values() const {
    std::vector<int64_t> out;
    out.reserve(slots.size());
    for (auto [kind, index] : slots) {
      if (kind == CCL_OPTION_BOOL)
        out.push_back(static_cast<int64_t>(bools[index]->getValue()));
      else if (kind == CCL_OPTION_CHOICE)
        out.push_back(static_cast<int64_t>(choices[index]->getValue()));
      else
        out.push_back(ints[index]->getValue());
    }
    return out;
  }
};

/// `Pass::Option` and a pipeline's `PassOptions::Option`, as templates of
/// the value type alone (what `DynamicOptions::declare` instantiates).
template <typename T>
using PassOption = Pass::Option<T>;
template <typename T>
using PipelineOption = detail::PassOptions::Option<T>;



} // namespace

/// While a pipeline is being built, the original Rust pass instances it
/// creates on this thread, in creation (= pipeline) order: what its
/// statistics report lists.
thread_local std::vector<RustPass *> *recording = nullptr;

namespace {

TypeID typeIdOf(const CclPassInfo *info) {
  // One TypeID per description: its address is unique for the process.
  return TypeID::getFromOpaquePointer(info);
}

} // namespace

namespace cclir {

/// A value a Rust pass computed for the op it ran on, cached in MLIR's
/// analysis manager so that the passes nested under that op can read it
/// (`getCachedParentAnalysis`) until a pass changes the op.
struct RustAnalysis {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RustAnalysis)

  explicit RustAnalysis(Operation *) {}
  RustAnalysis(const RustAnalysis &) = delete;
  RustAnalysis &operator=(const RustAnalysis &) = delete;
  ~RustAnalysis() { reset(nullptr, nullptr); }

  void reset(void *newValue, void (*newDrop)(void *)) {
    if (value)
      drop(value);
    value = newValue;
    drop = newDrop;
  }

  void *value = nullptr;
  void (*drop)(void *) = nullptr;
};

} // namespace cclir

using cclir::RustAnalysis;

class RustPass : public Pass {
public:
  RustPass(const CclPassInfo *info, const CclPassCallbacks *callbacks, void *statistics)
      : Pass(typeIdOf(info), info->anchor ? std::optional<StringRef>(info->anchor) : std::nullopt), info(info), callbacks(callbacks), statistics(statistics) {
    options.declare<PassOption>(*this, info->options, info->num_options);
  }

  /// An original instance (not a clone), made by the registry's allocator.
  static std::unique_ptr<Pass> create(const CclPassInfo *info, const CclPassCallbacks *callbacks) {
    auto pass = std::make_unique<RustPass>(info, callbacks, callbacks->new_statistics(info->rust));
    if (recording)
      recording->push_back(pass.get());
    return pass;
  }

  ~RustPass() override {
    if (state)
      callbacks->destroy_state(info->rust, state);
    callbacks->release_statistics(statistics);
  }

  StringRef getArgument() const override { return info->argument; }
  StringRef getName() const override { return info->name; }
  StringRef getDescription() const override { return info->description; }
  void *getStatistics() const { return statistics; }

  /// The pass's names and a new owner of its counters.
  cclir::RecordedPass retain() const {
    return {getArgument().str(), getName().str(), callbacks->share_statistics(statistics), callbacks};
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    for (size_t i = 0; i < info->num_dependent_dialects; ++i)
      insertDialect(registry, info->dependent_dialects[i]);
  }

  bool canScheduleOn(RegisteredOperationName) const override { return true; }

  LogicalResult initializeOptions(StringRef text, function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(text, errorHandler)))
      return failure();
    const char *message = nullptr;
    std::vector<int64_t> values = options.values();
    if (!callbacks->check_options(info->rust, values.data(), &message))
      return errorHandler(message ? message : "invalid options");
    return success();
  }

  void runOnOperation() override {
    std::vector<int64_t> values = options.values();
    int outcome = callbacks->run(info->rust, &state, statistics, values.data(), wrap(getOperation()), this);
    if (outcome == CCL_RUN_FAILED)
      return signalPassFailure();
    if (outcome == CCL_RUN_PRESERVED_ALL)
      markAllAnalysesPreserved();
  }

  void cacheAnalysis(void *value, void (*drop)(void *)) {
    getAnalysis<RustAnalysis>().reset(value, drop);
    markAnalysesPreserved<RustAnalysis>();
  }

  const void *cachedParentAnalysis() {
    auto cached = getCachedParentAnalysis<RustAnalysis>();
    return cached ? cached->get().value : nullptr;
  }

  /// Runs the pipeline `text` (anchored: `builtin.module(...)`) on `op`,
  /// the op this pass runs on or one nested in it, as MLIR's dynamic
  /// pipelines do: with this pass manager's instrumentation and verifier.
  LogicalResult runNestedPipeline(StringRef text, Operation *op) {
    std::string errors;
    llvm::raw_string_ostream stream(errors);
    FailureOr<OpPassManager> pipeline = parsePassPipeline(text, stream);
    if (failed(pipeline))
      return emitError(op->getLoc()) << "cannot build the pipeline '" << text << "': " << errors;
    return runPipeline(*pipeline, op);
  }

  std::unique_ptr<Pass> clonePass() const override {
    // MLIR copies the option values into the clone after this.
    return std::make_unique<RustPass>(info, callbacks, callbacks->share_statistics(statistics));
  }

private:
  static void insertDialect(DialectRegistry &registry, StringRef name) {
    if (name == "ccl")
      registry.insert<ccl::CclDialect>();
    else if (name == "arith")
      registry.insert<arith::ArithDialect>();
    else if (name == "cf")
      registry.insert<cf::ControlFlowDialect>();
    else if (name == "func")
      registry.insert<func::FuncDialect>();
    else if (name == "index")
      registry.insert<index::IndexDialect>();
    else if (name == "memref")
      registry.insert<memref::MemRefDialect>();
    else if (name == "scf")
      registry.insert<scf::SCFDialect>();
    else
      llvm::report_fatal_error(llvm::Twine("cclir: no dependent dialect named ") + name);
  }

  const CclPassInfo *info;
  const CclPassCallbacks *callbacks;
  void *statistics;
  void *state = nullptr;
  DynamicOptions<RustPass> options;
};

namespace {

/// The options of a named Rust pipeline, for its parser and --help.
class PipelineOptions : public detail::PassOptions {
public:
  explicit PipelineOptions(const CclPipelineInfo *info) {
    options.declare<PipelineOption>(*this, info->options, info->num_options);
  }
  DynamicOptions<PipelineOptions> options;
};

void appendTo(void *buffer, const char *data, size_t length) {
  static_cast<std::string *>(buffer)->append(data, length);
}

} // namespace

extern "C" void cclRegisterRustPass(const CclPassInfo *info, const CclPassCallbacks *callbacks) {
  registerPass([info, callbacks]() { return RustPass::create(info, callbacks); });
}

extern "C" void cclPassCacheAnalysis(void *pass, void *value, void (*drop)(void *)) {
  static_cast<RustPass *>(pass)->cacheAnalysis(value, drop);
}

extern "C" const void *cclPassCachedParentAnalysis(void *pass) {
  return static_cast<RustPass *>(pass)->cachedParentAnalysis();
}

extern "C" MlirLogicalResult cclPassRunPipeline(void *pass, MlirStringRef pipeline, MlirOperation op) {
  return wrap(static_cast<RustPass *>(pass)->runNestedPipeline(unwrap(pipeline), unwrap(op)));
}

extern "C" void cclRegisterRustPipeline(const CclPipelineInfo *info) {
  registerPassPipeline(
      info->argument, info->description,
      [info](OpPassManager &pm, StringRef text, function_ref<LogicalResult(const Twine &)> errorHandler) {
        PipelineOptions options(info);
        std::string parseErrors;
        llvm::raw_string_ostream errorStream(parseErrors);
        if (failed(options.parseFromString(text, errorStream)))
          return errorHandler(parseErrors);
        std::vector<int64_t> values = options.options.values();
        std::string elements;
        const char *message = nullptr;
        if (!info->build(info->rust, values.data(), appendTo, &elements, &message))
          return errorHandler(message ? message : "invalid pipeline options");
        std::string errors;
        llvm::raw_string_ostream os(errors);
        if (failed(parsePassPipeline(elements, pm, os)))
          return errorHandler(errors);
        return success();
      },
      [info](function_ref<void(const detail::PassOptions &)> visit) {
        PipelineOptions options(info);
        visit(options);
      });
}

extern "C" void cclRegisterAllPasses(CclRegisterFn registerRust) {
  static std::once_flag once;
  std::call_once(once, [registerRust] {
    registerAllPasses();
    registerRust();
  });
}

extern "C" void cclParallelFor(MlirContext context, size_t n, void (*fn)(void *, size_t), void *data) {
  parallelFor(unwrap(context), 0, n, [&](size_t index) { fn(data, index); });
}

extern "C" void cclEmitDiagnostic(MlirLocation loc, int severity, MlirStringRef message, size_t numNotes,
                                  const MlirLocation *noteLocations, const MlirStringRef *noteMessages) {
  Location location = unwrap(loc);
  DiagnosticSeverity kind;
  switch (severity) {
  case MlirDiagnosticError:
    kind = DiagnosticSeverity::Error;
    break;
  case MlirDiagnosticWarning:
    kind = DiagnosticSeverity::Warning;
    break;
  case MlirDiagnosticNote:
    kind = DiagnosticSeverity::Note;
    break;
  default:
    kind = DiagnosticSeverity::Remark;
  }
  InFlightDiagnostic diagnostic = location.getContext()->getDiagEngine().emit(location, kind);
  diagnostic << unwrap(message);
  for (size_t i = 0; i < numNotes; ++i)
    diagnostic.attachNote(unwrap(noteLocations[i])) << unwrap(noteMessages[i]);
}

std::vector<RustPass *> *cclir::startRecording(std::vector<RustPass *> *into) {
  std::vector<RustPass *> *previous = recording;
  recording = into;
  return previous;
}

cclir::RecordedPass cclir::retain(RustPass *pass) { return pass->retain(); }

void cclir::release(RecordedPass &pass) {
  if (pass.statistics)
    pass.callbacks->release_statistics(pass.statistics);
  pass.statistics = nullptr;
}

extern "C" MlirLogicalResult cclParsePassPipeline(MlirOpPassManager manager, MlirStringRef pipeline,
                                                  MlirStringCallback error, void *userData, CclPassVisitor visit,
                                                  void *visitData) {
  std::vector<RustPass *> created;
  std::vector<RustPass *> *previous = cclir::startRecording(&created);
  detail::CallbackOstream stream(error, userData);
  FailureOr<OpPassManager> parsed = parsePassPipeline(unwrap(pipeline), stream);
  stream.flush();
  cclir::startRecording(previous);
  if (failed(parsed))
    return wrap(failure());
  *unwrap(manager) = std::move(*parsed);
  for (RustPass *pass : created)
    visit(visitData, wrap(pass->getArgument()), wrap(pass->getName()), pass->getStatistics());
  return wrap(success());
}

extern "C" MlirOperation cclParseSourceForTool(MlirContext context, MlirStringRef text, MlirStringRef name,
                                               bool implicitModule) {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  // A copy: MLIR's lexer wants the NUL after the last character that its
  // own file reader guarantees.
  sourceMgr->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(unwrap(text), unwrap(name)), llvm::SMLoc());
  ParserConfig config(unwrap(context), /*verifyAfterParse=*/true);
  OwningOpRef<Operation *> op = parseSourceFileForTool(sourceMgr, config, implicitModule);
  return wrap(op.release());
}

std::vector<std::string> cclir::registeredPassNames() {
  auto &options = llvm::cl::getRegisteredOptions();
  // Outside a tool nothing has put the pass names on the command line yet:
  // a pipeline parser of our own does (once; a second `pass-pipeline`
  // option would be an error).
  if (options.find("pass-pipeline") == options.end()) {
    static PassPipelineCLParser *names = new PassPipelineCLParser("", "");
    (void)names;
  }
  std::vector<std::string> names;
  auto anchor = options.find("cse");
  if (anchor == options.end())
    return names;
  for (auto &entry : options)
    if (entry.second == anchor->second)
      names.push_back(entry.first.str());
  return names;
}

extern "C" void cclForEachRegisteredPassName(void (*visit)(void *, MlirStringRef), void *data) {
  for (const std::string &name : cclir::registeredPassNames())
    visit(data, wrap(StringRef(name)));
}
