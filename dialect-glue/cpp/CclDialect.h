//===- CclDialect.h - the ccl dialect's C++ classes -----------------------===//
//
// Glue only: the declarations mlir-tblgen generates from
// dialect/Ccl.td, in the order they depend on each other.
//
//===----------------------------------------------------------------------===//
#ifndef CCLIR_CCLDIALECT_H
#define CCLIR_CCLDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "CclEnums.h.inc"
#include "CclDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "CclAttrs.h.inc"

#define GET_OP_CLASSES
#include "CclOps.h.inc"

#endif // CCLIR_CCLDIALECT_H
