//===- DialectPlugin.cpp - the ccl dialect for upstream mlir-opt ----------===//
//
// `mlir-opt --load-dialect-plugin=libccl_dialect_plugin.so` calls this entry
// point and gets the ccl dialect: the same generated classes as the cclir
// binaries, built against the shared libMLIR that mlir-opt itself uses.
//
//===----------------------------------------------------------------------===//
#include "CclDialect.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "ccl", LLVM_VERSION_STRING,
          [](::mlir::DialectRegistry *registry) {
            // A tool that has ccl already (ccl-opt itself) keeps its own:
            // two classes for one namespace would abort the registry.
            if (!llvm::is_contained(registry->getDialectNames(), "ccl"))
              registry->insert<::mlir::ccl::CclDialect>();
          }};
}
