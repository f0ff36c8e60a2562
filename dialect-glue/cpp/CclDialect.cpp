//===- CclDialect.cpp - the ccl dialect's definitions ---------------------===//
//
// Glue only: the generated definitions, and the dialect's initialize() that
// adds the generated ops and attributes. Every op, parser and printer comes
// from dialect/Ccl.td, but for one custom directive (ccl.cacheinvalid's
// optional target) defined here; so do the verifiers, but for the checks
// ODS cannot state, written here as the hooks it declares: index counts
// and element types against a buffer's type, ccl.submit's callee (a symbol
// use, checked with the symbol table) and the discardable ccl.launch_width.
//
//===----------------------------------------------------------------------===//
#include "CclDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ccl;

#include "CclEnums.cpp.inc"
#include "CclDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "CclAttrs.cpp.inc"

//===----------------------------------------------------------------------===//
// ccl.cacheinvalid's optional target
//===----------------------------------------------------------------------===//

/// True when the text at `p` (the current token, a `%name` or not) is an
/// operand: a `%name` followed by `=`, `,` or `:<digits>` instead starts the
/// result list of the next op (`%v = ...`, `%a, %b = ...`, `%r:2 = ...`).
/// The current token is lexed in full and the parser's buffer ends with a
/// NUL (the lexer relies on it too), so the scan stops inside the buffer.
static bool startsTarget(const char *p) {
  if (*p != '%')
    return false;
  ++p;
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '$' || c == '.' || c == '_' || c == '-';
  };
  while (isNameChar(*p))
    ++p;
  if (*p == '#')
    for (++p; llvm::isDigit(*p); ++p) {
    }
  auto skipSpace = [&] {
    while (true) {
      if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
        ++p;
      } else if (p[0] == '/' && p[1] == '/') {
        while (*p && *p != '\n')
          ++p;
      } else {
        return;
      }
    }
  };
  skipSpace();
  if (*p == '=' || *p == ',')
    return false;
  if (*p == ':') {
    ++p;
    skipSpace();
    return !llvm::isDigit(*p);
  }
  return true;
}

static ParseResult parseCacheInvalidTarget(OpAsmParser &parser,
                                           std::optional<OpAsmParser::UnresolvedOperand> &target,
                                           Type &type) {
  if (!startsTarget(parser.getCurrentLocation().getPointer()))
    return success();
  OpAsmParser::UnresolvedOperand operand;
  if (parser.parseOperand(operand) || parser.parseColonType(type))
    return failure();
  target = operand;
  return success();
}

static void printCacheInvalidTarget(OpAsmPrinter &printer, Operation *, Value target, Type type) {
  if (target)
    printer << ' ' << target << " : " << type;
}

#define GET_OP_CLASSES
#include "CclOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

/// One index per dimension of `buffer` when it is ranked (an unranked
/// memref takes any number).
static LogicalResult verifyIndexCount(Operation *op, Value buffer, StringRef name, size_t count) {
  auto ranked = llvm::dyn_cast<MemRefType>(buffer.getType());
  if (!ranked || static_cast<int64_t>(count) == ranked.getRank())
    return success();
  return op->emitOpError() << "expects " << ranked.getRank() << (ranked.getRank() == 1 ? " index" : " indices")
                           << ", one per dimension of " << name << " (" << ranked << "), but got " << count;
}

/// `type` is the element type of `buffer`.
static LogicalResult verifyElementType(Operation *op, Value buffer, StringRef name, Type type, StringRef what) {
  Type element = llvm::cast<BaseMemRefType>(buffer.getType()).getElementType();
  if (type == element)
    return success();
  return op->emitOpError() << what << " type " << type << " must be the element type of " << name << ", "
                           << element;
}

LogicalResult TileStoreOp::verify() { return verifyIndexCount(*this, getDst(), "dst", getIndices().size()); }

LogicalResult TileLoadOp::verify() { return verifyIndexCount(*this, getSrc(), "src", getIndices().size()); }

LogicalResult TensorWriteOp::verify() { return verifyIndexCount(*this, getDst(), "dst", getIndices().size()); }

LogicalResult ReadOp::verify() {
  if (failed(verifyIndexCount(*this, getSrc(), "src", getIndices().size())))
    return failure();
  return verifyElementType(*this, getSrc(), "src", getScalar().getType(), "result");
}

LogicalResult SubmitOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FlatSymbolRefAttr callee = getCalleeAttr();
  Operation *target = symbolTable.lookupNearestSymbolFrom(*this, callee);
  if (!target)
    return emitOpError() << callee << " does not reference a symbol";
  if (!llvm::isa<FunctionOpInterface>(target)) {
    InFlightDiagnostic diagnostic = emitOpError() << callee << " does not reference a function";
    diagnostic.attachNote(target->getLoc()) << "the symbol it references";
    return diagnostic;
  }
  return success();
}

LogicalResult CclDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  if (attribute.getName() != "ccl.launch_width")
    return success();
  auto width = llvm::dyn_cast<IntegerAttr>(attribute.getValue());
  if (width && llvm::isa<IntegerType, IndexType>(width.getType()) && width.getValue().isStrictlyPositive())
    return success();
  return op->emitOpError() << "attribute 'ccl.launch_width' must be a positive integer, but got "
                           << attribute.getValue();
}

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
