//===- CclDialect.cpp - the ccl dialect's definitions ---------------------===//
//
// Glue only: the generated definitions, and the dialect's initialize() that
// adds the generated ops and attributes. Every op, verifier, parser and
// printer comes from src/dialect/Ccl.td, but for one custom directive
// (ccl.cacheinvalid's optional target) defined here.
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
