//===- CclCAPI.cpp - the ccl dialect in MLIR's C API ----------------------===//
#include "CclCAPI.h"
#include "CclDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::ccl;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(CCL, ccl, CclDialect)

MlirAttribute cclWindowAttrGet(MlirContext context) {
  return wrap(WindowAttr::get(unwrap(context)));
}

bool cclAttributeIsAWindow(MlirAttribute attribute) {
  return llvm::isa_and_present<WindowAttr>(unwrap(attribute));
}

MlirAttribute cclEnumAttrGet(MlirContext context, int kind, int value) {
  MLIRContext *ctx = unwrap(context);
  switch (kind) {
  case 0:
    if (auto v = symbolizeNotifyKind(value))
      return wrap(NotifyKindAttr::get(ctx, *v));
    break;
  case 1:
    if (auto v = symbolizeWaitCmp(value))
      return wrap(WaitCmpAttr::get(ctx, *v));
    break;
  case 2:
    if (auto v = symbolizeReduceKind(value))
      return wrap(ReduceKindAttr::get(ctx, *v));
    break;
  }
  return MlirAttribute{nullptr};
}

MlirOperation cclOperationGetPrevInBlock(MlirOperation op) {
  Operation *operation = unwrap(op);
  if (!operation->getBlock())
    return MlirOperation{nullptr};
  return wrap(operation->getPrevNode());
}

MlirOperation cclBlockGetLastOperation(MlirBlock block) {
  Block *b = unwrap(block);
  if (b->empty())
    return MlirOperation{nullptr};
  return wrap(&b->back());
}

int cclEnumAttrGetValue(MlirAttribute attribute, int kind) {
  Attribute attr = unwrap(attribute);
  switch (kind) {
  case 0:
    if (auto a = llvm::dyn_cast_if_present<NotifyKindAttr>(attr))
      return static_cast<int>(a.getValue());
    break;
  case 1:
    if (auto a = llvm::dyn_cast_if_present<WaitCmpAttr>(attr))
      return static_cast<int>(a.getValue());
    break;
  case 2:
    if (auto a = llvm::dyn_cast_if_present<ReduceKindAttr>(attr))
      return static_cast<int>(a.getValue());
    break;
  }
  return -1;
}
