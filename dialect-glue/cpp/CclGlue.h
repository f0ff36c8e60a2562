/*===- CclGlue.h - the C interface between cclir's C++ glue and Rust -------===*\
|*                                                                            *|
|* Everything the Rust side calls in C++, and every callback C++ makes into  *|
|* Rust, as plain C. dialect/src/ffi/sys.rs declares the same, item for item.*|
|*                                                                            *|
|* The C++ side is glue: one mlir::Pass class whose every decision is the    *|
|* Rust pass description's, MLIR's tool mains, and thin forwards to MLIR     *|
|* APIs that the C API lacks. No ccl logic lives here.                        *|
\*===----------------------------------------------------------------------===*/
#ifndef CCLIR_CCLGLUE_H
#define CCLIR_CCLGLUE_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*--- Rust passes ----------------------------------------------------------*/

/// The kinds of option a Rust pass declares.
enum { CCL_OPTION_INT = 0, CCL_OPTION_BOOL = 1, CCL_OPTION_CHOICE = 2 };

/// One option of a Rust pass: an `int64_t`, a `bool` (0 or 1), or one of
/// `choices` (its value is the index of the choice, parsed and printed by
/// name; `choice_helps` says what each means).
typedef struct {
  const char *name;
  const char *description;
  int kind;
  int64_t default_value;
  const char *const *choices;
  const char *const *choice_helps;
  size_t num_choices;
} CclOptionInfo;

/// A Rust pass as MLIR's registry sees it. Every string lives for the
/// process (MLIR keeps references to them).
typedef struct {
  const char *argument;    /* the pipeline name, `ccl-insert-comm-fence` */
  const char *name;        /* the class-like name timing and dumps show */
  const char *description; /* one line for --help and --list-passes */
  const char *anchor;      /* `builtin.module`, `func.func`, or NULL: op-agnostic */
  const char *const *dependent_dialects;
  size_t num_dependent_dialects;
  const CclOptionInfo *options;
  size_t num_options;
  const void *rust; /* the Rust description, handed back in callbacks */
} CclPassInfo;

/// What a pass run tells MLIR.
enum { CCL_RUN_FAILED = 0, CCL_RUN_CHANGED = 1, CCL_RUN_PRESERVED_ALL = 2 };

/// The Rust half of every Rust pass instance. `state` is the instance's
/// Rust object (made on first run, or null), `statistics` its counters
/// (shared with every clone of the instance).
typedef struct {
  /// New counters for an original instance.
  void *(*new_statistics)(const void *rust);
  /// One more owner of `statistics` (a clone).
  void *(*share_statistics)(void *statistics);
  void (*release_statistics)(void *statistics);
  /// Checks option values after MLIR parsed them; on failure writes a
  /// message (owned by Rust, valid until the next call) and returns 0.
  int (*check_options)(const void *rust, const int64_t *values, const char **message);
  /// Runs the pass on `op`; returns a CCL_RUN_* code. A panic is caught on
  /// the Rust side and reported as an error at `op`. `pass` is the running
  /// instance, for cclPassCacheAnalysis and cclPassCachedParentAnalysis.
  int (*run)(const void *rust, void **state, void *statistics, const int64_t *values, MlirOperation op,
             void *pass);
  void (*destroy_state)(const void *rust, void *state);
} CclPassCallbacks;

/// Registers `info` (copied by reference: it must live for the process)
/// with MLIR's global pass registry.
void cclRegisterRustPass(const CclPassInfo *info, const CclPassCallbacks *callbacks);

/// Caches `value` as an analysis of the op the running Rust `pass` runs on,
/// kept as preserved by this run: MLIR's analysis manager owns it from now
/// on and calls `drop(value)` when a later pass invalidates it (or the
/// cache is torn down). One slot per op: a second value replaces the first.
void cclPassCacheAnalysis(void *pass, void *value, void (*drop)(void *value));

/// The value cached with cclPassCacheAnalysis on the parent op of the op
/// `pass` runs on, if it is still valid; null otherwise.
const void *cclPassCachedParentAnalysis(void *pass);

/// Runs `pipeline` (`builtin.module(...)`) on `op`, the op the running Rust
/// `pass` runs on or one nested in it (MLIR's dynamic pipelines); failure
/// when the pipeline does not parse (an error at `op`) or a pass fails.
MlirLogicalResult cclPassRunPipeline(void *pass, MlirStringRef pipeline, MlirOperation op);

/// A named pipeline with options, registered like a pass pipeline: `build`
/// gets the option values and writes the pipeline's elements (comma
/// separated, no anchor) into the buffer of `write`.
typedef struct {
  const char *argument;
  const char *description;
  const CclOptionInfo *options;
  size_t num_options;
  const void *rust;
  /// Returns 0 and sets *message on bad option values.
  int (*build)(const void *rust, const int64_t *values, void (*write)(void *, const char *, size_t), void *buffer,
               const char **message);
} CclPipelineInfo;

void cclRegisterRustPipeline(const CclPipelineInfo *info);

