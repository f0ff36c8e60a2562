//===- CclDialect.cpp - the ccl dialect's definitions ---------------------===//
//
// Glue only: the generated definitions, and the dialect's initialize() that
// adds the generated ops and attributes. Every op, verifier, parser and
// printer comes from src/dialect/Ccl.td.
//
//===----------------------------------------------------------------------===//
#include "CclDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ccl;

#include "CclEnums.cpp.inc"
#include "CclDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "CclAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "CclOps.cpp.inc"

void CclDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "CclAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "CclOps.cpp.inc"
      >();
}