/// Registers every upstream pass, then each Rust pass and pipeline, once per
/// process (MLIR's registry refuses a name twice).
typedef void (*CclRegisterFn)(void);
void cclRegisterAllPasses(CclRegisterFn register_rust);

/// Runs `fn(data, i)` for every `i` in `[0, n)` on the context's thread
/// pool (in order on this thread when threading is disabled).
void cclParallelFor(MlirContext context, size_t n, void (*fn)(void *data, size_t index), void *data);

/// Emits a diagnostic of `severity` (an MlirDiagnosticSeverity) at `loc`,
/// with notes, through the context's diagnostic engine.
void cclEmitDiagnostic(MlirLocation loc, int severity, MlirStringRef message, size_t num_notes,
                       const MlirLocation *note_locations, const MlirStringRef *note_messages);

/// Called for each Rust pass of a pipeline, in pipeline order: its
/// argument, its name and its statistics handle.
typedef void (*CclPassVisitor)(void *data, MlirStringRef argument, MlirStringRef name, void *statistics);

/// Builds `manager`'s pipeline from `pipeline` (`builtin.module(...)`)
/// with MLIR's own parser; errors are written through `error`. On success
/// `visit` sees the Rust passes the pipeline holds.
MlirLogicalResult cclParsePassPipeline(MlirOpPassManager manager, MlirStringRef pipeline, MlirStringCallback error,
                                       void *user_data, CclPassVisitor visit, void *visit_data);

/// Every registered pass and pass pipeline name (for "did you mean").
void cclForEachRegisteredPassName(void (*visit)(void *data, MlirStringRef name), void *data);

/// Parses `text` as mlir-opt parses a file: locations name `name`, and a
/// buffer that is not one top-level op gets an implicit `builtin.module`
/// (unless `implicit_module` is false). Verifies after parsing. Null on
/// failure (the diagnostics went to the context's handlers).
MlirOperation cclParseSourceForTool(MlirContext context, MlirStringRef text, MlirStringRef name, bool implicit_module);

/*--- Tools ----------------------------------------------------------------*/

/// What ccl-opt asks of Rust around MlirOptMain.
typedef struct {
  CclRegisterFn register_rust;
  /// Looks at the input before MLIR parses it (its nesting depth); returns 0
  /// and sets *message to a located error when it must not be parsed.
  int (*check_input)(const char *data, size_t length, MlirStringRef name, const char **message);
  /// Opens the output file `path` (never "-": stdout is LLVM's); returns a
  /// handle, or null and sets *message.
  void *(*open_output)(MlirStringRef path, const char **message);
  /// Writes bytes; returns 0 and sets *message on an I/O error.
  int (*write_output)(void *handle, const char *data, size_t length, const char **message);
  /// Finishes the output: kept when `keep`, else discarded; returns 0 and
  /// sets *message if keeping failed. Frees the handle.
  int (*close_output)(void *handle, int keep, const char **message);
  /// Suggests the registered name nearest to `unknown` among `names`, or
  /// returns null.
  const char *(*suggest)(MlirStringRef unknown, const MlirStringRef *names, size_t count);
  /// Prints the statistics report of one pipeline run
  /// (`--mlir-pass-statistics`): `pipeline` is the pipeline as MLIR prints
  /// it, `count` Rust passes in pipeline order; `list` for
  /// `--mlir-pass-statistics-display=list`.
  void (*print_statistics)(MlirStringRef pipeline, size_t count, const MlirStringRef *arguments,
                           const MlirStringRef *names, void *const *statistics, int list);
  /// `--sarif=FILE`: keeps a diagnostic (with its notes) for the log.
  void (*record_diagnostic)(MlirDiagnostic diagnostic);
  /// Writes the diagnostics kept so far as a SARIF log to `path`, for a run
  /// that ends with `exit_code`; returns 0 and sets *message on failure.
  int (*write_sarif)(MlirStringRef path, int exit_code, const char **message);
} CclOptHooks;

/// Registers `path` to be removed if the process dies of a signal (LLVM's
/// handler, as for mlir-opt's own output), or forgets it again.
void cclRemoveFileOnSignal(MlirStringRef path, bool remove);

/// Installs LLVM's signal handlers as llvm::InitLLVM does first (SIGPIPE
/// ending the run with LLVM's one-shot exit included), so that they are in
/// place before a tool main runs and can be wrapped (dialect/src/ffi/crash.rs).
/// InitLLVM in the main later finds them installed and adds its callbacks.
void cclRegisterSignalHandlers(void);

/// mlir-opt's main with the ccl dialect and the Rust passes; returns the
/// exit code.
int cclOptMain(int argc, char **argv, const CclOptHooks *hooks);

/// mlir-lsp-server's main with every upstream dialect and ccl.
int cclLspServerMain(int argc, char **argv);

/// mlir-reduce's main with every upstream dialect, pass and ccl, and the
/// Rust passes (for `-reduction-tree` interestingness runs and pass lists).
int cclReduceMain(int argc, char **argv, CclRegisterFn register_rust);

#ifdef __cplusplus
}
#endif

#endif // CCLIR_CCLGLUE_H
